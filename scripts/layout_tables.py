"""Regenerate (or check) the README's observation and state tables from the declared
layouts (``core.observe.OBS_LAYOUT``, ``core.state.STATE_SCHEMA``).

    python scripts/layout_tables.py          # rewrite README.md in place
    python scripts/layout_tables.py --check  # exit 1 when README.md is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mariash_env.core import licit_observe, observe, observe4, state  # noqa: E402

README = ROOT / "README.md"
# Each table sits right after its section heading's prose: the first Markdown table there.
SECTIONS = {"## Observation layout": observe.layout_table,
            "## Four-player observation layout": observe4.layout_table,
            "## State record": state.layout_table,
            "### Licitovaný observation layout": licit_observe.layout_table}


def readme_table(text: str, heading: str) -> tuple[int, int]:
    """Character span of the first table under ``heading`` in ``text``."""
    start = text.index(heading + "\n")
    lines = text[start:].split("\n")
    first = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    last = first
    while last + 1 < len(lines) and lines[last + 1].startswith("|"):
        last += 1
    a = start + sum(len(ln) + 1 for ln in lines[:first])
    b = a + sum(len(ln) + 1 for ln in lines[first:last + 1]) - 1
    return a, b


def updated(text: str) -> str:
    for heading, make in SECTIONS.items():
        a, b = readme_table(text, heading)
        text = text[:a] + make() + text[b:]
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only check, write nothing")
    args = ap.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    new = updated(text)
    if args.check:
        if new != text:
            print("error: README.md tables differ from the layouts; "
                  "run python scripts/layout_tables.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
