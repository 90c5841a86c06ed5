"""The double-dummy solver on licitovaný mariáš (LICITOVANY.md §7–§9, issue #12): exact
values of every contract against a plain exhaustive minimax over the core.

The reference, :func:`brute_force_value`, asks only the engine (``legal_actions`` over
the licitovaný action table, ``apply_action``, the settlement it runs): no pruning, no
table, no equivalent cards, no bounds.  Positions are endgames of 3 to 5 tricks (some
in mid-trick) of random deals announcing each of the twelve games, with random fleks,
under the default cap (50,-), no cap, a small cap and queen-first marriages.
"""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env import licit_actions as LA
from mariash_env.core import state as S
from mariash_env.core.engine import apply_action
from mariash_env.core.licit import licit_cards, reserved_sevens
from mariash_env.core.licit_games import (
    G_BETL,
    G_DURCH,
    G_DVE,
    G_DVE_STO,
    G_LEPSI_DVE,
    G_LEPSI_DVE_STO,
    G_STO,
)
from mariash_env.rules import make_rules
from mariash_env.search import brute_force_value, solve
from mariash_env.search.licit_worlds import random_licit_position


def reference_value(st: np.ndarray, rv: np.ndarray) -> int:
    """The plain minimax: every card the engine's ``legal_actions`` offers, no pruning."""
    return brute_force_value(st, rv)[0]


RULES = [
    make_rules(rules="licitovany"),  # cap 50,- (500 desetníků)
    make_rules(rules="licitovany", payment_cap=None),
    make_rules(rules="licitovany", payment_cap=40),
    make_rules(rules="licitovany", marriage_order="queen_first"),
]


def _positions():
    """(game, rules index, plays, seed) of every test position: each game, each rules
    set, 15..24 cards played (5 to 2 2/3 tricks left); betl and durch, which end at the
    actor's first taken / lost trick, 12..20 cards in."""
    out = []
    for g in range(1, 13):
        for k in range(24):
            plays = (12 + (k * 5 + g) % 9) if g in (G_BETL, G_DURCH) else 15 + (k * 7 + g) % 10
            out.append((g, k % len(RULES), plays, 1000 * g + k))
    return out


POSITIONS = _positions()


@pytest.mark.parametrize("game", range(1, 13))
def test_licit_solver_equals_plain_minimax(game):
    """§7 legality (reserved sevens), §8 outcomes, §9 amounts and the cap: the solver's
    value equals the plain minimax's on 24 endgames of each game (288 in all); the
    principal variation ends in a deal settled at that value."""
    for g, ri, plays, seed in POSITIONS:
        if g != game:
            continue
        rules = RULES[ri]
        rv = rules.vector()
        st = random_licit_position(seed, game=g, plays=plays, rules=rules)
        assert st[S.PHASE] == S.PH_PLAY and st[S.LIC_GAME] == g
        want = reference_value(st, rv)
        r = solve(st, rv)
        assert r.value == want, (g, ri, plays, seed)
        fin = r.outcome.state
        assert fin[S.PHASE] == S.PH_DONE
        assert S.get64(fin, S.PAY + 2 * int(st[S.ACTOR])) == 2 * want
        # play actions of the licitovaný table, legal by §7
        seat = int(st[S.TO_MOVE])
        assert r.action - LA.PLAY0 in range(32)
        assert (int(licit_cards(st, seat)) >> (r.action - LA.PLAY0)) & 1


def test_licit_move_values_are_exact():
    """Every legal card's value (``all_moves``) equals the plain minimax after it, and
    only §7-legal cards are offered: the actor's early reserved sevens are not."""
    rv = RULES[0].vector()
    checked = 0
    early_seen = 0
    for i in range(48):
        g = 1 + i % 12
        plays = 12 + i % 5 if g in (G_BETL, G_DURCH) else 18 + i % 7
        st = random_licit_position(7000 + i, game=g, plays=plays)
        r = solve(st, rv, all_moves=True)
        seat = int(st[S.TO_MOVE])
        legal = int(licit_cards(st, seat))
        assert set(r.move_values) == {LA.PLAY0 + c for c in range(32) if legal >> c & 1}
        if seat == st[S.ACTOR] and reserved_sevens(st) & S.getm(st, S.HAND + seat) & ~legal:
            early_seen += 1
        for a, v in r.move_values.items():
            ch = st.copy()
            if apply_action(ch, rv, a):
                want = int(S.get64(ch, S.PAY + 2 * int(st[S.ACTOR]))) // 2
            else:
                want = reference_value(ch, rv)
            assert v == want, (g, a)
            checked += 1
        assert r.value == max(r.move_values.values()) if seat == st[S.ACTOR] \
            else r.value == min(r.move_values.values())
    assert checked > 100  # the values of all legal cards of 48 positions
    assert early_seen > 0  # some positions had a seven the actor may not play yet


@pytest.mark.parametrize("game", [G_DVE, G_DVE_STO, G_LEPSI_DVE, G_LEPSI_DVE_STO, G_STO])
def test_licit_whole_late_deals_two_sevens_and_silent_seven(game):
    """Two sevens (helping 7 must take trick 9, trump 7 trick 10) and stovka's silent
    seven (either side's trump 7 in trick 10): positions from trick 7 and 8 on."""
    rv = RULES[1].vector()
    for k in range(6):
        st = random_licit_position(9000 + 31 * game + k, game=game, plays=18 + 3 * (k % 2),
                                   rules=RULES[1])
        assert solve(st, rv).value == reference_value(st, rv)


def test_random_licit_position_refuses_an_unknown_game():
    with pytest.raises(ValueError, match="game must be a licitovaný game id 1..12"):
        random_licit_position(1, game=13)


def test_transposition_key_tells_the_helping_seven_apart():
    """The table's shape hash relabels ranks among the cards still in play; the helping 7
    keeps its own class, else a hand holding it (two sevens still open) and one holding
    the 8 after the 7 is gone (lost) would share their entries."""
    from mariash_env.search import solver as SV

    ctx = np.zeros(SV.X_SIZE, dtype=np.int64)
    ctx[SV.X_TRUMP] = 1
    ctx[SV.X_APART] = 1 << 16  # what licitovaný's contract_flags keeps apart: the 7 of suit 2
    st = S.new_state()
    S.setm(st, S.HAND, (1 << 16) | (1 << 18))  # the actor: 7 and 9 of the helping suit
    S.setm(st, S.HAND + 1, (1 << 9) | (1 << 10))
    S.setm(st, S.HAND + 2, (1 << 11) | (1 << 12))
    other = st.copy()
    S.setm(other, S.HAND, (1 << 17) | (1 << 18))  # 8 and 9 instead
    assert SV._shape_hash(st, ctx) != SV._shape_hash(other, ctx)
    ctx[SV.X_APART] = 0  # without a helping suit the two shapes are the same
    assert SV._shape_hash(st, ctx) == SV._shape_hash(other, ctx)


def test_each_game_writes_its_own_solve_flags():
    """The generic search names no game: licitovaný's ``contract_flags`` keeps the helping
    7 of two sevens (§8) apart and never searches a lay-down (§7); volený's lay-down
    action (RULES.md §8) comes from its own package, -1 when not asked."""
    from mariash_env.games.licitovany import solve as licit_solve
    from mariash_env.games.voleny import actions as VA
    from mariash_env.games.voleny import solve as voleny_solve
    from mariash_env.search import random_position

    st = random_licit_position(77, game=G_DVE, plays=0, rules=RULES[0])
    help_suit = int(st[S.LIC_HELP])
    assert help_suit >= 0
    assert licit_solve.contract_flags(st, True) == (0, -1, 1 << (8 * help_suit), 1,
                                                     help_suit)
    assert licit_solve.contract_flags(random_licit_position(77, game=G_BETL, plays=0),
                                      True)[1:] == (-1, 0, 0, -1)
    vst = random_position(5, contract=S.C_SUIT)
    assert voleny_solve.contract_flags(vst, True)[1:] == (VA.LAY_DOWN, 0, 0, 0)
    assert voleny_solve.contract_flags(vst, False)[1] == -1
