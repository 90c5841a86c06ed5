"""The parameters of the OpenSpiel game ``"mariash"`` over the compiled engine (volený,
licitovaný, four-player volený) and what follows from them: the :class:`Rules` they name,
the bounds OpenSpiel's ``GameInfo`` declares, the size of the information-state tensor.
No pyspiel here: scripts and tests read these without OpenSpiel's game objects.

OpenSpiel parameters cannot be None and OpenSpiel fills in every default, hence the
sentinels (``deals`` -1, ``max_flek`` -2, ``payment_cap`` -1, ``players`` -1: the game's
own default).
"""

from __future__ import annotations

from typing import Any

from ..games.base import DealBounds
from ..games.registry import game_kind
from ..games.voleny.observe import OBS_SIZE
from ..rules import UNLIMITED_FLEK, Rules, RulesError, make_rules

NUM_PLAYERS = 3  # seats of the core's deal (the players at three)
MAX_PLAYERS = 4  # players=4: the dealer sits out each deal (RULES.md §11.3)
NCARDS = 32
CUT_MIN, CUT_MAX = 2, 30  # the cut between deals of a gathered partie (RULES.md §2)


# The parameters and their defaults.  OpenSpiel fills in every default before the game
# sees its parameters, so the defaults that differ between the games are sentinels:
# ``max_flek`` -2 and ``payment_cap`` -1 mean the game's own default (volený 4 and none,
# licitovaný 5 and 500).  The volený-only options are passed on to ``make_rules`` only when
# they differ from their defaults, so that licitovaný refuses them by name.
GAME_DEFAULT_FLEK, GAME_DEFAULT_CAP = -2, -1
GAME_DEFAULT_DEALS = -1  # one deal at three (one deal, one game); 16 at four (§11.3)
# the game's own seats (three; lízaný two): a sentinel, so that an explicit players=3 is
# told from none (lízaný refuses it by name)
GAME_DEFAULT_PLAYERS = -1
_DEFAULTS: dict[str, Any] = {
    "rules": game_kind().name,  # the registry's default game
    "deals": -1,
    "tariff": "home",
    "killed_seven": 2,
    "max_flek": GAME_DEFAULT_FLEK,
    "payment_cap": GAME_DEFAULT_CAP,
    "marriage_order": "any",
    "shuffle": "partie",
    "hundred_counting": "first_played",
    "open_contracts": False,
    "players": GAME_DEFAULT_PLAYERS,
}


def rules_from_params(params: dict[str, Any]) -> Rules:
    """The :class:`Rules` of OpenSpiel parameters (module docstring: sentinels for None and
    for the game's default); RulesError naming a bad one or a bad combination."""
    unknown = set(params) - set(_DEFAULTS)
    if unknown:
        raise RulesError(
            f"unknown mariash game parameter(s) {sorted(unknown)}: expected {sorted(_DEFAULTS)}"
        )
    p = {**_DEFAULTS, **params}
    opts: dict[str, Any] = {"rules": p["rules"]}
    if p["deals"] != GAME_DEFAULT_DEALS:
        opts["deals"] = p["deals"]
    elif p["players"] in (GAME_DEFAULT_PLAYERS, NUM_PLAYERS):
        opts["deals"] = 1  # else make_rules' default: 16 at four
    mf, cap = p["max_flek"], p["payment_cap"]
    if isinstance(mf, int) and mf < GAME_DEFAULT_FLEK:
        raise RulesError(f"invalid max_flek {mf!r}: expected 0..20, -1 for unlimited or -2 "
                         "for the game's default")
    if isinstance(cap, int) and cap < GAME_DEFAULT_CAP:
        raise RulesError(f"invalid payment_cap {cap!r}: expected groše > 0, 0 for none or -1 "
                         "for the game's default")
    if mf != GAME_DEFAULT_FLEK:
        opts["max_flek"] = None if mf == -1 else mf
    if cap != GAME_DEFAULT_CAP:
        opts["payment_cap"] = None if cap == 0 else cap
    for k in ("tariff", "killed_seven", "marriage_order", "shuffle", "hundred_counting",
              "open_contracts", "players"):
        if p[k] != _DEFAULTS[k] or type(p[k]) is not type(_DEFAULTS[k]):
            opts[k] = p[k]
    return make_rules(**opts)


# The parameters only some games take: written when the game's kind accepts them.
_OWN_OPTIONS = ("tariff", "killed_seven", "hundred_counting", "open_contracts", "players")


def game_params(rules: Rules) -> dict[str, Any]:
    """OpenSpiel parameters of ``rules`` (the inverse of :func:`rules_from_params`): the
    rules as played, the game's defaults filled in, naming only the options the game takes
    (licitovaný: none of volený's own, and ``players`` 3, its seats); the game's string."""
    out = {
        "rules": rules.rules, "deals": rules.deals,
        "max_flek": -1 if rules.max_flek is None else rules.max_flek,
        "payment_cap": 0 if rules.payment_cap is None else rules.payment_cap,
        "marriage_order": rules.marriage_order, "shuffle": rules.shuffle,
    }
    # volený's own options (licitovaný has none of them, and plays at its fixed players=3)
    kind = game_kind(rules, front_end="openspiel")
    taken = set(kind.options) | {k for k, _ in kind.fixed_options}
    out.update({k: getattr(rules, k) for k in _OWN_OPTIONS if k in taken})
    return out


def _level(rules: Rules) -> int:
    return UNLIMITED_FLEK if rules.max_flek is None else rules.max_flek


def _deal_bounds(rules: Rules) -> DealBounds:
    """The game's bounds on one deal (its kind's ``deal_bounds``, derived there): what
    each seat, by its place after the dealer, can win and lose, and the deal's player
    decisions."""
    return game_kind(rules, front_end="openspiel").load("deal_bounds")(rules, _level(rules))


def utility_range(rules: Rules) -> tuple[float, float]:
    """``(min, max)``: the least and the most one seat can end a partie with, groše
    (licitovaný: desetníky); OpenSpiel's ``min_utility`` and ``max_utility``.

    Each deal adds at most what the seat can win in its place after that deal's dealer
    (seat 0 deals first, then the deal passes to the left) and takes at most what it
    can lose there (the game's ``deal_bounds``: the bets that can stand together at the
    highest flek level, the ``payment_cap``); the range is the widest seat's.  A deal
    reaches each end (tests/test_openspiel_bounds.py: volený's defaults, order-free
    hundreds, the killed seven at 3, four players; licitovaný's loss uncapped; its win
    uncapped is an upper bound within a factor 1.3 of a deal's), so the range of one
    deal, or of a partie whose deals are each shuffled, is the game's; a partie of
    gathered decks may not reach it."""
    b = _deal_bounds(rules)
    n = rules.players

    def widest(per_place: tuple[int, ...]) -> int:
        return max(sum(per_place[(seat - deal) % n] for deal in range(rules.deals))
                   for seat in range(n))

    return -float(widest(b.loss)), float(widest(b.gain))


def utility_bound(rules: Rules) -> float:
    """Largest |groše| (licitovaný: desetníky) one seat can win or lose in a partie: the
    wider end of :func:`utility_range`."""
    low, high = utility_range(rules)
    return max(-low, high)


def max_game_length(rules: Rules) -> int:
    """A bound on the player decisions of a partie: the deals times the game's bound per
    deal at the highest flek level (its ``deal_bounds``, derived there)."""
    return rules.deals * _deal_bounds(rules).decisions


# Per deal, after the encoding in the information state: the cut k (2..30) one-hot, then
# in a game whose forehand sees cards first (``HiddenInfo.first_seen``) the seat's first
# cards when it was forehand (volený's first seven, what it chose trumps from, RULES.md §3;
# licitovaný deals every hand whole before anyone acts, LICITOVANY.md §2).
CUT_SLOTS = 32
FIRST7_SLOTS = 32
INFO_BLOCK = OBS_SIZE + CUT_SLOTS + FIRST7_SLOTS  # volený's
# With open contracts (volený, RULES.md §11.1), last: who named each no-trump contract of
# the deal, [contract][relative player].  Each is named at most once (an overcall is
# higher), so the block is the overcalls in order; the encoding keeps only the contract
# that stands, and histories differing in what was overcalled shared a tensor.
CALLED = ("contract:betl", "contract:durch", "contract:open_betl", "contract:open_durch")


def call_slots(rules: Rules) -> int:
    """Floats per deal of the called contracts' block: ``len(CALLED)`` per player with
    ``open_contracts``, else none (plain volený's ``durch`` slots tell its one overcall)."""
    return len(CALLED) * rules.players if rules.open_contracts else 0


def info_block(rules: Rules) -> int:
    """Floats per deal in the information-state tensor: the game's observation (at four
    the four-player one), the cut, (volený) forehand's first seven cards and (open
    contracts) who named each no-trump contract."""
    kind = game_kind(rules, front_end="openspiel")
    obs = kind.layout(rules.players).obs_size
    return obs + CUT_SLOTS + (FIRST7_SLOTS if kind.load("hidden_info").first_seen else 0) \
        + call_slots(rules)


def info_state_size(rules: Rules) -> int:
    """Length of the information-state tensor: one block of :func:`info_block` floats per
    deal of the partie (:mod:`~mariash_env.openspiel.game`)."""
    return rules.deals * info_block(rules)

