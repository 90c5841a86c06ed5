"""Search support for volený and licitovaný mariáš: worlds for one seat, and a double-dummy
solver (lízaný's own search is :mod:`mariash_env.games.lizany.solve`).

Everything here runs on the core's compact ``int32`` state record and decides no rule
itself: moves come from ``legal_cards`` / ``legal_actions``, are applied with
``apply_action``, leaves are scored by ``settle`` (all in :mod:`mariash_env.core`).

Worlds — :func:`sample_worlds`, :func:`knowledge`
-------------------------------------------------
``sample_worlds(st, seat, n, rng=None, rules=None)`` returns ``int32[n, STATE_SIZE]``:
full states equal to ``st`` in everything ``seat`` knows, with the cards hidden from
it (the other hands; the talon unless the seat laid it and still sees it; forehand's
five unseen cards while it chooses trumps) redealt.  Guarantees, each checked by
``tests/test_search.py``:

* ``observe.encode(world, seat)`` equals ``observe.encode(st, seat)``; only hidden
  slots differ (other hands, the talon and its discard order, other seats' talon
  cards, the trump card while the seat has not seen it, deck positions).
* Every world is explained by its public history: :func:`check_world` replays the
  tricks with the core (every card legal for the hand then held, every marriage
  announced exactly as recorded) and checks forehand's announcement, the defence's
  announcements, forehand's suit-game discards and the trump choice.  The real state
  always passes, and :func:`knowledge` always admits it.
* Uniform: the assignment of the hidden cards to (next seat, previous seat, rest) is
  uniform over all assignments consistent with the seat's knowledge.  Per-card
  location masks and location sizes are sampled exactly (sequential choice weighted by
  integer counts of completions), the remaining constraints (must hold one of these
  sets; at most k of these cards there) by rejection, then :func:`check_world`
  rejects anything the masks missed (it never has in the tests).  Other hidden details
  (earlier talons, the trump card before it is shown, deck positions) are filled in
  consistently, at random.

``knowledge(st, seat)`` reads only the seat's own cards, its talon cards and the public
history, and returns per hidden card the allowed locations (bits: 1 next seat, 2
previous seat, 4 rest), each location's card count, ``must_hold`` and ``at_most``
constraints.  It derives: hand sizes; voids (not following suit); no trumps (neither
following nor trumping); no higher card of the suit (followed an untrumped trick
without beating); no higher trump (trumped without overtrumping); the announced
seven's holder playing it early only when forced — all found by asking the core's
``legal_cards`` whether the card played stays legal if the seat also held the hidden
card (§6 legality depends on the hand only through such pairs); marriages (a K or Q
played with the announcement puts the partner in that hand, without it — where the
core's ``play_card`` would have announced — out of it); the shown trump card in
forehand's hand; forehand's suit talon free of aces, tens and the trump card (barred
set asked of ``legal_actions``); sedma / seven against ⇒ the trump seven, sto /
hundred against ⇒ some marriage held then (must-hold); a talon this seat laid and
another took lies with the taker, in the taker's own talon, or (through it) with the
seat that took that one (at most two of its cards).

Their speed is measured in ``docs/benchmarks.md`` (``scripts/bench_apis.py``).

Solver — :func:`solve`
----------------------
``solve(st, rules=None, *, pv=True, all_moves=False)`` solves the card play of a deal
in phase play with all hands known (any position, mid-trick too): minimax over ``A``,
the amount each defender pays the actor (actor +2A), the actor maximising and both
defenders minimising.  It returns a :class:`SolveResult`: ``value`` (``A``),
``action`` / ``card`` (a best move of the seat to move), ``pv`` (principal variation
as action indices, to the end of the deal), ``outcome`` (an :class:`Outcome` of the
PV's final settled state: card points of each side, marriages, last trick and its
winner, the trump seven's fate, whether the contract line was won, the settlement
lines ``AMT``), ``move_values`` with ``all_moves=True`` (exact ``A`` of every legal
card, e.g. for PIMC), and search statistics.  Laying down is not searched (it never
changes an exact result); the core's lay-down test is used as a cut-off.  A record from
outside the engine is checked first (:mod:`mariash_env.core.validate`, as
``VectorEnv.restore_states`` checks one): a field the solver would index past its tables
with is a ValueError naming it; the searches pass ``check=False`` for their own worlds.
:func:`knowledge` and :func:`sample_worlds` (and licitovaný's sampler) check their record
and seat the same way, once a call; ``n`` is at most ``core.validate.MAX_WORLDS``.

Licitovaný mariáš: ``solve(st, make_rules(rules="licitovany"))`` solves every one of its
twelve contracts the same way (``A`` in desetníky after the cap, play actions of the
licitovaný table, moves legal by §7 with the reserved sevens);
``licit_worlds.random_licit_position(seed, game, plays)`` draws test positions.

Method: iterative alpha-beta with MTD(f), a transposition table at trick starts
(bounds kept per actor point total and reused by monotonicity), equivalent cards,
move ordering, and bound tests from ``settle`` on the best and worst conceivable
endings (see :mod:`mariash_env.search.solver`).  :func:`brute_force_value` is a plain
minimax reference; the tests compare them on random endgames (every rule variant of
the ``make_rules`` switches that matter: marriage order, tariff, cap) and whole betl /
durch deals.

Its speed (``scripts/bench_solver.py``, both games) and first-use compile times are in
``docs/benchmarks.md``.
"""

from ..games.voleny.worlds import (
    Knowledge,
    WorldError,
    check_world,
    knowledge,
    random_position,
    sample_worlds,
)
from .solver import Outcome, SolveResult, brute_force_value, solve

__all__ = [
    "Knowledge",
    "Outcome",
    "SolveResult",
    "WorldError",
    "brute_force_value",
    "check_world",
    "knowledge",
    "random_position",
    "sample_worlds",
    "solve",
]
