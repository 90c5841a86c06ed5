"""Lízaný's records (``mariash-lizany/1``: one independent deal each) replayed and checked
by :func:`mariash_env.records.replay_record`, which finds this module through the
registry (``GameKind.record_format`` / ``record_replay``)."""

from __future__ import annotations

from typing import Any

from ...record_error import RecordError
from ...records import _first_difference, check_deck
from . import game as lizany


def replay_result(record: dict[str, Any]) -> dict[str, Any]:
    """A lízaný record replayed (:func:`mariash_env.games.lizany.game.replay`, its deck and
    result type-checked too); returns its result, RecordError at the first fault."""
    if "deck" in record:  # else replay names the missing field
        check_deck(record["deck"])
    result = lizany.replay(record).result()
    where = _first_difference(record["result"], result, "result")
    if where:
        raise RecordError(f"differs from the replay: {where}", "result")
    return result
