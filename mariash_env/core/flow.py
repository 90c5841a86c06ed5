"""Steps both games' phase machines share: taking a talon, discarding to it, and ending
a deal (settlement into the partie's scores)."""

from __future__ import annotations

import numpy as np

from ..games.licitovany.settle import settle_licit
from ..games.voleny.four import book4
from ..games.voleny.settle import settle
from ..rules import G_LICIT, R_GAME, R_NDEALS, R_PLAYERS
from .jit import njit, njit_inline
from .play import play_card, trick_end
from .state import (
    DEAL_NO,
    DISC,
    END,
    END_NONE,
    HAND,
    LAID,
    LEADER,
    NDISC,
    PARTIE_DONE,
    PAY,
    PH_DONE,
    PHASE,
    SCORE,
    TALON,
    TALON_OWNER,
    TO_MOVE,
    TOOK,
    TRICK_N,
    get64,
    getm,
    set64,
    setm,
)


@njit
def take_talon(st, seat):
    """The talon goes into ``seat``'s hand (RULES.md §4.2, LICITOVANY.md §5)."""
    t = getm(st, TALON)
    setm(st, HAND + seat, getm(st, HAND + seat) | t)
    setm(st, TOOK + seat, getm(st, TOOK + seat) | t)
    setm(st, TALON, 0)
    st[DISC] = -1
    st[DISC + 1] = -1
    st[TALON_OWNER] = -1


@njit
def discard_card(st, seat, c):
    """One card from ``seat``'s hand to its talon; returns how many it has laid now.
    The talon grows card by card, so the discarding seat's view keeps its first discard."""
    bit = np.int64(1) << c
    setm(st, HAND + seat, getm(st, HAND + seat) & ~bit)
    n = st[NDISC]
    st[DISC + n] = c
    st[NDISC] = n + 1
    setm(st, TALON, getm(st, TALON) | bit)
    st[TALON_OWNER] = seat
    setm(st, LAID + seat, getm(st, LAID + seat) | bit)
    return n + 1


@njit
def finish(st, rules, end):
    """End the deal: settle it by its game's rules and book the payments into the partie."""
    st[END] = end
    st[PHASE] = PH_DONE
    st[TO_MOVE] = -1
    if rules[R_GAME] == G_LICIT:
        settle_licit(st, rules)
    else:
        settle(st, rules)
    if rules[R_PLAYERS] == 4:  # §11.3: the sitting-out dealer pays with the defence
        book4(st)
    else:
        for s in range(3):
            set64(st, SCORE + 2 * s, get64(st, SCORE + 2 * s) + get64(st, PAY + 2 * s))
    if st[DEAL_NO] + 1 >= rules[R_NDEALS]:
        st[PARTIE_DONE] = 1


@njit_inline
def play_turn(st, rules, seat, c):
    """One card of ``seat`` to the trick (both games): a closed trick may end the deal
    (``trick_end``: a betl or durch decided, the tenth trick), else its winner leads;
    an open one passes the turn clockwise."""
    play_card(st, rules, seat, c)
    if st[TRICK_N] == 0:  # the trick closed
        end = trick_end(st)
        if end != END_NONE:
            finish(st, rules, end)
        else:
            st[TO_MOVE] = st[LEADER]
    else:
        st[TO_MOVE] = (seat + 1) % 3
