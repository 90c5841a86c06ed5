"""The glossary (docs/glossary.md) covers the Czech words of the pages: every word with a
Czech letter on the README, docs/, the training guide and the model cards is one of its
Czech terms or a form of one (a shared stem: *desetníky* of *desetník*, *žaludské* of
*žaludský*), and the game's words written without one (forhont, talon, flek, betl …)
are its terms too.  The play table's page quotes the page's own labels in italics
(*nová partie*, *přeskočit roboty*), each translated where it stands; those are the
message catalogue's (tests/test_play_i18n.py), not the game's words."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "docs" / "glossary.md"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
         ROOT / "training" / "README.md", *sorted((ROOT / "models").glob("*.md"))]
CZECH = "áčďéěíňóřšťúůýž"
WORD = re.compile(rf"[a-z{CZECH}]+", re.I)
# The game's words without a Czech letter, as the pages use them.
PLAIN = ("mariáš forhont forhond talon flek re tutti boty kalhoty betl durch sedma sto "
         "stovka kilo hra barva partie trumf kule renonc").split()


def _terms() -> set[str]:
    """The words of the glossary's Czech column."""
    out: set[str] = set()
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = line.split("|")
        first = cells[1].strip() if len(cells) > 2 else "-"
        if not set(first) <= set("- ") and first != "Czech":  # a row, not the head
            out |= {w.lower() for w in WORD.findall(first)}
    return out


def _a_form_of(word: str, terms: set[str]) -> bool:
    """``word`` is a term, or shares with one a stem of at least four letters that leaves
    at most three of either word's letters (Czech endings: -y, -ého, -ské, -ový)."""
    if word in terms:
        return True
    for term in terms:
        stem = len(os.path.commonprefix([word, term]))
        if stem >= 4 and stem >= max(len(word), len(term)) - 3:
            return True
    return False


def test_every_czech_word_of_the_pages_is_the_glossary_s():
    terms = _terms()
    missing = set()
    for page in PAGES:
        if page == GLOSSARY:
            continue
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
        if page.name == "play.md" and page.parent.name == "docs":
            text = re.sub(r"\*[^*\n]+\*", "", text.replace("**", ""))  # the page's labels
        missing |= {(page.relative_to(ROOT).as_posix(), w) for w in WORD.findall(text)
                    if re.search(f"[{CZECH}]", w.lower()) and not _a_form_of(w.lower(), terms)}
    assert not missing, sorted(missing)


def test_the_game_s_plain_words_are_terms():
    assert not [w for w in PLAIN if w not in _terms()]
