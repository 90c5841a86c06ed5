"""One human and two robots at a table (three at volený's four-player table): a whole
partie, without any user interface.

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
import os
import re
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import jsonio
from ..atomic import atomic_open
from ..cards import CARD_CODES, SUITS, cards_of
from ..game import Game, IllegalActionError
from ..games.base import TableView, step_bound
from ..games.registry import game_kind, games
from ..games.voleny.observe import OBS_LAYOUT
from ..records import read_records, save_records
from ..robots import SeatView, check_robot, make_robot, split_robot_specs
from ..robots.base import Robot
from ..rules import is_int, make_rules
from .i18n import LANGS, SUIT_CZ, SUIT_EN, amount, both, flek_prompt, robot_word, t
from .labels import card_info, said
from .series import SeriesMemo

# the games PlaySession plays (the others of the table have a session of their own)
RULES = tuple(k.name for k in games("play") if not k.table_session)
HINT_ROBOT = "table"  # the hint's robot: quick, and it plays every game of the table
# What the human sees of another seat's hidden action (its card stays hidden): a talon
# card, licitovaný's face-down lead, volený's trump card chosen face down (RULES.md §3;
# the table shows it from the human's observation once it is shown, §5.1).
HIDDEN = {"discard": {"cz": "odkládá kartu do talonu", "en": "discards a card"},
          "lead": {"cz": "vynáší kartu lícem dolů", "en": "lays a face-down lead"},
          "trump": {"cz": "volí trumf lícem dolů", "en": "chooses the trump card face down"}}
SESSION_FORMAT = "mariash-session/2"  # /2: each log entry carries its move number
OLD_FORMATS = ("mariash-session/1",)
_BLOCKS = {name: (off, size) for name, off, size, _ in OBS_LAYOUT}  # volený's


# Session and client ids name files and tabs: a strict pattern keeps every path made of
# one inside the save folder (issue #29 item 7).
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


class PlayError(ValueError):
    """A request the table refuses; ``status`` is the HTTP status that fits it, ``code``
    a short machine-readable reason (``stale``, ``settled``, ``follower``...) or None."""

    def __init__(self, message: str, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def make_save_dir(save_dir: Path) -> None:
    """Make the folder the parties are saved in, or a :class:`PlayError` naming it and
    why it cannot be one (a file there or above it, no permission), not the bare
    ``OSError``."""
    try:
        save_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        _save_dir_error(save_dir, e.strerror or str(e))


def check_save_dir(save_dir: Path) -> None:
    """:func:`make_save_dir`'s PlayError for a file where the folder is, or above it,
    without making anything (``--resume``: a folder that is not there has nothing to
    resume, and is not made)."""
    _save_dir_error(save_dir, None)


def _save_dir_error(save_dir: Path, reason: str | None) -> None:
    """Raise the PlayError of a save folder that cannot be one: a file there or above
    it, else ``reason`` (nothing raised without one)."""
    file = next((p for p in (save_dir, *save_dir.parents) if p.is_file()), None)
    why = "it is a file" if file == save_dir else f"{file} is a file" if file else reason
    if why is not None:
        raise PlayError(f"cannot save parties in {save_dir}: {why}; expected a folder it "
                        "can write (--save-dir)") from None


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters: an error names a bad value without
    echoing a 64 KiB one."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"<a deeply nested {type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_id(value: Any, what: str = "session id") -> str:
    """``value`` if it is an id of :data:`ID_PATTERN`; else PlayError (400) naming it."""
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise PlayError(f"invalid {what} {shown(value)}: expected 1 to 64 letters, digits, "
                        "'_' or '-'", 400, "invalid")
    return value


def _write_json(path: Path, obj: Any) -> None:
    with atomic_open(path) as f:
        f.write(jsonio.dumps(obj, ensure_ascii=False, indent=1))


def latest_unfinished(save_dir: str | os.PathLike,
                      unreadable: list[str] | None = None) -> Path | None:
    """The most recently changed saved session whose partie is not over; a file that is
    no session is passed over (named, with why, in ``unreadable``)."""
    found = []
    for p in Path(save_dir).glob("*.session.json"):
        try:
            if not jsonio.read(p).get("over", True):
                found.append((p.stat().st_mtime, p))
        except (OSError, ValueError, AttributeError) as e:
            if unreadable is not None:  # not a session file: nothing to resume there
                why = "nested too deeply" if isinstance(e, jsonio.NestingError) else \
                    "not a JSON object" if isinstance(e, AttributeError) else str(e)
                unreadable.append(f"{p.name} ({shown(why, 100)})")
    return max(found)[1] if found else None


def _on_card(label: str, heads: tuple[str, ...]) -> bool:
    """Whether the label is a click on a card of the hand: its head is one of the game's
    ``heads`` (TableView.card_heads) and it names a card (trump:blind, licitovaný's
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
    for k in range(10):
        cards = np.flatnonzero(played_in[:, k])
        if not cards.size:
            break
        first = int(np.argmax(lead[k]))
        seat_of = {int(c): int(np.argmax(by[:, c])) for c in cards}
        order = sorted(seat_of, key=lambda c: (seat_of[c] - first) % 3)
        tricks.append([{"seat": (seat_of[c] + me) % 3, **card_info(CARD_CODES[c])}
                       for c in order])
    cur = tricks.pop() if tricks and len(tricks[-1]) < 3 else []
    return cur, tricks[-1] if tricks else []


def why_not(code: str, hand: list[str], trick: list[dict[str, Any]], trump: str | None,
            phase: str, my_turn: bool, trump_card: str | None = None,
            seven_rule: bool = True) -> dict[str, str]:
    """Why card ``code`` of the hand may not be played (or discarded) now, in both
    languages, from the rule that forbids it (RULES.md §4, §6; LICITOVANY.md §5, §7); read
    only from what the human knows: the hand, the trick, trumps, the phase.  ``seven_rule``:
    the game holds the trump seven back for the last trick (not lízaný)."""
    suit, rank = code[1], code[0]
    if not my_turn:
        return both("why.not_your_turn")
    if phase == "discard":
        key = "why.ace_ten" if rank in "TA" else "why.trump_card" if code == trump_card \
            else "why.reserved_seven" if rank == "7" and suit == trump else "why.rule"
        return both(key)
    if phase != "play":
        return both("why.phase")
    led = trick[0]["suit"] if trick else None
    has_led = led is not None and any(c[1] == led for c in hand)
    if seven_rule and trump and code == "7" + trump and not (has_led and led != trump):
        return both("why.seven")
    if led is not None:
        if suit != led and has_led:
            return both("why.follow", suit={"cz": SUIT_CZ[led], "en": SUIT_EN[led]})
        if suit == led:
            return both("why.beat")
        if trump and suit != trump and any(c[1] == trump for c in hand):
            return both("why.trump")
        if trump and suit == trump:
            return both("why.beat_trump")
    return both("why.rule")


def tricks_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The finished tricks of a deal from its play events: each trick's cards in the order
    played (seat, code, suit: the words are the page's, every deal's review holds ten)
    and the seat that took it."""
    out, cur = [], []
    for e in events:
        if "card" in e:
            cur.append({"seat": e["seat"], "code": e["card"], "suit": e["card"][1]})
            if "takes" in e:
                out.append({"no": len(out) + 1, "cards": cur, "winner": e["takes"]})
                cur = []
    return out


# every game the table plays: PlaySession's and those with a session of their own
# (lízaný's two seats: lizany_table.py, tables.py)
TABLE_GAMES = tuple(k.name for k in games("play"))


def check_options(rules: str, options: Any) -> dict[str, Any]:
    """The rule options of a partie (``deals``, ``tariff``, ``max_flek`` …) as a dict,
    checked by the rules module; PlayError naming a bad one."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise PlayError(f"invalid options {shown(options)}: expected an object of rule "
                        "options such as {\"deals\": 12}")
    if "rules" in options:  # the game is chosen apart
        raise PlayError("invalid options: 'rules' is not an option of the table (the game "
                        "is chosen by rules)")
    try:  # players=4: volený's four-player table (a RulesError for another game)
        make_rules(rules=rules, **options)
    except (ValueError, TypeError) as e:
        raise PlayError(f"invalid options: {e}") from e
    return dict(options)


def check_rules(rules: str, games: tuple[str, ...] = RULES) -> str:
    if not isinstance(rules, str) or rules not in games:
        raise PlayError(f"unknown rules {shown(rules)}: expected {' or '.join(games)}")
    return rules


def parse_robots(spec: str | Sequence[str], count: int | tuple[int, ...] = 2) -> list[str]:
    """``count`` robot specs (two; three at the four-player table; ``(1, 2)``: one or two)
    from ``"table,onnx:m.onnx"`` (split as every command line splits a robot list:
    :func:`~mariash_env.robots.split_robot_specs`, ``"pimc(worlds=8, time_limit=0.5),table"``
    two robots) or a list; PlayError naming a bad one."""
    counts = (count,) if isinstance(count, int) else count
    try:
        items = split_robot_specs(spec) if isinstance(spec, str) else \
            list(spec) if isinstance(spec, (list, tuple)) else []
    except ValueError as e:  # an unbalanced parenthesis
        raise PlayError(str(e)) from None
    if len(items) not in counts or not all(isinstance(s, str) and s for s in items):
        words = " or ".join({1: "one", 2: "two", 3: "three"}.get(n, str(n)) for n in counts)
        raise PlayError(f"expected {words} robots, e.g. {','.join(['table'] * counts[-1])!r}, "
                        f"got {shown(spec)}")
    return items


_TABLE_WARM: set[tuple[str, int]] = set()


def warm_table(rules: str, options: dict[str, Any]) -> None:
    """Compile (or load) what the table's own requests call in ``rules``' game, once per
    process and game (and count of players), when a table is built -- not in the human's
    first move: the engine's step, settlement and next deal (:class:`~mariash_env.Game`)
    and the world sampler of :meth:`SeatView.shows_hidden` (undo's check of an action that
    shows a hidden card), which no table robot calls.  On an empty numba cache they took
    ~50 s inside the first click, after the robots' announced warm-up (a table audit).  A
    deal of the game played by its first legal moves, each checked as an act checks it;
    announced like the robots' warm-ups (:func:`~mariash_env.compile.compiling_notice`),
    quiet when numba's disk cache holds the kernels."""
    game = Game(rules, **options)
    key = (rules, game.rules.players)
    if key in _TABLE_WARM:
        return
    import sys

    from numba.core.dispatcher import Dispatcher

    from ..compile import compiling_notice
    from ..core.engine import apply_action, deal_decisions

    sampler = sys.modules[game.kind.load("hidden_info").sample_worlds.__module__]
    kernels = (apply_action, *(f for f in vars(sampler).values() if isinstance(f, Dispatcher)))
    with compiling_notice(rules, about="under a minute", what="table's kernels",
                          kernels=kernels):
        game.new_partie(seed=0)
        rng = np.random.default_rng(0)
        tick = step_bound(f"the {rules} table's warm-up deal",
                          int(deal_decisions(game.rules.vector())))
        while not game.deal_over:
            tick()
            label = game.legal_labels()[0]
            SeatView.from_game(game).shows_hidden(game.check(label), rng=rng)
            game.observation(game.to_move)  # the human's, read by every state
            game.step(label)
        game.next_deal()
    _TABLE_WARM.add(key)


def _robot(spec: str, rules: Any = "voleny", build: Any = make_robot) -> Robot:
    """The robot of ``spec`` (``build=check_robot``: only checked, None); PlayError naming
    the spec."""
    try:
        return build(spec, rules=rules)
    except Exception as e:  # a missing ONNX file, a bad argument: name the spec
        raise PlayError(f"cannot seat robot {spec!r}: {e}") from e


class TableSession:
    """What every game's session at the table shares: the checks of a request (its
    session id and move), undo of the human's last action, the files of the partie in the
    save folder.  A subclass has ``id``, ``move``, ``save_dir``, ``log``, ``events``,
    ``_undo_ok``, ``_saving``, ``game``, :attr:`waiting`, :attr:`_deal_over` and
    ``_restart``, ``_apply``, ``_next``, ``advance``, ``checkpoint``, ``state`` and
    ``deal_decisions`` (the most decisions of one deal)."""

    id: str
    rules: str
    move: int
    save_dir: Path
    log: list[tuple[str, Any, int]]
    events: list[dict[str, Any]]
    _undo_ok: bool
    _saving: bool

    def _check(self, session_id: Any, move: Any) -> None:
        if check_id(session_id) != self.id:
            raise PlayError(f"unknown session {session_id!r}: this table plays session "
                            f"{self.id!r} (reload the page)", 404, "unknown_session")
        if isinstance(move, bool) or not isinstance(move, int):
            raise PlayError(f"invalid move {shown(move)}: expected the int move number of "
                            "the state the request answers", 400, "invalid")
        if move != self.move:
            raise PlayError(f"stale request: it answers move {shown(move)}, the table is at "
                            f"move {self.move} (reload the state)", 409, "stale")

    def _expect(self, session_id: Any, move: Any, waiting: str, refusal: str) -> None:
        self._check(session_id, move)
        if self.waiting != waiting:
            raise PlayError(f"{refusal}: the table waits for {self.waiting}", 409, "waiting")

    def next_deal(self, session_id: str, move: Any) -> dict[str, Any]:
        """The next deal (``_next``) once the human has seen the settlement."""
        self._expect(session_id, move, "next_deal", "the deal is not over")
        self._next()
        self._undo_ok = False
        self.checkpoint()
        return self.state()

    def _replay(self, log: list[tuple[str, Any, int]]) -> None:
        """Rebuild the game from the start through ``log`` (nothing saved meanwhile); an
        entry that does not replay raises PlayError naming it."""
        self._restart()
        self._saving = False
        try:
            for i, (kind, val, move) in enumerate(log):
                self.move = move - 1
                try:
                    if kind == "act":
                        self.game.check(val)  # unknown or illegal: refused before worded
                        self._apply(val)
                    else:
                        self._next()
                except ValueError as e:  # IllegalActionError, ActionError, PlayError
                    raise PlayError(f"log entry {i} ({kind} {shown(val)}): {e}") from e
        finally:
            self._saving = True

    def undo(self, session_id: str, move: Any) -> dict[str, Any]:
        """Take back the human's last action while no robot has acted after it and the
        deal is not settled (a settled deal is saved, and a saved record stays)."""
        self._check(session_id, move)
        if self._deal_over:
            raise PlayError("cannot undo: the deal is settled and its record saved (undo "
                            "ends at the settlement)", 409, "settled")
        if not self._undo_ok:
            raise PlayError("nothing to undo: only your last action, before the next "
                            "robot acts", 409, "nothing_to_undo")
        # The engine has no undo: replay the partie (same seed, same cuts) without the
        # last action.  The replay must not log the moves again as shown events.
        events, move = self.events[:-1], self.move
        self._replay(self.log[:-1])
        self.events, self.move, self._undo_ok = events, move + 1, False
        self.checkpoint()
        return self.state()

    def _file(self, suffix: str) -> Path:
        """``<save_dir>/<id><suffix>``, refused unless it resolves inside the save folder
        (a link out of it, issue #29 item 7; the id itself cannot name another folder)."""
        path = self.save_dir / f"{self.id}{suffix}"
        root = self.save_dir.resolve()
        if path.resolve().parent != root:
            raise PlayError(f"refusing {str(path)!r}: it resolves outside the save folder "
                            f"{str(root)!r}", 403, "outside")
        return path

    @property
    def session_path(self) -> Path:
        return self._file(".session.json")

    @property
    def records_path(self) -> Path:
        return self._file(".jsonl")

    def run_robots(self) -> dict[str, Any]:
        """Let the robots move until the human is to act or the deal is over: at most
        :attr:`deal_decisions` moves (StuckGameError past them: the engine does not move
        on)."""
        tick = step_bound(f"the {self.rules} table's robot moves", self.deal_decisions)
        while self.waiting == "robot":
            tick()
            self.advance(self.id, self.move)
        return self.state()



class PlaySession(TableSession):
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
        options: dict[str, Any] | None = None,
    ) -> None:
        check_rules(rules)
        self.options = check_options(rules, options)
        self.players = n = make_rules(rules=rules, **self.options).players
        if isinstance(human_seat, bool) or not isinstance(human_seat, int) or \
                not 0 <= human_seat < n:
            raise PlayError(f"invalid human seat {shown(human_seat)}: expected "
                            f"{', '.join(map(str, range(n - 1)))} or {n - 1}")
        if seed is not None and (not is_int(seed) or seed < 0):
            raise PlayError(f"invalid seed {shown(seed)}: expected an int >= 0 or None")
        if not isinstance(name, str) or not name:
            raise PlayError(f"invalid name {shown(name)}: expected a non-empty string")
        specs = parse_robots(robots, n - 1)
        self.specs, self.name = specs, name
        self.rules = rules
        # what the table shows of the game: the registry's per-game view
        self.view: TableView = game_kind(rules).load("table_view")
        self.human = human_seat
        self.clock = clock or (lambda: dt.datetime.now(dt.timezone.utc))
        self.seed = int(seed) if seed is not None else secrets.randbelow(2**31)
        self.id = secrets.token_hex(6) if session_id is None else check_id(session_id)
        self.save_dir = Path(save_dir)
        self.series = SeriesMemo(self.save_dir, rules, n)
        make_save_dir(self.save_dir)
        for suffix in (".session.json", ".jsonl", ".json"):  # refused now, not mid-deal
            self._file(suffix)
        robot_seats = [s for s in range(n) if s != human_seat]
        for sp in specs:  # all checked before any is built: a bad second robot is named
            _robot(sp, {"rules": rules, "players": n}, check_robot)  # before the first's
            # warm-up (a compile of ~30 s on an empty numba cache)
        self.robots: dict[int, Robot] = {s: _robot(sp, {"rules": rules, "players": n})
                                         for s, sp in zip(robot_seats, specs)}
        warm_table(rules, self.options)
        self.names = {s: (name if s == human_seat else f"robot {self._spec_name(specs, s)}")
                      for s in range(n)}
        self.names = {s: f"{n} ({s})" if list(self.names.values()).count(n) > 1 else n
                      for s, n in self.names.items()}
        # the names as each language shows them: "vy" for the default "you", the robots'
        # kinds in words (the saved summaries keep ``names``, the series matches on them)
        self.shown_names = {k: {s: self._shown(s, k) for s in range(n)} for k in LANGS}
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

    @property
    def deal_decisions(self) -> int:
        """The most decisions of a deal of this game (``core.engine.deal_decisions``)."""
        from ..core.engine import deal_decisions

        return int(deal_decisions(self.game.rules.vector()))

    def _shown(self, seat: int, lang: str) -> str:
        name = self.names[seat]
        if seat == self.human:
            return t("you", lang) if self.name == "you" else name
        spec = self._spec_name(self.specs, seat)
        return name.replace(f"robot {spec}", f"robot {robot_word(spec, lang)}", 1)

    def _spec_name(self, specs: list[str], seat: int) -> str:
        i = [s for s in range(self.players) if s != self.human].index(seat)
        return specs[i]

    def _new_game(self) -> None:
        self.game = Game(self.rules, **self.options)
        self.game.new_partie(seed=self.seed)
        self._begin_deal()

    def _begin_deal(self) -> None:
        g = self.game
        # the hands as dealt (and licitovaný's talon), shown in the deal's review once it
        # is settled; never in the state before
        self._dealt = [[CARD_CODES[c] for c in cards_of(g.hand(s))] for s in range(self.players)]
        held = {c for h in self._dealt for c in h}
        self._talon = [c for c in CARD_CODES if c not in held]
        for s, r in self.robots.items():
            r.begin_deal((self.seed * 1_000_003 + 97 * self.game.deal_no + s) % 2**63)

    # --- requests ---------------------------------------------------------------------
    @property
    def _deal_over(self) -> bool:
        return self.game.deal_over

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
            raise PlayError(f"invalid action {shown(label)}: expected an action label "
                            f"string, legal now: {self.game.legal_labels()}", 400, "invalid")
        if label not in self.game.legal_labels():
            raise PlayError(f"illegal action {shown(label)}: legal now are "
                            f"{self.game.legal_labels()}", 422, "illegal")
        # no undo of an action that showed a hidden card (the rest of the hand after the
        # trump choice, the talon, a face-down lead turned up): the human would choose
        # again knowing it
        shows = SeatView.from_game(self.game, self.human).shows_hidden(
            self.game.check(label), rng=np.random.default_rng([self.seed, self.move]))
        self._apply(label)
        # undo ends at the settlement: a settled deal is saved and stays (issue #29 item 4)
        self._undo_ok = not self.game.deal_over and not shows
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

    def _restart(self) -> None:
        """Back to the partie's first state (the same seed, the same cuts)."""
        self.log, self.deals, self.events, self.move = [], [], [], 0
        self._new_game()

    # --- resuming after a restart -----------------------------------------------------
    def checkpoint(self) -> None:
        """Write what rebuilds this session (:meth:`resume`): its set-up and every change."""
        _write_json(self.session_path, {
            "format": SESSION_FORMAT, "id": self.id, "rules": self.rules, "seed": self.seed,
            "robots": self.specs, "human_seat": self.human, "name": self.name,
            "started": self.started, "move": self.move, "over": self.game.partie_over,
            "undo_ok": self._undo_ok, "options": self.options,
            "log": [list(e) for e in self.log]})

    @classmethod
    def resume(cls, path: str | os.PathLike, **kw: Any) -> PlaySession:
        """The session saved at ``path`` (a ``*.session.json``), at the move it was left;
        PlayError naming the file and what is wrong with it otherwise."""
        path = Path(path)
        try:
            d = _session_file(path)
            s = cls(d["robots"], save_dir=path.parent, human_seat=d["human_seat"],
                    name=d["name"], seed=d["seed"], rules=d["rules"], session_id=d["id"],
                    options=d.get("options"), **kw)
            s.started = d["started"]
            s._replay(d["log"])
            s.move, s._undo_ok = d["move"], d["undo_ok"] and not s.game.deal_over
            saved = _count_records(s.records_path)
            if saved > len(s.game.records):  # a save would drop records: keep them
                raise PlayError(f"its log rebuilds {len(s.game.records)} finished deal(s) "
                                f"but {str(s.records_path)!r} holds {saved}")
        except PlayError as e:
            raise PlayError(f"cannot resume {str(path)!r}: {e}", e.status, e.code) from e
        return s

    def hint(self, session_id: str, move: Any) -> dict[str, str]:
        """What the table robot would do in the human's seat now, from that seat's view
        only (the hint knows no card the human does not): ``{"label", "cz", "en"}``."""
        self._expect(session_id, move, "human", "no hint now")
        g = self.game
        robot = _robot(HINT_ROBOT, {"rules": self.rules, "players": self.players})
        robot.begin_deal((self.seed * 1_000_003 + 7919 * self.move) % 2**63)
        label = g.kind.action_label(g.check(int(robot.act_view(SeatView.from_game(
            g, self.human)))))
        return self._describe(label)

    # --- changes ----------------------------------------------------------------------
    def _apply(self, label: str) -> None:
        g = self.game
        seat = g.to_move
        head, _, tail = label.partition(":")
        words = said(self._describe(label))  # "pokládá karty", not the button's word
        # another seat's talon card, face-down lead or trump card: a card action of the
        # game's (licitovaný's trump:b names a suit, public, LICITOVANY.md §5)
        if seat != self.human and head in HIDDEN and head in self.view.card_heads:
            words = {"label": head, **HIDDEN[head]}
        before = self._obs()
        # a flek turn is one entry: its closing "dobrá" after a raise of that turn (the
        # same seat's last move) is folded into it, the turn ending implicitly (RULES.md
        # §5.3, LICITOVANY.md's flek turns; found by a table audit)
        flek = g.phase_name == "flek"
        last = self.events[-1] if self.events else None
        folded = flek and head == "good" and last is not None and \
            last.get("flek_raise") and last["seat"] == seat and last["deal"] == g.deal_no
        ended = g.step(label)  # legal: checked by the caller or chosen from the mask
        self.move += 1
        self.log.append(("act", label, self.move))
        event = {"move": self.move, "deal": g.deal_no, "seat": seat,
                 "name": self.names[seat], **words}
        if flek and head != "good":
            event["flek_raise"] = True
        elif folded:
            event["folded"] = True  # kept for undo, which drops the human's last event
        if head == "play":
            news = self._play_news(before, self._obs(), tail)
            for k in LANGS:
                event[k] += news.pop(k)
            event.update(news)
        self.events.append(event)
        if head != "play":
            self._auto_played(before)
        if ended:
            self._finish_deal()

    def _auto_played(self, before: np.ndarray) -> None:
        """A card the rules played by themselves with that action (licitovaný's face-down
        lead of betl and durch, turned up when flekking ends): its own play event, read
        from the human's observation, so the felt, the tricks and the review hold it."""
        after = self._obs()
        was, now = (tricks_seen(o, self._viewer(), self.view.blocks)[0]
                    for o in (before, after))
        g = self.game
        for p in now[len(was):]:
            seat = g.player(p["seat"])
            event = {"move": self.move, "deal": g.deal_no, "seat": seat,
                     "name": self.names[seat], **self._describe(f"play:{p['code']}")}
            news = self._play_news(before, after, p["code"])
            for k in LANGS:
                event[k] += news.pop(k)
            self.events.append({**event, **news})

    def _play_news(self, before: np.ndarray, after: np.ndarray, card: str) -> dict[str, Any]:
        """What a played card made public, read from the human's observation before and
        after it: the card, a marriage it announced (RULES.md §7) and, when it closed the
        trick, who takes it ("bere …")."""
        blocks = self.view.blocks
        out: dict[str, Any] = {"card": card}
        new = np.flatnonzero(_block(after, "marriage", blocks) > _block(before, "marriage",
                                                                         blocks))
        words = {k: "" for k in LANGS}
        if new.size:
            suit = SUITS[int(new[0]) // 3]
            trump = _block(after, "trump_suit", blocks)
            points = 40 if trump.any() and SUITS[int(np.argmax(trump))] == suit else 20
            out["marriage"] = {"suit": suit, "points": points}
            for k in LANGS:
                words[k] += f" · {t('marriage.short', k, points=points)}"
        took = np.flatnonzero(_block(after, "ntricks", blocks) > _block(before, "ntricks",
                                                                        blocks))
        if took.size:
            winner = self.game.player(int((took[0] + self._viewer()) % 3))
            out["takes"] = winner
            for k in LANGS:
                words[k] += " · " + (t("takes.you", k) if winner == self.human else
                                     t("takes", k, name=self.shown_names[k][winner]))
        return {**words, **out}

    def _next(self) -> None:
        if not self.game.deal_over:
            raise PlayError("the deal is not over", 409, "waiting")
        if not self.game.next_deal():
            raise PlayError("the partie is over", 409, "waiting")
        self.move += 1
        self.log.append(("next", None, self.move))
        self.events = [e for e in self.events if e["deal"] == self.game.deal_no]
        self._begin_deal()

    def _finish_deal(self) -> None:
        s = self.game.last_settlement
        assert s is not None
        words = self.view.settlement_lines
        facts = self.view.facts(self.game) if self.view.facts else None  # the reasons
        lines = {k: words(s, self.shown_names[k], k, facts) for k in LANGS}
        self.deals.append({"deal": self.game.deal_no, "lines": lines, "actor": s.get("actor"),
                           "payments": s["payments"], "scores": self.game.scores,
                           "review": self._review()})
        if self._saving:
            self.save()

    def _public(self, deal: dict[str, Any]) -> dict[str, Any]:
        """A settled deal as the page may show it.  The next deals are dealt from its
        cards, gathered and cut, never shuffled (RULES.md §2, LICITOVANY.md §2): while the
        partie goes on its review opens only what the human saw -- its own hand, the
        cards each seat played, the talon and discards if it was the actor -- and every
        other card once the partie is over."""
        if self.game.partie_over:
            return deal  # every card: the page heads it "as dealt"
        r, me = deal["review"], self.human
        played: dict[int, set[str]] = {}
        for trick in r["tricks"]:
            for c in trick["cards"]:
                played.setdefault(c["seat"], set()).add(c["code"])
        mine = deal.get("actor") == me
        hands = [h if s == me else [c for c in h if c in played.get(s, ())]
                 for s, h in enumerate(r["hands"])]
        # "complete": False -- the page says "known cards", not "as dealt"; a talon the
        # human took up it saw
        return {**deal, "review": {**r, "hands": hands, "talon": r["talon"] if mine else [],
                                   "discards": r["discards"] if mine else [],
                                   "taken": [x for x in r["taken"] if x["seat"] == me],
                                   "complete": False}}

    def _review(self) -> dict[str, Any]:
        """The settled deal laid open: every hand as dealt, the talon (licitovaný's dealt
        one), the actor's discards, and every trick with who took it."""
        deal = self.game.deal_no
        actions = self.game.records[-1]["actions"] if self.game.records else []
        discards = [lab[8:] for _, lab in actions if lab.startswith("discard:")]
        # each pair of discards by one seat; a later pair's seat took the one before up
        # (volený's betl or durch bid, RULES.md §4)
        pairs: list[tuple[int, list[str]]] = []
        for seat, lab in actions:
            if lab.startswith("discard:"):
                if not pairs or pairs[-1][0] != seat or len(pairs[-1][1]) == 2:
                    pairs.append((seat, []))
                pairs[-1][1].append(lab[8:])
        return {"hands": self._dealt, "talon": self._talon if self.view.talon else [],
                "discards": discards[-2:],  # the final talon's two
                "taken": [{"seat": b[0], "cards": a[1]} for a, b in zip(pairs, pairs[1:])],
                "tricks": tricks_of([e for e in self.events if e["deal"] == deal])}

    # --- saving -----------------------------------------------------------------------
    def save(self) -> None:
        """The records of the finished deals and the partie's summary, written atomically."""
        save_records(self.records_path, self.game.records)
        wins = [0] * self.players
        for rec in self.game.records:
            s = rec["settlement"]
            if self.view.actor_won(s):
                wins[s["actor"]] += 1
        meta = {
            "id": self.id, "rules": self.rules, "seed": self.seed, "started": self.started,
            "finished": self.clock().isoformat(), "deals": len(self.game.records),
            "complete": self.game.partie_over, "human_seat": self.human,
            "seats": self.players,
            "players": [{"seat": s, "name": self.names[s], "score": self.game.scores[s],
                         "actor_wins": wins[s]} for s in range(self.players)],
        }
        _write_json(self._file(".json"), meta)
        self.series.forget()

    # --- what the human sees ----------------------------------------------------------
    def _obs(self) -> np.ndarray:
        """The human's observation of the deal: at four its first block, the three-seat
        observation of the deal from the human's seat in it (RULES.md §11.3)."""
        return self.game.observation(self.human)[:self.game.kind.obs_size]

    def _viewer(self) -> int:
        """The seat of the deal :meth:`_obs` sees from: the human's (at four, forehand's
        while the human deals and sits out: that observation's relative seats)."""
        g = self.game
        return 0 if g.sitting_out == self.human else g.core_seat(self.human)

    def _role(self, roles: tuple[str, ...], k: int) -> str:
        """The role of the seat ``k`` places from forehand; at four the third plays the
        dealer's part while the dealer sits out (RULES.md §11.3): "third"."""
        return "third" if self.players == 4 and k == 2 else roles[k]

    def _deal_names(self) -> dict[str, dict[int, str]]:
        """The shown names by seat of the deal (at three the players themselves)."""
        return {k: {c: self.shown_names[k][self.game.player(c)] for c in range(3)}
                for k in LANGS}

    def _describe(self, label: str) -> dict[str, str]:
        """The Czech and English words of ``label`` in the present state."""
        return self.view.describe(self._obs(), label)

    def state(self) -> dict[str, Any]:
        """The JSON-able table as the human sees it (never another seat's cards)."""
        g = self.game
        obs = self._obs()
        legal = g.legal_labels() if self.waiting == "human" else []
        view = self.view
        me = self._viewer()  # the table view reads the deal's seats from here
        table = view.table(obs, me, self._deal_names(), g.phase_name)
        if table["contract"].get("actor") is not None:
            table["contract"]["actor"] = g.player(table["contract"]["actor"])
        hand = view.hand(obs)  # none while the human sits out (its observation has none)
        points, tricks = view.counts(obs)
        forehand = view.forehand(obs, me)
        heads, roles = view.card_heads, view.roles
        positions = {g.player(c): p for c, p in table.pop("positions", {}).items()}
        card_legal = {lab.split(":")[1]: lab for lab in legal if _on_card(lab, heads)}
        # marked in the hand from the human's own observation only: the talon cards it
        # took up, until its discards bring the hand back to ten (volený's bad or durch,
        # RULES.md §4; licitovaný's talon); its own trump card lying aside face down (§3)
        taken = {CARD_CODES[int(c)] for c in np.flatnonzero(_block(obs, "took", view.blocks))} \
            if len(hand) > 10 and "took" in view.blocks else set()
        aside = table["contract"].get("trump_aside")
        choices = [self._describe(lab) for lab in legal if not _on_card(lab, heads)]
        seats = []
        for s in range(self.players):
            out = s == g.sitting_out  # the dealer at four: no cards, no turn
            c = None if out else g.core_seat(s)
            rel = 0 if out else (c - me) % 3
            seats.append({
                "seat": s, "name": self.names[s], "human": s == self.human,
                "names": {k: self.shown_names[k][s] for k in LANGS},
                "role": "sitting_out" if out else
                        self._role(roles, (c - forehand) % 3) if forehand is not None else "",
                "position": positions.get(s, ""), "sitting_out": out,
                "score": g.scores[s], "points": 0 if out else int(points[rel]),
                "score_text": {k: amount(g.scores[s], g.kind.units, k) for k in LANGS},
                "tricks": 0 if out else int(tricks[rel]),
                "to_move": not g.deal_over and g.to_move == s,
            })
        cur, last = (
            [[{**p, "seat": g.player(p["seat"])} for p in trick] for trick in
             tricks_seen(obs, me, view.blocks)])
        return {
            "session": self.id, "move": self.move, "rules": self.rules,
            "setup": {"rules": self.rules, "robots": list(self.specs), "seat": self.human,
                      "options": dict(self.options)},  # what a new partie plays again
            "unit": g.kind.units,
            "deal": g.deal_no, "deals": g.rules.deals, "phase": g.phase_name,
            "waiting": self.waiting, "human_seat": self.human, "seats": seats,
            "players": self.players, "sitting_out": g.sitting_out,
            "to_move": None if g.deal_over else g.to_move,
            "hand": [{**card_info(c), "label": card_legal.get(c),
                      "taken": c in taken, "trump_card": c == aside,
                      "why": None if c in card_legal else why_not(
                          c, hand, cur, table["contract"]["trump"], g.phase_name,
                          self.waiting == "human", table["contract"].get("trump_card"))}
                     for c in hand],
            "tricks": tricks_of([e for e in self.events if e["deal"] == g.deal_no]),
            "choices": choices, "legal": legal,
            # the flek turn's prompt from its legal moves: a turn may offer no flek
            "prompt": flek_prompt(choices) if choices and g.phase_name == "flek" else None,
            "can_undo": self._undo_ok and not g.deal_over,
            **table,
            "trick": cur, "last_trick": last,
            "events": [e for e in self.events if e["deal"] == g.deal_no
                       and not e.get("folded")],
            "settlement": self._public(self.deals[-1]) if g.deal_over and self.deals else None,
            "deal_results": [self._public(d) for d in self.deals], "scores": g.scores,
            "records": str(self.records_path),
            "series": self.series.tables(self.clock()),
        }


SESSION_KEYS = ("id", "rules", "seed", "robots", "human_seat", "name", "started", "move",
                "undo_ok", "log")


def _session_file(path: Path) -> dict[str, Any]:
    """The fields of a saved session, each checked (PlayError naming the first bad one);
    ``log`` as ``(kind, value, move)`` entries (a /1 entry ``[kind, value]`` had no move
    number: the moves in order)."""
    try:
        d = jsonio.read(path)
    except (OSError, UnicodeDecodeError) as e:
        raise PlayError(f"cannot read it ({e})") from e
    except jsonio.DuplicateKeyError as e:  # not the last value taken, silently
        raise PlayError(f"{e}: expected each key once") from None
    except jsonio.NestingError:
        raise PlayError("not JSON (nested too deeply)") from None
    except ValueError as e:
        raise PlayError(f"not JSON ({e})") from e
    if not isinstance(d, dict):
        raise PlayError(f"expected a JSON object, got a JSON {type(d).__name__}")
    if d.get("format") not in (SESSION_FORMAT, *OLD_FORMATS):
        raise PlayError(f"format {shown(d.get('format'))}: expected {SESSION_FORMAT!r}")
    missing = [k for k in SESSION_KEYS if k not in d]
    if missing:
        raise PlayError(f"missing field {missing[0]!r}")
    if not isinstance(d["started"], str):
        raise PlayError(f"invalid started {shown(d['started'])}: expected an ISO time string")
    if not isinstance(d["undo_ok"], bool):
        raise PlayError(f"invalid undo_ok {shown(d['undo_ok'])}: expected true or false")
    if not isinstance(d["log"], list):
        raise PlayError(f"invalid log {shown(d['log'])}: expected a list of entries")
    log, last = [], 0
    for i, e in enumerate(d["log"]):
        if not isinstance(e, list) or len(e) not in (2, 3):
            raise PlayError(f"log entry {i} is {shown(e)}: expected [kind, value, move]")
        kind, val, move = e[0], e[1], e[2] if len(e) == 3 else last + 1
        if not (kind == "act" and isinstance(val, str) or kind == "next" and val is None):
            raise PlayError(f"log entry {i} is {shown(e)}: expected [\"act\", label, move] "
                            "or [\"next\", null, move]")
        if isinstance(move, bool) or not isinstance(move, int) or move < max(last, 1):
            raise PlayError(f"log entry {i} has move {shown(move)}: expected an int from 1, "
                            f"not below the entry before's {last}")
        log.append((kind, val, move))
        last = move
    move = d["move"]
    if isinstance(move, bool) or not isinstance(move, int) or move < last:
        raise PlayError(f"invalid move {shown(move)}: expected an int, at least the log's "
                        f"last move {last}")
    return {**d, "log": log}


def _count_records(path: Path) -> int:
    """The records saved at ``path`` (0 when there is no file yet), counted as
    :func:`~mariash_env.records.read_records` reads them: its non-blank lines, split at
    ``\\n`` only, a damaged one too (text-mode lines also ended at a raw ``\\r``: a
    record with one between its JSON tokens counted as two)."""
    try:
        return sum(1 for _ in read_records(path))
    except FileNotFoundError:
        return 0
    except OSError as e:
        raise PlayError(f"cannot read {str(path)!r} ({e})") from e


def settlement_lines(s: dict[str, Any], names: dict[int, str], lang: str = "cz",
                     facts: dict[str, Any] | None = None) -> list[str]:
    """A volený deal's settlement in words, line by line, in ``lang`` (volený's table view,
    :func:`mariash_env.games.voleny.play.settlement_lines`; this old name stays)."""
    return game_kind("voleny").load("table_view").settlement_lines(s, names, lang, facts)


__all__ = ["PlaySession", "PlayError", "parse_robots", "check_rules", "check_id",
           "settlement_lines", "IllegalActionError", "ID_PATTERN"]
