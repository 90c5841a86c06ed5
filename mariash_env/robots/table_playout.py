"""A search's playouts of the card play with the table robot at every seat, compiled.

:func:`play_out` plays a deal's card play on to its end (or to the trick where a solver
takes over) in one compiled call: the engine's legal actions, the game's observation of
the seat to move, its compiled card-play view and the table robot's compiled card
(:mod:`mariash_env.games.voleny.table_play`), applied by the engine -- the moves
:meth:`~mariash_env.robots.pimc._Rollout.table_action` makes one Python call at a time.
"""

from __future__ import annotations

from ..core.engine import apply_action, encode_game, legal_actions
from ..core.jit import njit
from ..core.state import PH_PLAY, PHASE, TO_MOVE, TRICK_NO
from ..games.licitovany.actions import PLAY0 as LPLAY0
from ..games.licitovany.table_play import decode_licit
from ..games.voleny.actions import PLAY0
from ..games.voleny.table_play import choose_card, decode_voleny
from ..rules import G_LICIT, R_GAME


@njit
def play_out(w, rules, obs, mask, view, stop_trick, claim):
    """Play world ``w`` (in place) with the table robot at every seat while it is in the
    card play before trick ``stop_trick``.  ``obs``, ``mask`` and ``view`` are the
    game's observation, action mask and view-array buffers; ``claim`` the game's claim
    actions (volený's lay-down), taken whenever legal, as a single legal action is."""
    licit = rules[R_GAME] == G_LICIT
    play0 = LPLAY0 if licit else PLAY0
    while w[PHASE] == PH_PLAY and w[TRICK_NO] < stop_trick:
        mask[:] = 0
        legal_actions(w, rules, mask)
        a = -1
        for i in range(claim.shape[0]):
            if mask[claim[i]]:
                a = claim[i]
                break
        if a < 0:
            n = 0
            first = -1
            for i in range(mask.shape[0]):
                if mask[i]:
                    n += 1
                    if first < 0:
                        first = i
            a = first
            if n > 1:
                encode_game(w, rules, w[TO_MOVE], obs, False)
                if licit:
                    decode_licit(obs, mask, view)
                else:
                    decode_voleny(obs, mask, view)
                c = choose_card(view)
                if c >= 0 and mask[play0 + c]:  # the robots' safety net: never illegal
                    a = play0 + c
        apply_action(w, rules, a)
