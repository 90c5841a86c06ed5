"""The batched engines' resets, whole and partial, and the front ends' partial resets.

    .venv/bin/python scripts/bench_reset.py [--envs 4096] [--restart 10] [--repeats 7]
        [--no-torchrl]

For volený and lízaný (``VectorEnv(rules=...)``), the median time of

* a whole ``reset()`` (the seeds after the last reset's) and ``reset(seed=s)``;
* ``reset_rows(rows)`` of ``--restart`` games (other rows each time);

and, over volený, the front ends' partial resets of ``--restart`` games after a step:
``GymVectorEnv.reset(options={"reset_mask": mask})`` and the TorchRL env's
``reset(TensorDict({"_reset": mask}))`` (games its last step did not restart), and the
TorchRL reset of games its last step restarted (a ``TransformedEnv``'s
``step_and_maybe_reset``, whose ``"_reset"`` names the finished games): TorchRL's
``reset`` (most of it TorchRL's merge of the output into the tensordict given, a
``torch.where`` over every game) and the env's own part of it (its ``_reset``).  Only the
reset is timed (the steps between two resets are not).  A shared machine makes single figures
noisy: compare medians of runs made side by side.
"""

from __future__ import annotations

import statistics
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the checkout this script is in, not an installed copy
    sys.path.insert(0, str(ROOT))


def _median_ms(run, repeats: int, before=None) -> float:
    """The median of ``repeats`` timings of ``run()`` in ms (``before()`` untimed first)."""
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return 1e3 * statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser, positive

    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=positive(int), default=4096,
                    help="games of each batched env (default 4096)")
    ap.add_argument("--restart", type=positive(int), default=10,
                    help="games a partial reset restarts")
    ap.add_argument("--repeats", type=positive(int), default=7,
                    help="timings of each reset, of which the median is printed (default 7)")
    ap.add_argument("--no-torchrl", action="store_true", help="leave out the TorchRL env")
    args = ap.parse_args(argv)
    if args.restart > args.envs:
        ap.error(f"--restart {args.restart}: expected at most --envs ({args.envs})")
    from mariash_env.gym_vector import GymVectorEnv
    from mariash_env.vector import VectorEnv, random_legal_actions

    n, k, reps = args.envs, args.restart, args.repeats
    rng = np.random.default_rng(0)

    def some_rows() -> np.ndarray:
        return np.sort(rng.choice(n, k, replace=False))

    print(f"{n} games, partial resets of {k}, median of {reps} (ms)")
    state: dict = {}
    for rules in ("voleny", "lizany"):
        venv = VectorEnv(n, seed=1, rules=rules)
        venv.reset()  # compiled and warm
        venv.reset_rows(some_rows())
        whole = _median_ms(venv.reset, reps)
        seeded = _median_ms(partial(venv.reset, seed=12345), reps)
        part = _median_ms(lambda v=venv: v.reset_rows(state["rows"]), reps,
                          before=lambda: state.update(rows=some_rows()))
        print(f"  VectorEnv({rules}): reset() {whole:.2f}, reset(seed=s) {seeded:.2f}, "
              f"reset_rows({k}) {part:.3f}")

    gym = GymVectorEnv(n, seed=1)
    _, infos = gym.reset()

    def gym_step() -> None:
        nonlocal infos
        _, _, _, _, infos = gym.step(random_legal_actions(infos["action_mask"], rng))
        mask = np.zeros(n, dtype=np.bool_)
        mask[some_rows()] = True
        state["mask"] = mask

    def gym_reset() -> None:
        nonlocal infos
        _, infos = gym.reset(options={"reset_mask": state["mask"]})

    gym_step()
    gym_reset()
    t = _median_ms(gym_reset, reps, before=gym_step)
    print(f"  GymVectorEnv(voleny): reset(options={{'reset_mask': {k} games}}) {t:.3f}")

    if args.no_torchrl:
        return 0
    import torch
    from tensordict import TensorDict
    from torchrl.envs.utils import step_mdp

    from mariash_env.torchrl_env import torchrl_env

    torch.set_num_threads(1)
    env = torchrl_env(n, seed=1, deals=1)
    td = env.reset()

    def trl_step(finished: bool) -> None:
        """A step; then the "_reset" of ``k`` games, or of the games it finished."""
        nonlocal td
        out = env.step(env.rand_action(td))
        td = step_mdp(out)
        if finished:
            mask = out["next", "done"].clone()
        else:
            mask = torch.zeros(n, 1, dtype=torch.bool)
            mask[torch.from_numpy(some_rows())] = True
        state["td"] = TensorDict({"_reset": mask}, batch_size=[n])

    def trl_reset() -> None:
        nonlocal td
        td = env.reset(state["td"])

    def trl_own() -> None:  # the env's own part: its _reset, without TorchRL's merge
        env._reset(state["td"])

    trl_step(False)
    trl_reset()
    done: list[int] = []

    def finished() -> None:
        trl_step(True)
        done.append(int(state["td"]["_reset"].sum()))

    for name, run in (("reset", trl_reset), ("its _reset", trl_own)):
        t = _median_ms(run, reps, before=lambda: trl_step(False))
        t_fin = _median_ms(run, reps, before=finished)
        print(f"  torchrl_env(voleny, deals=1), {name}: '_reset' of {k} games {t:.3f}; of "
              f"the games its step finished (median {statistics.median(done):.0f}) "
              f"{t_fin:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
