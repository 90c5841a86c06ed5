"""The action space of licitovaný mariáš (LICITOVANY.md §12): one ``Discrete(N_ACTIONS)``
shared by all seats, with one stable label per index.

Its own table: volený's indices (:mod:`mariash_env.actions`) do not change.  The ranges
follow §12's order and only ever grow at the end.
"""

from __future__ import annotations

from ...cards import CARD_CODES, NCARDS, SUITS
from ...core.state import COMPONENT_NAMES
from ..voleny.actions import ActionError, ActionTable  # noqa: F401 (ActionError re-exported)
from .games import GAME_IDS

BID0 = 0  # bid:<game>, 12, game id g at BID0 + g - 1
HOLD = 12
PASS = 13
FOLD = 14
GAME0 = 15  # game:<game>, 12
TRUMP0 = 27  # trump:b, trump:l, trump:a (suit s at TRUMP0 + s - 1)
HELP0 = 30  # helping:h, helping:b, helping:l, helping:a (suit s at HELP0 + s)
DISCARD0 = 34  # discard:<card>, 32
LEAD0 = 66  # lead:<card>, 32
FLEK0 = 98  # flek:game, flek:seven, flek:hundred, flek:two_sevens
GOOD = 102
SHOW = 103
PLAY0 = 104  # play:<card>, 32
N_ACTIONS = 136


def _labels() -> tuple[str, ...]:
    out = [f"bid:{g}" for g in GAME_IDS]
    out += ["hold", "pass", "fold"]
    out += [f"game:{g}" for g in GAME_IDS]
    out += [f"trump:{s}" for s in SUITS[1:]]
    out += [f"helping:{s}" for s in SUITS]
    out += [f"discard:{c}" for c in CARD_CODES]
    out += [f"lead:{c}" for c in CARD_CODES]
    out += [f"flek:{k}" for k in COMPONENT_NAMES]
    out += ["good", "show"]
    out += [f"play:{c}" for c in CARD_CODES]
    return tuple(out)


ACTION_LABELS: tuple[str, ...] = _labels()
assert len(ACTION_LABELS) == N_ACTIONS and ACTION_LABELS[PLAY0 + NCARDS - 1] == "play:Aa"
assert ACTION_LABELS[TRUMP0] == "trump:b" and ACTION_LABELS[HELP0] == "helping:h"
TABLE = ActionTable(
    ACTION_LABELS, "licitovaný ", "'bid:sedma', 'hold', 'pass', 'fold', 'game:sto', "
    "'trump:l', 'helping:h', 'discard:7b', 'lead:Ah', 'flek:seven', 'good', 'show' or "
    "'play:Aa' (LICITOVANY.md §12)", ("discard", "lead", "play"), ("trump", "helping"))


def action_label(index: int) -> str:
    return TABLE.label(index)


def action_index(label: str) -> int:
    """Index of a label; card labels accept any case of the card code (``play:qh``)."""
    return TABLE.index(label)
