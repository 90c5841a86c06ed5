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

Positions in the project's errors count from 1: the line, and the byte in the line (the
column, counted in bytes), as editors show them ("Ln 3, Col 7"), as the GNU convention
for error messages has them (``file:line:column``, both from 1, what compilers and grep
print), and as Python's ``json`` ("line 2 column 5") and ``tomllib`` ("at line 2, column
5") count the positions of their errors, which the project's readers pass on.  Python's
``UnicodeDecodeError`` "in position N" is another thing: an index from 0 into the bytes
decoded (a slice's start; in a chunk of the file where a stream reads it), no place a
person can look for, so the readers name the line and the byte instead
(:class:`NotUtf8Error`, the game records' reader).
"""

from __future__ import annotations

import codecs
import os
from typing import Any


class NotUtf8Error(UnicodeDecodeError):
    """A file (``what``: other text) that is not UTF-8 text (:func:`read_text`,
    :func:`decode_text`); ``line``: the line of the first byte that is not UTF-8
    (1-based), ``column``: that byte's place in the line (1-based, in bytes)."""

    def __init__(self, e: UnicodeDecodeError, line: int, column: int,
                 what: str = "a file") -> None:
        super().__init__(e.encoding, e.object, e.start, e.end, e.reason)
        self.line = line
        self.column = column
        self.what = what

    @classmethod
    def at(cls, e: UnicodeDecodeError, what: str = "a file",
           universal: bool = True) -> NotUtf8Error:
        """``e`` (the codec's error, its place an index from 0 into ``e.object``) with its
        first bad byte's line and byte in the line, counted from 1, the lines split as
        the text's reader splits them: ``universal``, at each ``\\r\\n``, ``\\r`` and
        ``\\n`` (the readers of :func:`read_text`'s text, either ``newline``: TOML, JSON,
        the ``csv`` module); else at ``\\n`` only (``json``'s own count of the text it
        decodes, :func:`mariash_env.jsonio.loads`).  A file with bare ``\\r`` line ends
        was said to be bad on line 1."""
        data, at = e.object, e.start
        if not universal:
            start = data.rfind(b"\n", 0, at) + 1
            return cls(e, data.count(b"\n", 0, at) + 1, at - start + 1, what)
        # (the bad byte is no \n: no \r\n spans it)
        ends = data.count(b"\n", 0, at) + data.count(b"\r", 0, at) - data.count(b"\r\n", 0, at)
        start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
        return cls(e, ends + 1, at - start + 1, what)

    def __reduce__(self) -> tuple[Any, ...]:  # a pickled copy (a worker's) says the same
        return type(self), (UnicodeDecodeError(self.encoding, self.object, self.start,
                                               self.end, self.reason), self.line, self.column,
                            self.what)

    def __str__(self) -> str:
        bad = bytes(self.object[self.start:self.start + 1])
        return (f"not UTF-8 text (line {self.line}, byte {self.column} of the line: "
                f"{bad!r}): expected {self.what} encoded in UTF-8")


def decode_text(data: bytes, newline: str | None = None, what: str = "a file") -> str:
    """The text of ``data`` (bytes already read: a gzip member's) as :func:`read_text`
    gives a file's: decoded as UTF-8 without a byte-order mark at its start,
    :class:`NotUtf8Error` (``what`` in its message) where it is not UTF-8, its byte counted
    on its line without the mark, as an editor shows it.  ``newline`` as
    :func:`read_text`'s."""
    if newline not in (None, ""):
        raise ValueError(f"newline={newline!r}: expected None (line ends as \\n) or '' "
                         "(as written)")
    if data.startswith(codecs.BOM_UTF8):  # "UTF-8 with BOM": the same text
        data = data[len(codecs.BOM_UTF8):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotUtf8Error.at(e, what) from None
    return text if newline == "" else text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: str | os.PathLike, newline: str | None = None) -> str:
    """The text of the file at ``path``, decoded as UTF-8 without a byte-order mark at its
    start (:func:`decode_text`): OSError where it cannot be read, :class:`NotUtf8Error`
    where it is not UTF-8 (its byte counted on its line without the mark, as an editor
    shows it).  ``newline`` as ``open``'s: None gives the line ends as ``Path.read_text``
    does (``\\r\\n`` and ``\\r`` as ``\\n``), ``""`` keeps them as written (what the
    ``csv`` module reads: a quoted field's ``\\r\\n`` is the field's own)."""
    with open(path, "rb") as f:
        data = f.read()
    return decode_text(data, newline)
