"""The browser table: a Starlette app serving one static page and a small JSON API over
one :class:`~mariash_env.play.session.PlaySession` (the game runs here, server-side).

=================  ==========================================================
``GET /``          the page (``static/index.html``, plain HTML/CSS/JS)
``GET /api/state`` the table as the human sees it (a reload resumes the game);
                   ``?client=ID`` names the tab asking
``POST /api/act``  ``{"session", "move", "action"}``: the human's action label
``POST /api/advance``  ``{"session", "move"}``: one robot move
``POST /api/next`` ``{"session", "move"}``: deal the next deal
``POST /api/undo`` ``{"session", "move"}``: take back the human's last action
``POST /api/new``  ``{"session", "move"[, "setup"]}``: a new partie, with the same
                   robots or those of ``setup`` (``{"rules", "robots", "seat",
                   "options"}``)
``POST /api/hint`` ``{"session", "move"}``: what a robot would do in your seat
``GET /api/compiling`` ``{"compiling": WHAT or null}``: what the server is compiling
                   now (a new partie's robots on an empty numba cache: minutes); it
                   answers while ``/api/new`` builds them, so the page says why it waits
``POST /api/leave`` ``{"client"}``: the tab is closing (it drives no more)
``GET /api/messages`` the page's words in Czech and English (:mod:`.i18n`)
``GET /api/setup`` what the page's new-partie form offers: games, robots, tariffs
``GET /api/stats`` statistics over the saved parties (:func:`.series.party_stats`)
``GET /cards/X.svg`` a card drawn by :mod:`.cards_svg` (``9h``, ``9h-en``, ``back``)
``GET /rules/GAME`` the rules page of a game (``voleny``, ``licitovany``, ``lizany``)
=================  ==========================================================

``move`` is the state version the request answers: a stale one gets 409, an illegal
action 422, a malformed body 400 (an object naming a key twice too:
:func:`mariash_env.jsonio.loads`), a body over :data:`MAX_BODY` bytes 413, an unknown
session 404 — each a JSON ``{"error": "...", "code": "..."}`` — and nothing changes.  A
path the table has not is a 404 of the same form, a route's path with a trailing slash
too (``/api/state/``: the error names the path; no redirect).

One tab drives (issue #29 item 5): every POST may carry ``"client"`` (the tab's id; a
request without one speaks for the anonymous client, a script, which drives only while
no tab does), and every answer holds ``"driver"``: whether the asking tab drives.  The
driver is the tab that made the last move (act, undo, next, new), else the first to ask
while none drives; only it may advance the robots (another tab's advance gets 409
``follower``).  A driver that has not been heard of for ``lease`` seconds, or that left,
hands over to the next tab that asks, so a reload of the only tab drives again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import jsonio
from ..compile import compiling_now
from ..extras import needs
from .cards_svg import svg_for
from .i18n import catalogue
from .series import party_stats
from .session import TABLE_GAMES, PlayError, PlaySession, check_id, shown

with needs("play", "the browser table", "starlette"):
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Match, Mount, Route
    from starlette.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"
MAX_BODY = 64 * 1024  # a request is a few ids and a label: refuse anything near this
ANONYMOUS = ""  # the client of requests that name none (scripts, older pages)


class TableJSON(JSONResponse):
    """Standard JSON in UTF-8 (a non-finite number as null: :mod:`mariash_env.jsonio`,
    where Starlette's rendering fails with a 500); a string the codec refuses (a lone
    surrogate from a request or a saved file) is escaped instead of failing the
    response."""

    def render(self, content: Any) -> bytes:
        try:
            return jsonio.dumps(content, ensure_ascii=False,
                                separators=(",", ":")).encode("utf-8")
        except UnicodeEncodeError:
            return jsonio.dumps(content, ensure_ascii=True,
                                separators=(",", ":")).encode("ascii")


# The code of an error raised without its own (a bad setup, a bad robot): the status's.
_STATUS_CODES = {400: "invalid", 404: "not_found", 409: "conflict", 413: "too_large",
                 422: "illegal"}


def _error(message: str, status: int, code: str | None = None) -> TableJSON:
    code = code or _STATUS_CODES.get(status, "error")
    return TableJSON({"error": message, "code": code}, status_code=status)


class Driver:
    """Which tab drives the table (module docstring); used under the app's lock.  The
    anonymous client (a script, a readiness probe) never takes the table from a tab: it
    drives only while no tab does."""

    def __init__(self, lease: float, clock: Callable[[], float]) -> None:
        self.lease, self.clock = lease, clock
        self.client: str | None = None
        self.seen = 0.0

    def _live(self) -> bool:
        return self.client is not None and self.clock() - self.seen <= self.lease

    def drives(self, client: str) -> bool:
        return client == self.client or client == ANONYMOUS and not self._live()

    def polled(self, client: str) -> bool:
        """A state request from ``client``: it drives if it did, or if nobody does."""
        if client != ANONYMOUS and (client == self.client or not self._live()):
            self.client, self.seen = client, self.clock()
        return self.drives(client)

    def may_advance(self, client: str) -> bool:
        return client == self.client or not self._live()

    def moved(self, client: str) -> None:
        """``client`` changed the table: it drives now."""
        if client != ANONYMOUS:
            self.client, self.seen = client, self.clock()

    def left(self, client: str) -> bool:
        if client != self.client:
            return False
        self.client = None
        return True


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request body, refused with 413 once it is over ``limit`` bytes: by its
    Content-Length before reading, else while it streams in (issue #29 item 6)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise PlayError(f"invalid Content-Length {shown(length)}: expected a byte count",
                            400, "invalid")
        if int(length) > limit:
            raise PlayError(f"the request body is {length} bytes: the table takes at most "
                            f"{limit}", 413, "too_large")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PlayError(f"the request body is over {limit} bytes: the table takes at "
                            f"most {limit}", 413, "too_large")
        chunks.append(chunk)
    return b"".join(chunks)


async def body(request: Request, fields: tuple[str, ...],
               optional: tuple[str, ...] = ("client",)) -> dict[str, Any]:
    """The JSON object of the request, with every field of ``fields`` and no field but
    those and ``optional``; PlayError (4xx) naming what is wrong."""
    want = ", ".join(fields)
    raw = await read_body(request)
    try:
        data = jsonio.loads(raw or b"null")  # a key given twice refused, not the last taken
    except jsonio.DuplicateKeyError as e:
        raise PlayError(f"the request body names the key {shown(e.key)} twice in one "
                        "object: expected each key once", 400, "invalid") from e
    except jsonio.NestingError:
        raise PlayError(f"the request body is nested too deeply: expected an object with "
                        f"{want}", 400, "invalid") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise PlayError(f"the request body is not JSON ({shown(str(e), 120)}): expected an "
                        f"object with {want}", 400, "invalid") from e
    if not isinstance(data, dict):
        raise PlayError(f"the request body must be a JSON object with {want}", 400, "invalid")
    missing = [f for f in fields if f not in data]
    if missing:
        raise PlayError(f"missing field {missing[0]!r}: expected {want}", 400, "invalid")
    extra = sorted(set(data) - set(fields) - set(optional))
    if extra:
        raise PlayError(f"unknown field {shown(extra[0])}: expected only {want} (and "
                        f"{', '.join(optional)})", 400, "invalid")
    return data


def _client(value: Any) -> str:
    return ANONYMOUS if value is None else check_id(value, "client id")


def create_app(new_session: Callable[..., PlaySession], *, lease: float = 10.0,
               clock: Callable[[], float] = time.monotonic) -> Starlette:
    """The app over the sessions ``new_session()`` makes (one at a time; a ``setup``
    chosen in the page is passed as ``new_session(setup)``); ``lease``: the seconds a
    silent driving tab keeps the table (module docstring)."""
    lock = threading.Lock()  # one request at a time changes or reads the game
    table = {"session": new_session()}
    driver = Driver(lease, clock)

    def locked(call: Callable[..., dict[str, Any]], client: str, **data: Any
               ) -> dict[str, Any]:
        with lock:
            out = call(table["session"], client, **data)
            return {**out, "driver": driver.drives(client)}

    def endpoint(fields: tuple[str, ...], call: Callable[..., dict[str, Any]],
                 optional: tuple[str, ...] = ("client",)):
        async def handle(request: Request) -> TableJSON:
            try:
                data = await body(request, fields, optional)
                client = _client(data.pop("client", None))
                # in a worker thread: a searching robot must not stall the server
                return TableJSON(await run_in_threadpool(locked, call, client, **data))
            except PlayError as e:
                return _error(str(e), e.status, e.code)
        return handle

    def human(change: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        """A change the human makes: the tab that made it drives from now on."""
        def call(s: PlaySession, client: str, **data: Any) -> dict[str, Any]:
            out = change(s, **data)
            driver.moved(client)
            return out
        return call

    def advance(s: PlaySession, client: str, session: Any, move: Any) -> dict[str, Any]:
        s._check(session, move)
        if not driver.may_advance(client):
            raise PlayError("this tab follows: another tab drives the robots (it made the "
                            "last move); a move here makes this tab drive", 409, "follower")
        out = s.advance(session, move)
        driver.moved(client)
        return out

    def read(client: str) -> dict[str, Any]:
        with lock:
            return {**table["session"].state(), "driver": driver.polled(client)}

    def leave(client: str) -> dict[str, Any]:
        with lock:
            return {"left": driver.left(client)}

    async def state(request: Request) -> TableJSON:
        try:
            extra = sorted(set(request.query_params) - {"client"})
            if extra:
                raise PlayError(f"unknown query parameter {shown(extra[0])}: expected only "
                                "client", 400, "invalid")
            client = _client(request.query_params.get("client"))
            return TableJSON(await run_in_threadpool(read, client))
        except PlayError as e:
            return _error(str(e), e.status, e.code)

    async def leave_handle(request: Request) -> TableJSON:
        try:
            data = await body(request, ("client",), ())
            return TableJSON(await run_in_threadpool(leave, _client(data["client"])))
        except PlayError as e:
            return _error(str(e), e.status, e.code)

    def new(s: PlaySession, session: str, move: Any, setup: Any = None) -> dict[str, Any]:
        s._check(session, move)  # a stale tab must not throw the partie away
        table["session"] = new_session() if setup is None else new_session(
            check_setup(setup))
        return table["session"].state()

    def hint(s: PlaySession, client: str, session: Any, move: Any) -> dict[str, Any]:
        return {"hint": s.hint(session, move), "move": s.move}

    async def messages(request: Request) -> TableJSON:
        return TableJSON(catalogue())

    async def compiling(request: Request) -> TableJSON:
        # not under the lock, which a new partie's robots hold while they compile
        return TableJSON({"compiling": compiling_now()})

    async def setup_choices(request: Request) -> TableJSON:
        return TableJSON(setup_options())

    figures: dict[str, Any] = {}  # the saved parties' stats, read again once changed
    figures_lock = threading.Lock()  # two tabs asking at once share the cache in turn

    def read_stats(save_dir: Path) -> dict[str, Any]:
        with figures_lock:
            return party_stats(save_dir, figures)

    async def stats(request: Request) -> TableJSON:
        save_dir = table["session"].save_dir
        return TableJSON(await run_in_threadpool(read_stats, save_dir))

    async def card(request: Request) -> Response:
        try:
            svg = svg_for(request.path_params["name"])
        except ValueError as e:
            return _error(str(e), 404, "not_found")
        return Response(svg, media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})

    async def rules_page(request: Request) -> Response:
        game = request.path_params["game"]
        path = STATIC / f"rules_{game}.html"
        if game not in TABLE_GAMES or not path.exists():
            return _error(f"no rules page {shown(game)}: expected one of {list(TABLE_GAMES)}", 404,
                          "not_found")
        return FileResponse(path)

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def not_found(request: Request, exc: Exception) -> TableJSON:
        path = request.url.path
        bare = path.rstrip("/")
        if bare != path and bare and any(  # a route's path with a trailing slash
                r.matches({**request.scope, "path": bare})[0] != Match.NONE
                for r in app.router.routes):
            return _error(f"no such page {shown(path)}: the path is {shown(bare)}, without "
                          "the trailing slash", 404, "not_found")
        return _error(f"no such page {shown(path)}: the API is under /api/", 404,
                      "not_found")

    async def bad_method(request: Request, exc: Exception) -> TableJSON:
        return _error(f"method {shown(request.method)} is not allowed on "
                      f"{shown(request.url.path)}", 405, "method")

    ids = ("session", "move")
    routes = [
        Route("/", index),
        Route("/api/state", state),
        Route("/api/act", endpoint(ids + ("action",), human(
            lambda s, session, move, action: s.act(session, move, action))), methods=["POST"]),
        Route("/api/advance", endpoint(ids, advance), methods=["POST"]),
        Route("/api/next", endpoint(ids, human(
            lambda s, session, move: s.next_deal(session, move))), methods=["POST"]),
        Route("/api/undo", endpoint(ids, human(
            lambda s, session, move: s.undo(session, move))), methods=["POST"]),
        Route("/api/new", endpoint(ids, human(new), ("client", "setup")), methods=["POST"]),
        Route("/api/hint", endpoint(ids, hint), methods=["POST"]),
        Route("/api/messages", messages),
        Route("/api/compiling", compiling),
        Route("/api/setup", setup_choices),
        Route("/api/stats", stats),
        Route("/cards/{name}.svg", card),
        Route("/rules/{game}", rules_page),
        Route("/api/leave", leave_handle, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: bad_method})
    # A trailing slash (/api/state/) is a 404 with the JSON error naming the path, not
    # Starlette's empty 307 to the bare path, as every other path the table has not.
    app.router.redirect_slashes = False
    return app


SETUP_KEYS = ("rules", "robots", "seat", "options")
TABLE_ROBOTS = ("random", "table", "net", "pimc", "strong")  # weakest first (net, pimc: level)
FORM_OPTIONS = ("tariff", "max_flek")  # the rule options the new-partie form offers


def setup_options() -> dict[str, Any]:
    """The choices of the page's new-partie form: the games the table plays, each with the
    robots (of :data:`TABLE_ROBOTS`, weakest first) that play it, its seats (and the seat
    counts it is played with: volený's four-player table), which of the form's rule
    options it takes (the registry's), and the tariffs."""
    from ..games.registry import game_kind
    from ..robots import robots_of
    from ..rules import TARIFFS

    kinds = {g: game_kind(g) for g in TABLE_GAMES}
    return {"games": list(TABLE_GAMES),
            "defaults": {g: {str(n): _form_defaults(g, n, k.players[0]) for n in k.players}
                         for g, k in kinds.items()},
            "robots": {g: [r for r in TABLE_ROBOTS if r in robots_of(g)] for g in TABLE_GAMES},
            "players": {g: k.players[0] for g, k in kinds.items()},
            "seat_counts": {g: list(k.players) for g, k in kinds.items()},
            "options": {g: [o for o in FORM_OPTIONS if o in k.options] for g, k in kinds.items()},
            "tariffs": list(TARIFFS)}


def _form_defaults(game: str, players: int, usual: int) -> dict[str, Any]:
    """The form's starting values for ``game`` at ``players`` seats: the game's own
    (deals, max_flek), so that a partie set up untouched is the game's default partie."""
    from ..rules import RulesError, make_rules

    try:
        r = make_rules(rules=game, **({} if players == usual else {"players": players}))
    except RulesError:  # a game with its own engine (lízaný): a partie of 12 deals
        return {"deals": 12}
    return {"deals": r.deals, "max_flek": r.max_flek}


def check_setup(setup: Any) -> dict[str, Any]:
    """A new partie's ``setup`` from the page: an object with some of :data:`SETUP_KEYS`;
    PlayError naming what is wrong (the session checks each value)."""
    if not isinstance(setup, dict):
        raise PlayError(f"invalid setup {shown(setup)}: expected an object with "
                        f"{', '.join(SETUP_KEYS)}", 400, "invalid")
    extra = sorted(set(setup) - set(SETUP_KEYS))
    if extra:
        raise PlayError(f"unknown setup field {shown(extra[0])}: expected only "
                        f"{', '.join(SETUP_KEYS)}", 400, "invalid")
    return setup


def serve(new_session: Callable[[], PlaySession], host: str = "127.0.0.1",
          port: int = 8000, open_browser: bool = True) -> None:
    """Run the table on ``host:port`` until interrupted (uvicorn); OSError naming the
    address when it cannot be bound, before anything is printed."""
    from . import listen

    app = create_app(new_session)
    sock = listen.listen(host, port)  # OSError naming the address: in use, unknown host
    url = listen.url(host, port)
    print(f"the table is at {url} (Ctrl+C to leave)")
    if open_browser:
        import webbrowser

        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    listen.run(app, sock)
