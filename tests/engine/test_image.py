"""Image generation as a batch job and as a service (issue 12, item 5).

Every expected figure is a hand calculation written here from the published architecture
(FLUX.1 transformer 11,901,408,320 weights, 57 blocks of width 3072, 2×2 patches of the
8× VAE latent, 512 T5 tokens; SDXL UNet levels at 32/16/8 pixels a token, app/engine/image.py),
the datasheet peaks (H100 SXM 989 TFLOPS dense BF16, A100 312) and the share of peak 0.51.
"""

from __future__ import annotations

import math

import pytest

from app.catalog.shipped import shipped_price_book
from app.engine import image
from app.engine.architectures import get_preset
from app.engine.estimate import estimate
from app.engine.gpus import find_gpu
from app.engine.schemas import EstimateRequest

PRICES = shipped_price_book()
FLUX = get_preset("flux-1-dev")
SDXL = get_preset("sdxl")
H100 = find_gpu("h100-sxm-80gb")

# FLUX.1 [dev] at 1024²: 4,096 image tokens (1024 / 16)² + 512 text tokens = 4,608.
FLUX_1024 = 2 * 11_901_408_320 * 4608 + 4 * 57 * 4608**2 * 3072
# SDXL at 1024²: 32² = 1,024 tokens at the 1280 level, 64² = 4,096 at 640, 128² at 320.
SDXL_1024 = (
    2 * 2.07e9 * 1024 + 4 * 60 * 1024**2 * 1280
    + 2 * 0.13e9 * 4096 + 4 * 10 * 4096**2 * 640
    + 2 * 0.02e9 * 16384
)  # fmt: skip


def _estimate(**body: object):  # type: ignore[no-untyped-def]
    return estimate(EstimateRequest(**body), prices=PRICES, search_all=False)


def test_flops_per_pass_by_hand() -> None:
    assert image.flops_per_pass(FLUX, 1024)[0] == pytest.approx(FLUX_1024, rel=1e-12)
    assert image.flops_per_pass(SDXL, 1024)[0] == pytest.approx(SDXL_1024, rel=1e-12)
    assert FLUX_1024 == pytest.approx(1.2456e14, rel=1e-3)  # ≈125 TFLOP a pass
    assert SDXL_1024 == pytest.approx(6.711e12, rel=1e-3)  # ≈6.7 TFLOP a UNet pass


def test_seconds_per_image_by_hand() -> None:
    # FLUX.1 [dev], 28 steps, one pass a step, on an H100: 28 × F / (989e12 × 0.51) = 6.91 s.
    secs, _ = image.seconds_per_image(FLUX, H100, resolution=1024, steps=28)
    assert secs == pytest.approx(28 * FLUX_1024 / (989e12 * 0.51), rel=1e-12)
    assert secs == pytest.approx(6.915, rel=1e-3)
    # SDXL, 30 steps × 2 passes (classifier-free guidance) on an A100: 2.53 s.
    a100 = find_gpu("a100-sxm-80gb")
    secs, _ = image.seconds_per_image(SDXL, a100, resolution=1024, steps=30)
    assert secs == pytest.approx(60 * SDXL_1024 / (312e12 * 0.51), rel=1e-12)


def test_images_per_hour_scale_with_steps_and_pixels() -> None:
    def rate(res: int, steps: int) -> float:
        return image.images_per_hour_per_gpu(FLUX, H100, resolution=res, steps=steps)

    assert rate(1024, 14) == pytest.approx(2 * rate(1024, 28), rel=1e-12)  # linear in steps
    # Four times the pixels costs more than four times the time: attention grows with tokens².
    assert rate(1024, 28) / rate(2048, 28) > 4
    assert rate(512, 28) > rate(768, 28) > rate(1024, 28)


def test_a_batch_takes_images_times_seconds_over_gpus_and_is_priced_by_duration() -> None:
    r = _estimate(model={"preset": "sdxl"}, task="image", images=10_000, gpu="h100-sxm-80gb")
    inf = r.inference
    assert inf is not None and r.gpu.count == 1
    secs = 60 * SDXL_1024 / (989e12 * 0.51)  # 30 steps × 2 passes
    assert inf.seconds_per_image == pytest.approx(secs, rel=1e-12)
    assert inf.images_per_hour == pytest.approx(3600 / secs, rel=1e-12)
    assert inf.batch_hours == pytest.approx(10_000 * secs / 3600, rel=1e-12)  # 2.2 h
    cost = r.cost
    assert cost is not None
    cheapest = next(o for o in cost["options"] if o["key"] == cost["cheapest"])
    # Priced as a job: the batch's hours, so the cost of the images is the option's total.
    assert cost["cost_of_images"] == pytest.approx(cheapest["total"], rel=1e-12)
    assert inf.cost_per_image == pytest.approx(cheapest["total"] / 10_000, rel=1e-12)


def test_a_target_images_per_hour_sizes_the_gpus_and_prices_a_service() -> None:
    # FLUX.1 [dev] 28 steps on H100: 3,600 / 6.915 s = 520.6 images/h a GPU;
    # 5,000 images/h → ⌈5,000 / 520.6⌉ = 10 GPUs.
    r = _estimate(
        model={"preset": "flux-1-dev"}, task="image", images_per_hour=5000, image_steps=28,
        gpu="h100-sxm-80gb", deadline_days=None,
    )  # fmt: skip
    inf = r.inference
    assert inf is not None
    per_gpu = 3600 / (28 * FLUX_1024 / (989e12 * 0.51))
    assert inf.images_per_hour_per_gpu == pytest.approx(per_gpu, rel=1e-12)
    assert r.gpu.count == math.ceil(5000 / per_gpu) == 10
    assert inf.meets_images_per_hour is True
    assert inf.images_per_hour == pytest.approx(10 * per_gpu, rel=1e-12)
    assert r.cost is not None and r.cost["months"] == 12  # a service: a year unless told
    count = next(e for e in r.explain if e.figure == "gpu.count")
    assert count.recomputed() == 10


def test_pinned_gpus_are_kept_and_the_warning_says_what_is_missing() -> None:
    r = _estimate(
        model={"preset": "flux-1-dev"}, task="image", images_per_hour=5000, image_steps=28,
        gpu="h100-sxm-80gb", gpu_count=2,
    )  # fmt: skip
    assert r.gpu.count == 2
    assert r.inference is not None and r.inference.meets_images_per_hour is False
    assert any("2 pinned GPUs make 1,041 images/h" in w and "needs 10 GPUs" in w
               for w in r.warnings), r.warnings  # fmt: skip


def test_deadline_and_target_take_the_larger_count() -> None:
    # 1,000,000 SDXL images in 1 day on H100 (0.798 s each): ⌈1e6 × 0.798 / 86,400⌉ = 10.
    secs = 60 * SDXL_1024 / (989e12 * 0.51)
    r = _estimate(model={"preset": "sdxl"}, task="image", images=1_000_000, deadline_days=1,
                  gpu="h100-sxm-80gb", images_per_hour=100)  # fmt: skip
    assert r.gpu.count == math.ceil(1_000_000 * secs / 86_400) == 10


def test_image_figures_carry_the_validation_band() -> None:
    from app.engine import image_validation
    from app.engine.validation import summarise

    r = _estimate(model={"preset": "sdxl"}, task="image")
    s = summarise(image_validation.rows())
    assert s is not None and r.inference is not None and r.inference.uncertainty is not None
    assert r.inference.uncertainty.runs == s.runs
    assert r.inference.uncertainty.median_pct == pytest.approx(s.median_pct, abs=1e-4)


def test_every_image_preset_has_a_denoiser_model() -> None:
    from app.engine.architectures import list_presets

    for m in list_presets():
        if m.kind == "image":
            assert image.denoiser_for(m).stages, m.id


def test_the_requested_precision_sizes_the_weights_not_the_speed() -> None:
    """FLUX.1 [dev] on a 24 GB RTX 4090: the bf16 pipeline (every weight 2 B) does not fit,
    the fp8 one (1 B a weight, memory.WEIGHT_BYTES) does: params × 1 B + 3 GB of
    activations at 1024² + the CUDA context. Speed is the BF16-share figure either way (the
    module docstring: MLPerf's 8-bit SDXL reaches about what BF16 pipelines do)."""
    params = get_preset("flux-1-dev").params

    def on_4090(precision: str):  # type: ignore[no-untyped-def]
        body = {"model": {"preset": "flux-1-dev"}, "task": "image", "precision": precision,
                "gpu": "rtx-4090-24gb"}  # fmt: skip
        return estimate(EstimateRequest.model_validate(body))

    bf16, fp8 = on_4090("bf16"), on_4090("fp8")
    assert bf16.memory_per_gpu_gb.weights == pytest.approx(params * 2 / 1e9)
    assert fp8.memory_per_gpu_gb.weights == pytest.approx(params * 1 / 1e9)
    context = fp8.memory_per_gpu_gb.overhead
    assert fp8.memory_per_gpu_gb.total == pytest.approx(params / 1e9 + 3.0 + context)
    assert fp8.memory_per_gpu_gb.total < 24 < bf16.memory_per_gpu_gb.total
    assert any("does not fit" in w for w in bf16.warnings)
    assert not any("does not fit" in w for w in fp8.warnings)
    assert fp8.inference.seconds_per_image == bf16.inference.seconds_per_image
    (weights,) = [e for e in fp8.explain if e.figure == "memory_gb.weights"]
    assert "× 1 B (fp8)" in weights.formula
