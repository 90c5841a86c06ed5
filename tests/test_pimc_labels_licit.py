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
from mariash_env.kinds import LICITOVANY, VOLENY
from mariash_env.robots.pimc import PIMCRobot
from mariash_env.rules import make_rules
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


def test_mixing_games_refused(play_set: Path, tmp_path: Path) -> None:
    """A licitovaný set is refused where volený labels are wanted (both games named), a
    volený run is refused in a licitovaný directory, and suit-symmetry augmentation
    (volený's action table) is refused for licitovaný labels."""
    with pytest.raises(pl.LabelError, match="licitovany labels, not voleny"):
        pl.load_labels(play_set, game="voleny")
    with pytest.raises(pl.LabelError, match="licitovany labels, not voleny"):
        pl.LabelSet(play_set, game="voleny")
    with pytest.raises(pl.LabelError, match="augmentation is volený's"):
        pl.LabelSet(play_set, augment=True)
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
    rows = (out / "metrics.csv").read_text().splitlines()
    head = rows[0].split(",")
    col, upd = head.index("label_loss"), head.index("updates")
    trained = [r.split(",") for r in rows[1:] if float(r.split(",")[upd]) > 0]
    assert trained and all(float(r[col]) > 0 for r in trained)
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
    from mariash_env.robots.pimc import seat_share
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
    sampled = pl._settings(base)
    assert sampled["worlds_from"] == "sampled"
    (tmp_path / "labels.json").write_text(json.dumps(
        {k: v for k, v in sampled.items() if k != "worlds_from"}))
    pl.check_settings(tmp_path, sampled)
    with pytest.raises(pl.LabelError, match="worlds_from: 'sampled' there, 'deal' now"):
        pl.check_settings(tmp_path, pl._settings({**base, "worlds_from": "deal"}))


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
    from mariash_env.robots.pimc import seat_share
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
