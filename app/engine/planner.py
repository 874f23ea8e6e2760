"""The planner: the smallest configuration that fits, then enough GPUs to meet the deadline.

Search order (training): for each GPU count in `COUNTS`, layouts are tried from the most to
the least efficient — tensor parallel inside a node only, pipeline across nodes, data
parallel for the rest, ZeRO stage and recomputation as memory demands — and the first that
fits in memory is kept (Narayanan et al. 2021 §3: TP within the NVLink domain, PP across).
The smallest count with a fitting layout is the minimum configuration; counts then grow until
the estimated days meet the deadline. Tier follows T1 from the chosen count.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from app.engine import compute
from app.engine.hardware import GpuSpec
from app.engine.memory import (
    CUDA_CONTEXT_GB,
    FRAGMENTATION,
    NCCL_BUFFERS_GB,
    Layout,
    Memory,
    activation_bytes_per_layer,
    embedding_params,
)
from app.engine.models import ModelSpec
from app.engine.units import GB

# GPU counts the planner considers: whole nodes of 8 beyond one node, with a geometric step.
COUNTS: tuple[int, ...] = (
    1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048,
    3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
)  # fmt: skip
MAX_SEARCH_GPUS = 32768
CURVE_SPAN = 4  # the scaling curve runs to 4× the chosen count
HEADROOM = 0.95  # keep 5% of HBM free for allocator spikes
TP_EFFICIENCY = 0.97  # per doubling of TP: exposed all-reduces (Narayanan et al. 2021 §3.2)
# ZeRO-3 moves 1.5× the data-parallel volume and re-gathers parameters for every micro-batch
# (ZeRO §7.2.2): nearly hidden inside an NVLink node, communication-bound across nodes where a
# GPU has one 400 Gb/s rail (50 GB/s) against 450 GB/s of NVLink.
ZERO3_EFFICIENCY = 0.93
ZERO3_CROSS_NODE_EFFICIENCY = 0.80
RECOMPUTE_FLOPS = {"none": 1.0, "selective": 1.0, "full": 4.0 / 3.0}


@dataclass(frozen=True, slots=True)
class TrainingJob:
    """What the planner needs about a training workload (all figures plain numbers)."""

    model: ModelSpec
    task: str
    precision: str
    seq_len: int
    micro_batch: int
    global_batch: int
    flash: bool
    # replica model states in bytes (from memory.model_states)
    weights: float
    gradients: float
    optimizer: float
    base_flops: float  # FLOPs without recomputation (6N·D form)
    interconnect: str | None  # pinned interconnect, or None for the GPU's natural one
    batch_pinned: bool = False  # global_batch given by the user (else it grows with dp)


@dataclass(frozen=True, slots=True)
class Candidate:
    gpu: GpuSpec
    count: int
    nodes: int
    layout: Layout
    per_gpu_bytes: float
    days: float
    gpu_hours: float
    mfu: float
    layout_efficiency: float
    interconnect: str


def natural_interconnect(gpu: GpuSpec, nodes: int, per_node: int) -> str:
    """What a node of this GPU uses when nothing is pinned."""
    if nodes > 1:
        return "infiniband"
    return "nvlink" if gpu.has_nvlink and per_node > 1 else "pcie"


def per_gpu_memory(job: TrainingJob, layout: Layout, gpus: int) -> Memory:
    """Most-loaded GPU's memory for `layout` (bytes), numbers only — the hot path."""
    model = job.model
    t, p, d, z = layout.tp, layout.pp, layout.dp, layout.zero_stage
    if p > 1:
        emb_total = embedding_params(model)
        emb_stage = emb_total if model.tied_embeddings else emb_total / 2
        share = ((model.params - emb_total) / p + emb_stage) / model.params
    else:
        share = 1.0
    mp = share / t
    m = Memory()
    m.weights = job.weights * mp / (d if z >= 3 else 1)
    m.gradients = job.gradients * mp / (d if z >= 2 else 1)
    m.optimizer = job.optimizer * mp / (d if z >= 1 else 1)
    s, b, h, a = job.seq_len, layout.micro_batch, model.hidden, model.heads
    act = model.layers * activation_bytes_per_layer(
        s=s, b=b, h=h, a=a, t=t, recompute=layout.recompute, flash=job.flash
    )
    if layout.recompute == "full":
        act += activation_bytes_per_layer(
            s=s, b=b, h=h, a=a, t=t, recompute="selective", flash=job.flash
        )
    act += 4.0 * s * b * model.vocab / t
    m.activations = act
    live = m.weights + m.gradients + m.optimizer + act
    m.overhead = (CUDA_CONTEXT_GB + (NCCL_BUFFERS_GB if gpus > 1 else 0.0)) * GB + (
        FRAGMENTATION * live
    )
    return m


def _layouts(
    job: TrainingJob,
    n: int,
    per_node: int,
    *,
    tp: int | None,
    pp: int | None,
    zero: int | None,
    recompute: str | None,
) -> Iterable[tuple[float, Layout]]:
    """(relative time, layout) for every layout of `n` GPUs, any order."""
    heads = job.model.heads
    tps = [tp] if tp else [x for x in (1, 2, 4, 8) if x <= per_node and heads % x == 0]
    pps = [pp] if pp else [1, 2, 4, 8, 16, 32, 64, 128]
    rcs = [recompute] if recompute else ["selective", "full"]
    for t in tps:
        if n % t:
            continue
        for p in pps:
            if n % (t * p) or p > job.model.layers:
                continue
            d = n // (t * p)
            micro = job.micro_batch
            if job.batch_pinned and d * micro > job.global_batch:
                continue  # more data-parallel ranks than sequences in a step
            steps = max(1, math.ceil(max(job.global_batch, d * micro) / (d * micro)))
            bubble = 1.0 + (p - 1) / steps  # 1F1B bubble (Narayanan et al. 2021 §2.2.1)
            zs = [zero] if zero is not None else ([0] if d == 1 else [1, 2, 3])
            for rc in rcs:
                for z in zs:
                    eff = TP_EFFICIENCY ** math.log2(t) / bubble
                    if z == 3 and d > 1:
                        eff *= ZERO3_EFFICIENCY if n <= per_node else ZERO3_CROSS_NODE_EFFICIENCY
                    cost = RECOMPUTE_FLOPS[rc] / eff
                    yield (
                        cost,
                        Layout(dp=d, tp=t, pp=p, zero_stage=z, recompute=rc, micro_batch=micro),
                    )


@lru_cache(maxsize=4096)
def _ranked_layouts(
    job: TrainingJob,
    n: int,
    per_node: int,
    tp: int | None,
    pp: int | None,
    zero: int | None,
    recompute: str | None,
) -> tuple[tuple[float, Layout, float], ...]:
    """(cost, layout, per-GPU bytes) of every layout of `n` GPUs, cheapest first.

    Independent of which GPU type runs them (only the memory cap differs), so a search over
    every default GPU ranks each count once.
    """
    ranked = sorted(
        _layouts(job, n, per_node, tp=tp, pp=pp, zero=zero, recompute=recompute),
        key=lambda c: c[0],
    )
    return tuple((cost, lay, per_gpu_memory(job, lay, n).total) for cost, lay in ranked)


def best_layout(
    job: TrainingJob,
    gpu: GpuSpec,
    n: int,
    *,
    tp: int | None = None,
    pp: int | None = None,
    zero: int | None = None,
    recompute: str | None = None,
) -> tuple[Layout, float, float] | None:
    """(layout, per-GPU bytes, efficiency) of the fastest layout of `n` GPUs that fits."""
    per_node = min(n, gpu.gpus_per_node)
    cap = gpu.memory_gb * GB * HEADROOM
    for cost, layout, mem in _ranked_layouts(job, n, per_node, tp, pp, zero, recompute):
        if mem <= cap:
            # efficiency excludes recomputation, which the FLOP count already carries
            return layout, mem, RECOMPUTE_FLOPS[layout.recompute] / cost
    return None


def evaluate(
    job: TrainingJob,
    gpu: GpuSpec,
    n: int,
    *,
    mfu: float | None = None,
    tp: int | None = None,
    pp: int | None = None,
    zero: int | None = None,
    recompute: str | None = None,
) -> Candidate | None:
    """Best fitting layout of `n` GPUs and its time, or None when nothing fits."""
    found = best_layout(job, gpu, n, tp=tp, pp=pp, zero=zero, recompute=recompute)
    if found is None:
        return None
    layout, mem, eff = found
    per_node = min(n, gpu.gpus_per_node)
    nodes = math.ceil(n / gpu.gpus_per_node)
    ic = job.interconnect or natural_interconnect(gpu, nodes, per_node)
    if mfu is None:
        factors = compute.mfu_factors(
            gpu=gpu,
            model=job.model,
            precision=job.precision,
            task=job.task,
            gpus=n,
            nodes=nodes,
            interconnect=ic,
        )
        value = math.prod(v for _, v in factors)
    else:
        value = mfu
    flops = job.base_flops * RECOMPUTE_FLOPS[layout.recompute]
    peak = gpu.peak_tflops(job.precision) * 1e12
    days = flops / (n * peak * value * eff) / compute.SECONDS_PER_DAY
    days /= compute.goodput(n, days)
    return Candidate(gpu, n, nodes, layout, mem, days, days * 24 * n, value, eff, ic)


def at_most_linear(c: Candidate, floor_gpu_hours: float) -> Candidate:
    """Never credit more than linear scaling (PRODUCT.md §4; seed 000's "≈13×" is wrong).

    A larger count can fit a cheaper layout (no recomputation, less pipelining), which would
    make it use fewer GPU-hours than a smaller count. That memory relief is real but small and
    uncertain, so the plan keeps the GPU-hours of the smaller count: days = hours / (24 n).
    """
    if c.gpu_hours >= floor_gpu_hours * (1 - 1e-9):
        return c
    days = floor_gpu_hours / (24 * c.count)
    return replace(c, days=days, gpu_hours=floor_gpu_hours)


def walk(
    job: TrainingJob,
    gpu: GpuSpec,
    *,
    up_to: int,
    **kw: Any,
) -> list[Candidate]:
    """Fitting candidates at every count the planner considers, up to `up_to` GPUs, with
    GPU-hours carried forward so they never fall as the count grows."""
    return list(_walk(job, gpu, up_to, tuple(sorted(kw.items()))))


@lru_cache(maxsize=512)
def _walk(
    job: TrainingJob, gpu: GpuSpec, up_to: int, pins: tuple[tuple[str, Any], ...]
) -> tuple[Candidate, ...]:
    return tuple(iter_walk(job, gpu, up_to=up_to, **dict(pins)))


def iter_walk(job: TrainingJob, gpu: GpuSpec, *, up_to: int, **kw: Any) -> Iterator[Candidate]:
    """`walk`, lazily: the deadline search stops at the first count that meets it."""
    floor = 0.0
    for n in COUNTS:
        if n > up_to:
            break
        if n > gpu.gpus_per_node and n % gpu.gpus_per_node:
            continue
        c = evaluate(job, gpu, n, **kw)
        if c is None:
            continue
        c = at_most_linear(c, floor)
        floor = c.gpu_hours
        yield c


def plan_training(
    job: TrainingJob,
    gpu: GpuSpec,
    *,
    deadline_days: float | None,
    gpu_count: int | None = None,
    mfu: float | None = None,
    tp: int | None = None,
    pp: int | None = None,
    zero: int | None = None,
    recompute: str | None = None,
    max_gpus: int = MAX_SEARCH_GPUS,
) -> tuple[Candidate | None, Candidate | None]:
    """(chosen, minimum) candidates on one GPU type. chosen is None when nothing fits.

    With `gpu_count` pinned only that count is planned (its GPU-hours floored by the smaller
    counts that fit). Otherwise the minimum fitting count is found, then larger counts are
    tried until the deadline is met (GPU-hours never fall with more GPUs, so the first count
    that meets it is the cheapest that does).
    """
    kw: dict[str, Any] = {"mfu": mfu, "tp": tp, "pp": pp, "zero": zero, "recompute": recompute}
    if gpu_count:
        c = evaluate(job, gpu, gpu_count, **kw)
        if c is None:
            return None, None
        # The curve up to 4× the count serves the floor here and the estimate's scaling curve.
        below = walk(job, gpu, up_to=max(8, gpu_count * CURVE_SPAN), **kw)
        floor = max((x.gpu_hours for x in below if x.count < gpu_count), default=0)
        c = at_most_linear(c, floor)
        return c, c
    minimum: Candidate | None = None
    last: Candidate | None = None
    for c in iter_walk(job, gpu, up_to=max_gpus, **kw):
        if minimum is None:
            minimum = c
        last = c
        if deadline_days is None or c.days <= deadline_days:
            return c, minimum
    return last, minimum


def tier_for(count: float, per_node: int, nodes: int) -> str:
    """T1: one GPU (or a MIG slice) → single_gpu; one node → multi_gpu; more → multi_node."""
    if nodes > 1:
        return "multi_node"
    return "single_gpu" if count <= 1 else "multi_gpu"
