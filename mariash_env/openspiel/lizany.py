"""Two-player lízaný as the OpenSpiel game ``pyspiel.load_game("mariash", {"rules":
"lizany"})``, on :class:`~mariash_env.games.lizany.game.LizanyGame`'s public methods (its
constructor from a deck, ``play``, ``legal_cards``, ``observe``, ``to_move``, ``over``,
``rewards``, ``marriage_by``): nothing here decides a rule.

* **Chance.**  The deck is drawn one card at a time from the top: 32 chance nodes, outcome
  = card index, uniform over the cards not yet drawn.  Then the deal is lízaný's from that
  deck (positions 0-7 ``player_0``'s hand, 8-15 ``player_1``'s, 16 the trump card, turned
  up and drawn last, 17-31 the stock from the top; the lízaný module's documentation).
* **Players** 0 and 1, actions ``play:<card>`` (card index, 32).  ``player_0`` leads.
* **Returns** zero until the deal ends, then its rewards: ±1, ±2 when the loser took no
  trick (zero-sum; ``RewardModel.TERMINAL``, so ``rewards()`` is the returns at the end).
* **Observation** (string and tensor): lízaný's own observation (221 floats,
  :data:`~mariash_env.games.lizany.actions.OBS_LAYOUT`), zeros while the deck is drawn; the
  string names its non-zero entries (``hand:Qh``, ``scalars+2=0.3``).
* **Information state**: the seat's whole history: its first eight cards, the trump card,
  every card played in order (a marriage it announced marked ``!``), the cards it drew.
  String ``p<seat> hand:<cards> trump:<card> | <seat>:<card> ... +<drawn card> ...``;
  tensor (:data:`INFO_SIZE` floats): the observation, the first eight cards, per card its
  place in the order of play ``(k + 1) / 32`` and per card the seat drew the trick after
  which it drew it ``t / 8``.
* ``resample_from_infostate(player, sampler)``: the opponent's unseen cards and the stock
  order are redrawn.  The cards the seat knows stay where they are (its own hand and
  draws, the trump card); every other card goes to a deck position the seat did not see,
  uniformly among the placements in which each card the opponent played (or showed as a
  marriage partner) was in its hand by then; a placement is kept when the deal replays to
  the seat's information state (a marriage the opponent did not announce must not appear),
  so the draw is uniform over the information set.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..cards import CARD_CODES, NCARDS, cards_of
from ..game import IllegalActionError
from ..games.lizany.actions import ACTION_LABELS, N_ACTIONS, OBS_SIZE
from ..games.lizany.game import LizanyGame
from ..games.registry import game_kind
from ..rules import RulesError
from .game import encoding_string, game_copies, game_type, perfect_recall
from .params import _DEFAULTS
from .resample import ResampleError, check_player, seed_of
from .state import action_name, illegal

RULES_NAME = "lizany"
HAND = 8  # cards dealt to each seat
TRUMP_POS = 2 * HAND  # the turned-up trump card's deck position, drawn last
DRAW_TRICKS = (NCARDS - 2 * HAND) // 2  # tricks after which both seats draw (8)
INFO_SIZE = OBS_SIZE + 3 * NCARDS  # observation, first hand, order of play, own draws
RESAMPLE_TRIES = 2000  # placements tried per resample (rejection: marriages not announced)

LIZANY_TYPE = game_type("Mariáš, lízaný (two players, mariash engine)", 2, 2,
                        pyspiel.GameType.RewardModel.TERMINAL)


def _draw_positions(trick: int) -> tuple[int, int]:
    """The deck positions drawn after trick ``trick`` (1..8): the winner's, the loser's
    (the stock from position 17 on, the trump card at 16 last)."""
    first = TRUMP_POS + 1 + 2 * (trick - 1)
    return first, (first + 1 if trick < DRAW_TRICKS else TRUMP_POS)


def lizany_params(params: dict[str, Any]) -> dict[str, Any]:
    """The OpenSpiel parameters of lízaný as played: ``rules="lizany"``, ``players`` 2 and
    ``deals`` 1 (the defaults of the other games' sentinels accepted); RulesError naming
    any other option, which lízaný does not take."""
    unknown = set(params) - set(_DEFAULTS)
    if unknown:
        raise RulesError(
            f"unknown mariash game parameter(s) {sorted(unknown)}: expected {sorted(_DEFAULTS)}")
    p = {**_DEFAULTS, **params}
    allowed = {"rules": (RULES_NAME,), "players": (2, _DEFAULTS["players"]),
               "deals": (1, _DEFAULTS["deals"])}
    for k, v in p.items():
        ok = allowed.get(k, (_DEFAULTS[k],))
        if v not in ok or type(v) is not type(_DEFAULTS[k]):
            raise RulesError(
                f"invalid {k}={v!r} for rules='lizany': lízaný takes no option but players=2 "
                f"and deals=1 (expected {k}={ok[0]!r})")
    return {"rules": RULES_NAME, "players": 2, "deals": 1}


class MariashLizanyGame(pyspiel.Game):
    """Lízaný as an OpenSpiel game (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        played = lizany_params(dict(params or {}))
        self.kind = game_kind(RULES_NAME, front_end="openspiel")
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=NCARDS,
            num_players=2,
            min_utility=-2.0,
            max_utility=2.0,
            utility_sum=0.0,
            max_game_length=NCARDS,  # 16 tricks of two cards
        )
        super().__init__(LIZANY_TYPE, info, played)

    def new_initial_state(self) -> MariashLizanyState:
        return MariashLizanyState(self)

    # Copies: the game itself (immutable, shared by its states), pickled by its string
    # (:func:`game_copies`).
    def __copy__(self) -> MariashLizanyGame:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> MariashLizanyGame:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return game_copies(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(self.kind, perfect_recall(iig_obs_type, params))


class _Observer:
    """OpenSpiel's observer: the observation, or with ``recall`` the information state."""

    def __init__(self, kind: Any, recall: bool) -> None:
        self.kind = kind
        self.recall = recall
        self.tensor = np.zeros(INFO_SIZE if recall else OBS_SIZE, np.float32)
        self.dict = {"info_state" if recall else "observation": self.tensor}

    def set_from(self, state: MariashLizanyState, player: int) -> None:
        t = self.tensor
        t.fill(0.0)
        if state.g is None:
            return
        state.g.observe(player, t[:OBS_SIZE])
        if not self.recall:
            return
        off = OBS_SIZE
        for c in state.first_hand(player):
            t[off + c] = 1.0
        for k, (_, c, _) in enumerate(state.plays):
            t[off + NCARDS + c] = (k + 1) / NCARDS
        for trick, c in state.own_draws(player):
            t[off + 2 * NCARDS + c] = trick / DRAW_TRICKS

    def string_from(self, state: MariashLizanyState, player: int) -> str:
        if state.g is None:
            return f"p{player} dealing {len(state.drawn)}/{NCARDS}"
        if not self.recall:
            return f"p{player} {encoding_string(self.kind, state.g.observe(player))}"
        return state.info_string(player)


class MariashLizanyState(pyspiel.State):
    """One lízaný deal: the deck being drawn, then a :class:`LizanyGame` (module docstring)."""

    def __init__(self, game: MariashLizanyGame) -> None:
        super().__init__(game)
        self.drawn: list[int] = []  # the deck drawn so far, from the top
        self.g: LizanyGame | None = None
        # Every play: (seat, card, whether it announced a marriage); per completed trick
        # with a draw, its winner.
        self.plays: list[tuple[int, int, bool]] = []
        self.winners: list[int] = []

    # --- OpenSpiel API --------------------------------------------------------------
    def current_player(self) -> int:
        if self.g is None:
            return pyspiel.PlayerId.CHANCE
        if self.g.over:
            return pyspiel.PlayerId.TERMINAL
        return int(self.g.to_move)

    def is_terminal(self) -> bool:
        return self.g is not None and bool(self.g.over)

    def _legal_actions(self, player: int) -> list[int]:
        return cards_of(self.g.legal_cards())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(NCARDS)) - set(self.drawn))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        if self.g is None:
            if not (0 <= action < NCARDS and action not in self.drawn):
                raise illegal(self, action, [c for c, _ in self.chance_outcomes()])
            self.drawn.append(action)
            if len(self.drawn) == NCARDS:
                self.g = LizanyGame(deck=self.drawn)
            return
        g = self.g
        if not 0 <= action < N_ACTIONS:
            raise illegal(self, action, self.legal_actions())
        seat, suit = int(g.to_move), action >> 3
        before = int(g.marriage_by[suit])
        g.play(action)  # IllegalActionError naming the legal cards
        self.plays.append((seat, action, before < 0 <= int(g.marriage_by[suit])))
        if len(self.plays) % 2 == 0 and len(self.winners) < DRAW_TRICKS:
            self.winners.append(int(g.to_move))  # the winner leads the next trick

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{action_name(CARD_CODES, action, 'card')}"
        return action_name(ACTION_LABELS, action)

    def returns(self) -> list[float]:
        if self.g is None or not self.g.over:
            return [0.0, 0.0]
        return [float(r) for r in self.g.rewards]

    def rewards(self) -> list[float]:
        """The deal's rewards on the action that ends it (zero before)."""
        return self.returns()

    def __str__(self) -> str:
        if self.g is None:
            return f"dealing: {' '.join(CARD_CODES[c] for c in self.drawn)}"
        return self.g.render()

    # --- the seat's view ------------------------------------------------------------
    def first_hand(self, player: int) -> list[int]:
        """The eight cards dealt to ``player``."""
        return sorted(self.drawn[player * HAND:(player + 1) * HAND])

    def own_draws(self, player: int) -> list[tuple[int, int]]:
        """``(trick, card)`` of each card ``player`` drew (after tricks 1..8)."""
        out = []
        for t, w in enumerate(self.winners, start=1):
            pos = _draw_positions(t)[0 if w == player else 1]
            out.append((t, self.drawn[pos]))
        return out

    def info_string(self, player: int) -> str:
        """The seat's action-observation history (module docstring)."""
        parts = [f"p{player} hand:" + ",".join(CARD_CODES[c] for c in self.first_hand(player))
                 + f" trump:{CARD_CODES[self.drawn[TRUMP_POS]]} |"]
        draws = dict(self.own_draws(player))
        for k, (seat, c, announced) in enumerate(self.plays):
            parts.append(f"{seat}:{CARD_CODES[c]}{'!' if announced else ''}")
            if k % 2 == 1 and (k + 1) // 2 in draws:
                parts.append(f"+{CARD_CODES[draws[(k + 1) // 2]]}")
        return " ".join(parts)

    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Any) -> MariashLizanyState:
        """A state drawn uniformly from ``player_id``'s information set, with a history
        that replays to it (module docstring)."""
        player_id = check_player(self, player_id)
        rng = np.random.default_rng(seed_of(probability_sampler))
        game = self.get_game()
        out = game.new_initial_state()
        if self.g is None:  # nobody has seen a drawn card
            for c in rng.permutation(NCARDS)[:len(self.drawn)]:
                out.apply_action(int(c))
            return out
        want = self.info_string(player_id)
        for _ in range(RESAMPLE_TRIES):
            deck = self._placement(player_id, rng)
            t = game.new_initial_state()
            for c in deck:
                t.apply_action(c)
            try:
                for _, c, _ in self.plays:
                    t.apply_action(c)
            except IllegalActionError:  # pragma: no cover - the placement keeps every play legal
                continue
            if t.info_string(player_id) == want:
                return t
        raise ResampleError(f"seat {player_id}: no placement of the unseen cards replays to "
                            f"the seat's information state in {RESAMPLE_TRIES} tries")

    def _placement(self, player: int, rng: np.random.Generator) -> list[int]:
        """A deck that keeps what ``player`` saw: its own cards and draws and the trump card
        where they were, each card the opponent played or showed in a position it held by
        then, the other unseen cards anywhere left (uniform given these deadlines)."""
        deck = list(self.drawn)
        opp = 1 - player
        # The opponent's positions with the trick after which it held them (0: dealt),
        # then the positions not drawn yet (never its by then).
        slots = [(0, p) for p in range(opp * HAND, (opp + 1) * HAND)]
        for t, w in enumerate(self.winners, start=1):
            pos = _draw_positions(t)[0 if w == opp else 1]
            if pos != TRUMP_POS:  # the trump card is public wherever it goes
                slots.append((t, pos))
        taken = {p for _, p in slots}
        seen = set(range(player * HAND, (player + 1) * HAND)) | {TRUMP_POS}
        for t, w in enumerate(self.winners, start=1):
            seen.add(_draw_positions(t)[0 if w == player else 1])
        slots += [(DRAW_TRICKS + 1, p) for p in range(NCARDS) if p not in taken | seen]
        slots.sort()
        cards = [deck[p] for _, p in slots]
        # Each card's deadline: the opponent must have held it before the trick it was
        # played in (or showed as a marriage partner in).
        deadline = {c: DRAW_TRICKS + 1 for c in cards}
        for k, (seat, c, announced) in enumerate(self.plays):
            if seat != opp:
                continue
            trick = k // 2  # tricks completed before this play: draws it may have used
            partner = c + 1 if c & 7 == 5 else c - 1
            for x in (c, partner) if announced else (c,):
                if x in deadline:  # else the trump card, which stays where it is
                    deadline[x] = min(deadline[x], trick)
        times = [t for t, _ in slots]
        free = list(range(len(slots)))
        # Tightest deadline first: each card's choices are the free slots up to it, whose
        # number does not depend on the earlier choices (nested sets), so every valid
        # placement is equally likely.
        for c in sorted(cards, key=lambda c: (deadline[c], c)):
            n = int(np.searchsorted(times, deadline[c], side="right"))
            choices = [i for i in free if i < n]
            i = choices[int(rng.integers(len(choices)))]
            free.remove(i)
            deck[slots[i][1]] = c
        return deck
