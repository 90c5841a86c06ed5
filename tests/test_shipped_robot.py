"""The robot shipped in models/ loads without torch and plays only legal actions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mariash_env.robots import make_robot
from mariash_env.vector import VectorEnv

MODEL = Path(__file__).resolve().parent.parent / "models" / "robot.onnx"
DISTILLED = MODEL.with_name("robot_distilled.onnx")
SHIPPED = [MODEL, DISTILLED, MODEL.with_name("robot_distilled_bid.onnx"),
           MODEL.with_name("robot_distilled_dagger.onnx"),
           MODEL.with_name("robot_distilled_dagger2.onnx")]


@pytest.mark.parametrize("model", SHIPPED, ids=[m.stem for m in SHIPPED])
def test_shipped_robot_plays_legal_actions(model):
    robot = make_robot(f"onnx:{model}")
    env = VectorEnv(64, seed=5)
    step = env.reset()
    for _ in range(300):
        actions = robot.act_batch(step.obs, step.mask)
        assert step.mask[np.arange(64), actions].all()
        step = env.step(actions)


def test_phase_ablation_swaps_exactly_the_named_parts():
    """scripts/ablate_phases.py: TableRobot in every part is TableRobot itself (a duplicate
    score of exactly 0 on every deal); in no part it is the robot."""
    from mariash_env.kinds import VOLENY
    from scripts.ablate_phases import PARTS, swapped
    from training.evaluate import duplicate_eval

    robot = make_robot(f"onnx:{MODEL}")
    table = make_robot("table")
    everything = swapped(robot, table, VOLENY, VOLENY.phase_names, None)
    r = duplicate_eval(everything, table, deals=30, seed=4, num_envs=90, name="table")
    assert r.mean == 0.0 and r.std == 0.0
    nothing = swapped(robot, table, VOLENY, (), None)
    assert duplicate_eval(nothing, table, deals=30, seed=4, num_envs=90).mean == \
        duplicate_eval(robot, table, deals=30, seed=4, num_envs=90).mean
    assert {p for phases, _ in PARTS["voleny"].values() for p in phases} == \
        set(VOLENY.phase_names) - {"done"}
    # each side's card play split by contract: the two halves of a side swap disjoint
    # decisions whose union is the side's whole (a decision is the robot's in one half only)
    from scripts.ablate_phases import SPLITS

    for side in (True, False):
        specs = [sp for sp in SPLITS["voleny"].values() if sp[1] is side and sp[0] == ("play",)]
        assert len(specs) == 2
        seen = _split_swaps(robot, table, VOLENY, specs, side, "contract", 3, 60)
        assert 0 in seen  # suit games' decisions of the side were met and swapped by one half


class _StepMemo:
    """A deterministic robot's batch decisions, kept by row (its observation and mask)
    for one step of :func:`_split_swaps`: the check, every part and the whole ask about
    the same rows, and each row is decided once instead of once a caller (most of the
    test's time was the table robot deciding the same rows again)."""

    def __init__(self, robot) -> None:
        self.robot, self.rows = robot, {}

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        keys = [o.tobytes() + m.tobytes() for o, m in zip(obs, mask)]
        new = [i for i, k in enumerate(keys) if k not in self.rows]
        if new:
            for i, a in zip(new, self.robot.act_batch(obs[new], mask[new])):
                self.rows[keys[i]] = int(a)
        return np.array([self.rows[k] for k in keys], dtype=np.int64)


def _split_swaps(robot, table, game, specs, side: bool, field: str, width: int,
                 steps: int) -> set[int]:
    """Plays ``steps`` batches of the game with the side's whole card play swapped; at
    every decision where the robot and the table robot differ, exactly the parts ``specs``
    of the split that the whole swaps swap it -- one part, or none.  Returns the slots of
    the observation's ``field`` (``width`` slots: the contract or the game) that were met
    and swapped."""
    from scripts.ablate_phases import swapped

    f0 = next(off for name, off, _, _ in game.obs_layout if name == field)
    robot, table = _StepMemo(robot), _StepMemo(table)
    parts = [swapped(robot, table, game, *sp) for sp in specs]
    whole = swapped(robot, table, game, ("play",), side)
    env = VectorEnv(200, seed=8, rules=game.name)
    step = env.reset()
    seen = set()
    for _ in range(steps):
        robot.rows.clear()
        table.rows.clear()
        obs, mask = step.obs, step.mask
        own, tab = robot.act_batch(obs, mask), table.act_batch(obs, mask)
        took_all = [p(obs, mask) for p in parts]
        full = whole(obs, mask)
        for i in np.flatnonzero(own != tab):
            took = [bool(t[i] == tab[i]) for t in took_all]
            assert sum(took) == int(full[i] == tab[i])  # at most one part swaps it
            if full[i] == tab[i]:
                seen.add(int(obs[i, f0:f0 + width].argmax()))
        step = env.step(full)
    return seen


def test_phase_ablation_of_a_searching_robot_swaps_per_decision(capsys):
    """scripts/ablate_phases.py on a robot spec that searches (wants_view): with every
    phase swapped its score is the table robot's own (0 on every deal), with none it is
    the robot's; and the command line runs a named part."""
    from mariash_env.arena import duplicate_match
    from mariash_env.kinds import VOLENY
    from scripts.ablate_phases import SwappedView, main, selector

    spec = (f"nnpimc(model={str(MODEL)!r}, bidding='network', from_trick=8, "
            "inference=False, worlds=2, seed=1)")
    robot, table = make_robot(spec), make_robot("table")
    every = SwappedView(robot, table, selector(VOLENY, VOLENY.phase_names, None))
    res = duplicate_match({"a": lambda: every, "t": lambda: table}, deals=3, seed=2,
                          progress=False)
    assert not res.per_deal.any()
    none = SwappedView(robot, table, selector(VOLENY, (), None))
    a = duplicate_match({"a": lambda: none, "t": lambda: table}, deals=3, seed=2,
                        progress=False)
    b = duplicate_match({"a": lambda: robot, "t": lambda: table}, deals=3, seed=2,
                        progress=False)
    assert (a.per_deal == b.per_deal).all() and a.per_deal.any()
    assert main([spec, "--deals", "2", "--parts", "as defender"]) == 0
    # another robot's decisions swapped in (a searching one: per decision), by company
    capsys.readouterr()
    assert main([str(MODEL), "--deals", "2", "--parts", "in defence", "--by-company",
                 "--with", spec]) == 0
    out = capsys.readouterr().out
    assert f"swapping in {spec}" in out and "flek in defence" in out
    assert out.count("beside its copy") == 2
    for argv, why in (([spec, "--parts", "dessert"], "names no swap"),
                      (["oracle", "--deals", "2"], "unknown robot"),
                      ([spec, "--with", "oracle"], "unknown robot")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert why in err and err.startswith("error: ") and err.count("\n") == 1


LICIT_MODEL = MODEL.parent / "robot_licitovany.onnx"


def test_phase_ablation_of_the_licitovany_robot():
    """scripts/ablate_phases.py on a licitovaný model: LicitTableRobot in every part is
    LicitTableRobot itself; the parts cover every phase of the game but the end."""
    from mariash_env.kinds import LICITOVANY
    from scripts.ablate_phases import PARTS, swapped
    from training.evaluate import duplicate_eval

    robot = make_robot(f"onnx:{LICIT_MODEL}", rules="licitovany")
    table = make_robot("table", rules="licitovany")
    rules = {"rules": "licitovany"}
    everything = swapped(robot, table, LICITOVANY, LICITOVANY.phase_names, None)
    r = duplicate_eval(everything, table, deals=20, seed=4, rules=rules, num_envs=60)
    assert r.mean == 0.0 and r.std == 0.0
    assert {p for phases, _ in PARTS["licitovany"].values() for p in phases} == \
        set(LICITOVANY.phase_names) - {"done"}


def test_phase_ablation_splits_licitovany_card_play_by_game():
    """scripts/ablate_phases.py's licitovaný splits (#35): each side's card play split by
    the announced game (LICITOVANY.md §3), the parts of a side naming every one of the
    twelve games once and swapping disjoint decisions whose union is the side's whole."""
    from mariash_env.games.licitovany.games import GAME_IDS
    from mariash_env.kinds import LICITOVANY
    from scripts.ablate_phases import SPLITS

    robot = make_robot(f"onnx:{LICIT_MODEL}", rules="licitovany")
    table = make_robot("table", rules="licitovany")
    for side in (True, False):
        specs = [sp for sp in SPLITS["licitovany"].values()
                 if sp[1] is side and sp[0] == ("play",)]
        games = [g for sp in specs for g in sp[2]]
        assert sorted(games) == sorted(GAME_IDS)  # every game, in one part only
        seen = _split_swaps(robot, table, LICITOVANY, specs, side, "game", 12, 80)
        assert len(seen) >= 2  # decisions of several games were met and swapped


def test_shipped_licitovany_robot_plays_legal_actions():
    """models/robot_licitovany.onnx: a licitovaný model (LICITOVANY.md), loaded without
    torch for that game only, legal in every phase of its games."""
    robot = make_robot(f"onnx:{LICIT_MODEL}", rules="licitovany")
    assert robot.game.name == "licitovany" and robot.rules["rules"] == "licitovany"
    assert LICIT_MODEL.stat().st_size < 8_000_000
    env = VectorEnv(64, seed=6, rules="licitovany")
    step = env.reset()
    kinds = set()
    for _ in range(300):
        actions = robot.act_batch(step.obs, step.mask)
        assert step.mask[np.arange(64), actions].all()
        kinds.update(robot.game.labels[a].split(":")[0] for a in actions)
        step = env.step(actions)
    assert {"pass", "play"} <= kinds  # the auction and the card play
    card = (MODEL.parent / "ROBOT_LICITOVANY.md").read_text(encoding="utf-8")
    assert "robot_licitovany.onnx" in card and "desetníky/deal" in card
