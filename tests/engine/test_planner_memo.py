"""The planner's memo tables are shared by every request of a process: they must never change
an answer, whatever order or threads the requests come in."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.engine import planner
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest

WORKLOADS = [
    # the planner page's opening example shape: no GPU pinned, a deadline, every GPU searched
    {
        "model": {"preset": "llama-3.1-70b"},
        "task": "full_finetune",
        "tokens": 1e10,
        "deadline_days": 7,
    },
    {
        "model": {"preset": "llama-2-7b"},
        "task": "full_finetune",
        "gpu": "a100-sxm-80gb",
        "gpu_count": 8,
        "zero_stage": 1,
    },
    {"model": {"preset": "mixtral-8x7b"}, "task": "lora", "tokens": 1e9, "deadline_days": 2},
    {"model": {"preset": "qwen2.5-14b"}, "task": "pretrain", "tokens": 3e11, "deadline_days": 30},
]


def _answers(requests: list[EstimateRequest]) -> list[str]:
    return [estimate(r, search_all=True).model_dump_json() for r in requests]


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Switch threads every microsecond so that interleavings a race needs actually happen."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _cold() -> None:
    planner._terms.cache_clear()
    planner._walk.cache_clear()


def test_cached_answers_equal_cold_answers() -> None:
    requests = [EstimateRequest(**w) for w in WORKLOADS]
    _cold()
    cold = _answers(requests)
    warm = _answers(requests)  # every ranking, memory size and walk now comes from the memo
    assert warm == cold
    _cold()
    assert _answers(list(reversed(requests))) == list(reversed(cold))


@pytest.mark.usefixtures("busy_switching")
def test_concurrent_estimates_of_one_workload_agree_with_a_sequential_one() -> None:
    requests = [EstimateRequest(**w) for w in WORKLOADS]
    _cold()
    expected = _answers(requests)
    for _ in range(3):
        _cold()  # every thread starts from empty tables and fills the same ones at once
        with ThreadPoolExecutor(max_workers=8) as pool:
            got = list(pool.map(lambda i: _answers([requests[i % len(requests)]])[0], range(32)))
        assert got == [expected[i % len(requests)] for i in range(32)]
