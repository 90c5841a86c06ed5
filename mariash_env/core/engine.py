"""The compiled dispatch: the rules core's entries for every game.

The dispatch is the one place in the compiled code that reads which game the rules
vector names (``rules[R_GAME]``): one entry per operation, each branching on the game
once, used by ``Game``, the environments, ``VectorEnv``, OpenSpiel and the search.

* ``legal_actions(st, rules, mask)`` fills the game's ``int8[n_actions]`` mask for the
  seat to move; ``apply_action(st, rules, a)`` applies one action that the caller has
  checked is legal (both check the buffers' sizes first);
* ``encode_game(st, rules, me, out, omniscient)``: the game's observation of ``me``;
* ``start_partie_of(st, deck, dealer, rules)`` deals a partie's first deal and
  ``advance_partie(st, rules, k)`` the next one, in the game's dealing pattern;
* ``n_actions_of(rules)``: the game's action count;
* ``phase_of_game(rules, ph)``, ``flek_rounds_of(rules)`` and ``phase_check(st, rules)``:
  the game's part of the check of restored states (``games/<game>/validate.py``, the
  codes of :mod:`.semantic`).

Each game's phase machine is in its package (:mod:`mariash_env.games.voleny.phases`,
:mod:`mariash_env.games.licitovany.phases`; volený's is compiled inline here); both
share the trick functions of :mod:`.play` and :mod:`.flow` and settle their own deals.
Lízaný has a core of its own (:mod:`mariash_env.games.lizany.core`).
"""

from __future__ import annotations

from ..games.licitovany import validate as licit_validate
from ..games.licitovany.actions import N_ACTIONS as LN_ACTIONS
from ..games.licitovany.observe import encode_licit
from ..games.licitovany.phases import apply_licit, legal_licit
from ..games.voleny import validate as voleny_validate
from ..games.voleny.actions import N_ACTIONS
from ..games.voleny.observe import encode
from ..games.voleny.observe4 import encode4
from ..games.voleny.phases import apply_voleny, legal_voleny
from ..rules import G_LICIT, R_GAME, R_MAX_FLEK, R_PLAYERS
from .deal import next_deal, start_partie
from .flow import check_state
from .jit import njit
from .state import PARTIE_DONE


@njit
def n_actions_of(rules):
    """The action count of the game ``rules`` names (volený 115, licitovaný 136)."""
    return LN_ACTIONS if rules[R_GAME] == G_LICIT else N_ACTIONS


@njit
def legal_actions(st, rules, mask):
    """Fill ``mask`` (int8[n_actions] of the game ``rules`` names) with the legal actions
    of the seat to move: the game's phase machine.  Raises ValueError when ``st``,
    ``rules`` or ``mask`` is too small for the game."""
    check_state(st, rules)
    if rules[R_GAME] == G_LICIT:
        legal_licit(st, rules, mask)
    else:
        legal_voleny(st, rules, mask)


@njit
def is_legal(st, rules, a, scratch):
    if a < 0 or a >= scratch.shape[0]:
        return False
    legal_actions(st, rules, scratch)
    return scratch[a] == 1


@njit
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


@njit
def advance_partie(st, rules, k):
    """After a finished deal: deal the next one (cut ``k``, -1 = draw), in the game's
    dealing pattern.  Returns False at the end of the partie."""
    check_state(st, rules)
    if st[PARTIE_DONE]:
        return False
    next_deal(st, rules, k, rules[R_GAME])
    return True


@njit
def start_partie_of(st, deck, dealer, rules):
    """A new partie's first deal of ``deck`` (``dealer`` deals) for the game and seat
    count ``rules`` names (``deal.start_partie``)."""
    start_partie(st, deck, dealer, rules[R_GAME], rules[R_PLAYERS])


@njit
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


@njit
def phase_of_game(rules, ph):
    """Is ``ph`` a phase of the game ``rules`` names?"""
    if rules[R_GAME] == G_LICIT:
        return licit_validate.phase_known(ph)
    return voleny_validate.phase_known(ph)


@njit
def flek_rounds_of(rules):
    """The most flek rounds (licitovaný: turns) the rules' ``max_flek`` allows."""
    if rules[R_GAME] == G_LICIT:
        return licit_validate.flek_rounds_max(rules[R_MAX_FLEK])
    return voleny_validate.flek_rounds_max(rules[R_MAX_FLEK])


@njit
def phase_check(st, rules):
    """0, or the :mod:`.semantic` code of the first thing the game's phase of ``st``
    lacks (a deal in progress whose generic fields passed)."""
    if rules[R_GAME] == G_LICIT:
        return licit_validate.phase_code(st, rules)
    return voleny_validate.phase_code(st, rules)
