"""The observation at the four-player table (``players=4``, RULES.md §11.3).

The first block is the three-player observation of the deal (:data:`.observe.OBS_LAYOUT`,
byte for byte what a three-player robot reads) from the player's seat in the deal; the
dealer, who sits out, sees the deal from forehand's seat without forehand's private
blocks (``hand``, ``laid``, ``took``, ``talon`` zero, ``trump_card`` only once public), so
never a hidden card.  Then the partie at four: who sits out and the four totals, by
relative player (0 = the observer, 1 = next clockwise, ...), and the deal of 16.  The
state encoding (perfect information) is forehand's, with the three-player state's hidden
blocks at the end.  Bump :data:`OBS4_VERSION` whenever this layout changes.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_flags, njit_generic
from ...core.state import DEAL_NO, P4_DEALER, P4_SCORE, TO_MOVE, TRUMP_CARD, TRUMP_PUBLIC, get64
from .four import player_of, seat_of
from .observe import (
    O_TRUMP_CARD,
    O_TRUMP_SUIT,
    OBS_SIZE,
    STATE_OBS_SIZE,
    _layout,
    check_encode,
    check_layout,
    encode,
    layout_markdown,
)
from .phases import legal_voleny

OBS4_VERSION = 1

_OBS4_BLOCKS: tuple[tuple[str, int, str], ...] = (
    ("deal", OBS_SIZE, "the three-player observation of the deal (OBS_LAYOUT) from this "
     "player's seat; the dealer sitting out sees it from forehand's seat without the "
     "private blocks (hand, laid, took, talon zero; trump_card once public)"),
    ("sitting_out", 4, "[relative player]: the dealer, who sits out this deal (0 = me)"),
    ("score4", 4, "[relative player]: running groše of the partie / 100"),
    ("deal_no4", 16, "deal of the partie (one-hot, 15 = 16th or later)"),
    ("x_deal", STATE_OBS_SIZE - OBS_SIZE, "state only: the hidden blocks of the "
     "three-player state encoding (x_hands .. x_to_move) from forehand's seat"),
)
OBS4_LAYOUT: tuple[tuple[str, int, int, str], ...] = _layout(_OBS4_BLOCKS)
"""``(block, offset, size, meaning)`` of the four-player encodings."""

Q_DEAL = 0
Q_SITTING_OUT = 900
Q_SCORE4 = 904
Q_DEAL_NO4 = 908
Q_X_DEAL = 924
OBS4_SIZE = 924
STATE4_OBS_SIZE = 1055
check_layout(OBS4_LAYOUT, "Q_", "games/voleny/observe4.py",
             ("OBS4_SIZE", "STATE4_OBS_SIZE"), globals())


def layout_table() -> str:
    """The Markdown table of the four-player observation."""
    return layout_markdown(OBS4_LAYOUT)


@njit_flags
def encode4(st, p, out, omniscient):
    """Write player ``p``'s observation (float32[OBS4_SIZE]) into ``out``; with
    ``omniscient`` the state encoding (float32[STATE4_OBS_SIZE]) from forehand's seat;
    ValueError when ``st`` or ``out`` is too small or ``p`` not a player 0..3."""
    check_encode(st, p, 4, out, STATE4_OBS_SIZE if omniscient else OBS4_SIZE)
    if omniscient:
        p = player_of(st, 0)
        tmp = np.empty(STATE_OBS_SIZE, dtype=np.float32)
        encode(st, 0, tmp, True)
        for i in range(STATE_OBS_SIZE):  # the deal's blocks, then its hidden ones last
            out[i if i < OBS_SIZE else i - OBS_SIZE + Q_X_DEAL] = tmp[i]
    else:
        c = seat_of(st, p)
        encode(st, max(c, 0), out, False)  # writes out[0:OBS_SIZE]
        if c < 0:  # sitting out: forehand's view less what only forehand knows
            for i in range(O_TRUMP_SUIT):
                out[i] = 0.0
            tc = st[TRUMP_CARD]
            if tc >= 0 and st[TRUMP_PUBLIC]:
                out[O_TRUMP_CARD + tc] = 1.0
    for i in range(OBS_SIZE, Q_X_DEAL):
        out[i] = 0.0
    out[Q_SITTING_OUT + (st[P4_DEALER] - p) % 4] = 1.0
    for q in range(4):
        out[Q_SCORE4 + (q - p) % 4] = get64(st, P4_SCORE + 2 * q) / 100.0
    out[Q_DEAL_NO4 + min(st[DEAL_NO], 15)] = 1.0


@njit_generic
def observe_into4(st, rules, p, out, mask):
    """``encode4(st, p, out, False)`` and, when player ``p`` is to move, its legal actions
    into ``mask`` (else all zero)."""
    encode4(st, p, out, False)
    c = seat_of(st, p)
    if c >= 0 and st[TO_MOVE] == c:
        legal_voleny(st, rules, mask)
    else:
        for i in range(mask.shape[0]):
            mask[i] = 0


__all__ = ["OBS4_VERSION", "OBS4_LAYOUT", "OBS4_SIZE", "STATE4_OBS_SIZE", "encode4",
           "observe_into4", "layout_table"]
