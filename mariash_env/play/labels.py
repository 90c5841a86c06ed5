"""Czech and English words for the action labels and cards a player sees at the table
(docs/glossary.md has the vocabulary)."""

from __future__ import annotations

from ..cards import SUITS, card_index, pretty
from ..game import level_name
from ..games.licitovany.games import GAME_IDS, GAME_NAMES_CZ
from ..games.licitovany.record import level_name as licit_level_name
from .i18n import SUIT_CZ, card_name

SUIT_NAMES_EN = ("hearts", "bells", "leaves", "acorns")
BET_CZ = {"game": "hru", "seven": "sedmu", "seven_against": "sedmu proti",
          "hundred_against": "sto proti"}
BET_EN = {"game": "the game", "seven": "the seven", "seven_against": "the seven against",
          "hundred_against": "the hundred against"}

_FIXED: dict[str, tuple[str, str]] = {
    "trump:blind": ("z lidu", "trumps blind (from the people)"),
    "contract:suit": ("hra v barvě", "suit game"),
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


# A move as the log and the seat box say it, where the button's word is no third-person
# verb as the other moves are ("hraje …", "volí trumf …")
_SAID: dict[str, tuple[str, str]] = {"lay_down": ("pokládá karty", "lays the cards down")}


def said(words: dict[str, str]) -> dict[str, str]:
    """``words`` (:func:`describe`'s) as the move's log entry says them."""
    if words["label"] not in _SAID:
        return words
    cz, en = _SAID[words["label"]]
    return {**words, "cz": cz, "en": en}


def card_info(code: str) -> dict[str, str]:
    """A card for display: code, short form with its suit symbol, its Czech and English
    names (``červená devítka``, ``nine of hearts``), suit."""
    i = card_index(code)
    return {"code": code, "short": pretty(i), "cz": card_name(code), "en": card_name(code, "en"),
            "suit": SUITS[i >> 3], "suit_cz": SUIT_CZ[SUITS[i >> 3]]}


# An action on one card as the move list says it (Czech takes the accusative)
_CARD_VERBS = {"trump": ("volí trumf: {acc}", "chooses the trump card: {en}"),
               "discard": ("odkládá do talonu {acc}", "discards {en}"),
               "play": ("hraje {acc}", "plays {en}"),
               "lead": ("vynáší lícem dolů {acc}", "leads {en} face down")}


def _card_action(head: str, code: str) -> tuple[str, str]:
    """Czech and English words of an action on one card (``play:Qh``: "hraje červeného
    svrška", "plays the ober of hearts")."""
    cz, en = _CARD_VERBS[head]
    return (cz.format(acc=card_name(code, "cz", "acc")),
            en.format(en=card_name(code, "en", "acc")))


def describe(label: str, next_level: int = 1, contract: str = "suit") -> dict[str, str]:
    """``{"label", "cz", "en"}`` for an action label; ``next_level`` is the level a
    ``flek:*`` would raise its bet to, ``contract`` names the game bet (suit/betl/durch)."""
    if label in _FIXED:
        cz, en = _FIXED[label]
    else:
        head, _, tail = label.partition(":")
        if head in ("trump", "discard", "play"):
            cz, en = _card_action(head, tail)
        elif head == "flek":
            word = level_name(next_level)
            bet_cz = contract if tail == "game" and contract != "suit" else BET_CZ[tail]
            bet_en = contract if tail == "game" and contract != "suit" else BET_EN[tail]
            cz, en = f"{word} na {bet_cz}", f"{word} on {bet_en}"
        else:
            cz = en = label
    return {"label": label, "cz": cz, "en": en}


# --- licitovaný mariáš (LICITOVANY.md §12's labels) ------------------------------------
GAME_NAMES_EN = ("seven", "better seven", "hundred", "hundred and seven", "better hundred",
                 "better hundred and seven", "betl (misère)", "durch (slam)", "two sevens",
                 "two sevens and hundred", "better two sevens", "better two sevens and hundred")
COMPONENT_CZ = {"game": "hru", "seven": "sedmu", "hundred": "stovku",
                "two_sevens": "dvě sedmy", "silent_seven": "tichou sedmu"}
COMPONENT_EN = {"game": "the game", "seven": "the seven", "hundred": "the hundred",
                "two_sevens": "the two sevens", "silent_seven": "the silent seven"}
_LICIT_FIXED: dict[str, tuple[str, str]] = {
    "hold": ("držím", "hold (take the standing bid)"),
    "pass": ("pas", "pass (drop out)"),
    "fold": ("složit (za omyl, 0,60)", "fold (pay 0.60 each)"),
    "good": ("dobrý", "good (no more flek)"),
    "show": ("ukázat", "show (4 cards of the helping suit)"),
}


def game_words(game: str) -> tuple[str, str]:
    """Czech and English name of a licitovaný game id (``"sto_sedma"``)."""
    i = GAME_IDS.index(game)
    return GAME_NAMES_CZ[i], GAME_NAMES_EN[i]


def describe_licit(label: str, next_level: int = 1) -> dict[str, str]:
    """``{"label", "cz", "en"}`` for a licitovaný action label; ``next_level`` is the
    level a ``flek:*`` would raise its component to (flek, re, tutti, boty, kalhoty)."""
    head, _, tail = label.partition(":")
    if label in _LICIT_FIXED:
        cz, en = _LICIT_FIXED[label]
    elif head in ("bid", "game"):
        gcz, gen = game_words(tail)
        cz, en = (f"licit: {gcz}", f"bid: {gen}") if head == "bid" else \
            (f"hra: {gcz}", f"game: {gen}")
    elif head in ("trump", "helping"):
        s = SUITS.index(tail)
        cz, en = ((f"trumfy: {SUIT_CZ[tail]}", f"trumps: {SUIT_NAMES_EN[s]}") if head == "trump"
                  else (f"pomocná barva: {SUIT_CZ[tail]}", f"helping suit: {SUIT_NAMES_EN[s]}"))
    elif head in ("discard", "lead", "play"):
        cz, en = _card_action(head, tail)
    elif head == "flek":
        word = licit_level_name(next_level)
        cz, en = f"{word} na {COMPONENT_CZ[tail]}", f"{word} on {COMPONENT_EN[tail]}"
    else:
        raise ValueError(f"unknown licitovaný action label {label!r}")
    return {"label": label, "cz": cz, "en": en}
