"""core.jit's intrinsics: borrowed views see and change the owner's memory; store_bits32,
popcount64, lowest_bit and wrapping_mul agree with plain Python on random words;
njit_generic compiles a helper once for the constants compiled callers pass it."""

from __future__ import annotations

import warnings
from pathlib import Path

import numba
import numpy as np

from mariash_env.core.jit import (
    borrow,
    borrow_row,
    lowest_bit,
    njit_flags,
    njit_generic,
    popcount64,
    store_bits32,
    wrapping_mul,
)
from tests.helpers import check_generic_dispatchers


@numba.njit
def _fill_rows(a, v):
    for i in range(a.shape[0]):
        row = borrow_row(a, i)
        for j in range(row.shape[0]):
            row[j] = v[i] * 1000 + j


@numba.njit
def _sum_borrowed(v):
    b = borrow(v)
    s = 0
    for x in b:
        s += x
    return s, b.shape[0]


@numba.njit
def _scaled_plain(x, k):
    return x * k


@njit_generic
def _scaled(x, k):
    return x * k


@numba.njit
def _two_constants(x):
    return _scaled_plain(x, 3) + _scaled_plain(x, 4), _scaled(x, 3) + _scaled(x, 4)


def test_njit_generic_compiles_once_for_the_constants_callers_pass():
    """numba compiles a function once per literal argument a compiled caller passes (the
    volený table robot's card play compiled its card picker 15 times); a helper of
    ``njit_generic`` once per argument types, with the same results."""
    assert _two_constants(5) == (35, 35)
    assert len(_scaled_plain.signatures) == 2  # Literal[int](3), Literal[int](4)
    assert [str(s) for s in _scaled.signatures] == ["(int64, int64)"]
    assert _scaled(2, 5) == 10 and len(_scaled.signatures) == 1  # from Python: the same


@njit_generic
def _seat_plus(st, seat):
    return st[0] + seat


@njit_generic
def _from_python(x):
    return 2 * x


@numba.njit
def _int32_and_int64_seats(st):
    seat32 = st[1]  # an int32 field of the state
    seat64 = st[1] + 0  # computed: an int64
    return _seat_plus(st, seat32) + _seat_plus(st, seat64)


@njit_flags
def _flagged(x, seat, on):
    return x + seat if on else x - seat


@numba.njit
def _flag_callers(x, seat32):
    return _flagged(x, seat32, True), _flagged(x, 1, True), _flagged(x, seat32 + 0, False)


def test_njit_generic_compiles_once_for_int32_and_int64_arguments():
    """A seat read from a state (int32) and one computed (int64) compiled each of the
    rules' helpers twice (``legal_cards``, ``play_card``, ``trick_best`` ...); a helper of
    ``njit_generic`` takes every signed integer as an int64, from compiled code and from
    Python (a numpy int32 or int8), with the same values; a negative one stays negative."""
    st = np.array([-5, 2_000_000_000], np.int32)
    assert _int32_and_int64_seats(st) == 2 * (2_000_000_000 - 5)
    assert [str(s) for s in _seat_plus.signatures] == [
        "(Array(int32, 1, 'C', False, aligned=True), int64)"]
    assert _seat_plus(st, np.int32(-7)) == -12 and _seat_plus(st, np.int8(3)) == -2
    assert _seat_plus(st, 4) == -1 and len(_seat_plus.signatures) == 1
    assert _from_python(np.int32(-7)) == -14  # its first call: compiled for an int64
    assert _from_python(5) == 10
    assert [str(s) for s in _from_python.signatures] == ["(int64,)"]


def test_njit_flags_compiles_once_per_constant_flag_and_not_per_integer_type():
    """The encoders' dispatcher: a constant flag a compiled caller passes stays a constant
    (one compilation for each value, the other branch folded away), a constant or int32
    seat is an int64; a flag from Python is a plain bool."""
    assert _flag_callers(10, np.int32(3)) == (13, 11, 7)
    assert sorted(str(s) for s in _flagged.signatures) == [
        "(int64, int64, Literal[bool](False))", "(int64, int64, Literal[bool](True))"]
    assert _flagged(10, np.int32(2), True) == 12 and len(_flagged.signatures) == 3


def test_njit_generic_falls_back_to_njit_where_numba_builds_dispatchers_otherwise(
        monkeypatch):
    """A numba whose dispatcher takes other arguments gets plain :data:`njit` (slower to
    compile, the same code), not an import error of every table robot."""
    from mariash_env.core import jit

    def refuse(*args, **kwargs):
        raise TypeError("unexpected keyword argument 'targetoptions'")

    monkeypatch.setattr(jit, "_GenericDispatcher", refuse)

    def tripled(x):
        return 3 * x

    f = jit.njit_generic(tripled)
    assert f(4) == 12 and [str(s) for s in f.signatures] == ["(int64,)"]


def test_borrowed_views_are_views_of_the_owner():
    for dtype in (np.int8, np.int32, np.float32):
        a = np.zeros((5, 7), dtype=dtype)
        _fill_rows(a, np.arange(5, dtype=np.int64) % 3)
        want = (np.arange(5)[:, None] % 3) * 1000 + np.arange(7)[None, :]
        np.testing.assert_array_equal(a, want.astype(dtype))
    v = np.arange(11, dtype=np.int64)
    assert _sum_borrowed(v) == (55, 11)


@numba.njit
def _bits(xs):
    out = np.empty((xs.shape[0], 2), np.int64)
    for i in range(xs.shape[0]):
        out[i, 0] = popcount64(xs[i])
        out[i, 1] = lowest_bit(xs[i]) if xs[i] else -1
    return out


def test_popcount_and_lowest_bit():
    rng = np.random.default_rng(0)
    xs = rng.integers(0, 2**63, 500, dtype=np.int64) >> rng.integers(0, 63, 500)
    xs[:3] = (0, 1, 2**62)
    got = _bits(xs)
    for x, (pc, lo) in zip(xs.tolist(), got.tolist()):
        assert pc == bin(x).count("1")
        assert lo == ((x & -x).bit_length() - 1 if x else -1)


@numba.njit
def _products(a, b):
    out = np.empty(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        out[i] = wrapping_mul(a[i], b[i])
    return out


def test_wrapping_mul_is_the_compiled_int64_product_in_plain_python_too():
    """The solvers' multiplicative hashes: compiled, numba's int64 product (modulo 2**64);
    the plain function (NUMBA_DISABLE_JIT, ``py_func``) gives the same bits, with no
    numpy overflow warning and no OverflowError for a factor past 2**63."""
    rng = np.random.default_rng(2)
    a = rng.integers(-2**63, 2**63 - 1, 2000, dtype=np.int64, endpoint=True)
    b = rng.integers(-2**63, 2**63 - 1, 2000, dtype=np.int64, endpoint=True)
    a[:4] = (0, -1, -2**63, 2**63 - 1)
    b[:4] = (-2**63, -2**63, -1, 2**63 - 1)
    b[4:1000] = -7046029254386353131  # the bound cache's hash constant (0x9E3779B97F4A7C15)
    got = _products(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x, y, p in zip(a.tolist(), b.tolist(), got.tolist()):
            want = (x * y + 2**63) % 2**64 - 2**63
            plain = wrapping_mul(np.int64(x), np.int64(y))
            assert p == want and plain == want and type(plain) is np.int64
        assert wrapping_mul(3, 0x9E3779B97F4A7C15) == 3 * 0x9E3779B97F4A7C15 - 2**65


@numba.njit
def _store(out, off, bits):
    store_bits32(out, off, bits)


def test_store_bits32_writes_exactly_its_32_slots():
    rng = np.random.default_rng(1)
    for bits in [0, 1, 2**31, 2**32 - 1, *rng.integers(0, 2**32, 20).tolist()]:
        for off in (0, 3, 38, 82):
            out = np.full(115, 7, dtype=np.int8)
            _store(out, off, bits)
            want = np.full(115, 7, dtype=np.int8)
            want[off:off + 32] = [(bits >> j) & 1 for j in range(32)]
            np.testing.assert_array_equal(out, want)


def test_the_cache_digest_covers_compiled_modules_and_constant_modules(tmp_path):
    """A stale numba cache runs old constants: the digest must change with rules.py (whose
    R_* indices the core freezes in) as with a compiled module, and not with the rest."""
    from mariash_env.core.jit import sources_digest

    (tmp_path / "core").mkdir()
    (tmp_path / "rules.py").write_text("R_GAME = 11\n")
    (tmp_path / "core" / "engine.py").write_text("from .jit import njit\n")
    (tmp_path / "env.py").write_text("DOC = 1\n")
    d0 = sources_digest(tmp_path)
    (tmp_path / "env.py").write_text("DOC = 2\n")
    assert sources_digest(tmp_path) == d0
    (tmp_path / "rules.py").write_text("R_GAME = 13\n")
    d1 = sources_digest(tmp_path)
    assert d1 != d0
    (tmp_path / "core" / "engine.py").write_text("from .jit import njit  # changed\n")
    assert sources_digest(tmp_path) != d1


def test_a_read_only_install_without_a_writable_home_caches_in_a_private_temp_folder(
        tmp_path, monkeypatch):
    """Issue #35 audit: numba raises at import ("no locator available") when neither the
    package's __pycache__ nor ~/.cache/numba can be written (a read-only install run by a
    service user); the package then caches in this user's private temporary folder, and
    a folder there that another user could write is refused for a new one."""
    import os

    from mariash_env.core import jit

    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    # _ensure_cache_dir sets NUMBA_CACHE_DIR itself: setenv first, so that monkeypatch
    # restores it (delenv of an unset variable records nothing, and the folder stayed
    # every later subprocess's empty cache: they compiled every kernel again)
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(jit.tempfile, "gettempdir", lambda: str(tmp_path))
    real = jit._writable
    monkeypatch.setattr(jit, "_writable", lambda d: str(d).startswith(str(tmp_path)) and real(d))
    jit._ensure_cache_dir()
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    want = tmp_path / f"mariash-numba-{uid}"
    assert numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"] == str(want)
    assert want.is_dir() and not want.stat().st_mode & 0o077
    # another user's (here: a group-writable) folder of that name is not used
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    want.chmod(0o775)
    jit._ensure_cache_dir()
    assert numba.config.CACHE_DIR not in ("", str(want))
    assert Path(numba.config.CACHE_DIR).parent == tmp_path
    # a writable package __pycache__ (a checkout) or NUMBA_CACHE_DIR: numba's own choice
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.setattr(jit, "_writable", lambda d: True)
    jit._ensure_cache_dir()
    assert numba.config.CACHE_DIR == ""


def test_a_source_change_drops_the_cache_wherever_numba_keeps_it(tmp_path):
    """Issue #35 audit: numba checks only a cached function's own file, so a change of a
    callee or a constant module must drop the package's cached code -- under
    NUMBA_CACHE_DIR or the user-wide cache (a read-only install) too, not only in the
    source folders' __pycache__ (where the stamp was, while the stale code stayed)."""
    import hashlib

    from mariash_env.core.jit import _cache_folders, _refresh_cache

    pkg = tmp_path / "pkg"
    (pkg / "core").mkdir(parents=True)
    (pkg / "search").mkdir()
    (pkg / "rules.py").write_text("R_GAME = 11\n")
    (pkg / "core" / "engine.py").write_text("from .jit import njit\n")
    (pkg / "search" / "solver.py").write_text("from ..core.jit import njit\n")
    for root in ("", str(tmp_path / "numba_cache")):
        folders = _cache_folders(pkg, root)
        if root:  # numba's name: the source folder's name and the SHA-1 of its path
            d = pkg / "search"
            assert Path(root) / f"search_{hashlib.sha1(str(d).encode()).hexdigest()}" \
                in folders
        assert folders[0].name.startswith(("__pycache__", "core_"))

        def cached(folders: list[Path] = folders) -> list[Path]:
            return sorted(p for f in folders for p in f.glob("*.nb[ic]"))

        def compile_all(folders: list[Path] = folders) -> None:
            for f in folders:
                f.mkdir(parents=True, exist_ok=True)
                (f / "x.nbi").write_text("")
                (f / "x.1.nbc").write_text("")

        compile_all()
        _refresh_cache(pkg, root)  # no stamp yet: whatever is there may be stale
        assert cached() == []
        compile_all()
        _refresh_cache(pkg, root)  # the same sources: the cache stays
        assert len(cached()) == 2 * len(folders)
        (pkg / "rules.py").write_text(f"R_GAME = {12 + len(root)}\n")
        _refresh_cache(pkg, root)
        assert cached() == []


def test_a_damaged_stamp_is_a_stale_one(tmp_path):
    """The cache's stamp (the sources' digest) read back in the locale's encoding: a
    damaged one (bytes that are not UTF-8) was a UnicodeDecodeError out of the package's
    import; it is a stamp of other sources: the cache is dropped and the stamp written."""
    from mariash_env.core.jit import _cache_folders, _refresh_cache, sources_digest

    pkg = tmp_path / "pkg"
    (pkg / "core").mkdir(parents=True)
    (pkg / "core" / "engine.py").write_text("# njit\n")
    root = tmp_path / "numba_cache"
    folders = _cache_folders(pkg, str(root))
    _refresh_cache(pkg, str(root))
    stamp = folders[0] / "sources.sha256"
    assert stamp.read_bytes() == sources_digest(pkg).encode()
    stamp.write_bytes(b"\xff\xfe" + stamp.read_bytes()[2:])
    for f in folders:
        (f / "x.nbi").write_text("")
    _refresh_cache(pkg, str(root))
    assert list(root.rglob("*.nbi")) == []
    assert stamp.read_bytes() == sources_digest(pkg).encode()


def test_a_source_change_drops_only_this_checkouts_cache(tmp_path):
    """Under one NUMBA_CACHE_DIR two checkouts of the package (same folder names) and other
    packages keep their cached code apart: numba names each cache folder after the source
    folder's path (its locator's own name is asserted), and a source change of one
    checkout drops that checkout's folders alone."""
    from numba.core.caching import _CacheLocator

    from mariash_env.core.jit import _cache_folders, _refresh_cache

    root = tmp_path / "numba_cache"
    pkgs = []
    for side in ("a", "b"):
        pkg = tmp_path / side / "mariash_env"
        (pkg / "core").mkdir(parents=True)
        (pkg / "core" / "engine.py").write_text(f"# njit, checkout {side}\n")
        pkgs.append(pkg)
        assert _cache_folders(pkg, str(root))[0].name == \
            _CacheLocator.get_suitable_cache_subpath(str(pkg / "core" / "engine.py"))
        for f in _cache_folders(pkg, str(root)):
            f.mkdir(parents=True, exist_ok=True)
            (f / "x.nbi").write_text("")
    other = root / "core_0123456789abcdef"  # another package's "core" folder
    other.mkdir()
    (other / "y.nbi").write_text("")
    _refresh_cache(pkgs[0], str(root))  # no stamp of checkout a: its cache is dropped
    kept = {p.parent for p in root.rglob("*.nbi")}
    assert kept == {other, *_cache_folders(pkgs[1], str(root))}


# The engine's modules whose compiled helpers are njit_generic (the rules core, each game's
# phases, settlement, dealing and observation, lízaný's core and batched engine).
_ENGINE_MODULES = (
    "core.deal", "core.engine", "core.flow", "core.play", "core.seeding", "core.semantic",
    "core.state", "core.tricks", "core.validate", "games.voleny.deal", "games.voleny.four",
    "games.voleny.laydown", "games.voleny.observe", "games.voleny.observe4",
    "games.voleny.phases", "games.voleny.settle", "games.voleny.validate",
    "games.licitovany.deal", "games.licitovany.observe", "games.licitovany.phases",
    "games.licitovany.settle", "games.licitovany.validate", "games.lizany.core",
    "games.lizany.vector")
# plain njit on purpose: the observation encoders keep their literal ``omniscient`` (the
# batched engine's licitovaný observations are slower without it); lízaný's step kernels
# are called from Python only, which passes no literal
_ENGINE_PLAIN = {"encode", "encode4", "encode_licit", "encode_game", "_step_serial",
                 "_step_parallel"}


def test_the_engine_helpers_compile_once_for_every_constant():
    """The engine's compiled helpers are ``njit_generic`` (or inlined): compiled once per
    argument types, not once per constant a compiled caller passes (a settlement line's
    number, a deal's end, a state offset: a fresh volený env compiled 201 functions on an
    empty cache, settle's ``_line`` 14 times), the observation encoders aside.  After a
    few decisions of every game's AEC env and batched engine none holds a literal type
    (those compiled here: a kernel loaded from numba's disk cache compiles no helper)."""
    from mariash_env.compile import warm_engine

    warm_engine()
    assert check_generic_dispatchers(_ENGINE_MODULES, _ENGINE_PLAIN) > 100
