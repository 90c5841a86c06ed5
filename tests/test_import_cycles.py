"""No import cycles in ``mariash_env``, ``training`` or ``scripts``.

Every module is read statically (``ast``): each ``import``/``from ... import`` anywhere in
it, deferred imports inside functions included (they only hide a cycle), relative
imports resolved, ``if TYPE_CHECKING:`` blocks left out (never executed).  An edge
``a -> b`` means module ``a`` imports module ``b`` of these packages (``from p import x``
is an edge to ``p.x`` when that is a module, else to ``p``).  Any strongly connected
component of more than one module is a cycle and fails the test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mariash_env", "training", "scripts")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` under the packages."""
    out = {}
    for pkg in PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    out: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for sub in child.orelse:
                    walk(sub)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append(child)
            walk(child)

    walk(tree)
    return out


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``modules`` that module ``name`` (file ``path``) imports."""
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    found: set[str] = set()

    def add(mod: str) -> None:
        # the longest known module prefix: ``import a.b.c`` with ``a.b.c`` a module
        parts = mod.split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()
        if parts:
            found.add(".".join(parts))

    for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.name)
            continue
        if node.level:
            base = here[: len(here) - (node.level - 1)]
            if node.level - 1 > len(here):
                raise AssertionError(f"{path}: relative import beyond the top package")
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        for a in node.names:
            sub = f"{target}.{a.name}"
            if sub in modules:
                found.add(sub)
            else:
                add(target)
    found.discard(name)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = module_files(root)
    return {n: imports_of(n, p, modules) for n, p in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_deferred_cycle(tmp_path):
    """The walker sees relative and deferred imports (a cycle hidden in a function)."""
    pkg = tmp_path / "training"
    (pkg / "methods").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "config.py").write_text("def f():\n    from .methods import dmc\n")
    (pkg / "methods" / "__init__.py").write_text("")
    (pkg / "methods" / "dmc.py").write_text("from ..config import opt\n")
    (pkg / "other.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import config\n")
    for p in ("mariash_env", "scripts"):
        (tmp_path / p).mkdir()
    graph = import_graph(tmp_path)
    assert graph["training.methods.dmc"] == {"training.config"}
    assert graph["training.other"] == set()
    assert cycles(graph) == [["training.config", "training.methods.dmc"]]


def test_no_import_cycles():
    graph = import_graph()
    assert len(graph) > 40 and "training.trainer" in graph
    found = cycles(graph)
    assert not found, "import cycles (each line one cycle):\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_every_table_robot_imports_first():
    """A package's ``__init__`` runs before any of its modules, which the static graph
    above does not see: each game's table robot imports ``robots.base``, whose package
    imports the table robots.  Importing the robot's module first, in a fresh
    interpreter, must work (it failed with a partially initialised module)."""
    import subprocess
    import sys

    from mariash_env.games.registry import games

    for kind in games():
        module = kind.table_robot.partition(":")[0]
        r = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"import {module}: {r.stderr[-800:]}"


def _alias(path: Path) -> bool:
    """An old module path kept as a one-line alias of the moved module (docs/design.md)."""
    return "sys.modules[__name__] = _moved" in path.read_text()


def test_shared_layers_import_no_game():
    """docs/design.md, "Who may import whom": the shared compiled layers (``core/*``) and
    the card and rule vocabulary import no game's package; only the compiled dispatch
    (``core/engine``) and the old paths' aliases do (issue #30)."""
    modules = module_files()
    graph = import_graph()
    shared = [m for m in modules if m.startswith("mariash_env.core.")
              or m in ("mariash_env.cards", "mariash_env.rules")]
    assert "mariash_env.core.deal" in shared and "mariash_env.core.play" in shared
    bad = {m: sorted(d for d in graph[m] if d.startswith("mariash_env.games.")
                     and d != "mariash_env.games.base")  # GameKind's type: names no game
           for m in shared if m != "mariash_env.core.engine" and not _alias(modules[m])}
    bad = {m: d for m, d in bad.items() if d}
    assert not bad, f"shared layers importing a game: {bad}"


def test_layer_check_sees_a_game_import(tmp_path):
    """The layer check above reads a shared module's import of a game (not vacuous)."""
    core = tmp_path / "mariash_env" / "core"
    games = tmp_path / "mariash_env" / "games" / "voleny"
    core.mkdir(parents=True)
    games.mkdir(parents=True)
    for d in (tmp_path / "mariash_env", core, games.parent, games):
        (d / "__init__.py").write_text("")
    (games / "four.py").write_text("")
    (core / "flow.py").write_text("from ..games.voleny.four import book4\n")
    for p in ("training", "scripts"):
        (tmp_path / p).mkdir()
    graph = import_graph(tmp_path)
    assert graph["mariash_env.core.flow"] == {"mariash_env.games.voleny.four"}


def test_docstrings_and_strings_name_the_moved_modules_not_their_old_paths():
    """A docstring of the packages names the module that holds the code (under games/),
    not an old path kept as an alias (``core.observe``, ``core/settle.py``): vector.py
    cited ``core.observe.encode``, ``core.observe4`` and ``core/settle.py``, two others
    ``core.licit_games`` and ``core/settle.py``.  So does every other string: the layout
    checks of the observations named ``core/observe.py``, ``core/observe4.py`` and
    ``core/licit_observe.py`` as where their offsets disagree."""
    modules = module_files()
    old = sorted(m.rpartition(".")[2] for m, p in modules.items()
                 if m.startswith("mariash_env.core.") and _alias(p))
    assert {"observe", "observe4", "settle", "licit_games"} <= set(old), old
    cited = re.compile(r"\bcore[./](?:" + "|".join(old) + r")\b")
    bad = []
    for m, path in modules.items():  # training's and the scripts' too
        if _alias(path):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):  # docstrings too
                bad += [f"{m} line {node.lineno}: {hit}" for hit in cited.findall(node.value)]
    assert not bad, bad
