"""Research tools over the arena and the engines (issue #34): data sets of played deals
(:mod:`mariash_env.research.dataset`, ``mariash dataset``) and one rating per robot and
game (:mod:`mariash_env.research.ladder`, ``mariash ladder``).  Imported on demand: the
environment package never imports this one (it needs pyarrow and matplotlib)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence

from ..cli import closed_stdout, fail, path_error
from ..extras import MissingExtraError


def folder_name(s: str) -> str:
    """``s`` in a folder's name: its letters, digits and ``._-``, ``_`` for every other
    character (a ladder pair's robots, a best-response run's robot)."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in s)


class PartialRunError(RuntimeError):
    """A run stopped part-way (a robot or the disk failed): what finished is kept on disk,
    and the same command resumes from there."""


def run_command(body: Callable[[], int], kept: str) -> int:
    """``body()``, its errors as the command line reports them: bad input (ValueError), a
    path that cannot be read or written (OSError: ``cannot read PATH: reason``, the verb
    the failed code gave, :func:`~mariash_env.cli.doing`) and a missing optional dependency
    (:class:`~mariash_env.extras.MissingExtraError`, naming its extra) one ``error:`` line
    and exit status 2; a
    :class:`PartialRunError` one line saying where the finished part is (``kept``),
    status 1; Ctrl-C or SIGTERM (the workers stopped, :mod:`mariash_env.pools`) the same
    line, status 130."""
    try:
        return body()
    except (ValueError, MissingExtraError) as e:
        fail(e)
    except OSError as e:  # what failed on which path: path_error, cli.doing
        if closed_stdout(e):
            raise  # stdout's reader gone (| head): quiet_on_closed_pipe's, not a path
        fail(path_error(e))
    except PartialRunError as e:
        print(f"error: {e}; {kept}: the same command resumes", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"error: interrupted; {kept}: the same command resumes", file=sys.stderr)
        return 130


def parse_page_args(ap: argparse.ArgumentParser, argv: Sequence[str] | None, prog: str,
                    note: str = "a paragraph for the page"
                    ) -> tuple[argparse.Namespace, str]:
    """The options every tool that writes a page shares (``--note``, ``--no-plot``,
    ``--quiet``) added to ``ap``, the parsed arguments and the command line that made the
    page (written on it)."""
    ap.add_argument("--note", default="", help=note)
    ap.add_argument("--no-plot", action="store_true",
                    help="write no chart (the .png; without matplotlib it is left out with "
                         "a note)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    given = sys.argv[1:] if argv is None else argv
    return args, " ".join([prog, *map(shlex.quote, given)])

