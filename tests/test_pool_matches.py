"""scripts/pool_matches.py: saved arena matches pooled over all their deals."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from mariash_env.arena import duplicate_match
from scripts.pool_matches import PoolError, main, pool, pool_deals, read_deals


@pytest.fixture(scope="module")
def matches(tmp_path_factory):
    out = {}
    for seed in (1, 2):
        d = tmp_path_factory.mktemp(f"m{seed}")
        res = duplicate_match({"table": "table", "random": "random"}, deals=12, seed=seed,
                              progress=False)
        res.save(d, plot=False)
        out[seed] = (d, res)
    return out


def test_one_match_pools_to_the_arena_s_own_figures(matches, capsys):
    d, res = matches[1]
    names, vals = pool([d])
    assert names == res.names and vals.shape == (12, 2)
    assert main([str(d)]) == 0
    text = capsys.readouterr().out
    p = res.pairwise()[0]
    assert f"{p['diff']:+.3f} [{p['ci_low']:+.3f}, {p['ci_high']:+.3f}]" in text
    assert "(a - b, groše per deal)" in text
    assert main([str(d), "--units", "desetníky"]) == 0  # licitovaný's, named by hand
    assert "(a - b, desetníky per deal)" in capsys.readouterr().out


def test_two_matches_pool_every_deal_once(matches):
    (d1, r1), (d2, r2) = matches[1], matches[2]
    names, vals = pool([d1, d2])
    assert vals.shape == (24, 2)
    mean = (r1.pairwise()[0]["diff"] + r2.pairwise()[0]["diff"]) / 2
    assert (vals[:, 0] - vals[:, 1]).mean() == pytest.approx(mean, abs=1e-3)
    with pytest.raises(PoolError, match="more than one match"):
        pool([d1, d1])


def test_the_pooled_figures_do_not_depend_on_the_order_of_the_inputs(matches, tmp_path,
                                                                    capsys):
    """The bootstrap resamples rows, so the rows are pooled in deal-seed order: the
    matches given in another order (a glob puts seed97 after seed126), or a deals.csv
    whose rows are shuffled (the arena writes them as deals finish), print the same."""
    from pathlib import Path

    (d1, _), (d2, _) = matches[1], matches[2]
    with open(d2 / "deals.csv", newline="") as f:
        rows = list(csv.reader(f))
    body = rows[1:]
    np.random.default_rng(5).shuffle(body)
    shuffled = tmp_path / "shuffled.csv"
    with open(shuffled, "w", newline="") as f:
        csv.writer(f).writerows([rows[0], *body])
    printed = []
    for args in ([d1, d2], [d2, d1], [shuffled, d1]):
        assert main([*map(str, args)]) == 0
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1] == printed[2]
    a, b = pool_deals([d2, d1]), pool_deals([d1, shuffled])
    assert (a[1] == np.sort(a[1])).all() and (a[1] == b[1]).all()
    assert np.array_equal(a[2], b[2])
    matches_dir = Path(__file__).resolve().parents[1] / "docs" / "matches"
    parts = [matches_dir / f"licitovany_deal4_pimc_seed{s}.csv" for s in (97, 122, 124)]
    for order in (parts, parts[::-1], parts[1:] + parts[:1]):  # the audit's case
        assert main([*map(str, order), "--units", "desetníky"]) == 0
        printed.append(capsys.readouterr().out)
    assert printed[3] == printed[4] == printed[5]


def test_other_robots_or_a_bad_file_are_refused_by_name(matches, tmp_path, capsys):
    d1, _ = matches[1]
    other = tmp_path / "other"
    other.mkdir()
    with open(d1 / "deals.csv", newline="") as f:
        rows = list(csv.reader(f))
    rows[0][2] = "pimc"
    rows[1:] = [[r[0], str(int(r[1]) + 10**9), *r[2:]] for r in rows[1:]]
    with open(other / "deals.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)
    with pytest.raises(PoolError, match="same robots"):
        pool([d1, other])
    names, vals = pool([d1, other], rename=True)  # by position, the first match's names
    assert names == read_deals(d1)[0] and len(vals) == 24
    bad = tmp_path / "bad.csv"
    bad.write_text("deal,seed,table,random\n0,5,1.0\n")
    with pytest.raises(PoolError, match="line 2 is malformed"):
        read_deals(bad)
    assert main([str(tmp_path / "missing")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_out_writes_the_pooled_match_as_an_arena_directory(matches, tmp_path, capsys):
    """``--out``: the pooled match is written as the arena writes one (deals.csv,
    summary.csv, pairwise.csv), so it pools again to itself and plot_matches draws it
    as one bar with the pooled figures; a file, an input's directory, another match's
    directory or units that are no game's are refused before any work."""
    from scripts.plot_matches import read_pair

    (d1, r1), (d2, _) = matches[1], matches[2]
    out = tmp_path / "pooled"
    assert main([str(d1), str(d2), "--out", str(out), "--units", "desetníky"]) == 0
    names, seeds, vals = pool_deals([d1, d2])
    n2, s2, v2 = pool_deals([out])
    assert n2 == names and (s2 == seeds).all() and np.allclose(v2, vals, atol=1e-4)
    row = read_pair(out)
    d = vals[:, 0] - vals[:, 1]
    assert row["robot_a"] == names[0] and row["deals"] == "24"
    assert float(row["diff"]) == pytest.approx(d.mean())
    assert float(row["ci_low"]) <= d.mean() <= float(row["ci_high"])
    with open(out / "summary.csv", newline="") as f:
        summ = list(csv.DictReader(f))
    assert [r["robot"] for r in summ] == names and "desetníky_per_deal" in summ[0]
    one = tmp_path / "one"  # one match pooled: the arena's own pair, up to the rounding
    assert main([str(d1), "--out", str(one)]) == 0
    p = r1.pairwise()[0]
    assert float(read_pair(one)["diff"]) == pytest.approx(p["diff"], abs=1e-3)
    capsys.readouterr()
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main([str(d1), "--out", str(afile)]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert afile.read_text() == "x"
    before = (d1 / "deals.csv").read_bytes()
    refused = [([d1], d1, "one of the matches pooled"),  # an input's own directory
               ([d1 / "deals.csv"], d1, "one of the matches pooled"),
               ([d1], d2, "holds other files"),  # another match's directory
               ([d1, "--units", "points"], tmp_path / "new", "--out needs a game's units")]
    for args, target, message in refused:
        assert main([*map(str, args), "--out", str(target)]) == 2
        assert message in capsys.readouterr().err
    assert (d1 / "deals.csv").read_bytes() == before and not (tmp_path / "new").exists()
    assert main([str(d1), "--units", "points"]) == 0  # the printout takes any units


def test_the_committed_match_parts_are_arena_deals_that_pool():
    """docs/matches/: the per-deal results behind the issue goals' PIMC figures, kept so
    that later sessions pool new parts with them (runs/ does not outlive a machine)."""
    from pathlib import Path

    import numpy as np

    files = sorted((Path(__file__).resolve().parents[1] / "docs" / "matches").glob("*.csv"))
    assert len(files) >= 3
    by_robots: dict[tuple[str, ...], list[Path]] = {}
    deals = {}
    for f in files:
        names, seeds, vals = read_deals(f)
        assert len(names) == 2 and "pimc" in names[1] and len(seeds) >= 400, f.name
        assert len(np.unique(seeds)) == len(seeds)
        assert np.abs(vals.sum(axis=1)).max() < 1e-3, f.name  # each deal zero-sum
        by_robots.setdefault(tuple(names), []).append(f)
        deals[f] = len(seeds)
    for parts in by_robots.values():  # the parts of one match pool: no deal twice
        _, rows = pool(parts)
        assert rows.shape[0] == sum(deals[p] for p in parts)


def test_a_robot_named_by_its_preset_alone_is_noted_and_the_committed_parts_name_models(
        tmp_path, capsys):
    """A part's robots are known by their specs: ``strong`` alone is whatever network the
    game's preset had when it was played (licitovaný's changed on 2026-12-04), so parts
    of it from two versions would pool as one robot.  The committed parts name the model
    (the seed 115-117 parts were ``strong`` with robot_licitovany_deal.onnx), so a new
    ``strong`` part is refused beside them, and pooling bare presets prints a note."""
    from pathlib import Path

    from scripts.pool_matches import bare_presets

    files = sorted((Path(__file__).resolve().parents[1] / "docs" / "matches").glob("*.csv"))
    named = {n for f in files for n in read_deals(f)[0]}
    assert not bare_presets(sorted(named)), sorted(named)
    assert "strong(model='models/robot_licitovany_deal.onnx')" in named
    assert bare_presets(["strong", "net", "strong(worlds=4)", "strong(model='m.onnx')",
                         "onnx:models/robot.onnx", "table#2", "pimc"]) == \
        ["strong", "net", "strong(worlds=4)"]
    old = Path(__file__).resolve().parents[1] / "docs" / "matches" / \
        "licitovany_strong_pimc_seed115.csv"
    rows = old.read_text().splitlines()
    parts = []
    for k in (1, 2):  # two parts of a bare `strong`, on deals of their own
        p = tmp_path / f"s{k}.csv"
        body = [r.split(",") for r in rows[1:6]]
        p.write_text("deal,seed,strong,pimc\n" + "\n".join(
            ",".join([b[0], str(int(b[1]) + k * 10**9), *b[2:]]) for b in body) + "\n")
        parts.append(p)
    assert main([*map(str, parts), "--units", "desetníky"]) == 0
    assert "note: 'strong' is the game's preset" in capsys.readouterr().err
    assert main([str(old), str(parts[0]), "--units", "desetníky"]) == 2
    assert "same robots" in capsys.readouterr().err
    assert main([str(old), "--units", "desetníky"]) == 0
    assert "note" not in capsys.readouterr().err


def test_paired_compares_two_matches_deal_by_deal(matches, tmp_path, capsys):
    """``--paired``: (a - b) - (a2 - b2) per deal over the deals both matches played, with
    the arena's bootstrap; a match shifted by one groše a deal is one groše behind with no
    spread, and matches with no deal in common or other robot counts are refused."""
    from scripts.pool_matches import paired

    (d1, _), (d2, _) = matches[1], matches[2]
    names, seeds, vals = read_deals(d1)
    with open(d1 / "deals.csv", newline="") as f:
        rows = list(csv.reader(f))
    shifted = tmp_path / "shifted"
    shifted.mkdir()
    rows[0][2] = "table2"  # another robot's name at the first position
    keep = rows[:1] + rows[1:10]  # 9 of the 12 deals
    for r in keep[1:]:
        r[2] = repr(float(r[2]) + 1.0)
    with open(shifted / "deals.csv", "w", newline="") as f:
        csv.writer(f).writerows(keep)
    got, counts = paired((names, seeds, vals), read_deals(shifted))
    assert counts == {"deals": 9, "only_first": 3, "only_second": 0}
    (row,) = got
    assert (row["a"], row["a2"]) == ("table", "table2")
    assert row["diff"] == pytest.approx(-1.0) and row["significant"]
    assert row["ci_low"] == pytest.approx(-1.0) and row["ci_high"] == pytest.approx(-1.0)
    same, _ = paired((names, seeds, vals), (names, seeds, vals))
    assert same[0]["diff"] == 0.0 and not same[0]["significant"]
    assert main([str(d1), "--paired", str(shifted)]) == 0
    assert "(table - random) - (table2 - random): -1.000 [-1.000, -1.000] *" in \
        capsys.readouterr().out
    assert main([str(d1), "--paired", str(d2)]) == 2
    assert "no deal seed in common" in capsys.readouterr().err
    three = tmp_path / "three.csv"
    three.write_text("deal,seed,a,b,c\n0,5,1.0,2.0,-3.0\n")
    with pytest.raises(PoolError, match="as many robots"):
        paired((names, seeds, vals), read_deals(three))
    with pytest.raises(SystemExit):
        main([str(d1), "--paired", str(shifted), "--out", str(tmp_path / "o")])
    assert "give one of them" in capsys.readouterr().err


# The figures the docs publish from docs/matches/ (the documented pool_matches commands):
# (parts, parts of the second match for --paired or None, decimals, files that publish it).
_LIC = "models/ROBOT_LICITOVANY_"
_PUBLISHED = [
    ("licitovany_actor_table3_pimc_seed*", None, 2,
     ["README.md", "docs/robots.md", "docs/research/distillation.md", _LIC + "ACTOR_TABLE3.md"]),
    ("licitovany_actor_play_pimc_seed*", None, 2,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "ACTOR_PLAY.md"]),
    ("licitovany_actor_pimc_seed*", None, 2,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "ACTOR.md"]),
    ("licitovany_rollout_pimc_seed*", None, 2,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "ROLLOUT.md"]),
    ("licitovany_deal4_pimc_seed*", None, 2, ["docs/research/distillation.md"]),
    ("licitovany_deal4_pimc_seed{97,122,124}", None, 2, ["docs/research/distillation.md"]),
    ("licitovany_deal4_pimc_seed{97,122,124}", None, 1,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "DEAL4.md"]),
    ("licitovany_deal3_pimc_seed*", None, 1,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "DEAL3.md"]),
    ("licitovany_strong_table3_pimc_seed*", None, 2,
     ["docs/robots.md", "docs/nnpimc.md", _LIC + "ACTOR_TABLE3.md"]),
    ("licitovany_strong_pimc_seed11*", None, 2, ["docs/robots.md", "docs/nnpimc.md"]),
    ("voleny_seated3_pimc_seed*", None, 2, ["README.md", "docs/robots.md",
                                            "models/ROBOT_VOLENY_SEATED3.md"]),
    ("voleny_strong_seated3_pimc_seed*", None, 2, ["README.md", "docs/robots.md"]),
    ("licitovany_deal4_pimc_seed{97,122,124}", "licitovany_deal3_pimc_seed*", 1,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "DEAL4.md"]),
    ("licitovany_actor_pimc_seed*", "licitovany_rollout_pimc_seed*", 2,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "ACTOR.md"]),
    ("licitovany_rollout_pimc_seed*", "licitovany_deal4_pimc_seed*", 2,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "ROLLOUT.md"]),
    ("licitovany_actor_play_pimc_seed*", "licitovany_actor_pimc_seed*", 2,
     ["docs/robots.md", "docs/research/distillation.md", _LIC + "ACTOR_PLAY.md"]),
    ("licitovany_actor_table3_pimc_seed*", "licitovany_actor_play_pimc_seed*", 2,
     ["README.md", "docs/robots.md", "docs/research/distillation.md",
      _LIC + "ACTOR_TABLE3.md"]),
    ("licitovany_strong_table3_pimc_seed*", "licitovany_strong_pimc_seed11*", 2,
     ["docs/robots.md", "docs/nnpimc.md", _LIC + "ACTOR_TABLE3.md"]),
    ("voleny_seated3_pimc_seed*", "voleny_deal3_pimc_seed*", 2,
     ["docs/research/distillation.md", "models/ROBOT_VOLENY_SEATED3.md", "docs/arena.md"]),
]


def _parts(pattern: str) -> list:
    """The files of a documented shell pattern (``*`` or one ``{a,b,c}``)."""
    from pathlib import Path

    d = Path(__file__).resolve().parents[1] / "docs" / "matches"
    if "{" in pattern:
        head, rest = pattern.split("{")
        alts, tail = rest.split("}")
        return [d / f"{head}{a}{tail}.csv" for a in alts.split(",")]
    return sorted(d.glob(pattern + ".csv"))


@pytest.mark.parametrize("first,second,decimals,docs", _PUBLISHED)
def test_the_published_pooled_figures_are_what_the_commands_print(first, second, decimals,
                                                                   docs):
    """Each figure the docs publish from the committed parts is what pool_matches prints
    now (rounded as published, with the docs' minus sign): a figure pooled in another
    order or by another bootstrap would not reproduce."""
    from pathlib import Path

    from scripts.pool_matches import paired, pooled_result

    a = pool_deals(_parts(first))
    row = (paired(a, pool_deals(_parts(second)))[0][0] if second
           else pooled_result(*a).pairwise()[0])

    def num(x: float) -> str:
        return f"{x:+.{decimals}f}".replace("-", "−")
    want = f"{num(row['diff'])} [{num(row['ci_low'])}, {num(row['ci_high'])}]"
    root = Path(__file__).resolve().parents[1]
    for doc in docs:
        assert want in (root / doc).read_text().replace("**", ""), (doc, want)
