"""The real command lines under bad input (issue #9): ``python -m mariash_env.replay`` and
``python -m mariash_env.arena`` answer one line per fault, never a traceback; the arena
checks everything before playing and keeps the deals it finished."""

from __future__ import annotations

import argparse
import copy
import csv
import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

import mariash_env
from mariash_env import arena
from mariash_env.records import RecordChecker, RecordError, save_records
from mariash_env.robots import RandomRobot

ROOT = Path(__file__).resolve().parents[1]


def run(module: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def assert_clean(out: subprocess.CompletedProcess) -> None:
    both = out.stdout + out.stderr
    assert "Traceback" not in both and "Error:" not in both.replace("error:", ""), both


@pytest.fixture(scope="module")
def partie() -> list[dict]:
    """The records of one 12-deal partie, as read back from JSON."""
    e = mariash_env.env(deals=12)
    e.reset(seed=21)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return json.loads(json.dumps(list(e.unwrapped.records)))


def tampered(partie: list[dict], i: int, path: tuple, value) -> list[dict]:
    recs = copy.deepcopy(partie)
    obj = recs[i]
    for key in path[:-1]:
        obj = obj[key]
    if value is DELETE:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return recs


DELETE = object()

# (record index, path into it, new value, field named in the message)
TAMPERS = [
    (0, ("format",), "mariash-deal/2", "format"),
    (0, ("format",), DELETE, "format"),
    (0, ("rules",), ["voleny"], "rules"),
    (0, ("rules", "deals"), 10**30, "rules"),
    (0, ("rules", "tariff"), ["home"], "rules"),
    (0, ("rules", "killed_seven"), 2.0, "rules"),
    (0, ("rules", "shuffle"), DELETE, "rules"),
    (0, ("deal",), 12, "deal"),
    (0, ("deal",), "0", "deal"),
    (4, ("deal",), 5, "deal"),
    (4, ("deal",), 3, "deal"),
    (0, ("cut",), 5, "cut"),
    (4, ("cut",), None, "cut"),
    (4, ("cut",), 2.5, "cut"),
    (0, ("dealer",), 3, "dealer"),
    (0, ("dealer",), True, "dealer"),
    (0, ("deck",), "7h", "deck"),
    (0, ("deck",), [0] * 32, "deck"),
    (0, ("actions",), {"0": "trump:7h"}, "actions"),
    (0, ("actions", 0), ["trump:7h"], "actions"),
    (0, ("actions", 0, 1), ["play:7h"], "actions"),
    (0, ("actions", 0, 0), "1", "actions"),
    (0, ("actions", 1, 1), "play:Xx", "actions"),
    (0, ("settlement",), [], "settlement"),
    (0, ("settlement", "payments"), [1, 2, -3], "settlement.payments"),
    (0, ("settlement", "bets"), [], "settlement.bets"),
    (0, ("extra",), 1, "extra"),
]


@pytest.mark.parametrize(("i", "path", "value", "field"), TAMPERS)
def test_every_tampered_field_is_named(partie, i, path, value, field):
    recs = tampered(partie, i, path, value)
    checker = RecordChecker()
    errors = {}
    for n, r in enumerate(recs):
        try:
            checker.check(r)
        except RecordError as e:
            errors[n] = e
    assert list(errors) == [i], errors
    assert errors[i].field == field
    assert f"field {field!r}" in str(errors[i])


def test_a_whole_partie_checks_and_so_does_every_deal_shuffle(partie, tmp_path):
    checker = RecordChecker()
    for r in partie + partie:  # two parties in a row
        checker.check(r)
    e = mariash_env.env(deals=4, shuffle="every_deal", records=2)
    e.reset(seed=3)
    rng = np.random.default_rng(1)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    recs = json.loads(json.dumps(list(e.unwrapped.records)))
    assert [r["cut"] for r in recs] == [0, 0]
    checker = RecordChecker()
    for r in recs:
        checker.check(r)


def test_replay_cli_checks_every_file_and_names_file_line_and_field(partie, tmp_path):
    good = tmp_path / "good.jsonl"
    save_records(good, partie)
    files = [str(good)]
    expect = {}
    for k, (i, path, value, field) in enumerate(TAMPERS):
        p = tmp_path / f"t{k:02d}.jsonl"
        save_records(p, tampered(partie, i, path, value))
        files.append(str(p))
        expect[str(p)] = (i + 1, field)
    shapes = {
        "empty.jsonl": "",
        "blank.jsonl": "\n\n  \n",
        "list.jsonl": json.dumps(["trump:7h", "good"]) + "\n",
        "number.jsonl": "12\n",
        "junk.jsonl": "{not json\n",
        "deep.jsonl": "[" * 100000 + "]" * 100000 + "\n",
        "binary.jsonl": b"\xff\xfe\x00junk\n",
    }
    for name, text in shapes.items():
        p = tmp_path / name
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
        files.append(str(p))
    files.append(str(tmp_path / "missing.jsonl"))
    files.append(str(tmp_path))  # a directory
    out = run("mariash_env.replay", *files, str(good))
    assert_clean(out)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert lines.count(f"{good}: 12 record(s) checked, 0 bad") == 2  # the last file too
    for path, (line, field) in expect.items():
        mine = [ln for ln in lines if ln.startswith(f"{path}:")]
        assert len(mine) == 2, mine  # the bad record, then the summary
        assert mine[0].startswith(f"{path}:{line}: record {line}: field {field!r}: "), mine
        assert mine[1] == f"{path}: 12 record(s) checked, 1 bad"
    for name in shapes:
        mine = [ln for ln in lines if ln.startswith(f"{tmp_path / name}:")]
        assert mine and ("error" in mine[0] or "not a JSON" in mine[0]
                         or "must be a JSON object" in mine[0]
                         or "not UTF-8 text" in mine[0]), (name, mine)
    assert f"{tmp_path / 'empty.jsonl'}: error: no records (an empty file)" in lines
    assert any(ln.startswith(f"{tmp_path / 'missing.jsonl'}: error: cannot read")
               for ln in lines)


def test_replay_cli_exit_status(partie, tmp_path):
    good = tmp_path / "good.jsonl"
    save_records(good, partie)
    out = run("mariash_env.replay", str(good))
    assert out.returncode == 0 and out.stdout.strip().endswith("12 record(s) checked, 0 bad")
    out = run("mariash_env.replay")
    assert out.returncode == 2 and out.stderr.startswith("error: ")
    assert len(out.stderr.strip().splitlines()) == 1


# --- the arena -------------------------------------------------------------------------------

BAD_ARENA = [
    (["--jobs", "0"], "jobs=0"),
    (["--jobs", "-3"], "jobs=-3"),
    (["--deals", "0"], "deals=0"),
    (["--deals", str(10**12)], "deals=1000000000000"),
    (["--deals", "abc"], "--deals"),
    # the option named, not the pimc robot's argument (a match of table and random too)
    (["--time-limit", "-1"], "invalid --time-limit -1.0 (seconds per decision of pimc, "
                             "nnpimc and strong): expected a finite number > 0"),
    (["--time-limit", "nan"], "invalid --time-limit nan (seconds per decision of pimc, "
                              "nnpimc and strong): expected a finite number > 0"),
    # refused as no limit: "expected a number > 0" of inf, which is one
    (["--time-limit", "inf"], "invalid --time-limit inf (seconds per decision of pimc, "
                              "nnpimc and strong): expected a finite number > 0"),
    (["--worlds", "0"], "invalid --worlds 0 (worlds per decision of pimc, nnpimc "
                        "and strong): "
                        "expected an int 1..100000"),
    (["--robots", "pimc(time_limit=-1)"], "time_limit=-1"),
    (["--robots", "nosuch,table"], "unknown robot 'nosuch'"),
    (["--robots", "table,,random"], "empty robot name"),
    (["--robots", "pimc(worlds=)"], "bad robot spec"),
    (["--robots", "pimc(wordls=3)"], "unknown argument 'wordls'"),
    (["--robots", "onnx:/nonexistent.onnx"], "no ONNX model"),
    (["--robots", "random(seed=1.5)"], "seed=1.5"),
    (["--seed", "x"], "--seed"),
    (["--bogus"], "unrecognized"),
    # a split the match has none of was printed as nothing, the match played (minutes)
    (["--robots", "table,random,random", "--by-company"],
     "--by-company splits a match of two robots: got 3 (table,random,random)"),
    (["--robots", "table", "--by-company"], "--by-company splits a match of two robots: got 1"),
    (["--robots", "table", "--by-contract"],
     "--by-contract splits each pair's difference: expected two or more robots, got 1"),
]


@pytest.mark.parametrize(("args", "match"), BAD_ARENA)
def test_arena_bad_arguments_give_one_error_line(args, match, tmp_path):
    out = run("mariash_env.arena", *args, "--quiet", "--out", str(tmp_path / "o"))
    assert_clean(out)
    assert out.returncode == 2
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and match in err[0], out.stderr
    assert out.stdout == ""
    assert not (tmp_path / "o").exists()  # nothing created before the arguments are good


def test_arena_checks_its_outputs_before_playing(tmp_path):
    f = tmp_path / "a_file"
    f.write_text("x")
    out = run("mariash_env.arena", "--deals", "3", "--quiet", "--out", str(f / "sub"))
    assert_clean(out)
    assert out.returncode == 2 and out.stderr.startswith("error: cannot write the results")
    d = tmp_path / "out"
    (d / "summary.csv").mkdir(parents=True)  # an output that cannot be written
    out = run("mariash_env.arena", "--deals", "3", "--quiet", "--out", str(d))
    assert out.returncode == 2 and "summary.csv" in out.stderr
    assert not (d / "deals.csv").exists()  # no deal was played


class FailingRobot:
    """Plays randomly, then fails on its ``fail_at``-th decision (a late fault)."""

    calls = 0

    def __init__(self, fail_at: int) -> None:
        self.rng = np.random.default_rng(0)
        self.fail_at = fail_at

    def reset(self) -> None:
        pass

    def act(self, observation):
        FailingRobot.calls += 1
        if FailingRobot.calls >= self.fail_at:
            raise RuntimeError("robot crashed")
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


def test_arena_keeps_the_deals_finished_before_a_late_failure(tmp_path):
    FailingRobot.calls = 0
    robots = {"random": RandomRobot,
              "flaky": lambda: FailingRobot(fail_at=400)}
    with pytest.raises(RuntimeError, match="robot crashed"):
        arena.duplicate_match(robots, deals=100, seed=1, progress=False, out=tmp_path)
    with (tmp_path / "deals.csv").open() as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["deal", "seed", "random", "flaky"]
    assert 1 <= len(rows) - 1 < 100
    # the rows written so far are exactly those of a match of that many deals
    n = len(rows) - 1
    FailingRobot.calls = -10**9
    full = arena.duplicate_match(robots, deals=n, seed=1, progress=False)
    got = np.array([[float(x) for x in r[2:]] for r in rows[1:]])
    assert np.allclose(got, full.per_deal, atol=1e-4)


def test_arena_library_arguments_are_checked():
    robots = {"random": RandomRobot}
    for kw, match in [({"deals": 0}, "deals=0"), ({"jobs": 0}, "jobs=0"),
                      ({"deals": 2.0}, "deals=2.0"), ({"seed": 1.5}, "seed=1.5"),
                      ({"jobs": True}, "jobs=True")]:
        with pytest.raises(ValueError, match=match):
            arena.duplicate_match(robots, progress=False, **kw)
    with pytest.raises(ValueError, match="at least one robot"):
        arena.duplicate_match({}, deals=1, progress=False)


# the option named, not the rule option 'deals' (the env's words)
@pytest.mark.parametrize(("args", "match"), [
    (["--deals", "0"], "invalid --deals 0: expected an int 1..1000000"),
    (["--deals", str(10**12)], f"invalid --deals {10**12}: expected an int 1..1000000"),
    (["--deals", "x"], "--deals"),
    (["--seed", "1.5"], "--seed"),
    (["--seed", "-1"], "--seed")])
def test_demo_bad_arguments_give_one_error_line(args, match):
    out = run("mariash_env.demo", *args, "--quiet")
    assert_clean(out)
    assert out.returncode == 2 and out.stdout == ""
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and match in err[0], out.stderr


# A reader that leaves early (`python -m mariash_env.demo | head -3`) ends a command line
# quietly, as a shell tool killed by SIGPIPE: exit status 141 and nothing on stderr.  It
# was a BrokenPipeError traceback (the demo), "Exception ignored ... BrokenPipeError" and
# status 120 (replay), "the match failed", status 1, and no results saved (the arena), or
# "cannot open the file: Broken pipe", status 2 (mariash dataset, ladder, best-response).
def _closed_pipe(module: str, *args: str) -> None:
    proc = subprocess.Popen([sys.executable, "-m", module, *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # gone before the first line: every write to the pipe fails
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141, err
    assert err == ""


def test_a_reader_that_leaves_ends_the_demo_quietly():
    _closed_pipe("mariash_env.demo", "--deals", "2")


def test_a_reader_that_leaves_ends_replay_quietly(partie, tmp_path):
    path = tmp_path / "p.jsonl"
    save_records(path, partie)
    _closed_pipe("mariash_env.replay", str(path))


def test_a_reader_that_leaves_ends_the_arena_quietly_its_results_saved(tmp_path):
    _closed_pipe("mariash_env.arena", "--rules", "lizany", "--robots", "random,random",
                 "--deals", "2", "--quiet", "--no-plot", "--out", str(tmp_path / "o"))
    assert {"deals.csv", "summary.csv", "pairwise.csv"} <= {
        p.name for p in (tmp_path / "o").iterdir()}


def test_a_reader_that_leaves_ends_a_research_command_quietly(tmp_path):
    """The mariash console script's dataset command (run_command's errors of a path)."""
    pytest.importorskip("pyarrow")
    _closed_pipe("mariash_env.play.cli", "dataset", "--robots", "random", "--deals", "2",
                 "--quiet", "--out", str(tmp_path / "d"))
    assert (tmp_path / "d" / "manifest.json").exists()


def test_a_reader_that_leaves_after_three_lines(tmp_path):
    """`| head -3` of a partie of 200 deals (far more than the pipe holds): the lines read
    are the partie's first, then the status of a closed pipe."""
    proc = subprocess.Popen([sys.executable, "-m", "mariash_env.demo", "--deals", "200"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = [proc.stdout.readline() for _ in range(3)]
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141 and err == "", err
    assert head[0] == b"=== deal 1 ===\n"


def test_every_command_line_of_the_package_ends_quietly_on_a_closed_pipe():
    """Each ``python -m mariash_env....`` tool's ``main`` (and so the mariash console
    script's commands) is :func:`mariash_env.cli.quiet_on_closed_pipe`'s."""
    tools = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                   for p in (ROOT / "mariash_env").rglob("*.py")
                   if 'if __name__ == "__main__"' in p.read_text(encoding="utf-8"))
    assert "mariash_env.demo" in tools and "mariash_env.play.cli" in tools
    bare = [m for m in tools
            if not getattr(importlib.import_module(m).main, "quiet_on_closed_pipe", False)]
    assert bare == []


def test_every_command_line_of_training_ends_quietly_on_a_closed_pipe():
    """Each ``python -m training....`` command line's ``main`` (train, demo, evaluate,
    export, pipeline, pimc_labels, bc) is :func:`mariash_env.cli.quiet_on_closed_pipe`'s
    too: ``python -m training.train --describe-config | head`` said "error: [Errno 32]
    Broken pipe" (status 1), the pipeline's --dry-run a BrokenPipeError traceback."""
    pytest.importorskip("torch")
    tools = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                   for p in (ROOT / "training").rglob("*.py")
                   if 'if __name__ == "__main__"' in p.read_text(encoding="utf-8"))
    assert {"training.train", "training.pipeline", "training.demo", "training.evaluate",
            "training.export", "training.bc", "training.pimc_labels"} <= set(tools)
    bare = [m for m in tools
            if not getattr(importlib.import_module(m).main, "quiet_on_closed_pipe", False)]
    assert bare == []


@pytest.mark.parametrize("args", [
    ("training.train", "--describe-config"),
    ("training.train", "--config", "training/configs/demo.toml", "--show-config"),
    ("training.pipeline", "training/recipes/tiny.toml", "--dry-run")])
def test_a_reader_that_leaves_ends_a_training_command_line_quietly(args):
    """The training command lines that print and end at once (no run started): status
    141 and nothing on stderr, as the package's."""
    pytest.importorskip("torch")
    _closed_pipe(*args)


JUNK = [None, True, -1, 0, 3, 31, 10**30, 1.5, float("nan"), "", "x", "play:Aa", [], {}, [[]],
        [0, "good"], {"a": 1}]


def _nodes(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _nodes(v, (*path, i))


def test_random_mutations_of_records_only_ever_give_record_errors(partie):
    """Seeded fuzz: any node of a record replaced by junk is a RecordError, never another
    exception (and a mutation that changes nothing that matters still replays)."""
    rng = np.random.default_rng(9)
    base = partie[1]
    nodes = [p for p in _nodes(base) if p]
    kinds = set()
    for _ in range(600):
        rec = copy.deepcopy(base)
        path = nodes[int(rng.integers(len(nodes)))]
        obj = rec
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = copy.deepcopy(JUNK[int(rng.integers(len(JUNK)))])
        checker = RecordChecker()
        try:
            checker.check(rec)
        except RecordError as e:
            kinds.add(e.field)
    assert {"rules", "deck", "actions", "deal", "dealer", "cut", "format"} <= kinds


# Every command line parses with mariash_env.cli.ArgumentParser: argparse's own error is a
# usage block and a "prog: error:" line; the guarantee is one "error: ..." line, exit 2.
PARSER_ERRORS = [
    ("mariash_env.compile", ["--part", "bogus"], "invalid choice: 'bogus'"),
    ("mariash_env.compile", ["--games", "bogus"], "unknown game 'bogus'"),
    ("training.pimc_labels", ["--out", "x", "--states", "x"], "--states"),
    ("scripts.check_worlds", ["--deals", "x"], "--deals"),
    ("scripts.fuzz_replay", ["--bogus"], "unrecognized arguments: --bogus"),
    ("scripts.leak_check", ["--count", "x"], "--count"),
]


@pytest.mark.parametrize(("module", "args", "match"), PARSER_ERRORS)
def test_parser_errors_are_one_line(module, args, match):
    out = run(module, *args)
    assert_clean(out)
    err = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(err) == 1 and err[0].startswith("error: ") \
        and match in err[0], out.stderr


def test_every_command_line_uses_the_shared_parser():
    """No tool of the package, training or scripts builds argparse's own parser (the
    examples are standalone integrations of other libraries)."""
    own = [str(p.relative_to(ROOT)) for d in ("mariash_env", "training", "scripts")
           for p in sorted((ROOT / d).rglob("*.py"))
           if "argparse.ArgumentParser(" in p.read_text(encoding="utf-8")]
    assert own == []


# The command lines whose options --help lists: the mariash console script's commands
# (mariash_env.play.cli dispatches dataset, ladder and best-response to their own parsers)
# and every tool of the package, training and scripts that builds a parser.
HELP_TOOLS = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts)
    for d in ("mariash_env", "training", "scripts") for p in (ROOT / d).rglob("*.py")
    if p.name != "__main__.py" and p != ROOT / "mariash_env" / "cli.py"
    and "ArgumentParser(" in p.read_text(encoding="utf-8"))
CONSOLE_COMMANDS = ("dataset", "ladder", "best-response")  # each its module's own parser


class _Built(Exception):
    """Raised by the first ``parse_args`` of a tool's ``main``: the parser it built."""


def _parser(module: str, argv: list[str]) -> argparse.ArgumentParser:
    """The parser ``module``'s ``main(argv)`` builds, caught at its parse: nothing runs."""
    def caught(self, args=None, namespace=None):
        raise _Built(self)

    main = importlib.import_module(module).main
    with mock.patch.object(argparse.ArgumentParser, "parse_args", caught), \
            mock.patch.object(sys, "argv", [module, *argv]):
        try:
            main(argv) if inspect.signature(main).parameters else main()
        except _Built as b:
            return b.args[0]
    raise AssertionError(f"{module}.main({argv}) returned without parsing its arguments")


def _options_without_help(ap: argparse.ArgumentParser) -> list[str]:
    """Every option and positional of ``ap`` and of its subcommands' parsers without a
    help text, as ``--flag`` (or the positional's name, or ``COMMAND --flag``)."""
    out = []
    for action in ap._actions:
        if action.help is None:
            out.append("/".join(action.option_strings) or action.dest)
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += [f"{name} {o}" for o in _options_without_help(sub)]
    return out


def test_every_option_of_every_command_line_has_a_help_text():
    """``--help`` explains every option: the arena's ``--no-plot`` (ladder's and
    best-response's have one) and sixty options of the training and scripts
    tools had no help text, so that ``--help`` listed them bare.  Each help is formatted
    too (a bare ``%`` in a help text breaks ``--help``)."""
    assert {"mariash_env.play.cli", "mariash_env.arena", "training.train",
            "scripts.bench_env"} <= set(HELP_TOOLS) and len(HELP_TOOLS) >= 40, HELP_TOOLS
    parsers = {m: _parser(m, []) for m in HELP_TOOLS}
    parsers.update({f"mariash {c}": _parser("mariash_env.play.cli", [c])
                    for c in CONSOLE_COMMANDS})
    bare = {m: _options_without_help(ap) for m, ap in parsers.items()}
    assert not {m: o for m, o in bare.items() if o}
    assert all("--help" in ap.format_help() for ap in parsers.values())


def test_every_command_line_runs_as_a_module():
    """Every tool that builds a parser runs as ``python -m MODULE`` too, as ``mariash
    dataset`` and ``mariash ladder`` do: ``python -m mariash_env.research.best_response
    --help`` printed nothing and exited 0 (its module had no ``__main__`` block)."""
    silent = [m for m in HELP_TOOLS
              if 'if __name__ == "__main__":' not in (
                  ROOT / (m.replace(".", "/") + ".py")).read_text(encoding="utf-8")]
    assert silent == []
    out = run("mariash_env.research.best_response", "--help")
    assert out.returncode == 0 and out.stdout.startswith("usage: "), out.stdout + out.stderr


def test_the_mariash_help_says_what_play_seats_and_no_sphinx_markup():
    """``mariash --help``: play seats two robots, lízaný one and the four-player table
    three (it said "two robots" alone), and the description is no Sphinx source (it
    showed ``:mod:`mariash_env.research```)."""
    out = run("mariash_env.play.cli", "--help")
    assert out.returncode == 0, out.stderr
    assert ":mod:" not in out.stdout and ":func:" not in out.stdout, out.stdout
    text = " ".join(out.stdout.split())
    assert "play sit at the table with robots: two, one in lízaný, three with --players 4" \
        in text, text
