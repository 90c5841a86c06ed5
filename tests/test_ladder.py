"""``mariash ladder`` (mariash_env.research.ladder): Bradley–Terry on synthetic results, and
a tiny ladder of real duplicate matches (resumed, written)."""

from __future__ import annotations

import csv
import gzip
import re
import zlib
from pathlib import Path

import numpy as np
import pytest

from mariash_env.research import ladder as L

ROOT = Path(__file__).resolve().parents[1]


def _games(strength: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Wins of ``n`` games per pair drawn from Bradley–Terry with natural-log strengths."""
    k = len(strength)
    w = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = 1 / (1 + np.exp(strength[j] - strength[i]))
            won = rng.binomial(n, p)
            w[i, j], w[j, i] = won, n - won
    return w


def test_bradley_terry_recovers_known_strengths():
    true = np.array([0.0, 1.0, 2.0, -0.5, 0.3])
    fit = L.fit_bradley_terry(_games(true, 4000, np.random.default_rng(0)), prior=0)
    assert np.abs(fit - (true - true.mean())).max() < 0.08
    assert list(np.argsort(fit)) == list(np.argsort(true))


def test_per_deal_wins_ties_and_bootstrap():
    # robot 1 beats robot 0 on 3 deals of 4, one tie: 3.5 to 0.5
    per_deal = {(0, 1): np.array([[0, 1], [0, 2], [-1, 3], [2, 2]], float)}
    assert L.wins_of(per_deal, 2).tolist() == [[0, 0.5], [3.5, 0]]
    rng = np.random.default_rng(1)
    true = np.array([0.0, 0.8, 1.6])
    scores = {}
    for a, b in [(0, 1), (0, 2), (1, 2)]:  # per deal: a wins with BT probability
        p = 1 / (1 + np.exp(true[b] - true[a]))
        win = rng.random(600) < p
        scores[(a, b)] = np.stack([win, ~win], axis=1).astype(float)
    s, lo, hi = L.bootstrap_ratings(scores, 3, n_boot=100, anchor=0)
    assert s[0] == 0 and lo[0] == hi[0] == 0  # the anchor's own rating is exact
    assert (lo <= s).all() and (s <= hi).all()
    assert (lo[1:] < true[1:]).all() and (true[1:] < hi[1:]).all()


def test_a_pair_of_few_deals_keeps_its_deals_in_every_resample():
    """A searching robot's pair plays --slow-deals (3 here) of the others' 400: every
    bootstrap resample draws within its own deals, so none leaves it out and the ladder
    keeps one scale (drawn among 400 indices, a 3-deal pair had none in 1 of 20)."""
    rng = np.random.default_rng(0)
    win = lambda n: np.stack([rng.random(n) < 0.5] * 2, axis=1) * [1, -1]  # noqa: E731
    per_deal = {(0, 1): win(400).astype(float), (0, 2): win(3).astype(float)}
    s, lo, hi = L.bootstrap_ratings(per_deal, 3, n_boot=300, anchor=0)
    assert np.isfinite([s, lo, hi]).all() and (lo <= s).all() and (s <= hi).all()



def test_a_robot_rated_on_one_deck_has_no_interval():
    """Every resample of one deck is that deck: a robot whose pairs played one deal
    (--slow-deals 1) had an interval of the other robots' spread only, and one of no
    width when every pair played one ([+x, +x], as if it were known exactly).  Its
    interval is NaN; the others' keep theirs, the anchor's is [0, 0]."""
    rng = np.random.default_rng(0)
    win = lambda n: np.stack([rng.random(n) < 0.5] * 2, axis=1) * [1, -1]  # noqa: E731
    per_deal = {(0, 1): win(400).astype(float), (0, 2): win(1).astype(float),
                (1, 2): win(1).astype(float)}
    s, lo, hi = L.bootstrap_ratings(per_deal, 3, n_boot=100, anchor=0)
    assert np.isfinite(s).all() and lo[0] == hi[0] == 0
    assert lo[1] < s[1] < hi[1] and np.isnan([lo[2], hi[2]]).all()
    only = {(0, 1): win(1).astype(float), (0, 2): win(1).astype(float)}
    s, lo, hi = L.bootstrap_ratings(only, 3, n_boot=50, anchor=None)
    assert np.isfinite(s).all() and np.isnan(lo).all() and np.isnan(hi).all()

def test_bradley_terry_bad_input():
    with pytest.raises(L.LadderError, match="square"):
        L.fit_bradley_terry(np.zeros((2, 3)))
    with pytest.raises(L.LadderError, match=">= 0"):
        L.fit_bradley_terry(np.array([[0, -1], [1, 0]]))
    two_groups = np.array([[0, 3, 0, 0], [1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 2, 0]], float)
    with pytest.raises(L.LadderError, match="no common scale"):
        L.fit_bradley_terry(two_groups)


def test_tiny_ladder_resumes_and_writes(tmp_path, monkeypatch):
    roster = {"voleny": ["random", "table"], "lizany": ["random", "table"]}
    pairs = L.plan(roster, deals=3, seed=5, batch=3)
    assert [(p.game, p.a, p.b) for p in pairs] == [("voleny", "random", "table"),
                                                    ("lizany", "random", "table")]
    first = L.run(pairs, tmp_path / "m", progress=False)
    assert all((p.folder(tmp_path / "m") / "deals.csv").is_file() for p in pairs)

    def played(*a, **k):
        raise AssertionError("a finished pair was played again")

    monkeypatch.setattr(L, "play_pair", played)
    again = L.run(pairs, tmp_path / "m", progress=False)  # every pair read back
    for p in pairs:
        assert np.allclose(again[p]["per_deal"], first[p]["per_deal"], atol=1e-6)
    rows = L.ratings(again, n_boot=20, anchor="random")
    assert [(r["game"], r["robot"], r["ci_low"], r["ci_high"]) for r in rows
            if r["rating"] == 0] == [("voleny", "random", 0, 0), ("lizany", "random", 0, 0)]
    mean = L.ratings(again, n_boot=20, anchor=None)
    assert abs(sum(r["rating"] for r in mean if r["game"] == "voleny")) < 0.2
    assert all(r["ms_per_decision"] > 0 and r["deals"] == 3 for r in rows)
    L.write_csv(rows, tmp_path / "ladder.csv")
    with open(tmp_path / "ladder.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 4
    page = L.markdown(rows, "mariash ladder --deals 3", anchor="random")
    assert "mariash ladder --deals 3" in page and "## lízaný mariáš" in page
    assert "`random` at 0" in page
    assert L.plot(rows, tmp_path / "ladder.png").stat().st_size > 0


def test_process_jobs_are_capped_at_the_cores(tmp_path, monkeypatch):
    """``jobs = 8`` on 2 usable cores plays the pairs in 2 worker processes, not 8; on one
    core in this process, no pool (mariash_env.pools.process_jobs, as the arena's deals and
    the label generator's shards); the same results."""
    from mariash_env import pools
    from tests.pool_spy import pools_seen

    pairs = L.plan({g: ["random", "table"] for g in ("voleny", "licitovany", "lizany")},
                   deals=3, seed=5, batch=3)  # more pairs than cores
    with pools_seen(monkeypatch) as seen:  # 2 usable cores
        one = L.run(pairs, tmp_path / "one", jobs=1, progress=False)
        assert seen == []
        eight = L.run(pairs, tmp_path / "eight", jobs=8, progress=False)
        assert seen == [(2, 1, 3)]
        monkeypatch.setattr(pools, "usable_cores", lambda: 1)
        alone = L.run(pairs, tmp_path / "alone", jobs=8, progress=False)
        assert seen == [(2, 1, 3)]  # no pool: this process played
    for p in pairs:
        np.testing.assert_array_equal(eight[p]["per_deal"], one[p]["per_deal"])
        np.testing.assert_array_equal(alone[p]["per_deal"], one[p]["per_deal"])


class _Bar:
    """A stand-in for tqdm's bar that keeps what it was told."""

    def __init__(self, total, initial=0, desc="", unit="", file=None):
        self.total, self.n, self.desc, self.unit = total, initial, desc, unit
        self.steps, self.postfix, self.closed = [], "", False
        _Bar.made.append(self)

    def update(self, n=1):
        self.steps.append(n)
        self.n += n

    def set_postfix_str(self, s, refresh=True):
        self.postfix = s

    def close(self):
        self.closed = True


def test_the_progress_counts_deals_not_pairs(tmp_path, monkeypatch):
    """The ladder's bar counted pairs: a pair of a searching robot (minutes) showed no
    movement until it ended.  It counts deals, as the arena's does, one at a time in this
    process, from the workers' shared count with jobs; the pairs read back count at once,
    and the pairs done are beside it."""
    import tqdm

    from tests.pool_spy import pools_seen

    monkeypatch.setattr(tqdm, "tqdm", _Bar)
    _Bar.made = []
    pairs = L.plan({"voleny": ["random", "table"], "lizany": ["random", "table"]}, deals=3,
                   seed=5, batch=3) + L.plan({"lizany": ["table", "random"]}, deals=2, seed=5)
    L.run(pairs, tmp_path / "one", jobs=1)
    [bar] = _Bar.made
    assert (bar.total, bar.desc, bar.unit) == (8, "deals", "deal") and bar.closed
    assert bar.steps == [1] * 8 and bar.postfix == "3/3 pairs"
    L.run(pairs, tmp_path / "one", jobs=1)  # every pair read back
    assert (_Bar.made[-1].n, _Bar.made[-1].steps) == (8, [])
    with pools_seen(monkeypatch) as seen:  # two worker processes
        L.run(pairs, tmp_path / "two", jobs=2)
        assert seen == [(2, 1, 3)]
    bar = _Bar.made[-1]
    assert bar.n == 8 and sum(bar.steps) == 8 and bar.postfix == "3/3 pairs", bar.steps


def test_a_damaged_pair_file_is_played_again_with_a_warning(tmp_path, capsys):
    """A ``pair.json`` that is not what ``play_pair`` writes (cut short, another JSON,
    a field of the wrong kind or size) is not read as a result: a warning names the file
    and the pair is played again; an intact one is read back silently."""
    import json

    pair = L.plan({"voleny": ["random", "table"]}, deals=3, seed=5, batch=3)[0]
    first = L.run([pair], tmp_path, progress=False)[pair]
    path = pair.folder(tmp_path) / L.PAIR_FILE
    good = json.loads(path.read_text())
    assert np.allclose(L.load_pair(pair, tmp_path)["per_deal"], first["per_deal"])
    assert capsys.readouterr().err == ""
    for damage, why in [("{cut", "JSONDecodeError"), ("[]", "a JSON list"),
                        ({"per_deal": good["per_deal"][:2]}, r"'per_deal' of shape \(2, 2\)"),
                        ({"per_deal": [["x", 1]] * 3}, "could not convert"),
                        ({"seats": [27]}, "'seats' = \\[27\\]: expected two numbers"),
                        ({"means": None}, "'means' = None"),
                        ({"seconds": -1}, "'seconds' = -1"),
                        # junk first, its own value last: it was read as the last, silently
                        ('{"seats": [27],\n' + json.dumps(good)[1:],
                         "DuplicateKeyError: the key 'seats' is given twice in one object, "
                         "the second time on line 2")]:
        text = damage if isinstance(damage, str) else json.dumps({**good, **damage})
        path.write_text(text)
        assert L.load_pair(pair, tmp_path) is None
        err = capsys.readouterr().err
        assert f"warning: {path} is damaged" in err and "played again" in err, err
        assert re.search(why, err), (why, err)
    again = L.run([pair], tmp_path, progress=False)[pair]  # played again, the same deals
    assert np.allclose(again["per_deal"], first["per_deal"])
    assert json.loads(path.read_text())["per_deal"] == good["per_deal"]


@pytest.mark.parametrize("games,match", [
    (["voleny"], "NAME=ROBOT"),
    (["nope=random,table"], "nope"),
    (["voleny=random", "voleny=table"], "twice"),
])
def test_bad_games(games, match):
    with pytest.raises(ValueError, match=match):
        L.parse_games(games)


def test_bad_plan_and_command_line(capsys, tmp_path, monkeypatch):
    with pytest.raises(L.LadderError, match="two or more different robots"):
        L.plan({"voleny": ["table", "table"]}, deals=2, seed=0)
    with pytest.raises(L.LadderError, match="tabel"):
        L.plan({"voleny": ["random", "table"]}, deals=2, seed=0, slow_opponents=["tabel"])

    def broken(pair, matches, **kw):
        raise OSError("disk full")

    monkeypatch.setattr(L, "play_pair", broken)
    with pytest.raises(L.PairError, match="random - table of lizany failed.*disk full"):
        L.run(L.plan({"lizany": ["random", "table"]}, deals=2, seed=0), tmp_path,
              progress=False)
    assert L.main(["--game", "lizany=random,table", "--deals", "2", "--quiet",
                   "--matches", str(tmp_path / "m"), "--out", str(tmp_path / "o")]) == 1
    assert "disk full" in capsys.readouterr().err
    # a bad spec is named as one (it was named only among the robots that lack the
    # anchor: "--anchor table: game voleny has no such robot ... (its robots: random,
    # tabel)")
    with pytest.raises(SystemExit) as e:
        L.main(["--game", "voleny=random,tabel", "--deals", "2"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith("error: unknown robot 'tabel'"), err
    # a negative seed: refused naming --seed before any pair is played (it was refused only
    # by the bootstrap after every match, without naming the option)
    with pytest.raises(SystemExit) as e:
        L.main(["--game", "lizany=random,table", "--deals", "2", "--seed", "-1", "--quiet",
                "--matches", str(tmp_path / "m2"), "--out", str(tmp_path / "o2")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err == "error: argument --seed: expected an int >= 0, " \
        "got '-1'\n", err
    assert not (tmp_path / "m2").exists() and not (tmp_path / "o2").exists()


def test_an_unknown_slow_opponent_is_named_with_the_option_and_the_choices(capsys,
                                                                         tmp_path):
    """``--slow-opponents foo`` said "slow opponents ['foo'] play in no game of the
    ladder: expected some of ['random', ...]" (Python lists): one error line naming the
    option, the robot and the ladder's robots, before any folder is made."""
    argv = ["--game", "voleny=random,table", "--game", "lizany=random,table", "--deals", "2",
            "--matches", str(tmp_path / "m"), "--out", str(tmp_path / "o"), "--quiet"]
    for given, says in [("tabel", "'tabel' is no robot"),
                        ("table,rnd,x", "'rnd', 'x' are no robots")]:
        with pytest.raises(SystemExit) as e:
            L.main([*argv, "--slow-opponents", given])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err == (
            f"error: invalid --slow-opponents {given}: {says} of the ladder's games "
            "(expected some of: random, table)\n"), err
    assert not (tmp_path / "m").exists() and not (tmp_path / "o").exists()


def test_slow_opponents_are_named_as_the_anchor_is(capsys, monkeypatch, tmp_path):
    """``--slow-opponents`` took exact specs only: ``onnx:robot``, the name the page shows
    for ``onnx:models/robot.onnx`` and one that ``--anchor`` takes, was "no robot of the
    ladder's games".  A slow opponent is resolved as the anchor is (its spec or its short
    name, :func:`robot_index`), in every game that has it."""
    net = "onnx:models/robot.onnx"
    monkeypatch.setattr(L, "slow", lambda spec, game: spec == "random")  # "random" searches
    roster = {"voleny": ["random", "table", net], "lizany": ["random", "table"]}
    for names in (["onnx:robot"], [net]):
        pairs = L.plan(roster, deals=2, seed=0, slow_opponents=names)
        assert [(p.game, p.a, p.b) for p in pairs] == [("voleny", "random", net),
                                                      ("voleny", "table", net)], names
    assert L.robot_index("onnx:robot", roster["voleny"]) == 2
    assert L.robot_index(net, roster["voleny"]) == 2
    assert L.robot_index("onnx:robot", roster["lizany"]) is None
    assert L.unknown_robots(roster, ["onnx:robot", "table", "onnx:other"]) == ["onnx:other"]

    played = []

    def run(pairs, *args, **kw):
        played.extend(pairs)
        raise L.LadderError("stopped before playing")

    monkeypatch.setattr(L, "run", run)
    with pytest.raises(SystemExit) as e:
        L.main(["--game", f"voleny=random,table,{net}", "--slow-opponents", "table,onnx:robot",
                "--deals", "2", "--quiet", "--no-plot", "--matches", str(tmp_path / "m"),
                "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err == "error: stopped before playing\n", err
    assert [(p.a, p.b, p.deals) for p in played] == [
        ("random", "table", 20), ("random", net, 20), ("table", net, 2)]


def test_a_short_name_of_two_robots_is_refused_naming_them(capsys, monkeypatch, tmp_path):
    """``onnx:robot`` is the short name of ``onnx:a/robot.onnx`` and of
    ``onnx:b/robot.onnx``: ``--anchor`` and ``--slow-opponents`` took the first of them,
    silently.  Such a name is refused, listing the robots it names and saying to give the
    full spec; a full spec still names its robot, and a unique short name its own."""
    import shutil

    nets = []
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        shutil.copy(ROOT / "models" / "robot.onnx", tmp_path / d / "robot.onnx")
        nets.append(f"onnx:{tmp_path / d / 'robot.onnx'}")
    specs = ["random", *nets]
    says = f"'onnx:robot' names 2 robots: {nets[0]}, {nets[1]}; give the full spec of the " \
           "one meant"
    for name in ("onnx:robot", "onnx:elsewhere/robot.onnx"):
        with pytest.raises(L.LadderError) as e:
            L.robot_index(name, specs)
        assert str(e.value) == says.replace("'onnx:robot'", repr(name)), e.value
    assert [L.robot_index(s, specs) for s in [*nets, "random", "table"]] == [1, 2, 0, None]
    assert L.robot_index("onnx:robot", ["table", nets[1]]) == 1  # one robot of that name

    results = {L.Pair("voleny", "random", n, 3, 0, 3): {
        "per_deal": np.array([1.0, -1.0, 2.0]), "seconds": 1.0, "seats": [9, 9],
        "seconds_per_decision": [1e-5, 1e-5]} for n in nets}
    with pytest.raises(L.LadderError) as e:
        L.ratings(results, n_boot=5, anchor="onnx:robot")
    assert str(e.value) == f"--anchor onnx:robot: game voleny: {says}"
    rows = L.ratings(results, n_boot=5, anchor=nets[1])
    assert [r["rating"] for r in rows if r["spec"] == nets[1]] == [0.0]
    monkeypatch.setattr(L, "slow", lambda spec, game: spec == "random")  # "random" searches
    with pytest.raises(L.LadderError, match=f"invalid slow_opponents: game voleny: {says}"):
        L.plan({"voleny": specs}, deals=2, seed=0, slow_opponents=["onnx:robot"])
    assert [(p.a, p.b) for p in L.plan({"voleny": specs}, deals=2, seed=0,
                                       slow_opponents=[nets[1]])] == [("random", nets[1]),
                                                                      (nets[0], nets[1])]

    argv = ["--game", f"voleny={','.join(specs)}", "--deals", "2", "--quiet", "--no-plot",
            "--matches", str(tmp_path / "m"), "--out", str(tmp_path / "o")]
    for extra, option in ((["--anchor", "onnx:robot"], "--anchor onnx:robot: game voleny:"),
                          (["--anchor", "random", "--slow-opponents", "onnx:robot"],
                           "invalid --slow-opponents onnx:robot: game voleny:")):
        with pytest.raises(SystemExit) as e:
            L.main([*argv, *extra])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err == f"error: {option} {says}\n", err
    assert not (tmp_path / "m").exists() and not (tmp_path / "o").exists()


def test_robots_of_one_short_name_have_their_own_rows_and_folders(tmp_path, monkeypatch):
    """``onnx:a/robot.onnx`` and ``onnx:b/robot.onnx`` are both ``onnx:robot``: their pairs
    with ``random`` shared the folder ``MATCHES/voleny/random--onnx_robot`` (a rerun read
    one back as the other's, another match, and played it again each time; ``--jobs 2``
    wrote both into it at once) and the page showed two rows of one name.  Each is named
    by its spec there: its own row and folder; a robot of its own short name keeps it (a
    ladder resumes in its folders, the committed one rebuilds as it was); names that still
    share a folder are refused, naming the pairs, before any match."""
    import shutil

    nets = []
    for d in ("a", "b", "a b", "a_b"):
        (tmp_path / d).mkdir()
        shutil.copy(ROOT / "models" / "robot.onnx", tmp_path / d / "robot.onnx")
        nets.append(f"onnx:{tmp_path / d / 'robot.onnx'}")
    specs = ["random", *nets[:2]]
    assert L.page_names(specs) == specs
    assert L.page_names(["random", nets[0]]) == ["random", "onnx:robot"]
    assert [L.robot_index(n, specs) for n in L.page_names(specs)] == [0, 1, 2]
    pairs = L.plan({"voleny": specs}, deals=2, seed=0, batch=2)
    m = tmp_path / "m"
    assert [p.folder(m).name for p in pairs] == [
        f"random--onnx_{str(tmp_path).replace('/', '_')}_a_robot.onnx",
        f"random--onnx_{str(tmp_path).replace('/', '_')}_b_robot.onnx",
        f"onnx_{str(tmp_path).replace('/', '_')}_a_robot.onnx--"
        f"onnx_{str(tmp_path).replace('/', '_')}_b_robot.onnx"]
    first = L.run(pairs, m, progress=False)

    def played(*a, **k):
        raise AssertionError("a finished pair was played again")

    monkeypatch.setattr(L, "play_pair", played)
    again = L.run(pairs, m, progress=False)  # every pair read back, none played again
    assert all(np.allclose(again[p]["per_deal"], first[p]["per_deal"], atol=1e-6)
               for p in pairs)
    rows = L.ratings(again, n_boot=5, anchor=nets[1])
    assert sorted(r["robot"] for r in rows) == sorted(specs)
    assert [r["spec"] for r in rows if r["robot"] == nets[1]] == [nets[1]]
    assert f"`{nets[1]}` at 0" in L.markdown(rows, "cmd", anchor=nets[1])
    assert "`onnx:robot` at 0" in L.markdown(
        L.ratings({pairs[0]: again[pairs[0]]}, n_boot=5, anchor=nets[0]), "cmd",
        anchor=nets[0])  # a name of one robot: as before

    # the pairs made by hand, without their names on the page: refused, not played
    by_hand = [L.Pair("voleny", "random", n, 2, 0, 2) for n in nets[:2]]
    with pytest.raises(L.LadderError) as e:
        L.run(by_hand, tmp_path / "m2", progress=False)
    assert str(e.value) == (
        f"game voleny: the pairs random - {nets[0]} and random - {nets[1]} would share the "
        "match folder voleny/random--onnx_robot (a folder keeps the letters, digits and "
        ". _ - of the robots' names on the page): give one of the robots another name, its "
        "file's or its spec's")
    # names that differ in a space and an underscore: one folder
    with pytest.raises(L.LadderError, match="would share the match folder"):
        L.plan({"voleny": ["random", *nets[2:]]}, deals=2, seed=0)
    assert not (tmp_path / "m2").exists()


def test_help_shows_the_defaults(capsys):
    """``--help`` of the ladder, the arena and the data set says each option's default."""
    from mariash_env import arena
    from mariash_env.research import dataset

    for main, wanted in ((L.main, ["deals per pair (default 200)", "default 20)",
                                   "(default 0)", "--no-plot write no chart"]),
                         (arena.main, ["(default 500)", "(default 1)", "the decks (default 0)",
                                       "default runs/arena/"]),
                         (dataset.main, ["(default table)", "default 0)"])):
        with pytest.raises(SystemExit) as e:
            main(["--help"])
        text = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
        assert e.value.code == 0 and all(w in text for w in wanted), (main, text)


def test_the_ladder_is_rebuilt_from_its_record_without_playing(tmp_path, monkeypatch,
                                                              capsys):
    """``OUT/ladder_deals.json.gz`` holds what the pages are made of: ``--from`` it writes
    the same ladder.md and ladder.csv (the command that played the matches on both) and
    plays nothing; the record is written again the same."""
    played = tmp_path / "played"
    assert L.main(["--game", "lizany=random,table", "--game", "voleny=random,table",
                   "--deals", "3", "--batch", "3", "--boot", "30", "--quiet", "--no-plot",
                   "--note", "a note", "--matches", str(tmp_path / "m"),
                   "--out", str(played)]) == 0

    def play(*a, **k):
        raise AssertionError("a pair was played")

    monkeypatch.setattr(L, "play_pair", play)
    monkeypatch.setattr(L, "duplicate_match", play)
    again = tmp_path / "again"
    assert L.main(["--from", str(played / L.DEALS_FILE), "--out", str(again), "--quiet",
                   "--no-plot"]) == 0
    for name in ("ladder.md", "ladder.csv"):
        assert (again / name).read_bytes() == (played / name).read_bytes(), name
    assert L.read_record(again / L.DEALS_FILE) == L.read_record(played / L.DEALS_FILE)
    page = (again / "ladder.md").read_text()
    assert "--deals 3" in page and "a note" in page and "--from" not in page.split("```")[1]
    rec = L.read_record(again / L.DEALS_FILE)
    assert rec["boot"] == 30 and rec["anchor"] == "table"
    assert [(q["game"], q["a"], q["b"], len(q["diff"])) for q in rec["pairs"]] == [
        ("lizany", "random", "table", 3), ("voleny", "random", "table", 3)]
    # the options that choose the matches are refused, not ignored (they were, silently)
    for extra, says in ((["--game", "voleny=random,strong"], "--game is not its option"),
                        (["--deals", "9", "--seed", "2"], "--deals, --seed are not its "
                                                          "options")):
        with pytest.raises(SystemExit) as e:
            L.main(["--from", str(played / L.DEALS_FILE), "--out", str(tmp_path / "x"),
                    *extra])
        assert e.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    # a damaged record is refused, naming it
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(L.LadderError, match="cannot read the ladder's record"):
        L.read_record(bad)
    L.write_record(rec, bad)  # truncated, or damaged inside its compressed data
    data = bad.read_bytes()
    damaged = []
    for i in range(20, len(data) - 8):  # flips that zlib refuses (gzip's CRC the others)
        flipped = data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1:]
        try:
            gzip.decompress(flipped)
        except zlib.error:
            damaged.append(flipped)
        except (OSError, EOFError):
            pass
    assert damaged
    for broken, why in [(data[:len(data) // 2], "Compressed file ended"), (b"", "Expecting"),
                        (damaged[0], "Error -3 while decompressing"),
                        (b"\x1f\x8b\x08\x00" + data[4:-8] + b"\x00" * 8, "CRC check failed"),
                        (gzip.compress(b"[" * 100_000), "nested too deeply")]:
        bad.write_bytes(broken)
        with pytest.raises(L.LadderError, match=f"cannot read the ladder's record {bad}: {why}"):
            L.read_record(bad)
    L.write_record(rec, bad)  # a key given twice (it was read as its last value)
    with gzip.open(bad, "rt", encoding="utf-8") as f:
        text = f.read()
    with gzip.open(bad, "wt", encoding="utf-8") as f:
        f.write(text.replace('"pairs":', '"pairs": [],"pairs":', 1))
    with pytest.raises(L.LadderError, match=f"cannot read the ladder's record {bad}: the key "
                                            "'pairs' is given twice in one object"):
        L.read_record(bad)
    rec["pairs"][0]["diff"] = rec["pairs"][0]["diff"][:2]
    L.write_record(rec, bad)
    with pytest.raises(L.LadderError, match=r"'diff' of shape \(2,\), expected 3"):
        L.read_record(bad)


# How far a rebuilt figure may sit from the committed one.  The point ratings, mean diffs
# and times follow from the record by arithmetic (a rounding step at most); the CIs are
# quantiles of bootstrap resamples drawn by numpy's generator, which another numpy may
# draw a little differently: a few Elo points, far less than the CIs' widths (25-140).
_TOLERANCE = {"rating": 0.11, "ci_low": 3.0, "ci_high": 3.0, "mean_diff": 0.0011,
              "ms_per_decision": 0.0011}
_MD_TOLERANCE = [1.0, 3.0, 3.0, 0.0, 0.0, 0.011, 0.0011]  # the page's columns, rounded


def _page_figures(md: str) -> tuple[list[str], list[list[float]]]:
    """A ladder page's lines with each table row cut to its robot, and each row's figures
    (rating, CI low, CI high, pairs, deals, mean diff, ms/decision)."""
    lines, rows = [], []
    for line in md.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            lines.append(cells[0])
            rows.append([float(x) for x in re.findall(r"[-+]?\d[\d.]*", " ".join(cells[1:]))])
        else:
            lines.append(line)
    return lines, rows


def test_the_page_shows_the_chart_only_where_there_is_one(tmp_path):
    """``--no-plot`` (or no matplotlib) writes no ladder.png, and the page it writes into a
    folder without one shows no chart: it linked ``![ladder](ladder.png)``, a broken image.
    Rebuilt into a folder that holds the chart (``--from ... --out docs --no-plot``) it
    keeps showing it."""
    rec = Path(__file__).resolve().parents[1] / "docs" / L.DEALS_FILE
    assert L.main(["--from", str(rec), "--out", str(tmp_path), "--quiet", "--no-plot"]) == 0
    assert not (tmp_path / "ladder.png").exists()
    assert "ladder.png" not in (tmp_path / "ladder.md").read_text("utf-8")
    (tmp_path / "ladder.png").write_bytes(b"the chart beside the page")
    assert L.main(["--from", str(rec), "--out", str(tmp_path), "--quiet", "--no-plot"]) == 0
    assert "![ladder](ladder.png)" in (tmp_path / "ladder.md").read_text("utf-8")


def test_the_committed_ladder_is_its_record_rebuilt(tmp_path):
    """docs/ladder.md and docs/ladder.csv are what ``mariash ladder --from
    docs/ladder_deals.json.gz --out docs`` writes: every rating, CI, mean diff and time
    on the page follows from the committed per-deal record (runs/ does not outlive a
    machine), and the page and its record stay in step.  Figures compared as numbers
    within :data:`_TOLERANCE` (bytes: another numpy could move a CI by a point), the rest
    of the page and CSV exactly."""
    from pathlib import Path

    docs = Path(__file__).resolve().parents[1] / "docs"
    rec = docs / L.DEALS_FILE
    assert rec.stat().st_size < 500_000  # compact: the differences per deal, 4 decimals
    (tmp_path / "ladder.png").write_bytes(b"")  # the chart beside the page, as in docs/
    assert L.main(["--from", str(rec), "--out", str(tmp_path), "--quiet", "--no-plot"]) == 0
    with open(tmp_path / "ladder.csv", newline="") as f, \
            open(docs / "ladder.csv", newline="") as g:
        built, committed = list(csv.DictReader(f)), list(csv.DictReader(g))
    assert [list(r) for r in built] == [list(r) for r in committed]  # the columns
    assert len(built) == len(committed) > 0
    for b, c in zip(built, committed):
        for key in b:
            if key in _TOLERANCE:
                assert abs(float(b[key]) - float(c[key])) <= _TOLERANCE[key], (key, b, c)
            else:
                assert b[key] == c[key], (key, b, c)
    built_lines, built_rows = _page_figures((tmp_path / "ladder.md").read_text("utf-8"))
    lines, rows = _page_figures((docs / "ladder.md").read_text("utf-8"))
    assert built_lines == lines and len(built_rows) == len(rows) == len(committed)
    for b, c in zip(built_rows, rows):
        assert len(b) == len(c) == len(_MD_TOLERANCE), (b, c)
        assert all(abs(x - y) <= t for x, y, t in zip(b, c, _MD_TOLERANCE)), (b, c)
    assert L.read_record(tmp_path / L.DEALS_FILE) == L.read_record(rec)


def test_the_pages_time_per_decision_of_the_networks_is_the_committed_ladders():
    """docs/research/ladder.md's figures for the networks' time per decision (lízaný's, timed
    one decision at a time, against the other games', timed per batch) are the committed
    ladder.csv's ranges, rounded to 0.01 ms: it said 0.03 and 0.01 ms, an earlier run's,
    while the committed table shows 0.14-0.19 ms against 0.02-0.03."""
    docs = Path(__file__).resolve().parents[1] / "docs"
    with open(docs / "ladder.csv", newline="") as f:
        nets = [r for r in csv.DictReader(f) if r["spec"].startswith("onnx:")]

    def span(rows: list[dict]) -> str:
        ms = sorted(float(r["ms_per_decision"]) for r in rows)
        low, high = f"{ms[0]:.2f}", f"{ms[-1]:.2f}"
        return low if low == high else f"{low}–{high}"

    lizany = span([r for r in nets if r["game"] == "lizany"])
    others = span([r for r in nets if r["game"] != "lizany"])
    page = " ".join((docs / "research" / "ladder.md").read_text("utf-8").split())
    assert f"{lizany} ms a decision there against {others} ms in the other games" in page, \
        (lizany, others)


def test_a_deck_is_resampled_as_one_unit_in_every_pair_that_played_it(monkeypatch):
    """The pairs of a searching robot play the first --slow-deals decks of the others'
    (here 100 and 3 of 400): in every resample each deck is drawn as often in every pair
    that played it (the pairs' results on one deck are not independent), and each pair
    keeps its number of deals.  They were drawn apart, one set of indices per count."""
    from collections import Counter

    seen = []
    wins_of = L.wins_of

    def spy(per_deal, k, rows=None):
        if rows is not None:
            seen.append({m: np.array(r) for m, r in rows.items()})
        return wins_of(per_deal, k, rows)

    monkeypatch.setattr(L, "wins_of", spy)
    rng = np.random.default_rng(0)
    per_deal = {(0, 1): rng.normal(size=400), (0, 2): rng.normal(size=100),
                (1, 2): rng.normal(size=3)}
    L.bootstrap_ratings(per_deal, 3, n_boot=50, anchor=0)
    assert len(seen) == 50
    for rows in seen:
        assert {m: len(r) for m, r in rows.items()} == {3: 3, 100: 100, 400: 400}
        for m in (3, 100):
            assert (rows[m] >= 0).all() and (rows[m] < m).all()
            assert Counter(rows[m].tolist()) == Counter(rows[400][rows[400] < m].tolist())


def test_an_anchor_that_a_game_lacks_is_refused(tmp_path, capsys):
    """``--anchor`` names the robot rated 0 in every game: one that a game lacks was taken
    as the mean while the page said "`nobody` at 0"; it is refused (before any match when
    the ladder plays), and the page's short name of a robot is accepted."""
    diff = np.array([1.0, -1.0, 2.0, 0.0, 3.0])
    results = {L.Pair("voleny", "random", "onnx:models/robot.onnx", 5, 0, 5): {
        "per_deal": diff, "seconds": 1.0, "seats": [45, 45],
        "seconds_per_decision": [1e-5, 1e-5]}}
    with pytest.raises(L.LadderError, match="--anchor nobody: game voleny has no such "
                                            "robot.*random, onnx:robot"):
        L.ratings(results, n_boot=5, anchor="nobody")
    rows = L.ratings(results, n_boot=5, anchor="onnx:robot")
    assert [r["rating"] for r in rows if r["robot"] == "onnx:robot"] == [0.0]
    with pytest.raises(SystemExit) as e:
        L.main(["--game", "voleny=random,onnx:models/robot.onnx", "--deals", "2", "--quiet",
                "--no-plot", "--matches", str(tmp_path / "m"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "--anchor table: game voleny has no such robot" in err, err
    assert not (tmp_path / "m").exists()


def test_time_per_decision_is_weighted_by_decisions():
    """A robot's ms/decision is its time over all its decisions: pairs of 100 decisions at
    1 ms and 300 at 3 ms give 2.5 ms (weighted by seats, 10 each, it was 2 ms); a record
    without decisions (the committed one) still weights by seats.  The decisions are
    saved with each pair and in the record."""
    def result(spd, dec):
        r = {"per_deal": np.array([1.0, -1.0]), "seconds": 1.0, "seats": [10, 10],
             "seconds_per_decision": [spd, 1e-3]}
        return {**r, "decisions": [dec, 50]} if dec else r

    def ms(results):
        return {r["robot"]: r["ms_per_decision"] for r in L.ratings(results, n_boot=5)}

    pairs = [L.Pair("voleny", "x", "table", 2, 0, 2), L.Pair("voleny", "x", "random", 2, 0, 2)]
    both = {pairs[0]: result(1e-3, 100), pairs[1]: result(3e-3, 300)}
    assert ms(both)["x"] == 2.5
    old = {pairs[0]: result(1e-3, 0), pairs[1]: result(3e-3, 0)}
    assert ms(old)["x"] == 2.0
    rec = L.record(both, "cmd")
    assert [q["decisions"] for q in rec["pairs"]] == [[100, 50], [300, 50]]
    assert ms(L.results_of(rec))["x"] == 2.5
    assert "decisions" not in L.record(old, "cmd")["pairs"][0]


def test_the_rows_hold_plain_python_numbers():
    """Every value of a ladder row is a str, int or float, not a numpy scalar (the ratings
    and their CI were np.float64: ``np.float64(88.7)`` in a row's repr)."""
    r = {"per_deal": np.array([1.0, -1.0, 2.0]), "seconds": 1.0, "seats": [10, 10],
         "seconds_per_decision": [1e-3, 1e-3], "decisions": [40, 50]}
    pairs = [L.Pair("voleny", "x", "table", 3, 0, 3), L.Pair("voleny", "x", "random", 3, 0, 3)]
    rows = L.ratings({p: r for p in pairs}, n_boot=5)
    assert len(rows) == 3
    for row in rows:
        assert {k: type(v) for k, v in row.items()} == {
            "game": str, "robot": str, "spec": str, "rating": float, "ci_low": float,
            "ci_high": float, "pairs": int, "deals": int, "mean_diff": float, "unit": str,
            "ms_per_decision": float}, row
        assert "np." not in repr(row)


def test_a_played_pair_saves_each_robots_decisions(tmp_path):
    pair = L.plan({"lizany": ["random", "table"]}, deals=2, seed=1)[0]
    res = L.run([pair], tmp_path, progress=False)[pair]
    again = L.load_pair(pair, tmp_path)
    assert again["decisions"] == res["decisions"]
    assert all(isinstance(n, int) and n > 0 for n in res["decisions"])
