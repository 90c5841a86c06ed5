"""The four-player table, ``players=4`` (RULES.md §11.3, the English rules guide).

The dealer ``d`` sits out; ``(d+1)%4``, ``(d+2)%4``, ``(d+3)%4`` play the three-player deal
as forehand, middlehand and the dealer's role; the sitting-out dealer pays or collects
with the defence (actor ``+3A``, each other player ``-A``); the deal passes to the left;
a partie is 16 deals.  Scripted deals reuse the deck ``D1`` of ``test_rules_bidding``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mariash_env
from mariash_env import Game, OptionError, RulesError
from mariash_env.cards import codes_of
from mariash_env.core import observe as O
from mariash_env.core import observe4 as Q
from mariash_env.core import state as S
from mariash_env.records import RecordError, replay_record, save_records
from mariash_env.rules import make_rules
from mariash_env.vector import VectorEnv
from tests.helpers import play, step_cap
from tests.test_rules_bidding import D1, F5, F7, FULL_TRICKS, FULL_WINNERS, MID, next_deck

ROOT = Path(__file__).resolve().parent.parent
PRIVATE = slice(0, O.O_TRUMP_SUIT)  # hand, laid, took, talon, trump_card


def game4(dealer=0, deck=D1, cuts=None, **rules):
    g = Game(players=4, **rules)
    g.new_partie(seed=0, deck=deck, dealer=dealer, cuts=cuts)
    return g


def full_deal(g):
    """D1's played deal (test_s2_gathering_after_played_deal): forehand's sedma, won."""
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "good", "good"])
    play(g, ["announce:sedma", "good", "good"])
    for trick in FULL_TRICKS:
        for c in trick:
            g.step(f"play:{c}")
    assert g.deal_over


def finish_first_legal(g):
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(g.legal_actions()[0])


# --------------------------------------------------------------------------------------
# Seats: the dealer sits out, forehand is (d+1)%4
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [0, 1, 2, 3])
def test_s11_3_dealer_sits_out_and_forehand_is_next(d):
    """§11.3 with §2's deck positions: (d+1)%4 forehand 0-6, 17-21; (d+2)%4 7-11, 22-26;
    (d+3)%4 12-16, 27-31; the dealer holds no card and is never to move."""
    g = game4(d)
    f, m, r = (d + 1) % 4, (d + 2) % 4, (d + 3) % 4
    assert g.sitting_out == d == g.dealer and g.to_move == f
    assert set(codes_of(g.hand(f))) == set(D1[0:7] + D1[17:22])
    assert set(codes_of(g.hand(m))) == set(D1[7:12] + D1[22:27])
    assert set(codes_of(g.hand(r))) == set(D1[12:17] + D1[27:32])
    assert g.hand(d) == 0 and g.core_seat(d) == -1
    assert [g.player(c) for c in range(3)] == [f, m, r]
    assert not g.legal_mask(d).any()
    movers = set()
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        movers.add(g.to_move)
        assert not g.legal_mask(d).any() and g.legal_mask(g.to_move).any()
        g.step(g.legal_actions()[-1])
    assert d not in movers and movers <= {f, m, r}


def test_s11_3_env_never_selects_the_dealer():
    """The idle agent stays in ``agents`` and is never ``agent_selection``; it gets its
    reward when a deal ends (PettingZoo AEC)."""
    e = mariash_env.env(players=4, deals=4)
    e.reset(seed=3)
    assert e.possible_agents == list(mariash_env.AGENTS4) == [f"player_{i}" for i in range(4)]
    rng = np.random.default_rng(3)
    dealt = 0
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, rew, term, trunc, _ = e.last()
        totals[agent] += rew
        if term or trunc:
            e.step(None)
            continue
        raw = e.unwrapped
        d = raw.game.sitting_out
        assert agent != f"player_{d}" and len(e.agents) == 4
        assert raw.legal_labels(f"player_{d}") == []
        assert not e.observe(f"player_{d}")["action_mask"].any()
        dealt += 1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert dealt > 0
    assert [totals[a] for a in e.possible_agents] == raw.game.scores
    assert [r["dealer"] for r in raw.records] == [0, 1, 2, 3]


# --------------------------------------------------------------------------------------
# Settlement: actor +3A, each of the other three -A
# --------------------------------------------------------------------------------------


def test_s11_3_settlement_won_game_dealer_pays_with_the_defence():
    """D1: forehand's sedma won, A = 6 (three-player payments -6, 12, -6); at four the
    dealer pays 6 too: actor +18, the other three -6 each."""
    three = Game()
    three.new_partie(seed=0, deck=D1, dealer=0)
    full_deal(three)
    assert three.settlement()["payments"] == [-6, 12, -6]
    g = game4(0)
    full_deal(g)
    s = g.settlement()
    assert s["actor"] == 1 and s["amount"] == 6 and s["sitting_out"] == 0
    assert s["payments"] == [-6, 18, -6, -6] and g.scores == [-6, 18, -6, -6]
    assert [b["amount"] for b in s["bets"]] == [b["amount"] for b in three.settlement()["bets"]]


def test_s11_3_settlement_lost_betl_with_flek():
    """Dealer 3 sits out; forehand 0 plays betl, middlehand 1 fleks it (5 x 2 = 10), the
    betl breaks at trick 1: the actor pays 10 to each of the other three, the dealer too."""
    g = game4(3)
    play(g, ["trump:Ka", "contract:betl", "discard:Ka", "discard:8h", "good", "good"])
    assert g.phase_name == "flek" and g.to_move == 1
    play(g, ["flek:game", "good", "good", "good"])
    assert g.phase_name == "play" and g.to_move == 0
    play(g, ["play:Aa", "play:9b"])
    assert g.step("play:8a")
    s = g.settlement()
    assert s["contract"] == "betl" and s["actor"] == 0 and s["bets"][0]["level"] == 1
    assert s["amount"] == -10 and s["payments"] == [-30, 10, 10, 10]


def test_s11_3_settlement_cap_is_per_defender():
    """payment_cap caps A, what each defender (the sitting-out dealer too) pays."""
    g = game4(0, payment_cap=4)
    full_deal(g)
    assert g.settlement()["payments"] == [-4, 12, -4, -4]


# --------------------------------------------------------------------------------------
# The partie: the deal passes left, 16 deals, gathering of three piles
# --------------------------------------------------------------------------------------


def test_s11_3_deal_passes_left_and_three_piles_are_gathered():
    """After D1's played deal (dealer 0 out, forehand 1) the piles of forehand 1, middlehand
    2 and the dealer's role 3 are stacked as §2 and cut; player 1 deals and sits out,
    2 is forehand."""
    g = game4(0, cuts=[5])
    full_deal(g)
    f_pile = ["8b", "9l"]
    m_pile: list[str] = []
    for trick, w in zip(FULL_TRICKS, FULL_WINNERS):
        (f_pile if w == "F" else m_pile).extend(trick)
    expected = next_deck(f_pile + m_pile, 5)
    assert g.next_deal()
    assert g.deck() == expected and int(g.st[S.CUT]) == 5
    assert g.dealer == g.sitting_out == 1 and g.to_move == 2 and g.hand(1) == 0
    assert set(codes_of(g.hand(2))) == set(expected[0:7] + expected[17:22])
    assert set(codes_of(g.hand(3))) == set(expected[7:12] + expected[22:27])
    assert set(codes_of(g.hand(0))) == set(expected[12:17] + expected[27:32])
    assert g.scores == [-6, 18, -6, -6]  # the totals stay with the players


def test_s11_3_conceded_deal_gathers_hands_in_dealt_order():
    g = game4(2, cuts=[13])
    play(g, ["trump:Ka", "contract:suit", "discard:9l", "discard:8b", "good", "good"])
    play(g, ["announce:hra", "good", "good"])
    assert g.settlement()["end"] == "conceded"
    f_pile = ["9l", "8b"] + [c for c in F7 + F5 if c not in ("8b", "9l")]
    assert g.next_deal()
    assert g.deck()[:32] == next_deck(f_pile + MID + D1[12:17] + D1[27:32], 13)


@pytest.mark.parametrize("first", [0, 2])
def test_s11_3_partie_is_16_deals_each_seat_deals_four_times(first):
    g = Game(players=4)
    assert g.rules.deals == 16
    g.new_partie(seed=first, dealer=first)
    dealers = []
    tick = step_cap(g, deals=None)
    while True:
        tick()
        dealers.append(g.dealer)
        finish_first_legal(g)
        if not g.next_deal():
            break
    assert dealers == [(first + i) % 4 for i in range(16)]
    assert g.partie_over and sum(g.scores) == 0
    assert make_rules(players=4, deals=5).deals == 5
    assert make_rules(players=3).deals == 12


# --------------------------------------------------------------------------------------
# Observations
# --------------------------------------------------------------------------------------


def test_s11_3_observation_layout_and_three_player_layout_unchanged():
    """The fourth relative seat: who sits out, four totals; the deal block is the
    three-player observation byte for byte."""
    assert (O.OBS_SIZE, O.OBS_VERSION, mariash_env.env().observation_space("player_0")[
        "observation"].shape) == (900, 1, (900,))
    e = mariash_env.env(players=4)
    assert e.observation_space("player_3")["observation"].shape == (Q.OBS4_SIZE,)
    assert e.unwrapped.state_space.shape == (Q.STATE4_OBS_SIZE,)
    g = game4(0)
    full_deal(g)
    for p in range(4):
        o = g.observation(p)
        c = g.core_seat(p)
        if c >= 0:
            three = np.empty(O.OBS_SIZE, np.float32)
            O.encode(g.st, c, three, False)
            np.testing.assert_array_equal(o[:O.OBS_SIZE], three)
        rel = [(q - p) % 4 for q in range(4)]
        assert o[Q.Q_SITTING_OUT + rel[0]] == 1 and o[Q.Q_SITTING_OUT:Q.Q_SCORE4].sum() == 1
        assert [o[Q.Q_SCORE4 + rel[q]] * 100 for q in range(4)] == pytest.approx(g.scores)
        assert o[Q.Q_DEAL_NO4] == 1
    # the core SCORE shows each core seat's player's total (the deal block's score)
    assert [int(x) for x in S.read64(g.st, S.SCORE, 3)] == [g.scores[g.player(c)]
                                                             for c in range(3)]


def _random_partie(seed, deals, visit):
    g = Game(players=4, deals=deals)
    g.new_partie(seed=seed, dealer=seed % 4)
    rng = np.random.default_rng(seed)
    tick = step_cap(g, deals=None)
    while True:
        tick()
        while not g.deal_over:
            tick()
            visit(g)
            g.step(int(rng.choice(g.legal_actions())))
        visit(g)
        if not g.next_deal():
            return g


def test_s11_3_properties_over_random_deals():
    """Over 240 random deals: each zero-sum with actor +3A and every other player -A
    (A the three-player amount of the same deal replayed at three); the sitting-out
    player's observation holds no hidden card and equals forehand's public part."""
    n_deals = 0

    def visit(g):
        d = g.sitting_out
        o = g.observation(d)
        fore = g.observation(g.player(0))
        assert not o[PRIVATE.start:O.O_TRUMP_CARD].any()  # hand, laid, took, talon
        tc = int(g.st[S.TRUMP_CARD])
        public_trump = {tc} if tc >= 0 and g.st[S.TRUMP_PUBLIC] else set()
        assert set(np.flatnonzero(o[O.O_TRUMP_CARD:O.O_TRUMP_SUIT])) == public_trump
        np.testing.assert_array_equal(o[O.O_TRUMP_SUIT:O.OBS_SIZE],
                                      fore[O.O_TRUMP_SUIT:O.OBS_SIZE])
        assert o[Q.Q_SITTING_OUT] == 1

    for seed in range(15):
        g = _random_partie(seed, 16, visit)
        for rec in g.records:
            s = rec["settlement"]
            pay = s["payments"]
            assert sum(pay) == 0 and len(pay) == 4
            a, actor = s["amount"], s["actor"]
            assert pay == [3 * a if p == actor else -a for p in range(4)]
            assert pay[rec["dealer"]] == -a and actor != rec["dealer"]
            three = Game(records=False, deals=1)
            three.new_partie(seed=0, deck=rec["deck"], dealer=2)
            for seat, label in rec["actions"]:
                assert three.player(three.to_move) == (seat - rec["dealer"] - 1) % 4
                three.step(label)
            assert three.settlement()["amount"] == a
            n_deals += 1
    assert n_deals == 240


def test_s11_3_same_seed_same_partie():
    runs = [_random_partie(7, 16, lambda g: None).records for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0]) == 16


# --------------------------------------------------------------------------------------
# The batched engine
# --------------------------------------------------------------------------------------


def test_s11_3_vector_env_sizes():
    """VectorEnv(players=4): 16 deals, four rewards, the four-player observation; the
    step-for-step match with the AEC env is tests/test_vector.py's
    test_aec_env_matches_vector_env[rules2]."""
    venv = VectorEnv(3, seed=1, players=4)
    assert venv.rules.deals == 16 and venv.players == 4
    assert venv.obs_size == Q.OBS4_SIZE and venv.state_obs_size == Q.STATE4_OBS_SIZE
    step = venv.reset()
    assert step.rewards.shape == (3, 4) and step.obs.shape == (3, Q.OBS4_SIZE)
    assert venv.state().shape == (3, Q.STATE4_OBS_SIZE)
    assert set(step.player) == {1}  # dealer 0 sits out; forehand 1 moves first
    assert VectorEnv.bytes_per_game(True, players=4) == VectorEnv.bytes_per_game(True) + 8 + 96


# --------------------------------------------------------------------------------------
# Records, render, bad options
# --------------------------------------------------------------------------------------


def test_s11_3_record_replay_round_trip(tmp_path):
    g = _random_partie(11, 16, lambda g: None)
    recs = list(g.records)
    assert recs[0]["rules"]["players"] == 4 and [r["dealer"] for r in recs[:5]] == [
        3, 0, 1, 2, 3]
    for r in recs:
        assert replay_record(r) == r["settlement"]
    path = tmp_path / "four.jsonl"
    save_records(path, recs)
    run = subprocess.run([sys.executable, "-m", "mariash_env.replay", str(path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "16 record(s) checked, 0 bad" in run.stdout
    bad = [dict(r) for r in recs]
    bad[1]["dealer"] = 2  # dealt by player 0 (the previous forehand): player 3 is to move
    save_records(path, bad)
    run = subprocess.run([sys.executable, "-m", "mariash_env.replay", str(path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 1 and "record 2: field 'actions': action #0" in run.stdout
    wrong = json.loads(json.dumps(recs[0]))
    wrong["dealer"] = 4
    with pytest.raises(RecordError, match="expected a seat 0..3"):
        replay_record(wrong)


def test_s11_3_render_shows_who_sits_out():
    e = mariash_env.env(players=4, render_mode="ansi")
    e.reset(seed=0, options={"dealer": 2})
    text = e.render()
    assert "dealer player_2 (sits out)" in text and "player_2 (sits out" in text
    assert "forhont player_3" in text and "→ player_3 (forhont" in text


def test_s11_3_bad_options():
    with pytest.raises(RulesError, match="players=4 and rules='licitovany' conflict"):
        make_rules(rules="licitovany", players=4)
    for bad in (5, 2, True, 4.0, "4"):
        with pytest.raises(RulesError, match="'players'"):
            make_rules(players=bad)
    with pytest.raises(OptionError, match="expected a seat 0..3"):
        Game(players=4).new_partie(dealer=4)
    with pytest.raises(OptionError, match="expected a seat 0..2"):
        Game().new_partie(dealer=3)
    with pytest.raises(RulesError):
        VectorEnv(2, players=4, rules="licitovany")


# --------------------------------------------------------------------------------------
# The arena: duplicate rotation over four seats
# --------------------------------------------------------------------------------------


def test_s11_3_arena_rotates_robots_over_four_seats():
    from mariash_env.arena import ROLES4, duplicate_match, seatings

    for k, n in ((1, 1), (2, 14), (3, 36), (4, 24), (5, 120)):
        seats = seatings(k, 4)
        assert len(seats) == n and len(set(seats)) == n
        counts = np.zeros((k, 4), int)
        for s in seats:
            for pos, r in enumerate(s):
                counts[r, pos] += 1
        assert (counts == counts[0, 0]).all()  # each robot in each seat equally often
    assert seatings(2) == seatings(2, 3) and len(seatings(3)) == 6  # three seats unchanged
    res = duplicate_match({"table": "table", "random": "random"}, deals=4, seed=2,
                          rules={"players": 4}, progress=False, n_boot=50)
    assert res.per_deal.shape == (4, 2) and len(res.seatings) == 14
    for i, deal in enumerate(res.outcomes):
        for o in deal:
            pay = o["payments"]
            assert len(pay) == 4 and sum(pay) == 0 and o["actor"] != i % 4
            a = pay[o["actor"]] // 3
            assert pay == [3 * a if p == o["actor"] else -a for p in range(4)]
            assert o["decisions"][i % 4] == 0  # the dealer sits out
    # two robots, every seat filled by each equally: the means are opposite
    assert res.per_deal.sum(axis=1) == pytest.approx(0)
    assert list(res.by_role(0)) == list(ROLES4)


def test_s11_3_arena_command_line(tmp_path):
    cmd = [sys.executable, "-m", "mariash_env.arena", "--robots", "table,random", "--deals",
           "2", "--rule", "players=4", "--no-plot", "--quiet", "--out", str(tmp_path)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "2 deals x 14 seatings" in run.stdout and (tmp_path / "deals.csv").exists()
    run = subprocess.run(cmd + ["--rules", "licitovany"], cwd=ROOT, capture_output=True,
                         text=True)
    assert run.returncode == 2 and run.stderr.startswith("error: ")
    assert "players=4 and rules='licitovany'" in run.stderr and "Traceback" not in run.stderr


# Every front end takes four players: the single-agent env (tests/test_single_agent_games.py),
# seat records and the robot service (tests/test_seat_record.py, test_play_service.py), the
# play table (tests/test_play_four.py) and training (tests/test_training_four.py).


def test_s11_3_seat_view_from_game_is_the_players_seat_in_the_deal():
    """Searching robots (PIMC) see a player's seat of the three-seat deal at four."""
    from mariash_env.robots import make_robot
    from mariash_env.robots.view import SeatView

    g = game4(2)
    view = SeatView.from_game(g)  # player 3, forehand: seat 0 of the deal
    assert view.seat == 0 and view.to_move
    np.testing.assert_array_equal(view.observation(), g.observation(3)[:O.OBS_SIZE])
    np.testing.assert_array_equal(view.action_mask(), g.legal_mask(3))
    assert SeatView.from_game(g, 1).seat == 2 and not SeatView.from_game(g, 1).to_move  # role
    robot = make_robot("pimc(worlds=2)", rules=g.rules)
    robot.begin_deal(0)
    assert robot.act_view(view) in g.legal_actions()


@pytest.mark.parametrize("players", [3, 4])
def test_a_player_or_seat_the_game_has_not_is_refused(players):
    """``hand``, ``core_seat`` and ``player`` of a player (seat) the game has not: a
    ValueError naming the range, not a read of another field of the state (``hand(7)``
    read the slot seven past the first hand)."""
    g = Game(players=players)
    g.new_partie(seed=1)
    for bad in (-1, players, 7, 1.0, True):
        for query in (g.hand, g.core_seat):
            with pytest.raises(ValueError, match=rf"invalid player {bad!r}: expected 0\.\."):
                query(bad)
    for bad in (-2, 3, 0.0):
        with pytest.raises(ValueError, match=rf"invalid seat {bad!r}"):
            g.player(bad)
    seats = [g.core_seat(p) for p in range(players)]
    assert sorted(seats) == ([-1] if players == 4 else []) + [0, 1, 2]
    assert [g.player(s) for s in seats if s >= 0] == [p for p, s in enumerate(seats) if s >= 0]
    assert g.player(-1) == -1
