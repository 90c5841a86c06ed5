"""Lízaný's PIMC robot (``make_robot("pimc", rules="lizany")``,
:mod:`mariash_env.games.lizany.pimc`): its worlds are deals the seat cannot tell from the
real one, it plays legally and reproducibly, and it refuses what is no observation."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.games.lizany.game import LizanyGame
from mariash_env.games.lizany.pimc import LizanyPIMCRobot, draw_world, read_position
from mariash_env.robots import make_robot
from mariash_env.robots.base import ObservationError
from tests.helpers import step_cap


def _positions(deals: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for d in range(deals):
        g = LizanyGame(seed=1000 * seed + d)
        tick = step_cap("lizany")
        while not g.over:
            tick()
            yield g
            g.play(int(rng.choice(np.flatnonzero(g.legal_mask()))))


def test_worlds_are_what_the_seat_sees():
    """Every world gives the seat to move its own observation and legal cards exactly;
    once the stock is empty (every unseen card is the opponent's) it is the real deal,
    the opponent's hand and view included; before, the unseen cards are spread over the
    opponent's hand and the stock."""
    rng = np.random.default_rng(1)
    spread = empty = 0
    for g in _positions(60):
        me = g.to_move
        o = g.observe(me)
        p = read_position(o)
        assert p is not None
        hands = set()
        for _ in range(4):
            w = draw_world(p, rng)
            assert np.array_equal(w.observe(me), o)
            assert np.array_equal(w.legal_mask(me), g.legal_mask(me))
            hands.add(w.hands[1 - me])
            if g.stock_left == 0:
                assert w.hands[1 - me] == g.hands[1 - me]
                assert np.array_equal(w.observe(1 - me), g.observe(1 - me))
        empty += g.stock_left == 0
        spread += len(hands) > 1
    assert spread > 300 and empty > 300


def test_pimc_plays_lizany_legally_and_reproducibly():
    """A whole deal in both seats through the robot protocol (``act``: lízaný has no game
    view); the same seeds give the same cards."""
    bot = make_robot("pimc(worlds=3, time_limit=0.2)", rules="lizany")
    assert isinstance(bot, LizanyPIMCRobot) and not bot.wants_view

    def deal(seed: int) -> list[int]:
        g = LizanyGame(seed=seed)
        bot.begin_deal(seed)
        out = []
        tick = step_cap("lizany")
        while not g.over:
            tick()
            s = g.to_move
            a = bot.act({"observation": g.observe(s), "action_mask": g.legal_mask(s)})
            g.play(a)  # IllegalActionError if it were not legal
            out.append(a)
        return out

    assert deal(4) == deal(4)
    assert bot.stats["decisions"] > 0 and bot.stats["worlds"] >= bot.stats["decisions"]


def _deal(bot, seed: int) -> list[int]:
    g = LizanyGame(seed=seed)
    bot.begin_deal(seed)
    out = []
    tick = step_cap("lizany")
    while not g.over:
        tick()
        s = g.to_move
        out.append(bot.act({"observation": g.observe(s), "action_mask": g.legal_mask(s)}))
        g.play(out[-1])
    return out


@pytest.mark.parametrize("spec", ["pimc(worlds=3, time_limit=None)",
                                  "nnpimc(worlds=3, time_limit=None, from_trick=6)"])
def test_a_pickled_robot_is_small_and_plays_as_the_original(spec: str) -> None:
    """A robot goes pickled to every worker of the arena's and the label generator's pools
    (a factory holding it, the Ray actors' init): lízaný's PIMC robot carried its
    solver's transposition table, 1.57 MB of a cache that an empty table gives again.  Now
    the table is left out (the copy's is empty, as large): the pickle holds what the robot
    must -- its settings, its generator, the solver's 32 values and statistics, and
    ``nnpimc``'s network (the model's bytes) -- and the copy, made after the original has
    filled its table, takes the same cards on seeded deals (no time limit: the same
    worlds solved)."""
    import pickle

    from mariash_env.games.lizany.solve import new_table

    bot = make_robot(spec, rules="lizany")
    _deal(bot, 4)  # its table filled
    assert bot.solver.table.any()
    data = pickle.dumps(bot)
    net = getattr(bot, "net", None)  # the model's bytes, its metadata read from them
    model = len(net.path.read_bytes()) + 2 * len(pickle.dumps(net.metadata)) if net else 0
    assert len(data) < model + 4096, (len(data), model)  # the table alone: 1.5 MiB
    copy = pickle.loads(data)
    assert copy.solver.table.shape == new_table().shape and not copy.solver.table.any()
    assert bot.solver.table.any()  # the original keeps its own
    for seed in (5, 6, 7):
        assert _deal(copy, seed) == _deal(bot, seed), seed


def test_what_is_no_lizany_observation_is_refused_or_left_to_the_rule_robot():
    """A wrong shape or a value that is not finite is an ObservationError; numbers whose
    counts fit no position (here: a hand of three cards with fifteen in the stock) get the
    rule robot's card, never a world of the wrong size."""
    bot = LizanyPIMCRobot(worlds=2, time_limit=0.1)
    g = LizanyGame(seed=3)
    o, m = g.observe(0), g.legal_mask(0)
    with pytest.raises(ObservationError):
        bot.act({"observation": o[:-1], "action_mask": m})
    bad = o.copy()
    bad[5] = np.nan
    with pytest.raises(ObservationError):
        bot.act({"observation": bad, "action_mask": m})
    odd = o.copy()
    hand = np.flatnonzero(odd[:32])
    odd[hand[3:]] = 0.0
    mask = np.zeros_like(m)
    mask[hand[:3]] = 1
    assert read_position(odd) is None
    assert bot.act({"observation": odd, "action_mask": mask}) in hand[:3]
    # a mask that is not the position's legal cards (a card not in the hand): no search,
    # whose worlds could not play it (scripts/fuzz_compiled.py found it)
    g = LizanyGame(seed=5)
    while g.trick_no < 9:  # the open deal: both robots would search
        g.play(int(np.flatnonzero(g.legal_mask())[0]))
    o, m = g.observe(g.to_move), g.legal_mask(g.to_move).copy()
    m[int(np.flatnonzero(m == 0)[0])] = 1
    assert read_position(o) is not None
    for spec in ("pimc(worlds=2)", "strong"):
        robot = make_robot(spec, rules="lizany")
        before = dict(robot.stats)
        assert m[robot.act({"observation": o, "action_mask": m})]
        assert robot.stats["worlds"] == before["worlds"]  # nothing searched
