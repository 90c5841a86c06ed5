"""What a seat of licitovaný knows of a deal and which of the deal's decisions the other
seats do not see (:data:`HIDDEN`, the kind's ``hidden_info``), and the deal's bounds for
OpenSpiel's ``GameInfo`` (:func:`deal_bounds`, the kind's ``deal_bounds``: what each seat
can win and lose in a deal, derived from each game's components).

Every hand is dealt whole before anyone acts (LICITOVANY.md §2); the talon (bucket 3) is
known to the actor who takes it.  His discards and his face-down lead card are hidden
from the other seats (§5); the lead card is public once played.
"""

from __future__ import annotations

import numpy as np

from ...cards import NCARDS
from ...core import state as S
from ...core.state import C_BETL, C_SUIT, K_GAME, K_HUNDRED, K_SEVEN, K_TWO_SEVENS
from ...rules import Rules
from ..base import DealBounds, HiddenInfo
from . import actions as LA
from .games import COMPONENTS, G_LEPSI_STO, G_STO, HEARTS, KIND, NGAMES
from .phases import deal_decisions
from .settle import (
    BETL_PRICE,
    DURCH_PRICE,
    FOLD_PRICE,
    SHOW_PRICE,
    SHOW_PRICE_LEPSI,
    TWO_SEVENS_PRICE,
    TWO_SEVENS_PRICE_LEPSI,
)
from .worlds import LicitWorldError, sample_licit_worlds


def hidden(a: int) -> bool:
    """A licitovaný decision other seats do not see: a discard, the face-down lead card."""
    return LA.DISCARD0 <= a < LA.DISCARD0 + NCARDS or LA.LEAD0 <= a < LA.LEAD0 + NCARDS


def fill_hidden(actions: list[tuple[int, int]], w: np.ndarray, me: int) -> list[int]:
    """A licitovaný deal's decisions with the actor's hidden ones taken from the world
    ``w``: his discards in the world's discard order, his face-down lead card
    (LICITOVANY.md §5); what the seat did or saw is kept."""
    out = []
    n = 0
    for seat, a in actions:
        if seat != me and LA.DISCARD0 <= a < LA.DISCARD0 + NCARDS:
            a = LA.DISCARD0 + int(w[S.DISC + n])
            n += 1
        elif seat != me and LA.LEAD0 <= a < LA.LEAD0 + NCARDS:
            a = LA.LEAD0 + int(w[S.LIC_LEAD])
        out.append(a)
    return out


def hidden_choice(a: int, rec: np.ndarray, me: int,
                  discards_before: int) -> tuple[int, bool, bool]:
    """Another seat's hidden decision ``a`` in the deal of ``rec`` as a seat replays it:
    its block's first index, whether the seat knows it (the lead card is public once
    played, LICITOVANY.md §5) and whether it is a discard (``discards_before``: the
    deal's discards before it; one talon, always the actor's)."""
    lo = LA.LEAD0 if a >= LA.LEAD0 else LA.DISCARD0
    return lo, bool(lo == LA.LEAD0 and rec[S.TRICKS] >= 0), lo == LA.DISCARD0


def shown_third(rec: np.ndarray, actions: list[tuple[int, int]]) -> int:
    """No card is shown from the talon before it is played: -1."""
    return -1


def kept_third(w: np.ndarray, actions: list[tuple[int, int]]) -> tuple[int, bool]:
    """No card must stay in the talon's bucket: ``(-1, False)``."""
    return -1, False


HIDDEN = HiddenInfo(
    sample_worlds=sample_licit_worlds, world_errors=(LicitWorldError,), first_seen=0,
    third_holder=S.ACTOR, hidden=hidden, fill_hidden=fill_hidden,
    hidden_choice=hidden_choice, shown_third=shown_third, kept_third=kept_third,
    talon_from_hands=False)


def _game_bounds(g: int) -> tuple[int, int, int]:
    """Game ``g``'s largest win and loss per defender, unflekked (the sum of its
    components' largest, §9), and its silent seven (never flekked)."""
    h = 2 if HEARTS[g] else 1
    if KIND[g] != C_SUIT:  # betl, durch
        price = BETL_PRICE if KIND[g] == C_BETL else DURCH_PRICE
        return price, price, 0
    comp = int(COMPONENTS[g])
    win = loss = 0
    if comp & (1 << K_GAME):  # a silent hundred at 190 (90 + the four marriages)
        win += h * 2 * (190 - 90) // 10
        loss += h * 2 * (190 - 90) // 10
    if comp & (1 << K_SEVEN):
        win, loss = win + 2 * h, loss + 2 * h
    if comp & (1 << K_HUNDRED):  # won: 190 with every marriage; lost: Ca 0, Md 100
        win += h * 4 * (190 - 90) // 10
        loss += h * 4 * ((100 - 0) + 100) // 10
    if comp & (1 << K_TWO_SEVENS):
        price = TWO_SEVENS_PRICE_LEPSI if HEARTS[g] else TWO_SEVENS_PRICE
        win, loss = win + price, loss + price
    silent = h if g in (G_STO, G_LEPSI_STO) else 0
    return win, loss, silent


def deal_bounds(rules: Rules, level: int) -> DealBounds:
    """What each seat can win and lose in one deal (``level`` the highest flek level, ``m
    = 2^level``) and a bound on the deal's player decisions.

    Amounts ``A`` per defender (LICITOVANY.md §9), the actor ``2A``, the cap applied (a
    laid game's payer pays ``2A*``, so a defender too can lose ``2A*``).  Per game the
    sum of its components' largest (§3: they stand together), H = 2 in lepší games, a
    side's points at most 90 + 100 of marriages: game (a silent hundred) 2*10, seven 2,
    hundred won 4*10, lost 4*(100 + 100)/10 = 80 (no marriage needed: ``Ca`` 0, the
    defence all four), two sevens 40 / 60, betl 15, durch 30, times ``m``; the silent seven
    (1, never flekked) in (lepší) stovka; the unplayed deals' fold 6 and show 60 / 90.
    The largest loss, lepší dvě sedmy a sto lost, ``(60 + 2*80) * m`` (220 * 32 = 7,040 at
    kalhoty), is reached by a deal of tests/test_openspiel_bounds.py (the actor takes no
    trick and holds no marriage); the largest win, the same game won, ``(60 + 2*40) * m``,
    is an upper bound (it would need 190 points beside both sevens), which a deal of that
    test reaches within a factor 1.3 (150 points: ``(60 + 48) * m``).  Every seat can win
    the auction, so every seat has the same bounds.

    Decisions: auction <= 28 (12 bids, 12 holds, 3 passes, a lone bid), announcing 6
    (game, trumps, helping, two discards, lead); flek ``4L`` raises in at most ``4L``
    raising turns, each after at most two raise-free turns and three at the end, one
    ``good`` or ``show`` a turn: ``16L + 3``; play 30."""
    m = 1 << level
    bounds = [_game_bounds(g) for g in range(1, NGAMES + 1)]
    win = max(w * m + silent for w, _, silent in bounds)
    loss = max(max(lo * m + silent for _, lo, silent in bounds),
               FOLD_PRICE, SHOW_PRICE, SHOW_PRICE_LEPSI)

    def cap(a: int) -> int:
        return a if rules.payment_cap is None else min(a, rules.payment_cap)

    gain = max(2 * cap(win), cap(loss))  # the actor's win, a defender's
    lose = max(2 * cap(loss), 2 * cap(win))  # the actor's loss, a laid game's payer's
    return DealBounds(gain=(gain,) * 3, loss=(lose,) * 3,
                      decisions=int(deal_decisions(level)))
