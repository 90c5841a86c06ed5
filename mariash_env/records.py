"""Game records: one JSON object per finished deal, and their replay (INTERFACE.md).

A record holds the rules, the dealer, the deck as dealt (after the cut, codes
from the top), the cut, the ``[seat, label]`` actions in order and the
settlement.  :func:`replay_record` deals the deck, checks every action against
the engine and compares the settlement; a record that does not replay raises
:class:`RecordError` naming the field and the first bad action.

Every field is checked: the format tag, the rules (as :func:`make_rules` checks them),
the deal number against the rules' ``deals``, the dealer, the deck, the cut (none for the
first deal of a partie, 2..30 after a gathering, 0 after a reshuffle), every ``[seat,
label]`` action, and the settlement in full.  :class:`RecordChecker` checks a sequence:
when a record is the next deal of the one before it, its dealer, cut and deck must be
what gathering and cutting that deal gives (RULES.md §2).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from .actions import ActionError
from .atomic import atomic_open
from .cards import CardError, parse_deck
from .core import state as S
from .core.deal import cut_deck, gathered_deck
from .game import Game, IllegalActionError
from .rules import Rules, RulesError, is_int, make_rules

FORMAT = "mariash-deal/1"
FIELDS = ("format", "rules", "deal", "dealer", "deck", "cut", "actions", "settlement")
REQUIRED = FIELDS


class RecordError(ValueError):
    """A record that is malformed or does not replay; ``field`` names the culprit."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(f"field {field!r}: {message}" if field else message)


def save_records(path: str | os.PathLike, records: Iterable[dict[str, Any]]) -> None:
    """Write records as JSON lines, atomically (write a temporary file, then rename)."""
    with atomic_open(path) as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def read_records(path: str | os.PathLike) -> Iterator[tuple[int, dict[str, Any] | RecordError]]:
    """``(line number, record)`` per non-blank line of a ``.jsonl`` file; a line that is not
    a JSON object gives ``(line, RecordError)`` and reading goes on.  OSError and
    UnicodeDecodeError (a file that cannot be read as text) propagate."""
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                yield n, RecordError(f"not a JSON object ({e.msg})")
                continue
            except RecursionError:
                yield n, RecordError("not a JSON object (nested too deeply)")
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
    game = Game(rules, records=False)
    try:
        game.new_partie(seed=0, deck=record["deck"], dealer=record["dealer"])
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
    if got != want:
        keys = [k for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)]
        raise RecordError(
            f"settlement differs in {keys}: recorded payments {want.get('payments')}, "
            f"replayed {got['payments']}",
            f"settlement.{keys[0]}",
        )
    return game


def replay_record(record: dict[str, Any]) -> dict[str, Any]:
    """Replay one record; returns its settlement, or raises RecordError at the first fault."""
    return _replay(record).last_settlement  # type: ignore[return-value]


class RecordChecker:
    """Replays records in file order and checks that consecutive deals of a partie join.

    After a record of the same rules, a record whose deck is that deal gathered and cut
    at its ``cut`` (RULES.md §2) must be the next deal, dealt by the previous forehand; a
    record numbered as the next deal must join so.  A tampered ``deal``, ``cut``,
    ``dealer`` or deck is caught wherever the deal before it is in the file.
    """

    def __init__(self) -> None:
        self._prev: tuple[dict[str, Any], int, Game] | None = None

    def check(self, record: Any) -> dict[str, Any]:
        """Check one record (RecordError naming the field); returns its settlement."""
        prev, self._prev = self._prev, None
        game = _replay(record)
        deal = record["deal"]
        if prev is not None and prev[0] == record["rules"]:
            p_deal, p_game = prev[1], prev[2]
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
        self._prev = (record["rules"], deal, game)
        return game.last_settlement  # type: ignore[return-value]

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
