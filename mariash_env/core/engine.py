"""The compiled dispatch: the rules core's entries for every game.

The dispatch is the one place in the compiled code that reads which game the rules
vector names (``rules[R_GAME]``): one entry per operation, each branching on the game
once, used by ``Game``, the environments, ``VectorEnv``, OpenSpiel and the search.

* ``legal_actions(st, rules, mask)`` fills the game's ``int8[n_actions]`` mask for the
  seat to move; ``apply_action(st, rules, a)`` applies one action that the caller has
  checked is legal (both check the buffers' sizes first);
* ``encode_game(st, rules, me, out, omniscient)``: the game's observation of ``me``;
* ``deal_deck(st, deck, dealer, game)`` deals one deal in the game's pattern
  (``games/<game>/deal.py``), ``start_partie``/``start_partie_of`` a partie's first deal
  and ``next_deal``/``advance_partie(st, rules, k)`` the next one;
* ``step_observe(st, rules, a, out, mask)``: the AEC env's decision in one call: check
  ``a``, apply it and observe the next seat to move (``legal_actions``, ``apply_action``
  and ``encode_game``);
* ``advance_observe(st, rules, k, out, mask)``: ``advance_partie`` and the observation of
  the next deal's first player, in one call;
* ``n_actions_of(rules)``: the game's action count; ``deal_decisions(rules)`` a bound on
  a deal's player decisions;
* ``solve_legal``, ``solve_settle_end``, ``solve_ending_fates``, ``solve_set_ending_fate``
  and ``solve_can_claim``: the game's parts of the double-dummy solver
  (``games/<game>/solve.py``), compiled into the search; ``solver_parts(game)`` the
  module itself, for the solver's set-up outside the compiled search;
* ``phase_of_game(rules, ph)``, ``flek_rounds_of(rules)`` and ``phase_check(st, rules)``:
  the game's part of the check of records from outside the engine (:mod:`.validate`;
  ``games/<game>/validate.py``, the codes of :mod:`.semantic`).

The entries take records the engine made (a deal, a step, a restored and checked state):
they check the buffers' sizes, not the record's fields, which they index with.  A record
from anywhere else goes through :func:`mariash_env.core.validate.check_record` first, as
``VectorEnv.restore_states``, ``search.solve`` and the samplers do.

Each game's phase machine is in its package (:mod:`mariash_env.games.voleny.phases`,
:mod:`mariash_env.games.licitovany.phases`; volený's is compiled inline here); both
share the trick functions of :mod:`.play` and :mod:`.flow` and settle their own deals.
Lízaný has a core of its own (:mod:`mariash_env.games.lizany.core`).
"""

from __future__ import annotations

from ..games.licitovany import solve as licit_solve
from ..games.licitovany import validate as licit_validate
from ..games.licitovany.actions import N_ACTIONS as LN_ACTIONS
from ..games.licitovany.deal import deal_licit
from ..games.licitovany.observe import encode_licit
from ..games.licitovany.phases import apply_licit, legal_licit
from ..games.licitovany.phases import deal_decisions as licit_decisions
from ..games.voleny import solve as voleny_solve
from ..games.voleny import validate as voleny_validate
from ..games.voleny.actions import N_ACTIONS
from ..games.voleny.deal import deal_voleny
from ..games.voleny.four import CORE_DEALER, mirror_scores, player_of, start4
from ..games.voleny.observe import encode
from ..games.voleny.observe4 import encode4
from ..games.voleny.phases import apply_voleny, legal_voleny
from ..games.voleny.phases import deal_decisions as voleny_decisions
from ..rules import G_LICIT, R_GAME, R_MAX_FLEK, R_OPEN, R_PLAYERS
from .deal import check_deck, next_deck, reset_partie
from .flow import check_state
from .jit import njit_flags, njit_generic, njit_inline
from .state import (
    CUT,
    DEAL_NO,
    FOREHAND,
    P4_DEALER,
    PARTIE_DONE,
    PH_DONE,
    PHASE,
    PHASE_NAMES,
    TO_MOVE,
)


@njit_generic
def n_actions_of(rules):
    """The action count of the game ``rules`` names (volený 115, licitovaný 136)."""
    return LN_ACTIONS if rules[R_GAME] == G_LICIT else N_ACTIONS


@njit_generic
def deal_decisions(rules):
    """A bound on the player decisions of one deal of the game ``rules`` names, at its
    highest flek level (each game's ``phases.deal_decisions``; OpenSpiel's
    ``max_game_length`` per deal): what a loop that plays a deal forward can take before
    it knows the engine does not move on (``games.base.StuckGameError``)."""
    if rules[R_GAME] == G_LICIT:
        return licit_decisions(rules[R_MAX_FLEK])
    return voleny_decisions(rules[R_MAX_FLEK], rules[R_OPEN] != 0)


@njit_generic
def legal_actions(st, rules, mask):
    """Fill ``mask`` (int8[n_actions] of the game ``rules`` names) with the legal actions
    of the seat to move: the game's phase machine.  Raises ValueError when ``st``,
    ``rules`` or ``mask`` is too small for the game."""
    check_state(st, rules)
    if rules[R_GAME] == G_LICIT:
        legal_licit(st, rules, mask)
    else:
        legal_voleny(st, rules, mask)


@njit_generic
def is_legal(st, rules, a, scratch):
    if a < 0 or a >= scratch.shape[0]:
        return False
    legal_actions(st, rules, scratch)
    return scratch[a] == 1


@njit_generic
def apply_action(st, rules, a):
    """Apply the legal action ``a`` of the seat to move: the game's phase machine.

    Returns 1 when the action ended the deal (it is then settled), else 0.  Raises
    ValueError when ``st`` or ``rules`` is too small or ``a`` outside the action table
    (its legality is the caller's to check: ``legal_actions``).
    """
    check_state(st, rules)
    if rules[R_GAME] == G_LICIT:
        return apply_licit(st, rules, a)
    return apply_voleny(st, rules, a)


# step_observe's answer: -1 = not legal (nothing applied), else these fields.
SO_ENDED = 1  # bit 0: the action ended the deal (it is settled; out and mask unwritten)
SO_MOVER = 1  # bits 1-2: the player who acted
SO_NEXT = 3  # bits 3-4: the player to move next (when the deal goes on)
SO_PHASE = 5  # bits 5-8: the phase now
SO_DEAL = 9  # bits 9..: the deal of the partie (DEAL_NO)
# A phase added past these 4 bits would spill into the deal's field unnoticed.
assert len(PHASE_NAMES) <= 1 << (SO_DEAL - SO_PHASE), "step_observe's phase field is full"


@njit_generic
def step_observe(st, rules, a, out, mask):
    """The AEC env's decision in one compiled call (each call's argument unboxing costs
    more than the rules): if ``a`` is legal for the seat to move, apply it and, unless
    that ended the deal, write the observation and the legal actions of the player to
    move next into ``out`` and ``mask`` (``encode_game`` and ``legal_actions``, as the
    game's ``observe_into`` writes them).  Returns -1 when ``a`` is not legal (nothing
    applied; ``mask`` scratch), else the fields ``SO_*`` packed into one int."""
    check_state(st, rules)
    if a < 0 or a >= mask.shape[0] or st[PHASE] == PH_DONE or st[TO_MOVE] < 0:
        return -1
    legal_actions(st, rules, mask)
    if mask[a] == 0:
        return -1
    four = rules[R_PLAYERS] == 4
    mover = player_of(st, st[TO_MOVE]) if four else st[TO_MOVE]
    if apply_action(st, rules, a):
        return (SO_ENDED | (mover << SO_MOVER) | (st[PHASE] << SO_PHASE)
                | (st[DEAL_NO] << SO_DEAL))
    nxt = player_of(st, st[TO_MOVE]) if four else st[TO_MOVE]
    encode_game(st, rules, nxt, out, False)
    legal_actions(st, rules, mask)
    return ((mover << SO_MOVER) | (nxt << SO_NEXT) | (st[PHASE] << SO_PHASE)
            | (st[DEAL_NO] << SO_DEAL))


@njit_generic
def deal_deck(st, deck, dealer, game=0):
    """Start a deal: ``deck`` (32 card indices from the top) dealt by ``dealer`` in the
    pattern of ``game`` (``rules[R_GAME]``): volený 7-5-5-5-5-5 (RULES.md §2), licitovaný
    5-5-5-2-5-5-5 with the auction next (LICITOVANY.md §2, §4).  ValueError unless
    ``deck`` is a permutation of 0..31 (and ``st`` a whole record)."""
    check_deck(st, deck, dealer, 3)
    if game == G_LICIT:
        deal_licit(st, deck, dealer)
    else:
        deal_voleny(st, deck, dealer)


@njit_generic
def start_partie(st, deck, dealer, game=0, players=3):
    """Reset the partie (scores, deal counter) and deal ``deck`` by ``dealer``; at four
    (RULES.md §11.3) ``dealer`` is a player 0..3 who sits out, the core's dealer seat 2."""
    check_deck(st, deck, dealer, 4 if players == 4 else 3)  # before anything is written
    reset_partie(st)
    start4(st, dealer if players == 4 else 0)
    deal_deck(st, deck, CORE_DEALER if players == 4 else dealer, game)


@njit_generic
def next_deal(st, rules, k, game):
    """Gather, cut (``k`` cards; ``k < 0`` draws 2..30 uniformly) and deal the next deal
    in the pattern of ``game``.  The new dealer is the old forehand.  Returns the cut used
    (0 when shuffled).  At four (§11.3) the deal passes to the left too: the next player
    deals and sits out, and the core seats keep their roles (forehand 0, the dealer's
    role 2)."""
    four = rules[R_PLAYERS] == 4
    new_dealer = CORE_DEALER if four else st[FOREHAND]
    deck, k = next_deck(st, rules, k)
    deal_deck(st, deck, new_dealer, game)
    st[CUT] = k
    if four:
        st[P4_DEALER] = (st[P4_DEALER] + 1) % 4
        mirror_scores(st)
    return k


@njit_generic
def advance_partie(st, rules, k):
    """After a finished deal: deal the next one (cut ``k``, -1 = draw), in the game's
    dealing pattern.  Returns False at the end of the partie."""
    check_state(st, rules)
    if st[PARTIE_DONE]:
        return False
    next_deal(st, rules, k, rules[R_GAME])
    return True


@njit_generic
def advance_observe(st, rules, k, out, mask):
    """``advance_partie(st, rules, k)`` and, when a next deal starts, the observation and
    the legal actions of its player to move in ``out`` and ``mask`` (as ``step_observe``
    writes them).  Returns -1 at the end of the partie, else ``step_observe``'s fields of
    the new deal (``SO_ENDED`` set, nothing written, if no player is to move)."""
    if not advance_partie(st, rules, k):
        return -1
    code = (st[PHASE] << SO_PHASE) | (st[DEAL_NO] << SO_DEAL)
    if st[TO_MOVE] < 0:
        return code | SO_ENDED
    nxt = player_of(st, st[TO_MOVE]) if rules[R_PLAYERS] == 4 else st[TO_MOVE]
    encode_game(st, rules, nxt, out, False)
    legal_actions(st, rules, mask)
    return code | (nxt << SO_NEXT)


@njit_generic
def start_partie_of(st, deck, dealer, rules):
    """A new partie's first deal of ``deck`` (``dealer`` deals) for the game and seat
    count ``rules`` names (``start_partie``)."""
    start_partie(st, deck, dealer, rules[R_GAME], rules[R_PLAYERS])


@njit_flags
def encode_game(st, rules, me, out, omniscient):
    """The observation of seat ``me`` into ``out`` in the layout of the game ``rules``
    names: volený's ``encode`` (at four players, ``rules[R_PLAYERS]``, ``encode4`` of
    player ``me``) or licitovaný's ``encode_licit``."""
    if rules[R_GAME] == G_LICIT:
        encode_licit(st, me, out, omniscient)
    elif rules[R_PLAYERS] == 4:
        encode4(st, me, out, omniscient)
    else:
        encode(st, me, out, omniscient)


@njit_generic
def phase_of_game(rules, ph):
    """Is ``ph`` a phase of the game ``rules`` names?"""
    if rules[R_GAME] == G_LICIT:
        return licit_validate.phase_known(ph)
    return voleny_validate.phase_known(ph)


@njit_generic
def flek_rounds_of(rules):
    """The most flek rounds (licitovaný: turns) the rules' ``max_flek`` allows."""
    if rules[R_GAME] == G_LICIT:
        return licit_validate.flek_rounds_max(rules[R_MAX_FLEK])
    return voleny_validate.flek_rounds_max(rules[R_MAX_FLEK])


@njit_generic
def phase_check(st, rules):
    """0, or the :mod:`.semantic` code of the first thing the game's phase of ``st``
    lacks (a deal in progress whose generic fields passed)."""
    if rules[R_GAME] == G_LICIT:
        return licit_validate.phase_code(st, rules)
    return voleny_validate.phase_code(st, rules)


# --- the double-dummy solver's parts (search/solver.py), inlined into its search --------


@njit_inline
def solve_legal(st, seat, game):
    """The seat's legal cards by the game's rules."""
    if game == G_LICIT:
        return licit_solve.legal(st, seat)
    return voleny_solve.legal(st, seat)


@njit_inline
def solve_settle_end(sc, rules, game):
    """Settle the ending in ``sc`` (its ``PAY`` lines) by the game's settlement."""
    if game == G_LICIT:
        licit_solve.settle_end(sc, rules)
    else:
        voleny_solve.settle_end(sc, rules)


@njit_inline
def solve_ending_fates(st, game, actor, trump, g0, g1):
    """How many endings the game tells apart at this trick start beyond the trump seven's
    and the marriages' (0: none, else 1..3)."""
    if game == G_LICIT:
        return licit_solve.ending_fates(st, actor, trump, g0, g1)
    return voleny_solve.ending_fates(st, actor, trump, g0, g1)


@njit_inline
def solve_set_ending_fate(sc, game, actor, trump, g0, g1, i):
    """Write the game's ending ``i`` (of ``solve_ending_fates``) into the ending ``sc``."""
    if game == G_LICIT:
        licit_solve.set_ending_fate(sc, actor, trump, g0, g1, i)
    else:
        voleny_solve.set_ending_fate(sc, actor, trump, g0, g1, i)


@njit_inline
def solve_can_claim(st, rules, game):
    """May the seat to move claim the rest of the deal (volený's lay-down, R§8)?"""
    if game == G_LICIT:
        return False  # licitovaný has no lay-down action
    return voleny_solve.can_claim(st, rules, st[TO_MOVE])


def solver_parts(game: int):
    """The module of the game's solver parts (``games/<game>/solve.py``)."""
    return licit_solve if game == G_LICIT else voleny_solve
