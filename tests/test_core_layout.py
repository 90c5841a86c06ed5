"""The core's declared structure (issue #11): one function per phase citing RULES.md,
the state record and the observation declared once (offsets, validator, debug dump and
documentation tables in docs/layouts.md derived from the declarations)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mariash_env import actions as A
from mariash_env import cards
from mariash_env.core import engine as E
from mariash_env.core import licit as LI
from mariash_env.core import licit_observe as LO
from mariash_env.core import observe as O
from mariash_env.core import observe4 as Q
from mariash_env.core import state as S
from mariash_env.core.validate import FIELDS
from mariash_env.game import Game
from mariash_env.games.voleny import phases as VP
from scripts import layout_tables as T

ROOT = Path(__file__).resolve().parents[1]
LAYOUTS = (ROOT / "docs" / "layouts.md").read_text(encoding="utf-8")


VOLENY_PHASES = S.PHASE_NAMES[:S.PH_DONE]
# Licitovaný's phases and their functions (A1 and A3 share the bid's legality).
LICIT_PHASES = {"bid": ("bid", "bid"), "hold": ("hold", "hold"), "lone_bid": ("bid", "lone"),
                "game": ("game", "game"), "trumps": ("trumps", "trumps"),
                "helping": ("helping", "helping"), "discard": ("discard", "discard"),
                "lead": ("lead", "lead"), "flek": ("flek", "flek"), "play": ("play", "play")}


@pytest.mark.parametrize("phase", VOLENY_PHASES)
def test_each_phase_has_its_functions_citing_rules(phase):
    """Every volený phase but done has ``_legal_<phase>`` and ``_apply_<phase>``, each
    citing its RULES.md section (§3–§8)."""
    for kind in ("legal", "apply"):
        fn = getattr(VP, f"_{kind}_{phase}")
        assert re.search(r"§[3-8]", fn.py_func.__doc__ or ""), f"_{kind}_{phase}"


@pytest.mark.parametrize("phase", sorted(LICIT_PHASES))
def test_each_licit_phase_has_its_functions_citing_rules(phase):
    """Every licitovaný phase has its ``_legal_*`` and ``_apply_*`` in core/licit.py,
    each citing its LICITOVANY.md section (§4–§7)."""
    assert phase in S.PHASE_NAMES
    for kind, name in zip(("legal", "apply"), LICIT_PHASES[phase]):
        fn = getattr(LI, f"_{kind}_{name}")
        assert re.search(r"§[4-7]", fn.py_func.__doc__ or ""), f"_{kind}_{name}"


def test_dispatch_reaches_every_phase_function():
    """legal_actions and apply_action dispatch to each game's phase machine, and volený's
    legal_voleny and apply_voleny (licitovaný's legal_licit and apply_licit) name every
    phase function (nothing inlined by hand)."""
    for name in ("legal", "apply"):
        entry = getattr(E, f"{name}_actions" if name == "legal" else "apply_action")
        assert {f"{name}_voleny", f"{name}_licit"} <= set(entry.py_func.__code__.co_names)
        names = getattr(VP, f"{name}_voleny")
        called = set(names.py_func.__code__.co_names)
        want = {f"_{name}_{p}" for p in VOLENY_PHASES}
        assert want <= called, want - called
        fn = LI.legal_licit if name == "legal" else LI.apply_licit
        called = set(fn.py_func.__code__.co_names)
        want = {f"_{name}_{v[0 if name == 'legal' else 1]}" for v in LICIT_PHASES.values()}
        assert want <= called, want - called


def test_engine_exports_only_its_own_names():
    """The odd __all__ re-exports are gone; the names live where they belong."""
    assert not hasattr(E, "__all__")
    assert A.N_ACTIONS == 115 and S.C_NONE == 0 and S.PH_DONE == 8


def test_state_schema_gives_the_offsets():
    off = 0
    for f in S.STATE_SCHEMA:
        assert getattr(S, f.name) == off == S.OFFSETS[f.name], f.name
        if f.kind == "i64":
            assert f.slots % 2 == 0 and off % 2 == 0, f.name
        off += f.slots
    assert off == S.STATE_SIZE
    # what the compiled code indexes with is range-checked on restore
    for f in S.STATE_SCHEMA:
        if f.kind == "card" or f.names is not None:
            assert f.range is not None, f.name
    assert {n for n, *_ in FIELDS} == {f.name.lower() for f in S.STATE_SCHEMA if f.range}


def test_state_constants_are_checked_against_the_schema(monkeypatch):
    monkeypatch.setattr(S, "HAND", S.HAND + 1)
    with pytest.raises(ImportError, match="HAND = 48, schema 47"):
        S._check_constants()


@pytest.mark.parametrize("mod,prefix,sizes,block", [
    (O, "O_", ("OBS_SIZE", "STATE_OBS_SIZE"), "O_PHASE"),
    (LO, "LO_", ("LOBS_SIZE", "LSTATE_OBS_SIZE"), "LO_HIGH")])
def test_observation_constants_are_checked_against_the_layout(mod, prefix, sizes, block):
    """Both games' offset constants and sizes are checked against their layouts."""
    layout = O.OBS_LAYOUT if mod is O else LO.LOBS_LAYOUT
    ns = dict(vars(mod))
    O.check_layout(layout, prefix, "m", sizes, ns)  # as imported: consistent
    with pytest.raises(ImportError, match=block):
        O.check_layout(layout, prefix, "m", sizes, {**ns, block: ns[block] + 1})
    with pytest.raises(ImportError, match=sizes[0]):
        O.check_layout(layout, prefix, "m", sizes, {**ns, sizes[0]: ns[sizes[0]] - 1})


def test_observation_layout_is_contiguous():
    off = 0
    for name, o, size, _ in O.OBS_LAYOUT:
        assert o == off and getattr(O, "O_" + name.upper()) == o
        off += size
    assert off == O.STATE_OBS_SIZE and O.OBS_LAYOUT[-4][1] == O.OBS_SIZE


@pytest.mark.parametrize("section,make", [("## Observation layout", O.layout_table),
                                          ("## Four-player observation layout",
                                           Q.layout_table),
                                          ("## State record", S.layout_table),
                                          ("## Licitovaný observation layout",
                                           LO.layout_table)])
def test_docs_tables_match_the_layouts(section, make):
    """The docs/layouts.md tables are the declared layouts (python scripts/layout_tables.py)."""
    part = LAYOUTS[LAYOUTS.index(section + "\n"):]
    table = "\n".join(ln for ln in part.split("\n## ")[0].splitlines() if ln.startswith("|"))
    assert table == T.page_table(make()), (
        f"docs/layouts.md {section!r} is stale: run scripts/layout_tables.py")


def test_docs_action_tables_match_the_action_labels():
    """The action tables of docs/layouts.md cover every label of both games in index
    order, and the page is what scripts/layout_tables.py writes (its --check passes)."""
    from mariash_env import licit_actions as LA

    for section, labels in (("## Volený action table", A.ACTION_LABELS),
                            ("## Licitovaný action table", LA.ACTION_LABELS)):
        part = LAYOUTS[LAYOUTS.index(section + "\n"):].split("\n## ")[0]
        rows = [ln for ln in part.splitlines() if ln.startswith("|")][2:]
        covered = 0
        for row in rows:
            span, names, count = (c.strip() for c in row.strip("|").split("|"))
            lo, _, hi = span.partition("–")
            first, _, last = names.partition(" … ")
            assert int(lo) == covered and int(count) == int(hi or lo) - int(lo) + 1
            assert first.strip("`") == labels[int(lo)]
            assert (last or first).strip("`") == labels[int(hi or lo)]
            covered += int(count)
        assert covered == len(labels), section
    assert T.updated(LAYOUTS) == LAYOUTS, "docs/layouts.md is stale: run scripts/layout_tables.py"
    assert T.main(["--check"]) == 0


@pytest.mark.parametrize("rules", ["voleny", "licitovany"])
def test_side_points_are_the_card_points_as_described(rules):
    """SIDE_PTS holds each side's card points, marriages apart (SIDE_MARR): what the
    record calls actor_cards and defence_cards.  Its description said "points with
    marriages counted"."""
    from mariash_env.rules import make_rules
    from tests.helpers import step_cap

    field = next(f for f in S.STATE_SCHEMA if f.name == "SIDE_PTS")
    assert "card points" in field.meaning and "marriages counted" not in field.meaning
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(6):
        g = Game(make_rules(rules=rules))
        g.new_partie(seed=seed)
        tick = step_cap(g)
        while not g.deal_over:  # random suit games, played out (no betl, durch or concede)
            tick()
            legal = g.legal_actions()
            suit = [a for a in legal if not any(
                w in g.kind.action_label(a) for w in ("betl", "durch", "bad", "concede"))]
            g.step(int(rng.choice(suit or legal)))
        points = g.records[-1]["settlement"].get("points")
        if not points or not points["actor_cards"] + points["defence_cards"]:
            continue  # no points counted: a betl or durch, a deal not played
        actor = int(g.st[S.ACTOR])
        cards_taken = [int(g.st[S.PTS + s]) for s in range(3)]
        side = [cards_taken[actor], sum(cards_taken) - cards_taken[actor]]
        assert g.st[S.SIDE_PTS:S.SIDE_PTS + 2].tolist() == side == \
            [points["actor_cards"], points["defence_cards"]]
        assert g.st[S.SIDE_MARR:S.SIDE_MARR + 2].tolist() == \
            [points["actor_marriages"], points["defence_marriages"]]
        seen += sum(side) == 90  # every card point taken: a deal played out
    assert seen


def test_describe_names_every_field():
    g = Game()
    g.new_partie(seed=3)
    for _ in range(4):
        g.step(g.legal_actions()[-1])
    st = g.st.copy()
    d = S.describe(st)
    assert list(d) == [f.name.lower() for f in S.STATE_SCHEMA]
    for s in range(3):
        assert d["hand"][s] == cards.codes_of(S.getm(st, S.HAND + s))
    assert d["phase"] == S.PHASE_NAMES[st[S.PHASE]]
    assert d["contract"] == S.CONTRACT_NAMES[st[S.CONTRACT]]
    assert d["trump_card"] == cards.CARD_CODES[st[S.TRUMP_CARD]]
    assert d["pos"] == st[S.POS:S.POS + 32].tolist()
    assert d["to_move"] == g.to_move and len(d["tricks"]) == 30
    S.set64(st, S.PAY + 2, -(2**40) - 7)
    S.set64(st, S.SCORE + 4, 2**35)
    d = S.describe(st)
    assert d["pay"] == [0, -(2**40) - 7, 0] and d["score"] == [0, 0, 2**35]
    st[S.TRUMP_CARD] = -1
    assert S.describe(st)["trump_card"] is None


def test_describe_rejects_what_is_not_a_record():
    with pytest.raises(ValueError, match=f"int32\\[{S.STATE_SIZE}\\]"):
        S.describe(np.zeros(S.STATE_SIZE - 1, np.int32))
    with pytest.raises(ValueError, match=f"int32\\[{S.STATE_SIZE}\\]"):
        S.describe(np.zeros(S.STATE_SIZE, np.int64))
