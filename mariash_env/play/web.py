"""The browser table: a Starlette app serving one static page and a small JSON API over
one :class:`~mariash_env.play.session.PlaySession` (the game runs here, server-side).

=================  ==========================================================
``GET /``          the page (``static/index.html``, plain HTML/CSS/JS)
``GET /api/state`` the table as the human sees it (a reload resumes the game)
``POST /api/act``  ``{"session", "move", "action"}``: the human's action label
``POST /api/advance``  ``{"session", "move"}``: one robot move
``POST /api/next`` ``{"session", "move"}``: deal the next deal
``POST /api/undo`` ``{"session", "move"}``: take back the human's last action
``POST /api/new``  ``{"session", "move"}``: a new partie with the same robots
=================  ==========================================================

``move`` is the state version the request answers: a stale one gets 409, an illegal
action 422, a malformed body 400, an unknown session 404 — each a JSON
``{"error": "..."}`` — and nothing changes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .session import PlayError, PlaySession

STATIC = Path(__file__).parent / "static"


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(new_session: Callable[[], PlaySession]) -> Starlette:
    """The app over the sessions ``new_session()`` makes (one at a time)."""
    lock = threading.Lock()  # one request at a time changes or reads the game
    table = {"session": new_session()}

    async def body(request: Request, fields: tuple[str, ...]) -> dict[str, Any]:
        try:
            data = json.loads(await request.body() or b"null")
        except (ValueError, UnicodeDecodeError) as e:
            raise PlayError(f"the request body is not JSON ({e}): expected an object "
                            f"with {', '.join(fields)}") from e
        if not isinstance(data, dict):
            raise PlayError(f"the request body must be a JSON object with {', '.join(fields)}")
        missing = [f for f in fields if f not in data]
        if missing:
            raise PlayError(f"missing field {missing[0]!r}: expected {', '.join(fields)}")
        extra = sorted(set(data) - set(fields))
        if extra:
            raise PlayError(f"unknown field {extra[0]!r}: expected only {', '.join(fields)}")
        return data

    def locked(call: Callable[..., dict[str, Any]], **data: Any) -> dict[str, Any]:
        with lock:
            return call(table["session"], **data)

    def endpoint(fields: tuple[str, ...], call: Callable[..., dict[str, Any]]):
        async def handle(request: Request) -> JSONResponse:
            try:
                data = await body(request, fields)
                # in a worker thread: a searching robot must not stall the server
                return JSONResponse(await run_in_threadpool(locked, call, **data))
            except PlayError as e:
                return _error(str(e), e.status)
        return handle

    async def state(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(locked, lambda s: s.state()))

    def new(s: PlaySession, session: str, move: Any) -> dict[str, Any]:
        s._check(session, move)  # a stale tab must not throw the partie away
        table["session"] = new_session()
        return table["session"].state()

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def not_found(request: Request, exc: Exception) -> JSONResponse:
        return _error(f"no such page {request.url.path!r}: the API is under /api/", 404)

    async def bad_method(request: Request, exc: Exception) -> JSONResponse:
        return _error(f"method {request.method} is not allowed on {request.url.path}", 405)

    ids = ("session", "move")
    routes = [
        Route("/", index),
        Route("/api/state", state),
        Route("/api/act", endpoint(ids + ("action",), lambda s, session, move, action:
                                   s.act(session, move, action)), methods=["POST"]),
        Route("/api/advance", endpoint(ids, lambda s, session, move: s.advance(session, move)),
              methods=["POST"]),
        Route("/api/next", endpoint(ids, lambda s, session, move: s.next_deal(session, move)),
              methods=["POST"]),
        Route("/api/undo", endpoint(ids, lambda s, session, move: s.undo(session, move)),
              methods=["POST"]),
        Route("/api/new", endpoint(ids, new), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={404: not_found, 405: bad_method})


def serve(new_session: Callable[[], PlaySession], host: str = "127.0.0.1",
          port: int = 8000, open_browser: bool = True) -> None:
    """Run the table on ``host:port`` until interrupted (uvicorn)."""
    import uvicorn

    app = create_app(new_session)
    url = f"http://{host}:{port}/"
    print(f"the table is at {url} (Ctrl+C to leave)")
    if open_browser:
        import webbrowser

        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning")
