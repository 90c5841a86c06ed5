"""Licitovaný mariáš behind every front end (issue #12): the AEC env passes PettingZoo's
own tests, records replay through ``python -m mariash_env.replay``, the batched engine
reports the game's sizes, and the hidden-world sampler keeps to what a seat knows
(LICITOVANY.md §4–§7)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mariash_env
from mariash_env import licit_actions as LA
from mariash_env.core import state as S
from mariash_env.core.deal import shuffled_deck
from mariash_env.core.engine import apply_action, legal_actions, start_partie
from mariash_env.core.licit_observe import LOBS_SIZE, LSTATE_OBS_SIZE, encode_licit
from mariash_env.game import Game, IllegalActionError
from mariash_env.records import read_records, replay_record, save_records
from mariash_env.rules import G_LICIT, RulesError, make_rules
from mariash_env.search.licit_worlds import sample_licit_worlds
from mariash_env.vector import VectorEnv
from tests.helpers import random_play, step_cap

ROOT = Path(__file__).resolve().parents[1]
RULES = make_rules(rules="licitovany")
RV = RULES.vector()


def _play_out(e, rng):
    for _ in random_play(e, rng):
        pass


def test_spaces_labels_and_render_show_the_auction():
    e = mariash_env.env(rules="licitovany", render_mode="ansi")
    raw = e.unwrapped
    assert raw.action_space("player_0").n == LA.N_ACTIONS == 136
    assert raw.observation_space("player_0")["observation"].shape == (LOBS_SIZE,)
    assert raw.state_space.shape == (LSTATE_OBS_SIZE,)
    for i in range(LA.N_ACTIONS):
        assert raw.action_index(raw.action_label(i)) == i
    e.reset(seed=4, options={"dealer": 0})
    # Zadák (seat 2 when seat 0 deals) challenges first (LICITOVANY.md §4).
    assert e.agent_selection == "player_2"
    assert raw.legal_labels()[-1] == "pass"
    e.step(raw.action_index("pass"))
    text = e.render()
    assert "auction: player_2 pass" in text and "desetníky" in text and "zadák" in text


def test_rule_options_and_foreign_labels_are_refused():
    with pytest.raises(RulesError, match="tariff.*licitovany"):
        mariash_env.env(rules="licitovany", tariff="csm")
    with pytest.raises(RulesError, match="killed_seven"):
        make_rules(rules="licitovany", killed_seven=3)
    assert make_rules(rules="licitovany").to_dict() == {
        "rules": "licitovany", "deals": 12, "max_flek": 5, "payment_cap": 500,
        "marriage_order": "any", "shuffle": "partie"}
    g = Game(rules="licitovany")
    g.new_partie(seed=1)
    before = g.st.copy()
    with pytest.raises(IllegalActionError, match="rules='voleny'"):
        g.step("trump:Qh")  # a volený label
    with pytest.raises(IllegalActionError, match="out of range"):
        g.step(LA.N_ACTIONS)
    v = Game(rules="voleny")
    v.new_partie(seed=1)
    with pytest.raises(IllegalActionError, match="rules='licitovany'"):
        v.step("bid:sedma")
    assert np.array_equal(g.st, before)


def test_licitovany_takes_players_at_its_own_three_seats():
    """Licitovaný is played by three (LICITOVANY.md §1): ``players=3`` is taken as lízaný
    takes ``players=2``, so code written for every game (an OpenSpiel parameter set, a seat
    record's ``rules``, ``env(players=...)``) may pass it; it was refused as 'a volený
    option that does not apply'.  Any other value keeps its error."""
    base = make_rules(rules="licitovany")
    assert make_rules(rules="licitovany", players=3) == base
    assert make_rules(rules="licitovany", players=np.int64(3)) == base
    assert make_rules(rules="licitovany", players=3).to_dict() == base.to_dict()
    e = mariash_env.env(rules="licitovany", players=3)
    e.reset(seed=1)
    assert len(e.possible_agents) == 3
    with pytest.raises(RulesError, match="players=4 and rules='licitovany' conflict"):
        make_rules(rules="licitovany", players=4)
    with pytest.raises(RulesError, match="'players'"):
        make_rules(rules="licitovany", players=True)
    with pytest.raises(RulesError, match=r"\['killed_seven'\] are volený options"):
        make_rules(rules="licitovany", players=3, killed_seven=2)


def test_records_replay_through_the_cli(tmp_path):
    e = mariash_env.env(rules="licitovany", deals=4)
    e.reset(seed=11)
    _play_out(e, np.random.default_rng(0))
    recs = list(e.unwrapped.records)
    assert len(recs) == 4
    for r in recs:
        assert replay_record(json.loads(json.dumps(r))) == r["settlement"]
        assert r["rules"]["rules"] == "licitovany"
    path = tmp_path / "licit.jsonl"
    save_records(path, recs)
    assert [r["settlement"] for _, r in read_records(path)] == [r["settlement"] for r in recs]
    bad = dict(recs[0])
    bad["actions"] = [list(a) for a in recs[0]["actions"]]
    bad["actions"][0][1] = "trump:Qh"
    bad_path = tmp_path / "bad.jsonl"
    save_records(bad_path, [bad])
    # both files in one command (a start less): each is checked and summed up on its own
    out = subprocess.run([sys.executable, "-m", "mariash_env.replay", str(path), str(bad_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert [ln for ln in lines if ln.startswith(f"{path}:")] == [
        f"{path}: 4 record(s) checked, 0 bad"], out.stdout
    bad_lines = [ln for ln in lines if ln.startswith(f"{bad_path}:")]
    assert len(bad_lines) == 2 and "action #0" in bad_lines[0], out.stdout
    assert bad_lines[1] == f"{bad_path}: 1 record(s) checked, 1 bad", out.stdout


def test_vector_env_sizes_and_state():
    v = VectorEnv(8, seed=3, rules="licitovany")
    s = v.reset()
    assert v.rules_vector[-1] == G_LICIT
    assert s.obs.shape == (8, LOBS_SIZE) and s.mask.shape == (8, LA.N_ACTIONS)
    assert v.state().shape == (8, LSTATE_OBS_SIZE)
    assert v.num_actions == LA.N_ACTIONS and v.obs_size == LOBS_SIZE
    assert (s.mask[np.arange(8), LA.PASS] == 1).all()  # the challenger may always pass


def _random_positions(n, seed):
    """``n`` positions of random play (``(state, seat to move)``), every phase."""
    rng = np.random.default_rng(seed)
    m = np.zeros(LA.N_ACTIONS, np.int8)
    out = []
    k = 0
    tick = step_cap("licitovany", deals=n)  # each deal's steps, and one for the deal
    while len(out) < n:
        tick()
        st = S.new_state()
        S.seed_rng(st, seed * 1000 + k)
        start_partie(st, shuffled_deck(st), k % 3, G_LICIT)
        k += 1
        stop = int(rng.integers(0, 60))
        for _ in range(stop):
            if st[S.PHASE] == S.PH_DONE:
                break
            tick()
            legal_actions(st, RV, m)
            apply_action(st, RV, int(rng.choice(np.flatnonzero(m))))
        if st[S.PHASE] != S.PH_DONE:
            out.append((st, int(st[S.TO_MOVE])))
    return out


def test_sampled_worlds_keep_what_the_seat_knows_and_play_on():
    """Each world shows the seat exactly its own observation, holds every card once,
    and can be played to the end under the rules (LICITOVANY.md §4–§7)."""
    rng = np.random.default_rng(5)
    m = np.zeros(LA.N_ACTIONS, np.int8)
    want = np.zeros(LOBS_SIZE, np.float32)
    got = np.zeros(LOBS_SIZE, np.float32)
    phases = set()
    for st, me in _random_positions(120, 1):
        phases.add(int(st[S.PHASE]))
        encode_licit(st, me, want, False)
        for w in sample_licit_worlds(st, me, 4, rng=rng, rules=RULES):
            encode_licit(w, me, got, False)
            np.testing.assert_array_equal(got, want)
            places = [int(S.getm(w, S.HAND + s)) for s in range(3)]
            places += [int(S.getm(w, S.TALON)), int(S.getm(w, S.PLAYED))]
            assert sum(bin(x).count("1") for x in places) == 32
            assert np.bitwise_or.reduce(places) == 0xFFFFFFFF
            assert sorted(w[S.POS:S.POS + 32]) == list(range(32))
            w = w.copy()
            tick = step_cap("licitovany")
            while w[S.PHASE] != S.PH_DONE:
                tick()
                legal_actions(w, RV, m)
                apply_action(w, RV, int(rng.choice(np.flatnonzero(m))))
            assert S.read64(w, S.PAY, 3).sum() == 0
    assert {S.PH_BID, S.PH_FLEK, S.PH_PLAY} <= phases


def test_sampled_worlds_respect_the_auction_and_the_voids():
    """A bidder of a seven game holds a trump-eligible 7 in every world; a seat that did
    not follow suit holds none of it (LICITOVANY.md §3, §7)."""
    g = Game(rules="licitovany")
    # Dealer 0: forhond 1, zadák 2.  Zadák holds 7b (plain sedma's need).
    zadak = ["7b", "8b", "9b", "Tb", "Jb", "Qb", "Kb", "Ab", "7l", "8l"]
    forhond = ["9l", "Tl", "Jl", "Ql", "Kl", "Al", "7a", "8a", "9a", "Ta"]
    dealer = ["7h", "8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah", "Ja", "Qa"]
    talon = ["Ka", "Aa"]
    deck = forhond[:5] + zadak[:5] + dealer[:5] + talon + forhond[5:] + zadak[5:] + dealer[5:]
    g.new_partie(deck=deck, dealer=0)
    g.step("bid:sedma")  # zadák
    assert g.to_move == 1
    sevens_but_hearts = (1 << 8) | (1 << 16) | (1 << 24)
    for w in sample_licit_worlds(g.st, 1, 30, rng=2, rules=g.rules):
        assert int(S.getm(w, S.HAND + 2)) & sevens_but_hearts


def test_default_infos_name_the_phases_of_the_spec():
    """LICITOVANY.md §12: ``infos["phase"]`` is ``auction``, ``announce``, ``flek`` or
    ``play``; ``stack_infos=True`` keeps the engine's index (one int key set)."""
    seen: dict[bool, set] = {}
    for stack in (False, True):
        e = mariash_env.env(rules="licitovany", deals=2, stack_infos=stack)
        e.reset(seed=8)
        rng = np.random.default_rng(1)
        phases = seen.setdefault(stack, set())
        for _agent in e.agent_iter():
            obs, _r, term, trunc, info = e.last()
            phases.add(info["phase"])
            e.step(None if term or trunc else
                   int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen[False] == {"auction", "announce", "flek", "play", "done"}
    assert all(isinstance(p, int) for p in seen[True]) and len(seen[True]) > 4


def test_rich_infos_name_the_phases_of_the_spec_and_carry_the_settlement():
    e = mariash_env.env(rules="licitovany", rich_infos=True, deals=2)
    e.reset(seed=8)
    seen = set()
    rng = np.random.default_rng(1)
    settled = []
    for _agent in e.agent_iter():
        obs, _r, term, trunc, info = e.last()
        seen.add(info["phase"])
        if "settlement" in info:
            settled.append(info["settlement"])
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen <= {"auction", "announce", "flek", "play", "done"} and "auction" in seen
    assert settled
    for s in settled:
        assert {"components", "net", "payments", "laid", "end"} <= set(s)
        assert sum(s["payments"]) == 0


@pytest.mark.parametrize("game", ["voleny", "licitovany"])
def test_game_kind_reads_the_phase_of_an_observation(game):
    """``GameKind.phase_of`` names the core's phase from the observation alone (what the
    training's per-phase options and scripts/ablate_phases.py rely on)."""
    from mariash_env.kinds import KINDS

    kind = KINDS[game]
    g = G_LICIT if game == "licitovany" else 0
    rules = RV if game == "licitovany" else make_rules().vector()
    rng = np.random.default_rng(9)
    m = np.zeros(kind.n_actions, np.int8)
    obs = np.zeros((1, kind.obs_size), np.float32)
    seen = set()
    for k in range(40):
        st = S.new_state()
        S.seed_rng(st, 500 + k)
        start_partie(st, shuffled_deck(st), k % 3, g)
        tick = step_cap(game)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            kind.encode(st, int(st[S.TO_MOVE]), obs[0], False)
            name = kind.phase_names[int(kind.phase_of(obs)[0])]
            assert name == S.PHASE_NAMES[int(st[S.PHASE])]
            seen.add(name)
            legal_actions(st, rules, m)
            apply_action(st, rules, int(rng.choice(np.flatnonzero(m))))
    assert {"flek", "play"} <= seen


def test_a_bad_max_flek_names_this_games_default():
    """The message gives licitovaný's own default (5, kalhoty), not volený's boty."""
    with pytest.raises(mariash_env.RulesError, match="default 5 = kalhoty"):
        mariash_env.env(rules="licitovany", max_flek=30)
    with pytest.raises(mariash_env.RulesError, match="default 4 = boty"):
        mariash_env.env(max_flek=30)
