"""A deal so far as one seat saw it (format ``mariash-seat/1``), and the seat's view rebuilt
from it through the engine: what a game server sends to seat a robot (``mariash
serve-robot``, :mod:`mariash_env.play.service`) without revealing the deck.

The record (a JSON object; ``?`` marks what the seat has not seen)::

    {"format": "mariash-seat/1",          # optional
     "rules": {"tariff": "home", ...},    # optional: make_rules options (default: online table)
     "deal": 0,                           # optional: deal of the partie, 0-based
     "scores": [0, 0, 0],                 # optional: running groše before this deal
     "dealer": 2,                         # the dealer's seat (forehand: seat 0)
     "seat": 1,                           # the seat the robot plays
     "hand": ["Qh", "7b", ...],           # the seat's cards as dealt, in dealt order:
                                          # 12 for forehand (its first 7 first), else 10
     "actions": [[0, "trump:?"], [0, "contract:suit"], [0, "discard:?"],
                 [0, "discard:?"]],
     "marriages": [[1, "Kh"], ...]}       # optional: the plays that announced a marriage

``actions`` are the deal's decisions so far as ``[seat, label]`` in order (the labels of
INTERFACE.md).  Another seat's trump card and discards are ``"trump:?"`` /
``"discard:?"`` unless the seat has seen them: the trump card once shown (RULES.md §5.1)
and the discards of a talon the seat took must then be given as cards.  ``marriages``
lists every play (any seat's) that announced a marriage, as ``[seat, card]`` (§7): the
engine announces marriages itself, so the record says which plays did.  The deal must be
in progress with the robot's seat to move.

:func:`seat_view` deals the seat's cards as given and the others at random, then replays
the actions through the engine (``core.engine.legal_actions`` / ``apply_action``; no rule
is decided here).  When another seat's action is not possible in the world at hand (a
card it does not hold, a suit it showed void in, a marriage the world does not give),
the hidden cards are redealt from the seat's knowledge of the deal so far
(:func:`mariash_env.search.sample_worlds`) until one world allows it; a hidden trump card
or discard is one of the legal ones of that world.  Every world so built replays the
record exactly, so the seat's observation, legal actions and sampled worlds are the
same as in the real game.  A malformed record, an illegal action, or a history that
contradicts the seat's cards raises :class:`SeatRecordError` naming the field (and the
action) and what was expected.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from .cards import CARD_CODES, CardError, card_index
from .core import state as S
from .core.engine import apply_action, legal_actions, start_partie
from .core.tables import POS_SEAT
from .games.registry import game_kind, games
from .games.voleny import actions as A
from .records import RecordError
from .robots.view import SeatView
from .rules import Rules, RulesError, is_int, make_rules, require_three
from .search import WorldError, sample_worlds

__all__ = ["FORMAT", "SeatRecordError", "seat_view"]

FORMAT = "mariash-seat/1"
REQUIRED = ("dealer", "seat", "hand", "actions")
OPTIONAL = ("format", "rules", "deal", "scores", "marriages")
HIDDEN = {"trump:?": A.TRUMP0, "discard:?": A.DISCARD0}
WORLD_ROUNDS = 24  # redeals tried for one action (16 worlds each) before giving up
_KQ = {c for c in range(32) if CARD_CODES[c][0] in "KQ"}


class SeatRecordError(RecordError):
    """A seat record that is malformed or cannot be what the seat saw (``field``)."""


def _card(value: Any, field: str) -> int:
    try:
        return card_index(value)
    except CardError as e:
        raise SeatRecordError(str(e), field) from e


def _seat(value: Any, field: str) -> int:
    if not is_int(value) or not 0 <= value <= 2:
        raise SeatRecordError(f"{value!r}: expected a seat 0, 1 or 2", field)
    return int(value)


def _parse(record: Any) -> tuple[Rules, int, int, int, list[int], list[int], set]:
    if not isinstance(record, dict):
        raise SeatRecordError(f"a seat record must be an object, got {type(record).__name__}")
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise SeatRecordError(f"missing: expected {list(REQUIRED)} (and optionally "
                              f"{list(OPTIONAL)})", missing[0])
    extra = sorted(set(record) - set(REQUIRED) - set(OPTIONAL))
    if extra:
        raise SeatRecordError(f"unknown field: expected only {list(REQUIRED + OPTIONAL)}",
                              extra[0])
    if record.get("format", FORMAT) != FORMAT:
        raise SeatRecordError(f"{record['format']!r} is not the format {FORMAT!r}", "format")
    opts = record.get("rules", {})
    if not isinstance(opts, dict):
        raise SeatRecordError("must be an object of rule options", "rules")
    try:
        rules = make_rules(**opts)
        require_three(rules, "seat records")
    except (RulesError, TypeError) as e:
        raise SeatRecordError(str(e), "rules") from e
    kind = game_kind(rules)
    if not kind.supports("seat_record"):  # the labels, the deal and the replay are volený's
        have = [k.name for k in games("seat_record")]
        raise SeatRecordError(f"{opts.get('rules')!r}: seat records ({FORMAT}) are "
                              f"{' and '.join(have)}'s, not {kind.title or kind.name}'s: "
                              f"expected rules of {' or '.join(map(repr, have))} (no 'rules' "
                              "option for volený)", "rules")
    deal = record.get("deal", 0)
    if not is_int(deal) or not 0 <= deal < rules.deals:
        raise SeatRecordError(f"{deal!r}: expected an int 0..{rules.deals - 1}", "deal")
    scores = record.get("scores", [0, 0, 0])
    if (not isinstance(scores, list) or len(scores) != 3 or not all(map(is_int, scores))
            or sum(scores) != 0 or max(map(abs, scores)) >= 2**62):
        raise SeatRecordError(f"{scores!r}: expected 3 ints summing to 0 (groše, |x| < 2^62)",
                              "scores")
    dealer, seat = _seat(record["dealer"], "dealer"), _seat(record["seat"], "seat")
    hand = record["hand"]
    size = 12 if seat == (dealer + 1) % 3 else 10
    if not isinstance(hand, list) or len(hand) != size:
        raise SeatRecordError(f"expected the seat's {size} cards as dealt (seat {seat} with "
                              f"dealer {dealer}), got {hand!r}", "hand")
    cards = [_card(c, "hand") for c in hand]
    if len(set(cards)) != size:
        raise SeatRecordError(f"{hand!r} names a card twice", "hand")
    marr = record.get("marriages", [])
    if not isinstance(marr, list):
        raise SeatRecordError("must be a list of [seat, card] pairs", "marriages")
    marriages = set()
    for m in marr:
        if not (isinstance(m, list) and len(m) == 2):
            raise SeatRecordError(f"{m!r} is not a [seat, card] pair", "marriages")
        c = _card(m[1], "marriages")
        if c not in _KQ:
            raise SeatRecordError(f"{m!r}: a marriage is announced with a K or Q", "marriages")
        marriages.add((_seat(m[0], "marriages"), c))
    if not isinstance(record["actions"], list):
        raise SeatRecordError("must be a list of [seat, label] pairs", "actions")
    return rules, deal, dealer, seat, cards, [int(x) for x in scores], marriages


def _deal(rules: Rules, deal: int, scores: list[int], dealer: int, seat: int,
          hand: list[int], rng: np.random.Generator) -> np.ndarray:
    """A record of the deal's start: the seat's cards where it was dealt them, the others
    at random; the partie's deal number and scores as given."""
    forehand = (dealer + 1) % 3
    mine = [p for p in range(32) if (forehand + POS_SEAT[p]) % 3 == seat]
    deck = np.full(32, -1, dtype=np.int64)
    deck[mine] = hand
    rest = np.array([c for c in range(32) if c not in set(hand)], dtype=np.int64)
    deck[deck < 0] = rng.permutation(rest)
    st = S.new_state()
    start_partie(st, deck, dealer)
    st[S.CUT] = -1
    st[S.DEAL_NO] = deal
    for i, v in enumerate(scores):
        S.set64(st, S.SCORE + 2 * i, v)
    return st


def seat_view(record: Any, rng: np.random.Generator | int | None = None) -> SeatView:
    """The :class:`SeatView` of the record's seat (module docstring); SeatRecordError
    naming what is wrong."""
    rules, deal, dealer, seat, hand, scores, marriages = _parse(record)
    rng = np.random.default_rng(rng)
    rv = rules.vector()
    st = _deal(rules, deal, scores, dealer, seat, hand, rng)
    mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
    unseen_talon = 0  # "discard:?" in the talon lying now
    seen_talon: dict[int, int] = {}  # discards given as cards in the talon lying now
    trump_hidden = False
    trump_card = -1  # the trump card as the record names it

    def keeps_talon(w: np.ndarray) -> bool:
        """A redealt world keeps what the record names and the seat has not seen yet: the
        discards it will take and the trump card it will be shown."""
        return (all(w[S.DISC + j] == c for j, c in seen_talon.items())
                and (trump_card < 0 or w[S.TRUMP_CARD] == trump_card))

    def attempt(w: np.ndarray, who: int, a: int, hidden: bool) -> np.ndarray | None:
        """``w`` after ``who``'s action ``a`` (``hidden``: one of the legal actions of its
        kind, ``a`` the first of the kind), or None when the world does not allow it as
        recorded."""
        if not keeps_talon(w):
            return None
        legal_actions(w, rv, mask)
        if hidden:
            choices = np.flatnonzero(mask[a:a + 32])
            if choices.size == 0:
                return None
            a += int(rng.choice(choices))
        elif not mask[a]:
            return None
        out = w.copy()
        n_marr = out[S.NMARR]
        apply_action(out, rv, a)
        if A.PLAY0 <= a < A.PLAY0 + 32:
            if (out[S.NMARR] > n_marr) != ((who, a - A.PLAY0) in marriages):
                return None
        return out

    for i, item in enumerate(record["actions"]):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
            raise SeatRecordError(f"action #{i} {item!r} is not a [seat, label] pair",
                                  "actions")
        who, label = item
        where = f"action #{i} [{who!r}, {label!r}]"
        if st[S.PHASE] == S.PH_DONE:
            raise SeatRecordError(f"{where}: the deal was already over", "actions")
        if not is_int(who) or who != st[S.TO_MOVE]:
            raise SeatRecordError(f"{where}: seat {who!r} acted but seat "
                                  f"{int(st[S.TO_MOVE])} was to move", "actions")
        if label in HIDDEN:
            if who == seat:
                raise SeatRecordError(f"{where}: the seat's own actions are given in full",
                                      "actions")
            a = HIDDEN[label]
        else:
            try:
                a = A.action_index(label)
            except A.ActionError as e:
                raise SeatRecordError(f"{where}: {e}", "actions") from e
        took, n_disc = S.getm(st, S.TOOK + seat), int(st[S.NDISC])
        hidden = label in HIDDEN
        nxt = attempt(st, who, a, hidden)
        if nxt is None and who != seat:  # redeal what the seat has not seen, and retry
            nxt = _redeal_until(st, seat, rules, rng,
                                partial(attempt, who=who, a=a, hidden=hidden))
        if nxt is None:
            legal_actions(st, rv, mask)
            why = (f"illegal for seat {seat}; legal were "
                   f"{[A.ACTION_LABELS[j] for j in np.flatnonzero(mask)]}" if who == seat
                   else f"no deal consistent with seat {seat}'s cards and the actions "
                   "before it allows it (or its marriage, per 'marriages')")
            if who == seat and mask[a]:
                why = ("the seat's cards make this play announce a marriage (RULES.md §7) "
                       "exactly when 'marriages' does not list it")
            if who != seat and A.PLAY0 <= a < A.PLAY0 + 32 and (
                    S.getm(st, S.HAND + seat) >> (a - A.PLAY0) & 1):
                why = f"{CARD_CODES[a - A.PLAY0]} is in seat {seat}'s hand"
            raise SeatRecordError(f"{where}: {why}", "actions")
        st = nxt
        if A.TRUMP0 <= a < A.TRUMP_BLIND:
            trump_hidden = hidden
            trump_card = -1 if hidden else a - A.TRUMP0
        if A.DISCARD0 <= a < A.DISCARD0 + 32:
            if hidden:
                unseen_talon += 1
            else:
                seen_talon[n_disc] = a - A.DISCARD0
        if S.getm(st, S.TOOK + seat) != took and unseen_talon:
            raise SeatRecordError(f"{where}: seat {seat} takes the talon, so its cards are "
                                  "known to it: give those discards as discard:<card>",
                                  "actions")
        if st[S.DISC] < 0:
            unseen_talon = 0  # a talon taken: the next one starts
            seen_talon.clear()
        if trump_hidden and st[S.TRUMP_PUBLIC]:
            raise SeatRecordError(f"{where}: the trump card is shown now (RULES.md §5.1): "
                                  "give forehand's trump action as trump:<card>", "actions")
    if st[S.PHASE] == S.PH_DONE:
        raise SeatRecordError("the deal is over: there is nothing to decide", "actions")
    if st[S.TO_MOVE] != seat:
        raise SeatRecordError(f"seat {int(st[S.TO_MOVE])} is to move, not seat {seat}",
                              "actions")
    return SeatView(st, seat, rules)


def _redeal_until(st: np.ndarray, seat: int, rules: Rules, rng: np.random.Generator,
                  attempt: Any) -> np.ndarray | None:
    """The first world (of ``seat``'s knowledge of ``st``) in which ``attempt`` succeeds."""
    for _ in range(WORLD_ROUNDS):
        try:
            worlds = sample_worlds(st, seat, 16, rng, rules)
        except WorldError:
            return None
        for w in worlds:
            out = attempt(w)
            if out is not None:
                return out
    return None
