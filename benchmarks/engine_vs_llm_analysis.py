"""One estimate against llm-analysis's `train()`, and the full planner search, without pytest.

Run: .venv/bin/python benchmarks/engine_vs_llm_analysis.py [--repeats 50]
Prints the median of each (time.perf_counter, warm-up calls first; the estimate and the
llm-analysis call interleaved) and the ratio estimate / llm-analysis (target ≤ 0.50), then the
planner search medians (target < 20 ms). The workloads are those of benchmarks/bench_engine.py.
Needs llm-analysis (pip install -e '.[bench]'). The host's noise moves absolute times by up to
2× between runs; the interleaved ratio holds steadier.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_engine import (  # noqa: E402
    ONE,
    SEARCH_1D,
    SEARCH_7D,
    fresh,
    llm_analysis_train,
    one_estimate,
    search,
)


def medians_s(fns: list[Callable[[], Any]], repeats: int, warmup: int = 5) -> list[float]:
    """Median seconds of each function, their calls interleaved round by round.

    Interleaving (and alternating the order every round) spreads the drift of a shared,
    frequency-scaling CPU over both sides, so the ratio holds steadier than two separate loops.
    """
    for fn in fns:
        for _ in range(warmup):  # YAML loading, imports, caches
            fn()
    times: list[list[float]] = [[] for _ in fns]
    order = list(range(len(fns)))
    for _ in range(repeats):
        for i in order:
            t0 = time.perf_counter()
            fns[i]()
            times[i].append(time.perf_counter() - t0)
        order.reverse()
    return [statistics.median(t) for t in times]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=50)
    n = ap.parse_args().repeats
    # Each estimate gets its own workload, built before the clock starts (the planner memoises
    # per workload, so repeating one request would time cache hits, not the arithmetic).
    requests = iter([fresh(ONE) for _ in range(n + 5)])
    est, lla = medians_s([lambda: one_estimate(next(requests)), llm_analysis_train()], n)
    print(f"one estimate       median {est * 1e6:8.1f} µs")
    print(f"llm-analysis train median {lla * 1e6:8.1f} µs")
    print(f"ratio estimate / llm-analysis = {est / lla:.2f} (target ≤ 0.50)")
    for name, req in (("7-day deadline", SEARCH_7D), ("1-day deadline", SEARCH_1D)):
        (m,) = medians_s([partial(search, req)], n, warmup=1)
        print(f"planner search, all GPUs, {name}: median {m * 1e3:.1f} ms (target < 20 ms)")


if __name__ == "__main__":
    main()
