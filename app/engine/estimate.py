"""One estimate: a workload in, a plan out (PRODUCT.md §5).

This module only orchestrates: it checks the request, hands it to the task's planner
(`training`, `serving`, `image`), then sizes the servers around the plan (`infra`), adds the
seed warnings (`seed_warnings`), prices it when a price list is given (`plan_costs`) and
assembles the response. Every figure it returns carries an `Explanation`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from app.engine import compute, memory, planner
from app.engine.architectures import ModelSpec, from_hf_config, from_param_count, get_preset
from app.engine.explain import Explanation
from app.engine.gpus import DEFAULT_GPU, default_gpus, find_gpu
from app.engine.hardware import GpuSpec
from app.engine.image import plan_image
from app.engine.infra import Infra, size_infra
from app.engine.notices import Notice, template_and_params
from app.engine.plan import Plan
from app.engine.price_book import PriceBook
from app.engine.schemas import (
    TRAINING_TASKS,
    CandidateOut,
    CurvePoint,
    EstimateRequest,
    EstimateResponse,
    GpuOut,
    InfraOut,
    MemoryGB,
    MemoryTerms,
    NetworkOut,
    NoticeOut,
    ParallelismOut,
    TrainingOut,
)
from app.engine.seed_warnings import seed_warnings
from app.engine.serving import plan_inference
from app.engine.units import GB, fmt

BYTES_PER_TOKEN = 4.0  # ≈4 characters of English text per BPE token (OpenAI tokenizer guide)
CHINCHILLA_TOKENS_PER_PARAM = 20.0  # Hoffmann et al. 2022: compute-optimal D ≈ 20 N
DEFAULT_FINETUNE_TOKENS = 1e8
PRETRAIN_BATCH_TOKENS = 4e6  # Llama 2 §2.2: global batch of 4M tokens
FINETUNE_GLOBAL_BATCH = 64  # sequences per step, a common SFT/LoRA recipe

__all__ = ["InputError", "default_gpu_id", "estimate", "gpu_pool", "resolve_model"]


class InputError(ValueError):
    """A request value the engine cannot use; `field` is its dotted path for a 422."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


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
    gpu = _chosen_gpu(req, pool)
    task = _task(req, model)
    warnings = _inferred_model_warnings(model)
    explain: list[Explanation] = []
    candidates: list[CandidateOut] = []
    if task in TRAINING_TASKS:
        plan = _plan_training(
            req, model, gpu, pool if search_all else [gpu], warnings, explain, candidates
        )
    elif task == "image":
        plan = plan_image(req, model, gpu, warnings, explain)
    else:
        plan = plan_inference(req, model, gpu, warnings, explain)
    nodes = math.ceil(plan.count / gpu.gpus_per_node)
    tier = planner.tier_for(plan.fraction or plan.count, nodes)
    explain.append(_tier_explained(plan, nodes, tier))
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
    warnings.extend(seed_warnings(req, model, plan))
    cost = None if prices is None else _price(req, plan, infra, prices, warnings, explain)
    per_gpu = plan.per_gpu.gb()
    return EstimateResponse(
        model=_model_out(model),
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
        parallelism=_parallelism_out(plan),
        memory_gb=MemoryGB(**plan.replica.gb(), per_gpu=per_gpu["total"]),
        memory_per_gpu_gb=MemoryTerms(**per_gpu),
        training=plan.training,
        inference=plan.inference,
        infra=_infra_out(infra),
        cost=cost,
        warnings=warnings,
        notices=[_notice_out(w) for w in warnings],
        explain=explain,
        candidates=candidates,
    )


# ------------------------------------------------------------------------------ the request


def resolve_model(req: EstimateRequest) -> ModelSpec:
    """The request's model: a preset, a pasted config.json, or a parameter count's shape."""
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


def _chosen_gpu(req: EstimateRequest, pool: list[GpuSpec]) -> GpuSpec:
    """The GPU to plan on: the request's, else the pool's default; its TP pin checked."""
    try:
        gpu = find_gpu(req.gpu or default_gpu_id(pool), pool)
    except KeyError as e:
        raise InputError("gpu", str(e.args[0])) from e
    if req.gpu_count and req.tp and req.tp > gpu.gpus_per_node:
        raise InputError(
            "tp", f"tp {req.tp} exceeds the {gpu.gpus_per_node} GPUs of one {gpu.name} node"
        )
    return gpu


def _inferred_model_warnings(model: ModelSpec) -> list[str]:
    """The estimate's first warnings: one when the architecture was guessed from its size."""
    if not model.inferred:
        return []
    return [
        Notice(
            "Architecture inferred from %(params)sB parameters (Llama-like shape); paste "
            "the config.json for exact figures.",
            params=fmt(model.params / 1e9),
        )
    ]


def _task(req: EstimateRequest, model: ModelSpec) -> str:
    """The planner to use: the request's task, with an image model's inference as 'image'."""
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
    return task


# ---------------------------------------------------------------------------- training


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
) -> Plan:
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
    return Plan(
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


# ----------------------------------------------------------------------------- the response


def _tier_explained(plan: Plan, nodes: int, tier: str) -> Explanation:
    """T1: one GPU, one node of several GPUs, or several nodes."""
    return Explanation(
        "tier",
        {"single_gpu": 1, "multi_gpu": 2, "multi_node": 3}[tier],
        tier,
        f"{plan.fraction or plan.count} GPU(s) on {nodes} node(s) → {tier}",
        "T1: single GPU (7B–13B fine-tune, inference, image) · multi-GPU NVLink (13B full, "
        "70B LoRA; 2–8 GPUs) · multi-node InfiniBand (70B full, pre-training; 16+)",
    )


def _price(
    req: EstimateRequest,
    plan: Plan,
    infra: Infra,
    prices: PriceBook,
    warnings: list[str],
    explain: list[Explanation],
) -> dict[str, Any] | None:
    """The cost block (`plan_costs.price_plan`); fills in the service's cost per 1M tokens."""
    from app.engine.plan_costs import price_plan

    cost, cost_warnings, cost_explain = price_plan(
        req=req,
        gpu=plan.gpu,
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
    return cost


def _model_out(model: ModelSpec) -> dict[str, Any]:
    return {
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
    }


def _parallelism_out(plan: Plan) -> ParallelismOut:
    lay = plan.layout
    return ParallelismOut(
        dp=lay.dp,
        tp=lay.tp,
        pp=lay.pp,
        zero_stage=lay.zero_stage,
        recompute=lay.recompute,  # type: ignore[arg-type]
        micro_batch=lay.micro_batch,
        global_batch=plan.global_batch,
        gradient_accumulation=max(1, math.ceil(plan.global_batch / (lay.dp * lay.micro_batch))),
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
