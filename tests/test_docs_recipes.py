"""The training guide's list of recipe keys (training/README.md, the site's training guide)
and docs/training.md name every key a recipe stage takes (:data:`training.pipeline.KEYS`)
and every key whose change keeps a finished stage (:data:`training.pipeline.HOW_KEYS`):
the guide's list had fallen behind the recipe checker (``ray_timeout``, ``worlds_from``,
``playout``, ``from_trick``, the gate's ``jobs``/``backend``/``address``)."""

from __future__ import annotations

import re
from pathlib import Path

from training.pipeline import HOW_KEYS, KEYS

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "training" / "README.md"
PAGE = ROOT / "docs" / "training.md"


def _paragraph(text: str, start: str) -> str:
    """The paragraph of ``text`` that begins with ``start``, its lines joined."""
    i = text.index(start)
    end = text.find("\n\n", i)
    return " ".join((text[i:] if end < 0 else text[i:end]).split())


def _parenthesis(text: str, at: int) -> str:
    """The balanced parenthesis that opens at ``text[at]``."""
    depth = 0
    for j in range(at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return text[at + 1:j]
    raise AssertionError(f"unclosed parenthesis at {text[at:at + 40]!r}")


def _named(text: str) -> set[str]:
    return set(re.findall(r"`(\w+)`", text))


def _guide_keys() -> dict[str, set[str]]:
    """Each kind's keys as the guide's "The kinds and their keys" paragraph names them;
    a dagger's "the label keys" and "the train keys" are those kinds' own."""
    para = _paragraph(GUIDE.read_text(encoding="utf-8"), "The kinds and their keys")
    out = {}
    for kind in KEYS:
        m = re.search(rf"`{kind}` \(", para)
        assert m, f"the guide's list of recipe keys names no kind {kind!r}"
        out[kind] = _named(_parenthesis(para, m.end() - 1).split("outputs")[0])
    for kind, alias in (("labels", "the label keys"), ("train", "the train keys")):
        if alias in _parenthesis(para, para.index("`dagger` (") + len("`dagger` ")):
            out["dagger"] |= out[kind]
    return out


def test_the_guide_names_every_key_of_every_stage_kind():
    named = _guide_keys()
    missing = {kind: sorted(set(keys) - named[kind]) for kind, keys in KEYS.items()}
    assert not any(missing.values()), {k: v for k, v in missing.items() if v}


def test_the_keys_that_keep_a_finished_stage_are_named():
    how = {k for keys in HOW_KEYS.values() for k in keys}
    for page in (GUIDE, PAGE):
        text = " ".join(page.read_text(encoding="utf-8").split())
        said = [s for s in re.split(r"(?<=[.;])\s", text) if re.search(r"changed? (of )?only", s)]
        assert said, f"{page.name} does not say which changes keep a finished stage"
        assert how <= _named(" ".join(said)), (page.name, sorted(how - _named(" ".join(said))))


def test_the_guides_layout_names_every_config():
    """The guide's Layout row ``configs/*.toml`` names every config of training/configs/
    (and no config that is not there): it named six of the twenty-three, with nothing to
    say that the licitovaný, lízaný, distillation and deal-label runs had theirs there."""
    row = next(line for line in GUIDE.read_text(encoding="utf-8").splitlines()
               if line.startswith("| `configs/*.toml` |"))
    named = set(re.findall(r"`(\w+\.toml)`", row.split("|")[2]))
    configs = {p.name for p in (ROOT / "training" / "configs").glob("*.toml")}
    assert len(configs) >= 20 and configs - named == set(), sorted(configs - named)
    assert named <= configs, sorted(named - configs)
