"""Policy networks: one score per action over the game's whole action space.

Every network here maps an observation ``float32[B, obs_size]`` to raw scores
``float32[B, num_actions]``, both sizes those of the game's :class:`~mariash_env.kinds.GameKind`
(volený 900 and 115, licitovaný 1016 and 136; :func:`game_of`) (:meth:`PolicyNet.scores`: Q-values
for DMC, logits for a policy-gradient method) and, given the legal-action mask, to the masked scores
and the greedy action (:meth:`PolicyNet.forward`, the graph that is exported to ONNX): illegal
actions get :data:`MASKED_VALUE`, so the argmax is always legal when any action is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from mariash_env.actions import N_ACTIONS
from mariash_env.core.observe import OBS_SIZE
from mariash_env.games.registry import game_kind, games
from mariash_env.kinds import VOLENY, GameKind

from .features import N_KNOWLEDGE, CardKnowledge
from .options import FEATURES

MASKED_VALUE = -1e9
"""Score of an illegal action (finite, so no NaN ever appears in a masked softmax)."""


class PolicyNet(nn.Module):
    """Base class: subclasses implement :meth:`scores`."""

    obs_size: int = OBS_SIZE
    num_actions: int = N_ACTIONS

    def scores(self, obs: torch.Tensor) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(masked scores float32[B, A], greedy action int64[B])``; ``mask`` is 1 = legal."""
        q = self.scores(obs)
        q = torch.where(mask.to(torch.bool), q, torch.full_like(q, MASKED_VALUE))
        return q, torch.argmax(q, dim=1)

    @torch.inference_mode()
    def greedy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Greedy actions ``int64[B]`` for numpy ``obs``/``mask`` batches, on the network's
        device (a read-only mask such as ``Step.mask`` is copied: torch wants writable
        buffers)."""
        dev = next(self.parameters()).device
        o = torch.from_numpy(np.require(obs, np.float32, "C")).to(dev)
        m = torch.from_numpy(np.require(mask, requirements="CW")).to(dev)
        return self(o, m)[1].cpu().numpy()

    def signature(self) -> dict[str, Any]:
        """What must match for a state dict to load: kind, sizes, parameter shapes."""
        return {
            "kind": self.kind,
            "obs_size": self.obs_size,
            "num_actions": self.num_actions,
            "params": {k: list(v.shape) for k, v in self.state_dict().items()},
        }

    kind = "base"


class MLP(PolicyNet):
    """``OBS_SIZE -> hidden... -> N_ACTIONS`` with LayerNorm + ReLU (default 900-512-256-115)."""

    kind = "mlp"

    def __init__(self, hidden: list[int] | tuple[int, ...] = (512, 256), layer_norm: bool = True,
                 obs_size: int = OBS_SIZE, num_actions: int = N_ACTIONS,
                 knowledge: nn.Module | None = None) -> None:
        super().__init__()
        self.obs_size = obs_size
        self.num_actions = num_actions
        # derived inputs appended to the observation (training.features), or none
        self.knowledge = knowledge
        layers: list[nn.Module] = []
        width = obs_size + (N_KNOWLEDGE if knowledge is not None else 0)
        for h in hidden:
            layers.append(nn.Linear(width, int(h)))
            if layer_norm:
                layers.append(nn.LayerNorm(int(h)))
            layers.append(nn.ReLU())
            width = int(h)
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, num_actions)
        # Small initial outputs: the first Q estimates are ~0 groše for every action.
        nn.init.zeros_(self.head.bias)
        nn.init.uniform_(self.head.weight, -1e-3, 1e-3)

    def scores(self, obs: torch.Tensor) -> torch.Tensor:
        if self.knowledge is not None:
            obs = torch.cat([obs, self.knowledge(obs)], dim=1)
        return self.head(self.body(obs))


NETWORKS: dict[str, type[PolicyNet]] = {"mlp": MLP}


def mlp_of_shapes(params: dict[str, Any]) -> MLP:
    """The :class:`MLP` whose parameters have the shapes ``params`` (name -> shape, as in
    :meth:`PolicyNet.signature` or a state dict): its hidden widths, LayerNorm or not,
    observation size and action count read from them."""
    shape = {k: list(getattr(v, "shape", v)) for k, v in params.items()}
    linear = sorted((int(k.split(".")[1]) for k, s in shape.items()
                     if k.startswith("body.") and k.endswith(".weight") and len(s) == 2))
    if "head.weight" not in shape or not linear:
        raise ValueError(f"not an MLP's parameters (no head or no hidden Linear): "
                         f"{sorted(shape)[:6]}")
    # a LayerNorm is the 1-D weight right after its Linear
    layer_norm = f"body.{linear[0] + 1}.weight" in shape
    return MLP(hidden=[shape[f"body.{i}.weight"][0] for i in linear], layer_norm=layer_norm,
               obs_size=shape[f"body.{linear[0]}.weight"][1],
               num_actions=shape["head.weight"][0])


def widen_mlp(narrow: MLP, wide: MLP, seed: int = 0, spread: float = 0.1) -> None:
    """Load into ``wide`` the function of ``narrow`` (net2net widening): every hidden unit
    of ``narrow`` is copied ``k`` times, ``k`` its layer's width in ``wide`` over that in
    ``narrow`` (a whole number, the same depth, LayerNorm alike), and each copy takes a
    share of the unit's outgoing weights.  Equal copies keep a layer's mean and variance,
    so its LayerNorm computes what it did; the shares of one weight sum to one, so the next
    layer does too, and ``wide`` computes ``narrow``'s scores exactly (to float rounding).
    The shares are ``1/k`` each plus noise of relative size ``spread`` (summing to zero
    over the copies; drawn from ``seed``): copies with equal shares would get equal
    gradients and stay copies for ever."""
    hn, hw = hidden_widths(narrow), hidden_widths(wide)
    where = f"widening hidden {hn} to {hw}"
    if (narrow.obs_size, narrow.num_actions) != (wide.obs_size, wide.num_actions):
        raise ValueError(f"{where}: sizes differ (observation {narrow.obs_size} -> "
                         f"{wide.obs_size}, actions {narrow.num_actions} -> "
                         f"{wide.num_actions})")
    if len(hn) != len(hw) or any(w % n or w < n for n, w in zip(hn, hw)):
        raise ValueError(f"{where}: each layer's new width must be a whole multiple of its "
                         f"old one, at the same depth")
    ln_n = any(isinstance(m, nn.LayerNorm) for m in narrow.body)
    ln_w = any(isinstance(m, nn.LayerNorm) for m in wide.body)
    if ln_n != ln_w:
        raise ValueError(f"{where}: LayerNorm {ln_n} -> {ln_w}: both or neither")
    gen = torch.Generator().manual_seed(int(seed))
    old = {k: v.detach().to("cpu", torch.float64) for k, v in narrow.state_dict().items()}
    new: dict[str, torch.Tensor] = {}
    lin = [i for i, m in enumerate(wide.body) if isinstance(m, nn.Linear)]
    src = None  # new input unit -> old input unit of the layer being filled
    for layer, (i, n, w) in enumerate(zip(lin, hn, hw)):
        units = torch.arange(w) % n  # copy c of old unit j is new unit c * n + j
        weight, bias = old[f"body.{i}.weight"][units], old[f"body.{i}.bias"][units]
        if layer:
            weight = weight[:, src] * _shares(weight.shape[0], src, hn[layer - 1], gen, spread)
        new[f"body.{i}.weight"], new[f"body.{i}.bias"] = weight, bias
        if ln_w:
            for part in ("weight", "bias"):
                new[f"body.{i + 1}.{part}"] = old[f"body.{i + 1}.{part}"][units]
        src = units
    new["head.weight"] = (old["head.weight"][:, src]
                          * _shares(wide.num_actions, src, hn[-1], gen, spread))
    new["head.bias"] = old["head.bias"]
    dtype = next(wide.parameters()).dtype
    wide.load_state_dict({k: v.to(dtype) for k, v in new.items()})


def add_inputs(plain: MLP, net: MLP) -> int:
    """Load into ``net`` the function of ``plain``, an MLP of the same hidden widths whose
    first layer takes fewer inputs: the observation without ``net``'s derived inputs
    (``network.features``).  The weights of the added inputs start at zero, so ``net``
    computes ``plain``'s scores; returns how many inputs were added (0: the same shapes,
    a plain copy).  ValueError when the shapes do not allow it."""
    want = net.state_dict()
    have = plain.state_dict()
    first = "body.0.weight"
    wrong = [k for k in want if k not in have
             or (k != first and have[k].shape != want[k].shape)]
    rows, cols = want[first].shape
    if wrong or have[first].shape[0] != rows or have[first].shape[1] > cols:
        raise ValueError(f"adding derived inputs: the init's network {hidden_widths(plain)} "
                         f"(observation {plain.obs_size}) does not fit the config's "
                         f"{hidden_widths(net)} (observation {net.obs_size})")
    added = cols - have[first].shape[1]
    if added and have[first].shape[1] != net.obs_size:
        raise ValueError(f"adding derived inputs: the init's first layer takes "
                         f"{have[first].shape[1]} inputs, expected the observation's "
                         f"{net.obs_size} or {cols}")
    new = dict(have)
    new[first] = torch.cat([have[first], torch.zeros(rows, added, dtype=have[first].dtype)], 1)
    net.load_state_dict(new)
    return added


def hidden_widths(net: MLP) -> list[int]:
    """An MLP's hidden widths, from its Linear layers."""
    return [m.out_features for m in net.body if isinstance(m, nn.Linear)]


def _shares(rows: int, src: torch.Tensor, n: int, gen: torch.Generator,
            spread: float) -> torch.Tensor:
    """``float64[rows, len(src)]``: for each row, the share of old input unit ``j``'s
    weight that each of its copies (``src == j``) takes; they sum to one over the copies."""
    k = len(src) // n
    noise = torch.randn(rows, len(src), generator=gen, dtype=torch.float64) * spread / k
    # centre the noise over each unit's copies, so the shares still sum to one
    mean = torch.zeros(rows, n, dtype=torch.float64).index_add_(1, src, noise) / k
    return 1.0 / k + noise - mean[:, src]


def game_of(rules: dict[str, Any] | None) -> GameKind:
    """The game (:class:`~mariash_env.kinds.GameKind`) of a config's ``[env] rules`` table:
    ``rules = "licitovany"`` (or another game the registry trains) picks it, no ``rules``
    volený."""
    name = (rules or {}).get("rules", VOLENY.name)
    try:
        return game_kind(str(name), front_end="training")
    except KeyError:
        raise ValueError(f"[env] rules: unknown game rules = {name!r}: expected one of "
                         f"{', '.join(repr(k.name) for k in games('training'))}") from None


def build_network(net_cfg: Any, game: GameKind | str = VOLENY) -> PolicyNet:
    """The network of a :class:`training.config.NetworkConfig` (or a dict of its fields),
    sized for ``game`` (its observation size and action count)."""
    d = net_cfg if isinstance(net_cfg, dict) else vars(net_cfg)
    g = game_kind(game) if isinstance(game, str) else game
    kind = d.get("kind", "mlp")
    if kind not in NETWORKS:
        raise ValueError(f"unknown network kind {kind!r}: expected one of {sorted(NETWORKS)}")
    if kind == "mlp":
        feats = list(d.get("features") or [])
        unknown = [f for f in feats if f not in FEATURES]
        if unknown:
            raise ValueError(f"network.features: unknown {unknown}: expected some of "
                             f"{list(FEATURES)}")
        return MLP(hidden=list(d.get("hidden", [512, 256])),
                   layer_norm=bool(d.get("layer_norm", True)),
                   obs_size=g.obs_size, num_actions=g.n_actions,
                   knowledge=CardKnowledge(g) if "knowledge" in feats else None)
    return NETWORKS[kind]()  # pragma: no cover


def count_parameters(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())
