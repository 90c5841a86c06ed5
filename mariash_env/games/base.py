"""What a game is to the front ends: :class:`GameKind`, one per game, and the front-end
names a game declares it supports.  Names no game; the games are listed only in
:mod:`mariash_env.games.registry`."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

# Every front end a game can be driven by.  A front end refuses a game by asking
# ``kind.supports(front_end)`` (GameError naming what it does support), never by its name.
FRONT_ENDS = ("game", "aec", "parallel", "vector", "records", "single_agent", "arena",
              "openspiel", "play", "service", "training", "export", "seat_record")
# ``seat_record``: the seat records (``mariash-seat/1``) a game server sends the robot
# service, replayed into the seat's view (:mod:`mariash_env.seat_record`).


REGISTERED: dict[str, GameKind] = {}
"""The registered games by name, in registration order: written only by
:func:`mariash_env.games.registry.register_game` (the one list of games).  It lives
here, in a module that imports no game, so that :mod:`mariash_env.rules` (which every
game's package imports) reads the games without importing the registry."""


class GameError(ValueError, KeyError):
    """An unknown game, or a front end asked for a game it does not drive.  A KeyError
    too: ``kinds.kind_of`` raised KeyError for an unknown game before the registry."""

    __str__ = ValueError.__str__  # the message itself, not KeyError's repr of it


class StuckGameError(RuntimeError):
    """A loop that plays a game forward (random play, a robot's play-out, a warm-up deal)
    took more steps than the rules let it take: the engine does not move the game on (an
    action that changes nothing, a broken action dispatch).  Raised at once instead of
    looping for ever; the message names the loop and its bound."""


def step_bound(what: str, limit: int) -> Callable[[], None]:
    """A counter for a loop that plays ``what`` forward, at most ``limit`` steps by the
    rules (a deal's decisions: ``core.engine.deal_decisions``): called once a step, it
    raises :class:`StuckGameError` naming ``what`` and ``limit`` at step ``limit + 1``::

        tick = step_bound("random play of a deal", deal_decisions(rv))
        while not done:
            tick()
            done = apply_action(st, rv, a)
    """
    taken = 0

    def step() -> None:
        nonlocal taken
        taken += 1
        if taken > limit:
            raise StuckGameError(
                f"{what} took more than {limit} steps, the most the rules let it take: "
                "the game does not move on")

    return step


@dataclass(frozen=True)
class SeatLayout:
    """The observation of one seat count of a game (volený with four players has its own)."""

    players: int
    obs_size: int
    state_obs_size: int
    obs_layout: tuple[tuple[str, int, int, str], ...]
    encode: Any  # njit (st, me, out, omniscient)
    observe_into: Any  # njit (st, rules, me, out, mask)
    # whether it opens with the default seat count's observation of the deal, byte for byte
    # (volený at four: the three-player deal's), so that a network of the game reads it
    opens_with_default: bool = False

    # Copies: immutable, and its compiled functions are the game's own; a copy of them
    # would be a new numba dispatcher (~3 ms to deep-copy, ~60 kB pickled), compiled again
    # at its first call in another process.  A copy is the same layout; a pickled one is
    # the registered game's layout, by name.
    def __deepcopy__(self, memo: dict[int, Any]) -> SeatLayout:
        return self

    def __reduce_ex__(self, protocol: Any) -> Any:
        for kind in REGISTERED.values():
            if self.players in kind.players:
                own = kind.layout(self.players)
                if own.encode is self.encode and own.observe_into is self.observe_into:
                    return GameKind.layout, (kind, self.players)
        return object.__reduce_ex__(self, protocol)


@dataclass(frozen=True)
class GameArena:
    """How the arena (:mod:`mariash_env.arena`) plays a game with its own engine (a
    GameKind's ``arena``): the duplicate match, seatings and bootstrap stay the arena's;
    its deals are played in the calling process (backend ``process``).  A game without
    one is played by the compiled core, with the contract breakdown."""

    title: str  # the game in the arena's messages ("a lízaný match ...")
    rules: Callable[[Any], Any]  # rule options -> the match's rules (ValueError naming one)
    play_seatings: Callable[..., Any]  # (robots, seatings, seed) -> an outcome per seating
    stats: Callable[..., Any]  # (k, seatings, outcomes) -> a summary row per robot
    table: Callable[[Any], str]  # MatchResult -> its head and a line per robot
    roles: tuple[str, ...]  # MatchResult.by_role's names, one per seat
    # seed -> one deal of its engine (``over``, ``to_move``, ``observe(seat)``,
    # ``legal_mask(seat)``, ``play(action)``, ``rewards``): the data set's rows
    deal: Callable[[int], Any] | None = None
    # the most decisions one of those deals takes (lízaný: a card each, 32): the data set's
    # loop over a deal stops there (StuckGameError) when the engine does not move on
    deal_decisions: int | None = None
    # the numba kernels its deals call from Python: the arena's warm-up before its workers
    # fork is announced when the disk cache lacks one (compile.compiling_notice)
    kernels: tuple[Any, ...] = ()


@dataclass(frozen=True)
class TableText:
    """How :mod:`mariash_env.render` writes the table of a game of the compiled core (a
    GameKind's ``render``): what is the game's own; the seats, hands, trick and payments
    are written alike."""

    roles: tuple[str, ...]  # a seat's role from forehand on; the first names forehand
    contract: Callable[[Any], list[str]]  # Game -> the lines on its bidding and contract
    settled: tuple[str, str] = ("bets", "bet")  # settlement()'s list, each item's name key
    show_end: bool = False  # name how the deal ended when nothing was settled (a fold)


@dataclass(frozen=True)
class TableView:
    """What the play table (:class:`mariash_env.play.session.PlaySession`) shows of a game
    of the compiled core (a GameKind's ``table_view``), each read from the human seat's
    observation (``obs``) or a finished deal's settlement: the requests, seats, tricks,
    events and files are the session's, alike in every game."""

    blocks: dict[str, tuple[int, int]]  # the observation's blocks: name -> (offset, size)
    card_heads: tuple[str, ...]  # action heads whose ``head:CARD`` is a click on the hand
    roles: tuple[str, ...]  # a seat's role from forehand on
    hand: Callable[[Any], list[str]]  # obs -> the hand's card codes
    counts: Callable[[Any], tuple[Any, Any]]  # obs -> card points, tricks per relative seat
    forehand: Callable[[Any, int], int | None]  # (obs, me) -> forehand's seat, None unknown
    # (obs, me, names[lang][seat], phase) -> "contract" (with "tags", "trump", "trump_card"),
    # and whatever else the game shows ("auction"; "positions": seat -> a position's name)
    table: Callable[..., dict[str, Any]]
    describe: Callable[[Any, str], dict[str, str]]  # (obs, label) -> {"label", "cz", "en"}
    settlement_lines: Callable[..., list[str]]  # (settlement, names, lang) -> its lines
    actor_won: Callable[[dict[str, Any]], bool]  # settlement -> the actor won (series' count)
    talon: bool = False  # a talon is dealt face down: the deal's review shows it
    # Game -> what decided the finished deal beyond its settlement, for settlement_lines'
    # ``facts`` (the trick the trump seven fell in, each side's first marriage); None: none
    facts: Callable[[Any], dict[str, Any]] | None = None


@dataclass(frozen=True)
class DealBounds:
    """A game's bounds on one deal (a GameKind's ``deal_bounds``), OpenSpiel's
    ``GameInfo``: ``gain[r]`` and ``loss[r]`` are the most the seat ``r`` places after
    the deal's dealer (0 the dealer; at four the one sitting out) can win and lose in one
    deal, the ``payment_cap`` applied; ``decisions`` bounds the deal's player decisions."""

    gain: tuple[int, ...]
    loss: tuple[int, ...]
    decisions: int


@dataclass(frozen=True)
class HiddenInfo:
    """What a seat of a compiled-core game knows of a deal and which of the deal's decisions
    the other seats do not see (a GameKind's ``hidden_info``): read by the OpenSpiel
    adapter's information state and resampler (:mod:`mariash_env.openspiel`) and by the
    robots' :class:`~mariash_env.robots.view.SeatView`.  The deal's deck positions go to
    buckets: core seats 0..2, and 3 for the cards one seat alone sees besides its dealt
    hand (volený forehand's first seven, the licitovaný talon)."""

    # (st, seat, n, rng, rules, restrict=None) -> int32[n, STATE_SIZE]: worlds uniform over
    # what ``seat`` knows of the deal in ``st``; raises one of ``world_errors`` if none fits
    sample_worlds: Callable[..., Any]
    world_errors: tuple[type[Exception], ...]
    first_seen: int  # deck positions forehand sees before the rest (bucket 3); 0: none
    third_holder: int  # the record slot (core.state) of the seat that knows bucket 3
    hidden: Callable[[int], bool]  # a decision the other seats do not see
    # (decisions, world, me) -> the decisions with the other seats' hidden ones the world's
    fill_hidden: Callable[..., list[int]]
    # (a, record, me, discards before it in the deal) -> a hidden decision as ``me``
    # replays it: (its block's first index, whether ``me`` knows it, whether a discard)
    hidden_choice: Callable[..., tuple[int, bool, bool]]
    # (record, decisions) -> a card bucket 3's holder showed from it (-1: none)
    shown_third: Callable[..., int]
    # (world, decisions) -> (a card that stays in bucket 3 or -1, at its very position)
    kept_third: Callable[..., tuple[int, bool]]
    talon_from_hands: bool  # a taken talon holds other seats' cards (its plays say nothing)
    # (st, seat, rules) -> what the seat knows of each hidden card (voids, ...), read when
    # no talon was taken; None: nothing but the hands
    knowledge: Callable[..., Any] | None = None


@dataclass(frozen=True)
class SuitSymmetry:
    """The suit relabellings that map a game's deals onto equivalent ones (a GameKind's
    ``symmetry``): training draws labelled states under them (``dmc.label_augment``).
    A permutation is ``int64[4]`` (``[n, 4]`` for ``n`` records), suit ``s`` becoming
    ``perm[s]``."""

    symmetries: Callable[[Any], Any]  # state record -> int64[k, 4]: its permutations
    random_symmetries: Callable[..., Any]  # (records [n, S], rng) -> int64[n, 4], uniform
    permute_suits: Callable[..., Any]  # (records, perm) -> the relabelled records
    permute_actions: Callable[..., Any]  # (per-action rows [n, A], perm) -> moved with them


@dataclass(frozen=True)
class GameKind:
    """One game's public tables and compiled encoders, and what front ends need of it.

    ``game`` is the rules vector's ``R_GAME`` (None: a game outside the shared compiled
    engine, with a core of its own, as lízaný's, driven only by the front ends it lists in
    ``front_ends``).  ``table_robot``,
    ``replay``, ``vector``, ``aec``, ``arena``, ``render``, ``table_session``,
    ``table_view``, ``settlement`` and ``search_candidates`` are ``"module:name"`` paths, loaded by
    :meth:`load` when asked for, so that the registry imports no front end.  ``net`` and ``strong``
    are the robot specs that ``make_robot("net")`` and ``make_robot("strong")`` play in this game.
    """

    name: str
    game: int | None
    n_actions: int
    labels: tuple[str, ...]
    action_index: Callable[[str], int]
    action_label: Callable[[int], str]
    obs_size: int
    state_obs_size: int
    obs_version: int
    obs_layout: tuple[tuple[str, int, int, str], ...]
    encode: Any  # njit (st, me, out, omniscient); None without a compiled core
    observe_into: Any  # njit (st, rules, me, out, mask); None without a compiled core
    unit: str  # what rewards count: groše, desetníky or the deal's reward
    phase_names: tuple[str, ...]  # the slots of the observation's ``phase`` one-hot
    players: tuple[int, ...] = (3,)  # the seat counts it is played with
    front_ends: frozenset[str] = frozenset(FRONT_ENDS)
    options: tuple[str, ...] = ("rules",)  # the rule options it accepts
    # options it takes no choice in but accepts at the value it plays (lízaný: deals=1,
    # players=2), so that code written for every game may pass them
    fixed_options: tuple[tuple[str, Any], ...] = ()
    table_robot: str = ""  # "module:Class" of its rule-based robot
    # "module:function" of the table robot's compiled playout (a search's simulations):
    # ``f(w, rules, obs, mask, view, stop_trick, claim)`` plays on in place and returns
    # how many actions it applied (0: none here, the Python robot moves); "" = none
    table_playout: str = ""
    replay: str = ""  # "module:function" replaying one of its records
    # a game whose records are a format of their own (not the engine's deal records): that
    # format, and "module:function" replaying one such record (checked) to its result
    record_format: str = ""
    record_replay: str = ""
    # "module:Class" of its own OpenSpiel game ("": the adapter of the compiled engine)
    openspiel_game: str = ""
    vector: str = ""  # "module:Class" of its own batched engine ("": the compiled core's)
    aec: str = ""  # "module:Class" of its own AEC env ("": env.raw_env, on Game)
    table_session: str = ""  # "module:Class" of its own play table ("": PlaySession)
    table_view: str = ""  # "module:name" of its TableView (what PlaySession shows of it)
    settlement: str = ""  # "module:function": Game -> its finished deal's settlement dict
    # "module:function" (phase, legal, table robot's choice) -> the decisions a searching
    # robot tries ("": every legal one)
    search_candidates: str = ""
    # actions every bundled robot takes whenever legal, unsearched (volený's lay-down,
    # RULES.md §8)
    claim_actions: tuple[int, ...] = ()
    render: str = ""  # "module:name" of its TableText (render_mode "ansi" on Game)
    arena: str = ""  # "module:name" of its own arena (a GameArena; "": the compiled core's)
    # the arena's "contracts as actor" columns (mariash_env.arena.CONTRACT_KEYS) as people
    # read them in this game
    arena_contracts: str = "suit/conc./void/betl/durch"
    title: str = ""  # the game's name for people
    units: str = ""  # the unit in tables of scores (plural); "" = ``unit``
    phase_groups: tuple[tuple[str, str], ...] = ()  # core phase -> its name in infos
    seat_layouts: tuple[SeatLayout, ...] = ()  # the other seat counts' observations
    # Robot specs (mariash_env.robots.make_robot) of robots "net" (the best shipped network
    # alone) and "strong" (the strongest at about a millisecond a decision); "" = none
    # yet.  A shipped model is named "models/FILE" (found in a checkout or a wheel).
    net: str = ""
    strong: str = ""
    # The robots the research tools take by default in this game: the rating ladder's
    # roster (``research/ladder.py``) and the robots whose best response the shipped table
    # measures (``research/best_response.py --table``).
    ladder_robots: tuple[str, ...] = ()
    probe_robots: tuple[str, ...] = ()
    # whether nnpimc's network replays the other seats' decisions in its worlds here
    # (``inference=True``: :func:`mariash_env.search.inference.other_decisions`), so that
    # :func:`mariash_env.compile.warmup` with ``network`` compiles that too
    world_inference: bool = False
    # a partie's records hold each deal's result by player (``result.rewards``), player_0
    # being seat ``k % players`` in deal ``k`` (lízaný's lead passing each deal), instead of
    # a settlement with payments by seat
    results_by_player: bool = False
    # Rule options (``make_rules``) whose defaults in this game differ from Rules' own.
    rule_defaults: tuple[tuple[str, Any], ...] = ()
    # "module:name" of its HiddenInfo (what a seat knows of a deal: OpenSpiel's information
    # state and resampling, SeatView's worlds); "module:function" (rules, highest flek
    # level) -> DealBounds (what each seat can win and lose in a deal, its decisions),
    # OpenSpiel's GameInfo bounds
    hidden_info: str = ""
    deal_bounds: str = ""
    # "module:name" of its SuitSymmetry ("": none; label augmentation refuses the game)
    symmetry: str = ""
    # "module:name" of its own PIMC robot class (robot "pimc" where the shared one, on the
    # game view and the solver, cannot play the game; its ``args`` the arguments it takes)
    pimc: str = ""
    # "module:name" of its own nnpimc robot class (robot "nnpimc" where the shared one,
    # on the game view, cannot play the game; its ``args`` the arguments it takes)
    nnpimc: str = ""
    # "module:function" compiling (or loading) the kernels of its own searching robots
    # (``python -m mariash_env.compile`` calls it; lízaný's solver)
    warm_search: str = ""
    # "module:name" of its seat records (mariash_env.seat_record.SeatRecords: the robot
    # service's records rebuilt into the seat's view, and written from a Game); a game
    # with one lists the ``seat_record`` front end
    seat_records: str = ""
    # the length (int32 values) of the deal record of its own compiled engine, what
    # ``encode`` reads (label sets store it); 0 = the shared core's record
    record_size: int = 0
    # the bounds of every value of its observations and states (each front end's Box, or
    # TorchRL's Bounded, declares them): volený's and licitovaný's running scores have
    # none; lízaný's values are flags and fractions in [0, 1]
    obs_bounds: tuple[float, float] = (-np.inf, np.inf)
    # PettingZoo's ``metadata["name"]`` of its AEC and parallel envs: the env's id and
    # version, as ``connect_four_v3``, which ``str(env)``, logs, SuperSuit and RLlib's
    # registrations name it by; one a game ("": the game has no AEC env)
    env_name: str = ""

    def __post_init__(self) -> None:
        unknown = set(self.front_ends) - set(FRONT_ENDS)
        if unknown:
            raise GameError(f"game {self.name!r}: unknown front ends {sorted(unknown)}: "
                            f"expected some of {', '.join(FRONT_ENDS)}")
        if ("seat_record" in self.front_ends) != bool(self.seat_records):
            raise GameError(f"game {self.name!r}: the seat_record front end and its "
                            "seat_records go together")
        if not self.units:
            object.__setattr__(self, "units", self.unit)
        missing = set(self.players[1:]) - {s.players for s in self.seat_layouts}
        if missing:
            raise GameError(f"game {self.name!r}: no observation for {sorted(missing)} players")

    # Copies (a Game's, an env's, a robot's): the registered game itself, never a copy of
    # its tables and compiled functions (a deep copy of those took ~15 ms, a pickle
    # ~170 kB, and an unpickled one compiled them again in another process); pickled by
    # its name.  An unregistered kind is pickled by value.
    def __deepcopy__(self, memo: dict[int, Any]) -> GameKind:
        return self

    def __reduce_ex__(self, protocol: Any) -> Any:
        if REGISTERED.get(self.name) is self:
            # (the registry imports this module: named here, it is imported when unpickled)
            return importlib.import_module("mariash_env.games.registry").game_kind, (self.name,)
        return object.__reduce_ex__(self, protocol)

    def phase_of(self, obs: Any) -> Any:
        """Index into :attr:`phase_names` of each observation row (``obs``: float[B, obs])."""
        off = next(o for name, o, _, _ in self.obs_layout if name == "phase")
        return obs[:, off:off + len(self.phase_names)].argmax(1)

    def foreign_options(self, rules: Mapping[str, Any]) -> list[str]:
        """The keys of ``rules`` this game does not take: neither among :attr:`options`
        nor one of :attr:`fixed_options` at its value (an int, not a bool), sorted."""
        fixed = dict(self.fixed_options)
        return sorted(k for k, v in rules.items() if k not in self.options and not (
            k in fixed and isinstance(v, (int, np.integer))
            and not isinstance(v, (bool, np.bool_)) and v == fixed[k]))

    def supports(self, front_end: str) -> bool:
        """Whether ``front_end`` (one of :data:`FRONT_ENDS`) drives this game."""
        if front_end not in FRONT_ENDS:
            raise GameError(f"unknown front end {front_end!r}: expected one of "
                            f"{', '.join(FRONT_ENDS)}")
        return front_end in self.front_ends

    def require(self, front_end: str) -> None:
        """GameError unless ``front_end`` drives this game (names the ones that do)."""
        if not self.supports(front_end):
            have = ", ".join(f for f in FRONT_ENDS if f in self.front_ends)
            raise GameError(f"the {front_end} front end does not play {self.title or self.name} "
                            f"(rules={self.name!r}); it is played by: {have}")

    @property
    def model_seat_counts(self) -> tuple[int, ...]:
        """The seat counts a network of this game plays: its own, and those whose
        observation opens with it (:attr:`SeatLayout.opens_with_default`)."""
        return (self.players[0],) + tuple(s.players for s in self.seat_layouts
                                          if s.opens_with_default)

    def layout(self, players: int) -> SeatLayout:
        """The observation of this game with ``players`` seats (GameError if not played so)."""
        if players == self.players[0]:  # the default seat count: the kind's own fields
            return SeatLayout(players, self.obs_size, self.state_obs_size, self.obs_layout,
                              self.encode, self.observe_into)
        for s in self.seat_layouts:
            if s.players == players:
                return s
        raise GameError(f"{self.title or self.name} is not played with {players} players: "
                        f"expected one of {self.players}")

    def load(self, what: str) -> Any:
        """The object a ``"module:name"`` field (``table_robot``, ``replay``, ``vector``,
        ``aec``, ``arena``, ``render``, ``table_session``, ``table_view``, ``settlement``,
        ``search_candidates``, ``hidden_info``, ``deal_bounds``, ``table_playout``,
        ``symmetry``, ``seat_records``, ``pimc``, ``nnpimc``, ``warm_search``) names."""
        path = getattr(self, what)
        if not path:
            raise GameError(f"game {self.name!r} has no {what}")
        module, _, name = path.partition(":")
        return getattr(importlib.import_module(module), name)
