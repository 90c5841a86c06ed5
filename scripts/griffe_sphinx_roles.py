"""Griffe extension of the API reference (``mkdocs.yml``): the Sphinx roles of the
docstrings rendered as Markdown.

The docstrings cross-reference with Sphinx roles (``:class:`~mariash_env.game.Game```,
``:func:`knowledge```, ``:mod:`.engine```), which Markdown would show as raw text.  Once
griffe has loaded a package, every role in its docstrings becomes an *optional* autorefs
cross-reference: a link where the site documents the target, plain inline code where it
does not (the build does not fail on those).  The target is resolved as Sphinx would:
an absolute dotted path as is, a name in the scope of the object the docstring belongs
to (its members, then its parents'), ``.name`` relative to its module or a parent
package.  The title is the text, its last component with ``~``, ``Title <target>`` its
own; ``!target`` is never linked.  Option ``moved`` maps a module path that names another
module at run time (``sys.modules`` aliasing, which griffe cannot see) to that module's.

    python scripts/griffe_sphinx_roles.py ":class:`~mariash_env.game.Game`"   # try it
"""

from __future__ import annotations

import html
import re
import sys
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|data|mod|exc|obj|const|ref):`([^`]+)`")
TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$")


def _exists(collection: Any, path: str) -> bool:
    try:
        collection.get_member(path)
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return False
    return True


def resolve(obj: griffe.Object | None, name: str, moved: dict[str, str] | None = None) -> str:
    """The dotted path a role's target ``name`` means in the docstring of ``obj``
    (``name`` itself when nothing matches: the reference then stays unlinked)."""
    for old, new in (moved or {}).items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    if obj is None:
        return name
    collection = obj.modules_collection
    if name.startswith("."):  # relative: the object's module, then its parent packages
        rest = name.lstrip(".")
        scope: griffe.Object | None = obj if obj.is_module else obj.module
        while scope is not None:
            if _exists(collection, f"{scope.path}.{rest}"):
                return f"{scope.path}.{rest}"
            scope = scope.parent
        return rest
    if _exists(collection, name):
        return name
    first, _, more = name.partition(".")
    try:
        base = obj.resolve(first)
    except (griffe.NameResolutionError, griffe.AliasResolutionError):
        return name
    return f"{base}.{more}" if more else base


def markdown(text: str, obj: griffe.Object | None = None,
             moved: dict[str, str] | None = None) -> str:
    """One role's text (what is between the backquotes) as an autorefs reference."""
    text = text.strip()
    titled = TITLED.match(text)
    title, target = (titled.group(1), titled.group(2)) if titled else ("", text)
    target = target.strip()
    link = not target.startswith("!")
    target = target.lstrip("!")
    short = target.startswith("~")
    target = target.lstrip("~").removesuffix("()")
    if not title:
        title = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
    code = f"<code>{html.escape(title)}</code>"
    if not link:
        return code
    identifier = html.escape(resolve(obj, target, moved), quote=True)
    return f'<autoref identifier="{identifier}" optional>{code}</autoref>'


def rewrite(docstring: str, obj: griffe.Object | None = None,
            moved: dict[str, str] | None = None) -> str:
    """``docstring`` with every Sphinx role replaced by :func:`markdown`."""
    return ROLE.sub(lambda m: markdown(m.group(1), obj, moved), docstring)


def _objects(obj: griffe.Object):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:  # an alias shows its target's docstring, rewritten there
            yield from _objects(member)  # type: ignore[arg-type]


class SphinxRoles(griffe.Extension):
    """Rewrite the roles of every docstring of a package once it is loaded (its whole
    tree known, so that names resolve)."""

    def __init__(self, moved: dict[str, str] | None = None) -> None:
        super().__init__()
        self.moved = dict(moved or {})

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _objects(pkg):
            if obj.docstring is not None and ":`" in obj.docstring.value:
                obj.docstring.value = rewrite(obj.docstring.value, obj, self.moved)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(rewrite(arg))
