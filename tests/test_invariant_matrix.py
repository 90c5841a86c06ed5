"""The invariant matrix: every game (volený at three and four, licitovaný, lízaný, and key
rule options) through every front end (the AEC env, ``parallel_env``, the batched
``VectorEnv``, the Gymnasium single-agent env, the OpenSpiel games, the TorchRL env),
checked for every invariant of the project's standard at every step of random play:

* **mask**: the mask of the seat to move is exactly what the front end accepts (every
  masked-out action, and indices out of the table, is refused with the documented error
  and changes nothing; every masked-in one is taken) and names the legal labels; a seat
  not to move has an all-zero mask;
* **zero-sum**: every step's payments add up to zero (RULES.md §9, LICITOVANY.md §10,
  lízaný's ±1 / ±2);
* **cards**: the 32 cards are each in exactly one place (hands, talon, played, claimed,
  stock) after every step;
* **seed**: one seed and the same actions give the same run, step for step, also when the
  refusals above were made on the way (a refused action changes nothing, the generator
  included);
* **leaks**: two deals that differ only where two cards hidden from a seat lie give that
  seat the same observation (and infos, OpenSpiel strings and tensors) step for step, until
  the cards' places may legitimately show (a play naming them or their marriage partner, a
  lay-down or show, the seat taking one, the deal's end).

Each check is small (one or two deals per case); the deep sweeps are elsewhere
(tests/test_properties.py, test_licit_properties.py, test_conformance.py, the referees).
The checks here run through each front end's own public API, so a front end that broke an
invariant the core keeps is caught.  The leak check's further cells (the env options and
wrappers, seat records, the TorchRL env, and past lay-downs, shows and the deal's end
into the next deal) are tests/test_leak_matrix.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import mariash_env
from mariash_env import IllegalActionError
from mariash_env.cards import CARD_CODES
from mariash_env.games.lizany import core as LZ
from mariash_env.games.registry import game_kind
from mariash_env.vector import VectorEnv, random_legal_actions
from tests.helpers import step_cap
from tests.test_vector import assert_cards_conserved

# --- the games and options ---------------------------------------------------------------

GAMES: dict[str, dict[str, Any]] = {
    "voleny": {},
    "voleny4": {"players": 4},
    "licitovany": {"rules": "licitovany"},
    "lizany": {"rules": "lizany"},
}
# Key rule options of make_rules (RULES.md §11, LICITOVANY.md §11), a few per case.
OPTIONS: dict[str, dict[str, Any]] = {
    "voleny-open-orderfree": {"open_contracts": True, "hundred_counting": "order_free",
                              "max_flek": None, "payment_cap": 7},
    "voleny-csm": {"tariff": "csm", "killed_seven": 3, "marriage_order": "queen_first",
                   "shuffle": "every_deal", "max_flek": 0},
    "voleny4-open": {"players": 4, "open_contracts": True, "max_flek": 1,
                     "shuffle": "every_deal", "hundred_counting": "order_free"},
    "licitovany-nocap": {"rules": "licitovany", "max_flek": None, "payment_cap": None,
                         "marriage_order": "queen_first", "shuffle": "every_deal"},
}
ALL = {**GAMES, **OPTIONS}


def _kw(name: str, deals: int = 2) -> dict[str, Any]:
    """The case's keywords, with a partie of ``deals`` deals where the game has more."""
    kw = dict(ALL[name])
    if "deals" in game_kind(kw.get("rules", "voleny")).options:
        kw["deals"] = deals
    return kw


def _kind(kw: dict[str, Any]):
    return game_kind(kw.get("rules", "voleny"))


def _is_lizany(kw: dict[str, Any]) -> bool:
    return kw.get("rules") == "lizany"


# --- the cards of a state ----------------------------------------------------------------


def _lizany_cards_ok(st: np.ndarray) -> None:
    """Lízaný's record: each card in a hand, a played pile or the stock, exactly once."""
    st = st.astype(np.int64) & 0xFFFFFFFF
    stock = 0
    for k in range(int(st[LZ.STOCK_POS]), LZ.STOCK_SIZE):
        stock |= 1 << int(st[LZ.STOCK + k])
    sets = [int(st[LZ.HAND]), int(st[LZ.HAND + 1]), int(st[LZ.PLAYED]),
            int(st[LZ.PLAYED + 1]), stock]
    union = 0
    for m in sets:
        union |= m
    assert union == 0xFFFFFFFF and sum(bin(m).count("1") for m in sets) == 32, sets


def cards_ok(st: np.ndarray, lizany: bool) -> None:
    if lizany:
        _lizany_cards_ok(st)
    else:
        assert_cards_conserved(np.asarray(st)[None, :])


# --- drivers: one game through one front end -----------------------------------------------
#
# A driver exposes the seat to move, its mask and labels, a step that answers the step's
# payments per seat, the engine record (for the cards), a snapshot of everything a refused
# action must leave as it was, and what it shows (for the seed check).


class AecDriver:
    name = "aec"

    def __init__(self, kw: dict[str, Any]) -> None:
        self.kw, self.lizany = kw, _is_lizany(kw)
        self.e = mariash_env.env(**kw)
        self.raw = self.e.unwrapped

    def reset(self, seed: int) -> None:
        self.e.reset(seed=seed)
        self.actions: list[int] = []

    @property
    def done(self) -> bool:
        return not self.e.agents

    def mover(self) -> str:
        return self.e.agent_selection

    def off_table(self, n: int) -> list[int]:
        return [n, -1]

    def mask(self) -> np.ndarray:
        return self.e.observe(self.mover())["action_mask"]

    def other_masks(self) -> list[np.ndarray]:
        return [self.e.observe(a)["action_mask"] for a in self.e.agents if a != self.mover()]

    def labels(self) -> list[str]:
        return self.raw.legal_labels()

    def label(self, a: int) -> str:
        return self.raw.action_label(a)

    def record(self) -> np.ndarray:
        return self.raw.game.st

    def snapshot(self) -> tuple:
        raw = self.raw
        return (raw.game.st.tobytes(), self.e.agent_selection, dict(raw.rewards),
                dict(raw._cumulative_rewards), dict(raw.terminations), len(raw.game.history),
                {a: dict(raw.infos[a]) for a in raw.agents})

    def step(self, action: Any) -> list[float]:
        self.e.step(action)
        self.actions.append(action)
        rewards = [self.e.rewards[a] for a in self.e.possible_agents]
        tick = step_cap("lizany" if self.lizany else self.raw)
        while self.e.agents and (self.e.terminations[self.mover()]
                                 or self.e.truncations[self.mover()]):
            tick()
            self.e.step(None)
        return rewards

    def shown(self) -> bytes:
        if self.done:
            return b"done"
        return b"".join(self.e.observe(a)["observation"].tobytes() for a in self.e.agents)

    def twin(self) -> AecDriver:
        """A second env at the same position (the same seed and actions)."""
        t = AecDriver(self.kw)
        t.reset(self.seed)
        for a in self.actions:
            t.step(a)
        return t


class ParallelDriver(AecDriver):
    name = "parallel"

    def __init__(self, kw: dict[str, Any]) -> None:
        self.kw, self.lizany = kw, _is_lizany(kw)
        self.p = mariash_env.parallel_env(**kw)

    def reset(self, seed: int) -> None:
        self.obs, self.infos = self.p.reset(seed=seed)
        self.raw = self.p.aec_env.unwrapped
        self.actions = []

    @property
    def done(self) -> bool:
        return not self.p.agents

    def mover(self) -> str:
        movers = [a for a in self.p.agents if self.obs[a]["action_mask"].any()]
        assert len(movers) == 1, movers
        assert all(self.infos[a]["active_agent"] == movers[0] for a in self.p.agents)
        return movers[0]

    def mask(self) -> np.ndarray:
        return self.obs[self.mover()]["action_mask"]

    def other_masks(self) -> list[np.ndarray]:
        m = self.mover()
        return [self.obs[a]["action_mask"] for a in self.p.agents if a != m]

    def snapshot(self) -> tuple:
        return (self.raw.game.st.tobytes(), self.p.aec_env.agent_selection,
                list(self.p.agents), len(self.raw.game.history))

    def step(self, action: Any) -> list[float]:
        m = self.mover()
        # every agent answers; only the mover's action counts
        acts = {a: (action if a == m else 0) for a in self.p.agents}
        self.obs, rew, _, _, self.infos = self.p.step(acts)
        self.actions.append(action)
        return [rew.get(a, 0.0) for a in self.p.possible_agents]

    def shown(self) -> bytes:
        return b"".join(o["observation"].tobytes() + o["action_mask"].tobytes()
                        for o in self.obs.values())

    def twin(self) -> ParallelDriver:
        t = ParallelDriver(self.kw)
        t.reset(self.seed)
        for a in self.actions:
            t.step(a)
        return t


class SingleAgentDriver(AecDriver):
    """The learner in seat 1 against seeded random robots: its decisions are the steps;
    the payments per seat are the settlements of the deals that ended meanwhile (the
    learner's reward must be its share of them)."""

    name = "single_agent"

    def __init__(self, kw: dict[str, Any]) -> None:
        self.kw, self.lizany = kw, _is_lizany(kw)
        self.env = mariash_env.SingleAgentEnv(seat=1, opponents="random", **kw)
        self.game = self.env.game

    def reset(self, seed: int) -> None:
        self.obs, _ = self.env.reset(seed=seed)
        self.actions = []
        self.over = False
        # the partie's scores so far: a deal the robots ended before the learner's first
        # decision is paid with that decision
        self.paid = np.zeros(self.env.game.players)

    @property
    def done(self) -> bool:
        return self.over

    def mover(self) -> str:
        return "learner"

    def mask(self) -> np.ndarray:
        return self.env.action_masks().astype(np.int8)

    def other_masks(self) -> list[np.ndarray]:
        return []

    def labels(self) -> list[str]:
        return self.env.legal_labels()

    def label(self, a: int) -> str:
        return _kind(self.kw).action_label(a)

    def record(self) -> np.ndarray:
        g = self.env.game
        return g.deal.st if self.lizany else g.st

    def snapshot(self) -> tuple:
        return (self.record().tobytes(), self.env._pending, self.env._over,
                self.obs.tobytes())

    def step(self, action: Any) -> list[float]:
        self.obs, reward, term, trunc, _ = self.env.step(action)
        self.actions.append(action)
        self.over = term or trunc
        # the payments of every deal that ended since the learner's last decision
        scores = np.asarray(self.env.game.scores, dtype=float)
        pays, self.paid = scores - self.paid, scores
        assert reward == pytest.approx(pays[1]), (reward, pays)
        return pays.tolist()

    def shown(self) -> bytes:
        return self.obs.tobytes()

    def twin(self) -> SingleAgentDriver:
        t = SingleAgentDriver(self.kw)
        t.reset(self.seed)
        for a in self.actions:
            t.step(a)
        return t


def os_params(kw: dict[str, Any]) -> dict[str, Any]:
    """OpenSpiel's parameters of the case: no None there (-1 is an unlimited max_flek, 0 no
    payment cap)."""
    return {k: ({"max_flek": -1, "payment_cap": 0}[k] if v is None else v)
            for k, v in kw.items()}


class OpenSpielDriver:
    """A pyspiel state; chance outcomes drawn from the run's generator."""

    name = "openspiel"

    def __init__(self, kw: dict[str, Any]) -> None:
        import pyspiel

        import mariash_env.openspiel  # noqa: F401  (registers the game)

        self.kw, self.lizany = kw, _is_lizany(kw)
        self.game = pyspiel.load_game("mariash", os_params(kw))
        self.pyspiel = pyspiel

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.s = self.game.new_initial_state()
        self._chance()

    def _chance(self) -> None:
        s = self.s
        tick = step_cap(self.game, chance=True)
        while s.is_chance_node():
            tick()
            out = s.chance_outcomes()
            s.apply_action(out[int(self.rng.integers(len(out)))][0])

    @property
    def done(self) -> bool:
        return self.s.is_terminal()

    def mover(self) -> int:
        return self.s.current_player()

    def mask(self) -> np.ndarray:
        p = self.mover()
        m = np.zeros(self.game.num_distinct_actions(), np.int8)
        m[self.s.legal_actions(p)] = 1
        assert m.tolist() == self.s.legal_actions_mask(p)
        assert m.tolist() == [int(a in self.s.legal_actions()) for a in range(m.size)]
        return m

    def other_masks(self) -> list[np.ndarray]:
        out = []
        for p in range(self.game.num_players()):
            if p != self.mover():
                m = np.zeros(self.game.num_distinct_actions(), np.int8)
                m[self.s.legal_actions(p)] = 1
                out.append(m)
        return out

    def labels(self) -> list[str]:
        p = self.mover()
        return [self.s.action_to_string(p, a) for a in self.s.legal_actions()]

    def label(self, a: int) -> str:
        return _kind(self.kw).action_label(a)

    def record(self) -> np.ndarray:
        return self.s.g.st if self.lizany else self.s.st

    def snapshot(self) -> tuple:
        return (str(self.s), self.s.history(), self.record().tobytes(),
                self.s.rewards(), self.s.returns())

    def step(self, action: int) -> list[float]:
        self.s.apply_action(action)
        rewards = list(self.s.rewards())
        assert sum(self.s.returns()) == pytest.approx(0.0, abs=1e-9)
        self._chance()
        return rewards

    def shown(self) -> bytes:
        if self.done:
            return repr(self.s.returns()).encode()
        p = self.mover()
        return (np.asarray(self.s.observation_tensor(p), np.float32).tobytes()
                + self.s.information_state_string(p).encode())

    def off_table(self, n: int) -> list[int]:
        return [n, 10**6]  # (-1 is pyspiel's kInvalidAction, refused by pyspiel itself)

    def accepts(self, a: int) -> None:
        c = self.s.clone()
        c.apply_action(a)


# --- the run --------------------------------------------------------------------------------


def checked_run(drv, seed: int, refusals: bool = True, twins: int = 2) -> list[bytes]:
    """Random play to the end of the driver's episode, checking at every decision: the
    mask is the legal labels, the other seats' masks are zero, (``refusals``) every
    masked-out action and indices off the table are refused with nothing changed, and at
    ``twins`` decisions every masked-in action is taken by a twin at the same position;
    after every step the payments add up to zero and the cards are conserved.  Returns
    what the front end showed at each step (for the seed check)."""
    drv.seed = seed
    drv.reset(seed)
    rng = np.random.default_rng(seed + 1)
    shown = [drv.shown()]
    kind = _kind(drv.kw)
    n = kind.n_actions
    decisions = 0
    twin_at = set(np.random.default_rng(seed + 2).choice(12, size=twins, replace=False)
                  .tolist()) if twins else set()
    tick = step_cap(drv.kw, deals=None)
    while not drv.done:
        tick()
        mask = np.asarray(drv.mask())
        legal = np.flatnonzero(mask)
        assert legal.size, "the seat to move has no legal action"
        assert mask.shape == (n,) and set(np.unique(mask).tolist()) <= {0, 1}
        assert drv.labels() == [kind.action_label(int(a)) for a in legal]
        for m in drv.other_masks():
            assert not np.asarray(m).any(), "a seat not to move has a legal action"
        if refusals:
            before = drv.snapshot()
            for a in [*np.flatnonzero(mask == 0).tolist(), *drv.off_table(n)]:
                with pytest.raises(IllegalActionError):
                    drv.step(a)
                assert drv.snapshot() == before, (drv.name, a)
        if decisions in twin_at:
            for a in legal.tolist():
                if hasattr(drv, "accepts"):
                    drv.accepts(a)
                else:
                    drv.twin().step(a)
        a = int(rng.choice(legal))
        # every third action by its label (INTERFACE.md: every action has one)
        rewards = drv.step(drv.label(a) if decisions % 3 == 2 and drv.name != "openspiel"
                           else a)
        assert sum(rewards) == pytest.approx(0.0, abs=1e-9), rewards
        cards_ok(drv.record(), drv.lizany)
        shown.append(drv.shown())
        decisions += 1
    assert decisions > 5
    return shown


FRONT_ENDS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "aec": AecDriver, "parallel": ParallelDriver, "single_agent": SingleAgentDriver,
    "openspiel": OpenSpielDriver}


@pytest.mark.parametrize("case", list(ALL))
@pytest.mark.parametrize("front", list(FRONT_ENDS))
def test_mask_zero_sum_cards_and_seed(front: str, case: str) -> None:
    """Mask = legal labels = what is accepted, zero-sum, 32 cards, at every decision of a
    random partie of two deals; the same seed replays the run exactly without the
    refusals and twins, another seed does not."""
    if front == "openspiel":
        pytest.importorskip("pyspiel")
    make = FRONT_ENDS[front]
    kw = _kw(case)
    seed = 11 + len(case)
    first = checked_run(make(kw), seed)
    assert checked_run(make(kw), seed, refusals=False, twins=0) == first
    assert checked_run(make(kw), seed + 1, refusals=False, twins=0) != first


# --- the batched engines --------------------------------------------------------------------


def vector_run(kw: dict[str, Any], seed: int, refusals: bool = True, steps: int = 50,
               n: int = 3) -> list[bytes]:
    """:func:`checked_run` for ``VectorEnv``: a batch of ``n`` games; at each step one row
    has every masked-out action (and indices off the table) refused with nothing changed
    (ValueError, the states and the outputs as they were) and every masked-in one taken
    (then the states restored); every step pays zero-sum and conserves the cards."""
    lizany = _is_lizany(kw)
    venv = VectorEnv(n, seed=seed, **kw)
    step = venv.reset()
    rng = np.random.default_rng(seed + 1)
    big = venv.num_actions
    shown = []
    for t in range(steps):
        mask, obs = step.mask.copy(), step.obs.copy()
        assert mask.shape == (n, big) and set(np.unique(mask).tolist()) <= {0, 1}
        assert mask.any(axis=1).all()
        acts = random_legal_actions(mask, rng)
        r = t % n
        if refusals:
            states = venv.copy_states()
            for a in [*np.flatnonzero(mask[r] == 0).tolist(), big, -1]:
                bad = acts.copy()
                bad[r] = a
                with pytest.raises(ValueError, match="illegal action"):
                    venv.step(bad)
                assert np.array_equal(venv.copy_states(), states)
                assert np.array_equal(step.mask, mask) and np.array_equal(step.obs, obs)
            for a in np.flatnonzero(mask[r]).tolist():
                ok = acts.copy()
                ok[r] = a
                venv.step(ok)
                venv.restore_states(states)
            again = venv.current()  # the restored games show what they showed
            assert np.array_equal(again.mask, mask) and np.array_equal(again.obs, obs)
        step = venv.step(acts)
        assert not step.rewards.sum(axis=1).any(), step.rewards
        for row in venv.copy_states():
            cards_ok(row, lizany)
        shown.append(step.obs.tobytes() + step.mask.tobytes() + step.rewards.tobytes()
                     + step.player.tobytes())
    return shown


@pytest.mark.parametrize("case", list(ALL))
def test_vector_env_mask_zero_sum_cards_and_seed(case: str) -> None:
    kw = _kw(case)
    seed = 5 + len(case)
    first = vector_run(kw, seed)
    assert vector_run(kw, seed, refusals=False) == first
    assert vector_run(kw, seed + 1, refusals=False) != first


def torchrl_run(kw: dict[str, Any], seed: int, refusals: bool = True, steps: int = 40,
                n: int = 3) -> list[bytes]:
    """:func:`vector_run` through the TorchRL env: the ``"action_mask"`` is the action
    spec's mask; a masked-out action in one row is refused (ValueError) with the engine's
    states and the spec's mask as they were; rewards add up to zero per game."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    lizany = _is_lizany(kw)
    env = mariash_env.torchrl_env(n, seed=seed, **kw)
    td = env.reset()
    rng = np.random.default_rng(seed + 1)
    big = env.n_actions
    shown = []
    for t in range(steps):
        mask = td["action_mask"].numpy().copy()
        spec_mask = env.full_action_spec["action"].mask
        assert np.array_equal(spec_mask.numpy(), mask)
        acts = random_legal_actions(mask.view(np.int8), rng)
        r = t % n
        if refusals:
            states = env.vector_env.copy_states()
            for a in [*np.flatnonzero(~mask[r]).tolist(), big, -1]:
                bad = acts.copy()
                bad[r] = a
                with pytest.raises(ValueError, match="illegal action"):
                    env.step(td.clone().set("action", torch.from_numpy(bad)))
                assert np.array_equal(env.vector_env.copy_states(), states)
                assert np.array_equal(env.full_action_spec["action"].mask.numpy(), mask)
        td.set("action", torch.from_numpy(acts))
        td, nxt = env.step_and_maybe_reset(td)
        reward = td["next", "reward"].numpy()
        assert not reward.sum(axis=1).any(), reward
        for row in env.vector_env.copy_states():
            cards_ok(row, lizany)
        shown.append(b"".join(td["next", k].numpy().tobytes()
                              for k in ("observation", "action_mask", "seat", "reward")))
        td = nxt
    return shown


@pytest.mark.parametrize("case", ["voleny", "voleny4", "licitovany", "lizany",
                                  "voleny-open-orderfree"])
def test_torchrl_mask_zero_sum_cards_and_seed(case: str) -> None:
    kw = _kw(case)
    seed = 3 + len(case)
    first = torchrl_run(kw, seed)
    assert torchrl_run(kw, seed, refusals=False) == first
    assert torchrl_run(kw, seed + 1, refusals=False) != first


# --- no hidden card leaks into another seat's view ------------------------------------------


def _dealt(kw: dict[str, Any], deck: list[int]):
    """The game dealt ``deck`` (dealer 0): a Game, or lízaný's deal."""
    from mariash_env import Game, make_rules
    from mariash_env.games.lizany.game import LizanyGame

    if _is_lizany(kw):
        return LizanyGame(deck=deck)
    g = Game(make_rules(**{**kw, "deals": 1}))
    g.new_partie(seed=0, deck=deck, dealer=0)
    return g


def _hand(game, p: int) -> int:
    return int(game.hands[p]) if hasattr(game, "hands") else game.hand(p)


def hidden_swaps(kw: dict[str, Any], rng: np.random.Generator, k: int) -> Iterator[tuple]:
    """``k`` pairs of decks that differ only in where two cards lie, both hidden at the
    start from the players listed with them: two players' hands, a hand and the talon
    (licitovaný), a hand or a stock place and another stock place (lízaný).  Volený's
    z-lidu card (deck position 17, RULES.md §3) and lízaný's turned-up trump card stay."""
    players = _kind(kw).players[0] if "players" not in kw else kw["players"]
    while k:
        deck = rng.permutation(32).tolist()
        g = _dealt(kw, deck)
        place = {}  # card -> its place at the start
        for p in range(players):
            for c in range(32):
                if _hand(g, p) >> c & 1:
                    place[c] = p
        if _is_lizany(kw):
            for pos in range(17, 32):
                place[deck[pos]] = 10 + pos  # each stock place its own (the order is hidden)
            fixed = {deck[16]}
        else:
            fixed = {deck[17]} if "rules" not in kw else set()
        c1, c2 = (int(c) for c in rng.choice(32, 2, replace=False))
        if c1 in fixed or c2 in fixed or place.get(c1, -1) == place.get(c2, -1):
            continue
        blind = [p for p in range(players) if p not in (place.get(c1), place.get(c2))]
        if not blind:
            continue
        other = list(deck)
        i, j = deck.index(c1), deck.index(c2)
        other[i], other[j] = other[j], other[i]
        k -= 1
        yield deck, other, {c1, c2}, blind


def reveals(label: str, cards: set[int]) -> bool:
    """Whether an action may show where ``cards`` lie: it names one, is a lay-down or a
    show (the hands on the table), or plays a king or queen whose marriage partner is one
    (RULES.md §7: the marriage is announced)."""
    if label in ("lay_down", "show"):
        return True
    code = label.split(":")[-1]
    if code not in CARD_CODES:
        return False
    c = CARD_CODES.index(code)
    if c in cards:
        return True
    rank, suit = code[0], code[1]
    partner = {"K": "Q", "Q": "K"}.get(rank)
    return partner is not None and CARD_CODES.index(partner + suit) in cards


class AecWorld:
    """One deck through the AEC env: the view of a player is its observation, mask, info
    and whose turn it is."""

    def __init__(self, kw: dict[str, Any], deck: list[int]) -> None:
        self.e = mariash_env.env(**{**kw, **({} if _is_lizany(kw) else {"deals": 1})})
        self.e.reset(seed=0, options={"deck": deck})
        self.raw = self.e.unwrapped
        self.agents = list(self.e.possible_agents)

    def mover(self) -> int:
        return self.agents.index(self.e.agent_selection)

    def mask(self) -> np.ndarray:
        return self.e.observe(self.e.agent_selection)["action_mask"]

    def step(self, a: int) -> bool:
        self.e.step(a)
        return not self.e.agents or any(self.e.terminations.values()) or \
            self.raw.infos[self.agents[0]].get("settlement_deal", -1) >= 0

    def hand(self, p: int) -> int:
        return _hand(self.raw.game, p)

    def view(self, p: int) -> Any:
        o = self.e.observe(self.agents[p])
        return (o["observation"].tobytes(), o["action_mask"].tobytes(),
                repr(self.raw.infos[self.agents[p]]), self.e.agent_selection)


class ParallelWorld(AecWorld):
    def __init__(self, kw: dict[str, Any], deck: list[int]) -> None:
        self.p = mariash_env.parallel_env(**{**kw, **({} if _is_lizany(kw) else {"deals": 1})})
        self.obs, self.infos = self.p.reset(seed=0, options={"deck": deck})
        self.raw = self.p.aec_env.unwrapped
        self.agents = list(self.p.possible_agents)

    def mover(self) -> int:
        return self.agents.index(self.p.aec_env.agent_selection)

    def mask(self) -> np.ndarray:
        return self.obs[self.agents[self.mover()]]["action_mask"]

    def step(self, a: int) -> bool:
        acts = {ag: a for ag in self.p.agents}
        self.obs, rew, term, _, self.infos = self.p.step(acts)
        return any(term.values()) or any(rew.values()) or \
            self.infos[self.agents[0]].get("settlement_deal", -1) >= 0

    def view(self, p: int) -> Any:
        o = self.obs[self.agents[p]]
        return (o["observation"].tobytes(), o["action_mask"].tobytes(),
                repr(self.infos[self.agents[p]]))


class OpenSpielWorld:
    """One deck drawn by chance in the OpenSpiel game (dealer 0): the view of a player is
    its observation and information-state tensors and strings."""

    def __init__(self, kw: dict[str, Any], deck: list[int]) -> None:
        import pyspiel

        import mariash_env.openspiel  # noqa: F401

        params = os_params({**kw, **({} if _is_lizany(kw) else {"deals": 1})})
        self.s = pyspiel.load_game("mariash", params).new_initial_state()
        for c in deck:
            self.s.apply_action(int(c))
        self.lizany = _is_lizany(kw)

    def mover(self) -> int:
        return self.s.current_player()

    def mask(self) -> np.ndarray:
        return np.asarray(self.s.legal_actions_mask(self.mover()), np.int8)

    def step(self, a: int) -> bool:
        self.s.apply_action(a)
        return self.s.is_terminal() or self.s.is_chance_node()

    def hand(self, p: int) -> int:
        if self.lizany:
            return int(self.s.g.hands[p])
        from mariash_env.core import state as S

        seat = self.s._g.seat(self.s.st, p)
        return int(S.getm(self.s.st, S.HAND + seat)) if seat >= 0 else 0

    def view(self, p: int) -> Any:
        s = self.s
        return (np.asarray(s.observation_tensor(p), np.float32).tobytes(),
                np.asarray(s.information_state_tensor(p), np.float32).tobytes(),
                s.observation_string(p), s.information_state_string(p))


class VectorWorld:
    """One deck in a batch of one (the dealt record restored): the view is the mover's
    observation and mask (the engine encodes the mover's only)."""

    def __init__(self, kw: dict[str, Any], deck: list[int]) -> None:
        self.kw = {**kw, **({} if _is_lizany(kw) else {"deals": 1})}
        self.venv = VectorEnv(1, seed=0, **self.kw)
        self.venv.reset()
        self.g = _dealt(kw, deck)
        self.venv.restore_states(np.asarray(self.g.st, np.int32)[None].copy())
        self.step_ = self.venv.current()

    def mover(self) -> int:
        return int(self.step_.player[0])

    def mask(self) -> np.ndarray:
        return self.step_.mask[0].copy()

    def step(self, a: int) -> bool:
        self.step_ = self.venv.step(np.array([a]))
        return bool(self.step_.deal_done[0])

    def hand(self, p: int) -> int:
        self.g.st[:] = self.venv.copy_states()[0]
        return _hand(self.g, p)

    def view(self, p: int) -> Any:
        if p != self.mover():
            return None  # (the engine shows the mover only)
        return self.step_.obs[0].tobytes(), self.step_.mask[0].tobytes()


WORLDS: dict[str, Callable[[dict[str, Any], list[int]], Any]] = {
    "aec": AecWorld, "parallel": ParallelWorld, "openspiel": OpenSpielWorld,
    "vector": VectorWorld}


def compare_worlds(make, kw: dict[str, Any], seed: int, pairs: int) -> int:
    """Play random decks in two worlds differing only in two hidden cards, the same
    actions in both; after every step each player still blind to both cards must see the
    same in both.  Returns the number of views compared."""
    rng = np.random.default_rng(seed)
    kind = _kind(kw)
    compared = 0
    for deck, other, cards, blind in hidden_swaps(kw, rng, pairs):
        a_w, b_w = make(kw, deck), make(kw, other)
        blind = set(blind)
        tick = step_cap(kw)
        while blind:
            tick()
            for p in sorted(blind):
                va, vb = a_w.view(p), b_w.view(p)
                assert va == vb, (kind.name, p, sorted(CARD_CODES[c] for c in cards))
                compared += va is not None
            a = int(rng.choice(np.flatnonzero(a_w.mask())))
            if reveals(kind.action_label(a), cards) or not b_w.mask()[a]:
                break
            assert a_w.mover() == b_w.mover()
            if a_w.step(a) | b_w.step(a):  # the deal's end shows every card's place
                break
            blind = {p for p in blind if a_w.hand(p) == b_w.hand(p)}
    return compared


@pytest.mark.parametrize("case", ["voleny", "voleny4", "licitovany", "lizany",
                                  "voleny-open-orderfree"])
@pytest.mark.parametrize("front", list(WORLDS))
def test_no_hidden_card_reaches_another_seats_view(front: str, case: str) -> None:
    kw = dict(ALL[case])
    kw.pop("shuffle", None)
    if front == "openspiel":
        pytest.importorskip("pyspiel")
    assert compare_worlds(WORLDS[front], kw, seed=len(case), pairs=12) > 40


class _Stop(Exception):
    """World B's robot met an action that may show the swapped cards, or an illegal one."""


class _Scripted:
    """World A's robots draw random legal actions into a shared script (noting one that
    may show the swapped cards); world B's replay it."""

    def __init__(self, cards: set[int], kind, rng: np.random.Generator) -> None:
        self.cards, self.kind, self.rng = cards, kind, rng
        self.script: list[int] = []
        self.revealed = False

    def robots(self, replay: bool, n: int) -> list[Any]:
        from mariash_env.robots.base import Robot

        script = self

        class Scripted(Robot):
            name, games = "scripted", None

            def act(self, observation: dict[str, Any]) -> int:
                mask = observation["action_mask"]
                if replay:
                    a = script.script.pop(0)
                    if not mask[a]:
                        raise _Stop
                    return a
                a = int(script.rng.choice(np.flatnonzero(mask)))
                script.revealed |= reveals(script.kind.action_label(a), script.cards)
                script.script.append(a)
                return a

        return [Scripted() for _ in range(n)]


@pytest.mark.parametrize("case", ["voleny", "voleny4", "licitovany", "lizany"])
def test_no_hidden_card_reaches_the_single_agent_learner(case: str) -> None:
    """The leak check through ``SingleAgentEnv``: the learner (in a seat blind to both
    swapped cards) sees the same observation and mask in both worlds, its opponents'
    moves in world B replaying those drawn in world A."""
    kw = dict(ALL[case])
    kind = _kind(kw)
    rng = np.random.default_rng(len(case))
    players = kw.get("players", kind.players[0])
    compared = 0
    for deck, other, cards, blind in hidden_swaps(kw, rng, 10):
        # (at four, dealer 0 sits out the only deal: the env refuses that seat)
        seats = [p for p in blind if players < 4 or p != 0]
        if not seats:
            continue
        seat = seats[0]
        script = _Scripted(cards, kind, rng)
        extra = {} if _is_lizany(kw) else {"deals": 1, "dealer": 0}
        opts = {"deck": deck, **({"dealer": 0} if "dealer" in extra else {})}
        extra.pop("dealer", None)
        envs = [mariash_env.SingleAgentEnv(seat=seat, opponents=script.robots(r, players - 1),
                                           **kw, **extra) for r in (False, True)]
        try:
            oa, _ = envs[0].reset(seed=0, options=opts)
            ob, _ = envs[1].reset(seed=0, options={**opts, "deck": other})
            tick = step_cap(envs[0].rules)
            while not script.revealed:
                tick()
                g = [e.game.deal if _is_lizany(kw) else e.game for e in envs]
                if _hand(g[0], seat) != _hand(g[1], seat):
                    break
                assert np.array_equal(oa, ob), (kind.name, seat)
                ma = envs[0].action_masks()
                assert np.array_equal(ma, envs[1].action_masks())
                compared += 1
                a = int(rng.choice(np.flatnonzero(ma)))
                if reveals(kind.action_label(a), cards):
                    break
                oa, _, done, _, _ = envs[0].step(a)
                if done or script.revealed:
                    break
                ob, _, _, _, _ = envs[1].step(a)
        except _Stop:
            pass
    assert compared > 15
