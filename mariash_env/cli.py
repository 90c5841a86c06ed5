"""What the command-line tools share: bad input gives one ``error: …`` line, exit status 2.

Besides :class:`ArgumentParser` and :func:`fail`: argparse types for numeric options
(:func:`positive`, :func:`nonnegative`), :func:`check_writable` for an output file checked
before the work that produces it, :func:`path_error` for the one line of an
:class:`OSError` on a path given on the command line (:func:`doing`: what the code that
failed was doing with it), and :func:`quiet_on_closed_pipe`, the ``main`` of a command
line whose reader may leave early (``| head``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import math
import os
import select
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn, ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

# a shell's exit status of a command killed by SIGPIPE (128 + 13), as `yes | head` gives
CLOSED_PIPE_STATUS = 141


class ArgumentParser(argparse.ArgumentParser):
    """``argparse`` with its usage errors as one ``error: …`` line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        fail(message)


def fail(message: object) -> NoReturn:
    """Print ``error: message`` on stderr and exit with status 2 (bad input)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _stdout_gone() -> bool:
    """Whether stdout is a pipe whose reader has gone (``poll`` reports an error on its
    write end); False where it cannot tell (no ``poll``, no file descriptor)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def closed_stdout(e: BaseException) -> bool:
    """Whether ``e`` is stdout's reader gone (a ``BrokenPipeError`` while stdout's pipe is
    closed): a command line's broad handler (``except OSError``, a match that failed)
    raises it again for :func:`quiet_on_closed_pipe`, rather than reporting a failure."""
    return isinstance(e, BrokenPipeError) and _stdout_gone()


def quiet_on_closed_pipe(main: Callable[_P, _R]) -> Callable[_P, _R]:
    """``main`` of a command line that prints a lot, ending quietly when its reader leaves
    early (``python -m mariash_env.demo | head -3``): exit status 141 (a command killed by
    SIGPIPE), where it was a ``BrokenPipeError`` traceback (or, at the interpreter's last
    flush, "Exception ignored ... BrokenPipeError").  Python's recipe (the ``signal``
    module's notes on SIGPIPE): stdout pointed at ``os.devnull``, so that nothing writes
    to the pipe again.  A ``BrokenPipeError`` of anything else (a socket, a worker's
    pipe) is raised as it was."""

    @functools.wraps(main)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            try:
                result = main(*args, **kwargs)
            except SystemExit:  # --help, an error line: what the buffer holds, first
                sys.stdout.flush()
                raise
            sys.stdout.flush()  # here, not at the interpreter's exit
            return result
        except BrokenPipeError as e:
            if not closed_stdout(e):
                raise
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            raise SystemExit(CLOSED_PIPE_STATUS) from None

    run.quiet_on_closed_pipe = True  # type: ignore[attr-defined]
    return run


def _number(kind: type, least: float, strict: bool) -> Callable[[str], int | float]:
    what = "an int" if kind is int else "a number"
    bound = f"> {least:g}" if strict else f">= {least:g}"

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        # nan and inf pass float() but are no count, size or duration
        if value is None or not math.isfinite(value) or not (
                value > least if strict else value >= least):
            raise argparse.ArgumentTypeError(f"expected {what} {bound}, got {text!r}")
        return value

    parse.__name__ = f"{kind.__name__} {bound}"  # argparse names the type in some errors
    return parse


def positive(kind: type = int) -> Callable[[str], int | float]:
    """An argparse ``type``: ``kind`` (int or float) > 0, finite."""
    return _number(kind, 0, strict=True)


def nonnegative(kind: type = int) -> Callable[[str], int | float]:
    """An argparse ``type``: ``kind`` (int or float) >= 0, finite."""
    return _number(kind, 0, strict=False)


# errors that only a write, a rename or a folder made gives (a read never does)
_WRITING_ERRNOS = frozenset({errno.EEXIST, errno.ENOSPC, errno.EROFS, errno.EDQUOT,
                             errno.EFBIG, errno.ENOTEMPTY})


@contextlib.contextmanager
def doing(what: str) -> Iterator[None]:
    """Say what the block does with its paths (``"read"``, ``"write"``): an OSError raised
    in it carries the verb (the innermost block's) for :func:`path_error`, wherever it is
    reported (``mariash_env.research.run_command`` catches every OSError of a command)."""
    try:
        yield
    except OSError as e:
        if getattr(e, "doing", None) is None:
            e.doing = what  # type: ignore[attr-defined]
        raise


def path_error(e: OSError, what: str | None = None) -> str:
    """One line for an OSError on a path: ``cannot <what> PATH: <reason>``.  ``what``: the
    caller's verb, else the one :func:`doing` gave the error, else ``write`` for an error
    only a write gives (a full disk, a file in the way), else ``open``.  An OSError of a
    message of its own (no errno, no file: a missing shipped model,
    :class:`UnwritableError`) is that message."""
    if e.errno is None and e.filename is None and e.args:
        return str(e)
    what = what or getattr(e, "doing", None) or (
        "write" if e.errno in _WRITING_ERRNOS else "open")
    name = e.filename if e.filename is not None else "the file"
    return f"cannot {what} {name}: {e.strerror or e}"


class UnwritableError(OSError):
    """An output file that cannot be written (checked before the work that produces it)."""


def check_writable(path: str | os.PathLike) -> None:
    """Make sure ``path`` can be written (creating its directory), before spending time on
    its content: raise :class:`UnwritableError` naming the path and the reason.  An existing
    file is left as it is (a probe file next to it is created and removed)."""
    try:
        path = Path(path)
        if path.is_dir():
            raise UnwritableError(f"cannot write {path}: it is a directory")
        for anc in path.parents:
            if anc.exists():
                if not anc.is_dir():
                    raise UnwritableError(f"cannot write {path}: {anc} is not a directory")
                break
        if path.exists() and not os.access(path, os.W_OK):
            raise UnwritableError(f"cannot write {path}: permission denied")
        # a probe next to it, as atomic writes need one (its temporary file)
        probe = path.with_name(f".{path.name}.probe.tmp-{os.getpid()}")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(probe, "wb"):
            pass
        probe.unlink()
    except UnwritableError:
        raise
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise UnwritableError(f"cannot write {path}: {reason}") from None


def add_ray_arguments(ap: argparse.ArgumentParser, on_loss: str) -> None:
    """``--address`` and ``--ray-timeout`` of a command that takes ``--backend ray``
    (docs/ray.md); ``on_loss`` says what the command does when a lost actor cannot be
    replaced in time."""
    ap.add_argument("--address", default=None,
                    help="Ray cluster to join with --backend ray ('auto': the one `ray start` "
                         "began here; default: a new local one)")
    ap.add_argument("--ray-timeout", type=float, default=60.0, metavar="SECONDS",
                    help="with --backend ray: how long joining the cluster and replacing a "
                         f"lost actor may take (default 60; then {on_loss}; docs/ray.md)")
