"""GPU specifications as the engine sees them.

Every throughput figure is *dense* (no 2:4 structured sparsity): vendors quote Hopper and
Blackwell headline numbers with sparsity, which is twice what a training step can use
(PRODUCT.md §4). Units: GB = 10^9 bytes, GB/s decimal, TFLOPS = 10^12 FLOP/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FormFactor = Literal["sxm", "pcie", "oam", "superchip"]


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One accelerator model. Loaded from `app/data/gpus.yaml` (or the catalog)."""

    id: str  # lowercase-hyphenated, e.g. "h100-sxm-80gb"
    name: str  # "NVIDIA H100 SXM5 80GB"
    vendor: str  # "NVIDIA" | "AMD" | "Intel"
    generation: str  # "ampere" | "hopper" | "blackwell" | "ada" | "cdna3" | "gaudi3"
    memory_gb: float  # HBM/GDDR capacity, GB (10^9 B)
    bandwidth_gbs: float  # memory bandwidth, GB/s
    bf16_tflops: float  # dense BF16/FP16 tensor TFLOPS
    fp8_tflops: float | None  # dense FP8 TFLOPS; None when the GPU has no FP8 tensor cores
    int8_tops: float | None  # dense INT8 TOPS; None when unknown
    fp32_tflops: float  # non-tensor FP32 TFLOPS
    tdp_w: float  # board power, W
    form_factor: FormFactor
    nvlink_gbs: float  # per-GPU bidirectional NVLink/Infinity Fabric GB/s; 0 when none
    pcie_gbs: float  # per-GPU bidirectional PCIe GB/s (Gen4 x16 = 64, Gen5 x16 = 128)
    gpus_per_node: int  # largest node this part ships in (8 for HGX/OAM, 4–8 PCIe)
    mig_max: int  # MIG instances (0 when unsupported)
    price_usd: float | None  # street price per GPU, USD; None when unknown
    launch_year: int
    source: str  # datasheet(s) the figures come from
    # Dense FP4 (NVFP4/MXFP4) tensor TFLOPS; None when the GPU has no FP4 tensor cores.
    fp4_tflops: float | None = None
    # GPUs that share one NVLink/Infinity Fabric switch domain (GB200 NVL72: 72); 0 = derive
    # it: `gpus_per_node` when the part has a scale-up link, else 1.
    nvlink_domain: int = 0
    # Measured maximum achievable matmul (MAMF, stas00/ml-engineering's table: the best dense
    # GEMM shape found by brute force), TFLOPS in BF16 and FP8; None: not measured on this GPU.
    mamf_bf16_tflops: float | None = None
    mamf_fp8_tflops: float | None = None

    def peak_tflops(self, precision: str) -> float:
        """Dense tensor throughput for a compute precision (TFLOPS).

        fp8 falls back to bf16 on GPUs without FP8 tensor cores (Ampere runs FP8
        weights as BF16 compute); int8/int4 weight-only quantisation computes in bf16.
        fp32 training runs on TF32 tensor cores, taken here as half the BF16 rate
        (NVIDIA datasheets: A100 156 vs 312, H100 494.5 vs 989).
        """
        if precision == "fp4" and self.fp4_tflops:
            return self.fp4_tflops
        if precision in ("fp8", "fp4") and self.fp8_tflops:
            return self.fp8_tflops
        if precision == "fp32":
            return self.bf16_tflops / 2
        return self.bf16_tflops

    def compute_format(self, precision: str) -> str:
        """The tensor-core format `peak_tflops(precision)` is the peak of: "FP4", "FP8",
        "TF32" or "BF16" (int8/int4 weights and FP8 on a GPU without FP8 compute in BF16)."""
        if precision == "fp4" and self.fp4_tflops:
            return "FP4"
        if precision in ("fp8", "fp4") and self.fp8_tflops:
            return "FP8"
        if precision == "fp32":
            return "TF32"
        return "BF16"

    @property
    def has_nvlink(self) -> bool:
        return self.nvlink_gbs > 0

    @property
    def supports_fp4(self) -> bool:
        """True on GPUs with FP4 tensor cores (Blackwell NVFP4/MXFP4, CDNA 4 MXFP4)."""
        return bool(self.fp4_tflops)

    @property
    def scale_up_domain(self) -> int:
        """GPUs one tensor-parallel group can span over NVLink (1 = PCIe only).

        HGX/OAM boards: the 8 GPUs of the node; GB200 NVL72: the 72 GPUs of the rack
        (NVIDIA GB200 NVL72 datasheet: "72 Blackwell GPUs … one NVLink domain").
        """
        if self.nvlink_domain:
            return self.nvlink_domain
        return self.gpus_per_node if self.has_nvlink else 1
