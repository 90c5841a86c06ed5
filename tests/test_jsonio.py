"""Standard JSON out of the project (mariash_env.jsonio): a non-finite float is written as
null, never as Python's NaN/Infinity tokens (not JSON: JavaScript's JSON.parse refuses
them, jq 1.6 reads null), and read back as the NaN it was; every writer of the project
goes through it."""

from __future__ import annotations

import ast
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from mariash_env import jsonio
from tests.helpers import strict_loads

ROOT = Path(__file__).resolve().parent.parent


def test_non_finite_floats_are_written_as_null_and_read_back():
    obj = {"nan": float("nan"), "inf": math.inf, "ninf": -math.inf, "x": 1.5, "n": 3,
           "np": [np.float32("nan"), np.float64(np.inf), np.int64(7), np.float32(0.5),
                  np.array([1.0, np.nan])],
           "nested": ({"ci": [float("nan"), 2.0]}, None, True, "NaN")}
    with pytest.raises(ValueError, match="not JSON: NaN"):
        strict_loads(json.dumps(obj, default=lambda a: a.tolist()))  # what was written
    text = jsonio.dumps(obj, indent=1)
    got = strict_loads(text)
    assert got == {"nan": None, "inf": None, "ninf": None, "x": 1.5, "n": 3,
                   "np": [None, None, 7, 0.5, [1.0, None]],
                   "nested": [{"ci": [None, 2.0]}, None, True, "NaN"]}
    assert got == jsonio.finite(obj) and math.isnan(obj["nan"])  # obj itself unchanged
    f = io.StringIO()
    jsonio.dump(obj, f, indent=1)
    assert f.getvalue() == text
    assert math.isnan(jsonio.number(got["nan"])) and jsonio.number(got["x"]) == 1.5
    assert jsonio.dumps({"a": [1, "b"]}, sort_keys=True) == json.dumps({"a": [1, "b"]})


def test_the_http_answers_are_standard_json():
    """The robot service's and the play table's answers: a non-finite number is null (it
    was a 500: Starlette's rendering refuses it), a lone surrogate escaped as before."""
    pytest.importorskip("starlette")
    from mariash_env.play.service import ErrorSafeJSON
    from mariash_env.play.web import TableJSON

    for cls in (ErrorSafeJSON, TableJSON):
        body = cls({"value": float("nan"), "label": "kule \ud800"}).body
        assert strict_loads(body) == {"value": None, "label": "kule \ud800"}
    assert TableJSON({"label": "žaludy", "x": math.inf}).body == \
        '{"label":"žaludy","x":null}'.encode()


def test_loads_refuses_a_key_given_twice():
    """``jsonio.loads`` is ``json.loads`` refusing an object that names a key twice (the
    standard reader keeps the last value silently), at any depth, with the key."""
    assert jsonio.loads('{"a": [1, {"b": 2}], "c": null}') == {"a": [1, {"b": 2}], "c": None}
    assert jsonio.loads(b'[{"a": 1}, {"a": 2}]') == [{"a": 1}, {"a": 2}]
    for text, key in [('{"a": 1, "a": 1}', "a"), ('[{"x": {"b": 1, "b": 2}}]', "b"),
                      ('{"\\u00e9": 1, "\u00e9": 2}', "\u00e9")]:
        with pytest.raises(jsonio.DuplicateKeyError) as e:
            jsonio.loads(text)
        assert e.value.key == key and isinstance(e.value, ValueError), text
        assert str(e.value) == f"the key {key!r} is given twice in one object"


# json.dumps calls whose text is not written anywhere: hashes and command-line text
NOT_WRITTEN = {
    ("mariash_env/research/dataset.py", "digest"),  # the settings' hash
    ("mariash_env/play/service.py", "decide_record"),  # a record's seed (crc32)
    ("training/config.py", "describe_config"),  # TOML lines of a config's values
    ("training/export.py", "write_card"),  # the rules in the card's markdown
    ("training/pipeline.py", "_train_commands"),  # --set KEY=VALUE of a command
    ("training/pipeline.py", "plan"),  # the plan's lines
    ("training/pipeline.py", "_config_hash"),  # the config's hash
    ("training/pipeline.py", "shown"),  # a value in a message
    ("training/pipeline.py", "_join_ray"),  # an address in a message
}


def _json_writes(path: Path) -> list[tuple[str, int]]:
    """``(enclosing function, line)`` of each ``json.dump``/``json.dumps`` call in ``path``."""
    found = []

    def walk(node: ast.AST, fn: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = (child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                    else fn)
            if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                    and child.func.attr in ("dump", "dumps")
                    and isinstance(child.func.value, ast.Name) and child.func.value.id == "json"):
                found.append((fn, child.lineno))
            walk(child, name)

    walk(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def test_every_writer_of_the_project_writes_standard_json():
    """No json.dump/json.dumps in mariash_env or training but jsonio's own and the texts
    that are not written (:data:`NOT_WRITTEN`): a file, an answer or a print of JSON goes
    through jsonio."""
    stray = []
    for pkg in ("mariash_env", "training"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            rel = f.relative_to(ROOT).as_posix()
            if rel == "mariash_env/jsonio.py":
                continue
            stray += [f"{rel}:{line} ({fn})" for fn, line in _json_writes(f)
                      if (rel, fn) not in NOT_WRITTEN]
    assert stray == []
