"""Worker pools end with the process that started them, SIGTERM included
(:mod:`mariash_env.pools`): the label generator (spawn), the arena (fork) and the pool
itself.  Before, a killed run left its workers computing at full CPU."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
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


def _kill_while_working(args: list[str], workers: int = 2) -> tuple[int, str, set[int]]:
    """Start ``args``, wait for ``workers`` children, SIGTERM it; its exit status, its
    stderr and the children it had.  Children still alive 30 s later fail the test (and
    are killed, so that a failure does not leave them running either)."""
    proc = subprocess.Popen(args, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        kids: set[int] = set()
        deadline = time.monotonic() + 120
        while len(kids) < workers and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.3)
            kids = _children(proc.pid)
        assert len(kids) >= workers, f"the pool never started: {proc.poll()}"
        time.sleep(1.5)  # the workers are inside their task
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    deadline = time.monotonic() + 30
    while any(map(_alive, kids)) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [k for k in kids if _alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert not left, f"workers {left} outlived the killed run:\n{err[-2000:]}"
    return proc.returncode, err, kids


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_killed_pool_takes_its_workers_with_it(method):
    code = ("import time\nfrom mariash_env.pools import worker_pool\n"
            f"with worker_pool(2, {method!r}) as pool:\n"
            "    pool.map(time.sleep, [600, 600])\n")
    rc, err, _ = _kill_while_working([sys.executable, "-c", code])
    assert rc != 0 and "KeyboardInterrupt: signal SIGTERM" in err


def test_a_killed_label_run_stops_its_workers_and_writes_no_shard(tmp_path):
    out = tmp_path / "labels"
    rc, err, _ = _kill_while_working([
        sys.executable, "-m", "training.pimc_labels", "--out", str(out), "--states", "200000",
        "--shard-size", "100000", "--worlds", "2", "--jobs", "2", "--no-progress"])
    assert rc == 130 and "rerun the same command to resume" in err
    assert not list(out.glob("shard_*.npz"))  # a shard is written whole or not at all


# the arena's --jobs is capped at the cores (mariash_env.pools.usable_cores): on one core
# the match plays in its own process, with no workers to take along
TWO_CORES = pytest.mark.skipif(usable_cores() < 2, reason="one core: no worker processes")


@TWO_CORES
def test_a_killed_arena_match_stops_its_workers(tmp_path):
    rc, err, _ = _kill_while_working([
        sys.executable, "-m", "mariash_env.arena", "--robots", "pimc,table", "--deals", "400",
        "--jobs", "2", "--seed", "3", "--out", str(tmp_path / "match")])
    assert rc == 130 and "interrupted; the deals finished so far are in" in err


def test_a_killed_ladder_stops_its_workers(tmp_path):
    rc, err, _ = _kill_while_working([
        sys.executable, "-m", "mariash_env.research.ladder", "--game", "voleny=pimc,table,random",
        "--deals", "400", "--slow-deals", "400", "--jobs", "2", "--matches", str(tmp_path / "m"),
        "--out", str(tmp_path / "ladder.md"), "--quiet"])
    assert rc == 130 and "interrupted;" in err and "the same command resumes" in err


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
