"""Suit symmetry of volený mariáš: relabelling suits maps a deal onto an equivalent one.

No rule names a suit except through the trumps and the hearts doubling of a suit game
(RULES.md §9: hearts trumps double every amount; betl and durch have no hearts doubling),
so once the contract is known, any permutation of the suits that keeps the trump suit in
place (a suit game) -- or any permutation at all (betl, durch) -- turns a deal into one
with the same play, the same legal moves (relabelled) and the same payments.  Training
uses it to multiply labelled card-play states by up to 6 (suit game) or 24 (betl,
durch): :func:`permute_suits` relabels whole state records, :func:`permute_actions`
the per-action vectors that go with them.

A permutation ``perm`` is an int array ``[4]`` (or ``[n, 4]`` for ``n`` states):
suit ``s`` becomes suit ``perm[s]``, card ``8 s + r`` becomes ``8 perm[s] + r``.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from ...core import state as S
from ..base import SuitSymmetry
from . import actions as A

# Where a state record holds cards, from the schema: card values (-1 = none), card masks,
# and the fields indexed by card or by suit ("[card]" / "[suit]" in their meaning).
_CARD_SLOTS = np.array([S.OFFSETS[f.name] + i for f in S.STATE_SCHEMA if f.kind == "card"
                        for i in range(f.slots)])
_MASK_SLOTS = np.array([S.OFFSETS[f.name] + i for f in S.STATE_SCHEMA if f.kind == "mask"
                        for i in range(f.slots)])
BY_CARD = tuple(f.name for f in S.STATE_SCHEMA if f.meaning.startswith("[card]"))
BY_SUIT = tuple(f.name for f in S.STATE_SCHEMA if f.meaning.startswith("[suit]"))
SUIT_VALUED = ("LIC_HELP",)  # a suit number (-1 = none)
_CARD_ACTIONS = (A.TRUMP0, A.DISCARD0, A.PLAY0)  # 32 actions each, one per card

ALL_PERMS = np.array(list(permutations(range(4))), np.int64)  # 24, identity first
_KEEP_TRUMP = np.stack([ALL_PERMS[ALL_PERMS[:, t] == t] for t in range(4)])  # [4, 6, 4]


def card_map(perm: np.ndarray) -> np.ndarray:
    """``int64[..., 32]``: the card each card becomes under ``perm`` (``[..., 4]``)."""
    c = np.arange(32)
    perm = np.asarray(perm, np.int64)
    return perm[..., c >> 3] * 8 + (c & 7)


def symmetries(st: np.ndarray) -> np.ndarray:
    """The suit permutations under which the deal of ``st`` is equivalent (volený, from
    the contract on): those keeping the trump suit in a suit game, all 24 in betl and
    durch.  Before a contract exists only the identity."""
    con = int(st[S.CONTRACT])
    if con in (S.C_BETL, S.C_DURCH):
        return ALL_PERMS
    if con == S.C_SUIT and st[S.TRUMP_CARD] >= 0:
        return _KEEP_TRUMP[int(st[S.TRUMP_CARD]) >> 3]
    return ALL_PERMS[:1]


def random_symmetries(states: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``int64[n, 4]``: for each record of ``states`` one of its :func:`symmetries`, drawn
    uniformly (vectorised)."""
    con = states[:, S.CONTRACT]
    nt = (con == S.C_BETL) | (con == S.C_DURCH)
    suit = (con == S.C_SUIT) & (states[:, S.TRUMP_CARD] >= 0)
    out = np.broadcast_to(ALL_PERMS[0], (len(states), 4)).copy()
    out[nt] = ALL_PERMS[rng.integers(24, size=int(nt.sum()))]
    t = states[suit, S.TRUMP_CARD] >> 3
    out[suit] = _KEEP_TRUMP[t, rng.integers(6, size=len(t))]
    return out


def permute_suits(states: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """The records ``states`` (``[STATE_SIZE]`` or ``[n, STATE_SIZE]``) with their suits
    relabelled by ``perm`` (``[4]`` or ``[n, 4]``), as a new array."""
    one = states.ndim == 1
    st = np.atleast_2d(states)
    perm = np.broadcast_to(np.asarray(perm, np.int64), (len(st), 4))
    cmap = card_map(perm)  # [n, 32]
    rows = np.arange(len(st))[:, None]
    out = st.copy()
    # card values
    v = st[:, _CARD_SLOTS].astype(np.int64)
    out[:, _CARD_SLOTS] = np.where(v >= 0, np.take_along_axis(cmap, np.clip(v, 0, 31), 1), v)
    # card masks (int32 slots holding 32 bits)
    m = st[:, _MASK_SLOTS].astype(np.int64) & S.MASK32
    pm = np.zeros_like(m)
    for c in range(32):
        pm |= ((m >> c) & 1) << cmap[:, c:c + 1]
    out[:, _MASK_SLOTS] = np.where(pm >= 1 << 31, pm - (1 << 32), pm).astype(st.dtype)
    # fields indexed by card and by suit
    for name in BY_CARD:
        out[rows, S.OFFSETS[name] + cmap] = st[:, S.OFFSETS[name]:S.OFFSETS[name] + 32]
    for name in BY_SUIT:
        out[rows, S.OFFSETS[name] + perm] = st[:, S.OFFSETS[name]:S.OFFSETS[name] + 4]
    for name in SUIT_VALUED:
        v = st[:, S.OFFSETS[name]].astype(np.int64)
        out[:, S.OFFSETS[name]] = np.where(v >= 0, perm[np.arange(len(st)), np.clip(v, 0, 3)], v)
    return out[0] if one else out


def move_actions(values: np.ndarray, perm: np.ndarray, card_blocks: tuple[int, ...],
                 suit_blocks: tuple[tuple[int, int, int], ...] = ()) -> np.ndarray:
    """Per-action rows (``[A]`` or ``[n, A]``) moved with the suits, for any game's action
    table: each block of 32 card actions starting at a ``card_blocks`` index by the card
    map, each ``(first index, first suit, count)`` of ``suit_blocks`` (an action per suit)
    by ``perm``; the other actions keep theirs."""
    one = values.ndim == 1
    v = np.atleast_2d(values)
    perm = np.broadcast_to(np.asarray(perm, np.int64), (len(v), 4))
    cmap = card_map(perm)
    rows = np.arange(len(v))[:, None]
    out = v.copy()
    for base in card_blocks:
        out[rows, base + cmap] = v[:, base:base + 32]
    for base, first, n in suit_blocks:
        out[rows, base + perm[:, first:first + n] - first] = v[:, base:base + n]
    return out[0] if one else out


def permute_actions(values: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Per-action rows (``[A]`` or ``[n, A]``: a mask, labels, Q-values) moved with the
    cards: the value of ``play:c`` becomes that of ``play:cmap[c]`` (likewise trump and
    discard cards); the other actions keep theirs."""
    return move_actions(values, perm, _CARD_ACTIONS)


SYMMETRY = SuitSymmetry(symmetries, random_symmetries, permute_suits, permute_actions)
"""Volený's suit symmetry, as the registry's ``GameKind.symmetry`` names it."""
