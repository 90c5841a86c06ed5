"""One partie of mariáš (volený or licitovaný) as a Python object over the compact core
state.

:class:`Game` is what every Python front end drives (the AEC environment, the
replayer, robots that search): it holds the ``int32`` state record and the
rules vector, checks actions, keeps the game record of each deal, and reads
the settlement out of the core.  It never decides a rule itself.
"""

from __future__ import annotations

import warnings
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from .cards import CARD_CODES, parse_deck
from .copies import independent_copy
from .core import state as S
from .core.deal import deck_into, shuffled_deck
from .core.engine import (
    advance_observe,
    advance_partie,
    apply_action,
    deal_deck,
    legal_actions,
    start_partie,
)
from .games.voleny import actions as A
from .games.voleny.four import CORE_DEALER, mirror_scores, player_of, seat_of
from .games.voleny.record import LEVEL_NAMES, level_name  # noqa: F401 - public here too
from .kinds import KINDS, kind_of
from .rules import Rules, action_int, is_int, make_rules

# The API (and the reference page); the seeding and option helpers below are the front
# ends' own, importable by name.
__all__ = ["Game", "IllegalActionError", "OptionError", "RenderModeError", "RESET_OPTIONS",
           "LEVEL_NAMES", "level_name", "check_render_mode"]


# The action types the AEC loop hands over (a Python int, numpy's ints from flatnonzero
# and random draws): Game.check takes them without action_int's isinstance chain.
_PLAIN_INTS = frozenset({int, np.int64, np.int32, np.intp, np.int16, np.int8, np.uint8,
                         np.uint16, np.uint32, np.uint64})
# np.empty with positional dtype objects, TO_MOVE as a module constant: fewer lookups on
# the hot path (observe and step run at every decision)
_empty, _F32, _I8 = np.empty, np.dtype(np.float32), np.dtype(np.int8)
_TO_MOVE = S.TO_MOVE


class IllegalActionError(ValueError):
    """An action that is not legal for the seat to move; nothing was applied."""


class OptionError(ValueError):
    """A malformed reset option (seed, deck, dealer, cuts) or game option (records)."""


class RenderModeError(OptionError, TypeError):
    """A ``render_mode`` the environment does not have.  A TypeError too: what
    Stable-Baselines3's ``make_vec_env(env_id)`` takes for "this env does not render that
    way" (it passes ``render_mode="rgb_array"`` to every registered env and retries without
    it on a TypeError only)."""


def check_render_mode(render_mode: Any, modes: Sequence[str]) -> None:
    """An environment's ``render_mode`` argument: one of ``modes`` or None, else a
    :class:`RenderModeError` naming them."""
    if render_mode is not None and render_mode not in modes:
        raise RenderModeError(f"invalid render_mode {render_mode!r}: expected one of "
                              f"{list(modes)} or None")


RESET_OPTIONS = ("deck", "dealer", "cuts")
"""The keys of a game's ``reset(options=...)`` (INTERFACE.md)."""


def batch_seeds(seed: Any, next_seed: int, n: int,
                rows: Sequence[int] | None = None) -> list[int]:
    """The seeds of a batch of ``n`` games: ``seed + i``, a list of ``n`` seeds one a game
    (Gymnasium's ``VectorEnv.reset(seed=[...])``; a None entry, as Gymnasium allows, is
    that game unseeded: the seed ``next_seed + i`` an unseeded reset gives it), or without
    one ``next_seed + i``; OptionError naming a bad seed or a list of another length.
    ``rows`` (game indices): the seeds of those games only, each the one it has in the
    whole batch (by position)."""
    idx = range(n) if rows is None else [int(i) for i in rows]
    if isinstance(seed, (list, tuple)) or (isinstance(seed, np.ndarray) and seed.ndim == 1):
        seeds = [check_seed(s) for s in seed]
        if len(seeds) != n:
            raise OptionError(f"invalid seed: a list of seeds must hold one int >= 0 or None "
                              f"for each of the {n} games, got {len(seeds)}: "
                              f"{list(seed)[:8]!r}")
        return [next_seed + i if seeds[i] is None else seeds[i] for i in idx]
    seed = check_seed(seed)
    base = next_seed if seed is None else seed
    return [base + i for i in idx]


def check_seed(seed: Any) -> int | None:
    """``seed`` as a Python int (None stays None), the one seed check of every environment:
    an int or numpy integer >= 0 (Gymnasium's seeding refuses negative seeds), never a
    bool; OptionError naming it otherwise."""
    if seed is None:
        return None
    if not is_int(seed):
        raise OptionError(f"invalid seed: seed must be an int or None, got {seed!r}; expected "
                          "an int >= 0 (a numpy integer too, not a bool) or None")
    if seed < 0:
        raise OptionError(f"invalid seed: seed must be an int >= 0 or None, got {seed!r}")
    return int(seed)


def fresh_seed() -> int:
    """A seed from fresh entropy (``SeedSequence().entropy``, 128 bits): where the seed
    sequence of a batched engine made without a seed starts."""
    return int(np.random.SeedSequence().entropy)


def continue_seed(np_random: np.random.Generator) -> int:
    """The partie seed an unseeded ``reset()`` draws from its environment's generator
    (every environment draws it alike, so one seed gives the same parties everywhere)."""
    return int(np_random.integers(2**31))


class EpisodeSeeds:
    """Gymnasium/PettingZoo seeding of an environment's episodes (INTERFACE.md).

    ``seed_of(s)`` answers ``s`` itself (the partie of seed ``s``, as always) and seeds
    the generator the later ``seed_of(None)`` calls continue: the same calls give the same
    parties in any process.  Before any seed it answers None: fresh entropy.  The
    generator is Gymnasium's (``np_random``), the one ``SingleAgentEnv`` draws from.
    """

    def __init__(self) -> None:
        self._rng: np.random.Generator | None = None
        self._seed: int | None = None  # the seed of the generator, until it is made

    # The generator of a seed is made when first drawn from: a seeded reset draws nothing,
    # and making one costs as much as the rest of a reset.
    @property
    def np_random(self) -> np.random.Generator | None:
        if self._seed is not None:
            self._rng = np.random.default_rng(self._seed)  # = gymnasium's np_random(seed)
            self._seed = None
        return self._rng

    @np_random.setter
    def np_random(self, rng: np.random.Generator | None) -> None:
        self._rng, self._seed = rng, None

    def seed_of(self, seed: Any) -> int | None:
        seed = check_seed(seed)
        if seed is not None:
            self._rng, self._seed = None, seed
            return seed
        rng = self.np_random
        return None if rng is None else continue_seed(rng)

    @contextmanager
    def drawn(self, seed: Any) -> Iterator[int | None]:
        """``seed_of(seed)`` for a reset that may still fail (a bad deck): if the body
        raises, the generator is as it was (nothing half-applied)."""
        rng, pending = self._rng, self._seed
        # only an unseeded reset draws from a generator made before
        saved = None if rng is None or seed is not None else rng.bit_generator.state
        try:
            yield self.seed_of(seed)
        except BaseException:
            self._rng, self._seed = rng, pending
            if saved is not None:
                rng.bit_generator.state = saved
            raise


def reset_options(options: Any, accepted: tuple[str, ...], *,
                  strict: bool = False) -> dict[str, Any]:
    """The ``options`` of a ``reset`` as a dict: a mapping (or None) whose keys are among
    ``accepted``, else OptionError naming what is wrong.  An unknown key is refused when
    ``strict``, else only warned about: PettingZoo's ``api_test`` passes foreign options to
    an AEC environment's reset."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise OptionError(f"invalid reset options {options!r:.80}: expected a dict with keys "
                          f"among {list(accepted)} or None")
    unknown = sorted((k for k in options if k not in accepted), key=repr)
    if unknown:
        msg = f"unknown reset option(s) {unknown}: expected keys among {list(accepted)}"
        if strict:
            raise OptionError(msg)
        warnings.warn(f"ignoring {msg}", UserWarning, stacklevel=3)
    return dict(options)


def _parse_cuts(cuts: Any) -> list[int]:
    """The cuts of the 2nd, 3rd, … deal as ints 2..30 (RULES.md §2); strict about types."""
    if cuts is None:
        return []
    if isinstance(cuts, np.ndarray):
        cuts = cuts.tolist() if cuts.ndim == 1 else cuts
    if not isinstance(cuts, (list, tuple)):
        raise OptionError(f"invalid cuts {cuts!r}: expected a list of ints 2..30")
    bad_type = [k for k in cuts if not is_int(k)]
    if bad_type:
        raise OptionError(
            f"invalid cuts {cuts!r}: {bad_type[0]!r} is not an int; expected a list of "
            "ints 2..30"
        )
    bad = [int(k) for k in cuts if not 2 <= k <= 30]
    if bad:
        raise OptionError(f"invalid cut(s) {bad}: a cut takes 2..30 cards (RULES.md §2)")
    return [int(k) for k in cuts]


def _other_game_label(kind: Any, label: str) -> str | None:
    """The other game whose table has ``label`` (an action of the wrong game), else None."""
    for other in KINDS.values():
        if other is not kind:
            try:
                other.action_index(label)
            except A.ActionError:
                continue
            return f"rules={other.name!r}"
    return None


class Game:
    """A partie (``rules.deals`` deals) on one compact state record.

    Seats are the players ``0 .. players-1``: at four (``players=4``, RULES.md §11.3) the
    deal is the core's three-seat deal and this class maps its seats to the players
    (:meth:`core_seat`, :meth:`player`); every public method takes and returns players.
    """

    def __init__(
        self, rules: Rules | str | None = None, *, records: bool | int = True, **options: Any
    ) -> None:
        """``records``: keep every finished deal's record (True), none (False) or the last
        ``N`` (an int >= 1, a deque); ``rules``: a Rules, a game name ('voleny',
        'licitovany') or None; ``options``: rule keywords when it is not a Rules."""
        if isinstance(records, (bool, np.bool_)):
            self._keep: int | None = None if records else 0
        elif is_int(records) and records >= 1:
            self._keep = int(records)
        else:
            raise OptionError(
                f"invalid records={records!r}: expected True (keep all), False (keep none) "
                "or an int N >= 1 (keep the last N)"
            )
        if isinstance(rules, str):  # a game's name: Game("licitovany", deals=1)
            rules = make_rules(rules=rules, **options)
        self.rules = rules if rules is not None else make_rules(**options)
        self.kind = kind_of(self.rules)
        self.rv = self.rules.vector()
        self._rules_dict = self.rules.to_dict()
        self.players = self.rules.players
        self.four = self.players == 4
        # the observation of this seat count (volený at four has its own, §11.3)
        self.layout = layout = self.kind.layout(self.players)
        self._observe_into = layout.observe_into
        self.obs_size = layout.obs_size
        self.state_obs_size = layout.state_obs_size
        self.st = S.new_state()
        self._n_actions = self.kind.n_actions
        self._mask = np.zeros(self._n_actions, dtype=np.int8)
        self._deck_buf = np.zeros(32, dtype=np.int64)  # deck()'s
        # observe()'s mask for check(): (state array, rules vector, state bytes, mask bytes)
        self._legal_cache: tuple[np.ndarray, np.ndarray, bytes, bytes] | None = None
        self._cuts: list[int] = []
        self._settle: Any = None  # the kind's settlement reader, loaded on first use
        self.records: list[dict[str, Any]] | deque[dict[str, Any]] = self._new_records()
        self.last_settlement: dict[str, Any] | None = None
        self.history: list[tuple[int, int]] = []
        self.first_dealer = 0

    # --- copies (copy.deepcopy, pickle) -----------------------------------------------
    __copy__ = independent_copy  # copy.copy too: a shallow copy would share ``st``
    def __getstate__(self) -> dict[str, Any]:
        # The compiled observe function is the layout's: not copied (a copied numba
        # dispatcher costs ms, and an unpickled one compiles again in another process).
        state = self.__dict__.copy()
        state.pop("_observe_into", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._observe_into = self.layout.observe_into

    # --- set-up -----------------------------------------------------------------------
    def new_partie(
        self,
        seed: int | None = None,
        deck: Sequence[str | int] | np.ndarray | None = None,
        dealer: int = 0,
        cuts: Sequence[int] | None = None,
    ) -> None:
        """Start a partie: ``deck`` (from the top) is dealt as is, else shuffled from ``seed``."""
        if not is_int(dealer) or not 0 <= dealer < self.players:
            raise OptionError(
                f"invalid dealer {dealer!r}: expected a seat 0..{self.players - 1}")
        seed = check_seed(seed)
        cut_list = _parse_cuts(cuts)
        fixed = parse_deck(deck) if deck is not None else None
        st = S.new_state()
        S.seed_rng(st, seed)
        d = fixed if fixed is not None else shuffled_deck(st)
        start_partie(st, d, int(dealer), self.kind.game, self.players)
        st[S.CUT] = -1
        self.st = st
        self._cuts = cut_list
        self.records = self._new_records()
        self.last_settlement = None
        self.history = []
        self.first_dealer = int(dealer)

    def _new_records(self) -> list[dict[str, Any]] | deque[dict[str, Any]]:
        return [] if self._keep is None else deque(maxlen=self._keep)

    def deal_deck(self, deck: Sequence[str | int], dealer: int) -> None:
        """Deal a given deck within the current partie (used by the replayer)."""
        if self.four:  # ``dealer`` sits out; the core's seats keep their roles
            deal_deck(self.st, parse_deck(deck), CORE_DEALER, self.kind.game)
            self.st[S.P4_DEALER] = int(dealer)
            mirror_scores(self.st)
        else:
            deal_deck(self.st, parse_deck(deck), int(dealer), self.kind.game)
        self.history = []

    # --- queries ----------------------------------------------------------------------
    @property
    def to_move(self) -> int:
        """The player to move (-1 when the deal is over)."""
        c = self.st.item(S.TO_MOVE)  # a Python int, without a numpy scalar
        return self.player(c) if self.four and c >= 0 else c

    @property
    def dealer(self) -> int:
        """The player dealing this deal (at four the one who sits out)."""
        return self.st.item(S.P4_DEALER if self.four else S.DEALER)

    @property
    def sitting_out(self) -> int | None:
        """The player who sits out this deal (the dealer at four), None at three."""
        return self.st.item(S.P4_DEALER) if self.four else None

    def core_seat(self, player: int) -> int:
        """The seat of the core's three-seat deal ``player`` holds (-1: sits out);
        ValueError for a player the game has not (it would read another field)."""
        if not is_int(player) or not 0 <= player < self.players:
            raise ValueError(f"invalid player {player!r}: expected 0..{self.players - 1}")
        return int(seat_of(self.st, player)) if self.four else int(player)

    def player(self, seat: int) -> int:
        """The player holding seat ``seat`` (0..2) of the core's deal; -1 stays -1."""
        if not is_int(seat) or not -1 <= seat < 3:
            raise ValueError(f"invalid seat {seat!r}: expected a seat of the deal 0..2 or -1")
        return int(player_of(self.st, seat)) if self.four and seat >= 0 else int(seat)

    @property
    def phase(self) -> int:
        return self.st.item(S.PHASE)  # a Python int, without a numpy scalar

    @property
    def phase_name(self) -> str:
        return S.PHASE_NAMES[self.phase]

    @property
    def deal_no(self) -> int:
        return self.st.item(S.DEAL_NO)  # a Python int, without a numpy scalar

    @property
    def deal_over(self) -> bool:
        return self.st.item(S.PHASE) == S.PH_DONE

    @property
    def partie_over(self) -> bool:
        return bool(self.st[S.PARTIE_DONE]) and self.deal_over

    @property
    def scores(self) -> list[int]:
        """Running groše of the partie per seat (per player at four)."""
        if self.four:
            return [int(x) for x in S.read64(self.st, S.P4_SCORE, 4)]
        return [int(x) for x in S.read64(self.st, S.SCORE, 3)]

    def legal_mask(self, seat: int | None = None) -> np.ndarray:
        """``int8[N]``: the legal actions of ``seat`` (all zero when it is not to move)."""
        if seat is not None and seat != self.to_move:
            return np.zeros(self.kind.n_actions, dtype=np.int8)
        m = np.zeros(self.kind.n_actions, dtype=np.int8)
        legal_actions(self.st, self.rv, m)
        return m

    def legal_actions(self, seat: int | None = None) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.legal_mask(seat))]

    def legal_labels(self, seat: int | None = None) -> list[str]:
        return [self.kind.labels[i] for i in self.legal_actions(seat)]

    def hand(self, seat: int) -> int:
        c = self.core_seat(seat)
        return int(S.getm(self.st, S.HAND + c)) if c >= 0 else 0

    def deck(self) -> list[str]:
        buf = self._deck_buf
        deck_into(self.st, buf)
        return [CARD_CODES[c] for c in buf.tolist()]  # Python ints: faster

    def observation(self, seat: int) -> np.ndarray:
        out = np.empty(self.obs_size, dtype=np.float32)  # encode writes every entry
        self.layout.encode(self.st, seat, out, False)
        return out

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``(observation(seat), legal_mask(seat))`` in one compiled call (fresh arrays).

        The mask of the seat to move is remembered, with the state it was computed from,
        for :meth:`check` (the AEC loop observes, then steps)."""
        out = _empty(self.obs_size, _F32)
        mask = _empty(self._n_actions, _I8)
        st, rv = self.st, self.rv
        self._observe_into(st, rv, seat, out, mask)
        c = st.item(_TO_MOVE)  # self.to_move, inlined (the hot path)
        if self.four and c >= 0:
            c = self.player(c)
        if seat == c:
            self._legal_cache = (st, rv, st.tobytes(), mask.tobytes())
        return out, mask

    def _cached_legal(self) -> bytes | None:
        """The mask remembered by :meth:`observe` if the state is still the one it was
        computed from (the same array and rules, every slot equal: a change by any path,
        in place or by replacing ``st``, invalidates it), else None."""
        cache = self._legal_cache
        if cache is None:
            return None
        st, rv, snap, mask = cache
        if st is self.st and rv is self.rv and st.tobytes() == snap:
            return mask
        self._legal_cache = None
        return None

    def full_state(self) -> np.ndarray:
        out = np.zeros(self.state_obs_size, dtype=np.float32)
        self.layout.encode(self.st, 0, out, True)
        return out

    # --- acting -----------------------------------------------------------------------
    def check(self, action: Any) -> int:
        """The index of ``action`` (index or label) if legal now; else a clear error."""
        if type(action) in _PLAIN_INTS:  # the AEC loop's case: the observed mask, if valid
            a = int(action)
            if 0 <= a < self._n_actions:
                legal = self._cached_legal()  # valid: the seat to move's, the deal not over
                if legal is not None and legal[a]:
                    return a
        kind = self.kind
        n = kind.n_actions
        if isinstance(action, str):
            try:
                a = kind.action_index(action)
            except A.ActionError:
                other = _other_game_label(kind, action)
                if other is None:
                    raise
                raise IllegalActionError(
                    f"{action!r} is an action of {other}, not of rules={kind.name!r}; "
                    f"legal now: {self.legal_labels()}"
                ) from None
        else:
            a = action_int(action)  # ints, numpy ints, 0-d integer arrays and tensors
            if a is None:
                raise IllegalActionError(
                    f"an action must be an int index 0..{n - 1} (an int, a numpy integer or a "
                    f"0-d integer array) or a label, got {action!r}"
                )
            if not 0 <= a < n:
                raise IllegalActionError(
                    f"action index {a} is out of range: expected 0..{n - 1}; "
                    f"legal now: {self.legal_labels()}"
                )
        if self.deal_over:
            raise IllegalActionError(
                f"the deal is over: no action is legal (got {kind.labels[a]!r})"
            )
        mask = self._cached_legal()
        if mask is None:
            legal_actions(self.st, self.rv, self._mask)
            mask = self._mask
        if not mask[a]:
            raise IllegalActionError(
                f"illegal action {kind.labels[a]!r} (index {a}) for seat {self.to_move} "
                f"in phase {self.phase_name}: legal are {self.legal_labels()}"
            )
        return a

    def step(self, action: Any) -> bool:
        """Apply an action of the seat to move; returns True when it ended the deal."""
        st = self.st
        cache = self._legal_cache
        # check()'s fast path, inlined (the AEC loop): an index the observed mask allows
        if not (type(action) in _PLAIN_INTS and cache is not None and cache[0] is st
                and cache[1] is self.rv and 0 <= (a := int(action)) < self._n_actions
                and cache[3][a] and st.tobytes() == cache[2]):
            a = self.check(action)
        seat = st.item(_TO_MOVE)  # self.to_move, inlined (the hot path)
        if self.four:
            seat = self.player(seat)
        history = self.history
        if not history:
            self._deal_starts()
        history.append((seat, a))
        if not apply_action(st, self.rv, a):
            return False
        self._deal_ended()
        return True

    def _deal_starts(self) -> None:
        """Before a deal's first action: what its record keeps of its start."""
        if self._keep != 0:
            self._deal_start = (self.deck(), self.dealer, self.st.item(S.CUT))

    def _deal_ended(self) -> None:
        """After the action that ended the deal: its settlement and record."""
        self.last_settlement = self.settlement()
        if self._keep != 0:
            self.records.append(self.record(self.last_settlement))

    def _next_cut(self) -> int:
        """The cut of the next deal (the partie's given cuts, else -1: drawn), once the
        current deal is finished."""
        if not self.deal_over:
            raise RuntimeError("the current deal is not finished")
        n = self.deal_no
        return self._cuts[n] if n < len(self._cuts) else -1

    def next_deal(self) -> bool:
        """Gather, cut and deal the next deal of the partie; False when the partie is over."""
        ok = bool(advance_partie(self.st, self.rv, self._next_cut()))
        if ok:
            self.history = []
        return ok

    def next_deal_observe(self, out: np.ndarray, mask: np.ndarray) -> int:
        """:meth:`next_deal` and :meth:`observe` of the new deal's player to move, in one
        compiled call (``out`` and ``mask`` fresh arrays of the observation's and the mask's
        size, written as :func:`~mariash_env.core.engine.step_observe` writes them).
        Returns -1 when the partie is over, else
        :func:`~mariash_env.core.engine.advance_observe`'s code (the player to move, the
        phase, the deal)."""
        code = advance_observe(self.st, self.rv, self._next_cut(), out, mask)
        if code >= 0:
            self.history = []
        return code

    # --- results ----------------------------------------------------------------------
    def settlement(self) -> dict[str, Any]:
        """The settlement of the finished deal: bets, levels, outcomes, amounts, payments
        (its game's ``settlement``: :mod:`mariash_env.games.voleny.record`,
        :mod:`mariash_env.games.licitovany.record`)."""
        if not self.st.item(S.SETTLED):
            raise RuntimeError("the deal is not settled yet")
        if self._settle is None:  # imported on first use (once a deal: keep it)
            self._settle = self.kind.load("settlement")
        return self._settle(self)

    def record(self, settlement: dict[str, Any] | None = None) -> dict[str, Any]:
        """The game record of the finished deal (INTERFACE.md): one JSON-able object."""
        if self._keep == 0:
            raise RuntimeError("this game keeps no records (records=False)")
        deck, dealer, cut = self._deal_start
        labels = self.kind.labels
        return {
            "format": "mariash-deal/1",
            "rules": self._rules_dict,
            "deal": self.deal_no,
            "dealer": dealer,
            "deck": deck,
            "cut": None if cut < 0 else cut,
            "actions": [[s, labels[a]] for s, a in self.history],
            "settlement": self.settlement() if settlement is None else settlement,
        }
