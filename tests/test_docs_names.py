"""The names environments are registered under (PettingZoo's per game, Gymnasium's ids,
OpenSpiel's game) are the rows of docs/environment.md's "Registered names" table: a game
or a registration added without a row there fails, and so does a row no registry holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "environment.md"


def documented_names(page: Path = PAGE) -> list[str]:
    """The first column's names of the page's "Registered names" table."""
    text = page.read_text(encoding="utf-8")
    section = text.split("\n## Registered names\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [re.match(r"\| `([^`]+)` \|", row).group(1) for row in rows]


def registered_names() -> set[str]:
    """Every name of the registries: each game's PettingZoo name, Gymnasium's mariash ids
    and, where pyspiel is installed, the OpenSpiel game's."""
    import gymnasium

    import mariash_env  # noqa: F401 - registers the Gymnasium ids
    from mariash_env.games.registry import games

    names = {k.env_name for k in games() if k.env_name}
    names |= {i for i in gymnasium.registry if i.split("/")[0].lower().startswith("mariash")}
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return names
    from mariash_env.openspiel.game import GAME_TYPE

    return names | {GAME_TYPE.short_name}


def test_every_registered_name_is_documented_and_every_documented_one_registered():
    """``gymnasium.make_vec("mariash/SelfPlay-v0")`` and the per-game PettingZoo names
    (``GameKind.env_name``) were named in passing on two pages, with no table a new id
    or name would be missing from and no test."""
    rows = documented_names()
    assert len(rows) == len(set(rows)), rows
    registered = registered_names()
    pyspiel_missing = "mariash" not in registered
    assert sorted(registered - set(rows)) == [], "registered but not documented"
    assert sorted(set(rows) - registered - ({"mariash"} if pyspiel_missing else set())) \
        == [], "documented but not registered"
    assert {"mariash_v0", "mariash_licitovany_v0", "mariash_lizany_v0",
            "mariash/SingleAgent-v0", "mariash/SelfPlay-v0"} <= set(rows)


def test_a_new_name_without_a_row_fails(monkeypatch):
    """The check sees a registration the page does not list (a new Gymnasium id)."""
    gymnasium = pytest.importorskip("gymnasium")

    monkeypatch.setitem(gymnasium.registry, "mariash/New-v0",
                        gymnasium.registry["mariash/SelfPlay-v0"])
    assert "mariash/New-v0" in registered_names() - set(documented_names())
