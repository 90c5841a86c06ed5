"""mariash_env.single_agent: one learning seat against two robots, as a Gymnasium env."""

from __future__ import annotations

import copy
import pickle
import re

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

from mariash_env import IllegalActionError, OptionError
from mariash_env.robots import RandomRobot
from mariash_env.single_agent import SingleAgentEnv
from tests.helpers import step_cap


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("obs_keys", [None, ("obs", "mask")])
def test_gymnasium_check_env_passes(obs_keys):
    # illegal="terminate": check_env steps an action sampled in another state.
    check_env(SingleAgentEnv(deals=2, obs_keys=obs_keys, illegal="terminate"),
              skip_render_check=True)


def _play(env: SingleAgentEnv, seed: int, rng: np.random.Generator):
    obs, info = env.reset(seed=seed)
    trace, total, done = [], 0.0, False
    tick = step_cap(env.rules, deals=None)
    while not done:
        tick()
        g = env.game
        # The learner is asked only on its own turns, with its own legal mask.
        assert g.to_move == env.seat and not g.deal_over
        mask = env.action_masks()
        assert mask.dtype == bool and (mask == g.legal_mask(env.seat).astype(bool)).all()
        assert np.array_equal(obs if env._keys is None else obs[env._keys[0]],
                              g.observation(env.seat))
        obs, reward, done, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not trunc and set(info) == {"deal", "settlement_deal"}
        total += reward
        trace.append((reward, info["settlement_deal"]))
    return trace, total


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_rewards_add_up_to_the_learners_score(seat):
    # RULES.md §9: each deal pays the learner its groše; the episode sums to its score.
    env = SingleAgentEnv(seat=seat, opponents="table", deals=3)
    trace, total = _play(env, seed=seat, rng=np.random.default_rng(seat))
    assert env.game.partie_over
    assert total == env.game.scores[seat]
    ended = [d for _, d in trace if d >= 0]
    assert ended == sorted(ended) and set(ended) <= {0, 1, 2}
    assert env.last_settlement is not None
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)


def test_same_seed_same_episode_and_robot_pairs():
    def run():
        env = SingleAgentEnv(seat=1, opponents=("random", RandomRobot(seed=3)), deals=2)
        return _play(env, seed=11, rng=np.random.default_rng(5))

    assert run() == run()


def test_dict_observation_layouts():
    env = SingleAgentEnv(obs_keys=("observations", "action_mask"), deals=1)
    obs, _ = env.reset(seed=2)
    assert set(obs) == {"observations", "action_mask"} and obs in env.observation_space
    assert (obs["action_mask"] == env.action_masks()).all()


@pytest.mark.parametrize("rules", [{}, {"players": 4}, {"rules": "licitovany"},
                                   {"rules": "lizany"}])
def test_tianshou_keys_give_a_bool_mask(rules):
    """Tianshou's ("obs", "mask") gave an int8 mask; Tianshou masks with ``~mask`` (on int8
    ``~1 == -2``, ``~0 == -1``: the last two entries), so its masked random policy drew
    illegal actions (an RL audit).  Its keys now give bool (its own PettingZooEnv's
    dtype), other keys int8 as before, ``mask_dtype`` any of bool/int8/float32; the
    observation space's mask entry has the same dtype."""
    env = SingleAgentEnv(obs_keys=("obs", "mask"), deals=1, **rules)
    obs, _ = env.reset(seed=3)
    assert obs["mask"].dtype == np.bool_ and env.observation_space["mask"].dtype == np.bool_
    assert obs in env.observation_space and (obs["mask"] == env.action_masks()).all()
    for keys, dtype, want in [(("observations", "action_mask"), None, np.int8),
                              (("o", "m"), "float32", np.float32),
                              (("obs", "mask"), "int8", np.int8),
                              (("o", "m"), bool, np.bool_)]:
        other = SingleAgentEnv(obs_keys=keys, mask_dtype=dtype, deals=1, **rules)
        obs, _ = other.reset(seed=3)
        assert obs[keys[1]].dtype == want and other.observation_space[keys[1]].dtype == want
        assert obs in other.observation_space


@pytest.mark.parametrize("bad", ["int64", 5, "nope"])
def test_a_bad_mask_dtype_is_an_option_error(bad):
    with pytest.raises(OptionError, match=r"invalid mask_dtype .*expected None, bool, "
                                          "'int8' or 'float32'"):
        SingleAgentEnv(obs_keys=("obs", "mask"), mask_dtype=bad)


def test_tianshou_masked_random_policy_plays_legal_actions():
    """The audit's case: Tianshou's MARLRandomDiscreteMaskedOffPolicyAlgorithm on
    SingleAgentEnv(obs_keys=("obs", "mask")) raised IllegalActionError within a few steps;
    now every action it collects is legal."""
    pytest.importorskip("tianshou")
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    def make():
        return SingleAgentEnv(obs_keys=("obs", "mask"), deals=1)

    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    algo = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=make().action_space)
    buf = VectorReplayBuffer(1000, 2)
    collector = Collector(algo, envs, buf)
    collector.reset()
    stats = collector.collect(n_step=200)
    assert stats.n_collected_steps >= 200 and stats.n_collected_episodes > 0
    idx = buf.sample_indices(0)  # every stored transition
    assert len(idx) == len(buf) and buf.obs.mask.dtype == np.bool_
    assert buf.obs.mask[idx, buf.act[idx]].all()
    envs.close()


def test_illegal_action_raises_and_changes_nothing():
    env = SingleAgentEnv(deals=1)
    env.reset(seed=4)
    before = env.game.st.copy()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(illegal)
    assert np.array_equal(env.game.st, before)
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # still playable


def test_terminate_mode_ends_with_minus_one():
    env = SingleAgentEnv(deals=1, illegal="terminate")
    env.reset(seed=4)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, trunc, _ = env.step(illegal)
    assert (reward, done, trunc) == (-1.0, True, False) and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)
    env.reset(seed=4)
    assert env.action_masks().any()


def test_action_space_samples_legal_actions_and_copies_as_discrete():
    env = SingleAgentEnv(deals=2)
    assert env.action_space.sample() in env.action_space  # before reset: any action
    env.reset(seed=1)
    for _ in range(60):
        a = env.action_space.sample()
        assert env.action_masks()[a]
        _, _, done, _, _ = env.step(a)
        if done:
            env.reset()
    for copied in (pickle.loads(pickle.dumps(env.action_space)), copy.deepcopy(env.action_space)):
        assert type(copied) is spaces.Discrete and copied == env.action_space


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"seat": 3}, "seat"),
        ({"opponents": "nope"}, "unknown robot"),
        ({"opponents": ["table"] * 3}, "pair"),
        ({"opponents": 5}, "opponent"),
        ({"obs_keys": ("a",)}, "obs_keys"),
        ({"obs_keys": "ab"}, "obs_keys"),
        ({"illegal": "ignore"}, "illegal"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"deals": 0}, "deals"),
    ],
)
def test_bad_options_name_what_was_wrong(kw, match):
    with pytest.raises(ValueError, match=match):
        SingleAgentEnv(**kw)


@pytest.mark.parametrize(("opponents", "meant"), [
    ("table,random", "e.g. ['table', 'random']"),
    ("pimc(worlds=2, time_limit=0.5), random",
     "e.g. ['pimc(worlds=2, time_limit=0.5)', 'random']"),
    # three specs for two seats: no example a second error refuses (it gave this list as one)
    ("table,random,random", "where it lists 3: ['table', 'random', 'random']")])
def test_comma_separated_opponents_are_told_to_be_a_list(opponents, meant):
    """The command lines take "table,random"; ``opponents`` (INTERFACE.md: a spec, e.g.
    "table") takes one spec for every other seat or a list: the error says so, with the
    list it may have meant (it said "unknown robot 'table,random'" alone)."""
    with pytest.raises(OptionError, match=rf"invalid opponents {re.escape(repr(opponents))}: "
                       r"a string is one robot spec for every other seat; expected a list "
                       rf"of specs, one per other seat \(2 here\), {re.escape(meant)}$"):
        SingleAgentEnv(opponents=opponents)


@pytest.mark.parametrize("obs_keys", [5, {"a", "b"}, ("a", 5), ("a", "a")])
def test_obs_keys_that_are_no_pair_of_names_are_an_option_error(obs_keys):
    """``obs_keys=5`` was a bare ``TypeError`` (``len()`` of an int), a set a TypeError
    from indexing it: an OptionError naming the value, as for the other bad values."""
    with pytest.raises(OptionError, match=r"invalid obs_keys .*expected None or two "
                                          "different key names"):
        SingleAgentEnv(obs_keys=obs_keys)


def test_bad_reset_option_and_step_before_reset():
    env = SingleAgentEnv(deals=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(OptionError, match="unknown reset option"):
        env.reset(options={"seed": 1})


def test_render_modes():
    env = SingleAgentEnv(render_mode="ansi", deals=1)
    env.reset(seed=0)
    assert env.render().startswith("deal 1/1")
    quiet = SingleAgentEnv(deals=1)
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert quiet.render() is None


@pytest.mark.parametrize("rules", [{}, {"rules": "licitovany"}, {"players": 4},
                                   {"rules": "lizany"}])
def test_render_before_reset_is_refused_as_step_is(rules):
    """Before ``reset`` there is no deal: ``render()`` drew a table of the empty state
    (volený: forehand the dealer, no cards, every marriage announced by player_0) and
    lízaný's failed on None.  Now the RuntimeError of ``step`` and ``action_masks``, in
    both modes; the raw AEC env (which PettingZoo's order enforcing does not guard) raises
    its AttributeError of ``observe`` and ``state`` before reset; without a render mode
    both still warn and answer None."""
    import mariash_env

    for mode in ("ansi", "human"):
        env = SingleAgentEnv(render_mode=mode, opponents="random", **rules)
        with pytest.raises(RuntimeError, match=r"call reset\(\) before render\(\)"):
            env.render()
        raw = mariash_env.raw_env(render_mode=mode, **rules)
        with pytest.raises(AttributeError, match="must be reset"):
            raw.render()
    with pytest.warns(UserWarning, match="render_mode"):
        assert SingleAgentEnv(opponents="random", **rules).render() is None
    with pytest.warns(UserWarning, match="render_mode"):
        assert mariash_env.raw_env(**rules).render() is None
    env = SingleAgentEnv(render_mode="ansi", opponents="random", **rules)
    env.reset(seed=0)
    assert env.render()


@pytest.mark.parametrize("rules", [{}, {"rules": "lizany"}])
def test_human_rendering_prints_in_reset_and_every_step(rules, capsys):
    """Gymnasium's convention: with render_mode="human" the env renders in ``reset`` and
    ``step``; ``reset`` printed nothing, nor did a step ``illegal="terminate"`` ended."""
    env = SingleAgentEnv(render_mode="human", illegal="terminate", **rules)
    env.reset(seed=0)
    shown = capsys.readouterr().out
    ansi = SingleAgentEnv(render_mode="ansi", illegal="terminate", **rules)
    ansi.reset(seed=0)
    assert shown == ansi.render() + "\n"
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert capsys.readouterr().out.strip()
    env.step(int(np.flatnonzero(~env.action_masks())[0]))  # illegal: the episode ends
    assert capsys.readouterr().out.strip()


def test_an_illegal_action_keeps_the_payment_carried_from_reset():
    # At four players the learner sits out the first deal (seat 0 deals it): the robots
    # play it during reset and its payment comes with the first step.  An illegal first
    # action changes nothing, so that payment still comes with the next legal step.
    def first_reward(illegal_first: bool) -> float:
        env = SingleAgentEnv(players=4, deals=2)
        _, info = env.reset(seed=0)
        assert info["settlement_deal"] == 0
        if illegal_first:
            with pytest.raises(IllegalActionError):
                env.step(int(np.flatnonzero(~env.action_masks())[0]))
        return env.step(int(np.flatnonzero(env.action_masks())[0]))[1]

    carried = first_reward(False)
    assert carried != 0.0 and first_reward(True) == carried
