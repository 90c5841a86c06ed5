"""German-suited cards drawn by the project as SVG (no downloaded artwork): červené
(hearts), zelené (leaves), kule (bells) and žaludy (acorns), each in its own colour; 7,
8, 9 and 10 with that many suit marks, spodek, svršek and král as a figure holding the
suit, eso as one large mark.  The corner index (7 … 10, S/Sv/K/E in Czech, U/O/K/A in
English) and a suit mark sit at the top left, where an overlapped hand still shows them
on a phone.  The browser table gets them from ``GET /cards/<code>[-en].svg``.
"""

from __future__ import annotations

from functools import lru_cache

from ..cards import CARD_CODES, card_index
from .i18n import INDEX, LANGS, card_name

W, H = 100, 160  # the card's viewBox: the 56 × 89 mm of a Czech pack, rounded
# fill, darker outline / index colour: four colours a player tells apart at a glance
COLOURS = {"h": ("#d7262e", "#9c1219"), "l": ("#2f8f2f", "#16561a"),
           "b": ("#f0a800", "#a4560a"), "a": ("#8a5a2b", "#4e2f10")}


def _mark(suit: str, x: float, y: float, scale: float = 1.0) -> str:
    """One suit mark (about 20 units wide at scale 1) centred on ``(x, y)``."""
    fill, dark = COLOURS[suit]
    if suit == "h":  # a heart
        body = (f'<path d="M0 9C-12 0-11-10-5-10C-2-10 0-7 0-5C0-7 2-10 5-10C11-10 12 0 0 9Z"'
                f' fill="{fill}" stroke="{dark}" stroke-width="1"/>')
    elif suit == "l":  # a leaf with its stalk and vein
        body = (f'<path d="M0-11C9-6 10 4 0 9C-10 4-9-6 0-11Z" fill="{fill}" stroke="{dark}"'
                f' stroke-width="1"/><path d="M0-8V12M0-2L4-5M0 2L-4-1M0 5L4 2" stroke="{dark}"'
                ' stroke-width="1.2" fill="none"/>')
    elif suit == "b":  # a round bell: band, slit and loop
        body = (f'<circle r="8.5" cy="1" fill="{fill}" stroke="{dark}" stroke-width="1.2"/>'
                f'<path d="M-8.3-1H8.3" stroke="#c1272d" stroke-width="2.4"/>'
                f'<circle cy="5" r="1.6" fill="{dark}"/><path d="M0 6.6V9.5" stroke="{dark}"'
                f' stroke-width="1.2"/><circle cy="-9" r="2" fill="none" stroke="{dark}"'
                ' stroke-width="1.2"/>')
    else:  # an acorn: a hatched cap over the nut
        body = (f'<ellipse cy="3" rx="5.8" ry="7.5" fill="#d39b4a" stroke="{dark}"'
                f' stroke-width="1"/><path d="M-8-1C-8-9 8-9 8-1Z" fill="{fill}" stroke="{dark}"'
                f' stroke-width="1"/><path d="M-5-4L-2-7M-1-3L3-7M3-3L6-6" stroke="{dark}"'
                f' stroke-width="0.9"/><path d="M0-8V-12" stroke="{dark}" stroke-width="1.6"/>')
    return f'<g transform="translate({x:g} {y:g}) scale({scale:g})">{body}</g>'


# Where the marks of 7, 8, 9 and 10 lie: two columns and, for an odd count, the middle
_L, _R, _M = 33, 67, 50
_PIPS = {
    0: [(_L, 42), (_R, 42), (_M, 66), (_L, 90), (_R, 90), (_L, 122), (_R, 122)],
    1: [(x, y) for y in (40, 67, 94, 121) for x in (_L, _R)],
    2: [(x, y) for y in (38, 63, 97, 122) for x in (_L, _R)] + [(_M, 80)],
    3: [(x, y) for y in (36, 60, 84, 108, 132) for x in (_L, _R)],
}


def _figure(suit: str, rank: int) -> str:
    """Spodek (the mark at the waist), svršek (the mark held high) or král (a crown)."""
    fill, dark = COLOURS[suit]
    head_y = 66 if rank == 5 else 54
    out = [f'<path d="M30 140C30 110 36 {head_y + 14} 50 {head_y + 12}C64 {head_y + 14} 70 110'
           f' 70 140Z" fill="{fill}" fill-opacity="0.35" stroke="{dark}" stroke-width="1.5"/>',
           f'<circle cx="50" cy="{head_y}" r="10" fill="#f3d2ad" stroke="{dark}"'
           ' stroke-width="1.2"/>']
    if rank == 6:  # the king's crown
        out.append(f'<path d="M40 {head_y - 8}L38 {head_y - 20}L44 {head_y - 14}L50 '
                   f'{head_y - 22}L56 {head_y - 14}L62 {head_y - 20}L60 {head_y - 8}Z"'
                   ' fill="#f2c230" stroke="#8a6508" stroke-width="1"/>')
        out.append(_mark(suit, 50, 108, 1.2))
    elif rank == 5:  # svršek holds the mark up
        out.append(f'<path d="M62 {head_y + 16}L66 40" stroke="{dark}" stroke-width="3"/>')
        out.append(_mark(suit, 66, 34, 1.2))
    else:  # spodek holds it low
        out.append(f'<path d="M60 {head_y + 20}L66 112" stroke="{dark}" stroke-width="3"/>')
        out.append(_mark(suit, 66, 116, 1.2))
    return "".join(out)


def _index(suit: str, rank: int, lang: str) -> str:
    """The corner index: rank and a small mark, top left and (turned) bottom right."""
    _, dark = COLOURS[suit]
    text = INDEX[lang][rank]
    size = 22 if len(text) == 1 else 19
    corner = (f'<text x="13" y="24" font-size="{size}" font-weight="700" text-anchor="middle"'
              f' font-family="DejaVu Sans, Arial, sans-serif" fill="{dark}">{text}</text>'
              + _mark(suit, 13, 38, 0.62))
    return corner + f'<g transform="rotate(180 50 80)">{corner}</g>'


@lru_cache(maxsize=128)  # 32 cards x 2 languages, whatever spellings of a code are asked
def card_svg(code: str, lang: str = "cz") -> str:
    """The SVG image of card ``code`` (``"9h"``) with the index in ``lang``."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}: expected one of {LANGS}")
    i = card_index(code)
    suit, rank = "hbla"[i >> 3], i & 7
    if rank < 4:
        art = "".join(_mark(suit, x, y, 0.95) for x, y in _PIPS[rank])
    elif rank < 7:
        art = _figure(suit, rank)
    else:  # eso: one large mark in a ring
        _, dark = COLOURS[suit]
        art = (f'<circle cx="50" cy="80" r="30" fill="none" stroke="{dark}" stroke-width="1"'
               ' stroke-dasharray="3 3"/>' + _mark(suit, 50, 80, 2.3))
    title = card_name(code, lang)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" role="img"'
            f' aria-label="{title}"><title>{title}</title>'
            f'<rect x="1" y="1" width="{W - 2}" height="{H - 2}" rx="8" fill="#fffdf6"'
            ' stroke="#6d6d6d" stroke-width="1.5"/>' + _index(suit, rank, lang) + art
            + "</svg>")


@lru_cache(maxsize=1)
def back_svg() -> str:
    """The back of a card: a lattice on dark red."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}">'
            '<defs><pattern id="p" width="10" height="10" patternUnits="userSpaceOnUse"'
            ' patternTransform="rotate(45)"><rect width="10" height="10" fill="#7d1b22"/>'
            '<path d="M0 5H10M5 0V10" stroke="#c7a04a" stroke-width="1"/></pattern></defs>'
            f'<rect x="1" y="1" width="{W - 2}" height="{H - 2}" rx="8" fill="url(#p)"'
            ' stroke="#3b0a0e" stroke-width="1.5"/><rect x="9" y="9" width="82" height="142"'
            ' rx="5" fill="none" stroke="#f3e3b5" stroke-width="1.5"/></svg>')


def svg_for(name: str) -> str:
    """The image named ``<code>``, ``<code>-en`` or ``back``; ValueError naming a bad name."""
    if name == "back":
        return back_svg()
    code, _, lang = name.partition("-")
    if code not in CARD_CODES or lang not in ("", "en"):
        raise ValueError(f"no card image {name!r}: expected a card code like '9h' (with "
                         "'-en' for the English index) or 'back'")
    return card_svg(code, lang or "cz")


__all__ = ["card_svg", "back_svg", "svg_for", "COLOURS"]
