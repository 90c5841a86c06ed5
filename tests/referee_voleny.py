"""A second reading of the volený rules: a referee written from RULES.md alone.

An outside auditor wrote it from the normative spec (``RULES.md``) without reading the
engine; it shares no code with ``mariash_env`` and imports nothing from it.  It follows one
deal from its deck and the actions taken and answers the legal action labels at every step
(the labels of INTERFACE.md), the full settlement at the end (every bet's outcome, worth,
level and amount, the card points and marriages, the payments), and the deck the next deal
is dealt from.  ``tests/test_referee_voleny.py`` plays the env against it.

Sections implemented: §1 (ranks and orders), §2 (dealing, gathering, cut), §3 (trumps),
§4 (contracts, "Barva?", bad, durch over betl), §5.1–§5.4 (announcements, bets, flek
rounds, deals not played), §6 (legal cards, trick winner, the announced-seven rule, betl and
durch ending early), §7 (marriages), §8 (lay-down and when it is withheld), §9
(settlement), §11 (tariff, killed seven, max_flek, payment cap, marriage order), §11.1
(open contracts), §11.2 (order-free hundred), §11.3 (four players), §12 (fine points).

Positions inside the referee are relative to the deal: 0 = forehand, 1 = middlehand,
2 = the dealer's role (at four players the player before the dealer, §11.3); ``player``
maps a position to a seat.
"""

from __future__ import annotations

from typing import Any

RANKS = "789TJQKA"
SUITS = "hbla"
CARDS = [r + s for s in SUITS for r in RANKS]  # the canonical index order (§1)
TRUMP_ORDER = "789JQKTA"  # suit games (§1)
NT_ORDER = "789TJQKA"  # betl, durch (§1)
CONTRACT_RANK = {"suit": 0, "betl": 1, "durch": 2, "open_betl": 3, "open_durch": 4}  # §11.1
UNLIMITED = 24  # max_flek=None: the engine's own ceiling, far above any level a deal reaches

Settlement = dict[str, Any]


def suit(c: str) -> str:
    return c[1]


def rank(c: str) -> str:
    return c[0]


def card_points(c: str) -> int:
    return 10 if c[0] in "AT" else 0


class Referee:
    """One volený deal, stepped by action labels.

    ``legal()`` is the set of legal labels of the seat to move (``seat``), ``step(label)``
    applies one; once ``phase == "done"``, ``settlement`` holds the result in the env's
    shape and ``gathered_deck(k)`` the next deal's deck after the cut ``k``.  ``events``
    collects rare situations the deal went through (a withheld lay-down, an overcall, …)
    for the tests' coverage floor.
    """

    def __init__(self, deck: list[str], dealer: int, tariff: str = "home",
                 killed_seven: int = 2, max_flek: int | None = 4,
                 payment_cap: int | None = None, marriage_order: str = "any",
                 hundred_counting: str = "first_played", open_contracts: bool = False,
                 players: int = 3, shuffle: str = "partie") -> None:
        # shuffle matters only between deals (§11): the caller builds the next deck.
        assert len(deck) == 32 and len(set(deck)) == 32
        self.deck = list(deck)
        self.dpos = {c: i for i, c in enumerate(deck)}
        self.dealer = dealer
        self.players = players
        self.tariff = tariff
        self.killed_seven = killed_seven
        self.max_flek = UNLIMITED if max_flek is None else max_flek
        self.cap = payment_cap
        self.marriage_order = marriage_order
        self.order_free = hundred_counting == "order_free"
        self.open = open_contracts
        # §2: forehand 0-6 and 17-21, middlehand 7-11 and 22-26, dealer 12-16 and 27-31
        self.hands = {0: deck[0:7] + deck[17:22], 1: deck[7:12] + deck[22:27],
                      2: deck[12:17] + deck[27:32]}
        self.phase = "trump"
        self.to_move: int | None = 0
        self.trump_card: str | None = None
        self.trump: str | None = None
        self.contract: str | None = None
        self.actor: int | None = None
        self.claimer: int | None = None
        self.talon: list[str] = []
        self.discards_left = 0
        self.answer_queue: list[int] = []
        self.announcement: str | None = None
        self.bets: dict[str, dict[str, Any]] = {}  # name -> owner, level, kind
        self.history: list[tuple[int, str]] = []
        self.settlement: Settlement | None = None
        self.trick: list[tuple[int, str]] = []
        self.tricks: list[tuple[int, list[tuple[int, str]]]] = []  # (winner, cards)
        self.marriages: list[tuple[int, str, int]] = []  # (pos, suit, value), in order
        self.seven_early: int | None = None  # who played the trump seven before trick 10
        self.final_talon_owner: int | None = None
        self.events: set[str] = set()
        # flek round state (§5.3)
        self.fl_round = 0
        self.fl_raisable: set[str] = set()
        self.fl_raised: set[str] = set()
        self.fl_announced: set[str] = set()
        self.fl_turns: list[int] = []
        self.fl_turn_done: set[str] = set()

    # ------------------------------------------------------------------ helpers
    def player(self, pos: int) -> int:
        return (self.dealer + 1 + pos) % self.players

    @property
    def seat(self) -> int | None:
        """The seat (player id) to move; None once the deal is over."""
        return None if self.to_move is None else self.player(self.to_move)

    def side(self, pos: int) -> str:
        return "actor" if pos == self.actor else "defence"

    def order_key(self, c: str) -> int:
        return (TRUMP_ORDER if self.contract == "suit" else NT_ORDER).index(rank(c))

    @staticmethod
    def has_marriage(cards: list[str]) -> bool:
        return any(("K" + s) in cards and ("Q" + s) in cards for s in SUITS)

    def trump7(self) -> str | None:
        return "7" + self.trump if self.trump else None

    def nt(self) -> bool:
        return self.contract in ("betl", "durch", "open_betl", "open_durch")

    def is_betl(self) -> bool:
        return self.contract in ("betl", "open_betl")

    # ------------------------------------------------------------------ legality
    def legal(self) -> set[str]:
        """The legal labels of the seat to move (empty once the deal is over)."""
        p = self.phase
        me = self.to_move
        h = self.hands.get(me, []) if me is not None else []
        if p == "trump":  # §3, §12: any of the first 7 cards, or blind
            return {"trump:" + c for c in self.deck[0:7]} | {"trump:blind"}
        if p == "contract":
            s = {"contract:suit", "contract:betl", "contract:durch"}
            if self.open:
                s |= {"contract:open_betl", "contract:open_durch"}
            return s
        if p == "discard":  # §4.1, §12: a suit game bars aces, tens and the trump card
            if self.contract == "suit":
                return {"discard:" + c for c in h
                        if c != self.trump_card and rank(c) not in "AT"}
            return {"discard:" + c for c in h}
        if p == "barva":
            return {"good", "bad"}
        if p == "bad_contract":
            s = {"contract:betl", "contract:durch"}
            if self.open:
                s |= {"contract:open_betl", "contract:open_durch"}
            return s
        if p == "nt_answer":  # §4.3; §11.1: any higher no-trump contract
            s = {"good"}
            if self.open:
                cur = CONTRACT_RANK[self.contract]
                s |= {"contract:" + k for k, v in CONTRACT_RANK.items() if v > cur}
            else:
                s.add("contract:durch")
            return s
        if p == "announce":  # §5.1, §12: judged on forehand's 10 cards, trump card included
            s = {"announce:hra"}
            sev = self.trump7() in h
            mar = self.has_marriage(h)
            if sev:
                s.add("announce:sedma")
            if mar:
                s.add("announce:sto")
            if sev and mar:
                s.add("announce:sto_sedma")
            return s
        if p == "flek":
            return self._legal_flek(me, h)
        if p == "play":
            s = {"play:" + c for c in self.legal_cards(me)}
            if not self.trick and self.can_lay_down(me):
                s.add("lay_down")
            return s
        return set()

    def _legal_flek(self, me: int, h: list[str]) -> set[str]:
        """§5.3, §12: a bet at most once per round; against-bets in the first round."""
        s = {"good"}
        s |= {"flek:" + b for b in self.fl_raisable
              if b not in self.fl_raised and b not in self.fl_turn_done}
        if self.fl_round == 1 and self.contract == "suit" and self.side(me) == "defence":
            if ("seven" not in self.bets and "seven_against" not in self.bets
                    and self.trump7() in h):
                s.add("against:seven")
            if (self.bets["game"]["kind"] != "sto" and "hundred_against" not in self.bets
                    and self.has_marriage(h)):
                s.add("against:hundred")
        return s

    def legal_cards(self, me: int) -> list[str]:
        """§6: follow and beat, else trump and overtrump, else anything."""
        h = self.hands[me]
        trump = None if self.nt() else self.trump
        tr = [c for _, c in self.trick]
        if not tr:
            leg = list(h)
        else:
            led = suit(tr[0])
            follow = [c for c in h if suit(c) == led]
            if follow:
                trumped = trump is not None and led != trump and any(suit(c) == trump for c in tr)
                if trumped:
                    leg = follow
                else:
                    best = max(self.order_key(c) for c in tr if suit(c) == led)
                    leg = [c for c in follow if self.order_key(c) > best] or follow
            else:
                trumps = [c for c in h if trump is not None and suit(c) == trump]
                if trumps:
                    tin = [c for c in tr if suit(c) == trump]
                    if tin:
                        best = max(self.order_key(c) for c in tin)
                        leg = [c for c in trumps if self.order_key(c) > best] or trumps
                    else:
                        leg = trumps
                else:
                    leg = list(h)
        # §6, §12: with a seven bet the trump seven waits for trick 10 unless it is forced
        if (not self.nt() and ("seven" in self.bets or "seven_against" in self.bets)
                and len(self.tricks) < 9 and self.trump7() in leg and len(leg) > 1):
            leg = [c for c in leg if c != self.trump7()]
        return leg

    # ------------------------------------------------------------------ lay-down (§8, §12)
    def outstanding(self, me: int) -> set[str]:
        """Cards not in ``me``'s hand, not played, and (for the actor) not in the talon."""
        played = {c for _, t in self.tricks for _, c in t}
        out = set(self.deck) - played - set(self.hands[me])
        if me == self.actor:
            out -= set(self.talon)
        return out

    def can_lay_down(self, me: int) -> bool:
        out = self.outstanding(me)
        h = self.hands[me]
        if self.contract == "suit":
            if any(suit(c) == self.trump for c in out):
                return False
            for c in h:
                if any(suit(o) == suit(c) and self.order_key(o) > self.order_key(c)
                       for o in out):
                    return False
            if self.order_free:  # §11.2: the order of marriages cannot matter
                return True
            withheld = self.laydown_withheld(me)
            if withheld:
                self.events.add("laydown_withheld")
            return not withheld
        if self.is_betl():
            if me != self.actor or self.tricks:
                return False
            for c in h:
                if any(suit(o) == suit(c) and self.order_key(o) < self.order_key(c)
                       for o in out):
                    return False
            return any(suit(o) in {suit(c) for c in h} for o in out)
        if me != self.actor:  # durch
            return False
        return not any(suit(o) == suit(c) and self.order_key(o) > self.order_key(c)
                       for c in h for o in out)

    def held_marriages(self, claimer: int) -> list[tuple[int, str, int]]:
        """§12: marriages still held, in seat order from the claimer, suits h b l a."""
        res = []
        for k in range(3):
            pos = (claimer + k) % 3
            h = self.hands[pos]
            for s in SUITS:
                if "K" + s in h and "Q" + s in h:
                    res.append((pos, s, 40 if s == self.trump else 20))
        return res

    def laydown_withheld(self, me: int) -> bool:
        """§12: an announced hundred whose side has announced no marriage yet, and taking
        each marriage it still holds as its first gives different amounts."""
        if self.bets["game"]["kind"] == "sto":
            hside = "actor"
        elif "hundred_against" in self.bets:
            hside = "defence"
        else:
            return False
        if any(self.side(p) == hside for p, _, _ in self.marriages):
            return False
        held = [m for m in self.held_marriages(me) if self.side(m[0]) == hside]
        if len(held) < 2:
            return False
        amounts = set()
        for first in held:
            order = [first] + [m for m in self.held_marriages(me) if m != first]
            amounts.add(self._settle_suit("laid_down", claimer=me, extra_marriages=order)["amount"])
        return len(amounts) > 1

    # ------------------------------------------------------------------ stepping
    def step(self, label: str) -> None:
        leg = self.legal()
        if label not in leg:
            raise ValueError(f"referee: illegal {label} in {sorted(leg)}")
        me = self.to_move
        assert me is not None
        self.history.append((self.player(me), label))
        p = self.phase
        if p == "trump":
            c = self.deck[17] if label == "trump:blind" else label.split(":")[1]
            self.trump_card = c
            self.hands[0] = [x for x in self.hands[0] if x != c]
            self.phase = "contract"
        elif p == "contract":
            k = label.split(":")[1]
            self.contract = k
            self.actor = 0
            if k != "suit":  # §4.1: the trump card returns to the hand unshown
                self.hands[0].append(self.trump_card)
                self.trump = None
            else:
                self.trump = suit(self.trump_card)
            self.phase = "discard"
            self.discards_left = 2
            self.talon = []
        elif p == "discard":
            self._discard(me, label.split(":")[1])
        elif p == "barva":
            if label == "good":
                self.answer_queue.pop(0)
                if self.answer_queue:
                    self.to_move = self.answer_queue[0]
                else:  # §5.1: the suit game stands; the trump card goes back to the hand
                    self.hands[0].append(self.trump_card)
                    self.phase = "announce"
                    self.to_move = 0
            else:  # §4.2: the bad-sayer takes the talon
                self.events.add("bad")
                self.hands[me] += self.talon
                self.talon = []
                self.hands[0].append(self.trump_card)
                self.trump = None
                self.phase = "bad_contract"
        elif p == "bad_contract":
            self.contract = label.split(":")[1]
            self.actor = me
            self.phase = "discard"
            self.discards_left = 2
        elif p == "nt_answer":
            if label == "good":
                self.answer_queue.pop(0)
                if self.answer_queue:
                    self.to_move = self.answer_queue[0]
                else:
                    self.start_flek()
            else:  # §4.3, §11.1: a higher contract takes the talon
                self.events.add("overcall:" + label)
                self.contract = label.split(":")[1]
                self.actor = me
                self.hands[me] += self.talon
                self.talon = []
                self.phase = "discard"
                self.discards_left = 2
        elif p == "announce":
            a = label.split(":")[1]
            self.announcement = a
            kind = "sto" if a in ("sto", "sto_sedma") else "hra"
            self.bets = {"game": {"owner": "actor", "level": 0, "kind": kind}}
            if a in ("sedma", "sto_sedma"):
                self.bets["seven"] = {"owner": "actor", "level": 0}
            self.start_flek()
        elif p == "flek":
            self.flek_step(me, label)
        elif p == "play":
            if label == "lay_down":
                self.lay_down(me)
            else:
                self.play(me, label.split(":")[1])

    def _discard(self, me: int, c: str) -> None:
        self.hands[me].remove(c)
        self.talon.append(c)
        self.discards_left -= 1
        if self.discards_left:
            return
        self.final_talon_owner = me
        if self.contract == "suit":
            self.phase = "barva"
            self.answer_queue = [1, 2]
            self.to_move = 1
        elif self.contract == "open_durch" or (self.contract == "durch" and not self.open):
            self.start_flek()  # nobody answers a durch (§4.3) or an open durch (§11.1)
        else:
            self.answer_queue = [(me + 1) % 3, (me + 2) % 3]
            self.phase = "nt_answer"
            self.to_move = self.answer_queue[0]

    # ------------------------------------------------------------------ flek (§5.3, §12)
    def start_flek(self) -> None:
        if self.contract != "suit":
            self.bets = {"game": {"owner": "actor", "level": 0, "kind": self.contract}}
        self.phase = "flek"
        self.fl_round = 1
        self.fl_raisable = {b for b, v in self.bets.items()
                            if v["owner"] == "actor" and v["level"] < self.max_flek}
        self.begin_round()

    def begin_round(self) -> None:
        self.fl_raised = set()
        self.fl_announced = set()
        assert self.actor is not None
        if self.fl_round % 2 == 1:  # defence rounds are the odd ones
            self.fl_turns = [(self.actor + 1) % 3, (self.actor + 2) % 3]
        else:
            self.fl_turns = [self.actor]
        self.fl_turn_done = set()
        self.to_move = self.fl_turns[0]

    def flek_step(self, me: int, label: str) -> None:
        if label == "good":
            self.fl_turns.pop(0)
            self.fl_turn_done = set()
            if self.fl_turns:
                self.to_move = self.fl_turns[0]
                return
            # the next round may raise only what this one raised or announced
            nxt = {b for b in (self.fl_raised | self.fl_announced)
                   if self.bets[b]["level"] < self.max_flek}
            if not nxt:
                self.end_flek()
                return
            self.fl_round += 1
            self.fl_raisable = nxt
            self.begin_round()
            return
        kind, what = label.split(":")
        if kind == "flek":
            self.bets[what]["level"] += 1
            self.fl_raised.add(what)
            self.fl_turn_done.add(what)
        else:
            name = "seven_against" if what == "seven" else "hundred_against"
            self.bets[name] = {"owner": "defence", "level": 0, "seat": self.player(me)}
            self.fl_announced.add(name)

    def end_flek(self) -> None:
        self.phase = "play"
        if self.contract == "suit":
            g = self.bets["game"]
            if self.announcement == "hra" and g["level"] == 0 and len(self.bets) == 1:
                self.finish("conceded")  # §5.4
                return
            if (self.announcement == "sedma" and g["level"] == 1
                    and self.bets["seven"]["level"] == 0
                    and "seven_against" not in self.bets and "hundred_against" not in self.bets):
                self.finish("sedma_not_played")  # §5.4, §12
                return
            self.to_move = 0
        else:
            self.to_move = self.actor

    # ------------------------------------------------------------------ play (§6, §7)
    def play(self, me: int, c: str) -> None:
        h = self.hands[me]
        if self.contract == "suit" and rank(c) in "KQ":
            other = ("Q" if rank(c) == "K" else "K") + suit(c)
            if other in h and (self.marriage_order == "any" or rank(c) == "Q"):
                self.marriages.append((me, suit(c), 40 if suit(c) == self.trump else 20))
            elif other in h:
                self.events.add("king_first_marriage_lost")
        if self.contract == "suit" and c == self.trump7() and len(self.tricks) < 9:
            self.seven_early = me
            if "seven" in self.bets or "seven_against" in self.bets:
                self.events.add("announced_seven_played_early")
        h.remove(c)
        self.trick.append((me, c))
        if len(self.trick) < 3:
            self.to_move = (me + 1) % 3
            return
        w = self.trick_winner(self.trick)
        self.tricks.append((w, self.trick))
        self.trick = []
        if self.is_betl() and w == self.actor:
            self.finish("decided_early")  # the engine names it so even in trick 10
            return
        if self.contract in ("durch", "open_durch") and w != self.actor:
            self.finish("decided_early")
            return
        if len(self.tricks) == 10:
            self.finish("played")
            return
        self.to_move = w

    def trick_winner(self, trick: list[tuple[int, str]]) -> int:
        led = suit(trick[0][1])
        trump = None if self.nt() else self.trump
        tr = [(p, c) for p, c in trick if trump and suit(c) == trump]
        cand = tr or [(p, c) for p, c in trick if suit(c) == led]
        return max(cand, key=lambda pc: self.order_key(pc[1]))[0]

    def lay_down(self, me: int) -> None:
        self.claimer = me
        self.events.add(f"laydown:{self.contract}:{self.side(me)}")
        if self.contract == "suit" and self.held_marriages(me):
            self.events.add("laydown_with_held_marriages")
        self.finish("laid_down", claimer=me)

    # ------------------------------------------------------------------ settlement (§9, §11)
    def finish(self, end: str, claimer: int | None = None) -> None:
        if self.contract == "suit":
            self.settlement = self._settle_suit(end, claimer)
        else:
            self.settlement = self._settle_nt(end)
        self.phase = "done"
        self.to_move = None

    def _finalize(self, st: Settlement, raw: int) -> Settlement:
        """§9, §11, §11.3: the cap bounds A; the actor collects A from every other seat."""
        a = raw if self.cap is None else max(-self.cap, min(self.cap, raw))
        assert self.actor is not None
        pays = [-a] * self.players
        pays[self.player(self.actor)] = (self.players - 1) * a
        st["amount"] = a
        st["payments"] = pays
        return st

    def _settle_nt(self, end: str) -> Settlement:
        assert self.contract is not None and self.actor is not None
        base = {"betl": 15, "durch": 30} if self.tariff == "csm" else {"betl": 5, "durch": 10}
        kind = self.contract
        worth = base["betl" if "betl" in kind else "durch"] * (2 if kind.startswith("open") else 1)
        if end == "laid_down":
            won = True
        elif self.is_betl():
            won = all(w != self.actor for w, _ in self.tricks)
        else:
            won = all(w == self.actor for w, _ in self.tricks)
        lvl = self.bets["game"]["level"]
        amt = worth * 2 ** lvl * (1 if won else -1)
        st = {"contract": kind, "actor": self.player(self.actor), "end": end,
              "bets": [{"bet": "game", "kind": kind, "won": won, "worth": worth, "level": lvl,
                        "amount": amt}]}
        return self._finalize(st, amt)

    def _head(self, end: str) -> Settlement:
        assert self.actor is not None
        return {"contract": "suit", "actor": self.player(self.actor), "end": end,
                "trump": self.trump, "announcement": self.announcement}

    def _settle_suit(self, end: str, claimer: int | None = None,
                     extra_marriages: list[tuple[int, str, int]] | None = None) -> Settlement:
        hearts = 2 if self.trump == "h" else 1
        no_points = {"actor_cards": 0, "defence_cards": 0, "actor_marriages": 0,
                     "defence_marriages": 0}
        if end == "conceded":
            st = self._head(end) | {"points": no_points, "bets": [
                {"bet": "game", "kind": "hra", "won": True, "worth": 1, "level": 0,
                 "amount": hearts}]}
            return self._finalize(st, hearts)
        if end == "sedma_not_played":
            st = self._head(end) | {"points": no_points, "bets": [
                {"bet": "game", "kind": "hra", "won": False, "worth": 1, "level": 1,
                 "amount": -2 * hearts},
                {"bet": "seven", "won": True, "worth": 2, "level": 0, "amount": 2 * hearts}]}
            return self._finalize(st, 0)
        cards = {"actor": 0, "defence": 0}
        for w, t in self.tricks:
            cards[self.side(w)] += sum(card_points(c) for _, c in t)
        marriages = list(self.marriages)
        seven_last = None  # (pos, took the trick) of a trump seven in trick 10
        if end == "laid_down":
            # §8: the claimer's side takes the rest, all held marriages count, and its
            # trump seven is taken as winning the last trick
            assert claimer is not None
            rest = [c for k in range(3) for c in self.hands[(claimer + k) % 3]]
            cards[self.side(claimer)] += sum(card_points(c) for c in rest)
            if extra_marriages is None:
                extra_marriages = self.held_marriages(claimer)
            marriages += extra_marriages
            last_side = self.side(claimer)
            if self.trump7() in self.hands[claimer]:
                seven_last = (claimer, True)
        else:
            lw, lt = self.tricks[-1]
            last_side = self.side(lw)
            for p, c in lt:
                if c == self.trump7():
                    seven_last = (p, lw == p)
        cards[last_side] += 10
        mar = {sd: [v for p, _, v in marriages if self.side(p) == sd]
               for sd in ("actor", "defence")}
        mar_trump = {sd: [v for p, s, v in marriages if self.side(p) == sd and s == self.trump]
                     for sd in mar}
        total_pts = {sd: cards[sd] + sum(mar[sd]) for sd in mar}

        def counted(sd: str) -> int:
            if self.order_free:  # §11.2: 40 for a trump marriage, else 20 for any
                return cards[sd] + (40 if mar_trump[sd] else 20 if mar[sd] else 0)
            return cards[sd] + (mar[sd][0] if mar[sd] else 0)  # §9: the first one only

        def hundred(sd: str) -> tuple[bool, int]:
            other = "defence" if sd == "actor" else "actor"
            c = counted(sd)
            if c >= 100:
                if self.order_free:
                    return True, 4 * 2 ** ((total_pts[sd] - 100) // 10)
                return True, 4 + 4 * (total_pts[sd] - 100) // 10
            if self.order_free:
                return False, 4 * 2 ** (max(0, total_pts[other] - 40) // 10)
            return False, 4 * (100 - c) // 10 + 4 * sum(mar[other]) // 10

        g = self.bets["game"]
        lvl = g["level"]
        mult = 2 ** lvl * hearts
        bets_out = []
        if g["kind"] == "hra":
            pa, pd = total_pts["actor"], total_pts["defence"]
            won = pa > pd
            worth = 1
            silent = None
            # §9: the winner's silent hundred; a hundred against replaces the defence's
            if won and pa >= 100:
                silent = "actor"
            elif not won and pd >= 100 and "hundred_against" not in self.bets:
                silent = "defence"
            if silent:
                p = total_pts[silent]
                worth = 2 ** (1 + (p - 100) // 10) if self.order_free else 2 + 2 * (p - 100) // 10
            b = {"bet": "game", "kind": "hra", "won": won, "worth": worth, "level": lvl,
                 "amount": worth * mult * (1 if won else -1)}
            if silent:
                b["silent_hundred"] = silent
        else:
            won, worth = hundred("actor")
            b = {"bet": "game", "kind": "sto", "won": won, "worth": worth, "level": lvl,
                 "amount": worth * mult * (1 if won else -1)}
        bets_out.append(b)
        for name, owner in (("seven", "actor"), ("seven_against", "defence")):
            if name in self.bets:
                bl = self.bets[name]["level"]
                won = (seven_last is not None and seven_last[1]
                       and self.side(seven_last[0]) == owner and self.seven_early is None)
                worth = 2 if won else self.killed_seven
                sign = 1 if won == (owner == "actor") else -1
                bets_out.append({"bet": name, "won": won, "worth": worth, "level": bl,
                                 "amount": sign * worth * hearts * 2 ** bl})
        if "hundred_against" in self.bets:
            bl = self.bets["hundred_against"]["level"]
            won, worth = hundred("defence")
            bets_out.append({"bet": "hundred_against", "won": won, "worth": worth, "level": bl,
                             "amount": (-1 if won else 1) * worth * hearts * 2 ** bl})
        if ("seven" not in self.bets and "seven_against" not in self.bets
                and seven_last is not None):  # §9, §12: the silent seven, never flekked
            won = seven_last[1]
            sign = (1 if won else -1) * (1 if self.side(seven_last[0]) == "actor" else -1)
            bets_out.append({"bet": "silent_seven", "won": won, "worth": 1, "level": 0,
                             "amount": sign * hearts})
        st = self._head(end) | {
            "points": {"actor_cards": cards["actor"], "defence_cards": cards["defence"],
                       "actor_marriages": sum(mar["actor"]),
                       "defence_marriages": sum(mar["defence"])},
            "bets": bets_out}
        return self._finalize(st, sum(b["amount"] for b in bets_out))

    # ------------------------------------------------------------------ gathering (§2, §12)
    def gathered_deck(self, k: int) -> list[str]:
        """The next deal's deck (from the top) after the cut ``k`` (§2, §12)."""
        piles: dict[int, list[str]] = {0: [], 1: [], 2: []}
        if self.final_talon_owner is not None and self.actor is not None:
            piles[self.actor] += self.talon  # only the actor's final talon, under its tricks
        for w, t in self.tricks:
            piles[w] += [c for _, c in t]
        end = self.settlement["end"] if self.settlement else None
        left = {pos: sorted(self.hands[pos], key=self.dpos.__getitem__) for pos in range(3)}
        if end == "laid_down" and not self.is_betl():
            # the remaining hands go on top of the claimer's tricks, in seat order from it
            assert self.claimer is not None
            for j in range(3):
                piles[self.claimer] += left[(self.claimer + j) % 3]
            left = {0: [], 1: [], 2: []}
        for pos in range(3):
            piles[pos] += left[pos]
        deck = list(reversed(piles[0] + piles[1] + piles[2]))  # forehand's pile at the bottom
        return deck[k:] + deck[:k]
