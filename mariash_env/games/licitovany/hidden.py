"""What a seat of licitovaný knows of a deal and which of the deal's decisions the other
seats do not see (:data:`HIDDEN`, the kind's ``hidden_info``), and the deal's bounds for
OpenSpiel's ``GameInfo`` (:func:`deal_bounds`, the kind's ``deal_bounds``).

Every hand is dealt whole before anyone acts (LICITOVANY.md §2); the talon (bucket 3) is
known to the actor who takes it.  His discards and his face-down lead card are hidden
from the other seats (§5); the lead card is public once played.
"""

from __future__ import annotations

import numpy as np

from ...cards import NCARDS
from ...core import state as S
from ...rules import Rules
from ..base import HiddenInfo
from . import actions as LA
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


def deal_bounds(rules: Rules, level: int) -> tuple[int, int]:
    """``(A, L)``: the largest amount one defender pays or is paid in a deal before the
    ``payment_cap`` (``level`` the highest flek level) and a bound on the deal's player
    decisions.

    ``A`` (LICITOVANY.md §9, H = 2): game 2H per ten over 90 <= 40, seven 2H = 4, hundred
    lost 4H per ten of (100 - Ca) + Md <= 160, two sevens 60, durch 30; unflekked the
    silent seven H and a show 90 (a laid-game payer pays at most ``2A``).  ``L``: auction
    <= 28 (12 bids, 12 holds, 3 passes, a lone bid), announcing 6 (game, trumps, helping,
    two discards, lead); flek ``4L`` raises in at most ``4L`` raising turns, each after at
    most two raise-free turns and three at the end, one ``good`` or ``show`` a turn:
    ``16L + 3``; play 30."""
    a = (40 + 4 + 160 + 60 + 30) * 2 ** level + 2 + 90
    return a, 28 + 6 + 16 * level + 3 + 30
