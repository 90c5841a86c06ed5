"""The settlement of a finished volený deal as a JSON-able dict (RULES.md §5.2, §9, §11.3):
the contract, every bet line with its level, outcome and amount, and the payments per
player (at four the dealer sitting out pays or collects with the defence), read out of
the core's state record (the core decides; this only reads)."""

from __future__ import annotations

from typing import Any

from ...cards import SUITS
from ...core import state as S
from .four import payment4

LEVEL_NAMES = ("", "flek", "re", "tutti", "boty")
"""The name of each doubling level of a bet (level 0: none; :func:`level_name`)."""


def level_name(level: int) -> str:
    """flek, re, tutti, boty (RULES.md §5.2), then flek×n."""
    return LEVEL_NAMES[level] if level < len(LEVEL_NAMES) else f"flek×{level}"


def settlement(game: Any) -> dict[str, Any]:
    """The settlement of the finished deal of ``game`` (a :class:`~mariash_env.game.Game`
    of volený: its seats mapped to players) in groše."""
    st = game.st
    con = int(st[S.CONTRACT])
    actor = int(st[S.ACTOR])
    pl = game.player
    out: dict[str, Any] = {
        "contract": S.contract_name(st),
        "actor": pl(actor),
        "end": S.END_NAMES[int(st[S.END])],
        "payments": [int(x) for x in S.read64(st, S.PAY, 3)],
        "amount": int(S.get64(st, S.PAY + 2 * actor)) // 2,
    }
    if game.four:  # §11.3: the dealer sits out and pays with the defence
        out["payments"] = [int(payment4(st, p)) for p in range(4)]
        out["sitting_out"] = game.dealer
    bets = []
    if con == S.C_SUIT:
        out["trump"] = SUITS[int(st[S.TRUMP_CARD]) >> 3]
        out["announcement"] = S.ANNOUNCE_NAMES[int(st[S.ANNOUNCE])]
        kind = "sto" if st[S.ANNOUNCE] in (S.AN_STO, S.AN_STO_SEDMA) else "hra"
        out["points"] = {
            "actor_cards": int(st[S.SIDE_PTS]), "defence_cards": int(st[S.SIDE_PTS + 1]),
            "actor_marriages": int(st[S.SIDE_MARR]),
            "defence_marriages": int(st[S.SIDE_MARR + 1]),
        }
    else:
        kind = S.contract_name(st)
    for line, name in enumerate(S.LINE_NAMES):
        if line < 4 and not st[S.BET_EXISTS + line]:
            continue
        if line == S.L_SILENT_SEVEN and st[S.WORTH + line] == 0:
            continue
        item: dict[str, Any] = {
            "bet": name,
            "won": bool(st[S.WON + line]),
            "worth": int(st[S.WORTH + line]),
            "amount": int(S.get64(st, S.AMT + 2 * line)),
        }
        if line < 4:
            lvl = int(st[S.BET_LEVEL + line])
            item["level"] = lvl
            item["level_name"] = level_name(lvl)
            item["owner"] = "actor" if line < 2 else "defence"
            if line >= 2:
                item["seat"] = pl(int(st[S.BET_SEAT + line]))
        else:
            item["seat"] = pl(int(st[S.SEVEN_SEAT]))
            item["owner"] = "actor" if st[S.SEVEN_SEAT] == actor else "defence"
        if line == S.L_GAME:
            item["kind"] = kind
            if st[S.SILENT100]:
                item["silent_hundred"] = "actor" if st[S.SILENT100] == 1 else "defence"
        bets.append(item)
    out["bets"] = bets
    return out
