"""
# Lízaný mariáš (two players)

| | |
|---|---|
| Import | `from mariash_env import lizany; env = lizany.env()` |
| Actions | Discrete(32): `play:<card>` |
| Parallel API | no (turn-based AEC) |
| Batched engine | `mariash_env.vector.VectorEnv(num_envs, rules="lizany")` (compiled) |
| Agents | `agents = ["player_0", "player_1"]` |
| Observation shape | `{"observation": float32[221], "action_mask": int8[32]}` |
| State shape | float32[285] (perfect information) |
| Reward | ±1 to the player with more points, ±2 when the loser took no trick; zero-sum |

The two-player mariáš of the English guide ("Two players (lízaný): 8 cards each, the rest form a
stock.  Draw after each trick; once the stock is empty, follow suit and beat if you
can").  It plays on the main game's card vocabulary (``core/tricks.py``: rank order,
beating, the trick winner, RULES.md §6's follow-and-beat rule, §7's marriage rule) and
card points (``core/tables.py``); nothing of a rule is written twice.  The rules run
compiled (:mod:`mariash_env.games.lizany.core`: a deal is a compact ``int32`` record, ``st``
of :class:`LizanyGame`), the same functions the batched engine
(``VectorEnv(n, rules="lizany")``) steps.  The seed is brief; these are the decisions,
after common table practice:

## The deal
* 32 cards.  One episode is one deal.  The deck is read from the top: positions 0–7 are
  ``player_0``'s hand, 8–15 ``player_1``'s, position 16 is turned up and names trumps (the
  *trump card*, public), 17–31 are the stock, face down.  The trump card lies under the
  stock and is the last card drawn.
* ``player_0`` leads the first trick.  (The arena evens out the lead by playing every
  deck in both seatings.)

## Play
* A trick is two cards; the higher card of the led suit wins, or the higher trump
  (RULES.md §6 ranking: ``7 8 9 J Q K T A``).  The winner leads the next trick.
* **While the stock lasts** any card of the hand may be played: no obligation to follow,
  beat or trump.  After each such trick the winner draws the top card of the stock, then
  the other player; after the 8th trick the stock is gone and the loser of that trick
  has drawn the trump card.
* **Once the stock is empty** (tricks 9–16) the follower must follow suit and beat if it
  can; void in the led suit, trump (and beat a led trump) if it can; otherwise any card —
  RULES.md §6 for two players (the same function as the three-seat game).
* No exchange of the trump seven for the trump card and no closing of the stock: some
  tables play them; this version does not.

## Marriages (hlášky)
* **Decision: credited automatically**, as RULES.md §7: playing a K or Q while holding the
  other of its suit announces the marriage — 20, 40 in trumps — for its player, whoever
  wins the trick, whether leading or following, with or without the stock.  There is no
  separate marriage action, so every action is a ``play:<card>``; the partner card is
  then known to the opponent (it appears in the opponent's ``opp_known`` block).

## Points and rewards
* Each ace and ten taken in tricks is 10, the last (16th) trick 10: 90 card points.  A
  player's points are its card points plus its marriages.
* The player with more points wins: reward +1, the other −1; **+2/−2 when the loser took
  no trick**.  **Decision: equal points** — the winner of the last trick wins the deal
  (it earned the last 10); it never applies, as the points are never equal (every count
  is tens, and the two together, 90 plus marriages of 20 and 40, an odd number of tens).
  Marriages count without a trick: all four (100) beat the 90 of a seat that took every
  trick.  The rewards sum to zero.

## Actions, observations, state
``play:<card>`` for the 32 cards (index = card index, ``ACTION_LABELS``); ``action_mask``
holds exactly the legal cards of the agent to move (all zero for the other).  The
observation (float32 in [0, 1], layout ``OBS_LAYOUT``) shows the seat's own hand, the
trump card and suit, every card played by itself and by the opponent, the card on the
table, the opponent's cards known from public play (the trump card once it drew it, the
partner of a marriage it announced), the marriages of both, the stock's size, points,
marriage points and tricks of both, whose lead and turn, the trick number and its own
seat.  It never shows the opponent's other cards or the order of the stock.
``state()`` is ``player_0``'s observation followed by ``player_1``'s hand and the stock
in drawing order (each card's place, ``(k + 1)/16``).

## Reset options and records
``env.reset(seed=..., options={"deck": [...]})``: ``deck`` is the 32 cards from the top
(codes like ``"Qh"`` or indices, in a list, tuple or 1-D array; a malformed one raises
:class:`~mariash_env.cards.CardError`), else the deck is shuffled from ``seed``, an int >= 0
(the same seed gives the same deal).  A bad seed or ``options`` that are not a dict raise
:class:`~mariash_env.game.OptionError`.  ``env.unwrapped.record`` is the finished deal's record
(deck, ``[seat, label]`` actions, rules and result); :func:`replay` plays it again and
checks every field (:class:`~mariash_env.records.RecordError`).  An illegal action raises
:class:`~mariash_env.game.IllegalActionError` naming the legal labels (nothing applied);
an unknown label :class:`~mariash_env.actions.ActionError`.  ``render_mode="ansi"``:
``render()`` returns the table as text (``"human"`` prints it).

## Infos
``infos[agent]`` holds ``"phase"`` (an index into :data:`PHASE_NAMES`: ``stock`` while
the stock lasts, ``endgame`` once it is gone, ``done``), ``"deal"`` (0: one deal an
episode) and ``"settlement_deal"`` (0 on the step the deal ends, else -1), and on that
step ``"settlement"``: the deal's result (points, marriages, tricks, rewards), as the
record holds it, with ``"payments"`` per seat (the rewards, as every game's settlement
names them); ``env(rules="lizany", stack_infos=True)`` leaves it out (the same three
ints on every step).  After the episode ``last()`` answers each agent's final values and
a further ``step`` raises ``RuntimeError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ...cards import CARD_CODES, NCARDS, SUIT_NAMES_CZ, cards_of, parse_deck, pretty
from ...copies import independent_copy
from ...core.state import MASK32
from ...game import (
    EpisodeSeeds,
    IllegalActionError,
    OptionError,
    check_render_mode,
    check_seed,
    reset_options,
)
from ...rules import action_int, is_int
from ...spaces import AgentSpaces
from . import core as C
from .actions import (  # noqa: F401 (re-exported: mariash_env.lizany's names)
    ACTION_LABELS,
    AGENTS,
    FORMAT,
    N_ACTIONS,
    OBS,
    OBS_LAYOUT,
    OBS_SIZE,
    RULES,
    SC_DONE,
    SC_EMPTY,
    SC_LEAD,
    SC_LED_BY_ME,
    SC_MARR_ME,
    SC_MARR_OPP,
    SC_PTS_ME,
    SC_PTS_OPP,
    SC_SEAT,
    SC_STOCK,
    SC_TO_MOVE,
    SC_TOTAL_ME,
    SC_TOTAL_OPP,
    SC_TRICK,
    SC_TRICKS_ME,
    SC_TRICKS_OPP,
    SC_WON,
    STATE_SIZE,
    TABLE,
    action_index,
    action_label,
)
from .kind import KIND

__all__ = ["env", "raw_env", "LizanyGame", "replay", "AGENTS", "PHASE_NAMES", "ACTION_LABELS",
           "N_ACTIONS", "OBS_LAYOUT", "OBS_SIZE", "STATE_SIZE", "RULES", "FORMAT",
           "action_index", "action_label"]

HAND = C.HAND_SIZE
TRUMP_POS = C.TRUMP_POS  # the turned-up card's deck position
N_TRICKS = C.N_TRICKS
STOCK = C.STOCK_SIZE  # 15 face down + the trump card
LAST_TRICK = C.LAST_TRICK
_BITS = 1 << np.arange(NCARDS, dtype=np.int64)


def mask_from(vec: np.ndarray) -> int:
    """The card set of a 32-slot 0/1 block of an observation."""
    return int(_BITS[np.asarray(vec[:NCARDS]) > 0.5].sum())


def _slot(value: int, card_set: bool, bounds: tuple[int, int] | None = None,
          name: str = "") -> int:
    """``value`` as an int32 slot holds it (a card set's bit 31 as the sign); ValueError
    for a card set beyond 32 bits or an index field outside ``bounds`` (the compiled core
    indexes with them and checks no bounds)."""
    v = int(value)
    if card_set and not 0 <= v < 1 << 32:
        raise ValueError(f"{name} = {value!r}: expected a set of the 32 cards (0..2**32-1)")
    if bounds is not None and not bounds[0] <= v <= bounds[1]:
        raise ValueError(f"{name} = {value!r}: expected {bounds[0]}..{bounds[1]}")
    return v - (1 << 32) if card_set and v >= 1 << 31 else v


class _Slots:
    """Consecutive slots of a game's state (the two hands, points, ...) as the list they
    were: indexing, item assignment (``g.hands[1] |= bit``), iteration, ``==`` a list."""

    __slots__ = ("_st", "_off", "_n", "_set", "_field")

    def __init__(self, st: np.ndarray, off: int, n: int, card_set: bool,
                 field: _Field) -> None:
        self._st, self._off, self._n, self._set = st, off, n, card_set
        self._field = field

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return list(self)[i]
        v = int(self._st[self._off + range(self._n)[i]])
        return v & MASK32 if self._set else v

    def __setitem__(self, i: int, value: int) -> None:
        f = self._field
        self._st[self._off + range(self._n)[i]] = _slot(value, self._set, f.bounds, f.name)

    def __iter__(self) -> Any:
        return (self[i] for i in range(self._n))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (list, _Slots)) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the lists were

    def __repr__(self) -> str:
        return repr(list(self))


class _Field:
    """A field of :data:`core.LZ_LAYOUT` as an attribute of :class:`LizanyGame`: an int
    (a bool for ``over``), or a :class:`_Slots` list view; assignable as before."""

    def __init__(self, name: str, card_set: bool = False, kind: type = int,
                 bounds: tuple[int, int] | None = None) -> None:
        self.name = name
        self.off = C.LZ_OFFSETS[name]
        self.n = C.LZ_SLOTS[name]
        self.card_set, self.kind, self.bounds = card_set, kind, bounds

    def __get__(self, g: Any, owner: type) -> Any:
        if g is None:
            return self
        if self.n == 1:
            return self.kind(g.st[self.off])
        return _Slots(g.st, self.off, self.n, self.card_set, self)

    def __set__(self, g: Any, value: Any) -> None:
        if self.n == 1:
            g.st[self.off] = _slot(value, False, self.bounds, self.name)
            return
        values = [_slot(v, self.card_set, self.bounds, self.name) for v in value]
        if len(values) != self.n:
            raise ValueError(f"{self.name}: expected {self.n} values, got {values!r}")
        g.st[self.off:self.off + self.n] = values  # all checked: nothing half-written


def seeded_deck(seed: int | None) -> np.ndarray:
    """The deck of ``LizanyGame(seed=seed)``: shuffled by numpy's generator of ``seed``
    (an int >= 0; None: fresh entropy)."""
    return np.random.default_rng(check_seed(seed)).permutation(NCARDS)


class LizanyGame:
    """One deal of lízaný (see the module documentation for the rules) on the compiled core
    (:mod:`mariash_env.games.lizany.core`): the deal is the ``int32`` record ``st``; card
    sets read as 32-bit masks.  ``play(card)`` plays for the seat to move."""

    hands = _Field("hand", card_set=True)
    played = _Field("played", card_set=True)
    known = _Field("known", card_set=True)  # cards of a hand its opponent knows
    points = _Field("points")  # card points, the last trick included
    marriages = _Field("marriages")
    marriage_by = _Field("marriage_by", bounds=(-1, 1))  # per suit: who announced it, -1 none
    tricks = _Field("tricks")
    to_move = _Field("to_move", bounds=(0, 1))
    table = _Field("table", bounds=(-1, NCARDS - 1))  # card led to the current trick, -1 none
    trump_card = _Field("trump_card", bounds=(0, NCARDS - 1))
    trick_no = _Field("trick_no", bounds=(0, 16))
    last_winner = _Field("last_winner", bounds=(-1, 1))
    over = _Field("over", kind=bool, bounds=(0, 1))
    __copy__ = independent_copy  # copy.copy too: a shallow copy would share ``st``

    def __init__(self, deck: Any = None, seed: int | None = None) -> None:
        d = seeded_deck(seed) if deck is None else parse_deck(deck)
        self.st = np.zeros(C.LZ_STATE_SIZE, np.int32)
        C.new_deal(self.st, np.asarray(d, dtype=np.int64))
        self.history: list[tuple[int, int]] = []  # (seat, card)

    @property
    def deck(self) -> list[int]:
        """The deck as dealt, from the top."""
        return [int(c) for c in self.st[C.DECK:C.DECK + NCARDS]]

    @property
    def trump(self) -> int:
        return self.trump_card >> 3

    @property
    def stock(self) -> list[int]:
        """Cards still to draw, the next first; the trump card last."""
        return [int(c) for c in self.st[C.STOCK + self.st[C.STOCK_POS]:C.STOCK + STOCK]]

    @stock.setter
    def stock(self, cards: list[int]) -> None:
        cards = [_slot(c, False, (0, NCARDS - 1), "a stock card") for c in cards]
        if len(cards) > STOCK or len(set(cards)) != len(cards):
            raise ValueError(f"a stock holds at most {STOCK} different cards, got {cards}")
        pos = STOCK - len(cards)
        self.st[C.STOCK_POS] = pos
        self.st[C.STOCK + pos:C.STOCK + STOCK] = cards

    @property
    def rewards(self) -> tuple[int, int]:
        """The deal's rewards once it is over, else (0, 0)."""
        return (int(self.st[C.REWARDS]), int(self.st[C.REWARDS + 1]))

    # --- rules -------------------------------------------------------------------------
    @property
    def stock_left(self) -> int:
        return STOCK - int(self.st[C.STOCK_POS])

    def legal_cards(self, seat: int | None = None) -> int:
        """The cards ``seat`` (default: to move) may play now, as a mask (0 if not to move)."""
        if seat is None:
            return int(C.legal_cards(self.st))
        return int(C.legal_cards_of(self.st, seat))  # RULES.md §6 once the stock is gone

    def legal_mask(self, seat: int | None = None) -> np.ndarray:
        return ((self.legal_cards(seat) & _BITS) != 0).astype(np.int8)

    def legal_labels(self, seat: int | None = None) -> list[str]:
        return [ACTION_LABELS[c] for c in cards_of(self.legal_cards(seat))]

    def check(self, action: Any) -> int:
        """The card of ``action`` (index or label) if legal now; else a clear error."""
        if isinstance(action, str):
            a = action_index(action)  # ActionError for an unknown label
        else:
            a = action_int(action)  # ints, numpy ints, 0-d integer arrays and tensors
            if a is None:
                raise IllegalActionError(
                    f"an action must be an int index 0..{N_ACTIONS - 1} or a label "
                    f"'play:<card>', got {action!r}")
            if not 0 <= a < N_ACTIONS:
                raise IllegalActionError(
                    f"action index {a} is out of range: expected 0..{N_ACTIONS - 1}; "
                    f"legal now: {self.legal_labels()}")
        if self.over:
            raise IllegalActionError(
                f"the deal is over: no action is legal (got {ACTION_LABELS[a]!r})")
        if not (self.legal_cards() >> a) & 1:
            why = "not in its hand" if not (self.hands[self.to_move] >> a) & 1 else \
                "it must follow suit and beat, or trump, once the stock is empty"
            raise IllegalActionError(
                f"illegal action {ACTION_LABELS[a]!r} for player_{self.to_move} ({why}): "
                f"legal are {self.legal_labels()}")
        return a

    def play(self, action: Any) -> bool:
        """Play a card for the seat to move (:func:`core.play_card`: marriages, the trick,
        the draw, the last trick and the rewards); True when it ended the deal."""
        c = self.check(action)
        self.history.append((int(self.st[C.TO_MOVE]), c))
        return bool(C.play_card(self.st, c))

    def totals(self) -> tuple[int, int]:
        """Each player's points: card points and marriages."""
        p, m = self.points, self.marriages
        return (p[0] + m[0], p[1] + m[1])

    # --- views -------------------------------------------------------------------------
    def observe(self, me: int, out: np.ndarray | None = None) -> np.ndarray:
        """Seat ``me``'s observation (module documentation, ``OBS_LAYOUT``)."""
        o = np.empty(OBS_SIZE, np.float32) if out is None else out
        C.encode(self.st, int(me), o, False)
        return o

    def state(self) -> np.ndarray:
        """Perfect information: ``player_0``'s observation, ``player_1``'s hand, the stock's
        order (card -> (k + 1)/16 for the k-th card to draw)."""
        out = np.empty(STATE_SIZE, np.float32)
        C.encode(self.st, 0, out, True)
        return out

    def record(self) -> dict[str, Any]:
        """The deal's record: rules, deck, ``[seat, label]`` actions and (once over) result."""
        return {
            "format": FORMAT,
            "rules": dict(RULES),
            "deck": [CARD_CODES[c] for c in self.deck],
            "actions": [[s, ACTION_LABELS[c]] for s, c in self.history],
            "result": self.result() if self.over else None,
        }

    def result(self) -> dict[str, Any]:
        return {"points": list(self.points), "marriages": list(self.marriages),
                "tricks": list(self.tricks), "rewards": list(self.rewards)}

    def render(self) -> str:
        lines = [f"lízaný mariáš  trick {min(self.trick_no + 1, N_TRICKS)}/{N_TRICKS}  "
                 f"trumps {SUIT_NAMES_CZ[self.trump]} ({pretty(self.trump_card)}"
                 f"{', drawn' if self.trump_card not in self.stock else ' under the stock'})  "
                 f"stock {self.stock_left}"]
        for s in range(2):
            mark = "→" if not self.over and s == self.to_move else " "
            marr = [SUIT_NAMES_CZ[x] for x in range(4) if self.marriage_by[x] == s]
            lines.append(
                f"{mark} player_{s}: {_hand_str(self.hands[s])}   points {self.points[s]}"
                f" + marriages {self.marriages[s]}{' (' + ', '.join(marr) + ')' if marr else ''}"
                f", tricks {self.tricks[s]}")
        if self.table >= 0:
            lines.append(f"table: {pretty(self.table)} (led by player_{1 - self.to_move})")
        if self.over:
            lines.append(f"deal over: rewards {list(self.rewards)}")
        return "\n".join(lines)


def _hand_str(m: int) -> str:
    return " ".join(pretty(c) for c in sorted(cards_of(m), key=lambda c: (c >> 3, -(c & 7))))


# --- records -------------------------------------------------------------------------------
RECORD_FIELDS = ("format", "rules", "deck", "actions", "result")


def replay(record: Any) -> LizanyGame:
    """Play a record (:meth:`LizanyGame.record`) again from its deck; every field is checked
    and a record that does not replay raises :class:`~mariash_env.records.RecordError`
    naming the field (and the first bad action).  Returns the finished game."""
    from ...cards import CardError
    from ...record_error import RecordError
    from ..voleny.actions import ActionError

    if not isinstance(record, dict):
        raise RecordError(f"a record must be an object, got {type(record).__name__}")
    missing = [f for f in RECORD_FIELDS if f not in record]
    if missing:
        raise RecordError(f"missing: expected all of {list(RECORD_FIELDS)}", missing[0])
    extra = [f for f in record if f not in RECORD_FIELDS]
    if extra:
        raise RecordError(f"unknown field: expected only {list(RECORD_FIELDS)}", extra[0])
    if record["format"] != FORMAT:
        raise RecordError(f"{record['format']!r} is not the format {FORMAT!r}", "format")
    if record["rules"] != RULES:
        raise RecordError(f"{record['rules']!r}: expected {RULES!r}", "rules")
    try:
        g = LizanyGame(deck=record["deck"])
    except (CardError, TypeError) as e:
        raise RecordError(str(e), "deck") from e
    acts = record["actions"]
    if not isinstance(acts, list):
        raise RecordError("must be a list of [seat, label] pairs", "actions")
    for i, item in enumerate(acts):
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and is_int(item[0])
                and isinstance(item[1], str)):
            raise RecordError(f"action #{i} {item!r} is not a [seat, label] pair", "actions")
        if g.over:
            raise RecordError(f"action #{i} {item!r} comes after the end of the deal",
                              "actions")
        if item[0] != g.to_move:
            raise RecordError(f"action #{i} {item!r}: player_{g.to_move} is to move",
                              "actions")
        try:
            g.play(item[1])
        except (IllegalActionError, ActionError) as e:
            raise RecordError(f"action #{i} {item!r}: {e}", "actions") from e
    if not g.over:
        raise RecordError(f"the deal is not finished after {len(acts)} actions", "actions")
    if record["result"] != g.result():
        raise RecordError(f"{record['result']!r} differs from the replay's {g.result()!r}",
                          "result")
    return g


# --- the AEC environment -------------------------------------------------------------------
PHASE_NAMES = ("stock", "endgame", "done")
"""``infos[agent]["phase"]`` of lízaný: the stock lasts, it is gone, the deal is over."""


def env(render_mode: str | None = None, stack_infos: bool = False) -> AECEnv:
    """The wrapped environment (PettingZoo's order enforcing)."""
    return wrappers.OrderEnforcingWrapper(raw_env(render_mode=render_mode,
                                                  stack_infos=stack_infos))


class raw_env(AECEnv):
    """Lízaný mariáš as a PettingZoo AEC environment (see the module documentation)."""

    metadata = {"name": KIND.env_name, "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 1}
    __copy__ = independent_copy  # copy.copy too: a shallow copy would share the deal

    def __init__(self, render_mode: str | None = None, stack_infos: bool = False) -> None:
        super().__init__()
        check_render_mode(render_mode, self.metadata["render_modes"])
        if not isinstance(stack_infos, (bool, np.bool_)):
            raise OptionError(f"invalid stack_infos={stack_infos!r}: expected True or False")
        self.stack_infos = bool(stack_infos)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.agent_name_mapping = {a: i for i, a in enumerate(AGENTS)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(*KIND.obs_bounds, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        })
        self.observation_spaces = AgentSpaces({a: obs_space for a in AGENTS})
        self.action_spaces = AgentSpaces({a: spaces.Discrete(N_ACTIONS) for a in AGENTS})
        self.state_space = spaces.Box(*KIND.obs_bounds, (STATE_SIZE,), np.float32)
        self.game: LizanyGame | None = None
        self._seeds = EpisodeSeeds()

    def observation_space(self, agent: str) -> gymnasium.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space:
        return self.action_spaces[agent]

    def action_label(self, index: int) -> str:
        return action_label(index)

    def action_index(self, label: str) -> int:
        return action_index(label)

    def _game(self) -> LizanyGame:
        if self.game is None:
            raise AttributeError("the environment must be reset before it is used")
        return self.game

    def _seat(self, agent: str | None) -> int:
        g = self._game()
        if agent is None:
            return g.to_move
        if agent not in self.agent_name_mapping:
            raise KeyError(f"unknown agent {agent!r}: expected one of {list(AGENTS)}")
        return self.agent_name_mapping[agent]

    def legal_labels(self, agent: str | None = None) -> list[str]:
        """Labels of the legal actions of ``agent`` (default: the agent to move)."""
        seat = self._seat(agent)
        return self._game().legal_labels(seat)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # the other games' deal options, known but meaningless here: refused, not ignored
        foreign = [k for k in ("dealer", "cuts") if isinstance(options, Mapping) and k in options]
        if foreign:
            raise OptionError(f"reset option(s) {foreign} do not apply to lízaný: one deal, "
                              "player_0 leads and nobody deals or cuts (its deck: 'deck')")
        opts = reset_options(options, ("deck",))
        # reset(seed=s) deals seed s; later unseeded resets continue its generator.
        with self._seeds.drawn(seed) as deal_seed:
            self.game = LizanyGame(deck=opts.get("deck"), seed=deal_seed)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self._gone: dict[str, tuple[bool, bool, dict[str, Any]]] = {}
        self._set_infos()
        self.agent_selection = AGENTS[self.game.to_move]

    def _set_infos(self) -> None:
        # Fresh dicts on every step: an info once returned never changes afterwards.
        g = self._game()
        phase = 2 if g.over else 0 if g.stock_left else 1
        info = {"phase": phase, "deal": 0, "settlement_deal": 0 if g.over else -1}
        self.infos = {a: dict(info) for a in AGENTS}
        if g.over and not self.stack_infos:  # INTERFACE.md: the payments per seat too
            for a in AGENTS:  # each its own: an edit of one changes neither the other's
                self.infos[a]["settlement"] = {**g.result(), "payments": list(g.rewards)}

    def _was_dead_step(self, action: Any) -> None:
        # Keep what a removed agent last saw: last() after the episode answers its final
        # values instead of a KeyError (as the three-seat env does).
        agent = self.agent_selection
        if agent in self.terminations:
            self._gone[agent] = (self.terminations[agent], self.truncations[agent],
                                 self.infos[agent])
        self.infos, self.terminations = dict(self.infos), dict(self.terminations)
        self.truncations = dict(self.truncations)
        super()._was_dead_step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``(observation, cumulative reward, terminated, truncated, info)`` of the agent to
        move; once every agent is done, the final ones of ``agent_selection`` (reward 0)."""
        try:
            agent = self.agent_selection
        except AttributeError:  # never reset: as observe() says (a try costs nothing)
            raise AttributeError("the environment must be reset before it is used") from None
        if agent in self.terminations:
            return super().last(observe)
        term, trunc, info = self._gone[agent]
        return (self.observe(agent) if observe else None), 0.0, term, trunc, info

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat(agent)
        g = self._game()
        return {"observation": g.observe(seat), "action_mask": g.legal_mask(seat)}

    def state(self) -> np.ndarray:
        return self._game().state()

    def step(self, action: Any) -> None:
        try:
            agent = self.agent_selection
        except AttributeError:  # never reset: as observe() says (a try costs nothing)
            raise AttributeError("the environment must be reset before it is used") from None
        if agent not in self.terminations:
            raise RuntimeError("the episode is over: call reset() to start a new one")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self._game()
        if action is None:
            raise IllegalActionError(
                f"{agent} is to move and must act: legal are {g.legal_labels()}")
        ended = g.play(action)  # raises before changing anything on a bad action
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in AGENTS}
        if ended:
            self.rewards = {a: float(r) for a, r in zip(AGENTS, g.rewards)}
            self.terminations = {a: True for a in AGENTS}
        self._set_infos()
        self.agent_selection = AGENTS[g.to_move]
        self._accumulate_rewards()

    @property
    def record(self) -> dict[str, Any]:
        """The deal's record (:meth:`LizanyGame.record`; its ``result`` once it is over)."""
        return self._game().record()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: use render_mode='ansi'")
            return None
        text = self._game().render()
        if self.render_mode == "human":  # printed, as the three-seat games do
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
