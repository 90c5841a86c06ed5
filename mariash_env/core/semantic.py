"""What a state record from outside the engine must hold in its phase (issue #30).

The codes of the compiled semantic check, shared by the generic part (in
:mod:`mariash_env.core.validate`) and each game's part (``games/<game>/validate.py``, chosen by
the dispatch of :mod:`.engine`): code ``k`` (1-based) names the field at fault and what
it must be, ``SEMANTIC[k - 1]``; 0 is a state its phase accepts.  Also the card counts
both games' parts test.
"""

from __future__ import annotations

import numpy as np

from .jit import njit_generic, popcount64
from .state import HAND, TALON

SEMANTIC = (
    ("deal_no", "a deal of the partie: below the rules' deals"),
    ("partie_done", "0 while a deal is in progress"),
    ("phase", "a phase of the game the rules name (volený 0..8, licitovaný 2, 6..15)"),
    ("forehand", "the seat after the dealer, (dealer + 1) % 3"),
    ("dealer", "seat 2 at four players (p4_dealer sits out), p4_dealer 0 at three"),
    ("bet_level", "at most the rules' max_flek, and 0 for a bet that does not exist"),
    ("flek_round", "at most the rounds the rules' max_flek allows (volený 1 + 4 * max_flek "
     "+ 2, licitovaný 3 * (4 * max_flek + 1) turns), and >= 1 in a volený flek phase"),
    ("trump_public", "0 before a trump card is chosen"),
    ("to_move", "the seat whose turn the phase gives (-1 exactly when the deal is over)"),
    ("hand", "the phase's card counts: 12 for the seat holding the talon (less its "
     "discards), 10 for the others; in play 10 - trick_no, less the card each seat has "
     "laid to the current trick"),
    ("talon", "the phase's talon: none before the discards, then the discards so far, "
     "then 2 cards"),
    ("trump_card", "a trump card once the trumps are chosen"),
    ("actor", "a seat once the contract has a player"),
    ("contract", "the contract the phase needs (a suit game to answer Barva? or announce, "
     "betl or durch to answer a betl, one of them from the discards on; licitovaný: the "
     "kind of lic_game)"),
    ("ndisc", "at most 1 while discarding, 0 before"),
    ("answers", "at most 1 while answering"),
    ("bet_exists", "the game bet exists once flekking starts"),
    ("raisable", "only bets that exist and are below max_flek (less raised_rnd)"),
    ("lic_holder", "the holder and the challenger: two different seats"),
    ("lic_high", "a standing bid whose needs its seat's cards meet (and one to hold)"),
    ("lic_drops", "at most 1 while bidding and holding"),
    ("lic_game", "the announced game the phase needs (trumps: a plain suit game, helping: "
     "two sevens, lead: betl or durch)"),
    ("lic_help", "in two sevens a helping suit other than trumps"),
    ("lic_quiet", "at most 2 while flekking"),
    ("lic_lead", "in betl or durch a lead card in the actor's hand"),
    ("trick_no", "0..9 during play"),
    ("leader", "a seat during play"),
    ("tricks", "the cards laid so far to the current trick"),
    ("phase", "a decision with at least one legal action"),
)
"""``(field, what it must be)`` of each code, code ``k`` at ``SEMANTIC[k - 1]``."""

(V_DEAL_NO, V_PARTIE_DONE, V_PHASE, V_FOREHAND, V_DEALER, V_BET_LEVEL, V_FLEK_ROUND,
 V_TRUMP_PUBLIC, V_TO_MOVE, V_HAND, V_TALON, V_TRUMP_CARD, V_ACTOR, V_CONTRACT, V_NDISC,
 V_ANSWERS, V_BET_EXISTS, V_RAISABLE, V_LIC_HOLDER, V_LIC_HIGH, V_LIC_DROPS, V_LIC_GAME,
 V_LIC_HELP, V_LIC_QUIET, V_LIC_LEAD, V_TRICK_NO, V_LEADER, V_TRICKS,
 V_NO_LEGAL) = range(1, len(SEMANTIC) + 1)


@njit_generic
def popc(st, off):
    """The number of cards in the card set at slot ``off``."""
    return popcount64(np.int64(st[off]) & 0xFFFFFFFF)


@njit_generic
def hands_are(st, big, nbig, talon):
    """The three hands hold 10 cards but seat ``big`` (``nbig``) and the talon ``talon``."""
    for s in range(3):
        if popc(st, HAND + s) != (nbig if s == big else 10):
            return False
    return popc(st, TALON) == talon
