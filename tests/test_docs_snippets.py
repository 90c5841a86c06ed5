"""Every ```python block of the README and of docs/ runs as written, in a fresh process
and an empty working directory (as a reader pasting it would): a renamed function, a
changed return value or a snippet that needs a name it never defines fails here.

A block that reads what a command of the same page writes gets that command run first
(:data:`SETUP`, a small instance of it); a block that only shows a signature is marked
in :data:`SKIP` with the reason; one that needs an extra's package, in :data:`NEEDS`, is
skipped where that is not installed (Tianshou's blocks run in tests/test_examples.py, see
:data:`IN_TIANSHOU_RUNNER`).  Bash blocks are the CLIs' (their own tests run them)."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

# page#block -> commands (argv after the interpreter) run in the working directory first
SETUP: dict[str, list[list[str]]] = {
    "docs/research/dataset.md#0": [
        ["-m", "mariash_env.play.cli", "dataset", "--robots", "table", "--deals", "6",
         "--out", "runs/data/table"]],
}
SKIP: dict[str, str] = {}
# page#block -> the module it needs beyond the dev extra (skipped, named, without it)
NEEDS: dict[str, str] = {
    "docs/pitfalls.md#0": "tianshou",  # the examples extra
}
# Blocks that need Tianshou run in tests/test_examples.py (test_tianshou_snippets_run), in
# an empty folder too, but forked from its runner, which imported Tianshou and compiled
# its numba kernels once: a fresh process spent ~12 s of CPU on those for a block that
# then runs in one.
IN_TIANSHOU_RUNNER = frozenset(n for n, m in NEEDS.items() if m == "tianshou")


def _blocks() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        rel = page.relative_to(ROOT).as_posix()
        out += [(f"{rel}#{i}", m.group(1))
                for i, m in enumerate(FENCE.finditer(page.read_text(encoding="utf-8")))]
    return out


BLOCKS = _blocks()


def test_the_docs_have_snippets_and_every_marker_names_one():
    names = {n for n, _ in BLOCKS}
    assert len(names) >= 10, sorted(names)
    marked = set(SETUP) | set(SKIP) | set(NEEDS)
    assert marked <= names, marked - names


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


HERE = [(n, c) for n, c in BLOCKS if n not in IN_TIANSHOU_RUNNER]


@pytest.mark.parametrize("name,code", HERE, ids=[n for n, _ in HERE])
def test_snippet_runs(name: str, code: str, tmp_path: Path):
    if name in SKIP:
        pytest.skip(SKIP[name])
    if name in NEEDS and importlib.util.find_spec(NEEDS[name]) is None:
        pytest.skip(f"{NEEDS[name]} is not installed (pip install -e '.[examples]')")
    for argv in SETUP.get(name, []):
        r = _run(argv, tmp_path)
        assert r.returncode == 0, f"setup {argv} of {name}:\n{r.stderr[-3000:]}"
    script = tmp_path / "snippet.py"
    script.write_text(code, encoding="utf-8")
    r = _run([str(script)], tmp_path)
    assert r.returncode == 0, f"{name} does not run as written:\n{r.stderr[-3000:]}"


# -- the documented commands ---------------------------------------------------------------
# Every command line of the README, docs/, the model cards and training/ (fenced and
# indented code, inline code spans) and of the modules' docstrings that runs one of the
# project's programs: each --flag
# must be one the program's --help lists, a training config must take its --set keys, and
# every robot it names must be a registered robot with known arguments (a shipped model's
# file must exist).  Nothing is run but --help: the commands take minutes to hours.

CARDS = [*PAGES, *sorted((ROOT / "models").glob("*.md")), *sorted(ROOT.glob("training/*.md"))]
SOURCES = sorted(p for d in ("mariash_env", "training", "scripts")
                 for p in (ROOT / d).rglob("*.py"))  # their module docstrings' usage lines
PROGRAM = re.compile(r"(?:\.venv/bin/)?(python -m (?:mariash_env|training|scripts)[\w.]*"
                     r"|python scripts/\w+\.py|mariash (?:dataset|ladder|best-response|play"
                     r"|serve-robot))\b")
SPAN = re.compile(r"`([^`\n]+)`")


def _code_lines(text: str) -> list[str]:
    """Lines of fenced blocks (but python), of indented blocks, and inline code spans;
    a line ending in a backslash joined to the next."""
    out, fenced, lang = [], False, ""
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced, lang = not fenced, line.strip()[3:]
            continue
        if fenced:
            if lang != "python":
                out.append(line)
        elif line.startswith("    "):
            out.append(line)
        else:
            out += SPAN.findall(line)
    joined: list[str] = []
    for line in out:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line
        else:
            joined.append(line)
    return joined


def _docstring_lines(path: Path) -> list[str]:
    """The indented lines and the ````code```` spans of a module's docstring."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    out = []
    for line in doc.splitlines():
        out += [line] if line.startswith("    ") else re.findall(r"``([^`]+)``", line)
    return out


def _commands() -> list[tuple[str, str, list[str]]]:
    """``(page, program, argv after the program)`` of every documented command."""
    found = []
    pages = [(p, _code_lines(p.read_text(encoding="utf-8"))) for p in CARDS]
    for page, lines in pages + [(p, _docstring_lines(p)) for p in SOURCES]:
        rel = page.relative_to(ROOT).as_posix()
        for line in lines:
            m = PROGRAM.match(line.strip().removeprefix("$ "))
            if m is None:
                continue
            rest = line.strip().removeprefix("$ ")[m.end():]
            try:
                argv = shlex.split(rest, comments=True)
            except ValueError:  # an unclosed quote: the line is prose, not a command
                continue
            found.append((rel, m.group(1).removeprefix(".venv/bin/"), argv))
    return found


COMMANDS = _commands()


PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*|\$\w+|\.\.\.")  # OPPONENT, $spec, ...


def _help_argv(program: str) -> list[str]:
    words = program.split()
    if words[0] == "mariash":
        return ["-m", "mariash_env.play.cli", words[1], "--help"]
    return [*words[1:], "--help"]


# Runs each program's --help in a child forked from one interpreter that imported
# mariash_env once: a fresh ``python`` per program spent most of its second importing
# numpy, numba and the package again (44 programs): tests/forking.py.
HELP_RUNNER = r"""
import json, sys
import mariash_env  # noqa: F401  (what the programs share, imported before the forks)
from tests.forking import run_forked

out = {program: run_forked(argv) for program, argv in json.loads(sys.argv[1])}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    programs = sorted({p for _, p, _ in COMMANDS})
    if not hasattr(os, "fork"):  # pragma: no cover - Windows: a process per program
        runs = {p: _run(_help_argv(p), ROOT) for p in programs}
        answers = {p: (r.returncode, r.stdout, r.stderr) for p, r in runs.items()}
    else:
        import json

        r = _run(["-c", HELP_RUNNER, json.dumps([(p, _help_argv(p)) for p in programs])],
                 ROOT)
        assert r.returncode == 0, r.stderr[-2000:]
        answers = json.loads(r.stdout.strip().splitlines()[-1])
    out = {}
    for program in programs:
        code, stdout, stderr = answers[program]
        assert code == 0, f"{program} --help fails:\n{stderr[-2000:]}"
        out[program] = _option_part(stdout)
    return out


def _option_part(text: str) -> str:
    """argparse's usage paragraph and its argument sections, without the description
    (which may quote the docstring's own usage lines)."""
    usage, _, rest = text.partition("\n\n")
    m = re.search(r"^(options|optional arguments|positional arguments):$", rest, re.M)
    return usage + ("\n" + rest[m.start():] if m else "")


def _options(argv: list[str]) -> dict[str, list[str]]:
    """Every --flag of ``argv`` with the values after it (until the next flag)."""
    opts: dict[str, list[str]] = {}
    flag, optional = None, False
    for a in argv:
        if a.startswith("[--"):  # a usage line's optional flag: [--seconds S]
            a, optional = a[1:], True
        if a.startswith("--"):
            flag, _, value = a.partition("=")
            opts.setdefault(flag, [])
            if value:
                opts[flag].append(value)
        elif flag is not None:
            opts[flag].append(a.removesuffix("]") if optional else a)
    return opts


def test_the_docs_name_commands():
    programs = {p for _, p, _ in COMMANDS}
    assert len(COMMANDS) >= 100 and {"python -m mariash_env.arena", "mariash play",
                                     "python -m training.train"} <= programs, programs


def test_every_documented_flag_is_the_programs(helps):
    bad = [f"{page}: {program} {flag}" for page, program, argv in COMMANDS
           for flag in _options(argv) if not re.search(rf"{re.escape(flag)}\b", helps[program])]
    assert not bad, "flags the program does not take:\n" + "\n".join(bad)


def test_every_documented_training_override_is_a_config_key():
    from training.config import ConfigError, load_config

    bad, seen = [], 0
    for page, program, argv in COMMANDS:
        opts = _options(argv)
        if (program != "python -m training.train" or not opts.get("--config")
                or PLACEHOLDER.fullmatch(opts["--config"][0])):
            continue
        seen += 1
        try:
            load_config(ROOT / opts["--config"][0], opts.get("--set", []))
        except ConfigError as e:
            bad.append(f"{page}: {e}")
    assert seen >= 10 and not bad, "\n".join(bad) or seen


def test_every_documented_robot_is_registered():
    from mariash_env.arena import _split
    from mariash_env.robots import check_robot_args, parse_spec

    bad, seen = [], 0
    for page, program, argv in COMMANDS:
        opts = _options(argv)
        rules = (opts.get("--rules") or ["voleny"])[0]
        for spec in [s for v in opts.get("--robots", []) for s in _split(v)]:
            if PLACEHOLDER.fullmatch(spec):
                continue
            seen += 1
            try:
                base, kw = parse_spec(spec)
                check_robot_args(base, kw, rules)
            except ValueError as e:
                bad.append(f"{page}: {program} --robots {spec}: {e}")
                continue
            path = base.partition(":")[2]
            if path.startswith("models/") and not (ROOT / path).is_file():
                bad.append(f"{page}: {spec}: no such shipped model")
    assert seen >= 50 and not bad, "\n".join(bad) or seen
