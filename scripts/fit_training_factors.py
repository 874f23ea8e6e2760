"""Choose the two shared MFU constants on the `fit` half of the training validation table.

Run: PYTHONPATH=. .venv/bin/python scripts/fit_training_factors.py
Grid-searches SOFTWARE_EFFICIENCY and MEMORY_BOUND_KAPPA (app/engine/compute.py) for the
smallest median |log error| over the rows with `split: fit`, and prints the error of the
choice on the fit half, the holdout half and all rows. Nothing is chosen per run; the
holdout rows are never looked at while choosing.
"""

from __future__ import annotations

import itertools
import math
import statistics

from app.engine import compute, planner, training_validation
from app.engine.validation import summarise

SOFTWARE_GRID = (0.60, 0.65, 0.70, 0.75, 0.80, 0.85)
KAPPA_GRID = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def _use(software: float, kappa: float) -> None:
    compute.SOFTWARE_EFFICIENCY, compute.MEMORY_BOUND_KAPPA = software, kappa
    planner._terms.cache_clear()
    planner._walk.cache_clear()
    training_validation.rows.cache_clear()


def _fit_error(software: float, kappa: float) -> float:
    _use(software, kappa)
    fit = [r for r in training_validation.rows() if r.split == "fit"]
    return statistics.median(abs(r.log_error) for r in fit)


def choose() -> tuple[float, float]:
    """(SOFTWARE_EFFICIENCY, MEMORY_BOUND_KAPPA) with the smallest median |log error| on the
    fit rows (the first on ties, in grid order). Leaves the engine's constants as it found
    them."""
    shipped = (compute.SOFTWARE_EFFICIENCY, compute.MEMORY_BOUND_KAPPA)
    try:
        return min(itertools.product(SOFTWARE_GRID, KAPPA_GRID), key=lambda g: _fit_error(*g))
    finally:
        _use(*shipped)


def main() -> None:
    best = choose()
    _use(*best)
    rows = training_validation.rows()
    print(f"chosen SOFTWARE_EFFICIENCY={best[0]} MEMORY_BOUND_KAPPA={best[1]}")
    for name, sel in (("fit", "fit"), ("holdout", "holdout"), ("all", None)):
        s = summarise(r for r in rows if sel is None or r.split == sel)
        assert s is not None
        print(
            f"{name:8s} n={s.runs} median {s.median_pct:.1%} worst {s.worst_pct:.1%} ({s.worst_id})"
        )
    print("within 2x:", sum(abs(r.log_error) <= math.log(2) for r in rows), "of", len(rows))


if __name__ == "__main__":
    main()
