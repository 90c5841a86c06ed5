"""The listening socket of the table and the robot service: bound before the address is
announced, so a port in use or an unknown host is one clear error (an OSError naming the
address), not a printed URL followed by the web server's own log line."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from ..extras import needs


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``; OSError naming the address and the cause."""
    where = f"{host}:{port}"
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as e:
        raise OSError(f"cannot listen on {where}: unknown host ({e})") from None
    sock = socket.socket(family, kind, proto)
    try:
        # as uvicorn binds: a port left in TIME_WAIT is reusable, one in use is not
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
    except OSError as e:
        sock.close()
        raise OSError(f"cannot listen on {where}: {e.strerror or e}") from None
    sock.set_inheritable(True)
    return sock


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now (the system's choice; another process may take it
    before it is bound again): for tests and benchmarks that start a server."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def url(host: str, port: int, path: str = "/") -> str:
    """``http://host:port/path``, an IPv6 host in brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def run(app: Any, sock: socket.socket) -> None:
    """Serve ``app`` on the bound ``sock`` until interrupted (uvicorn)."""
    with needs("play", "serving the table or a robot", "uvicorn"):
        import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


def run_workers(factory: Callable[[], Any], sock: socket.socket, workers: int) -> None:
    """Serve the app that ``factory()`` builds in ``workers`` processes on the bound
    ``sock`` until interrupted: uvicorn's supervisor starts them (spawned, so each builds
    its own app and robot), shares the socket among them and replaces one that dies.
    ``factory`` is pickled into each process: a module-level function or a partial of
    one."""
    with needs("play", "serving a robot", "uvicorn"):
        import uvicorn
        from uvicorn.supervisors import Multiprocess

    config = uvicorn.Config(factory, factory=True, workers=workers, log_level="warning")
    try:
        Multiprocess(config, sockets=[sock]).run()
    finally:
        sock.close()
