"""Tamper with real record files and require ``mariash_env.replay`` to report each one
(issue #29 item 8, 9): ``python -m scripts.fuzz_replay [--rounds N] [--seconds S]``.

Real files first: parties of volený (partie shuffle and ``every_deal``), licitovaný and
volený at four, lízaný deals, and a play-table session (records ``ID.jsonl`` with its
summary ``ID.json``).  Then tamperings, each written as a file and checked by
:func:`mariash_env.replay.check_file`: a deal deleted, duplicated, swapped or moved; a
JSON type changed at a random place (an int as a float or a bool, a bool as an int,
null as 0 or false, a list as an object, a deck as an object or as card indices); a
5,000-digit or a 400-digit integer; a key given twice, in a record or in the summary
(junk first, the key's own value last: a reader that keeps the last value reads the file
as it was); the summary's score, deal count, completeness or seed changed.  Every
tampering must be reported (a bad count above 0) and no check may raise.  Prints the
figures (tried, detected, by kind) and exits 1 when any tampering passed or crashed.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import random
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from mariash_env import jsonio

HUGE = "7" * 5000  # over Python's int-string conversion limit (4300 digits)
PLACEHOLDER = "__fuzz_huge__"


def _env_partie(seed: int, **rules: Any) -> list[dict[str, Any]]:
    import mariash_env

    e = mariash_env.env(**rules)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return jsonio.loads(jsonio.dumps(list(e.unwrapped.records)))


def _lizany_deals(seed: int, n: int) -> list[dict[str, Any]]:
    from mariash_env.lizany import LizanyGame

    rng = random.Random(seed)
    out = []
    for k in range(n):
        g = LizanyGame(seed=seed * 1000 + k)
        while not g.over:
            g.play(rng.choice(g.legal_labels()))
        out.append(jsonio.loads(jsonio.dumps(g.record())))
    return out


def _session_files(seed: int, where: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A play-table partie (robots and a random 'human'), as saved: records and summary."""
    from mariash_env.play.session import PlaySession
    from mariash_env.records import load_records

    s = PlaySession("random,random", save_dir=where, seed=seed)
    rng = random.Random(seed)
    st = s.state()
    while s.waiting != "partie_over":
        if s.waiting == "robot":
            st = s.advance(s.id, s.move)
        elif s.waiting == "human":
            st = s.act(s.id, s.move, rng.choice(st["legal"]))
        else:
            st = s.next_deal(s.id, s.move)
    recs = list(load_records(s.records_path))  # as the replay reads them
    return recs, jsonio.read(where / f"{s.id}.json")


def real_files(seed: int = 0, where: Path | None = None) -> dict[str, Any]:
    """``name -> records`` of real files (``"session"`` -> ``(records, summary)``)."""
    files: dict[str, Any] = {
        "voleny": _env_partie(seed, deals=12),
        "voleny_every_deal": _env_partie(seed + 1, deals=5, shuffle="every_deal"),
        "licitovany": _env_partie(seed + 2, rules="licitovany", deals=5),
        "voleny_four": _env_partie(seed + 3, players=4, deals=6),
        "lizany": _lizany_deals(seed, 3),
    }
    if where is not None:
        files["session"] = _session_files(seed + 4, where)
    return files


def _leaves(obj: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """``(path, value)`` of every value inside ``obj`` (lists and objects too)."""
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, (*path, i))


def _set(obj: Any, path: tuple, value: Any) -> None:
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


def _retyped(value: Any, rng: random.Random) -> list[tuple[str, Any]]:
    """The type changes that keep ``value``'s meaning to ``==``: ``(kind, new value)``."""
    if isinstance(value, bool):
        return [("bool_as_int", int(value)), ("bool_as_float", float(value))]
    if isinstance(value, int):
        out = [("int_as_float", float(value)), ("int_400_digits", int("9" * 400)),
               ("int_5000_digits", PLACEHOLDER)]
        if value in (0, 1):
            out.append(("int_as_bool", bool(value)))
        return out
    if value is None:
        return [("null_as_0", 0), ("null_as_false", False)]
    if isinstance(value, list) and value:
        return [("list_as_object", {str(i): v for i, v in enumerate(value)})]
    return []


def record_lines(text: str) -> list[str]:
    """The lines of a records file's ``text`` as :func:`mariash_env.records.read_records`
    splits them: at ``\\n`` only, each with its end (``str.splitlines`` also splits at
    ``\\r``, ``\\x85``, ``\\u2028``..., which a record's strings hold as they are)."""
    return [ln.decode("utf-8") for ln in io.BytesIO(text.encode("utf-8"))]


def key_twice(text: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    """``(kind, tampered text)`` of a file's text (:func:`_text`): one record names one of
    its keys twice, ``null`` first and its own value last (``key_twice``), or one of an
    object's keys inside it (``key_twice_nested``: of its rules or its settlement)."""

    lines = record_lines(text)
    k = rng.randrange(len(lines))
    rec = jsonio.loads(lines[k])
    key = rng.choice(list(rec))
    yield "key_twice", "".join([*lines[:k], f"{{{jsonio.dumps(key)}: null, " + lines[k][1:],
                                *lines[k + 1:]])
    inner = [name for name, v in rec.items() if isinstance(v, dict) and v]
    if inner:
        name = rng.choice(inner)
        opening = f"{jsonio.dumps(name)}: {{"
        twice = f"{opening}{jsonio.dumps(rng.choice(list(rec[name])))}: null, "
        yield "key_twice_nested", "".join([*lines[:k], lines[k].replace(opening, twice, 1),
                                           *lines[k + 1:]])


def tamperings(name: str, recs: list[dict[str, Any]], rng: random.Random,
               n_types: int) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """``(kind, tampered records)``; partie tamperings only for files of parties."""
    if name != "lizany" and len(recs) >= 3:
        k = rng.randrange(1, len(recs) - 1)  # the first and last can go unnoticed alone
        yield "delete_deal", recs[:k] + recs[k + 1:]
        k = rng.randrange(len(recs))
        yield "duplicate_deal", recs[:k + 1] + [copy.deepcopy(recs[k])] + recs[k + 1:]
        i, j = sorted(rng.sample(range(len(recs)), 2))
        swapped = list(recs)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        yield "swap_deals", swapped
        k = rng.randrange(len(recs) - 1)
        yield "move_deal_to_end", recs[:k] + recs[k + 1:] + [recs[k]]
    k = rng.randrange(len(recs))
    for kind, deck in (("deck_as_object", {c: i for i, c in enumerate(recs[k]["deck"])}),
                       ("deck_as_indices", list(range(32))),
                       ("deck_lowercase", [c.lower() for c in recs[k]["deck"]])):
        bad = copy.deepcopy(recs)
        bad[k]["deck"] = deck
        yield kind, bad
    for _ in range(n_types):
        k = rng.randrange(len(recs))
        spots = [(p, v) for p, v in _leaves(recs[k]) if p and _retyped(v, rng)]
        path, value = rng.choice(spots)
        kind, new = rng.choice(_retyped(value, rng))
        bad = copy.deepcopy(recs)
        _set(bad[k], path, new)
        yield kind, bad


def summary_tamperings(meta: dict[str, Any], rng: random.Random
                       ) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(kind, tampered summary)`` of a play-table summary."""
    for kind, edit in (
            ("summary_score", lambda m: m["players"][rng.randrange(3)].update(
                score=m["players"][0]["score"] + 1)),
            ("summary_deals", lambda m: m.update(deals=m["deals"] - 1)),
            ("summary_complete", lambda m: m.update(complete=not m["complete"])),
            ("summary_seed", lambda m: m.update(seed=m["seed"] + 1))):
        bad = copy.deepcopy(meta)
        edit(bad)
        yield kind, bad


def _text(recs: list[dict[str, Any]]) -> str:
    return "".join(jsonio.dumps(r, ensure_ascii=False).replace(f'"{PLACEHOLDER}"', HUGE) + "\n"
                   for r in recs)


def check_text(text: str, where: Path, stem: str = "tampered",
               summary: dict[str, Any] | str | None = None) -> tuple[int, str]:
    """``(bad count, printed lines)`` of :func:`mariash_env.replay.check_file` on ``text``
    written as ``where/STEM.jsonl`` (with ``summary`` as ``STEM.json``: a dict as JSON, a
    string as it is)."""
    from mariash_env.replay import check_file

    path = where / f"{stem}.jsonl"
    path.write_text(text, encoding="utf-8")
    side = path.with_suffix(".json")
    if summary is not None:
        side.write_text(summary if isinstance(summary, str) else jsonio.dumps(summary),
                        encoding="utf-8")
    elif side.exists():
        side.unlink()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _, bad = check_file(str(path))
    return bad, out.getvalue()


def fuzz(seed: int = 0, n_types: int = 12, seconds: float = 150.0,
         rounds: int = 1) -> dict[str, Any]:
    """Tamper with real files (``n_types`` type changes per file), ``rounds`` times over
    with fresh random tamperings, until done or ``seconds`` pass; the figures, with every
    undetected tampering and crash."""
    rng = random.Random(seed)
    tried: Counter = Counter()
    detected: Counter = Counter()
    missed: list[str] = []
    crashed: list[str] = []
    clean: list[str] = []
    deadline = time.monotonic() + seconds
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        (where / "session").mkdir()
        files = real_files(seed, where / "session")
        session = files.pop("session")

        def attempt(name: str, kind: str, text: str, stem: str = "tampered",
                    summary: dict[str, Any] | str | None = None) -> None:
            tried[kind] += 1
            try:
                bad, out = check_text(text, where, stem, summary)
            except Exception as e:  # a traceback is what the fuzz looks for
                crashed.append(f"{name}/{kind}: {type(e).__name__}: {e}"[:300])
                return
            if bad:
                detected[kind] += 1
            else:
                missed.append(f"{name}/{kind}: {out.strip()[-200:]}")

        recs, meta = session
        for name, recs_ in [*files.items(), ("session", recs)]:
            stem, summary = (meta["id"], meta) if name == "session" else ("tampered", None)
            bad, out = check_text(_text(recs_), where, stem, summary)
            if bad:
                clean.append(f"{name}: the untampered file fails: {out.strip()[-300:]}")
        for _ in range(rounds):
            if time.monotonic() > deadline:
                break
            for name, recs_ in [*files.items(), ("session", recs)]:
                stem, summary = ((meta["id"], meta) if name == "session"
                                 else ("tampered", None))
                for kind, bad_recs in tamperings(name, recs_, rng, n_types):
                    if time.monotonic() > deadline:
                        break
                    attempt(name, kind, _text(bad_recs), stem, summary)
                for kind, text in key_twice(_text(recs_), rng):
                    attempt(name, kind, text, stem, summary)
        for kind, bad_meta in summary_tamperings(meta, rng):
            attempt("session", kind, _text(recs), meta["id"], bad_meta)
        twice = rng.choice(list(meta))  # null first, the summary's own value last
        attempt("session", "summary_key_twice", _text(recs), meta["id"],
                f"{{{jsonio.dumps(twice)}: null, " + jsonio.dumps(meta)[1:])
        for kind, bad_recs in (("session_delete_first", recs[1:]),
                               ("session_delete_last", recs[:-1])):
            attempt("session", kind, _text(bad_recs), meta["id"], meta)
    return {"tried": sum(tried.values()), "detected": sum(detected.values()),
            "by_kind": {k: f"{detected[k]}/{tried[k]}" for k in sorted(tried)},
            "missed": missed, "crashed": crashed, "clean_failed": clean}


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(prog="python -m scripts.fuzz_replay", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the files' parties and of the tamperings (default 0)")
    ap.add_argument("--types", type=int, default=12, help="type changes per file")
    ap.add_argument("--seconds", type=float, default=150.0, help="time bound")
    ap.add_argument("--rounds", type=int, default=1,
                    help="passes over the files, each with fresh random tamperings")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    res = fuzz(args.seed, args.types, args.seconds, args.rounds)
    print(f"tamperings tried {res['tried']}, detected {res['detected']}, "
          f"missed {len(res['missed'])}, crashed {len(res['crashed'])} "
          f"({time.monotonic() - t0:.1f} s)")
    for kind, frac in res["by_kind"].items():
        print(f"  {kind}: {frac}")
    for line in res["clean_failed"] + res["missed"] + res["crashed"]:
        print(f"FAIL {line}")
    return 1 if res["missed"] or res["crashed"] or res["clean_failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
