"""One seat learning against two robots, as a plain Gymnasium environment.

| | |
|---|---|
| Import | `from mariash_env.single_agent import SingleAgentEnv` |
| Actions | Discrete(115), the labels of the AEC environment |
| Observation | float32[900] (the learner's seat), or a Dict with `obs_keys` |
| Mask | `env.action_masks()` (bool[115]) for sb3-contrib's `MaskablePPO` |
| Reward | the learner's groše of each deal, credited on its next decision |

``SingleAgentEnv(seat=0, opponents="table", **rules)``: the learner sits in
``seat``; the other two seats are robots (``mariash_env.robots.make_robot``
specs such as ``"table"``, ``"random"``, ``"pimc(worlds=8)"``, or ``Robot``
instances; one for both seats or a pair).  Every ``step`` applies the learner's
action and then lets the robots move until the learner is to move again or the
episode ends; the reward is the learner's payment of every deal that ended
meanwhile.  An episode is one partie of ``deals`` deals (``deals=1``: single
deals).  An illegal action raises :class:`~mariash_env.game.IllegalActionError`
and changes nothing; ``illegal="terminate"`` instead ends the episode with
reward -1 (as the AEC environment's option), which is what lets Gymnasium's
``check_env`` pass in full: it steps an action sampled in another state.
``action_space.sample()`` draws a legal action of the current state.

``obs_keys=("obs", "mask")`` answers ``{"obs": float32[900], "mask": int8[115]}``
instead of the bare vector (Tianshou's masked policies read ``obs.mask``);
``("observations", "action_mask")`` is RLlib's action-masking layout.
``info`` is ``{"deal": int, "settlement_deal": int}`` (the last deal that ended
during the step, else -1); the settlement itself is :attr:`last_settlement`.
The rules core is the one :class:`~mariash_env.game.Game` every front end uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .game import RESET_OPTIONS, Game, IllegalActionError, OptionError, check_seed, reset_options
from .games.registry import game_kind
from .games.voleny import actions as A
from .games.voleny.observe import OBS_SIZE
from .render import render_for
from .robots import Robot, make_robot
from .robots.base import as_robot
from .robots.view import SeatView
from .rules import is_int, make_rules, require_three
from .spaces import LegalDiscrete

__all__ = ["SingleAgentEnv", "IllegalActionError"]


def _robot(spec: Any) -> Robot:
    if isinstance(spec, str):
        return make_robot(spec)
    if callable(getattr(spec, "act", None)):
        return as_robot(spec)  # the robot protocol of robots/base.py, defaults filled in
    raise OptionError(
        f"invalid opponent {spec!r}: expected a robot spec (e.g. 'table', 'random') "
        "or an object with act(observation)"
    )


class SingleAgentEnv(gymnasium.Env):
    """One learning seat, two robot seats (see the module documentation)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        seat: int = 0,
        opponents: Any = "table",
        obs_keys: Sequence[str] | None = None,
        illegal: str = "raise",
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        if not isinstance(illegal, str) or illegal not in ("raise", "terminate"):
            raise OptionError(f"invalid illegal={illegal!r}: expected 'raise' or 'terminate'")
        if not is_int(seat) or not 0 <= seat <= 2:
            raise OptionError(f"invalid seat {seat!r}: expected 0, 1 or 2")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise OptionError(
                f"invalid render_mode {render_mode!r}: expected one of "
                f"{self.metadata['render_modes']} or None"
            )
        pair = opponents if isinstance(opponents, (list, tuple)) else [opponents, opponents]
        if len(pair) != 2:
            raise OptionError(
                f"invalid opponents {opponents!r}: expected one robot or a pair of robots"
            )
        if isinstance(pair[0], str) and pair[0] == pair[1]:
            robots = [_robot(pair[0]), _robot(pair[1])]  # two instances: own state each
        else:
            robots = [_robot(p) for p in pair]
        if obs_keys is not None and (
            isinstance(obs_keys, str) or len(obs_keys) != 2
            or not all(isinstance(k, str) for k in obs_keys) or obs_keys[0] == obs_keys[1]
        ):
            raise OptionError(
                f"invalid obs_keys {obs_keys!r}: expected None or two different key names "
                "(observation, mask)"
            )
        self.seat = int(seat)
        self.illegal = illegal
        self.render_mode = render_mode
        self.rules = make_rules(**rules)
        require_three(self.rules, "the single-agent env")
        # its spaces are volený's: the registry says which games it plays (GameError)
        game_kind(self.rules, front_end="single_agent")
        self.game = Game(self.rules, records=False)
        # robots[s] plays seat s; None for the learner.
        self.robots: list[Robot | None] = [None, None, None]
        for k, s in enumerate(s for s in range(3) if s != self.seat):
            self.robots[s] = robots[k]
        self._keys = tuple(obs_keys) if obs_keys is not None else None
        vec = spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32)
        if self._keys is None:
            self.observation_space = vec
        else:
            self.observation_space = spaces.Dict(
                {self._keys[0]: vec, self._keys[1]: spaces.Box(0, 1, (A.N_ACTIONS,), np.int8)}
            )
        # sample() draws a legal action (check_env and random exploration call it).
        self.action_space = LegalDiscrete(A.N_ACTIONS, self._legal_or_none)
        self._started = False

    # --- Gymnasium API ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, int]]:
        # Checked before Gymnasium's seeding, which takes no numpy ints and raises its own
        # error, and before anything is changed.
        seed = check_seed(seed)
        opts = reset_options(options, RESET_OPTIONS, strict=True)
        super().reset(seed=seed)
        # Without a seed the partie is still drawn from the env's seeded generator, so
        # reset(seed=s) followed by resets without a seed is reproducible.
        game_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        self.game.new_partie(
            seed=game_seed, deck=opts.get("deck"), dealer=opts.get("dealer", 0),
            cuts=opts.get("cuts"),
        )
        self._seed = game_seed
        self._started = True
        self._over = False
        self._new_deal()
        reward, ended, done = self._advance()
        while done:
            # The robots finished the whole partie without the learner (rare with
            # deals=1): there is nothing to learn from it, play the next one.
            self._seed = (self._seed * 1_000_003 + 1) % 2**31
            self.game.new_partie(seed=self._seed)
            self._new_deal()
            reward, ended, done = self._advance()
        # The robots alone may finish a deal before the learner's first decision; its
        # payment is carried into the first step rather than lost.
        self._pending = reward
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
            except IllegalActionError:
                self._over = True
                return self._obs(), -1.0, True, False, self._info(-1)
        reward = self._pending
        self._pending = 0.0
        ended, done = -1, False
        if game.step(action):  # raises before changing anything on a bad action
            reward += float(game.last_settlement["payments"][self.seat])
            ended = game.deal_no
            done = not self._next_deal()
        if not done:
            r, e, done = self._advance()
            reward += r
            ended = e if e >= 0 else ended
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, done, False, self._info(ended)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool[115]); all False once the episode is over."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        if self._over or self.game.deal_over or self.game.to_move != self.seat:
            return np.zeros(A.N_ACTIONS, dtype=bool)
        return self.game.legal_mask(self.seat).astype(bool)

    def _legal_or_none(self) -> np.ndarray | None:
        return self.action_masks() if self._started else None

    @property
    def last_settlement(self) -> dict[str, Any] | None:
        """The settlement of the deal that ended last (None before the first)."""
        return self.game.last_settlement

    def legal_labels(self) -> list[str]:
        """Labels of the learner's legal actions."""
        return [A.action_label(int(i)) for i in np.flatnonzero(self.action_masks())]

    def render(self) -> str | None:
        return render_for(self.game, self.render_mode)

    # --- internals --------------------------------------------------------------------
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
        while game.to_move != self.seat:
            seat = game.to_move
            robot = self.robots[seat]
            if robot.wants_view:
                a = robot.act_view(SeatView.from_game(game, seat))
            else:
                a = robot.act({"observation": game.observation(seat),
                               "action_mask": game.legal_mask(seat)})
            if game.step(int(a)):
                reward += float(game.last_settlement["payments"][self.seat])
                ended = game.deal_no
                if not self._next_deal():
                    return reward, ended, True
        return reward, ended, False

    def _obs(self) -> Any:
        vec = self.game.observation(self.seat)
        if self._keys is None:
            return vec
        mask = self.action_masks().astype(np.int8)
        return {self._keys[0]: vec, self._keys[1]: mask}

    def _info(self, ended: int) -> dict[str, int]:
        return {"deal": self.game.deal_no, "settlement_deal": ended}
