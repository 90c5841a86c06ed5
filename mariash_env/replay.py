"""Verify game records: ``python -m mariash_env.replay FILE.jsonl [...]``.

Replays every record through the engine; prints one line per file and, for a
record that does not replay, its line number and the first bad action.  Exits
1 when any record fails.
"""

from __future__ import annotations

import argparse
import sys

from .records import RecordError, load_records, replay_record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mariash_env.replay", description=__doc__)
    ap.add_argument("files", nargs="+", help="JSON-lines files of deal records")
    args = ap.parse_args(argv)
    bad = 0
    for path in args.files:
        n = 0
        try:
            for n, rec in enumerate(load_records(path), 1):
                try:
                    replay_record(rec)
                except RecordError as e:
                    print(f"{path}: record {n}: {e}")
                    bad += 1
        except (OSError, RecordError) as e:
            print(f"{path}: {e}")
            bad += 1
            continue
        print(f"{path}: {n} record(s) checked")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
