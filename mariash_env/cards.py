"""Cards of the German-suited 32-card pack and their canonical codes (RULES.md §1).

A card is an index ``suit * 8 + rank`` with suits ``h b l a`` (červené, kule,
zelené, žaludy) and ranks ``7 8 9 T J Q K A``; a set of cards is a 32-bit mask.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

SUITS = "hbla"
RANKS = "789TJQKA"
NCARDS = 32
ALL_CARDS = (1 << NCARDS) - 1

SUIT_NAMES_CZ = ("červené", "kule", "zelené", "žaludy")
SUIT_SYMBOLS = ("♥", "♦", "♠", "♣")
RANK_NAMES_CZ = ("sedma", "osma", "devítka", "desítka", "spodek", "svršek", "král", "eso")

CARD_CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""The 32 card codes by card index: rank (``789TJQKA``) then suit (``hbla``: červené,
kule, zelené, žaludy), suit by suit (``"7h"`` … ``"Aa"``)."""
_CODE_TO_INDEX = {c: i for i, c in enumerate(CARD_CODES)}

# Strength of a rank index in suit games (7 8 9 J Q K T A) and without trumps.
TRUMP_STRENGTH = np.array([0, 1, 2, 6, 3, 4, 5, 7], dtype=np.int64)
PLAIN_STRENGTH = np.arange(8, dtype=np.int64)
RANK_T, RANK_J, RANK_Q, RANK_K, RANK_A = 3, 4, 5, 6, 7


class CardError(ValueError):
    """An unknown card code or index, or a malformed deck."""


class DeckTypeError(CardError, TypeError):
    """A deck that is not an ordered sequence (a set, a dict, a generator, a string, …)."""


def card_index(card: str | int) -> int:
    """Index of a card given as a code (``"Qh"``) or an index (``0..31``)."""
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool):
        if 0 <= int(card) < NCARDS:
            return int(card)
        raise CardError(f"card index {card!r} is out of range: expected 0..31")
    if isinstance(card, str):
        code = card.strip()
        if len(code) == 2:
            code = code[0].upper() + code[1].lower()
            if code in _CODE_TO_INDEX:
                return _CODE_TO_INDEX[code]
        raise CardError(
            f"unknown card code {card!r}: expected rank+suit with rank in {RANKS!r} "
            f"and suit in {SUITS!r}, e.g. 'Qh'"
        )
    raise CardError(f"a card must be a code like 'Qh' or an index 0..31, got {card!r}")


def card_code(index: int) -> str:
    return CARD_CODES[card_index(index)]


def suit_of(index: int) -> int:
    return index >> 3


def rank_of(index: int) -> int:
    return index & 7


def mask_of(cards: Iterable[str | int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << card_index(c)
    return m


def cards_of(mask: int) -> list[int]:
    """The card indices of a card set (bit ``i`` = card ``i``), ascending: the one such
    helper of the package (robots, world samplers and OpenSpiel read it).  A negative
    mask is an int32 slot of the state with card 31 in it (its 32 bits are read); a wider
    one keeps its high bits (the table robot's shifted sets rely on it)."""
    m = int(mask)
    if m < 0:
        m &= ALL_CARDS
    out = []
    while m:  # lowest set bit first: as many steps as cards, not 32
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def codes_of(mask: int) -> list[str]:
    return [CARD_CODES[i] for i in cards_of(mask)]


DECK_TYPES = "a list, tuple or 1-D numpy array of card codes like 'Qh' or indices 0..31"


def _deck_items(deck: Any) -> list[Any]:
    """The cards of an ordered deck; DeckTypeError for anything else: a set or a dict has
    no order of its own (a set's iteration order differs from process to process)."""
    if isinstance(deck, np.ndarray) and deck.ndim == 1:
        return deck.tolist()
    if isinstance(deck, Sequence) and not isinstance(deck, (str, bytes, bytearray)):
        return list(deck)
    kind = f"a {deck.ndim}-D array" if isinstance(deck, np.ndarray) else type(deck).__name__
    why = f": a {kind} has no order" if isinstance(deck, (set, frozenset, dict)) else ""
    raise DeckTypeError(
        f"a deck must be a sequence of 32 cards from the top ({DECK_TYPES}), got {kind} "
        f"{deck!r:.60}{why}")


def parse_deck(deck: Sequence[str | int] | np.ndarray) -> np.ndarray:
    """A deck of 32 distinct cards, from the top, as an ``int64[32]`` of indices
    (:data:`DECK_TYPES`; anything unordered raises :class:`DeckTypeError`)."""
    items = _deck_items(deck)
    if len(items) != NCARDS:
        raise CardError(f"a deck must hold exactly 32 cards, got {len(items)}")
    idx = [card_index(c) for c in items]
    seen: set[int] = set()
    dup = [CARD_CODES[i] for i in idx if i in seen or seen.add(i)]
    if dup:
        missing = [CARD_CODES[i] for i in range(NCARDS) if i not in seen]
        raise CardError(f"a deck must hold each card once: {dup} repeated, {missing} missing")
    return np.array(idx, dtype=np.int64)


def czech_name(index: int) -> str:
    i = card_index(index)
    return f"{SUIT_NAMES_CZ[i >> 3]} {RANK_NAMES_CZ[i & 7]}"


def pretty(index: int) -> str:
    """Short display form with a suit symbol, e.g. ``K♥``; the ten is shown as 10."""
    i = card_index(index)
    r = RANKS[i & 7]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[i >> 3]
