"""The API reference's griffe extension (scripts/griffe_sphinx_roles.py): Sphinx roles
in docstrings become optional autorefs references, resolved in the docstring's scope."""

from __future__ import annotations

from pathlib import Path

import griffe

from scripts.griffe_sphinx_roles import SphinxRoles, rewrite

ROOT = Path(__file__).resolve().parents[1]


def ref(identifier: str, title: str) -> str:
    return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'


def test_titles() -> None:
    assert rewrite(":class:`~a.b.C` x") == ref("a.b.C", "C") + " x"
    assert rewrite(":func:`a.f()`") == ref("a.f", "a.f")
    assert rewrite(":meth:`the step <a.E.step>`") == ref("a.E.step", "the step")
    assert rewrite(":data:`!NOT_LINKED`") == "<code>NOT_LINKED</code>"
    assert rewrite("``:class:`` alone, no role") == "``:class:`` alone, no role"


def test_names_resolve_in_scope() -> None:
    pkg = griffe.load("mariash_env", search_paths=[str(ROOT)],
                      extensions=griffe.load_extensions(SphinxRoles))
    doc = pkg["search"].docstring.value
    assert ":func:`" not in doc and ":mod:`" not in doc
    # a name in the module's scope: the imported function's own path
    assert rewrite(":func:`sample_worlds`", pkg["search"]) == ref(
        "mariash_env.games.voleny.worlds.sample_worlds", "sample_worlds")
    # relative to the module, then its parent packages
    assert rewrite(":mod:`.engine`", pkg["core.deal"]) == ref("mariash_env.core.engine", "engine")
    # a method's docstring sees its class's members
    vector_env = pkg["vector.VectorEnv"]
    assert rewrite(":meth:`restore_states`", vector_env["step"]) == ref(
        "mariash_env.vector.VectorEnv.restore_states", "restore_states")


def test_moved_modules() -> None:
    moved = {"mariash_env.lizany": "mariash_env.games.lizany.game"}
    assert rewrite(":func:`mariash_env.lizany.replay`", None, moved) == ref(
        "mariash_env.games.lizany.game.replay", "mariash_env.lizany.replay")
    assert rewrite(":mod:`mariash_env.lizany_arena`", None, moved) == ref(
        "mariash_env.lizany_arena", "mariash_env.lizany_arena")
