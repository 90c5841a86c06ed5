"""Volený's four-player table at the play table (RULES.md §11.3): the human and three
robots, the dealer sitting out each deal (the human too, in its turn to deal), every
seat's numbers read from the deal it plays, and nothing the human cannot know sent."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mariash_env.play.session import PlayError, PlaySession
from scripts.fuzz_table import check_hidden
from tests.helpers import T0, page_client, table_cap, table_session

ROOT = Path(__file__).resolve().parents[1]
FOUR = {"players": 4}


def four_session(tmp_path, **kw):
    """:func:`tests.helpers.table_session` at four: a third robot, a partie of 4 deals."""
    kw.setdefault("options", {**FOUR, "deals": 4})
    return table_session(tmp_path, robots=kw.pop("robots", "table,random,table"), **kw)


def _check_state(st, dealer):
    """One state of a four-player deal against the rules of the table."""
    seats = st["seats"]
    assert st["players"] == 4 and len(seats) == 4 and st["sitting_out"] == dealer
    assert [s["sitting_out"] for s in seats] == [p == dealer for p in range(4)]
    roles = {seats[(dealer + 1 + k) % 4]["role"] for k in range(3)}
    assert seats[dealer]["role"] == "sitting_out" and roles <= {"forhont", "middlehand",
                                                               "third", ""}
    assert not seats[dealer]["to_move"] and seats[dealer]["tricks"] == 0
    assert all(e["seat"] != dealer for e in st["events"])
    assert all(p["seat"] != dealer for p in st["trick"] + st["last_trick"])
    # each seat's tricks and the trick winners agree (the deal's seats mapped to players)
    won = [0] * 4
    for t in st["tricks"]:
        won[t["winner"]] += 1
        assert len(t["cards"]) == 3 and t["winner"] != dealer
    if st["waiting"] in ("human", "robot"):
        assert [s["tricks"] for s in seats] == won
    if st["contract"]["actor"] is not None:
        assert st["contract"]["actor"] != dealer
    if st["human_seat"] == dealer:
        assert st["hand"] == [] and st["waiting"] != "human"


def test_a_four_player_partie_at_the_table(tmp_path):
    """A partie of four deals: each player deals once and sits it out, the human too (its
    deal is played by the robots alone); the settlement lines name four payments, the
    records replay and the scores sum to zero."""
    s = four_session(tmp_path, human_seat=2)
    rng = random.Random(4)
    st = s.state()
    dealers = []
    tick = table_cap(s)
    while st["waiting"] != "partie_over":
        tick()
        dealer = s.game.dealer
        _check_state(st, dealer)
        if st["waiting"] == "robot":
            st = s.advance(s.id, s.move)
        elif st["waiting"] == "human":
            card = [c["label"] for c in st["hand"] if c["label"]]
            assert sorted(card + [c["label"] for c in st["choices"]]) == sorted(st["legal"])
            st = s.act(s.id, s.move, rng.choice(st["legal"]))
        else:
            dealers.append(dealer)
            lines = st["settlement"]["lines"]["en"]
            assert lines[-1].startswith("payments: ") and lines[-1].count(",") == 3
            assert len(st["settlement"]["payments"]) == 4
            assert sum(st["settlement"]["payments"]) == 0
            st = s.next_deal(s.id, s.move)
    dealers.append(s.game.dealer)
    assert sorted(dealers) == [0, 1, 2, 3]  # the deal passes to the left
    assert len(st["deal_results"]) == 4 and sum(st["scores"]) == 0
    out = subprocess.run([sys.executable, "-m", "mariash_env.replay", str(s.records_path)],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "4 record(s) checked, 0 bad" in out.stdout, out.stdout
    meta = json.loads((tmp_path / f"{s.id}.json").read_text())
    assert [p["score"] for p in meta["players"]] == st["scores"]
    # the deal the human sat out: its review lists the three hands that played
    review = st["deal_results"][dealers.index(2)]["review"]
    assert review["hands"][2] == [] and sorted(map(len, review["hands"])) == [0, 10, 10, 12]


def test_the_four_player_table_resumes_and_separates_its_series(tmp_path):
    """A saved four-player partie resumes as it was; the series of the four-player table
    counts its own parties (its actor is paid 3A), not the three-player ones."""
    three = PlaySession("table,random", save_dir=tmp_path, seed=1, clock=lambda: T0,
                        name="solo", options={"deals": 1})
    tick = table_cap(three)
    while three.waiting != "partie_over":
        tick()
        three.run_robots() if three.waiting == "robot" else (
            three.act(three.id, three.move, three.state()["legal"][0])
            if three.waiting == "human" else three.next_deal(three.id, three.move))
    s = four_session(tmp_path, human_seat=0, options={**FOUR, "deals": 1})
    s.run_robots()
    st = s.state()
    moved = PlaySession.resume(s.session_path, clock=lambda: T0)
    assert moved.players == 4 and json.dumps(moved.state()) == json.dumps(st)
    tick = table_cap(s)
    while s.waiting != "partie_over":
        tick()
        s.run_robots() if s.waiting == "robot" else s.act(s.id, s.move, s.state()["legal"][0])
    names = {r["name"] for r in s.state()["series"]["week"]["rows"]}
    assert names == {"you", "robot table (1)", "robot random", "robot table (3)"}
    assert "solo" in {r["name"] for r in three.state()["series"]["week"]["rows"]}


def test_the_four_player_table_refuses_bad_setups(tmp_path):
    with pytest.raises(PlayError, match="expected three robots"):
        four_session(tmp_path, robots="table,random")
    with pytest.raises(PlayError, match="invalid human seat 4: expected 0, 1, 2 or 3"):
        four_session(tmp_path, human_seat=4)
    with pytest.raises(PlayError, match="invalid human seat 3: expected 0, 1 or 2"):
        PlaySession("table,table", save_dir=tmp_path, human_seat=3)
    with pytest.raises(PlayError, match="players=4 and rules='licitovany' conflict"):
        PlaySession("table,table,table", save_dir=tmp_path, rules="licitovany",
                    options=FOUR)


@pytest.mark.parametrize("seed, seat", [(1, 0), (2, 3)])
def test_the_four_player_table_sends_nothing_the_human_cannot_know(seed, seat):
    """The permutation check of every table (scripts/fuzz_table.py) at four players:
    wherever the human's observation is the same, every state sent is the same; over two
    deals, one of them the human's turn to sit out when it deals first."""
    rep = check_hidden("voleny", seed, seat, deals=2, variants=3, robots="table,table,table",
                       rng=random.Random(seed), options=FOUR)
    assert not rep.leaks, rep.leaks[:2]
    assert rep.compared > 20


def test_the_check_at_four_finds_a_shown_hidden_card(monkeypatch):
    """Not blind at four either: a robot's discards shown in the events are found."""
    import mariash_env.play.session as session

    monkeypatch.delitem(session.HIDDEN, "discard")
    rep = check_hidden("voleny", 0, 0, deals=2, variants=4, robots="table,table,table",
                       rng=random.Random(0), options=FOUR)
    assert rep.leaks and "events" in rep.leaks[0]


def test_the_page_offers_and_starts_the_four_player_table(tmp_path):
    pytest.importorskip("starlette")
    with page_client(tmp_path) as c:
        setup = c.get("/api/setup").json()
        assert setup["seat_counts"] == {"voleny": [3, 4], "licitovany": [3], "lizany": [2]}
        st = c.get("/api/state").json()
        body = {"session": st["session"], "move": st["move"], "setup": {
            "rules": "voleny", "seat": 3, "robots": ["random", "table", "net"],
            "options": {"deals": 2, "players": 4}}}
        new = c.post("/api/new", json=body).json()
        assert new["players"] == 4 and new["human_seat"] == 3 and len(new["seats"]) == 4
        assert new["seats"][0]["name"] == "robot random" and new["deals"] == 2
        bad = c.post("/api/new", json={"session": new["session"], "move": new["move"],
                                       "setup": {**body["setup"], "robots": ["table"] * 2}})
        assert bad.status_code == 400 and "expected three robots" in bad.json()["error"]


def test_the_play_command_seats_four(tmp_path):
    out = subprocess.run([sys.executable, "-m", "mariash_env.play", "--save-dir",
                          str(tmp_path), "--no-browser", "--players", "4", "--robots",
                          "table,table"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and "expected three robots" in out.stderr, out.stderr
    # a game not played at four is named as such, before the robots are counted
    for rules, robots, seats in (("licitovany", [], 3), ("licitovany", ["--robots", "a,b"], 3),
                                 ("lizany", [], 2)):
        out = subprocess.run([sys.executable, "-m", "mariash_env.play", "--save-dir",
                              str(tmp_path), "--no-browser", "--players", "4", "--rules",
                              rules, *robots], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 2 and f"four-player table: {rules} is played by {seats} " \
            "players" in out.stderr, out.stderr
