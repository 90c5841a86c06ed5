"""Regenerate (or check) the documentation's layout tables from their declarations:
the observations (``games.voleny.observe.OBS_LAYOUT``, ``games.voleny.observe4.OBS4_LAYOUT``,
``games.licitovany.observe.LOBS_LAYOUT``), the state record (``core.state.STATE_SCHEMA``)
and both games' action tables.

    python scripts/layout_tables.py          # rewrite docs/layouts.md in place
    python scripts/layout_tables.py --check  # exit 1 when docs/layouts.md is out of date
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mariash_env import actions, licit_actions  # noqa: E402
from mariash_env.core import state  # noqa: E402
from mariash_env.games.licitovany import observe as licit_observe  # noqa: E402
from mariash_env.games.voleny import observe, observe4  # noqa: E402

PAGE = ROOT / "docs" / "layouts.md"


def action_table(labels: Sequence[str]) -> str:
    """An action table as Markdown: one row per run of labels sharing a prefix
    (``play:7h`` … ``play:Aa`` is one row), in index order."""
    rows = ["| indices | labels | count |", "| ---: | --- | ---: |"]
    i = 0
    while i < len(labels):
        prefix = labels[i].split(":")[0] + ":" if ":" in labels[i] else None
        j = i + 1
        while prefix and j < len(labels) and labels[j].startswith(prefix):
            j += 1
        span = str(i) if j - i == 1 else f"{i}–{j - 1}"
        names = (f"`{labels[i]}`" if j - i == 1
                 else f"`{labels[i]}` … `{labels[j - 1]}`")
        rows.append(f"| {span} | {names} | {j - i} |")
        i = j
    return "\n".join(rows)


def voleny_actions() -> str:
    return action_table(actions.ACTION_LABELS)


def licit_action_table() -> str:
    return action_table(licit_actions.ACTION_LABELS)


# Each table sits right after its section heading's prose: the first Markdown table there.
SECTIONS: dict[str, Callable[[], str]] = {
    "## Observation layout": observe.layout_table,
    "## Four-player observation layout": observe4.layout_table,
    "## State record": state.layout_table,
    "## Licitovaný observation layout": licit_observe.layout_table,
    "## Volený action table": voleny_actions,
    "## Licitovaný action table": licit_action_table,
}


def section_table(text: str, heading: str) -> tuple[int, int]:
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


def page_table(table: str) -> str:
    """A generated table as the page holds it: ``[`` escaped, so that index notes such
    as ``[relative seat][card]`` are not read as Markdown reference links."""
    return table.replace("[", "\\[")


def updated(text: str) -> str:
    """``text`` with every declared table replaced by its current rendering."""
    for heading, make in SECTIONS.items():
        a, b = section_table(text, heading)
        text = text[:a] + page_table(make()) + text[b:]
    return text


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only check, write nothing")
    args = ap.parse_args(argv)
    text = PAGE.read_text(encoding="utf-8")
    new = updated(text)
    if args.check:
        if new != text:
            print(f"error: {PAGE.relative_to(ROOT)} tables differ from the declarations; "
                  "run python scripts/layout_tables.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
