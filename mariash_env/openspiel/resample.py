"""Resampling for the OpenSpiel game ``"mariash"`` over the compiled engine:
``resample_from_infostate(player, sampler)`` (:func:`resample`) returns a state drawn from
the seat's information set, built by applying a history (so ``history()``,
serialisation, clone and the information state all work, and equal the original's for
the seat).

Deal by deal it uses the game's exact world sampler (its
:class:`~mariash_env.games.base.HiddenInfo`, the kind's ``hidden_info``: uniform over the
worlds consistent with the seat's knowledge of the deal): the world's deck as the deal's
32 chance draws, then the deal's decisions, the other seats' hidden ones (trump card,
discards, lead card) taken from the world (its ``fill_hidden``).  An ended deal is sampled before
its last decision (the cards the end shows, an open contract's hand, placed) and kept only if it
ends as the seat saw it.  At four (RULES.md §11.3) the player is mapped to its seat of
each deal; the dealer sitting out sees only what is public (:func:`_public_world`).

Deals of ``deals=1`` and of ``shuffle="every_deal"`` are independent given what is public
and are sampled one by one.  With ``shuffle="partie"`` the first deal's world decides every
later deck, so it is drawn conditioned on what the seat saw of the later deals
(:class:`_Link`): its own later cards and the others' known ones (played, a shown trump
card; a volený seat's voids and cards not held) must be gathered into the buckets of the
next deal they were dealt to.  The sampler places them in the right piles (its
``restrict``), and the order of every pile the seat did not see (hands left in dealt
order, an unseen discard order) is drawn among those that fit; needs of deals further on
are followed back through whole unseen hands (:func:`_first_slots`), or learnt from a
replay that failed.  The later deals then replay (the other seats' hidden choices drawn
among the legal ones that fit their later play) and must give the seat's information
state; what does not is rejected, at most ``RESAMPLE_TRIES`` worlds (``ARRANGE_TRIES``
orders each); if none replays, a Metropolis chain over the partie's histories from the
real state (:func:`relabel_chain`, symmetric card swaps kept when legal and true to the
seat's information state).  Every state returned is in the seat's information set; the
draw is uniform within a deal, not exactly across a gathered partie (README, research
section).  The sampler's own uniform draw seeds the resample.  A state made by
:func:`~mariash_env.openspiel.state.state_from_record` has no history: it resamples to
another such search state.

The tuning constants below are read at each call; setting one on the package
(``mariash_env.openspiel.RELABEL_STEPS = ...``) sets it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..cards import CARD_CODES, cards_of
from ..core import state as S
from ..core.deal import deck_of, gathered_deck
from ..core.engine import legal_actions
from ..games.voleny.worlds import played_by
from ..rules import is_int
from .params import NCARDS, NUM_PLAYERS

if TYPE_CHECKING:
    from .state import MariashState, _Context


GIBBS_STEPS = 9  # sampler steps of a public-only world (a four-player deal's dealer)
RESAMPLE_TRIES = 500
"""First-deal worlds tried per resample of a later deal of a partie (then the chain)."""
ARRANGE_TRIES = 6
"""Orders of one first-deal world's piles tried per world (a partie's later deal)."""
RELABEL_STEPS = 1500
"""Proposals of the relabelling chain (:func:`relabel_chain`) when rejection finds no
world."""
TUNING = ("GIBBS_STEPS", "RESAMPLE_TRIES", "ARRANGE_TRIES", "RELABEL_STEPS")


class ResampleError(RuntimeError):
    """No state of the information set was found (a search state made from a record
    outside a deal in progress; a bug guard)."""


def resample(state: MariashState, player_id: int, probability_sampler: Any) -> MariashState:
    """A state drawn from ``player_id``'s information set, with a history that replays
    to it (module docstring)."""
    player_id = check_player(state, player_id)
    rng = np.random.default_rng(seed_of(probability_sampler))
    game = state.get_game()
    if state.from_record:
        if state.dealing or state.st[S.PHASE] == S.PH_DONE:
            raise ResampleError(f"seat {player_id}: a state made from a record has no "
                                "history and resamples only within a deal in progress")
        w = sample_world(state._g, state.st, state._g.seat(state.st, player_id), rng)
        if w is None:
            raise ResampleError(f"seat {player_id}: the sampler found no world")
        return state.from_world(w)
    records = state.recalled()
    if state._g.rules.shuffle == "partie" and len(records) > 1:
        out = _resample_partie(state, player_id, records, rng)
    else:  # deals are independent given what is public: each is resampled on its own
        out = game.new_initial_state()
        for i, rec in enumerate(records):
            out = _resample_deal(state, out, i, rec, player_id, rng)
    for c in rng.permutation(NCARDS)[: len(state.drawn)]:  # nobody has seen a drawn card
        out.apply_action(int(c))
    if out.information_state_string(player_id) != state.information_state_string(player_id):
        raise ResampleError(f"seat {player_id}: a resampled world does not replay to the "
                            "seat's information state")  # pragma: no cover - a bug guard
    return out


def _resample_deal(state: MariashState, start: MariashState, i: int, rec: np.ndarray,
                   player: int, rng: np.random.Generator) -> MariashState:
    """Deal ``i`` (record ``rec``) on ``start`` from a world of ``player`` (rejection:
    :func:`_try_deal`)."""
    for _ in range(RESAMPLE_TRIES):
        tried = _try_deal(state, start, i, rec, player, rng)
        if tried is not None:
            return tried[0]
    raise ResampleError(f"seat {player}: no world of deal {i} ends as the seat saw it in "
                        f"{RESAMPLE_TRIES} tries")


def _try_deal(state: MariashState, start: MariashState, i: int, rec: np.ndarray,
              player: int, rng: np.random.Generator, restrict: np.ndarray | None = None,
              world: np.ndarray | None = None,
              ) -> tuple[MariashState, np.ndarray] | None:
    """One try at deal ``i`` (record ``rec``) on ``start``: a world of ``player`` (the
    sampler's, narrowed by ``restrict``, or ``world``), its deck as the deal's 32 chance
    draws, then the deal's decisions with the other seats' hidden ones taken from the
    world; ``(state, world)``, or None if it does not replay to the seat's encoding.
    The sampler needs a deal in progress, so an ended deal is sampled before its last
    decision, which then must end it as seen (a lay-down shows the hands)."""
    ctx = state._g
    me = ctx.seat(rec, player)
    acts = state.deal_actions[i]
    ended = bool(rec[S.PHASE] == S.PH_DONE)
    last = [acts[-1][1]] if ended else []
    w = world
    if w is None:
        if ended:  # what the end showed (an open contract's hand, RULES.md §11.1)
            shown = _shown_at_end(ctx, rec, player)
            restrict = shown if restrict is None else restrict & shown
        w = sample_world(ctx, state.before_end[i] if ended else rec, me, rng, restrict)
        if w is None:
            return None
    fill = ctx.info.fill_hidden
    mask = ctx.mask
    out = start.clone()
    for c in deck_of(w).tolist():
        out.apply_action(c)
    # Every decision is checked (OpenSpiel applies whatever it is given): the last
    # one of an ended deal was not known to the sampler.
    if all(out.apply_legal(a, mask) for a in (
            *fill(acts[: len(acts) - len(last)], w, me), *last)) and \
            np.array_equal(ctx.encoding(out.st, player), ctx.encoding(rec, player)):
        return out, w
    return None


def _resample_partie(state: MariashState, player: int, records: list[np.ndarray],
                     rng: np.random.Generator) -> MariashState:
    """``shuffle="partie"``: the first deal's world decides every later deck (gathered
    and cut, RULES.md §2).  It is drawn conditioned on what the seat saw of the later
    deals (:class:`_Link`, one per deal joined to the next): the sampler places the
    known next-deal cards in the first deal's piles they must come from (the seat's
    own, the cards each seat played; later deals' through whole unseen hands,
    :func:`_first_slots`), then the order of every pile the seat did not see (hands
    left in dealt order, an unseen discard order) is drawn among those that deal them
    where they were.  The later deals then replay (the other seats' hidden choices
    drawn among the legal ones that fit their later play); a deal that does not adds
    what it needs of the first deal's piles (:func:`_needs_of`) and the piles are
    ordered again, at most ``ARRANGE_TRIES`` times a world, ``RESAMPLE_TRIES``
    worlds."""
    links = [_Link(state, records, d, player) for d in range(len(records) - 1)]
    links[0].slots = _first_slots(state, records, links, player)
    links[0].restrict = links[0].sampler_restriction(records[0])
    start = state.get_game().new_initial_state()
    for _ in range(RESAMPLE_TRIES):
        tried = _try_deal(state, start, 0, records[0], player, rng, links[0].restrict)
        if tried is None:
            continue
        end, world = tried[0].st, tried[1]
        extra: dict[int, list[tuple[_Link, int]]] = {}
        for _ in range(ARRANGE_TRIES):  # orders of this world's piles, each failure
            out, failed = _replay_partie(state, links, records, player, end, world,
                                              extra, rng)
            if failed == 0:
                return out
            if out is None:
                if failed == 1 and not extra:  # no order fits
                    break
                extra = {} if failed == 1 else extra  # the later needs did not fit
                continue
            _needs_of(out, links, records, failed, player, extra)
    return state._relabel_chain(player, rng)


def relabel_chain(state: MariashState, player: int, rng: np.random.Generator) -> MariashState:
    """The fallback of :func:`_resample_partie` when rejection found no world: a
    Metropolis chain over the partie's histories (the first deck, the cuts, every
    decision).  A proposal swaps two cards ``x``, ``y`` in part of the history, one of
    three kinds drawn uniformly: (1) everywhere (the first deck's draws and every
    decision naming a card), ``x, y`` among the cards the seat never saw; (2) in the
    first deck only (their deal positions: the order of a hand, a talon card against a
    hand card), among the cards not dealt to the seat in the first deal; (3) in the
    decisions of deal ``d`` on (``d`` uniform; another hidden choice: a discard, a
    trump or lead card), among the cards the seat did not hold in deal ``d``.  Each
    set is fixed by the seat's information state and the pair drawn uniformly, so
    every proposal is symmetric; it is accepted when the new history is legal and
    gives the seat its information state.  The chain leaves the uniform distribution
    over the histories it connects invariant; it starts from this state and runs
    ``RELABEL_STEPS`` proposals."""
    ctx = state._g
    hist = np.array(state.history(), dtype=np.int64)
    deck = np.zeros(hist.size, dtype=bool)
    deck[:NCARDS] = True  # the first deck; later decks are gathered (cuts stay)
    named = np.zeros(hist.size, dtype=bool)
    starts = []  # per deal, the index of its first decision
    i = NCARDS
    for d, acts in enumerate(state.deal_actions):
        starts.append(i)
        named[i:i + len(acts)] = ctx.card_of[hist[i:i + len(acts)]] >= 0
        i += len(acts) + (1 if d + 1 < len(state.deal_actions) else 0)
    want = state.information_state_string(player)
    sets = [np.flatnonzero(~_seen_cards(ctx, state, player))]
    not_held = [np.flatnonzero(~_held_cards(ctx, rec, player)) for rec in state.recalled()]
    ends = [ctx.encoding(rec, player) for rec in state.recalled()]
    cur, out = hist, state.clone()
    for _ in range(RELABEL_STEPS):
        kind = int(rng.integers(3))
        d = int(rng.integers(len(starts)))
        cand = sets[0] if kind == 0 else not_held[0 if kind == 1 else d]
        if cand.size < 2:
            continue
        perm = np.arange(NCARDS)
        a, b = rng.choice(cand, 2, replace=False)
        perm[a], perm[b] = b, a
        new = cur.copy()
        if kind < 2:
            new[deck] = perm[cur[deck]]
        if kind != 1:
            sel = named.copy()
            sel[:starts[d] if kind == 2 else 0] = False
            new[sel] = ctx.card_base[cur[sel]] + perm[ctx.card_of[cur[sel]]]
        t = _replay_history(state, new, player, ends)
        if t is not None and t.information_state_string(player) == want:
            cur, out = new, t
    return out


def _replay_history(state: MariashState, hist: np.ndarray, player: int,
                    ends: list[np.ndarray]) -> MariashState | None:
    """A new state of this game from ``hist`` (chance outcomes applied, every decision
    checked legal), or None at an illegal decision or at a deal that ends other than
    ``player``'s encoding ``ends[i]`` of deal ``i``'s end (an early rejection)."""
    ctx = state._g
    out = state.get_game().new_initial_state()
    for a in hist.tolist():
        if out.is_chance_node():
            out.apply_action(a)
            continue
        if not out.apply_legal(a, ctx.mask):
            return None
        i = len(out.finished)
        if out.st[S.PHASE] == S.PH_DONE and i < len(ends) and not np.array_equal(
                ctx.encoding(out.st, player), ends[i]):
            return None
    return out


def _replay_partie(state: MariashState, links: list[_Link], records: list[np.ndarray],
                   player: int, end: np.ndarray, world: np.ndarray,
                   extra: dict[int, list[tuple[_Link, int]]],
                   rng: np.random.Generator) -> tuple[MariashState | None, int]:
    """The first deal's ``world`` (``end``: its replayed end) arranged by the first link
    (and ``extra``), then every deal replayed: ``(state, 0)`` when all replay to the
    seat's information state, else ``(state or None, the first deal that failed)``:
    ``(None, 1)`` when no order fits, ``(None, -1)`` when the order changed the first
    deal as the seat saw it."""
    ctx = state._g
    w = links[0].arrange(end, world, rng, extra)
    if w is None:
        return None, 1  # no order fits
    tried = _try_deal(state, state.get_game().new_initial_state(), 0, records[0], player,
                           rng, world=w)
    if tried is None:  # a card moved within a seat's hand changed its deal
        return None, -1
    out = tried[0]
    for i in range(1, len(records)):
        out.apply_action(int(records[i][S.CUT]))
        if not _replay_deal(out, state.deal_actions[i], player, records[i], rng) or \
                not np.array_equal(ctx.encoding(out.st, player),
                                   ctx.encoding(records[i], player)):
            return out, i
    if out.information_state_string(player) != state.information_state_string(player):
        return out, len(records) - 1  # forehand's first seven of the last deal
    return out, 0


def _needs_of(out: MariashState, links: list[_Link], records: list[np.ndarray],
              failed: int, player: int, extra: dict[int, list[tuple[_Link, int]]]
              ) -> bool:
    """Add to ``extra`` what deal ``failed`` asks of the first deal's piles: each card of
    deal ``failed - 1``'s unseen piles (in ``out``'s replayed world) must fit its slot
    of that deal's gathered deck, and reaches it from a slot of the first deal's
    gathered deck (:func:`_trace`).  False if nothing new was added."""
    if failed < 2 or len(out.finished) < failed:
        return False
    end = out.finished[failed - 1]
    link = links[failed - 1]
    slot = np.empty(NCARDS, dtype=np.int64)
    slot[gathered_deck(end)] = np.arange(NCARDS)
    added = False
    for by_pos, cards, _ in _unseen_piles(out._g, end, out.deal_actions[failed - 1],
                                          player):
        if not by_pos:
            continue
        for c in cards_of(cards):
            j0 = _trace(out, records, failed - 1, int(end[S.POS + c]), player)
            need = (link, int(slot[c]))
            if j0 is not None and need not in extra.setdefault(j0, []):
                extra[j0].append(need)
                added = True
    return added


def _replay_deal(state: MariashState, actions: list[tuple[int, int]], player: int,
                 rec: np.ndarray, rng: np.random.Generator) -> bool:
    """Apply a deal's decisions, the other seats' hidden ones (trump card, discards,
    lead card) drawn among the legal ones unless ``player`` knows them (a discard never
    among the cards its seat plays later in the deal); False at an illegal one."""
    ctx = state._g
    mask = ctx.mask
    plays = played_by(rec)
    me = ctx.seat(rec, player)
    n_disc = 0  # the deal's discards so far: which talon a discard goes to
    for seat, a in actions:
        if ctx.hidden(a):
            lo, known, discard = ctx.info.hidden_choice(a, rec, me, n_disc)
            n_disc += discard
            if seat != me and not known:
                legal_actions(state.st, ctx.rv, mask)
                choices = np.flatnonzero(mask[lo:lo + NCARDS])
                if discard:
                    choices = choices[(int(plays[seat]) >> choices) & 1 == 0]
                if choices.size == 0:
                    return False
                a = lo + int(rng.choice(choices))
        if not state.apply_legal(a, ctx.mask):
            return False
    return True


def sample_world(ctx: _Context, st: np.ndarray, me: int, rng: np.random.Generator,
                 restrict: np.ndarray | None = None) -> np.ndarray | None:
    """One world of core seat ``me`` from the game's exact sampler (``info.sample_worlds``:
    volený's ``search.sample_worlds``, licitovaný's ``sample_licit_worlds``), the hidden
    cards' locations narrowed by ``restrict``; None when it finds none.
    ``me = -1`` (a four-player deal's dealer, who sees only what is public):
    :func:`_public_world`."""
    if me < 0:
        return _public_world(ctx, st, rng, restrict)
    try:
        return ctx.info.sample_worlds(st, me, 1, rng, ctx.rules, restrict=restrict)[0]
    except ctx.info.world_errors:
        return None


def _public_world(ctx: _Context, st: np.ndarray, rng: np.random.Generator,
                  restrict: np.ndarray | None) -> np.ndarray | None:
    """A world consistent with the public history of the deal in ``st`` (and
    ``restrict``, absolute location masks: bit ``s`` core seat ``s``'s hand, bit 3 the
    third location), for a seat that holds no cards: a Gibbs chain of
    ``GIBBS_STEPS`` exact draws, each from one core seat's knowledge in the current
    world (it keeps that seat's cards, redraws the rest uniformly), started from
    ``st``.  Each step leaves the uniform distribution over the worlds consistent with
    the public history invariant; the chain forgets its start geometrically."""
    w = st
    for i, s in enumerate(rng.permutation(GIBBS_STEPS) % NUM_PLAYERS):
        rel = None if restrict is None else _relative(restrict, int(s))
        w2 = sample_world(ctx, w, int(s), rng, rel)
        if w2 is None:  # pragma: no cover - the chain's state is always a world
            return None if i == 0 else w
        w = w2
    return w


def _loc_bit(seat: int, me: int) -> int:
    """The samplers' location bit of ``seat``'s hand: 1 next seat, 2 previous seat; for
    ``me = -1`` (a four-player deal's dealer, :func:`_public_world`) ``1 << seat``."""
    if me < 0:
        return 1 << seat
    return 1 if seat == (me + 1) % 3 else 2


def _third_bit(me: int) -> int:
    """The samplers' location bit of the talon or discards (``me = -1``: absolute, 8)."""
    return 8 if me < 0 else 4


def _any_loc(me: int) -> int:
    """Every location bit of the samplers' ``restrict`` for core seat ``me``."""
    return 15 if me < 0 else 7


def _relative(restrict: np.ndarray, s: int) -> np.ndarray:
    """Absolute location masks (bit ``t`` core seat ``t``'s hand, bit 3 the third location)
    as core seat ``s``'s sampler reads them: 1 next seat, 2 previous seat, 4 the third."""
    r = np.asarray(restrict, dtype=np.int64)
    return ((r >> ((s + 1) % 3)) & 1) | (((r >> ((s + 2) % 3)) & 1) << 1) | (
        ((r >> 3) & 1) << 2)


def _seen_cards(ctx: _Context, state: MariashState, player: int) -> np.ndarray:
    """bool[32]: the cards ``player`` saw in any deal of ``state`` (its own dealt cards
    and the talon it took, every card played, a public trump card); a function of its
    information state."""
    seen = np.zeros(NCARDS, dtype=bool)
    for rec in state.recalled():
        m = 0
        for x in played_by(rec).tolist():
            m |= int(x)
        held = _held_cards(ctx, rec, player)
        m |= sum(1 << int(c) for c in np.flatnonzero(held))
        if rec[S.TRUMP_PUBLIC] and rec[S.TRUMP_CARD] >= 0:
            m |= 1 << int(rec[S.TRUMP_CARD])
        seen |= (m >> np.arange(NCARDS)) & 1 == 1
    return seen


def _held_cards(ctx: _Context, rec: np.ndarray, player: int) -> np.ndarray:
    """bool[32]: the cards ``player`` held in the deal of ``rec``: dealt to it (its
    buckets, :meth:`_Context.own_buckets`) or taken in a talon."""
    me = ctx.seat(rec, player)
    if me < 0:
        return np.zeros(NCARDS, dtype=bool)
    own = ctx.own_buckets(rec, me)
    b = ctx.buckets(int(rec[S.DEALER]))
    took = int(S.getm(rec, S.TOOK + me))
    return np.array([int(b[rec[S.POS + c]]) in own or bool(took >> c & 1)
                     for c in range(NCARDS)])


def _shown_at_end(ctx: _Context, end: np.ndarray, player: int) -> np.ndarray:
    """Location masks (the samplers' ``restrict``) of the cards another seat still holds
    at the end of a deal that the seat's encoding shows there (an open contract's hand):
    the encoding changes when such a card is taken out of that hand."""
    me = ctx.seat(end, player)
    out = np.full(NCARDS, _any_loc(me), dtype=np.int64)
    want = ctx.encoding(end, player)
    for seat in range(NUM_PLAYERS):
        hand = int(S.getm(end, S.HAND + seat))
        if seat == me:
            continue
        for c in cards_of(hand):
            t = end.copy()
            S.setm(t, S.HAND + seat, hand & ~(1 << c))
            if not np.array_equal(ctx.encoding(t, player), want):
                out[c] = _loc_bit(seat, me)
    return out


def _unseen_piles(ctx: _Context, end: np.ndarray, acts: list[tuple[int, int]],
                  player: int) -> list[tuple[bool, int, int]]:
    """The piles of the finished deal ``end`` whose order in the gathered deck the seat did
    not see (RULES.md §2, LICITOVANY.md §2): ``(by_position, cards, location bit)``.  By
    deal position: another seat's cards left in hand or claimed at a lay-down, a
    licitovaný talon nobody took; else another seat's lying discards, in discard order.
    The location bit is where the samplers put those cards before the deal's last
    decision (1 next seat, 2 previous seat, 4 the talon or discards)."""
    out: list[tuple[bool, int, int]] = []
    piled = 0
    me = ctx.seat(end, player)
    for seat in range(NUM_PLAYERS):
        if seat == me:
            continue
        for off in (S.HAND, S.CLAIM_HANDS):
            m = int(S.getm(end, off + seat))
            if m:
                out.append((True, m, _loc_bit(seat, me)))
                piled |= m
    if end[S.TALON_OWNER] < 0 and S.getm(end, S.TALON):
        out.append((True, int(S.getm(end, S.TALON)), _third_bit(me)))
        piled |= int(S.getm(end, S.TALON))
    discards = [s for s, a in acts if ctx.kind.labels[a].startswith("discard:")]
    if end[S.DISC + 1] >= 0 and discards and discards[-1] != me:
        m = (1 << int(end[S.DISC])) | (1 << int(end[S.DISC + 1]))
        if not m & piled:
            out.append((False, m, _third_bit(me)))
    return out


class _Link:
    """What the seat saw of deal ``d + 1`` of a gathered partie (RULES.md §2: its deck is
    deal ``d``'s piles gathered and cut by ``k``), as constraints on deal ``d``'s piles:
    each slot of the gathered deck becomes a position of the next deal, dealt to a bucket
    (:meth:`_Context.buckets`).  The seat knows its own next-deal cards per bucket
    exactly, and of the others' cards where each seat must have had them: the cards it
    played (unless it took a talon in that deal: then anywhere but the seat's),
    forehand's shown trump card among its first seven (volený), the licitovaný actor's
    among his ten or the talon.  Only what the seat has seen is read: its own cards, the
    public history, and of deal ``d`` which pile each slot of the gathered deck belongs
    to (the piles' sizes are public)."""

    def __init__(self, state: MariashState, records: list[np.ndarray], d: int,
                 player: int) -> None:
        ctx = state._g
        self.ctx, self.player = ctx, player
        first, second = records[d], records[d + 1]
        # The player's core seats in the two deals (-1: the dealer sitting out at four).
        self.me0, self.me1 = ctx.seat(first, player), ctx.seat(second, player)
        me1 = self.me1
        self.k = int(second[S.CUT])
        self.b0 = ctx.buckets(int(first[S.DEALER]))
        b1 = ctx.buckets(int(second[S.DEALER]))
        own1 = ctx.own_buckets(second, me1)
        others = sorted(set(b1.tolist()) - own1)
        self.loc = {b: i for i, b in enumerate(others)}  # other buckets -> locations
        # The bucket each slot of deal d's gathered deck is dealt to.
        self.need = np.array([b1[(j - self.k) % NCARDS] for j in range(NCARDS)])
        self.own_cls = np.full(NCARDS, -1, dtype=np.int64)  # own next-deal card: bucket
        for c in range(NCARDS):
            if b1[second[S.POS + c]] in own1:
                self.own_cls[c] = b1[second[S.POS + c]]
        self.allow = np.full(NCARDS, (1 << len(others)) - 1, dtype=np.int64)
        plays = played_by(second)
        info = ctx.info
        holder = int(second[info.third_holder])  # who knows bucket 3
        for seat in range(NUM_PLAYERS):
            if seat == me1 or (info.talon_from_hands and S.getm(second, S.TOOK + seat)):
                continue
            where = {seat} | ({3} if seat == holder else set())
            m = sum(1 << self.loc[b] for b in where if b in self.loc)
            for c in cards_of(plays[seat]):
                self.allow[c] &= m
        shown = info.shown_third(second, state.deal_actions[d + 1])
        if shown >= 0 and holder != me1:
            self.allow[shown] &= 1 << self.loc[3]
        if info.knowledge is not None and me1 >= 0 and not any(
                S.getm(second, S.TOOK + t) for t in range(3)):
            self._known_holders(state, d + 1, second, holder)
        self.acts = state.deal_actions[d]
        self.slots: dict[int, set[int]] = {}  # card -> the slots later links allow it

    def _known_holders(self, state: MariashState, i: int, rec: np.ndarray,
                       forehand: int) -> None:
        """No talon taken in deal ``i`` (a game with ``info.knowledge``, volený's
        :func:`~mariash_env.search.knowledge`): the sampler's knowledge of that deal
        (voids, cards not held, … before its last decision) says which seats may have been
        dealt each hidden card; the talon lying was forehand's (bucket 3's holder)."""
        ended = rec[S.PHASE] == S.PH_DONE
        info = self.ctx.info
        try:
            k = info.knowledge(state.before_end[i] if ended else rec, self.me1,
                               self.ctx.rules)
        except info.world_errors:  # pragma: no cover - the real state always has a world
            return
        seats = [k.locations[0], k.locations[1], forehand]
        for c in k.cards:
            m = 0
            for li, seat in enumerate(seats):
                if int(k.allowed[c]) >> li & 1:
                    m |= sum(1 << self.loc[b] for b in self.loc if (
                        b == seat or (b == 3 and seat == forehand)))
            self.allow[c] &= m

    def sampler_restriction(self, first: np.ndarray) -> np.ndarray:
        """The sampler's restriction for the first deal (before its last decision): the
        cards the seat has not seen at its end lie in its unseen piles, own next-deal cards
        in the pile whose slot they were gathered into, the others in a pile with a slot
        of a bucket they may be in; a card the last decision played with its player."""
        ctx, player, me = self.ctx, self.player, self.me0
        slot = np.empty(NCARDS, dtype=np.int64)
        slot[gathered_deck(first)] = np.arange(NCARDS)
        out = np.full(NCARDS, _any_loc(me), dtype=np.int64)
        piles = _unseen_piles(ctx, first, self.acts, player)
        unseen = 0
        for _, cards, _ in piles:
            unseen |= cards
        for c in cards_of(unseen):
            out[c] = 0
        for _, cards, bit in piles:
            pile_slots = {int(slot[c]) for c in cards_of(cards)}
            for c in cards_of(unseen):
                if (int(slot[c]) in pile_slots) if self.own_cls[c] >= 0 else any(
                        self.fits(c, j) for j in pile_slots):
                    out[c] |= bit
        seat, a = self.acts[-1]
        label = ctx.kind.labels[a]
        if seat != me and label.startswith("play:"):
            out[CARD_CODES.index(label[len("play:"):])] = _loc_bit(seat, me)
        return out

    def arrange(self, end: np.ndarray, w: np.ndarray, rng: np.random.Generator,
                extra: dict[int, list[tuple[_Link, int]]]) -> np.ndarray | None:
        """The world ``w`` of the first deal (``end``: its replayed end) with the order of
        each unseen pile redrawn among those that gather the next deal's known cards into
        their buckets (and meet ``extra``: per slot, later links' slots its card reaches):
        a random fitting matching, per pile, of its cards to the deal positions of its
        cards within each seat's buckets (a position changes nothing else the seat saw;
        the replay checks it), and of the two discard orders; None if none fits."""
        ctx = self.ctx
        w = w.copy()
        slot = np.empty(NCARDS, dtype=np.int64)
        slot[gathered_deck(end)] = np.arange(NCARDS)

        def fits(c: int, j: int) -> bool:
            return self.fits(c, j) and all(link.fits(c, s) for link, s in extra.get(j, ()))

        # A card that stays in bucket 3 (``info.kept_third``: volený forehand's trump card
        # among his first seven, or at position 17 when he chose z lidu, RULES.md §3).
        trump, blind = ctx.info.kept_third(w, self.acts)
        holder = self._holders(end)
        for by_pos, cards, _ in _unseen_piles(ctx, end, self.acts, self.player):
            if not by_pos:  # the discard order: w's DISC, as info.fill_hidden reads it
                d = [int(w[S.DISC]), int(w[S.DISC + 1])]
                slots = [int(slot[c]) for c in d]  # where DISC[0] and DISC[1] are gathered
                orders = [o for o in (d, d[::-1]) if all(
                    fits(c, j) for c, j in zip(o, slots))]
                if not orders:
                    return None
                w[S.DISC], w[S.DISC + 1] = orders[int(rng.integers(len(orders)))]
                continue
            # The engine gathers the pile in dealt order: the card with the r-th deal
            # position lands in slots[r], whichever card that is.
            cs = sorted(cards_of(cards), key=lambda c: int(w[S.POS + c]))
            pos = [int(w[S.POS + c]) for c in cs]
            slots = [int(slot[c]) for c in cs]
            for b in {holder[self.b0[p]] for p in pos} - {self.me0}:
                ranks = [r for r in range(len(pos)) if holder[self.b0[pos[r]]] == b]
                group = [cs[r] for r in ranks]

                def ok(c: int, r: int, pos: list[int] = pos, slots: list[int] = slots) -> bool:
                    if c == trump:
                        at = pos[r] == w[S.POS + c] if blind else self.b0[pos[r]] == 3
                        if not at:
                            return False
                    return fits(c, slots[r])

                placed = _match(group, ranks, ok, rng)
                if placed is None:
                    return None
                for c, r in zip(group, placed):
                    w[S.POS + c] = pos[r]
        return w

    def _holders(self, end: np.ndarray) -> list[int]:
        """Per bucket of deal ``d``, the seat holding its cards: positions move only among
        one seat's buckets (bucket 3 its holder's, ``info.third_holder``: forehand's first
        seven and the rest; the licitovaný talon and the actor who took it); the replay
        then checks the deal as the seat saw it."""
        out = [0, 1, 2, 3]
        holder = int(end[self.ctx.info.third_holder])
        if holder >= 0:
            out[3] = holder
        return out

    def fits(self, c: int, j: int) -> bool:
        """Card ``c`` may be gathered into slot ``j`` of deal ``d``'s gathered deck."""
        if c in self.slots and j not in self.slots[c]:
            return False
        need = int(self.need[j])
        if self.own_cls[c] >= 0 or need not in self.loc:
            return int(self.own_cls[c]) == need
        return bool(self.allow[c] >> self.loc[need] & 1)


def _first_slots(state: MariashState, records: list[np.ndarray], links: list[_Link],
                 player: int) -> dict[int, set[int]]:
    """Per card, the slots of the first deal's gathered deck it may hold for the later
    links (the seat's own cards and the others' known ones of deals ``2..``), where the
    seat can tell: going back deal by deal from a slot of deal ``m``'s gathered deck
    through unseen piles that are a whole hand (no card played or laid from it, so the
    deal positions of its ranks are public) to a slot of the first deal's; a slot the seat
    saw filled holds no other card.  A card some of whose slots cannot be followed back,
    or that the seat saw gathered, is left free."""
    ctx = state._g
    n = len(records) - 1
    piles = [_unseen_piles(ctx, records[d], state.deal_actions[d], player) for d in range(n)]
    decks = [gathered_deck(records[d]) for d in range(n)]

    def back(m: int, s: int) -> int | None:
        """The first deal's slot that slot ``s`` of deal ``m``'s gathered deck comes
        from; -1 for a slot the seat saw filled, None if it cannot tell."""
        while m > 0:
            real = int(decks[m][s])
            pile = next(((by_pos, c) for by_pos, c, _ in piles[m] if c >> real & 1), None)
            if pile is None:
                return -1
            if not pile[0] or not _whole(ctx, records[m], pile[1]):
                return None
            s = (int(records[m][S.POS + real]) + int(records[m][S.CUT])) % NCARDS
            m -= 1
        return s

    out: dict[int, set[int]] = {}
    for m in range(1, n):
        link = links[m]
        for c in range(NCARDS):
            if link.own_cls[c] < 0 and link.allow[c] == (1 << len(link.loc)) - 1:
                continue  # nothing known of the card in deal m + 1
            ok: set[int] | None = set()
            for j in range(NCARDS):
                if not link.fits(c, j):
                    continue
                first = back(m, j)
                if first is None or (first == -1 and int(decks[m][j]) == c):
                    ok = None  # a way the seat cannot follow, or it saw the card there
                    break
                if first >= 0:
                    ok.add(first)
            if ok is not None:
                out[c] = out[c] & ok if c in out else ok
    return out


def _whole(ctx: _Context, end: np.ndarray, cards: int) -> bool:
    """The pile ``cards`` holds every card dealt to the buckets it was dealt from (none
    played or laid): its deal positions are public."""
    b = ctx.buckets(int(end[S.DEALER]))
    held = {int(b[end[S.POS + c]]) for c in cards_of(cards)}
    return sum(1 for x in b.tolist() if x in held) == bin(cards).count("1")


def _match(cards: list[int], ranks: list[int], ok: Any,
           rng: np.random.Generator) -> list[int] | None:
    """A random perfect matching of ``cards`` to ``ranks`` with ``ok(card, rank)`` for
    every pair (augmenting paths in a random order); None if there is none."""
    n = len(cards)
    adj = [[r for r in rng.permutation(ranks).tolist() if ok(c, r)] for c in cards]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for r in adj[i]:
            if r not in seen:
                seen.add(r)
                if r not in owner or augment(owner[r], seen):
                    owner[r] = i
                    return True
        return False

    for i in rng.permutation(n).tolist():
        if not augment(i, set()):
            return None
    out = [0] * n
    for r, i in owner.items():
        out[i] = r
    return out


def _trace(state: MariashState, records: list[np.ndarray], m: int, p: int,
           player: int) -> int | None:
    """The slot of the first deal's gathered deck whose card reaches position ``p`` of
    deal ``m`` in ``state``'s replayed world, through the piles the seat did not see
    (each keeps its cards in dealt order); None if the way passes a slot the seat saw."""
    while m > 0:
        end = state.finished[m - 1]
        j = (p + int(records[m][S.CUT])) % NCARDS
        c = int(gathered_deck(end)[j])
        piles = _unseen_piles(state._g, end, state.deal_actions[m - 1], player)
        if not any(by_pos and cards >> c & 1 for by_pos, cards, _ in piles):
            return None
        if m == 1:
            return j
        p = int(end[S.POS + c])
        m -= 1
    return None  # pragma: no cover - m >= 1


def check_player(state: Any, player_id: Any) -> int:
    """``player_id`` as an int if it is one of the game's players; else ValueError naming
    the range (a negative id would count from the end, a large one search in vain)."""
    n = state.num_players()
    if not is_int(player_id) or not 0 <= player_id < n:
        raise ValueError(f"player_id {player_id!r}: expected a player 0..{n - 1}")
    return int(player_id)


def seed_of(sampler: Any) -> int | None:
    """A seed from OpenSpiel's probability sampler (a callable giving a uniform [0, 1))."""
    if sampler is None:
        return None
    if isinstance(sampler, np.random.Generator):
        return int(sampler.integers(0, 2**62))
    try:
        u = float(sampler())
    except TypeError:
        return None
    return int(u * 2**53)
