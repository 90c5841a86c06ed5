"""Programs run in children forked from one interpreter that imported what they share once
(the runners of test_docs_snippets and test_examples): a fresh ``python`` per program
spends seconds importing numpy, numba, torch... and compiling kernels again.

Fork only from a process that has not yet run a multi-threaded torch (OpenMP) operation:
with GNU OpenMP the child's first parallel operation then waits forever for the parent's
threads."""

from __future__ import annotations

import os
import runpy
import sys
import tempfile
import traceback
from collections.abc import Callable


def run_forked(argv: list[str], before: Callable[[], None] | None = None,
               after: Callable[[int], int] | None = None) -> list:
    """``[status, stdout, stderr]`` of ``python *argv`` (``-m MODULE ...``:
    runpy.run_module; ``SCRIPT ...``: run_path with its folder first on sys.path), run in
    a child forked from this process, its stdout and stderr to files.  In the child,
    ``before()`` runs first and ``after(code)`` gives the exit status from the program's."""
    files = [tempfile.TemporaryFile() for _ in range(2)]
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.dup2(files[0].fileno(), 1)
        os.dup2(files[1].fileno(), 2)
        code = 0
        try:
            if before is not None:
                before()
            if argv[0] == "-m":
                sys.argv = [argv[1], *argv[2:]]
                runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            else:
                sys.argv = list(argv)
                sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
                runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (e.code is not None)
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            code = 1
        if after is not None:
            try:
                code = after(code)
            except BaseException:
                traceback.print_exc()
                code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    texts = []
    for f in files:
        f.seek(0)
        texts.append(f.read().decode("utf-8", "replace"))
        f.close()
    return [status, *texts]
