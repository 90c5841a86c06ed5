"""Compile the search kernels ahead of the first decision (issue #35).

Numba compiles a kernel on its first call and caches it on disk (``__pycache__`` next to
the module, or ``NUMBA_CACHE_DIR``).  On an empty cache -- a fresh clone, a pip install, a
new machine, a cache dropped after a source change (:mod:`mariash_env.core.jit`) -- the
first searched decision of ``pimc``, ``nnpimc`` or ``strong`` would compile the world
samplers and the double-dummy solver inside ``act``: tens of seconds in one decision.

:func:`warmup` runs every kernel a searching robot calls once, on small positions of each
game, so that the compiling happens here instead: the searching robots call it when they
are constructed (the arena's workers, the play table and the robot service build their
robots at start), ``make venv`` runs ``python -m mariash_env.compile`` after installing,
and anyone can call ``mariash_env.warmup()``.  Once per process and game; with the disk
cache warm it only loads the cached code (about a second).

``python -m mariash_env.compile`` also compiles the engine's kernels that every front end
calls (:func:`warm_engine`: the AEC env's and ``VectorEnv``'s of every game), in a second
process beside the search's, so that an install on two cores spends the time of the
longer of the two instead of their sum, and a fresh checkout's first env or batched
engine does not compile either.  When it compiles and takes
longer than a second it says so on stderr (a terminal), so that a long first start is not
mistaken for a hang.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from .cli import ArgumentParser, quiet_on_closed_pipe  # one error: line, exit 2
from .games.registry import game_kind, games
from .playout import decision_positions

__all__ = ["warmup", "warm_engine", "main", "GAMES", "OWN_SEARCH", "decision_positions",
           "compiled_signatures", "announce_anywhere", "compiling_now"]

GAMES = tuple(k.name for k in games() if k.game is not None)
"""The games with searching robots: those on the shared compiled core (a rules vector),
whose world samplers and solver these kernels are; read from the registry."""

OWN_SEARCH = tuple(k.name for k in games() if k.warm_search)
"""The games whose own searching robots have kernels of their own (``GameKind.warm_search``:
lízaný's solver); ``python -m mariash_env.compile`` compiles them too."""

_DONE: set[tuple[str, bool]] = set()
_LOCK = threading.Lock()
_LOCK_NOW = threading.Lock()
_NOTICE_AFTER = 1.0  # seconds of warm-up before it is announced
_ANYWHERE: list[bool] = [False]  # announce_anywhere(): on stderr that is not a terminal too
_NOW: list[str] = []  # the warm-ups compiling now (compiling_now), outermost first


def _warm_game(game: str, network: bool) -> None:
    """Every kernel a searching robot's decisions call, on the types they call it with:
    worlds of a bidding and a card-play decision, the solver on them (PIMC's card play,
    and the solved endgames of its simulations), the simulations' engine calls (the deal
    played by :func:`decision_positions`), the simulations' compiled playouts and the
    table robot's card play (:func:`~mariash_env.robots.playouts.warm_playouts`) and, with
    ``network``, nnpimc's replay of the other seats' decisions."""
    from .core import state as S
    from .robots.playouts import warm_playouts
    from .robots.view import SeatView
    from .search import solve

    bid, play, rules = decision_positions(game)
    rng = np.random.default_rng(0)
    for st in (bid, play):
        worlds = SeatView(st, int(st[S.TO_MOVE]), rules).sample_worlds(2, rng)
    for w in worlds:  # as the searches call it: on worlds the engine made, unchecked
        solve(w, rules, pv=False, all_moves=True, check=False)
        solve(w, rules, check=False)
    S.get64(play, S.PAY)  # a simulation's payment, read from Python
    # here, not only in PIMC's constructor: `python -m mariash_env.compile` then caches
    # them too, and a new process's first pimc robot does not compile them (~10 s)
    warm_playouts((game,))
    if _network(game, network):
        from .search.inference import other_decisions

        other_decisions(worlds, int(play[S.TO_MOVE]), rules)


def _network(game: str, network: bool) -> bool:
    """Whether ``game``'s warm-up asked for ``network`` includes nnpimc's inference over
    worlds: the games whose kind says the network replays decisions there."""
    return network and game_kind(game).world_inference


def _isatty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def announce_anywhere(on: bool = True) -> None:
    """Announce a compiling warm-up on stderr even when it is not a terminal: the commands
    that serve (``mariash serve-robot``, ``mariash play``) and the arena's, whose output
    goes to a log or a service manager, where minutes of silence before their first line
    (a robot built on an empty numba cache) look like a hang."""
    _ANYWHERE[0] = bool(on)


def _announced() -> bool:
    """Whether a compiling warm-up is announced: stderr is a terminal, or the command
    asked for it (:func:`announce_anywhere`)."""
    return _ANYWHERE[0] or _isatty()


def kernel_cached(kernel: object) -> bool:
    """Whether numba's disk cache holds the compiled ``kernel`` (its index file exists).
    True when that cannot be told."""
    try:
        return Path(kernel._cache._cache_file._index_path).exists()  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # another numba's internals
        return True


@contextlib.contextmanager
def compiling_notice(names: str, quiet: bool = False, about: str = "about a minute",
                     what: str = "search kernels",
                     kernels: Iterable[object] | None = None) -> Iterator[None]:
    """Around a warm-up that compiles ``names``' kernels (``what``: the search's, a
    robot's): unless ``quiet`` (the disk cache holds them: loading them is not announced),
    when it lasts more than a second a line on stderr says so, and another when it is done
    -- where a person reads it (a terminal, or a command's log: :func:`announce_anywhere`);
    a pipe (a test, a log parser) gets no extra line.  Unless ``quiet``,
    :func:`compiling_now` names it meanwhile, wherever stderr goes.  ``kernels``: the
    numba kernels the warm-up compiles, quiet too when the disk cache holds every one
    (:func:`kernel_cached`; None: ``quiet`` alone says)."""
    if kernels is not None and not quiet:
        quiet = all(kernel_cached(k) for k in kernels)
    now = f"{what} ({names})"
    cached, quiet = quiet, quiet or not _announced()
    notice = None
    if not cached:  # not in the disk cache: compiling, whoever reads stderr
        with _LOCK_NOW:
            _NOW.append(now)
    t0 = time.perf_counter()
    try:
        if not quiet:
            timer = threading.Timer(_NOTICE_AFTER, lambda: print(
                f"mariash: compiling the {what} ({names}; first use with this "
                f"numba cache, kept on disk afterwards, {about}) ...", file=sys.stderr,
                flush=True))
            timer.daemon = True
            timer.start()
            notice = timer
        yield
    finally:
        if notice is not None:
            notice.cancel()
            # ended, not only told to: the arena forks its workers right after its
            # warm-up, and a fork copies no thread but any lock one holds
            notice.join()
        if not cached:
            with _LOCK_NOW:
                _NOW.remove(now)
    dt = time.perf_counter() - t0
    if not quiet and dt > _NOTICE_AFTER:
        print(f"mariash: {what} ready ({dt:.0f} s)", file=sys.stderr, flush=True)


def compiling_now() -> str | None:
    """What a warm-up of this process is compiling now (``"table robot's kernels
    (licitovany)"``; the first of those under way), or None: a server answers it while a
    request builds robots (the play table's new partie), so that the page says why it
    waits.  Loading from numba's disk cache is not compiling."""
    with _LOCK_NOW:
        return _NOW[0] if _NOW else None


def warmup(games: Iterable[str] = GAMES, network: bool = False,
           quiet: bool = False) -> float:
    """Compile (or load from numba's disk cache) every kernel the searching robots of
    ``games`` call; with ``network`` also nnpimc's inference over worlds (the games whose
    kind has ``world_inference``: volený).  Once
    per process and game; returns the seconds it took.  Unless ``quiet``, a warm-up that
    compiles (numba's disk cache does not hold the solver) and lasts more than a second is
    announced on stderr (:func:`compiling_notice`)."""
    games = tuple(games)
    for g in games:
        if g not in GAMES:
            raise ValueError(f"warmup: unknown game {g!r}; searching robots play "
                             f"{', '.join(GAMES)}")
    t0 = time.perf_counter()
    with _LOCK:
        todo = [(g, _network(g, network)) for g in games
                if (g, _network(g, network)) not in _DONE]
        if not todo:
            return 0.0
        from .search import solver

        names = ", ".join(g for g, _ in todo)
        with compiling_notice(names, quiet, kernels=(solver._solve_root,)):
            for g, net in todo:
                _warm_game(g, net)
                _DONE.add((g, net))
                if net:  # the search without the network is warm too
                    _DONE.add((g, False))
        return time.perf_counter() - t0


def compiled_signatures() -> dict[str, int]:
    """How many compiled signatures each loaded numba kernel of the package holds now
    (``"module.name"`` -> count): taken before and after some work, it shows what that
    work compiled (or loaded from the disk cache)."""
    import numba

    out = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("mariash_env"):
            for k, f in list(vars(mod).items()):
                if isinstance(f, numba.core.dispatcher.Dispatcher):
                    out[f"{name}.{k}"] = len(f.overloads)
    return out


def _warm_own_table_robot(game: str) -> None:
    """The kernels of the table robot of a game with its own engine (lízaný's rule robot):
    the shared games' are in their search's warm-up (their playouts), this one's were
    compiled in its first ``make_robot("table")``."""
    from .robots.playouts import warm_table_robot

    warm_table_robot(game_kind(game).load("table_robot"))


def warm_engine() -> float:
    """Compile (or load) the kernels of the AEC env and of ``VectorEnv`` of every registered
    game at every seat count: a few random decisions of each.  Returns the seconds."""
    from .env import env as make_env
    from .vector import VectorEnv, random_legal_actions

    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    for kind in games():
        for players in kind.players:
            opts: dict = {"rules": kind.name}
            if len(kind.players) > 1:
                opts["players"] = players
            if "aec" in kind.front_ends:
                e = make_env(**opts)
                e.reset(seed=0)
                for _ in range(40):
                    if not e.agents:
                        break
                    obs, _, term, trunc, _ = e.last()
                    a = None if term or trunc else int(rng.choice(np.flatnonzero(
                        obs["action_mask"])))
                    e.step(a)
            if "vector" in kind.front_ends:
                v = VectorEnv(4, seed=0, **opts)
                step = v.reset(seed=0)
                v.restore_states(v.copy_states())  # its check and refresh: the arena's playouts
                for _ in range(20):
                    step = v.step(random_legal_actions(step.mask, rng))
    return time.perf_counter() - t0


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(
        prog="python -m mariash_env.compile",
        description="Compile the search kernels of the searching robots (pimc, nnpimc, "
                    "strong) into numba's disk cache, so that no robot's first decision "
                    "compiles them.")
    every = GAMES + OWN_SEARCH
    p.add_argument("--games", default=",".join(every),
                   help=f"comma-separated games (default {','.join(every)})")
    p.add_argument("--part", choices=("all", "search", "engine"), default="all",
                   help="the search kernels, the engine's (envs, VectorEnv) or both, "
                        "the engine's in a second process (default all)")
    a = p.parse_args(argv)
    games = [g for g in a.games.split(",") if g]
    for g in games:
        if g not in every:
            p.error(f"unknown game {g!r}; searching robots play {', '.join(every)}")
    other = None
    if a.part == "all":  # this process has dropped a stale cache (core.jit) before it starts
        other = subprocess.Popen([sys.executable, "-m", "mariash_env.compile", "--part",
                                  "engine"])
    if a.part in ("all", "search"):
        shared = [g for g in games if g in GAMES]
        if shared:
            dt = warmup(shared, network=True, quiet=True)
            print(f"search kernels of {', '.join(shared)} compiled or loaded in {dt:.1f} s")
        for g in games:
            if g in OWN_SEARCH:
                print(f"search kernels of {g} compiled or loaded in "
                      f"{game_kind(g).load('warm_search')():.1f} s")
                _warm_own_table_robot(g)
    if a.part == "engine":
        print(f"engine kernels of every game compiled or loaded in {warm_engine():.1f} s")
    if other is not None and other.wait() != 0:
        print(f"python -m mariash_env.compile --part engine failed ({other.returncode})",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
