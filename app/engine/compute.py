"""Training compute, utilisation (MFU) and time to finish.

FLOPs (per token, N = parameters used per token — active parameters for MoE):
- forward 2N + 2·L·s·d_attn (Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
  Table 1); training = forward + backward (2×) = 6N + 6·L·s·d_attn;
- full activation recomputation adds one forward: 8N + 8·L·s·d_attn (Narayanan et al. 2021,
  "Efficient Large-Scale Language Model Training on GPU Clusters", eq. 3: the 4× factor);
- LoRA/QLoRA skip the frozen weights' gradient GEMMs: forward 2N + activation gradients 2N = 4N
  (+2N with recomputation), the adapters' own FLOPs being negligible.

MFU is model FLOPs / (GPUs × dense peak × wall time excluding interruptions), never a bare
constant: a product of named factors (`mfu_factors`) for the GEMM share, the memory-bound
share (compute-to-bandwidth ratio over the hidden size), FP8, recomputation, TP, the pipeline
bubble, ZeRO-3, MoE, the links and scale, each with its source. Interruptions are the
goodput, kept apart: days = FLOPs / (GPUs × peak × MFU × goodput) / 86,400 s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation, Operand
from app.engine.hardware import GpuSpec
from app.engine.units import fmt

SECONDS_PER_DAY = 86_400.0

# MFU = model FLOPs / (GPUs × dense peak × wall time excluding interruptions), a product of
# named factors, each from a measurement or a formula; the same factors for every GPU, which
# enters through its peak, its memory bandwidth and its links, never a per-generation constant.
#
# Largest share of dense peak a large GEMM reaches: the GPU's measured maximum achievable matmul
# FLOPS over its dense peak (MAMF, stas00/ml-engineering accelerator table, `mamf_*_tflops` in
# app/data/gpus.yaml): A100 SXM 271.2/312 = 0.87, H100 SXM 794.5/989 = 0.80, MI300X
# 668.4/1,307 = 0.51. A GPU the table has not measured takes H100 SXM's shares, said so in
# its explanation.
DEFAULT_MATMUL_SHARE = 794.5 / 989.0
DEFAULT_FP8_MATMUL_SHARE = 1402.6 / 1979.0
# Everything a step does that is neither a GEMM nor a memory-bound elementwise kernel: optimizer
# step, kernel launches, data loading, host sync. Chosen on the `fit` half of the validation
# table (app/data/validation/training_runs.yaml) by scripts/fit_training_factors.py, never
# per run.
SOFTWARE_EFFICIENCY = 0.85
# Memory-bound share of a layer (roofline, Williams et al. 2009): per token a layer does
# ≈72·h² GEMM FLOPs (forward + backward of 12·h² parameters) and moves ≈β·h bytes through
# norms, residuals, activation functions and RoPE (Korthikanti et al. 2022 count 34·h bytes of
# saved activations; each is written, read back and its gradient written and read: β ≈ 4 × 34).
# Time ratio = (β·h / BW) / (72·h² / (peak · matmul share)) = κ · (peak / BW) / h, so a GPU with
# more FLOPs per byte of HBM (H100 295, A100-80GB 153) needs a wider model to stay busy.
# The fused-kernel count above gives κ = 4·34·0.8/72 ≈ 1.5; the fit half of the validation
# table (scripts/fit_training_factors.py, same grid as SOFTWARE_EFFICIENCY) chooses 8.0, i.e.
# about 5× that traffic — unfused norms, dropout, casts and the optimizer's own passes.
MEMORY_BOUND_KAPPA = 8.0
# Full activation recomputation adds one forward pass to the three of a step (Narayanan et al.
# 2021 eq. 3: 4× instead of 3× the forward FLOPs): useful work is 3/4 of the work done.
FULL_RECOMPUTE_SHARE = 3.0 / 4.0
LORA_FULL_RECOMPUTE_SHARE = 2.0 / 3.0  # LoRA: 2 passes (no weight gradients) + 1 recomputed
# Per doubling of TP: exposed all-reduces of activations (Narayanan et al. 2021 §3.2, Fig. 13).
TP_EFFICIENCY = 0.97
# That figure was measured on DGX A100: NVLink 600 GB/s a GPU (bidirectional), 312 TFLOPS
# BF16 dense. TP's all-reduces carry activations, b·s·h elements per all-reduce, while a layer
# computes ∝ b·s·h²/t: the exposed share per doubling, 1/TP_EFFICIENCY − 1, grows with the
# link's slowness and the GPU's speed. Over PCIe (a GPU without NVLink, or `interconnect:
# pcie` in one node) it is scaled by (600 / PCIe GB/s) × (BF16 TFLOPS / 312): an L40S (PCIe
# Gen4, 64 GB/s, 362 TFLOPS) keeps 0.75 per doubling, not 0.97 (`tp_step`).
TP_REFERENCE_LINK_GBS = 600.0
TP_REFERENCE_TFLOPS = 312.0
# ZeRO-3 moves 1.5× the data-parallel volume and re-gathers parameters for every micro-batch
# (ZeRO §7.2.2): nearly hidden inside an NVLink node, communication-bound across nodes.
ZERO3_EFFICIENCY = 0.93
ZERO3_CROSS_NODE_EFFICIENCY = 0.80
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
# MoE expert parallelism. All-to-all: across nodes it costs about as much as the expert compute
# (DeepSeek-V3 report §3.2.1: "computation-to-communication ratio of approximately 1:1"), half
# hidden by overlap -> 1/(1 + 0.5) ≈ 0.67; inside an NVLink node (9× the bandwidth of one
# 400G rail) the exposed part is a ninth of that -> 1/(1 + 0.5/9) ≈ 0.95. Imbalance: the
# busiest expert sets the step time; a capacity factor of 1.25 (Fedus et al. 2022, Switch
# Transformer §2.2) bounds it, and balanced routing sits about half-way -> 1/1.125.
MOE_ALL_TO_ALL_CROSS_NODE = 1.0 / 1.5
MOE_ALL_TO_ALL_NVLINK = 1.0 / (1.0 + 0.5 / 9)
MOE_IMBALANCE = 1.0 / 1.125
# QLoRA stores the frozen base in 4-bit NormalFloat and dequantises it to bf16 for every GEMM
# (Dettmers et al. 2023, §3: "we dequantize the storage data type to the computation data type
# to perform the forward and backward pass"). Roofline (Williams et al. 2009): per pass each
# base weight is read in NF4 (0.5 B), written and read back in bf16 (2 + 2 B) — 4.5 bytes at
# HBM bandwidth — while its GEMM does 2 FLOPs per token of the micro-batch at the GEMM rate.
# Time ratio = (4.5 / BW) / (2 · tokens / (peak · matmul share)): a cost per step that the
# micro-batch's tokens amortise (torchtune measures Llama 3.2 3B QLoRA at 8,035 tokens/s
# against LoRA's 8,210 on one A100 with 2 × 4,096-token micro-batches: −2%).
NF4_BYTES_PER_PARAM_PASS = 0.5 + 2.0 + 2.0
BASE_SOURCE = (
    "the GPU's measured MAMF over its dense peak (stas00/ml-engineering table, e.g. H100 SXM "
    "BF16 794.5 of 989 TFLOPS = 0.80, FP8 1,402.6 of 1,979 = 0.71); "
    "roofline memory-bound share κ·(peak/bandwidth)/h (Williams et al. 2009; Korthikanti et "
    "al. 2022 34·h activation bytes per token and layer); software efficiency chosen on the "
    "fit half of the validation table"
)


def _flops_terms(model: ModelSpec, *, seq_len: int, task: str) -> tuple[float, float, float]:
    """(passes, 2N, attention FLOPs per token) of one training token's model FLOPs.

    A pass is 2N + 2·L·s·d_attn FLOPs per token: forward 1, backward 2 (LoRA skips the
    weight gradients: 1). Recomputation is not model FLOPs: it lowers the MFU instead.
    """
    n = model.active_params
    attn = 2.0 * model.layers * seq_len * model.heads * model.head_dim
    mult = 2.0 if task in ("lora", "qlora") else 3.0
    return mult, 2.0 * n, attn


def training_flops_value(model: ModelSpec, *, tokens: float, seq_len: int, task: str) -> float:
    """Model FLOPs for `tokens` tokens (the figure of `training_flops`, unexplained)."""
    mult, two_n, attn = _flops_terms(model, seq_len=seq_len, task=task)
    return mult * (two_n + attn) * tokens


def training_flops(
    model: ModelSpec, *, tokens: float, seq_len: int, task: str
) -> tuple[float, Explanation]:
    """Model FLOPs of training on `tokens` tokens: passes × (2N + 2·L·s·d_attn) × D."""
    mult, two_n, attn = _flops_terms(model, seq_len=seq_len, task=task)
    flops = mult * (two_n + attn) * tokens
    label = f"{int(2 * mult)}N + {int(mult)}·2·L·s·d_attn"
    src = (
        "Kaplan et al. 2020 Table 1 (C_forward = 2N + 2·L·n_ctx·d_attn); training = forward + "
        "backward (×3); LoRA skips weight gradients (×2); recomputation is not model FLOPs "
        "(it enters the MFU)"
    )
    if model.is_moe:
        src += "; MoE counts active parameters only"
    formula = (
        f"({label}) × D = ({fmt(mult * two_n)} + {fmt(mult * attn)}) × {fmt(tokens)} tokens "
        f"= {fmt(flops)} FLOP"
    )
    return flops, Explanation(
        "training.flops",
        flops,
        "FLOP",
        formula,
        src,
        operands=[
            Operand("passes", mult, ""),
            Operand("two_n", two_n, "FLOP/token"),
            Operand("attention", attn, "FLOP/token"),
            Operand("tokens", tokens, "tokens"),
        ],
        expression="passes * (two_n + attention) * tokens",
    )


def matmul_share(gpu: GpuSpec) -> float:
    """Measured BF16 MAMF / dense BF16 peak (H100 SXM's 0.80 when the GPU is not measured)."""
    if gpu.mamf_bf16_tflops:
        return gpu.mamf_bf16_tflops / gpu.bf16_tflops
    return DEFAULT_MATMUL_SHARE


def fp8_share(gpu: GpuSpec) -> float:
    """FP8 GEMM share of the FP8 peak over the BF16 share: the factor FP8 adds to the MFU.

    Measured FP8 MAMF / FP8 peak (H100 SXM's 0.71 when not measured), divided by
    `matmul_share`, so matmul_share × fp8_share is the FP8 GEMM share of the FP8 peak.
    """
    assert gpu.fp8_tflops
    if gpu.mamf_fp8_tflops:
        share = gpu.mamf_fp8_tflops / gpu.fp8_tflops
    else:
        share = DEFAULT_FP8_MATMUL_SHARE
    return share / matmul_share(gpu)


def memory_bound_factor(gpu: GpuSpec, model: ModelSpec, precision: str) -> float:
    """1 / (1 + κ · (peak / HBM bandwidth) / h): the GEMM share of a layer's time.

    peak in FLOP/s (FP8 when it computes in FP8), bandwidth in byte/s, h the hidden size.
    With κ = 8: H100 (295 FLOP/B) at h = 2,048: 0.46; A100-80GB (153 FLOP/B) at h = 8,192: 0.87.
    """
    ratio = gpu.peak_tflops(precision) * 1e12 / (gpu.bandwidth_gbs * 1e9)
    return 1.0 / (1.0 + MEMORY_BOUND_KAPPA * ratio / model.hidden)


def scale_factor(gpus: int) -> float:
    """Collectives and stragglers grow with scale: −2% per doubling beyond 64 GPUs.

    Llama 3 (Dubey et al. 2024, Table 4): 43% MFU at 8,192 GPUs vs 38–41% at 16,384 — about
    −5% per doubling at that scale; −2% per doubling from 64 GPUs reproduces the drop from
    single-node (≈50%) to 16k-GPU (≈38%) figures.
    """
    if gpus <= 64:
        return 1.0
    return max(0.6, 1.0 - 0.02 * math.log2(gpus / 64))


def pipeline_factor(pp: int, vpp: int, micro_batches: int) -> float:
    """1 / (1 + (p − 1) / (v · m)): the share of a step not lost to the pipeline bubble.

    Narayanan et al. 2021 §2.2.1 (1F1B: bubble (p − 1)/m) and §2.2.2 (interleaved schedule
    with v virtual stages per GPU: (p − 1)/(v · m)).
    """
    if pp <= 1:
        return 1.0
    return 1.0 / (1.0 + (pp - 1) / (vpp * max(1, micro_batches)))


# Llama 3 §3.3.4: 419 unexpected interruptions in a 54-day snapshot on 16,384 H100s, and
# "higher than 90% effective training time". Charging each interruption the time that makes
# 16,384 GPUs exactly 90% effective: 24 h × (1/0.9 − 1) / (419 / 54) = 0.344 h of the job.
INTERRUPTIONS_PER_GPU_DAY = 419 / (54 * 16_384)
HOURS_LOST_PER_INTERRUPTION = 24.0 * (1 / 0.9 - 1) / (419 / 54)


def stage_balance(layers: int, pp: int, vpp: int) -> float:
    """L / (p · v · ⌈L / (p · v)⌉): the pipeline runs at the pace of its busiest chunk of
    layers when L does not split evenly into p · v chunks (1.0 when it does)."""
    chunks = pp * vpp
    if chunks <= 1:
        return 1.0
    return layers / (chunks * math.ceil(layers / chunks))


def goodput(gpus: int, days: float = 1.0) -> float:
    """Share of wall-clock time that trains: failures cost restarts and lost steps.

    1 / (1 + rate · n · hours lost per interruption / 24 h), with the rate and the loss
    from Llama 3 §3.3.4 (constants above): 0.90 at 16,384 GPUs, 0.98 at 2,048.
    """
    lost_h_per_day = INTERRUPTIONS_PER_GPU_DAY * gpus * HOURS_LOST_PER_INTERRUPTION
    return 1.0 / (1.0 + lost_h_per_day / 24.0) if days > 0 else 1.0


class Factor(NamedTuple):
    """One named factor of the MFU: `key` is its operand name (labels: `FACTOR_LABELS`)."""

    key: str
    value: float


# What each factor is, for explanations ({h}, {ratio}, {tp}, {pp}, {vpp}, {m}, {gpus} filled in).
FACTOR_LABELS: dict[str, str] = {
    "matmul_share": "largest GEMM share of dense peak ({mamf})",
    "software": "software efficiency",
    "memory_bound": "GEMM share of a layer, h={h} on {ratio:.0f} FLOP/B",
    "fp8_share": "FP8 GEMM share ({mamf_fp8})",
    "nf4_dequant": "NF4 dequantisation, 4.5 B/param per pass over {micro_tokens:,} tokens",
    "recompute": "full recomputation (one extra forward)",
    "tensor_parallel": "TP {tp}",
    "tensor_parallel_pcie": "TP {tp} over PCIe ({pcie_gbs:.0f} GB/s, {tp_step:.3f} a doubling)",
    "pipeline": "bubble 1/(1 + (p−1)/(v·m)), p={pp}, v={vpp}, m={m}",
    "stage_balance": "uneven pipeline stages ({layers} layers in {chunks} chunks)",
    "zero3": "ZeRO-3 parameter gathers",
    "moe_all_to_all": "MoE all-to-all",
    "moe_imbalance": "MoE expert imbalance",
    "intra_node": "intra-node link",
    "fabric": "inter-node fabric",
    # {gpus} and {floor_from} come counted ("1 GPU", "64 GPUs": app.engine.formatting.gpus).
    "scale": "scale ({gpus})",
    "scaling_floor": "scaling floor: at most linear from {floor_from}",
}


def mfu_factors(
    *,
    gpu: GpuSpec,
    model: ModelSpec,
    precision: str,
    task: str,
    gpus: int,
    nodes: int,
    interconnect: str,
    tp: int = 1,
    pp: int = 1,
    vpp: int = 1,
    micro_batches: int = 1,
    zero_stage: int = 0,
    dp: int = 1,
    recompute: str = "selective",
    micro_tokens: int,
) -> list[Factor]:
    """The named factors whose product is the default MFU of one layout (see module doc).

    The planner and the explanation both call this: the MFU a plan reports and the product
    its explanation shows are the same multiplication. It is `base_factors` (what the GPU,
    model, precision and task fix) followed by `layout_factors` (what the layout and count
    add); the planner computes the first once per GPU type.
    """
    base = base_factors(
        gpu=gpu, model=model, precision=precision, task=task, micro_tokens=micro_tokens
    )
    return base + layout_factors(
        model=model, task=task, gpus=gpus, nodes=nodes, interconnect=interconnect, tp=tp,
        pp=pp, vpp=vpp, micro_batches=micro_batches, zero_stage=zero_stage, dp=dp,
        recompute=recompute, nvlink=gpu.has_nvlink, tp_step=tp_step(gpu, interconnect),
    )  # fmt: skip


def nf4_dequant_factor(gpu: GpuSpec, precision: str, micro_tokens: int) -> float:
    """1 / (1 + 4.5 B · (peak · matmul share / BW) / (2 · tokens)): the GEMM share of a QLoRA
    pass when each NF4 weight is dequantised once per micro-batch of `micro_tokens` tokens.

    A100-80GB (153 FLOP/B) with 8,192 tokens: 0.97; with 512 tokens: 0.65."""
    ratio = gpu.peak_tflops(precision) * 1e12 * matmul_share(gpu) / (gpu.bandwidth_gbs * 1e9)
    return 1.0 / (1.0 + NF4_BYTES_PER_PARAM_PASS * ratio / (2.0 * max(1, micro_tokens)))


def base_factors(
    *, gpu: GpuSpec, model: ModelSpec, precision: str, task: str, micro_tokens: int
) -> list[Factor]:
    """The MFU factors no layout or GPU count changes: GEMM share, software, memory-bound
    share, FP8 and NF4 dequantisation (`micro_tokens`: tokens per micro-batch)."""
    f = [
        Factor("matmul_share", matmul_share(gpu)),
        Factor("software", SOFTWARE_EFFICIENCY),
        Factor(
            "memory_bound",
            memory_bound_factor(gpu, model, precision),
        ),
    ]
    if precision == "fp8" and gpu.fp8_tflops:
        f.append(Factor("fp8_share", fp8_share(gpu)))
    if task == "qlora":
        f.append(Factor("nf4_dequant", nf4_dequant_factor(gpu, precision, micro_tokens)))
    return f


def pcie_inside(interconnect: str, nvlink: bool) -> bool:
    """Whether a node's GPUs talk over PCIe: the GPU has no NVLink, or the plan says `pcie`
    (an RTX 4090 box is PCIe whatever fabric joins the boxes: two of them were credited
    NVLink's 0.9 — QA; and a pinned `pcie` across nodes means PCIe servers joined by the
    default fabric, InfiniBand: it was ignored there while the answer warned of T5's ≈30%).
    The "intra_node" factor and TP's cost both ask it."""
    return not nvlink or interconnect == "pcie"


def tp_over_pcie(gpu: GpuSpec, interconnect: str) -> bool:
    """`pcie_inside` for `gpu`."""
    return pcie_inside(interconnect, gpu.has_nvlink)


def tp_step(gpu: GpuSpec, interconnect: str) -> float:
    """Tensor-parallel efficiency per doubling of TP: TP_EFFICIENCY over NVLink; over PCIe the
    exposed share 1/TP_EFFICIENCY − 1 scaled by (TP_REFERENCE_LINK_GBS / PCIe GB/s) ×
    (BF16 TFLOPS / TP_REFERENCE_TFLOPS), i.e. 1 / (1 + that)."""
    if not tp_over_pcie(gpu, interconnect):
        return TP_EFFICIENCY
    exposed = (
        (1.0 / TP_EFFICIENCY - 1.0)
        * (TP_REFERENCE_LINK_GBS / gpu.pcie_gbs)
        * (gpu.peak_tflops("bf16") / TP_REFERENCE_TFLOPS)
    )
    return 1.0 / (1.0 + exposed)


def layout_factors(
    *,
    model: ModelSpec,
    task: str,
    gpus: int,
    nodes: int,
    interconnect: str,
    tp: int = 1,
    pp: int = 1,
    vpp: int = 1,
    micro_batches: int = 1,
    zero_stage: int = 0,
    dp: int = 1,
    recompute: str = "selective",
    nvlink: bool = True,
    tp_step: float = TP_EFFICIENCY,
) -> list[Factor]:
    """The MFU factors of one layout on `gpus` GPUs: recomputation, TP, pipeline bubble,
    ZeRO-3, MoE, links and scale (in the order `mfu_factors` multiplies them). `tp_step`:
    the TP efficiency per doubling on this GPU and link (`tp_step()`)."""
    f: list[Factor] = []
    if recompute == "full":
        share = LORA_FULL_RECOMPUTE_SHARE if task in ("lora", "qlora") else FULL_RECOMPUTE_SHARE
        f.append(Factor("recompute", share))
    if tp > 1:
        key = "tensor_parallel" if tp_step == TP_EFFICIENCY else "tensor_parallel_pcie"
        f.append(Factor(key, tp_step ** math.log2(tp)))
    if pp > 1:
        f.append(
            Factor(
                "pipeline",
                pipeline_factor(pp, vpp, micro_batches),
            )
        )
        balance = stage_balance(model.layers, pp, vpp)
        if balance < 1.0:  # the planner ranks layouts with it too: one figure, one formula
            f.append(Factor("stage_balance", balance))
    if zero_stage == 3 and dp > 1:
        z3 = ZERO3_EFFICIENCY if nodes == 1 else ZERO3_CROSS_NODE_EFFICIENCY
        f.append(Factor("zero3", z3))
    if model.is_moe and gpus > 1:
        a2a = MOE_ALL_TO_ALL_CROSS_NODE if nodes > 1 else MOE_ALL_TO_ALL_NVLINK
        f.append(Factor("moe_all_to_all", a2a))
        f.append(Factor("moe_imbalance", MOE_IMBALANCE))
    if gpus > 1:
        if pcie_inside(interconnect, nvlink):
            # T5 compares like with like: the same box with and without NVLink.
            big = model.params >= 13e9 and task in ("pretrain", "full_finetune")
            pcie = PCIE_PENALTY if big else PCIE_SMALL_JOB_PENALTY
            f.append(Factor("intra_node", NVLINK_EFFICIENCY * pcie))
        else:
            f.append(Factor("intra_node", NVLINK_EFFICIENCY))
        if nodes > 1:
            fabric = interconnect if interconnect in FABRIC_EFFICIENCY else "infiniband"
            f.append(Factor("fabric", FABRIC_EFFICIENCY[fabric]))
        sc = scale_factor(gpus)
        if sc < 1:
            f.append(Factor("scale", sc))
    return f


def layout_value(
    start: float,
    *,
    model: ModelSpec,
    task: str,
    gpus: int,
    nodes: int,
    interconnect: str,
    tp: int = 1,
    pp: int = 1,
    vpp: int = 1,
    micro_batches: int = 1,
    zero_stage: int = 0,
    dp: int = 1,
    recompute: str = "selective",
    nvlink: bool = True,
    tp_step: float = TP_EFFICIENCY,
) -> float:
    """`start` × the product of `layout_factors`, multiplied in the same order (so with
    `start` = the base factors' product it equals `product(mfu_factors(...))` to the last
    bit), without naming them: the planner's walk decides by it."""
    v = start
    if recompute == "full":
        v *= LORA_FULL_RECOMPUTE_SHARE if task in ("lora", "qlora") else FULL_RECOMPUTE_SHARE
    if tp > 1:
        v *= tp_step ** math.log2(tp)
    if pp > 1:
        v *= pipeline_factor(pp, vpp, micro_batches)
        balance = stage_balance(model.layers, pp, vpp)
        if balance < 1.0:
            v *= balance
    if zero_stage == 3 and dp > 1:
        v *= ZERO3_EFFICIENCY if nodes == 1 else ZERO3_CROSS_NODE_EFFICIENCY
    if model.is_moe and gpus > 1:
        v *= MOE_ALL_TO_ALL_CROSS_NODE if nodes > 1 else MOE_ALL_TO_ALL_NVLINK
        v *= MOE_IMBALANCE
    if gpus > 1:
        if pcie_inside(interconnect, nvlink):
            big = model.params >= 13e9 and task in ("pretrain", "full_finetune")
            v *= NVLINK_EFFICIENCY * (PCIE_PENALTY if big else PCIE_SMALL_JOB_PENALTY)
        else:
            v *= NVLINK_EFFICIENCY
        if nodes > 1:
            fabric = interconnect if interconnect in FABRIC_EFFICIENCY else "infiniband"
            v *= FABRIC_EFFICIENCY[fabric]
        sc = scale_factor(gpus)
        if sc < 1:
            v *= sc
    return v


def product(factors: Sequence[Factor]) -> float:
    """The MFU the factors give, multiplied in their order."""
    v = 1.0
    for x in factors:
        v *= x.value
    return v


MFU_SOURCE = (
    BASE_SOURCE
    + "; Narayanan et al. 2021 (TP §3.2, pipeline bubble §2.2, recomputation eq. 3); ZeRO "
    "§7.2.2; DeepSeek-V3 §3.2.1 and Switch Transformer §2.2 (MoE); T4 (4 GPUs ≈30% of one-GPU "
    "time), T5 (no NVLink ≈30% slower), U6 (RoCE 85–95% of InfiniBand)"
)


def training_days(
    *,
    flops: float,
    gpu: GpuSpec,
    gpus: int,
    mfu: float,
    precision: str,
    goodput_share: float | None = None,
) -> float:
    """days = model FLOPs / (GPUs × dense peak × MFU × goodput) / 86,400 s.

    `goodput_share` None means the Llama 3 interruption model (`goodput`); 1.0 ignores
    interruptions (the seed rules' arithmetic).
    """
    g = goodput(gpus) if goodput_share is None else goodput_share
    return flops / (gpus * gpu.peak_tflops(precision) * 1e12 * mfu * g) / SECONDS_PER_DAY
