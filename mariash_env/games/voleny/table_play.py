"""The volený table robot's card play, compiled: one copy of its heuristics.

:func:`choose_card` is the card the
:class:`~mariash_env.games.voleny.table_robot.TableRobot` plays (suit games: cash aces,
catch tens, draw trumps with the boss trump, keep the trump seven for the last trick,
smear points to a winning partner; betl and durch attack and defence after the program's
notes), read from a *view array*: the
:class:`~mariash_env.robots.card_view.CardPlayView` as ``int64[VIEW_SIZE]`` in the layout
of the ``V_*`` constants below (:func:`view_array` packs a view).  Ties are broken exactly
as the Python robot broke them: candidates in ascending card order, the first best kept.

:func:`read_tricks` fills the card-play part of a view array from an observation's
card-play blocks (both games share their shapes) and :func:`decode_voleny` the whole view
from a volený observation and its action mask (what :func:`~mariash_env.robots.features.decode`
and :meth:`CardPlayView.of_info` give), so that a search's playouts (``robots/pimc.py``)
decide a card without leaving compiled code.
"""

from __future__ import annotations

import numpy as np

from ...cards import PLAIN_STRENGTH, TRUMP_STRENGTH
from ...core.jit import njit_generic
from ...core.state import AN_STO, AN_STO_SEDMA, C_BETL, C_DURCH, C_SUIT, PH_PLAY
from ...core.tables import SHARP_MASK
from ...core.tricks import beats
from ...core.tricks import popcount as _pc
from . import observe as O
from .actions import PLAY0

# --- the view array's layout ------------------------------------------------------------
V_HAND = 0  # own hand (card set)
V_TALON = 1  # the talon this seat laid, else 0
V_PLAYED_BY = 2  # 3 slots: [relative seat] cards played
V_PLAYED = 5  # all cards played
V_TRICK_NO = 6  # 0..9
V_CONTRACT = 7  # C_* kind
V_TRUMP = 8  # trump suit as known to me, -1 none
V_ANNOUNCE = 9  # AN_* of a suit game, else 0
V_ACTOR = 10  # relative seat of the actor, -1 none
V_FIRST_MARRIAGE = 11  # 2 slots: [actor side, defence side] -> suit, -1
V_VOIDS = 13  # 3 slots: [relative seat] suit bits it showed it lacks
V_LEGAL = 16  # the cards this seat may play now
V_NTRICKS = 17  # complete tricks held in the trick slots (len(view.tricks))
V_HAS_CUR = 18  # 1 when there is a trick on the table (the card play), else 0
V_TRICKS = 19  # TRICK_SLOTS slots per trick: complete tricks 0..9, then the current one
T_LEADER = 0  # relative seat that led
T_N = 1  # cards in the trick so far
T_CARDS = 2  # 3 slots: the cards in playing order
T_BY = 5  # 3 slots: the relative seat of each card
TRICK_SLOTS = 8
CUR_TRICK = 10  # the trick index of the current trick
VIEW_SIZE = V_TRICKS + TRICK_SLOTS * 11

ALL_CARDS = 0xFFFFFFFF
RT, RQ, RK, RA = 3, 5, 6, 7
_NONE = -1  # no card (empty legal set)


# --- card helpers (those of robots/features.py) --------------------------------------------
@njit_generic
def _in_suit(m, s):
    # Python's SUIT_MASKS[s]: suit -1 (an unknown trump) reads suit 3's mask, as the
    # robot's tuple index did.
    return m & (0xFF << (8 * (s & 3)))


@njit_generic
def _strength(c, trump):
    return TRUMP_STRENGTH[c & 7] if trump >= 0 else PLAIN_STRENGTH[c & 7]


@njit_generic
def _points(c):
    return 10 if (SHARP_MASK >> c) & 1 else 0


@njit_generic
def _higher(c, m, trump):
    """The cards of ``m`` of ``c``'s suit that rank above ``c``."""
    out = 0
    sc = _strength(c, trump)
    mm = _in_suit(m, c >> 3)
    for d in range(32):
        if (mm >> d) & 1 and _strength(d, trump) > sc:
            out |= 1 << d
    return out


@njit_generic
def _lower(c, m, trump):
    return _in_suit(m, c >> 3) & ~_higher(c, m, trump) & ~(1 << c)


@njit_generic
def _married(hand, s):
    return (hand >> (8 * s + RQ)) & 3 == 3


@njit_generic
def _key(a, b, c, d, e):
    """A key tuple ``(a, b, c, d, e)`` (each in -32..31) as one int of the same order."""
    return ((((a + 32) * 64 + b + 32) * 64 + c + 32) * 64 + d + 32) * 64 + e + 32


@njit_generic
def _void(v, rel):
    # a list index: seat -1 reads seat 2, as in Python
    return v[V_VOIDS + (rel if rel >= 0 else rel + 3)]


@njit_generic
def _unknown(v):
    return ALL_CARDS & ~(v[V_HAND] | v[V_PLAYED] | v[V_TALON])


@njit_generic
def _tcard(v, k, j):
    return v[V_TRICKS + TRICK_SLOTS * k + T_CARDS + j]


@njit_generic
def _tby(v, k, j):
    return v[V_TRICKS + TRICK_SLOTS * k + T_BY + j]


@njit_generic
def _tn(v, k):
    return v[V_TRICKS + TRICK_SLOTS * k + T_N]


@njit_generic
def _beats(c, best, trump):
    """:func:`~mariash_env.core.tricks.beats` (a plain ``njit``) called with the trump as a
    value: betl's and durch's constant -1 would compile it, and its rank strength, once
    more."""
    return beats(c, best, trump)


@njit_generic
def _win_index(v, k, trump):
    bi = 0
    for j in range(1, _tn(v, k)):
        if beats(_tcard(v, k, j), _tcard(v, k, bi), trump):
            bi = j
    return bi


# The orders the card play picks a card by: the Python robot's key functions, in one place.
BY_RANK = 0  # c & 7
BY_STRENGTH = 1  # strength(c, trump)
BY_POINTS = 2  # (points, strength): the cheapest lead
BY_CHEAP = 3  # (points, is trump, strength): the cheapest card
BY_SMEAR = 4  # (points, not trump, is ten, -strength): points for the partner
BY_RICH = 5  # (points, -strength): the most points, won cheaply
BY_RICH_SIDE = 6  # (points, not trump, -strength)
BY_WIN_CHEAP = 7  # (is trump, points, strength): the cheapest winner


@njit_generic
def _card_key(c, t, order):
    p = _points(c) // 10
    st = _strength(c, t)
    tr = 1 if c >> 3 == t else 0
    if order == BY_RANK:
        return c & 7
    if order == BY_STRENGTH:
        return st
    if order == BY_POINTS:
        return _key(p, st, 0, 0, 0)
    if order == BY_CHEAP:
        return _key(p, tr, st, 0, 0)
    if order == BY_SMEAR:
        return _key(p, 1 - tr, 1 if (c & 7) == RT else 0, -st, 0)
    if order == BY_RICH:
        return _key(p, -st, 0, 0, 0)
    if order == BY_RICH_SIDE:
        return _key(p, 1 - tr, -st, 0, 0)
    return _key(tr, p, st, 0, 0)


@njit_generic
def _pick(m, t, order, biggest):
    """``max`` (``biggest``) or ``min`` of the cards of ``m`` by ``order``: the first best
    in ascending card order, as Python's max and min keep it; -1 for no card."""
    best = _NONE
    best_k = 0
    for c in range(32):
        if (m >> c) & 1:
            k = _card_key(c, t, order)
            if best < 0 or (k > best_k if biggest else k < best_k):
                best, best_k = c, k
    return best


@njit_generic
def _lowest_rank(m):
    return _pick(m, -1, BY_RANK, False)


@njit_generic
def _highest_rank(m):
    return _pick(m, -1, BY_RANK, True)


# --- entry ----------------------------------------------------------------------------------
@njit_generic
def choose_card(v):
    """The card the table robot plays from the view array ``v`` (-1: no legal card)."""
    legal = v[V_LEGAL]
    con = v[V_CONTRACT]
    if con == C_BETL:
        return _play_betl(v, legal)
    if con == C_DURCH:
        return _play_durch(v, legal)
    # Suit games (one function with the entry: one compilation less of their card play).
    t = v[V_TRUMP]
    seven = 1 << (8 * t) if t >= 0 else 0
    if v[V_TRICK_NO] < 9 and legal & ~seven:
        legal &= ~seven  # keep the trump seven for the last trick
    if _pc(legal) == 1:
        return _highest_rank(legal)
    if not v[V_HAS_CUR] or _tn(v, CUR_TRICK) == 0:
        return _lead_suit(v, legal)
    return _follow_suit(v, legal)


@njit_generic
def _may_trump(v, rel, led, out):
    t = v[V_TRUMP]
    if led == t or t < 0:
        return False
    vd = _void(v, rel)
    return (vd >> led) & 1 == 1 and (vd >> t) & 1 == 0 and _in_suit(out, t) != 0


@njit_generic
def _safe_winner(v, c, rel, out):
    """Does ``c``, once winning, stay winning against seat ``rel`` still to play?"""
    t = v[V_TRUMP]
    led = c >> 3
    if v[V_HAS_CUR] != 0 and _tn(v, CUR_TRICK) != 0:
        led = _tcard(v, CUR_TRICK, 0) >> 3
    vd = _void(v, rel)
    if c >> 3 == t:
        if _higher(c, out, t) and not (vd >> t) & 1:
            return False
    else:
        if _may_trump(v, rel, led, out):
            return False
        if not (vd >> (c >> 3)) & 1 and _higher(c, out, t):
            return False
    return True


# Suit games.
@njit_generic
def _lead_suit(v, legal):
    t = v[V_TRUMP]
    out = _unknown(v)
    h = v[V_HAND]
    tr_out = _in_suit(out, t)
    my_tr = _in_suit(legal, t)
    actor = v[V_ACTOR] == 0
    ntr = _pc(_in_suit(h, t)) if t >= 0 else 0
    an = v[V_ANNOUNCE]
    # Sto: the trump marriage first, then any marriage (only the first one counts).
    if actor and (an == AN_STO or an == AN_STO_SEDMA) and v[V_FIRST_MARRIAGE] < 0:
        if t >= 0 and _married(h, t):
            for r in (RQ, RK):
                if (legal >> (8 * t + r)) & 1:
                    return 8 * t + r
        for s in range(4):
            if _married(h, s):
                for r in (RQ, RK):
                    if (legal >> (8 * s + r)) & 1:
                        return 8 * s + r
    if actor and tr_out and my_tr:
        top = _pick(my_tr, t, BY_STRENGTH, True)
        if not _higher(top, tr_out, t):
            return top  # the boss trump draws the defence's trumps
        if ntr >= 3 and _pc(tr_out) <= ntr:
            cheap = _pick(my_tr & ~SHARP_MASK, t, BY_STRENGTH, False)
            if cheap >= 0:
                return cheap
    # Cash boss side cards where no opponent can trump.
    side = legal & ~(0xFF << (8 * t)) if t >= 0 else legal
    best = _NONE
    best_k = 0
    for c in range(32):
        if not (side >> c) & 1:
            continue
        s = c >> 3
        if _higher(c, out, t) or not _in_suit(out, s):
            continue
        if actor:
            if _may_trump(v, 1, s, out) or _may_trump(v, 2, s, out):
                continue
        else:
            if _may_trump(v, v[V_ACTOR], s, out):
                continue
            if tr_out and v[V_ACTOR] >= 0 and (_void(v, v[V_ACTOR]) >> s) & 1:
                continue
        k = _key(_points(c) // 10, c & 7, -_pc(_in_suit(h, s)), 0, 0)
        if best < 0 or k > best_k:
            best, best_k = c, k
    if best >= 0:
        return best
    # Otherwise a low card: from the shortest side suit without a ten to protect.
    through = not actor and v[V_ACTOR] == 1  # lead through the actor
    for c in range(32):
        if not (side >> c) & 1 or _points(c):
            continue
        s = c >> 3
        m = _in_suit(h, s)
        unguarded_ten = 1 if (m >> (8 * s + RT)) & 1 and not (m >> (8 * s + RA)) & 1 else 0
        in_marriage = 1 if _married(h, s) and ((c & 7) == RQ or (c & 7) == RK) else 0
        if through:  # a suit the partner (behind the actor) may win
            k = _key(in_marriage, unguarded_ten, (_void(v, 2) >> s) & 1, -_pc(m),
                     _strength(c, t))
        else:
            k = _key(in_marriage, unguarded_ten, _pc(m), _strength(c, t), 0)
        if best < 0 or k < best_k:
            best, best_k = c, k
    if best >= 0:
        return best
    return _pick(side if side else legal, t, BY_POINTS, False)


@njit_generic
def _follow_suit(v, legal):
    t = v[V_TRUMP]
    out = _unknown(v)
    k = CUR_TRICK
    pos = _tn(v, k)
    bi = _win_index(v, k, t)
    wcard = _tcard(v, k, bi)
    my_side = 0 if v[V_ACTOR] == 0 else 1
    partner_wins = (0 if _tby(v, k, bi) == v[V_ACTOR] else 1) == my_side
    win = 0
    for c in range(32):
        if (legal >> c) & 1 and beats(c, wcard, t):
            win |= 1 << c
    lose = legal & ~win
    if pos == 2:
        if partner_wins:
            return _pick(lose, t, BY_SMEAR, True) if lose else _pick(win, t, BY_CHEAP, False)
        if win:
            led = _tcard(v, k, 0) >> 3
            # a sharp card of the led suit wins
            best = _pick(_in_suit(win & SHARP_MASK, led), t, BY_STRENGTH, True)
            if best >= 0:
                return best
            return _pick(win, t, BY_WIN_CHEAP, False)
        return _pick(lose, t, BY_CHEAP, False)
    # Second to play.
    third = (v[V_TRICKS + TRICK_SLOTS * k + T_LEADER] + 2) % 3
    if (0 if third == v[V_ACTOR] else 1) == my_side:
        # Our side plays last: whatever I win stays ours.
        if win:
            return _pick(win, t, BY_RICH_SIDE, True)
        return _pick(lose, t, BY_CHEAP, False)
    safe = 0
    for c in range(32):
        if (win >> c) & 1 and _safe_winner(v, c, third, out):
            safe |= 1 << c
    if partner_wins:
        # The partner led; the actor plays last.
        if _safe_winner(v, wcard, third, out):
            return _pick(lose if lose else (safe if safe else win), t, BY_SMEAR, True)
    # (Else, and when I am the actor behind a defender's lead with the other defender
    # last:) the richest safe winner, else the cheapest card.
    if safe:
        return _pick(safe, t, BY_RICH, True)
    return _pick(lose if lose else win, t, BY_CHEAP, False)


# Betl.
@njit_generic
def _play_betl(v, legal):
    out = _unknown(v)
    k = CUR_TRICK
    if v[V_ACTOR] == 0:
        if _tn(v, k) == 0:
            return _lead_betl(v, legal, out)
        w = _tcard(v, k, _win_index(v, k, -1))
        best = _NONE
        best_k = 0
        for c in range(32):
            if (legal >> c) & 1 and not _beats(c, w, -1):
                # Dump the most dangerous card that stays under: the highest, most holes.
                kk = _key(1 if c >> 3 == w >> 3 else 0, _pc(_lower(c, out, -1)), c & 7, 0, 0)
                if best < 0 or kk > best_k:
                    best, best_k = c, kk
        if best >= 0:
            return best
        return _lowest_rank(legal)
    return _defend_betl(v, legal, out)


@njit_generic
def _lead_betl(v, legal, out):
    best = _NONE
    best_k = 0
    for c in range(32):
        if not (legal >> c) & 1:
            continue
        s = c >> 3
        above = _higher(c, out, -1)
        both_void = (_void(v, 1) >> s) & 1 == 1 and (_void(v, 2) >> s) & 1 == 1
        covered = 1 if above != 0 and not both_void else 0
        danger = _pc(_lower(c, out, -1))
        na = _pc(above)
        k = _key(covered, 1 if danger > 0 and na >= 1 else 0, danger, na, -(c & 7))
        if best < 0 or k > best_k:
            best, best_k = c, k
    return best


@njit_generic
def _defend_betl(v, legal, out):
    k = CUR_TRICK
    actor = v[V_ACTOR]
    partner = 3 - actor
    if _tn(v, k) == 0:
        # Attack (the program's notes): lead from the bottom where the actor may be forced over.
        best = _NONE
        best_k = 0
        for s in range(4):
            m = _in_suit(legal, s)
            if not m or (_void(v, actor) >> s) & 1:
                continue
            c = _lowest_rank(m)
            na = _pc(_higher(c, out, -1))
            kk = _key((_void(v, partner) >> s) & 1, 1 if na > 0 else 0, na, -(c & 7), 0)
            if best < 0 or kk > best_k:
                best, best_k = c, kk
        if best >= 0:
            return best
        return _lowest_rank(legal)
    n = _tn(v, k)
    bi = _win_index(v, k, -1)
    w = _tcard(v, k, bi)
    actor_winning = _tby(v, k, bi) == actor
    actor_played = False
    for j in range(n):
        if _tby(v, k, j) == actor:
            actor_played = True
    led = _tcard(v, k, 0) >> 3
    if not _in_suit(legal, led):
        # Void: throw the highest card, from a suit the actor no longer holds first.
        best = _NONE
        best_k = 0
        for c in range(32):
            if (legal >> c) & 1:
                kk = _key((_void(v, actor) >> (c >> 3)) & 1, c & 7, 0, 0, 0)
                if best < 0 or kk > best_k:
                    best, best_k = c, kk
        return best
    if actor_played:
        under = 0
        for c in range(32):
            if (legal >> c) & 1 and not _beats(c, w, -1):
                under |= 1 << c
        if actor_winning and under:
            return _highest_rank(under)  # let the actor keep the trick
        return _highest_rank(legal)  # shed high cards, keep low ones
    # The actor plays after me: keep the winning card as low as the rules allow.
    return _lowest_rank(legal)


# Durch.
@njit_generic
def _play_durch(v, legal):
    out = _unknown(v)
    if v[V_ACTOR] == 0:
        if _tn(v, CUR_TRICK) == 0:
            best = _NONE
            best_k = 0
            for c in range(32):
                if not (legal >> c) & 1:
                    continue
                above = _higher(c, out, -1)
                boss = 1 if not above else 0
                second = _pc(_in_suit(out, c >> 3)) if boss else -_pc(above)
                k = _key(boss, second, c & 7, 0, 0)
                if best < 0 or k > best_k:
                    best, best_k = c, k
            return best
        return _highest_rank(legal)
    return _defend_durch(v, legal, out)


@njit_generic
def _partner_signals(v):
    """Suits where the partner threw off the highest unplayed card (the program's notes)."""
    partner = 3 - v[V_ACTOR]
    seen = 0
    sig = 0
    for k in range(v[V_NTRICKS] + 1):
        if k == v[V_NTRICKS]:
            if not v[V_HAS_CUR]:
                break
            k = CUR_TRICK
        n = _tn(v, k)
        led = _tcard(v, k, 0) >> 3 if n else -1
        for j in range(n):
            c = _tcard(v, k, j)
            if _tby(v, k, j) == partner and c >> 3 != led and not _higher(
                    c, ALL_CARDS & ~seen & ~(1 << c), -1):
                sig |= 1 << (c >> 3)
            seen |= 1 << c
    return sig


@njit_generic
def _defend_durch(v, legal, out):
    k = CUR_TRICK
    led = _tcard(v, k, 0) >> 3 if _tn(v, k) else -1
    if led >= 0 and _in_suit(legal, led):
        return _lowest_rank(legal)  # keep the guards
    actor = v[V_ACTOR]
    partner = 3 - actor
    unplayed = ALL_CARDS & ~v[V_PLAYED]
    signals = _partner_signals(v)
    actor_led = 0
    for t in range(v[V_NTRICKS]):
        if v[V_TRICKS + TRICK_SLOTS * t + T_LEADER] == actor and _tn(v, t):
            actor_led |= 1 << (_tcard(v, t, 0) >> 3)
    best = _NONE
    best_k = 0
    for s in range(4):
        m = _in_suit(legal, s)
        if not m:
            continue
        top = _highest_rank(m)
        others = _in_suit(unplayed & ~v[V_HAND], s)
        above = _higher(top, others, -1)
        # 1. I hold the two highest unplayed cards: throw the highest (a signal).
        second = _highest_rank(m & ~(1 << top))
        top2 = second >= 0 and not above and not _higher(second, others, -1)
        guard = _pc(m) >= 1 + _pc(above)
        catchable = _in_suit(out, s) != 0 and not (_void(v, actor) >> s) & 1
        low = _lowest_rank(m)
        if top2:
            pri, card = 6, top
        elif (signals >> s) & 1:
            pri, card = 5, top  # 2. follow the partner's signal: throw from the top
        elif not catchable:
            pri, card = 4, low  # 4. nothing to catch here
        elif not guard:
            pri, card = 3, low
        elif (_void(v, partner) >> s) & 1:
            pri, card = 0, low  # 3. the partner's gap: keep
        else:
            # 5./6. keep promising guards; tear a suit the actor led or the partner threw
            pri, card = 1, low
            if (actor_led >> s) & 1:
                pri = 2
        kk = _key(pri, -_pc(above), -_pc(m), 0, 0)
        if best < 0 or kk > best_k:
            best, best_k = card, kk
    return best if best >= 0 else _lowest_rank(legal)


# --- reading an observation's card play -----------------------------------------------------
@njit_generic
def first_set(obs, off, n):
    """Index of the first slot > 0.5 of ``obs[off:off + n]``, -1 if none."""
    for i in range(n):
        if obs[off + i] > 0.5:
            return i
    return -1


@njit_generic
def bits32(obs, off):
    """The card set of the 32 slots ``obs[off:off + 32]`` (> 0.5: set)."""
    m = 0
    for i in range(32):
        if obs[off + i] > 0.5:
            m |= 1 << i
    return m


@njit_generic
def _owner(v, c):
    for r in range(2, -1, -1):  # a card of two seats: the last one's, as in Python
        if (v[V_PLAYED_BY + r] >> c) & 1:
            return r
    return 2


@njit_generic
def read_tricks(obs, played_by, played_in, trick_leader, cur_trick, in_play, trump, v):
    """The card play so far from the observation's blocks at these offsets (``played_by``
    [seat][card], ``played_in`` [card][trick], ``trick_leader`` [trick][seat],
    ``cur_trick`` [first, second][card]) into the view array ``v``: the played cards, the
    complete tricks in playing order, the trick on the table (when ``in_play`` and a
    trick is left), the trick number and the voids (``trump`` -1: none), as
    :func:`~mariash_env.robots.features.play_history` gives them."""
    played = 0
    for r in range(3):
        m = bits32(obs, played_by + 32 * r)
        v[V_PLAYED_BY + r] = m
        played |= m
    v[V_PLAYED] = played
    ncur = 0
    cur0 = cur1 = -1  # the trick on the table's cards so far
    for j in range(2):
        c = first_set(obs, cur_trick + 32 * j, 32)
        if c >= 0:
            if ncur == 0:
                cur0 = c
            else:
                cur1 = c
            ncur += 1
    trick_no = (_pc(played) - ncur) // 3
    v[V_TRICK_NO] = trick_no
    ntr = 0
    for t in range(min(trick_no, 10)):
        lead = -1
        for r in range(3):
            if obs[trick_leader + 3 * t + r] > 0.5:
                lead = r
        base = V_TRICKS + TRICK_SLOTS * t
        v[base + T_LEADER] = lead
        n = 0
        for c in range(32):
            if n < 3 and obs[played_in + 10 * c + t] > 0.5:
                # insert by the seat's order after the leader (stable: ascending cards)
                key = (_owner(v, c) - lead + 6) % 3
                j = n
                while j > 0 and (_owner(v, v[base + T_CARDS + j - 1]) - lead + 6) % 3 > key:
                    v[base + T_CARDS + j] = v[base + T_CARDS + j - 1]
                    j -= 1
                v[base + T_CARDS + j] = c
                n += 1
        v[base + T_N] = n
        for j in range(n):
            v[base + T_BY + j] = _owner(v, v[base + T_CARDS + j])
        ntr += 1
    v[V_NTRICKS] = ntr
    v[V_HAS_CUR] = 0
    if in_play and trick_no < 10:
        lead = -1
        if trick_no >= 0:
            for r in range(3):
                if obs[trick_leader + 3 * trick_no + r] > 0.5:
                    lead = r
        if lead < 0:
            lead = 0  # no card yet: the seat to move (me) leads
        base = V_TRICKS + TRICK_SLOTS * CUR_TRICK
        v[V_HAS_CUR] = 1
        v[base + T_LEADER] = lead
        v[base + T_N] = ncur
        for j in range(ncur):
            v[base + T_CARDS + j] = cur0 if j == 0 else cur1
            v[base + T_BY + j] = (lead + j) % 3
    for r in range(3):
        v[V_VOIDS + r] = 0
    for k in range(ntr + 1):
        if k == ntr:
            if not v[V_HAS_CUR]:
                break
            k = CUR_TRICK
        n = _tn(v, k)
        if n == 0:
            continue
        led = _tcard(v, k, 0) >> 3
        for j in range(1, n):
            c = _tcard(v, k, j)
            if c >> 3 != led:
                by = _tby(v, k, j)
                v[V_VOIDS + by] |= 1 << led
                if trump >= 0 and c >> 3 != trump:
                    v[V_VOIDS + by] |= 1 << trump


@njit_generic
def legal_cards(mask, play0):
    """The ``play:`` slots of an action mask as a card set."""
    m = 0
    for c in range(32):
        if mask[play0 + c]:
            m |= 1 << c
    return m


@njit_generic
def decode_voleny(obs, mask, v):
    """The view array of a volený observation (its first ``OBS_SIZE`` slots) and action
    mask, as :func:`~mariash_env.robots.features.decode` then
    :meth:`~mariash_env.robots.card_view.CardPlayView.of_info` give it."""
    v[V_HAND] = bits32(obs, O.O_HAND)
    v[V_TALON] = bits32(obs, O.O_TALON)
    con = first_set(obs, O.O_CONTRACT, 3) + 1
    tc = first_set(obs, O.O_TRUMP_CARD, 32)
    ts = first_set(obs, O.O_TRUMP_SUIT, 4)
    trump = -1
    if con == C_SUIT or con == 0:
        trump = ts if ts >= 0 else (tc >> 3 if tc >= 0 else -1)
    v[V_CONTRACT] = con
    v[V_TRUMP] = trump
    v[V_ANNOUNCE] = first_set(obs, O.O_ANNOUNCE, 4) + 1
    v[V_ACTOR] = first_set(obs, O.O_ACTOR, 3)
    first_marriage(obs, O.O_FIRST_MARRIAGE, v)
    v[V_LEGAL] = legal_cards(mask, PLAY0)
    read_tricks(obs, O.O_PLAYED_BY, O.O_PLAYED_IN, O.O_TRICK_LEADER, O.O_CUR_TRICK,
                first_set(obs, O.O_PHASE, 9) == PH_PLAY, trump, v)


@njit_generic
def first_marriage(obs, off, v):
    """The first-marriage block at ``off`` ([side][suit]) into ``v``."""
    v[V_FIRST_MARRIAGE] = -1
    v[V_FIRST_MARRIAGE + 1] = -1
    for k in range(8):  # [side][suit]; the last set slot of a side wins
        if obs[off + k] > 0.5:
            v[V_FIRST_MARRIAGE + (k >> 2)] = k & 3



def view_array(o, out: np.ndarray | None = None) -> np.ndarray:
    """A :class:`~mariash_env.robots.card_view.CardPlayView` as the view array (into
    ``out`` when given)."""
    v = np.zeros(VIEW_SIZE, np.int64) if out is None else out
    v[V_HAND] = o.hand
    v[V_TALON] = o.talon
    v[V_PLAYED_BY:V_PLAYED_BY + 3] = o.played_by
    v[V_PLAYED] = o.played
    v[V_TRICK_NO] = o.trick_no
    v[V_CONTRACT] = o.contract
    v[V_TRUMP] = o.trump
    v[V_ANNOUNCE] = o.announce
    v[V_ACTOR] = o.actor
    v[V_FIRST_MARRIAGE:V_FIRST_MARRIAGE + 2] = o.first_marriage
    v[V_VOIDS:V_VOIDS + 3] = o.voids
    v[V_LEGAL] = o.legal
    if len(o.tricks) > 10:
        raise ValueError(f"a card-play view holds at most 10 complete tricks, got "
                         f"{len(o.tricks)}")
    v[V_NTRICKS] = len(o.tricks)
    v[V_HAS_CUR] = o.cur is not None
    for k, tr in enumerate([*o.tricks, o.cur]):
        if tr is None:
            continue
        if len(tr.cards) > 3 or len(tr.by) != len(tr.cards):
            raise ValueError(f"a trick is up to 3 cards with a seat each, got cards "
                             f"{tr.cards} by {tr.by}")
        base = V_TRICKS + TRICK_SLOTS * (CUR_TRICK if k == len(o.tricks) else k)
        v[base + T_LEADER] = tr.leader
        v[base + T_N] = len(tr.cards)
        v[base + T_CARDS:base + T_CARDS + len(tr.cards)] = tr.cards
        v[base + T_BY:base + T_BY + len(tr.by)] = tr.by
    return v
