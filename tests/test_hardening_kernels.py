"""Issue #29 items 1, 2 and 6: compiled kernels check the buffers they are handed, seat
records of another game are refused, ``restore_states`` refuses states that are in
range but meaningless for their game and phase (or have no legal move), and the feature
decoder refuses non-canonical observations by name."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env import Game, make_rules
from mariash_env.actions import N_ACTIONS
from mariash_env.core import state as S
from mariash_env.core.engine import apply_action, deal_deck, legal_actions
from mariash_env.core.licit_observe import LOBS_SIZE, encode_licit
from mariash_env.core.observe import O_PLAYED_BY, O_PLAYED_IN, OBS_SIZE, encode
from mariash_env.core.observe4 import OBS4_SIZE, encode4
from mariash_env.licit_actions import N_ACTIONS as LN_ACTIONS
from mariash_env.robots.features import ObservationError, decode, decode_dict
from mariash_env.robots.licit_table import card_play_view
from mariash_env.seat_record import SeatRecordError, seat_view
from mariash_env.vector import VectorEnv, random_legal_actions
from scripts.fuzz_compiled import README_RECORD
from tests.helpers import step_cap

LICIT = make_rules(rules="licitovany").vector()
VOLENY = make_rules().vector()


def played(n: int, steps: int, seed: int = 0, **rules) -> tuple[VectorEnv, object]:
    venv = VectorEnv(n, seed=seed, **rules)
    step = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        step = venv.step(random_legal_actions(step.mask, rng))
    return venv, step


def state_in(phase: int, seed: int = 0, **rules) -> tuple[VectorEnv, np.ndarray]:
    """A one-game env and a real state of it in ``phase``."""
    venv = VectorEnv(1, seed=seed, **rules)
    step = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(5000):
        if venv.states[0, S.PHASE] == phase:
            return venv, venv.copy_states()
        step = venv.step(random_legal_actions(step.mask, rng))
    raise AssertionError(f"phase {phase} not reached")


# --- item 1: buffers ------------------------------------------------------------------


def test_seat_view_reads_licitovany_rules_as_a_licitovany_record():
    """Issue #29 item 1: the README record with licitovaný rules made the seat view run
    licitovaný's legality (136 slots) into a 115-slot mask.  Licitovaný rules now make it
    a licitovaný record, refused by name (forehand's twelve volený cards are no
    licitovaný hand), and volený's still works."""
    rec = {**README_RECORD, "rules": {"rules": "licitovany"}}
    with pytest.raises(SeatRecordError, match="expected 10 card codes") as e:
        seat_view(rec, rng=0)
    assert e.value.field == "hand"
    assert seat_view(README_RECORD, rng=0).action_mask().sum() > 0  # volený still works


def test_legal_actions_refuses_a_mask_too_small_for_the_game():
    """Issue #29 item 1: a volený mask under licitovaný rules is refused, not overrun (the
    mask is a view of a larger buffer, so the test itself writes nowhere foreign)."""
    st = played(1, 0, rules="licitovany")[0].copy_states()[0]
    buf = np.full(LN_ACTIONS + 8, 7, np.int8)
    with pytest.raises(ValueError, match="136 licitovaný"):
        legal_actions(st, LICIT, buf[:N_ACTIONS])
    assert (buf[N_ACTIONS:] == 7).all()
    legal_actions(st, LICIT, buf[:LN_ACTIONS])  # the game's own size works
    assert buf[:LN_ACTIONS].sum() > 0


@pytest.mark.parametrize("what", ["state", "rules", "action"])
def test_engine_entries_check_state_rules_and_action(what):
    """Issue #29 item 1: a short state or rules vector, or an action outside the table."""
    st = played(1, 0)[0].copy_states()[0]
    rv, a = VOLENY, 0
    if what == "state":
        st = st[:100]
    elif what == "rules":
        rv = rv[:5]
    else:
        a = N_ACTIONS
    with pytest.raises(ValueError, match="state|rules vector|action table"):
        apply_action(st, rv, a)
    if what != "action":
        with pytest.raises(ValueError):
            legal_actions(st, rv, np.zeros(N_ACTIONS, np.int8))


@pytest.mark.parametrize("encoder,size,seats,rules", [
    (encode, OBS_SIZE, 3, {}), (encode_licit, LOBS_SIZE, 3, {"rules": "licitovany"}),
    (encode4, OBS4_SIZE, 4, {"players": 4})])
def test_encoders_check_out_and_seat(encoder, size, seats, rules):
    """Issue #29 item 1: the encoders refuse a short ``out`` and a seat outside the table
    (the seat indexes the state's hands)."""
    st = played(1, 3, **rules)[0].copy_states()[0]
    buf = np.full(size + 16, 5.0, np.float32)
    with pytest.raises(ValueError, match="out is shorter"):
        encoder(st, 0, buf[:size - 1], False)
    with pytest.raises(ValueError, match="observing seat"):
        encoder(st, seats, buf[:size], False)
    with pytest.raises(ValueError, match="observing seat"):
        encoder(st, -1, buf[:size], False)
    assert (buf[size - 1:] == 5.0).all()
    encoder(st, seats - 1, buf[:size], False)
    assert (buf[size:] == 5.0).all()


def test_dealing_refuses_a_deck_that_is_not_a_permutation():
    """Issue #29 item 1: deck cards index the state (``POS + card``)."""
    st = S.new_state()
    for deck in (np.arange(31), np.r_[np.arange(31), 400], np.r_[np.arange(31), 0]):
        with pytest.raises(ValueError, match="each card"):
            deal_deck(st, deck.astype(np.int64), 0)
    with pytest.raises(ValueError, match="dealer"):
        deal_deck(st, np.arange(32, dtype=np.int64), 3)
    deal_deck(st, np.arange(32, dtype=np.int64), 0)


# --- item 2: semantic validation --------------------------------------------------------


@pytest.mark.parametrize("rules", [{}, {"rules": "licitovany"}])
def test_restore_refuses_a_flek_level_past_the_rules_limit(rules):
    """Issue #29 item 2: BET_LEVEL = 2**31 - 1 in a flek turn (in range) overflowed on the
    next flek and the encoder wrote far outside the observation: SIGSEGV."""
    venv, st = state_in(S.PH_FLEK, **rules)
    b = int(np.flatnonzero(st[0, S.BET_EXISTS:S.BET_EXISTS + 4])[0])
    bad = st.copy()
    bad[0, S.BET_LEVEL + b] = 2**31 - 1
    with pytest.raises(ValueError, match=r"field bet_level .*max_flek.*games \[0\]"):
        venv.restore_states(bad)
    np.testing.assert_array_equal(venv.copy_states(), st)  # nothing restored
    bad[0, S.BET_LEVEL + b] = 0
    bad[0, S.BET_LEVEL + (b + 1) % 4] = 1 if not st[0, S.BET_EXISTS + (b + 1) % 4] else 0
    if bad[0, S.BET_LEVEL + (b + 1) % 4]:
        with pytest.raises(ValueError, match="bet that does not exist"):
            venv.restore_states(bad)


def test_restore_refuses_a_licitovany_flek_round_past_its_count():
    """Issue #29 item 2: licitovaný's FLEK_ROUND = 2**31 - 1 in a flek turn: SIGSEGV."""
    venv, st = state_in(S.PH_FLEK, rules="licitovany")
    bad = st.copy()
    bad[0, S.FLEK_ROUND] = 2**31 - 1
    with pytest.raises(ValueError, match=r"field flek_round = 2147483647 in phase flek"):
        venv.restore_states(bad)


def _swap_card(st: np.ndarray, c: int, src: int, dst: int, back: int) -> None:
    """Move card ``c`` from hand ``src`` to hand ``dst`` and ``dst``'s card ``back`` to
    ``src``: every card still in one place, every hand its size."""
    S.setm(st, S.HAND + src, (S.getm(st, S.HAND + src) & ~(1 << c)) | 1 << back)
    S.setm(st, S.HAND + dst, (S.getm(st, S.HAND + dst) & ~(1 << back)) | 1 << c)


def test_restore_refuses_a_state_with_no_legal_move():
    """Issue #29 item 2: licitovaný's game choice after a won bid of lepší dvě sedmy a sto
    by an actor without the 7 of hearts offers nothing; the state is refused, naming it."""
    for seed in range(40):
        venv, st = state_in(S.PH_GAME, seed=seed, rules="licitovany")
        actor = int(st[0, S.ACTOR])
        other = (actor + 1) % 3
        hand = S.getm(st[0], S.HAND + actor)
        ohand = S.getm(st[0], S.HAND + other)
        if hand & 1 and not ohand & 1:
            _swap_card(st[0], 0, actor, other, next(c for c in range(1, 32) if ohand >> c & 1))
        elif hand & 1:
            continue
        st[0, S.LIC_HIGH] = 12
        with pytest.raises(ValueError, match="at least one legal action"):
            venv.restore_states(st)
        return
    raise AssertionError("no suitable deal")


@pytest.mark.parametrize("rules,phase,change,field", [
    ({}, S.PH_PLAY, {S.LEADER: -1}, "leader"),
    ({}, S.PH_PLAY, {S.TRICK_NO: 10}, "trick_no"),
    ({}, S.PH_PLAY, {S.DEAL_NO: 12}, "deal_no"),
    ({}, S.PH_FLEK, {S.FLEK_ROUND: 0}, "flek_round"),
    ({}, S.PH_BARVA, {S.ANSWERS: 2}, "answers"),
    ({}, S.PH_TRUMP, {S.PHASE: S.PH_BID}, "phase"),
    ({}, S.PH_TRUMP, {S.FOREHAND: "dealer"}, "forehand"),
    ({}, S.PH_CONTRACT, {S.TO_MOVE: "next"}, "to_move"),
    ({}, S.PH_TRUMP, {S.PARTIE_DONE: 1}, "partie_done"),
    ({"players": 4}, S.PH_TRUMP, {S.DEALER: 0, S.FOREHAND: 1}, "dealer"),
    ({"rules": "licitovany"}, S.PH_BID, {S.PHASE: S.PH_TRUMP}, "phase"),
    ({"rules": "licitovany"}, S.PH_FLEK, {S.LIC_QUIET: 3}, "lic_quiet"),
    ({"rules": "licitovany"}, S.PH_BID, {S.LIC_HOLDER: "challenger"}, "lic_holder"),
    ({"rules": "licitovany"}, S.PH_PLAY, {S.LIC_GAME: 0}, "lic_game"),
    ({"rules": "licitovany"}, S.PH_TRUMPS, {S.NDISC: 2}, "ndisc"),  # found by the fuzz
])
def test_restore_refuses_what_the_phase_cannot_have(rules, phase, change, field):
    """Issue #29 item 2: per game and phase, the field at fault is named (with the game
    row) and nothing is restored."""
    venv, st = state_in(phase, **rules)
    good = np.concatenate([st, st])
    bad = good.copy()
    for off, v in change.items():
        if v == "dealer":
            v = bad[1, S.DEALER]
        elif v == "next":
            v = (bad[1, S.TO_MOVE] + 1) % 3
        elif v == "challenger":
            v = bad[1, S.LIC_CHALLENGER]
        bad[1, off] = v
    venv2 = VectorEnv(2, seed=0, **rules)
    venv2.reset()
    before = venv2.copy_states()
    with pytest.raises(ValueError, match=rf"field {field}\b.*games \[1\]; nothing was restored"):
        venv2.restore_states(bad)
    np.testing.assert_array_equal(venv2.copy_states(), before)
    venv2.restore_states(good)


def test_restore_refuses_hands_of_the_wrong_size():
    """Issue #29 item 2: a card moved between hands keeps each card once but leaves a seat
    short: it would run out of cards before the deal ends."""
    venv, st = state_in(S.PH_PLAY)
    h0 = S.getm(st[0], S.HAND)
    c = (h0 & -h0).bit_length() - 1
    S.setm(st[0], S.HAND, h0 & ~(1 << c))
    S.setm(st[0], S.HAND + 1, S.getm(st[0], S.HAND + 1) | 1 << c)
    with pytest.raises(ValueError, match="field hand in phase play"):
        venv.restore_states(st)


@pytest.mark.parametrize("rules", [{}, {"rules": "licitovany"}, {"players": 4},
                                   {"open_contracts": True, "max_flek": None}])
def test_every_real_state_is_accepted_and_a_finished_deal_shows_zeros(rules):
    """Issue #29 item 2: the checks refuse nothing that play reaches; a deal restored at
    its end (nobody to move) has an empty mask and an all-zero observation."""
    venv, step = played(48, 0, seed=3, **rules)
    rng = np.random.default_rng(3)
    for _ in range(150):
        step = venv.step(random_legal_actions(step.mask, rng))
        venv.restore_states(venv.copy_states())
    one = VectorEnv(1, seed=0, **rules)
    one.reset()
    st = one.copy_states()
    rv = one.rules_vector
    mask = np.zeros(one.num_actions, np.int8)
    tick = step_cap(one)
    while True:
        tick()
        legal_actions(st[0], rv, mask)
        if apply_action(st[0], rv, int(np.flatnonzero(mask)[0])):
            break
    one.restore_states(st)
    cur = one.current()
    assert cur.player[0] == -1 and not cur.mask.any() and not cur.obs.any()


# --- item 6: observations -----------------------------------------------------------------


def _real_obs() -> tuple[np.ndarray, np.ndarray]:
    """An observation in play with a few cards played, and its mask."""
    for seed in range(100):
        g = Game(make_rules(deals=1))
        g.new_partie(seed=seed)
        rng = np.random.default_rng(seed)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            if bin(S.getm(g.st, S.PLAYED)).count("1") >= 4:
                return g.observation(g.to_move), g.legal_mask()
            g.step(int(rng.choice(g.legal_actions())))
    raise AssertionError("no deal got to its fourth card")


def test_decode_refuses_a_card_played_in_a_trick_by_nobody():
    """Issue #29 item 6: a played_in slot without its played_by card was a bare KeyError
    (a 500 from the robot service)."""
    obs, mask = _real_obs()
    v = obs.copy()
    played = v[O_PLAYED_BY:O_PLAYED_BY + 96].reshape(3, 32).any(axis=0)
    c = int(np.flatnonzero(~played)[0])
    v[O_PLAYED_IN + 10 * c] = 1.0
    with pytest.raises(ObservationError, match="played_in"):
        decode(v, mask)
    assert decode(obs, mask).legal == [int(a) for a in np.flatnonzero(mask)]


@pytest.mark.parametrize("change,needle", [
    (lambda v: v[:-1], "shape"), (lambda v: np.r_[v, 0.0], "shape"),
    (lambda v: v.reshape(30, 30), "shape"), (lambda v: np.where(v > 2, v, np.nan), "finite"),
    (lambda v: np.r_[0.5, v[1:]], "0 or 1"), (lambda v: np.r_[v[:869], 1, 1, v[871:]], "phase"),
    (lambda v: np.r_[v[:128], 1, 1, v[130:]], "trump_card"),
    (lambda v: np.r_[v[:885], np.zeros(12), v[897:]], "deal_no"),
    (lambda v: v.astype(str), "numbers"),
])
def test_decode_refuses_non_canonical_observations_by_name(change, needle):
    """Issue #29 item 6: a specific ObservationError (a ValueError) naming the block."""
    obs, mask = _real_obs()
    with pytest.raises(ObservationError, match=needle):
        decode(change(obs.astype(np.float64)), mask)


def test_decode_refuses_bad_masks_and_dicts():
    """Issue #29 item 6: the mask and the dict are checked too."""
    obs, mask = _real_obs()
    with pytest.raises(ObservationError, match="action mask"):
        decode(obs, mask[:-1])
    with pytest.raises(ObservationError, match="action mask"):
        decode(obs, np.r_[mask[:-1], 2])
    with pytest.raises(ObservationError, match="'observation' and 'action_mask'"):
        decode_dict({"observation": obs})
    with pytest.raises(ObservationError, match="'observation' and 'action_mask'"):
        decode_dict([obs, mask])
    assert issubclass(ObservationError, ValueError)
    assert decode_dict({"observation": obs, "action_mask": mask}).phase == decode(obs).phase


@pytest.mark.parametrize("rules", [{}, {"players": 4}, {"rules": "licitovany"},
                                   {"open_contracts": True}])
def test_real_observations_all_decode(rules):
    """Issue #29 item 6: the checks refuse no observation the game gives (the four-player
    one whole, licitovaný's through the table robot's view of it)."""
    venv, step = played(32, 0, seed=8, **rules)
    rng = np.random.default_rng(8)
    for _ in range(60):
        step = venv.step(random_legal_actions(step.mask, rng))
        for i in range(32):
            if "rules" in rules:
                card_play_view(step.obs[i], step.mask[i])
            else:
                decode(step.obs[i], step.mask[i] if "players" not in rules else None)
