"""``mariash best-response`` (issue #34): the gain of an exploiter over a frozen robot in
the robot's seats (duplicate deals, the robot alone as the baseline, split by role), the
frozen tables of the rollouts that train it, and the command end to end on lízaný."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from mariash_env.arena import seatings
from mariash_env.research.best_response import (
    BestResponseError,
    exploiter_gain,
    gain_per_deal,
    main,
    parse_game,
)


def _outcome(payments, actor=-1):
    return {"payments": list(payments), "actor": actor}


def test_gain_is_the_exploiters_payment_minus_the_robots_in_the_same_seat():
    """Hand-made deals: the gain averages, over the seatings with the exploiter in
    ``seats`` seats, its payment minus the frozen robot's in the same seat of the
    baseline game; the role split adds up to it exactly."""
    seats3 = seatings(2, 3)  # (0,0,1), (0,1,0), (0,1,1), (1,0,0), (1,0,1), (1,1,0)
    base = _outcome([4, -2, -2], actor=0)
    games = []
    for s in seats3:
        # the exploiter (robot 0) as actor wins 10 in its seat; else it defends and pays 1
        pay = [10 if (r == 0 and k == 0) else (-1 if r == 0 else 0) for k, r in enumerate(s)]
        games.append(_outcome(pay, actor=0))
    match = SimpleNamespace(deals=1, seatings=seats3, outcomes=[games])
    baseline = SimpleNamespace(deals=1, seatings=[(0, 0, 0)], outcomes=[[base]])
    g1, split1, roles = gain_per_deal(match, baseline, seats=1)
    # one exploiter seat: (0,1,1) seat 0 -> 10 - 4; (1,0,1) seat 1 -> -1 + 2; (1,1,0) -> -1 + 2
    assert roles == ("actor", "defender", "no game")
    assert g1[0] == pytest.approx((6 + 1 + 1) / 3)
    assert split1[0] == pytest.approx([(10 - 4) / 3, (-1 - 1 + 2 + 2) / 3, 0])
    g2, split2, _ = gain_per_deal(match, baseline, seats=2)
    # two exploiter seats: (0,0,1): 6, 1; (0,1,0): 6, 1; (1,0,0): 1, 1
    assert g2[0] == pytest.approx((6 + 1 + 6 + 1 + 1 + 1) / 6)
    assert split2[0].sum() == pytest.approx(g2[0])


def test_a_robot_gains_nothing_over_itself():
    """The deterministic table robot as its own exploiter plays the baseline's games move
    for move: gain exactly 0 in every role (volený and lízaný)."""
    for rules in ("voleny", "lizany"):
        g = exploiter_gain("table", "table", rules=rules, deals=6, progress=False, n_boot=50)
        assert g.mean == 0.0 and all(v == 0.0 for v in g.roles.values())


def test_random_play_loses_against_the_table_robot_and_the_split_is_exact():
    g = exploiter_gain("random", "table", rules="voleny", deals=20, progress=False,
                       n_boot=200)
    assert g.mean < 0 and g.ci_high < 0 and g.unit == "groše"
    assert sum(g.roles.values()) == pytest.approx(g.mean)
    with pytest.raises(BestResponseError, match="1..1 of the 2 seats"):
        exploiter_gain("random", "table", rules="lizany", seats=2, deals=2, progress=False)


def test_parse_game():
    assert parse_game("voleny=table,pimc(worlds=4, time_limit=0.05)") == (
        "voleny", ["table", "pimc(worlds=4, time_limit=0.05)"])
    assert parse_game("lizany")[1] == ["table", "net", "strong"]


# --- training: the frozen tables of the rollouts ---------------------------------------------

torch = pytest.importorskip("torch")

from training.config import Config, ConfigError  # noqa: E402
from training.methods import get_method  # noqa: E402
from training.rollout import T_FROZEN, SelfPlayActor  # noqa: E402


def _cfg(**selfplay) -> Config:
    return Config.from_dict({
        "seed": 1, "env": {"num_envs": 12, "rollout_steps": 40, "deals": 1},
        "network": {"hidden": [16]},
        "selfplay": {"pool_size": 0, "pool_share": 0.0, "random_share": 0.0,
                     "frozen": "table", "frozen_share": 1.0, **selfplay},
        "eval": {"every": 0, "opponents": []},
        "run": {"progress": False, "tensorboard": False, "plot": False},
    }, "test")


@pytest.mark.parametrize("k", [1, 2])
def test_frozen_tables_give_the_robot_every_seat_but_the_learners(k):
    actor = SelfPlayActor(_cfg(frozen_seats=k), get_method("dmc"))
    actor.begin_segment(0)
    asked = []
    inner = actor._frozen_actions

    def spy(rows, st, obs):
        bits = actor.learner_seats[rows]
        asked.append(((bits >> st.player[rows]) & 1).sum())
        return inner(rows, st, obs)

    actor._frozen_actions = spy
    batch, stats = actor.collect({"epsilon": 0.1})
    assert (actor.kind == T_FROZEN).all()
    popcount = np.array([bin(int(b)).count("1") for b in actor.learner_seats])
    assert (popcount == k).all()
    assert asked and sum(asked) == 0  # never asked for a learner's seat
    assert len(batch) > 0 and set(batch.table.tolist()) == {T_FROZEN}
    assert stats["n_vs_frozen"] == len(batch)


def test_a_frozen_robot_needs_its_share():
    with pytest.raises(ConfigError, match="frozen robot needs a share"):
        _cfg(frozen_share=0.0)
    with pytest.raises(ConfigError, match="unknown robot"):
        _cfg(frozen="nobody")


@pytest.mark.parametrize("argv, says", [
    (["--robot", "strong", "--game", "lizany=net"], "--game 'lizany=net' picks the robots"),
    (["--table", "--robot", "table"], "--table measures the robots that --game names"),
    (["--table", "--endgame", "3"], "--table measures the robots that --game names"),
    # --table plays the games of --game: a --rules was ignored, at any value
    (["--table", "--rules", "lizany"], "--table plays the games that --game names"),
    (["--table", "--rules", "voleny"], "--table plays the games that --game names"),
    (["--robot", "table", "--endgame", "2", "--rules", "lizany"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--exploiter", "random"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--num-envs", "64"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--deals", "50"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--jobs", "2"], "are not its options"),
    # given at their default values: refused too, as the page says (they were ignored)
    (["--robot", "table", "--endgame", "2", "--rules", "voleny"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--seats", "1"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--jobs", "1"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--deals", "500"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--num-envs", "256"], "are not its options"),
    (["--robot", "table", "--endgame", "2", "--exploiter", ""], "are not its options"),
])
def test_options_of_the_other_mode_are_refused_not_ignored(argv, says, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err



def test_help_names_where_each_mode_writes(capsys):
    """--help said --out defaults to runs/best_response/GAME/ROBOT, while --table wrote
    its page to docs (over the committed table) and --endgame its run to
    RUNS/endgameT-SEED/ROBOT; and --runs was 'with --table' only, while a run without
    --out goes there too.  The help names each default as the code takes it."""
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "with --table: the folder of best_response.{csv,md,png} (default docs)" in text
    assert "RUNS/endgameTRICKS-SEED/ROBOT" in text and "default RUNS/GAME/ROBOT" in text
    assert "one robot's run without --out" in text
    # every option says its default, --no-plot what it leaves out (it said nothing)
    assert all(f"{w} (default {d})" in text for w, d in (
        ("decks and training seed", 0), ("processes of the matches", 1),
        ("deals of the measurement of a searching robot", 60)))
    assert "--no-plot write no chart" in text

def test_the_command_trains_measures_and_resumes(tmp_path, capsys):
    """``mariash best-response`` on lízaný: a short training warm-started from the shipped
    network, the exploiter exported, the gain written; a rerun reads the result back."""
    out = tmp_path / "br"
    argv = ["--robot", "table", "--rules", "lizany", "--decisions", "4096", "--num-envs",
            "64", "--deals", "20", "--seed", "3", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    res = json.loads((out / "result.json").read_text())
    assert res["training"]["decisions"] >= 4096 and (out / "exploiter.onnx").is_file()
    assert res["training"]["init"].endswith("robot_lizany_endgame.onnx")  # the net
    assert res["trained"]["exploiter"].endswith("exploiter.onnx") and res["gain"]["deals"] == 20
    assert set(res["gain"]["roles"]) == {"leader", "second"}
    # the gain is the trained network's or its warm start's, whichever won on other deals
    sel = res["selection"]
    best = "trained" if sel["trained"] >= sel["warm_start"] else "before"
    assert sel["chosen"] == ("trained" if best == "trained" else "warm start")
    assert res["gain"] == res[best] and sel["seed"] != res["gain"]["deals"]
    (out / "train" / "checkpoint.pt").unlink()  # the result is all a rerun reads
    assert main(argv) == 0
    again = capsys.readouterr().out  # the measured lines and the gain, as the first run
    assert again.startswith("onnx:") and " over table " in again and printed.endswith(again)
    assert json.loads(printed[printed.index("\n{") + 1:])["mean"] == res["gain"]["mean"]


def test_a_finished_run_of_other_settings_is_refused_a_damaged_one_redone(tmp_path, capsys):
    """The run folder's ``result.json`` answers a rerun of the same settings (another
    ``--jobs`` too); other settings are refused naming what differs (its answer is not
    theirs), and so are they in a folder of a run cut short (``settings.json``: its
    training would go on with the old ones); a damaged result is measured again with a
    warning naming it."""
    def _answer(stdout: str) -> dict:
        got = json.loads(stdout[stdout.index("\n{") + 1:])  # its line first, then the JSON
        got.pop("seconds")
        return got

    out = tmp_path / "br"
    argv = ["--robot", "random", "--exploiter", "table", "--rules", "lizany", "--deals", "6",
            "--out", str(out), "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    first = _answer(printed)
    assert main([*argv, "--jobs", "2"]) == 0
    assert capsys.readouterr().out == printed  # the measured line too, not the JSON alone
    with pytest.raises(SystemExit) as e:
        main([*argv, "--deals", "8"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "holds a finished run of other settings: deals 6 (this run " \
        "8)" in err, err
    kept = (out / "result.json").read_bytes()
    (out / "result.json").unlink()  # a run cut short: its training would resume
    with pytest.raises(SystemExit) as e:
        main([*argv, "--robot", "table"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "holds a run of other settings: robot 'random' (this run " \
        "'table')" in err, err
    with pytest.raises(SystemExit) as e:  # the endgame check's settings are others too
        main(["--endgame", "2", "--robot", "random", "--out", str(out), "--quiet"])
    assert e.value.code == 2 and "endgame None (this run 2)" in capsys.readouterr().err
    (out / "result.json").write_bytes(kept)
    # junk first, its own value last: a key given twice was read as the last, silently
    for damage in ("{cut", "[]", json.dumps({"settings": {}}),
                   '{"gain": null, ' + kept.decode()[1:]):
        (out / "result.json").write_text(damage)
        assert main(argv) == 0
        got = capsys.readouterr()
        assert f"warning: {out / 'result.json'} is damaged" in got.err, got.err
        assert _answer(got.out) == first


def test_a_one_deal_run_writes_standard_json_and_reads_it_back(tmp_path, capsys):
    """A one-deal run has no interval (NaN): result.json and the printed gain said NaN,
    which is not JSON (JavaScript's JSON.parse refused them, jq 1.6 read null).  Both
    are standard JSON, the interval null; a rerun reads the result back as it was
    measured (NaN) and prints the same lines and the same JSON."""
    from tests.helpers import strict_loads

    out = tmp_path / "br"
    argv = ["--robot", "random", "--exploiter", "table", "--rules", "lizany", "--deals", "1",
            "--out", str(out), "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    res = strict_loads((out / "result.json").read_text())
    gain = strict_loads(printed[printed.index("\n{") + 1:])
    assert gain == res["gain"] and gain["ci_low"] is None and gain["ci_high"] is None
    assert gain["role_ci"] == {"leader": [None, None], "second": [None, None]}
    assert "[+nan, +nan]" in printed.splitlines()[0]
    assert strict_loads((out / "settings.json").read_text())["deals"] == 1
    assert main(argv) == 0  # read back: the same lines, the same JSON
    assert capsys.readouterr().out == printed


def test_bad_settings_are_one_error_line_and_leave_no_folder(tmp_path, capsys):
    """Seats, robot specs and the warm start (a truncated checkpoint, one of another network
    width) are checked before the run's folder is claimed: one ``error:`` line, exit 2, no
    traceback, no progress bar and nothing on disk, so that a later run of good settings
    in the same folder is not refused as 'a run of other settings'."""
    from training.checkpoint import MAGIC
    from training.trainer import Trainer

    trunc = tmp_path / "trunc.pt"
    trunc.write_bytes(MAGIC + (1000).to_bytes(8, "little") + bytes(32) + b"cut")
    narrow = tmp_path / "narrow"
    Trainer(_cfg(), narrow).save()  # hidden [16]: the shipped network's width is another
    out = tmp_path / "br"
    base = ["--robot", "random", "--deals", "4", "--out", str(out)]
    endgame = [x for x in base if x not in ("--deals", "4")]  # it plays no match
    for extra, says in [(["--seats", "7"], "invalid --seats 7: the exploiter takes 1..2"),
                        (["--init", str(trunc)], f"--init {trunc}: checkpoint {trunc} is "
                                                 "truncated"),
                        (["--init", str(narrow / "checkpoint.pt")], "network of another "
                                                                    "shape"),
                        (["--robot", "bogus"], "unknown robot 'bogus'"),
                        (["--exploiter", "bogus"], "unknown robot 'bogus'"),
                        (["--endgame", "2", "--init", str(trunc)], "is truncated"),
                        (["--endgame", "5"], "invalid --endgame 5: expected 1..4 tricks"),
                        (["--endgame", "2", "--robot", "strong"], "searches the game view"),
                        # a missing .onnx: 'cannot write the file: no shipped model ...'
                        (["--init", str(tmp_path / "nope.onnx")],
                         f"--init {tmp_path / 'nope.onnx'}: no such file"),
                        (["--init", "nope.onnx"], "--init nope.onnx: no such file")]:
        with pytest.raises(SystemExit) as e:
            # no --quiet: a match started would show its bar
            main([*(endgame if "--endgame" in extra else base), *extra])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.startswith("error: ") and says in err, err
        assert len(err.splitlines()) == 1 and not out.exists(), err
    assert main([*base, "--exploiter", "table", "--quiet"]) == 0  # not refused
    assert json.loads((out / "settings.json").read_text())["seats"] == 1


def test_a_missing_warm_start_is_not_taken_for_a_shipped_model_of_its_name(tmp_path):
    """--init of a missing file whose name a shipped model has (runs/x/robot.onnx
    mistyped) warm-started from the shipped robot.onnx without a word; only a bare name
    or models/NAME names a shipped model."""
    from mariash_env.shipped import shipped_model
    from training.best_response import init_model

    with pytest.raises(ValueError, match="no such file"):
        init_model("voleny", str(tmp_path / "robot.onnx"))
    assert init_model("voleny", "robot.onnx") == shipped_model("robot.onnx")
    assert init_model("voleny", "models/robot.onnx").resolve() == \
        shipped_model("robot.onnx").resolve()


def _fake_endgame_check(monkeypatch, exact_mean: float = 0.2) -> dict:
    """``training.best_response.endgame_check`` replaced by one that records its keyword
    arguments and answers at once (the real one trains for minutes)."""
    import training.best_response as tbr

    seen: dict = {}

    def fake(robot, out, **kw):
        seen.update(kw)
        return {"exact_gain": [exact_mean] * 3, "approx_gain": [0.0] * 3,
                "exact_mean": exact_mean, "approx_mean": 0.0}

    monkeypatch.setattr(tbr, "endgame_check", fake)
    return seen


def test_the_endgame_check_trains_at_the_given_lr(tmp_path, monkeypatch, capsys):
    """``--endgame`` with ``--lr`` (the docs' exact check: ``--lr 3e-4``) trains at that
    rate, and a folder of another rate is refused: the option was dropped, so the check
    trained at the default 3e-5 whatever it said."""
    import training.best_response as tbr

    seen = _fake_endgame_check(monkeypatch)
    out = tmp_path / "eg"
    argv = ["--robot", "table", "--endgame", "2", "--out", str(out), "--quiet"]
    assert main([*argv, "--lr", "3e-4"]) == 0
    assert seen["lr"] == 3e-4
    assert json.loads((out / "settings.json").read_text())["lr"] == 3e-4
    cfg = tbr.exploiter_config(tbr.endgame_settings("table", 0, "", 100, 1.0, 3e-4), None)
    assert cfg.algo.lr == 3e-4
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main([*argv, "--lr", "1e-4"])
    assert e.value.code == 2 and "lr 0.0003 (this run 0.0001)" in capsys.readouterr().err


def test_the_endgame_check_where_nothing_is_to_gain(tmp_path, monkeypatch, capsys):
    """One trick (every card forced): the exact best response gains 0, and the command
    says so where it divided by it (a ZeroDivisionError traceback)."""
    _fake_endgame_check(monkeypatch, exact_mean=0.0)
    assert main(["--robot", "table", "--endgame", "1", "--out", str(tmp_path / "eg"),
                 "--quiet"]) == 0
    assert "the robot is a best response here" in capsys.readouterr().out


def _table_row(robot, gain, low, high):
    return {"game": "voleny", "robot": robot, "seats": 1, "deals": 30, "unit": "groše",
            "gain": gain, "ci_low": low, "ci_high": high, "exploiter": "trained",
            "before": gain, "before_low": low, "before_high": high, "trained": gain,
            "trained_low": low, "trained_high": high, "train_decisions": 1000,
            "worst_role": "actor", "roles": f"actor {gain:+.2f}; defender +0.00; no game +0.00"}


def test_the_worst_role_is_one_where_the_exploiter_gains():
    """A robot's weak role is where the exploiter gains most over it, none where it gains
    in no role (the committed table named "no game", gain 0, for volený's strong robot
    whose exploiter lost in every role); the committed CSV says the same as its roles."""
    import csv
    from pathlib import Path

    from mariash_env.research.best_response import worst_role

    assert worst_role({"actor": 1.63, "defender": 0.03, "no game": 0.0}) == "actor"
    assert worst_role({"actor": -0.18, "defender": -0.64, "no game": 0.0}) == ""
    assert worst_role({"leader": -0.07, "second": -0.08}) == "" and worst_role({}) == ""
    csv_path = Path(__file__).resolve().parent.parent / "docs" / "best_response.csv"
    with open(csv_path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            roles = {k: float(v) for k, _, v in (r.rpartition(" ")
                                                 for r in row["roles"].split("; "))}
            assert row["worst_role"] == worst_role(roles), row


def test_the_table_bounds_the_exploitability_at_zero(tmp_path):
    """docs/best_response.md listed negative gains (PIMC -3.01) under a text that called
    them a lower bound on the robot's exploitability; the robot gains 0 in its own seat
    (against itself), so the bound is max(0, gain).  The page keeps the gain and gives
    the bound the 95% interval supports, max(0, its lower end), in a column of its own."""
    from mariash_env.research.best_response import write_table

    rows = [_table_row("pimc", -3.0111, -13.3894, 6.4683),
            _table_row("table", 1.6567, 1.1427, 2.1695)]
    write_table(rows, tmp_path, "the command", plot=False)
    page = (tmp_path / "best_response.md").read_text()
    assert "max(0, gain)" in page and "a lower bound on the robot's exploitability (" \
        not in page
    head, *table = [line for line in page.splitlines() if line.startswith("| ")]
    cols = [c.strip() for c in head.strip("|").split("|")]
    assert cols[:4] == ["robot", "gain (groše/deal)", "95% CI",
                        "exploitability ≥ (groše/deal, 95%)"]
    bound = {r.split("|")[1].strip(): r.split("|")[4].strip() for r in table[1:]}
    assert bound == {"`pimc`": "0.00", "`table`": "1.14"}


def test_a_row_of_one_deal_bounds_nothing(tmp_path):
    """A one-deal run has no interval (NaN: the arena's bootstrap_ci); bound() gave
    max(0, NaN) = 0.00, a bound nothing measured, beside the gain's [+nan, +nan].  It is
    NaN, printed as the arena and the ladder print an interval of one deal."""
    import math

    from mariash_env.research.best_response import bound, write_table

    one = _table_row("random", 43.3333, float("nan"), float("nan"))
    assert math.isnan(bound(one)) and bound(_table_row("t", -1.0, -2.0, 0.5)) == 0.0
    write_table([one], tmp_path, "the command", plot=False)
    row = next(line for line in (tmp_path / "best_response.md").read_text().splitlines()
               if line.startswith("| `random`"))
    assert [c.strip() for c in row.strip("|").split("|")][1:4] == ["+43.33", "[+nan, +nan]",
                                                                  "nan"]


def test_a_table_of_a_given_exploiter_says_what_was_measured(tmp_path, capsys):
    """``--table --exploiter SPEC`` measures a given exploiter: nothing trained, no warm
    start.  The page showed a warm start of +nan, the given exploiter's gain under
    *trained* and 0 decisions of training, its *exploiter* 'given'; it names the given
    exploiter and says — where nothing was measured, and the CSV (NaN there) writes the
    page again byte for byte.  A rerun reads the one-deal results back (their intervals
    null in result.json) to the same files."""
    import math
    import shutil

    from mariash_env.research.best_response import read_table_csv, table_rows

    page_dir = tmp_path / "page"
    argv = ["--table", "--game", "lizany=random", "--exploiter", "table", "--deals", "1",
            "--runs", str(tmp_path / "runs"), "--out", str(page_dir), "--no-plot", "--quiet"]
    assert main(argv) == 0
    [row] = read_table_csv(page_dir / "best_response.csv")
    assert row["exploiter"] == "given table" and row["train_decisions"] == 0
    assert all(math.isnan(row[k]) for k in ("before", "before_low", "before_high", "trained",
                                            "trained_low", "trained_high", "ci_low"))
    page = (page_dir / "best_response.md").read_text(encoding="utf-8")
    cells = [c.strip() for c in next(line for line in page.splitlines()
                                     if line.startswith("| `random`")).strip("|").split("|")]
    assert cells[1:8] == ["+1.00", "[+nan, +nan]", "nan", "given `table`", "—", "—", "—"]
    assert "A *given* exploiter (`--exploiter SPEC`) is measured as it is" in page
    assert "whichever gained more" not in page  # the sentence of a trained exploiter
    saved = {n: (page_dir / n).read_bytes() for n in ("best_response.csv", "best_response.md")}
    assert main(argv) == 0  # the runs read back
    assert {n: (page_dir / n).read_bytes() for n in saved} == saved
    again = tmp_path / "again"
    again.mkdir()
    for name in saved:
        shutil.copy(page_dir / name, again / name)
    assert main(["--from", str(again / "best_response.csv"), "--no-plot", "--quiet"]) == 0
    assert {n: (again / n).read_bytes() for n in saved} == saved
    capsys.readouterr()
    # a trained exploiter with no warm start (--init none) is 'trained', not 'given'
    gain = {"game": "lizany", "frozen": "table", "seats": 1, "deals": 9, "unit": "reward",
            "mean": 0.5, "ci_low": 0.1, "ci_high": 0.9, "exploiter": "onnx:x.onnx",
            "roles": {"leader": 0.5, "second": 0.0}}
    [scratch] = table_rows([{"gain": gain, "trained": gain, "training": {"decisions": 7}}])
    assert scratch["exploiter"] == "trained" and scratch["trained"] == 0.5
    assert math.isnan(scratch["before"]) and scratch["train_decisions"] == 7


def test_two_robots_never_share_a_run_folder(tmp_path, capsys):
    """``onnx:DIR/a/b.onnx`` and ``onnx:DIR/a_b.onnx`` had one run folder (``RUNS/GAME/``
    their slug): ``--table`` measured the first, then stopped at the second, "a finished
    run of other settings" (after the first had trained: minutes each).  A spec that is no
    folder name gets 8 hex digits of its SHA-256 after its slug; one that is keeps its
    folder (``random``), and a run of that very robot kept in the bare slug's folder
    resumes there."""
    import hashlib
    import shutil
    from pathlib import Path

    from mariash_env.research.best_response import _slug, read_table_csv, run_folder

    model = Path(__file__).resolve().parents[1] / "models" / "robot_lizany_endgame.onnx"
    (tmp_path / "a").mkdir()
    shutil.copy(model, tmp_path / "a" / "b.onnx")
    shutil.copy(model, tmp_path / "a_b.onnx")
    specs = [f"onnx:{tmp_path / 'a' / 'b.onnx'}", f"onnx:{tmp_path / 'a_b.onnx'}"]
    assert _slug(specs[0]) == _slug(specs[1])
    own = [f"{_slug(s)}-{hashlib.sha256(s.encode()).hexdigest()[:8]}" for s in specs]
    runs, page = tmp_path / "runs", tmp_path / "page"
    assert run_folder(runs, "table") == runs / "table"
    assert run_folder(runs, "pimc(worlds=8)").name.startswith("pimc_worlds_8-")
    argv = ["--table", "--game", f"lizany=random,{','.join(specs)}", "--exploiter", "table",
            "--deals", "1", "--runs", str(runs), "--out", str(page), "--no-plot", "--quiet"]
    assert main(argv) == 0
    assert sorted(p.name for p in (runs / "lizany").iterdir()) == sorted(["random", *own])
    assert [r["robot"] for r in read_table_csv(page / "best_response.csv")] == \
        ["random", *specs]
    for o, s in zip(own, specs):
        assert json.loads((runs / "lizany" / o / "settings.json").read_text())["robot"] == s
    # a run of the first robot kept where it was before (the bare slug): resumed there
    (runs / "lizany" / own[0]).rename(runs / "lizany" / _slug(specs[0]))
    assert run_folder(runs / "lizany", specs[0]) == runs / "lizany" / _slug(specs[0])
    assert run_folder(runs / "lizany", specs[1]) == runs / "lizany" / own[1]
    saved = (page / "best_response.csv").read_bytes()
    assert main(argv) == 0
    assert not (runs / "lizany" / own[0]).exists()  # resumed there, no new folder
    assert (page / "best_response.csv").read_bytes() == saved
    # the robot of one spec alone: its own folder, as the table's run
    assert main(["--robot", specs[1], "--rules", "lizany", "--exploiter", "table", "--deals",
                 "1", "--runs", str(runs), "--quiet"]) == 0
    assert sorted(p.name for p in (runs / "lizany").iterdir()) == \
        sorted(["random", _slug(specs[0]), own[1]])
    capsys.readouterr()


def test_the_committed_page_is_the_committed_csv_rendered():
    """docs/best_response.md is what write_table makes of docs/best_response.csv (its
    command and note as the page gives them): a renderer changed without the page, or
    the page edited by hand, fails here."""
    from pathlib import Path

    from mariash_env.research.best_response import page_source, read_table_csv, table_page

    docs = Path(__file__).resolve().parent.parent / "docs"
    page = (docs / "best_response.md").read_text(encoding="utf-8")
    command, note = page_source(page)
    assert command.startswith("mariash best-response --table") and note.startswith("Measured")
    rows = read_table_csv(docs / "best_response.csv")
    assert len(rows) == 11 and {r["game"] for r in rows} == {"voleny", "licitovany", "lizany"}
    assert table_page(rows, command, note) == page


def _docs():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "docs"


def test_the_command_writes_the_table_again_from_a_saved_csv(tmp_path, capsys):
    """The page rendered from a saved CSV in Python only (read_table_csv, table_page).
    ``--from CSV`` writes best_response.{csv,md,png} again without running anything,
    with the command and note of the page beside the CSV (``--note`` replaces the
    note), into the CSV's folder or ``--out``: the committed table comes back byte for
    byte; a CSV alone gets a page naming this command, with a warning."""
    import shutil

    saved = tmp_path / "saved"
    saved.mkdir()
    for name in ("best_response.csv", "best_response.md"):
        shutil.copy(_docs() / name, saved / name)
    assert main(["--from", str(saved / "best_response.csv"), "--no-plot"]) == 0
    for name in ("best_response.csv", "best_response.md"):
        assert (saved / name).read_bytes() == (_docs() / name).read_bytes(), name
    assert f"wrote {saved / 'best_response.md'}" in capsys.readouterr().out
    other = tmp_path / "other"
    assert main(["--from", str(saved / "best_response.csv"), "--out", str(other),
                 "--note", "Again.", "--no-plot", "--quiet"]) == 0
    assert (other / "best_response.csv").read_bytes() == (_docs() / "best_response.csv"
                                                          ).read_bytes()
    page = (other / "best_response.md").read_text(encoding="utf-8")
    assert "    mariash best-response --table --minutes 4" in page
    assert "\n\nAgain.\n\n## volený mariáš" in page and "\n\nMeasured 2026" not in page
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(_docs() / "best_response.csv", lone / "best_response.csv")
    argv = ["--from", str(lone / "best_response.csv"), "--no-plot"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: no page") and "names this one" in err
    assert f"    mariash best-response --from {lone / 'best_response.csv'} --no-plot" in (
        lone / "best_response.md").read_text(encoding="utf-8")


_HEAD = ("game,robot,seats,deals,unit,gain,ci_low,ci_high,exploiter,before,before_low,"
         "before_high,trained,trained_low,trained_high,train_decisions,worst_role,roles")
_ROW = ("voleny,table,1,600,groše,1.6567,1.1427,2.1695,trained,1.6228,1.1083,2.1911,"
        "1.6567,1.1427,2.1695,1490944,actor,actor +1.63; defender +0.03; no game +0.00")


@pytest.mark.parametrize("text, says", [
    (None, "cannot read {csv}: No such file or directory"),
    ("", "{csv} is not a best_response.csv (written by mariash best-response --table): "
         "its first line is not the header game,robot,seats,..."),
    ("# a page\n", "its first line is not the header"),
    (_HEAD.replace(",worst_role", "") + "\n", "no column worst_role"),
    (_HEAD + ",extra\n", "unknown column 'extra'"),
    (_HEAD + "\n", "{csv} has no rows"),
    (_HEAD + "\n" + _ROW.replace(",600,", ",six hundred,") + "\n",
     "{csv} line 2: deals 'six hundred' is not an int"),
    (_HEAD + "\n" + _ROW + "\n" + _ROW.replace("1.6567", "x", 1) + "\n",
     "{csv} line 3: gain 'x' is not a number"),
    (_HEAD + "\n" + _ROW.rpartition(",")[0] + "\n", "{csv} line 2: 17 fields, expected 18"),
    (_HEAD + "\n" + _ROW + ",9\n", "{csv} line 2: 19 fields, expected 18"),
    (_HEAD + "\n" + _ROW.replace("voleny", "skat", 1) + "\n",
     "{csv} line 2: unknown game rules 'skat'"),
    (b"\x89PNG\r\n", "{csv} is not a best_response.csv"),
    # in another encoding: the line, the byte and the encoding expected, not the codec's
    # position in a chunk
    ((_HEAD + "\n" + _ROW + "\n").encode("cp1250"),
     "{csv} is not a best_response.csv (written by mariash best-response --table): not "
     "UTF-8 text (line 2, byte 23 of the line: b'\\x9a'): expected a file encoded in UTF-8"),
])
def test_the_table_from_a_missing_or_damaged_csv_is_one_error_line(text, says, tmp_path,
                                                                    capsys):
    """``--from`` with a CSV that is missing or not what write_table writes: one
    ``error:`` line naming the file (the line and the column), exit status 2, nothing
    written."""
    csv = tmp_path / "best_response.csv"
    if isinstance(text, bytes):
        csv.write_bytes(text)
    elif text is not None:
        csv.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        main(["--from", str(csv), "--no-plot"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    assert says.format(csv=csv) in err, err
    assert not (tmp_path / "best_response.md").exists()


@pytest.mark.parametrize("argv, says", [
    (["--robot", "table"], "--robot is not its option"),
    (["--game", "voleny", "--deals", "3"], "--deals, --game are not its options"),
    (["--endgame", "2", "--runs", "x"], "--endgame, --runs are not its options"),
    (["--rules", "voleny", "--jobs", "1"], "--rules, --jobs are not its options"),  # defaults
])
def test_the_table_from_a_csv_refuses_the_options_of_a_run(argv, says, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["--from", str(_docs() / "best_response.csv"), "--out", str(tmp_path), *argv])
    err = capsys.readouterr().err
    assert e.value.code == 2 and says in err and "runs nothing" in err, err
    assert not list(tmp_path.iterdir())


def test_the_table_from_a_csv_takes_the_options_its_page_says(tmp_path, capsys):
    """docs/research/best_response.md: ``--from`` takes --out, --note, --no-plot and
    --quiet, and --table (the page said "only" the four; the error line names five)."""
    csv = _docs() / "best_response.csv"
    assert main(["--from", str(csv), "--table", "--out", str(tmp_path), "--note", "n",
                 "--no-plot", "--quiet"]) == 0
    assert (tmp_path / "best_response.csv").read_bytes() == csv.read_bytes()
    with pytest.raises(SystemExit):
        main(["--from", str(csv), "--out", str(tmp_path), "--seed", "1"])
    err = capsys.readouterr().err
    assert "(it takes --table, --out, --note, --no-plot, --quiet)" in err, err
    page = " ".join((_docs() / "research" / "best_response.md").read_text(
        encoding="utf-8").split())
    assert ("It takes `--out`, `--note`, `--no-plot` and `--quiet` only (and `--table`, the "
            "table it writes again)") in page


@pytest.mark.parametrize("game, says", [
    ("voleny=random", "--out {out}: cannot write"),
    ("voleny=random,tabel", "unknown robot 'tabel'"),
])
def test_the_table_checks_its_robots_and_folder_before_the_first_run(game, says, tmp_path,
                                                                     capsys):
    """--table ran (trained against) each robot in turn and wrote its page at the end: a
    --out that is a file, or a bad robot spec after good ones, failed only after the runs
    before it (minutes of training each).  Both are one error line before any run."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    out = a_file if "cannot" in says else tmp_path / "page"
    with pytest.raises(SystemExit) as e:
        main(["--table", "--game", game, "--exploiter", "table", "--deals", "2",
              "--runs", str(tmp_path / "runs"), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and says.format(out=out) in err and err.count("\n") == 1, err
    assert not (tmp_path / "runs").exists() and a_file.read_text() == "x"


@pytest.mark.parametrize("games", [["voleny"], ["voleny", "licitovany", "lizany"]])
def test_the_charts_title_fits_its_width(games):
    """The chart's title was one line as wide as three games' panels: a table of one
    game (5.2 inches) cut it at both ends.  It is wrapped to the figure's width."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from mariash_env.research.best_response import table_figure

    fig = table_figure([{**_table_row("table", 1.66, 1.14, 2.17), "game": g} for g in games])
    try:
        fig.canvas.draw()
        box = fig._suptitle.get_window_extent()
        assert 0 <= box.x0 and box.x1 <= fig.bbox.x1, (box, fig.bbox)
    finally:
        plt.close(fig)
