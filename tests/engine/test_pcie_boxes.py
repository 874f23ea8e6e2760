"""GPUs without NVLink talk over PCIe inside their box whatever joins the boxes.

QA (2026-12-03): 8 × RTX 4090 (4 a box, 2 boxes) full fine-tuning Llama 3.1 8B was credited
the NVLink "intra-node link 0.9", so its MFU (0.311) came out above 8 × H100's (0.284); only a
single PCIe box was charged seed rule T5's penalty.
"""

from __future__ import annotations

import pytest

from app.engine import compute
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest


def _intra_node(gpu: str) -> float:
    r = estimate(
        EstimateRequest(model={"preset": "llama-3.1-8b"}, task="full_finetune", tokens=2e9,
                        gpu=gpu, gpu_count=8),
        search_all=False,
    )  # fmt: skip
    mfu = next(e for e in r.explain if e.figure == "training.mfu")
    assert "intra-node link" in mfu.formula
    return float(mfu.formula.split("intra-node link ")[1].split()[0])


def test_two_pcie_boxes_pay_the_pcie_penalty_inside_each_box() -> None:
    # An 8B model is under T5's 13B: the small-job penalty, 0.9 × 0.9 = 0.81 (NVLink's 0.9
    # all-reduce efficiency × −10% over PCIe), as one PCIe box of L40S pays.
    assert _intra_node("rtx-4090-24gb") == pytest.approx(
        compute.NVLINK_EFFICIENCY * compute.PCIE_SMALL_JOB_PENALTY, abs=0.005
    )
    assert _intra_node("l40s-48gb") == pytest.approx(0.81, abs=0.005)
    assert _intra_node("h100-sxm-80gb") == pytest.approx(compute.NVLINK_EFFICIENCY)
