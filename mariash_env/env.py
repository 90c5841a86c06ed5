"""
# Volený mariáš

| | |
|---|---|
| Import | `import mariash_env; env = mariash_env.env()` |
| Actions | Discrete(115), one stable label per index |
| Parallel API | no (turn-based AEC) |
| Agents | `agents = ["player_0", "player_1", "player_2"]` |
| Observation shape | `{"observation": float32[900], "action_mask": int8[115]}` |
| State shape | float32[1031] (perfect information) |
| Reward | the groše of each deal, zero-sum |

Mariáš is the Czech three-player trick-taking game.  In each deal forehand
(forhont) picks trumps from its first seven cards, the players settle a
contract — a suit game, betl (take no trick) or durch (take every trick) — and
the stakes in flek rounds; then the actor plays alone against the two defenders.
This environment implements volený mariáš exactly as ``RULES.md`` of the
project fixes it: trump choice and *z lidu*, contract first then two discards,
"Barva?" good/bad, betl answered by durch, hra/sedma/sto/sto a sedma, the full
flek protocol up to boty with seven against and hundred against, deals that are
not played, strict trick legality, automatic marriages, laying the cards down,
settlement in groše, and the 12-deal partie in which the cards are gathered, cut
and dealt in blocks (never reshuffled) so that one deal shapes the next.

## Episodes and rewards
One episode is a partie of ``deals`` deals (12 by default; ``deals=1`` plays
single deals).  When a deal ends every agent is credited its payment in groše
(``RULES.md`` §9): the actor gets ``2A``, each defender ``-A``.  The next deal
then starts at once with the next agent to move; ``infos[agent]`` carries
``"phase"``, ``"deal"`` and, on the step a deal ends, ``"settlement"`` (every
bet with its level, outcome and amount, and the payments per seat).

## Actions
`action_label(i)`, `action_index(label)`, `legal_labels(agent)`; the labels
are listed in ``INTERFACE.md``: ``trump:<card>``, ``trump:blind``,
``contract:suit|betl|durch``, ``discard:<card>``, ``good``, ``bad``,
``announce:hra|sedma|sto|sto_sedma``, ``against:seven|hundred``,
``flek:game|seven|seven_against|hundred_against``, ``play:<card>``, ``lay_down``.
In a flek turn a player may take several ``flek:*``/``against:*`` actions and
ends its turn with ``good``.  An illegal action raises
:class:`~mariash_env.game.IllegalActionError` naming the label and the legal
labels (nothing is applied); ``env(illegal="terminate")`` instead ends the
episode with reward -1 for the offender (PettingZoo's ``TerminateIllegalWrapper``).

## Observations
A fixed-layout float32 vector per seat (see ``mariash_env.core.observe.OBS_LAYOUT``):
own hand, talon cards it laid or took, the trump card once it knows it, every
card played with who played it and in which trick, who led each trick, the
current trick, contract and announcement, every bet with its level, who raised
it and who announced it, marriages and each side's first, phase and seat roles,
points and tricks taken, the deal of the partie and the running groše.  It is a
perfect-recall information state and never shows a card the seat has not seen.
``state()`` adds all hidden cards (for centralized critics and search).

## Reset options
``env.reset(seed=..., options={"deck": [...], "dealer": d, "cuts": [...]})``:
``deck`` is the first deal's 32 cards from the top (codes like ``"Qh"`` or
indices), dealt as is; ``dealer`` the first dealer (0); ``cuts`` the cut of the
2nd, 3rd, … deal (otherwise drawn uniformly from 2..30 from the seeded
generator).  The same seed gives the same partie.

## Rules
Keyword arguments select the variants of ``RULES.md`` §11 (``tariff="csm"``,
``killed_seven=3``, ``max_flek=None``, ``payment_cap=500``,
``marriage_order="queen_first"``, ``shuffle="every_deal"``, ``deals=1``);
an unknown option or value raises :class:`~mariash_env.rules.RulesError`.

## Game records
``env.unwrapped.records`` holds one JSON-able record per finished deal;
``mariash_env.records.save_records(path, records)`` writes them as JSON lines
and ``python -m mariash_env.replay FILE.jsonl`` verifies a file.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import actions as A
from .core import state as S
from .core.observe import OBS_SIZE, STATE_OBS_SIZE
from .game import Game, IllegalActionError
from .render import render_table
from .rules import make_rules

AGENTS = ("player_0", "player_1", "player_2")


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, with the hot attributes forwarded directly.

    The stock wrapper reaches every attribute through two ``__getattr__`` hops,
    which costs more than a whole step of the engine.
    """

    def _live(self) -> AECEnv:
        if not self._has_reset:
            raise AttributeError("the environment must be reset before it is used")
        return self.env

    @property
    def agent_selection(self) -> str:
        return self._live().agent_selection

    @property
    def agents(self) -> list[str]:
        return self._live().agents

    @property
    def rewards(self) -> dict[str, float]:
        return self._live().rewards

    @property
    def terminations(self) -> dict[str, bool]:
        return self._live().terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self._live().truncations

    @property
    def infos(self) -> dict[str, dict]:
        return self._live().infos

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._live()._cumulative_rewards

    def last(self, observe: bool = True):
        return self._live().last(observe)


def env(render_mode: str | None = None, illegal: str = "raise", **rules: Any) -> AECEnv:
    """The wrapped environment (order enforcing; ``illegal="terminate"`` adds the penalty)."""
    if illegal not in ("raise", "terminate"):
        raise ValueError(f"invalid illegal={illegal!r}: expected 'raise' or 'terminate'")
    e: AECEnv = raw_env(render_mode=render_mode, **rules)
    if illegal == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    return _OrderEnforcing(e)


class raw_env(AECEnv):
    """Volený mariáš as a PettingZoo AEC environment (see the module documentation)."""

    metadata = {
        "name": "mariash_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, **rules: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"invalid render_mode {render_mode!r}: expected one of "
                f"{self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        self.rules = make_rules(**rules)
        self.game = Game(self.rules)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.agent_name_mapping = {a: i for i, a in enumerate(AGENTS)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (A.N_ACTIONS,), np.int8),
            }
        )
        act_space = spaces.Discrete(A.N_ACTIONS)
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: act_space for a in AGENTS}
        self.state_space = spaces.Box(-np.inf, np.inf, (STATE_OBS_SIZE,), np.float32)
        self._started = False

    # --- spaces (cached) --------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space:
        return self.action_spaces[agent]

    # --- labels -----------------------------------------------------------------------
    @staticmethod
    def action_label(index: int) -> str:
        return A.action_label(index)

    @staticmethod
    def action_index(label: str) -> int:
        return A.action_index(label)

    def _seat(self, agent: str | None) -> int:
        if agent is None:
            agent = self.agent_selection
        if agent not in self.agent_name_mapping:
            raise KeyError(f"unknown agent {agent!r}: expected one of {list(AGENTS)}")
        return self.agent_name_mapping[agent]

    def legal_labels(self, agent: str | None = None) -> list[str]:
        """Labels of the legal actions of ``agent`` (default: the agent to move)."""
        seat = self._seat(agent)
        if self.game.deal_over or seat != self.game.to_move:
            return []
        return self.game.legal_labels(seat)

    # --- AEC API ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        opts = dict(options or {})
        unknown = set(opts) - {"deck", "dealer", "cuts"}
        if unknown:
            # PettingZoo's api_test passes foreign options: warn rather than refuse.
            gymnasium.logger.warn(
                f"ignoring unknown reset option(s) {sorted(unknown)}: "
                "expected 'deck', 'dealer', 'cuts'"
            )
        self.game.new_partie(
            seed=seed, deck=opts.get("deck"), dealer=opts.get("dealer", 0), cuts=opts.get("cuts")
        )
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self._infos_extra = True
        self._set_infos(None)
        self.agent_selection = AGENTS[self.game.to_move]
        self._started = True

    def _set_infos(self, settlement: dict[str, Any] | None, deal: int | None = None) -> None:
        phase, deal_no = self.game.phase_name, self.game.deal_no
        if settlement is None and not self._infos_extra:
            for info in self.infos.values():  # the common case: update in place
                info["phase"] = phase
                info["deal"] = deal_no
            return
        info = {"phase": phase, "deal": deal_no}
        if settlement is not None:
            info["settlement"] = settlement
            info["settlement_deal"] = deal
        self.infos = {a: dict(info) for a in AGENTS}
        self._infos_extra = settlement is not None

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs, mask = self.game.observe(self._seat(agent))  # mask all zero unless to move
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        return self.game.full_state()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(
                f"{agent} is to move and must act: legal are {self.legal_labels(agent)}"
            )
        game = self.game
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for a in AGENTS:
            rewards[a] = 0.0
        ended = game.step(action)
        settlement = None
        deal = game.deal_no
        if ended:
            settlement = game.records[-1]["settlement"]
            for a, p in zip(AGENTS, settlement["payments"]):
                self.rewards[a] = float(p)
            if not game.next_deal():
                self.terminations = {a: True for a in AGENTS}
        self._set_infos(settlement, deal)
        if not game.deal_over:
            self.agent_selection = AGENTS[game.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # --- records and rendering --------------------------------------------------------
    @property
    def records(self) -> list[dict[str, Any]]:
        """Records of the deals finished in this episode (JSON-able dicts)."""
        return self.game.records

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: nothing to render")
            return None
        text = render_table(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


__all__ = ["env", "raw_env", "AGENTS", "IllegalActionError", "S"]
