"""The duplicate arena: fair seatings, zero-sum bookkeeping, bootstrap CIs, files."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap
from collections import Counter
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from mariash_env import arena
from mariash_env.arena import bootstrap_ci, duplicate_match, seatings
from mariash_env.robots import RandomRobot, TableRobot, make_robot


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_seatings_are_fair(k):
    ss = seatings(k)
    assert len(set(ss)) == len(ss)
    for s in ss:
        assert len(s) == 3 and all(0 <= r < k for r in s)
        if k >= 2:
            assert len(set(s)) >= 2  # everybody plays somebody else
    counts = Counter((r, seat) for s in ss for seat, r in enumerate(s))
    per_seat = {counts[r, seat] for r in range(k) for seat in range(3)}
    assert len(per_seat) == 1  # each robot in each seat equally often


def test_two_robots_use_the_six_mixed_seatings():
    assert sorted(seatings(2)) == sorted(
        [(0, 0, 1), (0, 1, 0), (1, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0)])
    assert len(seatings(3)) == 6


def test_bootstrap_ci_on_synthetic_data():
    rng = np.random.default_rng(0)
    n, mu, sd = 2000, 1.5, 4.0
    x = rng.normal(mu, sd, size=n)
    lo, hi = bootstrap_ci(x, n_boot=4000, seed=1)
    se = x.std() / np.sqrt(n)
    assert lo < x.mean() < hi
    assert abs((hi - lo) - 2 * 1.96 * se) < 0.1 * (2 * 1.96 * se)
    assert abs((lo + hi) / 2 - x.mean()) < 0.2 * se
    # columns are handled independently
    y = np.stack([x, -x, np.zeros(n)], axis=1)
    lo2, hi2 = bootstrap_ci(y, n_boot=4000, seed=1)
    assert lo2.shape == (3,) and lo2[2] == hi2[2] == 0
    np.testing.assert_allclose(lo2[0], -hi2[1], atol=1e-12)
    # coverage: the true mean lies inside the 95 % interval about 95 % of the time
    hits = 0
    for t in range(200):
        s = rng.normal(mu, sd, size=100)
        a, b = bootstrap_ci(s, n_boot=400, seed=t)
        hits += a <= mu <= b
    assert 0.88 <= hits / 200 <= 0.99



def test_one_deal_gives_no_interval_and_no_significance():
    """A bootstrap of one deal resamples that deal only: its "interval" had no width and a
    pair's difference on one deal was marked significant (table - random +50.667
    [+50.667, +50.667] *).  One deal gives no interval (NaN) and nothing significant."""
    lo, hi = bootstrap_ci(np.array([3.0]))
    assert np.isnan(lo) and np.isnan(hi)
    lo2, hi2 = bootstrap_ci(np.array([[3.0, -1.0]]))
    assert np.isnan(lo2).all() and np.isnan(hi2).all()
    res = duplicate_match({"table": TableRobot, "random": RandomRobot}, deals=1, seed=0,
                          progress=False, n_boot=50)
    (p,) = res.pairwise()
    assert p["diff"] != 0 and np.isnan(p["ci_low"]) and not p["significant"]
    assert all(np.isnan(r["ci_low"]) for r in res.summary())
    assert all(np.isnan(r["ci_low"]) for r in res.breakdown() + res.company())
    assert "[+nan, +nan]" in res.table() and " *" not in res.table()
    # two deals: an interval again
    two = duplicate_match({"table": TableRobot, "random": RandomRobot}, deals=2, seed=0,
                          progress=False, n_boot=50)
    assert np.isfinite(two.pairwise()[0]["ci_low"])

class Spy(TableRobot):
    """A table robot that records the seats it played in each (deal, seating)."""

    wants_view = True

    def __init__(self):
        super().__init__()
        self.games: list[set[int]] = []

    def reset(self):
        super().reset()
        self.games.append(set())

    def act_view(self, view):
        self.games[-1].add(view.seat)
        return self.act(view.observation_dict())


def test_every_robot_sits_in_every_seat_equally_often_on_each_deck():
    spies: dict[str, Spy] = {}

    def factory(name):
        def make():
            spies[name] = Spy()
            return spies[name]
        return make

    res = duplicate_match({"a": factory("a"), "b": factory("b")}, deals=2, seed=3, jobs=1,
                          progress=False, n_boot=200)
    assert res.per_deal.shape == (2, 2)
    for spy in spies.values():
        played = [g for g in spy.games if g]
        assert len(played) == 2 * 6  # two deals, six seatings each
        for d in range(2):
            seats = Counter(s for g in played[6 * d:6 * d + 6] for s in g)
            assert seats == {0: 3, 1: 3, 2: 3}


def test_match_is_zero_sum_and_saves_files(tmp_path):
    res = duplicate_match({"table": TableRobot, "random": lambda: RandomRobot(seed=0)},
                          deals=5, seed=1, jobs=1, progress=False, n_boot=300)
    np.testing.assert_allclose(res.per_deal.sum(axis=1), 0, atol=1e-9)
    assert res.means()[0] > res.means()[1]
    paths = res.save(tmp_path)
    names = {p.name for p in paths}
    assert {"summary.csv", "pairwise.csv", "deals.csv", "groše.png"} <= names
    assert (tmp_path / "groše.png").stat().st_size > 1000
    rows = list(csv.DictReader((tmp_path / "summary.csv").open()))
    assert [r["robot"] for r in rows] == ["table", "random"]
    for r in rows:
        assert float(r["ci_low"]) <= float(r["groše_per_deal"]) <= float(r["ci_high"])
        mix = sum(float(r[k]) for k in arena.CONTRACT_KEYS)
        assert mix == pytest.approx(1.0) or float(r["actor_share"]) == 0
    pw = list(csv.DictReader((tmp_path / "pairwise.csv").open()))
    assert len(pw) == 1 and float(pw[0]["diff"]) == pytest.approx(res.means()[0] - res.means()[1])
    assert "table - random" in res.table()


def test_jobs_do_not_change_the_result():
    robots = {"table": TableRobot, "random": RandomRobot}
    a = duplicate_match(robots, deals=4, seed=7, jobs=1, progress=False, n_boot=100)
    b = duplicate_match(robots, deals=4, seed=7, jobs=2, progress=False, n_boot=100)
    np.testing.assert_array_equal(a.per_deal, b.per_deal)


@pytest.mark.parametrize("game, deals", [("voleny", 64), ("lizany", 16)])
def test_process_jobs_are_capped_at_the_cores_before_the_chunks_are_sized(monkeypatch, game,
                                                                          deals):
    """``jobs = 8`` on 2 usable cores: the match runs 2 worker processes with chunks sized
    for those (64 deals: 8 a chunk, about four an actor; lízaný's 16 deals: 2), not 8
    processes with chunks for 8 (2 and 1 a chunk); on one core it plays in this process,
    no pool.  The match is one process's (as the Ray path, capped at the cluster's CPUs:
    tests/test_ray_backend.py)."""
    from mariash_env import pools
    from tests.pool_spy import pools_seen

    with pools_seen(monkeypatch) as spied:  # 2 usable cores
        robots = {"a": RandomRobot, "b": RandomRobot}
        rules = {"rules": game}
        one = duplicate_match(robots, deals=deals, seed=5, jobs=1, rules=rules, progress=False,
                              n_boot=10)
        assert spied == []
        two = duplicate_match(robots, deals=deals, seed=5, jobs=8, rules=rules, progress=False,
                              n_boot=10)
        assert [(j, c) for j, c, _ in spied] == [(2, 8 if game == "voleny" else 2)]
        np.testing.assert_array_equal(one.per_deal, two.per_deal)
        monkeypatch.setattr(pools, "usable_cores", lambda: 1)
        alone = duplicate_match(robots, deals=deals, seed=5, jobs=8, rules=rules, progress=False,
                                n_boot=10)
        # no pool: this process played
        assert [(j, c) for j, c, _ in spied] == [(2, 8 if game == "voleny" else 2)]
        np.testing.assert_array_equal(one.per_deal, alone.per_deal)


def test_usable_cores_are_the_affinity_mask_s():
    """The cores a pool may use: this process's affinity mask (taskset, a container's
    cpuset), which may be fewer than the machine's; os.cpu_count() where there is none."""
    import os

    from mariash_env.pools import usable_cores

    if hasattr(os, "sched_getaffinity"):
        assert usable_cores() == len(os.sched_getaffinity(0))
    else:  # pragma: no cover - macOS, Windows
        assert usable_cores() == (os.cpu_count() or 1)


def test_cli(tmp_path, capsys):
    assert arena.main(["--robots", "table,random,table", "--deals", "2", "--out",
                       str(tmp_path), "--quiet", "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "table#2" in out and "groše/deal" in out
    assert (tmp_path / "summary.csv").exists() and not (tmp_path / "groše.png").exists()


def test_contract_breakdown_splits_the_scores_exactly(tmp_path, capsys):
    """contributions() is an exact split of each deal's scores over (actor's robot, contract
    as played); breakdown() rows of a pair add up to the pair's difference; the CLI prints
    the split with --by-contract and saves contracts.csv."""
    robots = {"table": TableRobot, "random": lambda: RandomRobot(seed=3)}
    res = duplicate_match(robots, deals=12, seed=4, progress=False, n_boot=200, batch=12)
    cats, c = res.contributions()
    assert c.shape == (12, 2, len(cats)) and cats[-1] == ("-", "none")
    np.testing.assert_allclose(c.sum(axis=2), res.per_deal, atol=1e-9)
    # a deal's scores come only from the categories its games fell in (actor's robot and
    # contract as played)
    for i, deal in enumerate(res.outcomes):
        fell = {cats.index((res.names[seating[o["actor"]]],
                            arena.CONTRACT_KEYS[arena.contract_key(o)]))
                for seating, o in zip(res.seatings, deal)}
        for j in set(range(len(cats))) - fell:
            assert not c[i, :, j].any()
    rows = res.breakdown()
    assert rows and all(r["robot_a"] == "table" and r["robot_b"] == "random" for r in rows)
    assert sum(r["diff"] for r in rows) == pytest.approx(res.means()[0] - res.means()[1])
    assert sum(r["share"] for r in rows) == pytest.approx(1.0)
    for r in rows:
        assert r["ci_low"] <= r["diff"] + 1e-9 and r["diff"] <= r["ci_high"] + 1e-9
        assert r["diff"] == pytest.approx(r["a"] - r["b"])
    # random bids betl and durch far more than the table robot: it must show as actor there
    assert {r["contract"] for r in rows if r["actor"] == "random"} & {"betl", "durch"}
    paths = res.save(tmp_path, plot=False)
    saved = list(csv.DictReader((tmp_path / "contracts.csv").open()))
    assert tmp_path / "contracts.csv" in paths and len(saved) == len(rows)
    assert arena.main(["--robots", "table,random", "--deals", "2", "--out", str(tmp_path),
                       "--quiet", "--no-plot", "--by-contract"]) == 0
    out = capsys.readouterr().out
    assert "table - random by the actor's robot and the contract" in out
    assert "suit_played" in out


def test_contract_breakdown_of_lizany_is_refused():
    res = duplicate_match({"a": RandomRobot, "b": RandomRobot}, deals=2, seed=1,
                          progress=False, n_boot=50, rules={"rules": "lizany"})
    with pytest.raises(ValueError, match="lízaný has no actor"):
        res.contributions()


def test_a_lizany_match_saves_no_company_split(tmp_path):
    """Lízaný seats two, one against one: the company split would be one row, the pair's
    difference again (with another interval), so neither company() nor company.csv
    gives it; a match at three seats still saves it."""
    res = duplicate_match({"a": RandomRobot, "b": RandomRobot}, deals=2, seed=1,
                          progress=False, n_boot=50, rules={"rules": "lizany"})
    assert not res.has_company
    with pytest.raises(ValueError, match="one against one"):
        res.company()
    paths = res.save(tmp_path / "liz", plot=False)
    assert [p.name for p in paths] == ["deals.csv", "summary.csv", "pairwise.csv"]
    assert not (tmp_path / "liz" / "company.csv").exists()
    three = duplicate_match({"a": RandomRobot, "b": RandomRobot}, deals=1, seed=1,
                            progress=False, n_boot=50)
    assert three.has_company
    assert tmp_path / "vol" / "company.csv" in three.save(tmp_path / "vol", plot=False)


def test_saving_into_a_used_folder_leaves_only_this_match_s_results(tmp_path):
    """An --out folder of an earlier match: a volený match there wrote contracts.csv and
    company.csv (and a chart); a lízaný match saved into it after writes neither, and
    removes them (they read as its own), and the earlier chart; other files are kept."""
    three = duplicate_match({"a": RandomRobot, "b": RandomRobot}, deals=1, seed=1,
                            progress=False, n_boot=50)
    names = {p.name for p in three.save(tmp_path, plot=False)}
    assert {"contracts.csv", "company.csv"} <= names
    for name in ("groše.png", "desetníky.png", "notes.txt"):  # earlier charts, the user's
        (tmp_path / name).write_text("x")
    liz = duplicate_match({"a": RandomRobot, "b": RandomRobot}, deals=2, seed=1,
                          progress=False, n_boot=50, rules={"rules": "lizany"})
    liz.save(tmp_path, plot=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "deals.csv", "notes.txt", "pairwise.csv", "summary.csv"]


def test_an_out_folder_whose_other_chart_is_a_folder_is_refused_before_the_match(tmp_path):
    """The save removes another game's chart left in --out; where that name is a folder
    the save failed after every deal was played: check_out refuses it before."""
    (tmp_path / arena.plot_name("desetníky")).mkdir()  # licitovaný's chart name
    with pytest.raises(PermissionError, match="desetníky"):
        arena.check_out(tmp_path, "groše")
    arena.check_out(tmp_path / "clean", "groše")


@pytest.mark.parametrize("flag, says", [
    (["--by-contract"], "--by-contract: lízaný has no contracts"),
    (["--by-company"], "--by-company: lízaný seats two"),
    (["--backend", "ray"], "--backend ray: a lízaný match plays on this machine"),
])
def test_what_lizany_cannot_do_is_refused_before_the_match(tmp_path, capsys, flag, says):
    """The arena's options a game of its own engine cannot take were ignored without a
    word (--by-contract, --by-company) or refused only after Ray had started: one error
    line, before any deal, nothing written."""
    with pytest.raises(SystemExit) as e:
        arena.main(["--rules", "lizany", "--robots", "table,random", "--deals", "2",
                    "--out", str(tmp_path / "out"), "--quiet", *flag])
    assert e.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("rules", [None, {"rules": "licitovany"}])
def test_company_split_adds_up_to_the_difference(tmp_path, capsys, rules):
    """company(): a two-robot match's difference split by the seatings where the first
    robot sits alone and beside its copy adds up to the pair's difference, deal by deal
    the same as a hand count over the outcomes; what each side takes is zero-sum within a
    seating; the CLI prints it with --by-company and saves company.csv."""
    robots = {"table": partial(make_robot, "table", rules=rules),
              "random": partial(make_robot, "random", rules=rules, seed=3)}
    res = duplicate_match(robots, deals=10, seed=4, progress=False, n_boot=200, batch=10,
                          rules=rules)
    rows = res.company()
    assert [(r["seats_a"], r["seats_b"]) for r in rows] == [(1, 2), (2, 1)]
    assert sum(r["diff"] for r in rows) == pytest.approx(res.means()[0] - res.means()[1])
    for r in rows:
        assert r["games"] == 30 and r["a_takes"] == pytest.approx(-r["b_takes"])
        assert r["ci_low"] <= r["diff"] + 1e-9 and r["diff"] <= r["ci_high"] + 1e-9
    alone = [o["payments"][seating.index(0)] for deal in res.outcomes
             for seating, o in zip(res.seatings, deal) if seating.count(0) == 1]
    assert rows[0]["a_takes"] == pytest.approx(np.mean(alone))
    # the table robot beats random both alone and in pairs
    assert all(r["diff"] > 0 for r in rows)
    paths = res.save(tmp_path, plot=False)
    assert tmp_path / "company.csv" in paths
    assert len(list(csv.DictReader((tmp_path / "company.csv").open()))) == 2
    three = duplicate_match({**robots, "again": partial(make_robot, "table", rules=rules)},
                            deals=1, seed=4, progress=False, n_boot=50, rules=rules)
    with pytest.raises(ValueError, match="two-robot match; this one has 3 robots"):
        three.company()
    argv = ["--robots", "table,random", "--deals", "2", "--out", str(tmp_path / "cli"),
            "--quiet", "--no-plot", "--by-company"]
    assert arena.main(argv + (["--rules", "licitovany"] if rules else [])) == 0
    out = capsys.readouterr().out
    assert "table - random by company" in out and "1/2" in out and "2/1" in out


def test_the_chart_is_named_for_the_games_unit(tmp_path, capsys):
    """The arena's chart was groše.png whatever the game: it is named for the unit it
    shows (volený's groše.png as before; lízaný's reward.png)."""
    out = tmp_path / "liz"
    assert arena.main(["--rules", "lizany", "--robots", "table,random", "--deals", "2",
                       "--out", str(out), "--quiet"]) == 0
    assert (out / "reward.png").is_file() and not (out / "groše.png").exists()


def test_the_pair_interval_of_two_copies_of_a_robot_covers_zero():
    """The arena's unit of resampling is the deal (its games in every seating together):
    two copies of the random robot differ by 0 in expectation, and the 95 % interval of
    their difference holds 0 in about 95 % of matches on fresh deals; its width is the
    one the spread of the per-deal differences implies (resampling the games of a deal
    as if independent would narrow it)."""
    hits, ratio = 0, []
    for s in range(40):
        res = duplicate_match({"a": RandomRobot, "b": RandomRobot}, deals=60, seed=500 + s,
                              batch=60, progress=False, n_boot=400)
        p = res.pairwise()[0]
        hits += p["ci_low"] <= 0 <= p["ci_high"]
        d = res.per_deal[:, 0] - res.per_deal[:, 1]
        ratio.append((p["ci_high"] - p["ci_low"]) / (2 * 1.96 * d.std() / np.sqrt(len(d))))
    assert 34 <= hits <= 40
    assert 0.9 < float(np.mean(ratio)) < 1.1


def test_a_lizany_match_s_warm_up_before_the_fork_is_announced_when_it_compiles(monkeypatch):
    """duplicate_match(rules lizany, jobs>1) compiles lízaný's engine before its workers
    fork; on an empty cache that warm-up was never announced (compiling_now() named
    nothing), as if the game's own kernels were always cached.  Now its arena names
    them: not cached, compiling_now() names the warm-up while it plays; cached, nothing."""
    import dataclasses

    import mariash_env.compile as C
    from mariash_env.games.lizany.arena import ARENA, lizany_rules

    seen = []

    def play(robots, seats, seed):
        seen.append(C.compiling_now())
        return ARENA.play_seatings(robots, seats, seed)

    own = dataclasses.replace(ARENA, play_seatings=play)
    seats = arena.seatings(2, 2)
    for cached in (False, True):
        monkeypatch.setattr(C, "kernel_cached", lambda kernel, cached=cached: cached)
        arena._warm_before_fork([RandomRobot, "random"], lizany_rules({}), seats, own)
    assert seen == ["engine's kernels (lizany)", None]
    assert C.compiling_now() is None


def test_lizany_s_arena_names_every_kernel_its_deals_call(monkeypatch):
    """The kernels a lízaný deal calls from Python (LizanyGame's calls into its compiled
    core) are the ones its arena names for the warm-up's notice, none left out."""
    import numba

    from mariash_env.games.lizany import core, game
    from mariash_env.games.lizany.arena import ARENA

    called = set()

    class Calls:  # the core module, noting each kernel fetched from it
        def __getattr__(self, name):
            v = getattr(core, name)
            if isinstance(v, numba.core.dispatcher.Dispatcher):
                called.add(v)
            return v

    monkeypatch.setattr(game, "C", Calls())
    ARENA.play_seatings([RandomRobot(0), RandomRobot(1)], [(0, 1), (1, 0)], 3)
    assert called and called <= set(ARENA.kernels)


def test_match_workers_inherit_the_parent_s_compiled_kernels():
    """duplicate_match(jobs>1) warms up before its workers fork (each compiled the
    engine's kernels again, silently: 112 s cold): in a fresh process, after the parent's
    warm-up a worker's whole work -- building the robots, playing deals in every seating,
    batched and seat by seat -- gives no kernel a signature."""
    code = textwrap.dedent("""
        import json
        import numpy as np
        from mariash_env import arena
        from mariash_env.compile import compiled_signatures as compiled
        from mariash_env.rules import make_rules

        grew = {}
        for game, robots in (("voleny", ["table", "random"]), ("licitovany", ["random"])):
            rules = make_rules(rules=game)
            seats = arena.seatings(len(robots), rules.players)
            arena._warm_before_fork(robots, rules, seats, None)
            before = compiled()
            arena._init_worker(robots, rules)
            arena._play_batch(([0, 1], [5, 6], [0, 1]))
            grew.update({k: n for k, n in compiled().items() if n != before.get(k, 0)})
        print(json.dumps(grew))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1],
                         capture_output=True, text=True, timeout=600, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {}
