"""A second reading of the licitovaný rules: a referee written from LICITOVANY.md alone.

An outside auditor wrote it from the normative spec (``LICITOVANY.md``, cited "L§n", and
the parts of ``RULES.md`` it refers to, "R§n") without reading the engine; it shares no
code with ``mariash_env`` and imports nothing from it.  It follows one deal from its deck
and the actions taken and answers the legal action labels at every step (L§12), the
settlement at the end (every component's level, outcome and amount, the points, the net
amount, the cap, a laid-game transfer, the payments) and the stack the next deal is cut
from.  ``tests/test_referee_licitovany.py`` plays the env against it.

Sections implemented: L§1 (seats, roles), L§2 and L§13 (deal positions, gathering, the
untaken talon), L§3 (the twelve games, their trumps and components), L§4 (the auction:
bid, hold, pass, forhond's last word), L§5 (T1–T5: game or fold, trumps, helping suit,
discards, the face-down lead), L§6 (flek turns and parity, max_flek, showing, the bare
game flek), L§7 (R§6's legal cards and trick winner, reserved sevens, betl and durch
ending early), L§8 (marriages, points, outcomes, the silent seven), L§9 (the settlement
table, the cap, the laid game), L§11 (max_flek, payment_cap, marriage order).
"""

from __future__ import annotations

from typing import Any

SUITS = "hbla"
RANKS = "789TJQKA"
CARDS = [r + s for s in SUITS for r in RANKS]  # the canonical index order (R§1)
TRUMP_ORDER = "789JQKTA"  # suit games (R§1)
PLAIN_ORDER = "789TJQKA"  # betl, durch

GAMES = ["sedma", "lepsi_sedma", "sto", "sto_sedma", "lepsi_sto", "lepsi_sto_sedma",
         "betl", "durch", "dve_sedmy", "dve_sedmy_sto", "lepsi_dve_sedmy",
         "lepsi_dve_sedmy_sto"]  # L§3, lowest first
GRANK = {g: i for i, g in enumerate(GAMES)}
LEPSI = {"lepsi_sedma", "lepsi_sto", "lepsi_sto_sedma", "lepsi_dve_sedmy",
         "lepsi_dve_sedmy_sto"}
NOTRUMP = {"betl", "durch"}
SEVEN_GAMES = {"sedma", "lepsi_sedma", "sto_sedma", "lepsi_sto_sedma"}
TWO_SEVENS = {"dve_sedmy", "dve_sedmy_sto", "lepsi_dve_sedmy", "lepsi_dve_sedmy_sto"}
HUNDRED_GAMES = {"sto", "sto_sedma", "lepsi_sto", "lepsi_sto_sedma", "dve_sedmy_sto",
                 "lepsi_dve_sedmy_sto"}
GAME_COMP = {"sedma", "lepsi_sedma"}  # the only games with a game component (L§3)

Settlement = dict[str, Any]


def components(g: str) -> list[str]:
    """L§3: the components of game ``g``."""
    if g in GAME_COMP:
        return ["game", "seven"]
    if g in ("sto", "lepsi_sto"):
        return ["hundred"]
    if g in ("sto_sedma", "lepsi_sto_sedma"):
        return ["hundred", "seven"]
    if g in NOTRUMP:
        return ["game"]
    if g in ("dve_sedmy", "lepsi_dve_sedmy"):
        return ["two_sevens"]
    return ["two_sevens", "hundred"]


def suit(c: str) -> str:
    return c[1]


def rank(c: str) -> str:
    return c[0]


def trump_suits_for(g: str) -> list[str]:
    """L§3: lepší games are in hearts, plain suit games in b, l or a."""
    if g in NOTRUMP:
        return []
    if g in LEPSI:
        return ["h"]
    return ["b", "l", "a"]


def needs_met_with_trump(g: str, hand: list[str], x: str) -> bool:
    """L§4/L§5: a seven needs the trump 7, two sevens also a 7 of another suit."""
    held = set(hand)
    if g in SEVEN_GAMES:
        return ("7" + x) in held
    if g in TWO_SEVENS:
        return ("7" + x) in held and any(("7" + y) in held for y in SUITS if y != x)
    return True


def needs_met(g: str, hand: list[str]) -> bool:
    if g in NOTRUMP:
        return True
    return any(needs_met_with_trump(g, hand, x) for x in trump_suits_for(g))


def deal_positions(dealer: int) -> dict[int, int]:
    """L§2, L§13: deck position -> seat (the talon, 15 and 16, left out)."""
    f, z = (dealer + 1) % 3, (dealer + 2) % 3
    pos = {}
    for seat, ranges in ((f, [range(0, 5), range(17, 22)]), (z, [range(5, 10), range(22, 27)]),
                         (dealer, [range(10, 15), range(27, 32)])):
        for r in ranges:
            for p in r:
                pos[p] = seat
    return pos


class Referee:
    """One licitovaný deal, stepped by action labels.

    ``to_move`` is the seat to act (None once over), ``legal()`` its legal labels,
    ``step(label)`` applies one; once ``done``, ``settlement`` holds the result and
    ``gathered_deck(k)`` the next deal's deck after the cut ``k``.  ``flags`` collects rare
    situations the deal went through (a masked reserved seven, a capped amount, …) for the
    tests' coverage floor.
    """

    def __init__(self, deck: list[str], dealer: int, max_flek: int | None = 5,
                 payment_cap: int | None = 500, marriage_order: str = "any") -> None:
        assert len(deck) == 32 and len(set(deck)) == 32
        self.deck = list(deck)
        self.dpos = {c: i for i, c in enumerate(deck)}
        self.d = dealer
        self.f = (dealer + 1) % 3
        self.z = (dealer + 2) % 3
        self.max_flek = max_flek
        self.cap = payment_cap
        self.marriage_order = marriage_order
        pos = deal_positions(dealer)
        self.hands: dict[int, list[str]] = {s: [] for s in range(3)}
        for p in range(32):
            if p not in (15, 16):
                self.hands[pos[p]].append(deck[p])
        self.talon = [deck[15], deck[16]]
        # auction (L§4): A1 the challenger bids or passes, A2 the holder holds or passes,
        # A3 forhond's last word when both others passed without a bid
        self.phase = "auction"
        self.astate = "A1"
        self.holder = self.f
        self.challenger = self.z
        self.high: str | None = None
        self.high_owner: int | None = None
        self.drops = 0
        self.to_move: int | None = self.z
        self.actor: int | None = None
        self.L = self.R = -1  # the actor's left and right defenders, once there is one
        self.bid: str | None = None
        self.game: str | None = None
        self.trump: str | None = None
        self.helping: str | None = None
        self.discards: list[str] = []
        self.lead_card: str | None = None
        self.levels: dict[str, int] = {}
        self.raisers: list[tuple[int, str, int]] = []  # (seat, component, new level)
        self.done = False
        self.flags: set[str] = set()
        self.settlement: Settlement | None = None
        self.points: dict[str, int] | None = None
        self.end: str | None = None
        self.laid = False
        self.flek_turn_raised = False
        self.raise_free = 0  # consecutive flek turns without a raise
        self.flek_turn_index = 0
        self.l_first_flekked = False
        self.show_due: int | None = None
        self.tricks: list[tuple[int, list[tuple[int, str]], int]] = []  # (leader, cards, winner)
        self.cur: list[tuple[int, str]] = []
        self.marriages: list[tuple[int, str, int]] = []  # (seat, suit, points)
        self.taken: dict[int, list[list[tuple[int, str]]]] = {s: [] for s in range(3)}
        self.actor_hand10: list[str] = []
        self.def_hands10: dict[int, list[str]] = {}

    # ------------------------------------------------------------------ legality
    def legal(self) -> set[str]:
        """The legal labels of the seat to move (empty once the deal is over)."""
        if self.done:
            return set()
        ph = self.phase
        s = self.to_move
        assert s is not None
        h = self.hands[s]
        if ph == "auction":
            if self.astate == "A1":  # strictly higher, jumps allowed, needs met
                return {"pass"} | {"bid:" + g for g in GAMES
                                   if (self.high is None or GRANK[g] > GRANK[self.high])
                                   and needs_met(g, h)}
            if self.astate == "A2":
                return {"pass", "hold"} if needs_met(self.high, h) else {"pass"}
            return {"pass"} | {"bid:" + g for g in GAMES if needs_met(g, h)}  # A3
        if ph == "T1":  # L§5: at or above the winning bid; fold only after a sedma
            out = {"game:" + g for g in GAMES
                   if GRANK[g] >= GRANK[self.high] and needs_met(g, h)}
            if self.high == "sedma":
                out.add("fold")
            return out
        if ph == "T2":
            return {"trump:" + x for x in "bla" if needs_met_with_trump(self.game, h, x)}
        if ph == "T3":
            return {"helping:" + y for y in SUITS if y != self.trump and ("7" + y) in h}
        if ph == "T4":
            if self.game in NOTRUMP:
                return {"discard:" + c for c in h}
            res = self.reserved()
            return {"discard:" + c for c in h if rank(c) not in "TA" and c not in res}
        if ph == "T5":
            return {"lead:" + c for c in h}
        if ph == "flek":
            if self.show_due == s:
                return {"show"}
            # L§6: defenders make odd levels (raise from even), the actor even ones
            out = {"good"}
            defender = s != self.actor
            for c in components(self.game):
                lv = self.levels[c]
                if self.max_flek is not None and lv >= self.max_flek:
                    continue
                if (lv % 2 == 0) == defender:
                    out.add("flek:" + c)
            return out
        if ph == "play":
            return {"play:" + c for c in self.play_legal(s)}
        raise AssertionError(ph)

    def reserved(self) -> dict[str, int]:
        """L§7: the actor's reserved sevens, card -> target trick."""
        res = {}
        if self.game in SEVEN_GAMES or self.game in TWO_SEVENS:
            res["7" + self.trump] = 10
        if self.game in TWO_SEVENS and self.helping:
            res["7" + self.helping] = 9
        return res

    def order(self) -> str:
        return PLAIN_ORDER if self.game in NOTRUMP else TRUMP_ORDER

    def beats(self, a: str, b: str) -> bool:
        """Does card ``a`` beat ``b``, the card winning the trick so far?"""
        if suit(a) == suit(b):
            return self.order().index(rank(a)) > self.order().index(rank(b))
        return bool(self.trump) and suit(a) == self.trump

    def winner_of(self, cards: list[tuple[int, str]]) -> tuple[int, str]:
        best = cards[0]
        for sc in cards[1:]:
            if self.beats(sc[1], best[1]):
                best = sc
        return best

    def r6_legal(self, s: int) -> list[str]:
        """R§6: follow and beat, else trump and overtrump, else anything."""
        h = self.hands[s]
        if not self.cur:
            return list(h)
        led = suit(self.cur[0][1])
        o = self.order()
        t = self.trump
        follow = [c for c in h if suit(c) == led]
        win = self.winner_of(self.cur)[1]
        if follow:
            if t and suit(win) == t and led != t:
                return follow  # trumped: any card of the led suit
            higher = [c for c in follow if o.index(rank(c)) > o.index(rank(win))]
            return higher or follow
        if t:
            trumps = [c for c in h if suit(c) == t]
            if trumps:
                tin = [c for _, c in self.cur if suit(c) == t]
                if tin:
                    hi = max(tin, key=lambda c: o.index(rank(c)))
                    higher = [c for c in trumps if o.index(rank(c)) > o.index(rank(hi))]
                    return higher or trumps
                return trumps
        return list(h)

    def play_legal(self, s: int) -> list[str]:
        """L§7: R§6's cards minus the actor's early reserved sevens, unless none is left."""
        legal = self.r6_legal(s)
        if s != self.actor or self.game in NOTRUMP:
            return legal
        t = len(self.tricks) + 1
        h = self.hands[s]
        early = {c for c, target in self.reserved().items() if c in legal
                 and (t < target or any(suit(x) == suit(c) and x != c for x in h))}
        rest = [c for c in legal if c not in early]
        if early:
            self.flags.add("reserved seven masked" if rest else "reserved seven all early")
        return rest or legal

    # ------------------------------------------------------------------ stepping
    def step(self, label: str) -> None:
        leg = self.legal()
        if label not in leg:
            raise ValueError(f"referee: illegal {label} in {sorted(leg)}")
        s = self.to_move
        assert s is not None
        ph = self.phase
        arg = label.split(":")[1] if ":" in label else ""
        if ph == "auction":
            self._auction(s, label)
        elif ph == "T1":
            if label == "fold":
                self._finish_unplayed("fold")
                return
            self.game = arg
            if arg in LEPSI:
                self.trump = "h"
                self.phase = "T3" if arg in TWO_SEVENS else "T4"
            elif arg in NOTRUMP:
                self.phase = "T4"
            else:
                self.phase = "T2"
        elif ph == "T2":
            self.trump = arg
            self.phase = "T3" if self.game in TWO_SEVENS else "T4"
        elif ph == "T3":
            self.helping = arg
            self.phase = "T4"
        elif ph == "T4":
            self.hands[s].remove(arg)
            self.discards.append(arg)
            if len(self.discards) == 2:
                if self.game in NOTRUMP:
                    self.phase = "T5"
                else:
                    self._start_flek()
        elif ph == "T5":
            self.lead_card = arg
            self._start_flek()
        elif ph == "flek":
            self._flek(s, label)
        elif ph == "play":
            self._play(s, arg)

    def _auction(self, s: int, label: str) -> None:
        if self.astate == "A3":
            if label == "pass":
                self._finish_unplayed("nobid")
                return
            self.flags.add("A3 bid")
            self.high = label.split(":")[1]
            self.high_owner = s
            self._won(s)
            return
        if label.startswith("bid:"):
            self.high = label.split(":")[1]
            self.high_owner = s
            self.astate = "A2"
            self.to_move = self.holder
            return
        if label == "hold":
            self.high_owner = s
            self.astate = "A1"
            self.to_move = self.challenger
            return
        # pass: the first drop brings the dealer in against the one who stayed
        self.drops += 1
        if self.drops == 1:
            self.flags.add("first drop " + ("challenger" if s == self.challenger else "holder"))
            if s == self.challenger:
                self.challenger = self.d
                self.astate = "A1"
            else:
                self.holder = self.d
                self.astate = "A2"
            self.to_move = self.d
            return
        other = self.holder if s == self.challenger else self.challenger
        if self.high is None:
            self.astate = "A3"
            self.flags.add("A3 reached")
            self.to_move = self.f
            return
        assert self.high_owner == other, (self.high_owner, other)
        self._won(other)

    def _won(self, seat: int) -> None:
        self.actor = seat
        self.bid = self.high
        self.hands[seat] = self.hands[seat] + self.talon
        self.phase = "T1"
        self.to_move = seat
        self.L = (seat + 1) % 3
        self.R = (seat + 2) % 3

    def _helping_count(self, seat: int) -> int:
        return sum(1 for c in self.hands[seat] if suit(c) == self.helping)

    def _start_flek(self) -> None:
        self.phase = "flek"
        self.levels = {c: 0 for c in components(self.game)}
        self.to_move = self.L
        self.actor_hand10 = list(self.hands[self.actor])
        self.def_hands10 = {self.L: list(self.hands[self.L]), self.R: list(self.hands[self.R])}
        self.show_due = None
        if self.game in ("dve_sedmy", "lepsi_dve_sedmy") and self._helping_count(self.L) >= 4:
            self.show_due = self.L  # L§6: showing is L's only first action

    def _flek(self, s: int, label: str) -> None:
        if label == "show":
            self.flags.add("show by " + ("L" if s == self.L else "R"))
            self._finish_unplayed("show")
            return
        if label.startswith("flek:"):
            c = label.split(":")[1]
            self.levels[c] += 1
            self.raisers.append((s, c, self.levels[c]))
            self.flek_turn_raised = True
            return
        # good ends the turn; three raise-free turns in a row end flekking (L§6)
        self.raise_free = 0 if self.flek_turn_raised else self.raise_free + 1
        if self.flek_turn_index == 0:
            self.l_first_flekked = self.flek_turn_raised
        self.flek_turn_index += 1
        self.flek_turn_raised = False
        self.show_due = None
        if self.raise_free >= 3:
            if self.max_flek and max(self.levels.values()) == self.max_flek:
                self.flags.add("flek reached max_flek")
            self._end_flek()
            return
        self.to_move = (s + 1) % 3
        if (self.flek_turn_index == 1 and self.game in ("dve_sedmy", "lepsi_dve_sedmy")
                and not self.l_first_flekked and self._helping_count(self.R) >= 4):
            self.show_due = self.R  # R shows only when L's first turn had no flek

    def _end_flek(self) -> None:
        if self.game in GAME_COMP and self.levels["game"] == 1 and self.levels["seven"] == 0:
            self._finish_unplayed("bare")  # L§6: the bare game flek
            return
        self.laid = self._laid()
        self.phase = "play"
        if self.game in NOTRUMP:  # L§7: the face-down lead opens trick 1
            self.hands[self.actor].remove(self.lead_card)
            self.cur = [(self.actor, self.lead_card)]
            self.to_move = self.L
        else:
            self.to_move = self.f

    def _laid(self) -> bool:
        """L§9 (a): certain from the cards when flekking ends."""
        a = self.actor_hand10
        defs = self.def_hands10[self.L] + self.def_hands10[self.R]
        g = self.game
        o = PLAIN_ORDER if g in NOTRUMP else TRUMP_ORDER
        if g == "betl":
            if any(suit(x) == suit(c) and o.index(rank(x)) < o.index(rank(c))
                   for c in a for x in defs):
                return False
            return any(suit(x) == suit(self.lead_card) for x in defs)
        if any(suit(x) == suit(c) and o.index(rank(x)) > o.index(rank(c))
               for c in a for x in defs):
            return False
        if g == "durch":
            return True
        if any(suit(x) == self.trump for x in defs):
            return False
        if g in HUNDRED_GAMES and not any(("K" + y) in a and ("Q" + y) in a for y in SUITS):
            return False
        return True

    def _play(self, s: int, c: str) -> None:
        h = self.hands[s]
        if self.game not in NOTRUMP and rank(c) in "KQ":
            other = ("Q" if rank(c) == "K" else "K") + suit(c)
            if other in h and (self.marriage_order == "any" or rank(c) == "Q"):
                self.marriages.append((s, suit(c), 40 if suit(c) == self.trump else 20))
            elif other in h:
                self.flags.add("queen_first: king-first marriage lost")
        h.remove(c)
        self.cur.append((s, c))
        if len(self.cur) < 3:
            self.to_move = (s + 1) % 3
            return
        w = self.winner_of(self.cur)[0]
        self.tricks.append((self.cur[0][0], list(self.cur), w))
        self.taken[w].append(list(self.cur))
        self.cur = []
        if ((self.game == "betl" and w == self.actor)
                or (self.game == "durch" and w != self.actor) or len(self.tricks) == 10):
            self._finish_played()
            return
        self.to_move = w

    # ------------------------------------------------------------------ settlement
    def _hearts(self) -> int:
        return 2 if self.game in LEPSI else 1

    def _finish_unplayed(self, kind: str) -> None:
        """L§5, L§6, L§9: no bid 0, fold −6, show −60 (lepší −90), bare game flek 0."""
        self.done = True
        self.end = kind
        self.to_move = None
        comps = []
        a = 0
        if kind == "fold":
            a = -6
        elif kind == "show":
            a = -90 if self.game in LEPSI else -60
        elif kind == "bare":
            h = self._hearts()
            comps = [{"component": "game", "level": 1, "amount": -2 * h},
                     {"component": "seven", "level": 0, "amount": 2 * h}]
        self._pay(a, comps, laid_payer=None)

    def _pay(self, net: int, comps: list[dict[str, Any]], laid_payer: int | None) -> None:
        """L§9: the cap bounds the net amount per payer; a laid game's payer pays for both."""
        capped = net if self.cap is None else max(-self.cap, min(self.cap, net))
        if capped != net:
            self.flags.add(f"capped {self.end}")
        pay = [0, 0, 0]
        if laid_payer is not None and capped <= 0:
            laid_payer = None
        if self.actor is not None:
            pay[self.actor] = 2 * capped
            if laid_payer is not None:
                pay[laid_payer] = -2 * capped
            else:
                pay[self.L] = pay[self.R] = -capped
        self.settlement = {"end": self.end, "net": net, "amount": capped, "payments": pay,
                           "components": comps, "laid_payer": laid_payer}

    def _trick_of(self, card: str) -> tuple[int, int, int] | None:
        """(1-based trick, seat that played ``card``, winner), or None if not played."""
        for i, (_, cards, w) in enumerate(self.tricks):
            for s, c in cards:
                if c == card:
                    return i + 1, s, w
        return None

    def _finish_played(self) -> None:
        self.done = True
        self.end = "played"
        self.to_move = None
        g = self.game
        h = self._hearts()
        a = self.actor
        assert a is not None

        def cardpts(seat: int) -> int:
            return sum(10 for tr in self.taken[seat] for _, c in tr if rank(c) in "TA")

        last_bonus = {0: 0, 1: 0, 2: 0}
        if len(self.tricks) == 10:
            last_bonus[self.tricks[9][2]] = 10
        ca = cardpts(a) + last_bonus[a]
        cd = sum(cardpts(x) + last_bonus[x] for x in (self.L, self.R))
        ma = sum(p for s, _, p in self.marriages if s == a)
        md = sum(p for s, _, p in self.marriages if s != a)
        first = next((p for s, _, p in self.marriages if s == a), 0)
        pa, pd, counted = ca + ma, cd + md, ca + first  # L§8: Pa, Pd, Ca
        self.points = {"actor_cards": ca, "defence_cards": cd, "actor_marriages": ma,
                       "defence_marriages": md, "actor_first_marriage": first}
        comps = []
        lv = self.levels
        if g in GAME_COMP:
            m = 2 ** lv["game"]
            won = pa > pd
            winner_pts = pa if won else pd
            amt = 2 * h * m * (winner_pts - 90) // 10 if winner_pts >= 100 else h * m
            comps.append({"component": "game", "level": lv["game"], "won": won,
                          "amount": amt if won else -amt, "silent_hundred": winner_pts >= 100})
        if g in HUNDRED_GAMES:
            m = 2 ** lv["hundred"]
            won = counted >= 100
            if won:
                amt = 4 * h * m * (pa - 90) // 10
            else:
                amt = -(4 * h * m * ((100 - counted) + md) // 10)
            comps.append({"component": "hundred", "level": lv["hundred"], "won": won,
                          "amount": amt})
        t7 = self._trick_of("7" + self.trump) if self.trump else None
        if g in SEVEN_GAMES:
            m = 2 ** lv["seven"]
            won = t7 is not None and t7[0] == 10 and t7[1] == a and t7[2] == a
            comps.append({"component": "seven", "level": lv["seven"], "won": won,
                          "amount": (2 if won else -2) * h * m})
        if g in TWO_SEVENS:
            m = 2 ** lv["two_sevens"]
            h7 = self._trick_of("7" + self.helping)
            won = (t7 is not None and t7[0] == 10 and t7[1] == a and t7[2] == a
                   and h7 is not None and h7[0] == 9 and h7[1] == a and h7[2] == a)
            base = 60 if g in LEPSI else 40
            comps.append({"component": "two_sevens", "level": lv["two_sevens"], "won": won,
                          "amount": (base if won else -base) * m})
        if g in NOTRUMP:
            m = 2 ** lv["game"]
            if g == "betl":
                won = all(w != a for _, _, w in self.tricks)
                base = 15
            else:
                won = all(w == a for _, _, w in self.tricks)
                base = 30
            comps.append({"component": "game", "level": lv["game"], "won": won,
                          "amount": (base if won else -base) * m})
        if g in ("sto", "lepsi_sto") and t7 is not None and t7[0] == 10:
            # L§8, L§9: the silent seven; the actor wins it with his own seven taking
            # trick 10, or when a defender's seven is beaten there
            _, s7, w = t7
            won = w == a if s7 == a else w != s7
            who = "actor" if s7 == a else "defender"
            self.flags.add(f"silent seven {who} {'won' if won else 'lost'}")
            comps.append({"component": "silent_seven", "level": 0, "won": won,
                          "amount": h if won else -h})
        net = sum(c["amount"] for c in comps)
        payer = None
        if self.laid:  # L§9 (b): one defender made every odd flek, some component ≥ tutti
            odd = {s for s, _, lvl in self.raisers if lvl % 2 == 1}
            if len(odd) == 1 and max(self.levels.values()) >= 3:
                payer = next(iter(odd))
        self._pay(net, comps, payer)

    # ------------------------------------------------------------------ gathering
    def gathered_deck(self, k: int) -> list[str]:
        """The next deal's deck (from the top) after the cut ``k`` (L§2, L§13, R§2)."""
        piles = {}
        for s in range(3):
            pile = []
            if s == self.actor and self.end in ("played", "show", "bare"):
                pile += self.discards  # the final talon; after a fold it is in the hand
            for tr in self.taken[s]:
                pile += [c for _, c in tr]
            rest = list(self.hands[s])
            if (s == self.actor and self.end != "played" and self.lead_card
                    and self.lead_card not in rest):
                rest.append(self.lead_card)  # an unplayed face-down lead is a hand card
            pile += sorted(rest, key=self.dpos.__getitem__)
            piles[s] = pile
        stack = [self.deck[15], self.deck[16]] if self.actor is None else []  # untaken talon
        for s in (self.f, self.z, self.d):
            stack += piles[s]
        assert len(stack) == 32 and len(set(stack)) == 32, (len(stack), len(set(stack)))
        deck = stack[::-1]
        return deck[k:] + deck[:k]
