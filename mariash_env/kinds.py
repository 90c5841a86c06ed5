"""The two games of the engine side by side: what a front end needs to know of each
(action table, observation layout, compiled encoders), picked by ``rules.rules``.

Both run the one rules core (:mod:`mariash_env.core`); a front end asks
:func:`kind_of` for the table it drives instead of importing one game's modules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import actions as A
from . import licit_actions as LA
from .core import licit_observe as LO
from .core import observe as O
from .core.state import PHASE_NAMES
from .rules import G_LICIT, Rules


@dataclass(frozen=True)
class GameKind:
    """One game's public tables and compiled encoders."""

    name: str
    game: int  # G_VOLENY / G_LICIT (the rules vector's R_GAME)
    n_actions: int
    labels: tuple[str, ...]
    action_index: Callable[[str], int]
    action_label: Callable[[int], str]
    obs_size: int
    state_obs_size: int
    obs_version: int
    obs_layout: tuple[tuple[str, int, int, str], ...]
    encode: Any  # njit (st, me, out, omniscient)
    observe_into: Any  # njit (st, rules, me, out, mask)
    unit: str  # what rewards count: groše or desetníky
    phase_names: tuple[str, ...]  # the slots of the observation's ``phase`` one-hot

    def phase_of(self, obs: Any) -> Any:
        """Index into :attr:`phase_names` of each observation row (``obs``: float[B, obs])."""
        off = next(o for name, o, _, _ in self.obs_layout if name == "phase")
        return obs[:, off:off + len(self.phase_names)].argmax(1)


VOLENY = GameKind("voleny", 0, A.N_ACTIONS, A.ACTION_LABELS, A.action_index, A.action_label,
                  O.OBS_SIZE, O.STATE_OBS_SIZE, O.OBS_VERSION, O.OBS_LAYOUT, O.encode,
                  O.observe_into, "groš",
                  PHASE_NAMES[:next(n for b, _, n, _ in O.OBS_LAYOUT if b == "phase")])
LICITOVANY = GameKind("licitovany", G_LICIT, LA.N_ACTIONS, LA.ACTION_LABELS, LA.action_index,
                      LA.action_label, LO.LOBS_SIZE, LO.LSTATE_OBS_SIZE, LO.LOBS_VERSION,
                      LO.LOBS_LAYOUT, LO.encode_licit, LO.observe_licit, "desetník",
                      LO.LOBS_PHASES)
KINDS = {k.name: k for k in (VOLENY, LICITOVANY)}


def kind_of(rules: Rules | str) -> GameKind:
    """The :class:`GameKind` of a :class:`~mariash_env.rules.Rules` or a game name."""
    name = rules if isinstance(rules, str) else rules.rules
    return KINDS[name]
