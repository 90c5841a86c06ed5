"""PIMC labels for card play and bidding: the data of the search-distillation stage (#16).

``python -m training.pimc_labels --out runs/labels --states 100000 --jobs 2``
``python -m training.pimc_labels --out runs/bid_labels --phase bidding --worlds 12 ...``
``python -m training.pimc_labels --rules licitovany --out runs/licit_labels ...``
``python -m training.pimc_labels --rules lizany --out runs/lizany_labels --from-trick 7 ...``

Plays parties of a game (``--rules``: volený by default, or licitovaný; 12-deal parties)
with a behaviour policy -- at each seat, per deal, the behaviour robot (``--behaviour``: an
exported ONNX file or a robot spec; default volený's ``models/robot.onnx``, any other
game's shipped network, the registry's ``net``) or the game's table robot, with a small
share of uniformly random actions so that the states do not all lie on one policy's path --
and at every card-play decision with a choice labels
the state with PIMC's per-action values: ``worlds`` worlds drawn from the seat's own
knowledge (:func:`mariash_env.search.sample_worlds`, exact and uniform), each solved
with every legal card (:func:`mariash_env.search.solve`, ``all_moves=True``), the seat's
groše (licitovaný: desetníky) averaged over the worlds (actor ``2A``, defender ``-A``;
volený's lay-down, when legal, gets the best card's value: laying down never changes an
exact result).  Everything per game -- actions, observations, worlds, table robot -- is
read from the registry (:func:`mariash_env.kinds.kind_of`).  Those values
are what :class:`~mariash_env.robots.PIMCRobot` maximises, so a network regressed on
them (``[dmc] label_data``) learns PIMC's card play in the limit of many worlds, at
the cost of one forward pass.

Lízaný, which has an engine of its own (:data:`OWN`), is labelled by its own PIMC robot
(:meth:`~mariash_env.games.lizany.pimc.LizanyPIMCRobot.action_values`) on its AEC env's
observations: the deals are played by the behaviour policy as above (two seats, one deal
each), and every decision with a choice from trick ``--from-trick`` on (default 7, where
its ``strong`` starts to search) gets each legal card's mean reward over ``--worlds``
worlds of the seat's knowledge, each solved exactly to its end -- once the stock is gone
the one world is the real deal and the label exact.  A row stores the game's own record
(``GameKind.record_size`` int32 values).  The volený and licitovaný focuses below
(``--phase bidding``, ``--roles``, ``--contracts``, ``--worlds-from deal``, ``--playout``)
are refused for it by name.

``--roles actor|defender`` and ``--contracts betl,durch`` (any of suit, betl, durch) keep
a card-play set to the decisions where the robot is weakest: the deals are played as
always, only the other decisions go unlabelled, so the labelling time all goes to them.
``--roles`` keeps a bidding set too: the actor's decisions are those of the seat that made
the contract, and before any contract volený's trump choice and contract naming (the
would-be actor's); licitovaný's auction, before anybody is the actor, is neither side's:
its own side, ``auction``.  Sides are comma-separated (``--roles actor,auction``), so that
two sets of one run can split a game's decisions between them without overlap.

``--phase bidding`` labels the other decisions with a choice instead (volený: trump,
contract, Barva?, betl answers, announcement, flek; licitovaný: bid/hold/pass, lone bid,
game, trumps, helping suit, face-down lead, flek; not the discards, which PIMC leaves to
the table robot): each candidate's mean groše over the worlds with the deal played out by the
table robot at every seat -- :meth:`PIMCRobot.candidate_values`, the very values PIMC's
bidding maximises.  At the trump choice PIMC simulates one card per suit (and *z lidu*);
every legal card of a suit gets its suit's value.  Many states regressed on few-world
values teach the network the expectation PIMC estimates with a handful of worlds per
decision.

``--worlds-from deal`` (with ``--worlds 1``) values each label in the one real deal
instead of worlds drawn from the seat's knowledge.  The network sees only the
observation, so over many rows it learns the mean over the deals that really reach it
under the behaviour policy: the posterior that PIMC's uniform worlds miss.  A defender
of licitovaný facing a flek knows the actor chose his game for a strong hand; uniform
worlds give the actor a typical one, and their values made every flek look good (issue
#35, ``scripts/label_bias.py``: a defender's ``good`` before any flek valued +26.8
desetníky in uniform worlds, +7.7 in the real deals).
One world a row is noisier: such a set wants more rows, which cost a twelfth as much.

``--playout behaviour`` plays each candidate's deal out with the behaviour
robot at every seat instead of the table robot (:func:`mariash_env.playout.playout_values`,
batched), so a label is the value of the decision under the network's own later play.
In licitovaný the table robot's playouts valued betl 6.4 desetníky under pass where PIMC's
values named it, the network's 0.6, and made a defender's flek look 2-36 desetníky better
than the network's playouts do (issue #35, ``docs/research/distillation.md``).  About a
ninth as fast.  ``--playout against_table`` plays the labelled seat with the behaviour
robot and the other seats with the game's table robot: the value of the decision against
that opponent (a best response to it, for a network meant to beat it).  Both work on
card-play sets too, whose default (``table``) is the solver's exact values: there each
legal card is played and the deal played out the same way, a step of policy iteration
against that opponent (issue #35: licitovaný's network played its suit games as actor
worse than the table robot did, while agreeing with PIMC's cards more often).
``--playout as_seated`` plays every seat as it is seated in the labelled party: the
behaviour robot at the labelled seat and at the other seats the behaviour robot plays
this deal (``--robot-share``), the table robot at the rest.  With a robot share of one
half the labels are the decision's value over the arena's seatings against the table
robot -- alone against two of it and beside its own copy -- in about the arena's
proportions (issue #35: PIMC's defenders' fleks, swapped into a network, paid beside its
copy and lost alone).

Output: shards ``RUN/shard_NNNNN.npz`` of ``--shard-size`` rows, each written
atomically, with ``state`` int32[n, STATE_SIZE] (the real state: observations are
encoded from it when the rows are loaded, so a label set outlives an observation
layout change), ``seat`` int8[n], ``mask`` int8[n, A] and ``value`` float32[n, A] (A the
game's actions: volený 115, licitovaný 136; the seat's groše or desetníky, NaN where
illegal), plus ``RUN/labels.json`` (settings, the game among them).  Shard
``i`` is a pure function of (``seed``, ``i``) and the settings: a run stopped anywhere
is resumed by running the same command again (existing shards are kept, missing ones
made), and ``--states`` can be raised later to add shards (or lowered: the shards
beyond it are removed).  A finished set records its shard count in ``labels.json``
(``shards``); a set missing one of them, or holding more, is refused when it is read.

:func:`load_labels` reads a directory back as observations (encoded now by the set's
game), masks and values for training; given the caller's game it refuses a set of another.
"""

from __future__ import annotations

import argparse
import io
import math
import re
import sys
import time
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

import numpy as np

from mariash_env import jsonio
from mariash_env.arena import MAX_JOBS
from mariash_env.atomic import atomic_open
from mariash_env.cli import (
    ArgumentParser,
    UnwritableError,
    add_ray_arguments,
    check_writable,
    quiet_on_closed_pipe,
)
from mariash_env.core import state as S
from mariash_env.game import Game
from mariash_env.games.base import GameError, GameKind
from mariash_env.games.registry import game_kind, games
from mariash_env.games.voleny import actions as VA
from mariash_env.kinds import KINDS, LICITOVANY, VOLENY, kind_of
from mariash_env.pools import jobs_above_cores
from mariash_env.rules import Rules, RulesError, is_int, make_rules

from .relocate import moved_roots, same_after_move

FORMAT = "mariash-pimc-labels-v1"
# labels.json's record of the set's folder (resolved) when it was made: a set can move
DIR_KEY = "dir"
SETTINGS = ("worlds", "shard_size", "seed", "behaviour", "robot_share", "epsilon", "rules",
            "game", "phase", "roles", "contracts", "worlds_from", "playout")
PHASES = ("play", "bidding")
# where a label's worlds come from: the seat's knowledge (PIMC's uniform worlds) or the
# real deal (one world: the behaviour's own deals give the posterior; module docstring)
WORLDS_FROM = ("sampled", "deal")
# the sides a set's ``roles`` keeps, comma-separated ("all": every decision): the actor's,
# the defenders', and licitovaný's auction, before anybody is either (:func:`side_of`)
SIDES = ("actor", "defender", "auction")
# who plays a label's deal out after each candidate: the game's table robot (bidding:
# PIMC's own playouts; card play: nobody, the solver's exact values), the behaviour robot
# at every seat, or the behaviour robot at the labelled seat against the table robot at the
# others, or the behaviour robot at the labelled seat and every seat as seated in the
# labelled party (module docstring)
PLAYOUTS = ("table", "behaviour", "against_table", "as_seated")
# the contracts a card-play label set can be kept to (CONTRACT_NAMES without "none")
CONTRACTS = tuple(S.CONTRACT_NAMES[1:])
# settings added after label sets were made: what the older sets hold
# (sets made before ``game`` existed are volený's)
DEFAULTS = {"phase": "play", "roles": "all", "contracts": CONTRACTS, "game": VOLENY.name,
            "worlds_from": "sampled", "playout": "table"}
# The behaviour robot of a game's label sets when ``--behaviour`` is not given: volený and
# licitovaný keep the network their recipes' label sets were made with (licitovaný's was
# its ``net`` until issue #35 trained a better one), so that those recipes reproduce; every
# other game plays its shipped network (the kind's ``net`` spec).
LEGACY_BEHAVIOUR = {VOLENY.name: "models/robot.onnx",
                    LICITOVANY.name: "onnx:models/robot_licitovany.onnx"}
# a focused set whose decisions never come (a focus the rules or the behaviour never
# reach) stops with an error after this many deals without a label, instead of looping
MAX_DEALS_WITHOUT_LABEL = 20_000
# volený's card plays (its callers' name; every game's are :func:`_cards`)
PLAY = slice(VA.PLAY0, VA.PLAY0 + 32)
_VOLENY_SAMPLER = VOLENY.load("hidden_info").sample_worlds
# Games with an engine of their own (not Game's) are labelled by their own PIMC robot
# (``GameKind.pimc``): its ``action_values`` on the observations of the game's AEC env, at
# the decisions from ``from_trick`` on (lízaný: worlds solved exactly to their end, the
# values its ``strong`` maximises), the record its ``record_size`` names stored.
OWN: dict[str, GameKind] = {k.name: k for k in games()
                            if k.name not in KINDS and k.pimc and k.record_size}
LABELLED: dict[str, GameKind] = {**KINDS, **OWN}
"""Every game a label set can hold, by name."""
OWN_SETTINGS = ("worlds", "from_trick", "shard_size", "seed", "behaviour", "robot_share",
                "epsilon", "rules", "game", "phase")


def default_behaviour(game: str) -> str:
    """The behaviour robot of ``game``'s label sets when none is named
    (:data:`LEGACY_BEHAVIOUR`, else the game's ``net``)."""
    kind = game_kind(game)
    return LEGACY_BEHAVIOUR.get(kind.name, kind.net)


def record_size(kind: GameKind) -> int:
    """The length of the records a label set of ``kind``'s game stores."""
    return kind.record_size or S.STATE_SIZE


class LabelError(ValueError):
    """A label directory that cannot be used: other settings, missing or corrupt shards."""


def phase_of(settings: dict[str, Any]) -> str:
    """The decisions a label set labels; sets made before ``--phase`` existed: card play."""
    return settings.get("phase", DEFAULTS["phase"])


def _labels_json(out: Path) -> dict[str, Any]:
    """``labels.json`` of a label directory as written; LabelError naming it where it is
    not a JSON object (or names a key twice: :func:`mariash_env.jsonio.read`)."""
    meta = out / "labels.json"
    try:
        old = jsonio.read(meta)
        if not isinstance(old, dict):
            raise ValueError(f"a JSON {type(old).__name__}, expected an object")
    except (OSError, ValueError) as e:  # not JSON, not UTF-8, not an object, too deep
        raise LabelError(f"{meta} is unreadable ({e}); remove it or use another --out") \
            from None
    return old


def read_settings(out: Path) -> dict[str, Any]:
    """The settings a label directory was made with (``labels.json``), phase filled in."""
    return {**DEFAULTS, "contracts": list(CONTRACTS), **_labels_json(out)}


def game_of(rules: dict[str, Any]) -> GameKind:
    """The game (registry kind) a label set's rule options play (LabelError if invalid)."""
    try:
        return kind_of(make_rules(**rules))
    except (RulesError, GameError, TypeError) as e:
        raise LabelError(f"invalid rule options {rules!r}: {e}") from None


def _settings(args: argparse.Namespace | dict[str, Any]) -> dict[str, Any]:
    d = vars(args) if isinstance(args, argparse.Namespace) else dict(args)
    asked = d.get("game")
    own = OWN.get(asked or dict(d.get("rules") or {}).get("rules"))
    d = {**DEFAULTS, **{k: v for k, v in d.items() if v is not None}}
    if own is not None:
        return _own_settings(d, own)
    if d.get("from_trick") is not None:
        raise LabelError(f"from_trick is for the games labelled by their own robot "
                         f"({', '.join(OWN) or 'none'}); a {d.get('game') or VOLENY.name} set "
                         "labels every decision of its phase")
    # the default game is no option: volený's sets keep ``"rules": {}``
    d["rules"] = {k: v for k, v in dict(d.get("rules") or {}).items()
                  if not (k == "rules" and v == Rules.rules)}
    d["game"] = game_of(d["rules"]).name
    if asked is not None and asked != d["game"]:
        raise LabelError(f"game {asked!r} conflicts with the rule options {d['rules']!r}, "
                         f"which play {d['game']!r}")
    bad = [c for c in d["contracts"] if c not in CONTRACTS]
    sides = sides_of(d["roles"])
    if bad or not d["contracts"] or sides is None:
        raise LabelError(f"a label set keeps roles 'all' or comma-separated sides of {SIDES}, "
                         f"and contracts of {CONTRACTS}; got roles {d['roles']!r}, contracts "
                         f"{list(d['contracts'])!r}")
    # one spelling per set, so that a resumed set compares equal
    d["roles"] = "all" if len(sides) == len(SIDES) else ",".join(sides)
    d["contracts"] = sorted(set(d["contracts"]), key=CONTRACTS.index)  # one spelling per set
    if d["worlds_from"] not in WORLDS_FROM:
        raise LabelError(f"worlds_from must be one of {WORLDS_FROM}, got {d['worlds_from']!r}")
    if d["worlds_from"] == "deal" and d["worlds"] != 1:
        raise LabelError(f"worlds_from 'deal' values every label in its one real deal: "
                         f"expected worlds 1, got {d['worlds']!r}")
    if d["playout"] not in PLAYOUTS:
        raise LabelError(f"playout must be one of {PLAYOUTS}, got {d['playout']!r}")
    if d["phase"] != "play" and len(d["contracts"]) < len(CONTRACTS):
        raise LabelError("--contracts keeps card-play label sets only, got phase "
                         f"{d['phase']!r} with contracts {d['contracts']}")
    return {"format": FORMAT, **{k: d[k] for k in SETTINGS}}


def _own_settings(d: dict[str, Any], kind: GameKind) -> dict[str, Any]:
    """The settings of a set of a game labelled by its own robot (:data:`OWN`): card play
    from ``from_trick`` (default: where the game's ``strong`` starts to search), worlds
    of the seat's knowledge; the engine games' other focuses are refused by name."""
    from mariash_env.robots import parse_spec

    rules = dict(d.get("rules") or {})
    if set(rules) - {"rules"} or rules.get("rules", kind.name) != kind.name:
        raise LabelError(f"{kind.title} label sets take no rule options but rules="
                         f"{kind.name!r}, got {rules!r}")
    for key, only in (("phase", "play"), ("roles", "all"), ("worlds_from", "sampled"),
                      ("playout", "table")):
        if d[key] != only:
            raise LabelError(f"{kind.title} labels card play by its own PIMC robot: "
                             f"{key} must be {only!r}, got {d[key]!r}")
    if list(d["contracts"]) != list(CONTRACTS):
        raise LabelError(f"{kind.title} has no contracts to keep a set to, got "
                         f"{list(d['contracts'])!r}")
    default = dict(parse_spec(kind.strong)[1]).get("from_trick", 0) if kind.strong else 0
    d["from_trick"] = d.get("from_trick", default)
    ok, what = kind.load("pimc").args["endgame"]
    if not ok(d["from_trick"]):
        raise LabelError(f"from_trick must be {what}, got {d['from_trick']!r}")
    d["rules"] = {"rules": kind.name}
    d["game"] = kind.name
    return {"format": FORMAT, **{k: d[k] for k in OWN_SETTINGS}}


def label_state(st: np.ndarray, seat: int, rules: Any, worlds: int,
                rng: np.random.Generator, deal: bool = False) -> np.ndarray:
    """PIMC's per-action values (the game's unit for ``seat``: groše, desetníky; NaN where
    illegal) of a card-play state: the mean over ``worlds`` worlds sampled by the game's
    sampler of the exact value of each legal card (``deal``: over the one real deal
    ``st``).  A claim (volený's lay-down), when legal, gets the best card's value."""
    from mariash_env.core.engine import legal_actions
    from mariash_env.robots.playouts import seat_share
    from mariash_env.search import solve

    kind = kind_of(rules)
    ws = st[None].copy() if deal else _draw_worlds(kind, st, seat, worlds, rng, rules)
    total = np.zeros(kind.n_actions)
    for w in ws:
        sign = seat_share(w, seat)
        for a, v in solve(w, rules, pv=False, all_moves=True,
                              check=False).move_values.items():
            total[a] += sign * v
    mask = np.zeros(kind.n_actions, dtype=np.int8)
    legal_actions(st, rules.vector(), mask)
    value = np.full(kind.n_actions, np.nan, dtype=np.float32)
    play = _cards(mask, kind)
    value[play] = total[play] / len(ws)
    for a in kind.claim_actions:
        if mask[a]:
            value[a] = value[play].max()
    return value


def _draw_worlds(kind: GameKind, st: np.ndarray, seat: int, worlds: int,
                 rng: np.random.Generator, rules: Any) -> np.ndarray:
    """``worlds`` worlds of what ``seat`` knows; where the game's sampler gives up after its
    tries (licitovaný's rejection sampler, in rare positions) the worlds it found, as
    :class:`~mariash_env.robots.PIMCRobot` searches them, and with none found the real
    deal: a label is never lost to the sampler, and the set's run does not stop on it."""
    try:
        return _sampler(kind)(st, seat, worlds, rng, rules=rules)
    except kind.load("hidden_info").world_errors as e:
        found = getattr(e, "worlds", None)
        return found if found is not None and len(found) else st[None].copy()


def _sampler(kind: GameKind) -> Any:
    """The game's world sampler (``hidden_info.sample_worlds``); volený's looked up by its
    public name :func:`mariash_env.search.sample_worlds` at each call, where tests stand
    the real deal in for the worlds."""
    import mariash_env.search as search

    sample = kind.load("hidden_info").sample_worlds
    return search.sample_worlds if sample is _VOLENY_SAMPLER else sample


def _cards(mask: np.ndarray, kind: GameKind) -> np.ndarray:
    """The legal card plays of a card-play mask: every legal action but the claims."""
    legal = mask.astype(bool)
    legal[list(kind.claim_actions)] = False
    return np.flatnonzero(legal)


def label_bidding(st: np.ndarray, seat: int, rules: Any, worlds: int,
                  rng: np.random.Generator, pimc: Any = None, deal: bool = False,
                  playout: Any = None, others: Any = None,
                  seating: list[int] | None = None) -> np.ndarray:
    """PIMC's per-action values (the game's unit for ``seat``; NaN where illegal) of a
    decision before the card play: :meth:`PIMCRobot.candidate_values` over ``worlds``
    sampled worlds (``deal``: over the one real deal ``st``), the deal played out by the
    game's table robot -- or, given a ``playout`` robot, by that robot at every seat, or
    at ``seat`` with ``others`` at the other seats -- or at the seats ``seating`` names
    (0 ``playout``, 1 ``others``; :func:`mariash_env.playout.playout_values`).  Where the
    game narrows the candidates (the kind's ``search_candidates``: volený's trump choice,
    one card per suit), every other legal trump card is valued as its suit's candidate.
    Given a ``playout`` robot it values a card-play decision too: every legal card, each
    deal played out after it."""
    from mariash_env.core.engine import legal_actions
    from mariash_env.robots.pimc import PIMCRobot
    from mariash_env.robots.view import SeatView

    kind = kind_of(rules)
    view = SeatView(st, seat, rules)
    mask = np.zeros(kind.n_actions, dtype=np.int8)
    legal_actions(st, rules.vector(), mask)
    legal = [int(a) for a in np.flatnonzero(mask)]
    cands = legal
    if kind.search_candidates:
        # PIMC's candidates, with its "fallback" the first legal action, simulated on its
        # own (the label sets made so far did so)
        cands = kind.load("search_candidates")(int(st[S.PHASE]), legal, legal[0])
    ws = st[None].copy() if deal else view.sample_worlds(worlds, rng)
    if playout is not None:
        from mariash_env.playout import playout_values

        means = playout_values(playout, ws, seat, cands, rules, others,
                               seating).mean(axis=0)
    else:
        pimc = pimc if pimc is not None else PIMCRobot(worlds=worlds)
        means, _ = pimc.candidate_values(view, cands, ws)
    value = np.full(kind.n_actions, np.nan, dtype=np.float32)
    value[cands] = means
    rest = [a for a in legal if np.isnan(value[a])]
    if rest:
        value[rest] = _suit_values(value, legal, rest, int(st[S.PHASE]), kind)
    return value


def _suit_values(value: np.ndarray, legal: list[int], rest: list[int], phase: int,
                 kind: GameKind) -> np.ndarray:
    """The values of the trump cards volený's narrowing left out: their suit's candidate
    (RULES.md §3: which card of a suit becomes the trump card matters little)."""
    from mariash_env.games.voleny.candidates import lowest_per_suit

    if kind.name != VOLENY.name or phase != S.PH_TRUMP:
        raise LabelError(f"{kind.name}: the search candidates of phase {phase} leave actions "
                         f"{rest} unvalued; only volený's trump choice is narrowed")
    low = lowest_per_suit(legal)
    return np.array([value[low[(a - VA.TRUMP0) >> 3]] for a in rest], dtype=np.float32)


def wants_label(phase: str, st: np.ndarray, seat: int, mask: np.ndarray,
                roles: str = "all", contracts: tuple[str, ...] | list[str] = CONTRACTS,
                kind: GameKind = VOLENY) -> bool:
    """Whether a decision is one a label set labels: one with a choice, of ``phase``, by a
    seat of ``roles`` (:func:`side_of`) and in card play in one of ``contracts`` (a set
    focused on the play where the robot is weakest -- the actor's, betl's -- for the same
    labelling time)."""
    st_phase = int(st[S.PHASE])
    if phase != "play":
        if st_phase in (S.PH_PLAY, S.PH_DISCARD) or int(np.count_nonzero(mask)) <= 1:
            return False
    elif (st_phase != S.PH_PLAY or len(_cards(mask, kind)) <= 1
          or S.CONTRACT_NAMES[int(st[S.CONTRACT])] not in contracts):
        return False
    return roles == "all" or (side_of(st, seat) or "auction") in roles.split(",")


def sides_of(roles: str) -> tuple[str, ...] | None:
    """The sides of :data:`SIDES` that ``roles`` keeps, in that order ("all": every one),
    or None when it names something else."""
    if not isinstance(roles, str):
        return None
    if roles == "all":
        return SIDES
    named = [r.strip() for r in roles.split(",")]
    if any(r not in SIDES for r in named):
        return None
    return tuple(r for r in SIDES if r in named)


def side_of(st: np.ndarray, seat: int) -> str | None:
    """``"actor"`` or ``"defender"``: the side of ``seat``'s decision in ``st`` -- the
    actor is the seat that made the contract; before any contract, volený's forehand
    choosing trumps and the seat naming a contract are (the would-be actor, RULES.md
    §3-§4: after a "bad" the defender who said it), and licitovaný's auction is nobody's
    side (None)."""
    actor = int(st[S.ACTOR])
    if actor < 0:
        phase = int(st[S.PHASE])
        if phase not in (S.PH_TRUMP, S.PH_CONTRACT):
            return None
        actor = int(st[S.FOREHAND if phase == S.PH_TRUMP else S.CHOOSER])
    return "actor" if seat == actor else "defender"


class _Behaviour:
    """The behaviour policy of one worker: robot or the game's table robot per seat and
    deal, epsilon random actions everywhere."""

    def __init__(self, spec: str, robot_share: float, epsilon: float, rules: Rules | str,
                 seats: int = 3) -> None:
        kind = game_kind(rules)
        self.robot = behaviour_robot(spec, rules) if robot_share > 0 else None
        self.table = kind.load("table_robot")()
        self.robot_share = robot_share
        self.epsilon = epsilon
        self.uses_robot = [True] * seats

    def new_deal(self, rng: np.random.Generator) -> None:
        self.uses_robot = [bool(rng.random() < self.robot_share) for _ in self.uses_robot]

    def act(self, seat: int, obs: np.ndarray, mask: np.ndarray,
            rng: np.random.Generator) -> int:
        legal = np.flatnonzero(mask)
        if rng.random() < self.epsilon:
            return int(rng.choice(legal))
        if self.uses_robot[seat] and self.robot is not None:
            return self.robot.act({"observation": obs, "action_mask": mask})
        return int(self.table.act({"observation": obs, "action_mask": mask}))


def behaviour_robot(spec: str, rules: Rules | str) -> Any:
    """The behaviour robot ``spec`` of the game of ``rules`` (its Rules, or a game's name):
    an ONNX file's path (the exported network), or a robot spec of
    :func:`mariash_env.robots.make_robot` deciding from observations
    (``"onnx:models/robot_licitovany.onnx"``, ``"table"``, ...)."""
    from mariash_env.robots import make_robot
    from mariash_env.robots.onnx_robot import OnnxRobot

    kind = game_kind(rules)
    if spec.endswith(".onnx") and ":" not in spec and not Path(spec).is_file():
        raise LabelError(f"no behaviour robot at {spec}")  # a file, not a spec "onnx:FILE"
    try:
        if Path(spec).is_file():
            return OnnxRobot(spec, game=kind.name)
        robot = make_robot(spec, rules=rules)
    except (ValueError, OSError) as e:
        raise LabelError(f"behaviour robot {spec!r} for {kind.name}: {e}") from None
    if getattr(robot, "wants_view", False):
        raise LabelError(f"behaviour robot {spec!r} decides from the game view; the "
                         "behaviour policy needs one that decides from observations")
    return robot


def make_shard(settings: dict[str, Any], index: int) -> dict[str, np.ndarray]:
    """The rows of shard ``index`` (a pure function of the settings and the index)."""
    if settings.get("game") in OWN:
        return _own_shard(settings, index)
    rules = make_rules(**settings["rules"])
    rng = np.random.default_rng([int(settings["seed"]), int(index), 0x1AB])
    kind = kind_of(rules)
    beh = _Behaviour(settings["behaviour"], settings["robot_share"], settings["epsilon"],
                     rules)
    n = int(settings["shard_size"])
    states = np.zeros((n, S.STATE_SIZE), np.int32)
    seats = np.zeros(n, np.int8)
    masks = np.zeros((n, kind.n_actions), np.int8)
    values = np.zeros((n, kind.n_actions), np.float32)
    phase = phase_of(settings)
    roles = settings.get("roles", DEFAULTS["roles"])
    contracts = settings.get("contracts", DEFAULTS["contracts"])
    deal = settings.get("worlds_from", DEFAULTS["worlds_from"]) == "deal"
    pimc = playout = others = None
    how = settings.get("playout", DEFAULTS["playout"])
    if how != "table":  # either phase: the behaviour robot plays each candidate out
        playout = behaviour_robot(settings["behaviour"], rules)
        others = kind.load("table_robot")() if how != "behaviour" else None
    elif phase == "bidding":  # the table robot's playouts: PIMC's own simulation
        from mariash_env.robots.pimc import PIMCRobot

        pimc = PIMCRobot(worlds=int(settings["worlds"]))
    g = Game(rules, records=False)
    g.new_partie(seed=int(rng.integers(2**62)), dealer=int(rng.integers(3)))
    beh.new_deal(rng)
    k = 0
    dry = 0  # deals since the last label
    while k < n:
        if g.deal_over:
            dry += 1
            if dry > MAX_DEALS_WITHOUT_LABEL:
                raise LabelError(f"{MAX_DEALS_WITHOUT_LABEL} deals without a decision to "
                                 f"label (phase {phase!r}, roles {roles!r}, contracts "
                                 f"{list(contracts)}): the rules or the behaviour never "
                                 "reach that focus")
            if not g.next_deal():
                g.new_partie(seed=int(rng.integers(2**62)), dealer=int(rng.integers(3)))
            beh.new_deal(rng)
            continue
        seat = g.to_move
        obs, mask = g.observe(seat)
        if wants_label(phase, g.st, seat, mask, roles, contracts, kind):
            states[k] = g.st
            seats[k] = seat
            masks[k] = mask
            if phase == "play" and playout is None:
                values[k] = label_state(g.st, seat, rules, int(settings["worlds"]), rng,
                                        deal)
            else:
                seating = None
                if how == "as_seated":  # the party's seats; the labelled one the robot's
                    seating = [0 if s == seat or beh.uses_robot[s] else 1
                               for s in range(rules.players)]
                values[k] = label_bidding(g.st, seat, rules, int(settings["worlds"]), rng,
                                          pimc, deal, playout, others, seating)
            k += 1
            dry = 0
        g.step(beh.act(seat, obs, mask, rng))
    return {"state": states, "seat": seats, "mask": masks, "value": values}


def _own_shard(settings: dict[str, Any], index: int) -> dict[str, np.ndarray]:
    """:func:`make_shard` of a game labelled by its own robot (:data:`OWN`): deals of its
    AEC env played by the behaviour policy, each decision from ``from_trick`` with a choice
    labelled by the game's PIMC robot's ``action_values``."""
    kind = OWN[settings["game"]]
    rng = np.random.default_rng([int(settings["seed"]), int(index), 0x1AB])
    env = kind.load("aec")()
    seats = len(env.possible_agents)
    beh = _Behaviour(settings["behaviour"], settings["robot_share"], settings["epsilon"],
                     kind.name, seats)
    teacher = kind.load("pimc")(worlds=int(settings["worlds"]), time_limit=None,
                                endgame=int(settings["from_trick"]))
    teacher.rollouts = False  # only the decisions it solves whole worlds for are labelled
    n = int(settings["shard_size"])
    rows = {"state": np.zeros((n, record_size(kind)), np.int32), "seat": np.zeros(n, np.int8),
            "mask": np.zeros((n, kind.n_actions), np.int8),
            "value": np.zeros((n, kind.n_actions), np.float32)}
    k = dry = 0
    while k < n:
        env.reset(seed=int(rng.integers(2**31)))
        beh.new_deal(rng)
        teacher.begin_deal(int(rng.integers(2**31)))
        labelled = False
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            value = teacher.action_values(obs) if k < n else None
            if value is not None:
                rows["state"][k] = env.game.st
                rows["seat"][k], rows["mask"][k], rows["value"][k] = seat, obs["action_mask"], value
                k += 1
                labelled = True
            env.step(beh.act(seat, obs["observation"], obs["action_mask"], rng))
        dry = 0 if labelled else dry + 1
        if dry > MAX_DEALS_WITHOUT_LABEL:
            raise LabelError(f"{MAX_DEALS_WITHOUT_LABEL} deals without a decision to label "
                             f"(from_trick {settings['from_trick']})")
    return rows


def shard_path(out: Path, index: int) -> Path:
    return out / f"shard_{index:05d}.npz"


def _write_shard(out: Path, index: int, rows: dict[str, np.ndarray]) -> None:
    buf = io.BytesIO()
    np.savez_compressed(buf, **rows)
    with atomic_open(shard_path(out, index), "wb") as f:
        f.write(buf.getvalue())


def _work(job: tuple[str, dict[str, Any], int]) -> tuple[int, int, float]:
    """A worker's task: shard ``index`` made and written; its row count and the time
    (``time.time()``) the task started, from which :func:`generate` measures its rate."""
    started = time.time()
    out, settings, index = job
    rows = make_shard(settings, index)
    _write_shard(Path(out), index, rows)
    return index, len(rows["seat"]), started


def _remote_shard(job: tuple[dict[str, Any], int]
                  ) -> tuple[int, dict[str, np.ndarray], float]:
    """A Ray actor's task: the shard's rows, written by the driver (the label directory
    is on its machine, not the node's), and the time the task started (as :func:`_work`)."""
    started = time.time()
    settings, index = job
    return index, make_shard(settings, index), started


def _no_init() -> None:
    pass


def _written(out: Path, shards: Any) -> Any:
    for index, rows, started in shards:
        _write_shard(out, index, rows)
        yield index, len(rows["seat"]), started


def check_settings(out: Path, settings: dict[str, Any]) -> None:
    """Write ``labels.json``, or refuse a directory made with other settings."""
    meta = out / "labels.json"
    if meta.exists():
        old = read_settings(out)
        # a set copied elsewhere: paths of its run's tree (a DAgger student) moved along
        moved = moved_roots(old.get(DIR_KEY), out)
        diff = [f"{k}: {old.get(k)!r} there, {settings.get(k)!r} now" for k in settings
                if not same_after_move(old.get(k), settings.get(k), moved)]
        if diff:
            raise LabelError(f"{out} holds labels made with other settings ({'; '.join(diff)}): "
                             "rerun with the same options, or use another --out")
        return
    try:  # a file in the way or a folder that cannot be made: one line, before any work
        check_writable(meta)
    except UnwritableError as e:
        raise LabelError(f"--out {out}: {e}") from None
    with atomic_open(meta, "w") as f:
        jsonio.dump({**settings, DIR_KEY: str(out.resolve())}, f, indent=1)


def generate(out: str | Path, settings: dict[str, Any], shards: int, jobs: int = 1,
             progress: bool = True, backend: str = "process",
             address: str | None = None) -> dict[str, Any]:
    """Make the missing shards ``0 .. shards-1`` in ``out`` (resumable); returns counts
    and times: ``seconds`` the whole call, ``label_s`` from the start of the first shard's
    task to the end (``startup_s`` the rest: starting the worker processes, or joining or
    starting Ray and placing its actors) and ``labels_per_s`` the labels made over
    ``label_s``, the rate of the labelling itself (0 when every shard was kept).  A task's
    start is read from the clock of the machine it runs on (a Ray node's: clocks that
    disagree are bounded by the call's own span).
    ``jobs`` worker processes make them, at most one a core this process may use
    (:func:`mariash_env.pools.process_jobs`: its affinity mask; one core: no pool, this
    process makes them), the same shards.
    ``backend="ray"``: ``jobs`` Ray actors (:mod:`mariash_env.ray_pool`) on the cluster at
    ``address`` make them (the same shards; at most one per CPU of the cluster); this
    process writes them."""
    if backend not in ("process", "ray"):
        raise LabelError(f"invalid backend={backend!r}: expected 'process' or 'ray'")
    if address is not None and backend != "ray":
        raise LabelError(f"address={address!r} needs backend 'ray'")
    if not is_int(jobs) or jobs < 1:
        raise LabelError(f"invalid jobs={jobs!r}: expected an int >= 1")  # as the CLI's
    from mariash_env.pools import process_jobs, worker_pool

    if backend == "process":  # a process a core, as the arena's (the shards the same)
        jobs = process_jobs(jobs)
    out = Path(out)
    check_settings(out, settings)
    if _declared(out) not in (None, shards):  # until every shard is there: no count
        _declare(out, None)
    for f in sorted(out.glob("shard_*.npz")):  # of a larger --states: not of this set
        if _shard_index(f) is None or _shard_index(f) >= shards:
            f.unlink()
    todo = [i for i in range(shards) if not shard_path(out, i).exists()]
    t0, wall0 = time.perf_counter(), time.time()
    first = math.inf  # the start of the first shard's task (time.time())
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(todo) * settings["shard_size"], unit="label", desc="labels",
                   dynamic_ncols=True)
    done = 0
    jobs_list = [(str(out), settings, i) for i in todo]
    with ExitStack() as stack:
        if bar is not None:
            stack.callback(bar.close)
        if backend == "ray":
            from mariash_env.ray_pool import ray_imap_unordered

            # closed here, not when the frame goes: an interrupt kills the actors at once
            results = stack.enter_context(closing(_written(out, ray_imap_unordered(
                _remote_shard, [(settings, i) for i in todo], jobs, _no_init,
                address=address))))
        elif jobs <= 1:
            results = map(_work, jobs_list)
        else:
            results = stack.enter_context(worker_pool(jobs, "spawn")).imap_unordered(
                _work, jobs_list)
        for _, n, started in results:
            done += n
            first = min(first, started)
            if bar is not None:
                bar.update(n)
    seconds = time.perf_counter() - t0
    label_s = min(seconds, max(0.0, time.time() - max(first, wall0))) if todo else 0.0
    _declare(out, shards)
    return {"made": len(todo), "kept": shards - len(todo), "states": done,
            "seconds": seconds, "label_s": label_s, "startup_s": seconds - label_s,
            "labels_per_s": round(done / label_s, 1) if label_s > 0 else 0.0}


def rate(r: dict[str, Any]) -> str:
    """A :func:`generate` result's rate for a log line: the labels a second from the first
    shard's start, and the start-up before it."""
    return (f"{r['labels_per_s']:.1f} labels/s from the first shard's start, after "
            f"{r['startup_s']:.1f} s of start-up")


def _shard_index(f: Path) -> int | None:
    m = re.fullmatch(r"shard_(\d{5})\.npz", f.name)
    return int(m[1]) if m else None


def _declared(out: Path) -> int | None:
    """The number of shards a finished set declares in ``labels.json`` (None while it is
    being made, and in a set made before the count was recorded)."""
    n = read_settings(out).get("shards")
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def _declare(out: Path, shards: int | None) -> None:
    meta = {k: v for k, v in _labels_json(out).items() if k != "shards"}
    if shards is not None:
        meta["shards"] = shards
    with atomic_open(out / "labels.json", "w") as f:
        jsonio.dump(meta, f, indent=1)


def shard_files(path: str | Path) -> list[Path]:
    """The shards of a label directory, in shard order (LabelError if it is not one)."""
    path = Path(path)
    if not (path / "labels.json").is_file():
        raise LabelError(f"{path} is not a label directory (no labels.json): make one with "
                         "python -m training.pimc_labels --out DIR")
    files = sorted(path.glob("shard_*.npz"))
    n = _declared(path)
    if n is not None:  # a finished set: exactly its shards 0 .. n-1
        names = {f.name for f in files}
        missing = [shard_path(path, i).name for i in range(n)
                   if shard_path(path, i).name not in names]
        extra = sorted(names - {shard_path(path, i).name for i in range(n)})
        if missing or extra:
            what = (f"{len(missing)} of its {n} shards missing ({', '.join(missing[:3])}"
                    f"{', ...' if len(missing) > 3 else ''})" if missing else
                    f"{len(extra)} shard(s) more than its {n} ({', '.join(extra[:3])})")
            raise LabelError(f"the label set {path} is not whole: {what}; rerun the "
                             "generator with its options to remake it (a pipeline's labels "
                             "stage: remove its entry from RUN/pipeline.json)")
    return files


def label_game(path: str | Path, game: str | None = None) -> GameKind:
    """The game of the label set ``path`` (``labels.json``); with ``game``, the game the
    caller trains, a set of another game is refused (LabelError naming both)."""
    shard_files(path)  # LabelError if it is not a label directory
    have = read_settings(Path(path))["game"]
    if have not in LABELLED:
        raise LabelError(f"{path} holds labels of game {have!r}, which has no label sets "
                         f"(expected one of {sorted(LABELLED)})")
    if game is not None and game != have:
        raise LabelError(f"{path} holds {have} labels, not {game}: label sets of different "
                         "games cannot be mixed (make a set with --rules "
                         f"{game})")
    return LABELLED[have]


def load_labels(path: str | Path, limit: int | None = None,
                files: list[Path] | None = None, game: str | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(obs float32[n, obs_size], mask int8[n, n_actions], value float32[n, n_actions])``
    of every shard in ``path`` (or of ``files`` only), observations encoded from the stored
    states now by the set's game (volený: 900 and 115, licitovaný: 1016 and 136).
    ``game``: the game the caller trains (a set of another game: LabelError)."""
    kind = label_game(path, game)
    rows = read_shards(path, shard_files(path) if files is None else files, limit)
    return encode_states(rows["state"], rows["seat"], kind.name), rows["mask"], rows["value"]


def encode_states(states: np.ndarray, seats: np.ndarray, game: str = VOLENY.name
                  ) -> np.ndarray:
    """The observations (float32[n, obs_size]) of each state's seat in ``game``."""
    kind = LABELLED[game_kind(game).name]
    obs = np.zeros((len(states), kind.obs_size), np.float32)
    for i in range(len(states)):
        kind.encode(states[i], int(seats[i]), obs[i], False)
    return obs


def read_shards(path: str | Path, files: list[Path], limit: int | None = None
                 ) -> dict[str, np.ndarray]:
    """The rows (``state``, ``seat``, ``mask``, ``value``) of ``files``, checked."""
    if not files:
        raise LabelError(f"{path} holds no shards (shard_*.npz)")
    kind = label_game(path)
    n_actions, size = kind.n_actions, record_size(kind)
    parts: dict[str, list[np.ndarray]] = {"state": [], "seat": [], "mask": [], "value": []}
    total = 0
    for f in files:
        try:
            with np.load(f) as z:
                rows = {k: z[k] for k in parts}
        except Exception as e:  # zipfile / ValueError / KeyError on a damaged file
            raise LabelError(f"{f} is corrupt ({type(e).__name__}: {e}); delete it and rerun "
                             "the generator to remake it") from None
        if rows["state"].shape[1:] != (size,) or rows["mask"].shape[1:] != (n_actions,):
            raise LabelError(f"{f} has rows of shape {rows['state'].shape[1:]} / "
                             f"{rows['mask'].shape[1:]}, expected ({size},) / "
                             f"({n_actions},)")
        for k in parts:
            parts[k].append(rows[k])
        total += len(rows["seat"])
        if limit is not None and total >= limit:
            break
    return {k: np.concatenate(v)[:limit] for k, v in parts.items()}


class LabelSet:
    """A label directory read for training: ``(obs, legal bool, value)`` with ``legal`` the
    labelled legal actions (NaN values dropped), read on first use and, every
    ``reload_every`` calls of :meth:`arrays`, extended by shards written since (so training
    can start while the generator still runs).

    ``augment``: card-play rows are drawn under a random suit relabelling of the game's
    symmetry (its ``GameKind.symmetry``: volený's keeps the trumps, up to 6 states a
    label in a suit game and 24 in betl and durch; licitovaný's keeps hearts, 6), the
    observation encoded from the relabelled state at each draw and the labels moved with
    the cards.  The set then keeps the state records, not the observations.  A game
    without a symmetry is refused.

    ``game``: the game the caller trains (a set of another game: LabelError naming both);
    :attr:`game` is the set's, whose encoder makes the observations."""

    def __init__(self, path: str | Path, reload_every: int = 0, augment: bool = False,
                 game: str | None = None) -> None:
        self.path = Path(path)
        self.reload_every = int(reload_every)
        self.augment = bool(augment)
        self._rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._files: set[str] = set()
        self._calls = 0
        shard_files(self.path)  # LabelError now if it is not a label directory
        self.phase: str = read_settings(self.path)["phase"]
        self.game: str = label_game(self.path, game).name
        self._symmetry = (game_symmetry(self.game, f"{self.path} holds {self.game} labels")
                          if self.augment else None)
        if self.augment and self.phase != "play":
            raise LabelError(f"{self.path} holds {self.phase} labels: only card-play labels "
                             "can be augmented by suit symmetry")

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(obs or, with augment, (state, seat) rows, legal, value)`` of every row."""
        self._calls += 1
        due = self._rows is None or (self.reload_every > 0
                                     and self._calls % self.reload_every == 0)
        if due:
            new = [f for f in shard_files(self.path) if f.name not in self._files]
            if new or self._rows is None:
                first, mask, value = (_load_states(self.path, new) if self.augment
                                      else load_labels(self.path, files=new))
                legal = mask.astype(bool) & ~np.isnan(value)
                part = (first, legal, np.where(legal, np.nan_to_num(value), 0).astype(np.float32))
                if self._rows is not None:
                    part = tuple(np.concatenate([o, p]) for o, p in zip(self._rows, part))
                self._rows = part  # type: ignore[assignment]
                self._files.update(f.name for f in new)
        return self._rows  # type: ignore[return-value]

    def __len__(self) -> int:
        """Rows read so far (reads the directory on first use; not a reload tick)."""
        return len((self._rows if self._rows is not None else self.arrays())[1])

    def sample(self, n: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``n`` rows ``(obs, legal, value)`` drawn with replacement (sorted indices)."""
        first, legal, value = self.arrays()
        idx = np.sort(rng.integers(len(legal), size=n))
        if not self.augment:
            return first[idx], legal[idx], value[idx]
        rows = first[idx]
        return relabelled(self._symmetry, self.game, rows[:, :-1], rows[:, -1], legal[idx],
                          value[idx], rng)


def game_symmetry(game: str, what: str) -> Any:
    """The :class:`~mariash_env.games.base.SuitSymmetry` of ``game``; LabelError starting
    with ``what`` when the game has none."""
    kind = kind_of(game)
    if not kind.symmetry:
        have = ", ".join(k.name for k in KINDS.values() if k.symmetry)
        raise LabelError(f"{what}: {kind.title} has no suit symmetry to augment by (the "
                         f"games with one: {have})")
    return kind.load("symmetry")


def relabelled(symmetry: Any, game: str, states: np.ndarray, seats: np.ndarray,
               legal: np.ndarray, value: np.ndarray, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labelled rows under a random suit relabelling each (``augment``): the observations
    encoded from the relabelled state records, the legal mask and the values moved with
    the cards."""
    perm = symmetry.random_symmetries(states, rng)
    obs = encode_states(symmetry.permute_suits(states, perm), seats, game)
    return obs, symmetry.permute_actions(legal, perm), symmetry.permute_actions(value, perm)


def _load_states(path: Path, files: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(int32[n, STATE_SIZE + 1] state records with the seat appended, mask, value)``."""
    rows = read_shards(path, files)
    both = np.concatenate([rows["state"], rows["seat"][:, None].astype(np.int32)], 1)
    return both, rows["mask"], rows["value"]


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m training.pimc_labels", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="label directory (resumed if it exists)")
    ap.add_argument("--states", type=int, default=100_000, help="rows wanted in all")
    ap.add_argument("--shard-size", dest="shard_size", type=int, default=1000,
                    help="rows a shard file (default 1000)")
    ap.add_argument("--worlds", type=int, default=6, help="worlds per labelled state")
    ap.add_argument("--phase", choices=PHASES, default="play",
                    help="the decisions labelled: card play (solver values) or the bidding "
                         "before it (table-robot playouts)")
    ap.add_argument("--worlds-from", dest="worlds_from", choices=WORLDS_FROM,
                    default="sampled",
                    help="'sampled': each label over --worlds worlds of the seat's knowledge "
                         "(PIMC's uniform worlds); 'deal': over the one real deal (--worlds "
                         "1), so the set averages over the behaviour's own deals")
    ap.add_argument("--playout", choices=PLAYOUTS, default="table",
                    help="who plays each candidate's deal out: bidding, the game's table "
                         "robot (PIMC's playouts); card play, nobody: the solver's exact "
                         "values (both the default 'table'); either phase, the behaviour "
                         "robot at every seat, the behaviour robot at the labelled seat "
                         "against the table robot ('against_table'), or at the labelled "
                         "seat and the seats it plays in the party, the table robot at the "
                         "rest ('as_seated')")
    ap.add_argument("--roles", default="all",
                    help="label only these sides' decisions, comma-separated of "
                         f"{','.join(SIDES)} (bidding: volený's forehand's trump and contract "
                         "choice are the actor's; licitovaný's auction is 'auction')")
    ap.add_argument("--contracts", type=lambda t: t.split(","), default=list(CONTRACTS),
                    help="card play: label only these contracts, comma-separated, of "
                         f"{','.join(CONTRACTS)} (default all)")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the deals, the play and the worlds; each shard its own "
                         "stream from it (default 0)")
    ap.add_argument("--rules", dest="game", choices=sorted(LABELLED), default=None,
                    help="the game labelled (default volený); everything else per game -- "
                         "actions, observations, worlds, table robot -- is the registry's")
    ap.add_argument("--from-trick", dest="from_trick", type=int, default=None,
                    help="a game labelled by its own PIMC robot (" + ", ".join(OWN) + "): "
                         "label the decisions from this trick (0-based) on, each world "
                         "solved to its end (default: the trick its strong searches from)")
    ap.add_argument("--behaviour", default=None,
                    help="robot of the behaviour policy: an exported ONNX file or a robot "
                         "spec (default: volený models/robot.onnx, any other game its "
                         "shipped network, the registry's 'net')")
    ap.add_argument("--robot-share", dest="robot_share", type=float, default=0.7,
                    help="share of seats (per deal) played by the robot, the rest by the "
                         "table robot")
    ap.add_argument("--epsilon", type=float, default=0.03, help="share of random actions")
    ap.add_argument("--jobs", type=int, default=1,
                    help=f"worker processes (or Ray actors), 1..{MAX_JOBS} (default 1); "
                         f"{jobs_above_cores()}, the same labels")
    ap.add_argument("--backend", choices=("process", "ray"), default="process",
                    help="where the jobs run: 'process' (this machine) or 'ray' (Ray actors)")
    add_ray_arguments(ap, "it goes on with fewer")
    ap.add_argument("--no-progress", dest="progress", action="store_false",
                    help="no progress bar")
    args = ap.parse_args(argv)
    for name, lo in (("states", 1), ("shard_size", 1), ("worlds", 1), ("jobs", 1)):
        if getattr(args, name) < lo:
            print(f"error: --{name.replace('_', '-')} must be >= {lo}, got "
                  f"{getattr(args, name)}", file=sys.stderr)
            return 2
    if args.jobs > MAX_JOBS:  # as the arena and the data sets: a typo is not a process each
        print(f"error: --jobs must be at most {MAX_JOBS}, got {args.jobs}", file=sys.stderr)
        return 2
    if not 0 <= args.robot_share <= 1 or not 0 <= args.epsilon <= 1:
        print("error: --robot-share and --epsilon must lie in [0, 1]", file=sys.stderr)
        return 2
    args.rules = {} if args.game is None else {"rules": args.game}
    kind = LABELLED[args.game or VOLENY.name]
    if args.behaviour is None:
        args.behaviour = default_behaviour(kind.name)
    if args.robot_share > 0:
        try:  # a missing file or a robot of another game fails now, not in a worker
            behaviour_robot(args.behaviour,
                            kind.name if kind.name in OWN else make_rules(**args.rules))
        except LabelError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    if args.address is not None and args.backend != "ray":
        print("error: --address needs --backend ray", file=sys.stderr)
        return 2
    if args.backend == "ray":  # joined before --out is made: a bad cluster fails in seconds
        from mariash_env.ray_pool import RayClusterError, join

        try:
            join(args.address, args.ray_timeout)
        except (RayClusterError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    shards = -(-args.states // args.shard_size)
    try:
        settings = _settings(args)
        r = generate(args.out, settings, shards, args.jobs, args.progress,
                     backend=args.backend, address=args.address)
    except LabelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the shards written are kept
        print("error: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    print(f"[labels] {r['made']} shards made, {r['kept']} kept, {r['states']} states in "
          f"{r['seconds']:.0f} s ({rate(r)}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
