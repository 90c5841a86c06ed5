"""Lízaný's exact solver (:mod:`mariash_env.games.lizany.solve`) and the robots that play
with it (``pimc``, ``nnpimc`` = ``strong``): every value equals plain minimax over the
core's own rules, and a robot's card is of the best value once the deal is open."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mariash_env.games.lizany.core import (
    STOCK_POS,
    STOCK_SIZE,
    TRICK_NO,
    legal_cards,
    play_card,
)
from mariash_env.games.lizany.game import LizanyGame
from mariash_env.games.lizany.nnpimc import DEFAULT_MODEL, LizanyNNPIMCRobot
from mariash_env.games.lizany.pimc import LizanyPIMCRobot
from mariash_env.games.lizany.solve import (
    ABORTED,
    NO_CARD,
    NO_LIMIT,
    Solver,
    new_table,
    solve_best,
    solve_value,
    solve_values,
)
from mariash_env.games.registry import game_kind
from mariash_env.robots import make_robot
from tests.helpers import lizany_minimax, lizany_position, step_cap


@pytest.mark.parametrize("tricks", [11, 12])
def test_every_card_value_is_minimax(tricks):
    """Open endings (the stock gone, RULES.md §6's follow-and-beat rule in force): each
    legal card's value from ``solve_values`` equals plain minimax after that card, for the
    leader and the follower, with a small table (many entries overwritten) reused across
    deals; illegal cards are NO_CARD; ``solve_best`` finds the maximum."""
    tt, stats, out = new_table(6), np.zeros(1, np.int64), np.zeros(32, np.int64)
    checked = {-2: 0, -1: 0, 1: 0, 2: 0}
    for seed in range(80):
        g = lizany_position(seed, tricks, follower=seed % 2 == 1)
        st, root = g.st, g.to_move
        before = st.copy()
        legal = int(solve_values(st, out, tt, stats, NO_LIMIT))
        assert legal == int(legal_cards(st)) and np.array_equal(st, before)
        for c in range(32):
            if legal >> c & 1:
                child = st.copy()
                play_card(child, c)
                ref = lizany_minimax(child, root)
                assert out[c] == ref, (seed, c)
                checked[ref] += 1
            else:
                assert out[c] == NO_CARD
        card, value = solve_best(st, -1, tt, stats, NO_LIMIT)
        assert value == max(out[c] for c in range(32) if legal >> c & 1) == out[card]
        assert solve_value(st, tt, stats, NO_LIMIT) == value
    assert checked[1] > 20 and checked[-1] > 20  # (a double needs a seat without a trick)


def test_a_world_with_the_stock_is_solved_too():
    """With the stock still to draw (the search reads the world's stock order: the winner
    draws first) the values are minimax too: the last tricks before the stock is gone."""
    tt, stats, out = new_table(10), np.zeros(1, np.int64), np.zeros(32, np.int64)
    for seed in range(3):
        g = lizany_position(seed, 7, follower=True)
        assert g.st[STOCK_POS] < STOCK_SIZE
        legal = int(solve_values(g.st, out, tt, stats, NO_LIMIT))
        for c in range(32):
            if legal >> c & 1:
                child = g.st.copy()
                play_card(child, c)
                assert out[c] == lizany_minimax(child, g.to_move), (seed, c)


def test_a_reused_table_gives_every_world_its_own_values():
    """One table serves many solves (the robots keep one): worlds of one position differ
    in the stock's order, which the table's key leaves out, so an entry of an earlier solve
    must never answer a later one -- the values equal those of a fresh table each time."""
    from mariash_env.games.lizany.pimc import draw_world, read_position

    shared, stats = new_table(4), np.zeros(1, np.int64)  # 16 rows: entries collide
    rng = np.random.default_rng(0)
    for seed in range(6):
        g = lizany_position(seed, 6, follower=seed % 2 == 1)
        p = read_position(g.observe(g.to_move))
        for _ in range(3):
            w = draw_world(p, rng)
            a, b = np.zeros(32, np.int64), np.zeros(32, np.int64)
            solve_values(w.st, a, shared, stats, NO_LIMIT)
            solve_values(w.st, b, new_table(), stats, NO_LIMIT)
            assert np.array_equal(a, b)


def test_ties_go_to_the_first_card_and_the_budget_stops_a_search():
    """``solve_best`` keeps the caller's card on a tie (the robots' network or rule robot
    card); a node budget stops a search with ABORTED and leaves the table usable; bad
    arguments are refused by name."""
    tt, stats, out = new_table(), np.zeros(1, np.int64), np.zeros(32, np.int64)
    ties = 0
    for seed in range(40):
        g = lizany_position(seed, 9, follower=False)
        legal = int(solve_values(g.st, out, tt, stats, NO_LIMIT))
        best = max(out[c] for c in range(32) if legal >> c & 1)
        for c in range(32):
            if legal >> c & 1 and out[c] == best:
                assert solve_best(g.st, c, tt, stats, NO_LIMIT) == (c, best)
                ties += 1
        stats[0] = 0
        assert solve_best(g.st, -1, tt, stats, 5) == (-1, ABORTED)
        assert solve_values(g.st, out, tt, stats, 5) == -1
        assert solve_value(g.st, tt, stats, stats[0] + 1) == ABORTED
        assert solve_best(g.st, -1, tt, stats, NO_LIMIT)[1] == best  # after the aborts
    assert ties > 40
    g = lizany_position(1, 9, follower=False)
    with pytest.raises(ValueError, match="not legal"):
        solve_best(g.st, int(np.flatnonzero(~g.legal_mask().astype(bool))[0]), tt, stats,
                   NO_LIMIT)
    with pytest.raises(ValueError, match="new_table"):
        solve_value(g.st, np.zeros((4, 3), np.int64), stats, NO_LIMIT)
    with pytest.raises(ValueError, match="whole lízaný record"):
        solve_value(g.st[:10], tt, stats, NO_LIMIT)
    tick = step_cap("lizany")
    while not g.over:
        tick()
        g.play(int(np.flatnonzero(g.legal_mask())[0]))
    with pytest.raises(ValueError, match="the deal is over"):
        solve_values(g.st, out, tt, stats, NO_LIMIT)


def test_solver_time_budget():
    """``Solver`` turns seconds into a node budget: a tiny budget gives None (and counts
    an abort), no budget the exact answer."""
    s = Solver()
    g = lizany_position(5, 6, follower=False)  # two stock tricks left: thousands of positions
    assert s.card_values(g.st, 1e-6) is None and s.stats["aborted"] == 1
    values = s.card_values(g.st, None)
    assert values is not None
    legal = g.legal_mask()
    assert all((values[c] == NO_CARD) != bool(legal[c]) for c in range(32))


def _open_positions(deals: int):
    """Positions of table-robot deals once the stock is gone, with a choice of cards."""
    rule = make_robot("table", rules="lizany")
    for seed in range(deals):
        g = LizanyGame(seed=seed)
        tick = step_cap("lizany")
        while not g.over:
            tick()
            s = g.to_move
            obs = {"observation": g.observe(s), "action_mask": g.legal_mask(s)}
            if g.stock_left == 0 and g.legal_mask(s).sum() > 1:
                yield g, obs
            g.play(int(rule.act(obs)))


@pytest.mark.parametrize("spec", ["pimc(worlds=2)", "strong"])
def test_robots_play_the_open_deal_perfectly(spec):
    """Once the stock is gone ``pimc`` and ``strong`` (lízaný's nnpimc) play a card of the
    best exact value of the real deal."""
    bot = make_robot(spec, rules="lizany")
    assert isinstance(bot, LizanyPIMCRobot)
    tt, stats, out = new_table(), np.zeros(1, np.int64), np.zeros(32, np.int64)
    n = 0
    for g, obs in _open_positions(12):
        legal = int(solve_values(g.st, out, tt, stats, NO_LIMIT))
        best = max(out[c] for c in range(32) if legal >> c & 1)
        assert out[bot.act(obs)] == best
        n += 1
    assert n > 50 and bot.stats["solved"] == n


def test_strong_is_the_network_then_the_search():
    """``strong`` in lízaný is nnpimc with its shipped network (``DEFAULT_MODEL``, the
    distilled one; ``net`` is the network taught the open deal after it): the network's
    card while the stock lasts before ``from_trick``, a search from it on; its arguments
    are checked against its own bounds."""
    bot = make_robot("strong", rules="lizany")
    assert isinstance(bot, LizanyNNPIMCRobot) and bot.from_trick == 7
    assert bot.net.path.name == Path(DEFAULT_MODEL).name != Path(
        game_kind("lizany").net).name
    net = make_robot(f"onnx:{DEFAULT_MODEL}", rules="lizany")
    rng = np.random.default_rng(3)
    searched = 0
    for seed in range(6):
        g = LizanyGame(seed=seed)
        bot.begin_deal(seed)
        tick = step_cap("lizany")
        while not g.over:
            tick()
            s = g.to_move
            obs = {"observation": g.observe(s), "action_mask": g.legal_mask(s)}
            card = bot.act(obs)
            if g.st[TRICK_NO] < 7:
                assert card == net.act(obs)
            assert g.legal_mask(s)[card]
            g.play(card if rng.random() < 0.5 else int(net.act(obs)))
        searched = bot.stats["searched"]
    assert searched > 0
    with pytest.raises(ValueError, match="invalid from_trick=9 .* a trick 0..8"):
        make_robot("nnpimc(from_trick=9)", rules="lizany")
    with pytest.raises(ValueError, match="takes the arguments"):
        make_robot("nnpimc(leaf='solver')", rules="lizany")
    with pytest.raises(ValueError, match="invalid endgame=None"):
        make_robot("pimc(endgame=None)", rules="lizany")


def test_the_data_set_records_what_lizany_robots_searched():
    """``research.dataset``'s tap reads a lízaný robot's searched values (the worlds' means,
    the exact values of the open deal) and nothing for its unsearched decisions."""
    from mariash_env.research.dataset import take_values, tap_values

    bot = tap_values(make_robot("strong", rules="lizany"))
    g = LizanyGame(seed=2)
    rows = []
    tick = step_cap("lizany")
    while not g.over:
        tick()
        s = g.to_move
        mask = g.legal_mask(s)
        a = bot.act({"observation": g.observe(s), "action_mask": mask})
        v = take_values(bot, 32)
        rows.append((g.st[TRICK_NO], v))
        if v is not None:
            assert np.isfinite(v).sum() == mask.sum() and np.isfinite(v[a])
            assert v[a] == np.nanmax(v)
        g.play(a)
    assert all(v is None for t, v in rows if t < 7)
    assert any(v is not None for t, v in rows if t >= 8)


def test_a_malformed_record_is_refused_before_any_search():
    """Memory safety: the solver indexes with the record's fields and numba checks no
    bounds, so every field it reads is checked first -- a seat, a table card, a trump
    card, a stock position or a stock card out of range, hands that share a card or hold
    the wrong number of cards: ValueError naming it, the record untouched."""
    g = lizany_position(4, 5, follower=True)
    tt, stats, out = new_table(8), np.zeros(1, np.int64), np.zeros(32, np.int64)
    from mariash_env.games.lizany import core as C

    hand = int(g.st[C.HAND]) & 0xFFFFFFFF
    other = int(g.st[C.HAND + 1]) & 0xFFFFFFFF
    cases = [(C.TO_MOVE, 2), (C.TO_MOVE, -1), (C.TABLE, 32), (C.TABLE, -2),
             (C.TRUMP_CARD, 99), (C.STOCK_POS, -7), (C.STOCK_POS, 17), (C.TRICK_NO, 40),
             (C.STOCK + C.STOCK_SIZE - 1, 1000), (C.STOCK + C.STOCK_SIZE - 1, -1),
             (C.HAND, np.int32(np.uint32(hand | other))),  # shares the other's cards
             (C.HAND, np.int32(np.uint32(hand & (hand - 1))))]  # a card short
    for off, value in cases:
        bad = g.st.copy()
        bad[off] = value
        kept = bad.copy()
        for fn, args in ((solve_values, (out, tt, stats, NO_LIMIT)),
                         (solve_best, (-1, tt, stats, NO_LIMIT)),
                         (solve_value, (tt, stats, NO_LIMIT))):
            with pytest.raises(ValueError, match="malformed record"):
                fn(bad, *args)
        assert np.array_equal(bad, kept)
    assert solve_value(g.st, tt, stats, NO_LIMIT) in (-2, -1, 1, 2)
