"""Scripted deals for RULES.md §1–§5 and the bidding, flek and deck fine points of §12.

Every test names the rule it checks; each would fail if that rule were broken.
Seats are given by role: with dealer ``d`` forehand is ``(d+1)%3`` and
middlehand ``(d+2)%3`` (§1).  Most scripted deals use the deck ``D1`` below.
"""

from __future__ import annotations

import numpy as np
import pytest

import mariash_env
from mariash_env import CardError, Game, IllegalActionError, OptionError, RulesError
from mariash_env.actions import ActionError, action_index, action_label
from mariash_env.cards import CARD_CODES, card_index, codes_of, mask_of
from mariash_env.core import state as S
from mariash_env.core.observe import O_HAND, O_TRUMP_CARD, O_TRUMP_SUIT
from tests.helpers import deck_from_hands, new_game, play, step_cap

# --------------------------------------------------------------------------------------
# Scripted hands
# --------------------------------------------------------------------------------------
# D1.  Forehand: 7a Ka Qa Aa Ta 8h 9h | Jh Ab 7b 8b 9l (Jh = deck position 17, z lidu).
# Middlehand holds the hearts marriage and 7h; dealer holds no marriage and no seven of
# acorns or hearts.  With the trump card Ka (acorns) forehand may announce everything;
# with 8h (hearts) it has no trump seven but the (non-trump) acorns marriage.
F7 = ["7a", "Ka", "Qa", "Aa", "Ta", "8h", "9h"]
F5 = ["Jh", "Ab", "7b", "8b", "9l"]
MID = ["7h", "Th", "Qh", "Kh", "Ah", "9b", "Tb", "Jb", "Qb", "Kl"]
DLR = ["7l", "8l", "Tl", "Jl", "Ql", "Kb", "Al", "8a", "9a", "Ja"]
D1 = deck_from_hands(F7, F5, MID, DLR)


def swap_suits(cards, a, b):
    """Exchange suits ``a`` and ``b`` in a list of card codes."""
    tr = {a: b, b: a}
    return [c[0] + tr.get(c[1], c[1]) for c in cards]


# D1 with acorns and hearts exchanged: forehand holds 7h Kh Qh Ah Th (trump card Kh:
# hearts, every amount doubled, and forehand may announce sedma).
D1H = swap_suits(D1, "a", "h")

# D1 with Kl and Kb exchanged: middlehand holds the hearts and bells marriages, the
# dealer the leaves marriage (both defenders may announce hundred against).
D1M = [{"Kl": "Kb", "Kb": "Kl"}.get(c, c) for c in D1]

# D3.  Middlehand holds ten top cards (a durch it can lay down); forehand the twelve
# lowest cards (a betl it can lay down).
D3_F7 = ["7h", "8h", "9h", "7b", "8b", "9b", "7l"]
D3_F5 = ["8l", "9l", "7a", "8a", "9a"]
D3_MID = ["Ah", "Kh", "Qh", "Ab", "Kb", "Qb", "Al", "Kl", "Aa", "Ka"]
D3_DLR = ["Th", "Jh", "Tb", "Jb", "Tl", "Jl", "Ql", "Ta", "Ja", "Qa"]
D3 = deck_from_hands(D3_F7, D3_F5, D3_MID, D3_DLR)


def roles(dealer):
    """(dealer, forehand, middlehand) seats for ``dealer`` (§1)."""
    return dealer, (dealer + 1) % 3, (dealer + 2) % 3


def hand(g, seat):
    return set(codes_of(g.hand(seat)))


def labels(g):
    return set(g.legal_labels())


def to_announce(deck=D1, trump="Ka", discards=("8b", "9l"), dealer=0, **rules):
    """Forehand: trump card, suit, two discards; both defenders answer good."""
    g = new_game(deck, dealer, **rules)
    play(g, [f"trump:{trump}", "contract:suit", *(f"discard:{c}" for c in discards)])
    play(g, ["good", "good"])
    assert g.phase_name == "announce"
    return g


def to_flek(announce="hra", **kw):
    g = to_announce(**kw)
    g.step(f"announce:{announce}")
    assert g.phase_name == "flek"
    return g


def level(g, bet):
    return int(g.st[S.BET_LEVEL + ("game", "seven", "seven_against", "hundred_against").index(bet)])


def in_dealt_order(cards, deck):
    """Cards ordered by their position in the deck as dealt (§2, §12)."""
    return sorted(cards, key=deck.index)


def next_deck(stack, k):
    """The next deal's deck: the stack reversed (top first), then cut by ``k`` (§12)."""
    deck = list(reversed(stack))
    assert sorted(deck) == sorted(CARD_CODES)
    return deck[k:] + deck[:k]


def first_legal_deal(g):
    """Finish the current deal taking the lowest legal index each time (hra conceded)."""
    tick = step_cap(g)  # never loop forever
    while not g.deal_over:
        tick()
        g.step(g.legal_actions()[0])


def zero_sum(settlement):
    assert sum(settlement["payments"]) == 0


# --------------------------------------------------------------------------------------
# §1 Cards, seats, order
# --------------------------------------------------------------------------------------
def test_s1_card_codes_and_indices():
    """§1: index = suit×8 + rank; ranks 7 8 9 T J Q K A, suits h b l a."""
    assert len(CARD_CODES) == 32 and len(set(CARD_CODES)) == 32
    assert CARD_CODES[0] == "7h" and CARD_CODES[7] == "Ah"
    assert CARD_CODES[8] == "7b" and CARD_CODES[31] == "Aa"
    assert card_index("Qh") == 5 and card_index("Tl") == 19 and card_index("Ja") == 28
    for s, suit in enumerate("hbla"):
        for r, rank in enumerate("789TJQKA"):
            assert card_index(rank + suit) == s * 8 + r
            assert CARD_CODES[s * 8 + r] == rank + suit
    # Action labels carry the same codes.
    assert action_label(action_index("play:7h")) == "play:7h"
    assert action_index("play:Aa") - action_index("play:7h") == 31


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_s1_seats_forehand_middlehand(dealer):
    """§1: forehand = (d+1)%3 (12 cards, moves first), middlehand = (d+2)%3."""
    g = new_game(D1, dealer)
    d, f, m = roles(dealer)
    assert int(g.st[S.DEALER]) == d and int(g.st[S.FOREHAND]) == f
    assert g.to_move == f and g.phase_name == "trump"
    assert hand(g, f) == set(F7 + F5)
    assert hand(g, m) == set(MID)
    assert hand(g, d) == set(DLR)
    # "In turn" is clockwise: Barva? goes to middlehand, then dealer.
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l"])
    assert g.to_move == m
    g.step("good")
    assert g.to_move == d


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_s1_next_dealer_is_old_forehand(dealer):
    """§1/§12: the deal passes to the left: the next dealer is this deal's forehand."""
    g = Game()
    g.new_partie(seed=5, deck=D1, dealer=dealer, cuts=[10])
    first_legal_deal(g)
    assert g.next_deal()
    f = (dealer + 1) % 3
    assert int(g.st[S.DEALER]) == f
    assert int(g.st[S.FOREHAND]) == (f + 1) % 3 and g.to_move == (f + 1) % 3


# --------------------------------------------------------------------------------------
# §2 Deck handling
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_s2_block_dealing_positions(dealer):
    """§2: forehand 0–6 & 17–21, middlehand 7–11 & 22–26, dealer 12–16 & 27–31."""
    deck = list(range(32))  # position p holds card p
    g = Game()
    g.new_partie(seed=1, deck=deck, dealer=dealer)
    d, f, m = roles(dealer)
    pos = {
        f: list(range(0, 7)) + list(range(17, 22)),
        m: list(range(7, 12)) + list(range(22, 27)),
        d: list(range(12, 17)) + list(range(27, 32)),
    }
    for seat, ps in pos.items():
        assert g.hand(seat) == sum(1 << p for p in ps)
    assert g.deck() == [CARD_CODES[c] for c in deck]  # dealt as is: no shuffle, no cut
    assert int(g.st[S.CUT]) == -1


def test_s2_first_dealer_defaults_to_seat_0():
    """§2 Decision: the first dealer is seat 0 unless the caller chooses another."""
    g = Game()
    g.new_partie(seed=1)
    assert int(g.st[S.DEALER]) == 0 and g.to_move == 1
    e = mariash_env.raw_env()
    e.reset(seed=1)
    assert e.agent_selection == "player_1"
    e.reset(seed=1, options={"deck": D1, "dealer": 2, "cuts": [4]})
    assert e.agent_selection == "player_0" and int(e.game.st[S.DEALER]) == 2
    assert e.game.deck() == D1 and set(e.legal_labels()) == {f"trump:{c}" for c in F7} | {
        "trump:blind"
    }


def test_s2_deck_as_indices_equals_codes():
    """INTERFACE reset option: the deck may be given as codes or indices."""
    a = new_game(D1)
    b = new_game([card_index(c) for c in D1])
    assert np.array_equal(a.st, b.st)


def test_s2_partie_has_12_deals_each_seat_deals_4_times():
    """§2: 12 deals, the deal passes left, each seat deals 4 times; then the partie ends."""
    g = Game()
    g.new_partie(seed=11, dealer=2)
    dealers = []
    tick = step_cap(g, deals=None)
    while True:
        tick()
        dealers.append(int(g.st[S.DEALER]))
        assert g.deal_no == len(dealers) - 1
        first_legal_deal(g)
        if not g.next_deal():
            break
    assert dealers == [(2 + i) % 3 for i in range(12)]
    assert all(dealers.count(s) == 4 for s in range(3))
    assert g.partie_over and len(g.records) == 12
    assert int(g.st[S.PARTIE_DONE]) == 1  # the record's flag: 0 or 1 (a state restored)
    assert sum(g.scores) == 0
    assert g.next_deal() is False  # stays over


def test_s2_only_first_deal_shuffled_same_seed_same_partie():
    """§2: the first deal is shuffled from the seed; the same seed gives the same partie."""

    def run(seed):
        g = Game()
        g.new_partie(seed=seed)
        decks, cuts = [], []
        tick = step_cap(g, deals=None)
        while True:
            tick()
            decks.append(g.deck())
            cuts.append(int(g.st[S.CUT]))
            first_legal_deal(g)
            if not g.next_deal():
                break
        return decks, cuts, list(g.scores)

    a, b, c = run(123), run(123), run(124)
    assert a == b
    assert a[0][0] != c[0][0]
    assert sorted(a[0][0]) == sorted(CARD_CODES)
    assert a[1][0] == -1 and all(2 <= k <= 30 for k in a[1][1:])


def test_s2_cut_drawn_uniformly_2_to_30():
    """§2: without ``cuts`` the cut k is uniform on 2..30 (every value, nothing else)."""
    counts = dict.fromkeys(range(2, 31), 0)
    n = 0
    for seed in range(80):
        g = Game(deals=12)
        g.new_partie(seed=seed)
        tick = step_cap(g, deals=None)
        while True:
            tick()
            first_legal_deal(g)
            if not g.next_deal():
                break
            k = int(g.st[S.CUT])
            assert k in counts, k
            counts[k] += 1
            n += 1
    assert n == 80 * 11
    assert all(v > 0 for v in counts.values()), counts
    # 880 draws, 29 values: expected ~30.3 each; loose bounds against a gross bias.
    assert min(counts.values()) >= 8 and max(counts.values()) <= 60, counts
    assert abs(sum(k * v for k, v in counts.items()) / n - 16) < 1.0


def test_s2_cut_is_drawn_whatever_was_played():
    """§2: the cut is drawn at random from the partie's generator: the same seed gives the
    same cuts however the deals were played and paid (the deals' booking never touches the
    generator)."""

    def cuts_and_payments(pick):
        g = Game()
        g.new_partie(seed=5)
        cuts, pays = [], []
        while True:
            for _ in range(200):
                if g.deal_over:
                    break
                g.step(g.legal_actions()[pick])
            pays.append(g.records[-1]["settlement"]["payments"] if g.records else None)
            if not g.next_deal():
                break
            cuts.append(int(g.st[S.CUT]))
        return cuts, pays

    (cuts_a, pays_a), (cuts_b, pays_b) = cuts_and_payments(0), cuts_and_payments(-1)
    assert len(cuts_a) == len(cuts_b) == 11
    assert pays_a != pays_b  # the deals went differently
    assert cuts_a == cuts_b


def test_s2_given_cuts_are_used_in_order():
    """INTERFACE: ``cuts`` fixes the cut of the 2nd, 3rd, … deal."""
    g = Game()
    g.new_partie(seed=3, cuts=[2, 30, 17])
    got = []
    for _ in range(4):
        first_legal_deal(g)
        assert g.next_deal()
        got.append(int(g.st[S.CUT]))
    assert got[:3] == [2, 30, 17] and 2 <= got[3] <= 30


def test_s2_shuffle_every_deal_variant():
    """§11 shuffling variant: every deal reshuffled (no cut); default gathers instead."""
    decks = []
    for shuffle in ("partie", "every_deal"):
        g = Game(shuffle=shuffle)
        g.new_partie(seed=8, deck=D1, cuts=[5])
        first_legal_deal(g)
        assert g.next_deal()
        decks.append((g.deck(), int(g.st[S.CUT])))
    (gathered, k0), (shuffled, k1) = decks
    assert k0 == 5 and k1 == 0
    assert sorted(shuffled) == sorted(CARD_CODES) and shuffled != gathered


# ---- gathering (§2, §12) -------------------------------------------------------------
# A complete suit game on D1: acorns (Ka), talon 8b then 9l, sedma, no flek, played.
# Tricks 1–7 are led by forehand (order F, M, D), 8–10 by middlehand (order M, D, F).
FULL_TRICKS = [
    ("Aa", "9b", "8a"), ("Ta", "Jb", "9a"), ("Ka", "Qb", "Ja"), ("Qa", "Kl", "7l"),
    ("Ab", "Tb", "Kb"), ("7b", "7h", "8l"), ("8h", "Qh", "Jl"),
    ("Ah", "Ql", "9h"), ("Kh", "Tl", "Jh"), ("Th", "Al", "7a"),
]
FULL_WINNERS = "FFFFFFMMMF"


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_s2_gathering_after_played_deal(dealer):
    """§2/§12: piles F, M, D bottom to top; actor: talon (discard order) then tricks in
    order taken, cards in play order; deck = reversed stack; cut k → deck[k:]+deck[:k]."""
    d, f, m = roles(dealer)
    g = Game()
    g.new_partie(seed=0, deck=D1, dealer=dealer, cuts=[5])
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "good", "good"])
    play(g, ["announce:sedma", "good", "good"])
    assert g.phase_name == "play" and g.to_move == f
    seat_of = {"F": f, "M": m, "D": d}
    for t, trick in enumerate(FULL_TRICKS):
        for c in trick:
            ended = g.step(f"play:{c}")
        assert int(g.st[S.TWIN + t]) == seat_of[FULL_WINNERS[t]]
    assert ended and g.deal_over
    # §1: aces and tens 10 each, the last trick 10: 90 card points in a deal.
    assert int(g.st[S.PTS + f]) == 70 and int(g.st[S.PTS + m]) == 20
    assert int(g.st[S.PTS : S.PTS + 3].sum()) == 90
    # By hand: forehand's pile = talon, then its 7 tricks; middlehand's its 3; dealer none.
    f_pile = ["8b", "9l"]
    m_pile = []
    for trick, w in zip(FULL_TRICKS, FULL_WINNERS):
        (f_pile if w == "F" else m_pile).extend(trick)
    assert f_pile == ["8b", "9l", "Aa", "9b", "8a", "Ta", "Jb", "9a", "Ka", "Qb", "Ja",
                      "Qa", "Kl", "7l", "Ab", "Tb", "Kb", "7b", "7h", "8l", "Th", "Al", "7a"]
    assert m_pile == ["8h", "Qh", "Jl", "Ah", "Ql", "9h", "Kh", "Tl", "Jh"]
    expected = next_deck(f_pile + m_pile, 5)
    assert g.next_deal()
    assert g.deck() == expected
    assert int(g.st[S.CUT]) == 5 and int(g.st[S.DEALER]) == f
    # The new deal is dealt in blocks from that deck (§2): new forehand = old middlehand.
    nf, nm, nd = m, d, f
    assert hand(g, nf) == set(expected[0:7] + expected[17:22])
    assert hand(g, nm) == set(expected[7:12] + expected[22:27])
    assert hand(g, nd) == set(expected[12:17] + expected[27:32])


@pytest.mark.parametrize("k", [2, 13, 30])
def test_s2_gathering_after_conceded_deal(k):
    """§2/§12: a deal not played: talon under the actor's hand, hands in dealt order."""
    g = Game()
    g.new_partie(seed=0, deck=D1, dealer=0, cuts=[k])
    play(g, ["trump:Ka", "contract:suit", "discard:9l", "discard:8b", "good", "good"])
    play(g, ["announce:hra", "good", "good"])
    assert g.settlement()["end"] == "conceded"
    f_pile = ["9l", "8b"] + [c for c in F7 + F5 if c not in ("8b", "9l")]
    stack = f_pile + MID + DLR
    assert g.next_deal()
    assert g.deck() == next_deck(stack, k)


def test_s2_gathering_after_betl_broken_early():
    """§2: betl lost at trick 1: talon, the one trick, then hands in dealt order."""
    g = Game()
    g.new_partie(seed=0, deck=D1, dealer=0, cuts=[7])
    play(g, ["trump:Ka", "contract:betl", "discard:Ka", "discard:8h", "good", "good"])
    assert g.phase_name == "flek"
    play(g, ["good", "good"])
    assert g.phase_name == "play" and g.to_move == 1  # betl: the actor leads
    play(g, ["play:Aa", "play:9b"])
    assert g.step("play:8a")  # forehand takes the trick: betl broken, deal over
    s = g.settlement()
    assert s["end"] == "decided_early" and s["contract"] == "betl"
    f_pile = ["Ka", "8h", "Aa", "9b", "8a"] + [
        c for c in F7 + F5 if c not in ("Ka", "8h", "Aa")
    ]
    m_pile = [c for c in MID if c != "9b"]
    d_pile = [c for c in DLR if c != "8a"]
    assert g.next_deal()
    assert g.deck() == next_deck(f_pile + m_pile + d_pile, 7)


def test_s2_gathering_earlier_talon_from_hand_durch_broken():
    """§12: only the actor's final talon goes under its tricks; an earlier talon taken
    into a hand is gathered from that hand in dealt order (also a bad-sayer's)."""
    g = Game()
    g.new_partie(seed=0, deck=D1, dealer=0, cuts=[4])
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l"])
    play(g, ["bad", "contract:betl", "discard:Ah", "discard:Th"])  # middlehand (2)
    play(g, ["good", "contract:durch"])  # dealer good, forehand durch over the betl
    play(g, ["discard:7b", "discard:8h"])  # forehand's final talon
    play(g, ["good", "good"])  # defence: middlehand, dealer
    assert g.phase_name == "play" and g.to_move == 1
    play(g, ["play:9h", "play:Qh"])
    assert g.step("play:7l")  # middlehand wins: durch broken
    assert g.settlement()["contract"] == "durch" and g.settlement()["actor"] == 1
    # Forehand: final talon; no tricks; hand in dealt order incl. Th (pos 8), Ah (pos 11).
    f_pile = ["7b", "8h", "7a", "Ka", "Qa", "Aa", "Ta", "Th", "Ah", "Jh", "Ab"]
    # Middlehand: its trick; its hand in dealt order incl. 8b (pos 20) and 9l (pos 21).
    m_pile = ["9h", "Qh", "7l", "7h", "Kh", "8b", "9l", "9b", "Tb", "Jb", "Qb", "Kl"]
    d_pile = [c for c in DLR if c != "7l"]
    assert f_pile[2:] == in_dealt_order(f_pile[2:], D1)
    assert g.next_deal()
    assert g.deck() == next_deck(f_pile + m_pile + d_pile, 4)


def test_s2_gathering_after_durch_lay_down():
    """§2/§8/§12: after a durch lay-down the remaining cards form one batch on top of the
    claimer's tricks: claimer's hand first, then clockwise, each in dealt order."""
    g = Game()
    g.new_partie(seed=0, deck=D3, dealer=0, cuts=[9])
    play(g, ["trump:7h", "contract:suit", "discard:7b", "discard:8b"])
    play(g, ["bad", "contract:durch", "discard:8b", "discard:7b"])  # middlehand (2)
    play(g, ["good", "good"])  # defence: dealer (0), then forehand (1)
    assert g.phase_name == "play" and g.to_move == 2
    play(g, ["play:Ah", "play:Jh", "play:7h"])
    assert g.to_move == 2 and "lay_down" in labels(g)
    assert g.step("lay_down")
    assert g.settlement()["end"] == "laid_down"
    m_rest = [c for c in D3_MID if c != "Ah"]
    d_rest = [c for c in D3_DLR if c != "Jh"]
    f_rest = [c for c in D3_F7 + D3_F5 if c not in ("7b", "8b", "7h")]
    # Claimer is middlehand (2): batch order 2, 0, 1.  Forehand and dealer piles empty.
    m_pile = ["8b", "7b", "Ah", "Jh", "7h"] + m_rest + d_rest + f_rest
    assert g.next_deal()
    assert g.deck() == next_deck(m_pile, 9)


def test_s2_gathering_after_betl_lay_down_cards_stay_in_hands():
    """§2: after a betl lay-down the cards stay in the hands (gathered per seat)."""
    g = Game()
    g.new_partie(seed=0, deck=D3, dealer=0, cuts=[21])
    play(g, ["trump:7h", "contract:betl", "discard:9a", "discard:9l", "good", "good"])
    play(g, ["good", "good"])
    assert g.to_move == 1 and "lay_down" in labels(g)
    assert g.step("lay_down")
    assert g.settlement()["end"] == "laid_down"
    f_pile = ["9a", "9l"] + [c for c in D3_F7 + D3_F5 if c not in ("9a", "9l")]
    assert g.next_deal()
    assert g.deck() == next_deck(f_pile + D3_MID + D3_DLR, 21)


# --------------------------------------------------------------------------------------
# §3 Choosing trumps
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_s3_trump_offers_first_seven_and_blind(seed):
    """§3/§12: trump:<card> exactly for forehand's first 7 cards, plus trump:blind."""
    g = Game()
    g.new_partie(seed=seed)
    deck = g.deck()
    assert labels(g) == {f"trump:{c}" for c in deck[:7]} | {"trump:blind"}
    assert g.legal_labels(int(g.st[S.DEALER])) == []  # §12: not to move → empty


@pytest.mark.parametrize("seed", range(4))
def test_s3_blind_takes_deck_position_17(seed):
    """§3: z lidu = the card at deck position 17 (first card of forehand's second block)."""
    g = Game()
    g.new_partie(seed=seed)
    blind = g.deck()[17]
    g.step("trump:blind")
    assert CARD_CODES[int(g.st[S.TRUMP_CARD])] == blind and g.st[S.BLIND] == 1
    assert blind in hand(g, g.to_move)
    g.step("contract:suit")
    assert f"discard:{blind}" not in labels(g)  # the trump card can't go to the talon


def test_s3_forehand_sees_first_seven_then_picks_up_the_rest():
    """§3: forehand sees only its first 7 cards while choosing; then it holds all 12."""
    g = new_game(D1)
    shown = g.observation(1)[O_HAND : O_HAND + 32]
    assert set(codes_of(sum(1 << i for i in np.flatnonzero(shown)))) == set(F7)
    g.step("trump:Ka")
    shown = g.observation(1)[O_HAND : O_HAND + 32]
    assert set(codes_of(sum(1 << i for i in np.flatnonzero(shown)))) == set(F7 + F5)


def test_s3_blind_on_d1_is_jh():
    g = new_game(D1)
    play(g, ["trump:blind", "contract:suit"])
    assert CARD_CODES[int(g.st[S.TRUMP_CARD])] == "Jh"
    assert "discard:Jh" not in labels(g) and "discard:9h" in labels(g)


def test_s3_trump_card_not_discardable_in_suit_but_in_betl_and_durch():
    """§3/§4/§12: the trump card is barred from a suit talon, free in betl/durch."""
    g = new_game(D1)
    play(g, ["trump:Qa", "contract:suit"])
    assert "discard:Qa" not in labels(g)
    for con in ("betl", "durch"):
        g = new_game(D1)
        play(g, ["trump:Qa", f"contract:{con}"])
        assert "discard:Qa" in labels(g)
        g.step("discard:Qa")
        assert "Qa" not in hand(g, 1)


def test_s3_trump_card_stays_secret_until_announcement():
    """§3/§5.1: only forehand knows the trump card; it becomes public at announcement."""
    g = new_game(D1)
    g.step("trump:Ka")
    ka = card_index("Ka")
    assert g.observation(1)[O_TRUMP_CARD + ka] == 1
    for s in (0, 2):
        assert g.observation(s)[O_TRUMP_CARD : O_TRUMP_CARD + 32].sum() == 0
    play(g, ["contract:suit", "discard:8b", "discard:9l", "good", "good"])
    assert g.st[S.TRUMP_PUBLIC] == 0
    for s in (0, 2):
        assert g.observation(s)[O_TRUMP_SUIT : O_TRUMP_SUIT + 4].sum() == 0
    g.step("announce:hra")
    assert g.st[S.TRUMP_PUBLIC] == 1
    for s in range(3):
        assert g.observation(s)[O_TRUMP_SUIT + 3] == 1  # acorns
        assert g.observation(s)[O_TRUMP_CARD + ka] == 1
    assert "Ka" in hand(g, 1)  # shown and back in the hand


def test_s3_trump_card_returns_unshown_after_bad():
    """§4.2: after bad the trump card returns to forehand's hand unshown."""
    g = new_game(D1)
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "bad"])
    assert "Ka" in hand(g, 1) and len(hand(g, 1)) == 10
    assert g.st[S.TRUMP_PUBLIC] == 0
    for s in (0, 2):
        obs = g.observation(s)
        assert obs[O_TRUMP_CARD : O_TRUMP_CARD + 32].sum() == 0
        assert obs[O_TRUMP_SUIT : O_TRUMP_SUIT + 4].sum() == 0


# --------------------------------------------------------------------------------------
# §4 The contract
# --------------------------------------------------------------------------------------
def test_s4_contract_first_then_two_discards():
    """§4.1 Decision: the contract is chosen first, then the two discards, one each."""
    g = new_game(D1)
    g.step("trump:Ka")
    assert g.phase_name == "contract" and g.to_move == 1
    assert labels(g) == {"contract:suit", "contract:betl", "contract:durch"}
    g.step("contract:suit")
    assert g.phase_name == "discard" and g.to_move == 1
    assert all(lab.startswith("discard:") for lab in labels(g))
    g.step("discard:8b")
    assert g.phase_name == "discard" and g.to_move == 1 and "discard:8b" not in labels(g)
    g.step("discard:9l")
    assert g.phase_name == "barva" and g.to_move == 2
    assert g.st[S.DISC] == card_index("8b") and g.st[S.DISC + 1] == card_index("9l")
    assert len(hand(g, 1)) == 10


def test_s4_suit_discards_exclude_aces_tens_trump_card():
    """§4.1/§12: no ace, no ten, not the trump card; other trumps, even the seven, allowed."""
    g = new_game(D1)
    play(g, ["trump:Ka", "contract:suit"])
    allowed = {"7a", "Qa", "8h", "9h", "Jh", "7b", "8b", "9l"}
    assert labels(g) == {f"discard:{c}" for c in allowed}
    # The trump seven may be discarded; then sedma can't be announced.
    play(g, ["discard:7a", "discard:Qa", "good", "good"])
    assert labels(g) == {"announce:hra"}


@pytest.mark.parametrize("con", ["betl", "durch"])
def test_s4_betl_durch_discard_any_two(con):
    """§4.1: in betl/durch any 2 cards, aces and tens included."""
    g = new_game(D1)
    play(g, ["trump:Ka", f"contract:{con}"])
    assert labels(g) == {f"discard:{c}" for c in F7 + F5}
    play(g, ["discard:Aa", "discard:Ta"])
    assert hand(g, 1) == set(F7 + F5) - {"Aa", "Ta"}


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_s4_barva_answered_middlehand_then_dealer_both_good(dealer):
    """§4.2: Barva? answered in turn by middlehand, then dealer; both good → suit stands."""
    d, f, m = roles(dealer)
    g = new_game(D1, dealer)
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l"])
    assert g.phase_name == "barva" and g.to_move == m and labels(g) == {"good", "bad"}
    assert g.legal_labels(d) == [] and g.legal_labels(f) == []
    g.step("good")
    assert g.phase_name == "barva" and g.to_move == d and labels(g) == {"good", "bad"}
    g.step("good")
    assert g.phase_name == "announce" and g.to_move == f
    assert int(g.st[S.ACTOR]) == f and int(g.st[S.CONTRACT]) == S.C_SUIT


@pytest.mark.parametrize("who", ["middlehand", "dealer"])
def test_s4_first_bad_takes_talon_then_betl_or_durch(who):
    """§4.2/§12: the first bad ends the round; the bad-sayer takes the talon at once
    (12 cards), then chooses contract:betl|durch (no suit), then discards any 2."""
    g = new_game(D1, 0)
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l"])
    if who == "dealer":
        g.step("good")
    bad = g.to_move
    before = hand(g, bad)
    g.step("bad")
    assert g.to_move == bad and g.phase_name == "contract"
    assert hand(g, bad) == before | {"8b", "9l"} and len(hand(g, bad)) == 12
    assert g.st[S.TALON] == 0
    # Nothing lies in the talon any more: forehand's discards are not recorded as lying
    # there (DISC -1 -1, no owner) until the bad-sayer discards; the taken cards are his.
    assert [int(x) for x in g.st[S.DISC:S.DISC + 2]] == [-1, -1]
    assert int(g.st[S.TALON_OWNER]) == -1
    assert set(codes_of(int(S.getm(g.st, S.TOOK + bad)))) == {"8b", "9l"}
    assert labels(g) == {"contract:betl", "contract:durch"}
    g.step("contract:betl")
    assert g.phase_name == "discard" and g.to_move == bad
    assert labels(g) == {f"discard:{c}" for c in hand(g, bad)}  # any two, aces and tens too
    aces_tens = [c for c in sorted(hand(g, bad)) if c[0] in "AT"][:2]
    play(g, [f"discard:{c}" for c in aces_tens])
    assert int(g.st[S.ACTOR]) == bad and int(g.st[S.CONTRACT]) == S.C_BETL
    assert set(codes_of(int(g.st[S.TALON]) & 0xFFFFFFFF)) == set(aces_tens)
    # The betl is answered by the other two in turn from the betl player.
    assert g.phase_name == "betl_answer" and g.to_move == (bad + 1) % 3
    assert labels(g) == {"good", "contract:durch"}


def test_s4_bad_sayer_durch_is_not_answered():
    """§4.3: nobody answers a durch (a bad-sayer's durch goes straight to flek)."""
    g = new_game(D1)
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "bad", "contract:durch"])
    play(g, ["discard:Ah", "discard:8b"])
    assert g.phase_name == "flek" and int(g.st[S.ACTOR]) == 2
    assert g.to_move == 0 and labels(g) == {"flek:game", "good"}


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_s4_forehand_betl_answered_in_turn_first_durch_takes_talon(dealer):
    """§4.3/§12: forehand's betl answered by middlehand then dealer; the first durch takes
    the betl player's talon, discards any 2, and is the actor; nobody answers it."""
    d, f, m = roles(dealer)
    g = new_game(D1, dealer)
    play(g, ["trump:Ka", "contract:betl", "discard:Aa", "discard:7b"])
    assert g.phase_name == "betl_answer" and g.to_move == m
    assert labels(g) == {"good", "contract:durch"}
    g.step("good")
    assert g.phase_name == "betl_answer" and g.to_move == d
    g.step("contract:durch")
    assert g.to_move == d and g.phase_name == "discard"
    assert hand(g, d) == set(DLR) | {"Aa", "7b"}
    assert labels(g) == {f"discard:{c}" for c in hand(g, d)}
    play(g, ["discard:Al", "discard:7l"])
    assert int(g.st[S.ACTOR]) == d and int(g.st[S.CONTRACT]) == S.C_DURCH
    assert g.phase_name == "flek" and g.to_move == (d + 1) % 3 == f  # defence round, not answers


def test_s4_betl_both_good_then_flek_actor_is_betl_player():
    g = new_game(D1)
    play(g, ["trump:Ka", "contract:betl", "discard:Aa", "discard:7b", "good"])
    assert g.to_move == 0
    g.step("good")
    assert g.phase_name == "flek" and int(g.st[S.ACTOR]) == 1 and g.to_move == 2
    assert int(g.st[S.CONTRACT]) == S.C_BETL


def test_s4_taken_over_betl_forehand_may_answer_durch():
    """§12: a betl taken over by a bad-sayer is answered from the betl player; forehand
    (the second answerer here) may answer durch and takes the betl player's talon."""
    g = new_game(D1, 0)
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "bad"])  # middlehand
    play(g, ["contract:betl", "discard:Ah", "discard:Th"])
    assert g.phase_name == "betl_answer" and g.to_move == 0  # (2+1)%3: dealer first
    g.step("good")
    assert g.to_move == 1 and labels(g) == {"good", "contract:durch"}
    g.step("contract:durch")
    assert hand(g, 1) == set(F7 + F5) - {"8b", "9l"} | {"Ah", "Th"}
    play(g, ["discard:Ka", "discard:Aa"])  # the old trump card may go now
    assert int(g.st[S.ACTOR]) == 1 and int(g.st[S.CONTRACT]) == S.C_DURCH
    assert g.phase_name == "flek" and g.to_move == 2


def test_s4_durch_over_taken_betl_ends_round_at_first_durch():
    """§4.3: the first durch ends the round: the second answerer has no turn."""
    g = new_game(D1, 0)
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "bad"])
    play(g, ["contract:betl", "discard:Ah", "discard:Th"])
    g.step("contract:durch")  # dealer answers durch at once
    assert g.to_move == 0 and g.phase_name == "discard"
    play(g, ["discard:7l", "discard:8l"])
    assert g.phase_name == "flek" and int(g.st[S.ACTOR]) == 0 and g.to_move == 1


def test_s4_forehand_direct_durch_not_answered():
    """§4.3: nobody answers a durch: straight to the defence's flek round."""
    g = new_game(D1)
    play(g, ["trump:Ka", "contract:durch", "discard:7b", "discard:8b"])
    assert g.phase_name == "flek" and g.to_move == 2
    assert labels(g) == {"flek:game", "good"}


def test_s4_actor_is_last_contract_maker_in_settlement():
    """§4.4: the actor is whoever made the last contract (here the durch over a betl)."""
    g = new_game(D1, 0)
    play(g, ["trump:Ka", "contract:betl", "discard:Aa", "discard:7b", "contract:durch"])
    play(g, ["discard:7h", "discard:9b", "good", "good"])
    assert int(g.st[S.ACTOR]) == 2 and g.to_move == 2  # durch: the actor leads
    # Play the durch to its end with legal cards; the settlement names the actor.
    first_legal_deal(g)
    s = g.settlement()
    assert s["actor"] == 2 and s["contract"] == "durch"
    zero_sum(s)


# --------------------------------------------------------------------------------------
# §5.1 Announcements
# --------------------------------------------------------------------------------------
def test_s5_1_all_announcements_with_seven_and_marriage():
    """§5.1: sedma with the trump seven, sto with a marriage, sto_sedma with both."""
    g = to_announce()
    assert g.to_move == 1
    assert labels(g) == {"announce:hra", "announce:sedma", "announce:sto", "announce:sto_sedma"}


def test_s5_1_no_sedma_without_trump_seven_marriage_any_suit():
    """§5.1/§12: hearts trumps, 7h with middlehand: no sedma; the acorns (non-trump)
    marriage is enough for sto."""
    g = to_announce(trump="8h")
    assert labels(g) == {"announce:hra", "announce:sto"}


def test_s5_1_no_sto_after_discarding_marriage_card():
    """§12: judged on the 10 cards after the discards."""
    g = to_announce(discards=("Qa", "8b"))
    assert labels(g) == {"announce:hra", "announce:sedma"}


def test_s5_1_trump_card_counts_for_sedma_and_sto():
    """§12: the trump card is included: trump card 7a allows sedma; Ka forms the marriage."""
    g = to_announce(trump="7a")
    assert "announce:sedma" in labels(g) and "announce:sto_sedma" in labels(g)
    # Blind trump card Jh: hearts; forehand lacks 7h but has the acorns marriage.
    g = new_game(D1)
    play(g, ["trump:blind", "contract:suit", "discard:8b", "discard:9l", "good", "good"])
    assert labels(g) == {"announce:hra", "announce:sto"}


def test_s5_1_no_marriage_no_seven_only_hra():
    g = to_announce(trump="8h", discards=("Qa", "7a"))
    assert labels(g) == {"announce:hra"}


# --------------------------------------------------------------------------------------
# §5.2 / §5.3 / §12 Flek protocol
# --------------------------------------------------------------------------------------
def test_s5_3_round1_offers_actor_bets_and_against():
    """§5.3/§12: defence turns (actor+1) then (actor+2); round 1 may raise all of the
    actor's bets; against:hundred only for a defender holding a marriage."""
    g = to_flek("sedma")
    assert g.to_move == 2
    assert labels(g) == {"flek:game", "flek:seven", "against:hundred", "good"}
    g.step("good")
    assert g.to_move == 0 and labels(g) == {"flek:game", "flek:seven", "good"}


def test_s5_3_several_actions_each_once_partner_not_offered():
    """§5.3/§12: several flek/against in one turn, each once, ended by good; a bet raised
    (or announced) by one defender is not offered to its partner; the partner still
    takes its turn with only good."""
    g = to_flek("sedma")
    g.step("flek:game")
    assert labels(g) == {"flek:seven", "against:hundred", "good"} and g.to_move == 2
    g.step("against:hundred")
    assert labels(g) == {"flek:seven", "good"} and g.to_move == 2
    g.step("flek:seven")
    assert labels(g) == {"good"} and g.to_move == 2
    g.step("good")
    assert g.to_move == 0 and g.phase_name == "flek" and labels(g) == {"good"}
    g.step("good")
    # Round 2, the actor: exactly what the defence raised or announced.
    assert g.to_move == 1
    assert labels(g) == {"flek:game", "flek:seven", "flek:hundred_against", "good"}
    assert level(g, "game") == 1 and level(g, "seven") == 1 and level(g, "hundred_against") == 0
    assert int(g.st[S.BET_SEAT + 3]) == 2


def test_s5_3_later_rounds_only_bets_raised_in_previous_round():
    """§12: round r>1 may raise exactly the bets the other side raised/announced in r−1."""
    g = to_flek("sedma")
    play(g, ["good", "flek:seven", "good"])  # middlehand good, dealer flek on the seven
    assert g.to_move == 1 and labels(g) == {"flek:seven", "good"}
    play(g, ["flek:seven", "good"])  # re on the seven
    assert level(g, "seven") == 2 and level(g, "game") == 0
    # Round 3: both defenders, only the seven (tutti); the game is closed for good.
    assert g.to_move == 2 and labels(g) == {"flek:seven", "good"}
    g.step("good")
    assert g.to_move == 0 and labels(g) == {"flek:seven", "good"}
    g.step("good")
    assert g.phase_name == "play" and g.to_move == 1  # nothing raised: flekking ends


def test_s5_3_against_bet_flekked_by_actor_then_re_by_defence():
    """§5.3: a defence announcement is raised by the actor (odd levels by the non-owner),
    then by the defence (even levels by the owner); other bets closed."""
    g = to_flek("sedma")
    play(g, ["flek:game", "against:hundred", "good", "good"])
    play(g, ["flek:hundred_against", "good"])  # actor flekks only the hundred against
    assert level(g, "hundred_against") == 1 and level(g, "game") == 1
    assert g.to_move == 2 and labels(g) == {"flek:hundred_against", "good"}
    g.step("flek:hundred_against")
    assert labels(g) == {"good"}
    g.step("good")
    assert g.to_move == 0 and labels(g) == {"good"}  # partner still takes its turn
    g.step("good")
    assert g.to_move == 1 and labels(g) == {"flek:hundred_against", "good"}
    g.step("good")
    assert g.phase_name == "play" and level(g, "hundred_against") == 2


def test_s5_3_hundred_against_once_for_the_side():
    """§5.3: hundred against at most once for the side: the partner is not offered it."""
    g = to_flek("hra", deck=D1M)
    assert "against:hundred" in labels(g)
    g.step("good")
    assert g.to_move == 0 and "against:hundred" in labels(g)  # dealer: Ql+Kl
    g = to_flek("hra", deck=D1M)
    play(g, ["against:hundred", "good"])
    assert g.to_move == 0 and labels(g) == {"flek:game", "good"}


def test_s5_3_no_against_after_first_round():
    """§12: against:* only in the defence's first round."""
    g = to_flek("hra", trump="8h")
    assert labels(g) == {"flek:game", "against:seven", "against:hundred", "good"}
    play(g, ["flek:game", "good", "good", "flek:game", "good"])  # flek, re
    assert g.to_move == 2 and labels(g) == {"flek:game", "good"}  # no against in round 3


def test_s5_3_seven_against_needs_trump_seven():
    """§5.3/§12: seven against only by a defender holding the trump seven (7h: middlehand)."""
    g = to_flek("hra", trump="8h")
    g.step("against:seven")
    assert labels(g) == {"flek:game", "against:hundred", "good"}
    g.step("good")
    assert g.to_move == 0 and labels(g) == {"flek:game", "good"}  # no 7h, no marriage
    g.step("good")
    assert g.to_move == 1 and labels(g) == {"flek:seven_against", "good"}
    g.step("flek:seven_against")
    g.step("good")
    assert g.to_move == 2 and labels(g) == {"flek:seven_against", "good"}


def test_s5_3_hundred_against_not_against_sto():
    """§5.3/§12: hundred against only when forehand did not announce sto."""
    g = to_flek("sto", trump="8h")
    assert labels(g) == {"flek:game", "against:seven", "good"}
    g = to_flek("sto_sedma")
    assert labels(g) == {"flek:game", "flek:seven", "good"}


def test_s5_3_levels_up_to_boty_then_stop():
    """§5.2: levels flek 1, re 2, tutti 3, boty 4 (default max_flek); nothing beyond."""
    g = to_flek("hra")
    play(g, ["flek:game", "good", "good"])  # flek (defence)
    assert g.to_move == 1 and labels(g) == {"flek:game", "good"}
    play(g, ["flek:game", "good"])  # re (actor)
    play(g, ["good", "flek:game", "good"])  # tutti (dealer)
    assert g.to_move == 1 and labels(g) == {"flek:game", "good"}
    g.step("flek:game")  # boty
    assert level(g, "game") == 4 and labels(g) == {"good"}
    g.step("good")
    assert g.phase_name == "play" and g.to_move == 1  # no fifth round


def test_s5_3_max_flek_2_stops_at_re():
    """§11 max_flek: with max_flek=2 the re ends flekking (no defence round follows)."""
    g = to_flek("hra", max_flek=2)
    play(g, ["flek:game", "good", "good", "flek:game"])
    assert labels(g) == {"good"}
    g.step("good")
    assert g.phase_name == "play" and level(g, "game") == 2


def test_s5_3_max_flek_1_round2_only_below_max():
    """§12: round r>1 offers only bets below max_flek (game at 1 = max is not offered)."""
    g = to_flek("hra", trump="8h", max_flek=1)
    play(g, ["flek:game", "against:seven", "good", "good"])
    assert g.to_move == 1 and labels(g) == {"flek:seven_against", "good"}


def test_s5_3_max_flek_0_no_flek_at_all():
    g = to_flek("hra", max_flek=0)
    assert labels(g) == {"against:hundred", "good"}
    g.step("good")
    assert labels(g) == {"good"}
    assert g.step("good")
    assert g.settlement()["end"] == "conceded"


def test_s5_3_max_flek_unlimited():
    """§11 max_flek=None: flekking goes on past boty."""
    g = to_flek("hra", max_flek=None)
    for lvl in range(1, 8):
        assert "flek:game" in labels(g)
        if lvl % 2:  # defence (odd levels)
            play(g, ["flek:game", "good", "good"])
        else:
            play(g, ["flek:game", "good"])
        assert level(g, "game") == lvl
    assert g.to_move == 1 and "flek:game" in labels(g)
    g.step("good")
    assert g.phase_name == "play"


@pytest.mark.parametrize("con", ["betl", "durch"])
def test_s5_3_betl_durch_rounds_on_game_only(con):
    """§5.3: betl/durch flek rounds on the single game bet, no announcements (forehand
    as a defender holds the old trump card's seven and a marriage)."""
    g = new_game(D1, 0)
    play(g, ["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "bad"])
    play(g, [f"contract:{con}", "discard:Ah", "discard:Th"])
    if con == "betl":
        play(g, ["good", "good"])
    assert g.phase_name == "flek" and g.to_move == 0 and labels(g) == {"flek:game", "good"}
    g.step("flek:game")
    assert labels(g) == {"good"}
    g.step("good")
    assert g.to_move == 1 and labels(g) == {"good"}  # forehand: 7a, Ka+Qa, yet nothing
    g.step("good")
    assert g.to_move == 2 and labels(g) == {"flek:game", "good"}
    play(g, ["flek:game", "good"])
    assert g.to_move == 0 and labels(g) == {"flek:game", "good"}
    play(g, ["good", "good"])
    assert g.phase_name == "play" and g.to_move == 2 and level(g, "game") == 2


# --------------------------------------------------------------------------------------
# §5.4 Deals that are not played
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "deck,trump,h", [(D1, "Ka", 1), (D1, "8h", 2)], ids=["acorns", "hearts"]
)
def test_s5_4_hra_unflekked_is_conceded(deck, trump, h):
    """§5.4: hra, no flek, no announcement: the deal ends after the last good; each
    defender pays 1 (hearts 2); no card play."""
    g = to_flek("hra", deck=deck, trump=trump)
    assert g.step("good") is False
    assert g.step("good") is True  # the dealer's good ends the deal
    assert g.deal_over and g.phase_name == "done" and int(g.st[S.TRICK_NO]) == 0
    s = g.settlement()
    assert s["end"] == "conceded" and s["actor"] == 1 and s["amount"] == h
    assert s["payments"] == [-h, 2 * h, -h]
    zero_sum(s)
    game = [b for b in s["bets"] if b["bet"] == "game"][0]
    assert game["won"] and game["level"] == 0 and game["amount"] == h
    assert [b["bet"] for b in s["bets"]] == ["game"]  # no silent seven or hundred
    assert g.records[-1]["actions"][-1] == [0, "good"]
    assert list(g.scores) == [-h, 2 * h, -h]


def test_s5_4_hra_conceded_other_dealer():
    g = to_flek("hra", dealer=2)  # forehand 0, middlehand 1, dealer 2
    play(g, ["good"])
    assert g.step("good")
    assert g.settlement()["payments"] == [2, -1, -1]


@pytest.mark.parametrize(
    "script",
    [
        ["flek:game", "good", "good", "good"],  # game flekked, forehand no re
        ["against:hundred", "good", "good", "good"],  # an announcement, no flek
    ],
    ids=["flek", "against"],
)
def test_s5_4_hra_flekked_or_announced_is_played(script):
    """§5.4: a flekked hra, or one with a defence announcement, is played."""
    g = to_flek("hra", trump="8h")
    play(g, script)
    assert g.phase_name == "play" and g.to_move == 1


def test_s5_4_hra_seven_against_only_is_played():
    g = to_flek("hra", trump="8h")
    play(g, ["against:seven", "good", "good", "good"])
    assert g.phase_name == "play" and level(g, "game") == 0


@pytest.mark.parametrize("deck,trump,h", [(D1, "Ka", 1), (D1H, "Kh", 2)], ids=["acorns", "hearts"])
def test_s5_4_sedma_game_flek_only_not_played(deck, trump, h):
    """§5.4/§12: sedma, the defence flekked only the game, forehand no re: not played,
    nobody pays; recorded as game lost at flek (−2H) and seven won (+2H)."""
    g = to_flek("sedma", deck=deck, trump=trump)
    play(g, ["flek:game", "good", "good"])
    assert g.to_move == 1 and labels(g) == {"flek:game", "good"}
    assert g.step("good") is True
    s = g.settlement()
    assert s["end"] == "sedma_not_played" and int(g.st[S.TRICK_NO]) == 0
    assert s["payments"] == [0, 0, 0] and s["amount"] == 0
    bets = {b["bet"]: b for b in s["bets"]}
    assert set(bets) == {"game", "seven"}
    assert bets["game"]["level"] == 1 and not bets["game"]["won"]
    assert bets["game"]["amount"] == -2 * h
    assert bets["seven"]["level"] == 0 and bets["seven"]["won"]
    assert bets["seven"]["amount"] == 2 * h
    assert list(g.scores) == [0, 0, 0]


@pytest.mark.parametrize(
    "announce,script",
    [
        ("sedma", ["good", "good"]),  # sedma without flek
        ("sedma", ["flek:game", "good", "good", "flek:game", "good", "good", "good"]),  # re
        ("sedma", ["flek:seven", "good", "good", "good"]),  # only the seven flekked
        ("sedma", ["flek:game", "flek:seven", "good", "good", "good"]),  # both flekked
        ("sedma", ["flek:game", "against:hundred", "good", "good", "good"]),  # announcement
        ("sto_sedma", ["flek:game", "good", "good", "good"]),  # not announce:sedma
        ("sto", ["good", "good"]),  # every sto
        ("sto", ["flek:game", "good", "good", "good"]),
    ],
)
def test_s5_4_everything_else_is_played(announce, script):
    """§5.4: sedma without flek, sedma with re / seven flek / an announcement, every
    sto, sto a sedma: played."""
    g = to_flek(announce)
    play(g, script)
    assert g.phase_name == "play" and g.to_move == 1 and not g.deal_over


@pytest.mark.parametrize("con", ["betl", "durch"])
def test_s5_4_betl_durch_always_played(con):
    g = new_game(D1)
    play(g, ["trump:Ka", f"contract:{con}", "discard:7b", "discard:8b"])
    if con == "betl":
        play(g, ["good", "good"])
    play(g, ["good", "good"])
    assert g.phase_name == "play" and g.to_move == 1


def test_s5_4_not_played_deal_cards_stay_for_gathering_and_scores_sum():
    """§5.4 + §10: a not-played deal books its payments; partie totals sum to zero."""
    g = Game()
    g.new_partie(seed=0, deck=D1H, dealer=0, cuts=[3])
    play(g, ["trump:Kh", "contract:suit", "discard:8b", "discard:9l", "good", "good"])
    play(g, ["announce:hra", "good", "good"])
    assert list(g.scores) == [-2, 4, -2]
    stack = ["8b", "9l"] + [c for c in swap_suits(F7 + F5, "a", "h") if c not in ("8b", "9l")]
    stack += swap_suits(MID, "a", "h") + swap_suits(DLR, "a", "h")
    assert g.next_deal()
    assert g.deck() == next_deck(stack, 3)
    assert list(g.scores) == [-2, 4, -2]


# --------------------------------------------------------------------------------------
# Errors: illegal actions, labels, reset options, rules
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "prefix,bad",
    [
        ([], "trump:Jh"),  # Jh is position 17, not in the first 7
        ([], "play:7a"),
        (["trump:Ka"], "discard:8b"),  # contract first
        (["trump:Ka", "contract:suit"], "discard:Aa"),
        (["trump:Ka", "contract:suit"], "discard:Ka"),
        (["trump:Ka", "contract:suit", "discard:8b", "discard:9l"], "contract:durch"),
        (["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "bad"], "contract:suit"),
        (["trump:8h", "contract:suit", "discard:8b", "discard:9l", "good", "good"],
         "announce:sedma"),
        (["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "good", "good",
          "announce:hra"], "flek:seven"),
        (["trump:Ka", "contract:suit", "discard:8b", "discard:9l", "good", "good",
          "announce:sto"], "against:hundred"),
    ],
)
def test_illegal_action_raises_and_applies_nothing(prefix, bad):
    g = new_game(D1)
    play(g, prefix)
    st = g.st.copy()
    hist = list(g.history)
    legal = g.legal_labels()
    with pytest.raises(IllegalActionError) as ei:
        g.step(bad)
    msg = str(ei.value)
    assert repr(bad) in msg
    assert str(legal) in msg
    assert np.array_equal(g.st, st) and g.history == hist
    with pytest.raises(IllegalActionError):
        g.step(action_index(bad))  # the same by index
    assert np.array_equal(g.st, st)
    g.step(legal[0])  # the game goes on


def test_unknown_label_and_bad_index_errors():
    g = new_game(D1)
    st = g.st.copy()
    with pytest.raises(ActionError, match="unknown action label 'flek:everything'"):
        g.step("flek:everything")
    with pytest.raises(ValueError, match="unknown action label"):
        g.step("trump:Xx")
    for i in (115, -1, 10**6):
        with pytest.raises(IllegalActionError, match="out of range"):
            g.step(i)
    for a in (1.5, None, True):
        with pytest.raises(IllegalActionError):
            g.step(a)
    assert np.array_equal(g.st, st)
    with pytest.raises(ActionError, match="out of range"):
        action_label(115)
    # Card labels accept any case of the code.
    g.step("trump:ka")
    assert CARD_CODES[int(g.st[S.TRUMP_CARD])] == "Ka"


def test_no_action_after_the_deal_is_over():
    g = to_flek("hra")
    play(g, ["good", "good"])
    st = g.st.copy()
    with pytest.raises(IllegalActionError, match="over"):
        g.step("good")
    assert np.array_equal(g.st, st)
    assert all(g.legal_labels(s) == [] for s in range(3))


def test_legal_labels_of_seat_not_to_move_is_empty():
    """§12: legal_labels of a seat that is not to move is the empty list."""
    g = to_flek("sedma")
    assert g.to_move == 2
    assert g.legal_labels(0) == [] and g.legal_labels(1) == [] and g.legal_labels(2)
    e = mariash_env.raw_env()
    e.reset(seed=0, options={"deck": D1})
    assert e.legal_labels("player_0") == [] and e.legal_labels("player_2") == []
    assert set(e.legal_labels("player_1")) == {f"trump:{c}" for c in F7} | {"trump:blind"}


@pytest.mark.parametrize(
    "deck,match",
    [
        (D1[:31], "exactly 32 cards, got 31"),
        (D1 + ["7h"], "exactly 32 cards, got 33"),
        (D1[:31] + ["7a"], r"each card once: \['7a'\] repeated, \['Ja'\] missing"),
        (D1[:31] + ["Xz"], "unknown card code 'Xz'"),
        (D1[:31] + [32], "out of range"),
        (D1[:31] + [None], "a card must be"),
        (5, "a deck must be a sequence"),
    ],
)
def test_reset_bad_deck_raises_card_error(deck, match):
    g = Game()
    with pytest.raises(CardError, match=match):
        g.new_partie(seed=0, deck=deck)
    e = mariash_env.raw_env()
    with pytest.raises(CardError, match=match):
        e.reset(seed=0, options={"deck": deck})


@pytest.mark.parametrize("dealer", [3, -1, "0", 1.0, True])
def test_reset_bad_dealer(dealer):
    with pytest.raises(OptionError, match="invalid dealer"):
        Game().new_partie(seed=0, dealer=dealer)
    e = mariash_env.raw_env()
    with pytest.raises(OptionError, match="invalid dealer"):
        e.reset(seed=0, options={"dealer": dealer})


@pytest.mark.parametrize("cuts", [[1], [31], [2, 0], ["x"], 5])
def test_reset_bad_cuts(cuts):
    with pytest.raises(OptionError, match="cut"):
        Game().new_partie(seed=0, cuts=cuts)
    e = mariash_env.raw_env()
    with pytest.raises(OptionError, match="cut"):
        e.reset(seed=0, options={"cuts": cuts})


def test_reset_failure_keeps_previous_state():
    g = new_game(D1)
    g.step("trump:Ka")
    st = g.st.copy()
    with pytest.raises(CardError):
        g.new_partie(seed=1, deck=D1[:31])
    assert np.array_equal(g.st, st)


def test_unknown_rule_option_raises_rules_error():
    with pytest.raises(RulesError, match="unknown rule option 'flek_limit'"):
        Game(flek_limit=3)
    with pytest.raises(RulesError, match="unknown rule option"):
        mariash_env.env(no_such_rule=1)
    with pytest.raises(RulesError, match="max_flek"):
        Game(max_flek=-1)
    with pytest.raises(RulesError, match="tariff"):
        Game(tariff="cheap")


def test_mask_helpers_consistent_with_hands():
    """Sanity for the helpers used above: the hand masks are exactly the scripted cards."""
    g = new_game(D1)
    assert g.hand(1) == mask_of(F7 + F5) and g.hand(2) == mask_of(MID)
    assert g.hand(0) == mask_of(DLR)


# --------------------------------------------------------------------------------------
# Random deals against an independent model of §2–§5 (bidding, flek, gathering)
# --------------------------------------------------------------------------------------
def _check_random_deal(seed):
    """Play one deal with random legal actions; re-check the bidding rules at every step
    and the gathered next deck against a model built only from the actions taken."""
    import random

    rng = random.Random(seed)
    max_flek = rng.choice([4, 4, 2, None])
    g = Game(deals=2, max_flek=max_flek)
    k = rng.randint(2, 30)
    g.new_partie(seed=seed, dealer=rng.randrange(3), cuts=[k])
    deck = g.deck()
    d, f, m = roles(int(g.st[S.DEALER]))
    hands = {f: set(deck[0:7] + deck[17:22]), m: set(deck[7:12] + deck[22:27]),
             d: set(deck[12:17] + deck[27:32])}
    talon: list[str] = []
    plays: list[str] = []
    claimer = None
    contract = trump = announce = None
    bad = False
    answers: list[int] = []
    fleks: dict[str, int] = {}
    against: set[str] = set()
    rnd = turn = actor = None
    levels: dict[str, int] = {}
    raisable: set[str] = set()
    moved: set[str] = set()
    lim = 99 if max_flek is None else max_flek
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        ph, seat, labs = g.phase_name, g.to_move, g.legal_labels()
        assert set(g.legal_mask().tolist()) <= {0, 1}  # INTERFACE: int8, 1 = legal
        assert hand(g, seat) == hands[seat] or ph == "play"
        if ph == "trump":
            assert seat == f and set(labs) == {f"trump:{c}" for c in deck[:7]} | {"trump:blind"}
        elif ph == "contract":
            assert len(hands[seat]) == 12
            want = {"contract:betl", "contract:durch"} | (set() if bad else {"contract:suit"})
            assert set(labs) == want
        elif ph == "discard":
            allowed = {
                c for c in hands[seat]
                if contract != "suit" or (c[0] not in "AT" and c != trump)
            }
            assert set(labs) == {f"discard:{c}" for c in allowed}
        elif ph == "barva":
            assert seat == (m if not answers else d) and set(labs) == {"good", "bad"}
        elif ph == "betl_answer":
            assert seat == (actor + 1 + len(answers)) % 3
            assert set(labs) == {"good", "contract:durch"}
        elif ph == "announce":
            seven = ("7" + trump[1]) in hands[f]
            marriage = any({"K" + s, "Q" + s} <= hands[f] for s in "hbla")
            want = {"announce:hra"} | ({"announce:sedma"} if seven else set())
            want |= {"announce:sto"} if marriage else set()
            want |= {"announce:sto_sedma"} if seven and marriage else set()
            assert set(labs) == want
        elif ph == "flek":
            if rnd is None:  # the first flek turn: round 1, the actor's bets
                rnd, turn, moved = 1, 0, set()
                levels = {"game": 0}
                if announce in ("sedma", "sto_sedma"):
                    levels["seven"] = 0
                raisable = {b for b in levels if levels[b] < lim}
            assert seat == ((actor + 1 + turn) % 3 if rnd % 2 else actor)
            want = {f"flek:{b}" for b in raisable - moved} | {"good"}
            if contract == "suit" and rnd == 1:
                if "seven" not in levels and "seven_against" not in levels and (
                    "7" + trump[1] in hands[seat]
                ):
                    want.add("against:seven")
                if announce not in ("sto", "sto_sedma") and "hundred_against" not in levels and any(
                    {"K" + x, "Q" + x} <= hands[seat] for x in "hbla"
                ):
                    want.add("against:hundred")
            assert set(labs) == want
            for b, lv in levels.items():
                assert level(g, b) == lv
        # A random legal action, biased towards suit games, good and lay-downs.
        prefer = {"contract:suit": 0.75, "good": 0.6, "lay_down": 0.7}
        lab = next((x for x in labs if x in prefer and rng.random() < prefer[x]), None)
        lab = lab or rng.choice(labs)
        # The model.
        if ph == "trump":
            trump = deck[17] if lab == "trump:blind" else lab[6:]
        elif ph == "contract":
            contract, actor, answers = lab[9:], seat, []
        elif ph == "discard":
            hands[seat].remove(lab[8:])
            talon.append(lab[8:])
        elif ph == "barva":
            answers.append(seat)
            if lab == "bad":
                bad = True
                hands[seat] |= set(talon)
                talon = []
        elif ph == "betl_answer":
            answers.append(seat)
            if lab == "contract:durch":
                hands[seat] |= set(talon)
                talon, contract, actor = [], "durch", seat
        elif ph == "announce":
            announce = lab[9:]
        elif ph == "flek":
            if lab.startswith("flek:"):
                fleks[lab] = fleks.get(lab, 0) + 1
                levels[lab[5:]] += 1
                moved.add(lab[5:])
            elif lab.startswith("against:"):
                against.add(lab)
                b = {"against:seven": "seven_against", "against:hundred": "hundred_against"}[lab]
                levels[b] = 0
                moved.add(b)
            elif rnd % 2 and turn == 0:
                turn = 1
            else:
                raisable = {b for b in moved if levels[b] < lim}
                rnd, turn, moved = rnd + 1, 0, set()
        elif ph == "play":
            if lab == "lay_down":
                claimer = seat
            else:
                hands[seat].remove(lab[5:])
                plays.append(lab[5:])
        g.step(lab)
    s = g.settlement()
    zero_sum(s)
    assert s["actor"] == actor and s["contract"] == contract and len(talon) == 2
    # §5.4: which suit games are not played.
    if contract == "suit":
        if announce == "hra" and not fleks and not against:
            assert s["end"] == "conceded" and not plays
        elif (announce == "sedma" and fleks.get("flek:game") == 1 and "flek:seven" not in fleks
              and not against):
            assert s["end"] == "sedma_not_played" and s["payments"] == [0, 0, 0]
        else:
            assert s["end"] in ("played", "laid_down")
    # §2/§12 gathering, modelled from the actions alone (trick winners from the engine).
    piles: dict[int, list[str]] = {0: [], 1: [], 2: []}
    piles[actor] += talon
    for t in range(len(plays) // 3):
        piles[int(g.st[S.TWIN + t])] += plays[3 * t : 3 * t + 3]
    if claimer is not None and contract != "betl":
        for j in range(3):
            piles[claimer] += in_dealt_order(hands[(claimer + j) % 3], deck)
            hands[(claimer + j) % 3] = set()
    for seat in range(3):
        piles[seat] += in_dealt_order(hands[seat], deck)
    stack = piles[f] + piles[m] + piles[d]
    assert g.next_deal()
    assert g.deck() == next_deck(stack, k)
    assert int(g.st[S.DEALER]) == f
    return s["end"], contract


def test_random_deals_against_model():
    """§2–§5, §12 on 400 random deals: legal labels of every bidding phase, not-played
    deals, and the gathered next deck (all ways a deal can end)."""
    ends = set()
    for seed in range(400):
        ends.add(_check_random_deal(seed))
    # The sample reaches every contract and every way of ending.
    assert {c for _, c in ends} == {"suit", "betl", "durch"}
    assert {e for e, _ in ends} >= {"played", "conceded", "decided_early", "laid_down"}
