"""Volený seat records (format ``mariash-seat/1``, :mod:`mariash_env.seat_record`): a deal
so far as one seat saw it, and the seat's view rebuilt from it through the engine.

The record (a JSON object; ``?`` marks what the seat has not seen)::

    {"format": "mariash-seat/1",          # optional
     "rules": {"tariff": "home", ...},    # optional: make_rules options (default: online table)
     "deal": 0,                           # optional: deal of the partie, 0-based
     "scores": [0, 0, 0],                 # optional: running groše before this deal
     "dealer": 2,                         # the dealer's seat (forehand: seat 0)
     "seat": 1,                           # the seat the robot plays
     "hand": ["Qh", "7b", ...],           # the seat's cards as dealt, in dealt order:
                                          # 12 for forehand (its first 7 first; only
                                          # those 7 before its trump choice), else 10
     "actions": [[0, "trump:?"], [0, "contract:suit"], [0, "discard:?"],
                 [0, "discard:?"]],
     "marriages": [[1, "Kh"], ...],       # optional: the plays that announced a marriage
     "blind_trump": "Kb",                 # forehand's card z lidu, once shown
     "open_hand": ["7h", ...]}            # an open contract's actor's cards, once shown

``actions`` are the deal's decisions so far as ``[seat, label]`` in order (the labels of
INTERFACE.md).  Another seat's trump card and discards are ``"trump:?"`` /
``"discard:?"`` unless the seat has seen them: the trump card once shown (RULES.md §5.1)
and the discards of a talon the seat took must then be given as cards.  ``marriages``
lists every play (any seat's) that announced a marriage, as ``[seat, card]`` (§7): the
engine announces marriages itself, so the record says which plays did.  When forehand
chose trumps z lidu (``trump:blind``, RULES.md §3), ``blind_trump`` names that card once it
is shown to the seat (§5.1); in an open betl or durch, ``open_hand`` lists the actor's
cards as they were laid face up after the first trick (§11.1), for the other seats.  The
deal must be in progress with the robot's seat to move.  :func:`record_of` writes the
record of a seat of a :class:`~mariash_env.Game`.

:func:`view` deals the seat's cards as given and the others at random, then replays
the actions through the engine (``core.engine.legal_actions`` / ``apply_action``; no rule
is decided here).  When another seat's action is not possible in the world at hand (a
card it does not hold, a suit it showed void in, a marriage the world does not give),
the hidden cards are redealt from the seat's knowledge of the deal so far
(:func:`mariash_env.search.sample_worlds`) until one world allows it, the redeals keeping
what the record names and the seat has not seen yet (a discard it will take, the trump
card it will be shown) and, for a play, first keeping the card in its player's hand and
out of it every card that would oblige him to play another; a hidden trump card or discard
is one of the legal ones of that world.  Every world so built replays the
record exactly, so the seat's observation, legal actions and sampled worlds are the
same as in the real game.  A malformed record, an illegal action, or a history that
contradicts the seat's cards raises :class:`~mariash_env.seat_record.SeatRecordError`
naming the field (and the action) and what was expected.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ...cards import CARD_CODES, codes_of
from ...core import state as S
from ...core.deal import deck_of
from ...core.engine import apply_action, legal_actions
from ...core.tables import BLIND_POS, POS_SEAT
from ...robots.view import SeatView
from ...rules import Rules
from ...search import WorldError, sample_worlds
from ...seat_record import (
    FORMAT,
    OPTIONAL_SHARED,
    WORLD_ROUNDS,
    SeatRecordError,
    SeatRecords,
    cards_field,
    location_bit,
    parse_card,
    parse_common,
    parse_seat,
    playable,
    record_rules,
    refusal,
    scores_before,
    seat_to_move,
    start_deal,
    step,
    turn,
)
from . import actions as A
from . import seat_record4 as four

if TYPE_CHECKING:
    from ...game import Game

OPTIONAL = OPTIONAL_SHARED + ("blind_trump", "open_hand")
HIDDEN = {"trump:?": A.TRUMP0, "discard:?": A.DISCARD0}


class _Parsed(NamedTuple):
    rules: Rules
    deal: int
    dealer: int
    seat: int
    hand: list[int]
    scores: list[int]
    marriages: set[tuple[int, int]]
    blind: int  # forehand's card z lidu as the record names it (-1: not named)
    open_hand: int  # the open contract's actor's cards shown after trick 1 (-1: not given)



def _parse(record: Any) -> _Parsed:
    rules, deal, dealer, seat, scores, marriages = parse_common(record, OPTIONAL)
    hand = record["hand"]
    size = 12 if seat == (dealer + 1) % 3 else 10
    # forehand before its trump choice has seen its first 7 cards only (RULES.md §3)
    first = size == 12 and record["actions"] == [] and isinstance(hand, list) \
        and len(hand) == 7
    if not isinstance(hand, list) or (len(hand) != size and not first):
        raise SeatRecordError(
            f"expected the seat's {size} cards as dealt (seat {seat} with dealer {dealer}"
            f"{'; or its first 7 before the trump choice' if size == 12 else ''}), got "
            f"{hand!r}", "hand")
    size = len(hand)
    cards = [parse_card(c, "hand") for c in hand]
    if len(set(cards)) != size:
        raise SeatRecordError(f"{hand!r} names a card twice", "hand")
    blind = -1
    if "blind_trump" in record:
        blind = parse_card(record["blind_trump"], "blind_trump")
        forehand = (dealer + 1) % 3
        if first:  # no trump chosen yet, blind or not: the card at 17 is still unseen
            raise SeatRecordError(f"{record['blind_trump']!r}: forehand has chosen no trumps "
                                  "yet (the record holds its first 7 cards)", "blind_trump")
        at17 = cards[_positions(dealer, seat).index(BLIND_POS)] if seat == forehand else -1
        if seat == forehand and blind != at17:
            raise SeatRecordError(
                f"{record['blind_trump']!r}: forehand's card z lidu is its card at deck "
                f"position {BLIND_POS} (its 8th as dealt), {CARD_CODES[at17]}", "blind_trump")
        if seat != forehand and blind in cards:
            raise SeatRecordError(f"{record['blind_trump']!r} is in seat {seat}'s hand, not "
                                  f"forehand's (seat {forehand})", "blind_trump")
    open_hand = -1
    if "open_hand" in record:
        open_hand = sum(1 << c for c in cards_field(record, "open_hand"))
    return _Parsed(rules, deal, dealer, seat, cards, scores, marriages, blind, open_hand)


def _positions(dealer: int, seat: int) -> list[int]:
    """The deck positions dealt to ``seat``, in dealt order (RULES.md §2)."""
    forehand = (dealer + 1) % 3
    return [p for p in range(32) if (forehand + POS_SEAT[p]) % 3 == seat]


def _deal(rec: _Parsed, rng: np.random.Generator) -> np.ndarray:
    """A record of the deal's start: the seat's cards where it was dealt them, forehand's
    card z lidu where it lies if the record names it, the others at random."""
    deck = np.full(32, -1, dtype=np.int64)
    deck[_positions(rec.dealer, rec.seat)[:len(rec.hand)]] = rec.hand  # forehand: 7 or 12
    if rec.blind >= 0:
        deck[BLIND_POS] = rec.blind
    known = set(deck[deck >= 0].tolist())
    rest = np.array([c for c in range(32) if c not in known], dtype=np.int64)
    deck[deck < 0] = rng.permutation(rest)
    return start_deal(rec.deal, rec.scores, rec.dealer, deck)



def view(record: Any, rng: np.random.Generator | int | None = None) -> SeatView:
    """The :class:`~mariash_env.robots.view.SeatView` of a volený record's seat (module
    docstring; a four-player record: :mod:`~mariash_env.games.voleny.seat_record4`)."""
    rules = record_rules(record)
    if rules.players == 4:
        three, dealer, scores = four.renumbered(record, rules)
        return four.lifted(view3, three, rng, dealer, scores, rules)
    return view3(record, rng)


def view3(record: Any, rng: np.random.Generator | int | None = None) -> SeatView:
    """:func:`view` of a three-seat record (a four-player one renumbered, too)."""
    rec = _parse(record)
    rules, seat, marriages = rec.rules, rec.seat, rec.marriages
    forehand = (rec.dealer + 1) % 3
    rng = np.random.default_rng(rng)
    rv = rules.vector()
    st = _deal(rec, rng)
    mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
    unseen_talon = 0  # "discard:?" in the talon lying now
    seen_talon: dict[int, int] = {}  # discards given as cards in the talon lying now
    trump_hidden = False
    trump_card = -1  # the trump card as the record names it
    blind_chosen = False
    # The record announces (and so shows the trump card, RULES.md §5.1) later on.
    trump_shown = any(isinstance(x, list) and len(x) == 2 and isinstance(x[1], str)
                      and x[1].startswith("announce:") for x in record["actions"])

    def keeps_talon(w: np.ndarray) -> bool:
        """A redealt world keeps what the record names and the seat has not seen yet: the
        discards it will take and the trump card it will be shown."""
        return (all(w[S.DISC + j] == c for j, c in seen_talon.items())
                and (trump_card < 0 or w[S.TRUMP_CARD] == trump_card))

    def attempt(w: np.ndarray, who: int, a: int, hidden: bool) -> np.ndarray | None:
        """``w`` after ``who``'s action ``a`` (``hidden``: one of the legal actions of its
        kind, ``a`` the first of the kind), or None when the world does not allow it as
        recorded."""
        if not keeps_talon(w):
            return None
        out = step(w, rv, mask, rng, who, a, hidden, marriages, A.PLAY0)
        if out is None:
            return None
        if (rec.open_hand >= 0 and out[S.ACTOR] != seat and _open_shown(out)
                and not _open_shown(w)
                and S.getm(out, S.HAND + int(out[S.ACTOR])) != rec.open_hand):
            return None  # the actor's cards lie face up now: those the record shows
        return out

    for i, item in enumerate(record["actions"]):
        who, label, where, a = turn(st, seat, i, item, HIDDEN, A.action_index)
        took, n_disc = S.getm(st, S.TOOK + seat), int(st[S.NDISC])
        hidden = label in HIDDEN
        nxt = attempt(st, who, a, hidden)
        actor = int(st[S.ACTOR])
        showing = (rec.open_hand >= 0 and actor != seat and bool(st[S.OVERCALLS] & 1)
                   and st[S.PHASE] == S.PH_PLAY and st[S.TRICK_NO] == 0 and st[S.TRICK_N] == 2)
        if nxt is None and (who != seat or _legal(st, rv, mask, a)):
            # Redeal what the seat has not seen, and retry (the seat's own action fails
            # only by what the world hides: the talon lying, the actor's open cards).
            keep = None
            if seen_talon:  # they lie in the talon until the seat takes it
                keep = np.full(32, 7, dtype=np.int64)
                keep[list(seen_talon.values())] = 4
            if showing:  # this play shows the actor's cards: he holds them (and his play)
                bit = location_bit(seat, actor)
                keep = np.full(32, 7 & ~bit, dtype=np.int64)
                shown = [c for c in range(32) if rec.open_hand >> c & 1]
                keep[shown + ([a - A.PLAY0] if who == actor else [])] = bit
            nxt = _redeal_until(st, seat, rules, rv, rng,
                                partial(attempt, who=who, a=a, hidden=hidden), who, a,
                                keep, trump_shown)
        if nxt is None:
            why = refusal(st, rv, mask, seat, who, a, A.ACTION_LABELS, A.PLAY0, "RULES.md §7")
            if showing:
                raise SeatRecordError(f"{where}: no deal consistent with seat {seat}'s cards "
                                      f"and the actions gives the actor (seat {actor}) the "
                                      f"cards shown after this play, {codes_of(rec.open_hand)}",
                                      "open_hand")
            raise SeatRecordError(f"{where}: {why}", "actions")
        shows, st = _open_shown(nxt) and not _open_shown(st), nxt
        if A.TRUMP0 <= a < A.TRUMP_BLIND:
            trump_hidden = hidden
            trump_card = -1 if hidden else a - A.TRUMP0
        if a == A.TRUMP_BLIND:
            blind_chosen = True
            trump_card = rec.blind  # -1 unless named: the worlds keep it at position 17
        if A.DISCARD0 <= a < A.DISCARD0 + 32:
            if hidden:
                unseen_talon += 1
            else:
                seen_talon[n_disc] = a - A.DISCARD0
        if S.getm(st, S.TOOK + seat) != took and unseen_talon:
            raise SeatRecordError(f"{where}: seat {seat} takes the talon, so its cards are "
                                  "known to it: give those discards as discard:<card>",
                                  "actions")
        if st[S.DISC] < 0:
            unseen_talon = 0  # a talon taken: the next one starts
            seen_talon.clear()
        if trump_hidden and st[S.TRUMP_PUBLIC]:
            raise SeatRecordError(f"{where}: the trump card is shown now (RULES.md §5.1): "
                                  "give forehand's trump action as trump:<card>", "actions")
        if _open_shown(st) and st[S.ACTOR] != seat and rec.open_hand < 0:
            raise SeatRecordError(f"{where}: the first trick is complete, so the actor's "
                                  "cards lie face up (open contract, RULES.md §11.1): give "
                                  "them as 'open_hand'", "open_hand")
        if (shows and st[S.ACTOR] == seat and rec.open_hand >= 0
                and rec.open_hand != S.getm(st, S.HAND + seat)):
            raise SeatRecordError(f"{where}: the seat is the actor; its cards lying face up "
                                  f"are {codes_of(S.getm(st, S.HAND + seat))}", "open_hand")
        if blind_chosen and rec.blind < 0 and seat != forehand and st[S.TRUMP_PUBLIC]:
            raise SeatRecordError(f"{where}: the trump card is shown now (RULES.md §5.1): "
                                  "give forehand's card z lidu (trump:blind) as "
                                  "'blind_trump'", "blind_trump")
    if rec.blind >= 0 and not blind_chosen:
        raise SeatRecordError(f"{CARD_CODES[rec.blind]!r}: forehand did not choose trumps z "
                              "lidu ('trump:blind') in 'actions'", "blind_trump")
    if rec.open_hand >= 0 and not _open_shown(st):
        raise SeatRecordError(f"{codes_of(rec.open_hand)}: the actor's cards lie face up only "
                              "once the first trick of an open betl or durch is complete "
                              "(RULES.md §11.1)", "open_hand")
    return seat_to_move(st, seat, rules)



def _legal(st: np.ndarray, rv: np.ndarray, mask: np.ndarray, a: int) -> bool:
    legal_actions(st, rv, mask)
    return bool(mask[a])


def _open_shown(st: np.ndarray) -> bool:
    """The actor's cards lie face up: an open betl or durch past its first trick (§11.1)."""
    return bool(st[S.OVERCALLS] & 1) and st[S.PHASE] >= S.PH_PLAY and st[S.TRICK_NO] >= 1


def _redeal_until(st: np.ndarray, seat: int, rules: Rules, rv: np.ndarray,
                  rng: np.random.Generator, attempt: Any, who: int, a: int,
                  keep: np.ndarray | None, trump_shown: bool) -> np.ndarray | None:
    """The first world (of ``seat``'s knowledge of ``st``) in which ``attempt`` (``who``'s
    action ``a``) succeeds.

    Left to chance, what the record names and the seat has not seen yet, and what a play
    tells of its player's hand, are kept by few worlds (a seat shown void in a long suit:
    a few in a thousand), and a valid record could be refused.  So the worlds are drawn
    with ``keep`` (the samplers' ``restrict``: what the record names, always so) and with
    ``trump_shown`` (the record shows the trump card later: until then it stays in
    forehand's hand, §5.1) as if the trump card were shown already; and first, for a
    play, with the card in its player's hand and none of the cards that would oblige him
    to play another (:func:`playable`); then, should that find none, without."""
    probe = st
    tc, f = int(st[S.TRUMP_CARD]), int(st[S.FOREHAND])
    if (trump_shown and tc >= 0 and not st[S.TRUMP_PUBLIC] and seat != f
            and S.getm(st, S.HAND + f) >> tc & 1):
        probe = st.copy()
        probe[S.TRUMP_PUBLIC] = 1  # the samplers keep a shown trump card with forehand
    tries = [keep]
    if A.PLAY0 <= a < A.PLAY0 + 32 and who != seat:
        play = playable(st, seat, rv, who, a - A.PLAY0, A.PLAY0, A.N_ACTIONS)
        tries.insert(0, play if keep is None else play & keep)
    for restrict in tries:
        for _ in range(WORLD_ROUNDS):
            try:
                worlds = sample_worlds(probe, seat, 16, rng, rules, restrict=restrict)
            except WorldError:
                break
            worlds[:, S.TRUMP_PUBLIC] = st[S.TRUMP_PUBLIC]
            for w in worlds:
                out = attempt(w)
                if out is not None:
                    return out
    return None



def record_of(game: Game, seat: int | None = None) -> dict[str, Any]:
    """The seat record of ``seat`` (default: the seat to move) in the deal of a volený
    :class:`~mariash_env.Game`: what that seat saw of it — its cards as
    dealt, every decision so far with another seat's trump card and discards as ``?``
    unless the seat saw them (the trump card once shown, the talon it took), forehand's
    card z lidu once shown, the plays that announced marriages, an open contract's
    actor's cards laid face up after the first trick (§11.1).  What a game server built
    on :class:`~mariash_env.Game` sends the robot service; :func:`seat_view` rebuilds
    the seat's view from it.  At four, ``seat`` is a player
    (:mod:`~mariash_env.games.voleny.seat_record4`)."""
    if game.rules.players == 4:
        deal, core = four.deal_of(game, seat)
        return four.by_player(record_of3(deal, core), game)
    return record_of3(game, seat)


def record_of3(game: Any, seat: int | None = None) -> dict[str, Any]:
    """:func:`record_of` of a three-seat deal: ``game`` needs ``st``, ``rv``, ``rules``,
    ``deal_no``, ``history`` and ``to_move`` in the deal's seats (a four-player game's,
    renumbered, too)."""
    st = game.st
    seat = game.to_move if seat is None else parse_seat(seat, "seat")
    dealer, forehand = int(st[S.DEALER]), int(st[S.FOREHAND])
    scores = scores_before(st)
    deck = deck_of(st)
    # Replayed from the deal's start to see which talon each seat took while it lay.
    w = start_deal(game.deal_no, scores, dealer, deck)
    rv = game.rv
    actions: list[list[Any]] = []
    marriages: list[list[Any]] = []
    lying: list[int] = []  # positions in ``actions`` of the discards of the talon lying
    blind = False
    shown_at = -1  # the actor's cards when they were laid face up (open contracts)
    for who, a in game.history:
        took, n_marr = S.getm(w, S.TOOK + seat), w[S.NMARR]
        apply_action(w, rv, a)
        if shown_at < 0 and _open_shown(w):
            shown_at = S.getm(w, S.HAND + int(w[S.ACTOR]))
        label = A.ACTION_LABELS[a]
        if who != seat and A.TRUMP0 <= a < A.TRUMP_BLIND and not st[S.TRUMP_PUBLIC]:
            label = "trump:?"
        blind |= a == A.TRUMP_BLIND
        if A.DISCARD0 <= a < A.DISCARD0 + 32:
            lying.append(len(actions))
            if who != seat:
                label = "discard:?"
        actions.append([who, label])
        if S.getm(w, S.TOOK + seat) != took:  # the seat took the talon lying: it saw it
            for j in lying:
                actions[j][1] = A.ACTION_LABELS[game.history[j][1]]
        if w[S.DISC] < 0:
            lying = []
        if A.PLAY0 <= a < A.PLAY0 + 32 and w[S.NMARR] > n_marr:
            marriages.append([who, CARD_CODES[a - A.PLAY0]])
    hand = [CARD_CODES[int(deck[p])] for p in _positions(dealer, seat)]
    if seat == forehand and not game.history:
        hand = hand[:7]  # RULES.md §3: it chooses trumps having seen its first 7 only
    out: dict[str, Any] = {
        "format": FORMAT, "rules": game.rules.to_dict(), "deal": game.deal_no,
        "scores": scores, "dealer": dealer, "seat": seat, "hand": hand,
        "actions": actions, "marriages": marriages}
    if blind and seat != forehand and st[S.TRUMP_PUBLIC]:
        out["blind_trump"] = CARD_CODES[int(deck[BLIND_POS])]
    if shown_at >= 0 and seat != st[S.ACTOR]:
        out["open_hand"] = codes_of(shown_at)
    return out


VOLENY = SeatRecords(view, record_of)
