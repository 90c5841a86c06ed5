"""Which of volený's legal decisions a searching robot (:class:`~mariash_env.robots.PIMCRobot`)
tries: the kind's ``search_candidates``.  At the trump choice (RULES.md §3) one card per
suit, z lidu and the table robot's choice -- which card of a suit becomes the trump card
matters little; every other decision: every legal action."""

from __future__ import annotations

from ...core import state as S
from ...core.tricks import strength_py as strength
from . import actions as A


def lowest_per_suit(legal: list[int]) -> dict[int, int]:
    """Suit -> the trump action of its lowest legal card (trump order)."""
    low: dict[int, int] = {}
    for a in legal:
        if a == A.TRUMP_BLIND:
            continue
        c = a - A.TRUMP0
        s = c >> 3
        if s not in low or strength(c, s) < strength(low[s] - A.TRUMP0, s):
            low[s] = a
    return low


def trump_candidates(legal: list[int], fallback: int) -> list[int]:
    """Trump choice: one card per suit (its lowest, trump order), z lidu, and the table
    robot's choice -- which card of a suit becomes the trump card matters little."""
    out = list(lowest_per_suit(legal).values())
    for a in (A.TRUMP_BLIND, fallback):
        if a not in out and a in legal:
            out.append(a)
    return out


def candidates(phase: int, legal: list[int], fallback: int) -> list[int]:
    """The decisions worth searching in ``phase`` of ``legal`` (``fallback``: the table
    robot's choice)."""
    return trump_candidates(legal, fallback) if phase == S.PH_TRUMP else legal
