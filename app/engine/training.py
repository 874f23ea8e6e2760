"""Training plans: pre-training, full fine-tuning, LoRA and QLoRA (PRODUCT.md §5).

Steps, in order: the token budget (`training_tokens`), the planner's job (`training_job`),
the search for a GPU count (`planner.plan_training`), then the figures of the chosen count:
FLOPs and days (`compute`), memory per GPU (`memory`), the deadline and the scaling curve.
Each figure's `Explanation` is built beside the arithmetic it shows.

Units: tokens and FLOPs as plain counts, memory in bytes (GB = 1e9 B in explanations), time
in days of 86,400 s. Sources: Hoffmann et al. 2022 (20 tokens per parameter), Llama 2 §2.2
(4M-token batches), Narayanan et al. 2021 (TP and pipeline bubble), Korthikanti et al. 2022
(activations), ZeRO (Rajbhandari et al. 2020), Llama 3 §3.3.4 (goodput).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from app.engine import compute, memory, notices, planner
from app.engine.architectures import ModelSpec
from app.engine.bands import training_bands
from app.engine.explain import Explanation, Operand
from app.engine.formatting import days as fmt_days
from app.engine.formatting import gpus as fmt_gpus
from app.engine.hardware import GpuSpec
from app.engine.notices import Notice, one_or_many
from app.engine.plan import Plan
from app.engine.schemas import (
    CandidateOut,
    CurvePoint,
    EstimateRequest,
    TrainingOut,
    Uncertainty,
)
from app.engine.units import GB, fmt

BYTES_PER_TOKEN = 4.0  # ≈4 characters of English text per BPE token (OpenAI tokenizer guide)
CHINCHILLA_TOKENS_PER_PARAM = 20.0  # Hoffmann et al. 2022: compute-optimal D ≈ 20 N
DEFAULT_FINETUNE_TOKENS = 1e8
PRETRAIN_BATCH_TOKENS = 4e6  # Llama 2 §2.2: global batch of 4M tokens
# Compute-optimal batch of a pre-training run, in tokens: B_opt = 0.2920 · C^0.3271 with C the
# training compute in FLOPs (DeepSeek LLM, Bi et al. 2024, arXiv:2401.02954 §3.1, eq. 1,
# fitted on IsoFLOP runs from 1e17 to 2e19 FLOPs; its Fig. 3 shows a wide near-optimal band
# around it). At 3.8e25 FLOPs it gives 68M tokens, beside DeepSeek-V3's 63M (15,360 × 4K
# sequences, §4.2) and Llama 3 405B's 16M (§3.4.1).
BATCH_OPT_COEFF = 0.2920
BATCH_OPT_EXPONENT = 0.3271
FINETUNE_GLOBAL_BATCH = 64  # sequences per step, a common SFT/LoRA recipe


def plan_training(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    pool: Sequence[GpuSpec],
    warnings: list[str],
    explain: list[Explanation],
    candidates: list[CandidateOut],
) -> Plan:
    """Size a training job on `gpu`; when nothing is pinned, also on every GPU of `pool`."""
    tokens = training_tokens(req, model, warnings)
    if req.precision == "fp32" and gpu.fp32_tflops and gpu.fp32_tflops < gpu.peak_tflops("fp32"):
        warnings.append(
            Notice(
                "FP32 training is sized with TF32 tensor-core matmuls (%(tf32)s TFLOPS on "
                "%(gpu)s); PyTorch leaves them off unless torch.backends.cuda.matmul."
                "allow_tf32 is set. Without them matmuls run at the FP32 peak of %(fp32)s "
                "TFLOPS, about %(times)s× slower.",
                tf32=fmt(gpu.peak_tflops("fp32")),
                gpu=gpu.name,
                fp32=fmt(gpu.fp32_tflops),
                times=fmt(gpu.peak_tflops("fp32") / gpu.fp32_tflops),
            )
        )
    job, states, trainable = training_job(req, model, tokens)
    explain.extend(states.explain)
    pins = planner.Pins(
        mfu=req.mfu,
        tp=req.tp,
        pp=req.pp,
        zero=req.zero_stage,
        recompute=req.recompute,
        goodput=req.goodput,
    )
    chosen, minimum = planner.plan_training(
        job, gpu, deadline_days=req.deadline_days, gpu_count=req.gpu_count, pins=pins
    )
    if req.gpu is None and req.gpu_count is None:
        candidates.extend(_other_gpus(req, job, gpu, pool, pins, chosen, minimum))
    fits = chosen is not None
    if chosen is None:
        chosen = _overflowing_candidate(req, model, job, gpu, pool, pins, warnings)
    else:
        explain.append(_gpu_count_explained(req, gpu, chosen, minimum, pins))
    flops, flops_ex = compute.training_flops(
        model, tokens=tokens, seq_len=req.seq_len, task=req.task
    )
    explain.append(flops_ex)
    explain.append(_mfu_explained(req, model, gpu, chosen))
    explain.append(_goodput_explained(req, chosen))
    explain.append(_training_days_explained(req, gpu, chosen, flops))
    explain.append(_gpu_hours_explained(chosen))
    replica, per_gpu = _memory(req, model, job, states, chosen, explain)
    # A plan that overflows memory cannot run, so it meets no deadline however fast its
    # figures look (its own warning says why and what would fit).
    meets = (
        _meets_deadline(req, gpu, chosen, warnings)
        if fits
        else (None if req.deadline_days is None else False)
    )
    band, memory_band = training_bands(task=req.task, gpu=gpu.id, moe=model.experts > 1)
    margin = (
        _deadline_margin(req, gpu, job, pins, chosen, band, warnings)
        if meets and band is not None
        else None
    )
    training = TrainingOut(
        deadline_margin=margin,
        uncertainty=band,
        memory_uncertainty=memory_band,
        curve=scaling_curve(job, gpu, chosen.count, pins),
        flops=flops,
        tokens=tokens,
        gpu_hours=chosen.gpu_hours,
        days=chosen.days,
        mfu=chosen.mfu,
        goodput=chosen.goodput,
        tokens_per_s=tokens / (chosen.days * 86400) if chosen.days > 0 else 0.0,
        meets_deadline=meets,
        fits=fits,
    )
    return Plan(
        gpu=gpu,
        count=chosen.count,
        fraction=None,
        layout=chosen.layout,
        replica=replica,
        per_gpu=per_gpu,
        interconnect=chosen.interconnect,
        trainable=trainable,
        global_batch=_running_batch(req, job, chosen, warnings),
        training=training,
        inference=None,
        days=chosen.days,
    )


# ------------------------------------------------------------------------- the workload


def training_tokens(req: EstimateRequest, model: ModelSpec, warnings: list[str]) -> float:
    """Tokens to train on: given, else dataset bytes / 4 × epochs, else an assumed budget."""
    if req.tokens is not None and req.tokens > 0:
        if req.dataset_gb > 0:
            _check_tokens_against_data(req, warnings)
        return req.tokens
    if req.dataset_gb > 0:
        per_epoch = req.dataset_gb * 1e9 / BYTES_PER_TOKEN
        return per_epoch * (req.epochs or 1.0)
    if req.epochs is not None:
        # Epochs count passes over a dataset: without its size they count nothing, and the
        # assumed budget below is what is planned (QA: epochs 3 alone, without a word).
        warnings.append(
            Notice(
                one_or_many(
                    fmt(req.epochs),
                    "%(epochs)s epoch given without a dataset size: it counts nothing; give "
                    "dataset_gb (GB of training text) or tokens.",
                    "%(epochs)s epochs given without a dataset size: they count nothing; give "
                    "dataset_gb (GB of training text) or tokens.",
                ),
                epochs=fmt(req.epochs),
            )
        )
    if req.task == "pretrain":
        t = CHINCHILLA_TOKENS_PER_PARAM * model.params
        warnings.append(
            Notice(
                "No tokens given: assumed the compute-optimal %(tokens)s tokens (20 per "
                "parameter, Hoffmann et al. 2022).",
                tokens=fmt(t),
            )
        )
        return t
    warnings.append(
        Notice(
            "No tokens or dataset given (a dataset of 0 GB counts as none): assumed "
            "%(tokens)s fine-tuning tokens. Give the tokens, or the dataset's size, to plan "
            "the job you mean.",
            tokens=fmt(DEFAULT_FINETUNE_TOKENS),
        )
    )
    return DEFAULT_FINETUNE_TOKENS


def _check_tokens_against_data(req: EstimateRequest, warnings: list[str]) -> None:
    """Given tokens set the training time; a dataset size given as well sizes the storage and
    the upload. When the two disagree by more than 2× (tokens ÷ (dataset at 4 B/token) against
    the epochs, 1 if none), one of them is wrong, and the plan says which figures each drives
    (the planner form carries a 5 GB default next to any tokens typed)."""
    per_epoch = req.dataset_gb * 1e9 / BYTES_PER_TOKEN
    passes = req.tokens / per_epoch if req.tokens else 0.0
    epochs = req.epochs or 1.0
    if passes > 2 * epochs or passes < epochs / 2:
        warnings.append(
            Notice(
                one_or_many(
                    fmt(passes),
                    "%(tokens)s training tokens read %(gb)s GB of data (%(per_epoch)s tokens "
                    "at 4 bytes a token) %(passes)s time, where the epochs say %(epochs)s: the "
                    "training time is for the tokens, while storage and upload are sized for "
                    "%(gb)s GB. Correct whichever is wrong.",
                    "%(tokens)s training tokens read %(gb)s GB of data (%(per_epoch)s tokens at "
                    "4 bytes a token) %(passes)s times, where the epochs say %(epochs)s: the "
                    "training time is for the tokens, while storage and upload are sized for "
                    "%(gb)s GB. Correct whichever is wrong.",
                ),
                tokens=fmt(req.tokens or 0.0),
                passes=fmt(passes),
                gb=fmt(req.dataset_gb),
                per_epoch=fmt(per_epoch),
                epochs=fmt(epochs),
            )
        )


def global_batch(req: EstimateRequest) -> int:
    """Sequences per step: given, else 4M tokens (pre-training) or 64 sequences (fine-tuning)."""
    if req.global_batch:
        return req.global_batch
    if req.task == "pretrain":
        return max(req.micro_batch, round(PRETRAIN_BATCH_TOKENS / req.seq_len))
    return max(req.micro_batch, FINETUNE_GLOBAL_BATCH)


def compute_optimal_batch_tokens(flops: float) -> float:
    """B_opt = 0.2920 · C^0.3271 tokens for a pre-training run of C FLOPs (DeepSeek LLM §3.1)."""
    return BATCH_OPT_COEFF * flops**BATCH_OPT_EXPONENT


def growth_limit(task: str, seq_len: int, batch: int, flops: float) -> int:
    """Sequences one step may run before the planner counts a layout as growing an unpinned
    batch of `batch` sequences too far: for pre-training the larger of that batch and the
    compute-optimal batch of `flops`; 0 (no limit: the batch grows with the data-parallel
    width, with a notice) for fine-tuning, where the law was not measured. (A pinned batch
    is its own limit: `planner.TrainingJob`.)"""
    if task != "pretrain":
        return 0
    return max(batch, int(compute_optimal_batch_tokens(flops) // seq_len))


def training_job(
    req: EstimateRequest, model: ModelSpec, tokens: float
) -> tuple[planner.TrainingJob, memory.Memory, int]:
    """(the planner's job, one replica's model states in bytes, trainable parameters)."""
    states, trainable = memory.model_states(
        model,
        task=req.task,
        precision=req.precision,
        optimizer=req.optimizer,
        lora_rank=req.lora_rank,
        lora_targets=req.lora_targets,
    )
    flops = compute.training_flops_value(model, tokens=tokens, seq_len=req.seq_len, task=req.task)
    job = planner.TrainingJob(
        model=model,
        task=req.task,
        precision=req.precision,
        seq_len=req.seq_len,
        micro_batch=req.micro_batch,
        global_batch=global_batch(req),
        flash=req.flash_attention,
        weights=states.weights,
        gradients=states.gradients,
        optimizer=states.optimizer,
        base_flops=flops,
        interconnect=req.interconnect,
        batch_pinned=req.global_batch is not None,
        batch_limit=0
        if req.global_batch
        else growth_limit(req.task, req.seq_len, global_batch(req), flops),
    )
    return job, states, trainable


def _running_batch(
    req: EstimateRequest,
    job: planner.TrainingJob,
    chosen: planner.Candidate,
    warnings: list[str],
) -> int:
    """Sequences each optimizer step actually runs: dp × micro-batch × accumulation steps
    (what the parallelism block multiplies out to), with a notice when that is not the
    batch asked for: a pinned batch that dp × micro-batch does not divide is rounded up to
    whole micro-batches, and a default batch grows when the data-parallel width exceeds it."""
    lay = chosen.layout
    steps = planner.micro_batches(job, lay.dp, lay.pp)
    running = lay.dp * lay.micro_batch * steps
    if running == job.global_batch:
        return running
    params = {
        "running": f"{running:,}",
        "tokens": fmt(running * req.seq_len),
        "asked": f"{job.global_batch:,}",
        "dp": f"{lay.dp:,}",
        "micro": lay.micro_batch,
        "steps": steps,
    }
    if job.batch_pinned:
        warnings.append(
            Notice(
                one_or_many(
                    steps,
                    "The global batch of %(asked)s sequences is not a multiple of data-parallel "
                    "%(dp)s × micro-batch %(micro)s: each step runs %(running)s sequences "
                    "(%(steps)s accumulation step, %(tokens)s tokens), and the figures are for "
                    "that batch.",
                    "The global batch of %(asked)s sequences is not a multiple of data-parallel "
                    "%(dp)s × micro-batch %(micro)s: each step runs %(running)s sequences "
                    "(%(steps)s accumulation steps, %(tokens)s tokens), and the figures are for "
                    "that batch.",
                ),
                **params,
            )
        )
    elif running >= 2 * job.global_batch and not job.batch_limit:
        warnings.append(
            Notice(
                "Each step runs %(running)s sequences (%(tokens)s tokens), not the default "
                "%(asked)s: data-parallel %(dp)s × micro-batch %(micro)s. A batch this large "
                "may need more tokens to reach the same loss; pin global_batch (with tp or "
                "pp) to keep it.",
                **params,
            )
        )
    elif lay.pp > 1 and steps > planner.micro_batches(job, lay.dp):
        # The pipeline filled to the compute-optimal batch (planner.micro_batches).
        params["optimal"] = fmt(compute_optimal_batch_tokens(job.base_flops))
        params["flops"] = fmt(job.base_flops)
        params["pp"] = lay.pp
        warnings.append(
            Notice(
                "Each step runs %(running)s sequences (%(tokens)s tokens), not the default "
                "%(asked)s: %(steps)s micro-batches of %(micro)s on each of %(dp)s "
                "data-parallel pipelines keep the %(pp)s-stage pipeline's bubble small. That "
                "is within the compute-optimal batch of %(optimal)s tokens for %(flops)s FLOP "
                "(DeepSeek LLM 2024: 0.292 · C^0.3271); pin global_batch to keep the default.",
                **params,
            )
        )
    elif running >= 2 * job.global_batch:
        params["optimal"] = fmt(compute_optimal_batch_tokens(job.base_flops))
        params["flops"] = fmt(job.base_flops)
        warnings.append(
            Notice(
                "Each step runs %(running)s sequences (%(tokens)s tokens), not the default "
                "%(asked)s: data-parallel %(dp)s × micro-batch %(micro)s. That is within the "
                "compute-optimal batch of %(optimal)s tokens for %(flops)s FLOP (DeepSeek LLM "
                "2024: 0.292 · C^0.3271); pin global_batch (with tp or pp) to keep the default.",
                **params,
            )
            if running <= job.batch_limit
            else Notice(
                "Each step runs %(running)s sequences (%(tokens)s tokens), past the "
                "compute-optimal batch of %(optimal)s tokens for %(flops)s FLOP (DeepSeek LLM "
                "2024: 0.292 · C^0.3271): no layout that keeps the batch within it fits in "
                "memory. A batch this large may need more tokens to reach the same loss.",
                **params,
            )
        )
    return running


# ------------------------------------------------------------------------- the GPU count


def _other_gpus(
    req: EstimateRequest,
    job: planner.TrainingJob,
    gpu: GpuSpec,
    pool: Sequence[GpuSpec],
    pins: planner.Pins,
    chosen: planner.Candidate | None,
    minimum: planner.Candidate | None,
) -> list[CandidateOut]:
    """The same job planned on every GPU of `pool` (the chosen GPU's plan reused)."""
    out: list[CandidateOut] = []
    for other in pool:
        if req.precision == "fp8" and not other.fp8_tflops:
            out.append(
                CandidateOut(
                    gpu=other.id, count=0, feasible=False, days=None, per_gpu_gb=None,
                    reason="no FP8 tensor cores",
                )
            )  # fmt: skip
            continue
        c, _ = (
            (chosen, minimum)
            if other.id == gpu.id
            else planner.plan_training(job, other, deadline_days=req.deadline_days, pins=pins)
        )
        out.append(
            CandidateOut(
                gpu=other.id,
                count=c.count if c else 0,
                feasible=c is not None,
                days=c.days if c else None,
                per_gpu_gb=c.per_gpu_bytes / GB if c else None,
                reason="" if c else f"does not fit on {planner.MAX_SEARCH_GPUS:,} GPUs",
            )
        )
    return out


def _gpu_count_explained(
    req: EstimateRequest,
    gpu: GpuSpec,
    chosen: planner.Candidate,
    minimum: planner.Candidate | None,
    pins: planner.Pins,
) -> Explanation:
    """Why this count: pinned, the smallest that fits, or the smallest that meets the deadline
    (one node fewer misses it, or one pinned tp × pp replica's worth of nodes fewer)."""
    ops = [Operand("gpus", chosen.count, "GPUs")]
    if req.gpu_count:
        why = f"pinned by the request: {fmt_gpus(chosen.count)}"
        src = "input"
    elif minimum is not None and chosen.count > minimum.count:
        gpn = gpu.gpus_per_node
        step = planner.count_step(gpn, pins) if chosen.count > gpn else 1
        why = (
            f"minimum that fits: {fmt_gpus(minimum.count)} ({fmt_days(minimum.days)}); the "
            f"smallest count meeting the deadline of {fmt_days(req.deadline_days or 0)} is "
            f"{fmt_gpus(chosen.count)} ({fmt_days(chosen.days)}; "
            f"{fmt_gpus(chosen.count - step)} would miss it)"
        )
        src = "planner: smallest feasible count, then the smallest that meets the deadline"
    else:
        why = (
            f"smallest count whose most-loaded GPU fits: {fmt(chosen.per_gpu_bytes / GB)} GB"
            f" ≤ {fmt(gpu.memory_gb)} GB × {planner.HEADROOM}"
        )
        src = "planner: smallest feasible configuration"
    return Explanation("gpu.count", chosen.count, "GPUs", why, src, ops, "gpus")


def _overflowing_candidate(
    req: EstimateRequest,
    model: ModelSpec,
    job: planner.TrainingJob,
    gpu: GpuSpec,
    pool: Sequence[GpuSpec],
    pins: planner.Pins,
    warnings: list[str],
) -> planner.Candidate:
    """What to show when nothing fits: the most frugal layout the pins allow (at the pinned
    count, else at the smallest count past which more GPUs no longer lower the memory per
    GPU), a warning saying so, and what would fit instead."""
    count = req.gpu_count or _frugal_count(job, gpu, pins)
    chosen = infeasible_candidate(job, gpu, pins, count=count)
    lay = chosen.layout
    params = {
        "model": model.name,
        "task_term": notices.term(req.task),
        "memory": fmt(gpu.memory_gb),
        "need": fmt(chosen.per_gpu_bytes / GB),
        "usable": fmt(gpu.memory_gb * planner.HEADROOM),
        "count": f"{chosen.count:,}",
        "gpu": gpu.name,
        "zero": lay.zero_stage,
        "recompute_term": notices.term(lay.recompute),
        "tp": lay.tp,
        "pp": lay.pp,
    }
    if req.gpu_count:
        why = (
            "%(model)s, %(task_term)s, does not fit in %(memory)s GB per GPU on %(count)s × "
            "%(gpu)s with any layout the pins allow (ZeRO-%(zero)s, %(recompute_term)s, "
            "TP %(tp)s, PP %(pp)s): the most-loaded GPU needs %(need)s GB of the %(usable)s GB "
            "usable. The figures shown overflow memory; the plan cannot run as shown and is "
            "not priced."
        )
    else:
        why = (
            "No number of %(gpu)s holds %(model)s, %(task_term)s, with the layout the pins "
            "allow: from %(count)s GPUs on (ZeRO-%(zero)s, %(recompute_term)s, TP %(tp)s, PP "
            "%(pp)s), more GPUs no longer lower the most-loaded GPU's %(need)s GB to the "
            "%(usable)s GB usable of %(memory)s GB. The figures shown overflow memory; the "
            "plan cannot run as shown and is not priced."
        )
    warnings.append(Notice(why, **params))
    would = _what_would_fit(req, job, gpu, pool, pins)
    if would is not None:
        warnings.append(would)
    return chosen


def _frugal_count(job: planner.TrainingJob, gpu: GpuSpec, pins: planner.Pins) -> int:
    """The smallest count (a pinned tp × pp replica, or one GPU, doubled: 1, 2, 4 … GPUs,
    whole nodes and whole replicas past one node) whose most frugal layout needs no more than
    1% over the least memory per GPU any count up to the search's limit reaches: past it,
    sharding has nothing left to split (activations, a pinned layout)."""
    gpn, replica = gpu.gpus_per_node, (pins.tp or 1) * (pins.pp or 1)
    counts = [c for c in _doublings(replica) if c <= gpn]
    counts += [c for c in _doublings(planner.count_step(gpn, pins)) if c > gpn]
    if job.batch_pinned:
        # A pinned batch is kept: no count whose data-parallel ranks outnumber its
        # micro-batches (a batch of 2 was shown on 8,192 GPUs running 8,192 sequences).
        kept = [
            c
            for c in counts
            if planner.fewest_data_ranks(job.model, gpu, c, pins)[0] * job.micro_batch
            <= job.global_batch
        ]
        counts = kept or counts[:1]
    memory_at = {n: infeasible_candidate(job, gpu, pins, count=n).per_gpu_bytes for n in counts}
    least = min(memory_at.values())
    return next(n for n in counts if memory_at[n] <= least * 1.01)


def _doublings(start: int) -> list[int]:
    """`start`, 2 × `start`, 4 × `start` … up to the search's limit."""
    out, c = [], start
    while c <= planner.MAX_SEARCH_GPUS:
        out.append(c)
        c *= 2
    return out


def _what_would_fit(
    req: EstimateRequest,
    job: planner.TrainingJob,
    gpu: GpuSpec,
    pool: Sequence[GpuSpec],
    pins: planner.Pins,
) -> Notice | None:
    """The nearest plan that fits, as a notice: the same GPU without the layout pins (at the
    pinned count, then at any count), with one sequence per micro-batch, then a GPU of the
    pool with more memory. None when none of these fits either."""
    free = planner.Pins(mfu=pins.mfu, goodput=pins.goodput)
    unpinned = replace(
        job,
        batch_pinned=False,
        batch_limit=growth_limit(job.task, job.seq_len, job.global_batch, job.base_flops),
    )
    layout_pinned = (
        any(x is not None for x in (pins.tp, pins.pp, pins.zero, pins.recompute))
        or job.batch_pinned
    )
    attempts: list[tuple[str, planner.TrainingJob, GpuSpec, int | None]] = []
    if layout_pinned and req.gpu_count:
        attempts.append(("layout", unpinned, gpu, req.gpu_count))
    if req.gpu_count:
        attempts.append(("count", unpinned, gpu, None))
    elif layout_pinned:
        attempts.append(("layout", unpinned, gpu, None))
    if job.micro_batch > 1:
        attempts.append(("micro", replace(unpinned, micro_batch=1), gpu, None))
    bigger = sorted((g for g in pool if g.memory_gb > gpu.memory_gb), key=lambda g: g.memory_gb)
    attempts.extend(("gpu", unpinned, g, None) for g in bigger)
    for kind, trial, on, count in attempts:
        would, _ = planner.plan_training(trial, on, deadline_days=None, gpu_count=count, pins=free)
        if would is None:
            continue
        lay = would.layout
        params = {
            "count": f"{would.count:,}",
            "gpu": on.name,
            "tp": lay.tp,
            "pp": lay.pp,
            "zero": lay.zero_stage,
            "recompute_term": notices.term(lay.recompute),
            "micro": lay.micro_batch,
            "gb": fmt(would.per_gpu_bytes / GB),
        }
        if kind == "layout":
            why = (
                "The pinned layout is kept as asked. What would fit: "
                "%(count)s × %(gpu)s with TP %(tp)s, PP %(pp)s, ZeRO-%(zero)s, %(recompute_term)s, "
                "micro-batch %(micro)s (%(gb)s GB per GPU)."
            )
        elif kind == "count":
            why = (
                "The pins are kept as asked. What would fit: "
                "%(count)s × %(gpu)s with TP %(tp)s, PP %(pp)s, ZeRO-%(zero)s, %(recompute_term)s, "
                "micro-batch %(micro)s (%(gb)s GB per GPU)."
            )
        elif kind == "micro":
            why = (
                "What would fit: one sequence per micro-batch, on "
                "%(count)s × %(gpu)s with TP %(tp)s, PP %(pp)s, ZeRO-%(zero)s, %(recompute_term)s, "
                "micro-batch %(micro)s (%(gb)s GB per GPU)."
            )
        else:
            why = (
                "What would fit: a GPU with more memory, "
                "%(count)s × %(gpu)s with TP %(tp)s, PP %(pp)s, ZeRO-%(zero)s, %(recompute_term)s, "
                "micro-batch %(micro)s (%(gb)s GB per GPU)."
            )
        return Notice(why, **params)
    return None


def infeasible_candidate(
    job: planner.TrainingJob,
    gpu: GpuSpec,
    pins: planner.Pins = planner.Pins(),
    *,
    count: int | None = None,
) -> planner.Candidate:
    """The most memory-frugal layout the pins allow at `count` (default the search's largest),
    reported although it overflows; its time from the same MFU factors as any plan."""
    n = count or planner.MAX_SEARCH_GPUS
    gpn = gpu.gpus_per_node
    pp_pin = pins.pp or 1
    tp = pins.tp or max(
        t
        for t in (1, 2, 4, 8)
        if t <= gpn and job.model.heads % t == 0 and (t == 1 or n % (t * pp_pin) == 0)
    )
    pp = pins.pp or 1
    if not pins.pp:
        while pp * 2 <= job.model.layers and n % (tp * pp * 2) == 0 and pp < 128:
            pp *= 2
    dp = max(1, n // (tp * pp))
    # ZeRO shards over the data-parallel ranks: with one (dp = 1) every stage is stage 0.
    zero = pins.zero if pins.zero is not None else (3 if dp > 1 else 0)
    recompute = pins.recompute or "full"
    m = planner.micro_batches(job, dp, pp)
    vpp = planner.virtual_stages(job.model.layers, pp, m)
    layout = memory.Layout(
        dp=dp, tp=tp, pp=pp, zero_stage=zero, recompute=recompute, micro_batch=job.micro_batch,
        vpp=vpp,
    )  # fmt: skip
    mem = planner.per_gpu_memory(job, layout, n).total
    nodes = math.ceil(n / gpn)
    ic = job.interconnect or planner.natural_interconnect(gpu, nodes, min(n, gpn))
    factors: tuple[compute.Factor, ...] = ()
    if pins.mfu is not None:
        mfu = pins.mfu
    else:
        factors = tuple(
            compute.mfu_factors(
                gpu=gpu, model=job.model, precision=job.precision, task=job.task, gpus=n,
                nodes=nodes, interconnect=ic, tp=tp, pp=pp, vpp=vpp, micro_batches=m,
                zero_stage=zero, dp=dp, recompute=recompute,
                micro_tokens=job.seq_len * job.micro_batch,
            )
        )  # fmt: skip
        mfu = compute.product(factors)
    g = compute.goodput(n) if pins.goodput is None else pins.goodput
    days = compute.training_days(
        flops=job.base_flops, gpu=gpu, gpus=n, mfu=mfu, precision=job.precision, goodput_share=g
    )
    return planner.Candidate(
        gpu=gpu,
        count=n,
        nodes=nodes,
        layout=layout,
        per_gpu_bytes=mem,
        days=days,
        gpu_hours=days * 24 * n,
        mfu=mfu,
        layout_efficiency=1.0,
        interconnect=ic,
        goodput=g,
        factors=factors,
        micro_batches=m,
    )


# -------------------------------------------------------------------------------- time


def _mamf_note(mamf: float | None, peak: float | None, precision: str) -> str:
    """Where a GEMM share comes from: this GPU's measured MAMF, or H100 SXM's share."""
    if mamf and peak:
        return f"measured MAMF {mamf:,.1f} of {peak:,.1f} {precision} TFLOPS"
    return f"not measured on this GPU: H100 SXM's {precision} share"


def _mfu_explained(
    req: EstimateRequest, model: ModelSpec, gpu: GpuSpec, chosen: planner.Candidate
) -> Explanation:
    """MFU = model FLOPs / (GPUs × dense peak × wall time without interruptions): pinned by
    the request, or the product of the planner's named factors for the chosen layout."""
    if not chosen.factors:
        return Explanation(
            "training.mfu",
            chosen.mfu,
            "",
            f"pinned by the request: {chosen.mfu}",
            "input",
            [Operand("mfu_pinned", chosen.mfu, "")],
            "mfu_pinned",
        )
    lay = chosen.layout
    ctx = {
        "h": model.hidden,
        "ratio": gpu.peak_tflops(req.precision) * 1e3 / gpu.bandwidth_gbs,
        "tp": lay.tp,
        "pp": lay.pp,
        "vpp": lay.vpp,
        "m": chosen.micro_batches,
        "gpus": fmt_gpus(chosen.count),
        "floor_from": fmt_gpus(chosen.floor_from),
        "layers": model.layers,
        "chunks": lay.pp * lay.vpp,
        "micro_tokens": req.seq_len * lay.micro_batch,
        "mamf": _mamf_note(gpu.mamf_bf16_tflops, gpu.bf16_tflops, "BF16"),
        "mamf_fp8": _mamf_note(gpu.mamf_fp8_tflops, gpu.fp8_tflops, "FP8"),
        "pcie_gbs": gpu.pcie_gbs,
        "tp_step": compute.tp_step(gpu, chosen.interconnect),
    }
    parts = [f"{compute.FACTOR_LABELS[f.key].format(**ctx)} {f.value:.4g}" for f in chosen.factors]
    src = compute.MFU_SOURCE
    if any(f.key == "tensor_parallel_pcie" for f in chosen.factors):
        src += (
            f"; TP over PCIe: the DGX A100 TP cost (NVLink {compute.TP_REFERENCE_LINK_GBS:.0f} "
            f"GB/s, {compute.TP_REFERENCE_TFLOPS:.0f} TFLOPS) scaled by link bandwidth and GPU "
            "speed"
        )
    if chosen.floor_from:
        src += (
            f"; scaling floor: fewer GPU-hours on {fmt_gpus(chosen.floor_from)}, and the "
            "engine never predicts more than linear scaling"
        )
    return Explanation(
        "training.mfu",
        chosen.mfu,
        "",
        " × ".join(parts) + f" = {chosen.mfu:.4g}",
        src,
        [Operand(f.key, f.value, "") for f in chosen.factors],
        " * ".join(f.key for f in chosen.factors),
    )


def _goodput_explained(req: EstimateRequest, chosen: planner.Candidate) -> Explanation:
    """Share of wall time doing useful work: pinned, or the Llama 3 interruption model."""
    if req.goodput is not None:
        return Explanation(
            "training.goodput",
            chosen.goodput,
            "",
            f"pinned by the request: {chosen.goodput}",
            "input",
            [Operand("goodput_pinned", chosen.goodput, "")],
            "goodput_pinned",
        )
    rate, lost = compute.INTERRUPTIONS_PER_GPU_DAY, compute.HOURS_LOST_PER_INTERRUPTION
    return Explanation(
        "training.goodput",
        chosen.goodput,
        "",
        f"1 / (1 + {rate:.2e} interruptions per GPU-day × {fmt_gpus(chosen.count)} × "
        f"{lost:.3f} h lost each / 24 h) = {chosen.goodput:.3f}",
        "Llama 3 (Dubey et al. 2024) §3.3.4: 419 unexpected interruptions in 54 days on "
        "16,384 GPUs, higher than 90% effective training time",
        [
            Operand("rate", rate, "interruptions/GPU-day"),
            Operand("gpus", chosen.count, "GPUs"),
            Operand("hours_lost", lost, "h"),
        ],
        "1 / (1 + rate * gpus * hours_lost / 24)",
    )


def _training_days_explained(
    req: EstimateRequest, gpu: GpuSpec, chosen: planner.Candidate, flops: float
) -> Explanation:
    """days = model FLOPs / (n × dense peak × MFU × goodput) / 86,400 s."""
    peak = gpu.peak_tflops(req.precision)
    return Explanation(
        "training.days",
        chosen.days,
        "days",
        # Four significant figures, so the printed numbers reproduce the figure to 0.1%.
        f"{fmt(flops, 4)} FLOP / ({chosen.count:,} × {peak:.4g} TFLOPS dense × MFU "
        f"{chosen.mfu:.4g} × goodput {chosen.goodput:.4g}) / 86,400 s = "
        f"{fmt_days(chosen.days, 4)}",
        _peak_source(gpu, req.precision),
        [
            Operand("flops", flops, "FLOP"),
            Operand("gpus", chosen.count, "GPUs"),
            Operand("peak_flops", peak * 1e12, "FLOP/s"),
            Operand("mfu", chosen.mfu, ""),
            Operand("goodput", chosen.goodput, ""),
        ],
        "flops / (gpus * peak_flops * mfu * goodput) / 86400",
    )


def _peak_source(gpu: GpuSpec, precision: str) -> str:
    """Which datasheet peak the days divide by: fp32 training is sized on TF32 tensor cores."""
    if precision == "fp32":
        return (
            f"{gpu.name} dense TF32 tensor-core peak (datasheet without sparsity): fp32 "
            "training with TF32 matmuls enabled (PyTorch: torch.backends.cuda.matmul."
            "allow_tf32 = True; off by default since 1.12)"
        )
    fmt_ = gpu.compute_format(precision)
    why = "" if fmt_.lower() == precision else f" ({precision} weights compute in {fmt_})"
    return f"{gpu.name} dense {fmt_} peak (datasheet without sparsity){why}"


def _gpu_hours_explained(chosen: planner.Candidate) -> Explanation:
    """GPU-hours = days × 24 h × GPUs (every GPU is held for the whole run)."""
    return Explanation(
        "training.gpu_hours",
        chosen.gpu_hours,
        "GPU-h",
        f"{fmt_days(chosen.days)} × 24 h × {fmt_gpus(chosen.count)} = {fmt(chosen.gpu_hours)} GPU-h",
        "definition",
        [Operand("days", chosen.days, "days"), Operand("gpus", chosen.count, "GPUs")],
        "days * 24 * gpus",
    )


def _meets_deadline(
    req: EstimateRequest, gpu: GpuSpec, chosen: planner.Candidate, warnings: list[str]
) -> bool | None:
    """Whether the plan meets the deadline (None without one); warns when it misses."""
    if req.deadline_days is None:
        return None
    if chosen.days <= req.deadline_days:
        return True
    if req.gpu_count:
        why = "Misses the deadline: %(days)s days on %(count)s × %(gpu)s against %(deadline)s days (the GPU count is pinned)."
    elif chosen.count >= planner.MAX_SEARCH_GPUS:
        why = "Misses the deadline: %(days)s days on %(count)s × %(gpu)s against %(deadline)s days even at the planner's limit of %(count)s GPUs."
    else:
        why = "Misses the deadline: %(days)s days on %(count)s × %(gpu)s against %(deadline)s days."
    warnings.append(
        Notice(
            why,
            days=fmt(chosen.days),
            count=f"{chosen.count:,}",
            gpu=gpu.name,
            deadline=fmt(req.deadline_days or 0),
        )
    )
    return False


def _deadline_margin(
    req: EstimateRequest,
    gpu: GpuSpec,
    job: planner.TrainingJob,
    pins: planner.Pins,
    chosen: planner.Candidate,
    band: Uncertainty,
    warnings: list[str],
) -> bool:
    """Whether a plan that meets its deadline still meets it at the slow end of its error
    band: days × (1 + median error of the category) ≤ deadline. When it does not, a notice
    says how late the slow end is and, unless the count is pinned, the smallest count that
    meets the deadline even there (the planner's search for deadline / (1 + band))."""
    deadline = req.deadline_days or 0.0
    slow = chosen.days * (1 + band.median_pct)
    if slow <= deadline:
        return True
    params: dict[str, object] = {
        "days": fmt(chosen.days),
        "deadline": fmt(deadline),
        "band": f"{band.median_pct:.0%}",
        "runs": band.runs,
        "slow": fmt(slow),
    }
    safe = None
    if not req.gpu_count:
        safe, _ = planner.plan_training(
            job, gpu, deadline_days=deadline / (1 + band.median_pct), pins=pins
        )
    if (
        safe is not None
        and safe.count > chosen.count
        and safe.days * (1 + band.median_pct) <= deadline
    ):
        warnings.append(
            Notice(
                "%(days)s days meets the %(deadline)s-day deadline with little room: estimates "
                "of this kind are off by a median %(band)s (%(runs)s published runs), and "
                "%(band)s slower this job takes %(slow)s days. %(count)s × %(gpu)s "
                "would take %(safe_days)s days, within the deadline even %(band)s slower.",
                **params,
                count=f"{safe.count:,}",
                gpu=gpu.name,
                safe_days=fmt(safe.days),
            )
        )
    else:
        warnings.append(
            Notice(
                "%(days)s days meets the %(deadline)s-day deadline with little room: estimates "
                "of this kind are off by a median %(band)s (%(runs)s published runs), and "
                "%(band)s slower this job takes %(slow)s days.",
                **params,
            )
        )
    return False


def scaling_curve(
    job: planner.TrainingJob, gpu: GpuSpec, chosen: int, pins: planner.Pins
) -> list[CurvePoint]:
    """Days at each count the planner considers, up to 4× the chosen count (≥ 8 GPUs)."""
    return [
        CurvePoint(gpus=n, days=days, gpu_hours=days * 24 * n)
        for n, days in planner.scaling_points(job, gpu, chosen, pins)
    ]


# ------------------------------------------------------------------------------ memory


def _memory(
    req: EstimateRequest,
    model: ModelSpec,
    job: planner.TrainingJob,
    states: memory.Memory,
    chosen: planner.Candidate,
    explain: list[Explanation],
) -> tuple[memory.Memory, memory.Memory]:
    """(one replica, unsharded with one micro-batch; the most-loaded GPU), in bytes."""
    layout = chosen.layout
    replica = memory.Memory(
        weights=states.weights, gradients=states.gradients, optimizer=states.optimizer
    )
    replica.activations, activations_ex = _activations(req, model, layout)
    replica.overhead = memory.overhead_bytes(replica.total, 1)
    per_gpu = planner.per_gpu_memory(job, layout, chosen.count)
    explain.append(activations_ex)
    explain.append(
        _per_gpu_explained(
            layout,
            per_gpu,
            planner.expert_parallel(model, layout.dp),
            planner.zero3_gathered(job, layout),
        )
    )
    explain.append(_overhead_explained(replica, chosen.count, per_gpu))
    explain.append(memory.allocated_explained(replica, per_gpu))
    return replica, per_gpu


def _activations(
    req: EstimateRequest, model: ModelSpec, layout: memory.Layout
) -> tuple[float, Explanation]:
    """(one replica's activation bytes, its Explanation: `memory_gb.activations`, GB).

    The replica figure is one micro-batch through every layer, unsharded (t = 1); its formula
    states the most-loaded GPU's share after it (`memory.activations`), which the per-GPU
    figure (`memory_gb.per_gpu`) carries as its `activations` operand."""
    act_replica, _, act_formula = memory.activations(
        model, seq_len=req.seq_len, layout=layout, flash=req.flash_attention, task=req.task
    )
    s, b = req.seq_len, layout.micro_batch
    per_layer = memory.activation_bytes_per_layer(
        s=s, b=b, h=model.hidden, a=model.heads, t=1, recompute=layout.recompute,
        flash=req.flash_attention,
    )  # fmt: skip
    working = 0.0
    if layout.recompute == "full":
        working = memory.activation_bytes_per_layer(
            s=s, b=b, h=model.hidden, a=model.heads, t=1, recompute="selective",
            flash=req.flash_attention,
        )  # fmt: skip
    return act_replica, Explanation(
        "memory_gb.activations",
        act_replica / GB,
        "GB",
        act_formula,
        "Korthikanti et al. 2022 §4 (Table 2); recomputation "
        f"'{layout.recompute}', FlashAttention {'on' if req.flash_attention else 'off'}; "
        + memory.SOURCE_LOGITS,
        [
            Operand("layers", model.layers, "layers"),
            Operand("per_layer_gb", per_layer / GB, "GB"),
            Operand(
                "logits_gb",
                memory.logits_bytes(model, seq_len=s, micro_batch=b, task=req.task) / GB,
                "GB",
            ),
            Operand("working_gb", working / GB, "GB"),
        ],
        "layers * per_layer_gb + logits_gb + working_gb",
    )


def _per_gpu_explained(
    layout: memory.Layout,
    per_gpu: memory.Memory,
    ep: int = 1,
    gathered: tuple[float, float] = (0.0, 0.0),
) -> Explanation:
    """Model states split by TP × PP, then by ZeRO over data parallelism (an MoE's routed
    experts over ep of the dp ranks), ZeRO-3's gathered units (`gathered`: the parameter and
    gradient bytes, inside the weights and gradients operands), plus the rest."""
    gw, gg = gathered
    return Explanation(
        "memory_gb.per_gpu",
        per_gpu.total / GB,
        "GB",
        f"states / (t={layout.tp} · p={layout.pp})"
        + (f" / ZeRO-{layout.zero_stage} over dp={layout.dp}" if layout.zero_stage else "")
        + (f", routed experts / ep={ep}" if ep > 1 else "")
        + (
            f" + ZeRO-3's whole units: {planner.ZERO3_GATHERED_UNITS} gathered "
            f"(running + prefetched) {fmt(gw / GB)} GB in the weights and "
            f"{planner.ZERO3_GRADIENT_UNITS} unit's unsharded gradients {fmt(gg / GB)} GB"
            if gw or gg
            else ""
        )
        + f" + activations + overhead = {fmt(per_gpu.total / GB)} GB (allocated tensors plus "
        "the CUDA context and allocator reserve nvidia-smi shows)",
        "ZeRO §5 (stage 1: optimizer, 2: + gradients, 3: + parameters); Megatron TP/PP"
        + ("; expert parallelism inside the data-parallel group (DeepSpeed-MoE)" if ep > 1 else "")
        + (
            "; ZeRO-3 units: PyTorch FSDP (Zhao et al. 2023) limit_all_gathers, one decoder "
            "layer or embedding a unit"
            if gw or gg
            else ""
        ),
        [
            Operand("weights", per_gpu.weights / GB, "GB"),
            Operand("gradients", per_gpu.gradients / GB, "GB"),
            Operand("optimizer", per_gpu.optimizer / GB, "GB"),
            Operand("activations", per_gpu.activations / GB, "GB"),
            Operand("overhead", per_gpu.overhead / GB, "GB"),
        ],
        "weights + gradients + optimizer + activations + overhead",
    )


def _overhead_explained(replica: memory.Memory, count: int, per_gpu: memory.Memory) -> Explanation:
    """`memory_gb.overhead`: one replica's, counted as on one device (one CUDA context, no
    NCCL, the allocator's reserve on its tensors: `memory.overhead_bytes(..., 1)`), with the
    most-loaded GPU's (context, NCCL when there is more than one GPU, reserve) after it."""
    live = replica.allocated()
    nccl = memory.NCCL_BUFFERS_GB if count > 1 else 0.0
    gpu_live = per_gpu.allocated()
    return Explanation(
        "memory_gb.overhead",
        replica.overhead / GB,
        "GB",
        f"CUDA context {fmt(memory.CUDA_CONTEXT_GB)} GB + allocator reserve "
        f"{memory.FRAGMENTATION:.0%} of {fmt(live / GB)} GB allocated = "
        f"{fmt(replica.overhead / GB)} GB for one replica as on one device (per GPU: "
        f"{fmt(memory.CUDA_CONTEXT_GB)} GB"
        + (f" + NCCL {memory.NCCL_BUFFERS_GB} GB" if nccl else "")
        + f" + {memory.FRAGMENTATION:.0%} of {fmt(gpu_live / GB)} GB = "
        f"{fmt(per_gpu.overhead / GB)} GB)",
        memory.SOURCE_OVERHEAD,
        [
            Operand("cuda_context", memory.CUDA_CONTEXT_GB, "GB"),
            Operand("fragmentation", memory.FRAGMENTATION, ""),
            Operand("allocated", live / GB, "GB"),
        ],
        "cuda_context + fragmentation * allocated",
    )
