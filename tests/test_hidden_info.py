"""Issue #30: what a seat knows of a deal is the game's (``GameKind.hidden_info``, a
:class:`~mariash_env.games.base.HiddenInfo`): the OpenSpiel adapter and the robots'
SeatView read it and name no game.  RULES.md §3-§4 (volený: the trump card, unless z lidu,
and the discards are hidden), LICITOVANY.md §5 (the actor's discards and face-down lead
card)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from mariash_env.games.base import HiddenInfo
from mariash_env.games.registry import game_kind, games

pyspiel = pytest.importorskip("pyspiel")

from mariash_env import openspiel as O  # noqa: E402
from mariash_env.openspiel.params import CUT_SLOTS, info_block  # noqa: E402
from tests.helpers import step_cap  # noqa: E402
from tests.test_openspiel import _random_action  # noqa: E402

ROOT = Path(__file__).resolve().parents[1] / "mariash_env"
CORE_GAMES = [k.name for k in games("openspiel") if k.hidden_info]


def test_adapter_and_seat_view_name_no_game():
    """No name of a compiled-core game, ``R_GAME`` constant or ``licit`` flag in the
    OpenSpiel adapter or in SeatView's code (docstrings aside; lízaný's own OpenSpiel game
    is dispatched by name): they ask the kind."""
    names = set(CORE_GAMES)
    files = [p for p in (ROOT / "openspiel").glob("*.py") if p.name != "lizany.py"]
    for path in [*files, ROOT / "robots" / "view.py"]:
        tree = ast.parse(path.read_text())
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)
                and isinstance(n.value, ast.Constant)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and id(n) not in docs:
                assert n.value not in names, f"{path.name}:{n.lineno} names {n.value!r}"
            if isinstance(n, ast.Name | ast.alias):
                name = n.id if isinstance(n, ast.Name) else n.name
                assert name != "G_LICIT", f"{path.name} tests for licitovaný"
            if isinstance(n, ast.Attribute):
                assert n.attr != "licit", f"{path.name}:{n.lineno} reads .licit"


def _states(rules: str, n: int, seed: int):
    game = pyspiel.load_game("mariash", {"rules": rules})
    rng = np.random.default_rng(seed)
    while n:
        s = game.new_initial_state()
        stop = int(rng.integers(40, 110))
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal() and len(s.history()) < stop:
            tick()
            s.apply_action(_random_action(s, rng))
        if s.st is not None and not s.dealing:
            n -= 1
            yield game, s


@pytest.mark.parametrize("rules", CORE_GAMES)
def test_hidden_decisions_are_filled_from_the_world_and_masked(rules):
    """On the real deal (the true world) the game's filler recovers every other seat's
    hidden decision from the record alone (each blanked to its block's first index; the
    order of a taken talon's two discards is not in the record, RULES.md §4), and the
    information-state string shows exactly those as ``head:?``."""
    kind = game_kind(rules)
    info = kind.load("hidden_info")
    assert isinstance(info, HiddenInfo)
    hidden_seen = 0
    for game, s in _states(rules, 25, 3):
        acts = s.deal_actions[-1]
        for me in range(3):
            blank = [(seat, info.hidden_choice(a, s.st, me, 0)[0]
                      if seat != me and info.hidden(a) else a) for seat, a in acts]
            filled = info.fill_hidden(blank, s.st, me)
            real = [a for _, a in acts]
            discard = [seat != me and info.hidden(a) and info.hidden_choice(a, s.st, me, 0)[2]
                       for seat, a in acts]
            assert [f for f, d in zip(filled, discard) if not d] == [
                a for a, d in zip(real, discard) if not d]
            assert sorted(f for f, d in zip(filled, discard) if d) == sorted(
                a for a, d in zip(real, discard) if d)
            seen = s.information_state_string(me).split(": ", 1)[1].split(" / ")[0]
            tokens = seen.split()
            assert len(tokens) == len(acts)
            for (seat, a), tok in zip(acts, tokens):
                masked = seat != me and info.hidden(a)
                assert tok.endswith(":?") == masked, (tok, kind.labels[a])
                hidden_seen += masked
        # the first cards forehand saw are a block of the tensor only where there are some
        extra = CUT_SLOTS + (32 if info.first_seen else 0)
        assert info_block(game.ctx.rules) == kind.obs_size + extra
    assert hidden_seen > 0
    assert O.OpenSpielRobot.games == tuple(CORE_GAMES)


@pytest.mark.parametrize("opts", [{}, {"open_contracts": True}])
def test_a_discard_is_known_only_to_the_seat_that_took_its_talon(opts):
    """Volený's ``hidden_choice``: another seat's discard is known to ``me`` exactly when
    ``me`` took the talon it went to (RULES.md §4).  It asked whether ``me`` took the
    card, and a card can be discarded twice (forehand lays it, the seat that takes the
    talon lays it again, a third seat takes that one): the OpenSpiel resampler then kept
    forehand's real discard, which that seat never saw."""
    from mariash_env import Game, make_rules
    from mariash_env.core import state as S
    from mariash_env.games.voleny import actions as A

    info = game_kind("voleny").load("hidden_info")
    rng = np.random.default_rng(0)
    twice = 0
    for _ in range(400):
        g = Game(make_rules(deals=1, **opts))
        g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(3)))
        taken_by: dict[int, int] = {}  # a discard's position -> the seat taking its talon
        lying: list[int] = []
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            took = [S.getm(g.st, S.TOOK + s) for s in range(3)]
            a = int(rng.choice(g.legal_actions()))
            g.step(a)
            if A.DISCARD0 <= a < A.DISCARD0 + 32:
                lying.append(len(g.history) - 1)
            for s in range(3):
                if S.getm(g.st, S.TOOK + s) != took[s]:
                    taken_by.update((j, s) for j in lying)
                    lying = []
        discards = [(i, seat, a) for i, (seat, a) in enumerate(g.history)
                    if A.DISCARD0 <= a < A.DISCARD0 + 32]
        twice += len({a for _, _, a in discards}) < len(discards)
        for n, (i, seat, a) in enumerate(discards):
            for me in set(range(3)) - {seat}:
                lo, known, discard = info.hidden_choice(a, g.st, me, n)
                assert (lo, discard) == (A.DISCARD0, True)
                assert known == (taken_by.get(i) == me), (g.history, i, me)
    assert twice >= 5
