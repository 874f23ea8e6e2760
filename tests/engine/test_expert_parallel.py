"""An MoE's routed experts are split over the data-parallel ranks (expert parallelism), so
each GPU holds its share of the experts, not all of them.

Mixtral 8x7B by hand from its config.json (32 layers, hidden 4,096, expert FFN 14,336,
8 routed experts, SwiGLU's 3 matrices): one expert has 3 × 4,096 × 14,336 = 176,160,768
weights per layer, so the routed experts hold 32 × 8 × 176,160,768 = 45,097,156,608 of the
model's parameters. On 16 GPUs with DP 16 the expert-parallel degree is gcd(16, 8) = 8:
each GPU holds one whole expert per layer. DeepSeek-V3 trained so (report §3.2: "64-way
Expert Parallelism (EP) spanning 8 nodes, and ZeRO-1 Data Parallelism (DP)").
"""

from __future__ import annotations

import pytest

from app.engine import planner
from app.engine.architectures import get_preset
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest

EXPERTS = 32 * 8 * 3 * 4096 * 14336  # 45,097,156,608


def _mixtral(**pins: object) -> EstimateRequest:
    body = {"model": {"preset": "mixtral-8x7b"}, "task": "full_finetune", "tokens": 1e9,
            "gpu": "h100-sxm-80gb", "gpu_count": 16, "tp": 1, "pp": 1, **pins}  # fmt: skip
    return EstimateRequest.model_validate(body)


def test_mixtral_routed_experts_counted_from_the_config() -> None:
    assert get_preset("mixtral-8x7b").routed_expert_params == EXPERTS


def test_the_expert_parallel_degree_is_the_largest_that_divides_dp_and_the_experts() -> None:
    mixtral, dense = get_preset("mixtral-8x7b"), get_preset("llama-3.1-8b")
    assert [planner.expert_parallel(mixtral, d) for d in (1, 2, 4, 6, 8, 16, 128)] == [
        1, 2, 4, 2, 8, 8, 8,
    ]  # fmt: skip
    assert planner.expert_parallel(dense, 16) == 1
    deepseek = get_preset("deepseek-v3")
    assert deepseek.experts == 256 and planner.expert_parallel(deepseek, 64) == 64


def test_zero1_on_16_gpus_keeps_one_expert_per_layer_on_each_gpu() -> None:
    r = estimate(_mixtral(zero_stage=1))
    params = r.model["params_b"] * 1e9
    dense = params - EXPERTS
    assert (r.parallelism.dp, r.parallelism.ep, r.parallelism.zero_stage) == (16, 8, 1)
    mg = r.memory_per_gpu_gb
    # bf16 weights and gradients: 2 B × (dense + experts / 8); ZeRO-1 does not split them
    assert mg.weights == pytest.approx(2 * (dense + EXPERTS / 8) / 1e9, rel=1e-9)
    assert mg.gradients == pytest.approx(2 * (dense + EXPERTS / 8) / 1e9, rel=1e-9)
    # Adam's 12 B/param (fp32 master, m, v) is split over all 16 ranks by ZeRO-1 anyway
    assert mg.optimizer == pytest.approx(12 * params / 16 / 1e9, rel=1e-9)
    (why,) = [e for e in r.explain if e.figure == "memory_gb.per_gpu"]
    assert "routed experts / ep=8" in why.formula


def test_zero3_already_splits_everything_over_dp() -> None:
    """The sharded weights are 2 B × params / 16; on top ZeRO-3 holds two whole units
    gathered (the running one and the prefetched one). Mixtral's largest unit is a layer:
    its non-expert part is (params − 2 × 32,000 × 4,096 embeddings − experts) / 32 layers =
    41,984,128 (attention 41,943,040 + router 32,768 + norms 8,192, + the final norm's
    share), and its 8 experts of 176,160,768 are split over ep 8: one expert a GPU."""
    r = estimate(_mixtral(zero_stage=3))
    params = r.model["params_b"] * 1e9
    layer = (params - 2 * 32_000 * 4096 - EXPERTS) / 32
    assert layer == 41_984_128
    unit = layer + 8 * 3 * 4096 * 14336 / 8
    assert r.memory_per_gpu_gb.weights == pytest.approx(
        (2 * params / 16 + 2 * unit * 2) / 1e9, rel=1e-9
    )
    # and one unit's unsharded bf16 gradients until their reduce-scatter
    assert r.memory_per_gpu_gb.gradients == pytest.approx(
        (2 * params / 16 + unit * 2) / 1e9, rel=1e-9
    )


def test_lora_splits_the_frozen_experts_but_not_the_adapters_states() -> None:
    """The weights term (frozen base and adapters) keeps its dense share whole and splits
    the experts' share (E / P of it) eight ways; the adapters' gradients and optimizer are
    not split (ZeRO 0)."""
    lora = estimate(_mixtral(task="lora", zero_stage=0))
    one = estimate(_mixtral(task="lora", zero_stage=0, gpu_count=1))
    params = lora.model["params_b"] * 1e9
    assert (lora.parallelism.ep, one.parallelism.ep) == (8, 1)  # one GPU: nothing to split
    whole = one.memory_per_gpu_gb
    assert lora.memory_per_gpu_gb.weights == pytest.approx(
        whole.weights * (params - EXPERTS + EXPERTS / 8) / params, rel=1e-9
    )
    assert lora.memory_per_gpu_gb.gradients == pytest.approx(whole.gradients, rel=1e-9)
    assert lora.memory_per_gpu_gb.optimizer == pytest.approx(whole.optimizer, rel=1e-9)


def test_dense_models_and_serving_report_no_expert_parallelism() -> None:
    dense = estimate(EstimateRequest(model={"preset": "llama-3.1-8b"}, task="full_finetune",
                                     tokens=1e9, gpu="h100-sxm-80gb", gpu_count=16))  # fmt: skip
    assert dense.parallelism.ep == 1
    serve = estimate(EstimateRequest(model={"preset": "mixtral-8x7b"}, task="inference",
                                     concurrency=64))  # fmt: skip
    assert serve.parallelism.ep == 1
