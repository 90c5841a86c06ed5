"""A robot list of a command line (``--robots "pimc(worlds=8, time_limit=0.5),table"``):
one split (:func:`mariash_env.robots.split_robot_specs`, commas outside parentheses) for
every command line and table that takes one.  ``mariash play`` split on every comma, so a
spec with arguments was refused with "expected two robots" where the arena took it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import table_session

from mariash_env.play.cli import main as cli_main
from mariash_env.play.session import PlayError, parse_robots
from mariash_env.robots import split_robot_specs

ROOT = Path(__file__).resolve().parents[1]
TWO = "pimc(worlds=8, time_limit=0.5),table"


@pytest.mark.parametrize("text, specs", [
    ("table", ["table"]),
    (" table , random ", ["table", "random"]),
    (TWO, ["pimc(worlds=8, time_limit=0.5)", "table"]),
    ("nnpimc(model='a,b).onnx', worlds=8),onnx:m.onnx", [
        "nnpimc(model='a,b).onnx', worlds=8)", "onnx:m.onnx"]),
    ("strong(from_trick=4, worlds=8),pimc(game={'a': (1, 2)}),random",
     ["strong(from_trick=4, worlds=8)", "pimc(game={'a': (1, 2)})", "random"]),
    ("onnx:it's.onnx,table", ["onnx:it's.onnx", "table"]),  # a quote outside arguments
    ("", [""]),  # kept for the caller to name with its option
    ("table,", ["table", ""]),
])
def test_split_robot_specs(text, specs):
    assert split_robot_specs(text) == specs


@pytest.mark.parametrize("text, why", [
    ("pimc(worlds=8,table", "a '(' is not closed"),
    ("pimc(worlds=8)),table", "a ')' that closes no '('"),
    ("table),random(", "a ')' that closes no '('"),
    ("nnpimc(model='a.onnx),table", "a quoted argument is not closed"),
])
def test_split_robot_specs_names_an_unbalanced_parenthesis(text, why):
    with pytest.raises(ValueError) as e:
        split_robot_specs(text)
    assert str(e.value) == (f"bad robot list {text!r}: {why}; expected robot specs NAME or "
                            "NAME(key=value, ...), separated by commas")


def test_play_takes_a_robot_spec_with_a_comma_inside_parentheses(tmp_path, capsys):
    """``mariash play --robots "pimc(worlds=8, time_limit=0.5),table"``: two robots (it
    said "expected two robots", splitting inside the parentheses).  The command line gets
    past the robots to the next check (a --save-dir that is a file), and a table seats a
    robot whose arguments hold a comma."""
    assert parse_robots(TWO) == ["pimc(worlds=8, time_limit=0.5)", "table"]
    assert parse_robots("random(seed=3, ),table", (1, 2)) == ["random(seed=3, )", "table"]
    taken = tmp_path / "parties"
    taken.write_text("not a folder")
    with pytest.raises(SystemExit) as e:
        cli_main(["play", "--terminal", "--robots", TWO, "--save-dir", str(taken)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith(f"error: cannot save parties in {taken}"), err
    s = table_session(tmp_path / "t", robots="random(seed=3, ),table")
    assert s.specs == ["random(seed=3, )", "table"]


def test_play_names_an_unbalanced_robot_list(tmp_path, capsys):
    with pytest.raises(PlayError, match=r"^bad robot list 'pimc\(worlds=8,table': a '\(' "
                                        r"is not closed"):
        parse_robots("pimc(worlds=8,table")
    with pytest.raises(SystemExit) as e:
        cli_main(["play", "--terminal", "--robots", "pimc(worlds=8,table",
                  "--save-dir", str(tmp_path)])
    assert e.value.code == 2
    assert capsys.readouterr().err == (
        "error: bad robot list 'pimc(worlds=8,table': a '(' is not closed; expected robot "
        "specs NAME or NAME(key=value, ...), separated by commas\n")


# the modules whose command lines (or tables) take a robot list: each splits it by the one
# splitter
TAKERS = ("mariash_env/arena.py", "mariash_env/research/dataset.py",
          "mariash_env/research/ladder.py", "mariash_env/research/best_response.py",
          "mariash_env/play/session.py", "mariash_env/single_agent.py")
ROBOTISH = ("robot", "opponent", "spec")


def _sources() -> list[Path]:
    return sorted(p for d in ("mariash_env", "training") for p in (ROOT / d).rglob("*.py"))


def test_every_robot_list_is_split_by_the_one_splitter():
    """No module but the splitter's counts parentheses or splits a robot list on every
    comma (``.split(",")`` of a name that says robot, opponent or spec), and each module
    that takes a robot list calls :func:`split_robot_specs` (the arena's private
    ``_split`` it had, copied into best_response, is gone)."""
    home = ROOT / "mariash_env/robots/__init__.py"
    bad = []
    for path in _sources():
        src = path.read_text(encoding="utf-8")
        tree = ast.parse(src)
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and path != home and any(
                    isinstance(c, ast.Constant) and c.value in ("(", ")")
                    for c in [node.left, *node.comparators]) and not any(
                    isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: compares with a "
                           "parenthesis (a robot list's own split?)")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "split" and node.args and \
                    isinstance(node.args[0], ast.Constant) and \
                    str(node.args[0].value).strip() == ",":
                target = ast.get_source_segment(src, node.func.value) or ""
                if any(w in target.lower() for w in ROBOTISH):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {target}.split(',')")
            if isinstance(node, ast.FunctionDef) and node.name == "_split" and \
                    path.name == "arena.py" and tree.body.count(node):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: arena._split")
    assert not bad, "\n".join(bad)
    for rel in TAKERS:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        called = {n.func.id for n in ast.walk(tree)
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert "split_robot_specs" in called, f"{rel} takes a robot list: it splits it " \
                                              "by split_robot_specs"
