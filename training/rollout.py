"""Batched self-play rollouts on :class:`mariash_env.vector.VectorEnv`.

A :class:`SelfPlayActor` steps ``num_envs`` games together.  Before every deal each
game draws its *table* (``training.config.SelfPlayConfig``): plain self-play (all three
seats are the learner), or the learner in one random seat against two copies of an
earlier snapshot from the pool, two table robots (the game's:
:class:`~mariash_env.robots.TableRobot` or, under licitovaný rules,
:class:`~mariash_env.robots.licit_table.LicitTableRobot`), two RandomRobots, or the
*frozen* robot of ``selfplay.frozen`` (any robot spec; the learner in
``selfplay.frozen_seats`` seats: a best response, :mod:`training.best_response`).  At each
engine step the rows are grouped by who is to move and each group gets one batched call:
the learner through ``Method.act`` (e.g. epsilon-greedy on the Q-network), each pool
snapshot through its greedy forward pass, the robots through ``act_batch`` (a robot that
searches, ``wants_view``, one ``act_view`` per row with the seat's
:class:`~mariash_env.robots.view.SeatView` of that row's state).

Only the learner's decisions are recorded.  When a deal ends, every decision made in
it gets the acting seat's groše of that deal as its return; decisions of deals still
running at the end of an iteration are carried into the next one.  At the start of a
*segment* (the run's start, a resume, and after every checkpoint) the engines are
reseeded from ``(seed, iteration, worker)`` and the carried decisions dropped, so the
rollouts after a checkpoint depend only on what the checkpoint holds: a resumed run
continues exactly like the uninterrupted one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from mariash_env.robots import Robot, make_robot
from mariash_env.vector import VectorEnv, random_legal_actions

from .networks import PolicyNet, build_network, game_of

# Kinds of tables.
T_SELF, T_POOL, T_TABLE, T_RANDOM, T_FROZEN = 0, 1, 2, 3, 4
TABLE_NAMES = ("self", "pool", "table", "random", "frozen")


def segment_seed(seed: int, iteration: int, worker: int, num_envs: int) -> int:
    """Engine seed of a segment: distinct game seeds for every (iteration, worker)."""
    # The offset keeps training deals away from evaluation seeds (small integers).
    return 10**12 + (int(seed) * 1_000_003 + int(iteration) * 7919 + int(worker)) * int(num_envs)


@dataclass
class Batch:
    """The learner's finished decisions of one iteration (row-aligned arrays)."""

    obs: np.ndarray  # float32[M, OBS_SIZE]
    action: np.ndarray  # int64[M]
    ret: np.ndarray  # float32[M]: the acting seat's groše of the deal (Monte-Carlo return)
    table: np.ndarray  # int8[M]: the kind of table the decision was made at (T_*)
    mask: np.ndarray | None = None  # int8[M, A] when the method needs masks
    extras: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.action.shape[0])

    @staticmethod
    def concat(batches: list[Batch]) -> Batch:
        if len(batches) == 1:
            return batches[0]
        masks = [b.mask for b in batches]
        return Batch(
            obs=np.concatenate([b.obs for b in batches]),
            action=np.concatenate([b.action for b in batches]),
            ret=np.concatenate([b.ret for b in batches]),
            table=np.concatenate([b.table for b in batches]),
            mask=None if masks[0] is None else np.concatenate(masks),
            extras={k: np.concatenate([b.extras[k] for b in batches])
                    for k in batches[0].extras},
        )


class SelfPlayActor:
    """``num_envs`` games of self-play with an opponent pool (see the module docstring)."""

    def __init__(self, cfg: Any, method_cls: type, net: PolicyNet | None = None,
                 device: torch.device | str = "cpu", worker: int = 0) -> None:
        self.cfg = cfg
        self.method_cls = method_cls
        self.device = torch.device(device)
        self.worker = worker
        self.n = cfg.env.num_envs
        self.env = VectorEnv(self.n, seed=0, deals=cfg.env.deals, **cfg.env.rules)
        self.game = game_of(cfg.env.rules)
        if net is None:  # a standalone actor (workers get the learner's weights)
            with torch.random.fork_rng(devices=[]):
                # seeded: its play does not depend on what the process drew before (a
                # test's actor once finished no deal after another test's run)
                torch.manual_seed(cfg.seed)
                net = build_network(cfg.network, self.game).to(self.device)
        self.net = net
        self.net.eval()
        self.pool: list[tuple[int, PolicyNet]] = []
        self.table_robot: Robot | None = None
        self.frozen_robot: Robot | None = None
        self.needs_masks = bool(getattr(method_cls, "needs_masks", False)) or bool(
            getattr(method_cls, "wants_masks", lambda c: False)(cfg))
        # guided rows are marked (extras["guided"]) for methods that learn from them
        self.mark_guided = cfg.selfplay.guide_share > 0
        self.step = None
        self.rng = np.random.default_rng(0)
        # What every network and robot here reads: the observation, or at volený's
        # four-player table its first block, the three-seat observation of the deal the
        # seat plays (the rest is who sits out and the partie's totals, which no decision
        # of a deal depends on), so one network plays both tables (RULES.md §11.3).
        self.obs_cols = self.game.obs_size
        self.rows = RowStore(self.obs_cols, self.env.num_actions)
        self.endgame = None
        if cfg.env.endgame_tricks:  # every deal a fresh deal of one endgame's cards
            from mariash_env.research.endgame import Endgame

            self.endgame = Endgame(seed=cfg.env.endgame_seed, tricks=cfg.env.endgame_tricks)

    # -- pool and segments ----------------------------------------------------------------

    def set_pool(self, snapshots: list[tuple[int, dict[str, torch.Tensor]]]) -> None:
        """Replace the opponent pool by these ``(id, state_dict)`` snapshots (reusing nets)."""
        have = {sid: net for sid, net in self.pool}
        pool = []
        for sid, sd in snapshots:
            net = have.get(sid)
            if net is None:
                with torch.random.fork_rng(devices=[]):  # leave the global torch RNG alone
                    net = build_network(self.cfg.network, self.game).to(self.device)
                net.load_state_dict(sd)
                net.eval()
            pool.append((sid, net))
        self.pool = pool

    def begin_segment(self, iteration: int) -> None:
        """Reseed engines, exploration and robots from ``(seed, iteration, worker)``."""
        seed = self.cfg.seed
        self.rng = np.random.default_rng([seed, iteration, self.worker, 0x5E6])
        sp = self.cfg.selfplay
        if sp.table_robot_share > 0 or sp.guide_share > 0:
            # the robot's seed is drawn as before (runs keep their random stream); the
            # table robot is deterministic, it only needs a fresh deal memory
            self.table_robot = make_robot("table", rules=self.game.name)
            self.table_robot.begin_deal(int(self.rng.integers(2**62)))
        if sp.frozen_share > 0:  # drawn only when used: other runs keep their random stream
            self.frozen_robot = make_frozen(sp.frozen, self.cfg.env.rules, self.env.players)
            self.frozen_robot.begin_deal(int(self.rng.integers(2**62)))
        self.step = self.env.reset(seed=segment_seed(seed, iteration, self.worker, self.n))
        if self.endgame is not None:
            self.step = self._deal_endgames(np.arange(self.n))
        n = self.n
        self.kind = np.zeros(n, np.int8)
        # the learner's seats of each game, one bit per seat (every seat at self-play)
        self.learner_seats = np.zeros(n, np.int64)
        self.snap = np.zeros(n, np.int64)
        self.guided = np.zeros(n, bool)
        self._draw_tables(np.arange(n))
        self.deal_id = np.arange(n, dtype=np.int64)
        self.next_deal = n
        self.outcomes = np.full((max(4 * n, 1024), self.env.players), np.nan, np.float32)
        self.rows.clear()

    def _draw_tables(self, idx: np.ndarray) -> None:
        sp = self.cfg.selfplay
        k = idx.size
        if k == 0:
            return
        u = self.rng.random(k)
        seat = self.rng.integers(0, self.env.players, k)
        snap = self.rng.integers(0, max(len(self.pool), 1), k)
        kind = np.full(k, T_SELF, np.int8)
        lo = 0.0
        for share, t, ok in ((sp.table_robot_share, T_TABLE, self.table_robot is not None),
                             (sp.pool_share, T_POOL, len(self.pool) > 0),
                             (sp.random_share, T_RANDOM, True),
                             (sp.frozen_share, T_FROZEN, self.frozen_robot is not None)):
            sel = (u >= lo) & (u < lo + share)
            if ok:
                kind[sel] = t
            lo += share
        self.kind[idx] = kind
        bits = np.left_shift(1, seat)
        if sp.frozen_seats > 1:  # the learner in every seat but ``seat`` at a frozen table
            bits = np.where(kind == T_FROZEN, ((1 << self.env.players) - 1) ^ bits, bits)
        self.learner_seats[idx] = bits
        self.snap[idx] = snap
        if sp.guide_share > 0:  # drawn only when used: other runs keep their random stream
            self.guided[idx] = self.rng.random(k) < sp.guide_share

    # -- one iteration --------------------------------------------------------------------

    def _greedy(self, net: PolicyNet, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return net.greedy(obs, mask)

    def collect(self, params: dict[str, Any]) -> tuple[Batch, dict[str, float]]:
        """Step every game ``rollout_steps`` times; the learner's finished decisions."""
        if self.step is None:
            raise RuntimeError("begin_segment() must be called before collect()")
        t0 = time.perf_counter()
        t_policy = 0.0
        n = self.n
        rows = self.rows
        actions = np.empty(n, np.int64)
        decisions = 0
        deals_done = 0
        all_idx = np.arange(n)
        act = self.method_cls.act
        cols = self.obs_cols
        for _ in range(self.cfg.env.rollout_steps):
            st = self.step
            obs = st.obs if st.obs.shape[1] == cols else st.obs[:, :cols]
            player = st.player
            kind = self.kind
            learner = (kind == T_SELF) | ((self.learner_seats >> player) & 1).astype(bool)
            tp = time.perf_counter()
            li = all_idx[learner]
            if li.size:
                obs_l = rows.add_obs(obs, li)  # a view of the row store (no extra copy)
                mask_l = st.mask[li]
                a, extras = act(self.net, obs_l, mask_l, self.rng, params)
                gl = self.guided[li]
                if gl.any():  # guided deals: the table robot's action is the learner's
                    a = np.array(a, np.int64)
                    a[gl] = self.table_robot.act_batch(obs_l[gl], mask_l[gl])
                if self.mark_guided:
                    extras = {**extras, "guided": gl}
                actions[li] = a
                rows.add(a, self.deal_id[li], player[li], kind[li],
                         mask_l if self.needs_masks else None, extras)
            if not learner.all():
                opp = ~learner
                pi = all_idx[opp & (kind == T_POOL)]
                if pi.size:
                    for s in np.unique(self.snap[pi]):
                        sub = pi[self.snap[pi] == s]
                        actions[sub] = self._greedy(self.pool[int(s)][1], obs[sub],
                                                    st.mask[sub])
                ri = all_idx[opp & (kind == T_RANDOM)]
                if ri.size:
                    actions[ri] = random_legal_actions(st.mask[ri], self.rng)
                ti = all_idx[opp & (kind == T_TABLE)]
                if ti.size:
                    actions[ti] = self.table_robot.act_batch(obs[ti], st.mask[ti])
                fi = all_idx[opp & (kind == T_FROZEN)]
                if fi.size:
                    actions[fi] = self._frozen_actions(fi, st, obs)
            t_policy += time.perf_counter() - tp
            st = self.env.step(actions)
            decisions += n
            done = np.flatnonzero(st.deal_done)
            if done.size:
                deals_done += done.size
                self.outcomes[self.deal_id[done]] = st.rewards[done]
                self.deal_id[done] = self.next_deal + np.arange(done.size)
                self.next_deal += done.size
                if self.next_deal > self.outcomes.shape[0]:
                    grow = np.full((2 * self.next_deal, self.env.players), np.nan,
                                   np.float32)
                    grow[: self.outcomes.shape[0]] = self.outcomes
                    self.outcomes = grow
                self._draw_tables(done)
                if self.endgame is not None:
                    st = self._deal_endgames(done)
            self.step = st
        batch, carried = rows.take_finished(self.outcomes)
        dt = time.perf_counter() - t0
        stats = {
            "decisions": float(decisions),
            "samples": float(len(batch)),
            "deals": float(deals_done),
            "carried": float(carried),
            "rollout_s": dt,
            "policy_s": t_policy,
        }
        for t in (T_POOL, T_TABLE, T_RANDOM, T_FROZEN):
            sel = batch.table == t
            stats[f"n_vs_{TABLE_NAMES[t]}"] = float(sel.sum())
            stats[f"ret_vs_{TABLE_NAMES[t]}"] = float(batch.ret[sel].sum())
        return batch, stats


    def _deal_endgames(self, rows: np.ndarray) -> Any:
        """Replace the games ``rows`` by new deals of the endgame's cards; the current Step
        (the step's rewards were read before: the engine's buffers are rewritten)."""
        states = self.env.copy_states()
        states[rows] = self.endgame.start_states(rows.size, self.rng)
        self.env.restore_states(states)
        return self.env.current()

    def _frozen_actions(self, rows: np.ndarray, st: Any, obs: np.ndarray) -> np.ndarray:
        robot = self.frozen_robot
        if not robot.wants_view:
            return robot.act_batch(obs[rows], st.mask[rows])
        # a searching robot: one decision at a time, from the seat's view of the row's state
        from mariash_env.robots.view import SeatView

        states = self.env.states
        rules = self.env.rules
        return np.array([robot.act_view(SeatView(states[i], int(st.player[i]), rules))
                         for i in rows], np.int64)


def make_frozen(spec: str, rules: dict[str, Any] | None, players: int) -> Robot:
    """The frozen robot of ``selfplay.frozen`` for the game of ``rules`` (ValueError naming
    what it cannot play: a robot that searches needs a seat's view of a three-seat deal)."""
    robot = make_robot(spec, rules=dict(rules or {}) or None)
    if robot.wants_view and players != 3:
        raise ValueError(f"selfplay.frozen = {spec!r} searches the seat's view, which the "
                         f"batched engine gives only at three players (this game has "
                         f"{players}): freeze a robot that decides from observations")
    return robot


class RowStore:
    """The learner's decisions not yet handed out, in growable preallocated arrays.

    Rows of deals still running stay (compacted to the front) for the next iteration.
    """

    def __init__(self, obs_size: int, num_actions: int) -> None:
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.n = 0
        self.cap = 0
        self.cols: dict[str, np.ndarray] = {}
        self._pending_obs = 0

    def clear(self) -> None:
        self.n = 0
        self._pending_obs = 0

    def _col(self, name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        col = self.cols.get(name)
        if col is None:
            col = self.cols[name] = np.zeros((self.cap, *shape), dtype)
        return col

    def _reserve(self, k: int) -> None:
        need = self.n + k
        if need <= self.cap:
            return
        cap = max(need, 2 * self.cap, 4096)
        for name, col in self.cols.items():
            new = np.zeros((cap, *col.shape[1:]), col.dtype)
            new[: self.n] = col[: self.n]
            self.cols[name] = new
        self.cap = cap

    def add_obs(self, obs: np.ndarray, idx: np.ndarray) -> np.ndarray:
        k = idx.size
        self._reserve(k)
        col = self._col("obs", (self.obs_size,), np.float32)
        out = col[self.n:self.n + k]
        np.take(obs, idx, axis=0, out=out)
        self._pending_obs = k
        return out

    def add(self, action: np.ndarray, deal: np.ndarray, seat: np.ndarray, table: np.ndarray,
            mask: np.ndarray | None, extras: dict[str, np.ndarray]) -> None:
        k = self._pending_obs
        lo, hi = self.n, self.n + k
        self._col("act", (), np.int64)[lo:hi] = action
        self._col("deal", (), np.int64)[lo:hi] = deal
        self._col("seat", (), np.int64)[lo:hi] = seat
        self._col("table", (), np.int8)[lo:hi] = table
        if mask is not None:
            self._col("mask", (self.num_actions,), np.int8)[lo:hi] = mask
        for name, v in extras.items():
            v = np.asarray(v)
            self._col("x_" + name, v.shape[1:], v.dtype)[lo:hi] = v
        self.n = hi
        self._pending_obs = 0

    def take_finished(self, outcomes: np.ndarray) -> tuple[Batch, int]:
        """Hand out the rows whose deal has ended (with their returns); keep the rest."""
        n = self.n
        if n == 0 or "act" not in self.cols:
            empty = np.zeros(0, np.int64)
            return Batch(np.zeros((0, self.obs_size), np.float32), empty,
                         np.zeros(0, np.float32), np.zeros(0, np.int8)), 0
        deal = self.cols["deal"][:n]
        out = outcomes[deal]
        finished = ~np.isnan(out[:, 0])
        fi = np.flatnonzero(finished)
        ki = np.flatnonzero(~finished)
        seat = self.cols["seat"][:n]
        ret = out[fi, seat[fi]].astype(np.float32)
        got = {name: col[fi] for name, col in self.cols.items()}
        for col in self.cols.values():  # compact the running deals' rows to the front
            col[: ki.size] = col[ki]
        self.n = int(ki.size)
        batch = Batch(obs=got["obs"], action=got["act"], ret=ret, table=got["table"],
                      mask=got.get("mask"),
                      extras={k[2:]: v for k, v in got.items() if k.startswith("x_")})
        return batch, self.n
