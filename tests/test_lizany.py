"""Lízaný, the two-player game (``mariash_env.lizany``; the English guide, RULES.md §1, §6, §7 for
the shared card, trick and marriage rules; the module docstring for its decisions)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mariash_env
from mariash_env import ActionError, CardError, IllegalActionError, lizany
from mariash_env.arena import duplicate_match
from mariash_env.cards import CARD_CODES, card_index, cards_of, mask_of
from mariash_env.core import tricks as T
from mariash_env.core.tables import ABOVE_PLAIN, ABOVE_TRUMP, SUIT_MASK
from mariash_env.lizany import OBS, OBS_SIZE, STATE_SIZE, LizanyGame, replay
from mariash_env.records import RecordError
from mariash_env.robots import RandomRobot, make_robot
from mariash_env.robots.lizany_table import LizanyRuleRobot
from mariash_env.rules import RulesError
from mariash_env.vector import VectorEnv
from tests.helpers import step_cap

ROOT = Path(__file__).resolve().parent.parent
TRUMP_RANKS = "789JQKTA"  # RULES.md §1: rank order with trumps, lowest first


def make_deck(h0: str, h1: str, trump: str, stock: str = "") -> list[str]:
    """A deck from the top: ``player_0``'s 8 cards, ``player_1``'s 8, the turned-up trump
    card, then the stock (the cards named first, the rest in index order)."""
    head = (h0 + " " + h1 + " " + trump + " " + stock).split()
    rest = [c for c in CARD_CODES if c not in head]
    return head + rest


DECK = make_deck("Ah Th Kh Qh 7b 8b 9b Jb", "7h 8h 9h Jh Ab Tb Kb Qb", "7a",
                 "8a 9a Ta Ja Qa Ka Aa 7l 8l 9l Tl Jl Ql Kl Al")


def m(codes: str) -> int:
    return mask_of(codes.split())


def play_out(g: LizanyGame, rng: np.random.Generator) -> None:
    tick = step_cap("lizany")
    while not g.over:
        tick()
        g.play(int(rng.choice(cards_of(g.legal_cards()))))


def oracle_legal(hand: int, led: int, trump: int, stock_left: int) -> int:
    """The English guide / RULES.md §6 for two players, written independently of the engine."""
    if led < 0 or stock_left:
        return hand
    cards = cards_of(hand)

    def higher(c: int, d: int) -> bool:
        if c >> 3 == d >> 3:
            return TRUMP_RANKS.index(CARD_CODES[c][0]) > TRUMP_RANKS.index(CARD_CODES[d][0])
        return c >> 3 == trump
    same = [c for c in cards if c >> 3 == led >> 3]
    if same:
        beat = [c for c in same if higher(c, led)]
        return mask_of(beat or same)
    trumps = [c for c in cards if c >> 3 == trump]
    if trumps:
        return mask_of(trumps)  # void in a plain suit: any trump beats it
    return hand


# --- the PettingZoo API ---------------------------------------------------------------------

def test_spaces_and_labels():
    """PettingZoo's api and seed tests of every game: tests/test_conformance.py."""
    e = lizany.raw_env()
    e.reset(seed=1)
    assert e.observation_space("player_0")["observation"].shape == (OBS_SIZE,)
    assert e.state().shape == (STATE_SIZE,) and e.state().dtype == np.float32
    assert lizany.N_ACTIONS == 32 and lizany.action_label(5) == "play:Qh"
    assert lizany.action_index("play:qh") == 5
    with pytest.raises(ActionError):
        lizany.action_index("marriage:Qh")


def test_render_ansi_shows_the_table():
    e = lizany.env(render_mode="ansi")
    e.reset(options={"deck": DECK})
    text = e.render()
    assert "lízaný" in text and "žaludy" in text and "7♣ under the stock" in text
    assert "A♥" in text and "stock 16" in text
    e.step(card_index("Ah"))
    assert "table: A♥ (led by player_0)" in e.render()
    with pytest.raises(ValueError, match="render_mode"):
        lizany.env(render_mode="rgb_array")


def test_render_human_prints_the_table(capsys):
    e = lizany.env(render_mode="human")
    e.reset(options={"deck": DECK})
    assert e.render() is None
    assert "7♣ under the stock" in capsys.readouterr().out


# --- the deal and the draw ------------------------------------------------------------------

def test_deal_trump_card_and_first_trick_draws():
    """The English guide: 8 cards each, the next card names trumps and lies under the stock; the
    trick's winner draws first, then the other."""
    g = LizanyGame(deck=DECK)
    assert g.hands == [m("Ah Th Kh Qh 7b 8b 9b Jb"), m("7h 8h 9h Jh Ab Tb Kb Qb")]
    assert g.trump == 3 and g.trump_card == card_index("7a")
    assert g.stock_left == 16 and g.stock[-1] == card_index("7a")
    g.play("play:Ah")
    assert g.legal_cards() == g.hands[1]  # free play: no need to follow hearts
    g.play("play:Kb")  # player_1 throws off: player_0 wins and draws first
    assert g.points == [10, 0] and g.tricks == [1, 0] and g.to_move == 0
    assert g.hands[0] >> card_index("8a") & 1 and g.hands[1] >> card_index("9a") & 1
    assert g.stock_left == 14


def test_loser_of_the_eighth_trick_draws_the_trump_card_then_strict_play():
    rng = np.random.default_rng(4)
    for _ in range(20):
        g = LizanyGame(seed=int(rng.integers(1 << 30)))
        deck = g.deck
        for k in range(8):
            before = list(g.hands)
            leader = g.to_move
            while g.trick_no == k:
                g.play(int(rng.choice(cards_of(g.legal_cards()))))
            w = g.last_winner
            got = [g.hands[s] & ~before[s] for s in range(2)]
            assert got[w] == 1 << deck[17 + 2 * k], (k, leader)
            assert got[1 - w] == 1 << (deck[18 + 2 * k] if k < 7 else deck[16])
        assert g.stock_left == 0 and popcount(g.hands[0]) == popcount(g.hands[1]) == 8
        assert g.known[1 - g.last_winner] >> g.trump_card & 1  # public: it lay face up


def popcount(x: int) -> int:
    return bin(x).count("1")


# --- strict follow-and-beat once the stock is empty -----------------------------------------

def position(h0: str, h1: str, table: str | None, trump_card: str = "7a") -> LizanyGame:
    """A late position: the stock gone, ``player_1`` to answer ``table`` (or to lead)."""
    rest = [c for c in CARD_CODES if c != trump_card]
    g = LizanyGame(deck=rest[:16] + [trump_card] + rest[16:])
    g.stock = []
    g.hands = [m(h0), m(h1)]
    g.trick_no = 16 - max(len(h0.split()), len(h1.split()))
    if table is None:
        g.to_move = 1
    else:
        g.hands[0] |= m(table)
        g.to_move = 0
        g.play("play:" + table)
    return g


@pytest.mark.parametrize("h1, led, legal", [
    ("7h Kh 9b Ta", "Qh", "Kh"),            # follow and beat
    ("7h 8h 9b Ta", "Qh", "7h 8h"),          # follow, cannot beat
    ("7b 9b Ta 8a", "Qh", "Ta 8a"),          # void: trump
    ("7b 9b Tl Jl", "Qh", "7b 9b Tl Jl"),    # void, no trump: any
    ("8a Ka 9b 7b", "Qa", "Ka"),             # trump led: beat it (K above Q)
    ("8a 9a Th Ah", "Ta", "8a 9a"),          # trump led, cannot beat: any trump
    ("Th Ah Jh 9b", "Kh", "Th Ah"),          # §1: the ten ranks above the king
])
def test_strict_follow_and_beat(h1, led, legal):
    g = position("7l 8l 9l Jl", h1, led)
    assert g.legal_cards() == m(legal)
    for c in cards_of(g.hands[1] & ~m(legal)):
        with pytest.raises(IllegalActionError, match="must follow suit"):
            g.play(c)


def test_free_play_while_the_stock_lasts_then_strict():
    g = LizanyGame(deck=DECK)
    while g.stock_left:
        if g.table >= 0:
            assert g.legal_cards() == g.hands[g.to_move]
        g.play(cards_of(g.legal_cards())[-1])
    assert g.trick_no == 8
    g.play(cards_of(g.legal_cards())[0])
    assert g.legal_cards() == oracle_legal(g.hands[g.to_move], g.table, g.trump, 0)


def test_shared_follow_rule_is_the_compiled_one():
    """One rule: lízaný's follow_py and the three-seat core's compiled follow agree."""
    rng = np.random.default_rng(2)
    for _ in range(400):
        hand = int(rng.integers(0, 1 << 32))
        led, best = (int(x) for x in rng.integers(0, 32, 2))
        trump = int(rng.integers(-1, 4))
        assert T.follow_py(hand, led, best, trump) == T.follow(
            hand, led, best, trump, SUIT_MASK, ABOVE_TRUMP, ABOVE_PLAIN)
        assert T.follow_py(hand, led, led, max(trump, 0)) == oracle_legal(
            hand, led, max(trump, 0), 0)


# --- marriages, points, rewards -------------------------------------------------------------

def test_marriage_20_credited_when_followed_and_the_partner_known():
    """RULES.md §7: playing Q (or K) while holding the other is a marriage, 20 in a plain
    suit, for its player whoever takes the trick."""
    g = LizanyGame(deck=DECK)
    g.play("play:Ah")
    g.play("play:Qb")  # player_1 holds Kb: bells marriage, though the trick is lost
    assert g.marriages == [0, 20] and g.marriage_by[1] == 1
    assert g.known[1] == 1 << card_index("Kb")
    o = g.observe(0)
    assert o[OBS["opp_known"][0] + card_index("Kb")] == 1
    assert o[OBS["marriages"][0] + 2 * 1 + 1] == 1
    g.play("play:Kh")  # player_0 leads K holding Q: hearts marriage
    assert g.marriages == [20, 20]
    g.play("play:Kb")  # the partner of an announced marriage announces nothing more
    assert g.marriages == [20, 20] and g.known[1] == 0


def test_trump_marriage_is_40():
    deck = make_deck("Qa Ka 7h 8h 9h Jh 7b 8b", "Ah Th Kh Qh Ab Tb Kb 9b", "7a")
    g = LizanyGame(deck=deck)
    g.play("play:Qa")
    assert g.marriages == [40, 0] and g.marriage_by[3] == 0


def test_last_trick_10_and_reward_1():
    g = position("Ah", "7h", None)
    g.to_move = 0
    g.points = [30, 40]
    g.tricks = [7, 8]
    g.play("play:Ah")
    g.play("play:7h")
    assert g.over and g.points == [30 + 10 + 10, 40] and g.rewards == (1, -1)


def test_no_card_is_legal_once_the_deal_is_over():
    """After the 16th trick nobody plays: no legal card for the seat the record names to
    move (the last trick's winner) nor for the other."""
    g = position("Ah", "7h", None)
    g.to_move = 0
    g.play("play:Ah")
    g.play("play:7h")
    assert g.over and g.to_move == 0
    assert g.legal_cards() == g.legal_cards(0) == g.legal_cards(1) == 0
    assert g.legal_labels() == [] and not g.legal_mask().any()


def test_reward_2_when_the_loser_took_no_trick_and_marriages_count():
    g = position("Ah", "7h", None)
    g.to_move, g.points, g.tricks, g.marriages = 0, [80, 0], [15, 0], [0, 20]
    g.play("play:Ah")
    g.play("play:7h")
    assert g.rewards == (2, -2)
    g = position("7h", "Ah", None)  # the marriages win it for player_1: it took a trick
    g.to_move, g.points, g.tricks, g.marriages = 0, [80, 0], [15, 0], [0, 100]
    g.play("play:7h")
    g.play("play:Ah")
    assert g.totals() == (80, 120) and g.rewards == (-1, 1)


@pytest.mark.parametrize("h0, h1, points, rewards", [
    ("Ah", "7h", [40, 60], (1, -1)),  # player_0 takes the last trick: 60 to 60
    ("7h", "Ah", [60, 40], (-1, 1)),  # player_1 takes it: 60 to 60
])
def test_equal_points_go_to_the_last_trick_winner(h0, h1, points, rewards):
    g = position(h0, h1, None)
    g.to_move, g.tricks, g.points = 0, [8, 7], points
    g.play("play:" + h0)
    g.play("play:" + h1)
    assert g.totals() == (60, 60) and g.rewards == rewards


# --- properties over random deals -----------------------------------------------------------

def test_random_deals_properties():
    rng = np.random.default_rng(11)
    for k in range(300):
        g = LizanyGame(seed=k)
        tick = step_cap("lizany")
        while not g.over:
            tick()
            seen = g.hands[0] | g.hands[1] | g.played[0] | g.played[1] | mask_of(g.stock)
            assert seen == (1 << 32) - 1 and popcount(mask_of(g.stock)) == g.stock_left
            assert g.hands[0] & g.hands[1] == 0
            s = g.to_move
            assert g.legal_cards() == oracle_legal(g.hands[s], g.table, g.trump, g.stock_left)
            mask = g.legal_mask(s)
            assert mask_of(np.flatnonzero(mask).tolist()) == g.legal_cards()
            assert not g.legal_mask(1 - s).any()
            o = g.observe(s)
            assert o.dtype == np.float32 and 0 <= o.min() and o.max() <= 1
            g.play(int(rng.choice(np.flatnonzero(mask))))
        assert sum(g.points) == 90 and sum(g.tricks) == 16 and sum(g.rewards) == 0
        t = g.totals()
        win = 0 if t[0] > t[1] else 1 if t[1] > t[0] else g.last_winner
        assert g.rewards[win] == (2 if g.tricks[1 - win] == 0 else 1)
        assert replay(g.record()).history == g.history


def test_observation_hides_the_opponents_cards_and_the_stock_order():
    """Shuffling every card the seat cannot know (the opponent's unknown cards and the
    stock, the turned-up card staying last) leaves its observation unchanged."""
    rng = np.random.default_rng(5)
    for k in range(200):
        g = LizanyGame(seed=1000 + k)
        for _ in range(int(rng.integers(0, 32))):
            g.play(int(rng.choice(cards_of(g.legal_cards()))))
        for me in (0, 1):
            opp = 1 - me
            o = g.observe(me)
            hidden_opp = g.hands[opp] & ~g.known[opp]
            assert not o[OBS["hand"][0]:OBS["hand"][0] + 32][cards_of(hidden_opp)].any()
            face_down = [c for c in g.stock if c != g.trump_card]
            pool = cards_of(hidden_opp) + face_down
            h = LizanyGame(seed=1000 + k)
            h.__dict__.update({key: (list(v) if isinstance(v, list) else v)
                               for key, v in g.__dict__.items()})
            perm = [pool[i] for i in rng.permutation(len(pool))]
            n = popcount(hidden_opp)
            h.hands[opp] = (g.hands[opp] & ~hidden_opp) | mask_of(perm[:n])
            h.stock = perm[n:] + ([g.trump_card] if g.trump_card in g.stock else [])
            assert np.array_equal(h.observe(me), o)


def test_state_is_perfect_information():
    g = LizanyGame(deck=DECK)
    st = g.state()
    assert np.array_equal(st[:OBS_SIZE], g.observe(0))
    assert mask_of(np.flatnonzero(st[OBS_SIZE:OBS_SIZE + 32]).tolist()) == g.hands[1]
    order = st[OBS_SIZE + 32:]
    assert [CARD_CODES[c] for c in np.argsort(-order)[:16][::-1]] == DECK[17:] + ["7a"]


def test_same_seed_same_run_and_reset_deck():
    def run(seed):
        e = lizany.env()
        e.reset(seed=seed)
        bot = RandomRobot(seed)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else bot.act(obs))
        return e.unwrapped.record
    assert run(7) == run(7)
    assert run(7)["deck"] != run(8)["deck"]
    e = lizany.raw_env()
    e.reset(options={"deck": [card_index(c) for c in DECK]})
    assert e.record["deck"] == DECK and e.record["result"] is None


def test_env_rewards_are_the_deal_rewards():
    e = lizany.env()
    e.reset(seed=3)
    bot = RandomRobot(3)
    total = dict.fromkeys(lizany.AGENTS, 0.0)
    for agent in e.agent_iter():
        obs, rew, term, trunc, _ = e.last()
        total[agent] += rew
        e.step(None if term or trunc else bot.act(obs))
    rec = e.unwrapped.record
    assert [total[a] for a in lizany.AGENTS] == rec["result"]["rewards"]
    assert sum(total.values()) == 0


# --- errors ---------------------------------------------------------------------------------

def test_bad_decks_and_actions():
    e = lizany.raw_env()
    with pytest.raises(CardError, match="exactly 32"):
        e.reset(options={"deck": DECK[:31]})
    with pytest.raises(CardError, match="repeated"):
        e.reset(options={"deck": DECK[:31] + [DECK[0]]})
    with pytest.raises(CardError, match="unknown card code"):
        e.reset(options={"deck": DECK[:31] + ["Xx"]})
    e.reset(options={"deck": DECK})
    with pytest.raises(IllegalActionError, match="not in its hand"):
        e.step("play:7h")
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(32)
    with pytest.raises(IllegalActionError, match="int index"):
        e.step(True)
    with pytest.raises(IllegalActionError, match="must act"):
        e.step(None)
    with pytest.raises(ActionError, match="unknown lízaný action"):
        e.step("lay_down")
    assert e.game.history == []  # nothing applied
    e.step("play:ah")  # any case of the card code
    assert e.legal_labels("player_0") == [] and len(e.legal_labels()) == 8


def test_record_round_trip_and_bad_records():
    g = LizanyGame(seed=21)
    play_out(g, np.random.default_rng(0))
    rec = g.record()
    again = replay(rec)
    assert again.result() == g.result() and again.deck == g.deck
    bad = [
        ({**rec, "format": "x"}, "format"),
        ({**rec, "rules": {"rules": "voleny"}}, "rules"),
        ({**rec, "deck": rec["deck"][:31] + rec["deck"][:1]}, "deck"),
        ({**rec, "actions": rec["actions"][:-1]}, "actions"),
        ({**rec, "actions": [[1 - rec["actions"][0][0], rec["actions"][0][1]]]}, "actions"),
        ({**rec, "actions": [[0, "play:Zz"]]}, "actions"),
        ({**rec, "actions": rec["actions"] + [[0, "play:Ah"]]}, "actions"),
        ({**rec, "result": {**rec["result"], "rewards": [0, 0]}}, "result"),
        ({**rec, "extra": 1}, "extra"),
        ({k: v for k, v in rec.items() if k != "deck"}, "deck"),
    ]
    for r, field in bad:
        with pytest.raises(RecordError) as ei:
            replay(r)
        assert ei.value.field == field
    first, second = rec["actions"][:2]
    with pytest.raises(RecordError, match="action #1 .*not in its hand"):  # a played card
        replay({**rec, "actions": [first, [second[0], first[1]]] + rec["actions"][2:]})
    with pytest.raises(RecordError):
        replay([rec])


# --- robots and the arena -------------------------------------------------------------------

def test_make_robot_for_lizany():
    assert isinstance(make_robot("lizany_table"), LizanyRuleRobot)
    assert isinstance(make_robot("table", rules="lizany"), LizanyRuleRobot)
    assert isinstance(make_robot("random", rules={"rules": "lizany"}), RandomRobot)
    with pytest.raises(ValueError, match="cannot play lízaný"):
        make_robot("os_random", rules="lizany")  # OpenSpiel's robots need the game view
    with pytest.raises(ValueError, match="only rules='lizany'"):
        make_robot("lizany_table", rules="voleny")


def test_rule_robot_plays_legally_and_takes_its_marriages():
    bot = LizanyRuleRobot()
    g = LizanyGame(deck=DECK)
    first = bot.act({"observation": g.observe(0), "action_mask": g.legal_mask(0)})
    assert CARD_CODES[first] in ("Qh", "Kh")  # a marriage first
    rng = np.random.default_rng(1)
    for k in range(50):
        g = LizanyGame(seed=k)
        tick = step_cap("lizany")
        while not g.over:
            tick()
            s = g.to_move
            a = bot.act({"observation": g.observe(s), "action_mask": g.legal_mask(s)}) \
                if s == k % 2 else int(rng.choice(cards_of(g.legal_cards())))
            g.play(a)


def test_rule_robot_beats_random_in_a_duplicate_match():
    res = duplicate_match({"table": "table", "random": "random"}, deals=300, seed=1,
                          rules={"rules": "lizany"}, progress=False, n_boot=500)
    assert res.rules == "lizany" and res.seatings == [(0, 1), (1, 0)]
    lo, hi = res.ci()
    assert lo[0] > 0.3 and res.means()[0] == -res.means()[1]
    assert res.stats[0]["win_rate"] > 0.6
    roles = res.by_role(0)
    assert set(roles) == {"leader", "second"} and roles["leader"] > 0
    assert "lízaný duplicate match: 300 deals x 2 seatings" in res.table()
    with pytest.raises(ValueError, match="do not apply to rules='lizany'"):
        duplicate_match({"a": "random"}, deals=1, rules={"rules": "lizany", "tariff": "csm"})


def test_a_lizany_match_in_processes_is_the_same_match():
    """``jobs=2`` plays lízaný's deals in two processes (its searching robots take
    milliseconds a decision): every robot is reseeded per deal and seating, so the match
    is the one ``jobs=1`` plays, deal by deal; Ray is refused by name."""
    kw = {"deals": 12, "seed": 4, "rules": {"rules": "lizany"}, "progress": False,
          "n_boot": 100}
    robots = {"pimc": "pimc(worlds=2, time_limit=None)", "random": "random"}  # no clock
    one = duplicate_match(robots, **kw)
    two = duplicate_match(robots, jobs=2, **kw)
    assert np.array_equal(one.per_deal, two.per_deal)
    assert [o[0]["payments"] for o in one.outcomes] == [o[0]["payments"] for o in two.outcomes]
    with pytest.raises(ValueError, match="plays on this machine: expected backend 'process'"):
        duplicate_match(robots, backend="ray", **kw)


def test_arena_command_line_lizany(tmp_path):
    cmd = [sys.executable, "-m", "mariash_env.arena", "--rules", "lizany", "--robots",
           "table,random", "--deals", "20", "--quiet", "--no-plot", "--out", str(tmp_path)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "lízaný duplicate match: 20 deals x 2 seatings" in p.stdout
    assert (tmp_path / "deals.csv").read_text().count("\n") == 21
    bad = [sys.executable, "-m", "mariash_env.arena", "--rules", "lizany", "--robots",
           "os_ismcts,random", "--deals", "2", "--quiet", "--out", str(tmp_path)]
    p = subprocess.run(bad, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and p.stderr.strip().startswith("error:")
    assert "cannot play lízaný" in p.stderr and "Traceback" not in p.stderr


def test_a_seat_buffer_or_field_out_of_range_is_refused_not_read():
    """Memory safety: the compiled core checks no bounds, so ``observe`` of a seat the
    deal has not (``observe(10**7)`` crashed the interpreter) or into a short buffer, a
    card out of the deck played, a short record or a deck that is no permutation dealt,
    a field set to an index the core would read past its tables, a stock card out of the
    deck or twice: a ValueError naming it, and the record as it was."""
    g = LizanyGame(seed=1)
    before = g.st.copy()
    for bad in (2, -1, 10**7):
        with pytest.raises(ValueError, match="the observing seat must be 0 or 1"):
            g.observe(bad)
    with pytest.raises(ValueError, match="out is shorter than the observation"):
        g.observe(0, np.zeros(5, np.float32))
    from mariash_env.games.lizany import core as C

    with pytest.raises(ValueError, match="mask is shorter"):
        C.observe_into(g.st, np.zeros(1, np.int32), 0, np.zeros(OBS_SIZE, np.float32),
                       np.zeros(3, np.int8))
    # the compiled core's own entry points (the batched engine's)
    for bad in (32, -1, 10**7):
        with pytest.raises(ValueError, match="play_card: the card must be 0..31"):
            C.play_card(g.st, bad)
    short = np.zeros(3, np.int32)
    for call in (lambda: C.legal_cards(short), lambda: C.play_card(short, 0),
                 lambda: C.new_deal(short, np.arange(32))):
        with pytest.raises(ValueError, match="whole lízaný record"):
            call()
    for deck, says in ((np.arange(3), "holds the 32 cards"),
                       (np.full(32, 10**6), "not a card 0..31"),
                       (np.r_[32, 1:32], "not a card 0..31"),  # the bounds themselves
                       (np.r_[-1, 1:32], "not a card 0..31"),
                       (np.zeros(32, np.int64), "a card twice")):
        with pytest.raises(ValueError, match=says):
            C.new_deal(g.st, deck)
    for field, bad in (("to_move", 2), ("table", 32), ("trump_card", -1), ("trick_no", 17),
                       ("last_winner", 5), ("over", 2)):
        with pytest.raises(ValueError, match=rf"{field} = {bad}: expected"):
            setattr(g, field, bad)
    with pytest.raises(ValueError, match="marriage_by = 7"):
        g.marriage_by[2] = 7
    with pytest.raises(ValueError, match="marriage_by = 3"):
        g.marriage_by = [-1, -1, -1, 3]
    with pytest.raises(ValueError, match="hand = 4294967296: expected a set of the 32 cards"):
        g.hands[0] = 1 << 32
    for stock in ([40], [3, 3], list(range(17))):
        with pytest.raises(ValueError, match="stock"):
            g.stock = stock
    assert np.array_equal(g.st, before)
    assert g.observe(1).shape == (OBS_SIZE,)


# Every front end takes lízaný with the options it plays anyway (deals=1, players=2), as
# OpenSpiel's parameters always did; any other value is a RulesError naming the option.
_FRONT_ENDS = {
    "env": lambda **kw: mariash_env.env(rules="lizany", **kw),
    "parallel_env": lambda **kw: mariash_env.parallel_env(rules="lizany", **kw),
    "SingleAgentEnv": lambda **kw: mariash_env.SingleAgentEnv(rules="lizany", **kw),
    "VectorEnv": lambda **kw: VectorEnv(2, rules="lizany", **kw),
    "arena": lambda **kw: duplicate_match({"a": "random", "b": "random"}, deals=1,
                                          rules={"rules": "lizany", **kw}),
}


@pytest.mark.parametrize("front_end", list(_FRONT_ENDS))
def test_every_front_end_takes_what_lizany_plays(front_end):
    make = _FRONT_ENDS[front_end]
    make(players=2)
    make(deals=np.int64(1), players=2)
    for bad in ({"deals": 2}, {"players": 3}, {"players": True}, {"tariff": "csm"}):
        with pytest.raises((RulesError, ValueError), match=next(iter(bad))):
            make(**bad)
