"""The typed view a table robot's flek and card play read (issue #30).

:class:`CardPlayView` holds exactly what the volený
:class:`~mariash_env.games.voleny.table_robot.TableRobot`'s flek rules and card play
read, in game terms rather than observation slots: the own hand, the trump suit, the
contract kind and who plays it, the tricks so far and the one on the table, the voids
they showed, the first marriages, the stake.  Each game builds it from its own
observation -- volený from :func:`~mariash_env.robots.features.decode`
(:meth:`CardPlayView.of_info`), licitovaný from its own layout
(:func:`mariash_env.games.licitovany.table_robot.card_play_view`) -- so no robot reads
another game's vector.  Seats are relative to the observer (0 me, 1 next, 2 after; -1
none), card sets are 32-bit masks (bit ``c`` = card ``c``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..games.voleny import actions as A
from ..games.voleny import table_play as P
from .features import ALL_CARDS, ObsInfo, Trick

__all__ = ["CardPlayView"]


@dataclass(frozen=True)
class CardPlayView:
    """What a seat knows at its flek or card-play turn.  ``contract`` is a ``C_*`` kind of
    :mod:`mariash_env.core.state` (0 before one is named), ``announce`` an ``AN_*`` of a
    suit game (0 otherwise); the stake is per volený bet (``B_*``): ``bet_exists``,
    ``bet_level`` (0 none, 1 played, 2 flek, ...), ``raisable`` (bit per bet this turn may
    raise) and ``flek_round`` (1 the defence's first answer, 2 the actor's, 3 later)."""

    hand: int
    talon: int  # the talon this seat laid (cards no other hand holds), else 0
    played_by: tuple[int, int, int]  # [rel seat] cards played
    played: int
    tricks: tuple[Trick, ...]  # complete tricks, in order
    cur: Trick | None  # the trick on the table (only in the card play)
    trick_no: int  # 0..9
    contract: int
    trump: int  # the trump suit as known to me, -1 in betl / durch or unknown
    announce: int
    actor: int  # rel seat of the actor, -1 none
    first_marriage: tuple[int, int]  # [actor side, defence side] -> suit, -1
    voids: tuple[int, int, int]  # [rel seat] suits it showed it lacks (bit per suit)
    legal: int  # the cards this seat may play now
    bet_exists: tuple[bool, bool, bool, bool] = (False, False, False, False)
    bet_level: tuple[int, int, int, int] = (0, 0, 0, 0)
    raisable: int = 0
    flek_round: int = 0

    def unknown(self) -> int:
        """Cards whose holder I do not know (the other hands and a talon I did not lay)."""
        return ALL_CARDS & ~(self.hand | self.played | self.talon)

    @classmethod
    def of_info(cls, o: ObsInfo) -> CardPlayView:
        """The view of a decoded volený observation (the ``play:`` slots of its mask are
        the legal cards)."""
        legal = 0
        for a in o.legal:
            if A.PLAY0 <= a < A.PLAY0 + 32:
                legal |= 1 << (a - A.PLAY0)
        return cls(hand=o.hand, talon=o.talon, played_by=o.played_by, played=o.played,
                   tricks=tuple(o.tricks), cur=o.cur, trick_no=o.trick_no,
                   contract=o.contract, trump=o.trump, announce=o.announce, actor=o.actor,
                   first_marriage=o.first_marriage,
                   voids=(o.voids[0], o.voids[1], o.voids[2]), legal=legal,
                   bet_exists=o.bet_exists, bet_level=o.bet_level, raisable=o.raisable,
                   flek_round=o.flek_round)

    @classmethod
    def of_array(cls, v, **stake) -> CardPlayView:
        """The view the compiled decoders wrote as a view array ``v`` (layout
        :mod:`mariash_env.games.voleny.table_play`); ``stake``: the flek fields."""
        x = v.tolist()  # Python ints, read fastest

        def trick(k: int) -> Trick:
            base = P.V_TRICKS + P.TRICK_SLOTS * k
            n = x[base + P.T_N]
            return Trick(x[base + P.T_LEADER], x[base + P.T_CARDS:base + P.T_CARDS + n],
                         x[base + P.T_BY:base + P.T_BY + n])

        return cls(hand=x[P.V_HAND], talon=x[P.V_TALON],
                   played_by=tuple(x[P.V_PLAYED_BY:P.V_PLAYED_BY + 3]),  # type: ignore[arg-type]
                   played=x[P.V_PLAYED],
                   tricks=tuple(trick(k) for k in range(x[P.V_NTRICKS])),
                   cur=trick(P.CUR_TRICK) if x[P.V_HAS_CUR] else None,
                   trick_no=x[P.V_TRICK_NO], contract=x[P.V_CONTRACT], trump=x[P.V_TRUMP],
                   announce=x[P.V_ANNOUNCE], actor=x[P.V_ACTOR],
                   first_marriage=tuple(  # type: ignore[arg-type]
                       x[P.V_FIRST_MARRIAGE:P.V_FIRST_MARRIAGE + 2]),
                   voids=tuple(x[P.V_VOIDS:P.V_VOIDS + 3]),  # type: ignore[arg-type]
                   legal=x[P.V_LEGAL], **stake)
