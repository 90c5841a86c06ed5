"""One seat learning against robots in the others, as a plain Gymnasium environment, for
every game of the registry (``games("single_agent")``).

| | |
|---|---|
| Import | `mariash_env.SingleAgentEnv(...)` or `gymnasium.make("mariash/SingleAgent-v0", ...)` |
| Actions | Discrete(n_actions) of the game, the labels of its AEC environment |
| Observation | float32[obs_size] of the game and seat count (the learner's seat), or a Dict |
| Mask | `env.action_masks()` (bool[n_actions]) for sb3-contrib's `MaskablePPO` |
| Reward | the learner's payment of each deal in the game's unit, credited on its next decision |

| game | rules | seats | Observation | Actions | unit |
|---|---|---|---|---|---|
| volený | (default) | 3 | 900 | 115 | groše |
| volený, four players | `players=4` | 4 | 924 | 115 | groše |
| licitovaný | `rules="licitovany"` | 3 | 1016 | 136 | desetníky |
| lízaný | `rules="lizany"` | 2 | 221 | 32 | the deal's ±1 / ±2 |

The sizes are the registry's (``game_kind(rules).layout(players)``, ``n_actions``).

``SingleAgentEnv(seat=0, opponents="table", **rules)``: the learner sits in ``seat``; the
other seats are robots: a ``mariash_env.robots.make_robot`` spec built for the game
(``"table"`` is the game's own table robot, the registry's ``table_robot``; ``"random"``,
``"pimc(worlds=8)"``, ``"onnx:PATH"`` of a model of the game, ...), or a ``Robot``
instance; one for every other seat or a list with one per other seat (a pair at three
players).  A robot that does not play the game (its ``games`` / ``seat_counts``) is
refused by name (:class:`~mariash_env.robots.RobotGameError`).  At four players robots
see the deal's three-seat observation (the first block of the four-player one), as in the
arena.  Every ``step`` applies the learner's action and then lets the robots move until
the learner is to move again or the episode ends; the reward is the learner's payment of
every deal that ended meanwhile.  At four players (RULES.md §11.3) the dealer sits out and
pays with the defence: a deal the learner sits out is played by the robots and its payment
credited on the learner's next step (or its last one).  An episode is one partie of
``deals`` deals (``deals=1``: single deals; lízaný: one deal).  With ``players=4,
deals=1`` the learner never deals: the default dealer is then the seat before it, and
``reset(options={"dealer": seat})`` is refused.  ``reset`` takes the AEC environment's
options (``deck``, ``dealer``, ``cuts``; lízaný ``deck``).  An illegal action raises
:class:`~mariash_env.game.IllegalActionError` and changes nothing; ``illegal="terminate"``
instead ends the episode with reward -1 (as the AEC environment's option), which is what
lets Gymnasium's ``check_env`` pass in full: it steps an action sampled in another state.
``action_space.sample()`` draws a legal action of the current state.
``render_mode="ansi"`` makes ``render()`` return the table as text; ``"human"`` prints it
in ``reset`` and every ``step`` (Gymnasium's convention), the one ``illegal="terminate"``
ends included.  Another mode is a :class:`~mariash_env.game.RenderModeError`, an
``OptionError`` and a ``TypeError``: Stable-Baselines3's ``make_vec_env(
"mariash/SingleAgent-v0", ...)`` asks for ``"rgb_array"`` and retries without a mode on a
``TypeError``.

``obs_keys=("obs", "mask")`` answers ``{"obs": float32[obs_size], "mask":
bool[n_actions]}`` instead of the bare vector: Tianshou's layout, and its dtype (its masked
policies read ``obs.mask`` and mask with ``~mask``, which on int8 is no mask: ``~1 == -2``;
its own ``PettingZooEnv`` builds bool masks).  ``("observations", "action_mask")`` is
RLlib's action-masking layout, and other keys any library's: their mask is int8, as the
AEC environment's.  ``mask_dtype=`` (``bool``, ``"int8"`` or ``"float32"``) sets the
mask's dtype for any keys; the observation space's mask entry is a ``Box(0, 1)`` of it.
``info`` is ``{"deal": int, "settlement_deal": int}`` (the last deal that ended during the
step, else -1); the settlement itself is :attr:`last_settlement`.  The rules core is the
one :class:`~mariash_env.game.Game` every front end uses (lízaný, whose compiled core is
its own, outside the shared engine, its own deal,
:class:`~mariash_env.games.lizany.game.LizanyGame`).

Registered with Gymnasium on ``import mariash_env``: ``gymnasium.make(
"mariash/SingleAgent-v0", rules="licitovany", seat=1, opponents="random")`` passes every
keyword to the constructor (wrapped in Gymnasium's usual checkers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .copies import independent_copy
from .core.engine import deal_decisions
from .game import (
    RESET_OPTIONS,
    Game,
    IllegalActionError,
    OptionError,
    check_render_mode,
    check_seed,
    continue_seed,
    reset_options,
)
from .games.base import GameKind, step_bound
from .games.registry import game_kind
from .render import render_for
from .robots import Robot, make_robot, split_robot_specs
from .robots.base import RobotGameError, as_robot, check_plays
from .robots.view import SeatView
from .rules import check_game_options, is_int, make_rules
from .spaces import LegalDiscrete

__all__ = ["SingleAgentEnv", "IllegalActionError"]


def _robot(spec: Any, rules: Any, kind: GameKind, players: int) -> Robot:
    """An opponent for the game: a ``make_robot`` spec built for it, or a robot object
    that plays it (its ``games`` / ``seat_counts``; RobotGameError naming it otherwise)."""
    if isinstance(spec, str):
        return make_robot(spec, rules=rules)
    if callable(getattr(spec, "act", None)):
        robot = as_robot(spec)  # the robot protocol of robots/base.py, defaults filled in
        check_plays(robot, kind, players)
        if robot.wants_view and not kind.supports("game"):
            raise RobotGameError(f"robot {robot.name!r} searches a SeatView, which "
                                 f"{kind.title} has not: it cannot play rules={kind.name!r}")
        return robot
    raise OptionError(
        f"invalid opponent {spec!r}: expected a robot spec (e.g. 'table', 'random') "
        "or an object with act(observation)"
    )


def _comma_separated(opponents: Any, n: int, error: ValueError) -> None:
    """An OptionError for ``"table,random"`` (the command lines' robot list) that is no
    spec (``error``: make_robot's): ``opponents`` takes a list for robots that differ.  A
    string that is one spec with a comma (a path) was built, never refused here."""
    try:
        listed = split_robot_specs(opponents) if isinstance(opponents, str) else []
    except ValueError:  # no list either (an unbalanced parenthesis): make_robot's error
        return
    if len(listed) > 1:
        # the list it names, as an example only where it has a spec for each other seat
        meant = f"e.g. {listed!r}" if len(listed) == n else \
            f"where it lists {len(listed)}: {listed!r}"
        raise OptionError(
            f"invalid opponents {opponents!r}: a string is one robot spec for every other "
            f"seat; expected a list of specs, one per other seat ({n} here), {meant}") \
            from error


TIANSHOU_KEYS = ("obs", "mask")
_MASK_DTYPES = (np.dtype(np.bool_), np.dtype(np.int8), np.dtype(np.float32))


def _mask_dtype(dtype: Any, obs_keys: Any) -> np.dtype:
    """The mask's dtype: ``dtype`` (bool, int8 or float32), else bool for Tianshou's keys
    (its convention: it masks with ``~mask``) and int8 (the AEC environment's) for others."""
    if dtype is None:
        keys = tuple(obs_keys) if obs_keys is not None else None
        return np.dtype(np.bool_) if keys == TIANSHOU_KEYS else np.dtype(np.int8)
    try:
        found = np.dtype(dtype)
    except (TypeError, ValueError):
        found = None
    if found not in _MASK_DTYPES:
        raise OptionError(f"invalid mask_dtype {dtype!r}: expected None, bool, 'int8' or "
                          "'float32'")
    return found


def _game_of(rules: dict[str, Any]) -> tuple[GameKind, Any]:
    """The game of the rule keywords and what plays it: a :class:`Game` on the compiled
    core, or for a game without one (lízaný) its own deal behind :class:`_OwnGame`."""
    kind = game_kind(rules.get("rules", "voleny"), front_end="single_agent")
    if kind.supports("game"):
        return kind, Game(make_rules(**rules), records=False)
    check_game_options(kind, rules)
    return kind, _OwnGame(kind)


class SingleAgentEnv(gymnasium.Env):
    """One learning seat, robots in the other seats (see the module documentation)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}
    __copy__ = independent_copy  # copy.copy too: a shallow copy would share the game

    def __init__(
        self,
        seat: int = 0,
        opponents: Any = "table",
        obs_keys: Sequence[str] | None = None,
        illegal: str = "raise",
        render_mode: str | None = None,
        mask_dtype: Any = None,
        **rules: Any,
    ) -> None:
        if not isinstance(illegal, str) or illegal not in ("raise", "terminate"):
            raise OptionError(f"invalid illegal={illegal!r}: expected 'raise' or 'terminate'")
        # the game first: it says how many seats there are (GameError for one not played)
        self.kind, self.game = _game_of(rules)
        self.players = players = self.game.players
        if not is_int(seat) or not 0 <= seat < players:
            raise OptionError(f"invalid seat {seat!r}: expected a seat 0..{players - 1}")
        check_render_mode(render_mode, self.metadata["render_modes"])
        n = players - 1
        others = opponents if isinstance(opponents, (list, tuple)) else [opponents] * n
        if len(others) != n:
            what = {1: "one robot", 2: "one robot or a pair of robots"}.get(
                n, f"one robot or a list of {n} robots")
            raise OptionError(
                f"invalid opponents {opponents!r}: expected {what} (one per other seat of "
                f"{self.kind.title} with {players} players)"
            )
        rule_set = self.game.rules if self.game.rules is not None else self.kind.name
        # a spec builds one instance per seat (each its own state); objects are used as given
        try:
            robots = [_robot(p, rule_set, self.kind, players) for p in others]
        except ValueError as e:
            _comma_separated(opponents, n, e)
            raise
        if obs_keys is not None and (
            isinstance(obs_keys, str) or not isinstance(obs_keys, Sequence)
            or len(obs_keys) != 2
            or not all(isinstance(k, str) for k in obs_keys) or obs_keys[0] == obs_keys[1]
        ):
            raise OptionError(
                f"invalid obs_keys {obs_keys!r}: expected None or two different key names "
                "(observation, mask)"
            )
        self._mask_dtype = _mask_dtype(mask_dtype, obs_keys)
        self.seat = int(seat)
        self.illegal = illegal
        self.render_mode = render_mode
        self.rules = rule_set  # a Rules; a game name for a game without the compiled core
        # robots[s] plays seat s; None for the learner.
        self.robots: list[Robot | None] = [None] * players
        for k, s in enumerate(s for s in range(players) if s != self.seat):
            self.robots[s] = robots[k]
        # Robots built for three read the deal's three-seat block of the four-player
        # observation (as in the arena); every other layout is the game's whole vector.
        self._robot_obs = self.kind.obs_size
        self._reset_keys = _OwnGame.RESET_OPTIONS if isinstance(self.game, _OwnGame) \
            else RESET_OPTIONS
        # the most robot moves between two of the learner's in one deal: the rules' bound
        # on a deal's decisions (StuckGameError past it: the engine does not move on)
        self._deal_decisions = self.game.deal_decisions if isinstance(self.game, _OwnGame) \
            else int(deal_decisions(self.game.rules.vector()))
        self._keys = tuple(obs_keys) if obs_keys is not None else None
        layout = self.kind.layout(players)
        low, high = self.kind.obs_bounds  # as the AEC env's
        vec = spaces.Box(low, high, (layout.obs_size,), np.float32)
        n_actions = self.kind.n_actions
        if self._keys is None:
            self.observation_space = vec
        else:
            self.observation_space = spaces.Dict(
                {self._keys[0]: vec,
                 self._keys[1]: spaces.Box(0, 1, (n_actions,), self._mask_dtype)}
            )
        # sample() draws a legal action (check_env and random exploration call it).
        self.action_space = LegalDiscrete(n_actions, self._legal_or_none)
        self._started = False

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A copy (copy.deepcopy, pickle): its action space was copied as a plain Discrete
        # (LegalDiscrete's own copies are); it samples this copy's legal actions again.
        self.__dict__.update(state)
        self.action_space = LegalDiscrete.bound(self.action_space, self._legal_or_none)

    # --- Gymnasium API ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, int]]:
        # Checked before Gymnasium's seeding, which takes no numpy ints and raises its own
        # error, and before anything is changed.
        seed = check_seed(seed)
        opts = reset_options(options, self._reset_keys, strict=True)
        dealer = self._dealer(opts.get("dealer"))
        # A reset the game refuses (a bad deck, dealer or cuts) leaves the seeding as it
        # was, as the AEC env's does: the generator, and the state an unseeded reset draws.
        rng, rng_seed = self._np_random, self._np_random_seed
        saved = None if rng is None or seed is not None else rng.bit_generator.state
        super().reset(seed=seed)
        try:
            # Without a seed the partie is still drawn from the env's seeded generator, so
            # reset(seed=s) followed by resets without a seed is reproducible.
            game_seed = seed if seed is not None else continue_seed(self.np_random)
            self.game.new_partie(
                seed=game_seed, deck=opts.get("deck"), dealer=dealer, cuts=opts.get("cuts"),
            )
        except BaseException:
            self._np_random, self._np_random_seed = rng, rng_seed
            if saved is not None:
                rng.bit_generator.state = saved
            raise
        self._seed = game_seed
        self._started = True
        self._over = False
        self._new_deal()
        reward, ended, done = self._advance()
        while done:
            # The robots finished the whole partie without the learner (rare with
            # deals=1): there is nothing to learn from it, play the next one.
            self._seed = (self._seed * 1_000_003 + 1) % 2**31
            self.game.new_partie(seed=self._seed, dealer=dealer)
            self._new_deal()
            reward, ended, done = self._advance()
        # The robots alone may finish a deal before the learner's first decision; its
        # payment is carried into the first step rather than lost.
        self._pending = reward
        self._render_human()
        return self._obs(), self._info(ended)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, int]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._over or self.game.partie_over or self.game.to_move != self.seat:
            raise RuntimeError("the episode is over: call reset() to start a new one")
        game = self.game
        if self.illegal == "terminate":
            try:
                game.check(action)
            except IllegalActionError:  # the penalty, and a payment still owed (reset)
                self._over = True
                reward, self._pending = self._pending - 1.0, 0.0
                self._render_human()
                return self._obs(), reward, True, False, self._info(-1)
        ended, done = -1, False
        settled = game.step(action)  # raises before changing anything on a bad action
        # the payment carried from reset is taken only now: an illegal action keeps it
        reward, self._pending = self._pending, 0.0
        if settled:
            reward += float(game.last_settlement["payments"][self.seat])
            ended = game.deal_no
            done = not self._next_deal()
        if not done:
            r, e, done = self._advance()
            reward += r
            ended = e if e >= 0 else ended
        self._render_human()
        return self._obs(), reward, done, False, self._info(ended)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool[n_actions] of the game); all False once the
        episode is over."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        if self._over or self.game.deal_over or self.game.to_move != self.seat:
            return np.zeros(self.kind.n_actions, dtype=bool)
        return self.game.legal_mask(self.seat).astype(bool)

    def _legal_or_none(self) -> np.ndarray | None:
        return self.action_masks() if self._started else None

    @property
    def last_settlement(self) -> dict[str, Any] | None:
        """The settlement of the deal that ended last (None before the first)."""
        return self.game.last_settlement

    def legal_labels(self) -> list[str]:
        """Labels of the learner's legal actions."""
        return [self.kind.action_label(int(i)) for i in np.flatnonzero(self.action_masks())]

    def render(self) -> str | None:
        if self.render_mode is not None and not self._started:
            raise RuntimeError("call reset() before render()")  # no deal to show yet
        if isinstance(self.game, _OwnGame):
            return self.game.render(self.render_mode)
        return render_for(self.game, self.render_mode)

    # --- internals --------------------------------------------------------------------
    def _render_human(self) -> None:
        """Gymnasium's convention: ``"human"`` renders in ``reset`` and every ``step``."""
        if self.render_mode == "human":
            self.render()

    def _dealer(self, dealer: Any) -> Any:
        """The partie's first dealer: the option, else 0.  At four players (RULES.md §11.3)
        the dealer sits out; in a one-deal partie the learner must not, so the default is
        then the seat before it, and the option naming the learner's seat is refused."""
        game = self.game
        only = game.players == 4 and game.rules.deals == 1
        if dealer is None:
            return (self.seat - 1) % 4 if only and self.seat == 0 else 0
        if only and is_int(dealer) and dealer == self.seat:
            raise OptionError(
                f"invalid dealer {dealer!r}: at four players the dealer sits out, and with "
                f"deals=1 the learner (seat {self.seat}) would never move; expected another "
                "seat 0..3")
        return dealer  # Game.new_partie checks it

    def _new_deal(self) -> None:
        for s, r in enumerate(self.robots):
            if r is not None:
                r.begin_deal((self._seed * 1_000_003 + 97 * self.game.deal_no + s) % 2**63)

    def _next_deal(self) -> bool:
        if not self.game.next_deal():
            return False
        self._new_deal()
        return True

    def _advance(self) -> tuple[float, int, bool]:
        """Robots move until the learner is to move: (its payments, last ended deal, done)."""
        game, reward, ended = self.game, 0.0, -1
        what = "SingleAgentEnv's robot moves in a deal"
        tick = step_bound(what, self._deal_decisions)
        while game.to_move != self.seat:
            tick()
            seat = game.to_move
            robot = self.robots[seat]
            if robot.wants_view:
                a = robot.act_view(SeatView.from_game(game, seat))
            else:
                a = robot.act({"observation": game.observation(seat)[:self._robot_obs],
                               "action_mask": game.legal_mask(seat)})
            if game.step(int(a)):
                reward += float(game.last_settlement["payments"][self.seat])
                ended = game.deal_no
                if not self._next_deal():
                    return reward, ended, True
                tick = step_bound(what, self._deal_decisions)  # the next deal's
        return reward, ended, False

    def _obs(self) -> Any:
        vec = self.game.observation(self.seat)
        if self._keys is None:
            return vec
        mask = self.action_masks().astype(self._mask_dtype)
        return {self._keys[0]: vec, self._keys[1]: mask}

    def _info(self, ended: int) -> dict[str, int]:
        return {"deal": self.game.deal_no, "settlement_deal": ended}


class _OwnGame:
    """A game without the compiled core (lízaný: one deal is its partie) behind the part
    of :class:`~mariash_env.game.Game` the env drives; ``last_settlement["payments"]``
    are the deal's rewards per seat."""

    RESET_OPTIONS = ("deck",)

    def __init__(self, kind: GameKind) -> None:
        from .games.lizany.core import DEAL_DECISIONS
        from .games.lizany.game import LizanyGame

        self.kind = kind
        self.players = kind.players[0]
        self.deal_decisions = DEAL_DECISIONS  # a card each
        self.rules = None  # no Rules: the game is its name (kind.name)
        self._new = LizanyGame
        self.deal: Any = None
        self.last_settlement: dict[str, Any] | None = None

    def new_partie(self, seed: int | None = None, deck: Any = None, dealer: int = 0,
                   cuts: Any = None) -> None:
        self.deal = self._new(deck=deck, seed=seed)
        self.last_settlement = None

    @property
    def to_move(self) -> int:
        return -1 if self.deal.over else self.deal.to_move

    @property
    def deal_over(self) -> bool:
        return self.deal.over

    partie_over = deal_over
    deal_no = 0

    @property
    def scores(self) -> list[int]:
        return list(self.deal.rewards)

    def check(self, action: Any) -> int:
        return self.deal.check(action)

    def step(self, action: Any) -> bool:
        ended = self.deal.play(action)
        if ended:
            self.last_settlement = {"payments": list(self.deal.rewards), **self.deal.result()}
        return ended

    def next_deal(self) -> bool:
        return False  # a partie of one deal

    def legal_mask(self, seat: int | None = None) -> np.ndarray:
        return self.deal.legal_mask(seat)

    def observation(self, seat: int) -> np.ndarray:
        return self.deal.observe(seat)

    def render(self, render_mode: str | None) -> str | None:
        if render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: nothing to render")
            return None
        text = self.deal.render()
        if render_mode == "human":
            print(text)
            return None
        return text
