"""Issue #29 item 3: everything the play table sends is derived from the human seat's
information set.  scripts/fuzz_table.py permutes the cards the human cannot know (the
other seats' hands, the talon, a face-down trump card or lead), replays the same action
labels on that deal, and wherever the human's observation is the same, the state JSON
must be too; for every game the table plays (that check of every game:
tests/test_conformance.py; here the reported case and the check finding a leak)."""

from __future__ import annotations

import json
import random
import re

import pytest

import mariash_env.play.session as session
from mariash_env.cards import CARD_CODES, cards_of
from mariash_env.play.session import PlaySession
from scripts.fuzz_table import check_hidden
from tests.helpers import table_cap, table_session, table_step


def test_a_robots_trump_card_stays_face_down(tmp_path):
    """Issue #29 item 3, as reported: the robot forehand's trump card was in the events
    ('trump:7a', 'trump card 7♣') while the human's observation had no trump card."""
    s = PlaySession(["table", "table"], save_dir=tmp_path, human_seat=0, seed=0)
    st = s.advance(s.id, 0)
    robot_trump = s.log[-1][1]
    assert robot_trump.startswith("trump:") and st["contract"]["trump_card"] is None
    shown = json.dumps([st["events"], st["contract"], st["choices"], st["seats"]],
                       ensure_ascii=False)
    card = robot_trump.split(":")[1]
    assert robot_trump not in json.dumps(st) and card not in shown
    assert st["events"][-1]["en"] == "chooses the trump card face down"


@pytest.mark.parametrize("rules, hidden", [("voleny", "trump"), ("voleny", "discard"),
                                           ("licitovany", "discard")])
def test_the_check_finds_a_shown_hidden_card(monkeypatch, rules, hidden):
    """The permutation check is not blind: showing the robots' hidden actions' cards
    (as the table did for the trump card) is found."""
    monkeypatch.delitem(session.HIDDEN, hidden)
    leaks = []
    for seed in range(6):
        leaks += check_hidden(rules, seed, seed % 3, deals=2, variants=4,
                              rng=random.Random(seed)).leaks
        if leaks:
            break
    assert leaks and "events" in leaks[0]


def test_the_new_fields_are_compared_and_a_leak_in_them_is_found(monkeypatch, tmp_path):
    """Issue #33's fields (each trick with who took it, the hlášky, why a card is not
    legal, the contract's words) are part of every compared state, and a hidden card shown
    through one of them is found."""
    s = PlaySession(["table", "random"], save_dir=tmp_path, human_seat=0, seed=2)
    rng = random.Random(0)
    whys = set()
    tick = table_cap(s, deals=1)
    while s.waiting in ("human", "robot"):
        tick()
        st = s.state()
        whys |= {c["why"]["en"] for c in st["hand"] if c["why"]}
        s.advance(s.id, s.move) if s.waiting == "robot" else \
            s.act(s.id, s.move, rng.choice(st["legal"]))
    st = s.state()
    assert st["tricks"] and whys and all(set(t) == {"cz", "en"} for t in st["contract"]["tags"])
    original = PlaySession._play_news

    def leaky(self, before, after, card):
        out = original(self, before, after, card)
        nxt = (self.human + 1) % 3
        out["cz"] += " " + ",".join(CARD_CODES[c] for c in cards_of(self.game.hand(nxt)))
        return out

    monkeypatch.setattr(PlaySession, "_play_news", leaky)
    leaks = []
    for seed in range(4):
        leaks += check_hidden("voleny", seed, 0, deals=1, variants=4,
                              rng=random.Random(seed)).leaks
        if leaks:
            break
    assert leaks and "events" in leaks[0]



def test_the_check_finds_a_leak_at_the_lizany_table(monkeypatch):
    """The permutation check drives lízaný's own session too: its state showing the
    opponent's hand is found (the face-up trump card counts as seen)."""
    from mariash_env.play.lizany_table import LizanySession

    original = LizanySession.state

    def leaky(self):
        st = original(self)
        other = self.game.hands[1 - self._player(self.human)]
        st["peek"] = [CARD_CODES[c] for c in cards_of(other)]
        return st

    monkeypatch.setattr(LizanySession, "state", leaky)
    rep = check_hidden("lizany", 3, 0, deals=1, variants=6, rng=random.Random(3))
    assert rep.leaks and "peek" in rep.leaks[0]


def test_open_contracts_at_the_table_leak_nothing():
    """With open contracts (RULES.md §11.1) the table shows the actor's cards only once the
    first trick is complete: the permutation check over parties with open contracts
    finds nothing the human cannot know (the face-up hand counts as seen from then on)."""
    total = 0
    for seed in range(12):
        rep = check_hidden("voleny", seed, seed % 3, deals=2, variants=3,
                           rng=random.Random(seed), options={"open_contracts": True})
        assert not rep.leaks, rep.leaks[:1]
        total += rep.compared
    assert total > 500


@pytest.mark.parametrize("rules", ["voleny", "licitovany"])
def test_a_settled_deals_review_opens_only_what_was_seen_until_the_partie_ends(tmp_path,
                                                                               rules):
    """RULES.md §2 / LICITOVANY.md §2: the next deal is dealt from the last one's cards,
    gathered and cut, never shuffled; a review that opened every hand as dealt (a conceded
    deal's, a fold's) told the human most of the next deal's hands.  While the partie goes
    on a review holds the human's own hand, the cards each seat played, the talon and
    discards only if the human was the actor; once it is over, every card."""
    rng = random.Random(3)
    s = PlaySession("table,table", save_dir=tmp_path, seed=8, human_seat=2, rules=rules,
                    options={"deals": 4})
    hidden_seen = 0
    tick = table_cap(s)
    while s.waiting != "partie_over":
        tick()
        st = s.state()
        for d in st["deal_results"]:
            r = d["review"]
            played = {}
            for t in r["tricks"]:
                for c in t["cards"]:
                    played.setdefault(c["seat"], set()).add(c["code"])
            full = next(x for x in s.deals if x["deal"] == d["deal"])["review"]
            assert r["hands"][2] == full["hands"][2]
            for seat in (0, 1):
                assert set(r["hands"][seat]) == set(full["hands"][seat]) & played.get(seat,
                                                                                     set())
                hidden_seen += len(full["hands"][seat]) - len(r["hands"][seat])
            if d["actor"] != 2:
                assert r["talon"] == r["discards"] == []
        table_step(s, rng, st)
    assert hidden_seen  # some deal left cards unseen: the check was not empty
    end = s.state()
    assert all(sum(map(len, d["review"]["hands"])) + len(d["review"]["talon"]) == 32
               for d in end["deal_results"])
    assert all(d["review"] == x["review"] for d, x in zip(end["deal_results"], s.deals))


_CODE = re.compile(r"(?<![A-Za-z0-9])[789TJQKA][hbla](?![A-Za-z0-9])")


def _codes(st: dict) -> set[str]:
    """Every card code the table state names of the deal being played (hand, tricks,
    its events, the trump card...; the settled deals' results list theirs)."""
    # lízaný's trump card under the stock is public, but drawing it (the stock's last card)
    # tells the robot's whole hand: it counts as shown once it is in the hand
    now = {k: v for k, v in st.items() if k not in ("deal_results", "events", "series",
                                                     "stock_card")}
    now["events"] = [e for e in st["events"] if e.get("deal") == st["deal"]]
    return set(_CODE.findall(json.dumps(now, ensure_ascii=False)))


@pytest.mark.parametrize("game", ["voleny", "four", "licitovany", "lizany"])
def test_no_undo_after_an_action_that_showed_a_hidden_card(tmp_path, game):
    """An undo after an action that showed the human a card it had not seen (the other
    five after its trump choice, the talon it takes, a face-down lead turned up, a card
    drawn from lízaný's stock) would let it choose again knowing the card: the table
    offers undo exactly when the human's action showed it no new card, read here from
    the card codes of the state it is sent."""
    from mariash_env.play.lizany_table import LizanySession

    def session(**kw):
        if game == "lizany":
            return LizanySession("table", **kw)
        if game == "four":
            return table_session(robots="table,random,table", options={"players": 4}, **kw)
        return table_session(rules=game, **kw)

    rng = random.Random(2)
    offered = {True: 0, False: 0}
    for seed in range(4):
        s = session(save_dir=tmp_path, seed=seed, human_seat=1)
        st, acts = s.state(), 0
        tick = table_cap(s)  # acts counts the human's moves alone
        while s.waiting != "partie_over" and acts < 80:
            tick()
            if s.waiting != "human":
                st = table_step(s, rng)
                continue
            after, acts = s.act(s.id, s.move, rng.choice(st["legal"])), acts + 1
            if s.waiting not in ("next_deal", "partie_over"):
                new = _codes(after) - _codes(st)
                assert after["can_undo"] == (not new), (seed, s.log[-1], new)
                offered[after["can_undo"]] += 1
                if after["can_undo"] and rng.random() < 0.3:
                    after = s.undo(s.id, s.move)
            st = after
    assert offered[True] > 20 and offered[False] >= 3, offered

