"""The searching robots' hard time budget and their warm-up (issue #35).

The budget is checked on a fake clock that moves only when a world is valued (a solver
call or a playout costs a fixed amount), so the number of worlds searched and the time a
decision takes are exact, whatever the machine's load.  The warm-up is checked in a fresh
process: once a robot is constructed, its decisions compile no kernel of their own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mariash_env.search as search
from mariash_env.compile import decision_positions, warmup
from mariash_env.core import state as S
from mariash_env.robots import pimc as P
from mariash_env.robots.pimc import PIMCRobot
from mariash_env.robots.view import SeatView
from tests.helpers import decision_compiles, step_cap

ROOT = Path(__file__).resolve().parents[1]
SOLVE = 0.125  # fake seconds per solver call (binary fractions: exact sums)
PLAYOUT = 0.03125  # fake seconds per playout


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A clock that advances SOLVE per solver call and PLAYOUT per playout."""
    c = FakeClock()
    solve, value = search.solve, P._Rollout.value

    def timed_solve(*a, **k):
        c.t += SOLVE
        return solve(*a, **k)

    def timed_value(self, *a, **k):
        c.t += PLAYOUT
        return value(self, *a, **k)

    monkeypatch.setattr(search, "solve", timed_solve)
    monkeypatch.setattr(P._Rollout, "value", timed_value)
    return c


def _robot(clock: FakeClock, time_limit: float | None, worlds: int = 20) -> PIMCRobot:
    # endgame=10: a playout is the table robot's alone (no solver call inside it)
    r = PIMCRobot(worlds=worlds, time_limit=time_limit, seed=5, endgame=10, warm=False)
    r.clock = clock
    return r


def _view(st: np.ndarray, rules) -> SeatView:
    return SeatView(st, int(st[S.TO_MOVE]), rules)


@pytest.mark.parametrize("game", ["voleny", "licitovany"])
def test_card_play_stops_before_the_world_that_would_not_fit(clock, game):
    _, play, rules = decision_positions(game)
    r = _robot(clock, time_limit=0.4)
    r.act_view(_view(play, rules))
    # worlds end at 0.125, 0.25, 0.375; a fourth would end at 0.5 > 0.4
    assert r.stats["worlds"] == 3 and clock.t == 3 * SOLVE
    unlimited = _robot(clock, time_limit=None)
    unlimited.act_view(_view(play, rules))
    assert unlimited.stats["worlds"] == 20


@pytest.mark.parametrize("game", ["voleny", "licitovany"])
def test_simulated_decisions_keep_the_budget(clock, game):
    bid, _, rules = decision_positions(game)
    view = _view(bid, rules)
    _robot(clock, time_limit=None, worlds=1).act_view(view)
    per_world = clock.t  # a playout per candidate
    assert per_world >= 2 * PLAYOUT
    clock.t = 0.0
    r = _robot(clock, time_limit=2.5 * per_world)
    r.act_view(view)
    assert r.stats["worlds"] == 2 and clock.t == pytest.approx(2 * per_world)
    # a budget that ends inside the first world: that world is dropped, the table robot's
    # choice taken, the decision over by less than one playout
    fallback = r._table(view.kind).act(view.observation_dict()) if game == "licitovany" else None
    t0 = clock.t
    short = _robot(clock, time_limit=1.5 * PLAYOUT)
    a = short.act_view(view)
    assert short.stats["worlds"] == 0 and short.stats["searched"] == 1
    assert clock.t - t0 <= 1.5 * PLAYOUT + PLAYOUT
    if fallback is not None:
        assert a == fallback


@pytest.mark.parametrize("game", ["voleny", "licitovany"])
def test_no_decision_of_a_deal_overruns_by_more_than_one_world(clock, game):
    """Every decision of a whole deal (bidding simulated, card play solved) within
    time_limit plus one solver call."""
    from mariash_env.core.engine import apply_action

    bid, _, rules = decision_positions(game)
    limit = 0.3
    r = _robot(clock, time_limit=limit)
    st = bid.copy()
    longest, searched = 0.0, 0
    tick = step_cap(rules)
    while st[S.PHASE] != S.PH_DONE:
        tick()
        t0, n0 = clock.t, r.stats["searched"]
        a = r.act_view(_view(st, rules))
        longest = max(longest, clock.t - t0)
        searched += r.stats["searched"] - n0
        apply_action(st, rules.vector(), a)
    assert searched >= 2
    assert limit < longest + SOLVE  # the budget was reached ...
    assert longest <= limit + SOLVE  # ... and never overrun by more than one world


def test_time_limit_leaves_the_choice_alone_when_it_is_not_reached(clock):
    _, play, rules = decision_positions("voleny")
    a = _robot(clock, time_limit=None, worlds=6).act_view(_view(play, rules))
    b = _robot(clock, time_limit=100.0, worlds=6).act_view(_view(play, rules))
    assert a == b


def test_warmup_refuses_an_unknown_game():
    with pytest.raises(ValueError, match="unknown game 'lizany'.*voleny, licitovany"):
        warmup(["lizany"])


def test_decisions_after_construction_compile_nothing():
    """In a fresh process: construct the robots (the warm-up), then play whole deals of
    both games with pimc and with `strong` (nnpimc: the network's decisions, then its
    search), and take nnpimc's weighted card play; no decision gives a numba kernel a
    compiled signature.  Whole deals, not the warm-up's own positions: the warm-up must
    cover what a decision later in a deal calls (licitovaný's sampler replays the cards
    played from Python)."""
    code = textwrap.dedent("""
        import json
        import numpy as np
        from mariash_env.compile import compiled_signatures as compiled, decision_positions
        from mariash_env.core import state as S
        from mariash_env.playout import deal_states, play_games
        from mariash_env.robots import make_robot
        from mariash_env.robots.pimc import PIMCRobot
        from mariash_env.robots.view import SeatView
        from mariash_env.rules import make_rules

        grew, later = {}, {}

        def watched(robot, name):
            inner = robot.act_view

            def act_view(view):
                before = compiled()
                out = inner(view)
                if view.phase == S.PH_PLAY and view.trick >= 1:
                    later[name] = later.get(name, 0) + 1
                for k, n in compiled().items():
                    if n != before.get(k, 0):
                        grew[k] = grew.get(k, 0) + n - before.get(k, 0)
                return out

            robot.act_view = act_view
            return robot

        for game in ("voleny", "licitovany"):
            rules = make_rules(rules=game)
            table = make_robot("table", rules=rules)
            for robot in (watched(PIMCRobot(worlds=3, seed=1), game + " pimc"),
                          watched(make_robot("strong", rules=rules), game + " strong")):
                for seed in range(4):
                    for r in (robot, table):
                        r.begin_deal(seed)
                    st = deal_states(np.array([seed]), np.array([seed % 3]), rules)
                    play_games([robot, table], st, np.array([[0, 1, 1]]), rules, True)
        nn = watched(make_robot("nnpimc(worlds=2, candidates=4, seed=1)"), "nnpimc")
        _, play, rules = decision_positions("voleny")
        nn.act_view(SeatView(play, int(play[S.TO_MOVE]), rules))
        print(json.dumps([grew, later]))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, check=True)
    grew, later = json.loads(out.stdout.strip().splitlines()[-1])
    assert grew == {}
    # each robot took card-play decisions after the first trick, where worlds replay the
    # cards played
    assert sorted(later) == ["licitovany pimc", "licitovany strong", "nnpimc",
                             "voleny pimc", "voleny strong"]


def test_the_table_robot_decides_without_compiling_after_make_robot():
    """Issue #35 audit: make_robot("table")'s first decision compiled its kernels (33.5 s
    in licitovaný, 22.8 s in volený at four on an empty numba cache); they are warmed when
    it is built, so in a fresh process no decision of whole deals (against random robots,
    which compile nothing) gives a kernel a signature."""
    assert decision_compiles("table", "random", ("licitovany", "voleny"), deals=6) == {}


def test_building_the_table_robot_compiles_only_what_its_decisions_call():
    """make_robot("table") warms its own kernels, not a search's playouts nor the engine's
    moves it never makes (they were ~40% of its cold build: playing deals to get positions):
    in a fresh process no table playout, ``apply_action`` or deal kernel gains a
    signature, while its decision kernels do."""
    code = textwrap.dedent("""
        import json
        from mariash_env.compile import compiled_signatures as compiled
        from mariash_env.robots import make_robot

        before = compiled()
        for game in ("voleny", "licitovany"):
            make_robot("table", rules=game)
        print(json.dumps(sorted(k for k, n in compiled().items() if n > before.get(k, 0))))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, check=True)
    grew = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert {"mariash_env.games.voleny.table_play.choose_card",
            "mariash_env.games.licitovany.table_decide.decide",
            "mariash_env.core.engine.legal_actions"} <= grew
    assert not [k for k in grew if k.startswith("mariash_env.robots.table_playout.")
                or k.endswith((".apply_action", ".deal_deck", ".start_partie"))], grew
