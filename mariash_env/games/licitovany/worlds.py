"""Worlds of licitovaný mariáš consistent with what one seat knows (LICITOVANY.md).

A world is a full state record equal to the real one in everything the seat knows, the
hidden cards redealt: the other hands, the talon while nobody has taken it, the actor's
talon cards and discards and his face-down lead card when the seat defends.

Sampling is exact: the hidden cards are assigned to their locations (next seat, previous
seat, the talon or the actor's discards) uniformly among all assignments with the right
counts that respect the per-card masks (a suit game's discards are no ten, ace or
reserved seven; a card that the other seats' plays show they did not hold), by
sequential choice weighted with integer counts of completions; everything else is checked
on the world and rejected when broken:

* the auction: every bid and hold met its needs on that seat's dealt 10 cards, the
  announced game, trumps and helping seven on the actor's 12 (§3–§5);
* showing (§6): a defender who did not show held fewer than 4 cards of the helping suit;
* the play (§7): the tricks are replayed on the world with the core's own card
  legality (:func:`mariash_env.games.licitovany.phases.licit_cards`) and must announce exactly the
  recorded marriages.

The actor's two talon cards, unknown to a defender, are 2 of his 12 drawn uniformly (then
checked with the rest), so the worlds stay uniform over consistent deals.
"""

from __future__ import annotations

import numpy as np

from ...cards import cards_of
from ...core import state as S
from ...core.play import play_card
from ...core.tables import SHARP_MASK
from ...core.tricks import announces_marriage_py, cards_played, played_card
from ...core.validate import check_seat_view, check_world_count
from ...rules import R_GAME, R_QUEEN_FIRST, Rules, make_rules
from ..voleny.worlds import count_table
from .deal import POS_SEAT_LICIT
from .games import KIND
from .phases import licit_cards, must_show, needs_met, reserved_sevens, trumps_ok

__all__ = ["sample_licit_worlds", "LicitWorldError", "random_licit_position", "places_admit"]

ALL = 0xFFFFFFFF


class LicitWorldError(RuntimeError):
    """Fewer consistent worlds than asked for were found in the sampler's tries (none: the
    state contradicts itself).  ``worlds`` holds those it did find (``int32[k,
    STATE_SIZE]``, ``k`` < the number asked for): a searching robot can search them."""

    def __init__(self, message: str, worlds: np.ndarray | None = None) -> None:
        super().__init__(message)
        self.worlds = worlds if worlds is not None else np.empty((0, S.STATE_SIZE), np.int32)


def _plays(st: np.ndarray) -> list[tuple[int, int, int]]:
    """``(trick, seat, card)`` of every card played so far, in play order."""
    out = []
    for k in range(cards_played(st)):
        t, _, p, c = played_card(st, k)
        out.append((int(t), int(p), int(c)))
    return out


def _allow_by_play(st: np.ndarray, me: int, rules_v: np.ndarray, hidden: int,
                   allow: dict[int, int], locs: list[int]) -> None:
    """Narrow ``allow`` (hidden card -> location bits, 1 and 2 the seats ``locs``) by what
    the other seats' plays show of their hands (§7): a card that would have made a play
    illegal (a suit not followed, a trick not beaten, a reserved seven led early) was not
    in that hand, and a king or queen played with its partner in hand announces the
    marriage, so a recorded marriage places the partner and an unrecorded one excludes it.

    A card's place in R§6's order (follow and beat, follow, trump and beat, trump, any)
    is its own, so a card that makes the play illegal beside it alone does in any hand: the
    test is exact, and the worlds stay uniform (only deals the replay would refuse go).
    The face-down lead of a game without trumps (§5 T5) was chosen before the play."""
    bit = {s: 1 << i for i, s in enumerate(locs)}
    trump = int(st[S.TRUMP_CARD]) >> 3 if st[S.CONTRACT] == S.C_SUIT else -1
    queen_first = int(rules_v[R_QUEEN_FIRST]) != 0
    sc = st.copy()
    kq_seen = [0, 0, 0]
    for k in range(cards_played(st)):
        t, j, p, c = (int(x) for x in played_card(st, k))
        if p == me or (k == 0 and trump < 0):
            continue
        b = bit[p]
        sc[S.TRICK_NO] = t
        sc[S.TRICK_N] = j
        for h in cards_of(hidden):
            if allow[h] & b:
                S.setm(sc, S.HAND + p, (1 << c) | (1 << h))
                if not (int(licit_cards(sc, p)) >> c) & 1:
                    allow[h] &= ~b
        if trump >= 0 and c & 7 in (5, 6):
            s, q = c >> 3, c + 1 if c & 7 == 5 else c - 1
            first = not (kq_seen[p] >> s) & 1
            kq_seen[p] |= 1 << s
            if first and (hidden >> q) & 1 and announces_marriage_py((1 << c) | (1 << q), c,
                                                                    queen_first):
                allow[q] &= b if st[S.MARR_SEAT + s] == p else ~b


def _assign(allow: list[int], counts: list[int], W: np.ndarray, rng) -> list[int]:
    """One assignment (a location per card) uniform among all valid ones, weighted by
    ``W`` (:func:`~mariash_env.games.voleny.worlds.count_table`'s counts of completions)."""
    a, b = counts[0], counts[1]
    out = []
    for i, m in enumerate(allow):
        opts = []
        if m & 1 and a > 0:
            opts.append((0, int(W[i + 1, a - 1, b])))
        if m & 2 and b > 0:
            opts.append((1, int(W[i + 1, a, b - 1])))
        if m & 4:
            opts.append((2, int(W[i + 1, a, b])))
        r = int(rng.integers(0, sum(w for _, w in opts)))
        k = 0
        while r >= opts[k][1]:
            r -= opts[k][1]
            k += 1
        loc = opts[k][0]
        out.append(loc)
        if loc == 0:
            a -= 1
        elif loc == 1:
            b -= 1
    return out


def _needs_ok(st: np.ndarray, dealt: list[int], twelve: int) -> bool:
    """§3–§5: bids and holds on the dealt 10 cards; game, trumps, helping on the 12."""
    for g in range(1, 13):
        for off in (S.LIC_BID_BY, S.LIC_HOLD_BY):
            s = int(st[off + g - 1]) - 1
            if s >= 0 and not needs_met(g, dealt[s]):
                return False
    g = int(st[S.LIC_GAME])
    if g:
        if not needs_met(g, twelve):
            return False
        if st[S.TRUMP_PUBLIC] and KIND[g] == S.C_SUIT:
            if not trumps_ok(g, twelve, int(st[S.TRUMP_CARD]) >> 3):
                return False
        h = int(st[S.LIC_HELP])
        if h >= 0 and not (twelve >> (8 * h)) & 1:
            return False
    return True


def _show_ok(st: np.ndarray, dealt: list[int]) -> bool:
    """§6: a defender who had his first flek turn (or raised on it) without showing held
    < 4 helping cards."""
    actor = int(st[S.ACTOR])
    left, right = (actor + 1) % 3, (actor + 2) % 3
    l4, r4 = _shows(st, dealt[left]), _shows(st, dealt[right])
    if not (l4 or r4):
        return True  # nobody had to show
    ph = int(st[S.PHASE])
    # Flek turns taken: none before flekking (helping suit named, discards, lead card),
    # all after it.
    turn = int(st[S.FLEK_ROUND]) if ph == S.PH_FLEK else (
        99 if ph in (S.PH_PLAY, S.PH_DONE) else 0)
    if ph == S.PH_DONE and st[S.END] == S.END_SHOW:
        return True  # the show itself is public: the world keeps the real cards' count
    # A raise is recorded with its turn + 1: a defender who raised on his first turn (a
    # turn with several raises may still be going on) did not have to show on it.
    raised = {int(st[S.LIC_RAISE_TURN + i]) for i in range(28)}
    l_raised, r_raised = 1 in raised, 2 in raised
    if (turn >= 1 or l_raised) and l4:
        return False
    return not ((turn >= 2 or r_raised) and not l_raised and r4)


def _shows(st: np.ndarray, hand: int) -> bool:
    return bool(must_show(int(st[S.LIC_GAME]), int(st[S.LIC_HELP]), np.int64(hand)))


def _show_seat(st: np.ndarray, dealt: list[int]) -> int:
    """The world's ``LIC_SHOW_SEAT``: set when flekking starts from the defenders' dealt
    cards (§6), -1 before; a show made is public and stays."""
    if st[S.PHASE] not in (S.PH_FLEK, S.PH_PLAY, S.PH_DONE) or (
            st[S.PHASE] == S.PH_DONE and st[S.END] == S.END_SHOW):
        return int(st[S.LIC_SHOW_SEAT])
    actor = int(st[S.ACTOR])
    return next((d for d in ((actor + 1) % 3, (actor + 2) % 3) if _shows(st, dealt[d])), -1)


def _replay_play(w: np.ndarray, st: np.ndarray, rules_v: np.ndarray, start: list[int],
                 plays: list[tuple[int, int, int]]) -> bool:
    """§7: replay the tricks from the play's start hands with the core; every card legal
    and the marriages announced as recorded.  ``w`` ends at the current position."""
    for off, n, v in ((S.TRICKS, 30, -1), (S.TLEAD, 10, -1), (S.TWIN, 10, -1),
                      (S.MARR_SEAT, 4, -1), (S.MARR_ORD, 4, -1), (S.PTS, 3, 0),
                      (S.NTRICKS, 3, 0)):
        w[off:off + n] = v
    for k in (S.NMARR, S.TRICK_NO, S.TRICK_N, S.PLAYED, S.SEVEN_WON):
        w[k] = 0
    w[S.SEVEN_TRICK] = -1
    w[S.SEVEN_SEAT] = -1
    for s in range(3):
        S.setm(w, S.HAND + s, start[s])
    w[S.LEADER] = plays[0][1]
    for i, (_t, p, c) in enumerate(plays):
        auto = i == 0 and w[S.CONTRACT] != S.C_SUIT  # the face-down lead (§5 T5)
        if not auto and not (int(licit_cards(w, p)) >> c) & 1:
            return False
        play_card(w, rules_v, p, c)
    return (np.array_equal(w[S.MARR_SEAT:S.MARR_SEAT + 4], st[S.MARR_SEAT:S.MARR_SEAT + 4])
            and np.array_equal(w[S.MARR_ORD:S.MARR_ORD + 4], st[S.MARR_ORD:S.MARR_ORD + 4]))


def _set_positions(w: np.ndarray, st: np.ndarray, me: int, dealt: list[int], talon: int,
                   rng) -> None:
    """Deck positions consistent with the world's deal (§2); the seat's own are kept."""
    f = int(st[S.FOREHAND])
    slots: dict[int, list[int]] = {0: [], 1: [], 2: [], 3: []}
    for p in range(32):
        slots[int(POS_SEAT_LICIT[p])].append(p)
    for k in range(3):
        s = (f + k) % 3
        if s == me:
            continue
        cs = cards_of(dealt[s])
        for c, p in zip(cs, rng.permutation(slots[k])):
            w[S.POS + c] = p
    cs = cards_of(talon)
    for c, p in zip(cs, rng.permutation(slots[3])):
        w[S.POS + c] = p


def _hidden(st: np.ndarray, me: int) -> tuple[int, int, int]:
    """``(talon, took, hidden)``: the talon ``me`` holds as the actor (else 0), the cards the
    actor took (``me``'s own or not) and the cards ``me`` has not seen."""
    actor = int(st[S.ACTOR])
    mine_talon = int(S.getm(st, S.TALON)) if st[S.TALON_OWNER] == me else 0
    took = int(S.getm(st, S.TOOK + actor)) if actor >= 0 else 0
    known = int(S.getm(st, S.HAND + me)) | int(S.getm(st, S.PLAYED)) | mine_talon
    if me == actor:
        known |= took
    return mine_talon, took, ALL & ~known


def _places(st: np.ndarray, me: int, rules_v: np.ndarray, hidden: int,
            restrict: np.ndarray | None = None) -> dict[int, int]:
    """Where each hidden card may lie as ``me`` sees it (card -> bits: 1 the next seat, 2
    the previous one, 4 the third location — the untaken talon in the auction, else the
    actor's discards in a defender's view, only legal discards, empty for the actor
    himself), narrowed by ``restrict`` and by the other seats' plays."""
    discard_ok = ALL
    if st[S.ACTOR] >= 0 and st[S.CONTRACT] == S.C_SUIT:
        discard_ok &= ~SHARP_MASK & ~int(reserved_sevens(st))
    out = {}
    for c in cards_of(hidden):
        m = 3 | (4 if (discard_ok >> c) & 1 else 0)
        out[c] = m if restrict is None else m & int(restrict[c])
    if cards_played(st):
        _allow_by_play(st, me, rules_v, hidden, out, [(me + 1) % 3, (me + 2) % 3])
    return out


def places_admit(st: np.ndarray, seat: int, rules: Rules | None = None) -> bool:
    """Do the places ``seat``'s sampler allows each hidden card (:func:`_places`) admit
    where the cards of ``st`` really are?  (The sampler's masks must never rule out the
    real deal; ``scripts/check_worlds.py`` checks it at scale.)"""
    rules = rules if rules is not None else make_rules(rules="licitovany")
    st = np.ascontiguousarray(st, dtype=np.int32)
    seat = check_seat_view(st, seat, rules.vector(), "places_admit")
    hidden = _hidden(st, seat)[2]
    nxt, prev = (int(S.getm(st, S.HAND + (seat + k) % 3)) for k in (1, 2))
    return all(m & (1 if nxt >> c & 1 else 2 if prev >> c & 1 else 4)
               for c, m in _places(st, seat, rules.vector(), hidden).items())


def sample_licit_worlds(st: np.ndarray, seat: int, n: int, rng=None,
                        rules: Rules | None = None, max_tries: int | None = None,
                        restrict: np.ndarray | None = None) -> np.ndarray:
    """``n`` worlds (``int32[n, STATE_SIZE]``) consistent with what ``seat`` knows of the
    licitovaný deal in ``st`` (module docstring); ``rng`` a Generator, a seed or None.
    ``restrict`` (32 location masks: 1 next seat, 2 previous seat, 4 the third location)
    narrows where each hidden card may lie: the worlds are then uniform among those that
    also meet it (what a caller knows from elsewhere, e.g. a later deal)."""
    rules = rules if rules is not None else make_rules(rules="licitovany")
    rv = rules.vector()
    st = np.ascontiguousarray(st, dtype=np.int32)
    me = check_seat_view(st, seat, rv, "sample_licit_worlds")
    n = check_world_count(n, restrict)
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    actor = int(st[S.ACTOR])
    hands = [int(S.getm(st, S.HAND + s)) for s in range(3)]
    plays = _plays(st)
    played = [0, 0, 0]
    for _t, p, c in plays:
        played[p] |= 1 << c
    mine_talon, took, hidden = _hidden(st, me)
    lead_hidden = (st[S.LIC_LEAD] >= 0 and st[S.PHASE] == S.PH_FLEK and me != actor)
    locs = [(me + 1) % 3, (me + 2) % 3]
    counts = [bin(hands[s]).count("1") for s in locs]
    counts.append(bin(hidden).count("1") - counts[0] - counts[1])
    cards = cards_of(hidden)
    where_ok = _places(st, me, rv, hidden, restrict)
    allow = [where_ok[c] for c in cards]
    W = count_table(np.array(allow, dtype=np.int64), counts[0], counts[1], counts[2])
    if W[0, counts[0], counts[1]] == 0:
        raise LicitWorldError(f"seat {me}: no assignment of the hidden cards fits the counts")
    out = np.empty((n, S.STATE_SIZE), dtype=np.int32)
    got, tries = 0, 0
    limit = max_tries if max_tries is not None else 2000 * n + 1000
    start_plays = [0, 0, 0]
    while got < n:
        tries += 1
        if tries > limit:
            raise LicitWorldError(f"seat {me}: only {got} of {n} consistent worlds in "
                                  f"{tries - 1} tries", out[:got].copy())
        where = _assign(allow, counts, W, rng)
        h = [hands[s] if s == me else 0 for s in range(3)]
        third = 0
        for c, loc in zip(cards, where):
            if loc < 2:
                h[locs[loc]] |= 1 << c
            else:
                third |= 1 << c
        # The deal as dealt: each seat's current cards plus those it played; the actor's
        # 12 are his 10 and the talon, his discards lie in the third location.
        cur = h
        if actor < 0:
            dealt = [cur[s] | played[s] for s in range(3)]
            deal_talon = third
            twelve = 0
        else:
            discards = mine_talon if actor == me else third
            twelve = cur[actor] | played[actor] | discards
            if actor == me:
                t2 = took
            else:
                pick = rng.choice(cards_of(twelve), 2, replace=False)
                t2 = (1 << int(pick[0])) | (1 << int(pick[1]))
            dealt = [cur[s] | played[s] for s in range(3)]
            dealt[actor] = twelve & ~t2
            deal_talon = t2
        if not _needs_ok(st, dealt, twelve) or not _show_ok(st, dealt):
            continue
        w = st.copy()
        if plays:
            for s in range(3):
                start_plays[s] = cur[s] | played[s]
            if actor >= 0:
                start_plays[actor] = twelve & ~(third if actor != me else mine_talon)
            if not _replay_play(w, st, rv, start_plays, plays):
                continue
            w[S.TO_MOVE] = st[S.TO_MOVE]
            w[S.PHASE] = st[S.PHASE]
            w[S.LEADER] = st[S.LEADER]
        for s in range(3):
            S.setm(w, S.HAND + s, cur[s])
        if actor < 0:
            S.setm(w, S.TALON, deal_talon)
        elif actor != me:
            S.setm(w, S.TOOK + actor, deal_talon)
            if st[S.NDISC] > 0:
                ds = cards_of(third)
                rng.shuffle(ds)
                for i, c in enumerate(ds):
                    w[S.DISC + i] = c
                S.setm(w, S.TALON, third)
                S.setm(w, S.LAID + actor, third)
            if lead_hidden:
                w[S.LIC_LEAD] = int(rng.choice(cards_of(cur[actor])))
        w[S.LIC_SHOW_SEAT] = _show_seat(st, dealt)  # not the real deal's
        _set_positions(w, st, me, dealt, deal_talon, rng)
        out[got] = w
        got += 1
    return out


def random_licit_position(seed: int, game: int | None = None, plays: int = 0,
                          rules: Rules | None = None, max_attempts: int = 5000) -> np.ndarray:
    """A licitovaný deal in its card play, ``plays`` cards in, reached by random legal
    actions from a shuffled deck (for tests and benchmarks).

    With ``game`` (1..12, ``games.licitovany.games``) only deals announcing that game count:
    the auction avoids bids above it and the actor announces it when it is legal; other
    deals are dealt again.  Fleks, trumps, helping suit, discards and cards are random.
    A deal that goes on past the most decisions the rules let it take
    (``core.engine.deal_decisions``) raises StuckGameError.
    """
    from ...core.deal import shuffled_deck
    from ...core.engine import apply_action, deal_decisions, legal_actions, start_partie
    from ..base import step_bound
    from . import actions as LA

    if game is not None and not 1 <= int(game) <= 12:
        raise ValueError(f"game must be a licitovaný game id 1..12, got {game!r}")
    rules = rules if rules is not None else make_rules(rules="licitovany")
    rv = rules.vector()
    rng = np.random.default_rng(seed)
    mask = np.zeros(LA.N_ACTIONS, dtype=np.int8)
    auction = (S.PH_BID, S.PH_HOLD, S.PH_LONE)
    most = int(deal_decisions(rv))
    for _ in range(max_attempts):
        st = S.new_state()
        S.seed_rng(st, int(rng.integers(0, 2**62)))
        start_partie(st, shuffled_deck(st), int(rng.integers(0, 3)), int(rv[R_GAME]))
        played = 0
        tick = step_bound("random_licit_position's random play of a deal", most)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            ph = int(st[S.PHASE])
            if ph == S.PH_PLAY:
                if game is not None and int(st[S.LIC_GAME]) != game:
                    break
                if played >= plays:
                    return st
            legal_actions(st, rv, mask)
            acts = np.flatnonzero(mask)
            if game is not None and ph in auction:
                low = [a for a in acts if not LA.BID0 + game <= a < LA.BID0 + 12]
                acts = np.array(low or list(acts))
            elif game is not None and ph == S.PH_GAME:
                if not mask[LA.GAME0 + game - 1]:
                    break
                acts = np.array([LA.GAME0 + game - 1])
            if ph == S.PH_PLAY:
                played += 1
            apply_action(st, rv, int(rng.choice(acts)))
    raise RuntimeError("no random licitovaný deal reached the requested position")
