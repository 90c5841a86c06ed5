"""Standard JSON out of the project: every JSON file, line, HTTP answer and print the
project writes goes through :func:`dumps` or :func:`dump`.

Python's ``json`` writes a float that is not finite as the bare tokens ``NaN``,
``Infinity`` and ``-Infinity``, which are not JSON (RFC 8259): JavaScript's
``JSON.parse`` refuses the file, jq 1.6 reads ``null``, and only Python reads the number
back.  Here such a value is written as ``null`` (a one-deal run's interval, a held-out
loss of no held-out data: no value), and a reader that meant a number takes it back as
NaN with :func:`number`.

JSON in from a request: :func:`loads` refuses an object that names a key twice, which
Python's ``json`` reads as the last value given, silently (RFC 8259 §4: the names "SHOULD
be unique", and readers differ on which value they keep); the robot service and the play
table read their request bodies with it.
"""

from __future__ import annotations

import json
import math
from typing import IO, Any


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
    """A JSON object that names ``key`` twice (:func:`loads`)."""

    def __init__(self, key: str) -> None:
        shown = repr(key) if len(key) <= 40 else repr(key[:37]) + "..."
        super().__init__(f"the key {shown} is given twice in one object")
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's ``(key, value)`` pairs as a dict; DuplicateKeyError for a key given
    twice."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKeyError(key)
        obj[key] = value
    return obj


def loads(text: str | bytes, **kw: Any) -> Any:
    """``json.loads(text, **kw)`` refusing an object, at any depth, that names a key
    twice: :class:`DuplicateKeyError` (a ValueError) naming the key."""
    return json.loads(text, object_pairs_hook=_unique_keys, **kw)


def number(x: Any) -> float:
    """A number read back from what :func:`dumps` wrote: ``null`` (None) is the NaN that
    was written as it."""
    return math.nan if x is None else float(x)
