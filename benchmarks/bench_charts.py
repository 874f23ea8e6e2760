"""Chart timings: build each figure + to_json (every page render), and to_svg (every PDF).

Run: .venv/bin/pytest benchmarks/bench_charts.py --benchmark-only -q
Targets: build + to_json median < 50 ms per figure (pages rebuild charts on every field
change, PRODUCT.md journey 2); to_svg median < 0.5 s per figure with kaleido's server warm
(a quote PDF carries about five charts). Timings are reported, never asserted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# The benchmark reuses the chart tests' engine-built samples; `tests` is not installed.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app import charts  # noqa: E402
from tests.charts import samples  # noqa: E402

R = samples.estimate_13b()
COST = samples.cost_dict(samples.comparison())
POINTS = samples.gpu_points()
T = samples.zh

BUILDERS: dict[str, Callable[[], Any]] = {
    "memory_bar": lambda: charts.memory_bar(R.memory_per_gpu_gb.model_dump(), 80, t=T),
    "gpus_vs_days": lambda: charts.gpus_vs_days(POINTS, deadline_days=7, chosen=8, t=T),
    "cumulative_costs": lambda: charts.cumulative_costs(
        COST["options"], COST["break_even"], currency="TWD", t=T
    ),
    "tco_bars": lambda: charts.tco_bars(COST["tco"], currency="TWD", t=T),
    "utilization_sensitivity": lambda: charts.utilization_sensitivity(
        COST["options"], currency="TWD", t=T, utilization=0.8
    ),
    "architectures_compare": lambda: charts.architectures_compare(
        samples.TEMPLATES, currency="TWD", t=T
    ),
}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_build_and_to_json(benchmark: Any, name: str) -> None:
    build = BUILDERS[name]
    text = benchmark(lambda: charts.to_json(build()))
    assert text.startswith('{"data":')


@pytest.fixture(scope="module")
def warm_server() -> None:
    charts.to_svg(BUILDERS["memory_bar"](), 400, 200)  # starts Chromium once


@pytest.mark.parametrize("name", list(BUILDERS))
def test_to_svg_warm(benchmark: Any, warm_server: None, name: str) -> None:
    fig = BUILDERS[name]()
    height = int(fig.layout.height or 450)
    svg = benchmark.pedantic(charts.to_svg, args=(fig, 900, height), rounds=10, iterations=1)
    assert svg.startswith("<svg")
