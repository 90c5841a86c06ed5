"""One human and two robots at a table: a whole partie, without any user interface.

:class:`PlaySession` holds a :class:`~mariash_env.Game` and the robots, applies the
human's actions and the robots' moves one at a time (so a front end can show them one
by one), and publishes a versioned state (:meth:`PlaySession.state`).  Every request
that changes the game names the session id and the ``move`` (the state version) it
answers: a stale or illegal request raises :class:`PlayError` and changes nothing.
Each finished deal is saved at once: the partie's records as JSON lines
(``<id>.jsonl``, verified by ``python -m mariash_env.replay``) and a summary
(``<id>.json``) that the series table (:mod:`mariash_env.play.series`) reads.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import atomic_open
from ..cards import CARD_CODES, SUITS, cards_of
from ..core.observe import OBS_LAYOUT
from ..game import Game, IllegalActionError, level_name
from ..records import save_records
from ..robots import SeatView, make_robot
from ..robots.base import Robot
from . import licit
from .labels import SUIT_NAMES_EN, card_info, describe, describe_licit
from .series import series_tables

RULES = ("voleny", "licitovany")
ROLES = ("forhont", "middlehand", "dealer")
CARD_HEADS = ("trump", "discard", "play")
BETS = ("game", "seven", "seven_against", "hundred_against")
# What the human sees of another seat's hidden action (its card stays hidden).
HIDDEN = {"discard": {"cz": "odkládá kartu do talonu", "en": "discards a card"},
          "lead": {"cz": "vynáší kartu lícem dolů", "en": "lays a face-down lead"}}
SESSION_FORMAT = "mariash-session/2"  # /2: each log entry carries its move number
OLD_FORMATS = ("mariash-session/1",)
_BLOCKS = {name: (off, size) for name, off, size, _ in OBS_LAYOUT}


class PlayError(ValueError):
    """A request the table refuses; ``status`` is the HTTP status that fits it."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _write_json(path: Path, obj: Any) -> None:
    with atomic_open(path) as f:
        f.write(json.dumps(obj, ensure_ascii=False, indent=1))


def latest_unfinished(save_dir: str | os.PathLike) -> Path | None:
    """The most recently changed saved session whose partie is not over."""
    found = []
    for p in Path(save_dir).glob("*.session.json"):
        try:
            if not json.loads(p.read_text(encoding="utf-8")).get("over", True):
                found.append((p.stat().st_mtime, p))
        except (OSError, ValueError, AttributeError):
            continue  # not a session file: nothing to resume there
    return max(found)[1] if found else None


def _on_card(label: str, heads: tuple[str, ...] = CARD_HEADS) -> bool:
    """Whether the label is a click on a card of the hand (trump:blind, licitovaný's
    trump:b name no card: buttons)."""
    head, _, tail = label.partition(":")
    return head in heads and len(tail) == 2


def _block(obs: np.ndarray, name: str,
           blocks: dict[str, tuple[int, int]] = _BLOCKS) -> np.ndarray:
    off, size = blocks[name]
    return obs[off:off + size]


def tricks_seen(obs: np.ndarray, me: int, blocks: dict[str, tuple[int, int]] = _BLOCKS
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The current and the last complete trick from seat ``me``'s observation (both
    games encode the card play alike), each card with the seat that played it."""
    played_in = _block(obs, "played_in", blocks).reshape(32, 10)
    by = _block(obs, "played_by", blocks).reshape(3, 32)
    lead = _block(obs, "trick_leader", blocks).reshape(10, 3)
    tricks = []
    for t in range(10):
        cards = np.flatnonzero(played_in[:, t])
        if not cards.size:
            break
        first = int(np.argmax(lead[t]))
        seat_of = {int(c): int(np.argmax(by[:, c])) for c in cards}
        order = sorted(seat_of, key=lambda c: (seat_of[c] - first) % 3)
        tricks.append([{"seat": (seat_of[c] + me) % 3, **card_info(CARD_CODES[c])}
                       for c in order])
    cur = tricks.pop() if tricks and len(tricks[-1]) < 3 else []
    return cur, tricks[-1] if tricks else []


def check_rules(rules: str) -> str:
    if rules not in RULES:
        raise PlayError(f"unknown rules {rules!r}: expected {' or '.join(RULES)}")
    return rules


def parse_robots(spec: str | Sequence[str]) -> list[str]:
    """Two robot specs from ``"table,onnx:m.onnx"`` or a list; PlayError naming a bad one."""
    items = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else list(spec)
    if len(items) != 2 or not all(isinstance(s, str) and s for s in items):
        raise PlayError(f"expected two robots, e.g. 'table,random', got {spec!r}")
    return items


def _robot(spec: str, rules: str = "voleny") -> Robot:
    try:
        return make_robot(spec, rules=rules)
    except Exception as e:  # a missing ONNX file, a bad argument: name the spec
        raise PlayError(f"cannot seat robot {spec!r}: {e}") from e


class PlaySession:
    """A partie with one human seat (module docstring)."""

    def __init__(
        self,
        robots: str | Sequence[str],
        *,
        save_dir: str | os.PathLike,
        human_seat: int = 0,
        name: str = "you",
        seed: int | None = None,
        rules: str = "voleny",
        session_id: str | None = None,
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        check_rules(rules)
        if not isinstance(human_seat, int) or not 0 <= human_seat <= 2:
            raise PlayError(f"invalid human seat {human_seat!r}: expected 0, 1 or 2")
        specs = parse_robots(robots)
        self.specs, self.name = specs, name
        self.rules = rules
        self.licit = rules == "licitovany"
        self.human = human_seat
        self.clock = clock or (lambda: dt.datetime.now(dt.timezone.utc))
        self.seed = int(seed) if seed is not None else secrets.randbelow(2**31)
        self.id = session_id or secrets.token_hex(6)
        self.save_dir = Path(save_dir)
        self.save_dir.mkdir(parents=True, exist_ok=True)
        robot_seats = [s for s in range(3) if s != human_seat]
        self.robots: dict[int, Robot] = {s: _robot(sp, rules) for s, sp in zip(robot_seats, specs)}
        self.names = {s: (name if s == human_seat else f"robot {self._spec_name(specs, s)}")
                      for s in range(3)}
        self.names = {s: f"{n} ({s})" if list(self.names.values()).count(n) > 1 else n
                      for s, n in self.names.items()}
        self.started = self.clock().isoformat()
        self.move = 0
        # every change with its move number, to rebuild the game (and the numbers of the
        # shown moves, which an undo skips ahead) on undo and resume
        self.log: list[tuple[str, Any, int]] = []
        self.events: list[dict[str, Any]] = []
        self.deals: list[dict[str, Any]] = []  # each finished deal's settlement lines
        self._undo_ok = False
        self._saving = True
        self._new_game()  # the session file is written at the first change (checkpoint)

    def _spec_name(self, specs: list[str], seat: int) -> str:
        i = [s for s in range(3) if s != self.human].index(seat)
        return specs[i]

    def _new_game(self) -> None:
        self.game = Game(self.rules)
        self.game.new_partie(seed=self.seed)
        self._begin_deal()

    def _begin_deal(self) -> None:
        for s, r in self.robots.items():
            r.begin_deal((self.seed * 1_000_003 + 97 * self.game.deal_no + s) % 2**63)

    # --- requests ---------------------------------------------------------------------
    def _check(self, session_id: str, move: Any) -> None:
        if session_id != self.id:
            raise PlayError(f"unknown session {session_id!r}: this table plays session "
                            f"{self.id!r} (reload the page)", 404)
        if isinstance(move, bool) or not isinstance(move, int):
            raise PlayError(f"invalid move {move!r}: expected the int move number of the "
                            "state the request answers", 400)
        if move != self.move:
            raise PlayError(f"stale request: it answers move {move}, the table is at move "
                            f"{self.move} (reload the state)", 409)

    def _expect(self, session_id: str, move: Any, waiting: str, refusal: str) -> None:
        self._check(session_id, move)
        if self.waiting != waiting:
            raise PlayError(f"{refusal}: the table waits for {self.waiting}", 409)

    @property
    def waiting(self) -> str:
        """Who the table waits for: human, robot, next_deal or partie_over."""
        g = self.game
        if g.deal_over:
            return "partie_over" if g.partie_over else "next_deal"
        return "human" if g.to_move == self.human else "robot"

    def act(self, session_id: str, move: Any, label: Any) -> dict[str, Any]:
        """The human's action ``label`` answering state ``move``."""
        self._expect(session_id, move, "human", "not your turn")
        if not isinstance(label, str):
            raise PlayError(f"invalid action {label!r}: expected an action label string, "
                            f"legal now: {self.game.legal_labels()}", 400)
        if label not in self.game.legal_labels():
            raise PlayError(f"illegal action {label!r}: legal now are "
                            f"{self.game.legal_labels()}", 422)
        self._apply(label)
        self._undo_ok = True
        self.checkpoint()
        return self.state()

    def advance(self, session_id: str, move: Any) -> dict[str, Any]:
        """One robot move (the robot to move decides from its own seat's view)."""
        self._expect(session_id, move, "robot", "no robot is to move")
        g = self.game
        robot = self.robots[g.to_move]
        # act_view: a searching robot samples worlds from the view, others read its
        # observation (robots/base.py); both games
        a = robot.act_view(SeatView.from_game(g, g.to_move))
        self._apply(g.kind.action_label(g.check(int(a))))  # a robot's illegal move raises here
        self._undo_ok = False
        self.checkpoint()
        return self.state()

    def next_deal(self, session_id: str, move: Any) -> dict[str, Any]:
        """Gather, cut and deal the next deal once the human has seen the settlement."""
        self._expect(session_id, move, "next_deal", "the deal is not over")
        self._next()
        self._undo_ok = False
        self.checkpoint()
        return self.state()

    def undo(self, session_id: str, move: Any) -> dict[str, Any]:
        """Take back the human's last action while no robot has acted after it."""
        self._check(session_id, move)
        if not self._undo_ok:
            raise PlayError("nothing to undo: only your last action, before the next "
                            "robot acts", 409)
        # The engine has no undo: replay the partie (same seed, same cuts) without the
        # last action.  The replay must not log the moves again as shown events.
        events, move = self.events[:-1], self.move
        had = len(self.game.records)
        self._replay(self.log[:-1])
        self.events, self.move, self._undo_ok = events, move + 1, False
        if len(self.game.records) != had:  # the undone action had ended a deal
            self.save()
        self.checkpoint()
        return self.state()

    def _replay(self, log: list[tuple[str, Any, int]]) -> None:
        """Rebuild the game from the start through ``log`` (nothing saved meanwhile)."""
        self.log, self.deals, self.events, self.move = [], [], [], 0
        self._new_game()
        self._saving = False
        try:
            for kind, val, move in log:
                self.move = move - 1
                self._apply(val) if kind == "act" else self._next()
        finally:
            self._saving = True

    # --- resuming after a restart -----------------------------------------------------
    @property
    def session_path(self) -> Path:
        return self.save_dir / f"{self.id}.session.json"

    def checkpoint(self) -> None:
        """Write what rebuilds this session (:meth:`resume`): its set-up and every change."""
        _write_json(self.session_path, {
            "format": SESSION_FORMAT, "id": self.id, "rules": self.rules, "seed": self.seed,
            "robots": self.specs, "human_seat": self.human, "name": self.name,
            "started": self.started, "move": self.move, "over": self.game.partie_over,
            "undo_ok": self._undo_ok,
            "log": [list(e) for e in self.log]})

    @classmethod
    def resume(cls, path: str | os.PathLike, **kw: Any) -> PlaySession:
        """The session saved at ``path`` (a ``*.session.json``), at the move it was left."""
        try:
            d = json.loads(Path(path).read_text(encoding="utf-8"))
            if d.get("format") not in (SESSION_FORMAT, *OLD_FORMATS):
                raise ValueError(f"not a {SESSION_FORMAT} file")
            s = cls(d["robots"], save_dir=Path(path).parent, human_seat=d["human_seat"],
                    name=d["name"], seed=d["seed"], rules=d["rules"], session_id=d["id"],
                    **kw)
            s.started = d["started"]
            # a /1 entry [kind, value] had no move number: the moves in order
            s._replay([(e[0], e[1], int(e[2]) if len(e) > 2 else i + 1)
                       for i, e in enumerate(d["log"])])
            s.move, s._undo_ok = int(d["move"]), bool(d["undo_ok"])
        except (OSError, ValueError, KeyError, TypeError, IllegalActionError) as e:
            raise PlayError(f"cannot resume {str(path)!r}: {e}") from e
        return s

    def run_robots(self) -> dict[str, Any]:
        """Let the robots move until the human is to act or the deal is over."""
        while self.waiting == "robot":
            self.advance(self.id, self.move)
        return self.state()

    # --- changes ----------------------------------------------------------------------
    def _apply(self, label: str) -> None:
        g = self.game
        seat = g.to_move
        head = label.partition(":")[0]
        words = self._describe(label)
        if seat != self.human and head in HIDDEN:  # another seat's talon, face-down lead
            words = {"label": head, **HIDDEN[head]}
        ended = g.step(label)  # legal: checked by the caller or chosen from the mask
        self.move += 1
        self.log.append(("act", label, self.move))
        self.events.append({"move": self.move, "deal": g.deal_no, "seat": seat,
                            "name": self.names[seat], **words})
        if ended:
            self._finish_deal()

    def _next(self) -> None:
        if not self.game.next_deal():
            raise PlayError("the partie is over", 409)
        self.move += 1
        self.log.append(("next", None, self.move))
        self.events = [e for e in self.events if e["deal"] == self.game.deal_no]
        self._begin_deal()

    def _finish_deal(self) -> None:
        s = self.game.last_settlement
        assert s is not None
        lines = (licit.settlement_lines if self.licit else settlement_lines)(s, self.names)
        self.deals.append({"deal": self.game.deal_no, "lines": lines,
                           "payments": s["payments"], "scores": self.game.scores})
        if self._saving:
            self.save()

    # --- saving -----------------------------------------------------------------------
    @property
    def records_path(self) -> Path:
        return self.save_dir / f"{self.id}.jsonl"

    def save(self) -> None:
        """The records of the finished deals and the partie's summary, written atomically."""
        save_records(self.records_path, self.game.records)
        wins = [0, 0, 0]
        for rec in self.game.records:
            s = rec["settlement"]
            if licit.actor_won(s) if self.licit else \
                    any(b["bet"] == "game" and b["won"] for b in s["bets"]):
                wins[s["actor"]] += 1
        meta = {
            "id": self.id, "rules": self.rules, "seed": self.seed, "started": self.started,
            "finished": self.clock().isoformat(), "deals": len(self.game.records),
            "complete": self.game.partie_over, "human_seat": self.human,
            "players": [{"seat": s, "name": self.names[s], "score": self.game.scores[s],
                         "actor_wins": wins[s]} for s in range(3)],
        }
        _write_json(self.save_dir / f"{self.id}.json", meta)

    # --- what the human sees ----------------------------------------------------------
    def _obs(self) -> np.ndarray:
        return self.game.observation(self.human)

    def _abs(self, rel: np.ndarray) -> int:
        hit = np.flatnonzero(rel)
        return int((hit[0] + self.human) % 3) if hit.size else -1

    def _contract(self) -> str:
        c = _block(self._obs(), "contract")
        return ("suit", "betl", "durch")[int(np.argmax(c))] if c.any() else "suit"

    def _bet_levels(self) -> list[int]:
        lv = _block(self._obs(), "bet_level").reshape(4, 8)
        return [int(np.argmax(r)) for r in lv]

    def _describe(self, label: str) -> dict[str, str]:
        """The Czech and English words of ``label`` in the present state."""
        if self.licit:
            return describe_licit(label, licit.next_level(self._obs(), label))
        return describe(label, self._next_level(label), self._contract())

    def _next_level(self, label: str) -> int:
        if label.startswith("flek:"):
            return self._bet_levels()[BETS.index(label[5:])] + 1
        return 1

    def _voleny_table(self, obs: np.ndarray) -> dict[str, Any]:
        """Volený's contract: actor, game, trumps, announcement, bets with their levels."""
        contract = self._contract()
        levels = self._bet_levels()
        trump = _block(obs, "trump_suit")
        trump_card = np.flatnonzero(_block(obs, "trump_card"))
        actor = self._abs(_block(obs, "actor"))
        bets = []
        if actor >= 0:
            exists = _block(obs, "bet_exists")
            for b, name in enumerate(BETS):
                if exists[b]:
                    bets.append({"bet": name, "level": levels[b],
                                 "level_name": level_name(levels[b])})
        announce = _block(obs, "announce")
        return {"contract": {
            "actor": actor if actor >= 0 else None,
            "kind": contract if actor >= 0 else None,
            "trump": SUITS[int(np.argmax(trump))] if trump.any() else None,
            "trump_en": SUIT_NAMES_EN[int(np.argmax(trump))] if trump.any() else None,
            "trump_card": CARD_CODES[int(trump_card[0])] if trump_card.size else None,
            "announce": (("hra", "sedma", "sto", "sto a sedma")[int(np.argmax(announce))]
                         if announce.any() else None),
            "bets": bets,
        }}

    def state(self) -> dict[str, Any]:
        """The JSON-able table as the human sees it (never another seat's cards)."""
        g = self.game
        obs = self._obs()
        legal = g.legal_labels() if self.waiting == "human" else []
        if self.licit:
            table = licit.table(obs, self.human, self.names, g.phase_name)
            hand = licit.hand(obs)
            points, tricks = licit.counts(obs)
            forehand = licit.forhond(obs, self.human)
            heads, roles = licit.CARD_HEADS, licit.ROLES
        else:
            table = self._voleny_table(obs)
            hand_mask = _block(obs, "hand")
            hand = [CARD_CODES[c] for c in
                    cards_of(sum(1 << int(i) for i in np.flatnonzero(hand_mask)))]
            points = np.rint(_block(obs, "points") * 100).astype(int)
            tricks = np.rint(_block(obs, "ntricks") * 10).astype(int)
            forehand = self._abs(_block(obs, "forehand"))
            forehand = forehand if forehand >= 0 else None
            heads, roles = CARD_HEADS, ROLES
        positions = table.pop("positions", {})
        card_legal = {lab.split(":")[1]: lab for lab in legal if _on_card(lab, heads)}
        choices = [self._describe(lab) for lab in legal if not _on_card(lab, heads)]
        seats = []
        for s in range(3):
            rel = (s - self.human) % 3
            seats.append({
                "seat": s, "name": self.names[s], "human": s == self.human,
                "role": roles[(s - forehand) % 3] if forehand is not None else "",
                "position": positions.get(s, ""),
                "score": g.scores[s], "points": int(points[rel]), "tricks": int(tricks[rel]),
                "to_move": not g.deal_over and g.to_move == s,
            })
        cur, last = tricks_seen(obs, self.human, licit.BLOCKS if self.licit else _BLOCKS)
        return {
            "session": self.id, "move": self.move, "rules": self.rules,
            "unit": licit.UNIT if self.licit else "groše",
            "deal": g.deal_no, "deals": g.rules.deals, "phase": g.phase_name,
            "waiting": self.waiting, "human_seat": self.human, "seats": seats,
            "to_move": None if g.deal_over else g.to_move,
            "hand": [{**card_info(c), "label": card_legal.get(c)} for c in hand],
            "choices": choices, "legal": legal, "can_undo": self._undo_ok,
            **table,
            "trick": cur, "last_trick": last,
            "events": [e for e in self.events if e["deal"] == g.deal_no],
            "settlement": self.deals[-1] if g.deal_over and self.deals else None,
            "deal_results": list(self.deals), "scores": g.scores,  # a snapshot
            "records": str(self.records_path),
            "series": series_tables(self.save_dir, self.clock(), self.rules),
        }


def settlement_lines(s: dict[str, Any], names: dict[int, str]) -> list[str]:
    """A deal's settlement line by line, as the table reads it out."""
    con = s["contract"]
    head = f"{names[s['actor']]}: {con}"
    if con == "suit":
        head += f" ({s['trump']}, {s['announcement'].replace('_', ' a ')})"
    lines = [head + f" — {s['end']}"]
    if "points" in s:
        p = s["points"]
        lines.append(f"body / points: actor {p['actor_cards']} + hlášky {p['actor_marriages']}, "
                     f"obrana {p['defence_cards']} + hlášky {p['defence_marriages']}")
    for b in s["bets"]:
        lvl = f" {b['level_name']}" if b.get("level_name") else ""
        kind = b.get("kind", b["bet"])
        silent = f" (tiché sto: {b['silent_hundred']})" if b.get("silent_hundred") else ""
        lines.append(f"{kind}{lvl}: {'vyhráno / won' if b['won'] else 'prohráno / lost'}"
                     f"{silent} {b['amount']:+d}")
    lines.append("platby / payments: " + ", ".join(
        f"{names[i]} {p:+d}" for i, p in enumerate(s["payments"])))
    return lines


__all__ = ["PlaySession", "PlayError", "parse_robots", "check_rules", "settlement_lines",
           "IllegalActionError"]
