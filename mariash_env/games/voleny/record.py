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
    # Every slot read by st.item (a Python int): numpy scalar indexing and compiled calls
    # cost more than the rest of a deal's end (this runs once a deal).
    st = game.st
    get = st.item
    con = get(S.CONTRACT)
    actor = get(S.ACTOR)
    pl = game.player if game.four else int
    cname = S.contract_name(st)
    out: dict[str, Any] = {
        "contract": cname,
        "actor": pl(actor),
        "end": S.END_NAMES[get(S.END)],
        "payments": [S.item64(st, S.PAY + 2 * s) for s in range(3)],
        "amount": S.item64(st, S.PAY + 2 * actor) // 2,
    }
    if game.four:  # §11.3: the dealer sits out and pays with the defence
        out["payments"] = [int(payment4(st, p)) for p in range(4)]
        out["sitting_out"] = game.dealer
    bets = []
    if con == S.C_SUIT:
        announce = get(S.ANNOUNCE)
        out["trump"] = SUITS[get(S.TRUMP_CARD) >> 3]
        out["announcement"] = S.ANNOUNCE_NAMES[announce]
        kind = "sto" if announce in (S.AN_STO, S.AN_STO_SEDMA) else "hra"
        out["points"] = {
            "actor_cards": get(S.SIDE_PTS), "defence_cards": get(S.SIDE_PTS + 1),
            "actor_marriages": get(S.SIDE_MARR),
            "defence_marriages": get(S.SIDE_MARR + 1),
        }
    else:
        kind = cname
    for line, name in enumerate(S.LINE_NAMES):
        if line < 4 and not get(S.BET_EXISTS + line):
            continue
        worth = get(S.WORTH + line)
        if line == S.L_SILENT_SEVEN and worth == 0:
            continue
        item: dict[str, Any] = {
            "bet": name,
            "won": bool(get(S.WON + line)),
            "worth": worth,
            "amount": S.item64(st, S.AMT + 2 * line),
        }
        if line < 4:
            lvl = get(S.BET_LEVEL + line)
            item["level"] = lvl
            item["level_name"] = level_name(lvl)
            item["owner"] = "actor" if line < 2 else "defence"
            if line >= 2:
                item["seat"] = pl(get(S.BET_SEAT + line))
        else:
            seven_seat = get(S.SEVEN_SEAT)
            item["seat"] = pl(seven_seat)
            item["owner"] = "actor" if seven_seat == actor else "defence"
        if line == S.L_GAME:
            item["kind"] = kind
            silent = get(S.SILENT100)
            if silent:
                item["silent_hundred"] = "actor" if silent == 1 else "defence"
        bets.append(item)
    out["bets"] = bets
    return out
