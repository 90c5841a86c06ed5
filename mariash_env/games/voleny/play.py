"""What the table shows of a volený deal (RULES.md): the actor, the contract, trumps, the
announcement, the bets with their flek levels, the trump card chosen face down, and the
settlement line by line in groše.  Everything is read from the human seat's observation
(:data:`~mariash_env.games.voleny.observe.OBS_LAYOUT`) or from the settlement the engine
computed: no rule is decided here.  :data:`VIEW` is the kind's ``table_view``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import CARD_CODES, SUITS, cards_of, suit_of
from ...play.i18n import LANGS, SUIT_CZ, SUIT_EN, bet_why, both, card_names, t
from ...play.labels import SUIT_NAMES_EN
from ...play.labels import describe as describe_label
from ..base import TableView
from .observe import OBS_LAYOUT
from .record import level_name

ROLES = ("forhont", "middlehand", "dealer")
CARD_HEADS = ("trump", "discard", "play")
BETS = ("game", "seven", "seven_against", "hundred_against")
ANNOUNCE = ("hra", "sedma", "sto", "sto_sedma")
BLOCKS = {name: (off, size) for name, off, size, _ in OBS_LAYOUT}
NO_CARD_PLAY = ("conceded", "sedma_not_played")  # RULES.md §5.4: no card is played


def _block(obs: np.ndarray, name: str) -> np.ndarray:
    off, size = BLOCKS[name]
    return obs[off:off + size]


def _seat(rel: np.ndarray, me: int) -> int:
    """The absolute seat of a relative one-hot block (-1 when empty)."""
    hit = np.flatnonzero(rel)
    return int((hit[0] + me) % 3) if hit.size else -1


def contract(obs: np.ndarray) -> str:
    c = _block(obs, "contract")
    return ("suit", "betl", "durch")[int(np.argmax(c))] if c.any() else "suit"


def bet_levels(obs: np.ndarray) -> list[int]:
    """The flek level of each bet of :data:`BETS`."""
    return [int(np.argmax(r)) for r in _block(obs, "bet_level").reshape(4, 8)]


def next_level(obs: np.ndarray, label: str) -> int:
    """The level a ``flek:<bet>`` raises its bet to."""
    if label.startswith("flek:"):
        return bet_levels(obs)[BETS.index(label[5:])] + 1
    return 1


def describe(obs: np.ndarray, label: str) -> dict[str, str]:
    """The Czech and English words of ``label`` in the state of ``obs``."""
    return describe_label(label, next_level(obs, label), contract(obs))


def hand(obs: np.ndarray) -> list[str]:
    m = sum(1 << int(i) for i in np.flatnonzero(_block(obs, "hand")))
    return [CARD_CODES[c] for c in cards_of(m)]


def counts(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Card points and tricks taken per relative seat."""
    return (np.rint(_block(obs, "points") * 100).astype(int),
            np.rint(_block(obs, "ntricks") * 10).astype(int))


def forehand(obs: np.ndarray, me: int) -> int | None:
    seat = _seat(_block(obs, "forehand"), me)
    return seat if seat >= 0 else None


def table(obs: np.ndarray, me: int, names: dict[str, dict[int, str]], phase: str
          ) -> dict[str, Any]:
    """Volený's contract as seat ``me`` knows it: actor, game, trumps, announcement, bets
    with their levels, and ``tags`` (the lines above the table, each ``{"cz", "en"}``);
    ``names[lang]`` are the seats' names in each language."""
    kind = contract(obs)
    levels = bet_levels(obs)
    trump = _block(obs, "trump_suit")
    trump_card = np.flatnonzero(_block(obs, "trump_card"))
    # the seat's own trump card not yet announced: its suit marks the hand (§3–§4)
    own = np.eye(4)[suit_of(int(trump_card[0]))] if trump_card.size else trump
    actor = _seat(_block(obs, "actor"), me)
    bets = []
    if actor >= 0:
        exists = _block(obs, "bet_exists")
        for b, name in enumerate(BETS):
            if exists[b]:
                bets.append({"bet": name, "level": levels[b],
                             "level_name": level_name(levels[b])})
    announce = _block(obs, "announce")
    # the seat's own trump card lying aside face down: chosen, the suit not yet public,
    # the game a suit game (a betl or durch returns it to the hand, §4); the hand marks it
    aside = CARD_CODES[int(trump_card[0])] if trump_card.size and not trump.any() and \
        (actor < 0 or kind == "suit") else None
    tags: list[dict[str, str]] = []
    if actor >= 0:
        tags.append(both("actor", name={k: names[k][actor] for k in LANGS}))
        if kind != "suit":  # a suit game shows its announcement and trumps
            tags.append(both(f"contract.{kind}"))
        if announce.any():
            tags.append(both("announce." + ANNOUNCE[int(np.argmax(announce))]))
        if trump.any():
            su = SUITS[int(np.argmax(trump))]
            tags.append(both("trumps", suit={"cz": SUIT_CZ[su], "en": SUIT_EN[su]}))
        elif trump_card.size and kind == "suit":  # the actor's own card, not yet announced
            tags.append(both("your_trump_card", card=card_names(CARD_CODES[int(trump_card[0])])))
            trump = own
        for b in bets:
            if b["level"]:
                name = both(f"contract.{kind}") if b["bet"] == "game" and \
                    kind != "suit" else both(f"bet.{b['bet']}")
                tags.append({k: f"{name[k]} {b['level_name']}" for k in LANGS})
    elif trump_card.size:
        code = CARD_CODES[int(trump_card[0])]
        tags.append(both("your_trump_card", card=card_names(code)))
        trump = own
    return {"contract": {
        "tags": tags,
        "actor": actor if actor >= 0 else None,
        "kind": kind if actor >= 0 else None,
        "trump": SUITS[int(np.argmax(trump))] if trump.any() else None,
        "trump_en": SUIT_NAMES_EN[int(np.argmax(trump))] if trump.any() else None,
        "trump_card": CARD_CODES[int(trump_card[0])] if trump_card.size else None,
        "trump_aside": aside,
        "announce": (ANNOUNCE[int(np.argmax(announce))].replace("_", " a ")
                     if announce.any() else None),
        "bets": bets,
    }}


def settlement_facts(game: Any) -> dict[str, Any]:
    """What decided a finished deal of ``game`` beyond its settlement, all public once it
    is over: the trick (0-9) the trump seven fell in (-1: never; a lay-down takes the
    claimer's as played in the last), and each side's first marriage (0, 20, 40: what its
    announced hundred counts, RULES.md §9, §11.2)."""
    from ...core import state as S

    st = game.st
    return {"seven_trick": int(st[S.SEVEN_TRICK]),
            "first": {"actor": int(st[S.SIDE_FIRST]), "defence": int(st[S.SIDE_FIRST + 1])}}


def settlement_lines(s: dict[str, Any], names: dict[int, str], lang: str = "cz",
                     facts: dict[str, Any] | None = None) -> list[str]:
    """A volený deal's settlement in words, line by line, in ``lang``: who played what and
    how it ended, the points, each bet won or lost and why with its amount, the payments;
    ``facts`` (:func:`settlement_facts`) give the reasons the settlement alone does not."""
    con = s["contract"]
    head = t(f"contract.{con}", lang)
    if con == "suit":
        suit = (SUIT_CZ if lang == "cz" else SUIT_EN)[s["trump"]]
        head = f"{t('announce.' + s['announcement'], lang)}, {t('trumps', lang, suit=suit)}"
    lines = [t("settle.head", lang, name=names[s["actor"]], contract=head)
             + f" — {t('end.' + s['end'], lang)}"]
    if con == "suit" and s["trump"] == "h" and s.get("bets"):  # §9: H = 2
        lines[0] += f" · {t('settle.hearts', lang)}"
    if "points" in s and s["end"] not in NO_CARD_PLAY:
        p = s["points"]
        lines.append(t("settle.points", lang, ac=p["actor_cards"], am=p["actor_marriages"],
                       dc=p["defence_cards"], dm=p["defence_marriages"]))
    for b in s["bets"]:
        kind = b.get("kind", b["bet"])
        name = t(f"contract.{kind}", lang) if kind in ("betl", "durch", "open_betl",
                                                      "open_durch") else \
            t("announce.sto" if kind == "sto" else f"bet.{b['bet']}", lang)
        if b.get("level_name"):
            name += f" {b['level_name']}"
        why = bet_why(kind if kind in ("betl", "durch", "open_betl", "open_durch") else
                      b["bet"], b["won"], s, lang, facts)
        if b.get("silent_hundred"):
            why += t("settle.silent_hundred", lang, side=t(f"side.{b['silent_hundred']}", lang))
        if b["bet"] == "silent_seven":
            why += t("settle.silent_seven", lang, name=names[b["seat"]],
                     side=t(f"side.{b['owner']}", lang))
        lines.append(t("settle.bet", lang, bet=name, outcome=t("won" if b["won"] else "lost",
                                                               lang),
                       why=why, amount=f"{b['amount']:+d}"))
    lines.append(t("settle.payments", lang, list=", ".join(
        f"{names[i]} {p:+d}" for i, p in enumerate(s["payments"]))))
    return lines


def actor_won(s: dict[str, Any]) -> bool:
    """Whether the deal's actor won its game bet (the series' tie-break counts such deals)."""
    return any(b["bet"] == "game" and b["won"] for b in s["bets"])


VIEW = TableView(BLOCKS, CARD_HEADS, ROLES, hand, counts, forehand, table, describe,
                 settlement_lines, actor_won, facts=settlement_facts)

__all__ = ["VIEW", "table", "settlement_lines", "settlement_facts", "actor_won"]
