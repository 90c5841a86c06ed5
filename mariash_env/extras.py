"""Optional dependencies: the extra of ``pyproject.toml`` that brings each, and the one
error a missing one raises.

The core install (``pip install mariash``) plays every game, its robots and the arena.
What else a feature needs comes with an extra: the play table and the robot service
``play`` (starlette, uvicorn, rich), OpenSpiel ``openspiel``, ``torchrl_env``
``examples`` (torch, tensordict, torchrl), the plots and data sets ``research``
(matplotlib, pyarrow), the Ray backend ``ray``.  A feature whose dependency is missing
raises :class:`MissingExtraError` (an ``ImportError``) naming the extra to install
(:func:`install_hint`), never a bare ``ModuleNotFoundError``; the command-line tools
print it as one ``error: …`` line and exit with status 2.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["MissingExtraError", "install_hint", "needs", "require", "have", "pyplot", "plot_note",
           "plot_or_note"]


# import names that are not their distribution's name
DISTRIBUTIONS = {"pyspiel": "open_spiel"}


def install_hint(extra: str) -> str:
    """How to install ``extra``: the released package's form, then a checkout's."""
    return f"pip install 'mariash[{extra}]' (in a checkout: pip install -e '.[{extra}]')"


class MissingExtraError(ImportError):
    """An optional dependency that is not installed; the message names the extra that
    brings it (``.extra``) and how to install it."""

    def __init__(self, what: str, module: str, extra: str) -> None:
        dist = DISTRIBUTIONS.get(module, module)
        shown = module if dist == module else f"{module} (the {dist} package)"
        super().__init__(f"{what} needs {shown}, which is not installed: "
                         f"{install_hint(extra)}", name=module)
        self.extra = extra


@contextmanager
def needs(extra: str, what: str, *modules: str) -> Iterator[None]:
    """Turn the ``ModuleNotFoundError`` of one of the top-level ``modules`` (not installed)
    raised inside the block into a :class:`MissingExtraError` naming ``extra``; ``what``
    says what needs it.  A missing submodule of an installed package (another version)
    and every other error pass unchanged."""
    try:
        yield
    except ModuleNotFoundError as e:
        top = (e.name or "").partition(".")[0]
        if top not in modules or not _absent(top):
            raise
        raise MissingExtraError(what, top, extra) from e


def _absent(top: str) -> bool:
    """Whether the top-level module ``top`` is not installed (or blocked: ``None`` in
    ``sys.modules``)."""
    if top in sys.modules:
        return sys.modules[top] is None
    try:
        return importlib.util.find_spec(top) is None
    except (ImportError, ValueError):
        return True


def require(extra: str, what: str, *modules: str) -> list[Any]:
    """Import ``modules`` (dotted names allowed) and return them, or raise
    :class:`MissingExtraError` naming ``extra`` for the first that is not installed."""
    tops = [m.partition(".")[0] for m in modules]
    with needs(extra, what, *tops):
        for top in tops:  # first: a missing package, not its submodule, is what is named
            importlib.import_module(top)
        return [importlib.import_module(m) for m in modules]


def have(*modules: str) -> bool:
    """Whether every one of ``modules`` imports (installed and not blocked)."""
    try:
        for m in modules:
            importlib.import_module(m)
    except ImportError:
        return False
    return True


def pyplot(what: str = "the plot") -> Any:
    """``matplotlib.pyplot`` on the ``Agg`` backend (files, no window), or
    :class:`MissingExtraError` naming the ``research`` extra."""
    (matplotlib,) = require("research", what, "matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_note(what: str) -> str:
    """The note of a command that skips its plot ``what`` for want of matplotlib."""
    return (f"note: no {what}, the rest is written: matplotlib is not installed; "
            f"{install_hint('research')}, or --no-plot")


def plot_or_note(args: Any, what: str) -> None:
    """Before the work: without matplotlib, a command's plot ``what`` is skipped
    (``args.no_plot`` set) with one note on stderr naming the extra that brings it; the
    rest of its results is written."""
    if not args.no_plot and not have("matplotlib"):
        print(plot_note(what), file=sys.stderr)
        args.no_plot = True
