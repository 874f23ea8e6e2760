"""Per-component weight precision: gpt-oss stores its routed experts in MXFP4 (issue 12).

Sources: the gpt-oss model card §2 (MoE weights "quantized to 4.25 bits per parameter",
"the smaller model to run on systems with as little as 16GB memory, and the larger model to
fit on a single 80GB GPU") and the HF config quantization_config (quant_method mxfp4,
modules_to_not_convert self_attn, router, embed_tokens, lm_head). Expert counts by hand from
the config: each expert is mlp1 2880 × 5760 + 5760 bias and mlp2 2880 × 2880 + 2880 bias =
24,891,840 weights; × experts × layers.
"""

from __future__ import annotations

import pytest

from app.engine import inference, memory
from app.engine.architectures import get_preset
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest

PER_EXPERT = 2880 * 5760 + 5760 + 2880 * 2880 + 2880  # 24,891,840
MXFP4 = (4 + 8 / 32) / 8  # 4.25 bits = 0.53125 B


@pytest.mark.parametrize(
    "preset, experts, layers, published_params, fits_gb",
    [("gpt-oss-20b", 32, 24, 20.91e9, 16), ("gpt-oss-120b", 128, 36, 116.83e9, 80)],
)
def test_gpt_oss_weights_follow_the_published_formats(
    preset: str, experts: int, layers: int, published_params: float, fits_gb: float
) -> None:
    m = get_preset(preset)
    expert_params = PER_EXPERT * experts * layers
    assert m.routed_expert_params == pytest.approx(expert_params, rel=1e-12)
    assert m.params == pytest.approx(published_params, rel=0.01)
    rest = m.params - expert_params
    w, ex = memory.inference_weights(m, "bf16")
    assert w == pytest.approx(expert_params * MXFP4 + rest * 2.0, rel=1e-12)
    assert ex.recomputed() == pytest.approx(w / 1e9, rel=1e-12)
    assert inference.weight_bytes(m, "bf16") == w
    assert w / 1e9 < fits_gb  # model card: 16 GB systems / one 80 GB GPU
    assert expert_params / m.params > 0.9  # "responsible for 90+% of the total parameter count"


def test_gpt_oss_weights_in_gb_by_hand() -> None:
    # 120b: 114,701,598,720 expert × 0.53125 B + 2,127,555,648 other × 2 B = 65.19 GB
    # (60.7 GiB; vLLM's post: "63 GB"). 20b: 19,116,933,120 × 0.53125 + 1,797,822,528 × 2
    # = 13.75 GB (vLLM: "14 GB").
    assert memory.inference_weights(get_preset("gpt-oss-120b"), "bf16")[0] / 1e9 == (
        pytest.approx(114_701_598_720 * 0.53125 / 1e9 + 2_127_555_648 * 2 / 1e9, rel=1e-9)
    )
    assert memory.inference_weights(get_preset("gpt-oss-120b"), "bf16")[0] / 1e9 == (
        pytest.approx(65.19, abs=0.01)
    )
    assert memory.inference_weights(get_preset("gpt-oss-20b"), "bf16")[0] / 1e9 == (
        pytest.approx(13.75, abs=0.01)
    )


def test_a_narrower_request_narrows_the_rest_not_the_experts_further() -> None:
    m = get_preset("gpt-oss-120b")
    _, b, _, eb = memory.weight_split(m, "fp8")
    assert (b, eb) == (1.0, MXFP4)
    _, b, _, eb = memory.weight_split(m, "int4")
    assert b == eb == memory.WEIGHT_BYTES["int4"]  # 4.25 bits either way


def test_other_models_keep_one_precision() -> None:
    for preset in ("mixtral-8x7b", "llama-3.1-8b", "deepseek-v3", "qwen3-30b-a3b"):
        m = get_preset(preset)
        for prec in ("bf16", "fp8", "int4"):
            w, _ = memory.inference_weights(m, prec)
            assert w == pytest.approx(m.params * memory.WEIGHT_BYTES[prec], rel=1e-12), preset


def test_gpt_oss_120b_serves_on_one_80gb_gpu() -> None:
    r = estimate(
        EstimateRequest(model={"preset": "gpt-oss-120b"}, task="inference", users=10,
                        gpu="h100-sxm-80gb"),
        search_all=False,
    )  # fmt: skip
    assert r.gpu.count == 1 and r.parallelism.tp == 1
    assert r.memory_gb.weights == pytest.approx(65.19, abs=0.01)
    assert r.inference is not None and r.inference.max_concurrency >= 10
