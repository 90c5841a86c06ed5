"""The robot service under malformed requests (issue #29 items 1, 6 and 9): every bad
request gets a 4xx JSON error naming it, bodies are bounded, and nothing compiled runs on
a record of another game; ``scripts/fuzz_service.py`` finds no 5xx or crash."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from mariash_env.play.service import (
    MAX_BODY,
    MAX_DEPTH,
    ErrorSafeJSON,
    create_service_app,
)
from scripts import fuzz_service

warnings.filterwarnings("ignore", message=".*httpx.*")
from starlette.testclient import TestClient  # noqa: E402  (after the warning filter)

ROOT = Path(__file__).resolve().parents[1]
README = fuzz_service.README_RECORD


@pytest.fixture(scope="module")
def voleny():
    return TestClient(create_service_app("table"), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def licit():
    return TestClient(create_service_app("table", rules="licitovany"),
                      raise_server_exceptions=False)


@pytest.fixture(scope="module")
def position():
    return fuzz_service.positions("voleny", 1, 0)[0]


def test_item1_a_record_of_another_game_is_refused_before_the_engine_runs():
    """Issue #29 item 1: the README's record with ``"rules": {"rules": "licitovany"}`` to
    a volený service gave 500s and heap corruption at exit (the compiled volený kernels
    ran on licitovaný rules).  Now a 422 naming both games, every time, and the process
    exits cleanly (a subprocess, so a crash fails this test, not the run)."""
    code = f"""
import json, warnings
warnings.filterwarnings("ignore")
from starlette.testclient import TestClient
from mariash_env.play.service import create_service_app
rec = {json.dumps(README)}
c = TestClient(create_service_app("table"), raise_server_exceptions=False)
out = []
for i in range(60):
    rules = [{{"rules": "licitovany"}}, {{"rules": "licitovany", "deals": 4}}][i % 2]
    r = c.post("/act", json={{"record": {{**rec, "rules": rules, "deal": i % 4}}}})
    out.append([r.status_code, r.json()["error"]])
print(json.dumps(out))
"""
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    answers = json.loads(run.stdout.strip().splitlines()[-1])
    assert {s for s, _ in answers} == {422}
    assert all("the record is for licitovany, this service plays voleny" in e
               for _, e in answers)


def test_item1_every_game_mismatch_is_named(voleny, licit):
    """Issue #29 item 1: lízaný rules, a non-string game and, on a licitovaný service, a
    volený seat record get a 4xx that says which game the record is for."""
    r = voleny.post("/act", json={"record": {**README, "rules": {"rules": "lizany"}}})
    assert r.status_code == 422 and "is for lizany, this service plays voleny" in r.text
    r = voleny.post("/act", json={"record": {**README, "rules": {"rules": ["voleny"]}}})
    assert r.status_code == 422 and "expected a game name" in r.json()["error"]
    r = licit.post("/act", json={"record": README})
    assert r.status_code == 422
    assert "the record is for voleny, this service plays licitovany" in r.json()["error"]
    assert voleny.post("/act", json={"record": README}).status_code == 200
    # a body whose 'record' is no object names no game it is not for
    r = licit.post("/act", json={"record": 1})
    assert r.status_code == 400 and "the record is for" not in r.json()["error"]
    assert "a seat record must be an object" in r.json()["error"]


@pytest.mark.parametrize("value", [1e39, -1e39, 10**400, 2.0**200],
                         ids=["1e39", "-1e39", "int_400_digits", "2^200"])
def test_item6_numbers_beyond_float32_get_422(voleny, position, value):
    """Issue #29 item 6: ``[1e39]*900`` passed the finiteness check and overflowed float32
    (an int of 400 digits raised OverflowError, a 500).  Each is now a 422 naming the
    index and float32."""
    obs = list(position["observation"])
    obs[7] = value
    r = voleny.post("/act", content=json.dumps({**position, "observation": obs}))
    assert r.status_code == 422, r.text
    assert "'observation'[7]" in r.json()["error"] and "float32" in r.json()["error"]


@pytest.mark.parametrize("token", [b"NaN", b"Infinity", b"-Infinity", b"9" * 5000],
                         ids=["NaN", "Infinity", "-Infinity", "int_5000_digits"])
def test_item6_json_tokens_that_are_no_number_we_take(voleny, position, token):
    """Issue #29 item 6: Python's JSON reads NaN/Infinity, and a 5000-digit int only past
    its conversion limit: each is a 4xx JSON error."""
    obs = ["TOKEN", *position["observation"][1:]]
    text = json.dumps({**position, "observation": obs}).encode().replace(b'"TOKEN"', token)
    r = voleny.post("/act", content=text)
    assert 400 <= r.status_code < 500 and isinstance(r.json()["error"], str), r.text


def test_item6_observations_no_seat_sees_get_422(voleny, licit, position):
    """Issue #29 item 6: random numbers of the right size (the table robot's decoder
    failed on them, a 500) and an observation that another position's mask contradicts
    get a 4xx, never a 5xx, for both games."""
    rng = np.random.default_rng(0)
    lic = fuzz_service.positions("licitovany", 1, 0)[0]
    statuses = []
    for client, pos in ((voleny, position), (licit, lic)):
        for _ in range(25):
            obs = rng.choice([0.0, 1.0, 0.5, -3.0], size=len(pos["observation"]))
            r = client.post("/act", json={**pos, "observation": obs.tolist()})
            statuses.append(r.status_code)
            assert r.status_code < 500, r.text
            if r.status_code == 200:
                assert pos["action_mask"][r.json()["action"]]
            else:
                assert "'observation'" in r.json()["error"]
    # A real observation with another position's mask: the licitovaný table robot found
    # no card to choose (IndexError, ValueError of an empty min()), a 500.
    lics = fuzz_service.positions("licitovany", 12, 1)
    for p in lics:
        for q in lics:
            r = licit.post("/act", json={**p, "action_mask": q["action_mask"]})
            statuses.append(r.status_code)
            assert r.status_code < 500, r.text
    assert set(statuses) <= {200, 422} and 422 in statuses


@pytest.mark.parametrize(("mask", "words"), [
    ("zeros", "no legal action"), ("twos", "expected 0 or 1"), ("short", "must be a list"),
    ("strings", "expected 0 or 1"), ("nested", "expected 0 or 1")])
def test_item6_bad_masks_get_422(voleny, position, mask, words):
    """Issue #29 item 6: a mask with no legal action, values other than 0/1, the wrong
    size or nested garbage."""
    m = position["action_mask"]
    bad = {"zeros": [0] * len(m), "twos": [2] * len(m), "short": m[:-1],
           "strings": ["1"] * len(m), "nested": [[1]] * len(m)}[mask]
    r = voleny.post("/act", json={**position, "action_mask": bad})
    assert r.status_code == 422 and words in r.json()["error"], r.text


def test_a_mask_of_booleans_is_read_as_its_0_1(voleny, position):
    """The TorchRL env's mask is bool, so ``mask.tolist()`` gives JSON true/false, which
    were refused ("expected 0 or 1"): booleans are read as 1/0, the same answer as the
    int mask's; a mask mixing both too; any other value is still refused."""
    m = position["action_mask"]
    want = voleny.post("/act", json=position).json()
    flags = np.asarray(m, dtype=bool).tolist()  # what a bool tensor's .tolist() gives
    assert all(isinstance(x, bool) for x in flags)
    for mask in (flags, [*flags[:1], *m[1:]], [*m[:1], *flags[1:]]):
        r = voleny.post("/act", json={**position, "action_mask": mask})
        assert r.status_code == 200 and r.json() == want, r.text
    for value in ("true", None, 0.5, 2, -1, [True], {"x": True}):
        r = voleny.post("/act", json={**position, "action_mask": [value, *m[1:]]})
        assert r.status_code == 422 and "'action_mask'[0]" in r.json()["error"] and \
            "expected 0 or 1 (false or true)" in r.json()["error"], (value, r.text)
    r = voleny.post("/act", json={**position, "action_mask": [False] * len(m)})
    assert r.status_code == 422 and "no legal action" in r.json()["error"], r.text


def test_a_key_given_twice_gets_400_naming_it(voleny, position):
    """A body naming a key twice (``{"action_mask": [...], "action_mask": [...]}``) was
    answered on the last value, silently: an ambiguous request is a 400 naming the key,
    at any depth (a record's field too), before anything is decided."""
    obs, mask = (json.dumps(position[k]) for k in ("observation", "action_mask"))
    other = json.dumps([1] * len(position["action_mask"]))
    for body, key in [
            (f'{{"observation": {obs}, "action_mask": {other}, "action_mask": {mask}}}',
             "'action_mask'"),
            (f'{{"observation": {obs}, "observation": {obs}, "action_mask": {mask}}}',
             "'observation'"),
            ('{"record": {"dealer": 2, "seat": 0, "dealer": 1, "hand": [], "actions": []}}',
             "'dealer'"),
            ('{"record": {"rules": {"players": 4, "players": 3}, "dealer": 2, "seat": 0, '
             '"hand": [], "actions": []}}', "'players'")]:
        r = voleny.post("/act", content=body)
        assert r.status_code == 400, r.text
        assert r.json()["error"] == f"the body names the key {key} twice in one object: " \
            "expected each key once", r.text


def test_item6_error_messages_quoting_a_lone_surrogate_render():
    """Issue #29 item 6: a lone surrogate is valid JSON but not UTF-8; Starlette's
    JSONResponse raised UnicodeEncodeError (a 500) on a message quoting one."""
    from starlette.responses import JSONResponse

    with pytest.raises(UnicodeEncodeError):
        JSONResponse({"error": "\ud800"})
    assert json.loads(ErrorSafeJSON({"error": "bad \ud800"}).body) == {"error": "bad \ud800"}


def test_item9_bodies_over_the_limit_get_413_unread(voleny):
    """Issue #29 item 9: a body over the limit (1 MiB by default) is refused with 413 by
    its Content-Length, or while streaming when it comes chunked."""
    r = voleny.post("/act", content=b" " * (MAX_BODY + 1))
    assert r.status_code == 413 and "over the limit" in r.json()["error"]
    r = voleny.post("/act", content=iter([b" " * 65536] * (MAX_BODY // 65536 + 1)))
    assert r.status_code == 413
    r = voleny.post("/act", content=b"{}", headers={"content-length": "9" * 40})
    assert r.status_code == 413
    r = voleny.post("/act", content=b"{}", headers={"content-length": "x1"})
    assert r.status_code == 400 and "Content-Length" in r.json()["error"]


def test_item9_the_limit_is_configurable_and_fits_a_full_request(position):
    """Issue #29 item 9: ``max_body`` sets the limit; the default takes the largest real
    body (a licitovaný observation of 1016 floats) with room to spare."""
    small = TestClient(create_service_app("random", max_body=200),
                       raise_server_exceptions=False)
    r = small.post("/act", json={"record": README})
    assert r.status_code == 413 and "200" in r.json()["error"]
    lic = fuzz_service.positions("licitovany", 1, 0)[0]
    lic["observation"] = [1 / 3] * len(lic["observation"])
    assert len(json.dumps(lic)) < MAX_BODY // 10
    with pytest.raises(ValueError, match="max_body"):
        create_service_app("random", max_body=0)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 100_000])
def test_item9_deep_nesting_gets_400(voleny, depth):
    """Issue #29 item 9: JSON nested deeper than MAX_DEPTH is a 400 naming the nesting
    (a record field 900 deep was echoed back in a 422, deeper bodies could recurse)."""
    body = (b'{"record": {"seat": 0, "hand": [], "actions": [], "dealer": '
            + b"[" * depth + b"]" * depth + b"}}")
    r = voleny.post("/act", content=body)
    assert r.status_code == 400 and "nested deeper" in r.json()["error"], r.text[:200]


def test_fuzz_batches_find_no_5xx_for_any_game_and_robot():
    """Issue #29 items 1, 6, 9: the service fuzzer (small counts) gets no 5xx, no non-JSON
    answer and no crash: in this process for each robot and game, and once isolated in a
    subprocess (a crash there counts as a failure).  Every served game, lízaný's too."""
    assert set(fuzz_service.GAMES) == {"voleny", "licitovany", "lizany"}
    for spec in ("table", "random"):
        for game in fuzz_service.GAMES:
            res = fuzz_service.run_batch(spec, game, 40, seed=3, seconds=60)
            assert res["failures"] == [], res["failures"]
            assert res["requests"] >= 40 and "200" in res["by_status"]
            assert not any(k.startswith("5") for k in res["by_status"])
    res = fuzz_service.run_isolated("table", "voleny", 20, seed=4, seconds=60)
    assert res["failures"] == [] and res["requests"] > 20, res


# --- HTTP as a client reads it (front-end audit svc79) ----------------------------------
@pytest.mark.parametrize("method,path,allow", [
    ("GET", "/act", "POST"), ("PUT", "/act", "POST"), ("OPTIONS", "/act", "POST"),
    ("DELETE", "/info", "GET, HEAD"), ("POST", "/info", "GET, HEAD"),
])
def test_a_405_names_the_methods_allowed(voleny, method, path, allow):
    """RFC 9110 §15.5.6: a 405 carries ``Allow``; the error names the method to use (it had
    neither: 'method GET is not allowed on /act')."""
    r = voleny.request(method, path)
    assert r.status_code == 405
    assert r.headers.get("allow") == allow
    assert r.json()["error"] == f"method {method} is not allowed on {path}: use {allow}"


@pytest.mark.parametrize("method,path", [
    ("POST", "/act/"), ("GET", "/info/"), ("POST", "/info/"), ("GET", "/act//"),
    ("POST", "/act/extra"),
])
def test_a_trailing_slash_is_a_404_naming_the_routes(voleny, method, path):
    """``POST /act/`` answered Starlette's 307 redirect to ``/act``, with an empty body:
    curl without ``-L`` stopped there, a client that follows sends the body again.  As
    docs/service.md says of a path the service has not: a 404 with the JSON error naming
    the routes, for every route with a slash after it."""
    r = voleny.request(method, path, content=b"{}", follow_redirects=False)
    assert r.status_code == 404 and "location" not in r.headers
    assert r.json() == {"error": f"no such endpoint {path!r}: use POST /act or GET /info"}


@pytest.mark.parametrize("headers", [
    {"content-type": "application/xml"}, {"content-type": "multipart/form-data; boundary=x"},
    {"content-type": "image/png"}, {"content-type": "text/html"},
    {"content-encoding": "gzip"}, {"content-type": "application/json", "content-encoding": "br"},
])
def test_a_body_declared_as_something_else_than_json_gets_415(voleny, headers):
    """A body labelled as another media type (or compressed) is refused with 415 naming
    the header and what is read, before anything is parsed: a README record labelled
    image/png or multipart/form-data was answered 200 as JSON, and a gzipped one got a
    400 'not JSON (utf-8 codec...)'."""
    body = json.dumps({"record": README}).encode()
    r = voleny.post("/act", content=body, headers=headers)
    assert r.status_code == 415, r.text
    name = "Content-Encoding" if "content-encoding" in headers else "Content-Type"
    assert r.json()["error"].startswith(name) and "application/json" in r.json()["error"]


@pytest.mark.parametrize("ctype", [
    None, "application/json", "application/json; charset=utf-8", "text/plain;charset=UTF-8",
    "application/x-www-form-urlencoded", "application/vnd.mariash+json", "APPLICATION/JSON",
])
def test_json_bodies_are_read_as_clients_label_them(voleny, ctype):
    """What clients send by default is read as JSON: no type (httpx, requests' ``data=``),
    application/json (curl --json), text/plain (a browser's fetch of a string),
    application/x-www-form-urlencoded (curl -d, Python's urllib: the docs' examples)."""
    headers = {} if ctype is None else {"content-type": ctype}
    r = voleny.post("/act", content=json.dumps({"record": README}).encode(), headers=headers)
    assert r.status_code == 200, r.text


def test_a_record_naming_no_game_or_an_unknown_one_is_told_so(voleny, licit):
    """The rules mismatch says what the record named: a game that does not exist was 'the
    record is for bridge, this service plays voleny' (as if bridge were a game), and a
    licitovaný record without its ``rules`` got 'the record is for voleny' with no word
    that the record names no game nor how to name licitovaný."""
    for client in (voleny, licit):
        r = client.post("/act", json={"record": {**README, "rules": {"rules": "bridge"}}})
        assert r.status_code == 422
        assert r.json()["error"] == ("record: field 'rules': 'rules' = 'bridge' names no game: "
                                     "expected one of voleny, licitovany, lizany")
    r = licit.post("/act", json={"record": README})
    assert r.status_code == 422
    assert r.json()["error"] == (
        "record: field 'rules': the record is for voleny, this service plays licitovany "
        "(a record whose 'rules' name no game is volený's: send \"rules\": "
        "{\"rules\": \"licitovany\"})")
    # a record naming its game gets no such advice
    r = licit.post("/act", json={"record": {**README, "rules": {"rules": "voleny"}}})
    assert r.json()["error"] == ("record: field 'rules': the record is for voleny, this "
                                 "service plays licitovany")


@pytest.mark.parametrize("field,value,expected", [
    ("scores", [0] * 100_000, "expected 3 ints summing to 0"),
    ("hand", ["7h"] * 10_000, "expected the seat's 12 cards as dealt"),
    ("open_hand", ["7h"] * 1000, "names a card twice"),
])
def test_an_error_quotes_a_long_value_cut_not_whole(voleny, field, value, expected):
    """An error quoting the request's value is cut in the middle, keeping the field and
    what is expected: 'scores' of 100,000 zeros (a 300 KB body) got a 300 KB error, the
    list echoed whole."""
    r = voleny.post("/act", json={"record": {**README, field: value}})
    assert r.status_code == 422
    error = r.json()["error"]
    assert len(r.content) < 1200, len(r.content)
    assert error.startswith(f"record: field '{field}': ") and expected in error
    assert " ... " in error
