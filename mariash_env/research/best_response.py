"""How exploitable is a robot: ``mariash best-response``.

::

    mariash best-response --robot table --rules voleny --minutes 5 --out runs/br/table
    mariash best-response --robot net --rules licitovany --exploiter onnx:runs/x.onnx
    mariash best-response --table --game voleny=random,table,net --out docs
    mariash best-response --from docs/best_response.csv

A robot's *exploitability* is what a best response gains against it: freeze the robot
in every seat but one, find the policy that wins the most in that seat, and compare
its score with the robot's own in the same seat.  No exact best response is within
reach in a game of 32 cards, so this trains one (Deep Monte-Carlo on the batched
engine, warm-started from the game's shipped network: :mod:`training.best_response`)
and measures what it gains: max(0, gain) is a **lower bound** on the robot's
exploitability, as good as the exploiter the budget bought (the robot gains 0 in its
own seat, so a negative gain bounds nothing beyond 0; the table's *exploitability ≥*
is max(0, the lower end of the gain's 95% interval): :func:`bound`).

The gain is measured on duplicate deals (the arena's: the same decks in every
seating).  On every deal the exploiter takes each seat in turn (``--seats 1``: alone
against two copies of the frozen robot; ``--seats 2``: in two seats against one),
and the frozen robot plays all the seats of the same deal on its own as the baseline:

    gain = mean over deals and exploiter seats of (exploiter's payment − the frozen
    robot's payment in that seat of the baseline game)

With one exploiter seat the baseline sums to zero over the three seats (a zero-sum
deal), so the gain is the exploiter's mean score; the baseline still matters for the
split by **role**: the gain is cut exactly into the part from the games in which the
exploiter (resp. the frozen robot of the baseline, in the same seat) was the actor, a
defender, or in no game (nobody played: licitovaný's passed deal); lízaný has no actor,
its roles are the seat leading the first trick and the other.  95% confidence
intervals: bootstrap over deals.

The exploiter before training (the warm start alone) is measured the same way, so
that the table shows what the training added.  :func:`exploiter_gain` measures any
robot spec against any other (no torch needed); training needs the checkout's
``training`` package and torch.  ``--table`` runs every robot of ``--game`` (resumable:
each robot's run and result stay in ``--runs``) and writes ``best_response.csv``,
``best_response.md`` and ``best_response.png`` to ``--out``; ``--from CSV`` writes them
again from a saved ``best_response.csv`` (:func:`read_table_csv`) without running anything.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import jsonio
from ..arena import bootstrap_ci, duplicate_match
from ..atomic import atomic_open
from ..cli import (
    ArgumentParser,
    UnwritableError,
    check_writable,
    doing,
    fail,
    nonnegative,
    positive,
    quiet_on_closed_pipe,
)
from ..extras import plot_or_note, pyplot
from ..games.registry import game_kind, games
from ..robots import split_robot_specs
from ..textfile import read_text
from . import folder_name, parse_page_args, run_command

ROLES = ("actor", "defender", "no game")
SELECT_SEED = 7_000_003  # the decks that choose between the trained exploiter and its start
SEAT_ROLES = ("leader", "second")  # lízaný: no actor (the seat leading the first trick)

# The robots of the shipped table per game (``--table`` without ``--game``): every kind of
# robot a user is handed (each game's ``GameKind.probe_robots``).
TABLE_ROBOTS: dict[str, list[str]] = {k.name: list(k.probe_robots) for k in games()
                                       if k.probe_robots}


class BestResponseError(ValueError):
    """Bad settings of a best response (names what is wrong and what is expected)."""


@dataclass
class Gain:
    """What an exploiter gains over a frozen robot in the frozen robot's seats."""

    game: str
    unit: str
    frozen: str
    exploiter: str
    seats: int
    deals: int
    mean: float
    ci_low: float
    ci_high: float
    roles: dict[str, float] = field(default_factory=dict)  # the gain split exactly by role
    role_ci: dict[str, list[float]] = field(default_factory=dict)
    seconds: float = 0.0

    def line(self) -> str:
        parts = ", ".join(f"{k} {v:+.2f}" for k, v in self.roles.items())
        return (f"{self.exploiter} over {self.frozen} ({self.seats} seat(s), {self.deals} "
                f"deals): {self.mean:+.3f} [{self.ci_low:+.3f}, {self.ci_high:+.3f}] "
                f"{self.unit}/deal ({parts})")


def _role(outcome: dict[str, Any], seat: int) -> int:
    actor = outcome.get("actor", -1)
    return 0 if actor == seat else 2 if actor is None or actor < 0 else 1


def gain_per_deal(match: Any, baseline: Any, seats: int, exploiter: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Per deal, the exploiter's gain (float[D]) and its split by role (float[D, R]) from
    a duplicate match of the exploiter (robot index ``exploiter``) against the frozen
    robot and the frozen robot's match alone on the same decks (module docstring)."""
    lizany = "actor" not in baseline.outcomes[0][0]
    roles = SEAT_ROLES if lizany else ROLES
    n = match.deals
    gain = np.zeros(n)
    split = np.zeros((n, len(roles)))
    picked = [j for j, s in enumerate(match.seatings) if s.count(exploiter) == seats]
    if not picked:
        raise BestResponseError(f"no seating of the match puts the exploiter in {seats} "
                                f"seat(s) (seatings {match.seatings})")
    for i in range(n):
        base = baseline.outcomes[i][0]
        cnt = 0
        for j in picked:
            o = match.outcomes[i][j]
            for s, r in enumerate(match.seatings[j]):
                if r != exploiter:
                    continue
                mine, theirs = o["payments"][s], base["payments"][s]
                gain[i] += mine - theirs
                if lizany:
                    split[i, s] += mine - theirs
                else:
                    split[i, _role(o, s)] += mine
                    split[i, _role(base, s)] -= theirs
                cnt += 1
        gain[i] /= cnt
        split[i] /= cnt
    return gain, split, roles


_BASELINES: dict[tuple, Any] = {}  # the frozen robot's own matches, by decks (exploiter_gain)


def exploiter_gain(exploiter: str, frozen: str, rules: str = "voleny", seats: int = 1,
                   deals: int = 500, seed: int = 0, jobs: int = 1, batch: int = 50,
                   n_boot: int = 2000, progress: bool = True,
                   rule_options: dict[str, Any] | None = None) -> Gain:
    """The gain of robot spec ``exploiter`` over robot spec ``frozen`` in its seats
    (module docstring): two duplicate matches on the same decks."""
    kind = game_kind(rules, front_end="arena")
    players = kind.players[0]
    if not 1 <= seats < players:
        raise BestResponseError(f"invalid seats={seats!r}: the exploiter takes 1..{players - 1} "
                                f"of the {players} seats of {kind.title or kind.name}")
    rdict = {"rules": kind.name, **(rule_options or {})}
    import time

    t0 = time.perf_counter()
    match = duplicate_match({"exploiter": exploiter, "frozen": frozen}, deals=deals,
                            seed=seed, jobs=jobs, rules=rdict, progress=progress,
                            batch=batch, n_boot=n_boot)
    # the robot alone on these decks: the same for every exploiter measured against it
    # (a match depends on its decks, rules and batch, never on jobs), so played once
    key = (frozen, tuple(sorted(rdict.items())), deals, seed, batch)
    baseline = _BASELINES.get(key)
    if baseline is None:
        baseline = _BASELINES[key] = duplicate_match(
            {"frozen": frozen}, deals=deals, seed=seed, jobs=jobs, rules=rdict,
            progress=progress, batch=batch, n_boot=n_boot)
    gain, split, roles = gain_per_deal(match, baseline, seats)
    lo, hi = bootstrap_ci(gain, n_boot) if deals > 1 else (np.nan, np.nan)
    rlo, rhi = bootstrap_ci(split, n_boot) if deals > 1 else (
        np.full(len(roles), np.nan), np.full(len(roles), np.nan))
    return Gain(game=kind.name, unit=kind.units, frozen=frozen, exploiter=exploiter,
                seats=seats, deals=deals, mean=float(gain.mean()), ci_low=float(lo),
                ci_high=float(hi),
                roles={r: float(v) for r, v in zip(roles, split.mean(0))},
                role_ci={r: [float(a), float(b)] for r, a, b in zip(roles, rlo, rhi)},
                seconds=time.perf_counter() - t0)


# --- a whole best response: train, then measure ---------------------------------------------


@dataclass
class Settings:
    """One best response's settings (what ``mariash best-response`` parses)."""

    robot: str
    rules: str = "voleny"
    seats: int = 1
    init: str = ""  # "" = the game's shipped network; "none" = from scratch
    decisions: int = 2_000_000
    minutes: float = 10.0
    num_envs: int = 256
    deals: int = 500
    seed: int = 0
    jobs: int = 1
    exploiter: str = ""  # a robot spec to measure instead of training one
    lr: float = 0.0  # the exploiter's learning rate (0: training.best_response's default)


def _train_module():
    root = Path(__file__).resolve().parents[2]  # the checkout of an editable install
    if (root / "training" / "__init__.py").is_file() and str(root) not in sys.path:
        sys.path.append(str(root))  # the ``mariash`` script runs from anywhere
    try:
        from training import best_response
    except ImportError as e:  # a pip-installed package: no training package or no torch
        raise BestResponseError(
            f"training a best response needs torch and the checkout's training package "
            f"({e}); measure a given exploiter with --exploiter SPEC instead") from None
    return best_response


# Settings that do not change the answer: a run may resume with other ones.
_NOT_THE_RESULTS = ("jobs",)


def _gain_numbers(gain: dict[str, Any]) -> dict[str, Any]:
    """A saved :class:`Gain`'s figures as it had them: a figure of no value (the interval
    of one deal, NaN) is written as null (:mod:`mariash_env.jsonio`) and read back NaN."""
    out = dict(gain)
    for k in ("mean", "ci_low", "ci_high"):
        if k in out:
            out[k] = jsonio.number(out[k])
    if isinstance(out.get("roles"), dict):
        out["roles"] = {r: jsonio.number(v) for r, v in out["roles"].items()}
    if isinstance(out.get("role_ci"), dict):
        out["role_ci"] = {r: [jsonio.number(x) for x in v]
                          for r, v in out["role_ci"].items()}
    return out


def _saved_result(path: Path, s: Settings) -> dict[str, Any] | None:
    """The finished run at ``path`` when it is one of settings ``s`` (its gains' figures
    as measured: :func:`_gain_numbers`); None (with a warning: it is measured again) when
    the file is damaged; BestResponseError naming the settings that differ when it is
    another run's (its answer is not this one's)."""
    try:
        saved = jsonio.read(path)
        if not isinstance(saved, dict) or not isinstance(saved.get("settings"), dict) \
                or not isinstance(saved.get("gain"), dict):
            raise ValueError("expected an object with 'settings' and 'gain'")
        for key in ("gain", "trained", "before"):
            if isinstance(saved.get(key), dict):
                saved[key] = _gain_numbers(saved[key])
    except (OSError, ValueError, TypeError) as e:
        print(f"warning: {path} is damaged ({type(e).__name__}: {e}): the run is "
              "finished again", file=sys.stderr)
        return None
    _same_settings(saved["settings"], asdict(s), path.parent, "a finished run")
    return saved


def _same_settings(saved: dict[str, Any], want: dict[str, Any], out: Path, what: str) -> None:
    """BestResponseError naming the settings in which ``saved`` (a run's in ``out``)
    differs from ``want``; ``what``: the run, as the message names it."""
    differ = [f"{k} {saved.get(k)!r} (this run {want.get(k)!r})"
              for k in dict.fromkeys([*want, *saved])
              if k not in _NOT_THE_RESULTS and saved.get(k) != want.get(k)]
    if differ:
        raise BestResponseError(f"{out} holds {what} of other settings: {', '.join(differ)}; "
                                "use another --out (or remove it)")


def check_settings(s: Settings) -> None:
    """Every setting of a run checked before its folder is claimed (:func:`_claim`), so that
    a refused run leaves nothing behind (a ``settings.json`` of settings never run would
    refuse every later run of the good ones) and starts no match: the game, the seats, the
    robot specs, and, when the exploiter is trained, its config and warm start
    (:func:`training.best_response.check_exploiter`)."""
    from ..robots import make_robot

    kind = game_kind(s.rules, front_end="arena")
    players = kind.players[0]
    if not 1 <= s.seats < players:
        raise BestResponseError(f"invalid --seats {s.seats}: the exploiter takes 1..{players - 1} "
                                f"of the {players} seats of {kind.title or kind.name}")
    for spec in (s.robot, s.exploiter):
        if spec:
            make_robot(spec, rules=kind.name)  # a ValueError naming a bad spec
    if not s.exploiter:
        _train_module().check_exploiter(s)


def _claim(out: Path, want: dict[str, Any]) -> None:
    """Mark ``out`` as the folder of a run of settings ``want`` (``settings.json``),
    refusing one that holds another run's training or result (a resumed training would go
    on with the old settings, a finished one answer them)."""
    mark = out / "settings.json"
    try:
        saved = jsonio.read(mark)
    except (OSError, ValueError):  # none yet, or damaged: written below
        saved = None
    if isinstance(saved, dict):
        _same_settings(saved, want, out, "a run")
    with doing("write"):
        out.mkdir(parents=True, exist_ok=True)
    with atomic_open(mark, "w") as f:
        jsonio.dump(want, f, indent=1)


def run_one(s: Settings, out: Path, progress: bool = True, log: Any = print) -> dict[str, Any]:
    """Train (unless ``s.exploiter``) and measure one best response in ``out``; resumable:
    a finished stage is read back (``out/result.json`` is the whole answer)."""
    done = out / "result.json"  # the folder is made by _claim, once the settings are good
    with doing("read"):
        finished = done.is_file()
    if finished:
        saved = _saved_result(done, s)
        if saved is not None:
            # the same lines as the run that finished it, so a rerun reads alike
            for key, prefix in (("trained", ""), ("before", "before training: ")):
                if isinstance(saved.get(key), dict):
                    try:
                        log(prefix + Gain(**saved[key]).line())
                    except TypeError:
                        pass  # an older result's fields: its JSON below still says it
            return saved
    check_settings(s)
    _claim(out, asdict(s))
    result: dict[str, Any] = {"settings": asdict(s)}
    if s.exploiter:
        exploiter, before = s.exploiter, None
    else:
        br = _train_module()
        trained = br.train_exploiter(s, out, progress=progress, log=log)
        exploiter, before = trained["exploiter"], trained["init"]
        result["training"] = trained
    rules = game_kind(s.rules).name
    kw = dict(rules=rules, seats=s.seats, deals=s.deals, seed=s.seed, jobs=s.jobs,
              progress=progress)
    chosen = exploiter
    if before:
        # the exploiter is the trained network or its warm start, whichever gains more
        # on deals of their own: the measurement's deals then give an unbiased figure
        sel = {**kw, "deals": max(2, s.deals // 3), "seed": s.seed + SELECT_SEED}
        picks = {spec: exploiter_gain(spec, s.robot, **sel).mean for spec in (exploiter, before)}
        chosen = max(picks, key=picks.get)
        result["selection"] = {"deals": sel["deals"], "seed": sel["seed"],
                               "trained": picks[exploiter], "warm_start": picks[before],
                               "chosen": "trained" if chosen == exploiter else "warm start"}
    after = exploiter_gain(exploiter, s.robot, **kw)
    log(after.line())
    result["trained"] = asdict(after)
    if before:
        warm = exploiter_gain(before, s.robot, **kw)
        log("before training: " + warm.line())
        result["before"] = asdict(warm)
    result["gain"] = asdict(after if chosen == exploiter else warm)
    with atomic_open(done, "w") as f:
        jsonio.dump(result, f, indent=1)
    return result


# --- the table of the shipped robots --------------------------------------------------------


TABLE_FIELDS = ("game", "robot", "seats", "deals", "unit", "gain", "ci_low", "ci_high",
                "exploiter", "before", "before_low", "before_high", "trained", "trained_low",
                "trained_high", "train_decisions", "worst_role", "roles")


def worst_role(roles: dict[str, float]) -> str:
    """The role in which the exploiter gains most over the robot, "" where it gains in
    none (every role's gain <= 0: no role is the robot's weak one; "no game", where nobody
    plays and the gain is 0, was named for a robot the exploiter never beat)."""
    role = max(roles, key=roles.get, default="")
    return role if role and roles[role] > 0 else ""


GIVEN = "given "
"""The *exploiter* of a row whose exploiter was given (``--exploiter SPEC``): ``given
SPEC``, measured as it is; such a row has no warm start and nothing trained (NaN)."""


def table_rows(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The table's rows of finished runs (:func:`run_one`): *exploiter* says which one
    the gain is of (``trained`` or ``warm start``, whichever :func:`run_one` chose; a
    trained one with no warm start, ``--init none``, ``trained``; a given one
    :data:`GIVEN` and its spec), *before* and *trained* what the warm start and the
    trained network gained, NaN where there is none (a given exploiter: neither)."""
    nan = float("nan")
    rows = []
    for r in results:
        g, b = r["gain"], r.get("before") or {}
        trained = bool(r.get("training"))  # a given exploiter's gain is under "trained" too
        t = (r.get("trained") or {}) if trained else {}
        roles = g["roles"]
        rows.append({
            "game": g["game"], "robot": g["frozen"], "seats": g["seats"], "deals": g["deals"],
            "unit": g["unit"], "gain": g["mean"], "ci_low": g["ci_low"], "ci_high": g["ci_high"],
            "exploiter": (r.get("selection") or {}).get(
                "chosen", "trained" if trained else GIVEN + g["exploiter"]),
            "before": b.get("mean", nan), "before_low": b.get("ci_low", nan),
            "before_high": b.get("ci_high", nan),
            "trained": t.get("mean", nan), "trained_low": t.get("ci_low", nan),
            "trained_high": t.get("ci_high", nan),
            "train_decisions": (r.get("training") or {}).get("decisions", 0),
            "worst_role": worst_role(roles),
            "roles": "; ".join(f"{k} {v:+.2f}" for k, v in roles.items()),
        })
    return rows


def bound(row: dict[str, Any]) -> float:
    """The lower bound on the robot's exploitability that a row's 95% interval supports:
    max(0, its lower end).  The robot gains 0 in its own seat (against itself), so a
    negative gain bounds nothing beyond 0: it says that this exploiter did not beat the
    robot, not that the robot is less than unexploitable.  NaN where the row has no
    interval (one deal: :func:`~mariash_env.arena.bootstrap_ci` gives none), as the
    arena and the ladder print such an interval, not a bound of 0 that nothing measured."""
    low = float(row["ci_low"])
    return low if math.isnan(low) else max(0.0, low)


def _given(row: dict[str, Any]) -> bool:
    return str(row["exploiter"]).startswith(GIVEN)


def _cells(row: dict[str, Any]) -> tuple[str, str, str, str]:
    """A row's *exploiter*, *warm start*, *trained* and *trained on* on the page: — where
    nothing was measured (a given exploiter: no warm start, nothing trained; a training
    with no warm start: none)."""
    if _given(row):
        return f"given `{row['exploiter'][len(GIVEN):]}`", "—", "—", "—"

    def gain(v: float) -> str:
        return "—" if math.isnan(v) else f"{v:+.2f}"

    return row["exploiter"], gain(row["before"]), gain(row["trained"]), \
        f"{row['train_decisions']:,}"


def table_page(rows: list[dict[str, Any]], command: str, note: str = "") -> str:
    """The page ``best_response.md`` of the rows (:func:`table_rows`, or
    :func:`read_table_csv` of a written ``best_response.csv``)."""
    given = [r for r in rows if _given(r)]
    which = ("The exploiter is the network trained against the robot or its warm start "
             "(the game's shipped network), whichever gained more on other deals; both "
             "are measured. " if len(given) < len(rows) else "")
    if given:
        which += ("A *given* exploiter (`--exploiter SPEC`) is measured as it is: nothing "
                  "is trained and it has no warm start (—). ")
    lines = ["# How exploitable are the robots", "",
             "What a best response gains over each robot in its own seats: the "
             "exploiter alone against two copies of the robot (lízaný: against one), "
             "duplicate deals, 95% bootstrap CI. The gain can be negative (this exploiter "
             "did worse in the robot's seat than the robot); the robot gains 0 there "
             "itself, so the lower bound on the robot's exploitability is max(0, gain), "
             "and *exploitability ≥* gives the bound the 95% interval supports, max(0, "
             "its lower end) (docs/research/best_response.md). " + which + "*By "
             "role* splits the gain by the exploiter's role: where the robot loses. "
             "Made by", "",
             f"    {command}", ""]
    if note:
        lines += [note, ""]
    for game in dict.fromkeys(r["game"] for r in rows):
        g = [r for r in rows if r["game"] == game]
        unit = g[0]["unit"]
        lines += [f"## {game_kind(game).title or game}", "",
                  f"| robot | gain ({unit}/deal) | 95% CI | exploitability ≥ ({unit}/deal, "
                  "95%) | exploiter | warm start | trained | trained on (decisions) "
                  "| by role |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in sorted(g, key=lambda r: r["gain"]):
            exploiter, before, trained, decisions = _cells(r)
            lines.append(f"| `{r['robot']}` | {r['gain']:+.2f} | [{r['ci_low']:+.2f}, "
                         f"{r['ci_high']:+.2f}] | {bound(r):.2f} | {exploiter} | "
                         f"{before} | {trained} | {decisions} | {r['roles']} |")
        lines.append("")
    return "\n".join(lines)


_INT_FIELDS = ("seats", "deals", "train_decisions")
_FLOAT_FIELDS = ("gain", "ci_low", "ci_high", "before", "before_low", "before_high",
                 "trained", "trained_low", "trained_high")


def read_table_csv(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a ``best_response.csv`` that :func:`write_table` wrote (its numbers
    as it rounded them), for :func:`table_page`: the page again without a run
    (``mariash best-response --from CSV``).  BestResponseError naming the file, and the
    line and column where it is not what :func:`write_table` writes."""
    what = "a best_response.csv (written by mariash best-response --table)"
    try:
        reader = csv.DictReader(io.StringIO(read_text(path, newline=""), newline=""))
        head = reader.fieldnames or []
        numbered = [(reader.line_num, r) for r in reader]  # a row's line: its last
    except OSError as e:
        raise BestResponseError(f"cannot read {path}: {e.strerror or e}") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise BestResponseError(f"{path} is not {what}: {e}") from None
    missing = [k for k in TABLE_FIELDS if k not in head]
    extra = [k for k in head if k not in TABLE_FIELDS]
    if len(missing) == len(TABLE_FIELDS):
        raise BestResponseError(f"{path} is not {what}: its first line is not the header "
                                f"{','.join(TABLE_FIELDS[:3])},...")
    if missing or extra:
        differ = "; ".join(part for part in (
            "no column " + ", ".join(missing) if missing else "",
            "unknown column " + ", ".join(map(repr, extra)) if extra else "") if part)
        raise BestResponseError(f"{path} is not {what}: {differ}")
    if not numbered:
        raise BestResponseError(f"{path} has no rows (a table of no robot)")
    for line, r in numbered:
        if None in r or None in r.values():  # too many fields, or too few
            got = sum(v is not None for k, v in r.items() if k is not None) + len(
                r.get(None) or [])
            raise BestResponseError(f"{path} line {line}: {got} fields, expected "
                                    f"{len(head)}")
        for k, kind, name in ([(k, int, "an int") for k in _INT_FIELDS]
                              + [(k, float, "a number") for k in _FLOAT_FIELDS]):
            try:
                r[k] = kind(r[k])
            except ValueError:
                raise BestResponseError(f"{path} line {line}: {k} {r[k]!r} is not "
                                        f"{name}") from None
        try:
            r["game"] = game_kind(r["game"]).name
        except ValueError as e:
            raise BestResponseError(f"{path} line {line}: {e}") from None
    return [r for _, r in numbered]


def page_source(page: str) -> tuple[str, str] | None:
    """The command and note a page of :func:`table_page` names (None where ``page`` is
    not one): what ``--from`` keeps when it renders the page again."""
    lines = page.split("\n")
    made = next((i for i, line in enumerate(lines[:3]) if line.endswith("Made by")), None)
    first = next((i for i, line in enumerate(lines) if line.startswith("## ")), None)
    if (made is None or first is None or len(lines) < made + 4
            or not lines[made + 2].startswith("    ") or lines[made + 3]):
        return None
    return lines[made + 2].removeprefix("    "), "\n".join(lines[made + 4:first]).strip()


def write_table(rows: list[dict[str, Any]], out: Path, command: str, note: str = "",
                plot: bool = True) -> None:
    """``best_response.csv``, ``best_response.md`` (:func:`table_page`) and, with
    ``plot``, ``best_response.png`` of the rows, into ``out``."""
    with doing("write"):
        out.mkdir(parents=True, exist_ok=True)
        with atomic_open(out / "best_response.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=TABLE_FIELDS)
            w.writeheader()
            for r in rows:
                w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v)
                            for k, v in r.items()})
        with atomic_open(out / "best_response.md", "w") as f:
            f.write(table_page(rows, command, note))
        if plot:
            plot_table(rows, out / "best_response.png")


def plot_table(rows: list[dict[str, Any]], path: Path) -> None:
    """Each robot's gain with its CI, a panel per game (matplotlib: the ``research``
    extra), written to ``path``."""
    plt = pyplot("the best-response plot")
    fig = table_figure(rows)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def table_figure(rows: list[dict[str, Any]]) -> Any:
    """The figure of :func:`plot_table` (a matplotlib Figure, not closed)."""
    import textwrap

    plt = pyplot("the best-response plot")
    games = list(dict.fromkeys(r["game"] for r in rows))
    width = 5.2 * len(games)
    fig, axes = plt.subplots(1, len(games), figsize=(width, 3.6), squeeze=False)
    for ax, game in zip(axes[0], games):
        g = sorted((r for r in rows if r["game"] == game), key=lambda r: r["gain"])
        y = np.arange(len(g))
        gain = np.array([r["gain"] for r in g])
        err = np.array([[r["gain"] - r["ci_low"] for r in g],
                        [r["ci_high"] - r["gain"] for r in g]])
        ax.barh(y, gain, xerr=err, color="#b03a2e", alpha=0.85, label="best response")
        # the warm start and the trained network where they were measured (not for a
        # given exploiter: no legend entry for marks that are not there)
        if not all(math.isnan(r["before"]) for r in g):
            ax.scatter([r["before"] for r in g], y, color="k", marker="|", s=160, zorder=3,
                       label="warm start")
        if not all(math.isnan(r["trained"]) for r in g):
            ax.scatter([r["trained"] for r in g], y, color="#1f618d", marker="x", s=40,
                       zorder=3, label="trained")
        ax.set_yticks(y, [r["robot"] for r in g], fontsize=8)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_xlabel(f"gain over the robot ({g[0]['unit']}/deal)")
        ax.set_title(game_kind(game).title or game)
    axes[0][0].legend(fontsize=7, loc="lower right")
    # wrapped to the figure's width (about 11 characters an inch at this size): one
    # game's panel is narrower than the line, which was cut at both ends
    fig.suptitle(textwrap.fill("Approximate best response: what an exploiter gains (max(0, "
                               "gain) bounds the exploitability from below)",
                               int(11 * width)), fontsize=10)
    fig.tight_layout()
    return fig


def parse_game(text: str) -> tuple[str, list[str]]:
    """``NAME=ROBOT,ROBOT`` (robot specs may hold commas inside parentheses)."""
    name, eq, robots = text.partition("=")
    if not eq:
        return game_kind(name).name, TABLE_ROBOTS.get(game_kind(name).name, [])
    try:
        specs = split_robot_specs(robots)
    except ValueError as e:
        raise BestResponseError(f"--game {text!r}: {e}") from None
    if not all(specs):
        raise BestResponseError(f"--game {text!r}: an empty robot spec; expected "
                                "NAME=ROBOT[,ROBOT...]")
    return game_kind(name).name, specs


# what --from takes: it writes the table's files again and runs nothing
_FROM_OPTIONS = ("source", "table", "out", "note", "no_plot", "quiet")
# the defaults of the options of a match, which --endgame and --from refuse whenever given
# (their parser's default is None)
_MATCH_DEFAULTS = {"rules": "voleny", "seats": 1, "exploiter": "", "num_envs": 256,
                   "deals": 500, "jobs": 1}


def _slug(spec: str) -> str:
    """``spec`` as a folder name: its letters, digits and ``-_.``, ``_`` for the others
    (none at either end).  Lossy: ``onnx:a/b.onnx`` and ``onnx:a_b.onnx`` have one
    (:func:`run_folder` tells them apart)."""
    return folder_name(spec).strip("_")


def run_folder(parent: Path, spec: str) -> Path:
    """The folder of the run against robot ``spec`` in ``parent`` (``RUNS/GAME``,
    ``RUNS/endgameTRICKS-SEED``): ``spec`` itself where it is a folder name already
    (``table``, ``net``: the folder it always had), else its :func:`_slug` and the first 8
    hex digits of its SHA-256 (``onnx_runs_a_b.onnx-ba3dd1b9``), so that two robots never
    share one (``onnx:runs/a/b.onnx`` and ``onnx:runs/a_b.onnx`` had one folder: the second
    was refused as a run of other settings, after the first had trained).  A run kept in
    the bare slug's folder before, of this very robot (its ``settings.json``), resumes
    there."""
    slug = _slug(spec)
    if slug == spec:
        return parent / spec
    own = parent / f"{slug}-{hashlib.sha256(spec.encode('utf-8')).hexdigest()[:8]}"
    old = parent / slug
    with doing("read"):
        if own.exists() or not (old / "settings.json").is_file():
            return own
    try:
        saved = jsonio.read(old / "settings.json")
    except (OSError, ValueError):  # not this robot's, as far as can be told
        return own
    return old if isinstance(saved, dict) and saved.get("robot") == spec else own


@quiet_on_closed_pipe
def main(argv: list[str] | None = None, prog: str = "mariash best-response") -> int:
    ap = ArgumentParser(prog=prog, description="Train a best response to a frozen robot and "
                        "measure what it gains (max(0, gain) is a lower bound on the robot's "
                        "exploitability).")
    ap.add_argument("--robot", help="the frozen robot (a make_robot spec: random, table, net, "
                    "strong, pimc(...), onnx:PATH)")
    # the options of a match (_MATCH_DEFAULTS) default to None: given at all, they are
    # refused where no match is played (--endgame, --from), and filled in after
    ap.add_argument("--rules", default=None, help="the game (default voleny)")
    ap.add_argument("--seats", type=positive(int), default=None,
                    help="the exploiter's seats (default 1: alone against the robot)")
    ap.add_argument("--init", default="", help="warm start: an exported robot (.onnx) or a "
                    "checkpoint; default the game's shipped network, 'none' from scratch")
    ap.add_argument("--decisions", type=positive(int), default=2_000_000,
                    help="training budget in engine decisions (default 2,000,000)")
    ap.add_argument("--minutes", type=positive(float), default=10.0,
                    help="training budget in minutes (whichever ends first; default 10)")
    ap.add_argument("--num-envs", type=positive(int), default=None,
                    help="games stepped together in training (default 256)")
    ap.add_argument("--deals", type=positive(int), default=None,
                    help="duplicate deals of the measurement (default 500)")
    ap.add_argument("--seed", type=nonnegative(int), default=0,
                    help="decks and training seed (default 0)")
    ap.add_argument("--jobs", type=positive(int), default=None,
                    help="processes of the matches (default 1)")
    ap.add_argument("--lr", type=positive(float), default=None,
                    help="the exploiter's learning rate (default 3e-5: a fine-tuning)")
    ap.add_argument("--exploiter", default=None, help="measure this robot spec as the "
                    "exploiter instead of training one (no torch needed)")
    ap.add_argument("--out", default="", help="one robot's run: its folder (default "
                    "RUNS/GAME/ROBOT, with --endgame RUNS/endgameTRICKS-SEED/ROBOT), a rerun "
                    "resumes there; with --table: the folder of best_response.{csv,md,png} "
                    "(default docs); with --from: theirs (default the CSV's folder)")
    ap.add_argument("--endgame", type=positive(int), default=0, metavar="TRICKS",
                    help="the check against an exact best response: train against --robot "
                         "on the last TRICKS tricks of one volený deal (--seed picks it; "
                         "mariash_env.research.endgame) and compare the trained exploiter's "
                         "exact gain with OpenSpiel's exact best response, seat by seat")
    ap.add_argument("--table", action="store_true",
                    help="every robot of --game: write best_response.{csv,md,png} to --out")
    ap.add_argument("--game", action="append", default=[], metavar="NAME[=ROBOTS]",
                    help="with --table: a game and its robots (repeatable; default every game "
                         "with " + "; ".join(f"{g}={','.join(r)}" for g, r in
                                             TABLE_ROBOTS.items()) + ")")
    ap.add_argument("--runs", default="runs/best_response",
                    help="RUNS, the folder of the runs (default runs/best_response): every "
                         "robot's run of --table, and one robot's run without --out "
                         "(resume)")
    ap.add_argument("--slow-deals", type=positive(int), default=60,
                    help="with --table: deals of the measurement of a searching robot "
                         "(default 60)")
    ap.add_argument("--from", dest="source", default=None, metavar="CSV",
                    help="write the table's best_response.{csv,md,png} again from a saved "
                         "best_response.csv without running anything: its rows, with the "
                         "command and note of the page beside it (CSV's .md); into --out, "
                         "by default CSV's own folder")
    args, command = parse_page_args(ap, argv, prog, "with --table or --from: a paragraph for "
                                    "the page (with --from: instead of the saved page's)")
    progress = not args.quiet

    def settings(robot: str, rules: str, deals: int) -> Settings:
        return Settings(robot=robot, rules=rules, seats=args.seats, init=args.init,
                        decisions=args.decisions, minutes=args.minutes,
                        num_envs=args.num_envs, deals=deals, seed=args.seed, jobs=args.jobs,
                        exploiter=args.exploiter, lr=args.lr or 0.0)

    # options of the other mode are refused, not ignored
    if args.source is not None:
        def flag(k: str) -> str:
            return "--" + k.replace("_", "-")

        runs = [flag(k) for k in vars(args)
                if k not in _FROM_OPTIONS and getattr(args, k) != ap.get_default(k)]
        if runs:
            verb = "is not its option" if len(runs) == 1 else "are not its options"
            fail(f"--from writes the table again from a saved CSV and runs nothing; "
                 f"{', '.join(runs)} {verb} (it takes "
                 f"{', '.join(flag(k) for k in _FROM_OPTIONS[1:])})")
    if args.table and (args.robot or args.endgame):
        fail("--table measures the robots that --game names; give --robot or --endgame "
             "without --table (one robot's run)")
    if args.table and args.rules is not None:
        fail(f"--rules {args.rules!r} picks the game of one robot's run; --table plays the "
             "games that --game names (default every game)")
    if not args.table and args.game:
        fail(f"--game {args.game[0]!r} picks the robots of --table; one robot's run takes "
             "--robot ROBOT and --rules GAME")
    # an endgame run trains its own settings (endgame_settings: 256 games) and plays no match
    endgame_not = {"--" + k.replace("_", "-"): k for k in _MATCH_DEFAULTS}
    if args.endgame and any(getattr(args, k) is not None for k in endgame_not.values()):
        fail("--endgame trains one exploiter seat against --robot on a volený endgame "
             f"and plays no match; {', '.join(list(endgame_not)[:-1])} and "
             f"{list(endgame_not)[-1]} are not its options")
    for k, v in _MATCH_DEFAULTS.items():
        if getattr(args, k) is None:
            setattr(args, k, v)

    def body() -> int:
        if args.source is not None:
            plot_or_note(args, "plot (best_response.png)")
            source = Path(args.source)
            rows = read_table_csv(source)
            saved = None
            try:
                saved = page_source(read_text(source.with_suffix(".md")))
            except (OSError, UnicodeDecodeError):
                pass
            if saved is None:
                print(f"warning: no page {source.with_suffix('.md')} names the command that "
                      f"measured the rows of {source}: the page names this one",
                      file=sys.stderr)
                saved = (command, "")
            out = Path(args.out) if args.out else source.parent
            write_table(rows, out, saved[0], args.note or saved[1], plot=not args.no_plot)
            print(f"wrote {out / 'best_response.md'}")
            return 0
        if args.table:
            from ..robots import make_robot

            plot_or_note(args, "plot (best_response.png)")

            plan = [parse_game(g) for g in args.game] or [
                (g, list(r)) for g, r in TABLE_ROBOTS.items()]
            # every robot and the page's folder checked before the first run, not after
            # the runs before them (minutes of training each)
            runs = []
            for game, robots in plan:
                for robot in robots:
                    slow = make_robot(robot, rules=game).wants_view
                    runs.append(settings(robot, game, args.slow_deals if slow else args.deals))
            out = Path(args.out or "docs")
            try:
                check_writable(out / "best_response.md")
            except UnwritableError as e:
                raise BestResponseError(f"--out {out}: {e}") from None
            results = []
            for s in runs:
                print(f"[best-response] {s.rules}: {s.robot}", file=sys.stderr)
                results.append(run_one(s, run_folder(Path(args.runs) / s.rules, s.robot),
                                       progress=progress))
            write_table(table_rows(results), out, command, args.note, plot=not args.no_plot)
            print(f"wrote {out / 'best_response.md'}")
            return 0
        if not args.robot:
            fail("--robot is required (or --table)")
        if args.endgame:
            out = Path(args.out or run_folder(
                Path(args.runs) / f"endgame{args.endgame}-{args.seed}", args.robot))
            from ..robots import make_robot
            from .endgame import MAX_TRICKS

            # bad settings leave no folder (check_settings)
            if not 1 <= args.endgame <= MAX_TRICKS:
                raise BestResponseError(f"invalid --endgame {args.endgame}: expected "
                                        f"1..{MAX_TRICKS} tricks")
            if make_robot(args.robot).wants_view:
                raise BestResponseError(
                    f"--endgame: robot {args.robot!r} searches the game view; the exact "
                    "best response needs a robot that acts on observations (random, table, "
                    "net, onnx:PATH)")
            br = _train_module()
            lr = args.lr or 0.0
            br.check_exploiter(br.endgame_settings(args.robot, args.seed, args.init,
                                                   args.decisions, args.minutes, lr))
            # lr only when given: a folder of a run at the default resumes as before
            _claim(out, {"endgame": args.endgame, "robot": args.robot, "seed": args.seed,
                         "decisions": args.decisions, "minutes": args.minutes,
                         "init": args.init, **({"lr": lr} if lr else {})})
            res = br.endgame_check(
                args.robot, out, seed=args.seed, tricks=args.endgame, decisions=args.decisions,
                minutes=args.minutes, init=args.init, progress=progress, lr=lr)
            for k in range(3):
                print(f"seat {k}: exact best response gains {res['exact_gain'][k]:+.4f}, the "
                      f"trained exploiter {res['approx_gain'][k]:+.4f} groše/deal")
            # the share is undefined where the exact best response gains nothing (one
            # trick: every card is forced)
            share = (f"{res['approx_mean'] / res['exact_mean']:.0%} of it"
                     if res["exact_mean"] else "the robot is a best response here")
            print(f"mean: exact {res['exact_mean']:+.4f}, trained {res['approx_mean']:+.4f} "
                  f"({share})")
            return 0
        game = game_kind(args.rules).name
        out = Path(args.out) if args.out else run_folder(Path(args.runs) / game, args.robot)
        res = run_one(settings(args.robot, game, args.deals), out, progress=progress)
        print(jsonio.dumps(res["gain"], indent=1))
        return 0

    return run_command(body, "the finished stages are kept in the run's folder")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
