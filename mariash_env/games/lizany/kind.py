"""Two-player lízaný as the registry sees it: no compiled core yet, so only its own AEC
environment, records, the single-agent env (over its own game) and the arena drive it."""

from __future__ import annotations

from ..base import GameKind
from . import actions as Z

KIND = GameKind(
    "lizany", None, Z.N_ACTIONS, Z.ACTION_LABELS, Z.action_index, Z.action_label,
    Z.OBS_SIZE, Z.STATE_SIZE, 1, Z.OBS_LAYOUT, None, None, "reward", ("play",),
    players=(2,), front_ends=frozenset({"aec", "parallel", "records", "single_agent", "arena"}),
    options=("rules",),
    table_robot="mariash_env.games.lizany.table_robot:LizanyRuleRobot",
    replay="mariash_env.records:replay_record", title="lízaný mariáš")
