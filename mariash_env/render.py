"""The table as a mariáš player reads it (``ansi``/``human`` render modes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import SUIT_NAMES_CZ, cards_of, pretty
from .core import state as S

if TYPE_CHECKING:
    from .game import Game
    from .games.base import TableText


def _hand(m: int) -> str:
    # Group by suit, highest first in trump ranking order is overkill: show natural order.
    return " ".join(pretty(c) for c in sorted(cards_of(m), key=lambda c: (c >> 3, -(c & 7)))) or "—"


def render_table(game: Game) -> str:
    """The table as text; what is the game's own (its seats' names, its bidding and
    contract, what was settled) is written by its kind's ``render`` (a TableText)."""
    st = game.st
    text: TableText = game.kind.load("render")
    unit = game.kind.units
    role_names = text.roles
    f = int(st[S.FOREHAND])
    pl = game.player  # a core seat's player (at four, RULES.md §11.3, the dealer sits out)
    out_note = " (sits out)" if game.sitting_out is not None else ""
    lines = [
        f"deal {game.deal_no + 1}/{game.rules.deals}  dealer player_{game.dealer}{out_note}  "
        f"{role_names[0]} player_{pl(f)}  phase {game.phase_name}"
    ]
    lines += text.contract(game)
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
        many, key = text.settled
        items = s[many]
        lines.append(
            "settled: " + ", ".join(
                f"{b[key]} {'won' if b['won'] else 'lost'} {b['amount']:+d}" for b in items
            ) + (f"; {s['end'].replace('_', ' ')}" if text.show_end and not items else "")
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
