"""The OpenSpiel game ``"mariash"`` over the compiled engine: volený (RULES.md), volený
at four (RULES.md §11.3) and licitovaný (LICITOVANY.md); :class:`MariashGame`, its type,
observer and :func:`load_game`.  Parameters: :mod:`mariash_env.openspiel.params`.

State: the compact core record (``int32[STATE_SIZE]``) driven by
:func:`mariash_env.core.engine.legal_actions` / ``apply_action``; nothing here decides a
rule.  The game's tables come from the registry
(:func:`mariash_env.games.registry.game_kind`, front end ``"openspiel"``).

* **Chance.**  The first deal's deck is drawn one card at a time from the top: 32 chance
  nodes, outcome = card index 0..31, uniform over the cards not yet drawn (as OpenSpiel's
  skat deals).  Seat 0 deals the first deal.  Between deals of a partie one chance node
  per deal: with ``shuffle="partie"`` the cut, outcome ``k`` in 2..30 uniform (RULES.md §2,
  LICITOVANY.md §2: the engine gathers and cuts); with ``shuffle="every_deal"`` 32 card
  draws again.
* **Players.**  Seats 0, 1, 2 (absolute); actions are the game's indices: volený's 115
  (:data:`mariash_env.actions.ACTION_LABELS`), licitovaný's 136
  (:data:`mariash_env.games.licitovany.actions.ACTION_LABELS`).  At four (``players=4``, RULES.md
  §11.3) players 0..3: the dealer of each deal (player 0 the first, then to the left)
  sits out and is never current, the other three hold the core deal's seats
  (:mod:`mariash_env.games.voleny.four`: player ``d+1+c`` in core seat ``c``); returns and
  rewards are the four players' (the actor ``+3A``, each other ``-A``: ``payment4``,
  as ``Game(players=4)`` pays), observations the four-player ones
  (:mod:`mariash_env.games.voleny.observe4`, 924 floats; the dealer's is the deal's public
  part), and resampling maps the player to its seat of each deal (the one sitting out:
  :mod:`mariash_env.openspiel.resample`).
* **Returns / rewards.**  Returns: running groše (licitovaný: desetníky) of the partie per
  seat (zero-sum); for ``deals=1`` zero until the deal is settled.  Rewards
  (``RewardModel.REWARDS``): the deal's payments from the decision that settles it until
  the next decision, else zero: the next deal's chance nodes in between keep them, as
  OpenSpiel reads rewards at decision nodes (``MariashState.rewards``: summed over the
  decision and terminal states they give the returns, summed over every transition
  they count a payment once per chance node after it); a game of one deal pays only at
  its end and says so (``RewardModel.TERMINAL``, as OpenSpiel's ``MCTSBot`` and
  AlphaZero require).
  Bounds: :func:`utility_range` (what each seat can lose and win, deal by deal, of the
  bets that can stand together: -4,224 and 5,248 groše a deal with the volený defaults).
  With ``max_flek=-1`` a bet can reach level 24, so the range is about 5.5e9 per deal:
  algorithms that normalise by ``max_utility`` should use a ``payment_cap`` or a finite
  ``max_flek``.
* **Observation** (string and tensor): the seat's view of the current deal, the game's
  encoding (volený 900 floats, :mod:`mariash_env.games.voleny.observe`; licitovaný 1016,
  :mod:`mariash_env.games.licitovany.observe`): its cards, what it laid and took, and the
  deal's public history, the deal number and the running scores.  While a deck is being
  drawn it is all zeros (nobody has seen a card).  The string lists the non-zero entries
  by name (``hand:Qh``, ``played_by+1:Ah``, ``points+0=0.3``...), so equal strings mean
  equal tensors.
* **Information state**: perfect recall over the whole partie.  With
  ``shuffle="partie"`` the gathered, cut deck carries information from one deal to the
  next, so the seat recalls every deal dealt so far, not just the current one.  The
  tensor (``info_state_size(rules)`` = ``deals * info_block(rules)`` floats: volený
  ``900 + 64``, licitovaný ``1016 + 32``, at four ``924 + 64``) has one block per deal of the
  partie: the seat's encoding of that deal (at its end for the deals played, now for the
  current one, zeros for deals not yet dealt), the deal's cut ``k`` one-hot in 32 slots (none for
  the first or a reshuffled deal), in volený when the seat was forehand, the first seven
  cards it chose trumps from (32 slots) and, with ``open_contracts``, who named each
  no-trump contract of the deal (``params.CALLED`` by relative player: the overcalls,
  RULES.md §11.1, which the encoding does not keep).  The string is ``p<seat>``, then per deal
  ``| deal d cut k [first7:<card>...]: <decisions> / <encoding>``: every decision of the
  deal as ``player:label``, another seat's hidden one as ``trump:?`` / ``discard:?`` /
  ``lead:?`` (licitovaný's face-down lead card), then the encoding's names.  The string
  is exactly the seat's action-observation history (it also keeps the order of the
  actions within one turn, the seat's own two discards or the raises and announcements
  of one flek turn, which the tensor does not).  The tensor counts flek levels as the
  encoding does, up to 7 (``bet_level``, ``raised_by``; licitovaný's ``comp_level``): with
  ``max_flek`` 8 or more (or ``-1``) two histories that differ only in raises beyond
  level 7 share a tensor, and only the string tells them apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..cards import CARD_CODES
from ..core import state as S
from ..games.base import GameKind
from ..games.registry import game_kind
from ..games.voleny.observe4 import OBS4_LAYOUT, OBS4_SIZE
from ..rules import Rules
from .params import (
    _DEFAULTS,
    CUT_MAX,
    CUT_MIN,
    CUT_SLOTS,
    MAX_PLAYERS,
    NCARDS,
    NUM_PLAYERS,
    game_params,
    max_game_length,
    rules_from_params,
    utility_range,
)
from .state import MariashState, _Context


def game_type(long_name: str, min_players: int, max_players: int,
              reward_model: pyspiel.GameType.RewardModel) -> pyspiel.GameType:
    """The OpenSpiel type of a ``"mariash"`` game: what every game of the package shares
    (sequential, explicit chance, imperfect information, zero-sum, every tensor and
    string), its seat counts and reward model its own."""
    return pyspiel.GameType(
        short_name="mariash",
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=reward_model,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS),
    )


# The type registered under "mariash" covers every game it loads; each game carries its
# own: the engine's games at three or four players, paying each deal's settlement as it
# is made (rewards), lízaný at two (lizany.py).
GAME_TYPE = game_type("Mariáš: volený, licitovaný or lízaný (mariash engine)", 2,
                      MAX_PLAYERS, pyspiel.GameType.RewardModel.REWARDS)
"""The ``pyspiel.GameType`` registered under ``"mariash"``: every game it loads, two to
four players, rewards paid as each deal is settled (each game carries its own type)."""
CORE_TYPE = game_type("Mariáš, volený or licitovaný (mariash engine)", NUM_PLAYERS,
                      MAX_PLAYERS, pyspiel.GameType.RewardModel.REWARDS)
# One deal pays only at its end: terminal rewards, which OpenSpiel's MCTSBot and
# AlphaZero require.
CORE_TYPE_ONE_DEAL = game_type("Mariáš, volený or licitovaný (mariash engine)", NUM_PLAYERS,
                               MAX_PLAYERS, pyspiel.GameType.RewardModel.TERMINAL)


# --- the information-state string: one name per encoding slot -------------------------
_CARD_BLOCKS = {"hand", "laid", "took", "talon", "trump_card", "played_by", "cur_trick",
                "lead", "played_me", "played_opp", "table", "opp_known"}  # the last: lízaný
_NUMERIC_BLOCKS = {"points", "ntricks", "score", "raise_turn", "score4"}


def _slot_names(kind: GameKind, four: bool) -> tuple[str, ...]:
    """A name per encoding slot of ``kind``'s observation (``four``: the four-player one,
    :data:`~mariash_env.games.voleny.observe4.OBS4_LAYOUT`): card blocks by card (``hand:Qh``,
    ``played_by+1:Ah``, ``played_in:Ah@3``), the others by block and index
    (``phase+7``, ``sitting_out+2``)."""
    names: list[str] = [""] * kind.obs_size
    for block, off, size, _ in kind.obs_layout:
        if off >= kind.obs_size:
            continue
        for i in range(size):
            if block in _CARD_BLOCKS:
                sub, c = divmod(i, 32)
                names[off + i] = f"{block}+{sub}:{CARD_CODES[c]}" if size > 32 else (
                    f"{block}:{CARD_CODES[c]}")
            elif block == "played_in":  # [card][trick]
                names[off + i] = f"played_in:{CARD_CODES[i // 10]}@{i % 10}"
            else:
                names[off + i] = f"{block}+{i}"
    if four:  # the deal's block is the three-player observation, then the partie at four
        names += [f"{block}+{i}" for block, off, size, _ in OBS4_LAYOUT[1:]
                  if off < OBS4_SIZE for i in range(size)]
    return tuple(names)


_SLOT_NAMES: dict[tuple[str, bool], tuple[str, ...]] = {}


def encoding_string(kind: GameKind, t: np.ndarray) -> str:
    """The non-zero entries of an encoding by name, with the value unless it is 1 in a
    flag block (so equal strings mean equal tensors)."""
    key = (kind.name, t.size == OBS4_SIZE)
    names = _SLOT_NAMES.get(key)
    if names is None:
        names = _SLOT_NAMES[key] = _slot_names(kind, key[1])
    parts = []
    for i in np.flatnonzero(t):
        n, v = names[i], float(t[i])
        parts.append(f"{n}={v:g}" if v != 1.0 or n.split("+")[0] in _NUMERIC_BLOCKS else n)
    return " ".join(parts)


class MariashGame(pyspiel.Game):
    """The OpenSpiel game (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = rules_from_params(params)
        self.rv = self.rules.vector()
        low, high = utility_range(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=game_kind(self.rules, front_end="openspiel").n_actions,
            max_chance_outcomes=NCARDS,
            num_players=self.rules.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0,
            max_game_length=max_game_length(self.rules),
        )
        # The parameters as played (the game's defaults filled in), only those the game
        # takes: its string and serialisation name the rules exactly, and licitovaný's
        # none of volený's options nor a sentinel.
        super().__init__(CORE_TYPE_ONE_DEAL if self.rules.deals == 1 else CORE_TYPE, info,
                         game_params(self.rules))
        self.ctx = _Context(self.rules)

    def new_initial_state(self) -> MariashState:
        return MariashState(self)

    # Copies: the game itself (immutable, shared by its states), pickled by its string
    # (:func:`game_copies`).
    def __copy__(self) -> MariashGame:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> MariashGame:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return game_copies(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(self.ctx, self.rules.deals if perfect_recall(iig_obs_type, params)
                         else 0)


def game_copies(game: pyspiel.Game) -> tuple[Any, tuple[str]]:
    """How a game of this package pickles: loaded again from its string, by this package
    (which registers ``"mariash"`` when it is imported).  pyspiel pickles a game as its
    string and loads it in C++, which kept none of the Python game's own attributes:
    a copy (pickle, deepcopy, copy) of a ``"mariash"`` game failed at
    ``new_initial_state()`` with ``AttributeError: ... 'ctx'``.  ``copy.copy`` and
    ``copy.deepcopy`` answer the game itself: a game is immutable and its states share it,
    as OpenSpiel's do."""
    return loaded_game, (str(game),)


def loaded_game(name: str) -> pyspiel.Game:
    """``pyspiel.load_game(name)``, the game's string (unpickling a game)."""
    return pyspiel.load_game(name)


def perfect_recall(iig_obs_type: Any, params: Any) -> bool:
    """Whether OpenSpiel asks an observer for the information state (perfect recall)
    rather than the observation (``iig_obs_type`` None: the observation); the mariash
    observers take no ``params`` (ValueError naming them).

    They give one view: a seat's own (the public part and the seat's private cards,
    ``public_info=True``, ``private_info=SINGLE_PLAYER``).  Any other type is a ValueError
    naming it, not that view in its place: a public-only observer would show the seat's
    hand to whoever asked for what every seat sees."""
    if params:
        raise ValueError(f"mariash observers take no parameters, got {params!r}")
    if iig_obs_type is None:
        return False
    if not iig_obs_type.public_info or \
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
        raise ValueError(
            "mariash observers give a seat's own view only (public_info=True, "
            f"private_info=SINGLE_PLAYER), got public_info={iig_obs_type.public_info}, "
            f"private_info={iig_obs_type.private_info}")
    return bool(iig_obs_type.perfect_recall)


def _first_seven(ctx: _Context, st: np.ndarray, player: int) -> list[int]:
    """The cards ``player`` saw first as the deal's forehand (deck positions below the
    game's ``info.first_seen``: volený's first seven, RULES.md §3; none in licitovaný)."""
    first = ctx.info.first_seen
    if not first or int(st[S.FOREHAND]) != ctx.seat(st, player):
        return []
    return [c for c in range(NCARDS) if st[S.POS + c] < first]


class _Observer:
    """OpenSpiel's observer: ``deals == 0`` the observation (the seat's encoding of the
    current deal), else the information state over the whole partie, one block per deal."""

    def __init__(self, ctx: _Context, deals: int) -> None:
        self.ctx = ctx
        self.deals = deals
        size = deals * ctx.block if deals else ctx.obs_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"info_state" if deals else "observation": self.tensor}
        self._scratch = np.zeros(ctx.obs_size, np.float32)

    @staticmethod
    def _deals(state: MariashState) -> list[tuple[int, np.ndarray]]:
        return [(int(st[S.DEAL_NO]), st) for st in state.recalled()]

    def set_from(self, state: MariashState, player: int) -> None:
        if not self.deals:
            state.encode_into(player, self.tensor)
            return
        t = self.tensor
        t.fill(0.0)
        ctx = self.ctx
        n = ctx.obs_size
        for i, (d, st) in enumerate(self._deals(state)):
            off = d * ctx.block
            ctx.encode(st, player, t[off:off + n])
            k = int(st[S.CUT])
            if CUT_MIN <= k <= CUT_MAX:
                t[off + n + k] = 1.0
            for c in _first_seven(ctx, st, player):
                t[off + n + CUT_SLOTS + c] = 1.0
            if ctx.call_slots and i < len(state.deal_actions):  # open contracts' calls
                calls = off + ctx.block - ctx.call_slots
                for seat, a in state.deal_actions[i]:
                    if a in ctx.called:
                        rel = (ctx.player_at(st, seat) - player) % ctx.players
                        t[calls + ctx.called[a] * ctx.players + rel] = 1.0

    def string_from(self, state: MariashState, player: int) -> str:
        if not self.deals:
            if state.dealing:
                return f"p{player} dealing {len(state.drawn)}/{NCARDS}"
            state.encode_into(player, self._scratch)
            return f"p{player} {encoding_string(self.ctx.kind, self._scratch)}"
        ctx = self.ctx
        parts = [f"p{player}"]
        for i, (d, st) in enumerate(self._deals(state)):
            acts = state.deal_actions[i] if i < len(state.deal_actions) else []
            seen = " ".join(ctx.seen_label(st, seat, a, player) for seat, a in acts)
            ctx.encode(st, player, self._scratch)
            first = "".join(f" first7:{CARD_CODES[c]}" for c in _first_seven(ctx, st, player))
            parts.append(f"| deal {d} cut {int(st[S.CUT])}{first}: {seen} / "
                         f"{encoding_string(ctx.kind, self._scratch)}")
        if state.dealing:
            parts.append(f"| dealing {len(state.drawn)}/{NCARDS}")
        return " ".join(parts)


def load_game(rules: Rules | str | None = None, **params: Any) -> pyspiel.Game:
    """``pyspiel.load_game("mariash", params)`` from a :class:`Rules`, or from a game name
    of the registry (:func:`mariash_env.games.registry.games`) and parameters."""
    if isinstance(rules, str):
        params = {"rules": rules, **params}
    elif rules is not None:
        params = {**game_params(rules), **params}
    return pyspiel.load_game("mariash", params)
