"""Seat records (mariash_env.seat_record): a deal so far as one seat saw it rebuilds, through
the engine, exactly the seat's observation and legal actions of the real game; records
that are malformed or contradict the seat's cards are refused by name."""

from __future__ import annotations

import copy
import itertools
import re

import numpy as np
import pytest

from mariash_env import Game, make_rules
from mariash_env import actions as A
from mariash_env.cards import CARD_CODES
from mariash_env.core import state as S
from mariash_env.core.deal import deck_of
from mariash_env.core.tables import POS_SEAT
from mariash_env.seat_record import SeatRecordError, seat_view


def seat_record(game: Game, seat: int, history: list, marriages: list, rules: dict,
                deal: int = 0, scores=(0, 0, 0)) -> dict:
    """What ``seat`` saw of the deal in ``game`` (a decision of ``seat`` now): its dealt
    cards, the decisions with the others' unseen trump card and discards as ``?``."""
    st = game.st
    deck = deck_of(st).tolist()
    forehand = int(st[S.FOREHAND])
    hand = [CARD_CODES[deck[p]] for p in range(32) if (forehand + POS_SEAT[p]) % 3 == seat]
    actions = []
    for who, a, revealed in history:
        label = A.ACTION_LABELS[a]
        if who != seat and A.TRUMP0 <= a < A.TRUMP_BLIND and not st[S.TRUMP_PUBLIC]:
            label = "trump:?"
        elif who != seat and A.DISCARD0 <= a < A.DISCARD0 + 32 and not revealed(seat):
            label = "discard:?"
        actions.append([who, label])
    return {"format": "mariash-seat/1", "rules": rules, "deal": deal, "scores": list(scores),
            "dealer": int(st[S.DEALER]), "seat": seat, "hand": hand, "actions": actions,
            "marriages": [list(m) for m in marriages]}


def random_positions(n: int, seed: int, at_end: bool = False, **rules) -> list:
    """``(game, record)`` at ``n`` random decision points of random deals (``at_end``:
    at the end of the deal, for seat 0)."""
    return list(itertools.islice(iter_positions(seed, at_end, **rules), n))


def iter_positions(seed: int, at_end: bool = False, **rules):
    """``(game, record)`` at random decision points of random deals, without end."""
    rng = np.random.default_rng(seed)
    while True:
        g = Game(make_rules(deals=1, **rules))
        g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(3)))
        history: list = []  # (seat, action, revealed(seat) for discards)
        marriages: list = []
        pending: list[dict] = []  # discards of the talon lying now
        stop = 999 if at_end else int(rng.integers(0, 45))
        while not g.deal_over:
            seat = g.to_move
            if len(history) >= stop:
                yield g, seat_record(g, seat, history, marriages, {**rules, "deals": 1})
                break
            a = int(rng.choice(g.legal_actions()))
            took = [S.getm(g.st, S.TOOK + s) for s in range(3)]
            n_marr = int(g.st[S.NMARR])
            g.step(a)
            if A.DISCARD0 <= a < A.DISCARD0 + 32:
                seen: set[int] = set()
                pending.append(seen)
                history.append((seat, a, seen.__contains__))
            else:
                history.append((seat, a, None))
            if A.PLAY0 <= a < A.PLAY0 + 32 and g.st[S.NMARR] > n_marr:
                marriages.append((seat, CARD_CODES[a - A.PLAY0]))
            for s in range(3):
                if S.getm(g.st, S.TOOK + s) != took[s]:  # s took the talon lying
                    for seen in pending:
                        seen.add(s)
                    pending = []
        if at_end and g.deal_over:
            yield g, seat_record(g, 0, history, marriages, {**rules, "deals": 1})


@pytest.mark.parametrize("rules", [{}, {"marriage_order": "queen_first", "max_flek": 1}])
def test_rebuilt_view_is_the_seats_view(rules):
    for i, (g, rec) in enumerate(random_positions(60, seed=4 + len(rules), **rules)):
        view = seat_view(rec, rng=i)
        seat = rec["seat"]
        assert np.array_equal(view.observation(), g.observation(seat)), rec
        assert np.array_equal(view.action_mask(), g.legal_mask(seat))
        # The same request gives the same world; its hidden cards are the seat's worlds.
        assert np.array_equal(seat_view(rec, rng=i)._st, view._st)
        assert view.sample_worlds(2, 1).shape == (2, S.STATE_SIZE)


def _record_at(n: int, pred, seed=0):
    """The first of ``n`` random positions' records that satisfies ``pred``."""
    return next(rec for _, rec in itertools.islice(iter_positions(seed), n) if pred(rec))


def _late(rec):
    return sum(1 for _, lab in rec["actions"] if lab.startswith("play:")) >= 4


def test_malformed_records_refused_by_name():
    g, rec = random_positions(1, 3)[0]
    late = _record_at(40, _late)
    cases = [
        ([], None, "must be an object"),
        ({**rec, "x": 1}, "x", "unknown field"),
        ({k: v for k, v in rec.items() if k != "hand"}, "hand", "missing"),
        ({**rec, "format": "mariash-deal/1"}, "format", "is not the format"),
        ({**rec, "rules": {"tariff": "pub"}}, "rules", "tariff"),
        ({**rec, "rules": {"colour": 1}}, "rules", "colour"),
        ({**rec, "deal": 3}, "deal", "expected an int 0..0"),
        ({**rec, "scores": [1, 0, 0]}, "scores", "summing to 0"),
        ({**rec, "seat": 3}, "seat", "expected a seat"),
        ({**rec, "hand": rec["hand"][:-1]}, "hand", "cards as dealt"),
        ({**rec, "hand": [rec["hand"][0]] * len(rec["hand"])}, "hand", "twice"),
        ({**rec, "hand": ["Xx"] + rec["hand"][1:]}, "hand", "Xx"),
        ({**rec, "marriages": [[1, "Ah"]]}, "marriages", "K or Q"),
        ({**rec, "actions": [[0]]}, "actions", "is not a [seat, label] pair"),
        ({**rec, "actions": [[9, "good"]]}, "actions", "seat 9 acted"),
        ({**late, "actions": late["actions"] + [[late["seat"], "flek:game"]]}, "actions",
         "illegal for seat"),
    ]
    for body, field, words in cases:
        with pytest.raises(SeatRecordError, match=re.escape(words)) as e:
            seat_view(body, rng=0)
        assert e.value.field == field


def test_a_history_that_contradicts_the_seats_cards_is_refused():
    # Seeded (rng=0) like every rebuild here: once, unseeded, on a fresh clone, the second
    # refusal named action #3 (a discard no redealt world allowed) instead of #10; not
    # reproduced in 6,500 unseeded and 300 seeded tries.
    rec = _record_at(40, lambda r: _late(r) and any(
        w != r["seat"] and lab.startswith("play:") for w, lab in r["actions"]))
    seat = rec["seat"]
    i, (who, lab) = next((i, x) for i, x in enumerate(rec["actions"])
                         if x[0] != seat and x[1].startswith("play:"))
    gone = {x[1].split(":")[-1] for x in rec["actions"][:i] if x[0] == seat}
    mine = next(c for c in rec["hand"] if c not in gone)
    bad = copy.deepcopy(rec)
    bad["actions"][i][1] = f"play:{mine}"
    bad["actions"] = bad["actions"][: i + 1]
    with pytest.raises(SeatRecordError, match=f"action #{i} .*{mine} is in seat {seat}'s hand"):
        seat_view(bad, rng=0)
    # The seat's own action must be legal for its cards.
    j = next(j for j, x in enumerate(rec["actions"]) if x[0] == seat and x[1].startswith(
        "play:"))
    other = next(c for c in CARD_CODES if c not in rec["hand"])
    bad = copy.deepcopy(rec)
    bad["actions"][j][1] = f"play:{other}"
    with pytest.raises(SeatRecordError, match=f"action #{j} .*illegal for seat {seat}"):
        seat_view(bad, rng=0)


def test_marriages_must_match_the_seats_cards():
    rec = _record_at(200, lambda r: any(w == r["seat"] for w, _ in r["marriages"]), seed=6)
    w, card = next(m for m in rec["marriages"] if m[0] == rec["seat"])
    with pytest.raises(SeatRecordError, match="announce a marriage") as e:
        seat_view({**rec, "marriages": [m for m in rec["marriages"] if m != [w, card]]},
                  rng=0)
    assert e.value.field == "actions"


def test_what_the_seat_saw_must_be_given():
    # The seat's own hidden actions, a shown trump card, a talon the seat took.
    rec = _record_at(40, lambda r: any(w == r["seat"] and lab.startswith("discard:")
                                       for w, lab in r["actions"]))
    j = next(j for j, (w, lab) in enumerate(rec["actions"])
             if w == rec["seat"] and lab.startswith("discard:"))
    bad = copy.deepcopy(rec)
    bad["actions"][j][1] = "discard:?"
    with pytest.raises(SeatRecordError, match="own actions are given in full"):
        seat_view(bad, rng=0)
    shown = _record_at(60, lambda r: any(w != r["seat"] and lab.startswith("trump:")
                                         and lab != "trump:blind" and lab != "trump:?"
                                         for w, lab in r["actions"]), seed=5)
    bad = copy.deepcopy(shown)
    k = next(k for k, (w, lab) in enumerate(bad["actions"]) if lab.startswith("trump:"))
    bad["actions"][k][1] = "trump:?"
    with pytest.raises(SeatRecordError, match="trump card is shown"):
        seat_view(bad, rng=0)


def test_a_finished_deal_or_another_seats_turn_is_refused():
    rec = _record_at(40, lambda r: r["actions"] and r["actions"][-1][0] != r["seat"]
                     and "?" not in r["actions"][-1][1])
    who = rec["actions"][-1][0]
    with pytest.raises(SeatRecordError, match=f"seat {who} is to move, not seat "
                       f"{rec['seat']}"):
        seat_view({**rec, "actions": rec["actions"][:-1]}, rng=0)
    _, done = random_positions(1, 2, at_end=True)[0]
    with pytest.raises(SeatRecordError, match="the deal is over"):
        seat_view(done, rng=0)


def test_corrupted_records_only_raise_seat_record_errors():
    """Random corruptions of real records (labels, seats, cards, field types) are refused
    with SeatRecordError, never another exception."""
    rng = np.random.default_rng(5)
    recs = [r for _, r in random_positions(12, 21)]
    junk = [None, True, -1, 3, 2**70, 1.5, "x", [], {}, [0, 0, 0], "Qh", "discard:?",
            [1, "play:Qh"]]
    labels = [*A.ACTION_LABELS, "trump:?", "discard:?", "play:Zz"]
    refused = 0
    for k in range(300):
        r = copy.deepcopy(recs[k % len(recs)])
        field = list(r)[int(rng.integers(len(r)))]
        if field == "actions" and r["actions"] and k % 2:
            i = int(rng.integers(len(r["actions"])))
            r["actions"][i][k % 4 // 2] = (labels[int(rng.integers(len(labels)))]
                                           if k % 4 // 2 else int(rng.integers(-1, 4)))
        elif field == "hand" and k % 2:
            r["hand"][int(rng.integers(len(r["hand"])))] = ["Qh", "7b", "Aa", 5, "zz"][k % 5]
        else:
            r[field] = junk[int(rng.integers(len(junk)))]
        try:
            seat_view(r, k)
        except SeatRecordError:
            refused += 1
    assert refused > 150


def test_a_game_without_seat_records_is_refused_by_the_registry():
    """Seat records are a front end of the registry (``seat_record``): licitovaný does not
    take them, and the error names the games that do."""
    from mariash_env.seat_record import SeatRecordError, seat_view

    rec = {"dealer": 0, "seat": 1, "hand": [], "actions": [], "rules": {"rules": "licitovany"}}
    with pytest.raises(SeatRecordError, match=r"are voleny's, not licitovaný mariáš's"):
        seat_view(rec)
