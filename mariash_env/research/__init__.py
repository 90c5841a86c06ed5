"""Research tools over the arena and the engines (issue #34): data sets of played deals
(:mod:`mariash_env.research.dataset`, ``mariash dataset``) and one rating per robot and
game (:mod:`mariash_env.research.ladder`, ``mariash ladder``).  Imported on demand: the
environment package never imports this one (it needs pyarrow and matplotlib)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..cli import fail, path_error


class PartialRunError(RuntimeError):
    """A run stopped part-way (a robot or the disk failed): what finished is kept on disk,
    and the same command resumes from there."""


def run_command(body: Callable[[], int], kept: str) -> int:
    """``body()``, its errors as the command line reports them: bad input (ValueError) and
    unwritable paths (OSError) one ``error:`` line and exit status 2; a
    :class:`PartialRunError` one line saying where the finished part is (``kept``),
    status 1."""
    try:
        return body()
    except ValueError as e:
        fail(e)
    except OSError as e:
        fail(path_error(e, "write"))
    except PartialRunError as e:
        print(f"error: {e}; {kept}: the same command resumes", file=sys.stderr)
        return 1
