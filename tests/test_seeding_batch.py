"""The batched engines' seeding of a reset, compiled (``mariash_env.core.seeding``): every
game's generator words (``seed_words``) and lízaný's first deck (``LizanyGame(seed=s)``'s:
numpy's ``default_rng(s).permutation(32)``) made for the whole batch in one compiled call,
bit for bit what numpy's own calls make (docs: ``VectorEnv`` *Seeding and determinism*;
lízaný's *Batched engine*: game ``i`` of ``reset(seed=s)`` is the AEC deal of ``s + i``)."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.core import seeding
from mariash_env.core.state import seed_words
from mariash_env.games.lizany import core as C
from mariash_env.games.lizany.game import LizanyGame, seeded_deck
from mariash_env.vector import VectorEnv

GAMES = [pytest.param({}, id="voleny"), pytest.param({"rules": "licitovany"}, id="licitovany"),
         pytest.param({"players": 4}, id="four"), pytest.param({"rules": "lizany"}, id="lizany")]


def _many_seeds() -> list[int]:
    """Consecutive small seeds, random ones of every size up to 2**200, and the edges of a
    32-bit word, of int64 and of seed_words' 128 bits (the seed modulo 2**128)."""
    rng = np.random.default_rng(5)
    seeds = list(range(2000))
    seeds += [int(x) for x in rng.integers(0, 2**63, 2000, dtype=np.int64)]
    seeds += [int(x) << int(k) for x, k in zip(rng.integers(1, 2**62, 1000),
                                               rng.integers(0, 200, 1000))]
    for edge in (2**32, 2**63, 2**64, 2**96, 2**128, 2**160):
        seeds += [edge + d for d in range(-3, 4)]
    return seeds


def test_the_compiled_seeding_is_numpys_bit_for_bit():
    """Over 5,042 seeds: the compiled batch gives each seed's ``seed_words`` and numpy's
    ``default_rng(seed).permutation(n)`` (lízaný's deck at n = 32, other sizes too), and
    the process's check found them equal (no fall-back to numpy's calls)."""
    seeds = _many_seeds()
    words, decks = seeding.seed_batch(seeds, 32)
    assert seeding._CHECKED == [True]
    assert words.dtype == decks.dtype == np.int64
    assert np.array_equal(words, np.array([seed_words(s) for s in seeds]))
    assert np.array_equal(decks, np.array([seeded_deck(s) for s in seeds]))
    for n in (1, 2, 5, 100):
        few = seeds[::50]
        assert np.array_equal(seeding.seed_batch(few, n)[1], np.array(
            [np.random.default_rng(s).permutation(n) for s in few])), n
    # seeds of one batch 2**63 apart and more (no common int64 offset), in any order
    far = [2**200 + 1, 3, 2**64, 0]
    w, d = seeding.seed_batch(far, 32)
    assert np.array_equal(w, np.array([seed_words(s) for s in far]))
    assert np.array_equal(d, np.array([seeded_deck(s) for s in far]))
    assert seeding.seed_batch([], 32)[1].shape == (0, 32)


def test_a_numpy_that_draws_otherwise_falls_back_to_numpys_calls(monkeypatch):
    """Should the compiled copy ever differ from the numpy installed, the first reset of the
    process says so (RuntimeWarning) and every later one makes the seeds by numpy's own
    calls: the deals of a seed stay those of the Python game."""
    real = seeding._compiled_batch

    def off_by_one(seeds, deck_size):
        words, decks = real(seeds, deck_size)
        return words + 1, decks

    monkeypatch.setattr(seeding, "_compiled_batch", off_by_one)
    monkeypatch.setattr(seeding, "_CHECKED", [])
    with pytest.warns(RuntimeWarning, match="numpy's own calls"):
        venv = VectorEnv(8, seed=3, rules="lizany")
        venv.reset()
    assert seeding._CHECKED == [False]
    for i in range(8):
        g = LizanyGame(seed=3 + i)
        assert np.array_equal(venv.states[i, C.DECK:C.DECK + 32], g.st[C.DECK:C.DECK + 32])
        assert np.array_equal(venv.states[i, C.RNG:C.RNG + 4],
                              seed_words(3 + i).astype(np.uint32).view(np.int32))


@pytest.mark.parametrize("rules", GAMES)
def test_a_reset_makes_no_generator_a_game(monkeypatch, rules):
    """A whole reset of 4,096 lízaný games took 80-107 ms, nearly all of it a numpy
    ``Generator`` and two ``SeedSequence`` a game made in Python (volený's 30 ms, one
    ``SeedSequence`` a game).  Now a reset (seeded, unseeded, from a list, partial) makes
    none: every seed's words and deck come from one compiled call; the states are those
    numpy's calls deal (the fall-back path, the reference)."""
    venv = VectorEnv(300, **rules)  # no seed: the sequence starts at 128 bits of entropy
    venv.reset()  # the process's check of the compiled path (numpy's calls) done
    start = venv._next_seed  # the sequence the resets below continue
    made = []
    for name in ("SeedSequence", "default_rng", "Generator"):
        real = getattr(np.random, name)
        monkeypatch.setattr(np.random, name, lambda *a, _r=real, _n=name, **k: (
            made.append(_n), _r(*a, **k))[1])
    calls = [(), (2**70,), ([5, None] * 150,)]
    got = []
    for args in calls:
        venv.reset(*args)
        got.append(venv.copy_states())
    venv.reset_rows(np.arange(0, 300, 7), seed=11)
    got.append(venv.copy_states())
    assert made == []
    monkeypatch.undo()
    ref = VectorEnv(300, **rules)
    monkeypatch.setattr(seeding, "_CHECKED", [False])  # numpy's own calls: the reference
    ref._next_seed = start
    want = []
    for args in calls:
        ref.reset(*args)
        want.append(ref.copy_states())
    ref.reset_rows(np.arange(0, 300, 7), seed=11)
    want.append(ref.copy_states())
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
