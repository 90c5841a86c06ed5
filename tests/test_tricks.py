"""The one card vocabulary (core/tricks.py, RULES.md §1, §6) and its users."""

from __future__ import annotations

import numpy as np

from mariash_env.cards import card_index
from mariash_env.core import tricks as T
from mariash_env.robots import features as F
from mariash_env.search import solver


def test_rank_orders_follow_s1():
    """§1: with trumps 7 8 9 J Q K T A (the ten below the ace), without 7 8 9 T J Q K A."""
    assert "".join("789TJQKA"[r] for r in T.TRUMP_ORDER) == "789JQKTA"
    assert "".join("789TJQKA"[r] for r in T.PLAIN_ORDER) == "789TJQKA"
    for r in range(8):
        assert T.TRUMP_ORDER[T.TRUMP_STRENGTH[r]] == r
        assert T.strength(r, 0) == T.TRUMP_STRENGTH[r] == F.strength(r, 0)
        assert T.strength(r, -1) == r == F.strength(r, -1)


def test_beats_follows_s6():
    """§6: a higher card of the suit wins; a trump beats any other suit; otherwise not."""
    th, ah, kh, tb = (card_index(c) for c in ("Th", "Ah", "Kh", "Tb"))
    assert T.beats(th, kh, 0) and not T.beats(kh, th, 0)  # hearts trumps: T above K
    assert T.beats(kh, th, -1) and not T.beats(th, kh, -1)  # no trumps: K above T
    assert T.beats(ah, th, -1) and T.beats(ah, th, 0)
    assert T.beats(card_index("7h"), tb, 0) and not T.beats(tb, card_index("7h"), 0)
    assert not T.beats(tb, kh, -1) and not T.beats(tb, kh, 2)
    for c in range(32):
        for b in range(32):
            for trump in (-1, 0, 3):
                assert F.beats(c, b, trump) == bool(T.beats(c, b, trump))


def test_bit_helpers_on_random_sets():
    rng = np.random.default_rng(5)
    for m in rng.integers(1, 2**32, size=300):
        m = int(m)
        bits = [c for c in range(32) if (m >> c) & 1]
        assert T.popcount(m) == len(bits) == F.popcount(m)
        assert T.lowest(m) == bits[0] and T.highest(m) == bits[-1]
    assert T.popcount(0) == 0


def test_strongest_and_weakest_are_by_strength_not_by_code():
    """features.strongest/weakest rank cards (trumps first), unlike tricks.highest/lowest."""
    m = sum(1 << card_index(c) for c in ("Th", "Kh", "7b"))
    assert F.strongest(m, 0) == card_index("Th") and F.weakest(m, 0) == card_index("7b")
    assert F.strongest(m, -1) == card_index("Kh") and F.weakest(m, -1) == card_index("7b")
    assert T.highest(m) == card_index("7b") and T.lowest(m) == card_index("Th")


def test_search_uses_the_core_tables():
    """No second copy of the trump order: the solver's names are the core's."""
    assert solver.ORDER_TRUMP is T.TRUMP_ORDER and solver.beats is T.beats


def test_walk_over_the_cards_played():
    """The walk (``cards_played`` / ``played_card``) yields every played card once, in play
    order, by the seat that played it, at its trick and place (``trick_card``)."""
    from mariash_env.core import state as S
    from mariash_env.search import random_position
    from mariash_env.search.worlds import played_by

    for seed in range(40):
        st = random_position(seed, plays=seed % 30)
        seen, by, order = 0, [0, 0, 0], []
        for k in range(T.cards_played(st)):
            t, j, seat, c = T.played_card(st, k)
            assert 0 <= j < T.trick_cards(st, t) and t < T.tricks_begun(st)
            assert (seat, c) == T.trick_card(st, t, j)
            c = int(c)  # a numpy int32 as plain Python (NUMBA_DISABLE_JIT): 1 << 31 fits
            assert not (seen >> c) & 1
            seen |= 1 << c
            by[seat] |= 1 << c
            order.append(c)
        assert seen == S.getm(st, S.PLAYED)
        assert by == [int(x) for x in played_by(st)]
        assert len(order) == 3 * st[S.TRICK_NO] + st[S.TRICK_N]


def test_python_twins_are_the_core_rules():
    """One definition each (issue #11): the robots' and the world sampler's pure-Python
    helpers are core/tricks.py's, and the compiled and Python forms share one rule."""
    from mariash_env.games.voleny import candidates
    from mariash_env.robots import table
    from mariash_env.search import worlds

    assert F.popcount is T.popcount_py and F.strength is T.strength_py
    assert F.beats is T.beats_py and F.winning_index is T.winning_index_py
    # PIMC's trump-choice narrowing is volený's (games/voleny/candidates.py, issue #30)
    assert table.winning_index is T.winning_index_py and candidates.strength is T.strength_py
    assert worlds.popcount_py is T.popcount_py
    # compiled inline, or the rule itself as plain Python (NUMBA_DISABLE_JIT)
    assert getattr(T._beats, "py_func", T._beats) is T._beats_rule
    assert getattr(T._strength, "py_func", T._strength) is T._strength_rule
    for c in range(32):
        for trump in (-1, 0, 3):
            assert T.strength_py(c, trump) == T.strength(c, trump)
            for b in range(32):
                assert T.beats_py(c, b, trump) is bool(T.beats(c, b, trump))


def test_winning_index_py_is_the_trick_winner():
    """§6: the Python trick winner agrees with the core's ``trick_best`` on every open
    trick of random deals (suit games, betl and durch)."""
    from mariash_env.core import state as S
    from mariash_env.search import random_position

    checked = 0
    for seed in range(120):
        st = random_position(seed, plays=seed % 29)
        n = int(st[S.TRICK_N])
        if n == 0:
            continue
        t = int(st[S.TRICK_NO])
        trick = [int(st[S.TRICKS + 3 * t + j]) for j in range(n)]
        assert T.winning_index_py(trick, int(T.trump_suit(st))) == T.trick_best(st, n)
        checked += 1
    assert checked > 40
