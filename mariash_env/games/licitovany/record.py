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
# The games' tables as Python ints: indexing the numpy arrays costs a scalar each time.
_COMPONENTS: tuple[int, ...] = tuple(COMPONENTS.tolist())
_HEARTS: tuple[int, ...] = tuple(HEARTS.tolist())


def level_name(level: int) -> str:
    """flek, re, tutti, boty, kalhoty (LICITOVANY.md §6), then flek×n."""
    return LEVEL_NAMES[level] if level < len(LEVEL_NAMES) else f"flek×{level}"


def settlement(game: Any) -> dict[str, Any]:
    """The kind's ``settlement``: that of the finished deal of ``game`` (a
    :class:`~mariash_env.game.Game`), :func:`licit_settlement` of its record."""
    return licit_settlement(game.st)


def licit_settlement(st: np.ndarray) -> dict[str, Any]:
    """The settlement of the finished licitovaný deal in ``st`` (amounts in desetníky)."""
    # Every slot read by st.item (a Python int), as volený's reader does: numpy scalar
    # indexing and read64's array operations cost more than the rest of a deal's end.
    get = st.item
    actor = get(S.ACTOR)
    g = get(S.LIC_GAME)
    high = get(S.LIC_HIGH)
    end = S.END_NAMES[get(S.END)]
    pay = [S.item64(st, S.PAY + 2 * s) for s in range(3)]
    lines = [S.item64(st, S.AMT + 2 * k) for k in range(5)]
    out: dict[str, Any] = {
        "game": GAME_IDS[g - 1] if g else None,
        "bid": GAME_IDS[high - 1] if high else None,
        "actor": actor,
        "end": end,
        "payments": pay,
        "amount": pay[actor] // 2 if actor >= 0 else 0,
    }
    if g and get(S.TRUMP_PUBLIC):
        out["trump"] = SUITS[get(S.TRUMP_CARD) >> 3]
    helping = get(S.LIC_HELP)
    if helping >= 0:
        out["helping"] = SUITS[helping]
    lead = get(S.LIC_LEAD)
    if lead >= 0:
        out["lead"] = CARD_CODES[lead]
    comps = []
    played = end in ("played", "decided_early")
    if g and (played or end == "bare_game_flek"):
        flags = _COMPONENTS[g]
        for k, name in enumerate(S.COMPONENT_NAMES):
            if not (flags >> k) & 1:
                continue
            lvl = get(S.BET_LEVEL + k)
            item: dict[str, Any] = {
                "component": name, "level": lvl, "level_name": level_name(lvl),
                "won": bool(get(S.WON + k)), "worth": get(S.WORTH + k),
                "amount": lines[k],
            }
            if k == S.K_GAME:
                silent = get(S.SILENT100)
                if silent:
                    item["silent_hundred"] = "actor" if silent == 1 else "defence"
            comps.append(item)
        worth = get(S.WORTH + 4)
        if worth:
            seat = get(S.SEVEN_SEAT)
            comps.append({"component": "silent_seven", "level": 0, "level_name": "",
                          "won": bool(get(S.WON + 4)), "worth": worth,
                          "amount": lines[4], "seat": seat,
                          "owner": "actor" if seat == actor else "defence"})
    out["components"] = comps
    if played:
        out["points"] = {
            "actor_cards": get(S.SIDE_PTS), "defence_cards": get(S.SIDE_PTS + 1),
            "actor_marriages": get(S.SIDE_MARR),
            "defence_marriages": get(S.SIDE_MARR + 1),
            "actor_first_marriage": get(S.SIDE_FIRST),
        }
    net = sum(lines) if comps or end == "bare_game_flek" else out["amount"]
    out["net"] = net
    out["capped"] = out["amount"] != net
    payer = get(S.LIC_LAID_PAYER)
    out["laid"] = bool(get(S.LIC_LAID))
    if out["amount"] > 0 and out["laid"] and payer >= 0 and pay[payer] == -pay[actor]:
        out["laid_transfer"] = {"payer": payer, "amount": -pay[payer]}
    out["lepsi"] = bool(g and _HEARTS[g])
    return out
