"""Batched engine: ``N`` games of mariáš stepped together by one compiled loop (volený at
three or four players, licitovaný; ``VectorEnv(n, rules="lizany")`` is lízaný's own,
:class:`~mariash_env.games.lizany.vector.LizanyVectorEnv`, with the same API).

:class:`VectorEnv` keeps ``N`` independent games as rows of one ``int32[N, STATE_SIZE]``
array (the compact state of :mod:`mariash_env.core.state`) and advances all of them
with a single numba-compiled call per :meth:`~VectorEnv.step`, in the style of pgx.
Every rule is the rules core's (:func:`~mariash_env.core.engine.legal_actions`,
:func:`~mariash_env.core.engine.apply_action`,
:func:`~mariash_env.core.engine.advance_partie`,
:func:`~mariash_env.core.engine.encode_game`, ...); nothing is reimplemented here, so a
game in the batch is move for move the game the AEC environment plays.

Quick start
-----------
::

    from mariash_env.vector import VectorEnv, random_legal_actions
    import numpy as np

    venv = VectorEnv(4096, seed=0)           # rule options as keywords: tariff="csm", ...
    step = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(1000):
        actions = random_legal_actions(step.mask, rng)   # or: your policy(step.obs, step.mask)
        step = venv.step(actions)
        # step.rewards[i, s]: groše paid to absolute seat s of game i by a deal that ended now

API
---
``VectorEnv(num_envs, seed=None, observations=True, deals=None, parallel=False, **rules)``
    ``rules`` are the keyword options of :func:`mariash_env.rules.make_rules` (RULES.md
    §11: ``tariff``, ``killed_seven``, ``max_flek``, ``payment_cap``, ``marriage_order``,
    ``shuffle``, ``players``, ...), validated there; ``deals`` is the length of a partie
    (None: the rules' default, 12, or 16 with ``players=4``).
    With ``players=4`` (RULES.md §11.3) every row is a four-player partie: ``player`` is
    the player 0..3 to move (never the dealer, who sits out), ``rewards`` is
    ``float64[N, 4]`` (actor ``+3A``, the other three ``-A``) and ``obs`` the four-player
    observation (float32[924], :mod:`mariash_env.games.voleny.observe4`), exactly as the
    AEC environment ``mariash_env.env(players=4)`` plays it.
    ``observations=False`` skips the observation encoding (``Step.obs`` is ``None``),
    for search, self-play statistics or benchmarks that only need masks.
    ``parallel=True`` steps the games with numba ``prange`` threads (the results are
    identical; worth it only with idle cores: on a machine busy with other processes
    the threads wait for each other and it can be several times slower than serial).
    Attributes: ``num_envs``, ``obs_size`` (``OBS_SIZE`` = 900), ``state_obs_size``
    (1031), ``num_actions`` (115), ``state_size`` (``STATE_SIZE`` = 288), ``rules``
    (the :class:`~mariash_env.rules.Rules`), ``rules_vector``, ``seed`` (the base seed of
    the last reset) and ``decisions`` (actions applied since construction).
``reset(seed=None) -> Step``
    Starts a fresh partie in every game (see *Seeding*).
``reset_rows(rows, seed=None) -> Step``
    Starts a fresh partie in the games ``rows`` only (a bool mask of ``num_envs`` games,
    or their indices; before the first ``reset`` only every game); the others keep their
    state, generator included.  Each restarted game gets the seed a whole ``reset(seed)``
    would give it (see *Seeding*).  The Step's rows of the restarted games are their
    first decision, with zero rewards and flags; the other rows are left as the last call
    wrote them (a step that wrote into ``out`` buffers left the engine's own behind:
    ``current()`` recomputes every row).  It costs O(restarted games): 10 of 4,096 games
    restart in about 0.04 ms, against about 3 ms for a whole reset.  The vector front ends
    (``GymVectorEnv``'s ``reset_mask``, the TorchRL env's ``"_reset"``) restart their games
    with it.
``next_seed``, ``first_seed``, ``seeds_of(seed=None, rows=None)``
    The batch's seed sequence (see *Seeding*), the only one: the vector front ends read
    and set it here.  ``next_seed``: the base seed of the next reset without one (settable:
    an int >= 0, None for a random one); ``first_seed``: the constructor's ``seed``;
    ``seeds_of``: the seed each game (of ``rows``) would get from ``reset(seed)``
    (``reset_rows(rows, seed)``) now, checked, changing nothing.
``step(actions, out=None) -> Step``
    ``actions``: one integer per game, the action of the seat to move there
    (``Step.player``).  All actions are checked against the current masks first; if any
    is illegal a :class:`ValueError` names the games and actions and *nothing* is
    applied.  ``step_unchecked(actions)`` skips that up-front pass and its
    all-or-nothing guarantee: a game whose action its current mask does not allow
    (out of range, e.g. ``10**9`` or ``-1``, included) is left unchanged with zero
    rewards and flags, the others step; nothing can index outside the engine's tables.
``current() -> Step``
    The current player/mask/obs again, with zero rewards and flags (e.g. after
    :meth:`restore_states`).
``state() -> float32[N, STATE_OBS_SIZE]``
    Perfect-information encodings (``encode_game(st, rules, 0, out, True)``: seat 0's
    point of view plus every hidden card), a fresh array.
``render_tables() -> list[str]``
    Every game's table as text, as the AEC environment's ``render_mode="ansi"`` writes it.
``copy_states() -> int32[N, STATE_SIZE]`` / ``restore_states(states)``
    Snapshot and restore of the whole batch (see *Search*).
``random_legal_actions(mask, rng, out=None) -> int64[N]``
    Compiled helper: one uniformly random legal action per row of ``mask``, drawn
    from the numpy ``Generator`` ``rng``; ``out``, when given, must be a writeable
    C-contiguous ``int64[N]`` (else :class:`OutBufferError`, before the kernel runs).
``game_seed_words(seed, i)``
    The four generator words game ``i`` starts from after ``reset(seed)``.

The ``Step`` record
-------------------
``player`` int64[N]
    Absolute seat (0, 1, 2; at four the player 0..3) to move now in each game.
``obs`` float32[N, OBS_SIZE] or ``None``
    That seat's observation (``encode_game(st, rules, player, out, False)``; layout
    ``mariash_env.games.voleny.observe.OBS_LAYOUT``, licitovaný's
    ``mariash_env.games.licitovany.observe.LOBS_LAYOUT``).
``mask`` int8[N, 115]
    Legal actions of that seat (1 = legal); a read-only view, since every step checks
    its actions against it.
``rewards`` float64[N, 3] (``[N, 4]`` at four)
    Groše paid to each *absolute* seat by a deal that ended in this step, else 0.
    Zero-sum per row; exact (a payment stays far below 2**53, see
    ``games/voleny/settle.py``).
``deal_done`` bool[N]
    A deal ended in this step; the game has already been advanced to the next deal.
``partie_done`` bool[N]
    That deal was the last of the partie; the game has already been reset into a new
    partie (``deal_done`` is then true as well).
``deal_no`` int64[N]
    0-based index, within its partie, of the deal now being played.

**The arrays of a Step are the engine's own buffers**: the next ``step``/``reset``/
``restore_states`` overwrites them in place (no per-step allocation or copy).  Keep
what you need with ``.copy()`` (or copy into your rollout storage) before stepping on.

Output buffers
--------------
``step(actions, out={...})`` / ``step_unchecked(actions, out={...})`` write the step's
outputs straight into the caller's arrays instead of the engine's buffers (no copy: e.g.
``torch.empty(...).numpy()`` views that then go on as the step's tensors).  ``out`` maps
any of the Step fields to an array: ``"obs"`` float32[N, obs_size] (not with
``observations=False``), ``"mask"`` int8 or bool[N, num_actions], ``"player"`` int64[N],
``"rewards"`` float64[N, players], ``"deal_done"``/``"partie_done"`` bool[N],
``"deal_no"`` int64[N]; each must be writeable, aligned, C-contiguous and overlap
neither the engine's state and mask nor another ``out`` array.  Anything else raises
:class:`OutBufferError` (a ``ValueError`` naming the field and what it must be) before
any kernel runs: nothing is applied.  The returned ``Step`` shows the given arrays in
place of the engine's; the fields not given are the engine's own buffers, and the
engine's buffers of the given fields keep what they held.  The engine always keeps its
own mask (what the next step checks its actions against, so a caller's array never
decides legality): ``out["mask"]`` receives a copy of each new row, made while the row
is in cache.  A game an unchecked step leaves unchanged gets the outputs of its
unchanged state (zero rewards and flags), so every row of the given arrays is written.

Auto-reset
----------
When an action ends a deal, the deal is settled (its payments are ``Step.rewards``
and are booked into the partie score), and the game is immediately advanced:
``advance_partie(st, rules, -1)`` gathers the cards, cuts (the cut drawn from the
game's own generator) and deals the next deal.  When the partie is over (``deals``
deals), a new partie starts at once: scores and deal counter cleared, a fresh deck
``shuffled_deck(st)`` drawn from the game's own generator, dealt by seat 0 (every
partie, like every partie of the AEC environment, is first dealt by seat 0; its
``st[CUT]`` is -1, "shuffled, not cut", as ``Game.new_partie`` leaves it).  So
every row of a ``Step`` is always a decision of a live deal; an episode boundary is
``partie_done``.  The partie score is in the state (exact int64,
``mariash_env.core.state.read64(st, SCORE, 3)``) and in the observation's ``score`` block.

Seeding and determinism
-----------------------
Each game has its own generator inside its state (xorshift128 at
``st[RNG:RNG+4]``), used for the first shuffle and every cut.  ``reset(seed)`` gives
game ``i`` the words ``seed_words(seed + i)`` (:func:`game_seed_words`), then deals
``shuffled_deck(st)`` with dealer 0 -- exactly what ``mariash_env.env().reset(seed=seed
+ i)`` does, so game ``i`` of ``VectorEnv.reset(seed=s)`` is the AEC game with seed
``s + i`` under the same actions.  ``reset()`` without a seed continues the seed
sequence: it uses ``previous_seed + num_envs`` (the constructor's ``seed`` for the
first reset; a random one when that is ``None``), so a run is reproducible from the
constructor seed; ``next_seed`` is where it goes on, and setting it moves it.
``reset(seed=[...])`` takes one seed a game (a None entry: that game's seed of a reset
without one), and the sequence goes on after the largest seed used.
``reset_rows(rows, seed)`` seeds by position: game ``i`` gets the seed a whole
``reset(seed)`` would give it (``seed + i``, ``seed[i]``, or the sequence's next + i), so a
game's seed does not depend on which other games restart; the sequence goes on after the
largest seed used, and ``seed`` (the attribute: the base seed of the last whole reset)
stays.  Same seed and same actions give identical trajectories; the engine itself
draws no other randomness.

Memory
------
Per game (``VectorEnv.bytes_per_game(observations)``): ``STATE_SIZE * 4`` = 1,152 bytes
of state, 115 of mask, 38 of the small buffers (player, rewards, flags, deal number) and,
with observations, 3,600 of observation: 1,305 bytes without observations, 4,905 with
(licitovaný: 136 of mask and 4,064 of observation, 1,326 and 5,390; at four players 8
more of rewards and 3,696 of observation).
4,096 games take 5.3 MB (20.1 MB with observations); a million, 1.31 GB (4.91 GB).
The constructor warns (:class:`VectorMemoryWarning`, a ``UserWarning`` naming the bytes
needed) when that exceeds ``MEMORY_FRACTION`` (half) of the memory the machine has
available (:func:`available_memory`).

Speed and compilation
---------------------
The step is one compiled loop over the games with the core's ``apply_action`` and
``legal_actions`` (and ``play_card``, ``legal_cards``, ``can_lay_down``) compiled inline
into it, each game's row handled through *borrowed* views
(:func:`mariash_env.core.jit.borrow_row`: no reference counting, whose atomic operations
cost more than most rules); with observations, encoding them is the larger part of a
step.  ``random_legal_actions`` reads each mask row with two 64-byte vector compares and
picks the k-th legal action branch-free.  ``parallel=True`` pays off only on idle cores.
The first use in a fresh clone compiles the core and the kernels; numba caches the
machine code in ``__pycache__`` and later processes start in about a second.  A reset
makes the generator words of all its games in one compiled call, bit for bit numpy's
``SeedSequence`` (:mod:`mariash_env.core.seeding`; 4,096 games reset in about 3 ms, of
which the seeds take 0.4), and ``step`` has a fixed Python overhead per call, so batch at
least a few hundred games.  The measured figures, and how they were measured
(``scripts/bench_env.py``), are in ``docs/benchmarks.md``.

Search: copy and restore
------------------------
``snap = venv.copy_states()`` copies the whole batch (1,152 bytes per game); after any
number of steps ``venv.restore_states(snap)`` puts every game back exactly, including
its generator, so the same actions reproduce the same continuation.  Call
``venv.current()`` to get the restored games' player/mask/obs.  To explore several
actions from one position, restore and step with a different action vector each
time; or fill many rows with copies of one position (``snap[:] = snap[j]``) and step
each row with a different action -- rows are independent games.  ``restore_states``
checks shape, dtype, the range of every field the compiled code indexes with (phase,
seats, cards, trick fields, counters, flags), that the deck positions are a permutation
and that each card is in exactly one place, then what the game and phase need (levels
within ``max_flek``, flek rounds within what they allow, the deal within the partie, the
seat to move, the card counts and the fields the phase reads, and at least one legal
action); a bad row raises :class:`ValueError` naming the field (its accepted range or
what the phase expects) and the games, and nothing is restored.  The rows should be
decision states as ``copy_states`` returns them (a finished, not advanced deal has an
empty mask and an all-zero observation and cannot be stepped).
"""

from __future__ import annotations

import os
import types
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import types as nbtypes
from numba.core.extending import intrinsic

from .copies import independent_copy
from .core.deal import shuffled_deck
from .core.engine import (
    advance_partie,
    apply_action,
    encode_game,
    legal_actions,
    start_partie_of,
)
from .core.flow import play_turn
from .core.jit import borrow, borrow_row, popcount64
from .core.play import legal_cards, play_card
from .core.seeding import seed_batch
from .core.state import (
    CUT,
    DEAL_NO,
    PAY,
    RNG,
    STATE_SIZE,
    TO_MOVE,
    get64,
    seed_words,
    setm,
)
from .core.validate import check_states
from .game import Game, batch_seeds, check_seed, fresh_seed
from .games.licitovany import phases as LI
from .games.registry import games
from .games.voleny import phases as VP
from .games.voleny.actions import N_ACTIONS
from .games.voleny.four import payment4, player_of
from .games.voleny.laydown import can_lay_down
from .games.voleny.observe import OBS_SIZE, STATE_OBS_SIZE
from .kinds import kind_of
from .rules import R_PLAYERS, is_int, make_rules

__all__ = ["VectorEnv", "Step", "random_legal_actions", "game_seed_words", "STATE_BYTES",
           "VectorMemoryWarning", "OutBufferError", "available_memory"]

STATE_BYTES = STATE_SIZE * 4
"""Bytes of compact state per game."""

MEMORY_FRACTION = 0.5
"""``VectorEnv`` warns when its buffers would take more than this share of the memory
the machine has available now."""


class VectorMemoryWarning(UserWarning):
    """A ``VectorEnv`` asked for more memory than the machine can comfortably hold."""


class OutBufferError(ValueError):
    """An ``out`` buffer given to :meth:`VectorEnv.step` that the kernels cannot write
    (unknown field, wrong type, dtype, shape or layout, read-only, overlapping)."""


# The Step fields a step writes, in the order of VectorEnv._buffers.
_OUT_FIELDS = ("obs", "mask", "player", "rewards", "deal_done", "partie_done", "deal_no")


def available_memory() -> int | None:
    """Bytes of memory available now (Linux ``MemAvailable``), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


# Per-game buffers besides state, mask and observation: player, rewards[3], deal_done,
# partie_done, deal_no, bad (see VectorEnv.__init__).
_SMALL_BYTES = 8 + 3 * 4 + 1 + 1 + 8 + 8

FIRST_DEALER = 0
"""Dealer of the first deal of every partie (as in the AEC environment)."""

_jit = numba.njit(cache=True, nogil=True)
_jit_par = numba.njit(cache=True, nogil=True, parallel=True)
_jit_inline = numba.njit(cache=True, nogil=True, inline="always")



def _inline_core(func, **callees):
    """The rules core's ``func`` compiled inline into the kernel that calls it, with the
    named core functions it calls inlined into it in turn: numba IR inlining of the
    core's own source (no second copy of any rule), because a call passing arrays
    costs more than most rules."""
    py = getattr(func, "py_func", func)  # the function itself under NUMBA_DISABLE_JIT=1
    env = dict(py.__globals__, **callees)
    clone = types.FunctionType(py.__code__, env, py.__name__, py.__defaults__, py.__closure__)
    return numba.njit(inline="always")(clone)


@_jit_inline
def _sized2(a, b):
    """Stands in for the core's buffer-size checks in the step kernel: its buffers are
    the game's own (sized by the constructor), and a ``raise`` compiled into a ``prange``
    loop would keep it from running in parallel."""


@_jit_inline
def _sized4(a, b, c, d):
    """:func:`_sized2` for each game's own check of its mask and action."""


# The step kernel's calls into the core and their hottest callees (~15 % of a step): the
# dispatch, each game's phase machine, the play phase's functions (inline already) and
# what they call.
_play_card_inline = _inline_core(play_card)
_legal_actions_inline = _inline_core(
    legal_actions, check_state=_sized2,
    legal_voleny=_inline_core(VP.legal_voleny, check_voleny=_sized4, _legal_play=_inline_core(
        VP._legal_play, legal_cards=_inline_core(legal_cards),
        can_lay_down=_inline_core(can_lay_down))),
    legal_licit=_inline_core(LI.legal_licit, check_licit=_sized4, _legal_play=_inline_core(
        LI._legal_play, licit_cards=_inline_core(LI.licit_cards))))
_play_turn_inline = _inline_core(play_turn, play_card=_play_card_inline)
_apply_action_inline = _inline_core(
    apply_action, check_state=_sized2,
    apply_voleny=_inline_core(VP.apply_voleny, check_voleny=_sized4, _apply_play=_inline_core(
        VP._apply_play, play_turn=_play_turn_inline)),
    apply_licit=_inline_core(LI.apply_licit, check_licit=_sized4, _apply_play=_inline_core(
        LI._apply_play, play_turn=_play_turn_inline)))


@dataclass
class Step:
    """What every game shows after ``reset``/``step`` (arrays are reused buffers)."""

    player: np.ndarray
    obs: np.ndarray | None
    mask: np.ndarray
    rewards: np.ndarray
    deal_done: np.ndarray
    partie_done: np.ndarray
    deal_no: np.ndarray


def game_seed_words(seed: int, i: int) -> np.ndarray:
    """The generator words of game ``i`` after ``reset(seed)``: ``seed_words(seed + i)``."""
    return seed_words(int(seed) + int(i))


# --------------------------------------------------------------------------- kernels


@_jit
def _new_partie(st, rules):
    """A new partie from the game's own generator, as ``Game.new_partie`` starts one."""
    start_partie_of(st, shuffled_deck(st), FIRST_DEALER, rules)
    st[CUT] = -1  # the first deal of a partie is shuffled, not cut


@_jit_inline
def _mover(st, rules):
    """The seat to move; at four (RULES.md §11.3) the player holding it."""
    c = st[TO_MOVE]
    return player_of(st, c) if rules[R_PLAYERS] == 4 and c >= 0 else c


@_jit_inline
def _payment(st, rules, s):
    """Groše paid to seat ``s`` by the settled deal (at four: to player ``s``)."""
    return payment4(st, s) if rules[R_PLAYERS] == 4 else get64(st, PAY + 2 * s)


@_jit
def _refresh_one(st, rules, i, masks, obs, player, deal_no, observations):
    legal_actions(st, rules, masks[i])
    p = _mover(st, rules)
    player[i] = p
    deal_no[i] = st[DEAL_NO]
    if observations:
        _observe(st, rules, p, obs[i])


@_jit
def _observe(st, rules, p, out):
    """The observation of ``p``; a deal over (nobody to move, ``p`` = -1) shows zeros."""
    if p >= 0:
        encode_game(st, rules, p, out, False)
    else:
        out[:] = 0.0


@_jit
def _check(masks, actions, bad):
    """Indices of the games whose action is not legal now, into ``bad``; their count."""
    nbad = 0
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] != 1:
            bad[nbad] = i
            nbad += 1
    return nbad


def _step_body(states, rules, actions, check, bad, masks, obs, player, rewards,
               deal_done, partie_done, deal_no, observations, mask_out, copy_mask):
    """Apply one action per game; settle, advance and auto-reset as needed; refresh.

    An action that the game's current mask does not allow (out of range included)
    applies nothing: even an unchecked step never indexes the engine's tables with it;
    such a game's outputs are recomputed from its unchanged state (the same values, also
    when they go to a caller's buffers, see ``VectorEnv.step``'s ``out``).  ``masks`` is
    the engine's own (what the next step checks against); with ``copy_mask`` each new
    row is copied into ``mask_out`` as well, while it is in cache.
    The per-game work is written out here rather than in helpers: calls passing many
    arrays cost more than the rules themselves; the rows are borrowed views (no
    reference counting, see ``core.jit.borrow_row``)."""
    if check:
        nbad = _check(masks, actions, bad)
        if nbad:
            return nbad
    rules = borrow(rules)
    for i in numba.prange(states.shape[0]):
        st = borrow_row(states, i)
        mrow = borrow_row(masks, i)
        a = actions[i]
        if a < 0 or a >= mrow.shape[0] or mrow[a] != 1:
            for s in range(rewards.shape[1]):
                rewards[i, s] = 0.0
            deal_done[i] = False
            partie_done[i] = False
        elif _apply_action_inline(st, rules, a):
            for s in range(rewards.shape[1]):
                rewards[i, s] = _payment(st, rules, s)  # exact int64 in the state
            deal_done[i] = True
            if advance_partie(st, rules, -1):
                partie_done[i] = False
            else:
                _new_partie(st, rules)
                partie_done[i] = True
        else:
            for s in range(rewards.shape[1]):
                rewards[i, s] = 0.0
            deal_done[i] = False
            partie_done[i] = False
        _legal_actions_inline(st, rules, mrow)
        if copy_mask:
            orow = borrow_row(mask_out, i)
            for j in range(mrow.shape[0]):
                orow[j] = mrow[j]
        p = _mover(st, rules)
        player[i] = p
        deal_no[i] = st[DEAL_NO]
        if observations:
            _observe(st, rules, p, borrow_row(obs, i))
    return 0


# One source, two compilations (prange is a plain range without parallel=True).
_step_serial = _jit(_step_body)
_step_parallel = _jit_par(_step_body)


@_jit
def _reset_kernel(states, rows, words, rules, masks, obs, player, rewards, deal_done,
                  partie_done, deal_no, observations):
    """A new partie in games ``rows`` (game ``rows[j]`` from the generator words
    ``words[j]``) and their outputs; the other rows are not touched."""
    for j in range(rows.shape[0]):
        i = rows[j]
        st = states[i]
        st[:] = 0
        for k in range(4):
            setm(st, RNG + k, words[j, k])
        _new_partie(st, rules)
        for s in range(rewards.shape[1]):
            rewards[i, s] = 0.0
        deal_done[i] = False
        partie_done[i] = False
        _refresh_one(st, rules, i, masks, obs, player, deal_no, observations)


@_jit
def _refresh_kernel(states, rules, masks, obs, player, rewards, deal_done, partie_done,
                    deal_no, observations):
    for i in range(states.shape[0]):
        for s in range(rewards.shape[1]):
            rewards[i, s] = 0.0
        deal_done[i] = False
        partie_done[i] = False
        _refresh_one(states[i], rules, i, masks, obs, player, deal_no, observations)


@_jit
def _state_kernel(states, rules, out):
    for i in range(states.shape[0]):
        encode_game(states[i], rules, 0, out[i], True)


@_jit
def _uniform_legal(masks, u, out):
    """Row ``i``: the ``floor(u[i] * n_legal)``-th legal action (-1 when none is legal)."""
    na = masks.shape[1]
    nblk = na // 16
    for i in range(masks.shape[0]):
        row = masks[i]
        cnt = 0
        for a in range(na):  # a vectorised count
            cnt += row[a] != 0
        if cnt == 0:
            out[i] = -1
            continue
        k = min(np.int64(u[i] * cnt), cnt - 1)
        # skip whole blocks of 16 (vectorised counts), then walk to the k-th legal action
        a = 0
        for _ in range(nblk):
            s = 0
            for j in range(16):
                s += row[a + j] != 0
            if s > k:
                break
            k -= s
            a += 16
        while True:
            if row[a] != 0:
                if k == 0:
                    break
                k -= 1
            a += 1
        out[i] = a


@intrinsic
def _nonzero_bits64(typingctx, flat, off):
    """Bit ``j`` set when ``flat[off + j] != 0``, for ``j < 64``: one 64-byte vector load
    and compare (a C-contiguous int8 array; the caller keeps ``off + 64`` in bounds)."""
    if not (isinstance(flat, nbtypes.Array) and flat.dtype == nbtypes.int8
            and flat.layout == "C" and isinstance(off, nbtypes.Integer)):
        return None
    sig = nbtypes.uint64(flat, nbtypes.intp)

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        vec = ir.VectorType(ir.IntType(8), 64)
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), vec.as_pointer())
        nz = builder.icmp_unsigned("!=", builder.load(ptr, align=1), ir.Constant(vec, None))
        return builder.bitcast(nz, ir.IntType(64))

    return sig, codegen


if numba.config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: the intrinsic needs the compiler
    def _nonzero_bits64(flat: np.ndarray, off: int) -> np.uint64:  # noqa: F811
        return np.uint64(sum(1 << j for j in range(64) if flat[off + j] != 0))


_U1 = np.uint64(1)


@_jit_inline
def _select_bit(x, k):
    """Position of the ``k``-th (0-based) set bit of ``x`` (``k < popcount(x)``), by a
    branch-free binary search: random rows defeat a branch predictor."""
    pos = np.uint64(0)
    for w in (32, 16, 8, 4, 2, 1):
        ww = np.uint64(w)
        c = popcount64(x & ((_U1 << ww) - _U1))
        take = k >= c
        k = k - c if take else k
        x = x >> ww if take else x
        pos = pos + ww if take else pos
    return np.int64(pos)


@_jit
def _uniform_legal_bits(flat, n, na, u, out):
    """:func:`_uniform_legal` for ``64 < na <= 192`` on the whole C-contiguous mask
    ``flat`` (``int8[n * na]``): each row becomes a set of legal actions from two or three
    vector compares (bytes 0..63, 64..127 when ``na > 128``, and na-64..na-1, all inside
    the row), then the k-th set bit is picked.  Same draws."""
    three = na > 128  # licitovaný's 136 actions
    top = 192 if three else 128
    for i in range(n):
        b = i * na
        lo = _nonzero_bits64(flat, b)
        mid = _nonzero_bits64(flat, b + 64) if three else np.uint64(0)
        hi = _nonzero_bits64(flat, b + na - 64) >> np.uint64(top - na)
        c0 = popcount64(lo)
        c1 = popcount64(mid)
        cnt = c0 + c1 + popcount64(hi)
        if cnt == 0:
            out[i] = -1
            continue
        k = min(np.uint64(u[i] * np.float64(cnt)), cnt - _U1)
        if k < c0:
            out[i] = _select_bit(lo, k)
        elif k < c0 + c1:
            out[i] = _select_bit(mid, k - c0) + 64
        else:
            out[i] = _select_bit(hi, k - c0 - c1) + top - 64


def illegal_actions(games: np.ndarray, given: np.ndarray) -> ValueError:
    """The all-or-nothing step's error for the illegal actions of ``games`` (their indices),
    each named as ``given`` holds it (a uint64 beyond int64 as given, not its int64 wrap).
    Shared by the vector front ends (``GymVectorEnv``, ``torchrl_env``, :func:`check_rows`)."""
    given = np.asarray(given).reshape(-1)
    shown = ", ".join(f"game {int(i)}: action {int(given[i])}" for i in games[:10])
    more = f" and {len(games) - 10} more" if len(games) > 10 else ""
    return ValueError(f"illegal action in {len(games)} game(s) ({shown}{more}); "
                      "nothing was applied to any game")


def check_rows(mask: np.ndarray, a: np.ndarray, rows: np.ndarray,
               given: np.ndarray) -> np.ndarray:
    """The all-or-nothing legality check of the int64 actions ``a`` (``given`` as the caller
    gave them) against ``mask``, on ``rows`` only: their indices, or the error of
    :func:`illegal_actions`.  For the vector front ends that step some rows."""
    idx = np.flatnonzero(rows)
    act = a[idx]
    ok = (act >= 0) & (act < mask.shape[1])
    ok[ok] = mask[idx[ok], act[ok]] != 0
    if not ok.all():
        raise illegal_actions(idx[~ok], given)
    return idx


def as_mask(mask: Any, num_actions: int | None = None, name: str = "mask") -> np.ndarray:
    """``mask`` as a C-contiguous ``int8[N, A]`` action mask (nonzero = legal) for the
    compiled kernels, or a ValueError naming what is wrong.  Bool and integer masks are
    taken by value; a float mask only when every entry is 0 or 1 (anything else would be
    truncated into a different mask); ``num_actions``: the width ``A`` required."""
    m = np.asarray(mask)
    width = "A" if num_actions is None else str(num_actions)
    if m.ndim != 2 or (num_actions is not None and m.shape[1] != num_actions):
        raise ValueError(f"{name} must have shape [N, {width}] (2-D), got shape {m.shape}")
    if m.dtype in (np.int8, np.uint8, np.bool_):
        return np.ascontiguousarray(m).view(np.int8)  # the kernels test != 0
    if m.dtype.kind in "iu":
        return np.ascontiguousarray(m != 0, dtype=np.int8)
    if m.dtype.kind == "f":
        bad = np.argwhere((m != 0) & (m != 1))
        if bad.size:
            i, j = bad[0].tolist()
            raise ValueError(f"{name}[{i}, {j}] = {m[i, j].item()!r}: a float action mask must "
                             "hold only 0 and 1")
        return np.ascontiguousarray(m, dtype=np.int8)
    raise ValueError(f"{name} must be bool, integer or 0/1 float, got dtype {m.dtype}")


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator,
                         out: np.ndarray | None = None) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (``[N, A]``, bool, integer
    or 0/1 float: :func:`as_mask`), compiled.

    Uses one ``rng.random()`` float per row; rows without a legal action get -1.
    ``out``: a writeable, aligned, C-contiguous ``int64[N]`` to write them into (the
    kernels write ``N`` entries unchecked, so anything else is refused before they run).
    """
    mask = as_mask(mask)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng), got "
                        f"{type(rng).__name__}")
    n, na = mask.shape
    if out is None:
        out = np.empty(n, dtype=np.int64)
    elif not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (n,):
        got = (f"{out.dtype} of shape {out.shape}" if isinstance(out, np.ndarray)
               else type(out).__name__)
        raise OutBufferError(f"out must be an int64 numpy array of shape ({n},) (one "
                             f"action per mask row), got {got}")
    elif not (out.flags.c_contiguous and out.flags.writeable and out.flags.aligned):
        raise OutBufferError("out must be a writeable, aligned, C-contiguous array")
    elif np.may_share_memory(out, mask):
        raise OutBufferError("out overlaps the mask: the kernel would overwrite rows it "
                             "has yet to read")
    if 64 < na <= 192:
        _uniform_legal_bits(mask.reshape(-1), n, na, rng.random(n), out)
    else:
        _uniform_legal(mask, rng.random(n), out)
    return out


# --------------------------------------------------------------------------- env


class VectorEnv:
    """``num_envs`` games of volený (or, with ``rules="licitovany"``, licitovaný) mariáš
    stepped together (see the module docstring)."""

    obs_size = OBS_SIZE
    state_obs_size = STATE_OBS_SIZE
    num_actions = N_ACTIONS
    state_size = STATE_SIZE
    _STEP_KERNELS = (_step_serial, _step_parallel)  # the step kernel: (serial, parallel)
    __copy__ = independent_copy  # copy.copy too: a shallow copy would share the states

    def __new__(cls, *args, **kwargs):
        """A game with a batched engine of its own (the registry's ``kind.vector``, e.g.
        lízaný) gets that engine, a subclass, from ``VectorEnv(n, rules=...)``."""
        if cls is VectorEnv and isinstance(kwargs.get("rules"), str):
            kind = next((k for k in games("vector") if k.name == kwargs["rules"]), None)
            if kind is not None and kind.vector:
                cls = kind.load("vector")
        return super().__new__(cls)

    def __init__(self, num_envs: int, seed: int | None = None, observations: bool = True,
                 deals: int | None = None, parallel: bool = False, **rules):
        n, seed = self._check_arguments(num_envs, seed, observations, parallel)
        if deals is not None:  # else the rules' default: 12 deals, 16 at four
            rules["deals"] = deals
        self.rules = make_rules(**rules)
        self.kind = kind = kind_of(self.rules)
        self.players = players = self.rules.players
        # The game's sizes (the class attributes are volený's at three).
        layout = kind.layout(players)  # volený at four has its own observation
        self.obs_size = layout.obs_size
        self.state_obs_size = layout.state_obs_size
        self.num_actions = kind.n_actions
        self.rules_vector = self.rules.vector()
        self._step_kernel = self._STEP_KERNELS[bool(parallel)]
        self._allocate(n, seed, observations, parallel, STATE_SIZE)

    @staticmethod
    def _check_arguments(num_envs, seed, observations, parallel) -> tuple[int, int | None]:
        """The arguments every batched engine takes, checked: ``(num_envs, seed)``."""
        if not is_int(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        for name, flag in (("observations", observations), ("parallel", parallel)):
            if not isinstance(flag, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        return int(num_envs), check_seed(seed)  # the same check as reset's

    def _allocate(self, n: int, seed: int | None, observations: bool, parallel: bool,
                  state_size: int) -> None:
        """The buffers, the Step showing them and what ``out`` may replace (sizes from
        ``obs_size``, ``num_actions``, ``players``, set before); warns when they would
        not fit in memory."""
        self.num_envs = n
        need = n * self._game_bytes(bool(observations))
        avail = available_memory()
        if avail is not None and need > MEMORY_FRACTION * avail:
            warnings.warn(
                f"VectorEnv({n}) needs {need:,} bytes ({need / 2**30:.2f} GiB: "
                f"{self._game_bytes(bool(observations))} per game) but only "
                f"{avail:,} bytes are available; above {MEMORY_FRACTION:.0%} of that the "
                "machine may swap or kill the process: use fewer games"
                + (" or observations=False" if observations else ""),
                VectorMemoryWarning, stacklevel=3)
        players = self.players
        self.observations = bool(observations)
        self.parallel = bool(parallel)
        # The batch's seed sequence, the only one (the front ends read it: next_seed,
        # first_seed, seeds_of): the constructor's seed, and the base seed of the next
        # reset without one.
        self._first_seed = seed
        self._next_seed = fresh_seed() if seed is None else seed
        self.seed: int | None = None
        self.decisions = 0
        # Calls that rewrote states other than by a step (reset, reset_rows,
        # restore_states): with ``decisions``, what tells a front end that keeps the
        # outputs of its own last call whether the engine changed since (the TorchRL env).
        self._rewrites = 0
        self._states = np.zeros((n, state_size), dtype=np.int32)
        self._mask = np.zeros((n, self.num_actions), dtype=np.int8)
        # Without observations the kernels still need an array of the right type.
        self._obs = np.zeros((n if self.observations else 1, self.obs_size), dtype=np.float32)
        self._player = np.zeros(n, dtype=np.int64)
        # payments exceed float32's 2**24
        self._rewards = np.zeros((n, players), dtype=np.float64)
        self._deal_done = np.zeros(n, dtype=np.bool_)
        self._partie_done = np.zeros(n, dtype=np.bool_)
        self._deal_no = np.zeros(n, dtype=np.int64)
        self._bad = np.zeros(n, dtype=np.int64)
        self._ready = False
        self._result = Step(
            player=self._player,
            obs=self._obs if self.observations else None,
            mask=self._mask_view(),
            rewards=self._rewards,
            deal_done=self._deal_done,
            partie_done=self._partie_done,
            deal_no=self._deal_no,
        )
        # What a step writes, in _OUT_FIELDS order, and what ``out`` may replace.
        self._buffers = (self._obs, self._mask, self._player, self._rewards,
                         self._deal_done, self._partie_done, self._deal_no)
        self._result_fields = tuple(getattr(self._result, f) for f in _OUT_FIELDS)
        self._out_specs = {
            "obs": ((np.dtype(np.float32),), (n, self.obs_size)),
            "mask": ((np.dtype(np.int8), np.dtype(np.bool_)), (n, self.num_actions)),
            "player": ((np.dtype(np.int64),), (n,)),
            "rewards": ((np.dtype(np.float64),), (n, players)),
            "deal_done": ((np.dtype(np.bool_),), (n,)),
            "partie_done": ((np.dtype(np.bool_),), (n,)),
            "deal_no": ((np.dtype(np.int64),), (n,)),
        }

    def _mask_view(self) -> np.ndarray:
        # The mask is what every step checks its actions against: hand it out read-only.
        view = self._mask.view()
        view.flags.writeable = False
        return view

    def __getstate__(self) -> dict[str, Any]:
        # The step kernel is the class's (a copied numba dispatcher costs ms, and an
        # unpickled one compiles again in another process).
        state = self.__dict__.copy()
        state["_step_kernel"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A copy (copy.deepcopy, pickle) copies the read-only view Step.mask as an array of
        # its own, which the copy's steps would never update: point it at the copy's mask
        # again, in the same Step object (a wrapper holding it, GymVectorEnv's ``_last``,
        # holds the copy's Step too).
        self.__dict__.update(state)
        self._step_kernel = self._STEP_KERNELS[self.parallel]
        if "_result" in state:
            self._result.mask = self._mask_view()
            self._result_fields = tuple(getattr(self._result, f) for f in _OUT_FIELDS)

    @staticmethod
    def bytes_per_game(observations: bool = True, rules: str = "voleny",
                       players: int = 3) -> int:
        """Bytes one game holds: state, mask, observation (when on) and the small buffers
        (of the game ``rules`` names, at a table of ``players``)."""
        kind = kind_of(rules)
        b = STATE_BYTES + kind.n_actions + _SMALL_BYTES + 8 * (players - 3)  # rewards
        return b + kind.layout(players).obs_size * 4 if observations else b

    def _game_bytes(self, observations: bool) -> int:
        return self.bytes_per_game(observations, self.rules.rules, self.rules.players)

    # -- views -------------------------------------------------------------

    @property
    def states(self) -> np.ndarray:
        """Read-only view of the live ``int32[N, STATE_SIZE]`` states."""
        v = self._states.view()
        v.flags.writeable = False
        return v

    def __repr__(self) -> str:
        return (f"VectorEnv(num_envs={self.num_envs}, observations={self.observations}, "
                f"parallel={self.parallel}, rules={self.rules!r})")

    # -- episode control -----------------------------------------------------

    def reset(self, seed: int | Sequence[int | None] | None = None) -> Step:
        """Start a new partie in every game; game ``i`` from ``seed_words(seed + i)`` (a list
        of ``num_envs`` seeds: game ``i`` from ``seed[i]``, a None entry that game's seed of
        an unseeded reset; none: the seeds after the last reset's)."""
        seeds = self.seeds_of(seed)
        self._new_games(np.arange(self.num_envs, dtype=np.int64), seeds)
        self.seed = seeds[0]
        return self._result

    def reset_rows(self, rows, seed: int | Sequence[int | None] | None = None) -> Step:
        """Start a new partie in games ``rows`` only (a bool mask of ``num_envs`` games, or
        their indices); the others keep their state.  Game ``i`` gets the seed a whole
        :meth:`reset` with the same ``seed`` would give it (``seed + i``, ``seed[i]``, or
        the sequence's next + i), whichever other games restart; the sequence goes on
        after the largest seed used.  The Step's rows of the restarted games are their
        first decision (rewards and flags zero); the other rows are left as the last call
        wrote them (:meth:`current` recomputes every row).  Costs O(restarted games)."""
        idx = self._row_indices(rows)
        seeds = self.seeds_of(seed, idx)  # checked first
        if idx.size == self.num_envs:
            return self.reset(seed)
        if not self._ready:
            raise RuntimeError("reset_rows keeps the other games as they are, and there "
                               "are none before the first reset: call reset() first (or "
                               "restart every game)")
        if idx.size:
            self._new_games(idx, seeds)
        return self._result

    # -- the seed sequence (module docstring, *Seeding and determinism*) ---------------

    @property
    def next_seed(self) -> int:
        """The base seed of the next reset without a seed: game ``i`` gets ``next_seed + i``
        (the constructor's ``seed`` until the first reset, a random one when that is None;
        after a reset, the one after the largest seed it used).  Setting it (an int >= 0, or
        None for a random one) fixes the next reset without a seed, as a constructor's
        ``seed`` does.  The engine's sequence is the batch's only one: the vector front ends
        (``GymVectorEnv``, the TorchRL env) read and set it here."""
        return self._next_seed

    @next_seed.setter
    def next_seed(self, seed: int | None) -> None:
        seed = check_seed(seed)
        self._next_seed = fresh_seed() if seed is None else seed

    @property
    def first_seed(self) -> int | None:
        """The constructor's ``seed`` (None when none was given)."""
        return self._first_seed

    def seeds_of(self, seed: int | Sequence[int | None] | None = None,
                 rows=None) -> list[int]:
        """The seed each game gets from ``reset(seed)`` now (``rows``, sorted game indices:
        those games' seeds, by position, as ``reset_rows(rows, seed)`` gives them), checked
        as :meth:`reset` checks ``seed`` (an OptionError naming a bad one); nothing
        changes."""
        return batch_seeds(seed, self._next_seed, self.num_envs, rows)

    def _row_indices(self, rows) -> np.ndarray:
        """``rows`` (a bool mask of one entry a game, or game indices) as sorted unique
        int64 indices; ValueError naming what is wrong."""
        n = self.num_envs
        r = np.asarray(rows)
        if r.dtype == np.bool_:
            if r.shape != (n,):
                raise ValueError(f"rows: a bool mask must have shape ({n},), one entry a "
                                 f"game, got shape {r.shape}")
            return np.flatnonzero(r).astype(np.int64)
        if r.ndim != 1 or (r.size and r.dtype.kind not in "iu"):
            raise ValueError(f"rows must be a bool mask of {n} games or a 1-D array of game "
                             f"indices, got shape {r.shape} of {r.dtype}")
        bad = (r < 0) | (r >= n)
        if bad.any():
            raise ValueError(f"rows: game indices must be in [0, {n}), got "
                             f"{r[bad][:10].tolist()}")
        return np.unique(r.astype(np.int64))

    def _new_games(self, rows: np.ndarray, seeds: Sequence[int]) -> None:
        """Games ``rows`` (int64 indices) started, game ``rows[j]`` from ``seeds[j]``
        (:meth:`_start`, each engine's own); the sequence goes on after the largest seed."""
        self._start(rows, seeds)
        self._next_seed = max(seeds) + 1
        self._ready = True
        self._rewrites += 1

    def _start(self, rows: np.ndarray, seeds: Sequence[int]) -> None:
        """A new partie in games ``rows`` (int64 indices), game ``rows[j]`` from
        ``seeds[j]``, and their outputs."""
        words, _ = seed_batch(seeds)  # every seed's generator words in one compiled call
        _reset_kernel(self._states, rows, words, self.rules_vector, self._mask, self._obs,
                      self._player, self._rewards, self._deal_done, self._partie_done,
                      self._deal_no, self.observations)

    def _actions(self, actions) -> np.ndarray:
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype != np.int64:
            if a.dtype.kind not in "iu":
                raise ValueError(f"actions must be integers, got dtype {a.dtype}")
            a = a.astype(np.int64)
        elif not a.flags.c_contiguous:
            a = np.ascontiguousarray(a)
        return a

    def _outputs(self, out: Mapping[str, np.ndarray] | None) -> tuple:
        """The buffers a step writes (the engine's own, or the caller's ``out``, each
        checked before any kernel runs) and the :class:`Step` that shows them."""
        if out is None:
            return self._buffers, self._result
        if not isinstance(out, Mapping):
            raise OutBufferError(f"out must be a mapping of Step field names to numpy "
                                 f"arrays, got {type(out).__name__}")
        unknown = sorted(set(out) - set(self._out_specs))
        if unknown:
            raise OutBufferError(f"out: unknown field(s) {unknown}; accepted: "
                                 f"{list(self._out_specs)}")
        if "obs" in out and not self.observations:
            raise OutBufferError("out['obs']: this VectorEnv encodes no observations "
                                 "(observations=False)")
        bufs = dict(zip(_OUT_FIELDS, self._buffers))
        given = []
        for name, arr in out.items():
            dtypes, shape = self._out_specs[name]
            if not isinstance(arr, np.ndarray):
                raise OutBufferError(f"out[{name!r}] must be a numpy array, got "
                                     f"{type(arr).__name__}")
            if arr.dtype not in dtypes or arr.shape != shape:
                raise OutBufferError(
                    f"out[{name!r}] must be {' or '.join(str(d) for d in dtypes)} of "
                    f"shape {shape}, got {arr.dtype} of shape {arr.shape}")
            if not (arr.flags.c_contiguous and arr.flags.writeable and arr.flags.aligned):
                raise OutBufferError(f"out[{name!r}] must be a writeable, aligned, "
                                     "C-contiguous array")
            for other in (self._states, self._mask, *given):
                if np.may_share_memory(arr, other):
                    raise OutBufferError(f"out[{name!r}] overlaps the engine's state, "
                                         "its mask or another out buffer")
            given.append(arr)
            bufs[name] = arr.view(np.int8) if name == "mask" else arr
        fields = dict(zip(_OUT_FIELDS, self._result_fields))
        fields.update(out)
        return tuple(bufs.values()), Step(**fields)

    def step(self, actions, out: Mapping[str, np.ndarray] | None = None) -> Step:
        """Apply one action per game (for ``Step.player``); illegal ones apply nothing.

        ``out``: buffers of the caller to write this step's outputs into instead of the
        engine's own (see the module docstring, *Output buffers*)."""
        a = self._actions(actions)
        bufs, result = self._outputs(out)
        obs, mask, player, rewards, deal_done, partie_done, deal_no = bufs
        nbad = self._step_kernel(self._states, self.rules_vector, a, True, self._bad,
                                 self._mask, obs, player, rewards, deal_done, partie_done,
                                 deal_no, self.observations, mask, mask is not self._mask)
        if nbad:
            raise illegal_actions(self._bad[:nbad], actions)
        self.decisions += self.num_envs
        return result

    def step_unchecked(self, actions, out: Mapping[str, np.ndarray] | None = None) -> Step:
        """:meth:`step` without the up-front legality pass: a game whose action its mask
        does not allow (out of range included) is left unchanged, the others step (its
        outputs are those of its unchanged state)."""
        a = self._actions(actions)
        bufs, result = self._outputs(out)
        obs, mask, player, rewards, deal_done, partie_done, deal_no = bufs
        self._step_kernel(self._states, self.rules_vector, a, False, self._bad, self._mask,
                          obs, player, rewards, deal_done, partie_done, deal_no,
                          self.observations, mask, mask is not self._mask)
        self.decisions += self.num_envs
        return result

    def current(self) -> Step:
        """The current player/mask/obs (recomputed), with zero rewards and flags."""
        if not self._ready:
            raise RuntimeError("call reset() first")
        _refresh_kernel(self._states, self.rules_vector, self._mask, self._obs,
                        self._player, self._rewards, self._deal_done, self._partie_done,
                        self._deal_no, self.observations)
        return self._result

    def state(self) -> np.ndarray:
        """Perfect-information encodings ``float32[N, STATE_OBS_SIZE]`` (a fresh array)."""
        if not self._ready:  # the states are all zeros: no game's position to encode
            raise RuntimeError("call reset() first")
        out = np.empty((self.num_envs, self.state_obs_size), dtype=np.float32)
        _state_kernel(self._states, self.rules_vector, out)
        return out

    def render_tables(self) -> list[str]:
        """Every game's table as text, one string a game, as its AEC environment's
        ``render_mode="ansi"`` writes it (the Gymnasium vector env's ``render``).  A game
        whose partie ended in the last step shows its new partie (the engine restarted
        it in that step)."""
        if not self._ready:
            raise RuntimeError("call reset() first")
        from .render import render_table

        game = Game(self.rules, records=False)  # one view, given each game's state in turn
        tables = []
        for row in self._states:
            game.st = row.copy()
            tables.append(render_table(game))
        return tables

    # -- snapshots ---------------------------------------------------------------

    def copy_states(self) -> np.ndarray:
        """A copy of all game states, ``int32[N, STATE_SIZE]``."""
        return self._states.copy()

    def _validate_states(self, states: np.ndarray) -> None:
        """ValueError naming the field and the games unless every row can be restored."""
        check_states(states, self.rules_vector)

    def restore_states(self, states: np.ndarray) -> None:
        """Put every game back to ``states`` (as returned by :meth:`copy_states`)."""
        if not isinstance(states, np.ndarray):
            raise TypeError(f"states must be a numpy array, got {type(states).__name__}")
        if states.dtype != np.int32:
            raise ValueError(f"states must have dtype int32, got {states.dtype}")
        if states.shape != self._states.shape:
            raise ValueError(
                f"states must have shape {self._states.shape}, got {states.shape}")
        self._validate_states(states)
        np.copyto(self._states, states)
        self._ready = True
        self._rewrites += 1
        self.current()
