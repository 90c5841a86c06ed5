"""The browser table's JSON API (mariash_env.play.web) through Starlette's TestClient:
a scripted partie, stale/illegal/malformed requests refused with nothing changed, resume."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette asks for httpx2, which is not needed here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from mariash_env.play.session import PlaySession  # noqa: E402
from mariash_env.play.web import create_app  # noqa: E402
from tests.helpers import step_cap  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def client(tmp_path):
    seeds = iter(range(7, 100))
    app = create_app(lambda: PlaySession("table,random", save_dir=tmp_path, seed=next(seeds)))
    with TestClient(app) as c:
        yield c


def _post(c, path, st, **extra):
    return c.post(path, json={"session": st["session"], "move": st["move"], **extra})


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/table.js" in page.text
    for f in ("table.js", "table.css"):
        assert client.get(f"/static/{f}").status_code == 200
    # every page names its icon (a browser asks for /favicon.ico otherwise: a 404)
    for path in ("/", "/rules/voleny", "/rules/licitovany", "/rules/lizany"):
        icon = re.search(r'<link rel="icon"[^>]* href="([^"]+)"', client.get(path).text)
        assert icon and client.get(icon.group(1)).status_code == 200, path
    r = client.get("/nope")
    assert r.status_code == 404 and "no such page" in r.json()["error"]


def test_a_trailing_slash_is_a_404_naming_the_path(client):
    """Every route with a slash after it (``GET /api/state/``, ``POST /api/act/``, ...)
    answered Starlette's empty 307 redirect; now the table's 404 JSON error (``code``
    ``not_found``) naming the path without the slash; ``/static`` without a file is a
    plain 404."""
    for method, path in [("GET", "/api/state/"), ("POST", "/api/act/"), ("POST", "/api/new/"),
                         ("GET", "/api/messages/"), ("GET", "/cards/9h.svg/"),
                         ("GET", "/rules/voleny/"), ("GET", "/api/setup//")]:
        r = client.request(method, path, follow_redirects=False)
        assert r.status_code == 404 and "location" not in r.headers, (method, path)
        bare = path.rstrip("/")
        assert r.json() == {"error": f"no such page '{path}': the path is '{bare}', without "
                                     "the trailing slash", "code": "not_found"}
    for path in ("/static", "/api/", "/nope/"):
        r = client.get(path, follow_redirects=False)
        assert r.status_code == 404 and r.json()["error"] == \
            f"no such page '{path}': the API is under /api/"


def test_scripted_partie_through_the_api(client, tmp_path):
    rng = random.Random(3)
    st = client.get("/api/state").json()
    seen_robot_steps = 0
    tick = step_cap("voleny", deals=None)  # the page's partie: volený's 12 deals
    while st["waiting"] != "partie_over":
        tick()
        if st["waiting"] == "robot":
            r = _post(client, "/api/advance", st)
            seen_robot_steps += 1
        elif st["waiting"] == "human":
            card_labels = [c["label"] for c in st["hand"] if c["label"]]
            choice_labels = [x["label"] for x in st["choices"]]
            assert sorted(card_labels + choice_labels) == sorted(st["legal"])
            r = _post(client, "/api/act", st, action=rng.choice(st["legal"]))
        else:
            assert st["settlement"]["lines"]
            r = _post(client, "/api/next", st)
        assert r.status_code == 200, r.text
        assert r.json()["move"] == st["move"] + 1  # one change per request
        st = r.json()
    assert len(st["deal_results"]) == 12 and seen_robot_steps > 0
    files = list(tmp_path.glob("*.jsonl"))
    out = subprocess.run([sys.executable, "-m", "mariash_env.replay", *map(str, files)],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout
    # a new partie starts a new session; the old id is refused
    new = _post(client, "/api/new", st).json()
    assert new["session"] != st["session"] and new["move"] == 0
    r = _post(client, "/api/advance", st)
    assert r.status_code == 404 and "unknown session" in r.json()["error"]


def test_bad_requests_get_4xx_json_and_change_nothing(client):
    st = client.get("/api/state").json()
    tick = step_cap("voleny")  # the robots' moves of the first deal
    while st["waiting"] == "robot":
        tick()
        st = _post(client, "/api/advance", st).json()
    legal = st["legal"][0]
    cases = [
        (client.post("/api/act", content=b"{not json"), 400, "not JSON"),
        (client.post("/api/act", json=[1, 2]), 400, "must be a JSON object"),
        (client.post("/api/act", json={"session": st["session"], "move": st["move"]}), 400,
         "missing field 'action'"),
        (_post(client, "/api/act", st, action=legal, extra=1), 400, "unknown field 'extra'"),
        (client.post("/api/act", json={"session": st["session"], "move": st["move"] - 1,
                                       "action": legal}), 409, "stale request"),
        (_post(client, "/api/act", st, action="play:nonsense"), 422, "illegal action"),
        (_post(client, "/api/advance", st), 409, "no robot is to move"),
        (_post(client, "/api/new", {**st, "move": st["move"] + 5}), 409, "stale request"),
        (client.get("/api/act"), 405, "not allowed"),
    ]
    for r, status, words in cases:
        assert r.status_code == status, r.text
        assert words in r.json()["error"]
        code = r.json()["code"]  # every error has a machine-readable code
        assert isinstance(code, str) and code, r.text
        assert client.get("/api/state").json() == st


def test_reload_and_second_tab_resume_the_game(client):
    st = client.get("/api/state").json()
    st = _post(client, "/api/advance", st).json() if st["waiting"] == "robot" else st
    with TestClient(client.app) as tab2:  # the same server, another client
        assert tab2.get("/api/state").json() == st
    assert client.get("/api/state").json() == st


def test_a_new_partie_whose_robots_compile_says_so_meanwhile(tmp_path):
    """A new partie with a robot not built yet compiles it inside POST /api/new (minutes on
    an empty numba cache): meanwhile GET /api/compiling, which the page polls then, names
    what compiles; before and after it answers null."""
    import threading

    from mariash_env.compile import compiling_notice

    building, release = threading.Event(), threading.Event()

    def new_session(setup=None):
        if setup is not None:  # the robots' warm-up on an empty cache
            with compiling_notice("licitovany", False, what="table robot's kernels"):
                building.set()
                release.wait(30)
        return PlaySession("table,random", save_dir=tmp_path, seed=7)

    with TestClient(create_app(new_session)) as c:
        assert c.get("/api/compiling").json() == {"compiling": None}
        st = c.get("/api/state").json()
        answer = {}
        post = threading.Thread(target=lambda: answer.update(r=_post(
            c, "/api/new", st, setup={"rules": "voleny", "robots": ["table", "random"]})))
        post.start()
        assert building.wait(30)
        assert c.get("/api/compiling").json() == {
            "compiling": "table robot's kernels (licitovany)"}
        release.set()
        post.join(30)
        assert answer["r"].status_code == 200, answer["r"].text
        assert c.get("/api/compiling").json() == {"compiling": None}
