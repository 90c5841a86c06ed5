"""One place that decides how the core is compiled."""

from __future__ import annotations

import numba

njit = numba.njit(cache=True, nogil=True)
