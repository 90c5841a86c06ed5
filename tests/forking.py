"""Programs run in children forked from one interpreter that imported what they share once
(the runners of test_docs_snippets and test_examples, and :class:`Forker`): a fresh
``python`` per program spends seconds importing numpy, numba, torch... and compiling
kernels again.

Fork only from a process that has not yet run a multi-threaded torch (OpenMP) operation:
with GNU OpenMP the child's first parallel operation then waits forever for the parent's
threads."""

from __future__ import annotations

import importlib
import json
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _program(argv: list[str], before: Callable[[], None] | None,
             after: Callable[[int], int] | None) -> None:
    """In a forked child whose stdout and stderr are set: run ``python *argv`` and end the
    child with its exit status (never returns)."""
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
        _program(argv, before, after)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    texts = []
    for f in files:
        f.seek(0)
        texts.append(f.read().decode("utf-8", "replace"))
        f.close()
    return [status, *texts]


# -- a server of forked programs for a test module ----------------------------------------


def serve(preload: list[str], warm: str = "") -> None:
    """The loop of a :class:`Forker`'s process: import ``preload`` and run ``warm``
    (Python: what the programs would each do first, such as loading numba's cached
    kernels; no multi-threaded torch operation, see above), then for each request
    on stdin (one JSON line ``[argv, stdout path, stderr path, prelude, timeout]``) fork a
    child that runs ``python *argv`` as :func:`run_forked` does, its stdin /dev/null, its
    stdout and stderr to the paths (one file when they are the same); answer
    ``{"pid": ...}`` at once and ``{"status": ...}`` when the child has ended.  In the
    child ``prelude`` (Python) runs first, the program's module, when already imported,
    is dropped from ``sys.modules`` (``python -m`` runs it afresh, as ``__main__``), and
    SIGALRM ends it after ``timeout`` seconds."""
    for name in preload:
        importlib.import_module(name)
    exec(warm, {"__name__": "__warm__"})
    for line in sys.stdin:
        argv, out, err, prelude, timeout = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_RDONLY)
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(null, 0)
            os.dup2(fd, 1)
            os.dup2(fd if err == out else
                    os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)

            def before(argv=argv, prelude=prelude, timeout=timeout) -> None:
                signal.alarm(int(timeout))
                if argv[0] == "-m":
                    sys.modules.pop(argv[1], None)
                exec(prelude, {"__name__": "__prelude__"})

            _program(argv, before, None)
        print(json.dumps({"pid": pid}), flush=True)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        print(json.dumps({"status": status}), flush=True)


_SERVE = ("import json, sys\nfrom tests.forking import serve\n"
          "serve(json.loads(sys.argv[1]), sys.argv[2])\n")


class Forker:
    """A Python process (``env`` and working directory ``cwd``) that imported ``preload``
    and ran ``warm`` once and runs programs, one at a time, each in a child forked from it
    (:func:`serve`): what a fresh ``python`` per program would do, without its seconds of
    imports and kernel loading.  :meth:`stderr` and :meth:`close` give what the process
    itself wrote to stderr: what its imports wrote, which a fresh process per program
    would have written too.  ``scratch``: a folder for the programs' output files."""

    def __init__(self, preload: list[str], cwd: Path, env: dict[str, str],
                 scratch: Path, warm: str = "") -> None:
        self.scratch = scratch
        self._n = 0
        self._err = open(scratch / "forker.err", "w+b")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVE, json.dumps(preload), warm],
                                     cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._err, text=True)

    def _answer(self, key: str) -> int:
        line = self.proc.stdout.readline()
        assert line, f"the forker died: status {self.proc.wait()}, {self.stderr()}"
        return json.loads(line)[key]

    def start(self, argv: list[str], out: Path, err: Path | None = None, prelude: str = "",
              timeout: float = 300) -> int:
        """Start ``python *argv`` (its stdout to ``out``, its stderr to ``err`` or
        ``out``); the child's pid.  :meth:`wait` must follow before the next start."""
        request = [argv, str(out), str(err or out), prelude, timeout]
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._answer("pid")

    def wait(self) -> int:
        """The exit status of the child started last (``-N``: killed by signal N)."""
        return self._answer("status")

    def run(self, argv: list[str], prelude: str = "",
            timeout: float = 300) -> subprocess.CompletedProcess:
        """``python *argv`` run to its end, as ``subprocess.run(capture_output=True,
        text=True)`` gives it."""
        self._n += 1
        out, err = (self.scratch / f"{self._n}.{k}" for k in ("out", "err"))
        self.start(argv, out, err, prelude, timeout)
        status = self.wait()
        texts = [p.read_bytes().decode("utf-8", "replace") for p in (out, err)]
        return subprocess.CompletedProcess(argv, status, *texts)

    def stderr(self) -> str:
        """What the process wrote to stderr so far (not its programs: theirs is theirs)."""
        self._err.seek(0)
        return self._err.read().decode("utf-8", "replace")

    def close(self) -> tuple[int, str]:
        """End the process: its exit status and what it wrote to stderr."""
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.proc.kill()
            code = self.proc.wait()
        self.proc.stdout.close()
        err = self.stderr()
        self._err.close()
        return code, err


def stderr_to(path: str, make: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """``make(*args, **kw)`` once this process's stderr (fd 2) appends to ``path``: a
    worker forked by a forkserver writes to the forkserver's stderr (whatever it was when
    the forkserver started), not to the test's, so a test that reads a worker's error
    hands it a file of its own (an env factory of TorchRL's ParallelEnv, say)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.dup2(fd, 2)
    os.close(fd)
    return make(*args, **kw)
