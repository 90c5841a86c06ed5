"""The network's derived inputs (training.features): what the rules of following (RULES.md
§6) tell a seat about the other hands, computed in the graph from the observation alone.

Checked against the hidden hands (nothing excluded that a seat holds: the features never
lie) and against a plain reading of the game record, trick by trick (they find every
inference of the four rules: none missed)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import mariash_env  # noqa: E402
from mariash_env.core import state as S  # noqa: E402
from mariash_env.core.tricks import cards_played, played_card  # noqa: E402
from mariash_env.kinds import VOLENY, kind_of  # noqa: E402
from training.features import N_KNOWLEDGE, CardKnowledge  # noqa: E402
from training.networks import MLP, add_inputs, build_network  # noqa: E402

SUIT_GAME_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)  # §1: 7 8 9 J Q K 10 A in a suit game


def rule_reading(st: np.ndarray, me: int) -> np.ndarray:
    """``bool[3, 32]``, by seat relative to ``me``: the cards the record shows each seat
    cannot hold, read trick by trick in plain Python (the oracle)."""
    cannot = np.zeros((3, 32), bool)
    suit_game = st[S.CONTRACT] == 1
    trump = st[S.TRUMP_CARD] >> 3 if suit_game else -1

    def strength(c: int) -> int:
        return SUIT_GAME_STRENGTH[c & 7] if suit_game else c & 7

    def suit_cards(su: int, above: int = -1) -> np.ndarray:
        return np.array([c >> 3 == su and strength(c) > above for c in range(32)])

    trick: list[int] = []
    for k in range(cards_played(st)):
        t, j, p, c = played_card(st, k)
        if j == 0:
            trick = [c]
            continue
        led = trick[0] >> 3

        def key(x: int, led: int = led) -> int:
            if x >> 3 == trump:
                return 16 + strength(x)
            return 8 + strength(x) if x >> 3 == led else 0

        best = max(key(x) for x in trick)
        r = (p - me) % 3
        if c >> 3 != led:  # did not follow
            cannot[r] |= suit_cards(led)
            if suit_game and c >> 3 != trump:
                cannot[r] |= suit_cards(trump)
            elif suit_game and best >= 16 and key(c) < best:  # trumped low
                cannot[r] |= suit_cards(trump, best - 16)
        elif led == trump and key(c) < best:  # a trump lead, not beaten
            cannot[r] |= suit_cards(trump, best - 16)
        elif best < 16 and key(c) < best:  # followed, not trumped, not beaten
            cannot[r] |= suit_cards(led, best - 8)
        trick.append(c)
    return cannot


def hand_bits(st: np.ndarray, seat: int) -> np.ndarray:
    h = S.getm(st, S.HAND + seat)
    return np.array([(h >> c) & 1 for c in range(32)], bool)


def random_play(games: int, seed: int):
    """Observations of the card play (every seat's, every decision) of ``games`` deals
    played with uniform legal actions, with what the oracle and the hidden hands say."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        env = mariash_env.env()
        env.reset(seed=seed * 1000 + g)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            st = env.unwrapped.game.st
            if st[S.PHASE] == S.PH_PLAY:
                me = env.unwrapped.agent_name_mapping[agent]
                hands = np.stack([hand_bits(st, (me + r) % 3) for r in range(3)])
                rows.append((obs["observation"].copy(), rule_reading(st, me), hands,
                             int(st[S.CONTRACT])))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return rows


def test_knowledge_is_sound_and_complete() -> None:
    """§6 read off the observation: every card the record rules out is ruled out, no other,
    and never a card the seat holds; ``may`` is what the seat has not seen, less that;
    ``only`` what one of the two others may hold and the other not."""
    rows = random_play(40, seed=3)
    obs = torch.from_numpy(np.stack([r[0] for r in rows]))
    f = CardKnowledge(VOLENY)(obs).numpy().reshape(-1, 3, 2, 32) > 0.5
    cannot, may, only = f[:, 0], f[:, 1], f[:, 2]
    oracle = np.stack([r[1][1:] for r in rows])
    hands = np.stack([r[2] for r in rows])
    assert np.array_equal(cannot, oracle)
    assert not (cannot & hands[:, 1:]).any()  # sound: the hidden hands agree
    assert not (hands[:, 1:] & ~may).any()  # a held card is always possible
    assert not (may & hands[:, :1]).any()  # never the observer's own cards
    assert np.array_equal(only, may & ~may[:, ::-1])
    # the check saw each kind of inference and every contract, so it can fail
    assert oracle.sum() > 0 and (oracle.sum(-1) % 8 != 0).any()  # beyond whole suits
    assert {r[3] for r in rows} >= {1, 2, 3}


def test_knowledge_network_starts_as_its_init() -> None:
    """``network.features = ['knowledge']``: 192 inputs added to the first layer, at weight
    0 from a network without them (the same scores); refused for another game."""
    net = build_network({"hidden": [32, 16], "features": ["knowledge"]}, VOLENY)
    assert net.body[0].in_features == VOLENY.obs_size + N_KNOWLEDGE
    plain = MLP([32, 16], obs_size=VOLENY.obs_size, num_actions=VOLENY.n_actions)
    for p in plain.parameters():
        torch.nn.init.normal_(p, generator=torch.Generator().manual_seed(p.numel()))
    assert add_inputs(plain, net) == N_KNOWLEDGE
    obs = torch.from_numpy(np.stack([r[0] for r in random_play(2, seed=5)]))
    assert torch.allclose(net.scores(obs), plain.scores(obs), atol=1e-5)
    assert add_inputs(net, build_network({"hidden": [32, 16], "features": ["knowledge"]},
                                         VOLENY)) == 0
    with pytest.raises(ValueError, match="does not fit"):
        add_inputs(MLP([8, 16], obs_size=VOLENY.obs_size, num_actions=VOLENY.n_actions), net)
    with pytest.raises(ValueError, match="volený"):
        build_network({"features": ["knowledge"]}, kind_of({"rules": "licitovany"}))
    with pytest.raises(ValueError, match="unknown"):
        build_network({"features": ["voids"]}, VOLENY)
