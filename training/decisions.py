"""A data set of ``mariash dataset`` (:mod:`mariash_env.research.dataset`) as PyTorch data.

::

    from training.decisions import DecisionDataset
    data = DecisionDataset("runs/data/table")
    loader = torch.utils.data.DataLoader(data, batch_size=512, shuffle=True)
    for batch in loader:  # dict of tensors
        batch["observation"], batch["action_mask"], batch["action"], ...

:class:`DecisionDataset` reads every shard into memory (a map-style ``Dataset``);
:class:`ShardStream` streams one shard at a time (an ``IterableDataset``, for sets larger
than memory; each DataLoader worker reads its share of the shards).  Items are dicts of
tensors: ``observation`` float32[obs_size] (cut to ``obs_size`` features when given, e.g.
the 900 of the deal block of a four-player set), ``action_mask`` bool[A], ``action``
int64, ``final_return`` float32, ``action_values`` float32[A] (NaN: not valued),
``has_values`` bool, ``deal`` int64 and ``seat`` int64.  Both refuse a data set of
another observation layout version than this checkout's, as every reader of
:mod:`mariash_env.research.dataset` does, unless given ``allow_other_layout=True``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info

from mariash_env.research.dataset import load, read_manifest, shard_files, shards

COLUMNS = ("observation", "action_mask", "action", "final_return", "action_values", "deal",
           "seat")


def tensors(rows: dict[str, np.ndarray], obs_size: int | None = None) -> dict[str, torch.Tensor]:
    """The numpy columns of :func:`mariash_env.research.dataset.load` as tensors (keys of the
    module docstring); ``obs_size`` keeps only the first that many observation features."""
    obs = rows["observation"]
    if obs_size is not None:
        if obs.shape[1] < obs_size:
            raise ValueError(f"obs_size={obs_size} but the data set's observations have "
                             f"{obs.shape[1]} features")
        obs = obs[:, :obs_size]
    values = rows["action_values"].astype(np.float32)
    return {
        "observation": torch.from_numpy(np.require(obs, np.float32, ["C", "W"])),
        "action_mask": torch.from_numpy(rows["action_mask"] > 0),
        "action": torch.from_numpy(rows["action"].astype(np.int64)),
        "final_return": torch.from_numpy(rows["final_return"].astype(np.float32)),
        "action_values": torch.from_numpy(values),
        "has_values": torch.from_numpy(~np.isnan(values).all(axis=1)),
        "deal": torch.from_numpy(rows["deal"].astype(np.int64)),
        "seat": torch.from_numpy(rows["seat"].astype(np.int64)),
    }


class DecisionDataset(Dataset):
    """Every decision of a data set directory in memory (module docstring)."""

    def __init__(self, path: str | os.PathLike, obs_size: int | None = None,
                 allow_other_layout: bool = False) -> None:
        self.path = path
        self.manifest = read_manifest(path)
        self.data = tensors(load(path, COLUMNS, allow_other_layout), obs_size)

    def __len__(self) -> int:
        return int(self.data["action"].shape[0])

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {k: v[i] for k, v in self.data.items()}


class ShardStream(IterableDataset):
    """The decisions shard by shard (module docstring); ``shuffle`` shuffles the rows of
    each shard with a generator of ``seed`` and the shard's index."""

    def __init__(self, path: str | os.PathLike, obs_size: int | None = None,
                 shuffle: bool = False, seed: int = 0,
                 allow_other_layout: bool = False) -> None:
        self.path = path
        self.allow_other_layout = allow_other_layout
        self.files = shard_files(path, allow_other_layout)
        self.obs_size = obs_size
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[dict[str, Any]]:
        info = get_worker_info()
        mine = range(len(self.files)) if info is None else range(
            info.id, len(self.files), info.num_workers)
        # checked against the manifest (a damaged or foreign shard names itself), which is
        # read once here, not once a shard
        for j, part in zip(mine, shards(self.path, COLUMNS, mine, self.allow_other_layout)):
            rows = tensors(part, self.obs_size)
            n = int(rows["action"].shape[0])
            order = (np.random.default_rng([self.seed, j]).permutation(n) if self.shuffle
                     else np.arange(n))
            for i in order:
                yield {k: v[i] for k, v in rows.items()}


__all__ = ["DecisionDataset", "ShardStream", "tensors"]
