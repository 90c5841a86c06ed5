"""Licitovaný mariáš (LICITOVANY.md) as the registry sees it: its robots ``net`` (the
best licitovaný network alone) and ``strong`` (nnpimc: the network trained on real-deal
bidding labels before the fifth trick, PIMC with the solver after; issue #35,
docs/nnpimc.md)."""

from __future__ import annotations

from ...rules import G_LICIT, LICIT_DEFAULTS, LICIT_OPTIONS
from ..base import FRONT_ENDS, GameKind
from . import actions as LA
from . import observe as LO

KIND = GameKind(
    "licitovany", G_LICIT, LA.N_ACTIONS, LA.ACTION_LABELS, LA.action_index, LA.action_label,
    LO.LOBS_SIZE, LO.LSTATE_OBS_SIZE, LO.LOBS_VERSION, LO.LOBS_LAYOUT, LO.encode_licit,
    LO.observe_licit, "desetník", LO.LOBS_PHASES,
    front_ends=frozenset(FRONT_ENDS),
    options=LICIT_OPTIONS, rule_defaults=tuple(LICIT_DEFAULTS.items()),
    # played by three (LICITOVANY.md §1): players=3 taken, as lízaný takes players=2
    fixed_options=(("players", 3),),
    table_robot="mariash_env.games.licitovany.table_robot:LicitTableRobot",
    table_playout="mariash_env.robots.table_playout:play_out_licit",
    render="mariash_env.games.licitovany.render:TEXT",
    settlement="mariash_env.games.licitovany.record:settlement",
    table_view="mariash_env.games.licitovany.play:VIEW",
    hidden_info="mariash_env.games.licitovany.hidden:HIDDEN",
    seat_records="mariash_env.games.licitovany.seat_record:LICITOVANY",
    symmetry="mariash_env.games.licitovany.symmetry:SYMMETRY",
    deal_bounds="mariash_env.games.licitovany.hidden:deal_bounds",
    replay="mariash_env.records:replay_record", title="licitovaný mariáš",
    env_name="mariash_licitovany_v0",
    units="desetníky", arena_contracts="suit/fold/-/betl/durch",  # LICITOVANY.md §5: fold
    # every shipped model of the game, oldest first (..._actor_table3.onnx is `net`)
    ladder_robots=("random", "table", "onnx:models/robot_licitovany.onnx",
                   "onnx:models/robot_licitovany_distilled.onnx",
                   "onnx:models/robot_licitovany_deal.onnx",
                   "onnx:models/robot_licitovany_deal2.onnx",
                   "onnx:models/robot_licitovany_deal3.onnx",
                   "onnx:models/robot_licitovany_deal4.onnx",
                   "onnx:models/robot_licitovany_rollout.onnx",
                   "onnx:models/robot_licitovany_actor.onnx",
                   "onnx:models/robot_licitovany_actor_play.onnx",
                   "onnx:models/robot_licitovany_actor_table3.onnx", "strong"),
    probe_robots=("table", "net", "strong"),
    # the best network alone (issue #35): three rounds of labels valued in the real deals,
    # in the auction, flek and card play of its own parties, the third with PIMC's labels
    # of its betl and durch card play (robot_licitovany_deal4.onnx), then a round whose
    # auction and flek labels are played out by the network itself instead of the table
    # robot (robot_licitovany_rollout.onnx), then one whose actor's decisions are valued
    # against the table robot as well (robot_licitovany_actor.onnx), then one with PIMC's
    # labels of the actor's suit-game card play (robot_licitovany_actor_play.onnx), then
    # three steps of policy iteration against the table robot, the actor's card play and
    # the auction valued by playing each choice out against it in the real deal
    # (models/ROBOT_LICITOVANY_ACTOR_TABLE3.md: +3.31 over the table robot, +3.45 against
    # PIMC over 2000 deals); the first shipped network, robot_licitovany.onnx, stays in
    # the ladder and the label recipes
    net="onnx:models/robot_licitovany_actor_table3.onnx",
    # issue #35's strong cheap robot (nnpimc, docs/nnpimc.md): the auction, announcements,
    # flek and first tricks of `net`'s network, exact PIMC on uniform worlds after
    # (robot_licitovany_actor_table3.onnx: +22.14 desetníky against PIMC over 1200 deals,
    # where the same preset with robot_licitovany_deal.onnx had +8.31)
    strong="nnpimc(model='models/robot_licitovany_actor_table3.onnx', bidding='network', "
           "from_trick=4, nt_from_trick=0, inference=False, worlds=6)",
    # LICITOVANY.md §12's phase names in the environment's rich infos
    phase_groups=(("bid", "auction"), ("hold", "auction"), ("lone_bid", "auction"),
                  ("game", "announce"), ("trumps", "announce"), ("helping", "announce"),
                  ("discard", "announce"), ("lead", "announce")))
