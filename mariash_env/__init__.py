"""mariash_env — volený mariáš for reinforcement learning.

``mariash_env.env()`` / ``raw_env()`` give the PettingZoo AEC environment;
``mariash_env.vector`` the batched engine; ``mariash_env.robots`` opponents;
``mariash_env.search`` hidden-hand sampling and a double-dummy solver;
``mariash_env.lizany`` the two-player game (its own small AEC environment).  The
environment package never imports torch.
"""

from . import lizany
from .actions import ACTION_LABELS, N_ACTIONS, ActionError, action_index, action_label
from .cards import CARD_CODES, CardError
from .env import AGENTS, AGENTS4, PHASE_NAMES, env, raw_env
from .game import Game, IllegalActionError, OptionError
from .rules import Rules, RulesError, make_rules

__all__ = [
    "env", "raw_env", "AGENTS", "AGENTS4", "PHASE_NAMES", "Game", "IllegalActionError", "OptionError", "Rules",
    "RulesError", "make_rules", "ACTION_LABELS", "N_ACTIONS", "action_index", "action_label",
    "CARD_CODES", "CardError", "ActionError", "lizany",
]
__version__ = "0.1.0"
