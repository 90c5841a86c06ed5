"""The batched engines' seeding: one seed sequence a batch, the engine's, which the vector
front ends read and set (``VectorEnv.next_seed``), and a reset's seeds compiled
(``mariash_env.core.seeding``): every game's generator words (``seed_words``) and
lízaný's first deck (``LizanyGame(seed=s)``'s: numpy's ``default_rng(s).permutation(32)``)
made for the whole batch in one compiled call, bit for bit what numpy's own calls make
(docs: ``VectorEnv`` *Seeding and determinism*; lízaný's *Batched engine*: game ``i`` of
``reset(seed=s)`` is the AEC deal of ``s + i``)."""

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


def test_the_state_words_fall_back_to_numpy_as_the_batches_do(monkeypatch):
    """``seed_words`` (a game's, the AEC env's reset) uses the same compiled SeedSequence as
    the batches, under the same once-a-process check: a compiled copy that differed from
    numpy would give way to numpy's own words, with the warning."""
    from mariash_env.core import state as S

    real = seeding._compiled_words
    monkeypatch.setattr(seeding, "_compiled_words", lambda n: real(n) + 1)
    monkeypatch.setattr(seeding, "_WORDS_CHECKED", [])
    with pytest.warns(RuntimeWarning, match="generator words are made by numpy's own calls"):
        words = S.seed_words(12)
    assert seeding._WORDS_CHECKED == [False]
    want = np.random.SeedSequence(12).generate_state(4, dtype=np.uint32).astype(np.int64)
    assert words.tolist() == want.tolist() == S.seed_words(12).tolist()
    monkeypatch.undo()
    assert seeding.words_of(12).tolist() == want.tolist()  # the compiled copy: numpy's


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


# --- one seed sequence a batch: the engine's -----------------------------------------------


class _Front:
    """One front end over the engine, driven alike: whole resets (unseeded or from a seed),
    partial resets (by position; a seed list where the front end takes one) and steps."""

    def __init__(self, kind: str, n: int, seed: int | None, rules: dict) -> None:
        self.kind, self.n, self.rng = kind, n, np.random.default_rng(0)
        if kind == "engine":
            self.env = VectorEnv(n, seed=seed, **rules)
        elif kind == "gym":
            from mariash_env.gym_vector import GymVectorEnv

            self.env = GymVectorEnv(n, seed=seed, **rules)
        else:
            pytest.importorskip("torchrl")
            from mariash_env.torchrl_env import torchrl_env

            self.env = torchrl_env(n, seed=seed, **rules)
        self.engine = self.env if kind == "engine" else self.env.vector_env

    def reset(self, seed=None) -> None:
        if self.kind == "torchrl":  # TorchRL seeds the next reset: set_seed
            if seed is not None:
                self.env.set_seed(seed)
            self.td = self.env.reset()
        else:
            self.env.reset(seed=seed)

    def partial(self, rows, seed=None) -> None:
        mask = np.isin(np.arange(self.n), rows)
        if self.kind == "engine":
            self.env.reset_rows(mask, seed)
        elif self.kind == "gym":
            self.env.reset(seed=seed, options={"reset_mask": mask})
        else:
            import torch
            from tensordict import TensorDict

            assert seed is None  # (TorchRL's reset takes no seed)
            self.env.reset(TensorDict({"_reset": torch.from_numpy(mask)[:, None]},
                                      batch_size=[self.n]))

    def step(self) -> None:
        """One legal action in every game (a TorchRL game then stands where a "_reset"
        restarts it: not at the first decision of its partie)."""
        mask = self.engine.current().mask
        from mariash_env.vector import random_legal_actions

        a = random_legal_actions(mask, self.rng)
        if self.kind == "engine":
            self.env.step(a)
        elif self.kind == "gym":
            self.env.step(a)
        else:
            import torch

            self.env.step(self.td.set("action", torch.from_numpy(a)))
            self.engine.current()


@pytest.mark.parametrize("kind", ["engine", "gym", "torchrl"])
@pytest.mark.parametrize("rules", [pytest.param({}, id="voleny"),
                                   pytest.param({"rules": "lizany"}, id="lizany")])
def test_one_seed_sequence_through_every_front_end(kind, rules):
    """GymVectorEnv and the TorchRL env kept seed counters of their own (``_next_seed``,
    ``_first_seed``) beside the engine's, each advanced by its own copy of the rule: a
    reset of the engine itself (``vector_env.reset()``) moved the engine's only, and the
    front end's next reset dealt those games again; made without a seed, a front end drew
    entropy of its own.  Now the engine's sequence is the only one (``next_seed``): after
    whole, partial, seeded and unseeded resets through the front end and the engine, in
    any mix, every game holds the deal of the seed the documented rule gives it (game i of
    a reset from s: s + i; a partial reset by position; the sequence on after the largest
    seed used) and the sequence stands where that rule says."""
    n = 6
    ref = {}

    def dealt(seed):
        if seed not in ref:  # game 0 of a reset from seed: the deal of that seed
            v = VectorEnv(1, **rules)
            v.reset(seed=seed)
            ref[seed] = v.copy_states()[0]
        return ref[seed]

    def check(front, seeds, nxt):
        states = front.engine.copy_states()
        for i, s in enumerate(seeds):
            if s is not None:
                assert np.array_equal(states[i], dealt(s)), (kind, i, s)
        assert front.engine.next_seed == nxt
        if front.env is not front.engine:
            assert not {"_next_seed", "_first_seed"} & set(vars(front.env)), "a 2nd counter"

    f = _Front(kind, n, 100, rules)
    assert f.engine.next_seed == 100 and f.engine.first_seed == 100
    f.reset()
    check(f, range(100, 106), 106)
    f.step()
    f.partial([1, 4])  # by position: next + 1, next + 4
    check(f, [None, 107, None, None, 110, None], 111)
    f.engine.reset()  # the engine itself: 111..116
    check(f, range(111, 117), 117)
    f.reset()  # goes on after the engine's reset, does not deal 111.. again
    check(f, range(117, 123), 123)
    f.reset(seed=50)
    check(f, range(50, 56), 56)
    f.step()
    f.partial([0, 5])
    check(f, [56, None, None, None, None, 61], 62)
    if kind != "torchrl":  # a seed list, None where the game is unseeded
        f.step()
        f.partial([1, 2, 5], seed=[None, 7, None, None, None, 3])
        check(f, [None, 7, 64, None, None, 3], 65)
    f.reset()
    nxt = f.engine.next_seed
    check(f, range(nxt - n, nxt), nxt)

    g = _Front(kind, n, None, rules)  # no seed: the engine's entropy, the only one
    start = g.engine.next_seed
    assert g.engine.first_seed is None and start >= 2**64
    g.reset()
    check(g, range(start, start + n), start + n)


def test_a_negative_seed_is_refused_not_a_hang():
    """A negative seed looped forever in the compiled path (its 32-bit words, split by
    shifting, never reached zero); it is a ValueError, as numpy's ``default_rng`` gives."""
    for call in (lambda: seeding.seed_batch([-1]), lambda: seeding.seed_batch([5, -2**70], 32),
                 lambda: seeding.seeded_permutation(-3, 32)):
        with pytest.raises(ValueError, match=">= 0"):
            call()
    with pytest.raises(ValueError):
        np.random.default_rng(-1)



def test_the_numpy_fallback_refuses_a_negative_seed_as_the_compiled_path(monkeypatch):
    """With numpy's own calls (the fallback), a negative seed without a deck was taken modulo
    2**128 (seed_words' reading) where the compiled path refuses it: both refuse it."""
    monkeypatch.setattr(seeding, "_CHECKED", [False])
    for seeds, deck in (([-1], 0), ([5, -2**70], 0), ([-3], 32)):
        with pytest.raises(ValueError, match=">= 0"):
            seeding.seed_batch(seeds, deck)
    assert seeding.seed_batch([3], 0)[0].tolist() == [seeding._numpy_words(3).tolist()]
