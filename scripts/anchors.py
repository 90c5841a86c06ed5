"""Speed anchors: random-legal-play decisions per second of other card-game environments.

Each function plays uniformly random legal actions for about ``seconds`` of wall time
and returns ``(name, decisions_per_second)``, or ``None`` when the package it needs is
not installed (or its environment cannot be built here). A *decision* is one action
chosen by a player; chance outcomes, dummy steps of finished agents and resets are not
counted, but their time is.

Importable as ``scripts.anchors``; runnable as ``python scripts/anchors.py``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import time
import warnings

import numpy as np

# pygame (imported by PettingZoo's rlcard envs at module load) prints a banner otherwise.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

# PettingZoo classic card envs, tried in order; gin_rummy was dropped in PettingZoo 1.25+.
PETTINGZOO_CARD_ENVS = ("gin_rummy_v4", "texas_holdem_v4", "leduc_holdem_v4")


def _load_pettingzoo_card_env():
    for name in PETTINGZOO_CARD_ENVS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(f"pettingzoo.classic.{name}")
                env = module.env()
        except Exception:  # ImportError, missing rlcard/pygame, deprecated-module errors
            continue
        return name, env
    return None


def aec_episode(env, rng: np.random.Generator, seed: int) -> int:
    """One episode of random legal play through an AEC env; returns the decisions made."""
    env.reset(seed=seed)
    n = 0
    for _agent in env.agent_iter():
        obs, _rew, term, trunc, _info = env.last()
        if term or trunc:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            n += 1
        env.step(action)
    return n


def aec_rate(env, seconds: float, seed: int = 0) -> float:
    """Decisions per second of random legal play through an AEC env (whole episodes)."""
    rng = np.random.default_rng(seed)
    decisions = 0
    episode = 0
    start = time.perf_counter()
    while True:
        decisions += aec_episode(env, rng, seed + episode)
        episode += 1
        if time.perf_counter() - start >= seconds:
            break
    return decisions / (time.perf_counter() - start)


def pettingzoo_classic(seconds: float = 3.0, seed: int = 0) -> tuple[str, float] | None:
    """Random legal play through PettingZoo's AEC loop on a classic card env."""
    loaded = _load_pettingzoo_card_env()
    if loaded is None:
        return None
    name, env = loaded
    rate = aec_rate(env, seconds, seed)
    env.close()
    return f"pettingzoo.classic.{name}", rate


def openspiel_skat(
    seconds: float = 3.0, with_obs: bool = False, seed: int = 0
) -> tuple[str, float] | None:
    """Random legal play of OpenSpiel's skat; chance nodes sampled from their outcomes.

    With ``with_obs`` the acting player's observation tensor is also built at each
    decision, as an agent would need it.
    """
    try:
        import pyspiel
    except ImportError:
        return None
    try:
        game = pyspiel.load_game("skat")
    except Exception:  # skat not compiled into this build
        return None
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                probs = np.fromiter((p for _, p in outcomes), float, len(outcomes))
                idx = rng.choice(len(outcomes), p=probs / probs.sum())
                state.apply_action(outcomes[idx][0])
                continue
            player = state.current_player()
            if with_obs and player >= 0:
                state.observation_tensor(player)
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    name = "open_spiel.skat" + (" +obs" if with_obs else "")
    return name, decisions / elapsed


def all_anchors(seconds: float = 3.0) -> list[tuple[str, float]]:
    """Every anchor that can run here, as (name, decisions/s)."""
    results = [
        pettingzoo_classic(seconds),
        openspiel_skat(seconds, with_obs=False),
        openspiel_skat(seconds, with_obs=True),
    ]
    return [r for r in results if r is not None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per anchor")
    args = parser.parse_args(argv)
    rows = [
        ("pettingzoo classic", pettingzoo_classic(args.seconds)),
        ("openspiel skat", openspiel_skat(args.seconds)),
        ("openspiel skat +obs", openspiel_skat(args.seconds, with_obs=True)),
    ]
    for label, result in rows:
        if result is None:
            print(f"{label:<24} not installed")
        else:
            name, rate = result
            print(f"{name:<36} {rate:>12,.0f} decisions/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
