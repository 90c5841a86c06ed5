"""A data set of played deals: one row per decision, as sharded Parquet (``mariash dataset``).

::

    mariash dataset --robots table --deals 2000 --out runs/data/table --jobs 2
    mariash dataset --robots strong,table --deals 200 --rules voleny --out runs/data/strong
    mariash dataset --robots table,random --rules licitovany --deals 500 --out DIR
    mariash dataset --robots table --rule players=4 --deals 500 --out DIR

Deal ``i`` is the arena's (:mod:`mariash_env.arena`): the deck shuffled from
``deal_seed(seed, i)``, dealt by seat ``i % players`` (lízaný: seat 0 leads every deal,
as its arena plays it), played as a single deal.  The robots
(``make_robot`` specs, built for the game) sit as the arena seats them: with ``k`` robots
deal ``i`` uses seating ``i % len(seatings(k, players))`` (:func:`~mariash_env.arena.
seatings`), so each robot fills each seat equally often; one robot plays every seat.
Every game of the registry that the batched engine or the arena plays is played: volený
(three or four players, ``--rule players=4``), licitovaný and two-player lízaný.  At four
the dealer sits out and has no rows but pays with the defence, so the three playing
seats' returns of a deal sum to the dealer's payment negated, not to zero.

Each decision is a row (:data:`COLUMNS`): the game, the deal's index and seed, the seat
to move, the robot there, the decision's number in the deal, the phase, the seat's
observation (the game's observation vector for its seat count), the action mask, the
action (index and label), the seat's final return of the deal (groše, desetníky or
lízaný's reward) and, where a searching robot (``pimc``, ``nnpimc``, ``strong``) searched
the decision, its per-action values (the mean over its sampled worlds of each candidate,
the very numbers it maximised; NaN for actions it did not value; null where it did not
search -- a forced move, the network's decisions of ``strong``, any other robot).

Shard ``j`` holds deals ``j * shard_deals ..`` (``--shard-deals``), is a pure function of
the settings and ``j`` and is written atomically as ``shard-NNNNN.parquet``: the same
command gives the same rows whatever ``--jobs``, and a stopped run resumes by running
the same command again (shards already written are kept).  ``manifest.json`` holds the
settings, the schema, the command, the robots, the seeds, the shards and the versions.

Reading: :func:`load` (all rows as numpy arrays), :func:`shards` (one shard at a time),
:func:`read_table` (a pyarrow Table); each refuses a data set of another observation
layout version than this checkout's (:func:`check_layout`) unless given
``allow_other_layout=True``.  ``training.decisions`` wraps a data set as a PyTorch
``Dataset``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import platform
import shlex
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import jsonio
from ..arena import (
    batch_seed,
    build_robot,
    deal_seed,
    parse_rule_options,
    seatings,
    single_deal_rules,
)
from ..atomic import atomic_open
from ..cli import ArgumentParser, doing, nonnegative, positive, quiet_on_closed_pipe
from ..extras import install_hint
from ..games.base import GameKind, step_bound
from ..games.registry import game_kind, games
from ..pools import jobs_above_cores
from ..robots import split_robot_specs
from ..robots.base import Robot
from ..textfile import NotUtf8Error, decode_text
from . import PartialRunError, run_command

FORMAT = "mariash-dataset-v1"
MANIFEST = "manifest.json"
MAX_DEALS = 10_000_000
# A shard's rows are built in memory before they are written: about 120 kB a volený deal
# with its observations, so 1.2 GB at this bound (the default 250: 30 MB).
MAX_SHARD_DEALS = 10_000
MAX_JOBS = 256

COLUMNS: tuple[tuple[str, str], ...] = (
    ("game", "the game (registry name: voleny, licitovany, lizany)"),
    ("players", "seats of the game (3, 4 for volený with four players, 2 for lízaný)"),
    ("deal", "the deal's index in the data set (0-based)"),
    ("deal_seed", "the seed its deck was shuffled from (arena.deal_seed(seed, deal))"),
    ("seat", "the seat to move (0-based; at four the player 0..3)"),
    ("robot", "the robot spec in that seat"),
    ("decision", "the decision's number within the deal (0-based)"),
    ("phase", "the phase of the deal (the game's phase names)"),
    ("observation", "float32[obs_size]: the seat's observation (the game's layout)"),
    ("action_mask", "int8[n_actions]: legal actions (1 = legal)"),
    ("action", "the action index taken"),
    ("action_label", "the action's label"),
    ("final_return", "the seat's payment of the deal (groše, desetníky or reward)"),
    ("action_values", "float32[n_actions] or null: a searching robot's value of each "
                      "action (NaN: not valued)"),
)


class DatasetError(ValueError):
    """A data set that cannot be made or read: bad settings, another run's directory,
    missing or corrupt shards."""


def _pa() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:  # pyarrow comes with the research extra (and dev)
        raise DatasetError(f"data sets need pyarrow: {install_hint('research')}") from None
    return pyarrow


# --- settings ---------------------------------------------------------------------------------


def make_settings(robots: Sequence[str], deals: int, seed: int = 0,
                  rules: dict[str, Any] | None = None, shard_deals: int = 250) -> dict[str, Any]:
    """The settings of a data set, checked (DatasetError naming what is wrong): robot
    specs, deals, seed, rule options (``{"rules": "licitovany", ...}``), deals per shard."""
    from ..rules import RulesError, is_int, make_rules

    if isinstance(robots, str) or not robots or not all(
            isinstance(r, str) and r.strip() for r in robots):
        raise DatasetError(f"invalid robots {robots!r}: expected a list of robot specs "
                           "(e.g. ['table'] or ['pimc', 'table'])")
    if not is_int(deals) or not 1 <= deals <= MAX_DEALS:
        raise DatasetError(f"invalid deals={deals!r}: expected an int 1..{MAX_DEALS}")
    if not is_int(seed) or seed < 0:
        raise DatasetError(f"invalid seed={seed!r}: expected an int >= 0")
    if not is_int(shard_deals) or not 1 <= shard_deals <= MAX_SHARD_DEALS:
        raise DatasetError(f"invalid shard_deals={shard_deals!r}: expected an int "
                           f"1..{MAX_SHARD_DEALS} (a shard's rows are built in memory)")
    opts = dict(rules or {})
    try:
        single_deal_rules(opts, "rule option deals")
    except ValueError as e:
        raise DatasetError(str(e)) from None
    try:
        kind = game_kind(opts)
        if kind.arena:  # a game of its own engine: its arena's rules
            rdict = kind.load("arena").rules(opts)
        else:
            kind.require("vector")
            rdict = make_rules(**{**opts, "deals": 1}).to_dict()
    except (RulesError, TypeError, ValueError) as e:
        raise DatasetError(f"invalid rules {opts!r}: {e}") from None
    return {"format": FORMAT, "robots": [r.strip() for r in robots], "deals": int(deals),
            "seed": int(seed), "rules": rdict, "shard_deals": int(shard_deals)}


def _kind(settings: dict[str, Any]) -> tuple[GameKind, int]:
    kind = game_kind(settings["rules"])
    players = int(settings["rules"].get("players", kind.players[0]))
    return kind, players


def digest(settings: dict[str, Any]) -> str:
    """A short hash of the settings (each shard carries it in its metadata)."""
    text = json.dumps(settings, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def shard_count(settings: dict[str, Any]) -> int:
    return -(-settings["deals"] // settings["shard_deals"])


def shard_path(out: str | os.PathLike, index: int) -> Path:
    return Path(out) / f"shard-{index:05d}.parquet"


# --- playing ----------------------------------------------------------------------------------

_VALUES = "_dataset_values"


def tap_values(robot: Robot) -> Robot:
    """Let a searching robot's per-action values be read after each decision: a robot
    with ``candidate_values`` (PIMC and its subclasses) records the candidates and their
    means of the last search (the outer call only: a subclass's ``super()`` goes past
    the instance attribute).  Other robots are returned unchanged."""
    inner = getattr(robot, "candidate_values", None)
    if callable(inner) and not hasattr(robot, _VALUES):
        def recording(view: Any, cands: list[int], *args: Any, **kw: Any) -> Any:
            means, n = inner(view, cands, *args, **kw)
            setattr(robot, _VALUES, (list(cands), np.asarray(means, np.float64)))
            return means, n

        robot.candidate_values = recording  # type: ignore[method-assign]
        setattr(robot, _VALUES, None)
    return robot


def take_values(robot: Robot, n_actions: int) -> np.ndarray | None:
    """The values the robot's last decision searched (NaN where not valued), then forgotten;
    None when it did not search."""
    got = getattr(robot, _VALUES, None)
    if got is None:
        return None
    setattr(robot, _VALUES, None)
    out = np.full(n_actions, np.nan, np.float32)
    cands, means = got
    out[cands] = means
    return out


def _seating_table(settings: dict[str, Any], players: int, idx: range) -> np.ndarray:
    seats = seatings(len(settings["robots"]), players)
    return np.array([seats[i % len(seats)] for i in idx], dtype=np.int64)


def play_shard(settings: dict[str, Any], index: int,
               robots: list[Robot] | None = None) -> dict[str, Any]:
    """The rows (columns of :data:`COLUMNS`, numpy arrays) of shard ``index``; ``robots``:
    the settings' robots already built for the game (built here when None)."""
    kind, players = _kind(settings)
    if robots is None:
        robots = [tap_values(build_robot(s, settings["rules"])) for s in settings["robots"]]
    lo = index * settings["shard_deals"]
    idx = range(lo, min(lo + settings["shard_deals"], settings["deals"]))
    seeds = np.array([deal_seed(settings["seed"], i) for i in idx], dtype=np.int64)
    seating = _seating_table(settings, players, idx)
    if kind.arena:  # a game of its own engine (lízaný): deal by deal, as its arena plays
        cols = _play_own(robots, seeds, seating, kind)
    else:
        cols = _play_compiled(robots, seeds, seating, idx, settings["rules"], kind)
    g = cols.pop("game_index")
    cols["deal"] = np.asarray(idx, np.int64)[g]
    cols["deal_seed"] = seeds[g]
    cols["robot"] = np.array(settings["robots"], dtype=object)[seating[g, cols["seat"]]]
    cols["final_return"] = cols.pop("returns")[g, cols["seat"]]
    cols["phase"] = np.array(kind.phase_names, dtype=object)[cols["phase"]]
    cols["action_label"] = np.array(kind.labels, dtype=object)[cols["action"]]
    cols["game"] = kind.name
    cols["players"] = players
    return cols


def _play_compiled(robots: list[Robot], seeds: np.ndarray, seating: np.ndarray,
                   idx: range, rdict: dict[str, Any], kind: GameKind) -> dict[str, Any]:
    """The deals of a shard in one batched engine, robots asked as the arena asks them
    (:func:`mariash_env.playout.play_games`); every decision recorded."""
    from ..core import state as S
    from ..core.engine import deal_decisions
    from ..games.voleny.observe import OBS_SIZE
    from ..playout import deal_states
    from ..robots.view import SeatView
    from ..rules import make_rules
    from ..vector import VectorEnv

    rules = make_rules(**rdict)
    players = rules.players
    n = len(seeds)
    for j, r in enumerate(robots):  # once per shard, as the arena seeds a batch
        r.begin_deal(batch_seed(int(seeds[0]), j))
    env = VectorEnv(n, seed=0, **rdict)
    env.restore_states(deal_states(seeds, np.array([i % players for i in idx]), rules))
    step = env.current()
    deal_obs = OBS_SIZE if players == 4 else env.obs_size  # robots see the deal block at four
    returns = np.zeros((n, players))
    active = np.ones(n, bool)
    decision = np.zeros(n, np.int64)
    rows_all = np.arange(n)
    parts: list[dict[str, Any]] = []
    tick = step_bound("the data set's deals", int(deal_decisions(env.rules_vector)))
    while active.any():
        tick()  # a decision of each active deal a step
        player = step.player.copy()
        who = seating[rows_all, player]
        obs, mask = step.obs.copy(), step.mask.copy()
        before = env.copy_states() if any(r.wants_view for r in robots) else None
        actions = np.argmax(mask, axis=1)  # finished games: any legal action, not recorded
        values: list[np.ndarray | None] = [None] * n
        for r, robot in enumerate(robots):
            rows = np.flatnonzero(active & (who == r))
            if rows.size == 0:
                continue
            if robot.wants_view:
                for i in rows:
                    view = SeatView(before[i], int(before[i, S.TO_MOVE]), rules)
                    actions[i] = robot.act_view(view)
                    values[i] = take_values(robot, kind.n_actions)
            else:
                actions[rows] = robot.act_batch(obs[rows, :deal_obs], mask[rows])
        live = np.flatnonzero(active)
        parts.append({"game_index": live, "seat": player[live], "decision": decision[live],
                      "observation": obs[live], "action_mask": mask[live],
                      "action": actions[live].astype(np.int64),
                      "action_values": [values[i] for i in live]})
        decision[live] += 1
        step = env.step(actions)
        for i in np.flatnonzero(active & step.deal_done):
            returns[i] = step.rewards[i]
            active[i] = False
    cols = _concat(parts)
    order = np.lexsort((cols["decision"], cols["game_index"]))  # deal by deal, in order
    cols = {k: (v[order] if isinstance(v, np.ndarray) else [v[i] for i in order])
            for k, v in cols.items()}
    cols["phase"] = kind.phase_of(cols["observation"][:, :deal_obs])
    cols["returns"] = returns
    return cols


def _play_own(robots: list[Robot], seeds: np.ndarray, seating: np.ndarray,
              kind: GameKind) -> dict[str, Any]:
    """The deals of a game of its own engine one by one (its arena's ``deal``, e.g.
    :mod:`mariash_env.games.lizany.arena`), every decision recorded; each robot gets
    ``begin_deal`` before each deal.  A deal stops at the arena's ``deal_decisions``
    (StuckGameError) where the engine does not move on."""
    own = kind.load("arena")
    parts: list[dict[str, Any]] = []
    returns = np.zeros((len(seeds), kind.players[0]))
    for d, sd in enumerate(seeds):
        for j, r in enumerate(robots):
            r.begin_deal(batch_seed(int(sd), j))
        g = own.deal(int(sd))
        k = 0
        # the game's bound on a deal where it gives one (lízaný: 32, a card each)
        tick = step_bound(f"the data set's {kind.name} deal", own.deal_decisions) \
            if own.deal_decisions is not None else None
        while not g.over:
            if tick is not None:
                tick()
            s = g.to_move
            obs, mask = g.observe(s).astype(np.float32), g.legal_mask(s).astype(np.int8)
            robot = robots[seating[d, s]]
            a = int(robot.act({"observation": obs, "action_mask": mask}))
            parts.append({"game_index": np.array([d]), "seat": np.array([s]),
                          "decision": np.array([k]), "observation": obs[None],
                          "action_mask": mask[None], "action": np.array([a]),
                          "action_values": [take_values(robot, kind.n_actions)]})
            g.play(a)
            k += 1
        returns[d] = g.rewards
    cols = _concat(parts)
    # the engine reports no phase: every row in the first (lízaný has one, play)
    cols["phase"] = np.zeros(len(cols["action"]), np.int64)
    cols["returns"] = returns
    return cols


def _concat(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {k: (list(itertools.chain.from_iterable(p[k] for p in parts))
                if k == "action_values" else np.concatenate([p[k] for p in parts]))
            for k in parts[0]}


# --- Parquet ----------------------------------------------------------------------------------


def schema(kind: GameKind, players: int) -> Any:
    """The pyarrow schema of a data set of ``kind`` with ``players`` seats."""
    pa = _pa()
    obs = kind.layout(players).obs_size
    types = {
        "game": pa.string(), "players": pa.int8(), "deal": pa.int64(), "deal_seed": pa.int64(),
        "seat": pa.int8(), "robot": pa.string(), "decision": pa.int16(), "phase": pa.string(),
        "observation": pa.list_(pa.float32(), obs),
        "action_mask": pa.list_(pa.int8(), kind.n_actions),
        "action": pa.int16(), "action_label": pa.string(), "final_return": pa.float64(),
        "action_values": pa.list_(pa.float32(), kind.n_actions),
    }
    return pa.schema([pa.field(name, types[name], nullable=name == "action_values",
                               metadata={"description": text})
                      for name, text in COLUMNS])


def to_table(cols: dict[str, Any], kind: GameKind, players: int,
             metadata: dict[str, str] | None = None) -> Any:
    """The rows of :func:`play_shard` as a pyarrow Table of :func:`schema`."""
    pa = _pa()
    sch = schema(kind, players)
    n = len(cols["action"])

    def fixed(a: np.ndarray, t: Any, mask: np.ndarray | None = None) -> Any:
        flat = pa.array(np.ascontiguousarray(a).reshape(-1), type=t.value_type)
        return pa.FixedSizeListArray.from_arrays(flat, t.list_size,
                                                 mask=None if mask is None else pa.array(mask))

    vt = sch.field("action_values").type
    vals = np.full((n, kind.n_actions), np.nan, np.float32)
    null = np.ones(n, bool)
    for i, v in enumerate(cols["action_values"]):
        if v is not None:
            vals[i] = v
            null[i] = False
    arrays = []
    for f in sch:
        if f.name == "observation" or f.name == "action_mask":
            arrays.append(fixed(cols[f.name], f.type))
        elif f.name == "action_values":
            arrays.append(fixed(vals, vt, null))
        elif f.name in ("game", "players"):
            arrays.append(pa.array([cols[f.name]] * n, type=f.type))
        else:
            arrays.append(pa.array(list(cols[f.name]) if f.type == pa.string()
                                   else np.asarray(cols[f.name]), type=f.type))
    return pa.Table.from_arrays(arrays, schema=sch.with_metadata(metadata or {}))


def write_shard(out: str | os.PathLike, settings: dict[str, Any], index: int,
                robots: list[Robot] | None = None) -> int:
    """Play shard ``index`` and write it atomically; returns its rows."""
    pa = _pa()
    import pyarrow.parquet as pq

    kind, players = _kind(settings)
    table = to_table(play_shard(settings, index, robots), kind, players,
                     {"mariash_dataset": digest(settings), "shard": str(index)})
    buf = pa.BufferOutputStream()
    pq.write_table(table, buf, compression="zstd")
    with atomic_open(shard_path(out, index), "wb") as f:
        f.write(buf.getvalue().to_pybytes())
    return table.num_rows


def _digest_of(metadata: dict[bytes, bytes] | None, path: Path, advice: str) -> str:
    """The digest of the data set a shard at ``path`` belongs to, from its parquet
    metadata ("" where it has none); DatasetError naming the shard where it is not UTF-8
    text (damaged, or not written here: a bare UnicodeDecodeError before)."""
    try:
        return decode_text((metadata or {}).get(b"mariash_dataset", b""), newline="",
                           what="a data set digest")
    except NotUtf8Error as e:
        raise DatasetError(f"shard {path}: its metadata's mariash_dataset is {e}; "
                           f"{advice}") from None


def _shard_rows(path: Path, want: str) -> int | None:
    """The rows of a written shard of the settings with digest ``want``; None when it is
    missing or unreadable (it is then written again); DatasetError if another run's.  The
    whole shard is read: a sound footer over damaged data would pass on and fail in
    :func:`load`."""
    with doing("read"):
        if not path.is_file():
            return None
    import pyarrow.parquet as pq

    try:
        meta = pq.read_metadata(path)
    except Exception:  # noqa: BLE001 - a truncated or foreign file: made again
        return None
    got = _digest_of(meta.metadata, path, "use another --out, or remove it to make it "
                     "again")
    if got != want:
        raise DatasetError(f"{path} belongs to another data set (settings {got or 'none'}, "
                           f"this one's {want}); use another --out")
    try:
        rows = pq.read_table(path).num_rows
    except Exception:  # noqa: BLE001 - damaged pages (a bad sector, a stray write): made again
        return None
    return int(rows) if rows == meta.num_rows else None


_WORKER: dict[str, Any] = {}


def _init_worker(settings: dict[str, Any]) -> None:
    _WORKER["settings"] = settings
    _WORKER["robots"] = [tap_values(build_robot(s, settings["rules"]))
                         for s in settings["robots"]]


class ShardError(PartialRunError):
    """Playing or writing a shard failed (a robot or the disk); written shards are kept."""


def _work(job: tuple[str, int]) -> tuple[int, int]:
    out, index = job
    try:
        return index, write_shard(out, _WORKER["settings"], index, _WORKER["robots"])
    except Exception as e:  # named by its shard: the traceback of a worker process is lost
        raise ShardError(f"shard {index} failed ({type(e).__name__}: {e})") from e


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for pkg in ("mariash", "numpy", "numba", "pyarrow", "onnxruntime"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


# a JSON value's kind in JSON's words, as a message says it (int and float: a number)
_JSON_KIND = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


def _check_existing(out: Path, settings: dict[str, Any]) -> None:
    path = out / MANIFEST
    with doing("read"):
        if not path.exists():
            return
    try:
        man = jsonio.read(path)
        old = man["settings"]
        if not isinstance(old, dict):
            raise TypeError(f"'settings' is {_JSON_KIND.get(type(old), 'a number')}, "
                            "expected an object")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DatasetError(f"{path} is unreadable ({e}); remove it or use another --out") \
            from None
    if old != settings:
        diff = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
        raise DatasetError(f"{out} holds a data set of other settings ({', '.join(diff)} "
                           f"differ: {', '.join(f'{k}={old.get(k)!r}' for k in diff)}); "
                           "run its own command to resume it, or use another --out")
    try:  # its shards would be kept beside new ones of this layout: rows of two layouts
        check_layout(man, out, as_is="")  # reading it as it is resumes nothing
    except DatasetError as e:
        raise DatasetError(f"{e}; to make it again here, remove {out} first, or use another "
                           "--out") from None


def write_manifest(out: Path, settings: dict[str, Any], rows: dict[int, int],
                   command: str) -> dict[str, Any]:
    kind, players = _kind(settings)
    sch = schema(kind, players)
    n = shard_count(settings)
    man = {
        "format": FORMAT,
        "settings": settings,
        "digest": digest(settings),
        "command": command,
        "robots": settings["robots"],
        "game": kind.name,
        "players": players,
        "unit": kind.units,
        "seeds": {"seed": settings["seed"],
                  "deal_seed": ("deal i: mariash_env.arena.deal_seed(seed, i), " + (
                      "seat 0 leading (lízaný's own deal)" if kind.arena else
                      "dealt by seat i % players")),
                  "robots": "per shard: robot j begins with arena.batch_seed(seed of the "
                            "shard's first deal, j) (lízaný: per deal)"},
        "obs_size": kind.layout(players).obs_size,
        "obs_version": kind.obs_version,
        "n_actions": kind.n_actions,
        "phases": list(kind.phase_names),
        "schema": [{"name": f.name, "type": str(f.type), "nullable": f.nullable,
                    "description": dict(f.metadata)[b"description"].decode()} for f in sch],
        "shards": [{"file": shard_path(out, i).name,
                    "deals": [i * settings["shard_deals"],
                              min((i + 1) * settings["shard_deals"], settings["deals"])],
                    "rows": rows.get(i)} for i in range(n)],
        "rows": sum(rows.values()) if len(rows) == n else None,
        "complete": len(rows) == n,
        "versions": _versions(),
    }
    with atomic_open(out / MANIFEST) as f:
        jsonio.dump(man, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return man


def generate(out: str | os.PathLike, settings: dict[str, Any], jobs: int = 1,
             progress: bool = True, command: str | None = None) -> dict[str, Any]:
    """Write the data set of ``settings`` (:func:`make_settings`) into ``out``: the missing
    shards only (a rerun resumes), ``jobs`` processes, at most one a core this process may
    use (:func:`mariash_env.pools.process_jobs`, as the arena's; the same rows); returns
    the manifest."""
    from ..pools import process_jobs
    from ..rules import is_int

    if not is_int(jobs) or not 1 <= jobs <= MAX_JOBS:
        raise DatasetError(f"invalid jobs={jobs!r}: expected an int 1..{MAX_JOBS} (processes)")
    jobs = process_jobs(jobs)
    _pa()
    out = Path(out)
    with doing("write"):
        out.mkdir(parents=True, exist_ok=True)
    _check_existing(out, settings)
    command = command or " ".join(["mariash dataset", *sys.argv[1:]])
    want = digest(settings)
    n = shard_count(settings)
    rows: dict[int, int] = {}
    for i in range(n):
        r = _shard_rows(shard_path(out, i), want)
        if r is not None:
            rows[i] = r
    write_manifest(out, settings, rows, command)  # claims the folder before playing
    todo = [i for i in range(n) if i not in rows]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=settings["deals"], desc="deals", unit="deal", file=sys.stderr,
                   initial=sum(min(settings["shard_deals"], settings["deals"] - i *
                                   settings["shard_deals"]) for i in rows))

    def done(i: int, r: int) -> None:
        rows[i] = r
        if bar is not None:
            bar.update(min(settings["shard_deals"], settings["deals"] - i *
                           settings["shard_deals"]))

    try:
        if jobs <= 1 or len(todo) <= 1:
            if todo:
                _init_worker(settings)
            for i in todo:
                done(*_work((str(out), i)))
        else:
            from ..pools import worker_pool

            # one deal here first: the workers fork with the engine compiled (else each
            # compiles it on its own when numba's cache is cold)
            play_shard({**settings, "deals": 1, "shard_deals": 1}, 0)
            with worker_pool(min(jobs, len(todo)), "fork", _init_worker,
                             (settings,)) as pool:
                for i, r in pool.imap_unordered(_work, [(str(out), i) for i in todo]):
                    done(i, r)
    finally:
        if bar is not None:
            bar.close()
        man = write_manifest(out, settings, rows, command)
    return man


# --- reading ----------------------------------------------------------------------------------


def read_manifest(path: str | os.PathLike) -> dict[str, Any]:
    """The manifest of a data set directory (DatasetError if missing or unreadable, or if
    a field the readers use is not what :func:`write_manifest` writes)."""
    from ..rules import is_int

    p = Path(path) / MANIFEST
    try:
        man = jsonio.read(p)
    except (OSError, ValueError) as e:
        raise DatasetError(f"{path} is no data set: cannot read {p} ({e})") from None
    if not isinstance(man, dict) or man.get("format") != FORMAT:
        raise DatasetError(f"{p} is not a manifest of format {FORMAT!r}")
    shards = man.get("shards")
    if not isinstance(man.get("digest"), str):
        raise DatasetError(f"{p}: 'digest' = {man.get('digest')!r}, expected a string")
    _game_of(man, p)
    if not isinstance(shards, list) or not all(
            isinstance(s, dict) and isinstance(s.get("file"), str)
            and Path(s["file"]).name == s["file"]
            and (s.get("rows") is None or is_int(s["rows"])) for s in shards):
        raise DatasetError(f"{p}: 'shards' is not a list of {{'file': NAME, 'rows': N}} "
                           "objects (a shard's file name, without a folder)")
    return man


def _game_of(man: dict[str, Any], where: str | os.PathLike) -> str:
    """The name of the game a manifest's rows are of (its ``game``); DatasetError where it
    names none.  Every version of :func:`write_manifest` wrote it (from the first,
    ``mariash-dataset-v1``, which played volený, licitovaný and lízaný alike), so a
    manifest without it is damaged or not this tool's: its rows are not read as volený's."""
    game = man.get("game")
    if not isinstance(game, str):
        has = ("has no 'game'" if "game" not in man else
               f"'game' is {_JSON_KIND.get(type(game), 'a number')}")
        raise DatasetError(f"{where} {has}: expected the name of the data set's game "
                           f"({', '.join(k.name for k in games())}), which every manifest "
                           "of mariash dataset holds")
    return game


READ_AS_IS = ("or, in Python, read its rows as they are, old observations and all, with "
              "allow_other_layout=True")
"""How the readers of this module read a data set of another layout (:func:`check_layout`'s
default ``as_is``)."""


def check_layout(man: dict[str, Any], path: str | os.PathLike, *,
                 as_is: str = READ_AS_IS) -> None:
    """DatasetError unless the data set's rows were made with this checkout's observation
    layout version (the manifest's ``obs_version`` against its game's ``obs_version``,
    :class:`~mariash_env.games.base.GameKind`): rows of another layout read as this one's
    are wrong features, not an error.  The message names both versions and the command
    that makes the data set again, and ``as_is``, in parentheses where not empty: what
    else the caller can do with it (default: the readers' ``allow_other_layout=True``; a
    command line names its own remedy, or none).  A manifest that names no game is
    refused too, not taken for volený's (every version of the tool wrote ``game``)."""
    name = _game_of(man, path)
    try:
        kind = game_kind(name)
    except ValueError as e:  # a game this checkout does not know
        raise DatasetError(f"{path}: {e}") from None
    got, now = man.get("obs_version"), kind.obs_version
    if got != now:
        made = ("names no observation layout version" if got is None else
                f"was made with observation layout version {got}")
        raise DatasetError(f"{path} {made}; this checkout's is {now} ({kind.name}), whose "
                           f"observations differ: make the data set again with: "
                           f"{man.get('command')}{f' ({as_is})' if as_is else ''}")


def shard_files(path: str | os.PathLike, allow_other_layout: bool = False) -> list[Path]:
    """The shard files of a complete data set, in order (DatasetError naming what lacks;
    of another observation layout version unless ``allow_other_layout``,
    :func:`check_layout`)."""
    return [f for f, _ in _checked_shards(path, allow_other_layout)[1]]


def _checked_shards(path: str | os.PathLike, allow_other_layout: bool = False
                    ) -> tuple[dict[str, Any], list[tuple[Path, int | None]]]:
    """The manifest and each shard's file and rows, of a complete data set made with this
    checkout's observation layout (any, with ``allow_other_layout``)."""
    man = read_manifest(path)
    if not allow_other_layout:
        check_layout(man, path)
    files = [(Path(path) / s["file"], s.get("rows")) for s in man["shards"]]
    missing = [f.name for f, _ in files if not f.is_file()]
    if missing or not man.get("complete"):
        raise DatasetError(f"{path} is incomplete: {len(missing)} of {len(files)} shards "
                           f"missing ({', '.join(missing[:3])}"
                           f"{' ...' if len(missing) > 3 else ''}); "
                           f"resume it with: {man.get('command')}")
    return man, files


def _read(f: Path, columns: Sequence[str] | None, man: dict[str, Any] | None = None,
          rows: int | None = None) -> Any:
    """Shard ``f`` as a Table; with the manifest ``man``, DatasetError unless it is that
    data set's (its digest) with the ``rows`` the manifest counted (a shard copied from
    another data set, or one older than the manifest, would be read as this one's)."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(f, columns=list(columns) if columns else None)
    except Exception as e:  # noqa: BLE001 - pyarrow's own error types
        raise DatasetError(f"cannot read shard {f}: {e}") from None
    if man is not None:
        got = _digest_of(table.schema.metadata, f, "remove it and make it again with: "
                         f"{man.get('command')}")
        if got != man["digest"]:
            raise DatasetError(f"shard {f} belongs to another data set (settings "
                               f"{got or 'none'}, the manifest's {man['digest']}); remove it "
                               f"and make it again with: {man.get('command')}")
        if rows is not None and table.num_rows != rows:
            raise DatasetError(f"shard {f} has {table.num_rows} rows, the manifest "
                               f"{rows}; remove it and make it again with: "
                               f"{man.get('command')}")
    return table


def read_shard(path: str | os.PathLike, index: int,
               columns: Sequence[str] | None = None, allow_other_layout: bool = False) -> Any:
    """Shard ``index`` of the complete data set at ``path`` as a pyarrow Table, checked
    against the manifest (DatasetError naming what is wrong)."""
    man, files = _checked_shards(path, allow_other_layout)
    f, rows = files[index]
    return _read(f, columns, man, rows)


def read_table(path: str | os.PathLike, columns: Sequence[str] | None = None,
               allow_other_layout: bool = False) -> Any:
    """The whole data set as one pyarrow Table (``columns``: only those).  A data set of
    another observation layout version is refused (:func:`check_layout`) unless
    ``allow_other_layout``, as by every reader here."""
    pa = _pa()
    man, files = _checked_shards(path, allow_other_layout)
    return pa.concat_tables([_read(f, columns, man, rows) for f, rows in files])


def to_numpy(table: Any) -> dict[str, np.ndarray]:
    """A Table's columns as numpy: ``observation`` float32[n, obs_size], ``action_mask``
    int8[n, A], ``action_values`` float32[n, A] (NaN rows where null), strings as object
    arrays, numbers as their type."""
    out: dict[str, np.ndarray] = {}
    for name in table.column_names:
        col = table.column(name).combine_chunks()
        t = col.type
        if hasattr(t, "list_size"):
            k = t.list_size
            flat = col.values.to_numpy(zero_copy_only=False)
            a = flat[col.offset * k:(col.offset + len(col)) * k].reshape(len(col), k)
            if col.null_count:
                a = a.astype(np.float32, copy=True)
                a[col.is_null().to_numpy(zero_copy_only=False)] = np.nan
            out[name] = a
        else:
            out[name] = col.to_numpy(zero_copy_only=False)
    return out


def shards(path: str | os.PathLike, columns: Sequence[str] | None = None,
           which: Iterable[int] | None = None, allow_other_layout: bool = False
           ) -> Iterator[dict[str, np.ndarray]]:
    """The data set one shard at a time (:func:`to_numpy` of each; ``which``: only the
    shards of those indices, in that order), each checked against the manifest, which is
    read once (not once a shard, as :func:`read_shard` would)."""
    man, files = _checked_shards(path, allow_other_layout)
    for j in range(len(files)) if which is None else which:
        f, rows = files[j]
        yield to_numpy(_read(f, columns, man, rows))


def load(path: str | os.PathLike, columns: Sequence[str] | None = None,
         allow_other_layout: bool = False) -> dict[str, np.ndarray]:
    """Every row of the data set at ``path`` as numpy arrays (:func:`to_numpy`); one of
    another observation layout version only with ``allow_other_layout``
    (:func:`check_layout`)."""
    return to_numpy(read_table(path, columns, allow_other_layout))


# --- command line -----------------------------------------------------------------------------


@quiet_on_closed_pipe
def main(argv: list[str] | None = None, prog: str = "mariash dataset") -> int:
    ap = ArgumentParser(prog=prog, description="Play deals with robots and write one row per "
                        "decision as sharded Parquet (docs/research/dataset.md).")
    ap.add_argument("--robots", default="table",
                    help="comma-separated robot specs seated as in the arena (one: it plays "
                         "every seat), e.g. table, pimc(worlds=8),table, onnx:PATH (default table)")
    ap.add_argument("--deals", type=positive(int), required=True, help=f"1..{MAX_DEALS}")
    ap.add_argument("--out", required=True, help="directory of the shards and manifest.json")
    ap.add_argument("--seed", type=nonnegative(int), default=0,
                    help="the data set's seed (an int >= 0; default 0)")
    ap.add_argument("--rules", default=None, help="voleny (default), licitovany or lizany")
    ap.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                    help="a rule option, repeatable (e.g. --rule players=4)")
    ap.add_argument("--shard-deals", type=positive(int), default=250,
                    help=f"deals per shard, at most {MAX_SHARD_DEALS} (default 250)")
    ap.add_argument("--jobs", type=positive(int), default=1,
                    help=f"processes, 1..{MAX_JOBS} (default 1); "
                         f"{jobs_above_cores(ray=False)}, the same rows")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)

    def body() -> int:
        # the command line's bounds named by its options (make_settings and generate
        # name their keywords: 'invalid shard_deals=20000')
        for flag, value, most, why in (
                ("--deals", args.deals, MAX_DEALS, ""),
                ("--shard-deals", args.shard_deals, MAX_SHARD_DEALS,
                 " (a shard's rows are built in memory)"),
                ("--jobs", args.jobs, MAX_JOBS, "")):
            if value > most:
                raise DatasetError(f"invalid {flag} {value}: expected 1..{most}{why}")
        specs = split_robot_specs(args.robots)
        if not all(s.strip() for s in specs):
            raise DatasetError(f"invalid --robots {args.robots!r}: expected comma-separated "
                               "robot specs, e.g. table or pimc(worlds=8),table")
        with doing("write"):  # the folder to write into: a name too long, ...
            a_file = Path(args.out).exists() and not Path(args.out).is_dir()
        if a_file:
            raise DatasetError(f"--out {args.out} is a file: expected the directory of the "
                               "shards and manifest.json")
        settings = make_settings(specs, args.deals, args.seed,
                                 parse_rule_options(args.rules, args.rule), args.shard_deals)
        for spec in settings["robots"]:
            build_robot(spec, settings["rules"])  # a bad spec fails before any deal
        given = sys.argv[1:] if argv is None else argv
        command = " ".join([prog, *map(shlex.quote, given)])
        man = generate(args.out, settings, args.jobs, not args.quiet, command)
        print(f"{man['rows']} decisions of {settings['deals']} deals in "
              f"{len(man['shards'])} shards: {args.out}")
        return 0

    return run_command(body, f"the shards written so far are kept in {args.out}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
