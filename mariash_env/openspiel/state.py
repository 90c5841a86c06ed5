"""The state of the OpenSpiel game ``"mariash"`` over the compiled engine: one partie on
the compact core record (``int32[STATE_SIZE]``), driven by
:func:`mariash_env.core.engine.legal_actions` / ``apply_action``; nothing here decides a
rule.  :class:`_Context` is what every state of one game shares.  Resampling lives in
:mod:`mariash_env.openspiel.resample`; the game, chance nodes, players and tensors are
described in :mod:`mariash_env.openspiel.game`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel

from ..cards import CARD_CODES, cards_of
from ..core import state as S
from ..core.engine import advance_partie, apply_action, deal_deck, legal_actions
from ..core.validate import check_record
from ..game import Game, IllegalActionError
from ..games.registry import game_kind
from ..games.voleny.four import payment4, player_of, seat_of
from ..games.voleny.observe4 import encode4
from ..rules import Rules
from .params import CALLED, CUT_MAX, CUT_MIN, NCARDS, NUM_PLAYERS, call_slots, info_block
from .resample import relabel_chain, resample

if TYPE_CHECKING:
    from .game import MariashGame


_CONTEXTS: dict[Rules, _Context] = {}


def illegal(state: pyspiel.State, action: int, legal: list[int]) -> IllegalActionError:
    """The error of ``action`` applied where only ``legal`` are (a decision's actions or a
    chance node's outcomes), naming them; raised before anything is applied."""
    player = state.current_player()
    if player == pyspiel.PlayerId.TERMINAL:
        return IllegalActionError(f"action {action}: the game is over")
    names = [state.action_to_string(player, a) for a in legal]
    who = "chance" if player == pyspiel.PlayerId.CHANCE else f"player {player}"
    try:
        what = f"{state.action_to_string(player, action)!r} (index {action})"
    except ValueError:
        what = str(action)
    return IllegalActionError(f"illegal action {what} for {who}: legal are {names}")


def action_name(labels: Any, action: int, what: str = "action") -> str:
    """``labels[action]``; ValueError naming the range for an index outside it (a negative
    one too, which Python would count from the end)."""
    if not 0 <= action < len(labels):
        raise ValueError(f"{what} {action} is outside 0..{len(labels) - 1}")
    return labels[action]


def _context_of(rules: Rules) -> _Context:
    """The context unpickled states of ``rules`` share (made on first use)."""
    ctx = _CONTEXTS.get(rules)
    if ctx is None:
        ctx = _CONTEXTS[rules] = _Context(rules)
    return ctx


class _Context:
    """What every state of one game shares: rules, rules vector, a Game to deal with, what
    a seat knows of a deal (the game's :class:`~mariash_env.games.base.HiddenInfo`).
    States are cloned by ``copy.deepcopy``: the context is shared, never copied."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.rv = rules.vector()
        self.kind = game_kind(rules, front_end="openspiel")
        self.info = self.kind.load("hidden_info")
        self.players = rules.players
        self.four = rules.players == 4
        self.obs_size = self.kind.layout(rules.players).obs_size
        self.block = info_block(rules)
        # open contracts: the block of who named each no-trump contract, per action index
        self.call_slots = call_slots(rules)
        self.called = {self.kind.labels.index(x): i for i, x in enumerate(CALLED)} \
            if self.call_slots else {}
        self._dealer_game = Game(rules, records=False)
        self.mask = np.zeros(self.kind.n_actions, dtype=np.int8)  # scratch for legal_actions
        self._card_of: np.ndarray | None = None
        self.card_base = np.zeros(0, dtype=np.int64)

    def seat(self, st: np.ndarray, player: int) -> int:
        """The core seat ``player`` holds in the deal of ``st``: the player itself at three,
        at four its seat of the deal or -1 for the dealer who sits out (RULES.md §11.3)."""
        return int(seat_of(st, player)) if self.four else player

    def player_at(self, st: np.ndarray, seat: int) -> int:
        """The player holding core seat ``seat`` in the deal of ``st``."""
        return int(player_of(st, seat)) if self.four else seat

    def encode(self, st: np.ndarray, player: int, out: np.ndarray) -> None:
        """The player's encoding of the deal in ``st`` into ``out``: the game's observation,
        at four the four-player one (:mod:`mariash_env.games.voleny.observe4`)."""
        if self.four:
            encode4(st, player, out, False)
        else:
            self.kind.encode(st, player, out, False)

    def encoding(self, st: np.ndarray, player: int) -> np.ndarray:
        """The player's encoding of the deal in ``st`` (a fresh array)."""
        out = np.empty(self.obs_size, np.float32)
        self.encode(st, player, out)
        return out

    def buckets(self, dealer: int) -> np.ndarray:
        """Who receives each deck position when ``dealer`` deals: seat 0..2, or 3 for the
        cards forehand sees first (``info.first_seen``: volený's first seven, RULES.md §2)
        and a talon dealt to no hand (licitovaný's, LICITOVANY.md §2); the engine deals an
        identity deck to find out."""
        st = S.new_state()
        deal_deck(st, np.arange(NCARDS, dtype=np.int64), int(dealer), self.kind.game)
        out = np.full(NCARDS, 3, dtype=np.int64)
        for seat in range(NUM_PLAYERS):
            for p in cards_of(S.getm(st, S.HAND + seat)):
                out[p] = seat
        out[:self.info.first_seen] = 3  # what forehand sees first
        return out

    def own_buckets(self, st: np.ndarray, me: int) -> set[int]:
        """The buckets (:meth:`buckets`) whose cards core seat ``me`` knows in the deal of
        ``st``: its own, and bucket 3 when it holds it (``info.third_holder``: volený's
        forehand, licitovaný's actor who took the talon; none for ``me = -1``, the
        four-player dealer)."""
        own = {me}
        if me >= 0 and int(st[self.info.third_holder]) == me:
            own.add(3)
        return own

    def hidden(self, a: int) -> bool:
        """A decision other seats do not see (the game's ``info.hidden``: volený the trump
        card, not z lidu, and the discards; licitovaný the discards and the face-down lead
        card, LICITOVANY.md §5)."""
        return self.info.hidden(a)

    def seen_label(self, st: np.ndarray, seat: int, a: int, player: int) -> str:
        """``player:label`` of core seat ``seat``'s decision in the deal of ``st`` as
        ``player`` saw it (another seat's hidden one as ``trump:?``, ``discard:?``,
        ``lead:?``)."""
        label = self.kind.labels[a]
        who = self.player_at(st, seat)
        if seat != self.seat(st, player) and self.hidden(a):
            return f"{who}:{label.split(':')[0]}:?"
        return f"{who}:{label}"

    @property
    def card_of(self) -> np.ndarray:
        """Per action index, the card it names (``play:Ah``, ``discard:Ah``, ...), else -1;
        ``card_base`` the first index of its block (the block's cards in card order)."""
        if self._card_of is None:
            card = np.full(self.kind.n_actions, -1, dtype=np.int64)
            for a, label in enumerate(self.kind.labels):
                code = label.split(":")[-1]
                if code in CARD_CODES:
                    card[a] = CARD_CODES.index(code)
            self._card_of, self.card_base = card, np.arange(card.size) - np.maximum(card, 0)
        return self._card_of

    def __deepcopy__(self, memo: dict) -> _Context:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Rules]]:
        # A pickled state (OpenSpiel serialises Python states by pickling them) names its
        # context by the rules: the compiled encoders and the dealing Game are not pickled.
        return _context_of, (self.rules,)

    def deal(self, deck: list[int]) -> np.ndarray:
        """A fresh partie record with ``deck`` (card indices from the top) dealt by seat 0."""
        g = self._dealer_game
        g.new_partie(seed=0, deck=deck, dealer=0)  # seed 0: the record is a function of
        return g.st  # the history (the engine never draws from it: chance is explicit)

    def redeal(self, st: np.ndarray, deck: list[int]) -> None:
        """Deal ``deck`` as the next deal of the partie in ``st`` (``shuffle="every_deal"``):
        the engine advances the partie (deal number, dealer), then the drawn deck is dealt."""
        advance_partie(st, self.rv, -1)
        g = self._dealer_game
        g.st = st
        g.deal_deck(deck, int(st[S.P4_DEALER if self.four else S.DEALER]))


class MariashState(pyspiel.State):
    """One partie on the compact core record (:mod:`~mariash_env.openspiel.game`)."""

    def __init__(self, game: MariashGame) -> None:
        super().__init__(game)
        self._g = game.ctx
        self.st: np.ndarray | None = None  # None until the first deck is drawn
        self.drawn: list[int] = []  # cards drawn so far for the deal being dealt
        self._rewards = [0.0] * self._g.players
        # Per deal dealt so far: its (seat, action) decisions and, once the partie moved
        # on, its final record (perfect recall across deals and resampling read them).
        self.deal_actions: list[list[tuple[int, int]]] = []
        self.finished: list[np.ndarray] = []
        self.before_end: list[np.ndarray] = []  # per ended deal: the record before its end
        self.from_record = False  # made by state_from_record: no history to rebuild

    # --- OpenSpiel API --------------------------------------------------------------
    @property
    def dealing(self) -> bool:
        """True while chance draws a deck card by card."""
        return self.st is None or (
            self._g.rules.shuffle == "every_deal" and self._between_deals()
        )

    def _between_deals(self) -> bool:
        st = self.st
        return st is not None and st[S.PHASE] == S.PH_DONE and not st[S.PARTIE_DONE]

    def current_player(self) -> int:
        st = self.st
        if st is None or self._between_deals():
            return pyspiel.PlayerId.CHANCE
        if st[S.PHASE] == S.PH_DONE:
            return pyspiel.PlayerId.TERMINAL
        return self._g.player_at(st, int(st[S.TO_MOVE]))

    def is_terminal(self) -> bool:
        st = self.st
        return st is not None and st[S.PHASE] == S.PH_DONE and bool(st[S.PARTIE_DONE])

    def _legal_actions(self, player: int) -> list[int]:
        mask = self._g.mask
        legal_actions(self.st, self._g.rv, mask)
        return np.flatnonzero(mask).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.dealing and not self._between_deals():
            return []  # a decision or the end: no chance outcomes (as lízaný's state)
        if self._g.rules.shuffle == "partie" and self._between_deals():
            n = CUT_MAX - CUT_MIN + 1
            return [(k, 1.0 / n) for k in range(CUT_MIN, CUT_MAX + 1)]
        left = sorted(set(range(NCARDS)) - set(self.drawn))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        if self.is_chance_node():
            if not self._is_outcome(action):
                raise illegal(self, action, [c for c, _ in self.chance_outcomes()])
            self._apply_chance(action)  # the deal's payment stays: rewards() docstring
            return
        mask = self._g.mask
        legal_actions(self.st, self._g.rv, mask)  # the engine applies legal actions only
        if not (0 <= action < len(mask) and mask[action]):
            raise illegal(self, action, np.flatnonzero(mask).tolist())
        self.deal_actions[-1].append((int(self.st[S.TO_MOVE]), action))
        before = self.st.copy()
        if apply_action(self.st, self._g.rv, action):  # the deal ended and is settled
            self.before_end.append(before)
            self._rewards = self._payments()
        else:
            self._rewards = [0.0] * self._g.players

    def _is_outcome(self, a: int) -> bool:
        """``a`` is one of :meth:`chance_outcomes` (without building the list)."""
        if self._g.rules.shuffle == "partie" and self._between_deals():
            return CUT_MIN <= a <= CUT_MAX
        return 0 <= a < NCARDS and a not in self.drawn

    def _apply_chance(self, outcome: int) -> None:
        g = self._g
        if g.rules.shuffle == "partie" and self._between_deals():
            self.finished.append(self.st.copy())
            advance_partie(self.st, g.rv, outcome)  # gather and cut ``outcome`` cards
            self.deal_actions.append([])
            return
        if not self.drawn and self.st is not None:
            self.finished.append(self.st.copy())  # every_deal: the first draw of a new deck
        self.drawn.append(outcome)
        if len(self.drawn) < NCARDS:
            return
        if self.st is None:
            self.st = g.deal(self.drawn)
        else:
            g.redeal(self.st, self.drawn)
        self.drawn = []
        self.deal_actions.append([])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._g.rules.shuffle == "partie" and self._between_deals():
                if not CUT_MIN <= action <= CUT_MAX:
                    raise ValueError(f"cut {action} is outside {CUT_MIN}..{CUT_MAX}")
                return f"cut:{action}"
            return f"deal:{action_name(CARD_CODES, action, 'card')}"
        return action_name(self._g.kind.labels, action)

    def rewards(self) -> list[float]:
        """The groše paid since the last decision node: the payments of the deal the last
        decision settled, zero after any other decision and before the first one.

        A deal's end is followed by chance nodes (the next deal's cut, or its 32 draws
        with ``shuffle="every_deal"``) that pay nothing and keep this value, so the
        payment is still there at the next decision node.  That is where OpenSpiel reads
        it: ``pyspiel.random_sim_test`` sums ``rewards()`` at every decision node and at
        the terminal and checks the sum against ``returns()``, and ``rl_environment``
        reads it after it has resolved the chance nodes (OpenSpiel's own ``2048`` keeps
        a move's reward over the chance node that follows it, too).  The rule:
        summing ``rewards()`` over the decision and terminal states a game passes
        through (equally: right after each decision, before or after the chance
        nodes that follow it) gives ``returns()``.  Summing it after *every* transition,
        chance outcomes included, counts a deal's payment once more per chance node
        that follows the deal.
        """
        return list(self._rewards)

    def returns(self) -> list[float]:
        if self.st is None:
            return [0.0] * self._g.players
        if self._g.four:
            return [float(x) for x in S.read64(self.st, S.P4_SCORE, 4)]
        return [float(x) for x in S.read64(self.st, S.SCORE, 3)]

    def _payments(self) -> list[float]:
        """The settled deal's payments per player (at four the dealer pays with the
        defence, RULES.md §11.3: the core's own
        :func:`~mariash_env.games.voleny.four.payment4`)."""
        if self._g.four:
            return [float(payment4(self.st, p)) for p in range(4)]
        return [float(x) for x in S.read64(self.st, S.PAY, 3)]

    def recalled(self) -> list[np.ndarray]:
        """The records of the deals dealt so far: the ended ones the partie moved on from,
        then the current one (also when it has ended) unless a new deck is being drawn."""
        if self.st is None or self.drawn:
            return self.finished
        return [*self.finished, self.st]

    def encode_into(self, player: int, out: np.ndarray) -> None:
        """The seat's encoding (zeros while the deck is being drawn)."""
        if self.dealing:
            out.fill(0.0)
        else:
            self._g.encode(self.st, player, out)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MariashState:
        """A state drawn from ``player_id``'s information set, with a history that replays
        to it (:mod:`mariash_env.openspiel.resample`)."""
        return resample(self, player_id, probability_sampler)

    def _relabel_chain(self, player: int, rng: np.random.Generator) -> MariashState:
        """The relabelling chain from this state (:func:`~.resample.relabel_chain`): the
        partie resampler's fallback, called through the state so that it can be watched."""
        return relabel_chain(self, player, rng)

    def from_world(self, st: np.ndarray) -> MariashState:
        """A new state of this game continuing from the core record ``st`` (copied), with
        no history (:func:`state_from_record`)."""
        out = MariashState(self.get_game())
        out.st = np.array(st, dtype=np.int32, copy=True)
        out.from_record = True
        out.deal_actions.append([])  # decisions from here on
        return out

    def apply_legal(self, a: int, mask: np.ndarray) -> bool:
        """Apply decision ``a`` if it is legal now (``mask``: scratch); else False."""
        legal_actions(self.st, self._g.rv, mask)
        if not mask[a]:
            return False
        self.apply_action(int(a))
        return True

    def encoding(self, player: int) -> np.ndarray:
        """The seat's encoding of the current deal (a fresh array; volený 900 floats,
        licitovaný 1016)."""
        out = np.empty(self._g.obs_size, np.float32)
        self.encode_into(player, out)
        return out

    def __str__(self) -> str:
        if self.st is None:
            return f"dealing: {' '.join(CARD_CODES[c] for c in self.drawn)}"
        st = self.st
        hands = " | ".join(
            f"{s}: " + " ".join(CARD_CODES[c] for c in range(NCARDS)
                                if S.getm(st, S.HAND + s) >> c & 1)
            for s in range(NUM_PLAYERS)
        )
        talon = " ".join(CARD_CODES[c] for c in range(NCARDS) if S.getm(st, S.TALON) >> c & 1)
        return (
            f"deal {int(st[S.DEAL_NO]) + 1}/{self._g.rules.deals} phase "
            f"{S.PHASE_NAMES[int(st[S.PHASE])]} to_move {int(st[S.TO_MOVE])} "
            f"hands {hands} talon {talon} scores {self.returns()}"
            + (f" drawn {len(self.drawn)}" if self.drawn else "")
        )


def state_from_record(game: MariashGame, st: np.ndarray) -> MariashState:
    """A :class:`MariashState` continuing from the core record ``st`` (copied); its
    ``history()`` is empty (a search state: it resamples within its deal only)."""
    if st.shape != (S.STATE_SIZE,):
        raise ValueError(f"expected a state record of shape ({S.STATE_SIZE},), got {st.shape}")
    check_record(st, game.ctx.rv, "state_from_record: the record")  # not the engine's own
    return game.new_initial_state().from_world(st)
