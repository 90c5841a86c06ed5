"""Licitovaný seat records: the deal so far as one seat saw it (format ``mariash-seat/1``
with ``"rules": {"rules": "licitovany", ...}``), and the seat's view rebuilt from it
through the engine, so that the robot service seats licitovaný's searching robots
(``pimc``, ``strong``) as it does volený's (:mod:`mariash_env.seat_record`).

The record::

    {"format": "mariash-seat/1",                  # optional
     "rules": {"rules": "licitovany", ...},       # make_rules options
     "deal": 0, "scores": [0, 0, 0],              # optional: the partie so far (desetníky)
     "dealer": 2, "seat": 1,
     "hand": ["Qh", "7b", ...],                   # the seat's 10 cards as dealt, in order
     "talon": ["Kl", "8a"],                       # the actor's, once he has taken it
     "actions": [[0, "bid:sedma"], ..., [0, "discard:?"], [0, "discard:?"], ...],
     "marriages": [[1, "Kh"], ...]}               # optional: plays that announced one

``actions`` are the deal's decisions as ``[seat, label]`` (LICITOVANY.md §12's labels).
The actor's discards are ``"discard:?"`` for the defenders, who never see them, and his
face-down lead card of a betl or durch (§5 T5) ``"lead:?"`` until the play starts, when
it is turned up and must be named (``"lead:<card>"``).  The seat that won the auction
gives the two talon cards it took in ``talon`` (nobody else has seen them).

:func:`view` deals the seat's cards (and talon) as given and the others at random, then
replays the actions through the engine; when another seat's action is not possible in the
world at hand (a bid its cards do not meet, a card it does not hold or may not play), the
hidden cards are redealt from the seat's knowledge of the deal so far
(:func:`~mariash_env.games.licitovany.worlds.sample_licit_worlds`), keeping what the
record names and the seat has not seen yet (the talon it will take, the lead card it will
see played), first with a played card in its player's hand and out of it every card that
would oblige him to play another.  Every world so built replays the record exactly, so
the seat's observation, legal actions and sampled worlds are the real game's.  A record
that is malformed or cannot be what the seat saw raises
:class:`~mariash_env.seat_record.SeatRecordError` naming the field and the action.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...cards import CARD_CODES, NCARDS
from ...core import state as S
from ...core.deal import deck_of
from ...core.engine import apply_action
from ...robots.view import SeatView
from ...rules import G_LICIT
from ...seat_record import (
    FORMAT,
    OPTIONAL_SHARED,
    WORLD_ROUNDS,
    SeatRecordError,
    SeatRecords,
    cards_field,
    location_bit,
    parse_common,
    playable,
    refusal,
    scores_before,
    seat_to_move,
    start_deal,
    step,
    turn,
)
from . import actions as LA
from .deal import POS_SEAT_LICIT
from .worlds import LicitWorldError, sample_licit_worlds

if TYPE_CHECKING:
    from ...game import Game

OPTIONAL = OPTIONAL_SHARED + ("talon",)
HIDDEN = {"discard:?": LA.DISCARD0, "lead:?": LA.LEAD0}
TALON_POS = [p for p in range(NCARDS) if POS_SEAT_LICIT[p] == 3]


def _positions(dealer: int, seat: int) -> list[int]:
    """The deck positions dealt to ``seat``, in dealt order (LICITOVANY.md §2)."""
    k = (seat - (dealer + 1)) % 3
    return [p for p in range(NCARDS) if POS_SEAT_LICIT[p] == k]


def _taken(st: np.ndarray) -> bool:
    """The auction's winner has taken the talon."""
    return any(S.getm(st, S.TOOK + s) for s in range(3))


def _play_started(st: np.ndarray) -> bool:
    return bool(st[S.TRICKS] >= 0)


def view(record: Any, rng: np.random.Generator | int | None = None) -> SeatView:
    """The :class:`~mariash_env.robots.view.SeatView` of a licitovaný record's seat
    (module docstring)."""
    rules, deal, dealer, seat, scores, marriages = parse_common(record, OPTIONAL)
    hand = cards_field(record, "hand", 10)
    talon = cards_field(record, "talon", 2) if "talon" in record else []
    if set(talon) & set(hand):
        raise SeatRecordError(f"{record['talon']!r}: a talon card is in the seat's hand",
                              "talon")
    rng = np.random.default_rng(rng)
    rv = rules.vector()
    deck = np.full(NCARDS, -1, dtype=np.int64)
    deck[_positions(dealer, seat)] = hand
    if talon:
        deck[TALON_POS] = talon
    rest = np.array([c for c in range(NCARDS) if c not in set(hand) | set(talon)])
    deck[deck < 0] = rng.permutation(rest)
    st = start_deal(deal, scores, dealer, deck, G_LICIT)
    mask = np.zeros(LA.N_ACTIONS, dtype=np.int8)
    lead = -1  # the lead card as the record names it (another seat's)
    lead_hidden = False

    def keep(w: np.ndarray) -> np.ndarray | None:
        """A redealt world with the named lead card as the actor's face-down card, or None
        when the actor does not hold it."""
        if lead < 0 or w[S.LIC_LEAD] < 0 or w[S.LIC_LEAD] == lead:
            return w
        if not S.getm(w, S.HAND + int(w[S.ACTOR])) >> lead & 1:
            return None
        w = w.copy()
        w[S.LIC_LEAD] = lead
        return w

    def attempt(w: np.ndarray, who: int, a: int, hidden: bool) -> np.ndarray | None:
        """``w`` after ``who``'s action ``a`` (``hidden``: one of the legal ones of its
        block, ``a`` the block's first), or None when the world does not allow it."""
        w = keep(w)
        return None if w is None else step(w, rv, mask, rng, who, a, hidden, marriages,
                                           LA.PLAY0)

    for i, item in enumerate(record["actions"]):
        who, label, where, a = turn(st, seat, i, item, HIDDEN, LA.action_index)
        hidden = label in HIDDEN
        if not hidden:
            if who != seat and LA.DISCARD0 <= a < LA.DISCARD0 + NCARDS:
                raise SeatRecordError(f"{where}: the actor's discards lie face down, "
                                      f"unseen by seat {seat}: give them as discard:?",
                                      "actions")
        if who != seat and LA.LEAD0 <= a < LA.LEAD0 + NCARDS:
            lead_hidden = hidden
            lead = -1 if hidden else a - LA.LEAD0
        nxt = attempt(st, who, a, hidden)
        if nxt is None and who != seat:
            # Redeal what the seat has not seen, and retry: the talon it takes later stays
            # in the talon, a named lead card with the actor.
            restrict = np.full(NCARDS, 7, dtype=np.int64)
            if talon and not _taken(st):
                restrict[talon] = 4
            if lead >= 0:  # named: the actor is another seat
                restrict[lead] = location_bit(seat, int(st[S.ACTOR]))
            tries = [restrict]
            if LA.PLAY0 <= a < LA.PLAY0 + NCARDS:
                tries.insert(0, restrict & playable(st, seat, rv, who, a - LA.PLAY0,
                                                    LA.PLAY0, LA.N_ACTIONS))
            nxt = _redeal_until(st, seat, rules, rng, tries,
                                lambda w, who=who, a=a, h=hidden: attempt(w, who, a, h))
        if nxt is None:
            why = refusal(st, rv, mask, seat, who, a, LA.ACTION_LABELS, LA.PLAY0,
                          "LICITOVANY.md §7")
            raise SeatRecordError(f"{where}: {why}", "actions")
        took = S.getm(st, S.TOOK + seat)
        st = nxt
        if not took and S.getm(st, S.TOOK + seat) and not talon:
            raise SeatRecordError(f"{where}: seat {seat} takes the talon now (LICITOVANY.md "
                                  "§5): give its two cards as 'talon'", "talon")
        if talon and _taken(st) and not S.getm(st, S.TOOK + seat):
            raise SeatRecordError(f"{record['talon']!r}: seat {int(st[S.ACTOR])} takes the "
                                  f"talon (after {where}), not seat {seat}: it lies face "
                                  "down, unseen by the seat", "talon")
        if lead_hidden and _play_started(st):
            raise SeatRecordError(f"{where}: the lead card is turned up with the first "
                                  "trick (LICITOVANY.md §5): give it as lead:<card>", "actions")
    if talon and not S.getm(st, S.TOOK + seat):
        raise SeatRecordError(f"{record['talon']!r}: seat {seat} has not taken the talon; "
                              "it lies face down, unseen", "talon")
    if lead >= 0 and not _play_started(st):
        raise SeatRecordError(f"lead:{CARD_CODES[lead]}: the actor's lead card lies face "
                              f"down until the play, unseen by seat {seat}: give lead:?",
                              "actions")
    return seat_to_move(st, seat, rules)


def _redeal_until(st: np.ndarray, seat: int, rules: Any, rng: np.random.Generator,
                  tries: list[np.ndarray], attempt: Any) -> np.ndarray | None:
    """The first world of ``seat``'s knowledge of ``st`` (each of ``tries`` as the
    sampler's ``restrict``, in turn) in which ``attempt`` succeeds."""
    for restrict in tries:
        for _ in range(WORLD_ROUNDS):
            try:
                worlds = sample_licit_worlds(st, seat, 16, rng, rules, restrict=restrict)
            except LicitWorldError as e:
                worlds = e.worlds
                if not len(worlds):
                    break
            for w in worlds:
                out = attempt(w)
                if out is not None:
                    return out
    return None


def record_of(game: Game, seat: int | None = None) -> dict[str, Any]:
    """The seat record of ``seat`` (default: the seat to move) in the deal of a licitovaný
    :class:`~mariash_env.Game` (module docstring)."""
    st = game.st
    seat = game.to_move if seat is None else int(seat)
    if not 0 <= seat <= 2:
        raise SeatRecordError(f"{seat!r}: expected a seat 0, 1 or 2", "seat")
    dealer = int(st[S.DEALER])
    scores = scores_before(st)
    deck = deck_of(st)
    w = start_deal(game.deal_no, scores, dealer, deck, G_LICIT)
    rv = game.rv
    started = _play_started(st)
    actions: list[list[Any]] = []
    marriages: list[list[Any]] = []
    for who, a in game.history:
        n_marr = w[S.NMARR]
        apply_action(w, rv, a)
        label = LA.ACTION_LABELS[a]
        if who != seat and LA.DISCARD0 <= a < LA.DISCARD0 + NCARDS:
            label = "discard:?"
        if who != seat and LA.LEAD0 <= a < LA.LEAD0 + NCARDS and not started:
            label = "lead:?"
        actions.append([who, label])
        if LA.PLAY0 <= a < LA.PLAY0 + NCARDS and w[S.NMARR] > n_marr:
            marriages.append([who, CARD_CODES[a - LA.PLAY0]])
    out: dict[str, Any] = {
        "format": FORMAT, "rules": game.rules.to_dict(), "deal": game.deal_no,
        "scores": scores, "dealer": dealer, "seat": seat,
        "hand": [CARD_CODES[int(deck[p])] for p in _positions(dealer, seat)],
        "actions": actions, "marriages": marriages}
    if S.getm(st, S.TOOK + seat):
        out["talon"] = [CARD_CODES[int(deck[p])] for p in TALON_POS]
    return out


LICITOVANY = SeatRecords(view, record_of)
