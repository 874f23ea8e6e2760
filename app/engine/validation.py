"""The engine checked against published measurements: one row type for training and serving.

Each row pairs what the engine predicts for a published run (GPU type and count pinned,
everything else at the engine's defaults — never a constant fitted per run) with what the
source reports. Producers (training runs, serving measurements) build `ValidationRow`s;
the validation page, `GET /api/v1/validation` and the uncertainty bands of estimates read
the summaries below.

Error measure: |log(predicted / reported)| — symmetric, so 2× too fast and 2× too slow
weigh the same; ``pct_error = exp(|log|) − 1`` is how it is shown ("±14%").
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationRow:
    """One published run and the engine's prediction for it.

    kind: "training" | "serving" | "image"; category: the band it belongs to ("H100-era
    pre-training", "MoE", "fine-tuning", "decode, max load", "SDXL images", …); metric: what
    is compared ("GPU-hours", "days", "output tokens/s", "TTFT", "images/h per GPU"); predicted/reported in `unit`; split: "fit" (rows the
    defaults were chosen on) or "holdout"; source: the paper/page; quote: the words the
    figure was read from.
    """

    id: str
    kind: str
    category: str
    model: str
    gpu: str
    gpu_count: float
    task: str
    metric: str
    unit: str
    predicted: float
    reported: float
    source: str
    quote: str
    split: str = "holdout"
    notes: str = ""
    # False: the engine's memory model puts the run's published layout over the GPU's memory
    # (the run did fit, so the memory estimate is pessimistic there); its time is still that
    # layout's.
    fits: bool = True

    @property
    def log_error(self) -> float:
        """log(predicted / reported): > 0 when the engine says more (slower / more hours)."""
        return math.log(self.predicted / self.reported)

    @property
    def pct_error(self) -> float:
        """|error| as a percentage-like figure: exp(|log error|) − 1."""
        return math.exp(abs(self.log_error)) - 1


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorSummary:
    """Median and worst |error| over `runs` rows (as exp(|log|) − 1)."""

    runs: int
    median_pct: float
    worst_pct: float
    worst_id: str


def summarise(rows: Iterable[ValidationRow]) -> ErrorSummary | None:
    rows = list(rows)
    if not rows:
        return None
    worst = max(rows, key=lambda r: abs(r.log_error))
    median_log = statistics.median(abs(r.log_error) for r in rows)
    return ErrorSummary(
        runs=len(rows),
        median_pct=math.exp(median_log) - 1,
        worst_pct=worst.pct_error,
        worst_id=worst.id,
    )


def by_category(rows: Sequence[ValidationRow]) -> dict[str, ErrorSummary]:
    """The summary of each category (the band an estimate of that kind carries)."""
    out: dict[str, ErrorSummary] = {}
    for cat in sorted({r.category for r in rows}):
        s = summarise(r for r in rows if r.category == cat)
        if s is not None:
            out[cat] = s
    return out
