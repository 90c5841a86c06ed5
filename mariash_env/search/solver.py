"""Double-dummy solver for the card play of a deal (all hands known).

Minimax over the settlement amount ``A`` per defender (RULES.md §9): the actor
maximises, the defence minimises.  Moves are the game's legal cards, every move is
applied with the core's ``apply_action`` on a copy of the state (a preallocated stack
of ``int32`` records, no allocation per node) and every leaf is scored by the game's
settlement (via ``apply_action``); nothing of the rules is re-implemented here.

Search (iterative, numba-compiled; numba's cache cannot hold self-recursive
functions): alpha-beta with MTD(f) null-window iterations; a Zobrist-hashed
transposition table probed at the start of each trick, keyed on the shape of the
three hands (the ranks relabelled among the cards still in play, see ``_shape_hash``),
the leader, the marriages announced and (when a hundred bet exists) each side's
first marriage, holding bounds per actor card-point total so far -- the value can
only grow with those points, so a lower bound proved with fewer points and an upper
bound proved with more also apply; equivalent-card pruning (same suit, adjacent in
the rank order with no card of another hand or of the open trick between, equal card
points, never the trump seven nor a K/Q whose partner is in the same hand, unless
with its partner under the default marriage rule); move ordering; bound tests: the
core's ``settle`` applied to the best and worst conceivable endings (every remaining
point to one side, each possible fate of the trump seven, each order of first
marriages; cached per scenario signature) closes subtrees that can no longer cross
the window; the core's lay-down test (``can_lay_down`` + ``apply_action``) ends a
search whose result can no longer change; the last trick (every card forced) is played
out directly.

Layout: ``solve`` builds one :data:`Search` record of buffers (states, moves, rules,
constants, table, counters, frames); the steps of the search take it and are compiled
without numba's reference counting (they allocate nothing).

Games: the search names no game.  What a game adds is in its package
(``games/voleny/solve.py``, ``games/licitovany/solve.py``): its legal cards, its
end-of-deal settlement, ``PLAY0``, and the contract's flags of one solve
(``contract_flags``: whether first marriages count, the lay-down action, the cards
kept apart from their neighbours, two constants of the game's own), and the endings it
tells apart beyond the trump seven's and the marriages' (``ending_fates`` and
``set_ending_fate``: licitovaný's two sevens, LICITOVANY.md §8).  The search reads
which game it solves in one place, the dispatch section below (``X_GAME``, and
``_game`` outside the compiled code).

Contracts: the search itself only calls the core (``legal_cards``, ``apply_action``,
``settle``), so a new contract plays and scores correctly once the core has it.  What
knows contracts here, to extend for a new one: ``solve`` (the ``X_*`` constants:
trump suit, which bets count first marriages, whether the bound test applies),
``_settle_scenarios`` and ``_bound_row`` (the endings still conceivable; a game's own, like
the fate of a second, helping seven, are its ``ending_fates``), ``_shape_hash`` and
``_representatives`` (cards that must not be merged with their neighbours, like the trump
seven and a K/Q of a marriage; a game's own are its ``X_APART``), and
``_score_moves`` (move ordering, a speed matter only).
"""

from __future__ import annotations

import threading
import time
from collections import namedtuple
from dataclasses import dataclass, field

import numba
import numpy as np

from ..cards import CARD_CODES
from ..core.engine import (
    apply_action,
    legal_actions,
    n_actions_of,
    solve_can_claim,
    solve_ending_fates,
    solve_legal,
    solve_set_ending_fate,
    solve_settle_end,
    solver_parts,
)
from ..core.jit import njit, wrapping_mul
from ..core.play import side_marriages
from ..core.state import (
    ACTOR,
    AMT,
    C_BETL,
    C_DURCH,
    C_SUIT,
    CONTRACT,
    END,
    END_BROKEN,
    END_PLAYED,
    HAND,
    LEADER,
    MARR_ORD,
    MARR_SEAT,
    NMARR,
    PAY,
    PH_PLAY,
    PHASE,
    PTS,
    SEVEN_SEAT,
    SEVEN_TRICK,
    SEVEN_WON,
    STATE_SIZE,
    TO_MOVE,
    TRICK_N,
    TRICK_NO,
    TRICKS,
    TRUMP_CARD,
    TWIN,
    WON,
    get64,
    getm,
    read64,
)
from ..core.tables import ABOVE_PLAIN, ABOVE_TRUMP, CARD_POINTS, SHARP_MASK
from ..core.tricks import TRUMP_ORDER as ORDER_TRUMP  # ranks from the weakest, trumps
from ..core.tricks import TRUMP_STRENGTH, beats, lowest, popcount, trick_best, trump_suit
from ..core.validate import check_record
from ..rules import R_GAME, R_ORDER_FREE, R_QUEEN_FIRST, is_int
from ..rules import rules_vector as _rules_vector

# Node entry and exit and the core's apply_action are compiled into the search loop: a
# call passing many arrays costs more than most nodes' work (~20 % of the time).
_inline = numba.njit(inline="always")
# The search's steps allocate nothing, so they are compiled without numba's reference
# counting: it increments and decrements (atomically, through calls) the count of every
# array, view and record member a step receives or takes, a third of the solver's time.
# The arrays stay alive in the Python caller (``solve``) for the whole search.  Numba
# refuses to compile an allocation in such a function, so this cannot leak or dangle.
_no_refcount = numba.njit(cache=True, nogil=True, _nrt=False)
_apply_inline = _inline(getattr(apply_action, "py_func", apply_action))  # NUMBA_DISABLE_JIT: plain


@_inline
def _kq_holder(h0, h1, h2, s):
    """Seat + 1 of the hand holding both king and queen of suit ``s`` (§7), 0: none."""
    kq = np.int64(3) << (8 * s + 5)
    if h0 & kq == kq:
        return 1
    if h1 & kq == kq:
        return 2
    if h2 & kq == kq:
        return 3
    return 0


INF = np.int64(1) << 40
MAXD = 32
TT_CA = 10  # table bounds per actor card points so far: 0, 10, ..., 90
# typed constants: literal arguments would make numba compile a second specialisation
ZERO = np.int64(0)
ONE = np.int64(1)
MINUS1 = np.int64(-1)


# ctx slots: constants of one solve.  X_GAME: the game (``rules[R_GAME]``, read by the
# dispatch only); X_PLAY0: the game's first play action; X_LAYDOWN: the game's lay-down
# action (-1: none searched); X_APART: cards (bits) never merged with a neighbour, with
# a class of their own in the table key, besides the trump seven and marriages;
# X_G0, X_G1: the game's own constants (its ``contract_flags``), passed to its parts.
(X_ACTOR, X_SALT, X_TTMASK, X_HUNDRED, X_QFIRST, X_TRUMP, X_CONTRACT, X_BOUNDS, X_LAYDOWN,
 X_HIST, X_LO, X_HI, X_GAME, X_PLAY0, X_APART, X_G0, X_G1) = range(17)
X_SIZE = 17
# stats slots
S_NODES, S_TTHITS, S_BOUNDCUTS, S_LEAVES = range(4)
S_HIST = 8  # history scores [seat * 32 + card] follow the counters
S_SIZE = S_HIST + 96


# --------------------------------------------------------------------------------------
# Zobrist keys of the transposition table
# --------------------------------------------------------------------------------------

_ZR = np.random.default_rng(0x5EA2C4)
ZSHAPE = _ZR.integers(1, 2**62, size=4 * 8 * 3 * 5, dtype=np.int64)  # [suit, place, seat, class]
ZLEAD = _ZR.integers(1, 2**62, size=3, dtype=np.int64)
ZMARR = _ZR.integers(1, 2**62, size=256, dtype=np.int64)
ZFIRST = _ZR.integers(1, 2**62, size=25, dtype=np.int64)


@njit
def _bit(c):
    return np.int64(1) << c


# --------------------------------------------------------------------------------------
# Games: each part is the game's own (``games/<game>/solve.py``), picked by the compiled
# dispatch (``core/engine.py``) from ``ctx[X_GAME]``
# --------------------------------------------------------------------------------------


@_inline
def _legal(st, seat, ctx):
    """The seat's legal cards, by the game's rules (R§6; licitovaný's LICITOVANY.md §7)."""
    return solve_legal(st, seat, ctx[X_GAME])


@_inline
def _settle_end(sc, rules, ctx):
    """Settle the ending in ``sc`` (its ``PAY`` lines) by the game's settlement."""
    solve_settle_end(sc, rules, ctx[X_GAME])


@_inline
def _ending_fates(st, ctx):
    """How many endings the game tells apart at this trick start beyond the trump seven's
    and the marriages' (0: none, else 1..3, each written by ``_set_ending_fate``)."""
    return solve_ending_fates(st, ctx[X_GAME], ctx[X_ACTOR], ctx[X_TRUMP], ctx[X_G0],
                              ctx[X_G1])


@_inline
def _set_ending_fate(sc, ctx, i):
    """Write the game's ending ``i`` (of ``_ending_fates``) into the ending ``sc``."""
    solve_set_ending_fate(sc, ctx[X_GAME], ctx[X_ACTOR], ctx[X_TRUMP], ctx[X_G0], ctx[X_G1],
                          i)


@_inline
def _can_claim(st, rules, ctx):
    """May the seat to move claim the rest (``X_LAYDOWN``): the game's rule (R§8)."""
    return solve_can_claim(st, rules, ctx[X_GAME])


def _game(rv: np.ndarray):
    """The game's solver parts (``games/<game>/solve.py``), outside the compiled search."""
    return solver_parts(int(rv[R_GAME]))


@_no_refcount
def _copy(dst, src):
    """``dst[:] = src`` for state records: an explicit loop compiles to a vector copy,
    numba's slice assignment costs several times more (it is done at every node)."""
    for j in range(STATE_SIZE):
        dst[j] = src[j]


@_no_refcount
def _shape_hash(st, ctx):
    """Zobrist hash of the three hands up to relabelling of ranks: per suit, the cards
    still in play in rank order, each keyed by (suit, place, holder, class), the class
    telling card points, the trump seven and the cards the game keeps apart
    (``X_APART``), and a K or Q whose partner is in the same hand apart.  Positions with
    equal shapes differ only by cards no longer in play, so they have the same value:
    the rules only ever compare ranks within a suit."""
    h0 = getm(st, HAND)
    h1 = getm(st, HAND + 1)
    h2 = getm(st, HAND + 2)
    allh = h0 | h1 | h2
    trump = ctx[X_TRUMP]
    apart = ctx[X_APART]
    k = np.int64(0)
    for s in range(4):
        if not (allh >> (8 * s)) & 0xFF:
            continue
        place = 0
        for kk in range(8):
            c = 8 * s + (ORDER_TRUMP[kk] if trump >= 0 else kk)
            if not (allh >> c) & 1:
                continue
            if (h0 >> c) & 1:
                own = 0
                hh = h0
            elif (h1 >> c) & 1:
                own = 1
                hh = h1
            else:
                own = 2
                hh = h2
            cls = 0  # points and marriages only exist in suit games
            if trump >= 0:
                r = c & 7
                if r == 7 or r == 3:  # ace, ten
                    cls = 1
                elif r == 0 and s == trump or ((apart >> c) & 1) != 0:
                    cls = 2
                elif r == 5 and (hh >> (c + 1)) & 1:
                    cls = 3
                elif r == 6 and (hh >> (c - 1)) & 1:
                    cls = 4
            k ^= ZSHAPE[((s * 8 + place) * 3 + own) * 5 + cls]
            place += 1
    return k


@_no_refcount
def _tt_key(st, ctx):
    k = _shape_hash(st, ctx) ^ ZLEAD[st[LEADER]] ^ ctx[X_SALT]
    mcode = 0
    for s in range(4):
        mcode |= (st[MARR_SEAT + s] + 1) << (2 * s)
    k ^= ZMARR[mcode]
    if ctx[X_HUNDRED]:
        _, _, fa, fd = side_marriages(st)
        k ^= ZFIRST[5 * (fa + 1) + (fd + 1)]
    return k


# --------------------------------------------------------------------------------------
# Bounds from the core's settlement of the best and worst conceivable endings
# --------------------------------------------------------------------------------------


@_inline
def _settled(sc, rules, ctx, want_max, best):
    """Settle the ending in ``sc`` by the game's settlement and fold its ``A`` into the
    running max (or min) ``best``."""
    _settle_end(sc, rules, ctx)
    v = get64(sc, PAY + 2 * ctx[X_ACTOR]) // 2
    if want_max:
        return v if v > best else best
    return v if v < best else best


@_inline
def _pending_marriages(st):
    """Marriages still to come: per suit with none announced, the seat + 1 of the hand
    holding both K and Q (it announces one, default order), packed 4 bits a suit (no
    allocation per call); returns ``(packed, count)``."""
    h0 = getm(st, HAND)
    h1 = getm(st, HAND + 1)
    h2 = getm(st, HAND + 2)
    pend = np.int64(0)
    npend = 0
    for s in range(4):
        if st[MARR_SEAT + s] < 0:
            p = _kq_holder(h0, h1, h2, s)
            if p:
                pend |= np.int64(p) << (4 * s)
                npend += 1
    return pend, npend


@_inline
def _first_marriage_choices(st, actor, pend):
    """For a hundred bet: the suits either side could still announce as its first
    marriage (only a side with none announced yet), packed as suit + 1 in bits
    4k..4k+3 of the k-th choice; returns ``(actor's, count, defence's, count)``, a
    count of 1 with no choice meaning "as it comes"."""
    has_a = False
    has_d = False
    for s in range(4):
        ms = st[MARR_SEAT + s]
        if ms >= 0:
            if ms == actor:
                has_a = True
            else:
                has_d = True
    fa_choices = np.int64(0)
    fd_choices = np.int64(0)
    na = 0
    nd = 0
    for s in range(4):
        p = ((pend >> (4 * s)) & 15) - 1
        if p >= 0:
            if p == actor and not has_a:
                fa_choices |= np.int64(s + 1) << (4 * na)
                na += 1
            elif p != actor and not has_d:
                fd_choices |= np.int64(s + 1) << (4 * nd)
                nd += 1
    return fa_choices, max(na, 1), fd_choices, max(nd, 1)


@_inline
def _announce_pending(sc, st, pend, fa, fd):
    """Announce the pending marriages in ``sc``: the suits ``fa`` and ``fd`` (-1: none)
    first, as the two sides' first marriages, then the rest in suit order."""
    nm = st[NMARR]
    if fa >= 0:
        sc[MARR_SEAT + fa] = ((pend >> (4 * fa)) & 15) - 1
        sc[MARR_ORD + fa] = nm
        nm += 1
    if fd >= 0:
        sc[MARR_SEAT + fd] = ((pend >> (4 * fd)) & 15) - 1
        sc[MARR_ORD + fd] = nm
        nm += 1
    for s in range(4):
        ps = ((pend >> (4 * s)) & 15) - 1
        if ps >= 0 and s != fa and s != fd:
            sc[MARR_SEAT + s] = ps
            sc[MARR_ORD + s] = nm
            nm += 1


@_inline
def _split_card_points(sc, st, actor, ca):
    """The ending's card points in ``sc``: ``ca`` for the actor, the rest of the deal's
    (taken and still to take) for the defence."""
    total = st[PTS] + st[PTS + 1] + st[PTS + 2] + _remaining_points(st)
    sc[PTS] = 0
    sc[PTS + 1] = 0
    sc[PTS + 2] = 0
    sc[PTS + actor] = ca
    sc[PTS + (actor + 1) % 3] = total - ca


@_no_refcount
def _settle_scenarios(st, rules, sc, ctx, ca, want_max):
    """Max (or min) of ``A`` over the endings still conceivable at this trick start,
    with the actor's card points ending at ``ca``: the trump seven won or lost in the
    last trick or spent before it, each order of the first marriages a hundred bet
    counts; betl / durch: made or broken.  Evaluated by the core's ``settle`` on the
    scratch record ``sc``; and each ending the game tells apart (``_ending_fates``).
    (A new contract adds its conceivable endings here.)"""
    actor = ctx[X_ACTOR]
    _copy(sc, st)
    best = -INF if want_max else INF
    if ctx[X_CONTRACT] != C_SUIT:
        for end in (END_PLAYED, END_BROKEN):
            sc[END] = end
            best = _settled(sc, rules, ctx, want_max, best)
        return best
    sc[END] = END_PLAYED
    _split_card_points(sc, st, actor, ca)
    pend, npend = _pending_marriages(st)
    # the trump seven's possible fates: won or lost in the last trick, or spent before
    s7 = np.int64(1) << (ctx[X_TRUMP] * 8)
    holder = -1
    for seat in range(3):
        if getm(st, HAND + seat) & s7:
            holder = seat
    nseven = 1 if holder < 0 else (2 if st[TRICK_NO] == 9 else 3)
    fa_choices = np.int64(0)
    fd_choices = np.int64(0)
    na = 1
    nd = 1
    if ctx[X_HUNDRED] and npend > 0 and not rules[R_ORDER_FREE]:  # §11.2: order-free
        fa_choices, na, fd_choices, nd = _first_marriage_choices(st, actor, pend)
    nfate = _ending_fates(st, ctx)  # the game's own endings (0: none)
    for ia in range(na):
        for idd in range(nd):
            if npend > 0:
                _announce_pending(sc, st, pend, ((fa_choices >> (4 * ia)) & 15) - 1,
                                  ((fd_choices >> (4 * idd)) & 15) - 1)
            for i7 in range(nseven):
                if holder >= 0:
                    sc[SEVEN_SEAT] = holder
                    sc[SEVEN_TRICK] = 9 if i7 < 2 else st[TRICK_NO]
                    sc[SEVEN_WON] = 1 if i7 == 0 else 0
                if nfate == 0:
                    best = _settled(sc, rules, ctx, want_max, best)
                for i in range(nfate):
                    _set_ending_fate(sc, ctx, i)
                    best = _settled(sc, rules, ctx, want_max, best)
    return best


@_no_refcount
def _remaining_points(st):
    """Card points still to be taken: cards in the hands and in the open trick, and the
    last trick's 10."""
    cards = getm(st, HAND) | getm(st, HAND + 1) | getm(st, HAND + 2)
    t = st[TRICK_NO]
    for j in range(st[TRICK_N]):
        cards |= np.int64(1) << st[TRICKS + 3 * t + j]
    return 10 + 10 * popcount(cards & SHARP_MASK)


# --------------------------------------------------------------------------------------
# Move generation: equivalent cards and ordering
# --------------------------------------------------------------------------------------


@njit
def _actor_played(st, actor, n):
    """Has the actor already played to the current trick (``n`` cards down)?"""
    return (actor - st[LEADER]) % 3 < n


@njit
def _betl_lead_forces(st, seat, actor, c):
    """Betl: does the defender's lead ``c`` force the actor to take this trick (follow
    and beat whenever possible, RULES.md §6)?  1 yes, 0 no, -1 the actor is void (a free
    discard for it); a move-ordering hint only."""
    s = c >> 3
    sm = np.int64(0xFF) << (8 * s)
    a_s = getm(st, HAND + actor) & sm
    if a_s == 0:
        return -1
    partner = 3 - seat - actor
    p_s = getm(st, HAND + partner) & sm
    above_c = ABOVE_PLAIN[c]
    if (seat + 1) % 3 == actor:
        b = a_s & above_c
        if b == 0:
            return 0
        lowb = 0
        while not (b >> lowb) & 1:
            lowb += 1
        return 1 if (p_s & ABOVE_PLAIN[lowb]) == 0 else 0
    best = c
    pb = p_s & above_c
    if pb:
        best = 0
        while not (pb >> best) & 1:
            best += 1
    return 1 if a_s & ABOVE_PLAIN[best] else 0


@_no_refcount
def _gen_moves(st, seat, moves, ctx, stats, rep):
    """Representatives of the legal cards' equivalence classes, best-first, into
    ``moves``; returns their count.  (A plain call: the record of buffers would cost
    more to pass than the function's work, and inlined it bloats the search loop.)

    ``rep`` (int64[32] or empty) receives each legal card's representative (-1 elsewhere).
    """
    nm = _representatives(st, seat, moves, ctx, rep)
    if nm > 1:
        _score_moves(st, seat, moves, nm, ctx, stats)
        _sort_moves(moves, nm)
    return nm


@_inline
def _moves_at(sv, d, rep):
    """``_gen_moves`` for the node of depth ``d`` of the search, into ``mvs[d]``."""
    st = sv.stk[d]
    return _gen_moves(st, st[TO_MOVE], sv.mvs[d], sv.ctx, sv.stats, rep)


@_inline
def _others(st, seat):
    """The cards of the other two hands and of the open trick: those that separate two
    of ``seat``'s cards (not equivalent) or beat one."""
    sep = getm(st, HAND + (seat + 1) % 3) | getm(st, HAND + (seat + 2) % 3)
    t = st[TRICK_NO]
    for j in range(st[TRICK_N]):
        sep |= _bit(st[TRICKS + 3 * t + j])
    return sep


@_inline
def _representatives(st, seat, moves, ctx, rep):
    """One card of each class of equivalent legal cards (same suit, adjacent in the
    rank order with no card of another hand or of the open trick between, equal card
    points, never the trump seven or a card the game keeps apart (``X_APART``) nor a K/Q
    whose partner is in the same hand other than with that partner) into
    ``moves[0:nm]``; returns ``nm``."""
    legal = _legal(st, seat, ctx)
    trump = ctx[X_TRUMP]
    apart = ctx[X_APART]
    qfirst = ctx[X_QFIRST]
    my = getm(st, HAND + seat)
    sep = _others(st, seat)
    nm = 0
    wrep = rep.shape[0] == 32
    if wrep:
        for c in range(32):
            rep[c] = -1
    cur = -1
    for s in range(4):
        if not (legal >> (8 * s)) & 0xFF:
            continue
        marr = trump >= 0 and (my >> (8 * s + 5)) & 1 and (my >> (8 * s + 6)) & 1
        open_ = False
        added = False
        gsp = -1
        gpts = -1
        for k in range(8):
            c = 8 * s + (ORDER_TRUMP[k] if trump >= 0 else k)
            if (sep >> c) & 1:
                open_ = False
                continue
            if not (my >> c) & 1:
                continue
            r = c & 7
            sp = 0
            if trump >= 0 and (c == trump * 8 or ((apart >> c) & 1) != 0):
                sp = 100 + c
            elif marr and (r == 5 or r == 6):
                sp = 200 + c if qfirst else 10 + s
            pts = CARD_POINTS[c] if trump >= 0 else 0  # points only count in suit games
            lg = (legal >> c) & 1
            if open_ and sp == gsp and pts == gpts and sp < 100:
                if lg and not added:
                    moves[nm] = c
                    nm += 1
                    added = True
                    cur = c
                if lg and wrep:
                    rep[c] = cur
                continue
            open_ = True
            gsp = sp
            gpts = pts
            added = lg == 1
            if added:
                moves[nm] = c
                nm += 1
                cur = c
                if wrep:
                    rep[c] = c
    return nm


@_inline
def _score_moves(st, seat, moves, nm, ctx, stats):
    """Ordering scores of ``moves[0:nm]`` into ``moves[32:32 + nm]``: in betl the actor
    ducks and the defence forces; else sure tricks and cheap winners first, points
    given to a partner's trick, low cards when the trick is lost; with the history
    heuristic (``X_HIST``) the cut-off counts first."""
    trump = ctx[X_TRUMP]
    sep = _others(st, seat)
    n = st[TRICK_N]
    t = st[TRICK_NO]
    actor = ctx[X_ACTOR]
    con = ctx[X_CONTRACT]
    side = 0 if seat == actor else 1
    if n > 0:
        bi = trick_best(st, n)
        best = st[TRICKS + 3 * t + bi]
        winner = (st[LEADER] + bi) % 3
        wside = 0 if winner == actor else 1
    else:
        best = -1
        wside = -1
    for i in range(nm):
        c = moves[i]
        r = c & 7
        stg = TRUMP_STRENGTH[r] if trump >= 0 else r
        pts = CARD_POINTS[c]
        istr = 1 if trump >= 0 and (c >> 3) == trump else 0
        if con == C_BETL:
            if n == 0:
                sc = -stg
                if seat != actor:
                    sc += 100 * _betl_lead_forces(st, seat, actor, c)
            else:
                wins = beats(c, best, trump)
                if seat == actor:
                    sc = (100 + stg) if not wins else -stg
                elif wside == 0:
                    sc = (100 + stg) if not wins else -stg
                elif st[TRICKS + 3 * t] >= 0 and _actor_played(st, actor, n):
                    sc = stg  # the trick is lost for forcing: shed a high card
                else:
                    sc = -stg
        elif n == 0:
            # lead: cards no other hand can beat in their suit first (aces), then low cards
            higher = (ABOVE_TRUMP[c] if trump >= 0 else ABOVE_PLAIN[c]) & sep
            if higher == 0 and trump >= 0 and not istr:
                # a side-suit top card an opponent can ruff is no sure trick
                sm = np.int64(0xFF) << (8 * (c >> 3))
                tm = np.int64(0xFF) << (8 * trump)
                for o in range(1, 3):
                    ho = getm(st, HAND + (seat + o) % 3)
                    if (((seat + o) % 3 == actor) != (seat == actor)) and not (ho & sm) and ho & tm:
                        higher = 1
            if higher == 0:
                sc = 1000 + pts * 10 + stg + istr * 50 * (1 - side)
            else:
                sc = 500 - pts * 10 - stg - istr * 20
        else:
            wins = beats(c, best, trump)
            if wside == side:
                if n == 2:
                    sc = 1000 + pts * 10 - stg - (50 if wins else 0)
                else:
                    sc = 800 + pts * 5 + (stg if wins else -stg)
            else:
                if wins:
                    sc = 1000 + (pts * 10 if n == 2 else 0) - stg - istr * 30
                else:
                    sc = 500 - pts * 10 - stg - istr * 30
        sc += 4096
        if ctx[X_HIST]:
            sc += stats[S_HIST + seat * 32 + c] << 13
        moves[32 + i] = sc


@_inline
def _sort_moves(moves, nm):
    """Insertion sort of ``moves[0:nm]`` by their scores, descending (stable)."""
    for i in range(1, nm):
        c = moves[i]
        v = moves[32 + i]
        j = i - 1
        while j >= 0 and moves[32 + j] < v:
            moves[32 + j + 1] = moves[32 + j]
            moves[j + 1] = moves[j]
            j -= 1
        moves[32 + j + 1] = v
        moves[j + 1] = c


# --------------------------------------------------------------------------------------
# The search's buffers: one record
# --------------------------------------------------------------------------------------


Search = namedtuple("Search", ["stk", "mvs", "rules", "ctx", "tt", "stats", "fr"])
Search.__doc__ = """The buffers of one solve, passed to every step of the search as one record.

- ``stk``: int32[MAXD + 1, STATE_SIZE], the state at each depth (row ``MAXD``: scratch);
- ``mvs``: int64[MAXD + 1, 64], the ordered moves at each depth (cards in 0..31, their
  ordering scores in 32..63);
- ``rules``: the rules vector;
- ``ctx``: int64[X_SIZE], the constants of this solve (``X_*`` slots);
- ``tt``: int64[2**bits, TT_W], the transposition table: key, lower bounds, upper bounds
  (one row, so a probe touches neighbouring cache lines only);
- ``stats``: int64[S_SIZE], counters (``S_*``) and the history scores;
- ``fr``: int64[BC_ROW0 + BC_ROWS, F_SIZE], a frame per depth (``F_*`` slots), then the
  bound cache rows.
"""


# --------------------------------------------------------------------------------------
# Alpha-beta
# --------------------------------------------------------------------------------------


# frame slots of the iterative search
F_ALPHA, F_BETA, F_A0, F_B0, F_BEST, F_I, F_NM, F_KEY, F_IDX, F_TT, F_CA = range(11)
# The rows of ``fr`` after the frames cache the bounds per scenario signature: column 0
# the signature, then the upper bounds for final actor points 0, 10, ..., then the lower.
BC_SPAN = 11
F_SIZE = 1 + 2 * BC_SPAN
BC_ROW0 = MAXD + 1
BC_ROWS = 1024
BC_HASH = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 (2**64 / golden ratio) as an int64
# transposition table row: key, lower bounds per actor points so far, upper bounds
TT_KEY = 0
TT_LO = 1
TT_HI = 1 + TT_CA
TT_W = 1 + 2 * TT_CA


@_inline
def _bc_row(code):
    """The bound cache's row of a scenario signature ``code``: bits 40..49 of a
    multiplicative (Fibonacci) hash, the same compiled and as plain Python."""
    return BC_ROW0 + ((wrapping_mul(code, BC_HASH) >> 40) & (BC_ROWS - 1))


@_no_refcount
def _bound_row(st, rules, sc, ctx, fr):
    """Row of ``fr`` holding, for this node's scenario signature (who holds the trump
    seven or how it fared, pending and announced marriages and each side's first one,
    last trick or not, the game's own endings), the max and min of ``A`` for every final
    actor point total."""
    h0 = getm(st, HAND)
    h1 = getm(st, HAND + 1)
    h2 = getm(st, HAND + 2)
    code = np.int64(0)
    for s in range(4):
        p = _kq_holder(h0, h1, h2, s)
        code = (code << 4) | (p << 2) | (st[MARR_SEAT + s] + 1)
    s7 = np.int64(1) << (ctx[X_TRUMP] * 8)
    holder = 1 if h0 & s7 else (2 if h1 & s7 else (3 if h2 & s7 else 0))
    code = (code << 2) | holder
    code = (code << 1) | (1 if st[TRICK_NO] == 9 else 0)
    fate = 0
    if st[SEVEN_TRICK] >= 0:
        fate = 1 if st[SEVEN_TRICK] < 9 else 2 + 2 * st[SEVEN_SEAT] + st[SEVEN_WON]
    code = (code << 4) | fate
    nfate = _ending_fates(st, ctx)
    if nfate:
        code = (code << 2) | nfate
    if ctx[X_HUNDRED]:
        actor = ctx[X_ACTOR]
        oa = 99
        od = 99
        fa = 0
        fd = 0
        for s in range(4):
            ms = st[MARR_SEAT + s]
            if ms >= 0:
                o = st[MARR_ORD + s]
                if ms == actor:
                    if o < oa:
                        oa = o
                        fa = s + 1
                elif o < od:
                    od = o
                    fd = s + 1
        code = (code << 6) | (fa << 3) | fd
    code += 1  # 0 marks an empty row
    row = _bc_row(code)
    if fr[row, 0] != code:
        fr[row, 0] = code
        for k in range(BC_SPAN):
            fr[row, 1 + k] = _settle_scenarios(st, rules, sc, ctx, np.int64(10 * k), ONE)
            fr[row, 1 + BC_SPAN + k] = _settle_scenarios(st, rules, sc, ctx, np.int64(10 * k),
                                                         ZERO)
    return row


@_inline
def _ending_value(sv, st):
    """The value of a node whose ending is already fixed, else ``(False, 0)``: the last
    trick (every card forced: played out) or a lay-down the core allows (§8)."""
    n = st[TRICK_N]
    if n != 0:
        return False, ZERO
    rules = sv.rules
    actor = sv.ctx[X_ACTOR]
    if st[TRICK_NO] == 9:
        sc = sv.stk[MAXD]
        _copy(sc, st)
        for _ in range(3):
            c = lowest(_legal(sc, sc[TO_MOVE], sv.ctx))
            if apply_action(sc, rules, sv.ctx[X_PLAY0] + c):
                break
        sv.stats[S_LEAVES] += 1
        return True, get64(sc, PAY + 2 * actor) // 2
    if sv.ctx[X_LAYDOWN] >= 0 and _can_claim(st, rules, sv.ctx):
        sc = sv.stk[MAXD]
        _copy(sc, st)
        apply_action(sc, rules, sv.ctx[X_LAYDOWN])
        sv.stats[S_LEAVES] += 1
        return True, get64(sc, PAY + 2 * actor) // 2
    return False, ZERO


@_inline
def _tt_probe(sv, d, st, alpha, beta):
    """Look the trick start of depth ``d`` up in the transposition table (its key and
    slot kept in the frame for ``_close``).  Returns ``(decided, value, alpha, beta)``:
    the value when the stored bounds decide the window, else the window narrowed."""
    fr = sv.fr
    tt = sv.tt
    key = _tt_key(st, sv.ctx)
    idx = key & sv.ctx[X_TTMASK]
    fr[d, F_TT] = 1
    fr[d, F_KEY] = key
    fr[d, F_IDX] = idx
    ca = st[PTS + sv.ctx[X_ACTOR]] // 10
    fr[d, F_CA] = ca
    if tt[idx, TT_KEY] == key:
        # the value can only grow with the actor's points so far: a lower bound
        # proved with fewer points and an upper bound proved with more still hold
        lo = -INF
        for j in range(ca + 1):
            if tt[idx, TT_LO + j] > lo:
                lo = tt[idx, TT_LO + j]
        hi = INF
        for j in range(ca, TT_CA):
            if tt[idx, TT_HI + j] < hi:
                hi = tt[idx, TT_HI + j]
        if lo >= beta or lo == hi:
            sv.stats[S_TTHITS] += 1
            return True, lo, alpha, beta
        if hi <= alpha:
            sv.stats[S_TTHITS] += 1
            return True, hi, alpha, beta
        if lo > alpha:
            alpha = lo
        if hi < beta:
            beta = hi
    return False, ZERO, alpha, beta


@_inline
def _bound_test(sv, st, alpha, beta):
    """The best and worst conceivable endings (``_bound_row``) against the window:
    ``(True, bound)`` when one closes it, else ``(False, 0)``."""
    ca = st[PTS + sv.ctx[X_ACTOR]] // 10
    row = _bound_row(st, sv.rules, sv.stk[MAXD], sv.ctx, sv.fr)
    ub = sv.fr[row, 1 + ca + _remaining_points(st) // 10]
    if ub <= alpha:
        sv.stats[S_BOUNDCUTS] += 1
        return True, ub
    lb = sv.fr[row, 1 + BC_SPAN + ca]
    if lb >= beta or lb == ub:
        sv.stats[S_BOUNDCUTS] += 1
        return True, lb
    return False, ZERO


@_inline
def _enter(sv, d):
    """Open the node at depth ``d`` (window already in its frame).

    Returns ``(True, value)`` when the ending, the table or the bound test decides it at
    once, else ``(False, 0)`` with its moves generated and its frame initialised."""
    st = sv.stk[d]
    ctx = sv.ctx
    fr = sv.fr
    sv.stats[S_NODES] += 1
    alpha = fr[d, F_ALPHA]
    beta = fr[d, F_BETA]
    # every value in the tree lies in [X_LO, X_HI] (the root's bounds)
    if beta <= ctx[X_LO]:
        return True, ctx[X_LO]
    if alpha >= ctx[X_HI]:
        return True, ctx[X_HI]
    fr[d, F_TT] = 0
    done, v = _ending_value(sv, st)
    if done:
        return True, v
    n = st[TRICK_N]
    if n == 0:
        done, v, alpha, beta = _tt_probe(sv, d, st, alpha, beta)
        if done:
            return True, v
    if ctx[X_BOUNDS] and (n == 0 or st[TRICK_NO] < 9):
        # (in the last trick the seven's fate is open until the trick closes)
        done, v = _bound_test(sv, st, alpha, beta)
        if done:
            return True, v
    seat = st[TO_MOVE]
    fr[d, F_ALPHA] = alpha
    fr[d, F_BETA] = beta
    fr[d, F_A0] = alpha
    fr[d, F_B0] = beta
    fr[d, F_BEST] = -INF if seat == ctx[X_ACTOR] else INF
    fr[d, F_NM] = _moves_at(sv, d, sv.mvs[MAXD, :0])
    fr[d, F_I] = 0
    return False, ZERO


@_inline
def _close(sv, d):
    """Store the finished node of depth ``d`` in the table; returns its value."""
    fr = sv.fr
    tt = sv.tt
    best = fr[d, F_BEST]
    if fr[d, F_TT]:
        idx = fr[d, F_IDX]
        key = fr[d, F_KEY]
        ca = fr[d, F_CA]
        if tt[idx, TT_KEY] != key:
            tt[idx, TT_KEY] = key
            for j in range(TT_CA):
                tt[idx, TT_LO + j] = -INF
                tt[idx, TT_HI + j] = INF
        if best < fr[d, F_B0] and best < tt[idx, TT_HI + ca]:
            tt[idx, TT_HI + ca] = best
        if best > fr[d, F_A0] and best > tt[idx, TT_LO + ca]:
            tt[idx, TT_LO + ca] = best
    return best


@_inline
def _fold(sv, d, c, v):
    """Fold the value ``v`` of card ``c`` just tried into node ``d``: best, window,
    and on a cut-off the history score and the node closed."""
    fr = sv.fr
    seat = sv.stk[d, TO_MOVE]
    if seat == sv.ctx[X_ACTOR]:
        if v > fr[d, F_BEST]:
            fr[d, F_BEST] = v
            if v > fr[d, F_ALPHA]:
                fr[d, F_ALPHA] = v
    elif v < fr[d, F_BEST]:
        fr[d, F_BEST] = v
        if v < fr[d, F_BETA]:
            fr[d, F_BETA] = v
    if fr[d, F_ALPHA] >= fr[d, F_BETA]:
        fr[d, F_I] = fr[d, F_NM]  # cutoff: close it on the next turn
        rem = 30 - d
        sv.stats[S_HIST + seat * 32 + c] += rem * rem


@_no_refcount
def _ab(sv, d0, alpha, beta):
    """Fail-soft alpha-beta value of ``stk[d0]`` in the window ``(alpha, beta)``.

    Iterative (numba's cache cannot hold self-recursive functions): ``fr`` holds one
    frame per depth, ``stk`` the states, ``mvs`` the ordered moves."""
    fr = sv.fr
    stk = sv.stk
    actor = sv.ctx[X_ACTOR]
    fr[d0, F_ALPHA] = alpha
    fr[d0, F_BETA] = beta
    d = d0
    done, v = _enter(sv, d)
    if done:
        return v
    while True:
        i = fr[d, F_I]
        if i >= fr[d, F_NM]:
            # node d is finished: store it and hand its value to the parent
            v = _close(sv, d)
            if d == d0:
                return v
            d -= 1
        else:
            fr[d, F_I] = i + 1
            c = sv.mvs[d, i]
            ch = stk[d + 1]
            _copy(ch, stk[d])
            if _apply_inline(ch, sv.rules, sv.ctx[X_PLAY0] + c):
                sv.stats[S_LEAVES] += 1
                v = get64(ch, PAY + 2 * actor) // 2
            else:
                fr[d + 1, F_ALPHA] = fr[d, F_ALPHA]
                fr[d + 1, F_BETA] = fr[d, F_BETA]
                done, v = _enter(sv, d + 1)
                if not done:
                    d += 1
                    continue
        _fold(sv, d, sv.mvs[d, fr[d, F_I] - 1], v)


@_no_refcount
def _bounds(sv, d):
    """Bounds on the value of ``stk[d]`` from the conceivable endings (-INF / INF when
    unknown: a suit game in mid-trick)."""
    st = sv.stk[d]
    ctx = sv.ctx
    lo = -INF
    hi = INF
    if ctx[X_CONTRACT] != C_SUIT or (st[TRICK_N] == 0 and not ctx[X_QFIRST]):
        ca = np.int64(st[PTS + ctx[X_ACTOR]])
        sc = sv.stk[MAXD]
        lo = _settle_scenarios(st, sv.rules, sc, ctx, ca, ZERO)
        hi = _settle_scenarios(st, sv.rules, sc, ctx, ca + _remaining_points(st), ONE)
    return lo, hi


@_no_refcount
def _search_value(sv, d, lo_in, hi_in, guess):
    """Exact minimax value of ``stk[d]`` by MTD(f) (null-window alpha-beta iterations)."""
    lo, hi = _bounds(sv, d)
    lo = max(lo, lo_in)
    hi = min(hi, hi_in)
    g = min(max(guess, lo), hi)
    while lo < hi:
        beta = g + 1 if g == lo else g
        g = _ab(sv, d, beta - 1, beta)
        if g < beta:
            hi = g
        else:
            lo = g
    return g


@_no_refcount
def _child_value(sv, d, c, guess):
    """Exact value after playing card ``c`` at ``stk[d]`` (child written to ``stk[d+1]``)."""
    ch = sv.stk[d + 1]
    _copy(ch, sv.stk[d])
    if apply_action(ch, sv.rules, sv.ctx[X_PLAY0] + c):
        return get64(ch, PAY + 2 * sv.ctx[X_ACTOR]) // 2, True
    return _search_value(sv, d + 1, -INF, INF, guess), False


@_no_refcount
def _playout(sv):
    """The value of the deal played out with every seat's first-ordered move: MTD(f)'s
    first guess (a good guess saves null-window passes; the value found is exact anyway)."""
    d = 0
    stk = sv.stk
    while True:
        _moves_at(sv, d, sv.mvs[MAXD, :0])
        ch = stk[d + 1]
        _copy(ch, stk[d])
        if apply_action(ch, sv.rules, sv.ctx[X_PLAY0] + sv.mvs[d, 0]):
            return get64(ch, PAY + 2 * sv.ctx[X_ACTOR]) // 2
        d += 1


@_no_refcount
def _root_value(sv):
    """The exact value of the root (``stk[0]``); sets the root's bounds in ``ctx``."""
    lo, hi = _bounds(sv, ZERO)
    sv.ctx[X_LO] = lo
    sv.ctx[X_HI] = hi
    return _search_value(sv, ZERO, -INF, INF, _playout(sv))


@njit
def _root_move_values(sv, v, move_vals):
    """The exact value of every legal card of the root into ``move_vals`` (equivalent
    cards share their representative's; ``-INF - 1`` for the illegal ones)."""
    nm = _moves_at(sv, ZERO, move_vals)
    reps = move_vals.copy()
    cards = sv.mvs[0, :nm].copy()
    for i in range(nm):
        cv, _ = _child_value(sv, ZERO, cards[i], v)
        for c in range(32):
            if reps[c] == cards[i]:
                move_vals[c] = cv
    for c in range(32):
        if reps[c] < 0:
            move_vals[c] = -INF - 1


@_no_refcount
def _keeps_value(sv, d, c, v):
    """Does card ``c`` at depth ``d`` keep the value ``v``?  Leaves the child in
    ``stk[d + 1]`` (null-window tests: the child's value is exactly ``v`` when true)."""
    actor = sv.ctx[X_ACTOR]
    st = sv.stk[d]
    ch = sv.stk[d + 1]
    _copy(ch, st)
    if apply_action(ch, sv.rules, sv.ctx[X_PLAY0] + c):
        return get64(ch, PAY + 2 * actor) // 2 == v
    if st[TO_MOVE] == actor:
        ok = _ab(sv, d + 1, v - 1, v) >= v
    else:
        ok = _ab(sv, d + 1, v, v + 1) <= v
    if ok:
        # the search may have overwritten the child's stack slot
        _copy(ch, st)
        apply_action(ch, sv.rules, sv.ctx[X_PLAY0] + c)
    return ok


@_no_refcount
def _principal_variation(sv, v, pv, full_pv):
    """At each node from the root the first ordered move that keeps the value ``v``,
    into ``pv`` (only the root's unless ``full_pv``); returns its length, -1 when no
    move keeps it (a solver inconsistency)."""
    d = ZERO
    npv = 0
    while True:
        nm = _moves_at(sv, d, sv.mvs[MAXD, :0])
        found = -1
        for i in range(nm):
            c = sv.mvs[d, i]
            if _keeps_value(sv, d, c, v):
                found = c
                break
        if found < 0:
            return -1
        pv[npv] = found
        npv += 1
        if not full_pv or sv.stk[d + 1, PHASE] != PH_PLAY:
            return npv
        d += 1


@njit
def _solve_root(sv, pv, all_moves, move_vals, full_pv):
    """Value of the root and its principal variation (cards, into ``pv``; only the first
    move unless ``full_pv``); returns (value, pv_len)."""
    v = _root_value(sv)
    if all_moves:
        _root_move_values(sv, v, move_vals)
    return v, _principal_variation(sv, v, pv, full_pv)


# --------------------------------------------------------------------------------------
# Plain minimax (reference for tests)
# --------------------------------------------------------------------------------------


@njit
def _plain(stk, rules, actor, counter, limit, prune, play0, n_actions):
    """Plain minimax over every card the engine's ``legal_actions`` offers (its
    ``play0 + card`` actions; either game), in index order, iteratively; with ``prune``
    plain alpha-beta (no table, ordering or equivalences).  ``counter[0]``: moves tried;
    gives up, setting ``counter[1]``, past ``limit`` of them."""
    masks = np.zeros((MAXD + 1, n_actions), dtype=np.int8)
    nxt = np.zeros(MAXD + 1, dtype=np.int64)  # next card to try at each depth
    best = np.zeros(MAXD + 1, dtype=np.int64)
    alpha = np.zeros(MAXD + 1, dtype=np.int64)
    beta = np.zeros(MAXD + 1, dtype=np.int64)
    d = 0
    best[0] = -INF if stk[0][TO_MOVE] == actor else INF
    alpha[0] = -INF
    beta[0] = INF
    legal_actions(stk[0], rules, masks[0])
    while True:
        st = stk[d]
        c = nxt[d]
        while c < 32 and not masks[d, play0 + c]:
            c += 1
        if c == 32 or (prune and alpha[d] >= beta[d]):
            v = best[d]
            if d == 0:
                return v
            d -= 1
        else:
            nxt[d] = c + 1
            counter[0] += 1
            if counter[0] > limit:
                counter[1] = 1
                return np.int64(0)
            ch = stk[d + 1]
            _copy(ch, st)
            if apply_action(ch, rules, play0 + c):
                v = get64(ch, PAY + 2 * actor) // 2
            else:
                d += 1
                nxt[d] = 0
                masks[d, :] = 0
                legal_actions(ch, rules, masks[d])
                best[d] = -INF if ch[TO_MOVE] == actor else INF
                alpha[d] = alpha[d - 1]
                beta[d] = beta[d - 1]
                continue
        if stk[d][TO_MOVE] == actor:
            if v > best[d]:
                best[d] = v
            if v > alpha[d]:
                alpha[d] = v
        else:
            if v < best[d]:
                best[d] = v
            if v < beta[d]:
                beta[d] = v


def brute_force_value(st: np.ndarray, rules=None, max_nodes: int = 50_000_000,
                      prune: bool = False) -> tuple[int, int]:
    """Plain minimax (no table, ordering, equivalences, bounds or laying down) over every
    card the engine's ``legal_actions`` offers (either game): ``(A, moves tried)``; ``prune`` adds
    plain alpha-beta cut-offs.
    Exponential: for endgames and tests.  Raises RuntimeError past ``max_nodes`` moves."""
    rv = _rules_vector(rules)
    st = np.ascontiguousarray(st, dtype=np.int32)
    _check_root(st)
    stk = np.zeros((MAXD + 1, STATE_SIZE), dtype=np.int32)
    stk[0] = st
    counter = np.zeros(2, dtype=np.int64)
    v = _plain(stk, rv, np.int64(st[ACTOR]), counter, np.int64(max_nodes), bool(prune),
               np.int64(_play0(rv)), np.int64(n_actions_of(rv)))
    if counter[1]:
        raise RuntimeError(f"plain minimax gave up after {max_nodes} moves")
    return int(v), int(counter[0])


# --------------------------------------------------------------------------------------
# Python API
# --------------------------------------------------------------------------------------




def _play0(rv: np.ndarray) -> int:
    """The game's first play action: ``play:<card>`` is ``PLAY0 + card`` in either table."""
    return _game(rv).PLAY0


def _check_root(st: np.ndarray) -> None:
    if st.shape != (STATE_SIZE,):
        raise ValueError(f"expected a state record of {STATE_SIZE} int32, got shape {st.shape}")
    if st[PHASE] != PH_PLAY:
        raise ValueError("solve() needs a deal in the card play (phase 'play')")


@dataclass
class Outcome:
    """How the deal ends on the principal variation (the final, settled state)."""

    actor_points: int  # card points of the actor (aces, tens, last trick)
    defence_points: int
    actor_marriages: int  # marriage points of each side
    defence_marriages: int
    marriages: dict  # suit letter -> seat that announced it
    last_trick: int  # index of the deal's last trick played (9 unless it ended early)
    last_trick_winner: int
    seven_seat: int  # who played the trump seven to the last trick (-1: nobody)
    seven_won: bool
    contract_won: bool  # the game line won by the actor (betl / durch: the contract made)
    amounts: np.ndarray  # AMT lines: game, seven, seven against, hundred against, silent seven
    end: int
    state: np.ndarray = field(repr=False)


@dataclass
class SolveResult:
    """The result of :func:`solve`: ``value`` = ``A`` per defender (actor +2A)."""

    value: int
    action: int  # best action index (PLAY0 + card) for the seat to move
    card: str
    pv: list[int]  # principal variation, as action indices, to the end of the deal
    outcome: Outcome | None
    move_values: dict | None  # action -> exact value, with ``all_moves=True``
    nodes: int
    tt_hits: int
    bound_cuts: int
    seconds: float


class _Buffers:
    """One thread's transposition table (keys salted per solve) and search stacks."""

    def __init__(self, bits: int) -> None:
        size = 1 << bits
        self.bits = bits
        self.tt = np.zeros((size, TT_W), dtype=np.int64)
        self.stk = np.zeros((MAXD + 1, STATE_SIZE), dtype=np.int32)
        self.mvs = np.zeros((MAXD + 1, 64), dtype=np.int64)
        self.fr = np.zeros((BC_ROW0 + BC_ROWS, F_SIZE), dtype=np.int64)
        self.salt = np.random.default_rng()


_LOCAL = threading.local()


def _buffers(bits: int) -> _Buffers:
    tabs = getattr(_LOCAL, "tables", None)
    if tabs is None:
        tabs = _LOCAL.tables = {}
    b = tabs.get(bits)
    if b is None:
        b = tabs[bits] = _Buffers(bits)
    return b


def _outcome(fin: np.ndarray, actor: int) -> Outcome:
    from ..cards import SUITS

    ca = int(fin[PTS + actor])
    cd = int(sum(fin[PTS + s] for s in range(3) if s != actor))
    trump = int(fin[TRUMP_CARD]) >> 3 if fin[CONTRACT] == C_SUIT else -1
    marr = {}
    ma = md = 0
    for s in range(4):
        ms = int(fin[MARR_SEAT + s])
        if ms >= 0:
            marr[SUITS[s]] = ms
            v = 40 if s == trump else 20
            if ms == actor:
                ma += v
            else:
                md += v
    last = max(t for t in range(10) if fin[TWIN + t] >= 0) if (fin[TWIN:TWIN + 10] >= 0).any() \
        else -1
    return Outcome(
        actor_points=ca, defence_points=cd, actor_marriages=ma, defence_marriages=md,
        marriages=marr, last_trick=last,
        last_trick_winner=int(fin[TWIN + last]) if last >= 0 else -1,
        seven_seat=int(fin[SEVEN_SEAT]) if fin[SEVEN_TRICK] == 9 else -1,
        seven_won=bool(fin[SEVEN_TRICK] == 9 and fin[SEVEN_WON] == 1),
        contract_won=bool(fin[WON]),
        amounts=read64(fin, AMT, 5),
        end=int(fin[END]), state=fin.copy(),
    )


def solve(st: np.ndarray, rules=None, *, pv: bool = True, all_moves: bool = False,
          tt_bits: int = 17, bounds: bool = True, laydown: bool = True,
          history: bool | None = None, check: bool = True) -> SolveResult:
    """Solve the card play of ``st`` (phase play, all hands known) exactly.

    Returns the minimax value ``A`` (the amount each defender pays the actor, the actor
    maximising and both defenders minimising), a best action of the seat to move,
    with ``pv`` the principal variation to the end of the deal and the
    :class:`Outcome` of its final state, with ``all_moves`` the exact value of every
    legal card (a dict ``action -> A``).  Laying down is never needed by an exact
    solver and is not searched.

    ``st`` is checked as a record from outside the engine (:mod:`mariash_env.core.
    validate`: ValueError naming the first field at fault; about 2 µs); the searches that
    solve worlds the engine made pass ``check=False``.  ``tt_bits``: the transposition
    table has ``2**tt_bits`` entries, 1..30.
    """
    t0 = time.perf_counter()
    rv = _rules_vector(rules)
    st = np.ascontiguousarray(st, dtype=np.int32)
    if check:
        check_record(st, rv, "solve(): the state record")
    _check_root(st)
    if not is_int(tt_bits) or not 1 <= tt_bits <= 30:
        raise ValueError(f"tt_bits={tt_bits!r}: expected an int 1..30 (a table of "
                         "2**tt_bits entries)")
    tab = _buffers(int(tt_bits))
    actor = int(st[ACTOR])
    ctx = np.zeros(X_SIZE, dtype=np.int64)
    ctx[X_ACTOR] = actor
    ctx[X_SALT] = int(tab.salt.integers(1, 2**62))
    ctx[X_TTMASK] = (1 << tab.bits) - 1
    ctx[X_QFIRST] = int(rv[R_QUEEN_FIRST])
    ctx[X_TRUMP] = int(trump_suit(st))
    ctx[X_CONTRACT] = int(st[CONTRACT])
    ctx[X_BOUNDS] = int(bounds and st[CONTRACT] == C_SUIT and not rv[R_QUEEN_FIRST])
    ctx[X_HIST] = int(st[CONTRACT] == C_DURCH if history is None else history)
    ctx[X_GAME] = int(rv[R_GAME])
    game = _game(rv)
    ctx[X_PLAY0] = game.PLAY0
    (ctx[X_HUNDRED], ctx[X_LAYDOWN], ctx[X_APART], ctx[X_G0],
     ctx[X_G1]) = game.contract_flags(st, bool(laydown))
    tab.stk[0] = st
    tab.fr[BC_ROW0:, 0] = 0  # the bound cache holds this deal's bets only
    stats = np.zeros(S_SIZE, dtype=np.int64)
    pvbuf = np.full(32, -1, dtype=np.int64)
    mvals = np.zeros(32, dtype=np.int64)
    sv = Search(stk=tab.stk, mvs=tab.mvs, rules=rv, ctx=ctx, tt=tab.tt, stats=stats, fr=tab.fr)
    value, npv = _solve_root(sv, pvbuf, bool(all_moves), mvals, bool(pv))
    value = int(value)
    if npv < 0:
        raise RuntimeError("principal variation lost: solver inconsistency")
    play0 = int(ctx[X_PLAY0])
    line = [play0 + int(c) for c in pvbuf[:npv]]
    fin = st.copy()
    for a in line:
        apply_action(fin, rv, a)
    outcome = _outcome(fin, actor) if pv else None
    move_values = None
    if all_moves:
        move_values = _expand_move_values(st, rv, mvals)
    return SolveResult(
        value=value, action=line[0], card=CARD_CODES[line[0] - play0],
        pv=line if pv else line[:1], outcome=outcome, move_values=move_values,
        nodes=int(stats[S_NODES]), tt_hits=int(stats[S_TTHITS]),
        bound_cuts=int(stats[S_BOUNDCUTS]), seconds=time.perf_counter() - t0,
    )


def _expand_move_values(st, rv, mvals) -> dict:
    seat = int(st[TO_MOVE])
    legal = int(_game(rv).legal(st, seat))
    play0 = _play0(rv)
    return {play0 + c: int(mvals[c]) for c in range(32) if legal >> c & 1}


__all__ = ["solve", "SolveResult", "Outcome", "brute_force_value"]
