"""Volený mariáš at the table as text (:mod:`mariash_env.render`): the contract, its
trumps and announcement, and the bets with their flek levels (RULES.md §5, §8)."""

from __future__ import annotations

from typing import Any

from ...cards import SUIT_NAMES_CZ, pretty
from ...core import state as S
from ..base import TableText

ROLE = {0: "forhont", 1: "middlehand", 2: "dealer"}
BET_LABELS = ("hra", "sedma", "sedma proti", "sto proti")
LEVELS = ("", " flek", " re", " tutti", " boty")


def contract_lines(game: Any) -> list[str]:
    """The contract (with its trumps, shown or from the people, and announcement) and the
    bets standing, each with its flek level."""
    st = game.st
    pl = game.player
    out = []
    con = int(st[S.CONTRACT])
    if con:
        desc = S.contract_name(st).replace("_", " ")
        if con == S.C_SUIT and st[S.TRUMP_PUBLIC]:
            desc += f", trumps {SUIT_NAMES_CZ[int(st[S.TRUMP_CARD]) >> 3]}"
            desc += f" ({pretty(int(st[S.TRUMP_CARD]))}{' z lidu' if st[S.BLIND] else ''})"
        if st[S.ANNOUNCE]:
            desc += f", {S.ANNOUNCE_NAMES[int(st[S.ANNOUNCE])].replace('_', ' a ')}"
        out.append(f"contract: {desc}; actor player_{pl(int(st[S.ACTOR]))}")
    bets = []
    for b in range(4):
        if st[S.BET_EXISTS + b]:
            lvl = int(st[S.BET_LEVEL + b])
            name = S.contract_name(st).replace("_", " ") if con != S.C_SUIT and b == 0 \
                else BET_LABELS[b]
            bets.append(name + (LEVELS[lvl] if lvl < len(LEVELS) else f" flek×{lvl}"))
    if bets:
        out.append("bets: " + ", ".join(bets))
    return out


TEXT = TableText(roles=tuple(ROLE.values()), contract=contract_lines, settled=("bets", "bet"))
"""The kind's ``render``."""
