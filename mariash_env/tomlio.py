"""TOML in: :func:`read` and :func:`loads`, the one reader of the project's TOML files
(training configs, pipeline recipes, the configs their stages name).

They are Python's ``tomllib`` (its backport ``tomli`` before Python 3.11), with TOML
nested deeper than the reader goes (``seed = [[[...1...]]]``, some hundreds of levels:
``tomllib`` recurses once a level) as :class:`~mariash_env.jsonio.NestingError`, a
ValueError as ``tomllib.TOMLDecodeError`` is, where ``tomllib`` raised a RecursionError,
which the readers that give their own error for TOML that is not valid let through as a
traceback.  A file is read as UTF-8 text (:func:`mariash_env.textfile.read_text`).
"""

from __future__ import annotations

import os
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10: the tomli backport
    import tomli as tomllib

from .jsonio import NestingError
from .textfile import read_text

TOMLDecodeError = tomllib.TOMLDecodeError
"""TOML that is not valid (a ValueError; ``tomllib``'s own)."""


def loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``: :data:`TOMLDecodeError` where it is not valid TOML,
    :class:`~mariash_env.jsonio.NestingError` (a ValueError too) where it is nested
    deeper than the reader goes."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise NestingError("arrays and inline tables") from None


def read(path: str | os.PathLike) -> dict[str, Any]:
    """The TOML document of the UTF-8 file at ``path`` (:func:`loads`): OSError where it
    cannot be read, :class:`~mariash_env.textfile.NotUtf8Error` (a UnicodeDecodeError
    naming the line and the byte), :data:`TOMLDecodeError` and
    :class:`~mariash_env.jsonio.NestingError` (ValueErrors) where it is not TOML we
    read."""
    return loads(read_text(path))
