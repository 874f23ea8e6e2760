"""The planner's memo tables are shared by every request of a process: they must never change
an answer, whatever order or threads the requests come in."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.engine import planner
from app.engine.estimate import estimate, resolve_model
from app.engine.gpus import default_gpus
from app.engine.schemas import EstimateRequest
from app.engine.training import training_job, training_tokens

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


def _planner_answers(job: planner.TrainingJob, gpu_ids: list[str]) -> list[tuple[object, ...]]:
    """(count, layout, days) of the chosen candidate per GPU type, from the planner itself."""
    out: list[tuple[object, ...]] = []
    for gpu_id in gpu_ids:
        gpu = next(g for g in default_gpus() if g.id == gpu_id)
        chosen, _ = planner.plan_training(job, gpu, deadline_days=3.0)
        assert chosen is not None
        out.append((chosen.count, chosen.layout, chosen.days))
    return out


@pytest.mark.usefixtures("busy_switching")
def test_threads_calling_the_planner_directly_agree_with_a_sequential_run() -> None:
    # The memo has one lock (planner.MEMO_LOCK), taken by each entry point as well as by
    # `estimate`: a caller that plans without going through `estimate` is safe too.
    req = EstimateRequest(**WORKLOADS[0])
    model = resolve_model(req)
    job, _, _ = training_job(req, model, training_tokens(req, model, []))
    gpu_ids = ["h100-sxm-80gb", "h100-pcie-80gb", "l40s-48gb", "a100-sxm-40gb"]
    _cold()
    expected = _planner_answers(job, gpu_ids)
    for _ in range(3):
        _cold()
        with ThreadPoolExecutor(max_workers=8) as pool:
            got = list(
                pool.map(
                    lambda i: _planner_answers(job, gpu_ids[i % 4 :] + gpu_ids[: i % 4]), range(16)
                )
            )
        for i, answers in enumerate(got):
            k = i % 4
            assert answers == expected[k:] + expected[:k]


def test_a_job_the_memo_drops_is_freed_at_once_not_left_to_the_collector() -> None:
    # The memo keeps 32 jobs (`_terms`) and 512 walks (`_walk`); a job it drops is freed by
    # reference counting when nothing in its tables points back at the tables. A cycle would
    # leave thousands of objects a search for the full (generation-2) collections, whose
    # pauses grew with them (about 190 ms each, every ~20 searches, measured before).
    requests = [EstimateRequest(**w) for w in WORKLOADS]
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable stays in gc.garbage
    try:
        _cold()
        _answers(requests)
        _cold()
        gc.collect()
        left = [o for o in gc.garbage if type(o).__module__ == planner.__name__]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []
