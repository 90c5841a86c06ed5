"""Shared helpers for scripted deals in the tests."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mariash_env import Game
from mariash_env.cards import CARD_CODES, mask_of


def deck_from_hands(
    f7: Sequence[str], f5: Sequence[str], middle: Sequence[str], dealer: Sequence[str]
) -> list[str]:
    """The deck (from the top) that deals these hands (RULES.md §2 block dealing).

    ``f7`` forehand's first block (the cards it sees when choosing trumps), ``f5``
    its second block (``f5[0]`` is deck position 17, the z-lidu card), ``middle``
    and ``dealer`` 10 cards each (first five = first block).
    """
    f7, f5, middle, dealer = list(f7), list(f5), list(middle), list(dealer)
    assert len(f7) == 7 and len(f5) == 5 and len(middle) == 10 and len(dealer) == 10
    deck = f7 + middle[:5] + dealer[:5] + f5 + middle[5:] + dealer[5:]
    assert sorted(deck) == sorted(CARD_CODES), "the hands must hold each card once"
    return deck


def rest_of(*used: Iterable[str]) -> list[str]:
    """The cards not named in ``used``, in canonical order."""
    m = 0
    for u in used:
        m |= mask_of(u)
    return [c for i, c in enumerate(CARD_CODES) if not m >> i & 1]


def new_game(deck: Sequence[str], dealer: int = 0, **rules) -> Game:
    g = Game(**rules)
    g.new_partie(seed=0, deck=deck, dealer=dealer)
    return g


def play(game: Game, labels: Iterable[str]) -> None:
    """Apply labels in order; each must be legal for the seat to move."""
    for lab in labels:
        game.step(lab)


def licit_deck(
    forhond: Sequence[str], zadak: Sequence[str], dealer: Sequence[str], talon: Sequence[str]
) -> list[str]:
    """The deck (from the top) that deals these licitovaný hands (LICITOVANY.md §2, §13).

    Positions: forhond 0–4 and 17–21, zadák 5–9 and 22–26, dealer 10–14 and 27–31, the
    talon 15–16; each hand's first five cards are its first block.
    """
    f, z, d, t = list(forhond), list(zadak), list(dealer), list(talon)
    assert len(f) == len(z) == len(d) == 10 and len(t) == 2
    deck = f[:5] + z[:5] + d[:5] + t + f[5:] + z[5:] + d[5:]
    assert sorted(deck) == sorted(CARD_CODES), "the hands and talon must hold each card once"
    return deck


def licit_game(
    deck: Sequence[str], dealer: int = 0, cuts: Sequence[int] | None = None, **rules
) -> Game:
    """A licitovaný partie whose first deal is ``deck`` dealt by ``dealer``."""
    from mariash_env.rules import make_rules

    g = Game(make_rules(rules="licitovany", **rules))
    g.new_partie(seed=0, deck=deck, dealer=dealer, cuts=cuts)
    return g


# --- the play table ------------------------------------------------------------------------
T0 = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)  # the tables' fixed clock


def table_session(save_dir: Path, **kw: Any):
    """A :class:`~mariash_env.play.session.PlaySession` of ``table,random`` robots (seed 5
    unless given) saving into ``save_dir``, on the fixed clock :data:`T0`."""
    from mariash_env.play.session import PlaySession

    kw.setdefault("seed", 5)
    return PlaySession(kw.pop("robots", "table,random"), save_dir=save_dir, clock=lambda: T0,
                       **kw)


def page_client(save_dir: Path):
    """A Starlette TestClient (a context manager) of the table's page whose sessions
    (seed 3, ``table,random``, seat 1 unless the page's ``setup`` says otherwise) save into
    ``save_dir``."""
    import warnings

    with warnings.catch_warnings():  # starlette asks for httpx2, which is not needed here
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from mariash_env.play.session import PlaySession
    from mariash_env.play.web import create_app

    def new_session(setup=None):
        setup = setup or {}
        return PlaySession(setup.get("robots", "table,random"), save_dir=save_dir, seed=3,
                           human_seat=setup.get("seat", 1), rules=setup.get("rules", "voleny"),
                           options=setup.get("options"))

    return TestClient(create_app(new_session))


def until_human(s) -> dict[str, Any]:
    """Let the robots of session ``s`` act until the table waits for something else (the
    rest of one deal at most: :func:`table_cap`)."""
    tick = table_cap(s, deals=1)
    while s.waiting == "robot":
        tick()
        s.advance(s.id, s.move)
    return s.state()


def label_loss_logged(run: Path) -> bool:
    """Whether every iteration of a training run that updated the network logged a
    positive label loss (``metrics.csv``), and one did: the run regressed its label sets."""
    rows = [r.split(",") for r in (run / "metrics.csv").read_text().splitlines()]
    col, upd = rows[0].index("label_loss"), rows[0].index("updates")
    trained = [r for r in rows[1:] if float(r[upd]) > 0]
    return bool(trained) and all(float(r[col]) > 0 for r in trained)


# --- a bound on the loops that play a game to its end -------------------------------------

def _rules_of(rules: Any) -> Any:
    """A Rules from a Rules, a game's name, make_rules' options, an OpenSpiel game, or
    what has one as ``.rules`` (lízaný, which has no Rules: its name and its deals)."""
    from types import SimpleNamespace

    from mariash_env.rules import Rules, make_rules

    if isinstance(rules, (Rules, SimpleNamespace)):
        return rules
    if isinstance(rules, str):
        rules = {"rules": rules}
    if isinstance(rules, dict):
        if rules.get("rules") == "lizany":
            return SimpleNamespace(rules="lizany", deals=rules.get("deals", 1), max_flek=0)
        return make_rules(**rules)
    if hasattr(rules, "get_parameters") and rules.get_parameters()["rules"] == "lizany":
        return _rules_of(rules.get_parameters())  # an OpenSpiel game of lízaný
    return _rules_of(rules.rules)


def deal_decisions(rules: Any = "voleny") -> int:
    """The most player decisions one deal of ``rules``' game can take, from its rules
    (``rules``: a Rules, a game's name, make_rules' options, or what has a Rules as
    ``.rules``: a Game, an env, a VectorEnv, an OpenSpiel game), ``L`` the highest flek
    level (RULES.md §12: 24 when unlimited):

    * volený (RULES.md §3-§7; at four the dealer sits out, three play): trumps, contract,
      discards, answers, a taken talon's discards, the announcement at most 15 (§3-§5.1;
      with open contracts 15 more, §11.1: at most three overcalls of five); flek (§5.3)
      at most 4 bets of L raises each and two announcements, every round but the last
      raises one, so at most ``4L + 3`` rounds of two ``good``; play 10 tricks of three
      and a lay-down, 31;
    * licitovaný (LICITOVANY.md §4-§7): the auction at most 28 (12 games bid and held, 3
      passes, a lone bid), the announcement 6, flek ``3(4L + 1)`` turns each closed by
      ``good`` and ``4L`` raises, play 31;
    * lízaný: one card a decision, 32.

    The games' own bounds (``deal_bounds``, OpenSpiel's ``max_game_length``) say the
    same; this one is written from the rules, apart from the code under test."""
    from mariash_env.rules import UNLIMITED_FLEK

    rules = _rules_of(rules)
    level = UNLIMITED_FLEK if rules.max_flek is None else rules.max_flek
    if rules.rules == "lizany":
        return 32
    if rules.rules == "licitovany":
        return 28 + 6 + 3 * (4 * level + 1) + 4 * level + 31
    return 15 + 15 * rules.open_contracts + (4 * level + 2) + 2 * (4 * level + 3) + 31


def step_cap(rules: Any = "voleny", deals: int | None = 1,
             chance: bool = False) -> Callable[[], None]:
    """A counter for a test's loop that plays a game to its end (random legal actions,
    the first legal one, robots): called once a step, it fails the test with an
    AssertionError past twice the steps ``deals`` deals of ``rules`` can take
    (:func:`deal_decisions`; ``deals`` None: a whole partie, the rules' ``deals``;
    ``chance``: an OpenSpiel state's chance nodes too, 32 cards dealt and a cut a deal).
    An action dispatch that does not move the game on (a mutant's) then fails the test
    at once instead of looping until the time limit::

        tick = step_cap(g)
        while not g.deal_over:
            tick()
            g.step(...)
    """
    rules = _rules_of(rules)
    n = rules.deals if deals is None else deals
    limit = 2 * n * (deal_decisions(rules) + (33 if chance else 0))
    taken = 0

    def step() -> None:
        nonlocal taken
        taken += 1
        assert taken <= limit, (
            f"more than {limit} steps (twice the most {n} deal(s) of {rules.rules} can take) "
            "in a loop that plays to the end: the game does not move on")

    return step


def table_cap(s: Any, deals: int | None = None) -> Callable[[], None]:
    """:func:`step_cap` for a loop over the moves of the play table ``s`` (a
    ``PlaySession`` or a ``LizanySession``): a robot's move, the human's (an undo too),
    the next deal each one step; ``deals`` deals of its game (None: its partie, its
    rules' deals, lízaný's ``options["deals"]``)::

        tick = table_cap(s)
        while s.waiting != "partie_over":
            tick()
            table_step(s, rng)
    """
    rules = getattr(s.game, "rules", None)  # lízaný's game has none
    if rules is None:
        rules = {"rules": "lizany", "deals": s.options["deals"]}
    return step_cap(rules, deals=deals)


def random_play(e, rng) -> Iterator[str]:
    """Play the AEC env ``e`` to its end with uniformly random legal actions, yielding
    each agent right after its action (the finished agents' ``None`` steps taken here;
    :func:`step_cap` bounds the steps of its partie, lízaný's one deal)."""
    raw = e.unwrapped
    tick = step_cap(raw if hasattr(raw, "rules") else "lizany", deals=None)
    for agent in e.agent_iter():
        tick()
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        yield agent


def table_step(s, rng, st: dict[str, Any] | None = None) -> dict[str, Any]:
    """One move at the play table ``s`` of whoever it waits for: a robot, the human (a
    random legal action of the state ``st``, default ``s.state()``) or the next deal."""
    st = s.state() if st is None else st
    if s.waiting == "robot":
        return s.advance(s.id, s.move)
    if s.waiting == "human":
        return s.act(s.id, s.move, rng.choice(st["legal"]))
    return s.next_deal(s.id, s.move)


_DECISION_COMPILES = textwrap.dedent("""
    import json, sys
    import numpy as np
    from mariash_env.compile import compiled_signatures as compiled
    from mariash_env.playout import deal_states, play_games
    from mariash_env.robots import make_robot
    from mariash_env.rules import make_rules

    spec, partner, games, deals = json.loads(sys.argv[1])
    grew = {}
    for game in games:
        rules = make_rules(rules=game)
        robot, other = make_robot(spec, rules=rules), make_robot(partner, rules=rules)
        inner = robot.act_view

        def act_view(view, inner=inner):
            before = compiled()
            out = inner(view)
            for k, n in compiled().items():
                if n != before.get(k, 0):
                    grew[k] = n - before.get(k, 0)
            return out

        robot.act_view = act_view
        for seed in range(deals):
            for r in (robot, other):
                r.begin_deal(seed)
            st = deal_states(np.array([seed]), np.array([seed % 3]), rules)
            play_games([robot, other], st, np.array([[0, 1, 1]]), rules, True)
    print(json.dumps(grew))
""")


def decision_compiles(robot: str, partner: str, games: Sequence[str],
                      deals: int) -> dict[str, int]:
    """The kernels that gained a signature (compiled, or loaded from numba's disk cache)
    in ``robot``'s decisions, in a fresh process: for each game the robot and ``partner``
    are built, then ``deals`` deals played, the robot in seat 0 -- empty when building the
    robot warmed up everything its decisions call."""
    args = json.dumps([robot, partner, list(games), deals])
    out = subprocess.run([sys.executable, "-c", _DECISION_COMPILES, args],
                         cwd=Path(__file__).resolve().parents[1], capture_output=True,
                         text=True, timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def observers_give_the_own_view_only(game: Any, state: Any, player: int) -> None:
    """Assert that ``game``'s OpenSpiel observers (``make_py_observer``) give a seat's own
    view only: a public-only, an all-players or a public-less observer is refused by name
    (a ValueError saying "own view"), with or without perfect recall, and so are
    parameters; the seat's own is the state's observation / information state string of
    ``player``."""
    import pyspiel
    import pytest
    from open_spiel.python.observation import make_observation

    priv = pyspiel.PrivateInfoType
    for recall in (False, True):
        for public, private in ((True, priv.NONE), (True, priv.ALL_PLAYERS),
                                (False, priv.SINGLE_PLAYER)):
            kind = pyspiel.IIGObservationType(perfect_recall=recall, public_info=public,
                                              private_info=private)
            with pytest.raises(ValueError, match="own view"):
                make_observation(game, kind)
        own = make_observation(game, pyspiel.IIGObservationType(perfect_recall=recall))
        assert own.string_from(state, player) == (
            state.information_state_string(player) if recall
            else state.observation_string(player))
    with pytest.raises(ValueError, match="no parameters"):
        game.make_py_observer(None, {"x": 1})


def strict_loads(text: str | bytes) -> Any:
    """``json.loads`` as a standard JSON reader: the NaN, Infinity and -Infinity that
    Python's json writes for non-finite floats are refused (not JSON)."""
    def refuse(token: str) -> Any:
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def check_generic_dispatchers(modules: Iterable[str], plain: set[str]) -> int:
    """Every compiled function the ``mariash_env`` modules named define is ``njit_generic``
    (compiled once per argument types) and holds no literal signature, its inlined ones
    and those named in ``plain`` aside; the number of functions checked."""
    import importlib

    import numba
    from numba.core import types

    from mariash_env.core.jit import _GenericDispatcher

    seen = 0
    for name in modules:
        mod = importlib.import_module(f"mariash_env.{name}")
        for fname, f in vars(mod).items():
            if (not isinstance(f, numba.core.dispatcher.Dispatcher)
                    or f.__module__ != mod.__name__
                    or f.targetoptions.get("inline", "never") == "always"
                    or fname in plain):
                continue
            assert isinstance(f, _GenericDispatcher), f"{name}.{fname} is a plain njit"
            for sig in f.signatures:
                assert not any(isinstance(t, types.Literal) for t in sig), (fname, sig)
            seen += 1
    return seen


def lizany_minimax(st: np.ndarray, root: int, lo: int = -3, hi: int = 3) -> int:
    """Lízaný's value of ``st`` for seat ``root`` by plain alpha-beta on the core's own
    ``legal_cards`` / ``play_card``: no table, no merged cards, every move in code order --
    the reference the solver's shortcuts must agree with (its rewards: -3..3)."""
    from mariash_env.games.lizany.core import OVER, REWARDS, TO_MOVE, legal_cards, play_card

    if st[OVER]:
        return int(st[REWARDS + root])
    m = int(legal_cards(st))
    best = -3 if st[TO_MOVE] == root else 3
    for c in range(32):
        if m >> c & 1:
            child = st.copy()
            play_card(child, c)
            v = lizany_minimax(child, root, lo, hi)
            if st[TO_MOVE] == root:
                best, lo = max(best, v), max(lo, v)
            else:
                best, hi = min(best, v), min(hi, v)
            if lo >= hi:
                break
    return best


def lizany_position(seed: int, tricks: int, follower: bool) -> Any:
    """A lízaný deal (``LizanyGame(seed=seed)``) played at random to ``tricks`` tricks,
    then one card more when ``follower`` (the second seat to move in a trick); at most a
    deal's steps (:func:`step_cap`)."""
    from mariash_env.games.lizany.core import TRICK_NO
    from mariash_env.games.lizany.game import LizanyGame

    rng = np.random.default_rng(seed)
    g = LizanyGame(seed=seed)
    tick = step_cap("lizany")
    while g.st[TRICK_NO] < tricks or (follower and g.table < 0):
        tick()
        g.play(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    return g


def typed_signatures() -> dict[str, list[str]]:
    """Every signature the package's compiled functions are called with, as a cold numba
    cache compiles them: ``"module.qualname"`` -> its signatures.  A kernel loaded from
    numba's disk cache compiles none of the helpers it calls (their code is in its own),
    so their signatures do not show; here each signature loaded or compiled in this
    process is *typed* again (numba's pipeline up to its type inference, no code made),
    which asks every compiled helper it calls for the types it is called with (loading
    those from the disk cache too), until no new one turns up: a few seconds, where
    compiling them takes minutes."""
    import gc

    from numba.core import compiler
    from numba.core.compiler_machinery import FunctionPass, PassManager, register_pass
    from numba.core.dispatcher import Dispatcher
    from numba.core.typed_passes import NopythonTypeInference

    @register_pass(mutates_CFG=False, analysis_only=True)
    class _Typed(FunctionPass):
        _name = "mariash_typed_only"

        def __init__(self):
            FunctionPass.__init__(self)

        def run_pass(self, state):
            state.cr = state.typemap  # the pipeline's result: it stops here
            return False

    class _TypeOnly(compiler.CompilerBase):
        def define_pipelines(self):
            full = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
            pm = PassManager("typed only")
            for p in full.passes:
                pm.passes.append(p)
                if p[0] is NopythonTypeInference:
                    break
            pm.add_pass(_Typed, "stop after typing")
            pm.finalize()
            return [pm]

    def ours() -> list[Dispatcher]:
        return [o for o in gc.get_objects() if isinstance(o, Dispatcher)
                and getattr(o.py_func, "__module__", "").startswith("mariash_env")]

    typed: set[tuple[int, Any]] = set()
    while True:
        todo = [(d, sig) for d in ours() for sig in list(d.signatures)
                if (id(d), sig) not in typed]
        if not todo:
            break
        for d, sig in todo:
            typed.add((id(d), sig))
            flags = compiler.Flags()
            d.targetdescr.options.parse_as_flags(flags, d.targetoptions)
            compiler.compile_extra(d.targetdescr.typing_context, d.targetdescr.target_context,
                                   d.py_func, args=sig, return_type=None, flags=flags,
                                   locals=d.locals, pipeline_class=_TypeOnly)
    out: dict[str, set[str]] = {}
    for d in ours():
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        out.setdefault(name, set()).update(str(s) for s in d.signatures)
    return {k: sorted(v) for k, v in out.items() if v}
