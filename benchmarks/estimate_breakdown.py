"""Where one estimate's time goes: the planner walk, number formatting, the rest.

Run: .venv/bin/python benchmarks/estimate_breakdown.py [--rounds 8] [--calls 600]

Times the ONE workload of bench_engine.py (each call a fresh workload, built before the clock
starts) three ways, interleaved call by call so the host's drift hits all alike:

- full: the estimate as the API serves it;
- walk memoised: the planner's walk over GPU counts (the floor that keeps scaling at most
  linear, and the scaling curve) served from a memo keyed without the token count, i.e. what
  the rest of the estimate costs;
- walk memoised, numbers unformatted: as above with `fmt` returning a constant, i.e. what is
  left once the formulas' numbers are not written out.

The last two are diagnostics, not modes of the product: every estimate walks and explains.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_engine import ONE, fresh, one_estimate  # noqa: E402

from app.engine import (  # noqa: E402
    compute,
    estimate,
    image,
    infra,
    memory,
    planner,
    seed_warnings,
    serving,
    training,
    units,
)

FMT_USERS = (units, estimate, training, serving, image, seed_warnings, infra, memory, compute)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--calls", type=int, default=600)
    args = ap.parse_args()

    real_walk, real_fmt = planner._walk, units.fmt
    memo: dict[Any, Any] = {}

    def memo_walk(job: Any, gpu: Any, up_to: int, pins: Any) -> Any:
        key = (gpu.id, up_to, pins)
        if key not in memo:
            memo[key] = real_walk(job, gpu, up_to, pins)
        return memo[key]

    def use(walk: Callable[..., Any], fmt: Callable[..., str]) -> None:
        planner._walk = walk  # type: ignore[assignment]
        for module in FMT_USERS:
            module.fmt = fmt  # type: ignore[attr-defined]

    variants = {
        "full": (real_walk, real_fmt),
        "walk memoised": (memo_walk, real_fmt),
        "walk memoised, numbers unformatted": (memo_walk, lambda x, digits=3: "1"),
    }
    for walk, fmt in variants.values():
        use(walk, fmt)
        one_estimate()  # warm-up: YAML, imports, the memo
    medians: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.calls):
            for name, (walk, fmt) in variants.items():
                use(walk, fmt)
                req = fresh(ONE)
                t0 = time.perf_counter()
                one_estimate(req)
                times[name].append(time.perf_counter() - t0)
        for name, t in times.items():
            medians[name].append(statistics.median(t))
    use(real_walk, real_fmt)
    full = statistics.median(medians["full"])
    for name, m in medians.items():
        med = statistics.median(m)
        print(f"{name:36s} median {med * 1e6:7.1f} µs ({med / full:.0%} of full)")


if __name__ == "__main__":
    main()
