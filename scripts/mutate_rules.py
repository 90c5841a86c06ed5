"""Mutation audit of the rules core: which rule could be broken without a test noticing?

For each source file it makes *mutants*, one small change at a time, and runs a chosen
pytest selection against each; a mutant no test fails on has *survived*: a rule no test
would catch if broken (or an equivalent change, which cannot alter behaviour).  The
project's standard ("every rule of RULES.md has a test that would fail if the rule were
broken") is checked by the survivors being equivalent ones only.

    python -m scripts.mutate_rules                        # every group of PLAN, all mutants
    python -m scripts.mutate_rules --group voleny --sample 200 --seed 1 --json out.json
    python -m scripts.mutate_rules --files mariash_env/core/tricks.py \\
        --tests tests/test_tricks.py tests/test_rules_play.py
    python -m scripts.mutate_rules --list --group core    # the mutants, nothing run
    python -m scripts.mutate_rules --rerun out.json --tests tests/test_properties.py
                                                          # the survivors of a run again
    python -m scripts.mutate_rules --group licitovany --ids ID... --deselect NEW_TEST
                                                          # do the old tests catch it?

The audit as run (a group at a time; its mutants drawn in a random order, so that a run
stopped by ``--max-seconds`` is a random sample; about two hours in all on two shared
cores), then ``--ops int`` the same way for a few minutes a group::

    python -m scripts.mutate_rules --group voleny --ops cmp,boolop,bool,guard,minmax,not \\
        --sample 100000 --seed 1 --max-seconds 1500 --timeout 150 --json voleny.json

and the same with ``--skip-done voleny.json --json voleny2.json`` goes on where it stopped.

Mutation operators (``--ops``, the default all but ``arith`` and ``bitop``), written with
the stdlib :mod:`ast` (the mutated node re-written with :func:`ast.unparse` in place of its
source text, the rest of the file unchanged):

* ``cmp``: ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``, ``is``/``in`` <-> their
  negations, one operator of a comparison at a time;
* ``boolop``: ``and`` <-> ``or``;
* ``int``: an integer constant +1 and -1 (not in ``raise``/``assert``, annotations or
  ``__all__``);
* ``bool``: ``True`` <-> ``False``;
* ``guard``: a ``return``, ``continue`` or ``break`` inside an ``if`` replaced by ``pass``;
* ``minmax``: ``min`` <-> ``max``;
* ``not``: ``not x`` -> ``x``;
* ``arith`` (opt-in): ``+`` <-> ``-``; ``bitop`` (opt-in): ``&`` <-> ``|``.

How it runs: the repository (its files that git tracks or would track) is copied once to a
temporary folder; each mutant is written into that copy, its stale bytecode removed, and
``python -m pytest -x -n 0 -p no:randomly -p no:cacheprovider`` run there on the selection
with a time limit, then the original text is put back (on every exit path; the copy is
removed at the end).  Nothing in the checkout is ever changed.  The core runs as plain
Python (``NUMBA_DISABLE_JIT=1``: a few seconds a mutant instead of a ~35 s cold compile);
``--jit`` compiles instead, each mutant with a fresh private ``NUMBA_CACHE_DIR``.

First a baseline run of the selection on the unmutated copy (no ``-x``): its duration sets
the default time limit (3x, at least 60 s), and a test failing there (some tests need the
compiled core, e.g. int32 wrap-around) is deselected for the mutants and listed in the
results.  Each mutant is then ``killed`` (a test failed or errored, or the suite could not
be collected), ``survived`` (every test passed), ``timeout`` or ``invalid`` (the mutated
text did not compile; not run).

Prints one line per mutant, then per file the counts and each survivor's diff; ``--json``
writes every mutant (id, file, function, line, operator, status, seconds, the test that
killed it, the diff) and the baseline with :mod:`mariash_env.jsonio`.  Run it niced
(``--nice``, 10 by default) and one mutant at a time: a suite is CPU-bound.  Not part of
``make test``.

Mutant ids are ``FILE::FUNCTION::OPERATOR::N`` (``N`` counts that operator's sites in the
function, in source order), stable while the function's text is, unlike line numbers.
``EQUIVALENT`` lists the survivors of the audits so far that cannot change behaviour (each
with why): they are reported as ``equivalent``, not ``survived``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

DEFAULT_OPS = ("cmp", "boolop", "int", "bool", "guard", "minmax", "not")
ALL_OPS = DEFAULT_OPS + ("arith", "bitop")

# Fast, rule-focused modules first (-x stops at the first failure), the broad property
# and referee runs after them.
_VOLENY_TESTS = ("tests/test_tricks.py", "tests/test_rules_play.py",
                 "tests/test_rules_bidding.py", "tests/test_rules_variants.py",
                 "tests/test_four_players.py", "tests/test_settlement_reader.py",
                 "tests/test_open_contracts.py", "tests/test_order_free.py",
                 "tests/test_referee_voleny.py", "tests/test_properties.py")
_LICIT_TESTS = ("tests/test_licit_rules.py", "tests/test_referee_licitovany.py",
                "tests/test_licit_properties.py")
_LIZANY_TESTS = ("tests/test_lizany.py", "tests/test_referee_lizany.py",
                 "tests/test_lizany_vector.py")
# The solvers as plain Python are slow (a whole deal takes minutes): the small endgames of
# test_solver_endgames.py against its own minimax first, then the quick solver tests.
_SEARCH_TESTS = ("tests/test_solver_endgames.py",
                 "tests/test_search.py::test_table_key_ignores_cards_out_of_play",
                 "tests/test_search.py::test_solver_principal_variations_replay",
                 "tests/test_search.py::test_solver_rule_variants",
                 "tests/test_search.py::test_solve_rejects_positions_outside_the_play",
                 "tests/test_search.py::test_solve_refuses_a_record_the_engine_would_read_past",
                 "tests/test_search.py::test_the_solvers_run_as_plain_python",
                 "tests/test_solver_licit.py::test_licit_whole_late_deals_two_sevens_and_silent_seven",
                 "tests/test_solver_licit.py::test_transposition_key_tells_the_helping_seven_apart",
                 "tests/test_solver_licit.py::test_each_game_writes_its_own_solve_flags",
                 "tests/test_symmetry.py::test_exact_values_move_with_the_cards",
                 "tests/test_order_free.py::test_solver_values_order_free_hundreds",
                 "tests/test_rules_variants.py::test_s12_solver_follows_the_capped_lay_down",
                 "tests/test_lizany_solve.py::test_every_card_value_is_minimax",
                 "tests/test_lizany_solve.py::"
                 "test_ties_go_to_the_first_card_and_the_budget_stops_a_search")

PLAN: dict[str, dict[str, tuple[str, ...]]] = {
    # the layers every game shares
    "core": {
        "files": ("mariash_env/core/tricks.py", "mariash_env/core/play.py",
                  "mariash_env/core/flow.py", "mariash_env/core/deal.py",
                  "mariash_env/core/tables.py"),
        "tests": ("tests/test_tricks.py", "tests/test_rules_play.py",
                  "tests/test_rules_bidding.py", "tests/test_licit_rules.py",
                  "tests/test_lizany.py", "tests/test_deal_gather.py",
                  "tests/test_rules_variants.py",
                  "tests/test_four_players.py", "tests/test_referee_voleny.py",
                  "tests/test_referee_licitovany.py", "tests/test_referee_lizany.py"),
    },
    "voleny": {
        "files": ("mariash_env/games/voleny/phases.py", "mariash_env/games/voleny/settle.py",
                  "mariash_env/games/voleny/laydown.py", "mariash_env/games/voleny/four.py",
                  "mariash_env/games/voleny/deal.py"),
        "tests": _VOLENY_TESTS,
    },
    "licitovany": {
        "files": ("mariash_env/games/licitovany/phases.py",
                  "mariash_env/games/licitovany/settle.py",
                  "mariash_env/games/licitovany/games.py",
                  "mariash_env/games/licitovany/deal.py"),
        "tests": _LICIT_TESTS,
    },
    "lizany": {
        "files": ("mariash_env/games/lizany/core.py",),
        "tests": _LIZANY_TESTS,
    },
    # the double-dummy solvers: the generic search and each game's parts
    "search": {
        "files": ("mariash_env/search/solver.py", "mariash_env/games/voleny/solve.py",
                  "mariash_env/games/licitovany/solve.py", "mariash_env/games/lizany/solve.py"),
        "tests": _SEARCH_TESTS,
    },
}
"""The audit's default: per group, the rules files and the tests that should catch a
broken rule in them."""

# Always left out of the mutants' runs (beside what fails in the baseline): tests of what
# stands on the rules (robots, the batched engine, arenas and command lines, observations,
# the world samplers), which take half the selections' time as plain Python and whose
# rules the rule tests cover; a lízaný match in worker processes takes ~5 min alone.
ALWAYS_DESELECT = (
    "tests/test_lizany.py::test_a_lizany_match_in_processes_is_the_same_match",
    "tests/test_lizany.py::test_rule_robot_beats_random_in_a_duplicate_match",
    "tests/test_lizany.py::test_arena_command_line_lizany",
    "tests/test_open_contracts.py::test_vector_env_plays_open_contracts",
    "tests/test_open_contracts.py::test_table_robot_answers_and_plays_open_contracts_legally",
    "tests/test_open_contracts.py::test_worlds_replay_when_a_seat_takes_two_talons",
    "tests/test_open_contracts.py::test_knowledge_keeps_the_real_deal_when_a_seat_takes_two_talons",
    "tests/test_open_contracts.py::test_api_test_and_arena_with_open_contracts",
    "tests/test_order_free.py::test_env_api_and_arena_with_order_free",
    "tests/test_four_players.py::test_s11_3_arena_command_line",
    "tests/test_four_players.py::test_s11_3_arena_rotates_robots_over_four_seats",
    "tests/test_licit_properties.py::test_observation_hides_other_seats_cards",
)

SKIP_FUNCTIONS = r"^(_?check_|_check$|_check_record$|encode$|observe_into$)"
"""Functions not mutated unless ``--all-functions``: the buffers' and records' checks
(their tests are the hardening suites'; lízaný's solver's ``_check``) and lízaný's
observation encoder."""

_V, _L, _Z = ("mariash_env/games/voleny/", "mariash_env/games/licitovany/",
              "mariash_env/games/lizany/")
_SV = "mariash_env/search/solver.py::"
_ORDER_ONLY = ("move ordering only: lízaný's values are exact in any order, and solve_best "
               "picks its card in card order, not the search's")
_EARLY_EXIT = "an early exit: the code after it returns the same"
EQUIVALENT: dict[str, str] = {
    # core
    "mariash_env/core/tricks.py::_follow_rule::guard::0":
        "already trumped: a led-suit card never beats the trump (ABOVE_* hold one suit), so "
        "`follow & above` is 0 and the fall-through returns `follow` too",
    "mariash_env/core/tricks.py::_follow_rule::cmp::1":
        "as _follow_rule::guard::0: with hearts trumps the fall-through returns `follow` too",
    "mariash_env/core/tricks.py::tricks_begun::minmax::0":
        "the walk stops at the first trick not led (trick_cards 0) and reads trick 10 of a "
        "finished deal as not begun (t == TRICK_NO, TRICK_N 0)",
    "mariash_env/core/tricks.py::trick_cards::guard::0":
        "the trick not yet led is the current one, whose TRICK_N is 0",
    "mariash_env/core/tricks.py::cards_played::guard::0":
        "tricks are led in order: after one not led every later one counts 0",
    "mariash_env/core/play.py::play_card::boolop::0":
        "SEVEN_TRICK is set only by a trump seven (trump >= 0): without trumps it is -1",
    "mariash_env/core/play.py::legal_cards::cmp::1":
        "in trick 10 every seat holds one card: the restriction cannot bite",
    "mariash_env/core/play.py::side_marriages::cmp::3":
        "marriage orders are distinct (NMARR counts them): < and <= agree",
    "mariash_env/core/play.py::side_marriages::cmp::4": "as side_marriages::cmp::3",
    "mariash_env/core/tricks.py::tricks_begun::int::2": "as tricks_begun::minmax::0",
    "mariash_env/core/deal.py::<module>::int::5":
        "the stack's room (259) has slack: a corrupted record stacks at most 256 cards "
        "(talon 32, discards 2, tricks 30, claimed 96, hands 96), the 3 trick slots written "
        "ahead come before a seat's hand",
    "mariash_env/core/deal.py::next_deck::cmp::0":
        "k is -1 (drawn) or a given cut 2..30 (Game's cuts option, OpenSpiel's chance "
        "outcomes CUT_MIN..CUT_MAX): k == 0 never reaches it",
    "mariash_env/core/deal.py::gathered_deck::guard::0":
        "for a whole permutation the repair path puts every card where the fast path does "
        "(deck[31 - m] = stack[m])",
    "mariash_env/core/tables.py::_rel_mask::cmp::1":
        "BELOW_PLAIN[c] is only ANDed with cards the holder of c lacks (outstanding or the "
        "defenders' cards): its own bit never counts",
    # volený
    _V + "laydown.py::can_lay_down::bool::1":
        "a seat on lead at a trick's start in play holds a card (the deal ends after trick "
        "10)",
    _V + "laydown.py::can_lay_down::guard::1": "as can_lay_down::bool::1",
    _V + "laydown.py::can_lay_down::bool::7":
        "a betl's actor leads only trick 1, holding 10 cards of two suits or more, which miss "
        "6 cards or more, beyond his talon's 2: some suit always has an outstanding card",
    _V + "laydown.py::can_lay_down::bool::10":
        "play always has a contract (suit, betl or durch)",
    _V + "laydown.py::can_lay_down::boolop::0":
        "the seat asked is the seat to move: at a trick's start the leader, in a begun "
        "trick never the leader",
    _V + "laydown.py::_hundred_withheld::cmp::2":
        _EARLY_EXIT + ": once the hundred side's first marriage is fixed every candidate "
        "lay-down pays the same",
    _V + "laydown.py::_hundred_withheld::guard::1": "as _hundred_withheld::cmp::2",
    _V + "phases.py::_apply_flek::cmp::4":
        "volený reads RAISED_BY for levels 1..7 only (the observation's raised_by block, "
        "0x3FFF): whether level 15's raiser is kept changes nothing",
    _V + "phases.py::legal_voleny::guard::0":
        "no phase branch matches PH_DONE, and TO_MOVE is -1 only once the deal is done "
        "(end_deal): the mask stays cleared",
    # licitovaný
    _L + "phases.py::reserved_sevens::boolop::0":
        "called in the discard and play phases only: a suit game has its trumps there, "
        "betl and durch none (-1)",
    _L + "phases.py::reserved_sevens::guard::0": "as reserved_sevens::boolop::0",
    _L + "phases.py::reserved_sevens::boolop::1":
        "LIC_HELP is -1 outside two sevens and chosen before the discards in two sevens",
    _L + "phases.py::laid_payer::boolop::0":
        "every raise to a level 1..15 records its seat, and odd levels are the defenders' "
        "(§6): s is never -1 nor the actor",
    _L + "phases.py::laid_payer::guard::1": "as laid_payer::boolop::0",
    _L + "phases.py::licit_cards::guard::0":
        "the reserved sevens are the actor's own (held by the needs, never discarded): a "
        "defender's legal cards never hold one, so res is 0 and legal is returned",
    _L + "phases.py::licit_cards::guard::1": _EARLY_EXIT + " (nothing early, legal itself)",
    _L + "phases.py::legal_licit::boolop::0":
        "a deal ends through end_deal: phase done and nobody to move together",
    _L + "phases.py::legal_licit::guard::0": "no phase branch matches PH_DONE",
    _L + "phases.py::legal_licit::int::7": "as legal_licit::boolop::0",
    _L + "games.py::<module>::int::14":
        "game id 0 (none) is never looked up: every reader of COMPONENTS, KIND and HEARTS "
        "has a game (g >= 1) or checks g > 0 first",
    _L + "games.py::<module>::int::15": "as games.py::<module>::int::14 (COMPONENTS[0])",
    _L + "games.py::<module>::int::16": "as games.py::<module>::int::14 (KIND[0])",
    _L + "games.py::<module>::int::17": "as games.py::<module>::int::14 (KIND[0])",
    _L + "games.py::<module>::int::20":
        "KIND gets a 14th entry (no game 13): games are 1..12, it is never read",
    _L + "games.py::<module>::int::22": "as games.py::<module>::int::14 (HEARTS[0])",
    _L + "games.py::<module>::int::23": "as games.py::<module>::int::14 (HEARTS[0])",
    _L + "games.py::<module>::int::26":
        "HEARTS is read as a truth value only (2 if HEARTS[g] else 1, bool): 2 reads as 1",
    _L + "games.py::<module>::int::32": "as games.py::<module>::int::26",
    _L + "games.py::<module>::int::34": "as games.py::<module>::int::26",
    _L + "games.py::<module>::int::44": "as games.py::<module>::int::26",
    _L + "games.py::<module>::int::46": "as games.py::<module>::int::26",
    _L + "settle.py::_played_lines::cmp::7":
        "Pa + Pd is an odd multiple of ten (§8): never a tie",
    _L + "settle.py::settle_licit::cmp::6":
        "with A* = 0 the laid-game branch pays 0 and 0, as the plain one (-A* each)",
    _L + "settle.py::settle_licit::int::33":
        "with no actor (no bid) every amount is 0: the write before PAY puts 0 where 0 is",
    # lízaný
    _Z + "core.py::legal_cards::guard::0":
        "a finished deal's hands are empty (32 cards in 16 tricks): the hand returned is 0",
    # the solvers (search)
    _SV + "_tt_key::int::9":
        "ZFIRST[4 * (fa + 1) + (fd + 1)]: the key also holds ZMARR[mcode], the seat of every "
        "marriage, so two keys alike have fa < 0 alike and fd < 0 alike; then "
        "4 * (fa - fa') = fd' - fd in -3..3 forces fa = fa', fd = fd': no two first-marriage "
        "pairs share a slot (fa, fd -1..3, indices 0..20 of 25)",
    _SV + "_announce_pending::int::20":
        "a fifth suit reads pend's bits 16..19, always 0 (4 bits a suit): ps is -1, skipped",
    _SV + "_settle_scenarios::int::29":
        "npend > -1: with no pending marriage pend is 0 and _announce_pending writes nothing "
        "(each suit reads -1)",
    _SV + "_settled::cmp::1": "v <= best: an equal v folds in as best, the same value",
    _SV + "_bound_test::guard::0":
        "a cut-off only: without it the node is searched, to the same value",
    _SV + "<module>::int::45":
        "ZMARR's random keys drawn below 2**61 instead of 2**62: still random nonzero keys",
    _L + "solve.py::ending_fates::guard::0":
        "without two sevens help_suit is -1: the ending count gets one fate more, and the "
        "fate written (trick 9's winner, trick 9 and 10's cards) is read by settle_licit for "
        "two sevens only; its shift by -8 reads card bit 56 (none) compiled, 0 as numpy.  "
        "Unreachable unmutated: a two sevens game is a suit game (KIND) and a checked record "
        "has its helping suit (validate V_LIC_HELP)",
    _Z + "solve.py::_order::int::17": _ORDER_ONLY,
    _Z + "solve.py::_order::cmp::0": _ORDER_ONLY,
    _Z + "solve.py::_store::int::8":
        "w >> 9 == stamp never matches an entry of this solve with a stock (stamps only grow, "
        "s // 2 == s for s = 0 only; open positions, stamp 0, share no key with a stock "
        "position): the store keeps only the bounds just proved, true bounds all the same",
    _Z + "solve.py::_order::int::25": _ORDER_ONLY,
    _Z + "solve.py::_order::int::35":
        _ORDER_ONLY + " (the keys go stale, out still gets each move once)",
    _Z + "solve.py::<module>::int::20":
        "a hash multiplier: an entry is read or tightened only when its whole key matches "
        "(_probe, _store), so the slot decides which entries overwrite each other, no value",
    _Z + "solve.py::Solver.card_values::int::4":
        "legal is -1 (stopped) or the legal cards' mask, never 0 for a deal not over "
        "(_check refuses a finished one; the seat to move holds a card): < 1 is < 0",
    _Z + "solve.py::_key::int::1":
        "card 0 of player_0's hand dropped from the key: probes and stores are at trick "
        "starts, where both hands hold as many cards (_check: n0 == n1 at the root), so "
        "the same player_1 hand fixes whether player_0's holds it",
    _Z + "solve.py::_key::int::4":
        "as _key::int::1: card 31 of player_1's hand falls off the int64, the same "
        "player_0 hand and hand size fix it",
    _Z + "solve.py::_key::int::5":
        "player_1's card 0 on player_0's card 31's bit: with |h0| == |h1| at a trick start "
        "(as _key::int::1) a - b is fixed by the other cards, a or b by the shared bit: "
        "together they fix a and b",
    _Z + "solve.py::_key::int::10":
        "diff + 513: |diff| <= 190 (80 card points, 100 in marriages; the last trick's 10 "
        "only once over), so (diff + 513) << 1 lies in bits 1..10, one-to-one",
    _Z + "solve.py::_key::int::11": "as _key::int::10 (diff + 511 >= 321)",
    _Z + "solve.py::_key::int::12":
        "as _key::int::10: (diff + 512) << 2 <= 2808 stays below bit 12, one-to-one",
    _Z + "solve.py::_key::int::13":
        "diff is a sum of tens (card points, marriages), so diff + 512 is even and <= 702: "
        "or-ed onto TO_MOVE's bit 0 it is still one-to-one",
    _Z + "solve.py::_key::int::17":
        "player_0's trick flag in bit 11: the point difference ends at bit 10 "
        "((190 + 512) << 1 < 2048), as _key::int::10",
    _Z + "solve.py::_key::int::20":
        "player_1's tricks as 0, 1, 2+: 2 << 13 is bit 14, which STOCK_POS << 14 never "
        "sets (the stock is drawn two cards a trick, _check: an even stock), so the key "
        "only tells more positions apart (fewer hits, no value)",
    _Z + "solve.py::_key::int::22":
        "player_1's trick flag in bit 14: STOCK_POS is even (as _key::int::20), bit 14 "
        "is free",
    _Z + "solve.py::_key::int::25":
        "STOCK_POS << 13: STOCK_POS is even (as _key::int::20), so it fills bits 14..17 "
        "and leaves player_1's trick flag (bit 13) and the trump suit (bit 19) alone",
    _Z + "solve.py::_key::int::27":
        "TRUMP_CARD >> 2 is 2 * suit + a rank bit: the key tells more apart (as "
        "_key::int::20)",
    _Z + "solve.py::_key::int::28":
        "the trump suit in bits 20..21: STOCK_POS << 14 ends at bit 18 (16 << 14), "
        "one-to-one",
    _SV + "<module>::int::46":
        "ZLEAD gets a fourth key, never read (it is indexed by the leader, 0..2), and the "
        "keys drawn after it shift by one draw: still random nonzero keys (as "
        "<module>::int::45)",
    _SV + "_split_card_points::int::14":
        "the defence's card points on the other defender: both settlements read them "
        "summed over the two (volený settle_voleny's cd, licitovaný's settle.py cd)",
    _SV + "_settle_scenarios::int::14":
        "at trick 10 (TRICK_NO 9) the third fate writes SEVEN_TRICK 9, SEVEN_WON 0: the "
        "second fate again, the same min and max; TRICK_NO is never 10 with a card held",
    _SV + "_score_moves::int::14":
        "best (the trick's winning card) is read only when a card is on the trick (n > 0), "
        "where it is set from the trick",
    _SV + "_fold::cmp::1":
        "F_BEST is set only here (and to -INF on entry): once it is b, F_ALPHA >= b, so an "
        "equal v changes neither",
    _SV + "_plain::int::8": "beta gets one slot more, never read (depths 0..MAXD)",
    _SV + "_fold::cmp::4": "v == F_BETA writes the value F_BETA holds",
    _SV + "<module>::int::31":
        "ZSHAPE's random keys drawn below 2**61: still random nonzero keys (as "
        "<module>::int::45)",
    _SV + "<module>::int::32":
        "ZSHAPE gets a fifth suit's keys, never read (index ((s * 8 + place) * 3 + own) * 5 "
        "+ cls < 480), and the keys drawn after it shift: as <module>::int::46",
    _SV + "<module>::int::84":
        "the table gets a column more (22), never read: TT_KEY 0, TT_LO 1..10, TT_HI 11..20",
    _SV + "solve::int::14":
        "the slot mask loses its low bit: only even rows are used, and an entry is read "
        "only when its whole key matches (TT_KEY), so fewer hits, no other value",
    _Z + "solve.py::<module>::int::9":
        "a table of 2**15 entries: an entry is read only on a whole-key match, so the size "
        "decides which entries survive, not a value (as <module>::int::20)",
    _Z + "solve.py::_search::minmax::1":
        "the window widened (max) instead of narrowed by the stored upper bound: "
        "alpha-beta is exact inside any window, and the store reads the window searched "
        "(lo0, hi0), so values and stored bounds stay true; a cut-off lost only",
    _SV + "_score_moves::int::64":
        "o = 3 is the seat itself: ((seat + 3) % 3 == actor) != (seat == actor) is False, "
        "the ruff test skips it",
    _SV + "_first_marriage_choices::int::26":
        "the actor's choices land in every other 4-bit field: each real choice is still "
        "tried, the empty fields between read as -1 (as it comes): more endings in the "
        "min and max of _settle_scenarios, which still bound the value (a superset)",
}
"""Survivors judged equivalent (mutant id -> why the behaviour cannot change for a state
the rules make): reported as ``equivalent``.  Mutants of the ``apply_*`` dispatch and the
flek turns that make random play loop are ``killed``: the engine's loops that play a deal
forward (``random_position`` in ``test_tricks.py::test_walk_over_the_cards_played``, the
play-outs) raise ``StuckGameError`` past the rules' decisions of a deal
(``core.engine.deal_decisions``), the tests' own loops fail at ``tests/helpers.step_cap``
(a partie that never ends in
``test_rules_play.py::test_partie_totals_are_the_sum_of_the_deals_and_zero_sum``)."""

_REPORT_PLUGIN = '''\
"""Written by scripts/mutate_rules.py: the failing tests' ids, one a line."""
import os


def pytest_runtest_logreport(report):
    if report.failed:
        with open(os.environ["MUTATE_RULES_FAILED"], "a", encoding="utf-8") as f:
            f.write(report.nodeid + "\\n")


def pytest_collectreport(report):
    if report.failed:
        with open(os.environ["MUTATE_RULES_FAILED"], "a", encoding="utf-8") as f:
            f.write("collect:" + report.nodeid + "\\n")
'''


# --- the mutants --------------------------------------------------------------------------


@dataclass
class Mutant:
    """One change to one file."""

    id: str
    file: str
    function: str
    op: str
    line: int
    before: str
    after: str
    start: int = field(repr=False, default=0)  # character offsets of the replaced text
    end: int = field(repr=False, default=0)
    replacement: str = field(repr=False, default="")
    status: str = ""
    seconds: float = 0.0
    killed_by: str = ""
    diff: str = ""

    def report(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("start", "end", "replacement"):
            d.pop(k)
        return d


_CMP_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
             ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
             ast.In: ast.NotIn, ast.NotIn: ast.In}
_ARITH_FLIP = {ast.Add: ast.Sub, ast.Sub: ast.Add}
_BIT_FLIP = {ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd}


class _Sites(ast.NodeVisitor):
    """Walk a module in source order and collect ``(function, op, node, new_text)``."""

    def __init__(self, ops: tuple[str, ...]) -> None:
        self.ops = ops
        self.stack: list[str] = []
        self.sites: list[tuple[str, str, ast.AST, str]] = []
        self._skip_depth = 0

    # context: the enclosing function, parts never mutated
    def _scoped(self, node: ast.AST, name: str) -> None:
        self.stack.append(name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        # the body and the defaults; never the decorators or annotations
        self.stack.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d]:
            self.visit(default)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped(node, node.name)

    def _skipped(self, node: ast.AST) -> None:
        pass

    visit_Raise = _skipped
    visit_Assert = _skipped
    visit_JoinedStr = _skipped
    visit_Import = _skipped
    visit_ImportFrom = _skipped

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        self.generic_visit(node)

    def _add(self, op: str, node: ast.AST, new: str) -> None:
        if op in self.ops:
            self.sites.append((".".join(self.stack) or "<module>", op, node, new))

    # the operators
    def visit_Compare(self, node: ast.Compare) -> None:
        for i, o in enumerate(node.ops):
            flip = _CMP_FLIP.get(type(o))
            if flip is not None:
                ops = list(node.ops)
                ops[i] = flip()
                self._add("cmp", node, "(" + ast.unparse(
                    ast.Compare(left=node.left, ops=ops, comparators=node.comparators)) + ")")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self._add("boolop", node, "(" + ast.unparse(ast.BoolOp(op=other, values=node.values))
                  + ")")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        v = node.value
        if isinstance(v, bool):
            self._add("bool", node, str(not v))
        elif isinstance(v, int):
            self._add("int", node, "(" + str(v + 1) + ")")
            self._add("int", node, "(" + str(v - 1) + ")")

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._add("not", node, "(" + ast.unparse(node.operand) + ")")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        for table, op in ((_ARITH_FLIP, "arith"), (_BIT_FLIP, "bitop")):
            flip = table.get(type(node.op))
            if flip is not None:
                self._add(op, node, "(" + ast.unparse(
                    ast.BinOp(left=node.left, op=flip(), right=node.right)) + ")")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            other = "max" if node.func.id == "min" else "min"
            self._add("minmax", node.func, other)
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        for stmt in node.body + node.orelse:
            if isinstance(stmt, (ast.Return, ast.Continue, ast.Break)):
                self._add("guard", stmt, "pass")
        self.generic_visit(node)


def _offsets(text: str) -> list[int]:
    """Character offset of each line's start (1-based lines: index 0 unused)."""
    starts = [0, 0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _char_col(lines: list[str], lineno: int, col: int) -> int:
    """ast's column (UTF-8 bytes) as a character column."""
    return len(lines[lineno - 1].encode("utf-8")[:col].decode("utf-8"))


def mutants_of(path: Path, rel: str, ops: tuple[str, ...]) -> list[Mutant]:
    """Every mutant of the file ``path`` (``rel``: its name in ids and reports)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    v = _Sites(ops)
    v.visit(tree)
    starts = _offsets(text)
    lines = text.splitlines(keepends=True)
    count: dict[tuple[str, str], int] = {}
    out = []
    sites = sorted(v.sites, key=lambda s: (s[2].lineno, s[2].col_offset))
    for func, op, node, new in sites:
        a = starts[node.lineno] + _char_col(lines, node.lineno, node.col_offset)
        b = starts[node.end_lineno] + _char_col(lines, node.end_lineno, node.end_col_offset)
        n = count.get((func, op), 0)
        count[func, op] = n + 1
        before = " ".join(text[a:b].split())
        out.append(Mutant(id=f"{rel}::{func}::{op}::{n}", file=rel, function=func, op=op,
                          line=node.lineno, before=before, after=new, start=a, end=b,
                          replacement=new))
    return out


def mutated_text(text: str, m: Mutant) -> str:
    return text[:m.start] + m.replacement + text[m.end:]


def unified_diff(text: str, new: str, rel: str) -> str:
    return "".join(difflib.unified_diff(text.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}", n=1))


# --- the scratch copy and the runs --------------------------------------------------------


def _tracked_files(root: Path) -> list[str]:
    r = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root,
                       capture_output=True, text=True, check=True)
    return [p for p in r.stdout.split("\0") if p]


@contextlib.contextmanager
def scratch_copy(root: Path) -> Iterator[Path]:
    """A temporary copy of the repository's files (never the checkout itself)."""
    tmp = Path(tempfile.mkdtemp(prefix="mutate_rules-"))
    try:
        for rel in _tracked_files(root):
            src = root / rel
            if src.is_file():
                dst = tmp / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
        (tmp / "_mutate_rules_report.py").write_text(_REPORT_PLUGIN, encoding="utf-8")
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _drop_bytecode(path: Path) -> None:
    """Remove ``path``'s cached bytecode: a mutant of the same size written within the
    same second as the last version would otherwise run the stale one."""
    cache = path.parent / "__pycache__"
    for f in cache.glob(path.stem + ".*.pyc"):
        f.unlink(missing_ok=True)


@dataclass
class Runner:
    copy: Path
    tests: tuple[str, ...]
    nice: int
    jit: bool
    deselect: list[str] = field(default_factory=list)

    def env(self, failed: Path) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.copy)
        env["MUTATE_RULES_FAILED"] = str(failed)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if self.jit:
            env.pop("NUMBA_DISABLE_JIT", None)
            env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-", dir=self.copy)
        else:
            env["NUMBA_DISABLE_JIT"] = "1"
        return env

    def run(self, first_failure: bool, timeout: float | None) -> tuple[str, float, list[str]]:
        """Run the selection; returns (``passed``/``failed``/``error``/``timeout``,
        seconds, the failing tests' ids)."""
        fd, name = tempfile.mkstemp(prefix="failed-", dir=self.copy)
        os.close(fd)
        failed = Path(name)
        cmd = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:randomly",
               "-p", "no:cacheprovider", "-p", "_mutate_rules_report",
               "--no-header", "-o", "addopts=", *self.tests]
        if first_failure:
            cmd.append("-x")
        for d in self.deselect:
            cmd += ["--deselect", d]
        env = self.env(failed)
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=self.copy, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=(lambda: os.nice(self.nice)) if self.nice else None)
        try:
            out, _ = proc.communicate(timeout=timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)  # the run's own process group (its workers too)
            proc.communicate()
            rc = None
            out = b""
        finally:
            if self.jit:
                shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
        secs = time.monotonic() - t0
        ids = [x for x in failed.read_text(encoding="utf-8").splitlines() if x]
        failed.unlink(missing_ok=True)
        if rc is None:
            return "timeout", secs, ids
        if rc == 0:
            return "passed", secs, ids
        if rc == 1 or (rc == 2 and ids):
            return "failed", secs, ids
        tail = out.decode("utf-8", "replace").strip().splitlines()[-5:]
        return "error", secs, ids or [f"(pytest exit {rc}) " + " | ".join(tail)]

    def check_imports_copy(self) -> None:
        """The copy's package is the one the runs import (not the editable install's)."""
        code = "import mariash_env, sys; sys.stdout.write(mariash_env.__file__)"
        r = subprocess.run([sys.executable, "-c", code], cwd=self.copy, capture_output=True,
                           text=True, env=self.env(self.copy / "unused"), check=True)
        if not Path(r.stdout).resolve().is_relative_to(self.copy.resolve()):
            raise SystemExit(f"the runs would import {r.stdout}, not the scratch copy")


def run_mutant(runner: Runner, copy: Path, m: Mutant, originals: dict[str, str],
               timeout: float) -> None:
    """Write ``m`` into the copy, run the selection, put the original back."""
    path = copy / m.file
    text = originals[m.file]
    new = mutated_text(text, m)
    m.diff = unified_diff(text, new, m.file)
    try:
        compile(new, m.file, "exec")
    except SyntaxError as e:
        m.status, m.killed_by = "invalid", f"SyntaxError: {e}"
        return
    try:
        path.write_text(new, encoding="utf-8")
        _drop_bytecode(path)
        outcome, secs, ids = runner.run(first_failure=True, timeout=timeout)
    finally:
        path.write_text(text, encoding="utf-8")
        _drop_bytecode(path)
    m.seconds = round(secs, 2)
    m.status = {"passed": "survived", "failed": "killed", "error": "killed",
                "timeout": "timeout"}[outcome]
    if m.status == "survived" and m.id in EQUIVALENT:
        m.status = "equivalent"
    m.killed_by = ids[0] if ids else ""


# --- the command line ---------------------------------------------------------------------


def _ops(s: str) -> tuple[str, ...]:
    ops = tuple(x.strip() for x in s.split(",") if x.strip())
    bad = [o for o in ops if o not in ALL_OPS]
    if bad or not ops:
        raise argparse.ArgumentTypeError(f"unknown operator(s) {bad}: expected a comma list "
                                         f"of {', '.join(ALL_OPS)}")
    return ops


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    from mariash_env.cli import ArgumentParser, positive  # one error: line, exit 2

    p = ArgumentParser(
        prog="python -m scripts.mutate_rules",
        description="Mutation audit of the rules core (see the module docstring).")
    p.add_argument("--group", action="append", choices=sorted(PLAN),
                   help="a group of PLAN (files and their tests); repeatable; default all")
    p.add_argument("--files", nargs="+", help="source files to mutate (instead of PLAN)")
    p.add_argument("--tests", nargs="+",
                   help="pytest selection to run per mutant (with --files: required; else "
                        "replaces the groups' own)")
    p.add_argument("--deselect", nargs="+", default=[], metavar="NODEID",
                   help="tests left out of every run (beside ALWAYS_DESELECT): e.g. a new "
                        "test, to see whether the old ones catch a mutant")
    p.add_argument("--function", help="only mutants in functions whose name matches this "
                                      "regular expression")
    p.add_argument("--all-functions", action="store_true",
                   help=f"mutate the functions SKIP_FUNCTIONS leaves out too ({SKIP_FUNCTIONS})")
    p.add_argument("--ids", nargs="+", help="only these mutant ids")
    p.add_argument("--rerun", type=Path, metavar="JSON",
                   help="only the survivors (and timeouts) of an earlier --json")
    p.add_argument("--skip-done", nargs="+", type=Path, default=[], metavar="JSON",
                   help="leave out the mutants these earlier --json files hold (go on with "
                        "an audit stopped by --max-seconds)")
    p.add_argument("--ops", type=_ops, default=DEFAULT_OPS,
                   help=f"comma list of operators (default {','.join(DEFAULT_OPS)}; "
                        f"all: {','.join(ALL_OPS)})")
    p.add_argument("--sample", type=positive(int), help="run N mutants drawn at random")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    p.add_argument("--max-seconds", type=positive(float),
                   help="start no mutant once the mutants' runs took this many seconds in "
                        "all (the baselines not counted; the results so far stand)")
    p.add_argument("--timeout", type=positive(float),
                   help="seconds a mutant's run may take (default 3x the baseline, >= 60)")
    p.add_argument("--nice", type=int, default=10, help="niceness of the runs (default 10)")
    p.add_argument("--jit", action="store_true",
                   help="compile the core (a private numba cache a mutant) instead of "
                        "NUMBA_DISABLE_JIT=1")
    p.add_argument("--json", type=Path, help="write the results here")
    p.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    p.add_argument("--quiet", action="store_true", help="no line per mutant")
    a = p.parse_args(argv)
    if a.files and not a.tests:
        p.error("--files needs --tests (the selection that should catch its mutants)")
    if a.files and a.group:
        p.error("--files and --group exclude each other")
    for f in (a.files or []) + (a.tests or []):
        if not (ROOT / f.split("::")[0]).exists():
            p.error(f"no such file in the repository: {f}")
    for f in ([a.rerun] if a.rerun is not None else []) + a.skip_done:
        if not f.is_file():
            p.error(f"no such file: {f}")
    return a


def _groups(a: argparse.Namespace) -> dict[str, dict[str, tuple[str, ...]]]:
    if a.files:
        return {"files": {"files": tuple(a.files), "tests": tuple(a.tests)}}
    names = a.group or list(PLAN)
    return {g: {"files": PLAN[g]["files"], "tests": tuple(a.tests or PLAN[g]["tests"])}
            for g in names}


def _select(a: argparse.Namespace, groups: dict[str, Any]) -> dict[str, list[Mutant]]:
    by_group: dict[str, list[Mutant]] = {}
    for g, spec in groups.items():
        ms: list[Mutant] = []
        for rel in spec["files"]:
            ms += mutants_of(ROOT / rel, rel, a.ops)
        by_group[g] = ms
    keep: set[str] | None = None
    if a.ids:
        keep = set(a.ids)
    if a.rerun is not None:
        from mariash_env import jsonio

        old = jsonio.read(a.rerun)
        again = {m["id"] for m in old["mutants"] if m["status"] in ("survived", "timeout")}
        keep = again if keep is None else keep & again
    done: set[str] = set()
    for f in a.skip_done:
        from mariash_env import jsonio

        done |= {m["id"] for m in jsonio.read(f)["mutants"]}
    for g in by_group:
        ms = [m for m in by_group[g] if m.id not in done]
        if keep is not None:
            ms = [m for m in ms if m.id in keep]
        if a.function:
            ms = [m for m in ms if re.search(a.function, m.function)]
        if not a.all_functions:
            ms = [m for m in ms if not re.search(SKIP_FUNCTIONS, m.function.rsplit(".", 1)[-1])]
        by_group[g] = ms
    if a.sample:  # drawn at random, and run in the order drawn: a run stopped early
        # (--max-seconds) is a random sample too
        pool = [(g, i) for g, ms in by_group.items() for i in range(len(ms))]
        drawn = random.Random(a.seed).sample(pool, min(a.sample, len(pool)))
        by_group = {g: [by_group[g][i] for h, i in drawn if h == g] for g in by_group}
    return by_group


def _summary(mutants: list[Mutant]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for m in mutants:
        row = out.setdefault(m.file, {"run": 0, "killed": 0, "survived": 0, "equivalent": 0,
                                      "timeout": 0, "invalid": 0})
        row[m.status] += 1
        if m.status != "invalid":
            row["run"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    groups = _groups(a)
    selected = _select(a, groups)
    generated = {rel: len(mutants_of(ROOT / rel, rel, a.ops))
                 for spec in groups.values() for rel in spec["files"]}
    if a.list:
        for ms in selected.values():
            for m in ms:
                print(f"{m.id}  line {m.line}: {m.before}  ->  {m.after}")
        print(f"{sum(map(len, selected.values()))} mutants of {sum(generated.values())}")
        return 0
    results: dict[str, Any] = {"command": ["python", "-m", "scripts.mutate_rules",
                                           *(argv if argv is not None else sys.argv[1:])],
                               "ops": list(a.ops), "jit": a.jit, "generated": generated,
                               "groups": {}, "mutants": []}
    every: list[Mutant] = []
    t_start = time.monotonic()
    spent = 0.0  # the mutants' runs (--max-seconds)
    with scratch_copy(ROOT) as copy:
        originals = {rel: (copy / rel).read_text(encoding="utf-8")
                     for spec in groups.values() for rel in spec["files"]}
        for g, ms in selected.items():
            if not ms:
                continue
            runner = Runner(copy, groups[g]["tests"], a.nice, a.jit,
                            deselect=[*ALWAYS_DESELECT, *a.deselect])
            runner.check_imports_copy()
            outcome, secs, failing = runner.run(first_failure=False, timeout=None)
            if outcome == "error":
                print(f"[{g}] the baseline run could not run: {failing}", file=sys.stderr)
                return 2
            runner.deselect += failing
            timeout = a.timeout or max(60.0, 3 * secs)
            print(f"[{g}] baseline {secs:.1f} s, {len(failing)} test(s) failing unmutated "
                  f"(deselected){': ' + ', '.join(failing) if failing else ''}; "
                  f"{len(ms)} mutants, {timeout:.0f} s each at most", flush=True)
            results["groups"][g] = {"files": list(groups[g]["files"]),
                                    "tests": list(groups[g]["tests"]),
                                    "baseline_seconds": round(secs, 1),
                                    "deselected": list(runner.deselect),
                                    "mutants": len(ms)}
            for i, m in enumerate(ms, 1):
                if a.max_seconds and spent > a.max_seconds:
                    print(f"[{g}] --max-seconds reached: {len(ms) - i + 1} mutants not run",
                          flush=True)
                    results["groups"][g]["not_run"] = len(ms) - i + 1
                    break
                t0 = time.monotonic()
                run_mutant(runner, copy, m, originals, timeout)
                spent += time.monotonic() - t0
                every.append(m)
                if not a.quiet:
                    by = f" ({m.killed_by})" if m.status == "killed" else ""
                    print(f"[{g} {i}/{len(ms)}] {m.status:<10} {m.seconds:6.1f}s {m.id} "
                          f"line {m.line}: {m.before} -> {m.after}{by}", flush=True)
                if a.json:  # after every mutant: a long run stopped midway keeps its results
                    _write(a.json, results, every)
    results["seconds"] = round(time.monotonic() - t_start, 1)
    summary = _summary(every)
    print("\nfile: run killed survived equivalent timeout invalid")
    for f, row in summary.items():
        print(f"  {f}: {row['run']} {row['killed']} {row['survived']} {row['equivalent']} "
              f"{row['timeout']} {row['invalid']}")
    survivors = [m for m in every if m.status in ("survived", "timeout")]
    for m in survivors:
        print(f"\n{m.status.upper()} {m.id} (line {m.line})\n{m.diff}", end="")
    if a.json:
        _write(a.json, results, every)
    return 1 if survivors else 0


def _write(path: Path, results: dict[str, Any], every: list[Mutant]) -> None:
    from mariash_env import jsonio
    from mariash_env.atomic import atomic_open

    results = dict(results, mutants=[m.report() for m in every], summary=_summary(every))
    with atomic_open(path, "w") as f:
        jsonio.dump(results, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
