"""The settlement readers (volený's and licitovaný's ``record.settlement``) read the state
slot by slot with ``st.item``: every value they give is a plain Python int, bool, str or
None (never a numpy scalar, which ``json`` refuses and ``type`` tells apart), and their
amounts are the state's exact int64 amounts as numpy reads them."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from mariash_env.core import state as S
from mariash_env.game import Game
from tests.helpers import step_cap


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, dict):
        assert all(type(k) is str for k in x)
        return [v for item in x.values() for v in _leaves(item)]
    if isinstance(x, list):
        return [v for item in x for v in _leaves(item)]
    return [x]


@pytest.mark.parametrize("rules", [
    {},
    {"open_contracts": True, "payment_cap": 30, "max_flek": None},
    {"rules": "licitovany"},
    {"rules": "licitovany", "max_flek": None, "payment_cap": None},
    {"rules": "licitovany", "max_flek": 2, "payment_cap": 40, "marriage_order": "queen_first"},
])
def test_settlement_values_are_plain_python(rules):
    g = Game(deals=1, **rules)
    rng = random.Random(3)
    licit = rules.get("rules") == "licitovany"
    for k in range(150):
        g.new_partie(seed=k)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            g.step(rng.choice(g.legal_actions()))
        s = g.settlement()
        assert {type(v) for v in _leaves(s)} <= {int, bool, str, type(None)}, s
        assert json.loads(json.dumps(s)) == s
        assert s["payments"] == S.read64(g.st, S.PAY, 3).tolist()
        amounts = S.read64(g.st, S.AMT, 5).tolist()
        if licit:  # each component's line (the silent seven's is line 4)
            for c in s["components"]:
                line = 4 if c["component"] == "silent_seven" else \
                    S.COMPONENT_NAMES.index(c["component"])
                assert c["amount"] == amounts[line]
        else:
            for b in s["bets"]:
                assert b["amount"] == amounts[S.LINE_NAMES.index(b["bet"])]
