"""Deep Monte-Carlo (DMC), as in DouZero (Zha et al., 2021), adapted to mariáš.

One Q-network ``Q(observation) -> float[115]`` scores every action of every phase.
The learner acts epsilon-greedily on the legal actions; every decision it makes is
regressed onto its Monte-Carlo return: the groše its seat received from the deal in
which the decision was made (``RULES.md`` §9), optionally transformed
(:class:`DMCConfig.reward_transform`).  No bootstrapping, no critic, no importance
weights: the target of ``Q(s, a)`` is simply what happened after ``a``.

With ``label_data`` set, every gradient step also regresses the card-play Q-values of a
batch of states labelled by PIMC (:mod:`training.pimc_labels`: the mean over sampled worlds
of each legal card's exact value) on those values, all legal cards of a state at once --
search distilled into the network; ``bid_label_data`` does the same with PIMC's simulated
values of the bidding decisions (trump, contract, flek...), and ``more_label_data`` adds
further card-play sets with a batch of their own (labels of the current model's own
states beside older ones: DAgger's aggregation).  ``label_augment`` draws the card-play
labels under random suit relabellings that map each deal onto an equivalent one (the
game's ``GameKind.symmetry``: volený's keep the trumps, licitovaný's keep hearts).

With ``demo_margin > 0`` the decisions of *guided* deals (``selfplay.guide_share``: the
learner's seats played the table robot's actions) are also demonstrations, as in DQfD
(Hester et al., 2018): a large-margin loss
``max_a [Q(s, a) + m·(a ≠ a_E)] − Q(s, a_E)`` over the legal actions pulls the robot's
action ``a_E`` at least ``m`` above every other.  Where the returns show an action
clearly better than the robot's, the regression still wins; where the Q-values are
guesses (actions the learner rarely tries, as the bids of a learner that never bids),
the greedy policy falls back on the robot's choice instead of on an untried action.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from mariash_env.vector import random_legal_actions

from ..networks import PolicyNet, build_network, game_of
from ..options import ConfigError, opt
from .base import Method, register_method


@dataclass
class DMCConfig:
    """Options of Deep Monte-Carlo (the ``[dmc]`` table)."""

    lr: float = opt(5e-4, "learning rate", gt=0)
    optimizer: str = opt("adam", "'adam' or 'rmsprop' (DouZero's choice)",
                         choices=("adam", "rmsprop"))
    batch_size: int = opt(1024, "rows per gradient step", ge=1)
    epochs: float = opt(1.0, "passes over each iteration's decisions (1 = every decision "
                             "is used once, as in DouZero; fractions subsample)", gt=0)
    grad_clip: float = opt(10.0, "gradient-norm clip (0 = off)", ge=0)
    weight_decay: float = opt(0.0, "AdamW-style weight decay (0 = off)", ge=0)
    reward_transform: str = opt("scale", "'scale': target = groše x reward_scale (Q stays "
                                         "an expected-groše estimate); 'symlog': target = "
                                         "sign(g) log(1 + |g|) (tames the rare huge flekked "
                                         "deals but ranks risky actions lower)",
                                choices=("scale", "symlog"))
    reward_scale: float = opt(0.1, "factor of the 'scale' transform (Q in units of 10 groše)",
                              gt=0)
    loss: str = opt("mse", "'mse' (DouZero) or 'huber'", choices=("mse", "huber"))
    huber_delta: float = opt(1.0, "delta of the Huber loss, in transformed units", gt=0)
    label_huber_delta: float = opt(0.0, "delta of the Huber loss of the label terms (with "
                                        "loss = 'huber'; 0 = huber_delta): labels valued in "
                                        "one real deal are single draws of a wide "
                                        "distribution, and a delta far below their spread "
                                        "regresses their median, not their mean", ge=0)
    eps_start: float = opt(0.10, "exploration: chance of a uniformly random legal action at "
                                 "the start", ge=0, le=1)
    eps_end: float = opt(0.02, "exploration after eps_decay_decisions", ge=0, le=1)
    eps_decay_decisions: int = opt(20_000_000, "engine decisions over which epsilon decays "
                                               "linearly from eps_start to eps_end (0 = "
                                               "eps_end from the start)", ge=0)
    demo_margin: float = opt(0.0, "DQfD large-margin loss on the guided deals' decisions "
                                  "(the table robot's actions), in transformed units (0 = "
                                  "off; needs selfplay.guide_share > 0)", ge=0)
    demo_weight: float = opt(1.0, "weight of the large-margin loss per guided decision",
                             ge=0)
    label_data: str = opt("", "search distillation: a directory of PIMC card-play labels "
                              "(python -m training.pimc_labels); every gradient step also "
                              "regresses Q(s, a) of label_batch labelled states on PIMC's "
                              "value of every legal card ('' = off; a set of the run's game)")
    label_weight: float = opt(1.0, "weight of the label loss against the DMC loss", ge=0)
    label_batch: int = opt(512, "labelled states per gradient step", ge=1)
    bid_label_data: str = opt("", "a directory of PIMC bidding labels (python -m "
                                  "training.pimc_labels --phase bidding): trump, contract, "
                                  "flek... regressed like label_data ('' = off)")
    bid_label_batch: int = opt(128, "bidding-labelled states per gradient step", ge=1)
    more_label_data: list = opt(None, "further card-play label directories, each regressed "
                                      "like label_data with more_label_batch states per "
                                      "step: e.g. labels of the current model's own states "
                                      "(DAgger) beside the first set", factory=list, item=str)
    more_label_batch: int = opt(256, "states per gradient step from each of more_label_data",
                                ge=1)
    more_bid_label_data: list = opt(None, "further bidding label directories, each "
                                          "regressed like bid_label_data with "
                                          "more_bid_label_batch states per step: e.g. the "
                                          "actor's decisions valued against the table robot "
                                          "beside the defenders'", factory=list, item=str)
    more_bid_label_batch: int = opt(64, "states per gradient step from each of "
                                        "more_bid_label_data", ge=1)
    label_advantage_weight: float = opt(0.0, "weight of a second label loss on the "
                                             "differences between a state's labelled "
                                             "actions (each Q and target minus its state's "
                                             "mean): the ranking learned apart from the "
                                             "level (0 = off)", ge=0)
    label_augment: bool = opt(False, "draw the card-play labels under a random suit "
                                      "relabelling of the game's symmetry (volený: keeping "
                                      "the trumps, up to 6 states a label in a suit game, "
                                      "24 in betl and durch; licitovaný: keeping hearts, "
                                      "6); observations encoded at each draw")
    label_reload_every: int = opt(0, "updates between looks for new shards in the label "
                                     "directories, "
                                     "while the generator still runs (0 = read once; a run "
                                     "that reloads depends on the generator's timing)", ge=0)
    demo_skip_phases: list = opt(None, "phases (names of the game's observation phase "
                                       "block, mariash_env.kinds) whose guided decisions "
                                       "are not demonstrations, e.g. ['flek'] where the "
                                       "learner already plays better than the robot",
                                 factory=list, item=str)


def label_loss(q: torch.Tensor, legal: torch.Tensor, target: torch.Tensor, loss: nn.Module,
               advantage_weight: float = 0.0) -> torch.Tensor:
    """The label loss of search distillation: ``loss`` over the labelled legal actions of
    the scores ``q`` and the (transformed) ``target``, plus ``advantage_weight`` times
    ``loss`` of the same values centred on their state's mean over those actions -- the
    ranking of a state's actions, apart from its level (``label_advantage_weight``)."""
    out = loss(q[legal], target[legal])
    if advantage_weight > 0:
        w = legal.to(q.dtype)
        n = w.sum(1, keepdim=True).clamp(min=1)
        qa = q - (q * w).sum(1, keepdim=True) / n
        ta = target - (target * w).sum(1, keepdim=True) / n
        out = out + advantage_weight * loss(qa[legal], ta[legal])
    return out


def transform_returns(g: np.ndarray, cfg: DMCConfig) -> np.ndarray:
    if cfg.reward_transform == "symlog":
        return np.sign(g) * np.log1p(np.abs(g))
    return g * cfg.reward_scale


def untransform(q: np.ndarray, cfg: DMCConfig) -> np.ndarray:
    """Q-values back in groše."""
    if cfg.reward_transform == "symlog":
        return np.sign(q) * np.expm1(np.abs(q))
    return q / cfg.reward_scale


@register_method
class DMC(Method):
    """Deep Monte-Carlo with epsilon-greedy self-play."""

    METRICS = ("q_mean", "grad_norm", "target_mean", "epsilon", "demo_loss", "label_loss")
    PROGRESS = ("epsilon",)

    name = "dmc"
    config_class = DMCConfig
    needs_masks = False
    scores_kind = "q_values"

    def __init__(self, cfg: Any, device: torch.device) -> None:
        super().__init__(cfg, device)
        self.algo: DMCConfig = cfg.algo
        self._net = build_network(cfg.network, game_of(cfg.env.rules)).to(device)
        a = self.algo
        if a.optimizer == "adam":
            if a.weight_decay:
                self.opt = torch.optim.AdamW(self._net.parameters(), lr=a.lr,
                                             weight_decay=a.weight_decay)
            else:
                self.opt = torch.optim.Adam(self._net.parameters(), lr=a.lr)
        else:
            self.opt = torch.optim.RMSprop(self._net.parameters(), lr=a.lr, alpha=0.99,
                                           eps=1e-5, weight_decay=a.weight_decay)
        self._loss = (nn.MSELoss() if a.loss == "mse"
                      else nn.HuberLoss(delta=a.huber_delta))
        self._lab_loss = (self._loss if a.loss == "mse" or not a.label_huber_delta
                          else nn.HuberLoss(delta=a.label_huber_delta))
        self._label_sets: list[tuple[Any, int]] = []
        sets = [("label_data", a.label_data, a.label_batch, "play"),
                ("bid_label_data", a.bid_label_data, a.bid_label_batch, "bidding")]
        sets += [(f"more_label_data[{i}]", p, a.more_label_batch, "play")
                 for i, p in enumerate(a.more_label_data)]
        sets += [(f"more_bid_label_data[{i}]", p, a.more_bid_label_batch, "bidding")
                 for i, p in enumerate(a.more_bid_label_data)]
        for name, path, batch, phase in sets:
            if not path:
                continue
            if not Path(path).is_dir():
                raise ConfigError(f"dmc.{name} = {path!r} is not a directory: make the "
                                  "labels first (python -m training.pimc_labels --out DIR)")
            from ..pimc_labels import LabelError, LabelSet

            try:
                ls = LabelSet(path, a.label_reload_every,
                              augment=a.label_augment and phase == "play",
                              game=game_of(cfg.env.rules).name)  # a set of this game
            except LabelError as e:
                raise ConfigError(f"dmc.{name}: {e}") from None
            if ls.phase != phase:
                raise ConfigError(f"dmc.{name} = {path!r} holds {ls.phase} labels, expected "
                                  f"{phase} labels (python -m training.pimc_labels --phase "
                                  f"{phase})")
            self._label_sets.append((ls, batch))

    def _label_loss(self, rng: np.random.Generator) -> torch.Tensor:
        """Mean loss over the labelled legal actions of ``label_batch`` card-play and
        ``bid_label_batch`` bidding states, drawn at random (targets in the DMC's
        transformed units)."""
        parts = [ls.sample(n, rng) for ls, n in self._label_sets]
        obs, legal, value = (np.concatenate(x) for x in zip(*parts))
        tgt = transform_returns(value, self.algo).astype(np.float32)
        dev = self.device
        q = self._net.scores(torch.from_numpy(obs).to(dev))
        return label_loss(q, torch.from_numpy(legal).to(dev), torch.from_numpy(tgt).to(dev),
                          self._lab_loss, self.algo.label_advantage_weight)

    @property
    def net(self) -> PolicyNet:
        return self._net

    def epsilon(self, decisions: int) -> float:
        a = self.algo
        if a.eps_decay_decisions <= 0:
            return a.eps_end
        f = min(1.0, decisions / a.eps_decay_decisions)
        return a.eps_start + f * (a.eps_end - a.eps_start)

    def rollout_params(self, decisions: int) -> dict[str, Any]:
        return {"epsilon": self.epsilon(decisions)}

    @staticmethod
    def act(net: PolicyNet, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
            params: dict[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        greedy = net.greedy(obs, mask)
        # Always draw the same amount of randomness: the stream never depends on epsilon.
        explore = rng.random(greedy.shape[0]) < params["epsilon"]
        rand = random_legal_actions(mask, rng)
        return np.where(explore, rand, greedy), {}

    @staticmethod
    def wants_masks(cfg: Any) -> bool:
        """The large-margin loss maximises over the legal actions: rows keep their masks."""
        return cfg.algo.demo_margin > 0

    def _margin_loss(self, scores: torch.Tensor, act: torch.Tensor, guided: np.ndarray,
                     mask: np.ndarray) -> torch.Tensor:
        """DQfD's ``max_a [Q(s,a) + m·(a != a_E)] - Q(s, a_E)`` summed over guided rows."""
        g = torch.from_numpy(guided).to(scores.device)
        s = scores[g]
        ae = act[g][:, None]
        legal = torch.from_numpy(mask[guided]).to(scores.device).bool()
        margin = torch.full_like(s, self.algo.demo_margin).scatter_(1, ae, 0.0)
        best = (s + margin).masked_fill(~legal, float("-inf")).max(1).values
        return (best - s.gather(1, ae).squeeze(1)).sum()

    def update(self, batch: Any, rng: np.random.Generator) -> dict[str, float]:
        a = self.algo
        m = len(batch)
        if m == 0:
            return {"updates": 0.0}
        guided = batch.extras.get("guided") if a.demo_margin > 0 else None
        if guided is not None and batch.mask is None:
            raise RuntimeError("dmc.demo_margin needs the rows' masks (SelfPlayActor keeps "
                               "them when DMC.wants_masks)")
        if guided is not None and a.demo_skip_phases:
            kind = game_of(self.cfg.env.rules)
            skip = [kind.phase_names.index(p) for p in a.demo_skip_phases]
            guided = guided & ~np.isin(kind.phase_of(batch.obs), skip)
        tot_demo = 0.0
        tot_label = 0.0
        target_all = transform_returns(batch.ret.astype(np.float32), a).astype(np.float32)
        bs = min(a.batch_size, m)
        n_upd = max(1, int(round(a.epochs * m / bs)))
        order = np.concatenate([rng.permutation(m) for _ in range(-(-n_upd * bs // m))])
        net = self._net
        net.train()
        dev = self.device
        tot_loss = 0.0
        tot_q = 0.0
        tot_gn = 0.0
        for u in range(n_upd):
            idx = order[u * bs:(u + 1) * bs]
            idx = np.sort(idx)  # friendlier memory access; the set is what matters
            obs = torch.from_numpy(batch.obs[idx]).to(dev, non_blocking=True)
            act = torch.from_numpy(batch.action[idx]).to(dev)
            tgt = torch.from_numpy(target_all[idx]).to(dev)
            scores = net.scores(obs)
            q = scores.gather(1, act[:, None]).squeeze(1)
            loss = self._loss(q, tgt)
            if guided is not None and guided[idx].any():
                demo = self._margin_loss(scores, act, guided[idx], batch.mask[idx]) / len(idx)
                loss = loss + a.demo_weight * demo
                tot_demo += float(demo.detach())
            if self._label_sets:
                lab = self._label_loss(rng)
                loss = loss + a.label_weight * lab
                tot_label += float(lab.detach())
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            if a.grad_clip > 0:
                gn = nn.utils.clip_grad_norm_(net.parameters(), a.grad_clip)
                tot_gn += float(gn)
            self.opt.step()
            tot_loss += float(loss.detach())
            tot_q += float(q.detach().mean())
        net.eval()
        return {
            "updates": float(n_upd),
            "loss": tot_loss / n_upd,
            "q_mean": tot_q / n_upd,
            "grad_norm": tot_gn / n_upd,
            "target_mean": float(target_all.mean()),
            "demo_loss": tot_demo / n_upd,
            "label_loss": tot_label / n_upd,
            "samples_trained": float(n_upd * bs),
        }

    def state_dict(self) -> dict[str, Any]:
        return {"net": self._net.state_dict(), "optimizer": self.opt.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self._net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["optimizer"])

    def describe(self) -> dict[str, Any]:
        a = self.algo
        money = game_of(self.cfg.env.rules).units
        unit = (f"{money} x {a.reward_scale:g}" if a.reward_transform == "scale"
                else f"symlog({money})")
        return {"method": self.name, "scores": f"Q-values in {unit}"}
