"""Lízaný at the table (issue #33 item 6): a partie of the two-player game through the
same session API as volený and licitovaný, the tricks with who takes them, the result in
words, undo, resume, and the hidden-card rule (the robot's hand and the stock order never
reach the state)."""

from __future__ import annotations

import json
import random

import pytest

from mariash_env.cards import CARD_CODES
from mariash_env.game import IllegalActionError
from mariash_env.games.lizany.game import LizanyGame, replay
from mariash_env.play.lizany_table import LizanySession
from mariash_env.play.series import party_stats
from mariash_env.play.session import PlayError
from mariash_env.play.tables import open_table, resume_table
from tests.helpers import table_cap


def _play(s, rng, stop=None):
    tick = table_cap(s, deals=1)  # the rest of the deal
    while s.waiting in ("human", "robot"):
        tick()
        st = s.state()
        if s.waiting == "robot":
            s.advance(s.id, s.move)
        else:
            s.act(s.id, s.move, rng.choice(st["legal"]))
        if stop and stop(s):
            return


def test_a_lizany_partie_at_the_table(tmp_path):
    s = open_table("table,table", rules="lizany", save_dir=tmp_path, seed=5, human_seat=1,
                   options={"deals": 2})
    assert isinstance(s, LizanySession) and len(s.state()["seats"]) == 2
    # every key of the other tables' state, so a client reads any table alike
    other = open_table("table,table", save_dir=tmp_path, seed=5).state()
    assert set(other) <= set(s.state()) and s.state()["players"] == 2
    rng = random.Random(3)
    _play(s, rng, stop=lambda s: s.state()["can_undo"])
    st = s.state()
    undone = s.undo(s.id, s.move)  # the human's card taken back before the robot answers
    assert len(undone["events"]) == len(st["events"]) - 1 and not undone["can_undo"]
    _play(s, rng)
    st = s.state()
    assert st["waiting"] == "next_deal" and len(st["tricks"]) == 16
    for t, nxt in zip(st["tricks"], st["tricks"][1:]):  # the winner leads the next trick
        assert nxt["cards"][0]["seat"] == t["winner"]
    lines = st["settlement"]["lines"]
    assert lines["cz"][-1].startswith("platby: ") and "vyhrává" in lines["cz"][-2]
    assert sum(st["settlement"]["payments"]) == 0
    review = st["settlement"]["review"]
    assert sum(map(len, review["hands"])) == 16 and len(review["talon"]) == 16
    s.next_deal(s.id, s.move)
    _play(s, rng)
    assert s.waiting == "partie_over" and sum(s.scores) == 0
    # the records replay, the summary feeds the series, the session resumes
    for line in s.records_path.read_text().splitlines():
        rec = json.loads(line)
        assert replay(rec).record() == rec
    meta = json.loads((tmp_path / f"{s.id}.json").read_text())
    assert meta["complete"] and meta["rules"] == "lizany"
    stats = party_stats(tmp_path)["games"]["lizany"]
    assert stats["deals"] == 2 and stats["total"] == s.scores[1] and stats["contracts"] == {}
    again = resume_table(s.session_path)
    assert isinstance(again, LizanySession) and again.state() == s.state()
    with pytest.raises(PlayError, match="lízaný seats two"):
        open_table("table,table", rules="lizany", save_dir=tmp_path, human_seat=2)
    with pytest.raises(PlayError, match="lízaný takes only 'deals'"):
        open_table("table,table", rules="lizany", save_dir=tmp_path, options={"tariff": 1})
    # one opponent: one robot named (the command line's --robots strong) or two (the
    # three-seat tables' form: the first sits); a "new partie" keeps them
    one = open_table("random", rules="lizany", save_dir=tmp_path, seed=1)
    assert one.spec == "random" and one.state()["setup"]["robots"] == ["random"]
    assert open_table(["net", "table"], rules="lizany", save_dir=tmp_path).spec == "net"
    with pytest.raises(PlayError, match="expected one or two robots"):
        open_table("net,table,table", rules="lizany", save_dir=tmp_path)


def test_the_stock_s_size_is_the_state_s_own_field_not_a_tag_too(tmp_path):
    """The cards left in the stock are the state's ``stock``, which the page shows beside
    the stock on the felt (on a phone too) and the terminal prints; no contract tag says
    it again ("v balíčku: 16" showed twice on the page)."""
    s = open_table("table,table", rules="lizany", save_dir=tmp_path, seed=5, human_seat=1)
    rng, seen = random.Random(3), set()
    tick = table_cap(s, deals=1)
    while s.waiting in ("human", "robot"):
        tick()
        st = s.state()
        seen.add(st["stock"])
        words = " ".join(tag[k] for tag in st["contract"]["tags"] for k in ("cz", "en"))
        assert "balíčku" not in words and "stock" not in words, st["contract"]["tags"]
        if s.waiting == "robot":
            s.advance(s.id, s.move)
        else:
            s.act(s.id, s.move, rng.choice(st["legal"]))
    assert max(seen) == 16 and min(seen) == 0


def test_the_lizany_table_seats_the_network_and_names_it(tmp_path):
    """The page's form offers lízaný's trained network (web.TABLE_ROBOTS); the table names
    every robot it has a word for in the player's language, the network too."""
    s = open_table("net,net", rules="lizany", save_dir=tmp_path, seed=5, human_seat=0,
                   options={"deals": 1})
    assert s.shown_names["cz"][1] == "robot naučená síť"
    assert s.shown_names["en"][1] == "robot trained network"
    _play(s, random.Random(1))
    assert s.state()["waiting"] == "partie_over" and sum(s.scores) == 0


def _comparable(st):
    """The state as JSON, less what no card decides: the series (the save folder), undo
    (the human's last move), and a settled deal's results (every card in the open)."""
    st = {k: v for k, v in st.items() if k not in ("series", "can_undo")}
    if st["waiting"] not in ("human", "robot"):
        st = {k: v for k, v in st.items() if k not in ("settlement", "deal_results")}
    return json.dumps(st, sort_keys=True)


@pytest.mark.parametrize("seat, leak", [(0, False), (1, False), (0, True)])
def test_the_state_shows_no_hidden_lizany_card(tmp_path, monkeypatch, seat, leak):
    """The robot's hand and the stock permuted: wherever the human's observation is the
    same, so is the state the table sends (and a state that shows the next card of the
    stock is caught)."""
    if leak:
        shown = LizanySession.state
        monkeypatch.setattr(LizanySession, "state", lambda self: {
            **shown(self), "peek": self.game.stock[:1]})
    rng = random.Random(seat)
    s = LizanySession("table,table", save_dir=tmp_path, seed=11 + seat, human_seat=seat)
    me = s._player(seat)
    steps = [(s.game.observe(me).tobytes(), _comparable(s.state()))]
    deck = s.game.deck
    tick = table_cap(s, deals=1)
    while s.waiting in ("human", "robot"):
        tick()
        if s.waiting == "robot":
            s.advance(s.id, s.move)
        else:
            s.act(s.id, s.move, rng.choice(s.state()["legal"]))
        steps.append((s.game.observe(me).tobytes(), _comparable(s.state())))
    labels = [lab for _, lab, _ in s.log]
    # unknown to the human: the other hand (positions 0-7 or 8-15) and the stock (17-31)
    hidden = [i for i in range(32) if i != 16 and not (8 * me <= i < 8 * me + 8)]
    compared = 0
    for _ in range(12):
        perm = rng.sample(hidden, len(hidden))
        alt_deck = list(deck)
        for a, b in zip(hidden, perm):
            alt_deck[a] = deck[b]
        alt = LizanySession("table,table", save_dir=tmp_path, seed=11 + seat,
                            human_seat=seat, session_id=s.id)
        alt._saving = False
        alt.game = LizanyGame(deck=[CARD_CODES[c] for c in alt_deck])
        for i, (obs, state) in enumerate(steps):
            if i:
                try:
                    alt.move = i - 1
                    alt._apply(labels[i - 1])
                except IllegalActionError:
                    break
            if alt.game.observe(me).tobytes() != obs:
                break
            if _comparable(alt.state()) != state:
                assert leak, f"step {i}"
                return
            compared += 1
    assert compared >= 12 and not leak
