"""Worker pools end with the process that started them, SIGTERM included
(:mod:`mariash_env.pools`): the label generator (spawn), the arena (fork) and the pool
itself.  Before, a killed run left its workers computing at full CPU."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mariash_env.pools import usable_cores

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(),
                                reason="reads a process's children from Linux /proc")


def _children(pid: int) -> set[int]:
    try:
        return set(map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split()))
    except OSError:
        return set()


def _alive(pid: int) -> bool:
    try:  # a zombie has exited; only its parent has not read its status yet
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


# A run that has neither started its pool nor exited after this long is taken as hung.
# No start measured comes near it: the arena's pool started after 3 s on two cores at a
# load average of 4, after 45-89 s in a niced test beside busy loops (load 5-7), after
# 178-229 s when numba compiled the kernels into an empty cache (a fresh checkout, a
# changed kernel source) -- past the 120 s this wait had.
HUNG = 1200


def _kill_while_working(args: list[str], workers: int = 2) -> tuple[int, str, set[int]]:
    """Start ``args``, wait for ``workers`` children, SIGTERM it; its exit status, its
    stderr and the children it had.  The wait is for the pool, however long the run takes
    to start it (a deadline of 120 s failed "the pool never started: None" while the run
    was still compiling its kernels on an empty numba cache); a run that exits first fails
    the test with its exit status and stderr, as does one still without its pool after
    ``HUNG`` s.  Children still alive 30 s after the SIGTERM fail the test (and are killed,
    so that a failure does not leave them running either)."""
    proc = subprocess.Popen(args, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []  # read as it comes: a full pipe would stall the run
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    kids: set[int] = set()
    try:
        start = time.monotonic()
        while len(kids) < workers and proc.poll() is None and \
                time.monotonic() - start < HUNG:
            time.sleep(0.3)
            kids = _children(proc.pid)
        ended = proc.poll()  # None: still running (with its pool, or hung)
        if len(kids) >= workers:
            time.sleep(1.5)  # the workers are inside their task
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 30
    while any(map(_alive, kids)) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [k for k in kids if _alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    reader.join(timeout=60)  # the stderr's end: the run's and its workers' copies closed
    err = "".join(lines)
    if len(kids) < workers:
        how = f"still without it after {HUNG} s, killed" if ended is None else \
            f"exited with {ended}"
        pytest.fail(f"the pool never started: the run {how}, {len(kids)} of {workers} "
                    f"children; its stderr:\n{err[-3000:]}")
    assert not left, f"workers {left} outlived the killed run:\n{err[-2000:]}"
    return proc.returncode, err, kids


def test_a_run_that_ends_before_its_pool_fails_with_its_stderr():
    """What the pool tests report when the run under test exits before its workers start
    (an error, a match over at once): its exit status and why, from its stderr (the
    report was "the pool never started: 1", the run's words lost)."""
    code = "import sys\nsys.exit('no pool: a bad option')"
    with pytest.raises(pytest.fail.Exception, match=r"exited with 1, 0 of 2 children; "
                                                    r"its stderr:\nno pool: a bad option"):
        _kill_while_working([sys.executable, "-c", code])


# the arena's, the label generator's and the ladder's --jobs are capped at the cores
# (mariash_env.pools.process_jobs): on one core the run works in its own process, with no
# workers to take along (its kill test would wait HUNG s for a pool that never starts)
TWO_CORES = pytest.mark.skipif(usable_cores() < 2, reason="one core: no worker processes")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_killed_pool_takes_its_workers_with_it(method):
    code = ("import time\nfrom mariash_env.pools import worker_pool\n"
            f"with worker_pool(2, {method!r}) as pool:\n"
            "    pool.map(time.sleep, [600, 600])\n")
    rc, err, _ = _kill_while_working([sys.executable, "-c", code])
    assert rc != 0 and "KeyboardInterrupt: signal SIGTERM" in err, err[-2000:]


@TWO_CORES
def test_a_killed_label_run_stops_its_workers_and_writes_no_shard(tmp_path):
    out = tmp_path / "labels"
    rc, err, _ = _kill_while_working([
        sys.executable, "-m", "training.pimc_labels", "--out", str(out), "--states", "200000",
        "--shard-size", "100000", "--worlds", "2", "--jobs", "2", "--no-progress"])
    assert rc == 130 and "rerun the same command to resume" in err, err[-2000:]
    assert not list(out.glob("shard_*.npz"))  # a shard is written whole or not at all


@TWO_CORES
def test_a_killed_arena_match_stops_its_workers(tmp_path):
    rc, err, _ = _kill_while_working([
        sys.executable, "-m", "mariash_env.arena", "--robots", "pimc,table", "--deals", "400",
        "--jobs", "2", "--seed", "3", "--out", str(tmp_path / "match")])
    assert rc == 130 and "interrupted; the deals finished so far are in" in err, err[-2000:]


@TWO_CORES
def test_a_killed_ladder_stops_its_workers(tmp_path):
    rc, err, _ = _kill_while_working([
        sys.executable, "-m", "mariash_env.research.ladder", "--game", "voleny=pimc,table,random",
        "--deals", "400", "--slow-deals", "400", "--jobs", "2", "--matches", str(tmp_path / "m"),
        "--out", str(tmp_path / "ladder.md"), "--quiet"])
    assert rc == 130 and "interrupted;" in err and "the same command resumes" in err, \
        err[-2000:]


def test_sigterm_interrupts_restores_a_handler_set_outside_python(monkeypatch):
    """``signal.signal`` answers None for a handler that C code installed (an embedding
    host); the block's end must not fail passing None back, and leaves the default."""
    from mariash_env import pools

    real = signal.signal
    calls = []

    def fake(signum, handler):
        calls.append(handler)
        old = real(signum, handler)
        return None if len(calls) == 1 else old

    before = signal.getsignal(signal.SIGTERM)
    try:
        monkeypatch.setattr(pools.signal, "signal", fake)
        with pools.sigterm_interrupts():
            pass
        assert calls[-1] is signal.SIG_DFL
    finally:
        real(signal.SIGTERM, before)
