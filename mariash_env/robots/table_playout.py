"""A search's playouts with the table robot at every seat, compiled.

Each game's playout (its ``GameKind.table_playout``) plays a deal on in one compiled call:
the engine's legal actions, the game's observation of the seat to move and the table
robot's compiled decision, applied by the engine -- the moves
:meth:`~mariash_env.robots.playouts._Rollout.table_action` makes one Python call at a time.
:func:`play_out_licit` plays licitovaný's every phase
(:mod:`mariash_env.games.licitovany.table_decide`), :func:`play_out_cards` volený's card
play (:mod:`mariash_env.games.voleny.table_play`).  Both stop at the card play's trick
``stop_trick`` (where a solver takes over) and return how many actions they applied.
"""

from __future__ import annotations

from ..core.engine import apply_action, deal_decisions, encode_game, legal_actions
from ..core.jit import njit
from ..core.state import PH_DONE, PH_PLAY, PHASE, TO_MOVE, TRICK_NO
from ..games.base import StuckGameError
from ..games.licitovany.table_decide import decide
from ..games.voleny.actions import PLAY0
from ..games.voleny.observe import encode as encode_voleny
from ..games.voleny.table_play import choose_card, decode_voleny
from .legal import first_legal


@njit
def _forced(w, rules, mask, claim):
    """``(action, legal count)`` of the seat to move: a claim action (volený's lay-down)
    whenever legal, else the first legal action (the robots' own fallback), with the number
    of legal actions (1: no choice, the robot is not asked)."""
    mask[:] = 0
    legal_actions(w, rules, mask)
    for i in range(claim.shape[0]):
        if mask[claim[i]]:
            return claim[i], 1
    return first_legal(mask, mask.shape[0])


@njit
def _stopped(w, stop_trick):
    return w[PHASE] == PH_DONE or (w[PHASE] == PH_PLAY and w[TRICK_NO] >= stop_trick)


@njit
def play_out_licit(w, rules, obs, mask, view, stop_trick, claim):
    """Licitovaný: every phase by the compiled table robot, until the deal ends or the
    card play reaches ``stop_trick``.  StuckGameError past a deal's decisions
    (``deal_decisions``): the engine does not move on."""
    n_applied = 0
    most = deal_decisions(rules)
    while not _stopped(w, stop_trick):
        if n_applied >= most:
            raise StuckGameError("play_out_licit's play-out took more than a deal's "
                                 "decisions (core.engine.deal_decisions), the most the "
                                 "rules let it take: the game does not move on")
        a, n = _forced(w, rules, mask, claim)
        if n > 1:
            encode_game(w, rules, w[TO_MOVE], obs, False)
            a = decide(obs, mask, view)
        apply_action(w, rules, a)
        n_applied += 1
    return n_applied


@njit
def play_out_cards(w, rules, obs, mask, view, stop_trick, claim):
    """Volený: the card play by the table robot's compiled card choice, while in the card
    play and before ``stop_trick``.  The seat's observation is the three-player deal's at
    four players too (``w[TO_MOVE]`` is a seat of the deal; the four-player observation
    opens with it, and it is what the table robot reads there).  StuckGameError past a
    deal's decisions (``deal_decisions``): the engine does not move on."""
    n_applied = 0
    most = deal_decisions(rules)
    while w[PHASE] == PH_PLAY and not _stopped(w, stop_trick):
        if n_applied >= most:
            raise StuckGameError("play_out_cards' play-out took more than a deal's "
                                 "decisions (core.engine.deal_decisions), the most the "
                                 "rules let it take: the game does not move on")
        a, n = _forced(w, rules, mask, claim)
        if n > 1:
            encode_voleny(w, w[TO_MOVE], obs, False)
            decode_voleny(obs, mask, view)
            c = choose_card(view)
            if c >= 0 and mask[PLAY0 + c]:  # the robots' safety net: never illegal
                a = PLAY0 + c
        apply_action(w, rules, a)
        n_applied += 1
    return n_applied
