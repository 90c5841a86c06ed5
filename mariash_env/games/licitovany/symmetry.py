"""Suit symmetry of licitovaný mariáš: relabelling bells, leaves and acorns among
themselves maps a deal onto an equivalent one, at every point of it.

The rules name one suit: hearts.  A lepší game is played in hearts, and the needs of a
bid (LICITOVANY.md §3) ask for the 7 of hearts in a lepší game with a seven and for a 7
of bells, leaves or acorns in a plain one; the plain suit games take their trumps among
those three (§5).  Nothing else names a suit: the trumps, the helping suit of two sevens
and the marriages are whatever the cards make them.  So each of the 6 permutations of
b, l and a that keeps hearts in place turns a deal -- from the shuffle on, its trumps
moving with the cards -- into one with the same auction, the relabelled legal moves, the
same exact values and the same payments.  Moving hearts breaks it (a plain sedma bid on
the 7 of bells would become one on the 7 of hearts).  Training uses it to multiply
labelled states by 6 (:class:`~mariash_env.games.base.SuitSymmetry`).

A permutation ``perm`` is an int array ``[4]`` (or ``[n, 4]``), suit ``s`` becoming suit
``perm[s]``; the state records are relabelled by volený's
:func:`~mariash_env.games.voleny.symmetry.permute_suits` (one state schema for both
games, its licitovaný fields included: the face-down lead card, the helping suit).
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from ..base import SuitSymmetry
from ..voleny.symmetry import move_actions, permute_suits
from . import actions as LA

__all__ = ["PERMS", "symmetries", "random_symmetries", "permute_actions", "permute_suits",
           "SYMMETRY"]

PERMS = np.array([(0, *p) for p in permutations(range(1, 4))], np.int64)  # 6, identity first
_CARD_ACTIONS = (LA.DISCARD0, LA.LEAD0, LA.PLAY0)  # 32 actions each, one per card
# suit actions (first index, first suit, count): trump:b..a are suits 1..3, helping:h..a 0..3
_SUIT_ACTIONS = ((LA.TRUMP0, 1, 3), (LA.HELP0, 0, 4))


def symmetries(st: np.ndarray) -> np.ndarray:
    """The suit permutations under which the deal of ``st`` is equivalent: the 6 that
    keep hearts, in every phase (``st`` is taken for the volený-alike signature)."""
    del st
    return PERMS


def random_symmetries(states: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``int64[n, 4]``: for each record of ``states`` one of its :func:`symmetries`, drawn
    uniformly."""
    return PERMS[rng.integers(len(PERMS), size=len(states))]


def permute_actions(values: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Per-action rows (``[A]`` or ``[n, A]``: a mask, labels, Q-values) moved with the
    suits: the value of ``play:c`` becomes that of ``play:cmap[c]`` (likewise discards and
    lead cards), that of ``trump:s`` and ``helping:s`` that of ``perm[s]``; the auction's
    and the flek's actions name no suit and keep theirs."""
    perm = np.asarray(perm, np.int64)
    if not (perm[..., 0] == 0).all():
        raise ValueError(f"a licitovaný suit permutation keeps hearts (suit 0): got {perm}")
    return move_actions(values, perm, _CARD_ACTIONS, _SUIT_ACTIONS)


SYMMETRY = SuitSymmetry(symmetries, random_symmetries, permute_suits, permute_actions)
"""Licitovaný's suit symmetry, as the registry's ``GameKind.symmetry`` names it."""
