"""One place that decides how the core is compiled.

Numba's on-disk cache (``cache=True``) does not notice when a *called*
function or an imported constant (``rules.R_GAME``) changes in another module, so a
stale cache could run old rules.  On
import we hash the sources of the compiled modules and drop every cached compilation
when that hash changed (only ever during development; a fresh clone compiles
once, then the cache holds).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.extending import intrinsic, overload
from numba.core.registry import CPUDispatcher

_PKG = Path(__file__).resolve().parent.parent
# the package's folder as numba names it (the modules' __file__, links not resolved): its
# cache folders under NUMBA_CACHE_DIR or the user-wide cache are named after it
_PKG_AS_IMPORTED = Path(os.path.abspath(__file__)).parent.parent


# Modules without compiled code whose constants the compiled code freezes in (the rules
# vector's indices, action and card numbers): a change there must drop the cache too.
_CONSTANT_MODULES = ("rules.py", "games/voleny/actions.py", "games/licitovany/actions.py",
                     "games/lizany/actions.py", "cards.py")


def sources_digest(pkg: Path) -> str:
    """Hash of the sources a compiled function can depend on: every module with compiled
    code and the constant modules."""
    h = hashlib.sha256()
    for p in sorted(pkg.rglob("*.py")):
        text = p.read_bytes()
        if b"njit" in text or p.relative_to(pkg).as_posix() in _CONSTANT_MODULES:
            h.update(str(p.relative_to(pkg)).encode())
            h.update(text)
    return h.hexdigest()


def _writable(d: Path) -> bool:
    """Whether numba can keep a cache in ``d`` (its own test: make it, write a file)."""
    try:
        d.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=d).close()
        return True
    except OSError:
        return False


def _own_private_dir(d: Path) -> bool:
    """``d`` made, or found, as a folder of this user's that nobody else can write: numba
    loads pickled code from its cache, so a folder another user made is refused."""
    try:
        d.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(d)  # not a link planted in the shared temporary folder
    except OSError:
        return False
    uid = os.getuid() if hasattr(os, "getuid") else st.st_uid  # Windows: per-user temp
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o022
            and _writable(d))


def _ensure_cache_dir() -> None:
    """Give numba a cache folder when it has none: it raises at import (RuntimeError
    "cannot cache function ...: no locator available") for a ``cache=True`` function whose
    ``__pycache__`` it cannot write when it cannot write its user-wide cache
    (``~/.cache/numba``) either -- a read-only install run by a service or container user
    whose home is not writable.  Then the package caches in this user's private folder of
    the temporary folder (``mariash-numba-UID``), or a new one for this process, set as
    ``NUMBA_CACHE_DIR`` so that its worker processes share it."""
    if numba.config.CACHE_DIR:  # NUMBA_CACHE_DIR: the user's choice
        return
    if _writable(_PKG / "core" / "__pycache__"):
        return
    from numba.misc.appdirs import AppDirs  # where numba's user-wide cache is

    if _writable(Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)):
        return
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    d = Path(tempfile.gettempdir()) / f"mariash-numba-{uid}"
    if not _own_private_dir(d):
        d = Path(tempfile.mkdtemp(prefix="mariash-numba-"))
        atexit.register(shutil.rmtree, d, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = numba.config.CACHE_DIR = str(d)


def _cache_root() -> str:
    """Where numba keeps the package's compiled code: ``""`` for each module's
    ``__pycache__``, else the folder it caches under (``NUMBA_CACHE_DIR``, or its user-wide
    cache when the install is read-only); numba's own order of choice."""
    if numba.config.CACHE_DIR and _writable(Path(numba.config.CACHE_DIR)):
        return str(numba.config.CACHE_DIR)
    if _writable(_PKG / "core" / "__pycache__"):
        return ""
    from numba.misc.appdirs import AppDirs

    return str(AppDirs(appname="numba", appauthor=False).user_cache_dir)


def _source_folders(pkg: Path) -> list[Path]:
    """The folders of ``pkg`` that hold its modules (``*.py``), ``core`` first."""
    return sorted({p.parent for p in pkg.rglob("*.py") if "__pycache__" not in p.parts},
                  key=lambda d: (d != pkg / "core", str(d)))


def _cache_folders(pkg: Path, root: str) -> list[Path]:
    """The folders numba keeps the compiled code of ``pkg``'s modules in: each source
    folder's ``__pycache__`` (``root`` empty), or under ``root`` the folder numba names
    after the source folder (its locators' ``get_suitable_cache_subpath``: the folder's
    name and the SHA-1 of its path); ``core``'s first."""
    return [cache_folder(d, root) for d in _source_folders(pkg)]


def cache_folder(src: Path, root: str) -> Path:
    """The folder numba keeps the compiled code of source folder ``src``'s modules in
    (``root`` as :func:`_cache_folders`)."""
    if not root:
        return src / "__pycache__"
    return Path(root) / f"{src.name}_{hashlib.sha1(str(src).encode()).hexdigest()}"


def _refresh_cache(pkg: Path = _PKG_AS_IMPORTED, root: str | None = None) -> None:
    """Drop every cached compilation of ``pkg`` when its sources changed
    (:func:`sources_digest`), in the folders numba keeps them in (``root``: as
    :func:`_cache_root`), the digest's stamp in ``core``'s: numba itself checks only the
    cached function's own file."""
    try:
        folders = _cache_folders(pkg, _cache_root() if root is None else root)
        digest = sources_digest(pkg)
        stamp = folders[0] / "sources.sha256"
        # its bytes: a damaged stamp (not UTF-8 text) is a stale one, not an error at import
        if stamp.exists() and stamp.read_bytes() == digest.encode("ascii"):
            return
        for d in folders:
            for f in [*d.glob("*.nbi"), *d.glob("*.nbc")]:
                f.unlink(missing_ok=True)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(digest.encode("ascii"))
        os.replace(tmp, stamp)
    except OSError:
        pass  # no cache folder numba can write either: it compiles, its cache is empty


_ensure_cache_dir()
_refresh_cache()

njit = numba.njit(cache=True, nogil=True)


def _widened(t: types.Type) -> types.Type:
    """A signed integer type narrower than int64 (an int32 read from a state, an int8 of a
    mask) as int64, any other type itself: the value is the same, and numba's arithmetic
    computes in int64 either way."""
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64
    return t


class _GenericDispatcher(CPUDispatcher):
    """A dispatcher that compiled code calls with its arguments' types, not their values:
    numba compiles a function once per *literal* argument a compiled caller passes
    (``f(x, 3)`` and ``f(x, 4)`` are two compilations, and each is optimised again in every
    caller: the volený table robot's card play compiled ``_pick`` 15 times).  LLVM still
    inlines a small one into its caller and folds the constants there.

    A signed integer narrower than int64 is passed as an int64 (:func:`_widened`), from
    compiled code and from Python: a seat read from a state (int32) and one computed
    (int64) compiled the rules' helpers twice (``legal_cards``, ``play_card``, ``beats``:
    24 extra compilations in a cold ``python -m mariash_env.compile``).  Literal types of
    ``_KEEP`` stay literal (:class:`_FlagDispatcher`)."""

    _KEEP: tuple[type, ...] = ()

    def _arg_type(self, t: types.Type) -> types.Type:
        return _widened(t if isinstance(t, self._KEEP) else types.unliteral(t))

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(self._arg_type(a) for a in args),
                                         {k: self._arg_type(v) for k, v in kws.items()})

    def typeof_pyval(self, val):
        return _widened(super().typeof_pyval(val))


class _FlagDispatcher(_GenericDispatcher):
    """:class:`_GenericDispatcher` that keeps a constant flag (``True``/``False``) literal:
    compiled once per flag value a compiled caller passes, with the flag's branches
    folded away."""

    _KEEP = (types.BooleanLiteral,)


def _dispatcher(func, cls: type[_GenericDispatcher]):
    if numba.config.DISABLE_JIT:
        return func
    try:
        disp = cls(py_func=func, locals={}, targetoptions={
            "nopython": True, "nogil": True, "boundscheck": None, "no_cfunc_wrapper": True})
    except (TypeError, KeyError):  # a numba whose dispatcher is built otherwise: plain njit
        return njit(func)  # (slower to compile, the same code)
    disp.enable_caching()
    return disp


def njit_generic(func):
    """:data:`njit` for the helpers compiled code calls with constants (a card order, a
    seat, a slot offset) or with a state's int32 fields: compiled once per argument types
    (:class:`_GenericDispatcher`, every signed integer an int64), and without the C
    callback wrapper (``cfunc``), which only a first-class function needs.  Python calls it
    as any compiled function."""
    return _dispatcher(func, _GenericDispatcher)


def njit_flags(func):
    """:func:`njit_generic` for a function with a flag (``omniscient``) whose constant value
    a compiled caller passes picks its code: compiled once per flag value passed as a
    constant (:class:`_FlagDispatcher`; a flag from Python is a third, plain ``bool``),
    once for the other arguments' types (the observation encoders)."""
    return _dispatcher(func, _FlagDispatcher)


njit_inline = numba.njit(cache=True, nogil=True, inline="always")
"""For the small per-phase functions: compiled into their caller's IR (no call), so a
dispatch over phases costs what one long chain of branches did."""


def compile_for(kernel: object, *args: object) -> None:
    """Compile ``kernel`` (or load it from numba's disk cache) for the types of ``args``,
    without running it: a warm-up that needs no valid input (a state, an observation)
    and so no other kernel to make one.  Nothing for a plain function (NUMBA_DISABLE_JIT)."""
    if isinstance(kernel, numba.core.dispatcher.Dispatcher):
        kernel.compile(tuple(numba.typeof(a) for a in args))


# --- borrowed array views: no reference counting in hot loops ---
#
# Every array view numba makes (``states[i]``, an argument of an inlined function) holds a
# reference to its owner, taken and dropped with atomic operations that also drain the
# store buffer; in the batched kernels they cost more than the rules (a "Barva?" answer's
# mask: 17 ns with them, 3 ns without).  A *borrowed* view has no owner reference: only
# for use inside a compiled call whose arguments keep the owner alive, never returned or
# stored.


def _borrowed_view(context, builder, aryty, data, shape, strides):
    out = context.make_array(aryty)(context, builder)
    itemsize = context.get_constant(types.intp,
                                    context.get_abi_sizeof(context.get_data_type(aryty.dtype)))
    context.populate_array(out, data=data, shape=shape, strides=strides, itemsize=itemsize,
                           meminfo=None)
    return out._getvalue()


@intrinsic
def borrow(typingctx, arr):
    """``arr`` itself as a borrowed view (same data, shape and strides; see above)."""
    if not isinstance(arr, types.Array):
        return None
    sig = arr(arr)

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        return _borrowed_view(context, builder, sig.return_type, src.data, src.shape,
                              src.strides)

    return sig, codegen


@intrinsic
def borrow_row(typingctx, arr, i):
    """Row ``i`` (``0 <= i < arr.shape[0]``, unchecked) of a C-contiguous 2-D array as a
    borrowed 1-D view (see above)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and arr.layout == "C"
            and isinstance(i, types.Integer)):
        return None
    sig = types.Array(arr.dtype, 1, "C")(arr, types.intp)

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        ncol = builder.extract_value(src.shape, 1)
        data = builder.gep(src.data, [builder.mul(args[1], ncol)])
        stride = builder.extract_value(src.strides, 1)
        return _borrowed_view(context, builder, sig.return_type, data,
                              cgutils.pack_array(builder, [ncol]),
                              cgutils.pack_array(builder, [stride]))

    return sig, codegen


@intrinsic
def popcount64(typingctx, x):
    """Set bits of an integer as a uint64: one instruction (LLVM's ctpop)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_bit(typingctx, x):
    """Index of the lowest set bit of an integer (``x != 0``; 64 for 0) as an int64: one
    instruction (LLVM's cttz)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


def _bits32_codegen(lane: ir.Type, widen: str, align: int):
    """The codegen of a 32-flag vector store (:func:`store_bits32`,
    :func:`_store_bits32_f32`): ``bits`` broadcast to 32 lanes, each ANDed with its own
    bit, compared with zero and widened (``widen``, an IRBuilder method: ``zext`` to int8,
    ``uitofp`` to float32) into 32 ``lane`` values stored at ``out[off]``."""
    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        i32 = ir.IntType(32)
        lanes = ir.VectorType(i32, 32)
        one = builder.insert_element(ir.Constant(lanes, ir.Undefined),
                                     builder.trunc(args[2], i32), ir.Constant(i32, 0))
        every = builder.shuffle_vector(one, ir.Constant(lanes, ir.Undefined),
                                       ir.Constant(lanes, [0] * 32))
        bit = builder.and_(every, ir.Constant(lanes, [1 << j for j in range(32)]))
        vec = ir.VectorType(lane, 32)
        flags = getattr(builder, widen)(
            builder.icmp_unsigned("!=", bit, ir.Constant(lanes, None)), vec)
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), vec.as_pointer())
        builder.store(flags, ptr, align=align)
        return context.get_dummy_value()

    return codegen


@intrinsic
def store_bits32(typingctx, out, off, bits):
    """``out[off + j] = (bits >> j) & 1`` for ``j < 32``: one 32-byte vector store into an
    int8 array (the caller keeps ``off + 32 <= len(out)``): a card set as mask slots."""
    if not (isinstance(out, types.Array) and out.dtype == types.int8 and out.layout == "C"
            and isinstance(off, types.Integer) and isinstance(bits, types.Integer)):
        return None
    return types.void(out, types.intp, types.int64), _bits32_codegen(ir.IntType(8), "zext", 1)


@intrinsic
def _store_bits32_f32(typingctx, out, off, bits):
    """``out[off + j] = float32((bits >> j) & 1)`` for ``j < 32``: one vector compare and
    a 128-byte store into a C-contiguous float32 array (the caller keeps ``off + 32 <=
    len(out)``).  The loop it replaces is not vectorised (an int64 shift by a variable),
    and the observation encoders write several card sets per call."""
    if not (isinstance(out, types.Array) and out.dtype == types.float32 and out.layout == "C"
            and isinstance(off, types.Integer) and isinstance(bits, types.Integer)):
        return None
    return (types.void(out, types.intp, types.int64),
            _bits32_codegen(ir.FloatType(), "uitofp", 4))


def put_bits32(out: np.ndarray, off: int, bits: int) -> None:
    """``out[off + j] = (bits >> j) & 1`` for ``j < 32``: a card set as 32 observation
    slots.  Compiled, a C-contiguous float32 ``out`` takes one vector store
    (:func:`_store_bits32_f32`), any other array the plain loop."""
    for j in range(32):
        out[off + j] = (int(bits) >> j) & 1


# Not ``inline="always"``: numba's IR-level inlining of it dropped stores that followed it in
# ``encode`` (with ``out = borrow(out)``); LLVM inlines the tiny call anyway.
@overload(put_bits32)
def _put_bits32_impl(out, off, bits):
    if isinstance(out, types.Array) and out.dtype == types.float32 and out.layout == "C":
        def vector(out, off, bits):
            _store_bits32_f32(out, off, bits)
        return vector

    def loop(out, off, bits):
        for j in range(32):
            out[off + j] = (bits >> j) & 1
    return loop


_U64 = (1 << 64) - 1


def wrapping_mul(a: int, b: int) -> np.int64:
    """``a * b`` of two int64 modulo ``2**64``, as a (two's complement) int64: a
    multiplicative hash.  Compiled, the machine's multiplication (numba's int64 ``*``
    wraps); as plain Python (``NUMBA_DISABLE_JIT``, or a ``py_func`` run) the same bits
    from Python's integers, where numpy's int64 would warn of the overflow and a
    constant beyond int64 raise OverflowError."""
    p = (int(a) * int(b)) & _U64
    return np.int64(p - (1 << 64) if p >> 63 else p)


@overload(wrapping_mul)
def _wrapping_mul_impl(a, b):
    if isinstance(a, types.Integer) and isinstance(b, types.Integer):
        def mul(a, b):
            return np.int64(a) * np.int64(b)
        return mul
    return None


# NUMBA_DISABLE_JIT=1 runs the core as plain Python, where an intrinsic cannot run (it
# emits compiler IR): the same results from plain views and operations.
if numba.config.DISABLE_JIT:
    def borrow(arr):  # noqa: F811
        return arr

    def borrow_row(arr, i):  # noqa: F811
        return arr[i]

    def popcount64(x):  # noqa: F811
        return np.uint64(bin(int(x) & 0xFFFF_FFFF_FFFF_FFFF).count("1"))

    def lowest_bit(x):  # noqa: F811
        x = int(x) & 0xFFFF_FFFF_FFFF_FFFF
        return np.int64((x & -x).bit_length() - 1 if x else 64)

    def store_bits32(out, off, bits):  # noqa: F811
        out[off:off + 32] = (int(bits) >> np.arange(32)) & 1
