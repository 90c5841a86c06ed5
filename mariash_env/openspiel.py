"""Mariáš as an OpenSpiel game (``pyspiel.load_game("mariash")``), on the same engine:
volený (RULES.md) and licitovaný (LICITOVANY.md).

Importing this module registers the Python game ``"mariash"`` with
:func:`pyspiel.register_game`; OpenSpiel's algorithms (IS-MCTS, NFSP, policy gradient,
its evaluation tools, ``pyspiel.random_sim_test``) then take it like any other game.
``open_spiel`` is needed only here (the ``dev`` / ``openspiel`` extras).

Parameters: every option of :func:`mariash_env.make_rules`, which validates them (a bad
value or combination, e.g. ``tariff="csm"`` with ``open_contracts=True`` or a volený
option under licitovaný, raises ``RulesError`` naming it).  OpenSpiel parameters cannot
be None and OpenSpiel fills in every default, hence the sentinels:

* ``rules`` -- ``"voleny"`` (default) or ``"licitovany"``;
* ``deals`` -- deals in the partie, ``-1`` (default) the game's default: 1 (one deal is
  one OpenSpiel game), at four 16 (RULES.md §11.3);
* ``tariff``, ``killed_seven``, ``open_contracts``, ``hundred_counting`` (volený only),
  ``marriage_order``, ``shuffle``, ``players`` -- as in ``make_rules`` (``players=4``:
  the four-player game, volený only);
* ``max_flek`` -- highest flek level, ``-1`` for unlimited (``None``: bounded at level
  24), ``-2`` (default) the game's default (volený 4, licitovaný 5);
* ``payment_cap`` -- groše (licitovaný: desetníky) per defender and deal, ``0`` for none,
  ``-1`` (default) the game's default (volený none, licitovaný 500).

The game's parameters (its string, what serialisation stores) are the rules as played,
defaults filled in; :func:`game_params` gives them for a :class:`Rules`.

State: the compact core record (``int32[STATE_SIZE]``) driven by
:func:`mariash_env.core.engine.legal_actions` / ``apply_action``; nothing here decides a
rule.  The game's tables come from :func:`mariash_env.kinds.kind_of`.

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
  :meth:`_Context._public_world`).
* **Returns / rewards.**  Returns: running groše (licitovaný: desetníky) of the partie per
  seat (zero-sum); for ``deals=1`` zero until the deal is settled.  Rewards
  (``RewardModel.REWARDS``): the deal's payments from the action that settles it until
  the next decision (OpenSpiel reads rewards at decision nodes; the next deal's chance
  nodes lie between), else zero.  Bounds: :func:`utility_bound`.  With ``max_flek=-1`` a
  bet can reach level 24, so the bound is about 1e10 per deal: algorithms that normalise
  by ``max_utility`` should use a ``payment_cap`` or a finite ``max_flek``.
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
  ``900 + 64``, licitovaný ``1016 + 32``, at four ``924 + 64``) has one block per deal of the partie: the
  seat's encoding of that deal (at its end for the deals played, now for the current one,
  zeros for deals not yet dealt), the deal's cut ``k`` one-hot in 32 slots (none for the
  first or a reshuffled deal) and, in volený when the seat was forehand, the first seven
  cards it chose trumps from (32 slots).  The string is ``p<seat>``, then per deal
  ``| deal d cut k [first7:<card>...]: <decisions> / <encoding>``: every decision of the
  deal as ``player:label``, another seat's hidden one as ``trump:?`` / ``discard:?`` /
  ``lead:?`` (licitovaný's face-down lead card), then the encoding's names.  The string
  is exactly the seat's action-observation history (it also keeps the order of the
  seat's own discards, which the tensor does not).
* ``resample_from_infostate(player, sampler)`` returns a state drawn from the seat's
  information set, built by applying a history (so ``history()``, serialisation, clone
  and the information state all work, and equal the original's for the seat).  Deal by
  deal it uses the game's exact world sampler (:func:`mariash_env.search.sample_worlds`,
  :func:`mariash_env.games.licitovany.worlds.sample_licit_worlds`: uniform over the worlds
  consistent with the seat's knowledge of the deal): the world's deck as the deal's 32
  chance draws, then the deal's decisions, the other seats' hidden ones (trump card,
  discards, lead card) taken from the world.  An ended deal is sampled before its last
  decision (the cards the end shows, an open contract's hand, placed) and kept only if it
  ends as the seat saw it.  Deals of ``deals=1`` and of ``shuffle="every_deal"`` are
  independent given what is public and are sampled one by one.  With ``shuffle="partie"``
  the first deal's world decides every later deck, so it is drawn conditioned on what the
  seat saw of the later deals (:class:`_Link`): its own later cards and the others'
  known ones (played, a shown trump card; a volený seat's voids and cards not held) must
  be gathered into the buckets of the next deal they were dealt to.  The sampler places
  them in the right piles (its ``restrict``), and the order of every pile the seat did
  not see (hands left in dealt order, an unseen discard order) is drawn among those that
  fit; needs of deals further on are followed back through whole unseen hands
  (:func:`_first_slots`), or learnt from a replay that failed.  The later deals then
  replay (the other seats' hidden choices drawn among the legal ones that fit their later
  play) and must give the seat's information state; what does not is rejected, at most
  ``RESAMPLE_TRIES`` worlds (``ARRANGE_TRIES`` orders each); if none replays, a
  Metropolis chain over the partie's histories from the real state
  (:meth:`MariashState._relabel_chain`, symmetric card swaps kept when legal and true
  to the seat's information state).  Every state returned is in the seat's information
  set; the draw is uniform within a deal, not exactly across a gathered partie (README,
  research section).  The sampler's own uniform draw seeds the resample.
  A state made by :func:`state_from_record` has no history: it resamples to another such
  search state.

:class:`OpenSpielRobot` (``make_robot("os_random")`` / ``make_robot("os_ismcts(...)")``)
plays OpenSpiel bots in the project's harnesses, in both games.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pyspiel

from .cards import CARD_CODES, cards_of
from .core import state as S
from .core.deal import deal_deck, deck_of, gathered_deck
from .core.engine import advance_partie, apply_action, legal_actions
from .game import Game
from .games.licitovany import actions as LA
from .games.licitovany.worlds import LicitWorldError, sample_licit_worlds
from .games.voleny import actions as A
from .games.voleny.four import payment4, player_of, seat_of
from .games.voleny.observe import OBS_SIZE
from .games.voleny.observe4 import OBS4_LAYOUT, OBS4_SIZE, encode4
from .games.voleny.worlds import played_by
from .kinds import GameKind, kind_of
from .robots.base import Robot
from .robots.view import SeatView
from .rules import (
    G_LICIT,
    TARIFFS,
    UNLIMITED_FLEK,
    Rules,
    RulesError,
    make_rules,
)
from .search import WorldError, knowledge, sample_worlds

__all__ = [
    "ARRANGE_TRIES", "GAME_TYPE", "RESAMPLE_TRIES", "MariashGame", "MariashState",
    "OpenSpielRobot", "ResampleError", "game_params", "info_block", "info_state_size",
    "load_game", "max_game_length", "state_from_record", "utility_bound",
]

NUM_PLAYERS = 3  # seats of the core's deal (the players at three)
MAX_PLAYERS = 4  # players=4: the dealer sits out each deal (RULES.md §11.3)
GIBBS_STEPS = 9  # sampler steps of a public-only world (a four-player deal's dealer)
RESAMPLE_TRIES = 500  # first-deal worlds tried per resample of a later deal (partie)
ARRANGE_TRIES = 6  # orders of one first-deal world's piles tried (partie)
RELABEL_STEPS = 1500  # proposals of the relabelling chain when rejection finds no world
NCARDS = 32
_CUT_MIN, _CUT_MAX = 2, 30

# The parameters and their defaults.  OpenSpiel fills in every default before the game
# sees its parameters, so the defaults that differ between the games are sentinels:
# ``max_flek`` -2 and ``payment_cap`` -1 mean the game's own default (volený 4 and none,
# licitovaný 5 and 500).  The volený-only options are passed on to ``make_rules`` only when
# they differ from their defaults, so that licitovaný refuses them by name.
GAME_DEFAULT_FLEK, GAME_DEFAULT_CAP = -2, -1
GAME_DEFAULT_DEALS = -1  # one deal at three (one deal, one game); 16 at four (§11.3)
_DEFAULTS: dict[str, Any] = {
    "rules": "voleny",
    "deals": -1,
    "tariff": "home",
    "killed_seven": 2,
    "max_flek": GAME_DEFAULT_FLEK,
    "payment_cap": GAME_DEFAULT_CAP,
    "marriage_order": "any",
    "shuffle": "partie",
    "hundred_counting": "first_played",
    "open_contracts": False,
    "players": 3,
}

GAME_TYPE = pyspiel.GameType(
    short_name="mariash",
    long_name="Mariáš, volený or licitovaný (mariash engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,  # each deal's settlement
    max_num_players=MAX_PLAYERS,
    min_num_players=NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULTS),
)


class ResampleError(RuntimeError):
    """No state of the information set was found (a search state made from a record
    outside a deal in progress; a bug guard)."""


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
    elif p["players"] == _DEFAULTS["players"]:
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
    """OpenSpiel parameters of ``rules`` (the inverse of :func:`rules_from_params`); for
    licitovaný only the options that apply to it."""
    out = {
        "rules": rules.rules, "deals": rules.deals,
        "max_flek": -1 if rules.max_flek is None else rules.max_flek,
        "payment_cap": 0 if rules.payment_cap is None else rules.payment_cap,
        "marriage_order": rules.marriage_order, "shuffle": rules.shuffle,
    }
    accepted = kind_of(rules).options  # volený's own options (licitovaný has none of them)
    out.update({k: getattr(rules, k) for k in _OWN_OPTIONS if k in accepted})
    return out


def _level(rules: Rules) -> int:
    return UNLIMITED_FLEK if rules.max_flek is None else rules.max_flek


def utility_bound(rules: Rules) -> float:
    """Largest |groše| (licitovaný: desetníky) one seat can win or lose in a partie.

    Per deal the amount ``A`` per defender is at most the sum of the settlement lines'
    maxima at the highest flek level, or ``payment_cap``; the actor gets ``2A`` (at four
    ``3A``, RULES.md §11.3; a licitovaný laid-game payer pays at most ``2A``).  Volený (core/settle.py): game and
    hundred against <= 18 * sto * 2 (hearts; order-free hundreds ``sto << 15``, silent
    ``hra << 10``, RULES.md §11.2; open betl / durch twice the price, §11.1), each seven
    line <= max(killed_seven, sedma) * 2, the silent seven 2 * sedma.  Licitovaný
    (LICITOVANY.md §9, H = 2): game 2H per ten over 90 <= 40, seven 2H = 4, hundred lost
    4H per ten of (100 - Ca) + Md <= 160, two sevens 60, durch 30; unflekked the silent
    seven H and a show 90.
    """
    if rules.rules == "licitovany":
        a = (40 + 4 + 160 + 60 + 30) * 2 ** _level(rules) + 2 + 90
    else:
        t = TARIFFS[rules.tariff]
        game = max(18 * t["sto"] * 2, t["durch"] * (2 if rules.open_contracts else 1))
        if rules.hundred_counting == "order_free":
            game = max(game, (t["sto"] << 15) * 2, (t["hra"] << 10) * 2)
        seven = max(rules.killed_seven, t["sedma"]) * 2
        a = (2 * game + 2 * seven) * 2 ** _level(rules) + 2 * t["sedma"]
    if rules.payment_cap is not None:
        a = min(a, rules.payment_cap)
    return float((rules.players - 1) * a * rules.deals)  # the actor: 2A, at four 3A


def max_game_length(rules: Rules) -> int:
    """A bound on the player decisions of a partie (``L`` the highest flek level).

    Volený, per deal: bidding <= 15 (trump 1, contracts 3, discards 6, Barva? 2, betl
    answers 2, announcement 1), with open contracts 5 more per overcall (three at most:
    the contract, two discards, two answers); flek: every round but the last raises or
    announces a bet, so at most ``4L + 2`` raises/announcements and ``4L + 3`` rounds of
    at most two ``good``; play 31.  Licitovaný: auction <= 28 (12 bids, 12 holds, 3
    passes, a lone bid), announcing 6 (game, trumps, helping, two discards, lead); flek
    ``4L`` raises in at most ``4L`` raising turns, each after at most two raise-free turns
    and three at the end, one ``good`` or ``show`` a turn: ``16L + 3``; play 30.
    """
    lv = _level(rules)
    if rules.rules == "licitovany":
        return rules.deals * (28 + 6 + 16 * lv + 3 + 30)
    bidding = 15 + (15 if rules.open_contracts else 0)
    return rules.deals * (bidding + (4 * lv + 2) + 2 * (4 * lv + 3) + 31)


# --- the information-state string: one name per encoding slot -------------------------
_CARD_BLOCKS = {"hand", "laid", "took", "talon", "trump_card", "played_by", "cur_trick",
                "lead"}
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


def _encoding_string(kind: GameKind, t: np.ndarray) -> str:
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


class _Context:
    """What every state of one game shares: rules, rules vector, a Game to deal with.
    States are cloned by ``copy.deepcopy``: the context is shared, never copied."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.rv = rules.vector()
        self.kind = kind_of(rules)
        self.licit = self.kind.game == G_LICIT
        self.players = rules.players
        self.four = rules.players == 4
        self.obs_size = self.kind.layout(rules.players).obs_size
        self.block = info_block(rules)
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

    def sample_world(self, st: np.ndarray, me: int, rng: np.random.Generator,
                     restrict: np.ndarray | None = None) -> np.ndarray | None:
        """One world of core seat ``me`` from the game's exact sampler
        (``search.sample_worlds``, licitovaný ``search.licit_worlds.sample_licit_worlds``),
        the hidden cards' locations narrowed by ``restrict``; None when it finds none.
        ``me = -1`` (a four-player deal's dealer, who sees only what is public):
        :meth:`_public_world`."""
        if me < 0:
            return self._public_world(st, rng, restrict)
        try:
            if self.licit:
                return sample_licit_worlds(st, me, 1, rng, self.rules, restrict=restrict)[0]
            return sample_worlds(st, me, 1, rng, self.rules, restrict=restrict)[0]
        except (WorldError, LicitWorldError):
            return None

    def _public_world(self, st: np.ndarray, rng: np.random.Generator,
                      restrict: np.ndarray | None) -> np.ndarray | None:
        """A world consistent with the public history of the deal in ``st`` (and
        ``restrict``, absolute location masks: bit ``s`` core seat ``s``'s hand, bit 3 the
        third location), for a seat that holds no cards: a Gibbs chain of
        ``GIBBS_STEPS`` exact draws, each from one core seat's knowledge in the current
        world (it keeps that seat's cards, redraws the rest uniformly), started from
        ``st``.  Each step leaves the uniform distribution over the worlds consistent with
        the public history invariant; the chain forgets its start geometrically."""
        w = st
        for i, s in enumerate(rng.permutation(GIBBS_STEPS) % NUM_PLAYERS):
            rel = None if restrict is None else _relative(restrict, int(s))
            w2 = self.sample_world(w, int(s), rng, rel)
            if w2 is None:  # pragma: no cover - the chain's state is always a world
                return None if i == 0 else w
            w = w2
        return w

    def buckets(self, dealer: int) -> np.ndarray:
        """Who receives each deck position when ``dealer`` deals: seat 0..2, or 3 for the
        volený forehand's first seven cards (RULES.md §2) and the licitovaný talon
        (LICITOVANY.md §2); the engine deals an identity deck to find out."""
        st = S.new_state()
        deal_deck(st, np.arange(NCARDS, dtype=np.int64), int(dealer), self.kind.game)
        out = np.full(NCARDS, 3, dtype=np.int64)
        for seat in range(NUM_PLAYERS):
            for p in cards_of(S.getm(st, S.HAND + seat)):
                out[p] = seat
        if not self.licit:
            out[:7] = 3  # forehand's first seven
        return out

    def own_buckets(self, st: np.ndarray, me: int) -> set[int]:
        """The buckets (:meth:`buckets`) whose cards core seat ``me`` knows in the deal of
        ``st``: its own, and forehand's first seven or the licitovaný talon it took (none
        for ``me = -1``, the four-player dealer)."""
        own = {me}
        if me >= 0 and int(st[S.FOREHAND if not self.licit else S.ACTOR]) == me:
            own.add(3)
        return own

    def hidden(self, a: int) -> bool:
        """A decision other seats do not see: volený the trump card (not z lidu) and the
        discards; licitovaný the discards and the face-down lead card (LICITOVANY.md §5)."""
        if self.licit:
            return LA.DISCARD0 <= a < LA.DISCARD0 + NCARDS or LA.LEAD0 <= a < LA.LEAD0 + NCARDS
        return _hidden_voleny(a)

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



class MariashGame(pyspiel.Game):
    """The OpenSpiel game (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = rules_from_params(params)
        self.rv = self.rules.vector()
        bound = utility_bound(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=kind_of(self.rules).n_actions,
            max_chance_outcomes=NCARDS,
            num_players=self.rules.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=max_game_length(self.rules),
        )
        # The parameters as played (the game's defaults filled in): its string and
        # serialisation name the rules exactly.
        super().__init__(GAME_TYPE, info, {**_DEFAULTS, **game_params(self.rules)})
        self.ctx = _Context(self.rules)

    def new_initial_state(self) -> MariashState:
        return MariashState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        if params:
            raise ValueError(f"mariash observers take no parameters, got {params!r}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(self.ctx, self.rules.deals if recall else 0)


# Per deal, after the encoding in the information state: the cut k (2..30) one-hot, then
# in volený the seat's first seven cards when it was forehand (what it chose trumps from,
# RULES.md §3; licitovaný deals every hand whole before anyone acts, LICITOVANY.md §2).
CUT_SLOTS = 32
FIRST7_SLOTS = 32
INFO_BLOCK = OBS_SIZE + CUT_SLOTS + FIRST7_SLOTS  # volený's


def info_block(rules: Rules) -> int:
    """Floats per deal in the information-state tensor: the game's observation (at four
    the four-player one), the cut and (volený) forehand's first seven cards."""
    kind = kind_of(rules)
    obs = kind.layout(rules.players).obs_size
    return obs + CUT_SLOTS + (0 if kind.game == G_LICIT else FIRST7_SLOTS)


def info_state_size(rules: Rules) -> int:
    """Length of the information-state tensor: one block of :func:`info_block` floats per
    deal of the partie (module docstring)."""
    return rules.deals * info_block(rules)


def _first_seven(ctx: _Context, st: np.ndarray, player: int) -> list[int]:
    """The cards ``player`` saw first as a volený deal's forehand (deck positions 0..6)."""
    if ctx.licit or int(st[S.FOREHAND]) != ctx.seat(st, player):
        return []
    return [c for c in range(NCARDS) if st[S.POS + c] < 7]


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
        for d, st in self._deals(state):
            off = d * ctx.block
            ctx.encode(st, player, t[off:off + n])
            k = int(st[S.CUT])
            if _CUT_MIN <= k <= _CUT_MAX:
                t[off + n + k] = 1.0
            for c in _first_seven(ctx, st, player):
                t[off + n + CUT_SLOTS + c] = 1.0

    def string_from(self, state: MariashState, player: int) -> str:
        if not self.deals:
            if state.dealing:
                return f"p{player} dealing {len(state.drawn)}/{NCARDS}"
            state.encode_into(player, self._scratch)
            return f"p{player} {_encoding_string(self.ctx.kind, self._scratch)}"
        ctx = self.ctx
        parts = [f"p{player}"]
        for i, (d, st) in enumerate(self._deals(state)):
            acts = state.deal_actions[i] if i < len(state.deal_actions) else []
            seen = " ".join(ctx.seen_label(st, seat, a, player) for seat, a in acts)
            ctx.encode(st, player, self._scratch)
            first = "".join(f" first7:{CARD_CODES[c]}" for c in _first_seven(ctx, st, player))
            parts.append(f"| deal {d} cut {int(st[S.CUT])}{first}: {seen} / "
                         f"{_encoding_string(ctx.kind, self._scratch)}")
        if state.dealing:
            parts.append(f"| dealing {len(state.drawn)}/{NCARDS}")
        return " ".join(parts)


class MariashState(pyspiel.State):
    """One partie on the compact core record (module docstring)."""

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
        if self._g.rules.shuffle == "partie" and self._between_deals():
            n = _CUT_MAX - _CUT_MIN + 1
            return [(k, 1.0 / n) for k in range(_CUT_MIN, _CUT_MAX + 1)]
        left = sorted(set(range(NCARDS)) - set(self.drawn))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        if self.is_chance_node():
            self._apply_chance(action)  # the deal's rewards stay until the next decision
            return
        self.deal_actions[-1].append((int(self.st[S.TO_MOVE]), action))
        before = self.st.copy()
        if apply_action(self.st, self._g.rv, action):  # the deal ended and is settled
            self.before_end.append(before)
            self._rewards = self._payments()
        else:
            self._rewards = [0.0] * self._g.players

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
                return f"cut:{action}"
            return f"deal:{CARD_CODES[action]}"
        return self._g.kind.labels[action]

    def rewards(self) -> list[float]:
        """The groše of the deal the last action settled (zero for any other action)."""
        return list(self._rewards)

    def returns(self) -> list[float]:
        if self.st is None:
            return [0.0] * self._g.players
        if self._g.four:
            return [float(x) for x in S.read64(self.st, S.P4_SCORE, 4)]
        return [float(x) for x in S.read64(self.st, S.SCORE, 3)]

    def _payments(self) -> list[float]:
        """The settled deal's payments per player (at four the dealer pays with the
        defence, RULES.md §11.3: the core's own :func:`~mariash_env.games.voleny.four.payment4`)."""
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
        to it (module docstring)."""
        rng = np.random.default_rng(_seed_of(probability_sampler))
        game = self.get_game()
        if self.from_record:
            if self.dealing or self.st[S.PHASE] == S.PH_DONE:
                raise ResampleError(f"seat {player_id}: a state made from a record has no "
                                    "history and resamples only within a deal in progress")
            w = self._g.sample_world(self.st, self._g.seat(self.st, player_id), rng)
            if w is None:
                raise ResampleError(f"seat {player_id}: the sampler found no world")
            return state_from_record(game, w)
        records = self.recalled()
        if self._g.rules.shuffle == "partie" and len(records) > 1:
            out = self._resample_partie(player_id, records, rng)
        else:  # deals are independent given what is public: each is resampled on its own
            out = game.new_initial_state()
            for i, rec in enumerate(records):
                out = self._resample_deal(out, i, rec, player_id, rng)
        for c in rng.permutation(NCARDS)[: len(self.drawn)]:  # nobody has seen a drawn card
            out.apply_action(int(c))
        if out.information_state_string(player_id) != self.information_state_string(player_id):
            raise ResampleError(f"seat {player_id}: a resampled world does not replay to the "
                                "seat's information state")  # pragma: no cover - a bug guard
        return out

    def _resample_deal(self, start: MariashState, i: int, rec: np.ndarray, player: int,
                       rng: np.random.Generator) -> MariashState:
        """Deal ``i`` (record ``rec``) on ``start`` from a world of ``player`` (rejection:
        :meth:`_try_deal`)."""
        for _ in range(RESAMPLE_TRIES):
            tried = self._try_deal(start, i, rec, player, rng)
            if tried is not None:
                return tried[0]
        raise ResampleError(f"seat {player}: no world of deal {i} ends as the seat saw it in "
                            f"{RESAMPLE_TRIES} tries")

    def _try_deal(self, start: MariashState, i: int, rec: np.ndarray, player: int,
                  rng: np.random.Generator, restrict: np.ndarray | None = None,
                  world: np.ndarray | None = None,
                  ) -> tuple[MariashState, np.ndarray] | None:
        """One try at deal ``i`` (record ``rec``) on ``start``: a world of ``player`` (the
        sampler's, narrowed by ``restrict``, or ``world``), its deck as the deal's 32 chance
        draws, then the deal's decisions with the other seats' hidden ones taken from the
        world; ``(state, world)``, or None if it does not replay to the seat's encoding.
        The sampler needs a deal in progress, so an ended deal is sampled before its last
        decision, which then must end it as seen (a lay-down shows the hands)."""
        ctx = self._g
        me = ctx.seat(rec, player)
        acts = self.deal_actions[i]
        ended = bool(rec[S.PHASE] == S.PH_DONE)
        last = [acts[-1][1]] if ended else []
        w = world
        if w is None:
            if ended:  # what the end showed (an open contract's hand, RULES.md §11.1)
                shown = _shown_at_end(ctx, rec, player)
                restrict = shown if restrict is None else restrict & shown
            w = ctx.sample_world(self.before_end[i] if ended else rec, me, rng, restrict)
            if w is None:
                return None
        fill = _fill_hidden_licit if ctx.licit else _fill_hidden
        mask = ctx.mask
        out = start.clone()
        for c in deck_of(w).tolist():
            out.apply_action(c)
        # Every decision is checked (OpenSpiel applies whatever it is given): the last
        # one of an ended deal was not known to the sampler.
        if all(out._apply_legal(a, mask) for a in (
                *fill(acts[: len(acts) - len(last)], w, me), *last)) and \
                np.array_equal(ctx.encoding(out.st, player), ctx.encoding(rec, player)):
            return out, w
        return None

    def _resample_partie(self, player: int, records: list[np.ndarray],
                         rng: np.random.Generator) -> MariashState:
        """``shuffle="partie"``: the first deal's world decides every later deck (gathered
        and cut, RULES.md §2).  It is drawn conditioned on what the seat saw of the later
        deals (:class:`_Link`, one per deal joined to the next): the sampler places the
        known next-deal cards in the first deal's piles they must come from (the seat's
        own, the cards each seat played; later deals' through whole unseen hands,
        :func:`_first_slots`), then the order of every pile the seat did not see (hands
        left in dealt order, an unseen discard order) is drawn among those that deal them
        where they were.  The later deals then replay (the other seats' hidden choices
        drawn among the legal ones that fit their later play); a deal that does not adds
        what it needs of the first deal's piles (:meth:`_needs_of`) and the piles are
        ordered again, at most ``ARRANGE_TRIES`` times a world, ``RESAMPLE_TRIES``
        worlds."""
        links = [_Link(self, records, d, player) for d in range(len(records) - 1)]
        links[0].slots = _first_slots(self, records, links, player)
        links[0].restrict = links[0].sampler_restriction(records[0])
        start = self.get_game().new_initial_state()
        for _ in range(RESAMPLE_TRIES):
            tried = self._try_deal(start, 0, records[0], player, rng, links[0].restrict)
            if tried is None:
                continue
            end, world = tried[0].st, tried[1]
            extra: dict[int, list[tuple[_Link, int]]] = {}
            for _ in range(ARRANGE_TRIES):  # orders of this world's piles, each failure
                out, failed = self._replay_partie(links, records, player, end, world,
                                                  extra, rng)
                if failed == 0:
                    return out
                if out is None:
                    if failed == 1 and not extra:  # no order fits
                        break
                    extra = {} if failed == 1 else extra  # the later needs did not fit
                    continue
                self._needs_of(out, links, records, failed, player, extra)
        return self._relabel_chain(player, rng)

    def _relabel_chain(self, player: int, rng: np.random.Generator) -> MariashState:
        """The fallback of :meth:`_resample_partie` when rejection found no world: a
        Metropolis chain over the partie's histories (the first deck, the cuts, every
        decision).  A proposal swaps two cards ``x``, ``y`` in part of the history, one of
        three kinds drawn uniformly: (1) everywhere (the first deck's draws and every
        decision naming a card), ``x, y`` among the cards the seat never saw; (2) in the
        first deck only (their deal positions: the order of a hand, a talon card against a
        hand card), among the cards not dealt to the seat in the first deal; (3) in the
        decisions of deal ``d`` on (``d`` uniform; another hidden choice: a discard, a
        trump or lead card), among the cards the seat did not hold in deal ``d``.  Each
        set is fixed by the seat's information state and the pair drawn uniformly, so
        every proposal is symmetric; it is accepted when the new history is legal and
        gives the seat its information state.  The chain leaves the uniform distribution
        over the histories it connects invariant; it starts from this state and runs
        ``RELABEL_STEPS`` proposals."""
        ctx = self._g
        hist = np.array(self.history(), dtype=np.int64)
        deck = np.zeros(hist.size, dtype=bool)
        deck[:NCARDS] = True  # the first deck; later decks are gathered (cuts stay)
        named = np.zeros(hist.size, dtype=bool)
        starts = []  # per deal, the index of its first decision
        i = NCARDS
        for d, acts in enumerate(self.deal_actions):
            starts.append(i)
            named[i:i + len(acts)] = ctx.card_of[hist[i:i + len(acts)]] >= 0
            i += len(acts) + (1 if d + 1 < len(self.deal_actions) else 0)
        want = self.information_state_string(player)
        sets = [np.flatnonzero(~_seen_cards(ctx, self, player))]
        not_held = [np.flatnonzero(~_held_cards(ctx, rec, player)) for rec in self.recalled()]
        ends = [ctx.encoding(rec, player) for rec in self.recalled()]
        cur, out = hist, self.clone()
        for _ in range(RELABEL_STEPS):
            kind = int(rng.integers(3))
            d = int(rng.integers(len(starts)))
            cand = sets[0] if kind == 0 else not_held[0 if kind == 1 else d]
            if cand.size < 2:
                continue
            perm = np.arange(NCARDS)
            a, b = rng.choice(cand, 2, replace=False)
            perm[a], perm[b] = b, a
            new = cur.copy()
            if kind < 2:
                new[deck] = perm[cur[deck]]
            if kind != 1:
                sel = named.copy()
                sel[:starts[d] if kind == 2 else 0] = False
                new[sel] = ctx.card_base[cur[sel]] + perm[ctx.card_of[cur[sel]]]
            t = self._replay_history(new, player, ends)
            if t is not None and t.information_state_string(player) == want:
                cur, out = new, t
        return out

    def _replay_history(self, hist: np.ndarray, player: int,
                        ends: list[np.ndarray]) -> MariashState | None:
        """A new state of this game from ``hist`` (chance outcomes applied, every decision
        checked legal), or None at an illegal decision or at a deal that ends other than
        ``player``'s encoding ``ends[i]`` of deal ``i``'s end (an early rejection)."""
        ctx = self._g
        out = self.get_game().new_initial_state()
        for a in hist.tolist():
            if out.is_chance_node():
                out.apply_action(a)
                continue
            if not out._apply_legal(a, ctx.mask):
                return None
            i = len(out.finished)
            if out.st[S.PHASE] == S.PH_DONE and i < len(ends) and not np.array_equal(
                    ctx.encoding(out.st, player), ends[i]):
                return None
        return out

    def _replay_partie(self, links: list[_Link], records: list[np.ndarray], player: int,
                       end: np.ndarray, world: np.ndarray,
                       extra: dict[int, list[tuple[_Link, int]]],
                       rng: np.random.Generator) -> tuple[MariashState | None, int]:
        """The first deal's ``world`` (``end``: its replayed end) arranged by the first link
        (and ``extra``), then every deal replayed: ``(state, 0)`` when all replay to the
        seat's information state, else ``(state or None, the first deal that failed)``:
        ``(None, 1)`` when no order fits, ``(None, -1)`` when the order changed the first
        deal as the seat saw it."""
        ctx = self._g
        w = links[0].arrange(end, world, rng, extra)
        if w is None:
            return None, 1  # no order fits
        tried = self._try_deal(self.get_game().new_initial_state(), 0, records[0], player,
                               rng, world=w)
        if tried is None:  # a card moved within a seat's hand changed its deal
            return None, -1
        out = tried[0]
        for i in range(1, len(records)):
            out.apply_action(int(records[i][S.CUT]))
            if not out._replay_deal(self.deal_actions[i], player, records[i], rng) or \
                    not np.array_equal(ctx.encoding(out.st, player),
                                       ctx.encoding(records[i], player)):
                return out, i
        if out.information_state_string(player) != self.information_state_string(player):
            return out, len(records) - 1  # forehand's first seven of the last deal
        return out, 0

    @staticmethod
    def _needs_of(out: MariashState, links: list[_Link], records: list[np.ndarray],
                  failed: int, player: int, extra: dict[int, list[tuple[_Link, int]]]
                  ) -> bool:
        """Add to ``extra`` what deal ``failed`` asks of the first deal's piles: each card of
        deal ``failed - 1``'s unseen piles (in ``out``'s replayed world) must fit its slot
        of that deal's gathered deck, and reaches it from a slot of the first deal's
        gathered deck (:func:`_trace`).  False if nothing new was added."""
        if failed < 2 or len(out.finished) < failed:
            return False
        end = out.finished[failed - 1]
        link = links[failed - 1]
        slot = np.empty(NCARDS, dtype=np.int64)
        slot[gathered_deck(end)] = np.arange(NCARDS)
        added = False
        for by_pos, cards, _ in _unseen_piles(out._g, end, out.deal_actions[failed - 1],
                                              player):
            if not by_pos:
                continue
            for c in cards_of(cards):
                j0 = _trace(out, records, failed - 1, int(end[S.POS + c]), player)
                need = (link, int(slot[c]))
                if j0 is not None and need not in extra.setdefault(j0, []):
                    extra[j0].append(need)
                    added = True
        return added

    def _replay_deal(self, actions: list[tuple[int, int]], player: int, rec: np.ndarray,
                     rng: np.random.Generator) -> bool:
        """Apply a deal's decisions, the other seats' hidden ones (trump card, discards,
        lead card) drawn among the legal ones unless ``player`` knows them (a discard never
        among the cards its seat plays later in the deal); False at an illegal one."""
        ctx = self._g
        mask = ctx.mask
        plays = played_by(rec)
        me = ctx.seat(rec, player)
        for seat, a in actions:
            if seat != me and ctx.hidden(a):
                legal_actions(self.st, ctx.rv, mask)
                if ctx.licit:  # the lead card is public once played (LICITOVANY.md §5)
                    lo = LA.LEAD0 if a >= LA.LEAD0 else LA.DISCARD0
                    known = lo == LA.LEAD0 and rec[S.TRICKS] >= 0
                    discard = lo == LA.DISCARD0
                else:
                    lo = A.TRUMP0 if a < A.TRUMP_BLIND else A.DISCARD0
                    known = (lo == A.TRUMP0 and rec[S.TRUMP_PUBLIC]) or (
                        lo == A.DISCARD0 and me >= 0
                        and S.getm(rec, S.TOOK + me) >> (a - A.DISCARD0) & 1)
                    discard = lo == A.DISCARD0
                if not known:
                    choices = np.flatnonzero(mask[lo:lo + NCARDS])
                    if discard:
                        choices = choices[(int(plays[seat]) >> choices) & 1 == 0]
                    if choices.size == 0:
                        return False
                    a = lo + int(rng.choice(choices))
            if not self._apply_legal(a, ctx.mask):
                return False
        return True

    def _apply_legal(self, a: int, mask: np.ndarray) -> bool:
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


def _loc_bit(seat: int, me: int) -> int:
    """The samplers' location bit of ``seat``'s hand: 1 next seat, 2 previous seat; for
    ``me = -1`` (a four-player deal's dealer, :meth:`_Context._public_world`) ``1 << seat``."""
    if me < 0:
        return 1 << seat
    return 1 if seat == (me + 1) % 3 else 2


def _third_bit(me: int) -> int:
    """The samplers' location bit of the talon or discards (``me = -1``: absolute, 8)."""
    return 8 if me < 0 else 4


def _any_loc(me: int) -> int:
    """Every location bit of the samplers' ``restrict`` for core seat ``me``."""
    return 15 if me < 0 else 7


def _relative(restrict: np.ndarray, s: int) -> np.ndarray:
    """Absolute location masks (bit ``t`` core seat ``t``'s hand, bit 3 the third location)
    as core seat ``s``'s sampler reads them: 1 next seat, 2 previous seat, 4 the third."""
    r = np.asarray(restrict, dtype=np.int64)
    return ((r >> ((s + 1) % 3)) & 1) | (((r >> ((s + 2) % 3)) & 1) << 1) | (
        ((r >> 3) & 1) << 2)


def _seen_cards(ctx: _Context, state: MariashState, player: int) -> np.ndarray:
    """bool[32]: the cards ``player`` saw in any deal of ``state`` (its own dealt cards
    and the talon it took, every card played, a public trump card); a function of its
    information state."""
    seen = np.zeros(NCARDS, dtype=bool)
    for rec in state.recalled():
        m = 0
        for x in played_by(rec).tolist():
            m |= int(x)
        held = _held_cards(ctx, rec, player)
        m |= sum(1 << int(c) for c in np.flatnonzero(held))
        if rec[S.TRUMP_PUBLIC] and rec[S.TRUMP_CARD] >= 0:
            m |= 1 << int(rec[S.TRUMP_CARD])
        seen |= (m >> np.arange(NCARDS)) & 1 == 1
    return seen


def _held_cards(ctx: _Context, rec: np.ndarray, player: int) -> np.ndarray:
    """bool[32]: the cards ``player`` held in the deal of ``rec``: dealt to it (its
    buckets, :meth:`_Context.own_buckets`) or taken in a talon."""
    me = ctx.seat(rec, player)
    if me < 0:
        return np.zeros(NCARDS, dtype=bool)
    own = ctx.own_buckets(rec, me)
    b = ctx.buckets(int(rec[S.DEALER]))
    took = int(S.getm(rec, S.TOOK + me))
    return np.array([int(b[rec[S.POS + c]]) in own or bool(took >> c & 1)
                     for c in range(NCARDS)])


def _shown_at_end(ctx: _Context, end: np.ndarray, player: int) -> np.ndarray:
    """Location masks (the samplers' ``restrict``) of the cards another seat still holds
    at the end of a deal that the seat's encoding shows there (an open contract's hand):
    the encoding changes when such a card is taken out of that hand."""
    me = ctx.seat(end, player)
    out = np.full(NCARDS, _any_loc(me), dtype=np.int64)
    want = ctx.encoding(end, player)
    for seat in range(NUM_PLAYERS):
        hand = int(S.getm(end, S.HAND + seat))
        if seat == me:
            continue
        for c in cards_of(hand):
            t = end.copy()
            S.setm(t, S.HAND + seat, hand & ~(1 << c))
            if not np.array_equal(ctx.encoding(t, player), want):
                out[c] = _loc_bit(seat, me)
    return out


def _unseen_piles(ctx: _Context, end: np.ndarray, acts: list[tuple[int, int]],
                  player: int) -> list[tuple[bool, int, int]]:
    """The piles of the finished deal ``end`` whose order in the gathered deck the seat did
    not see (RULES.md §2, LICITOVANY.md §2): ``(by_position, cards, location bit)``.  By
    deal position: another seat's cards left in hand or claimed at a lay-down, a
    licitovaný talon nobody took; else another seat's lying discards, in discard order.
    The location bit is where the samplers put those cards before the deal's last
    decision (1 next seat, 2 previous seat, 4 the talon or discards)."""
    out: list[tuple[bool, int, int]] = []
    piled = 0
    me = ctx.seat(end, player)
    for seat in range(NUM_PLAYERS):
        if seat == me:
            continue
        for off in (S.HAND, S.CLAIM_HANDS):
            m = int(S.getm(end, off + seat))
            if m:
                out.append((True, m, _loc_bit(seat, me)))
                piled |= m
    if end[S.TALON_OWNER] < 0 and S.getm(end, S.TALON):
        out.append((True, int(S.getm(end, S.TALON)), _third_bit(me)))
        piled |= int(S.getm(end, S.TALON))
    discards = [s for s, a in acts if ctx.kind.labels[a].startswith("discard:")]
    if end[S.DISC + 1] >= 0 and discards and discards[-1] != me:
        m = (1 << int(end[S.DISC])) | (1 << int(end[S.DISC + 1]))
        if not m & piled:
            out.append((False, m, _third_bit(me)))
    return out


class _Link:
    """What the seat saw of deal ``d + 1`` of a gathered partie (RULES.md §2: its deck is
    deal ``d``'s piles gathered and cut by ``k``), as constraints on deal ``d``'s piles:
    each slot of the gathered deck becomes a position of the next deal, dealt to a bucket
    (:meth:`_Context.buckets`).  The seat knows its own next-deal cards per bucket
    exactly, and of the others' cards where each seat must have had them: the cards it
    played (unless it took a talon in that deal: then anywhere but the seat's),
    forehand's shown trump card among its first seven (volený), the licitovaný actor's
    among his ten or the talon.  Only what the seat has seen is read: its own cards, the
    public history, and of deal ``d`` which pile each slot of the gathered deck belongs
    to (the piles' sizes are public)."""

    def __init__(self, state: MariashState, records: list[np.ndarray], d: int,
                 player: int) -> None:
        ctx = state._g
        self.ctx, self.player = ctx, player
        first, second = records[d], records[d + 1]
        # The player's core seats in the two deals (-1: the dealer sitting out at four).
        self.me0, self.me1 = ctx.seat(first, player), ctx.seat(second, player)
        me1 = self.me1
        self.k = int(second[S.CUT])
        self.b0 = ctx.buckets(int(first[S.DEALER]))
        b1 = ctx.buckets(int(second[S.DEALER]))
        own1 = ctx.own_buckets(second, me1)
        others = sorted(set(b1.tolist()) - own1)
        self.loc = {b: i for i, b in enumerate(others)}  # other buckets -> locations
        # The bucket each slot of deal d's gathered deck is dealt to.
        self.need = np.array([b1[(j - self.k) % NCARDS] for j in range(NCARDS)])
        self.own_cls = np.full(NCARDS, -1, dtype=np.int64)  # own next-deal card: bucket
        for c in range(NCARDS):
            if b1[second[S.POS + c]] in own1:
                self.own_cls[c] = b1[second[S.POS + c]]
        self.allow = np.full(NCARDS, (1 << len(others)) - 1, dtype=np.int64)
        plays = played_by(second)
        forehand, actor = int(second[S.FOREHAND]), int(second[S.ACTOR])
        for seat in range(NUM_PLAYERS):
            if seat == me1 or (not ctx.licit and S.getm(second, S.TOOK + seat)):
                continue
            where = {seat} | ({3} if (seat == forehand and not ctx.licit) or (
                ctx.licit and seat == actor) else set())
            m = sum(1 << self.loc[b] for b in where if b in self.loc)
            for c in cards_of(plays[seat]):
                self.allow[c] &= m
        trump = [a - A.TRUMP0 for s, a in state.deal_actions[d + 1]
                 if not ctx.licit and s == forehand and A.TRUMP0 <= a < A.TRUMP0 + NCARDS]
        if trump and second[S.TRUMP_PUBLIC] and forehand != me1:
            self.allow[trump[0]] &= 1 << self.loc[3]
        if not ctx.licit and me1 >= 0 and not any(
                S.getm(second, S.TOOK + t) for t in range(3)):
            self._known_holders(state, d + 1, second, forehand)
        self.acts = state.deal_actions[d]
        self.slots: dict[int, set[int]] = {}  # card -> the slots later links allow it

    def _known_holders(self, state: MariashState, i: int, rec: np.ndarray,
                       forehand: int) -> None:
        """Volený, no talon taken in deal ``i``: the sampler's knowledge of that deal
        (:func:`~mariash_env.search.knowledge`: voids, cards not held, … before its last
        decision) says which seats may have been dealt each hidden card; the talon lying
        was forehand's."""
        ended = rec[S.PHASE] == S.PH_DONE
        try:
            k = knowledge(state.before_end[i] if ended else rec, self.me1, self.ctx.rules)
        except WorldError:  # pragma: no cover - the real state always has a world
            return
        seats = [k.locations[0], k.locations[1], forehand]
        for c in k.cards:
            m = 0
            for li, seat in enumerate(seats):
                if int(k.allowed[c]) >> li & 1:
                    m |= sum(1 << self.loc[b] for b in self.loc if (
                        b == seat or (b == 3 and seat == forehand)))
            self.allow[c] &= m

    def sampler_restriction(self, first: np.ndarray) -> np.ndarray:
        """The sampler's restriction for the first deal (before its last decision): the
        cards the seat has not seen at its end lie in its unseen piles, own next-deal cards
        in the pile whose slot they were gathered into, the others in a pile with a slot
        of a bucket they may be in; a card the last decision played with its player."""
        ctx, player, me = self.ctx, self.player, self.me0
        slot = np.empty(NCARDS, dtype=np.int64)
        slot[gathered_deck(first)] = np.arange(NCARDS)
        out = np.full(NCARDS, _any_loc(me), dtype=np.int64)
        piles = _unseen_piles(ctx, first, self.acts, player)
        unseen = 0
        for _, cards, _ in piles:
            unseen |= cards
        for c in cards_of(unseen):
            out[c] = 0
        for _, cards, bit in piles:
            pile_slots = {int(slot[c]) for c in cards_of(cards)}
            for c in cards_of(unseen):
                if (int(slot[c]) in pile_slots) if self.own_cls[c] >= 0 else any(
                        self.fits(c, j) for j in pile_slots):
                    out[c] |= bit
        seat, a = self.acts[-1]
        label = ctx.kind.labels[a]
        if seat != me and label.startswith("play:"):
            out[CARD_CODES.index(label[len("play:"):])] = _loc_bit(seat, me)
        return out

    def arrange(self, end: np.ndarray, w: np.ndarray, rng: np.random.Generator,
                extra: dict[int, list[tuple[_Link, int]]]) -> np.ndarray | None:
        """The world ``w`` of the first deal (``end``: its replayed end) with the order of
        each unseen pile redrawn among those that gather the next deal's known cards into
        their buckets (and meet ``extra``: per slot, later links' slots its card reaches):
        a random fitting matching, per pile, of its cards to the deal positions of its
        cards within each seat's buckets (a position changes nothing else the seat saw;
        the replay checks it), and of the two discard orders; None if none fits."""
        ctx = self.ctx
        w = w.copy()
        slot = np.empty(NCARDS, dtype=np.int64)
        slot[gathered_deck(end)] = np.arange(NCARDS)

        def fits(c: int, j: int) -> bool:
            return self.fits(c, j) and all(link.fits(c, s) for link, s in extra.get(j, ()))

        # Forehand's trump card stays among his first seven, or at position 17 when he
        # chose z lidu (RULES.md §3).
        trump = int(w[S.TRUMP_CARD]) if not ctx.licit and w[S.TRUMP_CARD] >= 0 else -1
        blind = not ctx.licit and any(a == A.TRUMP_BLIND for _, a in self.acts)
        holder = self._holders(end)
        for by_pos, cards, _ in _unseen_piles(ctx, end, self.acts, self.player):
            if not by_pos:  # the discard order: w's DISC, as _fill_hidden reads it
                d = [int(w[S.DISC]), int(w[S.DISC + 1])]
                slots = [int(slot[c]) for c in d]  # where DISC[0] and DISC[1] are gathered
                orders = [o for o in (d, d[::-1]) if all(
                    fits(c, j) for c, j in zip(o, slots))]
                if not orders:
                    return None
                w[S.DISC], w[S.DISC + 1] = orders[int(rng.integers(len(orders)))]
                continue
            # The engine gathers the pile in dealt order: the card with the r-th deal
            # position lands in slots[r], whichever card that is.
            cs = sorted(cards_of(cards), key=lambda c: int(w[S.POS + c]))
            pos = [int(w[S.POS + c]) for c in cs]
            slots = [int(slot[c]) for c in cs]
            for b in {holder[self.b0[p]] for p in pos} - {self.me0}:
                ranks = [r for r in range(len(pos)) if holder[self.b0[pos[r]]] == b]
                group = [cs[r] for r in ranks]

                def ok(c: int, r: int, pos: list[int] = pos, slots: list[int] = slots) -> bool:
                    if c == trump:
                        at = pos[r] == w[S.POS + c] if blind else self.b0[pos[r]] == 3
                        if not at:
                            return False
                    return fits(c, slots[r])

                placed = _match(group, ranks, ok, rng)
                if placed is None:
                    return None
                for c, r in zip(group, placed):
                    w[S.POS + c] = pos[r]
        return w

    def _holders(self, end: np.ndarray) -> list[int]:
        """Per bucket of deal ``d``, the seat holding its cards: positions move only among
        one seat's buckets (forehand's first seven and the rest; the licitovaný talon and
        the actor who took it); the replay then checks the deal as the seat saw it."""
        out = [0, 1, 2, 3]
        if not self.ctx.licit:
            out[3] = int(end[S.FOREHAND])
        elif end[S.ACTOR] >= 0:
            out[3] = int(end[S.ACTOR])
        return out

    def fits(self, c: int, j: int) -> bool:
        """Card ``c`` may be gathered into slot ``j`` of deal ``d``'s gathered deck."""
        if c in self.slots and j not in self.slots[c]:
            return False
        need = int(self.need[j])
        if self.own_cls[c] >= 0 or need not in self.loc:
            return int(self.own_cls[c]) == need
        return bool(self.allow[c] >> self.loc[need] & 1)


def _first_slots(state: MariashState, records: list[np.ndarray], links: list[_Link],
                 player: int) -> dict[int, set[int]]:
    """Per card, the slots of the first deal's gathered deck it may hold for the later
    links (the seat's own cards and the others' known ones of deals ``2..``), where the
    seat can tell: going back deal by deal from a slot of deal ``m``'s gathered deck
    through unseen piles that are a whole hand (no card played or laid from it, so the
    deal positions of its ranks are public) to a slot of the first deal's; a slot the seat
    saw filled holds no other card.  A card some of whose slots cannot be followed back,
    or that the seat saw gathered, is left free."""
    ctx = state._g
    n = len(records) - 1
    piles = [_unseen_piles(ctx, records[d], state.deal_actions[d], player) for d in range(n)]
    decks = [gathered_deck(records[d]) for d in range(n)]

    def back(m: int, s: int) -> int | None:
        """The first deal's slot that slot ``s`` of deal ``m``'s gathered deck comes
        from; -1 for a slot the seat saw filled, None if it cannot tell."""
        while m > 0:
            real = int(decks[m][s])
            pile = next(((by_pos, c) for by_pos, c, _ in piles[m] if c >> real & 1), None)
            if pile is None:
                return -1
            if not pile[0] or not _whole(ctx, records[m], pile[1]):
                return None
            s = (int(records[m][S.POS + real]) + int(records[m][S.CUT])) % NCARDS
            m -= 1
        return s

    out: dict[int, set[int]] = {}
    for m in range(1, n):
        link = links[m]
        for c in range(NCARDS):
            if link.own_cls[c] < 0 and link.allow[c] == (1 << len(link.loc)) - 1:
                continue  # nothing known of the card in deal m + 1
            ok: set[int] | None = set()
            for j in range(NCARDS):
                if not link.fits(c, j):
                    continue
                first = back(m, j)
                if first is None or (first == -1 and int(decks[m][j]) == c):
                    ok = None  # a way the seat cannot follow, or it saw the card there
                    break
                if first >= 0:
                    ok.add(first)
            if ok is not None:
                out[c] = out[c] & ok if c in out else ok
    return out


def _whole(ctx: _Context, end: np.ndarray, cards: int) -> bool:
    """The pile ``cards`` holds every card dealt to the buckets it was dealt from (none
    played or laid): its deal positions are public."""
    b = ctx.buckets(int(end[S.DEALER]))
    held = {int(b[end[S.POS + c]]) for c in cards_of(cards)}
    return sum(1 for x in b.tolist() if x in held) == bin(cards).count("1")


def _match(cards: list[int], ranks: list[int], ok: Any,
           rng: np.random.Generator) -> list[int] | None:
    """A random perfect matching of ``cards`` to ``ranks`` with ``ok(card, rank)`` for
    every pair (augmenting paths in a random order); None if there is none."""
    n = len(cards)
    adj = [[r for r in rng.permutation(ranks).tolist() if ok(c, r)] for c in cards]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for r in adj[i]:
            if r not in seen:
                seen.add(r)
                if r not in owner or augment(owner[r], seen):
                    owner[r] = i
                    return True
        return False

    for i in rng.permutation(n).tolist():
        if not augment(i, set()):
            return None
    out = [0] * n
    for r, i in owner.items():
        out[i] = r
    return out


def _trace(state: MariashState, records: list[np.ndarray], m: int, p: int,
           player: int) -> int | None:
    """The slot of the first deal's gathered deck whose card reaches position ``p`` of
    deal ``m`` in ``state``'s replayed world, through the piles the seat did not see
    (each keeps its cards in dealt order); None if the way passes a slot the seat saw."""
    while m > 0:
        end = state.finished[m - 1]
        j = (p + int(records[m][S.CUT])) % NCARDS
        c = int(gathered_deck(end)[j])
        piles = _unseen_piles(state._g, end, state.deal_actions[m - 1], player)
        if not any(by_pos and cards >> c & 1 for by_pos, cards, _ in piles):
            return None
        if m == 1:
            return j
        p = int(end[S.POS + c])
        m -= 1
    return None  # pragma: no cover - m >= 1


def _hidden_voleny(a: int) -> bool:
    """A volený decision other seats do not see: the trump card (not z lidu), a discard."""
    return A.TRUMP0 <= a < A.TRUMP_BLIND or A.DISCARD0 <= a < A.DISCARD0 + NCARDS


def _fill_hidden(actions: list[tuple[int, int]], w: np.ndarray, me: int) -> list[int]:
    """A deal's decisions with the other seats' hidden ones taken from the world ``w``:
    the trump card; the discards of the talon still lying in discard order, those of a
    talon taken since from what its taker took (each seat takes at most one talon, and
    the taker lays the next one, RULES.md §4); what the seat did or saw is kept."""
    n_lying = int(w[S.DISC] >= 0) + int(w[S.DISC + 1] >= 0)
    discards = [i for i, (_, a) in enumerate(actions) if A.DISCARD0 <= a < A.DISCARD0 + NCARDS]
    lying = discards[len(discards) - n_lying:] if n_lying else []
    pairs = [discards[j:j + 2] for j in range(0, len(discards) - n_lying, 2)]
    layers = [actions[p[0]][0] for p in pairs] + [actions[i][0] for i in lying[:1]]
    cards: dict[int, int] = {}  # action position -> card
    for j, pair in enumerate(pairs):
        if j + 1 < len(layers):
            taker = layers[j + 1]
        else:  # taken, and its taker has not laid the next talon yet
            taker = next(t for t in range(NUM_PLAYERS)
                         if S.getm(w, S.TOOK + t) and t not in layers[1:])
        took = S.getm(w, S.TOOK + taker)
        for i, c in zip(pair, (c for c in range(NCARDS) if took >> c & 1)):
            cards[i] = c
    for j, i in enumerate(lying):
        cards[i] = int(w[S.DISC + j])
    out = []
    for i, (seat, a) in enumerate(actions):
        if seat != me and _hidden_voleny(a):
            a = A.TRUMP0 + int(w[S.TRUMP_CARD]) if a < A.TRUMP_BLIND else A.DISCARD0 + cards[i]
        out.append(a)
    return out


def _fill_hidden_licit(actions: list[tuple[int, int]], w: np.ndarray,
                       me: int) -> list[int]:
    """A licitovaný deal's decisions with the actor's hidden ones taken from the world
    ``w``: his discards in the world's discard order, his face-down lead card
    (LICITOVANY.md §5); what the seat did or saw is kept."""
    out = []
    n = 0
    for seat, a in actions:
        if seat != me and LA.DISCARD0 <= a < LA.DISCARD0 + NCARDS:
            a = LA.DISCARD0 + int(w[S.DISC + n])
            n += 1
        elif seat != me and LA.LEAD0 <= a < LA.LEAD0 + NCARDS:
            a = LA.LEAD0 + int(w[S.LIC_LEAD])
        out.append(a)
    return out


def _seed_of(sampler: Any) -> int | None:
    """A seed from OpenSpiel's probability sampler (a callable giving a uniform [0, 1))."""
    if sampler is None:
        return None
    if isinstance(sampler, np.random.Generator):
        return int(sampler.integers(0, 2**62))
    try:
        u = float(sampler())
    except TypeError:
        return None
    return int(u * 2**53)


def state_from_record(game: MariashGame, st: np.ndarray) -> MariashState:
    """A :class:`MariashState` continuing from the core record ``st`` (copied); its
    ``history()`` is empty (a search state, module docstring)."""
    if st.shape != (S.STATE_SIZE,):
        raise ValueError(f"expected a state record of shape ({S.STATE_SIZE},), got {st.shape}")
    out = MariashState(game)
    out.st = np.array(st, dtype=np.int32, copy=True)
    out.from_record = True
    out.deal_actions.append([])  # decisions from here on
    return out


def load_game(rules: Rules | str | None = None, **params: Any) -> MariashGame:
    """``pyspiel.load_game("mariash", params)`` from a :class:`Rules`, or from a game name
    (``"voleny"``, ``"licitovany"``) and parameters."""
    if isinstance(rules, str):
        params = {"rules": rules, **params}
    elif rules is not None:
        params = {**game_params(rules), **params}
    return pyspiel.load_game("mariash", params)


pyspiel.register_game(GAME_TYPE, MariashGame)


# --- robots -------------------------------------------------------------------------------
def _search_rules(rules: Rules) -> Rules:
    """The rules of the robot's search game.  At four (RULES.md §11.3) a deal is the core's
    three-seat deal, untouched, and the robot sees its core seat: it searches that one deal
    as a three-player game.  Its ordering of outcomes is the four-player one (the actor's
    2A there and 3A at four both grow with A, each defender's -A is the same); the later
    deals of the partie are left out of the search."""
    if rules.players == 3:
        return rules
    return replace(rules, players=3, deals=1)


class OpenSpielRobot(Robot):
    """An OpenSpiel bot (``pyspiel.Bot``) playing through the robot protocol.

    The robot sees a :class:`SeatView`; it builds the OpenSpiel state from one world
    sampled from the seat's knowledge (every such world has the seat's information state,
    so a bot that only reads the seat's view or resamples, as IS-MCTS does, decides as on
    the real state) and asks the bot for one step.

    ``kind``: ``"random"`` (``UniformRandomBot``) or ``"ismcts"`` (``ISMCTSBot`` with the
    project's resampler and random-rollout evaluation); ``simulations``, ``rollouts``,
    ``uct_c`` (in groše: the exploration constant of UCT), ``seed``.
    """

    wants_view = True

    def __init__(self, kind: str = "ismcts", simulations: int = 200, rollouts: int = 1,
                 uct_c: float = 4.0, seed: int | None = None) -> None:
        if kind not in ("random", "ismcts"):
            raise ValueError(f"invalid kind {kind!r}: expected 'random' or 'ismcts'")
        self.kind = kind
        self.name = f"os_{kind}"
        self.simulations = int(simulations)
        self.rollouts = int(rollouts)
        self.uct_c = float(uct_c)
        self._games: dict[Rules, MariashGame] = {}
        self._reseed(seed)

    def _reseed(self, seed: int | None) -> None:
        self.rng = np.random.RandomState(None if seed is None else seed % 2**32)

    def begin_deal(self, seed: int) -> None:
        super().begin_deal(seed)
        self._reseed(seed)

    def _game(self, rules: Rules) -> MariashGame:
        g = self._games.get(rules)
        if g is None:
            g = self._games[rules] = load_game(_search_rules(rules))
        return g

    def bot(self, game: MariashGame, player: int) -> pyspiel.Bot:
        """The OpenSpiel bot of this robot for ``player``."""
        if self.kind == "random":
            from open_spiel.python.bots.uniform_random import UniformRandomBot

            return UniformRandomBot(player, self.rng)
        from open_spiel.python.algorithms import ismcts, mcts

        bot = ismcts.ISMCTSBot(
            game, mcts.RandomRolloutEvaluator(self.rollouts, self.rng), self.uct_c,
            self.simulations, random_state=self.rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        bot.set_resampler(self._resample)
        return bot

    def _resample(self, state: MariashState, player: int) -> MariashState:
        return state.resample_from_infostate(player, lambda: self.rng.random_sample())

    def act_view(self, view: SeatView) -> int:
        mask = view.action_mask()
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"seat {view.seat} is not to move")
        if legal.size == 1:
            return int(legal[0])
        game = self._game(view.rules)
        world = view.sample_worlds(1, int(self.rng.randint(0, 2**31 - 1)))[0]
        state = state_from_record(game, world)
        a = int(self.bot(game, view.seat).step(state))
        if not mask[a]:  # pragma: no cover - a bot is asked on the seat's own legal set
            raise RuntimeError(f"OpenSpiel bot chose illegal action {a}")
        return a
