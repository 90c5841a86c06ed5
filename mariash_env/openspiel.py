"""Volený mariáš as an OpenSpiel game (``pyspiel.load_game("mariash")``), on the same engine.

Importing this module registers the Python game ``"mariash"`` with
:func:`pyspiel.register_game`; OpenSpiel's algorithms (IS-MCTS, NFSP, policy gradient,
its evaluation tools, ``pyspiel.random_sim_test``) then take it like any other game.
``open_spiel`` is needed only here (the ``dev`` / ``openspiel`` extras).

Parameters (the options of :func:`mariash_env.make_rules`; OpenSpiel parameters cannot be
None, hence the sentinels):

* ``rules`` -- ``"voleny"`` (the only rule set implemented; others raise ``RulesError``);
* ``deals`` -- deals in the partie (default 1: one deal is one OpenSpiel game);
* ``tariff``, ``killed_seven``, ``marriage_order``, ``shuffle`` -- as in ``make_rules``;
* ``max_flek`` -- highest flek level, ``-1`` for unlimited (``None``: bounded at level 24);
* ``payment_cap`` -- groše per defender and deal, ``0`` for none.

State: the compact core record (``int32[STATE_SIZE]``) driven by
:func:`mariash_env.core.engine.legal_actions` / ``apply_action``; nothing here decides a
rule.

* **Chance.**  The first deal's deck is drawn one card at a time from the top: 32 chance
  nodes, outcome = card index 0..31, uniform over the cards not yet drawn (as OpenSpiel's
  skat deals).  Seat 0 deals the first deal.  Between deals of a partie one chance node
  per deal: with ``shuffle="partie"`` the cut, outcome ``k`` in 2..30 uniform (RULES.md §2,
  the engine gathers and cuts); with ``shuffle="every_deal"`` 32 card draws again.
* **Players.**  Seats 0, 1, 2 (absolute); actions are the project's 115 indices
  (:data:`mariash_env.actions.ACTION_LABELS`).
* **Returns / rewards.**  Returns: running groše of the partie per seat (zero-sum); for
  ``deals=1`` zero until the deal is settled.  Rewards (``RewardModel.REWARDS``): the
  deal's payments from the action that settles it until the next decision (OpenSpiel
  reads rewards at decision nodes; the next deal's chance nodes lie between), else zero.
  Bounds: :func:`utility_bound`.  With ``max_flek=-1`` a bet can reach level 24, so the bound is about 1e10 groše per deal: algorithms that
  normalise by ``max_utility`` should use a ``payment_cap`` or a finite ``max_flek``.
* **Observation** (string and tensor): the seat's view of the current deal, the project's
  900-float encoding (:mod:`mariash_env.core.observe`, ``OBS_LAYOUT``): its cards, what
  it laid and took, and the deal's public history (who played which card in which
  trick, bids, flek raises by level and seat up to level 7), the deal number and the
  running scores.  While a deck is being drawn it is all zeros (nobody has seen a card).
  The string lists the non-zero entries by name (``hand:Qh``, ``played_by+1:Ah``,
  ``points+0=0.3``...), so equal strings mean equal tensors.
* **Information state**: perfect recall over the whole partie.  With
  ``shuffle="partie"`` the gathered, cut deck carries information from one deal to the
  next (RULES.md §2), so the seat recalls every deal dealt so far, not just the current
  one.  The tensor (``info_state_size(rules)`` = ``deals * (900 + 64)`` floats) has one
  block per deal of the partie: the seat's encoding of that deal (at its end for the deals
  played, now for the current one, zeros for deals not yet dealt), the deal's cut ``k``
  one-hot in 32 slots (none for the first or a reshuffled deal) and, when the seat was
  forehand, the first seven cards it chose trumps from (32 slots).  The string is
  ``p<seat>``, then per deal ``| deal d cut k [first7:<card>...]: <decisions> /
  <encoding>``: every decision of the deal as ``seat:label``, another seat's trump card or
  discard as ``trump:?`` / ``discard:?``, then the encoding's names.  The string is exactly the seat's
  action-observation history (it also keeps the order of the seat's own discards and flek
  raises above level 7, which the tensor does not).
* ``resample_from_infostate(player, sampler)`` returns a state drawn from the seat's
  information set, built by applying a history (so ``history()``, serialisation, clone
  and the information state all work, and equal the original's for the seat).  Deal by
  deal it uses the project's exact world sampler (:func:`mariash_env.search.sample_worlds`,
  uniform over the worlds consistent with the seat's knowledge of the deal): the world's
  deck as the deal's 32 chance draws, then the deal's decisions, the other seats' hidden
  ones (trump card, discards) taken from the world.  An ended deal is sampled before its
  last decision and kept only if it ends as the seat saw it (a lay-down shows hands).
  Deals of ``deals=1`` and of ``shuffle="every_deal"`` are independent given what is
  public and are sampled one by one.  With ``shuffle="partie"`` the first deal's world
  decides every later deck, so first-deal worlds are drawn until the later deals replay
  with the seat's observations (rejection; the other seats' hidden choices drawn among
  their legal ones), at most ``RESAMPLE_TRIES`` times, then :class:`ResampleError`.  A
  deal that ended early leaves many hidden cards to the gathering and the seat's next
  hand pins them, so this often fails after such a deal (README, research section).
  The sampler's own uniform draw seeds the resample.  A state made by
  :func:`state_from_record` has no history: it resamples to another such search state.

:class:`OpenSpielRobot` (``make_robot("os_random")`` / ``make_robot("os_ismcts(...)")``)
plays OpenSpiel bots in the project's harnesses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from . import actions as A
from .cards import CARD_CODES
from .core import state as S
from .core.deal import deck_of
from .core.engine import advance_partie, apply_action, legal_actions
from .core.observe import OBS_LAYOUT, OBS_SIZE, encode
from .game import Game
from .robots.base import Robot
from .robots.view import SeatView
from .rules import TARIFFS, UNLIMITED_FLEK, Rules, RulesError, make_rules
from .search import sample_worlds

__all__ = [
    "GAME_TYPE", "RESAMPLE_TRIES", "MariashGame", "MariashState", "OpenSpielRobot",
    "ResampleError", "game_params", "info_state_size", "load_game", "max_game_length",
    "state_from_record", "utility_bound",
]

NUM_PLAYERS = 3
RESAMPLE_TRIES = 500  # first-deal worlds tried per resample of a later deal (partie)
NCARDS = 32
_CUT_MIN, _CUT_MAX = 2, 30

_DEFAULTS: dict[str, Any] = {
    "rules": "voleny",
    "deals": 1,
    "tariff": "home",
    "killed_seven": 2,
    "max_flek": 4,
    "payment_cap": 0,
    "marriage_order": "any",
    "shuffle": "partie",
}

GAME_TYPE = pyspiel.GameType(
    short_name="mariash",
    long_name="Volený mariáš (mariash engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,  # each deal's settlement
    max_num_players=NUM_PLAYERS,
    min_num_players=NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULTS),
)


class ResampleError(RuntimeError):
    """No state of the information set was found (``shuffle="partie"`` rejection)."""


def rules_from_params(params: dict[str, Any]) -> Rules:
    """The :class:`Rules` of OpenSpiel parameters (sentinels -1 / 0 for None); RulesError
    naming a bad one."""
    unknown = set(params) - set(_DEFAULTS)
    if unknown:
        raise RulesError(
            f"unknown mariash game parameter(s) {sorted(unknown)}: expected {sorted(_DEFAULTS)}"
        )
    p = {**_DEFAULTS, **params}
    mf, cap = p["max_flek"], p["payment_cap"]
    if mf == -1:
        mf = None
    elif isinstance(mf, int) and mf < -1:
        raise RulesError(f"invalid max_flek {mf!r}: expected 0..20, or -1 for unlimited")
    if cap == 0:
        cap = None
    elif isinstance(cap, int) and cap < 0:
        raise RulesError(f"invalid payment_cap {cap!r}: expected groše > 0, or 0 for none")
    return make_rules(
        rules=p["rules"], deals=p["deals"], tariff=p["tariff"],
        killed_seven=p["killed_seven"], max_flek=mf, payment_cap=cap,
        marriage_order=p["marriage_order"], shuffle=p["shuffle"],
    )


def game_params(rules: Rules) -> dict[str, Any]:
    """OpenSpiel parameters of ``rules`` (the inverse of :func:`rules_from_params`).
    The variants it has no parameter for are refused, never dropped."""
    extra = {k: v for k, v in (("open_contracts", rules.open_contracts),
                                ("hundred_counting", rules.hundred_counting))
             if v != Rules.__dataclass_fields__[k].default}
    if extra:
        raise RulesError(
            f"the OpenSpiel game has no parameter for {extra}: it plays only the options "
            f"{sorted(_DEFAULTS)}"
        )
    return {
        "rules": rules.rules, "deals": rules.deals, "tariff": rules.tariff,
        "killed_seven": rules.killed_seven,
        "max_flek": -1 if rules.max_flek is None else rules.max_flek,
        "payment_cap": 0 if rules.payment_cap is None else rules.payment_cap,
        "marriage_order": rules.marriage_order, "shuffle": rules.shuffle,
    }


def _level(rules: Rules) -> int:
    return UNLIMITED_FLEK if rules.max_flek is None else rules.max_flek


def utility_bound(rules: Rules) -> float:
    """Largest |groše| one seat can win or lose in a partie under ``rules``.

    Per deal the amount ``A`` per defender is at most the sum of the settlement lines'
    maxima at the highest flek level (core/settle.py derives them: game and hundred
    against <= 18 * sto * 2 (hearts), each seven line <= max(killed_seven, sedma) * 2,
    the silent seven 2 * sedma), or ``payment_cap``; the actor gets ``2A``.
    """
    t = TARIFFS[rules.tariff]
    game = max(18 * t["sto"] * 2, t["betl"], t["durch"])
    seven = max(rules.killed_seven, t["sedma"]) * 2
    a = (2 * game + 2 * seven) * 2 ** _level(rules) + 2 * t["sedma"]
    if rules.payment_cap is not None:
        a = min(a, rules.payment_cap)
    return float(2 * a * rules.deals)


def max_game_length(rules: Rules) -> int:
    """A bound on the player decisions of a partie.

    Per deal: bidding <= 15 (trump 1, contracts 3, discards 6, Barva? 2, betl answers 2,
    announcement 1); flek: every round but the last raises or announces a bet, so at most
    ``4L + 2`` raises/announcements and ``4L + 3`` rounds of at most two ``good``; play 31.
    """
    lv = _level(rules)
    return rules.deals * (15 + (4 * lv + 2) + 2 * (4 * lv + 3) + 31)


# --- the information-state string: one name per encoding slot -------------------------
def _slot_names() -> tuple[tuple[str, ...], frozenset[str]]:
    """A name per encoding slot: card blocks by card (``hand:Qh``, ``played_by+1:Ah``,
    ``played_in:Ah@3``), the others by block and index (``phase+7``)."""
    cards = {"hand", "laid", "took", "talon", "trump_card", "played_by", "cur_trick"}
    numeric = {"points", "ntricks", "score"}
    names: list[str] = [""] * OBS_SIZE
    for block, off, size, _ in OBS_LAYOUT:
        if off >= OBS_SIZE:
            continue
        for i in range(size):
            if block in cards:
                sub, c = divmod(i, 32)
                names[off + i] = f"{block}+{sub}:{CARD_CODES[c]}" if size > 32 else (
                    f"{block}:{CARD_CODES[c]}")
            elif block == "played_in":  # [card][trick]
                names[off + i] = f"played_in:{CARD_CODES[i // 10]}@{i % 10}"
            else:
                names[off + i] = f"{block}+{i}"
    return tuple(names), frozenset(n for n in names if n.split("+")[0] in numeric)


_SLOT_NAMES, _NUMERIC = _slot_names()


def _encoding_string(t: np.ndarray) -> str:
    parts = []
    for i in np.flatnonzero(t):
        n = _SLOT_NAMES[i]
        parts.append(f"{n}={float(t[i]):g}" if n in _NUMERIC else n)
    return " ".join(parts)


class _Context:
    """What every state of one game shares: rules, rules vector, a Game to deal with.
    States are cloned by ``copy.deepcopy``: the context is shared, never copied."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.rv = rules.vector()
        self._dealer_game = Game(rules, records=False)
        self.mask = np.zeros(A.N_ACTIONS, dtype=np.int8)  # scratch for legal_actions

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
        g.deal_deck(deck, int(st[S.DEALER]))



class MariashGame(pyspiel.Game):
    """The OpenSpiel game (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = rules_from_params(params)
        self.rv = self.rules.vector()
        bound = utility_bound(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=A.N_ACTIONS,
            max_chance_outcomes=NCARDS,
            num_players=NUM_PLAYERS,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=max_game_length(self.rules),
        )
        super().__init__(GAME_TYPE, info, {**_DEFAULTS, **params})
        self.ctx = _Context(self.rules)

    def new_initial_state(self) -> MariashState:
        return MariashState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        if params:
            raise ValueError(f"mariash observers take no parameters, got {params!r}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(self.rules.deals if recall else 0)


# Per deal, after the encoding in the information state: the cut k (2..30) one-hot, then
# the seat's first seven cards when it was forehand (what it chose trumps from, §3).
CUT_SLOTS = 32
FIRST7_SLOTS = 32
INFO_BLOCK = OBS_SIZE + CUT_SLOTS + FIRST7_SLOTS


def info_state_size(rules: Rules) -> int:
    """Length of the information-state tensor: one block of ``INFO_BLOCK`` floats per deal
    of the partie (module docstring)."""
    return rules.deals * INFO_BLOCK


def _first_seven(st: np.ndarray, player: int) -> list[int]:
    """The cards ``player`` saw first as the deal's forehand (deck positions 0..6)."""
    if int(st[S.FOREHAND]) != player:
        return []
    return [c for c in range(NCARDS) if st[S.POS + c] < 7]


class _Observer:
    """OpenSpiel's observer: ``deals == 0`` the observation (the seat's encoding of the
    current deal), else the information state over the whole partie, one block per deal."""

    def __init__(self, deals: int) -> None:
        self.deals = deals
        size = deals * INFO_BLOCK if deals else OBS_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"info_state" if deals else "observation": self.tensor}
        self._scratch = np.zeros(OBS_SIZE, np.float32)

    @staticmethod
    def _deals(state: MariashState) -> list[tuple[int, np.ndarray]]:
        return [(int(st[S.DEAL_NO]), st) for st in state.recalled()]

    def set_from(self, state: MariashState, player: int) -> None:
        if not self.deals:
            state.encode_into(player, self.tensor)
            return
        t = self.tensor
        t.fill(0.0)
        for d, st in self._deals(state):
            off = d * INFO_BLOCK
            encode(st, player, t[off:off + OBS_SIZE], False)
            k = int(st[S.CUT])
            if _CUT_MIN <= k <= _CUT_MAX:
                t[off + OBS_SIZE + k] = 1.0
            for c in _first_seven(st, player):
                t[off + OBS_SIZE + CUT_SLOTS + c] = 1.0

    def string_from(self, state: MariashState, player: int) -> str:
        if not self.deals:
            if state.dealing:
                return f"p{player} dealing {len(state.drawn)}/{NCARDS}"
            state.encode_into(player, self._scratch)
            return f"p{player} {_encoding_string(self._scratch)}"
        parts = [f"p{player}"]
        for i, (d, st) in enumerate(self._deals(state)):
            acts = state.deal_actions[i] if i < len(state.deal_actions) else []
            seen = " ".join(_seen_label(seat, a, player) for seat, a in acts)
            encode(st, player, self._scratch, False)
            first = "".join(f" first7:{CARD_CODES[c]}" for c in _first_seven(st, player))
            parts.append(f"| deal {d} cut {int(st[S.CUT])}{first}: {seen} / "
                         f"{_encoding_string(self._scratch)}")
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
        self._rewards = [0.0] * NUM_PLAYERS
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
        return int(st[S.TO_MOVE])

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
            self._rewards = [float(x) for x in S.read64(self.st, S.PAY, 3)]
        else:
            self._rewards = [0.0] * NUM_PLAYERS

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
        return A.ACTION_LABELS[action]

    def rewards(self) -> list[float]:
        """The groše of the deal the last action settled (zero for any other action)."""
        return list(self._rewards)

    def returns(self) -> list[float]:
        if self.st is None:
            return [0.0] * NUM_PLAYERS
        return [float(x) for x in S.read64(self.st, S.SCORE, 3)]

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
            encode(self.st, player, out, False)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MariashState:
        """A state drawn from ``player_id``'s information set, with a history that replays
        to it (module docstring)."""
        rng = np.random.default_rng(_seed_of(probability_sampler))
        game = self.get_game()
        if self.from_record:
            if self.dealing or self.st[S.PHASE] == S.PH_DONE:
                raise ResampleError(f"seat {player_id}: a state made from a record has no "
                                    "history and resamples only within a deal in progress")
            w = sample_worlds(self.st, player_id, 1, rng, self._g.rules)
            return state_from_record(game, w[0])
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
        """Deal ``i`` (record ``rec``) on ``out`` from a world of ``player``: its deck, then
        its decisions with the other seats' hidden ones taken from the world.  The sampler
        needs a deal in progress, so an ended deal is sampled before its last decision,
        which then must end it as seen (a lay-down shows the hands: rejection)."""
        acts = self.deal_actions[i]
        ended = bool(rec[S.PHASE] == S.PH_DONE)
        src = self.before_end[i] if ended else rec
        want = _encoding(rec, player)
        last = [acts[-1][1]] if ended else []
        mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        for _ in range(RESAMPLE_TRIES):
            w = sample_worlds(src, player, 1, rng, self._g.rules)[0]
            out = start.clone()
            for c in deck_of(w).tolist():
                out.apply_action(c)
            # Every decision is checked (OpenSpiel applies whatever it is given): the last
            # one of an ended deal was not known to the sampler.
            if all(out._apply_legal(a, mask) for a in (
                    *_fill_hidden(acts[: len(acts) - len(last)], w, player), *last)) and \
                    np.array_equal(_encoding(out.st, player), want):
                return out
        raise ResampleError(f"seat {player}: no world of deal {i} ends as the seat saw it in "
                            f"{RESAMPLE_TRIES} tries")

    def _resample_partie(self, player: int, records: list[np.ndarray],
                         rng: np.random.Generator) -> MariashState:
        """``shuffle="partie"``: the first deal's world decides every later deck (gathered
        and cut), so worlds of the first deal are drawn until the later deals replay with
        the seat's observations (rejection; the other seats' hidden choices are drawn
        uniformly among their legal ones)."""
        want = [_encoding(rec, player) for rec in records]
        mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        game = self.get_game()
        for _ in range(RESAMPLE_TRIES):
            try:
                out = self._resample_deal(game.new_initial_state(), 0, records[0], player, rng)
            except ResampleError:
                continue
            for i in range(1, len(records)):
                out.apply_action(int(records[i][S.CUT]))
                if not out._replay_deal(self.deal_actions[i], player, records[i], mask, rng):
                    break
                if not np.array_equal(_encoding(out.st, player), want[i]):
                    break
            else:
                if out.information_state_string(player) == self.information_state_string(
                        player):  # also forehand's first seven cards of each deal
                    return out
        raise ResampleError(
            f"seat {player}: no world of the first deal replays to the seat's observations of "
            f"deals 1..{len(records) - 1} in {RESAMPLE_TRIES} tries"
        )

    def _replay_deal(self, actions: list[tuple[int, int]], player: int, rec: np.ndarray,
                     mask: np.ndarray, rng: np.random.Generator) -> bool:
        """Apply a deal's decisions, the other seats' hidden ones (trump card, discards)
        drawn among the legal ones unless ``player`` knows them; False at an illegal one."""
        for seat, a in actions:
            if seat != player and _hidden(a):
                legal_actions(self.st, self._g.rv, mask)
                known = (a < A.TRUMP_BLIND and rec[S.TRUMP_PUBLIC]) or (
                    a >= A.DISCARD0 and S.getm(rec, S.TOOK + player) >> (a - A.DISCARD0) & 1)
                if not known:
                    lo = A.TRUMP0 if a < A.TRUMP_BLIND else A.DISCARD0
                    choices = np.flatnonzero(mask[lo:lo + NCARDS])
                    if choices.size == 0:
                        return False
                    a = lo + int(rng.choice(choices))
            if not self._apply_legal(a, mask):
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
        """The seat's 900-float encoding of the current deal (a fresh array)."""
        out = np.empty(OBS_SIZE, np.float32)
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


def _encoding(st: np.ndarray, player: int) -> np.ndarray:
    out = np.empty(OBS_SIZE, np.float32)
    encode(st, player, out, False)
    return out


def _hidden(a: int) -> bool:
    """A decision other seats do not see: the trump card (not z lidu), a discard."""
    return A.TRUMP0 <= a < A.TRUMP_BLIND or A.DISCARD0 <= a < A.DISCARD0 + NCARDS


def _seen_label(seat: int, a: int, player: int) -> str:
    """``seat:label`` of a decision as ``player`` saw it (another seat's trump card or
    discard as ``?``)."""
    if seat != player and _hidden(a):
        return f"{seat}:{A.ACTION_LABELS[a].split(':')[0]}:?"
    return f"{seat}:{A.ACTION_LABELS[a]}"


def _fill_hidden(actions: list[tuple[int, int]], w: np.ndarray, player: int) -> list[int]:
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
        if seat != player and _hidden(a):
            a = A.TRUMP0 + int(w[S.TRUMP_CARD]) if a < A.TRUMP_BLIND else A.DISCARD0 + cards[i]
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


def load_game(rules: Rules | None = None, **params: Any) -> MariashGame:
    """``pyspiel.load_game("mariash", params)`` from a :class:`Rules` or parameters."""
    if rules is not None:
        params = {**game_params(rules), **params}
    return pyspiel.load_game("mariash", params)


pyspiel.register_game(GAME_TYPE, MariashGame)


# --- robots -------------------------------------------------------------------------------
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
            g = self._games[rules] = load_game(rules)
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
