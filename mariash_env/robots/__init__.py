"""Robot opponents: random, the table robot of the online table, PIMC search, and exported
neural policies (ONNX, no torch needed).

``make_robot(spec, rules=...)`` builds one by the name it is registered under
(:mod:`mariash_env.robots.registry`: each robot is registered where it is defined, with
the games it plays, its arguments and whether it needs the game view; :data:`ROBOT_NAMES`
and :func:`robots_of` read the registry):

* ``"random"`` -- :class:`RandomRobot` (uniform over the legal actions; every game);
* ``"table"`` -- the game's own rule robot (its kind's ``table_robot``): :class:`TableRobot`
  (volený), :class:`~mariash_env.games.licitovany.table_robot.LicitTableRobot`,
  :class:`~mariash_env.games.lizany.table_robot.LizanyRuleRobot`;
* ``"lizany_table"`` -- lízaný's rule robot by its own name (lízaný by default);
* ``"pimc"`` -- :class:`PIMCRobot` (sampled worlds + solver / rollouts; volený and
  licitovaný), lízaný's own PIMC
  (:class:`~mariash_env.games.lizany.pimc.LizanyPIMCRobot`) with ``rules="lizany"``;
* ``"nnpimc"`` -- :class:`~mariash_env.robots.nnpimc.NNPIMCRobot`, PIMC whose card-play
  worlds are weighted by how likely an exported network finds the other seats' recorded
  cards (``"nnpimc(model='models/robot.onnx', worlds=8)"``; volený, three players, or
  licitovaný with a licitovaný model and uniform worlds; imported when built);
* ``"net"`` and ``"strong"`` -- per game, the robot spec its kind names
  (``GameKind.net``: the best shipped network alone, no search; ``GameKind.strong``: the
  strongest robot at about a millisecond a decision).  Volený: ``net`` is
  ``models/robot_voleny_seated3.onnx``, ``strong`` the strong cheap robot of issue #16
  (``nnpimc`` with the settings of :data:`STRONG`: the bidding and first three tricks of
  suit games of ``models/robot_voleny_seated3.onnx``, volený's ``net``, exact PIMC on
  uniform worlds from the fourth trick on and in every trick of betl and durch);
  licitovaný: ``net`` is ``models/robot_licitovany_actor_table3.onnx``, ``strong``
  ``nnpimc`` with the bidding and first four tricks of that network and uniform PIMC
  after (issue #35, its kind's ``strong``).  A game that names none refuses them with
  :class:`RobotGameError` naming the robots it has.  Arguments override the kind's
  (``"strong(from_trick=4, worlds=8)"``);
* ``"onnx:PATH"`` -- :class:`OnnxRobot` playing an exported policy of the game;
* ``"os_random"`` / ``"os_ismcts"`` -- OpenSpiel's ``UniformRandomBot`` / ``ISMCTSBot``
  (:class:`mariash_env.openspiel.OpenSpielRobot`; needs ``open_spiel``, imported when
  built; every game OpenSpiel drives that has the game view).

Keyword arguments may also be written into the spec, ``"pimc(worlds=8, time_limit=0.5)"``.
``rules`` names the game the robot will play (a :class:`~mariash_env.rules.Rules`, a rules
dict or a game name; default volený).

Every robot follows the protocol of :mod:`mariash_env.robots.base` (``begin_deal``,
``act`` / ``act_view`` / ``act_batch``, ``wants_view``), so each plays in every harness,
and declares the games it plays (``games``, registry names, None = every game;
``seat_counts``).  ``make_robot`` refuses a robot for a game it does not play with
:class:`RobotGameError` (a ValueError) naming both, :func:`check_plays` checks any robot.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from typing import Any

from .. import jsonio
from ..core.validate import MAX_WORLDS
from ..games.base import GameKind
from ..games.registry import game_kind
from ..games.voleny.table_robot import TableRobot
from ..rules import check_game_options, is_int, make_rules
from ..shipped import shipped_of
from .base import (
    ObservationError,
    PolicyRobot,
    RandomRobot,
    Robot,
    RobotGameError,
    as_robot,
    check_plays,
)
from .onnx_robot import OnnxRobot, OnnxRobotError
from .pimc import PIMCRobot
from .registry import (
    ANY_GAME,
    FLAG,
    SEED,
    TIME_LIMIT,
    VIEW_FRONT_END,
    WORLDS,
    RobotEntry,
    check_args,
    game_own_class,
    int_at_least,
    one_of,
    positive_number,
    real,
    register_robot,
    robot_entries,
    robot_entry,
    robot_names,
)
from .view import SeatView

__all__ = [
    "Robot", "RandomRobot", "TableRobot", "PIMCRobot", "SeatView", "OnnxRobot",
    "OnnxRobotError", "PolicyRobot", "as_robot", "make_robot", "parse_spec", "ROBOT_NAMES",
    "check_robot_args", "game_name", "RobotGameError", "check_plays", "register_robot",
    "robots_of", "robot_args", "ObservationError", "check_robot", "split_robot_specs",
]

ROBOT_NAMES: tuple[str, ...]  # served by __getattr__ below; declared for the API reference
"""How each registered robot is written (``"random"``, ``"onnx:PATH"``, ``"pimc"``, ...),
read from the registry at each access: a robot registered later is in it (per game:
:func:`robots_of`)."""


def __getattr__(name: str) -> Any:
    if name == "ROBOT_NAMES":  # read from the registry, so a robot registered later is in it
        return robot_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc(worlds=8)"`` -> ``("pimc", {"worlds": 8})``; ``"onnx:m.onnx"`` unchanged.
    ValueError naming a malformed spec, an argument given twice, and an argument whose
    dict gives a key twice (:func:`mariash_env.jsonio.literal`: which is meant?)."""
    spec = spec.strip()
    if spec.startswith("onnx:") or "(" not in spec:
        return spec, {}
    if not spec.endswith(")"):
        raise ValueError(f"bad robot spec {spec!r}: expected NAME or NAME(key=value, ...)")
    name, _, args = spec[:-1].partition("(")
    kw: dict[str, Any] = {}
    if args.strip():
        bad = ValueError(f"bad robot spec {spec!r}: arguments must be key=literal pairs, "
                         "strings quoted (e.g. nnpimc(model='models/robot.onnx', worlds=8))")
        arg = None  # the argument read
        try:
            call = ast.parse(f"f({args})", mode="eval").body
            if not isinstance(call, ast.Call) or call.args or any(
                k.arg is None for k in call.keywords
            ):
                raise bad
            values = []
            for k in call.keywords:
                arg = k.arg
                values.append((str(arg), jsonio.literal(k.value)))
        except jsonio.DuplicateKeyError as e:  # a dict's key twice: not its last, silently
            raise ValueError(f"bad robot spec {spec!r}: argument {arg!r}: {e}") from None
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError) as e:
            raise bad from e
        for key, value in values:
            if key in kw:  # Python's parser lets it through; a call would refuse it
                raise ValueError(f"bad robot spec {spec!r}: argument {key!r} is given twice")
            kw[key] = value
    return name.strip(), kw


def split_robot_specs(text: str) -> list[str]:
    """A command line's robot list as its specs: ``"pimc(worlds=8, time_limit=0.5),table"``
    -> ``["pimc(worlds=8, time_limit=0.5)", "table"]``.  Split on the commas outside
    parentheses (and outside the quoted strings of a spec's arguments,
    ``nnpimc(model='a,b).onnx')``), each spec stripped; an empty one is kept (``""`` ->
    ``[""]``, ``"table,"`` -> ``["table", ""]``) for the caller to name with its option.
    The one split of every command line and table that takes a robot list.  ValueError
    naming the list and its unbalanced parenthesis (a ``(`` never closed, a ``)`` that
    closes none): there no spec ends where it seems to, so none is guessed."""
    specs: list[str] = []
    depth, quote, cur = 0, "", []
    for ch in text:
        if quote:  # inside a quoted argument: nothing there splits or nests
            quote = "" if ch == quote else quote
        elif depth and ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if not depth:
                raise ValueError(f"bad robot list {text!r}: a ')' that closes no '('; "
                                 "expected robot specs NAME or NAME(key=value, ...), "
                                 "separated by commas")
            depth -= 1
        elif ch == "," and not depth:
            specs.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if depth or quote:
        raise ValueError(f"bad robot list {text!r}: "
                         + ("a quoted argument is not closed" if quote else
                            "a '(' is not closed")
                         + "; expected robot specs NAME or NAME(key=value, ...), "
                           "separated by commas")
    specs.append("".join(cur).strip())
    return specs


_TABLE_WARM: set[str] = set()


def _table_robot(kind: Any, players: int, **kw: Any) -> Robot:
    """Robot ``"table"`` (and lízaný's ``"lizany_table"``): the game's own rule robot (its
    kind's ``table_robot``).  The kernels its decisions call are compiled (or loaded)
    here, once per process and game, before it is built -- its own (the class's
    ``warm_up``) and, in a game of the engine, those of the seat's observation and mask
    (:meth:`SeatView.warm_up`) -- not in its first decision (issue #35 audit: 22.8 s in
    volený at four, 33.5 s in licitovaný on an empty cache), and nothing else: no deal is
    played, no search's playout compiled."""
    cls = kind.load("table_robot")
    check_plays(cls, kind, players, "table")
    if kind.name not in _TABLE_WARM:
        from ..compile import compiling_notice
        from ..core.engine import legal_actions
        from ..rules import make_rules
        from .playouts import warm_table_robot
        from .view import SeatView

        kernels = [k for k in (getattr(cls, "decision_kernel", None),) if k is not None]
        if kind.game is not None:
            kernels += [legal_actions, kind.encode]
        # announced as the searching robots' warm-ups are, unless the cache holds them
        with compiling_notice(kind.name, about="under a minute", what="table robot's kernels",
                              kernels=kernels):
            warm_table_robot(cls)  # its own kernels, where it has a warm_up
            if kind.game is not None:
                SeatView.warm_up(make_rules(rules=kind.name))
        _TABLE_WARM.add(kind.name)
    return cls(**kw)


# The robots defined elsewhere: each game's table robot, and those imported only when
# built ("module:name"): nnpimc reads the shipped models, OpenSpiel's needs open_spiel.
register_robot("table", _table_robot)
register_robot("lizany_table", _table_robot, games=("lizany",))  # lízaný's "table"
NNPIMC_ARGS = {
    "model": (lambda v: isinstance(v, str) and bool(v), "the path of an exported .onnx model"),
    "worlds": WORLDS,
    "candidates": (lambda v: v is None or (is_int(v) and 1 <= v <= MAX_WORLDS),
                   f"an int >= worlds, at most {MAX_WORLDS}, or None (4 x worlds)"),
    "temperature": positive_number(),
    "floor": (lambda v: real(v) and 0 < v <= 0.1, "a number in (0, 0.1]"),
    "time_limit": TIME_LIMIT, "seed": SEED, "game": ANY_GAME,
    "bidding": one_of("simulate", "table", "network"),
    "threads": int_at_least(1),
    "leaf": one_of("solver", "network"),
    "from_trick": (lambda v: is_int(v) and 0 <= v <= 9, "a trick 0..9"),
    "nt_from_trick": (lambda v: v is None or (is_int(v) and 0 <= v <= 9),
                      "a trick 0..9 or None"),
    "inference": FLAG,
    "betl_bias": (lambda v: real(v) and -math.inf < v < math.inf, "a finite number of groše"),
    "durch_bias": (lambda v: real(v) and -math.inf < v < math.inf,
                   "a finite number of groše"),
}
_NNPIMC_VIEW_GAMES = ("voleny", "licitovany")  # the shared nnpimc's; another game: its own


def _check_nnpimc(kind: Any, players: int, kw: Mapping[str, Any]) -> None:
    """What ``make_nnpimc`` refuses before it reads a model: the arguments of a game's own
    nnpimc (lízaný's), ``inference=True`` at four players."""
    if kind.name not in _NNPIMC_VIEW_GAMES:
        game_own_class(kind, "nnpimc", kw)
    elif players != 3 and kw.get("inference"):
        from .nnpimc import refuse_inference

        refuse_inference(players)


register_robot("nnpimc", "mariash_env.robots.nnpimc:make_nnpimc",
               # volený's and licitovaný's three seats, volený's four, lízaný's two
               seat_counts=(2, 3, 4),
               needs_view=_NNPIMC_VIEW_GAMES, args=NNPIMC_ARGS, check=_check_nnpimc)
register_robot("net", per_game="net")  # the game's kind names it (GameKind.net)
register_robot("strong", per_game="strong")
for _bot, _args in (("random", {"seed": SEED}),
                    ("ismcts", {"simulations": int_at_least(1), "rollouts": int_at_least(1),
                                "uct_c": positive_number(), "seed": SEED})):
    register_robot(f"os_{_bot}", "mariash_env.openspiel.robot:make_openspiel_robot",
                   front_end="openspiel",
                   games=("voleny", "licitovany"),  # lízaný's OpenSpiel game has no robot
                   needs_view=True, args=_args, defaults={"kind": _bot})

STRONG: dict[str, Any] = dict(parse_spec(game_kind("voleny").strong)[1])
"""The settings of volený's robot ``"strong"`` (nnpimc; its kind's ``strong`` spec, measured
in docs/nnpimc.md)."""


def _per_game(entry: RobotEntry, kind: Any, name: str) -> tuple[RobotEntry, str | None,
                                                                 dict[str, Any]]:
    """The robot ``entry`` (``"net"``, ``"strong"``) stands for in ``kind``'s game: its
    entry, path and keyword arguments, a shipped model ``models/FILE`` located (a checkout
    or a wheel); RobotGameError naming the game's robots when it names none."""
    spec = getattr(kind, entry.per_game)
    if not spec:
        raise RobotGameError(
            f"robot {name!r} cannot play {kind.name}: {kind.title or kind.name} has no "
            f"{entry.name!r} robot yet (GameKind.{entry.per_game} is empty); it is played by "
            f"{', '.join(robots_of(kind))}")
    base, kw = parse_spec(spec)
    # the kind names shipped networks (models/FILE): the shipped file, whatever the folder
    if base.startswith("onnx:") and (net := shipped_of(base[len("onnx:"):])) is not None:
        base = f"onnx:{net}"
    if isinstance(kw.get("model"), str) and (net := shipped_of(kw["model"])) is not None:
        kw["model"] = str(net)
    real_entry, path = robot_entry(base)
    if real_entry.per_game:
        raise ValueError(f"{kind.name}'s {entry.per_game} = {spec!r} names another per-game "
                         "robot: expected a robot spec")
    return real_entry, path, kw


def robots_of(rules: Any = None, players: int | None = None) -> tuple[str, ...]:
    """The registered robots that play the game of ``rules`` (a game name, Rules, rules
    dict, a GameKind or None = volený) with ``players`` seats (default: the game's own)."""
    kind = rules if isinstance(rules, GameKind) else game_kind(rules)
    players = kind.players[0] if players is None else players
    out = []
    for e in robot_entries():
        # "net" / "strong" play where the robot their game names does
        r = robot_entry(parse_spec(getattr(kind, e.per_game))[0])[0] if (
            e.per_game and e.plays(kind)) else e
        if e.plays(kind) and r.plays(kind) and players in (r.seat_counts or [players]):
            out.append(e.spec)
    return tuple(out)


def robot_args(base: str, rules: Any = None) -> frozenset[str]:
    """The keyword arguments robot ``base`` takes in the game of ``rules`` (``"net"`` /
    ``"strong"``: those of the robot the game names); none for an unknown robot or one
    the game lacks (``make_robot`` names what is wrong)."""
    entry = {e.name: e for e in robot_entries()}.get(base.partition(":")[0])
    if entry is not None and entry.per_game:
        try:
            entry = _per_game(entry, game_kind(rules), base)[0]
        except ValueError:
            return frozenset()
    return frozenset(entry.args) if entry is not None else frozenset()


def check_robot_args(base: str, kw: dict[str, Any], rules: Any = None) -> None:
    """:func:`check_robot` of robot ``base`` with the keyword arguments ``kw`` (kept for
    its callers: one place checks a robot spec).  It checked the argument tables alone,
    and so passed what the registry entry's ``check`` refuses (lízaný's own ``pimc``'s
    arguments, ``nnpimc``'s ``inference=True`` at four), which :func:`make_robot`
    refuses."""
    check_robot(base, rules, **kw)


def game_name(rules: Any) -> str:
    """The game (``"voleny"`` / ``"licitovany"`` / ``"lizany"``) of a Rules, a rules dict, a
    game name or None (volený); ValueError naming anything else."""
    return game_kind(rules).name  # GameError (a ValueError) names the registered games


def _players(rules: Any, kind: Any) -> int:
    """The seat count of ``rules`` (a Rules, a rules dict, a game name or None)."""
    from ..rules import Rules

    if isinstance(rules, Rules):
        return rules.players
    if isinstance(rules, dict) and "players" in rules:
        return rules["players"]
    return kind.players[0]


def check_robot(name: str, rules: Any = None, **kw: Any) -> None:
    """What :func:`make_robot` checks before it builds the robot, without building it (no
    compile, no model read): an unknown robot, argument or value, a robot the game lacks,
    an ``onnx:PATH`` robot whose file is missing; the same exceptions.  A front end
    that seats several robots checks them all first, so that a bad one is named at once,
    not after the others' warm-ups."""
    entry, path, *_ = _checked(name, rules, kw)
    check_path = getattr(entry.load(), "check_path", None) if path is not None else None
    if check_path is not None:  # a NAME:PATH robot's file (onnx: OnnxRobotError)
        check_path(path)


def _checked(name: Any, rules: Any, kw: dict[str, Any]
             ) -> tuple[RobotEntry, str | None, dict[str, Any], Any, int, str]:
    """The checks of :func:`make_robot`: the robot's entry, its path, its arguments, the
    game's kind, its seat count and the spec's name (``base``)."""
    if not isinstance(name, str):
        raise ValueError(f"a robot spec must be a str, got {name!r}")
    base, extra = parse_spec(name)
    kw = {**extra, **kw}
    entry, path = robot_entry(base)
    if rules is None and entry.games and "voleny" not in entry.games:
        rules = entry.games[0]  # a robot of one game plays that game by default
    kind = game_kind(rules)
    if isinstance(rules, Mapping):  # checked as every environment checks them: RulesError
        # naming a bad option (the robot plays whatever game it is then given)
        if kind.game is None:
            check_game_options(kind, rules)
        else:  # the game's own seat count is no option to refuse (licitovaný's three)
            make_rules(**{k: v for k, v in rules.items() if not (
                k == "players" and is_int(v) and v in kind.players)})
    players = _players(rules, kind)
    if entry.per_game:
        entry, path, own = _per_game(entry, kind, base)
        check_args(entry, kw, base)  # the caller's arguments, named as the caller wrote them
        kw = {**own, **kw}
    check_args(entry, kw, base)
    if entry.front_end is not None:
        kind.require(entry.front_end)  # GameError naming the front ends that play the game
    if entry.views(kind) and not kind.supports(VIEW_FRONT_END):
        raise RobotGameError(
            f"robot {base!r} cannot play {kind.title or kind.name} (rules={kind.name!r}): it "
            f"decides from the game view (SeatView), which that game does not have; it is "
            f"played by {', '.join(robots_of(kind, players))}")
    try:
        check_plays(entry, kind, players, base)
    except RobotGameError as e:
        raise RobotGameError(f"{e}; {kind.title or kind.name} with {players} players is "
                             f"played by {', '.join(robots_of(kind, players))}") from None
    if entry.check is not None:  # what the factory refuses before it builds
        entry.check(kind, players, kw)
    return entry, path, kw, kind, players, base


def make_robot(name: str, rules: Any = None, **kw: Any) -> Robot:
    """A robot from its registered name (module docstring) for the game of ``rules`` (a
    Rules, a rules dict, a game name or None: volený, or the one game of a robot that
    plays no other); ``kw`` go to its constructor.

    Every argument is checked first: an unknown robot, an unknown argument or a bad value
    raises ValueError naming it and what is accepted; a robot that cannot play the game
    (an ONNX model of another game, ``"strong"`` where the game has none)
    :class:`RobotGameError` naming the game and the robots it has.
    """
    entry, path, kw, kind, players, base = _checked(name, rules, kw)
    factory = entry.load()
    args = () if path is None else (path,)
    kw = {**entry.defaults, **kw}
    robot = (factory(*args, **kw) if isinstance(factory, type)
             else factory(kind, players, *args, **kw))
    check_plays(robot, kind, players, base)  # an ONNX model plays its metadata's game only
    return robot
