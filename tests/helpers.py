"""Shared helpers for scripted deals in the tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mariash_env import Game
from mariash_env.cards import CARD_CODES, mask_of


def deck_from_hands(
    f7: Sequence[str], f5: Sequence[str], middle: Sequence[str], dealer: Sequence[str]
) -> list[str]:
    """The deck (from the top) that deals these hands (RULES.md §2 block dealing).

    ``f7`` forehand's first block (the cards it sees when choosing trumps), ``f5``
    its second block (``f5[0]`` is deck position 17, the z-lidu card), ``middle``
    and ``dealer`` 10 cards each (first five = first block).
    """
    f7, f5, middle, dealer = list(f7), list(f5), list(middle), list(dealer)
    assert len(f7) == 7 and len(f5) == 5 and len(middle) == 10 and len(dealer) == 10
    deck = f7 + middle[:5] + dealer[:5] + f5 + middle[5:] + dealer[5:]
    assert sorted(deck) == sorted(CARD_CODES), "the hands must hold each card once"
    return deck


def rest_of(*used: Iterable[str]) -> list[str]:
    """The cards not named in ``used``, in canonical order."""
    m = 0
    for u in used:
        m |= mask_of(u)
    return [c for i, c in enumerate(CARD_CODES) if not m >> i & 1]


def new_game(deck: Sequence[str], dealer: int = 0, **rules) -> Game:
    g = Game(**rules)
    g.new_partie(seed=0, deck=deck, dealer=dealer)
    return g


def play(game: Game, labels: Iterable[str]) -> None:
    """Apply labels in order; each must be legal for the seat to move."""
    for lab in labels:
        game.step(lab)
