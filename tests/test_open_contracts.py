"""Open betl and open durch (RULES.md §11.1, the English guide; issue #15): the contract chain,
the face-up hand after the first trick, the hidden-world sampler, the price and records.

Expected amounts are worked out by hand from the rule text: open betl and open durch
cost twice betl (5) and durch (10) of the home tariff; ``A`` is per defender.
"""

from __future__ import annotations

import numpy as np
import pytest

import mariash_env
from mariash_env import Game
from mariash_env.cards import mask_of
from mariash_env.core import state as S
from mariash_env.core.observe import O_OPEN, O_OPEN_HAND, O_RAISED_BY, OBS_SIZE, OBS_VERSION
from mariash_env.records import RecordChecker
from mariash_env.rules import R_OPEN, RulesError, make_rules
from mariash_env.search.worlds import check_world, sample_worlds
from mariash_env.vector import VectorEnv, random_legal_actions
from scripts.check_worlds import world_replays
from tests.helpers import deck_from_hands, play, step_cap

# Dealer 0: forehand is seat 1, then seat 2 and seat 0.  Forehand holds the two lowest
# cards of every suit and more: whatever is played, it never wins a trick in a betl.
F7 = ["7h", "8h", "9h", "7b", "8b", "9b", "7l"]
F5 = ["8l", "9l", "7a", "8a", "Jh"]
MIDDLE = ["Th", "Jb", "Qh", "Kh", "Ah", "Tb", "Qb", "Kb", "Ab", "9a"]
DEALER = ["Jl", "Ql", "Kl", "Tl", "Al", "Ja", "Qa", "Ka", "Ta", "Aa"]
DECK = deck_from_hands(F7, F5, MIDDLE, DEALER)


def open_game(**rules) -> Game:
    g = Game(deals=1, open_contracts=True, **rules)
    g.new_partie(seed=0, deck=DECK, dealer=0)
    return g


def bits(v: np.ndarray) -> int:
    return sum(1 << i for i in range(32) if v[i] > 0.5)


def test_options_and_conflicts():
    assert make_rules(open_contracts=True).vector()[R_OPEN] == 1
    with pytest.raises(RulesError, match=r"open_contracts=True and tariff='csm'.*no open"):
        make_rules(open_contracts=True, tariff="csm")
    with pytest.raises(RulesError, match=r"open_contracts.*do not apply to.*licitovany"):
        make_rules(rules="licitovany", open_contracts=True)
    with pytest.raises(RulesError, match="open_contracts"):
        mariash_env.env(open_contracts=True, tariff="csm")
    with pytest.raises(RulesError, match="open_contracts"):
        VectorEnv(2, open_contracts=True, tariff="csm")


def test_contract_choices_with_and_without_the_option():
    """§4.1 / §11.1: forehand may name any of the five; without the option only three."""
    g = Game(deals=1)
    g.new_partie(seed=0, deck=DECK, dealer=0)
    play(g, ["trump:7h"])
    assert set(g.legal_labels()) == {"contract:suit", "contract:betl", "contract:durch"}
    g = open_game()
    play(g, ["trump:7h"])
    assert set(g.legal_labels()) == {"contract:suit", "contract:betl", "contract:durch",
                                "contract:open_betl", "contract:open_durch"}
    assert set(g.legal_mask().tolist()) == {0, 1}  # INTERFACE: int8, 1 = legal
    # §4.2 / §11.1: after "bad" any no-trump contract.
    play(g, ["contract:suit", "discard:9b", "discard:Jh", "bad"])
    assert g.to_move == 2
    assert set(g.legal_labels()) == {"contract:betl", "contract:durch", "contract:open_betl",
                                "contract:open_durch"}
    assert set(g.legal_mask().tolist()) == {0, 1}


def test_overcall_chain():
    """§11.1: betl is answered good or any higher no-trump contract; the first higher one
    takes the talon, discards and is answered again from its player; open durch stands."""
    g = open_game()
    play(g, ["trump:7h", "contract:betl", "discard:9b", "discard:Jh"])
    assert g.to_move == 2
    assert set(g.legal_labels()) == {"good", "contract:durch", "contract:open_betl",
                                "contract:open_durch"}
    play(g, ["contract:durch"])  # seat 2 takes 9b Jh
    assert g.hand(2) & mask_of(["9b", "Jh"]) == mask_of(["9b", "Jh"])
    play(g, ["discard:9a", "discard:Jh"])
    assert g.to_move == 0  # answering starts again from seat 2
    assert set(g.legal_labels()) == {"good", "contract:open_betl", "contract:open_durch"}
    play(g, ["good"])
    assert g.to_move == 1
    play(g, ["contract:open_betl"])  # forehand takes 9a Jh back
    play(g, ["discard:9a", "discard:Jh"])
    assert g.to_move == 2 and set(g.legal_labels()) == {"good", "contract:open_durch"}
    play(g, ["good", "good"])
    st = g.st
    assert S.contract_name(st) == "open_betl" and st[S.ACTOR] == 1
    assert st[S.DURCH_SEAT] == 2 and st[S.OVERCALLS] == 1 | (1 + 1) << 1
    assert g.phase_name == "flek" and g.to_move == 2
    assert set(g.legal_labels()) == {"flek:game", "good"}

    g = open_game()
    play(g, ["trump:7h", "contract:durch", "discard:9b", "discard:Jh"])
    assert set(g.legal_labels()) == {"good", "contract:open_betl", "contract:open_durch"}
    play(g, ["contract:open_durch", "discard:9b", "discard:Jh"])
    assert g.phase_name == "flek" and g.to_move == 0  # nobody answers open durch
    assert S.contract_name(g.st) == "open_durch" and g.st[S.ACTOR] == 2

    # Without the option a durch is not answered (§4.3).
    g = Game(deals=1)
    g.new_partie(seed=0, deck=DECK, dealer=0)
    play(g, ["trump:7h", "contract:durch", "discard:9b", "discard:Jh"])
    assert g.phase_name == "flek"


def _open_betl_to_first_lead(g: Game) -> None:
    play(g, ["trump:7h", "contract:open_betl", "discard:9b", "discard:Jh", "good", "good",
             "good", "good"])
    assert g.phase_name == "play" and g.to_move == 1


def test_open_hand_is_shown_to_every_seat_after_the_first_trick():
    g = open_game()
    _open_betl_to_first_lead(g)
    for seat in range(3):
        o = g.observation(seat)
        assert o[O_OPEN] == 1
        assert not o[O_OPEN_HAND:O_OPEN_HAND + 32].any()
    play(g, ["play:7h", "play:Th"])
    for seat in range(3):  # the trick is not complete: still hidden
        assert not g.observation(seat)[O_OPEN_HAND:O_OPEN_HAND + 32].any()
    play(g, ["play:Jl"])
    actor_hand = g.hand(1)
    assert actor_hand == mask_of(["8h", "9h", "7b", "8b", "7l", "8l", "9l", "7a", "8a"])
    for seat in range(3):
        assert bits(g.observation(seat)[O_OPEN_HAND:]) == actor_hand
    # The next card: the shown hand follows the actor's hand.
    play(g, ["play:Qh", "play:Ja", "play:8h"])
    for seat in range(3):
        assert bits(g.observation(seat)[O_OPEN_HAND:]) == g.hand(1)


def test_plain_betl_shows_nothing_and_the_layout_is_unchanged():
    assert OBS_SIZE == 900 and OBS_VERSION == 1
    g = Game(deals=1)
    g.new_partie(seed=0, deck=DECK, dealer=0)
    play(g, ["trump:7h", "contract:betl", "discard:9b", "discard:Jh", "good", "good", "good",
             "good", "play:7h", "play:Th", "play:Jl"])
    for seat in range(3):
        assert not g.observation(seat)[O_RAISED_BY + 21:O_RAISED_BY + 84].any()


def test_worlds_know_the_open_hand_after_the_first_trick():
    g = open_game()
    rules = g.rules
    _open_betl_to_first_lead(g)
    play(g, ["play:7h"])
    before = sample_worlds(g.st, 2, 60, rng=1, rules=rules)
    assert len({int(S.getm(w, S.HAND + 1)) for w in before}) > 1
    play(g, ["play:Th", "play:Jl"])
    for seat in (0, 2):
        worlds = sample_worlds(g.st, seat, 40, rng=2, rules=rules)
        assert all(S.getm(w, S.HAND + 1) == g.hand(1) for w in worlds)
        # the partner's hand and the talon still split the rest in many ways
        other = 2 if seat == 0 else 0
        rest = g.hand(other) | int(S.getm(g.st, S.TALON))
        assert all(S.getm(w, S.HAND + other) | S.getm(w, S.TALON) == rest for w in worlds)
        assert len({int(S.getm(w, S.HAND + other)) for w in worlds}) > 1


def test_worlds_follow_a_chain_of_overcalls():
    """Three talons (forehand, the durch, the open betl): sampled worlds replay."""
    g = open_game()
    play(g, ["trump:7h", "contract:betl", "discard:9b", "discard:Jh", "contract:durch",
             "discard:9a", "discard:Jh", "contract:open_betl", "discard:9a", "discard:Kl",
             "good", "good", "good", "good"])
    assert S.contract_name(g.st) == "open_betl" and g.st[S.ACTOR] == 0
    for seat in range(3):
        ws = sample_worlds(g.st, seat, 20, rng=seat, rules=g.rules)
        assert len(ws) == 20


def test_worlds_when_one_seat_takes_two_talons():
    """betl (seat 1), durch (seat 2), open betl (seat 0), open durch (seat 2 again): four
    talons, seat 2 takes two (TOOK is their union; TAKEN keeps each)."""
    g = open_game()
    play(g, ["trump:7h", "contract:betl", "discard:9b", "discard:Jh", "contract:durch",
             "discard:9a", "discard:Jh", "contract:open_betl", "discard:9a", "discard:Kl",
             "good", "contract:open_durch", "discard:9a", "discard:Kl", "good", "good"])
    assert S.contract_name(g.st) == "open_durch" and g.st[S.ACTOR] == 2
    assert [S.getm(g.st, S.TAKEN + k) for k in range(4)] == [
        mask_of(["9b", "Jh"]), mask_of(["9a", "Jh"]), mask_of(["9a", "Kl"]), 0]
    for seat in range(3):
        ws = sample_worlds(g.st, seat, 10, rng=seat, rules=g.rules)
        assert all(check_world(w, g.rules.vector()) for w in ws)
        if seat != 2:  # the others do not know what seat 2 laid: several worlds
            assert len({int(S.getm(w, S.HAND + 2)) for w in ws}) > 1


def _two_talon_positions(n: int, seed: int):
    """``n`` random positions (``Game`` copies) of open-contract deals in which a seat has
    laid or taken two talons (RULES.md §11.1: the answering starts again from each new
    contract's player)."""
    from mariash_env.games.voleny.worlds import _repeats, talon_chain

    rng = np.random.default_rng(seed)
    out: list[Game] = []
    while len(out) < n:
        g = Game(deals=1, open_contracts=True)
        g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(3)))
        tick = step_cap(g)
        while not g.deal_over and len(out) < n:
            tick()
            layer, taker, k, _, _ = talon_chain(g.st)
            if _repeats(layer, taker, k) and rng.random() < 0.5:
                c = Game(deals=1, open_contracts=True)
                c.st, c.history = g.st.copy(), list(g.history)
                out.append(c)
            g.step(int(rng.choice(g.legal_actions())))
    return out


def test_knowledge_keeps_the_real_deal_when_a_seat_takes_two_talons():
    """What each seat knows (``knowledge``) always allows where every hidden card really
    is; before, it let a card laid to a talon go on only through its taker's next talon
    (one talon a seat, as without open contracts): about one seat's knowledge in twenty
    of these positions excluded the real deal or found none, and the searching robots
    fell back to the table robot there."""
    from mariash_env.search import knowledge

    for g in _two_talon_positions(150, seed=1):
        for me in range(3):
            k = knowledge(g.st, me, g.rules)
            for c in range(32):
                if k.hidden >> c & 1:
                    at = next((i for i, s in enumerate(k.locations[:2])
                               if g.hand(s) >> c & 1), 2)
                    assert k.allowed[c] >> at & 1, (g.history, me, c)


def test_worlds_replay_when_a_seat_takes_two_talons():
    """Every sampled world of these positions is a deal that could have happened: it
    replays from its own deck (``check_world`` now also undoes the talons one by one, so a
    card passed on through two talons is where they put it)."""
    for i, g in enumerate(_two_talon_positions(60, seed=2)):
        for me in range(3):
            for w in sample_worlds(g.st, me, 4, rng=i, rules=g.rules):
                assert world_replays(w, g, me), (g.history, me)
        # The real deal is a world of every seat (fill_hidden reads talon by talon).
        assert all(world_replays(g.st, g, me) for me in range(3))


def _finish_first_legal(g: Game) -> None:
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        g.step(g.legal_actions()[0])


def test_open_betl_and_open_durch_prices():
    """Open betl won: 2 x 5 = 10 from each defender; open durch lost: 2 x 10 = 20 to
    each defender; flek doubles them."""
    g = open_game()
    _open_betl_to_first_lead(g)
    _finish_first_legal(g)  # forehand holds the lowest cards of every suit
    s = g.settlement()
    assert s["contract"] == "open_betl" and s["end"] == "played"
    assert s["bets"][0]["kind"] == "open_betl" and s["bets"][0]["worth"] == 10
    assert s["payments"] == [-10, 20, -10]

    g = open_game()
    play(g, ["trump:7h", "contract:open_durch", "discard:9b", "discard:Jh",
             "flek:game", "good", "good", "good"])  # seat 2 fleks: 2 x 20
    assert g.phase_name == "play"
    play(g, ["play:7h", "play:Th", "play:Jl"])  # seat 2 takes the first trick
    s = g.settlement()
    assert s["contract"] == "open_durch" and s["end"] == "decided_early"
    assert s["bets"][0]["worth"] == 20 and s["bets"][0]["level"] == 1
    assert s["payments"] == [40, -80, 40]
    assert "open durch" in g_render(g)


def g_render(g: Game) -> str:
    from mariash_env.render import render_table

    return render_table(g)


def test_records_name_the_open_contract_and_replay():
    g = open_game()
    _open_betl_to_first_lead(g)
    _finish_first_legal(g)
    rec = g.record()
    assert rec["rules"]["open_contracts"] is True
    assert rec["settlement"]["contract"] == "open_betl"
    assert rec["actions"][1] == [1, "contract:open_betl"]
    RecordChecker().check(rec)


def test_vector_env_plays_open_contracts():
    """The batched engine under the option: random legal play, zero-sum deals, open
    contracts among them."""
    rng = np.random.default_rng(0)
    venv = VectorEnv(64, seed=0, deals=100, open_contracts=True, shuffle="every_deal")
    step = venv.reset()
    opened = 0
    for _ in range(600):
        step = venv.step(random_legal_actions(step.mask, rng))
        np.testing.assert_allclose(step.rewards.sum(axis=1), 0)
        opened += int((venv.copy_states()[:, S.OVERCALLS] & 1).sum())
    assert opened > 0


def test_api_test_and_arena_with_open_contracts():
    from pettingzoo.test import api_test

    from mariash_env.arena import duplicate_match
    from mariash_env.robots import RandomRobot, TableRobot

    api_test(mariash_env.env(open_contracts=True), num_cycles=300)
    res = duplicate_match({"table": TableRobot, "random": lambda: RandomRobot(seed=0)},
                          deals=4, seed=1, jobs=1, progress=False, n_boot=100,
                          rules={"open_contracts": True})
    np.testing.assert_allclose(res.per_deal.sum(axis=1), 0, atol=1e-9)


def test_table_robot_answers_and_plays_open_contracts_legally():
    """The table robot treats open betl / durch as betl / durch; every move it makes is
    legal, also when a durch is answered (open contracts only)."""
    from mariash_env.robots import TableRobot

    robot = TableRobot()
    rng = np.random.default_rng(5)
    g = Game(deals=1, open_contracts=True, shuffle="every_deal")
    seen = set()
    for i in range(150):
        g.new_partie(seed=i)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            seat = g.to_move
            labels = g.legal_labels()
            forced = [x for x in labels if x in ("contract:durch", "contract:open_betl",
                                                  "contract:open_durch")]
            if g.phase_name in ("contract", "betl_answer") and forced and rng.random() < 0.5:
                g.step(str(rng.choice(forced)))  # steer into the open contracts
                continue
            obs, mask = g.observe(seat)
            a = robot.act({"observation": obs, "action_mask": mask})
            assert mask[a], (i, g.phase_name, a)
            if g.phase_name == "betl_answer":
                seen.add(S.contract_name(g.st))
            g.step(a)
    assert "durch" in seen  # the robot answered a durch at least once


def test_table_robot_answers_a_durch_with_good():
    """Answering a durch (open contracts only) the table robot holding a durch hand may not
    say durch again: it says good."""
    from mariash_env.robots import TableRobot

    robot = TableRobot()
    g = open_game()
    play(g, ["trump:7h", "contract:durch", "discard:9b", "discard:Jh", "good"])
    assert g.to_move == 0 and robot.durch_hand(g.hand(0))
    obs, mask = g.observe(0)
    assert robot.act({"observation": obs, "action_mask": mask}) == g.kind.labels.index("good")
