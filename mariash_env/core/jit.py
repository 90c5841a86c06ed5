"""One place that decides how the core is compiled.

Numba's on-disk cache (``cache=True``) does not notice when a *called*
function changes in another module, so a stale cache could run old rules.  On
import we hash the sources of the compiled modules and drop every cached compilation
when that hash changed (only ever during development; a fresh clone compiles
once, then the cache holds).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

_PKG = Path(__file__).resolve().parent.parent


def _refresh_cache() -> None:
    try:
        h = hashlib.sha256()
        for p in sorted(_PKG.rglob("*.py")):
            text = p.read_bytes()
            if b"njit" in text:  # only compiled modules can leave a stale cache
                h.update(str(p.relative_to(_PKG)).encode())
                h.update(text)
        digest = h.hexdigest()
        stamp = _PKG / "core" / "__pycache__" / "sources.sha256"
        if stamp.exists() and stamp.read_text() == digest:
            return
        for f in list(_PKG.rglob("*.nbi")) + list(_PKG.rglob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(digest)
        os.replace(tmp, stamp)
    except OSError:
        pass  # a read-only install: numba falls back to compiling in memory


_refresh_cache()

njit = numba.njit(cache=True, nogil=True)

njit_inline = numba.njit(cache=True, nogil=True, inline="always")
"""For the small per-phase functions: compiled into their caller's IR (no call), so a
dispatch over phases costs what one long chain of branches did."""
