"""The one rules core of volený mariáš: pure functions on a compact ``int32`` state.

Every front end (the AEC environment, the batched engine, robots, search) calls
these functions; they compile with numba and run as plain Python under
``NUMBA_DISABLE_JIT=1``.
"""
