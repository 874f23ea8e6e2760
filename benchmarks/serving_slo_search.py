"""Time of one SLO search over every shipped GPU (issue 12 target: < 20 ms median in-process).

Run: .venv/bin/python benchmarks/serving_slo_search.py [--repeats 30]
The workload: Llama 3.1 70B FP8, 300 users, 1,536-token prompts and 512-token answers,
first token ≤ 2 s and ≥ 25 tokens/s each; `serving.choose` sizes every GPU's
smallest layout (TP choices × bisection over concurrency) and prices it at the shipped
price list's rental offers (`gpu_search='cheapest'`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.catalog.shipped import shipped_price_book  # noqa: E402
from app.engine import serving  # noqa: E402
from app.engine.architectures import get_preset  # noqa: E402
from app.engine.gpus import default_gpus  # noqa: E402
from app.engine.schemas import EstimateRequest  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args()
    req = EstimateRequest(
        model={"preset": "llama-3.1-70b"},
        task="inference",
        precision="fp8",
        users=300,
        avg_context_tokens=2048,
        output_tokens=512,
        slo={"ttft_s": 2.0, "tokens_per_s_per_user": 25},
        gpu_search="cheapest",
    )
    book = shipped_price_book()
    model, pool = get_preset("llama-3.1-70b"), default_gpus()
    times = []
    for _ in range(args.repeats + 3):
        t0 = time.perf_counter()
        gpu, _choices = serving.choose(req, model, pool, pool[0], book)
        times.append(time.perf_counter() - t0)
    med = statistics.median(times[3:]) * 1e3
    print(f"SLO search over {len(pool)} GPUs: median {med:.1f} ms (target < 20 ms) → {gpu.id}")


if __name__ == "__main__":
    main()
