"""Layout of the compact per-game state: one ``int32[STATE_SIZE]`` record.

Card sets are 32-bit masks kept in ``int32`` slots (bit 31 = ``Aa``); read them
with :func:`getm` and write them with :func:`setm`.  Amounts in groše (SCORE, PAY,
AMT) are exact int64 values in two slots each: :func:`get64`/:func:`set64`, and
:func:`read64` for numpy arrays of states.  Seats are absolute
(0, 1, 2).  -1 means "none".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..cards import CARD_CODES
from .jit import njit_generic
from .seeding import words_of

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
# Licitovaný mariáš (LICITOVANY.md §4–§5) adds its auction and the actor's choices; it
# shares PH_DISCARD, PH_FLEK, PH_PLAY and PH_DONE.
PH_BID = 9  # A1: the challenger bids or passes
PH_HOLD = 10  # A2: the holder holds the standing bid or passes
PH_LONE = 11  # A3: forhond alone, after two unbid passes, bids or passes
PH_GAME = 12  # T1: the actor announces the game (or folds)
PH_TRUMPS = 13  # T2: the actor names trumps in a plain suit game
PH_HELPING = 14  # T3: the actor names the helping suit of two sevens
PH_LEAD = 15  # T5: the actor lays the face-down lead card of betl / durch
PHASE_NAMES = ("trump", "contract", "discard", "barva", "betl_answer", "announce", "flek",
               "play", "done", "bid", "hold", "lone_bid", "game", "trumps", "helping", "lead")
"""The name of each phase (``PH_*``), indexed by the ``"phase"`` of an environment's infos:
volený's first nine, licitovaný's auction and the actor's choices after them."""

# Contracts.
C_NONE, C_SUIT, C_BETL, C_DURCH = 0, 1, 2, 3
CONTRACT_NAMES = ("none", "suit", "betl", "durch")
# The no-trump contracts by rank (RULES.md §4, §11.1): an open betl / durch is CONTRACT
# C_BETL / C_DURCH with bit 0 of OVERCALLS set, so every betl / durch rule applies to it.
NT_NAMES = ("betl", "durch", "open_betl", "open_durch")

# Announcements (forehand's stake in a suit game).
AN_NONE, AN_HRA, AN_SEDMA, AN_STO, AN_STO_SEDMA = 0, 1, 2, 3, 4
ANNOUNCE_NAMES = ("none", "hra", "sedma", "sto", "sto_sedma")

# Bets.
B_GAME, B_SEVEN, B_SEVEN_AG, B_HUNDRED_AG = 0, 1, 2, 3
NBETS = 4

# How a deal ended.
END_NONE, END_PLAYED, END_CONCEDED, END_SEDMA_VOID, END_BROKEN, END_LAID = 0, 1, 2, 3, 4, 5
# Licitovaný's unplayed deals (LICITOVANY.md §6, §9).
END_NO_BID, END_FOLD, END_SHOW, END_BARE_FLEK = 6, 7, 8, 9
END_NAMES = ("none", "played", "conceded", "sedma_not_played", "decided_early", "laid_down",
             "no_bid", "fold", "show", "bare_game_flek")

# The state record, declared once: ``(name, slots, meaning)`` plus how to read a field
# (``kind``: int, card (a card code or -1), mask (a card set), i64 (2 slots a value),
# word) and, for every field the compiled code indexes with, its accepted ``(lo, hi)``
# range (checked by :mod:`.validate`: restored states, a search's root).  Offsets,
# STATE_SIZE, the validator data, :func:`describe` and the README table are derived from
# it.  Everything before
# DEALER lasts the whole partie, so do the P4_* fields at the end; a new deal clears the
# rest.  With max_flek=None one deal
# can pay more than an int32 holds, so amounts are exact 64-bit (see core/settle.py).


class Field(NamedTuple):
    """One field of the state record (see :data:`STATE_SCHEMA`)."""

    name: str
    slots: int
    meaning: str
    kind: str = "int"
    range: tuple[int, int] | None = None
    names: tuple[str, ...] | None = None  # value names of an enumeration

    @property
    def count(self) -> int:
        """Number of values (a 64-bit amount takes two slots)."""
        return self.slots // 2 if self.kind == "i64" else self.slots


_I32_MAX = 2**31 - 1
_SEAT = (-1, 2)
_FLAG = (0, 1)
_CARD = (-1, 31)
F = Field
STATE_SCHEMA: tuple[Field, ...] = (
    F("DEAL_NO", 1, "0-based deal of the partie", range=(0, _I32_MAX)),
    F("PARTIE_DONE", 1, "the last deal of the partie is over", range=_FLAG),
    F("SCORE", 6, "running groše of the partie per seat", "i64"),
    F("RNG", 4, "xorshift128 generator words (shuffle, cuts)", "word"),
    F("DEALER", 1, "seat dealing this deal", range=(0, 2)),
    F("FOREHAND", 1, "seat left of the dealer (§3)", range=(0, 2)),
    F("CUT", 1, "cut of this deal (-1: shuffled, not cut)", range=(-1, 30)),
    F("POS", 32, "[card]: position of each card in the dealt deck (§2)"),
    F("HAND", 3, "[seat]: cards in hand", "mask"),
    F("PHASE", 1, "phase of the deal", range=(0, 15), names=PHASE_NAMES),
    F("TO_MOVE", 1, "seat to move (-1 when the deal is over)", range=_SEAT),
    F("TRUMP_CARD", 1, "the trump card (-1 before §3)", "card", _CARD),
    F("TRUMP_PUBLIC", 1, "the trump suit has been shown (§5.1)", range=_FLAG),
    F("BLIND", 1, "trumps chosen z lidu (§3)", range=_FLAG),
    F("CONTRACT", 1, "contract (§4)", range=(0, 3), names=CONTRACT_NAMES),
    F("ACTOR", 1, "seat that made the last contract (§4.4)", range=_SEAT),
    F("CHOOSER", 1, "seat naming a contract / discarding", range=_SEAT),
    F("NDISC", 1, "discards made so far", range=(0, 2)),
    F("DISC", 2, "the discards in order", "card", _CARD),
    F("TALON", 1, "the talon", "mask"),
    F("TALON_OWNER", 1, "seat that laid the talon", range=_SEAT),
    F("LAID", 3, "[seat]: cards each seat has put into a talon", "mask"),
    F("TOOK", 3, "[seat]: cards each seat has taken from a talon", "mask"),
    F("ANSWERS", 1, "answers given to Barva? or a betl", range=(0, 2)),
    F("BAD_SEAT", 1, "seat that said bad to Barva? (§4.2)", range=_SEAT),
    F("GOOD_SEATS", 1, "seats (bits) that said good to Barva?", range=(0, 7)),
    F("DURCH_SEAT", 1, "seat that answered a betl with durch (§4.3)", range=_SEAT),
    F("BETL_SEAT", 1, "seat that named the betl", range=_SEAT),
    F("ANNOUNCE", 1, "forehand's announcement (§5.1)", range=(0, 4), names=ANNOUNCE_NAMES),
    F("BET_EXISTS", 4, "[bet]: the bet exists (§5.2)", range=_FLAG),
    F("BET_LEVEL", 4, "[bet]: flek level", range=(0, _I32_MAX)),
    F("BET_SEAT", 4, "[bet]: seat that announced a bet against", range=_SEAT),
    F("RAISED_BY", 4, "[bet]: 2 bits a level 1..15: seat + 1 that raised it to that level "
      "(licitovaný: bit 30 set by an odd raise above 15 from another seat than level 1's)",
      "word"),
    F("FLEK_ROUND", 1, "flek round, 1 = the defence's first (§5.3)", range=(0, _I32_MAX)),
    F("FLEK_TURN", 1, "turn within a defence round", range=_FLAG),
    F("RAISABLE", 1, "bets (bits) the side to speak may raise", range=(0, 15)),
    F("RAISED_RND", 1, "bets (bits) raised this round", range=(0, 15)),
    F("ANNOUNCED_RND", 1, "bets (bits) announced this round", range=(0, 15)),
    F("OVERCALLS", 1, "open contracts (§11.1): bit 0 the betl / durch is open; bits 2k+1.."
      "2k+2 (k = 0, 1): seat + 1 of the (k+2)-th overcall (DURCH_SEAT is the first)",
      range=(0, 31)),
    F("TRICK_NO", 1, "trick being played, 0..9 (10: all played)", range=(0, 10)),
    F("TRICK_N", 1, "cards in the current trick", range=(0, 2)),
    F("LEADER", 1, "seat leading the current trick", range=_SEAT),
    F("TRICKS", 30, "[trick][0..2]: the cards of each trick in play order", "card", _CARD),
    F("TLEAD", 10, "[trick]: seat that led it", range=_SEAT),
    F("TWIN", 10, "[trick]: seat that won it", range=_SEAT),
    F("PLAYED", 1, "cards played so far", "mask"),
    F("PTS", 3, "[seat]: card points taken", range=(0, 90)),
    F("NTRICKS", 3, "[seat]: tricks taken", range=(0, 10)),
    F("MARR_SEAT", 4, "[suit]: seat that announced its marriage (§7)", range=_SEAT),
    F("MARR_ORD", 4, "[suit]: order of that marriage", range=(-1, 3)),
    F("NMARR", 1, "marriages announced", range=(0, 4)),
    F("SEVEN_TRICK", 1, "trick in which the trump seven fell (-1: not yet)", range=(-1, 9)),
    F("SEVEN_SEAT", 1, "seat that played the trump seven", range=_SEAT),
    F("SEVEN_WON", 1, "the trump seven won its trick", range=_FLAG),
    F("CLAIMER", 1, "seat that laid its cards down (§8)", range=_SEAT),
    F("CLAIM_HANDS", 3, "[seat]: the hands at the lay-down", "mask"),
    F("END", 1, "how the deal ended", range=(0, 9), names=END_NAMES),
    F("SETTLED", 1, "the deal is settled (§9)", range=_FLAG),
    F("WON", 5, "[line]: the line was won (§9)"),
    F("WORTH", 5, "[line]: base price of the line"),
    F("SIDE_PTS", 2, "[actor, defence]: card points taken (the record's actor_cards, "
                     "defence_cards; marriages apart, SIDE_MARR)"),
    F("SIDE_MARR", 2, "[actor, defence]: marriage points"),
    F("SIDE_FIRST", 2, "[actor, defence]: each side's first marriage (licitovaný: "
                       "the actor's; the defence's 0, no rule counts it, LICITOVANY.md §3)"),
    F("SILENT100", 1, "silent hundred: 0 none, 1 actor, 2 defence", range=(0, 2)),
    F("PAY", 6, "[seat]: groše paid to each seat by this deal", "i64"),
    F("AMT", 10, "[line]: groše of each settlement line", "i64"),
    # Licitovaný mariáš only (LICITOVANY.md); zero in volený.  The contract reuses
    # CONTRACT, ACTOR, TRUMP_CARD (the trump 7), TALON (the deal's talon, then the
    # discards), BET_* (the components game, seven, hundred, two sevens) and the play.
    F("LIC_HIGH", 1, "standing bid: game 1..12 of LICITOVANY.md §3, 0 none", range=(0, 12)),
    F("LIC_HIGH_SEAT", 1, "seat owning the standing bid", range=_SEAT),
    F("LIC_HOLDER", 1, "seat in the holder's position (§4)", range=_SEAT),
    F("LIC_CHALLENGER", 1, "seat in the challenger's position (§4)", range=_SEAT),
    F("LIC_DROPS", 1, "seats that passed in the auction", range=(0, 2)),
    F("LIC_GAME", 1, "announced game 1..12 (§5 T1), 0 none", range=(0, 12)),
    F("LIC_HELP", 1, "helping suit of two sevens (§5 T3), -1 none", range=(-1, 3)),
    F("LIC_LEAD", 1, "face-down lead card of betl / durch (§5 T5)", "card", _CARD),
    F("LIC_QUIET", 1, "consecutive flek turns without a raise (§6)", range=(0, 3)),
    F("LIC_SHOW_SEAT", 1, "defender who must show (§6), -1 none", range=_SEAT),
    F("LIC_LAID", 1, "the deal was laid when flekking ended (§9)", range=_FLAG),
    F("LIC_LAID_PAYER", 1, "defender paying for both under the laid-game rule", range=_SEAT),
    F("LIC_BID_BY", 12, "[game-1]: seat + 1 that bid it, 0 none", range=(0, 3)),
    F("LIC_HOLD_BY", 12, "[game-1]: seat + 1 that held it, 0 none", range=(0, 3)),
    F("LIC_PASS_AT", 3, "[seat]: standing bid + 1 when it passed, 0 not passed", range=(0, 13)),
    F("LIC_RAISE_TURN", 28, "[component][level 1..7]: flek turn + 1 of that raise, 0 none"),
    # Volený: each talon taken in the deal, in order (§4.2, §4.3, §11.1): TOOK is their
    # union per seat, and under open contracts one seat can take two.
    F("TAKEN", 4, "[k]: the cards of the k-th talon taken this deal", "mask"),
    # The four-player table (players=4, RULES.md §11.3): partie fields like SCORE (a new
    # deal keeps them).  The deal itself is a three-seat deal whose seats 0, 1, 2 are
    # forehand, middlehand and the dealer's role (DEALER is 2); they are the players
    # P4_DEALER + 1, + 2, + 3 (mod 4), and SCORE mirrors those players' P4_SCORE.
    F("P4_DEALER", 1, "players=4: the dealer, who sits out this deal (0 with three)",
      range=(0, 3)),
    F("P4_SCORE", 8, "players=4: running groše of the partie per player", "i64"),
)
del F


@njit_generic
def nt_rank(st):
    """Rank of the no-trump contract: 0 betl, 1 durch, 2 open betl, 3 open durch; -1 none."""
    con = st[CONTRACT]
    if con != C_BETL and con != C_DURCH:
        return -1
    return con - C_BETL + 2 * (st[OVERCALLS] & 1)


def contract_name(st) -> str:
    """The contract's name (``open_betl`` / ``open_durch`` for the open ones)."""
    r = nt_rank(st)
    return NT_NAMES[r] if r >= 0 else CONTRACT_NAMES[int(st[CONTRACT])]


def _offsets(schema: tuple[Field, ...]) -> tuple[dict[str, int], int]:
    out, off = {}, 0
    for f in schema:
        out[f.name] = off
        off += f.slots
    return out, off


OFFSETS, _SIZE = _offsets(STATE_SCHEMA)
"""Offset of every field of :data:`STATE_SCHEMA` by name."""

# The offsets as plain module constants (what numba compiles against and linters see);
# checked against the schema just below.
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
OVERCALLS = 96
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
LIC_HIGH = 208
LIC_HIGH_SEAT = 209
LIC_HOLDER = 210
LIC_CHALLENGER = 211
LIC_DROPS = 212
LIC_GAME = 213
LIC_HELP = 214
LIC_LEAD = 215
LIC_QUIET = 216
LIC_SHOW_SEAT = 217
LIC_LAID = 218
LIC_LAID_PAYER = 219
LIC_BID_BY = 220  # 12 slots
LIC_HOLD_BY = 232  # 12 slots
LIC_PASS_AT = 244  # 3 slots
LIC_RAISE_TURN = 247  # 28 slots
TAKEN = 275  # 4 slots
P4_DEALER = 279
P4_SCORE = 280  # 4 int64 values = 8 slots
STATE_SIZE = 288


def _check_constants() -> None:
    g = globals()
    wrong = [f"{n} = {g.get(n)}, schema {o}" for n, o in OFFSETS.items() if g.get(n) != o]
    if _SIZE != STATE_SIZE:
        wrong.append(f"STATE_SIZE = {STATE_SIZE}, schema {_SIZE}")
    for f in STATE_SCHEMA:
        if f.kind == "i64" and OFFSETS[f.name] % 2:
            wrong.append(f"{f.name}: a 64-bit field must start on an even slot")
    if wrong:
        raise ImportError("core/state.py: offsets disagree with STATE_SCHEMA: "
                          + "; ".join(wrong))


_check_constants()

# Lines of the settlement (AMT/WON/WORTH slots).
L_GAME, L_SEVEN, L_SEVEN_AG, L_HUNDRED_AG, L_SILENT_SEVEN = 0, 1, 2, 3, 4
LINE_NAMES = ("game", "seven", "seven_against", "hundred_against", "silent_seven")
# Licitovaný's components share the slots (LICITOVANY.md §3): bets 0..3 and lines 0..4.
K_GAME, K_SEVEN, K_HUNDRED, K_TWO_SEVENS = 0, 1, 2, 3
COMPONENT_NAMES = ("game", "seven", "hundred", "two_sevens")
LICIT_LINE_NAMES = ("game", "seven", "hundred", "two_sevens", "silent_seven")

MASK32 = 0xFFFFFFFF


@njit_generic
def getm(st, off):
    """Read a card mask stored in an int32 slot as a non-negative int64."""
    return np.int64(st[off]) & MASK32


@njit_generic
def setm(st, off, m):
    """Store a card mask (0..2**32-1) in an int32 slot."""
    m = np.int64(m) & MASK32
    if m >= 0x80000000:
        m -= 0x100000000
    st[off] = m


@njit_generic
def get64(st, off):
    """Read the exact int64 amount kept in the slots ``off`` (low word) and ``off + 1``."""
    return (np.int64(st[off + 1]) << 32) | (np.int64(st[off]) & MASK32)


@njit_generic
def set64(st, off, v):
    """Store an int64 amount in two int32 slots: the low 32 bits, then the signed rest."""
    v = np.int64(v)
    setm(st, off, v)
    st[off + 1] = v >> 32


def item64(st: np.ndarray, off: int) -> int:
    """:func:`get64` in plain Python (low word, then the signed high word), for the
    readers that run once a deal: no compiled call, no numpy scalar."""
    return (st.item(off + 1) << 32) | (st.item(off) & 0xFFFFFFFF)


def read64(states: np.ndarray, off: int, n: int) -> np.ndarray:
    """``n`` consecutive 64-bit amounts at ``off`` of one state or a batch (``int64[..., n]``),
    e.g. ``read64(states, SCORE, 3)``; the numpy counterpart of :func:`get64`."""
    lo = states[..., off:off + 2 * n:2].astype(np.int64) & MASK32
    return (states[..., off + 1:off + 2 * n:2].astype(np.int64) << 32) | lo


# --- a small, exactly reproducible generator kept inside the state (xorshift128) ---


@njit_generic
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


@njit_generic
def rng_below(st, n):
    """Uniform integer in ``[0, n)`` by rejection (no modulo bias)."""
    limit = (0x100000000 // n) * n
    while True:
        r = rng_next(st)
        if r < limit:
            return r % n


def seed_words(seed: int | None) -> np.ndarray:
    """Four non-zero 32-bit words for the state's generator from any integer seed: the
    words of numpy's ``SeedSequence(seed mod 2**128).generate_state(4)`` (None: of fresh
    entropy), made by a compiled copy of its algorithm (:func:`.seeding.words_of`)."""
    if seed is None:
        w = np.random.SeedSequence(None).generate_state(4, dtype=np.uint32).astype(np.int64)
        if not w.any():
            w[0] = 0x9E3779B9
        return w
    return words_of(seed)


def new_state() -> np.ndarray:
    return np.zeros(STATE_SIZE, dtype=np.int32)


def seed_rng(st: np.ndarray, seed: int | None) -> None:
    """Seed the state's generator from any integer seed (None: fresh entropy)."""
    # setm of each word in one store (the same int32 bits; no compiled call a word)
    st[RNG:RNG + 4] = seed_words(seed).astype(np.uint32).view(np.int32)


# --- readable views of the record, derived from the schema ---


def _value(f: Field, v: int) -> object:
    if f.kind == "mask":
        m = int(v) & MASK32
        return [CARD_CODES[c] for c in range(32) if (m >> c) & 1]
    if f.kind == "card":
        return CARD_CODES[v] if 0 <= v < 32 else None
    if f.names is not None and 0 <= v < len(f.names):
        return f.names[v]
    return int(v)


def describe(st: np.ndarray) -> dict[str, object]:
    """The record as named fields (lower-case schema names), for debugging: card sets as
    lists of card codes, cards as codes (None for -1), 64-bit amounts as ints,
    enumerations by name; a field of several values is a list."""
    st = np.asarray(st)
    if st.shape != (STATE_SIZE,) or st.dtype != np.int32:
        raise ValueError(f"describe: expected one int32[{STATE_SIZE}] state record, got "
                         f"{st.dtype}{list(st.shape)}")
    out: dict[str, object] = {}
    for f in STATE_SCHEMA:
        off = OFFSETS[f.name]
        if f.kind == "i64":
            vals = [int(v) for v in read64(st, off, f.count)]
        else:
            vals = [_value(f, int(v)) for v in st[off:off + f.slots]]
        out[f.name.lower()] = vals[0] if f.count == 1 else vals
    return out


def layout_table() -> str:
    """The Markdown table of the state record (README "State record")."""
    kinds = {"int": "int", "card": "card code", "mask": "card mask", "i64": "int64 x{n}",
             "word": "uint32"}
    rows = ["| field | offset | slots | type | range | meaning |",
            "| --- | ---: | ---: | --- | --- | --- |"]
    for f in STATE_SCHEMA:
        rng = f"{f.range[0]}..{f.range[1]}" if f.range else ""
        kind = kinds[f.kind].format(n=f.count)
        meaning = f.meaning
        if f.names:
            meaning += ": " + ", ".join(f"{i} {n}" for i, n in enumerate(f.names))
        rows.append(f"| `{f.name}` | {OFFSETS[f.name]} | {f.slots} | {kind} | {rng} | "
                    f"{meaning} |")
    return "\n".join(rows)
