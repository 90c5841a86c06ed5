"""The settlement of a finished volený deal as a JSON-able dict (RULES.md §5.2, §9, §11.3):
the contract, every bet line with its level, outcome and amount, and the payments per
player (at four the dealer sitting out pays or collects with the defence), read out of
the core's state record (the core decides; this only reads)."""

from __future__ import annotations

from typing import Any

from ...cards import SUITS
from ...core import state as S

LEVEL_NAMES = ("", "flek", "re", "tutti", "boty")
"""The name of each doubling level of a bet (level 0: none; :func:`level_name`)."""


def level_name(level: int) -> str:
    """flek, re, tutti, boty (RULES.md §5.2), then flek×n."""
    return LEVEL_NAMES[level] if level < len(LEVEL_NAMES) else f"flek×{level}"


def settlement(game: Any) -> dict[str, Any]:
    """The settlement of the finished deal of ``game`` (a :class:`~mariash_env.game.Game`
    of volený: its seats mapped to players) in groše."""
    # Once a deal, on the AEC env's hot path: every slot read by st.item (a Python int;
    # numpy scalars and compiled calls cost more than the rest of a deal's end), the
    # 64-bit amounts as S.item64 reads them, the seats mapped as Game.player maps them.
    st = game.st
    get = st.item
    con = get(_CONTRACT)
    actor = get(_ACTOR)
    four = game.four
    pl: Any = int
    if four:
        first = get(_P4_DEALER) + 1  # the player in core seat 0 (four.player_of)

        def pl(c: int) -> int:  # Game.player (which checks c), without its compiled call
            return (first + c) % 4 if 0 <= c < 3 else game.player(c)

    if con == _C_BETL or con == _C_DURCH:  # S.contract_name: the no-trump rank's name
        cname = _NT_NAMES[con - _C_BETL + 2 * (get(_OVERCALLS) & 1)]
    else:
        cname = _CONTRACT_NAMES[con]
    pay = [(get(_PAY + 1) << 32) | (get(_PAY) & _LOW32),
           (get(_PAY + 3) << 32) | (get(_PAY + 2) & _LOW32),
           (get(_PAY + 5) << 32) | (get(_PAY + 4) & _LOW32)]
    out: dict[str, Any] = {
        "contract": cname,
        "actor": pl(actor),
        "end": _END_NAMES[get(_END)],
        "payments": pay,
        "amount": S.item64(st, _PAY + 2 * actor) // 2,
    }
    if four:  # §11.3: the dealer sits out and pays with the defence (four.payment4)
        a = S.item64(st, _PAY + 2 * actor) // 2 if actor >= 0 else 0  # four.dealer_pays
        out["payments"] = [-a if c == 3 else pay[c] + a if c == actor else pay[c]
                           for c in [(p - first) % 4 for p in range(4)]]
        out["sitting_out"] = get(_P4_DEALER)  # game.dealer
    bets = []
    if con == _C_SUIT:
        announce = get(_ANNOUNCE)
        out["trump"] = SUITS[get(_TRUMP_CARD) >> 3]
        out["announcement"] = _ANNOUNCE_NAMES[announce]
        kind = "sto" if announce == _AN_STO or announce == _AN_STO_SEDMA else "hra"
        out["points"] = {
            "actor_cards": get(_SIDE_PTS), "defence_cards": get(_SIDE_PTS + 1),
            "actor_marriages": get(_SIDE_MARR),
            "defence_marriages": get(_SIDE_MARR + 1),
        }
    else:
        kind = cname
    for line, name in enumerate(_LINE_NAMES):
        if line < 4 and not get(_BET_EXISTS + line):
            continue
        worth = get(_WORTH + line)
        if line == _L_SILENT_SEVEN and worth == 0:
            continue
        amt = _AMT + 2 * line
        item: dict[str, Any] = {
            "bet": name,
            "won": bool(get(_WON + line)),
            "worth": worth,
            "amount": (get(amt + 1) << 32) | (get(amt) & _LOW32),
        }
        if line < 4:
            lvl = get(_BET_LEVEL + line)
            item["level"] = lvl
            item["level_name"] = level_name(lvl)
            item["owner"] = "actor" if line < 2 else "defence"
            if line >= 2:
                item["seat"] = pl(get(_BET_SEAT + line))
        else:
            seven_seat = get(_SEVEN_SEAT)
            item["seat"] = pl(seven_seat)
            item["owner"] = "actor" if seven_seat == actor else "defence"
        if line == _L_GAME:
            item["kind"] = kind
            silent = get(_SILENT100)
            if silent:
                item["silent_hundred"] = "actor" if silent == 1 else "defence"
        bets.append(item)
    out["bets"] = bets
    return out


# The state's fields and names read by settlement(), as module constants.
_LOW32 = 0xFFFFFFFF
_CONTRACT, _ACTOR, _P4_DEALER, _OVERCALLS = S.CONTRACT, S.ACTOR, S.P4_DEALER, S.OVERCALLS
_C_SUIT, _C_BETL, _C_DURCH = S.C_SUIT, S.C_BETL, S.C_DURCH
_NT_NAMES, _CONTRACT_NAMES, _END_NAMES = S.NT_NAMES, S.CONTRACT_NAMES, S.END_NAMES
_PAY, _AMT, _END, _ANNOUNCE, _TRUMP_CARD = S.PAY, S.AMT, S.END, S.ANNOUNCE, S.TRUMP_CARD
_AN_STO, _AN_STO_SEDMA, _ANNOUNCE_NAMES = S.AN_STO, S.AN_STO_SEDMA, S.ANNOUNCE_NAMES
_SIDE_PTS, _SIDE_MARR, _LINE_NAMES = S.SIDE_PTS, S.SIDE_MARR, S.LINE_NAMES
_BET_EXISTS, _WORTH, _WON, _BET_LEVEL = S.BET_EXISTS, S.WORTH, S.WON, S.BET_LEVEL
_BET_SEAT, _SEVEN_SEAT, _SILENT100 = S.BET_SEAT, S.SEVEN_SEAT, S.SILENT100
_L_SILENT_SEVEN, _L_GAME = S.L_SILENT_SEVEN, S.L_GAME
