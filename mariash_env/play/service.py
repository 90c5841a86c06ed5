"""A robot as an HTTP service (``mariash serve-robot SPEC --port 8765``): the piece a game
server uses to seat a robot opponent.  Stateless: every request carries what the robot
needs, nothing is kept between requests.  Binds 127.0.0.1 unless told otherwise.

``GET /info`` ->
``{"robot": SPEC, "rules": GAME, "obs_size": OBS_SIZE, "n_actions": N_ACTIONS,
"accepts": [...], "record_format": "mariash-seat/1"}``

``mariash serve-robot SPEC --rules licitovany`` serves a licitovaný robot: the
observation and mask of that game (its sizes in ``/info``), its labels; seat records
are volený's (``mariash-seat/1``), so a licitovaný service answers observations only.

``POST /act`` takes one of two bodies:

* the deal so far as the robot's seat saw it (the deck stays unknown to the service)::

      {"record": {"dealer": 2, "seat": 0, "hand": ["Qh", ...],
                  "actions": [[0, "trump:?"], ...], ...}}

  in the format ``mariash-seat/1`` of :mod:`mariash_env.seat_record` (rules, deal,
  scores, the seat's cards as dealt, the decisions with the other seats' unseen trump
  card and discards as ``?``, the plays that announced marriages).  The seat's view is
  rebuilt through the engine (the hidden cards filled by a world consistent with what
  the seat saw) and the robot decides on it; every robot, the searching ones (``pimc``,
  ``os_ismcts``) too, can answer a record;
* the seat's observation and action mask, as the AEC environment hands them
  (``env.observe(agent)``)::

      {"observation": [OBS_SIZE numbers], "action_mask": [N_ACTIONS 0/1]}

  (not for the searching robots: they need the record).

-> ``{"action": 84, "label": "play:9h", "robot": SPEC}``.  A malformed body, an unknown
field, an illegal action in the record or a record that contradicts the seat's cards
gets a 4xx ``{"error": "..."}`` naming the problem; the same request gets the same
answer (a robot that draws random numbers, and the world a record is rebuilt in, are
seeded from the request).
"""

from __future__ import annotations

import json
import math
import zlib
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..kinds import GameKind, kind_of
from ..robots import make_robot
from ..robots.base import Robot
from ..seat_record import FORMAT as RECORD_FORMAT
from ..seat_record import SeatRecordError, seat_view

FIELDS = ("observation", "action_mask")


class RequestError(ValueError):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def load_robot(spec: str, rules: str = "voleny") -> Robot:
    """The robot of ``spec`` for the game ``rules`` (ValueError naming a bad spec)."""
    return make_robot(spec, rules=rules)


def parse_request(data: Any, kind: GameKind | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(observation float32[OBS_SIZE], mask int8[N_ACTIONS])`` from a request body (the
    sizes of the game ``kind``, volený's by default)."""
    kind = kind if kind is not None else kind_of("voleny")
    obs_size, n_actions = kind.obs_size, kind.n_actions
    if not isinstance(data, dict):
        raise RequestError("the body must be a JSON object: {'record': {...}} or "
                           "'observation' and 'action_mask'")
    missing = [f for f in FIELDS if f not in data]
    if missing:
        raise RequestError(f"missing field {missing[0]!r}: expected 'observation' "
                           f"({obs_size} numbers) and 'action_mask' ({n_actions} 0/1)")
    extra = sorted(set(data) - set(FIELDS))
    if extra:
        raise RequestError(f"unknown field {extra[0]!r}: expected only {', '.join(FIELDS)}")
    obs, mask = data["observation"], data["action_mask"]
    if not isinstance(obs, list) or len(obs) != obs_size:
        got = f"{len(obs)} items" if isinstance(obs, list) else type(obs).__name__
        raise RequestError(f"'observation' must be a list of {obs_size} numbers, got {got}",
                           422)
    bad = next((i for i, x in enumerate(obs) if isinstance(x, bool)
                or not isinstance(x, (int, float)) or not math.isfinite(x)), None)
    if bad is not None:
        raise RequestError(f"'observation'[{bad}] = {obs[bad]!r} is not a finite number", 422)
    if not isinstance(mask, list) or len(mask) != n_actions:
        got = f"{len(mask)} items" if isinstance(mask, list) else type(mask).__name__
        raise RequestError(f"'action_mask' must be a list of {n_actions} 0/1, got {got}", 422)
    bad = next((i for i, x in enumerate(mask) if isinstance(x, bool) or x not in (0, 1)), None)
    if bad is not None:
        raise RequestError(f"'action_mask'[{bad}] = {mask[bad]!r}: expected 0 or 1", 422)
    if not any(mask):
        raise RequestError("'action_mask' has no legal action: the seat is not to move", 422)
    return np.asarray(obs, dtype=np.float32), np.asarray(mask, dtype=np.int8)


def create_service_app(spec: str, rules: str = "voleny") -> Starlette:
    kind = kind_of(rules)  # KeyError for an unknown game: checked by make_robot first
    robot = load_robot(spec, rules)
    licit = kind.name == "licitovany"
    if licit and robot.wants_view:
        raise ValueError(f"robot {spec!r} needs seat records, which are volený's "
                         f"({RECORD_FORMAT}): a licitovaný service answers observations only")
    labels = kind.labels
    accepts = (["observation"] if licit else ["record"] if robot.wants_view
               else ["record", "observation"])

    async def info(request: Request) -> JSONResponse:
        return JSONResponse({"robot": spec, "rules": kind.name, "obs_size": kind.obs_size,
                             "n_actions": kind.n_actions, "accepts": accepts,
                             "record_format": RECORD_FORMAT})

    def decide(obs: np.ndarray, mask: np.ndarray) -> int:
        # The robot's own state (a random robot's generator) is reset per request.
        robot.begin_deal(zlib.crc32(obs.tobytes()) ^ zlib.crc32(mask.tobytes()) << 32)
        return int(robot.act({"observation": obs, "action_mask": mask}))

    def decide_record(record: Any) -> tuple[int, np.ndarray]:
        """The robot's action on the seat's view rebuilt from ``record`` (and the mask)."""
        seed = zlib.crc32(json.dumps(record, sort_keys=True).encode())
        try:
            view = seat_view(record, rng=seed)
        except SeatRecordError as e:
            structural = e.field is None or "missing" in str(e) or "unknown field" in str(e)
            raise RequestError(f"record: {e}", 400 if structural else 422) from e
        robot.begin_deal(seed)
        return int(robot.act_view(view)), view.action_mask()

    async def act(request: Request) -> JSONResponse:
        try:
            try:
                data = json.loads(await request.body() or b"null")
            except (ValueError, UnicodeDecodeError) as e:
                raise RequestError(f"the body is not JSON ({e})") from e
            except RecursionError as e:
                raise RequestError("the body is not JSON (nested too deeply)") from e
            if isinstance(data, dict) and "record" in data and licit:
                raise RequestError(f"seat records ({RECORD_FORMAT}) are volený's: a "
                                   "licitovaný robot answers 'observation' and "
                                   "'action_mask'", 422)
            if isinstance(data, dict) and "record" in data:
                extra = sorted(set(data) - {"record"})
                if extra:
                    raise RequestError(f"unknown field {extra[0]!r} next to 'record': expected "
                                       "only 'record'")
                a, mask = decide_record(data["record"])
            else:
                obs, mask = parse_request(data, kind)
                if robot.wants_view:
                    raise RequestError(f"robot {spec!r} searches the hidden cards and needs the "
                                       "deal so far: send {'record': {...}} "
                                       f"({RECORD_FORMAT}), not an observation", 422)
                a = decide(obs, mask)
        except RequestError as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        if not mask[a]:  # a robot must answer a legal action; never pass an illegal one on
            return JSONResponse({"error": f"robot {spec!r} chose the illegal action "
                                 f"{labels[a]!r}"}, status_code=500)
        return JSONResponse({"action": a, "label": labels[a], "robot": spec})

    async def not_found(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": f"no such endpoint {request.url.path!r}: use POST /act "
                             "or GET /info"}, status_code=404)

    async def bad_method(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": f"method {request.method} is not allowed on "
                             f"{request.url.path}"}, status_code=405)

    return Starlette(routes=[Route("/info", info), Route("/act", act, methods=["POST"])],
                     exception_handlers={404: not_found, 405: bad_method})


def serve_robot(spec: str, host: str = "127.0.0.1", port: int = 8765,
                rules: str = "voleny") -> int:
    import uvicorn

    app = create_service_app(spec, rules)  # a bad spec fails here, before binding
    print(f"robot {spec} answers POST http://{host}:{port}/act (Ctrl+C to stop)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
