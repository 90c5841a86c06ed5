"""A robot that plays an exported neural policy with onnxruntime (no torch needed).

::

    from mariash_env.robots import OnnxRobot
    robot = OnnxRobot("models/robot.onnx")
    action = robot.act(env.observe(env.agent_selection))      # one decision
    actions = robot.act_batch(step.obs, step.mask)             # a VectorEnv batch

The model (written by ``python -m training.export``) maps ``observation``
float32[B, obs_size] and ``action_mask`` int8[B, num_actions] to ``scores`` (masked
Q-values or logits) and ``action`` (the argmax), the sizes of its game
(``mariash_game`` in its metadata: ``voleny``, the default of models that do not name
one, ``licitovany`` or ``lizany``; :mod:`mariash_env.kinds`).  A volený model plays the
four-player table too (``players=4``, RULES.md §11.3): the four-player observation opens
with the three-player observation of the deal, which is what the model reads
(``GameKind.model_seat_counts``).  Where the game offers a claim (volený's lay-down,
RULES.md §8) the robot takes it, as every bundled robot does, whatever the network's
scores.  Its metadata must name the
observation layout version and sizes of that game in this environment: a model trained
on another layout would silently misread every observation, so it is refused with
:class:`OnnxRobotError`, and so is a model of another game than ``game`` when one is
asked for.  This module imports numpy and onnxruntime only.
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from .. import jsonio
from ..games.registry import games
from ..kinds import GameKind
from ..shipped import locate, shipped_hint
from .base import ObservationError, Robot, check_batch, observation_arrays
from .registry import int_at_least, register_robot

ROBOT_FORMAT = "mariash-robot-v1"
_EXPORTED = {k.name: k for k in games("export")}  # the games whose models it reads


class OnnxRobotError(ValueError):
    """The ONNX file is missing, unreadable, or made for another observation layout; or
    the model answered an action its mask does not allow (or NaN scores)."""


class OnnxRobot(Robot):
    """Greedy player of an exported policy (see the module docstring).

    ``threads``: onnxruntime intra-op threads (default 1: robots usually run many at
    once); ``providers``: onnxruntime execution providers (default CPU); ``game``: the
    game it is to play (``"voleny"`` / ``"licitovany"``; None = the model's own).
    """

    name = "onnx"
    games: tuple[str, ...] | None = tuple(_EXPORTED)  # the model's own once it is loaded

    def __init__(self, path: str | Path, threads: int = 1,
                 providers: list[str] | None = None, game: str | None = None) -> None:
        if game is not None and game not in _EXPORTED:
            raise OnnxRobotError(f"unknown game {game!r}: expected one of "
                                 f"{', '.join(_EXPORTED)}")
        try:
            import onnxruntime  # noqa: F401 - checked here, used by _session
        except ImportError as e:  # pragma: no cover
            raise OnnxRobotError("OnnxRobot needs the onnxruntime package") from e
        self.path = model_file(path)
        self._threads, self._providers = max(1, int(threads)), providers
        try:  # read once: the session and the hash are of the same bytes
            model = self.path.read_bytes()
        except OSError as e:
            raise OnnxRobotError(f"cannot read the ONNX model {self.path}: {e}") from None
        try:
            self.session = self._session(model)
        except Exception as e:  # onnxruntime raises its own exception types
            raise OnnxRobotError(f"{self.path} is not a loadable ONNX model: {e}") from None
        # the model a copy sent to another process must be (__getstate__)
        self._sha256 = hashlib.sha256(model).hexdigest()
        self.metadata: dict[str, str] = dict(self.session.get_modelmeta().custom_metadata_map)
        self.game: GameKind = self._game(game)
        self.games = (self.game.name,)  # the model's own game, from its metadata
        # its observation's seat count, and those whose observation opens with it (volený
        # at four: the deal's three-player block, all a seat that plays it reads)
        self.seat_counts = self.game.model_seat_counts
        self._sizes = {self.game.layout(p).obs_size for p in self.seat_counts}
        self._check()
        self.rules: dict[str, Any] = self._metadata_json("mariash_rules", "{}")
        self.training: dict[str, Any] = self._metadata_json("mariash_training", "{}")

    def _metadata_json(self, key: str, default: str) -> Any:
        """The JSON value of the model's metadata ``key`` (``default`` where it has none);
        OnnxRobotError naming the model and the key where it is not JSON, or names a key
        twice (:func:`mariash_env.jsonio.loads`: not the last value, silently)."""
        try:
            return jsonio.loads(self.metadata.get(key, default))
        except ValueError as e:  # not JSON, a key given twice, nested too deeply
            raise OnnxRobotError(f"{self.path}: its metadata {key} is not JSON we read "
                                 f"({e}); re-export the model with python -m "
                                 "training.export") from None

    def _session(self, model: str | bytes) -> Any:
        """An onnxruntime session of ``model`` (a path or the model's bytes)."""
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self._threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        return ort.InferenceSession(model, sess_options=opts,
                                    providers=self._providers or ["CPUExecutionProvider"])

    # -- copies ------------------------------------------------------------------------------
    # onnxruntime's session cannot be pickled.  A deep copy shares it (a session is
    # read-only: its runs are independent and thread-safe); a pickled robot (a worker
    # process, Ray) carries the model's bytes and makes its own session from them, so the
    # other side needs no file.  The file is read again then: one changed since the robot
    # was loaded is refused rather than silently sent as another network.

    def __deepcopy__(self, memo: dict[int, Any]) -> OnnxRobot:
        new = object.__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            new.__dict__[name] = value if name == "session" else copy.deepcopy(value, memo)
        return new

    def __getstate__(self) -> dict[str, Any]:
        try:
            model = self.path.read_bytes()
        except OSError as e:
            raise OnnxRobotError(f"cannot pickle {self!r}: its model file cannot be read "
                                 f"({e}); build the robot in the other process from its "
                                 "spec instead") from None
        if hashlib.sha256(model).hexdigest() != self._sha256:
            raise OnnxRobotError(f"cannot pickle {self!r}: {self.path} changed since the "
                                 "robot was loaded, and a copy would play the new file; "
                                 "load the robot again (or build it in the other process "
                                 "from its spec)")
        state = self.__dict__.copy()
        del state["session"]
        state["_model"] = model
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        model = state.pop("_model")
        self.__dict__.update(state)
        self.session = self._session(model)

    def _game(self, want: str | None) -> GameKind:
        """The model's game (its metadata), refused when it is not ``want``."""
        m = self.metadata
        where = str(self.path)
        if m.get("mariash_format") != ROBOT_FORMAT:
            raise OnnxRobotError(
                f"{where} is not a mariash robot (metadata mariash_format = "
                f"{m.get('mariash_format')!r}, expected {ROBOT_FORMAT!r}); export models "
                "with python -m training.export")
        has = m.get("mariash_game", "voleny")  # models before licitovaný are volený's
        if has not in _EXPORTED:
            raise OnnxRobotError(f"{where} was exported for an unknown game {has!r}: expected "
                                 f"one of {', '.join(_EXPORTED)}")
        if want is not None and has != want:
            raise OnnxRobotError(
                f"{where} is a robot of {has} mariáš but the game here is {want}: its "
                "observations and actions are another game's; use a model trained with "
                f"[env] rules = {{rules = \"{want}\"}}")
        return _EXPORTED[has]

    def _check(self) -> None:
        m = self.metadata
        where = str(self.path)
        g = self.game
        for key, now, what in (("mariash_obs_version", g.obs_version,
                                "observation layout version"),
                               ("mariash_obs_size", g.obs_size, "observation size"),
                               ("mariash_num_actions", g.n_actions, "number of actions")):
            got = m.get(key)
            if got is None or got != str(now):
                raise OnnxRobotError(
                    f"{where} was exported for {what} {got} but {g.name} mariáš in this "
                    f"environment has {now} (mariash_env.kinds.kind_of({g.name!r})): the "
                    "network would misread the observations; re-export it from a checkpoint "
                    "trained on this layout")
        labels = m.get("mariash_action_labels")
        if labels is not None and self._metadata_json("mariash_action_labels",
                                                      "") != list(g.labels):
            raise OnnxRobotError(f"{where} was exported with other action labels than this "
                                 "environment's")
        inputs = {i.name: i for i in self.session.get_inputs()}
        outputs = [o.name for o in self.session.get_outputs()]
        if set(inputs) != {"observation", "action_mask"} or "action" not in outputs:
            raise OnnxRobotError(f"{where} has inputs {sorted(inputs)} and outputs {outputs}; "
                                 "expected inputs observation, action_mask and outputs "
                                 "scores, action")
        shape = inputs["observation"].shape
        if len(shape) != 2 or shape[1] != g.obs_size:
            raise OnnxRobotError(f"{where} expects observations of shape {shape}, this "
                                 f"environment's have {g.obs_size} features")

    # -- inference ---------------------------------------------------------------------------

    def scores_and_actions(self, obs: np.ndarray, mask: np.ndarray,
                           claims: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """``(masked scores float32[N, A], actions int64[N])`` for a batch; the claims
        taken where offered (module docstring), unless ``claims=False``: the network's own
        argmax (export's parity check with the torch policy)."""
        obs, mask = np.asarray(obs), np.asarray(mask)
        if obs.ndim == 1 and mask.ndim == 1:
            obs, mask = obs[None], mask[None]
        n_obs, n_act = self.game.obs_size, self.game.n_actions
        also = "".join(f" (or {n})" for n in sorted(self._sizes - {n_obs}))
        if obs.ndim != 2 or mask.ndim != 2 or obs.shape[1] not in self._sizes or \
                mask.shape[1] != n_act or len(obs) != len(mask):
            raise ObservationError(f"expected obs [N, {n_obs}{also}] and mask [N, {n_act}] "
                                   f"({self.game.name}; or one observation [{n_obs}] and "
                                   f"its mask [{n_act}]), got {obs.shape} and {mask.shape}")
        obs, mask = check_batch(obs, mask)  # 0/1 masks, each with a legal action
        if obs.dtype == object or obs.dtype.kind not in "biuf":
            raise ObservationError(f"an observation is numbers, got dtype {obs.dtype}")
        # another seat count's observation opens with the network's (volený's at four)
        obs = np.ascontiguousarray(obs[:, :n_obs], dtype=np.float32)
        mask = np.ascontiguousarray(mask, dtype=np.int8)
        if not np.isfinite(obs).all():  # the network would pick an action from NaN scores
            row, slot = np.argwhere(~np.isfinite(obs))[0].tolist()
            raise ObservationError(f"observation {row}, slot {slot}, is not finite: expected "
                                   "finite floats")
        scores, actions = self.session.run(["scores", "action"],
                                           {"observation": obs, "action_mask": mask})
        scores, actions = self._checked(scores, actions, mask)
        for a in self.game.claim_actions if claims else ():  # volený's lay-down: bundled
            actions[mask[:, a] != 0] = a                       # robots always use it
        return scores, actions

    def _checked(self, scores: Any, actions: Any,
                 mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The model's outputs when they are a legal action per row (and scores with no
        NaN on a legal action), else OnnxRobotError naming the model and the row: a
        broken or foreign model must not play an action the rules do not allow."""
        n, n_act = mask.shape
        scores, actions = np.asarray(scores), np.asarray(actions)
        if scores.shape != (n, n_act) or actions.shape not in ((n,), (n, 1)):
            raise OnnxRobotError(f"{self.path} answered scores of shape {scores.shape} and "
                                 f"actions of shape {actions.shape}: expected ({n}, {n_act}) "
                                 f"and ({n},)")
        nan = np.argwhere(np.isnan(scores) & (mask != 0))
        if nan.size:
            row, a = nan[0].tolist()
            raise OnnxRobotError(f"{self.path} scored the legal action {a} of row {row} NaN: "
                                 "its greedy action would be meaningless")
        if actions.dtype.kind not in "iu":
            raise OnnxRobotError(f"{self.path} answered actions of dtype {actions.dtype}: "
                                 "expected integer action indices")
        actions = actions.reshape(n).astype(np.int64)
        inside = (actions >= 0) & (actions < n_act)
        legal = inside.copy()
        legal[inside] = mask[np.flatnonzero(inside), actions[inside]] != 0
        if not legal.all():
            row = int(np.flatnonzero(~legal)[0])
            raise OnnxRobotError(f"{self.path} chose action {int(actions[row])} in row {row}, "
                                 f"which its action mask does not allow (legal: "
                                 f"{np.flatnonzero(mask[row]).tolist()})")
        return scores, actions

    def act(self, observation: dict[str, Any]) -> int:
        obs, mask = observation_arrays(observation)
        if obs.ndim != 1 or mask.ndim != 1:  # one decision: one observation, one mask
            raise ObservationError(
                f"act takes one observation [{self.game.obs_size}] and its action_mask "
                f"[{self.game.n_actions}] ({self.game.name}), got shapes {obs.shape} and "
                f"{mask.shape}; a batch goes to act_batch")
        _, a = self.scores_and_actions(obs, mask)
        return int(a[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = self.check_batch(obs, mask)
        if len(obs) == 0:
            return np.zeros(0, np.int64)
        return self.scores_and_actions(obs, mask)[1]

    def __repr__(self) -> str:
        return f"OnnxRobot({str(self.path)!r})"


def model_file(path: str | Path) -> Path:
    """The model file ``path`` names (``models/FILE``: the shipped file from any
    directory); OnnxRobotError when there is none."""
    found = locate(path)
    if not found.is_file():
        raise OnnxRobotError(f"no ONNX model at {found}{shipped_hint(found)}")
    return found


# A model reads the observation of its game's own seat count, and of the seat counts whose
# observation opens with that one (volený's at four).
@register_robot("onnx", spec="onnx:PATH", games=OnnxRobot.games,
                seat_counts=tuple(sorted({p for k in _EXPORTED.values()
                                          for p in k.model_seat_counts})), args={
    "threads": int_at_least(1),
    "providers": (lambda v: v is None or (isinstance(v, (list, tuple))
                                          and all(isinstance(x, str) for x in v)),
                  "a list of provider names or None")})
def onnx_robot(kind: GameKind, players: int, path: str, **kw: Any) -> OnnxRobot:
    """Robot ``"onnx:PATH"``: the exported policy at ``path``, refused unless it is a
    model of ``kind``'s game."""
    return OnnxRobot(path, game=kind.name, **kw)


onnx_robot.check_path = model_file  # type: ignore[attr-defined] # check_robot's look, no load
