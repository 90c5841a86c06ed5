"""Search distillation (issue #16): PIMC card-play and bidding labels, the DMC label loss
and warm starts from an exported robot.

Labels are checked against the solver itself (one world = the real deal), shards against
their own determinism and resumption, the loss against a hand computation, and training
on labels against the labels' own best cards.  Tiny sizes keep the file to seconds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from mariash_env import actions as A  # noqa: E402
from mariash_env.core import state as S  # noqa: E402
from mariash_env.core.engine import legal_actions  # noqa: E402
from mariash_env.kinds import VOLENY  # noqa: E402
from mariash_env.robots.onnx_robot import OnnxRobot  # noqa: E402
from mariash_env.rules import make_rules  # noqa: E402
from mariash_env.search import random_position, solve  # noqa: E402
from tests.helpers import step_cap  # noqa: E402
from training import pimc_labels as pl  # noqa: E402
from training.checkpoint import CheckpointError, read_checkpoint, read_onnx_policy  # noqa: E402
from training.config import Config  # noqa: E402
from training.methods.dmc import transform_returns  # noqa: E402
from training.networks import MLP  # noqa: E402
from training.options import ConfigError  # noqa: E402
from training.trainer import Trainer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ROBOT = ROOT / "models" / "robot.onnx"
RULES = make_rules()

SETTINGS = {"format": pl.FORMAT, "worlds": 2, "shard_size": 6, "seed": 3,
            "behaviour": str(ROBOT), "robot_share": 0.5, "epsilon": 0.1, "rules": {}}


def _choice_position(seed: int, plays: int) -> np.ndarray:
    """A card-play state whose seat to move has at least two legal cards."""
    mask = np.zeros(A.N_ACTIONS, np.int8)
    for s in range(seed, seed + 200):
        st = random_position(s, plays=plays)
        mask[:] = 0
        legal_actions(st, RULES.vector(), mask)
        if mask[pl.PLAY].sum() > 1:
            return st
    raise AssertionError("no position with a choice")


@pytest.mark.parametrize("plays", [0, 4, 13])
def test_label_of_one_true_world_is_the_solver_value(monkeypatch, plays):
    """With the real deal as the only world the label is the solver's exact value of every
    legal card, signed for the seat (actor 2A, defender -A); NaN elsewhere."""
    st = _choice_position(100 + plays, plays)
    seat = int(st[S.TO_MOVE])
    monkeypatch.setattr("mariash_env.search.sample_worlds",
                        lambda st_, seat_, n, rng, rules=None: np.array([st_] * n))
    value = pl.label_state(st, seat, RULES, 3, np.random.default_rng(0))
    mv = solve(st, RULES, pv=False, all_moves=True).move_values
    sign = 2.0 if int(st[S.ACTOR]) == seat else -1.0
    mask = np.zeros(A.N_ACTIONS, np.int8)
    legal_actions(st, RULES.vector(), mask)
    for a in range(A.N_ACTIONS):
        if a == A.LAY_DOWN and mask[a]:
            assert value[a] == max(sign * v for v in mv.values())
        elif mask[a]:
            assert value[a] == pytest.approx(sign * mv[a])
        else:
            assert np.isnan(value[a])


def test_label_is_the_mean_over_sampled_worlds():
    """The label averages the worlds PIMC would see: equal to a direct average over the
    same draw (same generator state)."""
    from mariash_env.search import sample_worlds

    st = _choice_position(7, 6)
    seat = int(st[S.TO_MOVE])
    value = pl.label_state(st, seat, RULES, 5, np.random.default_rng(11))
    ws = sample_worlds(st, seat, 5, np.random.default_rng(11), rules=RULES)
    for a in np.flatnonzero(~np.isnan(value)):
        if a == A.LAY_DOWN:
            continue
        vals = [(2.0 if int(w[S.ACTOR]) == seat else -1.0)
                * solve(w, RULES, pv=False, all_moves=True).move_values[a] for w in ws]
        assert value[a] == pytest.approx(np.mean(vals))


def test_shards_are_deterministic_resumable_and_load(tmp_path):
    a = pl.make_shard(SETTINGS, 0)
    b = pl.make_shard(SETTINGS, 0)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert (a["state"][:, S.PHASE] == S.PH_PLAY).all()
    assert (a["mask"][:, pl.PLAY].sum(1) > 1).all()
    assert not np.isnan(a["value"][a["mask"].astype(bool)]).any()
    out = tmp_path / "labels"
    r1 = pl.generate(out, SETTINGS, 2, jobs=1, progress=False)
    assert (r1["made"], r1["states"]) == (2, 12)
    first = (out / "shard_00000.npz").read_bytes()
    r2 = pl.generate(out, SETTINGS, 3, jobs=1, progress=False)  # resumed and extended
    assert (r2["made"], r2["kept"]) == (1, 2)
    assert (out / "shard_00000.npz").read_bytes() == first
    obs, mask, value = pl.load_labels(out)
    assert obs.shape == (18, VOLENY.obs_size) and mask.shape == value.shape == (18, A.N_ACTIONS)
    np.testing.assert_array_equal(mask[:6], a["mask"])
    ref = np.zeros(VOLENY.obs_size, np.float32)
    VOLENY.encode(a["state"][2], int(a["seat"][2]), ref, False)
    np.testing.assert_array_equal(obs[2], ref)
    assert not list(out.glob(".*tmp*"))


def test_label_directory_errors(tmp_path):
    out = tmp_path / "labels"
    pl.generate(out, SETTINGS, 1, jobs=1, progress=False)
    with pytest.raises(pl.LabelError, match="worlds: 2 there, 3 now"):
        pl.generate(out, {**SETTINGS, "worlds": 3}, 1, jobs=1, progress=False)
    (out / "shard_00000.npz").write_bytes(b"not a zip")
    with pytest.raises(pl.LabelError, match="shard_00000.npz is corrupt"):
        pl.load_labels(out)
    with pytest.raises(pl.LabelError, match="not a label directory"):
        pl.load_labels(tmp_path)
    good = (out / "labels.json").read_bytes()
    # not UTF-8, another JSON, not JSON, a key given twice (read as its last value before)
    for damage in (b"\xff", b"[]", b"{cut", b'{"worlds": 3, ' + good[1:]):
        (out / "labels.json").write_bytes(damage)
        with pytest.raises(pl.LabelError, match=r"labels.json is unreadable \("):
            pl.read_settings(out)
    line = next(n for n, text in enumerate(good.decode().splitlines(), 1) if '"worlds"' in text)
    with pytest.raises(pl.LabelError, match="the key 'worlds' is given twice in one object, "
                                            f"the second time on line {line}"):
        pl.generate(out, SETTINGS, 1, jobs=1, progress=False)
    r = subprocess.run([sys.executable, "-m", "training.pimc_labels", "--out", str(out),
                        "--worlds", "0"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: --worlds must be >= 1")
    assert "Traceback" not in r.stderr


# --- bidding labels -----------------------------------------------------------------------

BID = {**SETTINGS, "phase": "bidding", "shard_size": 5}


def _bidding_state(phase: int, seed: int = 0) -> tuple[np.ndarray, int]:
    """The first state of ``phase`` with a choice, on a path of table-robot play."""
    from mariash_env.game import Game
    from mariash_env.robots import TableRobot
    from mariash_env.robots.features import decode

    table = TableRobot()
    for s in range(seed, seed + 400):
        g = Game(RULES, records=False)
        g.new_partie(seed=s, dealer=s % 3)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            obs, mask = g.observe(g.to_move)
            if g.phase == phase and np.count_nonzero(mask) > 1:
                return g.st.copy(), g.to_move
            g.step(int(table.decide(decode(obs, mask))))
    raise AssertionError(f"no state of phase {phase} with a choice")


@pytest.mark.parametrize("phase", [S.PH_TRUMP, S.PH_CONTRACT, S.PH_FLEK])
def test_bidding_label_is_pimcs_simulated_value(phase):
    """Every legal action is labelled with the value PIMC's bidding maximises: each
    candidate applied in the same worlds and the deal played out by the table robot (at the
    trump choice every card of a suit has the suit's value)."""
    from mariash_env.robots.pimc import PIMCRobot, _Rollout
    from mariash_env.robots.view import SeatView

    st, seat = _bidding_state(phase, seed=3)
    value = pl.label_bidding(st.copy(), seat, RULES, 3, np.random.default_rng(4))
    mask = np.zeros(A.N_ACTIONS, np.int8)
    legal_actions(st, RULES.vector(), mask)
    assert not np.isnan(value[mask.astype(bool)]).any()
    assert np.isnan(value[~mask.astype(bool)]).all()
    ws = SeatView(st, seat, RULES).sample_worlds(3, np.random.default_rng(4))
    roll = _Rollout(RULES, None)
    legal = [int(a) for a in np.flatnonzero(mask)]
    cands = PIMCRobot._trump_candidates(legal, legal[0]) if phase == S.PH_TRUMP else legal
    for a in cands:
        vals = []
        for w0 in ws:
            w = w0.copy()
            from mariash_env.core.engine import apply_action

            apply_action(w, roll.rv, int(a))
            vals.append(roll.value(w, seat))
        assert value[a] == pytest.approx(np.mean(vals))
    if phase == S.PH_TRUMP:
        for a in np.flatnonzero(mask[A.TRUMP0:A.TRUMP0 + 32]):
            same = [c for c in cands if c != A.TRUMP_BLIND and c >> 3 == a >> 3]
            assert value[a] in [value[c] for c in same]


def test_bidding_shards_hold_the_decisions_before_play(tmp_path):
    a = pl.make_shard(BID, 0)
    b = pl.make_shard(BID, 0)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    ph = a["state"][:, S.PHASE]
    assert not np.isin(ph, [S.PH_PLAY, S.PH_DISCARD, S.PH_DONE]).any()
    assert ((a["mask"] != 0).sum(1) > 1).all()
    assert not np.isnan(a["value"][a["mask"].astype(bool)]).any()
    out = tmp_path / "bid"
    pl.generate(out, BID, 1, jobs=1, progress=False)
    with pytest.raises(pl.LabelError, match="phase: 'bidding' there, 'play' now"):
        pl.generate(out, {**BID, "phase": "play"}, 1, jobs=1, progress=False)


def test_bidding_sets_keep_a_side():
    """``--roles`` on a bidding set (#35): the actor's decisions are the contract maker's,
    and before a contract the trump choice (§3) and the naming of a contract (§4, after a
    "bad" the defender who said it); the defenders' set holds the others."""
    from mariash_env.game import Game

    actor = pl.make_shard({**BID, "shard_size": 40, "roles": "actor"}, 0)
    phases = set()
    for st, seat in zip(actor["state"], actor["seat"]):
        who = int(st[S.ACTOR])
        ph = int(st[S.PHASE])
        if who < 0:
            who = int(st[S.FOREHAND] if ph == S.PH_TRUMP else st[S.CHOOSER])
            assert ph in (S.PH_TRUMP, S.PH_CONTRACT)
        assert seat == who
        phases.add(ph)
    assert {S.PH_TRUMP, S.PH_CONTRACT, S.PH_FLEK} <= phases
    defend = pl.make_shard({**BID, "shard_size": 20, "roles": "defender"}, 0)
    for st, seat in zip(defend["state"], defend["seat"]):
        assert pl.side_of(st, int(seat)) == "defender" and seat != st[S.ACTOR]
    # after a defender's "bad" the contract is named by that defender: the actor's side
    rng = np.random.default_rng(0)
    mask = np.zeros(A.N_ACTIONS, np.int8)
    for seed in range(400):
        g = Game(make_rules(), records=False)
        g.new_partie(seed=seed, dealer=0)
        tick = step_cap(g)
        while g.st[S.PHASE] not in (S.PH_PLAY, S.PH_DONE):
            tick()
            if g.st[S.PHASE] == S.PH_CONTRACT and g.st[S.CHOOSER] != g.st[S.FOREHAND]:
                chooser = int(g.st[S.CHOOSER])
                assert pl.side_of(g.st, chooser) == "actor"
                assert pl.side_of(g.st, int(g.st[S.FOREHAND])) == "defender"
                return
            _, mask = g.observe(g.to_move)
            g.step(int(rng.choice(np.flatnonzero(mask))))
    pytest.fail("no deal of 400 had a defender's 'bad'")


def test_label_directories_made_before_phase_existed_still_resume(tmp_path):
    import json

    out = tmp_path / "old"
    pl.generate(out, SETTINGS, 1, jobs=1, progress=False)  # SETTINGS has no "phase"
    assert "phase" not in json.loads((out / "labels.json").read_text())
    now = pl._settings(SETTINGS)
    assert now["phase"] == "play"
    r = pl.generate(out, now, 2, jobs=1, progress=False)
    assert (r["made"], r["kept"]) == (1, 1)


def test_focused_label_sets_hold_only_their_roles_and_contracts(tmp_path, capsys):
    """``--roles actor --contracts betl,durch``: every row is the actor's card play in a
    betl or durch, and the focus is part of the settings a directory is resumed with."""
    focus = {**SETTINGS, "shard_size": 3, "roles": "actor", "contracts": ["durch", "betl"]}
    rows = pl.make_shard(focus, 0)
    st, seat = rows["state"], rows["seat"]
    assert (st[:, S.PHASE] == S.PH_PLAY).all()
    assert (seat == st[:, S.ACTOR]).all()
    assert np.isin(st[:, S.CONTRACT], [S.CONTRACT_NAMES.index("betl"),
                                       S.CONTRACT_NAMES.index("durch")]).all()
    defend = pl.make_shard({**SETTINGS, "shard_size": 4, "roles": "defender"}, 0)
    assert (defend["seat"] != defend["state"][:, S.ACTOR]).all()
    out = tmp_path / "betl"
    pl.generate(out, pl._settings(focus), 1, jobs=1, progress=False)
    assert pl.read_settings(out)["contracts"] == ["betl", "durch"]  # canonical order
    import warnings

    from scripts import label_regret as lr  # a set of one side: no row of the other

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no mean of an empty group
        assert lr.main([str(out), str(ROBOT), "--states", "3"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert any(r.startswith("actor ") for r in rows)
    assert not any(r.startswith("defender") for r in rows)
    with pytest.raises(pl.LabelError, match="roles: 'actor' there, 'all' now"):
        pl.generate(out, pl._settings({**focus, "roles": "all"}), 1, jobs=1, progress=False)
    with pytest.raises(pl.LabelError, match="contracts of"):
        pl._settings({**focus, "contracts": ["betl", "sto"]})
    with pytest.raises(pl.LabelError, match="card-play label sets only"):
        pl._settings({**focus, "phase": "bidding"})
    assert pl._settings({**focus, "phase": "bidding", "contracts": pl.CONTRACTS})["roles"] \
        == "actor"  # a bidding set keeps a side (test_bidding_sets_keep_a_side)
    assert pl._settings({**focus, "contracts": ["durch", "betl", "durch"]})["contracts"] == \
        ["betl", "durch"]
    for bad, msg in ((["--contracts", "betl,sto"], "got roles 'all', contracts ['betl', 'sto']"),
                     (["--phase", "bidding", "--contracts", "betl"], "card-play label sets only")):
        r = subprocess.run([sys.executable, "-m", "training.pimc_labels", "--out",
                            str(tmp_path / "x"), *bad], cwd=ROOT, capture_output=True, text=True)
        assert r.returncode == 2 and msg in r.stderr and "Traceback" not in r.stderr


def test_a_focus_that_never_comes_stops_with_an_error(monkeypatch):
    """A focused set whose decisions the deals never reach raises, naming the focus,
    instead of playing forever."""
    monkeypatch.setattr(pl, "MAX_DEALS_WITHOUT_LABEL", 2)
    with pytest.raises(pl.LabelError, match="2 deals without a decision to label.*'durch'"):
        pl.make_shard({**SETTINGS, "roles": "defender", "contracts": ["durch"]}, 0)


def test_a_run_with_bidding_labels_regresses_both_sets(labels, tmp_path):
    bid = tmp_path / "bid"
    pl.generate(bid, BID, 1, jobs=1, progress=False)
    cfg = _cfg(labels, bid_label_data=str(bid), bid_label_batch=4)
    tr = Trainer(cfg, tmp_path / "run", log=lambda *a: None)
    sets = tr.method._label_sets
    assert [n for _, n in sets] == [8, 4]
    obs, legal, _ = sets[1][0].arrays()
    assert len(obs) == 5 and (legal.sum(1) > 1).all()
    assert not legal[:, pl.PLAY].any()  # no card play among the bidding rows
    tr.train()
    d = cfg.to_dict()
    d["dmc"] = {**d["dmc"], "bid_label_data": str(tmp_path / "none")}
    with pytest.raises(ConfigError, match="dmc.bid_label_data = .* is not a directory"):
        Trainer(Config.from_dict(d, "test"), tmp_path / "b", log=lambda *a: None)
    swapped = _cfg(bid, bid_label_data=str(labels))  # each set in the other's option
    with pytest.raises(ConfigError, match="dmc.label_data = .* holds bidding labels, "
                                          "expected play labels"):
        Trainer(swapped, tmp_path / "c", log=lambda *a: None)
    with pytest.raises(ConfigError, match="dmc.label_data: .* not a label directory"):
        Trainer(_cfg(tmp_path), tmp_path / "d", log=lambda *a: None)


def test_more_label_sets_each_add_their_batch(labels, tmp_path):
    """``more_label_data`` (DAgger's aggregation): every further card-play directory adds
    ``more_label_batch`` states to each step's label loss; a bidding set there is refused."""
    second = tmp_path / "second"
    pl.generate(second, {**SETTINGS, "seed": 9}, 1, jobs=1, progress=False)
    cfg = _cfg(labels, more_label_data=[str(second), str(labels)], more_label_batch=3)
    tr = Trainer(cfg, tmp_path / "run", log=lambda *a: None)
    sets = tr.method._label_sets
    assert [n for _, n in sets] == [8, 3, 3]
    assert [ls.path for ls, _ in sets] == [labels, second, labels]
    rng = np.random.default_rng(1)
    obs, legal, _ = (np.concatenate(x) for x in zip(*[ls.sample(n, rng) for ls, n in sets]))
    assert obs.shape[0] == 14 and legal[:, pl.PLAY].any(1).all()
    assert np.isfinite(float(tr.method._label_loss(np.random.default_rng(1)).detach()))
    bid = tmp_path / "bid"
    pl.generate(bid, BID, 1, jobs=1, progress=False)
    with pytest.raises(ConfigError, match=r"dmc.more_label_data\[1\] = .* holds bidding "
                                          "labels, expected play labels"):
        Trainer(_cfg(labels, more_label_data=[str(second), str(bid)]), tmp_path / "b",
                log=lambda *a: None)
    # more_bid_label_data: further bidding sets (#35: the actor's decisions valued against
    # the table robot beside the defenders'), each its own batch; a card-play set refused
    tr = Trainer(_cfg(labels, more_bid_label_data=[str(bid)], more_bid_label_batch=5),
                 tmp_path / "c", log=lambda *a: None)
    sets = tr.method._label_sets
    assert [n for _, n in sets] == [8, 5] and sets[1][0].phase == "bidding"
    assert np.isfinite(float(tr.method._label_loss(np.random.default_rng(1)).detach()))
    with pytest.raises(ConfigError, match=r"dmc.more_bid_label_data\[0\] = .* holds play "
                                          "labels, expected bidding labels"):
        Trainer(_cfg(labels, more_bid_label_data=[str(second)]), tmp_path / "d",
                log=lambda *a: None)


# --- warm start from an exported robot ---------------------------------------------------

def test_onnx_weights_reproduce_the_robot():
    net = MLP(hidden=[256, 256])
    got = read_onnx_policy(ROBOT, net)
    net.load_state_dict(got["state_dict"])
    net.eval()
    assert got["game"] == "voleny" and got["training"]["method"] == "dmc"
    rob = OnnxRobot(ROBOT)
    st = _choice_position(5, 3)
    obs = np.zeros((1, VOLENY.obs_size), np.float32)
    mask = np.zeros((1, A.N_ACTIONS), np.int8)
    VOLENY.encode(st, int(st[S.TO_MOVE]), obs[0], False)
    legal_actions(st, RULES.vector(), mask[0])
    scores, _ = rob.scores_and_actions(obs, mask)
    with torch.no_grad():
        q, _ = net(torch.from_numpy(obs), torch.from_numpy(mask))
    np.testing.assert_allclose(q.numpy()[mask.astype(bool)], scores[mask.astype(bool)],
                               rtol=1e-4, atol=1e-4)
    with pytest.raises(CheckpointError, match="another shape"):
        read_onnx_policy(ROBOT, MLP(hidden=[64]))
    with pytest.raises(CheckpointError, match="no exported model"):
        read_onnx_policy(ROOT / "nope.onnx", net)


# --- the label loss ------------------------------------------------------------------------

def _cfg(labels: Path | str, **dmc) -> Config:
    return Config.from_dict({
        "seed": 2, "init": str(ROBOT),
        "env": {"num_envs": 32, "rollout_steps": 40},
        "network": {"hidden": [256, 256]},
        "selfplay": {"pool_size": 1, "pool_every": 1, "pool_share": 0.0,
                     "random_share": 0.0, "table_robot_share": 0.5},
        "eval": {"every": 0, "deals": 6, "num_envs": 36, "bootstrap": 50, "opponents": [],
                 "final_opponents": []},
        "run": {"max_iterations": 2, "checkpoint_every": 1, "keep_checkpoints": 1,
                "threads": 1, "progress": False, "tensorboard": False, "plot": False},
        "dmc": {"batch_size": 64, "label_data": str(labels), "label_batch": 8, **dmc},
    }, "test")


@pytest.fixture(scope="module")
def labels(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("labels")
    pl.generate(out, SETTINGS, 2, jobs=1, progress=False)
    return out


def test_label_loss_is_the_huber_over_legal_cards(labels, tmp_path):
    tr = Trainer(_cfg(labels, loss="huber"), tmp_path / "run", log=lambda *a: None)
    m = tr.method
    obs, legal, raw = m._label_sets[0][0].arrays()
    tgt = transform_returns(raw, m.algo)
    _, mask, value = pl.load_labels(labels)
    np.testing.assert_array_equal(legal, mask.astype(bool))
    np.testing.assert_allclose(raw[legal], value[legal])
    rng = np.random.default_rng(5)
    idx = np.sort(np.random.default_rng(5).integers(len(obs), size=8))
    with torch.no_grad():
        got = float(m._label_loss(rng))
        q = m.net.scores(torch.from_numpy(obs[idx])).numpy()
    d = np.abs(q[legal[idx]] - tgt[idx][legal[idx]])
    want = np.where(d < 1.0, 0.5 * d ** 2, d - 0.5).mean()
    assert got == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("label_delta", [0.0, 0.3, 4.0])
def test_label_advantage_loss_adds_the_huber_of_centred_values(labels, tmp_path,
                                                               label_delta):
    """``label_advantage_weight``: a second Huber term on each state's labelled Q-values
    and targets minus their means over its labelled actions (the ranking, not the level).
    ``label_huber_delta`` is the delta of both label terms (0: the DMC's ``huber_delta``),
    so that labels of one real deal can be regressed to their mean, not their median."""
    delta = label_delta or 1.0

    def huber(d):
        d = np.abs(d)
        return np.where(d < delta, 0.5 * d ** 2, delta * (d - 0.5 * delta)).mean()

    tr = Trainer(_cfg(labels, loss="huber", label_advantage_weight=3.0,
                      label_huber_delta=label_delta), tmp_path / "run", log=lambda *a: None)
    m = tr.method
    obs, legal, raw = m._label_sets[0][0].arrays()
    tgt = transform_returns(raw, m.algo)
    idx = np.sort(np.random.default_rng(5).integers(len(obs), size=8))
    with torch.no_grad():
        got = float(m._label_loss(np.random.default_rng(5)))
        q = m.net.scores(torch.from_numpy(obs[idx])).numpy()
    lg, t = legal[idx], tgt[idx]
    centre = [(q[i, lg[i]] - q[i, lg[i]].mean()) - (t[i, lg[i]] - t[i, lg[i]].mean())
              for i in range(len(idx))]
    want = huber(q[lg] - t[lg]) + 3.0 * huber(np.concatenate(centre))
    assert got == pytest.approx(want, rel=1e-5) and huber(np.concatenate(centre)) > 0


def test_training_on_labels_learns_their_best_cards(labels, tmp_path):
    """Label loss alone (a learning rate high enough to fit 12 states): the greedy card of
    every labelled state becomes a card of the best label value."""
    tr = Trainer(_cfg(labels, lr=1e-3, label_weight=1.0), tmp_path / "run",
                 log=lambda *a: None)
    m = tr.method
    obs, legal, raw = m._label_sets[0][0].arrays()
    tgt = transform_returns(raw, m.algo)
    rng = np.random.default_rng(0)
    first = None
    for _ in range(300):
        loss = m._label_loss(rng)
        first = float(loss.detach()) if first is None else first
        m.opt.zero_grad()
        loss.backward()
        m.opt.step()
    assert float(m._label_loss(rng).detach()) < first / 5
    with torch.no_grad():
        q = m.net.scores(torch.from_numpy(obs)).numpy()
    for i in range(len(obs)):
        lg = np.flatnonzero(legal[i])
        best = tgt[i][lg].max()
        greedy = lg[np.argmax(q[i][lg])]
        assert tgt[i][greedy] >= best - 0.05


def test_a_run_with_labels_trains_and_logs_the_label_loss(labels, tmp_path):
    out = tmp_path / "run"
    Trainer(_cfg(labels), out, log=lambda *a: None).train()
    rows = (out / "metrics.csv").read_text().splitlines()
    head = rows[0].split(",")
    col, upd = head.index("label_loss"), head.index("updates")
    trained = [r.split(",") for r in rows[1:] if float(r.split(",")[upd]) > 0]
    assert trained and all(float(r[col]) > 0 for r in trained)
    pay = read_checkpoint(out / "checkpoint.pt")  # the warm start is in the lineage
    assert pay["lineage"][-1]["checkpoint"] == str(ROBOT)


def test_label_config_errors(tmp_path, labels):
    with pytest.raises(ConfigError, match="is not a directory"):
        Trainer(_cfg(tmp_path / "missing"), tmp_path / "a", log=lambda *a: None)
    cfg = _cfg(labels)
    d = cfg.to_dict()
    d["env"]["rules"] = {"rules": "licitovany"}
    d.pop("init")
    d["network"] = {"hidden": [32]}
    with pytest.raises(ConfigError, match="holds voleny labels, not licitovany"):
        Trainer(Config.from_dict(d, "test"), tmp_path / "b", log=lambda *a: None)


def test_labels_reload_new_shards_while_the_generator_runs(tmp_path):
    out = tmp_path / "labels"
    pl.generate(out, SETTINGS, 1, jobs=1, progress=False)
    tr = Trainer(_cfg(out, label_reload_every=2), tmp_path / "run", log=lambda *a: None)
    assert len(tr.method._label_sets[0][0].arrays()[0]) == 6
    pl.generate(out, SETTINGS, 2, jobs=1, progress=False)
    assert len(tr.method._label_sets[0][0].arrays()[0]) == 12  # the 2nd call looks again
    assert len(tr.method._label_sets[0][0].arrays()[0]) == 12
    obs, _, value = pl.load_labels(out)
    np.testing.assert_array_equal(tr.method._label_sets[0][0].arrays()[0], obs)


# --- scripts/label_regret.py ---------------------------------------------------------------

def test_label_regret_measures_against_the_labels_best_card(labels, capsys, tmp_path):
    from scripts import label_regret as lr

    _, mask, value = pl.load_labels(labels)
    best = np.nanargmax(np.where(mask > 0, value, np.nan), axis=1)
    regret, agree = lr.regret_of(value, mask, best)
    assert (regret == 0).all() and agree.all()
    worst = np.nanargmin(np.where(mask > 0, value, np.nan), axis=1)
    regret, agree = lr.regret_of(value, mask, worst)
    spread = np.nanmax(np.where(mask > 0, value, np.nan), 1) - np.nanmin(
        np.where(mask > 0, value, np.nan), 1)
    np.testing.assert_allclose(regret, spread)
    assert (agree == (spread == 0)).all()
    with pytest.raises(ValueError, match="outside the labelled legal"):
        lr.regret_of(value, mask, np.zeros(len(mask), np.int64))  # a bid, never in play
    png = tmp_path / "regret.png"
    assert lr.main([str(labels), str(ROBOT), "--states", "10", "--pimc", "2", "--plot",
                    str(png)]) == 0
    assert png.stat().st_size > 1000
    out = capsys.readouterr().out
    assert "10 labelled card-play states" in out and "pimc2" in out and "table" in out
    # --by-trick adds a row per role and trick met, each counting its states
    assert lr.main([str(labels), str(ROBOT), "--states", "40", "--by-trick", "--plot",
                    str(tmp_path / "by_trick.png")]) == 0
    assert (tmp_path / "by_trick.png").stat().st_size > 1000
    out = capsys.readouterr().out
    rows = [ln.split() for ln in out.splitlines() if ", trick " in ln]
    n = int(out.split(" labelled card-play states")[0].split()[-1])
    assert rows and sum(int(r[3]) for r in rows) == n > 0


def test_label_regret_bars_resample_deals_not_states(labels):
    """A label set holds several states of a deal, whose regrets go together: the plot's
    bars resample the deals (known by the dealt deck, the POS slots), so a regret that is
    the deal's alone gets the width of 20 deals, not of 1000 independent states; with one
    state a deal they are the ordinary bootstrap's."""
    from mariash_env.core import state as S
    from scripts import label_regret as lr

    states = pl.read_shards(labels, pl.shard_files(labels))["state"]
    ids = lr.deal_ids(states)
    assert len(ids) == len(states) and ids.max() + 1 < len(states)  # states share deals
    deck = states[:, S.POS:S.POS + 32]
    same = ids[:, None] == ids[None, :]
    assert (same == (deck[:, None, :] == deck[None, :, :]).all(axis=2)).all()
    rng = np.random.default_rng(0)
    deals = np.repeat(np.arange(20), 50)
    values = rng.normal(size=20)[deals] + 0.01 * rng.normal(size=1000)
    naive = 1.96 * values.std() / np.sqrt(len(values))
    lo, hi = lr.cluster_ci(values, deals)
    assert lo[0] < values.mean() < hi[0] and (hi[0] - lo[0]) / 2 > 4 * naive
    lo1, hi1 = lr.cluster_ci(values, np.arange(1000))  # each state its own deal
    assert (hi1[0] - lo1[0]) / 2 == pytest.approx(naive, rel=0.2)
    two = lr.cluster_ci(np.stack([values, 2 * values], axis=1), deals)  # a column a robot
    np.testing.assert_allclose(two[0], [lo[0], 2 * lo[0]])


# --- scripts/label_fit.py ------------------------------------------------------------------

def test_label_fit_memorises_a_small_set_and_compares_widths(labels, capsys, tmp_path):
    """A fresh network fitted long enough on a few labels plays their best cards (training
    regret 0); the command prints a row per width, label count and epoch, and the plot."""
    from scripts import label_fit as lf

    obs, mask, value, game, recs, seats = lf.load([str(labels)], 12)
    assert game == "voleny" and obs.shape == (12, VOLENY.obs_size) and mask.dtype == bool
    assert recs.shape == (12, S.STATE_SIZE) and seats.shape == (12,)
    first = lf.load([str(labels)], 5)[0]
    np.testing.assert_array_equal(first, obs[:5])  # the first rows, in order
    worst = np.nanargmin(np.where(mask, value, np.nan), axis=1)
    assert lf.regret_of(value, mask, worst)[0].mean() > 0.5  # the cards differ in value
    curve = lf.fit(obs, mask, value, [64], 150, [(obs, mask, value)], lr=3e-3)
    assert len(curve) == 150 and curve[-1][0][0] == 0.0
    png = tmp_path / "fit.png"
    assert lf.main([str(labels), "--heldout", str(labels), "--hidden", "8", "16,8",
                    "--sizes", "6", "12", "--epochs", "2", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert len([ln for ln in out.splitlines() if ln.startswith("hidden")]) == 2 * 2 * 2
    assert (f"hidden {'16,8':>24}: 6: " in out and " ± " in out
            and "table robot's regret there" in out)
    assert png.stat().st_size > 1000
    # --augment: each fit again on rows drawn under the game's suit symmetries
    assert lf.main([str(labels), "--heldout", str(labels), "--hidden", "8", "--sizes", "12",
                    "--epochs", "2", "--augment"]) == 0
    out = capsys.readouterr().out
    assert len([ln for ln in out.splitlines() if ln.startswith("hidden")]) == 2 * 2
    assert f"hidden {'8 augmented':>24}: 12: " in out
    sym = VOLENY.load("symmetry")
    o, m, t = pl.relabelled(sym, game, recs, seats, mask, value, np.random.default_rng(0))
    for i in range(12):
        hits = [p for p in sym.symmetries(recs[i])
                if np.array_equal(o[i], pl.encode_states(sym.permute_suits(recs[i:i + 1], p),
                                                      seats[i:i + 1], game)[0])
                and np.array_equal(m[i], sym.permute_actions(mask[i], p))]
        assert hits, "a relabelled row is no symmetry of its labelled state"
    for bad in (["--hidden", "0,8"], ["--hidden", "a"], ["--epochs", "0"]):
        with pytest.raises(SystemExit) as e:
            lf.main([str(labels), "--heldout", str(labels), *bad])
        assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        lf.main([str(labels), "--heldout", str(tmp_path)])  # not a label directory
    assert e.value.code == 2
    assert "is not a label directory" in capsys.readouterr().err


def test_augmented_label_rows_are_relabelled_states(labels, tmp_path):
    """``augment``: every drawn row is the observation of a suit relabelling of a labelled
    state (one that keeps the trumps), with the labels moved with the cards; a bidding set
    cannot be augmented, and ``dmc.label_augment`` turns it on for the card-play sets."""
    from mariash_env.core import symmetry as Y

    plain = pl.LabelSet(labels)
    aug = pl.LabelSet(labels, augment=True)
    rows = pl.read_shards(labels, pl.shard_files(labels))
    obs0, legal0, value0 = plain.arrays()
    assert len(aug) == len(plain) == len(rows["seat"])
    obs, legal, value = aug.sample(200, np.random.default_rng(3))
    moved = 0
    for o, lg, v in zip(obs, legal, value):
        hit = False
        for i, (st, seat) in enumerate(zip(rows["state"], rows["seat"])):
            for p in Y.symmetries(st):
                if (Y.permute_actions(legal0[i], p) == lg).all():
                    ps = Y.permute_suits(st, p)
                    want = np.zeros(VOLENY.obs_size, np.float32)
                    VOLENY.encode(ps, int(seat), want, False)
                    if (want == o).all():
                        np.testing.assert_array_equal(v, Y.permute_actions(value0[i], p))
                        hit, moved = True, moved + int((p != np.arange(4)).any())
                        break
            if hit:
                break
        assert hit
    assert moved > 100  # most draws are relabelled
    bid = tmp_path / "bid"
    pl.generate(bid, BID, 1, jobs=1, progress=False)
    with pytest.raises(pl.LabelError, match="only card-play labels"):
        pl.LabelSet(bid, augment=True)
    tr = Trainer(_cfg(labels, label_augment=True, bid_label_data=str(bid), bid_label_batch=4),
                 tmp_path / "run", log=lambda *a: None)
    assert [ls.augment for ls, _ in tr.method._label_sets] == [True, False]
    assert np.isfinite(float(tr.method._label_loss(np.random.default_rng(0)).detach()))
