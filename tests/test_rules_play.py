"""Scripted deals for the card play and the settlement (RULES.md §6–§10, fine points of §12).

Every deal here is built by hand: the hands are dealt with ``deck_from_hands`` (dealer 2,
so forehand = seat 0 = the actor of every suit game, middlehand = seat 1, dealer = seat 2),
the bidding is driven by labels and the tricks are played card by card.  A trick is
written ``"c1 c2 c3 > w"``: the cards in the order played (from the leader, clockwise) and
the seat that must win it (``f``/``m``/``d``).  ``Game.step`` refuses an illegal card, so
every script is also a check of legality.  Expected amounts are worked out by hand from
the rule text in the comments, never read from the engine.

Card points of a deal: aces and tens 10 each, last trick 10 (90 in all).  ``A`` below is
the amount per defender from the actor's side: actor +2A, each defender -A (§9).
"""

from __future__ import annotations

import random

import pytest

from mariash_env.core import state as S
from mariash_env.game import Game
from tests.helpers import deck_from_hands, step_cap

F, M, D = 0, 1, 2  # dealer 2: forehand (the suit-game actor), middlehand, dealer
WHO = {"f": F, "m": M, "d": D}
HRA_FLEK = ("flek:game", "good", "good", "good")  # m fleks the game; nobody goes on
QUIET = ("good", "good")  # both defenders say good: no flek
HEARTS = {"a": "h", "h": "a"}  # relabel a deal: acorns <-> hearts


# --------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------


def relabel(text: str, suits: dict[str, str] | None) -> str:
    """Swap suits in every card code of a space-separated text (other tokens untouched)."""
    if not suits:
        return text
    out = []
    for tok in text.split():
        if len(tok) == 2 and tok[0] in "789TJQKA" and tok[1] in suits:
            tok = tok[0] + suits[tok[1]]
        out.append(tok)
    return " ".join(out)


def deal(f12: str, m: str, d: str, **rules) -> Game:
    """A game whose forehand (seat 0) holds ``f12`` (first 7 = the trump-choice block)."""
    f = f12.split()
    g = Game(**rules)
    g.new_partie(seed=0, deck=deck_from_hands(f[:7], f[7:], m.split(), d.split()), dealer=2)
    return g


def suit_game(actor, talon, m, d, trump, announce="hra", flek=None, suits=None, **rules):
    """Forehand plays a suit game: ``actor`` its 10 cards after discarding ``talon``."""
    actor, talon, m, d, trump = (relabel(x, suits) for x in (actor, talon, m, d, trump))
    t = talon.split()
    f12 = " ".join([trump] + [c for c in actor.split() + t if c != trump])
    g = deal(f12, m, d, **rules)
    for lab in (f"trump:{trump}", "contract:suit", f"discard:{t[0]}", f"discard:{t[1]}",
                "good", "good", f"announce:{announce}"):
        g.step(lab)
    if flek is None:
        flek = HRA_FLEK if announce == "hra" else QUIET
    for lab in flek:
        g.step(lab)
    return g


def play(g: Game, tricks, suits=None) -> None:
    """Play tricks ``"c1 c2 c3 > w"``; check each winner (and that it leads next)."""
    for spec in tricks:
        cards, _, who = relabel(spec, suits).partition(">")
        t = int(g.st[S.TRICK_NO])
        for c in cards.split():
            g.step(f"play:{c}")
        if who.strip():
            w = WHO[who.strip()]
            assert int(g.st[S.TWIN + t]) == w, f"trick {t + 1} {spec!r}: wrong winner"
            if not g.deal_over:
                assert g.to_move == w, f"trick {t + 1} {spec!r}: the winner must lead"


def plays(g: Game) -> set[str]:
    """The cards the seat to move may play now."""
    return {lab[5:] for lab in g.legal_labels() if lab.startswith("play:")}


def can_lay_down(g: Game) -> bool:
    return "lay_down" in g.legal_labels()


def finish(g: Game) -> None:
    """Play out the rest of the deal with the first legal card each time."""
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(next(lab for lab in g.legal_labels() if lab.startswith("play:")))


def settled(g: Game, amount: int) -> dict[str, dict]:
    """Check the amount per defender and the payments; return the bets by name."""
    assert g.deal_over
    s = g.settlement()
    a = s["actor"]
    assert s["amount"] == amount, s
    assert s["payments"] == [2 * amount if i == a else -amount for i in range(3)], s
    assert sum(s["payments"]) == 0
    return {b["bet"]: b for b in s["bets"]}


def line(bets: dict, name: str, won: bool, worth: int, amount: int) -> None:
    b = bets[name]
    assert (b["won"], b["worth"], b["amount"]) == (won, worth, amount), b


def points(g: Game) -> tuple[int, int, int, int]:
    p = g.settlement()["points"]
    return p["actor_cards"], p["actor_marriages"], p["defence_cards"], p["defence_marriages"]


def ncards(mask: int) -> int:
    return bin(mask).count("1")


# --------------------------------------------------------------------------------------
# The deals
# --------------------------------------------------------------------------------------

# D004 — the seed-004 example: clubs (acorns) trumps, the actor takes 50 card points and
# the bells marriage (20) against 40, and its trump seven wins the last trick.
D004 = dict(
    actor="Aa Ta Ka Ja 7a Qb Kb 7h Al Kl", talon="7b Jb",
    m="8a 9a Ab 9b Ah Kh Jh 8l 9l Jl", d="Qa 7l Tb 8b Th Tl Qh 9h 8h Ql", trump="Aa",
)
D004_PLAY = (
    "Aa 8a Qa > f",  # 10 actor
    "Ta 9a 7l > f",  # 10 actor
    "Qb Ab Tb > m",  # the actor announces 20 in bells (holds Kb) but loses the trick: 20 def
    "Ah Th 7h > m",  # 20 defence
    "9b 8b Kb > f",
    "Al 8l Tl > f",  # 20 actor
    "Ka Jh 8h > f",
    "Ja Kh 9h > f",
    "Kl 9l Ql > f",
    "7a Jl Qh > f",  # the trump seven takes the last trick: 10 actor
)  # actor 50 + marriage 20 = 70, defence 40

# B — the same kind of deal, but the actor's trump seven is beaten in the last trick.
B = dict(
    actor="Aa Ta Ka Ja 7a 7b 8b 9b Al Tl", talon="Qh Kl",
    m="9a Qa Jb Kb Ab 7h 9h Jh 9l Jl", d="8a Tb Qb Ah 8h Th Kh 7l 8l Ql", trump="Aa",
)
B_PLAY = (
    "Aa 9a 8a > f",  # 10 actor
    "7b Jb Tb > d",  # d must beat its partner's jack: 10 defence
    "Ah Ja 7h > f",  # the actor trumps the ace: 10 actor
    "8b Kb Qb > m",
    "9h Kh Ka > f",
    "9b Ab Th > m",  # d has neither bells nor trumps and throws the ten: 20 defence
    "Jh 8h Ta > f",  # 10 actor
    "Al 9l 7l > f",  # 10 actor
    "Tl Jl 8l > f",  # 10 actor
    "7a Qa Ql > m",  # m's queen beats the seven: 10 defence
)  # actor 50, defence 40, no marriages

# M — the actor holds the trump marriage (40) and the bells marriage (20); its trump seven
# and eight lie in its talon.
M_ = dict(
    actor="Aa Ta Ka Qa Ja 9a Ab Kb Qb 7h", talon="7a 8a",
    m="Tb Ah Al Kh Ql 8h Jh 7l 9l Jl", d="Th Tl 7b 8b 9b Jb Qh Kl 9h 8l", trump="Ja",
)
M_OPEN = (
    "Ab Tb 7b > f",  # 20 actor
    "7h Ah Th > m",  # 20 defence
    "Al Tl 9a > f",  # the actor trumps: 20 actor
)  # then the actor leads its seven winners: 70 card points for the actor in all
M_ORDER_A = (  # the trump marriage first
    "Qa 7l 8l > f", "Ka 9l 9h > f", "Qb Jl 8b > f", "Kb 8h 9b > f",
    "Aa Jh Jb > f", "Ta Ql Qh > f", "Ja Kh Kl > f",
)
M_ORDER_B = (  # the bells marriage first
    "Qb 7l 8b > f", "Kb 9l 9b > f", "Qa Jl Jb > f", "Ka 8h 9h > f",
    "Aa Jh 8l > f", "Ta Ql Qh > f", "Ja Kh Kl > f",
)
M_KINGS_FIRST = (  # Ka before Qa, Qb before Kb
    "Ka 7l 8l > f", "Qa 9l 9h > f", "Qb Jl 8b > f", "Kb 8h 9b > f",
    "Aa Jh Jb > f", "Ta Ql Qh > f", "Ja Kh Kl > f",
)
# The same hands, the defence keeping more: after three tricks the actor has 20, the
# defence 10, and the actor's laid-down hand would bring 80 card points in all.
M_OPEN_SOFT = (
    "Ab Tb 7b > f",  # 20 actor
    "7h Ah 9h > m",  # 10 defence (d keeps its ten)
    "7l 8l 9a > f",
)

# HA — deal M with middlehand holding the hearts marriage (for a hundred against).
HA = dict(M_, m="Tb Ah Al Kh Qh Ql Jh 7l 9l Jl", d="Th Tl 7b 8b 9b Jb 8h Kl 9h 8l")
HA_PLAY = (
    "Ab Tb 7b > f",  # 20 actor
    "7h Ah 9h > m",  # 10 defence
    "7l 8l 9a > f",
    "Qa Jh 8h > f",  # actor 40
    "Ka Qh Th > f",  # m announces 20 (holds Kh) on the actor's trick; 10 actor
    "Qb Kh 8b > f",  # actor 20
    "Kb 9l 9b > f",
    "Aa Al Jb > f",  # 20 actor
    "Ta Jl Tl > f",  # 20 actor
    "Ja Ql Kl > f",  # 10 actor (last trick)
)  # actor 80 + 60, defence 10 + 20

# N2 — middlehand wins the first trick with every trump but its partner's queen, which falls.
N2 = dict(
    actor="Ja Qh Jh 9h Tb Kb Jb Tl Kl Jl", talon="8h 7h",
    m="Aa Ta Ka 9a 8a 7a Ah Th Kh Ab", d="Qa 7b 8b 9b Qb 7l 8l 9l Ql Al", trump="Ja",
)
N2_T1 = ("Ja Aa Qa > m",)
# N1 — as N2, but the trump seven lies in the actor's talon (m holds Tb instead).
N1 = dict(
    N2, actor="Ja Qh Jh 9h 8h Kb Jb Tl Kl Jl", talon="7a 7h",
    m="Aa Ta Ka 9a 8a Ah Th Kh Ab Tb",
)
# N2H — as N2, but m holds the trump marriage (Ka Qa) and d the nine of trumps.
N2H = dict(N2, m="Aa Ta Ka Qa 8a 7a Ah Th Kh Ab", d="9a 7b 8b 9b Qb 7l 8l 9l Ql Al")
N2H_T1 = ("Ja Aa 9a > m",)

# N3 — m holds the trump marriage and a leaves marriage; the actor took 20 first.
N3 = dict(
    actor="Ja Al Ah Kh 9h Jb Qb 8b 8l 9l", talon="7h 7b",
    m="Aa Ta Ka Qa 8a 7a Kl Ql 7l Ab", d="9a Tl Th Qh Jh 8h Tb Kb 9b Jl", trump="Ja",
)
N3_T12 = ("Al 7l Tl > f", "Ja Aa 9a > m")  # actor 20, defence 10

# RC / RD — middlehand keeps the trump seven to the last trick and leads it.
RC = dict(
    actor="Ja 7h 8h Qh 7b 8b 9b 8l 9l Jl", talon="Ka 8a",
    m="Aa 7a Ah Th Kh Ab Tb Kb Al Kl", d="Qa Ta 9a 9h Jh Jb Qb Ql Tl 7l", trump="Ja",
)
RC_PLAY = (
    "Ja Aa 9a > m",  # 10 m
    "Ah 9h 7h > m",  # 10
    "Th Jh 8h > m",  # 10
    "Kh Qa Qh > d",  # d, void in hearts, must trump
    "Jb 7b Kb > m",
    "Ab Qb 8b > m",  # 10
    "Tb Ta 9b > d",  # 20 d
    "Ql 8l Kl > m",
    "Al Tl 9l > m",  # 20
    "7a 7l Jl > m",  # m's seven takes the last trick: 10
)  # defence 90, actor 0
RD = dict(
    actor="Ja 7h 8h 7b 8b 9b 7l 8l 9l Jl", talon="Ka 9a",
    m="Aa 7a Ah Th Kh Ab Tb Kb Al Kl", d="Qa Ta 8a 9h Jh Qh Jb Qb Tl Ql", trump="Ja",
)
RD_PLAY = (
    "Ja Aa Qa > m",  # 10
    "Ah 9h 7h > m",  # 10
    "Th Jh 8h > m",  # 10
    "Kh Qh 7l > m",
    "Ab Jb 7b > m",  # 10
    "Tb Qb 8b > m",  # 10
    "Kb Ta 9b > d",  # 10 d
    "Ql 8l Kl > m",
    "Al Tl 9l > m",  # 20
    "7a 8a Jl > d",  # d must beat its partner's seven: 10
)  # defence 90, actor 0

# S — hearts trumps; the actor takes every trick and announces 20 in bells.
S_ = dict(
    actor="Ah Th Jh 9h 8h 7h Ab Kb Qb Al", talon="7a 8a",
    m="Kh Tb Kl Ka 7l 8l 9l Tl 9a Ta", d="Qh Ql Qa 7b 8b 9b Jb Jl Ja Aa", trump="Ah",
)
S_PLAY = (
    "Ah Kh Qh > f", "7h 7l 7b > f", "Th 8l 8b > f", "Jh 9l 9b > f", "9h 9a Jl > f",
    "8h Ka Ja > f", "Ab Tb Jb > f", "Qb Kl Ql > f", "Kb Tl Qa > f", "Al Ta Aa > f",
)  # actor 90 + 20

# L — acorns trumps; the actor draws trumps, the defence decides how many of its aces and
# tens it throws on them, then takes the last three tricks.
L_ = dict(
    actor="Aa Ta Ka Ja 9a 8a 7a Kb Qb 7h", talon="7l 8l",
    m="Ah Th Tb Kh Ql Jb 9b Ab 8h 9h", d="Qa Al Tl Qh Kl Jl Jh 8b 7b 9l", trump="Ja",
)
L_PLAY_70 = (  # actor 70 card points, defence 20
    "Aa Ah Qa > f", "Ta Th Al > f", "Ka Tb Tl > f", "Ja Kh Qh > f", "9a Ql Kl > f",
    "8a Jb Jl > f", "7a 9b Jh > f", "Qb Ab 8b > m", "8h 7b 7h > m", "9h 9l Kb > m",
)
L_PLAY_50 = (  # actor 50 card points, defence 40
    "Aa Kh Qa > f", "Ta Tb Al > f", "Ka Ql Tl > f", "Ja Jb Qh > f", "9a 9b Kl > f",
    "8a 8h Jl > f", "7a 9h Jh > f", "Qb Ab 8b > m", "Ah 7b 7h > m", "Th 9l Kb > m",
)
# L2 — as L, but m holds Kh and Qh (d the eight of hearts).
L2 = dict(L_, m="Ah Th Tb Kh Ql Jb 9b Ab Qh 9h", d="Qa Al Tl 8h Kl Jl Jh 8b 7b 9l")
L2_PLAY = (
    "Aa Ah Qa > f", "Ta Th Al > f", "Ka Tb Tl > f",
    "Ja Kh 8h > f",  # m plays its king holding the queen: 20 for the defence
    "9a Ql Kl > f", "8a Jb Jl > f", "7a 9b Jh > f", "Qb Ab 8b > m", "Qh 7b 7h > m",
    "9h 9l Kb > m",
)  # actor 70 + 20, defence 20 + 20

# LEG_A / LEG_B — positions for the first trick (acorns trumps, hra with a flek).
LEG_A = dict(
    actor="9h Kh Ja 7a Ta Qa Ab Kb Al Kl", talon="7b 7l",
    m="8h Th Qh 9a Aa 8b 9b Tb 8l 9l", d="7h Jh Ah 8a Ka Jb Qb Tl Jl Ql", trump="Ja",
)
LEG_B = dict(
    actor="Kh Ah 9b Ja 9l Tl Jl Ql Kl Al", talon="7l 8l",
    m="Th Qh Jh 9h 8h 9a Aa Ta Qa 7a", d="7h 8a Ka 7b 8b Tb Jb Qb Kb Ab", trump="Ja",
)

# Betl and durch hands (forehand's 12 cards, first the trump card it picked).
BETL_F = "7h 8h 9h Th 7b 8b 7l 8l 9l 7a Aa Ab"  # discards Aa Ab; the lowest cards
BETL_M = "Jh Qh Kh Ah 9b Tb Jb Qb Kb Tl"
BETL_D = "Jl Ql Kl Al 8a 9a Ta Ja Qa Ka"
DURCH_F = "Ah Kh Qh Jh Th Ab Kb Qb Al Aa 7h 8h"  # discards 7h 8h; every card on top
DURCH_M = "9h Tb Jb 9b 8b 7b Kl Ql Jl Tl"
DURCH_D = "9l 8l 7l Ka Qa Ja Ta 9a 8a 7a"
DURCHX_F = "Ah Kh Qh Th Ab Kb Qb Al Aa Ka 7h 8h"  # as above, but the jack of hearts is out
DURCHX_M = "9h Jh Tb Jb 9b 8b 7b Kl Ql Jl"
DURCHX_D = "Tl 9l 8l 7l Qa Ja Ta 9a 8a 7a"


def betl_game(f12, m, d, contract="betl", flek=QUIET, **rules) -> Game:
    """Forehand (seat 0) plays betl/durch directly, discarding its last two cards."""
    g = deal(f12, m, d, **rules)
    f = f12.split()
    g.step(f"trump:{f[0]}")
    g.step(f"contract:{contract}")
    g.step(f"discard:{f[-2]}")
    g.step(f"discard:{f[-1]}")
    if contract == "betl":
        play_labels(g, ("good", "good"))  # the answers: middlehand, then dealer
    play_labels(g, flek)
    assert g.phase_name == "play"
    return g


def play_labels(g: Game, labels) -> None:
    for lab in labels:
        g.step(lab)


def takeover(contract: str) -> Game:
    """Middlehand says *bad* to forehand's suit game and plays betl or durch (LEG_C)."""
    g = deal("Aa 7h Qh Kh Ah 9b Tb Jb Qb Kb Ab 7l", "Th 8h 7b 8b Ja Qa Ka 8l 9l Tl",
             "9h Jh 7a 8a 9a Ta Jl Ql Kl Al")
    play_labels(g, ("trump:Aa", "contract:suit", "discard:7l", "discard:9b", "bad",
                    f"contract:{contract}", "discard:Ka", "discard:Qa"))
    if contract == "betl":
        play_labels(g, ("good", "good"))  # dealer, then forehand answer the betl
    play_labels(g, ("good", "good"))  # flek: the defence (dealer, forehand) says good
    assert g.phase_name == "play"
    return g


# --------------------------------------------------------------------------------------
# §6 Trick legality
# --------------------------------------------------------------------------------------


def test_follow_suit_and_beat_the_winning_card_even_partners():
    # §6.1: follow the led suit and beat the card currently winning if you can.
    g = suit_game(**LEG_A)
    assert g.phase_name == "play" and g.to_move == F  # §6: forehand leads the first trick
    g.step("play:9h")
    assert plays(g) == {"Th", "Qh"}  # 8h does not beat the nine; no trump while following
    g.step("play:Qh")
    assert plays(g) == {"Ah"}  # d must beat its partner's queen (7h, Jh do not)
    g.step("play:Ah")
    assert g.to_move == D  # the highest card of the led suit wins and leads next


def test_suit_game_ranking_ten_between_king_and_ace():
    # §1/§6: with trumps the order is 7 8 9 J Q K T A.
    g = suit_game(**LEG_A)
    g.step("play:Kh")
    assert plays(g) == {"Th"}  # only the ten beats the king (not the queen)
    g.step("play:Th")
    assert plays(g) == {"Ah"}  # the king is not above the ten; only the ace beats it
    g = suit_game(**LEG_B)
    play(g, ["Kh Th 7h > m"])  # the ten takes the king's trick


def test_trumped_trick_followers_only_follow_suit():
    # §6.2 and §12: cannot follow -> must trump; once trumped, followers only follow suit.
    g = suit_game(**LEG_B)
    g.step("play:9b")
    assert plays(g) == {"9a", "Aa", "Ta", "Qa", "7a"}  # void in bells: any trump, nothing else
    g.step("play:9a")
    assert plays(g) == {"7b", "8b", "Tb", "Jb", "Qb", "Kb", "Ab"}  # also cards below the nine
    g.step("play:Ab")
    assert g.to_move == M  # the trump wins over the led suit's ace


def test_void_player_must_overtrump_if_it_can():
    g = suit_game(**LEG_B)
    g.step("play:9l")
    assert plays(g) == {"9a", "Aa", "Ta", "Qa", "7a"}
    g.step("play:9a")
    assert plays(g) == {"Ka"}  # d, void in leaves, must beat the nine of trumps
    g.step("play:Ka")
    assert g.to_move == D  # the highest trump wins
    g = suit_game(**LEG_B)
    g.step("play:9l")
    g.step("play:Aa")
    assert plays(g) == {"8a", "Ka"}  # cannot overtrump the ace: still must trump


def test_trump_lead_must_beat_the_highest_trump():
    # §12: on a trump lead the follower must beat the highest trump if it can.
    g = suit_game(**LEG_B)
    g.step("play:Ja")
    assert plays(g) == {"Aa", "Ta", "Qa"}  # 9a, 7a are below the jack
    g.step("play:Qa")
    assert plays(g) == {"Ka"}  # beat the queen, not the jack; 8a is not enough
    g = suit_game(**LEG_A)
    g.step("play:Ja")
    assert plays(g) == {"Aa"}
    g.step("play:Aa")
    assert plays(g) == {"8a", "Ka"}  # nothing beats the ace: any trump, no other suit


def test_neither_suit_nor_trump_any_card():
    # §6.3: a follower with neither the led suit nor a trump plays any card.
    g = suit_game(**B)
    play(g, B_PLAY[:5])
    g.step("play:9b")
    g.step("play:Ab")
    assert plays(g) == {"Th", "8h", "7l", "8l", "Ql"}  # d's whole hand


@pytest.mark.parametrize("contract", ["betl", "durch"])
def test_betl_durch_follow_and_beat_natural_ranking_no_trumps(contract):
    # §4/§6: the actor (middlehand, after "bad") leads; no trumps; 7 8 9 T J Q K A.
    g = takeover(contract)
    assert g.to_move == M  # the actor leads the first trick, not forehand
    g.step("play:Th")
    assert plays(g) == {"Jh"}  # without trumps the jack beats the ten; 9h does not
    g.step("play:Jh")
    assert plays(g) == {"Qh", "Kh", "Ah"}  # beat the partner's jack; 7h does not
    g = takeover(contract)
    g.step("play:7b")
    # Void in bells: any card; the acorns of forehand's trump card are no trumps here.
    assert plays(g) == {"9h", "Jh", "7a", "8a", "9a", "Ta", "Jl", "Ql", "Kl", "Al"}


# --------------------------------------------------------------------------------------
# §6 / §12 The announced seven
# --------------------------------------------------------------------------------------


def test_announced_seven_waits_for_the_last_trick():
    # With a seven bet the trump seven is legal before trick 10 only when it is the only
    # legal card — leading too; without seven bets there is no such restriction.
    g = suit_game(**D004, announce="sedma")
    assert "7a" not in plays(g) and "Aa" in plays(g)  # leading
    g = suit_game(**D004)  # hra with a flek
    assert "7a" in plays(g)
    for announce, seven in (("sedma", set()), ("hra", {"7a"})):
        g = suit_game(**B, announce=announce)
        play(g, B_PLAY[:2])
        g.step("play:Ah")  # d leads trick 3; the actor is void in hearts
        assert plays(g) == {"Ta", "Ka", "Ja"} | seven  # must trump; the seven only if free
        play(g, ["Ja 7h > f"])
        play(g, B_PLAY[3:7])
        assert plays(g) == {"Al", "Tl"} | seven  # leading trick 8
    g = suit_game(**B, announce="sedma")
    play(g, B_PLAY)
    assert plays(g) == set() and g.deal_over  # the seven went to trick 10 legally


def test_s6_announced_seven_waits_in_hearts_too():
    """§6, §12: the announced seven's restriction binds whatever the trump suit, hearts
    (suit 0) included: D004 with acorns and hearts exchanged."""
    g = suit_game(**D004, announce="sedma", suits=HEARTS)
    assert "7h" not in plays(g) and "Ah" in plays(g)  # leading
    g = suit_game(**D004, suits=HEARTS)  # hra: no seven bet, no restriction
    assert "7h" in plays(g)


@pytest.mark.parametrize("killed, worth", [(2, 2), (3, 3)])
def test_announced_seven_forced_early_is_lost(killed, worth):
    # F2: the actor's only trump is its seven; m wins trick 1 and leads a trump.
    g = suit_game(
        actor="7a Qh Jh 9h Tb Kb Jb Tl Kl Jl", talon="8h 7h",
        m="Aa Ta Ka 9a 8a Ja Ah Th Kh Ab", d="Qa 7b 8b 9b Qb 7l 8l 9l Ql Al", trump="7a",
        announce="sedma", killed_seven=killed,
    )
    assert "7a" not in plays(g)
    play(g, ["Tb Ab 7b > m"])
    g.step("play:Aa")
    g.step("play:Qa")
    assert plays(g) == {"7a"}  # the only legal card: it must be played now...
    g.step("play:7a")
    finish(g)
    bets = {b["bet"]: b for b in g.settlement()["bets"]}
    line(bets, "seven", False, worth, -worth)  # ...and the seven is lost (killed seven: 3)
    assert "silent_seven" not in bets


def test_seven_against_binds_the_defender_holding_the_seven():
    ag = ("against:seven", "good", "good", "good")
    g = suit_game(**RC, flek=ag)
    play(g, RC_PLAY[:1])
    assert g.to_move == M and "7a" not in plays(g)  # m leads, the seven is kept back
    g = suit_game(**RC)  # hra with a flek: no seven bet, no restriction
    play(g, RC_PLAY[:1])
    assert "7a" in plays(g)


@pytest.mark.parametrize("killed", [2, 3])
def test_seven_against_forced_early_is_lost(killed):
    # d announced seven against; its only trump is the seven and the actor leads trumps.
    g = suit_game(
        actor="Aa Ta Ka Qa Ja Qb Kb 7h Al Kl", talon="7b Jb",
        m="8a 9a Ab 9b Ah Kh Jh 8l 9l Jl", d="7a 7l Tb 8b Th Tl Qh 9h 8h Ql", trump="Aa",
        flek=("good", "against:seven", "good", "good"), killed_seven=killed,
    )
    g.step("play:Aa")
    g.step("play:8a")
    assert plays(g) == {"7a"}
    g.step("play:7a")
    finish(g)
    bets = {b["bet"]: b for b in g.settlement()["bets"]}
    line(bets, "seven_against", False, killed, killed)  # the defence pays it


# --------------------------------------------------------------------------------------
# §6 Betl and durch: the first deciding trick ends the deal
# --------------------------------------------------------------------------------------


def test_betl_ends_lost_when_the_actor_takes_a_trick():
    g = betl_game(DURCH_F, DURCH_M, DURCH_D, "betl")
    assert g.to_move == F
    play(g, ["Ah 9h 7l > f"])  # nobody can beat the ace: the actor takes the trick
    assert g.deal_over
    assert [ncards(g.hand(s)) for s in range(3)] == [9, 9, 9]  # the rest is not played
    bets = settled(g, -5)
    line(bets, "game", False, 5, -5)


def test_durch_ends_lost_when_the_actor_loses_a_trick():
    g = betl_game(DURCHX_F, DURCHX_M, DURCHX_D, "durch")
    g.step("play:Th")
    assert plays(g) == {"Jh"}  # natural ranking: the jack beats the ten, and must
    play(g, ["Jh Tl > m"])
    assert g.deal_over
    assert [ncards(g.hand(s)) for s in range(3)] == [9, 9, 9]
    bets = settled(g, -10)
    line(bets, "game", False, 10, -10)


def test_betl_won_after_ten_tricks_without_trick_no_marriages_no_hearts_doubling():
    # Every actor card is below every outstanding card of its suit: it can never win.
    # The trump card picked was a heart (7h): betl is not doubled (§9).
    g = betl_game(BETL_F, BETL_M, BETL_D, "betl")
    g.step("play:7h")
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        assert "lay_down" not in g.legal_labels()  # §8: only the actor, before trick 1
        g.step(next(lab for lab in g.legal_labels() if lab.startswith("play:")))
    assert [g.hand(s) for s in range(3)] == [0, 0, 0]  # all ten tricks were played
    assert int(g.st[S.NTRICKS + F]) == 0
    assert int(g.st[S.NMARR]) == 0  # §7: K and Q played in betl announce nothing
    line(settled(g, 5), "game", True, 5, 5)


def test_durch_won_with_all_ten_tricks():
    g = betl_game(DURCH_F, DURCH_M, DURCH_D, "durch")  # trump card Ah: no doubling
    finish(g)
    assert int(g.st[S.NTRICKS + F]) == 10
    assert int(g.st[S.NMARR]) == 0  # the actor played Kh/Qh and Kb/Qb: no marriage
    line(settled(g, 10), "game", True, 10, 10)


@pytest.mark.parametrize(
    "contract, tariff, flek, amount",
    [
        ("betl", "home", QUIET, 5),
        ("betl", "csm", QUIET, 15),
        ("betl", "home", ("flek:game", "good", "good", "good"), 10),
        ("durch", "home", QUIET, 10),
        ("durch", "csm", QUIET, 30),
        ("durch", "csm", ("flek:game", "good", "good", "good"), 60),
    ],
)
def test_betl_durch_tariffs_and_flek(contract, tariff, flek, amount):
    if contract == "betl":
        g = betl_game(BETL_F, BETL_M, BETL_D, "betl", flek=flek, tariff=tariff)
    else:
        g = betl_game(DURCH_F, DURCH_M, DURCH_D, "durch", flek=flek, tariff=tariff)
    finish(g)
    settled(g, amount)


# --------------------------------------------------------------------------------------
# §7 Marriages
# --------------------------------------------------------------------------------------


def test_marriage_counts_for_its_side_whoever_wins_the_trick():
    g = suit_game(**D004, announce="sedma")
    play(g, D004_PLAY)
    assert points(g) == (50, 20, 40, 0)  # the actor's Qb lost its trick, the 20 stands
    g = suit_game(**L2, announce="sto")
    play(g, L2_PLAY)
    assert points(g) == (70, 20, 20, 20)  # m's Kh went into the actor's trick


def test_first_marriage_played_decides_the_hundred():
    # §9: counted points = cards + the side's first marriage; surplus with all marriages.
    g = suit_game(**M_, announce="sto")
    play(g, M_OPEN + M_ORDER_A)
    assert points(g) == (70, 60, 20, 0)
    # 40 first: counted 70 + 40 = 110 -> won; Pa = 130 -> 4 + 4*3 = 16 (not 4 + 4*1).
    line(settled(g, 16), "game", True, 16, 16)
    g = suit_game(**M_, announce="sto")
    play(g, M_OPEN + M_ORDER_B)
    # 20 first: counted 90 -> lost 4*1 + 4*0 (no defence marriage), although Pa = 130;
    # no silent hundred beside a sto (§9).
    bets = settled(g, -4)
    line(bets, "game", False, 4, -4)
    assert "silent_hundred" not in bets["game"] and set(bets) == {"game"}  # 7a in talon


def test_queen_first_variant():
    # Default: Ka played while holding Qa announces 40, then Qb 20: Pa = 70 + 60 = 130,
    # silent hundred (2 + 2*3) * 2 (flek) = 16.
    g = suit_game(**M_)
    play(g, M_OPEN + M_KINGS_FIRST)
    assert points(g)[1] == 60
    settled(g, 16)
    # marriage_order="queen_first": the king led first scores nothing, Qb still 20:
    # Pa = 90 > 20 -> hra won, 1 * 2 (flek) = 2.
    g = suit_game(**M_, marriage_order="queen_first")
    play(g, M_OPEN + M_KINGS_FIRST)
    assert points(g) == (70, 20, 20, 0)
    line(settled(g, 2), "game", True, 1, 2)


# --------------------------------------------------------------------------------------
# §8 Laying down the cards
# --------------------------------------------------------------------------------------


def test_lay_down_only_on_lead_at_the_start_of_a_trick():
    g = suit_game(**M_)  # hra with a flek: no hundred involved
    play(g, M_OPEN_SOFT[:2])
    g.step("play:7l")
    g.step("play:8l")
    # The actor would qualify (no outstanding trump, Kb Qb on top) but is not on lead.
    assert g.to_move == F and not can_lay_down(g)
    g.step("play:9a")
    assert g.to_move == F and can_lay_down(g)  # on lead at the start of trick 4


def test_lay_down_needs_every_card_on_top():
    g = suit_game(**D004, announce="sedma")
    play(g, D004_PLAY[:5])
    assert g.to_move == F and not can_lay_down(g)  # Tl (dealer) is above the actor's Kl
    play(g, D004_PLAY[5:6])
    assert can_lay_down(g)  # Al, Tl gone: Ka Ja Kl 7a beat everything outstanding


def test_lay_down_outstanding_excludes_the_actors_own_talon():
    # Deal M: the trump seven and eight never appear, they lie in the actor's talon.
    g = suit_game(**M_)
    play(g, M_OPEN)
    assert can_lay_down(g)


def test_defender_lay_down_treats_the_talon_as_outstanding():
    g = suit_game(**N1)
    play(g, N2_T1)
    assert g.to_move == M and not can_lay_down(g)  # the trump seven is in the talon
    g = suit_game(**N2)
    play(g, N2_T1)
    assert g.to_move == M and can_lay_down(g)  # the same position with the seven in hand


def test_defender_lay_down_effect():
    # m claims every remaining trick and the last one; its trump seven counts as played
    # and winning in trick 10 (silent seven for the defence).  Defence cards: Aa (trick 1)
    # + Ta Ah Th Ab Tb Tl Al + last trick = 90; no marriage anywhere.
    g = suit_game(**N2)
    play(g, N2_T1)
    g.step("lay_down")
    assert [g.hand(s) for s in range(3)] == [0, 0, 0]
    assert points(g) == (0, 0, 90, 0)
    bets = settled(g, -2 - 1)
    line(bets, "game", False, 1, -2)  # hra lost at flek; 90 < 100: no silent hundred
    line(bets, "silent_seven", True, 1, -1)
    assert bets["silent_seven"]["owner"] == "defence"


def test_s8_lay_down_ends_the_deal_at_once_no_card_played():
    """§8 Effect: the deal is settled at once: nobody is to move after a lay-down and no
    card goes to the trick (trick 2 stays unled, the tricks taken are trick 1's)."""
    g = suit_game(**N2)
    play(g, N2_T1)
    before = [int(g.st[S.TRICKS + i]) for i in range(30)]
    g.step("lay_down")
    assert g.deal_over and g.to_move == -1 and g.legal_labels() == []
    assert int(g.st[S.TRICK_N]) == 0 and int(g.st[S.TLEAD + 1]) == -1
    assert [int(g.st[S.TRICKS + i]) for i in range(30)] == before
    assert int(g.st[S.CLAIMER]) == M


def test_defender_lay_down_counts_held_marriages_silent_hundred():
    # N2H: m also holds Ka Qa, counted for the defence: Pd = 90 + 40 = 130 -> the
    # defence's silent hundred 2 + 2*3 = 8, times 2 for the flek on the game.
    g = suit_game(**N2H)
    play(g, N2H_T1)
    g.step("lay_down")
    assert points(g) == (0, 0, 90, 40)
    bets = settled(g, -16 - 1)
    line(bets, "game", False, 8, -16)
    assert bets["game"]["silent_hundred"] == "defence"
    line(bets, "silent_seven", True, 1, -1)


def test_lay_down_with_the_seven_wins_the_seven():
    # D004 laid down at trick 7: the actor's 7a is taken as winning the last trick.
    g = suit_game(**D004, announce="sedma")
    play(g, D004_PLAY[:6])
    g.step("lay_down")
    assert points(g) == (50, 20, 40, 0)  # the last trick's 10 goes to the claimer
    bets = settled(g, 3)
    line(bets, "seven", True, 2, 2)
    g = suit_game(**D004)
    play(g, D004_PLAY[:6])
    g.step("lay_down")
    bets = settled(g, 2 + 1)
    line(bets, "silent_seven", True, 1, 1)


def test_lay_down_withheld_while_the_hundred_depends_on_the_marriage_order():
    # Deal M, sto: after three tricks the actor holds 40 and 20 unannounced, and its
    # cards come to 70: with the 20 first it is 90 (lost), with the 40 first 110 (won).
    g = suit_game(**M_, announce="sto")
    play(g, M_OPEN)
    assert not can_lay_down(g)
    g = suit_game(**M_)  # the same position without a hundred: offered
    play(g, M_OPEN)
    assert can_lay_down(g)
    # Once the actor has announced its 40 the order is fixed: offered.
    g = suit_game(**M_, announce="sto")
    play(g, M_OPEN + M_ORDER_A[:1])
    assert can_lay_down(g)
    g.step("lay_down")
    # Cards 70 (Aa Ta + last trick), marriages 40 announced + 20 held: counted 110,
    # Pa 130 -> 4 + 4*3 = 16, as when played out.
    assert points(g) == (70, 60, 20, 0)
    line(settled(g, 16), "game", True, 16, 16)


def test_lay_down_offered_once_the_hundred_side_has_announced_a_marriage():
    # The actor (sto) holds three marriages.  It announces bells (20) first, losing that
    # trick; at trick 5 it still holds Ka Qa (40) and Kl Ql (20), which would make a
    # difference were the first marriage still open (70 + 20 < 100 <= 70 + 40); but the
    # first marriage is fixed, so laying down is offered — even though the sto is lost.
    g = suit_game(
        actor="Aa Ta Ka Qa Ja Kb Qb Kl Ql Ah", talon="7a 8a",
        m="9a Al Ab Th Kh 9h 7b 8b 7l 8l", d="Tl Tb Qh Jh 8h 7h 9b Jb 9l Jl", trump="Ja",
        announce="sto",
    )
    play(g, [
        "Aa 9a Tl > f",  # 20 actor
        "Ta Al 9l > f",  # 20 actor
        "Qb Ab Tb > m",  # the actor announces 20 in bells; 20 defence
        "Th 7h Ah > f",  # 20 actor
    ])
    assert can_lay_down(g)
    g.step("lay_down")
    # Cards 60 + last trick 10 = 70; marriages 20 + 40 + 20; counted 70 + 20 = 90:
    # sto lost 4*1 + 4*0 = 4.
    assert points(g) == (70, 80, 20, 0)
    line(settled(g, -4), "game", False, 4, -4)


def test_no_lay_down_for_a_betl_defender():
    # The dealer wins trick 1 and then holds only the lowest cards of its suits, but in
    # betl only the actor may lay down (§8).
    g = betl_game("7h 8h 9h Th Jh 7b 8b 9b Tb Jb Qh Kh", "Qb Kb Ab Qa Ka Aa Jl Ql Kl Al",
                  "Ah 7a 8a 9a Ta Ja 7l 8l 9l Tl", "betl")
    play(g, ["7h Al Ah > d"])
    assert g.to_move == D and not can_lay_down(g)


def test_lay_down_offered_when_every_marriage_order_pays_the_same():
    # Deal M with the soft opening: the actor's cards would come to 80, so 80 + 20 and
    # 80 + 40 both make the hundred -> offered.  Laid down: the actor takes every
    # remaining trick (Aa Ta Th Tl Al) and the last: 20 + 50 + 10 = 80; both held
    # marriages count (bells first, h b l a): counted 100, Pa 140 -> 4 + 4*4 = 20.
    g = suit_game(**M_, announce="sto")
    play(g, M_OPEN_SOFT)
    assert can_lay_down(g)
    g.step("lay_down")
    assert points(g) == (80, 60, 10, 0)
    line(settled(g, 20), "game", True, 20, 20)


def test_lay_down_counts_every_held_marriage_claimer_first_suits_h_b_l_a():
    # HA hands, hra with a flek: the actor lays down at trick 4 holding Kb Qb and Ka Qa;
    # m still holds Kh Qh, which counts for the defence.  Order (§12): the claimer's
    # marriages first, suits h b l a (bells, then acorns), then m's hearts.
    g = suit_game(**HA)
    play(g, HA_PLAY[:3])
    g.step("lay_down")
    assert points(g) == (80, 60, 10, 20)
    order = {s: int(g.st[S.MARR_ORD + s]) for s in range(4)}  # suits h=0 b=1 l=2 a=3
    seat = {s: int(g.st[S.MARR_SEAT + s]) for s in range(4)}
    assert (order[1], order[3], order[0]) == (0, 1, 2)
    assert (seat[1], seat[3], seat[0], seat[2]) == (F, F, M, -1)
    # Pa = 140 > 40: silent hundred 2 + 2*4 = 10, times 2 for the flek.
    bets = settled(g, 20)
    line(bets, "game", True, 10, 20)


def test_lay_down_withheld_for_a_hundred_against():
    # N3: m announced hundred against and holds Ka Qa (40) and Kl Ql (20); the defence
    # has 10 and would take the rest: 10 + 50 + 10 = 70 -> 90 or 110 by the order.
    ag = ("against:hundred", "good", "good", "good")
    g = suit_game(**N3, flek=ag)
    play(g, N3_T12)
    assert g.to_move == M and not can_lay_down(g)
    g = suit_game(**N3)  # hra with a flek: offered
    play(g, N3_T12)
    assert can_lay_down(g)
    # m announces its 40 first, then lays down: defence cards 10 + (Ah Th Tb Ab Ta) 50
    # + 10 = 70, marriages 40 + 20 held; counted 110 -> hundred against won
    # 4 + 4*(130-100)/10 = 16; game lost 1 (no silent hundred beside a hundred against);
    # m's seven counts as winning the last trick: silent seven -1.
    g = suit_game(**N3, flek=ag)
    play(g, N3_T12 + ("Qa Jl 8l > m",))
    assert can_lay_down(g)
    g.step("lay_down")
    assert points(g) == (20, 0, 70, 60)
    bets = settled(g, -16 - 1 - 1)
    line(bets, "hundred_against", True, 16, -16)
    line(bets, "game", False, 1, -1)
    line(bets, "silent_seven", True, 1, -1)
    # The same, but m announces its 20 first: counted 70 + 20 = 90 although Pd = 130:
    # hundred against lost 4*1 + 4*(actor marriages 0) = 4, paid by the defence.
    g = suit_game(**N3, flek=ag)
    play(g, N3_T12 + ("Ql Jl 8l > m",))
    assert can_lay_down(g)
    g.step("lay_down")
    assert points(g) == (20, 0, 70, 60)
    bets = settled(g, 4 - 1 - 1)
    line(bets, "hundred_against", False, 4, 4)


def test_durch_lay_down():
    g = betl_game(DURCH_F, DURCH_M, DURCH_D, "durch")
    assert can_lay_down(g)
    g.step("lay_down")
    line(settled(g, 10), "game", True, 10, 10)
    # Natural ranking: Th is not on top while Jh is out (with trumps it would be).
    g = betl_game(DURCHX_F, DURCHX_M, DURCHX_D, "durch")
    assert not can_lay_down(g)


def test_betl_lay_down():
    # 7h 8h 9h Th: below every outstanding heart only with the natural ranking.
    g = betl_game(BETL_F, BETL_M, BETL_D, "betl")
    assert can_lay_down(g)
    g.step("lay_down")
    line(settled(g, 5), "game", True, 5, 5)
    assert [ncards(g.hand(s)) for s in range(3)] == [10, 10, 10]  # cards stay in hand


# --------------------------------------------------------------------------------------
# §9 Settlement
# --------------------------------------------------------------------------------------


def test_seed_004_worked_example():
    # Clubs, sedma, no flek; 50 card points + 20 against 40; the seven wins the last
    # trick: game 1 + seven 2 = 3 from each defender.
    g = suit_game(**D004, announce="sedma")
    play(g, D004_PLAY)
    bets = settled(g, 3)
    assert g.settlement()["payments"] == [6, -3, -3]
    line(bets, "game", True, 1, 1)
    line(bets, "seven", True, 2, 2)
    assert set(bets) == {"game", "seven"}  # no silent seven beside an announced one


@pytest.mark.parametrize("killed", [2, 3])
def test_seed_004_seven_beaten(killed):
    # "Had her 7 been beaten, she would have won 1 and lost 2 – paying each of them 1."
    g = suit_game(**B, announce="sedma", killed_seven=killed)
    play(g, B_PLAY)
    assert points(g) == (50, 0, 40, 0)
    bets = settled(g, 1 - killed)
    line(bets, "game", True, 1, 1)
    line(bets, "seven", False, killed, -killed)


def test_hra_won_and_silent_seven_won():
    # D004 as hra with a flek: game 1*2, silent seven for the actor +1.
    g = suit_game(**D004)
    play(g, D004_PLAY)
    bets = settled(g, 2 + 1)
    line(bets, "game", True, 1, 2)
    line(bets, "silent_seven", True, 1, 1)
    assert bets["silent_seven"]["seat"] == F


def test_hra_won_silent_seven_lost():
    g = suit_game(**B)
    play(g, B_PLAY)
    bets = settled(g, 2 - 1)
    line(bets, "silent_seven", False, 1, -1)  # the actor's seven was beaten


def test_silent_seven_of_a_defender_that_takes_the_last_trick():
    # RC: the defence takes every point (90 < 100: no silent hundred); m's seven wins
    # the last trick: the defence wins the silent seven.
    g = suit_game(**RC)
    play(g, RC_PLAY)
    assert points(g) == (0, 0, 90, 0)
    bets = settled(g, -2 - 1)
    line(bets, "game", False, 1, -2)
    line(bets, "silent_seven", True, 1, -1)
    assert bets["silent_seven"]["seat"] == M


def test_silent_seven_beaten_by_the_partner_costs_its_side():
    g = suit_game(**RD)
    play(g, RD_PLAY)
    assert points(g) == (0, 0, 90, 0)
    bets = settled(g, -2 + 1)
    line(bets, "silent_seven", False, 1, 1)  # d beat m's seven: the defence pays 1
    assert bets["silent_seven"]["seat"] == M


def test_no_silent_seven_for_a_seven_in_the_talon_or_played_early():
    g = suit_game(**M_)
    play(g, M_OPEN + M_ORDER_A)
    assert "silent_seven" not in settled(g, 16)  # the trump seven lies in the talon
    g = suit_game(**L_, announce="sto")
    play(g, L_PLAY_70)
    assert "silent_seven" not in settled(g, -4)  # the seven went to trick 7


def test_seven_against_won_and_lost():
    ag = ("against:seven", "good", "good", "good")
    # RC: m's seven takes the last trick: seven against won, 2 from the actor to each;
    # the game (hra, no flek) is lost: 1.  No silent seven beside a seven against.
    g = suit_game(**RC, flek=ag)
    play(g, RC_PLAY)
    bets = settled(g, -1 - 2)
    line(bets, "game", False, 1, -1)
    line(bets, "seven_against", True, 2, -2)
    assert bets["seven_against"]["seat"] == M and "silent_seven" not in bets
    # RD: the partner beats it: seven against lost (killed seven: 3).
    for killed in (2, 3):
        g = suit_game(**RD, flek=ag, killed_seven=killed)
        play(g, RD_PLAY)
        bets = settled(g, -1 + killed)
        line(bets, "seven_against", False, killed, killed)


def test_seven_against_won_by_lay_down():
    g = suit_game(**N2, flek=("against:seven", "good", "good", "good"))
    play(g, N2_T1)
    g.step("lay_down")
    bets = settled(g, -1 - 2)
    line(bets, "seven_against", True, 2, -2)


def test_silent_hundred_worked_example():
    # §9: silent hundred with 130 and a flek on the game: (2 + 3*2) * 2 = 16.  All
    # marriages count, in any order (here the 20 was played first).
    g = suit_game(**M_)
    play(g, M_OPEN + M_ORDER_B)
    assert points(g) == (70, 60, 20, 0)
    bets = settled(g, 16)
    line(bets, "game", True, 8, 16)
    assert bets["game"]["silent_hundred"] == "actor"


def test_hundred_against_won_replaces_the_defence_silent_hundred():
    # N2H with hundred against (m holds Ka Qa), no flek: m lays down; counted
    # 90 + 40 = 130 -> 4 + 4*3 = 16 paid by the actor; the game lost is worth 1, not a
    # silent hundred; m's seven: silent seven for the defence.
    g = suit_game(**N2H, flek=("against:hundred", "good", "good", "good"))
    play(g, N2H_T1)
    g.step("lay_down")
    bets = settled(g, -1 - 16 - 1)
    line(bets, "game", False, 1, -1)
    assert "silent_hundred" not in bets["game"]
    line(bets, "hundred_against", True, 16, -16)


@pytest.mark.parametrize(
    "flek, level", [(("against:hundred", "good", "good", "good"), 1),
                    (("against:hundred", "good", "good", "flek:hundred_against", "good",
                      "good", "good"), 2)],
)
def test_hundred_against_lost(flek, level):
    # HA: actor cards 80 + marriages 60 = 140; defence cards 10, first marriage 20.
    # Hundred against lost: 4*(100-30)/10 + 4*60/10 = 28 + 24 = 52 (times the flek).
    # The actor's silent hundred stays: 2 + 2*4 = 10 (game not flekked).
    g = suit_game(**HA, flek=flek)
    play(g, HA_PLAY)
    assert points(g) == (80, 60, 10, 20)
    bets = settled(g, 10 + 52 * level)
    line(bets, "hundred_against", False, 52, 52 * level)
    line(bets, "game", True, 10, 10)
    assert bets["game"]["silent_hundred"] == "actor"


@pytest.mark.parametrize(
    "flek, amount",
    [
        (QUIET, 16),  # (4 + 4) * 2 (hearts)
        (("flek:game", "good", "good", "good"), 32),  # the flek doubles the tens too
        (("flek:game", "good", "good", "flek:game", "good", "good", "good"), 64),  # re
    ],
)
def test_sto_made_with_110_in_hearts(flek, amount):
    g = suit_game(**S_, announce="sto", flek=flek)
    play(g, S_PLAY)
    assert points(g) == (90, 20, 0, 0)
    bets = settled(g, amount)
    line(bets, "game", True, 8, amount)
    assert set(bets) == {"game"}  # the trump seven went to trick 2


def test_sto_lost_worked_examples():
    # Counted 70 + 20 = 90 -> 4; counted 50 + 20 = 70 -> 3 * 4 = 12 (no defence marriage).
    g = suit_game(**L_, announce="sto")
    play(g, L_PLAY_70)
    assert points(g) == (70, 20, 20, 0)
    line(settled(g, -4), "game", False, 4, -4)
    g = suit_game(**L_, announce="sto")
    play(g, L_PLAY_50)
    assert points(g) == (50, 20, 40, 0)
    line(settled(g, -12), "game", False, 12, -12)


def test_sto_lost_pays_for_the_defence_marriages():
    # Counted 90 -> 4*1, plus 4 * 20/10 for the defence's marriage = 12.
    g = suit_game(**L2, announce="sto")
    play(g, L2_PLAY)
    line(settled(g, -12), "game", False, 12, -12)


def test_sto_lost_beside_a_silent_seven():
    # D004 as sto: counted 50 + 20 = 70 -> lost 12; the seven wins trick 10: +1.
    g = suit_game(**D004, announce="sto")
    play(g, D004_PLAY)
    bets = settled(g, -12 + 1)
    line(bets, "game", False, 12, -12)
    line(bets, "silent_seven", True, 1, 1)
    g = suit_game(**D004, announce="sto_sedma")
    play(g, D004_PLAY)
    bets = settled(g, -12 + 2)
    line(bets, "seven", True, 2, 2)
    assert "silent_seven" not in bets


def test_each_flek_doubles_its_own_bet():
    # D004 sedma with a flek on the seven only: game 1, seven 2*2 = 4.
    g = suit_game(**D004, announce="sedma", flek=("flek:seven", "good", "good", "good"))
    play(g, D004_PLAY)
    bets = settled(g, 1 + 4)
    line(bets, "seven", True, 2, 4)
    assert bets["seven"]["level"] == 1 and bets["game"]["level"] == 0


def test_hearts_double_every_amount():
    g = suit_game(**D004, announce="sedma", suits=HEARTS)
    play(g, D004_PLAY, suits=HEARTS)
    assert g.settlement()["trump"] == "h"
    bets = settled(g, (1 + 2) * 2)
    line(bets, "seven", True, 2, 4)
    g = suit_game(**RC, suits=HEARTS)
    play(g, RC_PLAY, suits=HEARTS)
    bets = settled(g, (-2 - 1) * 2)
    line(bets, "silent_seven", True, 1, -2)  # 1*H, never flekked


def test_conceded_deal_pays_only_the_game():
    # §5.4/§9: no flek, no announcement: the defence concedes 1 (hearts 2); no silent
    # hundred or silent seven although the actor would have made 130 or the seven.
    for kw, suits, amount in ((M_, None, 1), (D004, None, 1), (D004, HEARTS, 2)):
        g = suit_game(**kw, flek=QUIET, suits=suits)
        assert g.deal_over
        bets = settled(g, amount)
        assert set(bets) == {"game"} and "silent_hundred" not in bets["game"]
        assert g.settlement()["end"] == "conceded"


def test_sedma_not_played_records_game_lost_and_seven_won():
    # §12: sedma, flek on the game only, no re: not played; -2*H + 2*H.
    for suits, h in ((None, 1), (HEARTS, 2)):
        g = suit_game(**D004, announce="sedma", flek=("flek:game", "good", "good", "good"),
                      suits=suits)
        assert g.deal_over
        bets = settled(g, 0)
        line(bets, "game", False, 1, -2 * h)
        line(bets, "seven", True, 2, 2 * h)


def test_payment_cap_variant():
    g = suit_game(**S_, announce="sto", flek=("flek:game", "good", "good", "good"),
                  payment_cap=20)
    play(g, S_PLAY)
    settled(g, 20)  # 32 capped at 20 per defender
    g = suit_game(**RC, payment_cap=2)
    play(g, RC_PLAY)
    settled(g, -2)  # -3 capped at -2


# --------------------------------------------------------------------------------------
# §10 The partie
# --------------------------------------------------------------------------------------


def test_partie_totals_are_the_sum_of_the_deals_and_zero_sum():
    rng = random.Random(20240601)
    g = Game()
    g.new_partie(seed=7)
    for deal in range(12):  # §10: a partie is its 12 deals, each at most a deal's steps
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            g.step(rng.choice(g.legal_labels()))
        assert g.next_deal() == (deal < 11), deal
    assert len(g.records) == 12
    totals = [0, 0, 0]
    for rec in g.records:
        pay = rec["settlement"]["payments"]
        assert sum(pay) == 0
        totals = [t + p for t, p in zip(totals, pay)]
    assert list(g.scores) == totals
    assert sum(totals) == 0
