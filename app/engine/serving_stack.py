"""Achievable shares of peak for a serving engine on a GPU: one row per vendor and link.

Datasheet peaks are not what a serving engine reaches. What it reaches depends on the GPU's
vendor (kernel maturity: CUDA/TensorRT-LLM vs ROCm), its memory and the link between the
tensor-parallel ranks (NVLink/Infinity Fabric vs PCIe). Each row states four figures:

- `hbm`: share of datasheet HBM/GDDR bandwidth a decode step streams weights and KV at;
- `compute`: share of dense tensor peak that prefill and large-batch decode GEMMs reach;
- `step_overhead_s`: fixed time per engine step (scheduler, sampling, kernel launches, the
  host round trip) that no roofline sees;
- `allreduce_latency_s`: latency of one tensor-parallel all-reduce of a small message,
  two per layer per step (Megatron-LM TP, Shoeybi et al. 2019 §3).

How the figures were chosen: where a measurement is cited below it bounds the value (only
measurements read in their source are cited); every value was then picked on the `fit` half
of `app/data/validation/serving_runs.yaml` only (one value per row of this table, never per
run) and the `holdout` half checks it (`app.engine.serving_validation`). Rows with few
published measurements behind them (AMD: 3, PCIe: 4, consumer: 1) are the least certain.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.hardware import GpuSpec


@dataclass(frozen=True, slots=True)
class StackEfficiency:
    """What one class of GPU and serving stack reaches, as shares of datasheet peaks."""

    key: str
    label: str
    hbm: float  # share of datasheet memory bandwidth in decode
    compute: float  # share of dense tensor peak in prefill / compute-bound decode
    step_overhead_s: float  # fixed seconds per engine step
    allreduce_latency_s: float  # seconds per small-message TP all-reduce
    link_share: float  # share of the link's one-way bandwidth an all-reduce reaches
    source: str


NVIDIA_NVLINK = StackEfficiency(
    key="nvidia-nvlink",
    label="NVIDIA data-centre GPU, NVLink (TensorRT-LLM / vLLM / SGLang)",
    hbm=0.90,
    compute=0.50,
    step_overhead_s=1.0e-3,
    allreduce_latency_s=40e-6,
    link_share=0.70,
    source=(
        "compute bounded by the maximum achievable matmul on H100 SXM, 794.5 of 989 BF16 and "
        "1,402.6 of 1,979 FP8 TFLOPS (stas00 ml-engineering MAMF table, app/data/gpus.yaml); "
        "HBM share, all-reduce latency and step overhead: fit half of serving_runs.yaml "
        "(TensorRT-LLM 0.9–1.0 performance tables, NIM 1.8)"
    ),
)
NVIDIA_PCIE = StackEfficiency(
    key="nvidia-pcie",
    label="NVIDIA data-centre GPU, PCIe only (L40S, L4, A100/H100 PCIe)",
    hbm=0.60,
    compute=0.65,
    step_overhead_s=4.0e-3,
    allreduce_latency_s=40e-6,
    link_share=0.60,
    source=(
        "all-reduce between PCIe-only boards crosses the host root complex, so the link share "
        "is below NVLink's; every value: fit half of serving_runs.yaml (TensorRT-LLM 0.14 L40S "
        "TP 4) — few rows, so the least certain NVIDIA row"
    ),
)
NVIDIA_CONSUMER = StackEfficiency(
    key="nvidia-consumer",
    label="NVIDIA GeForce / workstation GPU, single card (llama.cpp / vLLM)",
    hbm=0.85,
    compute=0.90,
    step_overhead_s=0.5e-3,
    allreduce_latency_s=40e-6,
    link_share=0.60,
    source=(
        "llama.cpp llama-bench on RTX 4090 (llama.cpp PR #4766, comment of 2024-01-10, in "
        "serving_runs.yaml): pp512 11,048 t/s on a 6.74B F16 model is 2 × 6.74e9 × 11,048 = "
        "149 TFLOPS of the 165 dense FP16 peak (90%); the decode row of the same source "
        "fixes the HBM share after the per-token overhead"
    ),
)
AMD_INFINITY_FABRIC = StackEfficiency(
    key="amd-if",
    label="AMD Instinct, Infinity Fabric (vLLM on ROCm)",
    hbm=0.80,
    compute=0.50,
    step_overhead_s=6.0e-3,
    allreduce_latency_s=40e-6,
    link_share=0.50,
    source=(
        "every value: fit half of serving_runs.yaml (ROCm vLLM 0.9.1 results page, MLPerf "
        "Inference v4.1/v5.0 AMD submissions) — three fit rows, so the least certain row; "
        "Intel Gaudi has no serving measurement and is taken at these shares"
    ),
)

STACKS: tuple[StackEfficiency, ...] = (
    NVIDIA_NVLINK,
    NVIDIA_PCIE,
    NVIDIA_CONSUMER,
    AMD_INFINITY_FABRIC,
)
CONSUMER_GENERATIONS = frozenset({"ada", "blackwell-consumer"})


def stack_for(gpu: GpuSpec) -> StackEfficiency:
    """The row of this table a GPU serves with.

    AMD (and Intel Gaudi, which has no serving row of its own and is taken at AMD's
    conservative shares) → Infinity Fabric row; NVIDIA parts with a scale-up link → NVLink
    row; NVIDIA single-card consumer/workstation parts (GeForce, RTX 6000 Ada) → consumer
    row; the other PCIe data-centre parts (L40S, L4, A100/H100 PCIe) → PCIe row.
    """
    if gpu.vendor != "NVIDIA":
        return AMD_INFINITY_FABRIC
    if gpu.has_nvlink:
        return NVIDIA_NVLINK
    if "rtx" in gpu.id or "geforce" in gpu.name.lower():
        return NVIDIA_CONSUMER
    return NVIDIA_PCIE
