"""The first legal action of an action mask and how many there are, compiled: the table
robots' fallback and their "one legal action, no choice" (volený's and licitovaný's
decisions, the search's compiled playouts)."""

from __future__ import annotations

from ..core.jit import njit_generic


@njit_generic
def first_legal(mask, n):
    """``(first, count)`` over the first ``n`` slots of the action mask ``mask``: the
    lowest legal action (-1 if none) and the number of legal actions."""
    first = -1
    count = 0
    for i in range(n):
        if mask[i]:
            count += 1
            if first < 0:
                first = i
    return first, count


__all__ = ["first_legal"]
