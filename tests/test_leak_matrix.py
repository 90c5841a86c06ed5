"""The leak matrix: what the invariant matrix's leak check
(tests/test_invariant_matrix.py) leaves out.

Two deals that differ only where two cards hidden from a seat lie must give that seat the
same view, step for step, here also

* through the env options and wrappers that add to the view: ``rich_infos``,
  ``stack_infos``, ``mask_in_info``, ``flat_obs``, RLlib's ``rllib_env`` (the infos and
  the mask where each puts them), and the seat record (``mariash-seat/1``,
  :func:`mariash_env.seat_record.seat_record_of`) a game server would send that seat;
* with licitovaný's and four-player volený's rule options;
* through the TorchRL env directly (pairs of worlds in one batch);
* past the points where the invariant matrix stops: a ``lay_down`` (RULES.md §8), a
  ``show`` (LICITOVANY.md §6), a ``fold``, and the deal's end, into the *next* deal of the
  partie (the cards are gathered and cut, not shuffled: RULES.md §2, LICITOVANY.md §2, so
  the swapped cards lie swapped in the next deck too).

What the rules make public, and so where a comparison stops (:func:`stops`): a card
named by a public action (a play; a trump card or a face-down lead card, conservatively,
as they are shown or played later) or the partner of a marriage a play announces
(RULES.md §7); the claimer's hand at a lay-down, and every king and queen there (§8: the
marriages still held are counted in the settlement); the shower's hand at a show; the
actor's hand once an open contract is named (§11.1: it lies face up after trick 1);
volený's card z lidu in a later deal (position 17 is kept out of the swap in the first
deal only).  A discard shows nothing to the others: world B's discarder, who holds the
other card, discards that one.  A seat dealt a swapped card is blind to them no more (it
knows the order it was dealt its cards in).  The deal's settlement (INTERFACE.md: every
seat gets it) must be the same in both worlds, but for licitovaný's laid game, judged on
the hands (LICITOVANY.md §13), where the pair stops.  Nothing else becomes public at a
deal's end: no rule shows the talon nobody saw, the actor's discards, a folded or shown
hand or the cards a betl or durch left unplayed, so they stay hidden into the next deal,
whose only trace of them is where the gathered cards lie.  With ``shuffle="every_deal"``
the next deal is a fresh shuffle: every seat's view of it must be the same in both
worlds, even one that saw the swapped cards (less OpenSpiel's information state, which
recalls the seat's own earlier hands).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import mariash_env
from mariash_env.cards import CARD_CODES
from mariash_env.core import state as S
from mariash_env.games.registry import game_kind
from mariash_env.seat_record import SeatRecordError, seat_record_of
from tests.helpers import step_cap
from tests.test_invariant_matrix import (
    ALL,
    _hand,
    _is_lizany,
    _kind,
    hidden_swaps,
    os_params,
    reveals,
)

# The actions that end a deal early and show something (taken when offered, mostly, so
# that the deals go past them).
ENDINGS = ("lay_down", "show", "fold")
KQ = frozenset(c for c in range(32) if CARD_CODES[c][0] in "KQ")


def _no_shuffle(case: str) -> dict[str, Any]:
    return {k: v for k, v in ALL[case].items() if k != "shuffle"}


CASES: dict[str, dict[str, Any]] = {
    "voleny": ALL["voleny"],
    "voleny4": ALL["voleny4"],
    "licitovany": ALL["licitovany"],
    "lizany": ALL["lizany"],
    "voleny-open-orderfree": ALL["voleny-open-orderfree"],
    "voleny4-open": _no_shuffle("voleny4-open"),
    "licitovany-nocap": _no_shuffle("licitovany-nocap"),
    "voleny-csm": ALL["voleny-csm"],  # shuffle="every_deal"
    "licitovany-reshuffled": {"rules": "licitovany", "shuffle": "every_deal"},
}


def _deals(kw: dict[str, Any]) -> dict[str, Any]:
    """Two deals where the game has a partie (lízaný is one deal)."""
    return {"deals": 2} if "deals" in game_kind(kw.get("rules", "voleny")).options else {}


def _bits(cards: set[int]) -> int:
    return sum(1 << c for c in cards)


def choose(rng: np.random.Generator, mask: np.ndarray, kind: Any) -> int:
    """A random legal action; an ending (lay-down, show, fold) mostly when offered, and
    licitovaný's auction passed often (no-bid deals: a talon nobody saw)."""
    legal = np.flatnonzero(mask)
    labels = [kind.action_label(int(a)) for a in legal]
    for a, lab in zip(legal, labels):
        if lab in ENDINGS and rng.random() < 0.8:
            return int(a)
    if "pass" in labels and rng.random() < 0.4:
        return int(legal[labels.index("pass")])
    return int(rng.choice(legal))


def stops(label: str, cards: set[int], world: Any, deal: int) -> bool:
    """Whether ``label`` (about to be taken in ``world``) may show where ``cards`` lie, by
    the rules (module docstring)."""
    if label == "lay_down":
        return bool(world.hand(world.mover()) & _bits(cards)) or bool(cards & KQ)
    if label == "show":
        return bool(world.hand(world.mover()) & _bits(cards))
    if label == "trump:blind":
        return deal > 0
    return _named(label, cards)


def _named(label: str, cards: set[int]) -> bool:
    """Whether an action other than a lay-down or a show names one of ``cards`` or plays
    its marriage partner; not a discard, which only the discarder sees (it holds the card:
    it is not blind to it)."""
    return not label.startswith("discard:") and reveals(label, cards)


# --- worlds: one deck through one front end -------------------------------------------------


def _plain(info: dict[str, Any]) -> str:
    return repr({k: (v.tobytes() if isinstance(v, np.ndarray) else v)
                 for k, v in sorted(info.items())})


class AecWorld:
    """One deck through ``mariash_env.env(**kw, **opts)`` (or ``rllib_env``), a partie of
    two deals: a player's view is its observation, mask, info (as the option gives them),
    the agent to move and, where the game has them, its seat record."""

    def __init__(self, kw: dict[str, Any], deck: list[int], opts: dict[str, Any],
                 cut: int | None) -> None:
        opts = dict(opts)
        if opts.pop("rllib", False):
            from mariash_env.wrappers import rllib_env

            self.e = rllib_env(**kw, **_deals(kw), **opts)
            self.keys = ("observations", "action_mask")
        else:
            self.e = mariash_env.env(**kw, **_deals(kw), **opts)
            self.keys = ("observation", "action_mask")
        self.flat = opts.get("flat_obs", False)
        cuts = {"cuts": [cut]} if cut is not None and cut >= 2 else {}  # (2..30: gathered)
        self.e.reset(seed=0, options={"deck": deck, **cuts})
        self.raw = self.e.unwrapped
        self.agents = list(self.e.possible_agents)
        self.records = _kind(kw).supports("seat_record")

    def mover(self) -> int:
        return self.agents.index(self.e.agent_selection)

    def mask(self) -> np.ndarray:
        agent = self.e.agent_selection
        if self.flat:
            return self.e.infos[agent]["action_mask"]
        return self.e.observe(agent)[self.keys[1]]

    def step(self, a: int) -> bool:
        """Takes ``a``; whether a deal ended."""
        deal = self._deal()
        self.e.step(a)
        return self.over() or self._deal() != deal

    def _deal(self) -> int:
        game = self.raw.game
        return game.deal_no if hasattr(game, "deal_no") else 0

    def over(self) -> bool:
        return not self.e.agents or any(self.e.terminations.values())

    def settlement(self) -> dict[str, Any] | None:
        return getattr(self.raw, "last_settlement", None)

    def hand(self, p: int) -> int:
        return _hand(self.raw.game, p)

    def view(self, p: int, recall: bool = True) -> Any:
        agent = self.agents[p]
        o = self.e.observe(agent)
        obs = (o,) if self.flat else (o[self.keys[0]], o[self.keys[1]])
        record = None
        if self.records:
            try:
                record = json.dumps(seat_record_of(self.raw.game, p), sort_keys=True)
            except SeatRecordError:  # (the four-player dealer sits out: no record)
                pass
        return (*(x.tobytes() for x in obs), _plain(self.e.infos[agent]), record,
                self.e.agent_selection)


class OpenSpielWorld:
    """One deck drawn by chance in the OpenSpiel game, two deals (the cut between them the
    same chance outcome in both worlds): a player's observation and information-state
    tensors and strings."""

    def __init__(self, kw: dict[str, Any], deck: list[int], opts: dict[str, Any],
                 cut: int | None) -> None:
        import pyspiel

        import mariash_env.openspiel  # noqa: F401

        self.s = pyspiel.load_game("mariash", os_params({**kw, **_deals(kw)})) \
            .new_initial_state()
        for c in deck:
            self.s.apply_action(int(c))
        self.lizany = _is_lizany(kw)
        self.cut = cut

    def mover(self) -> int:
        return self.s.current_player()

    def mask(self) -> np.ndarray:
        return np.asarray(self.s.legal_actions_mask(self.mover()), np.int8)

    def step(self, a: int) -> bool:
        s = self.s
        s.apply_action(a)
        self.paid = list(s.rewards())
        if s.is_terminal() or not s.is_chance_node():
            return s.is_terminal()
        while s.is_chance_node():  # the cut (or a new deck): as planned, or the middle one
            out = [o for o, _ in s.chance_outcomes()]
            s.apply_action(self.cut if self.cut in out else out[len(out) // 2])
        return True

    def over(self) -> bool:
        return self.s.is_terminal()

    def settlement(self) -> list[float]:
        return self.paid

    def hand(self, p: int) -> int:
        if self.lizany:
            return int(self.s.g.hands[p])
        from mariash_env.core import state as S

        seat = self.s._g.seat(self.s.st, p)
        return int(S.getm(self.s.st, S.HAND + seat)) if seat >= 0 else 0

    def view(self, p: int, recall: bool = True) -> Any:
        """The observation; with ``recall``, the information state too (it recalls the
        partie's earlier deals)."""
        s = self.s
        now = (np.asarray(s.observation_tensor(p), np.float32).tobytes(),
               s.observation_string(p))
        if not recall:
            return now
        return (*now, np.asarray(s.information_state_tensor(p), np.float32).tobytes(),
                s.information_state_string(p))


def _dealt(kw: dict[str, Any], deck: list[int]) -> Any:
    """The game dealt ``deck`` (dealer 0, seed 0) as a partie of two deals (lízaný: its
    deal)."""
    from mariash_env import Game, make_rules
    from mariash_env.games.lizany.game import LizanyGame

    if _is_lizany(kw):
        return LizanyGame(deck=deck)
    g = Game(make_rules(**kw, **_deals(kw)))
    g.new_partie(seed=0, deck=deck, dealer=0)
    return g


class VectorWorld:
    """One deck in a batch of one (the dealt record restored), two deals: the mover's
    observation and mask (the engine encodes the mover's only)."""

    def __init__(self, kw: dict[str, Any], deck: list[int], opts: dict[str, Any],
                 cut: int | None) -> None:
        from mariash_env.vector import VectorEnv

        self.venv = VectorEnv(1, seed=0, **kw, **_deals(kw))
        self.venv.reset()
        self.g = _dealt(kw, deck)
        self.venv.restore_states(np.asarray(self.g.st, np.int32)[None].copy())
        self.step_ = self.venv.current()
        self.done = False

    def mover(self) -> int:
        return int(self.step_.player[0])

    def mask(self) -> np.ndarray:
        return self.step_.mask[0].copy()

    def step(self, a: int) -> bool:
        self.step_ = self.venv.step(np.array([a]))
        self.done = bool(self.step_.partie_done[0])
        return bool(self.step_.deal_done[0])

    def over(self) -> bool:
        return self.done

    def settlement(self) -> bytes:
        return self.step_.rewards.tobytes()

    def hand(self, p: int) -> int:
        self.g.st[:] = self.venv.copy_states()[0]
        return _hand(self.g, p)

    def view(self, p: int, recall: bool = True) -> Any:
        if p != self.mover():
            return None
        return self.step_.obs[0].tobytes(), self.step_.mask[0].tobytes()


WORLDS: dict[str, Callable[..., Any]] = {
    "aec": AecWorld, "openspiel": OpenSpielWorld, "vector": VectorWorld}


def random_swaps(kw: dict[str, Any], rng: np.random.Generator, k: int) -> Iterator[tuple]:
    """The invariant matrix's :func:`hidden_swaps`, played at random from the start."""
    for deck, other, cards, blind in hidden_swaps(kw, rng, k):
        yield deck, other, cards, blind, [], None


def planned_swaps(kw: dict[str, Any], rng: np.random.Generator, k: int,
                  ending: str) -> Iterator[tuple]:
    """``k`` pairs of decks whose first deal, played by :func:`choose`, ends as ``ending``
    says, with that deal's actions (the script both worlds replay), the cut the engine
    draws before the next deal, and two cards that the rules keep hidden through it
    (:func:`stops`) from the players listed, lying in different places at the start and
    not both away from one of them in the next deal:

    ``"lay_down"``, ``"show"``, ``"fold"``: the deal ends so (the claimer's and the
    shower's cards, every king and queen at a lay-down, are not swapped); ``"unplayed"``:
    the deal ends with cards in a hand (a betl or durch decided early, a deal not played),
    the first card one of them; ``"no_bid"`` (licitovaný): nobody bids, the first card is
    in the talon nobody saw; ``"talon"`` (volený): the first card is in the actor's final
    talon."""
    from mariash_env import Game, make_rules

    kind = _kind(kw)
    players = kw.get("players", kind.players[0])
    voleny = kw.get("rules", "voleny") == "voleny"
    while k:
        deck = rng.permutation(32).tolist()
        g = Game(make_rules(**kw, **_deals(kw)), records=False)
        g.new_partie(seed=0, deck=deck, dealer=0)
        start = [g.hand(p) for p in range(players)]
        safe = _bits(set(range(32)) - ({deck[17]} if voleny else set()))
        script, labels = [], []
        tick = step_cap(g)
        while True:
            tick()
            mover = g.to_move
            a = choose(rng, g.legal_mask(), kind)
            label = kind.action_label(a)
            if label in ("lay_down", "show"):
                safe &= ~g.hand(mover) & ~(_bits(KQ) if label == "lay_down" else 0)
            else:
                safe &= ~_bits({c for c in range(32) if _named(label, {c})})
            script.append(a)
            labels.append(label)
            ended = g.step(a)
            if label.startswith("contract:open_"):
                safe &= ~g.hand(mover)
            if ended:
                break
        left = 0
        for p in range(players):
            left |= g.hand(p)
        first = {"lay_down": safe, "show": safe, "fold": safe & left, "unplayed": safe & left,
                 "no_bid": safe & _bits({deck[15], deck[16]}),
                 "talon": safe & ~left & _talon(script, kind)}
        if ending in ENDINGS and labels[-1] != ending or \
                ending == "no_bid" and set(labels) != {"pass"} or not first[ending]:
            continue
        cand1 = [c for c in range(32) if first[ending] >> c & 1]
        cand2 = [c for c in range(32) if safe >> c & 1]
        c1 = int(rng.choice(cand1))
        place = {c: next((p for p in range(players) if start[p] >> c & 1), -1)
                 for c in range(32)}
        g.next_deal()  # (a seat dealt a swapped card next is blind to them no more)
        later = [g.hand(p) for p in range(players)]
        cut = int(g.st[S.CUT])
        cand2 = [c for c in cand2 if c != c1 and place[c] != place[c1] and any(
            p not in (place[c1], place[c]) and not (later[p] >> c1 | later[p] >> c) & 1
            for p in range(players))]
        if not cand2:
            continue
        c2 = int(rng.choice(cand2))
        blind = [p for p in range(players) if p not in (place[c1], place[c2])]
        other = list(deck)
        i, j = deck.index(c1), deck.index(c2)
        other[i], other[j] = other[j], other[i]
        k -= 1
        yield deck, other, {c1, c2}, blind, script, cut


def _talon(script: list[int], kind: Any) -> int:
    """The cards discarded in the deal of ``script`` (volený: the talons laid)."""
    out = 0
    for a in script:
        label = kind.action_label(a)
        if label.startswith("discard:"):
            out |= 1 << CARD_CODES.index(label.split(":")[1])
    return out


def _swapped(kind: Any, label: str, cards: set[int]) -> int:
    """A discard in world B where the discarder's hands differ: the card world A's
    discarder holds for the one it discards (only the discarder sees a discard; it holds
    the card, so is blind to neither)."""
    c = CARD_CODES.index(label.split(":")[1])
    if c in cards:
        c = next(iter(cards - {c}))
    return kind.action_index(f"discard:{CARD_CODES[c]}")


def compare_past(make: Callable[..., Any], kw: dict[str, Any], swaps: Any,
                 seed: int = 0, opts: dict[str, Any] | None = None) -> Counter:
    """Play two-deal parties in two worlds differing only in two hidden cards (``swaps``:
    :func:`random_swaps` or :func:`planned_swaps`), the same actions in both (a swap's
    script, then :func:`choose`), through lay-downs, shows, folds and the deal's end into
    the next deal; every player still blind to both cards must see the same in both after
    every step.  Counts the views compared by how the last deal ended (``"first"`` in the
    first deal), and ``"settlement differs"``: a settlement that shows where the cards
    lay, which only licitovaný's laid game may (judged on the hands, LICITOVANY.md §13;
    the pair stops there); any other differing settlement fails."""
    rng = np.random.default_rng(seed)
    kind = _kind(kw)
    players = kw.get("players", kind.players[0])
    every_deal = kw.get("shuffle") == "every_deal"
    n = Counter()
    for deck, other, cards, blind, script, cut in swaps:
        a_w, b_w = make(kw, deck, opts or {}, cut), make(kw, other, opts or {}, cut)
        blind, deal, after, recall = set(blind), 0, "first", set()
        script = list(script)
        while blind:
            for p in sorted(blind):
                va, vb = a_w.view(p, p not in recall), b_w.view(p, p not in recall)
                assert va == vb, (kind.name, after, p, sorted(CARD_CODES[c] for c in cards))
                n[after] += va is not None
            a = script.pop(0) if script else choose(rng, a_w.mask(), kind)
            label = kind.action_label(a)
            maker = a_w.mover()
            b = _swapped(kind, label, cards) if label.startswith("discard:") and \
                a_w.hand(maker) != b_w.hand(maker) else a
            if stops(label, cards, a_w, deal) or not b_w.mask()[b]:
                n["stop " + label.split(":")[0]] += 1
                break
            ended = a_w.step(a)
            assert b_w.step(b) == ended
            if label.startswith("contract:open_") and \
                    (a_w.hand(maker) | b_w.hand(maker)) & _bits(cards):
                break  # the actor's hand lies face up after trick 1 (§11.1)
            if ended:
                sa, sb = a_w.settlement(), b_w.settlement()
                if sa != sb:  # only licitovaný's laid game is judged on hidden cards
                    assert kw.get("rules") == "licitovany" and (
                        not isinstance(sa, dict) or sa["laid"] != sb["laid"]), (sa, sb)
                    n["settlement differs"] += 1
                    break
                if a_w.over():
                    break
                deal, after = deal + 1, label if label in ENDINGS else "deal end"
                if every_deal:  # a fresh shuffle: nothing of the last deal is hidden
                    # (but a seat that held a swapped card remembers its own hand: its
                    # views without the earlier deals are compared)
                    recall |= set(range(players)) - blind
                    blind = set(range(players))
            # (a seat holding both cards knows their places: it was dealt them in order)
            blind = {p for p in blind if not (a_w.hand(p) | b_w.hand(p)) & _bits(cards)}
        n["stop blind"] += not blind
    return n


# --- the options and wrappers, past every point ---------------------------------------------

OPTION_CASES = [
    ("voleny", {"rich_infos": True}),
    ("voleny", {"stack_infos": True, "flat_obs": True}),
    ("voleny", {"rllib": True}),
    ("voleny-open-orderfree", {"mask_in_info": True}),
    ("voleny-csm", {"rich_infos": True, "mask_in_info": True}),
    ("voleny4", {"rich_infos": True}),
    ("voleny4-open", {"stack_infos": True, "mask_in_info": True}),
    ("licitovany", {"rich_infos": True}),
    ("licitovany", {"stack_infos": True, "flat_obs": True}),
    ("licitovany-nocap", {"mask_in_info": True}),
    ("licitovany-reshuffled", {}),
    ("lizany", {"stack_infos": True, "mask_in_info": True}),
    ("lizany", {"flat_obs": True}),
]


@pytest.mark.parametrize(("case", "opts"), OPTION_CASES,
                         ids=[f"{c}-{'-'.join(o) or 'plain'}" for c, o in OPTION_CASES])
def test_no_hidden_card_reaches_a_seat_through_options_or_its_record(
        case: str, opts: dict[str, Any]) -> None:
    kw = CASES[case]
    rng = np.random.default_rng(len(case) + len(opts))
    swaps = [*random_swaps(kw, rng, 6),
             *(sw for e in _endings(kw) for sw in planned_swaps(kw, rng, 1, e))]
    n = compare_past(AecWorld, kw, swaps, opts=opts)
    assert n["first"] > 40, n
    if not _is_lizany(kw):
        assert n["deal end"] + n["lay_down"] + n["fold"] + n["show"] > 10, n


def _endings(kw: dict[str, Any]) -> tuple[str, ...]:
    """The ways a first deal of the game may end that :func:`planned_swaps` plans."""
    return {"voleny": ("lay_down", "unplayed", "talon"), "licitovany":
            ("show", "fold", "no_bid", "unplayed")}.get(kw.get("rules", "voleny"), ())


# --- past a lay-down, a show, a fold and the deal's end -------------------------------------

PAST: dict[str, tuple[str, ...]] = {
    "voleny": ("lay_down", "unplayed", "talon"),
    "voleny4": ("lay_down", "unplayed", "talon"),
    "voleny-csm": ("unplayed", "talon"),
    "licitovany": ("show", "fold", "no_bid", "unplayed"),
    "licitovany-reshuffled": ("fold", "no_bid"),
}


@pytest.mark.parametrize("case", list(PAST))
@pytest.mark.parametrize("front", list(WORLDS))
def test_no_hidden_card_reaches_the_next_deal(front: str, case: str) -> None:
    """Past each point into the next deal, through the AEC env, OpenSpiel and the batched
    engine: pairs planned to end their first deal so, with cards the rules keep hidden
    past it."""
    if front == "openspiel":
        pytest.importorskip("pyspiel")
    kw = CASES[case]
    rng = np.random.default_rng(len(case))
    for ending in PAST[case]:
        n = compare_past(WORLDS[front], kw, planned_swaps(kw, rng, 3, ending), seed=1)
        after = ending if ending in ENDINGS else "deal end"
        assert n[after] > 0, (ending, n)


# --- the TorchRL env, directly --------------------------------------------------------------


class _Row:
    """A game of a batch, read from its engine record (for :func:`stops` and the hands)."""

    def __init__(self, kw: dict[str, Any], deck: list[int]) -> None:
        self.g = _dealt(kw, deck)
        self.seat = -1

    def load(self, st: np.ndarray, seat: int) -> _Row:
        self.g.st[:] = st
        self.seat = seat
        return self

    def mover(self) -> int:
        return self.seat

    def hand(self, p: int) -> int:
        return _hand(self.g, p)


@pytest.mark.parametrize("case", ["voleny", "voleny4", "licitovany", "lizany"])
def test_no_hidden_card_reaches_the_torchrl_mover(case: str) -> None:
    """The TorchRL env's own observation, mask, seat and rewards: pairs of worlds side by
    side in one batch (rows 2k, 2k+1, the dealt records restored, shown by a reset that
    restarts none of the fresh games), the same actions in both, past every point into
    the next deal (a partie of two deals); the mover's row must be the same in both while
    it is blind."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from tensordict import TensorDict

    from mariash_env.torchrl_env import torchrl_env
    from mariash_env.vector import random_legal_actions

    kw = CASES[case]
    kind = _kind(kw)
    rng = np.random.default_rng(len(case))
    swaps = list(random_swaps(kw, rng, 8))
    for ending in PAST.get(case, ()):
        swaps += planned_swaps(kw, rng, 2, ending)
    n = 2 * len(swaps)
    env = torchrl_env(n, seed=0, **kw, **_deals(kw))
    env.reset()
    rows = [_Row(kw, d) for sw in swaps for d in sw[:2]]
    env.vector_env.restore_states(np.stack([r.g.st for r in rows]).astype(np.int32))
    # (every game is fresh, so a reset of all of them restarts none: it shows them)
    td = env.reset(TensorDict({"_reset": torch.ones(n, 1, dtype=torch.bool)},
                              batch_size=[n]))
    np.testing.assert_array_equal(td["observation"].numpy(), env.vector_env.current().obs)
    live = list(range(len(swaps)))
    scripts = [list(sw[4]) for sw in swaps]
    blind = [set(sw[3]) for sw in swaps]
    cards = [sw[2] for sw in swaps]
    deal = np.zeros(len(swaps), dtype=np.int64)
    seen = Counter()
    for _ in range(400):
        if not live:
            break
        obs, mask = td["observation"].numpy(), td["action_mask"].numpy()
        seat = td["seat"].numpy()
        acts = random_legal_actions(mask.view(np.int8), rng)
        states = env.vector_env.copy_states()
        for k in list(live):
            i, j = 2 * k, 2 * k + 1
            assert seat[i] == seat[j]
            if seat[i] in blind[k]:
                assert np.array_equal(obs[i], obs[j]) and np.array_equal(mask[i], mask[j]), \
                    (case, k, int(seat[i]), sorted(CARD_CODES[c] for c in cards[k]))
                seen[f"deal {min(deal[k], 1)}"] += 1
            a = scripts[k].pop(0) if scripts[k] else choose(rng, mask[i], kind)
            label = kind.action_label(a)
            b = _swapped(kind, label, cards[k]) if label.startswith("discard:") else a
            if stops(label, cards[k], rows[i].load(states[i], int(seat[i])), int(deal[k])) \
                    or not mask[j][b]:
                live.remove(k)
                continue
            acts[i], acts[j] = a, b
        td.set("action", torch.from_numpy(acts))
        data, td = env.step_and_maybe_reset(td)
        reward, done = data["next", "reward"].numpy(), data["next", "done"].numpy()[:, 0]
        states = env.vector_env.copy_states()
        for k in list(live):
            i, j = 2 * k, 2 * k + 1
            now = 0 if _is_lizany(kw) else int(states[i, S.DEAL_NO])
            if not np.array_equal(reward[i], reward[j]):
                assert kind.name == "licitovany", (reward[i], reward[j])  # (compare_past)
            if not np.array_equal(reward[i], reward[j]) or done[i] or done[j]:
                live.remove(k)  # (a laid game's settlement, or a new partie)
                continue
            label = kind.action_label(int(acts[i]))
            maker = int(seat[i])
            a_w, b_w = rows[i].load(states[i], -1), rows[j]
            held = a_w.hand(maker) | b_w.load(states[j], -1).hand(maker)
            if label.startswith("contract:open_") and held & _bits(cards[k]):
                live.remove(k)
                continue
            deal[k] = now
            blind[k] = {p for p in blind[k]
                        if not (rows[i].hand(p) | rows[j].hand(p)) & _bits(cards[k])}
            if not blind[k]:
                live.remove(k)
    assert seen["deal 0"] > 20, seen
    if not _is_lizany(kw):
        assert seen["deal 1"] > 5, seen
