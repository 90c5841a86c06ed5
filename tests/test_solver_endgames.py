"""The three double-dummy solvers on small endgames against an independent minimax.

Fast enough as plain Python (``NUMBA_DISABLE_JIT=1``, well under a minute): the mutation
audit's ``search`` group (``scripts/mutate_rules.py``) runs this module first.  The
reference here is written in the test, apart from the solvers' own code: a recursive
alpha-beta over the engine's ``legal_actions`` / ``apply_action`` (volený, licitovaný;
every ``play:<card>`` action) and over lízaný's ``legal_cards`` / ``play_card``
(``tests.helpers.lizany_minimax``, test_lizany_solve's reference too), the
value read from what the engine settles (RULES.md §9, LICITOVANY.md §8–§9, lízaný's
rewards).  No table, ordering, equivalent cards, bounds or lay-down.

Positions: 1 to 4 tricks left (some in mid-trick) of random deals: volený suit games
(hundreds, sevens, the trump seven in the last trick), betl and durch, under the default
rules, queen-first marriages and order-free hundreds (R§7, §11.2); licitovaný's twelve
games (L§3); lízaný's open endings and a world with its last stock cards.
"""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.core import state as S
from mariash_env.core.engine import apply_action, legal_actions, n_actions_of, solver_parts
from mariash_env.core.licit_games import G_BETL, G_DURCH
from mariash_env.rules import R_GAME, make_rules
from mariash_env.search import random_position, solve
from mariash_env.search.licit_worlds import random_licit_position
from tests.helpers import lizany_minimax, lizany_position

INF = 1 << 40


def _play0(rv: np.ndarray) -> int:
    """The game's first play action (``play:<card>`` is ``PLAY0 + card``)."""
    return int(solver_parts(int(rv[R_GAME])).PLAY0)


def reference(st: np.ndarray, rv: np.ndarray, play0: int, alpha: int = -INF,
              beta: int = INF) -> int:
    """``A`` (what each defender pays the actor, RULES.md §9) of ``st`` with best play: the
    actor maximising, the defence minimising, over every legal ``play:<card>``."""
    actor = int(st[S.ACTOR])
    mask = np.zeros(n_actions_of(rv), dtype=np.int8)
    legal_actions(st, rv, mask)
    maxi = int(st[S.TO_MOVE]) == actor
    best = -INF if maxi else INF
    for c in range(32):
        if not mask[play0 + c]:
            continue
        ch = st.copy()
        if apply_action(ch, rv, play0 + c):
            v = int(S.get64(ch, S.PAY + 2 * actor)) // 2
        else:
            v = reference(ch, rv, play0, alpha, beta)
        if maxi:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


def _exact(st: np.ndarray, rv: np.ndarray, play0: int) -> int:
    """The reference's exact value (a full window)."""
    return reference(st, rv, play0)


def _check_solve(st: np.ndarray, rv: np.ndarray, play0: int, sevens: list[int] | None = None,
                 **kw) -> int:
    """``solve`` of ``st`` against the reference: its value, every legal card's value and a
    principal variation that replays, through legal cards, to a deal settled at it, whose
    outcome names who played the trump seven to the last trick (counted in ``sevens``:
    lines without, with it)."""
    want = _exact(st, rv, play0)
    r = solve(st, rv, all_moves=True, **kw)
    assert r.value == want
    actor = int(st[S.ACTOR])
    mask = np.zeros(n_actions_of(rv), dtype=np.int8)
    legal_actions(st, rv, mask)
    assert set(r.move_values) == {play0 + c for c in range(32) if mask[play0 + c]}
    for a, v in r.move_values.items():
        ch = st.copy()
        if apply_action(ch, rv, a):
            assert v == int(S.get64(ch, S.PAY + 2 * actor)) // 2, a
        else:
            assert v == _exact(ch, rv, play0), a
    fin = st.copy()
    seven = -1  # who played the trump seven to the last trick, as the line plays it
    cards_only = True
    for a in r.pv:
        legal_actions(fin, rv, mask)
        assert mask[a]
        cards_only &= play0 <= a < play0 + 32
        if (fin[S.CONTRACT] == S.C_SUIT and a == play0 + 8 * (int(fin[S.TRUMP_CARD]) >> 3)
                and fin[S.TRICK_NO] == 9):
            seven = int(fin[S.TO_MOVE])
        done = apply_action(fin, rv, a)
    assert done and int(S.get64(fin, S.PAY + 2 * actor)) // 2 == want
    assert np.array_equal(r.outcome.state, fin)
    if cards_only and fin[S.TRICK_NO] == 10:  # every trick played out (no lay-down)
        assert r.outcome.seven_seat == seven
        assert r.outcome.seven_won == (seven >= 0 and int(fin[S.TWIN + 9]) == seven)
        if sevens is not None:
            sevens[seven >= 0] += 1
    return want


VOLENY_RULES = {
    "default": make_rules(),
    "queen_first": make_rules(marriage_order="queen_first"),
    "order_free": make_rules(hundred_counting="order_free"),
}


@pytest.mark.parametrize("name", sorted(VOLENY_RULES))
def test_voleny_endgames_equal_minimax(name):
    """R§6 legality, R§7 marriages, R§9 amounts: volený suit games, betl and durch with 1
    to 4 tricks left, some mid-trick, equal the reference; so do the solver's options.  The
    outcome of a line played out names who played the trump seven to the last trick (R§9's
    seven) and whether it won, as the line plays it."""
    rules = VOLENY_RULES[name]
    rv = rules.vector()
    play0 = _play0(rv)
    rng = np.random.default_rng(82)
    seen = {S.C_SUIT: 0, S.C_BETL: 0, S.C_DURCH: 0}
    sevens = [0, 0]
    for i in range(14):
        con = (S.C_SUIT, S.C_SUIT, S.C_SUIT, S.C_BETL, S.C_SUIT, S.C_DURCH, S.C_SUIT)[i % 7]
        plays = int(rng.integers(15 if con == S.C_SUIT else 9, 29))
        try:
            st = random_position(int(rng.integers(1 << 40)), rules=rv, plays=plays,
                                 contract=con, max_attempts=60)
        except RuntimeError:
            continue
        v = _check_solve(st, rv, play0, sevens, tt_bits=6 if i % 2 else 17)
        for kw in ({"bounds": False}, {"laydown": False}, {"history": True}):
            assert solve(st, rv, pv=False, **kw).value == v, kw
        seen[con] += 1
    assert seen[S.C_SUIT] >= 6 and seen[S.C_BETL] >= 1, seen
    assert min(sevens) >= 1, sevens  # the outcome's seven read both ways


LICIT_RULES = [make_rules(rules="licitovany"), make_rules(rules="licitovany", payment_cap=None)]


@pytest.mark.parametrize("game", range(1, 13))
def test_licitovany_endgames_equal_minimax(game):
    """L§7 legality (reserved sevens), L§8 outcomes (two sevens, silent seven, hundreds),
    L§9 amounts and the cap: two endgames of each game, 3 tricks and 2 2/3 left."""
    for k in range(2):
        rules = LICIT_RULES[k]
        rv = rules.vector()
        plays = (12 + 3 * k) if game in (G_BETL, G_DURCH) else 21 + k
        st = random_licit_position(8200 + 13 * game + k, game=game, plays=plays, rules=rules)
        _check_solve(st, rv, _play0(rv), tt_bits=6 if k else 17)


# Deeper endgames (4 to 8 tricks left: the table and the bound cache at work), too slow for
# the reference as plain Python: (game "v" volený / "l" licitovaný, rules or game id, seed,
# cards played, contract or game id, each legal card's value found by ``reference`` when
# recorded, the principal variation of the solver as it stood then).  The values must
# hold; the line pins the solver's choice among equal cards (move ordering).
DEEP = [
    ('v', 'default', 1, 15, 1, {0: -2, 19: -2, 21: -2, 27: -2, 28: -2},
     [101, 99, 100, 109, 111, 97, 103, 112, 104, 88, 90, 82, 93, 91, 110]),
    ('v', 'default', 2, 12, 1, {2: -4, 8: -4, 21: -4, 25: -4, 28: -4, 30: -4},
     [90, 100, 101, 105, 103, 98, 99, 107, 86, 102, 84, 111, 104, 110, 109, 108, 112, 113]),
    ('v', 'default', 3, 15, 1, {0: 16, 1: 16, 8: 16, 26: 16, 30: 16},
     [112, 111, 98, 108, 106, 91, 82, 84, 85, 95, 90, 94, 92, 83, 87]),
    ('v', 'default', 4, 12, 1, {2: -8, 17: -8, 18: -8, 21: -8, 26: -8, 30: -8},
     [99, 104, 106, 113, 107, 108, 88, 110, 84, 90, 96, 100, 93, 103, 92, 109, 112, 98]),
    ('v', 'queen_first', 7, 15, 1, {9: 80, 10: 80, 11: 80, 28: 80},
     [110, 106, 108, 91, 95, 96, 94, 93, 97, 82, 86, 92, 90, 99, 98]),
    ('v', 'queen_first', 9, 15, 1, {4: 96, 10: 97, 13: 97, 24: 97, 25: 97},
     [86, 85, 83, 87, 90, 92, 106, 112, 109, 93, 95, 94, 97, 107, 96]),
    ('v', 'queen_first', 10, 12, 1, {2: -48, 6: -48, 8: -48, 10: -48, 25: -48, 30: -48},
     [107, 109, 110, 86, 89, 84, 95, 90, 101, 99, 92, 98, 88, 111, 82, 112, 113, 103]),
    ('v', 'queen_first', 12, 12, 1, {7: -74, 10: -74, 14: -74, 25: -74, 29: -74},
     [89, 83, 86, 107, 87, 85, 99, 82, 88, 93, 94, 92, 97, 105, 96, 95, 103, 111]),
    ('v', 'order_free', 7, 15, 1, {9: 16, 10: 16, 11: 16, 28: 16},
     [110, 106, 108, 91, 95, 96, 94, 93, 97, 82, 86, 92, 90, 99, 98]),
    ('v', 'order_free', 9, 15, 1, {4: 80, 10: 81, 13: 81, 24: 81, 25: 81},
     [86, 85, 83, 87, 90, 92, 106, 112, 109, 93, 95, 94, 97, 107, 96]),
    ('v', 'order_free', 10, 12, 1, {2: -64, 6: -64, 8: -64, 10: -64, 25: -64, 30: -64},
     [107, 109, 110, 86, 89, 84, 95, 90, 101, 99, 92, 98, 88, 111, 82, 112, 113, 103]),
    ('v', 'order_free', 12, 12, 1, {7: -266, 10: -266, 14: -266, 25: -266, 29: -266},
     [89, 83, 86, 107, 87, 85, 99, 82, 88, 93, 94, 92, 97, 105, 96, 95, 103, 111]),
    ('v', 'default', 0, 12, 2, {0: -5, 16: -5, 20: -5, 22: -5, 30: -5, 31: -5},
     [82, 83, 85, 107, 112, 108, 104, 100, 103, 98, 101, 99]),
    ('v', 'default', 3, 12, 2, {4: -40, 5: -40, 12: -40, 24: -40, 28: -40, 29: -40},
     [106, 112, 107]),
    ('v', 'default', 0, 6, 3,
     {4: -20, 8: -20, 9: -20, 10: -20, 14: -20, 20: -20, 28: -20, 29: -20},
     [96, 103, 94, 90, 112, 104, 110, 105, 107, 111, 88, 108, 102, 98, 99, 91, 84, 82, 92, 100,
      85, 86, 101, 89]),
    ('v', 'default', 11, 9, 2, {8: -10, 10: -10, 15: -10, 16: -10, 18: -10, 27: -10, 31: -10},
     [90, 83, 91]),  # a defender under the actor's trick ducks, the other shape forced
    ('v', 'default', 2, 15, 2, {8: -10, 11: -10, 12: -10, 25: -10, 28: -10},
     [107, 109, 108]),  # a defender's lead that forces the actor first
    ('v', 'default', 1, 6, 3,
     {4: -160, 8: -160, 10: -160, 11: -160, 18: -160, 22: -160, 24: -160, 25: -160},
     [90, 95, 101]),
    ('l', 1, 8300, 15, 1, {1: -8, 8: -8, 10: -8, 13: -8, 17: -8},
     [112, 123, 128, 127, 129, 121, 122, 108, 105, 125, 107, 114, 130, 111, 117]),
    ('l', 2, 8300, 15, 2, {2: -66, 5: -66, 7: -66, 25: -66, 29: -66},
     [111, 105, 108, 106, 115, 104, 109, 112, 125, 129, 116, 134, 127, 133, 117]),
    ('l', 3, 8300, 15, 3, {18: -44, 19: -44, 21: -44, 22: -44, 26: -44},
     [123, 128, 121, 125, 106, 114, 122, 108, 116, 130, 133, 117, 111, 110, 126]),
    ('l', 4, 8300, 15, 4, {1: -54, 8: -54, 10: -54, 13: -54, 17: -54},
     [112, 123, 128, 127, 129, 121, 122, 108, 105, 125, 107, 114, 130, 111, 117]),
    ('l', 5, 8301, 15, 5, {8: -98, 10: -98, 11: -98, 27: -96, 30: -112},
     [131, 129, 132, 134, 104, 105, 113, 114, 118, 119, 117, 112, 108, 120, 115]),
    ('l', 6, 8300, 15, 6, {3: -120, 5: -120, 16: -120, 24: -120, 25: -120},
     [107, 121, 122, 128, 114, 125, 129, 116, 126, 120, 124, 123, 127, 109, 117]),
    ('l', 7, 8300, 12, 7, {31: -15}, [135, 134]),
    ('l', 8, 8300, 12, 8, {4: -60, 6: -60, 7: -60}, [108, 120]),
    ('l', 9, 8300, 15, 9, {18: -160, 21: -160, 22: -160, 26: -160, 30: -160},
     [125, 108, 124, 122, 118, 115, 126, 107, 114, 130, 128, 116, 134, 111, 117]),
    ('l', 10, 8300, 15, 10, {0: -168, 22: -168, 26: -168, 28: -168, 30: -168},
     [126, 106, 112, 104, 109, 110, 135, 130, 131, 105, 132, 107, 128, 114, 134]),
    ('l', 11, 8300, 15, 11, {6: -240, 10: -240, 19: -240},
     [123, 122, 124, 110, 106, 130, 114, 115, 132, 128, 134, 104, 120, 129, 125]),
    ('l', 12, 8300, 15, 12, {5: -500, 9: -500, 19: -500},
     [123, 122, 121, 113, 112, 107, 124, 120, 111, 106, 130, 109, 104, 135, 134])
]


@pytest.mark.parametrize("row", DEEP, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}-{r[3]}")
def test_deeper_endgames_keep_the_recorded_values(row):
    """R§6–§9, L§7–§9: every legal card's value as the reference found it; a small table
    (entries overwritten) gives the same value; the principal variation as recorded."""
    kind, name, seed, plays, con, moves, pv = row
    if kind == "v":
        rv = VOLENY_RULES[name].vector()
        st = random_position(seed, rules=rv, plays=plays, contract=con, max_attempts=200)
    else:
        rules = make_rules(rules="licitovany")
        rv = rules.vector()
        st = random_licit_position(seed, game=name, plays=plays, rules=rules)
    play0 = _play0(rv)
    r = solve(st, rv, all_moves=True)
    assert r.move_values == {play0 + c: v for c, v in moves.items()}
    assert r.pv == pv
    assert solve(st, rv, pv=False, tt_bits=5).value == r.value


def test_plain_minimax_gives_up_past_its_budget():
    """The tests' plain minimax (``brute_force_value``) raises past ``max_nodes`` moves
    instead of answering a value it did not finish; within them it counts its moves."""
    from mariash_env.search.solver import brute_force_value

    rv = VOLENY_RULES["default"].vector()
    st = random_position(82, rules=rv, plays=24, contract=S.C_SUIT, max_attempts=60)
    v, moves = brute_force_value(st, rv)
    assert v == _exact(st, rv, _play0(rv)) and moves > 3
    with pytest.raises(RuntimeError, match="gave up after 3 moves"):
        brute_force_value(st, rv, max_nodes=3)


# --- lízaný -------------------------------------------------------------------------------


@pytest.mark.parametrize("tricks", [8, 11, 13])
def test_lizany_endgames_equal_minimax(tricks):
    """Lízaný's solver (every card's value, the best card, the value) equals the reference:
    open endings (the stock gone) and a world with the last stock cards, one small table
    reused across the deals (entries overwritten) and a fresh one."""
    from mariash_env.games.lizany.core import legal_cards, play_card
    from mariash_env.games.lizany.solve import (
        NO_CARD,
        NO_LIMIT,
        new_table,
        solve_best,
        solve_value,
        solve_values,
    )

    shared, stats, out = new_table(3), np.zeros(1, np.int64), np.zeros(32, np.int64)
    for seed in range(4 if tricks > 8 else 2):
        g = lizany_position(820 + seed, tricks, follower=seed % 2 == 1)
        st, root = g.st, g.to_move
        for tt in (shared, new_table(10)):
            legal = int(solve_values(st, out, tt, stats, NO_LIMIT))
            assert legal == int(legal_cards(st))
            vals = {}
            for c in range(32):
                if legal >> c & 1:
                    child = st.copy()
                    play_card(child, c)
                    vals[c] = lizany_minimax(child, root)
                    assert out[c] == vals[c], (seed, c)
                else:
                    assert out[c] == NO_CARD
            best = max(vals.values())
            card, value = solve_best(st, -1, tt, stats, NO_LIMIT)
            assert value == best and vals[card] == best
            first = max(vals)  # the highest legal card first: ties go to it
            card, value = solve_best(st, first, tt, stats, NO_LIMIT)
            assert value == best and (card == first) == (vals[first] == best)
            assert solve_value(st, tt, stats, NO_LIMIT) == best == lizany_minimax(st, root)


def test_lizany_solver_counts_its_solves():
    """The robot's solver keeps what it did: solves, searches stopped by the budget and
    the positions searched, from zero."""
    from mariash_env.games.lizany.solve import Solver

    g = lizany_position(821, 12, follower=False)
    s = Solver()
    assert s.stats == {"solves": 0, "aborted": 0, "nodes": 0}
    v = s.value(g.st, None)
    assert v is not None
    assert s.stats == {"solves": 1, "aborted": 0, "nodes": int(s.count[0])} and s.count[0] > 0


# Two open positions alike in all but who took the tricks: one seat took them all in one,
# the other seat the eighth (two sevens and nines, no points) in the other.  The same hands
# (the takers' Ah Th Ab Tb, the other's Al Tl Aa Ta), the taker to lead, no points and no
# marriage on either side: the taker takes the last four tricks, a double win only where
# the other seat has no trick.  As dealt player_0 takes them; mirrored (the hands dealt the
# other way round and the first trick's two cards swapped) player_1.
_LZ_HANDS = ["Kl", "Ka", "Jb", "Jl", "Ja", "7h", "Kb", "8b",   # the taker
             "Ql", "Qa", "9l", "Qb", "9a", "8a", "9b", "7b"]   # the other seat
_LZ_STOCK = ["Ah", "Al", "Th", "Tl", "Ab", "Aa", "Tb", "Ta", "Kh", "7l", "Jh", "7a", "9h",
             "8l"]  # then the eighth trick's winner's card and the turned-up card
_LZ_FIRST = ["Kl", "Ql", "Ka", "Qa", "Jb", "9l", "Jl", "Qb", "Ja", "9a", "7h", "8a"]
_LZ_LINES = {
    # the taker takes every trick; the other seat draws the turned-up Qh after the eighth
    "none": (["Qh"] + _LZ_STOCK + ["8h"],
             ["Kb", "9b", "8b", "7b", "Kh", "Qh", "Jh", "7l", "9h", "7a", "8h", "8l"]),
    # the other seat takes the eighth (9b over 8b) and draws first: Qh, the turned-up 8h
    # to the taker, who trumps the other seat's lead back
    "one": (["8h"] + _LZ_STOCK + ["Qh"],
            ["Kb", "7b", "8b", "9b", "7l", "8h", "Kh", "Qh", "Jh", "7a", "9h", "8l"]),
}


def _lz_two_tricks_apart(name: str, mirror: bool) -> np.ndarray:
    from mariash_env.games.lizany.game import LizanyGame

    turned, stock = _LZ_LINES[name][0][0], _LZ_LINES[name][0][1:]
    hands, first = _LZ_HANDS, _LZ_FIRST
    if mirror:  # player_0 leads the first trick: the other seat's Ql under the taker's Kl
        hands, first = hands[8:] + hands[:8], [first[1], first[0]] + first[2:]
    g = LizanyGame(deck=hands + [turned] + stock)
    for card in first + _LZ_LINES[name][1]:
        g.play("play:" + card)
    return g.st.copy()


@pytest.mark.parametrize("mirror", [False, True])
def test_lizany_table_tells_apart_a_loser_with_and_without_a_trick(mirror):
    """Lízaný's reward is doubled when the loser took no trick (docs/games/lizany.md,
    "Points and reward"): two positions with the same hands, lead and point difference,
    one where the loser has no trick (+2 for the seat to move) and one where it has one
    (+1), solved by one solver (one table), in either order, equal the reference.  Found
    by the mutation audit: a key reading "player_0 has two tricks or more" where "player_1
    has a trick" is read shared one entry between them."""
    from mariash_env.cards import mask_of
    from mariash_env.games.lizany.core import (
        HAND,
        MARRIAGES,
        POINTS,
        STOCK_POS,
        STOCK_SIZE,
        TO_MOVE,
        TRICK_NO,
        TRICKS,
    )
    from mariash_env.games.lizany.solve import NO_CARD, Solver

    taker = int(mirror)
    none, one = _lz_two_tricks_apart("none", mirror), _lz_two_tricks_apart("one", mirror)
    for st, tricks in ((none, (12, 0)), (one, (11, 1))):
        assert (st[TRICKS + taker], st[TRICKS + 1 - taker]) == tricks
        assert st[TRICK_NO] == 12 and st[TO_MOVE] == taker and st[STOCK_POS] == STOCK_SIZE
        assert (int(st[HAND + taker]) & 0xFFFFFFFF, int(st[HAND + 1 - taker]) & 0xFFFFFFFF) == (
            mask_of(["Ah", "Th", "Ab", "Tb"]), mask_of(["Al", "Tl", "Aa", "Ta"]))
        assert st[POINTS:POINTS + 2].tolist() == [0, 0]
        assert st[MARRIAGES:MARRIAGES + 2].tolist() == [0, 0]
    want = {id(none): 2, id(one): 1}
    assert [lizany_minimax(st, taker) for st in (none, one)] == [2, 1]
    for order in ((none, one), (one, none)):
        s = Solver()
        for st in order:
            assert s.value(st, None) == want[id(st)]
            values = s.card_values(st, None)
            assert values is not None
            assert set(values.tolist()) == {NO_CARD, want[id(st)]}  # each card as good


# Two open positions alike in all but the trump suit: player_0 took all twelve tricks (with
# no points, no marriage) and holds Ah Th Al Tl, player_1 Ab Tb Aa Ta.  With hearts trumps
# player_0 takes the last four tricks too (+2); with kule player_1 trumps its leads (-1).
# The two decks differ in two cards: the turned-up card (Qh or Tb) and the stock card
# player_1 draws in its place.
_LZ_TRUMP_HANDS = ["Kb", "Ka", "Jb", "8b", "Ja", "8a", "8h", "8l",   # player_0
                   "Qb", "Qa", "9b", "7b", "9a", "7a", "7h", "7l"]   # player_1
_LZ_TRUMP_LINE = ["Kb", "Qb", "Ka", "Qa", "Jb", "9b", "8b", "7b", "Ja", "9a", "8a", "7a",
                  "8h", "7h", "8l", "7l",  # the stock tricks, same-suit pairs
                  "Kl", "Ql", "Jl", "9l", "Kh", "Qh", "Jh", "9h"]  # player_1 must follow


def _lz_trumps(turned: str, other: str) -> np.ndarray:
    from mariash_env.games.lizany.game import LizanyGame

    stock = ["Ah", "Ab", "Th", "Aa", "Al", "Ta", "Tl", "Ql", "Kl", "9l", "Jl", "9h", "Kh",
             other, "Jh"]
    g = LizanyGame(deck=_LZ_TRUMP_HANDS + [turned] + stock)
    for card in _LZ_TRUMP_LINE:
        g.play("play:" + card)
    return g.st.copy()


def test_lizany_table_tells_the_trump_suits_apart():
    """Lízaný's trumps (docs/games/lizany.md: the turned-up card names them; once the
    stock is gone a seat void in the led suit must trump): two positions alike but for
    hearts or kule trumps, solved by one solver (one table), in either order, equal the
    reference.  Found by the mutation audit: keys whose trump suit lost a bit, or
    overlapped the stock's position, went unnoticed."""
    from mariash_env.cards import card_index, mask_of
    from mariash_env.games.lizany.core import (
        HAND,
        MARRIAGES,
        POINTS,
        STOCK_POS,
        STOCK_SIZE,
        TO_MOVE,
        TRICK_NO,
        TRICKS,
        TRUMP_CARD,
    )
    from mariash_env.games.lizany.solve import Solver

    hearts, kule = _lz_trumps("Qh", "Tb"), _lz_trumps("Tb", "Qh")
    assert (hearts[TRUMP_CARD], kule[TRUMP_CARD]) == (card_index("Qh"), card_index("Tb"))
    for st in (hearts, kule):
        assert st[TRICKS:TRICKS + 2].tolist() == [12, 0]
        assert st[TRICK_NO] == 12 and st[TO_MOVE] == 0 and st[STOCK_POS] == STOCK_SIZE
        assert (int(st[HAND]) & 0xFFFFFFFF, int(st[HAND + 1]) & 0xFFFFFFFF) == (
            mask_of(["Ah", "Th", "Al", "Tl"]), mask_of(["Ab", "Tb", "Aa", "Ta"]))
        assert st[POINTS:POINTS + 2].tolist() == [0, 0]
        assert st[MARRIAGES:MARRIAGES + 2].tolist() == [0, 0]
    want = {id(hearts): 2, id(kule): -1}
    assert [lizany_minimax(st, 0) for st in (hearts, kule)] == [2, -1]
    for order in ((hearts, kule), (kule, hearts)):
        s = Solver()
        for st in order:
            assert s.value(st, None) == want[id(st)]
            values = s.card_values(st, None)
            assert values is not None and max(values) == want[id(st)]


# Three open positions alike but for the marriages: player_1 took the twelfth trick and
# leads, player_0 holds Ah Th Tb Tl, player_1 Ab Al Aa Ta, hearts trumps, no card points
# taken.  player_0's 20 in zelené (Kl with Ql in hand, or Ql drawn after Kl went) and
# player_1's 20 in žaludy (Ka with Qa in hand, or Qa drawn after) tip a 40 to 50 ending.
_LZ_MARRIAGE_LINE = ["Kl", "7a", "Ql", "8a", "Kb", "Qb", "Jb", "9a", "8b", "Ja", "Jl", "Ka",
                     "Kh", "Qh", "9l", "Qa",  # player_0 takes the stock tricks
                     "Jh", "7h", "9h", "7l", "8h", "8l", "7b", "9b"]  # player_1 the last


def _lz_marriages(first: bool, second: bool) -> np.ndarray:
    """player_0 announced its 20 (``first``), player_1 its 20 (``second``)."""
    from mariash_env.games.lizany.game import LizanyGame

    p0 = ["Kl", "Ql" if first else "Tb", "Kh", "Kb", "Jb", "8b", "Jl", "9l"]
    p1 = ["Ka", "Qa" if second else "Ab", "Qh", "Qb", "7a", "8a", "9a", "Ja"]
    stock = ["Tb" if first else "Ql", "Al", "Ah", "Aa", "Th", "Ta", "Tl", "9b", "Jh", "7l",
             "9h", "Ab" if second else "Qa", "8h", "8l", "7b"]
    g = LizanyGame(deck=p0 + p1 + ["7h"] + stock)
    for card in _LZ_MARRIAGE_LINE:
        g.play("play:" + card)
    return g.st.copy()


def test_lizany_table_tells_the_marriages_apart():
    """Lízaný's marriages count for their player whoever takes the trick
    (docs/games/lizany.md, R§7): three positions with the same hands, lead, tricks and
    card points, with 20 for player_0, for neither, or for both, solved by one solver (one
    table), in every order, equal the reference.  Found by the mutation audit: keys that
    dropped a seat's marriage points went unnoticed."""
    import itertools

    from mariash_env.cards import mask_of
    from mariash_env.games.lizany.core import (
        HAND,
        MARRIAGES,
        POINTS,
        STOCK_POS,
        STOCK_SIZE,
        TO_MOVE,
        TRICK_NO,
        TRICKS,
    )
    from mariash_env.games.lizany.solve import Solver

    sts = {(20, 0): _lz_marriages(True, False), (0, 0): _lz_marriages(False, False),
           (20, 20): _lz_marriages(True, True)}
    for marr, st in sts.items():
        assert tuple(st[MARRIAGES:MARRIAGES + 2]) == marr
        assert st[TRICKS:TRICKS + 2].tolist() == [11, 1]
        assert st[TRICK_NO] == 12 and st[TO_MOVE] == 1 and st[STOCK_POS] == STOCK_SIZE
        assert (int(st[HAND]) & 0xFFFFFFFF, int(st[HAND + 1]) & 0xFFFFFFFF) == (
            mask_of(["Ah", "Th", "Tb", "Tl"]), mask_of(["Ab", "Al", "Aa", "Ta"]))
        assert st[POINTS:POINTS + 2].tolist() == [0, 0]
    want = {(20, 0): -1, (0, 0): 1, (20, 20): 1}  # for player_1, to move
    assert {m: lizany_minimax(st, 1) for m, st in sts.items()} == want
    for order in itertools.permutations(sts):
        s = Solver()
        for m in order:
            assert s.value(sts[m], None) == want[m], order
            values = s.card_values(sts[m], None)
            assert values is not None and max(values) == want[m], order
