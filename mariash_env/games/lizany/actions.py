"""Lízaný's action table and observation layout (no engine): what the registry and the
front ends read without importing the game itself."""

from __future__ import annotations

from ...cards import CARD_CODES, NCARDS
from ..voleny.actions import ActionTable
from ..voleny.observe import _layout

AGENTS = ("player_0", "player_1")
"""Lízaný's two agents, player ``i`` in seat ``i``."""
N_ACTIONS = NCARDS
"""The size of lízaný's action space: one action a card."""
ACTION_LABELS: tuple[str, ...] = tuple(f"play:{c}" for c in CARD_CODES)
"""The label of every action index: ``"play:7h"`` … ``"play:Aa"`` in card-index order."""
TABLE = ActionTable(ACTION_LABELS, "lízaný ", "'play:Qh'", ("play",))
RULES = {"rules": "lizany"}
"""The rules of every lízaný deal, as its records hold them."""
FORMAT = "mariash-lizany/1"
"""The ``"format"`` of a lízaný game record."""


def action_label(index: int) -> str:
    """The label of an action index (:data:`ACTION_LABELS`; ActionError out of range)."""
    return TABLE.label(index)


def action_index(label: str) -> int:
    """Index of a ``play:<card>`` label (any case of the card code)."""
    return TABLE.index(label)


# --- the observation layout: (name, start, size, meaning), as the main games declare theirs
OBS_LAYOUT = _layout((
    ("hand", 32, "own cards"),
    ("trump_card", 32, "the turned-up card"),
    ("trump_suit", 4, "the trump suit"),
    ("played_me", 32, "cards this seat played"),
    ("played_opp", 32, "cards the opponent played"),
    ("table", 32, "the card on the table in the current trick"),
    ("opp_known", 32, "opponent's cards known from play (trump card drawn, marriage partner)"),
    ("marriages", 8, "suit*2 + 0 (this seat) / 1 (opponent): marriage announced"),
    ("scalars", 17, "stock/16, stock empty, points/90 me/opp, marriages/100 me/opp, "
                    "tricks/16 me/opp, on lead, to move, table led by me, trick/16, seat, "
                    "done, totals/190 me/opp, deal won"),
))
"""The observation's blocks as ``(name, start, size, meaning)``, in order."""
OBS = {name: (start, size) for name, start, size, _ in OBS_LAYOUT}
OBS_SIZE = OBS_LAYOUT[-1][1] + OBS_LAYOUT[-1][2]
"""The length of a seat's observation vector."""
STATE_SIZE = OBS_SIZE + 2 * NCARDS
"""The length of ``state()``: ``player_0``'s observation, ``player_1``'s hand and the
stock's order."""
(SC_STOCK, SC_EMPTY, SC_PTS_ME, SC_PTS_OPP, SC_MARR_ME, SC_MARR_OPP, SC_TRICKS_ME,
 SC_TRICKS_OPP, SC_LEAD, SC_TO_MOVE, SC_LED_BY_ME, SC_TRICK, SC_SEAT, SC_DONE, SC_TOTAL_ME,
 SC_TOTAL_OPP, SC_WON) = range(17)
