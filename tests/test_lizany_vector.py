"""Lízaný's batched engine (``VectorEnv(n, rules="lizany")``, ``games/lizany/vector.py``)
against its AEC environment, on the one compiled core (``games/lizany/core.py``).

The rules are those of docs/games/lizany.md, *Its rules* (cited by their items: Deal,
While the stock lasts, Stock empty, Marriages, Points and reward, Observation) and its
*Batched engine* section; RULES.md §6 / §7 for the shared trick and marriage rules."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env import lizany
from mariash_env.games.lizany import core as C
from mariash_env.games.lizany.vector import LizanyVectorEnv
from mariash_env.games.registry import game_kind, games
from mariash_env.rules import RulesError
from mariash_env.vector import OutBufferError, VectorEnv, random_legal_actions

N = 12
SEED = 40


def deck_of(states: np.ndarray, i: int) -> list[int]:
    return states[i, C.DECK:C.DECK + 32].tolist()


def test_registry_gives_the_vector_front_end():
    kind = game_kind("lizany", front_end="vector")
    assert kind in games("vector") and kind.game is None  # no rules vector (R_GAME)
    venv = VectorEnv(2, seed=0, rules="lizany")
    assert isinstance(venv, LizanyVectorEnv) and isinstance(venv, VectorEnv)
    assert (venv.obs_size, venv.state_obs_size, venv.num_actions, venv.players) == (
        lizany.OBS_SIZE, lizany.STATE_SIZE, 32, 2)
    assert venv.rules_vector is None and venv.rules == {"rules": "lizany"}
    assert type(VectorEnv(1, seed=0)) is VectorEnv  # volený keeps the main engine
    # the registry's compiled encoder is the game's observation
    g = lizany.LizanyGame(seed=3)
    out, mask = np.zeros(lizany.OBS_SIZE, np.float32), np.zeros(32, np.int8)
    kind.observe_into(g.st, None, 0, out, mask)
    assert np.array_equal(out, g.observe(0)) and np.array_equal(mask, g.legal_mask(0))


def test_the_state_record_keeps_its_size():
    """A deal's record is ``int32[77]``, 308 bytes, field by field as docs/games/lizany.md
    lays it out (the two hands, played and known masks, the 16 cards of the stock (Deal:
    32 - 2 * 8), the 32 of the deck), as volený's is pinned at 1152 bytes
    (tests/test_vector.py): a field grown by a slot moves the offsets after it and the
    bytes each batched game holds, and a spare slot after ``stock_pos`` went unnoticed
    (the mutation audit: only the record's size grew)."""
    slots = {"hand": 2, "played": 2, "known": 2, "to_move": 1, "table": 1, "rng": 4,
             "points": 2, "marriages": 2, "tricks": 2, "marriage_by": 4, "trump_card": 1,
             "trick_no": 1, "last_winner": 1, "over": 1, "rewards": 2, "stock_pos": 1,
             "stock": 16, "deck": 32}
    assert C.LZ_SLOTS == slots
    assert C.LZ_STATE_SIZE == sum(slots.values()) == 77
    assert lizany.LizanyGame(seed=SEED).st.shape == (77,)
    venv = VectorEnv(3, seed=SEED, rules="lizany")
    states = venv.copy_states()
    assert states.shape == (3, 77) and states.dtype == np.int32 and states.nbytes == 3 * 308
    # state, mask (32 int8), the small buffers (player, rewards, flags, deal_no, bad: 42)
    assert LizanyVectorEnv.bytes_per_game(observations=False) == 308 + 32 + 42
    assert LizanyVectorEnv.bytes_per_game(observations=True) == 308 + 32 + 42 + 221 * 4


def test_vector_equals_the_aec_env_step_for_step():
    """Every deal of the batch is the AEC env's deal of the same deck, card for card:
    player, observation, mask, rewards and state (*Its rules*: Deal, While the stock
    lasts, Stock empty, Marriages, Points and reward, Observation)."""
    venv = VectorEnv(N, seed=SEED, rules="lizany")
    step = venv.reset()
    envs = []
    for i in range(N):  # game i of reset(seed=s) is the AEC env's reset(seed=s + i)
        e = lizany.raw_env()
        e.reset(seed=SEED + i)
        assert e.game.deck == deck_of(venv.states, i)
        envs.append(e)
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(80):  # two and a half deals: the auto-reset deals are compared too
        state = venv.state()
        for i, e in enumerate(envs):
            agent = e.agent_selection
            assert step.player[i] == e.agent_name_mapping[agent]
            o = e.observe(agent)
            assert np.array_equal(step.obs[i], o["observation"]), (t, i)
            assert np.array_equal(step.mask[i], o["action_mask"]), (t, i)
            assert np.array_equal(state[i], e.state()), (t, i)
        actions = random_legal_actions(step.mask, rng)
        step = venv.step(actions)
        for i, e in enumerate(envs):
            e.step(int(actions[i]))
            rewards = [e.rewards[a] for a in lizany.AGENTS]
            assert step.rewards[i].tolist() == rewards
            assert bool(step.deal_done[i]) == all(e.terminations.values())
            assert step.partie_done[i] == step.deal_done[i] and step.deal_no[i] == 0
            if step.deal_done[i]:  # the row is dealt anew: the AEC env takes its deck
                ended += 1
                e.reset(options={"deck": deck_of(venv.states, i)})
    assert ended >= N  # every game finished a deal (32 cards each)


def test_seeding_is_reproducible():
    """The same seed and actions give the same run; an unseeded reset continues with
    seed + num_envs, the later deals come from each game's own generator."""
    def run(venv, seed=None):
        step = venv.reset(seed)
        rng = np.random.default_rng(1)
        obs, rew = [], []
        for _ in range(40):
            step = venv.step(random_legal_actions(step.mask, rng))
            obs.append(step.obs.copy())
            rew.append(step.rewards.copy())
        return np.array(obs), np.array(rew), venv.copy_states()

    a, b = VectorEnv(6, seed=7, rules="lizany"), VectorEnv(6, seed=7, rules="lizany")
    ra, rb = run(a), run(b)
    assert all(np.array_equal(x, y) for x, y in zip(ra, rb))
    assert a.seed == 7 and run(a)[2].tolist() != ra[2].tolist() and a.seed == 13
    assert all(np.array_equal(x, y) for x, y in zip(run(b, 13), run(VectorEnv(
        6, seed=13, rules="lizany"))))
    c = VectorEnv(6, rules="lizany")
    assert not np.array_equal(run(c, 8)[0], ra[0])


def test_later_deals_come_from_the_generator_alone():
    """*Batched engine*: a row is dealt anew from its own generator alone, so the same
    seed deals each row the same second deck however its first deal was played."""
    def second_decks(play_seed):
        venv = VectorEnv(4, seed=3, rules="lizany")
        step = venv.reset()
        rng = np.random.default_rng(play_seed)
        second: list = [None] * 4
        for _ in range(40):  # a deal is 32 plays
            step = venv.step(random_legal_actions(step.mask, rng))
            for i in np.flatnonzero(step.deal_done):
                if second[i] is None:
                    second[i] = deck_of(venv.states, i)
        return second, venv.copy_states()

    (a, st_a), (b, st_b) = second_decks(0), second_decks(1)
    assert None not in a and not np.array_equal(st_a, st_b)  # played otherwise
    assert a == b


def test_zero_sum_and_32_cards_conserved():
    """*Points and reward*: each finished deal pays ±1 or ±2, zero-sum; *Deal*: the 32
    cards stay in the hands, the played cards and the stock, each exactly once."""
    venv = VectorEnv(64, seed=3, rules="lizany", observations=False)
    step = venv.reset()
    assert step.obs is None
    rng = np.random.default_rng(2)
    paid = []
    for _ in range(70):
        step = venv.step(random_legal_actions(step.mask, rng))
        assert not step.rewards.sum(axis=1).any()
        r = step.rewards[step.deal_done, 0]
        assert set(np.abs(r).tolist()) <= {1.0, 2.0}
        assert not step.rewards[~step.deal_done].any()
        paid += r.tolist()
        st = venv.copy_states().astype(np.int64) & 0xFFFFFFFF
        pos = st[:, C.STOCK_POS]
        stock = np.zeros(len(st), np.int64)
        for k in range(C.STOCK_SIZE):
            stock |= np.where(pos <= k, np.int64(1) << st[:, C.STOCK + k], 0)
        sets = [st[:, C.HAND], st[:, C.HAND + 1], st[:, C.PLAYED], st[:, C.PLAYED + 1], stock]
        assert (np.bitwise_or.reduce(sets) == 0xFFFFFFFF).all()
        assert sum(bin(int(x)).count("1") for s in sets for x in s) == 32 * len(st)
    assert len(paid) >= 64 and 0 < np.mean(np.array(paid) > 0) < 1


def test_illegal_input_is_refused_and_nothing_applied():
    venv = VectorEnv(4, seed=1, rules="lizany")
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(4, np.int64))
    with pytest.raises(RuntimeError, match="reset"):  # was an encoding of all-zero rows
        venv.state()
    step = venv.reset()
    before = venv.copy_states()
    legal = random_legal_actions(step.mask, np.random.default_rng(0))
    bad = legal.copy()
    bad[2] = int(np.flatnonzero(step.mask[2] == 0)[0])  # a card not in its hand
    bad[3] = 32
    with pytest.raises(ValueError, match=r"illegal action in 2 game\(s\) \(game 2: action "
                                         rf"{bad[2]}, game 3: action 32\)"):
        venv.step(bad)
    assert np.array_equal(venv.copy_states(), before)
    huge = legal.astype(np.uint64)
    huge[1] = 2**64 - 1  # named as given, not as the int64 it wraps to
    with pytest.raises(ValueError, match=r"game 1: action 18446744073709551615\)"):
        venv.step(huge)
    with pytest.raises(ValueError, match="shape"):
        venv.step(legal[:3])
    with pytest.raises(ValueError, match="integers"):
        venv.step(legal.astype(float))
    with pytest.raises(OutBufferError, match="out\\['mask'\\]"):
        venv.step(legal, out={"mask": np.zeros((4, 115), np.int8)})
    step = venv.step_unchecked(bad)  # the bad rows stay as they were
    after = venv.copy_states()
    assert np.array_equal(after[2:], before[2:]) and not np.array_equal(after[:2], before[:2])
    for kwargs, match in (({"tariff": "csm"}, "do not apply to rules='lizany'"),
                          ({"deals": 2}, "one deal"), ({"players": 3}, "do not apply")):
        with pytest.raises(RulesError, match=match):
            VectorEnv(2, rules="lizany", **kwargs)
    with pytest.raises(RulesError, match="plays rules='lizany'"):
        LizanyVectorEnv(2, rules="voleny")
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv(0, rules="lizany")


def test_restore_states_checks_every_row():
    venv = VectorEnv(3, seed=9, rules="lizany")
    step = venv.reset()
    rng = np.random.default_rng(4)
    for _ in range(21):
        step = venv.step(random_legal_actions(step.mask, rng))
    snap = venv.copy_states()
    obs = step.obs.copy()
    venv.step(random_legal_actions(step.mask, rng))
    venv.restore_states(snap)
    assert np.array_equal(venv.current().obs, obs)
    venv.step(random_legal_actions(step.mask, rng))
    venv.restore_states(np.asfortranarray(snap))  # any memory order (was a numpy error)
    assert np.array_equal(venv.current().obs, obs)
    for field, value, match in (
            (C.TO_MOVE, 2, "to_move is out of range"),
            (C.DECK, C.DECK + 1, "deck is out of range"),
            (C.HAND, 0, "each of the 32 cards exactly once"),
            (C.STOCK_POS, 0, "each of the 32 cards|stock_pos"),
            (C.TRICKS, 9, "tricks")):
        bad = snap.copy()
        bad[1, field] = value if field != C.DECK else 40
        with pytest.raises(ValueError, match=match) as ei:
            venv.restore_states(bad)
        assert "games [1]" in str(ei.value)
    assert np.array_equal(venv.copy_states(), snap)  # nothing restored
