"""A bounded in-process fuzzer of the robot service (issue #29 items 1, 6, 9):
``python -m scripts.fuzz_service [--count N] [--seconds S] [--specs table,random]``.

For each robot spec and each served game (volený, licitovaný, lízaný) a batch of requests goes
to :func:`mariash_env.play.service.create_service_app` through Starlette's TestClient
(no network): real observations and masks from the environment and real seat records
(each must get a 200 with a legal action; an observation sent to a searching robot, which
answers records only, a 4xx asking for the record), the README's record with another game's
rules (a 4xx naming both games), and malformed bodies (fields of random JSON, non-finite
and float32-overflowing numbers, huge integers, wrong sizes and types, masks with no
legal action, observations no seat sees, records cut or shuffled, invalid UTF-8, lone
surrogates, truncated JSON, deep nesting, bodies over the size limit, chunked or not,
bodies labelled as another media type or compressed, a record naming no known game;
each must get a 4xx JSON error, or a 200 where the mutation left a valid request).  A
5xx, a response that is not JSON, a 405 without ``Allow`` or an exception is a failure.
Each batch runs in a subprocess, so a crash of compiled code (the heap corruption of item
1) counts as a failure.  Prints the requests, the answers by status and the failures;
exits 1 on any.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mariash_env import jsonio  # noqa: E402


def _games(front_end: str) -> tuple[str, ...]:
    from mariash_env.games.registry import games

    return tuple(k.name for k in games(front_end))


GAMES = _games("service")  # every game a robot service serves
RECORD_GAMES = _games("seat_record")  # those whose service reads seat records
README_RECORD = {
    "dealer": 2, "seat": 0,
    "hand": ["Kh", "Ah", "9b", "Jb", "Qb", "Ab", "Ja", "Th", "Tb", "8l", "Tl", "Aa"],
    "actions": [[0, "trump:Kh"], [0, "contract:suit"], [0, "discard:8l"], [0, "discard:Jb"],
                [1, "good"], [2, "good"]]}
MISMATCHES = ({"rules": "licitovany"}, {"rules": "lizany"}, {"rules": "voleny", "players": 4})


# --- real requests ----------------------------------------------------------------------
def positions(rules: str, n: int, seed: int) -> list[dict[str, list]]:
    """``n`` observation bodies of random positions of random deals of ``rules`` (a
    quarter at the game's other seat counts, volený's four-player table, whose
    observations are longer)."""
    import mariash_env
    from mariash_env.games.registry import game_kind

    rng = np.random.default_rng(seed)
    out: list[dict[str, list]] = []
    tables = [mariash_env.env(rules=rules, deals=1)] + [
        mariash_env.env(rules=rules, deals=1, players=p) for p in game_kind(rules).players[1:]]
    while len(out) < n:
        e = tables[0] if len(tables) == 1 or rng.random() >= 0.25 else \
            tables[int(rng.integers(1, len(tables)))]
        e.reset(seed=int(rng.integers(1 << 30)))
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            if rng.random() < 0.15 and len(out) < n:
                out.append({"observation": obs["observation"].tolist(),
                            "action_mask": obs["action_mask"].tolist()})
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def seat_records(n: int, seed: int, game: str = "voleny") -> list[dict[str, Any]]:
    """``n`` seat records (``mariash-seat/1``) of ``game`` at random decisions of random
    deals, a third of volený's with open contracts and a quarter at the four-player table:
    what the seat to move saw, as ``seat_record_of`` writes it."""
    from mariash_env import Game, make_rules
    from mariash_env.seat_record import seat_record_of

    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    while len(out) < n:
        players = 4 if game == "voleny" and len(out) % 4 == 3 else 3
        g = Game(make_rules(deals=1, open_contracts=len(out) % 3 == 2, players=players)
                 if game == "voleny" else make_rules(rules=game, deals=1))
        g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(players)))
        stop = int(rng.integers(0, 45))
        while not g.deal_over and len(g.history) < stop:
            g.step(int(rng.choice(g.legal_actions())))
        if not g.deal_over:
            out.append(seat_record_of(g))
    return out


# --- malformed requests -----------------------------------------------------------------
def junk(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value of the kinds that break parsers and checks."""
    pick = rng.randrange(14 if depth < 3 else 10)
    return [
        lambda: rng.choice([1e39, -1e39, 3.5e38, 1e-45, -0.0, 2.0**64]),
        lambda: rng.choice([10**400, -(10**40), 2**63, 2**64 + 1, -1]),
        lambda: rng.choice([True, False, None]),
        lambda: rng.randrange(-3, 200),
        lambda: rng.random() * rng.choice([1, 100, 1e6]),
        lambda: rng.choice(["", "7h", "play:Ah", "\ud800", "ž" * 50, "\x00", "NaN", "1"]),
        lambda: "x" * rng.randrange(0, 3000),
        lambda: rng.choice([[], {}, [[]], {"": None}]),
        lambda: rng.choice(["trump:?", "discard:?", "good", "bad", "contract:betl"]),
        lambda: [rng.randrange(3), rng.choice(["good", "play:7h", "trump:?"])],
        lambda: [junk(rng, depth + 1) for _ in range(rng.randrange(4))],
        lambda: {rng.choice(["a", "seat", "record", "\ud800"]): junk(rng, depth + 1)},
        lambda: [junk(rng, depth + 1)] * rng.randrange(1, 200),
        lambda: rng.choice([[0] * 900, [1] * 115, [0.5] * 1016]),
    ][pick]()


def _mutate(value: Any, rng: random.Random) -> Any:
    """``value`` with one random place (a key, an item, the whole) changed to junk."""
    v = jsonio.loads(jsonio.dumps(value))
    spots: list[tuple[Any, Any]] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for k in x:
                spots.append((x, k))
                walk(x[k])
        elif isinstance(x, list):
            for i in range(len(x)):
                spots.append((x, i))
                if rng.random() < 0.2:
                    walk(x[i])

    walk(v)
    if not spots:
        return junk(rng)
    parent, key = rng.choice(spots)
    what = rng.randrange(5)
    if what == 0 and isinstance(parent, dict):
        del parent[key]
    elif what == 1 and isinstance(parent, list):
        parent.insert(key, junk(rng))
    elif what == 2 and isinstance(parent, list) and len(parent) > 1:
        j = rng.randrange(len(parent))
        parent[key], parent[j] = parent[j], parent[key]
    else:
        parent[key] = junk(rng)
    return v


def _dumps(body: Any) -> bytes:
    # json.dumps writes Python's NaN/Infinity tokens, which json.loads reads back (the
    # service must refuse them); ints over 4300 digits cannot be written, so a placeholder
    text = json.dumps(body, default=str)
    return text.replace('"HUGE"', "7" * 5000).encode()


def bodies(rng: random.Random, game: str, pos: list[dict], recs: list[dict],
           n: int, observations: bool = True) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(kind, expectation, request)``: ``ok`` must get 200, ``mismatch``, ``records``
    and ``bad`` a 4xx, ``any`` a 200 or a 4xx; a request is httpx keyword arguments (and
    ``method``, ``url``).  ``observations``: whether the service answers observations (a
    searching robot asks for the record instead, by name: ``records``)."""
    def post(content: Any, **kw: Any) -> dict[str, Any]:
        return {"method": "POST", "url": "/act", "content": content, **kw}

    record_ok = "ok" if game in RECORD_GAMES else "bad"  # the others' services take none
    yield "readme_record", "ok" if game == "voleny" else "mismatch" if (
        game in RECORD_GAMES) else "bad", post(_dumps({"record": README_RECORD}))
    for rules in MISMATCHES:
        yield "rules_mismatch", "mismatch" if rules.get("rules") != game else "bad", post(
            _dumps({"record": {**README_RECORD, "rules": rules}}))
    fixed = [
        ("empty", "bad", post(b"")),
        ("not_json", "bad", post(b"{not json")),
        ("invalid_utf8", "bad", post(b'{"observation": "\xff\xfe"}')),
        ("lone_surrogate", "bad", post(b'{"record": {"seat": "\\ud800", "dealer": 0, '
                                       b'"hand": [], "actions": []}}')),
        ("surrogate_key", "bad", post(b'{"\\udc00": 1}')),
        ("deep_40", "bad", post(b"[" * 40 + b"]" * 40)),
        ("deep_record", "bad", post(b'{"record": {"hand": ' + b"[" * 60 + b"]" * 60 + b"}}")),
        ("deep_100000", "bad", post(b"[" * 100000 + b"]" * 100000)),
        ("huge_int", "bad", post(b'{"observation": [' + b"9" * 5000 + b'], '
                                 b'"action_mask": [1]}')),
        ("nan_token", "bad", post(_dumps({**pos[0], "observation": [float("nan")]
                                          + pos[0]["observation"][1:]}))),
        ("over_limit", "bad", post(b" " * ((1 << 20) + 1))),
        ("over_limit_chunked", "bad", post(iter([b" " * 65536] * 17))),
        ("lying_length", "bad", post(b"{}", headers={"content-length": "9" * 30})),
        ("bad_length", "bad", post(b"{}", headers={"content-length": "-1"})),
        ("content_type_xml", "bad", post(_dumps(pos[0]), headers={"content-type": "text/xml"})),
        ("content_type_multipart", "bad", post(_dumps({"record": README_RECORD}), headers={
            "content-type": "multipart/form-data; boundary=x"})),
        ("content_encoding", "bad", post(_dumps(pos[0]), headers={"content-encoding": "gzip"})),
        ("content_type_form", "any", post(_dumps(pos[0]), headers={
            "content-type": "application/x-www-form-urlencoded"})),
        ("unknown_game", "bad", post(_dumps({"record": {**README_RECORD,
                                                        "rules": {"rules": "bridge"}}}))),
        ("get_act", "bad", {"method": "GET", "url": "/act"}),
        ("options_act", "bad", {"method": "OPTIONS", "url": "/act"}),
        ("post_info", "bad", {"method": "POST", "url": "/info", "content": b"{}"}),
        ("nowhere", "bad", {"method": "GET", "url": "/nowhere"}),
        ("info", "ok", {"method": "GET", "url": "/info"}),
    ]
    yield from fixed
    for _ in range(n):
        p = rng.choice(pos)
        r = rng.choice(recs)
        kind = rng.randrange(12)
        if kind == 0:
            yield "real_observation", "ok" if observations else "records", post(_dumps(p))
        elif kind == 1:
            yield "real_record", record_ok, post(_dumps({"record": r}))
        elif kind == 2:
            yield "observation_mutated", "any", post(_dumps(_mutate(p, rng)))
        elif kind == 3:
            yield "record_mutated", "any", post(_dumps({"record": _mutate(r, rng)}))
        elif kind == 4:
            obs = list(p["observation"])
            for _ in range(rng.randrange(1, 4)):
                obs[rng.randrange(len(obs))] = rng.choice(
                    [1e39, -1e39, float("inf"), float("nan"), 10**400, "HUGE", True, None,
                     "0.5", [0.5]])
            yield "observation_non_finite", "bad", post(_dumps({**p, "observation": obs}))
        elif kind == 5:
            yield "observation_non_canonical", "any", post(_dumps({
                **p, "observation": [rng.choice([0.0, 1.0, rng.random(), -rng.random() * 9])
                                     for _ in p["observation"]]}))
        elif kind == 6:
            q = rng.choice(pos)
            yield "observation_other_mask", "any", post(_dumps({**p, "action_mask":
                                                                q["action_mask"]}))
        elif kind == 7:
            mask = rng.choice([[0] * len(p["action_mask"]), [2] * len(p["action_mask"]),
                               p["action_mask"][:-1], p["action_mask"] + [0],
                               [float(x) + 0.5 for x in p["action_mask"]]])
            yield "mask_bad", "bad", post(_dumps({**p, "action_mask": mask}))
        elif kind == 8:
            yield "json_junk", "any", post(_dumps(junk(rng)))
        elif kind == 9:
            text = _dumps(rng.choice([p, {"record": r}]))
            yield "truncated", "bad", post(text[:rng.randrange(1, len(text) - 1)])
        elif kind == 10:
            bad = {**r, "rules": rng.choice([*MISMATCHES, junk(rng), {"rules": junk(rng)}])}
            yield "record_rules_junk", "any", post(_dumps({"record": bad}))
        else:
            yield "extra_field", "bad", post(_dumps({**rng.choice([p, {"record": r}]),
                                                     "extra": 1}))


# --- running ----------------------------------------------------------------------------
def run_batch(spec: str, game: str, count: int, seed: int = 0,
              seconds: float = 120.0) -> dict[str, Any]:
    """Send ``count`` random requests (and the fixed ones) to a service of ``spec``
    playing ``game``, in this process; the figures and the failures."""
    warnings.filterwarnings("ignore")  # TestClient's httpx deprecation notice
    from starlette.testclient import TestClient

    from mariash_env.games.registry import game_kind
    from mariash_env.play.service import create_service_app

    rng = random.Random(seed)
    pos = positions(game, 24, seed)
    recs = seat_records(16, seed, game if game in RECORD_GAMES else "voleny")
    client = TestClient(create_service_app(spec, game), raise_server_exceptions=False)
    n_actions = game_kind(game).n_actions
    statuses: Counter = Counter()
    failures: list[str] = []
    sent = 0
    deadline = time.monotonic() + seconds
    observations = "observation" in client.get("/info").json()["accepts"]
    for kind, expect, req in bodies(rng, game, pos, recs, count, observations):
        if time.monotonic() > deadline:
            break
        sent += 1
        try:
            resp = client.request(**req)
        except Exception as e:  # the client raising is a failure like a 5xx
            statuses["exception"] += 1
            failures.append(f"{spec}/{game} {kind}: {type(e).__name__}: {e}"[:300])
            continue
        status = resp.status_code
        statuses[status] += 1
        try:
            data = resp.json()
        except ValueError:
            failures.append(f"{spec}/{game} {kind}: {status} not JSON: {resp.text[:100]!r}")
            continue
        why = None
        if status >= 500 or not isinstance(data, dict):
            why = f"{status} {str(data)[:200]}"
        elif expect == "ok" and status != 200:
            why = f"a valid request got {status}: {data}"
        elif expect in ("bad", "mismatch", "records") and not 400 <= status < 500:
            why = f"expected a 4xx, got {status}: {data}"
        elif status >= 400 and not isinstance(data.get("error"), str):
            why = f"{status} without an error message: {data}"
        elif status == 405 and not resp.headers.get("allow"):
            why = f"405 without an Allow header: {data}"
        elif expect == "mismatch" and "is for" not in data["error"]:
            why = f"the rules mismatch is not named: {data['error']}"
        elif expect == "records" and "send {'record'" not in data["error"]:
            why = f"a robot that needs the record does not ask for it: {data['error']}"
        elif status == 200 and req["url"] == "/act":
            a = data.get("action")
            try:
                mask = jsonio.loads(req["content"]).get("action_mask")
            except (ValueError, AttributeError):
                mask = None
            if not (isinstance(a, int) and 0 <= a < n_actions):
                why = f"action {a!r} out of range"
            elif isinstance(mask, list) and len(mask) == n_actions and not mask[a]:
                why = f"action {a} is not legal under the request's mask"
        if why:
            failures.append(f"{spec}/{game} {kind}: {why}"[:400])
    return {"spec": spec, "game": game, "requests": sent,
            "by_status": {str(k): v for k, v in sorted(statuses.items(), key=str)},
            "failures": failures}


def run_isolated(spec: str, game: str, count: int, seed: int = 0, seconds: float = 120.0,
                 ) -> dict[str, Any]:
    """:func:`run_batch` in a subprocess: a crash (a signal, heap corruption at exit) is
    a failure with its exit status."""
    cmd = [sys.executable, "-m", "scripts.fuzz_service", "--worker", spec, game,
           str(count), str(seed), str(seconds)]
    try:
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                             timeout=seconds + 240)
    except subprocess.TimeoutExpired:
        return {"spec": spec, "game": game, "requests": 0, "by_status": {},
                "failures": [f"{spec}/{game}: the batch did not finish in time"]}
    lines = out.stdout.strip().splitlines()
    try:
        res = jsonio.loads(lines[-1])
    except (IndexError, ValueError):
        res = {"spec": spec, "game": game, "requests": 0, "by_status": {}, "failures": []}
    if out.returncode != 0:
        res["failures"].append(f"{spec}/{game}: the process died with status "
                               f"{out.returncode}: {out.stderr.strip()[-300:]}")
    return res


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        spec, game, count, seed, seconds = argv[1:6]
        res = run_batch(spec, game, int(count), int(seed), float(seconds))
        print(jsonio.dumps(res))
        return 0
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(prog="python -m scripts.fuzz_service", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=250, help="random requests per batch")
    ap.add_argument("--seconds", type=float, default=40.0, help="time bound per batch")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the requests' deals and mutations (default 0)")
    ap.add_argument("--specs", default="table,random", help="robot specs, comma-separated")
    args = ap.parse_args(argv)
    total: Counter = Counter()
    failures: list[str] = []
    sent = 0
    for spec in args.specs.split(","):
        for game in GAMES:
            res = run_isolated(spec, game, args.count, args.seed, args.seconds)
            sent += res["requests"]
            total.update(res["by_status"])
            failures += res["failures"]
            print(f"{spec}/{game}: {res['requests']} requests, by status {res['by_status']}, "
                  f"{len(res['failures'])} failure(s)")
    print(f"total: {sent} requests, by status {dict(sorted(total.items()))}, "
          f"{len(failures)} failure(s)")
    for f in failures[:40]:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
