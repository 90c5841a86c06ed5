"""Verify game records: ``python -m mariash_env.replay FILE.jsonl [...]``.

Checks every field of every record and replays it through the engine, and checks that
the records make parties: each the next deal of the one before (same rules, deal
number one up, dealt by the previous forehand, its deck the previous deal gathered and
cut), a new partie at deal 0 only after a complete one
(:class:`mariash_env.records.RecordChecker`); ``--separate`` checks each record alone
(a file of unrelated deals).  A file saved by the play table (``ID.jsonl``) is also
checked against its summary ``ID.json`` beside it, when there is one: the number of
deals, each player's running score (the sum of the deals' payments), whether the partie
is complete, and the partie's seed (it deals the first deal's deck).

Each bad record gets one line ``FILE:LINE: record N: field 'F': …``; a file that cannot
be read or holds no record gets one ``FILE: error: …`` line, a summary that disagrees
one ``FILE: summary ID.json: …`` line; every file is checked whatever the others hold,
then one summary line per file.  Exits 0 when every record of every file replays, 1 when
any record or file failed, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from . import jsonio
from .cli import ArgumentParser, closed_stdout, quiet_on_closed_pipe
from .game import Game
from .records import RecordChecker, RecordError, read_records
from .rules import is_int, make_rules


def check_summary(path: str | Path, records: list[dict[str, Any]]) -> list[str]:
    """What the play table's summary beside ``path`` (``ID.json`` for ``ID.jsonl``, see
    :mod:`mariash_env.play.session`) says that ``records`` (the file's, all good) do not;
    empty when there is no summary.  The records carry no running score: the summary's
    score of each player must be the sum of its payments."""
    p = Path(path)
    side = p.with_suffix(".json")
    if p.suffix != ".jsonl" or not side.is_file():
        return []
    try:
        meta = jsonio.read(side)
    except (OSError, ValueError) as e:  # NestingError too
        return [f"cannot be read ({e})"]
    if not (isinstance(meta, dict) and meta.get("id") == p.stem and "players" in meta):
        return []  # not the table's summary of this file
    faults = []
    if not (is_int(meta.get("deals")) and meta["deals"] == len(records)):
        faults.append(f"'deals' is {meta.get('deals')!r} but the file holds {len(records)} "
                      "deal(s)")
    voleny = [r for r in records if "settlement" in r]
    if not voleny:
        return faults
    rules = make_rules(**voleny[0]["rules"])
    totals = [sum(r["settlement"]["payments"][s] for r in voleny) for s in range(rules.players)]
    players = meta["players"]
    if not (isinstance(players, list) and len(players) == rules.players
            and all(isinstance(x, dict) for x in players)):
        return [*faults, f"'players' must list {rules.players} players, got {players!r:.80}"]
    for s, pl in enumerate(players):
        score = pl.get("score")
        if not (is_int(score) and score == totals[s]):
            faults.append(f"player {s}'s score is {score!r:.40} but the deals' payments sum "
                          f"to {totals[s]}")
    last = voleny[-1]["deal"]
    done = voleny[0]["deal"] == 0 and last == rules.deals - 1
    if meta.get("complete") is not done:
        faults.append(f"'complete' is {meta.get('complete')!r:.40} but the records "
                      f"{'are' if done else 'are not'} a whole partie (deals 0..{last})")
    seed = meta.get("seed")
    if voleny[0]["deal"] == 0 and "seed" in meta:
        game = Game(rules, records=False)
        if not is_int(seed) or seed < 0 or seed >= 2**63:
            faults.append(f"'seed' is {seed!r:.40}: expected an int 0..2^63-1")
        else:
            game.new_partie(seed=seed)
            if game.deck() != voleny[0]["deck"]:
                faults.append(f"the partie's seed {seed} deals another deck than deal 0's")
    return faults


def check_file(path: str, parties: bool = True) -> tuple[int, int]:
    """Print one line per bad record of ``path`` and a summary; ``(records, bad)``.
    ``parties``: the records must make parties (:class:`RecordChecker`)."""
    n = bad = 0
    checker = RecordChecker(parties=parties)
    good: list[dict[str, Any]] = []
    try:
        for line, rec in read_records(path):
            n += 1
            try:
                if isinstance(rec, RecordError):
                    raise rec
                checker.check(rec)
                good.append(rec)
            except RecordError as e:
                print(f"{path}:{line}: record {n}: {e}")
                bad += 1
    except OSError as e:
        if closed_stdout(e):
            raise  # stdout's reader gone (| head), not the file's
        reason = e.strerror or str(e)
        print(f"{path}: error: cannot read the file ({reason})")
        return n, bad + 1
    if n == 0:
        print(f"{path}: error: no records (an empty file)")
        return 0, 1
    faults = check_summary(path, good) if not bad and parties else []
    for fault in faults:
        print(f"{path}: summary {Path(path).with_suffix('.json').name}: {fault}")
    # the summary's faults are its own, not bad records
    print(f"{path}: {n} record(s) checked, {bad} bad" + (
        f"; the summary has {len(faults)} fault(s)" if faults else ""))
    return n, bad + len(faults)


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m mariash_env.replay", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="JSON-lines files of deal records")
    ap.add_argument("--separate", action="store_true",
                    help="the records are unrelated deals: check each alone, not as parties")
    args = ap.parse_args(argv)
    failed = 0
    for path in args.files:
        _, bad = check_file(path, parties=not args.separate)
        failed += bad > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
