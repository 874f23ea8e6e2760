"""Serving plans: a language model answering `users` at once (PRODUCT.md §5, issue 12).

Steps: the service-level targets (the request's `slo`, else the reading-speed floor); for
each tensor-parallel degree the GPU's NVLink domain allows, how many users one replica holds
with every user at the targets (`inference.max_concurrency_at`); the configuration with the
fewest GPUs that covers the users; a quarter-GPU MIG slice when the whole service fits one
(T8). Pins are pins: with `gpu_count` (and `tp`) pinned the count, TP and replicas
(count ÷ TP) are never changed, and one warning says what they hold and what would be needed.

Units: memory in bytes (GB = 1e9 B in explanations), throughput in tokens/s, time in s.
Sources: `inference` (step model), `serving_stack` (shares of peak), vLLM (Kwon et al. 2023)
for the KV cache, the NVIDIA MIG user guide and seed 003 T8 for slices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from app.engine import inference, memory, planner
from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation, operands
from app.engine.formatting import gpus as fmt_gpus
from app.engine.formatting import plural
from app.engine.hardware import GpuSpec
from app.engine.inference import MIG_QUARTER, OperatingPoint, ServingConfig
from app.engine.notices import Notice, one_or_many
from app.engine.plan import Plan
from app.engine.price_book import PriceBook
from app.engine.schemas import (
    CandidateOut,
    EstimateRequest,
    InferenceOut,
    ServingPointOut,
    UncertaintyOut,
)
from app.engine.units import GB, fmt

TP_DEGREES = (1, 2, 4, 8, 16, 32, 64, 72)  # tensor-parallel degrees tried, smallest first
MAX_REPLICAS = 100_000


@dataclass(frozen=True, slots=True)
class Targets:
    ttft_s: float | None
    tokens_per_s_per_user: float
    stated: bool  # False: no `slo` in the request, only the reading-speed floor


@dataclass(frozen=True, slots=True)
class Layout:
    """A serving layout: `replicas` copies of the model, each on `tp` GPUs."""

    cfg: ServingConfig
    replicas: int
    per_replica: int  # users one replica holds at the targets (0: not even one)
    capacity: int  # sequences one replica's KV cache holds

    @property
    def gpus(self) -> int:
        return self.cfg.tp * self.replicas

    @property
    def held(self) -> int:
        return self.per_replica * self.replicas


def targets_for(req: EstimateRequest) -> Targets:
    """The request's targets; without `slo`, every user at reading speed at least."""
    slo = req.slo
    rate = (slo.tokens_per_s_per_user if slo else None) or inference.MIN_TOKENS_PER_S_PER_USER
    return Targets(slo.ttft_s if slo else None, rate, slo is not None)


def users_of(req: EstimateRequest) -> int:
    return req.users or req.concurrency


def config_for(req: EstimateRequest, model: ModelSpec, gpu: GpuSpec, tp: int) -> ServingConfig:
    """The request's workload on `tp` GPUs of `gpu`: prompt = context − answer."""
    kv_dtype = req.kv_dtype or ("fp8" if req.precision in ("fp8", "fp4") else "bf16")
    link = "pcie" if req.interconnect == "pcie" or not gpu.has_nvlink else "nvlink"
    return ServingConfig(
        model=model,
        gpu=gpu,
        precision=req.precision,
        kv_dtype=kv_dtype,
        tp=tp,
        input_tokens=max(1, req.avg_context_tokens - req.output_tokens),
        output_tokens=req.output_tokens,
        gpu_memory_utilization=req.gpu_memory_utilization,
        interconnect=link,
    )


def tp_options(model: ModelSpec, gpu: GpuSpec, pinned: int | None) -> list[int]:
    """TP degrees to try: the pinned one, else those that split the heads evenly and stay in
    one NVLink domain (PCIe parts: in one node, all-reducing over PCIe)."""
    if pinned:
        return [pinned]
    span = gpu.scale_up_domain if gpu.has_nvlink else gpu.gpus_per_node
    out = []
    for tp in TP_DEGREES:
        if tp > span:
            break
        heads_ok = not model.heads or model.heads % tp == 0
        kv_ok = not model.kv_heads or model.kv_heads % tp == 0 or tp % model.kv_heads == 0
        if tp == 1 or (heads_ok and kv_ok):
            out.append(tp)
    return out


def layout_for(cfg: ServingConfig, targets: Targets, users: int, replicas: int | None) -> Layout:
    """The layout of `cfg` for `users`: `replicas` pinned, else as many as the targets need."""
    cap = inference.kv_capacity(cfg)
    per = inference.max_concurrency_at(
        cfg, ttft_s=targets.ttft_s, tokens_per_s_per_user=targets.tokens_per_s_per_user
    )
    if replicas is None:
        replicas = math.ceil(users / per) if per else 0
    return Layout(cfg, replicas, per, cap)


def smallest_layout(
    req: EstimateRequest, model: ModelSpec, gpu: GpuSpec, targets: Targets, users: int
) -> Layout | None:
    """The layout with the fewest GPUs that holds `users` at the targets (smaller TP on ties)."""
    best: Layout | None = None
    pinned_tp = req.tp * (req.pp or 1) if req.tp else None
    for tp in tp_options(model, gpu, pinned_tp):
        lay = layout_for(config_for(req, model, gpu, tp), targets, users, None)
        if 0 < lay.replicas <= MAX_REPLICAS and (best is None or lay.gpus < best.gpus):
            best = lay
    return best


def pinned_layout(
    req: EstimateRequest, model: ModelSpec, gpu: GpuSpec, targets: Targets, users: int
) -> Layout:
    """`gpu_count` pinned: TP the pinned one, else the divisor of the count (within the NVLink
    domain) whose replicas hold the most users; replicas = count ÷ TP, never more."""
    count = req.gpu_count or 1
    pinned_tp = req.tp * (req.pp or 1) if req.tp else None
    best: Layout | None = None
    for tp in tp_options(model, gpu, pinned_tp) if pinned_tp else TP_DEGREES:
        if tp > count or count % tp:
            continue
        if not pinned_tp and tp not in tp_options(model, gpu, None):
            continue
        lay = layout_for(config_for(req, model, gpu, tp), targets, users, count // tp)
        if best is None or _pinned_rank(lay, users) > _pinned_rank(best, users):
            best = lay
    if best is None:  # the pinned TP does not divide the count: the schema rejects that
        tp = pinned_tp or 1
        best = layout_for(config_for(req, model, gpu, tp), targets, users, max(1, count // tp))
    return best


def _pinned_rank(lay: Layout, users: int) -> tuple[bool, int, bool, int]:
    """Pinned layouts' order: all the users held, then the most held, then one that fits at
    all; smaller TP (more replicas) among those that fit, the largest among those that do
    not (the least overflow: DeepSeek-V3 on 8 pinned H200 read "does not fit on 1 × H200")."""
    fits = lay.capacity > 0
    return (lay.held >= users, lay.held, fits, -lay.cfg.tp if fits else lay.cfg.tp)


def point_for(lay: Layout, users: int) -> OperatingPoint:
    """The service at the requested users, spread evenly over the replicas."""
    per = max(1, math.ceil(users / max(lay.replicas, 1)))
    return inference.operating_point(lay.cfg, per, max(lay.capacity, 1))


def plan_inference(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    warnings: list[str],
    explain: list[Explanation],
    pool: Sequence[GpuSpec] = (),
    candidates: list[CandidateOut] | None = None,
    *,
    slice_rented: bool = True,
) -> Plan:
    """Size a service of `model` on `gpu` for the request's users, prompt, answer and targets.

    slice_rented: whether the price list rents this GPU as a MIG 1/4 slice (True when no list
    prices the plan). A slice is sized only where it is rented as one, as `choose` ranks it:
    a quarter of an H200, with a quarter of its bandwidth, was billed as a whole H200 (QA).
    """
    users = users_of(req)
    targets = sized = targets_for(req)
    fraction = None
    if req.gpu_count:
        lay = pinned_layout(req, model, gpu, targets, users)
        if lay.capacity == 0:
            warnings.extend(_does_not_fit(req, model, gpu, lay, pool))
        elif lay.held < users:
            warnings.append(_pin_short_warning(req, model, gpu, targets, users, lay))
    else:
        found = smallest_layout(req, model, gpu, targets, users)
        if found is None and targets.stated:
            relaxed = _sized_below_targets(req, model, gpu, targets, users, warnings)
            if relaxed is not None:
                found, sized = relaxed  # users per replica are at the relaxed targets
        if found is None:
            lay = _overflowing(req, model, gpu, targets, users, warnings, pool)
        else:
            lay = found
            mig = _mig_quarter(req, model, gpu, targets, users, lay) if slice_rented else None
            if mig is not None:
                lay, mig_ex = mig
                fraction = MIG_QUARTER
                explain.append(mig_ex)
    point = point_for(lay, users)
    explain.extend(inference.explain_point(lay.cfg, point, lay.capacity, lay.replicas))
    explain.append(_per_replica_explained(lay, sized, users))
    explain.append(_aggregate_tokens_explained(lay, point))
    if candidates is not None and pool:
        candidates.extend(slo_candidates(req, model, pool, targets, users))
    meets = lay.held >= users and sized is targets
    fits = lay.capacity > 0
    if lay.held < users and fits and not req.gpu_count:
        warnings.append(
            Notice(
                "Each user decodes at %(rate)s tokens/s, below the %(floor)s tokens/s target.",
                rate=f"{point.tokens_per_s_per_user:.1f}",
                floor=f"{targets.tokens_per_s_per_user:g}",
            )
        )
    offline = inference.max_load(lay.cfg)
    band = _uncertainty()
    inf = InferenceOut(
        max_concurrency=lay.capacity * lay.replicas,
        tokens_per_s=point.tokens_per_s * lay.replicas,
        tokens_per_s_per_user=point.tokens_per_s_per_user,
        time_to_first_token_s=point.ttft_s,
        cost_per_million_tokens=None,
        replicas=lay.replicas,
        itl_s=point.itl_s,
        meets_slo=meets,
        fits=fits,
        concurrency_per_replica=lay.per_replica,
        max_concurrency_per_replica=lay.capacity,
        offline_tokens_per_s=offline.tokens_per_s * lay.replicas,
        uncertainty=band,
        curve=[
            ServingPointOut(
                concurrency=p.concurrency,
                tokens_per_s_per_user=p.tokens_per_s_per_user,
                tokens_per_s=p.tokens_per_s,
                ttft_s=p.ttft_s,
            )
            for p in inference.curve(lay.cfg)
        ],
    )
    cfg = lay.cfg
    kv_per_gpu = point.batch * req.avg_context_tokens * inference.kv_bytes_per_token_per_gpu(cfg)
    per_gpu = memory.Memory(
        weights=inference.weight_bytes(model, cfg.precision) / cfg.tp,
        activations=inference.activation_bytes_per_gpu(cfg),
        kv_cache=kv_per_gpu,
        overhead=inference.overhead_bytes_per_gpu(cfg),
    )
    replica = _replica(req, model, cfg, point, explain)
    count = req.gpu_count or lay.gpus
    nodes = math.ceil(count / gpu.gpus_per_node)
    # Replicas are independent copies, each inside one machine (TP within the NVLink domain):
    # more than one server needs Ethernet to the load balancer, not an InfiniBand fabric (QA:
    # 13 single-GPU replicas were sized with 8 rails of InfiniBand NDR).
    ic = req.interconnect or (
        "ethernet"
        if nodes > 1
        else planner.natural_interconnect(gpu, nodes, min(count, gpu.gpus_per_node))
    )
    return Plan(
        gpu=gpu,
        count=count,
        fraction=fraction,
        layout=memory.Layout(dp=lay.replicas, tp=cfg.tp, pp=1, zero_stage=0, recompute="none"),
        replica=replica,
        per_gpu=per_gpu,
        interconnect=ic,
        trainable=0,
        global_batch=1,
        training=None,
        inference=inf,
        days=None,
    )


def slo_candidates(
    req: EstimateRequest,
    model: ModelSpec,
    pool: Sequence[GpuSpec],
    targets: Targets,
    users: int,
) -> list[CandidateOut]:
    """The smallest layout on every GPU of the pool (the SLO search over every GPU)."""
    out = []
    for g in pool:
        if req.precision == "fp4" and not g.supports_fp4:
            out.append(_candidate(g.id, 0, None, "no FP4 tensor cores"))
            continue
        lay = smallest_layout(req, model, g, targets, users)
        if lay is None:
            out.append(_candidate(g.id, 0, None, "targets not met at any TP"))
            continue
        gb = (
            inference.weight_bytes(model, req.precision) / lay.cfg.tp
            + inference.overhead_bytes_per_gpu(lay.cfg)
        ) / GB
        out.append(_candidate(g.id, lay.gpus, gb, f"TP {lay.cfg.tp} × {_replicas(lay)}"))
    return out


def _replicas(lay: Layout) -> str:
    """ "1 replica", "3 replicas": a layout's replicas as its formulas and reasons say them."""
    return plural(str(lay.replicas), "replica")


def _candidate(gpu: str, count: int, per_gpu_gb: float | None, reason: str) -> CandidateOut:
    return CandidateOut(
        gpu=gpu, count=count, feasible=count > 0, days=None, per_gpu_gb=per_gpu_gb, reason=reason
    )


def _pin_short_warning(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    targets: Targets,
    users: int,
    lay: Layout,
) -> str:
    """One warning: what the pinned GPUs hold at the targets and how many GPUs would do."""
    need = smallest_layout(req.model_copy(update={"gpu_count": None}), model, gpu, targets, users)
    needed = str(need.gpus) if need else f"> {MAX_REPLICAS}"
    params = dict(
        count=req.gpu_count,
        gpu=gpu.name,
        tp=lay.cfg.tp,
        replicas=lay.replicas,
        held=lay.held,
        rate=f"{targets.tokens_per_s_per_user:g}",
        users=users,
        needed=needed,
    )
    if targets.ttft_s:
        return Notice(
            one_or_many(
                lay.replicas,
                "The pinned %(count)s × %(gpu)s (TP %(tp)s, %(replicas)s replica) hold "
                "%(held)s users at %(rate)s tokens/s each and first token within %(ttft)s s; "
                "%(users)s users need %(needed)s GPUs.",
                "The pinned %(count)s × %(gpu)s (TP %(tp)s, %(replicas)s replicas) hold "
                "%(held)s users at %(rate)s tokens/s each and first token within %(ttft)s s; "
                "%(users)s users need %(needed)s GPUs.",
            ),
            ttft=f"{targets.ttft_s:g}",
            **params,
        )
    return Notice(
        one_or_many(
            lay.replicas,
            "The pinned %(count)s × %(gpu)s (TP %(tp)s, %(replicas)s replica) hold %(held)s "
            "users at %(rate)s tokens/s each; %(users)s users need %(needed)s GPUs.",
            "The pinned %(count)s × %(gpu)s (TP %(tp)s, %(replicas)s replicas) hold %(held)s "
            "users at %(rate)s tokens/s each; %(users)s users need %(needed)s GPUs.",
        ),
        **params,
    )


def _sized_below_targets(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    targets: Targets,
    users: int,
    warnings: list[str],
) -> tuple[Layout, Targets] | None:
    """No layout of `gpu` meets the stated targets, even with one user a replica: the users
    are still served, sized without the first-token target at the stated rate, else at the
    lower of it and reading speed (`inference.MIN_TOKENS_PER_S_PER_USER`), and a warning
    says what the targets asked, the best any layout gives, and what this plan gives. The
    layout and the targets it was sized at; None when no rate works either (the caller then
    shows one replica, flagged)."""
    rates = [targets.tokens_per_s_per_user]
    if targets.tokens_per_s_per_user > inference.MIN_TOKENS_PER_S_PER_USER:
        rates.append(inference.MIN_TOKENS_PER_S_PER_USER)
    if not targets.ttft_s:
        rates = rates[1:]  # the stated rate alone already failed
    for rate in rates:
        sized = Targets(None, rate, False)
        lay = smallest_layout(req, model, gpu, sized, users)
        if lay is not None:
            break
    else:
        return None
    # the best one user sees: one user a replica on the largest tensor-parallel group
    tp = tp_options(model, gpu, req.tp)[-1]
    best = inference.operating_point(config_for(req, model, gpu, tp), 1)
    got = point_for(lay, users)
    params = dict(
        gpu=gpu.name,
        target_rate=f"{targets.tokens_per_s_per_user:g}",
        tp=tp,
        best_ttft=_seconds(best.ttft_s),
        best_rate=f"{best.tokens_per_s_per_user:.1f}",
        floor=f"{sized.tokens_per_s_per_user:g}",
        ttft=_seconds(got.ttft_s),
        rate=f"{got.tokens_per_s_per_user:.1f}",
    )
    warnings.append(
        Notice(
            "No layout of %(gpu)s meets the targets (first token within %(target_ttft)s s, "
            "%(target_rate)s tokens/s per user): the best, one user per replica at TP %(tp)s, "
            "gets the first token in %(best_ttft)s s at %(best_rate)s tokens/s. The plan is "
            "sized instead for every user at %(floor)s tokens/s or more, with no first-token "
            "target: first token in %(ttft)s s, %(rate)s tokens/s per user. It does not meet "
            "the targets."
            if targets.ttft_s
            else "No layout of %(gpu)s meets the target of %(target_rate)s tokens/s per user: "
            "the best, one user per replica at TP %(tp)s, gets %(best_rate)s tokens/s. The "
            "plan is sized instead for every user at %(floor)s tokens/s or more: first token "
            "in %(ttft)s s, %(rate)s tokens/s per user. It does not meet the target.",
            target_ttft=f"{targets.ttft_s or 0:g}",
            **params,
        )
    )
    return lay, sized


def _seconds(s: float) -> str:
    """A time in seconds to three significant figures: 0.0312, 1.25, 180."""
    return f"{s:.3g}" if s < 1000 else f"{s:,.0f}"


def _overflowing(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    targets: Targets,
    users: int,
    warnings: list[str],
    pool: Sequence[GpuSpec] = (),
) -> Layout:
    """Nothing meets the targets: the largest TP with the most users it holds, flagged."""
    opts = tp_options(model, gpu, req.tp)
    cfg = config_for(req, model, gpu, opts[-1])
    lay = layout_for(cfg, targets, users, 1)
    if lay.capacity == 0:
        warnings.extend(_does_not_fit(req, model, gpu, lay, pool))
    return lay


def _does_not_fit(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    lay: Layout,
    pool: Sequence[GpuSpec],
) -> list[str]:
    """The weights and one sequence's KV cache overflow each GPU of the largest TP group the
    request allows: the plan cannot run and is not priced (as a training plan that overflows,
    app.engine.training), and where one user would fit at the same precision, if anywhere."""
    out: list[str] = [
        Notice(
            "%(model)s in %(precision)s does not fit on %(count)s × %(gpu)s with room for one "
            "sequence of KV cache: the figures shown overflow memory; the plan cannot run as "
            "shown and is not priced.",
            model=model.name,
            precision=req.precision,
            count=lay.cfg.tp,
            gpu=gpu.name,
        )
    ]
    free = req.model_copy(update={"gpu_count": None, "tp": None})
    targets = targets_for(req)
    # First on the GPU asked for, at the first lower precision it runs that holds one user.
    for lower in ("fp8", "int8", "int4", "fp4"):
        if memory.WEIGHT_BYTES[lower] >= memory.WEIGHT_BYTES[req.precision]:
            continue
        if (lower == "fp8" and not gpu.fp8_tflops) or (lower == "fp4" and not gpu.supports_fp4):
            continue
        here = smallest_layout(
            free.model_copy(update={"precision": lower, "kv_dtype": None}),
            model, gpu, targets, 1,
        )  # fmt: skip
        if here is not None:
            out.append(
                Notice(
                    "In %(precision)s it fits on %(count)s × %(gpu)s (TP %(tp)s), with one user "
                    "at the targets.",
                    precision=lower, count=here.gpus, gpu=gpu.name, tp=here.cfg.tp,
                )
            )  # fmt: skip
            break
    elsewhere: list[tuple[int, str, int]] = []
    for g in pool:
        if g.id == gpu.id or (req.precision == "fp4" and not g.supports_fp4):
            continue
        other = smallest_layout(free, model, g, targets, 1)
        if other is not None:
            elsewhere.append((other.gpus, g.name, other.cfg.tp))
    if elsewhere:
        count, name, tp = min(elsewhere)
        out.append(
            Notice(
                "It fits on %(count)s × %(gpu)s (TP %(tp)s) in %(precision)s, with one user at the "
                "targets.",
                count=count, gpu=name, tp=tp, precision=req.precision,
            )
        )  # fmt: skip
    return out


def _mig_quarter(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    targets: Targets,
    users: int,
    lay: Layout,
) -> tuple[Layout, Explanation] | None:
    """T8: a quarter-GPU MIG slice when one slice holds every user at the targets."""
    if not gpu.mig_max or lay.gpus != 1 or req.tp:
        return None
    cfg = config_for(req, model, inference.mig_quarter(gpu), 1)
    slice_lay = layout_for(cfg, targets, users, 1)
    if slice_lay.per_replica < users:
        return None
    return slice_lay, Explanation(
        "gpu.fraction",
        MIG_QUARTER,
        "GPU",
        f"one {fmt(gpu.memory_gb * inference.MIG_QUARTER_MEMORY)} GB slice (a quarter of the "
        f"memory and bandwidth, 2/7 of the compute) holds "
        f"{plural(str(slice_lay.per_replica), 'user')} at {targets.tokens_per_s_per_user:g} "
        f"tokens/s each ≥ {plural(str(users), 'user')}",
        "T8: H100 MIG 1/4 slice NT$15,000/month; NVIDIA MIG user guide (H100 2g.20gb)",
        operands(
            slice_memory=(inference.MIG_QUARTER_MEMORY, "of the GPU's memory"),
            users_per_slice=(slice_lay.per_replica, "users"),
            users=(users, "users"),
        ),
        "slice_memory if users_per_slice >= users else 1",
    )


def _per_replica_explained(lay: Layout, targets: Targets, users: int) -> Explanation:
    ttft = f", first token ≤ {targets.ttft_s:g} s" if targets.ttft_s else ""
    return Explanation(
        "inference.concurrency_per_replica",
        lay.per_replica,
        "users per replica",
        f"most users one replica of TP {lay.cfg.tp} holds with each at ≥ "
        f"{targets.tokens_per_s_per_user:g} tokens/s{ttft}: {lay.per_replica}; "
        f"{plural(str(users), 'user')} / {lay.per_replica} = {_replicas(lay)} × "
        f"{fmt_gpus(str(lay.cfg.tp))}",
        "bisection over the step model's operating points (app.engine.inference)",
        operands(users_per_replica=(lay.per_replica, "users (the bisection's answer)")),
        "users_per_replica",
    )


def _aggregate_tokens_explained(lay: Layout, point: OperatingPoint) -> Explanation:
    """Output tokens/s of the whole service: every replica decodes its own batch."""
    total = point.tokens_per_s * lay.replicas
    return Explanation(
        "inference.tokens_per_s",
        total,
        "tokens/s",
        f"{_replicas(lay)} × {plural(str(point.batch), 'sequence')} / "
        f"{point.itl_s * 1e3:.2f} ms "
        f"= {lay.replicas} × {fmt(point.tokens_per_s)} = {fmt(total)} tokens/s",
        "aggregate output tokens of all replicas at the requested concurrency; one replica: "
        "batch / step time (continuous batching, one token per sequence per step)",
        operands(
            replicas=(lay.replicas, "replicas"),
            tokens_per_s_per_replica=(point.tokens_per_s, "tokens/s"),
        ),
        "replicas * tokens_per_s_per_replica",
    )


@cache
def _uncertainty() -> UncertaintyOut | None:
    """The serving validation table's median |error| (all rows) as the band of a figure."""
    from app.engine import serving_validation
    from app.engine.validation import summarise

    s = summarise(serving_validation.rows())
    return None if s is None else UncertaintyOut(median_pct=s.median_pct, runs=s.runs)


def _replica(
    req: EstimateRequest,
    model: ModelSpec,
    cfg: ServingConfig,
    point: OperatingPoint,
    explain: list[Explanation],
) -> memory.Memory:
    """One replica's memory in bytes: weights, activations, the KV cache of its users."""
    w, wx = memory.inference_weights(model, req.precision)
    explain.append(wx)
    # Each sequence holds room for its whole prompt + answer (see inference.kv_capacity).
    tokens = point.batch * req.avg_context_tokens
    kv = memory.kv_cache_bytes(model, tokens=tokens, kv_dtype=cfg.kv_dtype)
    explain.append(
        Explanation(
            "memory_gb.kv_cache",
            kv / GB,
            "GB",
            f"{plural(str(point.batch), 'sequence')} × {req.avg_context_tokens} tokens × "
            f"{fmt(model.kv_cache_bytes_per_token(memory.KV_BYTES[cfg.kv_dtype]))} B = "
            f"{fmt(kv / GB)} GB ({cfg.kv_dtype})",
            "2 × layers × kv_heads × head_dim × bytes per token (vLLM, Kwon et al. 2023)",
            operands(
                sequences=(point.batch, "sequences"),
                context_tokens=(req.avg_context_tokens, "tokens"),
                kv_bytes_per_token=(
                    model.kv_cache_bytes_per_token(memory.KV_BYTES[cfg.kv_dtype]),
                    "B/token",
                ),
                gb=(GB, "B/GB"),
            ),
            "sequences * context_tokens * kv_bytes_per_token / gb",
        )
    )
    return memory.Memory(
        weights=w,
        activations=inference.activation_bytes_per_gpu(cfg) * cfg.tp,
        kv_cache=kv,
        overhead=memory.CUDA_CONTEXT_GB * GB,
    )


# ------------------------------------------------------------------ the SLO search over GPUs


@dataclass(frozen=True, slots=True)
class Choice:
    """One GPU's smallest layout at the targets and what it rents for (None: no offer)."""

    gpu: GpuSpec
    layout: Layout | None  # None: the targets are not met at any TP
    monthly: float | None  # rent per month in the request's currency, MIG slice included
    mig: bool  # a quarter-GPU slice holds every user


def monthly_rent(
    prices: PriceBook | None, gpu_id: str, currency: str, count: float
) -> float | None:
    """Monthly rent of `count` GPUs (0.25: one MIG 1/4 slice) in `currency`: the cheapest
    per-GPU rate among the rental offers no larger than `count` (a 1-GPU service is not
    priced at the 8-GPU bulk rate), else the smallest offer's; None when nothing rents it."""
    if prices is None:
        return None
    offers = [o for o in prices.offers if o.gpu_id == gpu_id]
    if count < 1:
        offers = [o for o in offers if o.gpu_count == count]
    else:
        fitting = [o for o in offers if 1 <= o.gpu_count <= count]
        offers = fitting or sorted(offers, key=lambda o: o.gpu_count)[:1]
    rates = [
        prices.convert(o.monthly_price / o.gpu_count, o.currency, currency) * count for o in offers
    ]
    return min(rates) if rates else None


def choose(
    req: EstimateRequest,
    model: ModelSpec,
    pool: Sequence[GpuSpec],
    default: GpuSpec,
    prices: PriceBook | None,
) -> tuple[GpuSpec, list[Choice]]:
    """The GPU to serve on when none is pinned, and every GPU's smallest layout.

    'fleet' keeps the provider's GPU (`default`) whenever its smallest layout meets the
    targets — seed rules T3/T8 quote the H100 fleet — and otherwise takes the cheapest GPU
    that does. 'cheapest' ranks every GPU that meets the targets by monthly rent (count ×
    the cheapest offer per GPU, or one MIG 1/4 slice's offer when a slice holds every user),
    GPUs without an offer after those with one, then by GPU count; ties keep `default`.
    """
    targets, users = targets_for(req), users_of(req)
    choices = []
    for g in pool:
        if _ruled_out(req, g):
            choices.append(Choice(g, None, None, False))
            continue
        lay = smallest_layout(req, model, g, targets, users)
        mig = lay is not None and _mig_quarter(req, model, g, targets, users, lay) is not None
        rent = None
        if lay is not None:
            slice_rent = monthly_rent(prices, g.id, req.currency, MIG_QUARTER) if mig else None
            # A slice counts only where it is rented as one (or where nothing is priced).
            mig = mig and (prices is None or slice_rent is not None)
            rent = slice_rent if mig else monthly_rent(prices, g.id, req.currency, lay.gpus)
        choices.append(Choice(g, lay, rent, mig))
    met = [c for c in choices if c.layout is not None]
    if not met:
        return default, choices
    if req.gpu_search == "fleet" and any(c.gpu.id == default.id for c in met):
        return default, choices

    def rank(c: Choice) -> tuple[bool, float, float, bool]:
        assert c.layout is not None
        gpus = MIG_QUARTER if c.mig else c.layout.gpus
        return (c.monthly is None, c.monthly or 0.0, gpus, c.gpu.id != default.id)

    return min(met, key=rank).gpu, choices


def _ruled_out(req: EstimateRequest, gpu: GpuSpec) -> bool:
    """Whether the request itself excludes `gpu` from the search: fp4 on a GPU without FP4
    tensor cores, or an NVLink interconnect asked of a GPU that has none (a PCIe L40S was
    chosen under `interconnect: nvlink`; pinned, the same request is refused)."""
    return (req.precision == "fp4" and not gpu.supports_fp4) or (
        req.interconnect == "nvlink" and not gpu.has_nvlink
    )


def choice_candidates(
    choices: Sequence[Choice], currency: str, precision: str, interconnect: str | None = None
) -> list[CandidateOut]:
    """The SLO search as the response's candidates: each GPU's layout and monthly rent."""
    out = []
    for c in choices:
        if c.layout is None:
            if precision == "fp4" and not c.gpu.supports_fp4:
                reason = "no FP4 tensor cores"
            elif interconnect == "nvlink" and not c.gpu.has_nvlink:
                reason = "no NVLink"
            else:
                reason = "targets not met at any TP"
            out.append(_candidate(c.gpu.id, 0, None, reason))
            continue
        lay = c.layout
        shape = "MIG 1/4 slice" if c.mig else f"TP {lay.cfg.tp} × {_replicas(lay)}"
        rent = f", {c.monthly:,.0f} {currency}/month" if c.monthly is not None else ", no offer"
        gb = (
            inference.weight_bytes(lay.cfg.model, lay.cfg.precision) / lay.cfg.tp
            + inference.overhead_bytes_per_gpu(lay.cfg)
        ) / GB
        out.append(_candidate(c.gpu.id, lay.gpus, gb, shape + rent))
    return out
