"""Seeding per INTERFACE.md for every environment and game (issue #31 item 1, "seeding
breaks reproducibility"; the hardening list of issue #29).

``reset(seed=s)`` seeds the episode generator once; later ``reset()`` calls without a seed
continue it, so two processes making the same calls see the same deals; ``reset()``
without any seed ever given draws fresh entropy; ``reset(seed=s)`` itself deals exactly
what it always dealt.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mariash_env
from mariash_env.game import EpisodeSeeds, Game, OptionError, continue_seed
from mariash_env.games.lizany import game as lizany

ROOT = Path(__file__).resolve().parent.parent

# Every game's AEC env: volený, licitovaný, four players, lízaný.
GAMES = {
    "voleny": "mariash_env.env(deals=2)",
    "licitovany": "mariash_env.env(rules='licitovany', deals=2)",
    "four": "mariash_env.env(players=4, deals=2)",
    "lizany": "lizany.env()",
}

# One process: for every game, the dealt state and first observation of each reset.
SCRIPT = """
import hashlib, json, sys
import mariash_env
from mariash_env.games.lizany import game as lizany
GAMES = {games}
calls = json.loads(sys.argv[1])
out = {{}}
for name, make in GAMES.items():
    e = eval(make)
    seen = []
    for seed in calls:
        e.reset(seed=seed)
        raw = e.unwrapped
        obs = e.observe(e.agent_selection)["observation"]
        seen.append(hashlib.sha1(raw.state().tobytes() + obs.tobytes()).hexdigest())
    out[name] = seen
print(json.dumps(out))
"""


def _run(calls: list[int | None]) -> dict[str, list[str]]:
    code = SCRIPT.format(games=repr(GAMES))
    res = subprocess.run([sys.executable, "-c", code, json.dumps(calls)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _deal(e) -> str:
    raw = e.unwrapped
    obs = e.observe(e.agent_selection)["observation"]
    return hashlib.sha1(raw.state().tobytes() + obs.tobytes()).hexdigest()


def test_seed_once_then_unseeded_resets_match_across_processes() -> None:
    """Issue #31 item 1 (#29): reset(seed=11) then four plain reset() calls deal the same
    in two processes, for every game; the unseeded deals differ from each other."""
    calls = [11, None, None, None, None]
    a, b = _run(calls), _run(calls)
    assert a == b
    for name, seen in a.items():
        assert len(set(seen)) == len(seen), f"{name}: unseeded resets repeat a deal"


def test_no_seed_ever_draws_fresh_entropy_across_processes() -> None:
    """Issue #31 item 1 (#29): without any seed two processes deal differently."""
    a, b = _run([None, None]), _run([None, None])
    for name in GAMES:
        assert not set(a[name]) & set(b[name]), name


@pytest.mark.parametrize("name", list(GAMES))
def test_seeded_reset_deals_as_before_and_reseeds(name: str) -> None:
    """Issue #31 item 1 (#29): reset(seed=s) deals exactly what it always dealt (that of a
    fresh env), whatever came before; a second seed restarts the generator."""
    e = eval(GAMES[name])
    fresh = eval(GAMES[name])
    fresh.reset(seed=11)
    first = _deal(fresh)
    fresh.reset()
    after = _deal(fresh)
    e.reset(seed=5)
    e.reset()
    e.reset(seed=11)
    assert _deal(e) == first
    e.reset()
    assert _deal(e) == after


def test_seeded_reset_is_the_partie_of_that_seed() -> None:
    """Issue #31 item 1 (#29): the env's reset(seed=s) is Game.new_partie(seed=s) (what
    records, tests and shipped numbers depend on), and unseeded continuation draws the
    partie seeds SingleAgentEnv draws (one generator, Gymnasium's np_random)."""
    from gymnasium.utils import seeding

    e = mariash_env.env()
    e.reset(seed=11)
    g = Game()
    g.new_partie(seed=11)
    assert np.array_equal(e.unwrapped.state(), g.full_state())
    rng, _ = seeding.np_random(11)
    e.reset()
    g.new_partie(seed=continue_seed(rng))
    assert np.array_equal(e.unwrapped.state(), g.full_state())
    z = lizany.env()
    z.reset(seed=11)
    assert z.unwrapped.game.deck == lizany.LizanyGame(seed=11).deck


def test_single_agent_env_draws_the_same_partie_seeds() -> None:
    """Issue #31 item 1 (#29): SingleAgentEnv and the AEC envs share one continuation."""
    s = mariash_env.SingleAgentEnv(opponents="random")
    seeds = EpisodeSeeds()
    s.reset(seed=11)
    assert s._seed == seeds.seed_of(11)
    for _ in range(3):
        s.reset()
        assert s._seed == seeds.seed_of(None)


def test_failed_reset_leaves_the_generator_as_it_was() -> None:
    """Issue #31 item 1 (#29): a reset refused for a bad option draws nothing."""
    a, b = mariash_env.env(), mariash_env.env()
    a.reset(seed=3)
    b.reset(seed=3)
    with pytest.raises(OptionError):
        a.reset(options={"dealer": 7})
    with pytest.raises(OptionError):
        a.reset(seed=-1)
    a.reset()
    b.reset()
    assert _deal(a) == _deal(b)


def _numpy_words(seed) -> np.ndarray:
    """The state generator's words as numpy's SeedSequence gives them (the definition)."""
    w = np.random.SeedSequence(int(seed) & ((1 << 128) - 1)).generate_state(
        4, dtype=np.uint32).astype(np.int64)
    if not w.any():
        w[0] = 0x9E3779B9
    return w


def test_seed_words_are_numpys_seed_sequence():
    # seed_words and seed_rng compute SeedSequence's words in a compiled copy of its
    # algorithm (numpy's Python object was half of a reset): every seed gives numpy's words
    import random

    from mariash_env.core import state as S

    rng = random.Random(17)
    seeds = [0, 1, 2, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1, 2**64,
             2**96 - 1, 2**96, 2**127 + 5, 2**128 - 1, 2**128, 2**200 + 7, -1, -(2**40),
             np.int64(7), np.uint64(2**63 + 3), np.int32(-9)]
    seeds += [rng.getrandbits(rng.choice((8, 31, 32, 33, 63, 64, 65, 100, 128, 140)))
              * rng.choice((1, 1, -1)) for _ in range(3000)]
    for seed in seeds:
        want = _numpy_words(seed)
        got = S.seed_words(seed)
        assert got.dtype == np.int64 and got.tolist() == want.tolist(), seed
        st = S.new_state()
        S.seed_rng(st, seed)
        expected = S.new_state()
        expected[S.RNG:S.RNG + 4] = want.astype(np.uint32).view(np.int32)
        np.testing.assert_array_equal(st, expected)
    assert S.seed_words(None).shape == (4,)  # fresh entropy: numpy's own


def test_a_seeded_reset_makes_no_seed_sequence(monkeypatch):
    # the partie's generator words come from the compiled SeedSequence: numpy's Python
    # object is made only for fresh entropy; the deals are those numpy's words give
    from mariash_env.core import state as S

    def numpy_seed_rng(st: np.ndarray, seed: int) -> None:  # seed_rng by numpy's words
        st[S.RNG:S.RNG + 4] = _numpy_words(seed).astype(np.uint32).view(np.int32)

    want = [Game(deals=2) for _ in range(3)]
    with monkeypatch.context() as m:
        m.setattr(S, "seed_rng", numpy_seed_rng)
        for k, g in enumerate(want):
            g.new_partie(seed=k)
    monkeypatch.setattr(np.random, "SeedSequence", None)
    e = mariash_env.env(deals=2)
    for k, g in enumerate(want):
        e.reset(seed=k)
        np.testing.assert_array_equal(e.unwrapped.game.st, g.st)
