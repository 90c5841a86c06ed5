"""Settlement of licitovaný mariáš in desetník units (LICITOVANY.md §8–§9).

Each component is a line ``A`` per defender (actor ``+2A``, defenders ``-A``), from
volený's line writer (:func:`.settle._line`); the net is capped per payer, and a laid
game's lone flekking defender pays for both.  Lines: 0 game (also betl / durch),
1 seven, 2 hundred, 3 two sevens, 4 silent seven.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_generic
from ...core.state import (
    ACTOR,
    BET_LEVEL,
    C_BETL,
    C_DURCH,
    END,
    END_BARE_FLEK,
    END_BROKEN,
    END_FOLD,
    END_NO_BID,
    END_SHOW,
    K_GAME,
    K_HUNDRED,
    K_SEVEN,
    K_TWO_SEVENS,
    LIC_GAME,
    LIC_HELP,
    LIC_LAID,
    LIC_LAID_PAYER,
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
    TLEAD,
    TRICKS,
    TRUMP_CARD,
    TWIN,
    set64,
)
from ..voleny.settle import _line, capped_net, clear_lines, side_marriages
from .games import COMPONENTS, G_LEPSI_STO, G_STO, HEARTS, KIND

FOLD_PRICE = 6  # 0,60 "za omyl" per defender, fixed (§5 T1)
SHOW_PRICE = 60  # 6,- per defender; lepší 9,- (§6)
SHOW_PRICE_LEPSI = 90
BETL_PRICE, DURCH_PRICE = 15, 30
TWO_SEVENS_PRICE, TWO_SEVENS_PRICE_LEPSI = 40, 60


@njit_generic
def _takes_trick(st, t, c, seat):
    """Did ``seat`` play ``c`` to trick ``t`` (0-based) and win it with that card?"""
    if st[TWIN + t] != seat:
        return False
    return st[TRICKS + 3 * t + (seat - st[TLEAD + t]) % 3] == c


@njit_generic
def _played_lines(st):
    """§8–§9: every component line of a played deal."""
    actor = st[ACTOR]
    g = st[LIC_GAME]
    comp = COMPONENTS[g]
    h = np.int64(2 if HEARTS[g] else 1)
    kind = KIND[g]
    if kind == C_BETL or kind == C_DURCH:
        price = BETL_PRICE if kind == C_BETL else DURCH_PRICE
        _line(st, 0, st[END] != END_BROKEN, price, 1,
              np.int64(1) << st[BET_LEVEL + K_GAME])
        return
    ca = st[PTS + actor]
    cd = st[PTS + (actor + 1) % 3] + st[PTS + (actor + 2) % 3]
    trump = st[TRUMP_CARD] >> 3
    ma, md, fa, _fd = side_marriages(st)
    if comp == (1 << K_TWO_SEVENS):  # two sevens without sto: points do not count (§8)
        ma, md, fa = 0, 0, -1
    first_a = 0 if fa < 0 else (40 if fa == trump else 20)
    # The defence's first marriage (_fd) counts in no rule: no hundred against (§3), and
    # the lost hundred and the defence's silent hundred count all its marriages (Md, §8,
    # §9); SIDE_FIRST + 1 stays 0 as the deal cleared it (volený's hundred against, R§9).
    pa = ca + ma
    pd = cd + md
    st[SIDE_PTS] = ca
    st[SIDE_PTS + 1] = cd
    st[SIDE_MARR] = ma
    st[SIDE_MARR + 1] = md
    st[SIDE_FIRST] = first_a
    if comp & (1 << K_GAME):
        won = pa > pd
        worth = 1
        best = pa if won else pd
        if best >= 100:  # silent hundred, for whichever side won the game
            worth = 2 * (best - 90) // 10
            st[SILENT100] = 1 if won else 2
        _line(st, K_GAME, won, worth, 1, h << st[BET_LEVEL + K_GAME])
    if comp & (1 << K_SEVEN):
        won = st[SEVEN_TRICK] == 9 and st[SEVEN_WON] == 1 and st[SEVEN_SEAT] == actor
        _line(st, K_SEVEN, won, 2, 1, h << st[BET_LEVEL + K_SEVEN])
    if comp & (1 << K_HUNDRED):
        counted = ca + first_a  # announced hundred: the first marriage only
        mult = h << st[BET_LEVEL + K_HUNDRED]
        if counted >= 100:
            _line(st, K_HUNDRED, True, 4 * (pa - 90) // 10, 1, mult)
        else:
            _line(st, K_HUNDRED, False, 4 * ((100 - counted) + md) // 10, 1, mult)
    if comp & (1 << K_TWO_SEVENS):
        won = (_takes_trick(st, 8, st[LIC_HELP] * 8, actor)
               and _takes_trick(st, 9, trump * 8, actor))
        price = TWO_SEVENS_PRICE_LEPSI if HEARTS[g] else TWO_SEVENS_PRICE
        _line(st, K_TWO_SEVENS, won, price, 1, np.int64(1) << st[BET_LEVEL + K_TWO_SEVENS])
    if (g == G_STO or g == G_LEPSI_STO) and st[SEVEN_TRICK] == 9:
        # Silent seven: for the side of whoever played the trump 7 to trick 10 (§8).
        sign = 1 if st[SEVEN_SEAT] == actor else -1
        _line(st, 4, st[SEVEN_WON] == 1, 1, sign, h)


@njit_generic
def settle_licit(st, rules):
    """Compute every line and the payments of a finished licitovaný deal (§9)."""
    clear_lines(st)
    actor = st[ACTOR]
    end = st[END]
    g = st[LIC_GAME]
    h = np.int64(2 if HEARTS[g] else 1)
    fixed = np.int64(0)  # the unplayed deals' fixed prices (no line)
    if end == END_FOLD:
        fixed = np.int64(-FOLD_PRICE)
    elif end == END_SHOW:
        fixed = np.int64(-(SHOW_PRICE_LEPSI if HEARTS[g] else SHOW_PRICE))
    elif end == END_BARE_FLEK:
        # The flekked game conceded and the seven conceded cancel (§6).
        _line(st, K_GAME, False, 1, 1, 2 * h)
        _line(st, K_SEVEN, True, 2, 1, h)
    elif end != END_NO_BID:
        _played_lines(st)
    a = capped_net(st, rules, fixed)
    for s in range(3):
        set64(st, PAY + 2 * s, 0)
    if actor >= 0:
        payer = st[LIC_LAID_PAYER]
        for k in (1, 2):
            d = (actor + k) % 3
            if st[LIC_LAID] and payer >= 0 and a > 0:
                set64(st, PAY + 2 * d, -2 * a if d == payer else 0)
            else:
                set64(st, PAY + 2 * d, -a)
        set64(st, PAY + 2 * actor, 2 * a)
    st[SETTLED] = 1
