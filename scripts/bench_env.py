"""Benchmark: decisions per second of random legal play, ours against the speed anchors.

One run measures, each for ``--seconds`` of wall time after a warm-up (JIT compile
excluded):

* the AEC environment ``mariash_env.env()`` through the standard PettingZoo loop
  (when it is importable);
* the batched engine :class:`mariash_env.vector.VectorEnv` without observations and
  with observations + masks (``--num-envs`` games; with ``--parallel`` also the
  ``prange`` variant);
* the anchors of ``scripts/anchors.py`` (PettingZoo classic card env, OpenSpiel skat
  with and without observation tensors);

and prints a table of decisions/s with the ratio of each row to each anchor, the
compile time of a first import (cold numba cache) and of a warm one, and the bytes of
state per game.  A *decision* is one action chosen by a player.  The batched engine's
random actions are drawn by a compiled helper (``random_legal_actions``), so the
figure is the engine's, not Python's; the share of time spent drawing them is shown.

    python scripts/bench_env.py [--seconds 3] [--num-envs 4096] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from scripts import anchors  # noqa: E402

TARGET_NO_OBS = 2_000_000
TARGET_OBS = 500_000


def bench_aec(seconds: float, seed: int = 0) -> tuple[str, float] | None:
    """Random legal play through ``mariash_env.env()`` with the standard AEC loop."""
    try:
        import mariash_env

        make = mariash_env.env
    except (ImportError, AttributeError):
        return None
    env = make()
    anchors.aec_episode(env, np.random.default_rng(seed), 10**6)  # warm-up: compile
    rate = anchors.aec_rate(env, seconds, seed)
    env.close()
    return "mariash_env.env() AEC", rate


def bench_vector(seconds: float, num_envs: int, observations: bool, parallel: bool = False,
                 seed: int = 0) -> tuple[str, float, float]:
    """Random legal play of ``num_envs`` batched games: (name, decisions/s, sampling share)."""
    from mariash_env.vector import VectorEnv, random_legal_actions

    env = VectorEnv(num_envs, seed=seed, observations=observations, parallel=parallel)
    rng = np.random.default_rng(seed)
    actions = np.empty(num_envs, dtype=np.int64)
    step = env.reset()
    for _ in range(3):  # warm-up: compile
        step = env.step(random_legal_actions(step.mask, rng, actions))
    steps = 0
    t_sample = 0.0
    start = time.perf_counter()
    while True:
        for _ in range(8):
            t0 = time.perf_counter()
            random_legal_actions(step.mask, rng, actions)
            t_sample += time.perf_counter() - t0
            step = env.step(actions)
        steps += 8
        if time.perf_counter() - start >= seconds:
            break
    elapsed = time.perf_counter() - start
    name = f"VectorEnv N={num_envs} " + ("obs+masks" if observations else "masks only")
    if parallel:
        name += f" parallel({_threads()})"
    return name, steps * num_envs / elapsed, t_sample / elapsed


def _threads() -> int:
    import numba

    return numba.get_num_threads()


COMPILE_SNIPPET = (
    "import numpy as np\n"
    "from mariash_env.vector import VectorEnv, random_legal_actions\n"
    "e = VectorEnv(8, seed=0)\n"
    "s = e.reset()\n"
    "e.step(random_legal_actions(s.mask, np.random.default_rng(0)))\n"
    "e.state()\n"
)


def compile_times() -> tuple[float, float]:
    """Wall time of a fresh process importing and first-stepping VectorEnv: cold, warm.

    The cold run compiles everything into an empty, temporary numba cache
    (``NUMBA_CACHE_DIR``); the warm run loads that cache.
    """
    out = []
    with tempfile.TemporaryDirectory(prefix="mariash-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for _ in range(2):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", COMPILE_SNIPPET], cwd=ROOT, env=env,
                           check=True)
            out.append(time.perf_counter() - t0)
    return out[0], out[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="wall time per measurement (default 3)")
    parser.add_argument("--num-envs", type=int, default=4096,
                        help="games in the batched engine (default 4096)")
    parser.add_argument("--parallel", action="store_true",
                        help="also measure VectorEnv(parallel=True) (numba prange)")
    parser.add_argument("--no-anchors", action="store_true", help="skip the anchors")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the compile-time measurement")
    parser.add_argument("--json", metavar="PATH", help="save the figures as JSON")
    args = parser.parse_args(argv)

    from mariash_env.vector import STATE_BYTES

    rows: list[dict] = []

    def add(name: str, rate: float, kind: str, extra: dict | None = None) -> None:
        rows.append({"name": name, "decisions_per_s": rate, "kind": kind, **(extra or {})})
        print(f"  measured {name}: {rate:,.0f} decisions/s", file=sys.stderr)

    aec = bench_aec(args.seconds)
    if aec is None:
        print("  mariash_env.env() not available: AEC row skipped", file=sys.stderr)
    else:
        add(*aec, "ours")
    variants = [(False, False), (True, False)]
    if args.parallel:
        variants += [(False, True), (True, True)]
    for observations, parallel in variants:
        name, rate, share = bench_vector(args.seconds, args.num_envs, observations, parallel)
        add(name, rate, "ours", {"sampling_share": share, "observations": observations,
                                 "parallel": parallel, "num_envs": args.num_envs})

    anchor_rows: dict[str, float | None] = {}
    if not args.no_anchors:
        for key, fn in (
            ("pettingzoo", lambda: anchors.pettingzoo_classic(args.seconds)),
            ("skat", lambda: anchors.openspiel_skat(args.seconds, with_obs=False)),
            ("skat+obs", lambda: anchors.openspiel_skat(args.seconds, with_obs=True)),
        ):
            res = fn()
            anchor_rows[key] = None if res is None else res[1]
            if res is not None:
                add(res[0], res[1], "anchor", {"anchor": key})

    compile_cold = compile_warm = None
    if not args.no_compile:
        compile_cold, compile_warm = compile_times()

    # ---- table
    keys = [k for k, v in anchor_rows.items() if v]
    head = f"{'environment':<44} {'decisions/s':>14}" + "".join(f" {'x ' + k:>12}" for k in keys)
    print()
    print(head)
    print("-" * len(head))
    for r in rows:
        line = f"{r['name']:<44} {r['decisions_per_s']:>14,.0f}"
        for k in keys:
            ratio = r["decisions_per_s"] / anchor_rows[k]
            r.setdefault("ratios", {})[k] = ratio
            line += f" {ratio:>12.1f}"
        if "sampling_share" in r:
            line += f"   (action sampling {100 * r['sampling_share']:.0f}% of the time)"
        print(line)
    print()
    for r in rows:
        if r["kind"] == "ours" and "observations" in r and not r["parallel"]:
            target = TARGET_OBS if r["observations"] else TARGET_NO_OBS
            ok = "met" if r["decisions_per_s"] >= target else "NOT met"
            print(f"target {target:,}/s for {r['name']}: {ok}")
    print(f"state per game: {STATE_BYTES} bytes")
    if compile_cold is not None:
        print(f"first use in a fresh process (import + reset + step + state): "
              f"{compile_cold:.1f} s cold cache, {compile_warm:.1f} s warm cache")

    if args.json:
        import numba

        data = {
            "rows": rows,
            "anchors": anchor_rows,
            "state_bytes_per_game": STATE_BYTES,
            "compile_cold_s": compile_cold,
            "compile_warm_s": compile_warm,
            "seconds": args.seconds,
            "num_envs": args.num_envs,
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                        "numba": numba.__version__, "numpy": np.__version__,
                        "platform": platform.platform()},
        }
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"saved {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
