"""Volený seat records at the four-player table (``rules: {"players": 4}``, RULES.md §11.3).

A deal at four is the three-seat deal of the players after the dealer, who sits out
(:mod:`mariash_env.games.voleny.four`), so a four-player record is the three-seat record
of :mod:`mariash_env.games.voleny.seat_record` in the four players' numbers::

    {"rules": {"players": 4, ...},
     "deal": 5, "scores": [12, -4, 0, -8],  # optional: the four players' partie totals
     "dealer": 3,                           # the player who deals and sits out
     "seat": 1,                             # the player the robot plays: not the dealer
     "hand": [...],                         # its cards as dealt (12 for forehand, the
                                            # player after the dealer)
     "actions": [[0, "trump:?"], ...],      # [player, label]
     "marriages": [[1, "Kh"], ...], ...}    # [player, card]; the other fields as at three

:func:`renumbered` checks the players' numbers (0..3, never the dealer's) and renumbers
the deal's seats from forehand (deal seat ``(p - dealer - 1) % 4``); volený's reader
(:func:`mariash_env.games.voleny.seat_record.view`) replays that three-seat record through
the engine as at three, and :func:`lifted` makes its view one of the four-player state
(the dealer and the four totals set), so a searching robot values the four-player
settlement; an error of the replay names the deal's seats and the players that hold them.
:func:`deal_of` and :func:`by_player` let volený's writer write a player's record of a
four-player :class:`~mariash_env.Game`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ...core import state as S
from ...robots.view import SeatView
from ...rules import is_int
from ...seat_record import SeatRecordError, seat_to_move
from .four import mirror_scores, payment4, player_of

if TYPE_CHECKING:
    from ...game import Game

PLAYERS = 4


def _player(value: Any, field: str, dealer: int | None = None) -> int:
    if not is_int(value) or not 0 <= value < PLAYERS:
        raise SeatRecordError(f"{value!r}: expected a player 0, 1, 2 or 3", field)
    if dealer is not None and value == dealer:
        raise SeatRecordError(f"{value!r}: player {dealer} deals and sits out this deal "
                              "(RULES.md §11.3): it holds no cards and makes no decision",
                              field)
    return int(value)


def renumbered(record: dict[str, Any], rules: Any) -> tuple[dict[str, Any], int, list[int]]:
    """The three-seat record of a four-player one, the dealer and the four totals."""
    if "dealer" not in record or "seat" not in record:
        return record, 0, [0] * PLAYERS  # the three-seat parser names what is missing
    dealer = _player(record["dealer"], "dealer")
    seat = _player(record["seat"], "seat", dealer)
    scores = record.get("scores", [0] * PLAYERS)
    if (not isinstance(scores, list) or len(scores) != PLAYERS
            or not all(map(is_int, scores)) or sum(scores) != 0
            or max(map(abs, scores)) >= 2**62):
        raise SeatRecordError(f"{scores!r}: expected the four players' totals, 4 ints "
                              "summing to 0 (groše, |x| < 2^62)", "scores")

    def deal_seat(p: int) -> int:
        return (p - dealer - 1) % PLAYERS

    def pairs(field: str, what: str) -> list[Any]:
        items = record.get(field, [])
        if not isinstance(items, list):
            return items  # the three-seat parser names it
        out = []
        for i, item in enumerate(items):
            if isinstance(item, list) and len(item) == 2:
                who = _player(item[0], field, dealer) if is_int(item[0]) else item[0]
                if not is_int(who):
                    raise SeatRecordError(f"{what} #{i} {item!r}: expected a player 0..3",
                                          field)
                item = [deal_seat(who), item[1]]
            out.append(item)
        return out

    opts = {k: v for k, v in record.get("rules", {}).items() if k != "players"}
    three = {**record, "rules": {**opts, "deals": rules.deals}, "dealer": 2,
             "seat": deal_seat(seat), "scores": [0, 0, 0],
             "actions": pairs("actions", "action"), "marriages": pairs("marriages",
                                                                       "marriage")}
    return three, dealer, [int(x) for x in scores]


def lifted(view3: Any, record: Any, rng: Any, dealer: int, scores: list[int],
           rules: Any) -> SeatView:
    """The four-player view of a renumbered record: ``view3(three, rng)`` (the three-seat
    replay) of the deal, the dealer and the four totals set; an error of the replay names
    the deal's seats and the players that hold them."""
    try:
        seen = view3(record, rng)
    except SeatRecordError as e:
        if "seat" not in e.message:
            raise
        players = ", ".join(f"{c} = player {(dealer + 1 + c) % PLAYERS}" for c in range(3))
        raise SeatRecordError(f"{e.message} (the deal's seats from forehand: {players})",
                              e.field) from None
    st = seen._st.copy()
    st[S.P4_DEALER] = dealer
    for p, x in enumerate(scores):
        S.set64(st, S.P4_SCORE + 2 * p, x)
    mirror_scores(st)
    return seat_to_move(st, seen.seat, rules)


def deal_of(game: Game, seat: int | None) -> tuple[Any, int]:
    """The three-seat deal of a four-player game (what the three-seat record writer reads:
    the game's seats renumbered from forehand) and the seat of player ``seat`` (default:
    the player to move) in it."""
    st = game.st
    player = game.to_move if seat is None else _player(seat, "seat", int(st[S.P4_DEALER]))
    core = game.core_seat(player)
    deal = SimpleNamespace(st=st, to_move=core, deal_no=game.deal_no, rv=game.rv,
                           rules=game.rules,
                           history=[(game.core_seat(p), a) for p, a in game.history])
    return deal, core


def by_player(out: dict[str, Any], game: Game) -> dict[str, Any]:
    """A three-seat record of a four-player game's deal in the four players' numbers."""
    st = game.st
    totals = [int(x) for x in S.read64(st, S.P4_SCORE, PLAYERS)]
    if st[S.SETTLED]:  # the totals before this deal
        totals = [x - int(payment4(st, p)) for p, x in enumerate(totals)]
    out.update(rules=game.rules.to_dict(), scores=totals, dealer=int(st[S.P4_DEALER]),
               seat=int(player_of(st, out["seat"])),
               actions=[[int(player_of(st, c)), label] for c, label in out["actions"]],
               marriages=[[int(player_of(st, c)), card] for c, card in out["marriages"]])
    return out


__all__ = ["renumbered", "lifted", "deal_of", "by_player"]
