"""The game session behind the tables (mariash_env.play.session) and the seed-001 series
table (mariash_env.play.series): no web, no terminal."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mariash_env.play.i18n import card_name
from mariash_env.play.series import period_of, series_table
from mariash_env.play.session import PlayError, PlaySession, latest_unfinished
from tests.helpers import T0, table_cap, table_session, table_step, until_human

ROOT = Path(__file__).resolve().parents[1]


def _play_partie(s, rng):
    st = s.state()
    tick = table_cap(s)
    while s.waiting != "partie_over":
        tick()
        if s.waiting == "robot":
            st = s.advance(s.id, s.move)
        elif s.waiting == "human":
            st = s.act(s.id, s.move, rng.choice(st["legal"]))
        else:
            assert st["settlement"]["lines"]["cz"][-1].startswith("platby: ")
            assert st["settlement"]["lines"]["en"][-1].startswith("payments: ")
            st = s.next_deal(s.id, s.move)
    return st


def test_whole_partie_saved_and_replays(tmp_path):
    s = table_session(tmp_path)
    st = _play_partie(s, random.Random(1))
    assert st["waiting"] == "partie_over" and len(st["deal_results"]) == 12
    assert sum(st["scores"]) == 0  # RULES.md §10: totals sum to zero
    out = subprocess.run([sys.executable, "-m", "mariash_env.replay", str(s.records_path)],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "12 record(s) checked, 0 bad" in out.stdout
    meta = json.loads((tmp_path / f"{s.id}.json").read_text())
    assert meta["complete"] and [p["score"] for p in meta["players"]] == st["scores"]
    # the partie is in this week's and this month's series
    names = {r["name"] for r in st["series"]["week"]["rows"]}
    assert names == {"you", "robot table", "robot random"}


def test_robot_moves_come_one_by_one(tmp_path):
    s = table_session(tmp_path, human_seat=0)  # seat 1 is forehand of deal 1: robots move first
    assert s.state()["waiting"] == "robot"
    before = len(s.state()["events"])
    st = s.advance(s.id, 0)
    assert st["move"] == 1 and len(st["events"]) == before + 1
    assert st["events"][-1]["seat"] == 1 and st["events"][-1]["name"] == "robot table"


def test_stale_and_illegal_requests_change_nothing(tmp_path):
    s = table_session(tmp_path)
    st = until_human(s)
    legal = st["legal"]
    illegal = next(lab for lab in ("play:Aa", "good", "trump:blind", "lay_down")
                   if lab not in legal)
    cases = [
        (lambda: s.act(s.id, st["move"] - 1, legal[0]), 409, "stale"),
        (lambda: s.act("nope", st["move"], legal[0]), 404, "unknown session"),
        (lambda: s.act(s.id, st["move"], illegal), 422, "illegal action"),
        (lambda: s.act(s.id, st["move"], 7), 400, "invalid action"),
        (lambda: s.act(s.id, "1", legal[0]), 400, "invalid move"),
        (lambda: s.advance(s.id, st["move"]), 409, "no robot"),
        (lambda: s.next_deal(s.id, st["move"]), 409, "not over"),
        (lambda: s.undo(s.id, st["move"]), 409, "nothing to undo"),
    ]
    for call, status, words in cases:
        with pytest.raises(PlayError, match=words) as e:
            call()
        assert e.value.status == status
        assert s.state() == st  # nothing changed


def test_reload_resumes_the_same_game(tmp_path):
    s = table_session(tmp_path)
    st = until_human(s)
    assert s.state() == st  # a second poll (reload, another tab) sees the same table
    assert st["hand"] and all(c["label"] is None or c["label"] in st["legal"]
                              for c in st["hand"])


def test_undo_takes_back_the_humans_last_action(tmp_path):
    s = table_session(tmp_path)
    st = until_human(s)
    after = s.act(s.id, st["move"], st["legal"][-1])
    assert after["can_undo"]
    back = s.undo(s.id, after["move"])
    assert back["move"] == after["move"] + 1  # a new version, so stale tabs are refused
    strip = ("move", "can_undo")
    assert {k: v for k, v in back.items() if k not in strip} == \
        {k: v for k, v in st.items() if k not in strip}
    if back["waiting"] == "human":
        s.act(s.id, back["move"], back["legal"][0])
    if s.waiting == "robot":
        s.advance(s.id, s.move)
        with pytest.raises(PlayError, match="nothing to undo"):
            s.undo(s.id, s.move)


def test_known_rules_and_two_good_robots(tmp_path):
    with pytest.raises(PlayError, match="unknown rules 'x': expected voleny or licitovany"):
        table_session(tmp_path, rules="x")
    with pytest.raises(PlayError, match="expected two robots"):
        table_session(tmp_path, robots="table")
    with pytest.raises(PlayError, match="cannot seat robot 'nobody'"):
        table_session(tmp_path, robots="table,nobody")
    with pytest.raises(PlayError, match="cannot seat robot 'onnx:missing.onnx'"):
        table_session(tmp_path, robots="table,onnx:missing.onnx")


def _meta(when, scores, wins=(0, 0)):
    return {"finished": when, "players": [
        {"name": "A", "score": scores[0], "actor_wins": wins[0]},
        {"name": "B", "score": scores[1], "actor_wins": wins[1]}]}


def test_series_best_three_of_a_week_zero_padded():
    # the online table: the sum of the best 3 parties of the week; missing ones count as zero
    w = "2026-11-30T10:00:00+00:00"
    parties = [_meta(w, (5, -5)), _meta(w, (7, -7)), _meta(w, (-1, 1)), _meta(w, (2, -2)),
               _meta("2026-11-20T10:00:00+00:00", (100, -100))]  # another week
    rows = series_table(parties, "week", period_of(w, "week"))
    a = next(r for r in rows if r["name"] == "A")
    b = next(r for r in rows if r["name"] == "B")
    assert a["total"] == 7 + 5 + 2 and a["parties"] == 4
    assert b["total"] == 1 - 2 - 5
    rows = series_table([_meta(w, (-3, 3))], "week", period_of(w, "week"))
    assert [r["total"] for r in rows] == [3, -3]  # one partie: the two missing count 0
    month = series_table(parties, "month", "2026-11")
    assert next(r for r in month if r["name"] == "A")["total"] == 100 + 7 + 5 + 2 - 1


def test_series_tie_breaks_and_shared_places():
    w = "2026-11-30T10:00:00+00:00"
    key = period_of(w, "week")
    # equal totals: more parties played ranks higher
    rows = series_table([_meta(w, (4, 4)), _meta(w, (0, -9))], "week", key)
    assert [r["name"] for r in rows] == ["A", "B"] and [r["place"] for r in rows] == [1, 2]
    # equal totals and parties: more games won as actor in the counted parties
    rows = series_table([_meta(w, (4, 4), (1, 2))], "week", key)
    assert [r["name"] for r in rows] == ["B", "A"]
    # a win in a partie that is not counted does not help
    parties = [_meta(w, (3, 3)), _meta(w, (3, 3)), _meta(w, (3, 3)), _meta(w, (-9, -9), (5, 0))]
    rows = series_table(parties, "week", key)
    assert [r["place"] for r in rows] == [1, 1]  # all equal: a shared place


def test_the_table_reads_the_saved_summaries_once_a_partie(tmp_path, monkeypatch):
    """The series travels with every state, and reading it parses every summary in the
    folder (O(parties)): a session reads them when it starts, when it has written its own
    summary (the finished deal, the finished partie, which the series must show at once)
    and when the week or month turns, not on every request."""
    from mariash_env.play import series

    reads = []
    real = series.load_parties
    monkeypatch.setattr(series, "load_parties", lambda *a, **k: reads.append(1) or real(*a, **k))
    (tmp_path / "old.json").write_text(json.dumps({
        "complete": True, "finished": T0.isoformat(), "players": [
            {"name": "someone", "score": 9, "actor_wins": 1}]}))
    clock = [T0]
    s = PlaySession("table,random", save_dir=tmp_path, seed=5, clock=lambda: clock[0],
                    options={"deals": 2})
    first = s.state()
    assert [r["name"] for r in first["series"]["week"]["rows"]] == ["someone"]
    first["series"]["week"]["rows"].clear()  # a state is a snapshot: no shared rows
    requests = 0
    rng = random.Random(2)
    tick = table_cap(s, deals=1)
    while s.waiting != "next_deal":
        tick()
        st = s.advance(s.id, s.move) if s.waiting == "robot" else \
            s.act(s.id, s.move, rng.choice(s.state()["legal"]))
        requests += 1
    assert requests > 10 and len(reads) == 2  # the start, the deal's summary
    assert [r["name"] for r in st["series"]["week"]["rows"]] == ["someone"]
    clock[0] = T0 + dt.timedelta(days=40)  # another week and month: read again
    assert s.state()["series"]["week"]["rows"] == [] and len(reads) == 3
    st = _play_partie(s, rng)
    names = {r["name"] for r in st["series"]["week"]["rows"]}
    assert names == {"you", "robot table", "robot random"}  # the partie, at once
    (tmp_path / "other.json").write_text(json.dumps({  # another table's, since
        "complete": True, "finished": clock[0].isoformat(), "players": [
            {"name": "elsewhere", "score": 1, "actor_wins": 0}]}))
    assert "elsewhere" not in {r["name"] for r in s.state()["series"]["week"]["rows"]}
    fresh = PlaySession("table,random", save_dir=tmp_path, seed=6, clock=lambda: clock[0])
    assert "elsewhere" in {r["name"] for r in fresh.state()["series"]["week"]["rows"]}


def test_the_statistics_read_a_saved_partie_again_only_once_it_changed(tmp_path,
                                                                      monkeypatch):
    """``GET /api/stats`` runs at every deal's end over every saved partie; with the
    table's cache a partie whose files did not change is not read again, and the figures
    are those of a fresh read: a partie that grew, a new one, a deleted one, a bad file
    (named in ``skipped`` each time)."""
    from mariash_env.play import series

    reads = []
    real = series._partie_figures
    monkeypatch.setattr(series, "_partie_figures",
                        lambda p, k: reads.append(p.name) or real(p, k))
    rng = random.Random(4)
    first = PlaySession("table,random", save_dir=tmp_path, seed=5, options={"deals": 2})
    tick = table_cap(first, deals=1)
    while first.waiting != "next_deal":
        tick()
        first.advance(first.id, first.move) if first.waiting == "robot" else \
            first.act(first.id, first.move, rng.choice(first.state()["legal"]))
    second = PlaySession("table,random", save_dir=tmp_path, seed=6, options={"deals": 1})
    _play_partie(second, rng)
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    (tmp_path / "bad.json").write_text("{}")
    cache: dict = {}
    got = series.party_stats(tmp_path, cache)
    assert got == series.party_stats(tmp_path) and got["games"]["voleny"]["parties"] == 1
    assert got["games"]["voleny"]["unfinished"] == 1  # the first: one deal of two
    assert [x["file"] for x in got["skipped"]] == ["bad.jsonl"]
    reads.clear()
    assert series.party_stats(tmp_path, cache) == got and reads == []  # nothing changed
    _play_partie(first, rng)  # the first partie's second deal saved
    grown = series.party_stats(tmp_path, cache)
    assert reads == [first.records_path.name] and grown == series.party_stats(tmp_path)
    assert grown["games"]["voleny"]["deals"] == got["games"]["voleny"]["deals"] + 1
    second.records_path.unlink()
    gone = series.party_stats(tmp_path, cache)
    assert gone == series.party_stats(tmp_path) and gone["games"]["voleny"]["parties"] == 1
    assert str(second.records_path) not in cache


@pytest.mark.parametrize("args, words", [
    (["--rules", "bridge"], "unknown rules 'bridge'"),
    (["--rules", "licitovany", "--robots", "table,pimc(worlds=0)"],
     "cannot seat robot 'pimc(worlds=0)'"),
    (["--robots", "table"], "expected two robots"),
    (["--robots", "table,onnx:none.onnx"], "cannot seat robot 'onnx:none.onnx'"),
    (["--port", "0"], "invalid port 0"),
    (["--web", "--terminal"], "not allowed with argument"),
    (["--resume"], "no unfinished partie in"),
])
def test_play_command_refuses_bad_input(tmp_path, args, words):
    """Refused before any robot is built: on an empty numba cache (as here) a robot's
    warm-up would announce a compile of ~30 s before naming a bad second robot."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    out = subprocess.run([sys.executable, "-m", "mariash_env.play", "--save-dir",
                          str(tmp_path), "--no-browser", *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ") and words in \
        out.stderr


# The undo of a deal-ending action (it erased a saved record) is refused since issue #29
# item 4: tests/test_play_hardening.py::test_undo_ends_at_the_settlement.


def test_resume_after_a_restart(tmp_path):
    rng = random.Random(2)
    s = table_session(tmp_path)
    for _ in range(60):  # into the second deal
        table_step(s, rng)
    st = s.state()
    assert latest_unfinished(tmp_path) == s.session_path
    again = PlaySession.resume(s.session_path, clock=lambda: T0)
    assert again.state() == st
    # it plays on, and its records are the same file, still replaying
    if again.waiting == "robot":
        again.advance(again.id, again.move)
    with pytest.raises(PlayError, match="stale"):  # the old tab's move is refused
        again.act(again.id, st["move"], "good")


def test_resume_refuses_a_broken_file_and_keeps_it(tmp_path):
    s = table_session(tmp_path)
    until_human(s)
    data = json.loads(s.session_path.read_text())
    data["log"].insert(0, ["act", "play:Aa"])
    s.session_path.write_text(json.dumps(data))
    with pytest.raises(PlayError, match="cannot resume .*illegal action 'play:Aa'"):
        PlaySession.resume(s.session_path)
    assert json.loads(s.session_path.read_text()) == data  # nothing lost
    with pytest.raises(PlayError, match="cannot resume"):
        PlaySession.resume(tmp_path / "missing.session.json")


def test_the_actor_sees_the_trump_card_until_the_announcement(tmp_path):
    """RULES.md §3–§4: forhont's trump card is his from its choice to the announcement
    (taking the talon, discarding, announcing): the contract line names it and the hand
    marks its suit; once announced, the trumps are the contract's."""
    s = PlaySession("table,table", save_dir=tmp_path, seed=3, human_seat=1, clock=lambda: T0)
    rng, seen = random.Random(0), []
    tick = table_cap(s, deals=1)
    while s.waiting != "next_deal":
        tick()
        st = s.state()
        if s.waiting == "human":
            seen.append(st)
            s.act(s.id, s.move, st["legal"][0] if st["phase"] != "play" else
                  rng.choice(st["legal"]))
        else:
            s.advance(s.id, s.move)
    before = [st for st in seen if st["phase"] in ("contract", "discard", "announce")]
    assert {st["phase"] for st in before} == {"contract", "discard", "announce"}
    code = before[0]["contract"]["trump_card"]
    for st in before:
        assert st["contract"]["trump"] == code[1]
        assert {"cz": f"váš trumf: {card_name(code, 'cz')}",
                "en": f"your trump card: {card_name(code, 'en')}"} in st["contract"]["tags"]
    after = [st for st in seen if st["phase"] == "play"]
    assert after and all(st["contract"]["trump"] == code[1] for st in after)
    assert not any("trump card" in tg["en"] for tg in after[0]["contract"]["tags"])


def test_a_table_s_first_moves_compile_nothing_its_build_did_not():
    """In a fresh process: once a table is built (its robots warmed, the notice said), the
    human's moves compile nothing more -- the first act of a deal checks whether it shows a
    hidden card by drawing worlds (SeatView.shows_hidden), whose sampler the table robots
    never call: on an empty numba cache that first click froze the page for ~50 s after the
    robots' ~60 s of announced compiling (a table audit).  Every game on the compiled core,
    volený at four too: random human moves, the robots, hints and the next deal over two
    deals add no compiled signature to any kernel."""
    code = textwrap.dedent("""
        import json, random, tempfile
        from mariash_env.compile import compiled_signatures as compiled
        from mariash_env.play.tables import open_table

        grown = {}
        for rules, options in (("voleny", None), ("voleny", {"players": 4}),
                               ("licitovany", None), ("lizany", None)):
            robots = ["table"] * (3 if options else 1 if rules == "lizany" else 2)
            s = open_table(robots, save_dir=tempfile.mkdtemp(), human_seat=1, seed=78,
                           rules=rules, options=options)
            before, rng, deals = compiled(), random.Random(78), 0
            while deals < 2:
                st = s.state()
                if st["waiting"] == "human":
                    s.hint(s.id, s.move)
                    s.act(s.id, s.move, rng.choice(st["legal"]))
                elif st["waiting"] == "robot":
                    s.advance(s.id, s.move)
                else:
                    deals += 1
                    s.next_deal(s.id, s.move)
            after = compiled()
            grown.update({f"{rules} {k}": (before.get(k, 0), n) for k, n in after.items()
                          if n != before.get(k, 0)})
        print(json.dumps(grown))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=900, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {}
