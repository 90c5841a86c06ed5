"""``mariash_env.gym_vector.GymVectorEnv`` against Gymnasium 1.x's vector conventions
(``gymnasium.vector.SyncVectorEnv`` is the model): seeding, partial resets and the
per-game ``call`` / ``get_attr`` / ``set_attr``, its NEXT_STEP autoreset, Gymnasium's
vector wrappers over it and one seed a game (those three tests were in
test_torchrl_env.py, which is skipped without torch: this env needs none)."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.gym_vector import GymVectorEnv, ResetOptionError
from mariash_env.vector import VectorEnv, random_legal_actions

GAMES = [pytest.param({}, id="voleny"), pytest.param({"rules": "licitovany"}, id="licitovany"),
         pytest.param({"players": 4}, id="four"), pytest.param({"rules": "lizany"}, id="lizany")]


def _first(rules: str, seed: int, **kw) -> tuple[np.ndarray, np.ndarray]:
    """Game 0's first observation and mask after ``reset(seed=seed)``."""
    obs, info = GymVectorEnv(1, rules=rules, **kw).reset(seed=seed)
    return obs[0], info["action_mask"][0]


def _play_until_some_end(env, info, rng, steps=400):
    """Random legal steps until the last step ended some games but not all; its outputs.
    (Game 0 restarts after two steps: lízaný's deals, all as long, would end together.)"""
    for k in range(steps):
        if k == 2:
            mask = np.zeros(env.num_envs, dtype=bool)
            mask[0] = True
            _, info = env.reset(options={"reset_mask": mask})
        out = env.step(random_legal_actions(info["action_mask"].view(np.int8), rng))
        info = out[-1]
        if out[2].any() and not out[2].all():
            return out
    raise AssertionError("no step ended some games but not all")


@pytest.mark.parametrize("rules", ["voleny", "lizany"])
def test_a_seed_list_may_hold_none(rules):
    """Gymnasium's ``reset(seed=[...])`` takes None entries (that game unseeded): it was
    refused (OptionError).  A None game gets the seed an unseeded reset gives it (the
    sequence's ``next + i``), so ``seed=[None] * n`` is ``reset()``; the others theirs.
    The engine (both kinds) takes the same list."""
    env = GymVectorEnv(3, seed=100, rules=rules)
    obs, info = env.reset(seed=[None, 7, None])
    for i, s in enumerate((100, 7, 102)):
        one, mask = _first(rules, s)
        assert np.array_equal(obs[i], one) and np.array_equal(info["action_mask"][i], mask)
    later, _ = env.reset()  # the sequence goes on after the largest seed used
    twin = GymVectorEnv(3, rules=rules)
    twin.reset(seed=[100, 7, 102])
    assert np.array_equal(later, twin.reset()[0])
    assert np.array_equal(GymVectorEnv(3, seed=5, rules=rules).reset(seed=[None] * 3)[0],
                          GymVectorEnv(3, seed=5, rules=rules).reset()[0])
    venv = VectorEnv(2, seed=40, rules=rules)
    step = venv.reset(seed=np.array([None, 3], dtype=object))
    assert np.array_equal(step.obs[0], _first(rules, 40)[0])
    assert np.array_equal(step.obs[1], _first(rules, 3)[0])


def test_a_seeded_reset_sets_np_random_seed():
    """Gymnasium's ``VectorEnv.reset(seed=s)`` seeds ``np_random`` and sets
    ``np_random_seed`` to ``s``: ours left both alone (``np_random_seed`` was a fresh
    random int).  An unseeded reset keeps them; the constructor's seed counts as the
    first reset's; a seed list (no one int) gives -1, Gymnasium's "seed unknown", and a
    generator drawn from the games' seeds (the same list, the same generator)."""
    from gymnasium.utils import seeding
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    def draw(env):
        return env.np_random.integers(2**62, size=4).tolist()

    env = GymVectorEnv(2)
    env.reset(seed=5)
    assert env.np_random_seed == 5
    assert draw(env) == seeding.np_random(5)[0].integers(2**62, size=4).tolist()
    env.reset()
    assert env.np_random_seed == 5
    env.reset(seed=np.int64(6))
    assert env.np_random_seed == 6 and type(env.np_random_seed) is int
    env.reset(seed=[1, None])
    assert env.np_random_seed == -1
    twin = GymVectorEnv(2)
    twin.reset(seed=6)
    twin.reset(seed=[1, None])
    assert draw(env) == draw(twin)
    first = GymVectorEnv(2, seed=9)
    first.reset()
    assert first.np_random_seed == 9
    wrapped = RecordEpisodeStatistics(GymVectorEnv(2))
    wrapped.reset(seed=3)
    assert wrapped.np_random_seed == 3


@pytest.mark.parametrize("rules", GAMES)
def test_a_partial_reset_restarts_the_masked_games_only(rules):
    """Gymnasium 1.x's ``reset(options={"reset_mask": mask})`` was refused.  As
    SyncVectorEnv in NEXT_STEP mode: the masked games start a new partie (game i from the
    seed a whole reset gives it), the others keep their state and show what the last step
    returned, a game ended by that step its zero terminal observation, and its next step
    is still its autoreset (action ignored, reward 0); a restarted game plays its action."""
    n = 6
    rules = {"rules": "voleny", **rules}
    env = GymVectorEnv(n, seed=3, deals=1, **rules)
    _, info = env.reset()
    rng = np.random.default_rng(0)
    obs, _, term, _, info = _play_until_some_end(env, info, rng)
    # Restart all but one of the games in play and all but one of those the step ended.
    mask = np.ones(n, dtype=bool)
    mask[np.flatnonzero(~term)[0]] = mask[np.flatnonzero(term)[0]] = False
    waiting = term & ~mask  # its autoreset still pending
    before = env.vector_env.copy_states()
    options = {"reset_mask": mask}
    new, new_info = env.reset(seed=50, options=options)
    assert options == {"reset_mask": mask}  # read, not popped
    after = env.vector_env.copy_states()
    np.testing.assert_array_equal(after[~mask], before[~mask])
    for i in np.flatnonzero(mask):
        one, one_mask = _first(rules["rules"], 50 + int(i), deals=1,
                               **{k: v for k, v in rules.items() if k != "rules"})
        np.testing.assert_array_equal(new[i], one)
        np.testing.assert_array_equal(new_info["action_mask"][i], one_mask)
    np.testing.assert_array_equal(new[~mask], obs[~mask])  # kept: as the last step showed
    assert (new[waiting] == 0).all()
    np.testing.assert_array_equal(new_info["action_mask"][~mask], info["action_mask"][~mask])
    np.testing.assert_array_equal(new_info["seat"][~mask], info["seat"][~mask])
    a = random_legal_actions(new_info["action_mask"].view(np.int8), rng)
    a[waiting] = 10**6  # ignored: its autoreset
    _, reward, term2, _, _ = env.step(a)
    assert (reward[waiting] == 0).all() and not term2[waiting].any()
    now = env.vector_env.copy_states()
    np.testing.assert_array_equal(now[waiting], after[waiting])
    assert (now[~waiting] != after[~waiting]).any(axis=1).all()  # restarted ones played


def test_a_partial_reset_continues_the_sequence_and_checks_its_mask():
    """Without a seed the masked game i gets the sequence's next + i, and the sequence
    goes on after it; a mask of all True is the whole reset; a bad mask or another option
    is refused as SyncVectorEnv refuses it, before anything changes; before the first
    reset only a whole reset is accepted."""
    env = GymVectorEnv(3, seed=100, deals=1)
    env.reset()  # seeds 100, 101, 102: the next reset starts at 103
    obs, _ = env.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(obs[1], _first("voleny", 104, deals=1)[0])
    obs, _ = env.reset()  # after the largest seed used: 105
    np.testing.assert_array_equal(obs[0], _first("voleny", 105, deals=1)[0])
    whole, _ = env.reset(seed=7, options={"reset_mask": np.ones(3, dtype=bool)})
    np.testing.assert_array_equal(whole, GymVectorEnv(3, deals=1).reset(seed=7)[0])
    snap = env.vector_env.copy_states()
    for options, error in (({"reset_mask": [True, False, True]}, TypeError),
                           ({"reset_mask": np.array([1, 0, 1])}, TypeError),
                           ({"reset_mask": np.ones(2, dtype=bool)}, ResetOptionError),
                           ({"reset_mask": np.zeros(3, dtype=bool)}, ResetOptionError),
                           ({"reset_mask": np.ones(3, dtype=bool), "deck": []},
                            ResetOptionError),
                           ({"deck": []}, ResetOptionError)):
        with pytest.raises(error, match="reset_mask"):
            env.reset(seed=1, options=options)
    np.testing.assert_array_equal(env.vector_env.copy_states(), snap)
    fresh = GymVectorEnv(3)
    with pytest.raises(RuntimeError, match="call reset"):
        fresh.reset(options={"reset_mask": np.array([True, False, False])})
    fresh.reset(seed=7, options={"reset_mask": np.ones(3, dtype=bool)})


def test_episode_statistics_see_a_partial_reset():
    """Gymnasium's RecordEpisodeStatistics reads ``reset_mask`` after the inner reset:
    over this env (which does not pop it, unlike SyncVectorEnv) a partial reset clears
    the restarted games' returns and lengths only."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(GymVectorEnv(3, seed=1))
    _, info = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        *_, info = env.step(random_legal_actions(info["action_mask"].view(np.int8), rng))
    assert (env.episode_lengths == 5).all()
    env.reset(options={"reset_mask": np.array([True, False, False])})
    assert env.episode_lengths.tolist() == [0, 5, 5]


@pytest.mark.parametrize("rules", GAMES)
def test_call_get_attr_and_set_attr_reach_every_game(rules):
    """Gymnasium's ``call`` / ``get_attr`` / ``set_attr`` (SyncVectorEnv's) were missing
    (AttributeError: the base class has none).  Each answers a tuple of one value a game: a
    rule option (the same in every game), the state's seat and deal, the legal actions;
    set_attr keeps a name of the caller's own per game; what cannot be set, and unknown
    names, are refused by name before anything changes."""
    n = 3
    env = GymVectorEnv(n, seed=2, **rules)
    venv = VectorEnv(1, **rules)
    options = venv.rules.to_dict() if hasattr(venv.rules, "to_dict") else venv.rules
    for name, value in options.items():
        assert env.get_attr(name) == (value,) * n
        assert env.call(name) == (value,) * n
    with pytest.raises(RuntimeError, match="call reset"):
        env.get_attr("seat")
    _, info = env.reset()
    _, _, _, _, info = env.step(random_legal_actions(info["action_mask"].view(np.int8),
                                                     np.random.default_rng(0)))
    assert env.get_attr("seat") == tuple(info["seat"].tolist())
    assert all(type(s) is int for s in env.get_attr("seat"))
    assert env.get_attr("deal_no") == tuple(env.vector_env.current().deal_no.tolist())
    masks = env.call("action_masks")
    assert len(masks) == n
    np.testing.assert_array_equal(np.stack(masks), info["action_mask"])
    np.testing.assert_array_equal(np.stack(env.get_attr("action_masks")), info["action_mask"])
    env.set_attr("level", [1, 2, 3])
    assert env.get_attr("level") == (1, 2, 3) and env.call("level") == (1, 2, 3)
    env.set_attr("level", "easy")
    assert env.get_attr("level") == ("easy",) * n
    for name, match in (("rules", "rule option"), ("seat", "state"),
                        ("action_masks", "state"), ("num_envs", "GymVectorEnv itself"),
                        ("np_random", "GymVectorEnv itself")):
        with pytest.raises(AttributeError, match=match):
            env.set_attr(name, 1)
    with pytest.raises(ValueError, match="one value a game"):
        env.set_attr("level", [1, 2])
    assert env.get_attr("level") == ("easy",) * n
    with pytest.raises(AttributeError, match=r"no per-game attribute 'nope'.*'seat'"):
        env.get_attr("nope")
    with pytest.raises(AttributeError, match="nope"):
        env.call("nope")
    with pytest.raises(TypeError, match="not a method"):
        env.call("seat", 1)
    assert env.num_envs == n


@pytest.mark.parametrize("rules", GAMES)
def test_the_terminal_observation_is_a_zero_placeholder(rules):
    """The docstring called the zero terminal observation "the engine's observation of a
    finished deal"; the engine has none: it restarts the game inside the step that ends
    its partie, and its Step.obs row of that step (not zero) is the new partie's first
    decision, which the next step returns.  (A wording fix: this test passed before.)"""
    env = GymVectorEnv(6, seed=4, deals=1, **rules)
    _, info = env.reset()
    rng = np.random.default_rng(1)
    obs, _, term, _, info = _play_until_some_end(env, info, rng)
    engine = env.vector_env.current().obs[term].copy()
    assert (obs[term] == 0).all() and (engine != 0).any(axis=1).all()
    nxt, reward, _, _, _ = env.step(random_legal_actions(info["action_mask"].view(np.int8),
                                                         rng))
    np.testing.assert_array_equal(nxt[term], engine)
    assert (reward[term] == 0).all()


# ------------------------------------------------ autoreset, wrappers, one seed a game


@pytest.mark.parametrize("rules", GAMES)
def test_gym_vector_next_step_autoreset(rules):
    """Issue #31, Gymnasium VectorEnv: NEXT_STEP autoreset (terminal observation zeros,
    then the new partie with reward 0 and the action ignored), the mover's reward as the
    scalar, per-seat rewards zero-sum in info, masks and seats equal to VectorEnv's."""
    from gymnasium.vector import AutoresetMode

    n = 8
    env = GymVectorEnv(n, deals=1, **rules)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    venv = VectorEnv(n, deals=1, **rules)
    obs, info = env.reset(seed=4)
    step = venv.reset(seed=4)
    rng = np.random.default_rng(1)
    restarting = np.zeros(n, dtype=bool)
    ends = 0
    for _ in range(150):
        assert env.observation_space.contains(obs)
        mover = info["seat"].copy()
        np.testing.assert_array_equal(info["seat"], step.player)
        np.testing.assert_array_equal(info["action_mask"], step.mask.astype(bool))
        np.testing.assert_array_equal(obs[~restarting], step.obs[~restarting])
        a = random_legal_actions(info["action_mask"].view(np.int8), rng)
        obs, reward, term, trunc, info = env.step(a)
        step = venv.step_unchecked(np.where(restarting, -1, a))
        assert not trunc.any()
        np.testing.assert_array_equal(term, step.partie_done)
        np.testing.assert_array_equal(info["rewards"], step.rewards)
        np.testing.assert_allclose(info["rewards"].sum(1), 0)
        np.testing.assert_array_equal(reward, step.rewards[np.arange(n), mover])
        assert (reward[restarting] == 0).all() and not term[restarting].any()
        assert (obs[term] == 0).all()
        ends += int(term.sum())
        restarting = term
    assert ends > 0


@pytest.mark.parametrize("rules", GAMES)
def test_the_observation_space_is_the_games_own(rules):
    """The single observation space is the game's, as its AEC env and SingleAgentEnv
    declare it (lízaný's Box(0, 1): it was Box(-inf, inf) here), and whole random
    parties stay in it."""
    import mariash_env
    from mariash_env.single_agent import SingleAgentEnv

    env = GymVectorEnv(4, deals=1, **rules) if rules.get("rules") != "lizany" \
        else GymVectorEnv(4, **rules)
    aec = mariash_env.env(**rules)
    own = aec.observation_space(aec.possible_agents[0])["observation"]
    assert env.single_observation_space == own
    assert env.single_observation_space == SingleAgentEnv(opponents="random",
                                                          **rules).observation_space
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(120):
        assert obs in env.observation_space
        obs, _, term, _, info = env.step(random_legal_actions(
            info["action_mask"].view(np.int8), rng))
        ends += int(term.sum())
    assert ends > 0


def test_gym_vector_wrappers_seeding_and_checks():
    """Issue #31, Gymnasium VectorEnv: Gymnasium's vector wrappers (observation wrappers
    accept NEXT_STEP only) run on it, the same seed gives the same data, returned arrays
    are never shared between calls, bad actions and options are refused."""
    import gymnasium as gym
    from gymnasium.utils.env_checker import data_equivalence
    from gymnasium.utils.passive_env_checker import check_action_space, check_observation_space
    from gymnasium.wrappers.vector import NormalizeObservation, RecordEpisodeStatistics

    def run(seed):
        env = RecordEpisodeStatistics(NormalizeObservation(GymVectorEnv(4, deals=1)))
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        got, episodes = [(obs, info)], 0
        for _ in range(80):
            a = random_legal_actions(info["action_mask"].view(np.int8), rng)
            *out, info = env.step(a)
            episodes += int(info.pop("_episode", np.zeros(1)).sum())
            info.pop("episode", None)  # its wall times differ from run to run
            got.append((*out, info))
        assert episodes > 0
        return got

    a, b = run(9), run(9)
    assert data_equivalence(a, b, exact=True)
    assert not data_equivalence(a, run(10))
    env = GymVectorEnv(3)
    check_observation_space(env.single_observation_space)
    check_action_space(env.single_action_space)
    assert isinstance(env.action_space, gym.spaces.MultiDiscrete)
    o1, i1 = env.reset(seed=1)
    o2, _, _, _, i2 = env.step(random_legal_actions(i1["action_mask"].view(np.int8),
                                                    np.random.default_rng(0)))
    assert not np.shares_memory(o1, o2)
    assert not np.shares_memory(i1["action_mask"], i2["action_mask"])
    o3, _ = env.reset(seed=1)
    assert np.array_equal(o1, o3) and not np.shares_memory(o1, o3)
    with pytest.raises(ValueError, match="illegal action"):
        env.step((~i2["action_mask"]).argmax(1))
    with pytest.raises(ValueError, match="3 integers"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ResetOptionError):
        env.reset(options={"deck": []})


@pytest.mark.parametrize("rules", ["voleny", "lizany"])
def test_gym_vector_reset_takes_a_seed_per_game(rules):
    """Gymnasium's VectorEnv.reset(seed=[...]): game i from seed[i], the same as game 0 of
    reset(seed=seed[i]) (and seed + i for one int); a list of another length, a negative or
    a non-integer seed is refused by name (None entries: test_a_seed_list_may_hold_none)."""
    from mariash_env import OptionError

    env = GymVectorEnv(3, rules=rules)
    obs, info = env.reset(seed=[11, 5, 40])
    for i, s in enumerate((11, 5, 40)):
        one, one_info = GymVectorEnv(1, rules=rules).reset(seed=s)
        assert np.array_equal(obs[i], one[0])
        assert np.array_equal(info["action_mask"][i], one_info["action_mask"][0])
    again, _ = env.reset(seed=5)
    assert np.array_equal(again[0], obs[1])
    for bad in ([1, 2], [1, -2, 3], [1, 2.5, 3]):
        with pytest.raises(OptionError, match="seed"):
            env.reset(seed=bad)


# ------------------------------------------------ Gymnasium's info masks, render


@pytest.mark.parametrize("rules", GAMES)
def test_infos_carry_gymnasiums_key_masks(rules):
    """Gymnasium's vector infos pair every array with a bool ``_<key>`` mask, True where
    the game has that info (``SyncVectorEnv._add_info``): ours had none.  NEXT_STEP's
    convention: a game's autoreset step returns its reset's info, so its ``_rewards`` and
    ``_deal_done`` are False; a partial reset gives every game's mask and seat; no
    ``final_obs`` / ``final_info`` (SAME_STEP's).  ``DictInfoToList`` reads the masks."""
    from gymnasium.wrappers.vector import DictInfoToList

    n = 6
    env = GymVectorEnv(n, seed=2, deals=1, **rules)
    _, info = env.reset()
    assert set(info) == {"action_mask", "_action_mask", "seat", "_seat"}
    assert info["_action_mask"].dtype == np.bool_ and info["_action_mask"].all()
    assert info["_seat"].all() and info["_seat"] is not info["_action_mask"]
    rng = np.random.default_rng(0)
    _, _, term, _, info = _play_until_some_end(env, info, rng)
    assert set(info) == {"action_mask", "_action_mask", "seat", "_seat", "rewards", "_rewards",
                         "deal_done", "_deal_done"}
    assert info["_rewards"].all() and info["_deal_done"].all()
    *_, info = env.step(random_legal_actions(info["action_mask"].view(np.int8), rng))
    np.testing.assert_array_equal(info["_rewards"], ~term)  # the autoreset games: reset info
    np.testing.assert_array_equal(info["_deal_done"], ~term)
    assert info["_action_mask"].all() and info["_seat"].all()
    mask = np.zeros(n, dtype=bool)
    mask[0] = True
    _, info = env.reset(options={"reset_mask": mask})
    assert info["_action_mask"].all() and info["_seat"].all()

    listed = DictInfoToList(GymVectorEnv(n, seed=2, deals=1, **rules))
    _, infos = listed.reset()
    for _ in range(400):
        acts = random_legal_actions(np.stack([i["action_mask"] for i in infos]).view(np.int8),
                                    rng)
        _, _, term, _, infos = listed.step(acts)
        if term.any():
            break
    *_, infos = listed.step(random_legal_actions(
        np.stack([i["action_mask"] for i in infos]).view(np.int8), rng))
    for i, one in enumerate(infos):
        keys = {"action_mask", "seat"} | (set() if term[i] else {"rewards", "deal_done"})
        assert set(one) == keys


@pytest.mark.parametrize("rules", GAMES)
def test_render_gives_each_games_table(rules, capsys):
    """Gymnasium's ``VectorEnv.render`` was not implemented (NotImplementedError) and
    ``render_mode`` was a rule option (a RulesError).  Now the single env's modes:
    ``"ansi"`` answers one text a game, the table its AEC env renders for the same seed
    (game i of ``reset(seed=s)`` is that env's ``reset(seed=s + i)``); ``"human"`` prints
    them in reset and every step, its render() one None a game, as SyncVectorEnv's;
    another mode is the project's RenderModeError, and no mode warns and answers None."""
    import gymnasium

    import mariash_env
    from mariash_env.game import RenderModeError

    env = GymVectorEnv(2, render_mode="ansi", **rules)
    assert env.render_mode == "ansi" and env.metadata["render_modes"] == ["ansi", "human"]
    # each game's render mode, as SyncVectorEnv's get_attr answers it (it was refused)
    assert env.get_attr("render_mode") == ("ansi", "ansi")
    assert GymVectorEnv(2, **rules).get_attr("render_mode") == (None, None)
    with pytest.raises(RuntimeError, match="reset"):
        env.render()
    _, info = env.reset(seed=7)
    frames = env.render()
    assert isinstance(frames, tuple) and len(frames) == 2
    for i, frame in enumerate(frames):
        aec = mariash_env.env(render_mode="ansi", **rules)
        aec.reset(seed=7 + i)
        assert frame == aec.render()
    env.step(random_legal_actions(info["action_mask"].view(np.int8), np.random.default_rng(0)))
    assert env.render() != frames

    human = GymVectorEnv(2, render_mode="human", **rules)
    _, info = human.reset(seed=7)
    printed = capsys.readouterr().out
    assert printed.startswith("game 0\n") and frames[1] in printed
    human.step(random_legal_actions(info["action_mask"].view(np.int8),
                                    np.random.default_rng(0)))
    assert "game 1\n" in capsys.readouterr().out
    assert human.render() == (None, None) and capsys.readouterr().out

    with pytest.raises(RenderModeError, match="rgb_array"):
        GymVectorEnv(2, render_mode="rgb_array", **rules)
    quiet = GymVectorEnv(2, **rules)
    assert quiet.render_mode is None
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None
    assert isinstance(quiet, gymnasium.vector.VectorEnv)
