"""A real browser at the table: Playwright drives Debian's Chromium (/usr/bin/chromium, no
browser download) through a whole deal by clicking, and saves screenshots of the table
at three moments under docs/ (shown in docs/play.md and the README)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("MARIASH_CHROMIUM", "/usr/bin/chromium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp_path, rules: str, seed: int):
    """``mariash play --rules RULES`` on a free port, with two parties of that game
    finished earlier this week, so the series table has rows to show."""
    now = dt.datetime.now(dt.timezone.utc).isoformat()
    for i, scores in enumerate([(12, -20, 8), (-6, 9, -3)]):
        players = [{"seat": s, "name": n, "score": sc, "actor_wins": 1}
                   for s, (n, sc) in enumerate(zip(("robot table (0)", "you", "robot table (2)"),
                                                   scores))]
        (tmp_path / f"earlier{i}.json").write_text(json.dumps(
            {"complete": True, "finished": now, "players": players, "rules": rules}))
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mariash_env.play", "--robots", "table,table", "--seat", "1",
         "--seed", str(seed), "--port", str(port), "--no-browser", "--save-dir", str(tmp_path),
         "--rules", rules],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    for _ in range(600):  # the first import compiles the engine (numba): allow a minute
        if proc.poll() is not None:
            pytest.fail(f"the table did not start: {proc.stdout.read()}")
        try:
            urllib.request.urlopen(url + "api/state", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    return proc, url


@pytest.fixture
def server(tmp_path):
    proc, url = _serve(tmp_path, "voleny", 11)
    yield url, tmp_path
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def licit_server(tmp_path):
    proc, url = _serve(tmp_path, "licitovany", 4)
    yield url, tmp_path
    proc.terminate()
    proc.wait(timeout=10)


def _browser(p):
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium (.ci/run does)")
    return p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def _open(p, url):
    """Chromium on the table, robots moving 30 ms apart, once the first state is shown."""
    browser = _browser(p)
    page = browser.new_page(viewport={"width": 1420, "height": 900})
    page.goto(url + "?delay=30")
    page.wait_for_function("document.body.dataset.waiting !== ''")
    return browser, page


def _wait_turn(page) -> str:
    """Wait until the robots have moved: what the table waits for then."""
    page.wait_for_function("['human', 'next_deal', 'partie_over']"
                           ".includes(document.body.dataset.waiting)")
    return page.evaluate("document.body.dataset.waiting")


def _only_card_actions(cards, heads: tuple[str, ...]) -> None:
    """Only legal cards are active: every active card carries a legal card action."""
    for i in range(cards.count()):
        assert cards.nth(i).get_attribute("data-label").split(":")[0] in heads


def _click(page, target) -> None:
    """Click and wait for the table's next state."""
    move = page.evaluate("document.body.dataset.move")
    target.click()
    page.wait_for_function(f"document.body.dataset.move !== '{move}'")


def test_a_whole_deal_by_clicking(server):
    sync_api = pytest.importorskip("playwright.sync_api")
    url, save_dir = server
    shots = {}
    with sync_api.sync_playwright() as p:
        browser, page = _open(p, url)
        clicks = 0
        while True:
            waiting = _wait_turn(page)
            if waiting != "human":
                break
            phase = page.evaluate("document.getElementById('status').textContent")
            cards = page.locator("#hand .card.legal")
            if clicks == 0:
                # seat 1 is forehand of the first deal: the trump choice from 7 cards
                assert page.locator("#hand .card").count() == 7 and "trumf" in phase
                # Czech card names on hover
                assert page.locator("#hand .card").first.get_attribute("title").split()[0] in (
                    "červené", "kule", "zelené", "žaludy")
                shots["play_trump.png"] = page.screenshot()
            if page.locator("#trick .card").count() == 2 and "play_trick.png" not in shots:
                shots["play_trick.png"] = page.screenshot()
            _only_card_actions(cards, ("trump", "discard", "play"))
            _click(page, cards.first if cards.count() else page.locator("button.choice").first)
            clicks += 1
        assert waiting == "next_deal" and clicks >= 5
        lines = page.locator("#settlement .line")
        assert lines.count() >= 2 and "platby / payments" in lines.last.text_content()
        assert page.locator("#partie tr").count() == 2  # header and the first deal
        week = page.locator("#series table").first.locator("tr")
        assert week.count() == 4  # the header and three players
        assert week.nth(1).locator("td").nth(1).text_content() == "robot table (0)"
        assert week.nth(1).locator("td").nth(2).text_content() == "+6"
        shots["play_settlement.png"] = page.screenshot()
        # the next deal starts by a click, and a reload resumes the same table
        page.locator("button.next").click()
        page.wait_for_function("document.body.dataset.move !== ''")
        move = page.evaluate("document.body.dataset.move")
        page.reload()
        page.wait_for_function("document.body.dataset.waiting !== ''")
        assert int(page.evaluate("document.body.dataset.move")) >= int(move)
        browser.close()
    assert len(list(save_dir.glob("*.jsonl"))) == 1
    docs = ROOT / "docs"
    for name, png in shots.items():
        (docs / name).write_bytes(png)
    assert set(shots) == {"play_trump.png", "play_trick.png", "play_settlement.png"}


def test_a_licitovany_deal_by_clicking(licit_server):
    # LICITOVANY.md at the browser table: the auction as it happens, the actor's choices,
    # the flek turns, the tricks and the settlement in desetníky, all by clicking
    sync_api = pytest.importorskip("playwright.sync_api")
    url, save_dir = licit_server
    shots = {}
    with sync_api.sync_playwright() as p:
        browser, page = _open(p, url)
        assert page.locator("#title").text_content() == "Licitovaný mariáš"
        clicked, fleked = [], False
        while True:
            waiting = _wait_turn(page)
            if waiting != "human":
                break
            tags = page.locator("#contract .tag").all_text_contents()
            status = page.locator("#status").text_content()
            buttons = page.locator("button.choice")
            labels = [buttons.nth(i).get_attribute("data-label") for i in range(buttons.count())]
            if "licitace / auction" in tags and "licit_auction" not in shots:
                # the auction: the standing bid and the two positions, bid/hold/pass buttons
                assert any(t.startswith("licituje / challenger") for t in tags)
                assert "pas" in buttons.all_text_contents()[-1] and "licit" in status
                shots["licit_auction"] = page.screenshot()
            if any(lab.startswith("flek:") for lab in labels) and "licit_flek" not in shots:
                assert "good" in labels and "flek" in status
                shots["licit_flek"] = page.screenshot()
            if page.locator("#trick .card").count() == 2 and "licit_trick" not in shots:
                shots["licit_trick"] = page.screenshot()
            cards = page.locator("#hand .card.legal")
            _only_card_actions(cards, ("discard", "lead", "play"))
            if cards.count():
                target = cards.first
            else:  # never fold; one flek, then good
                keep = [i for i, lab in enumerate(labels) if lab != "fold"
                        and not (fleked and lab.startswith("flek:"))]
                target = buttons.nth(keep[0])
                fleked |= labels[keep[0]].startswith("flek:")
            clicked.append(target.get_attribute("data-label"))
            _click(page, target)
        assert waiting == "next_deal"
        heads = {lab.split(":")[0] for lab in clicked}
        assert {"bid", "game", "discard", "play"} <= heads, clicked
        lines = page.locator("#settlement .line").all_text_contents()
        assert lines[-1].startswith("platby / payments") and lines[-1].endswith("(desetníky)")
        assert any(line.startswith("od každého obránce / per defender") for line in lines)
        assert "desetníky" in page.locator("#seat-me .nums").text_content()
        events = page.locator("#events li").all_text_contents()
        assert any(": licit: " in e for e in events) and any(": pas" in e for e in events)
        shots["licit_settlement"] = page.screenshot()
        browser.close()
    out = subprocess.run([sys.executable, "-m", "mariash_env.replay",
                          *map(str, save_dir.glob("*.jsonl"))],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "1 record(s) checked, 0 bad" in out.stdout, out.stdout
    assert set(shots) == {"licit_auction", "licit_flek", "licit_trick", "licit_settlement"}
    for name, png in shots.items():
        (ROOT / "docs" / f"play_licitovany_{name[6:]}.png").write_bytes(png)
