"""Verify game records: ``python -m mariash_env.replay FILE.jsonl [...]``.

Checks every field of every record and replays it through the engine
(:class:`mariash_env.records.RecordChecker`).  Each bad record gets one line
``FILE:LINE: record N: field 'F': …``; a file that cannot be read or holds no
record gets one ``FILE: error: …`` line; every file is checked whatever the
others hold, then one summary line per file.  Exits 0 when every record of
every file replays, 1 when any record or file failed, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys

from .cli import ArgumentParser
from .records import RecordChecker, RecordError, read_records


def check_file(path: str) -> tuple[int, int]:
    """Print one line per bad record of ``path`` and a summary; ``(records, bad)``."""
    n = bad = 0
    checker = RecordChecker()
    try:
        for line, rec in read_records(path):
            n += 1
            try:
                if isinstance(rec, RecordError):
                    raise rec
                checker.check(rec)
            except RecordError as e:
                print(f"{path}:{line}: record {n}: {e}")
                bad += 1
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        print(f"{path}: error: cannot read the file ({reason})")
        return n, bad + 1
    if n == 0:
        print(f"{path}: error: no records (an empty file)")
        return 0, 1
    print(f"{path}: {n} record(s) checked, {bad} bad")
    return n, bad


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m mariash_env.replay", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="JSON-lines files of deal records")
    args = ap.parse_args(argv)
    failed = 0
    for path in args.files:
        _, bad = check_file(path)
        failed += bad > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
