"""The observation encoder of whichever game the rules vector names: one compiled entry
for the batched kernels, which serve both games (volený :mod:`.observe`, licitovaný
:mod:`.licit_observe`, the four-player :mod:`.observe4`)."""

from __future__ import annotations

from ..games.licitovany.observe import encode_licit
from ..games.voleny.observe import encode
from ..games.voleny.observe4 import encode4
from ..rules import G_LICIT, R_GAME, R_PLAYERS
from .jit import njit


@njit
def encode_game(st, rules, me, out, omniscient):
    """``encode`` or ``encode_licit`` of seat ``me`` into ``out``, by ``rules[R_GAME]``; at
    four (``rules[R_PLAYERS]``) ``encode4`` of player ``me``."""
    if rules[R_GAME] == G_LICIT:
        encode_licit(st, me, out, omniscient)
    elif rules[R_PLAYERS] == 4:
        encode4(st, me, out, omniscient)
    else:
        encode(st, me, out, omniscient)
