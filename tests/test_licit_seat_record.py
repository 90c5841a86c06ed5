"""Licitovaný seat records (``mariash-seat/1`` with licitovaný rules,
:mod:`mariash_env.games.licitovany.seat_record`): what a game server sends the robot
service to seat a searching robot.  Every seat's record of a real position rebuilds that
seat's view exactly, and a record that shows what the seat did not see (the actor's
discards, his face-down lead card, the talon) or hides what it did is refused by name
(LICITOVANY.md §5)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from starlette.testclient import TestClient

from mariash_env.core import state as S
from mariash_env.play.service import create_service_app
from mariash_env.seat_record import SeatRecordError, seat_record_of, seat_view
from tests.test_seat_record import iter_positions


def _positions(n: int, seed: int = 0) -> list:
    out = []
    for g, _ in iter_positions(seed, rules="licitovany"):
        out.append((g, json.loads(json.dumps(seat_record_of(g)))))
        if len(out) == n:
            return out
    return out


def test_every_seat_record_rebuilds_the_seats_view():
    """Random positions of every phase: the view rebuilt from the JSON record, under two
    seeds, has the real seat's observation and legal actions; the records hold the
    actor's discards and face-down lead card as ``?`` for the defenders and the talon for
    the actor."""
    seen = set()
    phases = set()
    for g, rec in _positions(150, seed=3):
        seat = g.to_move
        phases.add(int(g.st[S.PHASE]))
        labels = [lab for _, lab in rec["actions"]]
        seen |= {lab for lab in labels if lab in ("discard:?", "lead:?")}
        seen |= {"lead:card" for lab in labels if lab.startswith("lead:") and lab != "lead:?"}
        seen |= {"talon"} if "talon" in rec else set()
        for s in range(2):
            v = seat_view(rec, rng=s)
            assert np.array_equal(v.observation(), g.observation(seat)), rec
            assert np.array_equal(v.action_mask(), g.legal_mask(seat)), rec
    assert {"discard:?", "lead:?", "lead:card", "talon"} <= seen
    assert {S.PH_BID, S.PH_HOLD, S.PH_FLEK, S.PH_PLAY} <= phases


def _first(pred, n=400, seed=5):
    return next((g, rec) for g, rec in _positions(n, seed) if pred(g, rec))


def test_what_the_seat_did_not_see_is_refused_by_name():
    """LICITOVANY.md §5: a defender never sees the actor's discards, nor his lead card
    before it is turned up with the first trick; nobody but the actor sees the talon.  A
    record naming them, hiding a card the seat did see, or contradicting its hand is
    refused, naming the field."""
    # a defender's record with the actor's discards named
    g, rec = _first(lambda g, r: "discard:?" in [lab for _, lab in r["actions"]])
    named = json.loads(json.dumps(seat_record_of(g)))
    hist = [lab for _, a in g.history for lab in [g.kind.labels[a]]]
    named["actions"] = [[w, hist[i] if lab == "discard:?" else lab]
                        for i, (w, lab) in enumerate(named["actions"])]
    with pytest.raises(SeatRecordError, match="discards lie face down") as e:
        seat_view(named, rng=0)
    assert e.value.field == "actions"
    # the lead card: hidden before the play, named after it
    g, rec = _first(lambda g, r: "lead:?" in [lab for _, lab in r["actions"]])
    i = [lab for _, lab in rec["actions"]].index("lead:?")
    shown = dict(rec, actions=[list(x) for x in rec["actions"]])
    shown["actions"][i][1] = g.kind.labels[g.history[i][1]]
    with pytest.raises(SeatRecordError, match="lies face down until the play"):
        seat_view(shown, rng=0)
    g, rec = _first(lambda g, r: any(lab.startswith("lead:") and lab != "lead:?"
                                     for _, lab in r["actions"]) and g.to_move != g.st[S.ACTOR])
    i = next(k for k, (_, lab) in enumerate(rec["actions"]) if lab.startswith("lead:"))
    hidden = dict(rec, actions=[list(x) for x in rec["actions"]])
    hidden["actions"][i][1] = "lead:?"
    with pytest.raises(SeatRecordError, match="turned up with the first trick"):
        seat_view(hidden, rng=0)
    # the talon: the actor's, once he has taken it
    g, rec = _first(lambda g, r: "talon" in r)
    with pytest.raises(SeatRecordError, match="takes the talon now") as e:
        seat_view({k: v for k, v in rec.items() if k != "talon"}, rng=0)
    assert e.value.field == "talon"
    g, rec = _first(lambda g, r: "talon" not in r and g.st[S.ACTOR] >= 0)
    other = seat_record_of(g, int(g.st[S.ACTOR]))
    with pytest.raises(SeatRecordError, match="not seat .*: it lies face down") as e:
        seat_view({**rec, "talon": other["talon"]}, rng=0)
    assert e.value.field == "talon"
    early = dict(rec, actions=rec["actions"][:1])  # the auction: nobody has taken it
    with pytest.raises(SeatRecordError, match="has not taken the talon") as e:
        seat_view({**early, "talon": other["talon"]}, rng=0)
    # another seat plays a card of the seat's hand; a hand of twelve cards
    g, rec = _first(lambda g, r: any(w != r["seat"] and lab.startswith("play:")
                                     for w, lab in r["actions"]))
    i = next(k for k, (w, lab) in enumerate(rec["actions"])
             if w != rec["seat"] and lab.startswith("play:"))
    mine = dict(rec, actions=[list(x) for x in rec["actions"]])
    held = next(c for c in rec["hand"] if f"play:{c}" not in {lab for _, lab in rec["actions"]})
    mine["actions"][i][1] = f"play:{held}"
    with pytest.raises(SeatRecordError, match=f"{held} is in seat {rec['seat']}'s hand"):
        seat_view(mine, rng=0)
    with pytest.raises(SeatRecordError, match="expected 10 card codes") as e:
        seat_view({**rec, "hand": rec["hand"] + ["7h", "8h"]}, rng=0)
    assert e.value.field == "hand"


def test_the_robot_service_seats_licitovany_searching_robots():
    """The service takes licitovaný records: the table robot answers records and
    observations, PIMC (which needs the record) answers a legal action of the real
    position."""
    table = TestClient(create_service_app("table", rules="licitovany"))
    info = table.get("/info").json()
    assert info["accepts"] == ["record", "observation"]
    assert info["record_format"] == "mariash-seat/1"
    pimc = TestClient(create_service_app("pimc(worlds=2, time_limit=0.2)",
                                         rules="licitovany"))
    assert pimc.get("/info").json()["accepts"] == ["record"]
    for g, rec in _positions(6, seed=11):
        mask = g.legal_mask(g.to_move)
        for client in (table, pimc):
            r = client.post("/act", json={"record": rec})
            assert r.status_code == 200, r.text
            assert mask[r.json()["action"]]
