"""What the table shows of a licitovaný deal (LICITOVANY.md): the auction as it happens,
the actor's game, trumps, helping suit and face-down lead, the components with their flek
levels, and the settlement line by line in desetníky.  Everything is read from the human
seat's observation (:data:`~mariash_env.games.licitovany.observe.LOBS_LAYOUT`) or from the
settlement the engine computed: no rule is decided here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import CARD_CODES, SUITS, cards_of
from ...core.state import COMPONENT_NAMES
from ...play.i18n import LANGS, MESSAGES, SUIT_CZ, SUIT_EN, amount, bet_why, card_name, t
from ...play.labels import SUIT_NAMES_EN, describe_licit, game_words
from ..base import TableView
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
UNIT = "desetníky"


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


def describe(obs: np.ndarray, label: str) -> dict[str, str]:
    """The Czech and English words of ``label`` in the state of ``obs``."""
    return describe_licit(label, next_level(obs, label))


def table(obs: np.ndarray, me: int, names: dict[str, dict[int, str]], phase: str
          ) -> dict[str, Any]:
    """The auction and the contract as the human seat ``me`` knows them, with ``tags``:
    the lines a front end shows above the table, each ``{"cz", "en"}``; ``names[lang]``
    are the seats' names in each language."""
    high = _one(obs, "high") or 0
    high_seat = _seat(obs, "high_seat", me)
    in_auction = phase in ("bid", "hold", "lone_bid")
    auction = {
        "open": in_auction,
        "high": GAME_IDS[high - 1] if high else None,
        "high_seat": high_seat,
        # bidding alone (both others passed) nobody holds or challenges any more
        "holder": _seat(obs, "holder", me) if in_auction and phase != "lone_bid" else None,
        "challenger": _seat(obs, "challenger", me) if in_auction and phase != "lone_bid"
        else None,
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
    tags: list[dict[str, str]] = []

    def tag(cz: str, en: str) -> None:
        tags.append({"cz": cz, "en": en})

    if in_auction:
        tag("licitace", "auction")
        if high:
            cz, en = game_words(GAME_IDS[high - 1])
            tag(f"nejvyšší licit: {cz} ({names['cz'][high_seat]})",
                f"standing bid: {en} ({names['en'][high_seat]})")
        else:
            tag("zatím bez licitu", "no bid yet")
        for key, cz, en in (("holder", "drží", "holds"), ("challenger", "licituje", "bids")):
            if auction[key] is not None:
                tag(f"{cz}: {names['cz'][auction[key]]}", f"{en}: {names['en'][auction[key]]}")
    elif high and actor is not None:
        tag(f"aktér: {names['cz'][actor]}", f"actor: {names['en'][actor]}")
        bid_cz, bid_en = game_words(GAME_IDS[high - 1])
        if g is None:
            tag(f"vydražil: {bid_cz}", f"won the auction at: {bid_en}")
        else:
            cz, en = game_words(GAME_IDS[g])
            tag(f"hra: {cz}", f"game: {en}")
        if trump is not None:
            tag(f"trumfy: {SUIT_CZ[SUITS[trump]]}", f"trumps: {SUIT_EN[SUITS[trump]]}")
        if helping is not None:
            tag(f"pomocná barva: {SUIT_CZ[SUITS[helping]]}",
                f"helping suit: {SUIT_EN[SUITS[helping]]}")
        for b in bets:
            if b["level"]:
                tag(f"{b['cz']} {b['level_name']}", f"{b['en']} {b['level_name']}")
        if lead.size:
            code = CARD_CODES[int(lead[0])]
            tag(f"vaše karta lícem dolů: {card_name(code)}",
                f"your face-down lead: {card_name(code, 'en')}")
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


def settlement_lines(s: dict[str, Any], names: dict[int, str], lang: str = "cz",
                     facts: dict[str, Any] | None = None) -> list[str]:
    """A licitovaný deal's settlement in words, line by line, in ``lang`` (LICITOVANY.md
    §9): every component with its level, outcome, why and amount, the net per defender,
    the cap, a laid-game transfer and the payments, in desetníky."""
    k = LANGS.index(lang)
    end = t(f"end.{s['end']}", lang) if f"end.{s['end']}" in MESSAGES else s["end"]
    if s["game"] is None and s["bid"] is None:
        head = end
    else:
        game = game_words(s["game"] or s["bid"])[k]
        extra = [t("trumps", lang, suit=_suit(s["trump"], lang))] if "trump" in s else []
        if "helping" in s:
            extra.append(("helping suit: " if k else "pomocná barva: ") + _suit(s["helping"], lang))
        head = t("settle.head", lang, name=names[s["actor"]],
                 contract=game + (f" ({', '.join(extra)})" if extra else "")) + f" — {end}"
        if s.get("lepsi") and s["components"]:  # §9: H = 2 in the lepší (hearts) games
            head += f" · {t('settle.hearts.licitovany', lang)}"  # not the two sevens
    lines = [head]
    p = s.get("points")
    # no card points at all: no card was played (a folded or not-played deal), no line
    if p and s["game"] not in ("betl", "durch") and p["actor_cards"] + p["defence_cards"]:
        lines.append(t("settle.points", lang, ac=p["actor_cards"], am=p["actor_marriages"],
                       dc=p["defence_cards"], dm=p["defence_marriages"]))
    for c in s["components"]:
        name = COMPONENT_WORDS[c["component"]][k] + (f" {c['level_name']}" if c["level_name"]
                                                    else "")
        why = bet_why(s["game"] if s["game"] in ("betl", "durch") else c["component"],
                      c["won"], s, lang, facts)
        if c.get("silent_hundred"):
            why += t("settle.silent_hundred", lang, side=t(f"side.{c['silent_hundred']}", lang))
        if "owner" in c:  # the silent seven: whose seven won or lost (§9)
            why += t("settle.silent_seven", lang, name=names[c["seat"]],
                     side=t(f"side.{c['owner']}", lang))
        lines.append(t("settle.bet", lang, bet=name, outcome=t("won" if c["won"] else "lost",
                                                               lang),
                       why=why, amount=f"{c['amount']:+d}"))
    lines.append(t("settle.per_defender", lang, net=amount(s["net"], UNIT, lang)))
    if s["capped"]:
        lines.append(t("settle.cap", lang, net=f"{s['net']:+d}", amount=f"{s['amount']:+d}"))
    if "laid_transfer" in s:
        tr = s["laid_transfer"]
        lines.append(t("settle.laid", lang, name=names[tr["payer"]], amount=tr["amount"]))
    lines.append(t("settle.payments", lang, list=", ".join(
        f"{names[i]} {p:+d}" for i, p in enumerate(s["payments"]))) + f" ({UNIT})")
    return lines


def settlement_facts(game: Any) -> dict[str, Any]:
    """The trick (0-9) the trump seven fell in, -1 never: a seven component lost before
    the last trick says so (public once the deal is over)."""
    from ...core import state as S

    return {"seven_trick": int(game.st[S.SEVEN_TRICK])}


def _suit(code: str, lang: str) -> str:
    return (SUIT_CZ if lang == "cz" else SUIT_EN)[code]


def actor_won(s: dict[str, Any]) -> bool:
    """Whether the deal's actor won it (the series' tie-break counts such deals)."""
    return s["actor"] >= 0 and s["payments"][s["actor"]] > 0


VIEW = TableView(BLOCKS, CARD_HEADS, ROLES, hand, counts, forhond, table, describe,
                 settlement_lines, actor_won, talon=True, facts=settlement_facts)
"""The kind's ``table_view``: the talon is dealt face down (LICITOVANY.md), shown in the
deal's review."""

__all__ = ["VIEW", "table", "settlement_lines", "actor_won"]
