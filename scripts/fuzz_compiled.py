"""Fuzz the compiled entry points with random in-range garbage (issue #29 items 1, 2, 6).

Each batch runs in a subprocess, so a segfault (or an abort from a corrupted heap) is
counted and reported with the batch's seed instead of killing the runner.  A batch:

* **states**: for every game ``VectorEnv`` plays (volený, volený with the §11 options,
  four players, licitovaný) real states from random play, each with random fields set
  to random values inside their declared ranges (sometimes the extremes, e.g.
  ``2**31 - 1``), or a card moved to another hand, talon or pile; plus wholly random
  in-range rows.  Each goes through ``restore_states``: a ``ValueError`` naming a field
  is a rejection; an accepted state is encoded (``state()``) and stepped with random
  legal actions until its deal ends.  A crash, another exception, a rejection naming
  nothing, or an accepted state that runs out of legal actions (a dead end) fails.
* **seat views**: seat records of random volený and licitovaný deals, mutated (other
  rules, the other game's among them, seats, cards, labels, actions cut or swapped, a
  talon), through
  ``seat_record.seat_view`` and the view's mask and observation: ``SeatRecordError`` or
  a view, nothing else.
* **observations**: every observation met in the real play above decodes
  (``robots.features.decode``; licitovaný's through ``licit_table.card_play_view``);
  perturbed and random vectors decode or raise ``ObservationError``, nothing else.
* **lízaný's solver and searching robots**: records of random lízaný deals with one to
  three slots set to random values (small ones, the int32 extremes) or a card moved
  between the hands, the played cards and the stock, through ``solve_values`` with a node
  budget: a ValueError naming the malformed record, or values that are rewards (±1, ±2)
  for exactly the legal cards; and perturbed lízaný observations through ``strong`` and
  ``pimc``: a legal card or ``ObservationError``.

    python -m scripts.fuzz_compiled [--seconds 60] [--states 400] [--seed 0] [--jobs 1]

prints the figures (JSON with ``--json``); exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

GAMES: dict[str, dict[str, Any]] = {
    "voleny": {},
    "voleny_options": {"open_contracts": True, "max_flek": None,
                       "hundred_counting": "order_free", "marriage_order": "queen_first"},
    "four": {"players": 4},
    "licitovany": {"rules": "licitovany"},
}
COUNTERS = ("states_tried", "states_rejected", "states_accepted", "decisions",
            "seat_views_tried", "seat_views_built", "seat_views_rejected",
            "observations_decoded", "observations_rejected", "lizany_solves",
            "lizany_solves_rejected", "lizany_decisions", "lizany_decisions_rejected")
I32_MAX = 2**31 - 1


def _new_counts() -> dict[str, Any]:
    return {**{k: 0 for k in COUNTERS}, "failures": []}


def _fail(counts: dict, kind: str, detail: str, seed: int, **where: Any) -> None:
    counts["failures"].append({"kind": kind, "seed": seed, "detail": detail[-2500:], **where})


# --------------------------------------------------------------------------- states


def _ranged_fields() -> list[tuple[int, int, int, int]]:
    from mariash_env.core import state as S
    return [(S.OFFSETS[f.name], f.slots, f.range[0], f.range[1])
            for f in S.STATE_SCHEMA if f.range is not None]


def _value(rng: np.random.Generator, lo: int, hi: int) -> int:
    """A value in ``[lo, hi]``: mostly small ones (where the meaning lies), sometimes an
    extreme of the range."""
    r = rng.random()
    if r < 0.15:
        return hi
    if r < 0.25:
        return lo
    return int(rng.integers(lo, min(hi, lo + 40) + 1))


def mutate(st: np.ndarray, rng: np.random.Generator, fields: list) -> np.ndarray:
    """``st`` with one to three random fields set in range, or a card moved elsewhere."""
    from mariash_env.core import state as S
    out = st.copy()
    for _ in range(int(rng.integers(1, 4))):
        if rng.random() < 0.2:  # move a card: every card stays in one place
            places = [S.HAND, S.HAND + 1, S.HAND + 2, S.TALON, S.PLAYED]
            src, dst = rng.choice(places, 2, replace=False)
            m = int(out[src]) & 0xFFFFFFFF
            if m:
                bits = [c for c in range(32) if m >> c & 1]
                c = int(rng.choice(bits))
                S.setm(out, int(src), m & ~(1 << c))
                S.setm(out, int(dst), (int(out[dst]) & 0xFFFFFFFF) | 1 << c)
            continue
        off, n, lo, hi = fields[int(rng.integers(len(fields)))]
        out[off + int(rng.integers(n))] = _value(rng, lo, hi)
    return out


def random_row(rng: np.random.Generator, fields: list) -> np.ndarray:
    """A wholly random row: every ranged field in range, a deck permutation, the cards
    dealt at random into the hands, the talon and the played pile."""
    from mariash_env.core import state as S
    st = np.zeros(S.STATE_SIZE, dtype=np.int32)
    for off, n, lo, hi in fields:
        for k in range(n):
            st[off + k] = _value(rng, lo, hi)
    st[S.POS:S.POS + 32] = rng.permutation(32)
    where = rng.integers(0, 5, 32)
    for i, off in enumerate((S.HAND, S.HAND + 1, S.HAND + 2, S.TALON, S.PLAYED)):
        S.setm(st, off, sum(1 << c for c in range(32) if where[c] == i))
    for off in (S.CLAIM_HANDS, S.CLAIM_HANDS + 1, S.CLAIM_HANDS + 2):
        st[off] = 0
    for k in range(4):
        S.setm(st, S.RNG + k, int(rng.integers(1, 2**32)))
    return st


def _named(msg: str) -> bool:
    return msg.startswith("states: ") and ("field " in msg or "deck positions" in msg
                                           or "cards" in msg) and "nothing was restored" in msg


def _decode_real(name: str, obs: np.ndarray, mask: np.ndarray, counts: dict, seed: int,
                 keep: list) -> None:
    """A real observation must decode; kept (a few) for the perturbations."""
    from mariash_env.robots.features import decode
    from mariash_env.robots.licit_table import card_play_view
    try:
        if name == "licitovany":
            card_play_view(obs, mask)
        else:
            decode(obs, mask if name != "four" else None)
        counts["observations_decoded"] += 1
        if name != "licitovany" and len(keep) < 64:
            keep.append(np.array(obs[:900]))
    except Exception:  # noqa: BLE001 - every failure is reported
        _fail(counts, "real observation refused", traceback.format_exc(), seed, game=name)


def fuzz_states(name: str, n: int, rng: np.random.Generator, counts: dict, seed: int,
                keep: list) -> None:
    """``n`` mutated or random states of game ``name`` through ``restore_states`` and, when
    accepted, random legal play to the end of the deal."""
    from mariash_env.core import state as S
    from mariash_env.vector import VectorEnv, random_legal_actions
    fields = _ranged_fields()
    src = VectorEnv(16, seed=int(rng.integers(1 << 30)), **GAMES[name])
    step = src.reset()
    pool = []
    for _ in range(int(rng.integers(5, 120))):
        step = src.step(random_legal_actions(step.mask, rng))
        if rng.random() < 0.3:
            pool.append(src.copy_states())
            for i in range(0, 16, 5):
                _decode_real(name, step.obs[i], step.mask[i], counts, seed, keep)
    pool.append(src.copy_states())
    real = np.concatenate(pool)
    venv = VectorEnv(1, seed=0, **GAMES[name])
    venv.reset()
    for j in range(n):
        row = (random_row(rng, fields) if rng.random() < 0.1
               else mutate(real[int(rng.integers(len(real)))], rng, fields))
        counts["states_tried"] += 1
        where = {"game": name, "state": j}
        try:
            venv.restore_states(row[None])
        except ValueError as e:
            counts["states_rejected"] += 1
            if not _named(str(e)):
                _fail(counts, "rejection names no field", str(e), seed, **where)
            continue
        except Exception:  # noqa: BLE001
            _fail(counts, "restore raised another exception", traceback.format_exc(), seed,
                  **where)
            continue
        counts["states_accepted"] += 1
        try:
            venv.state()
            step = venv.current()
            if row[S.PHASE] == S.PH_DONE:
                continue
            for _ in range(400):
                a = random_legal_actions(step.mask, rng)
                if a[0] < 0:
                    now = venv.copy_states()[0]
                    _fail(counts, "dead end: an accepted state ran out of legal actions",
                          f"accepted in phase {S.PHASE_NAMES[row[S.PHASE]]}, stuck in "
                          f"phase {S.PHASE_NAMES[now[S.PHASE]]} (seat {now[S.TO_MOVE]}); "
                          f"the accepted row: {row.tolist()}", seed, **where)
                    break
                step = venv.step(a)
                counts["decisions"] += 1
                if step.deal_done[0]:
                    break
            else:
                _fail(counts, "an accepted deal did not end in 400 decisions", "", seed,
                      **where)
        except Exception:  # noqa: BLE001
            _fail(counts, "stepping an accepted state raised", traceback.format_exc(), seed,
                  **where)


# --------------------------------------------------------------------------- seat views


def seat_record(rng: np.random.Generator) -> dict:
    """A seat record of a random deal (volený, with open contracts one time in three, or
    licitovaný one time in three) at a random decision of the seat to move (seat 0's at
    the end of a finished deal)."""
    from mariash_env import Game, make_rules
    from mariash_env.seat_record import seat_record_of

    k = int(rng.integers(3))
    g = Game(make_rules(deals=1, open_contracts=k == 0) if k < 2
             else make_rules(rules="licitovany", deals=1))
    g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(3)))
    stop = int(rng.integers(0, 40))
    while not g.deal_over and len(g.history) < stop:
        g.step(int(rng.choice(g.legal_actions())))
    return seat_record_of(g, None if not g.deal_over else 0)


_RULES = ({"rules": "licitovany"}, {"rules": "licitovany", "deals": 1}, {"players": 4},
          {"max_flek": None}, {"open_contracts": True}, {"tariff": "csm"}, {"deals": 0},
          {"rules": "lizany"}, {"rules": 3}, {"max_flek": 2**31 - 1}, {"bogus": 1}, [], None)


def mutate_record(rec: dict, rng: np.random.Generator) -> Any:
    """``rec`` with one to three random changes (item 1's other rules among them)."""
    from mariash_env import actions as A
    from mariash_env import jsonio
    from mariash_env import licit_actions as LA
    from mariash_env.cards import CARD_CODES
    rec = jsonio.loads(jsonio.dumps(rec))
    labels = LA if rec.get("rules", {}).get("rules") == "licitovany" else A
    for _ in range(int(rng.integers(1, 4))):
        k = int(rng.integers(13))
        if k == 0:
            rec["rules"] = _RULES[int(rng.integers(len(_RULES)))]
        elif k == 1:
            rec[str(rng.choice(["dealer", "seat", "deal"]))] = int(rng.integers(-2, 5))
        elif k == 2 and rec["hand"]:
            rec["hand"][int(rng.integers(len(rec["hand"])))] = CARD_CODES[int(rng.integers(32))]
        elif k == 3 and rec["hand"]:
            rng.shuffle(rec["hand"])
        elif k == 4 and rec["actions"]:
            i = int(rng.integers(len(rec["actions"])))
            rec["actions"][i][1] = labels.ACTION_LABELS[int(rng.integers(labels.N_ACTIONS))]
        elif k == 5 and rec["actions"]:
            del rec["actions"][int(rng.integers(len(rec["actions"]))):]
        elif k == 6 and rec["actions"]:
            i = int(rng.integers(len(rec["actions"])))
            rec["actions"][i][0] = int(rng.integers(-1, 4))
        elif k == 7:
            rec["marriages"] = [[int(rng.integers(3)), CARD_CODES[int(rng.integers(32))]]]
        elif k == 8:
            rec["scores"] = [int(v) for v in rng.integers(-10**6, 10**6, 3)]
        elif k == 9 and rec["actions"]:
            i, j = rng.integers(len(rec["actions"]), size=2)
            rec["actions"][i], rec["actions"][j] = rec["actions"][j], rec["actions"][i]
        elif k == 10:  # forehand's card z lidu: any card, junk, or gone
            rec["blind_trump"] = [CARD_CODES[int(rng.integers(32))], "Xx", 7, None][
                int(rng.integers(4))]
        elif k == 11:  # an open contract's face-up hand: cards, one short or twice, junk
            cards = [CARD_CODES[int(c)] for c in rng.choice(32, int(rng.integers(12)),
                                                           replace=False)]
            rec["open_hand"] = [cards, cards + cards[:1], "Qh", [None]][int(rng.integers(4))]
        elif k == 12:  # licitovaný's talon: two cards (maybe the hand's), one, junk, gone
            two = [CARD_CODES[int(c)] for c in rng.choice(32, 2, replace=False)]
            pick = int(rng.integers(5))
            if pick == 4:
                rec.pop("talon", None)
            else:
                rec["talon"] = [two, two[:1], rec["hand"][:2], "Kl"][pick]
    return rec


README_RECORD = {"dealer": 2, "seat": 0,
                 "hand": ["Kh", "Ah", "9b", "Jb", "Qb", "Ab", "Ja", "Th", "Tb", "8l", "Tl", "Aa"],
                 "actions": [[0, "trump:Kh"], [0, "contract:suit"], [0, "discard:8l"],
                             [0, "discard:Jb"], [1, "good"], [2, "good"]]}


def fuzz_seat_views(n: int, rng: np.random.Generator, counts: dict, seed: int) -> None:
    """``n`` real or mutated seat records through ``seat_view`` and the view."""
    from mariash_env import jsonio
    from mariash_env.seat_record import SeatRecordError, seat_view
    for j in range(n):
        rec = README_RECORD if j == 0 else seat_record(rng)
        if j == 1:
            rec = {**README_RECORD, "rules": {"rules": "licitovany"}}  # item 1 exactly
        elif rng.random() < 0.8:
            rec = mutate_record(rec, rng)
        counts["seat_views_tried"] += 1
        try:
            view = seat_view(rec, rng=int(rng.integers(1 << 30)))
            view.action_mask()
            view.observation()
            counts["seat_views_built"] += 1
        except SeatRecordError:
            counts["seat_views_rejected"] += 1
        except Exception:  # noqa: BLE001
            _fail(counts, "seat_view raised another exception",
                  jsonio.dumps(rec) + "\n" + traceback.format_exc(), seed, record=j)


# --------------------------------------------------------------------------- observations


def perturb(obs: np.ndarray, rng: np.random.Generator) -> Any:
    """A real observation changed in one of the ways a client could get it wrong."""
    from mariash_env.core import observe as O
    v = obs.astype(np.float32).copy()
    k = int(rng.integers(9))
    i = int(rng.integers(O.OBS_SIZE))
    if k == 0:
        v[i] = 1.0 - v[i]
    elif k == 1:
        v[i] = float(rng.choice([np.nan, np.inf, -np.inf, 0.5, -1.0, 2.0, 1e30]))
    elif k == 2:
        return v[:int(rng.integers(O.OBS_SIZE))]
    elif k == 3:
        return np.concatenate([v, np.zeros(int(rng.integers(1, 200)), np.float32)])
    elif k == 4:  # a card in played_in only: the KeyError of issue #29 item 6
        v[O.O_PLAYED_IN + int(rng.integers(320))] = 1.0
    elif k == 5:
        return (rng.random(O.OBS_SIZE) < rng.random()).astype(np.float32)
    elif k == 6:
        return rng.normal(size=O.OBS_SIZE).astype(np.float32)
    elif k == 7:
        for _ in range(int(rng.integers(2, 12))):
            v[int(rng.integers(O.OBS_SIZE))] = float(rng.integers(2))
    else:
        return v.reshape(30, 30) if rng.random() < 0.5 else v.tolist() + ["x"]
    return v


def fuzz_observations(n: int, real: list, rng: np.random.Generator, counts: dict,
                      seed: int) -> None:
    """``n`` perturbed real (or random) observations through ``decode``."""
    from mariash_env.actions import N_ACTIONS
    from mariash_env.robots.features import ObservationError, decode, decode_dict
    for j in range(n):
        base = real[int(rng.integers(len(real)))] if real else np.zeros(900, np.float32)
        v = perturb(base, rng)
        mask = None if rng.random() < 0.5 else (rng.random(N_ACTIONS) < 0.2).astype(np.int8)
        try:
            if rng.random() < 0.2:
                decode_dict({"observation": v, "action_mask": mask})
            else:
                decode(v, mask)
            counts["observations_decoded"] += 1
        except ObservationError:
            counts["observations_rejected"] += 1
        except Exception:  # noqa: BLE001
            _fail(counts, "decode raised another exception", traceback.format_exc(), seed,
                  observation=j)


# --------------------------------------------------------------------------- lízaný


def _lizany_records(rng: np.random.Generator) -> list:
    """Records and observations of random lízaný deals at random points of play."""
    from mariash_env.games.lizany.game import LizanyGame
    out = []
    for _ in range(6):
        g = LizanyGame(seed=int(rng.integers(1 << 30)))
        while not g.over:
            if rng.random() < 0.3:
                s = g.to_move
                out.append((g.st.copy(), g.observe(s), g.legal_mask(s)))
            g.play(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    return out


def _mutate_lizany(st: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    from mariash_env.core.state import setm
    from mariash_env.games.lizany import core as C
    out = st.copy()
    for _ in range(int(rng.integers(1, 4))):
        if rng.random() < 0.3:  # a card moved between the hands, the played and the stock
            sets = [C.HAND, C.HAND + 1, C.PLAYED, C.PLAYED + 1]
            src, dst = (int(x) for x in rng.choice(sets, 2, replace=False))
            m = int(out[src]) & 0xFFFFFFFF
            if m:
                c = int(rng.choice([c for c in range(32) if m >> c & 1]))
                setm(out, src, m & ~(1 << c))
                setm(out, dst, (int(out[dst]) & 0xFFFFFFFF) | 1 << c)
            elif rng.random() < 0.5:
                out[C.STOCK + int(rng.integers(C.STOCK_SIZE))] = int(rng.integers(32))
            continue
        r = rng.random()
        value = (I32_MAX if r < 0.1 else -I32_MAX - 1 if r < 0.2
                 else int(rng.integers(-3, 41)))
        out[int(rng.integers(C.LZ_STATE_SIZE))] = value
    return out


def fuzz_lizany(n: int, rng: np.random.Generator, counts: dict, seed: int) -> None:
    """``n`` mutated lízaný records through the solver, ``n // 10`` perturbed lízaný
    observations through its searching robots."""
    from mariash_env.games.lizany.solve import NO_CARD, new_table, solve_values
    from mariash_env.robots import make_robot
    from mariash_env.robots.base import ObservationError
    real = _lizany_records(rng)
    tt, stats, out = new_table(10), np.zeros(1, np.int64), np.zeros(32, np.int64)
    for j in range(n):
        row = _mutate_lizany(real[int(rng.integers(len(real)))][0], rng)
        counts["lizany_solves"] += 1
        try:
            legal = int(solve_values(row, out, tt, stats, int(stats[0]) + 20_000))
        except ValueError as e:
            counts["lizany_solves_rejected"] += 1
            if "malformed record" not in str(e) and "deal is over" not in str(e):
                _fail(counts, "lízaný solver rejection names nothing", str(e), seed,
                      lizany_record=j)
            continue
        except Exception:  # noqa: BLE001
            _fail(counts, "lízaný solver raised another exception", traceback.format_exc(),
                  seed, lizany_record=j)
            continue
        if legal >= 0 and any(out[c] not in ((-2, -1, 1, 2) if legal >> c & 1 else (NO_CARD,))
                              for c in range(32)):
            _fail(counts, "lízaný solver value out of the rewards", str(out.tolist()), seed,
                  lizany_record=j, row=row.tolist())
    bots = [make_robot("strong(time_limit=0.05)", rules="lizany"),
            make_robot("pimc(worlds=2, time_limit=0.05)", rules="lizany")]
    for j in range(n // 10):
        _, obs, mask = real[int(rng.integers(len(real)))]
        v, m = obs.copy(), mask.copy()
        for _ in range(int(rng.integers(1, 4))):
            r = rng.random()
            v[int(rng.integers(len(v)))] = (np.nan if r < 0.1 else np.inf if r < 0.15
                                           else float(rng.integers(0, 2)) if r < 0.8
                                           else float(rng.normal() * 10))
        if rng.random() < 0.2:
            m = (rng.random(32) < 0.2).astype(np.int8)
        counts["lizany_decisions"] += 1
        try:
            a = bots[j % 2].act({"observation": v, "action_mask": m})
            if not m[a]:
                _fail(counts, "a lízaný robot played a card the mask refuses", str(a), seed,
                      lizany_observation=j)
        except ObservationError:
            counts["lizany_decisions_rejected"] += 1
        except Exception:  # noqa: BLE001
            _fail(counts, "a lízaný robot raised another exception", traceback.format_exc(),
                  seed, lizany_observation=j)


# --------------------------------------------------------------------------- batches


def run_batch(seed: int, states: int, views: int, observations: int) -> dict:
    """One batch in this process: ``states`` states per game, ``views`` seat records and
    ``observations`` perturbed observations, all drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    counts = _new_counts()
    keep: list = []
    for name in GAMES:
        fuzz_states(name, states, rng, counts, seed, keep)
    fuzz_seat_views(views, rng, counts, seed)
    fuzz_observations(observations, keep, rng, counts, seed)
    fuzz_lizany(states, rng, counts, seed)
    return counts


def run_batch_subprocess(seed: int, states: int, views: int, observations: int,
                         timeout: float = 600) -> dict:
    """:func:`run_batch` in a fresh interpreter: a crash becomes a failure of this seed."""
    cmd = [sys.executable, "-m", "scripts.fuzz_compiled", "--worker", "--seed", str(seed),
           "--states", str(states), "--views", str(views), "--observations",
           str(observations)]
    try:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    except subprocess.TimeoutExpired:
        counts = _new_counts()
        _fail(counts, "batch timed out", f"after {timeout} s", seed)
        return counts
    last = r.stdout.strip().splitlines()[-1:] if r.stdout.strip() else []
    if r.returncode == 0 and last:
        from mariash_env import jsonio

        return jsonio.loads(last[0])
    counts = _new_counts()
    _fail(counts, f"crash: the batch process exited with {r.returncode}"
          + (f" (signal {-r.returncode})" if r.returncode < 0 else ""), r.stderr, seed,
          reproduce=" ".join(cmd[1:]))
    return counts


def campaign(seconds: float, states: int, views: int, observations: int, seed: int,
             batches: int | None = None, jobs: int = 1) -> dict:
    """Batches of seeds ``seed, seed + 1, ...`` until ``seconds`` pass (or ``batches``
    ran), ``jobs`` at a time; the summed figures and every failure."""
    from concurrent.futures import ThreadPoolExecutor
    total = _new_counts()
    total["batches"] = 0
    t0 = time.monotonic()
    nxt = seed
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        while (batches is None or total["batches"] < batches) and (
                batches is not None or time.monotonic() - t0 < seconds):
            k = jobs if batches is None else min(jobs, batches - total["batches"])
            for counts in pool.map(lambda s: run_batch_subprocess(s, states, views,
                                                                  observations),
                                   range(nxt, nxt + k)):
                for c in COUNTERS:
                    total[c] += counts[c]
                total["failures"] += counts["failures"]
                total["batches"] += 1
            nxt += k
    total["seconds"] = round(time.monotonic() - t0, 1)
    return total


def report(total: dict) -> str:
    lines = [f"{total['batches']} batches in {total['seconds']} s",
             *(f"  {c.replace('_', ' ')}: {total[c]:,}" for c in COUNTERS),
             f"  failures: {len(total['failures'])}"]
    for f in total["failures"][:20]:
        lines.append(f"    seed {f['seed']}: {f['kind']}: {f['detail'][-400:]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from mariash_env import jsonio
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="run batches this long")
    ap.add_argument("--batches", type=int, default=None, help="exactly this many batches")
    ap.add_argument("--states", type=int, default=400, help="states per game per batch")
    ap.add_argument("--views", type=int, default=100, help="seat records per batch")
    ap.add_argument("--observations", type=int, default=1000,
                    help="perturbed observations per batch")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first batch")
    ap.add_argument("--jobs", type=int, default=1, help="batches at a time")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(jsonio.dumps(run_batch(a.seed, a.states, a.views, a.observations)))
        return 0
    total = campaign(a.seconds, a.states, a.views, a.observations, a.seed, a.batches, a.jobs)
    print(jsonio.dumps(total) if a.json else report(total))
    return 1 if total["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
