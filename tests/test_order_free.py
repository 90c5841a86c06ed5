"""Order-free hundred counting with multiplicative prices (RULES.md §11.2, the computer
program's rules "Sto neboli Kilo" and "Hra"; issue #15).

Expected amounts are worked out by hand from the rule text in the comments; ``A`` is
the amount per defender (actor +2A, each defender -A).  Trumps are bells (b) unless
said otherwise, so H = 1.
"""

from __future__ import annotations

import numpy as np
import pytest

import mariash_env
from mariash_env import Game
from mariash_env.cards import card_index
from mariash_env.core import state as S
from mariash_env.core.settle import settle
from mariash_env.rules import R_ORDER_FREE, RulesError, make_rules
from mariash_env.search import brute_force_value, random_position, solve
from mariash_env.vector import VectorEnv
from tests.helpers import play, step_cap
from tests.test_rules_variants import CAP_BIDDING, CAP_DECK, CAP_TRICKS

FREE = make_rules(hundred_counting="order_free").vector()
FIRST = make_rules().vector()
H, B, L, A = 0, 1, 2, 3  # suits


def finished(actor_pts: int, defence_pts: int, marriages: list[tuple[int, int]],
             announce: int = S.AN_STO, against: bool = False, trump: int = B) -> np.ndarray:
    """A played suit deal of seat 0 (forehand) with these card points and marriages
    ``(suit, seat)`` in the order played; no seven anywhere."""
    st = S.new_state()
    for off in (S.BET_SEAT, S.MARR_SEAT, S.MARR_ORD):
        st[off:off + 4] = -1
    st[S.SEVEN_TRICK] = -1
    st[S.SEVEN_SEAT] = -1
    st[S.ACTOR] = 0
    st[S.CONTRACT] = S.C_SUIT
    st[S.TRUMP_CARD] = 8 * trump + 4  # the trump J
    st[S.ANNOUNCE] = announce
    st[S.BET_EXISTS + S.B_GAME] = 1
    if against:
        st[S.BET_EXISTS + S.B_HUNDRED_AG] = 1
        st[S.BET_SEAT + S.B_HUNDRED_AG] = 1
    st[S.END] = S.END_PLAYED
    st[S.PTS] = actor_pts
    st[S.PTS + 1] = defence_pts
    for k, (su, seat) in enumerate(marriages):
        st[S.MARR_SEAT + su] = seat
        st[S.MARR_ORD + su] = k
    st[S.NMARR] = len(marriages)
    return st


def amount(st: np.ndarray, rv: np.ndarray) -> int:
    st = st.copy()
    settle(st, rv)
    return int(S.get64(st, S.PAY)) // 2


def test_the_option_is_accepted_and_conflicts_are_named():
    assert make_rules(hundred_counting="order_free").vector()[R_ORDER_FREE] == 1
    with pytest.raises(RulesError, match=r"hundred_counting.*do not apply to.*licitovany"):
        make_rules(rules="licitovany", hundred_counting="order_free")
    with pytest.raises(RulesError, match="hundred_counting"):
        make_rules(hundred_counting="free")
    with pytest.raises(RulesError, match="hundred_counting"):
        VectorEnv(2, rules="licitovany", hundred_counting="order_free")


def test_the_rule_texts_examples():
    # sto made with 120 (90 card points... here 80 + the trump marriage 40): 4 * 2^2 = 16
    assert amount(finished(80, 10, [(B, 0)]), FREE) == 16
    # sto lost, the defence 60 (card points only): 4 * 2^((60 - 40) / 10) = 16
    assert amount(finished(30, 60, [(L, 0)]), FREE) == -16
    # silent hundred with 110 (90 + 20): 2^(1 + 1) = 4
    assert amount(finished(90, 0, [(L, 0)], announce=S.AN_HRA), FREE) == 4
    # ... where §9 gives 4 + 4*2 = 12, 4*5 + 0 = 20 and 2 + 2 = 4.
    assert amount(finished(80, 10, [(B, 0)]), FIRST) == 12
    assert amount(finished(30, 60, [(L, 0)]), FIRST) == -20


def test_the_order_of_marriages_does_not_matter():
    """60 card points, a 20 marriage played before the trump 40: §9 counts the first
    (60 + 20 = 80, lost: 4 * 2 = 8); order-free counts the trump marriage (60 + 40 = 100,
    won, then all marriages: 120, 4 * 2^2 = 16), either order."""
    twenty_first = finished(60, 30, [(L, 0), (B, 0)])
    forty_first = finished(60, 30, [(B, 0), (L, 0)])
    assert amount(twenty_first, FIRST) == -8
    assert amount(forty_first, FIRST) == 4 + 4 * 2  # 100 counted, 120 in all
    assert amount(twenty_first, FREE) == amount(forty_first, FREE) == 16
    # Without the trump marriage: 20 counts, whichever marriage came first.
    # 70 + 20 = 90 < 100: lost, the defence 20 card points -> 4 * 2^0 = 4.
    assert amount(finished(70, 20, [(L, 0), (A, 0)]), FREE) == -4


def test_hundred_against_and_hearts_and_flek():
    """The defence's hundred against, order-free: 50 card points of the defence + its trump
    marriage 40 = 90 < 100 -> lost, priced by the actor's 40 card points + 20 marriage:
    4 * 2^((60 - 40) / 10) = 16, paid to the actor; the actor's hra: 60 vs 90, lost 1.
    Hearts double both, a flek on the hundred against doubles it again."""
    st = finished(40, 50, [(H, 1), (L, 0)], announce=S.AN_HRA, against=True, trump=H)
    # game lost: -1 * 2 = -2; hundred against lost: +16 * 2 = +32
    assert amount(st, FREE) == -2 + 32
    st[S.BET_LEVEL + S.B_HUNDRED_AG] = 1
    assert amount(st, FREE) == -2 + 64
    # won: defence 60 + 40 = 100 with 60 card points; then all marriages (none else):
    # 4 * 2^0 = 4, times H = 8, paid by the actor; and the game: 40 + 20 vs 100, lost.
    st = finished(30, 60, [(H, 1), (L, 0)], announce=S.AN_HRA, against=True, trump=H)
    assert amount(st, FREE) == -2 - 8


def test_a_scripted_deal_where_the_order_matters():
    """The deal of tests/test_rules_variants.py (hearts, forehand seat 2 announced sto):
    on lead with Qh Kh Ql Kl and nothing else out, 50 card points at a lay-down and no
    defence marriage.  §8: the lay-down is withheld, since the first marriage decides
    (hearts first: 90 counted, lost 4; leaves first: 70, lost 12).  Order-free: always 90
    counted, so it is offered, and the lost sto costs 4 * 2^((40 - 40) / 10) = 4, times
    H = 8."""
    g = Game(deals=1)
    g.new_partie(seed=0, deck=CAP_DECK, dealer=1)
    play(g, CAP_BIDDING + ["good", "good"] + CAP_TRICKS)
    assert "lay_down" not in g.legal_labels()
    g = Game(deals=1, hundred_counting="order_free")
    g.new_partie(seed=0, deck=CAP_DECK, dealer=1)
    play(g, CAP_BIDDING + ["good", "good"] + CAP_TRICKS)
    assert "lay_down" in g.legal_labels()
    g.step("lay_down")
    s = g.settlement()
    assert s["points"] == {"actor_cards": 50, "defence_cards": 40, "actor_marriages": 60,
                           "defence_marriages": 0}
    assert s["bets"][0]["worth"] == 4 and s["payments"] == [8, 8, -16]
    rec = g.record()
    assert rec["rules"]["hundred_counting"] == "order_free"
    from mariash_env.records import RecordChecker

    RecordChecker().check(rec)


def _expected_game_worth(st: np.ndarray) -> int | None:
    """§11.2 read independently from the finished record: the game line's worth."""
    actor = int(st[S.ACTOR])
    trump = int(st[S.TRUMP_CARD]) >> 3
    ca = int(st[S.PTS + actor])
    cd = 90 - ca
    ma = sum((40 if su == trump else 20) for su in range(4) if st[S.MARR_SEAT + su] == actor)
    md = sum((40 if su == trump else 20) for su in range(4)
             if st[S.MARR_SEAT + su] >= 0 and st[S.MARR_SEAT + su] != actor)
    mine = [su for su in range(4) if st[S.MARR_SEAT + su] == actor]
    first = 40 if trump in mine else (20 if mine else 0)
    if st[S.ANNOUNCE] in (S.AN_STO, S.AN_STO_SEDMA):
        if ca + first >= 100:
            return 4 * 2 ** ((ca + ma - 100) // 10)
        return 4 * 2 ** (max(0, cd + md - 40) // 10)
    pa, pd = ca + ma, cd + md
    if pa > pd and pa >= 100:
        return 2 ** (1 + (pa - 100) // 10)
    if pd >= pa and pd >= 100 and not st[S.BET_EXISTS + S.B_HUNDRED_AG]:
        return 2 ** (1 + (pd - 100) // 10)
    return 1


def test_random_played_deals_against_the_rule_text():
    """Random play steered into sto: every played suit deal's game line is worth what
    §11.2 says, read from the finished record."""
    rng = np.random.default_rng(3)
    g = Game(deals=1, hundred_counting="order_free", shuffle="every_deal")
    checked = 0
    for i in range(400):
        g.new_partie(seed=i)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            labels = g.legal_labels()
            sto = [x for x in labels if x in ("announce:sto", "announce:sto_sedma")]
            if sto:
                g.step(sto[0])
            elif "contract:suit" in labels:
                g.step("contract:suit")
            elif g.phase_name == "barva":
                g.step("good")
            else:
                g.step(str(rng.choice(labels)))
        st = g.st
        if st[S.CONTRACT] != S.C_SUIT or st[S.END] not in (S.END_PLAYED, S.END_LAID):
            continue
        assert g.settlement()["bets"][0]["worth"] == _expected_game_worth(st), i
        checked += 1
    assert checked > 100


def test_solver_values_order_free_hundreds():
    """The solver's values under the option equal plain minimax on endgames with a hundred
    bet and marriages still to be played (where its scenario bounds matter)."""
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(400):
        st = random_position(int(rng.integers(1 << 40)), rules=FREE,
                             plays=int(rng.integers(18, 24)))
        hundred = st[S.ANNOUNCE] in (S.AN_STO, S.AN_STO_SEDMA) or st[S.BET_EXISTS + S.B_HUNDRED_AG]
        if not hundred:
            continue
        assert solve(st, FREE).value == brute_force_value(st, FREE, prune=True)[0]
        found += 1
        if found == 6:
            break
    assert found >= 3


def test_env_api_and_arena_with_order_free():
    from pettingzoo.test import api_test

    from mariash_env.arena import duplicate_match
    from mariash_env.robots import RandomRobot, TableRobot

    api_test(mariash_env.env(hundred_counting="order_free"), num_cycles=300)
    res = duplicate_match({"table": TableRobot, "random": lambda: RandomRobot(seed=0)},
                          deals=4, seed=2, jobs=1, progress=False, n_boot=100,
                          rules={"hundred_counting": "order_free", "open_contracts": True})
    np.testing.assert_allclose(res.per_deal.sum(axis=1), 0, atol=1e-9)
    venv = VectorEnv(8, seed=0, hundred_counting="order_free")
    assert venv.rules.hundred_counting == "order_free"
    assert card_index("Jb") == 8 * B + 4
