"""Volený worlds (``search.sample_worlds``) in every variant are deals that could have
happened: at random decisions of random deals every seat's worlds replay exactly from
their own deck, the hidden decisions taken from them (``fill_hidden``).  The open
contracts' two-talon chains have their own tests (tests/test_open_contracts.py), the
licitovaný sampler its own (tests/test_licit_worlds.py)."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env import Game, make_rules
from mariash_env.core import state as S
from mariash_env.search import sample_worlds
from scripts.check_worlds import replayed, world_replays
from tests.helpers import step_cap

VARIANTS = [{}, {"marriage_order": "queen_first"},
            {"open_contracts": True, "hundred_counting": "order_free"},
            {"tariff": "csm", "max_flek": 1}, {"players": 4}]


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: ",".join(o) or "standard")
def test_every_world_replays_from_its_own_deck(opts):
    """... and a world of the seat, as the real deal, gives the same worlds seed for seed
    (nothing the seat cannot see goes into them)."""
    rules = make_rules(deals=1, **opts)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(25):
        g = Game(rules)
        g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(rules.players)))
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            if g.st[S.PHASE] >= S.PH_TRUMP and rng.random() < 0.3:
                for me in range(3):
                    worlds = sample_worlds(g.st, me, 2, int(rng.integers(1 << 30)), rules)
                    for w in worlds:
                        assert world_replays(w, g, me), (
                            [g.kind.labels[a] for _, a in g.history], me)
                        checked += 1
                    # A deal the seat cannot tell from the real one: the same worlds.
                    assert np.array_equal(sample_worlds(g.st, me, 2, 5, rules), sample_worlds(
                        replayed(worlds[0], g, me), me, 2, 5, rules))
            g.step(int(rng.choice(g.legal_actions())))
    assert checked > 200


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: ",".join(o) or "standard")
def test_what_a_seat_knows_admits_the_real_deal(opts):
    """At every decision of random deals, each seat's ``knowledge`` (its per-card
    locations, counts, must-hold and at-most rows) admits where the cards really are."""
    from mariash_env.search import knowledge

    rules = make_rules(deals=1, **opts)
    rng = np.random.default_rng(8)
    for _ in range(30):
        g = Game(rules)
        g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(rules.players)))
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            if g.st[S.PHASE] >= S.PH_TRUMP:
                for me in range(3):
                    assert knowledge(g.st, me, rules).admits(g.st), (
                        [g.kind.labels[a] for _, a in g.history], me)
            g.step(int(rng.choice(g.legal_actions())))


def test_the_check_script_reports_and_refuses_bad_arguments(capsys):
    """``python -m scripts.check_worlds`` (the same checks, larger): counts per variant,
    exit 0; bad arguments exit 2."""
    from scripts.check_worlds import main

    assert main(["--deals", "2", "--games", "voleny"]) == 0
    out = capsys.readouterr().out
    assert "voleny standard: knowledge" in out and "failures: 0" in out
    assert "worlds_bad 0" in out and "records_bad 0" in out and "unseen_bad 0" in out
    for bad in (["--deals", "0"], ["--games", "lizany"]):
        with pytest.raises(SystemExit) as e:
            main(bad)
        assert e.value.code == 2
