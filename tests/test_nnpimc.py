"""nnpimc: PIMC whose worlds are weighted by a network's inference (issue #16).

The card play of a world is rebuilt from its first trick exactly (RULES.md §6, §7: hands,
tricks, marriages, the trump seven replayed by the core), the other seats' decisions seen
in a world are exactly those of the real game in that world, the weights follow the
network (a card it likes makes a world likelier than one it dislikes; a huge temperature
gives plain PIMC's uniform weights), the robot plays legal full deals through the arena's
engine, and bad specs are refused by name.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mariash_env import actions as A
from mariash_env.arena import _factory, deal_states, play_deal
from mariash_env.core import state as S
from mariash_env.core.engine import apply_action, legal_actions
from mariash_env.core.observe import OBS_SIZE, encode
from mariash_env.robots import OnnxRobotError, TableRobot, make_robot
from mariash_env.robots.nnpimc import NNPIMCRobot, world_log_weights
from mariash_env.robots.view import SeatView
from mariash_env.rules import make_rules
from mariash_env.search.inference import other_decisions
from mariash_env.search.worlds import play_start
from tests.helpers import step_cap

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "robot.onnx"


def _deal(seed: int, rules) -> np.ndarray:
    return deal_states(np.array([seed]), np.array([seed % 3]), rules)[0].copy()


def _replay(start: np.ndarray, st: np.ndarray, rv: np.ndarray) -> np.ndarray:
    """``start`` with the cards recorded in ``st`` played in order by the core."""
    sc = start.copy()
    for t in range(10):
        for j in range(3):
            c = int(st[S.TRICKS + 3 * t + j])
            if c < 0:
                return sc
            apply_action(sc, rv, A.PLAY0 + c)
    return sc


def _random_action(st: np.ndarray, rv: np.ndarray, rng: np.random.Generator) -> int:
    mask = np.zeros(A.N_ACTIONS, np.int8)
    legal_actions(st, rv, mask)
    if st[S.PHASE] == S.PH_PLAY and mask.sum() > 1:
        mask[A.LAY_DOWN] = 0  # keep playing cards: more positions to check
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("options", [{}, {"marriage_order": "queen_first"}])
def test_play_start_rebuilds_the_real_deal_exactly(options):
    """§6, §7: at every position of random deals, the state at the start of play is the one
    the deal really had, and replaying the recorded cards on it gives the state back."""
    rules = make_rules(**options)
    rv = rules.vector()
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(40):
        st = _deal(seed, rules)
        start = None
        tick = step_cap(rules)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            if st[S.PHASE] == S.PH_PLAY:
                if start is None:
                    start = st.copy()
                got = play_start(st)
                assert np.array_equal(got, start), f"deal {seed}: start of play differs"
                assert np.array_equal(_replay(got, st, rv), st), f"deal {seed}: replay"
                checked += 1
            apply_action(st, rv, _random_action(st, rv, rng))
    assert checked > 200


def test_other_decisions_are_the_real_games():
    """In the real world, the decisions found by the replay are exactly the observations,
    legal cards and cards of the other seats' choices recorded while the deal was played."""
    rules = make_rules()
    rv = rules.vector()
    rng = np.random.default_rng(2)
    compared = 0
    for seed in range(25):
        st = _deal(seed, rules)
        rec: list[tuple[int, np.ndarray, np.ndarray, int]] = []
        tick = step_cap(rules)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            a = _random_action(st, rv, rng)
            if st[S.PHASE] == S.PH_PLAY:
                me = int(st[S.TO_MOVE])
                obs, mask, act, world = other_decisions(st[None], me, rules)
                mine = [r for r in rec if r[0] != me]
                assert len(obs) == len(mine)
                assert (world == 0).all()
                for k, (_, o, m, c) in enumerate(mine):
                    assert np.array_equal(obs[k], o) and np.array_equal(mask[k], m)
                    assert act[k] == c
                compared += len(mine)
                m = np.zeros(A.N_ACTIONS, np.int8)
                legal_actions(st, rv, m)
                m[A.LAY_DOWN] = 0
                if m.sum() > 1:
                    o = np.zeros(OBS_SIZE, np.float32)
                    encode(st, me, o, False)
                    rec.append((me, o, m, a))
            apply_action(st, rv, a)
    assert compared > 500


def _first_lead_by_network(robot: NNPIMCRobot, seed: int) -> tuple[np.ndarray, int, int]:
    """A deal brought to its card play by random bidding, whose leader then plays the
    network's favourite card: ``(state after the lead, leader, card)``."""
    rules = make_rules()
    rv = rules.vector()
    rng = np.random.default_rng(seed)
    tick = step_cap(rules, deals=None)
    while True:
        tick()
        st = _deal(int(rng.integers(1 << 30)), rules)
        while st[S.PHASE] not in (S.PH_PLAY, S.PH_DONE):
            tick()
            apply_action(st, rv, _random_action(st, rv, rng))
        if st[S.PHASE] == S.PH_PLAY:
            break
    leader = int(st[S.TO_MOVE])
    view = SeatView(st, leader, rules)
    mask = view.action_mask()
    mask[A.LAY_DOWN] = 0
    scores, _ = robot.net.scores_and_actions(view.observation()[None], mask[None])
    a = int(np.flatnonzero(mask)[np.argmax(scores[0][mask.astype(bool)])])
    apply_action(st, rv, a)
    return st, leader, a


def _q_of(robot: NNPIMCRobot, start: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
    view = SeatView(start, seat, make_rules())
    mask = view.action_mask()
    mask[A.LAY_DOWN] = 0
    scores, _ = robot.net.scores_and_actions(view.observation()[None], mask[None])
    return scores[0], mask.astype(bool)


@pytest.mark.parametrize("seed", [1, 4, 5])
def test_a_world_where_the_network_likes_the_lead_weighs_more(seed):
    """The leader played the network's favourite card.  The real world weighs more than a
    sampled world in which the network finds that card below the average of the leader's
    cards there (a relative likelihood above 1 against one below it)."""
    robot = NNPIMCRobot(MODEL, worlds=4, temperature=1.0, seed=0)
    st, leader, a = _first_lead_by_network(robot, seed)
    me = int(st[S.TO_MOVE])
    worlds = SeatView(st, me).sample_worlds(200, np.random.default_rng(seed))
    lw = robot.log_weights(np.vstack([st[None], worlds]), me, make_rules())
    q, legal = _q_of(robot, play_start(st), leader)
    z = q[legal] - q[legal].max()
    expect = math.log(legal.sum() * math.exp(z[np.flatnonzero(legal) == a][0])
                      / np.exp(z).sum())
    assert lw[0] == pytest.approx(expect, abs=1e-5) and lw[0] > 0
    poor = [i for i, w in enumerate(worlds)
            if (lambda qm: qm[0][a] < qm[0][qm[1]].mean())(_q_of(robot, play_start(w), leader))]
    assert poor, "no sampled world where the network dislikes the lead"
    for i in poor:
        assert lw[1 + i] < 0 < lw[0]


def test_weights_are_uniform_at_a_huge_temperature_and_floored_at_a_tiny_one():
    rules = make_rules()
    rv = rules.vector()
    rng = np.random.default_rng(5)
    st = _deal(11, rules)
    tick = step_cap(rules, deals=None)
    while not (st[S.PHASE] == S.PH_PLAY and st[S.TRICK_NO] >= 4) \
            and st[S.PHASE] != S.PH_DONE:
        tick()
        apply_action(st, rv, _random_action(st, rv, rng))
        if st[S.PHASE] == S.PH_DONE:
            st = _deal(int(rng.integers(1 << 30)), rules)
    me = int(st[S.TO_MOVE])
    worlds = SeatView(st, me).sample_worlds(30, np.random.default_rng(0))
    hot = NNPIMCRobot(MODEL, worlds=4, temperature=1e12)
    assert np.abs(hot.log_weights(worlds, me, rules)).max() < 1e-6  # plain PIMC's
    cold = NNPIMCRobot(MODEL, worlds=4, temperature=1e-9, floor=0.05)
    lw = cold.log_weights(worlds, me, rules)
    # At temperature -> 0 a decision counts log(L) for the network's favourite card and
    # log(floor) for any other: the weights are sums of exactly those terms.
    obs, mask, act, world = other_decisions(worlds, me, rules)
    scores, best = cold.net.scores_and_actions(obs, mask, claims=False)
    terms = np.where(best == act, np.log(mask.sum(axis=1)), math.log(0.05))
    assert np.allclose(lw, np.bincount(world, terms, minlength=len(worlds)))
    assert (best != act).any() and len(set(np.round(lw, 6))) > 1
    direct = world_log_weights(scores, mask, act, world, len(worlds), 1e-9, 0.05)
    assert np.allclose(direct, lw)


def test_nnpimc_plays_legal_full_deals_through_the_arena_engine():
    """The arena's engine refuses any illegal action (ValueError); nnpimc's weighted search
    ran at its card-play decisions."""
    rules = make_rules()
    robot = make_robot("nnpimc(worlds=2, candidates=6, bidding='table', seed=3)",
                       model=str(MODEL))
    assert isinstance(robot, NNPIMCRobot)
    for seed, seating in ((7, (0, 1, 1)), (8, (1, 0, 1)), (9, (1, 1, 0))):
        out = play_deal([robot, TableRobot()], seating, seed, seed % 3, rules)
        assert len(out["payments"]) == 3 and sum(out["payments"]) == 0
    assert robot.stats["weighed"] > 0 and robot.stats["searched"] >= robot.stats["weighed"]


def test_network_bidding_is_the_models_choice_and_card_play_is_searched():
    """bidding='network': every decision before the card play is the model's greedy action
    on the same observation; the card play is still the weighted search."""
    from mariash_env.robots import OnnxRobot

    rules = make_rules()
    robot = make_robot("nnpimc(worlds=2, candidates=4, bidding='network', seed=1)",
                       model=str(MODEL))
    net = OnnxRobot(MODEL, game="voleny")
    rv = rules.vector()
    seen = set()
    for seed in range(4):
        st = _deal(seed, rules)
        tick = step_cap(rules)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            view = SeatView(st.copy(), int(st[S.TO_MOVE]), rules)
            a = robot.act_view(view)
            if st[S.PHASE] != S.PH_PLAY:
                assert a == net.act(view.observation_dict())
                seen.add(int(st[S.PHASE]))
            apply_action(st, rv, a)
    assert {S.PH_TRUMP, S.PH_CONTRACT} <= seen
    assert robot.stats["weighed"] > 0


def test_network_leaves_are_playouts_of_the_network_at_every_seat():
    """leaf='network': a card's value in a world is the seat's groše after that card and
    the deal played out by the network at every seat from its own observation -- checked
    against a playout one decision at a time; and a full deal is played legally."""
    from mariash_env.kinds import VOLENY
    from mariash_env.robots import OnnxRobot

    rules = make_rules()
    rv = rules.vector()
    robot = make_robot("nnpimc(worlds=2, candidates=4, bidding='network', leaf='network', "
                       "seed=2)", model=str(MODEL))
    net = OnnxRobot(MODEL, game="voleny")
    rng = np.random.default_rng(5)
    obs = np.zeros(VOLENY.obs_size, np.float32)
    mask = np.zeros(A.N_ACTIONS, np.int8)
    checked = 0
    for seed in range(3):
        st = _deal(seed, rules)
        tick = step_cap(rules)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            view = SeatView(st.copy(), int(st[S.TO_MOVE]), rules)
            legal = np.flatnonzero(view.action_mask())
            if view.phase == S.PH_PLAY and legal.size > 1 and A.LAY_DOWN not in legal:
                worlds = view.sample_worlds(2, rng)
                cands = [int(a) for a in legal]
                got = robot.playout_values(worlds, view.seat, cands, rules)
                for k, w0 in enumerate(worlds):
                    for i, a in enumerate(cands):
                        w = w0.copy()
                        apply_action(w, rv, a)
                        tick_w = step_cap(rules)
                        while w[S.PHASE] != S.PH_DONE:
                            tick_w()
                            mask[:] = 0
                            legal_actions(w, rv, mask)
                            VOLENY.encode(w, int(w[S.TO_MOVE]), obs, False)
                            apply_action(w, rv, net.act({"observation": obs,
                                                          "action_mask": mask}))
                        assert got[k, i] == S.get64(w, S.PAY + 2 * view.seat)
                        checked += 1
            apply_action(st, rv, robot.act_view(view))
    assert checked > 50 and robot.stats["searched"] > 0


def test_from_trick_leaves_the_early_tricks_to_the_network_and_searches_the_rest():
    """from_trick=k: the card play of tricks 0..k-1 (and with bidding='network' every
    decision before it) is the network's greedy action; from trick k on the robot
    searches -- uniform worlds with inference=False, never weighed.  nt_from_trick sets
    that first searched trick for betl and durch apart."""
    from mariash_env.robots import OnnxRobot

    rules = make_rules()
    robot = make_robot("nnpimc(worlds=3, bidding='network', from_trick=6, nt_from_trick=1, "
                       "inference=False, seed=4)", model=str(MODEL))
    assert (robot.from_trick, robot.nt_from_trick) == (6, 1)
    assert make_robot("nnpimc(from_trick=5)", model=str(MODEL)).nt_from_trick == 5
    net = OnnxRobot(MODEL, game="voleny")
    rv = rules.vector()
    late = {S.C_SUIT: 0, S.C_BETL: 0, S.C_DURCH: 0}
    for seed in (*range(6), 33):  # the model bids betl in deal 33
        st = _deal(seed, rules)
        tick = step_cap(rules)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            view = SeatView(st.copy(), int(st[S.TO_MOVE]), rules)
            assert view.trick == st[S.TRICK_NO] and view.contract == st[S.CONTRACT]
            first = 1 if st[S.CONTRACT] in (S.C_BETL, S.C_DURCH) else 6
            searched = robot.stats["searched"]
            a = robot.act_view(view)
            if st[S.PHASE] != S.PH_PLAY or st[S.TRICK_NO] < first:
                assert a == net.act(view.observation_dict())
                assert robot.stats["searched"] == searched
            elif np.count_nonzero(view.action_mask()) > 1 \
                    and not view.action_mask()[A.LAY_DOWN]:
                assert robot.stats["searched"] == searched + 1
                late[int(st[S.CONTRACT])] += 1
            apply_action(st, rv, a)
    assert late[S.C_SUIT] > 0 and late[S.C_BETL] + late[S.C_DURCH] > 0
    assert robot.stats["weighed"] == 0


def _walk_bidding(seeds, rules, choose) -> None:
    """Every decision before the card play of the deals ``seeds``: ``choose(view)`` returns
    the action played."""
    rv = rules.vector()
    for seed in seeds:
        st = _deal(seed, rules)
        tick = step_cap(rules)
        while st[S.PHASE] not in (S.PH_PLAY, S.PH_DONE):
            tick()
            apply_action(st, rv, choose(SeatView(st.copy(), int(st[S.TO_MOVE]), rules)))


def test_betl_and_durch_bias_move_only_the_network_s_betl_and_durch_choices():
    """betl_bias (groše, network bidding): a huge bias names betl wherever it is legal, a
    huge negative one never; every other decision stays the network's greedy one.  The
    same for durch_bias, which outbids a betl bias (durch wherever legal)."""
    from mariash_env.robots import OnnxRobot

    rules = make_rules()
    net = OnnxRobot(MODEL, game="voleny")
    spec = "nnpimc(worlds=2, bidding='network', from_trick=9, inference=False, seed=1, "
    yes = make_robot(spec + "betl_bias=1000)", model=str(MODEL))
    no = make_robot(spec + "betl_bias=-1000)", model=str(MODEL))
    assert yes.betl_bias == 1000.0 and make_robot(spec[:-2] + ")", model=str(MODEL)).betl_bias == 0
    both = make_robot(spec + "betl_bias=1000, durch_bias=2000)", model=str(MODEL))
    met = {"betl": 0, "durch": 0}

    def check(view) -> int:
        mask = view.action_mask()
        own = net.act(view.observation_dict())
        if mask[A.CONTRACT_BETL]:
            met["betl"] += 1
            assert yes.act_view(view) == A.CONTRACT_BETL
            assert no.act_view(view) != A.CONTRACT_BETL
            assert no.act_view(view) == own or own == A.CONTRACT_BETL
        else:
            assert yes.act_view(view) == own == no.act_view(view)
        return own

    def check_both(view) -> int:
        mask, a = view.action_mask(), both.act_view(view)
        if mask[A.CONTRACT_DURCH]:
            met["durch"] += 1
            assert a == A.CONTRACT_DURCH
        elif mask[A.CONTRACT_BETL]:
            assert a == A.CONTRACT_BETL
        else:
            assert a == net.act(view.observation_dict())
        return a

    _walk_bidding(range(8), rules, check)
    _walk_bidding(range(8), rules, check_both)
    assert met["betl"] >= 8 and met["durch"] >= 8


def test_a_bias_needs_network_bidding_and_a_linear_score_scale():
    """A bias in groše needs the network's bidding and scores linear in groše, read from
    the model's training metadata; anything else is refused by name."""
    from types import SimpleNamespace

    from mariash_env.robots.nnpimc import score_unit

    assert make_robot("nnpimc(bidding='network', betl_bias=2)",
                      model=str(MODEL)).score_unit == 0.1  # trained with reward_scale 0.1
    with pytest.raises(ValueError, match="need bidding='network'"):
        make_robot("nnpimc(betl_bias=2)", model=str(MODEL))

    def fake(training):
        return SimpleNamespace(path="m.onnx", training=json.loads(training))

    assert score_unit(fake('{"config": {"dmc": {"reward_scale": 0.05}}}')) == 0.05
    with pytest.raises(ValueError, match="'symlog' rewards"):
        score_unit(fake('{"config": {"dmc": {"reward_transform": "symlog", '
                        '"reward_scale": 0.1}}}'))
    for bad in ('{"config": {}}', '{"config": {"dmc": {"reward_scale": "ten"}}}', "{}"):
        with pytest.raises(ValueError, match="does not say how its scores relate"):
            score_unit(fake(bad))


@pytest.mark.parametrize("spec, kw, what", [
    ("nnpimc(worlds=0)", {}, "worlds"),
    ("nnpimc(worlds=4, candidates=2)", {}, "candidates"),
    ("nnpimc(worlds=100001)", {}, "worlds"),
    ("nnpimc(candidates=100001)", {}, "candidates"),
    ("nnpimc(temperature=0)", {}, "temperature"),
    ("nnpimc(temperature=True)", {}, "temperature"),
    ("nnpimc(floor=0.5)", {}, "floor"),
    ("nnpimc(time_limit=-1)", {}, "time_limit"),
    ("nnpimc(seed=1.5)", {}, "seed"),
    ("nnpimc(model=3)", {}, "model"),
    ("nnpimc(depth=2)", {}, "depth"),
    ("nnpimc(bidding='oracle')", {}, "bidding"),
    ("nnpimc(leaf='rollout')", {}, "leaf"),
    ("nnpimc(from_trick=10)", {}, "from_trick"),
    ("nnpimc(from_trick=2.0)", {}, "from_trick"),
    ("nnpimc(nt_from_trick=-1)", {}, "nt_from_trick"),
    ("nnpimc(betl_bias=1e999)", {}, "betl_bias"),
    ("nnpimc(betl_bias='2')", {}, "betl_bias"),
    ("nnpimc(durch_bias=1e999)", {}, "durch_bias"),
    ("nnpimc(inference=1)", {}, "inference"),
    # nnpimc plays licitovaný with a licitovaný network, without what is volený's own
    ("nnpimc(inference=True)", {"rules": "licitovany"}, "cannot use inference=True"),
    ("nnpimc(inference=False, leaf='network')", {"rules": "licitovany"}, "leaf='network'"),
    ("nnpimc(inference=False, bidding='network', durch_bias=1)", {"rules": "licitovany"},
     "cannot use durch_bias"),
    (f"nnpimc(model={str(MODEL)!r})", {"rules": "licitovany"}, "licitovany"),
    # at four the network reads the deal's three-player block; the inference is three's
    ("nnpimc(inference=True)", {"rules": {"players": 4}}, "inference=True plays three"),
])
def test_bad_specs_are_refused_by_name(spec, kw, what):
    with pytest.raises(ValueError, match=what):
        make_robot(spec, **kw)


def test_a_missing_model_is_the_onnx_robots_error(tmp_path):
    with pytest.raises(OnnxRobotError, match="no ONNX model"):
        make_robot(f"nnpimc(model={str(tmp_path / 'none.onnx')!r})")


def test_default_candidates_stay_within_the_samplers_bound():
    # 4 x worlds, capped at the samplers' 100,000 (else the first decision would fail)
    assert make_robot("nnpimc(worlds=100000)").candidates == 100_000
    assert make_robot("nnpimc(worlds=7)").candidates == 28


def test_arena_worlds_and_time_limit_reach_only_the_search_robots():
    kw = {"worlds": 3, "time_limit": 0.25}
    nn = _factory(f"nnpimc(model={str(MODEL)!r}, worlds=2)", kw)()
    assert (nn.worlds, nn.time_limit, nn.candidates) == (3, 0.25, 12)
    pimc = _factory("pimc(worlds=2)", kw)()
    assert (pimc.worlds, pimc.time_limit) == (3, 0.25)
    assert isinstance(_factory("table", kw)(), TableRobot)
    onnx = _factory(f"onnx:{MODEL}", kw)()
    assert not hasattr(onnx, "worlds")


def test_arena_command_line_refuses_a_bad_nnpimc_spec():
    r = subprocess.run([sys.executable, "-m", "mariash_env.arena", "--robots",
                        "nnpimc(floor=0.5),table", "--deals", "1", "--quiet", "--no-plot"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "floor" in lines[0]
    assert "Traceback" not in r.stderr


def _play_position(seed: int) -> np.ndarray:
    rules = make_rules()
    rv = rules.vector()
    rng = np.random.default_rng(seed)
    tick = step_cap(rules, deals=None)
    while True:
        tick()
        st = _deal(int(rng.integers(1 << 30)), rules)
        while st[S.PHASE] != S.PH_DONE and not (st[S.PHASE] == S.PH_PLAY
                                                 and st[S.TRICK_NO] >= 3):
            tick()
            apply_action(st, rv, _random_action(st, rv, rng))
        if st[S.PHASE] == S.PH_PLAY and st[S.CONTRACT] == S.C_SUIT:
            return st


def test_pimc_search_weighs_its_worlds():
    """A world of weight 0 does not count: the weighted search over (w0, w1) with weights
    (1, 0) decides as the plain search over w0 alone, and (0, 1) as over w1."""
    from mariash_env.robots import PIMCRobot

    robot = PIMCRobot(worlds=2, seed=0)
    for seed in range(6):
        st = _play_position(seed)
        view = SeatView(st, int(st[S.TO_MOVE]))
        cands = [int(a) for a in np.flatnonzero(view.action_mask()) if a != A.LAY_DOWN]
        ws = view.sample_worlds(2, np.random.default_rng(seed))
        for k in (0, 1):
            wt = np.eye(2)[k]
            assert (robot.search(view, cands, cands[0], ws, wt)
                    == robot.search(view, cands, cands[0], ws[k:k + 1]))


@pytest.mark.parametrize("candidates, solved", [(4, 4), (16, 4)])
def test_nnpimc_solves_at_most_worlds_worlds(candidates, solved):
    """candidates == worlds: every sampled world is solved (weighted); more candidates:
    at most ``worlds`` distinct ones, drawn by weight."""
    robot = NNPIMCRobot(MODEL, worlds=4, candidates=candidates, seed=0)
    searched = 0
    for seed in range(4):
        st = _play_position(seed)
        view = SeatView(st, int(st[S.TO_MOVE]))
        worlds, weighed = robot.stats["worlds"], robot.stats["weighed"]
        a = robot.act_view(view)
        assert view.action_mask()[a]
        if robot.stats["weighed"] > weighed:  # searched (not a single legal card)
            n = robot.stats["worlds"] - worlds
            assert n == solved if candidates == 4 else 1 <= n <= solved
            searched += 1
    assert searched >= 3


def test_inference_script_measures_and_refuses_bad_input():
    """At a huge temperature the weights say nothing: the weighted figure is the uniform
    one and the real world outweighs half of the sampled ones (ties count half)."""
    cmd = [sys.executable, "scripts/nnpimc_inference.py", "--deals", "2", "--worlds", "8",
           "--temperatures", "1e12,0.3"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    uniform = float(lines[1].rsplit("=", 1)[1])
    hot = lines[2]
    assert float(hot.split("=", 1)[1].split(";")[0]) == pytest.approx(uniform, abs=1e-4)
    assert "in 0.500 of pairs" in hot and lines[3].startswith("temperature 0.3:")
    for bad, what in ((["--deals", "0"], "--deals"), (["--temperatures", "0"], "temperatures"),
                      (["--model", "none.onnx"], "no ONNX model")):
        r = subprocess.run([sys.executable, "scripts/nnpimc_inference.py", *bad], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and r.stderr.startswith("error:") and what in r.stderr
        assert "Traceback" not in r.stderr


def test_strong_is_nnpimc_with_its_preset_and_takes_overrides():
    """make_robot('strong'): nnpimc with robots.STRONG (the shipped model of the repository,
    the network's bidding and early suit-game tricks, uniform PIMC from trick 4 and in all
    of betl and durch); any setting can be overridden, bad ones and other games are
    refused by name; the arena's --worlds reach it; it plays legal full deals."""
    from mariash_env.robots import STRONG

    r = make_robot("strong")
    assert isinstance(r, NNPIMCRobot)
    assert (r.from_trick, r.nt_from_trick, r.inference, r.network_bidding, r.worlds) == (
        STRONG["from_trick"], STRONG["nt_from_trick"], False, True, STRONG["worlds"])
    assert Path(r.net.path).resolve() == (ROOT / STRONG["model"]).resolve()
    o = make_robot(f"strong(from_trick=2, worlds=3, model={str(MODEL)!r})")
    assert (o.from_trick, o.nt_from_trick, o.worlds) == (2, 0, 3)
    assert Path(o.net.path) == MODEL
    with pytest.raises(ValueError, match="from_trick"):
        make_robot("strong(from_trick=-1)")
    assert _factory("strong", {"worlds": 2})().worlds == 2
    rules = make_rules()
    for seed, seating in ((3, (0, 1, 1)), (4, (1, 0, 0))):
        out = play_deal([o, TableRobot()], seating, seed, seed % 3, rules)
        assert sum(out["payments"]) == 0


def test_licitovany_strong_is_the_networks_bidding_and_early_tricks_then_pimc():
    """make_robot('strong', rules='licitovany') (issue #35): nnpimc with the licitovaný
    network (its kind's preset): every decision before the card play -- auction, game,
    trumps, talon, face-down lead, flek (LICITOVANY.md §5-§7) -- and the card play
    before ``from_trick`` (``nt_from_trick`` in betl and durch, §5) are the network's
    greedy action on the seat's observation; later cards are searched on uniform worlds.
    Every action is legal and the deals settle zero-sum (§8)."""
    from mariash_env.games.registry import game_kind
    from mariash_env.robots import OnnxRobot, parse_spec

    rules = make_rules(rules="licitovany")
    preset = parse_spec(game_kind("licitovany").strong)[1]
    robot = make_robot("strong(worlds=2, seed=5)", rules="licitovany")
    assert isinstance(robot, NNPIMCRobot) and robot.games == ("licitovany",)
    assert (robot.from_trick, robot.nt_from_trick, robot.inference, robot.network_bidding,
            robot.leaf) == (preset["from_trick"], preset["nt_from_trick"], False, True,
                            "solver")
    assert Path(robot.net.path).resolve() == (ROOT / preset["model"]).resolve()
    net = OnnxRobot(ROOT / preset["model"], game="licitovany")
    rv = rules.vector()
    phases, played = set(), 0
    for seed in range(12):
        st = _deal(seed, rules)
        tick = step_cap(rules)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            view = SeatView(st.copy(), int(st[S.TO_MOVE]), rules)
            mask = view.action_mask()
            searched = robot.stats["searched"]
            a = robot.act_view(view)
            assert mask[a], (seed, a)
            nt = st[S.CONTRACT] in (S.C_BETL, S.C_DURCH)
            first = robot.nt_from_trick if nt else robot.from_trick
            if st[S.PHASE] != S.PH_PLAY or st[S.TRICK_NO] < first:
                assert a == net.act(view.observation_dict())
                assert robot.stats["searched"] == searched
                phases.add(int(st[S.PHASE]))
            elif np.count_nonzero(mask) > 1:
                assert robot.stats["searched"] == searched + 1
                played += 1
            apply_action(st, rv, a)
        assert S.get64(st, S.PAY) + S.get64(st, S.PAY + 2) + S.get64(st, S.PAY + 4) == 0
    assert {S.PH_BID, S.PH_GAME} <= phases and played > 0
    assert robot.stats["weighed"] == 0
    for seed, seating in ((3, (0, 1, 1)), (4, (1, 0, 0))):  # the arena's engine
        out = play_deal([robot, make_robot("table", rules="licitovany")], seating, seed,
                        seed % 3, rules)
        assert sum(out["payments"]) == 0
