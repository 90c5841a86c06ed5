"""The play table under licitovaný mariáš (LICITOVANY.md): the session with the
licitovaný robots, the auction and contract as the human sees them, every §12 label worded
for the buttons, the settlement of §9 line by line, refusals, undo, resume, records."""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mariash_env.licit_actions import ACTION_LABELS
from mariash_env.play import licit
from mariash_env.play.labels import describe_licit
from mariash_env.play.series import series_tables
from mariash_env.play.session import PlayError, PlaySession
from tests.helpers import step_cap, table_cap

ROOT = Path(__file__).resolve().parents[1]
T0 = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
NAMES = {0: "you", 1: "robot table (1)", 2: "robot table (2)"}


def _session(tmp_path, **kw):
    kw.setdefault("seed", 3)
    return PlaySession(kw.pop("robots", "table,table"), save_dir=tmp_path, clock=lambda: T0,
                       rules="licitovany", **kw)


def _step(s, rng, seen=None):
    """One move of whoever the table waits for (the human picks a random legal action)."""
    st = s.state()
    if seen is not None:
        seen.append(st)
    if s.waiting == "robot":
        return s.advance(s.id, s.move)
    if s.waiting == "human":
        return s.act(s.id, s.move, rng.choice(st["legal"]))
    return s.next_deal(s.id, s.move)


def _deals(s, rng, n, seen=None):
    """Play until ``n`` deals are finished (and shown)."""
    tick = table_cap(s)
    while len(s.deals) < n or s.waiting in ("robot", "human"):
        tick()
        _step(s, rng, seen)
    return s.state()


def test_every_licitovany_label_has_czech_and_english_words():
    # LICITOVANY.md §12: every label is a button or a card with readable words
    for label in ACTION_LABELS:
        d = describe_licit(label, 2)
        assert d["label"] == label and d["cz"] and d["en"]
        assert d["cz"] != label and not any(w in d["cz"].split() for w in (
            "play", "trump", "discard", "lead", "game", "seven"))  # no English word
    # §6's level names, by the level the flek raises to
    assert describe_licit("flek:seven", 1)["cz"] == "flek na sedmu"
    assert describe_licit("flek:game", 2)["en"] == "re on the game"
    assert describe_licit("flek:two_sevens", 3)["cz"] == "tutti na dvě sedmy"
    assert describe_licit("flek:hundred", 4)["cz"] == "boty na stovku"
    assert describe_licit("flek:hundred", 5)["en"] == "kalhoty on the hundred"
    assert describe_licit("bid:lepsi_sto_sedma")["cz"] == "licit: lepší sto a sedm"
    assert describe_licit("trump:l")["en"] == "trumps: leaves"
    assert describe_licit("helping:h")["cz"] == "pomocná barva: červené"
    assert describe_licit("play:Ja")["cz"] == "hraje žaludského spodka"  # accusative
    with pytest.raises(ValueError, match="unknown licitovaný action label 'lay_down'"):
        describe_licit("lay_down")


def test_a_whole_deal_through_the_session(tmp_path):
    s = _session(tmp_path)
    seen = []
    st = _deals(s, random.Random(1), 1, seen)
    phases = {x["phase"] for x in seen}
    assert [p["role"] for p in seen[0]["seats"]] == ["dealer", "forhond", "middlehand"]
    assert {"bid", "play"} <= phases
    for x in seen:
        if x["phase"] in ("bid", "hold", "lone_bid"):  # LICITOVANY.md §4: the auction
            assert x["auction"]["open"] and x["contract"]["tags"][0] == {"cz": "licitace",
                                                                         "en": "auction"}
            positions = {p["position"] for p in x["seats"]}
            assert positions <= {"holder", "challenger", ""}
        if x["waiting"] == "human":
            # the buttons and the active cards are exactly the legal actions
            cards = [c["label"] for c in x["hand"] if c["label"]]
            assert sorted(cards + [c["label"] for c in x["choices"]]) == sorted(x["legal"])
            assert all(c["cz"] != c["label"] for c in x["choices"])
            assert {lab.split(":")[0] for lab in cards} <= {"discard", "lead", "play"}
    # the auction as it happened: every bid, hold and pass of the deal, named
    auction = [e for e in seen[-1]["events"] if e["label"].split(":")[0] in licit.AUCTION_HEADS]
    assert auction and all(e["name"] == NAMES[e["seat"]] for e in auction)
    # the settlement of §9 line by line, as the engine computed it
    rec = s.game.records[0]["settlement"]
    lines = st["settlement"]["lines"]["cz"]
    assert lines == licit.settlement_lines(rec, s.shown_names["cz"], "cz")
    assert st["settlement"]["lines"]["en"] == licit.settlement_lines(rec, s.shown_names["en"],
                                                                     "en")
    for c in rec["components"]:
        assert any(line.endswith(f"{c['amount']:+d}") and c["level_name"] in line
                   for line in lines)
    shown = s.shown_names["cz"]
    assert lines[-1] == "platby: " + ", ".join(
        f"{shown[i]} {p:+d}" for i, p in enumerate(rec["payments"])) + " (desetníky)"
    assert st["unit"] == "desetníky" and sum(st["scores"]) == 0
    # the record replays
    out = subprocess.run([sys.executable, "-m", "mariash_env.replay", str(s.records_path)],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "1 record(s) checked, 0 bad" in out.stdout, out.stdout


def test_other_seats_hidden_cards_stay_hidden(tmp_path):
    # a robot's discards and face-down lead are shown as actions, never as cards
    rng = random.Random(5)
    s = _session(tmp_path, seed=1, human_seat=1)
    hidden = 0
    for _ in range(400):
        st = _step(s, rng)
        assert [c["code"] for c in st["hand"]] == licit.hand(s.game.observation(1))
        for e in st["events"]:
            if e["seat"] != 1:
                assert not e["label"].startswith(("discard:", "lead:"))
                hidden += e["label"] in ("discard", "lead")
        if s.waiting == "partie_over":
            break
    robot_acts = [lab for rec in s.game.records for seat, lab in rec["actions"]
                  if seat != 1 and lab.startswith(("discard:", "lead:"))]
    assert robot_acts and hidden  # the robots were actors, their cards stayed hidden


def test_refusals_change_nothing(tmp_path):
    s = _session(tmp_path, human_seat=1)  # seat 1 is forhond of deal 1: holder first
    rng = random.Random(2)
    tick = table_cap(s, deals=1)
    while s.waiting != "human":
        tick()
        _step(s, rng)
    st = s.state()
    legal = st["legal"]
    cases = [
        (lambda: s.act(s.id, st["move"] - 1, legal[0]), 409, "stale"),
        (lambda: s.act(s.id, st["move"], "trump:blind"), 422, "illegal action 'trump:blind'"),
        (lambda: s.act(s.id, st["move"], "play:Aa"), 422, "illegal action 'play:Aa'"),
        (lambda: s.act(s.id, st["move"], 13), 400, "invalid action"),
        (lambda: s.advance(s.id, st["move"]), 409, "no robot"),
        (lambda: s.undo(s.id, st["move"]), 409, "nothing to undo"),
    ]
    for call, status, words in cases:
        with pytest.raises(PlayError, match=words) as e:
            call()
        assert e.value.status == status
        assert s.state() == st


def test_undo_and_resume(tmp_path):
    s = _session(tmp_path, human_seat=1)
    rng = random.Random(4)
    tick = step_cap("licitovany", deals=None)
    while True:
        tick()
        while s.waiting != "human":
            tick()
            _step(s, rng)
        st = s.state()
        # not the pass that would settle the deal (undo ends at the settlement since
        # issue #29 item 4, tests/test_play_hardening.py), nor a bid that takes the talon
        # (no undo of what showed hidden cards, tests/test_play_hidden.py)
        after = s.act(s.id, st["move"], st["legal"][0])
        if after["can_undo"]:
            break
    back = s.undo(s.id, after["move"])
    strip = ("move", "can_undo")
    assert {k: v for k, v in back.items() if k not in strip} == \
        {k: v for k, v in st.items() if k not in strip}
    _deals(s, rng, 2)  # into the second deal's settlement
    st = s.state()
    again = PlaySession.resume(s.session_path, clock=lambda: T0)
    assert again.rules == "licitovany" and again.state() == st
    assert json.loads((tmp_path / f"{s.id}.json").read_text())["rules"] == "licitovany"


def test_licitovany_robots(tmp_path):
    """The table seats licitovaný robots through make_robot(spec, rules=...): the table
    robot, random, PIMC and the licitovaný ONNX model; a volený model or a bad argument
    is refused, naming the spec."""
    s = _session(tmp_path, robots="table,pimc(worlds=2)")
    assert sorted(type(r).__name__ for r in s.robots.values()) == ["LicitTableRobot",
                                                                    "PIMCRobot"]
    s = _session(tmp_path, robots="onnx:models/robot_licitovany.onnx,random(seed=3)")
    assert sorted(type(r).__name__ for r in s.robots.values()) == ["OnnxRobot",
                                                                    "RandomRobot"]
    for spec, words in [("os_random(seed=-1.5)", "seed"),
                        ("onnx:models/robot.onnx", "volen"),
                        ("table(x=1)", "x")]:
        with pytest.raises(PlayError, match=re.escape(f"cannot seat robot {spec!r}") + ".*"
                           + words):
            _session(tmp_path, robots=f"table,{spec}")


def test_settlement_lines_cap_and_laid_transfer():
    # LICITOVANY.md §9 worked example 12: a laid durch at tutti, L pays for both
    laid = {"game": "durch", "bid": "durch", "actor": 0, "end": "played",
            "payments": [480, -480, 0], "amount": 240, "net": 240, "capped": False,
            "laid": True, "laid_transfer": {"payer": 1, "amount": 480},
            "components": [{"component": "game", "level": 3, "level_name": "tutti",
                            "won": True, "worth": 30, "amount": 240}],
            "points": {"actor_cards": 0, "defence_cards": 0, "actor_marriages": 0,
                       "defence_marriages": 0, "actor_first_marriage": 0}}
    lines = licit.settlement_lines(laid, NAMES)
    assert lines[0] == "you: durch — dohráno"
    assert "hra tutti: vyhráno — aktér vzal všechny štychy +240" in lines
    assert "položená hra: robot table (1) platí za oba 480" in lines
    assert not any(line.startswith("body") for line in lines)  # durch has no points
    en = licit.settlement_lines(laid, NAMES, "en")
    assert en[0] == "you: durch (slam) — played out"
    assert "game tutti: won — the actor took every trick +240" in en
    # example 8: the cap of 50,- on the net deal amount
    capped = {"game": "lepsi_sto", "bid": "lepsi_sto", "actor": 2, "end": "played",
              "trump": "h", "payments": [500, 500, -1000], "amount": -500, "net": -512,
              "capped": True, "laid": False,
              "components": [{"component": "hundred", "level": 3, "level_name": "tutti",
                              "won": False, "worth": 32, "amount": -512}],
              "points": {"actor_cards": 40, "defence_cards": 50, "actor_marriages": 20,
                         "defence_marriages": 40, "actor_first_marriage": 20}}
    lines = licit.settlement_lines(capped, NAMES)
    assert "strop 50,-: -512 → -500" in lines
    assert "od každého obránce: -512 desetníků" in lines
    assert "stovka tutti: prohráno — 60 : 90 bodů -512" in lines  # 40+20 against 50+40
    assert lines[0].startswith("robot table (2): lepší stovka (trumfy: červené")
    assert "cap: -512 → -500" in licit.settlement_lines(capped, NAMES, "en")
    # a defender's silent seven (§9 example 5): whose seven it was
    five = {**capped, "components": [{"component": "silent_seven", "level": 0,
                                      "level_name": "", "won": True, "worth": 1, "amount": -1,
                                      "seat": 1, "owner": "defence"}]}
    assert "tichá sedma: vyhráno — sedma vzala poslední štych (robot table (1), obrana) -1" \
        in licit.settlement_lines(five, NAMES)
    # a deal nobody bid: nobody pays
    none = {"game": None, "bid": None, "actor": -1, "end": "no_bid", "payments": [0, 0, 0],
            "amount": 0, "net": 0, "capped": False, "laid": False, "components": []}
    assert licit.settlement_lines(none, NAMES)[0] == "nikdo nelicitoval, nikdo neplatí"
    assert licit.settlement_lines(none, NAMES, "en")[0] == "nobody bid, nobody pays"


def test_series_keep_the_games_apart(tmp_path):
    for i, (rules, score) in enumerate([("voleny", 30), ("licitovany", 500), (None, 7)]):
        meta = {"complete": True, "finished": T0.isoformat(),
                "players": [{"name": "A", "score": score, "actor_wins": 0}]}
        if rules:
            meta["rules"] = rules
        (tmp_path / f"p{i}.json").write_text(json.dumps(meta))
    week = series_tables(tmp_path, T0, "licitovany")["week"]["rows"]
    assert [r["total"] for r in week] == [500]
    assert series_tables(tmp_path, T0, "voleny")["week"]["rows"][0]["total"] == 37


def test_the_face_down_lead_is_the_first_card_of_trick_one(tmp_path):
    """LICITOVANY.md §6–§7: betl's and durch's face-down lead is played when flekking
    ends, by no play action of its own; the felt, the tricks and the review show it as
    trick 1's first card, the actor's (it vanished from all three before)."""
    rng = random.Random(2)
    s = _session(tmp_path, seed=11, human_seat=1)
    found = 0
    tick = table_cap(s)
    while found < 2 and s.waiting != "partie_over":
        tick()
        st = _step(s, rng)
        rec = s.game.records[-1] if s.waiting == "next_deal" else None
        if rec is None or rec["settlement"]["game"] not in ("betl", "durch"):
            continue
        tricks = st["tricks"]
        actor = s.game.player(rec["settlement"]["actor"])
        lead = next(lab[5:] for seat, lab in rec["actions"] if lab.startswith("lead:"))
        if not tricks:  # a show ended it before the lead was turned up
            continue
        found += 1
        assert tricks[0]["cards"][0] == {"seat": actor, "code": lead, "suit": lead[1]}
        assert all(len(tr["cards"]) == 3 for tr in tricks)
        assert st["settlement"]["review"]["tricks"] == tricks
        played = [lab[5:] for _, lab in rec["actions"] if lab.startswith("play:")]
        assert [c["code"] for tr in tricks for c in tr["cards"]] == [lead, *played]
        shown = [e for e in st["events"] if e.get("card") == lead]
        assert len(shown) == 1 and shown[0]["seat"] == actor
    assert found == 2, "no betl or durch was played: the test saw nothing"


def test_every_trick_of_the_review_holds_every_card(tmp_path):
    """The review's tricks hold the record's card play, three cards a trick, in both
    games (volený's lay-down and the early ends of betl and durch included)."""
    rng = random.Random(4)
    for rules in ("voleny", "licitovany"):
        s = PlaySession("table,table", save_dir=tmp_path / rules, clock=lambda: T0,
                        rules=rules, seed=5, human_seat=0, options={"deals": 6})
        tick = table_cap(s)
        while s.waiting != "partie_over":
            tick()
            _step(s, rng)
        for deal, rec in zip(s.deals, s.game.records):
            tricks = deal["review"]["tricks"]
            assert all(len(tr["cards"]) == 3 for tr in tricks), (rules, tricks)
            played = [lab[5:] for _, lab in rec["actions"] if lab.startswith("play:")]
            lead = [lab[5:] for _, lab in rec["actions"] if lab.startswith("lead:")]
            cards = [c["code"] for tr in tricks for c in tr["cards"]]
            assert cards == ((lead + played) if played else []), (rules, cards, played)


def test_a_robots_trumps_are_named_and_two_sevens_lost_says_why(tmp_path):
    """LICITOVANY.md §5: trumps are public, so a robot actor's ``trump:<suit>`` is named,
    not shown as volený's face-down trump card; §8: two sevens are lost when the helping
    seven misses trick 9 or the trump seven trick 10 (not "the trump seven" alone)."""
    from mariash_env.play.i18n import bet_why

    rng = random.Random(0)
    named = 0
    for seed in range(5):
        s = _session(tmp_path, seed=seed, human_seat=0)
        tick = table_cap(s, deals=1)
        while s.waiting not in ("next_deal", "partie_over"):
            tick()
            _step(s, rng)
        for e in s.state()["events"]:
            if e["seat"] != 0 and e["label"].startswith("trump"):
                assert e["label"] != "trump" and "face down" not in e["en"], e
                named += 1
    assert named
    s = {"end": "played", "points": None}
    assert "helping seven did not take trick 9" in bet_why("two_sevens", False, s, "en")
    assert "pomocná sedma vzala 9. štych" in bet_why("two_sevens", True, s, "cz")
