"""Cost engine timing: one full comparison (every option kind, 60-month horizon).

Run: .venv/bin/pytest benchmarks/bench_costs.py --benchmark-only -q
Target: median < 5 ms (the page recomputes costs on every field change, PRODUCT.md journey 2).
Timings are reported, never asserted; the assertions only check the work was done.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

# The benchmark reuses the tests' seed-003 price list; `tests` is not an installed package.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.engine.costs import Phase, Usage, compare_costs, schedule_cost, tco_curves  # noqa: E402
from tests.engine.test_costs import H100, P5_2026, P5_PRECUT, seed003_book  # noqa: E402

# p5 with a 1-year reserved price so that every option kind is built
BOOK = seed003_book(cloud=(dataclasses.replace(P5_2026, reserved_hourly=40.0), P5_PRECUT))
USAGE = Usage(H100, 8, 730, 60, 10.2, storage_network_monthly=50_000)
ALL_KINDS = {"rent_hourly", "rent_monthly", "rent_term", "buy", "cloud", "cloud_reserved"}


def test_compare_costs_all_options_60_months(benchmark: Any) -> None:
    c = benchmark(compare_costs, USAGE, BOOK, horizon_months=60, term_months=12, utilization=0.8)
    assert {o.kind for o in c.options} == ALL_KINDS
    assert len(c.break_even) == len(c.options) * (len(c.options) - 1) // 2


def test_compare_and_tco_60_months(benchmark: Any) -> None:
    def run() -> int:
        c = compare_costs(USAGE, BOOK, horizon_months=60, term_months=12)
        return len(tco_curves(c))

    assert benchmark(run) == 7


def test_schedule_t16(benchmark: Any) -> None:
    phases = [Phase(H100, 1, 2), Phase(H100, 4, 1), Phase(H100, 1, 1)]
    assert benchmark(schedule_cost, phases, BOOK).total == 350_000
