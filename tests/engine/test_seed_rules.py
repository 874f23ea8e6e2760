"""Seed rules that concern sizing (PRODUCT.md §3). Each case names its rule and tolerance."""

from __future__ import annotations

import pytest

from app.engine import compute
from app.engine.architectures import get_preset
from app.engine.gpus import find_gpu
from app.engine.units import GB
from tests.engine.helpers import est, rel

GIB = 2**30


# --------------------------------------------------------------------------- T1 tiers
@pytest.mark.parametrize(
    ("preset", "task", "extra", "tier"),
    [
        # T1 single GPU: 7B–13B fine-tune (LoRA), inference, image generation
        ("llama-2-7b", "lora", {}, "single_gpu"),
        ("llama-2-13b", "lora", {"seq_len": 2048}, "single_gpu"),
        ("llama-2-7b", "inference", {"concurrency": 32}, "single_gpu"),
        ("sdxl", "image", {}, "single_gpu"),
        ("flux-1-dev", "image", {"deadline_days": None}, "single_gpu"),
        # T1 multi-GPU NVLink: 13B full-parameter, 70B LoRA
        ("llama-2-13b", "full_finetune", {"seq_len": 2048}, "multi_gpu"),
        ("llama-2-70b", "lora", {"seq_len": 2048}, "multi_gpu"),
        # T1 multi-node InfiniBand: 70B full-parameter, pre-training
        ("llama-2-70b", "full_finetune", {"seq_len": 2048}, "multi_node"),
        ("llama-2-7b", "pretrain", {"tokens": 1e12, "deadline_days": 30}, "multi_node"),
    ],
)
def test_t1_tier(preset: str, task: str, extra: dict, tier: str) -> None:
    assert est(preset, task=task, **extra).tier == tier


def test_t1_multi_gpu_counts_are_two_to_eight() -> None:
    # T1: multi-GPU is H100 ×2–8 on NVLink; 13B full fine-tune needs ≥4 (T2).
    r = est("llama-2-13b", task="full_finetune", seq_len=2048)
    assert 2 <= r.gpu.count <= 8 and r.gpu.nodes == 1


# ---------------------------------------------------------------------------- T2 VRAM
def test_t2_7b_lora_about_20_gb_on_one_h100() -> None:
    # T2: "7B LoRA ≈20 GB, one H100 is ample". Gradient checkpointing (full recomputation)
    # at 2,048 tokens, as PEFT recipes run it. Tolerance ±25% (the seed says "約").
    r = est("llama-2-7b", task="lora", seq_len=2048, recompute="full")
    assert r.gpu.count == 1
    assert rel(r.memory_gb.total, 20) <= 0.25
    assert r.memory_per_gpu_gb.total < 80 * 0.5  # "ample": under half the card


def test_a_7b_lora_over_t2s_20_gb_says_why() -> None:
    # At 4,096 tokens with selective recomputation a 7B LoRA needs ≈38 GB, 20 of it
    # activations (the self-assessment said "about 38 GB" and nothing of T2, QA). The answer
    # says under what T2's 20 GB holds; at T2's own conditions it says nothing.
    r = est("mistral-7b", task="lora", tokens=1e8, seq_len=4096)
    assert r.memory_per_gpu_gb.total > 20 * 1.25
    (said,) = [w for w in r.warnings if "T2" in w]
    assert said.startswith("Seed 003 T2's '7B LoRA ≈20 GB' holds with full activation")
    assert "at 4,096 tokens with selective activation recomputation" in said
    assert f"needs {r.memory_per_gpu_gb.total:.1f} GB a GPU" in said
    quiet = est("mistral-7b", task="lora", tokens=1e8, seq_len=2048, recompute="full")
    assert not [w for w in quiet.warnings if "T2" in w]
    # A 70B LoRA is not what T2's 7B figure speaks of.
    assert not [w for w in est("llama-3.1-70b", task="lora", tokens=1e8).warnings if "T2" in w]


def test_t2_13b_full_finetune_about_260_gb_needs_four_gpus() -> None:
    # T2: 13B full fine-tune ≈260 GB (≥4 GPUs). Model states alone are 16 B/param × 13.0B =
    # 208 GB (ZeRO §3.1); with activations and overhead ≈235–260. Tolerance ±15%.
    # The planner sizes exactly (issue 11): 208 GB of states / 80 GB ⇒ at least 3 GPUs, and
    # ZeRO-3 over 3 H100 fits (≈76 GB each); the seed's "≥4" rounds to a 4-GPU box.
    r = est("llama-2-13b", task="full_finetune", seq_len=2048)
    assert rel(r.memory_gb.total, 260) <= 0.15
    assert r.gpu.count in (3, 4)
    assert (
        est("llama-2-13b", task="full_finetune", seq_len=2048, gpu_count=2).memory_per_gpu_gb.total
        > 80
    )


def test_t2_70b_full_is_terabyte_class_and_overflows_eight_gpus() -> None:
    # T2: 70B full-parameter is TB-class and needs sharding even on 8 GPUs: 16 B × 69.0B
    # = 1.10 TB of states > 8 × 80 GB = 640 GB, so no layout of 8 GPUs fits.
    r = est("llama-2-70b", task="full_finetune", seq_len=2048, gpu_count=8)
    assert r.memory_gb.total >= 1000
    assert any("does not fit" in w for w in r.warnings)
    assert r.memory_per_gpu_gb.total > 80


# ----------------------------------------------------------------------- T3 inference
def test_t3_one_h100_serves_about_200_chats_of_quantised_7b() -> None:
    # T3: one H100 + vLLM serving a quantised 7B holds ≈200 concurrent chats. A chat turn
    # keeps ≈512 tokens of context in flight (assumption stated here, not in the seed).
    # KV per token 2×32×32×128×2 B = 512 KiB; free ≈ 72 − 3.6 − 1.8 GB → ≈248 sequences.
    r = est(
        "llama-2-7b", task="inference", precision="int4", concurrency=200, avg_context_tokens=512
    )
    assert r.gpu.count == 1 and r.tier == "single_gpu"
    assert 140 <= r.inference.max_concurrency <= 260  # ≈200 ± 30%


def test_t3_at_a_stated_target_200_chats_at_20_tokens_per_s_and_1_s_ttft() -> None:
    # T3 stated as a target (issue 12): 200 users, ≥ 20 tokens/s each, first token ≤ 1 s.
    # Hand calculation: free = 80 × 0.9 − 3.58 (6.74e9 × 0.53125 B int4) − 0.81 activations
    # − 1.0 runtime = 66.6 GB; 512 KiB × 512 tokens = 268 MB per chat → 248 chats. Decode at
    # 200: (3.58 + 200 × 384 × 512 KiB = 40.3 GB) / (3,350 GB/s × 0.9) ≈ 13.4 ms +
    # compute of 200 × (1 + 1) tokens × 2 × 6.74e9 FLOPs ≈ 10 ms at 50% of 989 TFLOPS + 1 ms
    # step → ≈25 ms per token: ≈40 tokens/s per user.
    r = est(
        "llama-2-7b",
        task="inference",
        precision="int4",
        users=200,
        avg_context_tokens=512,
        slo={"ttft_s": 1.0, "tokens_per_s_per_user": 20},
    )
    inf = r.inference
    assert r.gpu.count == 1 and r.gpu.fraction is None and inf.replicas == 1
    assert inf.meets_slo is True
    assert 200 <= inf.concurrency_per_replica <= 260  # 248 by the hand calculation
    assert 30 <= inf.tokens_per_s_per_user <= 50  # ≈40 tokens/s at 200 users
    assert inf.time_to_first_token_s <= 1.0
    assert inf.tokens_per_s == pytest.approx(200 * inf.tokens_per_s_per_user)


def test_t8_ten_users_of_a_7b_fit_a_mig_quarter() -> None:
    # T8: 10 users of a quantised 7B on the NT$15,000 MIG 1/4 slice: 20 GB × 0.9 − 3.9 GB
    # int4 weights leaves ≈13 GB, room for 10 Mistral-7B chats (128 KiB/token × 2,048).
    r = est("mistral-7b", task="inference", precision="int4", users=10)
    assert r.gpu.count == 1 and r.gpu.fraction == 0.25
    assert r.inference.meets_slo is True and r.inference.concurrency_per_replica >= 10


# ------------------------------------------------------------------------ T4 scaling
def test_t4_four_gpus_take_about_30_percent_of_one_gpu_time() -> None:
    # T4: 4 GPUs take ≈30% of the single-GPU time; never below 25% (linear, PRODUCT.md §4).
    one = est("llama-2-7b", task="lora", tokens=1e9, gpu_count=1)
    four = est("llama-2-7b", task="lora", tokens=1e9, gpu_count=4)
    ratio = four.training.days / one.training.days
    assert 0.25 <= ratio <= 0.35


# -------------------------------------------------------------------- T5 interconnect
def test_t5_pcie_makes_13b_full_finetune_about_30_percent_slower() -> None:
    # T5: PCIe 5.0 128 GB/s vs NVLink 900 GB/s; 13B+ full fine-tuning without NVLink ≈30%
    # slower. Same 4 GPUs, pinned interconnect.
    nv = est(
        "llama-2-13b",
        task="full_finetune",
        seq_len=2048,
        tokens=1e9,
        gpu_count=4,
        interconnect="nvlink",
    )
    pc = est(
        "llama-2-13b",
        task="full_finetune",
        seq_len=2048,
        tokens=1e9,
        gpu_count=4,
        interconnect="pcie",
    )
    assert rel(pc.training.days / nv.training.days, 1.3) <= 0.05
    assert any("No NVLink" in w for w in pc.warnings)
    h100 = find_gpu("h100-sxm-80gb")
    assert h100.nvlink_gbs / h100.pcie_gbs == pytest.approx(900 / 128)  # ≈7×


# ------------------------------------------------------------------------ T6 node specs
def test_t6_single_gpu_node() -> None:
    # T6: CPU ≥16 cores, RAM ≥2× VRAM (192 GB for 80 GB), NVMe ≥2 TB, ≥100 Mbps uplink.
    f = est("llama-2-7b", task="lora").infra
    assert f.cpu_cores == 16 and f.ram_gb == 192 and f.nvme_tb >= 2
    assert f.network.uplink_gbps >= 0.1


def test_t6_four_gpu_node() -> None:
    # T6: 4-GPU — 48+ cores, NVMe ≥8 TB; RAM by the 2× rule is 2 × 320 = 640 → 768 GB DIMMs
    # (the seed's 512 GB template is only 1.6×, PRODUCT.md §4, and the plan says so).
    r = est("llama-2-13b", task="full_finetune", seq_len=2048, gpu_count=4)
    f = r.infra
    assert r.gpu.count == 4
    assert f.cpu_cores >= 48 and f.nvme_tb >= 8 and f.ram_gb == 768
    assert any("1.6×" in w for w in r.warnings)


def test_t6_sixteen_gpu_cluster() -> None:
    # T6: 16 GPUs — dual 64-core per node, NVMe 16 TB per node, InfiniBand 400 Gbps × 8 rails.
    r = est("llama-2-70b", task="full_finetune", seq_len=2048, gpu_count=16)
    f = r.infra
    assert f.nodes == 2 and f.cpu_cores_per_node == 128 and f.nvme_tb_per_node >= 16
    assert f.network.rails == 8 and "InfiniBand" in (f.network.scale_out or "")
    assert f.ram_gb_per_node >= 1024  # seed: 1 TB per node; 2× rule gives 1,536


# --------------------------------------------------------------------------- T7 power
def test_t7_four_gpu_about_3_kw_and_eight_gpu_over_10_kw() -> None:
    # T7: a 4-GPU box draws ≈3 kW (typical, ±25%); an 8-GPU box needs >10 kW provisioned
    # (DGX H100 datasheet: 10.2 kW max).
    four = est("llama-2-13b", task="full_finetune", seq_len=2048, gpu_count=4).infra
    eight = est("llama-2-13b", task="full_finetune", seq_len=2048, gpu_count=8).infra
    assert rel(four.power_typical_kw, 3.0) <= 0.25
    assert eight.power_kw > 10.0


# ------------------------------------------------------------------------- T11 storage
def test_t11_hot_tier_is_three_times_dataset_and_checkpoints() -> None:
    # T11: capacity ≥3× (dataset + checkpoints); tiers hot/warm/cold.
    r = est("llama-2-13b", task="full_finetune", seq_len=2048, dataset_gb=2000)
    f = r.infra
    assert f.nvme_tb * 1000 >= 3 * (2000 + 2 * f.checkpoint_gb)
    assert [t["tier"] for t in f.storage_tiers] == ["hot", "warm", "cold"]
    assert f.nas_tb >= 20  # warm tier from 20 TB


def test_t11_70b_weights_only_checkpoint_is_about_140_gb() -> None:
    # T11: "a 70B checkpoint ≈140 GB" — true for weights only: 70.6B × 2 B = 141 GB.
    f = est("llama-3.1-70b", task="inference", precision="bf16", concurrency=8).infra
    assert f.checkpoint_kind == "weights-only"
    assert rel(f.checkpoint_gb, 140) <= 0.03


# ------------------------------------------------------------------------- T12 network
def test_t12_140_gb_takes_over_3_h_at_100_mbps_and_20_min_at_1_gbps() -> None:
    # T12: 140 GB over 100 Mbps > 3 h; over 1 Gbps ≈ 20 min. 140e9 × 8 / 1e8 = 11,200 s.
    assert 140e9 * 8 / 100e6 / 3600 > 3
    # The planner picks 1 Gbps for a 70B model download and reports the transfer time.
    net = est("llama-3.1-70b", task="inference", concurrency=8).infra.network
    assert net.uplink_gbps == 1.0
    assert rel(net.transfer_hours * 60, 20) <= 0.1


def test_t11_t12_tokens_without_a_dataset_size_still_bring_their_data() -> None:
    # A pre-training run given as tokens (no dataset_gb) stores and uploads the text those
    # tokens come from, at the 4 B/token the engine uses to turn a dataset into tokens.
    # Llama 3.1 405B, 15.6T tokens: 15.6e12 × 4 / 1e9 = 62,400 GB of data.
    # T12 uplink: (812 GB weights + 62,400 GB) × 8 / 3,600 s / 2 h = 70.2 Gbps → 100 Gbps
    # (it sized 1 Gbps from the weights alone, for 2,048 nodes).
    # T11 warm tier: 2 × 62.4 TB + a week of 3-hourly weights-only checkpoints
    # (0.812 TB × 8 a day × 7 = 45.5 TB) = 170.3 TB → 180 TB in 10 TB steps.
    r = est(
        "llama-3.1-405b",
        task="pretrain",
        tokens=15.6e12,
        seq_len=8192,
        gpu="h100-sxm-80gb",
        gpu_count=16384,
    )
    data = next(e for e in r.explain if e.figure == "infra.dataset_gb")
    assert data.value == pytest.approx(62_400)
    assert data.recomputed() == pytest.approx(data.value)
    assert r.infra.network.uplink_gbps == 100.0
    assert rel(r.infra.network.transfer_hours, (812 + 62_400) * 8 / 100 / 3600) <= 0.01
    assert r.infra.nas_tb == 180
    # A dataset size the user gives is the data, whatever the tokens.
    given = est(
        "llama-3.1-405b",
        task="pretrain",
        tokens=15.6e12,
        dataset_gb=1000,
        seq_len=8192,
        gpu="h100-sxm-80gb",
        gpu_count=16384,
    )
    assert not any(e.figure == "infra.dataset_gb" for e in given.explain)
    assert given.infra.network.uplink_gbps == 10.0  # 1,812 GB × 8 / 2 h = 2.0 Gbps → 10


def test_tokens_that_contradict_the_dataset_size_and_epochs_are_pointed_out() -> None:
    # 15.6e12 tokens over 5 GB at 4 B/token (1.25e9 tokens) is 12,480 passes, not the 2
    # epochs given: the time follows the tokens, the storage the 5 GB, and the plan says so.
    r = est("llama-3.1-8b", task="lora", tokens=15.6e12, dataset_gb=5, epochs=2)
    said = [str(w) for w in r.warnings if "times, where the epochs say" in str(w)]
    assert len(said) == 1 and "12,480 times" in said[0] and "say 2" in said[0]
    # 1e9 tokens over 1 GB (2.5e8 tokens) is 4 passes: within 2× of 3 epochs, nothing said.
    quiet = est("llama-3.1-8b", task="lora", tokens=1e9, dataset_gb=1, epochs=3)
    assert not any("times, where the epochs say" in str(w) for w in quiet.warnings)


# ------------------------------------------------------------------------ U1 compute
@pytest.mark.parametrize(
    ("gpus", "mfu", "years"),
    [(8_800, 0.20, 1), (3_520, 0.50, 1), (2_934, 0.20, 3)],  # U1 as stated in seed 000
)
def test_u1_gpt4_class_training(gpus: int, mfu: float, years: float) -> None:
    # U1: ≈1.73×10^25 FLOP on A100 (312 TFLOPS). Tolerance ±2% (the seed rounds counts).
    a100 = find_gpu("a100-sxm-80gb")
    days = compute.training_days(
        flops=1.73e25, gpu=a100, gpus=gpus, mfu=mfu, precision="bf16", goodput_share=1.0
    )
    assert rel(days, 365 * years) <= 0.02


@pytest.mark.parametrize(("mfu", "seed_gpus"), [(0.20, 8_800), (0.50, 3_520)])
def test_u1_planner_sizes_the_seed_count(mfu: float, seed_gpus: int) -> None:
    # U1 end to end: 1.73×10^25 model FLOPs on A100 within a year at a pinned MFU. The seed's
    # arithmetic ignores interruptions (goodput 1): 1.73e25 / (312e12 × 0.2 × 365 × 86,400)
    # = 8,791 GPUs → 8,792 (whole nodes of 8). Within 5% of the seed's rounded figures.
    model = get_preset("llama-2-70b")
    per_token = compute.training_flops_value(model, tokens=1, seq_len=4096, task="pretrain")
    req = {"tokens": 1.73e25 / per_token, "gpu": "a100-sxm-80gb", "mfu": mfu}
    r = est("llama-2-70b", task="pretrain", deadline_days=365, goodput=1.0, **req)
    assert r.training.mfu == mfu  # a pinned MFU is the MFU
    assert rel(r.gpu.count, seed_gpus) <= 0.05
    assert r.training.days <= 365
    # One node fewer misses the year: the count is the smallest that meets it.
    fewer = est("llama-2-70b", task="pretrain", gpu_count=r.gpu.count - 8, goodput=1.0, **req)
    assert fewer.training.days > 365
    # With the Llama 3 interruption model the same job needs 1/goodput more GPUs.
    real = est("llama-2-70b", task="pretrain", deadline_days=365, **req)
    assert real.gpu.count > r.gpu.count
    assert rel(real.gpu.count * real.training.goodput, r.gpu.count) <= 0.01


# ----------------------------------------------------------------------------- U2 VRAM
@pytest.mark.parametrize(
    ("preset", "low_gib", "high_gib"),
    [("llama-2-7b", 12, 13), ("llama-2-13b", 23, 25)],  # U2: 7B ≈12–13 GB(iB), 13B ≈24
)
def test_u2_fp16_inference_weights(preset: str, low_gib: float, high_gib: float) -> None:
    r = est(preset, task="inference", precision="fp16")
    assert low_gib <= r.memory_gb.weights * GB / GIB <= high_gib


def test_u2_65b_needs_over_130_gb_and_adam_triples() -> None:
    # U2: 65B > 130 GB in fp16 (65.2B LLaMA × 2 B = 130.4 GB); Adam roughly triples memory:
    # fp32 weights 4 B + m 4 B + v 4 B = 3 × 4 B; training in fp32 is 2–4× the model (16/4).
    r = est(task="inference", precision="fp16", model={"params_b": 65.2})
    assert r.memory_gb.weights > 130
    t = est("llama-2-7b", task="full_finetune", precision="fp32", gpu_count=8)
    m = t.memory_gb
    assert (m.weights + m.optimizer) / m.weights == pytest.approx(3.0)
    assert 2 <= (m.weights + m.gradients + m.optimizer) / m.weights <= 4


# ----------------------------------------------------------------------- U3 parallelism
def test_u3_small_models_are_pure_data_parallel() -> None:
    # U3: <7B → data-parallel on 2–8 GPUs.
    r = est("qwen2.5-3b", task="full_finetune", tokens=2e10, deadline_days=3)
    p = r.parallelism
    assert 2 <= r.gpu.count <= 8 and p.tp == 1 and p.pp == 1 and p.dp == r.gpu.count


def test_u3_70b_is_hybrid_and_405b_combines_all_three() -> None:
    # U3: 7B–70B hybrid; >70B pipeline + tensor + data parallel, ZeRO shards states.
    p70 = est("llama-2-70b", task="full_finetune", seq_len=2048).parallelism
    kinds = [p70.dp > 1, p70.tp > 1, p70.pp > 1, p70.zero_stage >= 2]
    assert sum(kinds) >= 2  # hybrid: at least two ways of splitting
    p405 = est(
        "llama-3.1-405b", task="pretrain", tokens=1e12, seq_len=8192, gpu_count=1024
    ).parallelism
    assert p405.tp > 1 and p405.dp > 1 and (p405.pp > 1 or p405.zero_stage == 3)


# -------------------------------------------------------------------------- U5 system
def test_u5_eight_by_80_gb_needs_over_1_28_tb_ram() -> None:
    f = est("llama-2-13b", task="full_finetune", seq_len=2048, gpu_count=8).infra
    assert f.ram_gb >= 1280 and f.cpu_cores >= 16


# ----------------------------------------------------------------------- U6 RoCE vs IB
def test_u6_roce_gives_85_to_95_percent_of_infiniband() -> None:
    kw = dict(task="pretrain", tokens=1e11, seq_len=2048, gpu_count=64)
    ib = est("llama-2-7b", interconnect="infiniband", **kw).training.days
    roce = est("llama-2-7b", interconnect="roce", **kw).training.days
    assert 0.85 <= ib / roce <= 0.95
    big = est("llama-2-7b", interconnect="roce", task="pretrain", tokens=1e12, gpu_count=2048)
    assert any("2,048+" in w for w in big.warnings)
