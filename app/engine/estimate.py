"""One estimate: a workload in, a plan out (PRODUCT.md §5).

This module only orchestrates: the model comes from `models`, memory from `memory`, time
from `compute`, the search from `planner`, serving from `inference`, the bill of materials
from `infra`, and money from `costs`. Every figure it returns carries an `Explanation`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.engine import compute, inference, memory, planner
from app.engine.architectures import ModelSpec, from_hf_config, from_param_count, get_preset
from app.engine.explain import Explanation
from app.engine.gpus import DEFAULT_GPU, default_gpus, find_gpu
from app.engine.hardware import GpuSpec
from app.engine.infra import Infra, size_infra
from app.engine.notices import Notice, template_and_params
from app.engine.price_book import PriceBook
from app.engine.schemas import (
    TRAINING_TASKS,
    CandidateOut,
    CurvePoint,
    EstimateRequest,
    EstimateResponse,
    GpuOut,
    InferenceOut,
    InfraOut,
    MemoryGB,
    MemoryTerms,
    NetworkOut,
    NoticeOut,
    ParallelismOut,
    TrainingOut,
)
from app.engine.units import GB, fmt

BYTES_PER_TOKEN = 4.0  # ≈4 characters of English text per BPE token (OpenAI tokenizer guide)
CHINCHILLA_TOKENS_PER_PARAM = 20.0  # Hoffmann et al. 2022: compute-optimal D ≈ 20 N
DEFAULT_FINETUNE_TOKENS = 1e8
PRETRAIN_BATCH_TOKENS = 4e6  # Llama 2 §2.2: global batch of 4M tokens
FINETUNE_GLOBAL_BATCH = 64  # sequences per step, a common SFT/LoRA recipe
MIG_QUARTER = 0.25  # T8: "H100 MIG 1/4"


class InputError(ValueError):
    """A request value the engine cannot use; `field` is its dotted path for a 422."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(slots=True, kw_only=True)
class _Plan:
    """What the task-specific planners hand back to the common assembly."""

    gpu: GpuSpec
    count: int
    fraction: float | None
    layout: memory.Layout
    replica: memory.Memory
    per_gpu: memory.Memory
    interconnect: str
    trainable: int
    global_batch: int
    training: TrainingOut | None
    inference: InferenceOut | None
    days: float | None


def resolve_model(req: EstimateRequest) -> ModelSpec:
    m = req.model
    try:
        if m.preset is not None:
            return get_preset(m.preset)
        if m.hf_config is not None:
            return from_hf_config(m.hf_config)
        assert m.params_b is not None
        overrides = {
            k: v
            for k, v in {
                "layers": m.layers,
                "hidden": m.hidden,
                "heads": m.heads,
                "kv_heads": m.kv_heads,
                "vocab": m.vocab,
                "ffn_hidden": m.ffn_hidden,
                "experts": m.experts,
                "experts_per_token": m.experts_per_token,
                "active_params_b": m.active_params_b,
            }.items()
            if v is not None
        }
        return from_param_count(m.params_b, **overrides)  # type: ignore[arg-type]
    except KeyError as e:
        raise InputError("model.preset", str(e.args[0])) from e
    except ValueError as e:
        where = "model.hf_config" if m.hf_config is not None else "model"
        raise InputError(where, str(e)) from e


def training_tokens(req: EstimateRequest, model: ModelSpec, warnings: list[str]) -> float:
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


# ---------------------------------------------------------------------------- training


def _training_job(
    req: EstimateRequest, model: ModelSpec, tokens: float
) -> tuple[planner.TrainingJob, memory.Memory, int]:
    states, trainable = memory.model_states(
        model,
        task=req.task,
        precision=req.precision,
        optimizer=req.optimizer,
        lora_rank=req.lora_rank,
        lora_targets=req.lora_targets,
    )
    if req.global_batch:
        gb = req.global_batch
    elif req.task == "pretrain":
        gb = max(req.micro_batch, round(PRETRAIN_BATCH_TOKENS / req.seq_len))
    else:
        gb = max(req.micro_batch, FINETUNE_GLOBAL_BATCH)
    flops = compute.training_flops_value(
        model, tokens=tokens, seq_len=req.seq_len, task=req.task, recompute="selective"
    )
    job = planner.TrainingJob(
        model=model,
        task=req.task,
        precision=req.precision,
        seq_len=req.seq_len,
        micro_batch=req.micro_batch,
        global_batch=gb,
        flash=req.flash_attention,
        weights=states.weights,
        gradients=states.gradients,
        optimizer=states.optimizer,
        base_flops=flops,
        interconnect=req.interconnect,
        batch_pinned=req.global_batch is not None,
    )
    return job, states, trainable


def scaling_curve(
    job: planner.TrainingJob, gpu: GpuSpec, chosen: int, pins: planner.Pins
) -> list[CurvePoint]:
    """Days at each count the planner considers, up to 4× the chosen count (≥ 8 GPUs)."""
    return [
        CurvePoint(gpus=c.count, days=c.days, gpu_hours=c.gpu_hours)
        for c in planner.scaling_walk(job, gpu, chosen, pins)
    ]


def _infeasible_candidate(job: planner.TrainingJob, gpu: GpuSpec) -> planner.Candidate:
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


def _plan_training(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    pool: Sequence[GpuSpec],
    warnings: list[str],
    explain: list[Explanation],
    candidates: list[CandidateOut],
) -> _Plan:
    tokens = training_tokens(req, model, warnings)
    job, states, trainable = _training_job(req, model, tokens)
    explain.extend(states.explain)
    pins = planner.Pins(
        mfu=req.mfu, tp=req.tp, pp=req.pp, zero=req.zero_stage, recompute=req.recompute
    )
    chosen, minimum = planner.plan_training(
        job, gpu, deadline_days=req.deadline_days, gpu_count=req.gpu_count, pins=pins
    )
    if req.gpu is None and req.gpu_count is None:
        for other in pool:
            c, _ = (
                (chosen, minimum)
                if other.id == gpu.id
                else planner.plan_training(job, other, deadline_days=req.deadline_days, pins=pins)
            )
            candidates.append(
                CandidateOut(
                    gpu=other.id,
                    count=c.count if c else 0,
                    feasible=c is not None,
                    days=c.days if c else None,
                    per_gpu_gb=c.per_gpu_bytes / GB if c else None,
                    reason="" if c else f"does not fit on {planner.MAX_SEARCH_GPUS:,} GPUs",
                )
            )
    if chosen is None:
        chosen = _infeasible_candidate(job, gpu)
        if req.gpu_count:
            chosen = planner.Candidate(
                gpu=gpu,
                count=req.gpu_count,
                nodes=math.ceil(req.gpu_count / gpu.gpus_per_node),
                layout=memory.Layout(dp=req.gpu_count, zero_stage=3, recompute="full"),
                per_gpu_bytes=planner.per_gpu_memory(
                    job,
                    memory.Layout(dp=req.gpu_count, zero_stage=3, recompute="full"),
                    req.gpu_count,
                ).total,
                days=chosen.days * planner.MAX_SEARCH_GPUS / req.gpu_count,
                gpu_hours=chosen.gpu_hours,
                mfu=chosen.mfu,
                layout_efficiency=1.0,
                interconnect=req.interconnect or "infiniband",
            )
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
    elif minimum is not None and chosen.count > minimum.count:
        explain.append(
            Explanation(
                "gpu.count",
                chosen.count,
                "GPUs",
                f"minimum that fits: {minimum.count} GPUs ({fmt(minimum.days)} days); scaled to "
                f"{chosen.count} GPUs for {fmt(chosen.days)} days ≤ deadline "
                f"{fmt(req.deadline_days or 0)} days",
                "planner: smallest feasible configuration, then scaled to the deadline",
            )
        )
    else:
        explain.append(
            Explanation(
                "gpu.count",
                chosen.count,
                "GPUs",
                f"smallest count whose most-loaded GPU fits: {fmt(chosen.per_gpu_bytes / GB)} GB"
                f" ≤ {fmt(gpu.memory_gb)} GB × {planner.HEADROOM}",
                "planner: smallest feasible configuration",
            )
        )
    layout = chosen.layout
    rc_flops, fx = compute.training_flops(
        model, tokens=tokens, seq_len=req.seq_len, task=req.task, recompute=layout.recompute
    )
    explain.append(fx)
    mfu_ex = compute.default_mfu(
        gpu=gpu,
        model=model,
        precision=req.precision,
        task=req.task,
        gpus=chosen.count,
        nodes=chosen.nodes,
        interconnect=chosen.interconnect,
    )
    if req.mfu is None:
        explain.append(mfu_ex.explain)
    else:
        explain.append(
            Explanation("training.mfu", req.mfu, "", f"pinned by the request: {req.mfu}", "input")
        )
    if chosen.layout_efficiency < 0.999:
        explain.append(
            Explanation(
                "parallelism.efficiency",
                chosen.layout_efficiency,
                "",
                f"TP {layout.tp} ({planner.TP_EFFICIENCY}^log2 t) × 1F1B bubble "
                f"1/(1 + (p−1)/m) with p={layout.pp}"
                + (
                    f" × ZeRO-3 {planner.ZERO3_EFFICIENCY if chosen.nodes == 1 else planner.ZERO3_CROSS_NODE_EFFICIENCY}"
                    if layout.zero_stage == 3 and layout.dp > 1
                    else ""
                )
                + f" = {chosen.layout_efficiency:.3f}",
                "Narayanan et al. 2021 §2.2.1 (pipeline bubble), §3.2 (TP); ZeRO §7.2.2",
            )
        )
    peak = gpu.peak_tflops(req.precision)
    g = compute.goodput(chosen.count, chosen.days)
    explain.append(
        Explanation(
            "training.days",
            chosen.days,
            "days",
            f"{fmt(rc_flops)} FLOP / ({chosen.count} × {fmt(peak)} TFLOPS dense × MFU "
            f"{chosen.mfu:.3f} × layout {chosen.layout_efficiency:.3f}) / goodput {g:.3f} / "
            f"86,400 s = {fmt(chosen.days)} days",
            f"{gpu.name} dense {req.precision} peak (datasheet without sparsity, PRODUCT.md §4); "
            "goodput from the Llama 3 interruption rate (Dubey et al. 2024 §3.3.4)",
        )
    )
    # Memory: one replica (unsharded, one micro-batch) and the most-loaded GPU.
    replica = memory.Memory(
        weights=states.weights, gradients=states.gradients, optimizer=states.optimizer
    )
    act_replica, act_gpu, act_formula = memory.activations(
        model, seq_len=req.seq_len, layout=layout, flash=req.flash_attention
    )
    replica.activations = act_replica
    replica.overhead = memory.overhead_bytes(replica.total, 1)
    per_gpu = planner.per_gpu_memory(job, layout, chosen.count)
    explain.append(
        Explanation(
            "memory_gb.activations",
            act_gpu / GB,
            "GB",
            act_formula,
            "Korthikanti et al. 2022 §4 (Table 2); recomputation "
            f"'{layout.recompute}', FlashAttention {'on' if req.flash_attention else 'off'}",
        )
    )
    explain.append(
        Explanation(
            "memory_gb.per_gpu",
            per_gpu.total / GB,
            "GB",
            f"states / (t={layout.tp} · p={layout.pp})"
            + (f" / ZeRO-{layout.zero_stage} over dp={layout.dp}" if layout.zero_stage else "")
            + f" + activations + overhead = {fmt(per_gpu.total / GB)} GB",
            "ZeRO §5 (stage 1: optimizer, 2: + gradients, 3: + parameters); Megatron TP/PP",
        )
    )
    explain.append(
        Explanation(
            "memory_gb.overhead",
            per_gpu.overhead / GB,
            "GB",
            f"CUDA context {memory.CUDA_CONTEXT_GB} GB"
            + (f" + NCCL {memory.NCCL_BUFFERS_GB} GB" if chosen.count > 1 else "")
            + f" + {memory.FRAGMENTATION:.0%} fragmentation = {fmt(per_gpu.overhead / GB)} GB",
            memory.SOURCE_OVERHEAD,
        )
    )
    meets = None if req.deadline_days is None else chosen.days <= req.deadline_days
    if meets is False:
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
    tps = tokens / (chosen.days * 86400) if chosen.days > 0 else 0.0
    curve = scaling_curve(job, gpu, chosen.count, pins)
    training = TrainingOut(
        curve=curve,
        flops=rc_flops,
        tokens=tokens,
        gpu_hours=chosen.gpu_hours,
        days=chosen.days,
        mfu=chosen.mfu,
        tokens_per_s=tps,
        meets_deadline=meets,
    )
    return _Plan(
        gpu=gpu,
        count=chosen.count,
        fraction=None,
        layout=layout,
        replica=replica,
        per_gpu=per_gpu,
        interconnect=chosen.interconnect,
        trainable=trainable,
        global_batch=max(job.global_batch, layout.dp * layout.micro_batch),
        training=training,
        inference=None,
        days=chosen.days,
    )


# --------------------------------------------------------------------------- inference


def _plan_inference(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    warnings: list[str],
    explain: list[Explanation],
) -> _Plan:
    kv_dtype = req.kv_dtype or ("fp8" if req.precision == "fp8" else "bf16")
    pinned_tp = req.tp * (req.pp or 1) if req.tp else None
    best: inference.Serving | None = None
    options = [pinned_tp] if pinned_tp else [1, 2, 4, 8, 16, 32, 64]
    for tp in options:
        if model.heads and model.heads % min(tp, model.heads) and tp <= gpu.gpus_per_node:
            continue
        s = inference.serve(
            model,
            gpu,
            precision=req.precision,
            kv_dtype=kv_dtype,
            concurrency=req.concurrency,
            avg_context_tokens=req.avg_context_tokens,
            output_tokens=req.output_tokens,
            tp=tp,
        )
        if s.replicas == 0:
            continue
        if req.gpu_count and s.gpus > req.gpu_count and not pinned_tp:
            continue
        if best is None or s.gpus < best.gpus:
            best = s
        if best is not None and tp >= gpu.gpus_per_node:
            break
    if best is None:
        tp = pinned_tp or 64
        best = inference.serve(
            model,
            gpu,
            precision=req.precision,
            kv_dtype=kv_dtype,
            concurrency=1,
            avg_context_tokens=req.avg_context_tokens,
            output_tokens=req.output_tokens,
            tp=tp,
        )
        best.replicas = max(best.replicas, 1)
        warnings.append(
            Notice(
                "%(model)s in %(precision)s does not fit on %(count)s × %(gpu)s with room for "
                "one sequence of KV cache: the figures shown overflow memory.",
                model=model.name,
                precision=req.precision,
                count=tp,
                gpu=gpu.name,
            )
        )
    count = best.gpus
    if req.gpu_count and req.gpu_count != count:
        if req.gpu_count < count:
            warnings.append(
                Notice(
                    "The pinned %(count)s GPUs hold %(held)s concurrent sequences, fewer than "
                    "the %(asked)s asked.",
                    count=req.gpu_count,
                    held=best.max_concurrency_per_replica * max(1, req.gpu_count // best.tp),
                    asked=req.concurrency,
                )
            )
        count = max(req.gpu_count, best.tp)
    explain.extend(best.explain)
    warnings.extend(best.warnings)
    fraction = None
    # T8: a quarter-GPU MIG slice when the whole service fits in a quarter of the memory and
    # a quarter of the bandwidth still decodes at reading speed.
    need = best.weights_bytes_per_gpu + best.kv_bytes_per_gpu + best.activation_bytes_per_gpu
    need += best.overhead_bytes_per_gpu
    if (
        gpu.mig_max
        and count == 1
        and not req.gpu_count
        and need <= gpu.memory_gb * GB * MIG_QUARTER * inference.GPU_MEMORY_UTILIZATION
        and best.tokens_per_s_per_user * MIG_QUARTER >= inference.MIN_TOKENS_PER_S_PER_USER
    ):
        fraction = MIG_QUARTER
        explain.append(
            Explanation(
                "gpu.fraction",
                MIG_QUARTER,
                "GPU",
                f"needs {fmt(need / GB)} GB ≤ {fmt(gpu.memory_gb * MIG_QUARTER)} GB slice × "
                f"{inference.GPU_MEMORY_UTILIZATION}; {fmt(best.tokens_per_s_per_user * MIG_QUARTER)} "
                "tokens/s per user on a quarter of the bandwidth",
                "T8: H100 MIG 1/4 slice NT$15,000/month; NVIDIA MIG user guide (H100 2g.20gb)",
            )
        )
    layout = memory.Layout(dp=best.replicas, tp=best.tp, pp=1, zero_stage=0, recompute="none")
    per_gpu = memory.Memory(
        weights=best.weights_bytes_per_gpu,
        activations=best.activation_bytes_per_gpu,
        kv_cache=best.kv_bytes_per_gpu,
        overhead=best.overhead_bytes_per_gpu,
    )
    w, wx = memory.inference_weights(model, req.precision)
    explain.append(wx)
    replica = memory.Memory(
        weights=w,
        activations=best.activation_bytes_per_gpu * best.tp,
        kv_cache=memory.kv_cache_bytes(
            model, tokens=req.concurrency * req.avg_context_tokens, kv_dtype=kv_dtype
        ),
        overhead=memory.CUDA_CONTEXT_GB * GB,
    )
    explain.append(
        Explanation(
            "memory_gb.kv_cache",
            replica.kv_cache / GB,
            "GB",
            f"{req.concurrency} sequences × {req.avg_context_tokens} tokens × "
            f"{fmt(model.kv_cache_bytes_per_token(memory.KV_BYTES[kv_dtype]))} B = "
            f"{fmt(replica.kv_cache / GB)} GB ({kv_dtype})",
            "2 × layers × kv_heads × head_dim × bytes per token (vLLM, Kwon et al. 2023)",
        )
    )
    inf = InferenceOut(
        max_concurrency=best.max_concurrency,
        tokens_per_s=best.tokens_per_s,
        tokens_per_s_per_user=best.tokens_per_s_per_user,
        time_to_first_token_s=best.ttft_s,
        cost_per_million_tokens=None,
        replicas=best.replicas,
    )
    nodes = math.ceil(count / gpu.gpus_per_node)
    ic = req.interconnect or planner.natural_interconnect(gpu, nodes, min(count, gpu.gpus_per_node))
    return _Plan(
        gpu=gpu,
        count=count,
        fraction=fraction,
        layout=layout,
        replica=replica,
        per_gpu=per_gpu,
        interconnect=ic,
        trainable=0,
        global_batch=1,
        training=None,
        inference=inf,
        days=None,
    )


def _plan_image(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    warnings: list[str],
    explain: list[Explanation],
) -> _Plan:
    w = model.params * 2.0  # diffusion pipelines serve in bf16
    # Activations of one 1024² image: the latent sequence through the denoiser's widest
    # block; ≈3 GB at 1024² measured for SDXL/FLUX in diffusers (scaled with pixel count).
    act = 3.0 * GB * (req.image_resolution / 1024) ** 2
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
    inf = InferenceOut(
        max_concurrency=gpus,
        tokens_per_s=0.0,
        tokens_per_s_per_user=0.0,
        time_to_first_token_s=secs,
        cost_per_million_tokens=None,
        replicas=gpus,
        images_per_hour=3600 / secs * gpus,
    )
    explain.append(
        Explanation(
            "inference.images_per_hour",
            3600 / secs * gpus,
            "images/h",
            f"3,600 s / {secs:.2f} s × {gpus} GPU(s) = {fmt(3600 / secs * gpus)} images/h; "
            f"{req.images:,} images take {fmt(days)} days",
            "compute-bound diffusion sampling",
        )
    )
    layout = memory.Layout(dp=gpus, recompute="none")
    return _Plan(
        gpu=gpu,
        count=gpus,
        fraction=None,
        layout=layout,
        replica=per,
        per_gpu=per,
        interconnect="pcie",
        trainable=0,
        global_batch=1,
        training=None,
        inference=inf,
        days=days,
    )


# ------------------------------------------------------------------------------ assembly


def _seed_warnings(
    req: EstimateRequest, model: ModelSpec, plan: _Plan, warnings: list[str]
) -> None:
    """Warnings for risky plans and for each PRODUCT.md §4 seed statement the plan touches."""
    nodes = math.ceil(plan.count / plan.gpu.gpus_per_node)
    per_node = min(plan.count, plan.gpu.gpus_per_node)
    if (
        req.task in ("pretrain", "full_finetune")
        and model.params >= 13e9
        and plan.count > 1
        and plan.interconnect == "pcie"
    ):
        warnings.append(
            Notice(
                "No NVLink for a 13B+ full-parameter job: gradient sync over PCIe 5.0 "
                "(≈128 GB/s vs NVLink 900 GB/s) makes it ≈30%% slower (seed 003 T5); choose an "
                "NVLink/NVSwitch server."
            )
        )
    if nodes > 1 and plan.interconnect in ("pcie", "ethernet", "nvlink"):
        warnings.append(
            Notice(
                "Multi-node training over plain Ethernet/PCIe: cross-node gradient sync needs "
                "RDMA — InfiniBand NDR 400 Gb/s or RoCE (85–95%% of InfiniBand, seed 000 U6)."
            )
        )
    if nodes > 1 and plan.interconnect == "roce" and plan.count >= 2048:
        warnings.append(
            Notice("RoCE at 2,048+ GPUs: seed 000 U6 says InfiniBand pays off from that scale.")
        )
    if plan.training and req.task == "pretrain" and plan.count <= 16 and plan.training.days > 30:
        warnings.append(
            Notice(
                "Seed 000 says 8×A100 train a 7B model on 1T tokens in about a month; 6·N·D "
                "says otherwise: this run needs %(days)s days (%(months)s months) on "
                "%(count)s × %(gpu)s (PRODUCT.md §4: ≈16 months at 40%% MFU).",
                days=fmt(plan.training.days),
                months=fmt(plan.training.days / 30.4),
                count=plan.count,
                gpu=plan.gpu.name,
            )
        )
    if plan.training and nodes > 1 and req.task in TRAINING_TASKS:
        one = math.prod(
            v
            for _, v in compute.mfu_factors(
                gpu=plan.gpu,
                model=model,
                precision=req.precision,
                task=req.task,
                gpus=1,
                nodes=1,
                interconnect="nvlink",
            )
        )
        speedup = plan.count * plan.training.mfu / one
        warnings.append(
            Notice(
                "Speed-up over one GPU: %(speedup)s× on %(count)s GPUs — never more than "
                "linear (seed 000's '2 nodes, 8 GPUs ≈13× one GPU' is super-linear; "
                "PRODUCT.md §4).",
                speedup=f"{speedup:.1f}",
                count=plan.count,
            )
        )
    if per_node > 1 and plan.gpu.memory_gb >= 80:
        warnings.append(
            Notice(
                "RAM follows the 2× VRAM rule (T6/U5); seed 003's own 4-GPU (512 GB for "
                "320 GB) and 16-GPU (1 TB per 640 GB node) templates are only ≈1.6× "
                "(PRODUCT.md §4)."
            )
        )
    if req.mfu and req.mfu > 0.6:
        warnings.append(
            Notice(
                "Pinned MFU %(mfu)s is above what published large runs reach (≈40–55%%); peak "
                "TFLOPS quoted with sparsity are not dense training throughput (PRODUCT.md §4).",
                mfu=f"{req.mfu:.0%}",
            )
        )


def _notice_out(warning: str) -> NoticeOut:
    template, params = template_and_params(warning)
    return NoticeOut(template=template, params=params)


def _infra_out(infra: Infra) -> InfraOut:
    return InfraOut(
        nodes=infra.nodes,
        gpus_per_node=infra.gpus_per_node,
        cpu_cores=infra.cpu_cores,
        cpu_cores_per_node=infra.cpu_cores_per_node,
        ram_gb=infra.ram_gb,
        ram_gb_per_node=infra.ram_gb_per_node,
        nvme_tb=infra.nvme_tb,
        nvme_tb_per_node=infra.nvme_tb_per_node,
        nas_tb=infra.nas_tb,
        checkpoint_gb=infra.checkpoint_gb,
        checkpoint_kind=infra.checkpoint_kind,
        network=NetworkOut(
            uplink_gbps=infra.uplink_gbps,
            transfer_hours=infra.transfer_hours,
            internal=infra.internal,
            scale_out=infra.scale_out,
            rails=infra.rails,
        ),
        power_kw=infra.power_kw,
        power_typical_kw=infra.power_typical_kw,
        cooling=infra.cooling,
        cooling_btu_h=infra.power_kw * 3412.14,
        storage_tiers=infra.storage_tiers,
    )


def gpu_pool(gpus: Sequence[GpuSpec] | None, prices: PriceBook | None) -> list[GpuSpec]:
    """The GPUs to plan on: given ones, else the catalog's (with the price list), else shipped."""
    if gpus is not None:
        return list(gpus)
    if prices is not None and prices.gpus:
        return list(prices.gpus)
    return default_gpus()


def default_gpu_id(pool: Sequence[GpuSpec]) -> str:
    """The provider's H100 when the pool has it, else the first GPU listed."""
    return DEFAULT_GPU if any(g.id == DEFAULT_GPU for g in pool) else pool[0].id


def estimate(
    req: EstimateRequest,
    *,
    gpus: Sequence[GpuSpec] | None = None,
    prices: PriceBook | None = None,
    search_all: bool = True,
) -> EstimateResponse:
    """Plan `req` on `gpus` (default: the shipped list); price it when `prices` is given."""
    pool = gpu_pool(gpus, prices)
    model = resolve_model(req)
    try:
        gpu = find_gpu(req.gpu or default_gpu_id(pool), pool)
    except KeyError as e:
        raise InputError("gpu", str(e.args[0])) from e
    if req.gpu_count and req.tp and req.tp > gpu.gpus_per_node:
        raise InputError(
            "tp", f"tp {req.tp} exceeds the {gpu.gpus_per_node} GPUs of one {gpu.name} node"
        )
    task = req.task
    if task == "image" and model.kind != "image":
        raise InputError("task", "task 'image' needs an image model preset (sdxl, flux-1-dev)")
    if task == "inference" and model.kind == "image":
        task = "image"
    if task in TRAINING_TASKS and model.kind == "image":
        raise InputError(
            "task",
            f"training {model.name} is not sized by this engine (diffusion training "
            "activations are not transformer activations); choose task 'image' to size "
            "generation, or a language model",
        )
    warnings: list[str] = []
    explain: list[Explanation] = []
    candidates: list[CandidateOut] = []
    if model.inferred:
        warnings.append(
            Notice(
                "Architecture inferred from %(params)sB parameters (Llama-like shape); paste "
                "the config.json for exact figures.",
                params=fmt(model.params / 1e9),
            )
        )
    if task in TRAINING_TASKS:
        plan = _plan_training(
            req, model, gpu, pool if search_all else [gpu], warnings, explain, candidates
        )
    elif task == "image":
        plan = _plan_image(req, model, gpu, warnings, explain)
    else:
        plan = _plan_inference(req, model, gpu, warnings, explain)

    nodes = math.ceil(plan.count / gpu.gpus_per_node)
    tier = planner.tier_for(plan.fraction or plan.count, nodes)
    explain.append(
        Explanation(
            "tier",
            {"single_gpu": 1, "multi_gpu": 2, "multi_node": 3}[tier],
            tier,
            f"{plan.fraction or plan.count} GPU(s) on {nodes} node(s) → {tier}",
            "T1: single GPU (7B–13B fine-tune, inference, image) · multi-GPU NVLink (13B full, "
            "70B LoRA; 2–8 GPUs) · multi-node InfiniBand (70B full, pre-training; 16+)",
        )
    )
    infra = size_infra(
        gpu=gpu,
        gpus=plan.count,
        gpus_per_node=gpu.gpus_per_node,
        model=model,
        task=task,
        dataset_gb=req.dataset_gb,
        trainable=plan.trainable,
        interconnect=plan.interconnect,
    )
    explain.extend(infra.explain)
    warnings.extend(infra.warnings)
    _seed_warnings(req, model, plan, warnings)

    cost: dict[str, Any] | None = None
    if prices is not None:
        from app.engine.plan_costs import price_plan

        cost, cost_warnings, cost_explain = price_plan(
            req=req,
            gpu=gpu,
            count=plan.count,
            fraction=plan.fraction,
            infra=infra,
            days=plan.days,
            inference=plan.inference,
            prices=prices,
        )
        warnings.extend(cost_warnings)
        explain.extend(cost_explain)
        if plan.inference and cost and cost.get("cost_per_million_tokens") is not None:
            plan.inference.cost_per_million_tokens = cost["cost_per_million_tokens"]

    rep = plan.replica.gb()
    pg = plan.per_gpu.gb()
    lay = plan.layout
    # The parts are dataclasses, which Pydantic takes as they are: only the top level is checked.
    return EstimateResponse(
        model={
            "id": model.id,
            "name": model.name,
            "kind": model.kind,
            "params_b": model.params / 1e9,
            "active_params_b": model.active_params / 1e9,
            "layers": model.layers,
            "hidden": model.hidden,
            "heads": model.heads,
            "kv_heads": model.kv_heads,
            "vocab": model.vocab,
            "inferred": model.inferred,
            "source": model.source,
        },
        task=req.task,
        precision=req.precision,
        tier=tier,
        gpu=GpuOut(
            id=gpu.id,
            name=gpu.name,
            count=plan.count,
            nodes=nodes,
            memory_gb=gpu.memory_gb,
            fraction=plan.fraction,
        ),
        parallelism=ParallelismOut(
            dp=lay.dp,
            tp=lay.tp,
            pp=lay.pp,
            zero_stage=lay.zero_stage,
            recompute=lay.recompute,  # type: ignore[arg-type]
            micro_batch=lay.micro_batch,
            global_batch=plan.global_batch,
            gradient_accumulation=max(1, math.ceil(plan.global_batch / (lay.dp * lay.micro_batch))),
        ),
        memory_gb=MemoryGB(**rep, per_gpu=pg["total"]),
        memory_per_gpu_gb=MemoryTerms(**pg),
        training=plan.training,
        inference=plan.inference,
        infra=_infra_out(infra),
        cost=cost,
        warnings=warnings,
        notices=[_notice_out(w) for w in warnings],
        explain=explain,
        candidates=candidates,
    )
