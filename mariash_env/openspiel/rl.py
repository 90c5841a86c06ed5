"""OpenSpiel's ``rl_environment`` for parties of several deals: :class:`TurnRewardEnvironment`.

OpenSpiel's ``rl_environment.Environment`` puts ``state.rewards()`` into each time step,
and its agents (policy gradient, DQN, NFSP, ...) read ``time_step.rewards[player_id]``
only at their own turns and at the last step.  A deal of a partie is paid on the
decision that ends it and is visible until the next decision only
(:meth:`~mariash_env.openspiel.state.MariashState.rewards`), so with ``deals > 1`` the
plain environment gives each deal's payment to the next player to move alone: the
other seats never see it.  :class:`TurnRewardEnvironment` credits each player, in the
time step of its next turn (or the last one), everything it was paid since its previous
turn, and reports zero to the players not to move, so that both readings add up to
``returns()``: what an agent sees at its own turns and at the end, and the sum of every
time step's rewards.  For ``deals=1`` it is the plain environment (the only payment
comes at the end).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from open_spiel.python import rl_environment


class TurnRewardEnvironment(rl_environment.Environment):
    """``rl_environment.Environment`` whose time steps credit each player at its own turn.

    Takes the arguments of ``rl_environment.Environment``.  Each :meth:`step` adds the
    game's ``rewards()`` (read, as the base class does, after the chance nodes are
    resolved: the payment of the deal this step ended, once) to every player's account;
    the time step then reports the account of the player to move (and empties it), zero
    for the others; the last time step of an episode reports every player's account.
    So an agent reading ``time_step.rewards[player_id]`` at its turns and at the end
    receives every deal's payment once, on the transition from its last decision before
    the payment, and summing ``rewards`` over all time steps also gives ``returns()``.

    Turn-based games only.  :meth:`get_time_step` is the base class's (the state's own
    ``rewards()``); the credited rewards are those of :meth:`step`.
    """

    def __init__(self, game: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(game, *args, **kwargs)
        if not self.is_turn_based:
            raise ValueError("TurnRewardEnvironment takes turn-based games only")
        self._owed = np.zeros(self.num_players)

    def reset(self) -> rl_environment.TimeStep:
        self._owed = np.zeros(self.num_players)
        return super().reset()

    def step(self, actions: list[int]) -> rl_environment.TimeStep:
        ts = super().step(actions)  # a step after the last one resets: a FIRST step
        if ts.first():
            return ts
        self._owed += np.asarray(ts.rewards, dtype=np.float64)
        paid = [0.0] * self.num_players
        to = range(self.num_players) if ts.last() else [ts.observations["current_player"]]
        for p in to:
            paid[p], self._owed[p] = float(self._owed[p]), 0.0
        return ts._replace(rewards=paid)
