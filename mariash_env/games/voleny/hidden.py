"""What a seat of volený knows of a deal and which of the deal's decisions the other seats
do not see (:data:`HIDDEN`, the kind's ``hidden_info``), and the deal's bounds for
OpenSpiel's ``GameInfo`` (:func:`deal_bounds`, the kind's ``deal_bounds``: what each seat
can win and lose in a deal, derived from the bets that can stand together).

Forehand sees the first seven cards of the deck and chooses trumps from them (RULES.md
§2, §3): they are his own bucket (3) of the deal.  The trump card (unless chosen z lidu)
and every discard are hidden from the other seats (§3, §4).
"""

from __future__ import annotations

import numpy as np

from ...cards import NCARDS
from ...core import state as S
from ...rules import TARIFFS, Rules
from ..base import DealBounds, HiddenInfo
from . import actions as A
from .phases import deal_decisions
from .worlds import WorldError, knowledge, sample_worlds, talon_chain


def hidden(a: int) -> bool:
    """A volený decision other seats do not see: the trump card (not z lidu), a discard."""
    return A.TRUMP0 <= a < A.TRUMP_BLIND or A.DISCARD0 <= a < A.DISCARD0 + NCARDS


def fill_hidden(actions: list[tuple[int, int]], w: np.ndarray, me: int) -> list[int]:
    """A deal's decisions with the other seats' hidden ones taken from the world ``w``:
    the trump card; the discards of each talon taken from what its taker took (``TAKEN``,
    talon by talon: with open contracts one seat may take two, RULES.md §11.1), those of
    the talon still lying in discard order; what the seat did itself is kept."""
    n_lying = int(w[S.DISC] >= 0) + int(w[S.DISC + 1] >= 0)
    discards = [i for i, (_, a) in enumerate(actions) if A.DISCARD0 <= a < A.DISCARD0 + NCARDS]
    n_taken = (len(discards) - n_lying) // 2  # each talon is two discards (RULES.md §4)
    cards: dict[int, int] = {}  # action position -> card
    for j in range(n_taken):
        taken = S.getm(w, S.TAKEN + j)
        for i, c in zip(discards[2 * j:2 * j + 2], (c for c in range(NCARDS) if taken >> c & 1)):
            cards[i] = c
    for j, i in enumerate(discards[2 * n_taken:]):
        cards[i] = int(w[S.DISC + j])
    out = []
    for i, (seat, a) in enumerate(actions):
        if seat != me and hidden(a):
            a = A.TRUMP0 + int(w[S.TRUMP_CARD]) if a < A.TRUMP_BLIND else A.DISCARD0 + cards[i]
        out.append(a)
    return out


def hidden_choice(a: int, rec: np.ndarray, me: int,
                  discards_before: int) -> tuple[int, bool, bool]:
    """Another seat's hidden decision ``a`` in the deal of ``rec`` as core seat ``me``
    replays it (``discards_before``: the deal's discards before it): its block's first
    index, whether ``me`` knows it (a trump card shown; a discard of a talon ``me`` took,
    talon ``discards_before // 2``, RULES.md §4 - not merely a card ``me`` took, which
    may have been discarded twice) and whether it is a discard."""
    lo = A.TRUMP0 if a < A.TRUMP_BLIND else A.DISCARD0
    if lo == A.TRUMP0:
        return lo, bool(rec[S.TRUMP_PUBLIC]), False
    taker = talon_chain(rec)[1]
    return lo, bool(me >= 0 and taker[discards_before // 2] == me), True


def shown_third(rec: np.ndarray, actions: list[tuple[int, int]]) -> int:
    """Forehand's trump card (chosen from his first seven, RULES.md §3) once shown; -1."""
    forehand = int(rec[S.FOREHAND])
    trump = [a - A.TRUMP0 for s, a in actions
             if s == forehand and A.TRUMP0 <= a < A.TRUMP0 + NCARDS]
    return trump[0] if trump and rec[S.TRUMP_PUBLIC] else -1


def kept_third(w: np.ndarray, actions: list[tuple[int, int]]) -> tuple[int, bool]:
    """The world's trump card (-1: none), which stays among forehand's first seven, and
    whether he chose it z lidu (then it stays at its deal position, RULES.md §3)."""
    trump = int(w[S.TRUMP_CARD]) if w[S.TRUMP_CARD] >= 0 else -1
    return trump, any(a == A.TRUMP_BLIND for _, a in actions)


HIDDEN = HiddenInfo(
    sample_worlds=sample_worlds, world_errors=(WorldError,), first_seen=7,
    third_holder=S.FOREHAND, hidden=hidden, fill_hidden=fill_hidden,
    hidden_choice=hidden_choice, shown_third=shown_third, kept_third=kept_third,
    talon_from_hands=True, knowledge=knowledge)


def _suit_bounds(rules: Rules) -> tuple[int, int]:
    """The actor's largest win and largest loss per defender in a suit game, unflekked and
    before H (:func:`deal_bounds`): the largest sums of lines that can stand together."""
    t = TARIFFS[rules.tariff]
    hra, sto = t["hra"], t["sto"]
    seven = max(t["sedma"], rules.killed_seven)  # a seven bet won by one side, lost by the other
    if rules.hundred_counting == "order_free":  # §11.2: multiplicative prices
        won = sto << (190 - 100) // 10  # 90 card points + 100 of marriages
        lost = sto << (170 - 40) // 10  # the other side's 90 + 80 (the hundred's side has one)
        silent_170, silent_190 = hra << (1 + (170 - 100) // 10), hra << (1 + (190 - 100) // 10)
    else:
        won = sto + sto * (190 - 100) // 10
        lost = sto * (100 - 20) // 10 + sto * 80 // 10  # counted 20 (its marriage), 80 against
        silent_170 = 2 * hra + 2 * hra * (170 - 100) // 10
        silent_190 = 2 * hra + 2 * hra * (190 - 100) // 10
    # won by the actor: hra with the defence's hundred against lost; hra with his silent
    # hundred (no hundred against); sto won
    win = max(lost + silent_170, silent_190, won) + seven
    # lost: the hundred against won with hra lost; hra lost to the defence's silent
    # hundred; sto lost
    loss = max(won + hra, silent_190, lost) + seven
    return win, loss


def deal_bounds(rules: Rules, level: int) -> DealBounds:
    """What each seat can win and lose in one deal, ``level`` the highest flek level
    (``m = 2^level``), and a bound on the deal's player decisions.

    Amounts are ``A`` per defender (games/voleny/settle.py; RULES.md §9), the actor
    ``(n-1)A`` (``n`` the players: the dealer at four pays with the defence, §11.3),
    each capped by ``payment_cap``.  A side has at most 90 card points and the four marriages 100
    (trumps 40).  Only forehand plays a suit game (§4); betl and durch anyone.  Every bet
    of a deal can reach ``level`` (§5.3: the defence fleks in its first round what it
    announces there in the next but one).

    * Suit game, the actor's largest win: hra, the defence's hundred against lost and a
      seven bet (forehand's sedma won or the defence's seven against lost: the larger of
      ``sedma`` and ``killed_seven``), all at ``level``, in hearts (H = 2).  A hundred
      against needs a defence marriage (§12), so the actor has at most 80 of marriages
      and the defence counts at least 20: lost it is worth at most 4*8 + 4*8 = 64 (§11.2
      order-free: 4*2^((170-40)/10)), and the actor's game at 170 points a silent hundred
      of 2 + 2*7 = 16 (order-free 2^(1+7)).  What excludes it is smaller: sto won, at most
      4 + 4*9 = 40 (no hundred against beside it); hra without a hundred against, a
      silent hundred of at most 2 + 2*9 = 20; the silent seven (1, never flekked) only
      without a seven bet.  With the defaults ``(64 + 16 + 2) * 2 * 2^4`` = 2,624, the
      actor 5,248: tests/test_openspiel_bounds.py plays a deal that reaches it (90 card
      points, 80 of marriages, the defence's acorn marriage, the trump seven takes the
      last trick).
    * Suit game, the actor's largest loss: sto lost with no card point and a non-trump
      marriage (it needs one: counted 20) against the defence's 80 of marriages, 4*8 +
      4*8 = 64 (order-free 4*2^((170-40)/10)), and the seven bet lost to him
      (``killed_seven``, or the defence's seven against won: ``sedma``); a hundred
      against won (at most 40) with the game lost, or the defence's silent hundred (at
      most 20), is smaller.  Defaults: ``(64 + 2) * 2 * 2^4`` = 2,112, the actor -4,224,
      reached by a deal of that test.
    * Betl or durch: the price, twice for an open contract (§11.1), no H.

    So per seat (``gain[r]``, ``loss[r]`` for the seat ``r`` after the dealer): forehand
    wins ``(n-1)`` times the suit game's win (or a contract) and loses ``(n-1)`` times its
    loss; the others win a contract's ``(n-1)A`` or the suit game's loss as a defender,
    and lose a contract's ``(n-1)A`` or the suit game's win; the dealer sitting out at
    four wins or pays as a defender.

    Decisions: bidding <= 15 (trump 1, contracts 3, discards 6, Barva? 2, betl answers
    2, announcement 1), with open contracts 5 more per overcall (three at most: the
    contract, two discards, two answers); flek: every round but the last raises or
    announces a bet, so at most ``4L + 2`` raises/announcements and ``4L + 3`` rounds of
    at most two ``good``; play 31."""
    t = TARIFFS[rules.tariff]
    m = 1 << level
    win, loss = _suit_bounds(rules)
    suit_win, suit_loss = 2 * m * win, 2 * m * loss  # H = 2: hearts
    contract = t["durch"] * (2 if rules.open_contracts else 1) * m  # durch > betl

    def cap(a: int) -> int:
        return a if rules.payment_cap is None else min(a, rules.payment_cap)

    n1 = rules.players - 1  # the actor's share: the defenders' A each
    forehand = (n1 * cap(max(suit_win, contract)), n1 * cap(max(suit_loss, contract)))
    other = (max(n1 * cap(contract), cap(max(suit_loss, contract))),
             max(n1 * cap(contract), cap(max(suit_win, contract))))
    out = (cap(max(suit_loss, contract)), cap(max(suit_win, contract)))  # at four
    seats = [out if rules.players == 4 else other, forehand] + [other] * (rules.players - 2)
    return DealBounds(gain=tuple(s[0] for s in seats), loss=tuple(s[1] for s in seats),
                      decisions=int(deal_decisions(level, rules.open_contracts)))
