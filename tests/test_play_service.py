"""The robot service (mariash serve-robot): validation through Starlette's TestClient and
a real server on loopback answering like the robot itself."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette asks for httpx2, which is not needed here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import mariash_env  # noqa: E402
from mariash_env.play.listen import free_port  # noqa: E402
from mariash_env.play.service import create_service_app  # noqa: E402
from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.robots.view import SeatView  # noqa: E402
from mariash_env.seat_record import seat_record_of  # noqa: E402
from tests.helpers import step_cap  # noqa: E402
from tests.test_seat_record import random_positions  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "robot.onnx"


def _observations(n=40, seed=0):
    """(obs, mask) pairs of the seat to move along a random deal."""
    e = mariash_env.raw_env()
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        agent = e.agent_selection
        o = e.observe(agent)
        out.append((o["observation"].tolist(), o["action_mask"].astype(int).tolist()))
        e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        if all(e.terminations.values()):
            e.reset(seed=seed + len(out))
    return out


def test_table_robot_answers_as_itself():
    client = TestClient(create_service_app("table"))
    info = client.get("/info").json()
    assert info["robot"] == "table" and info["n_actions"] == mariash_env.N_ACTIONS
    assert info["record_format"] == "mariash-seat/1"
    local = make_robot("table")
    for obs, mask in _observations():
        r = client.post("/act", json={"observation": obs, "action_mask": mask})
        assert r.status_code == 200, r.text
        want = local.act({"observation": np.array(obs, np.float32),
                          "action_mask": np.array(mask, np.int8)})
        assert r.json()["action"] == want and mask[want] == 1
        assert r.json()["label"] == mariash_env.action_label(want)


def test_malformed_requests_get_4xx_naming_the_problem():
    client = TestClient(create_service_app("random"))
    obs, mask = _observations(1)[0]
    n, m = len(obs), len(mask)
    cases = [
        (b"{nope", 400, "not JSON"),
        ([1], 400, "must be a JSON object"),
        ({"observation": obs, "action_mask": mask, "record": {}}, 400, "next to 'record'"),
        ({"observation": obs}, 400, "missing field 'action_mask'"),
        ({"observation": obs, "action_mask": mask, "x": 1}, 400, "unknown field 'x'"),
        ({"observation": obs[:-1], "action_mask": mask}, 422,
         f"list of {n} numbers (924 at 4 players), got {n - 1} items"),
        ({"observation": [*obs[:-1], "a"], "action_mask": mask}, 422, f"[{n - 1}] = 'a'"),
        ({"observation": [*obs[:-1], float("nan")], "action_mask": mask}, 422, "finite"),
        ({"observation": obs, "action_mask": mask + [0]}, 422, f"list of {m} 0/1"),
        ({"observation": obs, "action_mask": [2] + mask[1:]}, 422, "[0] = 2: expected 0 or 1"),
        ({"observation": obs, "action_mask": [0] * m}, 422, "no legal action"),
    ]
    for body, status, words in cases:
        if isinstance(body, bytes):
            r = client.post("/act", content=body)
        else:
            r = client.post("/act", content=json.dumps(body))
        assert r.status_code == status, (body if isinstance(body, bytes) else words, r.text)
        assert words in r.json()["error"]
    assert client.get("/act").status_code == 405
    assert "no such endpoint" in client.get("/").json()["error"]


@pytest.mark.parametrize("spec", ["random", "pimc(worlds=2)"])
def test_a_body_of_neither_kind_is_named_with_the_bodies_the_robot_takes(spec):
    """A body with no 'record', 'observation' or 'action_mask' (a misspelt 'record', an
    empty object) gets a 400 naming the unknown field and the bodies this robot takes: it
    was "missing field 'observation'", which sent a record's sender after observations,
    and from a robot that answers records only (pimc, strong), one it cannot answer."""
    client = TestClient(create_service_app(spec))
    takes = ("expected {'record': {...}} (mariash-seat/1)" if spec.startswith("pimc") else
             "expected {'record': {...}} (mariash-seat/1) or 'observation' and "
             "'action_mask'")
    for body, words in [({"recrod": {"dealer": 2}}, "unknown field 'recrod': "),
                        ({}, "empty body: ")]:
        r = client.post("/act", json=body)
        assert r.status_code == 400, r.text
        assert r.json()["error"] == words + takes, r.text


def test_stateless_random_robot_same_request_same_answer():
    client = TestClient(create_service_app("random"))
    obs, mask = next((o, m) for o, m in _observations() if sum(m) > 3)
    answers = {client.post("/act", json={"observation": obs, "action_mask": mask}).json()
               ["action"] for _ in range(5)}
    assert len(answers) == 1


def test_bad_specs_refused():
    out = subprocess.run([sys.executable, "-m", "mariash_env.play.cli", "serve-robot",
                          "onnx:nowhere.onnx"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and "Traceback" not in \
        out.stderr
    out = subprocess.run([sys.executable, "-m", "mariash_env.play.cli", "serve-robot", "table",
                          "--port", "99999"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and "invalid port 99999" in out.stderr
    for bad in ("0", "two"):
        out = subprocess.run([sys.executable, "-m", "mariash_env.play.cli", "serve-robot",
                              "table", "--workers", bad], cwd=ROOT, capture_output=True,
                             text=True)
        assert out.returncode == 2 and "invalid workers" in out.stderr and bad in out.stderr


def test_seat_records_answered_on_the_seats_view():
    """A record of the deal so far from the seat's view (mariash-seat/1) gets the robot's
    answer on the real seat's observation: the table robot answers as on the game."""
    client = TestClient(create_service_app("table"))
    assert client.get("/info").json()["accepts"] == ["record", "observation"]
    local = make_robot("table")
    for g, rec in random_positions(30, seed=12):
        r = client.post("/act", json={"record": rec})
        assert r.status_code == 200, r.text
        seat = rec["seat"]
        want = local.act({"observation": g.observation(seat),
                          "action_mask": g.legal_mask(seat)})
        assert r.json()["action"] == want and r.json()["label"] == mariash_env.action_label(want)


@pytest.mark.parametrize("spec", ["pimc(worlds=3)", "strong(worlds=2)"])
def test_searching_robot_served_from_records_only(spec):
    client = TestClient(create_service_app(spec))
    assert client.get("/info").json()["accepts"] == ["record"]
    for i, (g, rec) in enumerate(random_positions(6, seed=13)):
        r = client.post("/act", json={"record": rec})
        assert r.status_code == 200, r.text
        assert g.legal_mask(rec["seat"])[r.json()["action"]] == 1
        if i == 0:  # stateless: the same request, the same answer (seeded from it)
            again = client.post("/act", json={"record": rec}).json()["action"]
            assert again == r.json()["action"]
            # the robot decided on the seat's view, as it would at the table
            robot = make_robot(spec)
            assert robot.act_view(SeatView.from_game(g)) in g.legal_actions()
    obs, mask = _observations(1)[0]
    r = client.post("/act", json={"observation": obs, "action_mask": mask})
    assert r.status_code == 422 and "needs the deal so far" in r.json()["error"]


def test_four_player_records_get_the_robot_of_the_four_player_table():
    """A volený service answers records of the four-player table (RULES.md §11.3) with
    the robot built for four players: the network as it plays that table, `strong` with
    its search (whose three-player inference over worlds is off at four); a robot that
    cannot play four players is refused by name, and the service keeps serving."""
    from tests.test_seat_record import four_player_positions

    positions = four_player_positions(8, seed=14)
    client = TestClient(create_service_app("net"))
    info = client.get("/info").json()
    assert info["players"] == [3, 4] and info["obs_sizes"] == [900, 924]
    lic = TestClient(create_service_app("table", "licitovany")).get("/info").json()
    assert lic["players"] == [3] and lic["obs_sizes"] == [lic["obs_size"]]
    local = make_robot("net", rules={"players": 4})
    for g, p in positions:
        r = client.post("/act", json={"record": seat_record_of(g, p)})
        assert r.status_code == 200, r.text
        obs = {"observation": g.observation(p), "action_mask": g.legal_mask(p)}
        assert r.json()["action"] == local.act(obs)
        # the four-player observation itself (924 numbers), as env(players=4) hands it
        r = client.post("/act", json={k: v.tolist() for k, v in obs.items()})
        assert r.status_code == 200 and r.json()["action"] == local.act(obs), r.text
    client = TestClient(create_service_app("strong(worlds=2)"))
    for g, p in positions[:3]:
        rec = seat_record_of(g, p)
        r = client.post("/act", json={"record": rec})
        assert r.status_code == 200, r.text
        assert g.legal_mask(p)[r.json()["action"]] == 1
        assert client.post("/act", json={"record": rec}).json() == r.json()
    client = TestClient(create_service_app("nnpimc(worlds=2, inference=True)"))
    g, p = positions[0]
    r = client.post("/act", json={"record": seat_record_of(g, p)})
    assert r.status_code == 422, r.text
    assert "does not play 4 players" in r.json()["error"]
    assert "inference=False" in r.json()["error"]
    g3, rec3 = random_positions(1, seed=15)[0]
    assert client.post("/act", json={"record": rec3}).status_code == 200


def test_bad_records_get_4xx_naming_the_problem():
    client = TestClient(create_service_app("table"))
    g, rec = next((g, r) for g, r in random_positions(20, seed=14)
                  if sum(lab.startswith("play:") for _, lab in r["actions"]) >= 2)
    seat = rec["seat"]
    i = next(i for i, (w, lab) in enumerate(rec["actions"])
             if w != seat and lab.startswith("play:"))
    gone = {lab.split(":")[-1] for w, lab in rec["actions"][:i] if w == seat}
    mine = next(c for c in rec["hand"] if c not in gone)
    contradicts = {**rec, "actions": rec["actions"][:i] + [[rec["actions"][i][0],
                                                            f"play:{mine}"]]}
    illegal = {**rec, "actions": rec["actions"] + [[seat, "contract:open_durch"]]}
    cases = [
        ({"record": rec, "observation": []}, 400, "unknown field 'observation' next to"),
        ({"record": [1]}, 400, "must be an object"),
        ({"record": {**rec, "deck": []}}, 400, "field 'deck': unknown field"),
        ({"record": {k: v for k, v in rec.items() if k != "seat"}}, 400, "field 'seat': missing"),
        ({"record": {**rec, "hand": rec["hand"][:3]}}, 422, "field 'hand'"),
        ({"record": {**rec, "rules": {"max_flek": "x"}}}, 422, "max_flek"),
        ({"record": {**rec, "actions": [[0, "play:Zz"]]}}, 422, "unknown action label"),
        ({"record": illegal}, 422, f"illegal for seat {seat}"),
        ({"record": contradicts}, 422, f"{mine} is in seat {seat}'s hand"),
        ({"record": {**rec, "scores": [10**30, -10**30, 0]}}, 422, "field 'scores'"),
    ]
    for body, status, words in cases:
        r = client.post("/act", json=body)
        assert r.status_code == status, (words, r.text)
        assert words in r.json()["error"], (words, r.text)
    assert client.post("/act", json={"record": rec}).status_code == 200  # still serving



def _workers_of(pid):
    """The worker processes that process ``pid`` spawned (Linux's /proc)."""
    out = []
    for p in Path("/proc").iterdir():
        try:
            ppid = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            spawned = b"spawn_main" in (p / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and spawned:
            out.append(int(p.name))
    return sorted(out)


def _until(what, seconds=60.0):
    """``what()`` once it is truthy, polled for at most ``seconds``; else the test fails."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(0.1)
    pytest.fail(f"not within {seconds} s: {what}")


def _info_once_up(proc, url):
    """The service's ``GET /info`` once it answers (the first import may compile the
    engine); the test fails with the server's output if it exits first."""
    def answering():
        if proc.poll() is not None:
            pytest.fail(proc.stdout.read())
        try:
            return json.load(urllib.request.urlopen(url + "/info", timeout=1))
        except OSError:
            return None
    return _until(answering)


def test_onnx_robot_served_on_loopback():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mariash_env.play.cli", "serve-robot",
                             f"onnx:{MODEL}", "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        assert _info_once_up(proc, url)["robot"] == f"onnx:{MODEL}"
        local = make_robot(f"onnx:{MODEL}")
        for obs, mask in _observations(15, seed=3):
            req = urllib.request.Request(url + "/act", method="POST", data=json.dumps(
                {"observation": obs, "action_mask": mask}).encode())
            got = json.load(urllib.request.urlopen(req, timeout=10))
            want = local.act({"observation": np.array(obs, np.float32),
                              "action_mask": np.array(mask, np.int8)})
            assert got["action"] == want
        req = urllib.request.Request(url + "/act", method="POST", data=b"[]")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=10)
        assert e.value.code == 400 and "JSON object" in json.load(e.value)["error"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_workers_answer_side_by_side_and_a_dead_one_is_replaced():
    """``serve-robot --workers 2``: two processes, each with its own robot, answer every
    request (concurrent ones too) as one service does; a worker killed is replaced while
    the other goes on answering; the parent's SIGTERM stops them all."""
    import concurrent.futures
    import os
    import signal

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mariash_env.play.cli", "serve-robot",
                             "table", "--workers", "2", "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    bodies = [{"observation": o, "action_mask": m} for o, m in _observations(12, seed=4)]
    bodies += [{"record": rec} for _, rec in random_positions(12, seed=8)]
    local = TestClient(create_service_app("table"))
    want = [local.post("/act", json=b).json() for b in bodies]

    def post(body):
        req = urllib.request.Request(url + "/act", method="POST",
                                     data=json.dumps(body).encode())
        return json.load(urllib.request.urlopen(req, timeout=30))

    workers = []
    try:
        assert _info_once_up(proc, url)["robot"] == "table"
        workers = _until(lambda: len(_workers_of(proc.pid)) == 2 and _workers_of(proc.pid))
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            assert list(pool.map(post, bodies)) == want
        os.kill(workers[0], signal.SIGKILL)
        assert [post(b) for b in bodies[:6]] == want[:6]  # the other one answers
        again = _until(lambda: len(w := _workers_of(proc.pid)) == 2 and workers[0] not in w
                       and w)
        assert workers[1] in again
        workers = again
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            assert list(pool.map(post, bodies)) == want
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    _until(lambda: not any(Path(f"/proc/{w}").exists() for w in workers), 30)
    assert "in 2 processes" in proc.stdout.read()


def test_docs_record_examples_are_answered():
    """The robot service page's example requests (docs/service.md) are valid seat records,
    answered as the page says by the robot it names."""
    text = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    start = "curl -s localhost:8765/act -d '"
    examples = [e for e in text.split(start)[1:] if e.startswith('{"record"')]
    assert len(examples) == 3
    for example in examples:
        body = json.loads(example[: example.index("'")])
        said = json.loads(example[example.index("# {") + 2:].splitlines()[0])
        game = body["record"].get("rules", {}).get("rules", "voleny")
        r = TestClient(create_service_app(said["robot"], game)).post("/act", json=body)
        assert r.status_code == 200, r.text
        assert r.json() == said


def test_docs_page_serves_every_game_and_its_lizany_example_is_answered():
    """The service page shows ``--rules NAME`` for every game the service serves
    (``games("service")``: it had no word of lízaný), and its lízaný example (the first
    observation of ``env(rules="lizany")`` after ``reset(seed=1)``) is answered as it says."""
    from mariash_env.games.registry import games

    text = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    for kind in games("service")[1:]:  # the first, volený, is the default
        assert f"mariash serve-robot strong --rules {kind.name}" in text, kind.name
    block = text[text.index("mariash serve-robot strong --rules lizany\npython"):]
    said = json.loads(block[block.index("# {") + 2:].splitlines()[0])
    e = mariash_env.env(rules="lizany")
    e.reset(seed=1)
    o = e.observe(e.agent_selection)
    body = {k: o[k].tolist() for k in ("observation", "action_mask")}
    client = TestClient(create_service_app(said["robot"], "lizany"))
    assert client.post("/act", json=body).json() == said
    info = client.get("/info").json()
    assert (info["accepts"], info["record_format"], info["players"]) == (["observation"],
                                                                         None, [2])


def test_licitovany_service_answers_observations_of_its_game():
    """``serve-robot --rules licitovany``: the game's sizes in /info, its labels in the
    answer, the table robot's own choice; a volený record is refused by name (licitovaný's
    records: tests/test_licit_seat_record.py)."""
    import mariash_env
    from mariash_env.robots.licit_table import LicitTableRobot

    client = TestClient(create_service_app("table", rules="licitovany"))
    info = client.get("/info").json()
    assert (info["rules"], info["obs_size"], info["n_actions"]) == ("licitovany", 1016, 136)
    assert info["accepts"] == ["record", "observation"]
    assert info["record_format"] == "mariash-seat/1"
    e = mariash_env.env(rules="licitovany")
    e.reset(seed=3)
    o = e.observe(e.agent_selection)
    r = client.post("/act", json={"observation": o["observation"].tolist(),
                                  "action_mask": o["action_mask"].tolist()})
    assert r.status_code == 200
    want = LicitTableRobot().act(o)
    assert r.json()["action"] == want
    assert r.json()["label"] == e.unwrapped.action_label(want)
    bad = client.post("/act", json={"observation": [0.0] * 900, "action_mask": [1] * 115})
    assert bad.status_code == 422 and "1016" in bad.json()["error"]
    rec = client.post("/act", json={"record": {"dealer": 0}})
    assert rec.status_code == 422
    assert "the record is for voleny, this service plays licitovany" in rec.json()["error"]


def test_lizany_service_answers_both_seats_of_the_two_player_game():
    """``serve-robot --rules lizany``: lízaný's sizes in /info (221 floats, 32 actions),
    the rule robot's own choice for either seat along a deal, records refused by name."""
    from mariash_env.games.lizany.table_robot import LizanyRuleRobot

    client = TestClient(create_service_app("table", rules="lizany"))
    info = client.get("/info").json()
    assert (info["rules"], info["obs_size"], info["n_actions"]) == ("lizany", 221, 32)
    assert info["accepts"] == ["observation"] and info["record_format"] is None
    e = mariash_env.env(rules="lizany")
    e.reset(seed=5)
    robot, seats = LizanyRuleRobot(), set()
    tick = step_cap("lizany")
    while not any(e.terminations.values()):
        tick()
        agent = e.agent_selection
        o = e.observe(agent)
        r = client.post("/act", json={"observation": o["observation"].tolist(),
                                      "action_mask": o["action_mask"].astype(int).tolist()})
        assert r.status_code == 200, r.text
        want = robot.act(o)
        assert (r.json()["action"], r.json()["label"]) == (want, e.unwrapped.action_label(want))
        seats.add(agent)
        e.step(want)
    assert len(seats) == 2
    bad = client.post("/act", json={"observation": [0.0] * 900, "action_mask": [1] * 115})
    assert bad.status_code == 422 and "221" in bad.json()["error"]
    rec = client.post("/act", json={"record": {"dealer": 0}})
    assert rec.status_code == 422
    assert "for voleny, this service plays lizany" in rec.json()["error"]


def test_an_address_that_cannot_be_bound_is_one_error(tmp_path, capsys):
    """``serve-robot`` and ``play`` on a port in use or an unknown host: one ``error:``
    line naming the address, exit status 2, and no URL announced before it."""
    from mariash_env.play.cli import main
    from mariash_env.play.listen import listen

    busy = listen("127.0.0.1", free_port())
    busy.listen()
    port = busy.getsockname()[1]
    try:
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}: .*in use"):
            listen("127.0.0.1", port)
        for argv in (["serve-robot", "table", "--port", str(port)],
                     ["play", "--no-browser", "--port", str(port),
                      "--save-dir", str(tmp_path)]):
            with pytest.raises(SystemExit) as e:
                main(argv)
            out = capsys.readouterr()
            assert e.value.code == 2 and "http://" not in out.out, out
            assert out.err.startswith(f"error: cannot listen on 127.0.0.1:{port}"), out
    finally:
        busy.close()
    with pytest.raises(OSError, match="cannot listen on no such host:8799: unknown host"):
        listen("no such host", 8799)
