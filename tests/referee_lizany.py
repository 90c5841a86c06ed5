"""A second reading of the lízaný rules: a referee written from the texts alone.

Written from the project's rule texts without reading the engine: ``docs/games/lizany.md``
("Its rules", cited "Z"), the seed's line on the two-player game (``seeds/004``: "8 cards
each, the rest form a stock. Draw after each trick; once the stock is empty, follow suit
and beat if you can"), the parts of ``RULES.md`` that lízaný shares ("R§n": the cards,
their order and points, R§1; following and beating, R§6 and R§12's "trumped"; marriages,
R§7) and the ``play:<card>`` labels of ``INTERFACE.md``.  It shares no code with
``mariash_env`` and imports nothing from it.  ``tests/test_referee_lizany.py`` plays the
env against it.

It follows one deal from its deck and the labels played and answers, at every step: the
seat to move and its legal labels; the phase (``stock`` while cards are left to draw,
``endgame`` once the stock is gone, ``done``); what each seat may see (its own hand, the
trump card while it lies under the stock, the cards played, the card on the table and the
opponent's cards it knows from play: the trump card once the opponent drew it, the partner
of a marriage the opponent announced); and at the end the settlement: card points, the
last trick, marriages, points, tricks, the winner and the rewards.

Sections implemented:

- Z "Deal": deck positions 0–7 to seat 0, 8–15 to seat 1, 16 the turned-up trump card
  (names trumps, drawn last), 17–31 the stock, drawn from position 17 on; seat 0 leads the
  first trick.
- Z "While the stock lasts" (tricks 1–8): any card; the higher card of the led suit or the
  higher trump wins (R§1 order ``7 8 9 J Q K T A`` in every suit); the winner draws first,
  then the other; the winner leads; the loser of the 8th trick draws the trump card.
- Z "Stock empty" (tricks 9–16), R§6: follow suit and beat if you can, else a trump if you
  can (on a trump lead that cannot happen), else any card.
- Z "Marriages", R§7: playing a K or Q while holding the other of its suit is 20, 40 in
  trumps, for its player, leading or following, whoever takes the trick.
- Z "Points and reward": aces and tens 10, the last trick 10, plus marriages; more points
  wins ±1, ±2 when the loser took no trick; equal points: the last trick's winner wins.
- Z "Not played": no exchange of the trump seven, no closing; the only labels are the 32
  ``play:<card>``.

The game defines no next deal: an episode is one deal, dealt from a fresh deck, seat 0
leading (Z "Deal"; "Compiled core": ``deals=1``), so there is no gathering or dealer to
predict.
"""

from __future__ import annotations

from typing import Any

SUITS = "hbla"
RANKS = "789TJQKA"
CARDS = [r + s for s in SUITS for r in RANKS]  # the canonical index order (R§1)
ORDER = "789JQKTA"  # R§1: suit-game order, ten just below the ace

Settlement = dict[str, Any]


def suit(c: str) -> str:
    return c[1]


def rank(c: str) -> str:
    return c[0]


def card_points(c: str) -> int:
    return 10 if rank(c) in "AT" else 0


def beats(new: str, old: str, trump: str) -> bool:
    """Z: ``new`` played after ``old`` (the card winning so far) takes over the trick."""
    if suit(new) == suit(old):
        return ORDER.index(rank(new)) > ORDER.index(rank(old))
    return suit(new) == trump


class Referee:
    """One lízaný deal, stepped by ``play:<card>`` labels.

    ``seat`` is the seat to move (None once over), ``legal()`` its labels, ``step(label)``
    plays one; ``known(s)`` the cards of seat ``s`` its opponent knows; once ``done``,
    ``settlement`` holds the result.  ``events`` collects rare situations the deal went
    through, for the tests' coverage floor.
    """

    def __init__(self, deck: list[str]) -> None:
        assert len(deck) == 32 and len(set(deck)) == 32 and set(deck) == set(CARDS)
        self.deck = list(deck)
        self.hands: list[list[str]] = [list(deck[0:8]), list(deck[8:16])]
        self.trump_card = deck[16]
        self.trump = suit(deck[16])
        self.stock: list[str] = list(deck[17:32]) + [deck[16]]  # drawing order, trump last
        self.leader = 0
        self.seat: int | None = 0
        self.table: list[tuple[int, str]] = []
        self.trick_no = 1  # 1-based, the trick being played
        self.tricks: list[tuple[int, list[tuple[int, str]], int]] = []  # (leader, cards, winner)
        self.taken: list[list[str]] = [[], []]
        self.played: list[list[str]] = [[], []]
        self.marriages: list[tuple[int, str, int]] = []  # (seat, suit, points), in order
        self._known: list[set[str]] = [set(), set()]
        self.draws: list[tuple[int, str]] = []  # (seat, card) in drawing order
        self.history: list[tuple[int, str]] = []
        self.events: set[str] = set()
        self.done = False
        self.settlement: Settlement | None = None

    # ------------------------------------------------------------------ state
    @property
    def phase(self) -> str:
        if self.done:
            return "done"
        return "stock" if self.stock else "endgame"

    def known(self, s: int) -> set[str]:
        """The cards in seat ``s``'s hand that its opponent knows from play."""
        return set(self._known[s])

    def marriage_points(self, s: int) -> int:
        return sum(p for m, _, p in self.marriages if m == s)

    def card_points_of(self, s: int) -> int:
        pts = sum(card_points(c) for c in self.taken[s])
        if self.tricks and len(self.tricks) == 16 and self.tricks[-1][2] == s:
            pts += 10
        return pts

    # ------------------------------------------------------------------ legality
    def legal_cards(self) -> list[str]:
        if self.done:
            return []
        assert self.seat is not None
        h = self.hands[self.seat]
        if not self.table or self.stock:  # leading, or the stock lasts: any card
            return list(h)
        led = self.table[0][1]
        same = [c for c in h if suit(c) == suit(led)]
        if same:  # R§6.1: follow, and beat if you can
            higher = [c for c in same if beats(c, led, self.trump)]
            return higher or same
        trumps = [c for c in h if suit(c) == self.trump]  # R§6.2 (the lead is no trump here)
        return trumps or list(h)

    def legal(self) -> set[str]:
        """The legal labels of the seat to move (empty once the deal is over)."""
        return {"play:" + c for c in self.legal_cards()}

    # ------------------------------------------------------------------ playing
    def step(self, label: str) -> None:
        assert not self.done, "the deal is over"
        assert label in self.legal(), (label, sorted(self.legal()))
        me = self.seat
        assert me is not None
        c = label[5:]
        h = self.hands[me]
        other = {"K": "Q", "Q": "K"}.get(rank(c))
        if other and other + suit(c) in h:  # R§7: a marriage, whoever takes the trick
            pts = 40 if suit(c) == self.trump else 20
            self.marriages.append((me, suit(c), pts))
            self._known[me].add(other + suit(c))
            self.events.add("marriage:" + ("trump" if pts == 40 else "plain")
                            + (":lead" if not self.table else ":follow"))
        h.remove(c)
        self._known[me].discard(c)
        self.played[me].append(c)
        self.history.append((me, label))
        self.table.append((me, c))
        if len(self.table) == 1:
            self.seat = 1 - me
            return
        (lead_seat, lead), (_, follow) = self.table
        winner = 1 - lead_seat if beats(follow, lead, self.trump) else lead_seat
        if suit(follow) == self.trump and suit(lead) != self.trump:
            self.events.add("trumped:" + self.phase)
        self.tricks.append((lead_seat, list(self.table), winner))
        self.taken[winner] += [lead, follow]
        self.table = []
        if self.stock:  # Z: the winner draws first, then the other
            for s in (winner, 1 - winner):
                card = self.stock.pop(0)
                self.hands[s].append(card)
                self.draws.append((s, card))
                if card == self.trump_card:
                    self._known[s].add(card)
                    self.events.add("trump_card_drawn_by_" + ("winner" if s == winner
                                                              else "loser"))
        self.trick_no += 1
        self.leader = winner
        self.seat = winner
        if len(self.tricks) == 16:
            self._finish()

    # ------------------------------------------------------------------ settlement
    def _finish(self) -> None:
        assert not self.hands[0] and not self.hands[1]
        self.done = True
        self.seat = None
        last = self.tricks[-1][2]
        cards = [sum(card_points(c) for c in self.taken[s]) + (10 if s == last else 0)
                 for s in (0, 1)]
        marr = [self.marriage_points(s) for s in (0, 1)]
        points = [cards[s] + marr[s] for s in (0, 1)]
        ntricks = [sum(1 for _, _, w in self.tricks if w == s) for s in (0, 1)]
        if points[0] != points[1]:
            winner = 0 if points[0] > points[1] else 1
        else:  # Z: equal points, the last trick's winner wins
            winner = last
            self.events.add("tie")
        loser = 1 - winner
        stake = 2 if ntricks[loser] == 0 else 1
        rewards = [0, 0]
        rewards[winner], rewards[loser] = stake, -stake
        if stake == 2:
            self.events.add("no_trick")
        if ntricks[winner] == 0:
            self.events.add("winner_took_no_trick")
        if winner != last:
            self.events.add("winner_lost_last_trick")
        self.settlement = {
            "card_points": cards, "marriage_points": marr, "points": points,
            "tricks": ntricks, "last_trick": last, "winner": winner,
            "marriages": [list(m) for m in self.marriages], "rewards": rewards,
        }
