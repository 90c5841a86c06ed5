"""The twelve games of licitovaný mariáš (LICITOVANY.md §3), as constant tables.

A game id is 1..12 in bidding order (a later game is higher; 0 = none).  Every array
is indexed by the id and frozen into the compiled core; the names serve the labels.
"""

from __future__ import annotations

import numpy as np

from ...core.state import C_BETL, C_DURCH, C_SUIT, K_GAME, K_HUNDRED, K_SEVEN, K_TWO_SEVENS

NGAMES = 12
GAME_IDS = ("sedma", "lepsi_sedma", "sto", "sto_sedma", "lepsi_sto", "lepsi_sto_sedma", "betl",
            "durch", "dve_sedmy", "dve_sedmy_sto", "lepsi_dve_sedmy", "lepsi_dve_sedmy_sto")
GAME_NAMES_CZ = ("sedma", "lepší sedma", "stovka", "sto a sedm", "lepší stovka",
                 "lepší sto a sedm", "betl", "durch", "dvě sedmy", "dvě sedmy a sto",
                 "lepší dvě sedmy", "lepší dvě sedmy a sto")
(G_SEDMA, G_LEPSI_SEDMA, G_STO, G_STO_SEDMA, G_LEPSI_STO, G_LEPSI_STO_SEDMA, G_BETL, G_DURCH,
 G_DVE, G_DVE_STO, G_LEPSI_DVE, G_LEPSI_DVE_STO) = range(1, 13)

_G, _7, _100, _77 = 1 << K_GAME, 1 << K_SEVEN, 1 << K_HUNDRED, 1 << K_TWO_SEVENS
# Components of each game (bits K_*), §3's table.
COMPONENTS = np.array([0, _G | _7, _G | _7, _100, _100 | _7, _100, _100 | _7, _G, _G, _77,
                       _77 | _100, _77, _77 | _100], dtype=np.int64)
# Contract kind (CONTRACT) of each game: suit games, betl, durch.
KIND = np.array([0] + [C_SUIT] * 6 + [C_BETL, C_DURCH] + [C_SUIT] * 4, dtype=np.int64)
# Lepší: hearts trumps and H = 2 on game, seven and hundred (§3).
HEARTS = np.array([0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1], dtype=np.int64)
del _G, _7, _100, _77


def game_id(name: str) -> int:
    """1..12 for a game id of §3 (``"sto_sedma"``); ValueError for anything else."""
    try:
        return GAME_IDS.index(name) + 1
    except ValueError:
        raise ValueError(f"unknown licitovaný game {name!r}: expected one of "
                         f"{list(GAME_IDS)}") from None
