"""The play table's defects found by an outside audit (a browser session against the
robots): each test fails on the table before its fix."""

from __future__ import annotations

import random

from mariash_env.play.session import PlaySession


def _until_flek_turns(s: PlaySession, rng: random.Random, deals: int = 2):
    """Every state where the human is to answer a flek turn, playing ``deals`` deals."""
    st = s.state()
    while s.waiting != "partie_over" and st["deal"] < deals:
        if s.waiting == "robot":
            st = s.advance(s.id, s.move)
        elif s.waiting == "human":
            if st["phase"] == "flek":
                yield st
            st = s.act(s.id, s.move, rng.choice(st["legal"]))
        else:
            st = s.next_deal(s.id, s.move)


def test_the_flek_prompt_names_only_the_moves_on_offer(tmp_path):
    # seed 7, deal 1: the human answers "dobrá" to "Barva?", robot 2 flekks the game: the
    # human's turn offers "dobrá" and "sedma proti", no flek (RULES.md §5.3)
    s = PlaySession("table,table", save_dir=tmp_path, seed=7, human_seat=0)
    st = s.state()
    while st["phase"] != "flek" or s.waiting != "human":
        st = s.advance(s.id, s.move) if s.waiting == "robot" else \
            s.act(s.id, s.move, "good" if "good" in st["legal"] else st["legal"][0])
    assert sorted(st["legal"]) == ["against:seven", "good"]
    assert st["prompt"] == {"cz": "sedma proti, nebo dobrá", "en": "seven against or good"}
    # every flek turn, three and four players and licitovaný: "flek" (or its level word)
    # is in the prompt exactly when a flek is legal
    for rules, options, robots in (("voleny", None, "table,table"),
                                   ("voleny", {"players": 4}, "table,table,table"),
                                   ("licitovany", None, "table,table")):
        seen = 0
        for seed in range(3):
            s = PlaySession(robots, save_dir=tmp_path / f"{rules}{options}{seed}", seed=seed,
                            human_seat=seed % 3, rules=rules, options=options)
            for st in _until_flek_turns(s, random.Random(seed)):
                words = {c["cz"].split(" na ")[0] for c in st["choices"]
                         if c["label"].startswith("flek:")}
                said = st["prompt"]["cz"].split(", nebo ")[0].split(", ")
                assert bool(words) == bool(words & set(said)), (st["legal"], st["prompt"])
                assert all(w in st["prompt"]["cz"] for w in words)
                seen += 1
        assert seen, rules
