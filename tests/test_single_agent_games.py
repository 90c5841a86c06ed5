"""SingleAgentEnv for every game the registry lists for it (issue #30 item "lízaný in every
front end", issue #31 item 2): spaces from the game's layout, the AEC env's masks and
payments, the game's own table robot, the Gymnasium registration.  Parametrised over
``games("single_agent")`` and each game's seat counts, so a registered game gets every
check."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import mariash_env
from mariash_env import CardError, OptionError
from mariash_env.games.base import GameError
from mariash_env.games.registry import game_kind, games
from mariash_env.robots import Robot, RobotGameError, make_robot
from mariash_env.single_agent import SingleAgentEnv
from tests.helpers import step_cap

CASES = [(k.name, p) for k in games("single_agent") for p in k.players]
IDS = [f"{g}-{p}" for g, p in CASES]


def _rules(game: str, players: int, deals: int = 2) -> dict[str, Any]:
    kind = game_kind(game)
    kw: dict[str, Any] = {"rules": game}
    if players != kind.players[0]:
        kw["players"] = players
    if "deals" in kind.options:
        kw["deals"] = deals
    return kw


def _aec(game: str, kw: dict[str, Any]) -> Any:
    """The game's AEC environment (lízaný has its own, without the compiled core)."""
    if game_kind(game).supports("game"):
        return mariash_env.env(**kw)
    return mariash_env.lizany.env()


class _Logged(Robot):
    """An opponent that appends every action it takes to a log shared by the table."""

    def __init__(self, inner: Robot, log: list[int]) -> None:
        self.inner, self.log = inner, log
        self.name, self.games = inner.name, inner.games

    def begin_deal(self, seed: int) -> None:
        self.inner.begin_deal(seed)

    def act(self, observation: dict[str, Any]) -> int:
        a = int(self.inner.act(observation))
        self.log.append(a)
        return a


def test_the_registry_lists_every_game_with_an_aec_env():
    """Issue #30: every game with an AEC env has the single-agent front end."""
    assert {k.name for k in games("single_agent")} == {k.name for k in games("aec")} == {
        "voleny", "licitovany", "lizany"}
    assert ("voleny", 4) in CASES and ("lizany", 2) in CASES


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
@pytest.mark.parametrize("seat", [0, 1])
def test_masks_observations_and_payments_are_the_aec_envs(game, players, seat):
    """Issue #30/#31 item 2: a random partie through SingleAgentEnv, replayed action for
    action in the AEC env of the same seed: the learner's masks and observations are that
    env's, its rewards add up to the AEC env's payments of its seat (and the partie's
    score), and the payments are zero-sum over the table."""
    kw = _rules(game, players)
    log: list[int] = []
    robots = [_Logged(make_robot("random", rules=game), log) for _ in range(players - 1)]
    env = SingleAgentEnv(seat=seat, opponents=robots, **kw)
    rng = np.random.default_rng(seat)
    obs, _ = env.reset(seed=7)
    learner: list[tuple[int, np.ndarray, np.ndarray]] = []  # (log position, obs, mask)
    total, done = 0.0, False
    tick = step_cap(env.rules, deals=None)
    while not done:
        tick()
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (env.kind.n_actions,) and mask.any()
        a = int(rng.choice(np.flatnonzero(mask)))
        learner.append((len(log), obs, mask))
        log.append(a)
        obs, reward, done, _, _ = env.step(a)
        total += reward
    assert total == env.game.scores[seat]

    aec = _aec(game, kw)
    dealer = env.game.first_dealer if hasattr(env.game, "first_dealer") else 0
    aec.reset(seed=7, options={"dealer": dealer} if "deals" in kw else None)
    me = aec.possible_agents[seat]
    paid = dict.fromkeys(aec.possible_agents, 0.0)
    turns = iter(learner)
    at, want_obs, want_mask = next(turns)
    for i, a in enumerate(log):
        assert aec.agents, f"the AEC partie ended before action #{i}"
        agent = aec.agent_selection
        if i == at:
            assert agent == me
            seen = aec.observe(me)
            assert np.array_equal(seen["action_mask"].astype(bool), want_mask)
            assert np.array_equal(seen["observation"], want_obs)
            at, want_obs, want_mask = next(turns, (-1, None, None))
        else:
            assert agent != me
        aec.step(a)
        for ag, r in aec.rewards.items():
            paid[ag] += r
    assert at == -1
    assert all(aec.terminations.values()) or not aec.agents
    assert paid[me] == total
    assert sum(paid.values()) == 0  # zero-sum over the table


class _Spy(Robot):
    """Checks that every observation handed to a robot is of its own game's layout."""

    def __init__(self, inner: Robot, size: int, n_actions: int) -> None:
        self.inner, self.size, self.n_actions, self.calls = inner, size, n_actions, 0
        self.name, self.games = inner.name, inner.games

    def begin_deal(self, seed: int) -> None:
        self.inner.begin_deal(seed)

    def act(self, observation: dict[str, Any]) -> int:
        assert observation["observation"].shape == (self.size,)
        assert observation["action_mask"].shape == (self.n_actions,)
        self.calls += 1
        return self.inner.act(observation)


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_table_opponents_are_the_games_table_robot(game, players):
    """Issue #30 (``SingleAgentEnv(rules="licitovany", opponents="table")`` crashed in
    robots/features.py: volený's robot reading a licitovaný observation): every other
    seat holds the registry's table robot of the game, handed the game's own vector (at
    four players the deal's three-seat block, as in the arena), and plays to the end."""
    kind = game_kind(game)
    env = SingleAgentEnv(seat=1, **_rules(game, players))
    table = kind.load("table_robot")
    assert [type(r) for r in env.robots if r is not None] == [table] * (players - 1)
    assert env.robots[1] is None and len({id(r) for r in env.robots}) == players
    spies = []
    for s, r in enumerate(env.robots):
        if r is not None:
            env.robots[s] = spy = _Spy(r, kind.obs_size, kind.n_actions)
            spies.append(spy)
    env.reset(seed=3)
    done, rng = False, np.random.default_rng(0)
    tick = step_cap(env.rules, deals=None)
    while not done:
        tick()
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert all(s.calls > 0 for s in spies)


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_same_seed_same_episode(game, players):
    """Issue #31 item 2: the same seed (and the resets after it without one) give the same
    episodes, robots' choices included."""

    def run() -> list[Any]:
        env = SingleAgentEnv(seat=0, opponents="random", **_rules(game, players, deals=1))
        trace: list[Any] = []
        for seed in (5, None, None):
            obs, _ = env.reset(seed=seed)
            trace.append(obs.tobytes())
            done, rng = False, np.random.default_rng(1)
            tick = step_cap(env.rules, deals=None)
            while not done:
                tick()
                obs, r, done, _, _ = env.step(int(rng.choice(np.flatnonzero(
                    env.action_masks()))))
                trace.append((obs.tobytes(), r))
        return trace

    assert run() == run()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_gymnasium_make_for_every_game(game, players):
    """Issue #31 item 2: ``gymnasium.make("mariash/SingleAgent-v0", **kwargs)`` passes
    the keywords through for every game."""
    kind = game_kind(game)
    env = gymnasium.make("mariash/SingleAgent-v0", seat=1, opponents="random",
                         **_rules(game, players))
    assert isinstance(env.unwrapped, SingleAgentEnv) and env.unwrapped.kind is kind
    assert env.observation_space.shape == (kind.layout(players).obs_size,)
    obs, _ = env.reset(seed=2)
    assert obs.shape == env.observation_space.shape
    a = int(np.flatnonzero(env.unwrapped.action_masks())[0])
    env.step(a)


# Gymnasium's make warns of the render mode SB3 tries first (not the env's doing)
@pytest.mark.filterwarnings("ignore:.*render_mode='rgb_array':UserWarning")
@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_sb3_make_vec_env_builds_the_registered_env(game, players):
    """Stable-Baselines3's ``make_vec_env(env_id)`` passes ``render_mode="rgb_array"`` to
    every registered env and retries without it on a TypeError only: an unknown render
    mode is an OptionError that is a TypeError too (it was a bare OptionError, and
    ``make_vec_env("mariash/SingleAgent-v0")`` failed in every game), so the vector env
    is built, without a render mode, and MaskablePPO's masks reach every game."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env("mariash/SingleAgent-v0", n_envs=2, seed=0,
                        env_kwargs={"opponents": "random", **_rules(game, players)})
    try:
        assert venv.get_attr("render_mode") == [None, None]
        venv.reset()
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.shape == (2, game_kind(game).n_actions) and masks.any(axis=1).all()
        venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    finally:
        venv.close()
    from mariash_env.game import RenderModeError

    with pytest.raises(RenderModeError, match="render_mode 'rgb_array'") as caught:
        SingleAgentEnv(render_mode="rgb_array", **_rules(game, players))
    assert isinstance(caught.value, OptionError) and isinstance(caught.value, TypeError)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_torchrl_gym_env_builds_the_registered_env(game, players):
    """TorchRL's ``GymEnv(env_id)`` passes ``frameskip=`` to every env it makes and drops
    it on a TypeError saying "unexpected keyword argument 'frameskip'" only: a keyword
    that is no rule option is an UnknownOptionError, a RulesError and a TypeError saying
    so (it was a bare RulesError, and ``GymEnv("mariash/SingleAgent-v0")`` failed in
    every game); with the mask among its keys and TorchRL's ActionMask it plays legally."""
    pytest.importorskip("torchrl")
    from torchrl.envs import ActionMask, GymEnv, TransformedEnv
    from torchrl.envs.utils import check_env_specs

    env = TransformedEnv(GymEnv("mariash/SingleAgent-v0", obs_keys=("observation", "action_mask"),
                                mask_dtype=bool, opponents="random",
                                categorical_action_encoding=True, **_rules(game, players, 1)),
                         ActionMask())
    check_env_specs(env, seed=0)
    data = env.rollout(40, break_when_any_done=False)
    assert data["next", "done"].any()
    from mariash_env.rules import RulesError, UnknownOptionError

    for kw in ({"frameskip": 1}, {"rules": game, "frameskip": 1}):
        with pytest.raises(UnknownOptionError,
                           match="unexpected keyword argument 'frameskip'") as caught:
            SingleAgentEnv(**kw)
        assert isinstance(caught.value, RulesError) and isinstance(caught.value, TypeError)


def test_robots_that_do_not_play_the_game_are_refused_by_name():
    """Issue #30 (robots declare the games they play): a spec or a robot object of
    another game is refused by name, before any play."""

    class LicitOnly(Robot):
        name = "licit_only"
        games = ("licitovany",)

        def act(self, observation: dict[str, Any]) -> int:
            return 0

    with pytest.raises(RobotGameError, match="robot 'os_random' cannot play lízaný mariáš"):
        SingleAgentEnv(rules="lizany", opponents="os_random")
    assert SingleAgentEnv(rules="lizany", opponents="pimc(worlds=1)").robots  # lízaný's own
    assert SingleAgentEnv(rules="lizany", opponents="nnpimc").robots
    with pytest.raises(RobotGameError, match="'lizany_table' cannot play volený"):
        SingleAgentEnv(opponents="lizany_table")
    with pytest.raises(RobotGameError, match="'licit_only' cannot play volený mariáš"):
        SingleAgentEnv(opponents=[LicitOnly(), "table"])
    class ThreeOnly(Robot):
        name = "three_only"
        games = ("voleny",)
        seat_counts = (3,)

        def act(self, observation: dict[str, Any]) -> int:
            return 0

    with pytest.raises(ValueError, match="'three_only' cannot play volený mariáš with 4"):
        SingleAgentEnv(players=4, opponents=[ThreeOnly(), "table", "table"])
    assert SingleAgentEnv(players=4, opponents="strong").robots  # the deal's three seats
    assert SingleAgentEnv(rules="licitovany", opponents=[LicitOnly(), "random"]).robots[1]
    with pytest.raises(OptionError, match="one robot or a list of 3 robots"):
        SingleAgentEnv(players=4, opponents=["table", "table"])
    with pytest.raises(OptionError, match=r"expected one robot \(one per other seat"):
        SingleAgentEnv(rules="lizany", opponents=["table", "table"])
    with pytest.raises(OptionError, match="seat 0..1"):
        SingleAgentEnv(rules="lizany", seat=2)
    with pytest.raises(ValueError, match="unknown rule option"):
        SingleAgentEnv(rules="lizany", deals=2)
    with pytest.raises(GameError, match="unknown game rules"):
        SingleAgentEnv(rules="bridge")


def test_make_robot_declared_games():
    """Issue #30: each robot class declares its games; make_robot checks them."""
    from mariash_env.robots import PIMCRobot, RandomRobot, TableRobot

    assert RandomRobot.games is None and TableRobot.games == ("voleny",)
    assert PIMCRobot.games == ("voleny", "licitovany")
    for kind in games():
        assert kind.name in kind.load("table_robot").games
        assert isinstance(make_robot("random", rules=kind.name), RandomRobot)
    with pytest.raises(ValueError, match="robot of voleny mariáš but the game here is lizany"):
        make_robot("onnx:models/robot.onnx", rules="lizany")  # a model of another game


def test_four_players_the_learner_never_sits_out_its_only_deal():
    """Issue #30 (``players=4`` was refused): with deals=1 the learner in seat 0 is not
    dealt out (the default dealer is the seat before it), the option naming its seat is
    refused; over a partie of four deals it sits out one, whose payment it is credited."""
    env = SingleAgentEnv(seat=0, players=4, deals=1)
    env.reset(seed=1)
    assert env.game.dealer == 3 and env.game.sitting_out != 0
    with pytest.raises(OptionError, match="would never move"):
        env.reset(seed=1, options={"dealer": 0})
    env = SingleAgentEnv(seat=2, players=4, deals=4, opponents="random")
    env.reset(seed=4)
    done, total, rng = False, 0.0, np.random.default_rng(2)
    dealt = []
    tick = step_cap(env.rules, deals=None)
    while not done:
        tick()
        _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += r
        if info["settlement_deal"] >= 0:
            dealt.append(env.last_settlement["sitting_out"])
    # seat 2 dealt the third deal; its payment (with the defence) is in the rewards too
    assert 2 in dealt and total == env.game.scores[2] and sum(env.game.scores) == 0


@pytest.mark.parametrize("game,players", [("voleny", 3), ("lizany", 2)])
@pytest.mark.parametrize("seed", [None, 9])
def test_a_refused_reset_leaves_the_seeding_and_the_episode_as_they_were(game, players,
                                                                         seed):
    # As the AEC env's reset: a deck the game refuses changes nothing, so the next
    # unseeded reset deals what it would have dealt without the refused call, and the
    # episode in progress goes on.
    def next_deal(refused: bool) -> np.ndarray:
        env = SingleAgentEnv(**_rules(game, players))
        env.reset(seed=1)
        if refused:
            with pytest.raises(CardError):
                env.reset(seed=seed, options={"deck": ["Qh"] * 32})
            env.step(env.action_space.sample())
        return env.reset()[0]

    assert np.array_equal(next_deal(True), next_deal(False))
