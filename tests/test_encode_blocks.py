"""Blocks of volený's encodings against a plain-Python reading of the state: the card sets
(written by one vector store each), the card play, the raises and the hidden blocks of
the state encoding, in every phase of random play; and any ``out`` (strided, float64)
gets the same values as a C-contiguous float32 one.  Lízaný's whole encoding (its card
sets one vector store each too) against a plain reading of its record, finished deals and
the batched engine's observations included."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.core import state as S
from mariash_env.games.lizany import core as LZ
from mariash_env.games.lizany.actions import OBS as LZ_OBS
from mariash_env.games.lizany.actions import OBS_SIZE as LZ_OBS_SIZE
from mariash_env.games.lizany.actions import STATE_SIZE as LZ_STATE_OBS_SIZE
from mariash_env.games.lizany.game import LizanyGame
from mariash_env.games.voleny import observe as O
from mariash_env.vector import VectorEnv, random_legal_actions
from tests.helpers import step_cap


def _cards(m: int) -> np.ndarray:
    return np.array([(int(m) >> c) & 1 for c in range(32)], dtype=np.float32)


def _mask(st: np.ndarray, off: int) -> int:
    return int(st[off]) & 0xFFFFFFFF


def _check(st: np.ndarray, me: int, out: np.ndarray, omniscient: bool) -> None:
    rel = [(s - me) % 3 for s in range(3)]
    if not (st[S.PHASE] == S.PH_TRUMP and me == st[S.FOREHAND] and not omniscient):
        np.testing.assert_array_equal(out[O.O_HAND:O.O_HAND + 32], _cards(_mask(st, S.HAND + me)))
    np.testing.assert_array_equal(out[O.O_LAID:O.O_LAID + 32], _cards(_mask(st, S.LAID + me)))
    np.testing.assert_array_equal(out[O.O_TOOK:O.O_TOOK + 32], _cards(_mask(st, S.TOOK + me)))
    talon = _mask(st, S.TALON) if st[S.TALON_OWNER] == me else 0
    np.testing.assert_array_equal(out[O.O_TALON:O.O_TALON + 32], _cards(talon))
    played_by = np.zeros(96, np.float32)
    played_in = np.zeros(320, np.float32)
    leader = np.zeros(30, np.float32)
    cur = np.zeros(64, np.float32)
    for t in range(min(int(st[S.TRICK_NO]) + 1, 10)):
        if st[S.TLEAD + t] < 0:
            break
        n = 3 if t < st[S.TRICK_NO] else int(st[S.TRICK_N])
        leader[3 * t + rel[st[S.TLEAD + t]]] = 1.0
        for j in range(n):
            c = int(st[S.TRICKS + 3 * t + j])
            played_by[32 * rel[(st[S.TLEAD + t] + j) % 3] + c] = 1.0
            played_in[10 * c + t] = 1.0
            if t == st[S.TRICK_NO] and j < 2:
                cur[32 * j + c] = 1.0
    np.testing.assert_array_equal(out[O.O_PLAYED_BY:O.O_PLAYED_BY + 96], played_by)
    np.testing.assert_array_equal(out[O.O_PLAYED_IN:O.O_PLAYED_IN + 320], played_in)
    np.testing.assert_array_equal(out[O.O_TRICK_LEADER:O.O_TRICK_LEADER + 30], leader)
    np.testing.assert_array_equal(out[O.O_CUR_TRICK:O.O_CUR_TRICK + 64], cur)
    if not st[S.OVERCALLS] & 1:  # open contracts reuse raised_by's unused slots
        raised = np.zeros(84, np.float32)
        for b in range(4):
            for lvl in range(7):
                s1 = (int(st[S.RAISED_BY + b]) >> (2 * lvl)) & 3
                if s1:
                    raised[21 * b + 3 * lvl + rel[s1 - 1]] = 1.0
        np.testing.assert_array_equal(out[O.O_RAISED_BY:O.O_RAISED_BY + 84], raised)
    for off, field in ((O.O_RAISABLE, S.RAISABLE), (O.O_RAISED_RND, S.RAISED_RND),
                       (O.O_ANNOUNCED_RND, S.ANNOUNCED_RND)):
        np.testing.assert_array_equal(out[off:off + 4], [(st[field] >> b) & 1 for b in range(4)])
    if omniscient:
        hidden = np.zeros(O.STATE_OBS_SIZE - O.OBS_SIZE, np.float32)
        hidden[0:32] = _cards(_mask(st, S.HAND + (me + 1) % 3))
        hidden[32:64] = _cards(_mask(st, S.HAND + (me + 2) % 3))
        hidden[64:96] = _cards(_mask(st, S.TALON))
        if st[S.TRUMP_CARD] >= 0:
            hidden[96 + st[S.TRUMP_CARD]] = 1.0
        if st[S.TO_MOVE] >= 0:
            hidden[128 + rel[st[S.TO_MOVE]]] = 1.0
        np.testing.assert_array_equal(out[O.OBS_SIZE:O.STATE_OBS_SIZE], hidden)


@pytest.mark.parametrize("rules", [{}, {"open_contracts": True, "max_flek": 7}])
def test_encoding_blocks_match_the_state(rules):
    env = VectorEnv(24, seed=4, **rules)
    step = env.reset()
    rng = np.random.default_rng(4)
    for k in range(120):
        step = env.step(random_legal_actions(step.mask, rng))
        if k % 3:
            continue
        for i in range(env.num_envs):
            st = env.states[i]
            for me in range(3):
                for omniscient in (False, True):
                    n = O.STATE_OBS_SIZE if omniscient else O.OBS_SIZE
                    out = np.full(n, 7.0, np.float32)  # every slot is written
                    O.encode(st, me, out, omniscient)
                    _check(st, me, out, omniscient)
                    strided = np.full((n, 2), 7.0, np.float32)[:, 0]
                    wide = np.full(n, 7.0, np.float64)
                    O.encode(st, me, strided, omniscient)
                    O.encode(st, me, wide, omniscient)
                    np.testing.assert_array_equal(strided, out)
                    np.testing.assert_array_equal(wide.astype(np.float32), out)
            np.testing.assert_array_equal(step.obs[i], _obs(st, step.player[i]))


def _obs(st: np.ndarray, player: int) -> np.ndarray:
    out = np.zeros(O.OBS_SIZE, np.float32)
    O.encode(st, int(player), out, False)
    return out


def _lizany_reference(st: np.ndarray, me: int, omniscient: bool) -> np.ndarray:
    """Lízaný's observation (``OBS_LAYOUT``) read from the record field by field."""
    out = np.zeros(LZ_STATE_OBS_SIZE if omniscient else LZ_OBS_SIZE, np.float32)
    o = {name: start for name, (start, _) in LZ_OBS.items()}
    opp = 1 - me
    over = bool(st[LZ.OVER])
    tm, led, trump = int(st[LZ.TO_MOVE]), int(st[LZ.TABLE]), int(st[LZ.TRUMP_CARD])
    out[o["hand"]:o["hand"] + 32] = _cards(_mask(st, LZ.HAND + me))
    out[o["trump_card"] + trump] = 1.0
    out[o["trump_suit"] + trump // 8] = 1.0
    out[o["played_me"]:o["played_me"] + 32] = _cards(_mask(st, LZ.PLAYED + me))
    out[o["played_opp"]:o["played_opp"] + 32] = _cards(_mask(st, LZ.PLAYED + opp))
    if led >= 0:
        out[o["table"] + led] = 1.0
    out[o["opp_known"]:o["opp_known"] + 32] = _cards(_mask(st, LZ.KNOWN + opp))
    for suit in range(4):
        by = int(st[LZ.MARRIAGE_BY + suit])
        if by >= 0:
            out[o["marriages"] + 2 * suit + (by != me)] = 1.0
    left = LZ.STOCK_SIZE - int(st[LZ.STOCK_POS])
    pts = [int(st[LZ.POINTS + s]) for s in (me, opp)]
    marr = [int(st[LZ.MARRIAGES + s]) for s in (me, opp)]
    tricks = [int(st[LZ.TRICKS + s]) for s in (me, opp)]
    out[o["scalars"]:o["scalars"] + 17] = [
        left / 16, left == 0, pts[0] / 90, pts[1] / 90, marr[0] / 100, marr[1] / 100,
        tricks[0] / 16, tricks[1] / 16, not over and led < 0 and tm == me,
        not over and tm == me, led >= 0 and tm != me, int(st[LZ.TRICK_NO]) / 16, me, over,
        (pts[0] + marr[0]) / 190, (pts[1] + marr[1]) / 190,
        over and int(st[LZ.REWARDS + me]) > 0]
    if omniscient:
        out[LZ_OBS_SIZE:LZ_OBS_SIZE + 32] = _cards(_mask(st, LZ.HAND + 1))
        pos = int(st[LZ.STOCK_POS])
        for k in range(pos, LZ.STOCK_SIZE):
            out[LZ_OBS_SIZE + 32 + int(st[LZ.STOCK + k])] = (k - pos + 1) / 16
    return out


def test_lizany_encoding_matches_a_plain_reading():
    rng = np.random.default_rng(5)
    for seed in range(40):  # whole deals, the finished one included
        g = LizanyGame(seed=seed)
        over = False
        tick = step_cap("lizany")
        while True:
            tick()
            for me in (0, 1):
                for omniscient in (False, True):
                    if omniscient and me:
                        continue  # state(): player_0's view
                    want = _lizany_reference(g.st, me, omniscient)
                    n = want.shape[0]
                    out = np.full(n, 7.0, np.float32)  # every slot is written
                    LZ.encode(g.st, me, out, omniscient)
                    np.testing.assert_array_equal(out, want)
                    strided = np.full((n, 2), 7.0, np.float32)[:, 0]
                    wide = np.full(n, 7.0, np.float64)
                    LZ.encode(g.st, me, strided, omniscient)
                    LZ.encode(g.st, me, wide, omniscient)
                    np.testing.assert_array_equal(strided, want)
                    np.testing.assert_array_equal(wide.astype(np.float32), want)
            if over:
                break
            legal = [c for c in range(32) if (g.legal_cards() >> c) & 1]
            over = g.play(int(rng.choice(legal)))
    env = VectorEnv(16, seed=5, rules="lizany")
    step = env.reset()
    for _ in range(80):  # the batched engine's rows (deals dealt anew on the way)
        step = env.step(random_legal_actions(step.mask, rng))
        for i in range(env.num_envs):
            st = env.states[i]
            np.testing.assert_array_equal(step.obs[i], _lizany_reference(st, step.player[i],
                                                                         False))
        np.testing.assert_array_equal(
            env.state(), [_lizany_reference(st, 0, True) for st in env.states])
