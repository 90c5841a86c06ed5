"""Training configuration: dataclasses with documented defaults, loaded from TOML/JSON.

A config file has top-level keys (``seed``, ``method``), the tables ``[env]``,
``[network]``, ``[selfplay]``, ``[eval]``, ``[run]`` and one table named after the
method (``[dmc]``) holding that method's own options (its dataclass is registered with
the method, see :mod:`training.methods`).  Every key is optional; anything missing takes
the default documented below (``python -m training.train --show-config`` prints the
effective configuration, ``--describe-config`` every option with its documentation).

Unknown keys are refused with :class:`ConfigError`, so a typo never silently falls back
to a default.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from mariash_env import jsonio, tomlio
from mariash_env.textfile import NotUtf8Error

from .options import FEATURES, ConfigError, check_fields, check_value, convert_value, opt

SEED_MAX = 2**63 - 1  # the largest TOML integer; numpy and torch accept every seed up to it


@dataclass
class EnvConfig:
    """The batched self-play engine (:class:`mariash_env.vector.VectorEnv`)."""

    num_envs: int = opt(1024, "games stepped together per rollout worker; every step is one "
                              "batched forward pass over all of them", ge=1)
    rollout_steps: int = opt(32, "engine steps per iteration (one decision per game per step); "
                                 "an iteration's data is num_envs x rollout_steps x workers "
                                 "decisions minus the opponents' ones", ge=1)
    workers: int = opt(1, "rollout worker processes (each with its own VectorEnv of num_envs "
                          "games; the learner waits for all of them, so runs stay "
                          "deterministic). 1 = rollouts in the learner process, the right "
                          "choice on a 2-core machine; on a many-core box use "
                          "about cores-2 workers and a smaller num_envs each (the process "
                          "backend refuses more than 8 threads a core)", ge=1)
    pipeline: bool = opt(False, "collect the next iteration in worker process(es) while the "
                                "learner trains on this one (policy lag of one iteration; "
                                "deterministic). Uses a worker process even with workers = 1: "
                                "on 2 idle cores about twice the throughput")
    deals: int = opt(12, "deals per partie (12 = a real partie, so the agent also sees the "
                         "deal number and running score it meets at the table)", ge=1)
    rules: dict = opt(None, "rule options of mariash_env.make_rules (RULES.md §11), e.g. "
                            "{shuffle = 'every_deal', tariff = 'csm'}; empty = the seed-001 "
                            "table the robots are evaluated on; {rules = 'licitovany'} "
                            "trains licitovaný mariáš (LICITOVANY.md: its own action table, "
                            "observation and table robot), {rules = 'lizany'} two-player "
                            "lízaný (with deals = 1)", factory=dict)
    actor_threads: int = opt(1, "torch threads of each rollout worker process (workers > 1)",
                             ge=1)
    endgame_tricks: int = opt(0, "0 = whole deals; k > 0: every deal is the last k tricks "
                                 "of one volený deal, its remaining cards dealt anew "
                                 "(mariash_env.research.endgame: the small game on which a "
                                 "best response is checked against the exact one; needs "
                                 "deals = 1)", ge=0, le=10)
    endgame_seed: int = opt(0, "the deal whose last endgame_tricks tricks are played", ge=0)
    max_lag: int = opt(0, "0 = synchronous; L > 0 (--backend ray, no pipeline): "
                          "asynchronous sampling, each worker keeps L collections queued "
                          "with the weights it was sent and the learner drops a batch "
                          "more than L updates old (IMPALA/DouZero-style; not "
                          "reproducible)", ge=0)


@dataclass
class NetworkConfig:
    """The policy network (:mod:`training.networks`)."""

    kind: str = opt("mlp", "network architecture (registered in training.networks)")
    hidden: list = opt(None, "hidden layer widths of the MLP", factory=lambda: [512, 256],
                       item=int, ge=1, nonempty=True)
    layer_norm: bool = opt(True, "LayerNorm after every hidden Linear (before the ReLU)")
    features: list = opt(None, "derived inputs appended to the observation inside the network "
                               "(training.features): 'knowledge', the other seats' hands as "
                               "the rules of following bound them (volený)",
                         factory=list, item=str, choices=FEATURES)
    widen_init: bool = opt(False, "warm start (init) from a narrower MLP of the same depth, "
                                  "each hidden width a whole multiple of the init's: its "
                                  "units copied, computing the same scores "
                                  "(training.networks.widen_mlp)")


@dataclass
class SelfPlayConfig:
    """Who sits at the learner's table.

    At the start of every deal each game draws its table: with probability
    ``table_robot_share`` the learner plays one random seat against two TableRobots
    (when ``mariash_env.robots.table`` exists; otherwise that share plays self-play),
    with ``pool_share`` against two copies of one earlier snapshot, with
    ``random_share`` against two RandomRobots, with ``frozen_share`` against the robot
    ``frozen`` (any robot spec) in all seats but the learner's ``frozen_seats`` (a best
    response: :mod:`training.best_response`), and otherwise all seats are the
    current policy (self-play: every seat's decisions are training data).

    Independently, with probability ``guide_share`` a deal is *guided*: the learner's
    seats play the table robot's actions there, recorded as the learner's decisions, so
    the Q-values of what the robot does (its bids and contracts, which a learner that
    never bids never tries) are learned from play that knows how to make them.
    """

    pool_size: int = opt(8, "earlier snapshots kept as opponents (oldest dropped first)", ge=0)
    pool_every: int = opt(50, "iterations between snapshots added to the pool", ge=1)
    pool_share: float = opt(0.3, "share of deals against a snapshot from the pool", ge=0, le=1)
    table_robot_share: float = opt(0.0, "share of deals against two TableRobots", ge=0, le=1)
    random_share: float = opt(0.05, "share of deals against two RandomRobots", ge=0, le=1)
    guide_share: float = opt(0.0, "share of deals in which the learner's seats play the "
                                  "table robot's actions (recorded as the learner's: "
                                  "exploration guided by the robot)", ge=0, le=1)
    frozen: str = opt("", "a robot spec (mariash_env.robots.make_robot: 'table', 'net', "
                          "'onnx:PATH', 'strong', 'pimc(...)') frozen in the other seats of "
                          "the frozen_share deals: the opponent a best response is trained "
                          "against (training.best_response)")
    frozen_share: float = opt(0.0, "share of deals against the frozen robot (needs frozen)",
                              ge=0, le=1)
    frozen_seats: int = opt(1, "the learner's seats at a frozen table: 1 (alone against the "
                               "frozen robot in every other seat) or more (the frozen robot "
                               "in one seat)", ge=1, le=3)


@dataclass
class EvalConfig:
    """Periodic duplicate evaluation (:mod:`training.evaluate`)."""

    every: int = opt(100, "iterations between evaluations (0 = only at the end)", ge=0)
    deals: int = opt(1000, "duplicate deals per opponent; each is played under the "
                           "arena's six seatings (the agent alone in each seat, and the "
                           "opponent alone in each seat), so 6x as many games", ge=1)
    seed: int = opt(20240, "seed of the evaluation deals (the same deals every time)", ge=0,
                    le=SEED_MAX)
    opponents: list = opt(None, "robots to evaluate against: 'random', 'table', or any "
                                "mariash_env.robots.make_robot spec such as 'pimc(worlds=8)' "
                                "or 'onnx:PATH'",
                          factory=lambda: ["random", "table"], item=str)
    final_opponents: list = opt(None, "robots for the evaluation at the end of a run "
                                      "(empty = the same as opponents)", factory=list,
                                item=str)
    num_envs: int = opt(3000, "games played together in an evaluation (the arena's six "
                              "seatings per deal)",
                        ge=3)
    bootstrap: int = opt(2000, "bootstrap resamples for the 95% confidence interval", ge=1)


@dataclass
class RunConfig:
    """Budget, logging and checkpoints."""

    max_decisions: int = opt(0, "stop after this many engine decisions (0 = no limit)", ge=0)
    max_iterations: int = opt(0, "stop after this many iterations (0 = no limit)", ge=0)
    time_budget_s: float = opt(0.0, "stop after this many seconds of training in the "
                                    "run, a resumed run's earlier processes included "
                                    "(counters.train_s, 0 = no limit); evaluation time is "
                                    "excluded",
                               ge=0)
    checkpoint_every: int = opt(100, "iterations between checkpoints (one is also written "
                                     "before every evaluation and at the end). The engines "
                                     "are reseeded after each checkpoint, so a resumed run "
                                     "continues exactly as the uninterrupted one", ge=1)
    keep_checkpoints: int = opt(3, "numbered checkpoints kept besides checkpoint.pt "
                                   "(0 = only checkpoint.pt)", ge=0)
    device: str = opt("auto", "learner device: 'auto' (CUDA when available), 'cpu', 'cuda' "
                              "or 'cuda:N'")
    threads: int = opt(1, "torch threads in the learner process (0 = torch's default: one "
                          "per core). 1 is the safe choice: on a busy machine several "
                          "threads are up to 10x slower than one (they wait on each other)",
                       ge=0)
    progress: bool = opt(True, "show a tqdm progress bar")
    tensorboard: bool = opt(True, "write TensorBoard event files to RUN/tb")
    plot: bool = opt(True, "write the learning curve RUN/curves.png after each evaluation")


@dataclass
class Config:
    """A training run.  See the section dataclasses for every option."""

    seed: int = opt(0, "seed of everything (network init, exploration, tables, engines)",
                    ge=0, le=SEED_MAX)
    method: str = opt("dmc", "training method (registered in training.methods)")
    init: str = opt("", "warm start: a checkpoint (RUN/checkpoint.pt) or an exported robot "
                        "(.onnx, python -m training.export) whose policy weights "
                        "start this run, e.g. to fine-tune a finished run under other "
                        "opponents or rates; its network must have this config's shape. The "
                        "optimizer, counters and pool start fresh ('' = random init)")
    env: EnvConfig = opt(None, "rollouts", factory=EnvConfig)
    network: NetworkConfig = opt(None, "policy network", factory=NetworkConfig)
    selfplay: SelfPlayConfig = opt(None, "opponents", factory=SelfPlayConfig)
    eval: EvalConfig = opt(None, "evaluation", factory=EvalConfig)
    run: RunConfig = opt(None, "budget, logs, checkpoints", factory=RunConfig)
    algo: Any = opt(None, "the method's own options (TOML table named after the method)")

    def __post_init__(self) -> None:
        if self.algo is None:
            from .methods import get_method

            self.algo = get_method(self.method).config_class()

    # -- conversion ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seed": self.seed, "method": self.method}
        if self.init:  # only when set: runs stored before the option resume unchanged
            d["init"] = self.init
        for name in ("env", "network", "selfplay", "eval", "run"):
            d[name] = dataclasses.asdict(getattr(self, name))
        if not d["network"]["features"]:  # only when set: stored runs resume unchanged
            del d["network"]["features"]
        d[self.method] = dataclasses.asdict(self.algo)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], source: str = "config") -> Config:
        from .methods import get_method

        d = dict(d)
        method = d.pop("method", "dmc")
        try:
            mcls = get_method(method)
        except KeyError as e:
            raise ConfigError(f"{source}: {e.args[0]}") from None
        kw: dict[str, Any] = {"method": method}
        top = {"seed": d.pop("seed", 0), "init": d.pop("init", "")}
        known = {f.name: f for f in fields(cls)}
        for name, value in top.items():
            check_value(value, known[name], name, source)
            kw[name] = value
        for name, sec_cls in SECTIONS.items():
            kw[name] = _build(sec_cls, d.pop(name, {}), source, name)
        kw["algo"] = _build(mcls.config_class, d.pop(method, {}), source, method)
        if d:
            raise ConfigError(
                f"{source}: unknown key(s) {sorted(d)}: expected 'seed', 'method', 'init' and the "
                f"tables {sorted(SECTIONS)} and [{method}]"
            )
        cfg = cls(**kw)
        cfg.validate(source)
        return cfg

    def validate(self, source: str = "config") -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise ConfigError(f"{source}: {msg}")

        check_fields(self, source)
        for name in SECTIONS:
            check_fields(getattr(self, name), source, name)
        check_fields(self.algo, source, self.method)
        from .networks import NETWORKS

        need(self.network.kind in NETWORKS, f"network.kind = {self.network.kind!r}: expected "
             f"one of {sorted(NETWORKS)}")
        need(not (self.network.widen_init and self.network.features),
             "network.widen_init and network.features: widen first, then add the derived "
             "inputs in a run of its own")
        need(not self.network.widen_init or (self.init and self.network.kind == "mlp"),
             "network.widen_init widens the network of init: it needs an init and an mlp, "
             f"got init = {self.init!r} and network.kind = {self.network.kind!r}")
        sp = self.selfplay
        total = sp.pool_share + sp.table_robot_share + sp.random_share + sp.frozen_share
        need(total <= 1.0 + 1e-9, f"selfplay shares (pool + table_robot + random + frozen) "
             f"must sum to at most 1, got {total:g}")
        need(not self.env.endgame_tricks or (self.env.deals == 1 and self.env.rules in (
            {}, {"rules": "voleny"})),
             "env.endgame_tricks plays a volený endgame: it needs deals = 1 and the default "
             f"rules, got deals = {self.env.deals} and rules = {self.env.rules!r}")
        need(bool(sp.frozen) == (sp.frozen_share > 0),
             f"selfplay.frozen = {sp.frozen!r} and frozen_share = {sp.frozen_share:g}: a "
             "frozen robot needs a share of deals, and a share needs the robot")
        dev = self.run.device
        need(dev in ("auto", "cpu", "cuda") or (dev.startswith("cuda:") and dev[5:].isdigit()),
             f"run.device = {dev!r}: expected 'auto', 'cpu', 'cuda' or 'cuda:N'")
        from mariash_env.robots import ROBOT_NAMES

        # The robot specs' syntax here (any registered robot); Trainer builds every robot
        # before its first iteration.
        specs = [(f"eval.{key}", o) for key in ("opponents", "final_opponents")
                 for o in getattr(self.eval, key)]
        specs += [("selfplay.frozen", sp.frozen)] if sp.frozen else []
        for key, o in specs:
            base = o.partition("(")[0].strip().partition(":")[0]
            need(base in {n.partition(":")[0] for n in ROBOT_NAMES},
                 f"{key}: unknown robot {o!r} (expected 'random', 'table', "
                 f"'pimc(...)', 'onnx:PATH' or another registered robot: "
                 f"{', '.join(ROBOT_NAMES)})")
        from mariash_env.games.registry import game_kind
        from mariash_env.rules import RulesError, make_rules
        from mariash_env.vector import VectorEnv

        players = 3
        try:
            game = game_kind(self.env.rules, front_end="training")
            if game.game is None:  # a game with its own batched engine (lízaný)
                VectorEnv(1, deals=self.env.deals, observations=False, **self.env.rules)
            else:  # players=4: volený's four-player table (another game: a RulesError)
                players = make_rules(deals=self.env.deals, **self.env.rules).players
        except (RulesError, ValueError, TypeError, OverflowError) as e:
            raise ConfigError(f"{source}: [env] rules: {e}") from None
        # self-play at four (training/rollout.py); the label sets are three seats' deals
        sets = [f"dmc.{k}" for k in ("label_data", "bid_label_data", "more_label_data")
                if getattr(self.algo, k, "")] if players == 4 else []
        need(not sets, f"{', '.join(sets)}: label sets value three-player deals (the actor's 2A) "
             "and the four-player table pays the actor 3A (RULES.md §11.3): train at "
             "players=4 by self-play, or at three with the labels")
        need(getattr(self.algo, "demo_margin", 0) == 0 or sp.guide_share > 0,
             f"[{self.method}] demo_margin = {getattr(self.algo, 'demo_margin', 0):g} learns "
             "from the guided deals: it needs selfplay.guide_share > 0")
        skip = getattr(self.algo, "demo_skip_phases", [])
        if skip:
            names = game.phase_names
            bad = [p for p in skip if p not in names]
            need(not bad, f"[{self.method}] demo_skip_phases: unknown phase(s) {bad} of "
                 f"{game.name}: expected some of {list(names)}")
        validate = getattr(self.algo, "validate", None)
        if validate is not None:
            try:
                validate()
            except ValueError as e:
                raise ConfigError(f"{source}: [{self.method}] {e}") from None

    def replace(self, **overrides: Any) -> Config:
        """A copy with dotted overrides applied, e.g. ``replace(**{"run.max_iterations": 3})``."""
        d = self.to_dict()
        for key, value in overrides.items():
            apply_override(d, key, value)
        return Config.from_dict(d, "override")


SECTIONS = {"env": EnvConfig, "network": NetworkConfig, "selfplay": SelfPlayConfig,
            "eval": EvalConfig, "run": RunConfig}


def _build(cls: type, table: Any, source: str, section: str) -> Any:
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [{section}] must be a table, got {type(table).__name__}")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(f"{source}: [{section}] unknown key(s) {unknown}: expected some of "
                          f"{sorted(known)}")
    kw = {}
    for name, value in table.items():
        check_value(value, known[name], f"{section}.{name}", source)
        kw[name] = convert_value(value, known[name])
    return cls(**kw)


def apply_override(d: dict[str, Any], key: str, value: Any) -> None:
    """Set ``d["a"]["b"] = value`` for ``key = "a.b"`` (creating tables as needed)."""
    parts = key.split(".")
    cur = d
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
        if not isinstance(cur, dict):
            raise ConfigError(f"override {key!r}: {p!r} is not a table")
    cur[parts[-1]] = value


def parse_override(text: str) -> tuple[str, Any]:
    """``"run.max_iterations=10"`` -> ``("run.max_iterations", 10)`` (value parsed as TOML)."""
    if "=" not in text:
        raise ConfigError(f"override {text!r}: expected KEY=VALUE, e.g. run.max_iterations=10")
    key, _, raw = text.partition("=")
    try:
        value = tomlio.loads(f"v = {raw}")["v"]
    except jsonio.NestingError as e:  # TOML, nested past the reader's depth: no string
        raise ConfigError(f"override {key.strip()!r}: {e}") from None
    except tomlio.TOMLDecodeError:
        value = raw  # a bare string
    return key.strip(), value


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> Config:
    """Read a ``.toml`` or ``.json`` config (``None`` = all defaults) and apply overrides."""
    d: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        p = Path(path)
        source = str(p)
        try:
            d = jsonio.read(p) if p.suffix == ".json" else tomlio.read(p)
        except OSError as e:
            raise ConfigError(f"cannot read config {p}: {e.strerror or e}") from None
        except NotUtf8Error as e:  # a bare UnicodeDecodeError before
            raise ConfigError(f"{p}: {e}") from None
        except jsonio.DuplicateKeyError as e:  # not the last value taken, silently (TOML's
            raise ConfigError(f"{p}: {e}: expected each key once") from None  # own error)
        except ValueError as e:  # JSON's or TOML's error, nested too deeply (NestingError)
            raise ConfigError(f"{p}: not valid {'JSON' if p.suffix == '.json' else 'TOML'}: {e}") \
                from None
    keys = []
    for ov in overrides or []:
        k, v = parse_override(ov)
        apply_override(d, k, v)
        keys.append(k)
    if keys:  # an unknown key or a bad value may be an override's: not the file's alone
        source += f" with the overrides of {', '.join(keys)}"
    return Config.from_dict(d, source)


def describe_config(cfg: Config | None = None) -> str:
    """Every option with its default and documentation (for ``--describe-config``)."""
    cfg = cfg or Config()
    lines = []
    top = [f for f in fields(Config) if f.name in ("seed", "method", "init")]
    for f in top:
        lines.append(f"{f.name} = {json.dumps(getattr(cfg, f.name))}    # {f.metadata['doc']}")
    sections = [(n, getattr(cfg, n)) for n in ("env", "network", "selfplay", "eval", "run")]
    sections.append((cfg.method, cfg.algo))
    for name, sec in sections:
        lines.append("")
        lines.append(f"[{name}]")
        for f in fields(sec):
            doc = f.metadata.get("doc", "")
            lines.append(f"{f.name} = {json.dumps(getattr(sec, f.name))}    # {doc}")
    return "\n".join(lines)
