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
# indented code, inline code spans) and of the modules' and examples' docstrings that runs
# one of the project's programs (``python -m ...``, ``python scripts/X.py``, ``python
# examples/X.py``, ``mariash ...``; after a prefix such as ``time`` or ``VAR=value``): each
# --flag must be one the program's --help lists, a training config must take its --set
# keys, and every robot it names (``--robots``, ``--robot``, ``--exploiter``,
# ``--opponents``, ``--anchor``, ``--game NAME=ROBOTS``, ``mariash serve-robot SPEC``) must
# be one make_robot would build for the command's game and seats (check_robot: its
# arguments, the registry entry's own check; a shipped model's file must exist).  Nothing
# is run but --help: the commands take minutes to hours.

CARDS = [*PAGES, *sorted((ROOT / "models").glob("*.md")), *sorted(ROOT.glob("training/*.md"))]
SOURCES = sorted(p for d in ("mariash_env", "training", "scripts", "examples")
                 for p in (ROOT / d).rglob("*.py"))  # their module docstrings' usage lines
PROGRAM = re.compile(r"(?:\.venv/bin/)?(python -m (?:mariash_env|training|scripts)[\w.]*"
                     r"|python (?:scripts|examples)/\w+\.py|mariash (?:dataset|ladder"
                     r"|best-response|play|serve-robot))\b")
# what may stand before the program on a command line: a shell prompt, variables set for
# the command, and commands that run the rest (time, nice, timeout, env)
PREFIX = re.compile(r"(?:\$ |(?:[A-Za-z_]\w*=\S*|time|env|nice(?: -n ?-?\d+)?"
                    r"|timeout \S+)\s+)*")
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


def _command(line: str) -> tuple[str, list[str]] | None:
    """``(program, argv after the program)`` of a line that runs one of the project's
    programs (after a :data:`PREFIX`), or None."""
    text = line.strip()
    text = text[PREFIX.match(text).end():]
    m = PROGRAM.match(text)
    if m is None:
        return None
    try:
        argv = shlex.split(text[m.end():], comments=True)
    except ValueError:  # an unclosed quote: the line is prose, not a command
        return None
    return m.group(1).removeprefix(".venv/bin/"), argv


def _commands() -> list[tuple[str, str, list[str]]]:
    """``(page, program, argv after the program)`` of every documented command."""
    found = []
    pages = [(p, _code_lines(p.read_text(encoding="utf-8"))) for p in CARDS]
    for page, lines in pages + [(p, _docstring_lines(p)) for p in SOURCES]:
        rel = page.relative_to(ROOT).as_posix()
        found += [(rel, *c) for c in map(_command, lines) if c is not None]
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
def helps() -> dict[str, str | None]:
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
    out: dict[str, str | None] = {}
    for program in programs:
        code, stdout, stderr = answers[program]
        if code and program.startswith("python examples/") and "ModuleNotFoundError" in stderr:
            out[program] = None  # an example of an extra not installed here (its flags unread)
            continue
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
           if helps[program] is not None
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


# the flags whose value is one robot spec, or (ROBOT_LISTS) a comma-separated list of them
ROBOT_FLAGS = ("--robot", "--exploiter", "--opponents", "--anchor")
ROBOT_LISTS = ("--robots",)
NOT_A_ROBOT = {"--anchor": "mean"}  # the ladder's other anchor


def _robot_specs(program: str, argv: list[str]) -> list[tuple[str, str, str]]:
    """``(where, rules, spec)`` of every robot a command names: ``where`` the flag (or
    ``serve-robot``), ``rules`` the game it is built for (``--rules``, or ``--game``'s
    NAME)."""
    from mariash_env.robots import split_robot_specs

    opts = _options(argv)
    rules: str | dict = (opts.get("--rules") or ["voleny"])[0]
    players = [*opts.get("--players", []), *(v.partition("=")[2] for v in opts.get("--rule", [])
                                             if v.startswith("players="))]
    if players and players[-1].isdigit():  # the seat count the robots are built for
        rules = {"rules": rules, "players": int(players[-1])}
    out = [(flag, rules, s) for flag in ROBOT_LISTS for v in opts.get(flag, [])
           for s in split_robot_specs(v)]
    out += [(flag, rules, v) for flag in ROBOT_FLAGS for v in opts.get(flag, [])
            if v != NOT_A_ROBOT.get(flag)]
    for v in opts.get("--game", []):  # NAME=ROBOT,ROBOT (NAME alone: the table's robots)
        name, eq, robots = v.partition("=")
        out += [("--game", name, s) for s in split_robot_specs(robots)] if eq else []
    if program == "mariash serve-robot" and argv and not argv[0].startswith("-"):
        out.append(("serve-robot", rules, argv[0]))
    return [(w, r, s) for w, r, s in out if s and not PLACEHOLDER.fullmatch(s)]


def test_the_commands_are_found_after_a_prefix_and_their_robots_wherever_named():
    """The checks above saw only lines starting with the program: ``time python -m ...``,
    ``VAR=1 python -m ...`` and ``python examples/X.py`` were not checked, nor robots
    named outside ``--robots`` (``--robot``, ``--exploiter``, ``--game NAME=...``,
    ``mariash serve-robot SPEC``)."""
    assert _command("time python -m mariash_env.compile --x") == (
        "python -m mariash_env.compile", ["--x"])
    assert _command("$ NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=2 nice -n 10 python -m "
                    "mariash_env.arena --deals 3") == ("python -m mariash_env.arena",
                                                       ["--deals", "3"])
    assert _command("python examples/sb3_maskable_ppo.py --seconds 60") == (
        "python examples/sb3_maskable_ppo.py", ["--seconds", "60"])
    assert _command("the python -m mariash_env.arena of the page") is None
    assert _robot_specs("mariash best-response", shlex.split(
        "--robot 'pimc(worlds=8, time_limit=0.5)' --exploiter onnx:x.onnx --rules lizany "
        "--game voleny=table,strong --game licitovany")) == [
        ("--robot", "lizany", "pimc(worlds=8, time_limit=0.5)"),
        ("--exploiter", "lizany", "onnx:x.onnx"), ("--game", "voleny", "table"),
        ("--game", "voleny", "strong")]
    assert _robot_specs("mariash serve-robot", ["strong", "--rules", "licitovany"]) == [
        ("serve-robot", "licitovany", "strong")]
    assert _robot_specs("mariash ladder", ["--anchor", "mean", "--robots", "ROBOT"]) == []
    programs = {p for _, p, _ in COMMANDS}
    assert {"python examples/openspiel_policy_gradient.py",
            "python examples/sb3_maskable_ppo.py"} <= programs, programs
    assert ("docs/benchmarks.md", "python -m mariash_env.compile", []) in COMMANDS
    where = {w for _, program, argv in COMMANDS for w, _, _ in _robot_specs(program, argv)}
    assert {"--robots", "--robot", "--exploiter", "--game", "serve-robot"} <= where, where


def _robot_problems(commands: list[tuple[str, str, list[str]]]) -> tuple[list[str], int]:
    """What :func:`~mariash_env.robots.check_robot` (the checks of ``make_robot``, the
    registry entries' ``check`` hooks included) refuses in the robots ``commands`` name,
    and how many they name.  A ``NAME:PATH`` robot's file is the reader's to make, but a
    shipped model's (``models/...``) must exist."""
    from mariash_env.robots import check_robot, parse_spec
    from mariash_env.robots.onnx_robot import OnnxRobotError

    bad, seen = [], 0
    for page, program, argv in commands:
        for where, rules, spec in _robot_specs(program, argv):
            seen += 1
            named = program if where == "serve-robot" else f"{program} {where}"
            try:
                check_robot(spec, rules)
            except OnnxRobotError:  # only its file is missing (the last check made)
                pass
            except ValueError as e:
                bad.append(f"{page}: {named} {spec}: {e}")
                continue
            path = parse_spec(spec)[0].partition(":")[2]
            if path.startswith("models/") and not (ROOT / path).is_file():
                bad.append(f"{page}: {spec}: no such shipped model")
    return bad, seen


def test_a_robot_make_robot_refuses_is_a_documented_robot_problem():
    """The check was ``check_robot_args``, the argument tables alone: it passed what a
    registry entry's ``check`` refuses (lízaný's own pimc's arguments, nnpimc's inference
    at four), which ``make_robot`` refuses."""
    arena = "python -m mariash_env.arena"
    bad, seen = _robot_problems([
        ("x.md", arena, ["--rules", "lizany", "--robots", "pimc(race=4),strong"]),
        ("y.md", arena, ["--rule", "players=4", "--robots", "nnpimc(inference=True)"]),
        ("z.md", "mariash play", ["--players", "4", "--robots", "table,strong(inference=True)"]),
        ("w.md", arena, ["--robots", "table,onnx:runs/mine.onnx,onnx:models/none.onnx"])])
    assert seen == 8 and len(bad) == 4, bad
    assert "x.md: python -m mariash_env.arena --robots pimc(race=4): robot 'pimc' of " \
           "lízaný mariáš takes the arguments" in bad[0], bad
    assert "y.md" in bad[1] and "with inference=True plays three players" in bad[1], bad
    assert "z.md" in bad[2] and "with inference=True plays three players" in bad[2], bad
    assert bad[3] == "w.md: onnx:models/none.onnx: no such shipped model", bad


def test_every_documented_robot_is_registered():
    bad, seen = _robot_problems(COMMANDS)
    assert seen >= 50 and not bad, "\n".join(bad) or seen
