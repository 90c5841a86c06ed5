"""PIMC whose worlds are weighted by a network's inference (issue #16): ``nnpimc``.

Plain PIMC (:class:`~mariash_env.robots.pimc.PIMCRobot`) treats every world consistent
with the seat's knowledge as equally likely.  But the other seats chose their cards with
the hands they held: a world in which a seat would have played a card its player finds
poor is less likely than one in which the same card was the natural play.  The strongest
Skat programs weight worlds that way; this robot asks an exported Q-network
(:class:`~mariash_env.robots.onnx_robot.OnnxRobot`, ``models/robot.onnx`` or any model of
that format) for it.

Card play, at each decision with a choice:

1. draw ``candidates`` worlds from the seat's knowledge (:meth:`SeatView.sample_worlds`,
   uniform over the consistent worlds);
2. in each world, rebuild the card play from its first trick and replay the recorded
   cards with the core (:func:`mariash_env.search.inference.other_decisions`), taking
   at every card another seat chose its observation *in that world* and its legal cards;
   one batched network call scores them all;
3. a world's log-weight is the sum over those decisions of
   ``log max(L * softmax(Q / temperature)[card], floor)``, ``L`` the number of legal
   cards: the likelihood of the card relative to a uniformly random choice, floored so
   that one surprising card cannot rule a world out (``floor`` = 0.1: at most ten times
   less likely per card).  A huge ``temperature`` makes every weight 1, plain PIMC;
4. draw ``worlds`` worlds from the candidates in proportion to their weights (with
   replacement) and run PIMC on the distinct ones, each counted as often as it was drawn
   (:meth:`PIMCRobot.search` with weights); with ``candidates == worlds`` every world is
   solved and weighted instead.  ``time_limit`` is PIMC's hard budget, counted from the
   call (steps 1-3 included).

``leaf="network"`` values the card play by *playouts* instead of the double-dummy
solver: in each world every legal card is played and the deal then played out to its end
by the network at every seat, each seat from its own observation (one batched
:func:`mariash_env.playout.play_games` for all worlds and cards); the seat's mean groše is the
card's value.  That is the value of the card followed by the network's imperfect-
information play -- one step of policy improvement over the network -- where the solver's
value assumes every seat, the robot's own later self included, sees all the cards
(strategy fusion).  ``time_limit`` does not cut playouts short (all worlds are played
together).

``from_trick=k`` leaves the card play of the first ``k`` tricks to the network's greedy
choice and searches from trick ``k`` (0-based) on, where the hands are small and the
solver takes a millisecond: the network's play with PIMC's endgame, at about the
network's cost per decision.  ``inference=False`` searches uniform worlds there (plain
PIMC: the inference's network calls over every recorded card cost more than the solver
late in the deal).  ``nt_from_trick=k`` sets that first searched trick for betl and durch
apart (default: ``from_trick``): those contracts are mostly decided in the first tricks,
where one guard kept or dropped wins or loses ten groše, and their search is cheap (no
trumps, a lost trick ends the deal).

The other phases (trump, contract, discards, answers, announcement, flek) are PIMC's
(``bidding="simulate"``, default: simulated with table-robot playouts), the table robot's
(``"table"``), or the network's greedy choice (``"network"``): a network distilled from
PIMC's simulated values over many states (:mod:`training.pimc_labels` ``--phase
bidding``) estimates what PIMC's few worlds per decision estimate, without their noise,
at the cost of one forward pass.  ``betl_bias`` and ``durch_bias`` (groše, default 0)
are added to the network's values of naming betl and durch there (as a contract or as
the answer to a betl; not the open ones of the variant): the network learnt those
values for betl and durch played by its own card play, and with ``nt_from_trick`` the
search plays them instead (measured in docs/nnpimc.md: no gain, default 0).

The game is the network's (its metadata, :class:`OnnxRobot`): volený mariáš with three
players or four (RULES.md §11.3: the robot plays the three-player deal it sits in, as
PIMC does, its network reading that deal's observation; the inference over worlds is
three players' only, so ``inference`` defaults to False there and True is refused), or
licitovaný mariáš (LICITOVANY.md) with a licitovaný network such as
``models/robot_licitovany.onnx``.  In licitovaný the robot
plays the settings of its ``strong`` robot: ``bidding="network"`` (every decision before
the card play -- auction, game, trumps, helping suit, talon, face-down lead, flek and
show -- is the network's greedy action; ``"simulate"`` and ``"table"`` are PIMC's), the
network's card play before ``from_trick`` (``nt_from_trick`` for betl and durch) and PIMC
with the solver on uniform worlds after (``inference=False``, ``leaf="solver"``).  What
is built on volený's own modules is refused there with a ValueError: the inference over
worlds (:func:`mariash_env.search.inference.other_decisions` replays volený's card
play), ``leaf="network"`` and ``betl_bias`` / ``durch_bias`` (volený's contract actions).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ..core import state as S
from ..core.validate import MAX_WORLDS
from ..games.base import GameKind
from ..games.voleny import actions as A
from ..kinds import kind_of
from ..rules import Rules
from ..shipped import shipped_model, shipped_of
from .base import Robot
from .pimc import PIMCRobot, solver_available
from .registry import game_own_robot
from .view import SeatView

__all__ = ["NNPIMCRobot", "make_nnpimc", "world_log_weights", "DEFAULT_MODEL",
           "VOLENY_ONLY"]

DEFAULT_MODEL = shipped_model("robot.onnx")
LEAVES = ("solver", "network")
"""How a card is valued in a world: the double-dummy solver, or a playout by the network."""
VOLENY_GAME = "voleny"
"""The game whose modules (actions, inference over worlds, playouts) the settings of
:data:`VOLENY_ONLY` are built on."""
VOLENY_ONLY = ("inference=True", "leaf='network'", "betl_bias", "durch_bias")
"""The settings another game's network refuses (module docstring)."""


def score_unit(net: Any) -> float:
    """The network's score per groš: its training's ``reward_scale`` (metadata
    ``mariash_training``, read by :class:`OnnxRobot` into ``training``), for a network
    trained with the linear ``"scale"`` transform."""
    try:
        dmc = net.training["config"]["dmc"]
        transform, scale = dmc.get("reward_transform", "scale"), float(dmc["reward_scale"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{net.path}: its metadata does not say how its scores relate to "
                         "groše (mariash_training config.dmc.reward_scale), so a bias in "
                         "groše cannot be added") from None
    if transform != "scale":
        raise ValueError(f"{net.path} was trained on {transform!r} rewards: a bias in groše "
                         "is only defined for the linear 'scale' transform")
    return scale


def world_log_weights(scores: np.ndarray, mask: np.ndarray, action: np.ndarray,
                      world: np.ndarray, n_worlds: int, temperature: float,
                      floor: float) -> np.ndarray:
    """Per world, the sum of ``log max(L * softmax(scores / temperature)[action], floor)``
    over its decisions (rows; ``world[i]`` is the row's world, ``L`` the row's number of
    legal actions): ``float64[n_worlds]``, 0 for a world without decisions."""
    legal = mask.astype(bool)
    z = np.where(legal, scores.astype(np.float64) / temperature, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    logp = z[np.arange(len(z)), action] - np.log(np.exp(z).sum(axis=1))
    rel = logp + np.log(legal.sum(axis=1))
    return np.bincount(world, weights=np.maximum(rel, math.log(floor)), minlength=n_worlds)


class NNPIMCRobot(PIMCRobot):
    """PIMC with worlds weighted by a network's inference (module docstring).

    ``model``: path of an exported robot (ONNX; default the shipped volený
    ``models/robot.onnx``, :mod:`mariash_env.shipped`), whose game (its metadata) the
    robot plays (module docstring: licitovaný refuses :data:`VOLENY_ONLY`); ``worlds``: worlds
    solved per decision; ``candidates``: worlds sampled and weighted per card-play decision
    (default ``4 * worlds``, at most 100,000); ``temperature``: of the softmax over the
    network's Q-values (groše x 0.1; default 0.3, the best of 0.1-1.0 in small matches,
    docs/nnpimc.md); ``floor``: least relative likelihood of one card (0 < floor <= 0.1);
    ``bidding``: ``"simulate"`` or ``"table"`` as :class:`PIMCRobot`, or ``"network"``
    (the model's greedy action before the card play); ``leaf``: ``"solver"`` (the
    double-dummy value of each card, default) or ``"network"`` (the mean of network
    playouts, module docstring); ``from_trick``: the first trick (0-9) whose card play
    is searched, the earlier ones are the network's greedy choice (default 0: all);
    ``nt_from_trick``: the same for betl and durch (default ``from_trick``);
    ``betl_bias``, ``durch_bias``: groše added to the network's values of naming betl
    and durch (``"network"`` bidding; module docstring);
    ``inference``: weight the worlds or search uniform ones (default: weight them with
    a volený network, the only game it has); ``time_limit``,
    ``seed``, ``game``, ``warm``: as :class:`PIMCRobot`.
    """

    name = "nnpimc"
    games = ("voleny", "licitovany")  # an instance plays its network's game only
    seat_counts = (3, 4)  # an instance: its network's (OnnxRobot.seat_counts)
    _warm_network = True

    def __init__(self, model: str | Path = DEFAULT_MODEL, worlds: int = 8,
                 candidates: int | None = None, temperature: float = 0.3,
                 floor: float = 0.1, time_limit: float | None = None,
                 seed: int | None = None, game: Any = None, bidding: str = "simulate",
                 threads: int = 1, leaf: str = "solver", from_trick: int = 0,
                 inference: bool | None = None, nt_from_trick: int | None = None,
                 betl_bias: float = 0.0, durch_bias: float = 0.0,
                 warm: bool = True) -> None:
        if bidding not in ("simulate", "table", "network"):
            raise ValueError(f"bidding must be 'simulate', 'table' or 'network', got "
                             f"{bidding!r}")
        if leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(map(repr, LEAVES))}, got "
                             f"{leaf!r}")
        if not 0 <= from_trick <= 9:
            raise ValueError(f"from_trick must be a trick 0..9, got {from_trick}")
        if nt_from_trick is not None and not 0 <= nt_from_trick <= 9:
            raise ValueError(f"nt_from_trick must be a trick 0..9, got {nt_from_trick}")
        for name, v in (("betl_bias", betl_bias), ("durch_bias", durch_bias)):
            if not -math.inf < v < math.inf:
                raise ValueError(f"{name} must be a finite number of groše, got {v}")
        self.betl_bias = float(betl_bias)
        self.durch_bias = float(durch_bias)
        self.leaf = leaf
        self.from_trick = int(from_trick)
        self.nt_from_trick = self.from_trick if nt_from_trick is None else int(nt_from_trick)
        super().__init__(worlds=worlds, time_limit=time_limit, seed=seed, game=game,
                         bidding="table" if bidding == "network" else bidding, warm=False)
        self.network_bidding = bidding == "network"
        if candidates is None:
            candidates = min(4 * self.worlds, MAX_WORLDS)
        if not self.worlds <= candidates <= MAX_WORLDS:
            raise ValueError(f"candidates must be >= worlds ({self.worlds}) and at most "
                             f"{MAX_WORLDS} (a sampler's bound), got {candidates}")
        if not 0 < temperature < math.inf:
            raise ValueError(f"temperature must be a number > 0, got {temperature}")
        # floor <= 0.1 keeps a uniformly random card (relative likelihood 1/L >= 0.1 for
        # at most ten cards) above the floor, so a huge temperature gives weights 1.
        if not 0 < floor <= 0.1:
            raise ValueError(f"floor must be in (0, 0.1], got {floor}")
        from .onnx_robot import OnnxRobot

        self.net = OnnxRobot(model, threads=threads)  # the game is the model's
        self.games = self.net.games
        self.seat_counts = self.net.seat_counts
        if self.net.game.name not in type(self).games:
            raise ValueError(f"robot 'nnpimc' plays {' and '.join(type(self).games)}; "
                             f"{model} is a robot of {self.net.game.name}")
        if inference is None:  # the inference replays volený's card play only
            inference = self.net.game.name == VOLENY_GAME
        self.inference = bool(inference)
        if self.net.game.name != VOLENY_GAME:
            self._refuse_voleny_only(self.inference, leaf, betl_bias, durch_bias)
        self.score_unit = 0.0
        if self.betl_bias or self.durch_bias:
            if not self.network_bidding:
                raise ValueError("betl_bias and durch_bias move the network's bidding: they "
                                 "need bidding='network'")
            self.score_unit = score_unit(self.net)
        self.candidates = int(candidates)
        self.temperature = float(temperature)
        self.floor = float(floor)
        self.stats["weighed"] = 0
        self.stats["ess"] = 0.0
        if warm:  # after every argument was checked
            self.warm_up()

    def _refuse_voleny_only(self, inference: bool, leaf: str, betl_bias: float,
                            durch_bias: float) -> None:
        """ValueError naming the settings of :data:`VOLENY_ONLY` asked for with another
        game's network (module docstring)."""
        asked = [name for name, on in zip(VOLENY_ONLY, (inference, leaf == "network",
                                                        betl_bias, durch_bias)) if on]
        if asked:
            game = self.net.game.title or self.net.game.name
            raise ValueError(
                f"robot 'nnpimc' with a network of {game} ({self.net.path}) cannot use "
                f"{', '.join(asked)}: they are volený's (inference over worlds, network "
                "playouts, the betl / durch biases); use inference=False, leaf='solver' "
                "and no bias")

    def warm_up(self) -> float:
        """As :meth:`PIMCRobot.warm_up`, for the network's game only."""
        from ..compile import warmup

        return warmup(self.games, network=self._warm_network)

    def _check_rules(self, rules: Rules) -> None:
        if kind_of(rules).name not in self.games or rules.players not in self.seat_counts:
            raise ValueError(f"robot 'nnpimc' with {self.net.path} plays "
                             f"{self.net.game.title or self.net.game.name} with "
                             f"{' or '.join(map(str, self.seat_counts))} players, got "
                             f"rules={rules.rules!r}, players={rules.players}")
        if self.inference:
            refuse_inference(rules.players)

    def act_view(self, view: SeatView) -> int:
        self._check_rules(view.rules)
        if (self.network_bidding and view.phase != S.PH_PLAY) or (
                view.phase == S.PH_PLAY and view.trick < self.first_searched(view)):
            self.stats["decisions"] += 1
            obs = view.observation_dict()
            if self.score_unit and view.phase != S.PH_PLAY:  # a bias is set
                mask = obs["action_mask"]
                bias = [(a, b) for a, b in ((A.CONTRACT_BETL, self.betl_bias),
                                            (A.CONTRACT_DURCH, self.durch_bias))
                        if b and mask[a]]
                if bias:
                    scores, _ = self.net.scores_and_actions(obs["observation"], mask)
                    q = np.where(mask > 0, scores[0].astype(np.float64), -np.inf)
                    for a, b in bias:
                        q[a] += self.score_unit * b
                    return int(np.argmax(q))
            return self.net.act(obs)
        return super().act_view(view)

    def first_searched(self, view: SeatView) -> int:
        """The first trick whose card play is searched in the view's contract."""
        if view.contract in (S.C_BETL, S.C_DURCH):
            return self.nt_from_trick
        return self.from_trick

    def log_weights(self, worlds: np.ndarray, seat: int, rules: Rules) -> np.ndarray:
        """The log-weight of each world (module docstring, step 3)."""
        from ..search.inference import other_decisions

        obs, mask, action, world = other_decisions(worlds, seat, rules)
        if len(obs) == 0:
            return np.zeros(len(worlds))
        scores, _ = self.net.scores_and_actions(obs, mask)
        return world_log_weights(scores, mask, action, world, len(worlds),
                                 self.temperature, self.floor)

    def playout_values(self, worlds: np.ndarray, seat: int, cands: list[int],
                       rules: Rules) -> np.ndarray:
        """``values[k, i]``: the seat's groše when card ``cands[i]`` is played in world
        ``k`` and the deal is then played out by the network at every seat."""
        from ..playout import playout_values

        return playout_values(self.net, worlds, seat, cands, rules)

    def candidate_values(self, view: SeatView, cands: list[int], worlds: np.ndarray,
                         weights: np.ndarray | None = None, t0: float | None = None,
                         race: int = 0) -> tuple[np.ndarray, int]:
        if self.leaf != "network" or view.phase != S.PH_PLAY:
            return super().candidate_values(view, cands, worlds, weights, t0, race)
        v = self.playout_values(worlds, view.seat, cands, view.rules)
        wt = np.ones(len(worlds)) if weights is None else np.asarray(weights, float)
        return (wt[:, None] * v).sum(axis=0) / wt.sum(), len(worlds)

    def search(self, view: SeatView, cands: list[int], fallback: int,
               worlds: np.ndarray | None = None, weights: np.ndarray | None = None,
               t0: float | None = None) -> int:
        if view.phase != S.PH_PLAY or worlds is not None or not self.use_solver \
                or not solver_available() or not self.inference:
            return super().search(view, cands, fallback, worlds, weights, t0)
        t0 = self.clock() if t0 is None else t0
        pool = self.draw_worlds(view, self.candidates)
        if pool is None:
            return fallback
        logw = self.log_weights(pool, view.seat, view.rules)
        p = np.exp(logw - logw.max())
        p /= p.sum()
        self.stats["weighed"] += 1
        self.stats["ess"] += float(1.0 / np.square(p).sum())
        if self.candidates == self.worlds:  # every world solved, each with its weight
            return super().search(view, cands, fallback, pool, p, t0)
        drawn = self.rng.choice(len(pool), size=self.worlds, p=p)
        counts = np.bincount(drawn, minlength=len(pool))
        order = list(dict.fromkeys(drawn.tolist()))  # distinct, in the order drawn
        return super().search(view, cands, fallback, pool[order], counts[order], t0)


def refuse_inference(players: int) -> None:
    """ValueError unless ``players`` is 3: the inference over worlds replays the
    three-player game's decisions (:func:`mariash_env.search.inference.other_decisions`)."""
    if players != 3:
        raise ValueError(f"robot 'nnpimc' with inference=True plays three players only (the "
                         f"inference replays the three-player game's decisions), got "
                         f"players={players}: use inference=False")


def make_nnpimc(kind: GameKind, players: int, **kw: Any) -> Robot:
    """Robot ``"nnpimc"`` of the registry in the game of ``kind``: without ``model``, the
    shipped :data:`DEFAULT_MODEL` in volený and the game's own network (its kind's
    ``net``, a shipped ``onnx:models/FILE``) in another game; a game the game view does
    not serve plays its own (its kind's ``nnpimc``: lízaný's,
    :mod:`mariash_env.games.lizany.nnpimc`)."""
    if kind.name not in NNPIMCRobot.games:
        return game_own_robot(kind, "nnpimc", kw)
    if players != 3:  # volený at four: the inference is three players' (module docstring)
        if kw.get("inference"):
            refuse_inference(players)
        kw["inference"] = False
    if "model" not in kw and kind.name != VOLENY_GAME:
        base, _, path = kind.net.partition(":")
        net = shipped_of(path) if base == "onnx" else None
        if net is None:
            raise ValueError(f"robot 'nnpimc' has no network of {kind.title or kind.name} "
                             f"to default to (GameKind.net = {kind.net!r}): give model=PATH")
        kw["model"] = net
    return NNPIMCRobot(**kw)
