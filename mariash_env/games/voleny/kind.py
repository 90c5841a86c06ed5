"""Volený mariáš (RULES.md) as the registry sees it: three players, or four with the
dealer sitting out (§11.3, its own observation)."""

from __future__ import annotations

from dataclasses import fields

from ...core.state import PHASE_NAMES
from ...rules import Rules
from ..base import FRONT_ENDS, GameKind, SeatLayout
from . import actions as A
from . import observe as O
from . import observe4 as Q

KIND = GameKind(
    "voleny", 0, A.N_ACTIONS, A.ACTION_LABELS, A.action_index, A.action_label,
    O.OBS_SIZE, O.STATE_OBS_SIZE, O.OBS_VERSION, O.OBS_LAYOUT, O.encode, O.observe_into,
    "groš", PHASE_NAMES[:next(n for b, _, n, _ in O.OBS_LAYOUT if b == "phase")],
    players=(3, 4), front_ends=frozenset(FRONT_ENDS),
    options=tuple(f.name for f in fields(Rules)),
    table_robot="mariash_env.games.voleny.table_robot:TableRobot",
    table_playout="mariash_env.robots.table_playout:play_out_cards",
    render="mariash_env.games.voleny.render:TEXT",
    settlement="mariash_env.games.voleny.record:settlement",
    search_candidates="mariash_env.games.voleny.candidates:candidates",
    table_view="mariash_env.games.voleny.play:VIEW", world_inference=True,
    claim_actions=(A.LAY_DOWN,),
    hidden_info="mariash_env.games.voleny.hidden:HIDDEN",
    seat_records="mariash_env.games.voleny.seat_record:VOLENY",
    symmetry="mariash_env.games.voleny.symmetry:SYMMETRY",
    deal_bounds="mariash_env.games.voleny.hidden:deal_bounds",
    replay="mariash_env.records:replay_record", title="volený mariáš", units="groše",
    # the first game's env kept its name (volený at four is an option of it, as PettingZoo
    # keeps a game's name over its num_players)
    env_name="mariash_v0",
    seat_layouts=(SeatLayout(4, Q.OBS4_SIZE, Q.STATE4_OBS_SIZE, Q.OBS4_LAYOUT, Q.encode4,
                             Q.observe_into4, opens_with_default=True),),
    # every shipped model of the game, oldest first (robot_voleny_seated3.onnx is `net`)
    ladder_robots=("random", "table", "onnx:models/robot.onnx",
                   "onnx:models/robot_distilled.onnx", "onnx:models/robot_distilled_bid.onnx",
                   "onnx:models/robot_distilled_dagger.onnx",
                   "onnx:models/robot_distilled_dagger2.onnx",
                   "onnx:models/robot_voleny_deal.onnx", "onnx:models/robot_voleny_deal2.onnx",
                   "onnx:models/robot_voleny_deal3.onnx",
                   "onnx:models/robot_voleny_seated3.onnx", "strong"),
    # PIMC at a tenth of its default time, so that a best-response match fits
    probe_robots=("random", "table", "net", "strong", "pimc(worlds=8, time_limit=0.05)"),
    # the best network alone (issue #35): robot_voleny_deal3.onnx after labels valued over
    # the arena's seatings and two policy-iteration steps on the actor's card play
    # (models/ROBOT_VOLENY_SEATED3.md), level with PIMC, ahead of it against the table
    # robot and head to head; robot_distilled_dagger2.onnx stays in the ladder
    net="onnx:models/robot_voleny_seated3.onnx",
    # issue #16's strong cheap robot, measured in docs/nnpimc.md: the network's bidding
    # and first three tricks of suit games, exact PIMC on uniform worlds after; the network
    # is `net` (issue #35: +5.54 [+3.86, +7.24] against PIMC over 2000 deals, where the
    # same preset with robot_voleny_deal.onnx had +3.95 over 1000)
    strong="nnpimc(model='models/robot_voleny_seated3.onnx', bidding='network', "
           "from_trick=3, nt_from_trick=0, inference=False, worlds=6)")
