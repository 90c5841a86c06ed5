"""Standard JSON out of the project (mariash_env.jsonio): a non-finite float is written as
null, never as Python's NaN/Infinity tokens (not JSON: JavaScript's JSON.parse refuses
them, jq 1.6 reads null), and read back as the NaN it was; every writer of the project
goes through it."""

from __future__ import annotations

import ast
import functools
import io
import json
import math
import pickle
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


def test_load_and_read_name_the_line_of_the_key_given_twice(tmp_path):
    """``jsonio.load`` (a file object, text or bytes) and ``jsonio.read`` (a path) refuse
    a key given twice as ``loads`` does, and name the line where it is named the second
    time (found by a second parse, only when one is refused); the reader's own value where
    every key is named once."""
    text = '{"a": 1,\n "b": [{"c": 1,\n\n  "c"\n  : 2}],\n "a": 3}'
    path = tmp_path / "twice.json"
    path.write_text(text, encoding="utf-8")
    for read in (lambda: jsonio.load(io.StringIO(text)),
                 lambda: jsonio.load(io.BytesIO(text.encode("utf-16"))),
                 lambda: jsonio.read(path)):
        with pytest.raises(jsonio.DuplicateKeyError) as e:
            read()
        assert (e.value.key, e.value.line) == ("c", 4)  # the inner object closes first
        assert str(e.value) == "the key 'c' is given twice in one object, the second time " \
                               "on line 4"
    with pytest.raises(jsonio.DuplicateKeyError) as e:
        jsonio.loads(text)  # a request's body: the key, no second parse
    assert e.value.line is None
    good = '{"a": [1, {"c": NaN}],\n "b": "\u00e9"}'
    path.write_text(good, encoding="utf-8")
    assert jsonio.read(path) == json.loads(good) == jsonio.load(io.StringIO(good)) | {}
    deep = '{"x": ' + "[" * 600 + "]" * 600 + ', "x": 1}'  # past the Python scanner's depth
    with pytest.raises(jsonio.DuplicateKeyError) as e:
        jsonio.load(io.StringIO(deep))
    assert e.value.key == "x"
    path.write_bytes(b'{"a": 1,\n "b": "\xff"}')
    with pytest.raises(UnicodeDecodeError) as e:  # the line and byte, not the codec's words
        jsonio.read(path)
    assert str(e.value) == "not UTF-8 text (line 2, byte 8 of the line: b'\\xff'): " \
                           "expected a file encoded in UTF-8"


def test_json_nested_too_deeply_is_each_readers_own_error(tmp_path, capsys):
    """JSON nested past the reader's depth was json's RecursionError, which the readers
    that convert a ValueError into their own error (a damaged file) let through as a
    traceback: a data set's manifest, a pipeline's state, a JSON config, a ladder pair's
    result, a best-response run.  jsonio raises NestingError, a ValueError, and each
    reader its own error (or, for a result it can make again, its warning)."""
    from mariash_env.research import best_response as B
    from mariash_env.research import ladder as L

    deep = "[" * 100_000 + "]" * 100_000
    for text in (deep, '{"a":' * 100_000 + "1" + "}" * 100_000):
        with pytest.raises(jsonio.NestingError, match="^nested too deeply"):
            jsonio.loads(text)
        with pytest.raises(ValueError, match="^nested too deeply"):
            jsonio.load(io.StringIO(text))
    path = tmp_path / "deep.json"
    path.write_text(deep)
    with pytest.raises(jsonio.NestingError):
        jsonio.read(path)

    pair = L.Pair("lizany", "random", "table", 2, 0, 2)
    (pair.folder(tmp_path) / L.PAIR_FILE).parent.mkdir(parents=True)
    (pair.folder(tmp_path) / L.PAIR_FILE).write_text(deep)
    assert L.load_pair(pair, tmp_path) is None  # played again, with a warning
    assert "is damaged (NestingError: nested too deeply" in capsys.readouterr().err
    run = tmp_path / "br"
    run.mkdir()
    (run / "result.json").write_text(deep)
    assert B._saved_result(run / "result.json", B.Settings(robot="table", rules="lizany")) \
        is None
    assert "is damaged (NestingError: nested too deeply" in capsys.readouterr().err

    pytest.importorskip("torch")
    from training.config import ConfigError, load_config

    with pytest.raises(ConfigError, match=f"^{path}: not valid JSON: nested too deeply"):
        load_config(path)


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
# json.dumps calls that write Python's NaN/Infinity tokens on purpose, and one that runs in
# another tree
NOT_STANDARD = {
    ("scripts/fuzz_service.py", "_dumps"),  # bodies the robot service must refuse
    ("scripts/fuzz_table.py", "fuzz_requests"),  # NaN as a browser could send it
    # the worker runs in the older tree the benchmark compares with, which may have no
    # jsonio; its lines are the benchmark's own pipe, of finite numbers
    ("scripts/bench_licit_pimc.py", "_worker"),
}


def _uses(path: Path, modules: tuple[str, ...], names: tuple[str, ...]
          ) -> list[tuple[str, int]]:
    """``(enclosing function, line)`` of each use in ``path`` of a name of ``names`` from a
    module of ``modules``, in any import form: ``m.NAME`` after ``import m`` or ``import m as
    x`` (``x.NAME``), called or not (``default=json.dumps``), and ``from m import NAME`` (``as
    y``) or ``from m import *`` themselves, whatever the name is called by after."""
    tree = _tree(path)
    bound = set()  # the names a module of ``modules`` is bound to in the file
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname is None and a.name.split(".")[0] in modules:
                    bound.add(a.name.split(".")[0])  # import json(.decoder): json
                elif a.name in modules:
                    bound.add(a.asname)
    found = []

    def walk(node: ast.AST, fn: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = (child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                    else fn)
            if (isinstance(child, ast.Attribute) and child.attr in names
                    and isinstance(child.value, ast.Name) and child.value.id in bound):
                found.append((fn, child.lineno))
            elif (isinstance(child, ast.ImportFrom) and child.level == 0
                  and child.module in modules
                  and any(a.name in names or a.name == "*" for a in child.names)):
                found.append((fn, child.lineno))
            walk(child, name)

    walk(tree, "")
    return found


def _json_calls(path: Path, names: tuple[str, ...] = ("dump", "dumps")
                ) -> list[tuple[str, int]]:
    """``(enclosing function, line)`` of each use of ``json.NAME`` for ``names`` in
    ``path`` (the writers by default), in any import form (:func:`_uses`)."""
    return _uses(path, ("json",), names)


def test_the_ast_checks_see_every_import_form(tmp_path):
    """The checks that keep json.load(s)/dump(s), tomllib and ast.literal_eval inside
    their helpers looked for ``json.NAME(...)`` and ``tomllib.NAME(...)`` calls only:
    ``from json import loads``, ``from json import load as x``, ``import json as j`` (and
    ``j.dumps``), ``from tomllib import loads``, ``import tomllib as t`` and a function
    passed uncalled (``default=json.dumps``) went through unseen."""
    src = tmp_path / "forms.py"
    src.write_text(
        "import json as j\n"                                  # 1
        "import json.decoder\n"                               # 2
        "from json import loads\n"                            # 3
        "from json import load as x, JSONDecodeError\n"       # 4
        "from json import *\n"                                # 5
        "from json import JSONDecodeError as E\n"             # 6: no reader
        "import tomllib as t, tomli\n"                        # 7
        "from tomllib import loads as tl\n"                   # 8
        "from ast import literal_eval as le\n"                # 9
        "import ast as a\n"                                   # 10
        "def f(s):\n"                                         # 11
        "    j.loads(s); x(s); loads(s); json.load(s)\n"      # 12
        "    return j.dumps(s), sorted(s, key=j.dumps)\n"     # 13
        "def g(s):\n"                                         # 14
        "    t.loads(s); tomli.load(s); a.literal_eval(s)\n"  # 15
        "    json.dumps(s); j.JSONDecodeError\n",             # 16
        encoding="utf-8")
    assert _json_calls(src, ("load", "loads")) == \
        [("", 3), ("", 4), ("", 5), ("f", 12), ("f", 12)]
    assert _json_calls(src) == [("", 5), ("f", 13), ("f", 13), ("g", 16)]
    assert _tomllib_uses(src) == [("", 8), ("g", 15), ("g", 15)]
    assert _literal_evals(src) == [9, 15]


@functools.cache
def _tree(path: Path) -> ast.AST:
    """``path`` parsed, once for the writers' and the readers' test."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _sources(but: str) -> list[tuple[str, Path]]:
    """``(path from the root, path)`` of every Python file of mariash_env, training and
    scripts but ``but`` (the helper module whose own calls the AST tests allow)."""
    return [(f.relative_to(ROOT).as_posix(), f) for pkg in ("mariash_env", "training", "scripts")
            for f in sorted((ROOT / pkg).rglob("*.py")) if f.relative_to(ROOT).as_posix() != but]


def test_every_writer_of_the_project_writes_standard_json():
    """No json.dump/json.dumps in mariash_env, training or scripts but jsonio's own, the
    texts that are not written (:data:`NOT_WRITTEN`) and the fuzzers' non-standard bodies
    (:data:`NOT_STANDARD`): a file, an answer, a pipe or a print of JSON goes through
    jsonio (the scripts' were json.dumps: a summary, a benchmark's pipe and request)."""
    stray = []
    for rel, f in _sources(but="mariash_env/jsonio.py"):
        stray += [f"{rel}:{line} ({fn})" for fn, line in _json_calls(f)
                  if (rel, fn) not in NOT_WRITTEN | NOT_STANDARD]
    assert stray == []


# json.load/json.loads calls that read no file of the project, each with why
NOT_READ = {
    # the worker runs in the older tree the benchmark compares with, which may have no
    # jsonio; its lines are the benchmark's own pipe
    ("scripts/bench_licit_pimc.py", "_worker"),
}


def test_every_reader_of_the_project_refuses_a_key_given_twice():
    """No json.load/json.loads in mariash_env, training or scripts but jsonio's own: a
    game record, a session, a manifest, a pipeline state, a model's metadata or a script's
    pipe that names a key twice is refused through jsonio (DuplicateKeyError), not read as
    its last value, silently."""
    stray = []
    for rel, f in _sources(but="mariash_env/jsonio.py"):
        stray += [f"{rel}:{line} ({fn})" for fn, line in _json_calls(f, ("load", "loads"))
                  if (rel, fn) not in NOT_READ]
    assert stray == []


def test_the_other_readers_refuse_a_key_given_twice(tmp_path):
    """A JSON config, a model's metadata, a --rule value and a resumed endgame check that
    name a key twice (junk first, the intended value last) were read as the last value,
    silently; each is now the reader's own error naming the file (or option) and the key."""
    from mariash_env.arena import parse_rule_options

    with pytest.raises(ValueError, match=r"invalid --rule 'x=\{\"a\": true, \"a\": false\}': "
                                         "the key 'a' is given twice in one object"):
        parse_rule_options(None, ['x={"a": true, "a": false}'])
    assert parse_rule_options(None, ['x={"a": true}', "y=text"]) == {"x": {"a": True},
                                                                      "y": "text"}

    pytest.importorskip("torch")
    from training import best_response as tbr
    from training.config import ConfigError, load_config

    cfg = tmp_path / "c.json"
    cfg.write_text('{"seed": 1,\n "seed": 2}')
    with pytest.raises(ConfigError, match=f"{cfg}: the key 'seed' is given twice in one "
                                          "object, the second time on line 2: expected each "
                                          "key once"):
        load_config(cfg)
    cfg.write_text('{"seed": 2}')
    assert load_config(cfg).seed == 2
    check = tmp_path / "check.json"
    check.write_text('{"exact_gain": null, "exact_gain": [0.1, 0.2, 0.3]}')
    with pytest.raises(ValueError, match=f"{check} is damaged \\(the key 'exact_gain' is given "
                                         "twice in one object, the second time on line 1\\): "
                                         "remove it"):
        tbr._saved(check)

    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from mariash_env.robots.onnx_robot import OnnxRobot, OnnxRobotError

    model = onnx.load(str(ROOT / "models" / "robot.onnx"))
    meta = {p.key: p for p in model.metadata_props}
    meta["mariash_rules"].value = '{"deals": 1, ' + meta["mariash_rules"].value[1:]
    path = tmp_path / "twice.onnx"
    onnx.save(model, str(path))
    with pytest.raises(OnnxRobotError, match=f"{path}: its metadata mariash_rules is not JSON "
                                             "we read \\(the key 'deals' is given twice"):
        OnnxRobot(path)


def _tomllib_uses(path: Path) -> list[tuple[str, int]]:
    """Each use of tomllib's (or tomli's) readers in ``path`` (:func:`_uses`)."""
    return _uses(path, ("tomllib", "tomli"), ("load", "loads"))


def _literal_evals(path: Path) -> list[int]:
    """The lines of ``path`` that name ``literal_eval``: an attribute of anything
    (``ast.literal_eval``, ``a.literal_eval`` after ``import ast as a``), an import of it
    (``from ast import literal_eval as le``), or ``from ast import *``."""
    return sorted({node.lineno for node in ast.walk(_tree(path))
                   if isinstance(node, ast.Attribute) and node.attr == "literal_eval"
                   or isinstance(node, ast.ImportFrom) and node.module == "ast"
                   and any(a.name in ("literal_eval", "*") for a in node.names)})


def test_every_toml_reader_goes_through_tomlio():
    """No tomllib (or tomli) call in mariash_env, training or scripts but tomlio's own: a
    config, a recipe or a stage's config nested past the reader's depth was tomllib's
    RecursionError, a traceback out of readers that give their own error for TOML that is
    not valid (tomlio: NestingError, a ValueError)."""
    stray = []
    for rel, f in _sources(but="mariash_env/tomlio.py"):
        stray += [f"{rel}:{line}" for _, line in _tomllib_uses(f)]
    assert stray == []
    from mariash_env import tomlio

    with pytest.raises(jsonio.NestingError, match="^nested too deeply") as e:
        tomlio.loads("a = " + "[" * 100_000 + "]" * 100_000)
    assert str(pickle.loads(pickle.dumps(e.value))) == str(e.value)  # a worker's, sent back
    assert tomlio.loads("a = [[1], {b = 2}]") == {"a": [[1], {"b": 2}]}


def test_every_python_literal_goes_through_jsonio():
    """No ast.literal_eval in mariash_env, training or scripts but jsonio's own
    (:func:`mariash_env.jsonio.literal`): a robot spec's argument that is a dict giving a key
    twice was read as its last value, silently, where the arena's --rule refused it."""
    stray = []
    for rel, f in _sources(but="mariash_env/jsonio.py"):
        stray += [f"{rel}:{line}" for line in _literal_evals(f)]
    assert stray == []
    with pytest.raises(jsonio.DuplicateKeyError, match="^the key 'a' is given twice"):
        jsonio.literal("{'a': 1, 'a': 2}")
    with pytest.raises(jsonio.DuplicateKeyError, match="^the key 1.0 is given twice"):
        jsonio.literal(ast.parse("[{1: 2, 1.0: 3}]", mode="eval").body)  # a node too
    assert jsonio.literal(" {'a': (1, 2.5), 'b': None}") == {"a": (1, 2.5), "b": None}


def test_a_byte_order_mark_is_read_as_the_file_without_it(tmp_path):
    """A UTF-8 byte-order mark first (a Windows editor's "UTF-8 with BOM") was an error of
    the parser in a config ("Invalid statement"), a recipe, a JSON file ("Unexpected UTF-8
    BOM") and a CSV (its first column named '\\ufeffgame'), where a game record's reader
    took it: read_text leaves it out, so every reader takes the file as the file without
    it; a byte that is not UTF-8 is counted on its line as an editor shows it."""
    from mariash_env import textfile, tomlio
    from mariash_env.research import best_response as B

    bom = b"\xef\xbb\xbf"
    path = tmp_path / "f"
    path.write_bytes(bom + b'{"a": [1, "\xc5\xa1"]}\r\n')
    assert textfile.read_text(path) == '{"a": [1, "\u0161"]}\n'
    assert jsonio.read(path) == {"a": [1, "\u0161"]}
    path.write_bytes(bom + b'seed = 3\n[run]\nname = "\xc5\xa1"\n')
    assert tomlio.read(path) == {"seed": 3, "run": {"name": "\u0161"}}
    path.write_bytes(bom + b'{"a": "\xff"}')
    with pytest.raises(textfile.NotUtf8Error, match=r"\(line 1, byte 8 of the line: b'\\xff'\)"):
        textfile.read_text(path)
    mid = tmp_path / "mid"
    mid.write_bytes(b"a" + bom)
    assert textfile.read_text(mid) == "a\ufeff"  # only a mark first is one
    table = ROOT / "docs" / "best_response.csv"
    csv = tmp_path / "best_response.csv"
    csv.write_bytes(bom + table.read_bytes())
    assert B.read_table_csv(csv) == B.read_table_csv(table)

    pytest.importorskip("torch")
    from training.config import load_config
    from training.logs import read_csv

    for name, text in (("c.toml", "seed = 5\n[run]\nmax_iterations = 2\n"),
                       ("c.json", '{"seed": 5, "run": {"max_iterations": 2}}')):
        cfg = tmp_path / name
        cfg.write_bytes(bom + text.encode())
        got = load_config(cfg)
        assert (got.seed, got.run.max_iterations) == (5, 2), name
    log = tmp_path / "eval.csv"
    log.write_bytes(bom + b"iteration,opponent\r\n2,random\r\n")
    assert read_csv(log) == [{"iteration": "2", "opponent": "random"}]


def test_a_byte_order_mark_is_left_out_of_a_text_stream_too(tmp_path):
    """``jsonio.load`` of a file opened as text (``open(path)``) whose text starts with
    U+FEFF refused it ("Unexpected UTF-8 BOM"), where ``jsonio.read``, ``read_text``, the
    record reader and ``load`` of the same file opened as binary leave the mark out: the
    ladder's record (gzip opened as text) and the scripts' files (plot_matches' CSVs,
    mutate_rules' results) are read without it too."""
    import gzip

    from mariash_env.research import ladder
    from scripts import plot_matches

    bom = b"\xef\xbb\xbf"
    path = tmp_path / "f.json"
    path.write_bytes(bom + b'{"a": [1, "\xc5\xa1"],\n "b": 2}')
    text = {"r": {"encoding": "utf-8"}, "rb": {}}
    for mode in text:
        with open(path, mode, **text[mode]) as f:
            assert jsonio.load(f) == {"a": [1, "\u0161"], "b": 2}, mode
    assert jsonio.read(path) == {"a": [1, "\u0161"], "b": 2}
    path.write_bytes(bom + b'{"a": 1,\n "a": 2}')
    for mode in text:
        with open(path, mode, **text[mode]) as f, pytest.raises(jsonio.DuplicateKeyError,
                                                  match="the second time on line 2$"):
            jsonio.load(f)
    assert jsonio.load(io.StringIO("\ufeff[]")) == []
    with pytest.raises(json.JSONDecodeError):  # a mark is left out only where it is first
        jsonio.load(io.StringIO(" \ufeff[]"))

    shipped = ROOT / "docs" / "ladder_deals.json.gz"
    rec = tmp_path / "deals.json.gz"
    rec.write_bytes(gzip.compress(bom + gzip.decompress(shipped.read_bytes())))
    assert ladder.read_record(rec) == ladder.read_record(shipped)

    table = tmp_path / "matches.csv"
    table.write_bytes(bom + (ROOT / "docs" / "robot_matches.csv").read_bytes())
    assert plot_matches.read_table(table) == \
        plot_matches.read_table(ROOT / "docs" / "robot_matches.csv")
    table.write_bytes((ROOT / "docs" / "robot_matches.csv").read_bytes() + b"\xff")
    with pytest.raises(ValueError, match=f"^{table}: not UTF-8 text"):
        plot_matches.read_table(table)

    from scripts import mutate_rules

    results = tmp_path / "mutants.json"
    results.write_bytes(bom + b'{"mutants": [{"id": "none such", "status": "survived"}]}')
    assert mutate_rules.main(["--group", "core", "--rerun", str(results), "--skip-done",
                              str(results), "--list"]) == 0


def test_every_position_in_a_readers_error_counts_from_1(tmp_path):
    """One convention for the place an error names: the line and the byte in the line,
    both from 1, as editors, compilers (file:line:column) and Python's json and tomllib
    count them.  The game records' reader counted the byte from 0 (the codec's index) where
    read_text counted it from 1, and on a first line that starts with a byte-order mark it
    showed the mark's byte (b'\\xbf') for the bad one; the ladder's record and a request
    body gave the codec's "in position N", from 0 in the bytes decoded."""
    import gzip

    from mariash_env import textfile
    from mariash_env.records import read_records
    from mariash_env.research import ladder

    text = b'\xef\xbb\xbf{"a": 1}\n{"b": "\xff"}\n'  # the byte 0xff: line 2, byte 8
    path = tmp_path / "r.jsonl"
    path.write_bytes(text)
    with pytest.raises(textfile.NotUtf8Error) as e:
        textfile.read_text(path)
    assert (e.value.line, e.value.column) == (2, 8)
    assert "(line 2, byte 8 of the line: b'\\xff')" in str(e.value)
    assert [str(r) for _, r in read_records(path)] == \
        ["{'a': 1}", "not UTF-8 text (byte 8 of the line: b'\\xff')"]
    path.write_bytes(b'\xef\xbb\xbf{"b": "\xff"}\n')  # the first line, after the mark
    assert [str(r) for _, r in read_records(path)] == \
        ["not UTF-8 text (byte 8 of the line: b'\\xff')"]

    with pytest.raises(textfile.NotUtf8Error) as e:  # a body: the same, as text
        jsonio.loads(b'{"a": 1,\n "b": "\xff"}')
    assert str(e.value) == "not UTF-8 text (line 2, byte 8 of the line: b'\\xff'): " \
                           "expected text encoded in UTF-8"
    assert isinstance(e.value, ValueError) and e.value.start == 16  # the codec's index
    with pytest.raises(json.JSONDecodeError, match="line 2 column 6"):  # json's: from 1
        jsonio.loads('{"a": 1,\n "b" 2}')
    with pytest.raises(UnicodeDecodeError, match="utf-16"):  # another encoding: its own
        jsonio.loads(b'\x00[\x00\x00\xd8')

    rec = tmp_path / "deals.json.gz"
    rec.write_bytes(gzip.compress(b'{"format":\n "\xe9"}'))
    with pytest.raises(ladder.LadderError, match=r"not UTF-8 text \(line 2, byte 3 of the "
                                                 r"line: b'\\xe9'\)"):
        ladder.read_record(rec)


def test_a_bad_byte_is_on_the_line_its_reader_counts(tmp_path):
    """NotUtf8Error counted lines at ``\\n`` only: a file with bare ``\\r`` line ends (an
    old Mac's, a spreadsheet's CSV) was bad on line 1 wherever the byte was.  Its line is
    now the one its reader counts: read_text's readers split at ``\\r\\n``, ``\\r`` and
    ``\\n`` (a TOML file's error line, the csv module's line_num), a request body's
    ``json`` at ``\\n`` only."""
    from mariash_env import textfile, tomlio
    from training.logs import WHOLE, LogError, read_log

    for end in (b"\r", b"\r\n", b"\n"):
        path = tmp_path / "c.toml"
        path.write_bytes(end.join([b"a = 1", b"b = 2", b"c = '\xff'", b""]))
        with pytest.raises(textfile.NotUtf8Error) as e:
            tomlio.read(path)
        assert (e.value.line, e.value.column) == (3, 6), end
        path.write_bytes(end.join([b"a = 1", b"b = 2", b"c = ?", b""]))
        with pytest.raises(ValueError, match=r"at line 3, column 5"):  # tomllib's own count
            tomlio.read(path)
        log = tmp_path / "eval.csv"  # the csv module's line_num, the byte's line: the same
        log.write_bytes(end.join([b"decisions,opponent", b"1,a", b"x,b", b""]))
        with pytest.raises(LogError, match=r"eval.csv: line 3, column 'decisions': 'x'"):
            read_log(log, {"decisions": WHOLE})
        log.write_bytes(end.join([b"decisions,opponent", b"1,a", b"2,b,c", b""]))
        for columns in ({"decisions": WHOLE}, {}):  # a cell too many: read_csv's too
            with pytest.raises(LogError, match=r"eval.csv: line 3: 3 cells, the header has "
                                               r"2 columns: expected at most 2$"):
                read_log(log, columns)
        log.write_bytes(end.join([b"decisions,opponent", b"1,a", b"2,\xe9", b""]))
        with pytest.raises(LogError, match=r"eval.csv: not UTF-8 text \(line 3, byte 3 of "):
            read_log(log, {"decisions": WHOLE})
    for data, line, column in ((b"x\r\ny\rz\n\r\n\xe9", 5, 1), (b"ab\rcd\xff", 2, 3),
                               (b"\xef\xbb\xbfab\rcd\xff", 2, 3), (b"a\r\xff", 2, 1)):
        for newline in (None, ""):
            with pytest.raises(textfile.NotUtf8Error) as e:
                textfile.decode_text(data, newline=newline)
            assert (e.value.line, e.value.column) == (line, column), data
    with pytest.raises(textfile.NotUtf8Error) as e:  # a body: json's own count, \n only
        jsonio.loads(b'{"a": 1,\r "b": "\xff"}')
    assert (e.value.line, e.value.column) == (1, 17)
    with pytest.raises(json.JSONDecodeError, match="line 1 column 15"):
        jsonio.loads('{"a": 1,\r "b" 2}')


def test_a_quoted_csv_field_is_read_back_as_written(tmp_path):
    """A quoted field holding a line end (``\\r\\n``, ``\\r``, ``\\n``) written by the
    project's CSV writers came back with ``\\r\\n`` and ``\\r`` as ``\\n``: the readers
    read the file with read_text's line ends folded, where the ``csv`` module needs the
    text as written (``newline=""``).  A run's log (CsvLog -> read_csv) and the
    best-response table (write_table -> read_table_csv) round-trip such a field."""
    from mariash_env import textfile
    from mariash_env.research import best_response as B

    path = tmp_path / "t.txt"
    path.write_bytes(b"\xef\xbb\xbfa\r\nb\rc\n")
    assert textfile.read_text(path) == "a\nb\nc\n"
    assert textfile.read_text(path, newline="") == "a\r\nb\rc\n"
    with pytest.raises(ValueError, match=r"newline='\\n': expected None"):
        textfile.read_text(path, newline="\n")

    rows = B.read_table_csv(ROOT / "docs" / "best_response.csv")
    rows[0]["roles"] = "actor +1.00;\r\ndefender\r+0.50\nno game +0.00"
    B.write_table(rows, tmp_path / "br", "mariash best-response --table", plot=False)
    assert B.read_table_csv(tmp_path / "br" / "best_response.csv") == rows

    pytest.importorskip("torch")
    from training.logs import CsvLog, read_csv

    log = tmp_path / "eval.csv"
    fields = ["iteration", "opponent", "note"]
    written = [{"iteration": "1", "opponent": "x\r\ny", "note": "p\rq"},
               {"iteration": "2", "opponent": "1\n2", "note": 'a "quoted", text'}]
    w = CsvLog(log, fields)
    for row in written:
        w.write(row)
    w.close()
    assert read_csv(log) == written
    CsvLog(log, fields, keep_until=1).close()  # --resume's rewrite reads and writes it
    assert read_csv(log) == written[:1]


def test_the_readers_errors_pickle_as_they_were(tmp_path):
    """A reader's error sent back from a worker process (a pickled copy) says what it said:
    DuplicateKeyError's copy was built from its message as the key ("the key "the key 'a'
    is given twice ..."..." is given twice", its line lost) and NotUtf8Error's could not be
    built at all (a TypeError unpickling it, which a process pool's result thread does not
    survive); NestingError's already was."""
    from mariash_env.textfile import NotUtf8Error, read_text

    path = tmp_path / "twice.json"
    path.write_text('{"a": 1,\n "a": 2}', encoding="utf-8")
    path2 = tmp_path / "latin1.txt"
    path2.write_bytes(b"ok\nd\xe9j\xe0\n")
    for read, kind in ((lambda: jsonio.read(path), jsonio.DuplicateKeyError),
                       (lambda: jsonio.loads('{"b": 1, "b": 1}'), jsonio.DuplicateKeyError),
                       (lambda: read_text(path2), NotUtf8Error),
                       (lambda: jsonio.loads("[" * 100_000), jsonio.NestingError)):
        with pytest.raises(kind) as e:
            read()
        copy = pickle.loads(pickle.dumps(e.value))
        assert type(copy) is kind and str(copy) == str(e.value)
        assert {k: getattr(copy, k) for k in ("key", "line", "column", "start", "end")
                if hasattr(e.value, k)} == \
            {k: getattr(e.value, k) for k in ("key", "line", "column", "start", "end")
             if hasattr(e.value, k)}
