"""Sizing engine timing: one estimate against llm-analysis, and the full planner search.

Run: .venv/bin/pytest benchmarks/bench_engine.py --benchmark-only -q -p no:cacheprovider
Targets: one estimate ≤ half of llm-analysis's `train()` on the same workload; a full planner
search (every default GPU, counts 1..32,768) < 10 ms median (issue 11). Timings are reported,
never asserted; the assertions only check the work was done. The median ratio is printed at the end
of the module (benchmarks/engine_vs_llm_analysis.py prints the same without pytest).

The llm-analysis side (pip install -e '.[bench]'; `make bench` does it) is skipped when the
package is missing. Its workload: Llama-2-7B (`NousResearch_Llama-2-7b-hf`, shipped with
llm-analysis), full fine-tune on 8 × A100 SXM 80GB, bf16 (`w16a16e16`), TP 1, PP 1, ZeRO-1,
micro-batch 1, sequence 2,048, 10^9 tokens.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.engine.estimate import estimate
from app.engine.gpus import default_gpus
from app.engine.schemas import EstimateRequest, EstimateResponse

# transformers (pulled in by llm-analysis) warns on import that no PyTorch is installed.
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

ONE = EstimateRequest(
    model={"preset": "llama-2-7b"},
    task="full_finetune",
    seq_len=2048,
    micro_batch=1,
    tokens=1e9,
    gpu="a100-sxm-80gb",
    gpu_count=8,
    zero_stage=1,
    tp=1,
    pp=1,
)
# The same workload for llm_analysis.analysis.train (its model/GPU config names).
LLM_ANALYSIS_KWARGS: dict[str, Any] = {
    "model_name": "NousResearch_Llama-2-7b-hf",
    "gpu_name": "a100-sxm-80gb",
    "dtype_name": "w16a16e16",
    "log_level": "CRITICAL",  # train() resets its logger's level from this on every call
    "batch_size_per_gpu": 1,
    "seq_len": 2048,
    "total_num_tokens": 1e9,
    "ds_zero": 1,
    "tp_size": 1,
    "pp_size": 1,
    "total_num_gpus": 8,
}
SEARCH_7D = EstimateRequest(
    model={"preset": "llama-3.1-70b"},
    task="full_finetune",
    seq_len=4096,
    tokens=1e10,
    deadline_days=7,
)
# A 1-day deadline walks every GPU type to far larger counts.
SEARCH_1D = SEARCH_7D.model_copy(update={"deadline_days": 1})
SEARCH_ROUNDS = 25
ESTIMATE_ROUNDS = 2_000
SEARCH_KEYS = ("search_7d", "search_1d")


_calls = itertools.count(1)


def fresh(req: EstimateRequest) -> EstimateRequest:
    """The same workload with one more token each call: the planner memoises layouts per job,
    so a benchmark that repeated one request would time cache hits, not the arithmetic."""
    return req.model_copy(update={"tokens": (req.tokens or 0) + next(_calls)})


def one_estimate(req: EstimateRequest | None = None) -> EstimateResponse:
    """One estimate of the ONE workload (a fresh copy unless `req` is prepared beforehand)."""
    return estimate(req or fresh(ONE), search_all=False)


def prepared(req: EstimateRequest) -> tuple[tuple[EstimateRequest], dict[str, Any]]:
    """pytest-benchmark `setup`: a fresh request built outside the timed call."""
    return (fresh(req),), {}


def search(req: EstimateRequest) -> EstimateResponse:
    return estimate(fresh(req), search_all=True)


def llm_analysis_train() -> Callable[[], dict[str, Any]]:
    """A zero-argument call of llm-analysis's `train()` on the ONE workload, logging silenced."""
    analysis = pytest.importorskip("llm_analysis.analysis")
    # llm-analysis logs through a logger literally named "__name__" (llm_analysis/logger.py).
    logging.getLogger("__name__").setLevel(logging.CRITICAL)

    def call() -> dict[str, Any]:
        result: dict[str, Any] = analysis.train(**LLM_ANALYSIS_KWARGS)
        return result

    return call


def _median(benchmark: Any) -> float | None:
    """The run's median in seconds; None under --benchmark-disable."""
    stats = getattr(benchmark, "stats", None)
    return stats.stats.median if stats else None


@pytest.fixture(scope="module")
def medians(request: pytest.FixtureRequest) -> Iterator[dict[str, float]]:
    """Collects medians; prints the estimate / llm-analysis ratio once the module is done."""
    found: dict[str, float] = {}
    yield found
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    parts = []
    if {"estimate", "llm_analysis"} <= found.keys():
        est, lla = found["estimate"], found["llm_analysis"]
        parts.append(
            f"engine vs llm-analysis: estimate {est * 1e6:.1f} µs / llm-analysis "
            f"{lla * 1e6:.1f} µs = {est / lla:.2f} (target ≤ 0.50)"
        )
    parts += [
        f"planner {k} {found[k] * 1e3:.1f} ms (target < 10)" for k in SEARCH_KEYS if k in found
    ]
    if reporter is None or not parts:
        return
    line = "; ".join(parts)
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        reporter.write_line("")
        reporter.write_line(line)


def test_one_estimate(benchmark: Any, medians: dict[str, float]) -> None:
    one_estimate()  # warm-up: the first call loads the GPU and model YAML
    r = benchmark.pedantic(one_estimate, setup=lambda: prepared(ONE), rounds=ESTIMATE_ROUNDS)
    assert (r.gpu.count, r.parallelism.dp, r.parallelism.zero_stage) == (8, 8, 1)
    if (m := _median(benchmark)) is not None:
        medians["estimate"] = m


def test_llm_analysis_train(benchmark: Any, medians: dict[str, float]) -> None:
    call = llm_analysis_train()
    call()  # warm-up
    s = benchmark(call)
    assert (s["dp_size"], s["tp_size"], s["pp_size"], s["total_num_gpus"]) == (8, 1, 1, 8)
    assert 6.5e9 < s["num_params_total"] < 6.8e9
    if (m := _median(benchmark)) is not None:
        medians["llm_analysis"] = m


@pytest.mark.parametrize(
    ("key", "req"), [("search_7d", SEARCH_7D), ("search_1d", SEARCH_1D)], ids=["7d", "1d"]
)
def test_planner_search_all_gpus(
    benchmark: Any, medians: dict[str, float], key: str, req: EstimateRequest
) -> None:
    r = benchmark.pedantic(search, args=(req,), rounds=SEARCH_ROUNDS, warmup_rounds=1)
    assert len(r.candidates) == len(default_gpus())
    assert r.training is not None and r.training.meets_deadline
    if (m := _median(benchmark)) is not None:
        medians[key] = m
