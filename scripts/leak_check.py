"""Leak check: memory held after many episodes, requests and refused inputs, per front end.

Each case runs a unit of work (one deal through the AEC env, one batched step, one robot
deal, one robot-service request, one partie at the play table, one OpenSpiel deal, a
round of refused inputs) ``--warm`` times, then ``--count`` times more in each of
``--windows`` windows, and reports per window what stayed allocated: Python's own
allocations (``tracemalloc``, bytes a unit, exact) and the process's resident memory
(``/proc/self/statm``, which also sees numpy buffers and compiled code but moves in pages
and with the allocator's caches). A unit that keeps something (a record per deal, a frame
per exception, a cache without a bound) grows in every window; a bounded cache
(``lru_cache`` with a ``maxsize``) is emptied at each window's edges, so what it holds
does not count, and so are CPython's type attribute cache and free lists
(:func:`measure`). Each unit ends in the same state, so that the edges do not count how
one differs from the next: a unit that plays a deal deals one fixed seed at its end
(``REST``), one that sends requests waits for the threads they started to end. A clean
unit then keeps a few bytes either way in the windows after the first (a table partie
some hundred), and small windows tell.

    python scripts/leak_check.py [--count 400] [--windows 3] [--warm 50] [--cases aec,...]

Cases: ``aec``, ``single_agent``, ``vector``, ``refused``, ``openspiel``, ``service``
(observations and seat records), ``table`` (a partie of one deal through the play table's
JSON API, then the next), ``robots`` (every game each, the robots ``table`` and ``net``),
``search`` (``strong`` and PIMC; slow: ``--count 100``); every game, volený at four
players included. Prints one line a case; exit status 1 when a case keeps more than
``--limit`` bytes a unit (default 256) of Python allocations in each window after the
first (a one-off allocation spread over a window can pass one, a leak passes none).
``tests/test_no_leaks.py`` runs it small.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import tracemalloc
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GAMES = ({}, {"rules": "licitovany"}, {"rules": "lizany"}, {"players": 4})
# A unit that plays a deal ends by dealing this seed (and seating its robot for it): what
# a finished deal leaves held until the next reset (its record, its history, a robot's
# memory of it) differs from deal to deal by a few kB, which a window's edge would count;
# a deal dealt from one seed is the same each time.
REST = 12345
CASES = ("aec", "single_agent", "vector", "refused", "openspiel", "service", "table",
         "robots", "search")


def rss_mb() -> float:
    """Resident memory of this process in MiB (Linux; 0.0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


@dataclass
class Growth:
    """What a case kept: per window, Python bytes a unit and resident MiB in all."""

    name: str
    traced: list[float] = field(default_factory=list)  # bytes a unit, per window
    rss: list[float] = field(default_factory=list)  # MiB gained, per window

    def kept(self) -> float:
        """Bytes a unit kept in every window after the first (their least): a leak's
        size; the first window may still fill what the warm-up did not reach."""
        return min(self.traced[1:] or self.traced)

    def line(self) -> str:
        win = ", ".join(f"{t:+.1f} B ({r:+.2f} MiB)" for t, r in zip(self.traced, self.rss))
        return f"{self.name:38s} {win}"


def bounded_caches() -> list[Any]:
    """Every ``lru_cache`` with a ``maxsize`` in the loaded ``mariash_env`` modules and
    their classes (the table robot's hand caches): they fill up to their bound, which is
    no leak, so :func:`measure` empties them at each window's edges."""
    out: list[Any] = []
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith("mariash_env"):
            continue
        for obj in list(vars(mod).values()):
            for f in [obj, *(vars(obj).values() if isinstance(obj, type) else ())]:
                f = getattr(f, "__func__", f)  # a cached staticmethod
                params = getattr(f, "cache_parameters", None)
                if callable(params) and params()["maxsize"] is not None and f not in out:
                    out.append(f)
    return out


def measure(name: str, unit: Callable[[], None], count: int, windows: int,
            warm: int) -> Growth:
    """Run ``unit`` ``warm`` times, then ``count`` times in each of ``windows`` windows,
    noting what each window left allocated (module docstring).  At each window's edge the
    bounded caches are emptied (:func:`bounded_caches`), and so is CPython's type
    attribute cache, which holds the name last looked up in each of its 4,096 slots: a
    name made at run time (a ``getattr`` of a string split from a path) stays there until
    another lookup takes its slot, which counted as growth fading over hundreds of units
    (a table partie: 2 kB in the second window of 8 parties, 0.9 in the third, 0.1 to 0.4
    in the sixth); the full collection empties the free lists."""
    for _ in range(warm):
        unit()
    out = Growth(name)
    caches = bounded_caches()
    clear_type_cache = getattr(sys, "_clear_type_cache", lambda: None)

    def settle() -> None:
        for f in caches:
            f.cache_clear()
        clear_type_cache()
        gc.collect()

    settle()
    # What lives now is moved out of the collector's sight, so that the collections at
    # the windows' edges go over what the windows made, not the whole heap (a tenth of a
    # second or more each in a test process); it can only keep more, never hide a leak.
    frozen = gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()
    started = tracemalloc.is_tracing()
    if not started:
        tracemalloc.start()
    try:
        r0, before = rss_mb(), tracemalloc.get_traced_memory()[0]
        for _ in range(windows):
            for _ in range(count):
                unit()
            settle()
            r1, now = rss_mb(), tracemalloc.get_traced_memory()[0]
            out.traced.append((now - before) / count)
            out.rss.append(r1 - r0)
            r0, before = rss_mb(), tracemalloc.get_traced_memory()[0]  # after the notes
    finally:
        if not started:
            tracemalloc.stop()
        if frozen:
            gc.unfreeze()
    return out


def _label(rules: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in rules.items()) or "voleny"


def _random_deal(env, rng: np.random.Generator) -> Callable[[], None]:
    def unit() -> None:
        env.reset(seed=int(rng.integers(1 << 30)))
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else
                     int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.reset(seed=REST)
    return unit


def _robot_deal(env, robot, rng: np.random.Generator) -> Callable[[], None]:
    """One deal of ``env`` with ``robot`` in every seat, through the robot protocol."""
    from mariash_env.robots.view import SeatView

    def unit() -> None:
        env.reset(seed=int(rng.integers(1 << 30)))
        robot.begin_deal(int(rng.integers(1 << 30)))
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            elif getattr(robot, "wants_view", False):
                env.step(int(robot.act_view(SeatView.from_game(env.game, env.game.to_move))))
            else:
                env.step(int(robot.act(obs)))
        env.reset(seed=REST)
        robot.begin_deal(REST)
    return unit


def _seat_record(rules: dict, rng: np.random.Generator) -> dict[str, Any]:
    """A seat record (``mariash-seat/1``) of the seat to move some way into a deal of
    ``rules`` (random legal play): what a game server sends the robot service."""
    from mariash_env import Game
    from mariash_env.rules import make_rules
    from mariash_env.seat_record import seat_record_of

    while True:
        g = Game(make_rules(**rules))
        g.new_partie(seed=int(rng.integers(1 << 30)))
        stop = int(rng.integers(5, 30))
        while not g.deal_over and len(g.history) < stop:
            g.step(int(rng.choice(g.legal_actions())))
        if not g.deal_over:
            return seat_record_of(g, g.to_move)


def _ended(threads: set[threading.Thread]) -> None:
    """Wait for the threads started since ``threads`` was taken to end: the test client
    runs each request on an event loop of its own, whose worker thread ends a moment
    after the response and holds its objects (some kB) until then, which a window's edge
    would count when it comes first."""
    for t in threading.enumerate():
        if t not in threads:
            t.join(10)


def _table_units(rng: np.random.Generator) -> Iterator[tuple[str, Callable[[], None]]]:
    """Per game, a unit that plays a partie of one deal at the play table through its
    JSON API (the human's moves drawn at random, the table robots in the other seats),
    then starts the next partie, as a player at a long-running table does.  Its records
    and summaries go to a temporary folder, which is the table's storage, not memory: in
    ``/dev/shm`` where there is one, since the table fsyncs every move it saves (a few ms
    each on a disk, most of a partie's time)."""
    import atexit
    import shutil
    import tempfile

    with warnings.catch_warnings():  # TestClient's httpx notice
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mariash_env.play.tables import open_table
    from mariash_env.play.web import create_app

    shm = Path("/dev/shm")
    memory = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    save = Path(tempfile.mkdtemp(prefix="leak_check_table_", dir=memory))
    atexit.register(shutil.rmtree, save, True)
    for rules in GAMES:
        game = rules.get("rules", "voleny")
        options = {k: v for k, v in rules.items() if k != "rules"}
        robots = ",".join(["table"] * (options.get("players", 3) - 1))
        options["deals"] = 1
        seeds = iter(range(1, 1 << 30))

        def new_session(setup: Any = None, game=game, robots=robots, options=options,
                        seeds=seeds) -> Any:
            return open_table(robots, rules=game, save_dir=save / _label(options),
                              seed=next(seeds), options=options)

        client = TestClient(create_app(new_session))

        def partie(client=client) -> None:
            threads = set(threading.enumerate())
            st = client.get("/api/state").json()
            while st["waiting"] != "partie_over":
                ids = {"session": st["session"], "move": st["move"]}
                if st["waiting"] == "robot":
                    r = client.post("/api/advance", json=ids)
                elif st["waiting"] == "human":
                    r = client.post("/api/act", json={**ids, "action": str(
                        rng.choice(st["legal"]))})
                else:
                    r = client.post("/api/next", json=ids)
                assert r.status_code == 200, r.text
                st = r.json()
            r = client.post("/api/new", json={"session": st["session"], "move": st["move"]})
            assert r.status_code == 200, r.text
            _ended(threads)
        yield f"table partie {_label(rules)}", partie


def units(case: str) -> Iterator[tuple[str, Callable[[], None]]]:
    """The ``(name, unit)`` pairs of ``case``, one per game (and robot)."""
    import mariash_env

    rng = np.random.default_rng(0)
    if case == "aec":  # one deal, its record kept by the env as INTERFACE.md says
        for rules in GAMES:
            one = {} if rules.get("rules") == "lizany" else {"deals": 1}
            yield f"aec deal {_label(rules)}", _random_deal(mariash_env.env(**one, **rules), rng)
    elif case == "single_agent":  # one deal against the table robots, Gymnasium's API
        for rules in GAMES:
            one = {} if rules.get("rules") == "lizany" else {"deals": 1}
            env = mariash_env.SingleAgentEnv(**one, **rules)

            def episode(env=env) -> None:
                env.reset(seed=int(rng.integers(1 << 30)))
                done = False
                while not done:
                    legal = np.flatnonzero(env.action_masks())
                    _, _, term, trunc, _ = env.step(int(rng.choice(legal)))
                    done = term or trunc
                env.reset(seed=REST)
            yield f"single_agent deal {_label(rules)}", episode
    elif case == "vector":
        from mariash_env.vector import VectorEnv, random_legal_actions

        for rules in GAMES:
            venv = VectorEnv(64, seed=0, **rules)
            venv.reset()

            def step(venv=venv) -> None:
                venv.step(random_legal_actions(venv.current().mask, rng))
            yield f"vector step {_label(rules)}", step
    elif case == "refused":  # every refusal raises, and nothing of it may stay
        from mariash_env.vector import VectorEnv

        for rules in GAMES:
            env = mariash_env.env(**rules)
            env.reset(seed=1)
            venv = VectorEnv(8, seed=1, **rules)
            venv.reset()
            bad_rows = np.full(8, -1)

            def refuse(env=env, venv=venv, bad_rows=bad_rows) -> None:
                for action in (-1, 10**9, 1.5, "nope"):
                    try:
                        env.step(action)
                    except ValueError:
                        pass
                for call in (lambda: venv.step(bad_rows),
                             lambda: venv.restore_states(np.zeros((8, 3), np.int32))):
                    try:
                        call()
                    except ValueError:
                        pass
            yield f"refused inputs {_label(rules)}", refuse
    elif case == "openspiel":
        import pyspiel

        import mariash_env.openspiel  # noqa: F401  (registers the game)

        for rules in GAMES:
            game = pyspiel.load_game("mariash", {"deals": 1, **rules})

            def deal(game=game) -> None:
                st = game.new_initial_state()
                while not st.is_terminal():
                    if st.is_chance_node():
                        outcomes = st.chance_outcomes()
                        st.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                    else:
                        st.information_state_tensor()
                        st.apply_action(int(rng.choice(st.legal_actions())))
            yield f"openspiel deal {_label(rules)}", deal
    elif case == "service":
        with warnings.catch_warnings():  # TestClient's httpx notice
            warnings.simplefilter("ignore")
            from starlette.testclient import TestClient
        from mariash_env.games.registry import game_kind
        from mariash_env.play.service import create_service_app

        for rules in GAMES[:3]:
            game = rules.get("rules", "voleny")
            env = mariash_env.env(**({} if game == "lizany" else {"deals": 1}), **rules)
            env.reset(seed=1)
            obs = env.observe(env.agent_selection)
            body = {"observation": obs["observation"].tolist(),
                    "action_mask": obs["action_mask"].tolist()}
            # seat records (volený at three and four players, licitovaný): the service
            # rebuilds the seat's view by replaying the record on every request
            records = [_seat_record(r, rng) for r in GAMES
                       if r.get("rules", "voleny") == game
                       and game_kind(game).supports("seat_record")]
            client = TestClient(create_service_app("table", game))

            def request(client=client, body=body, records=records) -> None:
                threads = set(threading.enumerate())
                assert client.post("/act", json=body).status_code == 200
                for record in records:
                    assert client.post("/act", json={"record": record}).status_code == 200
                client.post("/act", content=b"{not json")
                client.post("/act", json={"record": {"seat": 9}})
                _ended(threads)
            yield f"service request {game}", request
    elif case == "table":  # a partie of one deal through the play table's JSON API
        yield from _table_units(rng)
    elif case in ("robots", "search"):  # search: worlds, transposition tables, ONNX
        from mariash_env.robots import make_robot

        specs = ("table", "net") if case == "robots" else ("strong", "pimc(worlds=4)")
        for rules in GAMES:  # the four-player table's robots play its deals as at three
            for spec in specs:
                one = {} if rules.get("rules") == "lizany" else {"deals": 1}
                env = mariash_env.raw_env(**one, **rules)
                yield (f"robot {spec} {_label(rules)}",
                       _robot_deal(env, make_robot(spec, rules=rules), rng))
    else:
        raise ValueError(f"unknown case {case!r}: expected one of {', '.join(CASES)}")


def run(cases: list[str], count: int, windows: int, warm: int,
        show: Callable[[str], None] = print) -> list[Growth]:
    out = []
    for case in cases:
        for name, unit in units(case):
            g = measure(name, unit, count, windows, warm)
            show(g.line())
            out.append(g)
    return out


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=400, help="units a window")
    ap.add_argument("--windows", type=int, default=3,
                    help="windows of --count units measured apart (default 3)")
    ap.add_argument("--warm", type=int, default=50, help="units before the first window")
    ap.add_argument("--cases", default=",".join(CASES),
                    help="comma-separated cases to run (default all: " + ",".join(CASES) + ")")
    ap.add_argument("--limit", type=float, default=256.0,
                    help="bytes a unit a window after the first may keep (default 256)")
    args = ap.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    bad = [c for c in cases if c not in CASES]
    if bad:
        ap.error(f"unknown case {bad[0]!r}: expected some of {', '.join(CASES)}")
    print(f"Python bytes a unit kept (resident MiB gained), per window of {args.count}")
    growth = run(cases, args.count, args.windows, args.warm)
    leaks = [g for g in growth if g.kept() > args.limit]
    for g in leaks:
        print(f"LEAK? {g.name}: {g.kept():.0f} bytes a unit in every window after the first")
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
