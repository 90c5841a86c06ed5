"""The batched engine (mariash_env.vector): determinism, invariants, auto-reset, and
differential tests against a plain per-game loop over the core and the AEC env."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.core import state as S
from mariash_env.core.deal import shuffled_deck
from mariash_env.core.engine import advance_partie, apply_action, legal_actions, start_partie
from mariash_env.core.observe import OBS_SIZE, STATE_OBS_SIZE, encode
from mariash_env.rules import RulesError, make_rules
from mariash_env.vector import (
    STATE_BYTES,
    VectorEnv,
    game_seed_words,
    random_legal_actions,
)

ALL32 = (1 << 32) - 1
SNAP_FIELDS = ("player", "mask", "rewards", "deal_done", "partie_done", "deal_no")


def snap(step):
    """A copy of a Step (its arrays are the engine's reused buffers)."""
    out = {k: getattr(step, k).copy() for k in SNAP_FIELDS}
    out["obs"] = None if step.obs is None else step.obs.copy()
    return out


def assert_same(a, b):
    for k in (*SNAP_FIELDS, "obs"):
        if a[k] is None or b[k] is None:
            assert a[k] is None and b[k] is None, k
        else:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def play(venv, step, rng, nsteps):
    """Random legal play; returns the list of (actions, step snapshot)."""
    out = []
    for _ in range(nsteps):
        a = random_legal_actions(step.mask, rng)
        step = venv.step(a)
        out.append((a, snap(step)))
    return out, step


def popcounts(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.int64) & ALL32
    return np.array([bin(int(v)).count("1") for v in x.ravel()]).reshape(x.shape)


def card_sets(states: np.ndarray) -> np.ndarray:
    """int64[N, 7]: the disjoint places a card can be: 3 hands, talon, played, claimed
    hands (after a lay-down), and a first discard not yet in the talon."""
    st = states.astype(np.int64) & ALL32
    hands = st[:, S.HAND:S.HAND + 3]
    talon = st[:, S.TALON]
    played = st[:, S.PLAYED]
    claim = st[:, S.CLAIM_HANDS] | st[:, S.CLAIM_HANDS + 1] | st[:, S.CLAIM_HANDS + 2]
    # Between the two discards the first one is out of the hand; depending on the core's
    # bookkeeping it is already in the talon or only in DISC[0].
    d0 = states[:, S.DISC].astype(np.int64)
    pending = np.where((states[:, S.PHASE] == S.PH_DISCARD) & (states[:, S.NDISC] == 1)
                       & (d0 >= 0), np.left_shift(1, np.maximum(d0, 0)), 0)
    pending &= ~talon
    return np.column_stack([hands, talon, played, claim, pending])


def assert_cards_conserved(states: np.ndarray) -> None:
    sets = card_sets(states)
    union = np.bitwise_or.reduce(sets, axis=1)
    bad = np.flatnonzero((union != ALL32) | (popcounts(sets).sum(axis=1) != 32))
    assert bad.size == 0, f"cards not conserved in games {bad[:10].tolist()}"


# --------------------------------------------------------------------------- basics


def test_shapes_and_attributes():
    venv = VectorEnv(5, seed=1)
    step = venv.reset()
    assert venv.num_envs == 5 and venv.num_actions == 115
    assert venv.obs_size == OBS_SIZE and venv.state_size == S.STATE_SIZE
    assert STATE_BYTES == S.STATE_SIZE * 4 == 1152
    assert step.player.shape == (5,) and step.player.dtype == np.int64
    assert step.obs.shape == (5, OBS_SIZE) and step.obs.dtype == np.float32
    assert step.mask.shape == (5, 115) and step.mask.dtype == np.int8
    assert step.rewards.shape == (5, 3) and step.rewards.dtype == np.float64
    assert step.deal_done.dtype == np.bool_ and step.partie_done.dtype == np.bool_
    assert step.deal_no.dtype == np.int64 and not step.deal_no.any()
    assert (step.player == 1).all()  # forehand of the first dealer, seat 0
    assert (step.mask.sum(axis=1) > 0).all()
    full = venv.state()
    assert full.shape == (5, STATE_OBS_SIZE) and full.dtype == np.float32
    assert venv.copy_states().shape == (5, S.STATE_SIZE)
    assert not venv.states.flags.writeable


def test_bad_construction_and_use():
    with pytest.raises(ValueError):
        VectorEnv(0)
    with pytest.raises(RulesError):
        VectorEnv(2, colour="red")
    with pytest.raises(RulesError):
        VectorEnv(2, deals=0)
    venv = VectorEnv(2, seed=0)
    with pytest.raises(RuntimeError):
        venv.step(np.zeros(2, dtype=np.int64))
    # state() encoded the all-zero rows (no game) as if they were positions
    for rules in ("voleny", "licitovany"):
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            VectorEnv(2, rules=rules).state()
    step = venv.reset()
    assert venv.state().shape == (2, venv.state_obs_size)
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        venv.step(step.mask.argmax(axis=1).astype(np.float64))
    venv.step(step.mask.argmax(axis=1).astype(np.int32))  # any integer dtype is fine


def test_rule_options_reach_the_core():
    venv = VectorEnv(2, seed=0, tariff="csm", deals=3, max_flek=None)
    assert venv.rules == make_rules(tariff="csm", deals=3, max_flek=None)
    np.testing.assert_array_equal(venv.rules_vector, venv.rules.vector())


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_trajectory_and_reset_reseeds():
    a, b = VectorEnv(48, seed=123), VectorEnv(48, seed=123)
    ta, _ = play(a, a.reset(), np.random.default_rng(5), 250)
    tb, _ = play(b, b.reset(), np.random.default_rng(5), 250)
    for (xa, sa), (xb, sb) in zip(ta, tb):
        np.testing.assert_array_equal(xa, xb)
        assert_same(sa, sb)
    np.testing.assert_array_equal(a.copy_states(), b.copy_states())
    # reset(seed) on a used env starts exactly like a fresh env
    first = snap(VectorEnv(48, seed=123).reset())
    assert_same(snap(a.reset(seed=123)), first)
    assert a.seed == 123


def test_per_game_streams():
    n = 64
    venv = VectorEnv(n, seed=9)
    venv.reset()
    st = venv.copy_states()
    hands = st[:, S.HAND:S.HAND + 3]
    assert len({tuple(r) for r in hands}) == n  # every game dealt differently
    rng_words = st[:, S.RNG:S.RNG + 4]
    assert len({tuple(r) for r in rng_words}) == n
    # documented scheme: game i of reset(seed) starts from seed_words(seed + i)
    shifted = VectorEnv(n - 1, seed=10)
    shifted.reset()
    np.testing.assert_array_equal(shifted.copy_states(), st[1:])
    w = np.array([int(x) for x in game_seed_words(9, 3)], dtype=np.int64)
    one = S.new_state()
    for j in range(4):
        S.setm(one, S.RNG + j, int(w[j]))
    start_partie(one, shuffled_deck(one), 0)
    one[S.CUT] = -1
    np.testing.assert_array_equal(one, st[3])
    # seedless resets continue the sequence deterministically
    v1, v2 = VectorEnv(4, seed=50), VectorEnv(4, seed=54)
    v1.reset()
    v1.reset()
    v2.reset()
    np.testing.assert_array_equal(v1.copy_states(), v2.copy_states())
    assert v1.seed == 54


# --------------------------------------------------------------------------- invariants


def test_zero_sum_and_cards_conserved():
    venv = VectorEnv(128, seed=3, observations=False, deals=2)
    step = venv.reset()
    assert step.obs is None
    rng = np.random.default_rng(3)
    deals_seen = 0
    cum = np.zeros((128, 3), dtype=np.int64)
    for _ in range(400):  # ~50k decisions
        step = venv.step(random_legal_actions(step.mask, rng))
        st = venv.copy_states()
        assert_cards_conserved(st)
        assert (step.rewards.sum(axis=1) == 0).all()
        assert (S.read64(st, S.SCORE, 3).sum(axis=1) == 0).all()
        assert (step.player == st[:, S.TO_MOVE]).all() and (step.player >= 0).all()
        assert (st[:, S.PHASE] != S.PH_DONE).all()
        assert (step.mask.sum(axis=1) > 0).all()
        cum = np.where(step.partie_done[:, None], 0, cum + step.rewards.astype(np.int64))
        np.testing.assert_array_equal(cum, S.read64(st, S.SCORE, 3))
        deals_seen += int(step.deal_done.sum())
    assert deals_seen > 500
    assert venv.decisions == 400 * 128


def test_auto_reset_into_next_deal_and_partie():
    deals = 2
    n = 96
    venv = VectorEnv(n, seed=4, deals=deals)
    step = venv.reset()
    rng = np.random.default_rng(4)
    prev_no = step.deal_no.copy()
    prev_st = venv.copy_states()
    n_deal = n_partie = 0
    for _ in range(300):
        step = venv.step(random_legal_actions(step.mask, rng))
        st = venv.copy_states()
        d, p = step.deal_done, step.partie_done
        assert not (p & ~d).any()
        nxt = d & ~p
        np.testing.assert_array_equal(step.deal_no[nxt], prev_no[nxt] + 1)
        assert (prev_no[p] == deals - 1).all() and (step.deal_no[p] == 0).all()
        np.testing.assert_array_equal(step.deal_no[~d], prev_no[~d])
        np.testing.assert_array_equal(step.deal_no, st[:, S.DEAL_NO])
        # a fresh partie: scores cleared, dealer 0, shuffled (no cut); next deal: cut 2..30
        assert (S.read64(st[p], S.SCORE, 3) == 0).all()
        assert (st[p, S.DEALER] == 0).all() and (st[p, S.CUT] == -1).all()
        assert ((st[nxt, S.CUT] >= 2) & (st[nxt, S.CUT] <= 30)).all()
        assert (st[d, S.PHASE] == S.PH_TRUMP).all()
        assert (step.rewards[~d] == 0).all()
        # the new deal's dealer is the old forehand
        np.testing.assert_array_equal(st[nxt, S.DEALER], prev_st[nxt, S.FOREHAND])
        prev_no = step.deal_no.copy()
        prev_st = st
        n_deal += int(d.sum())
        n_partie += int(p.sum())
    assert n_partie > 50 and n_deal > 2 * n_partie - n


# --------------------------------------------------------------------------- illegal actions


def test_illegal_action_raises_and_applies_nothing():
    venv = VectorEnv(16, seed=11)
    step = venv.reset()
    rng = np.random.default_rng(11)
    for _ in range(30):
        step = venv.step(random_legal_actions(step.mask, rng))
    before_states = venv.copy_states()
    before = snap(step)
    acts = random_legal_actions(step.mask, rng)
    bad = acts.copy()
    illegal = np.flatnonzero(step.mask[5] == 0)[0]
    bad[5] = illegal
    bad[9] = 115
    bad[12] = -1
    with pytest.raises(ValueError) as exc:
        venv.step(bad)
    msg = str(exc.value)
    assert "3 game(s)" in msg and f"game 5: action {illegal}" in msg
    assert "game 9: action 115" in msg and "game 12: action -1" in msg
    np.testing.assert_array_equal(venv.copy_states(), before_states)
    assert_same(snap(step), before)
    assert venv.decisions == 30 * 16
    # the env goes on exactly as if the bad call never happened
    ref = VectorEnv(16, seed=11)
    s2 = ref.reset()
    r2 = np.random.default_rng(11)
    for _ in range(30):
        s2 = ref.step(random_legal_actions(s2.mask, r2))
    random_legal_actions(s2.mask, r2)
    assert_same(snap(venv.step(acts)), snap(ref.step(acts)))


# --------------------------------------------------------------------------- copy / restore


def test_copy_restore_round_trip():
    venv = VectorEnv(32, seed=21, deals=3)
    step = venv.reset()
    rng = np.random.default_rng(21)
    _, step = play(venv, step, rng, 40)
    at_snap = snap(step)
    saved = venv.copy_states()
    rng_state = rng.bit_generator.state
    first, _ = play(venv, step, rng, 120)
    assert not np.array_equal(venv.copy_states(), saved)
    venv.restore_states(saved)
    np.testing.assert_array_equal(venv.copy_states(), saved)
    step = venv.current()
    assert_same(snap(step), at_snap)
    rng.bit_generator.state = rng_state
    second, _ = play(venv, step, rng, 120)
    for (xa, sa), (xb, sb) in zip(first, second):
        np.testing.assert_array_equal(xa, xb)
        assert_same(sa, sb)
    # restoring a different position per row: row j takes row 0's game
    many = saved.copy()
    many[:] = saved[0]
    venv.restore_states(many)
    cur = venv.current()
    assert (cur.mask == cur.mask[0]).all() and (cur.obs == cur.obs[0]).all()


def test_restore_validates():
    venv = VectorEnv(4, seed=0)
    venv.reset()
    good = venv.copy_states()
    with pytest.raises(ValueError, match="dtype"):
        venv.restore_states(good.astype(np.int64))
    with pytest.raises(ValueError, match="shape"):
        venv.restore_states(good[:3])
    with pytest.raises(TypeError):
        venv.restore_states(good.tolist())
    broken = good.copy()
    broken[2, S.PHASE] = 42
    with pytest.raises(ValueError, match=r"phase .*\[2\]"):
        venv.restore_states(broken)
    broken = good.copy()
    broken[1, S.POS + 3] = 40
    with pytest.raises(ValueError, match="positions"):
        venv.restore_states(broken)
    np.testing.assert_array_equal(venv.copy_states(), good)


# --------------------------------------------------------------------------- partial reset

GAMES = [pytest.param({}, id="voleny"), pytest.param({"rules": "licitovany"}, id="licitovany"),
         pytest.param({"players": 4}, id="four"), pytest.param({"rules": "lizany"}, id="lizany")]


@pytest.mark.parametrize("rules", GAMES)
def test_reset_rows_restarts_those_games_only(rules):
    """``reset_rows`` (the vector front ends' partial reset, which each did by building a
    second engine and restoring every state): the restarted games are game ``i`` of a
    whole ``reset(seed)``, generator included, and show their first decision with zero
    rewards and flags; the other games' states and outputs are untouched; a bool mask and
    indices are the same call; play goes on from there as from a whole reset."""
    n = 6
    venv = VectorEnv(n, seed=3, **rules)
    step = venv.reset()
    rng = np.random.default_rng(0)
    _, step = play(venv, step, rng, 7)
    before, shown = venv.copy_states(), snap(step)
    rows = np.array([True, False, False, True, False, True])
    out = venv.reset_rows(rows, seed=50)
    whole = VectorEnv(n, **rules)
    ref = snap(whole.reset(seed=50))
    after = venv.copy_states()
    np.testing.assert_array_equal(after[~rows], before[~rows])
    np.testing.assert_array_equal(after[rows], whole.copy_states()[rows])
    got = snap(out)
    for k in (*SNAP_FIELDS, "obs"):
        np.testing.assert_array_equal(got[k][rows], ref[k][rows], err_msg=k)
        np.testing.assert_array_equal(got[k][~rows], shown[k][~rows], err_msg=k)
    twin = VectorEnv(n, seed=3, **rules)
    twin.restore_states(before)
    twin.reset_rows(np.flatnonzero(rows).tolist(), seed=50)
    np.testing.assert_array_equal(twin.copy_states(), after)
    # the restarted games go on as the whole reset's do under the same actions
    a = random_legal_actions(out.mask, rng)
    b = random_legal_actions(ref["mask"], np.random.default_rng(1))
    b[rows] = a[rows]
    cont, theirs = snap(venv.step(a)), snap(whole.step(b))
    for k in (*SNAP_FIELDS, "obs"):
        np.testing.assert_array_equal(cont[k][rows], theirs[k][rows], err_msg=k)


def _whole(n, seed, rules):
    """The states of a whole ``reset(seed)`` of ``n`` games."""
    venv = VectorEnv(n, **rules)
    venv.reset(seed=seed)
    return venv.copy_states()


@pytest.mark.parametrize("rules", [{}, {"rules": "lizany"}])
def test_reset_rows_seeds_by_position(rules):
    """Game ``i`` gets the seed a whole reset with the same ``seed`` gives it (``seed + i``,
    ``seed[i]``, or the sequence's next + i), whichever other games restart; the sequence
    goes on after the largest seed used, and ``seed`` (the last whole reset's) stays."""
    n = 4
    alone, with_others = VectorEnv(n, **rules), VectorEnv(n, **rules)
    alone.reset(seed=0)
    with_others.reset(seed=0)
    alone.reset_rows([2], seed=30)
    with_others.reset_rows([0, 1, 2], seed=30)
    np.testing.assert_array_equal(alone.copy_states()[2], _whole(n, 30, rules)[2])
    np.testing.assert_array_equal(with_others.copy_states()[2], _whole(n, 30, rules)[2])
    venv = VectorEnv(n, seed=100, **rules)
    venv.reset()  # 100..103: next 104
    venv.reset_rows(np.array([False, True, False, False]))  # game 1: 105
    np.testing.assert_array_equal(venv.copy_states()[1], _whole(n, 104, rules)[1])
    assert venv.seed == 100
    venv.reset()  # after the largest seed used: 106..109
    np.testing.assert_array_equal(venv.copy_states(), _whole(n, 106, rules))
    venv.reset_rows([0, 3], seed=[7, None, 9, None])  # game 0: 7; game 3: 110 + 3
    np.testing.assert_array_equal(venv.copy_states()[0], _whole(1, 7, rules)[0])
    np.testing.assert_array_equal(venv.copy_states()[3], _whole(n, 110, rules)[3])
    venv.reset()  # after 113
    np.testing.assert_array_equal(venv.copy_states(), _whole(n, 114, rules))


def test_reset_rows_checks_its_arguments():
    """Rows are a bool mask of ``num_envs`` or game indices (repeats once); anything else,
    and a bad seed, is refused by name before any game changes; no rows change nothing;
    before the first reset only every game can restart (that is a whole reset)."""
    from mariash_env import OptionError

    fresh = VectorEnv(3)
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        fresh.reset_rows([1], seed=4)
    whole = snap(fresh.reset_rows(np.ones(3, dtype=bool), seed=4))
    assert_same(whole, snap(VectorEnv(3).reset(seed=4)))
    assert fresh.seed == 4
    venv = VectorEnv(3, seed=0)
    venv.reset()
    good = venv.copy_states()
    for rows, match in ((np.ones(2, dtype=bool), r"shape \(3,\)"),
                        ([0.0, 1.0], "indices"), ([[0, 1]], "indices"),
                        ([0, 3], r"\[0, 3\).*\[3\]"), ([-1], r"\[-1\]"),
                        (np.array([2**63], dtype=np.uint64), "9223372036854775808")):
        with pytest.raises(ValueError, match=match):
            venv.reset_rows(rows)
    for seed in (-1, 1.5, [1, 2]):
        with pytest.raises(OptionError, match="seed"):
            venv.reset_rows([0], seed=seed)
    venv.reset_rows([], seed=9)
    venv.reset_rows(np.zeros(3, dtype=bool))
    np.testing.assert_array_equal(venv.copy_states(), good)
    venv.reset_rows([1, 1], seed=20)
    np.testing.assert_array_equal(venv.copy_states()[1], _whole(3, 20, {})[1])


@pytest.mark.parametrize("rules", [{}, {"rules": "lizany"}])
def test_reset_rows_costs_the_restarted_games_only(rules, monkeypatch):
    """Restarting 10 of 4,096 games cost about a fifth of a whole reset (13 ms against
    71 ms through GymVectorEnv): the front ends built a second engine, copied and
    validated every state and recomputed every row.  ``reset_rows`` hands the compiled
    reset the restarted rows only, in one call, and builds no second engine (about
    0.1 ms here, 300 times less than a whole reset; no timing is asserted)."""
    import importlib

    n = 4096
    venv = VectorEnv(n, seed=0, **rules)
    venv.reset()
    module = importlib.import_module(type(venv).__module__)
    kernel, seen = module._reset_kernel, []

    def recording(states, rows, *args):
        seen.append(np.array(rows))
        return kernel(states, rows, *args)

    def no_second_engine(*args, **kw):
        raise AssertionError("reset_rows built a second engine")

    monkeypatch.setattr(module, "_reset_kernel", recording)
    monkeypatch.setattr(type(venv), "__init__", no_second_engine)
    monkeypatch.setattr(type(venv), "copy_states", no_second_engine)
    rows = np.arange(0, n, n // 10)[:10]
    venv.reset_rows(rows[::-1])
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], rows)


# --------------------------------------------------------------------------- differential


def test_matches_plain_core_loop():
    """Every output of every step equals a per-game Python loop over the core functions."""
    n, seed, deals = 12, 1000, 3
    rules = make_rules(deals=deals).vector()
    venv = VectorEnv(n, seed=seed, deals=deals)
    step = venv.reset()
    games = []
    for i in range(n):
        st = S.new_state()
        for j, w in enumerate(S.seed_words(seed + i)):
            S.setm(st, S.RNG + j, int(w))
        start_partie(st, shuffled_deck(st), 0)
        st[S.CUT] = -1
        games.append(st)
    mask = np.zeros(115, dtype=np.int8)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    full = np.zeros(STATE_OBS_SIZE, dtype=np.float32)
    rng = np.random.default_rng(seed)
    partie_ends = 0

    def check(i, st, step):
        legal_actions(st, rules, mask)
        np.testing.assert_array_equal(step.mask[i], mask)
        assert step.player[i] == st[S.TO_MOVE]
        encode(st, st[S.TO_MOVE], obs, False)
        np.testing.assert_array_equal(step.obs[i], obs)
        assert step.deal_no[i] == st[S.DEAL_NO]

    for i, st in enumerate(games):
        check(i, st, step)
    np.testing.assert_array_equal(venv.copy_states(), np.stack(games))
    for t in range(330):  # ~4,000 decisions, 3 parties per game
        acts = random_legal_actions(step.mask, rng)
        step = venv.step(acts)
        for i, st in enumerate(games):
            ended = apply_action(st, rules, int(acts[i]))
            assert bool(step.deal_done[i]) == bool(ended)
            if ended:
                assert st[S.PHASE] == S.PH_DONE
                assert_cards_conserved(st[None, :])  # incl. claimed hands of a lay-down
                pay = S.read64(st, S.PAY, 3)
                np.testing.assert_array_equal(step.rewards[i], pay)
                assert pay.sum() == 0
                if not advance_partie(st, rules, -1):
                    start_partie(st, shuffled_deck(st), 0)
                    st[S.CUT] = -1
                    assert step.partie_done[i]
                    partie_ends += 1
                else:
                    assert not step.partie_done[i]
            else:
                assert (step.rewards[i] == 0).all() and not step.partie_done[i]
            check(i, st, step)
        if t % 10 == 0:
            np.testing.assert_array_equal(venv.copy_states(), np.stack(games))
            full_v = venv.state()
            for i, st in enumerate(games):
                encode(st, 0, full, True)
                np.testing.assert_array_equal(full_v[i], full)
    np.testing.assert_array_equal(venv.copy_states(), np.stack(games))
    assert partie_ends >= n


# --------------------------------------------------------------------------- variants


def test_without_observations_same_games():
    a = VectorEnv(20, seed=8)
    b = VectorEnv(20, seed=8, observations=False)
    sa, sb = a.reset(), b.reset()
    ra, rb = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(150):
        sa = a.step(random_legal_actions(sa.mask, ra))
        sb = b.step_unchecked(random_legal_actions(sb.mask, rb))
        np.testing.assert_array_equal(sa.mask, sb.mask)
        np.testing.assert_array_equal(sa.rewards, sb.rewards)
    np.testing.assert_array_equal(a.copy_states(), b.copy_states())


def test_random_legal_actions():
    rng = np.random.default_rng(0)
    mask = (rng.random((500, 115)) < 0.05).astype(np.int8)
    mask[0] = 0
    mask[1] = 0
    mask[1, 114] = 1
    a = random_legal_actions(mask, rng)
    assert a[0] == -1 and a[1] == 114
    rows = np.flatnonzero(mask.any(axis=1))
    assert (mask[rows, a[rows]] == 1).all()
    # roughly uniform over two legal actions
    two = np.zeros((4000, 115), dtype=np.int8)
    two[:, [3, 90]] = 1
    picks = random_legal_actions(two, rng)
    assert set(np.unique(picks)) == {3, 90} and 1800 < (picks == 3).sum() < 2200


def test_parallel_matches_serial():
    a = VectorEnv(64, seed=2)
    b = VectorEnv(64, seed=2, parallel=True)
    sa, sb = a.reset(), b.reset()
    ra, rb = np.random.default_rng(2), np.random.default_rng(2)
    for _ in range(200):
        sa = a.step(random_legal_actions(sa.mask, ra))
        sb = b.step(random_legal_actions(sb.mask, rb))
        assert_same(snap(sa), snap(sb))
    bad = random_legal_actions(sb.mask, rb)
    bad[7] = 115
    with pytest.raises(ValueError, match="game 7"):
        b.step(bad)


@pytest.mark.parametrize("rules", [{"deals": 1}, {"rules": "lizany"}])
def test_gym_vector_action_space_samples_legal_actions(rules):
    """GymVectorEnv's ``action_space.sample()`` (Gymnasium's random exploration, unmasked)
    draws a legal action in every game, through partie ends and in a copy; the space still
    equals Gymnasium's batched Discrete and is pickled as a plain MultiDiscrete."""
    import copy
    import pickle

    from gymnasium import spaces
    from gymnasium.vector.utils import batch_space

    from mariash_env.gym_vector import GymVectorEnv

    env = GymVectorEnv(5, seed=2, **rules)
    assert env.action_space == batch_space(env.single_action_space, 5)
    assert env.action_space.sample() in env.action_space  # before reset: any actions
    env.reset(seed=2)
    env.action_space.seed(0)
    ended = 0
    for _ in range(40):
        _, _, terminated, _, _ = env.step(env.action_space.sample())  # legal, or it raises
        ended += int(terminated.sum())
    assert ended > 0
    twin = copy.deepcopy(env)
    twin.step(twin.action_space.sample())
    assert type(pickle.loads(pickle.dumps(env.action_space))) is spaces.MultiDiscrete
