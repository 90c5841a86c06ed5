"""The error of a malformed or non-replaying game record, on its own so that every game's
record reader (volený's and licitovaný's in :mod:`mariash_env.records`, lízaný's in
:mod:`mariash_env.lizany`) raises the same class without importing the others."""

from __future__ import annotations


class RecordError(ValueError):
    """A record that is malformed or does not replay; ``field`` names the culprit."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        self.message = message  # without the field's name
        super().__init__(f"field {field!r}: {message}" if field else message)
