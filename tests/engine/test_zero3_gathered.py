"""ZeRO-3 keeps each GPU's shard of the parameters, but computes on whole units: the unit
running and the next one, prefetched (PyTorch FSDP `limit_all_gathers`: "GPU memory usage
from only *two* consecutive FSDP instances"), and in the backward pass the running unit's
unsharded gradients until they are reduce-scattered. The memory per GPU counts them.

Llama 3.1 8B by hand from its config.json (hidden 4,096, 32 heads of 128, 8 KV heads, FFN
14,336, vocab 128,256, untied): one layer is q 4,096² + k, v 2 × 4,096 × 1,024 + o 4,096²
(41,943,040) + SwiGLU 3 × 4,096 × 14,336 (176,160,768) + 2 norms of 4,096 = 218,112,000
parameters, and one embedding matrix 128,256 × 4,096 = 525,336,576: the embedding is the
largest unit FSDP gathers whole.
"""

from __future__ import annotations

import pytest

from app.engine import planner
from app.engine.architectures import get_preset
from app.engine.schemas import EstimateResponse
from tests.engine.helpers import est

EMBEDDING = 128_256 * 4096  # 525,336,576
LAYER = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096  # 218,112,000


def _job(zero: int, tp: int = 1) -> EstimateResponse:
    return est(
        "llama-3.1-8b", task="full_finetune", tokens=1e9, gpu="h100-sxm-80gb", gpu_count=8,
        tp=tp, pp=1, zero_stage=zero,
    )  # fmt: skip


def test_the_units_are_counted_from_the_architecture() -> None:
    emb, layer, experts = planner.zero3_unit_params(get_preset("llama-3.1-8b"))
    # the final norm's 4,096 is spread over the 32 layers
    assert (emb, experts) == (EMBEDDING, 0.0)
    assert layer == pytest.approx(LAYER + 4096 / 32, abs=1e-6)


def test_zero3_adds_two_gathered_units_and_one_units_gradients() -> None:
    z2, z3 = _job(2), _job(3)
    assert (z3.parallelism.dp, z3.parallelism.zero_stage) == (8, 3)
    params = z3.model["params_b"] * 1e9
    # bf16: sharded 2 B × params / 8, plus 2 embeddings' worth gathered at 2 B
    assert z3.memory_per_gpu_gb.weights == pytest.approx(
        (2 * params / 8 + 2 * EMBEDDING * 2) / 1e9, rel=1e-9
    )
    assert z3.memory_per_gpu_gb.gradients == pytest.approx(
        (2 * params / 8 + EMBEDDING * 2) / 1e9, rel=1e-9
    )
    # ZeRO-2 keeps the whole bf16 weights: nothing to gather
    assert z2.memory_per_gpu_gb.weights == pytest.approx(2 * params / 1e9, rel=1e-9)
    (why,) = [e for e in z3.explain if e.figure == "memory_gb.per_gpu"]
    assert "2 gathered (running + prefetched) 2.1 GB" in why.formula
    assert "FSDP" in why.source


def test_tensor_parallelism_splits_the_gathered_units() -> None:
    """TP 2 leaves dp 4; each gathered unit is half an embedding a GPU."""
    z3 = _job(3, tp=2)
    params = z3.model["params_b"] * 1e9
    assert (z3.parallelism.dp, z3.parallelism.tp) == (4, 2)
    assert z3.memory_per_gpu_gb.weights == pytest.approx(
        (2 * params / 2 / 4 + 2 * EMBEDDING / 2 * 2) / 1e9, rel=1e-9
    )


def test_one_data_parallel_rank_gathers_nothing() -> None:
    """ZeRO-3 over dp 1 partitions nothing, so nothing is gathered either."""
    r = est(
        "llama-3.1-8b", task="full_finetune", tokens=1e9, gpu="h100-sxm-80gb", gpu_count=8,
        tp=8, pp=1, zero_stage=3,
    )  # fmt: skip
    params = r.model["params_b"] * 1e9
    assert r.parallelism.dp == 1
    assert r.memory_per_gpu_gb.weights == pytest.approx(2 * params / 8 / 1e9, rel=1e-9)
