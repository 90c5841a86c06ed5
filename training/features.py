"""Derived input features: what the rules of following let a seat infer about the others' hands.

A network sees the play as three flat blocks (``played_by``, ``played_in``,
``trick_leader``): from them a player reads at once that the next seat did not follow
hearts, so holds no heart, or did not beat the ten it could have beaten, so holds no higher
card of that suit.  Those inferences are a nonlinear function of hundreds of inputs; a
search gets them from its world sampling.  :class:`CardKnowledge` computes them inside
the network's graph (so an exported robot still takes the plain observation, and an
observation layout does not change), from the rules of RULES.md §6:

- a follower who does not follow the led suit holds none of it;
- ... and, playing no trump in a suit game, holds no trump either;
- a follower of a trick not yet trumped who does not beat the winning card holds no
  higher card of the led suit (a trump lead: no higher trump);
- a follower who trumps below a trump already in the trick holds no higher trump.

For each of the two other seats (relative 1 and 2) three 32-card blocks, appended to the
observation: the cards it *cannot* hold, the cards it *may* hold (not seen anywhere by the
observing seat and not excluded), and the cards only it may hold (not the other one; the
talon is still possible where the observing seat did not lay it).  Volený only: its
layout's offsets are read from the game's ``obs_layout``.
"""

from __future__ import annotations

import torch
from torch import nn

from mariash_env.cards import PLAIN_STRENGTH, TRUMP_STRENGTH
from mariash_env.kinds import GameKind

N_KNOWLEDGE = 192
"""Features :class:`CardKnowledge` appends: [cannot, may, only][seat 1, 2][card]."""

_NEEDED = ("hand", "talon", "trump_suit", "played_by", "played_in", "trick_leader", "contract")


class CardKnowledge(nn.Module):
    """``float32[B, obs_size] -> float32[B, 192]``: the other seats' hands as the rules of
    following bound them (module docstring).  No parameters; constants are buffers."""

    def __init__(self, game: GameKind) -> None:
        super().__init__()
        blocks = {name: (off, size) for name, off, size, _ in game.obs_layout}
        missing = [b for b in _NEEDED if b not in blocks]
        if missing or game.name != "voleny":
            raise ValueError(f"network.features = ['knowledge'] is volený's (its observation "
                             f"layout): game {game.name!r} lacks {missing or 'that layout'}")
        self.off = {b: blocks[b][0] for b in _NEEDED}
        suit = torch.zeros(32, 4)
        suit[torch.arange(32), torch.arange(32) // 8] = 1.0
        self.register_buffer("suit", suit, persistent=False)
        # the engine's rank strengths (card c is rank c & 7 of suit c >> 3): a suit game's
        # (the ten above the king), betl's and durch's
        for name, table in (("strength_suit", TRUMP_STRENGTH), ("strength_nt", PLAIN_STRENGTH)):
            self.register_buffer(name, torch.tensor([float(table[c & 7]) for c in range(32)]),
                                 persistent=False)

    def _block(self, obs: torch.Tensor, name: str, size: int) -> torch.Tensor:
        o = self.off[name]
        return obs[:, o:o + size]

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        hand = self._block(obs, "hand", 32)
        talon = self._block(obs, "talon", 32)
        contract = self._block(obs, "contract", 3)
        suit_game = contract[:, 0:1]
        trump = self._block(obs, "trump_suit", 4) * suit_game  # no trumps in betl / durch
        played_by = self._block(obs, "played_by", 96).reshape(b, 3, 32)
        played_in = self._block(obs, "played_in", 320).reshape(b, 32, 10)
        leader = self._block(obs, "trick_leader", 30).reshape(b, 10, 3)
        strength = (suit_game * self.strength_suit
                    + (1.0 - suit_game) * self.strength_nt)  # [B, 32]
        trump_cards = trump @ self.suit.t()  # [B, 32]
        # by_seat[b, s, c, t]: seat s played card c in trick t
        by_seat = played_by.unsqueeze(3) * played_in.unsqueeze(1)
        cards, seats = [], []
        for j in range(3):  # the trick's j-th card and who played it (leader + j)
            seat = torch.roll(leader, shifts=j, dims=2)  # [B, 10, 3]
            seats.append(seat)
            cards.append(torch.einsum("bts,bsct->btc", seat, by_seat))  # [B, 10, 32]
        suits = [c @ self.suit for c in cards]  # [B, 10, 4]
        value = [(c * strength.unsqueeze(1)).sum(-1) for c in cards]  # [B, 10]
        is_trump = [(s * trump.unsqueeze(1)).sum(-1) for s in suits]
        led = suits[0]
        led_cards = led @ self.suit.t()  # [B, 10, 32]: the led suit's cards
        led_trump = is_trump[0]
        follows = [(s * led).sum(-1) for s in suits]
        # key: what a card is worth in the trick (0 = cannot win it)
        key = [is_trump[j] * (16.0 + value[j]) + (1.0 - is_trump[j]) * follows[j] * (8.0 + value[j])
               for j in range(3)]
        cannot = torch.zeros(b, 3, 32, dtype=obs.dtype, device=obs.device)
        best = key[0]
        for j in (1, 2):
            present = suits[j].sum(-1)
            not_follow = present * (1.0 - follows[j])
            under = (key[j] < best).to(obs.dtype) * present
            trumped = (best >= 16.0).to(obs.dtype)
            # the strength the card had to beat, within its suit
            above_led = (strength.unsqueeze(1) > (best - 8.0 - 8.0 * led_trump).unsqueeze(2))
            above_trump = (strength.unsqueeze(1) > (best - 16.0).unsqueeze(2))
            m = not_follow.unsqueeze(2) * led_cards
            m = m + (not_follow * (1.0 - is_trump[j])).unsqueeze(2) * trump_cards.unsqueeze(1)
            # followed a trick not yet trumped (or a trump lead) without beating it
            beat_led = follows[j] * under * torch.maximum(1.0 - trumped, led_trump)
            m = m + beat_led.unsqueeze(2) * led_cards * above_led.to(obs.dtype)
            # trumped below the trick's highest trump
            beat_trump = not_follow * is_trump[j] * under * trumped
            m = m + beat_trump.unsqueeze(2) * trump_cards.unsqueeze(1) * above_trump.to(obs.dtype)
            m = m.clamp(max=1.0)
            # [B, 10, 3, 32] -> [B, 3, 32]: each seat's exclusions over the tricks
            cannot = torch.maximum(cannot, (seats[j].unsqueeze(3) * m.unsqueeze(2)).amax(1))
            best = torch.maximum(best, key[j])
        seen = (hand + talon + played_by.sum(1)).clamp(max=1.0)
        unseen = 1.0 - seen
        may = unseen.unsqueeze(1) * (1.0 - cannot[:, 1:])  # [B, 2, 32]
        only = may * (1.0 - may.flip(1))
        return torch.cat([cannot[:, 1:].reshape(b, 64), may.reshape(b, 64),
                          only.reshape(b, 64)], dim=1)
