"""training's Ray backend: Ray actors with the interface of the worker processes, the same
checkpoint for the same seed, and a lost actor replaced without losing or changing data.

One local ``ray.init(num_cpus=2, num_gpus=1)`` for the module (the GPU a logical one: the
learner actor is placed by it, torch finds no CUDA and trains on the CPU), shut down at
its end."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")

from training.actors import ProcessActors  # noqa: E402
from training.checkpoint import read_checkpoint  # noqa: E402
from training.config import Config, ConfigError  # noqa: E402
from training.methods import get_method  # noqa: E402
from training.ray_actors import RayActors  # noqa: E402
from training.trainer import Trainer  # noqa: E402

SMALL = {
    "seed": 5,
    "env": {"num_envs": 16, "rollout_steps": 4, "workers": 2},
    "network": {"hidden": [32]},
    "selfplay": {"pool_size": 2, "pool_every": 1, "pool_share": 0.3, "random_share": 0.2,
                 "table_robot_share": 0.2},
    "eval": {"every": 0, "deals": 10, "num_envs": 10, "bootstrap": 50,
             "opponents": ["random"]},
    "run": {"max_iterations": 3, "checkpoint_every": 2, "keep_checkpoints": 0,
            "threads": 1, "progress": False, "tensorboard": False, "plot": False},
    "dmc": {"batch_size": 32, "lr": 3e-3},
}


def small(**overrides) -> Config:
    cfg = Config.from_dict(json.loads(json.dumps(SMALL)), "small")
    return cfg.replace(**overrides) if overrides else cfg


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 2**20)
    yield
    ray.shutdown()


def _equal(a, b, where: str = "") -> None:
    if isinstance(a, torch.Tensor):
        assert torch.equal(a, b), where
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _equal(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _equal(x, y, f"{where}[{i}]")
    else:
        assert a == b or (a != a and b != b), where  # NaN == NaN here


def test_ray_run_gives_the_checkpoint_of_the_process_run(local_ray, tmp_path: Path,
                                                        forkserver_workers) -> None:
    """Its process run's workers forked (tests/conftest.py: the same batches, the start
    of two Pythons less; test_ray_cluster's command-line run spawns its own)."""
    # rollout_steps: enough for deals to end in the three iterations (with SMALL's 4 none
    # did: no sample, no update, and the weights compared were the first ones)
    for backend in ("process", "ray"):
        Trainer(small(**{"env.rollout_steps": 16}), tmp_path / backend, backend=backend,
                log=lambda *_: None).train()
    a, b = (read_checkpoint(tmp_path / k / "checkpoint.pt") for k in ("process", "ray"))
    assert a["counters"]["iteration"] == 3 and a["counters"]["updates"] > 0
    for key in ("policy", "method", "pool", "rng"):
        _equal(a[key], b[key], key)
    wall = {"seconds"}  # the evaluation's wall time
    _equal([{k: v for k, v in h.items() if k not in wall} for h in a["history"]],
           [{k: v for k, v in h.items() if k not in wall} for h in b["history"]], "history")
    ca, cb = dict(a["counters"]), dict(b["counters"])
    ca.pop("train_s"), cb.pop("train_s")  # wall time
    assert ca == cb
    # Byte for byte once the three wall-clock fields and the run's folder are blanked.
    assert _without_wall_time(a) == _without_wall_time(b)


def _without_wall_time(ckpt: dict) -> bytes:
    """The checkpoint's payload serialized as save_checkpoint does, with its wall-clock
    fields (counters.train_s, info.time, each evaluation's seconds) set to 0 and the
    folder it was written in (info.out: the two runs have their own) blanked."""
    import io

    ckpt = dict(ckpt, counters={**ckpt["counters"], "train_s": 0.0},
                info={**ckpt["info"], "time": "", "out": ""},
                history=[{**h, "seconds": 0.0} for h in ckpt["history"]])
    buf = io.BytesIO()
    torch.save(ckpt, buf)
    return buf.getvalue()


def _collect3(actors, cfg: Config, net, kill=None) -> list:
    """Three collections of one segment with changing weights and a pool change."""
    out = []
    actors.set_pool([(0, net.state_dict())])
    actors.begin_segment(7)
    for it in range(3):
        with torch.no_grad():
            for p in net.parameters():
                p.add_(0.01 * (it + 1))
        if kill is not None and it == 2:
            kill(actors)
        actors.start_collect({"epsilon": 0.1}, net.state_dict())
        if it == 1:
            actors.set_pool([(0, net.state_dict()), (1, net.state_dict())])  # while pending
        batch, stats = actors.finish_collect()
        out.append((batch.obs.copy(), batch.action.copy(), batch.ret.copy(), stats["deals"]))
    return out


def seeded_method(cfg: Config):
    """The method of ``cfg`` with its network seeded as the Trainer seeds it.  Unseeded, it
    drew its weights from whatever torch RNG state the tests before it in this process
    left (under xdist, a matter of which tests that worker happened to run), and with some
    weights no deal of the three collections ends: the third comes back empty (1 in 20
    seeds)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(cfg.seed)
        return get_method(cfg.method)(cfg, torch.device("cpu"))


@functools.cache
def process_collections() -> list:
    """:func:`_collect3` of SMALL's worker processes from the seeded network: what the Ray
    actors must give, a lost one replaced or not (here and in test_ray_cluster, which
    imports this module as pytest does, so that the two, run on one worker, start the
    processes once; their callers fork them, tests/conftest.py forkserver_workers)."""
    cfg = small()
    method = seeded_method(cfg)
    actors = ProcessActors(cfg, method)
    try:
        return _collect3(actors, cfg, method.net)
    finally:
        actors.close()


def test_a_killed_actor_is_replaced_and_redoes_its_segment(local_ray,
                                                          forkserver_workers) -> None:
    cfg = small()
    method = seeded_method(cfg)

    def kill_worker_1(actors: RayActors) -> None:
        ray.kill(actors.workers[1], no_restart=True)

    reference = process_collections()
    actors = RayActors(cfg)
    try:
        killed, restarts = _collect3(actors, cfg, method.net, kill_worker_1), actors.restarts
    finally:
        actors.close()
    assert restarts == 1
    assert ray.is_initialized()  # RayActors did not own the module's Ray: it stays up
    assert len(reference) == len(killed) == 3
    for (o1, a1, r1, d1), (o2, a2, r2, d2) in zip(reference, killed):
        assert np.array_equal(o1, o2) and np.array_equal(a1, a2) and np.array_equal(r1, r2)
        assert d1 == d2
    assert len(reference[2][1]) > 0


def test_asynchronous_sampling_bounds_the_lag_and_reports_each_worker(local_ray) -> None:
    """#36: env.max_lag = 1: the workers sample on between collections (each has its next
    batch queued in the object store), no batch older than one update reaches the
    learner, stale ones are dropped unread, and each worker's throughput is logged."""
    from training.ray_actors import AsyncRayActors

    cfg = small(**{"env.max_lag": 1})
    net = get_method(cfg.method)(cfg, torch.device("cpu")).net
    lines: list[str] = []
    actors = AsyncRayActors(cfg, log=lines.append)
    try:
        actors.set_pool([(0, net.state_dict())])
        actors.begin_segment(0)
        for _ in range(2):
            actors.start_collect({"epsilon": 0.1}, net.state_dict())
            batch, stats = actors.finish_collect()
            assert stats["decisions"] > 0 and stats["lag_mean"] <= 1
            assert len(actors._queued) == 2 and not actors.pending  # sampling on
        ray.wait([q[0] for q in actors._queued], num_returns=2)  # both queued ones done
        actors._version += 2  # as if the learner had updated twice without sampling
        actors.start_collect({"epsilon": 0.1}, net.state_dict())
        batch, stats = actors.finish_collect()
        assert actors.dropped == 2 and stats["lag_mean"] == 0 and stats["decisions"] > 0
        # every worker that delivered a batch has a rate (under load one worker can
        # deliver all six: the oldest ready batch is taken, whoever sampled it)
        rates = actors.throughput()
        assert len(rates) == 2 and max(rates) > 0
        assert all(r > 0 for r, d in zip(rates, actors.decisions) if d > 0)
    finally:
        actors.close()
    assert "asynchronous sampling (max lag 1): 6 batches taken" in lines[-1]
    assert "2 dropped as too old; decisions/s per worker 0: " in lines[-1]


def _sigterm_once(path: Path, lines: int = 1) -> threading.Thread:
    """A thread that sends this process SIGTERM once ``path`` exists with ``lines`` lines."""

    def run() -> None:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if path.exists() and len(path.read_bytes().splitlines()) >= lines:
                os.kill(os.getpid(), signal.SIGTERM)
                return
            time.sleep(0.05)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _stopped_by_sigterm(out: Path, lines: list[str]) -> int:
    assert any("SIGTERM: stopping after this iteration" in x for x in lines)
    ck = read_checkpoint(out / "checkpoint.pt")
    rows = (out / "metrics.csv").read_text().splitlines()[1:]
    assert ck["counters"]["iteration"] == len(rows) >= 1 and ck["history"] == []
    return len(rows)


ENDLESS = {"run.max_iterations": 10**6, "run.checkpoint_every": 10**6}


def test_a_failed_start_of_asynchronous_workers_raises_its_own_error(local_ray,
                                                                    monkeypatch) -> None:
    """A worker that does not start in time: the asynchronous actors close what they
    started and raise the RayClusterError that says so (close() once read counters the
    failed start had not yet set, and an AttributeError hid the reason)."""
    from mariash_env.ray_pool import RayClusterError
    from training.ray_actors import AsyncRayActors

    def never_ready(self, w, worker, when):
        raise RayClusterError(f"rollout worker {w} did not start (test) {when}")

    monkeypatch.setattr(RayActors, "_wait_ready", never_ready)
    with pytest.raises(RayClusterError, match="rollout worker 0 did not start"):
        AsyncRayActors(small(**{"env.max_lag": 1}), log=lambda line: None)


def test_sigterm_stops_an_asynchronous_run_on_ray_with_a_checkpoint(local_ray,
                                                                     tmp_path: Path) -> None:
    """#36: the first SIGTERM to a run on Ray (whose ``ray.init`` set a handler that exits
    at once) finishes the iteration, writes its checkpoint and returns; the evaluation at
    the end is skipped.  The run samples asynchronously (env.max_lag), which needs the
    ray backend and no pipeline."""
    out = tmp_path / "t"
    lines: list[str] = []
    cfg = small(**ENDLESS, **{"env.max_lag": 2})
    t = _sigterm_once(out / "metrics.csv", lines=2)  # a row: its handler is set
    Trainer(cfg, out, backend="ray", log=lines.append).train()
    t.join()
    _stopped_by_sigterm(out, lines)
    with pytest.raises(ConfigError, match="env.max_lag = 2 .* needs --backend ray"):
        Trainer(cfg, tmp_path / "b")
    with pytest.raises(ConfigError, match="and env.pipeline = false"):
        Trainer(small(**{"env.max_lag": 1, "env.pipeline": True}), tmp_path / "c",
                backend="ray")


def test_the_learner_runs_on_the_clusters_gpu_when_it_has_one(local_ray, tmp_path: Path,
                                                              monkeypatch) -> None:
    """#36: --learner-on-gpu: the learner is an actor holding the cluster's GPU (run.device
    'auto' falls back to the CPU where torch finds no CUDA); its log reaches the driver and
    SIGTERM is forwarded to it.  A cluster without a GPU starts nothing: the caller
    trains in the driver."""
    from training.ray_learner import train_on_gpu_node
    from training.train import main

    out = tmp_path / "g"
    lines: list[str] = []
    t = _sigterm_once(out / "metrics.csv", lines=2)  # a row: its handler is set
    summary = train_on_gpu_node(small(**ENDLESS), str(out), log=lines.append)
    t.join()
    assert summary["iteration"] == _stopped_by_sigterm(out, lines)
    assert lines[0].startswith("[ray] learner on node ") and "GPU(s) []" not in lines[0]
    assert any(x.startswith("[train] dmc on cpu") for x in lines)
    monkeypatch.setattr(ray, "cluster_resources", lambda: {"CPU": 2.0})
    assert train_on_gpu_node(small(), str(tmp_path / "n")) is None
    assert not (tmp_path / "n").exists()
    with pytest.raises(SystemExit) as e:
        main(["--learner-on-gpu", "--out", str(tmp_path / "x")])
    assert e.value.code == 2 and not (tmp_path / "x").exists()


def test_more_workers_than_the_cluster_has_cpus_is_refused(local_ray) -> None:
    with pytest.raises(RuntimeError, match="need 3 CPUs; the Ray cluster has 2"):
        RayActors(small(**{"env.workers": 3}))
    assert ray.is_initialized()  # not its Ray to shut down


def test_backend_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown backend 'dask'"):
        Trainer(small(), tmp_path / "a", backend="dask")
    with pytest.raises(ConfigError, match="needs backend 'ray'"):
        Trainer(small(), tmp_path / "b", address="auto")


def test_cli_address_needs_the_ray_backend(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    p = subprocess.run([sys.executable, "-m", "training.train", "--out", str(tmp_path / "x"),
                        "--address", "auto"], cwd=root, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2 and "--address needs --backend ray" in p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "x").exists()


# --- the arena's ray backend (mariash_env.ray_pool) -------------------------------------


def test_arena_ray_backend_plays_the_same_match(local_ray) -> None:
    from mariash_env.arena import duplicate_match
    from mariash_env.robots import RandomRobot, TableRobot

    robots = {"table": TableRobot, "random": RandomRobot}
    a = duplicate_match(robots, deals=12, seed=4, jobs=1, progress=False)
    b = duplicate_match(robots, deals=12, seed=4, jobs=2, progress=False, backend="ray")
    assert np.array_equal(a.per_deal, b.per_deal) and a.per_deal.any()
    timing = "seconds_per_decision"
    assert ([{k: v for k, v in r.items() if k != timing} for r in a.stats]
            == [{k: v for k, v in r.items() if k != timing} for r in b.stats])


def test_robot_objects_handed_to_ray_actors_play_there(local_ray) -> None:
    """A factory that returns a robot object (duplicate_eval's and so a gate's,
    ``lambda: robot``) reached the actors through Ray's own deserialization, whose numpy
    arrays are read-only views of its object store: the table robot's reused view array
    raised "assignment destination is read-only" at its first card.  The actors' init and
    its arguments now come as one pickled copy, as a worker process has them: the match is
    one process's."""
    from mariash_env.arena import duplicate_match
    from mariash_env.robots import RandomRobot, TableRobot

    table, rnd = TableRobot(), RandomRobot(3)
    robots = {"table": lambda: table, "random": lambda: rnd}
    a = duplicate_match(robots, deals=12, seed=4, jobs=1, progress=False)
    b = duplicate_match(robots, deals=12, seed=4, jobs=2, progress=False, backend="ray")
    assert np.array_equal(a.per_deal, b.per_deal) and a.per_deal.any()


def test_a_pipeline_gate_on_ray_gives_the_rows_of_its_process_run(local_ray, tmp_path: Path,
                                                                   monkeypatch) -> None:
    """A gate stage's ``backend = "ray"``: its deals on the module's Ray actors (a deal a
    batch here: 4 tasks), its rows those of one process."""
    from training import pipeline

    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    monkeypatch.setattr(pipeline, "GATE_GAMES", 6)
    rows = {}
    for how in ("", 'backend = "ray"\njobs = 2\n'):
        recipe = tmp_path / "gate.toml"
        recipe.write_text('[recipe]\nname = "g"\ngame = "voleny"\n[[stage]]\nname = "g"\n'
                          'kind = "gate"\nmodel = "models/robot.onnx"\nrobots = ["table", '
                          '"random"]\ndeals = 4\n' + how)
        run = tmp_path / f"run{len(rows)}"
        assert pipeline.main([str(recipe), "--out", str(run), "--no-progress"]) == 0
        rows[how] = [{k: v for k, v in r.items()} for r in pipeline.read_gates(run)]
    assert len(rows[""]) == 2 and rows[""] == rows['backend = "ray"\njobs = 2\n']


def test_arena_sizes_its_ray_chunks_for_the_actors_the_cluster_holds(local_ray,
                                                                      monkeypatch) -> None:
    """``jobs = 8`` on the module's 2-CPU Ray: the pool runs 2 actors, and the arena's
    chunks are sized for those (96 deals: 8 a chunk, about four chunks an actor), not for
    the 8 asked (3 a chunk, 32 chunks for 2 actors); the match is one process's."""
    from mariash_env import ray_pool
    from mariash_env.arena import duplicate_match
    from mariash_env.robots import RandomRobot

    seen = []
    real = ray_pool._imap

    def spy(ray_, owns, fn, tasks, jobs, init, init_args, chunksize):
        seen.append((jobs, chunksize))
        return real(ray_, owns, fn, tasks, jobs, init, init_args, chunksize)

    monkeypatch.setattr(ray_pool, "_imap", spy)
    robots = {"a": RandomRobot, "b": RandomRobot}
    b = duplicate_match(robots, deals=96, seed=2, jobs=8, progress=False, backend="ray")
    assert seen == [(2, 8)]
    a = duplicate_match(robots, deals=96, seed=2, jobs=1, progress=False)
    assert np.array_equal(a.per_deal, b.per_deal)


def test_ray_pool_replaces_a_dead_actor_and_loses_no_task(local_ray, tmp_path: Path) -> None:
    from mariash_env.ray_pool import ray_imap_unordered

    # Local functions: Ray ships them by value (the test module is not importable there).
    def _square_or_die(t: tuple[int, str]) -> int:
        import os

        i, marker = t
        if i == 3 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)  # the actor's process dies once, in the middle of a chunk
        if i == 99:
            raise ValueError("task 99 is bad")
        return i * i

    def _noop() -> None:
        pass

    marker = str(tmp_path / "died")
    tasks = [(i, marker) for i in range(10)]
    out = sorted(ray_imap_unordered(_square_or_die, tasks, 2, _noop, chunksize=2))
    assert Path(marker).exists() and out == [i * i for i in range(10)]
    with pytest.raises(ValueError, match="task 99 is bad"):
        list(ray_imap_unordered(_square_or_die, [(99, marker)], 1, _noop))


def test_arena_backend_arguments_are_checked() -> None:
    from mariash_env.arena import main

    for args, match in ((["--backend", "dask"], "invalid backend='dask'"),
                        (["--address", "auto"], "needs backend 'ray'")):
        with pytest.raises(SystemExit) as e:
            main(["--deals", "3", "--quiet", *args])
        assert e.value.code == 2, match


def test_ray_pool_names_an_init_that_raises_without_replacing_it(local_ray, capsys) -> None:
    """An actor's init that raises (a robot that cannot be built on a node) is the caller's
    error, named at once with the node: not a lost actor replaced and then Ray's
    ActorDiedError with a traceback for a message."""
    from mariash_env.ray_pool import ActorInitError, ray_imap_unordered

    def _no_robot() -> None:
        raise FileNotFoundError("models/missing.onnx")

    with pytest.raises(ActorInitError, match=r"init .*_no_robot failed on node .+: "
                                             r"FileNotFoundError: models/missing.onnx"):
        list(ray_imap_unordered(abs, range(4), 2, _no_robot))
    assert "[ray] actor" not in capsys.readouterr().err  # nothing was replaced


def test_ray_pool_whose_actors_cannot_start_fails_within_the_timeout(local_ray,
                                                                    monkeypatch) -> None:
    """Every CPU of the cluster held by other work (here an actor of both): the pool's
    actors are refused after the --ray-timeout with one line, as a replacement is (the
    pool waited forever)."""
    from mariash_env import ray_pool

    @ray.remote(num_cpus=2)
    class Hog:
        def ping(self) -> int:
            return 1

    def _no_init() -> None:
        pass

    hog = Hog.remote()
    ray.get(hog.ping.remote())
    monkeypatch.setitem(ray_pool._SESSION, "timeout", 2.0)
    try:
        with pytest.raises(ray_pool.RayClusterError,
                           match=r"none of the 2 Ray actors started within 2 s"):
            list(ray_pool.ray_imap_unordered(abs, range(4), 2, _no_init))
    finally:
        ray.kill(hog)


def _no_actor_left() -> bool:
    """The pool's actors were killed: both CPUs of the module's Ray free again (a killed
    actor's CPU comes back within moments; bounded wait, no timing asserted)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if ray.available_resources().get("CPU", 0) == 2:
            return True
        time.sleep(0.2)
    return False


def test_sigterm_stops_label_generation_and_a_match_on_ray_as_on_processes(
        local_ray, tmp_path: Path, monkeypatch) -> None:
    """SIGTERM to a label run or an arena match on Ray is a KeyboardInterrupt, as with
    worker processes (the front ends then say what was kept and exit 130), and the pool's
    actors are gone; the handler of a ray.init made by the pool itself (as in a pipeline's
    labels stage) ended the process with status 1 and no word."""
    from mariash_env import ray_pool
    from mariash_env.arena import duplicate_match
    from mariash_env.robots import RandomRobot, TableRobot
    from training.pimc_labels import _settings, generate

    def join_as_ray_init_does(*args, **kw) -> bool:  # Ray is the module's: set its handler
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(signum))
        return real_join(*args, **kw)

    real_join = ray_pool.join
    monkeypatch.setattr(ray_pool, "join", join_as_ray_init_does)
    before = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "labels"
    settings = _settings({"shard_size": 1, "worlds": 1, "seed": 0, "robot_share": 0.0,
                          "behaviour": "table", "epsilon": 0.0, "rules": {}})
    try:
        t = _sigterm_once(out / "shard_00000.npz")
        with pytest.raises(KeyboardInterrupt):
            generate(out, settings, 200, jobs=2, progress=False, backend="ray")
        t.join()
        assert _no_actor_left()
        assert 1 <= len(list(out.glob("shard_*.npz"))) < 200

        robots = {"table": TableRobot, "random": RandomRobot}
        (tmp_path / "match").mkdir()
        t = _sigterm_once(tmp_path / "match" / "deals.csv", lines=2)
        with pytest.raises(KeyboardInterrupt):
            duplicate_match(robots, deals=5000, jobs=2, progress=False, backend="ray",
                            out=tmp_path / "match")
        t.join()
        assert _no_actor_left()
    finally:
        signal.signal(signal.SIGTERM, before)


def test_labels_on_ray_are_the_process_runs_and_their_rate_leaves_out_the_start(
        local_ray, tmp_path: Path, monkeypatch) -> None:
    """Ray actors make the shards one process makes (a pipeline's labels stage keeps its
    labels when only its backend changes), and ``labels_per_s`` counts from the first
    shard's start: the time before it (Ray joined or started, its actors placed; here a
    join made 1.5 s slower, as a local ``ray.init`` is) is ``startup_s``, not in the
    rate, which included it."""
    from mariash_env import ray_pool
    from training.pimc_labels import _settings, generate

    def slow_join(*args, **kw) -> bool:
        time.sleep(1.5)
        return real_join(*args, **kw)

    real_join = ray_pool.join
    monkeypatch.setattr(ray_pool, "join", slow_join)
    settings = _settings({"shard_size": 2, "worlds": 1, "seed": 6, "robot_share": 0.0,
                          "behaviour": "table", "epsilon": 0.1, "rules": {}})
    r = generate(tmp_path / "ray", settings, 2, jobs=2, progress=False, backend="ray")
    assert (r["made"], r["states"]) == (2, 4)
    assert r["startup_s"] > 1.4 and r["label_s"] + r["startup_s"] == pytest.approx(r["seconds"])
    assert r["labels_per_s"] == round(4 / r["label_s"], 1)
    generate(tmp_path / "process", settings, 2, jobs=1, progress=False)
    for i in range(2):
        with np.load(tmp_path / "ray" / f"shard_{i:05d}.npz") as x, \
                np.load(tmp_path / "process" / f"shard_{i:05d}.npz") as y:
            assert x.files == y.files
            for k in x.files:  # a value is NaN for an illegal action
                assert np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f"), k


def test_games_that_do_not_fit_in_a_ray_workers_memory_are_one_error_line(
        local_ray, tmp_path: Path, capsys) -> None:
    """As with worker processes (tests/test_training_faults.py): buffers a Ray worker cannot
    allocate are one line saying it is out of memory and what to lower, not the worker's
    traceback in a RuntimeError."""
    import warnings

    from training.train import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # VectorEnv's own warning of the size
        rc = main(["--config", str(Path(__file__).resolve().parents[1]
                                   / "training/configs/demo.toml"),
                   "--out", str(tmp_path / "r"), "--backend", "ray",
                   "--set", "env.num_envs=10000000000000", "--set", "env.pipeline=false",
                   # the worker's start, not its timeout, is under test: 40-60 s on a loaded
                   # 2-core machine (a fresh clone's make test: "did not start within 60 s")
                   "--ray-timeout", "600"])
    err = capsys.readouterr().err
    assert rc == 1 and "error: out of memory (rollout worker 0: " in err
    assert "use fewer env.num_envs" in err and "Traceback" not in err
