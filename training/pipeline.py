"""One declared training pipeline per model: a recipe runs every stage, resumably.

    python -m training.pipeline training/recipes/voleny_net.toml --out runs/voleny_net
    python -m training.pipeline RECIPE --out RUN --dry-run          # the plan, the commands
    python -m training.pipeline RECIPE --out RUN --until distill    # stop after that stage
    python -m training.pipeline RECIPE --out RUN --only gate_final   # that stage alone
    python -m training.pipeline RECIPE --out RUN --plot             # redraw RUN/curve.png

A recipe (TOML) has a ``[recipe]`` table (``name``, ``game`` -- a game of the registry
that the training front end drives --, ``seed``, optional ``description``) and an
ordered list of ``[[stage]]`` tables, each with a ``name``, a ``kind`` and that kind's
keys (:data:`KEYS`):

- ``labels``: PIMC teacher labels (:func:`training.pimc_labels.generate`, ``jobs``
  worker processes or Ray actors, a labels/s bar) of the recipe's game, any game;
  ``behaviour`` defaults to the generator's robot of that game.
- ``train``: a run of :class:`training.trainer.Trainer` from an existing config file
  (``config``), with ``init``, ``seed`` and dotted ``set`` overrides; the last
  checkpoint is also exported as ``model.onnx`` so later stages can play it.  Its
  ``backend`` (``"process"`` or ``"ray"``, with ``address``) is where its rollout
  workers run, as ``python -m training.train --backend``: the same checkpoint.  A stage
  on Ray (any kind) joins and checks its cluster at its start, as that command does, and
  takes ``ray_timeout`` (seconds, default 60: its ``--ray-timeout``, how long joining the
  cluster and starting or replacing a worker may take).
- ``dagger``: one DAgger round: labels of the states the ``student`` reaches itself
  (it is the behaviour robot), then a ``train`` stage with those labels put ``into``
  a label option of the config (``dmc.more_label_data`` by default); its ``backend``,
  ``address`` and ``ray_timeout`` are both parts'.
- ``gate``: the arena's duplicate match of ``model`` against each of ``robots``; with
  ``min_gain`` (mean) or ``min_ci_low`` (the 95% CI's lower end) the pipeline stops when
  a robot's figure falls short.  Rows go to ``RUN/gates.csv``; ``RUN/curve.png`` plots
  every gate's score by stage (the learning curve).  Its deals play in ``jobs`` worker
  processes or, with ``backend = "ray"`` (and ``address``, ``ray_timeout``), Ray actors:
  the same scores.
- ``export``: the ONNX robot and its model card (:mod:`training.export`), whose
  "Reproduce" section names this pipeline's command (with ``--until`` that stage when
  later stages follow: a recipe may export a model and train on from it).

A value ``"@stage.output"`` is an earlier stage's output (:data:`OUTPUTS`: a label
``dir``, a ``checkpoint``, a ``model``...), e.g. ``init = "@ship.checkpoint"`` or
``behaviour = "@distill.model"``.  The whole recipe is checked before anything runs.

Every stage's outputs live in ``RUN/<stage>/``.  ``RUN/pipeline.json`` (written
atomically) records the finished stages, which a rerun skips (each with the fingerprints
of the stages it uses: one of those finished anew, it runs again; a finished stage whose
recipe arguments changed is refused, but for a labels, dagger or gate stage's ``jobs``,
``backend``, ``address`` and ``ray_timeout`` and a train stage's ``backend``, ``address``
and ``ray_timeout``: how its work is spread, not what it makes); an
interrupted stage resumes where it stood (label shards are kept, a training run continues from its
checkpoint), so rerunning the same command after any stop goes on.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import math
import re
import secrets
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mariash_env import jsonio, tomlio
from mariash_env.atomic import atomic_open
from mariash_env.cli import UnwritableError, check_writable, closed_stdout, quiet_on_closed_pipe
from mariash_env.textfile import NotUtf8Error

from .logs import EVAL_COLUMNS, NUMBER, TEXT, LogError, read_log
from .logs import NAME as A_NAME

FORMAT = "mariash-pipeline-v1"
STATE = "pipeline.json"
GATES = "gates.csv"
CURVE = "curve.png"
RECIPE_KEYS = {"name": str, "game": str, "seed": int, "description": str}
LABEL_KEYS = {"states": int, "shard_size": int, "worlds": int, "worlds_from": str,
              "playout": str,
              "phase": str, "roles": str, "contracts": list, "seed": int,
              "robot_share": float, "epsilon": float, "jobs": int, "backend": str,
              "address": str, "ray_timeout": float, "from_trick": int}
# a train stage's backend: where its rollout workers run (as python -m training.train)
TRAIN_KEYS = {"config": str, "init": str, "seed": int, "set": dict, "backend": str,
              "address": str, "ray_timeout": float}
KEYS: dict[str, dict[str, type]] = {
    "labels": {**LABEL_KEYS, "behaviour": str},
    "train": TRAIN_KEYS,
    "dagger": {**LABEL_KEYS, **TRAIN_KEYS, "student": str, "into": str},
    "gate": {"model": str, "robots": list, "deals": int, "seed": int, "min_gain": float,
             "min_ci_low": float, "jobs": int, "backend": str, "address": str,
             "ray_timeout": float},
    "export": {"model": str, "out": str, "card": str, "card_deals": int, "check": int},
}
BACKENDS = ("process", "ray")  # a labels, train, dagger or gate stage's ``backend``
# The keys that say how a stage's work is spread (worker processes or Ray actors, and
# where), not what it makes: a label shard is a function of the settings and its index
# alone (training.pimc_labels), a synchronous training run writes the same checkpoint
# on either backend (docs/ray.md), and a gate's match does not depend on where its deals
# play (the arena's), so a finished stage whose recipe changed only these is kept, saying
# so.  ``ray_timeout`` is the commands' ``--ray-timeout`` (mariash_env.ray_pool.join): how
# long joining the cluster and starting or replacing a worker may take.
HOW_KEYS = {"labels": ("jobs", "backend", "address", "ray_timeout"),
            "train": ("backend", "address", "ray_timeout"),
            "dagger": ("jobs", "backend", "address", "ray_timeout"),
            "gate": ("jobs", "backend", "address", "ray_timeout")}
REQUIRED = {"labels": ("states",), "train": ("config",),
            "dagger": ("student", "states", "config"), "gate": ("model", "robots"),
            "export": ("model",)}
# what a later stage may refer to as "@stage.output"
OUTPUTS = {"labels": ("dir",), "train": ("dir", "checkpoint", "model"),
           "dagger": ("dir", "labels", "checkpoint", "model"), "gate": (),
           "export": ("model", "card")}
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
REF = re.compile(r"@([A-Za-z][A-Za-z0-9_]*)\.([a-z]+)\Z")
GATE_FIELDS = ("gate", "model_stage", "model", "robot", "deals", "seed", "mean", "ci_low",
               "ci_high", "unit")
# The columns of ``RUN/gates.csv`` its readers use (training.logs.read_log): a gate's
# rows replaced (_write_gates), the curve's gate panel (plot_curve); model_stage is
# empty where the gate's model is a file, not an earlier stage's
GATE_COLUMNS = {"gate": A_NAME, "model_stage": TEXT, "robot": A_NAME, "mean": NUMBER,
                "ci_low": NUMBER, "ci_high": NUMBER, "unit": A_NAME}
PARITY_CHECK = 512  # observations of the torch/ONNX check of a stage's model.onnx
# games a gate plays together (duplicate_eval's num_envs): 500 deals of six seatings a
# batch, a batch a task of its jobs (one deal a task against a robot that plays from a view)
GATE_GAMES = 3000


class PipelineError(ValueError):
    """A recipe that cannot run: the message names the stage and key and what was expected."""


class GateError(RuntimeError):
    """A gate's figure fell short of its threshold (one line, naming the figure)."""


class StageStopped(RuntimeError):
    """A stage stopped before its end (a signal); rerunning the command resumes it."""


class StageError(RuntimeError):
    """A stage failed (a refused label directory or checkpoint, a disk error...): the
    message names the stage; what it finished is kept and the same command resumes."""


@dataclass
class Stage:
    """One ``[[stage]]`` of a recipe, its references resolved to paths."""

    name: str
    kind: str
    index: int
    args: dict[str, Any]  # as written in the recipe
    resolved: dict[str, Any]  # references replaced by the earlier stages' paths
    outputs: dict[str, str]
    refs: dict[str, str] = field(default_factory=dict)  # key -> the stage it refers to


@dataclass
class Recipe:
    """A checked recipe: its stages in order, every path under ``out``."""

    path: Path
    name: str
    game: str
    seed: int
    out: Path
    stages: list[Stage]
    description: str = ""

    def stage(self, name: str) -> Stage:
        for s in self.stages:
            if s.name == name:
                return s
        raise PipelineError(f"{self.path}: no stage {name!r}: expected one of "
                            f"{[s.name for s in self.stages]}")

    def command(self, until: str | None = None) -> str:
        """The one command that runs this recipe (the model cards' "Reproduce"), up to the
        stage ``until`` when that is not the last (an export before later stages)."""
        cmd = f"python -m training.pipeline {self.path.as_posix()} --out {self.out.as_posix()}"
        if until is not None and until != self.stages[-1].name:
            cmd += f" --until {until}"
        return cmd

    def warm_starts(self, until: str | None = None) -> list[str]:
        """The committed models (``models/...``) that the recipe's training stages start
        from, up to the stage ``until``: the recipe reproduces its models from those (each
        with its own card), not from scratch."""
        out: list[str] = []
        for s in self.stages:
            init = str(train_start(self, s)[1] or "")
            if init.startswith("models/") and init not in out:
                out.append(init)
            if s.name == until:
                break
        return out


# -- reading and checking a recipe -------------------------------------------------------


def _outputs(kind: str, out: Path, name: str, args: dict[str, Any]) -> dict[str, str]:
    d = out / name
    if kind == "labels":
        return {"dir": str(d)}
    if kind == "train":
        return {"dir": str(d), "checkpoint": str(d / "checkpoint.pt"),
                "model": str(d / "model.onnx")}
    if kind == "dagger":
        return {"dir": str(d), "labels": str(d / "labels"),
                "checkpoint": str(d / "train" / "checkpoint.pt"),
                "model": str(d / "train" / "model.onnx")}
    if kind == "export":
        onnx = out / args.get("out", f"{name}.onnx")
        card = out / args.get("card", f"{Path(onnx).stem.upper()}.md")
        return {"model": str(onnx), "card": str(card)}
    return {}


def _check_type(where: str, value: Any, want: type) -> None:
    if want is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif want is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, want)
    if not ok:
        raise PipelineError(f"{where}: expected {want.__name__}, got {type(value).__name__} "
                            f"{value!r}")


def load_recipe(path: str | Path, out: str | Path | None = None) -> Recipe:
    """Read and check a whole recipe (PipelineError naming the stage and key otherwise);
    ``out`` is the run directory (default ``runs/<recipe name>``)."""
    path = Path(path)
    try:
        raw = tomlio.read(path)
    except OSError as e:
        raise PipelineError(f"cannot read the recipe {path}: {e.strerror or e}") from None
    except NotUtf8Error as e:  # a bare UnicodeDecodeError before
        raise PipelineError(f"{path}: {e}") from None
    except ValueError as e:  # TOMLDecodeError, NestingError (a RecursionError before)
        raise PipelineError(f"{path}: not valid TOML: {e}") from None
    extra = sorted(set(raw) - {"recipe", "stage"})
    if extra:
        raise PipelineError(f"{path}: unknown table(s) {extra}: expected [recipe] and "
                            "[[stage]] tables")
    head = raw.get("recipe")
    if not isinstance(head, dict):
        raise PipelineError(f"{path}: no [recipe] table (name, game, seed)")
    for key in sorted(set(head) - set(RECIPE_KEYS)):
        raise PipelineError(f"{path}: [recipe] unknown key {key!r}: expected some of "
                            f"{sorted(RECIPE_KEYS)}")
    for key in ("name", "game"):
        if key not in head:
            raise PipelineError(f"{path}: [recipe] needs {key!r}")
    for key, value in head.items():
        _check_type(f"{path}: [recipe] {key}", value, RECIPE_KEYS[key])
    from mariash_env.games.base import GameError
    from mariash_env.games.registry import game_kind

    try:
        game = game_kind(head["game"], front_end="training").name
    except GameError as e:
        raise PipelineError(f"{path}: [recipe] game = {head['game']!r}: {e}") from None
    recipe = Recipe(path, head["name"], game, int(head.get("seed", 0)),
                    Path(out) if out is not None else Path("runs") / head["name"], [],
                    head.get("description", ""))
    tables = raw.get("stage", [])
    if not isinstance(tables, list) or not tables:
        raise PipelineError(f"{path}: no stages: expected [[stage]] tables")
    for i, table in enumerate(tables):
        recipe.stages.append(_read_stage(recipe, i, table))
    for stage in recipe.stages:
        _check_stage(recipe, stage)
    return recipe


def _a(kind: str) -> str:
    """A stage's kind with its article, as a message says it: "a train", "an export"."""
    return ("an " if kind[:1] in "aeiou" else "a ") + kind


def _read_stage(recipe: Recipe, index: int, table: dict[str, Any]) -> Stage:
    name = table.get("name")
    where = f"{recipe.path}: stage {index + 1}"
    if not isinstance(name, str) or not NAME.match(name):
        raise PipelineError(f"{where}: 'name' = {name!r}: expected a name of letters, digits "
                            "and _ (starting with a letter)")
    where = f"{recipe.path}: stage {name!r}"
    if any(s.name == name for s in recipe.stages):
        raise PipelineError(f"{where}: the name is taken by an earlier stage")
    kind = table.get("kind")
    if kind not in KEYS:
        raise PipelineError(f"{where}: kind = {kind!r}: expected one of {list(KEYS)}")
    args = {k: v for k, v in table.items() if k not in ("name", "kind")}
    for key in args:
        if key not in KEYS[kind]:
            raise PipelineError(f"{where}: unknown key {key!r} for {_a(kind)} stage: expected "
                                f"some of {sorted(KEYS[kind])}")
        _check_type(f"{where}: {key}", args[key], KEYS[kind][key])
    for key in REQUIRED[kind]:
        if key not in args:
            raise PipelineError(f"{where}: {_a(kind)} stage needs {key!r}")
    stage = Stage(name, kind, index, args, {}, _outputs(kind, recipe.out, name, args))
    stage.resolved = {k: _resolve(recipe, stage, k, v) for k, v in args.items()}
    return stage


def _resolve(recipe: Recipe, stage: Stage, key: str, value: Any) -> Any:
    """``value`` with every ``"@stage.output"`` replaced by that earlier stage's path."""
    if isinstance(value, list):
        return [_resolve(recipe, stage, key, v) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(recipe, stage, f"{key}.{k}", v) for k, v in value.items()}
    if not (isinstance(value, str) and value.startswith("@")):
        return value
    where = f"{recipe.path}: stage {stage.name!r} key {key!r}"
    m = REF.match(value)
    if not m:
        raise PipelineError(f"{where}: reference {value!r}: expected '@stage.output'")
    target, output = m.groups()
    earlier = {s.name: s for s in recipe.stages}
    if target not in earlier:  # a later stage, the stage itself or none at all
        raise PipelineError(f"{where}: reference {value!r}: {target!r} is not an earlier "
                            f"stage (the stages before it: {list(earlier)})")
    t = earlier[target]
    if output not in OUTPUTS[t.kind]:
        raise PipelineError(f"{where}: reference {value!r}: {_a(t.kind)} stage has the "
                            f"outputs {list(OUTPUTS[t.kind])}, not {output!r}")
    stage.refs[key] = target
    return t.outputs[output]


def _need(ok: bool, where: str, msg: str) -> None:
    if not ok:
        raise PipelineError(f"{where}: {msg}")


def _check_stage(recipe: Recipe, stage: Stage) -> None:
    where = f"{recipe.path}: stage {stage.name!r}"
    a = stage.resolved
    if stage.kind in ("labels", "dagger"):
        from .pimc_labels import LABELLED

        _need(recipe.game in LABELLED, f"{where} kind", f"PIMC teacher labels are made for "
              f"{', '.join(sorted(LABELLED))}; this recipe's game is {recipe.game}")
        _label_settings(recipe, stage, "(student)")  # raises on bad label options
        for key in ("states", "shard_size", "worlds", "jobs"):
            _need(a.get(key, 1) >= 1, f"{where} key {key!r}", f"expected >= 1, got {a.get(key)}")
    if stage.kind == "gate":  # as a labels stage's
        _need(a.get("jobs", 1) >= 1, f"{where} key 'jobs'", f"expected >= 1, got {a.get('jobs')}")
    if "jobs" in a:  # a typo is not a process each (the arena's and pimc_labels' bound)
        from mariash_env.arena import MAX_JOBS

        _need(a["jobs"] <= MAX_JOBS, f"{where} key 'jobs'",
              f"expected at most {MAX_JOBS} (processes or Ray actors), got {a['jobs']}")
    if stage.kind in ("labels", "train", "dagger", "gate"):
        _need(a.get("backend", "process") in BACKENDS, f"{where} key 'backend'",
              f"expected one of {', '.join(map(repr, BACKENDS))}, got {a.get('backend')!r}")
        _need("address" not in a or a.get("backend") == "ray", f"{where} key 'address'",
              "a Ray cluster's address needs backend = 'ray'")
        if "ray_timeout" in a:  # as --ray-timeout: a number of seconds, with backend ray
            _need(a.get("backend") == "ray", f"{where} key 'ray_timeout'",
                  "a Ray timeout needs backend = 'ray'")
            _need(0 < a["ray_timeout"] < math.inf, f"{where} key 'ray_timeout'",
                  f"expected seconds > 0 (finite), got {a['ray_timeout']!r}")
    if stage.kind == "labels" and a.get("robot_share", 0.7) > 0:
        behaviour = _behaviour(recipe, stage)
        if behaviour.endswith(".onnx"):  # a file or "onnx:FILE"; a spec ("table") is no file
            _need_file(recipe, stage, "behaviour", behaviour.removeprefix("onnx:"))
    if stage.kind in ("train", "dagger"):
        cfg = stage_config(recipe, stage)
        from .networks import game_of

        got = game_of(cfg.env.rules).name
        _need(got == recipe.game, f"{where} key 'config'", f"{a['config']} trains {got}, "
              f"the recipe's game is {recipe.game}")
        key, init = train_start(recipe, stage, cfg)
        if init:
            _need_file(recipe, stage, key, init)
        _need(cfg.env.max_lag == 0 or (a.get("backend") == "ray" and not cfg.env.pipeline),
              f"{where} key 'backend'", f"env.max_lag = {cfg.env.max_lag} (asynchronous "
              "sampling) needs backend = 'ray' and env.pipeline = false")
    if stage.kind == "dagger":
        _need_file(recipe, stage, "student", a["student"])
    if stage.kind == "gate":
        _need_file(recipe, stage, "model", a["model"])
        robots = a["robots"]
        _need(bool(robots) and all(isinstance(r, str) for r in robots), f"{where} key 'robots'",
              f"expected a list of robot names, got {robots!r}")
        from mariash_env.robots import ROBOT_NAMES

        known = {n.partition(":")[0] for n in ROBOT_NAMES}
        for r in robots:
            base = r.partition("(")[0].strip().partition(":")[0]
            _need(base in known, f"{where} key 'robots'", f"unknown robot {r!r}: expected "
                  f"one of {', '.join(ROBOT_NAMES)}")
        _need(a.get("deals", 1000) >= 1, f"{where} key 'deals'", "expected >= 1")
        _need(not ("min_gain" in a and "min_ci_low" in a), where,
              "give one threshold: min_gain (the mean) or min_ci_low (the CI's lower end)")
        # the run's state (JSON) writes inf and nan as null: a finished stage of such a
        # threshold would not be its recipe's on resume (and -inf gates nothing, +inf and
        # nan stop every time)
        for key in ("min_gain", "min_ci_low"):
            _need(key not in a or math.isfinite(a[key]), f"{where} key {key!r}",
                  f"expected a finite number, got {a.get(key)!r} (no threshold: leave the "
                  "key out)")
        # one deal has no interval (the arena gives NaN): a CI threshold would be met by none
        _need("min_ci_low" not in a or a.get("deals", 1000) >= 2, f"{where} key 'deals'",
              f"min_ci_low needs >= 2 deals (one deal gives no interval), got {a.get('deals')}")
    if stage.kind == "export":
        _need(stage.outputs["model"].endswith(".onnx"), f"{where} key 'out'",
              f"expected a .onnx file name, got {a.get('out')!r}")
        _need(not a["model"].endswith(".onnx"), f"{where} key 'model'",
              "export needs a training checkpoint ('@stage.checkpoint'), not an ONNX robot")
        _need_file(recipe, stage, "model", a["model"])
        for key in ("card_deals", "check"):
            _need(a.get(key, 0) >= 0, f"{where} key {key!r}", "expected >= 0")


def _need_file(recipe: Recipe, stage: Stage, key: str, path: str) -> None:
    """A path not made by an earlier stage must exist already, and a model there must be
    of the recipe's game (an earlier stage's are: their configs are checked)."""
    if stage.refs.get(key.split()[0]) is not None:
        return
    if not Path(path).exists():
        raise PipelineError(f"{recipe.path}: stage {stage.name!r} key {key!r}: {path} does "
                            "not exist (give a file, or '@stage.output' of an earlier stage)")
    got = _model_game(path) if key.split()[0] in ("model", "init", "student",
                                                  "behaviour") else None
    if got is not None and got != recipe.game:
        raise PipelineError(f"{recipe.path}: stage {stage.name!r} key {key!r}: {path} is a "
                            f"model of {got}, the recipe's game is {recipe.game}")


def _model_game(path: str) -> str | None:
    """The game of a model file, an ONNX robot or a training checkpoint; None for another
    file or one that cannot be read (the stage that uses it says why)."""
    try:
        if path.endswith(".onnx"):
            from mariash_env.robots.onnx_robot import OnnxRobot

            return OnnxRobot(path).game.name
        if path.endswith(".pt"):
            from .checkpoint import game_of_checkpoint, read_checkpoint

            return game_of_checkpoint(read_checkpoint(path))
    except Exception:  # noqa: BLE001 - any unreadable model: its stage reports it
        return None
    return None


def _behaviour(recipe: Recipe, stage: Stage) -> str:
    """A label stage's behaviour robot: its ``behaviour``, else the generator's default for
    the recipe's game (volený ``models/robot.onnx``, any other game its shipped network's
    robot spec, e.g. ``onnx:models/robot_licitovany.onnx``)."""
    from .pimc_labels import default_behaviour

    return stage.resolved.get("behaviour") or default_behaviour(recipe.game)


def _label_settings(recipe: Recipe, stage: Stage, behaviour: str) -> dict[str, Any]:
    """The settings of :mod:`training.pimc_labels` for a labels or dagger stage."""
    from .pimc_labels import CONTRACTS, LabelError, _settings

    a = stage.resolved
    opts = {"worlds": a.get("worlds", 6), "shard_size": a.get("shard_size", 1000),
            "seed": a.get("seed", recipe.seed), "behaviour": behaviour,
            "robot_share": float(a.get("robot_share", 0.7)),
            "epsilon": float(a.get("epsilon", 0.03)),
            "rules": {"rules": recipe.game},  # volený's, the default, is recorded as {}
            "phase": a.get("phase", "play"), "roles": a.get("roles", "all"),
            "contracts": a.get("contracts", list(CONTRACTS)),
            "worlds_from": a.get("worlds_from", "sampled"),
            "playout": a.get("playout", "table"),
            "from_trick": a.get("from_trick")}  # a game labelled by its own robot (lízaný)
    where = f"{recipe.path}: stage {stage.name!r}"
    _need(opts["phase"] in ("play", "bidding"), f"{where} key 'phase'",
          f"expected 'play' or 'bidding', got {opts['phase']!r}")
    for key in ("robot_share", "epsilon"):
        _need(0 <= opts[key] <= 1, f"{where} key {key!r}", f"expected 0..1, got {opts[key]}")
    try:
        return _settings(opts)
    except LabelError as e:
        raise PipelineError(f"{where}: {e}") from None


def _overrides(recipe: Recipe, stage: Stage) -> dict[str, Any]:
    """The dotted config overrides of a train or dagger stage (``set``, ``init``, ``seed``
    and, for dagger, its labels put ``into`` the config)."""
    a = stage.resolved
    ov = dict(a.get("set", {}))
    if "init" in a:
        ov["init"] = a["init"]
    elif stage.kind == "dagger":
        ov["init"] = a["student"]
    if "seed" in a and stage.kind == "train":
        ov["seed"] = a["seed"]
    return ov


def _dagger_into(d: dict[str, Any], stage: Stage) -> tuple[str, Any]:
    """The config option a DAgger stage's labels go into and its new value: appended to
    a list option (``dmc.more_label_data``), replacing a directory option."""
    into = stage.resolved.get("into", "dmc.more_label_data")
    section, _, opt = into.partition(".")
    have = d.get(section, {}).get(opt) if isinstance(d.get(section), dict) else None
    labels = stage.outputs["labels"]
    if isinstance(have, list) or (have is None and opt == "more_label_data"):
        return into, [*(have or []), labels]
    return into, labels


def train_start(recipe: Recipe, stage: Stage, cfg: Any = None) -> tuple[str, str | None]:
    """``(key, path)``: what a train or dagger stage's weights start from -- its ``init``,
    else (a train stage) its config's; a dagger stage otherwise starts from its student --
    or ``(key, None)`` for a fresh start or another kind."""
    if stage.kind not in ("train", "dagger"):
        return "init", None
    if stage.resolved.get("init"):
        return "init", stage.resolved["init"]
    if stage.kind == "dagger":
        return "init", None
    cfg = cfg if cfg is not None else stage_config(recipe, stage)
    return "init (from the config)", cfg.init or None


def stage_config(recipe: Recipe, stage: Stage) -> Any:
    """The :class:`training.config.Config` of a train or dagger stage (PipelineError
    naming the stage when its config or overrides are refused)."""
    from .config import Config, ConfigError, apply_override

    a = stage.resolved
    where = f"{recipe.path}: stage {stage.name!r}"
    p = Path(a["config"])
    try:
        d = tomlio.read(p)
    except OSError as e:
        raise PipelineError(f"{where} key 'config': cannot read {p}: {e.strerror or e}") \
            from None
    except NotUtf8Error as e:
        raise PipelineError(f"{where} key 'config': {p}: {e}") from None
    except ValueError as e:  # TOMLDecodeError, NestingError (a RecursionError before)
        raise PipelineError(f"{where} key 'config': {p} is not valid TOML: {e}") from None
    try:
        for key, value in _overrides(recipe, stage).items():
            apply_override(d, key, value)
        if stage.kind == "dagger":
            apply_override(d, *_dagger_into(d, stage))
        return Config.from_dict(d, f"{p} (stage {stage.name!r})")
    except ConfigError as e:
        raise PipelineError(f"{where}: {e}") from None


# -- the plan ----------------------------------------------------------------------------


def _flags(pairs: list[tuple[str, Any]]) -> str:
    out = []
    for flag, value in pairs:
        if value is None:
            continue
        if isinstance(value, list):
            value = ",".join(map(str, value))
        out += [flag, str(value)]
    return shlex.join(out)


def _label_command(recipe: Recipe, stage: Stage, out: str, behaviour: str) -> str:
    s = _label_settings(recipe, stage, behaviour)
    a = stage.resolved
    return "python -m training.pimc_labels " + _flags([
        ("--rules", s["rules"].get("rules")), ("--out", out), ("--states", a["states"]),
        ("--shard-size", s["shard_size"]), ("--worlds", s["worlds"]),
        # the default is left out: the plans of the recipes made before it stay as they were
        ("--worlds-from", None if s.get("worlds_from", "sampled") == "sampled"
         else s["worlds_from"]),
        ("--playout", None if s.get("playout", "table") == "table" else s["playout"]),
        ("--from-trick", s.get("from_trick")),  # only a game labelled by its own robot's
        ("--phase", s["phase"]), ("--roles", s.get("roles")),
        ("--contracts", s.get("contracts")), ("--seed", s["seed"]), ("--behaviour", behaviour),
        ("--robot-share", s["robot_share"]), ("--epsilon", s["epsilon"]),
        ("--jobs", a.get("jobs", 1)), ("--backend", a.get("backend", "process")),
        ("--address", a.get("address")), ("--ray-timeout", a.get("ray_timeout"))])


def _train_commands(recipe: Recipe, stage: Stage, out: str, ckpt: str, model: str
                    ) -> list[str]:
    from .config import apply_override

    overrides = _overrides(recipe, stage)
    if stage.kind == "dagger":  # its labels join the option named by "into"
        d = tomlio.read(stage.resolved["config"])
        for k, v in overrides.items():
            apply_override(d, k, v)
        k, v = _dagger_into(d, stage)
        overrides = {**{o: w for o, w in overrides.items() if o != k}, k: v}
    sets = []
    for k, v in overrides.items():
        sets += ["--set", f"{k}={json.dumps(v) if not isinstance(v, str) else v}"]
    a = stage.resolved
    backend = ["--backend", "ray"] if a.get("backend") == "ray" else []
    address = ["--address", a["address"]] if a.get("address") else []
    timeout = ["--ray-timeout", str(a["ray_timeout"])] if "ray_timeout" in a else []
    return [shlex.join(["python", "-m", "training.train", "--config", a["config"],
                        "--out", out, *sets, *backend, *address, *timeout])
            + "   # --resume after a stop",
            shlex.join(["python", "-m", "training.export", ckpt, "-o", model, "--check",
                        str(PARITY_CHECK)])]


def commands(recipe: Recipe, stage: Stage) -> list[str]:
    """The single commands a stage stands for (what ``--dry-run`` prints)."""
    a, o = stage.resolved, stage.outputs
    if stage.kind == "labels":
        return [_label_command(recipe, stage, o["dir"], _behaviour(recipe, stage))]
    if stage.kind == "train":
        return _train_commands(recipe, stage, o["dir"], o["checkpoint"], o["model"])
    if stage.kind == "dagger":
        student = _student_onnx(stage)
        cmds = []
        if student != a["student"]:
            cmds.append(shlex.join(["python", "-m", "training.export", a["student"], "-o",
                                    student]))
        cmds.append(_label_command(recipe, stage, o["labels"], student))
        return cmds + _train_commands(recipe, stage, str(Path(o["dir"]) / "train"),
                                      o["checkpoint"], o["model"])
    if stage.kind == "gate":
        robots = [x for r in a["robots"] for x in ("--robot", r)]
        # where its deals play, when the recipe says (the plans of the others as they were)
        how = [x for k in HOW_KEYS["gate"] if k in a
               for x in (f"--{k.replace('_', '-')}", str(a[k]))]
        return [shlex.join(["python", "-m", "training.evaluate", a["model"], *robots,
                            "--deals", str(a.get("deals", 1000)), "--seed",
                            str(a.get("seed", recipe.seed)), *how])]
    return [shlex.join(["python", "-m", "training.export", a["model"], "-o", o["model"],
                        "--check", str(a.get("check", 4096)), "--card", o["card"],
                        "--card-deals", str(a.get("card_deals", 2000))])]


def plan(recipe: Recipe) -> str:
    """The plan: every stage with its resolved arguments and its equivalent commands."""
    lines = [f"recipe {recipe.name} ({recipe.game}, seed {recipe.seed}) from {recipe.path}, "
             f"run directory {recipe.out}", f"reproduce: {recipe.command()}"]
    done = _read_state(recipe)["stages"] if (recipe.out / STATE).exists() else {}
    for s in recipe.stages:
        status = "done" if done.get(s.name, {}).get("done") else "to run"
        lines.append(f"\n[{s.index + 1}/{len(recipe.stages)}] {s.name} ({s.kind}, {status})")
        for k, v in s.args.items():
            r = s.resolved[k]
            lines.append(f"    {k} = {json.dumps(v)}" + (f"  -> {json.dumps(r)}" if r != v
                                                          else ""))
        for c in commands(recipe, s):
            lines.append(f"  $ {c}")
    return "\n".join(lines)


# -- running -----------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _read_state(recipe: Recipe) -> dict[str, Any]:
    p = recipe.out / STATE
    if not p.exists():
        return {"format": FORMAT, "recipe": recipe.name, "path": str(recipe.path),
                "stages": {}}
    try:
        st = jsonio.read(p)
    except (OSError, ValueError) as e:  # not JSON, not UTF-8 text, a key given twice
        raise PipelineError(f"{p} is unreadable ({e}): remove it to start the pipeline "
                            "over, or use another --out") from None
    if not isinstance(st, dict) or not isinstance(st.get("stages"), dict):
        raise PipelineError(f"{p} is no pipeline state (expected a JSON object with "
                            "'stages'): remove it to start the pipeline over, or use "
                            "another --out")
    if st.get("format") != FORMAT or st.get("recipe") != recipe.name:
        raise PipelineError(f"{p} belongs to recipe {st.get('recipe')!r}, not "
                            f"{recipe.name!r}: use another --out")
    return st


def _write_state(recipe: Recipe, st: dict[str, Any]) -> None:
    recipe.out.mkdir(parents=True, exist_ok=True)
    with atomic_open(recipe.out / STATE, "w") as f:
        jsonio.dump(st, f, indent=1, default=str)
        f.write("\n")


def _inputs(stage: Stage, st: dict[str, Any]) -> dict[str, Any]:
    """What a stage is made from besides its arguments: the fingerprint of every earlier
    stage it refers to (a new one each time that stage finishes; None before)."""
    files = {}
    if stage.kind in ("train", "dagger"):  # its config file: an edit is a change of it
        files[stage.resolved["config"]] = _config_hash(stage.resolved["config"])
    return {"stages": {t: st["stages"].get(t, {}).get("fingerprint")
                       for t in dict.fromkeys(stage.refs.values())}, "files": files}


def _config_hash(path: str) -> str | None:
    """The SHA-256 of a config file's settings (its TOML as sorted JSON: comments and
    layout do not count); None when it cannot be read (the recipe check says why)."""
    try:
        d = tomlio.read(path)
    except (OSError, ValueError):  # NotUtf8Error, NestingError too
        return None
    text = json.dumps(d, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _stale_inputs(stage: Stage, rec: dict[str, Any] | None, inputs: dict[str, Any]
                  ) -> list[str]:
    """The earlier stages that finished anew since ``rec`` (this stage's entry) was begun:
    its outputs, whole or partial, are stale.  An entry of an older pipeline, without
    inputs, is stale only when such a stage finished again since."""
    if not rec:
        return []
    old = (rec.get("inputs") or {}).get("stages", {})
    return [t for t, fp in inputs["stages"].items() if old.get(t) != fp]


def _how_changed(stage: Stage, old: Any) -> str:
    """What a finished stage's recipe changed among the keys that say only how its work is
    spread (:data:`HOW_KEYS`) -- e.g. ``"jobs 2 then, 8 now, not what it made"`` -- when
    every change is one of those; else ``""`` (no change, or one that alters its output)."""
    if not isinstance(old, dict) or old == stage.args:
        return ""
    keys = [k for k in dict.fromkeys([*old, *stage.args]) if old.get(k) != stage.args.get(k)]
    if not set(keys) <= set(HOW_KEYS.get(stage.kind, ())):
        return ""
    from mariash_env.ray_pool import DEFAULT_TIMEOUT_S

    default = {"jobs": 1, "backend": "process", "address": None,
               "ray_timeout": DEFAULT_TIMEOUT_S}

    def shown(args: dict[str, Any], k: str) -> str:
        v = args.get(k, default[k])
        if k == "ray_timeout":  # seconds: 60 and 60.0 are one value
            return f"{float(v):g} s"
        return "none" if v is None else json.dumps(v)

    changed = [k for k in keys if shown(old, k) != shown(stage.args, k)]
    if not changed:  # a key written out with the value it had by default, or left out
        return ", ".join(f"{k} {shown(stage.args, k)} as before (written out or left out)"
                         for k in keys)
    what = ", ".join(f"{k} {shown(old, k)} then, {shown(stage.args, k)} now" for k in changed)
    return f"{what}: " + ("how its labels were made, not what they are"
                          if stage.kind == "labels" else "how it ran, not what it made")


def _redo_advice(recipe: Recipe, stage: Stage) -> str:
    """How to run a finished stage again (what a refusal of a changed stage says)."""
    what = f"its entry from {recipe.out / STATE}"
    if stage.kind in ("labels", "train", "dagger"):  # else its labels or checkpoint go on
        what += f" and its folder {recipe.out / stage.name}"
    return (f"remove {what} to run it again (the later stages that use it run again "
            "then too), or use another --out")


def _clear_outputs(recipe: Recipe, stage: Stage) -> None:
    """Remove what a stage made (it is made again): its folder, a gate's rows, an export's
    files."""
    shutil.rmtree(recipe.out / stage.name, ignore_errors=True)
    if stage.kind == "gate":
        _write_gates(recipe, stage.name, [])
    if stage.kind == "export":
        for p in stage.outputs.values():
            Path(p).unlink(missing_ok=True)


def _join_ray(stage: Stage) -> bool:
    """A stage on Ray (``backend = "ray"``) joins its cluster (a local one without
    ``address``) at its start and checks it as ``python -m training.train --backend ray``
    does (:func:`mariash_env.ray_pool.join`): an unreachable address, a refused token or a
    node of other code fails within seconds with one line naming the stage and its
    address, before the stage makes anything (a train stage's failed once its rollout
    workers started: its trainer built, its run folder written).  Its workers then run on
    this connection, under its ``ray_timeout`` (default
    :data:`~mariash_env.ray_pool.DEFAULT_TIMEOUT_S`), as ``--ray-timeout``.  Returns
    whether this call connected (:func:`_leave_ray` at the stage's end)."""
    a = stage.resolved
    if a.get("backend") != "ray":
        return False
    from mariash_env.ray_pool import DEFAULT_TIMEOUT_S, join

    try:  # the stage's timeout for the whole stage: its pool's or its trainer's too
        return join(a.get("address"), float(a.get("ray_timeout", DEFAULT_TIMEOUT_S)))
    except RuntimeError as e:  # RayClusterError; Ray not installed
        where = (f"address = {json.dumps(a['address'])}" if a.get("address")
                 else "no address: a local one")
        raise StageError(f"stage {stage.name!r} ({stage.kind}) cannot start on its Ray "
                         f"cluster ({where}): {e}") from None


def _leave_ray() -> None:
    """The end of a stage that joined Ray (:func:`_join_ray`): its connection closed, as
    its pool's or its trainer's own was."""
    import ray

    if ray.is_initialized():
        ray.shutdown()


def check_stage_flags(recipe: Recipe, until: str | None, only: str | None) -> list[str]:
    """The stage names, ``--until`` and ``--only`` checked against them."""
    names = [s.name for s in recipe.stages]
    for flag, v in (("--until", until), ("--only", only)):
        if v is not None and v not in names:
            raise PipelineError(f"{flag} {v!r}: no such stage in {recipe.path}: expected "
                                f"one of {names}")
    return names


def run(recipe: Recipe, until: str | None = None, only: str | None = None,
        progress: bool = True, log: Any = print) -> dict[str, Any]:
    """Run the recipe's stages in order (or ``only`` one, or up to ``until``), skipping
    the finished ones; returns the state of ``RUN/pipeline.json``."""
    from .checkpoint import CheckpointError

    names = check_stage_flags(recipe, until, only)
    stages = recipe.stages
    if only is not None:
        stages = [recipe.stage(only)]
    elif until is not None:
        stages = stages[:names.index(until) + 1]
    try:  # a file in the way or a folder that cannot be made: one line, before any stage
        check_writable(recipe.out / STATE)
    except UnwritableError as e:
        raise PipelineError(f"--out {recipe.out}: {e}") from None
    st = _read_state(recipe)
    # what the gates and the curve at the end read back of the finished stages: a damaged
    # file refused now, before any stage, not after the hours of the stages before a gate
    read_gates(recipe.out)
    _stage_evals(recipe.out, st["stages"], finished=True)
    for stage in stages:
        rec = st["stages"].get(stage.name)
        banner = f"[{stage.index + 1}/{len(recipe.stages)}] {stage.name} ({stage.kind})"
        inputs = _inputs(stage, st)
        how = ""  # the keys of HOW_KEYS changed since the stage finished
        if rec and rec.get("done"):
            how = _how_changed(stage, rec.get("args"))
            if rec.get("args") != stage.args and not how:
                raise PipelineError(
                    f"stage {stage.name!r} finished with other arguments ({rec.get('args')}) "
                    f"than {recipe.path} gives now: {_redo_advice(recipe, stage)}")
            old = (rec.get("inputs") or {}).get("files")  # None: recorded before files were
            if old is not None and old != inputs["files"]:
                changed = [f for f in inputs["files"] if old.get(f) != inputs["files"][f]]
                raise PipelineError(
                    f"stage {stage.name!r} finished with other settings in "
                    f"{', '.join(changed) or ', '.join(old)} than the file holds now: "
                    f"{_redo_advice(recipe, stage)}")
        stale = _stale_inputs(stage, rec, inputs)
        if rec and rec.get("done") and not stale:
            log(f"[pipeline] {banner}: done {rec.get('finished')}, skipped"
                + (f"; {how}" if how else ""))
            continue
        for key, target in stage.refs.items():
            if not st["stages"].get(target, {}).get("done"):
                raise PipelineError(f"stage {stage.name!r} key {key!r} needs stage "
                                    f"{target!r}, which has not finished: run it first")
        if stale:  # its outputs were made from other inputs: made again from scratch
            log(f"[pipeline] {banner}: redone, its outputs are stale: "
                + ", ".join(f"stage {t!r} finished anew since" for t in stale))
            _clear_outputs(recipe, stage)
            rec = None
        log(f"[pipeline] ===== {banner} " + ("resumed " if rec else "") + "=====")
        owns_ray = _join_ray(stage)  # a bad cluster fails here, before the stage makes anything
        t0 = time.perf_counter()
        st["stages"][stage.name] = {"kind": stage.kind, "done": False,
                                    "started": (rec or {}).get("started", _now()),
                                    "args": stage.args,  # as written: a run can move
                                    "inputs": inputs}
        _write_state(recipe, st)
        try:
            result = RUNNERS[stage.kind](recipe, stage, progress, log)
        except GateError as e:
            st["stages"][stage.name]["result"] = e.args[1] if len(e.args) > 1 else None
            _write_state(recipe, st)
            raise GateError(e.args[0]) from None
        except (PipelineError, StageStopped, StageError):  # named the stage already
            raise
        except (ValueError, OSError, RuntimeError, CheckpointError) as e:  # LabelError...
            if closed_stdout(e):
                raise  # the log's reader gone (| head): quiet_on_closed_pipe's, the work kept
            raise StageError(f"stage {stage.name!r} ({stage.kind}) failed: "
                             f"{type(e).__name__}: {e}") from e
        finally:
            if owns_ray:
                _leave_ray()
        seconds = time.perf_counter() - t0 + float((rec or {}).get("seconds", 0))
        st["stages"][stage.name].update(done=True, finished=_now(), seconds=round(seconds, 1),
                                        result=result, fingerprint=secrets.token_hex(8))
        _write_state(recipe, st)
        log(f"[pipeline] {stage.name}: done in {seconds:.0f} s")
    return st


def _run_labels(recipe: Recipe, stage: Stage, out: str, behaviour: str, progress: bool,
                log: Any) -> dict[str, Any]:
    from .pimc_labels import generate, rate

    a = stage.resolved
    settings = _label_settings(recipe, stage, behaviour)
    shards = -(-int(a["states"]) // int(settings["shard_size"]))
    r = generate(out, settings, shards, int(a.get("jobs", 1)), progress,
                 backend=a.get("backend", "process"), address=a.get("address"))
    log(f"[pipeline] labels: {r['made']} shards made, {r['kept']} kept, {r['states']} "
        f"labels in {r['seconds']:.0f} s ({rate(r)}) -> {out}")
    return r


def _run_train(recipe: Recipe, stage: Stage, out: Path, progress: bool, log: Any
               ) -> dict[str, Any]:
    from .checkpoint import CheckpointError
    from .config import ConfigError
    from .export import export
    from .trainer import Trainer

    cfg = stage_config(recipe, stage)
    if not progress:
        cfg = cfg.replace(**{"run.progress": False})
    resume = (out / "checkpoint.pt").exists()
    a = stage.resolved
    try:  # the rollout workers: processes of this machine, or Ray actors (docs/ray.md)
        trainer = Trainer(cfg, out, resume=resume, log=log, backend=a.get("backend", "process"),
                          address=a.get("address"))
        summary = trainer.train()
    except (ConfigError, CheckpointError) as e:
        raise StageError(f"stage {stage.name!r} ({stage.kind}) failed: "
                         f"{type(e).__name__}: {e}") from None
    if trainer._stop_requested:
        raise StageStopped(f"stage {stage.name!r} stopped at iteration "
                           f"{summary['iteration']}; its checkpoint is {out / 'checkpoint.pt'}")
    model = out / "model.onnx"
    export(out / "checkpoint.pt", model, check=PARITY_CHECK)
    log(f"[pipeline] {stage.name}: {summary['iteration']} iterations, "
        f"{summary['decisions']:,} decisions, {summary['train_s']:.0f} s of training -> {model}")
    return {k: summary[k] for k in ("iteration", "decisions", "updates", "train_s", "eval")}


def _student_onnx(stage: Stage) -> str:
    """A DAgger student as an ONNX robot (the behaviour of the label generator)."""
    student = stage.resolved["student"]
    if student.endswith(".onnx"):
        return student
    return str(Path(stage.outputs["dir"]) / "student.onnx")


def run_labels(recipe: Recipe, stage: Stage, progress: bool, log: Any) -> dict[str, Any]:
    """A ``labels`` stage: the missing shards of its label directory."""
    return _run_labels(recipe, stage, stage.outputs["dir"], _behaviour(recipe, stage),
                       progress, log)


def run_train(recipe: Recipe, stage: Stage, progress: bool, log: Any) -> dict[str, Any]:
    """A ``train`` stage: a new run, or its checkpoint resumed; then ``model.onnx``."""
    return _run_train(recipe, stage, Path(stage.outputs["dir"]), progress, log)


def run_dagger(recipe: Recipe, stage: Stage, progress: bool, log: Any) -> dict[str, Any]:
    """A ``dagger`` stage: labels of the student's own states, then training on them."""
    student = _student_onnx(stage)
    if not Path(student).exists():  # export writes it whole or not at all
        from .export import export

        Path(student).parent.mkdir(parents=True, exist_ok=True)
        export(stage.resolved["student"], student, check=PARITY_CHECK)
    labels = _run_labels(recipe, stage, stage.outputs["labels"], student, progress, log)
    train = _run_train(recipe, stage, Path(stage.outputs["dir"]) / "train", progress, log)
    return {"labels": labels, "train": train}


def run_gate(recipe: Recipe, stage: Stage, progress: bool, log: Any) -> dict[str, Any]:
    """A ``gate`` stage: the arena's duplicate match against each robot, the rows in
    ``RUN/gates.csv``, the curve redrawn, the threshold checked."""
    from mariash_env.games.registry import game_kind

    from .evaluate import duplicate_eval, load_agent, make_opponent

    # the files its end reads back, before its games: a damaged one refused, no game lost
    before = read_gates(recipe.out)
    training_curve(recipe.out)
    a = stage.resolved
    agent, rules = load_agent(a["model"])
    deals, seed = int(a.get("deals", 1000)), int(a.get("seed", recipe.seed))
    unit = game_kind(rules).units
    rows = []
    for name in a["robots"]:  # its deals in jobs processes or Ray actors: the same scores
        r = duplicate_eval(agent, make_opponent(name, seed, rules), deals=deals, seed=seed,
                           rules=rules, num_envs=min(GATE_GAMES, 6 * deals), name=name,
                           progress=progress, jobs=int(a.get("jobs", 1)),
                           backend=a.get("backend", "process"), address=a.get("address"))
        log(f"[pipeline] {stage.name}: {stage.refs.get('model', a['model'])} vs {name}: "
            f"{r.mean:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] {unit}/deal, {deals} deals")
        rows.append({"gate": stage.name, "model_stage": stage.refs.get("model", ""),
                     "model": a["model"], "robot": name, "deals": deals, "seed": seed,
                     "mean": round(r.mean, 4), "ci_low": round(r.ci_low, 4),
                     "ci_high": round(r.ci_high, 4), "unit": unit})
    _write_gates(recipe, stage.name, rows, before, log)
    redraw_curve(recipe.out, recipe.name, unit, log)
    for row in rows:
        for key, figure, label in (("min_gain", "mean", "mean"),
                                   ("min_ci_low", "ci_low", "95% CI lower end")):
            if key in a and not row[figure] >= a[key]:  # NaN (no interval) is not met
                raise GateError(
                    f"gate {stage.name!r}: {row['model_stage'] or row['model']} against "
                    f"{row['robot']}: {label} {row[figure]:+.3f} < {key} = {a[key]:+g} "
                    f"({row['mean']:+.3f} [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}] "
                    f"{unit}/deal over {deals} deals)", rows)
    return {"rows": rows}


def _write_gates(recipe: Recipe, gate: str, rows: list[dict[str, Any]],
                 before: list[dict[str, Any]] | None = None, log: Any = None) -> None:
    """``RUN/gates.csv`` with this gate's rows replacing its earlier ones (rewritten
    atomically: a killed gate leaves the file as it was).  ``before``: the file's rows
    read at the gate's start (before its games).  Where the file was damaged since (a
    PipelineError reading it again), it is kept byte for byte as ``gates.csv.damaged``
    (``.2``, ``.3``... when taken) and written from ``before`` and the gate's rows, with
    a warning naming both files (``log``): the gate's rows, minutes of games, are not
    lost, nor is what the file held, and the recipe goes on (before, it stopped with
    status 2, the rows only in the printed log).  Without ``before`` the PipelineError
    is raised (a stage's outputs cleared before it runs: no game lost).  A column the
    file has of its own (a note added by hand) is kept, empty in the gate's rows."""
    path = recipe.out / GATES
    try:
        old = read_gates(recipe.out)
    except PipelineError as e:
        if before is None:
            raise
        aside = path.with_name(path.name + ".damaged")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{path.name}.damaged.{n}")
        shutil.copyfile(path, aside)  # then the file replaced: killed between, both kept
        (log or print)(f"[pipeline] warning: {e}: kept as {aside}; {path} written from its "
                       "rows read at the gate's start and the gate's rows")
        old = before
    keep = [r for r in old if r["gate"] != gate] + rows
    # a column of the file's own (a note added by hand) kept, after the gates' columns:
    # csv.DictWriter failed on it (a ValueError after the gate's games, the rows lost)
    fields = list(dict.fromkeys([*GATE_FIELDS, *(k for r in keep for k in r)]))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields)
    w.writeheader()
    w.writerows(keep)
    with atomic_open(path, "w", newline="") as f:
        f.write(buf.getvalue())


def _read_csv(path: Path, columns: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The rows of a CSV file of the run (none when there is none), with ``columns``
    checked (:func:`training.logs.read_log`): PipelineError naming it where it is not
    UTF-8 text, or naming the line and the column of a row without a value it needs."""
    try:
        return read_log(path, columns or {})
    except LogError as e:  # a bare UnicodeDecodeError, ValueError or KeyError before
        raise PipelineError(str(e)) from None


def read_gates(out: str | Path) -> list[dict[str, Any]]:
    """The rows of ``RUN/gates.csv`` (none when no gate has run), each with the values
    its readers use (:data:`GATE_COLUMNS`); PipelineError naming the file where it is not
    UTF-8 text, or its line and column where a row lacks one (a word or nothing where a
    number belongs, a row cut short, a column missing)."""
    return _read_csv(Path(out) / GATES, GATE_COLUMNS)


def run_export(recipe: Recipe, stage: Stage, progress: bool, log: Any) -> dict[str, Any]:
    """An ``export`` stage: the ONNX robot and its card, whose "Reproduce" section names
    this recipe's command (``--until`` this stage when later stages follow it)."""
    from .export import export, write_card

    a, o = stage.resolved, stage.outputs
    report = export(a["model"], o["model"], check=int(a.get("check", 4096)))
    write_card(o["model"], o["card"], int(a.get("card_deals", 2000)),
               reproduce=recipe.command(until=stage.name),
               start_from=recipe.warm_starts(until=stage.name), progress=progress)
    log(f"[pipeline] {stage.name}: {o['model']} and its card {o['card']}")
    return {"model": o["model"], "card": o["card"],
            **{k: report[k] for k in ("parity", "size_bytes") if k in report}}


RUNNERS = {"labels": run_labels, "train": run_train, "dagger": run_dagger, "gate": run_gate,
           "export": run_export}


def _stage_evals(out: Path, stages: dict[str, Any], finished: bool = False
                 ) -> list[tuple[str, list[dict[str, Any]]]]:
    """Each training stage of ``stages`` (``RUN/pipeline.json``'s; the ``finished`` ones
    only) with the rows of its ``eval.csv`` where it has one, in their order:
    PipelineError naming a damaged one (:func:`_read_csv`)."""
    got = []
    for name, rec in stages.items():
        if not isinstance(rec, dict) or (finished and not rec.get("done")):
            continue
        # a train stage's run is RUN/<stage>, a dagger stage's RUN/<stage>/train
        path = out / name / ("train" if rec.get("kind") == "dagger" else "") / "eval.csv"
        if path.is_file():
            got.append((name, _read_csv(path, EVAL_COLUMNS)))  # in the locale's encoding before
    return got


def training_curve(out: str | Path) -> list[dict[str, Any]]:
    """The periodic evaluations of the recipe's training runs (each stage's ``eval.csv``,
    stages in the order they ran), with ``x`` the engine decisions since the recipe's
    first run (a stage continues where the one before it stopped) and ``stage``;
    PipelineError naming an ``eval.csv`` that is not UTF-8 text, or its line and column
    where a row lacks a value the curve draws (:data:`training.logs.EVAL_COLUMNS`: a
    word or nothing where a number belongs, a column missing)."""
    out = Path(out)
    try:
        stages = jsonio.read(out / STATE)["stages"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    rows, offset = [], 0
    for name, got in _stage_evals(out, stages):
        for r in got:
            rows.append({**r, "stage": name, "x": offset + int(float(r["decisions"]))})
        if got:
            offset += int(float(got[-1]["decisions"]))
    return rows


def plot_curve(out: str | Path, title: str | None = None, unit: str | None = None
               ) -> Path | None:
    """``RUN/curve.png``, the recipe's learning curve: on the left every training stage's
    periodic evaluation against engine decisions (stages one after another, DAgger rounds
    included), on the right each gate's score (with its 95% CI) against each gate robot,
    by stage; either alone when the other has nothing yet.  ``unit``: the score's unit
    when no gate names it (the recipe's game's).  None when there is nothing to draw."""
    rows = read_gates(out)
    curve = training_curve(out)
    if not rows and not curve:
        return None
    unit = rows[0]["unit"] if rows else (unit or "points")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gates = list(dict.fromkeys(r["gate"] for r in rows))
    labels = [next(r["model_stage"] or r["gate"] for r in rows if r["gate"] == g)
              for g in gates]
    width = max(5.0, 1.2 * len(gates) + 2) if rows else 0.0
    both = bool(curve and rows)
    fig, axes = plt.subplots(1, 2 if both else 1, figsize=(width + (6 if curve else 0), 3.6),
                             squeeze=False, width_ratios=[6, width] if both else None)
    if curve:
        cx = axes[0][0]
        for robot in dict.fromkeys(r["opponent"] for r in curve):
            pts = [r for r in curve if r["opponent"] == robot]
            x = [r["x"] / 1e6 for r in pts]
            y = [float(r["mean"]) for r in pts]
            cx.plot(x, y, marker=".", label=f"vs {robot}")
            cx.fill_between(x, [float(r["ci_low"]) for r in pts],
                            [float(r["ci_high"]) for r in pts], alpha=0.2)
        for name in list(dict.fromkeys(r["stage"] for r in curve))[1:]:
            cx.axvline(min(r["x"] for r in curve if r["stage"] == name) / 1e6, color="grey",
                       ls=":", lw=0.8)
        cx.axhline(0, color="grey", lw=0.8)
        cx.set_xlabel("engine decisions (millions; dotted: a new stage)")
        cx.set_ylabel(f"{unit} per deal (95% CI)")
        cx.set_title("training stages: periodic evaluation", fontsize=9)
        cx.legend(fontsize=8)
    if rows:
        ax = axes[0][-1]
        for robot in dict.fromkeys(r["robot"] for r in rows):
            pts = [(gates.index(r["gate"]), float(r["mean"]), float(r["ci_low"]),
                    float(r["ci_high"])) for r in rows if r["robot"] == robot]
            x, y, lo, hi = (list(v) for v in zip(*pts))
            ax.errorbar(x, y, yerr=[[a - b for a, b in zip(y, lo)],
                                    [b - a for a, b in zip(y, hi)]],
                        marker="o", capsize=3, label=f"vs {robot}")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(range(len(gates)), labels, rotation=20)
        ax.set_xlabel("stage")
        ax.set_ylabel(f"{unit} per deal (95% CI)")
        ax.set_title("gates" if curve else (title or f"{Path(out).name}: strength by stage"),
                     fontsize=9 if curve else None)
        ax.legend(fontsize=8)
    if curve:
        fig.suptitle(title or Path(out).name, fontsize=10)
    fig.tight_layout()
    path = Path(out) / CURVE
    tmp = path.with_name(f".{path.name}.tmp.png")  # a kill leaves the old picture whole
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)
    return path


def redraw_curve(out: str | Path, title: str | None, unit: str | None, log: Any
                 ) -> Path | None:
    """:func:`plot_curve` while the recipe runs (after a gate's games, at its end): a log
    it reads damaged since the recipe started (which refused a damaged one then) leaves
    ``RUN/curve.png`` as it was, with a warning naming the file, as the trainer's
    ``curves.png`` (a plot stops no recipe: the stages' work is kept either way; before,
    the recipe stopped with status 2).  None when it was not drawn."""
    try:
        return plot_curve(out, title, unit)
    except PipelineError as e:
        log(f"[pipeline] warning: {Path(out) / CURVE} not redrawn: {e}")
        return None


def _unit(recipe: Recipe) -> str:
    """The unit of the recipe's game's scores (groše, desetníky...)."""
    from mariash_env.games.registry import game_kind

    return game_kind(recipe.game).units


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser

    ap = ArgumentParser(prog="python -m training.pipeline", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recipe", help="a recipe file, e.g. training/recipes/voleny_net.toml")
    ap.add_argument("--out", help="run directory (default runs/<recipe name>)")
    ap.add_argument("--until", metavar="STAGE", help="stop after this stage")
    ap.add_argument("--only", metavar="STAGE", help="run only this stage (its inputs done)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the plan: stages, resolved references, equivalent commands")
    ap.add_argument("--plot", action="store_true", help="only redraw RUN/curve.png")
    ap.add_argument("--no-progress", dest="progress", action="store_false",
                    help="no progress bars")
    args = ap.parse_args(argv)
    if args.until and args.only:
        ap.error("give --until or --only, not both")
    try:
        recipe = load_recipe(args.recipe, args.out)
        if args.dry_run:
            check_stage_flags(recipe, args.until, args.only)
            print(plan(recipe))
            return 0
        if args.plot:
            path = plot_curve(recipe.out, recipe.name, _unit(recipe))
            print(f"[pipeline] {path or 'no training stage or gate has run yet: no curve'}")
            return 0 if path else 1
        st = run(recipe, args.until, args.only, args.progress)
        path = redraw_curve(recipe.out, recipe.name, _unit(recipe), print)
    except PipelineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (GateError, StageError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except StageStopped as e:  # Ctrl-C or SIGTERM, the stage's work kept: as an interrupt
        print(f"error: {e}; rerun the same command to resume", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("error: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    # the recipe's stages only: a run dir may hold stages of an earlier version of it
    names = {s.name for s in recipe.stages}
    ours = {n: s for n, s in st["stages"].items() if n in names}
    done = [n for n, s in ours.items() if s.get("done")]
    print(f"[pipeline] {recipe.name}: {len(done)}/{len(recipe.stages)} stages done "
          f"({math.fsum(float(s.get('seconds', 0)) for s in ours.values()):.0f} s)"
          + (f", curve {path}" if path else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
