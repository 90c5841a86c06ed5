"""Worlds consistent with what one seat knows: knowledge and exact uniform sampling.

A *world* is a full ``int32[STATE_SIZE]`` state record that agrees with the real
one in everything the observing seat knows, the hidden cards redealt.  The hidden
cards are those not in the seat's own hand, not played, and not in a talon the
seat laid and still sees.  Each goes to one of three *locations*: 0 = the next
seat clockwise, 1 = the previous seat, 2 = the rest (the talon lying on the
table; during forehand's trump choice, for forehand itself: its own five unseen
cards).

:func:`knowledge` derives, from the seat's own cards and the public history only,
which locations each hidden card may be in, how many cards each location holds
and the constraints that are not per card.  Play-history constraints are found
with the core itself: a hidden card ``h`` cannot be in seat ``p``'s hand when
``legal_cards`` on the position of one of ``p``'s plays, with ``p`` holding just
the played card and ``h``, forbids the card ``p`` played (legality under
RULES.md §6 depends on the hand only through such pairs), and likewise for a
marriage that ``play_card`` would or would not have announced.

:func:`sample_worlds` draws location assignments exactly uniformly among those
satisfying the per-card masks and the counts (sequential sampling from counted
completions, in integers), rejects those breaking a must-hold / at-most
constraint, completes the hidden details (earlier talons, the trump card while
not public, the deck positions of the hidden cards) and finally replays the
public history on the world with the core (:func:`check_world`) — a safety net
that keeps the sampling exact even where the knowledge was not tight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.engine import apply_action, legal_actions
from ...core.jit import njit, njit_generic, njit_inline
from ...core.play import held_marriages, legal_cards, play_card
from ...core.state import (
    ACTOR,
    AN_SEDMA,
    AN_STO,
    AN_STO_SEDMA,
    ANNOUNCE,
    B_HUNDRED_AG,
    B_SEVEN_AG,
    BAD_SEAT,
    BET_EXISTS,
    BET_SEAT,
    BLIND,
    C_SUIT,
    CONTRACT,
    DISC,
    DURCH_SEAT,
    FLEK_ROUND,
    FOREHAND,
    HAND,
    LAID,
    LEADER,
    MARR_ORD,
    MARR_SEAT,
    NDISC,
    NMARR,
    NTRICKS,
    OVERCALLS,
    PH_ANNOUNCE,
    PH_DISCARD,
    PH_DONE,
    PH_FLEK,
    PH_PLAY,
    PH_TRUMP,
    PHASE,
    PLAYED,
    POS,
    PTS,
    RAISABLE,
    RAISED_RND,
    RNG,
    SEVEN_SEAT,
    SEVEN_TRICK,
    SEVEN_WON,
    STATE_SIZE,
    TAKEN,
    TALON,
    TALON_OWNER,
    TLEAD,
    TO_MOVE,
    TOOK,
    TRICK_N,
    TRICK_NO,
    TRICKS,
    TRUMP_CARD,
    TRUMP_PUBLIC,
    TWIN,
    getm,
    rng_next,
    seed_words,
    setm,
)
from ...core.tables import ALL, BLIND_POS, POS_SEAT
from ...core.tricks import (
    cards_played,
    highest,
    lowest,
    played_card,
    popcount,
    popcount_py,
    trump_suit,
)
from ...core.validate import check_seat_view, check_world_count
from ...rules import rules_vector as _rules_vector
from . import actions as A

LOC_NEXT, LOC_PREV, LOC_REST = 0, 1, 2
LOCATION_NAMES = ("next", "prev", "rest")

# Status codes of the compiled knowledge routine.
K_OK = 0
K_BAD_PHASE = 1
K_SIZES = 2
K_EMPTY_MASK = 3
K_MUST = 4
K_COUNT = 5
_K_MESSAGES = (
    "ok",
    "sample_worlds/knowledge need a deal in progress (phases trump .. play)",
    "the public hand sizes do not add up to the hidden cards",
    "a hidden card has no possible location: the state contradicts its own history",
    "an announcement cannot be explained by any hidden cards",
    "no assignment of the hidden cards fits the per-card constraints and the hand sizes",
)

MAX_MUST = 4
MAX_ATMOST = 2


class WorldError(ValueError):
    """The position admits no world consistent with the seat's knowledge."""


# --------------------------------------------------------------------------------------
# Public structure of the deal
# --------------------------------------------------------------------------------------


@njit_generic
def _bit(c):
    return np.int64(1) << c


@njit
def played_by(st):
    """Cards each seat has played in tricks so far (int64[3] masks)."""
    out = np.zeros(3, dtype=np.int64)
    if st[PHASE] < PH_PLAY:
        return out
    for k in range(cards_played(st)):
        _, _, p, c = played_card(st, k)
        out[p] |= _bit(c)
    return out


MAX_TALONS = 5
"""Most talons in one deal: forehand's, the bad-sayer's and three overcallers' (§11.1)."""


@njit
def talon_chain(st):
    """The public history of the talons.

    Returns ``(layer, taker, n, cur_size, f_suit)``: talon ``k < n`` was laid by
    ``layer[k]`` (forehand first) and taken by ``taker[k]`` (-1: it still lies on the
    table, holding ``cur_size`` cards); ``f_suit`` says that forehand's talon was laid
    for a suit game (no ace, ten or trump card in it).
    """
    f = st[FOREHAND]
    ph = st[PHASE]
    bad = st[BAD_SEAT]
    du = st[DURCH_SEAT]
    half = ph == PH_DISCARD and st[NDISC] == 1
    # The seats that took a talon, in order: the bad-sayer, the overcallers (§4, §11.1).
    takers = np.full(MAX_TALONS, -1, dtype=np.int64)
    nt = 0
    if bad >= 0:
        takers[nt] = bad
        nt += 1
    if du >= 0:
        takers[nt] = du
        nt += 1
    ov = st[OVERCALLS] >> 1
    while ov & 3:
        takers[nt] = (ov & 3) - 1
        nt += 1
        ov >>= 2
    laid_last = ph > PH_DISCARD or half  # the last taker has laid (part of) its talon
    layer = np.full(MAX_TALONS, -1, dtype=np.int64)
    taker = np.full(MAX_TALONS, -1, dtype=np.int64)
    n = 0
    if nt > 0 or laid_last:
        layer[0] = f
        n = 1
    for i in range(nt):
        taker[i] = takers[i]
        if i + 1 < nt or laid_last:
            layer[i + 1] = takers[i]
            n = i + 2
    cur = 0
    if n > 0 and taker[n - 1] < 0:
        cur = 1 if half else 2
    f_suit = bad >= 0 or (du < 0 and st[CONTRACT] == C_SUIT)
    return layer, taker, n, cur, f_suit


@njit
def hand_sizes(st):
    """Number of cards in each seat's hand, from public information only."""
    f = st[FOREHAND]
    pb = played_by(st)
    layer, taker, n, cur, _ = talon_chain(st)
    size = np.zeros(3, dtype=np.int64)
    for s in range(3):
        size[s] = (12 if s == f else 10) - popcount(pb[s])
    for k in range(n):
        size[layer[k]] -= cur if (k == n - 1 and taker[k] < 0) else 2
        if taker[k] >= 0:
            size[taker[k]] += 2
    return size


@njit
def _first7(st):
    m = np.int64(0)
    for c in range(32):
        if st[POS + c] < 7:
            m |= _bit(c)
    return m


@njit
def _seen_hand(st, me):
    """The cards of its own hand that ``me`` sees (forehand sees 7 while choosing trumps)."""
    h = getm(st, HAND + me)
    if st[PHASE] == PH_TRUMP and me == st[FOREHAND]:
        h &= _first7(st)
    return h


@njit
def _tc_known(st, me):
    return st[TRUMP_CARD] >= 0 and (st[TRUMP_PUBLIC] != 0 or me == st[FOREHAND])


@njit
def _barred_discards(st, rules, f, tc):
    """Cards forehand may not lay to a suit game's talon (asked of the core)."""
    sc = st.copy()
    sc[PHASE] = PH_DISCARD
    sc[CONTRACT] = C_SUIT
    sc[TO_MOVE] = f
    sc[TRUMP_CARD] = tc
    setm(sc, HAND + f, ALL)
    mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
    legal_actions(sc, rules, mask)
    out = np.int64(0)
    for c in range(32):
        if mask[A.DISCARD0 + c] == 0:
            out |= _bit(c)
    return out


@njit
def _single_card_enablers(st, rules, seat, phase, action, off_bet):
    """Cards ``c`` such that holding just ``{c}`` makes ``action`` legal for ``seat``."""
    sc = st.copy()
    sc[PHASE] = phase
    sc[TO_MOVE] = seat
    if phase == PH_FLEK:
        sc[FLEK_ROUND] = 1
        sc[RAISABLE] = 0
        sc[RAISED_RND] = 0
        if off_bet >= 0:
            sc[BET_EXISTS + off_bet] = 0
    mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
    out = np.int64(0)
    for c in range(32):
        setm(sc, HAND + seat, _bit(c))
        legal_actions(sc, rules, mask)
        if mask[action]:
            out |= _bit(c)
    return out


# --------------------------------------------------------------------------------------
# Knowledge
# --------------------------------------------------------------------------------------


@njit
def _add_must(must, nmust, loc, alts, nalt, hidden, allow, locb, held):
    """Reduce a must-hold-one-of constraint; returns the new ``nmust`` or -1 (impossible)."""
    feas = np.zeros(4, dtype=np.int64)
    nf = 0
    for i in range(nalt):
        a = alts[i]
        rest = a & ~held
        if rest & ~hidden:
            continue
        ok = True
        for c in range(32):
            if (rest >> c) & 1 and not allow[c] & locb:
                ok = False
        if not ok:
            continue
        if rest == 0:
            return nmust  # already satisfied by cards the seat is known to have held
        feas[nf] = rest
        nf += 1
    if nf == 0:
        return -1
    if nf == 1:
        for c in range(32):
            if (feas[0] >> c) & 1:
                allow[c] &= locb
        return nmust
    must[nmust, 0] = loc
    for i in range(4):
        must[nmust, 1 + i] = feas[i] if i < nf else -1
    return nmust + 1


@njit_inline
def _allow_by_play(st, me, rules, hidden, allow, locbit):
    """Knowledge step 1, the card play: a hidden card is possible for a seat only if its
    plays stay legal with it (following, beating, trumping, RULES.md §6), and a king or
    queen played without announcing the marriage (§7) places or excludes its partner."""
    trump = trump_suit(st)
    sc = st.copy()
    kq_seen = np.zeros(3, dtype=np.int64)
    for k in range(cards_played(st)):
        t, j, p, c = played_card(st, k)
        if p == me:
            continue
        b = locbit[p]
        sc[TRICK_NO] = t
        sc[TRICK_N] = j
        for h in range(32):
            if (hidden >> h) & 1 and allow[h] & b:
                setm(sc, HAND + p, _bit(c) | _bit(h))
                if not (legal_cards(sc, p) >> c) & 1:
                    allow[h] &= ~b
        r = c & 7
        if trump >= 0 and (r == 5 or r == 6):
            s = c >> 3
            q = c + 1 if r == 5 else c - 1
            first = ((kq_seen[p] >> s) & 1) == 0
            kq_seen[p] |= np.int64(1) << s
            if first and (hidden >> q) & 1:
                if st[MARR_SEAT + s] == p:
                    allow[q] &= b  # the marriage was announced: p held the partner
                else:
                    s2 = st.copy()
                    s2[TRICK_NO] = t
                    s2[TRICK_N] = j
                    s2[NMARR] = 0
                    for i in range(4):
                        s2[MARR_SEAT + i] = -1
                    setm(s2, HAND + p, _bit(c) | _bit(q))
                    play_card(s2, rules, p, c)
                    if s2[NMARR] > 0:
                        allow[q] &= ~b  # holding it would have announced one


@njit_inline
def _repeats(layer, taker, n):
    """A seat laid or took two of the ``n`` talons (open contracts, RULES.md §11.1: the
    answering starts again from each new contract's player)."""
    laid = 0
    took = 0
    for k in range(n):
        if (laid >> layer[k]) & 1:
            return True
        laid |= 1 << layer[k]
        if taker[k] >= 0:
            if (took >> taker[k]) & 1:
                return True
            took |= 1 << taker[k]
    return False


@njit_inline
def _allow_by_talon_chain(st, me, allow, locbit, layer, taker, n, mine):
    """Where the cards ``mine`` (hidden, laid by seat ``me``) may be when a seat laid or
    took two talons: from the last talon ``me`` laid with the card, to its taker, and on
    through each later talon laid by a seat that may hold it (to that talon's taker, or
    the table while it lies) - except the talons ``me`` laid or took, which it saw
    without the card."""
    for c in range(32):
        if not (mine >> c) & 1:
            continue
        last = -1
        for k in range(n):
            if layer[k] == me and taker[k] >= 0 and (getm(st, TAKEN + k) >> c) & 1:
                last = k
        if last < 0:
            continue
        holders = np.int64(1) << taker[last]  # seats 0..2; bit 3: the table
        for j in range(last + 1, n):
            if layer[j] == me or taker[j] == me or not (holders >> layer[j]) & 1:
                continue
            holders |= np.int64(1) << (taker[j] if taker[j] >= 0 else 3)
        bits = np.int64(0)
        for s in range(3):
            if s != me and (holders >> s) & 1:
                bits |= locbit[s]
        if (holders >> 3) & 1:
            bits |= 1 << LOC_REST
        allow[c] &= bits


@njit_inline
def _allow_by_talons(st, me, rules, hidden, allow, locbit, atmost, pb, layer, taker, n,
                     f_suit):
    """Knowledge step 3, the talons (RULES.md §4): forehand's suit-game talon on the table
    holds no barred card; a talon this seat laid and another took went to the taker, and
    on only through the taker's own talon.  Returns the rows written to ``atmost``."""
    f = st[FOREHAND]
    tc = st[TRUMP_CARD]
    if n == 1 and f_suit and f != me and taker[0] < 0:
        barred = _barred_discards(st, rules, f, tc if _tc_known(st, me) else -1)
        for c in range(32):
            if (barred >> c) & 1 and (hidden >> c) & 1:
                allow[c] &= ~np.int64(1 << LOC_REST)
    # A talon this seat laid and another took: its cards went to the taker, and on
    # only through the taker's own talon.
    mine = getm(st, LAID + me) & hidden
    if mine and _repeats(layer, taker, n):
        _allow_by_talon_chain(st, me, allow, locbit, layer, taker, n, mine)
        return 0
    natmost = 0
    for k in range(n):
        if layer[k] != me or taker[k] < 0 or mine == 0:
            continue
        q = taker[k]
        bits = locbit[q] | (1 << LOC_REST)
        if k + 1 < n and taker[k + 1] >= 0:
            r = taker[k + 1]
            if r == me:
                bits = locbit[q]
            else:
                bits = locbit[q] | locbit[r] | (1 << LOC_REST)
                lim = 2 - popcount(getm(st, LAID + me) & pb[r])
                atmost[natmost, 0] = mine
                atmost[natmost, 1] = locbit[r] | (1 << LOC_REST)
                atmost[natmost, 2] = lim
                natmost += 1
        for c in range(32):
            if (mine >> c) & 1:
                allow[c] &= bits
    return natmost


@njit
def knowledge_core(st, me, rules):
    """Compiled :func:`knowledge`: reads only what seat ``me`` may know.

    Returns ``(status, hidden, allow[32], counts[3], must[MAX_MUST, 5], nmust,
    atmost[MAX_ATMOST, 3], natmost)``.
    """
    allow = np.zeros(32, dtype=np.int64)
    counts = np.zeros(3, dtype=np.int64)
    must = np.full((MAX_MUST, 5), -1, dtype=np.int64)
    atmost = np.zeros((MAX_ATMOST, 3), dtype=np.int64)
    ph = st[PHASE]
    if ph < PH_TRUMP or ph >= PH_DONE:
        return K_BAD_PHASE, np.int64(0), allow, counts, must, 0, atmost, 0
    f = st[FOREHAND]
    nx = (me + 1) % 3
    pv = (me + 2) % 3
    locbit = np.zeros(3, dtype=np.int64)
    locbit[nx] = 1
    locbit[pv] = 2
    pb = played_by(st)
    size = hand_sizes(st)
    layer, taker, n, cur, f_suit = talon_chain(st)

    hidden = ALL & ~_seen_hand(st, me) & ~getm(st, PLAYED)
    talon_mine = st[TALON_OWNER] == me
    if talon_mine:
        hidden &= ~getm(st, TALON)
    counts[LOC_NEXT] = size[nx]
    counts[LOC_PREV] = size[pv]
    if st[TALON_OWNER] >= 0 and not talon_mine:
        counts[LOC_REST] = cur
    elif ph == PH_TRUMP and me == f:
        counts[LOC_REST] = 5
    if popcount(hidden) != counts[0] + counts[1] + counts[2]:
        return K_SIZES, hidden, allow, counts, must, 0, atmost, 0
    base = np.int64(0)
    for i in range(3):
        if counts[i] > 0:
            base |= 1 << i
    for c in range(32):
        if (hidden >> c) & 1:
            allow[c] = base

    # 1. The card play: following, beating, trumping (RULES.md §6) and marriages (§7).
    if ph == PH_PLAY:
        _allow_by_play(st, me, rules, hidden, allow, locbit)

    # 2. The trump card, once shown, went back into forehand's hand (never to a talon).
    tc = st[TRUMP_CARD]
    if st[TRUMP_PUBLIC] and tc >= 0 and (hidden >> tc) & 1 and f != me:
        allow[tc] &= locbit[f]

    # 2b. Open betl / durch (RULES.md §11.1): the actor's hand lies face up after the
    #     first trick, so each hidden card is known to be in it or not.
    actor = st[ACTOR]
    if st[OVERCALLS] & 1 and ph == PH_PLAY and st[TRICK_NO] >= 1 and actor != me:
        shown = getm(st, HAND + actor)
        for c in range(32):
            if (hidden >> c) & 1:
                if (shown >> c) & 1:
                    allow[c] &= locbit[actor]
                else:
                    allow[c] &= ~locbit[actor]

    # 3. Talons.  Forehand's suit-game talon lying on the table holds no barred card.
    natmost = _allow_by_talons(st, me, rules, hidden, allow, locbit, atmost, pb, layer,
                               taker, n, f_suit)

    # 4. Announcements: sedma / seven against need the trump seven, sto / hundred
    #    against a marriage, held when announced (RULES.md §5, §12).
    nmust = np.int64(0)
    alts = np.zeros(4, dtype=np.int64)
    an = st[ANNOUNCE]
    for which in range(4):
        seat = -1
        act = -1
        if which == 0 and (an == AN_SEDMA or an == AN_STO_SEDMA):
            seat = f
            act = A.ANNOUNCE_SEDMA
        elif which == 1 and (an == AN_STO or an == AN_STO_SEDMA):
            seat = f
        elif which == 2 and st[BET_EXISTS + B_SEVEN_AG]:
            seat = st[BET_SEAT + B_SEVEN_AG]
            act = A.AGAINST_SEVEN
        elif which == 3 and st[BET_EXISTS + B_HUNDRED_AG]:
            seat = st[BET_SEAT + B_HUNDRED_AG]
        if seat < 0 or seat == me:
            continue
        nalt = np.int64(0)
        if act >= 0:
            ph_at = PH_ANNOUNCE if which == 0 else PH_FLEK
            en = _single_card_enablers(st, rules, seat, ph_at, act, B_SEVEN_AG)
            for c in range(32):
                if (en >> c) & 1 and nalt < 4:
                    alts[nalt] = _bit(c)
                    nalt += 1
        else:
            for s in range(4):
                pair = _bit(8 * s + 5) | _bit(8 * s + 6)
                if held_marriages(pair) != 0:
                    alts[nalt] = pair
                    nalt += 1
        nmust = _add_must(must, nmust, locbit[seat], alts, nalt, hidden, allow, locbit[seat],
                          pb[seat])
        if nmust < 0:
            return K_MUST, hidden, allow, counts, must, 0, atmost, natmost
    # Store the location index (not the bit) in must rows.
    for i in range(nmust):
        must[i, 0] = 0 if must[i, 0] == 1 else 1

    for c in range(32):
        if (hidden >> c) & 1 and allow[c] == 0:
            return K_EMPTY_MASK, hidden, allow, counts, must, nmust, atmost, natmost
    return K_OK, hidden, allow, counts, must, nmust, atmost, natmost


# --------------------------------------------------------------------------------------
# Exact uniform assignment under per-card masks and counts
# --------------------------------------------------------------------------------------


@njit
def count_table(allow_list, c0, c1, c2):
    """``W[i, a, b]``: ways to place cards ``i..`` with ``a`` to location 0, ``b`` to 1 and
    the rest to 2 (at most ``c2``), each card only where its mask allows."""
    nh = allow_list.shape[0]
    W = np.zeros((nh + 1, c0 + 1, c1 + 1), dtype=np.int64)
    W[nh, 0, 0] = 1
    for i in range(nh - 1, -1, -1):
        m = allow_list[i]
        rem = nh - i
        for a in range(c0 + 1):
            for b in range(c1 + 1):
                r2 = rem - a - b
                if r2 < 0 or r2 > c2:
                    continue
                v = np.int64(0)
                if m & 1 and a > 0:
                    v += W[i + 1, a - 1, b]
                if m & 2 and b > 0:
                    v += W[i + 1, a, b - 1]
                if m & 4 and r2 > 0:
                    v += W[i + 1, a, b]
                W[i, a, b] = v
    return W


@njit
def _below(rs, n):
    """Uniform integer in ``[0, n)`` for ``n < 2**62`` from the core's generator."""
    if n <= 1:
        return np.int64(0)
    limit = (np.int64(1) << 62) // n * n
    while True:
        r = ((np.int64(rng_next(rs)) & 0x3FFFFFFF) << 32) | np.int64(rng_next(rs))
        if r < limit:
            return r % n


@njit
def _assign(W, cards, allow_list, c0, c1, rs, locm):
    a = c0
    b = c1
    locm[0] = 0
    locm[1] = 0
    locm[2] = 0
    for i in range(cards.shape[0]):
        r = _below(rs, W[i, a, b])
        m = allow_list[i]
        c = cards[i]
        if m & 1 and a > 0:
            w0 = W[i + 1, a - 1, b]
            if r < w0:
                locm[0] |= _bit(c)
                a -= 1
                continue
            r -= w0
        if m & 2 and b > 0:
            w1 = W[i + 1, a, b - 1]
            if r < w1:
                locm[1] |= _bit(c)
                b -= 1
                continue
        locm[2] |= _bit(c)


@njit
def _fits(locm, must, nmust, atmost, natmost):
    for i in range(nmust):
        where = locm[must[i, 0]]
        ok = False
        for k in range(4):
            alt = must[i, 1 + k]
            if alt >= 0 and alt & where == alt:
                ok = True
        if not ok:
            return False
    for i in range(natmost):
        cnt = 0
        for loc in range(3):
            if (atmost[i, 1] >> loc) & 1:
                cnt += popcount(atmost[i, 0] & locm[loc])
        if cnt > atmost[i, 2]:
            return False
    return True


# --------------------------------------------------------------------------------------
# Completing a world and checking it against the public history with the core
# --------------------------------------------------------------------------------------


@njit
def _pick(rs, cand, k):
    """``k`` cards drawn uniformly from the mask ``cand`` (returns -1 if too few)."""
    out = np.int64(0)
    for _ in range(k):
        nc = popcount(cand)
        if nc == 0:
            return np.int64(-1)
        j = _below(rs, nc)
        for c in range(32):
            if (cand >> c) & 1:
                if j == 0:
                    out |= _bit(c)
                    cand &= ~_bit(c)
                    break
                j -= 1
    return out


@njit
def _talons_of(w):
    """Each talon's cards in a (complete) world: taken ones from TAKEN, the last from TALON."""
    layer, taker, n, cur, f_suit = talon_chain(w)
    T = np.zeros(MAX_TALONS, dtype=np.int64)
    for k in range(n):
        if taker[k] >= 0:
            T[k] = getm(w, TAKEN + k)
        else:
            T[k] = getm(w, TALON)
    return T


@njit
def dealt_sets(w):
    """The cards each seat was dealt, reconstructed from a (complete) world."""
    return _undo_talons(w)[0]


@njit
def _undo_talons(w):
    """:func:`dealt_sets` and whether the talons are explained: going back talon by talon,
    each taker held the whole talon just after taking it and its layer none of it just
    after laying it (with a seat laying or taking two talons, §11.1, cards can pass
    through several)."""
    layer, taker, n, cur, f_suit = talon_chain(w)
    T = _talons_of(w)
    pb = played_by(w)
    D = np.zeros(3, dtype=np.int64)
    for s in range(3):
        D[s] = getm(w, HAND + s) | pb[s]
    ok = True
    for k in range(n - 1, -1, -1):
        if taker[k] >= 0:
            if T[k] & ~D[taker[k]]:
                ok = False
            D[taker[k]] &= ~T[k]
        if T[k] & D[layer[k]]:
            ok = False
        D[layer[k]] |= T[k]
    return D, ok


@njit
def _shuffle_positions(w, rs, cards, positions, npos):
    """Give the cards of mask ``cards`` the ``npos`` positions of ``positions`` at random."""
    for i in range(npos - 1, 0, -1):
        j = _below(rs, i + 1)
        tmp = positions[i]
        positions[i] = positions[j]
        positions[j] = tmp
    i = 0
    for c in range(32):
        if (cards >> c) & 1:
            w[POS + c] = positions[i]
            i += 1


@njit_inline
def _place_hidden(w, st, me, locm, rs):
    """The assignment ``locm`` (next seat, previous seat, rest) into ``w``: the rest is
    forehand's unseen five during the trump choice, else the talon another seat laid,
    its two discards in a random order."""
    f = st[FOREHAND]
    setm(w, HAND + (me + 1) % 3, locm[0])
    setm(w, HAND + (me + 2) % 3, locm[1])
    rest = locm[2]
    if st[PHASE] == PH_TRUMP and me == f:
        setm(w, HAND + f, _seen_hand(st, me) | rest)
    elif st[TALON_OWNER] >= 0 and st[TALON_OWNER] != me:
        setm(w, TALON, rest)
        if popcount(rest) == 2:
            lo = lowest(rest)
            hi = highest(rest)
            if _below(rs, np.int64(2)) == 0:
                w[DISC] = lo
                w[DISC + 1] = hi
            else:
                w[DISC] = hi
                w[DISC + 1] = lo
        elif popcount(rest) == 1:
            w[DISC] = lowest(rest)


@njit
def complete_world(w, st, me, rules, locm, rs):
    """Write the assignment ``locm`` into the copy ``w`` of ``st`` and fill in the hidden
    details consistently: earlier talons (LAID/TOOK of the other seats), the talon's
    discard order, the trump card while ``me`` does not know it, deck positions.
    Returns False when no consistent completion exists."""
    f = st[FOREHAND]
    ph = st[PHASE]
    rest = locm[2]
    _place_hidden(w, st, me, locm, rs)
    layer, taker, n, cur, f_suit = talon_chain(st)
    pb = played_by(st)
    tc_hidden = st[TRUMP_CARD] >= 0 and not _tc_known(st, me)
    barred = np.int64(0)
    if f_suit and n > 0:
        barred = _barred_discards(st, rules, f, -1 if tc_hidden else st[TRUMP_CARD])
    # Talons, newest first: known ones stay, hidden ones are drawn.
    T = np.zeros(MAX_TALONS, dtype=np.int64)
    repeats = _repeats(layer, taker, n)
    for k in range(n - 1, -1, -1):
        p = layer[k]
        q = taker[k]
        if q < 0:
            T[k] = getm(w, TALON)
        elif p == me or q == me:
            T[k] = getm(st, TAKEN + k)
        else:
            aq = getm(w, HAND + q) | pb[q]
            forced = np.int64(0)
            if repeats:  # what the taker holds, played or laid in any later talon
                for j in range(k + 1, n):
                    if layer[j] == q:
                        aq |= T[j]
            else:
                if k + 1 < n and layer[k + 1] == q:
                    aq |= T[k + 1]
                if k >= 1 and (layer[k - 1] == me or taker[k - 1] == me):
                    forced = getm(st, TAKEN + k - 1) & aq
            need = 2 - popcount(forced)
            cand = aq & ~forced
            if k == 0 and f_suit:
                cand &= ~barred
            if need < 0:
                return False
            got = _pick(rs, cand, need)
            if got < 0:
                return False
            T[k] = forced | got
    for s in range(3):
        if s == me:
            continue
        lm = np.int64(0)
        tk = np.int64(0)
        for k in range(n):
            if layer[k] == s:
                lm |= T[k]
            if taker[k] == s:
                tk |= T[k]
        setm(w, LAID + s, lm)
        setm(w, TOOK + s, tk)
    for k in range(n):
        if taker[k] >= 0:
            setm(w, TAKEN + k, T[k])
    D = dealt_sets(w)
    # The trump card while this seat does not know it: one of forehand's dealt cards
    # (not in a suit game's talon).
    if tc_hidden:
        cand = D[f]
        if f_suit and n > 0:
            cand &= ~T[0]
        got = _pick(rs, cand, np.int64(1))
        if got < 0:
            return False
        w[TRUMP_CARD] = lowest(got)
    # Deck positions of the cards dealt to the other seats (and forehand's unseen five).
    positions = np.zeros(12, dtype=np.int64)
    for s in range(3):
        off = (s - f) % 3
        if s == me:
            if ph == PH_TRUMP and me == f:
                for i in range(5):
                    positions[i] = 17 + i
                _shuffle_positions(w, rs, rest, positions, np.int64(5))
            continue
        cards = D[s]
        npos = 0
        for p in range(32):
            if POS_SEAT[p] == off:
                positions[npos] = p
                npos += 1
        if popcount(cards) != npos:
            return False
        if s == f and w[TRUMP_CARD] >= 0:
            tcw = w[TRUMP_CARD]
            if (cards >> tcw) & 1 == 0:
                return False
            tp = BLIND_POS if st[BLIND] else _below(rs, np.int64(7))
            w[POS + tcw] = tp
            cards &= ~_bit(tcw)
            j = 0
            for i in range(npos):
                if positions[i] != tp:
                    positions[j] = positions[i]
                    j += 1
            npos -= 1
        _shuffle_positions(w, rs, cards, positions, npos)
    return True


@njit
def play_start(w):
    """The state of ``w`` (phase play) at the start of its card play: every card a seat has
    played back in its hand, the trick record, points, tricks, marriages and the trump
    seven's fate cleared, the first trick's leader to move.  Replaying the recorded cards
    on it with the core's ``apply_action`` gives ``w`` back exactly (tests/test_nnpimc.py)."""
    pb = played_by(w)
    sc = w.copy()
    for s in range(3):
        setm(sc, HAND + s, getm(w, HAND + s) | pb[s])
        sc[PTS + s] = 0
        sc[NTRICKS + s] = 0
    setm(sc, PLAYED, 0)
    sc[TRICK_NO] = 0
    sc[TRICK_N] = 0
    sc[NMARR] = 0
    sc[SEVEN_TRICK] = -1
    sc[SEVEN_SEAT] = -1
    sc[SEVEN_WON] = 0
    for k in range(4):
        sc[MARR_SEAT + k] = -1
        sc[MARR_ORD + k] = -1
    for i in range(30):
        sc[TRICKS + i] = -1
    for t in range(10):
        sc[TLEAD + t] = -1
        sc[TWIN + t] = -1
    if w[TLEAD] >= 0:  # else no card is played yet: leader and seat to move are w's
        sc[LEADER] = w[TLEAD]
        sc[TO_MOVE] = w[TLEAD]
    return sc


@njit_inline
def _tricks_replay(w, rules):
    """§6, §7: every card play legal with the hands as they were, the marriages
    announced exactly as recorded."""
    sc = play_start(w)
    for k in range(cards_played(w)):
        t, j, p, c = played_card(w, k)
        if j == 0 and w[TLEAD + t] != sc[LEADER]:
            return False
        if not (legal_cards(sc, p) >> c) & 1:
            return False
        play_card(sc, rules, p, c)
    for k in range(4):
        if sc[MARR_SEAT + k] != w[MARR_SEAT + k] or sc[MARR_ORD + k] != w[MARR_ORD + k]:
            return False
    return True


@njit_inline
def _announcements_legal(w, rules, pb, mask):
    """§5.1, §5.3: forehand's announcement with its hand after the discards, and the
    defence's announcements in the first flek round, legal for the hands then held."""
    f = w[FOREHAND]
    an = w[ANNOUNCE]
    if an > 0:
        sc = w.copy()
        sc[PHASE] = PH_ANNOUNCE
        sc[TO_MOVE] = f
        setm(sc, HAND + f, getm(w, HAND + f) | pb[f])
        legal_actions(sc, rules, mask)
        if not mask[A.ANNOUNCE_HRA + an - 1]:
            return False
    for b in range(B_SEVEN_AG, B_HUNDRED_AG + 1):
        if w[BET_EXISTS + b]:
            p = w[BET_SEAT + b]
            sc = w.copy()
            sc[PHASE] = PH_FLEK
            sc[FLEK_ROUND] = 1
            sc[RAISABLE] = 0
            sc[RAISED_RND] = 0
            sc[BET_EXISTS + b] = 0
            sc[TO_MOVE] = p
            setm(sc, HAND + p, getm(w, HAND + p) | pb[p])
            legal_actions(sc, rules, mask)
            if not mask[A.AGAINST_SEVEN if b == B_SEVEN_AG else A.AGAINST_HUNDRED]:
                return False
    return True


@njit_inline
def _deal_consistent(w, rules, D, mask):
    """§2–§4: the dealt hands disjoint and of 12/10/10 cards, forehand's suit-game
    talon legal discards from its twelve, the trump card one forehand could choose, the
    deck positions a permutation with each seat's cards at its own positions."""
    f = w[FOREHAND]
    if popcount(D[f]) != 12 or popcount(D[(f + 1) % 3]) != 10 or popcount(D[(f + 2) % 3]) != 10:
        return False
    if D[0] & D[1] or D[0] & D[2] or D[1] & D[2]:
        return False
    layer, taker, n, cur, f_suit = talon_chain(w)
    if n > 0 and f_suit:
        T = _talons_of(w)
        sc = w.copy()
        sc[PHASE] = PH_DISCARD
        sc[CONTRACT] = C_SUIT
        sc[TO_MOVE] = f
        setm(sc, HAND + f, D[f])
        legal_actions(sc, rules, mask)
        for c in range(32):
            if (T[0] >> c) & 1 and not mask[A.DISCARD0 + c]:
                return False
    tc = w[TRUMP_CARD]
    if tc >= 0:
        if not (D[f] >> tc) & 1:
            return False
        if w[BLIND]:
            if w[POS + tc] != BLIND_POS:
                return False
        else:
            sc = w.copy()
            sc[PHASE] = PH_TRUMP
            sc[TO_MOVE] = f
            legal_actions(sc, rules, mask)
            if not mask[A.TRUMP0 + tc]:
                return False
    used = np.int64(0)
    for c in range(32):
        p = w[POS + c]
        if p < 0 or p > 31 or (used >> p) & 1:
            return False
        used |= _bit(p)
        if not (D[(f + POS_SEAT[p]) % 3] >> c) & 1:
            return False
    return True


@njit
def check_world(w, rules):
    """Is the full state ``w`` explained by its own public history?  Checked with the
    core, in named steps: the hand sizes, the tricks replayed (:func:`_tricks_replay`),
    the announcements (:func:`_announcements_legal`), the talons passed on
    (:func:`_undo_talons`), the deal, talon, trump card and deck positions
    (:func:`_deal_consistent`)."""
    size = hand_sizes(w)
    for s in range(3):
        if popcount(getm(w, HAND + s)) != size[s]:
            return False
    pb = played_by(w)
    mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
    if w[PHASE] == PH_PLAY and not _tricks_replay(w, rules):
        return False
    if not _announcements_legal(w, rules, pb, mask):
        return False
    D, explained = _undo_talons(w)
    return explained and _deal_consistent(w, rules, D, mask)


@njit
def _sample_core(st, me, rules, cards, allow_list, counts, must, nmust, atmost, natmost, n,
                 rs, out, max_tries):
    """Fill ``out[:k]``; returns ``(k, tries, rejected_by_check)``."""
    W = count_table(allow_list, counts[0], counts[1], counts[2])
    locm = np.zeros(3, dtype=np.int64)
    got = 0
    tries = 0
    rejected = 0
    while got < n and tries < max_tries:
        tries += 1
        _assign(W, cards, allow_list, counts[0], counts[1], rs, locm)
        if not _fits(locm, must, nmust, atmost, natmost):
            continue
        w = out[got]
        w[:] = st
        if not complete_world(w, st, me, rules, locm, rs):
            rejected += 1
            continue
        if not check_world(w, rules):
            rejected += 1
            continue
        got += 1
    return got, tries, rejected


# --------------------------------------------------------------------------------------
# Python API
# --------------------------------------------------------------------------------------




@dataclass(frozen=True)
class Knowledge:
    """What ``seat`` knows about the hidden cards of a deal (see :func:`knowledge`).

    ``locations[i]`` is the seat of location ``i`` (0: next seat, 1: previous seat;
    location 2 = the rest: the talon on the table, or forehand's unseen five cards while
    it chooses trumps, reported as -1).  ``allowed[c]`` is a bitmask over the
    locations for each hidden card ``c`` (0 for cards that are not hidden);
    ``counts[i]`` the number of hidden cards in location ``i``.  ``must_hold`` lists
    ``(location, alternatives)``: the location holds all cards of at least one
    alternative mask.  ``at_most`` lists ``(cards, location_bits, limit)``: at most
    ``limit`` of ``cards`` lie in the locations of ``location_bits``.
    """

    seat: int
    locations: tuple[int, int, int]
    hidden: int
    allowed: np.ndarray
    counts: np.ndarray
    must_hold: tuple[tuple[int, tuple[int, ...]], ...]
    at_most: tuple[tuple[int, int, int], ...]

    @property
    def cards(self) -> list[int]:
        return [c for c in range(32) if self.hidden >> c & 1]

    def location_masks(self, st: np.ndarray) -> tuple[int, int, int]:
        """Where the hidden cards lie in the full state ``st`` (next, prev, rest)."""
        nx, pv = self.locations[0], self.locations[1]
        m0 = int(getm(st, HAND + nx)) & self.hidden
        m1 = int(getm(st, HAND + pv)) & self.hidden
        return m0, m1, self.hidden & ~m0 & ~m1

    def admits(self, st: np.ndarray) -> bool:
        """Does the placement of the hidden cards in the full state ``st`` satisfy every
        constraint of this knowledge?"""
        locm = self.location_masks(st)
        for i in range(3):
            if popcount_py(locm[i]) != int(self.counts[i]):
                return False
        for c in self.cards:
            where = next(i for i in range(3) if locm[i] >> c & 1)
            if not int(self.allowed[c]) >> where & 1:
                return False
        for loc, alts in self.must_hold:
            if not any(a & locm[loc] == a for a in alts):
                return False
        for cards, bits, limit in self.at_most:
            cnt = sum(popcount_py(cards & locm[i]) for i in range(3) if bits >> i & 1)
            if cnt > limit:
                return False
        return True

    def count_assignments(self) -> int:
        """Assignments satisfying the per-card masks and counts (before the must-hold
        and at-most constraints)."""
        allow = np.array([int(self.allowed[c]) for c in self.cards], dtype=np.int64)
        W = count_table(allow, int(self.counts[0]), int(self.counts[1]), int(self.counts[2]))
        return int(W[0, self.counts[0], self.counts[1]])


def knowledge(st: np.ndarray, seat: int, rules=None) -> Knowledge:
    """What ``seat`` knows about the hidden cards of the deal in ``st``.

    Derived only from the seat's own hand, its own talon cards and the public
    history: hand sizes; suits not followed (void), trumps not played when void
    (no trumps), cards not beaten when obliged to beat (no higher card of that suit
    or trump, RULES.md §6), the announced seven's holder playing it early only when
    forced; marriages (K or Q played with / without announcing, §7); the trump card
    in forehand's hand once shown; forehand's suit talon free of aces, tens and the
    trump card; sedma / seven against ⇒ the trump seven, sto / hundred against ⇒ a
    marriage (§5); the cards of a talon this seat laid are with its taker (or, via the
    taker's own discard, in the next talon or with the seat that took that one).
    """
    rv = _rules_vector(rules)
    st = np.ascontiguousarray(st, dtype=np.int32)
    seat = check_seat_view(st, seat, rv, "knowledge")  # the core indexes with both
    status, hidden, allow, counts, must, nmust, atmost, natmost = knowledge_core(st, seat, rv)
    if status != K_OK:
        raise WorldError(f"seat {seat}: {_K_MESSAGES[status]}")
    must_hold = tuple(
        (int(must[i, 0]), tuple(int(a) for a in must[i, 1:] if a >= 0)) for i in range(nmust)
    )
    at_most = tuple((int(atmost[i, 0]), int(atmost[i, 1]), int(atmost[i, 2]))
                    for i in range(natmost))
    return Knowledge(
        seat=seat,
        locations=((seat + 1) % 3, (seat + 2) % 3, -1),
        hidden=int(hidden),
        allowed=allow.astype(np.int8),
        counts=counts.copy(),
        must_hold=must_hold,
        at_most=at_most,
    )


def _rng_words(rng) -> np.ndarray:
    if isinstance(rng, np.random.Generator):
        seed = int(rng.integers(0, 2**63 - 1))
    elif rng is None:
        seed = None
    else:
        seed = int(rng)
    rs = np.zeros(RNG + 4, dtype=np.int32)  # just the generator slots of a state record
    for i, w in enumerate(seed_words(seed)):
        setm(rs, RNG + i, int(w))
    return rs


def sample_worlds(st: np.ndarray, seat: int, n: int, rng=None, rules=None,
                  max_tries: int | None = None, stats: dict | None = None,
                  restrict: np.ndarray | None = None) -> np.ndarray:
    """``n`` worlds (``int32[n, STATE_SIZE]``) consistent with what ``seat`` knows.

    Every world equals ``st`` in all that ``seat`` knows or is public (its hand, its
    talon, the history, the bids and bets, points and tricks so far), so
    ``observe.encode(world, seat)`` is identical to ``observe.encode(st, seat)``; the
    hidden cards are redealt uniformly at random among all assignments to
    (next seat, previous seat, talon) consistent with the seat's knowledge (see
    :func:`knowledge`), and the other hidden details (earlier talons, the trump card
    before it is shown, deck positions) are completed consistently.  Every world passes
    :func:`check_world`.  ``rng``: a ``numpy.random.Generator``, an int seed, or None.
    ``stats`` (a dict), if given, receives ``tries`` and ``rejected_by_check``.
    ``restrict`` (32 location masks, bits as :func:`knowledge`'s) narrows where each hidden
    card may lie: the worlds are then uniform among those that also meet it (what a
    caller knows from elsewhere, e.g. a later deal of a gathered partie).
    """
    rv = _rules_vector(rules)
    st = np.ascontiguousarray(st, dtype=np.int32)
    seat = check_seat_view(st, seat, rv, "sample_worlds")  # the core indexes with both
    n = check_world_count(n, restrict)
    status, hidden, allow, counts, must, nmust, atmost, natmost = knowledge_core(st, seat, rv)
    if status != K_OK:
        raise WorldError(f"seat {seat}: {_K_MESSAGES[status]}")
    cards = np.array([c for c in range(32) if hidden >> c & 1], dtype=np.int64)
    allow_list = allow[cards].copy() if cards.size else np.zeros(0, dtype=np.int64)
    if restrict is not None and cards.size:
        allow_list &= np.asarray(restrict, dtype=np.int64)[cards]
    out = np.empty((n, STATE_SIZE), dtype=np.int32)
    if n == 0:
        return out
    W = count_table(allow_list, counts[0], counts[1], counts[2])
    if W[0, counts[0], counts[1]] == 0:
        raise WorldError(f"seat {seat}: {_K_MESSAGES[K_COUNT]}")
    rs = _rng_words(rng)
    limit = max_tries if max_tries is not None else 2000 * n + 100000
    got, tries, rejected = _sample_core(st, seat, rv, cards, allow_list, counts, must, nmust,
                                        atmost, natmost, n, rs, out, limit)
    if stats is not None:
        stats["tries"] = int(tries)
        stats["rejected_by_check"] = int(rejected)
    if got < n:
        raise WorldError(
            f"seat {seat}: only {got} of {n} consistent worlds found in {tries} tries"
        )
    return out


# --------------------------------------------------------------------------------------
# Random positions (tests, benchmarks)
# --------------------------------------------------------------------------------------


def random_position(seed: int, rules=None, phase: int = PH_PLAY, plays: int = 0,
                    contract: int | None = None, max_attempts: int = 1000) -> np.ndarray:
    """A state reached by uniformly random legal actions from a shuffled deal.

    It stops at the first state of ``phase`` (for ``PH_PLAY``: after ``plays`` cards
    have been played) and retries new deals until one gets there (and, if ``contract``
    is given, with that contract).  A deal that goes on past the most decisions the
    rules let it take (``core.engine.deal_decisions``) raises StuckGameError.
    """
    from ...core.deal import shuffled_deck
    from ...core.engine import deal_decisions, start_partie
    from ...core.state import new_state, seed_rng
    from ..base import step_bound

    rv = _rules_vector(rules)
    rng = np.random.default_rng(seed)
    mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
    most = int(deal_decisions(rv))
    for _ in range(max_attempts):
        st = new_state()
        seed_rng(st, int(rng.integers(0, 2**62)))
        start_partie(st, shuffled_deck(st), int(rng.integers(0, 3)))
        played = 0
        done = False
        tick = step_bound("random_position's random play of a deal", most)
        while not done:
            tick()
            if st[PHASE] == phase and (contract is None or st[CONTRACT] == contract):
                if phase != PH_PLAY or played >= plays:
                    return st
            legal_actions(st, rv, mask)
            if st[PHASE] == PH_PLAY:
                mask[A.LAY_DOWN] = 0
                played += 1
            a = int(rng.choice(np.flatnonzero(mask)))
            done = bool(apply_action(st, rv, a))
    raise RuntimeError("no random deal reached the requested position")
