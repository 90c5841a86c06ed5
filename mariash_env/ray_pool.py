"""Ray for every front end with ``--backend ray``: joining a cluster, and a pool of actors.

:func:`join` connects this process to a cluster (or starts a local one) and checks it
first, so that a bad cluster fails within seconds with one line naming the cause, before a
run directory is made: an address where nothing listens, a refused token (Ray 2.60's token
authentication), a node running other code (the package's source fingerprint differs).
It also sets the session's fault timeout (``--ray-timeout``).

:func:`ray_imap_unordered` is ``multiprocessing.Pool.imap_unordered`` on Ray: ``jobs``
actors each run ``init(*init_args)`` once, then ``fn(task)`` on chunks of tasks;
results come back as they finish.  An actor that dies (a lost node, a killed process)
is replaced and its chunk played again, so every task yields exactly one result; a
replacement that no node can host within the timeout is given up, and the pool goes on
with fewer actors.  An ``init`` that raises (a robot that cannot be built on a node) is no
lost actor: :class:`ActorInitError` names it, the node and its error, at once.  The
tasks must not depend on which actor runs them (the arena reseeds its robots per deal).
Ray is imported only here and only when used: ``pip install 'mariash[ray]'``
(in a checkout ``pip install -e '.[ray]'``).
"""

from __future__ import annotations

import hashlib
import importlib
import random
import socket
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from .extras import install_hint
from .pools import sigterm_interrupts

MAX_RESTARTS = 3  # per chunk: a chunk that kills every actor it meets is an error
DEFAULT_TIMEOUT_S = 60.0  # a replacement actor / the cluster check must start in this time
PROBE_S = 5.0  # at most this long to reach the address before ray.init tries for minutes

__all__ = ["ray_imap_unordered", "join", "timeout_s", "fingerprint", "RayClusterError",
           "ActorInitError", "MAX_RESTARTS", "DEFAULT_TIMEOUT_S"]

_SESSION: dict[str, float] = {"timeout": DEFAULT_TIMEOUT_S}


class RayClusterError(RuntimeError):
    """The Ray cluster failed the run (unreachable, refused, shrunk, other code): one line
    naming what was wrong and what to do."""


class ActorInitError(RuntimeError):
    """A pool actor's ``init`` raised (:func:`ray_imap_unordered`): the message names the
    init, the node and the error, which is the same on a replacement, so none is tried."""


def log(message: str) -> None:
    """Ray events (restarts and their causes) on stderr, one line each."""
    print(f"[ray] {message}", file=sys.stderr, flush=True)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise RuntimeError(f"the ray backend needs Ray: {install_hint('ray')}") from e
    return ray


def timeout_s() -> float:
    """The fault timeout of this process's Ray session (set by :func:`join`)."""
    return _SESSION["timeout"]


def fingerprint() -> str:
    """A hash of this package's and ``training``'s Python sources: equal on every node
    that runs the same code."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for pkg in ("mariash_env", "training"):
        for p in sorted((root / pkg).rglob("*.py")):
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def _node_info() -> tuple[str, str]:
    return socket.gethostname(), fingerprint()


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0]}" if text else type(e).__name__


def _is_auth(text: str) -> bool:
    t = text.lower()
    return any(k in t for k in ("authorization header", "invalidauthtoken", "auth token",
                                "authentication", "unauthenticated"))


def _auth_error(address: str | None, cause: str) -> RayClusterError:
    return RayClusterError(
        f"the Ray cluster at --address {address} refused this process's token ({cause}): "
        "put the cluster's token in RAY_AUTH_TOKEN or ~/.ray/auth_token on every node "
        "and on this one (docs/ray.md)")


def _probe(address: str, timeout: float) -> None:
    """A TCP connection to ``host:port`` (a ``ray://`` or ``auto`` address is Ray's to
    resolve), so that a wrong address fails now instead of after minutes of retries."""
    if address == "auto":
        from ray._private.services import canonicalize_bootstrap_address_or_die

        try:  # the address `ray start` left here; a missing one Ray reports at once
            address = canonicalize_bootstrap_address_or_die("auto")
        except Exception as e:
            raise RayClusterError(f"no Ray cluster to join with --address auto: "
                                  f"{_first_line(e)} (start one with `ray start --head`, "
                                  "or give its host:port)") from None
    if address.startswith("ray://"):
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise RayClusterError(f"invalid --address {address!r}: expected HOST:PORT (the "
                              "head's GCS port, 6379 by default), auto, or ray://HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=min(timeout, PROBE_S)).close()
    except OSError as e:
        why = ("unknown host" if isinstance(e, socket.gaierror)
               else "timed out" if isinstance(e, TimeoutError) else e.strerror or str(e))
        raise RayClusterError(f"cannot reach the Ray cluster at --address {address}: {why} "
                              "(is the head running? `ray status` there shows its "
                              "address)") from None


def join(address: str | None = None, timeout: float = DEFAULT_TIMEOUT_S,
         **init_kw: Any) -> bool:
    """Connect to the cluster at ``address`` (None: start a local one) unless connected;
    returns whether this call connected (the caller then shuts it down).  Checked within
    about ``timeout`` seconds: RayClusterError naming an unreachable address, a refused
    token, or a node whose sources differ from this one's.  Already connected, it goes on
    with that cluster when ``address`` is None or names it, and raises RayClusterError
    naming both addresses when ``address`` names another.  Python's ``random`` is left
    as it was (``ray.init`` draws from it; a learner's run must not depend on that)."""
    if not timeout > 0:
        raise ValueError(f"invalid timeout={timeout!r}: expected seconds > 0")
    ray = _import_ray()
    _SESSION["timeout"] = float(timeout)
    if ray.is_initialized():
        if address is not None:
            _check_connected_to(ray, address)
        return False
    if address is not None:
        _probe(address, timeout)
    state = random.getstate()
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, **init_kw)
    except Exception as e:
        if _is_auth(f"{type(e).__name__} {e}"):
            raise _auth_error(address, _first_line(e)) from None
        raise RayClusterError(f"cannot join the Ray cluster at --address {address}: "
                              f"{_first_line(e)}") from None
    finally:
        random.setstate(state)
    try:
        _check_nodes(ray, address, timeout)
    except BaseException:
        ray.shutdown()
        raise
    return True


def _canonical(address: str) -> str:
    """``address`` as ``IP:PORT`` (``ray://IP:PORT`` for the Ray client; ``auto`` the
    cluster it finds), a local name as the node's IP, as Ray reports a connected cluster's
    address; the address itself where it cannot be resolved."""
    from ray._private.services import canonicalize_bootstrap_address, get_node_ip_address

    scheme = "ray://" if address.startswith("ray://") else ""
    if address == "auto":
        try:
            address = canonicalize_bootstrap_address("auto") or address
        except Exception:
            return address
    host, sep, port = address[len(scheme):].rpartition(":")
    if not sep or not port.isdigit():
        return address
    try:
        ip = socket.gethostbyname(host.strip("[]"))
    except OSError:
        return address
    if ip.startswith("127.") or ip == "::1":  # Ray reports the node's IP, not loopback
        ip = get_node_ip_address()
    return f"{scheme}{ip}:{int(port)}"


def _connected_address(ray: Any) -> str | None:
    """The address of the cluster this process is connected to, as :func:`_canonical`
    writes it; None where Ray does not say."""
    try:
        from ray.util.client import ray as client

        if client.is_connected():  # the Ray client: the server it connected to
            return _canonical("ray://" + client.client_worker._conn_str)
        return _canonical(ray.get_runtime_context().gcs_address)
    except Exception:
        return None


def _check_connected_to(ray: Any, address: str) -> None:
    """Raise RayClusterError, naming both addresses, unless the cluster this process is
    connected to is the one at ``address``."""
    asked, connected = _canonical(address), _connected_address(ray)
    if connected is not None and asked == connected:
        return
    resolved = f" ({asked})" if asked != address else ""
    raise RayClusterError(
        f"this process is already connected to the Ray cluster at "
        f"{connected or 'an address Ray does not report'}, not to the one at --address "
        f"{address}{resolved}: one process joins one cluster (leave --address out, give "
        "the connected cluster's address, or call ray.shutdown() first)")


def _check_nodes(ray: Any, address: str | None, timeout: float) -> None:
    """One task on every node with CPUs: it starts (a refused token kills it) and runs this
    process's code (the same source fingerprint)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [n for n in ray.nodes() if n.get("Alive") and n["Resources"].get("CPU", 0) > 0]
    info = ray.remote(num_cpus=0, max_retries=0)(_node_info)
    refs = {info.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
        n["NodeID"], soft=False)).remote(): n["NodeManagerAddress"] for n in nodes}
    mine = fingerprint()
    try:
        ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=timeout)
    except Exception as e:  # pragma: no cover - ray.wait itself failing
        raise RayClusterError(f"the Ray cluster at --address {address} failed a check: "
                              f"{_first_line(e)}") from None
    for ref, ip in refs.items():
        if ref not in ready:
            raise RayClusterError(f"no Ray worker started on node {ip} within {timeout:g} s "
                                  f"(--ray-timeout): check `ray status` and that node's "
                                  "logs (/tmp/ray/session_latest/logs)")
        try:
            host, theirs = ray.get(ref)
        except Exception as e:
            if _is_auth(str(e)):
                raise _auth_error(address, f"a worker on node {ip} failed: missing or "
                                  "invalid authorization") from None
            raise RayClusterError(f"a Ray worker on node {ip} failed at the start: "
                                  f"{_first_line(e)}") from None
        if theirs != mine:
            raise RayClusterError(
                f"node {ip} ({host}) runs other mariash code than this process (source "
                f"fingerprint {theirs}, here {mine}): install the same checkout on every "
                "node (docs/ray.md)")


def _importable(fn: Any) -> Any:
    """``fn`` by its module's real name when it was defined in ``__main__`` of
    ``python -m pkg.mod``: Ray ships ``__main__`` functions by value, each with its own
    copy of the module globals they use, so an ``init`` and a task function would not
    share their state; by reference, workers import the module and both see one."""
    if getattr(fn, "__module__", None) != "__main__":
        return fn
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    name = getattr(fn, "__qualname__", "")
    if spec is None or not spec.name or "." in name:
        return fn  # a script or a local function: by value is all there is
    return getattr(importlib.import_module(spec.name), name, fn)


class _Runner:
    def __init__(self, init: bytes) -> None:
        # ``init`` runs with the first chunk, not here: an init that raised in the
        # constructor killed the actor, which looked like a lost node (replaced, then
        # ActorDiedError's traceback); and ``ready`` answers once the actor has its process.
        # It comes pickled with its arguments (:func:`_pickled_init`).
        self._init: bytes | None = init

    def ready(self) -> bool:
        return True

    def run(self, fn: Callable[[Any], Any], chunk: list[Any]) -> list[Any]:
        if self._init is not None:
            from ray import cloudpickle

            init: Any = "(its pickle)"
            try:
                init, args = cloudpickle.loads(self._init)
                init(*args)
            except Exception as e:
                name = getattr(init, "__qualname__", repr(init))
                raise ActorInitError(f"the Ray actors' init {name} failed on node "
                                     f"{socket.gethostname()}: {type(e).__name__}: {e}") from e
            self._init = None
        return [fn(t) for t in chunk]


def _pickled_init(init: Callable[..., None], init_args: tuple) -> bytes:
    """An actor's ``init`` and its arguments as one pickle, unpickled in the actor as a
    worker process would have them: sent as Ray objects, their numpy arrays arrived as
    read-only views of the object store, and a robot object that writes into a buffer of
    its own (the table robot's view array, a factory ``lambda: robot``) failed there."""
    from ray import cloudpickle

    return cloudpickle.dumps((init, init_args))


def ray_imap_unordered(
    fn: Callable[[Any], Any], tasks: Iterable[Any], jobs: int,
    init: Callable[..., None], init_args: tuple = (),
    chunksize: int | Callable[[int], int] = 1, address: str | None = None,
) -> Iterator[Any]:
    """``fn(task)`` for every task on ``jobs`` Ray actors (at most one per CPU of the
    cluster; module documentation); joins the cluster at ``address`` or starts a local
    one (shut down at the end).  ``chunksize``: tasks an actor is handed at a time, or a
    function of the number of actors the pool runs (``jobs`` capped at the cluster's
    CPUs), so that a caller sizes its chunks for the actors there are."""
    ray = _import_ray()
    owns = join(address, timeout_s())
    try:
        # An actor holds its CPU until the end: more actors than CPUs would never run.
        jobs = max(1, min(jobs, int(ray.cluster_resources().get("CPU", 1))))
        chunk = chunksize(jobs) if callable(chunksize) else chunksize
    except BaseException:
        if owns and ray.is_initialized():
            ray.shutdown()
        raise
    # SIGTERM as with worker processes (mariash_env.pools): KeyboardInterrupt, so that the
    # caller says what was kept; set after join, whose ray.init sets a handler that exits
    # at once (status 1, no word)
    with sigterm_interrupts():
        yield from _imap(ray, owns, fn, tasks, jobs, init, init_args, max(1, int(chunk)))


def _imap(ray: Any, owns: bool, fn: Callable[[Any], Any], tasks: Iterable[Any], jobs: int,
          init: Callable[..., None], init_args: tuple, chunksize: int) -> Iterator[Any]:
    """:func:`ray_imap_unordered` on ``jobs`` actors (already capped at the cluster's
    CPUs), each handed ``chunksize`` tasks at a time."""
    timeout = timeout_s()
    fn, init = _importable(fn), _importable(init)
    remote = ray.remote(num_cpus=1, max_restarts=0)(_Runner)
    init_ref = ray.put(_pickled_init(init, init_args))  # once for every actor
    actors: list[Any] = [remote.remote(init_ref) for _ in range(jobs)]
    it = iter(tasks)
    fn_ref = ray.put(fn)
    again: list[tuple[list[Any], int]] = []  # chunks of given-up actors: (chunk, tries)

    def next_chunk() -> tuple[list[Any], int]:
        if again:
            return again.pop()
        chunk = []
        for t in it:
            chunk.append(t)
            if len(chunk) >= chunksize:
                break
        return chunk, 0

    pending: dict[Any, tuple[int, list[Any], int]] = {}  # ref -> (actor, chunk, tries)

    def submit(a: int, chunk: list[Any], tries: int = 0) -> None:
        if chunk:
            pending[actors[a].run.remote(fn_ref, chunk)] = (a, chunk, tries)

    def replace(a: int, cause: str) -> bool:
        """A new actor ``a``, or None there when no node can host one in time."""
        ray.kill(actors[a], no_restart=True)
        actors[a] = remote.remote(init_ref)
        try:
            ray.get(actors[a].ready.remote(), timeout=timeout)
        except (ray.exceptions.GetTimeoutError, ray.exceptions.RayActorError) as e:
            ray.kill(actors[a], no_restart=True)
            actors[a] = None
            live = sum(x is not None for x in actors)
            why = (f"no node could host a replacement within {timeout:g} s (--ray-timeout)"
                   if isinstance(e, ray.exceptions.GetTimeoutError)
                   else f"its replacement died at the start ({_first_line(e)})")
            log(f"actor {a} lost ({cause}); {why}: going on with {live} actors")
            return False
        log(f"actor {a} lost ({cause}); replaced")
        return True

    try:
        # Each must be placed within the timeout, as a replacement: a cluster whose CPUs are
        # all held (another job's actors) left the pool waiting forever without a word.
        ready_refs = {actors[a].ready.remote(): a for a in range(jobs)}
        up, _ = ray.wait(list(ready_refs), num_returns=jobs, timeout=timeout)
        started = sorted(ready_refs[r] for r in up)
        for a in range(jobs):
            if a not in started:
                ray.kill(actors[a], no_restart=True)
                actors[a] = None
        if not started:
            raise RayClusterError(
                f"none of the {jobs} Ray actors started within {timeout:g} s "
                "(--ray-timeout): the cluster's CPUs are held by other work (`ray status`)")
        if len(started) < jobs:
            log(f"{jobs - len(started)} of {jobs} actors did not start within {timeout:g} s "
                f"(--ray-timeout): going on with {len(started)}")
        for a in started:
            submit(a, *next_chunk())
        while pending:
            [ref], _ = ray.wait(list(pending), num_returns=1)
            a, chunk, tries = pending.pop(ref)
            try:
                results = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                # fn itself raised: the caller's error (not a lost actor), as it was raised
                cause = getattr(e, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise RuntimeError(str(e).splitlines()[0]) from None
            except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as e:
                if tries >= MAX_RESTARTS:
                    raise RayClusterError(f"a Ray actor died {tries + 1} times on the same "
                                          f"tasks; the last time: {_first_line(e)}") from None
                if replace(a, _first_line(e)):
                    submit(a, chunk, tries + 1)
                    continue
                live = [b for b, x in enumerate(actors) if x is not None]
                if not live:
                    raise RayClusterError(
                        f"every Ray actor was lost and no node could host a new one within "
                        f"{timeout:g} s (--ray-timeout); the last cause: {_first_line(e)}"
                    ) from None
                busy = {b for b, _, _ in pending.values()}
                idle = [b for b in live if b not in busy]
                if idle:
                    submit(idle[0], chunk, tries + 1)
                else:
                    again.append((chunk, tries + 1))
                continue
            yield from results
            submit(a, *next_chunk())
    finally:
        for actor in actors:
            if actor is not None:
                ray.kill(actor, no_restart=True)
        if owns and ray.is_initialized():
            ray.shutdown()
