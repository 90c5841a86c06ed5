"""Run logs: CSV files, TensorBoard scalars and the learning-curve PNG.

``RUN/metrics.csv``: one row per iteration; ``RUN/eval.csv``: one row per evaluation and
opponent; ``RUN/tb/``: TensorBoard events (x axis: engine decisions);
``RUN/curves.png``: evaluation groše per deal with 95% intervals, and the training loss.
On ``--resume`` rows written after the checkpoint are dropped and ``eval.csv`` is
rewritten from the checkpoint's evaluation history, so the logs match the run.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from mariash_env.textfile import NotUtf8Error, read_text

# Columns of ``metrics.csv`` the trainer fills itself; a method's own metrics
# (``Method.METRICS``) go between the counters and the timings (:func:`metric_fields`).
COUNTER_FIELDS = ("iteration", "decisions", "samples", "updates", "deals", "train_s",
                  "dec_per_s", "samples_per_s", "upd_per_s", "loss")
TIMING_FIELDS = ("rollout_s", "policy_s", "update_s", "carried", "pool_size", "ret_vs_pool",
                 "ret_vs_random", "ret_vs_table")


def metric_fields(method_metrics: tuple[str, ...] = ()) -> list[str]:
    """The columns of ``metrics.csv`` with a method's metrics (``Method.METRICS``)."""
    clash = set(method_metrics) & set(COUNTER_FIELDS + TIMING_FIELDS)
    if clash or len(set(method_metrics)) != len(method_metrics):
        raise ValueError(f"method metrics {list(method_metrics)} repeat a name or reuse one "
                         f"of the trainer's columns {sorted(clash)}")
    return [*COUNTER_FIELDS, *method_metrics, *TIMING_FIELDS]


EVAL_FIELDS = ["iteration", "decisions", "opponent", "mean", "ci_low", "ci_high", "std",
               "deals", "forehand", "middlehand", "dealer", "seconds"]


class CsvLog:
    """Append rows to a CSV file with fixed columns (header written once)."""

    def __init__(self, path: Path, fields: list[str], keep_until: int | None = None,
                 rows: list[dict[str, Any]] | None = None) -> None:
        """``keep_until``: drop the rows of later iterations; ``rows``: replace the file's
        rows by these."""
        self.path = path
        self.fields = fields
        if rows is not None:
            self._rewrite(rows)
        elif keep_until is not None and path.exists():
            self._truncate(keep_until)
        new = not path.exists() or path.stat().st_size == 0
        self.f = open(path, "a", newline="", encoding="utf-8")
        self.w = csv.DictWriter(self.f, fieldnames=fields, extrasaction="ignore")
        if new:
            self.w.writeheader()
            self.f.flush()

    def _truncate(self, keep_until: int) -> None:
        rows = read_log(self.path, {"iteration": WHOLE})  # LogError: before it is rewritten
        self._rewrite([r for r in rows if int(float(r["iteration"])) <= keep_until])

    def _rewrite(self, rows: list[dict[str, Any]]) -> None:
        from .checkpoint import atomic_write_bytes  # (torch) only when resuming

        buf = io.StringIO(newline="")
        w = csv.DictWriter(buf, fieldnames=self.fields, extrasaction="ignore")
        w.writeheader()
        w.writerows({k: _fmt(r.get(k, "")) for k in self.fields} for r in rows)
        atomic_write_bytes(self.path, [buf.getvalue().encode("utf-8")])  # a kill loses no row

    def write(self, row: dict[str, Any]) -> None:
        self.w.writerow({k: _fmt(row.get(k, "")) for k in self.fields})
        self.f.flush()

    def close(self) -> None:
        self.f.close()


def _fmt(v: Any) -> Any:
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


class LogError(ValueError):
    """A run's CSV log that cannot be read as one, naming the file: not UTF-8 text
    (:func:`read_csv`), or a row without the value a reader needs (:func:`read_log`:
    the line, the column and what was expected)."""


# What a column read by :func:`read_log` holds: the words of its error, and its check.
WHOLE = "a whole number"
NUMBER = "a number (nan for none)"
NAME = "a name"
TEXT = "a text (empty for none)"  # the column must be there; its value may be empty

# The columns of an ``eval.csv`` its readers use: the curves of a run and of its earlier
# stages (:func:`plot_run`), a recipe's learning curve (``training.pipeline.training_curve``)
EVAL_COLUMNS = {"decisions": WHOLE, "opponent": NAME, "mean": NUMBER, "ci_low": NUMBER,
                "ci_high": NUMBER}
# The columns of a ``metrics.csv`` the curves draw (:func:`plot_run`; a value that is not
# a number is drawn as none)
METRIC_COLUMNS = {"decisions": TEXT, "loss": TEXT, "dec_per_s": TEXT}


def _holds(value: str, what: str) -> bool:
    if what == NAME:
        return bool(value.strip())
    try:
        x = float(value)
    except ValueError:
        return False
    return what == NUMBER or (math.isfinite(x) and x.is_integer())


def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of the CSV file at ``path`` as dicts (none when there is no file), no
    column checked (:func:`read_log` checks the columns a reader needs).  LogError
    naming the file where it is not UTF-8 text (:func:`mariash_env.textfile.read_text`),
    OSError where it cannot be read.  A quoted field is kept as written (its ``\\r\\n``
    or ``\\r`` too: the text is read with ``newline=""``, as the ``csv`` module
    requires)."""
    return read_log(path, {})


def read_log(path: Path, columns: dict[str, str]) -> list[dict[str, str]]:
    """:func:`read_csv`'s rows, each holding what the reader needs: ``columns`` maps
    each column it reads to what that column holds (:data:`WHOLE`, :data:`NUMBER`,
    :data:`NAME`, :data:`TEXT`).  A header without one of them, or a row where one is
    missing, empty (but for :data:`TEXT`) or not what it holds (a word in a column of
    numbers, a row cut short) is a LogError naming the file, the line, the column and
    what was expected; before, the reader failed on it with a bare ValueError or
    KeyError.  A row with more cells than the header has columns is a LogError naming
    the file, the line and the counts (whatever it reads: before, it was read, and a
    writer of the rows failed on it, a gate's after its games)."""
    if not path.exists():
        return []
    try:
        text = read_text(path, newline="")
    except NotUtf8Error as e:  # a bare UnicodeDecodeError before
        raise LogError(f"{path}: {e}") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []  # an empty file: no header, no rows
    for col, what in columns.items():
        if header and col not in header:
            raise LogError(f"{path}: line 1 (the header): no column {col!r} (its columns: "
                           f"{', '.join(header)}): expected a column {col!r} ({what} in "
                           "each row)")
    rows = []
    for row in reader:
        extra = row.get(None)  # DictReader's list of the cells past the header's columns
        if extra:  # taken as read, then csv.DictWriter failed on it (a bare ValueError)
            raise LogError(f"{path}: line {reader.line_num}: {len(header) + len(extra)} "
                           f"cells, the header has {len(header)} columns: expected at most "
                           f"{len(header)}")
        for col, what in columns.items():
            value = row[col]
            if value is None:  # DictReader's value of a column past the row's end
                n = sum(v is not None for k, v in row.items() if k is not None)
                problem = f"missing (the row has {n} of the header's {len(header)} columns)"
            elif what == TEXT:
                continue
            elif not value.strip():
                problem = "empty"
            elif not _holds(value, what):
                problem = repr(value)
            else:
                continue
            raise LogError(f"{path}: line {reader.line_num}, column {col!r}: {problem}: "
                           f"expected {what}")
        rows.append(row)
    return rows


def _num(x: str) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def lineage_evals(lineage: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, str]],
                                                                float]]:
    """The earlier stages of a run (its ``lineage``, oldest first) as its curves draw them
    (:func:`plot_run`): each one's run directory name, the rows of its ``eval.csv``
    (none where it is not at hand) and the engine decisions before it.  LogError naming
    an ``eval.csv`` that is not UTF-8 text or lacks a value the curves draw
    (:data:`EVAL_COLUMNS`): the trainer reads them at its start, so that a damaged one
    is refused before any training, not at the first evaluation's plot."""
    stages, offset = [], 0.0
    for st in lineage:
        run = Path(st["checkpoint"]).parent
        stages.append((run.name, read_log(run / "eval.csv", EVAL_COLUMNS), offset))
        offset += _num(st.get("decisions") or 0)
    return stages


def plot_run(run_dir: str | Path, out: str | Path | None = None,
             lineage: list[dict[str, Any]] | None = None) -> Path | None:
    """Draw ``curves.png`` of a run directory from its CSV logs (matplotlib, Agg).

    One evaluation panel per opponent (each on its own scale), then the training loss
    and the throughput.  With ``lineage`` (the runs this one was warm-started from), the
    earlier stages' evaluations are drawn before it, on one decision axis, when their
    run directories (beside their checkpoints) are at hand (:func:`lineage_evals`).
    LogError naming a log that cannot be read as one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    out = Path(out) if out else run_dir / "curves.png"
    # the columns it draws (its own logs as its earlier stages'): one missing, or a value
    # that is not a number in eval.csv, is a LogError naming the file (a KeyError before,
    # which the trainer's warning did not catch); metrics.csv's numbers may be empty
    metrics = read_log(run_dir / "metrics.csv", METRIC_COLUMNS)
    evals = read_log(run_dir / "eval.csv", EVAL_COLUMNS)
    if not metrics and not evals:
        return None
    stages = lineage_evals(lineage or [])
    offset = sum(_num(st.get("decisions") or 0) for st in lineage or [])
    opps = sorted({r["opponent"] for r in evals})
    fig, axes = plt.subplots(1, len(opps) + 2, figsize=(5 * (len(opps) + 2), 4.2),
                             squeeze=False)
    axes = axes[0]
    for ax, opp in zip(axes, opps):
        for k, (label, rows, off) in enumerate(stages + [(run_dir.name, evals, offset)]):
            rows = [r for r in rows if r["opponent"] == opp]
            if not rows:
                continue
            x = [(off + _num(r["decisions"])) / 1e6 for r in rows]
            m = [_num(r["mean"]) for r in rows]
            color = f"C{k}"
            ax.plot(x, m, marker="o", ms=3, color=color,
                    label=label if stages else f"vs {opp}")
            ax.fill_between(x, [_num(r["ci_low"]) for r in rows],
                            [_num(r["ci_high"]) for r in rows], color=color, alpha=0.25)
        if stages:
            ax.axvline(offset / 1e6, color="gray", ls="--", lw=0.8)
        ax.axhline(0.0, color="gray", lw=0.8)
        ax.set_xlabel("engine decisions (millions)")
        ax.set_ylabel("groše per deal (duplicate)")
        ax.set_title(f"vs {opp}: 95% bootstrap CI")
        ax.legend()
    x = [(offset + _num(r["decisions"])) / 1e6 for r in metrics]
    for ax, key, title in ((axes[-2], "loss", "training loss"),
                           (axes[-1], "dec_per_s", "decisions per second")):
        y = [_num(r[key]) for r in metrics]
        ax.plot(x, y, lw=0.6, alpha=0.5)
        if len(y) >= 10:
            k = max(1, len(y) // 30)
            sm = [sum(y[max(0, i - k):i + 1]) / len(y[max(0, i - k):i + 1])
                  for i in range(len(y))]
            ax.plot(x, sm, lw=1.5)
        ax.set_xlabel("engine decisions (millions)")
        ax.set_title(title)
    fig.tight_layout()
    tmp = out.with_name(f".{out.name}.tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    tmp.replace(out)
    return out


class TensorBoard:
    """Thin wrapper: no-op when disabled or when tensorboard is not installed."""

    def __init__(self, log_dir: Path, enabled: bool, purge_step: int | None) -> None:
        self.w = None
        if enabled:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # pragma: no cover
                return
            self.w = SummaryWriter(log_dir=str(log_dir), purge_step=purge_step)

    def scalars(self, prefix: str, values: dict[str, Any], step: int) -> None:
        if self.w is None:
            return
        for k, v in values.items():
            if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
                self.w.add_scalar(f"{prefix}/{k}", v, step)

    def flush(self) -> None:
        if self.w is not None:
            self.w.flush()

    def close(self) -> None:
        if self.w is not None:
            self.w.close()
