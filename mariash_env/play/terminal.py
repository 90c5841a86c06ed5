"""The terminal table (``mariash play --terminal``): the same session as the browser
table, drawn with rich — cards in colour, the legal moves numbered, ``u`` to take back
a misclick before the next robot acts, ``q`` to leave (finished deals are saved)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..cards import SUIT_SYMBOLS, SUITS
from .session import PlayError, PlaySession

STYLE = {"h": "bold red", "b": "bold dark_orange", "l": "bold green", "a": "bold yellow4"}


def card_text(card: dict[str, Any]) -> Text:
    return Text(card["short"], style=STYLE[card["suit"]])


def _cards(cards: list[dict[str, Any]], names: list[str] | None = None) -> Text:
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append("  ")
        out.append_text(card_text(c))
        if names:
            out.append(f" ({names[i]})", style="dim")
    return out or Text("—", style="dim")


class TerminalTable:
    """Draws a :class:`PlaySession` and reads the human's moves from ``read``."""

    def __init__(self, session: PlaySession, console: Console | None = None,
                 read: Callable[[str], str] = input, robot_delay: float = 0.0) -> None:
        self.s = session
        self.console = console or Console()
        self.read = read
        self.delay = robot_delay
        self._last = 0  # the last move printed

    def print_new_events(self, st: dict[str, Any]) -> None:
        """Each move once, as it happens (robots' moves one by one)."""
        for e in st["events"]:
            if e["move"] > self._last:
                style = "green" if e["seat"] == st["human_seat"] else "cyan"
                self.console.print(Text(f"  {e['name']}: ", style=style) + Text(e["cz"])
                                   + Text(f"  / {e['en']}", style="dim"))
                self._last = e["move"]

    def draw(self, st: dict[str, Any]) -> None:
        c = self.console
        names = [s["name"] for s in st["seats"]]
        c.rule(f"rozdání / deal {st['deal'] + 1}/{st['deals']} · tah / move {st['move']}")
        con = st["contract"]
        if con.get("tags"):  # licitovaný: the auction, then the contract, worded
            c.print(" · ".join(con["tags"]))
        elif con["kind"]:
            line = f"aktér / actor: {names[con['actor']]} · {con['kind']}"
            if con["trump"]:
                line += f" · trumfy / trumps {SUIT_SYMBOLS[SUITS.index(con['trump'])]} {con['trump_en']}"
            if con["announce"]:
                line += f" · {con['announce']}"
            for b in con["bets"]:
                line += f" · {b['bet']}{' ' + b['level_name'] if b['level'] else ''}"
            c.print(line)
        elif con["trump_card"]:
            c.print(Text("tvůj trumf / your trump card: ") + Text(con["trump_card"]))
        t = Table(show_edge=False, box=None, padding=(0, 2))
        for col in ("hráč / player", "role", st["unit"], "body / points", "štychy / tricks"):
            t.add_column(col)
        for s in st["seats"]:
            mark = "→ " if s["to_move"] else "  "
            role = f"{s['role']} · {s['position']}" if s["position"] else s["role"]
            t.add_row(mark + s["name"], role, f"{s['score']:+d}", str(s["points"]),
                      str(s["tricks"]))
        c.print(t)
        c.print(Text("štych / trick: ") + _cards(st["trick"], [names[p["seat"]]
                                                               for p in st["trick"]]))
        if st["last_trick"]:
            c.print(Text("poslední / last: ", style="dim") + _cards(st["last_trick"]))
        c.print(Text("ruka / hand: ") + _cards(st["hand"]))

    def moves(self, st: dict[str, Any]) -> list[tuple[str, Text]]:
        """The legal moves in the order shown, numbered from 1."""
        out = []
        for card in st["hand"]:
            if card["label"]:
                verb = card["label"].split(":")[0]
                out.append((card["label"], Text(f"{verb} ") + card_text(card)
                            + Text(f" ({card['cz']})", style="dim")))
        for ch in st["choices"]:
            out.append((ch["label"], Text(ch["cz"], style="bold") + Text(f" / {ch['en']}")))
        return out

    def ask(self, st: dict[str, Any]) -> dict[str, Any] | None:
        """One human decision; the new state, or None to leave."""
        moves = self.moves(st)
        for i, (_, text) in enumerate(moves, 1):
            self.console.print(Text(f"{i:>3}. ") + text)
        extra = " · u = zpět / undo" if st["can_undo"] else ""
        while True:
            answer = self.read(f"tah 1-{len(moves)}{extra} · q = konec / quit > ").strip()
            if answer == "q":
                return None
            try:
                if answer == "u":
                    return self.s.undo(self.s.id, st["move"])
                n = int(answer)
                if not 1 <= n <= len(moves):
                    raise ValueError
                return self.s.act(self.s.id, st["move"], moves[n - 1][0])
            except ValueError as e:
                msg = str(e) if isinstance(e, PlayError) else f"{answer!r} is not a move"
                self.console.print(Text(f"error: {msg}: expected 1..{len(moves)}"
                                        + (", u" if st["can_undo"] else "") + " or q",
                                        style="red"))

    def run(self) -> int:
        st = self.s.state()
        while True:
            if st["waiting"] == "robot":
                time.sleep(self.delay)
                st = self.s.advance(self.s.id, st["move"])
                self.print_new_events(st)
                continue
            self.print_new_events(st)
            if st["waiting"] == "human":
                self.draw(st)
                new = self.ask(st)
                if new is None:
                    break
                if len(new["events"]) < len(st["events"]):
                    self.console.print("zpět / undone", style="yellow")
                st = new
                continue
            self.console.rule("vyúčtování / settlement")
            for line in st["settlement"]["lines"]:
                self.console.print("  " + line)
            if st["waiting"] == "partie_over":
                self.console.rule("konec partie / the partie is over")
                for s in st["seats"]:
                    self.console.print(f"  {s['name']}: {s['score']:+d} {st['unit']}")
                for r in st["series"]["week"]["rows"]:
                    self.console.print(f"  týden / week {st['series']['week']['key']}: "
                                       f"{r['place']}. {r['name']} {r['total']:+d}")
                break
            if self.read("Enter = další rozdání / next deal · q = konec / quit > ").strip() \
                    == "q":
                break
            st = self.s.next_deal(self.s.id, st["move"])
        self.console.print(f"záznam / records: {self.s.records_path}")
        return 0


def run_terminal(session: PlaySession, **kw: Any) -> int:
    try:
        return TerminalTable(session, robot_delay=kw.pop("robot_delay", 0.4), **kw).run()
    except (EOFError, KeyboardInterrupt):
        return 0
