"""The robot protocol (mariash_env/robots/base.py) and the one duplicate harness (the
arena): every robot plays in every harness through the same calls, and a matchup has
one figure whether it comes from the arena or from training.evaluate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mariash_env.arena import ROLES, duplicate_match
from mariash_env.game import Game
from mariash_env.robots import (
    PIMCRobot,
    PolicyRobot,
    RandomRobot,
    Robot,
    SeatView,
    TableRobot,
    as_robot,
    make_robot,
)
from mariash_env.robots.pimc import SearchUnavailableError
from mariash_env.rules import Rules, make_rules
from tests.helpers import step_cap

MODEL = Path(__file__).resolve().parent.parent / "models" / "robot.onnx"
SPECS = ["random", "table", "pimc(worlds=2, bidding='table')", f"onnx:{MODEL}"]


class Counting(Robot):
    """Records the protocol calls it gets; plays the first legal action."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def reset(self) -> None:
        self.calls.append(("reset", 0))

    def act(self, observation):
        self.calls.append(("act", 0))
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_protocol_defaults():
    r = Counting()
    assert Robot.wants_view is False and r.wants_view is False
    r.begin_deal(5)  # the default: reset
    assert r.calls == [("reset", 0)]
    g = Game()
    g.new_partie(seed=1)
    view = SeatView.from_game(g)
    assert r.act_view(view) == int(np.flatnonzero(g.legal_mask())[0])  # default: act(obs)
    assert r.act_batch(np.stack([view.observation()] * 2),
                       np.stack([view.action_mask()] * 2)).tolist() == [r.act_view(view)] * 2


def test_random_robot_reseeds_per_deal():
    mask = np.ones((1, 115), np.int8)
    obs = np.zeros((1, 900), np.float32)
    a = RandomRobot(seed=1)
    b = RandomRobot(seed=2)
    a.begin_deal(9)
    b.begin_deal(9)
    assert [a.act_batch(obs, mask)[0] for _ in range(5)] == \
        [b.act_batch(obs, mask)[0] for _ in range(5)]


def test_as_robot_wraps_policies_and_duck_robots():
    class OnlyAct:
        rng = np.random.default_rng(0)

        def act(self, observation):
            return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))

    mask = np.zeros((3, 115), np.int8)
    mask[:, [4, 7]] = 1
    obs = np.zeros((3, 900), np.float32)
    first = as_robot(lambda o, m: np.argmax(m, axis=1))
    assert isinstance(first, PolicyRobot) and first.act_batch(obs, mask).tolist() == [4, 4, 4]
    assert first.act({"observation": obs[0], "action_mask": mask[0]}) == 4
    duck = as_robot(OnlyAct())
    duck.begin_deal(3)
    x = duck.act_batch(obs, mask).tolist()
    duck.begin_deal(3)  # the duck's numpy rng is reseeded by the adapter
    assert duck.act_batch(obs, mask).tolist() == x and set(x) <= {4, 7}
    t = TableRobot()
    assert as_robot(t) is t
    with pytest.raises(TypeError, match="cannot play int"):
        as_robot(3)


def test_pimc_gets_its_view_through_the_protocol():
    """PIMC built without game= plays in the arena and in training's evaluation (it
    declares wants_view, harnesses hand it act_view); a bare act() still explains."""
    g = Game()
    g.new_partie(seed=2)
    p = make_robot("pimc(worlds=2, bidding='table')")
    assert p.wants_view
    with pytest.raises(SearchUnavailableError, match="act_view"):
        p.act({"observation": g.observation(g.to_move), "action_mask": g.legal_mask()})
    p.begin_deal(4)
    a1 = p.act_view(SeatView.from_game(g))
    p.begin_deal(4)
    assert p.act_view(SeatView.from_game(g)) == a1  # begin_deal reseeds


@pytest.mark.parametrize("spec", SPECS)
def test_every_robot_plays_in_the_arena_and_in_training_evaluation(spec):
    res = duplicate_match({"x": lambda: make_robot(spec), "table": TableRobot}, deals=1,
                          seed=3, progress=False, n_boot=20)
    assert res.per_deal.shape == (1, 2) and res.per_deal.sum() == pytest.approx(0, abs=1e-9)
    evaluate = pytest.importorskip("training.evaluate")
    r = evaluate.duplicate_eval(make_robot(spec), TableRobot(), deals=1, seed=3,
                                bootstrap=20, name="table")
    assert r.mean == pytest.approx(res.per_deal[0, 0])  # one matchup, one figure


def _onnx():
    return make_robot(f"onnx:{MODEL}")


def test_batches_and_jobs_do_not_change_deterministic_robots():
    robots = {"onnx": _onnx, "table": TableRobot}
    one = duplicate_match(robots, deals=6, seed=11, progress=False, n_boot=50)
    many = duplicate_match(robots, deals=6, seed=11, progress=False, n_boot=50, batch=4)
    np.testing.assert_array_equal(one.per_deal, many.per_deal)
    rr = {"random": RandomRobot, "table": TableRobot}
    a = duplicate_match(rr, deals=6, seed=11, progress=False, n_boot=50, batch=4)
    b = duplicate_match(rr, deals=6, seed=11, progress=False, n_boot=50, batch=4, jobs=2)
    np.testing.assert_array_equal(a.per_deal, b.per_deal)
    with pytest.raises(ValueError, match="batch=0"):
        duplicate_match(rr, deals=1, progress=False, batch=0)


def test_training_evaluation_is_the_arenas_figure():
    evaluate = pytest.importorskip("training.evaluate")
    r = evaluate.duplicate_eval(_onnx(), TableRobot(), deals=12, seed=5, bootstrap=300,
                                num_envs=24)
    m = duplicate_match({"agent": _onnx, "robot": TableRobot}, deals=12, seed=5,
                        progress=False, n_boot=300)
    lo, hi = m.ci()
    assert (r.mean, r.ci_low, r.ci_high) == (m.means()[0], lo[0], hi[0])
    assert r.std == pytest.approx(m.per_deal[:, 0].std(ddof=1))
    assert set(r.by_role) == set(ROLES)
    # the agent fills each role equally often: the roles' mean is the overall mean
    assert np.mean(list(r.by_role.values())) == pytest.approx(r.mean)


def test_removed_build_order_leftovers():
    assert "tariff_table" not in Rules.__dataclass_fields__
    assert list(make_rules().to_dict()) == [
        "rules", "deals", "tariff", "killed_seven", "max_flek", "payment_cap",
        "marriage_order", "shuffle", "hundred_counting", "open_contracts", "players"]
    evaluate = pytest.importorskip("training.evaluate")
    rollout = pytest.importorskip("training.rollout")
    assert isinstance(evaluate.make_opponent("table", 0), TableRobot)
    assert not hasattr(rollout, "load_table_robot_class")
    assert PIMCRobot.wants_view


@pytest.mark.parametrize("rules", ["voleny", "licitovany", "lizany"])
def test_robots_name_an_observation_that_is_not_one(rules):
    """``act`` of what is not the AEC observation dict (a bare vector, a dict without the
    mask), of a mask with no legal action (a seat not to move), of a vector of the wrong
    size or one with a NaN: ObservationError naming it, from the table robot and the
    network of every game (random needs only the mask)."""
    import mariash_env
    from mariash_env.robots import ObservationError

    e = mariash_env.env(rules=rules)
    e.reset(seed=2)
    o = e.observe(e.agent_selection)
    nan = o["observation"].copy()
    nan[3] = np.nan
    for spec in ("table", "net", "random"):
        robot = make_robot(spec, rules=rules)
        assert o["action_mask"][robot.act(o)] == 1
        for bad in (o["observation"], {"observation": o["observation"]}):
            with pytest.raises(ObservationError, match="expected a dict with 'observation' "
                                                       "and 'action_mask'"):
                robot.act(bad)
        with pytest.raises(ObservationError, match="no legal action"):
            robot.act({"observation": o["observation"],
                       "action_mask": np.zeros_like(o["action_mask"])})
        if spec == "random":
            continue
        with pytest.raises(ObservationError, match="not finite"):
            robot.act({"observation": nan, "action_mask": o["action_mask"]})
        with pytest.raises(ObservationError, match=r"\(10,\)|\(1, 10\)"):
            robot.act({"observation": o["observation"][:10], "action_mask": o["action_mask"]})


def test_a_seat_view_of_a_crafted_record_is_refused():
    """SeatView hands its record to compiled code (observation, legal actions, worlds):
    a record the engine would index past its tables with, or a seat the deal has not, is
    refused at construction, naming the field."""
    from mariash_env.core import state as S
    from mariash_env.robots.view import SeatView

    g = Game()
    g.new_partie(seed=5)
    st = g.st.copy()
    st[S.LEADER] = 9
    with pytest.raises(ValueError, match=r"SeatView: the state record: field leader"):
        SeatView(st, 0)
    with pytest.raises(ValueError, match="SeatView: seat 3: expected a seat"):
        SeatView(g.st, 3)
    assert SeatView(g.st, g.to_move).to_move


def _lay_down_positions(n: int) -> list[dict]:
    """Observations of ``n`` decisions where volený offers the lay-down (RULES.md §8),
    reached by the table robot's play of random decks."""
    from mariash_env.actions import LAY_DOWN
    from mariash_env.cards import CARD_CODES

    table, rng, found = make_robot("table"), np.random.default_rng(8), []
    for i in range(400):
        g = Game(deals=1)
        g.new_partie(seed=i, deck=list(rng.permutation(CARD_CODES)), dealer=0)
        tick = step_cap(g)
        while not g.deal_over and len(found) < n:
            tick()
            view = SeatView.from_game(g)
            obs = view.observation_dict()
            if obs["action_mask"][LAY_DOWN] and obs["action_mask"].sum() > 1:
                found.append(obs)
            g.step(int(table.act_view(view)))
        if len(found) >= n:
            return found
    raise AssertionError(f"only {len(found)} lay-down positions in 400 deals")


def test_network_robots_always_lay_down():
    """RULES.md §8: the lay-down is never forced, and bundled robots always use it: the
    shipped networks too, whatever their scores (one at a time and in a batch)."""
    from mariash_env.actions import LAY_DOWN

    positions = _lay_down_positions(60)
    obs = np.stack([p["observation"] for p in positions])
    mask = np.stack([p["action_mask"] for p in positions])
    net = make_robot("net")
    scores, _ = net.scores_and_actions(obs, mask)
    own = np.argmax(np.where(mask > 0, scores, -np.inf), axis=1)  # the network's choice
    assert (own != LAY_DOWN).sum() >= 3, "the positions test nothing"
    assert all(net.act(p) == LAY_DOWN for p in positions)
    assert (net.act_batch(obs, mask) == LAY_DOWN).all()
    mask_off = mask.copy()
    mask_off[:, LAY_DOWN] = 0  # a card is played where the claim is not offered
    assert (net.act_batch(obs, mask_off) != LAY_DOWN).all()


def _first_observation(rules: str, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    import mariash_env

    e = mariash_env.env(rules=rules)
    e.reset(seed=seed)
    o = e.observe(e.agent_selection)
    return o["observation"], o["action_mask"]


@pytest.mark.parametrize("rules", ["voleny", "licitovany", "lizany"])
def test_act_batch_checks_its_batch(rules):
    """``act_batch`` of a batch no seat's decisions can be: random answered 0 for a mask row
    with no legal action (``act`` raises), numpy's AxisError for a 1-D batch, and as many
    actions as masks for 3 observations with 2 masks (so did the table robots, by zip);
    now every robot refuses each with an ObservationError naming it (the row with no
    legal action by its index)."""
    from mariash_env.robots import ObservationError

    o, m = _first_observation(rules)
    obs, mask = np.stack([o, o, o]), np.stack([m, m, m])
    for spec in ("random", "table", "net"):
        robot = make_robot(spec, rules=rules)
        assert (mask[0, robot.act_batch(obs, mask)] == 1).all()
        empty = mask.copy()
        empty[1] = 0
        with pytest.raises(ObservationError, match="mask row 1 has no legal action"):
            robot.act_batch(obs, empty)
        with pytest.raises(ObservationError, match=r"\(2-D\), got shapes"):
            robot.act_batch(o, m)
        with pytest.raises(ObservationError, match="3 observations and 2 masks"):
            robot.act_batch(obs, mask[:2])
        with pytest.raises(ObservationError, match="expected 0 or 1"):
            robot.act_batch(obs, mask * 7)
        if spec != "random":  # random plays any game: any width
            with pytest.raises(ObservationError, match=f"masks of {m.size} actions expected"):
                robot.act_batch(obs, mask[:, :-1])
    # the wrappers of outside policies check the same before calling them
    called = []
    for robot in (as_robot(lambda ob, ma: called.append(1) or ma.argmax(axis=1)),
                  as_robot(type("Duck", (), {"act_batch": lambda self, ob, ma:
                                             called.append(1) or ma.argmax(axis=1)})())):
        with pytest.raises(ObservationError, match="mask row 1 has no legal action"):
            robot.act_batch(obs, empty)
    assert not called


def _obs_spec(rules: str):
    """The game's canonical observation (``robots.features.ObsSpec``)."""
    from mariash_env.games.lizany.table_robot import LIZANY_OBS
    from mariash_env.robots.features import VOLENY_OBS
    from mariash_env.robots.licit_table import LICIT_OBS

    return {"voleny": VOLENY_OBS, "licitovany": LICIT_OBS, "lizany": LIZANY_OBS}[rules]


class _Session:
    """An onnxruntime session stand-in answering fixed outputs (a broken model)."""

    def __init__(self, scores: np.ndarray, action: np.ndarray) -> None:
        self.out = (scores, action)

    def run(self, names, feeds):
        return self.out


def test_a_network_robot_never_answers_an_illegal_action():
    """``OnnxRobot`` returned the model's ``action`` unchecked: a model answering 999 gave
    999, NaN scores gave action 0 although illegal.  Now each is an OnnxRobotError naming
    the model and the action; and ``act`` of an observation with a batch axis (a bare
    IndexError before, in every game) is an ObservationError naming the shapes."""
    from mariash_env.robots import ObservationError
    from mariash_env.robots.onnx_robot import OnnxRobot, OnnxRobotError

    for rules in ("voleny", "licitovany", "lizany"):
        o, m = _first_observation(rules)
        with pytest.raises(ObservationError, match=rf"act takes one observation \[{o.size}\] "
                                                   rf"and its action_mask \[{m.size}\]"):
            make_robot("net", rules=rules).act({"observation": o[None], "action_mask": m})
    o, m = _first_observation("voleny")
    robot = OnnxRobot(MODEL)
    illegal = int(np.flatnonzero(m == 0)[0])
    scores = np.zeros((1, m.size), np.float32)
    for action, match in ((999, "chose action 999 in row 0"),
                          (-1, "chose action -1 in row 0"),
                          (illegal, f"chose action {illegal} in row 0")):
        robot.session = _Session(scores, np.array([action], np.int64))
        with pytest.raises(OnnxRobotError, match=rf"robot\.onnx {match}, which its action mask"):
            robot.act({"observation": o, "action_mask": m})
    nan = np.full((1, m.size), np.nan, np.float32)
    robot.session = _Session(nan, np.array([0], np.int64))  # argmax of NaN: action 0
    with pytest.raises(OnnxRobotError, match="scored the legal action .* NaN"):
        robot.act_batch(o[None], m[None])
    robot.session = _Session(scores[:, :5], np.array([0], np.int64))
    with pytest.raises(OnnxRobotError, match=r"scores of shape \(1, 5\)"):
        robot.act({"observation": o, "action_mask": m})


@pytest.mark.parametrize("rules", ["voleny", "licitovany", "lizany"])
def test_table_robots_check_the_whole_observation(rules):
    """Licitovaný's table robot took an observation of 5,000 floats, random floats and a
    mask of 7s (it checked only the blocks its card play reads, and only then), lízaný's
    random floats and an inf in its mask; volený's refused each.  Every game's table robot
    now makes volený's check (``robots.features.check_observation`` with the game's
    ``ObsSpec``)."""
    from mariash_env.robots import ObservationError

    o, m = _first_observation(rules)
    robot = make_robot("table", rules=rules)
    rng = np.random.default_rng(0)
    onehot = {"voleny": "phase", "licitovany": "phase", "lizany": "trump_suit"}[rules]
    off, n = _obs_spec(rules).layout[onehot]
    two = o.copy()
    two[off:off + n] = 0
    two[off:off + 2] = 1
    inf_mask = m.astype(np.float32)
    inf_mask[np.flatnonzero(m)[0]] = np.inf
    for obs, mask, match in (
            (np.zeros(5000, np.float32), m, rf"vector of {o.size} floats.* got shape \(5000,\)"),
            (rng.random(o.size).astype(np.float32), m, r"expected 0 or 1 outside"),
            (np.where(np.arange(o.size) == 0, np.inf, o), m, r"observation\[0\] is not finite"),
            (two, m, rf"block '{onehot}'"),
            (o, m * 7, f"action mask is {m.size} values 0 or 1"),
            (o, inf_mask, f"action mask is {m.size} values 0 or 1"),
            (o.astype(str), m, "is numbers, got dtype")):
        with pytest.raises(ObservationError, match=match):
            robot.act({"observation": obs, "action_mask": mask})
    assert m[robot.act({"observation": o, "action_mask": m})] == 1


@pytest.mark.parametrize("rules", ["voleny", "licitovany", "lizany"])
def test_every_observation_of_a_deal_passes_the_canonical_check(rules):
    """What the encoder writes, for every seat at every decision of random deals (and its
    mask for the seat to move), passes the check the table robots now make: it refuses
    only what no seat can see."""
    import mariash_env
    from mariash_env.robots.features import check_observation

    spec = _obs_spec(rules)
    rng = np.random.default_rng(4)
    decisions = 0
    for seed in range(6):
        e = mariash_env.env(rules=rules)
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _r, term, trunc, _info = e.last()
            for seat in e.agents:
                seen = e.observe(seat)
                check_observation(seen["observation"], seen["action_mask"], spec)
            if term or trunc:
                e.step(None)
                continue
            decisions += 1
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert decisions > 100
