"""Game records: one JSON object per finished deal, and their replay (INTERFACE.md).

A record holds the rules, the dealer, the deck as dealt (after the cut, codes
from the top), the cut, the ``[seat, label]`` actions in order and the
settlement.  :func:`replay_record` deals the deck, checks every action against
the engine and compares the settlement; a record that does not replay raises
:class:`RecordError` naming the first bad action.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .actions import ActionError, action_index
from .cards import CardError
from .game import Game, IllegalActionError
from .rules import RulesError, make_rules

FORMAT = "mariash-deal/1"
REQUIRED = ("rules", "dealer", "deck", "actions", "settlement")


class RecordError(ValueError):
    """A record that is malformed or does not replay."""


def save_records(path: str | os.PathLike, records: Iterable[dict[str, Any]]) -> None:
    """Write records as JSON lines, atomically (write a temporary file, then rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def load_records(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Yield the records of a ``.jsonl`` file; a line that is not JSON raises RecordError."""
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise RecordError(f"{path}:{n}: not a JSON object ({e.msg})") from e
            if not isinstance(rec, dict):
                raise RecordError(f"{path}:{n}: a record must be a JSON object")
            yield rec


def replay_record(record: dict[str, Any]) -> dict[str, Any]:
    """Replay one record; returns its settlement, or raises RecordError at the first fault."""
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise RecordError(f"record lacks field(s) {missing}: expected {list(REQUIRED)}")
    if not isinstance(record["rules"], dict):
        raise RecordError("record field 'rules' must be an object of rule options")
    try:
        game = Game(make_rules(**record["rules"]))
        dealer = record["dealer"]
        game.new_partie(seed=0, deck=record["deck"], dealer=dealer)
    except (RulesError, CardError, ValueError) as e:
        raise RecordError(f"record cannot be dealt: {e}") from e
    actions = record["actions"]
    if not isinstance(actions, list):
        raise RecordError("record field 'actions' must be a list of [seat, label]")
    for i, item in enumerate(actions):
        if not (isinstance(item, (list, tuple)) and len(item) == 2):
            raise RecordError(f"action #{i} {item!r} is not a [seat, label] pair")
        seat, label = item
        if game.deal_over:
            raise RecordError(f"action #{i} {label!r}: the deal was already over")
        if seat != game.to_move:
            raise RecordError(
                f"action #{i} {label!r}: seat {seat} acted but seat {game.to_move} was to move"
            )
        try:
            game.step(action_index(label))
        except (ActionError, IllegalActionError) as e:
            raise RecordError(f"action #{i} [{seat}, {label!r}] does not replay: {e}") from e
    if not game.deal_over:
        raise RecordError(f"the record ends after {len(actions)} actions with the deal unfinished")
    got = game.settlement()
    want = record["settlement"]
    if got != want:
        raise RecordError(
            f"settlement differs: recorded payments {want.get('payments')}, "
            f"replayed {got['payments']}"
            + ("" if got["payments"] != want.get("payments") else " (details differ)")
        )
    return got
