"""The action space: one ``Discrete(N_ACTIONS)`` shared by all seats (INTERFACE.md).

Every index has one stable label; the ranges below are part of the public
contract and only ever grow at the end.
"""

from __future__ import annotations

from ...cards import CARD_CODES, NCARDS

TRUMP0 = 0  # trump:<card>, 32 of them
TRUMP_BLIND = 32
CONTRACT_SUIT = 33
CONTRACT_BETL = 34
CONTRACT_DURCH = 35
CONTRACT_OPEN_BETL = 36
CONTRACT_OPEN_DURCH = 37
DISCARD0 = 38  # discard:<card>, 32
GOOD = 70
BAD = 71
ANNOUNCE_HRA = 72
ANNOUNCE_SEDMA = 73
ANNOUNCE_STO = 74
ANNOUNCE_STO_SEDMA = 75
AGAINST_SEVEN = 76
AGAINST_HUNDRED = 77
FLEK0 = 78  # flek:game, flek:seven, flek:seven_against, flek:hundred_against
PLAY0 = 82  # play:<card>, 32
LAY_DOWN = 114
N_ACTIONS = 115
"""The size of volený's action space, ``Discrete(N_ACTIONS)`` (licitovaný's own:
:data:`mariash_env.licit_actions.N_ACTIONS`)."""

BET_NAMES = ("game", "seven", "seven_against", "hundred_against")


def _labels() -> tuple[str, ...]:
    out = [f"trump:{c}" for c in CARD_CODES]
    out.append("trump:blind")
    out += ["contract:suit", "contract:betl", "contract:durch"]
    out += ["contract:open_betl", "contract:open_durch"]
    out += [f"discard:{c}" for c in CARD_CODES]
    out += ["good", "bad"]
    out += ["announce:hra", "announce:sedma", "announce:sto", "announce:sto_sedma"]
    out += ["against:seven", "against:hundred"]
    out += [f"flek:{b}" for b in BET_NAMES]
    out += [f"play:{c}" for c in CARD_CODES]
    out.append("lay_down")
    return tuple(out)


class ActionError(ValueError):
    """An unknown action label or an out-of-range action index."""


class ActionTable:
    """One game's action labels, index <-> label, with card codes in any case."""

    def __init__(self, labels: tuple[str, ...], game: str, examples: str,
                 card_heads: tuple[str, ...], suit_heads: tuple[str, ...] = ()) -> None:
        self.labels = labels
        self.game = game
        self.examples = examples
        self._index = {lab: i for i, lab in enumerate(labels)}
        self._card_heads = card_heads
        self._suit_heads = suit_heads

    def label(self, index: int) -> str:
        i = int(index)
        if not 0 <= i < len(self.labels):
            raise ActionError(f"{self.game}action index {index!r} is out of range: expected "
                              f"0..{len(self.labels) - 1}")
        return self.labels[i]

    def index(self, label: str) -> int:
        """Index of a label; card codes (and suit letters) in any case (``play:qh``)."""
        if label in self._index:
            return self._index[label]
        if isinstance(label, str) and ":" in label:
            head, _, tail = label.partition(":")
            fixed = None
            if len(tail) == 2 and head in self._card_heads:
                fixed = f"{head}:{tail[0].upper()}{tail[1].lower()}"
            elif len(tail) == 1 and head in self._suit_heads:
                fixed = f"{head}:{tail.lower()}"
            if fixed in self._index:
                return self._index[fixed]
        raise ActionError(f"unknown {self.game}action label {label!r}: expected e.g. "
                          f"{self.examples}")


ACTION_LABELS: tuple[str, ...] = _labels()
"""The label of every volený action index (``"trump:Qh"``, ``"contract:suit"``,
``"play:Aa"``, ``"lay_down"``; docs/layouts.md tabulates them, and licitovaný's)."""
assert len(ACTION_LABELS) == N_ACTIONS and ACTION_LABELS[PLAY0 + NCARDS - 1] == "play:Aa"
TABLE = ActionTable(
    ACTION_LABELS, "", "'trump:Qh', 'contract:suit', 'discard:7b', 'good', 'bad', "
    "'announce:sedma', 'against:seven', 'flek:game', 'play:Aa' or 'lay_down'",
    ("trump", "discard", "play"))


def action_label(index: int) -> str:
    """The label of an action index (:data:`ACTION_LABELS`; ActionError out of range)."""
    return TABLE.label(index)


def action_index(label: str) -> int:
    """Index of a label; card labels accept any case of the card code (``play:qh``)."""
    return TABLE.index(label)
