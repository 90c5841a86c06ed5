"""Two-player lízaný as the registry sees it: its own compiled core (``core.py``: the
encoder and the observation protocol below) but no rules vector (``game`` is None, so it
is no game of the three-seat engine); driven by its own AEC environment, records, the
single-agent env, the arena and its own batched engine (``vector.py``, which
``mariash_env.vector.VectorEnv(n, rules="lizany")`` returns)."""

from __future__ import annotations

from ..base import GameKind
from . import actions as Z
from . import core as C

KIND = GameKind(
    "lizany", None, Z.N_ACTIONS, Z.ACTION_LABELS, Z.action_index, Z.action_label,
    Z.OBS_SIZE, Z.STATE_SIZE, 1, Z.OBS_LAYOUT, C.encode, C.observe_into, "reward", ("play",),
    players=(2,),
    front_ends=frozenset({"aec", "parallel", "vector", "records", "single_agent", "arena",
                          "training", "export", "openspiel", "service", "play"}),
    options=("rules",), fixed_options=(("deals", 1), ("players", 2)),
    table_robot="mariash_env.games.lizany.table_robot:LizanyRuleRobot",
    pimc="mariash_env.games.lizany.pimc:LizanyPIMCRobot",
    nnpimc="mariash_env.games.lizany.nnpimc:LizanyNNPIMCRobot",
    warm_search="mariash_env.games.lizany.solve:warm_up",
    replay="mariash_env.records:replay_record", title="lízaný mariáš",
    env_name="mariash_lizany_v0",
    openspiel_game="mariash_env.openspiel.lizany:MariashLizanyGame",
    record_format=Z.FORMAT, record_replay="mariash_env.games.lizany.record:replay_result",
    ladder_robots=("random", "table", "onnx:models/robot_lizany.onnx",
                   "onnx:models/robot_lizany_distilled.onnx",
                   "onnx:models/robot_lizany_endgame.onnx", "strong"),
    probe_robots=("table", "net", "strong"),
    record_size=C.LZ_STATE_SIZE, obs_bounds=(0.0, 1.0),
    # the DMC network distilled from the exact endgame search (lizany_distill.toml), then
    # taught the open deal's exact values (lizany_endgame.toml)
    net="onnx:models/robot_lizany_endgame.onnx",
    # the strongest robot at about a millisecond a decision: the network while the stock
    # lasts, PIMC on exact solves from trick 8 (two stock cards left) and the exact solve
    # once the stock is gone (games/lizany/nnpimc.py; docs/robots.md has the matches)
    strong="nnpimc(from_trick=7)",
    vector="mariash_env.games.lizany.vector:LizanyVectorEnv",
    aec="mariash_env.games.lizany.game:raw_env",
    arena="mariash_env.games.lizany.arena:ARENA",
    table_session="mariash_env.play.lizany_table:LizanySession",
    results_by_player=True)  # its records: the deal's rewards by player, the lead alternating
