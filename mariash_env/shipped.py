"""Where the shipped models are: the one locator of ``models/<name>``.

The exported robots and their model cards live in ``models/`` of the repository checkout
(``models/robot.onnx`` in docs, configs and commands). The wheel installs the same files
as the package data ``mariash_env/models`` (``pyproject.toml``), so no top-level
``models`` package is installed. :func:`shipped_model` finds a file in whichever of the
two this package was imported from, and :func:`locate` lets a path written
``models/FILE`` (the docs' commands, the ladder's roster) name the shipped file from any
working directory.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["ShippedModelError", "locate", "models_dir", "shipped_model", "shipped_models",
           "shipped_hint", "shipped_of"]


class ShippedModelError(FileNotFoundError):
    """A shipped model was asked for that is not shipped, or the models are missing."""


def models_dir() -> Path:
    """The folder of the shipped models: the installed package's ``mariash_env/models``,
    else ``models/`` of the repository checkout this package lies in."""
    installed = resources.files(__package__) / "models"
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    root = Path(__file__).resolve().parents[1]
    # pyproject.toml marks a checkout: beside an installed package, models/ would be
    # another distribution's
    if (root / "models").is_dir() and (root / "pyproject.toml").is_file():
        return root / "models"
    raise ShippedModelError(f"no shipped models: expected {installed} (an installed wheel) "
                            f"or {root / 'models'} (a repository checkout)")


def shipped_models() -> list[str]:
    """The file names of the shipped models and model cards, sorted."""
    return sorted(p.name for p in models_dir().iterdir()
                  if p.is_file() and p.suffix in (".onnx", ".md"))


def shipped_model(name: str) -> Path:
    """The path of the shipped file ``name`` (``"robot.onnx"``, ``"ROBOT.md"``: a file name,
    not a path); :class:`ShippedModelError` naming the shipped ones when it is not one."""
    if not isinstance(name, str) or not name or Path(name).name != name:
        raise ShippedModelError(f"bad shipped model name {name!r}: expected a file name "
                                "such as 'robot.onnx'")
    path = models_dir() / name
    if not path.is_file():
        raise ShippedModelError(f"no shipped model {name!r} in {path.parent}: expected one "
                                f"of {', '.join(shipped_models())}")
    return path


def shipped_of(path: str | Path) -> Path | None:
    """The shipped file a path written ``models/FILE`` names (ShippedModelError when
    ``FILE`` is not shipped); None for any other path.  A game kind's ``net`` and
    ``strong`` name their networks so."""
    p = Path(path)
    return shipped_model(p.name) if _names_shipped(p) else None


def locate(path: str | Path) -> Path:
    """``path`` where it is a file; else, for a relative ``models/FILE`` whose ``FILE`` is
    shipped, the shipped file (so ``onnx:models/robot.onnx`` plays outside a checkout);
    else ``path`` unchanged, for the caller to report missing."""
    p = Path(path)
    if p.is_file():
        return p
    try:
        return shipped_of(p) or p
    except ShippedModelError:
        return p


def shipped_hint(path: str | Path) -> str:
    """For an error about a missing ``models/FILE``: the shipped ONNX models, else ""."""
    if not _names_shipped(Path(path)):
        return ""
    try:
        names = [n for n in shipped_models() if n.endswith(".onnx")]
    except ShippedModelError as e:
        return f" ({e})"
    return f", nor a shipped model of that name (shipped: {', '.join(names)})"


def _names_shipped(p: Path) -> bool:
    """``p`` is written ``models/FILE``, as the docs name a shipped model."""
    return not p.is_absolute() and len(p.parts) == 2 and p.parts[0] == "models"
