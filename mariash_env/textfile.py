"""The text of a user's file, as UTF-8: :func:`read_text`.

The project reads its text files (training configs, pipeline recipes, JSON files, the
best-response table's CSV, the play table's records) as UTF-8.  Python's own reader
answers a file in another encoding (a config saved as Latin-1 or UTF-16) with a bare
``UnicodeDecodeError`` at a position in a chunk of the file ("'utf-8' codec can't
decode byte 0xe9 in position 3"); :func:`read_text` names the line, the byte and the
encoding expected, in :class:`NotUtf8Error`, still a ``UnicodeDecodeError`` (and a
``ValueError``) for the readers that catch those.
"""

from __future__ import annotations

import os


class NotUtf8Error(UnicodeDecodeError):
    """A file that is not UTF-8 text (:func:`read_text`); ``line``: the line of the first
    byte that is not UTF-8 (1-based), ``column``: that byte's place in the line (1-based,
    in bytes)."""

    def __init__(self, e: UnicodeDecodeError, line: int, column: int) -> None:
        super().__init__(e.encoding, e.object, e.start, e.end, e.reason)
        self.line = line
        self.column = column

    def __str__(self) -> str:
        bad = bytes(self.object[self.start:self.start + 1])
        return (f"not UTF-8 text (line {self.line}, byte {self.column} of the line: "
                f"{bad!r}): expected a file encoded in UTF-8")


def read_text(path: str | os.PathLike) -> str:
    """The text of the file at ``path``, decoded as UTF-8 with its line ends as
    ``Path.read_text`` gives them (``\\r\\n`` and ``\\r`` as ``\\n``): OSError where it
    cannot be read, :class:`NotUtf8Error` where it is not UTF-8."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        raise NotUtf8Error(e, data.count(b"\n", 0, e.start) + 1, e.start - start + 1) \
            from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
