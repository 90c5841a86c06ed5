"""Czech and English words for the action labels and cards a player sees at the table
(docs/glossary.md has the vocabulary)."""

from __future__ import annotations

from ..cards import SUIT_NAMES_CZ, SUITS, card_index, czech_name, pretty
from ..game import level_name

SUIT_NAMES_EN = ("hearts", "bells", "leaves", "acorns")
BET_CZ = {"game": "hru", "seven": "sedmu", "seven_against": "sedmu proti",
          "hundred_against": "sto proti"}
BET_EN = {"game": "the game", "seven": "the seven", "seven_against": "the seven against",
          "hundred_against": "the hundred against"}

_FIXED: dict[str, tuple[str, str]] = {
    "trump:blind": ("z lidu", "trumps blind (from the people)"),
    "contract:suit": ("Barva?", "suit game"),
    "contract:betl": ("betl", "betl (misère)"),
    "contract:durch": ("durch", "durch (slam)"),
    "contract:open_betl": ("otevřený betl", "open betl"),
    "contract:open_durch": ("otevřený durch", "open durch"),
    "good": ("dobrá", "good"),
    "bad": ("špatná", "bad"),
    "announce:hra": ("hra", "game"),
    "announce:sedma": ("sedma", "seven"),
    "announce:sto": ("sto", "hundred"),
    "announce:sto_sedma": ("sto a sedma", "hundred and seven"),
    "against:seven": ("sedma proti", "seven against"),
    "against:hundred": ("sto proti", "hundred against"),
    "lay_down": ("položit karty", "lay the cards down"),
}


def card_info(code: str) -> dict[str, str]:
    """A card for display: code, short form with its suit symbol, Czech name, suit."""
    i = card_index(code)
    return {"code": code, "short": pretty(i), "cz": czech_name(i),
            "suit": SUITS[i >> 3], "suit_cz": SUIT_NAMES_CZ[i >> 3]}


def describe(label: str, next_level: int = 1, contract: str = "suit") -> dict[str, str]:
    """``{"label", "cz", "en"}`` for an action label; ``next_level`` is the level a
    ``flek:*`` would raise its bet to, ``contract`` names the game bet (suit/betl/durch)."""
    if label in _FIXED:
        cz, en = _FIXED[label]
    else:
        head, _, tail = label.partition(":")
        if head in ("trump", "discard", "play"):
            c = card_info(tail)
            verb = {"trump": ("trumf", "trump card"), "discard": ("odložit", "discard"),
                    "play": ("hrát", "play")}[head]
            cz, en = f"{verb[0]} {c['short']} ({c['cz']})", f"{verb[1]} {c['short']}"
        elif head == "flek":
            word = level_name(next_level)
            bet_cz = contract if tail == "game" and contract != "suit" else BET_CZ[tail]
            bet_en = contract if tail == "game" and contract != "suit" else BET_EN[tail]
            cz, en = f"{word} na {bet_cz}", f"{word} on {bet_en}"
        else:
            cz = en = label
    return {"label": label, "cz": cz, "en": en}
