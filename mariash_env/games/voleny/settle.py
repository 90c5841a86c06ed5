"""Settlement in groše (RULES.md §9, §5.4, §12): pure arithmetic on a finished deal.

Every line is an amount ``A`` per defender from the actor's point of view: the
actor receives ``2A``, each defender pays ``A``.

Amounts are int64 (two state slots each, ``set64``).  The largest |line| at the
highest level, ``UNLIMITED_FLEK`` = 24 (multiplier 2^24 = 16,777,216; ``make_rules``
allows ints up to 20), either tariff, times H = 2 for hearts:

- game: max of hra 1, silent hundred 2 + 2*(190-100)/10 = 20 (card points <= 90:
  eight aces/tens + the last trick; marriages <= 100), sto won 4 + 4*(190-100)/10 = 40,
  sto lost 4*(100-0)/10 + 4*80/10 = 72 (the sto player holds a marriage, so the
  defence's are <= 80), betl 15 / durch 30 (csm, no H)  ->  72 * 2 * 2^24;
- hundred against: the same bounds, 72 * 2 * 2^24;
- seven, seven against: killed_seven 3 (> sedma 2), each 3 * 2 * 2^24;
- silent seven: 1 * 2 (never flekked).

Summed: (72 + 72 + 3 + 3) * 2 * 2^24 + 2 = 5,033,164,802 per defender (2^32.2) and
10,066,329,604 for the actor: beyond int32 (2^31 - 1 = 2,147,483,647), so every amount
and the partie scores (engine ``_finish``) are int64; a score stays exact for fewer
than 2^63 / 10,066,329,604 ~ 9.16e8 deals.  ``payment_cap`` only narrows ``A``.
Under ``hundred_counting="order_free"`` (§11.2) a hundred is priced multiplicatively:
won at most 4 * 2^9 = 2,048 (190 points), lost at most 4 * 2^13 = 32,768 (the other
side's 90 card points + 80 of marriages: the hundred's side holds one), the silent
hundred 2^10; so |A| <= (2 * 32,768 + 6) * 2 * 2^24 + 2 < 2^41, 2A < 2^42, and the
scores stay exact for more than 2^21 > MAX_DEALS deals.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_generic
from ...core.play import side_marriages  # noqa: F401 - shared; licitovaný imports it here too
from ...core.state import (
    ACTOR,
    AMT,
    AN_STO,
    AN_STO_SEDMA,
    ANNOUNCE,
    B_GAME,
    B_HUNDRED_AG,
    B_SEVEN,
    B_SEVEN_AG,
    BET_EXISTS,
    BET_LEVEL,
    C_BETL,
    C_DURCH,
    CONTRACT,
    END,
    END_BROKEN,
    END_CONCEDED,
    END_SEDMA_VOID,
    L_GAME,
    L_HUNDRED_AG,
    L_SEVEN,
    L_SEVEN_AG,
    L_SILENT_SEVEN,
    MARR_SEAT,
    OVERCALLS,
    PAY,
    PTS,
    SETTLED,
    SEVEN_SEAT,
    SEVEN_TRICK,
    SEVEN_WON,
    SIDE_FIRST,
    SIDE_MARR,
    SIDE_PTS,
    SILENT100,
    TRUMP_CARD,
    WON,
    WORTH,
    get64,
    set64,
)
from ...rules import (
    R_BETL,
    R_CAP,
    R_DURCH,
    R_HRA,
    R_KILLED_SEVEN,
    R_ORDER_FREE,
    R_SEDMA,
    R_STO,
)


@njit_generic
def clear_lines(st):
    """Every settlement line and the silent-hundred mark back to zero (both games)."""
    for i in range(5):
        set64(st, AMT + 2 * i, 0)
        st[WON + i] = 0
        st[WORTH + i] = 0
    st[SILENT100] = 0


@njit_generic
def capped_net(st, rules, fixed):
    """The lines' sum plus ``fixed`` (a price outside the lines), ``A`` per defender,
    clamped to ``payment_cap`` when one is set."""
    a = np.int64(fixed)
    for i in range(5):
        a += get64(st, AMT + 2 * i)
    cap = rules[R_CAP]
    if cap > 0:
        a = min(cap, max(-cap, a))
    return a


@njit_generic
def _order_free_first(st, actor, trump, actor_side):
    """§11.2: the marriage a side's hundred counts before reaching 100 -- 40 when it
    announced the trump marriage, else 20 when it announced any, else 0."""
    best = 0
    for su in range(4):
        ms = st[MARR_SEAT + su]
        if ms >= 0 and (ms == actor) == actor_side:
            best = max(best, 40 if su == trump else 20)
    return best


@njit_generic
def _hundred_worth(sto, won, counted, p, q, q_marr, free):
    """Worth of a hundred (forehand's sto or the defence's hundred against) for the side
    with ``counted`` points toward 100 and ``p`` with all its marriages; ``q`` the other
    side's points with all marriages, ``q_marr`` its marriages.  §9: ``4 + 4 per ten over``
    when won, ``4 per ten missing + 4 per ten of the other side's marriages`` when lost;
    §11.2 (order-free): ``4 * 2^(tens over 100)`` won, ``4 * 2^(tens of q over 40)`` lost."""
    if free:
        if won:
            return sto << ((p - 100) // 10)
        return sto << (max(0, q - 40) // 10)
    if won:
        return sto + sto * (p - 100) // 10
    return sto * (100 - counted) // 10 + sto * q_marr // 10


@njit_generic
def _silent_worth(hra, p, free):
    """The silent hundred of the side winning the game with ``p >= 100``: §9
    ``2 + 2 per ten over 100``; §11.2 (order-free) ``2^(1 + tens over 100)``."""
    if free:
        return hra << (1 + (p - 100) // 10)
    return 2 * hra + 2 * hra * (p - 100) // 10


@njit_generic
def _line(st, line, won, worth, sign_won, mult):
    """Record a line: ``sign_won`` is +1 when winning it pays the actor, -1 for the defence's."""
    st[WON + line] = 1 if won else 0
    st[WORTH + line] = worth
    set64(st, AMT + 2 * line, np.int64(sign_won if won else -sign_won) * worth * mult)


@njit_generic
def settle(st, rules):
    """Compute every line of the settlement and the payments of a finished deal."""
    clear_lines(st)
    actor = st[ACTOR]
    con = st[CONTRACT]
    end = st[END]
    glevel = np.int64(1) << st[BET_LEVEL + B_GAME]
    if con == C_BETL or con == C_DURCH:
        price = rules[R_BETL] if con == C_BETL else rules[R_DURCH]
        if st[OVERCALLS] & 1:  # §11.1: open betl / durch cost twice
            price *= 2
        won = end != END_BROKEN  # broken at the first deciding trick, else won
        _line(st, L_GAME, won, price, 1, glevel)
    else:
        h = 2 if (st[TRUMP_CARD] >> 3) == 0 else 1
        hra = rules[R_HRA]
        sedma = rules[R_SEDMA]
        sto = rules[R_STO]
        killed = rules[R_KILLED_SEVEN]
        if end == END_CONCEDED:
            _line(st, L_GAME, True, hra, 1, glevel * h)
        elif end == END_SEDMA_VOID:
            _line(st, L_GAME, False, hra, 1, glevel * h)
            _line(st, L_SEVEN, True, sedma, 1, (np.int64(1) << st[BET_LEVEL + B_SEVEN]) * h)
        else:
            # Points: cards (aces, tens, last trick) plus marriages, per side.
            ca = st[PTS + actor]
            cd = 0
            for s in range(3):
                if s != actor:
                    cd += st[PTS + s]
            trump = st[TRUMP_CARD] >> 3
            ma, md, fa, fd = side_marriages(st)
            first_a = 0 if fa < 0 else (40 if fa == trump else 20)
            first_d = 0 if fd < 0 else (40 if fd == trump else 20)
            free = rules[R_ORDER_FREE] != 0
            if free:  # §11.2: 40 with the trump marriage, else 20 with any, in any order
                first_a = _order_free_first(st, actor, trump, True)
                first_d = _order_free_first(st, actor, trump, False)
            pa = ca + ma
            pd = cd + md
            st[SIDE_PTS] = ca
            st[SIDE_PTS + 1] = cd
            st[SIDE_MARR] = ma
            st[SIDE_MARR + 1] = md
            st[SIDE_FIRST] = first_a
            st[SIDE_FIRST + 1] = first_d
            an = st[ANNOUNCE]
            if an == AN_STO or an == AN_STO_SEDMA:
                counted = ca + first_a
                won = counted >= 100
                _line(st, L_GAME, won, _hundred_worth(sto, won, counted, pa, pd, md, free), 1,
                      glevel * h)
            else:
                won = pa > pd
                worth = hra
                if won and pa >= 100:
                    worth = _silent_worth(hra, pa, free)
                    st[SILENT100] = 1
                elif not won and pd >= 100 and not st[BET_EXISTS + B_HUNDRED_AG]:
                    worth = _silent_worth(hra, pd, free)
                    st[SILENT100] = 2
                _line(st, L_GAME, won, worth, 1, glevel * h)
            seven_last = st[SEVEN_TRICK] == 9 and st[SEVEN_WON] == 1
            if st[BET_EXISTS + B_SEVEN]:
                won = seven_last and st[SEVEN_SEAT] == actor
                _line(st, L_SEVEN, won, sedma if won else killed, 1,
                      (np.int64(1) << st[BET_LEVEL + B_SEVEN]) * h)
            if st[BET_EXISTS + B_SEVEN_AG]:
                won = seven_last and st[SEVEN_SEAT] != actor
                _line(st, L_SEVEN_AG, won, sedma if won else killed, -1,
                      (np.int64(1) << st[BET_LEVEL + B_SEVEN_AG]) * h)
            if st[BET_EXISTS + B_HUNDRED_AG]:
                counted = cd + first_d
                mult = (np.int64(1) << st[BET_LEVEL + B_HUNDRED_AG]) * h
                won = counted >= 100
                _line(st, L_HUNDRED_AG, won, _hundred_worth(sto, won, counted, pd, pa, ma, free),
                      -1, mult)
            if (not st[BET_EXISTS + B_SEVEN] and not st[BET_EXISTS + B_SEVEN_AG]
                    and st[SEVEN_TRICK] == 9):
                # Silent seven: for the side of whoever played it to the last trick.
                sign = 1 if st[SEVEN_SEAT] == actor else -1
                _line(st, L_SILENT_SEVEN, st[SEVEN_WON] == 1, 1, sign, h)
    a = capped_net(st, rules, 0)
    for s in range(3):
        set64(st, PAY + 2 * s, 2 * a if s == actor else -a)
    st[SETTLED] = 1
