"""Lízaný mariáš at the table: one human and one robot, a partie of deals of the
two-player game (:mod:`mariash_env.games.lizany.game`), with the same requests and the
same state as :class:`~mariash_env.play.session.PlaySession` so the browser and terminal
tables show it unchanged (two seats instead of three).

A partie is ``deals`` deals (12 by default); the lead alternates, seat ``k % 2`` leading
deal ``k`` (it is the game's ``player_0``).  A deal's score is its reward: +1 to the player
with more points, +2 when the loser took no trick, the other the negative.  What the state
shows is public or the human's own: the human's hand, the trump card (turned up under the
stock, public until drawn), the stock's size, the card on the table, every card played,
points, marriages and tricks; never the robot's hand or the stock's order, until the deal
is over and its review opens them.  Saved like the other games: the records as JSON lines
(``<id>.jsonl``, each the deal's :meth:`LizanyGame.record`), the partie's summary
(``<id>.json``) for the series table, and the session file that rebuilds it.
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import jsonio
from ..cards import CARD_CODES, cards_of
from ..games.base import step_bound
from ..games.lizany.core import DEAL_DECISIONS
from ..games.lizany.game import LizanyGame
from ..records import save_records
from ..robots import make_robot
from ..robots.base import Robot
from ..rules import is_int
from .i18n import LANGS, SUIT_CZ, SUIT_EN, amount, both, card_name, robot_word, t
from .labels import card_info
from .series import SeriesMemo
from .session import (
    PlayError,
    TableSession,
    _write_json,
    check_id,
    make_save_dir,
    parse_robots,
    shown,
    tricks_of,
    why_not,
)

RULES_NAME = "lizany"
FORMAT = "mariash-lizany-session/1"
ROLES = ("leader", "second")  # the game's player_0 leads the deal's first trick
HINT_ROBOT = "table"


_WARM: list[bool] = [False]


def warm_lizany() -> None:
    """Compile (or load) the game's kernels the table calls (the legal cards, a card's
    play, the observation), once per process, when a table is built: on an empty numba
    cache the robot's first move compiled them (~1.3 s; a table audit).  A deal played by
    its first legal cards, announced like the robots' warm-ups, quiet when numba's disk
    cache holds them."""
    if _WARM[0]:
        return
    from numba.core.dispatcher import Dispatcher

    from ..compile import compiling_notice
    from ..games.lizany import core

    kernels = [f for f in vars(core).values() if isinstance(f, Dispatcher)]
    with compiling_notice(RULES_NAME, about="a few seconds", what="table's kernels",
                          kernels=kernels):
        game = LizanyGame(seed=0)
        tick = step_bound("the lízaný table's warm-up deal", DEAL_DECISIONS)
        while not game.over:
            tick()
            game.observe(game.to_move)
            game.legal_cards(game.to_move)  # a seat's own, as the table reads the human's
            game.play(game.legal_labels()[0])
    _WARM[0] = True


class LizanySession(TableSession):
    """A partie of lízaný with one human seat (module docstring)."""

    rules = RULES_NAME
    licit = False
    FORMAT = FORMAT  # what resume_table knows its saved sessions by

    def __init__(self, robots: str | Sequence[str], *, save_dir: str | os.PathLike,
                 human_seat: int = 0, name: str = "you", seed: int | None = None,
                 session_id: str | None = None,
                 clock: Callable[[], dt.datetime] | None = None,
                 options: dict[str, Any] | None = None, **_: Any) -> None:
        if isinstance(human_seat, bool) or human_seat not in (0, 1):
            raise PlayError(f"invalid human seat {shown(human_seat)}: lízaný seats two, "
                            "expected 0 or 1")
        if seed is not None and (not is_int(seed) or seed < 0):
            raise PlayError(f"invalid seed {shown(seed)}: expected an int >= 0 or None")
        if not isinstance(name, str) or not name:
            raise PlayError(f"invalid name {shown(name)}: expected a non-empty string")
        options = dict(options or {})
        deals = options.pop("deals", 12)
        options.pop("max_flek", None)  # the page's form sends it for every game
        if options:
            raise PlayError(f"invalid options: lízaný takes only 'deals', not "
                            f"{sorted(options)[0]!r}")
        if isinstance(deals, bool) or not is_int(deals) or not 1 <= deals <= 12:
            raise PlayError(f"invalid options: deals {shown(deals)}: expected 1..12")
        self.options = {"deals": int(deals)}
        # one opponent; two robots named (the three-seat tables' form) seat the first
        self.specs = parse_robots(robots, (1, 2))
        self.spec = self.specs[0]
        try:
            self.robot: Robot = make_robot(self.spec, rules=RULES_NAME)
        except Exception as e:  # a robot of another game, a missing file: name the spec
            raise PlayError(f"cannot seat robot {self.spec!r}: {e}") from e
        warm_lizany()
        self.human, self.name = human_seat, name
        self.seed = int(seed) if seed is not None else secrets.randbelow(2**31)
        self.id = secrets.token_hex(6) if session_id is None else check_id(session_id)
        self.clock = clock or (lambda: dt.datetime.now(dt.timezone.utc))
        self.save_dir = Path(save_dir)
        self.series = SeriesMemo(self.save_dir, RULES_NAME)
        make_save_dir(self.save_dir)
        for suffix in (".session.json", ".jsonl", ".json"):
            self._file(suffix)
        robot_name = f"robot {self.spec}"
        self.names = {s: name if s == human_seat else robot_name for s in range(2)}
        self.shown_names = {k: {s: (t("you", k) if name == "you" else name)
                                if s == human_seat else robot_name.replace(
                                    self.spec, robot_word(self.spec, k))
                                for s in range(2)} for k in LANGS}
        self.started = self.clock().isoformat()
        self._reset()

    def _reset(self) -> None:
        self.move, self.deal = 0, 0
        self.log: list[tuple[str, Any, int]] = []
        self.events: list[dict[str, Any]] = []
        self.deals: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = []
        self.scores = [0, 0]
        self._undo_ok = False
        self._saving = True
        self._new_deal()

    def _new_deal(self) -> None:
        self._set_game(LizanyGame(seed=(self.seed * 1_000_003 + self.deal) % 2**31))
        self.robot.begin_deal((self.seed * 1_000_003 + 97 * self.deal) % 2**63)

    def _set_game(self, game: LizanyGame) -> None:
        """``game`` as the deal at the table, with the hands and stock its review shows."""
        self.game = game
        self._drawn: str | None = None  # the card the human drew last (its own)
        self._dealt = [[CARD_CODES[c] for c in cards_of(game.hands[self._player(s)])]
                       for s in range(2)]
        self._stock = [CARD_CODES[c] for c in game.stock]

    # the game's player_0 leads: seat deal % 2
    def _player(self, seat: int) -> int:
        return (seat + self.deal) % 2

    def _seat(self, player: int) -> int:
        return (player + self.deal) % 2

    # --- requests ---------------------------------------------------------------------
    @property
    def _deal_over(self) -> bool:
        return self.game.over

    @property
    def partie_over(self) -> bool:
        return self.game.over and self.deal + 1 >= self.options["deals"]

    @property
    def waiting(self) -> str:
        if self.game.over:
            return "partie_over" if self.partie_over else "next_deal"
        return "human" if self._seat(self.game.to_move) == self.human else "robot"

    def act(self, session_id: str, move: Any, label: Any) -> dict[str, Any]:
        """The human's card ``label`` (``play:9h``) answering state ``move``."""
        self._expect(session_id, move, "human", "not your turn")
        legal = self.game.legal_labels()
        if not isinstance(label, str) or label not in legal:
            raise PlayError(f"illegal action {shown(label)}: legal now are {legal}", 422,
                            "illegal")
        seat = self.game.to_move
        held = int(self.game.hands[seat])
        self._apply(label)
        # no undo after a draw from the stock: the human would play the trick again
        # knowing the card it drew
        drew = bool(int(self.game.hands[seat]) & ~held)
        self._undo_ok = not self.game.over and not drew
        self.checkpoint()
        return self.state()

    deal_decisions = DEAL_DECISIONS  # a card each (run_robots' bound)

    def _obs(self, player: int) -> dict[str, Any]:
        return {"observation": self.game.observe(player),
                "action_mask": self.game.legal_mask(player)}

    def advance(self, session_id: str, move: Any) -> dict[str, Any]:
        """One robot move, from the robot's own observation."""
        self._expect(session_id, move, "robot", "no robot is to move")
        g = self.game
        card = g.check(int(self.robot.act(self._obs(g.to_move))))
        self._apply(f"play:{CARD_CODES[card]}")
        self._undo_ok = False
        self.checkpoint()
        return self.state()

    def hint(self, session_id: str, move: Any) -> dict[str, str]:
        """What the table robot would play in the human's seat, from its observation."""
        self._expect(session_id, move, "human", "no hint now")
        robot = make_robot(HINT_ROBOT, rules=RULES_NAME)
        robot.begin_deal((self.seed * 1_000_003 + 7919 * self.move) % 2**63)
        card = self.game.check(int(robot.act(self._obs(self.game.to_move))))
        return self._words(f"play:{CARD_CODES[card]}")

    def _restart(self) -> None:
        self._reset()

    # --- changes ----------------------------------------------------------------------
    def _words(self, label: str) -> dict[str, str]:
        code = label[5:]
        return {"label": label, "cz": f"hraje {card_name(code, 'cz', 'acc')}",
                "en": f"plays {card_name(code, 'en', 'acc')}"}

    def _apply(self, label: str) -> None:
        g = self.game
        seat = self._seat(g.to_move)
        marr, tricks = list(g.marriage_by), list(g.tricks)
        mine = self._player(self.human)
        held = int(g.hands[mine])
        g.play(label)
        drew = int(g.hands[mine]) & ~held  # the human's draw after the trick: its own card
        if drew:
            self._drawn = CARD_CODES[drew.bit_length() - 1]
        self.move += 1
        self.log.append(("act", label, self.move))
        event = {"move": self.move, "deal": self.deal, "seat": seat, "name": self.names[seat],
                 **self._words(label), "card": label[5:]}
        new = [s for s in range(4) if g.marriage_by[s] != marr[s]]
        if new:
            points = 40 if new[0] == g.trump else 20
            event["marriage"] = {"suit": "hbla"[new[0]], "points": points}
            for k in LANGS:
                event[k] += f" · {t('marriage.short', k, points=points)}"
        took = [p for p in range(2) if g.tricks[p] > tricks[p]]
        if took:
            winner = self._seat(took[0])
            event["takes"] = winner
            for k in LANGS:
                event[k] += " · " + (t("takes.you", k) if winner == self.human else
                                     t("takes", k, name=self.shown_names[k][winner]))
        self.events.append(event)
        if g.over:
            self._finish_deal()

    def _next(self) -> None:
        if not self.game.over or self.partie_over:
            raise PlayError("the deal is not over" if not self.game.over else
                            "the partie is over", 409, "waiting")
        self.deal += 1
        self.move += 1
        self.log.append(("next", None, self.move))
        self.events = [e for e in self.events if e["deal"] == self.deal]
        self._new_deal()

    def _finish_deal(self) -> None:
        g = self.game
        pay = [g.rewards[self._player(s)] for s in range(2)]
        self.scores = [a + b for a, b in zip(self.scores, pay)]
        self.records.append(g.record())
        self.deals.append({"deal": self.deal, "payments": pay, "scores": list(self.scores),
                           "lines": {k: self._lines(k) for k in LANGS},
                           "review": {"hands": self._dealt, "talon": self._stock,
                                      "discards": [], "taken": [],
                                      "complete": True,  # each deal shuffled anew
                                      "tricks": tricks_of([e for e in self.events
                                                           if e["deal"] == self.deal])}})
        if self._saving:
            self.save()

    def _lines(self, lang: str) -> list[str]:
        """The deal's result in words: each player's points, who won and why, payments."""
        g, names = self.game, self.shown_names[lang]
        total = [g.totals()[self._player(s)] for s in range(2)]
        pay = [g.rewards[self._player(s)] for s in range(2)]
        winner = 0 if pay[0] > 0 else 1
        lines = [t("lizany.points", lang, name=names[s], points=total[s],
                   cards=g.points[self._player(s)], marriages=g.marriages[self._player(s)],
                   tricks=g.tricks[self._player(s)]) for s in range(2)]
        why = "lizany.no_trick" if abs(pay[winner]) == 2 else \
            "lizany.last_trick" if total[0] == total[1] else "lizany.more"
        lines.append(t("lizany.wins", lang, name=names[winner]) + " — " + t(why, lang))
        lines.append(t("settle.payments", lang, list=", ".join(
            f"{names[s]} {pay[s]:+d}" for s in range(2))))
        return lines

    # --- saving -----------------------------------------------------------------------
    def save(self) -> None:
        """The finished deals' records and the partie's summary (the series reads it)."""
        save_records(self.records_path, self.records)
        wins = [sum(1 for d in self.deals if d["payments"][s] > 0) for s in range(2)]
        _write_json(self._file(".json"), {
            "id": self.id, "rules": RULES_NAME, "seed": self.seed, "started": self.started,
            "finished": self.clock().isoformat(), "deals": len(self.deals),
            "complete": self.partie_over, "human_seat": self.human,
            "players": [{"seat": s, "name": self.names[s], "score": self.scores[s],
                         "actor_wins": wins[s]} for s in range(2)]})
        self.series.forget()

    def checkpoint(self) -> None:
        _write_json(self.session_path, {
            "format": FORMAT, "id": self.id, "rules": RULES_NAME, "seed": self.seed,
            "robots": self.specs, "human_seat": self.human, "name": self.name,
            "started": self.started, "move": self.move, "over": self.partie_over,
            "undo_ok": self._undo_ok, "options": self.options,
            "log": [list(e) for e in self.log]})

    @classmethod
    def resume(cls, path: str | os.PathLike, **kw: Any) -> LizanySession:
        """The lízaný session saved at ``path``, at the move it was left."""
        path = Path(path)
        try:
            d = jsonio.read(path)
            if not isinstance(d, dict) or d.get("format") != FORMAT:
                raise PlayError(f"format {shown(d.get('format') if isinstance(d, dict) else d)}"
                                f": expected {FORMAT!r}")
            s = cls(d["robots"], save_dir=path.parent, human_seat=d["human_seat"],
                    name=d["name"], seed=d["seed"], session_id=d["id"],
                    options=d.get("options"), **kw)
            s.started = d["started"]
            s._replay([(k, v, m) for k, v, m in d["log"]])
            s.move, s._undo_ok = d["move"], bool(d["undo_ok"]) and not s.game.over
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise PlayError(f"cannot resume {str(path)!r}: {e}") from e
        return s

    # --- what the human sees ----------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The table as the human sees it: its own hand, public cards and counts."""
        g = self.game
        me = self._player(self.human)
        human_turn = self.waiting == "human"
        legal = g.legal_labels() if human_turn else []
        trick = []
        if g.table >= 0 and not g.over:
            code = CARD_CODES[g.table]
            trick = [{"seat": self._seat(1 - g.to_move), "code": code, "suit": code[1]}]
        trump = "hbla"[g.trump]
        hand = [CARD_CODES[c] for c in cards_of(g.hands[me])]
        free = g.stock_left > 0  # while the stock lasts any card may be played
        table_trick = [{"suit": trick[0]["suit"]}] if trick else []
        # the cards left in the stock are "stock", shown beside the stock (not a tag too)
        tags = [both("trumps", suit={"cz": SUIT_CZ[trump], "en": SUIT_EN[trump]})]
        if g.stock_left:  # the trump card lies turned up under the stock
            tags.append(both("lizany.trump_card", card={k: card_name(CARD_CODES[g.trump_card],
                                                                     k) for k in LANGS}))
        # who leads the trick on the table (or the next): the roles follow the lead
        leader = None if g.over else 1 - g.to_move if g.table >= 0 else g.to_move
        seats = []
        for s in range(2):
            p = self._player(s)
            seats.append({
                "seat": s, "name": self.names[s], "human": s == self.human,
                "names": {k: self.shown_names[k][s] for k in LANGS},
                "role": "" if leader is None else ROLES[int(p != leader)], "position": "",
                "score": self.scores[s],
                "score_text": {k: amount(self.scores[s], "výhry", k) for k in LANGS},
                "points": int(g.totals()[p]), "tricks": int(g.tricks[p]),
                "to_move": not g.over and g.to_move == p})
        tricks = tricks_of([e for e in self.events if e["deal"] == self.deal])
        return {
            "session": self.id, "move": self.move, "rules": RULES_NAME, "unit": "výhry",
            "setup": {"rules": RULES_NAME, "robots": list(self.specs), "seat": self.human,
                      "options": dict(self.options)},
            "deal": self.deal, "deals": self.options["deals"], "phase": "play",
            "waiting": self.waiting, "human_seat": self.human, "seats": seats,
            "players": 2, "sitting_out": None,  # as every table's state: nobody sits out
            "to_move": None if g.over else self._seat(g.to_move),
            "hand": [{**card_info(c), "label": f"play:{c}" if f"play:{c}" in legal else None,
                      "why": None if f"play:{c}" in legal or free and human_turn else why_not(
                          c, hand, table_trick, trump, "play", human_turn, seven_rule=False)}
                     for c in hand],
            "choices": [], "legal": legal, "prompt": None,  # no flek turn in lízaný
            "can_undo": self._undo_ok and not g.over,
            "contract": {"tags": tags, "trump": trump, "kind": None, "actor": None,
                         "bets": [], "trump_card": None},
            "trick": trick, "last_trick": tricks[-1]["cards"] if tricks else [],
            "tricks": tricks, "stock": g.stock_left,
            # the trump card turned up under the stock (public until drawn), and the card
            # the human drew last while it is in its hand
            "stock_card": card_info(CARD_CODES[g.trump_card]) if g.stock_left else None,
            "drawn": self._drawn if self._drawn in hand else None,
            "events": [e for e in self.events if e["deal"] == self.deal],
            "settlement": self.deals[-1] if g.over and self.deals else None,
            "deal_results": list(self.deals), "scores": list(self.scores),
            "records": str(self.records_path),
            "series": self.series.tables(self.clock()),
        }


__all__ = ["LizanySession"]
