"""Layout of the compact per-game state: one ``int32[STATE_SIZE]`` record.

Card sets are 32-bit masks kept in ``int32`` slots (bit 31 = ``Aa``); read them
with :func:`getm` and write them with :func:`setm`.  Amounts in groše (SCORE, PAY,
AMT) are exact int64 values in two slots each: :func:`get64`/:func:`set64`, and
:func:`read64` for numpy arrays of states.  Seats are absolute
(0, 1, 2).  -1 means "none".
"""

from __future__ import annotations

import numpy as np

from .jit import njit

# Phases of the deal, in the order they happen (RULES.md §3–§6).
PH_TRUMP = 0  # forehand picks the trump card (or z lidu)
PH_CONTRACT = 1  # a player names its contract
PH_DISCARD = 2  # the contract's player lays two cards to the talon
PH_BARVA = 3  # defenders answer "Barva?" good/bad
PH_BETL_ANSWER = 4  # the other two answer a betl: good/durch
PH_ANNOUNCE = 5  # forehand shows trumps and announces hra/sedma/sto/sto a sedma
PH_FLEK = 6  # flek rounds
PH_PLAY = 7  # the tricks
PH_DONE = 8  # the deal is over and settled
PHASE_NAMES = ("trump", "contract", "discard", "barva", "betl_answer", "announce", "flek",
               "play", "done")

# Contracts.
C_NONE, C_SUIT, C_BETL, C_DURCH = 0, 1, 2, 3
CONTRACT_NAMES = ("none", "suit", "betl", "durch")

# Announcements (forehand's stake in a suit game).
AN_NONE, AN_HRA, AN_SEDMA, AN_STO, AN_STO_SEDMA = 0, 1, 2, 3, 4
ANNOUNCE_NAMES = ("none", "hra", "sedma", "sto", "sto_sedma")

# Bets.
B_GAME, B_SEVEN, B_SEVEN_AG, B_HUNDRED_AG = 0, 1, 2, 3
NBETS = 4

# How a deal ended.
END_NONE, END_PLAYED, END_CONCEDED, END_SEDMA_VOID, END_BROKEN, END_LAID = 0, 1, 2, 3, 4, 5
END_NAMES = ("none", "played", "conceded", "sedma_not_played", "decided_early", "laid_down")

# Offsets of the fields (slots) in the state record.  Everything before DEALER lasts the
# whole partie; a new deal clears the rest.  SCORE, PAY and AMT hold exact 64-bit
# amounts, two slots each (low word, high word; read with get64/read64): with
# max_flek=None one deal can pay more than an int32 holds (see core/settle.py).
DEAL_NO = 0
PARTIE_DONE = 1
SCORE = 2  # 3 int64 values = 6 slots
RNG = 8  # 4 slots
DEALER = 12
FOREHAND = 13
CUT = 14
POS = 15  # 32 slots
HAND = 47  # 3 slots
PHASE = 50
TO_MOVE = 51
TRUMP_CARD = 52
TRUMP_PUBLIC = 53
BLIND = 54
CONTRACT = 55
ACTOR = 56
CHOOSER = 57
NDISC = 58
DISC = 59  # 2 slots
TALON = 61
TALON_OWNER = 62
LAID = 63  # 3 slots
TOOK = 66  # 3 slots
ANSWERS = 69
BAD_SEAT = 70
GOOD_SEATS = 71
DURCH_SEAT = 72
BETL_SEAT = 73
ANNOUNCE = 74
BET_EXISTS = 75  # 4 slots
BET_LEVEL = 79  # 4 slots
BET_SEAT = 83  # 4 slots
RAISED_BY = 87  # 4 slots
FLEK_ROUND = 91
FLEK_TURN = 92
RAISABLE = 93
RAISED_RND = 94
ANNOUNCED_RND = 95
TURN_DONE = 96
TRICK_NO = 97
TRICK_N = 98
LEADER = 99
TRICKS = 100  # 30 slots
TLEAD = 130  # 10 slots
TWIN = 140  # 10 slots
PLAYED = 150
PTS = 151  # 3 slots
NTRICKS = 154  # 3 slots
MARR_SEAT = 157  # 4 slots
MARR_ORD = 161  # 4 slots
NMARR = 165
SEVEN_TRICK = 166
SEVEN_SEAT = 167
SEVEN_WON = 168
CLAIMER = 169
CLAIM_HANDS = 170  # 3 slots
END = 173
SETTLED = 174
WON = 175  # 5 slots
WORTH = 180  # 5 slots
SIDE_PTS = 185  # 2 slots
SIDE_MARR = 187  # 2 slots
SIDE_FIRST = 189  # 2 slots
SILENT100 = 191
PAY = 192  # 3 int64 values = 6 slots
AMT = 198  # 5 int64 values = 10 slots
STATE_SIZE = 208

# Lines of the settlement (AMT/WON/WORTH slots).
L_GAME, L_SEVEN, L_SEVEN_AG, L_HUNDRED_AG, L_SILENT_SEVEN = 0, 1, 2, 3, 4
LINE_NAMES = ("game", "seven", "seven_against", "hundred_against", "silent_seven")

MASK32 = 0xFFFFFFFF


@njit
def getm(st, off):
    """Read a card mask stored in an int32 slot as a non-negative int64."""
    return np.int64(st[off]) & MASK32


@njit
def setm(st, off, m):
    """Store a card mask (0..2**32-1) in an int32 slot."""
    m = np.int64(m) & MASK32
    if m >= 0x80000000:
        m -= 0x100000000
    st[off] = m


@njit
def get64(st, off):
    """Read the exact int64 amount kept in the slots ``off`` (low word) and ``off + 1``."""
    return (np.int64(st[off + 1]) << 32) | (np.int64(st[off]) & MASK32)


@njit
def set64(st, off, v):
    """Store an int64 amount in two int32 slots: the low 32 bits, then the signed rest."""
    v = np.int64(v)
    setm(st, off, v)
    st[off + 1] = v >> 32


def read64(states: np.ndarray, off: int, n: int) -> np.ndarray:
    """``n`` consecutive 64-bit amounts at ``off`` of one state or a batch (``int64[..., n]``),
    e.g. ``read64(states, SCORE, 3)``; the numpy counterpart of :func:`get64`."""
    lo = states[..., off:off + 2 * n:2].astype(np.int64) & MASK32
    return (states[..., off + 1:off + 2 * n:2].astype(np.int64) << 32) | lo


@njit
def popcount(m):
    m = np.int64(m)
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit
def lowest(m):
    """Index of the lowest set bit (m != 0)."""
    i = 0
    m = np.int64(m)
    while not (m >> i) & 1:
        i += 1
    return i


# --- a small, exactly reproducible generator kept inside the state (xorshift128) ---


@njit
def rng_next(st):
    """Next 32-bit draw of the state's generator (Marsaglia xorshift128)."""
    x = getm(st, RNG)
    y = getm(st, RNG + 1)
    z = getm(st, RNG + 2)
    w = getm(st, RNG + 3)
    t = (x ^ (x << 11)) & MASK32
    x, y, z = y, z, w
    w = (w ^ (w >> 19) ^ (t ^ (t >> 8))) & MASK32
    setm(st, RNG, x)
    setm(st, RNG + 1, y)
    setm(st, RNG + 2, z)
    setm(st, RNG + 3, w)
    return w


@njit
def rng_below(st, n):
    """Uniform integer in ``[0, n)`` by rejection (no modulo bias)."""
    limit = (0x100000000 // n) * n
    while True:
        r = rng_next(st)
        if r < limit:
            return r % n


def seed_words(seed: int | None) -> np.ndarray:
    """Four non-zero 32-bit words for the state's generator from any integer seed."""
    ss = np.random.SeedSequence(None if seed is None else int(seed) & ((1 << 128) - 1))
    w = ss.generate_state(4, dtype=np.uint32).astype(np.int64)
    if not w.any():
        w[0] = 0x9E3779B9
    return w


def new_state() -> np.ndarray:
    return np.zeros(STATE_SIZE, dtype=np.int32)


def seed_rng(st: np.ndarray, seed: int | None) -> None:
    """Seed the state's generator from any integer seed (None: fresh entropy)."""
    for i, w in enumerate(seed_words(seed)):
        setm(st, RNG + i, int(w))
