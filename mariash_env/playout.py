"""Batched play of whole games: dealt single deals, and games played out to their end.

The arena's engine (:func:`play_games`: every game in one :class:`~mariash_env.vector.
VectorEnv`, robots asked per engine step) in a module of its own, so that a robot can play
games out too -- :class:`~mariash_env.robots.nnpimc.NNPIMCRobot`'s network playouts --
without importing the arena (which builds robots).  :mod:`mariash_env.arena` re-exports
both names.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import state as S
from .core.engine import apply_action, deal_decisions
from .game import Game
from .games.base import step_bound
from .games.voleny.four import payment4, player_of, seat_payment4
from .robots.base import Robot
from .rules import Rules


def deal_states(seeds: np.ndarray, dealers: np.ndarray, rules: Rules) -> np.ndarray:
    """The dealt states ``int32[n, STATE_SIZE]`` of single deals: a deck shuffled from
    ``seeds[i]``, dealt by ``dealers[i]`` (``Game.new_partie``)."""
    g = Game(rules)
    out = np.empty((len(seeds), S.STATE_SIZE), np.int32)
    for i, (sd, d) in enumerate(zip(seeds, dealers)):
        g.new_partie(seed=int(sd), dealer=int(d))
        out[i] = g.st
    return out


def playout_values(robot: Robot, worlds: np.ndarray, seat: int, cands: list[int],
                   rules: Rules, others: Robot | None = None,
                   seating: Sequence[int] | None = None) -> np.ndarray:
    """``values[k, i]``: ``seat``'s payment (the game's unit) when action ``cands[i]`` is
    taken in world ``worlds[k]`` (states with that seat's decision to make) and the deal is
    then played out by ``robot`` at every seat -- or, given ``others``, by ``robot`` at
    ``seat`` and ``others`` at the other seats (the value of the decision against that
    opponent) -- or, given ``others`` and ``seating`` (each seat's robot: 0 ``robot``, 1
    ``others``), as seated there -- all of them in one :func:`play_games`.  ``seat`` and
    ``seating`` are the deal's seats: at four (RULES.md §11.3) the three core seats, whose
    players the worlds say, and the value is the four-player settlement's.  A world of a
    later deal of a partie is played as a single deal (``DEAL_NO`` 0): a deal's payments
    do not depend on its number."""
    from .core.engine import apply_action

    rv = rules.vector()
    n = len(cands)
    four = rules.players == 4
    states = np.repeat(np.asarray(worlds, dtype=np.int32), n, axis=0)
    states[:, S.DEAL_NO] = 0
    for j in range(len(states)):
        apply_action(states[j], rv, cands[j % n])
    done = states[:, S.PHASE] == S.PH_DONE
    values = np.zeros(len(states))
    for j in np.flatnonzero(done):  # the candidate ended the deal (the last card, a fold)
        values[j] = float(seat_payment4(states[j], seat) if four
                          else S.get64(states[j], S.PAY + 2 * seat))
    rest = np.flatnonzero(~done)
    if rest.size:
        if others is not None and seating is None:  # against others: robot at seat only
            seating = [int(s != seat) for s in range(3)]
        if seating is not None and (others is None or len(seating) != 3
                                    or set(seating) - {0, 1}):
            raise ValueError(f"seating {list(seating)!r}: expected 0 (robot) or 1 "
                             "(others) for each of the deal's 3 seats, with others")
        # each core seat's player (at three the seat itself); the dealer who sits out
        # at four never moves
        player = (np.array([[player_of(st, c) for c in range(3)] for st in states[rest]])
                  if four else np.tile(np.arange(3), (rest.size, 1)))
        who = np.zeros((rest.size, rules.players), np.int64)
        if seating is not None:
            np.put_along_axis(who, player, np.asarray(seating, np.int64)[None, :], axis=1)
        outs = play_games([robot] if others is None else [robot, others], states[rest],
                          who, rules)
        values[rest] = [o["payments"][p] for o, p in zip(outs, player[:, seat])]
    return values.reshape(len(worlds), n)


def play_games(robots: list[Robot], states: np.ndarray, seats: np.ndarray,
               rules: Rules, one_by_one: bool = False) -> list[dict[str, Any]]:
    """Play every game (row of ``states``, a dealt single deal) to its end, robot
    ``robots[seats[g, s]]`` in seat ``s`` of game ``g``, all games in one batched engine.

    Robots are driven through the robot protocol (:mod:`mariash_env.robots.base`): those
    with ``wants_view`` get :meth:`~mariash_env.robots.Robot.act_view` with the seat's
    :class:`~mariash_env.robots.SeatView` per decision, all others one
    :meth:`~mariash_env.robots.Robot.act_batch` per engine step for all the games where
    they are to move; with ``one_by_one`` every robot gets ``act_view`` per decision.
    Returns each game's outcome (payments per seat, actor, contract,
    how it ended, decisions and thinking seconds per seat).  At four (RULES.md §11.3)
    seats are the four players and robots see the three-player view of the deal (the
    observation's first block, a :class:`SeatView` of the player's seat in the deal).
    """
    from .robots.view import SeatView
    from .vector import VectorEnv

    n = len(states)
    env = VectorEnv(n, seed=0, **{**rules.to_dict(), "deals": 1})
    env.restore_states(np.ascontiguousarray(states, dtype=np.int32))
    rv = env.rules_vector
    step = env.current()
    out: list[dict[str, Any] | None] = [None] * n
    nseat = rules.players
    # what robots read: the game's observation (at four its first block, the deal's)
    deal_obs = env.kind.obs_size
    decisions = np.zeros((n, nseat), np.int64)
    think = np.zeros((n, nseat))
    active = np.ones(n, bool)
    actions = np.zeros(n, np.int64)
    rows_all = np.arange(n)
    tick = step_bound("play_games' deals", int(deal_decisions(rv)))  # a decision a step
    while active.any():
        tick()
        player = step.player.copy()
        who = seats[rows_all, player]
        before = env.copy_states()
        actions[:] = np.argmax(step.mask, axis=1)  # finished games: any legal action
        for r, robot in enumerate(robots):
            rows = np.flatnonzero(active & (who == r))
            if rows.size == 0:
                continue
            t0 = time.perf_counter()
            if robot.wants_view or one_by_one:
                for i in rows:
                    seat = int(before[i, S.TO_MOVE])  # the seat in the deal (core seat)
                    actions[i] = robot.act_view(SeatView(before[i], seat, rules))
            else:
                actions[rows] = robot.act_batch(step.obs[rows, :deal_obs], step.mask[rows])
            think[rows, player[rows]] += (time.perf_counter() - t0) / rows.size
            decisions[rows, player[rows]] += 1
        step = env.step(actions)
        for i in np.flatnonzero(active & step.deal_done):
            # the engine has moved on to the next partie: the finished deal's facts come
            # from applying the last action again to the state before it (the same core)
            st = before[i]
            apply_action(st, rv, int(actions[i]))
            actor = int(st[S.ACTOR])
            if nseat == 4:
                pay = [int(payment4(st, p)) for p in range(4)]
                actor = int(player_of(st, actor)) if actor >= 0 else actor
            else:
                pay = [int(x) for x in S.read64(st, S.PAY, 3)]
            out[i] = {
                "payments": pay,
                "actor": actor,
                "contract": int(st[S.CONTRACT]),
                "game": int(st[S.LIC_GAME]),
                "end": int(st[S.END]),
                "decisions": [int(x) for x in decisions[i]],
                "think": [float(x) for x in think[i]],
            }
            active[i] = False
    return out  # type: ignore[return-value]


def decision_positions(game: str) -> tuple[np.ndarray, np.ndarray, object]:
    """``(bidding, play)``: a decision before the card play and one in the card play, each
    with a choice, from a deal played by the game's table robot at every seat.  The card
    play's is in a later trick (a trick and a card played), so that the worlds sampled
    there replay the cards played: licitovaný's sampler calls those kernels from Python."""
    from .core.engine import legal_actions
    from .core.tricks import cards_played
    from .kinds import kind_of
    from .rules import make_rules

    rules = make_rules(rules=game)
    kind = kind_of(rules)
    robot = kind.load("table_robot")()
    rv = rules.vector()
    mask = np.zeros(kind.n_actions, dtype=np.int8)
    obs = np.zeros(kind.obs_size, dtype=np.float32)
    for seed in range(50):
        st = deal_states(np.array([seed]), np.array([0]), rules)[0].copy()
        bid = None
        tick = step_bound(f"decision_positions' {game} deal", int(deal_decisions(rv)))
        while st[S.PHASE] != S.PH_DONE:
            tick()
            mask[:] = 0
            legal_actions(st, rv, mask)
            if mask.sum() > 1 and st[S.PHASE] != S.PH_PLAY and bid is None:
                bid = st.copy()
            if (mask.sum() > 1 and st[S.PHASE] == S.PH_PLAY and bid is not None
                    and cards_played(st) >= 4):
                return bid, st.copy(), rules
            kind.encode(st, int(st[S.TO_MOVE]), obs, False)
            apply_action(st, rv, int(robot.act({"observation": obs, "action_mask": mask})))
    raise RuntimeError(f"no {game} deal of the first 50 gave a bidding and a card-play choice")
