"""The terminal table (``mariash play --terminal``): the same session as the browser
table, drawn with rich — cards in colour, the legal moves numbered, ``u`` to take back
a misclick before the next robot acts, ``h`` for a hint (the table robot's move from the
human's cards only), ``?`` for this list, ``q`` to leave (finished deals are saved).  Its
words come from the table's catalogue (:mod:`.i18n`) in one language, Czech unless
``lang="en"``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..extras import needs
from ..games.base import step_bound
from .i18n import LANGS, amount, card_name, t
from .session import PlayError, PlaySession

with needs("play", "the terminal table", "rich"):
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

STYLE = {"h": "bold red", "b": "bold dark_orange", "l": "bold green", "a": "bold yellow4"}


def card_text(card: dict[str, Any], lang: str = "cz") -> Text:
    """The card's name in its suit's colour (``červená devítka``)."""
    return Text(card_name(card["code"], lang), style=STYLE[card["suit"]])


def _cards(cards: list[dict[str, Any]], names: list[str] | None = None,
           lang: str = "cz") -> Text:
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(", ")
        out.append_text(card_text(c, lang))
        if names:
            out.append(f" ({names[i]})", style="dim")
    return out or Text("—", style="dim")


class TerminalTable:
    """Draws a :class:`PlaySession` and reads the human's moves from ``read``."""

    def __init__(self, session: PlaySession, console: Console | None = None,
                 read: Callable[[str], str] = input, robot_delay: float = 0.0,
                 lang: str = "cz") -> None:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}: expected one of {LANGS}")
        self.lang = lang
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
                name = st["seats"][e["seat"]]["names"][self.lang]
                self.console.print(Text(f"  {name}: ", style=style) + Text(e[self.lang]))
                self._last = e["move"]

    def draw(self, st: dict[str, Any]) -> None:
        c, lang = self.console, self.lang
        names = [s["names"][lang] for s in st["seats"]]
        c.rule(t("deal_info", lang, deal=st["deal"] + 1, deals=st["deals"], move=st["move"]))
        tags = [tag[lang] for tag in st["contract"]["tags"]]
        if st.get("stock_card"):  # lízaný: the cards left in the stock (the page's felt)
            tags.append(t("lizany.stock", lang, n=st["stock"]))
        if tags:
            c.print(" · ".join(tags))
        tb = Table(show_edge=False, box=None, padding=(0, 2))
        for col in (t("term.player", lang), t("term.role", lang), t(f"unit.{st['unit']}", lang),
                    t("points", lang, points="").strip(),
                    t("tricks_taken", lang, tricks="").strip()):
            tb.add_column(col)
        for s in st["seats"]:
            mark = "→ " if s["to_move"] else "  "
            role = t(f"role.{s['role']}", lang) if s["role"] else ""
            if s["position"]:
                role += f" · {t('position.' + s['position'], lang)}"
            tb.add_row(mark + s["names"][lang], role, f"{s['score']:+d}", str(s["points"]),
                       str(s["tricks"]))
        c.print(tb)
        c.print(Text(t("trick", lang) + ": ") + _cards(
            st["trick"], [names[p["seat"]] for p in st["trick"]], lang))
        if st["tricks"]:
            last = st["tricks"][-1]
            took = t("takes.you", lang) if last["winner"] == st["human_seat"] else \
                t("takes", lang, name=names[last["winner"]])
            c.print(Text(t("term.last", lang), style="dim") + _cards(last["cards"], None, lang)
                    + Text(f" · {took}", style="dim"))
        c.print(Text(t("term.hand", lang)) + _cards(st["hand"], None, lang))

    def moves(self, st: dict[str, Any]) -> list[tuple[str, Text]]:
        """The legal moves in the order shown, numbered from 1."""
        out = []
        for card in st["hand"]:
            if card["label"]:
                verb = t(f"verb.{card['label'].split(':')[0]}", self.lang)
                out.append((card["label"], Text(f"{verb}: ") + card_text(card, self.lang)))
        for ch in st["choices"]:
            out.append((ch["label"], Text(ch[self.lang], style="bold")))
        return out

    def ask(self, st: dict[str, Any]) -> dict[str, Any] | None:
        """One human decision; the new state, or None to leave."""
        moves = self.moves(st)
        for i, (_, text) in enumerate(moves, 1):
            self.console.print(Text(f"{i:>3}. ") + text)
        lang = self.lang
        extra = t("term.undo", lang) if st["can_undo"] else ""
        while True:
            answer = self.read(t("term.prompt", lang, n=len(moves), undo=extra)).strip()
            if answer == "q":
                return None
            if answer in ("?", "help"):
                self.console.print(Text(t("term.help", lang, n=len(moves)), style="dim"))
                continue
            try:
                if answer == "h":
                    what = self.s.hint(self.s.id, st["move"])[lang]
                    self.console.print(Text(t("hint", lang, what=what), style="italic"))
                    continue
                if answer == "u":
                    return self.s.undo(self.s.id, st["move"])
                n = int(answer)
                if not 1 <= n <= len(moves):
                    raise ValueError
                return self.s.act(self.s.id, st["move"], moves[n - 1][0])
            except ValueError as e:
                undo = ", u" if st["can_undo"] else ""
                msg = t("term.bad", lang, answer=answer, n=len(moves), undo=undo)
                if isinstance(e, PlayError):  # the table's own reason (English, as the API's)
                    msg = f"{e}: {msg}"
                self.console.print(Text(t("term.error", lang) + msg, style="red"))

    def run(self) -> int:
        """Play the partie until it is over or the human leaves.  The robots' moves come
        one at a time (each printed as it happens), at most a deal's decisions in a row
        (the session's ``deal_decisions``, as its ``run_robots``): past them
        StuckGameError names the loop (the engine does not move the game on), where it
        asked the robots for ever."""
        st = self.s.state()
        tick = None  # the robots' moves since the table last waited for something else
        while True:
            if st["waiting"] == "robot":
                if tick is None:
                    tick = step_bound(f"the {self.s.rules} terminal table's robot moves",
                                      self.s.deal_decisions)
                tick()
                time.sleep(self.delay)
                st = self.s.advance(self.s.id, st["move"])
                self.print_new_events(st)
                continue
            tick = None
            self.print_new_events(st)
            if st["waiting"] == "human":
                self.draw(st)
                new = self.ask(st)
                if new is None:
                    break
                if len(new["events"]) < len(st["events"]):
                    self.console.print(t("term.undone", self.lang), style="yellow")
                st = new
                continue
            self.console.rule(t("settlement", self.lang))
            for line in st["settlement"]["lines"][self.lang]:
                self.console.print("  " + line)
            if st["waiting"] == "partie_over":
                self.console.rule(t("term.over", self.lang))
                for s in st["seats"]:
                    self.console.print(f"  {s['names'][self.lang]}: "
                                       f"{amount(s['score'], st['unit'], self.lang)}")
                week = st["series"]["week"]
                # the saved names ("you", "robot table") as this table words them (the page
                # does the same)
                shown = {s["name"]: s["names"][self.lang] for s in st["seats"]}
                for r in week["rows"]:
                    self.console.print("  " + t("term.week", self.lang, key=week["key"],
                                                place=r["place"],
                                                name=shown.get(r["name"], r["name"]),
                                                total=f"{r['total']:+d}"))
                break
            if self.read(t("term.next", self.lang)).strip() == "q":
                break
            st = self.s.next_deal(self.s.id, st["move"])
        self.say_where_kept()
        return 0

    def say_where_kept(self) -> None:
        """The partie's records file once a deal has finished (the first is saved at its
        settlement); before that the session file to go on with (written at the first
        move), else that nothing is saved: no path of a file never written."""
        s, lang = self.s, self.lang
        if s.records_path.exists():
            self.console.print(t("term.records", lang, path=s.records_path))
        elif s.session_path.exists():
            self.console.print(t("term.unfinished", lang, path=s.session_path))
        else:
            self.console.print(t("term.nothing", lang))


def run_terminal(session: PlaySession, **kw: Any) -> int:
    table = TerminalTable(session, robot_delay=kw.pop("robot_delay", 0.4), **kw)
    try:
        return table.run()
    except (EOFError, KeyboardInterrupt):
        # end the prompt's line and say where the partie is kept, as "q" does
        table.console.print()
        table.say_where_kept()
        return 0
