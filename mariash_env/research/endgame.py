"""Volený endgames as small games of their own, and their exact best response (issue #34).

An :class:`Endgame` is the last ``tricks`` tricks of one volený deal: a fixed prefix (the
engine state when ``tricks`` tricks remain: contract, trumps, flek, the tricks already
taken, talon, marriages -- everything but the hands), a chance node that deals the
``3 * tricks`` cards still out uniformly, ``tricks`` to each seat, then the compiled
engine's card play to the end of the deal and its settlement in groše.  It is small
enough for OpenSpiel's exact best response
(:class:`open_spiel.python.algorithms.best_response.BestResponsePolicy`):
:func:`exact_best_response` is the yardstick the approximate best response of
``training/best_response.py`` (``mariash best-response``) is validated against.

The prefix is one deal of the table robot in every seat (``VectorEnv(1, seed=s,
deals=1)``), stopped at the start of trick ``10 - tricks``.  A deal is accepted as a
prefix only when every deal of the remaining cards is a possible continuation of its
public play, so that the chance node's uniform deal contradicts nothing the seats saw:

* a suit game (not betl / durch) still in card play at that trick, nobody having laid
  down;
* the announcement is hra or sedma and nobody bet a hundred against (a hundred needs a
  marriage in hand, RULES.md §5.1, §5.2);
* the trump card is played, and so is the trump seven when a seven is bet (the trump
  card lies in forehand's hand, a sedma needs the trump seven, §3, §5.1);
* replaying the prefix's card play from the first trick, with each seat holding what it
  played plus its share of any deal of the remaining cards, is legal move for move and
  gives the prefix's state (RULES.md §6, §7: no revealed void, no must-beat, no marriage
  announced or not is contradicted) -- checked by the engine itself for every deal.

``Endgame(seed)`` takes the first seed from ``seed`` on whose deal passes (``seed``
then names the one taken).  The engine decides every rule: the state is the core record
(:mod:`mariash_env.core.state`) moved by :func:`~mariash_env.core.engine.legal_actions`
and :func:`~mariash_env.core.engine.apply_action`; nothing here re-implements one.

The OpenSpiel game (``pyspiel.load_game("mariash_endgame", {"seed": s, "tricks": k})``,
or :meth:`Endgame.game`): the root is a chance node with one outcome per deal of the
remaining cards (:meth:`Endgame.splits`, uniform); players 0, 1, 2 are the engine's
seats; actions the engine's legal ones (``play:<card>``, ``lay_down``); returns the
deal's payments (``PAY``, the ``VectorEnv`` step rewards).  The information-state string
of a seat is its dealt cards and every move since, with the marriages the moves
announced: all of its own history (the prefix is common knowledge).

A robot plays as a policy (:class:`RobotPolicy`): the action ``act_batch`` gives on the
seat's engine observation and mask (what ``VectorEnv`` hands it), with probability 1;
the uniform robot (:class:`~mariash_env.robots.base.RandomRobot`, ``make_robot("random")``)
as the uniform distribution over the legal actions.  Robots that search a
:class:`~mariash_env.robots.view.SeatView` (``wants_view``) are refused.

Sizes: ``(3k)! / (k!)^3`` deals (k = 2: 90, k = 3: 1680, k = 4: 34650); ``tricks`` is
1..4.  Needs ``open_spiel`` (the ``openspiel`` / ``dev`` extras); never imports torch.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ..cards import CARD_CODES, cards_of
from ..core import state as S
from ..core.engine import apply_action, deal_decisions, encode_game, legal_actions
from ..extras import needs
from ..games.base import step_bound
from ..games.voleny.actions import ACTION_LABELS, LAY_DOWN, N_ACTIONS, PLAY0
from ..openspiel.params import utility_bound
from ..robots.base import RandomRobot
from ..rules import make_rules
from ..vector import VectorEnv

with needs("openspiel", "the exact best response (OpenSpiel)", "pyspiel", "open_spiel"):
    import pyspiel
    from open_spiel.python import policy as os_policy

__all__ = ["Endgame", "EndgameGame", "EndgameState", "RobotPolicy", "exact_best_response",
           "robot_probabilities"]

MAX_TRICKS = 4
SEED_TRIES = 1000  # seeds tried from the given one before giving up
_CHUNK = 64  # deals expanded together by robot_value (memory: rows x observation)


def _deal_count(tricks: int) -> int:
    return math.factorial(3 * tricks) // math.factorial(tricks) ** 3


def _mask_of(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def _set_hands(states: np.ndarray, hands: np.ndarray) -> None:
    """Write card masks ``hands`` (int64[N, 3]) into the HAND slots of ``states``."""
    h = hands.astype(np.int64) & S.MASK32
    states[:, S.HAND:S.HAND + 3] = np.where(h >= 2**31, h - 2**32, h).astype(np.int32)


class Endgame:
    """The last ``tricks`` tricks of one volený deal as a small game of its own (module
    docstring: which deals are accepted as its prefix).

    Attributes: ``seed`` (the seed whose deal is the prefix), ``tricks``, ``prefix``
    (int32[STATE_SIZE], the engine state at the start of the endgame, with the deal's
    real hands), ``cards`` (int64[3 * tricks], the card indices still out, ascending),
    ``leader`` (the seat to move first), ``rules`` (volený with ``deals=1``) and
    ``rules_vector``.
    """

    def __init__(self, seed: int = 0, tricks: int = 3, rules: str = "voleny") -> None:
        if rules != "voleny":
            raise ValueError(f"Endgame plays volený only, got rules={rules!r}")
        if not isinstance(tricks, (int, np.integer)) or not 1 <= tricks <= MAX_TRICKS:
            raise ValueError(f"tricks must be 1..{MAX_TRICKS}, got {tricks!r}")
        self.tricks = int(tricks)
        self.rules = make_rules(rules=rules, deals=1)
        self.rules_vector = self.rules.vector()
        self._splits: np.ndarray | None = None
        self._game: EndgameGame | None = None
        from ..robots import make_robot

        robot = make_robot("table")
        for s in range(int(seed), int(seed) + SEED_TRIES):
            if self._try(s, robot):
                self.seed = s
                return
        raise ValueError(f"no deal of seeds {seed}..{seed + SEED_TRIES - 1} gives an "
                         f"endgame of {tricks} tricks (see mariash_env.research.endgame)")

    # -- the prefix ----------------------------------------------------------------------
    def _try(self, seed: int, robot: Any) -> bool:
        """Play seed's deal with ``robot`` in every seat to the endgame; keep it when it
        is accepted (module docstring)."""
        venv = VectorEnv(1, seed=seed, deals=1)
        step = venv.reset(seed)
        start: np.ndarray | None = None
        moves: list[tuple[int, int]] = []  # (seat, card) of the card play so far
        target = 10 - self.tricks
        tick = step_bound("the endgame's prefix deal", int(deal_decisions(venv.rules_vector)))
        while True:
            tick()
            st = venv.states[0]
            if st[S.PHASE] == S.PH_PLAY:
                if start is None:
                    start = st.copy()
                if st[S.TRICK_NO] == target and st[S.TRICK_N] == 0:
                    break
            mask = step.mask
            if st[S.PHASE] == S.PH_PLAY and mask[0, LAY_DOWN]:
                mask = mask.copy()  # the prefix plays its cards out: no lay-down
                mask[0, LAY_DOWN] = 0
            a = int(robot.act_batch(step.obs, mask)[0])
            if st[S.PHASE] == S.PH_PLAY:
                moves.append((int(st[S.TO_MOVE]), a - PLAY0))
            step = venv.step(np.array([a]))
            if step.deal_done[0]:
                return False
        st = st.copy()
        if not self._plausible(st):
            return False
        self.prefix = st
        self.cards = np.array(sorted(c for s in range(3)
                                     for c in cards_of(S.getm(st, S.HAND + s))), np.int64)
        self.leader = int(st[S.LEADER])
        if not self._consistent(start, moves):
            self._splits = None
            return False
        return True

    @staticmethod
    def _plausible(st: np.ndarray) -> bool:
        """The prefix's bets pin no remaining card (module docstring)."""
        if st[S.CONTRACT] != S.C_SUIT or st[S.CLAIMER] >= 0:
            return False
        if st[S.ANNOUNCE] not in (S.AN_HRA, S.AN_SEDMA) or st[S.BET_EXISTS + S.B_HUNDRED_AG]:
            return False
        played = S.getm(st, S.PLAYED)
        tc = int(st[S.TRUMP_CARD])
        seven = (tc >> 3) * 8  # the trump seven (rank 0 of the trump suit)
        if not (played >> tc) & 1:
            return False
        sevens = st[S.BET_EXISTS + S.B_SEVEN] or st[S.BET_EXISTS + S.B_SEVEN_AG]
        return not (sevens and not (played >> seven) & 1)

    def _consistent(self, start: np.ndarray, moves: list[tuple[int, int]]) -> bool:
        """Every deal of the remaining cards, with the cards each seat played, replays the
        prefix's card play legally to the prefix's own state (the engine judges)."""
        splits = self.splits()
        n = splits.shape[0]
        played = [0, 0, 0]
        for seat, c in moves:
            played[seat] |= 1 << c
        rows = np.repeat(start[None], n, axis=0)
        hands = (splits[:, S.HAND:S.HAND + 3].astype(np.int64) & S.MASK32) | np.array(played)
        _set_hands(rows, hands)
        venv = VectorEnv(n, deals=1, observations=False)
        venv.restore_states(rows)
        step = venv.current()
        for _, c in moves:
            if not step.mask[:, PLAY0 + c].all():
                return False
            step = venv.step(np.full(n, PLAY0 + c))
        return bool((venv.copy_states() == splits).all())

    # -- the deals -----------------------------------------------------------------------
    @property
    def num_deals(self) -> int:
        """Deals of the remaining cards: ``(3k)! / (k!)^3``."""
        return _deal_count(self.tricks)

    def splits(self) -> np.ndarray:
        """Every deal of the remaining cards, as the prefix with those hands:
        ``int32[num_deals, STATE_SIZE]`` (a fresh copy), in a fixed order (seat 0's
        cards, then seat 1's, in :func:`itertools.combinations` order); row ``i`` is the
        OpenSpiel chance outcome ``i``."""
        if self._splits is None:
            k = self.tricks
            cards = [int(c) for c in self.cards]
            hands = []
            for h0 in itertools.combinations(cards, k):
                rest = [c for c in cards if c not in h0]
                for h1 in itertools.combinations(rest, k):
                    h2 = [c for c in rest if c not in h1]
                    hands.append((_mask_of(h0), _mask_of(h1), _mask_of(h2)))
            out = np.repeat(self.prefix[None], len(hands), axis=0)
            _set_hands(out, np.array(hands, dtype=np.int64))
            self._splits = out
        return self._splits.copy()

    def start_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` uniformly random deals of the remaining cards: ``int32[n, STATE_SIZE]``
        (``VectorEnv(n, deals=1).restore_states`` takes them)."""
        k = self.tricks
        perm = rng.permuted(np.repeat(self.cards[None], int(n), axis=0), axis=1)
        bits = np.int64(1) << perm
        hands = np.stack([bits[:, s * k:(s + 1) * k].sum(axis=1) for s in range(3)], axis=1)
        out = np.repeat(self.prefix[None], int(n), axis=0)
        _set_hands(out, hands)
        return out

    def venv(self, n: int) -> VectorEnv:
        """A batched engine of ``n`` games under the endgame's rules (restore
        :meth:`splits` or :meth:`start_states` into it)."""
        return VectorEnv(n, deals=1)

    # -- values --------------------------------------------------------------------------
    def robot_values(self, robot: Any) -> np.ndarray:
        """Exact expected payoffs (groše, float64[3]) of the three seats when ``robot``
        plays all of them -- or, given a list of three robots, ``robot[s]`` seat ``s`` --
        every deal enumerated (the batched engine; a uniform robot's every action
        weighted)."""
        robots = list(robot) if isinstance(robot, (list, tuple)) else [robot] * 3
        splits = self.splits()
        total = np.zeros(3)
        w0 = 1.0 / splits.shape[0]
        for lo in range(0, splits.shape[0], _CHUNK):
            states = splits[lo:lo + _CHUNK]
            w = np.full(states.shape[0], w0)
            while states.shape[0]:
                venv = self.venv(states.shape[0])
                venv.restore_states(states)
                step = venv.current()
                probs = np.zeros(step.mask.shape)
                for s, r in enumerate(robots):
                    at = np.flatnonzero(step.player == s)
                    if at.size:
                        probs[at] = robot_probabilities(r, step.obs[at], step.mask[at])
                rows, acts = np.nonzero(probs > 0)
                w = w[rows] * probs[rows, acts]
                venv = self.venv(rows.size)
                venv.restore_states(states[rows])
                step = venv.step(acts)
                total += w @ step.rewards
                live = ~step.deal_done
                states, w = venv.copy_states()[live], w[live]
        return total

    def robot_value(self, robot: Any, seat: int) -> float:
        """Exact expected payoff (groše) of ``seat`` when ``robot`` plays all three seats
        (:meth:`robot_values`)."""
        return float(self.robot_values(robot)[seat])

    def game(self) -> EndgameGame:
        """The OpenSpiel game of this endgame (made once)."""
        if self._game is None:
            self._game = EndgameGame(endgame=self)
        return self._game

    def describe(self) -> str:
        """One line: seed, contract, trumps, announcement, actor, leader and the cards out."""
        d = S.describe(self.prefix)
        return (f"seed {self.seed}: last {self.tricks} tricks of a suit game, trumps "
                f"{d['trump_card']}, {d['announce']}, actor {d['actor']}, leader "
                f"{self.leader}, points {d['pts']}, cards out "
                f"{' '.join(CARD_CODES[c] for c in self.cards)}")


# --- robots as policies -----------------------------------------------------------------
def robot_probabilities(robot: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The robot's action distribution per row (float64[N, A]): one-hot on what
    ``act_batch(obs, mask)`` plays, the uniform distribution over the legal actions for
    a :class:`RandomRobot`."""
    if getattr(robot, "wants_view", False):
        raise TypeError(f"robot {getattr(robot, 'name', robot)!r} searches a SeatView: an "
                        "endgame policy needs a robot that acts on observations")
    legal = np.asarray(mask) > 0
    if isinstance(robot, RandomRobot):
        return legal / legal.sum(axis=1, keepdims=True)
    acts = np.asarray(robot.act_batch(obs, mask), dtype=np.int64)
    rows = np.arange(acts.size)
    if not legal[rows, acts].all():
        raise ValueError(f"robot {getattr(robot, 'name', robot)!r} played an illegal action")
    out = np.zeros(legal.shape)
    out[rows, acts] = 1.0
    return out


class RobotPolicy(os_policy.Policy):
    """A robot as an OpenSpiel policy of the endgame's game: its distribution
    (:func:`robot_probabilities`) on the engine observation and mask of the seat to move,
    cached by observation (the robot sees nothing else)."""

    def __init__(self, game: EndgameGame, robot: Any,
                 players: tuple[int, ...] = (0, 1, 2)) -> None:
        super().__init__(game, list(players))
        self.robot = robot
        self._ctx = game.ctx
        self._cache: dict[bytes, dict[int, float]] = {}

    def action_probabilities(self, state: EndgameState,
                             player_id: int | None = None) -> dict[int, float]:
        if isinstance(self.robot, RandomRobot):  # no observation needed
            legal = state.legal_actions()
            return {a: 1.0 / len(legal) for a in legal}
        obs, mask = self._ctx.observe(state.st)
        key = obs.tobytes() + mask.tobytes()
        out = self._cache.get(key)
        if out is None:
            p = robot_probabilities(self.robot, obs[None], mask[None])[0]
            out = self._cache[key] = {int(a): float(p[a]) for a in np.flatnonzero(p)}
        return out


# --- the OpenSpiel game ---------------------------------------------------------------
_PARAMS = {"seed": 0, "tricks": 3}
GAME_TYPE = pyspiel.GameType(
    short_name="mariash_endgame",
    long_name="Mariáš (volený): the last tricks of one deal (mariash engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=3,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification=dict(_PARAMS),
)


class _Context:
    """What every state of one endgame game shares (never copied by ``deepcopy``)."""

    def __init__(self, endgame: Endgame) -> None:
        self.endgame = endgame
        self.rv = endgame.rules_vector
        self.splits = endgame.splits()
        self.mask = np.zeros(N_ACTIONS, dtype=np.int8)
        self.obs = np.zeros(VectorEnv.obs_size, dtype=np.float32)

    def observe(self, st: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The observation and mask of the seat to move (as ``VectorEnv`` gives them;
        scratch buffers, overwritten by the next call)."""
        legal_actions(st, self.rv, self.mask)
        encode_game(st, self.rv, int(st[S.TO_MOVE]), self.obs, False)
        return self.obs, self.mask

    def __deepcopy__(self, memo: dict) -> _Context:
        return self


class EndgameGame(pyspiel.Game):
    """The OpenSpiel game of an :class:`Endgame` (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None,
                 endgame: Endgame | None = None) -> None:
        if endgame is None:
            p = {**_PARAMS, **(params or {})}
            endgame = Endgame(int(p["seed"]), int(p["tricks"]))
        self.endgame = endgame
        self.ctx = _Context(endgame)
        bound = utility_bound(endgame.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=endgame.num_deals,
            num_players=3,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=3 * endgame.tricks,
        )
        super().__init__(GAME_TYPE, info, {"seed": endgame.seed, "tricks": endgame.tricks})

    def new_initial_state(self) -> EndgameState:
        return EndgameState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        from ..openspiel.game import perfect_recall

        # the seat's own view only, as the "mariash" game's observers (a public-only
        # observer must not get the seat's hand)
        return _Observer(perfect_recall(iig_obs_type, params))


class EndgameState(pyspiel.State):
    """One endgame: the chance deal, then the engine's card play (module docstring)."""

    def __init__(self, game: EndgameGame) -> None:
        super().__init__(game)
        self._g = game.ctx
        self.st: np.ndarray | None = None  # None until the chance deal
        self.deal = -1
        # Every move so far as ``info_string`` shows it: a string, which ``deepcopy`` (how
        # OpenSpiel clones a Python state) does not walk.
        self.moves = ""

    def current_player(self) -> int:
        st = self.st
        if st is None:
            return pyspiel.PlayerId.CHANCE
        if st[S.PHASE] == S.PH_DONE:
            return pyspiel.PlayerId.TERMINAL
        return int(st[S.TO_MOVE])

    def is_terminal(self) -> bool:
        return self.st is not None and self.st[S.PHASE] == S.PH_DONE

    def _legal_actions(self, player: int) -> list[int]:
        legal_actions(self.st, self._g.rv, self._g.mask)
        return np.flatnonzero(self._g.mask).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self._g.splits.shape[0]
        return [(i, 1.0 / n) for i in range(n)]

    def _apply_action(self, action: int) -> None:
        if self.st is None:
            self.deal = int(action)
            self.st = self._g.splits[self.deal].copy()
            return
        seat = int(self.st[S.TO_MOVE])
        nmarr = int(self.st[S.NMARR])
        apply_action(self.st, self._g.rv, int(action))
        marriage = "+marriage" if int(self.st[S.NMARR]) > nmarr else ""
        self.moves += f" {seat}:{ACTION_LABELS[action]}{marriage}"

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return "deal:" + "|".join(self.hand_string(int(action), s) for s in range(3))
        return ACTION_LABELS[action]

    def hand_string(self, deal: int, seat: int) -> str:
        """The cards of ``seat`` in chance outcome ``deal``."""
        return " ".join(CARD_CODES[c] for c in
                        cards_of(S.getm(self._g.splits[deal], S.HAND + seat)))

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0, 0.0]
        return [float(x) for x in S.read64(self.st, S.PAY, 3)]

    def info_string(self, player: int) -> str:
        """The seat's whole history: its dealt cards, then every move (``seat:label``,
        ``+marriage`` when the move announced one)."""
        if self.st is None:
            return f"p{player} dealing"
        return f"p{player} hand:{self.hand_string(self.deal, player)} |{self.moves}"

    def __str__(self) -> str:
        if self.st is None:
            return "dealing"
        hands = " | ".join(" ".join(CARD_CODES[c] for c in cards_of(S.getm(self.st, S.HAND + s)))
                           for s in range(3))
        return f"deal {self.deal} hands {hands} moves{self.moves}"


class _Observer:
    """OpenSpiel's observer: the information state (perfect recall) as
    :meth:`EndgameState.info_string`, else the seat's engine observation by name."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        self._obs = np.zeros(VectorEnv.obs_size, dtype=np.float32)

    def set_from(self, state: EndgameState, player: int) -> None:
        pass  # strings only

    def string_from(self, state: EndgameState, player: int) -> str:
        if self.perfect_recall or state.st is None:
            return state.info_string(player)
        from ..games.registry import game_kind
        from ..openspiel.game import encoding_string

        encode_game(state.st, state._g.rv, player, self._obs, False)
        return f"p{player} {encoding_string(game_kind('voleny'), self._obs)}"


class _Create:
    """The registered factory (a class, as :mod:`mariash_env.openspiel` explains: a plain
    function kept in pyspiel's C++ registry would be freed without the GIL at exit)."""

    def __new__(cls, params: dict[str, Any] | None = None) -> EndgameGame:  # type: ignore[misc]
        return EndgameGame(params)


pyspiel.register_game(GAME_TYPE, _Create)


def exact_best_response(endgame: Endgame, robot: Any, seat: int) -> float:
    """Exact value (groše, expected over the chance deal) of a best response in ``seat``
    against ``robot`` in the other two seats: OpenSpiel's ``BestResponsePolicy`` on the
    endgame's game (:meth:`Endgame.game`), the robot as a :class:`RobotPolicy`."""
    from open_spiel.python.algorithms.best_response import BestResponsePolicy

    game = endgame.game()
    others = tuple(s for s in range(3) if s != seat)
    br = BestResponsePolicy(game, int(seat), RobotPolicy(game, robot, others))
    return float(br.value(game.new_initial_state()))
