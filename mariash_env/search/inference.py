"""The other seats' card-play decisions in sampled worlds, for inference over worlds.

A world (:func:`mariash_env.search.sample_worlds`) agrees with everything one seat knows;
the other seats' recorded cards were chosen with *that world's* hands.  To ask a policy
how likely each of those choices was, :func:`other_decisions` rebuilds every world's card
play from its first trick (:func:`~mariash_env.search.worlds.play_start`), replays the
recorded cards with the core's ``apply_action`` and, before each card of another seat
that had a choice, writes that seat's observation in the world, its legal cards and the
card it played.  No rule is decided here: legality, marriages and trick winners are the
core's.  Volený mariáš (three seats) only.
"""

from __future__ import annotations

import numpy as np

from ..core.engine import apply_action, legal_actions
from ..core.jit import njit
from ..core.state import PH_PLAY, PHASE, STATE_SIZE
from ..core.tricks import cards_played, played_card
from ..games.registry import game_kind, games
from ..games.voleny import actions as A
from ..games.voleny.observe import OBS_SIZE, encode
from ..games.voleny.worlds import play_start
from ..rules import Rules, make_rules

__all__ = ["other_decisions"]

# Another seat plays at most 20 cards of a deal (two hands of ten).
_MAX_PER_WORLD = 20


@njit
def _decisions(worlds, seat, rules, obs, masks, acts, widx):
    m = np.zeros(A.N_ACTIONS, dtype=np.int8)
    n = 0
    for i in range(worlds.shape[0]):
        w = worlds[i]
        sc = play_start(w)
        for k in range(cards_played(w)):
            _, _, p, c = played_card(w, k)
            if p != seat:
                legal_actions(sc, rules, m)
                # Laying down (§8) ends the deal and says nothing of the hand: a card is
                # chosen among the cards.
                m[A.LAY_DOWN] = 0
                if m.sum() > 1:
                    encode(sc, p, obs[n], False)
                    masks[n] = m
                    acts[n] = A.PLAY0 + c
                    widx[n] = i
                    n += 1
            apply_action(sc, rules, A.PLAY0 + c)
    return n


def other_decisions(worlds: np.ndarray, seat: int, rules: Rules | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every card another seat than ``seat`` chose (it had two legal cards or more) in
    each of ``worlds`` (``int32[W, STATE_SIZE]``, phase play, volený):
    ``(obs float32[N, OBS_SIZE], mask int8[N, N_ACTIONS], action int64[N],
    world int64[N])`` -- that seat's observation in the world before the card, its legal
    cards (laying down left out), the card's action and the world's index, in play order.
    """
    rules = rules if rules is not None else make_rules()
    kind = game_kind(rules)
    if not kind.world_inference or rules.players != 3:  # the registry's (GameKind)
        raise ValueError(f"other_decisions: the games whose worlds replay the other "
                         f"seats' decisions "
                         f"({', '.join(k.name for k in games() if k.world_inference)}) with "
                         f"three players only, got rules={rules.rules!r}, "
                         f"players={rules.players}")
    worlds = np.ascontiguousarray(worlds, dtype=np.int32)
    if worlds.ndim != 2 or worlds.shape[1] != STATE_SIZE:
        raise ValueError(f"other_decisions: expected worlds int32[W, {STATE_SIZE}], got "
                         f"shape {worlds.shape}")
    if len(worlds) and (worlds[:, PHASE] != PH_PLAY).any():
        raise ValueError("other_decisions: every world must be in phase play")
    if not 0 <= seat < 3:
        raise ValueError(f"other_decisions: seat must be 0, 1 or 2, got {seat}")
    cap = len(worlds) * _MAX_PER_WORLD
    obs = np.zeros((cap, OBS_SIZE), dtype=np.float32)
    masks = np.zeros((cap, A.N_ACTIONS), dtype=np.int8)
    acts = np.zeros(cap, dtype=np.int64)
    widx = np.zeros(cap, dtype=np.int64)
    n = _decisions(worlds, int(seat), rules.vector(), obs, masks, acts, widx)
    return obs[:n], masks[:n], acts[:n], widx[:n]
