"""A search's playouts with the table robot at every seat, compiled.

:func:`play_out` plays a deal on to its end (or to the trick where a solver takes over)
in one compiled call: the engine's legal actions, the game's observation of the seat to
move and the table robot's compiled decision -- licitovaný's in every phase
(:mod:`mariash_env.games.licitovany.table_decide`), volený's in the card play
(:mod:`mariash_env.games.voleny.table_play`) --, applied by the engine: the moves
:meth:`~mariash_env.robots.pimc._Rollout.table_action` makes one Python call at a time.
"""

from __future__ import annotations

from ..core.engine import apply_action, encode_game, legal_actions
from ..core.jit import njit
from ..core.state import PH_DONE, PH_PLAY, PHASE, TO_MOVE, TRICK_NO
from ..games.licitovany.table_decide import decide
from ..games.voleny.actions import PLAY0
from ..games.voleny.table_play import choose_card, decode_voleny
from ..rules import G_LICIT, R_GAME


@njit
def play_out(w, rules, obs, mask, view, stop_trick, claim):
    """Play world ``w`` (in place) with the table robot at every seat -- licitovaný: on to
    the end of the deal, volený: while in the card play -- stopping at the card play's
    trick ``stop_trick``.  ``obs``, ``mask`` and ``view`` are the game's observation,
    action mask and view-array buffers; ``claim`` the game's claim actions (volený's
    lay-down), taken whenever legal, as a single legal action is."""
    licit = rules[R_GAME] == G_LICIT
    while w[PHASE] != PH_DONE and (licit or w[PHASE] == PH_PLAY) and not (
            w[PHASE] == PH_PLAY and w[TRICK_NO] >= stop_trick):
        mask[:] = 0
        legal_actions(w, rules, mask)
        a = -1
        for i in range(claim.shape[0]):
            if mask[claim[i]]:
                a = claim[i]
                break
        if a < 0:
            n = 0
            for i in range(mask.shape[0]):
                if mask[i]:
                    n += 1
                    if a < 0:
                        a = i
            if n > 1:
                encode_game(w, rules, w[TO_MOVE], obs, False)
                if licit:  # the licitovaný robot decides every phase compiled
                    a = decide(obs, mask, view)
                else:
                    decode_voleny(obs, mask, view)
                    c = choose_card(view)
                    if c >= 0 and mask[PLAY0 + c]:  # the robots' safety net: never illegal
                        a = PLAY0 + c
        apply_action(w, rules, a)
