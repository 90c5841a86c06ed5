"""Fine points of the rule variants (RULES.md §11 and the last entry of §12; issue #17)
and exact amounts beyond int32 (§9 with ``max_flek=None``; issue #9.2).

Expected amounts are worked out by hand from the rule text in the comments, never
read from the engine.  ``A`` is the amount per defender: actor +2A, each defender -A.
"""

from __future__ import annotations

import copy
import importlib
from pathlib import Path

import numpy as np
import pytest

from mariash_env import Game
from mariash_env.core import state as S
from mariash_env.core.observe import O_SCORE
from mariash_env.rules import UNLIMITED_FLEK, RulesError, make_rules
from mariash_env.vector import VectorEnv
from tests.helpers import deck_from_hands, play, step_cap

# --------------------------------------------------------------------------------------
# §8 / §12: lay-down under a payment cap (issue #17.1)
# --------------------------------------------------------------------------------------

# The deal: dealer 1, so forehand = seat 2 (the actor), then seats 0 and 1.
CAP_DECK = ("8l Th Qb Kl 8h Qh Ka 9b Aa Al Jh 8a 7l 9a 8b Ab Tl Kb 9h Kh 7h Ql 9l Tb Jl "
            "Ta Ah Qa 7b Ja Jb 7a").split()
CAP_BIDDING = ["trump:8h", "contract:suit", "discard:Ka", "discard:Kb", "good", "good",
               "announce:sto"]
# Five tricks; then seat 2 is on lead holding Qh Kh Ql Kl 9h, every trump and every card
# above its cards gone.  Its card points at a lay-down: 20 taken + Tb Ta (dealt to the
# others, still in hand) 20 + the last trick 10 = 50; no defence marriage.
CAP_TRICKS = ["play:8l", "play:Al", "play:Tl", "play:9b", "play:Ab", "play:Qb", "play:7a",
              "play:7h", "play:Aa", "play:8h", "play:Ah", "play:8b", "play:Jh", "play:7l",
              "play:Th"]


def cap_position(flek_level: int = 0, **rules) -> Game:
    g = Game(deals=1, **rules)
    g.new_partie(seed=0, deck=CAP_DECK, dealer=1)
    play(g, CAP_BIDDING)
    flek_game_to(g, flek_level)
    play(g, CAP_TRICKS)
    assert g.to_move == 2 and g.phase_name == "play" and g.st[S.TRICK_N] == 0
    assert sorted(g.legal_labels()) == sorted(
        ["play:9h", "play:Qh", "play:Kh", "play:Ql", "play:Kl"]
        + (["lay_down"] if "lay_down" in g.legal_labels() else []))
    return g


def flek_game_to(g: Game, level: int) -> None:
    """Raise the game bet to ``level`` (defence the odd levels, the actor the even ones),
    then the side to speak next says good; forehand (the actor) is seat 2 here."""
    for lvl in range(1, level + 1):
        if lvl % 2:
            play(g, ["flek:game", "good", "good"])  # first defender fleks, partner good
        else:
            play(g, ["flek:game", "good"])  # the actor's re
    play(g, ["good", "good"] if level % 2 == 0 else ["good"])
    assert g.phase_name == "play" and g.st[S.BET_LEVEL + S.B_GAME] == level


def amount_if_played(g: Game, first: str) -> int:
    """A of the deal played out from the position, ``first`` led first (its marriage then
    counts first), the rest with the first legal card."""
    g = copy.deepcopy(g)
    g.step(f"play:{first}")
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(next(lab for lab in g.legal_labels() if lab.startswith("play:")))
    return g.settlement()["amount"]


def test_s8_lay_down_withheld_without_cap():
    """§8, §12: sto lost either way, but taking the trump marriage (40) first counts
    50 + 40 = 90 -> 4 * 1 = 4, the leaves' (20) first 70 -> 4 * 3 = 12; hearts H = 2:
    A = -8 or -24.  The order changes the amount: no lay-down."""
    g = cap_position()
    assert "lay_down" not in g.legal_labels()
    assert amount_if_played(g, "Qh") == -8
    assert amount_if_played(g, "Ql") == -24


def test_s12_lay_down_compares_capped_amounts():
    """§12 (last entry): with payment_cap=8 both orders pay min(8, |A|) = 8: lay-down."""
    g = cap_position(payment_cap=8)
    assert "lay_down" in g.legal_labels()
    assert amount_if_played(g, "Qh") == amount_if_played(g, "Ql") == -8
    g.step("lay_down")
    s = g.settlement()
    assert s["end"] == "laid_down" and s["amount"] == -8 and s["payments"] == [8, 8, -16]
    assert s["points"]["actor_cards"] == 50 and s["points"]["actor_marriages"] == 60
    # the line keeps the uncapped amount (hearts, leaves, acorns in seat order: 40 first)
    assert s["bets"][0]["amount"] == -8


@pytest.mark.parametrize("level", [5, 6, 7, 8, 9])
def test_s12_lay_down_at_the_real_cap_with_unlimited_flek(level):
    """§11 payment cap 500 with max_flek=None: the two orders pay 8 * 2^L and 24 * 2^L;
    capped at 500 they agree from level 6 (512) on; at level 5 they are 256 and 500."""
    g = cap_position(level, max_flek=None, payment_cap=500)
    low, high = 8 << level, 24 << level
    same = min(low, 500) == min(high, 500)
    assert same == (level >= 6)
    assert ("lay_down" in g.legal_labels()) == same
    assert amount_if_played(g, "Qh") == -min(low, 500)
    assert amount_if_played(g, "Ql") == -min(high, 500)
    uncapped = cap_position(level, max_flek=None)
    assert "lay_down" not in uncapped.legal_labels()
    assert amount_if_played(uncapped, "Ql") == -high


@pytest.mark.parametrize(("level", "cap"), [(0, 8), (0, None), (5, 500), (6, 500)])
def test_s12_solver_follows_the_capped_lay_down(level, cap):
    """The solver ends a search with the core's lay-down test (one rule, one place): its
    value is the best order's A (the trump marriage first: 8 * 2^L, capped), the same
    with and without that shortcut."""
    from mariash_env.search import solve

    g = cap_position(level, max_flek=None, payment_cap=cap)
    want = -min(8 << level, cap or 1 << 40)
    assert solve(g.st, g.rv).value == want
    assert solve(g.st, g.rv, laydown=False).value == want


# --------------------------------------------------------------------------------------
# §11 / §12: max_flek=None is bounded at level 24 (issue #17.2)
# --------------------------------------------------------------------------------------

# Forehand (seat 0, dealer 2) holds all eight hearts and the top acorns: it takes every
# trick whatever is played.  Middlehand holds the bells marriage (for a hundred against).
BIG_F12 = "Ah Th Kh Qh Jh 9h 8h 7h Aa Ta 7b 8b".split()
BIG_M = "Kb Qb Ab Tb 9b Jb 7l 8l 9l Tl".split()
BIG_D = "Jl Ql Kl Al 7a 8a 9a Ja Qa Ka".split()


def big_deal(deals: int = 1, **rules) -> Game:
    g = Game(deals=deals, max_flek=None, **rules)
    g.new_partie(seed=0, deck=deck_from_hands(BIG_F12[:7], BIG_F12[7:], BIG_M, BIG_D),
                 dealer=2)
    play(g, ["trump:Ah", "contract:suit", "discard:7b", "discard:8b", "good", "good",
             "announce:sedma"])
    return g


def flek_war(g: Game, check: bool = False) -> None:
    """Every bet raised in every round (§5.3, §12) until nothing can be raised: the
    first defender (seat 1) raises for the defence, its partner (seat 2) says good."""
    play(g, ["flek:game", "flek:seven", "against:hundred", "good", "good"])  # round 1
    for rnd in range(2, 25):  # rounds 2..24 raise all three bets
        assert g.to_move == (0 if rnd % 2 == 0 else 1)
        if check:
            assert {lab for lab in g.legal_labels() if lab.startswith("flek:")} == {
                "flek:game", "flek:seven", "flek:hundred_against"}
        play(g, ["flek:game", "flek:seven", "flek:hundred_against", "good"])
        if rnd % 2:
            play(g, ["good"])
    assert levels(g) == [24, 24, 0, 23]
    # round 25 (defence): game and seven are at 24 and no longer offered
    if check:
        assert g.to_move == 1 and set(g.legal_labels()) == {"flek:hundred_against", "good"}
    g.step("flek:hundred_against")
    if check:
        assert levels(g) == [24, 24, 0, 24] and g.legal_labels() == ["good"]
    play(g, ["good", "good"])
    assert g.phase_name == "play"  # nothing is below 24: no round 26


def levels(g: Game) -> list[int]:
    return [int(g.st[S.BET_LEVEL + b]) for b in range(4)]


def test_s12_unlimited_flek_reaches_level_24_and_stops():
    """§12: max_flek=None bounds every bet at level 24 (UNLIMITED_FLEK): each bet is
    offered up to 24, reaches it, and is never offered beyond."""
    assert UNLIMITED_FLEK == 24
    g = big_deal()
    flek_war(g, check=True)
    assert levels(g) == [24, 24, 0, 24]


def test_s12_max_flek_none_documented_as_level_24():
    """§12: the bound is said where the option is documented (env docstring, RulesError)."""
    env_module = importlib.import_module("mariash_env.env")  # (the package's env() shadows it)
    assert "bounded at level 24" in next(line for line in env_module.__doc__.splitlines()
                                         if "max_flek" in line)
    with pytest.raises(RulesError, match=r"None for unlimited \(bounded at level 24"):
        make_rules(max_flek=21)


# --------------------------------------------------------------------------------------
# §9 amounts beyond int32 (issue #9.2)
# --------------------------------------------------------------------------------------

# The big deal at level 24 on every bet, hearts (H = 2), multiplier 2^24 * 2 = 2^25:
# forehand takes all 10 tricks: 90 card points, its trump marriage 40 -> Pa = 130;
# the defence 0 cards, marriages bells, leaves, acorns 60.
# - game (hra): won 130 > 60, silent hundred 2 + 2 * (130 - 100) / 10 = 8;
# - seven: the trump seven wins the last trick, 2;
# - hundred against: lost, counted 0 + 20 (its first marriage):
#   4 * (100 - 20) / 10 + 4 * 40 / 10 = 32 + 16 = 48, paid to the actor.
BIG_M25 = 1 << 25
BIG_LINES = {"game": 8 * BIG_M25, "seven": 2 * BIG_M25, "hundred_against": 48 * BIG_M25}
BIG_A = 58 * BIG_M25  # 1,946,157,056 per defender; the actor gets 3,892,314,112


def play_out(g: Game) -> None:
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(next(lab for lab in g.legal_labels() if lab.startswith("play:")))


def test_s9_payment_beyond_int32_is_exact():
    g = big_deal()
    flek_war(g)
    assert levels(g) == [24, 24, 0, 24]
    play_out(g)
    s = g.settlement()
    assert s["points"] == {"actor_cards": 90, "defence_cards": 0, "actor_marriages": 40,
                           "defence_marriages": 60}
    assert {b["bet"]: b["amount"] for b in s["bets"]} == BIG_LINES
    assert all(b["level"] == 24 for b in s["bets"])
    assert BIG_A == 1_946_157_056 and 2 * BIG_A > 2**31
    assert s["amount"] == BIG_A
    assert s["payments"] == [2 * BIG_A, -BIG_A, -BIG_A]
    assert g.scores == [2 * BIG_A, -BIG_A, -BIG_A]
    assert S.get64(g.st, S.PAY) == 2 * BIG_A  # the state's own record, read exactly
    # the game record replays to the same exact settlement
    from mariash_env.records import replay_record

    assert replay_record(g.records[-1]) == s
    # the AEC environment credits the same exact rewards
    import mariash_env

    env = mariash_env.env(deals=1, max_flek=None)
    env.reset(options={"deck": g.records[-1]["deck"], "dealer": 2})
    total = {a: 0.0 for a in env.possible_agents}
    for _, label in g.records[-1]["actions"]:
        env.step(env.unwrapped.action_index(label))
        for a, r in env.rewards.items():
            total[a] += r
    assert list(total.values()) == [2 * BIG_A, -BIG_A, -BIG_A]


def test_s10_partie_scores_beyond_int32_stay_exact_and_zero_sum():
    """§10: two deals; after the first the actor's score is already above 2^31."""
    g = big_deal(deals=2)
    flek_war(g)
    play_out(g)
    first = g.scores
    assert first[0] > 2**31
    assert g.next_deal()
    rng = np.random.default_rng(5)
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        labels = g.legal_labels()
        g.step(labels[int(rng.integers(len(labels)))])
    pay = g.settlement()["payments"]
    assert g.scores == [first[s] + pay[s] for s in range(3)]
    assert sum(g.scores) == 0 and g.partie_over
    # the observation's score block: running groše / 100 per relative seat
    for me in range(3):
        obs = g.observation(me)
        want = np.array([g.scores[(me + r) % 3] / 100.0 for r in range(3)], np.float32)
        np.testing.assert_array_equal(obs[O_SCORE:O_SCORE + 3], want)


def test_s9_vector_env_rewards_beyond_int32_are_exact():
    """VectorEnv reads the same exact payments (float64 rewards) and scores."""
    g = big_deal()
    flek_war(g)
    venv = VectorEnv(1, seed=0, max_flek=None, deals=2)
    venv.reset()
    venv.restore_states(g.st[None, :].copy())
    step = venv.current()
    tick = step_cap(venv)
    while True:
        tick()
        a = int(np.flatnonzero(step.mask[0])[0])  # the first legal card, as play_out
        step = venv.step(np.array([a]))
        if step.deal_done[0]:
            break
    assert step.rewards[0].tolist() == [2 * BIG_A, -BIG_A, -BIG_A]
    assert S.read64(venv.copy_states(), S.SCORE, 3).tolist() == [[2 * BIG_A, -BIG_A, -BIG_A]]


def test_state_get64_set64_round_trip():
    """Two int32 slots hold any int64 exactly (state.py), per value and per batch."""
    st = S.new_state()
    values = [0, 1, -1, 2**31 - 1, 2**31, -(2**31) - 1, 2**32 + 5, -(2**40) + 3,
              2**62, -(2**63)]
    for v in values:
        S.set64(st, S.PAY, v)
        assert S.get64(st, S.PAY) == v
        assert S.read64(st, S.PAY, 1).tolist() == [v]
    batch = np.zeros((2, S.STATE_SIZE), np.int32)
    for i in range(2):
        for s in range(3):
            S.set64(batch[i], S.SCORE + 2 * s, (i + 1) * (s - 1) * 3_000_000_000)
    assert S.read64(batch, S.SCORE, 3).tolist() == [[-3e9, 0, 3e9], [-6e9, 0, 6e9]]


def test_state_layout_fields_do_not_overlap():
    """Every slot of the record belongs to one field; 64-bit fields are even-aligned."""
    sizes = {f.name: f.slots for f in S.STATE_SCHEMA}
    import inspect

    src = inspect.getsource(S)
    names = [ln.split(" = ")[0] for ln in src.splitlines()
             if " = " in ln and ln.split(" = ")[0].isupper()
             and ln.split(" = ")[1].split()[0].isdigit()]
    start = names.index("DEAL_NO")
    fields = names[start:names.index("STATE_SIZE")]
    used = np.zeros(S.STATE_SIZE, int)
    for name in fields:
        off = getattr(S, name)
        used[off:off + sizes.get(name, 1)] += 1
    assert (used == 1).all()
    assert S.SCORE % 2 == S.PAY % 2 == S.AMT % 2 == 0


def test_records_made_before_the_int64_state_still_replay():
    """Records written by commit 24542a8 (int32 amounts, the uncapped lay-down test):
    random parties under every variant, flek up to level 24, lay-downs; each replays to
    its recorded settlement."""
    from mariash_env.records import load_records, replay_record

    path = Path(__file__).resolve().parent / "data" / "records_24542a8.jsonl"
    records = list(load_records(path))
    assert len(records) == 25
    assert {r["settlement"]["end"] for r in records} >= {"laid_down", "played"}
    assert max(b.get("level", 0) for r in records for b in r["settlement"]["bets"]) == 24
    for rec in records:
        assert replay_record(rec) == rec["settlement"]


def test_s9_settle_a_line_beyond_int32():
    """§9, §12 on a hand-made finished deal: sto a sedma in hearts at level 24, lost with
    0 counted points (the actor never announced its bells marriage, as queen_first
    allows) against defence marriages 40 + 20 + 20; the seven killed (killed_seven=3).
    Sto lost: 4 * (100 - 0) / 10 + 4 * 80 / 10 = 72; seven 3; times H * 2^24 = 2^25.
    The sto line alone, 72 * 2^25 = 2,415,919,104, is beyond int32."""
    from mariash_env.core.settle import settle

    rv = make_rules(max_flek=None, killed_seven=3, tariff="csm").vector()
    st = S.new_state()
    st[S.ACTOR], st[S.CONTRACT], st[S.TRUMP_CARD] = 0, S.C_SUIT, 0  # 7h: hearts trumps
    st[S.ANNOUNCE], st[S.END] = S.AN_STO_SEDMA, S.END_PLAYED
    for b in (S.B_GAME, S.B_SEVEN):
        st[S.BET_EXISTS + b], st[S.BET_LEVEL + b] = 1, UNLIMITED_FLEK
    st[S.PTS:S.PTS + 3] = [0, 50, 40]
    st[S.MARR_SEAT:S.MARR_SEAT + 4] = [1, -1, 2, 1]  # hearts, (bells: none), leaves, acorns
    st[S.MARR_ORD:S.MARR_ORD + 4] = [0, -1, 1, 2]
    st[S.SEVEN_TRICK], st[S.SEVEN_SEAT], st[S.SEVEN_WON] = 3, 0, 1  # played early: lost
    settle(st, rv)
    assert S.read64(st, S.AMT, 5).tolist() == [-72 << 25, -3 << 25, 0, 0, 0]
    assert -72 << 25 < -(2**31)
    assert S.read64(st, S.PAY, 3).tolist() == [-150 << 25, 75 << 25, 75 << 25]
