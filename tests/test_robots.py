"""Robots: the table robot's fixed flek rule (the online table's), its bidding helpers, legality of
every robot's actions over many deals, determinism, and the PIMC robot."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from mariash_env import Game
from mariash_env import actions as A
from mariash_env.cards import CARD_CODES, mask_of
from mariash_env.core import state as S
from mariash_env.robots import (
    PIMCRobot,
    RandomRobot,
    Robot,
    SeatView,
    TableRobot,
    make_robot,
)
from mariash_env.robots.features import (
    betl_holes,
    betl_risk,
    decode,
    decode_dict,
    durch_hole_suits,
)
from mariash_env.robots.pimc import SearchUnavailableError, solver_available
from tests.helpers import deck_from_hands, new_game, play, step_cap

# ----------------------------------------------------------------------------------------------
# Scripted positions.  Dealer 0: forehand = seat 1 (the actor of suit games), middlehand =
# seat 2 (the first defender to speak), dealer = seat 0 (the second defender).
# ----------------------------------------------------------------------------------------------

PREFERRED = ["Al", "Tl", "Kl", "Ql", "Jl", "9l", "8l", "7l", "Ah", "Th", "Kh", "Qh", "Ab", "Tb",
             "Aa", "Ta", "Kb", "Qb", "Ka", "Qa", "Jh", "Jb", "Ja", "9h", "9b", "9a", "8h",
             "8b", "8a", "7h", "7b", "7a"]


def deal(middle: list[str], fh: list[str] | None = None) -> Game:
    """Middlehand gets ``middle``; forehand ``fh`` (12 cards, default: the best cards left
    in PREFERRED order); the dealer the rest."""
    middle = list(middle)
    if fh is None:
        fh = [c for c in PREFERRED if c not in middle][:12]
    rest = [c for c in CARD_CODES if c not in middle and c not in fh]
    return new_game(deck_from_hands(fh[:7], fh[7:], middle, rest), dealer=0)


def suit_discards(g: Game) -> list[str]:
    """Legal discards of forehand, best first: no trumps, no K/Q, no sevens."""
    trump = "hbla"[int(g.st[S.TRUMP_CARD]) >> 3]
    labs = [lab for lab in g.legal_labels() if lab.startswith("discard:")]
    return sorted(labs, key=lambda lab: (lab[-2] == "7", lab[-1] == trump, lab[-2] in "KQ"))


def to_flek(g: Game, trump: str, announce: str = "hra") -> Game:
    play(g, [f"trump:{trump}", "contract:suit"])
    d = suit_discards(g)
    play(g, [f"discard:{d[0][8:]}"])
    d = suit_discards(g)
    play(g, [d[0], "good", "good", f"announce:{announce}"])
    assert g.phase == S.PH_FLEK
    return g


def robot_turn(g: Game, robot: TableRobot | None = None) -> list[str]:
    """Let the robot take its whole flek turn (several actions up to ``good``)."""
    robot = robot or TableRobot()
    seat = g.to_move
    out = []
    for _ in range(8):
        a = robot.act({"observation": g.observation(seat), "action_mask": g.legal_mask()})
        out.append(A.ACTION_LABELS[a])
        g.step(a)
        if a == A.GOOD or g.to_move != seat:
            break
    assert robot.fallbacks == 0
    return out


# Hands for middlehand (seat 2) with leaves trumps.  Forehand then holds Al Tl Kl Ql ...
LOW = ["7h", "8h", "9h", "Jh", "7a", "8a", "9a", "Ja", "8b", "9b"]


def hand(*cards: str) -> list[str]:
    """Ten cards: ``cards`` filled up with low non-trump cards."""
    return list(cards) + [c for c in LOW if c not in cards][: 10 - len(cards)]


class TestDefenceFirstRound:
    """*Hru (i hru v sedmě) flekují s hláškou, se třemi trumfy nebo se třemi esy a
    desítkami; sto se čtyřmi trumfy nebo čtyřmi esy a desítkami, sedmu se třemi
    trumfy, betl se dvěma sedmami, durch se dvěma esy.*"""

    def test_game_with_a_marriage(self):
        g = to_flek(deal(hand("Kb", "Qb")), "Al")
        assert robot_turn(g) == ["flek:game", "good"]

    def test_game_with_three_trumps(self):
        g = to_flek(deal(hand("7l", "8l", "9l")), "Al")
        assert robot_turn(g) == ["flek:game", "good"]

    def test_game_with_three_aces_and_tens(self):
        g = to_flek(deal(hand("Ab", "Tb", "Aa")), "Al")
        assert robot_turn(g) == ["flek:game", "good"]

    def test_no_flek_below_the_thresholds(self):
        # two trumps, two aces-and-tens, no marriage
        g = to_flek(deal(hand("7l", "8l", "Ab", "Tb")), "Al")
        assert robot_turn(g) == ["good"]

    def test_game_in_a_sedma_too(self):
        # forehand holds 7l (sedma); middlehand a marriage
        g = to_flek(deal(hand("Kb", "Qb"), fh=["Al", "Tl", "Kl", "7l", "Ah", "Th", "Ab",
                                                "Tb", "Aa", "Ta", "Ql", "Jl"]), "Al", "sedma")
        assert robot_turn(g) == ["flek:game", "good"]

    def test_seven_with_three_trumps(self):
        fh = ["Al", "Tl", "Kl", "7l", "Ah", "Th", "Ab", "Tb", "Aa", "Ta", "Ql", "Qh"]
        g = to_flek(deal(hand("8l", "9l", "Jl"), fh=fh), "Al", "sedma")
        assert robot_turn(g) == ["flek:game", "flek:seven", "good"]

    def test_seven_not_with_two_trumps(self):
        fh = ["Al", "Tl", "Kl", "7l", "Ah", "Th", "Ab", "Tb", "Aa", "Ta", "Ql", "Qh"]
        g = to_flek(deal(hand("8l", "9l", "Kb", "Qb"), fh=fh), "Al", "sedma")
        assert robot_turn(g) == ["flek:game", "good"]  # the marriage flekks the game only

    def test_sto_needs_four(self):
        fh = ["Al", "Tl", "Kl", "Ql", "Ah", "Th", "Ab", "Tb", "Kh", "Qh", "Jb", "9b"]
        # three trumps, three aces-and-tens and a marriage: enough for hra, not for sto
        g = to_flek(deal(["7l", "8l", "9l", "Aa", "Ta", "Ka", "Qa", "7h", "8h", "9h"], fh=fh),
                    "Al", "sto")
        assert robot_turn(g) == ["good"]
        g = to_flek(deal(["7l", "8l", "9l", "Jl", "7a", "8a", "9a", "7h", "8h", "9h"], fh=fh),
                    "Al", "sto")
        assert robot_turn(g) == ["flek:game", "good"]
        g = to_flek(deal(["Aa", "Ta", "7b", "8b", "7a", "8a", "9a", "7h", "8h", "9h"], fh=fh),
                    "Al", "sto")
        assert robot_turn(g) == ["good"]  # two aces-and-tens
        fh2 = ["Al", "Tl", "Kl", "Ql", "Ah", "Th", "Jl", "9l", "Kh", "Qh", "Jb", "9b"]
        g = to_flek(deal(["Aa", "Ta", "Ab", "Tb", "7a", "8a", "9a", "7h", "8h", "9h"], fh=fh2),
                    "Al", "sto")
        assert robot_turn(g) == ["flek:game", "good"]  # four aces-and-tens

    def test_seven_against_with_the_seven_and_five_trumps(self):
        mid = hand("7l", "8l", "9l", "Jl", "Ql")
        g = to_flek(deal(mid), "Al")
        assert robot_turn(g) == ["against:seven", "flek:game", "good"]
        mid = hand("7l", "8l", "9l", "Jl")  # four trumps: no seven against
        g = to_flek(deal(mid), "Al")
        assert robot_turn(g) == ["flek:game", "good"]

    def test_hundred_against_only_with_trump_marriage_and_five_sharps(self):
        fh = ["Al", "Tl", "Jl", "9l", "Ah", "Th", "8l", "7l", "Kh", "Qh", "Jh", "9h"]
        mid = ["Kl", "Ql", "Ab", "Tb", "Aa", "Ta", "7a", "8a", "9a", "Ja"]  # 4 aces-and-tens
        g = to_flek(deal(mid, fh=fh), "Al")
        assert robot_turn(g) == ["flek:game", "good"]
        mid = ["Kl", "Ql", "Ab", "Tb", "Aa", "Ta", "7a", "8a", "9a", "Ja"]
        fh = ["Al", "Jl", "9l", "8l", "Ah", "Th", "7l", "Jh", "Kh", "Qh", "9h", "8h"]
        mid = ["Kl", "Ql", "Tl", "Ab", "Tb", "Aa", "Ta", "8a", "9a", "Ja"]  # 5 with Tl
        g = to_flek(deal(mid, fh=fh), "Al")
        assert robot_turn(g) == ["against:hundred", "flek:game", "good"]

    def test_betl_with_two_sevens_and_durch_with_two_aces(self):
        for mid, expect in ((hand("7b", "7a"), ["flek:game", "good"]),
                            (["7b", "8h", "9h", "Jh", "8a", "9a", "Ja", "8b", "9b", "Tb"],
                             ["good"])):
            g = deal(mid)
            play(g, ["trump:Al", "contract:betl", "discard:Al", "discard:Tl", "good", "good"])
            assert g.phase == S.PH_FLEK and g.to_move == 2
            assert robot_turn(g) == expect
        for mid, expect in ((hand("Ab", "Aa"), ["flek:game", "good"]),
                            (hand("Ab", "Kb"), ["good"])):
            fh = [c for c in PREFERRED if c not in mid][:12]
            g = deal(mid, fh=fh)
            play(g, ["trump:Al", "contract:durch", f"discard:{fh[-1]}", f"discard:{fh[-2]}"])
            assert g.phase == S.PH_FLEK and g.to_move == 2
            assert robot_turn(g) == expect


class TestActorAndLaterRounds:
    """*Když robot hraje sám, odpoví na flek re jen s velmi silnou kartou ...; hru proti mu
    ohlášenou zaflekuje ...; tutti řeknou jen výjimečně ...; boty nehrají.*"""

    def _flekked(self, fh: list[str], announce: str = "hra", bets=("flek:game",)) -> Game:
        mid = [c for c in reversed(PREFERRED) if c not in fh][:10]
        g = to_flek(deal(mid, fh=fh), fh[0], announce)
        play(g, [*bets, "good", "good"])
        assert g.to_move == 1 and g.st[S.FLEK_ROUND] == 2
        return g

    def test_re_on_the_game_with_six_trumps(self):
        fh = ["Al", "Kl", "Ql", "Jl", "9l", "8l", "Ah", "Th", "Kh", "Qh", "Kb", "Qb"]
        assert robot_turn(self._flekked(fh)) == ["flek:game", "good"]

    def test_re_with_five_trumps_ace_ten_and_four_sharps(self):
        fh = ["Al", "Tl", "Kl", "Ql", "9l", "Ah", "Th", "Kh", "Qh", "Kb", "Qb", "Jb"]
        assert robot_turn(self._flekked(fh)) == ["flek:game", "good"]
        # five trumps with ace and ten but only three aces-and-tens: no re
        fh = ["Al", "Tl", "Kl", "Ql", "9l", "Ah", "Jh", "Kh", "Qh", "Kb", "Qb", "Jb"]
        assert robot_turn(self._flekked(fh)) == ["good"]
        # five trumps without the ten: no re
        fh = ["Al", "Kl", "Ql", "Jl", "9l", "Ah", "Th", "Kh", "Qh", "Ab", "Kb", "Qb"]
        assert robot_turn(self._flekked(fh)) == ["good"]

    def test_re_on_the_seven_with_six_trumps_including_it(self):
        fh = ["Al", "Kl", "Ql", "Jl", "9l", "7l", "Ah", "Th", "Kh", "Qh", "Kb", "Qb"]
        g = self._flekked(fh, "sedma", ("flek:game", "flek:seven"))
        assert robot_turn(g) == ["flek:game", "flek:seven", "good"]
        fh = ["Al", "Kl", "Ql", "Jl", "7l", "Ah", "Th", "Kh", "Qh", "Kb", "Qb", "Jb"]
        g = self._flekked(fh, "sedma", ("flek:game", "flek:seven"))
        assert robot_turn(g) == ["good"]

    def test_no_re_on_sto(self):
        fh = ["Al", "Tl", "Kl", "Ql", "Jl", "9l", "8l", "Ah", "Th", "Ab", "Tb", "Aa"]
        g = self._flekked(fh, "sto")
        assert robot_turn(g) == ["good"]

    def test_flek_on_against_bets(self):
        fh = ["Al", "Tl", "Kl", "Ql", "Ah", "Th", "Jh", "9h", "Kh", "Qh", "Ab", "Jb"]
        mid = ["7l", "8l", "9l", "Jl", "7a", "8a", "9a", "Ja", "8b", "9b"]
        g = to_flek(deal(mid, fh=fh), "Al")
        play(g, ["against:seven", "good", "good"])
        assert robot_turn(g) == ["flek:seven_against", "good"]  # four trumps
        # defence never answers with re
        assert g.to_move == 2
        assert robot_turn(g) == ["good"]
        fh = ["Al", "Tl", "Kl", "Jh", "Ah", "Th", "Ab", "9h", "Kh", "Qh", "Tb", "Jb"]
        g = to_flek(deal(mid, fh=fh), "Al")
        play(g, ["against:seven", "good", "good"])
        assert robot_turn(g) == ["good"]  # three trumps

    def test_flek_on_hundred_against(self):
        fh = ["Al", "Tl", "Jl", "9l", "Ah", "Th", "8l", "7l", "Jh", "9h", "Ab", "Jb"]
        mid = ["Kh", "Qh", "7h", "8h", "7a", "8a", "9a", "Ja", "8b", "9b"]
        g = to_flek(deal(mid, fh=fh), "Al")
        play(g, ["against:hundred", "good", "good"])
        assert robot_turn(g) == ["flek:hundred_against", "good"]  # five aces-and-tens

    def test_tutti_only_with_trump_marriage_or_two_marriages(self):
        fh = ["Al", "Tl", "Jl", "9l", "8l", "7l", "Ah", "Th", "Ab", "Tb", "Aa", "Ta"]
        for mid, expect in ((["Kl", "Ql", "7h", "8h", "7a", "8a", "9a", "Ja", "8b", "9b"],
                             ["flek:game", "good"]),
                            (["Kh", "Qh", "Kb", "Qb", "7a", "8a", "9a", "Ja", "8b", "9b"],
                             ["flek:game", "good"]),
                            (["Kh", "Qh", "7h", "8h", "7a", "8a", "9a", "Ja", "8b", "9b"],
                             ["good"])):
            g = to_flek(deal(mid, fh=fh), "Al")
            play(g, ["flek:game", "good", "good", "flek:game", "good"])
            assert g.to_move == 2 and g.st[S.FLEK_ROUND] == 3
            assert robot_turn(g) == expect
            if expect[0] == "flek:game":
                play(g, ["good"])
                assert g.to_move == 1
                assert robot_turn(g) == ["good"]  # no boty

    def test_re_on_betl_with_three_sevens_and_nothing_above_nine(self):
        low12 = ["7h", "8h", "9h", "7b", "8b", "9b", "7l", "8l", "9l", "7a", "8a", "9a"]
        mid = ["Ah", "Th", "Kh", "Qh", "Jh", "Ab", "Tb", "Kb", "Qb", "Jb"]
        for discards, expect in ((["8a", "9a"], ["flek:game", "good"]),  # four sevens
                                 (["7a", "9a"], ["flek:game", "good"]),  # three
                                 (["7a", "7b"], ["good"])):  # two sevens
            g = deal(mid, fh=low12)
            play(g, ["trump:7h", "contract:betl", *(f"discard:{c}" for c in discards),
                     "good", "good", "flek:game", "good", "good"])
            assert g.to_move == 1
            assert robot_turn(g) == expect
        # a card above the nine: no re
        fh = ["7h", "8h", "9h", "7b", "8b", "9b", "7l", "8l", "Jl", "7a", "8a", "9a"]
        mid2 = ["Ah", "Th", "Kh", "Qh", "Jh", "Ab", "Tb", "Kb", "Qb", "Jb"]
        g = deal(mid2, fh=fh)
        play(g, ["trump:7h", "contract:betl", "discard:9a", "discard:8a", "good", "good",
                 "flek:game", "good", "good"])
        assert robot_turn(g) == ["good"]


# ----------------------------------------------------------------------------------------------
# Bidding helpers and decisions
# ----------------------------------------------------------------------------------------------


def test_hole_counting():
    assert betl_holes(mask_of(["7h", "8h", "9h", "7b"])) == 0
    assert betl_holes(mask_of(["7h", "9h"])) == 1  # the eight
    assert betl_holes(mask_of(["8h"])) == 1
    assert betl_holes(mask_of(["8h"]), known_out=mask_of(["7h"])) == 0
    assert betl_holes(mask_of(["Ah"])) == 7
    assert betl_risk(mask_of(["7h", "8h", "Kb"])) == 0  # the king goes on the first lead
    assert betl_risk(mask_of(["7h", "Th", "Kb"])) == 2
    # durch: A K Q of a suit with the rest below: no hole; A K 9: a hole.
    assert durch_hole_suits(mask_of(["Ah", "Kh", "Qh"])) == 0
    assert durch_hole_suits(mask_of(["Ah", "Kh", "9h"])) == 1
    # a run from the ace as long as the opponents' cards: no hole
    assert durch_hole_suits(mask_of(["Ah", "Kh", "Qh", "Jh", "7h"])) == 0
    assert durch_hole_suits(mask_of(["Ah", "Kh", "Qh", "7h"])) == 1


def test_trump_choice_and_contract():
    robot = TableRobot()
    # strong leaves in the first seven: the lowest leaves card is the trump card
    g = deal(["7h", "8h", "9h", "Jh", "7a", "8a", "9a", "Ja", "8b", "9b"],
             fh=["Al", "Tl", "Kl", "9l", "Ah", "7b", "Jb", "Ql", "Jl", "Ab", "Tb", "Kb"])
    a = robot.act({"observation": g.observation(1), "action_mask": g.legal_mask()})
    assert A.ACTION_LABELS[a] == "trump:9l"
    # a flat first seven: z lidu
    g = deal(["7h", "8h", "9h", "Jh", "7a", "8a", "9a", "Ja", "8b", "9b"],
             fh=["9l", "Qh", "Jb", "Qa", "8l", "Kh", "Tb", "Al", "Tl", "Kl", "Ab", "Ah"])
    a = robot.act({"observation": g.observation(1), "action_mask": g.legal_mask()})
    assert A.ACTION_LABELS[a] == "trump:blind"
    # a ložený durch: the robot plays durch and throws the two low cards
    fh = ["Ah", "Kh", "Qh", "Jh", "Ab", "Kb", "Qb", "Al", "Kl", "Aa", "7a", "8b"]
    g = deal([c for c in CARD_CODES if c not in fh][:10], fh=fh)
    play(g, ["trump:Ah"])
    labs = []
    tick = step_cap(g)
    while g.phase in (S.PH_CONTRACT, S.PH_DISCARD):
        tick()
        a = robot.act({"observation": g.observation(1), "action_mask": g.legal_mask()})
        labs.append(A.ACTION_LABELS[a])
        g.step(a)
    assert labs[0] == "contract:durch"
    assert sorted(labs[1:]) == ["discard:7a", "discard:8b"]
    # a low hand: betl
    fh = ["7h", "8h", "9h", "7b", "8b", "7l", "Ka", "8l", "7a", "8a", "Ah", "Ab"]
    g = deal([c for c in CARD_CODES if c not in fh][:10], fh=fh)
    play(g, ["trump:7h"])
    a = robot.act({"observation": g.observation(1), "action_mask": g.legal_mask()})
    assert A.ACTION_LABELS[a] == "contract:betl"
    # a normal hand: suit game, discards keep aces, tens, trumps and marriages
    fh = ["Al", "Tl", "Kl", "9l", "Ah", "7b", "Jb", "Ql", "Jl", "Ab", "9h", "8a"]
    g = deal([c for c in CARD_CODES if c not in fh][:10], fh=fh)
    play(g, ["trump:9l"])
    labs = []
    tick = step_cap(g)
    while g.phase in (S.PH_CONTRACT, S.PH_DISCARD):
        tick()
        a = robot.act({"observation": g.observation(1), "action_mask": g.legal_mask()})
        labs.append(A.ACTION_LABELS[a])
        g.step(a)
    assert labs[0] == "contract:suit"
    assert "discard:8a" in labs  # the low singleton goes: a void in acorns
    assert not {"discard:Kl", "discard:Ql", "discard:Jl"} & set(labs)  # trumps stay


def test_barva_bad_with_a_betl_hand_and_announcement():
    robot = TableRobot()
    mid = ["7h", "8h", "9h", "7b", "8b", "9b", "7a", "8a", "7l", "Tb"]
    g = deal(mid)
    play(g, ["trump:Al", "contract:suit"])
    play(g, suit_discards(g)[:1])
    play(g, suit_discards(g)[:1])
    a = robot.act({"observation": g.observation(2), "action_mask": g.legal_mask()})
    assert A.ACTION_LABELS[a] == "bad"
    g = deal(hand("Ab", "Tb"))
    play(g, ["trump:Al", "contract:suit"])
    play(g, suit_discards(g)[:1])
    play(g, suit_discards(g)[:1])
    a = robot.act({"observation": g.observation(2), "action_mask": g.legal_mask()})
    assert A.ACTION_LABELS[a] == "good"
    # sedma with the trump seven and four trumps
    fh = ["Al", "Tl", "7l", "9l", "Ah", "7b", "Jb", "Ql", "Jh", "Ab", "Kh", "Qh"]
    g = deal(["7h", "8h", "9h", "8l", "7a", "8a", "9a", "Ja", "8b", "9b"], fh=fh)
    play(g, ["trump:7l", "contract:suit", "discard:7b", "discard:Jb", "good", "good"])
    a = robot.act({"observation": g.observation(1), "action_mask": g.legal_mask()})
    assert A.ACTION_LABELS[a] == "announce:sedma"


# ----------------------------------------------------------------------------------------------
# Legality, determinism, play
# ----------------------------------------------------------------------------------------------


def run_deals(robots: list[Robot], seeds, dealer_cycle=True) -> list[dict]:
    out = []
    g = Game(deals=1)
    for i, seed in enumerate(seeds):
        g.new_partie(seed=seed, dealer=i % 3 if dealer_cycle else 0)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            s = g.to_move
            mask = g.legal_mask()
            a = robots[s].act({"observation": g.observation(s), "action_mask": mask})
            assert mask[a], (g.phase_name, A.ACTION_LABELS[a], g.legal_labels())
            g.step(int(a))
        out.append({"actions": list(g.history), "pay": g.settlement()["payments"]})
    return out


def test_table_robot_is_legal_in_every_phase():
    robot = TableRobot()
    seen_phases = set()
    seen_contracts = set()
    # mixed tables so that every phase and contract shows up (random says bad, durch, ...)
    g = Game(deals=1)
    rnd = RandomRobot(seed=5)
    for i in range(300):
        g.new_partie(seed=10_000 + i, dealer=i % 3)
        table_seats = {0, 1, 2} if i % 2 else {i % 3}
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            s = g.to_move
            mask = g.legal_mask()
            obs = {"observation": g.observation(s), "action_mask": mask}
            if s in table_seats:
                seen_phases.add(g.phase)
                a = robot.act(obs)
                assert mask[a], (g.phase_name, A.ACTION_LABELS[a])
            else:
                a = rnd.act(obs)
            g.step(int(a))
        seen_contracts.add(int(g.st[S.CONTRACT]))
    assert robot.fallbacks == 0
    assert seen_phases >= {S.PH_TRUMP, S.PH_CONTRACT, S.PH_DISCARD, S.PH_BARVA,
                           S.PH_BETL_ANSWER, S.PH_ANNOUNCE, S.PH_FLEK, S.PH_PLAY}
    assert seen_contracts >= {S.C_SUIT, S.C_BETL, S.C_DURCH}


def test_table_robot_is_deterministic():
    seeds = range(40)
    a = run_deals([TableRobot(), TableRobot(), TableRobot()], seeds)
    b = run_deals([TableRobot()] * 3, seeds)
    assert a == b
    g = Game(deals=1)
    g.new_partie(seed=3)
    obs = {"observation": g.observation(g.to_move), "action_mask": g.legal_mask()}
    assert len({TableRobot().act(obs) for _ in range(5)}) == 1


def test_decode_matches_the_game():
    g = Game(deals=1)
    robot = TableRobot()
    for seed in range(15):
        g.new_partie(seed=seed)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            s = g.to_move
            o = decode(g.observation(s), g.legal_mask())
            assert o.hand == (g.hand(s) if g.phase != S.PH_TRUMP else o.hand)
            assert o.phase == g.phase
            assert o.legal == g.legal_actions()
            if g.phase == S.PH_PLAY:
                assert o.trick_no == int(g.st[S.TRICK_NO])
                assert len(o.cur.cards) == int(g.st[S.TRICK_N])
                assert o.played == int(S.getm(g.st, S.PLAYED))
            if int(g.st[S.ACTOR]) >= 0:
                assert o.actor == (int(g.st[S.ACTOR]) - s) % 3
            g.step(robot.decide(o))


def test_make_robot_registry():
    assert isinstance(make_robot("table"), TableRobot)
    assert isinstance(make_robot("random", seed=1), RandomRobot)
    p = make_robot("pimc(worlds=3, time_limit=0.5)")
    assert isinstance(p, PIMCRobot) and p.worlds == 3 and p.time_limit == 0.5
    with pytest.raises(ValueError, match="unknown robot"):
        make_robot("nonsense")
    with pytest.raises(ValueError):
        make_robot("onnx:")


def test_a_robot_registered_where_it_is_defined_is_made_by_name(monkeypatch):
    """Issue #30: one register_robot call (or decorator) makes a robot known to
    make_robot, ROBOT_NAMES and robots_of, its arguments checked and its games kept."""
    import mariash_env.robots as R
    from mariash_env.robots import registry

    monkeypatch.setattr(registry, "_ROBOTS", dict(registry._ROBOTS))  # leave the real one

    @registry.register_robot("first_legal", games=("licitovany",),
                             args={"offset": registry.int_at_least(0)})
    class FirstLegal(Robot):
        games = ("licitovany",)

        def __init__(self, offset: int = 0) -> None:
            self.offset = offset

        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"])[0])

    assert "first_legal" in R.ROBOT_NAMES and "first_legal" in R.robots_of("licitovany")
    assert "first_legal" not in R.robots_of("voleny")
    assert make_robot("first_legal(offset=2)", rules="licitovany").offset == 2
    with pytest.raises(ValueError, match=r"invalid offset=-1 for robot 'first_legal': "
                       "expected an int >= 0"):
        make_robot("first_legal(offset=-1)", rules="licitovany")
    assert make_robot("first_legal").offset == 0  # a robot of one game plays it by default
    with pytest.raises(R.RobotGameError, match="'first_legal' cannot play volený.*played by"):
        make_robot("first_legal", rules="voleny")
    with pytest.raises(ValueError, match="already registered"):
        registry.register_robot("first_legal", FirstLegal)
    with pytest.raises(ValueError, match="expected 'module:name'"):
        registry.register_robot("other", "no_colon")


@pytest.mark.parametrize("args, key", [
    ("weights={'a': 1, 'a': 2}", "'a'"),
    ("weights=[{'x': {'b': 1, 'b': 1}}]", "'b'"),  # at any depth, the same value too
    ("weights={1: 'x', 1.0: 'y'}", "1.0"),  # one key of a dict: 1 == 1.0
])
def test_a_robot_spec_refuses_a_dict_argument_giving_a_key_twice(args, key):
    """A spec's argument that is a dict giving a key twice (``mine(weights={'a': 1, 'a':
    2})``) was read by ast.literal_eval as its last value, silently, where the arena's
    --rule refuses it: the spec is refused naming the argument and the key, in jsonio's
    words, for every robot (make_robot too, before its arguments are checked)."""
    from mariash_env.robots import parse_spec

    spec = f"mine({args})"
    with pytest.raises(ValueError) as e:
        parse_spec(spec)
    assert str(e.value) == f"bad robot spec {spec!r}: argument 'weights': the key {key} is " \
                           "given twice in one object", e.value
    with pytest.raises(ValueError, match=f"argument 'worlds': the key {re.escape(key)} is "):
        make_robot(f"pimc(worlds={args.partition('=')[2]})")
    assert parse_spec("mine(weights={'a': 1, 'b': {'a': 2}}, s={1, 1})") == (
        "mine", {"weights": {"a": 1, "b": {"a": 2}}, "s": {1}})  # a set: no dict's key twice


def test_the_registry_keeps_optional_imports_lazy():
    """Issue #30: importing the robots (every one registered) imports neither onnxruntime
    nor open_spiel nor the robots registered by "module:name"."""
    import subprocess
    import sys

    code = ("import sys, mariash_env.robots as R; assert 'strong' in R.ROBOT_NAMES; "
            "print([m for m in ('onnxruntime', 'pyspiel', 'torch', 'mariash_env.openspiel', "
            "'mariash_env.robots.nnpimc') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


# ----------------------------------------------------------------------------------------------
# PIMC
# ----------------------------------------------------------------------------------------------


def test_pimc_needs_a_state_for_act():
    g = Game(deals=1)
    g.new_partie(seed=1)
    obs = {"observation": g.observation(g.to_move), "action_mask": g.legal_mask()}
    with pytest.raises(SearchUnavailableError):
        PIMCRobot(worlds=2).act(obs)
    a = PIMCRobot(worlds=2, seed=0, game=g).act(obs)
    assert g.legal_mask()[a]


def test_seat_view_hides_the_cards():
    g = Game(deals=1)
    g.new_partie(seed=2)
    table = TableRobot()
    tick = step_cap(g, deals=3)
    while g.phase != S.PH_PLAY or int(g.st[S.TRICK_NO]) < 2:
        tick()
        if g.deal_over:
            g.new_partie(seed=int(g.st[S.CUT]) + 100 + g.deal_no)
        s = g.to_move
        g.step(table.act({"observation": g.observation(s), "action_mask": g.legal_mask()}))
    view = SeatView.from_game(g)
    assert not hasattr(view, "st") and not hasattr(view, "hands")
    np.testing.assert_array_equal(view.observation(), g.observation(g.to_move))
    ws = view.sample_worlds(4, np.random.default_rng(0))
    assert ws.shape == (4, S.STATE_SIZE)
    me = g.to_move
    # the seat's own (seen) cards are the same in every world
    for w in ws:
        assert int(S.getm(w, S.HAND + me)) == g.hand(me)


def test_pimc_plays_legal_actions():
    robot = PIMCRobot(worlds=2, seed=3, use_solver=False)
    table = TableRobot()
    g = Game(deals=1)
    for i in range(3):
        g.new_partie(seed=500 + i, dealer=i % 3)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            s = g.to_move
            mask = g.legal_mask()
            if s == 1:
                a = robot.act_state(g.st, s, g.rules)
            else:
                a = table.act({"observation": g.observation(s), "action_mask": mask})
            assert mask[a]
            g.step(int(a))


@pytest.mark.skipif(not solver_available(), reason="mariash_env.search.solve is not there yet")
def test_pimc_beats_random_on_a_small_duplicate_sample():
    from mariash_env.arena import duplicate_match

    res = duplicate_match(
        {"pimc": lambda: PIMCRobot(worlds=3, seed=0, bidding="table"), "random": RandomRobot},
        deals=6, seed=11, jobs=1, progress=False, n_boot=500)
    assert res.means()[0] > res.means()[1]
    assert res.pairwise()[0]["ci_low"] > 0


def test_decode_dict_roundtrip():
    g = Game(deals=1)
    g.new_partie(seed=9)
    o = decode_dict({"observation": g.observation(g.to_move), "action_mask": g.legal_mask()})
    assert o.phase == S.PH_TRUMP and o.forehand == 0 and popcount_ok(o.hand)


def popcount_ok(m: int) -> bool:
    return bin(m).count("1") == 7



def test_check_robot_args_is_check_robot(monkeypatch, capsys):
    """check_robot_args (public since the argument tables were its checks) and its one
    caller, the arena's check of --worlds / --time-limit, skipped the registry entry's
    ``check`` that make_robot and check_robot run: they passed lízaný's pimc(race=4) and
    nnpimc(inference=True) at four.  Now both are check_robot: one place checks a spec."""
    from mariash_env import arena
    from mariash_env.robots import check_robot, check_robot_args, registry, robot_entry

    for base, kw, rules, error in [
            ("pimc", {"race": 4}, "lizany", "robot 'pimc' of lízaný mariáš takes the "
                                            "arguments"),
            ("nnpimc", {"inference": True}, {"players": 4},
             "with inference=True plays three players"),
            ("bogus", {}, None, "unknown robot 'bogus'"),
            ("pimc", {"worlds": 0}, None, "invalid worlds=0")]:
        with pytest.raises(ValueError, match=re.escape(error)):
            check_robot_args(base, kw, rules)
        with pytest.raises(ValueError, match=re.escape(error)):
            check_robot(base, rules, **kw)
    assert check_robot_args("pimc", {"worlds": 3}, "lizany") is None
    def refuse(kind, players, kw):
        raise ValueError(f"the entry's check saw {dict(kw)}")

    # the arena checks --worlds with the entry's check too
    monkeypatch.setitem(registry._ROBOTS, "pimc",
                        dataclasses.replace(robot_entry("pimc")[0], check=refuse))
    with pytest.raises(SystemExit):
        arena.main(["--worlds", "3", "--robots", "", "--deals", "1"])
    assert capsys.readouterr().err == "error: the entry's check saw {'worlds': 3}\n"


@pytest.mark.parametrize("spec, rules, error", [
    ("bogus", None, "unknown robot 'bogus'"),
    ("pimc(worlds=0)", "licitovany", "invalid worlds=0"),
    ("onnx:none.onnx", None, "no ONNX model at none.onnx"),
    ("strong", "lizany", None),
    ("table", {"rules": "voleny", "players": 4}, None),
    ("onnx:models/robot.onnx", "voleny", None),
    # the factory's own refusals before it builds: a game's own robot's arguments (lízaný's
    # pimc and nnpimc, its strong's from_trick 0..8) and nnpimc's inference at four
    ("pimc(race=4)", "lizany", "robot 'pimc' of lízaný mariáš takes the arguments"),
    ("nnpimc(leaf='network')", "lizany", "robot 'nnpimc' of lízaný mariáš takes the"),
    ("strong(from_trick=9)", "lizany", "invalid from_trick=9 for robot 'nnpimc': expected "
                                       "a trick 0..8"),
    ("nnpimc(inference=True)", {"players": 4}, "with inference=True plays three players"),
    ("strong(inference=True)", {"players": 4}, "with inference=True plays three players"),
])
def test_check_robot_refuses_what_make_robot_refuses_and_builds_nothing(spec, rules, error,
                                                                        monkeypatch):
    """check_robot: make_robot's checks (the same exception and words) without calling a
    factory (no warm-up, no model read), so that a front end seating several robots names
    a bad one before the others' warm-ups."""
    from mariash_env.robots import check_robot, make_robot
    from mariash_env.robots.registry import RobotEntry

    if error is not None:
        with pytest.raises(ValueError, match=re.escape(error)):
            make_robot(spec, rules=rules)
    built = []
    real_load = RobotEntry.load

    def load(self):
        factory = real_load(self)

        class Spy:  # the factory's attributes (check_path), a call recorded
            def __getattr__(self, name):
                return getattr(factory, name)

            def __call__(self, *a, **kw):
                built.append(a)

        return Spy()

    monkeypatch.setattr(RobotEntry, "load", load)
    if error is not None:
        with pytest.raises(ValueError, match=re.escape(error)):
            check_robot(spec, rules=rules)
    else:
        assert check_robot(spec, rules=rules) is None
    assert built == []
