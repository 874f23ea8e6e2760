"""Training compute, utilisation (MFU) and time to finish.

FLOPs (per token, N = parameters used per token — active parameters for MoE):
- forward 2N + 2·L·s·d_attn (Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
  Table 1); training = forward + backward (2×) = 6N + 6·L·s·d_attn;
- full activation recomputation adds one forward: 8N + 8·L·s·d_attn (Narayanan et al. 2021,
  "Efficient Large-Scale Language Model Training on GPU Clusters", eq. 3: the 4× factor);
- LoRA/QLoRA skip the frozen weights' gradient GEMMs: forward 2N + activation gradients 2N = 4N
  (+2N with recomputation), the adapters' own FLOPs being negligible.

MFU is never a bare constant: it is the GPU generation's achievable matmul share times
factors for model size, interconnect, scale and goodput — each reported with its source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation
from app.engine.hardware import GpuSpec
from app.engine.units import fmt

SECONDS_PER_DAY = 86_400.0

# Achievable share of dense peak for a well-tuned large dense model inside one node, by GPU
# generation: the measured maximum achievable matmul share (MAMF) times a software efficiency of
# 0.7 for everything that is not a large GEMM (attention, norms, optimizer step, data loading).
# MAMF (stas00/ml-engineering, accelerator table): A100 ≈ 0.86, H100 BF16 794.5/989 = 0.80,
# MI300X ≈ 0.55. So A100 0.60 and H100 0.56; with the factors below at 2,048–16,384 GPUs this
# gives ≈0.46 (A100) and ≈0.40 (H100), the figures Llama 1/2 (A100) and Llama 3 (H100, 38–43%
# MFU, Dubey et al. 2024 Table 4) report. Hopper FP8 reaches a smaller share of its doubled
# peak: MAMF 1,403 of 1,979 TFLOPS (71%) vs 80% for BF16, so ×0.71/0.80.
BASE_MFU: dict[str, float] = {
    "volta": 0.50,
    "ampere": 0.60,
    "hopper": 0.56,
    "blackwell": 0.50,
    "ada": 0.45,
    "cdna3": 0.40,
    "gaudi3": 0.40,
}
FP8_SHARE = 0.71 / 0.80
SOFTWARE_EFFICIENCY = 0.70
BASE_SOURCE = (
    "MAMF shares (stas00/ml-engineering: A100 0.86, H100 0.80, H100 FP8 0.71) × software "
    "efficiency 0.7; cross-checked with Llama 2 (A100, Touvron et al. 2023 Table 2) and Llama 3 "
    "(H100 38–43% MFU, Dubey et al. 2024 Table 4)"
)

# Inside one node: gradient all-reduce over NVLink overlaps with compute almost fully; seed
# rule T4 ("4 GPUs take ≈30% of the single-GPU time") implies 1/(4 × 0.30) = 0.83; NCCL ring
# all-reduce reaches ≈82% of NVLink bandwidth (stas00/ml-engineering network table). 0.90.
NVLINK_EFFICIENCY = 0.90
# Seed rule T5: 13B+ full fine-tuning without NVLink is ≈30% slower -> 1/1.3.
PCIE_PENALTY = 1 / 1.3
# Smaller or LoRA jobs sync little over PCIe: −10% against NVLink.
PCIE_SMALL_JOB_PENALTY = 0.9
# Across nodes: InfiniBand with one 400G rail per GPU keeps ≈95% (NCCL ring over EFA/IB
# measured 365 GB/s of 400 per node, mostly overlapped with backward); RoCE gives 85–95% of
# InfiniBand (seed U6, 0.9); plain TCP Ethernet without RDMA loses about half.
FABRIC_EFFICIENCY: dict[str, float] = {"infiniband": 0.95, "roce": 0.95 * 0.90, "ethernet": 0.50}
# MoE: expert-parallel all-to-all costs about as much as the expert compute across nodes
# (DeepSeek-V3 report §3.2.1: "computation-to-communication ratio of approximately 1:1"), only
# partly hidden by overlap.
MOE_EFFICIENCY = 0.75
# NF4 weights are dequantised to bf16 before every GEMM; QLoRA steps run ≈30% slower than
# 16-bit LoRA (Dettmers et al. 2023, §4).
NF4_DEQUANT_EFFICIENCY = 0.7


@dataclass(frozen=True, slots=True)
class Mfu:
    value: float
    explain: Explanation


def _flops_terms(
    model: ModelSpec, *, seq_len: int, task: str, recompute: str
) -> tuple[float, float, float]:
    """(passes, 2N, attention FLOPs per token) of one training token.

    A pass is 2N + 2·L·s·d_attn FLOPs per token: forward 1, backward 2 (LoRA skips the
    weight gradients: 1), and one more forward under full recomputation.
    """
    n = model.active_params
    attn = 2.0 * model.layers * seq_len * model.heads * model.head_dim
    if task in ("lora", "qlora"):
        mult = 3.0 if recompute == "full" else 2.0  # ×2N each: fwd, act-grad, (+recompute fwd)
    else:
        mult = 4.0 if recompute == "full" else 3.0
    return mult, 2.0 * n, attn


def training_flops_value(
    model: ModelSpec, *, tokens: float, seq_len: int, task: str, recompute: str
) -> float:
    """Total training FLOPs for `tokens` tokens (the figure of `training_flops`, unexplained)."""
    mult, two_n, attn = _flops_terms(model, seq_len=seq_len, task=task, recompute=recompute)
    return mult * (two_n + attn) * tokens


def training_flops(
    model: ModelSpec, *, tokens: float, seq_len: int, task: str, recompute: str
) -> tuple[float, Explanation]:
    """Total training FLOPs for `tokens` tokens."""
    mult, two_n, attn = _flops_terms(model, seq_len=seq_len, task=task, recompute=recompute)
    flops = mult * (two_n + attn) * tokens
    label = f"{int(2 * mult)}N + {int(mult)}·2·L·s·d_attn"
    src = (
        "Kaplan et al. 2020 Table 1 (C_forward = 2N + 2·L·n_ctx·d_attn); training ×3, "
        "full recomputation ×4 (Narayanan et al. 2021 eq. 3); LoRA skips weight gradients"
    )
    if model.is_moe:
        src += "; MoE counts active parameters only"
    formula = (
        f"({label}) × D = ({fmt(mult * two_n)} + {fmt(mult * attn)}) × {fmt(tokens)} tokens "
        f"= {fmt(flops)} FLOP"
    )
    return flops, Explanation("training.flops", flops, "FLOP", formula, src)


def size_factor(params: float) -> float:
    """Small models keep GEMMs too small to fill the GPU: 1.0 from 30B, 0.8 at 1B.

    Linear in log10(N) between 1B (0.8) and 30B (1.0), floored at 0.6. Llama 1 and 2 trained
    7B at ≈0.9× the MFU of 65B/70B on the same A100 cluster (Touvron et al. 2023, GPU-hours
    tables); below 1B the hidden size (≤2,048) leaves tensor cores underfed.
    """
    b = params / 1e9
    if b >= 30:
        return 1.0
    f = 0.8 + 0.2 * math.log10(max(b, 1e-3)) / math.log10(30)
    return max(0.6, min(1.0, f))


def scale_factor(gpus: int) -> float:
    """Collectives and stragglers grow with scale: −2% per doubling beyond 64 GPUs.

    Llama 3 (Dubey et al. 2024, Table 4): 43% MFU at 8,192 GPUs vs 38–41% at 16,384 — about
    −5% per doubling at that scale; −2% per doubling from 64 GPUs reproduces the drop from
    single-node (≈50%) to 16k-GPU (≈38%) figures.
    """
    if gpus <= 64:
        return 1.0
    return max(0.6, 1.0 - 0.02 * math.log2(gpus / 64))


def goodput(gpus: int, days: float) -> float:
    """Share of wall-clock time that trains: failures cost restarts and lost steps.

    Llama 3 §3.3.4: 419 unexpected interruptions in 54 days on 16,384 H100s (4.7e-4 per
    GPU-day) and >90% effective training time. We charge 0.5 h of the whole job per
    interruption (checkpoint reload plus lost work with frequent checkpoints).
    """
    rate = 419 / (54 * 16_384)
    lost_h_per_day = rate * gpus * 0.5
    return 1.0 / (1.0 + lost_h_per_day / 24.0) if days > 0 else 1.0


def mfu_factors(
    *,
    gpu: GpuSpec,
    model: ModelSpec,
    precision: str,
    task: str,
    gpus: int,
    nodes: int,
    interconnect: str,
) -> list[tuple[str, float]]:
    """The named factors whose product is the default MFU (cheap: no strings formatted)."""
    base = BASE_MFU.get(gpu.generation, 0.40)
    f: list[tuple[str, float]] = [(f"base {gpu.generation}", base)]
    if precision == "fp8" and gpu.fp8_tflops:
        f.append(("FP8 share", FP8_SHARE))
    f.append(("size", size_factor(model.active_params)))
    if model.is_moe and gpus > 1:
        f.append(("MoE all-to-all", MOE_EFFICIENCY))
    if task == "qlora":
        f.append(("NF4 dequant", NF4_DEQUANT_EFFICIENCY))
    if gpus > 1:
        if interconnect == "pcie" and nodes == 1:
            # T5 compares like with like: the same box with and without NVLink.
            big = model.params >= 13e9 and task in ("pretrain", "full_finetune")
            pcie = PCIE_PENALTY if big else PCIE_SMALL_JOB_PENALTY
            f.append(("PCIe, no NVLink", NVLINK_EFFICIENCY * pcie))
        else:
            f.append(("intra-node NVLink", NVLINK_EFFICIENCY))
        if nodes > 1:
            fabric = interconnect if interconnect in FABRIC_EFFICIENCY else "infiniband"
            f.append((fabric, FABRIC_EFFICIENCY[fabric]))
        sc = scale_factor(gpus)
        if sc < 1:
            f.append(("scale", sc))
    return f


def mfu_per_gpu(gpu: GpuSpec, model: ModelSpec, precision: str) -> float:
    """The factors that do not depend on the GPU count: generation × FP8 share × size."""
    v = BASE_MFU.get(gpu.generation, 0.40)
    if precision == "fp8" and gpu.fp8_tflops:
        v *= FP8_SHARE
    return v * size_factor(model.active_params)


def mfu_at_scale(
    per_gpu: float, model: ModelSpec, task: str, gpus: int, nodes: int, interconnect: str
) -> float:
    """`mfu_per_gpu` times the factors of the task and of `gpus` GPUs on `nodes` nodes.

    With `mfu_per_gpu` this is `math.prod` of `mfu_factors`, multiplied in the same order (so
    bit for bit the same; a property test holds them together) without building the named list:
    the planner calls it for every count it walks.
    """
    v = per_gpu
    if model.experts > 1 and gpus > 1:
        v *= MOE_EFFICIENCY
    if task == "qlora":
        v *= NF4_DEQUANT_EFFICIENCY
    if gpus > 1:
        if interconnect == "pcie" and nodes == 1:
            big = model.params >= 13e9 and task in ("pretrain", "full_finetune")
            v *= NVLINK_EFFICIENCY * (PCIE_PENALTY if big else PCIE_SMALL_JOB_PENALTY)
        else:
            v *= NVLINK_EFFICIENCY
        if nodes > 1:
            v *= FABRIC_EFFICIENCY.get(interconnect, FABRIC_EFFICIENCY["infiniband"])
        if gpus > 64:
            sc = scale_factor(gpus)
            if sc < 1:
                v *= sc
    return v


def default_mfu(
    *,
    gpu: GpuSpec,
    model: ModelSpec,
    precision: str,
    task: str,
    gpus: int,
    nodes: int,
    interconnect: str,
) -> Mfu:
    """MFU default by principle: generation × size × interconnect × scale (goodput separate)."""
    factors = mfu_factors(
        gpu=gpu,
        model=model,
        precision=precision,
        task=task,
        gpus=gpus,
        nodes=nodes,
        interconnect=interconnect,
    )
    value = math.prod(v for _, v in factors)
    formula = " × ".join(f"{name} {v:.2f}" for name, v in factors) + f" = {value:.3f}"
    src = (
        BASE_SOURCE
        + "; T4 (4 GPUs ≈30% of one-GPU time), T5 (no NVLink ≈30% slower), U6 (RoCE 85–95% "
        "of InfiniBand)"
    )
    return Mfu(value, Explanation("training.mfu", value, "", formula, src))


def training_days(
    *, flops: float, gpu: GpuSpec, gpus: int, mfu: float, precision: str, apply_goodput: bool = True
) -> tuple[float, float, Explanation]:
    """(days, gpu_hours, explanation): time = FLOPs / (GPUs × dense peak × MFU) / goodput."""
    peak = gpu.peak_tflops(precision) * 1e12
    seconds = flops / (gpus * peak * mfu)
    days = seconds / SECONDS_PER_DAY
    g = goodput(gpus, days) if apply_goodput else 1.0
    days /= g
    gpu_hours = days * 24 * gpus
    formula = (
        f"{fmt(flops)} FLOP / ({gpus} × {fmt(peak / 1e12)} TFLOPS × {mfu:.3f}) / goodput "
        f"{g:.3f} = {fmt(days)} days"
    )
    src = (
        f"{gpu.name} dense {precision} peak (datasheet, no sparsity — PRODUCT.md §4); goodput "
        "from Llama 3 §3.3.4 interruption rate"
    )
    return days, gpu_hours, Explanation("training.days", days, "days", formula, src)
