"""scripts/plot_matches.py: arena matches kept in a committed table (docs/robot_matches.csv)
and drawn from it, since runs/ does not outlive a machine."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from mariash_env.arena import duplicate_match
from mariash_env.robots import make_robot
from scripts import plot_matches as P

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def match_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("m")
    res = duplicate_match({"random": lambda: make_robot("random"),
                           "table": lambda: make_robot("table")},
                          deals=6, seed=2, progress=False, n_boot=100)
    res.save(d, plot=False)
    return d


def test_matches_are_added_to_the_table_and_replaced_by_label(match_dir, tmp_path, capsys):
    table = tmp_path / "m.csv"
    png = tmp_path / "m.png"
    lab = f"{match_dir}=random vs table, seed 2"
    assert P.main([str(match_dir), "--csv", str(table), "-o", str(png), "--label", lab,
                   "--seed", f"{match_dir}=2"]) == 0
    rows = P.read_table(table)
    pair = P.read_pair(match_dir)
    assert [r["label"] for r in rows] == ["random vs table, seed 2"]
    assert rows[0]["seed"] == "2" and rows[0]["deals"] == "6"
    assert float(rows[0]["diff"]) == pytest.approx(float(pair["diff"]))
    assert float(rows[0]["diff"]) < 0 and png.stat().st_size > 0
    # the same label again replaces its row; another label is appended; the table alone draws
    assert P.main([str(match_dir), "--csv", str(table), "-o", str(png), "--label", lab]) == 0
    assert P.main([str(match_dir), "--csv", str(table), "-o", str(png)]) == 0
    assert [r["label"] for r in P.read_table(table)] == [
        "random vs table, seed 2", f"{pair['robot_a']} − {pair['robot_b']}"]
    assert P.main(["--csv", str(table), "-o", str(png)]) == 0
    out = capsys.readouterr().out
    assert "| random vs table, seed 2 | 6 |" in out and "groše per deal (a − b)" in out
    assert P.main(["--csv", str(table), "-o", str(png), "--units", "desetníky"]) == 0
    assert "| desetníky per deal (a − b) |" in capsys.readouterr().out


def test_a_malformed_table_or_directory_is_refused(match_dir, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    with open(bad, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(P.FIELDS)
        w.writerow(["x", "a", "b", "10", "", "3.0", "4.0", "5.0"])  # diff outside its CI
    assert P.main(["--csv", str(bad), "-o", str(tmp_path / "x.png")]) == 2
    assert "expected ci_low <= diff <= ci_high" in capsys.readouterr().err
    assert P.main([str(tmp_path), "-o", str(tmp_path / "x.png")]) == 2
    assert "has no pairwise.csv" in capsys.readouterr().err
    assert P.main(["-o", str(tmp_path / "x.png")]) == 2
    assert P.main([str(match_dir), "-o", str(tmp_path / "x.png"), "--label", "oops"]) == 2
    assert "take DIR=VALUE" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("table", ["robot_matches.csv", "licitovany_matches.csv"])
def test_the_committed_match_table_is_well_formed(table: str):
    rows = P.read_table(ROOT / "docs" / table)
    assert len({r["label"] for r in rows}) == len(rows) >= 5
    assert all(int(r["deals"]) >= 500 for r in rows)
