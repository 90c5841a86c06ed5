"""Blocks of volený's encodings against a plain-Python reading of the state: the card sets
(written by one vector store each), the card play, the raises and the hidden blocks of
the state encoding, in every phase of random play; and any ``out`` (strided, float64)
gets the same values as a C-contiguous float32 one."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.core import state as S
from mariash_env.games.voleny import observe as O
from mariash_env.vector import VectorEnv, random_legal_actions


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
