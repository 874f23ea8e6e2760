"""Image-generation plans: a diffusion model making images, as a batch job or a service.

Two questions (issue 12, item 5): how long and how much for `images` images (a batch, priced
by its duration), and how many GPUs serve `images_per_hour` (a service, priced by the month).
Both rest on one figure, the seconds one GPU spends on one image:

    seconds per image = steps × passes × FLOPs per pass / (BF16 peak × IMAGE_SHARE)

- FLOPs per pass are counted from the published architecture (`DENOISERS`): every weight
  applied once per latent token of the stage it works at (2 FLOP per multiply-add), plus
  self-attention 4 × tokens² × width per attention layer (QKᵀ and AV). A 1024² image is a
  128² latent (VAE factor 8); FLUX patchifies it 2×2 into 4,096 tokens (Peebles & Xie 2023,
  "DiT", §3.2) and joins 512 T5 text tokens; SDXL's UNet works at 128², 64² and 32²
  (Podell et al. 2023, "SDXL", §2.1), most of its weights at 32². FLOPs grow with pixels and,
  through attention, faster than pixels at large sizes.
- passes: 2 with classifier-free guidance (SDXL: conditional and unconditional pass), 1 for
  guidance-distilled FLUX.1 [dev]/[schnell] (guidance is an input, one pass a step).
- The VAE decoder and text encoders run once per image; at the step counts measured they are
  ≈1–3% of the FLOPs and are left out (the share absorbs them).
- IMAGE_SHARE, the achievable share of the dense BF16 peak, is one number for every GPU,
  chosen as the median of the shares the `fit` half of app/data/validation/image_runs.yaml
  implies; the `holdout` half checks it (app/engine/image_validation.py). It is taken of the
  BF16 peak even for 8-bit pipelines: the MLPerf SDXL submissions run an INT8/FP8 UNet and
  reach 0.44–0.56 of the BF16 peak (0.22–0.28 of the 8-bit peak), about what compiled BF16
  pipelines reach, so a quantised pipeline is not assumed to be faster.

Images are independent, so GPUs add throughput linearly (MLPerf Offline: 8 GPUs, 8 copies).
Units: FLOP, FLOP/s, seconds, images/hour, bytes for memory, days for the plan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from app.engine import memory
from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation, Operand
from app.engine.formatting import days as fmt_days
from app.engine.formatting import gpus as fmt_gpus
from app.engine.formatting import plural
from app.engine.hardware import GpuSpec
from app.engine.inference import MIG_QUARTER, MIG_QUARTER_MEMORY, mig_quarter
from app.engine.notices import Notice, one_or_many
from app.engine.plan import Plan
from app.engine.schemas import EstimateRequest, InferenceOut, UncertaintyOut
from app.engine.units import GB, fmt

# Activations of one 1024² image: the latent sequence through the denoiser's widest block;
# ≈3 GB at 1024² measured for SDXL/FLUX in diffusers (scaled with pixel count).
ACTIVATIONS_GB_AT_1024 = 3.0
# Median of the shares of BF16 peak implied by the 7 `fit` rows of image_runs.yaml
# (0.445, 0.555, 0.453, 0.511, 0.496, 0.526, 0.772 → 0.511), rounded.
IMAGE_SHARE = 0.51
LATENT_FACTOR = 8  # VAE downsampling of SDXL and FLUX (pixels per latent cell, each side)


@dataclass(frozen=True, slots=True)
class Stage:
    """Weights of a denoiser that work at one token grid.

    params: weights applied at every token of the stage (per-token linear and conv weights;
    cross-attention K/V projections, applied to the 77 text tokens only, are not counted);
    pixels_per_token: image pixels per token side at this stage; attention_layers and width:
    the self-attention layers at this stage and their width; text_tokens: tokens joined to the
    image tokens in the same sequence (FLUX's T5 tokens).
    """

    params: float
    pixels_per_token: int
    attention_layers: int
    width: int
    text_tokens: int = 0

    def tokens(self, resolution: int) -> float:
        return (resolution / self.pixels_per_token) ** 2 + self.text_tokens


@dataclass(frozen=True, slots=True)
class Denoiser:
    passes_per_step: int
    stages: tuple[Stage, ...]
    source: str


DENOISERS: dict[str, Denoiser] = {
    # FLUX.1 transformer (flux1-dev.safetensors, 11,901,408,320 elements): 19 double-stream
    # + 38 single-stream blocks of width 3072 over 4,096 image + 512 T5 tokens at 1024²
    # (latent 128², 2×2 patches: 16 pixels a token). All weights are counted on all tokens,
    # slightly over (the double blocks' text weights only see the 512 text tokens).
    "flux": Denoiser(
        passes_per_step=1,
        stages=(Stage(11_901_408_320, 16, 57, 3072, text_tokens=512),),
        source="FLUX.1 [dev] config: 19 double + 38 single blocks, width 3072, 2×2 patches, "
        "512 T5 tokens; guidance-distilled (one pass a step)",
    ),
    # SDXL UNet (2,567,463,684 elements), counted from its published config
    # (block_out_channels 320/640/1280, transformer_layers_per_block 1/2/10 — the 320 level
    # has no attention —, layers_per_block 2, cross-attention dim 2048): the 60 transformer
    # blocks at 1280 (2 down × 10, mid 10, 3 up × 10; ≈34.8M each) and their ResNets work at
    # 32 pixels a token (a 32² grid at 1024²): 2.39B, less 0.32B of cross-attention K/V →
    # 2.07B; the 640 level (10 blocks, ResNets, 0.155B less 0.026B K/V) at 16; the 320-channel
    # ResNets, conv_in/out (≈0.02B) at 8.
    "sdxl": Denoiser(
        passes_per_step=2,
        stages=(
            Stage(2.07e9, 32, 60, 1280),
            Stage(0.13e9, 16, 10, 640),
            Stage(0.02e9, 8, 0, 0),
        ),
        source="SDXL UNet config (Podell et al. 2023): weights per level counted by hand; "
        "classifier-free guidance (two passes a step)",
    ),
}


def denoiser_for(model: ModelSpec) -> Denoiser:
    """The FLOP model of an image preset's denoiser (by family)."""
    try:
        return DENOISERS[model.family]
    except KeyError:
        raise ValueError(
            f"{model.id}: no denoiser FLOP model for family {model.family!r}"
        ) from None


def flops_per_pass(model: ModelSpec, resolution: int) -> tuple[float, Explanation]:
    """FLOPs of one denoiser pass over a `resolution`² image (see the module docstring)."""
    den = denoiser_for(model)
    ops: list[Operand] = [Operand("resolution", resolution, "px")]
    terms: list[str] = []
    total = 0.0
    for i, st in enumerate(den.stages, 1):
        t = st.tokens(resolution)
        total += 2 * st.params * t + 4 * st.attention_layers * t * t * st.width
        tok = f"((resolution / ppt{i}) ** 2 + text{i})"
        terms.append(f"2 * p{i} * {tok} + 4 * l{i} * {tok} ** 2 * w{i}")
        ops += [
            Operand(f"p{i}", st.params, "params"),
            Operand(f"ppt{i}", st.pixels_per_token, "px/token"),
            Operand(f"text{i}", st.text_tokens, "tokens"),
            Operand(f"l{i}", st.attention_layers, "layers"),
            Operand(f"w{i}", st.width, ""),
        ]
    parts = " + ".join(
        f"2 × {fmt(st.params)} × {fmt(st.tokens(resolution))} tokens"
        + (f" + 4 × {st.attention_layers} × {fmt(st.tokens(resolution))}² × {st.width}"
           if st.attention_layers else "")
        for st in den.stages
    )  # fmt: skip
    return total, Explanation(
        "inference.flops_per_pass",
        total,
        "FLOP",
        f"{parts} = {fmt(total)} FLOP per denoiser pass at {resolution}²",
        den.source,
        operands=ops,
        expression=" + ".join(terms),
    )


def seconds_per_image(
    model: ModelSpec, gpu: GpuSpec, *, resolution: int, steps: int
) -> tuple[float, list[Explanation]]:
    """Seconds one GPU spends on one image: steps × passes × FLOPs per pass / (peak × share)."""
    per_pass, pass_ex = flops_per_pass(model, resolution)
    passes = denoiser_for(model).passes_per_step
    peak = gpu.peak_tflops("bf16") * 1e12
    secs = steps * passes * per_pass / (peak * IMAGE_SHARE)
    return secs, [
        pass_ex,
        Explanation(
            "inference.seconds_per_image",
            secs,
            "s",
            f"{steps} steps × {plural(str(passes), 'pass', 'passes')} × {fmt(per_pass)} FLOP / "
            f"({fmt(peak / 1e12)} TFLOPS BF16 × {IMAGE_SHARE}) = {secs:.3g} s",
            f"share of peak {IMAGE_SHARE}: median of the published runs it was chosen on "
            "(GET /api/v1/validation, kind image); "
            f"{gpu.name} dense BF16 peak (datasheet)",
            operands=[
                Operand("steps", steps, "steps"),
                Operand("passes", passes, "passes/step"),
                Operand("flops_per_pass", per_pass, "FLOP"),
                Operand("peak_flops", peak, "FLOP/s"),
                Operand("share", IMAGE_SHARE, ""),
            ],
            expression="steps * passes * flops_per_pass / (peak_flops * share)",
        ),
    ]


def images_per_hour_per_gpu(
    model: ModelSpec, gpu: GpuSpec, *, resolution: int, steps: int
) -> float:
    """Images one GPU makes in an hour (3,600 s / seconds per image)."""
    secs, _ = seconds_per_image(model, gpu, resolution=resolution, steps=steps)
    return 3600.0 / secs


@cache
def uncertainty() -> UncertaintyOut | None:
    """The image validation table's median |error| (all rows), from bands.json."""
    from app.engine.bands import image_band

    return image_band()


def _memory(
    model: ModelSpec, precision: str, resolution: int, explain: list[Explanation]
) -> memory.Memory:
    """One pipeline's GPU memory (bytes): every component's weights at `precision` (the
    published checkpoints are bf16; fp8, int8 and int4 are the quantised ones that let a
    12B-class transformer fit a 24 GB card), the activations at `resolution`, the CUDA
    context. Speed does not change with it (module docstring)."""
    b = memory.WEIGHT_BYTES[precision]
    w = model.params * b
    scale = (resolution / 1024) ** 2
    act = ACTIVATIONS_GB_AT_1024 * GB * scale
    over = memory.CUDA_CONTEXT_GB * GB
    per = memory.Memory(weights=w, activations=act, overhead=over)
    explain.append(
        Explanation(
            "memory_gb.weights",
            w / GB,
            "GB",
            f"{fmt(model.params)} params (denoiser, text encoders, VAE) × {fmt(b, 4)} B "
            f"({precision}) = {fmt(w / GB)} GB",
            "parameter counts of the published checkpoints (model source); bytes per "
            "weight at the requested precision (memory.WEIGHT_BYTES)",
            operands=[Operand("params", model.params, "params"), Operand("bytes", b, "B")],
            expression="params * bytes / 1e9",
        )
    )
    explain.append(
        Explanation(
            "memory_gb.activations",
            act / GB,
            "GB",
            f"{ACTIVATIONS_GB_AT_1024:g} GB at 1024² × ({resolution} / 1024)² = {fmt(act / GB)} GB",
            "≈3 GB for one 1024² image measured for SDXL and FLUX in diffusers; grows with "
            "the pixel count",
            operands=[
                Operand("at_1024", ACTIVATIONS_GB_AT_1024, "GB"),
                Operand("resolution", resolution, "px"),
            ],
            expression="at_1024 * (resolution / 1024) ** 2",
        )
    )
    explain.append(
        Explanation(
            "memory_gb.per_gpu",
            per.total / GB,
            "GB",
            f"weights {fmt(w / GB)} + activations {fmt(act / GB)} + CUDA context "
            f"{fmt(over / GB)} = {fmt(per.total / GB)} GB (one pipeline per GPU)",
            memory.SOURCE_OVERHEAD,
            operands=[
                Operand("weights", w / GB, "GB"),
                Operand("activations", act / GB, "GB"),
                Operand("overhead", over / GB, "GB"),
            ],
            expression="weights + activations + overhead",
        )
    )
    return per


def plan_image(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    warnings: list[str],
    explain: list[Explanation],
    *,
    slice_rented: bool = True,
) -> Plan:
    """Size image generation on `gpu`: one pipeline per GPU, as many GPUs as the target
    images/hour and the deadline need (a pinned `gpu_count` is kept as it is); a service one
    GPU would serve runs on a quarter-GPU MIG slice when one holds the pipeline and makes the
    target (`_mig_quarter`; `slice_rented`: the price list rents this GPU as a slice, or no
    list prices the plan)."""
    per = _memory(model, req.precision, req.image_resolution, explain)
    secs, sx = seconds_per_image(model, gpu, resolution=req.image_resolution, steps=req.image_steps)
    gpus, count_ex = _gpu_count(req, secs, 3600.0 / secs)
    fraction = None
    mig = _mig_quarter(req, model, gpu, per) if slice_rented and gpus == 1 else None
    if mig is not None:
        fraction, secs, sx, fraction_ex = MIG_QUARTER, *mig
    explain.extend(sx)
    per_gpu = 3600.0 / secs
    unit = "on one MIG 1/4 slice" if fraction else "per GPU"
    explain.append(
        Explanation(
            "inference.images_per_hour_per_gpu",
            per_gpu,
            "images/h",
            f"3,600 s / {secs:.3g} s = {fmt(per_gpu)} images/h {unit}",
            "one pipeline per GPU, images independent",
            operands=[Operand("seconds_per_image", secs, "s")],
            expression="3600 / seconds_per_image",
        )
    )
    explain.append(count_ex)
    if mig is not None:
        explain.append(fraction_ex)
    meets = None
    if req.images_per_hour is not None:
        meets = per_gpu * gpus >= req.images_per_hour * (1 - 1e-9)
        if not meets:
            warnings.append(
                Notice(
                    one_or_many(
                        gpus,
                        "%(gpus)s pinned GPU makes %(have)s images/h; %(target)s images/h "
                        "needs %(need)s GPUs.",
                        "%(gpus)s pinned GPUs make %(have)s images/h; %(target)s images/h "
                        "needs %(need)s GPUs.",
                    ),
                    gpus=gpus,
                    have=fmt(per_gpu * gpus),
                    target=fmt(req.images_per_hour),
                    need=math.ceil(req.images_per_hour / per_gpu),
                )
            )
    fits = per.total <= gpu.memory_gb * GB
    if not fits:
        warnings.append(
            Notice(
                "%(model)s needs %(need)s GB and does not fit one %(gpu)s: the figures shown "
                "overflow memory; the plan cannot run as shown and is not priced. Use a larger "
                "GPU, or a lower precision.",
                model=model.name,
                need=fmt(per.total / GB),
                gpu=gpu.name,
            )
        )
    total = per_gpu * gpus
    hours = req.images * secs / gpus / 3600
    on = "one MIG 1/4 slice" if fraction else fmt_gpus(str(gpus))
    explain.append(
        Explanation(
            "inference.images_per_hour",
            total,
            "images/h",
            f"{fmt(per_gpu)} images/h × {on} = {fmt(total)} images/h",
            "images are independent: GPUs add throughput linearly",
            operands=[Operand("per_gpu", per_gpu, "images/h"), Operand("gpus", gpus, "GPUs")],
            expression="per_gpu * gpus",
        )
    )
    explain.append(
        Explanation(
            "inference.batch_hours",
            hours,
            "h",
            f"{req.images:,} images × {secs:.3g} s / {on} / 3,600 = {fmt(hours)} h",
            "the batch's duration, which a job is priced by",
            operands=[
                Operand("images", req.images, "images"),
                Operand("seconds_per_image", secs, "s"),
                Operand("gpus", gpus, "GPUs"),
            ],
            expression="images * seconds_per_image / gpus / 3600",
        )
    )
    inf = InferenceOut(
        max_concurrency=gpus,
        tokens_per_s=0.0,
        tokens_per_s_per_user=0.0,
        time_to_first_token_s=secs,
        cost_per_million_tokens=None,
        replicas=gpus,
        images_per_hour=total,
        images_per_hour_per_gpu=per_gpu,
        seconds_per_image=secs,
        batch_hours=hours,
        meets_images_per_hour=meets,
        fits=fits,
        uncertainty=uncertainty(),
    )
    return Plan(
        gpu=gpu,
        count=gpus,
        fraction=fraction,
        layout=memory.Layout(dp=gpus, recompute="none"),
        replica=per,
        per_gpu=per,
        interconnect="pcie",
        trainable=0,
        global_batch=1,
        training=None,
        inference=inf,
        days=hours / 24,
    )


def _mig_quarter(
    req: EstimateRequest, model: ModelSpec, gpu: GpuSpec, per: memory.Memory
) -> tuple[float, list[Explanation], Explanation] | None:
    """(seconds per image, their explanations, the slice's) on a quarter-GPU MIG slice, for a
    service (a target images/hour) that one GPU would serve, when the slice holds the pipeline
    and makes the target (and the batch in its deadline); None otherwise.

    Seed 003 T8 rents "H100 MIG 1/4" at NT$15,000 a month beside NT$50,000 for the whole GPU;
    a slice has 2/7 of the compute (NVIDIA MIG user guide, H100 2g.20gb) and a quarter of the
    memory, and the steps are compute-bound, so it makes 2/7 of the GPU's images. QA: an SDXL
    service of 500 images/h (11.3 GB) was quoted a whole H100 making 4,509 an hour, while a
    slice makes ≈1,290 for less than a third of the rent. A pinned GPU count, or a batch with
    no target rate (priced by its duration, where a whole GPU finishes sooner), stays whole."""
    target = req.images_per_hour
    if target is None or req.gpu_count or not gpu.mig_max:
        return None
    part = mig_quarter(gpu)
    secs, sx = seconds_per_image(
        model, part, resolution=req.image_resolution, steps=req.image_steps
    )
    per_slice = 3600.0 / secs
    holds = per.total <= part.memory_gb * GB
    in_time = not req.deadline_days or req.images * secs <= req.deadline_days * 86400
    if not (holds and in_time and per_slice >= target * (1 - 1e-9)):
        return None
    sx[-1].source += "; a MIG 1/4 slice has 2/7 of it (NVIDIA MIG user guide, H100 2g.20gb)"
    ex = Explanation(
        "gpu.fraction",
        MIG_QUARTER,
        "GPU",
        f"one {fmt(part.memory_gb)} GB slice (a quarter of the memory, 2/7 of the compute) holds "
        f"the {fmt(per.total / GB)} GB pipeline and makes {fmt(per_slice)} images/h ≥ "
        f"{fmt(target)} images/h",
        "T8: H100 MIG 1/4 slice NT$15,000/month; NVIDIA MIG user guide (H100 2g.20gb)",
        operands=[
            Operand("slice_memory", MIG_QUARTER_MEMORY, "of the GPU's memory"),
            Operand("per_slice", per_slice, "images/h"),
            Operand("target", target, "images/h"),
        ],
        expression="slice_memory if per_slice >= target else 1",
    )
    return secs, sx, ex


def _gpu_count(req: EstimateRequest, secs: float, per_gpu: float) -> tuple[int, Explanation]:
    """GPUs: the pin, else the most of 1, the target images/hour and the deadline need."""
    if req.gpu_count:
        return req.gpu_count, Explanation(
            "gpu.count",
            req.gpu_count,
            "GPUs",
            f"{fmt_gpus(str(req.gpu_count))}, as pinned",
            "request",
            operands=[Operand("pinned", req.gpu_count, "GPUs")],
            expression="pinned",
        )
    ops = [Operand("one", 1, "GPUs")]
    terms = ["one"]
    text = ["1"]
    if req.images_per_hour is not None:
        ops += [
            Operand("target", req.images_per_hour, "images/h"),
            Operand("per_gpu", per_gpu, "images/h"),
        ]
        terms.append("ceil(target / per_gpu)")
        text.append(f"⌈{fmt(req.images_per_hour)} / {fmt(per_gpu)}⌉")
    if req.deadline_days:
        ops += [
            Operand("images", req.images, "images"),
            Operand("seconds_per_image", secs, "s"),
            Operand("deadline_s", req.deadline_days * 86400, "s"),
        ]
        terms.append("ceil(images * seconds_per_image / deadline_s)")
        text.append(f"⌈{req.images:,} × {secs:.3g} s / {fmt_days(req.deadline_days)}⌉")
    vals = [1]
    if req.images_per_hour is not None:
        vals.append(math.ceil(req.images_per_hour / per_gpu))
    if req.deadline_days:
        vals.append(math.ceil(req.images * secs / (req.deadline_days * 86400)))
    gpus = max(vals)
    expr = terms[0] if len(terms) == 1 else f"max({', '.join(terms)})"
    return gpus, Explanation(
        "gpu.count",
        gpus,
        "GPUs",
        f"max({', '.join(text)}) = {fmt_gpus(str(gpus))}",
        "target images/hour and deadline over one GPU's rate",
        operands=ops,
        expression=expr,
    )
