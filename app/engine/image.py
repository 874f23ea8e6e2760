"""Image-generation plans: a diffusion model making `images` images (PRODUCT.md §5).

Sampling is compute-bound: seconds per image come from `inference.image_seconds_per_image`
(denoiser FLOPs per step × steps / dense peak), and the GPU count is what finishes the batch
by the deadline. Units: memory in bytes, time in seconds per image and days for the batch.
"""

from __future__ import annotations

import math

from app.engine import inference, memory
from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation, operands
from app.engine.hardware import GpuSpec
from app.engine.notices import Notice
from app.engine.plan import Plan
from app.engine.schemas import EstimateRequest, InferenceOut
from app.engine.units import GB, fmt

# Activations of one 1024² image: the latent sequence through the denoiser's widest block;
# ≈3 GB at 1024² measured for SDXL/FLUX in diffusers (scaled with pixel count).
ACTIVATIONS_GB_AT_1024 = 3.0


def plan_image(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    warnings: list[str],
    explain: list[Explanation],
) -> Plan:
    """Size image generation on `gpu`: one pipeline per GPU, as many GPUs as the deadline needs."""
    w = model.params * 2.0  # diffusion pipelines serve in bf16
    act = ACTIVATIONS_GB_AT_1024 * GB * (req.image_resolution / 1024) ** 2
    over = memory.CUDA_CONTEXT_GB * GB
    per = memory.Memory(weights=w, activations=act, overhead=over)
    secs, sx = inference.image_seconds_per_image(
        model, gpu, resolution=req.image_resolution, steps=req.image_steps, precision="bf16"
    )
    explain.append(sx)
    gpus = 1
    if req.deadline_days:
        gpus = max(1, math.ceil(req.images * secs / (req.deadline_days * 86400)))
    if req.gpu_count:
        gpus = req.gpu_count
    days = req.images * secs / gpus / 86400
    if per.total > gpu.memory_gb * GB:
        warnings.append(
            Notice(
                "%(model)s needs %(need)s GB and does not fit one %(gpu)s; use CPU offload or "
                "a larger GPU.",
                model=model.name,
                need=fmt(per.total / GB),
                gpu=gpu.name,
            )
        )
    per_hour, per_hour_ex = _images_per_hour(req, secs, gpus, days)
    inf = InferenceOut(
        max_concurrency=gpus,
        tokens_per_s=0.0,
        tokens_per_s_per_user=0.0,
        time_to_first_token_s=secs,
        cost_per_million_tokens=None,
        replicas=gpus,
        images_per_hour=per_hour,
    )
    explain.append(per_hour_ex)
    return Plan(
        gpu=gpu,
        count=gpus,
        fraction=None,
        layout=memory.Layout(dp=gpus, recompute="none"),
        replica=per,
        per_gpu=per,
        interconnect="pcie",
        trainable=0,
        global_batch=1,
        training=None,
        inference=inf,
        days=days,
    )


def _images_per_hour(
    req: EstimateRequest, secs: float, gpus: int, days: float
) -> tuple[float, Explanation]:
    """Images per hour = 3,600 s / seconds per image × GPUs."""
    per_hour = 3600 / secs * gpus
    return per_hour, Explanation(
        "inference.images_per_hour",
        per_hour,
        "images/h",
        f"3,600 s / {secs:.2f} s × {gpus} GPU(s) = {fmt(per_hour)} images/h; "
        f"{req.images:,} images take {fmt(days)} days",
        "compute-bound diffusion sampling",
        operands(seconds_per_image=(secs, "s"), gpus=(gpus, "GPUs")),
        "3600 / seconds_per_image * gpus",
    )
