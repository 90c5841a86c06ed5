"""The integration examples under examples/ run for a few seconds (their packages are the
``examples`` extra; a test is skipped, with the reason, only when its package is missing).
examples/rllib_ppo.py is a recipe outside CI (ray[rllib] pins another gymnasium); its
wrappers are tested in test_wrappers.py."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_docs_snippets import BLOCKS, IN_TIANSHOU_RUNNER

ROOT = Path(__file__).resolve().parents[1]


def _run(script: str, *args: str, timeout: float = 300,
         tmp: Path | None = None) -> subprocess.CompletedProcess:
    """Run an example; with ``tmp``, as the process's temporary directory (TMPDIR)."""
    env = None if tmp is None else {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.run(
        [sys.executable, "-W", "ignore", f"examples/{script}", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env,
    )


def _left_in(tmp: Path) -> list[str]:
    """What a run left in its temporary directory, but torch's per-user compile cache
    (``torchinductor_<user>``, made at import and meant to last)."""
    return sorted(p.name for p in tmp.iterdir() if not p.name.startswith("torchinductor_"))


def _need(*modules: str) -> None:
    for m in modules:
        if importlib.util.find_spec(m) is None:
            pytest.skip(f"{m} is not installed (pip install -e '.[examples]')")


def test_sb3_maskable_ppo_runs(tmp_path):
    _need("sb3_contrib", "stable_baselines3")
    p = _run("sb3_maskable_ppo.py", "--seconds", "2", "--eval", "2", tmp=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "trained " in p.stdout and "groše per deal over 2 deals" in p.stdout
    # SB3's default logger left an empty SB3-<time> folder in the temporary directory
    assert _left_in(tmp_path) == []


def test_torchrl_ppo_runs(tmp_path):
    _need("torchrl", "tensordict")
    # bounded by --iterations, not by the clock: the count is the same on any machine
    p = _run("torchrl_ppo.py", "--seconds", "300", "--iterations", "2", "--frames", "64",
             tmp=tmp_path)
    assert p.returncode == 0, p.stderr
    assert _left_in(tmp_path) == []
    assert "iteration 2: 64 steps" in p.stdout and "trained 2 PPO iterations" in p.stdout


# Runs examples (and the docs' Tianshou blocks, test_docs_snippets.IN_TIANSHOU_RUNNER) in
# children forked from one interpreter that imported Tianshou and built a replay buffer
# and an algorithm once: Tianshou compiles its numba kernels (uncached) in every process
# that builds them, 6-10 s of each run of tianshou_dqn.py, and imports in 4 s.  Each line
# on stdin is [script, argv, TMPDIR, working directory or null]; the child runs the
# script as ``python -W ignore`` would (tests/forking.py: its stdout and stderr to files;
# here also a temporary folder of its own, and a worker process it leaves fails it), and
# the answer is one line [status, stdout, stderr] (JSON).
RUNNER = r"""
import json, multiprocessing, os, signal, sys, tempfile
from gymnasium.spaces import Discrete
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import VectorReplayBuffer
import mariash_env.single_agent  # noqa: F401
from tests.forking import run_forked

VectorReplayBuffer(2, 2)  # compiles the buffers' kernels
MARLRandomDiscreteMaskedOffPolicyAlgorithm(Discrete(2))  # and the algorithms'


def own_tmp(tmp, cwd):
    def before():
        signal.alarm(300)  # the timeout of a run: SIGALRM ends the child
        os.environ["TMPDIR"], tempfile.tempdir = tmp, None
        if cwd is not None:
            os.chdir(cwd)
    return before


def no_workers_left(code):
    if multiprocessing.active_children():  # a python of its own would wait for them
        print(f"worker processes left: {multiprocessing.active_children()}",
              file=sys.stderr)
        return code or 1
    return code


for line in sys.stdin:
    script, argv, tmp, cwd = json.loads(line)
    answer = run_forked([script, *argv], own_tmp(tmp, cwd), no_workers_left)
    print(json.dumps(answer), flush=True)
os._exit(0)  # without the second it takes to tear torch down
"""


@pytest.fixture(scope="module")
def forked(tmp_path_factory):
    """``run(script, *args, tmp=...)`` as :func:`_run`, in a child of :data:`RUNNER`
    (its own temporary folder must stay empty too); ``cwd=``: a script (an absolute path)
    run in that working directory instead of an example."""
    _need("tianshou")
    if not hasattr(os, "fork"):  # pragma: no cover - Windows: a process per run
        def fresh(script: str, *args: str, tmp: Path, cwd: Path | None = None):
            if cwd is None:
                return _run(script, *args, tmp=tmp)
            return subprocess.run([sys.executable, script, *args], cwd=cwd,
                                  capture_output=True, text=True, timeout=300,
                                  env={**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT)})

        yield fresh
        return
    own = tmp_path_factory.mktemp("runner")
    runner = subprocess.Popen([sys.executable, "-W", "ignore", "-c", RUNNER], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "TMPDIR": str(own)})

    def run(script: str, *args: str, tmp: Path,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        path = f"examples/{script}" if cwd is None else script
        runner.stdin.write(json.dumps([path, list(args), str(tmp),
                                       None if cwd is None else str(cwd)]) + "\n")
        runner.stdin.flush()
        line = runner.stdout.readline()
        assert line, f"the runner died: status {runner.wait()}"
        status, out, err = json.loads(line)
        return subprocess.CompletedProcess([script, *args], status, out, err)

    try:
        yield run
    finally:
        runner.stdin.close()
        try:
            runner.wait(timeout=60)
        except subprocess.TimeoutExpired:  # pragma: no cover
            runner.kill()
            runner.wait()
    assert runner.returncode == 0 and _left_in(own) == []  # nothing of the runner's own


@pytest.mark.parametrize("vector", [[], ["--subproc"]], ids=["dummy", "subproc"])
def test_tianshou_dqn_runs(tmp_path, vector, forked):
    # Any unmasked action would raise IllegalActionError in the env and fail the run.
    # SubprocVectorEnv: the warm-up was collect(random=True), action_space.sample() of a
    # plain Discrete copy of the space, illegal in the workers (an RL audit); it is
    # Tianshou's masked random policy now.  One epoch (--epochs, not the clock): the 256
    # warm-up decisions and 64 of training in the buffer.
    p = forked("tianshou_dqn.py", "--epochs", "1", "--steps", "64", "--eval", "2", *vector,
               tmp=tmp_path)
    assert p.returncode == 0, p.stderr
    assert _left_in(tmp_path) == []
    assert "320 decisions in the replay buffer" in p.stdout and "over 2 deals" in p.stdout


@pytest.mark.parametrize("name", sorted(IN_TIANSHOU_RUNNER))
def test_tianshou_snippets_run(name, tmp_path, forked):
    """The docs' Tianshou blocks run as written (test_docs_snippets, whose fresh process
    per block they would pay Tianshou's import and kernels in): in an empty working
    directory, and leaving no worker process or temporary file."""
    code = dict(BLOCKS)[name]
    (tmp_path / "cwd").mkdir()
    (tmp_path / "tmp").mkdir()
    script = tmp_path / "snippet.py"
    script.write_text(code, encoding="utf-8")
    p = forked(str(script), tmp=tmp_path / "tmp", cwd=tmp_path / "cwd")
    assert p.returncode == 0, f"{name} does not run as written:\n{p.stderr[-3000:]}"
    assert _left_in(tmp_path / "tmp") == []


@pytest.mark.parametrize(
    ("script", "args"),
    [("sb3_maskable_ppo.py", ["--seconds", "0"]), ("torchrl_ppo.py", ["--frames", "3"]),
     ("tianshou_dqn.py", ["--eval", "0"]),
     ("tianshou_dqn.py", ["--opponents", "nope"]), ("sb3_maskable_ppo.py", ["--opponents", "x"]),
     ("rllib_ppo.py", ["--iterations", "0"]), ("torchrl_vector_ppo.py", ["--iterations", "-1"])],
)
def test_example_bad_arguments_give_one_error_line(script, args):
    p = _run(script, *args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.startswith("error: ") and "Traceback" not in p.stderr


def test_tianshou_pettingzoo_env_buffers_whole_parties():
    # Issue 13: a nested info present only on some steps broke Tianshou's buffer (NaNs).
    _need("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm as Rand
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    import mariash_env

    def make() -> PettingZooEnv:
        return PettingZooEnv(mariash_env.env(deals=2, stack_infos=True))

    probe = make()
    policy = MultiAgentPolicy({a: Rand(probe.action_space).policy for a in probe.agents})
    buf = VectorReplayBuffer(5000, 2)
    collector = Collector(policy, DummyVectorEnv([make, make]), buf)
    collector.reset()
    stats = collector.collect(n_episode=4)
    assert stats.n_collected_episodes >= 4 and len(buf) == stats.n_collected_steps
    ended = buf.info.settlement_deal[: len(buf)]
    assert set(ended.tolist()) == {-1, 0, 1}  # both deals of a partie end in the buffer
