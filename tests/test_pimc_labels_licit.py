"""Licitovaný PIMC labels (issue #35): ``python -m training.pimc_labels --rules licitovany``
for the card play and, with ``--phase bidding``, the decisions before it.

Rules cited from docs/games/licitovany.md (§4 auction, §5 talon and announcement, §6 flek,
§7 tricks, §12 the 136-action table).  Each label set is made once per module (a few
seconds: the search kernels' cache is warm) and checked against the engine's masks and
against :class:`~mariash_env.robots.PIMCRobot`'s own choice on the same worlds.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mariash_env.core import state as S
from mariash_env.core.engine import legal_actions
from mariash_env.games.licitovany import actions as LA
from mariash_env.kinds import LICITOVANY, VOLENY
from mariash_env.robots.pimc import PIMCRobot
from mariash_env.rules import make_rules
from tests.helpers import label_loss_logged, step_cap
from training import pimc_labels as pl

RULES = make_rules(rules="licitovany")
# §4 auction, §5 game / trumps / helping suit / face-down lead, §6 flek: what PIMC simulates
BEFORE_PLAY = {S.PH_BID, S.PH_HOLD, S.PH_LONE, S.PH_GAME, S.PH_TRUMPS, S.PH_HELPING,
               S.PH_LEAD, S.PH_FLEK}
AUCTION = {S.PH_BID, S.PH_HOLD, S.PH_LONE}


def _make(out: Path, phase: str, states: int = 12) -> Path:
    argv = ["--rules", "licitovany", "--out", str(out), "--phase", phase, "--states",
            str(states), "--shard-size", "6", "--worlds", "3", "--seed", "5", "--no-progress"]
    assert pl.main(argv) == 0
    return out


@pytest.fixture(scope="module")
def play_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _make(tmp_path_factory.mktemp("licit") / "play", "play")


@pytest.fixture(scope="module")
def bid_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _make(tmp_path_factory.mktemp("licit") / "bid", "bidding", states=24)


def _rows(out: Path) -> dict[str, np.ndarray]:
    return pl.read_shards(out, pl.shard_files(out))


def _check_masks_and_values(rows: dict[str, np.ndarray]) -> None:
    """Masks are the engine's licitovaný masks (§12: 136 actions), values finite exactly
    on the legal actions, every labelled decision a choice."""
    assert rows["mask"].shape[1] == rows["value"].shape[1] == LICITOVANY.n_actions == 136
    rv = RULES.vector()
    for st, mask, value in zip(rows["state"], rows["mask"], rows["value"]):
        want = np.zeros(LICITOVANY.n_actions, np.int8)
        legal_actions(st, rv, want)
        assert np.array_equal(mask, want)
        assert np.array_equal(np.isfinite(value), mask.astype(bool))
        assert mask.sum() > 1


def _pimc_picks_max(rows: dict[str, np.ndarray], label: object, k: int) -> None:
    """On the same worlds (the same generator) PIMC chooses an action of the largest label."""
    for i in range(k):
        st, seat = rows["state"][i].copy(), int(rows["seat"][i])
        value = label(st.copy(), seat, RULES, 3, np.random.default_rng(100 + i))
        pick = PIMCRobot(worlds=3, seed=100 + i).act_state(st.copy(), seat, RULES)
        assert value[pick] == np.nanmax(value), (i, pick, value[np.isfinite(value)])


def test_card_play_labels(play_set: Path) -> None:
    """§7 tricks: every labelled state is a card-play decision with a choice, valued by the
    solver per legal card (desetníky, the seat's share: actor 2A, defender -A)."""
    meta = json.loads((play_set / "labels.json").read_text())
    assert meta["game"] == "licitovany" and meta["rules"] == {"rules": "licitovany"}
    # the network licitovaný's label sets were always made with (LEGACY_BEHAVIOUR), the
    # game's net before issue #35's networks
    assert meta["behaviour"] == pl.default_behaviour("licitovany") \
        == "onnx:models/robot_licitovany.onnx"
    rows = _rows(play_set)
    assert len(rows["seat"]) == 12
    assert all(int(st[S.PHASE]) == S.PH_PLAY for st in rows["state"])
    _check_masks_and_values(rows)
    _pimc_picks_max(rows, pl.label_state, 4)


def test_bidding_labels(bid_set: Path) -> None:
    """§4-§6: the bidding set labels only decisions before the card play that PIMC
    simulates (never the discards, §5), auction decisions among them."""
    rows = _rows(bid_set)
    phases = {int(st[S.PHASE]) for st in rows["state"]}
    assert phases <= BEFORE_PLAY and phases & AUCTION, phases
    _check_masks_and_values(rows)
    _pimc_picks_max(rows, pl.label_bidding, 4)


def test_resume_remakes_the_same_shard(play_set: Path) -> None:
    """A deleted shard is remade identical (a pure function of seed, index, settings)."""
    before = dict(np.load(pl.shard_path(play_set, 1)))
    pl.shard_path(play_set, 1).unlink()
    _make(play_set, "play")
    after = dict(np.load(pl.shard_path(play_set, 1)))
    assert before.keys() == after.keys()
    for k in before:
        assert np.array_equal(before[k], after[k], equal_nan=True), k


def test_load_labels_encodes_licitovany(play_set: Path) -> None:
    obs, mask, value = pl.load_labels(play_set, game="licitovany")
    assert obs.shape == (12, LICITOVANY.obs_size) and mask.shape == (12, 136)
    rows = _rows(play_set)
    want = np.zeros(LICITOVANY.obs_size, np.float32)
    LICITOVANY.encode(rows["state"][0], int(rows["seat"][0]), want, False)
    assert np.array_equal(obs[0], want)
    ls = pl.LabelSet(play_set)
    assert ls.game == "licitovany" and ls.sample(5, np.random.default_rng(0))[0].shape == (
        5, LICITOVANY.obs_size)


def test_augmented_rows_are_relabelled_labelled_states(play_set: Path) -> None:
    """``augment``: each drawn row is one stored row under one of licitovaný's suit
    symmetries (hearts kept): its observation encoded from the relabelled state, its
    legal cards and values moved with the cards; every symmetry is drawn."""
    from mariash_env.games.licitovany import symmetry as Y

    rows = _rows(play_set)
    ls = pl.LabelSet(play_set, augment=True)
    obs, legal, value = ls.sample(300, np.random.default_rng(3))
    seen = set()
    cands = []
    for st, seat, m, v in zip(rows["state"], rows["seat"], rows["mask"], rows["value"]):
        ok = m.astype(bool) & ~np.isnan(v)
        for k, p in enumerate(Y.PERMS):
            o = np.zeros(LICITOVANY.obs_size, np.float32)
            LICITOVANY.encode(Y.permute_suits(st, p), int(seat), o, False)
            cands.append((o, Y.permute_actions(ok, p),
                          Y.permute_actions(np.where(ok, np.nan_to_num(v), 0), p), k))
    for o, lg, val in zip(obs, legal, value):
        hit = [k for c, cl, cv, k in cands
               if np.array_equal(c, o) and np.array_equal(cl, lg) and np.allclose(cv, val)]
        assert hit, "a drawn row is no relabelled stored row"
        seen.update(hit)
    assert seen == set(range(6))
    assert (legal[:, LA.PLAY0:LA.PLAY0 + 32].sum(1) > 0).all()


def test_mixing_games_refused(play_set: Path, tmp_path: Path) -> None:
    """A licitovaný set is refused where volený labels are wanted (both games named), and
    a volený run is refused in a licitovaný directory."""
    with pytest.raises(pl.LabelError, match="licitovany labels, not voleny"):
        pl.load_labels(play_set, game="voleny")
    with pytest.raises(pl.LabelError, match="licitovany labels, not voleny"):
        pl.LabelSet(play_set, game="voleny")
    voleny = dict(json.loads((play_set / "labels.json").read_text()), rules={},
                  behaviour="models/robot.onnx")
    voleny.pop("game")
    with pytest.raises(pl.LabelError, match="game: 'licitovany' there, 'voleny' now"):
        pl.check_settings(play_set, pl._settings(voleny))
    with pytest.raises(pl.LabelError, match="conflicts with the rule options"):
        pl._settings({**voleny, "game": "licitovany"})


def test_voleny_settings_unchanged(tmp_path: Path) -> None:
    """Volený sets keep ``"rules": {}`` (``--rules voleny`` is the default, not an option),
    and a set made before ``game`` existed reads as volený."""
    base = {"worlds": 2, "shard_size": 3, "seed": 0, "behaviour": "models/robot.onnx",
            "robot_share": 0.0, "epsilon": 0.0, "rules": {}}
    plain = pl._settings(base)
    assert plain == pl._settings({**base, "rules": {"rules": "voleny"}})
    assert plain["game"] == VOLENY.name and plain["rules"] == {}
    old = {k: v for k, v in plain.items() if k != "game"}
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "labels.json").write_text(json.dumps(old))
    assert pl.read_settings(tmp_path)["game"] == VOLENY.name
    pl.check_settings(tmp_path, plain)  # resumable: no difference


def test_a_licitovany_student_trains_on_licitovany_labels(play_set: Path, bid_set: Path,
                                                          tmp_path: Path) -> None:
    """Issue #35, licitovaný expert iteration: a licitovaný DMC run regresses its network
    (136 actions) on both label sets every step (the label loss is logged and positive);
    a volený run is refused a licitovaný set by name."""
    pytest.importorskip("torch")
    from training.config import Config, ConfigError
    from training.trainer import Trainer

    def cfg(rules: dict) -> Config:
        return Config.from_dict({
            "seed": 3, "env": {"num_envs": 16, "rollout_steps": 30, "rules": rules},
            "network": {"hidden": [32]},
            "eval": {"every": 0, "deals": 4, "num_envs": 8, "bootstrap": 20,
                     "opponents": [], "final_opponents": []},
            "run": {"max_iterations": 2, "checkpoint_every": 1, "keep_checkpoints": 1,
                    "threads": 1, "progress": False, "tensorboard": False, "plot": False},
            "dmc": {"batch_size": 32, "label_data": str(play_set), "label_batch": 8,
                    "bid_label_data": str(bid_set), "bid_label_batch": 4},
        }, "test")

    out = tmp_path / "run"
    tr = Trainer(cfg({"rules": "licitovany"}), out, log=lambda *a: None)
    assert [ls.game for ls, _ in tr.method._label_sets] == ["licitovany", "licitovany"]
    tr.train()
    assert label_loss_logged(out)
    with pytest.raises(ConfigError, match="holds licitovany labels, not voleny"):
        Trainer(cfg({}), tmp_path / "other", log=lambda *a: None)


def _deal_set(out: Path, phase: str) -> dict[str, np.ndarray]:
    argv = ["--rules", "licitovany", "--out", str(out), "--phase", phase, "--states", "16",
            "--shard-size", "8", "--worlds", "1", "--worlds-from", "deal", "--seed", "9",
            "--epsilon", "0.1", "--no-progress"]
    assert pl.main(argv) == 0
    assert json.loads((out / "labels.json").read_text())["worlds_from"] == "deal"
    return _rows(out)


def test_deal_labels_value_the_real_deal(tmp_path: Path) -> None:
    """#35, ``--worlds-from deal``: every label is valued in the one real deal of its row,
    not in worlds of the seat's knowledge.  §7 card play: the solver's value of each legal
    card in that deal (the seat's share); §4-§6: each legal action applied to that deal,
    played out by the table robot at every seat (PIMC's simulation)."""
    from mariash_env.core.engine import apply_action
    from mariash_env.robots.playouts import seat_share
    from mariash_env.search import solve

    rows = _deal_set(tmp_path / "play", "play")
    _check_masks_and_values(rows)
    for st, seat, mask, value in zip(rows["state"], rows["seat"], rows["mask"],
                                     rows["value"]):
        exact = solve(st.copy(), RULES, pv=False, all_moves=True).move_values
        for a in np.flatnonzero(mask):
            assert value[a] == pytest.approx(seat_share(st, int(seat)) * exact[a], abs=1e-4)
    rows = _deal_set(tmp_path / "bid", "bidding")
    _check_masks_and_values(rows)
    assert {int(st[S.PHASE]) for st in rows["state"]} <= BEFORE_PLAY
    roll = PIMCRobot(worlds=1, warm=False)._rollout(RULES, None, 10)
    for st, seat, mask, value in zip(rows["state"], rows["seat"], rows["mask"],
                                     rows["value"]):
        for a in np.flatnonzero(mask):
            w = st.copy()
            apply_action(w, RULES.vector(), int(a))
            assert value[a] == pytest.approx(roll.value(w, int(seat)), abs=1e-4)


def test_deal_labels_settings(tmp_path: Path) -> None:
    """The real deal is one world (more is refused, naming what is expected); an unknown
    source is refused; a set made before the option existed reads as ``sampled`` and is
    resumed, and a deal set is not mixed into a sampled directory."""
    base = {"worlds": 1, "shard_size": 3, "seed": 0, "behaviour": "table",
            "robot_share": 0.0, "epsilon": 0.0, "rules": {"rules": "licitovany"}}
    with pytest.raises(pl.LabelError, match="expected worlds 1, got 3"):
        pl._settings({**base, "worlds": 3, "worlds_from": "deal"})
    with pytest.raises(pl.LabelError, match="worlds_from must be one of"):
        pl._settings({**base, "worlds_from": "oracle"})
    _check_added_later(tmp_path, base, "worlds_from", "sampled", "deal")


def _check_added_later(tmp_path: Path, base: dict, key: str, old: str, new: str) -> None:
    """A set made before setting ``key`` existed reads as its default ``old`` and is
    resumed; a set of ``new`` is not mixed into its directory."""
    settings = pl._settings(base)
    assert settings[key] == old
    (tmp_path / "labels.json").write_text(json.dumps(
        {k: v for k, v in settings.items() if k != key}))
    pl.check_settings(tmp_path, settings)
    with pytest.raises(pl.LabelError, match=f"{key}: '{old}' there, '{new}' now"):
        pl.check_settings(tmp_path, pl._settings({**base, key: new}))


def test_label_bias_finds_no_gap_in_a_deal_set(tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    """``scripts/label_bias.py`` values a set's flek rows (§6) in their real deals: on a
    set labelled in those very deals the label and real-deal columns agree; a card-play
    set is refused by name."""
    from scripts import label_bias

    argv = ["--rules", "licitovany", "--out", str(tmp_path / "bid"), "--phase", "bidding",
            "--states", "60", "--shard-size", "60", "--worlds", "1", "--worlds-from", "deal",
            "--seed", "3", "--epsilon", "0.1", "--no-progress"]
    assert pl.main(argv) == 0
    capsys.readouterr()
    assert label_bias.main([str(tmp_path / "bid")]) == 0
    groups = [line.split() for line in capsys.readouterr().out.splitlines()
              if line.startswith(("actor", "defender"))]
    assert groups
    for g in groups:  # side level rows | good label real | flek label real | share
        assert g[4] == g[5] and g[7] == g[8], g
    _deal_set(tmp_path / "play", "play")
    assert label_bias.main([str(tmp_path / "play")]) == 2
    assert "expected a bidding set" in capsys.readouterr().err


def test_a_sampler_that_gives_up_still_labels(play_set: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """#35: licitovaný's rejection sampler gives up in rare positions (a betl and durch set
    of 100,000 labels met one).  The label is then valued over the worlds it did find, as
    PIMC searches them, and with none found over the real deal: the set never stops."""
    from mariash_env.games.licitovany.worlds import LicitWorldError
    from mariash_env.robots.playouts import seat_share
    from mariash_env.search import solve

    rows = _rows(play_set)
    st, seat = rows["state"][0].copy(), int(rows["seat"][0])
    found = pl._sampler(LICITOVANY)(st.copy(), seat, 2, np.random.default_rng(1), rules=RULES)

    def gives_up(worlds):
        def sample(*a, **k):
            raise LicitWorldError("only some worlds", worlds)
        return sample

    def exact(ws):
        vals = [solve(w.copy(), RULES, pv=False, all_moves=True).move_values for w in ws]
        return {a: np.mean([seat_share(w, seat) * v[a] for w, v in zip(ws, vals)])
                for a in np.flatnonzero(rows["mask"][0])}

    for worlds, used in ((found, found), (None, st[None])):
        monkeypatch.setattr(pl, "_sampler", lambda kind, w=worlds: gives_up(w))
        value = pl.label_state(st.copy(), seat, RULES, 8, np.random.default_rng(2))
        assert np.isfinite(value).sum() == rows["mask"][0].sum()
        for a, v in exact(used).items():
            assert value[a] == pytest.approx(v, abs=1e-4)


def _playout_set(out: Path, behaviour: str, playout: str, states: int = 16,
                 phase: str = "bidding") -> dict[str, np.ndarray]:
    argv = ["--rules", "licitovany", "--out", str(out), "--phase", phase, "--states",
            str(states), "--shard-size", str(states), "--worlds", "1", "--worlds-from",
            "deal", "--playout", playout, "--behaviour", behaviour, "--robot-share", "1",
            "--seed", "9", "--epsilon", "0.1", "--no-progress"]
    assert pl.main(argv) == 0
    assert json.loads((out / "labels.json").read_text())["playout"] == playout
    return _rows(out)


def test_behaviour_playouts_are_the_table_robots_when_it_behaves(tmp_path: Path) -> None:
    """#35, ``--playout behaviour``: each candidate's deal is played out by the behaviour
    robot at every seat, batched (:func:`mariash_env.playout.playout_values`).  With the
    table robot as the behaviour that is PIMC's own simulation, so the set is the default
    one bit for bit -- later deals of the partie included (§4-§6 decisions of deal 2 on,
    played out as a single deal)."""
    table = _playout_set(tmp_path / "t", "table", "table")
    assert (table["state"][:, S.DEAL_NO] > 0).any()
    for playout in ("behaviour", "against_table"):  # the table robot at every seat both
        played = _playout_set(tmp_path / playout, "table", playout)
        _check_masks_and_values(played)
        for key in ("state", "seat", "mask", "value"):
            np.testing.assert_array_equal(played[key], table[key])


@pytest.mark.parametrize("phase", ["bidding", "play"])
@pytest.mark.parametrize("playout", ["behaviour", "against_table"])
def test_behaviour_playouts_play_the_network(tmp_path: Path, playout: str, phase: str
                                             ) -> None:
    """A network behaviour: every legal action's label is the seat's payment after it, the
    deal then played one decision at a time by that network at every seat (§4-§9) --
    ``against_table``: by the network at the labelled seat and the table robot at the
    others -- and the set differs from the table robot's playouts.  Card play too (#35:
    the value of a card against the table robot's defence, not the solver's)."""
    from mariash_env.core.engine import apply_action
    from mariash_env.robots.onnx_robot import OnnxRobot

    model = "models/robot_licitovany_deal4.onnx"
    rows = _playout_set(tmp_path / "n", model, playout, states=8, phase=phase)
    _check_masks_and_values(rows)
    assert ((rows["state"][:, S.PHASE] == S.PH_PLAY) == (phase == "play")).all()
    net = OnnxRobot(model, game="licitovany")
    table = LICITOVANY.load("table_robot")()
    rv = RULES.vector()
    obs = np.zeros(LICITOVANY.obs_size, np.float32)
    mask = np.zeros(LICITOVANY.n_actions, np.int8)
    roll = PIMCRobot(worlds=1, warm=False)._rollout(RULES, None, 10)
    differs = False
    for st, seat, legal, value in zip(rows["state"], rows["seat"], rows["mask"],
                                      rows["value"]):
        for a in np.flatnonzero(legal):
            w = st.copy()
            apply_action(w, rv, int(a))
            tick = step_cap(RULES)
            while w[S.PHASE] != S.PH_DONE:
                tick()
                to = int(w[S.TO_MOVE])
                mask[:] = 0
                legal_actions(w, rv, mask)
                LICITOVANY.encode(w, to, obs, False)
                who = net if playout == "behaviour" or to == int(seat) else table
                apply_action(w, rv, who.act({"observation": obs, "action_mask": mask}))
            assert value[a] == pytest.approx(S.get64(w, S.PAY + 2 * int(seat)), abs=1e-4)
            w = st.copy()
            apply_action(w, rv, int(a))
            differs |= value[a] != pytest.approx(roll.value(w, int(seat)), abs=1e-4)
    assert differs


def test_a_bidding_set_of_one_side_leaves_the_auction_out() -> None:
    """``--roles actor`` on a licitovaný bidding set: the auction (§3), before anybody is
    the actor, is neither side's; the actor's rows are the game, trumps, lead and his
    fleks (§5-§6), the defenders' their fleks."""
    base = {"worlds": 1, "shard_size": 12, "seed": 4, "behaviour": "table",
            "robot_share": 0.0, "epsilon": 0.2, "rules": {"rules": "licitovany"},
            "phase": "bidding", "worlds_from": "deal"}
    auction = (S.PH_BID, S.PH_HOLD, S.PH_LONE)
    for side in ("actor", "defender"):
        rows = pl.make_shard(base | {"roles": side}, 0)
        st, seat = rows["state"], rows["seat"]
        assert not np.isin(st[:, S.PHASE], auction).any()
        assert ((seat == st[:, S.ACTOR]) == (side == "actor")).all()
    assert np.isin(pl.make_shard(base, 0)["state"][:, S.PHASE], auction).any()
    # the auction is a side of its own, and sides combine (comma-separated): a run's two
    # bidding sets split the decisions without overlap
    only = pl.make_shard(base | {"roles": "auction"}, 0)["state"]
    assert np.isin(only[:, S.PHASE], auction).all() and (only[:, S.ACTOR] < 0).all()
    rows = pl.make_shard(base | {"roles": "auction,actor", "shard_size": 40}, 0)
    st, seat = rows["state"], rows["seat"]
    in_auction = np.isin(st[:, S.PHASE], auction)
    assert in_auction.any() and (~in_auction).any()
    assert (seat[~in_auction] == st[~in_auction, S.ACTOR]).all()
    assert pl._settings(base | {"roles": "auction,actor"})["roles"] == "actor,auction"
    assert pl._settings(base | {"roles": "defender,auction,actor"})["roles"] == "all"
    for bad in ("actor,flek", "", "actor,"):
        with pytest.raises(pl.LabelError, match="comma-separated sides of"):
            pl._settings(base | {"roles": bad})


def test_playout_settings(tmp_path: Path) -> None:
    """Either phase takes a playout (card play's default, ``table``, is the solver); an
    unknown one is refused, naming the choices; a set made before the option existed reads
    as the table robot's and is resumed."""
    base = {"worlds": 1, "shard_size": 3, "seed": 0, "behaviour": "table",
            "robot_share": 0.0, "epsilon": 0.0, "rules": {"rules": "licitovany"},
            "phase": "bidding"}
    for playout in pl.PLAYOUTS:
        assert pl._settings({**base, "phase": "play", "playout": playout})["playout"] == playout
    with pytest.raises(pl.LabelError, match="playout must be one of"):
        pl._settings({**base, "playout": "solver"})
    with pytest.raises(pl.LabelError, match="playout must be one of"):
        pl._settings({**base, "phase": "play", "playout": "solver"})
    _check_added_later(tmp_path, base, "playout", "table", "behaviour")


def test_label_regret_reads_a_licitovany_set(play_set: Path, capsys: pytest.CaptureFixture,
                                             tmp_path: Path) -> None:
    """``scripts/label_regret.py`` on a licitovaný card-play set (§7): the networks see
    licitovaný's observations, the table robot is licitovaný's, the figures are in
    desetníky; a volený network is refused, naming the game."""
    from scripts import label_regret as lr

    png = tmp_path / "regret.png"
    assert lr.main([str(play_set), "models/robot_licitovany_deal4.onnx", "--states", "12",
                    "--pimc", "2", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "12 labelled card-play states" in out and "regret, desetníky" in out
    assert "robot_licitovany_deal4" in out and "table" in out and "pimc2" in out
    assert png.stat().st_size > 1000
    with pytest.raises(SystemExit):
        lr.main([str(play_set), "models/robot.onnx", "--states", "12"])
    assert "licitovany" in capsys.readouterr().err


def test_voleny_card_play_playouts_are_the_table_robots_playouts() -> None:
    """Volený card play takes a playout as well (#35): with the table robot as the
    behaviour, every legal card's label is the seat's payment when the table robot plays
    the deal out after it (RULES.md §8), each illegal action NaN; and the set is not the
    solver's exact values, its default."""
    from mariash_env.playout import playout_values

    rules = make_rules()
    base = {"worlds": 1, "shard_size": 6, "seed": 3, "behaviour": "table",
            "robot_share": 1.0, "epsilon": 0.1, "rules": {}, "phase": "play",
            "worlds_from": "deal"}
    rows = pl.make_shard(pl._settings(base | {"playout": "behaviour"}), 0)
    exact = pl.make_shard(pl._settings(base), 0)
    np.testing.assert_array_equal(rows["state"], exact["state"])  # the same states
    table = VOLENY.load("table_robot")()
    for st, seat, mask, value in zip(rows["state"], rows["seat"], rows["mask"],
                                     rows["value"]):
        assert st[S.PHASE] == S.PH_PLAY
        legal = [int(a) for a in np.flatnonzero(mask)]
        assert np.isfinite(value[legal]).all()
        assert np.isnan(np.delete(value, legal)).all()
        want = playout_values(table, st[None], int(seat), legal, rules)[0]
        np.testing.assert_allclose(value[legal], want, atol=1e-4)
    assert not np.allclose(rows["value"], exact["value"], equal_nan=True)


def test_as_seated_playouts_play_each_seat_as_seated_in_the_party() -> None:
    """``--playout as_seated`` (#35): the labelled seat is played out by the behaviour
    network, every other seat by whoever sits there in the labelled party -- the network
    where it plays the deal (``robot_share``), the table robot elsewhere -- so the labels
    value a decision over the arena's seatings against the table robot, alone against two
    of it and beside its own copy (the defenders' RULES.md §5 decisions, the deal then
    played out, §6-§9).  With the network at every seat that is ``behaviour``, with it at
    none ``against_table``, bit for bit; in between each label is one of the party's
    seatings, not always the same."""
    from mariash_env.playout import playout_values
    from mariash_env.robots.onnx_robot import OnnxRobot

    model = "models/robot_voleny_deal3.onnx"
    base = {"worlds": 1, "shard_size": 8, "seed": 5, "behaviour": model, "epsilon": 0.1,
            "rules": {}, "phase": "bidding", "worlds_from": "deal", "roles": "defender"}
    for share, same in ((1.0, "behaviour"), (0.0, "against_table")):
        rows = pl.make_shard(pl._settings(base | {"robot_share": share,
                                                  "playout": "as_seated"}), 0)
        want = pl.make_shard(pl._settings(base | {"robot_share": share,
                                                  "playout": same}), 0)
        for key in ("state", "seat", "mask", "value"):
            np.testing.assert_array_equal(rows[key], want[key])
    rules = make_rules()
    net = OnnxRobot(model, game="voleny")
    table = VOLENY.load("table_robot")()
    rows = pl.make_shard(pl._settings(base | {"robot_share": 0.5, "playout": "as_seated",
                                              "shard_size": 12}), 0)
    found = set()
    for st, seat, mask, value in zip(rows["state"], rows["seat"], rows["mask"],
                                     rows["value"]):
        legal = [int(a) for a in np.flatnonzero(mask)]
        seat = int(seat)
        others = [s for s in range(3) if s != seat]
        matches = []
        for a, b in ((0, 0), (0, 1), (1, 0), (1, 1)):
            seating = [0, 0, 0]
            seating[others[0]], seating[others[1]] = a, b
            got = playout_values(net, st[None], seat, legal, rules, table, seating)[0]
            if np.allclose(value[legal], got, atol=1e-4):
                matches.append((a, b))
        assert matches, "a label matches none of the party's seatings"
        found.update(matches if len(matches) == 1 else [])
    assert len(found) >= 2  # the parties' seatings vary from deal to deal
    with pytest.raises(ValueError, match="expected 0 .robot. or 1 .others."):
        playout_values(net, rows["state"][:1], int(rows["seat"][0]),
                       [int(np.flatnonzero(rows["mask"][0])[0])], rules, table, [0, 2, 1])
