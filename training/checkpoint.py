"""Checkpoints: written atomically, checked on reading, refused with a specific reason.

File format: ``MAGIC`` (16 bytes), the payload length (8 bytes, little endian), the
SHA-256 of the payload (32 bytes), then the payload, a ``torch.save`` dict read back
with ``weights_only=True`` (tensors, numbers, strings, lists and dicts only: a
checkpoint cannot run code).  Writing goes to a temporary file in the same directory,
is flushed and fsynced, then ``os.replace``-d over the target, and the directory is
fsynced: a crash leaves either the old or the new checkpoint, never a torn one.

The payload holds the method's state (network, optimizer), the counters, the RNG states
(python, numpy, torch, and the learner's numpy ``Generator``), the opponent pool, the
evaluation history, the full config, the game (``voleny``, ``licitovany`` or ``lizany``;
absent in checkpoints from before licitovaný: volený) with its observation layout (version, size,
number of actions, :mod:`mariash_env.kinds`) and network signature it was trained with.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import struct
import zipfile
from pathlib import Path
from typing import Any, NoReturn

import torch

from mariash_env.atomic import atomic_open
from mariash_env.cli import UnwritableError as UnwritableError  # one check for every tool
from mariash_env.cli import check_writable as check_writable
from mariash_env.games.registry import games

from .config import Config, ConfigError
from .networks import MLP, PolicyNet, build_network, game_of, mlp_of_shapes
from .relocate import Roots, moved_roots, relocate, same_after_move

MAGIC = b"MARIASH-CKPT-v1\n"
FORMAT = 1
KIND = "mariash-training-checkpoint"
_HEADER = len(MAGIC) + 8 + 32

# Config sections that may differ when a run is resumed (budget, logs, evaluation).
RESUMABLE_CHANGES = ("run.", "eval.")


class CheckpointError(Exception):
    """A checkpoint that cannot be used: missing, truncated, corrupt, or from another setup."""


def atomic_write_bytes(path: str | Path, chunks: list[bytes]) -> None:
    """Write ``chunks`` to ``path`` atomically (:func:`mariash_env.atomic.atomic_open`),
    creating its directory."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as f:
        for c in chunks:
            f.write(c)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process, or not a pid we can test: leave its file
    return True


def remove_stale_temp_files(directory: str | Path) -> list[Path]:
    """Delete the ``.NAME.tmp-PID`` files that :func:`atomic_write_bytes` leaves when its
    process is killed mid-write: only those whose process is gone (a live one may still be
    writing).  Returns the files removed."""
    removed = []
    directory = Path(directory)
    if not directory.is_dir():
        return removed
    for p in directory.glob(".*.tmp-*"):
        pid = p.name.rpartition(".tmp-")[2]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            try:
                p.unlink()
                removed.append(p)
            except FileNotFoundError:  # removed by someone else meanwhile
                pass
    return removed


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> int:
    """Write ``payload`` atomically; returns the file size in bytes."""
    buf = io.BytesIO()
    torch.save(payload, buf)
    data = buf.getvalue()
    header = MAGIC + struct.pack("<Q", len(data)) + hashlib.sha256(data).digest()
    atomic_write_bytes(path, [header, data])
    return len(header) + len(data)


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read and verify a checkpoint file (integrity and layout; not the config)."""
    path = Path(path)
    try:  # is_file() too raises for a path the system refuses (e.g. a name too long)
        if not path.is_file():
            raise CheckpointError(f"no checkpoint at {path}")
        raw = path.read_bytes()
    except OSError as e:
        raise CheckpointError(f"cannot read the checkpoint {path}: {e.strerror or e}") from None
    if raw[: len(MAGIC)] != MAGIC:
        if len(raw) < len(MAGIC) and MAGIC.startswith(raw):
            raise CheckpointError(f"checkpoint {path} is truncated: {len(raw)} bytes, not even "
                                  "the header is complete")
        hint = (" (it looks like a plain torch.save file)" if raw[:2] == b"PK" else "")
        raise CheckpointError(
            f"{path} is not a mariash training checkpoint: it does not start with the "
            f"magic bytes {MAGIC!r}{hint}")
    if len(raw) < _HEADER:
        raise CheckpointError(f"checkpoint {path} is truncated: {len(raw)} bytes, the header "
                              f"alone has {_HEADER}")
    (n,) = struct.unpack("<Q", raw[len(MAGIC):len(MAGIC) + 8])
    digest = raw[len(MAGIC) + 8:_HEADER]
    data = raw[_HEADER:]
    if len(data) < n:
        raise CheckpointError(f"checkpoint {path} is truncated: the header announces {n} "
                              f"payload bytes, the file holds {len(data)}")
    if len(data) > n:
        raise CheckpointError(f"checkpoint {path} is corrupt: {len(data) - n} unexpected "
                              "bytes after the payload")
    if hashlib.sha256(data).digest() != digest:
        raise CheckpointError(f"checkpoint {path} is corrupt: the SHA-256 of its payload does "
                              "not match the one in its header")
    try:
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except (RuntimeError, pickle.UnpicklingError, zipfile.BadZipFile, EOFError, ValueError,
            AttributeError, TypeError) as e:
        raise CheckpointError(f"checkpoint {path} is corrupt: its payload cannot be "
                              f"loaded ({type(e).__name__}: {e})") from None
    check_payload(payload, str(path))
    return payload


def check_payload(payload: Any, where: str) -> None:
    """Refuse a payload of another kind, format, observation layout or action space."""
    if not isinstance(payload, dict) or payload.get("kind") != KIND:
        raise CheckpointError(f"{where} is not a mariash training checkpoint (payload kind "
                              f"{payload.get('kind') if isinstance(payload, dict) else None!r})")
    if payload.get("format") != FORMAT:
        raise CheckpointError(f"{where} has checkpoint format {payload.get('format')!r}; "
                              f"this version of training reads format {FORMAT}")
    game = payload.get("game", "voleny")
    trained = {k.name: k for k in games("training")}
    if game not in trained:
        raise CheckpointError(f"{where} was trained for an unknown game {game!r}: expected one "
                              f"of {', '.join(trained)}")
    g = trained[game]
    for key, now, what in (("obs_version", g.obs_version, "observation layout version"),
                           ("obs_size", g.obs_size, "observation size"),
                           ("num_actions", g.n_actions, "number of actions")):
        if payload.get(key) != now:
            raise CheckpointError(
                f"{where} was trained with {what} {payload.get(key)!r} ({game} mariáš of "
                f"mariash_env then), but this environment has {now}: the network "
                "would misread observations or actions; retrain, or use the mariash_env "
                "version it was trained with")
    for key in ("config", "method", "network", "counters", "rng", "pool"):
        if key not in payload:
            raise CheckpointError(f"{where} is incomplete: it has no {key!r} entry")
    check_structure(payload, where)


_COUNTERS = ("iteration", "decisions", "samples", "updates", "deals")


def check_structure(payload: dict[str, Any], where: str) -> None:
    """Refuse a payload whose entries are not of the types the trainer, the export and
    :func:`load_policy` read (a file rewritten by hand keeps a valid SHA-256): a
    :class:`CheckpointError` naming the field and what was expected, before any of them
    uses it (a resume would otherwise fail half-way, its ``config.json`` rewritten)."""
    def bad(field: str, expected: str, got: Any) -> NoReturn:
        shown = repr(got) if not isinstance(got, (dict, list, torch.Tensor)) \
            else type(got).__name__
        raise CheckpointError(f"{where} is corrupt: {field} is {shown[:80]}, expected "
                              f"{expected}")

    def is_count(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    def tensors(field: str, d: Any) -> None:
        if not isinstance(d, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in d.items()):
            bad(field, "a dict of named tensors (a state dict)", d)

    for key in ("config", "method", "rng", "counters", "network", "pool"):
        if not isinstance(payload[key], dict):
            bad(key, "a dict", payload[key])
    net = payload["network"]
    if not isinstance(net.get("kind"), str):
        bad("network.kind", "a network kind (a string)", net.get("kind"))
    params = net.get("params", {})
    if not isinstance(params, dict) or not all(
            isinstance(k, str) and isinstance(v, (list, tuple)) and all(map(is_count, v))
            for k, v in params.items()):
        bad("network.params", "a dict of parameter names to shapes (lists of ints)", params)
    if "policy" in payload:
        tensors("policy", payload["policy"])
    if "net" in payload["method"]:
        tensors("method.net", payload["method"]["net"])
    c = payload["counters"]
    for k in _COUNTERS:
        if not is_count(c.get(k)):
            bad(f"counters.{k}", "an int >= 0", c.get(k))
    t = c.get("train_s")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t < float("inf"):
        bad("counters.train_s", "seconds >= 0", t)
    pool = payload["pool"]
    if not is_count(pool.get("next_id")):
        bad("pool.next_id", "an int >= 0", pool.get("next_id"))
    snaps = pool.get("snapshots")
    if not isinstance(snaps, list) or not all(
            isinstance(x, (list, tuple)) and len(x) == 2 and is_count(x[0]) for x in snaps):
        bad("pool.snapshots", "a list of [id, state dict] pairs", snaps)
    for i, (_, sd) in enumerate(snaps):
        tensors(f"pool.snapshots[{i}]", sd)
    hist = payload.get("history", [])
    if not isinstance(hist, list):
        bad("history", "a list of evaluations", hist)
    for i, h in enumerate(hist):
        if not isinstance(h, dict) or not is_count(h.get("iteration")) \
                or not isinstance(h.get("opponent"), str):
            bad(f"history[{i}]", "an evaluation (a dict with an int 'iteration' and a "
                "string 'opponent')", h)
        for k in ("mean", "ci_low", "ci_high"):
            if isinstance(h.get(k), bool) or not isinstance(h.get(k), (int, float)):
                bad(f"history[{i}].{k}", "a number", h.get(k))
    for key, kind in (("lineage", list), ("info", dict)):
        if key in payload and not isinstance(payload[key], kind):
            bad(key, f"a {kind.__name__}", payload[key])


def game_of_checkpoint(payload: dict[str, Any]) -> str:
    """The game a checkpoint was trained for (``voleny`` when it names none)."""
    return str(payload.get("game", "voleny"))


def check_game(payload: dict[str, Any], game: str, where: str) -> None:
    """Refuse a checkpoint of another game than ``game`` (resume, warm start, export)."""
    has = game_of_checkpoint(payload)
    if has != game:
        raise CheckpointError(
            f"{where} was trained for {has} mariáš but the config plays {game} mariáš "
            f"([env] rules); its network reads another game's observations and actions: "
            f"use a checkpoint of {game}, or set [env] rules = {{rules = \"{has}\"}}")


def check_network(payload: dict[str, Any], signature: dict[str, Any], where: str) -> None:
    """Refuse a checkpoint whose network shape differs from ``signature``."""
    old = payload["network"]
    if old.get("kind") != signature["kind"]:
        raise CheckpointError(f"{where} holds a {old.get('kind')!r} network, the config builds "
                              f"a {signature['kind']!r} network")
    a, b = old.get("params", {}), signature["params"]
    diffs = [f"{k}: checkpoint {a.get(k)}, config {b.get(k)}"
             for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    if diffs:
        shown = "; ".join(diffs[:6]) + (f"; and {len(diffs) - 6} more" if len(diffs) > 6 else "")
        raise CheckpointError(f"{where} has a network of another shape than the config's: "
                              f"{shown}")


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}} -> {"a.b": 1}``; a ``rules`` table stays one value."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict) and k != "rules":
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def config_differences(saved: dict[str, Any], now: dict[str, Any],
                       allowed: tuple[str, ...] = RESUMABLE_CHANGES,
                       moved: Roots | None = None) -> list[str]:
    """Config keys that differ (outside ``allowed`` prefixes), as readable lines; with
    ``moved``, a path of the run's own tree read at its new place is no difference."""
    a, b = _flatten(saved), _flatten(now)
    out = []
    for k in sorted(set(a) | set(b)):
        if k.startswith(allowed):
            continue
        if not same_after_move(a.get(k, "<missing>"), b.get(k, "<missing>"), moved):
            out.append(f"{k}: checkpoint {a.get(k, '<missing>')!r}, now {b.get(k, '<missing>')!r}")
    return out


def check_config(payload: dict[str, Any], config: dict[str, Any], where: str,
                 moved: Roots | None = None) -> None:
    diffs = config_differences(payload["config"], config, moved=moved)
    if diffs:
        raise CheckpointError(
            f"{where} was written by a run with another configuration; refusing to resume "
            f"with: {'; '.join(diffs)} (on --resume only [run] and [eval] options may change)")


def run_moved(payload: dict[str, Any], out: str | Path) -> Roots | None:
    """Where the run of ``payload``, now in folder ``out``, moved from and to (None: it did
    not, or its checkpoint predates the record of its folder)."""
    return moved_roots(payload.get("info", {}).get("out"), out)


def stored_config(payload: dict[str, Any], out: str | Path) -> dict[str, Any]:
    """The config a run's checkpoint stores, the paths of its moved tree read where they
    are now (training/relocate.py)."""
    return relocate(payload["config"], run_moved(payload, out), existing=True)


def _stage(path: str | Path, seed: Any, counters: dict[str, Any], written: Any
           ) -> dict[str, Any]:
    """One lineage entry: the run at ``path`` and how much it trained."""
    return {"checkpoint": str(path), "seed": seed, "iteration": counters.get("iteration"),
            "decisions": counters.get("decisions"), "updates": counters.get("updates"),
            "train_s": counters.get("train_s"), "written": written}


def lineage_after(init: dict[str, Any], path: str | Path) -> list[dict[str, Any]]:
    """The lineage of a run warm-started from checkpoint ``init`` (read from ``path``)."""
    return lineage_of(init) + [_stage(path, init.get("config", {}).get("seed"),
                                      init.get("counters", {}),
                                      init.get("info", {}).get("time"))]


def lineage_of(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs a checkpoint's run was warm-started from (``config.init``), oldest first.

    A checkpoint stores it (``payload["lineage"]``); for one written before that field
    existed it is rebuilt from the ``init`` checkpoint when that file is at hand."""
    if "lineage" in payload:
        return list(payload["lineage"])
    path = payload.get("config", {}).get("init")
    if not path or not Path(path).is_file():
        return []
    return lineage_after(read_checkpoint(path), path)


def mlp_of_stored_shapes(params: dict[str, Any], where: str | Path) -> MLP:
    """The MLP of a stored network's parameter shapes (a checkpoint's ``network.params``, an
    export's weights): the narrower network of a widened warm start
    (``network.widen_init``).  Refused with :class:`CheckpointError` when they are not an
    MLP's."""
    try:
        return mlp_of_shapes(params)
    except ValueError as e:
        raise CheckpointError(f"{where}: {e}") from None


def read_onnx_policy(path: str | Path, net: PolicyNet | None) -> dict[str, Any]:
    """The weights of an exported robot (``python -m training.export``) as ``net``'s state
    dict, its game and the lineage of a run warm-started from it: the export keeps every
    parameter under its torch name, so a shipped model can start a run
    (``init = "models/robot.onnx"``) when its own checkpoint is gone.  ``net=None``: the
    MLP of the export's own weight shapes (:func:`mlp_of_stored_shapes`), returned as
    ``"net"``.  Refused with :class:`CheckpointError`: not a robot, another observation
    layout (the checks of :class:`~mariash_env.robots.onnx_robot.OnnxRobot`), another
    network shape."""
    import onnx
    from onnx import numpy_helper

    from mariash_env.robots.onnx_robot import OnnxRobot, OnnxRobotError

    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no exported model at {path}")
    try:
        robot = OnnxRobot(path)
    except OnnxRobotError as e:
        raise CheckpointError(str(e)) from None
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy())
               for i in onnx.load(str(path)).graph.initializer}
    if net is None:
        net = mlp_of_stored_shapes(weights, path)
    want = net.state_dict()
    diffs = [f"{k}: model {list(weights[k].shape) if k in weights else None}, config "
             f"{list(v.shape)}" for k, v in want.items()
             if k not in weights or weights[k].shape != v.shape]
    if diffs:
        raise CheckpointError(f"{path} has a network of another shape than the config's: "
                              + "; ".join(diffs[:6]))
    t = robot.training  # the export's training facts (training.export.training_info)
    lineage = list(t.get("lineage") or []) + [
        _stage(path, (t.get("config") or {}).get("seed"),
               {**t, "train_s": t.get("train_seconds")}, t.get("written"))]
    return {"game": robot.game.name, "state_dict": {k: weights[k] for k in want},
            "training": t, "lineage": lineage, "net": net}


def load_policy(checkpoint: str | Path) -> tuple[PolicyNet, dict[str, Any]]:
    """The greedy policy network of a checkpoint (CPU, eval mode) and the payload."""
    payload = read_checkpoint(checkpoint)
    try:
        cfg = Config.from_dict(payload["config"], f"the config stored in {checkpoint}")
    except ConfigError as e:  # the file's fault, not a config the user gave
        raise CheckpointError(f"{checkpoint} is corrupt: {e}") from None
    check_game(payload, game_of(cfg.env.rules).name, str(checkpoint))
    net = build_network(cfg.network, game_of(cfg.env.rules))
    check_network(payload, net.signature(), str(checkpoint))
    state = payload.get("policy") or payload["method"].get("net")
    if state is None:
        raise CheckpointError(f"{checkpoint} holds no policy network")
    try:  # a tensor missing or of another shape than network.params says
        net.load_state_dict(state)
    except RuntimeError as e:
        raise CheckpointError(f"{checkpoint}: its policy weights cannot be loaded "
                              f"({' '.join(str(e).split())})") from None
    net.eval()
    return net, payload
