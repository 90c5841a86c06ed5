"""A real browser at the table: Playwright drives Debian's Chromium (/usr/bin/chromium, no
browser download) through a whole deal by clicking, and saves screenshots of the table
at three moments under docs/ (shown in the README)."""

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


@pytest.fixture
def server(tmp_path):
    # two parties finished earlier this week, so the series table has rows to show
    now = dt.datetime.now(dt.timezone.utc).isoformat()
    for i, scores in enumerate([(12, -20, 8), (-6, 9, -3)]):
        players = [{"seat": s, "name": n, "score": sc, "actor_wins": 1}
                   for s, (n, sc) in enumerate(zip(("robot table (0)", "you", "robot table (2)"),
                                                   scores))]
        (tmp_path / f"earlier{i}.json").write_text(json.dumps(
            {"complete": True, "finished": now, "players": players}))
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mariash_env.play", "--robots", "table,table", "--seat", "1",
         "--seed", "11", "--port", str(port), "--no-browser", "--save-dir", str(tmp_path)],
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
    yield url, tmp_path
    proc.terminate()
    proc.wait(timeout=10)


def _browser(p):
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium (.ci/run does)")
    return p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def test_a_whole_deal_by_clicking(server):
    sync_api = pytest.importorskip("playwright.sync_api")
    url, save_dir = server
    shots = {}
    with sync_api.sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page(viewport={"width": 1420, "height": 900})
        page.goto(url + "?delay=30")
        page.wait_for_function("document.body.dataset.waiting !== ''")
        clicks = 0
        while True:
            page.wait_for_function("['human', 'next_deal', 'partie_over']"
                                   ".includes(document.body.dataset.waiting)")
            waiting = page.evaluate("document.body.dataset.waiting")
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
            # only legal cards/buttons are active: every active card carries a legal label
            for i in range(cards.count()):
                assert cards.nth(i).get_attribute("data-label").split(":")[0] in (
                    "trump", "discard", "play")
            move = page.evaluate("document.body.dataset.move")
            target = cards.first if cards.count() else page.locator("button.choice").first
            target.click()
            page.wait_for_function(f"document.body.dataset.move !== '{move}'")
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
