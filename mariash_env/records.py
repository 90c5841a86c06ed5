"""Game records: one JSON object per finished deal, and their replay (INTERFACE.md).

A record holds the rules, the dealer, the deck as dealt (after the cut, codes
from the top), the cut, the ``[seat, label]`` actions in order and the
settlement.  :func:`replay_record` deals the deck, checks every action against
the engine and compares the settlement; a record that does not replay raises
:class:`RecordError` naming the field and the first bad action.

Every field is checked: the format tag, the rules (as :func:`make_rules` checks them),
the deal number against the rules' ``deals``, the dealer, the deck, the cut (none for the
first deal of a partie, 2..30 after a gathering, 0 after a reshuffle), every ``[seat,
label]`` action, and the settlement in full, with JSON types kept apart (``1.0`` and
``true`` are not ``1``, a deck is a list of 32 distinct card codes).
:class:`RecordChecker` checks a sequence as parties: each record of a partie is the next
deal of the one before it (same rules, the deal number one up, dealt by the previous
forehand, its cut and deck what gathering and cutting that deal gives, RULES.md §2), and
a new partie starts at deal 0 once the one before is complete; so a deal deleted,
duplicated or moved is caught.  Lízaný records (``mariash-lizany/1``, independent deals)
are replayed by :func:`mariash_env.lizany.replay`.
"""

from __future__ import annotations

import json
import os
import reprlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from . import jsonio
from .atomic import atomic_open
from .cards import CARD_CODES, CardError, parse_deck
from .core import state as S
from .core.deal import cut_deck, gathered_deck
from .game import Game, IllegalActionError
from .games.registry import games as registered_games
from .games.voleny.actions import ActionError
from .record_error import RecordError
from .rules import Rules, RulesError, is_int, make_rules

FORMAT = "mariash-deal/1"
FIELDS = ("format", "rules", "deal", "dealer", "deck", "cut", "actions", "settlement")
REQUIRED = FIELDS


def save_records(path: str | os.PathLike, records: Iterable[dict[str, Any]]) -> None:
    """Write records as JSON lines, atomically (write a temporary file, then rename)."""
    with atomic_open(path) as fh:
        for r in records:
            fh.write(jsonio.dumps(r, ensure_ascii=False) + "\n")


def read_records(path: str | os.PathLike) -> Iterator[tuple[int, dict[str, Any] | RecordError]]:
    """``(line number, record)`` per non-blank line of a ``.jsonl`` file; a line that is not
    a JSON object (or not UTF-8 text) gives ``(line, RecordError)`` and reading goes on, so
    one damaged line does not hide the records after it.  OSError propagates."""
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                # utf-8-sig: a byte-order mark that an editor put first is not an error
                line = raw.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as e:
                # the byte counted from 1 in the line decoded (the mark left out), as
                # textfile.NotUtf8Error counts it, not the codec's index from 0
                bad = bytes(e.object[e.start:e.start + 1])
                yield n, RecordError(f"not UTF-8 text (byte {e.start + 1} of the line: "
                                     f"{bad!r})")
                continue
            if not line.strip():
                continue
            try:
                rec = jsonio.loads(line)  # a key given twice: which value is meant?
            except json.JSONDecodeError as e:
                yield n, RecordError(f"not a JSON object ({e.msg})")
                continue
            except jsonio.NestingError:
                yield n, RecordError("not a JSON object (nested too deeply)")
                continue
            except ValueError as e:  # an int over Python's int-string conversion limit
                yield n, RecordError(f"not a JSON object we read ({e})")
                continue
            if not isinstance(rec, dict):
                yield n, RecordError(
                    f"a record must be a JSON object, got a JSON {type(rec).__name__}"
                )
                continue
            yield n, rec


def load_records(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Yield the records of a ``.jsonl`` file; a line that is not JSON raises RecordError."""
    for n, rec in read_records(path):
        if isinstance(rec, RecordError):
            raise RecordError(f"{path}:{n}: {rec}")
        yield rec


def _kind(x: Any) -> str:
    """The JSON type of ``x`` (``bool`` and ``int`` apart, numpy ints as ints)."""
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if x is None:
        return "null"
    return "int" if is_int(x) else type(x).__name__


def _first_difference(want: Any, got: Any, path: str = "") -> str | None:
    """Where the recorded ``want`` and the replayed ``got`` first differ, in value or in
    JSON type (``==`` holds for ``1``, ``1.0`` and ``True``); None when they are the same.
    Recurses only as deep as ``got`` (the engine's own, shallow, value)."""
    if _kind(want) != _kind(got):
        return f"{path or 'the value'}: recorded {_kind(want)} {_short(want)}, replayed " \
               f"{_kind(got)} {_short(got)}"
    if isinstance(got, dict):
        for k in sorted(set(want) | set(got), key=str):
            at = f"{path}.{k}" if path else str(k)
            if k not in got:
                return f"{at}: not in the replay"
            if k not in want:
                return f"{at}: missing from the record"
            d = _first_difference(want[k], got[k], at)
            if d:
                return d
        return None
    if isinstance(got, list):
        if len(want) != len(got):
            return f"{path}: recorded {len(want)} items, replayed {len(got)}"
        for i, (w, g) in enumerate(zip(want, got)):
            d = _first_difference(w, g, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if want == got else f"{path}: recorded {_short(want)}, replayed {_short(got)}"


def _short(x: Any) -> str:
    """``repr`` cut short (a record may hold long strings, huge ints, deep lists)."""
    return _REPR.repr(x)


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 60


def check_deck(deck: Any, field: str = "deck") -> np.ndarray:
    """A recorded deck: a list of the 32 card codes (``"Qh"``, as records write them), each
    once; RecordError naming the first fault."""
    if not isinstance(deck, list):
        raise RecordError(f"expected a list of 32 card codes, got a JSON {_kind(deck)}", field)
    if len(deck) != len(CARD_CODES):
        raise RecordError(f"expected 32 card codes, got {len(deck)}", field)
    bad = next((i for i, c in enumerate(deck) if not (isinstance(c, str) and c in CARD_CODES)),
               None)
    if bad is not None:
        raise RecordError(f"item {bad} = {_short(deck[bad])}: expected a card code such as "
                          "'Qh' (rank 789TJQKA, suit hlba)", field)
    try:
        return parse_deck(deck)
    except CardError as e:
        raise RecordError(str(e), field) from e


def _fields(record: Any) -> Rules:
    """Check every field but the actions and the settlement's content; the rules."""
    if not isinstance(record, dict):
        raise RecordError(f"a record must be an object, got {type(record).__name__}")
    missing = [k for k in FIELDS if k not in record]
    if missing:
        raise RecordError(f"missing: expected all of {list(FIELDS)}", missing[0])
    extra = sorted(set(record) - set(FIELDS))
    if extra:
        raise RecordError(f"unknown field: expected only {list(FIELDS)}", extra[0])
    if record["format"] != FORMAT:
        raise RecordError(f"{record['format']!r} is not the format {FORMAT!r}", "format")
    if not isinstance(record["rules"], dict):
        raise RecordError("must be an object of rule options", "rules")
    try:
        rules = make_rules(**record["rules"])
    except RulesError as e:
        raise RecordError(str(e), "rules") from e
    if rules.to_dict() != record["rules"]:
        missing_opts = sorted(set(rules.to_dict()) - set(record["rules"]))
        raise RecordError(f"must name every rule option; lacks {missing_opts}", "rules")
    typed = _first_difference(record["rules"], rules.to_dict())
    if typed:
        raise RecordError(f"{typed} (as make_rules reads it)", "rules")
    deal = record["deal"]
    if not is_int(deal) or not 0 <= deal < rules.deals:
        raise RecordError(
            f"{deal!r}: expected an int 0..{rules.deals - 1} (the rules' deals={rules.deals})",
            "deal",
        )
    dealer = record["dealer"]
    if not is_int(dealer) or not 0 <= dealer < rules.players:
        raise RecordError(f"{dealer!r}: expected a seat 0..{rules.players - 1}", "dealer")
    cut = record["cut"]
    if deal == 0:
        if cut is not None:
            raise RecordError(f"{cut!r}: the first deal of a partie is not cut (null)", "cut")
    elif rules.shuffle == "every_deal":
        if cut != 0 or not is_int(cut):
            raise RecordError(f"{cut!r}: a reshuffled deal has cut 0", "cut")
    elif not is_int(cut) or not 2 <= cut <= 30:
        raise RecordError(f"{cut!r}: expected a cut of 2..30 cards (RULES.md §2)", "cut")
    if not isinstance(record["actions"], list):
        raise RecordError("must be a list of [seat, label] pairs", "actions")
    if not isinstance(record["settlement"], dict):
        raise RecordError("must be an object", "settlement")
    return rules


def _replay(record: dict[str, Any]) -> Game:
    """The game after replaying ``record`` (every field checked); RecordError at a fault."""
    rules = _fields(record)
    deck = check_deck(record["deck"])
    game = Game(rules, records=False)
    try:
        game.new_partie(seed=0, deck=deck, dealer=record["dealer"])
    except (CardError, ValueError) as e:
        raise RecordError(str(e), "deck") from e
    actions = record["actions"]
    for i, item in enumerate(actions):
        if not (isinstance(item, list) and len(item) == 2):
            raise RecordError(f"action #{i} {item!r} is not a [seat, label] pair", "actions")
        seat, label = item
        if not isinstance(label, str):
            raise RecordError(f"action #{i} {item!r}: the label must be a str", "actions")
        if game.deal_over:
            raise RecordError(f"action #{i} {label!r}: the deal was already over", "actions")
        if not is_int(seat) or seat != game.to_move:
            raise RecordError(
                f"action #{i} {label!r}: seat {seat!r} acted but seat {game.to_move} was to "
                "move",
                "actions",
            )
        try:
            game.step(game.kind.action_index(label))
        except (ActionError, IllegalActionError) as e:
            raise RecordError(
                f"action #{i} [{seat}, {label!r}] does not replay: {e}", "actions"
            ) from e
    if not game.deal_over:
        raise RecordError(
            f"the record ends after {len(actions)} actions with the deal unfinished", "actions"
        )
    got = game.last_settlement
    want = record["settlement"]
    where = _first_difference(want, got, "settlement")
    if where:
        keys = [k for k in sorted(set(got) | set(want))
                if k not in got or k not in want or _first_difference(want[k], got[k])]
        raise RecordError(
            f"settlement differs in {keys} (first at {where}): recorded payments "
            f"{_short(want.get('payments'))}, replayed {got['payments']}",
            f"settlement.{keys[0]}",
        )
    return game


def _own_replay(record: Any) -> Any:
    """The replay of a game whose records are a format of its own (the registry's
    ``record_format``, e.g. lízaný's independent deals), or None."""
    fmt = record.get("format") if isinstance(record, dict) else None
    for kind in registered_games():
        if kind.record_format and kind.record_format == fmt:
            return kind.load("record_replay")
    return None


def replay_record(record: dict[str, Any]) -> dict[str, Any]:
    """Replay one record of any game; returns its settlement (a lízaný record: its
    result), or raises RecordError at the first fault."""
    own = _own_replay(record)
    if own is not None:
        return own(record)
    return _replay(record).last_settlement  # type: ignore[return-value]


class RecordChecker:
    """Replays records in file order and checks that they make parties.

    The first record (and the first after a bad one) may be any deal; after it each
    record is the next deal of the same partie, or deal 0 of a new partie once the one
    before has had all its ``deals``.  The next deal keeps the rules, is numbered one up,
    is dealt by the previous forehand, and its deck is that deal gathered and cut at its
    ``cut`` (RULES.md §2; ``shuffle="every_deal"`` reshuffles, so there only the number
    and the dealer tell).  A deal deleted, duplicated or swapped, or a tampered ``deal``,
    ``cut``, ``dealer`` or deck, is caught at the first record that does not follow.
    ``parties=False`` checks each record alone (a file of unrelated deals).  Lízaný
    records are independent deals: each is replayed alone.
    """

    def __init__(self, parties: bool = True) -> None:
        self.parties = parties
        self._prev: tuple[dict[str, Any], int, Game] | None = None
        self._first = 0  # the first deal of the partie being read

    def check(self, record: Any) -> dict[str, Any]:
        """Check one record (RecordError naming the field); returns its settlement."""
        prev, self._prev = self._prev, None
        own = _own_replay(record)
        if own is not None:
            result = own(record)
            self._prev = prev  # a lízaný deal between two deals of a partie hides no gap
            return result
        game = _replay(record)
        deal = record["deal"]
        if prev is None:
            self._first = deal
        elif self.parties:
            if self._follows(record, prev):
                self._first = 0
        self._prev = (record["rules"], deal, game)
        return game.last_settlement  # type: ignore[return-value]

    def _follows(self, record: dict[str, Any], prev: tuple[dict[str, Any], int, Game]) -> bool:
        """RecordError unless ``record`` is the deal after ``prev`` or starts a partie
        (then True)."""
        p_rules, p_deal, p_game = prev
        deal, deals = record["deal"], p_game.rules.deals
        if deal == 0:
            if p_deal != deals - 1:
                raise RecordError(
                    f"0: a new partie starts but the partie before ended at deal {p_deal} "
                    f"of 0..{deals - 1} (deals {p_deal + 1}.. missing)", "deal")
            if self._first != 0:  # only the file's first partie may be an excerpt
                raise RecordError(
                    f"0: a new partie starts but the partie before holds only deals "
                    f"{self._first}..{p_deal} (a file may begin inside a partie; a partie "
                    "followed by another is whole)", "deal")
            return True
        if record["rules"] != p_rules:
            raise RecordError(
                f"differ from the record before (deal {p_deal}); a partie keeps its rules, "
                "and a partie of other rules starts at deal 0", "rules")
        self._joins_previous(record, p_game, p_deal)
        if deal != p_deal + 1:
            what = ("the same deal again (a duplicate)" if deal == p_deal else
                    f"deals {p_deal + 1}..{deal - 1} missing" if deal > p_deal else
                    "out of order")
            raise RecordError(
                f"{deal}: the record before is deal {p_deal} of this partie, so this is "
                f"deal {p_deal + 1}: {what}", "deal")
        return False

    def _joins_previous(self, record: dict[str, Any], p_game: Game, p_deal: int) -> None:
        """The deck and the dealer of ``record`` against deal ``p_deal`` (``p_game``)."""
        deal = record["deal"]
        joins = self._joins(record, p_game, p_deal)
        if deal == p_deal + 1 and not joins:
            raise RecordError(
                f"{record['cut']}: the previous deal gathered and cut at "
                f"{record['cut']} does not give this record's deck (tampered cut or deck)",
                "cut",
            )
        if joins and deal != p_deal + 1:
            raise RecordError(
                f"{deal}: this deal's deck continues deal {p_deal} of the record before, "
                f"so it is deal {p_deal + 1}",
                "deal",
            )
        forehand = p_game.player(int(p_game.st[S.FOREHAND]))  # at four: a player
        if deal == p_deal + 1 and record["dealer"] != forehand:
            raise RecordError(
                f"{record['dealer']}: the dealer of the next deal is the previous "
                f"forehand, seat {forehand}",
                "dealer",
            )

    @staticmethod
    def _joins(record: dict[str, Any], prev: Game, prev_deal: int) -> bool:
        """Whether ``record``'s deck is ``prev`` gathered and cut at its cut (every_deal
        reshuffles: then only the deal number and the dealer can tell)."""
        if prev.rules.shuffle == "every_deal":
            return record["deal"] == prev_deal + 1
        cut = record["cut"]
        if cut is None:
            return False
        deck = cut_deck(gathered_deck(prev.st), int(cut))
        return bool(np.array_equal(deck, parse_deck(record["deck"])))
