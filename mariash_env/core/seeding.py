"""numpy's seeding of a game, compiled for a batch of seeds: bit for bit what numpy draws.

Every game a batched engine starts is seeded from one integer ``s``: its generator's
words :func:`~mariash_env.core.state.seed_words` (``SeedSequence(s).generate_state(4,
uint32)``) and, for lízaný, its first deck ``np.random.default_rng(s).permutation(32)``
(:func:`mariash_env.games.lizany.game.seeded_deck`, the deck of ``LizanyGame(seed=s)``).
Made in Python, one ``SeedSequence`` and one ``Generator`` a game, those cost 7 and 10 µs a
game (up to 22 µs between episodes, the object's code out of the caches): most of a whole
reset of thousands of games, half of an AEC env's seeded reset.  :func:`seed_batch` computes
them for every seed of a batch in one compiled call, :func:`words_of` one game's words
(``seed_words`` itself), by numpy's own algorithms:

* ``SeedSequence`` (NEP 19; numpy's ``bit_generator.pyx``): the seed's 32-bit words, least
  significant first, hashed into a pool of four words (``mix_entropy``), from which
  ``generate_state`` hashes out the words asked for;
* ``PCG64`` seeded from ``generate_state(4, uint64)`` (``pcg64_set_seed``: state and
  increment, the high 64 bits first), the XSL-RR output of the 128-bit LCG, 32-bit draws
  taken from a 64-bit output low half first (``pcg64_next32``);
* ``Generator.permutation(n)``: ``arange(n)`` shuffled by Fisher-Yates from the end, each
  index drawn by ``random_interval`` (a mask of the bound's bits, 32-bit draws rejected
  until one is within it).

Those are numpy's stable streams (a ``Generator``'s ``permutation`` of a seed has not
changed since numpy 1.17), but the reference stays numpy itself: :func:`matches_numpy`
and :func:`words_of`'s own check compare the compiled results with numpy's on a few seeds
once a process, and each falls back to numpy's own calls (with a :class:`RuntimeWarning`)
if a numpy ever draws otherwise, so the deals of a seed are always numpy's.
The tests compare them over many seeds.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numba
import numpy as np

from .jit import njit_generic

__all__ = ["seed_batch", "words_of", "matches_numpy", "seeded_permutation"]

_M32 = np.uint64(0xFFFFFFFF)
_S16 = np.uint64(16)
_S32 = np.uint64(32)
_S58 = np.uint64(58)
_S63 = np.uint64(63)
_S64 = np.uint64(64)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)

# numpy's SeedSequence constants (bit_generator.pyx; XSHIFT = 32 // 2)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_POOL = 4
# PCG64's 128-bit multiplier (PCG_DEFAULT_MULTIPLIER_128), high and low halves
_PCG_MUL_HI = np.uint64(2549297995355413924)
_PCG_MUL_LO = np.uint64(4865540595714422341)
# seed_words' replacement of an all-zero state
_NONZERO = 0x9E3779B9
_SEED_WORDS = 4  # words of entropy seed_words keeps (the seed modulo 2**128)
_MASK128 = (1 << 128) - 1


@njit_generic
def _hashmix(value, hash_const):
    """SeedSequence's ``hashmix``: ``(hashed value, next hash constant)``, 32-bit words."""
    value = (value ^ hash_const) & _M32
    hash_const = (hash_const * _MULT_A) & _M32
    value = (value * hash_const) & _M32
    return value ^ (value >> _S16), hash_const


@njit_generic
def _mix(x, y):
    r = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _M32
    return r ^ (r >> _S16)


@njit_generic
def _pool(words, nw, pool):
    """SeedSequence's pool (``mix_entropy``) of the entropy ``words[:nw]`` (32-bit words,
    least significant first), into ``pool`` (uint64[4])."""
    h = _INIT_A
    for i in range(_POOL):
        v, h = _hashmix(words[i] if i < nw else _ZERO, h)
        pool[i] = v
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                v, h = _hashmix(pool[src], h)
                pool[dst] = _mix(pool[dst], v)
    for src in range(_POOL, nw):
        for dst in range(_POOL):
            v, h = _hashmix(words[src], h)
            pool[dst] = _mix(pool[dst], v)


@njit_generic
def _generate(pool, out):
    """``SeedSequence.generate_state(len(out), uint32)`` of ``pool``, into ``out``."""
    h = _INIT_B
    for i in range(out.shape[0]):
        v = (pool[i % _POOL] ^ h) & _M32
        h = (h * _MULT_B) & _M32
        v = (v * h) & _M32
        out[i] = v ^ (v >> _S16)


@njit_generic
def _state_words(pool, gen, out):
    """``seed_words``' four words of ``pool`` into ``out`` (int64[4]; ``gen``: uint64
    scratch of at least 4): ``generate_state(4, uint32)``, never all zero."""
    _generate(pool, gen[:4])
    zero = True
    for k in range(4):
        out[k] = np.int64(gen[k])
        zero = zero and gen[k] == _ZERO
    if zero:
        out[0] = _NONZERO


@njit_generic
def _words4(e0, e1, e2, e3, out):
    """``seed_words`` of the entropy ``e0..e3`` (an integer below 2**128 as its 32-bit
    words, least significant first) into ``out``: words above the entropy's are hashed as
    zeros, as SeedSequence pads its pool, so four words give every such seed's pool."""
    words = np.empty(_POOL, dtype=np.uint64)
    words[0], words[1], words[2], words[3] = e0, e1, e2, e3
    pool = np.empty(_POOL, dtype=np.uint64)
    _pool(words, _POOL, pool)
    _state_words(pool, np.empty(_POOL, dtype=np.uint64), out)


@njit_generic
def _mulhi64(a, b):
    """The high 64 bits of the 128-bit product of two uint64."""
    a0, a1 = a & _M32, a >> _S32
    b0, b1 = b & _M32, b >> _S32
    p01 = a0 * b1
    p10 = a1 * b0
    mid = ((a0 * b0) >> _S32) + (p01 & _M32) + (p10 & _M32)
    return a1 * b1 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)


@njit_generic
def _pcg_step(st):
    """The LCG step ``state = state * MULT + inc`` (mod 2**128) of ``st`` = uint64[state hi,
    state lo, inc hi, inc lo]."""
    hi, lo = st[0], st[1]
    nhi = hi * _PCG_MUL_LO + lo * _PCG_MUL_HI + _mulhi64(lo, _PCG_MUL_LO)
    nlo = lo * _PCG_MUL_LO
    lo2 = nlo + st[3]
    st[0] = nhi + st[2] + (_ONE if lo2 < nlo else _ZERO)
    st[1] = lo2


@njit_generic
def _pcg_next64(st):
    _pcg_step(st)
    x = st[0] ^ st[1]
    r = st[0] >> _S58
    return (x >> r) | (x << ((_S64 - r) & _S63))


@njit_generic
def _pcg_seed(pool, st, tmp):
    """PCG64 seeded as ``PCG64(SeedSequence)``: ``generate_state(4, uint64)`` (``tmp``:
    uint64[8], its 32-bit words) as (state hi, state lo, inc hi, inc lo), then
    ``pcg_setseq_128_srandom_r``."""
    _generate(pool, tmp)
    s_hi = tmp[0] | (tmp[1] << _S32)
    s_lo = tmp[2] | (tmp[3] << _S32)
    i_hi = tmp[4] | (tmp[5] << _S32)
    i_lo = tmp[6] | (tmp[7] << _S32)
    st[0] = _ZERO
    st[1] = _ZERO
    st[2] = (i_hi << _ONE) | (i_lo >> _S63)  # inc = initseq << 1 | 1
    st[3] = (i_lo << _ONE) | _ONE
    _pcg_step(st)
    lo = st[1] + s_lo
    st[0] = st[0] + s_hi + (_ONE if lo < s_lo else _ZERO)
    st[1] = lo
    _pcg_step(st)


@njit_generic
def _permutation(st, out):
    """``Generator.permutation(len(out))`` from the PCG64 state ``st``: ``arange``, then
    ``_shuffle_raw`` with ``random_interval`` on 32-bit draws (the buffered half first)."""
    n = out.shape[0]
    for i in range(n):
        out[i] = i
    have = False
    half = _ZERO
    for i in range(n - 1, 0, -1):
        bound = np.uint64(i)
        mask = bound
        for s in (1, 2, 4, 8, 16, 32):
            mask |= mask >> np.uint64(s)
        while True:
            if have:
                v = half
                have = False
            else:
                x = _pcg_next64(st)
                v = x & _M32
                half = x >> _S32
                have = True
            v &= mask
            if v <= bound:
                break
        j = np.int64(v)
        t = out[i]
        out[i] = out[j]
        out[j] = t


@njit_generic
def _entropy(base, nb, off, words):
    """The 32-bit words of ``base + off`` (``base``: ``nb`` words, least significant first;
    ``off`` >= 0) into ``words``; their count (1 for zero, as numpy counts them)."""
    carry = np.uint64(off)
    n = 0
    for k in range(words.shape[0]):
        b = base[k] if k < nb else _ZERO
        v = b + (carry & _M32)
        words[k] = v & _M32
        carry = (carry >> _S32) + (v >> _S32)
        if words[k] != _ZERO:
            n = k + 1
    return max(n, 1)


@njit_generic
def _seed_batch(base, nb, offsets, deck_size, words_out, decks_out):
    """Game ``j``'s seed ``base + offsets[j]``: its ``seed_words`` into ``words_out[j]`` and,
    with ``deck_size``, its ``default_rng(seed).permutation(deck_size)`` into
    ``decks_out[j]``."""
    words = np.empty(nb + 3, dtype=np.uint64)
    pool = np.empty(_POOL, dtype=np.uint64)
    gen = np.empty(8, dtype=np.uint64)
    st = np.empty(4, dtype=np.uint64)
    for j in range(offsets.shape[0]):
        nw = _entropy(base, nb, offsets[j], words)
        # seed_words: the seed modulo 2**128 (a seed of more words hashes them all in)
        kept = min(nw, _SEED_WORDS)
        while kept > 1 and words[kept - 1] == _ZERO:
            kept -= 1
        _pool(words, kept, pool)
        _state_words(pool, gen, words_out[j])
        if deck_size:
            if kept != nw:
                _pool(words, nw, pool)
            _pcg_seed(pool, st, gen)
            _permutation(st, decks_out[j])


def _split32(x: int) -> list[int]:
    """``x`` (>= 0) as 32-bit words, least significant first (at least one)."""
    out = [x & 0xFFFFFFFF]
    x >>= 32
    while x:
        out.append(x & 0xFFFFFFFF)
        x >>= 32
    return out


def _numpy_words(seed: int) -> np.ndarray:
    """``seed_words(seed)`` by numpy's own ``SeedSequence`` (the reference)."""
    ss = np.random.SeedSequence(int(seed) & _MASK128)
    w = ss.generate_state(4, dtype=np.uint32).astype(np.int64)
    if not w.any():
        w[0] = _NONZERO
    return w


def _numpy_batch(seeds: Sequence[int], deck_size: int) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`seed_batch` computes, by numpy's calls one seed at a time."""
    words = np.empty((len(seeds), 4), dtype=np.int64)
    decks = np.empty((len(seeds), deck_size), dtype=np.int64)
    for j, s in enumerate(seeds):
        if s < 0:  # as the compiled path (seed_words alone would take it modulo 2**128)
            raise ValueError(f"a seed must be an int >= 0, got {s!r}")
        words[j] = _numpy_words(s)
        if deck_size:
            decks[j] = np.random.default_rng(s).permutation(deck_size)
    return words, decks


def _compiled_batch(seeds: Sequence[int], deck_size: int) -> tuple[np.ndarray, np.ndarray]:
    n = len(seeds)
    words = np.empty((n, 4), dtype=np.int64)
    decks = np.empty((n, deck_size), dtype=np.int64)
    if n == 0:
        return words, decks
    base = min(seeds)
    if base < 0:  # (its 32-bit words would never end: _split32)
        raise ValueError(f"a seed must be an int >= 0, got {base!r}")
    try:  # one int64 offset a seed from the smallest (a reset's seeds are base + i)
        offsets = np.fromiter((s - base for s in seeds), dtype=np.int64, count=n)
    except OverflowError:  # seeds 2**63 apart and more: each from its own base
        for j, s in enumerate(seeds):
            words[j:j + 1], decks[j:j + 1] = _compiled_batch([s], deck_size)
        return words, decks
    b = _split32(int(base))
    _seed_batch(np.array(b, dtype=np.uint64), len(b), offsets, deck_size, words, decks)
    return words, decks


def seeded_permutation(seed: int, n: int) -> np.ndarray:
    """``np.random.default_rng(seed).permutation(n)``, compiled (int64[n])."""
    return _compiled_batch([int(seed)], n)[1][0]


# Seeds that reach every branch: zero, one word, the 32-bit edge, words with zeros above,
# the 128-bit edge of seed_words and beyond it (more entropy words than the pool).
_PROBES = (0, 1, 7, 2**32 - 1, 2**32, 2**63 + 5, 2**96, 2**128 - 1, 2**128, 2**128 + 9,
           2**160 + 2**140 + 3)


def matches_numpy(seeds: Sequence[int] = _PROBES, deck_size: int = 32) -> bool:
    """Whether the compiled :func:`seed_batch` gives numpy's own words and permutations for
    ``seeds`` (a few that reach every branch, by default)."""
    got = _compiled_batch(list(seeds), deck_size)
    want = _numpy_batch(list(seeds), deck_size)
    return all(np.array_equal(g, w) for g, w in zip(got, want))


def _compiled_words(n: int) -> np.ndarray:
    """:func:`words_of` of ``0 <= n < 2**128`` by the compiled ``SeedSequence``."""
    out = np.empty(4, dtype=np.int64)
    _words4(n & 0xFFFFFFFF, (n >> 32) & 0xFFFFFFFF, (n >> 64) & 0xFFFFFFFF, n >> 96, out)
    return out


def _words_match_numpy(seeds: Sequence[int] = _PROBES) -> bool:
    """Whether the compiled :func:`words_of` gives numpy's ``SeedSequence`` words for
    ``seeds``."""
    return all(np.array_equal(_compiled_words(int(s) & _MASK128), _numpy_words(s))
               for s in seeds)


# [whether the compiled path matches numpy], once checked a process: the batches', the words'
_CHECKED: list[bool] = []
_WORDS_CHECKED: list[bool] = []


def _compiled_ok(checked: list[bool], check: Callable[[], bool], what: str) -> bool:
    """Whether the compiled path that ``checked`` stands for gives numpy's results: asked of
    ``check`` the first time in a process; a numpy that ever draws otherwise gets a
    RuntimeWarning, and ``what`` is made by numpy's own calls from then on."""
    if not checked:  # (NUMBA_DISABLE_JIT: numpy's own calls are the faster Python)
        checked.append(not numba.config.DISABLE_JIT and check())
        if not checked[0] and not numba.config.DISABLE_JIT:
            warnings.warn(
                f"numpy {np.__version__} seeds a generator or permutes otherwise than the "
                "compiled copy of its SeedSequence / PCG64 / permutation "
                f"(mariash_env.core.seeding): {what} by numpy's own calls instead (the same "
                "deals, slower)", RuntimeWarning, stacklevel=3)
    return checked[0]


def words_of(seed: int) -> np.ndarray:
    """``seed_words(seed)`` of an int seed (taken modulo 2**128, as ``SeedSequence``'s
    entropy): ``int64[4]``, by the compiled ``SeedSequence`` (numpy's object costs 10 to
    20 µs, more than the rest of a game's reset); checked against numpy once a process."""
    n = int(seed) & _MASK128
    if not (_WORDS_CHECKED[0] if _WORDS_CHECKED else
            _compiled_ok(_WORDS_CHECKED, _words_match_numpy,
                         "the state's generator words are made")):
        return _numpy_words(n)
    return _compiled_words(n)


def seed_batch(seeds: Sequence[int], deck_size: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """For each seed (an int >= 0): ``seed_words(seed)`` (``int64[n, 4]``) and, with
    ``deck_size``, ``np.random.default_rng(seed).permutation(deck_size)``
    (``int64[n, deck_size]``; ``[n, 0]`` without), in one compiled call.  The first call
    of a process checks the compiled path against numpy (:func:`matches_numpy`); should
    they ever differ, numpy's own calls make them (RuntimeWarning)."""
    if _compiled_ok(_CHECKED, matches_numpy,
                    "resets make each game's seed words and deck"):
        return _compiled_batch(seeds, deck_size)
    return _numpy_batch(seeds, deck_size)
