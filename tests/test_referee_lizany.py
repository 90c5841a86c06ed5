"""Lízaný played against an independent referee (tests/referee_lizany.py).

The referee is a second reading of the lízaný rules (``docs/games/lizany.md``, the seed's
line, the parts of RULES.md it shares), written without reading the engine; nothing here
shares code with it.  Each deal is played through the public env
(``mariash_env.raw_env(rules="lizany")``, ``reset(options={"deck": ...})``) by a biased
random policy, and at every step the env's seat to move, phase and legal labels must equal
the referee's, a seat not to move must have none, and each seat's observation must show
what the rules let it see: its hand, the trump card and suit, the cards each played, the
card on the table, the opponent's cards it knows from play (the trump card once drawn, an
announced marriage's partner), the marriages, the stock's size, the points, marriages and
tricks so far, the turn.  At the end the settlement (card points with the last trick,
marriages, tricks, rewards, payments), the rewards and the record must agree, the record
must replay, and a record with a card the referee calls illegal must be refused.

Lízaný takes no rules options (``deals=1``, ``players=2`` only), so there is nothing to
vary there; whole parties are a run of episodes of one env (the seeded generator dealing
each), and the batched engine's first deals are checked against the referee too.  Rigged
decks (marriages for both seats, a sweep in which one seat takes every trick) and policies
(marriage lovers, trick takers) make every settlement branch occur; each run asserts a
coverage floor so that a change to the policy or the engine cannot quietly stop testing a
branch.
"""

from __future__ import annotations

import collections
import copy
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import mariash_env
from mariash_env import lizany
from mariash_env.records import RecordError
from tests.helpers import step_cap
from tests.referee_lizany import CARDS, ORDER, SUITS, Referee, beats

MODES = ("random", "random", "marriages", "greedy", "sweep")

# Every branch of the settlement and of the trick rules a run must meet.  Not "tie": the
# card points (90 with the last trick) and the marriages (20, 40) are tens whose total is
# an odd number of tens, so equal points cannot happen and the rule for them never applies.
FLOOR = {
    "reward:1", "reward:2", "loser_tricks:0", "loser_tricks:1", "loser_tricks:2",
    "winner_lost_last_trick", "marriage:trump:lead",
    "marriage:trump:follow", "marriage:plain:lead", "marriage:plain:follow",
    "trumped:stock", "trumped:endgame", "endgame_forced", "endgame_must_beat",
    "endgame_must_trump", "opp_known:trump_card", "opp_known:marriage",
}

_BLOCKS = {name: (start, size) for name, start, size, _ in lizany.OBS_LAYOUT}


# ---------------------------------------------------------------------------------------
# Decks and policy
# ---------------------------------------------------------------------------------------


def marriages_deck(rng: random.Random) -> list[str]:
    """K and Q of two suits (one the trump suit) in each seat's first eight cards."""
    suits = rng.sample(SUITS, 4)
    trump = suits[0]
    deck = [c for c in CARDS if c[0] not in "KQ" or c[1] not in suits]
    rng.shuffle(deck)
    hand0 = ["K" + suits[0], "Q" + suits[0], "K" + suits[1], "Q" + suits[1]]
    hand1 = ["K" + suits[2], "Q" + suits[2], "K" + suits[3], "Q" + suits[3]]
    if rng.random() < 0.5:
        hand0, hand1 = hand1, hand0
    up = next(c for c in deck if c[1] == trump)  # the turned-up card names trumps
    deck.remove(up)
    return hand0 + deck[:4] + hand1 + deck[4:8] + [up] + deck[8:]


def sweep_deck(rng: random.Random, give_one: bool) -> tuple[list[str], int, str | None]:
    """A deck in which the sweeper (seat 0 or 1), playing ``sweeper_card``, takes every
    trick: it holds seven trumps and one high card, draws the other high cards (the A, T,
    K of the three plain suits) as each trick's winner; the other seat holds the low plain
    cards and draws the trump seven (the turned-up card) last.  With ``give_one`` the
    other seat is dealt the five low cards of a plain suit (``void``, returned with the
    deck and the sweeper), to play them while the stock lasts: void in it, it must trump
    the sweeper's first lead after the stock with its seven, its one trick."""
    trump = rng.choice(SUITS)
    plain = [s for s in SUITS if s != trump]
    void = rng.choice(plain) if give_one else None
    high = [r + s for s in plain for r in "ATK"]
    low = [r + s for s in plain for r in "QJ987"]
    rng.shuffle(high)
    rng.shuffle(low)
    if void:
        low.sort(key=lambda c: c[1] != void)  # stable: the void suit's five first
        low[:8] = rng.sample(low[:8], 8)
    strong = [r + trump for r in "89JQKTA"] + high[:1]
    rng.shuffle(strong)
    weak = low[:8]
    sweeper = rng.randrange(2)
    hands = (strong + weak) if sweeper == 0 else (weak + strong)
    stock = []
    for i in range(7):  # positions 17..30: the winner's card, then the loser's
        stock += [high[1 + i], low[8 + i]]
    stock.append(high[8])  # position 31, the winner's last draw
    return hands + ["7" + trump] + stock, sweeper, void


def sweeper_card(ref: Referee, labels: list[str], void: str | None) -> str:
    """Take every trick, keeping the trump ace for the first lead once the stock is gone;
    with ``void`` keep that suit while the stock lasts and lead it first after it."""
    ace = "play:A" + ref.trump
    if void and not ref.table:
        mine = [lab for lab in labels if lab[6] == void]
        if not ref.stock and len(labels) == 8 and mine:
            return mine[0]
        if ref.stock and len(mine) < len(labels):
            labels = [lab for lab in labels if lab[6] != void]
    if not ref.stock and ace in labels:
        return ace
    rest = [lab for lab in labels if lab != ace] or labels
    if ref.table:  # follow: a card that wins
        win = [lab for lab in rest if beats(lab[5:], ref.table[0][1], ref.trump)]
        return sorted(win or rest)[0]
    return max(rest, key=lambda lab: (lab[6] != ref.trump, ORDER.index(lab[5])))


def choose(rng: random.Random, ref: Referee, labels: list[str], style: dict[str, Any]) -> str:
    seat = ref.seat
    assert seat is not None
    if style.get("script"):
        return style["script"].pop(0)
    if style.get("sweeper") == seat:
        return sweeper_card(ref, labels, style.get("void"))
    if style.get("void") and ref.stock:  # the other seat plays the void suit first
        mine = [lab for lab in labels if lab[6] == style["void"]]
        if mine:
            return rng.choice(mine)
    if style["marry"] and rng.random() < style["marry"]:
        h = ref.hands[seat]
        kq = [lab for lab in labels if lab[5] in "KQ"
              and {"K": "Q", "Q": "K"}[lab[5]] + lab[6] in h]
        if kq:
            return rng.choice(kq)
    if style["greedy"] and ref.table and rng.random() < style["greedy"]:
        win = [lab for lab in labels if beats(lab[5:], ref.table[0][1], ref.trump)]
        if win:
            return rng.choice(win)
    return rng.choice(labels)


# ---------------------------------------------------------------------------------------
# What each seat sees
# ---------------------------------------------------------------------------------------


def _cards(vec: np.ndarray) -> set[str]:
    return {CARDS[i] for i in np.flatnonzero(vec)}


def obs_diffs(obs: np.ndarray, ref: Referee, s: int) -> list[tuple]:
    """Every block of seat ``s``'s observation that differs from what the referee says the
    seat may see."""
    o = 1 - s

    def block(name: str) -> np.ndarray:
        start, size = _BLOCKS[name]
        return obs[start:start + size]

    want_sets = {
        "hand": set(ref.hands[s]), "trump_card": {ref.trump_card},
        "played_me": set(ref.played[s]), "played_opp": set(ref.played[o]),
        "table": {c for _, c in ref.table}, "opp_known": ref.known(o),
    }
    diffs: list[tuple] = [(n, sorted(_cards(block(n))), sorted(w))
                          for n, w in want_sets.items() if _cards(block(n)) != w]
    ts = block("trump_suit")
    if list(np.flatnonzero(ts)) != [SUITS.index(ref.trump)]:
        diffs.append(("trump_suit", list(ts), ref.trump))
    marr = np.zeros(8, np.float32)
    for m, x, _ in ref.marriages:
        marr[SUITS.index(x) * 2 + (0 if m == s else 1)] = 1
    if not np.array_equal(block("marriages"), marr):
        diffs.append(("marriages", list(block("marriages")), list(marr)))
    sc = block("scalars")
    cp = [ref.card_points_of(p) for p in (s, o)]
    mp = [ref.marriage_points(p) for p in (s, o)]
    tr = [sum(1 for *_, w in ref.tricks if w == p) for p in (s, o)]
    want = {
        lizany.SC_STOCK: len(ref.stock) / 16, lizany.SC_EMPTY: float(not ref.stock),
        lizany.SC_PTS_ME: cp[0] / 90, lizany.SC_PTS_OPP: cp[1] / 90,
        lizany.SC_MARR_ME: mp[0] / 100, lizany.SC_MARR_OPP: mp[1] / 100,
        lizany.SC_TRICKS_ME: tr[0] / 16, lizany.SC_TRICKS_OPP: tr[1] / 16,
        lizany.SC_TO_MOVE: float(ref.seat == s), lizany.SC_DONE: float(ref.done),
        lizany.SC_TOTAL_ME: (cp[0] + mp[0]) / 190, lizany.SC_TOTAL_OPP: (cp[1] + mp[1]) / 190,
        lizany.SC_LEAD: float(not ref.table and ref.seat == s),
        lizany.SC_LED_BY_ME: float(bool(ref.table) and ref.table[0][0] == s),
    }
    if ref.done:
        assert ref.settlement is not None
        want[lizany.SC_WON] = float(ref.settlement["winner"] == s)
    diffs += [(f"scalar{i}", float(sc[i]), v) for i, v in want.items()
              if not np.isclose(sc[i], v, atol=1e-6)]
    return diffs


def note_step(cov: collections.Counter, ref: Referee) -> None:
    """Coverage of the endgame's obligations, before the seat to move plays."""
    if ref.stock or not ref.table:
        return
    h = ref.hands[ref.seat]
    led = ref.table[0][1]
    legal = ref.legal_cards()
    if len(legal) < len(h):
        cov["endgame_forced"] += 1
    same = [c for c in h if c[1] == led[1]]
    if same and len(legal) < len(same):
        cov["endgame_must_beat"] += 1
    if not same and legal and all(c[1] == ref.trump for c in legal) and len(legal) < len(h):
        cov["endgame_must_trump"] += 1


# ---------------------------------------------------------------------------------------
# One deal
# ---------------------------------------------------------------------------------------


def settlement_diffs(st: dict[str, Any], ref: Referee) -> list[tuple]:
    mine = ref.settlement
    assert mine is not None
    want = {"points": mine["card_points"], "marriages": mine["marriage_points"],
            "tricks": mine["tricks"], "rewards": mine["rewards"], "payments": mine["rewards"]}
    return [(k, st.get(k), v) for k, v in want.items() if st.get(k) != v]


def check_deal(raw: Any, ref: Referee, rng: random.Random, style: dict[str, Any],
               cov: collections.Counter, ctx: dict[str, Any]) -> None:
    """Play the env's current deal to its end beside ``ref``, comparing every step."""
    agents = raw.possible_agents
    tick = step_cap("lizany")
    while True:
        tick()
        ag = raw.agent_selection
        for s, a in enumerate(agents):
            d = obs_diffs(raw.observe(a)["observation"], ref, s)
            assert not d, ("observation", a, d, ref.history, ctx)
        if raw.terminations[ag] or raw.truncations[ag]:
            break
        assert not ref.done, ("env goes on after the referee's end", ref.history, ctx)
        assert ref.seat == agents.index(ag), ("seat to move", ref.seat, ag, ref.history, ctx)
        assert lizany.PHASE_NAMES[raw.infos[ag]["phase"]] == ref.phase, (
            "phase", raw.infos[ag]["phase"], ref.phase, ref.history, ctx)
        eng = sorted(raw.legal_labels())
        mine = sorted(ref.legal())
        assert eng == mine, ("legal labels", ref.phase, sorted(set(eng) - set(mine)),
                             sorted(set(mine) - set(eng)), ref.history, ctx)
        mask = raw.observe(ag)["action_mask"]
        assert sorted(raw.action_label(i) for i in np.flatnonzero(mask)) == mine
        for other in agents:
            if other != ag:
                assert not raw.legal_labels(other), ("a seat not to move has labels", other)
        note_step(cov, ref)
        lab = choose(rng, ref, eng, style)
        raw.step(raw.action_index(lab))
        ref.step(lab)
        for s in (0, 1):
            if ref.known(s):
                cov["opp_known:" + ("trump_card" if ref.trump_card in ref.known(s)
                                    else "marriage")] += 1
    assert ref.done, ("the env ended the deal, the referee did not", ref.history, ctx)
    st = raw.infos[agents[0]]["settlement"]
    assert all(raw.infos[a]["settlement"] == st for a in agents)
    assert all(lizany.PHASE_NAMES[raw.infos[a]["phase"]] == "done" for a in agents)
    assert len(set(ref.settlement["points"])) == 2, "equal points (docs: never)"
    d = settlement_diffs(st, ref)
    assert not d, ("settlement", d, ref.history, ctx)
    assert [raw.rewards[a] for a in agents] == [float(x) for x in ref.settlement["rewards"]]
    rec = raw.record
    assert rec["deck"] == ref.deck
    assert [tuple(a) for a in rec["actions"]] == ref.history
    assert {k: v for k, v in st.items() if k != "payments"} == rec["result"]
    check_record(rec, ref)
    for e in ref.events:
        cov[e] += 1
    cov["reward:" + str(max(ref.settlement["rewards"]))] += 1
    loser = 1 - ref.settlement["winner"]
    cov["loser_tricks:" + str(min(ref.settlement["tricks"][loser], 2))] += 1
    cov["deals"] += 1


def check_record(rec: dict[str, Any], ref: Referee) -> None:
    """The record replays; the same record with one card the referee calls illegal (or
    played out of turn) does not."""
    lizany.replay(rec)
    bad = copy.deepcopy(rec)
    r2 = Referee(rec["deck"])
    for i, (seat, lab) in enumerate(rec["actions"]):
        wrong = sorted(set("play:" + c for c in r2.hands[seat]) - r2.legal())
        if wrong:
            bad["actions"][i] = [seat, wrong[0]]
            break
        r2.step(lab)
    else:
        bad["actions"][0] = [1, bad["actions"][0][1]]  # out of turn
    with pytest.raises(RecordError, match="action"):
        lizany.replay(bad)


def play_deal(rng: random.Random, mode: str, cov: collections.Counter) -> None:
    style: dict[str, Any] = {"marry": rng.choice([0, 0, 0.5, 0.9]),
                             "greedy": rng.choice([0, 0, 0.6, 1.0])}
    if mode == "sweep":
        deck, style["sweeper"], style["void"] = sweep_deck(rng, rng.random() < 0.5)
    elif mode == "marriages":
        deck = marriages_deck(rng)
        style["marry"] = rng.choice([0.3, 0.9])
    else:
        deck = CARDS[:]
        rng.shuffle(deck)
        if mode == "greedy":
            style["greedy"] = 1.0
    raw = mariash_env.raw_env(rules="lizany")
    as_index = rng.random() < 0.3
    raw.reset(seed=rng.randrange(10**6),
              options={"deck": [CARDS.index(c) for c in deck] if as_index else deck})
    check_deal(raw, Referee(deck), rng, style, cov, {"deck": deck, "mode": mode})
    if mode == "sweep":  # the rigged deal swept, or gave the seven its one trick
        tricks = sorted(raw.record["result"]["tricks"])
        assert tricks == ([1, 15] if style["void"] else [0, 16]), (tricks, style, deck)


def run(seed: int, n: int) -> collections.Counter:
    rng = random.Random(seed)
    cov: collections.Counter = collections.Counter()
    for i in range(n):
        play_deal(rng, MODES[i % len(MODES)], cov)
    return cov


def missing(cov: collections.Counter) -> list[str]:
    return sorted(k for k in FLOOR if not cov[k])


# ---------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_deals_every_branch(seed):
    """Random, marriage, trick-taking and sweep deals: labels, views and settlements agree
    at every step, and every branch of the rules is met."""
    cov = run(seed, 100)
    assert not missing(cov), missing(cov)


def test_whole_parties():
    """Episodes of one env, each dealt by the seeded generator (``reset(seed=s)`` once,
    then ``reset()``): every deal agrees with the referee, the decks are fresh, the
    totals sum to zero; the same seed deals the same decks."""
    rng = random.Random(7)
    cov: collections.Counter = collections.Counter()
    decks: list[list[list[str]]] = []
    for _ in range(2):
        raw = mariash_env.raw_env(rules="lizany")
        totals = [0, 0]
        these = []
        for d in range(12):
            raw.reset(**({"seed": 99} if d == 0 else {}))
            deck = list(raw.record["deck"])
            these.append(deck)
            check_deal(raw, Referee(deck), rng, {"marry": 0.3, "greedy": 0.3}, cov,
                       {"deal": d})
            totals = [t + int(r) for t, r in zip(totals, raw.record["result"]["rewards"])]
        assert sum(totals) == 0
        assert len({tuple(x) for x in these}) == 12
        decks.append(these)
    assert decks[0] == decks[1]


def test_vector_first_deals():
    """The batched engine: game ``i`` of ``reset(seed=s)`` is the AEC env's deal of
    ``reset(seed=s + i)``; its masks and rewards agree with the referee until that deal
    ends."""
    from mariash_env.vector import VectorEnv

    n, s = 64, 11
    refs = []
    for i in range(n):
        raw = mariash_env.raw_env(rules="lizany")
        raw.reset(seed=s + i)
        refs.append(Referee(list(raw.record["deck"])))
    venv = VectorEnv(n, seed=s, rules="lizany")
    step = venv.reset()
    rng = random.Random(3)
    live = [True] * n
    tick = step_cap("lizany")
    while any(live):
        tick()
        acts = np.zeros(n, np.int64)
        for i, ref in enumerate(refs):
            mask = step.mask[i]
            legal = sorted(CARDS[j] for j in np.flatnonzero(mask))
            if live[i]:
                assert int(step.player[i]) == ref.seat, (i, ref.history)
                assert legal == sorted(ref.legal_cards()), (i, legal, ref.history)
            acts[i] = CARDS.index(rng.choice(legal))
        step = venv.step(acts)
        for i, ref in enumerate(refs):
            if live[i]:
                ref.step("play:" + CARDS[acts[i]])
                if ref.done:
                    assert bool(step.deal_done[i])
                    assert list(step.rewards[i]) == ref.settlement["rewards"], (i, ref.history)
                    live[i] = False
                else:
                    assert not step.deal_done[i] and not step.rewards[i].any()


def test_marriages_win_without_a_trick():
    """Z "Points and reward": marriages count for their player whoever takes the trick, so
    a seat that announces all four (100) and takes no trick beats the 90 card points of a
    seat that took every trick; the loser took tricks, so the stake is 1."""
    deck = ("Th Ah Ab Tb Al Tl Aa Ta " "Kh Qh Kb Qb Kl Ql Ka Qa " "7h "
            "Jh 8b 9h 7b 8h 8l Jb 7l 9b 9a Jl 8a 9l 7a Ja").split()
    script = [f"play:{c}" for pair in ("Ah Kh", "Th Qh", "Ab Kb", "Tb Qb", "Al Kl", "Tl Ql",
                                       "Aa Ka", "Ta Qa") for c in pair.split()]
    raw = mariash_env.raw_env(rules="lizany")
    raw.reset(options={"deck": deck})
    ref = Referee(deck)
    cov: collections.Counter = collections.Counter()
    check_deal(raw, ref, random.Random(0), {"script": script, "sweeper": 0, "marry": 0,
                                            "greedy": 0}, cov, {})
    assert ref.settlement is not None
    assert ref.settlement["tricks"] == [16, 0]
    assert ref.settlement["points"] == [90, 100]
    assert ref.settlement["rewards"] == [-1, 1]
    assert cov["winner_took_no_trick"] == 1


@settings(max_examples=50, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**32 - 1), mode=hs.sampled_from(MODES))
def test_any_deal(seed, mode):
    """Hypothesis draws the seed and the deck mode (derandomized: the same examples every
    run)."""
    play_deal(random.Random(seed), mode, collections.Counter())
