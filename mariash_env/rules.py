"""Rule sets and variants (RULES.md §11) as a validated configuration.

A :class:`Rules` object is turned into a small ``int64`` vector that the
compiled core reads; every variant is a switch there, never a fork of the code.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .games.base import REGISTERED

# Indices into the rules vector read by the core.
R_HRA, R_SEDMA, R_STO, R_BETL, R_DURCH = 0, 1, 2, 3, 4
R_KILLED_SEVEN = 5
R_MAX_FLEK = 6
R_CAP = 7
R_QUEEN_FIRST = 8
R_SHUFFLE_EVERY = 9
R_NDEALS = 10
R_OPEN = 11  # open betl / open durch may be named (§11.1)
R_ORDER_FREE = 12  # hundreds counted order-free, priced multiplicatively (§11.2)
R_PLAYERS = 13  # 3, or 4 with the dealer sitting out (§11.3)
R_GAME = 14  # which game: G_VOLENY or G_LICIT (kept last)
R_SIZE = 15

G_VOLENY, G_LICIT = 0, 1  # the R_GAME of each game's kind (games/*/kind.py)

TARIFFS = {
    "home": {"hra": 1, "sedma": 2, "sto": 4, "betl": 5, "durch": 10},
    "csm": {"hra": 1, "sedma": 2, "sto": 4, "betl": 15, "durch": 30},
}
UNLIMITED_FLEK = 24  # max_flek=None: RULES.md §12 bounds every bet at level 24 (x 2^24)
# The flek levels' names, for messages (0 base; licitovaný's default 5 is kalhoty).
FLEK_LEVEL_NAMES = {1: "flek", 2: "re", 3: "tutti", 4: "boty", 5: "kalhoty"}

# Licitovaný mariáš (LICITOVANY.md §11): only these options apply; the defaults differ.
LICIT_OPTIONS = ("rules", "deals", "max_flek", "payment_cap", "marriage_order", "shuffle")
LICIT_DEFAULTS = {"max_flek": 5, "payment_cap": 500}


class RulesError(ValueError):
    """An unknown rule option or an invalid value for one."""


class UnknownOptionError(RulesError, TypeError):
    """A keyword that is no rule option of any game: a TypeError too, as Python's own
    "unexpected keyword argument" is, and its message says so.  TorchRL's
    ``GymEnv(env_id)`` passes ``frameskip=`` to every env it makes and drops it on such a
    TypeError only."""


def _unknown_option(named: str, unexpected: str, rest: str) -> UnknownOptionError:
    """The error for keywords that are no rule option: ``named`` says which options are
    refused, ``unexpected`` is the first keyword no game has, ``rest`` what is taken."""
    return UnknownOptionError(f"unknown rule {named} (unexpected keyword argument "
                              f"{unexpected!r}): {rest}")


@dataclass(frozen=True)
class Rules:
    """The rule switches of RULES.md §11; the defaults are the seed-001 table
    (:func:`make_rules` gives ``deals=16`` with ``players=4``, §11.3)."""

    rules: str = "voleny"
    deals: int = 12
    tariff: str = "home"
    killed_seven: int = 2
    max_flek: int | None = 4
    payment_cap: int | None = None
    marriage_order: str = "any"
    shuffle: str = "partie"
    hundred_counting: str = "first_played"
    open_contracts: bool = False
    players: int = 3

    @property
    def game(self) -> int:
        """``G_VOLENY`` or ``G_LICIT``: which game's phase machine runs (the registered
        game's ``R_GAME``)."""
        return _vector_game(self.rules).game

    def to_dict(self) -> dict[str, Any]:
        """The options as a dict (only those that apply to the game: licitovaný's six)."""
        d = asdict(self)
        return {k: d[k] for k in _vector_game(self.rules).options}

    def vector(self) -> np.ndarray:
        t = TARIFFS[self.tariff]
        v = np.zeros(R_SIZE, dtype=np.int64)
        v[R_HRA], v[R_SEDMA], v[R_STO] = t["hra"], t["sedma"], t["sto"]
        v[R_BETL], v[R_DURCH] = t["betl"], t["durch"]
        v[R_KILLED_SEVEN] = self.killed_seven
        v[R_MAX_FLEK] = UNLIMITED_FLEK if self.max_flek is None else self.max_flek
        v[R_CAP] = 0 if self.payment_cap is None else self.payment_cap
        v[R_QUEEN_FIRST] = self.marriage_order == "queen_first"
        v[R_SHUFFLE_EVERY] = self.shuffle == "every_deal"
        v[R_NDEALS] = self.deals
        v[R_GAME] = self.game
        v[R_OPEN] = self.open_contracts
        v[R_ORDER_FREE] = self.hundred_counting == "order_free"
        v[R_PLAYERS] = self.players
        return v


# The choice options but ``rules``, whose values are the registry's (_rules_choices).
_CHOICES = {
    "tariff": tuple(TARIFFS),
    "killed_seven": (2, 3),
    "marriage_order": ("any", "queen_first"),
    "shuffle": ("partie", "every_deal"),
    "hundred_counting": ("first_played", "order_free"),
    "open_contracts": (False, True),
    "players": (3, 4),
}
DEALS_PER_PARTIE = {3: 12, 4: 16}
"""A partie's deals by default: each seat deals four times (RULES.md §2, §11.3)."""
# The type each choice option must have: ``True == 1`` and ``2.0 == 2`` in Python, so a
# membership test alone would accept ``killed_seven=2.0`` or ``players=True``.
_TYPES: dict[str, tuple[type, ...]] = {
    "tariff": (str,), "marriage_order": (str,), "shuffle": (str,),
    "hundred_counting": (str,), "killed_seven": (int, np.integer), "players": (int, np.integer),
    "open_contracts": (bool, np.bool_),
}
MAX_DEALS = 1_000_000
"""Most deals in one partie: far beyond any table, and with it the deal counter and the
running scores stay exact whatever the stakes."""
MAX_PAYMENT_CAP = 2**31 - 1
"""Largest ``payment_cap``: what the core's amounts can hold."""


def is_int(value: Any) -> bool:
    """An int or numpy integer, not a bool (``isinstance(True, int)`` holds in Python)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def action_int(action: Any) -> int | None:
    """An action index as Gymnasium's ``Discrete`` takes it -- an int or a numpy integer
    (not a bool), or a 0-d integer array, which a policy's ``predict`` returns -- or a 0-d
    integer tensor; None for anything else (floats, bools, arrays of another shape)."""
    if is_int(action):
        return int(action)
    dtype = getattr(action, "dtype", None)
    if getattr(action, "ndim", None) != 0 or dtype is None or "bool" in str(dtype):
        return None
    if isinstance(action, np.ndarray):
        return int(action) if np.issubdtype(action.dtype, np.integer) else None
    try:  # a tensor: an integer one has __index__, a float one raises
        return operator.index(action)
    except TypeError:
        return None


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones, so that records stay JSON-writable."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def _rules_choices() -> tuple[str, ...]:
    """The values of option ``rules``: the registered games that the compiled core runs
    from a rules vector (asked of the registry, :data:`games.base.REGISTERED`)."""
    return tuple(n for n, k in REGISTERED.items() if k.game is not None)


def _vector_game(name: Any) -> Any:
    """The registered GameKind of ``name``, a game with a rules vector (RulesError naming
    the accepted games otherwise; a registered game with its own engine is named so)."""
    kind = REGISTERED.get(name) if isinstance(name, str) else None
    if kind is not None and kind.game is None:
        raise RulesError(
            f"rule option rules={name!r}: {kind.title or name} has its own engine and no "
            f"rules vector (Rules); its front ends take rules={name!r} by name "
            f"(mariash_env.env, VectorEnv, ...); accepted here: {list(_rules_choices())}"
        )
    if kind is None:
        own = [n for n, k in REGISTERED.items() if k.game is None]
        also = (f" (and, in the front ends that take a game by name, {own}: games with an "
                "engine of their own)") if own else ""
        raise RulesError(f"invalid value {name!r} for rule option 'rules': expected a str, "
                         f"one of {list(_rules_choices())}{also}")
    return kind


def _check_choice(key: str, value: Any) -> None:
    types = _TYPES[key]
    ok_type = isinstance(value, types) and (
        key == "open_contracts" or not isinstance(value, (bool, np.bool_))
    )
    if not ok_type or _plain(value) not in _CHOICES[key]:
        kind = {str: "a str", bool: "a bool", int: "an int"}[types[0]]
        raise RulesError(
            f"invalid value {value!r} for rule option {key!r}: expected {kind}, one of "
            f"{list(_CHOICES[key])}"
        )


def make_rules(**options: Any) -> Rules:
    """Validate rule keyword arguments and build a :class:`Rules`.

    Every value is type-checked (``killed_seven=2.0``, ``open_contracts=0`` and
    ``deals=True`` are refused) and numpy scalars become Python ones.  ``deals`` is
    1..:data:`MAX_DEALS`.  Raises :class:`RulesError` naming the option, the value and
    the accepted values.
    """
    known = set(Rules.__dataclass_fields__)
    for key, value in options.items():
        if key not in known:
            raise _unknown_option(f"option {key!r}", key, f"expected one of {sorted(known)}")
        if key == "rules":
            _vector_game(value)
        elif key in _CHOICES:
            _check_choice(key, value)
    game = _vector_game(options.get("rules", "voleny"))
    players = _plain(options.get("players", 3))
    if players not in game.players:
        raise RulesError(
            f"rule options players={players} and rules={game.name!r} conflict: "
            f"{game.title} is played by {' or '.join(map(str, game.players))} players (the "
            "four-player table, RULES.md §11.3, is a volený variant)"
        )
    foreign = game.foreign_options(options)  # a fixed one (licitovaný's players=3) is taken
    if foreign:
        fixed = "".join(f" and {k}={v!r}" for k, v in game.fixed_options)
        raise RulesError(
            f"rule option(s) {foreign} are volený options that do not apply to "
            f"rules={game.name!r} ({game.title}); its options are {list(game.options)}{fixed}"
        )
    options = {**dict(game.rule_defaults), **options}
    deals = options.get("deals", DEALS_PER_PARTIE[options.get("players", 3)])
    options.setdefault("deals", deals)
    if not is_int(deals) or not 1 <= deals <= MAX_DEALS:
        raise RulesError(
            f"invalid value {deals!r} for rule option 'deals': expected an int 1..{MAX_DEALS}"
        )
    mf = options.get("max_flek", 4)
    if mf is not None and (not is_int(mf) or not 0 <= mf <= 20):
        default = dict(game.rule_defaults).get("max_flek", 4)  # licitovaný's is 5, kalhoty
        raise RulesError(
            f"invalid value {mf!r} for rule option 'max_flek': expected an int 0..20 "
            f"(this game's default {default} = {FLEK_LEVEL_NAMES.get(default, default)}) "
            f"or None for unlimited (bounded at level {UNLIMITED_FLEK}, RULES.md §12)"
        )
    cap = options.get("payment_cap")
    if cap is not None and (not is_int(cap) or not 1 <= cap <= MAX_PAYMENT_CAP):
        raise RulesError(
            f"invalid value {cap!r} for rule option 'payment_cap': expected an int "
            f"1..{MAX_PAYMENT_CAP} or None"
        )
    if options.get("open_contracts") and options.get("tariff") == "csm":
        raise RulesError(
            "rule options open_contracts=True and tariff='csm' conflict: the ČSM tariff "
            "has no open contracts (RULES.md §11.1, the English rules guide); use tariff='home' or "
            "open_contracts=False"
        )
    return Rules(**{k: _plain(v) for k, v in options.items()})


def check_game_options(kind: Any, rules: Mapping[str, Any]) -> None:
    """RulesError naming the options of ``rules`` that game ``kind`` does not take
    (:meth:`~mariash_env.games.base.GameKind.foreign_options`) and what it takes: the one
    check of every front end that drives a game without the rule vector (lízaný)."""
    foreign = kind.foreign_options(rules)
    if foreign:
        takes = ", ".join([*kind.options, *(f"{k}={v!r}" for k, v in kind.fixed_options)])
        rest = (f"they do not apply to rules={kind.name!r} ({kind.title or kind.name} takes "
                f"{takes} only)")
        unknown = [k for k in foreign if k not in Rules.__dataclass_fields__]
        if unknown:
            raise _unknown_option(f"option(s) {foreign}", unknown[0], rest)
        raise RulesError(f"unknown rule option(s) {foreign}: {rest}")


def rules_vector(rules: Rules | np.ndarray | None) -> np.ndarray:
    """The core's rules vector from a :class:`Rules`, an existing vector, or None (defaults)."""
    if rules is None:
        return make_rules().vector()
    if isinstance(rules, Rules):
        return rules.vector()
    return np.asarray(rules, dtype=np.int64)
