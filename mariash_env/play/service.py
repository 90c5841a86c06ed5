"""A robot as an HTTP service (``mariash serve-robot SPEC --port 8765``): the piece a game
server uses to seat a robot opponent.  Stateless: every request carries what the robot
needs, nothing is kept between requests, so ``--workers N`` answers in N processes side
by side, each with its own robot (one that dies is replaced).  Binds 127.0.0.1 unless
told otherwise.

``GET /info`` ->
``{"robot": SPEC, "rules": GAME, "obs_size": OBS_SIZE, "obs_sizes": [900, 924],
"n_actions": N_ACTIONS, "accepts": [...], "record_format": "mariash-seat/1",
"players": [3, 4]}`` (``record_format`` is null on a service that answers observations
only; ``players``: the seat counts whose records and observations it answers, volený's
four-player table too, ``obs_sizes`` their observations' sizes in that order)

``mariash serve-robot SPEC --rules GAME`` serves a robot of any game whose kind lists the
``service`` front end (``games("service")``): the observation and mask of that game (its
sizes in ``/info``), its labels.  Seat records (``mariash-seat/1``) are read for the games
that list the ``seat_record`` front end (volený and licitovaný); a service of another
game (two-player lízaný, whose seat's view is its observation and mask) answers
observations only.

``POST /act`` takes one of two bodies:

* the deal so far as the robot's seat saw it (the deck stays unknown to the service)::

      {"record": {"dealer": 2, "seat": 0, "hand": ["Qh", ...],
                  "actions": [[0, "trump:?"], ...], ...}}

  in the format ``mariash-seat/1`` of :mod:`mariash_env.seat_record` (rules, deal,
  scores, the seat's cards as dealt, the decisions with the other seats' unseen trump
  card and discards as ``?``, the plays that announced marriages, a shown card z lidu
  and an open contract's face-up hand; licitovaný's, with the actor's discards and
  face-down lead card as ``?`` and his talon:
  :mod:`mariash_env.games.licitovany.seat_record`; ``seat_record_of(game, seat)``
  writes one from a :class:`~mariash_env.Game`).  The seat's view is
  rebuilt through the engine (the hidden cards filled by a world consistent with what
  the seat saw) and the robot decides on it; every robot, the searching ones (``pimc``,
  ``os_ismcts``) too, can answer a record;
* the seat's observation and action mask, as the AEC environment hands them
  (``env.observe(agent)``)::

      {"observation": [OBS_SIZE numbers], "action_mask": [N_ACTIONS 0/1]}

  (the mask's entries 0/1 or false/true, :func:`is_mask_value`: the TorchRL env's bool
  mask as ``mask.tolist()`` gives it; not for the searching robots: they need the
  record); an observation of the four-player table (``env(players=4)``, 924 numbers) is
  answered by the robot built for four players.

-> ``{"action": 84, "label": "play:9h", "robot": SPEC}``.  A malformed body, an unknown
field, an illegal action in the record or a record that contradicts the seat's cards
gets a 4xx ``{"error": "..."}`` naming the problem; the same request gets the same
answer (a robot that draws random numbers, and the world a record is rebuilt in, are
seeded from the request).  Nothing compiled runs on a request before it is checked: a
body over ``max_body`` bytes (default 1 MiB) is refused with 413 unread, JSON nested
deeper than ``MAX_DEPTH`` or an object naming a key twice (:func:`parse_json`) gets a
400, a number that is not finite in float32, an
observation or mask of another size, or a mask with no legal action gets a 422, and a
record for another game than the one served (its ``rules``) gets a 422 naming both games.
A method a route does not take gets a 405 with ``Allow`` (``GET /act``: use POST), and
a path it has not a 404 naming the routes, a trailing slash too (``POST /act/``: no
redirect).
A body labelled as another media type than JSON's (:func:`check_media`), or compressed, gets a 415.
A robot that reads the observation's blocks (the table robots) refuses a position no seat
can have with a 422; a network robot cannot tell one and answers within the mask.
"""

from __future__ import annotations

import functools
import json
import zlib
from typing import Any

import numpy as np

from .. import jsonio
from ..extras import needs
from ..games.base import GameKind
from ..games.registry import game_kind, games
from ..robots import make_robot
from ..robots.base import Robot
from ..rules import is_int
from ..seat_record import FORMAT as RECORD_FORMAT
from ..seat_record import SeatRecordError, seat_view

with needs("play", "the robot service", "starlette"):
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

FIELDS = ("observation", "action_mask")
MAX_BODY = 1 << 20  # bytes: a full record or 1016 floats as JSON text is ~30 KB
MAX_DEPTH = 32  # JSON nesting: a seat record is 4 deep
F32_MAX = float(np.finfo(np.float32).max)  # an observation is float32: larger is inf
# The Content-Types a body is read as JSON under (check_media; also none and */*+json)
BODY_TYPES = ("application/json", "text/plain", "application/x-www-form-urlencoded")


MAX_ERROR = 600  # characters of an error message: one quoting a long value is cut


def clip(message: str, limit: int = MAX_ERROR) -> str:
    """``message`` cut in the middle to ``limit`` characters or so: an error that quotes a
    value of the request (a seat record's 100,000 scores) keeps its field at the start
    and what was expected at the end, without echoing the value whole."""
    if len(message) <= limit:
        return message
    head = limit * 2 // 3
    return f"{message[:head]} ... {message[-(limit - head):]}"


class RequestError(ValueError):
    """A request the service refuses; ``status`` is the HTTP status of the answer (the
    message :func:`clip`-ped)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(clip(message))
        self.status = status


class ErrorSafeJSON(JSONResponse):
    """Standard JSON as ASCII: an error message may quote a lone surrogate from the
    request (valid JSON, not encodable as UTF-8), and a non-finite number is written as
    null (:mod:`mariash_env.jsonio`), both of which Starlette's rendering turns into a
    500."""

    def render(self, content: Any) -> bytes:
        return jsonio.dumps(content, ensure_ascii=True,
                            separators=(",", ":")).encode("ascii")


def check_media(headers: Any) -> None:
    """RequestError 415 for a body declared as something the service does not read: a
    ``Content-Type`` other than JSON's, or a ``Content-Encoding`` (compressed).  What
    clients send a JSON text as by default is read: no type (httpx, requests' ``data=``),
    ``application/json`` and ``*/*+json``, ``text/plain`` (a browser's ``fetch`` of a
    string) and ``application/x-www-form-urlencoded`` (``curl -d``, Python's urllib)."""
    ctype = headers.get("content-type")
    media = (ctype or "").split(";", 1)[0].strip().lower()
    if media and media not in BODY_TYPES and not media.endswith("+json"):
        raise RequestError(f"Content-Type {ctype[:60]!r} is not read here: expected "
                           "application/json (text/plain and curl -d's "
                           "application/x-www-form-urlencoded are read as JSON too)", 415)
    coding = headers.get("content-encoding")
    if coding is not None and coding.strip().lower() not in ("", "identity"):
        raise RequestError(f"Content-Encoding {coding[:40]!r} is not read here: expected "
                           "the application/json body uncompressed", 415)


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request body, refused with 413 once it is known to pass ``limit`` bytes: by
    its Content-Length before reading, else while streaming it (chunked bodies)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):
            raise RequestError(f"bad Content-Length {length[:40]!r}: expected a byte count")
        if len(length) > 18 or int(length) > limit:
            raise RequestError(f"the body has {length[:40]} bytes, over the limit of {limit}",
                               413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(f"the body is over the limit of {limit} bytes", 413)
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``body`` (RequestError 400: not JSON, an object naming a key twice,
    which a reader would take one value of silently (:func:`mariash_env.jsonio.loads`), or
    nested deeper than ``max_depth`` arrays/objects, which later checks and messages would
    recurse into)."""
    try:
        data = jsonio.loads(body or b"null")
    except jsonio.DuplicateKeyError as e:
        raise RequestError(f"the body names the key {_quote(e.key)} twice in one object: "
                           "expected each key once") from e
    except jsonio.NestingError as e:
        raise RequestError(f"the body is nested deeper than {max_depth} levels") from e
    except ValueError as e:  # UnicodeDecodeError and the int-digits limit are ValueErrors
        raise RequestError(f"the body is not JSON ({e})") from e
    stack = [(data, 1)]
    while stack:
        x, depth = stack.pop()
        if isinstance(x, (dict, list)):
            if depth > max_depth:
                raise RequestError(f"the body is nested deeper than {max_depth} levels")
            stack.extend((v, depth + 1) for v in (x.values() if isinstance(x, dict) else x))
    return data


def _is_f32(x: Any) -> bool:
    """A JSON number that float32 holds finitely (NaN fails both comparisons; a huge int
    compares exactly, never converted)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and -F32_MAX <= x <= F32_MAX


def is_mask_value(x: Any) -> bool:
    """An entry of a request's ``action_mask``: 0 or 1 (the AEC env's int8 mask as
    ``tolist()`` gives it; 0.0 and 1.0 too) or false/true (the TorchRL env's bool mask)."""
    return isinstance(x, bool) or _is_f32(x) and x in (0, 1)


def _quote(x: Any) -> str:
    """A request's value as quoted in an error: short (not a 400-digit int, nor a list
    echoed back whole)."""
    if isinstance(x, (list, dict)):
        return f"a JSON {'array' if isinstance(x, list) else 'object'}"
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def record_game(record: Any) -> str | None:
    """The game a seat record's ``rules`` name (``voleny`` when it names none), or None
    when ``rules`` is malformed (the record's parser names that)."""
    if not isinstance(record, dict):
        return None
    opts = record.get("rules", {})
    if not isinstance(opts, dict):
        return None
    game = opts.get("rules", "voleny")
    if not isinstance(game, str):
        raise RequestError(f"record: field 'rules': 'rules' = {game!r}: expected a game name",
                           422)
    names = [k.name for k in games()]
    if game not in names:
        raise RequestError(f"record: field 'rules': 'rules' = {_quote(game)} names no game: "
                           f"expected one of {', '.join(names)}", 422)
    return game


def mismatch(record: dict[str, Any], game: str, served: str) -> str:
    """The words of a record of ``game`` sent to a service of ``served``; a record whose
    ``rules`` name no game (volený's by default) is told how to name the served one."""
    named = isinstance(record.get("rules"), dict) and "rules" in record["rules"]
    how = "" if named else (f" (a record whose 'rules' name no game is volený's: send "
                            f"\"rules\": {{\"rules\": \"{served}\"}})")
    return f"the record is for {game}, this service plays {served}{how}"


def load_robot(spec: str, rules: str = "voleny") -> Robot:
    """The robot of ``spec`` for the game ``rules`` (ValueError naming a bad spec)."""
    return make_robot(spec, rules=rules)


def observation_sizes(kind: GameKind) -> dict[int, int]:
    """``{observation size: seat count}`` of every seat count game ``kind`` is played with
    (volený: 900 floats at three players, 924 at four)."""
    return {kind.layout(p).obs_size: p for p in kind.players}


def parse_request(data: Any, kind: GameKind | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(observation float32[OBS_SIZE], mask int8[N_ACTIONS])`` from a request body (the
    sizes of the game ``kind``, volený's by default; the observation of any seat count the
    game is played with, :func:`observation_sizes` telling which from its size)."""
    kind = kind if kind is not None else game_kind("voleny")
    obs_size, n_actions = kind.obs_size, kind.n_actions
    sizes = observation_sizes(kind)
    if not isinstance(data, dict):
        raise RequestError("the body must be a JSON object: {'record': {...}} or "
                           "'observation' and 'action_mask'")
    missing = [f for f in FIELDS if f not in data]
    if missing:
        raise RequestError(f"missing field {missing[0]!r}: expected 'observation' "
                           f"({obs_size} numbers) and 'action_mask' ({n_actions} 0/1 or "
                           "false/true)")
    extra = sorted(set(data) - set(FIELDS))
    if extra:
        raise RequestError(f"unknown field {extra[0]!r}: expected only {', '.join(FIELDS)}")
    obs, mask = data["observation"], data["action_mask"]
    if not isinstance(obs, list) or len(obs) not in sizes:
        got = f"{len(obs)} items" if isinstance(obs, list) else type(obs).__name__
        more = "".join(f" ({n} at {p} players)" for n, p in sizes.items() if n != obs_size)
        raise RequestError(f"'observation' must be a list of {obs_size} numbers{more}, got "
                           f"{got}", 422)
    bad = next((i for i, x in enumerate(obs) if not _is_f32(x)), None)
    if bad is not None:
        raise RequestError(f"'observation'[{bad}] = {_quote(obs[bad])}: expected a number "
                           f"finite in float32 (|x| <= {F32_MAX:.4g})", 422)
    if not isinstance(mask, list) or len(mask) != n_actions:
        got = f"{len(mask)} items" if isinstance(mask, list) else type(mask).__name__
        raise RequestError(f"'action_mask' must be a list of {n_actions} 0/1 or false/true, "
                           f"got {got}", 422)
    bad = next((i for i, x in enumerate(mask) if not is_mask_value(x)), None)
    if bad is not None:
        raise RequestError(f"'action_mask'[{bad}] = {_quote(mask[bad])}: expected 0 or 1 "
                           "(false or true)", 422)
    if not any(mask):
        raise RequestError("'action_mask' has no legal action: the seat is not to move", 422)
    return np.asarray(obs, dtype=np.float32), np.asarray(mask, dtype=np.int8)


def create_service_app(spec: str, rules: str = "voleny",
                       max_body: int = MAX_BODY) -> Starlette:
    """The service's app for robot ``spec`` playing ``rules``; bodies over ``max_body``
    bytes get a 413."""
    if not is_int(max_body) or max_body < 1:
        raise ValueError(f"max_body={max_body!r}: expected a positive number of bytes")
    kind = game_kind(rules, "service")  # GameError (a ValueError) naming what is served
    robot = load_robot(spec, rules)
    records = kind.supports("seat_record")
    readers = " and ".join(k.title or k.name for k in games("seat_record"))
    if not records and robot.wants_view:
        raise ValueError(f"robot {spec!r} needs seat records ({RECORD_FORMAT}), which are "
                         f"{readers}'s: a {kind.title or kind.name} service answers "
                         "observations only")
    labels = kind.labels
    accepts = (["observation"] if not records else ["record"] if robot.wants_view
               else ["record", "observation"])
    # a record or an observation of another seat count (volený's four-player table) gets
    # the robot built for it, once: a searching robot values that table's settlement
    by_players: dict[int, Robot] = {kind.players[0]: robot}  # make_robot's default
    sizes = observation_sizes(kind)

    def robot_for(players: int, what: str = "record") -> Robot:
        if players not in by_players:
            try:
                by_players[players] = make_robot(spec, rules={"rules": kind.name,
                                                              "players": players})
            except ValueError as e:
                raise RequestError(f"{what}: robot {spec!r} does not play {players} "
                                   f"players: {e}", 422) from e
        return by_players[players]

    async def info(request: Request) -> JSONResponse:
        return ErrorSafeJSON({"robot": spec, "rules": kind.name, "obs_size": kind.obs_size,
                             "obs_sizes": list(sizes), "n_actions": kind.n_actions,
                             "accepts": accepts,
                             "record_format": RECORD_FORMAT if records else None,
                             "players": list(kind.players)})

    def decide(obs: np.ndarray, mask: np.ndarray) -> int:
        bot = robot_for(sizes[len(obs)], "observation")
        # The robot's own state (a random robot's generator) is reset per request.
        bot.begin_deal(zlib.crc32(obs.tobytes()) ^ zlib.crc32(mask.tobytes()) << 32)
        try:
            a = int(bot.act({"observation": obs, "action_mask": mask}))
        except (ValueError, LookupError) as e:
            # Any numbers of the right size pass parse_request.  Ones no seat sees fail in
            # the robot's decoding (robots.features.ObservationError, a ValueError), and a
            # mask of another phase than the observation's leaves a hand-written robot no
            # card to choose (min() of nothing, an index past a list): the request's fault.
            raise RequestError("'observation' and 'action_mask' are not a position the game "
                               f"gives a seat ({type(e).__name__}: {e})", 422) from e
        if not (0 <= a < kind.n_actions and mask[a]):
            # The robot read a legal move out of the observation that the mask forbids.
            raise RequestError("'observation' and 'action_mask' disagree: the observation "
                               f"allows action {a}, the mask does not", 422)
        return a

    def decide_record(record: Any) -> tuple[int, np.ndarray]:
        """The robot's action on the seat's view rebuilt from ``record`` (and the mask)."""
        game = record_game(record)
        if game is not None and game != kind.name:  # before anything compiled reads it
            raise RequestError(f"record: field 'rules': {mismatch(record, game, kind.name)}",
                               422)
        seed = zlib.crc32(json.dumps(record, sort_keys=True).encode())
        try:
            view = seat_view(record, rng=seed)
        except SeatRecordError as e:
            structural = e.field is None or "missing" in str(e) or "unknown field" in str(e)
            raise RequestError(f"record: {e}", 400 if structural else 422) from e
        bot = robot_for(view.rules.players)
        bot.begin_deal(seed)
        return int(bot.act_view(view)), view.action_mask()

    async def act(request: Request) -> JSONResponse:
        try:
            check_media(request.headers)
            data = parse_json(await read_body(request, max_body))
            if isinstance(data, dict) and "record" in data and not records:
                game = record_game(data["record"])  # None: no seat record at all
                other = f"the record is for {game}, " if game not in (None, kind.name) else ""
                raise RequestError(f"{other}this service plays {kind.name}: seat records "
                                   f"({RECORD_FORMAT}) are {readers}'s, a "
                                   f"{kind.title or kind.name} robot answers 'observation' "
                                   "and 'action_mask'", 422)
            if isinstance(data, dict) and "record" in data:
                extra = sorted(set(data) - {"record"})
                if extra:
                    raise RequestError(f"unknown field {extra[0]!r} next to 'record': expected "
                                       "only 'record'")
                a, mask = decide_record(data["record"])
            else:
                if records and isinstance(data, dict) and not set(data) & set(FIELDS):
                    # neither body (a misspelt 'record'): not "missing 'observation'"
                    raise RequestError(
                        (f"unknown field {sorted(data)[0]!r}: " if data else "empty body: ")
                        + f"expected {{'record': {{...}}}} ({RECORD_FORMAT})"
                        + (" or 'observation' and 'action_mask'"
                           if "observation" in accepts else ""))
                obs, mask = parse_request(data, kind)
                if robot.wants_view:
                    raise RequestError(f"robot {spec!r} searches the hidden cards and needs the "
                                       "deal so far: send {'record': {...}} "
                                       f"({RECORD_FORMAT}), not an observation", 422)
                a = decide(obs, mask)
        except RequestError as e:
            return ErrorSafeJSON({"error": str(e)}, status_code=e.status)
        if not mask[a]:  # a robot must answer a legal action; never pass an illegal one on
            return ErrorSafeJSON({"error": f"robot {spec!r} chose the illegal action "
                                 f"{labels[a]!r}"}, status_code=500)
        return ErrorSafeJSON({"action": a, "label": labels[a], "robot": spec})

    async def not_found(request: Request, exc: Exception) -> JSONResponse:
        return ErrorSafeJSON({"error": f"no such endpoint {request.url.path!r}: use POST /act "
                             "or GET /info"}, status_code=404)

    async def bad_method(request: Request, exc: Exception) -> JSONResponse:
        # RFC 9110 §15.5.6: a 405 names the methods the route takes (Starlette's Allow
        # header, from a set: sorted here so that it reads the same every time)
        allow = ", ".join(sorted(m.strip() for m in (getattr(exc, "headers", None) or {})
                                 .get("Allow", "").split(",") if m.strip()))
        use = f": use {allow}" if allow else ""
        return ErrorSafeJSON({"error": f"method {request.method} is not allowed on "
                             f"{request.url.path}{use}"}, status_code=405,
                             headers={"Allow": allow})

    app = Starlette(routes=[Route("/info", info), Route("/act", act, methods=["POST"])],
                    exception_handlers={404: not_found, 405: bad_method})
    # A path with a trailing slash (POST /act/) is no path of the service: a 404 naming
    # the routes, as any other, not Starlette's empty 307 to /act (which curl without -L
    # stops at, and a client that follows sends the body twice).
    app.router.redirect_slashes = False
    return app


def serve_robot(spec: str, host: str = "127.0.0.1", port: int = 8765,
                rules: str = "voleny", max_body: int = MAX_BODY, workers: int = 1) -> int:
    """Serve robot ``spec`` of game ``rules`` on ``host:port`` until interrupted, in
    ``workers`` processes (each with its own robot; the service is stateless, so any of
    them gives a request the same answer)."""
    from . import listen

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"invalid workers {workers!r}: expected an int >= 1")
    app = create_service_app(spec, rules, max_body)  # a bad spec fails here, before binding
    sock = listen.listen(host, port)  # OSError naming the address: in use, unknown host
    many = f" in {workers} processes" if workers > 1 else ""
    print(f"robot {spec} answers POST {listen.url(host, port, '/act')}{many} (Ctrl+C to stop)")
    if workers == 1:
        listen.run(app, sock)
    else:
        del app  # each worker builds its own
        listen.run_workers(functools.partial(create_service_app, spec, rules, max_body), sock,
                           workers)
    return 0
