"""The table robots decide a canonical observation in one compiled call, with the actions
and the errors they had.

A float32 observation with an int8 mask is checked and decided by one compiled kernel a
game -- volený's :func:`~mariash_env.games.voleny.table_decide.checked_decide`,
licitovaný's :func:`~mariash_env.games.licitovany.table_robot.checked_decide`, lízaný's
:func:`~mariash_env.games.lizany.table_robot.checked_decide` -- with no decoding in Python
and no second call for the check; anything else, and what the check refuses, goes the
numpy way, which names the fault.  The references below are the robots' rules as they
were in Python before (volený's phases before the card play, lízaný's whole rule): on
positions of random and robot play of every game they take the same actions, and every
tampered observation gets the same ObservationError message as the numpy check gives.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import mariash_env
from mariash_env.cards import NCARDS, cards_of
from mariash_env.core.state import (
    C_BETL,
    C_DURCH,
    PH_ANNOUNCE,
    PH_BARVA,
    PH_BETL_ANSWER,
    PH_CONTRACT,
    PH_DISCARD,
    PH_FLEK,
    PH_PLAY,
    PH_TRUMP,
)
from mariash_env.core.tables import CARD_POINTS
from mariash_env.core.tricks import announces_marriage_py, beats_py, follow_py, strength_py
from mariash_env.games.licitovany import table_robot as licit_robot
from mariash_env.games.lizany import table_robot as lizany_robot
from mariash_env.games.lizany.game import OBS, SC_EMPTY, mask_from
from mariash_env.games.voleny import actions as A
from mariash_env.games.voleny import table_robot as voleny_robot
from mariash_env.robots import ObservationError, make_robot
from mariash_env.robots import features as F
from mariash_env.robots.card_view import CardPlayView
from tests.helpers import check_generic_dispatchers

SPECS = {"voleny": F.VOLENY_OBS, "licitovany": licit_robot.LICIT_OBS,
         "lizany": lizany_robot.LIZANY_OBS}
VARIANTS = {"voleny": {}, "voleny4": {"players": 4}, "voleny_open": {"open_contracts": True},
            "licitovany": {"rules": "licitovany"}, "lizany": {"rules": "lizany"}}


@cache
def _positions(variant: str, deals: int = 40) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The observation and mask of the seat to move at every decision of ``deals`` deals
    (seeds 0..), half the moves the table robot's and half random, so that the robots'
    rare branches (betl and durch discards, the flek's later rounds) are reached."""
    kw = VARIANTS[variant]
    rules = kw.get("rules", "voleny")
    robot = make_robot("table", rules=rules)
    rng = np.random.default_rng(5)
    out = []
    for seed in range(deals):
        e = mariash_env.env(**kw)
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _r, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            o, m = obs["observation"].copy(), obs["action_mask"].copy()
            out.append((o, m))
            a = robot.act(obs) if rng.random() < 0.5 else int(
                rng.choice(np.flatnonzero(m)))
            e.step(int(a))
    return tuple(out)


# --- the rules as they were in Python ------------------------------------------------------
def _voleny_reference(robot, o: F.ObsInfo) -> int:
    """Volený's ``TableRobot.decide`` before its phases were compiled (the card play and
    the flek rule were compiled already: the robot's own ``play_card`` and
    ``flek_actions``)."""
    legal = o.legal
    if o.mask[A.LAY_DOWN]:
        return A.LAY_DOWN
    if len(legal) == 1:
        return legal[0]
    ph, hand, trump = o.phase, o.hand, o.trump
    if ph == PH_TRUMP:
        scores = [voleny_robot.suit_score(hand, s) for s in range(4)]
        best = max(range(4), key=lambda s: (scores[s], F.popcount(F.in_suit(hand, s)), -s))
        if scores[best] - min(scores) < voleny_robot.TRUMP_MIN_GAP:
            a = A.TRUMP_BLIND
        else:
            a = A.TRUMP0 + min(cards_of(F.in_suit(hand, best)),
                               key=lambda c: strength_py(c, best))
    elif ph == PH_CONTRACT:
        dh, _ = voleny_robot.TableRobot.durch_hand_12(hand, o.talon)
        bh, _ = voleny_robot.TableRobot.betl_hand(hand, o.talon)
        if dh <= 0 and o.mask[A.CONTRACT_DURCH]:
            a = A.CONTRACT_DURCH
        elif bh <= 2 and o.mask[A.CONTRACT_BETL]:
            a = A.CONTRACT_BETL
        elif o.mask[A.CONTRACT_SUIT]:
            a = A.CONTRACT_SUIT
        else:
            a = A.CONTRACT_DURCH if dh == 0 or 2 * dh < bh else A.CONTRACT_BETL
    elif ph == PH_DISCARD:
        allowed = sum(1 << (x - A.DISCARD0) for x in legal if A.DISCARD0 <= x < A.DISCARD0 + 32)
        if o.ndisc == 0:
            a = A.DISCARD0 + voleny_robot._best_pair(hand, allowed, o.contract, trump,
                                                     o.talon)[0]
        else:
            cost = voleny_robot._discard_cost(o.contract, trump, o.talon)
            a = A.DISCARD0 + min(cards_of(allowed), key=lambda c: (
                cost(hand & ~(1 << c), 1 << c), -(c & 7)))
    elif ph == PH_BARVA:
        bad = F.durch_hole_suits(hand) <= 0 or F.betl_risk(hand) <= 2
        a = A.BAD if bad else A.GOOD
    elif ph == PH_BETL_ANSWER:
        durch = o.mask[A.CONTRACT_DURCH] and F.durch_hole_suits(hand) <= 0
        a = A.CONTRACT_DURCH if durch else A.GOOD
    elif ph == PH_ANNOUNCE:
        sedma = bool(o.mask[A.ANNOUNCE_SEDMA]) and voleny_robot.trumps_in(hand, trump) >= 4
        sto = bool(o.mask[A.ANNOUNCE_STO]) and voleny_robot.estimate_points(
            hand, trump) >= voleny_robot.STO_MIN_ESTIMATE
        a = (A.ANNOUNCE_STO_SEDMA if sedma and sto and o.mask[A.ANNOUNCE_STO_SEDMA] else
             A.ANNOUNCE_STO if sto else A.ANNOUNCE_SEDMA if sedma else A.ANNOUNCE_HRA)
    elif ph == PH_FLEK:
        a = next((x for x in robot.flek_actions(CardPlayView.of_info(o)) if o.mask[x]),
                 A.GOOD)
    elif ph == PH_PLAY:
        a = A.PLAY0 + robot.play_card(CardPlayView.of_info(o))
    else:
        a = legal[0]
    return int(a if o.mask[a] else legal[0])


_PTS = tuple(int(x) for x in CARD_POINTS)


def _lizany_reference(o: np.ndarray, mask: np.ndarray) -> int:
    """Lízaný's rule robot before it was compiled."""
    legal = sum(1 << int(c) for c in np.flatnonzero(mask))
    trump = int(np.argmax(o[OBS["trump_suit"][0]:OBS["trump_suit"][0] + 4]))
    hand = mask_from(o[OBS["hand"][0]:])
    table = mask_from(o[OBS["table"][0]:])
    empty = o[OBS["scalars"][0] + SC_EMPTY] > 0.5
    cards = cards_of(legal)

    def cost(c: int) -> tuple[int, bool, int]:
        return (_PTS[c], (c >> 3) == trump, strength_py(c, trump))

    def rich(c: int) -> tuple[int, int]:
        return (_PTS[c], -strength_py(c, trump))

    pairs = [c for c in cards if announces_marriage_py(hand, c, False)]
    if pairs:
        return min(pairs, key=lambda c: ((c >> 3) != trump, c & 7 == 6))
    if not table:
        if empty:
            seen = hand | mask_from(o[OBS["played_me"][0]:]) | mask_from(
                o[OBS["played_opp"][0]:])
            opp = ((1 << NCARDS) - 1) & ~seen
            safe = [c for c in cards if not any(beats_py(r, c, trump) for r in cards_of(
                follow_py(opp, c, c, trump)))]
            if safe:
                return max(safe, key=rich)
        return min(cards, key=cost)
    x = int(table).bit_length() - 1
    wins = [c for c in cards if beats_py(c, x, trump)]
    if empty:
        return max(wins, key=rich) if wins else min(cards, key=cost)
    if _PTS[x]:
        cheap = [c for c in wins if (c >> 3) != trump or not _PTS[c]]
        if cheap:
            return min(cheap, key=lambda c: ((c >> 3) == trump, _PTS[c],
                                             strength_py(c, trump)))
    banks = [c for c in wins if (c >> 3) != trump and _PTS[c]]
    if banks:
        return min(banks, key=lambda c: strength_py(c, trump))
    return min(cards, key=cost)


# --- the tests ---------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["voleny", "voleny4", "voleny_open"])
def test_voleny_decides_as_its_python_rules_did(variant):
    """Every phase (the trump card, the contract, both discards in suit games, betl and
    durch, Barva?, the betl answer, the announcement, the flek, the card play) at three
    and four players and with open contracts: the compiled decision is the Python
    rules' (:func:`_voleny_reference`), with the check and without, and so is
    ``TableRobot.decide`` on the decoded observation."""
    robot, fast = make_robot("table"), make_robot("table")
    fast.check = False
    phases = set()
    for o, m in _positions(variant):
        info = F.decode(o, m)
        want = _voleny_reference(robot, info)
        d = {"observation": o, "action_mask": m}
        assert robot.act(d) == fast.act(d) == robot.decide(info) == want, info.phase
        phases.add(info.phase)
    assert robot.fallbacks == fast.fallbacks == 0
    assert {PH_TRUMP, PH_CONTRACT, PH_DISCARD, PH_BARVA, PH_ANNOUNCE, PH_FLEK,
            PH_PLAY} <= phases


def test_voleny_discards_of_betl_and_durch_are_reached():
    """The positions above hold betl and durch discards (their own cost functions)."""
    contracts = {F.decode(o, m).contract for o, m in _positions("voleny")
                 if F.decode(o, m).phase == PH_DISCARD}
    assert {C_BETL, C_DURCH} <= contracts


def test_lizany_decides_as_its_python_rule_did():
    robot = make_robot("table", rules="lizany")
    for o, m in _positions("lizany", 80):
        assert robot.act({"observation": o, "action_mask": m}) == _lizany_reference(o, m)


@pytest.mark.parametrize("rules", ["voleny", "licitovany", "lizany"])
def test_a_canonical_observation_is_one_compiled_call(rules, monkeypatch):
    """No numpy check, no separate compiled check and no Python decoding for the
    environment's own observations: the robot's ``act`` calls its game's one kernel."""

    robot = make_robot("table", rules=rules)
    pos = _positions(rules)[:300] + (_positions("voleny4")[:300] if rules == "voleny" else ())

    def refused(*_a, **_k):
        raise AssertionError("a canonical observation left the compiled call")

    for name in ("check_observation", "is_canonical", "decode", "_check_in_full"):
        monkeypatch.setattr(F, name, refused)
    for module in (voleny_robot, lizany_robot, licit_robot):
        for name in ("check_observation", "is_canonical", "decode", "_check_view"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, refused)
    for o, m in pos:  # volený's at four players too (924 slots)
        robot.act({"observation": o, "action_mask": m})


def _forms(v: np.ndarray, m: np.ndarray, rng: np.random.Generator) -> tuple:
    """``v`` and ``m`` tampered: a few slots set to odd values, then another dtype,
    length, memory layout or container (or none), and a mask likewise."""
    v, m = v.copy(), m.copy()
    for _ in range(int(rng.integers(0, 4))):
        i = int(rng.integers(v.size))
        v[i] = rng.choice([0.0, 1.0, 0.5, 2.0, -1.0, np.nan, np.inf,
                           1.0 - round(float(v[i])) if abs(v[i]) < 2 else 0.0])
    form = int(rng.integers(12))
    if form == 0:
        v = v.astype(np.float64)
    elif form == 1:
        v = v.tolist()
    elif form == 2:
        v = v[:-1]
    elif form == 3:
        v = np.repeat(v, 2)[::2]
    elif form == 4:
        v = v.astype(">f4")
    elif form == 5:
        v.setflags(write=False)
    mform = int(rng.integers(10))
    if mform == 0:
        m = np.zeros_like(m)
    elif mform == 1:
        m = m.astype(np.float32)
        m[int(rng.integers(m.size))] = 2.0
    elif mform == 2:
        m = m.astype(bool)
    elif mform == 3:
        m = m[:-1]
    elif mform == 4:
        m = m.tolist()
    return v, m


@pytest.mark.parametrize("rules", ["voleny", "licitovany", "lizany"])
def test_tampered_observations_get_the_checks_message_or_the_same_action(rules):
    """What the numpy check refuses, ``act`` refuses with its message; a mask with no
    legal action gets the robots' message; any other form is decided as the float32
    observation and int8 mask it holds."""
    spec = SPECS[rules]
    robot = make_robot("table", rules=rules)
    rng = np.random.default_rng(11)
    pos = _positions(rules)
    seen = {"refused": 0, "decided": 0}
    for _ in range(1500):
        v, m = _forms(*pos[int(rng.integers(len(pos)))], rng)
        try:
            want = F.check_observation(v, m, spec)
        except ObservationError as e:
            with pytest.raises(ObservationError) as got:
                robot.act({"observation": v, "action_mask": m})
            assert str(got.value) == str(e)
            seen["refused"] += 1
            continue
        mask = np.asarray(m, dtype=np.int8)
        if not mask.any():
            with pytest.raises(ObservationError, match="no legal action"):
                robot.act({"observation": v, "action_mask": m})
            continue
        a = robot.act({"observation": v, "action_mask": m})
        assert a == robot.act({"observation": want, "action_mask": mask})
        seen["decided"] += 1
    assert seen["refused"] > 300 and seen["decided"] > 100, seen


@pytest.mark.parametrize("ndisc", [0, 1])
def test_a_discard_observation_whose_mask_allows_no_discard_falls_back(ndisc):
    """A discard observation with a mask of another phase (a caller mixing observations):
    the discard rule answered ``discard0 - 1``, i.e. ``contract:open_durch``, which the
    robot played where the mask allowed it (a contract, at a discard; and the second
    discard raised a bare ValueError before it was compiled).  Now it plays the first legal
    action and counts a fallback, in the compiled call and in ``decide``."""
    o = next(o for o, m in _positions("voleny_open")
             if F.decode(o, m).phase == PH_DISCARD and F.decode(o, m).ndisc == ndisc)
    m = np.zeros(A.N_ACTIONS, np.int8)
    m[[A.TRUMP0 + 3, A.CONTRACT_OPEN_DURCH, A.GOOD]] = 1
    robot = make_robot("table")
    assert robot.act({"observation": o, "action_mask": m}) == A.TRUMP0 + 3  # the first
    assert robot.fallbacks == 1
    assert robot.decide(F.decode(o, m)) == A.TRUMP0 + 3 and robot.fallbacks == 2


@pytest.mark.parametrize("jit", [True, False])
def test_first_legal_is_the_lowest_legal_action_and_the_count(jit):
    """The table robots' (and the compiled playouts') one loop over the mask:
    :func:`~mariash_env.robots.legal.first_legal` gives the lowest legal action (-1 for
    none) and how many there are, over the first ``n`` slots only."""
    from mariash_env.robots.legal import first_legal

    f = first_legal if jit else first_legal.py_func
    m = np.zeros(A.N_ACTIONS, np.int8)
    assert f(m, A.N_ACTIONS) == (-1, 0)  # an empty mask
    m[A.GOOD] = 1
    assert f(m, A.N_ACTIONS) == (A.GOOD, 1)  # one legal action
    m[[A.PLAY0 + 3, A.PLAY0 + 30, A.TRUMP0]] = 1
    assert f(m, A.N_ACTIONS) == (A.TRUMP0, 4)  # several: the lowest, all counted
    assert f(m, A.PLAY0 + 4) == (A.TRUMP0, 3)  # only the first n slots
    assert f(m, 0) == (-1, 0)


def test_the_table_robots_helpers_compile_once_for_every_constant():
    """The table robots' compiled rules are ``njit_generic`` (or inlined): compiled once
    per argument types, not once per constant a caller passes (a card order, a seat, an
    observation offset; the volený robot compiled 136 functions, 69 of them distinct, on
    an empty cache), the observation checks aside.  What the robots built here compiled
    holds no literal type."""
    for rules in ("voleny", "licitovany", "lizany"):
        make_robot("table", rules=rules)
    # the observation checks: one caller's constant offsets each, which their loops want
    checks = {"plain_ok", "levels_ok", "tricks_ok", "_voleny_ok", "_licit_ok", "_lizany_ok"}
    modules = ["games.voleny.table_play", "games.voleny.table_decide",
               "games.voleny.table_hand", "games.voleny.table_discards",
               "games.licitovany.table_decide", "games.licitovany.table_play",
               "games.licitovany.table_robot", "games.lizany.table_robot",
               "robots.features", "robots.legal"]
    assert check_generic_dispatchers(modules, checks) > 60
