"""Optional dependencies (``mariash_env.extras``): a feature whose extra is not installed
says which extra to install -- one ``error: …`` line and exit status 2 from the
command-line tools, a :class:`MissingExtraError` naming it from the library -- never a bare
``ModuleNotFoundError``; a missing matplotlib costs the commands their plot, not their
results.  A module is made missing with ``sys.modules[name] = None`` (in a subprocess where
the package caches what it imported)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mariash_env import arena
from mariash_env.extras import MissingExtraError, have, install_hint, needs, pyplot, require
from mariash_env.play import cli

ROOT = Path(__file__).resolve().parents[1]
HINT = "pip install 'mariash[{0}]' (in a checkout: pip install -e '.[{0}]')"


def _missing(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def _without(modules: list[str], code: str) -> subprocess.CompletedProcess:
    """``code`` run in a fresh interpreter where ``modules`` cannot be imported."""
    head = f"import sys\nfor m in {modules!r}:\n    sys.modules[m] = None\n"
    return subprocess.run([sys.executable, "-c", head + textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_the_hint_and_the_error_name_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    assert install_hint("play") == HINT.format("play")
    _missing(monkeypatch, "starlette")
    with pytest.raises(MissingExtraError) as e:
        require("play", "the table", "json", "starlette.routing")
    assert str(e.value) == ("the table needs starlette, which is not installed: "
                            + HINT.format("play"))
    assert e.value.name == "starlette" and e.value.extra == "play"
    assert isinstance(e.value, ImportError) and not have("json", "starlette")
    # another module missing (a bug, or a dependency's own): not turned into the hint
    with pytest.raises(ModuleNotFoundError) as e2, needs("play", "the table", "starlette"):
        import mariash_no_such_module  # noqa: F401
    assert not isinstance(e2.value, MissingExtraError)
    _missing(monkeypatch, "pyspiel")
    with pytest.raises(MissingExtraError, match=r"needs pyspiel \(the open_spiel package\)"):
        require("openspiel", "OpenSpiel", "pyspiel")


@pytest.mark.parametrize("argv, module, what", [
    (["play", "--no-browser"], "starlette", "the browser table"),
    (["play", "--no-browser"], "uvicorn", "the browser table"),
    (["play", "--terminal"], "rich", "the terminal table"),
    (["serve-robot", "table"], "starlette", "the robot service"),
])
def test_the_play_commands_name_the_play_extra(argv, module, what, tmp_path, capsys,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue: on a core install ``mariash play`` and ``serve-robot`` ended in a
    ModuleNotFoundError traceback (exit 1); now one line naming the extra, exit 2, before
    any partie is saved."""
    _missing(monkeypatch, module)
    save = tmp_path / "saves"
    extra = ["--save-dir", str(save)] if argv[0] == "play" else []
    with pytest.raises(SystemExit) as e:
        cli.main(argv + extra)
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert err == f"error: {what} needs {module}, which is not installed: " \
                  f"{HINT.format('play')}\n"
    assert not save.exists()


def test_the_play_modules_name_the_play_extra() -> None:
    r = _without(["starlette", "rich"], """
        for name in ("web", "service", "terminal"):
            try:
                __import__(f"mariash_env.play.{name}")
            except ImportError as e:
                print(type(e).__name__, e.extra, e.name)
    """)
    assert r.stdout.split("\n") == ["MissingExtraError play starlette",
                                    "MissingExtraError play starlette",
                                    "MissingExtraError play rich", ""], r.stderr


def test_openspiel_names_its_extra() -> None:
    """Issue: ``import mariash_env.openspiel`` and the ``os_random`` / ``os_ismcts`` robots
    (listed on every install) failed with ``No module named 'pyspiel'``."""
    r = _without(["pyspiel", "open_spiel"], """
        from mariash_env.robots import make_robot, robots_of
        assert "os_random" in robots_of("voleny")
        for attempt in (lambda: __import__("mariash_env.openspiel"),
                        lambda: make_robot("os_random"), lambda: make_robot("os_ismcts")):
            try:
                attempt()
            except ImportError as e:
                print(type(e).__name__, e)
    """)
    line = ("MissingExtraError mariash_env.openspiel (OpenSpiel) needs pyspiel (the open_spiel "
            f"package), which is not installed: {HINT.format('openspiel')}")
    assert r.stdout.split("\n") == [line] * 3 + [""], r.stderr


def test_the_arena_command_names_the_openspiel_extra_for_its_robots(capsys) -> None:
    r = _without(["pyspiel"], """
        from mariash_env.arena import main
        main(["--robots", "os_random,random", "--deals", "1"])
    """)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].startswith("error: mariash_env.openspiel")
    assert "mariash[openspiel]" in r.stderr and "Traceback" not in r.stderr


def test_torchrl_env_names_the_examples_extra() -> None:
    r = _without(["torch"], """
        import mariash_env
        try:
            mariash_env.torchrl_env(2)
        except ImportError as e:
            print(type(e).__name__, e)
    """)
    assert r.stdout == ("MissingExtraError torchrl_env needs torch, which is not installed: "
                        f"{HINT.format('examples')}\n"), r.stderr


def test_the_other_extras_name_themselves(monkeypatch: pytest.MonkeyPatch) -> None:
    from mariash_env import ray_pool
    from mariash_env.research import dataset

    _missing(monkeypatch, "pyarrow", "ray", "matplotlib")
    with pytest.raises(dataset.DatasetError, match=r"pyarrow: pip install 'mariash\[research\]"):
        dataset._pa()
    with pytest.raises(RuntimeError, match=r"needs Ray: pip install 'mariash\[ray\]'"):
        ray_pool._import_ray()
    with pytest.raises(MissingExtraError, match=r"the plot needs matplotlib.*mariash\[research\]"):
        pyplot()


def test_no_message_names_only_the_checkouts_install() -> None:
    """``pip install -e '.[X]'`` is right only in a checkout: every message of the
    package gives the released package's form too (install_hint)."""
    bad = [f"{p.relative_to(ROOT)}:{i}" for p in (ROOT / "mariash_env").rglob("*.py")
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if "pip install -e" in line and "in a checkout" not in line]
    assert not bad


PLOT_NOTE = ("note: no plot ({0}), the rest is written: matplotlib is not installed; "
             + HINT.format("research") + ", or --no-plot")


def test_the_arena_without_matplotlib_writes_the_results_and_says_why_no_plot(
        tmp_path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue: the README's arena command on a core install played every deal, then failed
    for want of matplotlib (exit 1)."""
    _missing(monkeypatch, "matplotlib")
    out = tmp_path / "arena"
    assert arena.main(["--robots", "table,random", "--deals", "2", "--out", str(out),
                       "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [PLOT_NOTE.format("groše.png")]
    assert {p.name for p in out.iterdir()} >= {"deals.csv", "summary.csv", "pairwise.csv"}
    assert not (out / "groše.png").exists()
    assert arena.main(["--robots", "table,random", "--deals", "1", "--out", str(out),
                       "--quiet", "--no-plot"]) == 0
    assert "note" not in capsys.readouterr().err


def test_the_ladder_and_best_response_without_matplotlib(
        tmp_path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    from mariash_env.research import best_response, ladder

    _missing(monkeypatch, "matplotlib")
    o = tmp_path / "ladder"
    assert ladder.main(["--game", "lizany=random,table", "--deals", "2", "--quiet", "--boot",
                        "20", "--matches", str(tmp_path / "m"), "--out", str(o)]) == 0
    assert PLOT_NOTE.format("ladder.png") in capsys.readouterr().err.splitlines()
    assert {p.name for p in o.iterdir()} == {"ladder.csv", "ladder.md", ladder.DEALS_FILE}
    o = tmp_path / "br"
    assert best_response.main(["--table", "--game", "lizany=random", "--exploiter", "table",
                               "--deals", "2", "--quiet", "--runs", str(tmp_path / "runs"),
                               "--out", str(o)]) == 0
    assert PLOT_NOTE.format("best_response.png") in capsys.readouterr().err.splitlines()
    assert {p.name for p in o.iterdir()} == {"best_response.csv", "best_response.md"}
