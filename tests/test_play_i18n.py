"""Issue #33: the table's words (one catalogue, Czech in correct grammar, English as a
switch), its own German-suited SVG cards, a deal one can follow (tricks with who takes
them, hlášky, the settlement in words, the review), why a card is not legal, a robot's
hint, the new-partie set-up and the statistics over saved parties."""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET

import pytest

from mariash_env.cards import CARD_CODES
from mariash_env.play import i18n
from mariash_env.play.cards_svg import COLOURS, card_svg, svg_for
from mariash_env.play.series import party_stats
from mariash_env.play.session import PlayError, PlaySession, settlement_lines, why_not
from tests.helpers import table_cap

# The 32 Czech card names, written out by hand: the suit adjective agrees with the rank
# noun's gender (sedma, osma, devítka, desítka feminine; spodek, svršek, král masculine;
# eso neuter).
EXPECTED_CZ = {
    "h": "červená sedma, červená osma, červená devítka, červená desítka, červený spodek, "
         "červený svršek, červený král, červené eso",
    "b": "kulová sedma, kulová osma, kulová devítka, kulová desítka, kulový spodek, "
         "kulový svršek, kulový král, kulové eso",
    "l": "zelená sedma, zelená osma, zelená devítka, zelená desítka, zelený spodek, "
         "zelený svršek, zelený král, zelené eso",
    "a": "žaludská sedma, žaludská osma, žaludská devítka, žaludská desítka, žaludský "
         "spodek, žaludský svršek, žaludský král, žaludské eso",
}


def test_the_32_czech_card_names():
    for suit, names in EXPECTED_CZ.items():
        codes = [r + suit for r in "789TJQKA"]
        assert [i18n.card_name(c) for c in codes] == names.split(", ")
    # the accusative an event line needs ("hraje červenou sedmu")
    assert [i18n.card_name(c, case="acc") for c in ("7h", "Jb", "Kl", "Aa")] == [
        "červenou sedmu", "kulového spodka", "zeleného krále", "žaludské eso"]
    assert i18n.card_name("Qb", "en") == "ober of bells"
    with pytest.raises(ValueError, match="unknown language 'de'"):
        i18n.card_name("7h", "de")


def test_the_table_s_card_words_are_the_glossary_s():
    """Each rank and suit as the table's English names it is in the glossary's row of its
    Czech word (the table's unter and ober were not: the glossary said under-knave and
    over-knave only; found by a table audit)."""
    from pathlib import Path

    rows = [[c.strip() for c in line.split("|")[1:3]] for line in (Path(__file__).resolve(
        ).parents[1] / "docs" / "glossary.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| ")]
    pairs = [(cz, en) for (cz, _, _), en in zip(i18n._RANK_CZ, i18n._RANK_EN)]
    pairs += [(i18n.SUIT_CZ[s].split()[0][:4], i18n.SUIT_EN[s]) for s in i18n.SUITS]
    for cz, en in pairs:
        assert any(cz in czech and en in english for czech, english in rows), (cz, en)


def test_every_message_in_both_languages():
    cat = i18n.catalogue()
    assert set(cat) == {"cz", "en"} and set(cat["cz"]) == set(cat["en"])
    for key, (cz, en) in i18n.MESSAGES.items():
        assert cz and en, key
        # the same {fields} in both languages, so a message fills in either
        assert sorted(re.findall(r"\{(\w+)", cz)) == sorted(re.findall(r"\{(\w+)", en)), key
    assert len([k for k in cat["cz"] if k.startswith("card.")]) == 32
    with pytest.raises(KeyError, match="no message 'nope'"):
        i18n.t("nope")
    assert i18n.both("takes", name={"cz": "vy", "en": "you"}) == {"cz": "bere vy",
                                                                 "en": "you takes it"}


def test_the_page_uses_only_catalogue_keys():
    # every T("key") and data-msg="key" of the page exists in the catalogue
    from mariash_env.play.web import STATIC

    keys = set(i18n.catalogue()["cz"])
    js = (STATIC / "table.js").read_text(encoding="utf-8")
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    used = set(re.findall(r'\bT\("([\w.]+)"', js)) | set(re.findall(r'data-msg="([\w.]+)"', html))
    whole = {k for k in used if not k.endswith(".")}  # "card." + code: a family of keys
    assert whole and whole <= keys, whole - keys
    for family in used - whole:
        assert any(k.startswith(family) for k in keys), family


def test_the_cards_are_drawn_as_svg():
    for lang in ("cz", "en"):
        for code in CARD_CODES:
            root = ET.fromstring(card_svg(code, lang))  # well-formed XML
            assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 100 160"
    # four suit colours, each card in its own; the corner index per language
    assert len({c for c, _ in COLOURS.values()}) == 4
    assert COLOURS["h"][0] in card_svg("9h") and COLOURS["b"][0] not in card_svg("9h")
    assert ">Sv<" in card_svg("Qa") and ">O<" in card_svg("Qa", "en")
    assert card_svg("9h").count("<path") == 9 * 1 + 2  # nine hearts and two index hearts
    assert svg_for("back").startswith("<svg") and svg_for("Ah-en") == card_svg("Ah", "en")
    with pytest.raises(ValueError, match="no card image 'Xh'"):
        svg_for("Xh")


def test_why_a_card_is_not_legal():
    trick = [{"suit": "a", "code": "Ka"}]
    hand = ["7h", "9a", "Aa", "8l"]
    follow = why_not("7h", hand, trick, "h", "play", True)
    assert follow["cz"] == "musíte přiznat barvu (žaludy)"
    assert why_not("9a", hand, trick, "h", "play", True)["en"].startswith("you must beat")
    # RULES.md §6: the trump seven waits for the last trick
    assert "sedmu" in why_not("7h", ["7h", "8h"], [], "h", "play", True)["cz"]
    assert why_not("8l", ["7h", "8h", "8l"], trick, "h", "play", True)["cz"] == \
        "nemáte barvu: musíte trumfnout"
    assert why_not("Ta", hand, [], "h", "discard", True)["en"] == \
        "an ace or a ten may not go to the talon"  # RULES.md §4
    assert why_not("Ta", hand, [], "h", "play", False)["cz"] == "nejste na tahu"


def _deal(s: PlaySession, rng: random.Random) -> dict:
    st = s.state()
    tick = table_cap(s, deals=1)
    while s.waiting in ("human", "robot"):
        tick()
        st = s.advance(s.id, s.move) if s.waiting == "robot" else \
            s.act(s.id, s.move, rng.choice(st["legal"]))
    return st


def test_a_deal_one_can_follow(tmp_path):
    s = PlaySession("table,table", save_dir=tmp_path, seed=4, human_seat=0)
    rng = random.Random(2)
    st = s.state()
    dealt = [sorted(c["code"] for c in st["hand"])]
    hints = 0
    tick = table_cap(s, deals=1)
    while s.waiting in ("human", "robot"):
        tick()
        if s.waiting == "human" and hints < 2:  # a hint names a legal action, changes nothing
            move = s.move
            h = s.hint(s.id, s.move)
            assert h["label"] in st["legal"] and h["cz"] and s.move == move
            hints += 1
        st = s.advance(s.id, s.move) if s.waiting == "robot" else \
            s.act(s.id, s.move, rng.choice(st["legal"]))
        assert "review" not in json.dumps(st["deal_results"][:0])
        if st["waiting"] != "next_deal":
            assert st["settlement"] is None  # nothing of the review before the end
    rec = s.game.records[0]
    plays = [(seat, lab[5:]) for seat, lab in rec["actions"] if lab.startswith("play:")]
    # every trick with its cards in order and who took it (the next trick's leader)
    tricks = st["tricks"]
    assert [(c["seat"], c["code"]) for t in tricks for c in t["cards"]] == \
        plays[:3 * len(tricks)]
    for t, nxt in zip(tricks, tricks[1:]):
        assert nxt["cards"][0]["seat"] == t["winner"]
    takes = [e for e in st["events"] if "takes" in e]
    assert len(takes) == len(tricks) and all("bere " in e["cz"] or "berete vy" in e["cz"]
                                             for e in takes)
    # the review: the hands as dealt, every trick; the settlement in words, no raw ids
    review = st["settlement"]["review"]  # (while the partie goes on: what you saw)
    assert sorted(review["hands"][0]) == dealt[0] and review["tricks"] == tricks
    for seat in (1, 2):
        assert set(review["hands"][seat]) <= {c["code"] for t in tricks for c in t["cards"]
                                              if c["seat"] == seat}
    lines = st["settlement"]["lines"]
    for text in lines["cz"] + lines["en"]:
        assert not re.search(r"seven_against|laid_down|decided_early|hundred_against|_", text)
    assert lines["cz"][-1].startswith("platby: ") and lines["en"][-1].startswith("payments: ")
    facts = s.view.facts(s.game)  # what decided the deal beyond its settlement
    assert lines == {k: settlement_lines(rec["settlement"], s.shown_names[k], k, facts)
                     for k in ("cz", "en")}


def test_marriages_are_announced_when_played(tmp_path):
    # RULES.md §7: a K or Q played with its partner in hand announces 20 (40 in trumps)
    for seed in range(12):
        s = PlaySession("table,table", save_dir=tmp_path / str(seed), seed=seed, human_seat=0)
        st = _deal(s, random.Random(seed))
        married = [e for e in st["events"] if "marriage" in e]
        if married:
            e = married[0]
            assert e["card"][0] in "QK" and e["card"][1] == e["marriage"]["suit"]
            assert f"hláška {e['marriage']['points']}" in e["cz"]
            assert e["marriage"]["points"] in (20, 40)
            return
    pytest.fail("no marriage in 12 deals")


def test_a_new_partie_with_options_and_statistics(tmp_path):
    s = PlaySession("random,table", save_dir=tmp_path, seed=1, human_seat=2,
                    options={"deals": 1, "tariff": "csm"})
    assert s.game.rules.deals == 1 and s.game.rules.tariff == "csm"
    _deal(s, random.Random(0))
    assert s.state()["waiting"] == "partie_over"
    resumed = PlaySession.resume(s.session_path)
    assert resumed.options == {"deals": 1, "tariff": "csm"}
    with pytest.raises(PlayError, match="invalid options: unknown rule option 'speed'"):
        PlaySession("table,table", save_dir=tmp_path, options={"speed": 2})
    with pytest.raises(PlayError, match="'rules' is not an option of the table"):
        PlaySession("table,table", save_dir=tmp_path, options={"rules": "licitovany"})
    # players=4 seats three robots (tests/test_play_four.py)
    with pytest.raises(PlayError, match="expected three robots"):
        PlaySession("table,table", save_dir=tmp_path, options={"players": 4})
    stats = party_stats(tmp_path)
    g = stats["games"]["voleny"]
    rec = s.game.records[0]["settlement"]
    assert g["parties"] == 1 and g["deals"] == 1 and g["total"] == rec["payments"][2]
    played = sum(c["played"] for c in g["contracts"].values())
    assert played == (rec["actor"] == 2) and stats["skipped"] == []
    # the statistics name each contract in both languages
    from mariash_env.play.series import contract_words

    assert contract_words("sto_sedma") == {"cz": "sto a sedma", "en": "hundred and seven"}
    assert contract_words("betl") == {"cz": "betl", "en": "betl"}
    assert contract_words("dve_sedmy") == {"cz": "dvě sedmy", "en": "two sevens"}
    assert all(c["cz"] and c["en"] for c in g["contracts"].values())


def test_the_pages_new_endpoints(tmp_path):
    from tests.helpers import page_client

    with page_client(tmp_path) as c:
        cat = c.get("/api/messages").json()
        assert cat["cz"]["card.9h"] == "červená devítka" and cat["en"]["card.9h"] == \
            "nine of hearts"
        setup = c.get("/api/setup").json()
        assert setup["robots"]["voleny"][0] == "random" and "table" in \
            setup["robots"]["licitovany"]
        # the form offers each game's trained network, weakest robot first, each named in
        # both languages
        assert setup["robots"]["voleny"] == ["random", "table", "net", "pimc", "strong"]
        assert setup["robots"]["licitovany"] == ["random", "table", "net", "pimc", "strong"]
        assert setup["robots"]["lizany"] == ["random", "table", "net", "pimc", "strong"]
        for robots in setup["robots"].values():
            assert all(cat[lang][f"robot.{r}"] for r in robots for lang in ("cz", "en"))
        # the form starts from each game's own partie (deals, flek limit), names tariffs
        assert setup["defaults"] == {
            "voleny": {"3": {"deals": 12, "max_flek": 4}, "4": {"deals": 16, "max_flek": 4}},
            "licitovany": {"3": {"deals": 12, "max_flek": 5}}, "lizany": {"2": {"deals": 12}}}
        assert all(cat[lang][f"tariff.{x}"] for x in setup["tariffs"] for lang in ("cz", "en"))
        svg = c.get("/cards/Qa-en.svg")
        assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg")
        assert c.get("/cards/Zz.svg").status_code == 404
        for game in ("voleny", "licitovany"):
            page = c.get(f"/rules/{game}")
            assert page.status_code == 200 and "<h1" in page.text
        assert c.get("/rules/nope").status_code == 404
        st = c.get("/api/state").json()
        hint = c.post("/api/hint", json={"session": st["session"], "move": st["move"]})
        assert hint.status_code == 200 and hint.json()["hint"]["label"] in st["legal"]
        # a new partie as the page's form chose it: game, seat, robots, options
        body = {"session": st["session"], "move": st["move"], "setup": {
            "rules": "licitovany", "seat": 2, "robots": ["random", "table"],
            "options": {"deals": 2}}}
        new = c.post("/api/new", json=body).json()
        assert new["rules"] == "licitovany" and new["human_seat"] == 2 and new["deals"] == 2
        # the state names its setup: what the page's "new partie" plays once more
        assert new["setup"] == body["setup"]
        again = c.post("/api/new", json={"session": new["session"], "move": new["move"],
                                         "setup": new["setup"]}).json()
        assert again["session"] != new["session"] and again["setup"] == body["setup"]
        new = again
        bad = c.post("/api/new", json={"session": new["session"], "move": new["move"],
                                       "setup": {"rules": "voleny", "colour": 1}})
        assert bad.status_code == 400 and "unknown setup field 'colour'" in bad.json()["error"]
        assert bad.json()["code"] == "invalid"  # a setup error has its code too
        seat = c.post("/api/new", json={"session": new["session"], "move": new["move"],
                                        "setup": {"rules": "voleny", "seat": 5}}).json()
        assert "invalid human seat 5" in seat["error"] and seat["code"] == "invalid"
        assert c.get("/api/stats").json() == {"games": {}, "skipped": []}


def test_the_settlement_says_why_hearts_pay_double():
    """RULES.md §9 (H = 2 in hearts), LICITOVANY.md §9 (the lepší games): the banner's
    first line says so, and only there."""
    import numpy as np

    import mariash_env
    from mariash_env.games.licitovany.play import settlement_lines as licit_lines
    from mariash_env.games.voleny.play import settlement_lines as voleny_lines
    from tests.helpers import random_play

    seen = {}
    for rules, lines_of in (("voleny", voleny_lines), ("licitovany", licit_lines)):
        for seed in range(60):
            env = mariash_env.env(rules=rules, deals=1)
            env.reset(seed=seed)
            for _ in random_play(env, np.random.default_rng(seed)):
                pass
            s = env.unwrapped.records[-1]["settlement"]
            head = lines_of(s, {0: "A", 1: "B", 2: "C"}, "en")[0]
            hearts = (s.get("lepsi") if rules == "licitovany" else
                      s["contract"] == "suit" and s["trump"] == "h") and bool(
                s.get("components", s.get("bets")))
            assert ("hearts: " in head and "doubled" in head) == hearts, (rules, head)
            seen[rules, hearts] = True
    assert len(seen) == 4, seen
