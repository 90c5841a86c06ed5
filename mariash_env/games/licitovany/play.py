"""What the table shows of a licitovaný deal (LICITOVANY.md): the auction as it happens,
the actor's game, trumps, helping suit and face-down lead, the components with their flek
levels, and the settlement line by line in desetníky.  Everything is read from the human
seat's observation (:data:`~mariash_env.games.licitovany.observe.LOBS_LAYOUT`) or from the
settlement the engine computed: no rule is decided here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import CARD_CODES, SUIT_NAMES_CZ, SUIT_SYMBOLS, SUITS, cards_of
from ...core.state import COMPONENT_NAMES
from ...play.labels import SUIT_NAMES_EN, card_info, game_words
from .games import GAME_IDS
from .observe import LOBS_LAYOUT
from .record import level_name

CARD_HEADS = ("discard", "lead", "play")  # trump:b / helping:h name suits: buttons
AUCTION_HEADS = ("bid", "hold", "pass")
ROLES = ("forhond", "middlehand", "dealer")  # LICITOVANY.md §1 spells forhond
BLOCKS = {name: (off, size) for name, off, size, _ in LOBS_LAYOUT}
COMPONENT_WORDS = {"game": ("hra", "game"), "seven": ("sedma", "seven"),
                   "hundred": ("stovka", "hundred"), "two_sevens": ("dvě sedmy", "two sevens"),
                   "silent_seven": ("tichá sedma", "silent seven")}
END_WORDS = {"played": ("dohráno", "played"), "decided_early": ("rozhodnuto předčasně",
                                                               "decided early"),
             "no_bid": ("nikdo nelicitoval, nikdo neplatí", "nobody bid, nobody pays"),
             "fold": ("složeno za omyl", "folded"),
             "show": ("obránce ukázal pomocnou barvu", "a defender showed the helping suit"),
             "bare_game_flek": ("jen flek na hru: nehraje se, nikdo neplatí",
                                "a bare game flek: not played, nobody pays")}
UNIT = "desetníky"
OWNER = {"actor": "aktér / actor", "defence": "obrana / defence"}


def _block(obs: np.ndarray, name: str) -> np.ndarray:
    off, size = BLOCKS[name]
    return obs[off:off + size]


def _seat(obs: np.ndarray, name: str, me: int) -> int | None:
    """The absolute seat of a relative one-hot block (None when empty)."""
    hit = np.flatnonzero(_block(obs, name))
    return int((hit[0] + me) % 3) if hit.size else None


def _one(obs: np.ndarray, name: str) -> int | None:
    hit = np.flatnonzero(_block(obs, name))
    return int(hit[0]) if hit.size else None


def hand(obs: np.ndarray) -> list[str]:
    m = sum(1 << int(i) for i in np.flatnonzero(_block(obs, "hand")))
    return [CARD_CODES[c] for c in cards_of(m)]


def forhond(obs: np.ndarray, me: int) -> int | None:
    return _seat(obs, "forhond", me)


def counts(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Card points and tricks taken per relative seat."""
    return (np.rint(_block(obs, "points") * 100).astype(int),
            np.rint(_block(obs, "ntricks") * 10).astype(int))


def levels(obs: np.ndarray) -> list[int]:
    """The flek level of each component (game, seven, hundred, two sevens)."""
    return [int(np.argmax(r)) for r in _block(obs, "comp_level").reshape(4, 8)]


def next_level(obs: np.ndarray, label: str) -> int:
    """The level a ``flek:<component>`` raises its component to."""
    if label.startswith("flek:"):
        return levels(obs)[COMPONENT_NAMES.index(label[5:])] + 1
    return 1


def table(obs: np.ndarray, me: int, names: dict[int, str], phase: str) -> dict[str, Any]:
    """The auction and the contract as the human seat ``me`` knows them, with ``tags``:
    the lines a front end shows above the table (Czech / English)."""
    high = _one(obs, "high") or 0
    high_seat = _seat(obs, "high_seat", me)
    in_auction = phase in ("bid", "hold", "lone_bid")
    auction = {
        "open": in_auction,
        "high": GAME_IDS[high - 1] if high else None,
        "high_seat": high_seat,
        "holder": _seat(obs, "holder", me) if in_auction else None,
        "challenger": _seat(obs, "challenger", me) if in_auction else None,
    }
    g = _one(obs, "game")
    actor = _seat(obs, "actor", me)
    trump, helping = _one(obs, "trump_suit"), _one(obs, "helping")
    lead = np.flatnonzero(_block(obs, "lead"))
    bets = []
    exists = _block(obs, "comp_exists")
    for k, (name, lvl) in enumerate(zip(COMPONENT_NAMES, levels(obs))):
        if exists[k]:
            bets.append({"bet": name, "level": lvl, "level_name": level_name(lvl),
                         "cz": COMPONENT_WORDS[name][0], "en": COMPONENT_WORDS[name][1]})
    tags = []
    if in_auction:
        tags.append("licitace / auction")
        if high:
            cz, en = game_words(GAME_IDS[high - 1])
            tags.append(f"nejvyšší / standing bid: {cz} / {en} ({names[high_seat]})")
        else:
            tags.append("zatím bez licitu / no bid yet")
        for key, cz, en in (("holder", "drží", "holder"), ("challenger", "licituje",
                                                            "challenger")):
            if auction[key] is not None:
                tags.append(f"{cz} / {en}: {names[auction[key]]}")
    elif high and actor is not None:
        tags.append(f"aktér / actor: {names[actor]}")
        bid_cz, bid_en = game_words(GAME_IDS[high - 1])
        if g is None:
            tags.append(f"vydražil / won the auction at: {bid_cz} / {bid_en}")
        else:
            cz, en = game_words(GAME_IDS[g])
            tags.append(f"hra / game: {cz} / {en}")
        if trump is not None:
            tags.append(f"trumfy / trumps: {_suit_words(trump)}")
        if helping is not None:
            tags.append(f"pomocná / helping: {_suit_words(helping)}")
        for b in bets:
            if b["level"]:
                tags.append(f"{b['cz']} {b['level_name']} / {b['en']} {b['level_name']}")
        if lead.size:
            c = card_info(CARD_CODES[int(lead[0])])
            tags.append(f"vaše karta lícem dolů / your face-down lead: {c['short']}")
    contract = {
        "actor": actor, "kind": GAME_IDS[g] if g is not None else None,
        "game_cz": game_words(GAME_IDS[g])[0] if g is not None else None,
        "game_en": game_words(GAME_IDS[g])[1] if g is not None else None,
        "trump": SUITS[trump] if trump is not None else None,
        "trump_en": SUIT_NAMES_EN[trump] if trump is not None else None,
        "helping": SUITS[helping] if helping is not None else None,
        "trump_card": None, "announce": None, "bets": bets,
        "lead": CARD_CODES[int(lead[0])] if lead.size else None,
        "tags": tags,
    }
    return {"auction": auction, "contract": contract,
            "positions": {s: p for p, s in (("holder", auction["holder"]),
                                            ("challenger", auction["challenger"]))
                          if s is not None}}


def _suit_words(s: int) -> str:
    return f"{SUIT_SYMBOLS[s]} {SUIT_NAMES_CZ[s]} / {SUIT_NAMES_EN[s]}"


def settlement_lines(s: dict[str, Any], names: dict[int, str]) -> list[str]:
    """A licitovaný deal's settlement line by line (LICITOVANY.md §9): every component with
    its level, outcome and amount, the net per defender, the cap, a laid-game transfer and
    the payments, in desetníky."""
    end_cz, end_en = END_WORDS.get(s["end"], (s["end"], s["end"]))
    if s["game"] is None and s["bid"] is None:
        head = f"{end_cz} / {end_en}"
    else:
        game = s["game"] or s["bid"]
        cz, en = game_words(game)
        head = f"{names[s['actor']]}: {cz} / {en}"
        extra = [_suit_words(SUITS.index(s[k])) for k in ("trump", "helping") if k in s]
        if extra:
            head += f" ({', '.join(extra)})"
        head += f" — {end_cz} / {end_en}"
    lines = [head]
    if "points" in s and s["game"] not in ("betl", "durch"):
        p = s["points"]
        lines.append(f"body / points: aktér / actor {p['actor_cards']} + hlášky "
                     f"{p['actor_marriages']}, obrana / defence {p['defence_cards']} + hlášky "
                     f"{p['defence_marriages']}")
    for c in s["components"]:
        cz, en = COMPONENT_WORDS[c["component"]]
        lvl = f" {c['level_name']}" if c["level_name"] else ""
        silent = f" (tiché sto / silent hundred: {c['silent_hundred']})" \
            if c.get("silent_hundred") else ""
        if "owner" in c:  # the silent seven: whose seven won or lost (§9)
            silent = f" ({names[c['seat']]}, {OWNER[c['owner']]})"
        lines.append(f"{cz}{lvl} / {en}{lvl}: "
                     f"{'vyhráno / won' if c['won'] else 'prohráno / lost'}{silent} "
                     f"{c['amount']:+d}")
    lines.append(f"od každého obránce / per defender: {s['net']:+d} {UNIT}")
    if s["capped"]:
        lines.append(f"strop 50,- / cap: {s['net']:+d} → {s['amount']:+d}")
    if "laid_transfer" in s:
        t = s["laid_transfer"]
        lines.append(f"položená hra / laid game: {names[t['payer']]} platí za oba / pays for "
                     f"both {t['amount']}")
    lines.append("platby / payments: " + ", ".join(
        f"{names[i]} {p:+d}" for i, p in enumerate(s["payments"])) + f" ({UNIT})")
    return lines


def actor_won(s: dict[str, Any]) -> bool:
    """Whether the deal's actor won it (the series' tie-break counts such deals)."""
    return s["actor"] >= 0 and s["payments"][s["actor"]] > 0


__all__ = ["table", "settlement_lines", "actor_won"]
