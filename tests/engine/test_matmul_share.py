"""The GEMM share of peak is each GPU's measured maximum achievable matmul (MAMF).

Source of every figure: stas00/ml-engineering, compute/accelerator/README.md, "Maximum
Achievable Matmul FLOPS comparison table" (BF16 and FP8 tables), as copied into
app/data/gpus.yaml; dense peaks from the datasheets in the same file.
"""

from __future__ import annotations

import pytest

from app.engine import compute
from app.engine.estimate import estimate
from app.engine.gpus import find_gpu
from app.engine.inference import mig_quarter
from app.engine.schemas import EstimateRequest


@pytest.mark.parametrize(
    ("gpu_id", "mamf", "peak"),
    [
        ("a100-sxm-80gb", 271.2, 312.0),  # A100 SXM row: 86.9%
        ("a100-pcie-80gb", 252.9, 312.0),  # A100 PCIe row: 81.1%
        ("h100-sxm-80gb", 794.5, 989.0),  # H100 SXM row: 80.3%
        ("h200-sxm-141gb", 794.5, 989.0),  # "H200 is the same"
        ("mi300x-192gb", 668.4, 1307.4),  # MI300X row (ROCm 6.3) over AMD's dense 1,307.4
    ],
)
def test_gemm_share_is_the_measured_mamf_over_the_dense_peak(
    gpu_id: str, mamf: float, peak: float
) -> None:
    assert compute.matmul_share(find_gpu(gpu_id)) == pytest.approx(mamf / peak, rel=1e-12)


def test_a_gpu_the_table_has_not_measured_takes_h100s_share_and_says_so() -> None:
    gpu = find_gpu("rtx-4090-24gb")
    assert gpu.mamf_bf16_tflops is None
    assert compute.matmul_share(gpu) == pytest.approx(794.5 / 989.0)
    r = estimate(
        EstimateRequest(model={"preset": "llama-3.1-8b"}, task="qlora", tokens=1e7, gpu=gpu.id),
        search_all=False,
    )
    mfu = next(e for e in r.explain if e.figure == "training.mfu")
    assert "not measured on this GPU: H100 SXM's BF16 share" in mfu.formula


def test_fp8_factor_turns_the_bf16_share_into_the_measured_fp8_share() -> None:
    # H200: FP8 MAMF 1,453.4 of 1,979 (73.4%) against BF16 794.5 of 989 (80.3%).
    h200 = find_gpu("h200-sxm-141gb")
    assert compute.matmul_share(h200) * compute.fp8_share(h200) == pytest.approx(1453.4 / 1979)
    r = estimate(
        EstimateRequest(
            model={"preset": "llama-3.1-8b"}, task="pretrain", tokens=1e10, gpu=h200.id,
            gpu_count=8, precision="fp8",
        ),
        search_all=False,
    )  # fmt: skip
    mfu = next(e for e in r.explain if e.figure == "training.mfu")
    assert "measured MAMF 1,453.4 of 1,979.0 FP8 TFLOPS" in mfu.formula
    assert dict((o.name, o.value) for o in mfu.operands)["fp8_share"] == pytest.approx(
        (1453.4 / 1979) / (794.5 / 989)
    )


def test_a_mig_slice_keeps_its_gpus_share() -> None:
    # A slice has a fraction of the SMs: its MAMF and its peak shrink together.
    h100 = find_gpu("h100-sxm-80gb")
    assert compute.matmul_share(mig_quarter(h100)) == pytest.approx(compute.matmul_share(h100))


def test_mi300x_trains_at_its_measured_matmul_rate_not_its_larger_peak() -> None:
    # Peak alone says MI300X (1,307.4 TFLOPS) is 1.32x an H100 (989); the measured matmul
    # (668.4 vs 794.5 TFLOPS) says it is 0.84x. Same model, one GPU, nothing else differs in
    # the base factors but the memory-bound share (bandwidth 5.3 vs 3.35 TB/s).
    h100, mi300x = find_gpu("h100-sxm-80gb"), find_gpu("mi300x-192gb")
    ratio = (mi300x.bf16_tflops * compute.matmul_share(mi300x)) / (
        h100.bf16_tflops * compute.matmul_share(h100)
    )
    assert ratio == pytest.approx(668.4 / 794.5)
