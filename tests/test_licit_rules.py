"""Scripted deals for licitovaný mariáš, section by section of LICITOVANY.md (cited "L§n";
the shared volený rules "R§n").  Everything is driven through the action labels.

Unless a test says otherwise the dealer is seat 0, so forhond is seat 1 and zadák seat 2
(L§1).  Most deals use the deck ``BASE`` below.
"""

from __future__ import annotations

import pytest

import mariash_env
from mariash_env import IllegalActionError, RulesError
from mariash_env import licit_actions as LA
from mariash_env.actions import ActionError
from mariash_env.cards import CARD_CODES, codes_of
from tests.helpers import licit_deck, licit_game, play, step_cap

DEALER, FORHOND, ZADAK = 0, 1, 2
ACTOR, L, R = FORHOND, ZADAK, DEALER  # when forhond is the actor (L§1)

# BASE.  Forhond holds 7h and 7b (lepší games, two sevens), zadák only 7l (plain sedma,
# no lepší, no two sevens), the dealer no seven (hundreds, betl and durch only).  The
# talon 7a Jb gives the actor a third (or second) seven.
F_HAND = ["7h", "7b", "Ah", "Th", "Kh", "Qh", "Ab", "Tb", "8a", "9a"]
Z_HAND = ["7l", "Al", "Tl", "Kl", "Ql", "8h", "9h", "Jh", "8b", "9b"]
D_HAND = ["8l", "9l", "Jl", "Aa", "Ta", "Ka", "Qa", "Ja", "Kb", "Qb"]
TALON = ["7a", "Jb"]
BASE = licit_deck(F_HAND, Z_HAND, D_HAND, TALON)

# SHOW_L.  Forhond (the actor) plays dvě sedmy, acorns trumps, leaves helping; L (zadák)
# holds 8l 9l Jl Kl and must show (L§6, §9 example 7).  SHOW_R: the same with L's and R's
# hands exchanged.  SHOW_H: suits hearts and acorns exchanged (lepší dvě sedmy).
SHOW_F = ["7a", "7l", "Aa", "Ta", "Ka", "Qa", "Ja", "Al", "Tl", "Ah"]
SHOW_Z = ["8l", "9l", "Jl", "Kl", "7h", "8h", "9h", "Th", "Jh", "Qh"]
SHOW_D = ["Ql", "Kh", "7b", "8b", "9b", "Tb", "Jb", "Qb", "Kb", "Ab"]
SHOW_L = licit_deck(SHOW_F, SHOW_Z, SHOW_D, ["9a", "8a"])
SHOW_R = licit_deck(SHOW_F, SHOW_D, SHOW_Z, ["9a", "8a"])


def swap_suits(cards, a, b):
    tr = {a: b, b: a}
    return [c[0] + tr.get(c[1], c[1]) for c in cards]


SHOW_H = swap_suits(SHOW_L, "a", "h")


def to_show(g, game="dve_sedmy", trump=("trump:a",)):
    """Forhond bids alone and announces two sevens with leaves helping; discards 9a 8a."""
    lone(g, game)
    play(g, [f"game:{game}", *trump, "helping:l"])
    d1, d2 = ("9h", "8h") if game.startswith("lepsi") else ("9a", "8a")
    play(g, [f"discard:{d1}", f"discard:{d2}"])
    assert g.phase_name == "flek"


GAMES = ("sedma", "lepsi_sedma", "sto", "sto_sedma", "lepsi_sto", "lepsi_sto_sedma", "betl",
         "durch", "dve_sedmy", "dve_sedmy_sto", "lepsi_dve_sedmy", "lepsi_dve_sedmy_sto")


def labels(g) -> set[str]:
    return set(g.legal_labels())


def of(prefix: str, g) -> set[str]:
    """The legal labels with this prefix, without it (``of("bid:", g)`` = biddable games)."""
    return {x[len(prefix):] for x in g.legal_labels() if x.startswith(prefix)}


def hand(g, seat) -> set[str]:
    return set(codes_of(g.hand(seat)))


def lone(g, game: str) -> None:
    """Zadák and the dealer pass unbid; forhond bids ``game`` alone (L§4 A3)."""
    play(g, ["pass", "pass", f"bid:{game}"])


def settle(g) -> dict:
    assert g.deal_over
    return g.settlement()


def comp(s: dict, name: str) -> dict:
    (c,) = [c for c in s["components"] if c["component"] == name]
    return c


def check_payments(s: dict, amount: int, actor: int) -> None:
    """L§9: each defender pays the actor ``amount``: actor ``+2A``, defenders ``-A``."""
    want = [-amount] * 3
    want[actor] = 2 * amount
    assert s["payments"] == want
    assert s["amount"] == amount


# --------------------------------------------------------------------------------------
# §2 Deck and deal
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_s2_deal_5_5_5_2_5_5_5_positions(dealer):
    """L§2/§13: forhond 0–4, 17–21; zadák 5–9, 22–26; dealer 10–14, 27–31; talon 15–16
    unseen; zadák opens the auction (L§4)."""
    g = licit_game(BASE, dealer=dealer)
    f, z = (dealer + 1) % 3, (dealer + 2) % 3
    assert hand(g, f) == set(F_HAND)
    assert hand(g, z) == set(Z_HAND)
    assert hand(g, dealer) == set(D_HAND)
    assert g.deck() == BASE
    assert g.to_move == z and g.phase_name == "bid"


def _stack_deck(stack: list[str], k: int) -> list[str]:
    """R§2: the stack (bottom first) turned into the deck from the top, then cut ``k``."""
    deck = stack[::-1]
    return deck[k:] + deck[:k]


def _dealt_order(cards, deck) -> list[str]:
    return [c for c in deck if c in set(cards)]


def test_s2_gather_no_bid_talon_at_bottom_15_below_16():
    """L§2 Decision: an untaken talon lies at the very bottom, 15 below 16; the hands are
    gathered in dealt order, piles forhond, zadák, dealer from the bottom (R§2); the new
    dealer is forhond, zadák of the new deal cuts k (L§1, §2)."""
    g = licit_game(BASE, cuts=[7])
    play(g, ["pass", "pass", "pass"])
    s = settle(g)
    assert s["end"] == "no_bid" and s["payments"] == [0, 0, 0]
    assert g.next_deal()
    stack = [BASE[15], BASE[16]]
    for cards in (F_HAND, Z_HAND, D_HAND):
        stack += _dealt_order(cards, BASE)
    assert g.deck() == _stack_deck(stack, 7)
    assert g.st[mariash_env.core.state.DEALER] == FORHOND
    assert g.to_move == (FORHOND + 2) % 3  # the new zadák opens


def test_s2_random_cut_by_the_new_zadak_2_to_30():
    """L§2: without given cuts the cut k is drawn from 2..30 and the new deck is the
    gathered stack cut by k; the dealer moves to forhond every deal."""
    from mariash_env.core import state as S

    g = licit_game(BASE)
    seen = set()
    for _ in range(11):
        deck, dealer = g.deck(), int(g.st[S.DEALER])
        f, z = (dealer + 1) % 3, (dealer + 2) % 3
        play(g, ["pass", "pass", "pass"])
        assert g.next_deal()
        k = int(g.st[S.CUT])
        assert 2 <= k <= 30 and int(g.st[S.DEALER]) == f
        hands = {f: deck[0:5] + deck[17:22], z: deck[5:10] + deck[22:27],
                 dealer: deck[10:15] + deck[27:32]}
        stack = deck[15:17] + hands[f] + hands[z] + hands[dealer]
        assert g.deck() == _stack_deck(stack, k)
        seen.add(k)
    assert len(seen) > 3


def test_s2_gather_after_fold_actor_twelve_cards_by_deal_position():
    """L§2: after a fold the actor's 12 cards are gathered as hand cards by deal position
    (the talon's 15, 16 among them); there is no final talon."""
    g = licit_game(BASE, cuts=[2])
    lone(g, "sedma")
    play(g, ["fold"])
    assert g.next_deal()
    stack = _dealt_order(F_HAND + TALON, BASE)
    stack += _dealt_order(Z_HAND, BASE) + _dealt_order(D_HAND, BASE)
    assert g.deck() == _stack_deck(stack, 2)


def test_s2_gather_after_show_final_talon_then_hand():
    """L§2/§13: after ``show`` the actor's pile is his final talon (discard order), then his
    10 hand cards by deal position."""
    g = licit_game(SHOW_L, cuts=[30])
    to_show(g)
    play(g, ["show"])
    assert g.next_deal()
    f_pile = ["9a", "8a"] + [c for c in _dealt_order(SHOW_F + ["9a", "8a"], SHOW_L)
                             if c not in ("9a", "8a")]
    stack = f_pile + _dealt_order(SHOW_Z, SHOW_L) + _dealt_order(SHOW_D, SHOW_L)
    assert g.deck() == _stack_deck(stack, 30)


def test_s2_gather_after_bare_game_flek_final_talon_then_hand():
    """L§2/§13: a bare game flek gathers like ``show``: final talon, then the hand."""
    g = licit_game(BASE, cuts=[5])
    lone(g, "sedma")
    play(g, ["game:sedma", "trump:b", "discard:8a", "discard:9a"])
    play(g, ["flek:game", "good", "good", "good", "good"])
    assert settle(g)["end"] == "bare_game_flek"
    assert g.next_deal()
    f_pile = ["8a", "9a"] + _dealt_order(set(F_HAND + TALON) - {"8a", "9a"}, BASE)
    stack = f_pile + _dealt_order(Z_HAND, BASE) + _dealt_order(D_HAND, BASE)
    assert g.deck() == _stack_deck(stack, 5)


def test_s2_gather_after_betl_lead_card_opens_trick_one():
    """L§13: betl's trick 1 is stacked lead card, L's, R's card (R§2 tricks in play order)."""
    g = licit_game(BASE, cuts=[3])
    lone(g, "betl")
    play(g, ["game:betl", "discard:Ah", "discard:Th", "lead:8a", "good", "good", "good"])
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        play(g, [g.legal_labels()[0]])
    plays = [(s, g.kind.labels[a][5:]) for s, a in g.history if g.kind.labels[a][:5] == "play:"]
    assert plays[0][0] == ZADAK and plays[1][0] == DEALER  # L then R follow the lead card
    assert g.next_deal()
    deck = g.deck()
    stack = (deck[-3:] + deck[:-3])[::-1]  # undo the cut of 3, bottom first
    i = stack.index("8a")
    assert stack[i:i + 3] == ["8a", plays[0][1], plays[1][1]]


# --------------------------------------------------------------------------------------
# §3 The twelve games: needs
# --------------------------------------------------------------------------------------


def test_s3_game_ids_in_bidding_order():
    """L§3: the twelve ids are the games 1..12 in bidding order (0 = none); anything else
    is a ValueError naming the ids."""
    from mariash_env.games.licitovany.games import game_id

    assert [game_id(x) for x in GAMES] == list(range(1, 13))
    with pytest.raises(ValueError, match="unknown licitovaný game 'hra'"):
        game_id("hra")


def test_s3_needs_at_bid_plain_vs_lepsi_and_two_sevens():
    """L§3 Needs: zadák holds only 7l: sedma and sto a sedm (leaves), no lepší seven game
    (needs 7h), no two sevens (needs a second 7); hundreds, betl, durch need nothing."""
    g = licit_game(BASE)
    assert g.to_move == ZADAK
    assert of("bid:", g) == {"sedma", "sto", "sto_sedma", "lepsi_sto", "betl", "durch"}
    with pytest.raises(IllegalActionError):
        g.step("bid:lepsi_sedma")
    with pytest.raises(IllegalActionError):
        g.step("bid:dve_sedmy")


def test_s3_hundreds_need_no_marriage_and_dealer_without_sevens():
    """L§3: the dealer holds no seven: only sto, lepší sto, betl, durch (a hundred needs no
    marriage; he holds none in hearts)."""
    g = licit_game(BASE)
    play(g, ["pass"])  # zadák drops: the dealer challenges (L§4)
    assert g.to_move == DEALER
    assert of("bid:", g) == {"sto", "lepsi_sto", "betl", "durch"}


def test_s3_forhond_lepsi_and_two_sevens():
    """L§3: forhond (7h, 7b) may bid every game: lepší ones (7h) and (lepší) two sevens
    (7h or 7b as trump 7, the other as helping 7)."""
    g = licit_game(BASE)
    play(g, ["pass", "pass"])
    assert g.phase_name == "lone_bid" and g.to_move == FORHOND
    assert of("bid:", g) == set(GAMES)


def test_s3_needs_at_hold_dealer_in_holders_place_can_only_pass():
    """L§3, §13: needs are checked at hold: the dealer, stepping into the dropped holder's
    place, answers sto a sedm at once and holds no seven: only ``pass``."""
    g = licit_game(BASE)
    play(g, ["bid:sto_sedma", "pass"])
    assert g.to_move == DEALER and g.phase_name == "hold"
    assert labels(g) == {"pass"}
    with pytest.raises(IllegalActionError):
        g.step("hold")
    play(g, ["pass"])
    assert g.phase_name == "game" and g.to_move == ZADAK  # the second drop: zadák is actor


def test_s3_needs_at_announcement_twelve_cards():
    """L§3, §5 T1: at announcing the 12 cards count: the talon's 7a gives zadák (7l) two
    sevens (plain), never lepší (no 7h)."""
    g = licit_game(BASE)
    play(g, ["bid:sedma", "pass", "pass"])
    assert g.to_move == ZADAK and hand(g, ZADAK) >= {"7a", "Jb"}
    assert of("game:", g) == {"sedma", "sto", "sto_sedma", "lepsi_sto", "betl", "durch",
                              "dve_sedmy", "dve_sedmy_sto"}
    assert "fold" in labels(g)


def test_s3_lepsi_is_hearts_plain_suit_never_hearts():
    """L§3 Decision: a plain suit game takes b, l or a (no ``trump:h`` label exists);
    lepší is hearts without an action (straight to the discards)."""
    assert "trump:h" not in LA.ACTION_LABELS
    g = licit_game(BASE)
    lone(g, "lepsi_sedma")
    play(g, ["game:lepsi_sedma"])
    assert g.phase_name == "discard"
    g2 = licit_game(BASE)
    lone(g2, "sedma")
    play(g2, ["game:sedma"])
    assert g2.phase_name == "trumps"
    # forhond holds 7b and (from the talon) 7a, not 7l: trumps b or a for a sedma.
    assert of("trump:", g2) == {"b", "a"}
    with pytest.raises(IllegalActionError):
        g2.step("trump:l")


def test_s3_trumps_of_a_hundred_need_nothing():
    """L§3: a hundred needs no seven: any of b, l, a."""
    g = licit_game(BASE)
    lone(g, "sto")
    play(g, ["game:sto"])
    assert of("trump:", g) == {"b", "l", "a"}


# --------------------------------------------------------------------------------------
# §4 Auction
# --------------------------------------------------------------------------------------


def test_s4_auction_example_reproduced():
    """L§4 example, d=0: 2 bid:sedma, 1 hold, 2 bid:sto, 1 pass (0 becomes holder),
    0 hold, 2 bid:betl, 0 pass → seat 2 plays betl or higher."""
    g = licit_game(BASE)
    steps = [(2, "bid:sedma", "hold"), (1, "hold", "bid"), (2, "bid:sto", "hold"),
             (1, "pass", "hold"), (0, "hold", "bid"), (2, "bid:betl", "hold"),
             (0, "pass", "game")]
    for seat, lab, phase_after in steps:
        assert g.to_move == seat, lab
        g.step(lab)
        assert g.phase_name == phase_after, lab
    assert g.to_move == 2
    assert hand(g, 2) == set(Z_HAND + TALON)  # the talon joined the actor's hand
    assert of("game:", g) == {"betl", "durch", "dve_sedmy", "dve_sedmy_sto"}
    assert "fold" not in labels(g)


def test_s4_a1_challenger_strictly_higher_jumps_allowed():
    """L§4 A1: any game above ``high`` (levels may be skipped), never equal or lower."""
    g = licit_game(BASE)
    play(g, ["bid:sto", "hold"])
    assert g.to_move == ZADAK and g.phase_name == "bid"
    assert of("bid:", g) == {"sto_sedma", "lepsi_sto", "betl", "durch"}
    assert "pass" in labels(g)
    for bad in ("bid:sto", "bid:sedma", "hold"):
        with pytest.raises(IllegalActionError):
            g.step(bad)
    play(g, ["bid:durch"])  # a jump over three games
    assert g.to_move == FORHOND and labels(g) == {"hold", "pass"}


def test_s4_a2_holder_only_holds_or_passes():
    """L§4 A2 / §13: the holder answers a bid with hold or pass, never a higher game."""
    g = licit_game(BASE)
    play(g, ["bid:sedma"])
    assert g.to_move == FORHOND and g.phase_name == "hold"
    assert labels(g) == {"hold", "pass"}
    with pytest.raises(IllegalActionError):
        g.step("bid:sto")


def test_s4_dealer_steps_into_challengers_position():
    """L§4 drop: the challenger's first drop-out puts the dealer in his position: he must
    outbid the standing bid; the holder then answers him."""
    g = licit_game(BASE)
    play(g, ["bid:sto", "hold", "pass"])
    assert g.to_move == DEALER and g.phase_name == "bid"
    assert of("bid:", g) == {"lepsi_sto", "betl", "durch"}
    play(g, ["bid:betl"])
    assert g.to_move == FORHOND and g.phase_name == "hold"
    play(g, ["hold", "pass"])  # forhond holds betl; the dealer drops: forhond plays
    assert g.phase_name == "game" and g.to_move == FORHOND
    assert of("game:", g) >= {"betl", "durch"} and "sto" not in of("game:", g)


def test_s4_dealer_steps_into_holders_position():
    """L§4 Decision: replacing the holder the dealer becomes holder and answers the
    standing bid at once; the challenger then goes on outbidding him."""
    g = licit_game(BASE)
    play(g, ["bid:sto", "pass"])
    assert g.to_move == DEALER and labels(g) == {"hold", "pass"}
    play(g, ["hold"])
    assert g.to_move == ZADAK and g.phase_name == "bid"
    assert of("bid:", g) == {"sto_sedma", "lepsi_sto", "betl", "durch"}
    play(g, ["pass"])  # second drop-out: the dealer owns sto
    assert g.phase_name == "game" and g.to_move == DEALER
    s_game = of("game:", g)
    assert "sedma" not in s_game and "sto" in s_game


def test_s4_holder_wins_when_challenger_passes():
    """L§4: second drop-out ends the auction; the remaining player owns ``high``."""
    g = licit_game(BASE)
    play(g, ["bid:sedma", "hold", "pass", "pass"])  # zadák drops, dealer passes unbid
    assert g.phase_name == "game" and g.to_move == FORHOND
    assert "fold" in labels(g)  # forhond holds a won bid of exactly sedma


def test_s4_a3_forhond_alone_bids_anything():
    """L§4 A3: zadák and dealer pass unbid; forhond may bid any game (needs met) and is
    the actor at it; the talon joins his hand."""
    g = licit_game(BASE)
    play(g, ["pass", "pass"])
    assert g.phase_name == "lone_bid" and labels(g) == {f"bid:{x}" for x in GAMES} | {"pass"}
    play(g, ["bid:durch"])
    assert g.phase_name == "game" and g.to_move == FORHOND
    assert of("game:", g) == {"durch", "dve_sedmy", "dve_sedmy_sto", "lepsi_dve_sedmy",
                              "lepsi_dve_sedmy_sto"}


def test_s4_a3_forhond_passes_nobody_pays_deal_counts():
    """L§4 A3, §9: nobody bid even a sedma: the cards fold, nobody pays; the deal counts."""
    g = licit_game(BASE, deals=3)
    play(g, ["pass", "pass", "pass"])
    s = settle(g)
    assert s["end"] == "no_bid" and s["payments"] == [0, 0, 0] and s["components"] == []
    assert g.next_deal() and g.deal_no == 1


# --------------------------------------------------------------------------------------
# §5 Talon, fold, announcement
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bid", ["lepsi_sedma", "sto", "betl"])
def test_s5_t1_no_fold_after_any_bid_but_sedma(bid):
    """L§5 T1 Decision: ``fold`` iff the won bid is exactly sedma (not lepší, nothing
    else); the games at or above the bid are offered."""
    g = licit_game(BASE)
    lone(g, bid)
    assert "fold" not in labels(g)
    assert of("game:", g) == set(GAMES[GAMES.index(bid):])
    with pytest.raises(IllegalActionError):
        g.step("fold")


def test_s5_t1_sedma_bid_may_play_higher_games():
    """L§5 T1 / §13: any game at or above the won bid may be announced (sedma → betl)."""
    g = licit_game(BASE)
    lone(g, "sedma")
    assert of("game:", g) == set(GAMES) and "fold" in labels(g)
    play(g, ["game:betl"])
    assert g.phase_name == "discard"


def test_s5_fold_costs_six_each_example_9():
    """L§5 T1, §9 example 9: fold after winning at sedma: −6 (actor −12, defenders +6);
    no hearts doubling, no flek."""
    g = licit_game(BASE)
    play(g, ["bid:sedma", "hold", "pass", "pass"])  # forhond wins the auction at sedma
    play(g, ["fold"])
    s = settle(g)
    assert s["end"] == "fold" and s["components"] == []
    check_payments(s, -6, FORHOND)
    assert g.scores == [6, -12, 6]


def test_s5_t2_t3_helping_suit():
    """L§5 T3: the helping suit is any non-trump suit whose 7 is held, hearts included in a
    plain two sevens (forhond: 7h 7b, 7a from the talon; trumps b)."""
    g = licit_game(BASE)
    lone(g, "dve_sedmy")
    play(g, ["game:dve_sedmy"])
    assert of("trump:", g) == {"b", "a"}
    play(g, ["trump:b"])
    assert g.phase_name == "helping" and of("helping:", g) == {"h", "a"}
    for bad in ("helping:b", "helping:l"):
        with pytest.raises(IllegalActionError):
            g.step(bad)
    play(g, ["helping:h"])
    assert g.phase_name == "discard"
    s_disc = of("discard:", g)
    assert "7h" not in s_disc and "7b" not in s_disc  # both reserved sevens
    assert "7a" in s_disc  # a 7 of no role may go


def test_s5_t4_discards_sedma_may_not_discard_trump_7():
    """L§5 T4: suit games discard no ten or ace and never a reserved seven."""
    g = licit_game(BASE)
    lone(g, "sedma")
    play(g, ["game:sedma", "trump:b"])
    twelve = hand(g, FORHOND)
    want = {c for c in twelve if c[0] not in "TA"} - {"7b"}
    assert of("discard:", g) == want
    for bad in ("discard:7b", "discard:Ah", "discard:Th"):
        with pytest.raises(IllegalActionError):
            g.step(bad)
    play(g, ["discard:8a"])
    assert of("discard:", g) == want - {"8a"}  # each discard is final
    play(g, ["discard:9a"])
    assert g.phase_name == "flek" and g.to_move == L
    assert hand(g, FORHOND) == twelve - {"8a", "9a"}


@pytest.mark.parametrize("game, seven, trump", [("sto", "7b", ["trump:b"]),
                                                ("lepsi_sto", "7h", [])])
def test_s5_t4_stovka_may_discard_trump_7(game, seven, trump):
    """L§5 T4: (lepší) stovka may discard the trump 7 (there it is no reserved seven)."""
    g = licit_game(BASE)
    lone(g, game)
    play(g, [f"game:{game}", *trump])
    assert seven in of("discard:", g)
    assert "Ah" not in of("discard:", g)
    play(g, [f"discard:{seven}"])


def test_s5_t4_lepsi_sedma_may_not_discard_7h():
    g = licit_game(BASE)
    lone(g, "lepsi_sedma")
    play(g, ["game:lepsi_sedma"])
    assert "7h" not in of("discard:", g) and "7b" in of("discard:", g)


def test_s5_t4_t5_betl_discards_anything_lead_face_down_played_automatically():
    """L§5 T4–T5, §7: betl discards anything; the lead card is any of the 10, face down;
    when flekking ends it opens trick 1 and ``L`` is the first to act in play."""
    g = licit_game(BASE)
    lone(g, "betl")
    play(g, ["game:betl"])
    assert of("discard:", g) == hand(g, FORHOND)
    play(g, ["discard:Ah", "discard:Th"])
    assert g.phase_name == "lead" and g.to_move == FORHOND
    ten = hand(g, FORHOND)
    assert of("lead:", g) == ten and len(ten) == 10
    play(g, ["lead:9a"])
    assert g.phase_name == "flek" and g.to_move == L
    assert "9a" in hand(g, FORHOND)  # still held, face down, until played
    play(g, ["good", "good", "good"])
    assert g.phase_name == "play" and g.to_move == L
    assert "9a" not in hand(g, FORHOND)
    # L follows acorns: he holds none (zadák), so any card; the dealer must follow 9a.
    assert of("play:", g) == hand(g, L)
    g.step(g.legal_labels()[0])
    assert g.to_move == R and of("play:", g) == {"Ta", "Aa", "Ka", "Qa", "Ja"}


# --------------------------------------------------------------------------------------
# §6 Flek
# --------------------------------------------------------------------------------------


def to_flek(game="sedma", trump=("trump:b",), deck=BASE, discards=("8a", "9a"), **rules):
    """Forhond bids ``game`` alone and announces it; flekking starts with L (zadák)."""
    g = licit_game(deck, **rules)
    lone(g, game)
    play(g, [f"game:{game}", *trump, *(f"discard:{c}" for c in discards)])
    assert g.phase_name == "flek" and g.to_move == L
    return g


def test_s6_turn_order_parity_several_components_a_turn():
    """L§6: turns L, R, actor, L, …; defenders make the odd levels, the actor the even
    ones, so a component rises at most once a turn; several components in one turn."""
    g = to_flek()
    assert labels(g) == {"flek:game", "flek:seven", "good"}
    play(g, ["flek:seven"])
    assert g.to_move == L and labels(g) == {"flek:game", "good"}
    play(g, ["flek:game"])
    assert g.to_move == L and labels(g) == {"good"}
    play(g, ["good"])
    assert g.to_move == R and labels(g) == {"good"}  # both at 1: only the actor may re
    play(g, ["good"])
    assert g.to_move == ACTOR and labels(g) == {"flek:game", "flek:seven", "good"}
    play(g, ["flek:seven", "good"])
    assert g.to_move == L and labels(g) == {"flek:seven", "good"}  # game 1 stays the actor's
    play(g, ["good", "good", "good"])  # three raise-free turns: L, R, actor
    assert g.phase_name == "play"
    assert g.to_move == FORHOND  # §7: forhond leads a suit game
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(g.legal_labels()[0])
    s = settle(g)
    assert (comp(s, "game")["level"], comp(s, "seven")["level"]) == (1, 2)


def test_s6_no_flek_three_goods():
    """L§6: with no flek: L good, R good, actor good, then play."""
    g = to_flek()
    for seat in (L, R, ACTOR):
        assert g.to_move == seat and g.phase_name == "flek"
        play(g, ["good"])
    assert g.phase_name == "play"


def test_s6_no_closing_defender_fleks_later():
    """L§6 Decision: nothing closes a component: a defender may flek later what he left."""
    g = to_flek()
    play(g, ["flek:seven", "good", "good", "flek:seven", "good"])  # L flek, R -, actor re
    assert g.to_move == L
    assert labels(g) == {"flek:game", "flek:seven", "good"}  # the game, left before
    play(g, ["flek:game", "good"])
    assert g.to_move == R and labels(g) == {"flek:seven", "good"}  # the seven 2 → 3
    play(g, ["good", "good", "good"])  # R, actor (may re the game but does not), L
    assert g.phase_name == "play"


def test_s6_turns_go_on_when_only_good_is_legal():
    """L§6: every turn is taken, even with ``good`` alone legal; three raise-free turns
    end flekking (the count restarts after each raise)."""
    g = to_flek()
    play(g, ["flek:seven", "flek:game", "good"])
    for seat in (R, ACTOR, L):
        assert g.phase_name == "flek" and g.to_move == seat
        play(g, ["good"])
    assert g.phase_name == "play"


def _raise_seven_to(g, level):
    """Alternate raises of the seven, L (odd) and the actor (even), R passing between."""
    for lvl in range(1, level + 1):
        if lvl % 2:
            assert g.to_move == L
            play(g, ["flek:seven", "good"])
            if lvl < level:
                play(g, ["good"])  # R
        else:
            assert g.to_move == ACTOR
            play(g, ["flek:seven", "good"])


def test_s6_max_flek_default_kalhoty():
    """L§6 Decision: ``max_flek`` 5 (kalhoty) by default: a defender raises 4→5, nobody
    past it; the turns go on with ``good`` until three raise-free ones."""
    g = to_flek()
    _raise_seven_to(g, 5)
    assert g.to_move == R and labels(g) == {"flek:game", "good"}  # not the seven
    play(g, ["good"])
    assert g.to_move == ACTOR and labels(g) == {"good"}  # game 0, seven at max
    play(g, ["good", "good"])
    assert g.phase_name == "play"
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(g.legal_labels()[0])
    s = settle(g)
    assert comp(s, "seven")["level"] == 5 and comp(s, "seven")["level_name"] == "kalhoty"
    assert abs(comp(s, "seven")["amount"]) == 2 * 32


def test_s6_max_flek_none_unbounded():
    """L§6: ``max_flek=None`` — no bound: the actor may raise the seven to 6."""
    g = to_flek(max_flek=None)
    _raise_seven_to(g, 5)
    play(g, ["good"])
    assert "flek:seven" in labels(g)
    play(g, ["flek:seven", "good"])
    assert "flek:seven" in labels(g)  # L to 7


def test_s6_s7_every_raise_to_level_7_keeps_its_turn():
    """L§6, §7 (perfect recall): the flek turn of each raise is kept for levels 1..7 (the
    observation's raise_turn block), the seventh too: raised by L in the seventh round."""
    from mariash_env.core import state as S

    g = to_flek(max_flek=None)
    _raise_seven_to(g, 5)
    play(g, ["good", "flek:seven", "good", "flek:seven", "good"])  # R; 6 actor; 7 L
    assert int(g.st[S.BET_LEVEL + S.K_SEVEN]) == 7
    turns = [int(g.st[S.LIC_RAISE_TURN + 7 * S.K_SEVEN + i]) for i in range(7)]
    assert turns == [1, 3, 4, 6, 7, 9, 10]  # L, actor, L, ... (turn + 1; R's pass between)


@pytest.mark.parametrize("game, trump, want", [
    ("sto", ["trump:b"], {"flek:hundred", "good"}),
    ("sto_sedma", ["trump:b"], {"flek:hundred", "flek:seven", "good"}),
    ("dve_sedmy_sto", ["trump:b", "helping:h"], {"flek:hundred", "flek:two_sevens", "good"}),
])
def test_s6_components_per_game(game, trump, want):
    """L§3: a hundred replaces the game; two sevens has no game component."""
    g = to_flek(game, trump)
    assert labels(g) == want


def test_s6_betl_flek_game_and_lead_card():
    """L§3: betl is flekked with ``flek:game``."""
    g = licit_game(BASE)
    lone(g, "betl")
    play(g, ["game:betl", "discard:Ah", "discard:Th", "lead:8a"])
    assert labels(g) == {"flek:game", "good"}


def test_s6_show_left_defender_example_7():
    """L§6, §9 example 7: dvě sedmy, acorns, leaves helping; L holds 8l 9l Jl Kl: ``show``
    is L's only action; the actor pays each defender 60."""
    g = licit_game(SHOW_L)
    to_show(g)
    assert g.to_move == L and labels(g) == {"show"}
    with pytest.raises(IllegalActionError):
        g.step("good")
    play(g, ["show"])
    s = settle(g)
    assert s["end"] == "show" and s["components"] == []
    check_payments(s, -60, ACTOR)


def test_s6_show_ends_the_deal_nothing_raised():
    """L§6: ``show`` ends the deal unplayed: nobody moves, no component is raised by it
    (the flek levels and this turn's raises stay as they were) and the record is whole."""
    from mariash_env.core import state as S
    from mariash_env.core.validate import check_record

    g = licit_game(SHOW_R)
    to_show(g)
    play(g, ["good"])
    before = g.st.copy()
    play(g, ["show"])
    assert g.deal_over and g.to_move == -1 and g.legal_labels() == []
    for f in (S.BET_LEVEL, S.BET_SEAT, S.RAISED_BY):
        assert list(g.st[f:f + 4]) == list(before[f:f + 4])
    assert g.st[S.RAISED_RND] == before[S.RAISED_RND] == 0
    check_record(g.st, g.rv)


def test_s6_show_lepsi_costs_90():
    """L§6: lepší dvě sedmy shown: 90 per defender."""
    g = licit_game(SHOW_H)
    to_show(g, "lepsi_dve_sedmy", ())
    assert labels(g) == {"show"}
    play(g, ["show"])
    check_payments(settle(g), -90, ACTOR)


def test_s6_show_right_defender_when_left_did_not_flek():
    """L§6: R shows on his first turn when L's first turn had no flek."""
    g = licit_game(SHOW_R)
    to_show(g)
    assert g.to_move == L and labels(g) == {"flek:two_sevens", "good"}
    play(g, ["good"])
    assert g.to_move == R and labels(g) == {"show"}
    play(g, ["show"])
    check_payments(settle(g), -60, ACTOR)


def test_s6_right_defender_never_shows_after_left_fleks_example_7():
    """L§6, §9 example 7: if L flekked, R never shows (not later either): the deal is
    played, and a lost two sevens at flek costs −80."""
    g = licit_game(SHOW_R)
    to_show(g)
    play(g, ["flek:two_sevens", "good"])
    assert g.to_move == R and labels(g) == {"good"}
    play(g, ["good", "good", "good"])
    assert g.phase_name == "play"
    # R (the dealer, holding 8l 9l Jl Kl) ruffs nothing: the first legal card each time.
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(g.legal_labels()[0])
    s = settle(g)
    c = comp(s, "two_sevens")
    assert c["level"] == 1 and not c["won"] and c["amount"] == -80
    check_payments(s, -80, ACTOR)


def test_s6_defender_not_due_on_first_turn_never_shows_later():
    """L§13: a defender who was not due on his first turn never shows later."""
    g = licit_game(SHOW_R)
    to_show(g)
    play(g, ["flek:two_sevens", "good", "good", "flek:two_sevens", "good", "good"])
    assert g.to_move == R and labels(g) == {"flek:two_sevens", "good"}


def test_s6_no_show_with_sto():
    """L§6: never with sto: dvě sedmy a sto is flekked normally though L holds four."""
    g = licit_game(SHOW_L)
    lone(g, "dve_sedmy_sto")
    play(g, ["game:dve_sedmy_sto", "trump:a", "helping:l", "discard:9a", "discard:8a"])
    assert g.to_move == L and labels(g) == {"flek:hundred", "flek:two_sevens", "good"}


def test_s6_bare_game_flek_example_10():
    """L§6, §9 example 10: sedma; L flek:game; nothing more: unplayed, nobody pays; the
    settlement lists game −2·H and seven +2·H."""
    g = to_flek()
    play(g, ["flek:game", "good", "good", "good", "good"])
    s = settle(g)
    assert s["end"] == "bare_game_flek" and s["payments"] == [0, 0, 0]
    assert comp(s, "game")["amount"] == -2 and comp(s, "seven")["amount"] == 2
    assert s["net"] == 0


def test_s6_bare_game_flek_lepsi():
    g = to_flek("lepsi_sedma", ())
    play(g, ["flek:game", "good", "good", "good", "good"])
    s = settle(g)
    assert s["end"] == "bare_game_flek" and s["payments"] == [0, 0, 0]
    assert comp(s, "game")["amount"] == -4 and comp(s, "seven")["amount"] == 4


@pytest.mark.parametrize("fleks", [
    ["flek:game", "good", "good", "flek:game", "good", "good", "good", "good"],  # re: 2
    ["flek:game", "flek:seven", "good", "good", "good", "good"],  # the seven flekked too
])
def test_s6_not_bare_game_flek_is_played(fleks):
    """L§6: only game at exactly 1 with the seven at 0 is the bare game flek."""
    g = to_flek()
    play(g, fleks)
    assert g.phase_name == "play"


# --------------------------------------------------------------------------------------
# §7 Leads and tricks
# --------------------------------------------------------------------------------------


def test_s7_forhond_leads_a_suit_game_whoever_the_actor():
    """L§7: trick 1 of a suit game is led by forhond even when zadák is the actor."""
    g = licit_game(BASE)
    play(g, ["bid:sedma", "pass", "pass"])  # zadák plays
    play(g, ["game:sedma", "trump:l", "discard:8h", "discard:9h", "good", "good", "good"])
    assert g.phase_name == "play" and g.to_move == FORHOND
    assert of("play:", g) == hand(g, FORHOND)  # a defender leads anything


def test_s7_reserved_trump_seven_not_led_early():
    """L§7: at trick 1 (< 10) the actor's trump 7 is early: not legal while another card
    is (leading too)."""
    g = to_flek()
    play(g, ["good", "good", "good"])
    assert g.to_move == ACTOR
    assert of("play:", g) == hand(g, ACTOR) - {"7b"}


# RES.  Zadák plays sedma in bells holding 7b as his only bell; forhond leads Ab: the
# early trump 7 is then his only legal card (L§7 "if possible"), and it is lost.
RES_F = ["Ab", "Kb", "Qb", "Jb", "Tb", "9b", "8b", "Ah", "Kh", "Qh"]
RES_Z = ["7b", "7h", "8h", "9h", "Th", "Jh", "7l", "8l", "9l", "Tl"]
RES_D = ["Jl", "Ql", "Kl", "Al", "7a", "8a", "9a", "Ta", "Ja", "Qa"]
RES = licit_deck(RES_F, RES_Z, RES_D, ["Ka", "Aa"])


def test_s7_reserved_seven_legal_when_nothing_else_is_then_lost():
    """L§7: the early reserved seven is legal when it is the only legal card; played
    before trick 10 it is lost (L§8: the seven is won only by taking trick 10)."""
    g = licit_game(RES)
    play(g, ["bid:sedma"])
    assert labels(g) == {"pass"}  # forhond holds no seven: he cannot hold sedma (L§3)
    play(g, ["pass", "pass"])  # the dealer, now holder, passes: zadák is the actor
    assert g.to_move == ZADAK and g.phase_name == "game"
    play(g, ["game:sedma", "trump:b", "discard:8h", "discard:9h", "good", "good", "good"])
    play(g, ["play:Ab"])
    assert g.to_move == ZADAK and labels(g) == {"play:7b"}
    play(g, ["play:7b"])
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(g.legal_labels()[0])
    s = settle(g)
    assert not comp(s, "seven")["won"] and comp(s, "seven")["amount"] == -2


def test_s7_betl_ends_at_the_actors_first_trick():
    """L§7, R§6: betl ends, lost, at the actor's first trick."""
    g = licit_game(BASE)
    lone(g, "betl")
    play(g, ["game:betl", "discard:7a", "discard:Jb", "lead:Ah", "good", "good", "good"])
    play(g, ["play:8h"])  # L must follow hearts, none beats the ace
    assert g.to_move == R
    play(g, [g.legal_labels()[0]])
    s = settle(g)
    assert s["end"] == "decided_early"
    assert comp(s, "game")["won"] is False and comp(s, "game")["amount"] == -15
    check_payments(s, -15, ACTOR)


def test_s7_durch_ends_at_the_actors_first_lost_trick():
    """L§7, R§6: durch ends, lost, at the actor's first lost trick."""
    g = licit_game(BASE)
    lone(g, "durch")
    play(g, ["game:durch", "discard:7a", "discard:Jb", "lead:7h", "good", "good", "good"])
    assert of("play:", g) == {"8h", "9h", "Jh"}  # L must beat 7h (R§6)
    play(g, ["play:Jh"])
    play(g, [g.legal_labels()[0]])
    s = settle(g)
    assert s["end"] == "decided_early" and comp(s, "game")["amount"] == -30
    check_payments(s, -30, ACTOR)


# --------------------------------------------------------------------------------------
# §8–§9 Points, outcomes, settlement: the twelve worked examples
# --------------------------------------------------------------------------------------
# Scripted deals (deck from the top, dealer 0, then every action label) that produce the
# card points, marriages and tricks §9's examples state.  In each, zadák and the dealer
# pass and forhond bids alone, so the actor is seat 1, L seat 2 and R seat 0.
EXAMPLES = {
    "ex1": (
        "Qa 7h 7a Aa Tl 8h 9a Tb 9b 8a Ql Th Jh 7b Ab Al "
        "Qb Ah Ja 7l 8b Kb 9h Kl Kh Ta 8l Ka Jl 9l Qh Jb",
        "pass pass bid:sedma game:sedma trump:a discard:7l discard:7h good good good play:Ah "
        "play:Kh play:Qh play:Tl play:Kl play:9l play:Qb play:Tb play:Ab play:Jl play:Al "
        "play:8l play:Ja play:Ta play:Ka play:9h play:Jh play:Aa play:Kb play:9b play:7b "
        "play:Qa play:8a play:Jb play:8b play:9a play:Th play:8h play:Ql play:7a",
    ),
    "ex2": (
        "Ah Al 8b Tb 9a 9h Ka 9l 8a Th Tl Qa Ql Kh Kb Aa "
        "Jh 9b Ab 7b 7l Qh 8l Ta Jl Jb Kl Qb Ja 8h 7a 7h",
        "pass pass bid:sedma game:sedma trump:l discard:9a discard:Qh flek:seven good good "
        "flek:seven good good good good play:Ab play:Jb play:Kb play:Tb play:8l play:Qb play:Th "
        "play:8h play:Ah play:Al play:Jl play:Ql play:Aa play:8a play:7a play:9b play:Kl "
        "play:Tl play:Ja play:7l play:Ta play:7b play:9l play:7h play:9h play:Kh play:Jh "
        "play:Qa play:8b play:Ka",
    ),
    "ex3": (
        "Kb Jl Ah Ka Kh Jb 8l 9b 7l 8a Al Tl 8h Qa 9l Ja "
        "Qh Qb 7h Tb Kl Th 9a 9h Ql Ab Aa 7a Ta Jh 8b 7b",
        "pass pass bid:lepsi_sto_sedma game:lepsi_sto_sedma discard:Ka discard:Ja flek:seven "
        "good good good good play:Th play:9h play:8h play:Kh play:Ab play:Jh play:Kb play:Jb "
        "play:8b play:Qb play:9b play:7b play:Qh play:9a play:Al play:Tb play:7l play:9l "
        "play:Kl play:Ql play:Tl play:Qa play:Ah play:Aa play:Jl play:8l play:Ta play:7h "
        "play:8a play:7a",
    ),
    "ex4": (
        "8l 8b Jb Kb Qb 9l Ja 9h 7l Ql Qh 7h Th 7b Jh 7a "
        "Kh Qa Ka Aa 9a 8a Jl Tb 9b Kl Al 8h Ab Ah Ta Tl",
        "pass pass bid:sto game:sto trump:b discard:7a discard:8l flek:hundred good good good "
        "good play:Qa play:Ja play:Ta play:7b play:Jb play:Tb play:9h play:Qh play:Kh play:Kb "
        "play:9b play:Ab play:Jh play:Qb play:9l play:Aa play:Jl play:Th play:8a play:Kl "
        "play:7h play:8b play:Ql play:8h play:9a play:7l play:Ah play:Ka play:Al play:Tl",
    ),
    "ex4b": (
        "Kb Jl Qa Qh Tb 7b 7l 9b 8l Ah Aa 8a Ta 9h Tl Kl "
        "Al Qb Th Ka Jh Ab 7h 8b 9a Ja Jb 8h 9l 7a Ql Kh",
        "pass pass bid:sto game:sto trump:b discard:Kl discard:Qh flek:hundred good good good "
        "good play:Kb play:9b play:Tl play:Jl play:8l play:Ql play:Aa play:Qa play:9a play:9h "
        "play:Jh play:Ah play:7b play:8h play:Ab play:Ka play:Ja play:Ta play:9l play:Al "
        "play:7l play:Tb play:8b play:Kh play:Th play:7h play:7a play:Qb play:Jb play:8a",
    ),
    "ex8": (
        "Ql 7b Ka 9b Kb Ab 7a Tl Tb Qh Jh Ja 7h 7l 9l Ah "
        "Aa Th 8l Qa Qb 8a Kh 8h Kl Jl 9a Ta 8b Jb 9h Al",
        "pass pass bid:lepsi_sto game:lepsi_sto discard:Qb discard:8a flek:hundred good good "
        "flek:hundred good flek:hundred good good good good play:7b play:Ab play:Jb play:9a "
        "play:Ta play:Aa play:Qa play:7a play:Ja play:Kb play:Tb play:8b play:Qh play:Jh "
        "play:Ah play:Ql play:Kl play:Al play:7l play:8l play:Tl play:Jl play:9l play:Th "
        "play:9b play:Kh play:7h play:8h play:9h play:Ka",
    ),
    "ex11": (
        "8h 7b Qb Ab 7a 7h 9h Kl Jh Ta 9l Th 9b Ql Kh 7l "
        "Tb Ah Qa 8b Jb Kb Ja Qh Ka Tl 8a Aa 8l Jl 9a Al",
        "pass pass bid:sedma game:sedma trump:b discard:Qa discard:8b flek:game good good "
        "flek:game good good good good play:7a play:8a play:Aa play:Th play:Ah play:7h play:Qb "
        "play:Qh play:9b play:Jb play:9h play:Ql play:7l play:Kl play:Al play:9a play:Ab "
        "play:Ta play:Kb play:Jh play:9l play:Tb play:Ja play:Jl play:8h play:Ka play:Kh "
        "play:8l play:7b play:Tl",
    ),
    "ex5": (
        "Kl Ql 9l Ah 7h 8a Ta Jh 8l 9a Th Ja 9h 7a Jl 9b "
        "7b Ab 8b Qa 8h Qh Kb Jb Aa Kh Tl Ka Al 7l Qb Tb",
        "pass pass bid:sto game:sto trump:l discard:8b discard:9l good good good play:Qa "
        "play:Aa play:Ja play:Ta play:Ka play:Ql play:7b play:Jb play:Qb play:Th play:Ah "
        "play:Jh play:Ab play:Kb play:Tb play:Kl play:Tl play:Al play:9h play:Qh play:Kh "
        "play:9a play:7a play:8h play:8a play:Jl play:7h play:7l play:9b play:8l",
    ),
    "capnet": (
        "Jh 9h Th Tb Ja 8h 9b 9a Ta 7a 8b Qa 8a 8l Jl Qh "
        "Kh Ah 7h Ab 9l Aa 7l 7b Jb Al Ql Tl Ka Kb Kl Qb",
        "pass pass bid:lepsi_sto_sedma game:lepsi_sto_sedma discard:Jh discard:9l flek:hundred "
        "flek:seven good good flek:hundred flek:seven good flek:hundred good good flek:hundred "
        "good good good good play:Ab play:Jb play:8b play:Ah play:8h play:Ka play:9h play:Al "
        "play:Kb play:Th play:7a play:8a play:Kh play:Ta play:Jl play:Tb play:9b play:Qb "
        "play:Qh play:7b play:8l play:Ja play:9a play:Qa play:Kl play:7h play:Ql play:Aa "
        "play:7l play:Tl",
    ),
}


def run_example(name: str, **rules):
    deck, acts = EXAMPLES[name]
    g = licit_game(deck.split(), **rules)
    play(g, acts.split())
    return g, settle(g)


def twelve(name: str) -> set[str]:
    """Forhond's (the actor's) 12 cards in an example: positions 0–4, talon, 17–21."""
    d = EXAMPLES[name][0].split()
    return set(d[0:5] + d[15:22])


def points(s):
    p = s["points"]
    return (p["actor_cards"], p["actor_marriages"], p["actor_first_marriage"],
            p["defence_cards"], p["defence_marriages"])


def amounts(s):
    return {c["component"]: (c["level"], c["won"], c["amount"]) for c in s["components"]}


def test_s9_example_1_sedma():
    """L§9 ex. 1: sedma, acorns, no flek; actor 50 + 20 (bells) = 70 vs 40; trump 7
    takes trick 10: game 1 + seven 2 = 3."""
    g, s = run_example("ex1")
    assert s["trump"] == "a" and {"Kb", "Qb"} <= twelve("ex1")  # the marriage in bells
    assert points(s) == (50, 20, 20, 40, 0)
    assert g.history[-1] == (ACTOR, LA.action_index("play:7a"))  # the trump 7 in trick 10
    assert amounts(s) == {"game": (0, True, 1), "seven": (0, True, 2)}
    assert s["net"] == 3
    check_payments(s, 3, ACTOR)


def test_s9_example_2_sedma_seven_killed_at_re():
    """L§9 ex. 2: sedma, leaves; L fleks the seven, actor re; 60 vs 30 + 20: game +1,
    seven killed −2·4: −7 (actor −14)."""
    g, s = run_example("ex2")
    assert s["trump"] == "l" and points(s) == (60, 0, 0, 30, 20)
    assert amounts(s) == {"game": (0, True, 1), "seven": (2, False, -8)}
    assert s["net"] == -7
    check_payments(s, -7, ACTOR)


def test_s9_example_3_lepsi_sto_a_sedm():
    """L§9 ex. 3: lepší sto a sedm; L fleks the seven; actor 80 card points, 40 (hearts)
    first, then 20: Ca 120, Pa 140; trump 7 takes trick 10: hundred 4·2·5 = 40, seven
    2·2·2 = 8: 48."""
    g, s = run_example("ex3")
    assert {"Kh", "Qh"} <= twelve("ex3") and points(s) == (80, 60, 40, 10, 0)
    assert amounts(s) == {"hundred": (0, True, 40), "seven": (1, True, 8)}
    assert s["lepsi"] and s["net"] == 48
    check_payments(s, 48, ACTOR)


def test_s9_example_4_stovka_first_marriage_counts():
    """L§9 ex. 4: stovka, bells, hundred at flek; 60, 20 (acorns) before 40 (bells): Ca 80,
    lost; defence 30 + 20: 4·2·(2 + 2) = −32 (actor −64)."""
    g, s = run_example("ex4")
    assert {"Ka", "Qa", "Kb", "Qb"} <= twelve("ex4")
    assert s["trump"] == "b" and points(s) == (60, 60, 20, 30, 20)
    assert amounts(s) == {"hundred": (1, False, -32)}
    check_payments(s, -32, ACTOR)


def test_s9_example_4_variant_forty_first_won():
    """L§9 ex. 4: with the 40 first, Ca 100, won: 4·2·(120−90)/10 = +24 (all marriages)."""
    g, s = run_example("ex4b")
    assert s["trump"] == "b" and points(s)[:4] == (60, 60, 40, 30)
    assert amounts(s) == {"hundred": (1, True, 24)}
    check_payments(s, 24, ACTOR)


def test_s9_example_5_stovka_lost_silent_seven_killed_by_partner():
    """L§9 ex. 5, L§8: stovka, leaves, no flek; 50 + 40, Md 0: hundred −4; trick 10: R
    leads 7l, the actor (no trumps) plays 9b, L must beat with 8l: the defence's silent
    seven is killed by the partner, +1: −3."""
    g, s = run_example("ex5")
    assert {"Kl", "Ql"} <= twelve("ex5")
    assert s["trump"] == "l" and points(s) == (50, 40, 40, 40, 0)
    last = [(seat, LA.action_label(a)) for seat, a in g.history[-3:]]
    assert last == [(R, "play:7l"), (ACTOR, "play:9b"), (L, "play:8l")]
    assert amounts(s) == {"hundred": (0, False, -4), "silent_seven": (0, False, 1)}
    assert comp(s, "silent_seven")["owner"] == "defence"
    check_payments(s, -3, ACTOR)


# LOW.  Forhond holds the lowest cards of every suit: a betl he cannot lose (laid).
LOW_F = ["7h", "8h", "9h", "7b", "8b", "9b", "7l", "8l", "9l", "7a"]
LOW_Z = ["Th", "Jh", "Qh", "Kh", "Ah", "Tb", "Jb", "Qb", "Kb", "Ab"]
LOW_D = ["Tl", "Jl", "Ql", "Kl", "Al", "Ta", "Ja", "Qa", "Ka", "Aa"]
LOW = licit_deck(LOW_F, LOW_Z, LOW_D, ["8a", "9a"])


def play_out(g):
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(g.legal_labels()[0])
    return settle(g)


def test_s9_example_6_betl_at_re():
    """L§9 ex. 6: betl; L flek, actor re, three good turns; won: 15·4 = 60 (actor +120).
    The betl is laid but nobody reached tutti: no transfer."""
    g = licit_game(LOW)
    lone(g, "betl")
    play(g, ["game:betl", "discard:8a", "discard:9a", "lead:7h"])
    play(g, ["flek:game", "good", "good", "flek:game", "good", "good", "good", "good"])
    s = play_out(g)
    assert amounts(s) == {"game": (2, True, 60)}
    assert s["laid"] and "laid_transfer" not in s
    assert not s["lepsi"]  # §3: lepší is hearts trumps; betl has none (no doubling)
    check_payments(s, 60, ACTOR)


def test_s9_example_7_show():
    """L§9 ex. 7 (the show itself is tested under §6): −60, lepší −90."""
    for deck, game, trump, want in ((SHOW_L, "dve_sedmy", ("trump:a",), -60),
                                    (SHOW_H, "lepsi_dve_sedmy", (), -90)):
        g = licit_game(deck)
        to_show(g, game, trump)
        play(g, ["show"])
        check_payments(settle(g), want, ACTOR)


def test_s9_example_8_cap():
    """L§9 ex. 8: lepší stovka at tutti; 40 + 20, Ca 60; defence 50 + 40 (hearts):
    4·2·8·(4 + 4) = 512 → −500 (actor −1000)."""
    g, s = run_example("ex8")
    assert not {"Kh", "Qh"} & twelve("ex8")  # the defence's 40 is the hearts marriage
    assert points(s) == (40, 20, 20, 50, 40)
    assert amounts(s) == {"hundred": (3, False, -512)}
    assert s["net"] == -512 and s["capped"]
    check_payments(s, -500, ACTOR)


def test_s9_cap_applies_to_the_net_not_per_component():
    """L§9 Decision: the cap is per payer on the net: lepší sto a sedm, hundred at boty won
    512, seven at re lost −16: net 496 is paid in full (a per-component cap would give
    484)."""
    g, s = run_example("capnet")
    assert amounts(s) == {"hundred": (4, True, 512), "seven": (2, False, -16)}
    assert s["net"] == 496 and not s["capped"]
    check_payments(s, 496, ACTOR)


def test_s9_cap_option_none():
    """L§11: ``payment_cap=None``: no cap; the same deal costs 512 per defender."""
    g, s = run_example("ex8", payment_cap=None)
    assert s["net"] == -512 and not s["capped"]
    check_payments(s, -512, ACTOR)


def test_s9_example_9_fold():
    """L§9 ex. 9: fold after winning at sedma: −6 (forhond's lone bid included)."""
    g = licit_game(BASE)
    lone(g, "sedma")
    play(g, ["fold"])
    check_payments(settle(g), -6, FORHOND)


def test_s9_example_10_bare_game_flek():
    """L§9 ex. 10: sedma; L flek:game; nothing more: unplayed, 0."""
    g = to_flek()
    play(g, ["flek:game", "good", "good", "good", "good"])
    s = settle(g)
    assert s["end"] == "bare_game_flek" and s["payments"] == [0, 0, 0] and s["amount"] == 0


def test_s9_example_11_silent_hundred_carries_game_fleks():
    """L§9 ex. 11: sedma, bells; L fleks the game, actor re; 70 + 40 = 110 vs 20; trump 7
    takes trick 10: silent hundred 2·4·(110−90)/10 = 16, seven +2: 18."""
    g, s = run_example("ex11")
    assert {"Kb", "Qb"} <= twelve("ex11")
    assert s["trump"] == "b" and points(s) == (70, 40, 40, 20, 0)
    assert amounts(s) == {"game": (2, True, 16), "seven": (0, True, 2)}
    assert comp(s, "game")["silent_hundred"] == "actor"
    check_payments(s, 18, ACTOR)


# HIGH.  Forhond holds the top cards of every suit he holds: a laid durch.
HIGH_F = ["Ah", "Kh", "Qh", "Jh", "Ab", "Kb", "Qb", "Al", "Kl", "Aa"]
HIGH_Z = ["7h", "8h", "9h", "Th", "7b", "8b", "9b", "Tb", "Jb", "7l"]
HIGH_D = ["8l", "9l", "Tl", "Jl", "Ql", "7a", "8a", "9a", "Ta", "Ja"]
HIGH = licit_deck(HIGH_F, HIGH_Z, HIGH_D, ["Ka", "Qa"])


def laid_durch(fleks, deck=HIGH, **rules):
    g = licit_game(deck, **rules)
    lone(g, "durch")
    play(g, ["game:durch", "discard:Ka", "discard:Qa", "lead:Ah", *fleks])
    return play_out(g)


def test_s9_example_12_laid_durch_transfer():
    """L§9 ex. 12: laid durch; L flek, actor re, L tutti, three good turns: 30·8 = 240;
    L pays 480, R 0, actor +480."""
    s = laid_durch(["flek:game", "good", "good", "flek:game", "good", "flek:game", "good",
                    "good", "good", "good"])
    assert amounts(s) == {"game": (3, True, 240)}
    assert s["laid"] and s["laid_transfer"] == {"payer": L, "amount": 480}
    assert not s["lepsi"]  # §3: durch has no trumps, so it is never lepší
    want = [0, 0, 0]
    want[ACTOR], want[L], want[R] = 480, -480, 0
    assert s["payments"] == want


def test_s9_laid_transfer_after_the_cap_up_to_1000():
    """L§13: the cap first (960 → 500), then the laid payer pays 2A* = 1000."""
    fl = ["flek:game", "good", "good", "flek:game", "good", "flek:game", "good", "good",
          "flek:game", "good", "flek:game", "good", "good", "good", "good"]
    s = laid_durch(fl)
    assert amounts(s) == {"game": (5, True, 960)} and s["capped"]
    assert s["payments"][L] == -1000 and s["payments"][R] == 0 and s["payments"][ACTOR] == 1000


# TOP.  Forhond holds every acorn and the top bells (Ab Tb, Kb Qb from the talon): a laid
# stovka in acorns (no defender trump, each card on top of its suit, a K+Q held).
TOP = licit_deck(["7a", "8a", "9a", "Ta", "Ja", "Qa", "Ka", "Aa", "Ab", "Tb"],
                 ["7h", "8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah", "7b", "8b"],
                 ["7l", "8l", "9l", "Tl", "Jl", "Ql", "Kl", "Al", "9b", "Jb"], ["Kb", "Qb"])


def test_s9_laid_suit_game_hundred_transfer():
    """L§9 Laid (a) for a suit game with a hundred; L flek, actor re, L tutti: the actor
    takes everything, 90 + 40 + 20: 4·8·(150−90)/10 = 192; L pays 384, R 0."""
    g = licit_game(TOP)
    lone(g, "sto")
    play(g, ["game:sto", "trump:a", "discard:7a", "discard:8a"])
    play(g, ["flek:hundred", "good", "good", "flek:hundred", "good", "flek:hundred", "good",
             "good", "good", "good"])
    s = play_out(g)
    assert points(s)[:2] == (90, 60) and amounts(s) == {"hundred": (3, True, 192)}
    assert s["laid"] and s["laid_transfer"] == {"payer": L, "amount": 384}
    assert s["payments"][ACTOR] == 384 and s["payments"][L] == -384 and s["payments"][R] == 0


def test_s9_laid_non_case_a_defender_holds_a_trump():
    """L§9 Laid (a), suit games: no defender may hold a trump, even one below all of the
    actor's.  TOP with the dealer's Al and the actor's 7a exchanged: every card the actor
    keeps is on top of its suit, but R holds 7a: not laid, so L's flek and tutti make no
    transfer and both defenders pay."""
    tr = {"7a": "Al", "Al": "7a"}
    g = licit_game([tr.get(c, c) for c in TOP])
    lone(g, "sto")
    play(g, ["game:sto", "trump:a", "discard:8a", "discard:9a"])
    assert "7a" in hand(g, R)
    play(g, ["flek:hundred", "good", "good", "flek:hundred", "good", "flek:hundred", "good",
             "good", "good", "good"])
    s = play_out(g)
    assert not s["laid"] and "laid_transfer" not in s
    assert s["amount"] > 0 and s["payments"][L] == s["payments"][R] == -s["amount"]


def test_s9_laid_non_case_a_hundred_without_a_marriage():
    """L§9 Laid (a): "with a hundred he holds a K+Q of one suit".  The actor keeps every
    trump but Qa, which he discards, and the top bells and leaves: no defender holds a
    trump, each of his cards is on top of its suit, but without a marriage the stovka is
    not laid (and is lost: 90 card points at most; the defence's marriages h, b, l are
    60: 4·8·(10 + 60)/10 = 224)."""
    g = licit_game(licit_deck(["7a", "8a", "9a", "Ta", "Ja", "Qa", "Ka", "Aa", "Ab", "Tb"],
                              ["8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah", "7b", "8b", "9b"],
                              ["Jb", "Qb", "Kb", "7l", "8l", "9l", "Tl", "Jl", "Ql", "Kl"],
                              ["Al", "7h"]))
    lone(g, "sto")
    play(g, ["game:sto", "trump:a", "discard:Qa", "discard:7h"])
    play(g, ["flek:hundred", "good", "good", "flek:hundred", "good", "flek:hundred", "good",
             "good", "good", "good"])
    s = play_out(g)
    assert not s["laid"] and "laid_transfer" not in s
    assert points(s)[:2] == (90, 0) and points(s)[4] == 60
    assert amounts(s) == {"hundred": (3, False, -224)}
    check_payments(s, -224, ACTOR)


def test_s9_laid_non_case_two_defenders_fleked():
    """L§9 (b): R made an odd flek too (tutti): both pay 240."""
    s = laid_durch(["flek:game", "good", "good", "flek:game", "good", "good", "flek:game",
                    "good", "good", "good", "good"])
    assert amounts(s) == {"game": (3, True, 240)} and s["laid"]
    assert "laid_transfer" not in s
    check_payments(s, 240, ACTOR)


def _high_fleks(last_odd_by_r: bool) -> list[str]:
    """L raises every odd level 1..15 and the actor every even one to 16; then the raise
    to 17 by R (or by L), and three quiet turns ("good" ends a seat's turn)."""
    turns = ["flek:game", "good", "good", "flek:game", "good"] * 8  # L, R, actor per round
    last = ["good", "flek:game", "good"] if last_odd_by_r else ["flek:game", "good"]
    return turns + last + ["good", "good", "good"]


@pytest.mark.parametrize("last_odd_by_r", [True, False])
def test_s9_laid_odd_fleks_above_level_15(last_odd_by_r):
    """L§9 Laid (b) and §13 at any max_flek: the raise to 17 by R makes two defenders who
    fleked (both pay, no transfer); by L, L made every odd flek and pays alone.  (The
    engine keeps who raised each level up to 15; the odd ones above by another seat count
    too.)"""
    s = laid_durch(_high_fleks(last_odd_by_r), max_flek=None, payment_cap=None)
    assert s["laid"] and s["components"][0]["level"] == 17
    a = s["amount"]
    want = [0, 0, 0]
    if last_odd_by_r:
        assert "laid_transfer" not in s
        want[ACTOR], want[L], want[R] = 2 * a, -a, -a
    else:
        assert s["laid_transfer"] == {"payer": L, "amount": 2 * a}
        want[ACTOR], want[L], want[R] = 2 * a, -2 * a, 0
    assert s["payments"] == want and a == 30 * 2 ** 17
    capped = laid_durch(_high_fleks(last_odd_by_r), max_flek=17)  # the default cap, 500
    assert capped["payments"][L] == (-500 if last_odd_by_r else -1000)


def test_s9_laid_non_case_no_tutti():
    """L§9 (b): L made every odd flek but nothing reached tutti: both pay."""
    s = laid_durch(["flek:game", "good", "good", "flek:game", "good", "good", "good",
                    "good"])
    assert amounts(s) == {"game": (2, True, 120)} and s["laid"]
    check_payments(s, 120, ACTOR)


def test_s9_laid_non_case_not_laid():
    """L§9 (a): a defender's Kh outranks the actor's Qh: not laid; both pay."""
    tr = {"Kh": "Th", "Th": "Kh"}
    deck = [tr.get(c, c) for c in HIGH]
    s = laid_durch(["flek:game", "good", "good", "flek:game", "good", "flek:game", "good",
                    "good", "good", "good"], deck=deck)
    assert not s["laid"] and "laid_transfer" not in s
    a = s["amount"]
    assert s["payments"][L] == s["payments"][R] == -a and abs(a) == 240


def test_s9_laid_non_case_amount_not_positive():
    """L§9 (c): the transfer needs A* > 0.  A laid deal is won, so this is reached only on
    the core: the laid durch re-settled as broken (lost) makes both defenders receive."""
    from mariash_env.core import state as S
    from mariash_env.core.licit_settle import settle_licit

    g = licit_game(HIGH)
    lone(g, "durch")
    play(g, ["game:durch", "discard:Ka", "discard:Qa", "lead:Ah", "flek:game", "good",
             "good", "flek:game", "good", "flek:game", "good", "good", "good", "good"])
    assert g.st[S.LIC_LAID] == 1 and g.st[S.LIC_LAID_PAYER] == L
    st = g.st.copy()
    st[S.END] = S.END_BROKEN
    settle_licit(st, g.rv)
    pay = [int(x) for x in S.read64(st, S.PAY, 3)]
    assert pay[L] == pay[R] == 240 and pay[ACTOR] == -480


def test_s8_two_sevens_no_points_no_game():
    """L§8 Decision: two sevens without sto scores no points and has no game or silent
    component: only the two sevens line."""
    g = licit_game(SHOW_R)
    to_show(g)
    play(g, ["flek:two_sevens", "good", "good", "good", "good"])
    s = play_out(g)
    assert set(amounts(s)) == {"two_sevens"}
    assert abs(s["net"]) == 80


@pytest.mark.parametrize("name, first", [
    ("ex2", 0), ("ex4", 20),
    ("ex8", 20),  # the defence's 40 in hearts, lepší's trumps
    ("capnet", 40),  # the defence's two 20s: Md 40 is what the lost hundred counts
])
def test_s8_no_rule_reads_the_defences_first_marriage(name, first):
    """L§3: no hundred against; L§8, §9: the lost hundred and the defence's silent hundred
    count all the defence's marriages (Md).  Its first marriage was stored in the state
    (SIDE_FIRST + 1, volený's for its hundred against, R§9) and read by nothing: not the
    settlement, the record (the actor's first only), ``env.state()`` or an observation
    (both find the first marriages from the marriages' order).  It stays 0 as the deal
    cleared it, and nothing changes whatever it holds."""
    from mariash_env.core import state as S

    g, s = run_example(name)
    assert s["points"]["defence_marriages"] > 0
    assert (int(g.st[S.SIDE_FIRST]), int(g.st[S.SIDE_FIRST + 1])) == (first, 0)
    assert s["points"]["actor_first_marriage"] == first

    def seen():
        return (g.settlement(), g.full_state().tolist(),
                [[x.tolist() for x in g.observe(seat)] for seat in range(3)])

    before = seen()
    g.st[S.SIDE_FIRST + 1] = 40
    assert seen() == before


# --------------------------------------------------------------------------------------
# §10 Renonc: illegal actions are refused, nothing applied
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix, bad", [
    ([], "hold"),  # A1: the challenger cannot hold
    ([], "bid:lepsi_sedma"),  # needs not met
    (["bid:sedma"], "bid:sto"),  # the holder never names a higher game
    (["pass", "pass", "bid:sto"], "fold"),  # fold only after sedma
    (["pass", "pass", "bid:sedma", "game:sedma", "trump:b"], "discard:Ah"),
    (["pass", "pass", "bid:sedma", "game:sedma", "trump:b", "discard:8a", "discard:9a"],
     "play:7h"),  # flekking first
    (["pass", "pass", "bid:sedma", "game:sedma", "trump:b", "discard:8a", "discard:9a",
      "good", "good", "good"], "play:7b"),  # the early reserved seven
    (["pass", "pass", "bid:sedma"], "play:7h"),
])
def test_s10_illegal_action_raises_and_changes_nothing(prefix, bad):
    """L§10: any action outside the masked legal set is refused with IllegalActionError;
    the state, history and scores are unchanged."""
    g = licit_game(BASE)
    play(g, prefix)
    st, hist, legal = g.st.copy(), list(g.history), g.legal_labels()
    with pytest.raises(IllegalActionError):
        g.step(bad)
    assert (g.st == st).all() and g.history == hist and g.legal_labels() == legal


@pytest.mark.parametrize("label", ["trump:Ka", "contract:suit", "announce:sedma"])
def test_s10_voleny_label_is_illegal_in_licitovany(label):
    """L§12, issue #12: an action label of the other game is an IllegalActionError naming
    the game it belongs to; nothing changes."""
    g = licit_game(BASE)
    st = g.st.copy()
    with pytest.raises(IllegalActionError, match="voleny"):
        g.step(label)
    assert (g.st == st).all()


@pytest.mark.parametrize("label", ["bid:sedma", "hold", "fold", "show", "helping:h",
                                   "lead:7h", "flek:two_sevens"])
def test_s10_licitovany_label_is_illegal_in_voleny(label):
    from tests.helpers import new_game

    g = new_game(BASE)  # any permutation is a volený deck too
    st = g.st.copy()
    with pytest.raises(IllegalActionError, match="licitovany"):
        g.step(label)
    assert (g.st == st).all()


def test_s10_a_seat_not_to_move_has_no_legal_labels():
    g = licit_game(BASE)
    assert g.legal_labels(FORHOND) == [] and g.legal_labels(DEALER) == []
    assert g.legal_labels(ZADAK) == g.legal_labels()


# --------------------------------------------------------------------------------------
# §11 Partie and rule options
# --------------------------------------------------------------------------------------


def test_s11_partie_twelve_deals_each_seat_deals_four_times():
    """L§11, R§2/§10: 12 deals, dealers 0,1,2,0,… (the next dealer is forhond), no-bid
    deals count, totals zero-sum and the sum of the deals' payments."""
    g = licit_game(BASE)
    dealers, ends, total = [], [], [0, 0, 0]
    i = 0
    tick = step_cap(g, deals=None)
    while True:
        tick()
        dealers.append(int(g.st[mariash_env.core.state.DEALER]))
        while not g.deal_over:  # everybody passes every other deal: no-bid deals count
            tick()
            labs = g.legal_labels()
            g.step("pass" if i % 2 and "pass" in labs else labs[0])
        s = g.settlement()
        ends.append(s["end"])
        total = [t + p for t, p in zip(total, s["payments"])]
        assert sum(s["payments"]) == 0
        i += 1
        if not g.next_deal():
            break
    assert len(dealers) == 12 and dealers == [0, 1, 2] * 4
    assert "no_bid" in ends and g.partie_over
    assert g.scores == total and sum(g.scores) == 0


@pytest.mark.parametrize("opt", [{"tariff": "csm"}, {"killed_seven": 3},
                                 {"open_contracts": True}, {"hundred_counting": "order_free"},
                                 {"players": 4}])
def test_s11_voleny_only_options_refused(opt):
    """L§11: volený-only switches are refused for licitovaný with a RulesError naming
    them; the env refuses them too."""
    (name,) = opt
    with pytest.raises(RulesError, match=name):
        licit_game(BASE, **opt)
    with pytest.raises(RulesError, match=name):
        mariash_env.env(rules="licitovany", **opt)


def test_s11_defaults_and_applicable_options():
    """L§6, §9, §11: max_flek 5 and payment_cap 500 by default; max_flek, payment_cap,
    shuffle, marriage_order and deals apply."""
    g = licit_game(BASE)
    assert g.rules.max_flek == 5 and g.rules.payment_cap == 500
    g = licit_game(BASE, max_flek=3, payment_cap=None, shuffle="every_deal",
                   marriage_order="queen_first", deals=3)
    assert g.rules.max_flek == 3 and g.rules.payment_cap is None
    g2 = to_flek(max_flek=1)
    play(g2, ["flek:seven", "good", "good"])
    assert g2.to_move == ACTOR and labels(g2) == {"good"}  # no re beyond max_flek 1


def test_s11_unknown_rules_name_refused():
    with pytest.raises(RulesError, match="licitovani"):
        mariash_env.env(rules="licitovani")


# --------------------------------------------------------------------------------------
# §12 Action labels
# --------------------------------------------------------------------------------------


def test_s12_labels_round_trip_and_order():
    """L§12: every label maps to its index and back; the ranges in §12's order."""
    for i, lab in enumerate(LA.ACTION_LABELS):
        assert LA.action_index(lab) == i and LA.action_label(i) == lab
    want = ([f"bid:{x}" for x in GAMES] + ["hold", "pass", "fold"]
            + [f"game:{x}" for x in GAMES] + ["trump:b", "trump:l", "trump:a"]
            + [f"helping:{s}" for s in "hbla"] + [f"discard:{c}" for c in CARD_CODES]
            + [f"lead:{c}" for c in CARD_CODES]
            + ["flek:game", "flek:seven", "flek:hundred", "flek:two_sevens", "good", "show"]
            + [f"play:{c}" for c in CARD_CODES])
    assert list(LA.ACTION_LABELS) == want and LA.N_ACTIONS == len(want) == 136
    assert len(set(want)) == len(want)


def test_s12_env_labels_and_bad_label():
    env = mariash_env.env(rules="licitovany")
    raw = env.unwrapped
    assert raw.action_label(LA.action_index("bid:durch")) == "bid:durch"
    assert raw.action_index("play:qh") == LA.action_index("play:Qh")
    with pytest.raises(ActionError, match="bid:sedmaa"):
        raw.action_index("bid:sedmaa")
    with pytest.raises(ActionError):
        LA.action_label(136)


def test_s12_env_drives_a_deal_through_labels():
    """L§12: the AEC env plays a deal through labels; rewards are the settlement in units."""
    env = mariash_env.env(rules="licitovany")
    env.reset(seed=0, options={"deck": BASE, "dealer": 0})
    raw = env.unwrapped
    for lab in ["pass", "pass", "bid:sedma", "fold"]:
        agent = env.agent_selection
        assert lab in raw.legal_labels(agent)
        env.step(raw.action_index(lab))
    rewards = [env.rewards[a] for a in env.possible_agents]
    assert rewards == [6, -12, 6]
