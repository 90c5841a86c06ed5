"""Replay checks whole parties and strict JSON types (issue #29 items 8 and 9): a deal
deleted, duplicated or swapped, a payment as a float, ``"level": false``, a deck given as
an object, a 5,000-digit integer, a play-table summary that disagrees: each is reported
with its record and the CLI exits 1; ``scripts/fuzz_replay.py`` misses no tampering."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mariash_env.records import RecordChecker, RecordError, replay_record, save_records
from scripts import fuzz_replay

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "records_24542a8.jsonl"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    """Real files of every game with records (and a play-table session)."""
    return fuzz_replay.real_files(5, tmp_path_factory.mktemp("session"))


@pytest.fixture(scope="module")
def partie(files) -> list[dict]:
    return files["voleny"]


def errors(records: list, parties: bool = True) -> dict[int, RecordError]:
    checker = RecordChecker(parties=parties)
    out = {}
    for n, r in enumerate(records):
        try:
            checker.check(r)
        except RecordError as e:
            out[n] = e
    return out


def run_replay(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mariash_env.replay", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("game", ["voleny", "voleny_every_deal", "licitovany", "voleny_four"])
def test_item8_deleted_duplicated_swapped_deals_are_reported(files, game):
    """Issue #29 item 8: a partie with deal 4 deleted, a deal duplicated or two deals
    swapped reported "0 bad" (deal numbers were never checked); each is now a 'deal'
    error at the first record that does not follow, for every game with parties."""
    recs = files[game]
    k = min(3, len(recs) - 2)
    deleted = errors(recs[:k] + recs[k + 1:])
    assert list(deleted) == [k] and deleted[k].field == "deal"
    assert "missing" in str(deleted[k])
    dup = errors(recs[:k + 1] + [recs[k]] + recs[k + 1:])
    assert list(dup) == [k + 1] and "duplicate" in str(dup[k + 1])
    swapped = list(recs)
    swapped[1], swapped[k + 1] = swapped[k + 1], swapped[1]
    assert 1 in errors(swapped) and errors(swapped)[1].field in ("deal", "cut")
    assert errors(recs) == {}


def test_item8_parties_start_at_deal_0_and_are_whole_before_the_next(partie):
    """Issue #29 item 8: a file may begin inside a partie, but deal 0 starts a partie
    only after a whole one: the first deal moved to the end, or a partie cut short and
    followed by another, is reported; two whole parties in a row are fine."""
    assert errors(partie + partie) == {}
    assert errors(partie[5:]) == {}  # an excerpt
    moved = errors(partie[1:] + partie[:1])
    assert list(moved) == [len(partie) - 1] and "holds only deals 1..11" in str(
        moved[len(partie) - 1])
    cut_short = errors(partie[:6] + partie)
    assert list(cut_short) == [6] and "ended at deal 5" in str(cut_short[6])
    other = copy.deepcopy(partie[3])
    other["rules"]["deals"] = 13  # still replays alone: only the partie tells
    assert errors([other]) == {}
    assert errors(partie[:3] + [other])[3].field == "rules"


@pytest.mark.parametrize(("path", "value", "field"), [
    (("settlement", "payments", 0), "float", "settlement.payments"),
    (("settlement", "amount"), "float", "settlement.amount"),
    (("settlement", "bets", 0, "level"), "bool", "settlement.bets"),
    (("settlement", "bets", 0, "won"), "int", "settlement.bets"),
    (("deck",), "object", "deck"),
    (("deck",), "indices", "deck"),
    (("deck",), "lowercase", "deck"),
    (("rules", "open_contracts"), "int", "rules"),
    (("deal",), "float", "deal"),
    (("dealer",), "float", "dealer"),
])
def test_item8_strict_json_types(partie, path, value, field):
    """Issue #29 item 8: ``==`` takes 1.0 and True for 1, so payments as floats,
    ``"level": false`` and a deck given as an object replayed; each is now named."""
    rec = copy.deepcopy(partie[2])
    obj = rec
    for key in path[:-1]:
        obj = obj[key]
    old = obj[path[-1]]
    obj[path[-1]] = {
        "float": lambda v: float(v), "int": lambda v: int(v),
        "bool": lambda v: bool(v) if v in (0, 1) else False,
        "object": lambda v: {c: i for i, c in enumerate(v)},
        "indices": lambda v: list(range(32)), "lowercase": lambda v: [c.lower() for c in v],
    }[value](old)
    with pytest.raises(RecordError) as e:
        replay_record(rec)
    assert e.value.field == field, e.value


def test_item8_licitovany_components_keep_their_types(files):
    """Issue #29 item 8, licitovaný: a component's level as false, a payment as a float."""
    rec = next(r for r in files["licitovany"] if r["settlement"]["components"])
    bad = copy.deepcopy(rec)
    comp = bad["settlement"]["components"][0]
    comp["level"] = bool(comp["level"]) if comp["level"] in (0, 1) else float(comp["level"])
    with pytest.raises(RecordError, match="settlement differs"):
        replay_record(bad)
    bad = copy.deepcopy(rec)
    bad["settlement"]["payments"][1] = float(bad["settlement"]["payments"][1])
    with pytest.raises(RecordError, match="recorded float"):
        replay_record(bad)


def test_item8_lizany_records_replay_and_keep_their_types(files, tmp_path):
    """Issue #29 item 8, lízaný: its records replay through the CLI (they failed as
    'missing settlement') and a result as floats or a deck as an object is reported."""
    recs = files["lizany"]
    path = tmp_path / "lizany.jsonl"
    save_records(path, recs)
    out = run_replay(str(path))
    assert out.returncode == 0, out.stdout
    bad = copy.deepcopy(recs)
    bad[1]["result"]["points"][0] = float(bad[1]["result"]["points"][0])
    bad[2]["deck"] = {c: i for i, c in enumerate(bad[2]["deck"])}
    errs = errors(bad)
    assert sorted(errs) == [1, 2] and errs[1].field == "result" and errs[2].field == "deck"


def test_item8_cli_names_the_record_and_exits_1(partie, tmp_path):
    """Issue #29 item 8: the command line reports the tampered record by line and
    field, and exits 1."""
    path = tmp_path / "deleted.jsonl"
    save_records(path, partie[:4] + partie[5:])
    out = run_replay(str(path))
    assert out.returncode == 1
    assert f"{path}:5: record 5: field 'deal': 5: the record before is deal 3" in out.stdout
    assert out.stdout.strip().endswith("11 record(s) checked, 1 bad")


def test_a_damaged_line_hides_no_other_record(partie, tmp_path):
    """A line that is not UTF-8 text (one flipped byte) is reported by line and the
    records after it are still checked; a byte-order mark before the first record is
    read as text, not as an error."""
    from mariash_env.records import read_records

    path = tmp_path / "damaged.jsonl"
    save_records(path, partie)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2][:10] + b"\xff" + lines[2][11:]
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(lines))
    read = list(read_records(path))
    assert [n for n, r in read if isinstance(r, RecordError)] == [3]
    assert str(read[2][1]) == "not UTF-8 text (byte 11 of the line: b'\\xff')"  # from 1
    assert [r for _, r in read if not isinstance(r, RecordError)] == partie[:2] + partie[3:]
    out = run_replay("--separate", str(path))
    assert out.returncode == 1
    assert f"{path}:3: record 3: not UTF-8 text" in out.stdout
    assert out.stdout.strip().endswith(f"{len(partie)} record(s) checked, 1 bad")


def test_item8_separate_checks_unrelated_deals_alone(tmp_path):
    """Issue #29 item 8: the stored file of unrelated deals (every variant) is not a
    partie; ``--separate`` checks each deal alone."""
    assert run_replay(str(DATA)).returncode == 1
    out = run_replay("--separate", str(DATA))
    assert out.returncode == 0 and "25 record(s) checked, 0 bad" in out.stdout


def test_item8_the_play_tables_summary_is_checked(files, tmp_path):
    """Issue #29 item 8: the records carry no running score; the table's summary beside
    them does, and must be the sum of the payments, with the deal count, completeness and
    the seed that dealt deal 0."""
    recs, meta = files["session"]
    stem = meta["id"]
    assert fuzz_replay.check_text(fuzz_replay._text(recs), tmp_path, stem, meta)[0] == 0
    bad = copy.deepcopy(meta)
    bad["players"][1]["score"] += 2
    n, out = fuzz_replay.check_text(fuzz_replay._text(recs), tmp_path, stem, bad)
    assert n == 1 and f"summary {stem}.json: player 1's score" in out
    # the records are sound: the fault is the summary's, not a bad record's
    assert out.strip().endswith("12 record(s) checked, 0 bad; the summary has 1 fault(s)")
    n, out = fuzz_replay.check_text(fuzz_replay._text(recs[:-1]), tmp_path, stem, meta)
    assert n >= 1 and "'deals' is 12 but the file holds 11" in out


def test_item9_a_5000_digit_integer_is_a_named_error(partie, tmp_path):
    """Issue #29 item 9: an integer over Python's int-string limit raised a traceback
    (ValueError) out of the replay; now that record's line is named and the rest are
    checked."""
    path = tmp_path / "huge.jsonl"
    lines = [json.dumps(r) for r in partie]
    lines[3] = lines[3].replace('"deal": 3', '"deal": ' + "3" * 5000, 1)
    path.write_text("\n".join(lines) + "\n")
    out = run_replay(str(path))
    assert out.returncode == 1 and "Traceback" not in out.stdout + out.stderr
    assert f"{path}:4: record 4: not a JSON object" in out.stdout
    assert "4300" in out.stdout


def test_a_key_given_twice_is_reported_not_read_as_its_last_value(partie, files, tmp_path):
    """A record that names "actions" twice (junk first, its own actions last) replayed as
    the last value, silently: "0 bad"; the line is now reported with the key and the rest
    are checked.  So is a play-table summary that names a key twice (it was read as its
    last value too)."""
    path = tmp_path / "twice.jsonl"
    lines = [json.dumps(r) for r in partie]
    lines[2] = lines[2].replace('"actions": ', '"actions": [], "actions": ', 1)
    path.write_text("\n".join(lines) + "\n")
    out = run_replay("--separate", str(path))  # the records after it checked alone
    assert out.returncode == 1 and "Traceback" not in out.stdout + out.stderr
    assert f"{path}:3: record 3: not a JSON object we read (the key 'actions' is given " \
           "twice in one object)" in out.stdout, out.stdout
    assert out.stdout.strip().endswith(f"{len(partie)} record(s) checked, 1 bad")
    recs, meta = files["session"]
    twice = '{"deals": 0,\n' + json.dumps(meta)[1:]
    n, out = fuzz_replay.check_text(fuzz_replay._text(recs), tmp_path, meta["id"], twice)
    assert n == 1 and f"summary {meta['id']}.json: cannot be read (the key 'deals' is given " \
        "twice in one object, the second time on line 2)" in out, out


def test_fuzz_replay_splits_a_file_as_the_records_reader_does(partie, tmp_path):
    """The replay fuzzer split a file's text into records with ``str.splitlines``, which
    also splits at ``\\x85``, ``\\u2028`` and ``\\u2029``: a record whose string holds
    one (written as it is) came apart, and its key-twice tampering failed on the half
    (a JSONDecodeError).  It splits as read_records does, at ``\\n`` only."""
    import random

    from mariash_env.records import read_records

    for sep in ("\x85", "\u2028", "\u2029", "\x0c"):
        text = fuzz_replay._text([{**r, "note": f"robot{sep}table"} for r in partie[:3]])
        assert fuzz_replay.record_lines(text) == [ln + "\n" for ln in text.split("\n")[:-1]]
        for k in range(4):
            for kind, bad in fuzz_replay.key_twice(text, random.Random(k)):
                path = tmp_path / "t.jsonl"
                path.write_bytes(bad.encode("utf-8"))
                got = [isinstance(r, RecordError) and "given twice" in str(r)
                       for _, r in read_records(path)]
                assert len(got) == 3 and sum(got) == 1, (kind, got)


def test_fuzz_replay_reports_every_tampering():
    """Issue #29 items 8, 9: the replay fuzzer (small counts) misses no tampering and
    crashes on none, over every game's real files."""
    res = fuzz_replay.fuzz(seed=2, n_types=6, seconds=120)
    assert res["clean_failed"] == [] and res["missed"] == [] and res["crashed"] == [], res
    assert {"key_twice", "key_twice_nested", "summary_key_twice"} <= set(res["by_kind"])
    assert res["tried"] >= 60 and res["detected"] == res["tried"]
