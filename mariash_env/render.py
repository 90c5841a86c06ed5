"""The table as a mariáš player reads it (``ansi``/``human`` render modes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import SUIT_NAMES_CZ, cards_of, pretty
from .core import state as S

if TYPE_CHECKING:
    from .game import Game

ROLE = {0: "forhont", 1: "middlehand", 2: "dealer"}
BET_LABELS = ("hra", "sedma", "sedma proti", "sto proti")
LEVELS = ("", " flek", " re", " tutti", " boty")


def _hand(m: int) -> str:
    # Group by suit, highest first in trump ranking order is overkill: show natural order.
    return " ".join(pretty(c) for c in sorted(cards_of(m), key=lambda c: (c >> 3, -(c & 7)))) or "—"


def _render_licit(game: Game) -> list[str]:
    """LICITOVANY.md: the auction so far, the game, its trumps and helping suit, and the
    components with their flek levels."""
    from .games.licitovany.games import COMPONENTS, GAME_NAMES_CZ
    from .games.licitovany.record import level_name

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


def render_table(game: Game) -> str:
    st = game.st
    licit = game.kind.name == "licitovany"
    unit = game.kind.units
    role_names = ("forhond", "zadák", "dealer") if licit else tuple(ROLE.values())
    f = int(st[S.FOREHAND])
    pl = game.player  # a core seat's player (at four, RULES.md §11.3, the dealer sits out)
    out_note = " (sits out)" if game.sitting_out is not None else ""
    lines = [
        f"deal {game.deal_no + 1}/{game.rules.deals}  dealer player_{game.dealer}{out_note}  "
        f"{'forhond' if licit else 'forhont'} player_{pl(f)}  phase {game.phase_name}"
    ]
    con = int(st[S.CONTRACT])
    if licit:
        lines += _render_licit(game)
    elif con:
        desc = S.contract_name(st).replace("_", " ")
        if con == S.C_SUIT and st[S.TRUMP_PUBLIC]:
            desc += f", trumps {SUIT_NAMES_CZ[int(st[S.TRUMP_CARD]) >> 3]}"
            desc += f" ({pretty(int(st[S.TRUMP_CARD]))}{' z lidu' if st[S.BLIND] else ''})"
        if st[S.ANNOUNCE]:
            desc += f", {S.ANNOUNCE_NAMES[int(st[S.ANNOUNCE])].replace('_', ' a ')}"
        lines.append(f"contract: {desc}; actor player_{pl(int(st[S.ACTOR]))}")
    bets = []
    for b in range(4):
        if st[S.BET_EXISTS + b] and not licit:
            lvl = int(st[S.BET_LEVEL + b])
            name = S.contract_name(st).replace("_", " ") if con != S.C_SUIT and b == 0 \
                else BET_LABELS[b]
            bets.append(name + (LEVELS[lvl] if lvl < len(LEVELS) else f" flek×{lvl}"))
    if bets:
        lines.append("bets: " + ", ".join(bets))
    scores = game.scores
    for player in range(game.players):
        seat = game.core_seat(player)
        score = f"{scores[player]:+5d} {unit}"
        if seat < 0:
            lines.append(f"  player_{player} ({'sits out':10s}) {score}")
            continue
        role = role_names[(seat - f) % 3]
        mark = "→" if player == game.to_move else " "
        pts = int(st[S.PTS + seat])
        marr = [SUIT_NAMES_CZ[s] for s in range(4) if st[S.MARR_SEAT + s] == seat]
        extra = f"  points {pts}" + (f"  hlášky: {', '.join(marr)}" if marr else "")
        lines.append(
            f"{mark} player_{player} ({role:10s}) {score}  [{_hand(game.hand(player))}]{extra}"
        )
    if st[S.PHASE] == S.PH_PLAY:
        t = int(st[S.TRICK_NO])
        n = int(st[S.TRICK_N])
        lead = int(st[S.LEADER])
        cards = [f"player_{pl((lead + j) % 3)}: {pretty(int(st[S.TRICKS + 3 * t + j]))}"
                 for j in range(n)]
        lines.append(f"trick {t + 1}: " + (", ".join(cards) if cards else "(lead)"))
    if st[S.SETTLED]:
        s = game.settlement()
        items = s["components"] if licit else s["bets"]
        key = "component" if licit else "bet"
        lines.append(
            "settled: " + ", ".join(
                f"{b[key]} {'won' if b['won'] else 'lost'} {b['amount']:+d}" for b in items
            ) + (f"; {s['end'].replace('_', ' ')}" if licit and not items else "")
            + f"; payments {s['payments']}"
        )
    return "\n".join(lines)


def render_for(game: Game, render_mode: str | None) -> str | None:
    """An environment's ``render()``: the table as text (``"ansi"``), printed
    (``"human"``, returns None), or a warning and None without a render mode."""
    if render_mode is None:
        import gymnasium

        gymnasium.logger.warn("render() called without a render_mode: nothing to render")
        return None
    text = render_table(game)
    if render_mode == "human":
        print(text)
        return None
    return text
