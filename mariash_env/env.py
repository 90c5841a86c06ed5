"""
# Volený mariáš

| | |
|---|---|
| Import | `import mariash_env; env = mariash_env.env()` |
| Actions | Discrete(115), one stable label per index |
| Parallel API | `mariash_env.parallel_env()` (PettingZoo's conversion of the turn-based game) |
| Agents | `agents = ["player_0", "player_1", "player_2"]` (`players=4`: `player_3` too) |
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
then starts at once with the next agent to move.

## Infos
``infos[agent]`` holds three ints on every step: ``"phase"`` (an index into
:data:`PHASE_NAMES`: ``trump``, ``contract``, ``discard``, ``barva``,
``betl_answer``, ``announce``, ``flek``, ``play``, ``done``), ``"deal"`` (0-based
deal of the partie) and ``"settlement_deal"`` (the deal this step finished, ``-1``
on every other step); and, on the step a deal ends (INTERFACE.md),
``"settlement"``: every bet with its level, outcome and amount, and the payments
per seat.  Libraries that stack infos into tensors or buffers (Tianshou's, RLlib's)
want one key set of ints on every step: ``env(stack_infos=True)`` leaves the
settlement out, and it stays in ``env.unwrapped.last_settlement`` (the deal that
finished last) and in the deal's record (``env.unwrapped.records[-1]["settlement"]``).
``env(rich_infos=True)`` names the phase instead (``"phase": "play"``) and holds only
``"phase"`` and ``"deal"`` but on the step a deal ends, which carries
``"settlement_deal"`` and the settlement as well.  Licitovaný's infos name its phases by default, as
LICITOVANY.md §12 does (``auction``, ``announce``, ``flek``, ``play``, and ``done``
once the partie is over); ``stack_infos=True`` gives the engine's index there too.

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
episode with reward -1 for the offender (as PettingZoo's ``TerminateIllegalWrapper``).
Both modes parse actions alike (labels in any card case, ints and numpy ints,
out-of-range ints, ``None``): what the default rejects with ``IllegalActionError``
the terminate mode punishes; an unknown label raises ``ActionError`` in both.

## Observations
A fixed-layout float32 vector per seat (see ``mariash_env.games.voleny.observe.OBS_LAYOUT``):
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
generator).  The same seed gives the same partie; later ``reset()`` calls without a seed
continue the generator ``reset(seed=s)`` seeded (the same calls give the same parties in
any process), and with no seed ever given a reset draws fresh entropy.  ``seed`` is an
int >= 0 or None and
``options`` a dict or None (:class:`~mariash_env.game.OptionError` otherwise; an unknown
key is warned about and ignored); the deck must be ordered (a list, tuple or 1-D array: a
set raises :class:`~mariash_env.cards.DeckTypeError`, a ``CardError`` and ``TypeError``).

## Options for other libraries
``env(mask_in_info=True)`` also puts the mask in ``infos[agent]["action_mask"]``
(:class:`MaskInInfo`, AgileRL's convention); ``env(flat_obs=True)`` answers the
observation vector as a ``Box`` with the mask in ``infos`` (:class:`FlatObs`, for
SuperSuit's observation wrappers; ``obs_clip=c`` bounds it to ``[-c, c]``).
``rules="lizany"`` gives two-player lízaný's own env (:mod:`mariash_env.games.lizany.game`)
under the same wrappers.  ``docs/pitfalls.md`` has each library's pitfalls.

## Rules
Keyword arguments select the variants of ``RULES.md`` §11 (``tariff="csm"``,
``killed_seven=3``, ``max_flek=None`` (unlimited, bounded at level 24),
``payment_cap=500``, ``marriage_order="queen_first"``, ``shuffle="every_deal"``,
``deals=1`` up to ``deals=1_000_000``); an unknown option, a value of the wrong type
(``killed_seven=2.0``) or out of range raises :class:`~mariash_env.rules.RulesError`.

``open_contracts=True`` (the English rules guide, ``RULES.md`` §11.1) adds open betl and open durch
(``contract:open_betl``, ``contract:open_durch``) above durch: forehand and a *bad*
may name them, and any no-trump contract but open durch is answered *good* or with a
higher one, which takes the talon and is answered again.  They are played and flekked
as betl and durch and cost twice their price; once the first trick is complete the
actor's remaining cards are in every seat's observation (slots 21..52 of the
``raised_by`` block, which no betl or durch uses; slot 53 marks the open contract, so
the layout and ``OBS_VERSION`` stay those of the other rules).  It conflicts with
``tariff="csm"`` (no open contracts there) and is a volený option only.

``hundred_counting="order_free"`` (the program's rules, ``RULES.md`` §11.2): a hundred counts the
card points plus 40 with the trump marriage, else 20 with any, whatever the order of
play, and all other marriages once that reaches 100; hundreds are priced
multiplicatively (won ``4·2^((P−100)/10)``, lost ``4·2^(max(0, Q−40)/10)``, silent
``2^(1+(P−100)/10)``).  A volený option only.  ``docs/variants.md`` has worked examples.

## Four players
``env(players=4)`` (the English rules guide, ``RULES.md`` §11.3) seats four agents ``player_0`` ..
``player_3`` (seats 0–3 clockwise).  The dealer ``d`` sits out the deal: no cards, no
actions, never ``agent_selection`` (it stays in ``agents``, its mask is all zero and
``legal_labels`` empty); ``(d+1)%4`` is forehand and ``(d+2)%4``, ``(d+3)%4`` play
middlehand and the dealer's role of the three-player deal, which is played exactly.
The dealer pays or collects with the defence: the actor gets ``3A``, each of the other
three ``-A`` (``payment_cap`` caps ``A``; zero-sum).  The deal passes to the left and a
partie is 16 deals (each player deals four times) unless ``deals=`` says otherwise;
``reset(options={"dealer": d})`` takes ``d`` in 0..3; the settlement has four
``payments`` and ``sitting_out``.  The observation is float32[924]
(:mod:`mariash_env.games.voleny.observe4`, versioned): the three-player observation of the deal
from the player's seat (the sitting-out dealer's shows no hidden card), then who sits
out, the four totals and the deal, by relative player; ``state()`` float32[1055].  It
conflicts with ``rules="licitovany"`` (:class:`~mariash_env.rules.RulesError`).

## Licitovaný mariáš
``env(rules="licitovany")`` plays the desetník table's auction game (``LICITOVANY.md``) in
the same engine: its own ``Discrete(136)`` action table (``bid:<game>``, ``hold``,
``pass``, ``fold``, ``game:<game>``, ``trump:b|l|a``, ``helping:<suit>``,
``discard:<card>``, ``lead:<card>``, ``flek:game|seven|hundred|two_sevens``, ``good``,
``show``, ``play:<card>``; :mod:`mariash_env.games.licitovany.actions`), its own perfect-recall
observation (float32[1016], :mod:`mariash_env.games.licitovany.observe`; the state float32[1147])
and rewards in desetníky.  Its options are ``deals``, ``max_flek`` (5), ``payment_cap``
(500), ``marriage_order`` and ``shuffle``; volený's others raise ``RulesError``.  With
``rich_infos=True`` its ``"phase"`` is ``auction``, ``announce``, ``flek``, ``play`` or
``done`` and the settlement lists every component with its level, outcome and amount,
the net before the cap and any laid-game transfer.

## Game records
``env.unwrapped.records`` holds one JSON-able record per finished deal of the
episode (about 1.1 KB each as a JSON line under random play, 1.5 KB between table
robots: docs/environment.md); ``mariash_env.records.save_records(path, records)``
writes them as JSON lines and ``python -m mariash_env.replay FILE.jsonl``
verifies a file.  ``env(records=False)`` keeps no records and ``env(records=N)``
keeps the last ``N`` (a ``collections.deque``), for long parties; rewards and
``infos`` are the same either way.

## Names
``env.metadata["name"]`` is the game's PettingZoo name, its ``GameKind.env_name``:
``mariash_v0`` for volený (at three and at four players), ``mariash_licitovany_v0`` for
licitovaný and ``mariash_lizany_v0`` for lízaný; the parallel env carries the same.
``str(env())`` is that name, as PettingZoo's classic envs print theirs (before and after
``reset``; ``illegal="terminate"`` too, as PettingZoo's own wrapper); the wrappers that
change what the env answers show around it (``FlatObs<mariash_v0>``,
``MaskInInfo<mariash_v0>``), as PettingZoo's and SuperSuit's wrappers do.  ``repr`` is
Python's default, as PettingZoo's.

## Infos and the end of an episode
Every step gives each agent a fresh ``infos`` dict of its own (made when first read:
``last()`` makes only the mover's), so an info returned by ``last()`` never changes
afterwards and changing one agent's (its settlement too) changes no other's, nor the
deal's record.  Once every agent is done,
``last()`` answers the final observation, reward 0, the termination flags and the final
info of ``agent_selection``; ``observe()``, ``last()`` and ``state()`` before ``reset()``
raise :class:`AttributeError` ("must be reset").
"""

from __future__ import annotations

import copy
import functools
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from .copies import independent_copy
from .core.engine import SO_DEAL as _SO_DEAL
from .core.engine import SO_NEXT as _SO_NEXT
from .core.engine import SO_PHASE as _SO_PHASE
from .core.engine import step_observe as _step_observe
from .core.state import DEAL_NO as _DEAL_NO
from .core.state import PHASE as _PHASE
from .core.state import PHASE_NAMES
from .game import (
    _PLAIN_INTS,
    RESET_OPTIONS,
    EpisodeSeeds,
    Game,
    IllegalActionError,
    OptionError,
    check_render_mode,
    reset_options,
)
from .games.base import GameKind
from .games.registry import games
from .kinds import LICITOVANY
from .render import render_for
from .rules import RulesError, check_game_options, make_rules
from .spaces import AgentSpaces, LegalDiscrete

AGENTS = ("player_0", "player_1", "player_2")
"""The agents at the three-player table, player ``i`` in seat ``i``."""
AGENTS4 = (*AGENTS, "player_3")
"""The agents at the four-player table (``players=4``)."""

# Licitovaný's phases as LICITOVANY.md §12 names them in rich infos (its GameKind's).
LICIT_PHASE_GROUPS = dict(LICITOVANY.phase_groups)

_empty, _F32, _I8 = np.empty, np.dtype(np.float32), np.dtype(np.int8)
_SO_LOW = (1 << _SO_DEAL) - 1  # step_observe's bits below the deal


def _json_copy(d: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON-like dict (dicts and lists of scalars) that shares no dict or list
    with it; a tenth of ``copy.deepcopy``'s time (a settlement is copied once a deal)."""
    out = d.copy()
    for k, v in d.items():
        t = type(v)
        if t is dict:
            out[k] = _json_copy(v)
        elif t is list:
            out[k] = _json_list_copy(v)
    return out


def _json_list_copy(v: list[Any]) -> list[Any]:
    return [_json_copy(x) if type(x) is dict else _json_list_copy(x) if type(x) is list
            else x for x in v]


class _SettledInfo(dict):
    """The infos' template on the step a deal ends: each agent's copy of it (``copy()``,
    as the plain template of any other step is copied) holds a settlement of its own, so
    that an edit of one agent's changes no other's, nor the deal's record or
    ``last_settlement``.  Only an info read pays for its copy (last() reads the mover's)."""

    __slots__ = ()

    def copy(self) -> dict[str, Any]:  # type: ignore[override]
        info = dict(self)
        info["settlement"] = _json_copy(info["settlement"])
        return info


class _UpdateFlag:
    """Where an order-enforcing wrapper keeps PettingZoo's ``_has_updated`` flag (whether
    step() or reset() came since the agent iterator last moved on)."""

    __slots__ = ("_has_updated",)


class _OrderIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the wrapped env directly."""

    def __init__(self, env: _OrderEnforcing, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._inner, self._flag = env.env, env._flag

    def __next__(self) -> str:
        inner = self._inner
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        flag = self._flag
        assert flag._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        flag._has_updated = False
        return inner.agent_selection


class _OrderIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _OrderIterator:
        return _OrderIterator(self.env, self.max_iter)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, with the hot attributes forwarded directly.

    The stock wrapper reaches every attribute through two ``__getattr__`` hops,
    which costs more than a whole step of the engine.  Around :class:`raw_env` itself
    (no other wrapper between) ``last`` and, once reset, ``step`` are the raw env's own,
    one Python call less a decision: raw_env's ``_step_in_order`` keeps the
    ``_has_updated`` flag and warns of a step after the episode as this wrapper's step
    does.
    """

    __copy__ = independent_copy  # copy.copy too: not a second wrapper over the same env

    def __init__(self, env: AECEnv) -> None:
        direct = type(env) is raw_env
        self._flag = env if direct else _UpdateFlag()  # set before PettingZoo's __init__
        super().__init__(env)
        self._direct = direct

    @property
    def _has_updated(self) -> bool:  # type: ignore[override]
        return self._flag._has_updated

    @_has_updated.setter
    def _has_updated(self, value: bool) -> None:
        self._flag._has_updated = value

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        was_reset = self._has_reset
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            # the env is as it was (no partie if none before): PettingZoo's wrapper took it
            # for reset, and step() and agent_selection failed on raw_env's missing fields
            self._has_reset = was_reset
            raise
        self._bind_raw()

    def __str__(self) -> str:
        # PettingZoo's own order enforcing prints the env it wraps (connect_four_v3.env()
        # prints "connect_four_v3", before and after reset); a subclass printed its class
        # name around it ("_OrderEnforcing<mariash_v0>").
        return str(self.env)

    def _bind_raw(self) -> None:
        if self._direct:  # from now on the raw env's (see the class documentation)
            env = self.env
            self.last, self.step = env.last, env._step_in_order  # type: ignore[method-assign]

    def __getstate__(self) -> dict[str, Any]:
        # The bound last/step are bound again on the copy's raw env (__setstate__): pickle
        # would look the step up by its function's name, ``step`` -- raw_env's own, which
        # keeps no _has_updated flag (agent_iter's assertion) and raises after the episode.
        state = self.__dict__.copy()
        state.pop("last", None)
        state.pop("step", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._has_reset:
            self._bind_raw()

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

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("the environment must be reset before it is used")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        # The stock step, without its hops through BaseWrapper.step and self.agents.
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> _OrderIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderIterable(self, max_iter)

    # Before reset, observe() and state() raise as last() does (AttributeError).
    def observe(self, agent: str):
        return self._live().observe(agent)

    def state(self) -> np.ndarray:
        return self._live().state()


class _TerminateIllegal(wrappers.BaseWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` on the environment's own action parsing.

    An action is judged exactly as in the default mode (labels, numpy ints, out-of-range
    ints, ``None``); where the default raises :class:`IllegalActionError` this ends the
    episode with ``illegal_reward`` for the offender instead.  An unknown label still
    raises :class:`~mariash_env.actions.ActionError`: it is no action at all.
    """

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env)
        self._illegal_reward = float(illegal_reward)

    def step(self, action: Any) -> None:
        raw = self.env.unwrapped
        try:
            self.env.step(action)  # raw_env.step changes nothing when it raises
        except IllegalActionError:
            agent = raw.agent_selection
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0.0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.agents, 0.0)
            raw.rewards[agent] = self._illegal_reward
            raw._accumulate_rewards()
            raw._deads_step_first()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.env.last(observe)

    def __str__(self) -> str:
        return str(self.env)  # as PettingZoo's TerminateIllegalWrapper: the env's name


class MaskInInfo(wrappers.BaseWrapper):
    """``infos[agent]["action_mask"]`` for every live agent (AgileRL and others read the
    mask there): the legal actions of the agent to move, all zero for the others, beside
    the mask of the Dict observation.  The infos are built once a step (``last()`` and
    ``infos`` answer the same dicts and arrays) and fresh after it: an info once returned
    never changes."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        n = env.action_space(env.possible_agents[0]).n
        self._n = int(n)
        self._infos: dict[str, dict] | None = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._infos = None
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self.env.step(action)  # an action refused changes nothing: the infos stand
        self._infos = None

    def _mask(self, agent: str) -> np.ndarray:
        raw = self.env.unwrapped
        if (agent != raw.agent_selection or raw.terminations.get(agent, True)
                or raw.truncations.get(agent, True)):
            return np.zeros(self._n, dtype=np.int8)
        return raw.game.legal_mask(raw.agent_name_mapping[agent])

    @property
    def infos(self) -> dict[str, dict]:
        if self._infos is None:
            self._infos = {a: {**info, "action_mask": self._mask(a)}
                           for a, info in self.env.infos.items()}
        return self._infos

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, term, trunc, info = self.env.last(observe)
        agent = self.agent_selection
        infos = self.infos
        if agent in infos:
            return obs, reward, term, trunc, infos[agent]
        return obs, reward, term, trunc, {**info, "action_mask": self._mask(agent)}


class FlatObs(MaskInInfo):
    """The observation vector alone, as a ``Box`` (SuperSuit's ``flatten_v0``,
    ``dtype_v0``, ``normalize_obs_v0``, ``frame_stack_v1`` and others take no Dict), the
    mask in ``infos[agent]["action_mask"]``; ``action_space(agent).sample()`` draws a legal
    action.  ``obs_clip=c`` declares the bounds ``[-c, c]`` and clips to them (the running
    totals are unbounded; ``normalize_obs_v0`` wants finite bounds)."""

    def __init__(self, env: AECEnv, obs_clip: float | None = None) -> None:
        super().__init__(env)
        if obs_clip is not None and (isinstance(obs_clip, (bool, np.bool_))
                                     or not isinstance(obs_clip, (int, float, np.number))
                                     or not 0 < float(obs_clip) < np.inf):
            raise OptionError(f"invalid obs_clip={obs_clip!r}: expected a finite number > 0 "
                              "or None")
        self._clip = None if obs_clip is None else float(obs_clip)
        inner = env.observation_space(env.possible_agents[0])["observation"]
        if self._clip is None:
            box = inner
        else:
            low = np.maximum(inner.low, -self._clip).astype(np.float32)
            high = np.minimum(inner.high, self._clip).astype(np.float32)
            box = spaces.Box(low, high, inner.shape, np.float32)
        self._box = box
        self._act_spaces = AgentSpaces({a: LegalDiscrete(self._n, self._legal_of(a))
                                        for a in env.possible_agents})

    def _legal_of(self, agent: str) -> Any:
        def legal() -> np.ndarray | None:
            try:
                return self._mask(agent)
            except AttributeError:  # before reset
                return None
        return legal

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A copy (deepcopy, pickle) copied the action spaces as plain Discretes: they
        # sample this copy's legal actions again.
        self.__dict__.update(state)
        self._act_spaces = AgentSpaces({a: LegalDiscrete.bound(s, self._legal_of(a))
                                        for a, s in self._act_spaces.items()})

    # PettingZoo's dict attributes: the inner env's (the Dict observation, a plain
    # Discrete) would otherwise show through BaseWrapper's attribute lookup.
    @property
    def observation_spaces(self) -> AgentSpaces:
        return AgentSpaces(dict.fromkeys(self._act_spaces, self._box))

    @property
    def action_spaces(self) -> AgentSpaces:
        return self._act_spaces

    def observation_space(self, agent: str) -> gymnasium.Space:
        self._act_spaces[agent]  # an unknown agent: KeyError naming the agents
        return self._box

    def action_space(self, agent: str) -> gymnasium.Space:
        return self._act_spaces[agent]

    def _flat(self, obs: dict[str, np.ndarray] | None) -> np.ndarray | None:
        if obs is None:
            return None
        vec = obs["observation"]
        return vec if self._clip is None else np.clip(vec, self._box.low, self._box.high)

    def observe(self, agent: str) -> np.ndarray | None:
        return self._flat(self.env.observe(agent))

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, term, trunc, info = super().last(observe)
        return self._flat(obs), reward, term, trunc, info


@functools.cache
def _decoded_table(agents: tuple[str, ...], phase_names: tuple[Any, ...] | None
                   ) -> tuple[tuple[str | None, Any], ...]:
    """step_observe's low bits (the player to move next, the phase) -> (agent, the infos'
    phase), one table for every env of these agents and phase names."""
    return tuple(
        (agents[n] if n < len(agents) else None,
         p if phase_names is None else phase_names[p])
        for c in range(_SO_LOW + 1)
        for n, p in [((c >> _SO_NEXT) & 3, (c >> _SO_PHASE) & 15)])


def _own_env(rules: dict[str, Any]) -> GameKind | None:
    """The registered kind of ``rules``' game when it has an AEC env of its own (lízaný),
    else None (the three-seat engine's env; an unknown game fails in make_rules)."""
    name = rules.get("rules", "voleny")
    return next((k for k in games("aec") if k.name == name and k.aec), None)


def _own_raw(kind: GameKind, render_mode: str | None, rules: dict[str, Any], records: Any,
             rich_infos: bool, stack_infos: bool = False) -> AECEnv:
    """The game's own AEC env (``kind.aec``); RulesError naming an option it does not
    take."""
    if records is not True or rich_infos:
        raise RulesError(f"records= and rich_infos= do not apply to rules={kind.name!r} (one "
                         "deal: its record is env.unwrapped.record)")
    check_game_options(kind, rules)
    return kind.load("aec")(render_mode=render_mode, stack_infos=stack_infos)


def env(
    render_mode: str | None = None,
    illegal: str = "raise",
    records: bool | int = True,
    rich_infos: bool = False,
    stack_infos: bool = False,
    mask_in_info: bool = False,
    flat_obs: bool = False,
    obs_clip: float | None = None,
    **rules: Any,
) -> AECEnv:
    """The wrapped environment (order enforcing; ``illegal="terminate"`` adds the penalty).

    ``records``: keep every deal's record (True, the default), none (False) or the last
    ``N`` (an int >= 1); ``stack_infos``: ``infos`` the same three ints on every step, the
    settlement left out; ``rich_infos``: the phase by name (see the module
    documentation).  ``mask_in_info``: the mask in ``infos[agent]["action_mask"]`` too
    (:class:`MaskInInfo`); ``flat_obs``: the observation vector as a Box, the mask in
    ``infos`` (:class:`FlatObs`, ``obs_clip`` its bounds).  ``rules="lizany"`` is
    lízaný's env under the same wrappers.
    """
    if not isinstance(illegal, str) or illegal not in ("raise", "terminate"):
        raise ValueError(f"invalid illegal={illegal!r}: expected 'raise' or 'terminate'")
    for name, flag in (("mask_in_info", mask_in_info), ("flat_obs", flat_obs)):
        if not isinstance(flag, (bool, np.bool_)):
            raise OptionError(f"invalid {name}={flag!r}: expected True or False")
    if obs_clip is not None and not flat_obs:
        raise OptionError(f"obs_clip={obs_clip!r} bounds the flat observation: it needs "
                          "flat_obs=True")
    e: AECEnv
    own = _own_env(rules)
    if own is not None:
        e = _own_raw(own, render_mode, rules, records, rich_infos, stack_infos)
    else:
        e = raw_env(render_mode=render_mode, records=records, rich_infos=rich_infos,
                    stack_infos=stack_infos, **rules)
    if illegal == "terminate":
        e = _TerminateIllegal(e, illegal_reward=-1)
    if flat_obs:
        e = FlatObs(e, obs_clip=obs_clip)
    elif mask_in_info:
        e = MaskInInfo(e)
    return _OrderEnforcing(e)


def parallel_env(render_mode: str | None = None, **kwargs: Any) -> ParallelEnv:
    """PettingZoo's parallel API over the turn-based game (INTERFACE.md), for every game:
    :func:`env` (same keywords) through ``turn_based_aec_to_parallel``.  Each step takes
    one action per live agent and applies that of the agent to move (the others' are
    ignored; their masks are all zero); ``infos[agent]["active_agent"]`` names the next
    (``stack_infos=True``: its index in ``possible_agents``, an int as every value then)."""
    return _TurnBasedParallel(env(render_mode=render_mode, **kwargs))


class _TurnBasedParallel(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based conversion, whose ``step`` reads the mover's action from a
    dict: anything else, or a dict without it, was a bare KeyError/TypeError; here it is
    an :class:`IllegalActionError` naming the agent to move (nothing applied).  Every info
    names ``active_agent``, from ``reset`` on, in dicts of its own (PettingZoo's wrote it
    into the AEC env's); with ``stack_infos=True`` it is the agent's index in
    ``possible_agents``, so that every value is an int; a step after the episode raises
    ``RuntimeError`` (PettingZoo's answered four empty dicts, not the API's five
    values)."""

    __copy__ = independent_copy  # copy.copy too: not a second wrapper over the same env

    def __getattr__(self, name: str) -> Any:
        # Only a name not found otherwise: ``agents`` before the first reset (PettingZoo's
        # wrapper sets it there), which was "object has no attribute 'agents'" from
        # agents, num_agents (a property that reads it: its AttributeError comes here) and
        # step; now the AEC env's words.
        if name in ("agents", "num_agents"):
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple:
        observations, infos = super().reset(seed=seed, options=options)
        return observations, self._named(infos)

    def _named(self, infos: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Each live agent's info, copied, with the agent to move: its name, or with
        ``stack_infos=True`` its index in ``possible_agents`` (every value an int, as the
        libraries that stack infos want them)."""
        mover, live = self.aec_env.agent_selection, self.aec_env.agents
        active: str | int = mover
        if self.aec_env.unwrapped.stack_infos:
            active = self.possible_agents.index(mover)
        return {a: ({**i, "active_agent": active} if a in live else i)
                for a, i in infos.items()}

    def step(self, actions: Any) -> tuple:
        if "agents" not in self.__dict__:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the episode is over: call reset() to start a new one")
        aec = self.aec_env
        mover = aec.agent_selection
        if not isinstance(actions, Mapping):
            raise IllegalActionError(
                f"actions must be a dict of agent -> action (the parallel API), got "
                f"{type(actions).__name__}; {mover} is to move")
        unknown = sorted(str(a) for a in actions if a not in self.possible_agents)
        if unknown:
            raise IllegalActionError(f"actions: unknown agent(s) {unknown}: expected "
                                     f"among {self.possible_agents}")
        if mover not in actions:
            raise IllegalActionError(
                f"actions has no action for {mover}, the agent to move (the others' "
                f"are ignored); got actions for {sorted(map(str, actions))}")
        aec.step(actions[mover])
        rewards, infos = {**aec.rewards}, {**aec.infos}
        terminations, truncations = {**aec.terminations}, {**aec.truncations}
        observations = {agent: aec.observe(agent) for agent in aec.agents}
        while aec.agents and (aec.terminations[aec.agent_selection]
                              or aec.truncations[aec.agent_selection]):
            aec.step(None)  # the finished agents' turns (nothing else changes)
        self.agents = aec.agents
        return observations, rewards, terminations, truncations, self._named(infos)


def _step_function(ordered: bool) -> Callable[[raw_env, Any], None]:
    """raw_env's step; with ``ordered`` the order-enforcing wrapper's as well (its flag, and
    its warning of a step after the episode where raw_env raises), which _OrderEnforcing
    binds in place of its own: one function body, no Python call more on the hot path."""

    def step(self: raw_env, action: Any) -> None:
        """Apply ``action`` of the agent to move (PettingZoo's ``step``)."""
        if ordered:  # as _OrderEnforcing.step: its flag; a warning after the episode
            self._has_updated = True
            if not self.agents:
                EnvLogger.warn_step_after_terminated_truncated()
                return
        try:
            agent = self.agent_selection
        except AttributeError:  # never reset (a try costs nothing on the hot path)
            raise AttributeError("the environment must be reset before it is used") from None
        term = self.terminations.get(agent)
        if term is None:
            raise RuntimeError("the episode is over: call reset() to start a new one")
        if term or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        if type(action) in _PLAIN_INTS and 0 <= (a := int(action)) < self._n_actions:
            # The hot path (the AEC loop's index): check, apply and observe the player to
            # move next in one compiled call, the observation kept for last(); the general
            # path below does the same in separate steps.
            out, mask = _empty(self._obs_size, _F32), _empty(self._n_actions, _I8)
            # Game.step's bookkeeping (the deal's start, history, settlement and record)
            # around the compiled call, kept here alone (its only caller); the code's fields
            # as literals: bit 0 SO_ENDED, bits 1-2 the mover (SO_MOVER)
            history = game.history
            if not history:
                game._deal_starts()
            code = _step_observe(game.st, game.rv, a, out, mask)
            if code >= 0:
                history.append(((code >> 1) & 3, a))
                if code & 1:
                    game._deal_ended()
            if code >= 0 and not code & 1:  # legal, and the deal goes on
                self._cumulative_rewards[agent] = 0.0
                if self._paid:
                    self._unpay()
                nxt, phase = self._decoded[code & _SO_LOW]
                self._infos = {}  # _set_infos(None), inlined
                self._info_template = (
                    {"phase": phase, "deal": code >> _SO_DEAL} if self.rich_infos else
                    {"phase": phase, "deal": code >> _SO_DEAL, "settlement_deal": -1})
                self.agent_selection = nxt
                st = game.st
                self._pending = (nxt, {"observation": out, "action_mask": mask}, st, game.rv,
                                 st.tobytes())
                if self.render_mode == "human":
                    self.render()
                return
            # the deal ended (settled); not legal: step raises the error naming the legal
            # actions, before changing anything
            ended = True if code >= 0 else game.step(action)
        elif action is None:
            raise IllegalActionError(
                f"{agent} is to move and must act: legal are {self.legal_labels(agent)}"
            )
        else:
            ended = game.step(action)  # raises before changing anything on a bad action
        self._pending = None
        agents = self._agents
        self._cumulative_rewards[agent] = 0.0
        if self._paid:
            self._unpay()
        if not ended:
            self._set_infos(None)
            self.agent_selection = agents[game.to_move]
            if self.render_mode == "human":
                self.render()
            return
        deal = game.deal_no  # the deal that ended (before next_deal)
        settlement = game.last_settlement
        for a, p in zip(agents, settlement["payments"]):
            self.rewards[a] = float(p)
        self._paid = True
        # the next deal in one compiled call with its first observation, kept for last()
        out, mask = _empty(self._obs_size, _F32), _empty(self._n_actions, _I8)
        code = game.next_deal_observe(out, mask)
        if code < 0:
            self.terminations = {a: True for a in agents}
        self._set_infos(settlement, deal)
        if code >= 0 and not code & 1:
            nxt = self.agent_selection = agents[(code >> _SO_NEXT) & 3]
            st = game.st
            self._pending = (nxt, {"observation": out, "action_mask": mask}, st, game.rv,
                             st.tobytes())
        elif not game.deal_over:
            self.agent_selection = agents[game.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    return step


class raw_env(AECEnv):
    """Every game as a PettingZoo AEC environment, unwrapped (see the module documentation):
    volený (the default, ``players=4`` at four), licitovaný (``rules="licitovany"``);
    ``rules="lizany"`` returns lízaný's own environment class
    (:class:`mariash_env.games.lizany.game.raw_env`)."""

    metadata = {
        "name": "mariash_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    __copy__ = independent_copy  # copy.copy too: a shallow copy would share the Game

    def __deepcopy__(self, memo: dict[int, Any]) -> raw_env:
        # The decoding table is immutable and shared by every env of these agents and
        # phase names: a copy of its 512 entries was most of a copy's time (0.57 ms, not
        # 0.1).  Everything else is copied as Python would.
        memo[id(self._decoded)] = self._decoded
        new = object.__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __new__(cls, render_mode: str | None = None, records: bool | int = True,
                rich_infos: bool = False, stack_infos: bool = False, **rules: Any) -> AECEnv:
        # raw_env(rules="lizany") is lízaný's own env class (its own core, not the shared engine).
        own = _own_env(rules)
        if own is not None:
            return _own_raw(own, render_mode, rules, records, rich_infos, stack_infos)
        return super().__new__(cls)

    def __init__(
        self,
        render_mode: str | None = None,
        records: bool | int = True,
        rich_infos: bool = False,
        stack_infos: bool = False,
        **rules: Any,
    ) -> None:
        super().__init__()
        check_render_mode(render_mode, self.metadata["render_modes"])
        for name, flag in (("rich_infos", rich_infos), ("stack_infos", stack_infos)):
            if not isinstance(flag, (bool, np.bool_)):
                raise OptionError(f"invalid {name}={flag!r}: expected True or False")
        if rich_infos and stack_infos:
            raise OptionError("rich_infos=True and stack_infos=True contradict each other: "
                              "rich infos hold the settlement and the phase by name, stacked "
                              "ones only ints")
        self.rich_infos, self.stack_infos = bool(rich_infos), bool(stack_infos)
        self.render_mode = render_mode
        self.rules = make_rules(**rules)
        self.game = game = Game(self.rules, records=records)
        self._agents = agents = AGENTS4 if game.four else AGENTS
        self.possible_agents = list(agents)
        self.agents = list(agents)
        self.agent_name_mapping = {a: i for i, a in enumerate(agents)}
        self.kind = kind = game.kind
        # PettingZoo's name of the env, the game's own (licitovaný's mariash_licitovany_v0;
        # the class's mariash_v0 is volený's, at three and at four)
        self.metadata = {**type(self).metadata, "name": kind.env_name}
        # The infos' phase names by the engine's index, None: the index itself.  rich_infos
        # names every phase; a game whose rules name the phases of its infos (LICITOVANY.md
        # §12: "auction", "announce", "flek", "play") does so by default; stack_infos keeps
        # the index, one int key set for the libraries that stack infos.
        groups = dict(kind.phase_groups)
        self._phase_names = None if stack_infos or not (groups or rich_infos) else tuple(
            groups.get(n, n) for n in PHASE_NAMES)
        low, high = kind.obs_bounds
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (game.obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (kind.n_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(kind.n_actions)
        self.observation_spaces = AgentSpaces({a: obs_space for a in agents})
        self.action_spaces = AgentSpaces({a: act_space for a in agents})
        self.state_space = spaces.Box(low, high, (game.state_obs_size,), np.float32)
        self._started = False
        self._has_updated = False  # the order-enforcing wrapper's flag (_OrderEnforcing)
        self._info_template: dict[str, Any] | None = None
        self._n_actions, self._obs_size = kind.n_actions, game.obs_size
        self._decoded = _decoded_table(tuple(agents), self._phase_names)
        # The observation step() wrote for the player to move next, handed out by the next
        # last() while the state is the one it was made from: (agent, observation dict,
        # state array, rules vector, state bytes) or None.
        self._pending: tuple[str, dict[str, np.ndarray], np.ndarray, np.ndarray,
                             bytes] | None = None
        self._seeds = EpisodeSeeds()

    # --- spaces (cached) --------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space:
        return self.action_spaces[agent]

    # --- labels -----------------------------------------------------------------------
    def action_label(self, index: int) -> str:
        """The label of an action index of this game's table."""
        return self.kind.action_label(index)

    def action_index(self, label: str) -> int:
        """The index of a label of this game's table (ActionError for an unknown one)."""
        return self.kind.action_index(label)

    def _check_reset(self) -> None:
        if not self._started:
            raise AttributeError("the environment must be reset before it is used")

    def _seat(self, agent: str | None) -> int:
        self._check_reset()
        if agent is None:
            agent = self.agent_selection
        if agent not in self.agent_name_mapping:
            raise KeyError(f"unknown agent {agent!r}: expected one of {list(self._agents)}")
        return self.agent_name_mapping[agent]

    def legal_labels(self, agent: str | None = None) -> list[str]:
        """Labels of the legal actions of ``agent`` (default: the agent to move)."""
        seat = self._seat(agent)
        if self.game.deal_over or seat != self.game.to_move:
            return []
        return self.game.legal_labels(seat)

    # --- AEC API ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        opts = reset_options(options, RESET_OPTIONS)
        # reset(seed=s) plays seed s; later unseeded resets continue its generator.
        with self._seeds.drawn(seed) as partie_seed:
            self.game.new_partie(seed=partie_seed, deck=opts.get("deck"),
                                 dealer=opts.get("dealer", 0), cuts=opts.get("cuts"))
        agents = self._agents
        self.agents = list(agents)
        self.rewards = {a: 0.0 for a in agents}
        self._paid = False  # whether a reward is not 0 (step resets them only then)
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self._set_infos(None)
        self._gone: dict[str, tuple[bool, bool, dict[str, Any]]] = {}
        self.agent_selection = agents[self.game.to_move]
        self._pending = None
        self._started = True

    def _set_infos(self, settlement: dict[str, Any] | None, deal: int = -1) -> None:
        # One template a step; each agent's info is a fresh copy of it, made when first read
        # (last() reads only the mover's): an info once returned never changes afterwards,
        # and no agent's info is another's.
        st = self.game.st  # (Game.phase and Game.deal_no, inlined: the hot path)
        phase, deal_no = st.item(_PHASE), st.item(_DEAL_NO)
        if self._phase_names is not None:  # named (licitovaný: LICITOVANY.md §12's names)
            phase = self._phase_names[phase]
        if not self.rich_infos:
            # The same int keys on every step (libraries stack them); no nested dicts.
            if settlement is None or self.stack_infos:
                done = deal if settlement is not None else -1
                template = {"phase": phase, "deal": deal_no, "settlement_deal": done}
            else:  # INTERFACE.md: the step a deal ends carries its settlement too
                template = _SettledInfo(phase=phase, deal=deal_no, settlement_deal=deal,
                                        settlement=settlement)
        elif settlement is None:  # rich_infos: the phase's name, no int key set
            template = {"phase": phase, "deal": deal_no}
        else:
            template = _SettledInfo(phase=phase, deal=deal_no, settlement=settlement,
                                    settlement_deal=deal)
        self._infos = {}
        self._info_template = template

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """Every agent's info of the last step (PettingZoo's ``infos``)."""
        template = self._info_template
        if template is not None:  # the infos last() has not built yet
            infos = self.__dict__.get("_infos")
            if infos is None:
                raise AttributeError("the environment must be reset before it is used")
            for a in self._agents:
                if a not in infos:
                    infos[a] = template.copy()
            self._info_template = None
        elif "_infos" not in self.__dict__:
            raise AttributeError("the environment must be reset before it is used")
        return self._infos

    @infos.setter
    def infos(self, value: dict[str, dict[str, Any]]) -> None:
        self._infos = value
        self._info_template = None

    def _was_dead_step(self, action: Any) -> None:
        # Keep what a removed agent last saw, so that last() after the episode answers
        # (terminated, its final info) instead of a KeyError; copy the outer dicts first
        # so that ones handed out earlier are not changed.
        agent = self.agent_selection
        if agent in self.terminations:
            self._gone[agent] = (
                self.terminations[agent], self.truncations[agent], self.infos[agent]
            )
        self.infos = dict(self.infos)
        self.terminations = dict(self.terminations)
        self.truncations = dict(self.truncations)
        super()._was_dead_step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``(observation, cumulative reward, terminated, truncated, info)`` of the agent to
        move; once every agent is done, the final ones of ``agent_selection`` (reward 0)."""
        pending = self._pending
        if pending is not None and observe:
            # step()'s observation of the agent it selected, while the state is the one it
            # was made from (a change by any path drops it); handed out once, so that every
            # call answers arrays of its own
            agent, ob, st, rv, snap = pending
            self._pending = None
            game = self.game
            if (agent is self.agent_selection and st is game.st and rv is game.rv
                    and st.tobytes() == snap):
                term = self.terminations.get(agent)
                if term is not None:
                    info = self._infos.get(agent)
                    if info is None:  # _mover_info, inlined
                        template = self._info_template
                        if template is None:
                            info = self.infos[agent]  # (a KeyError, as PettingZoo's)
                        else:
                            info = self._infos[agent] = template.copy()
                    return ob, self._cumulative_rewards[agent], term, self.truncations[agent], info
        if not self._started:
            raise AttributeError("the environment must be reset before it is used")
        agent = self.agent_selection
        term = self.terminations.get(agent)
        if term is not None:  # AECEnv.last and observe, inlined
            if observe:
                obs, mask = self.game.observe(self.agent_name_mapping[agent])
                ob = {"observation": obs, "action_mask": mask}
            else:
                ob = None
            info = self._infos.get(agent)
            if info is None:
                info = self._mover_info(agent)
            return ob, self._cumulative_rewards[agent], term, self.truncations[agent], info
        term, trunc, info = self._gone[agent]
        return (self.observe(agent) if observe else None), 0.0, term, trunc, info

    def _mover_info(self, agent: str) -> dict[str, Any]:
        """The info of ``agent`` that last() builds, for it alone (see _set_infos)."""
        template = self._info_template
        if template is None:
            return self.infos[agent]  # (a KeyError, as PettingZoo's)
        info = self._infos[agent] = template.copy()
        return info

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping.get(agent) if self._started else None
        if seat is None:
            seat = self._seat(agent)  # raises the error that names what is wrong
        obs, mask = self.game.observe(seat)  # mask all zero unless to move
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        self._check_reset()
        return self.game.full_state()

    step = _step_function(ordered=False)
    # the order-enforcing wrapper's step (_OrderEnforcing binds it once reset)
    _step_in_order = _step_function(ordered=True)

    def _unpay(self) -> None:
        """A deal ended at the last step: its rewards go back to 0."""
        rewards = self.rewards
        for a in self._agents:
            rewards[a] = 0.0
        self._paid = False

    # --- results, records and rendering -----------------------------------------------
    @property
    def last_settlement(self) -> dict[str, Any] | None:
        """The settlement of the deal that finished last in this episode (None before the
        first): bets with level, outcome and amount, ``"payments"`` per seat."""
        return self.game.last_settlement

    @property
    def records(self) -> list[dict[str, Any]] | deque[dict[str, Any]]:
        """Records of the deals finished in this episode (JSON-able dicts): all of them, the
        last ``N`` (``records=N``, a deque) or none (``records=False``)."""
        return self.game.records

    def render(self) -> str | None:
        if self.render_mode is not None:
            self._check_reset()  # (no partie yet: its empty state is no table to show)
        return render_for(self.game, self.render_mode)

    def close(self) -> None:
        pass


__all__ = ["env", "raw_env", "parallel_env", "MaskInInfo", "FlatObs", "AGENTS", "AGENTS4",
           "PHASE_NAMES", "IllegalActionError"]
