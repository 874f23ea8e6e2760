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

from app.engine import compute, memory, planner
from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation
from app.engine.hardware import GpuSpec
from app.engine.notices import Notice
from app.engine.plan import Plan
from app.engine.schemas import CandidateOut, CurvePoint, EstimateRequest, TrainingOut
from app.engine.units import GB, fmt

BYTES_PER_TOKEN = 4.0  # ≈4 characters of English text per BPE token (OpenAI tokenizer guide)
CHINCHILLA_TOKENS_PER_PARAM = 20.0  # Hoffmann et al. 2022: compute-optimal D ≈ 20 N
DEFAULT_FINETUNE_TOKENS = 1e8
PRETRAIN_BATCH_TOKENS = 4e6  # Llama 2 §2.2: global batch of 4M tokens
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
    job, states, trainable = training_job(req, model, tokens)
    explain.extend(states.explain)
    pins = planner.Pins(
        mfu=req.mfu, tp=req.tp, pp=req.pp, zero=req.zero_stage, recompute=req.recompute
    )
    chosen, minimum = planner.plan_training(
        job, gpu, deadline_days=req.deadline_days, gpu_count=req.gpu_count, pins=pins
    )
    if req.gpu is None and req.gpu_count is None:
        candidates.extend(_other_gpus(req, job, gpu, pool, pins, chosen, minimum))
    if chosen is None:
        chosen = _overflowing_candidate(req, model, job, gpu, warnings)
    else:
        explain.append(_gpu_count_explained(req, gpu, chosen, minimum))
    flops, flops_ex = compute.training_flops(
        model, tokens=tokens, seq_len=req.seq_len, task=req.task, recompute=chosen.layout.recompute
    )
    explain.append(flops_ex)
    explain.append(_mfu_explained(req, model, gpu, chosen))
    if chosen.layout_efficiency < 0.999:
        explain.append(_layout_efficiency_explained(chosen))
    explain.append(_training_days_explained(req, gpu, chosen, flops))
    replica, per_gpu = _memory(req, model, job, states, chosen, explain)
    meets = _meets_deadline(req, gpu, chosen, warnings)
    training = TrainingOut(
        curve=scaling_curve(job, gpu, chosen.count, pins),
        flops=flops,
        tokens=tokens,
        gpu_hours=chosen.gpu_hours,
        days=chosen.days,
        mfu=chosen.mfu,
        tokens_per_s=tokens / (chosen.days * 86400) if chosen.days > 0 else 0.0,
        meets_deadline=meets,
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
        global_batch=max(job.global_batch, chosen.layout.dp * chosen.layout.micro_batch),
        training=training,
        inference=None,
        days=chosen.days,
    )


# ------------------------------------------------------------------------- the workload


def training_tokens(req: EstimateRequest, model: ModelSpec, warnings: list[str]) -> float:
    """Tokens to train on: given, else dataset bytes / 4 × epochs, else an assumed budget."""
    if req.tokens is not None and req.tokens > 0:
        return req.tokens
    if req.dataset_gb > 0:
        per_epoch = req.dataset_gb * 1e9 / BYTES_PER_TOKEN
        return per_epoch * (req.epochs or 1.0)
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
            "No tokens or dataset given: assumed %(tokens)s fine-tuning tokens.",
            tokens=fmt(DEFAULT_FINETUNE_TOKENS),
        )
    )
    return DEFAULT_FINETUNE_TOKENS


def global_batch(req: EstimateRequest) -> int:
    """Sequences per step: given, else 4M tokens (pre-training) or 64 sequences (fine-tuning)."""
    if req.global_batch:
        return req.global_batch
    if req.task == "pretrain":
        return max(req.micro_batch, round(PRETRAIN_BATCH_TOKENS / req.seq_len))
    return max(req.micro_batch, FINETUNE_GLOBAL_BATCH)


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
    flops = compute.training_flops_value(
        model, tokens=tokens, seq_len=req.seq_len, task=req.task, recompute="selective"
    )
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
    )
    return job, states, trainable


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
) -> Explanation:
    """Why this count: the smallest that fits, or the count the deadline scaled it to."""
    if minimum is not None and chosen.count > minimum.count:
        return Explanation(
            "gpu.count",
            chosen.count,
            "GPUs",
            f"minimum that fits: {minimum.count} GPUs ({fmt(minimum.days)} days); scaled to "
            f"{chosen.count} GPUs for {fmt(chosen.days)} days ≤ deadline "
            f"{fmt(req.deadline_days or 0)} days",
            "planner: smallest feasible configuration, then scaled to the deadline",
        )
    return Explanation(
        "gpu.count",
        chosen.count,
        "GPUs",
        f"smallest count whose most-loaded GPU fits: {fmt(chosen.per_gpu_bytes / GB)} GB"
        f" ≤ {fmt(gpu.memory_gb)} GB × {planner.HEADROOM}",
        "planner: smallest feasible configuration",
    )


def _overflowing_candidate(
    req: EstimateRequest,
    model: ModelSpec,
    job: planner.TrainingJob,
    gpu: GpuSpec,
    warnings: list[str],
) -> planner.Candidate:
    """What to show when nothing fits: the most frugal layout (at the pinned count if any)."""
    chosen = infeasible_candidate(job, gpu)
    if req.gpu_count:
        chosen = _pinned_count_candidate(req, job, gpu, chosen)
    warnings.append(
        Notice(
            "%(model)s %(task)s does not fit in %(memory)s GB per GPU on %(count)s × "
            "%(gpu)s with any layout (ZeRO-3, full recomputation, TP %(tp)s, PP %(pp)s): "
            "the figures shown overflow memory.",
            model=model.name,
            task=req.task,
            memory=fmt(gpu.memory_gb),
            count=f"{chosen.count:,}",
            gpu=gpu.name,
            tp=chosen.layout.tp,
            pp=chosen.layout.pp,
        )
    )
    return chosen


def infeasible_candidate(job: planner.TrainingJob, gpu: GpuSpec) -> planner.Candidate:
    """The most memory-frugal layout at the largest count, reported although it overflows."""
    n = planner.MAX_SEARCH_GPUS
    tp = max(t for t in (1, 2, 4, 8) if t <= gpu.gpus_per_node and job.model.heads % t == 0)
    pp = 1
    while pp * 2 <= job.model.layers and n % (tp * pp * 2) == 0 and pp < 128:
        pp *= 2
    layout = memory.Layout(
        dp=n // (tp * pp), tp=tp, pp=pp, zero_stage=3, recompute="full", micro_batch=1
    )
    mem = planner.per_gpu_memory(job, layout, n).total
    nodes = math.ceil(n / gpu.gpus_per_node)
    mfu = math.prod(
        v
        for _, v in compute.mfu_factors(
            gpu=gpu,
            model=job.model,
            precision=job.precision,
            task=job.task,
            gpus=n,
            nodes=nodes,
            interconnect="infiniband",
        )
    )
    flops = job.base_flops * planner.RECOMPUTE_FLOPS["full"]
    days = flops / (n * gpu.peak_tflops(job.precision) * 1e12 * mfu) / 86400
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
        interconnect="infiniband",
    )


def _pinned_count_candidate(
    req: EstimateRequest,
    job: planner.TrainingJob,
    gpu: GpuSpec,
    frugal: planner.Candidate,
) -> planner.Candidate:
    """The pinned count with plain ZeRO-3 data parallelism, its days scaled from `frugal`."""
    assert req.gpu_count
    n = req.gpu_count
    layout = memory.Layout(dp=n, zero_stage=3, recompute="full")
    return planner.Candidate(
        gpu=gpu,
        count=n,
        nodes=math.ceil(n / gpu.gpus_per_node),
        layout=layout,
        per_gpu_bytes=planner.per_gpu_memory(job, layout, n).total,
        days=frugal.days * planner.MAX_SEARCH_GPUS / n,
        gpu_hours=frugal.gpu_hours,
        mfu=frugal.mfu,
        layout_efficiency=1.0,
        interconnect=req.interconnect or "infiniband",
    )


# -------------------------------------------------------------------------------- time


def _mfu_explained(
    req: EstimateRequest, model: ModelSpec, gpu: GpuSpec, chosen: planner.Candidate
) -> Explanation:
    """The MFU of the chosen count: pinned by the request, or the principled default."""
    if req.mfu is not None:
        return Explanation(
            "training.mfu", req.mfu, "", f"pinned by the request: {req.mfu}", "input"
        )
    return compute.default_mfu(
        gpu=gpu,
        model=model,
        precision=req.precision,
        task=req.task,
        gpus=chosen.count,
        nodes=chosen.nodes,
        interconnect=chosen.interconnect,
    ).explain


def _layout_efficiency_explained(chosen: planner.Candidate) -> Explanation:
    """TP all-reduces × the 1F1B pipeline bubble × ZeRO-3 gathers, as the planner priced them."""
    layout = chosen.layout
    zero3 = planner.ZERO3_EFFICIENCY if chosen.nodes == 1 else planner.ZERO3_CROSS_NODE_EFFICIENCY
    return Explanation(
        "parallelism.efficiency",
        chosen.layout_efficiency,
        "",
        f"TP {layout.tp} ({planner.TP_EFFICIENCY}^log2 t) × 1F1B bubble "
        f"1/(1 + (p−1)/m) with p={layout.pp}"
        + (f" × ZeRO-3 {zero3}" if layout.zero_stage == 3 and layout.dp > 1 else "")
        + f" = {chosen.layout_efficiency:.3f}",
        "Narayanan et al. 2021 §2.2.1 (pipeline bubble), §3.2 (TP); ZeRO §7.2.2",
    )


def _training_days_explained(
    req: EstimateRequest, gpu: GpuSpec, chosen: planner.Candidate, flops: float
) -> Explanation:
    """days = FLOPs / (n × dense peak × MFU × layout efficiency) / goodput / 86,400 s."""
    peak = gpu.peak_tflops(req.precision)
    g = compute.goodput(chosen.count, chosen.days)
    return Explanation(
        "training.days",
        chosen.days,
        "days",
        f"{fmt(flops)} FLOP / ({chosen.count} × {fmt(peak)} TFLOPS dense × MFU "
        f"{chosen.mfu:.3f} × layout {chosen.layout_efficiency:.3f}) / goodput {g:.3f} / "
        f"86,400 s = {fmt(chosen.days)} days",
        f"{gpu.name} dense {req.precision} peak (datasheet without sparsity, PRODUCT.md §4); "
        "goodput from the Llama 3 interruption rate (Dubey et al. 2024 §3.3.4)",
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


def scaling_curve(
    job: planner.TrainingJob, gpu: GpuSpec, chosen: int, pins: planner.Pins
) -> list[CurvePoint]:
    """Days at each count the planner considers, up to 4× the chosen count (≥ 8 GPUs)."""
    return [
        CurvePoint(gpus=c.count, days=c.days, gpu_hours=c.gpu_hours)
        for c in planner.scaling_walk(job, gpu, chosen, pins)
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
    explain.append(_per_gpu_explained(layout, per_gpu))
    explain.append(_overhead_explained(chosen.count, per_gpu))
    return replica, per_gpu


def _activations(
    req: EstimateRequest, model: ModelSpec, layout: memory.Layout
) -> tuple[float, Explanation]:
    """(one replica's activation bytes, the most-loaded GPU's with its formula)."""
    act_replica, act_gpu, act_formula = memory.activations(
        model, seq_len=req.seq_len, layout=layout, flash=req.flash_attention
    )
    return act_replica, Explanation(
        "memory_gb.activations",
        act_gpu / GB,
        "GB",
        act_formula,
        "Korthikanti et al. 2022 §4 (Table 2); recomputation "
        f"'{layout.recompute}', FlashAttention {'on' if req.flash_attention else 'off'}",
    )


def _per_gpu_explained(layout: memory.Layout, per_gpu: memory.Memory) -> Explanation:
    """Model states split by TP × PP, then by ZeRO over data parallelism, plus the rest."""
    return Explanation(
        "memory_gb.per_gpu",
        per_gpu.total / GB,
        "GB",
        f"states / (t={layout.tp} · p={layout.pp})"
        + (f" / ZeRO-{layout.zero_stage} over dp={layout.dp}" if layout.zero_stage else "")
        + f" + activations + overhead = {fmt(per_gpu.total / GB)} GB",
        "ZeRO §5 (stage 1: optimizer, 2: + gradients, 3: + parameters); Megatron TP/PP",
    )


def _overhead_explained(count: int, per_gpu: memory.Memory) -> Explanation:
    """CUDA context, NCCL buffers when there is more than one GPU, and fragmentation."""
    return Explanation(
        "memory_gb.overhead",
        per_gpu.overhead / GB,
        "GB",
        f"CUDA context {memory.CUDA_CONTEXT_GB} GB"
        + (f" + NCCL {memory.NCCL_BUFFERS_GB} GB" if count > 1 else "")
        + f" + {memory.FRAGMENTATION:.0%} fragmentation = {fmt(per_gpu.overhead / GB)} GB",
        memory.SOURCE_OVERHEAD,
    )
