"""Packaging (issue #32, item 1: clean packaging).

The wheel adds no top-level import name but ``mariash_env`` (no ``training``, no
``models``), carries the shipped models as ``mariash_env/models``, and installed into a
fresh venv gives the env, the robots and the ``mariash`` commands with the working
directory outside the checkout.  The checkout keeps ``models/`` and ``training``; the one
locator of a shipped model is :func:`mariash_env.shipped.shipped_model`.

The fresh venv sees the dependencies of ``.venv`` through a ``.pth`` file naming a folder
of links to them, without the editable install of the project (its finder, ``.pth`` and
metadata are left out), so the test runs offline.  The installed package's numba cache is
seeded from the checkout's (:func:`_seed_numba_cache`): numba keys a cached kernel by its
source file's content, so the installed copies of the same files load the kernels the
checkout compiled instead of compiling them again (about three minutes on the 2-core
machine); what the checkout has not compiled yet is compiled there.  Compiling cold is
what ``make venv`` (``python -m mariash_env.compile``) and the rest of a fresh clone's
suite do anyway.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

from mariash_env.core.jit import _cache_root, _source_folders, cache_folder, sources_digest
from mariash_env.robots import STRONG, make_robot
from mariash_env.shipped import ShippedModelError, models_dir, shipped_model, shipped_models

ROOT = Path(__file__).resolve().parents[1]
# what a build must not see: environments, caches and build outputs of the checkout
COPY_IGNORE = shutil.ignore_patterns(".venv", ".git", "site", "runs", "build", "dist",
                                     "*.egg-info", "__pycache__", ".hypothesis",
                                     ".ruff_cache", ".pytest_cache", "*.nbi", "*.nbc")


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the checkout (a build writes build/ and *.egg-info
    into its source folder; other runs share the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=COPY_IGNORE)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--no-index", "-q", "-w", str(tmp / "dist"), str(src)])
    (whl,) = (tmp / "dist").glob("mariash-*.whl")
    return whl


def _seed_numba_cache(site: Path) -> int:
    """Copy the checkout's numba cache files (``*.nbi``, ``*.nbc``: in each source folder's
    ``__pycache__``, or under ``NUMBA_CACHE_DIR`` in the folders numba names after the
    source folders, :func:`~mariash_env.core.jit.cache_folder`) to where the installed
    package under ``site`` looks for them, when its compiled sources are the checkout's
    (``core.jit.sources_digest``, whose stamp the copy takes too: without it the
    installed package drops every cached kernel on import); returns how many files."""
    root = _cache_root()  # the venv's too: it runs with this environment
    ours, theirs = ROOT / "mariash_env", site / "mariash_env"
    stamp = cache_folder(ours / "core", root) / "sources.sha256"
    if not stamp.is_file() or sources_digest(theirs) != stamp.read_text():
        return 0  # an edited checkout, not compiled since: its kernels are not the wheel's
    n = 0
    for d in (s.relative_to(ours) for s in _source_folders(ours)):
        src, dst = cache_folder(ours / d, root), cache_folder(theirs / d, root)
        for f in [*src.glob("*.nb[ic]"), *([stamp] if d == Path("core") else [])]:
            dst.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dst / f.name)
            n += 1
    return n


def _top_level(names: list[str]) -> set[str]:
    """The import names a wheel installs: first path parts, less its metadata folders."""
    tops = {n.split("/", 1)[0] for n in names}
    return {t.removesuffix(".py") for t in tops if not t.endswith((".dist-info", ".data"))}


def test_wheel_installs_only_mariash_env_with_the_models(wheel: Path) -> None:
    """Issue #32 item 1: one top-level name (RECORD and top_level.txt agree), every module
    of the checkout's mariash_env/ in it, the shipped models and cards under
    mariash_env/models, the play table's static files; no training, no models."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/RECORD"))
        record = [line.split(",")[0] for line in
                  z.read(f"{info}/RECORD").decode().splitlines() if line]
        top_txt = z.read(f"{info}/top_level.txt").decode().split()
    assert _top_level(names) == {"mariash_env"}
    assert _top_level(record) == {"mariash_env"}
    assert top_txt == ["mariash_env"]
    have = set(names)
    modules = {f"mariash_env/{p.relative_to(ROOT / 'mariash_env').as_posix()}"
               for p in (ROOT / "mariash_env").rglob("*.py") if "__pycache__" not in p.parts}
    assert not modules - have, "modules left out of the wheel (pyproject packages list)"
    shipped = sorted(p.name for p in (ROOT / "models").iterdir() if p.suffix in (".onnx", ".md"))
    assert {"robot.onnx", "robot_distilled_dagger2.onnx", "ROBOT.md"} <= set(shipped)
    assert {f"mariash_env/models/{n}" for n in shipped} <= have
    assert {"mariash_env/play/static/index.html", "mariash_env/play/static/table.js"} <= have
    with zipfile.ZipFile(wheel) as z:
        assert z.read("mariash_env/models/robot.onnx") == (ROOT / "models/robot.onnx").read_bytes()


def _metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        info = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return z.read(info).decode()


def test_wheel_metadata(wheel: Path) -> None:
    """The long description is the README (markdown); the classifiers name the Python
    versions from requires-python's on (3.10 to 3.13: each installs the wheel and plays a
    deal), the OS and the topics; the license is the SPDX expression (PEP 639: no License
    classifier beside it); every extra the error messages name exists, the play extra
    without its tests' httpx and playwright (in dev), the rllib extra with torch."""
    meta = _metadata(wheel)
    head, _, body = meta.partition("\n\n")
    fields = [tuple(line.split(": ", 1)) for line in head.splitlines()]
    one = dict(fields)
    assert one["Description-Content-Type"] == "text/markdown"
    assert body.strip().startswith("# mariash") and "## Install" in body
    assert one["Requires-Python"] == ">=3.10" and one["License-Expression"] == "MIT"
    classifiers = [v for k, v in fields if k == "Classifier"]
    versions = [c.rsplit(" ", 1)[1] for c in classifiers
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert versions == ["3.10", "3.11", "3.12", "3.13"]
    assert "Operating System :: OS Independent" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]
    extras = {v for k, v in fields if k == "Provides-Extra"}
    assert {"play", "research", "openspiel", "examples", "rllib", "ray", "train"} <= extras
    reqs = [v for k, v in fields if k == "Requires-Dist"]

    def extra(name: str) -> set[str]:
        return {r.split(";")[0].strip() for r in reqs if f'extra == "{name}"' in r}

    core = {r for r in reqs if "extra ==" not in r}
    assert {"gymnasium>=1.1", "pettingzoo>=1.25"} <= core
    assert extra("play") == {"starlette", "uvicorn", "rich"}
    assert {"httpx", "playwright"} <= extra("dev")
    assert "matplotlib" in extra("research") and "open_spiel" in extra("openspiel")
    assert "torch==2.13.0" in extra("rllib") & extra("train") & extra("examples")
    for name in ("train", "dev"):
        assert [r for r in reqs if r.startswith("tomli>=1.1;")
                and 'python_version < "3.11"' in r and f'extra == "{name}"' in r]


def test_sdist_is_the_tracked_tree(tmp_path: Path) -> None:
    """The sdist holds every committed file (MANIFEST.in): the tests with their
    conftest.py, helpers and data, and what they read (training/, scripts/, examples/,
    docs/), so that a packager can run them; no cache or build output."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".venv", ".git", "site", "runs", "build", "dist", "*.egg-info", ".hypothesis",
        ".ruff_cache", ".pytest_cache"))  # __pycache__ and numba's files stay: excluded
    _run([sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
          "b.build_sdist(sys.argv[1])", str(tmp_path / "dist")], cwd=src)
    (sdist,) = (tmp_path / "dist").glob("mariash-*.tar.gz")
    with tarfile.open(sdist) as t:
        names = {m.name.split("/", 1)[1] for m in t.getmembers() if m.isfile()}
    names -= {"PKG-INFO", "setup.cfg"}
    names = {n for n in names if not n.startswith("mariash.egg-info/")}
    assert {"tests/conftest.py", "tests/helpers.py", "tests/oracle.py",
            "tests/data/robot_moves.json", "MANIFEST.in", "models/robot.onnx"} <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".nbi", ".nbc"))]
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    # .gitignore: git's own; a new file not committed yet is in the copy, not in the list
    assert set(tracked) - {".gitignore"} <= names


CHECK = textwrap.dedent('''
    import importlib.util
    import sys
    from pathlib import Path

    import numpy as np

    import mariash_env
    from mariash_env.arena import play_deal
    from mariash_env.robots import make_robot
    from mariash_env.rules import make_rules
    from mariash_env.shipped import shipped_model

    venv = Path(sys.prefix).resolve()
    pkg = Path(mariash_env.__file__).resolve()
    assert venv in pkg.parents, f"mariash_env from {pkg}, not the fresh venv {venv}"
    for name in ("training", "models"):
        assert importlib.util.find_spec(name) is None, f"{name} is importable"
    assert shipped_model("robot.onnx") == pkg.parent / "models" / "robot.onnx"

    e = mariash_env.env()
    e.reset(seed=3)
    for _ in range(6):
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(mask)[0]))

    strong = make_robot("strong")
    assert Path(strong.net.path).parent == pkg.parent / "models"
    assert Path(make_robot("nnpimc").net.path).name == "robot.onnx"
    net = make_robot(f"onnx:{shipped_model('robot_distilled.onnx')}")
    # written as in the docs' commands: the shipped file from outside the checkout too
    assert make_robot("onnx:models/robot.onnx").path == pkg.parent / "models" / "robot.onnx"
    make_robot(f"onnx:{shipped_model('robot_licitovany.onnx')}", rules="licitovany")
    out = play_deal([strong, net, make_robot("table")], (0, 1, 2), 7, 0, make_rules())
    assert min(out["decisions"]) > 0 and sum(out["payments"]) == 0, out
    print("installed wheel ok")
''')


def test_the_installed_package_s_numba_cache_is_seeded_under_numba_cache_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With NUMBA_CACHE_DIR set, the checkout's kernels are not in its __pycache__ but
    in folders numba names after each source folder's path: the seeding copies them to
    the installed package's names there (it copied nothing, so the installed wheel's
    check compiled every kernel again), the digest's stamp with them."""
    import numba

    root = tmp_path / "cache"
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(root))
    ours, theirs = ROOT / "mariash_env", tmp_path / "site" / "mariash_env"
    shutil.copytree(ours, theirs, ignore=shutil.ignore_patterns("__pycache__"))
    for d, name in (("core", "sources.sha256"), ("robots", "k.nbi"),
                    ("games/voleny", "k.nbc")):
        folder = cache_folder(ours / d, str(root))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(sources_digest(ours) if d == "core" else d)
    assert _seed_numba_cache(tmp_path / "site") == 3
    assert (cache_folder(theirs / "games/voleny", str(root)) / "k.nbc").read_text() == \
        "games/voleny"
    assert (cache_folder(theirs / "core", str(root)) / "sources.sha256").is_file()


@pytest.mark.slow
def test_installed_wheel_plays_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    """Issue #32 item 1: pip install of the wheel into a fresh venv; from a folder outside
    the checkout: the env steps, ``strong`` (its shipped model), ``nnpimc`` and ONNX
    robots of shipped models play a deal, ``mariash play/serve-robot --help`` exit 0."""
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    py = venv / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                      "['purelib'])"]).stdout.strip())
    deps = tmp_path / "deps"
    deps.mkdir()
    ours = re.compile(r"^(mariash|__editable__)|\.pth$")
    for key in ("purelib", "platlib"):
        for p in Path(sysconfig.get_paths()[key]).iterdir():
            if not ours.search(p.name) and not (deps / p.name).exists():
                (deps / p.name).symlink_to(p)
    (site / "_mariash_test_deps.pth").write_text(f"{deps}\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps",
          "--no-index", "-q", str(wheel)])
    _seed_numba_cache(site)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "check.py").write_text(CHECK)
    r = _run([str(py), "check.py"], cwd=work, env=env, timeout=900)
    assert "installed wheel ok" in r.stdout
    for cmd in ("play", "serve-robot"):
        r = _run([str(venv / "bin" / "mariash"), cmd, "--help"], cwd=work, env=env,
                 timeout=300)
        assert r.stdout.startswith(f"usage: mariash {cmd}"), r.stdout


def test_shipped_model_in_the_checkout() -> None:
    """Issue #32 item 1: in the checkout shipped_model finds models/<name> (the paths of
    docs and configs); anything else is refused by name, listing the shipped ones."""
    assert models_dir() == ROOT / "models"
    assert shipped_model("robot.onnx") == ROOT / "models" / "robot.onnx"
    assert "robot_distilled_dagger2.onnx" in shipped_models()
    with pytest.raises(ShippedModelError, match=r"no shipped model 'nope\.onnx'.*robot\.onnx"):
        shipped_model("nope.onnx")
    for bad in ("models/robot.onnx", "", "../pyproject.toml", None):
        with pytest.raises(ShippedModelError, match="bad shipped model name"):
            shipped_model(bad)  # type: ignore[arg-type]
    strong = make_robot("strong")
    assert Path(strong.net.path) == ROOT / STRONG["model"]


def test_models_paths_name_the_shipped_files_from_any_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A robot written ``onnx:models/FILE`` (the docs' commands, the ladder's roster) plays
    the shipped file outside the checkout's folder; a file of that name in the working
    directory comes first; a name that is not shipped is refused listing the shipped."""
    monkeypatch.chdir(tmp_path)
    assert make_robot("onnx:models/robot.onnx").path == ROOT / "models" / "robot.onnx"
    nn = make_robot("nnpimc(model='models/robot_voleny_seated3.onnx')")
    assert nn.net.path == ROOT / "models" / "robot_voleny_seated3.onnx"
    (tmp_path / "models").mkdir()
    own = tmp_path / "models" / "robot.onnx"
    own.write_bytes((ROOT / "models" / "robot_distilled.onnx").read_bytes())
    assert make_robot("onnx:models/robot.onnx").path.resolve() == own
    with pytest.raises(ValueError, match=r"models/nope\.onnx, nor a shipped.*robot\.onnx"):
        make_robot("onnx:models/nope.onnx")
    with pytest.raises(ValueError, match=r"no ONNX model at nope\.onnx$"):
        make_robot("onnx:nope.onnx")


def test_default_model_paths_use_the_locator() -> None:
    """Issue #32 item 1: no module of mariash_env/ builds a path to models/ itself (it
    would point beside site-packages in an installed wheel)."""
    pattern = re.compile(r"""["']models["']|parents\[\d\]\s*/\s*["']models""")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "mariash_env").rglob("*.py")
                 if p.name != "shipped.py" and pattern.search(p.read_text())]
    assert not offenders
