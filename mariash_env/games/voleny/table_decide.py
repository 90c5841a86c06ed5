"""The volený table robot's decisions, compiled: one copy of its rules.

:func:`checked_decide` is the action the
:class:`~mariash_env.games.voleny.table_robot.TableRobot` takes from a seat's observation
(float32, its first ``OBS_SIZE`` slots: the four-player observation opens with them) and
action mask (int8), in every phase: the trump card (:func:`trump_choice`), the contract
(:func:`contract_choice`), the discards (:func:`discard_choice`), the answers to *Barva?*
and to a betl (:func:`wants_bad`, :func:`durch_hand`), the announcement
(:func:`announcement`), the flek (:func:`~mariash_env.games.voleny.table_hand.flek_wanted`)
and the card play (:func:`~mariash_env.games.voleny.table_play.choose_card`), the lay-down
whenever it is offered; the observation's check
(:data:`~mariash_env.robots.features.VOLENY_OBS`) first, in the same call.  It reads the
observation as :func:`~mariash_env.robots.features.decode` does (a slot > 0.5 is set; of
a one-hot block the first set slot), so that
:meth:`TableRobot.decide <mariash_env.games.voleny.table_robot.TableRobot.decide>` on the
decoded observation, whose per-phase methods call the same functions, takes the same
action.
"""

from __future__ import annotations

from ...core.jit import njit_generic, njit_inline
from ...core.state import (
    C_BETL,
    C_DURCH,
    C_SUIT,
    PH_ANNOUNCE,
    PH_BARVA,
    PH_BETL_ANSWER,
    PH_CONTRACT,
    PH_DISCARD,
    PH_FLEK,
    PH_PLAY,
    PH_TRUMP,
)
from ...core.tricks import popcount, strength
from ...robots.features import VOLENY_OBS, betl_risk_jit, durch_hole_suits_jit
from ...robots.legal import first_legal
from . import actions as A
from . import observe as O
from .table_discards import best_pair, discard_cost
from .table_hand import STO_MIN_ESTIMATE, estimate_points, flek_wanted, suit_score, trumps_in
from .table_play import bits32, choose_card, decode_voleny, first_set

# --- tunable thresholds (documented where used) ------------------------------------------
TRUMP_MIN_GAP = 10  # strongest minus weakest suit score needed to choose a suit
BETL_MAX_RISK = 2  # a betl is played with at most this many holes after the first lead
DURCH_MAX_HOLED = 0  # a durch only with no holed suit

# What :func:`checked_decide` answers besides an action (>= 0).
NO_LEGAL = -1  # the mask has no legal action
NO_CARD = -3  # the card play's view has no legal card
FELL_BACK = 1 << 16  # added to the first legal action where the rules picked an illegal one
REFUSED = -2  # the check refuses the observation or the mask

_check = VOLENY_OBS.compiled  # the compiled check of a canonical observation


@njit_generic
def trump_choice(hand):
    """The trump action of the program's notes
    (:meth:`~mariash_env.games.voleny.table_robot.TableRobot.choose_trump`): the lowest
    card (trump order) of the suit of the highest score (ties: more cards, then the
    earlier suit) when it beats the weakest suit's score by ``TRUMP_MIN_GAP``, else
    ``trump:blind``."""
    best, best_sc, best_n = 0, suit_score(hand, 0), popcount(hand & 0xFF)
    low_sc = best_sc
    for s in range(1, 4):
        sc = suit_score(hand, s)
        n = popcount(hand & (0xFF << (8 * s)))
        if sc > best_sc or (sc == best_sc and n > best_n):
            best, best_sc, best_n = s, sc, n
        low_sc = min(low_sc, sc)
    if best_sc - low_sc < TRUMP_MIN_GAP:
        return A.TRUMP_BLIND
    low = -1
    for c in range(8 * best, 8 * best + 8):  # the first weakest, in card order
        if (hand >> c) & 1 and (low < 0 or strength(c, best) < strength(low, best)):
            low = c
    return A.TRUMP0 + low


@njit_generic
def durch_hand(hand10):
    """A durch-worthy 10-card hand: no holed suit (the program's notes)."""
    return durch_hole_suits_jit(hand10, 0) <= DURCH_MAX_HOLED


@njit_generic
def betl_hand_10(hand10):
    """A betl-worthy 10-card hand: at most ``BETL_MAX_RISK`` holes after the first lead."""
    return betl_risk_jit(hand10, 0) <= BETL_MAX_RISK


@njit_inline
def hand_12(hand12, out, contract):
    """The betl risk (``contract`` C_BETL) or the durch's holed suits (C_DURCH) of a
    12-card hand after its best discards (``out``: cards out of play besides them)."""
    a, b = best_pair(hand12, hand12, contract, -1, out)
    pm = (1 << a) | (1 << b)
    if contract == C_BETL:
        return betl_risk_jit(hand12 & ~pm, out | pm)
    return durch_hole_suits_jit(hand12 & ~pm, out | pm)


@njit_generic
def contract_choice(hand, talon, can_durch, can_betl, can_suit):
    """Durch with no holed suit, else betl with at most ``BETL_MAX_RISK`` holes (best
    discards of the 12 cards), else the suit game; a bad-sayer, who has no suit game,
    takes whichever of betl and durch is closer to safe."""
    dh = hand_12(hand, talon, C_DURCH)
    if dh <= DURCH_MAX_HOLED and can_durch:
        return A.CONTRACT_DURCH
    bh = hand_12(hand, talon, C_BETL)
    if bh <= BETL_MAX_RISK and can_betl:
        return A.CONTRACT_BETL
    if can_suit:
        return A.CONTRACT_SUIT
    return A.CONTRACT_DURCH if dh == 0 or 2 * dh < bh else A.CONTRACT_BETL


@njit_generic
def discard_choice(hand, allowed, ndisc, contract, trump, talon):
    """The discard of the first card (``ndisc`` 0: the first card of the best pair,
    :func:`~mariash_env.games.voleny.table_discards.best_pair`) or the second (the best
    partner of the first, which the observation shows in ``talon``: the cheapest kept
    hand, ties to the lower rank, then the lower card); -1 when ``allowed`` has no such
    card (a mask of another phase: the caller falls back, as for an illegal action)."""
    if ndisc == 0:
        first = best_pair(hand, allowed, contract, trump, talon)[0]
        return A.DISCARD0 + first if first >= 0 else -1
    best, best_k = -1, 0.0
    for c in range(32):
        if (allowed >> c) & 1:
            k = discard_cost(hand & ~(1 << c), (1 << c) | talon, contract, trump)
            if best < 0 or k < best_k or (k == best_k and (c & 7) > (best & 7)):
                best, best_k = c, k
    return A.DISCARD0 + best if best >= 0 else -1


@njit_generic
def wants_bad(hand):
    """Barva? -- *špatná* only with a betl or durch already in the own ten cards."""
    return durch_hand(hand) or betl_hand_10(hand)


@njit_generic
def announcement(hand, trump, can_sedma, can_sto, can_sto_sedma):
    """Sedma with the trump seven and at least four trumps; sto with a marriage and an
    estimated hundred; sto a sedma with both; else hra."""
    sedma = can_sedma and trumps_in(hand, trump) >= 4
    sto = can_sto and estimate_points(hand, trump) >= STO_MIN_ESTIMATE
    if sedma and sto and can_sto_sedma:
        return A.ANNOUNCE_STO_SEDMA
    if sto:
        return A.ANNOUNCE_STO
    if sedma:
        return A.ANNOUNCE_SEDMA
    return A.ANNOUNCE_HRA


@njit_inline
def _bits(obs, off, n):
    m = 0
    for i in range(n):
        if obs[off + i] > 0.5:
            m |= 1 << i
    return m


@njit_inline
def _level(obs, bet):
    """A bet's flek level: the last set slot of its row of ``bet_level``, 0 if none."""
    lv = 0
    for j in range(8):
        if obs[O.O_BET_LEVEL + 8 * bet + j] > 0.5:
            lv = j
    return lv


@njit_generic
def _flek(obs, mask, hand, trump, contract):
    """The first raise or announcement the flek rule wants that the mask allows, else
    ``good``."""
    want = flek_wanted(hand, trump, contract, first_set(obs, O.O_ANNOUNCE, 4) + 1,
                       first_set(obs, O.O_ACTOR, 3), first_set(obs, O.O_FLEK_ROUND, 8) + 1,
                       _bits(obs, O.O_BET_EXISTS, 4), _level(obs, 0), _level(obs, 1),
                       _level(obs, 2), _level(obs, 3), _bits(obs, O.O_RAISABLE, 4))
    for i in range(6):
        if (want >> i) & 1 and mask[A.AGAINST_SEVEN + i]:
            return A.AGAINST_SEVEN + i
    return A.GOOD


@njit_generic
def checked_decide(obs, mask, view, check, numbers, groups):
    """The table robot's action from a volený observation (float32) and action mask
    (int8), after the compiled check of :data:`~mariash_env.robots.features.VOLENY_OBS`
    (unless ``check`` is False; ``numbers, groups``: its tables), in one call; ``view`` is
    a view-array buffer (games/voleny/table_play.py).  Besides an action:
    :data:`REFUSED` for an observation or mask the check refuses (the numpy check then
    names the fault), :data:`NO_LEGAL`, :data:`NO_CARD`, or the first legal action plus
    :data:`FELL_BACK` where the rules picked an illegal one."""
    if check and not _check(obs, numbers, groups, mask):
        return REFUSED
    first, n = first_legal(mask, A.N_ACTIONS)
    if n == 0:
        return NO_LEGAL
    if mask[A.LAY_DOWN]:
        return A.LAY_DOWN
    if n == 1:
        return first
    phase = first_set(obs, O.O_PHASE, 9)
    hand = bits32(obs, O.O_HAND)
    con = first_set(obs, O.O_CONTRACT, 3) + 1
    trump = -1
    if con == C_SUIT or con == 0:
        ts = first_set(obs, O.O_TRUMP_SUIT, 4)
        tc = first_set(obs, O.O_TRUMP_CARD, 32)
        trump = ts if ts >= 0 else (tc >> 3 if tc >= 0 else -1)
    a = first
    if phase == PH_TRUMP:
        a = trump_choice(hand)
    elif phase == PH_CONTRACT:
        a = contract_choice(hand, bits32(obs, O.O_TALON), mask[A.CONTRACT_DURCH] != 0,
                            mask[A.CONTRACT_BETL] != 0, mask[A.CONTRACT_SUIT] != 0)
    elif phase == PH_DISCARD:
        allowed = 0
        for c in range(32):
            if mask[A.DISCARD0 + c]:
                allowed |= 1 << c
        a = discard_choice(hand, allowed, 1 if obs[O.O_NDISC] > 0.5 else 0, con, trump,
                           bits32(obs, O.O_TALON))
    elif phase == PH_BARVA:
        a = A.BAD if wants_bad(hand) else A.GOOD
    elif phase == PH_BETL_ANSWER:
        # Under open contracts a durch is answered too (RULES.md §11.1): only good.
        a = A.CONTRACT_DURCH if mask[A.CONTRACT_DURCH] and durch_hand(hand) else A.GOOD
    elif phase == PH_ANNOUNCE:
        a = announcement(hand, trump, mask[A.ANNOUNCE_SEDMA] != 0, mask[A.ANNOUNCE_STO] != 0,
                         mask[A.ANNOUNCE_STO_SEDMA] != 0)
    elif phase == PH_FLEK:
        a = _flek(obs, mask, hand, trump, con)
    elif phase == PH_PLAY:
        decode_voleny(obs, mask, view)
        c = choose_card(view)
        if c < 0:
            return NO_CARD
        a = A.PLAY0 + c
    if a < 0 or not mask[a]:  # a safety net: never return an illegal action
        return first + FELL_BACK
    return a


__all__ = ["checked_decide", "trump_choice", "contract_choice", "discard_choice",
           "wants_bad", "durch_hand", "betl_hand_10", "hand_12", "announcement",
           "TRUMP_MIN_GAP", "BETL_MAX_RISK", "DURCH_MAX_HOLED"]
