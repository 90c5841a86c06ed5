"""Links of the pages the documentation site does not build: the README (the front door),
the model cards and training/'s pages.  Each relative link names a file of the checkout,
and an anchor one of the target page's headings as the site slugs them (markdown's toc,
the site's own extension) -- ``mkdocs build --strict`` checks docs/ alone."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import markdown
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "models").glob("*.md")),
         *sorted((ROOT / "training").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@functools.cache
def _anchors(page: Path) -> frozenset[str]:
    text = page.read_text(encoding="utf-8")
    md = markdown.Markdown(extensions=["toc", "attr_list", "tables"])
    md.convert(text)
    out: set[str] = set()
    todo = list(md.toc_tokens)
    while todo:
        token = todo.pop()
        out.add(token["id"])
        todo += token["children"]
    return frozenset(out | set(re.findall(r"\{#([\w-]+)", text)))


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_links_resolve(page: Path):
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    bad = []
    for url in LINK.findall(text):
        if re.match(r"[a-z]+:", url):  # http(s), mailto
            continue
        path, _, anchor = url.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            bad.append(f"{url}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            bad.append(f"{url}: no heading #{anchor} in {target.relative_to(ROOT)}")
    assert not bad, bad
