"""Licitovaný mariáš at the table as text (:mod:`mariash_env.render`): the auction so far,
the game, its trumps and helping suit, and the components with their flek levels
(LICITOVANY.md)."""

from __future__ import annotations

from typing import Any

from ...cards import SUIT_NAMES_CZ
from ...core import state as S
from ..base import TableText
from .games import COMPONENTS, GAME_NAMES_CZ
from .record import level_name


def contract_lines(game: Any) -> list[str]:
    """The auction, the standing bid or the game with its trumps, helping suit, actor and
    components (each with its flek level)."""
    st = game.st
    out = []
    names = {a: game.kind.labels[a] for _, a in game.history}
    auction = [f"player_{s} {names[a]}" for s, a in game.history
               if names[a].startswith(("bid:", "pass")) or names[a] == "hold"]
    if auction:
        out.append("auction: " + ", ".join(auction))
    high = int(st[S.LIC_HIGH])
    if high and not st[S.LIC_GAME]:
        out.append(f"standing bid: {GAME_NAMES_CZ[high - 1]} (player_{int(st[S.LIC_HIGH_SEAT])})")
    g = int(st[S.LIC_GAME])
    if g:
        desc = GAME_NAMES_CZ[g - 1]
        if st[S.TRUMP_PUBLIC]:
            desc += f", trumps {SUIT_NAMES_CZ[int(st[S.TRUMP_CARD]) >> 3]}"
        if st[S.LIC_HELP] >= 0:
            desc += f", helping {SUIT_NAMES_CZ[int(st[S.LIC_HELP])]}"
        out.append(f"game: {desc}; actor player_{int(st[S.ACTOR])}")
        comps = []
        for k, name in enumerate(S.COMPONENT_NAMES):
            if (int(COMPONENTS[g]) >> k) & 1:
                lvl = int(st[S.BET_LEVEL + k])
                comps.append(name + (f" {level_name(lvl)}" if lvl else ""))
        out.append("components: " + ", ".join(comps))
    return out


TEXT = TableText(roles=("forhond", "zadák", "dealer"), contract=contract_lines,
                 settled=("components", "component"), show_end=True)
"""The kind's ``render``: LICITOVANY.md's names of the seats; a deal that folded names
its end, having no component settled."""
