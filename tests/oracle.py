"""An independent reference of RULES.md legality, written for the tests only.

It follows a deal from its deck and the actions taken, keeps its own plain
Python state (sets of card codes, lists of bets) and answers "which labels are
legal now?" and "is the deal over?".  It shares no code with the engine, so
comparing the two at every step checks the engine against a second reading of
the rules.
"""

from __future__ import annotations

RANKS = "789TJQKA"
TRUMP_ORDER = "789JQKTA"  # suit games (§1)
PLAIN_ORDER = "789TJQKA"  # betl, durch


def suit(c: str) -> str:
    return c[1]


def rank(c: str) -> str:
    return c[0]


class RefDeal:
    def __init__(self, deck: list[str], dealer: int, max_flek: int = 4, queen_first=False):
        self.deck = list(deck)
        self.dealer = dealer
        self.f = (dealer + 1) % 3
        self.max_flek = max_flek
        self.queen_first = queen_first
        seat_blocks = [(0, 7, 0), (7, 12, 1), (12, 17, 2), (17, 22, 0), (22, 27, 1), (27, 32, 2)]
        self.hands: list[set[str]] = [set(), set(), set()]
        for a, b, off in seat_blocks:
            self.hands[(self.f + off) % 3].update(deck[a:b])
        self.phase = "trump"
        self.to_move = self.f
        self.trump_card: str | None = None
        self.contract: str | None = None
        self.actor: int | None = None
        self.bad_seat: int | None = None
        self.chooser = self.f
        self.discards: list[str] = []
        self.talon: set[str] = set()
        self.talon_owner: int | None = None
        self.answers = 0
        self.betl_seat: int | None = None
        self.announce: str | None = None
        self.bets: dict[str, int] = {}  # bet -> level
        self.round = 0
        self.turn = 0
        self.raisable: set[str] = set()
        self.moved: set[str] = set()  # raised or announced this round
        self.raised_now: set[str] = set()
        self.played: set[str] = set()
        self.trick: list[tuple[int, str]] = []
        self.trick_no = 0
        self.leader: int | None = None
        self.tricks_won = [0, 0, 0]
        self.marr_side_announced = {0: False, 1: False}
        self.over = False

    # --- helpers ----------------------------------------------------------------------
    @property
    def trump(self) -> str | None:
        return suit(self.trump_card) if self.contract == "suit" and self.trump_card else None

    def stronger(self, a: str, b: str) -> bool:
        """Does a beat b (b currently winning)?"""
        order = TRUMP_ORDER if self.trump else PLAIN_ORDER
        if suit(a) == suit(b):
            return order.index(rank(a)) > order.index(rank(b))
        return self.trump is not None and suit(a) == self.trump

    def winning(self) -> str:
        best = self.trick[0][1]
        for _, c in self.trick[1:]:
            if self.stronger(c, best):
                best = c
        return best

    def has_marriage(self, hand: set[str]) -> bool:
        return any({"K" + s, "Q" + s} <= hand for s in "hbla")

    def side(self, seat: int) -> int:
        return 0 if seat == self.actor else 1

    def legal_cards(self, seat: int) -> set[str]:
        hand = self.hands[seat]
        if not self.trick:
            legal = set(hand)
        else:
            led = suit(self.trick[0][1])
            best = self.winning()
            follow = {c for c in hand if suit(c) == led}
            trumped = self.trump is not None and led != self.trump and suit(best) == self.trump
            if follow:
                if trumped:
                    legal = follow
                else:
                    beat = {c for c in follow if self.stronger(c, best)}
                    legal = beat or follow
            elif self.trump and any(suit(c) == self.trump for c in hand):
                tr = {c for c in hand if suit(c) == self.trump}
                if suit(best) == self.trump:
                    legal = {c for c in tr if self.stronger(c, best)} or tr
                else:
                    legal = tr
            else:
                legal = set(hand)
        seven = "7" + self.trump if self.trump else None
        if (seven and self.trick_no < 9 and ("seven" in self.bets or "seven_against" in self.bets)
                and seven in legal and len(legal) > 1):
            legal.discard(seven)
        return legal

    def outstanding(self, seat: int) -> set[str]:
        o = {r + s for s in "hbla" for r in RANKS} - self.hands[seat] - self.played
        if seat == self.actor:
            o -= self.talon
        return o

    def can_lay_down(self, seat: int) -> bool:
        if self.trick or seat != self.leader or not self.hands[seat]:
            return False
        o = self.outstanding(seat)
        hand = self.hands[seat]
        if self.contract == "suit":
            t = self.trump
            if any(suit(c) == t for c in o):
                return False
            for c in hand:
                if any(suit(x) == suit(c) and self.stronger(x, c) for x in o):
                    return False
            return not self.hundred_withheld(seat)
        if seat != self.actor:
            return False
        if self.contract == "durch":
            return all(not any(suit(x) == suit(c) and self.stronger(x, c) for x in o)
                       for c in hand)
        # betl: every card lower than every outstanding card of its suit
        for c in hand:
            if any(suit(x) == suit(c) and PLAIN_ORDER.index(rank(x)) < PLAIN_ORDER.index(rank(c))
                   for x in o):
                return False
        return any(suit(x) == suit(c) for c in hand for x in o)

    def hundred_withheld(self, claimer: int) -> bool:
        if self.announce in ("sto", "sto_sedma"):
            hside = 0
        elif "hundred_against" in self.bets:
            hside = 1
        else:
            return False
        if self.marr_side_announced[hside]:
            return False
        vals = set()
        for s in range(3):
            if self.side(s) == hside:
                for su in "hbla":
                    if {"K" + su, "Q" + su} <= self.hands[s]:
                        vals.add(40 if su == self.trump else 20)
        if len(vals) < 2:
            return False
        pts = sum(self.points[s] for s in range(3) if self.side(s) == hside)
        if self.side(claimer) == hside:
            rem = set().union(*self.hands)
            pts += 10 * sum(1 for c in rem if rank(c) in "TA") + 10
        return pts + min(vals) < 100

    # --- legality ---------------------------------------------------------------------
    def legal(self) -> set[str]:
        if self.over:
            return set()
        seat = self.to_move
        hand = self.hands[seat]
        p = self.phase
        if p == "trump":
            return {"trump:" + c for c in self.deck[:7]} | {"trump:blind"}
        if p == "contract":
            out = {"contract:betl", "contract:durch"}
            if self.bad_seat is None:
                out.add("contract:suit")
            return out
        if p == "discard":
            if self.contract == "suit":
                return {"discard:" + c for c in hand
                        if rank(c) not in "TA" and c != self.trump_card}
            return {"discard:" + c for c in hand}
        if p == "barva":
            return {"good", "bad"}
        if p == "betl_answer":
            return {"good", "contract:durch"}
        if p == "announce":
            s7 = "7" + suit(self.trump_card) in hand
            mar = self.has_marriage(hand)
            out = {"announce:hra"}
            if s7:
                out.add("announce:sedma")
            if mar:
                out.add("announce:sto")
            if s7 and mar:
                out.add("announce:sto_sedma")
            return out
        if p == "flek":
            out = {"good"}
            for b in self.raisable - self.raised_now:
                out.add("flek:" + b)
            if self.round == 1 and self.contract == "suit":
                if ("seven" not in self.bets and "seven_against" not in self.bets
                        and "7" + self.trump in hand):
                    out.add("against:seven")
                if (self.announce not in ("sto", "sto_sedma") and "hundred_against" not in self.bets
                        and self.has_marriage(hand)):
                    out.add("against:hundred")
            return out
        if p == "play":
            out = {"play:" + c for c in self.legal_cards(seat)}
            if self.can_lay_down(seat):
                out.add("lay_down")
            return out
        raise AssertionError(p)

    # --- effects ----------------------------------------------------------------------
    def _start_flek(self) -> None:
        self.bets.setdefault("game", 0)
        self.phase = "flek"
        self.round = 1
        self.turn = 0
        self.raisable = {b for b in ("game", "seven") if b in self.bets and self.max_flek > 0}
        self.moved = set()
        self.raised_now = set()
        self.to_move = (self.actor + 1) % 3

    def _end_flek(self) -> None:
        against = "seven_against" in self.bets or "hundred_against" in self.bets
        if self.contract == "suit" and not against:
            if self.announce == "hra" and self.bets["game"] == 0:
                self.over = True
                return
            if (self.announce == "sedma" and self.bets["game"] == 1
                    and self.bets["seven"] == 0):
                self.over = True
                return
        self.phase = "play"
        self.leader = self.f if self.contract == "suit" else self.actor
        self.to_move = self.leader
        self.points = [0, 0, 0]

    def apply(self, label: str) -> None:
        assert label in self.legal(), (label, sorted(self.legal()))
        seat = self.to_move
        p = self.phase
        kind, _, arg = label.partition(":")
        if p == "trump":
            self.trump_card = self.deck[17] if arg == "blind" else arg
            self.phase = "contract"
        elif p == "contract":
            self.contract = arg
            self.actor = seat
            self.betl_seat = seat if arg == "betl" else None
            self.phase = "discard"
            self.discards = []
        elif p == "discard":
            self.hands[seat].discard(arg)
            self.discards.append(arg)
            if len(self.discards) == 2:
                self.talon = set(self.discards)
                self.talon_owner = seat
                self.answers = 0
                if self.contract == "suit":
                    self.phase = "barva"
                    self.to_move = (self.f + 1) % 3
                elif self.contract == "betl":
                    self.phase = "betl_answer"
                    self.to_move = (seat + 1) % 3
                else:
                    self._start_flek()
        elif p == "barva":
            if label == "good":
                self.answers += 1
                if self.answers == 2:
                    self.phase = "announce"
                    self.to_move = self.f
                else:
                    self.to_move = (self.f + 2) % 3
            else:
                self.bad_seat = seat
                self.hands[seat] |= self.talon
                self.talon = set()
                self.contract = None
                self.phase = "contract"
        elif p == "betl_answer":
            if label == "good":
                self.answers += 1
                if self.answers == 2:
                    self._start_flek()
                else:
                    self.to_move = (self.betl_seat + 2) % 3
            else:
                self.hands[seat] |= self.talon
                self.talon = set()
                self.contract = "durch"
                self.actor = seat
                self.phase = "discard"
                self.discards = []
        elif p == "announce":
            self.announce = arg
            if arg in ("sedma", "sto_sedma"):
                self.bets["seven"] = 0
            self._start_flek()
        elif p == "flek":
            if label == "good":
                if self.round % 2 == 1 and self.turn == 0:
                    self.turn = 1
                    self.to_move = (self.actor + 2) % 3
                    return
                nxt = {b for b in self.moved if self.bets[b] < self.max_flek}
                if not nxt:
                    self._end_flek()
                    return
                self.round += 1
                self.raisable = nxt
                self.moved = set()
                self.raised_now = set()
                self.turn = 0
                self.to_move = (self.actor + 1) % 3 if self.round % 2 == 1 else self.actor
            elif kind == "against":
                b = "seven_against" if arg == "seven" else "hundred_against"
                self.bets[b] = 0
                self.moved.add(b)
            else:
                self.bets[arg] += 1
                self.moved.add(arg)
                self.raised_now.add(arg)
        elif p == "play":
            if label == "lay_down":
                self.over = True
                return
            c = arg
            if self.trump and rank(c) in "QK":
                other = ("K" if rank(c) == "Q" else "Q") + suit(c)
                if other in self.hands[seat] and not (self.queen_first and rank(c) == "K"):
                    self.marr_side_announced[self.side(seat)] = True
            self.hands[seat].discard(c)
            self.played.add(c)
            self.trick.append((seat, c))
            if len(self.trick) < 3:
                self.to_move = (seat + 1) % 3
                return
            best = self.winning()
            winner = next(s for s, c2 in self.trick if c2 == best)
            pts = 10 * sum(1 for _, c2 in self.trick if rank(c2) in "TA")
            self.trick_no += 1
            if self.trick_no == 10:
                pts += 10
            self.points[winner] += pts
            self.tricks_won[winner] += 1
            self.trick = []
            self.leader = winner
            self.to_move = winner
            if self.contract == "betl" and winner == self.actor:
                self.over = True
            elif self.contract == "durch" and winner != self.actor:
                self.over = True
            elif self.trick_no == 10:
                self.over = True
