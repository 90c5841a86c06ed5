"""mariash_env — mariáš for reinforcement learning: volený mariáš (three players, and
four with the dealer sitting out), licitovaný mariáš (the auction game) and lízaný mariáš
(two players), each a game package under :mod:`mariash_env.games` behind one registry.

``mariash_env.env()`` / ``raw_env()`` give the PettingZoo AEC environment (``rules=``
names the game); ``mariash_env.vector`` the batched engine, ``torchrl_env`` a TorchRL env
over it and ``mariash_env.gym_vector`` a Gymnasium vector env; ``SingleAgentEnv`` (also
``gymnasium.make("mariash/SingleAgent-v0")``) one learning seat against robots, and
``gymnasium.make_vec("mariash/SelfPlay-v0", num_envs)`` the Gymnasium vector env;
``mariash_env.robots`` opponents; ``mariash_env.search`` hidden-hand sampling and a
double-dummy solver.  The environment package never imports torch (``torchrl_env``
imports torchrl only when called).
"""

from .cards import CARD_CODES, CardError
from .env import AGENTS, AGENTS4, PHASE_NAMES, env, parallel_env, raw_env
from .game import Game, IllegalActionError, OptionError
from .games.lizany import game as lizany
from .games.voleny.actions import ACTION_LABELS, N_ACTIONS, ActionError, action_index, action_label
from .rules import Rules, RulesError, make_rules
from .torchrl_env import torchrl_env

__all__ = [
    "env", "raw_env", "parallel_env", "AGENTS", "AGENTS4", "PHASE_NAMES", "Game",
    "IllegalActionError", "OptionError", "Rules",
    "RulesError", "make_rules", "ACTION_LABELS", "N_ACTIONS", "action_index", "action_label",
    "CARD_CODES", "CardError", "ActionError", "lizany", "SingleAgentEnv", "torchrl_env",
]
__version__ = "0.2.0"


def __getattr__(name: str):
    # The single-agent env builds robots (onnxruntime): imported on first use, not with
    # the package.
    if name == "SingleAgentEnv":
        from .single_agent import SingleAgentEnv
        return SingleAgentEnv
    if name == "warmup":  # the search kernels compiled ahead (mariash_env.compile)
        from .compile import warmup
        return warmup
    raise AttributeError(f"module 'mariash_env' has no attribute {name!r}")


def _register_with_gymnasium() -> None:
    import gymnasium

    if "mariash/SingleAgent-v0" not in gymnasium.registry:
        gymnasium.register("mariash/SingleAgent-v0",
                           entry_point="mariash_env.single_agent:SingleAgentEnv")
    # The compiled engine's self-play batch, a vector env only (no single env to make):
    # gymnasium.make_vec("mariash/SelfPlay-v0", num_envs=N, **rules) is GymVectorEnv.
    if "mariash/SelfPlay-v0" not in gymnasium.registry:
        gymnasium.register("mariash/SelfPlay-v0",
                           vector_entry_point="mariash_env.gym_vector:GymVectorEnv")


_register_with_gymnasium()

# The robots' package is initialised with mariash_env: each game's table robot imports
# robots.base, whose package imports the table robots, so a first import of a table
# robot's module (mariash_env.games.voleny.table_robot) must find that package complete.
from . import robots as robots  # noqa: E402
