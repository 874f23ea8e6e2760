"""The tier's formula names the link the GPUs use: a box of L4s is multi-GPU over PCIe.

QA: 8 × L4 serving Llama 3.1 8B read "8 GPUs on 1 node → tier 2, multi-GPU, NVLink" (中文
「規模落點 2：多卡、NVLink」), but the L4 has no NVLink (NVIDIA L4 datasheet: PCIe Gen4 x16;
app/data/gpus.yaml nvlink_gbs 0). Seed T1 names its tier 2 by the H100 boxes it quotes.
"""

from __future__ import annotations

import pytest

from app import i18n
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest
from app.planner import formula_wording

SERVICE = {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "users": 50,
           "slo": {"ttft_s": 1, "tokens_per_s_per_user": 20}}  # fmt: skip


@pytest.mark.parametrize(("gpu", "link"), [("l4-24gb", "PCIe"), ("h100-sxm-80gb", "NVLink")])
def test_the_tier_says_the_gpus_link(gpu: str, link: str) -> None:
    resp = estimate(EstimateRequest(**SERVICE, gpu=gpu, gpu_count=4), search_all=False)
    assert resp.tier == "multi_gpu"
    tier = next(e for e in resp.explain if e.figure == "tier")
    assert f"tier 2, multi-GPU, {link}" in tier.formula
    i18n.activate("zh-TW")
    try:
        said, ok = formula_wording.formula_text(tier.formula)
    finally:
        i18n.activate("en")
    assert ok and f"規模落點 2：多卡、{link}" in said
