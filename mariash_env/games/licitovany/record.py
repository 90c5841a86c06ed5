"""The settlement of a finished licitovaný deal as a JSON-able dict (LICITOVANY.md §9,
§12): every component with its level, outcome and amount, the cap and any laid-game
transfer, read out of the core's state record (the core decides; this only reads)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import CARD_CODES, SUITS
from ...core import state as S
from .games import COMPONENTS, GAME_IDS, HEARTS

LEVEL_NAMES = ("", "flek", "re", "tutti", "boty", "kalhoty")


def level_name(level: int) -> str:
    """flek, re, tutti, boty, kalhoty (LICITOVANY.md §6), then flek×n."""
    return LEVEL_NAMES[level] if level < len(LEVEL_NAMES) else f"flek×{level}"


def settlement(game: Any) -> dict[str, Any]:
    """The kind's ``settlement``: that of the finished deal of ``game`` (a
    :class:`~mariash_env.game.Game`), :func:`licit_settlement` of its record."""
    return licit_settlement(game.st)


def licit_settlement(st: np.ndarray) -> dict[str, Any]:
    """The settlement of the finished licitovaný deal in ``st`` (amounts in desetníky)."""
    actor = int(st[S.ACTOR])
    g = int(st[S.LIC_GAME])
    high = int(st[S.LIC_HIGH])
    end = S.END_NAMES[int(st[S.END])]
    pay = [int(x) for x in S.read64(st, S.PAY, 3)]
    lines = [int(x) for x in S.read64(st, S.AMT, 5)]
    out: dict[str, Any] = {
        "game": GAME_IDS[g - 1] if g else None,
        "bid": GAME_IDS[high - 1] if high else None,
        "actor": actor,
        "end": end,
        "payments": pay,
        "amount": pay[actor] // 2 if actor >= 0 else 0,
    }
    if g and st[S.TRUMP_PUBLIC]:
        out["trump"] = SUITS[int(st[S.TRUMP_CARD]) >> 3]
    if st[S.LIC_HELP] >= 0:
        out["helping"] = SUITS[int(st[S.LIC_HELP])]
    if st[S.LIC_LEAD] >= 0:
        out["lead"] = CARD_CODES[int(st[S.LIC_LEAD])]
    comps = []
    played = end in ("played", "decided_early")
    if g and (played or end == "bare_game_flek"):
        for k, name in enumerate(S.COMPONENT_NAMES):
            if not (int(COMPONENTS[g]) >> k) & 1:
                continue
            lvl = int(st[S.BET_LEVEL + k])
            item: dict[str, Any] = {
                "component": name, "level": lvl, "level_name": level_name(lvl),
                "won": bool(st[S.WON + k]), "worth": int(st[S.WORTH + k]),
                "amount": lines[k],
            }
            if k == S.K_GAME and st[S.SILENT100]:
                item["silent_hundred"] = "actor" if st[S.SILENT100] == 1 else "defence"
            comps.append(item)
        if st[S.WORTH + 4]:
            seat = int(st[S.SEVEN_SEAT])
            comps.append({"component": "silent_seven", "level": 0, "level_name": "",
                          "won": bool(st[S.WON + 4]), "worth": int(st[S.WORTH + 4]),
                          "amount": lines[4], "seat": seat,
                          "owner": "actor" if seat == actor else "defence"})
    out["components"] = comps
    if played:
        out["points"] = {
            "actor_cards": int(st[S.SIDE_PTS]), "defence_cards": int(st[S.SIDE_PTS + 1]),
            "actor_marriages": int(st[S.SIDE_MARR]),
            "defence_marriages": int(st[S.SIDE_MARR + 1]),
            "actor_first_marriage": int(st[S.SIDE_FIRST]),
        }
    net = sum(lines) if comps or end == "bare_game_flek" else out["amount"]
    out["net"] = net
    out["capped"] = out["amount"] != net
    payer = int(st[S.LIC_LAID_PAYER])
    out["laid"] = bool(st[S.LIC_LAID])
    if out["amount"] > 0 and out["laid"] and payer >= 0 and pay[payer] == -pay[actor]:
        out["laid_transfer"] = {"payer": payer, "amount": -pay[payer]}
    out["lepsi"] = bool(g and HEARTS[g])
    return out
