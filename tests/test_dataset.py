"""``mariash dataset`` (mariash_env.research.dataset), its PyTorch loader
(training.decisions) and behaviour cloning (training.bc): tiny data sets of a few deals."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pyarrow.parquet as pq
import pytest

from mariash_env.games.registry import game_kind
from mariash_env.research import dataset as D


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """Four deals of the table robot against random, two deals per shard."""
    out = tmp_path_factory.mktemp("ds") / "table"
    settings = D.make_settings(["table", "random"], 4, seed=3, shard_deals=2)
    D.generate(out, settings, progress=False, command="test")
    return out, settings


def _zero_sum_per_deal(rows):
    """Each deal's returns, one per seat that decided (RULES.md §9: payments sum to 0)."""
    per = defaultdict(dict)
    for deal, seat, r in zip(rows["deal"], rows["seat"], rows["final_return"]):
        assert per[deal].setdefault(seat, r) == r  # one return per seat and deal
    return {d: sum(v.values()) for d, v in per.items()}


def test_schema_rows_and_consistency(small):
    out, _ = small
    man = json.loads((out / "manifest.json").read_text())
    assert [c["name"] for c in man["schema"]] == [n for n, _ in D.COLUMNS]
    assert man["complete"] and len(man["shards"]) == 2 and man["robots"] == ["table", "random"]
    assert pq.read_schema(out / "shard-00000.parquet").field("observation").type.list_size == 900
    rows = D.load(out)
    n = len(rows["action"])
    kind = game_kind("voleny")
    assert rows["observation"].shape == (n, kind.obs_size)
    assert rows["action_mask"].shape == (n, kind.n_actions)
    # every action taken is legal in its own mask, and its label is the action's
    assert (rows["action_mask"][np.arange(n), rows["action"]] == 1).all()
    assert list(rows["action_label"]) == [kind.labels[a] for a in rows["action"]]
    assert set(rows["phase"]) <= set(kind.phase_names) and "play" in set(rows["phase"])
    assert sorted(set(rows["deal"])) == [0, 1, 2, 3]
    assert set(_zero_sum_per_deal(rows).values()) == {0.0}
    for d in range(4):  # decisions numbered 0.. within each deal, in order
        assert list(rows["decision"][rows["deal"] == d]) == list(range((rows["deal"] == d).sum()))
    # the arena's seatings: deal i seats seating i % 6 of table (0) and random (1)
    assert set(rows["robot"]) == {"table", "random"}
    assert np.isnan(rows["action_values"]).all()  # neither robot searches


def test_process_jobs_are_capped_at_the_cores(tmp_path, monkeypatch):
    """``jobs = 8`` on 2 usable cores writes the shards in 2 worker processes, not 8; on
    one core in this process, no pool (mariash_env.pools.process_jobs, as the arena's);
    the same rows."""
    from mariash_env import pools
    from tests.pool_spy import pools_seen

    settings = D.make_settings(["table", "random"], 6, seed=3, shard_deals=2)  # 3 shards
    with pools_seen(monkeypatch) as seen:  # 2 usable cores
        D.generate(tmp_path / "one", settings, jobs=1, progress=False, command="test")
        assert seen == []
        D.generate(tmp_path / "eight", settings, jobs=8, progress=False, command="test")
        assert seen == [(2, 1, 3)]
        monkeypatch.setattr(pools, "usable_cores", lambda: 1)
        D.generate(tmp_path / "alone", settings, jobs=8, progress=False, command="test")
        assert seen == [(2, 1, 3)]  # no pool: this process played
    for i in range(3):
        for other in ("eight", "alone"):
            assert pq.read_table(tmp_path / other / f"shard-0000{i}.parquet").equals(
                pq.read_table(tmp_path / "one" / f"shard-0000{i}.parquet"))


def test_same_command_same_rows_any_jobs_and_resume(small, tmp_path):
    out, settings = small
    other = tmp_path / "again"
    D.generate(other, settings, jobs=2, progress=False, command="test")
    for i in range(2):
        assert pq.read_table(other / f"shard-0000{i}.parquet").equals(
            pq.read_table(out / f"shard-0000{i}.parquet"))
    # resume: a missing shard is made again, a written one is kept as it is
    kept = (other / "shard-00000.parquet").stat().st_mtime_ns
    (other / "shard-00001.parquet").unlink()
    with pytest.raises(D.DatasetError, match="incomplete"):
        D.load(other)
    man = D.generate(other, settings, progress=False, command="test")
    assert man["complete"] and (other / "shard-00000.parquet").stat().st_mtime_ns == kept
    assert pq.read_table(other / "shard-00001.parquet").equals(
        pq.read_table(out / "shard-00001.parquet"))
    # another data set's folder is refused, naming what differs
    with pytest.raises(D.DatasetError, match="seed"):
        D.generate(other, {**settings, "seed": 4}, progress=False)
    # a damaged manifest is named, not read as settings (another JSON, not UTF-8 text)
    for damage in (b'{"settings": [1]}', b"\xff", b"[]"):
        (other / "manifest.json").write_bytes(damage)
        with pytest.raises(D.DatasetError, match=r"manifest.json is unreadable \("):
            D.generate(other, settings, progress=False)
    # in JSON's words, with the article they take (it said "'settings' is a int")
    for damage, kind in (("[1]", "an array"), ("5", "a number"), ("null", "null")):
        (other / "manifest.json").write_text(f'{{"settings": {damage}}}')
        with pytest.raises(D.DatasetError, match=f"'settings' is {kind}, expected an object"):
            D.generate(other, settings, progress=False)


def test_a_shard_with_damaged_data_is_made_again(small, tmp_path):
    """docs/research/dataset.md: "written shards are kept, missing or unreadable ones are
    made": a shard whose footer reads but whose pages do not (bytes flipped inside) was
    kept, the manifest said complete, and load() failed."""
    out, settings = small
    other = tmp_path / "damaged"
    D.generate(other, settings, progress=False, command="test")
    shard = other / "shard-00001.parquet"
    data = bytearray(shard.read_bytes())
    pages = len(data) - pq.read_metadata(shard).serialized_size  # the footer after them
    for i in range(pages // 8, pages // 2, 7):
        data[i] ^= 0xFF
    shard.write_bytes(bytes(data))
    pq.read_metadata(shard)  # the footer still reads: only the data is damaged
    with pytest.raises((OSError, ValueError)):  # pyarrow: ZSTD decompression, thrift
        pq.read_table(shard)
    man = D.generate(other, settings, progress=False, command="test")
    assert man["complete"] and pq.read_table(shard).equals(
        pq.read_table(out / "shard-00001.parquet"))
    assert len(D.load(other)["deal"]) == len(D.load(out)["deal"])


def test_a_shard_with_metadata_that_is_not_utf8_is_named(small, tmp_path):
    """A shard whose parquet metadata (the digest of its data set) is not UTF-8 text (a
    damaged footer, another writer's) was a bare UnicodeDecodeError from resuming and
    from every reader: the DatasetError naming the shard, the byte and what to do."""
    import shutil

    out, settings = small
    other = tmp_path / "odd"
    shutil.copytree(out, other)
    shard = other / "shard-00001.parquet"
    table = pq.read_table(shard)
    pq.write_table(table.replace_schema_metadata({b"mariash_dataset": b"ab\xff\xfe",
                                                  b"shard": b"1"}), shard)
    says = (f"shard {shard}: its metadata's mariash_dataset is not UTF-8 text (line 1, byte "
            "3 of the line: b'\\xff'): expected a data set digest encoded in UTF-8; ")
    before = shard.read_bytes()
    with pytest.raises(D.DatasetError) as e:
        D.generate(other, settings, progress=False, command="test")
    assert str(e.value) == says + "use another --out, or remove it to make it again"
    for read in (D.load, D.read_table, lambda p: D.read_shard(p, 1)):
        with pytest.raises(D.DatasetError) as e:
            read(other)
        assert str(e.value) == says + "remove it and make it again with: test"
    assert shard.read_bytes() == before


def test_incomplete_set_is_refused(small, tmp_path):
    out, settings = small
    part = tmp_path / "part"
    part.mkdir()
    (part / "shard-00000.parquet").write_bytes((out / "shard-00000.parquet").read_bytes())
    D.write_manifest(part, settings, {0: 1}, "the command")
    with pytest.raises(D.DatasetError, match="incomplete.*the command"):
        D.load(part)
    with pytest.raises(D.DatasetError, match="no data set"):
        D.load(tmp_path)


def test_a_foreign_shard_or_a_damaged_manifest_is_named_when_read(small, tmp_path):
    """Reading checks each shard against the manifest: a shard of another data set (a
    copy, another seed) was read as this one's, or failed in pyarrow's concat (another
    game); one of another row count is named too.  A manifest whose 'shards' is not what
    the writer writes is a DatasetError, not a KeyError or TypeError."""
    import shutil

    pytest.importorskip("torch")
    from training.decisions import ShardStream

    out, settings = small
    mixed = tmp_path / "mixed"
    shutil.copytree(out, mixed)
    other = D.make_settings(["random"], settings["deals"], seed=9, shard_deals=2)
    D.write_shard(tmp_path, other, 1)
    shutil.copy(tmp_path / "shard-00001.parquet", mixed / "shard-00001.parquet")
    for read in (D.load, D.read_table, lambda p: list(D.shards(p)),
                 lambda p: D.read_shard(p, 1), lambda p: list(ShardStream(p))):
        with pytest.raises(D.DatasetError, match="shard-00001.parquet belongs to another "
                                                  "data set.*make it again with: test"):
            read(mixed)
    man = json.loads((out / D.MANIFEST).read_text())
    shutil.copy(out / "shard-00001.parquet", mixed / "shard-00001.parquet")
    man["shards"][1]["rows"] += 1
    (mixed / D.MANIFEST).write_text(json.dumps(man))
    with pytest.raises(D.DatasetError, match=r"shard-00001.parquet has \d+ rows, the manifest"):
        D.load(mixed)
    for shards in (None, 5, [{"rows": 1}], [{"file": "../x.parquet", "rows": 1}]):
        (mixed / D.MANIFEST).write_text(json.dumps({**man, "shards": shards}))
        with pytest.raises(D.DatasetError, match="'shards' is not a list"):
            D.load(mixed)
    (mixed / D.MANIFEST).write_text(json.dumps({**man, "digest": None}))
    with pytest.raises(D.DatasetError, match="'digest' = None"):
        D.load(mixed)


def test_a_manifest_that_names_a_key_twice_is_refused(small, tmp_path):
    """A manifest naming "digest" twice (another data set's first, its own last) was read
    as its last value, silently; reading and resuming now refuse it, naming the file, the
    key and its line."""
    import shutil

    out, settings = small
    twice = tmp_path / "twice"
    shutil.copytree(out, twice)
    text = (out / D.MANIFEST).read_text(encoding="utf-8")
    (twice / D.MANIFEST).write_text('{"digest": "0" ,\n' + text[1:], encoding="utf-8")
    line = 1 + next(n for n, t in enumerate(text.splitlines(), 1) if '"digest"' in t)
    says = f"the key 'digest' is given twice in one object, the second time on line {line}"
    for read in (D.load, D.read_manifest, lambda p: D.read_shard(p, 0)):
        with pytest.raises(D.DatasetError, match=f"cannot read {twice / D.MANIFEST} \\({says}"):
            read(twice)
    with pytest.raises(D.DatasetError, match=f"{twice / D.MANIFEST} is unreadable \\({says}"):
        D.generate(twice, settings, progress=False, command="test")


def test_a_manifest_nested_too_deeply_is_refused(small, tmp_path):
    """A manifest of arrays nested past the JSON reader's depth was json's RecursionError,
    a traceback out of read_manifest (which converted a ValueError only): the DatasetError
    naming the file, as another damaged manifest."""
    import shutil

    out, settings = small
    deep = tmp_path / "deep"
    shutil.copytree(out, deep)
    (deep / D.MANIFEST).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for read in (D.load, D.read_manifest, lambda p: D.read_shard(p, 0)):
        with pytest.raises(D.DatasetError, match=f"{deep} is no data set: cannot read "
                                                 f"{deep / D.MANIFEST} \\(nested too deeply"):
            read(deep)
    with pytest.raises(D.DatasetError, match=f"{deep / D.MANIFEST} is unreadable \\(nested "
                                             "too deeply"):
        D.generate(deep, settings, progress=False, command="test")


def test_a_shard_stream_reads_the_manifest_once_per_pass(small, monkeypatch):
    """ShardStream checks every shard against the manifest, reading (and checking every
    shard file's presence) once per pass, not once a shard: a pass over n shards did it
    n times, n x n file checks.  ``shards(which=...)`` reads only the shards asked for."""
    pytest.importorskip("torch")
    from training.decisions import ShardStream

    out, _ = small
    stream = ShardStream(out)
    assert len(stream.files) > 1
    reads = []
    real = D.read_manifest
    monkeypatch.setattr(D, "read_manifest", lambda p: reads.append(p) or real(p))
    assert sum(1 for _ in stream) == len(D.load(out, ["action"])["action"])
    assert len(reads) == 2  # the pass, and load above
    last = len(stream.files) - 1
    assert [len(x["action"]) for x in D.shards(out, ["action"], [last])] == \
        [len(D.read_shard(out, last, ["action"]))]


def test_search_values_recorded():
    settings = D.make_settings(["pimc(worlds=2)", "table"], 1, seed=0)
    rows = D.to_numpy(D.to_table(D.play_shard(settings, 0), game_kind("voleny"), 3))
    has = ~np.isnan(rows["action_values"]).all(axis=1)
    assert has.any() and set(rows["robot"][has]) == {"pimc(worlds=2)"}
    for v, m, a in zip(rows["action_values"][has], rows["action_mask"][has],
                       rows["action"][has]):
        valued = ~np.isnan(v)
        assert (m[valued] == 1).all()  # only legal actions are valued
        assert v[a] == np.nanmax(v)  # PIMC plays its best candidate


@pytest.mark.parametrize("rules,players", [({"rules": "licitovany"}, 3),
                                           ({"rules": "lizany"}, 2),
                                           ({"players": 4}, 4)])
def test_other_games(rules, players):
    settings = D.make_settings(["table", "random"], 2, rules=rules)
    kind = game_kind(rules.get("rules", "voleny"))
    rows = D.to_numpy(D.to_table(D.play_shard(settings, 0), kind, players))
    n = len(rows["action"])
    assert rows["observation"].shape == (n, kind.layout(players).obs_size)
    assert (rows["action_mask"][np.arange(n), rows["action"]] == 1).all()
    assert set(rows["players"]) == {players} and set(rows["game"]) == {kind.name}
    if players < 4:
        assert set(_zero_sum_per_deal(rows).values()) == {0.0}
    else:  # the dealer (seat deal % 4) sits out, no row, and pays -A with the defence
        for d in set(rows["deal"]):
            mine = rows["deal"] == d
            paid = {int(s): float(r) for s, r in zip(rows["seat"][mine],
                                                      rows["final_return"][mine])}
            assert set(paid) == set(range(4)) - {int(d) % 4}
            actor, a, b = sorted(paid.values(), key=lambda r: -abs(r))  # +3A, -A, -A
            assert a == b == -actor / 3 and sum(paid.values()) == -a


@pytest.mark.parametrize("kw,match", [
    ({"robots": []}, "robot specs"),
    ({"robots": "table"}, "robot specs"),
    ({"deals": 0}, "deals=0"),
    ({"seed": -1}, "seed=-1"),
    ({"shard_deals": 0}, "shard_deals=0"),
    ({"shard_deals": 10_001}, r"shard_deals=10001: expected an int 1\.\.10000 \(a shard's rows"),
    ({"rules": {"rules": "nope"}}, "nope"),
    ({"rules": {"deals": 12}}, "deals=12"),
])
def test_bad_settings(kw, match):
    args = {"robots": ["table"], "deals": 2, **kw}
    with pytest.raises(D.DatasetError, match=match):
        D.make_settings(**args)


def test_command_line_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        D.main(["--robots", "tabel", "--deals", "2", "--out", str(tmp_path / "x")])
    assert e.value.code == 2 and "tabel" in capsys.readouterr().err
    from mariash_env.play.cli import main as mariash

    with pytest.raises(SystemExit):  # through the console script's subcommand
        mariash(["dataset", "--deals", "0", "--out", str(tmp_path / "x")])
    assert "--deals" in capsys.readouterr().err
    # each named by its option, not by make_settings' keyword ('invalid shard_deals=20000',
    # "invalid robots ['', '']: expected a list of robot specs (e.g. ['table'] ...)")
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for argv, says in (
            (["--deals", "10000001"], "invalid --deals 10000001: expected 1..10000000"),
            (["--deals", "2", "--shard-deals", "20000"],
             "invalid --shard-deals 20000: expected 1..10000 (a shard's rows"),
            (["--deals", "2", "--jobs", "300"], "invalid --jobs 300: expected 1..256"),
            (["--deals", "2", "--robots", ","], "invalid --robots ',': expected "
                                                "comma-separated robot specs"),
            (["--deals", "2", "--robots", "table,,random"], "invalid --robots 'table,,random'"),
            (["--deals", "2", "--out", str(a_file)], f"--out {a_file} is a file: expected "
                                                     "the directory")):
        out = [] if "--out" in argv else ["--out", str(tmp_path / "y")]
        with pytest.raises(SystemExit) as e:
            D.main([*argv, *out, "--quiet"])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.startswith(f"error: {says}"), err
        assert err.count("\n") == 1
    assert not (tmp_path / "y").exists() and a_file.read_text() == "x"


def test_torch_loader_and_behaviour_cloning(small, tmp_path):
    from training import bc
    from training.decisions import DecisionDataset, ShardStream

    out, _ = small
    data = DecisionDataset(out)
    item = data[0]
    assert len(data) == len(D.load(out, ["action"])["action"])
    assert item["observation"].shape == (900,) and item["action_mask"][item["action"]]
    assert sum(1 for _ in ShardStream(out, shuffle=True)) == len(data)
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    with pytest.raises(SystemExit) as e:  # --out checked before the training, not after it
        bc.main(["--data", str(out), "--out", str(a_file / "bc"), "--epochs", "1",
                 "--hidden", "16", "--eval-deals", "0", "--threads", "1"])
    assert e.value.code == 2 and a_file.read_text() == "x"
    assert bc.main(["--data", str(out), "--out", str(tmp_path / "bc"), "--epochs", "1",
                    "--hidden", "16", "--eval-deals", "0", "--threads", "1"]) == 0
    from mariash_env.robots import make_robot

    robot = make_robot(f"onnx:{tmp_path / 'bc' / 'bc.onnx'}")
    acts = robot.act_batch(data.data["observation"][:8].numpy(),
                           data.data["action_mask"][:8].numpy().astype(np.int8))
    assert (data.data["action_mask"][:8].numpy()[np.arange(8), acts]).all()



def test_behaviour_cloning_writes_standard_json(small, tmp_path, capsys):
    """A match of one deal has no interval (NaN): bc.json wrote NaN there, which is not
    JSON; it is null, and so in the robot's training metadata."""
    from mariash_env.robots.onnx_robot import OnnxRobot
    from tests.helpers import strict_loads
    from training import bc

    out, _ = small
    assert bc.main(["--data", str(out), "--out", str(tmp_path / "bc"), "--epochs", "1",
                    "--hidden", "16", "--eval-deals", "1", "--threads", "1"]) == 0
    info = strict_loads((tmp_path / "bc" / "bc.json").read_text())
    assert info["match"]["deals"] == 1
    assert {r["ci_low"] for r in info["match"]["summary"]} == {None}
    meta = OnnxRobot(tmp_path / "bc" / "bc.onnx").metadata
    assert strict_loads(meta["mariash_training"])["epochs"] == 1


def test_behaviour_clonings_help_says_every_default(capsys):
    """``python -m training.bc --help`` named no default of --epochs, --batch, --lr,
    --seed, --threads, --eval-deals or --jobs; a negative --eval-deals is argparse's one
    line as every count is."""
    from training import bc

    with pytest.raises(SystemExit):
        bc.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag, default in (("--epochs", "6"), ("--batch", "512"), ("--lr", "1e-3"),
                          ("--seed", "0"), ("--threads", "2"), ("--eval-deals", "300"),
                          ("--jobs", "1"), ("--hidden", "512,256")):
        part = text.split(f"{flag} {flag.lstrip('-').replace('-', '_').upper()} ", 1)[1]
        assert f"(default {default}" in part.split(" --", 1)[0], (flag, part[:120])
    with pytest.raises(SystemExit) as e:
        bc.main(["--data", "x", "--out", "y", "--eval-deals", "-1"])
    assert e.value.code == 2 and capsys.readouterr().err == (
        "error: argument --eval-deals: expected an int >= 0, got '-1'\n")


def test_behaviour_cloning_refuses_a_data_set_of_another_observation_layout(small, tmp_path,
                                                                           capsys):
    """A data set's manifest names the observation layout version its rows were made with;
    behaviour cloning read one of another version as this one's and stamped the exported
    robot with the current version, so a robot fitted to old observations loaded and
    played from new ones.  It is refused, naming both versions and the command."""
    import shutil

    from training import bc

    out, _ = small
    old = tmp_path / "old"
    shutil.copytree(out, old)
    man = json.loads((old / "manifest.json").read_text())
    now = man["obs_version"]
    man["obs_version"] = now - 1
    (old / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(SystemExit) as e:
        bc.main(["--data", str(old), "--out", str(tmp_path / "bc"), "--epochs", "1",
                 "--hidden", "16", "--eval-deals", "0", "--threads", "1"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"observation layout version {now - 1}" in err, err
    assert f"this checkout's is {now}" in err and "test" in err  # the data set's command
    assert not (tmp_path / "bc").exists()
    # the remedy that fits: remaking the data set, not the Python readers'
    # allow_other_layout=True, which neither the command line nor bc takes
    assert "make the data set again with: test (behaviour cloning cannot read it as it " \
        "is" in err and "allow_other_layout" not in err, err


def _of_another_layout(small, tmp_path):
    """A copy of the small data set whose manifest names the layout version before this
    checkout's; returns its folder and this checkout's version."""
    import shutil

    out, _ = small
    old = tmp_path / "old"
    shutil.copytree(out, old)
    man = json.loads((old / D.MANIFEST).read_text())
    now = man["obs_version"]
    man["obs_version"] = now - 1
    (old / D.MANIFEST).write_text(json.dumps(man))
    return old, now


def test_readers_refuse_a_data_set_of_another_observation_layout(small, tmp_path):
    """Only behaviour cloning checked the manifest's obs_version: load, shards, read_table,
    read_shard, shard_files and the PyTorch loaders read the rows of another layout
    version as this checkout's observations without a word.  Each refuses, naming both
    versions and the command that makes the data set again; allow_other_layout=True reads
    the rows as they are (the actions, returns and masks keep their meaning)."""
    pytest.importorskip("torch")
    from training.decisions import DecisionDataset, ShardStream

    old, now = _of_another_layout(small, tmp_path)
    for read in (D.load, D.read_table, lambda p: list(D.shards(p)), D.shard_files,
                 lambda p: D.read_shard(p, 0), DecisionDataset,
                 lambda p: list(ShardStream(p))):
        with pytest.raises(D.DatasetError) as e:
            read(old)
        msg = str(e.value)
        assert f"observation layout version {now - 1}; this checkout's is {now}" in msg, msg
        assert "make the data set again with: test" in msg and "allow_other_layout" in msg
    rows = D.load(old, ["action", "final_return"], allow_other_layout=True)
    assert len(rows["action"]) == len(D.load(small[0], ["action"])["action"])
    assert D.read_table(old, allow_other_layout=True).num_rows == len(rows["action"])
    assert len(D.read_shard(old, 0, allow_other_layout=True)) > 0
    assert sum(len(x["action"]) for x in D.shards(old, ["action"],
                                                  allow_other_layout=True)) == len(rows["action"])
    assert len(D.shard_files(old, allow_other_layout=True)) == 2
    man = json.loads((old / D.MANIFEST).read_text())
    del man["obs_version"]
    (old / D.MANIFEST).write_text(json.dumps(man))
    with pytest.raises(D.DatasetError, match="names no observation layout version; this "
                                             "checkout's is"):
        D.load(old)


@pytest.mark.parametrize("game, says", [
    (..., "has no 'game'"), (None, "'game' is null"), (3, "'game' is a number"),
    (["voleny"], "'game' is an array")])
def test_a_manifest_that_names_no_game_is_refused_not_read_as_volenys(small, tmp_path, game,
                                                                      says):
    """check_layout read a manifest without 'game' as volený's (game_kind(None)), so its
    rows passed as volený's and its layout was checked against volený's.  Every version of
    the tool wrote 'game' (from the first, mariash-dataset-v1, which made data sets of
    every game), so such a manifest is damaged or not this tool's: every reader, allowed
    another layout or not, and the check itself refuse it naming the field."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(small[0], old)
    man = json.loads((old / D.MANIFEST).read_text())
    if game is ...:
        del man["game"]
    else:
        man["game"] = game
    (old / D.MANIFEST).write_text(json.dumps(man))
    for read in (D.load, lambda p: D.load(p, allow_other_layout=True), D.read_manifest,
                 lambda p: D.check_layout(man, p)):
        with pytest.raises(D.DatasetError, match=f"{says}: expected the name of the data "
                                                 "set's game .voleny, licitovany, lizany."):
            read(old)
    with pytest.raises(D.DatasetError, match=f"{says}.*remove .*old first"):
        D.generate(old, small[1], progress=False, command="test")


def test_the_pytorch_loaders_read_another_layout_when_allowed(small, tmp_path):
    """The PyTorch loaders refuse a data set of another layout version as every reader
    does, and the message says ``allow_other_layout=True`` reads it; they did not take it
    (a TypeError), so such a data set could not be read through them at all."""
    pytest.importorskip("torch")
    from training.decisions import DecisionDataset, ShardStream

    old, _ = _of_another_layout(small, tmp_path)
    n = len(D.load(small[0], ["action"])["action"])
    assert len(DecisionDataset(old, allow_other_layout=True)) == n
    assert len(list(ShardStream(old, allow_other_layout=True))) == n
    with pytest.raises(D.DatasetError, match="allow_other_layout=True"):
        ShardStream(old)


def test_resuming_refuses_a_folder_of_another_observation_layout(small, tmp_path):
    """The same command run again over a data set of another layout version kept its
    shards (the settings' digest does not hold the version), made the missing ones in this
    layout and rewrote the manifest with this checkout's version: old and new rows mixed
    under a manifest that the readers then took for this layout's.  It is refused, and the
    folder left as it was."""
    old, now = _of_another_layout(small, tmp_path)
    before = (old / D.MANIFEST).read_text()
    (old / "shard-00001.parquet").unlink()
    with pytest.raises(D.DatasetError, match=f"observation layout version {now - 1}; this "
                                             f"checkout's is {now}.*another --out") as e:
        D.generate(old, small[1], progress=False, command="test")
    assert "allow_other_layout" not in str(e.value)  # reading it as it is resumes nothing
    assert (old / D.MANIFEST).read_text() == before
    assert not (old / "shard-00001.parquet").exists()


def test_failed_shard_is_named_and_the_rest_kept(small, tmp_path, monkeypatch):
    out, settings = small
    real = D.write_shard

    def failing(dest, st, index, robots=None):
        if index == 1:
            raise RuntimeError("a robot broke")
        return real(dest, st, index, robots)

    monkeypatch.setattr(D, "write_shard", failing)
    with pytest.raises(D.ShardError, match="shard 1 failed.*a robot broke"):
        D.generate(tmp_path / "f", settings, progress=False, command="test")
    man = D.read_manifest(tmp_path / "f")
    assert not man["complete"] and [s["rows"] is not None for s in man["shards"]] == [True,
                                                                                      False]
    monkeypatch.setattr(D, "write_shard", real)
    assert D.generate(tmp_path / "f", settings, progress=False, command="test")["complete"]
