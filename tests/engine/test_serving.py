"""The serving model (issue 12): both phases, pins, targets, capacity, precisions."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import inference, serving_validation
from app.engine.architectures import get_preset
from app.engine.estimate import InputError, estimate
from app.engine.gpus import find_gpu
from app.engine.inference import ServingConfig
from app.engine.schemas import EstimateRequest
from app.engine.validation import summarise
from tests.engine.helpers import est


def cfg(preset: str = "llama-3.1-8b", gpu: str = "h100-sxm-80gb", **kw: object) -> ServingConfig:
    base: dict[str, object] = dict(
        model=get_preset(preset),
        gpu=find_gpu(gpu),
        precision="bf16",
        kv_dtype="bf16",
        tp=1,
        input_tokens=1000,
        output_tokens=1000,
    )
    base.update(kw)
    return ServingConfig(**base)  # type: ignore[arg-type]


def test_single_user_decode_is_weights_over_bandwidth_plus_overhead() -> None:
    # Llama 3.1 8B bf16 on one H100 at batch 1: 16.06 GB / (3,350 GB/s × 0.9) = 5.33 ms of
    # weights + 1,500 tokens × 128 KiB KV = 0.2 GB (0.07 ms) + 1 ms step overhead ≈ 6.4 ms.
    p = inference.operating_point(cfg(), 1)
    assert p.itl_s == pytest.approx(6.4e-3, rel=0.03)
    assert p.tokens_per_s_per_user == pytest.approx(1 / p.itl_s)


def test_prefill_heavy_load_is_slower_than_decode_heavy() -> None:
    # Same tokens per request: 20,000 in / 2,000 out spends most steps prefilling.
    heavy = inference.max_load(cfg(input_tokens=20_000, output_tokens=2_000))
    light = inference.max_load(cfg(input_tokens=128, output_tokens=2_000))
    assert heavy.tokens_per_s < light.tokens_per_s / 3


def test_ttft_includes_waiting_for_a_slot() -> None:
    c = cfg(input_tokens=5000, output_tokens=500)
    cap = inference.kv_capacity(c)
    inside = inference.operating_point(c, cap)
    beyond = inference.operating_point(c, 3 * cap)
    assert inside.queue_s == 0 and beyond.queue_s > 0
    # Little's law: 3× the slots wait (3 − 1) × the request time.
    request = inside.ttft_s + 500 * inside.itl_s
    assert beyond.queue_s == pytest.approx(2 * request, rel=1e-6)


@settings(max_examples=40, deadline=None)
@given(ctx=st.integers(64, 60_000), extra=st.integers(1, 60_000))
def test_max_load_throughput_never_rises_with_context(ctx: int, extra: int) -> None:
    a = inference.max_load(cfg(input_tokens=ctx, output_tokens=256))
    b = inference.max_load(cfg(input_tokens=ctx + extra, output_tokens=256))
    assert b.tokens_per_s <= a.tokens_per_s * (1 + 1e-9)


@pytest.mark.parametrize("ctx", [222, 672, 2048, 8192])
def test_pinned_moe_config_holds_its_pin_at_any_context(ctx: int) -> None:
    # Issue 12: an 8-GPU MoE pinned at TP 1 came back with 14 replicas at 672 tokens and 5 at
    # 222. Pinned: 8 GPUs at TP 1 are 8 replicas, whatever the context.
    r = est(
        "mixtral-8x7b",
        task="inference",
        precision="fp8",
        gpu_count=8,
        tp=1,
        concurrency=512,
        avg_context_tokens=ctx,
        output_tokens=128,
    )
    assert (r.gpu.count, r.parallelism.tp, r.inference.replicas) == (8, 1, 8)


def test_one_pinned_gpu_is_never_turned_into_more() -> None:
    r = est("llama-3.1-8b", task="inference", gpu_count=1, concurrency=2048)
    assert r.gpu.count == 1 and r.inference.replicas == 1 and r.parallelism.tp == 1
    msgs = [w for w in r.warnings if "pinned" in w]
    assert len(msgs) == 1
    held = r.inference.concurrency_per_replica
    assert f"hold {held} users" in msgs[0] and "2048 users need" in msgs[0]
    assert held < 2048


def test_405b_on_8_pinned_gpus_has_one_replica() -> None:
    r = est("llama-3.1-405b", task="inference", precision="fp8", gpu_count=8, concurrency=2000)
    assert (r.gpu.count, r.inference.replicas, r.parallelism.tp) == (8, 1, 8)
    assert r.inference.meets_slo is False


def test_slo_search_picks_fewest_gpus_and_reports_targets() -> None:
    r = est(
        "llama-3.1-70b",
        task="inference",
        precision="fp8",
        users=300,
        avg_context_tokens=2048,
        output_tokens=512,
        slo={"ttft_s": 2.0, "tokens_per_s_per_user": 25},
    )
    inf = r.inference
    assert inf.meets_slo is True
    assert inf.replicas * inf.concurrency_per_replica >= 300
    assert r.gpu.count == inf.replicas * r.parallelism.tp
    assert inf.tokens_per_s_per_user >= 25 and inf.time_to_first_token_s <= 2.0
    # one fewer replica would not hold the users
    assert (inf.replicas - 1) * inf.concurrency_per_replica < 300


def test_gpu_memory_utilization_sets_kv_room() -> None:
    lo = est("llama-3.1-8b", task="inference", gpu_count=1, gpu_memory_utilization=0.5)
    hi = est("llama-3.1-8b", task="inference", gpu_count=1, gpu_memory_utilization=0.9)
    # (40 − 16.06 − 1.6 − 1) vs (72 − 18.66) GB free for KV
    ratio = hi.inference.max_concurrency / lo.inference.max_concurrency
    assert ratio == pytest.approx((72 - 18.66) / (40 - 18.66), rel=0.02)


def test_fp8_kv_doubles_capacity_and_mla_caches_the_latent() -> None:
    a = inference.kv_capacity(cfg(kv_dtype="bf16"))
    b = inference.kv_capacity(cfg(kv_dtype="fp8"))
    assert b == pytest.approx(2 * a, abs=2)
    ds = get_preset("deepseek-v3")
    # (512 + 64) × 61 layers × 2 B = 70,272 B per token (DeepSeek-V2 §2.1)
    assert ds.kv_cache_bytes_per_token(2) == 70_272


def test_fp4_needs_fp4_tensor_cores() -> None:
    with pytest.raises(InputError) as e:
        estimate(
            EstimateRequest(model={"preset": "llama-3.1-70b"}, task="inference", precision="fp4")
        )
    assert e.value.field == "precision"
    r = est("llama-3.1-70b", task="inference", precision="fp4", gpu="b200-sxm-180gb")
    # 70.6e9 × 0.5625 B = 39.7 GB of NVFP4 weights
    assert r.memory_gb.weights == pytest.approx(70.55e9 * 0.5625 / 1e9, rel=0.01)


def test_fp4_is_rejected_for_training() -> None:
    with pytest.raises(InputError, match="fp4") as err:
        estimate(EstimateRequest(model={"preset": "llama-3.1-8b"}, task="lora", precision="fp4"))
    assert err.value.field == "precision"


def test_serving_figures_carry_their_band() -> None:
    r = est("llama-3.1-8b", task="inference")
    band = r.inference.uncertainty
    assert band is not None and band.runs == len(serving_validation.rows())
    assert 0 < band.median_pct < 0.2


# ------------------------------------------------------------------ validation table
def test_serving_validation_table() -> None:
    rows = serving_validation.rows()
    assert len(rows) >= 15
    everything = summarise(rows)
    holdout = summarise(r for r in rows if r.split == "holdout")
    assert everything is not None and holdout is not None
    # Issue 12: median |log error| ≤ 20%, no row off by more than 2×.
    assert everything.median_pct <= 0.20
    assert holdout.median_pct <= 0.20
    assert all(abs(r.log_error) < math.log(2) for r in rows), everything.worst_id
    cats = {r.category for r in rows}
    assert {"decode-heavy max load", "prefill-heavy", "single user latency"} <= cats


def test_validation_rows_have_sources_and_splits() -> None:
    for run in serving_validation.runs():
        assert run["source"] and run["quote"] and run["split"] in ("fit", "holdout")


# ------------------------------------------------------------------ 2025–26 presets
@pytest.mark.parametrize(
    ("preset", "total_b", "tol"),
    [
        ("llama-4-scout-17b-16e", 109.0, 0.02),  # Meta model card "109B (Total)", incl. vision
        ("llama-4-maverick-17b-128e", 400.0, 0.02),  # "400B (Total)"
        ("qwen3-32b", 32.8, 0.02),  # Qwen3 model card "32.8B"
        ("qwen3-30b-a3b", 30.5, 0.02),  # "30.5B in total and 3.3B activated"
        ("qwen3-235b-a22b", 235.0, 0.02),  # "235B in total and 22B activated"
        ("gpt-oss-20b", 20.91, 0.02),  # OpenAI gpt-oss model card, 20.91B
        ("gpt-oss-120b", 116.83, 0.02),  # 116.83B
        ("deepseek-r1", 671.0, 0.02),  # DeepSeek-V3/R1 "671B total, 37B activated"
        ("kimi-k2", 1040.0, 0.02),  # Kimi K2 tech report "1.04 trillion"
    ],
)
def test_new_presets_count_their_published_parameters(
    preset: str, total_b: float, tol: float
) -> None:
    m = get_preset(preset)
    assert m.params_b == pytest.approx(total_b, rel=tol)


def test_moe_decode_reads_only_the_experts_a_batch_touches() -> None:
    # Qwen3-30B-A3B: 128 experts, 8 per token. At batch 1 a step reads ≈ the active 3.35B;
    # at batch 256 nearly every expert: 1 − (1 − 8/128)^256 ≈ 1.
    m = get_preset("qwen3-30b-a3b")
    one = inference.active_weight_bytes(m, "bf16", 1)
    many = inference.active_weight_bytes(m, "bf16", 256)
    assert one == pytest.approx(m.active_params * 2, rel=0.01)
    assert many == pytest.approx(m.params * 2, rel=0.01)


def test_gb200_nvl72_tensor_parallel_spans_the_rack_domain() -> None:
    g = find_gpu("gb200-nvl72-186gb")
    assert g.scale_up_domain == 72 and g.supports_fp4
    # Kimi K2 in bf16: 1.026e12 × 2 B = 2.05 TB > 12 × 186 GB × 0.9, so TP 16 — beyond the
    # 4 GPUs of one tray, inside the 72-GPU NVLink domain.
    r = est("kimi-k2", task="inference", precision="bf16", gpu="gb200-nvl72-186gb", users=64)
    assert r.parallelism.tp == 16 and r.parallelism.tp > g.gpus_per_node


def test_the_output_tokens_explanation_is_the_whole_service_not_one_replica() -> None:
    """The 'Output tokens per second' figure is every replica's tokens (QA: the KPI said
    10,690 tokens/s while its explanation said '125 sequences / 93.55 ms = 1,336 tokens/s
    per replica'). Hand calculation: total = replicas × one replica's batch / step time."""
    r = est("llama-3.1-70b", task="inference", precision="fp8", users=1000,
            avg_context_tokens=2048, output_tokens=256)  # fmt: skip
    assert r.inference.replicas > 1
    by_name = {e.figure: e for e in r.explain}
    total, one = by_name["inference.tokens_per_s"], by_name["inference.tokens_per_s_per_replica"]
    assert total.value == pytest.approx(r.inference.tokens_per_s)
    assert total.value == pytest.approx(r.inference.replicas * one.value)
    assert f"{r.inference.replicas} replicas × " in total.formula


def test_a_service_on_several_servers_is_not_told_about_gradient_sync() -> None:
    """QA: Llama 3.1 8B at 131,072-token contexts for 8 users on L40S takes 16 GPUs on 2
    servers (Ethernet to the load balancer); it was warned "Multi-node training over plain
    Ethernet/PCIe: cross-node gradient sync needs RDMA". Replicas sync no gradients; a
    training job across the same servers still is."""
    serve = EstimateRequest(model={"preset": "llama-3.1-8b"}, task="inference", gpu="l40s-48gb",
                            avg_context_tokens=131072, concurrency=8)  # fmt: skip
    r = estimate(serve)
    assert r.gpu.nodes > 1
    assert not [w for w in r.warnings if "gradient sync" in w]
    train = EstimateRequest(model={"preset": "llama-3.1-8b"}, task="full_finetune",
                            gpu="l40s-48gb", gpu_count=16, tokens=1e9,
                            interconnect="ethernet")  # fmt: skip
    t = estimate(train)
    assert t.gpu.nodes > 1
    assert [w for w in t.warnings if "Multi-node training over plain Ethernet:" in w]


def test_the_first_token_time_shows_the_prefills_arithmetic() -> None:
    """QA: "prefill 1792 tokens 79.1 ms = 0.079 s" gave no FLOPs, peak or share to check it
    by. Llama 3.1 8B, 50 users on one H100: the prompt (2,048 − 256 = 1,792 tokens) costs
    1,792 × (2 × 8.03e9 + 4 × 32 layers × 32 heads × 128 × 1,792 / 2) = 2.96e13 FLOP; at
    989 TFLOPS × 50 % that is 2.96e13 / 4.945e14 = 59.9 ms, more than reading the 16 GB of
    weights. The printed terms add up to the printed time."""
    req = EstimateRequest(model={"preset": "llama-3.1-8b"}, task="inference", users=50,
                          slo={"ttft_s": 1, "tokens_per_s_per_user": 20})  # fmt: skip
    resp = estimate(req, search_all=False)
    x = next(e for e in resp.explain if e.figure == "inference.time_to_first_token_s")
    m = re.fullmatch(
        r"prefill 1792 tokens: max\((?P<flops>[\d.e+]+) FLOP / \(1 × 989 TFLOPS × 50%\) = "
        r"(?P<compute>[\d.]+) ms, weights read (?P<memory>[\d.]+) ms\) \+ step overhead "
        r"(?P<overhead>[\d.]+) ms = (?P<own>[\d.]+) ms \+ one step of the running batch "
        r"(?P<itl>[\d.]+) ms = (?P<ttft>[\d.]+) s",
        x.formula,
    )
    assert m is not None, x.formula
    flops = 1792 * (2 * 8.03e9 + 4 * 32 * 32 * 128 * 1792 / 2)
    assert float(m["flops"]) == pytest.approx(flops, rel=0.01)
    assert float(m["compute"]) == pytest.approx(flops / (989e12 * 0.5) * 1e3, abs=0.1)
    own = max(float(m["compute"]), float(m["memory"])) + float(m["overhead"])
    assert float(m["own"]) == pytest.approx(own, abs=0.1)
    assert float(m["ttft"]) == pytest.approx((own + float(m["itl"])) / 1e3, abs=0.001)
    assert float(m["ttft"]) == pytest.approx(x.value, abs=0.0005)
