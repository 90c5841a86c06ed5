"""The text of a user's file, as UTF-8: :func:`read_text`.

The project reads its text files (training configs, pipeline recipes, JSON files, the
best-response table's CSV, the play table's records) as UTF-8.  Python's own reader
answers a file in another encoding (a config saved as Latin-1 or UTF-16) with a bare
``UnicodeDecodeError`` at a position in a chunk of the file ("'utf-8' codec can't
decode byte 0xe9 in position 3"); :func:`read_text` names the line, the byte and the
encoding expected, in :class:`NotUtf8Error`, still a ``UnicodeDecodeError`` (and a
``ValueError``) for the readers that catch those.

A UTF-8 byte-order mark at the start of a file (what Windows editors save as "UTF-8 with
BOM", and spreadsheets as "CSV UTF-8") is not part of its text: :func:`read_text` leaves
it out, so that every reader (TOML, JSON, CSV) takes such a file as the same file without
it, as a game record's reader does (``mariash_env.records``); before, the parsers refused
it ("Invalid statement", "Unexpected UTF-8 BOM") or read it as part of a CSV's first
column's name.
"""

from __future__ import annotations

import codecs
import os
from typing import Any


class NotUtf8Error(UnicodeDecodeError):
    """A file that is not UTF-8 text (:func:`read_text`); ``line``: the line of the first
    byte that is not UTF-8 (1-based), ``column``: that byte's place in the line (1-based,
    in bytes)."""

    def __init__(self, e: UnicodeDecodeError, line: int, column: int) -> None:
        super().__init__(e.encoding, e.object, e.start, e.end, e.reason)
        self.line = line
        self.column = column

    def __reduce__(self) -> tuple[Any, ...]:  # a pickled copy (a worker's) says the same
        return type(self), (UnicodeDecodeError(self.encoding, self.object, self.start,
                                               self.end, self.reason), self.line, self.column)

    def __str__(self) -> str:
        bad = bytes(self.object[self.start:self.start + 1])
        return (f"not UTF-8 text (line {self.line}, byte {self.column} of the line: "
                f"{bad!r}): expected a file encoded in UTF-8")


def read_text(path: str | os.PathLike, newline: str | None = None) -> str:
    """The text of the file at ``path``, decoded as UTF-8 without a byte-order mark at its
    start: OSError where it cannot be read, :class:`NotUtf8Error` where it is not UTF-8
    (its byte counted on its line without the mark, as an editor shows it).  ``newline``
    as ``open``'s: None gives the line ends as ``Path.read_text`` does (``\\r\\n`` and
    ``\\r`` as ``\\n``), ``""`` keeps them as written (what the ``csv`` module reads: a
    quoted field's ``\\r\\n`` is the field's own)."""
    if newline not in (None, ""):
        raise ValueError(f"newline={newline!r}: expected None (line ends as \\n) or '' "
                         "(as written)")
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(codecs.BOM_UTF8):  # "UTF-8 with BOM": the same text
        data = data[len(codecs.BOM_UTF8):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        raise NotUtf8Error(e, data.count(b"\n", 0, e.start) + 1, e.start - start + 1) \
            from None
    return text if newline == "" else text.replace("\r\n", "\n").replace("\r", "\n")
