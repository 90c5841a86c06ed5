"""Steps both games' phase machines share: taking a talon, discarding to it, playing a
card to the trick, and ending a deal (its settlement booked into the partie's scores).
Names no game: each game's phase machine settles its own deals between
:func:`end_deal` and :func:`book_deal`."""

from __future__ import annotations

import numpy as np

from ..rules import R_NDEALS, R_SIZE
from .jit import njit_generic, njit_inline
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
    STATE_SIZE,
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

# Numba does not check bounds: every entry taking caller-provided arrays checks their
# sizes first (constant messages: numba raises only those).
_ST_MSG = f"the state must be an int32[{STATE_SIZE}] record (core.state.STATE_SIZE)"
_RULES_MSG = f"the rules vector must have {R_SIZE} values (Rules.vector())"


@njit_inline
def check_state(st, rules):
    """Raise ValueError unless ``st`` and ``rules`` are the sizes the engine indexes."""
    if st.shape[0] < STATE_SIZE:
        raise ValueError(_ST_MSG)
    if rules.shape[0] < R_SIZE:
        raise ValueError(_RULES_MSG)


@njit_generic
def take_talon(st, seat):
    """The talon goes into ``seat``'s hand (RULES.md §4.2, LICITOVANY.md §5)."""
    t = getm(st, TALON)
    setm(st, HAND + seat, getm(st, HAND + seat) | t)
    setm(st, TOOK + seat, getm(st, TOOK + seat) | t)
    setm(st, TALON, 0)
    st[DISC] = -1
    st[DISC + 1] = -1
    st[TALON_OWNER] = -1


@njit_generic
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


@njit_generic
def end_deal(st, end):
    """The deal ends (``end``: how): nobody moves any more; its game settles it next."""
    st[END] = end
    st[PHASE] = PH_DONE
    st[TO_MOVE] = -1


@njit_generic
def book_deal(st, rules):
    """Book the settled deal's payments into the three seats' scores; the partie ends with
    its last deal (:func:`count_deal`).  A table that books otherwise (volený at four:
    ``games/voleny/four.book4``) calls :func:`count_deal` itself."""
    for s in range(3):
        set64(st, SCORE + 2 * s, get64(st, SCORE + 2 * s) + get64(st, PAY + 2 * s))
    count_deal(st, rules)


@njit_generic
def count_deal(st, rules):
    """The partie ends with its last deal (``rules[R_NDEALS]``)."""
    if st[DEAL_NO] + 1 >= rules[R_NDEALS]:
        st[PARTIE_DONE] = 1


@njit_inline
def play_turn(st, rules, seat, c):
    """One card of ``seat`` to the trick (both games).  Returns how a closed trick ends
    the deal (``trick_end``: a betl or durch decided, the tenth trick), which the
    game's phase machine then settles, else ``END_NONE``: the trick's winner leads, or
    an open trick passes the turn clockwise."""
    play_card(st, rules, seat, c)
    if st[TRICK_N] == 0:  # the trick closed
        end = trick_end(st)
        if end == END_NONE:
            st[TO_MOVE] = st[LEADER]
        return end
    st[TO_MOVE] = (seat + 1) % 3
    return END_NONE
