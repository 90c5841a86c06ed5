"""OpenSpiel's utility range (``min_utility``, ``max_utility``: ``params.utility_range``
over the games' ``deal_bounds``) is the games' own: the settlement pays no more over every
combination of bets, flek levels, points, marriages and sevens that the rules let stand
together (RULES.md §5, §9, §12; LICITOVANY.md §3, §9), and real deals reach it (the
bound counted bets that cannot stand together: 9,480 groše a deal with volený's defaults,
where a deal pays forehand at most 5,248)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from mariash_env.core import state as S
from mariash_env.core.state import get64
from mariash_env.game import Game
from mariash_env.games.licitovany.games import COMPONENTS, HEARTS
from mariash_env.games.licitovany.hidden import deal_bounds as licit_bounds
from mariash_env.games.licitovany.settle import settle_licit
from mariash_env.games.voleny.hidden import deal_bounds as voleny_bounds
from mariash_env.games.voleny.settle import settle
from mariash_env.openspiel.params import utility_bound, utility_range
from mariash_env.rules import make_rules

# --- every combination the rules allow, through the settlement code -----------------------


@njit(cache=False)
def _reset(st, base):
    """``st[:] = base``, whose compiling (numba's shape-mismatch error of a slice
    assignment) cost ~3 s of CPU, more than all the enumerations' runs."""
    for i in range(base.size):
        st[i] = base[i]


@njit(cache=False)
def _marriages(st, code, fa, fd):
    """Suit ``su``'s marriage by base-3 digit of ``code``: 0 none, 1 the actor (seat 0), 2
    a defender (seat 1); ``fa`` / ``fd`` the side's first (its marriage order 0)."""
    na = nd = 0
    for su in range(4):
        d = code // 3 ** su % 3
        st[S.MARR_SEAT + su] = -1 if d == 0 else d - 1
        st[S.MARR_ORD + su] = 0 if su == fa or su == fd else 1 + su
        na += d == 1
        nd += d == 2
    return na, nd


@njit(cache=False)
def _firsts_ok(code, fa, fd):
    """Whether ``fa`` / ``fd`` name a marriage of the actor's / the defence's (-1: none)."""
    for first, who in ((fa, 1), (fd, 2)):
        if first >= 0 and code // 3 ** first % 3 != who:
            return False
        if first < 0:
            for su in range(4):
                if code // 3 ** su % 3 == who:
                    return False
    return True


@njit(cache=False)
def _sevens(st, sv):
    """0: no trump seven at the last trick; 1..4: played there, won or not, by the actor
    or a defender."""
    st[S.SEVEN_TRICK] = -1 if sv == 0 else 9
    st[S.SEVEN_WON] = (sv - 1) & 1
    st[S.SEVEN_SEAT] = (sv - 1) >> 1


@njit(cache=False)
def _voleny_extremes(base, rules, level, open_contracts):
    """The largest and least ``A`` (per defender, actor seat 0) the volený settlement pays:
    suit games (``[0]``, ``[1]``) and betl / durch (``[2]``, ``[3]``).  Suit games: trumps
    hearts or not; each announcement; the seven against only without a seven bet, the
    hundred against only beside no sto (§12); each bet at level 0 or ``level``; the card
    points split 0..90; each suit's marriage the actor's, the defence's or nobody's (a
    sto needs one of the actor, a hundred against one of the defence), each side's first
    any of its own; the last trick's trump seven absent, won or lost by either side; the
    deal played, conceded or a not-played sedma."""
    out = np.array([-(1 << 62), 1 << 62, -(1 << 62), 1 << 62], dtype=np.int64)
    st = base.copy()
    for con in (S.C_BETL, S.C_DURCH):
        for opened in range(2 if open_contracts else 1):
            for lv in (0, level):
                for end in (S.END_PLAYED, S.END_BROKEN):
                    _reset(st, base)
                    st[S.CONTRACT], st[S.OVERCALLS], st[S.END] = con, opened, end
                    st[S.BET_LEVEL + S.B_GAME] = lv
                    settle(st, rules)
                    a = get64(st, S.PAY) // 2
                    out[2], out[3] = max(out[2], a), min(out[3], a)
    for trump in range(2):
        for an in (S.AN_HRA, S.AN_SEDMA, S.AN_STO, S.AN_STO_SEDMA):
            seven = an == S.AN_SEDMA or an == S.AN_STO_SEDMA
            sto = an == S.AN_STO or an == S.AN_STO_SEDMA
            for sa in range(1 if seven else 2):
                for ha in range(1 if sto else 2):
                    for levels in range(8):
                        for ends in range(3):
                            if ends > 0 and (sa or ha or sto or (ends == 2) != (an == S.AN_SEDMA)):
                                continue  # conceded: hra alone; not played: sedma alone
                            for ca in range(0, 100, 10):
                                for code in range(81):
                                    for fa in range(-1, 4):
                                        for fd in range(-1, 4):
                                            if not _firsts_ok(code, fa, fd):
                                                continue
                                            for sv in range(5):
                                                _reset(st, base)
                                                na, nd = _marriages(st, code, fa, fd)
                                                if (sto and na == 0) or (ha and nd == 0):
                                                    continue
                                                _sevens(st, sv)
                                                st[S.CONTRACT] = S.C_SUIT
                                                st[S.TRUMP_CARD] = 8 * trump
                                                st[S.ANNOUNCE] = an
                                                st[S.END] = (S.END_PLAYED, S.END_CONCEDED,
                                                             S.END_SEDMA_VOID)[ends]
                                                st[S.BET_EXISTS + S.B_GAME] = 1
                                                st[S.BET_EXISTS + S.B_SEVEN] = seven
                                                st[S.BET_EXISTS + S.B_SEVEN_AG] = sa
                                                st[S.BET_EXISTS + S.B_HUNDRED_AG] = ha
                                                st[S.BET_LEVEL + S.B_GAME] = level * (levels & 1)
                                                lv7 = level * (levels >> 1 & 1)
                                                st[S.BET_LEVEL + S.B_SEVEN] = lv7
                                                st[S.BET_LEVEL + S.B_SEVEN_AG] = lv7
                                                st[S.BET_LEVEL + S.B_HUNDRED_AG] = (
                                                    level * (levels >> 2))
                                                st[S.PTS], st[S.PTS + 1] = ca, 90 - ca
                                                settle(st, rules)
                                                a = get64(st, S.PAY) // 2
                                                out[0], out[1] = max(out[0], a), min(out[1], a)
    return out


@njit(cache=False)
def _licit_extremes(base, rules, level):
    """The largest and least ``A`` (per defender, actor seat 0) the licitovaný settlement
    pays: each of the twelve games with each component at level 0 or ``level``, the card
    points split 0..90, each suit's marriage the actor's, the defence's or nobody's and
    each side's first any of its own, the trump seven at the last trick absent, won or
    lost by either side, two sevens won or lost; and the unplayed ends."""
    out = np.array([-(1 << 62), 1 << 62], dtype=np.int64)
    st = base.copy()
    for g in range(1, 13):
        trump = 0 if HEARTS[g] else 1
        comp = COMPONENTS[g]
        for end in (S.END_FOLD, S.END_SHOW, S.END_BARE_FLEK, S.END_NO_BID):
            _reset(st, base)
            st[S.LIC_GAME], st[S.END], st[S.TRUMP_CARD] = g, end, 8 * trump
            if end == S.END_NO_BID:
                st[S.ACTOR] = -1
            settle_licit(st, rules)
            a = get64(st, S.PAY) // 2
            out[0], out[1] = max(out[0], a), min(out[1], a)
        for levels in range(16):
            if levels & ~comp:
                continue
            for ca in range(0, 100, 10):
                for code in range(81):
                    for fa in range(-1, 4):
                        for fd in range(-1, 4):
                            if not _firsts_ok(code, fa, fd):
                                continue
                            for sv in range(5):
                                for both in range(2):
                                    _reset(st, base)
                                    _marriages(st, code, fa, fd)
                                    _sevens(st, sv)
                                    st[S.LIC_GAME], st[S.END] = g, S.END_PLAYED
                                    st[S.TRUMP_CARD], st[S.LIC_HELP] = 8 * trump, 2
                                    for k in range(4):
                                        st[S.BET_LEVEL + k] = level * (levels >> k & 1)
                                    st[S.PTS], st[S.PTS + 1] = ca, 90 - ca
                                    # tricks 9 and 10 led and taken by the actor with the
                                    # helping 7 and the trump 7, or by a defender
                                    for t, card in ((8, 8 * 2), (9, 8 * trump)):
                                        st[S.TWIN + t] = 0 if both else 1
                                        st[S.TLEAD + t] = 0
                                        st[S.TRICKS + 3 * t] = card
                                    settle_licit(st, rules)
                                    a = get64(st, S.PAY) // 2
                                    out[0], out[1] = max(out[0], a), min(out[1], a)
    return out


def _base() -> np.ndarray:
    st = S.new_state()
    st[S.ACTOR] = 0
    st[S.TRUMP_CARD] = -1
    return st


@pytest.mark.parametrize("options", [
    {}, {"killed_seven": 3}, {"hundred_counting": "order_free"}, {"tariff": "csm"},
    {"open_contracts": True, "max_flek": 0}, {"players": 4, "max_flek": 2},
])
def test_no_voleny_deal_pays_beyond_the_bounds_and_they_are_the_settlements_extremes(
        options):
    """Over every combination of bets, levels, points, marriages and sevens that the rules
    let stand together, the settlement's largest and least ``A`` are the bounds'
    (``deal_bounds``: forehand wins and loses ``(n-1)A``, the others a contract's
    ``(n-1)A`` or ``A`` as defenders)."""
    rules = make_rules(**options)
    level = rules.max_flek
    suit_hi, suit_lo, con_hi, con_lo = _voleny_extremes(
        _base(), rules.vector(), level, rules.open_contracts)
    n1 = rules.players - 1
    b = voleny_bounds(rules, level)
    assert b.gain[1] == n1 * max(suit_hi, con_hi) and b.loss[1] == n1 * max(-suit_lo, -con_lo)
    assert b.gain[2] == max(n1 * con_hi, -suit_lo) and b.loss[2] == max(n1 * -con_lo, suit_hi)
    if rules.players == 4:  # the dealer sitting out pays and collects with the defence
        assert (b.gain[0], b.loss[0]) == (max(-suit_lo, con_hi), max(suit_hi, -con_lo))


@pytest.mark.parametrize("level", [5, 0])
def test_no_licitovany_deal_pays_beyond_the_bounds(level):
    """The same for licitovaný's twelve games and unplayed deals: the bounds are the
    settlement's extremes, the actor's ``2A`` either way, a defender's ``A`` or a laid
    game's ``2A``."""
    rules = make_rules(rules="licitovany", payment_cap=None, max_flek=level)
    hi, lo = _licit_extremes(_base(), rules.vector(), level)
    assert (hi, lo) == (140 << level, -(220 << level))
    b = licit_bounds(rules, level)
    assert b.gain == (max(2 * hi, -lo),) * 3 and b.loss == (2 * max(-lo, hi),) * 3


# --- real deals reach them -------------------------------------------------------------------


def _voleny_deck(forehand: str, middle: str, dealer: str) -> list[str]:
    """Dealer 0's deck (RULES.md §2): forehand (seat 1) 0-6 and 17-21, middlehand (seat
    2) 7-11 and 22-26, the dealer 12-16 and 27-31."""
    f, m, d = forehand.split(), middle.split(), dealer.split()
    return f[:7] + m[:5] + d[:5] + f[7:] + m[5:] + d[5:]


def _licit_deck(forhond: str, zadak: str, dealer: str, talon: str) -> list[str]:
    """Dealer 0's deck (LICITOVANY.md §2): forhond (seat 1) 0-4 and 17-21, zadák (seat 2)
    5-9 and 22-26, the dealer 10-14 and 27-31, the talon 15-16."""
    f, z, d = forhond.split(), zadak.split(), dealer.split()
    return f[:5] + z[:5] + d[:5] + talon.split() + f[5:] + z[5:] + d[5:]


def _plays(cards: str) -> list[str]:
    return ["play:" + c for c in cards.split()]


_FLEK4 = ["flek:game", "flek:seven", "good", "good"] + [
    "flek:game", "flek:seven", "good"] + ["flek:game", "flek:seven", "good", "good"] + [
    "flek:game", "flek:seven", "good"]  # both bets to boty (4), the actor's round last


# Forehand's largest win: hearts, sedma won, the defence's hundred against lost; forehand
# takes every trick (the defenders void in trumps throw their aces and tens on his trumps),
# 80 of marriages against the defence's acorn one: (64 + 16 + 2) * 2 * 16 per defender.
WIN = (_voleny_deck("Ah Th Kh Qh Jh 7h Kb Qb Kl Ql 7a 8a", "8h Ab Tb Ka Qa 7b 8b 7l 8l 9a",
                    "9h Al Tl Aa Ta 9b Jb 9l Jl Ja"),
       ["trump:Ah", "contract:suit", "discard:7a", "discard:8a", "good", "good",
        "announce:sedma",
        "flek:game", "flek:seven", "against:hundred", "good", "good",
        "flek:game", "flek:seven", "flek:hundred_against", "good",
        "flek:game", "flek:seven", "flek:hundred_against", "good", "good",
        "flek:game", "flek:seven", "flek:hundred_against", "good",
        "flek:hundred_against", "good", "good"]
       + _plays("Ah 8h 9h Th Ab Al Kh Ka Tl Qh Qa Aa Jh Tb Ta Kb 7b 9b Qb 8b Jb Kl 7l 9l "
                "Ql 8l Jl 7h 9a Ja"))
# The same with the seven against (killed at 3 > sedma 2): the defence's trump seven,
# its only trump, falls to forehand's ace.
WIN_AGAINST = (
    _voleny_deck("Ah Th Kh Qh Jh 9h Kb Qb Kl Ql 7a 8a", "7h Ab Tb Ka Qa 7b 8b 7l 8l 9a",
                 "8h Al Tl Aa Ta 9b Jb 9l Jl Ja"),
    ["trump:Ah", "contract:suit", "discard:7a", "discard:8a", "good", "good", "announce:hra",
     "flek:game", "against:seven", "against:hundred", "good", "good",
     "flek:game", "flek:seven_against", "flek:hundred_against", "good",
     "flek:game", "flek:seven_against", "flek:hundred_against", "good", "good",
     "flek:game", "flek:seven_against", "flek:hundred_against", "good",
     "flek:seven_against", "flek:hundred_against", "good", "good"]
    + _plays("Ah 7h 8h Th Ab Al Kh Ka Tl Qh Qa Aa Jh Tb Ta Kb 7b 9b Qb 8b Jb Kl 7l 9l "
             "Ql 8l Jl 9h 9a Ja"))
# Forehand's largest loss: sto a sedma, both at boty, lost with no trick and his one bells
# marriage (counted 20) against the defence's 80 of marriages: (64 + 2) * 2 * 16.
LOSS = (_voleny_deck("7h 8h Kb Qb 7l 8l 9l 7a 8a 9a Jl Ja", "Kh Qh Ah 9h Kl Ql Tb Ab 7b 8b",
                     "Th Jh Tl Al Ka Qa Ta Aa 9b Jb"),
        ["trump:8h", "contract:suit", "discard:Jl", "discard:Ja", "good", "good",
         "announce:sto_sedma"] + _FLEK4
        + _plays("8h 9h Th Jh 7h Qh Kh 9b Qb Ah Jb Kb 7b Tl 7l 8b Al 8l Tb Ta 9l Ab Qa 7a "
                 "Ql Ka 8a Kl Aa 9a"))


def _play(rules, deck, actions) -> list[int]:
    g = Game(rules, records=False)
    g.new_partie(deck=deck, dealer=0)
    for a in actions:
        g.step(a)
    assert g.deal_over
    return g.last_settlement["payments"]


@pytest.mark.parametrize("options,win,loss", [
    ({}, WIN, LOSS), ({"hundred_counting": "order_free"}, WIN, LOSS),
    ({"killed_seven": 3}, WIN_AGAINST, LOSS), ({"players": 4}, WIN, LOSS),
])
def test_voleny_deals_reach_the_range(options, win, loss):
    """A deal pays forehand ``max_utility`` of a one-deal game and one takes
    ``min_utility`` from him: the range is tight (it was ±9,480 with the defaults)."""
    rules = make_rules(deals=1, **options)
    low, high = utility_range(rules)
    won, lost = _play(rules, *win), _play(rules, *loss)
    assert max(won) == won[1] == high and min(lost) == lost[1] == low
    if not options:
        assert (low, high) == (-4224, 5248) and utility_bound(rules) == 5248
    # the other places: the defenders pay the win and take the loss (at four the dealer
    # sitting out too)
    b = voleny_bounds(rules, 4)
    assert (b.gain[1], b.loss[1]) == (won[1], -lost[1])
    assert min(won) == -b.loss[2] == -b.loss[0] and max(lost) == b.gain[2] == b.gain[0]


LICIT_LOSS = (
    _licit_deck("Qh Kh Ah Th Qb Kb Ab Tb 9l Jl", "7h 8h 9h Jh 7b 8b 9b Jb 7l 8l",
                "Ql Kl Tl Al Qa Ka Ta Aa 9a Ja", "7a 8a"),
    ["bid:lepsi_dve_sedmy_sto", "pass", "pass", "game:lepsi_dve_sedmy_sto", "helping:b",
     "discard:7a", "discard:8a"]
    # L fleks both components, R has nothing, the actor res; up to kalhoty (5), L's
    + ["flek:hundred", "flek:two_sevens", "good", "good", "flek:hundred", "flek:two_sevens",
       "good"] * 2
    + ["flek:hundred", "flek:two_sevens", "good", "good", "good", "good"]
    + _plays("Th 8h Tl Qh 9h Ql Kh Jh Kl Ah 7h Al Tb 8b 9a Qb 9b Ta Kb Jb Ja Ab 7b Qa 9l "
             "7l Ka Jl 8l Aa"))
LICIT_WIN = (
    _licit_deck("8h 9h Jh 8b 9b Jb Qb Kb 9a Ja", "7h 7b Ah Th Kh Qh Kl Ql Al Tl",
                "7l 8l 9l Jl Tb Ab Ta Aa Qa Ka", "7a 8a"),
    LICIT_LOSS[1][:-30]
    + _plays("8h Th Tb Qh Ab 9h Kh 7l Jh Ah 8l 8b Tl 9l 9b Ql Jl Jb Kl Ta Qb Al Qa Kb 7b "
             "Ka 9a 7h Aa Ja"))


def test_licitovany_deals_reach_the_range_or_come_within_1_3_of_it():
    """Uncapped at kalhoty: the actor of lepší dvě sedmy a sto, with no trick and no
    marriage, loses ``-min_utility`` = 2 * 220 * 32; the same game won (both sevens, 150
    points) pays him within a factor 1.3 of ``max_utility`` (2 * 140 * 32, which would
    need 190 points beside both sevens).  With the default cap both ends are 2 * 500."""
    rules = make_rules(rules="licitovany", deals=1, payment_cap=None)
    low, high = utility_range(rules)
    lost, won = _play(rules, *LICIT_LOSS), _play(rules, *LICIT_WIN)
    assert lost[2] == low == -2 * 220 * 32 and lost[:2] == [220 * 32] * 2
    assert high == 2 * 140 * 32 and high / 1.3 <= won[2] == 2 * (60 + 48) * 32 < high
    capped = make_rules(rules="licitovany", deals=1)
    assert utility_range(capped) == (-1000, 1000)
    assert _play(capped, *LICIT_LOSS)[2] == -1000


def test_the_openspiel_game_declares_the_range_and_its_deals_reach_it():
    """OpenSpiel's ``GameInfo`` (spiel.h: the bounds of every ``PlayerReturn``, "as tight
    as possible") holds ``utility_range``; the deals above, played as the OpenSpiel game
    (the deck drawn card by card), end at ``max_utility`` and ``min_utility``."""
    pytest.importorskip("pyspiel")
    from mariash_env.cards import card_index
    from mariash_env.openspiel import load_game

    for options in ({}, {"players": 4, "deals": 1}):
        rules = make_rules(**{"deals": 1, **options})
        game = load_game(rules)
        assert (game.min_utility(), game.max_utility()) == utility_range(rules)
        for deck, actions, end in ((*WIN, game.max_utility()), (*LOSS, game.min_utility())):
            s = game.new_initial_state()
            for c in deck:
                s.apply_action(card_index(c))
            for a in actions:
                s.apply_action(game.ctx.kind.action_index(a))
            assert s.is_terminal() and s.returns()[1] == end
