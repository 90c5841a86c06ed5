"""Config options: the :func:`opt` field declaration, :class:`ConfigError` and the value
checks (:func:`check_value`, :func:`check_fields`).

A leaf module (the standard library only), so that a training method can declare its
option dataclass with :func:`opt` without importing :mod:`training.config`, which itself
looks the methods up.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import field, fields
from typing import Any

FEATURES = ("knowledge",)
"""The derived inputs a network may take (``network.features``); built by
:mod:`training.features`, which imports torch, so the list lives in this leaf module, read
by the torch-free :mod:`training.config` and by :mod:`training.networks` (no import cycle)."""

__all__ = ["FEATURES", "ConfigError", "opt", "check_value", "check_fields", "convert_value"]


class ConfigError(ValueError):
    """An invalid configuration file or value (unknown key, wrong type, bad range)."""


def opt(default: Any, doc: str, *, factory: Any = None, ge: float | None = None,
        gt: float | None = None, le: float | None = None, choices: tuple | None = None,
        item: type | None = None, nonempty: bool = False) -> Any:
    """A dataclass field with its documentation and its accepted values in the metadata.

    ``ge``/``gt``/``le`` bound a number (or, with ``item``, every item of a list of
    ``item``s), ``choices`` lists the accepted strings, ``nonempty`` refuses an empty list.
    :func:`check_fields` checks every field against them (numbers must also be finite).
    """
    meta = {"doc": doc, "ge": ge, "gt": gt, "le": le, "choices": choices, "item": item,
            "nonempty": nonempty}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)



def _default(f: dataclasses.Field) -> Any:
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_finite(v: Any) -> bool:
    try:
        return _is_number(v) and math.isfinite(v)
    except OverflowError:  # an integer too large for a float
        return False


def _accepted(kind: str, meta: dict[str, Any]) -> str:
    """``"an integer >= 1"``, ``"a finite number in [0, 1]"``, ... from a field's metadata."""
    ge, gt, le = meta.get("ge"), meta.get("gt"), meta.get("le")
    if ge is not None and le is not None:
        return f"{kind} in [{ge}, {le}]"
    bounds = [f">= {ge}" if ge is not None else "", f"> {gt}" if gt is not None else "",
              f"<= {le}" if le is not None else ""]
    return " ".join([kind, *[b for b in bounds if b]])


def _in_bounds(v: float, meta: dict[str, Any]) -> bool:
    ge, gt, le = meta.get("ge"), meta.get("gt"), meta.get("le")
    return ((ge is None or v >= ge) and (gt is None or v > gt) and (le is None or v <= le))


def check_value(value: Any, f: dataclasses.Field, key: str, source: str = "config") -> None:
    """Check ``value`` against field ``f``: its default's type and the bounds, choices and
    item type declared with :func:`opt`; raise :class:`ConfigError` naming ``key``, the
    value and what is accepted."""
    meta = f.metadata
    default = _default(f)
    item = meta.get("item")
    expected = None
    if isinstance(default, bool):
        ok, expected = isinstance(value, bool), "true or false"
    elif isinstance(default, int):
        ok, expected = (_is_int(value) and _in_bounds(value, meta),
                        _accepted("an integer", meta))
    elif isinstance(default, float):
        ok = _is_finite(value) and _in_bounds(value, meta)
        expected = _accepted("a finite number", meta)
    elif isinstance(default, str):
        choices = meta.get("choices")
        ok = isinstance(value, str) and (choices is None or value in choices)
        expected = f"one of {list(choices)}" if choices else "a string"
    elif isinstance(default, list):
        kind = {int: "integers", str: "strings", float: "finite numbers"}.get(item, "values")
        choices = meta.get("choices")
        good = {int: _is_int,
                str: lambda v: isinstance(v, str) and (choices is None or v in choices),
                float: _is_finite}.get(item, lambda v: True)
        ok = (isinstance(value, list) and (len(value) > 0 or not meta.get("nonempty"))
              and all(good(v) and (item is str or _in_bounds(v, meta)) for v in value))
        expected = (f"a {'non-empty ' if meta.get('nonempty') else ''}list of "
                    f"{_accepted(kind, meta) if item is not str else kind}"
                    f"{f' from {list(choices)}' if item is str and choices else ''}")
    elif isinstance(default, dict):
        ok, expected = isinstance(value, dict), "a table"
    else:  # pragma: no cover - every option has a typed default
        return
    if not ok:
        raise ConfigError(f"{source}: {key} = {value!r} is not accepted: expected {expected}")


def check_fields(obj: Any, source: str = "config", section: str = "") -> None:
    """:func:`check_value` on every option of the dataclass ``obj`` (a config section)."""
    for f in fields(obj):
        if dataclasses.is_dataclass(_default(f)) or f.name == "algo":
            continue  # a section: checked on its own
        check_value(getattr(obj, f.name), f, f"{section}.{f.name}" if section else f.name,
                    source)


def convert_value(value: Any, f: dataclasses.Field) -> Any:
    """An integer given for a float option becomes a float (TOML ``lr = 1``); checked
    before, so it fits."""
    return float(value) if isinstance(_default(f), float) and _is_int(value) else value
