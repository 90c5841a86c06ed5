"""Layout of the compact per-game state: one ``int32[STATE_SIZE]`` record.

Card sets are 32-bit masks kept in ``int32`` slots (bit 31 = ``Aa``); read them
with :func:`getm` and write them with :func:`setm`.  Seats are absolute
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

# Offsets of the fields (slots) in the state record.
DEAL_NO = 0
SCORE = 1  # 3 slots
RNG = 4  # 4 slots
PARTIE_DONE = 8
DEALER = 9
FOREHAND = 10
CUT = 11
POS = 12  # 32 slots
HAND = 44  # 3 slots
PHASE = 47
TO_MOVE = 48
TRUMP_CARD = 49
TRUMP_PUBLIC = 50
BLIND = 51
CONTRACT = 52
ACTOR = 53
CHOOSER = 54
NDISC = 55
DISC = 56  # 2 slots
TALON = 58
TALON_OWNER = 59
LAID = 60  # 3 slots
TOOK = 63  # 3 slots
ANSWERS = 66
BAD_SEAT = 67
GOOD_SEATS = 68
DURCH_SEAT = 69
BETL_SEAT = 70
ANNOUNCE = 71
BET_EXISTS = 72  # 4 slots
BET_LEVEL = 76  # 4 slots
BET_SEAT = 80  # 4 slots
RAISED_BY = 84  # 4 slots
FLEK_ROUND = 88
FLEK_TURN = 89
RAISABLE = 90
RAISED_RND = 91
ANNOUNCED_RND = 92
TURN_DONE = 93
TRICK_NO = 94
TRICK_N = 95
LEADER = 96
TRICKS = 97  # 30 slots
TLEAD = 127  # 10 slots
TWIN = 137  # 10 slots
PLAYED = 147
PTS = 148  # 3 slots
NTRICKS = 151  # 3 slots
MARR_SEAT = 154  # 4 slots
MARR_ORD = 158  # 4 slots
NMARR = 162
SEVEN_TRICK = 163
SEVEN_SEAT = 164
SEVEN_WON = 165
CLAIMER = 166
CLAIM_HANDS = 167  # 3 slots
END = 170
SETTLED = 171
PAY = 172  # 3 slots
AMT = 175  # 5 slots
WON = 180  # 5 slots
WORTH = 185  # 5 slots
SIDE_PTS = 190  # 2 slots
SIDE_MARR = 192  # 2 slots
SIDE_FIRST = 194  # 2 slots
SILENT100 = 196
STATE_SIZE = 197

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
