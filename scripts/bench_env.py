"""Benchmark: decisions per second of random legal play, ours against OpenSpiel's skat.

Every contender is timed with the cheapest harness, the same on both sides (see
``scripts/anchors.py``): stdlib ``random`` for OpenSpiel's chance nodes and decisions and
for the AEC loop, the compiled ``random_legal_actions`` for the batched engine (its time
is counted).  Slices of ``--slice`` seconds (1.5) are interleaved across all contenders
and repeated ``--repeats`` times (5), each contender right after its peer; the table
shows median rates and, per row, the median over rounds of the ratio to its peer
measured in the same round:

* AEC env ``mariash_env.env()`` (observation + mask every decision) vs skat + its
  observation (OpenSpiel's observer writing into its buffer); beside it the AEC loop's
  own ceiling: a do-nothing AEC env with the same spaces behind the same wrappers (and
  unwrapped), in the same loop;
* ``VectorEnv`` observations + masks vs skat + its observation;
* ``VectorEnv`` masks only vs skat.  These two rows are batched against unbatched:
  ``VectorEnv`` steps ``--num-envs`` games in one compiled call, skat has no batched
  API and is stepped one game at a time from Python, so they measure the batching as
  much as the engine (the AEC row is the like-for-like one);
* ``VectorEnv(rules="licitovany")`` masks only vs volený's (issue #12: within 0.8x);
* ``VectorEnv(rules="lizany")`` observations + masks vs lízaný's own AEC env
  ``mariash_env.lizany.env()`` (the Python game on the same compiled core).

One thread (``parallel=False``); JIT compilation happens in a warm-up before timing.
With ``--compile`` it also times a fresh process's first use (cold and warm numba cache).

    python scripts/bench_env.py [--slice 1.5] [--repeats 5] [--num-envs 4096] [--json PATH]
"""

from __future__ import annotations

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

from mariash_env import jsonio  # noqa: E402
from mariash_env.cli import (  # noqa: E402
    ArgumentParser,
    UnwritableError,
    check_writable,
    path_error,
    positive,
)
from scripts import anchors  # noqa: E402

# Targets of issue #10, as ratios to the peer measured in the same run.
TARGETS = {"aec": 0.5, "vector_obs": 10.0, "vector_masks": 20.0, "licit_masks": 0.8}


class VectorRunner(anchors.Runner):
    """``VectorEnv.step`` (checked) with ``random_legal_actions``; decisions = steps x N."""

    def __init__(self, num_envs: int, observations: bool, seed: int = 0,
                 rules: str = "voleny") -> None:
        from mariash_env.vector import VectorEnv, random_legal_actions

        self.env = VectorEnv(num_envs, seed=seed, observations=observations, rules=rules)
        self.sample = random_legal_actions
        self.rng = np.random.default_rng(seed)
        self.actions = np.empty(num_envs, dtype=np.int64)
        self.step = self.env.reset()
        self.name = f"VectorEnv N={num_envs} {rules} " + ("obs + masks" if observations
                                                           else "masks only")
        self.run(0.0)  # warm-up: compile or load the cache

    def run(self, seconds: float) -> tuple[int, float]:
        env, sample, rng, actions = self.env, self.sample, self.rng, self.actions
        step = self.step
        steps = 0
        start = time.perf_counter()
        while True:
            for _ in range(8):
                step = env.step(sample(step.mask, rng, actions))
            steps += 8
            if time.perf_counter() - start >= seconds:
                break
        self.step = step
        return steps * env.num_envs, time.perf_counter() - start


COMPILE_SNIPPET = (
    "import numpy as np\n"
    "from mariash_env.vector import VectorEnv, random_legal_actions\n"
    "e = VectorEnv(8, seed=0)\n"
    "s = e.reset()\n"
    "e.step(random_legal_actions(s.mask, np.random.default_rng(0)))\n"
    "e.state()\n"
)


def compile_times() -> tuple[float, float]:
    """Wall time of a fresh process importing and first-stepping VectorEnv: cold, warm."""
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
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slice", type=positive(float), default=1.5,
                        help="seconds per slice (default 1.5)")
    parser.add_argument("--repeats", type=positive(int), default=5,
                        help="rounds of interleaved slices (default 5)")
    parser.add_argument("--num-envs", type=positive(int), default=4096,
                        help="games in the batched engine (default 4096)")
    parser.add_argument("--compile", action="store_true",
                        help="also time a fresh process's first use (cold/warm cache)")
    parser.add_argument("--json", metavar="PATH", help="save the figures as JSON")
    args = parser.parse_args(argv)
    try:  # before the benchmark, not after it
        if args.json:
            check_writable(args.json)
    except UnwritableError as e:
        print(f"error: --json: {e}", file=sys.stderr)
        return 2
    if not anchors.skat_available():
        print("error: OpenSpiel (pyspiel) with skat is not installed: "
              "pip install -e '.[dev]'", file=sys.stderr)
        return 2

    import mariash_env
    from mariash_env.vector import VectorEnv

    aec = anchors.AECRunner(mariash_env.env(), "mariash_env.env() AEC, obs + mask")
    aec.episode()  # warm-up
    lizany_aec = anchors.AECRunner(mariash_env.lizany.env(), "mariash_env.lizany.env() AEC, "
                                   "obs + mask")
    lizany_aec.episode()  # warm-up: the compiled core
    # Each contender right after its peer, so that a pair sees the same machine load.
    runners = {
        "skat": anchors.SkatRunner(with_obs=False),
        "vector_masks": VectorRunner(args.num_envs, observations=False),
        "licit_masks": VectorRunner(args.num_envs, observations=False, rules="licitovany"),
        "skat_obs": anchors.SkatRunner(with_obs=True),
        "vector_obs": VectorRunner(args.num_envs, observations=True),
        "aec": aec,
        "null_aec": anchors.AECRunner(anchors.null_aec_env(wrapped=True),
                                      "do-nothing AEC env, same wrappers"),
        "null_aec_raw": anchors.AECRunner(anchors.null_aec_env(wrapped=False),
                                          "do-nothing AEC env, unwrapped"),
        "lizany_aec": lizany_aec,
        "lizany_obs": VectorRunner(args.num_envs, observations=True, rules="lizany"),
    }
    rates = anchors.interleaved(list(runners.values()), args.slice, args.repeats,
                                log=lambda s: print(s, file=sys.stderr))
    series = {k: rates[r.name] for k, r in runners.items()}
    med = {k: anchors.median(v) for k, v in series.items()}

    rows = [  # (label, ours, peer)
        ("AEC env, obs + mask vs skat + observation", "aec", "skat_obs"),
        ("  AEC loop ceiling: do-nothing env, same wrappers", "null_aec", "skat_obs"),
        ("  AEC loop ceiling: do-nothing env, unwrapped", "null_aec_raw", "skat_obs"),
        ("VectorEnv obs + mask vs skat + observation", "vector_obs", "skat_obs"),
        ("VectorEnv masks only vs skat", "vector_masks", "skat"),
        ("VectorEnv licitovaný masks only vs volený's", "licit_masks", "vector_masks"),
        ("VectorEnv lízaný obs + mask vs its AEC env", "lizany_obs", "lizany_aec"),
    ]
    print()
    print(f"medians of {args.repeats} rounds of interleaved {args.slice} s slices "
          f"(ratio: median of the per-round ratios); VectorEnv N={args.num_envs}, one thread")
    print("VectorEnv rows: batched (N games a compiled call) against skat stepped one game "
          "at a time from Python (it has no batched API); the AEC row is like for like")
    print(f"| {'':<52} | {'mariash':>10} | {'peer':>10} | {'ratio':>6} | target |")
    print(f"| {'-' * 52} | {'-' * 9}: | {'-' * 9}: | {'-' * 5}: | ---: |")
    table = []
    for label, ours, peer in rows:
        ratio = anchors.median([a / b for a, b in zip(series[ours], series[peer])])
        target = TARGETS.get(ours)
        mark = "" if target is None else (f"{target:g} " + ("met" if ratio >= target
                                                             else "NOT met"))
        print(f"| {label:<52} | {med[ours]:>10,.0f} | {med[peer]:>10,.0f} | {ratio:>6.2f} "
              f"| {mark} |")
        table.append({"row": label.strip(), "ours": ours, "peer": peer,
                      "ours_rate": med[ours], "peer_rate": med[peer], "ratio": ratio,
                      "target": target})
    print(f"state per game: {VectorEnv.bytes_per_game(observations=False)} bytes "
          f"(with observations {VectorEnv.bytes_per_game(observations=True)})")

    compile_cold = compile_warm = None
    if args.compile:
        compile_cold, compile_warm = compile_times()
        print(f"first use in a fresh process (import + reset + step + state): "
              f"{compile_cold:.1f} s cold cache, {compile_warm:.1f} s warm cache")

    if args.json:
        import numba

        data = {
            "table": table,
            "rates": series,
            "medians": med,
            "slice_s": args.slice,
            "repeats": args.repeats,
            "num_envs": args.num_envs,
            "compile_cold_s": compile_cold,
            "compile_warm_s": compile_warm,
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                        "numba": numba.__version__, "numpy": np.__version__,
                        "platform": platform.platform()},
        }
        try:
            Path(args.json).write_text(jsonio.dumps(data, indent=2) + "\n", encoding="utf-8")
        except OSError as e:  # e.g. the disk filled up during the benchmark
            print(f"error: --json: {path_error(e, 'write')}", file=sys.stderr)
            return 1
        print(f"saved {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
