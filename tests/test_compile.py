"""``python -m mariash_env.compile`` (issue #35, and the install's time): the search kernels
and, in a second process beside them, the engine's kernels of every game's AEC env and
``VectorEnv`` (:func:`mariash_env.compile.warm_engine`)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mariash_env.compile", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)


def test_bad_arguments_are_one_error_line():
    r = _cli("--games", "voleny,skat")
    assert r.returncode == 2 and "unknown game 'skat'" in r.stderr
    assert "play voleny, licitovany, lizany" in r.stderr
    r = _cli("--part", "everything")
    assert r.returncode == 2 and "invalid choice: 'everything'" in r.stderr


def test_after_warm_engine_the_envs_of_every_game_compile_nothing():
    """In a fresh process: ``warm_engine()``, then other decisions of every game's AEC env
    and ``VectorEnv`` (other seeds, more steps, another batch size, restored states) add
    no compiled signature to any kernel: what the engine part compiles is what the front
    ends call (restore_states' refresh was not: the arena's first deal compiled it)."""
    code = textwrap.dedent("""
        import json
        import numpy as np
        from mariash_env.compile import compiled_signatures as compiled, warm_engine
        from mariash_env.env import env
        from mariash_env.games.registry import games
        from mariash_env.vector import VectorEnv, random_legal_actions

        warm_engine()
        before = compiled()
        rng = np.random.default_rng(7)
        runs = 0
        for kind in games():
            for players in kind.players:
                opts = {"rules": kind.name}
                if len(kind.players) > 1:
                    opts["players"] = players
                e = env(**opts)
                e.reset(seed=11)
                for agent in e.agent_iter(300):
                    obs, _, term, trunc, _ = e.last()
                    e.step(None if term or trunc else
                           int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                if "vector" in kind.front_ends:
                    v = VectorEnv(16, seed=3, **opts)
                    s = v.reset()
                    for _ in range(200):
                        s = v.step(random_legal_actions(s.mask, rng))
                    v.restore_states(v.copy_states())  # the arena's and PIMC's playouts
                runs += 1
        after = compiled()
        print(json.dumps([runs, {k: (before.get(k, 0), n) for k, n in after.items()
                                 if n != before.get(k, 0)}]))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=900, check=True)
    runs, grown = json.loads(out.stdout.strip().splitlines()[-1])
    assert runs == 4 and grown == {}  # volený at 3 and 4, licitovaný, lízaný


def test_after_warmup_a_pimc_robot_compiles_nothing():
    """In a fresh process: what ``python -m mariash_env.compile`` runs for the search
    (``warmup`` of every game with searching robots), then ``make_robot("pimc")`` of each
    game adds no compiled signature: the simulations' playouts, the table robot's card play
    and the encoders that PIMC's constructor warms are in the warm-up (they were not, and
    a new process's first pimc robot compiled them, ~10 s on an empty cache)."""
    code = textwrap.dedent("""
        import json
        from mariash_env.compile import GAMES, compiled_signatures as compiled, warmup
        from mariash_env.robots import make_robot
        from mariash_env.robots.playouts import warm_playouts

        warmup(GAMES, network=True, quiet=True)
        before = compiled()
        warm_playouts(GAMES)  # what a PIMC robot's simulations call
        for game in GAMES:
            make_robot("pimc", rules=game)
        after = compiled()
        print(json.dumps({k: (before.get(k, 0), n) for k, n in after.items()
                          if n != before.get(k, 0)}))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=900, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {}


def test_after_the_compile_command_a_table_robot_compiles_nothing():
    """In a fresh process: what ``python -m mariash_env.compile`` runs (its search part
    and its engine part), then ``make_robot("table")`` of every game adds no compiled
    signature: lízaný's rule robot's kernels are in it too (they were not, and its first
    robot compiled them)."""
    code = textwrap.dedent("""
        import contextlib, io, json
        import mariash_env.compile as C
        from mariash_env.games.registry import games
        from mariash_env.robots import make_robot

        with contextlib.redirect_stdout(io.StringIO()):
            C.main(["--part", "search"])
        C.warm_engine()
        before = C.compiled_signatures()
        for kind in games():
            make_robot("table", rules=kind.name)
        after = C.compiled_signatures()
        print(json.dumps({k: (before.get(k, 0), n) for k, n in after.items()
                          if n != before.get(k, 0)}))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=900, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {}


def test_the_serving_commands_announce_a_compiling_warm_up_in_their_logs(capsys, monkeypatch):
    """Issue #35 audit: on an empty numba cache `mariash serve-robot strong` was silent for
    minutes before it listened when its output was a log (not a terminal).  The serving
    commands ask for the notice anywhere; a library call into a pipe still gets none."""
    import time

    import mariash_env.compile as C
    import mariash_env.play.service as service
    from mariash_env.play.cli import main as play_main

    monkeypatch.setattr(C, "_ANYWHERE", [False])
    monkeypatch.setattr(C, "_NOTICE_AFTER", 0.0)
    monkeypatch.setattr(C, "kernel_cached", lambda kernel: False)  # the solver's: compiling
    monkeypatch.setattr(C, "_warm_game", lambda g, net: time.sleep(0.3))

    def warm() -> str:
        monkeypatch.setattr(C, "_DONE", set())
        C.warmup(["voleny"])
        return capsys.readouterr().err

    assert warm() == ""  # capsys: not a terminal
    seen = []
    monkeypatch.setattr(service, "serve_robot", lambda *a, **kw: seen.append(C._ANYWHERE[0]))
    play_main(["serve-robot", "random"])
    assert seen == [True]
    err = warm()
    assert "mariash: compiling the search kernels (voleny;" in err
    assert "mariash: search kernels ready" in err


def test_lizany_s_warm_up_is_announced_like_the_others(monkeypatch):
    """Lízaný's solver warm-up (about ten seconds on an empty cache) goes through the same
    notice as the shared games' (it was silent everywhere)."""
    import contextlib

    import mariash_env.compile as C
    from mariash_env.games.lizany import solve

    said = []

    @contextlib.contextmanager
    def notice(names, quiet=False, about="", what="", kernels=None):
        said.append((names, quiet, about, tuple(kernels)))
        yield

    monkeypatch.setattr(C, "compiling_notice", notice)
    monkeypatch.setattr(solve, "_WARM", [])
    solve.warm_up()
    assert said == [("lízaný", False, "about ten seconds", (solve.solve_best,))]


def test_the_table_and_openspiel_robots_announce_a_compiling_warm_up(capsys, monkeypatch):
    """make_robot("table"), "os_random" and "os_ismcts" compile when built, like the
    searching robots, and say so in the same words (they were silent); loading from a
    warm disk cache is not announced."""
    import time

    import mariash_env.compile as C
    import mariash_env.robots as R
    from mariash_env.games.licitovany.table_robot import LicitTableRobot

    pytest.importorskip("pyspiel")
    from mariash_env.openspiel.robot import OpenSpielRobot

    monkeypatch.setattr(C, "_ANYWHERE", [True])
    monkeypatch.setattr(C, "_NOTICE_AFTER", 0.0)
    monkeypatch.setattr(LicitTableRobot, "warm_up", staticmethod(lambda: time.sleep(0.3)))
    monkeypatch.setattr(OpenSpielRobot, "warm_up", lambda self, game: time.sleep(0.3))
    for cached in (False, True):
        monkeypatch.setattr(C, "kernel_cached", lambda kernel, cached=cached: cached)
        monkeypatch.setattr(R, "_TABLE_WARM", set())
        capsys.readouterr()
        R.make_robot("table", rules="licitovany")
        R.make_robot("os_random", rules="voleny")
        R.make_robot("os_ismcts", rules="licitovany")
        err = capsys.readouterr().err
        if cached:
            assert err == ""
            continue
        for what, game in (("table robot's kernels", "licitovany"),
                           ("OpenSpiel robot's kernels", "voleny"),
                           ("OpenSpiel robot's kernels", "licitovany")):
            assert f"mariash: compiling the {what} ({game}; first use" in err
        assert err.count("mariash: table robot's kernels ready") == 1
        assert err.count("mariash: OpenSpiel robot's kernels ready") == 2


def test_a_compiling_notice_told_the_kernels_is_quiet_when_the_cache_holds_them_all(
        monkeypatch):
    """compiling_notice(kernels=...) asks the disk cache itself (the callers repeated
    kernel_cached): one kernel not cached is compiling, meanwhile compiling_now() names
    it; all cached (or none to compile) is loading; quiet=True stays quiet."""
    import mariash_env.compile as C

    monkeypatch.setattr(C, "_NOTICE_AFTER", 60.0)
    cached = {"a": True, "b": False}
    monkeypatch.setattr(C, "kernel_cached", lambda kernel: cached[kernel])
    for kernels, quiet, now in ((("a", "b"), False, "engine's kernels (voleny)"),
                                (("a",), False, None), ((), False, None),
                                (("b",), True, None), (iter("ab"), False,
                                                       "engine's kernels (voleny)")):
        with C.compiling_notice("voleny", quiet, what="engine's kernels", kernels=kernels):
            assert C.compiling_now() == now, (kernels, quiet)
        assert C.compiling_now() is None


def test_a_compiling_notice_leaves_no_thread_and_no_stale_name(monkeypatch):
    """The notice's timer thread has ended when the block does (the arena forks its
    workers right after its warm-up: a fork keeps the locks a live thread holds), and
    compiling_now() forgets the warm-up even when its timer could not start."""
    import threading

    import mariash_env.compile as C

    monkeypatch.setattr(C, "_ANYWHERE", [True])
    monkeypatch.setattr(C, "_NOTICE_AFTER", 60.0)
    before = set(threading.enumerate())
    for _ in range(20):
        with C.compiling_notice("voleny", False, what="engine's kernels"):
            assert C.compiling_now() == "engine's kernels (voleny)"
        assert set(threading.enumerate()) <= before
    assert C.compiling_now() is None

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Timer, "start", refuse)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        with C.compiling_notice("voleny", False, what="engine's kernels"):
            pass
    assert C.compiling_now() is None


@pytest.mark.parametrize("spec", ["lizany_table", "table"])
def test_lizany_s_table_robot_warms_up_announced_before_it_is_built(spec, monkeypatch):
    """Lízaný's rule robot (``"lizany_table"``, or ``"table"`` in lízaný) is built as the
    other table robots are: its kernels compiled (or loaded) by its warm_up under the same
    notice, which compiling_now() names meanwhile (the play table's page says why it
    waits), before the robot is built.  It compiled in its constructor, before any notice
    (about 2 s of CPU on an empty cache)."""
    import mariash_env.compile as C
    import mariash_env.robots as R
    from mariash_env.games.lizany import table_robot as LT

    during = []
    warm = LT.LizanyRuleRobot.warm_up

    def spy():
        during.append(C.compiling_now())
        warm()

    monkeypatch.setattr(LT.LizanyRuleRobot, "warm_up", staticmethod(spy))
    monkeypatch.setattr(C, "kernel_cached", lambda kernel: False)  # as on an empty cache
    monkeypatch.setattr(R, "_TABLE_WARM", set())
    robot = R.make_robot(spec, rules="lizany")
    assert isinstance(robot, LT.LizanyRuleRobot)
    assert during[0] == "table robot's kernels (lizany)"
    assert LT.checked_decide.signatures and LT.decide.signatures  # compiled or loaded
    assert R._TABLE_WARM == {"lizany"}


def test_a_table_robot_without_warm_up_is_warmed_and_an_own_engine_skipped(monkeypatch):
    """warm_playouts (and robot "table") call the table robot's warm_up where it has one: a
    robot without it is fine (it was an AttributeError); and lízaný, whose own engine none
    of these playouts plays, is skipped (it was a RulesError before that line was
    reached)."""
    from mariash_env import robots
    from mariash_env.games.voleny.table_robot import TableRobot
    from mariash_env.robots import make_robot, playouts

    monkeypatch.setattr(playouts, "_PLAYOUTS_WARM", set())
    monkeypatch.setattr(robots, "_TABLE_WARM", set())
    monkeypatch.delattr(TableRobot, "warm_up")
    monkeypatch.delattr(TableRobot, "decision_kernel")
    playouts.warm_playouts(("voleny", "lizany"))
    assert playouts._PLAYOUTS_WARM == {"voleny", "lizany"}
    assert isinstance(make_robot("table", rules="voleny"), TableRobot)
    assert robots._TABLE_WARM == {"voleny"}


# The compiled functions that hold more than one signature on purpose: the observation
# encoders, compiled once per constant ``omniscient`` a compiled caller passes (each flag's
# branches folded away) and once for a flag from Python (a plain bool).
_FLAGGED = {"mariash_env.games.voleny.observe.encode": 3,
            "mariash_env.games.licitovany.observe.encode_licit": 2,
            "mariash_env.games.lizany.core.encode": 2}


@pytest.mark.slow
def test_every_compiled_function_is_compiled_for_one_signature():
    """In a fresh process: what ``python -m mariash_env.compile`` runs and a deal of the
    table robot in every game, then every signature typed as a cold numba cache compiles
    it (:func:`tests.helpers.typed_signatures`: from a warm cache too, in a fraction of
    the time).  No compiled function is compiled for a second signature, the encoders'
    flags aside: a seat read from a state (int32) and one computed (int64) compiled the
    rules' helpers twice (``legal_cards``, ``play_card``, ``trick_best``, ``beats`` ...),
    a constant offset per game the table robots' checks, a constant seat the volený
    encoder a fourth time -- 24 extra compilations on an empty cache."""
    code = textwrap.dedent("""
        import json
        import mariash_env.compile as C
        from mariash_env.arena import duplicate_match
        from mariash_env.games.registry import game_kind
        from tests.helpers import typed_signatures

        C.warmup(C.GAMES, network=True, quiet=True)
        for g in C.OWN_SEARCH:
            game_kind(g).load("warm_search")()
        C.warm_engine()
        for g in ("voleny", "licitovany", "lizany"):
            duplicate_match({"table": "table", "random": "random"}, deals=1,
                            rules={"rules": g}, progress=False, n_boot=10)
        print(json.dumps(typed_signatures()))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=900, check=True)
    sigs = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(sigs) > 250  # the engine's, the search's and the robots' kernels
    assert {k: v for k, v in sigs.items() if len(v) > _FLAGGED.get(k, 1)} == {}
    assert set(_FLAGGED) <= set(sigs)
