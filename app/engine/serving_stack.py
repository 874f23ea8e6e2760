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

How the figures were chosen: microbenchmark ranges from the cited sources bound each value;
inside those ranges the value was picked on the `fit` half of
`app/data/validation/serving_runs.yaml` only (one value per row of this table, never per
run); the `holdout` half checks it (`app.engine.serving_validation`).
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
        "HBM: H100 STREAM-like copy 2.6–3.0 of 3.35 TB/s (ml-engineering, stas00); compute: "
        "maximum achievable matmul 794.5/989 BF16, 1,402.6/1,979 FP8 on H100 SXM (stas00 MAMF "
        "table); all-reduce: NCCL / TensorRT-LLM custom all-reduce ≈5–10 µs for small messages "
        "on NVLink 4; step overhead and the picks inside these ranges: fit half of "
        "serving_runs.yaml (TensorRT-LLM 0.9–1.0 perf tables, NIM 1.8)"
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
        "HBM/GDDR: same decode kernels as NVLink parts; compute: L40S and PCIe boards run at "
        "lower sustained clocks under their 350 W cap (NVIDIA L40S datasheet boost vs base); "
        "all-reduce over PCIe through the host root complex: NCCL ring ≈25–40 µs latency and "
        "≈60% of the one-way x16 bandwidth (nccl-tests on PCIe Gen4/Gen5 servers); picks: fit "
        "half of serving_runs.yaml (TensorRT-LLM 0.14 L40S TP 4)"
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
        "llama.cpp CUDA benchmarks on RTX 4090 (ggml-org/llama.cpp discussion #15013): pp512 "
        "11,048 t/s on a 6.7B F16 model is 2 × 6.74e9 × 11,048 = 149 TFLOPS of the 165 dense "
        "FP16 peak (90%); tg128 61 t/s reads 13.5 GB per token, 82% of 1,008 GB/s after a "
        "≈0.5 ms per-token overhead"
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
        "MI300X measured: HBM ≈4.0–4.3 of 5.3 TB/s in rocm-bandwidth-test / STREAM "
        "(Chips and Cheese, 'Testing AMD's Giant MI300X', 2024); dense BF16 GEMM ≈600–750 of "
        "1,307 TFLOPS (SemiAnalysis MI300X vs H100 benchmarks, Dec 2024); RCCL all-reduce "
        "latency ≈20–30 µs on the 8-GPU Infinity Fabric mesh; picks: fit half of "
        "serving_runs.yaml (ROCm vLLM 0.9.1, MLPerf v4.1/v5.0 AMD, Oracle MI300X)"
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
