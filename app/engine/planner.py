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
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter, itemgetter
from typing import NamedTuple

from app.engine import compute
from app.engine.architectures import ModelSpec
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


class Pins(NamedTuple):
    """What the request fixes; the planner chooses the rest (None = free)."""

    mfu: float | None = None
    tp: int | None = None
    pp: int | None = None
    zero: int | None = None
    recompute: str | None = None


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
    # The planner's memo tables are keyed by the job: hash its fields once, not per lookup.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash(_job_key(self)))

    def __hash__(self) -> int:
        return self._hash


_job_key = attrgetter(*(f for f in TrainingJob.__dataclass_fields__ if f != "_hash"))


@dataclass(slots=True, kw_only=True)
class Candidate:
    """One GPU count on one GPU type: its best fitting layout and how long it takes.

    Not frozen, because the planner makes one per count it walks and a frozen dataclass is
    built at half the speed; nothing changes a candidate once made (the walk memoises them).
    """

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


class _JobTerms:
    """A job's memory terms that do not depend on the GPU count, computed once per job.

    Per layout only the ZeRO division by dp and the NCCL buffers change with the count, so
    the planner's walk over counts and GPU types reuses the model-parallel share of each
    pipeline degree and the activations of each (tp, recomputation) pair.
    """

    __slots__ = ("_act", "_degrees", "_ranked", "_share", "job")

    def __init__(self, job: TrainingJob) -> None:
        self.job = job
        self._share: dict[int, float] = {}
        self._act: dict[tuple[int, str, int], float] = {}
        self._degrees: dict[tuple[int, Pins], tuple[tuple[int, int, float], ...]] = {}
        self._ranked: dict[tuple[int, int, Pins], _Ranked] = {}

    def ranked(self, n: int, per_node: int, pins: Pins) -> _Ranked:
        """The layouts of `n` GPUs (`per_node` to a node) under `pins`, cheapest first."""
        key = (n, per_node, pins)
        got = self._ranked.get(key)
        if got is None:
            degrees = self._degrees.get((per_node, pins))
            if degrees is None:
                degrees = self._degrees[(per_node, pins)] = _degrees(self.job, per_node, pins)
            options = _layouts(self.job, n, per_node, pins, degrees)
            got = self._ranked[key] = _Ranked(self, n, options)
        return got

    def share(self, p: int) -> float:
        """Share of the model's parameters on the most-loaded pipeline stage."""
        got = self._share.get(p)
        if got is None:
            model = self.job.model
            if p > 1:
                emb_total = embedding_params(model)
                emb_stage = emb_total if model.tied_embeddings else emb_total / 2
                got = ((model.params - emb_total) / p + emb_stage) / model.params
            else:
                got = 1.0
            self._share[p] = got
        return got

    def activations(self, t: int, recompute: str, b: int) -> float:
        """Activation bytes of one micro-batch of `b` sequences on one GPU of a t-way
        tensor-parallel group."""
        got = self._act.get((t, recompute, b))
        if got is None:
            job, model = self.job, self.job.model
            s, h, a = job.seq_len, model.hidden, model.heads
            got = model.layers * activation_bytes_per_layer(
                s=s, b=b, h=h, a=a, t=t, recompute=recompute, flash=job.flash
            )
            if recompute == "full":
                got += activation_bytes_per_layer(
                    s=s, b=b, h=h, a=a, t=t, recompute="selective", flash=job.flash
                )
            got += 4.0 * s * b * model.vocab / t
            self._act[(t, recompute, b)] = got
        return got

    def states(self, t: int, p: int, d: int, z: int) -> tuple[float, float, float]:
        """(weights, gradients, optimizer) bytes on the most-loaded GPU: split by t and the
        pipeline stage, then ZeRO stage z partitions over the d data-parallel ranks."""
        job = self.job
        mp = self.share(p) / t
        return (
            job.weights * mp / (d if z >= 3 else 1),
            job.gradients * mp / (d if z >= 2 else 1),
            job.optimizer * mp / (d if z >= 1 else 1),
        )

    def memory(
        self, t: int, p: int, d: int, z: int, recompute: str, gpus: int, micro: int
    ) -> Memory:
        """Every term on the most-loaded GPU of layout (t, p, d, ZeRO z, recompute), bytes."""
        m = Memory()
        m.weights, m.gradients, m.optimizer = self.states(t, p, d, z)
        m.activations = self.activations(t, recompute, micro)
        m.overhead = self._overhead(m.weights + m.gradients + m.optimizer + m.activations, gpus)
        return m

    def total(self, t: int, p: int, d: int, z: int, recompute: str, gpus: int, micro: int) -> float:
        """`memory(...).total` without building the terms: the ranking's hot path."""
        w, g, o = self.states(t, p, d, z)
        live = w + g + o + self.activations(t, recompute, micro)
        return live + self._overhead(live, gpus)

    @staticmethod
    def _overhead(live: float, gpus: int) -> float:
        nccl = NCCL_BUFFERS_GB if gpus > 1 else 0.0
        return (CUDA_CONTEXT_GB + nccl) * GB + FRAGMENTATION * live


@lru_cache(maxsize=32)  # a search over every GPU type reuses one job's terms and rankings
def _terms(job: TrainingJob) -> _JobTerms:
    return _JobTerms(job)


def per_gpu_memory(job: TrainingJob, layout: Layout, gpus: int) -> Memory:
    """Most-loaded GPU's memory for `layout` (bytes), each term named."""
    lay = layout
    return _terms(job).memory(
        lay.tp, lay.pp, lay.dp, lay.zero_stage, lay.recompute, gpus, lay.micro_batch
    )


# (relative time, tp, pp, dp, ZeRO stage, recomputation) of one layout of n GPUs
_Option = tuple[float, int, int, int, int, str]


_TP_DEGREES = (1, 2, 4, 8)
_PP_DEGREES = (1, 2, 4, 8, 16, 32, 64, 128)


def _degrees(job: TrainingJob, per_node: int, pins: Pins) -> tuple[tuple[int, int, float], ...]:
    """(tensor degree t, pipeline degree p, TP efficiency) of every pair the pins allow on nodes
    of `per_node` GPUs, in search order: TP within a node and dividing the heads, PP up to the
    layer count (Narayanan et al. 2021 §3)."""
    heads, layers = job.model.heads, job.model.layers
    tps = (pins.tp,) if pins.tp else [x for x in _TP_DEGREES if x <= per_node and heads % x == 0]
    pps = (pins.pp,) if pins.pp else _PP_DEGREES
    return tuple((t, p, TP_EFFICIENCY ** math.log2(t)) for t in tps for p in pps if p <= layers)


def _layouts(
    job: TrainingJob, n: int, per_node: int, pins: Pins, degrees: tuple[tuple[int, int, float], ...]
) -> list[_Option]:
    """Every layout of `n` GPUs with its relative time, in a fixed order (ties keep it)."""
    zero = pins.zero
    rcs = _RECOMPUTE_CHOICES[pins.recompute]
    micro, global_batch = job.micro_batch, job.global_batch
    zero3 = ZERO3_EFFICIENCY if n <= per_node else ZERO3_CROSS_NODE_EFFICIENCY
    out: list[_Option] = []
    for t, p, tp_eff in degrees:
        if n % (t * p):
            continue
        d = n // (t * p)
        if job.batch_pinned and d * micro > global_batch:
            continue  # more data-parallel ranks than sequences in a step
        steps = max(1, math.ceil(max(global_batch, d * micro) / (d * micro)))
        bubble = 1.0 + (p - 1) / steps  # 1F1B bubble (Narayanan et al. 2021 §2.2.1)
        eff = tp_eff / bubble
        zs = (zero,) if zero is not None else ((0,) if d == 1 else (1, 2, 3))
        for rc, rc_flops in rcs:
            for z in zs:
                if z == 3 and d > 1:
                    out.append((rc_flops / (eff * zero3), t, p, d, z, rc))
                else:
                    out.append((rc_flops / eff, t, p, d, z, rc))
    return out


# (recomputation, its FLOP multiplier) to try: the pinned one, else selective then full
_RECOMPUTE_CHOICES: dict[str | None, tuple[tuple[str, float], ...]] = {
    None: (("selective", RECOMPUTE_FLOPS["selective"]), ("full", RECOMPUTE_FLOPS["full"])),
    **{rc: ((rc, f),) for rc, f in RECOMPUTE_FLOPS.items()},
}


class _Ranked:
    """The layouts of `n` GPUs cheapest first, each one's per-GPU bytes computed on demand.

    Independent of which GPU type runs them (only the memory cap differs), so a search over
    every GPU type ranks each count once and sizes a layout's memory at most once.

    Shared between requests (the job memo), so it is safe under threads: a slot of `mem` is
    filled by one assignment, and two threads that size the same layout write the same bytes.
    """

    __slots__ = ("gpus", "mem", "options", "terms")

    def __init__(self, terms: _JobTerms, n: int, options: list[_Option]) -> None:
        options.sort(key=_by_cost)  # stable: equal costs keep the generation order
        self.terms, self.gpus, self.options = terms, n, options
        self.mem: list[float | None] = [None] * len(options)

    def first_fit(self, cap: float) -> tuple[_Option, float] | None:
        mem = self.mem
        for i, option in enumerate(self.options):
            m = mem[i]
            if m is None:
                _, t, p, d, z, rc = option
                m = self.terms.total(t, p, d, z, rc, self.gpus, self.terms.job.micro_batch)
                mem[i] = m
            if m <= cap:
                return option, m
        return None


_by_cost = itemgetter(0)


class _OnGpu:
    """One job on one GPU type with its pins: what every count of a walk shares."""

    __slots__ = ("cap", "gpu", "job", "layout_pins", "mfu", "mfu_per_gpu", "peak", "terms")

    def __init__(self, job: TrainingJob, gpu: GpuSpec, pins: Pins) -> None:
        self.job, self.gpu, self.mfu = job, gpu, pins.mfu
        self.terms = _terms(job)
        # the layout ranking ignores the MFU pin: one ranking serves pinned and default MFU
        self.layout_pins = pins._replace(mfu=None)
        self.cap = gpu.memory_gb * GB * HEADROOM
        self.peak = gpu.peak_tflops(job.precision) * 1e12
        self.mfu_per_gpu = compute.mfu_per_gpu(gpu, job.model, job.precision)

    def best_layout(self, n: int) -> tuple[Layout, float, float] | None:
        """(layout, per-GPU bytes, efficiency) of the fastest layout of `n` GPUs that fits."""
        gpn = self.gpu.gpus_per_node
        found = self.terms.ranked(n, n if n < gpn else gpn, self.layout_pins).first_fit(self.cap)
        if found is None:
            return None
        (cost, t, p, d, z, rc), mem = found
        layout = Layout(d, t, p, z, rc, self.job.micro_batch)  # positional: the hot path
        # efficiency excludes recomputation, which the FLOP count already carries
        return layout, mem, RECOMPUTE_FLOPS[rc] / cost

    def evaluate(self, n: int) -> Candidate | None:
        """The best fitting layout of `n` GPUs and how long the job takes on it."""
        found = self.best_layout(n)
        if found is None:
            return None
        layout, mem, eff = found
        job, gpu = self.job, self.gpu
        gpn = gpu.gpus_per_node
        nodes = -(-n // gpn)
        ic = job.interconnect or natural_interconnect(gpu, nodes, n if n < gpn else gpn)
        value = self.mfu
        if value is None:
            value = compute.mfu_at_scale(self.mfu_per_gpu, job.model, job.task, n, nodes, ic)
        flops = job.base_flops * RECOMPUTE_FLOPS[layout.recompute]
        days = flops / (n * self.peak * value * eff) / compute.SECONDS_PER_DAY
        days /= compute.goodput(n, days)
        return Candidate(
            gpu=gpu,
            count=n,
            nodes=nodes,
            layout=layout,
            per_gpu_bytes=mem,
            days=days,
            gpu_hours=days * 24 * n,
            mfu=value,
            layout_efficiency=eff,
            interconnect=ic,
        )


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
    return _OnGpu(job, gpu, Pins(tp=tp, pp=pp, zero=zero, recompute=recompute)).best_layout(n)


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
    return _OnGpu(job, gpu, Pins(mfu=mfu, tp=tp, pp=pp, zero=zero, recompute=recompute)).evaluate(n)


def at_most_linear(c: Candidate, floor_gpu_hours: float) -> Candidate:
    """Never credit more than linear scaling (PRODUCT.md §4; seed 000's "≈13×" is wrong).

    A larger count can fit a cheaper layout (no recomputation, less pipelining), which would
    make it use fewer GPU-hours than a smaller count. That memory relief is real but small and
    uncertain, so the plan keeps the GPU-hours of the smaller count: days = hours / (24 n).
    """
    if c.gpu_hours >= floor_gpu_hours * (1 - 1e-9):
        return c
    days = floor_gpu_hours / (24 * c.count)
    return Candidate(
        gpu=c.gpu,
        count=c.count,
        nodes=c.nodes,
        layout=c.layout,
        per_gpu_bytes=c.per_gpu_bytes,
        days=days,
        gpu_hours=floor_gpu_hours,
        mfu=c.mfu,
        layout_efficiency=c.layout_efficiency,
        interconnect=c.interconnect,
    )


@lru_cache(maxsize=512)
def _walk(job: TrainingJob, gpu: GpuSpec, up_to: int, pins: Pins) -> tuple[Candidate, ...]:
    """`_iter_walk` to its end, memoised: planning a pinned count and drawing its curve share it."""
    return tuple(_iter_walk(job, gpu, up_to, pins))


def _iter_walk(job: TrainingJob, gpu: GpuSpec, up_to: int, pins: Pins) -> Iterator[Candidate]:
    """Fitting candidates at every count the planner considers, up to `up_to` GPUs, lazily
    (the deadline search stops at the first count that meets it), with GPU-hours carried
    forward so they never fall as the count grows."""
    on_gpu = _OnGpu(job, gpu, pins)
    gpn = gpu.gpus_per_node
    floor = 0.0
    for n in COUNTS:
        if n > up_to:
            break
        if n > gpn and n % gpn:
            continue
        c = on_gpu.evaluate(n)
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
    pins: Pins = Pins(),
    max_gpus: int = MAX_SEARCH_GPUS,
) -> tuple[Candidate | None, Candidate | None]:
    """(chosen, minimum) candidates on one GPU type. chosen is None when nothing fits.

    With `gpu_count` pinned only that count is planned (its GPU-hours floored by the smaller
    counts that fit). Otherwise the minimum fitting count is found, then larger counts are
    tried until the deadline is met (GPU-hours never fall with more GPUs, so the first count
    that meets it is the cheapest that does).
    """
    if gpu_count:
        # The curve up to 4× the count serves the floor here and the estimate's scaling curve.
        curve = _walk(job, gpu, curve_end(gpu_count), pins)
        on_curve = next((x for x in curve if x.count == gpu_count), None)
        if on_curve is not None:
            return on_curve, on_curve  # already floored by the smaller counts before it
        c = _OnGpu(job, gpu, pins).evaluate(gpu_count)
        if c is None:
            return None, None
        floor = max((x.gpu_hours for x in curve if x.count < gpu_count), default=0)
        c = at_most_linear(c, floor)
        return c, c
    minimum: Candidate | None = None
    last: Candidate | None = None
    for c in _iter_walk(job, gpu, max_gpus, pins):
        if minimum is None:
            minimum = c
        last = c
        if deadline_days is None or c.days <= deadline_days:
            return c, minimum
    return last, minimum


def scaling_walk(job: TrainingJob, gpu: GpuSpec, chosen: int, pins: Pins) -> tuple[Candidate, ...]:
    """The walk behind the scaling curve of a plan of `chosen` GPUs (memoised: planning a
    pinned count has already walked it)."""
    return _walk(job, gpu, curve_end(chosen), pins)


def curve_end(chosen: int) -> int:
    """The scaling curve runs to `CURVE_SPAN` × the chosen count, and at least one node of 8."""
    return max(8, chosen * CURVE_SPAN)


def tier_for(count: float, nodes: int) -> str:
    """T1: one GPU (or a MIG slice) → single_gpu; one node → multi_gpu; more → multi_node."""
    if nodes > 1:
        return "multi_node"
    return "single_gpu" if count <= 1 else "multi_gpu"
