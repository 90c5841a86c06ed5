"""A deal so far as one seat saw it (format ``mariash-seat/1``), and the seat's view rebuilt
from it through the engine: what a game server sends to seat a robot (``mariash
serve-robot``, :mod:`mariash_env.play.service`) without revealing the deck.

The record is a JSON object (``?`` marks what the seat has not seen)::

    {"format": "mariash-seat/1",          # optional
     "rules": {...},                      # optional: make_rules options (default: volený
                                          # at the online table's rules)
     "deal": 0, "scores": [0, 0, 0],      # optional: the partie so far
     "dealer": 2, "seat": 1,              # the dealer's seat, the seat the robot plays
     "hand": ["Qh", "7b", ...],           # the seat's cards as dealt, in dealt order
     "actions": [[0, "trump:?"], ...],    # the deal's decisions, [seat, label]
     "marriages": [[1, "Kh"], ...]}       # optional: the plays that announced a marriage

and each game that takes records (the registry's ``seat_record`` front end, its kind's
``seat_records``) says what else it holds and which decisions are ``?``: volený
(:mod:`mariash_env.games.voleny.seat_record`: the trump card and discards, forehand's card
z lidu, an open contract's face-up hand) and licitovaný
(:mod:`mariash_env.games.licitovany.seat_record`: the actor's discards and face-down lead
card, his talon).  :func:`seat_view` rebuilds the seat's view, with the other seats'
hidden cards drawn from what the seat knows, so that every action of the record replays
through the engine; :func:`seat_record_of` writes the record of a seat of a
:class:`~mariash_env.Game`.  A malformed record, an illegal action, or a history that
contradicts the seat's cards raises :class:`SeatRecordError` naming the field (and the
action) and what was expected.  The helpers below are the games' shared steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .cards import CARD_CODES, CardError, card_index
from .core import state as S
from .core.engine import apply_action, legal_actions, start_partie
from .games.registry import game_kind, games
from .records import RecordError
from .robots.view import SeatView
from .rules import Rules, RulesError, is_int, make_rules

if TYPE_CHECKING:
    from .game import Game

__all__ = ["FORMAT", "SeatRecordError", "seat_record_of", "seat_view"]

FORMAT = "mariash-seat/1"
REQUIRED = ("dealer", "seat", "hand", "actions")
OPTIONAL_SHARED = ("format", "rules", "deal", "scores", "marriages")
WORLD_ROUNDS = 24  # redeals tried for one action (16 worlds each) before giving up
_KQ = {c for c in range(32) if CARD_CODES[c][0] in "KQ"}


class SeatRecordError(RecordError):
    """A seat record that is malformed or cannot be what the seat saw (``field``)."""


def parse_card(value: Any, field: str) -> int:
    try:
        return card_index(value)
    except CardError as e:
        raise SeatRecordError(str(e), field) from e


def parse_seat(value: Any, field: str) -> int:
    if not is_int(value) or not 0 <= value <= 2:
        raise SeatRecordError(f"{value!r}: expected a seat 0, 1 or 2", field)
    return int(value)


class Common(NamedTuple):
    """The fields every game's seat record shares, checked."""
    rules: Rules
    deal: int
    dealer: int
    seat: int
    scores: list[int]
    marriages: set[tuple[int, int]]


def record_kind(record: Any) -> Any:
    """The registered game (``GameKind``) a seat record is of, after checking that it is
    an object of the format whose rules take seat records."""
    return game_kind(record_rules(record))


def record_rules(record: Any) -> Rules:
    """The rules of a seat record (:func:`record_kind`'s checks)."""
    if not isinstance(record, dict):
        raise SeatRecordError(f"a seat record must be an object, got {type(record).__name__}")
    if record.get("format", FORMAT) != FORMAT:
        raise SeatRecordError(f"{record['format']!r} is not the format {FORMAT!r}", "format")
    opts = record.get("rules", {})
    if not isinstance(opts, dict):
        raise SeatRecordError("must be an object of rule options", "rules")
    try:
        rules = make_rules(**opts)  # players=4: volený's four-player table only
    except (RulesError, TypeError) as e:
        raise SeatRecordError(str(e), "rules") from e
    kind = game_kind(rules)
    if not kind.supports("seat_record"):
        have = [k.name for k in games("seat_record")]
        raise SeatRecordError(f"{opts.get('rules')!r}: seat records ({FORMAT}) are "
                              f"{' and '.join(have)}'s, not {kind.title or kind.name}'s: "
                              f"expected rules of {' or '.join(map(repr, have))}", "rules")
    return rules


def parse_common(record: Any, optional: tuple[str, ...]) -> Common:
    """The shared fields of a seat record whose game takes the ``optional`` fields (beside
    :data:`REQUIRED`): SeatRecordError naming the first that is wrong."""
    rules = record_rules(record)
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise SeatRecordError(f"missing: expected {list(REQUIRED)} (and optionally "
                              f"{list(optional)})", missing[0])
    extra = sorted(set(record) - set(REQUIRED) - set(optional))
    if extra:
        raise SeatRecordError(f"unknown field: expected only {list(REQUIRED + optional)}",
                              extra[0])
    deal = record.get("deal", 0)
    if not is_int(deal) or not 0 <= deal < rules.deals:
        raise SeatRecordError(f"{deal!r}: expected an int 0..{rules.deals - 1}", "deal")
    scores = record.get("scores", [0, 0, 0])
    if (not isinstance(scores, list) or len(scores) != 3 or not all(map(is_int, scores))
            or sum(scores) != 0 or max(map(abs, scores)) >= 2**62):
        raise SeatRecordError(f"{scores!r}: expected 3 ints summing to 0 "
                              f"({game_kind(rules).units}, |x| < 2^62)", "scores")
    dealer, seat = parse_seat(record["dealer"], "dealer"), parse_seat(record["seat"], "seat")
    marr = record.get("marriages", [])
    if not isinstance(marr, list):
        raise SeatRecordError("must be a list of [seat, card] pairs", "marriages")
    marriages = set()
    for m in marr:
        if not (isinstance(m, list) and len(m) == 2):
            raise SeatRecordError(f"{m!r} is not a [seat, card] pair", "marriages")
        c = parse_card(m[1], "marriages")
        if c not in _KQ:
            raise SeatRecordError(f"{m!r}: a marriage is announced with a K or Q", "marriages")
        marriages.add((parse_seat(m[0], "marriages"), c))
    if not isinstance(record["actions"], list):
        raise SeatRecordError("must be a list of [seat, label] pairs", "actions")
    return Common(rules, int(deal), dealer, seat, [int(x) for x in scores], marriages)


def cards_field(record: dict[str, Any], field: str, size: int | None = None) -> list[int]:
    """The card codes of list ``field`` as indices, none twice (``size`` of them if given)."""
    value = record[field]
    if not isinstance(value, list) or (size is not None and len(value) != size):
        want = f"{size} card codes" if size is not None else "a list of card codes"
        raise SeatRecordError(f"{value!r}: expected {want}", field)
    cards = [parse_card(c, field) for c in value]
    if len(set(cards)) != len(cards):
        raise SeatRecordError(f"{value!r} names a card twice", field)
    return cards


def start_deal(deal: int, scores: list[int], dealer: int, deck: np.ndarray,
               game: int = 0) -> np.ndarray:
    """The state at the start of a deal of ``deck`` (the card at each position) of
    ``game`` (the rules' ``R_GAME``); the partie's deal number and scores as given."""
    st = S.new_state()
    start_partie(st, deck, dealer, game)
    st[S.CUT] = -1
    st[S.DEAL_NO] = deal
    for i, v in enumerate(scores):
        S.set64(st, S.SCORE + 2 * i, v)
    return st


def scores_before(st: np.ndarray) -> list[int]:
    """The partie's running scores before the deal of ``st``."""
    scores = [int(x) for x in S.read64(st, S.SCORE, 3)]
    if st[S.SETTLED]:
        scores = [x - int(p) for x, p in zip(scores, S.read64(st, S.PAY, 3))]
    return scores


class SeatRecords(NamedTuple):
    """A game's seat records (a GameKind's ``seat_records``): ``view(record, rng)`` the
    seat's :class:`SeatView` rebuilt from a record, ``record_of(game, seat)`` the record
    of a seat of a :class:`~mariash_env.Game`."""
    view: Any
    record_of: Any


def seat_view(record: Any, rng: np.random.Generator | int | None = None) -> SeatView:
    """The :class:`SeatView` of the record's seat (module docstring; the game's own module
    says how); SeatRecordError naming what is wrong."""
    view = record_kind(record).load("seat_records").view(record, rng)
    marriages_played(record)
    return view


def marriages_played(record: dict[str, Any]) -> None:
    """SeatRecordError unless every item of ``marriages`` names a play of ``actions``
    (the replay checked that every play announcing a marriage is listed, and the items'
    form; a record checked by the replay, in the record's numbering of seats or players)."""
    plays = {(int(who), card_index(label[5:])) for who, label in record["actions"]
             if label.startswith("play:")}
    for m in record.get("marriages", []):
        if (int(m[0]), card_index(m[1])) not in plays:
            raise SeatRecordError(f"{m!r} names no play of 'actions': a marriage is "
                                  "announced by a play of its king or queen", "marriages")


def seat_record_of(game: Game, seat: int | None = None) -> dict[str, Any]:
    """The seat record (``mariash-seat/1``) of ``seat`` (default: the seat to move) in the
    deal of a :class:`~mariash_env.Game` of a game that takes them (module docstring):
    what that seat saw of it.  What a game server built on :class:`~mariash_env.Game`
    sends the robot service; :func:`seat_view` rebuilds the seat's view from it."""
    kind = game.kind
    if not kind.supports("seat_record"):
        have = " and ".join(k.title or k.name for k in games("seat_record"))
        raise SeatRecordError(f"seat records ({FORMAT}) are of {have}, not "
                              f"{kind.title or kind.name}", "rules")
    return kind.load("seat_records").record_of(game, seat)


def seat_to_move(st: np.ndarray, seat: int, rules: Rules) -> SeatView:
    """The view of ``seat`` at the end of its record: the deal goes on, the seat to move."""
    if st[S.PHASE] == S.PH_DONE:
        raise SeatRecordError("the deal is over: there is nothing to decide", "actions")
    if st[S.TO_MOVE] != seat:
        raise SeatRecordError(f"seat {int(st[S.TO_MOVE])} is to move, not seat {seat}",
                              "actions")
    return SeatView(st, seat, rules)


def step(w: np.ndarray, rv: np.ndarray, mask: np.ndarray, rng: np.random.Generator, who: int,
         a: int, hidden: bool, marriages: set[tuple[int, int]], play0: int) -> np.ndarray | None:
    """A copy of the world ``w`` after ``who``'s action ``a`` (``hidden``: one of the legal
    ones of its block, ``a`` the block's first), or None when ``w`` does not allow it as
    recorded (illegal, or a play announcing a marriage exactly when ``marriages`` does not
    list it)."""
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
    if play0 <= a < play0 + 32 and (out[S.NMARR] > n_marr) != ((who, a - play0) in marriages):
        return None
    return out


def turn(st: np.ndarray, seat: int, i: int, item: Any, hidden: dict[str, int],
         index: Any) -> tuple[int, str, str, int]:
    """Action #``i`` of a record, ``[who, label]``, checked against the deal ``st`` so far:
    ``(who, label, where, a)`` with ``a`` the action index (a ``hidden`` label's block
    start), ``where`` naming it for errors."""
    if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
        raise SeatRecordError(f"action #{i} {item!r} is not a [seat, label] pair", "actions")
    who, label = item
    where = f"action #{i} [{who!r}, {label!r}]"
    if st[S.PHASE] == S.PH_DONE:
        raise SeatRecordError(f"{where}: the deal was already over", "actions")
    if not is_int(who) or who != st[S.TO_MOVE]:
        raise SeatRecordError(f"{where}: seat {who!r} acted but seat "
                              f"{int(st[S.TO_MOVE])} was to move", "actions")
    if label in hidden:
        if who == seat:
            raise SeatRecordError(f"{where}: the seat's own actions are given in full",
                                  "actions")
        return who, label, where, hidden[label]
    try:
        return who, label, where, index(label)
    except ValueError as e:
        raise SeatRecordError(f"{where}: {e}", "actions") from e


def refusal(st: np.ndarray, rv: np.ndarray, mask: np.ndarray, seat: int, who: int, a: int,
            labels: Any, play0: int, marriage_rule: str) -> str:
    """Why ``who``'s action ``a`` cannot follow the deal ``st`` as ``seat`` saw it."""
    legal_actions(st, rv, mask)
    if who == seat:
        if mask[a]:
            return (f"the seat's cards make this play announce a marriage ({marriage_rule}) "
                    "exactly when 'marriages' does not list it")
        return f"illegal for seat {seat}; legal were {[labels[j] for j in np.flatnonzero(mask)]}"
    if play0 <= a < play0 + 32 and S.getm(st, S.HAND + seat) >> (a - play0) & 1:
        return f"{CARD_CODES[a - play0]} is in seat {seat}'s hand"
    return (f"no deal consistent with seat {seat}'s cards and the actions before it allows "
            "it (or its marriage, per 'marriages')")


def location_bit(seat: int, other: int) -> int:
    """The samplers' location bit of ``other``'s hand for ``seat``: 1 next, 2 previous."""
    return 1 if other == (seat + 1) % 3 else 2


def playable(st: np.ndarray, seat: int, rv: np.ndarray, who: int, card: int, play0: int,
             n_actions: int) -> np.ndarray:
    """The samplers' ``restrict`` (for ``seat``) of the hands in which ``who`` may play
    ``card`` now: the card in his hand, and no card ``d`` for which the engine finds
    ``card`` illegal in the hand ``{card, d}`` (a card of the suit led, a higher one, a
    trump, §6: a card that obliges him otherwise in any hand that holds it)."""
    bit = location_bit(seat, who)
    restrict = np.full(32, 7, dtype=np.int64)
    restrict[card] = bit
    probe = st.copy()
    mask = np.zeros(n_actions, dtype=np.int8)
    for d in range(32):
        if d != card:
            S.setm(probe, S.HAND + who, (1 << card) | (1 << d))
            legal_actions(probe, rv, mask)
            if not mask[play0 + card]:
                restrict[d] &= ~bit
    return restrict


