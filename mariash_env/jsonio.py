"""Standard JSON out of the project: every JSON file, line, HTTP answer and print the
project writes goes through :func:`dumps` or :func:`dump`.

Python's ``json`` writes a float that is not finite as the bare tokens ``NaN``,
``Infinity`` and ``-Infinity``, which are not JSON (RFC 8259): JavaScript's
``JSON.parse`` refuses the file, jq 1.6 reads ``null``, and only Python reads the number
back.  Here such a value is written as ``null`` (a one-deal run's interval, a held-out
loss of no held-out data: no value), and a reader that meant a number takes it back as
NaN with :func:`number`.

JSON in: :func:`loads` refuses an object that names a key twice, which Python's ``json``
reads as the last value given, silently (RFC 8259 §4: the names "SHOULD be unique", and
readers differ on which value they keep: a record naming ``actions`` twice is ambiguous,
and may have been tampered with).  Every JSON the project reads goes through it: the
robot service's and the play table's request bodies, and the project's own files (game
records, the play table's sessions and summaries, data set manifests, label sets, ladder
and best-response results, pipeline state, configs, a model's metadata) through
:func:`load` and :func:`read`, whose :class:`DuplicateKeyError` names the line too.  JSON
nested deeper than Python's reader goes is a :class:`NestingError`, a ValueError as the
reader's other errors (``json`` raises a RecursionError), so that every reader's own error
for a damaged file names it.

Python literals in (the values of the arena's ``--rule`` and of a robot spec's
arguments): :func:`literal`, ``ast.literal_eval`` refusing a dict that gives a key twice as
:func:`loads` refuses such an object.
"""

from __future__ import annotations

import ast
import io
import json
import math
import os
from json import decoder, scanner
from typing import IO, Any

from .textfile import NotUtf8Error, read_text


def finite(obj: Any) -> Any:
    """``obj`` (dicts, lists and tuples of scalars, nested) with every float that is not
    finite, numpy's too, as None, and numpy scalars and arrays as Python numbers and
    lists; a copy, ``obj`` itself is left as it is."""
    if isinstance(obj, float):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    if hasattr(obj, "dtype") and hasattr(obj, "tolist"):  # a numpy scalar or array
        return finite(obj.tolist())
    return obj


def dumps(obj: Any, **kw: Any) -> str:
    """``json.dumps(obj, **kw)`` as standard JSON: non-finite floats as ``null``
    (:func:`finite`), never the ``NaN``/``Infinity`` tokens."""
    return json.dumps(finite(obj), allow_nan=False, **kw)


def dump(obj: Any, fp: IO[str], **kw: Any) -> None:
    """``json.dump(obj, fp, **kw)`` as standard JSON (:func:`dumps`)."""
    json.dump(finite(obj), fp, allow_nan=False, **kw)


class DuplicateKeyError(ValueError):
    """A JSON object that names ``key`` twice (:func:`loads`; a Python literal's dict, a
    key of any type: :func:`literal`); ``line``: the line where it is named the second
    time (1-based), where known (:func:`load`, :func:`read`)."""

    def __init__(self, key: Any, line: int | None = None) -> None:
        if not isinstance(key, str):
            shown = repr(key) if len(repr(key)) <= 42 else repr(key)[:39] + "..."
        else:
            shown = repr(key) if len(key) <= 40 else repr(key[:37]) + "..."
        at = f", the second time on line {line}" if line is not None else ""
        super().__init__(f"the key {shown} is given twice in one object{at}")
        self.key = key
        self.line = line

    def __reduce__(self) -> tuple[Any, ...]:  # a pickled copy (a worker's) says the same
        return type(self), (self.key, self.line)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's ``(key, value)`` pairs as a dict; DuplicateKeyError for a key given
    twice."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKeyError(key)
        obj[key] = value
    return obj


class NestingError(ValueError):
    """JSON whose arrays and objects are nested deeper than Python's reader goes (its
    recursion limit, some hundreds of levels): :func:`loads` raises it where ``json``
    raised a RecursionError, which the readers that convert a ValueError (JSON that is not
    what they read) into their own error let through as a traceback; TOML's arrays and
    inline tables too (:mod:`mariash_env.tomlio`, ``what`` naming them)."""

    def __init__(self, what: str = "arrays and objects") -> None:
        super().__init__(f"nested too deeply ({what} inside one another, past the depth "
                         "the reader takes)")
        self.what = what

    def __reduce__(self) -> tuple[Any, ...]:  # a pickled copy (a worker's) says the same
        return type(self), (self.what,)


def loads(text: str | bytes, **kw: Any) -> Any:
    """``json.loads(text, **kw)`` refusing an object, at any depth, that names a key
    twice: :class:`DuplicateKeyError` (a ValueError) naming the key.  The line is not
    looked for (a request's body: one line, and no second parse for a client to ask
    for); :func:`load` and :func:`read` name it.  Nested too deeply:
    :class:`NestingError` (a ValueError, not ``json``'s RecursionError).  Bytes (a request's
    body) that are not UTF-8: :class:`~mariash_env.textfile.NotUtf8Error` naming the line
    and the byte (from 1), not the codec's position (from 0)."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, **kw)
    except RecursionError:
        raise NestingError() from None
    except UnicodeDecodeError as e:  # bytes that are not UTF-8: the codec's index from 0
        if e.encoding != "utf-8":
            raise
        raise NotUtf8Error.at(e, "text", universal=False) from None  # json's own lines


class _Found(Exception):
    """The repeated key's place, found (:func:`_repeated_at`)."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at = at


def _repeated_at(text: str, **kw: Any) -> int | None:
    """The index in ``text`` of the second value given to a key that an object of it
    names twice (the first such object to close, the one :func:`loads` refused), found
    by parsing ``text`` again with the standard library's Python scanner, whose objects
    are parsed with their values' places kept; None where it is not found."""

    def parse_object(s_and_end: tuple[str, int], strict: bool, scan_once: Any,
                     object_hook: Any, pairs_hook: Any, memo: Any) -> tuple[Any, int]:
        starts: list[int] = []  # where each value of this object begins

        def scan(s: str, idx: int) -> tuple[Any, int]:
            starts.append(idx)
            return scan_once(s, idx)

        def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
            seen: set[str] = set()
            for (key, _), at in zip(items, starts):
                if key in seen:
                    raise _Found(at)
                seen.add(key)
            return {}

        return decoder.JSONObject(s_and_end, strict, scan, object_hook, pairs, memo)

    dec = json.JSONDecoder(**kw)
    dec.parse_object = parse_object  # type: ignore[assignment]
    dec.scan_once = scanner.py_make_scanner(dec)
    try:
        dec.decode(text)
    except _Found as e:
        return e.at
    except (ValueError, RecursionError):  # the Python scanner nests deeper than the C one
        return None
    return None


def load(fp: IO[str] | IO[bytes], **kw: Any) -> Any:
    """``json.load(fp, **kw)`` refusing an object that names a key twice, as
    :func:`loads`; its :class:`DuplicateKeyError` names the line where the key is named
    the second time (and :class:`NestingError` where it is nested too deeply).  A
    byte-order mark first is not part of the file's JSON, read from a text stream (a file
    saved "UTF-8 with BOM" and opened with ``open(path)``: U+FEFF, which ``json`` refuses)
    as from a binary one (which ``json`` reads without it), as :func:`read` and
    :func:`mariash_env.textfile.read_text` leave it out."""
    text = fp.read()
    if isinstance(text, str) and text.startswith("\ufeff"):
        text = text[1:]
    try:
        return loads(text, **kw)
    except DuplicateKeyError as e:
        if isinstance(text, (bytes, bytearray)):
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        at = _repeated_at(text, **kw)
        # the key's line: the end of what stands before its colon
        line = None if at is None else \
            text[:text.rindex(":", 0, at)].rstrip().count("\n") + 1
        raise DuplicateKeyError(e.key, line) from None


def read(path: str | os.PathLike, **kw: Any) -> Any:
    """The JSON value of the UTF-8 file at ``path`` (:func:`load`): OSError where it
    cannot be read, :class:`~mariash_env.textfile.NotUtf8Error` (a UnicodeDecodeError
    naming the line and the byte), ``json.JSONDecodeError``, :class:`DuplicateKeyError`
    and :class:`NestingError` (ValueErrors) where it is not JSON that says one thing."""
    return load(io.StringIO(read_text(path)), **kw)


def literal(source: str | ast.AST) -> Any:
    """``ast.literal_eval(source)`` (a string, or a parsed expression: a robot spec's
    argument) refusing a dict that gives a key twice (``{'a': 1, 'a': 2}``, or ``1`` and
    ``1.0``: one key of a dict), which it reads as the last value, silently:
    :class:`DuplicateKeyError` naming the key, as :func:`loads` refuses a JSON object
    naming one twice.  ``ast.literal_eval``'s own errors otherwise (ValueError,
    SyntaxError, and RecursionError or MemoryError nested too deeply)."""
    tree = ast.parse(source.lstrip(" \t"), mode="eval") if isinstance(source, str) else source
    value = ast.literal_eval(tree)  # a literal: every key of its dicts is one
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            seen: dict[Any, None] = {}
            for k in node.keys:
                key = ast.literal_eval(k)  # type: ignore[arg-type]
                if key in seen:
                    raise DuplicateKeyError(key)
                seen[key] = None
    return value


def number(x: Any) -> float:
    """A number read back from what :func:`dumps` wrote: ``null`` (None) is the NaN that
    was written as it."""
    return math.nan if x is None else float(x)
