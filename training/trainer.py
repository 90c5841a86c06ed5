"""The training loop: rollouts, updates, opponent pool, evaluation, logs and checkpoints.

One *iteration* = every rollout game steps ``env.rollout_steps`` times (batched forward
passes), then the method learns from the learner's finished decisions.  Every
``selfplay.pool_every`` iterations the current weights join the opponent pool; every
``eval.every`` iterations the greedy policy is evaluated (duplicate deals); every
``run.checkpoint_every`` iterations (and when the run stops) a checkpoint is written to
``RUN/checkpoint.pt`` and the engines are reseeded (see :mod:`training.rollout`), so
``--resume`` continues exactly where the last checkpoint stood.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mariash_env import jsonio
from mariash_env.pools import usable_cores
from mariash_env.ray_pool import RayClusterError  # imports ray only when used

from .actors import LocalActors
from .backends import BACKENDS, make_actors
from .checkpoint import (
    FORMAT,
    KIND,
    CheckpointError,
    atomic_write_bytes,
    check_config,
    check_game,
    check_network,
    check_writable,
    lineage_after,
    lineage_of,
    mlp_of_stored_shapes,
    read_checkpoint,
    read_onnx_policy,
    remove_stale_temp_files,
    run_moved,
    save_checkpoint,
    stored_config,
)
from .config import Config, ConfigError
from .evaluate import EvalResult, evaluate_all
from .logs import (
    EVAL_FIELDS,
    CsvLog,
    LogError,
    TensorBoard,
    lineage_evals,
    metric_fields,
    plot_run,
)
from .methods import get_method
from .networks import add_inputs, count_parameters, game_of, hidden_widths, widen_mlp

CHECKPOINT = "checkpoint.pt"


class EvaluationError(RuntimeError):
    """An evaluation failed during training (its checkpoint is already written)."""


def pick_device(name: str) -> torch.device:
    """'auto' -> CUDA when available, else CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"run.device = {name!r} but CUDA is not available here: expected "
                          "'auto' or 'cpu'")
    if name.startswith("cuda:") and int(name[5:]) >= torch.cuda.device_count():
        raise ConfigError(f"run.device = {name!r} but this machine has "
                          f"{torch.cuda.device_count()} CUDA device(s)")
    return torch.device(name)


def newest_good_checkpoint(out: str | Path) -> tuple[Path, int] | None:
    """The newest readable ``RUN/checkpoints/itN.pt`` and its iteration, if any."""
    try:
        found = sorted((Path(out) / "checkpoints").glob("it*.pt"), reverse=True)
    except OSError:  # a run directory the system refuses (e.g. a name too long): none
        return None
    for p in found:
        try:
            return p, int(read_checkpoint(p)["counters"]["iteration"])
        except (CheckpointError, KeyError, TypeError, ValueError):
            continue
    return None


def read_run_checkpoint(out: str | Path) -> dict[str, Any]:
    """``RUN/checkpoint.pt`` for ``--resume``; when it is missing or unreadable the error
    names the newest good numbered checkpoint and how to resume from it."""
    path = Path(out) / CHECKPOINT
    try:
        return read_checkpoint(path)
    except CheckpointError as e:
        good = newest_good_checkpoint(out)
        if good is None:
            raise
        raise CheckpointError(
            f"{e}. The newest good checkpoint is {good[0]} (iteration {good[1]}): to resume "
            f"from it, copy it over {path} (cp {good[0]} {path}) and run --resume again"
        ) from None


def check_robots(cfg: Config) -> None:
    """Build every robot of the config's ``[eval]`` once, so that a bad spec (an unknown
    name, bad arguments, a missing ``onnx:`` file) is refused with a :class:`ConfigError`
    before training rather than in the evaluation after it."""
    from .evaluate import make_opponent

    for key in ("opponents", "final_opponents"):
        for name in getattr(cfg.eval, key):
            try:
                make_opponent(name, cfg.eval.seed, cfg.env.rules)
            except (ValueError, TypeError, OSError, ImportError) as e:
                raise ConfigError(f"eval.{key} = {name!r} cannot be built: {e}") from None
    if cfg.selfplay.frozen:
        from .rollout import make_frozen

        rules = cfg.env.rules or {}
        try:
            make_frozen(cfg.selfplay.frozen, rules,
                        int(rules.get("players") or game_of(rules).players[0]))
        except (ValueError, TypeError, OSError, ImportError) as e:
            raise ConfigError(f"selfplay.frozen = {cfg.selfplay.frozen!r} cannot be built: "
                              f"{e}") from None


def _numpy_global_state() -> dict[str, Any]:
    name, keys, pos, has_gauss, cached = np.random.get_state()
    return {"name": name, "keys": [int(k) for k in keys], "pos": int(pos),
            "has_gauss": int(has_gauss), "cached": float(cached)}


def _set_numpy_global_state(s: dict[str, Any]) -> None:
    np.random.set_state((s["name"], np.array(s["keys"], np.uint32), s["pos"], s["has_gauss"],
                         s["cached"]))


# Rollout threads a core the process backend accepts: a many-core config (long.toml's 12
# workers) runs on a small machine, slowly; a typo (1000 for 10) is not a thousand processes.
THREADS_PER_CORE = 8


def check_processes(cfg: Config, backend: str) -> None:
    """ConfigError when the process backend would start far more rollout threads than the
    cores this process may use (:func:`mariash_env.pools.usable_cores`, as the arena caps
    its jobs; the Ray backend checks its cluster's CPUs itself)."""
    if backend != "process":
        return
    cores = usable_cores()  # its affinity mask: a container's cpuset, not the host's cores
    want = cfg.env.workers * cfg.env.actor_threads
    if want > THREADS_PER_CORE * cores:
        raise ConfigError(
            f"env.workers = {cfg.env.workers} rollout processes of env.actor_threads = "
            f"{cfg.env.actor_threads} want {want} threads; this process may use {cores} cores "
            f"(at most {THREADS_PER_CORE} threads a core): use fewer workers, or the Ray "
            "backend on a cluster (--backend ray)")


def warm_start(net: Any, cfg: Config, path: str) -> tuple[list[dict[str, Any]], str]:
    """Load into ``net`` (the network of ``cfg``) the policy weights of another run's
    checkpoint, or of an exported robot (a ``.onnx`` path); with ``network.widen_init``
    from a narrower network's, widened to the config's (:func:`widen_mlp`).  Returns the
    lineage of the run and what it started from; a :class:`CheckpointError` for a warm
    start that cannot be used (also what a best response checks before it starts)."""
    widen = cfg.network.widen_init
    # a network with derived inputs starts from one without: the same, new inputs at 0
    grow = getattr(net, "knowledge", None) is not None
    if str(path).endswith(".onnx"):
        got = read_onnx_policy(path, None if widen or grow else net)
        into = got["net"]
        check_game({"game": got["game"]}, game_of(cfg.env.rules).name, path)
        into.load_state_dict(got["state_dict"])
        lineage = got["lineage"]
        what = f"the exported robot {path}"
    else:
        init = read_checkpoint(path)
        check_game(init, game_of(cfg.env.rules).name, path)
        stored = init["network"].get("params", {})
        into = mlp_of_stored_shapes(stored, path) if widen or grow else net
        check_network(init, into.signature(), path)
        try:
            into.load_state_dict(init["policy"])
        except (KeyError, RuntimeError) as e:
            raise CheckpointError(f"{path}: its policy weights cannot be loaded "
                                  f"({type(e).__name__}: {e})") from None
        lineage = lineage_after(init, path)
        what = f"{path} (iteration {init['counters'].get('iteration')} of that run)"
    if widen:
        try:
            widen_mlp(into, net, seed=cfg.seed)
        except ValueError as e:
            raise CheckpointError(f"{path}: {e}") from None
        what += f", widened from hidden {hidden_widths(into)} to {hidden_widths(net)}"
    elif grow:
        try:
            added = add_inputs(into, net)
        except ValueError as e:
            raise CheckpointError(f"{path}: {e}") from None
        if added:
            what += f", its {added} derived inputs (network.features) added at weight 0"
    return lineage, what


class Trainer:
    """A training run in directory ``out`` (fresh, or ``resume=True`` from its checkpoint)."""

    def __init__(self, cfg: Config | None, out: str | Path, resume: bool = False,
                 log: Any = print, backend: str = "process", address: str | None = None) -> None:
        """``backend``: where the rollout workers run, ``"process"`` (worker processes of
        this machine) or ``"ray"`` (Ray actors on the cluster at ``address``, None: a
        local one); either gives the same checkpoint for the same config."""
        if backend not in BACKENDS:
            raise ConfigError(f"unknown backend {backend!r}: expected one of "
                              f"{', '.join(BACKENDS)}")
        if address is not None and backend != "ray":
            raise ConfigError(f"address={address!r} needs backend 'ray'")
        self.backend, self.address = backend, address
        self.out = Path(out)
        self.log = log
        ckpt_path = self.out / CHECKPOINT
        payload = None
        if resume:
            payload = read_run_checkpoint(self.out)
            # a run copied elsewhere: the paths of its own tree are read at the new place
            if cfg is None:
                cfg = Config.from_dict(stored_config(payload, self.out),
                                       f"the config stored in {ckpt_path}")
            else:
                saved = Config.from_dict(payload["config"],
                                         f"the config stored in {ckpt_path}")
                # the game first: a clearer reason than the config difference it also is
                check_game(payload, game_of(cfg.env.rules).name, str(ckpt_path))
                # the stored config with today's defaults for options added since
                check_config({**payload, "config": saved.to_dict()}, cfg.to_dict(),
                             str(ckpt_path), moved=run_moved(payload, self.out))
        else:
            if ckpt_path.exists():
                raise FileExistsError(
                    f"{self.out} already holds a run ({CHECKPOINT}): pass --resume to continue "
                    "it, or choose another --out")
            cfg = cfg or Config()
        cfg.validate("config")  # also a Config built in Python, not from a file
        if cfg.env.max_lag > 0 and (backend != "ray" or cfg.env.pipeline):
            raise ConfigError(f"env.max_lag = {cfg.env.max_lag} (asynchronous sampling) needs "
                              "--backend ray and env.pipeline = false (it overlaps "
                              "sampling and learning itself)")
        check_robots(cfg)
        check_processes(cfg, backend)
        check_writable(self.out / CHECKPOINT)  # creates the run directory, before any work
        self.cfg = cfg
        self.device = pick_device(cfg.run.device)
        if cfg.run.threads > 0:
            torch.set_num_threads(cfg.run.threads)
        random.seed(cfg.seed)
        np.random.seed(cfg.seed % 2**32)
        torch.manual_seed(cfg.seed)
        self.method = get_method(cfg.method)(cfg, self.device)
        self.learner_rng = np.random.default_rng([cfg.seed, 0x1EA2])
        self.counters: dict[str, Any] = {"iteration": 0, "decisions": 0, "samples": 0,
                                         "updates": 0, "deals": 0, "train_s": 0.0}
        self.pool: list[tuple[int, dict[str, torch.Tensor]]] = []
        self.pool_next = 0
        self.history: list[dict[str, Any]] = []
        self.last_loss = float("nan")
        self.resumed_from: int | None = None
        # earlier runs this one was warm-started from, oldest first (config.init)
        self.lineage: list[dict[str, Any]] = []
        self.last_results: list[EvalResult] = []
        self._last_results_it = -1
        self._paused_s = 0.0
        if payload is not None:
            self._restore(payload, str(ckpt_path))
        elif cfg.init:
            self._warm_start(cfg.init)
        if cfg.run.plot:
            # the earlier stages' eval.csv its curves draw: a damaged one (a LogError
            # naming it) refused now, before any training, not at the first evaluation
            lineage_evals(self.lineage)

    # -- checkpoints ------------------------------------------------------------------------

    def _restore(self, payload: dict[str, Any], where: str) -> None:
        check_game(payload, game_of(self.cfg.env.rules).name, where)
        check_network(payload, self.method.net.signature(), where)
        if payload.get("method_name") != self.cfg.method:
            raise CheckpointError(f"{where} was trained with method "
                                  f"{payload.get('method_name')!r}, the config says "
                                  f"{self.cfg.method!r}")
        try:
            self.method.load_state_dict(payload["method"])
            rng = payload["rng"]
            random.setstate(rng["python"])
            _set_numpy_global_state(rng["numpy"])
            torch.set_rng_state(rng["torch"])
            if torch.cuda.is_available() and rng.get("cuda"):
                torch.cuda.set_rng_state_all(rng["cuda"])
            self.learner_rng.bit_generator.state = rng["learner"]
            self.counters = dict(payload["counters"])
            self.pool = [(int(i), sd) for i, sd in payload["pool"]["snapshots"]]
            self.pool_next = int(payload["pool"]["next_id"])
            self.history = list(payload.get("history", []))
            self.lineage = lineage_of(payload)
        except (KeyError, ValueError, RuntimeError, TypeError) as e:
            raise CheckpointError(f"{where} is inconsistent and cannot be restored "
                                  f"({type(e).__name__}: {e})") from None
        self.resumed_from = int(self.counters["iteration"])

    def _warm_start(self, path: str) -> None:
        """Start from the policy weights of another run's checkpoint or exported robot
        (``config.init``: :func:`warm_start`)."""
        self.lineage, what = warm_start(self.method.net, self.cfg, path)
        self.log(f"[train] warm start from {what}")

    def payload(self) -> dict[str, Any]:
        rng = {
            "python": random.getstate(),
            "numpy": _numpy_global_state(),
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
            "learner": self.learner_rng.bit_generator.state,
        }
        game = game_of(self.cfg.env.rules)
        return {
            "kind": KIND,
            "format": FORMAT,
            "game": game.name,
            "obs_version": game.obs_version,
            "obs_size": game.obs_size,
            "num_actions": game.n_actions,
            "config": self.cfg.to_dict(),
            "method_name": self.cfg.method,
            "network": self.method.net.signature(),
            "method": self.method.state_dict(),
            "policy": self.method.net.state_dict(),
            "counters": dict(self.counters),
            "rng": rng,
            "pool": {"next_id": self.pool_next,
                     "snapshots": [[i, sd] for i, sd in self.pool]},
            "history": list(self.history),
            "lineage": list(self.lineage),
            "info": {"torch": str(torch.__version__), "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
                     "describe": self.method.describe(),
                     "out": str(self.out.resolve())},  # where it was written: a run can move
        }

    def save(self) -> Path:
        path = self.out / CHECKPOINT
        save_checkpoint(path, self.payload())
        keep = self.cfg.run.keep_checkpoints
        if keep > 0:
            d = self.out / "checkpoints"
            d.mkdir(exist_ok=True)
            numbered = d / f"it{self.counters['iteration']:08d}.pt"
            atomic_write_bytes(numbered, [path.read_bytes()])
            old = sorted(d.glob("it*.pt"))
            for p in old[:-keep]:
                p.unlink()
        return path

    # -- evaluation -------------------------------------------------------------------------

    def evaluate(self, opponents: list[str] | None = None,
                 deals: int | None = None) -> list[EvalResult]:
        e = self.cfg.eval
        return evaluate_all(self.method.net, opponents or e.opponents, deals or e.deals, e.seed,
                            self.cfg.env.rules, e.num_envs, e.bootstrap)

    # -- the loop ---------------------------------------------------------------------------

    def _budget_done(self, t_start: float) -> bool:
        r = self.cfg.run
        c = self.counters
        return bool((r.max_iterations and c["iteration"] >= r.max_iterations)
                    or (r.max_decisions and c["decisions"] >= r.max_decisions)
                    # the run's training time, its earlier processes' (a resume) included
                    or (r.time_budget_s and c["train_s"] >= r.time_budget_s))

    def _progress(self):
        if not self.cfg.run.progress:
            return None
        from tqdm.auto import tqdm

        r = self.cfg.run
        c = self.counters
        if r.time_budget_s:
            return tqdm(total=round(r.time_budget_s), initial=min(c["train_s"], r.time_budget_s),
                        unit="s", desc="training", leave=True,
                        bar_format="{l_bar}{bar}| {n:.0f}/{total_fmt}s [{elapsed}<{remaining}"
                                   "{postfix}]")
        if r.max_decisions:
            return tqdm(total=r.max_decisions, initial=c["decisions"], unit="dec", unit_scale=True,
                        desc="training")
        if r.max_iterations:
            return tqdm(total=r.max_iterations, initial=c["iteration"], unit="it",
                        desc="training")
        return tqdm(unit="it", desc="training")

    def train(self) -> dict[str, Any]:
        """Run until the budget of ``cfg.run`` is spent; returns a summary."""
        cfg = self.cfg
        self.out.mkdir(parents=True, exist_ok=True)
        for d in (self.out, self.out / "checkpoints"):
            for p in remove_stale_temp_files(d):
                self.log(f"[train] removed {p}, left by a process killed while writing it")
        atomic_write_bytes(self.out / "config.json",
                           [(jsonio.dumps(cfg.to_dict(), indent=2) + "\n").encode()])
        c = self.counters
        keep = self.resumed_from
        # The logs hold exactly the iterations and evaluations of the checkpoint (none for
        # a fresh run): rows of a killed process after its last checkpoint are dropped.
        metrics_log = CsvLog(self.out / "metrics.csv", metric_fields(self.method.METRICS),
                             keep_until=-1 if keep is None else keep)
        eval_log = CsvLog(self.out / "eval.csv", EVAL_FIELDS, rows=self.history)
        tb = TensorBoard(self.out / "tb", cfg.run.tensorboard,
                         purge_step=c["decisions"] if keep is not None else None)
        self.log(f"[train] {cfg.method} on {self.device}: network {cfg.network.kind} "
                 f"{cfg.network.hidden} ({count_parameters(self.method.net):,} parameters), "
                 f"{cfg.env.workers} x {cfg.env.num_envs} games, run dir {self.out}"
                 + (f", resumed at iteration {keep}" if keep is not None else ""))
        actors = make_actors(cfg, self.method, self.backend, self.address)
        bar = None
        self._stop_requested = False
        old_handlers = self._install_stop_handlers()
        last_ckpt = c["iteration"] if keep is not None else -1
        try:
            actors.set_pool(self.pool)
            actors.begin_segment(c["iteration"])
            if (keep is not None and self._eval_due(c["iteration"])
                    and not any(h["iteration"] == c["iteration"] for h in self.history)):
                # killed during this evaluation: run it, as the uninterrupted run did
                self._run_eval(eval_log, tb)
                self.save()
            bar = self._progress()
            t_start = time.perf_counter()
            multi = not isinstance(actors, LocalActors)  # the workers need the weights
            params: dict[str, Any] = {}
            while not self._budget_done(t_start) and not self._stop_requested:
                t0 = time.perf_counter()
                if not actors.pending:
                    params = self.method.rollout_params(c["decisions"])
                    actors.start_collect(params, self.method.net.state_dict() if multi else None)
                batch, rs = actors.finish_collect()
                t1 = time.perf_counter()
                this_params = params
                nxt = c["iteration"] + 1  # the iteration being completed now
                if (cfg.env.pipeline and not self._saves_at(nxt)
                        and not (cfg.run.max_iterations and nxt >= cfg.run.max_iterations)):
                    # Collect iteration nxt + 1 with the pre-update weights meanwhile.
                    params = self.method.rollout_params(c["decisions"] + int(rs["decisions"]))
                    actors.start_collect(params, self.method.net.state_dict())
                ls = self.method.update(batch, self.learner_rng)
                t2 = time.perf_counter()
                c["iteration"] += 1
                c["decisions"] += int(rs["decisions"])
                c["samples"] += len(batch)
                c["updates"] += int(ls.get("updates", 0))
                c["deals"] += int(rs["deals"])
                c["train_s"] += t2 - t0
                if cfg.selfplay.pool_size > 0 and c["iteration"] % cfg.selfplay.pool_every == 0:
                    sd = {k: v.detach().cpu().clone()
                          for k, v in self.method.net.state_dict().items()}
                    self.pool.append((self.pool_next, sd))
                    self.pool_next += 1
                    self.pool = self.pool[-cfg.selfplay.pool_size:]
                    actors.set_pool(self.pool)
                row = self._metrics_row(rs, ls, this_params, t0, t1, t2)
                metrics_log.write(row)
                tb.scalars("train", row, c["decisions"])
                tp = time.perf_counter()
                if self._saves_at(c["iteration"]):
                    # Before an evaluation too: a failure or a kill in it loses no training.
                    self.save()
                    last_ckpt = c["iteration"]
                    actors.begin_segment(c["iteration"])
                if self._eval_due(c["iteration"]):
                    self._run_eval(eval_log, tb)
                    self.save()  # again, with the evaluation in its history
                self._paused_s += time.perf_counter() - tp
                if bar is not None:
                    self._bar_update(bar, row, t_start)
            if bar is not None:
                bar.close()
                bar = None
            if last_ckpt != c["iteration"]:
                # The checkpoint first: a failing or killed final evaluation loses nothing
                # (and a run stopped by a signal skips it).
                self.save()
                last_ckpt = c["iteration"]
            n_hist = len(self.history)
            if not self._stop_requested:
                final = cfg.eval.final_opponents or cfg.eval.opponents
                if not self.history or self.history[-1]["iteration"] != c["iteration"]:
                    self._run_eval(eval_log, tb, final)
                elif set(final) - set(cfg.eval.opponents):
                    self._run_eval(eval_log, tb, sorted(set(final) - set(cfg.eval.opponents)))
            if len(self.history) != n_hist:
                self.save()
        except RayClusterError as e:
            # The cluster can no longer run the workers: keep every whole iteration.
            if last_ckpt != c["iteration"]:
                self.save()
            raise RayClusterError(f"{e}; the checkpoint of iteration {c['iteration']} is "
                                  f"{self.out / CHECKPOINT}") from None
        finally:
            for sig, h in old_handlers.items():
                signal.signal(sig, h)
            if bar is not None:
                bar.close()
            actors.close()
            metrics_log.close()
            eval_log.close()
            tb.close()
        if cfg.run.plot:
            self._plot()
        return self.summary()

    def _plot(self) -> None:
        """``curves.png`` redrawn (:func:`plot_run`).  A log damaged since the start (an
        earlier stage's eval.csv was read then) leaves the picture as it was, with a
        warning: a plot stops no training."""
        try:
            plot_run(self.out, lineage=self.lineage)
        except LogError as e:
            self.log(f"[train] warning: {self.out / 'curves.png'} not redrawn: {e}")

    def _eval_due(self, iteration: int) -> bool:
        every = self.cfg.eval.every
        return bool(every) and iteration > 0 and iteration % every == 0

    def _saves_at(self, iteration: int) -> bool:
        """A checkpoint is written (and the engines reseeded) after this iteration."""
        return iteration % self.cfg.run.checkpoint_every == 0 or self._eval_due(iteration)

    def _install_stop_handlers(self) -> dict[int, Any]:
        """Ctrl-C / SIGTERM: finish the iteration, checkpoint, stop (twice: abort at once)."""
        if threading.current_thread() is not threading.main_thread():
            return {}

        def handler(signum: int, frame: Any) -> None:
            if self._stop_requested:
                raise KeyboardInterrupt
            self._stop_requested = True
            self.log(f"\n[train] {signal.Signals(signum).name}: stopping after this iteration "
                     "with a checkpoint (again to abort at once)")

        old = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, handler)
        return old

    def _metrics_row(self, rs: dict[str, float], ls: dict[str, float], params: dict[str, Any],
                     t0: float, t1: float, t2: float) -> dict[str, Any]:
        c = self.counters
        dt = max(t2 - t0, 1e-9)
        loss = ls.get("loss", float("nan"))
        self.last_loss = loss
        row: dict[str, Any] = {
            "iteration": c["iteration"], "decisions": c["decisions"], "samples": c["samples"],
            "updates": c["updates"], "deals": c["deals"], "train_s": c["train_s"],
            "dec_per_s": rs["decisions"] / dt, "samples_per_s": rs["samples"] / dt,
            "upd_per_s": ls.get("updates", 0.0) / dt, "loss": loss,
        }
        for k in self.method.METRICS:  # the method's own (update statistics, else parameters)
            row[k] = ls.get(k, params.get(k, float("nan")))
        row |= {
            "rollout_s": t1 - t0, "policy_s": rs.get("policy_s", 0.0), "update_s": t2 - t1,
            "carried": rs.get("carried", 0.0), "pool_size": len(self.pool),
        }
        for t in ("pool", "random", "table"):
            n = rs.get(f"n_vs_{t}", 0.0)
            row[f"ret_vs_{t}"] = rs.get(f"ret_vs_{t}", 0.0) / n if n else float("nan")
        return row

    def _bar_update(self, bar: Any, row: dict[str, Any], t_start: float) -> None:
        r = self.cfg.run
        if r.time_budget_s:
            bar.n = min(self.counters["train_s"], r.time_budget_s)
        elif r.max_decisions:
            bar.n = min(self.counters["decisions"], r.max_decisions)
        else:
            bar.n = self.counters["iteration"]
        post = {"it": self.counters["iteration"], "dec/s": f"{row['dec_per_s']:.0f}",
                "upd/s": f"{row['upd_per_s']:.1f}", "loss": f"{row['loss']:.4f}"}
        for k in self.method.PROGRESS:
            post[k] = f"{row[k]:.4g}"
        if self.history:
            last_it = self.history[-1]["iteration"]
            for h in self.history[-4:]:
                if h["iteration"] == last_it:
                    post[f"vs_{h['opponent']}"] = f"{h['mean']:+.2f}"
        bar.set_postfix(post, refresh=False)
        bar.refresh()

    def _run_eval(self, eval_log: CsvLog, tb: TensorBoard,
                  opponents: list[str] | None = None) -> list[EvalResult]:
        c = self.counters
        names = opponents or self.cfg.eval.opponents
        if not names:  # no opponent (a best response's endgame check): nothing to evaluate
            return []
        self.log(f"[train] evaluating iteration {c['iteration']} against {', '.join(names)}")
        try:
            results = self.evaluate(opponents)
        except Exception as e:
            raise EvaluationError(
                f"the evaluation of iteration {c['iteration']} against {', '.join(names)} "
                f"failed ({type(e).__name__}: {e}); no training is lost: the checkpoint of "
                f"iteration {c['iteration']} is {self.out / CHECKPOINT}, --resume runs the "
                "evaluation again") from e
        self.last_results = [r for r in self.last_results
                             if r.opponent not in {x.opponent for x in results}
                             and self._last_results_it == c["iteration"]] + results
        self._last_results_it = c["iteration"]
        for r in results:
            rec = {"iteration": c["iteration"], "decisions": c["decisions"], **r.to_dict()}
            rec.update(r.by_role)
            rec.pop("by_role", None)
            self.history.append(rec)
            eval_log.write(rec)
            tb.scalars(f"eval/{r.opponent}", {"mean": r.mean, "ci_low": r.ci_low,
                                              "ci_high": r.ci_high, **r.by_role}, c["decisions"])
        tb.flush()
        if self.cfg.run.plot and results:
            self._plot()
        return results

    def summary(self) -> dict[str, Any]:
        c = self.counters
        last = {}
        for h in self.history:
            if h["iteration"] == c["iteration"]:
                last[h["opponent"]] = {k: h[k] for k in ("mean", "ci_low", "ci_high", "deals")}
        ts = max(c["train_s"], 1e-9)
        return {
            **c,
            "decisions_per_s": c["decisions"] / ts,
            "updates_per_s": c["updates"] / ts,
            "last_loss": self.last_loss,
            "eval": last,
            "checkpoint": str(self.out / CHECKPOINT),
        }
