"""Runs that moved: the paths a run stored, read at the run's new place.

A checkpoint keeps its config and a label set its settings, and both name other files by
absolute path (a pipeline's ``dmc.label_data = RUN/labels``, ``init``, a DAgger set's
``behaviour = RUN/dagger/student.onnx``).  A run copied to another machine or folder
would refuse to resume: its paths differ from the ones the moved recipe gives.  Each run
records where it was written (its folder, resolved); on resume the moved part of the
path is found by stripping the trailing folder names the old and the new place share
(``/a/runs/x/train`` -> ``/b/x/train``: ``/a/runs`` moved to ``/b``), and a stored path
under the old root counts as the same path under the new one.  Nothing else is eased:
a path that differs otherwise is still another setting.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

Roots = tuple[PurePath, PurePath]


def moved_roots(was: str | Path | None, now: str | Path) -> Roots | None:
    """``(old root, new root)`` of a run written at ``was`` and found at ``now``; None
    when it did not move (or ``was`` is unknown: a run written before it was recorded)."""
    if not was:
        return None
    a, b = PurePath(was).parts, Path(now).resolve().parts
    if a == b:
        return None
    k = 0  # the trailing folder names both share: the part of the tree that moved along
    # (the old root keeps one folder below the filesystem's root: "/" is no run's tree)
    while k < min(len(a) - 2, len(b) - 1) and a[-1 - k] == b[-1 - k]:
        k += 1
    return PurePath(*a[:len(a) - k]), PurePath(*b[:len(b) - k])


def relocate(value: Any, roots: Roots | None, existing: bool = False) -> Any:
    """``value`` with every string that is an absolute path at or under the old root
    rewritten under the new one (lists and dicts walked); other values unchanged.  With
    ``existing``, only where the new path exists (a path outside the moved tree that
    merely shares the old root stays)."""
    if roots is None:
        return value
    if isinstance(value, dict):
        return {k: relocate(v, roots, existing) for k, v in value.items()}
    if isinstance(value, list):
        return [relocate(v, roots, existing) for v in value]
    if isinstance(value, str):
        old, new = roots
        # a robot spec names its file after a scheme: "onnx:/run/dagger/student.onnx"
        scheme, sep, rest = value.partition(":") if ":" in value else ("", "", value)
        if not PurePath(rest).is_absolute():
            scheme, sep, rest = "", "", value
        p = PurePath(rest)
        if p.is_absolute() and (p == old or old in p.parents):
            there = new / p.relative_to(old)
            if not existing or Path(there).exists():
                return f"{scheme}{sep}{there}"
    return value


def same_after_move(saved: Any, now: Any, roots: Roots | None) -> bool:
    """Whether a stored value equals today's, reading its paths at the moved place."""
    return saved == now or (roots is not None and relocate(saved, roots) == now)
