"""Licitovaný worlds (``sample_licit_worlds``, LICITOVANY.md): every world a seat's sampler
draws is a deal that could have happened — dealt from its own deck, the game's decisions
(the hidden ones taken from the world) are legal and give the world back exactly — and
the defenders' duty to show (L§6) is read from each world's own cards."""

from __future__ import annotations

import numpy as np

from mariash_env.cards import card_index
from mariash_env.core import state as S
from mariash_env.game import Game
from mariash_env.games.licitovany import worlds as LW
from mariash_env.games.licitovany.worlds import sample_licit_worlds
from mariash_env.rules import make_rules
from scripts.check_worlds import replayed, world_replays
from tests.helpers import licit_game, play, step_cap
from tests.test_licit_rules import ACTOR, SHOW_R, L, R, to_show

RULES = make_rules(rules="licitovany", deals=1)


def test_worlds_replay_from_their_own_deck():
    """Random deals, a third of the decisions, every seat: each world replays exactly.
    Before, about one world in a hundred kept the real deal's ``LIC_SHOW_SEAT`` (a hidden
    fact: which defender held four helping cards) against its own cards, and one in ten
    thousand gave four helping cards to a defender who had raised on his first turn."""
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(60):
        g = Game(RULES)
        g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(3)))
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            if rng.random() < 0.3:
                for me in range(3):
                    for w in sample_licit_worlds(g.st, me, 2, int(rng.integers(1 << 30)),
                                                 RULES):
                        assert world_replays(w, g, me), ([g.kind.labels[a] for _, a in g.history],
                                                    me)
                        checked += 1
            g.step(int(rng.choice(g.legal_actions())))
    assert checked > 1000


def test_a_defender_who_raised_on_his_first_turn_did_not_have_to_show():
    """L§6: L with four helping cards has ``show`` as his only action on his first turn,
    so once he has raised on it (his turn still going on) no world gives him four; R, who
    holds four, never shows after L's flek, and the worlds' ``LIC_SHOW_SEAT`` comes from
    their own cards, not from the real deal."""
    g = licit_game(SHOW_R, deals=1)
    to_show(g)
    play(g, ["flek:two_sevens"])
    assert g.to_move == L and g.st[S.LIC_SHOW_SEAT] == R
    leaves = sum(1 << card_index(c) for c in ("7l", "8l", "9l", "Tl", "Jl", "Ql", "Kl", "Al"))
    show_seats = set()
    for me in (ACTOR, R):
        for w in sample_licit_worlds(g.st, me, 60, rng=me, rules=g.rules):
            assert bin(S.getm(w, S.HAND + L) & leaves).count("1") < 4
            assert world_replays(w, g, me)
            show_seats.add(int(w[S.LIC_SHOW_SEAT]))
    assert -1 in show_seats  # worlds where R holds fewer than four: nobody was due


def test_worlds_do_not_depend_on_what_the_seat_cannot_see():
    """Two deals the seat cannot tell apart (the real one and one of its worlds) give the
    same worlds from the same seed.  The real deal's ``LIC_SHOW_SEAT`` (R held four
    helping cards) went into every world before."""
    g = licit_game(SHOW_R, deals=1)
    to_show(g)
    play(g, ["flek:two_sevens", "good"])
    for me in (ACTOR, L):
        for w in sample_licit_worlds(g.st, me, 6, rng=me, rules=g.rules):
            other = replayed(w, g, me)  # the engine's own deal of that world
            assert np.array_equal(sample_licit_worlds(g.st, me, 3, rng=9, rules=g.rules),
                                  sample_licit_worlds(other, me, 3, rng=9, rules=g.rules))


def test_the_plays_place_the_hidden_cards_exactly(monkeypatch):
    """L§7 (R§6–§7): the hidden cards' places follow from the other seats' plays — a card
    that would have made a play illegal (a suit not followed, a trick not beaten or not
    trumped, a reserved seven led early) was not in that hand, and a marriage recorded or
    not places or excludes the partner.  The real deal always fits, and no world drawn is
    left for the replay to refuse: before, 26,054 of 40,454 replays failed (seven draws a
    world in late positions), only following suit was read from the plays."""
    refused = []
    replay = LW._replay_play
    monkeypatch.setattr(LW, "_replay_play",
                        lambda *a: replay(*a) or refused.append(1) or False)
    rv = RULES.vector()
    narrowed = 0
    for seed in range(40):
        st = LW.random_licit_position(seed, plays=(7 * seed) % 27 + 1, rules=RULES)
        for me in range(3):
            assert LW.places_admit(st, me, RULES), (seed, me)
            places = LW._places(st, me, rv, LW._hidden(st, me)[2])
            narrowed += sum(m & 3 != 3 for m in places.values())
            sample_licit_worlds(st, me, 4, rng=seed, rules=RULES)
    assert narrowed > 150 and not refused
