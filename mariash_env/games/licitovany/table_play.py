"""The licitovaný observation as the table robot's compiled card-play view.

:func:`decode_licit` fills the view array of
:mod:`mariash_env.games.voleny.table_play` from a seat's licitovaný observation and action
mask, as :func:`~mariash_env.games.licitovany.table_robot.card_play_view` builds the
:class:`~mariash_env.robots.card_view.CardPlayView` (contract kind and trumps of the
announced game, the announcement its components make, the tricks and the legal cards), so
that the card choice of :func:`~mariash_env.games.voleny.table_play.choose_card` reads it
without leaving compiled code.
"""

from __future__ import annotations

from ...core.jit import njit_generic
from ...core.state import (
    AN_HRA,
    AN_SEDMA,
    AN_STO,
    AN_STO_SEDMA,
    C_SUIT,
    K_HUNDRED,
    K_SEVEN,
    K_TWO_SEVENS,
)
from ..voleny.table_play import (
    V_ACTOR,
    V_ANNOUNCE,
    V_CONTRACT,
    V_HAND,
    V_LEGAL,
    V_TALON,
    V_TRUMP,
    bits32,
    first_marriage,
    first_set,
    legal_cards,
    read_tricks,
)
from . import observe as LO
from .actions import PLAY0
from .games import COMPONENTS, KIND


@njit_generic
def _announcement(contract, comp):
    """The volený announcement (``AN_*``) a licitovaný game's components ``comp`` make in
    a suit game (the hundred as sto, a seven or two sevens as sedma), 0 otherwise."""
    if contract != C_SUIT:
        return 0
    seven = comp & ((1 << K_SEVEN) | (1 << K_TWO_SEVENS))
    if comp & (1 << K_HUNDRED):
        return AN_STO_SEDMA if seven else AN_STO
    return AN_SEDMA if seven else AN_HRA


_PLAY_SLOT = 9  # the phase block's "play" slot (table_robot._PHASE_SLOTS)


@njit_generic
def decode_licit(obs, mask, v):
    """The view array of a licitovaný observation and action mask (module docstring)."""
    g = first_set(obs, LO.LO_GAME, 12) + 1
    contract = KIND[g] if g > 0 else 0
    ts = first_set(obs, LO.LO_TRUMP_SUIT, 4)
    trump = ts if contract == 0 or contract == C_SUIT else -1
    announce = _announcement(contract, COMPONENTS[g] if g > 0 else 0)
    v[V_HAND] = bits32(obs, LO.LO_HAND)
    v[V_TALON] = bits32(obs, LO.LO_TALON)
    v[V_CONTRACT] = contract
    v[V_TRUMP] = trump
    v[V_ANNOUNCE] = announce
    v[V_ACTOR] = first_set(obs, LO.LO_ACTOR, 3)
    first_marriage(obs, LO.LO_FIRST_MARRIAGE, v)
    v[V_LEGAL] = legal_cards(mask, PLAY0)
    read_tricks(obs, LO.LO_PLAYED_BY, LO.LO_PLAYED_IN, LO.LO_TRICK_LEADER, LO.LO_CUR_TRICK,
                first_set(obs, LO.LO_PHASE, 11) == _PLAY_SLOT, trump, v)
