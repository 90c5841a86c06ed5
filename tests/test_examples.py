"""The integration examples under examples/ run for a few seconds (their packages are the
``examples`` extra; a test is skipped, with the reason, only when its package is missing).
examples/rllib_ppo.py is a recipe outside CI (ray[rllib] pins another gymnasium); its
wrappers are tested in test_wrappers.py."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("vector", [[], ["--subproc"]], ids=["dummy", "subproc"])
def test_tianshou_dqn_runs(tmp_path, vector):
    # Any unmasked action would raise IllegalActionError in the env and fail the run.
    # SubprocVectorEnv: the warm-up was collect(random=True), action_space.sample() of a
    # plain Discrete copy of the space, illegal in the workers (an RL audit); it is
    # Tianshou's masked random policy now.
    _need("tianshou")
    p = _run("tianshou_dqn.py", "--seconds", "1", "--steps", "64", "--eval", "2", *vector,
             tmp=tmp_path)
    assert p.returncode == 0, p.stderr
    assert _left_in(tmp_path) == []
    assert "decisions in the replay buffer" in p.stdout and "over 2 deals" in p.stdout


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
