"""The planner: the smallest configuration that fits, then enough GPUs to meet the deadline.

Search order (training): for each GPU count, layouts are tried from the most to the least
efficient — tensor parallel inside a node only, pipeline across nodes (interleaved when the
layers and micro-batches allow), data parallel for the rest, ZeRO stage and recomputation as
memory demands — and the first that fits in memory is kept (Narayanan et al. 2021 §3).

Counts: every count from 1 to a node's GPUs, then whole nodes. The walk visits a geometric
ladder (`COUNTS`, the scaling curve's points), then bisects whole nodes between the last ladder
count that misses and the first that meets (memory for the minimum, the deadline after it), so
the chosen count is the smallest one that works with the count one node smaller failing.
Tier follows T1 from the chosen count.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
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
    logits_bytes,
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
TP_EFFICIENCY = compute.TP_EFFICIENCY
ZERO3_EFFICIENCY = compute.ZERO3_EFFICIENCY
ZERO3_CROSS_NODE_EFFICIENCY = compute.ZERO3_CROSS_NODE_EFFICIENCY
# Hardware FLOPs per model FLOP: full recomputation runs one more forward (Narayanan eq. 3).
RECOMPUTE_FLOPS = {"none": 1.0, "selective": 1.0, "full": 4.0 / 3.0}
_VPP_DEGREES = (4, 2)  # interleaved virtual stages tried, most first (Narayanan et al. §2.2.2)


class Pins(NamedTuple):
    """What the request fixes; the planner chooses the rest (None = free)."""

    mfu: float | None = None
    tp: int | None = None
    pp: int | None = None
    zero: int | None = None
    recompute: str | None = None
    goodput: float | None = None


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
    mfu: float  # model FLOPs / (GPUs × dense peak × wall time without interruptions)
    layout_efficiency: float  # the parallelism factors' product (part of `mfu`)
    interconnect: str
    goodput: float = 1.0  # share of wall time doing useful work
    factors: tuple[compute.Factor, ...] = ()  # mfu = their product; () when the MFU is pinned
    micro_batches: int = 1  # per pipeline per step (the bubble's m)
    floor_from: int = 0  # the smaller count whose GPU-hours floor this one (0: none)


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
            got += logits_bytes(model, seq_len=s, micro_batch=b, task=job.task) / t
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


# (relative time, tp, pp, dp, ZeRO stage, recomputation, virtual stages, micro-batches per
# pipeline) of one layout of n GPUs; relative time = 1 / the layout's MFU factors
_Option = tuple[float, int, int, int, int, str, int, int]


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


def virtual_stages(layers: int, pp: int, micro_batches: int) -> int:
    """Interleaved virtual stages per GPU (1 = plain 1F1B): the v of `_VPP_DEGREES` with the
    best bubble × stage balance, when micro-batches are a multiple of p (Megatron-LM's
    interleaved schedule requires it). Layers need not split evenly (Llama 3 §3.3.2 trims the
    first and last stages); the busiest chunk then sets the pace (`compute.stage_balance`)."""
    if pp <= 1 or micro_batches % pp:
        return 1
    best, best_eff = (
        1,
        compute.pipeline_factor(pp, 1, micro_batches) * compute.stage_balance(layers, pp, 1),
    )
    for v in _VPP_DEGREES:
        if layers < pp * v:
            continue
        eff = compute.pipeline_factor(pp, v, micro_batches) * compute.stage_balance(layers, pp, v)
        if eff > best_eff:
            best, best_eff = v, eff
    return best


def micro_batches(job: TrainingJob, dp: int) -> int:
    """Micro-batches each pipeline runs per optimizer step: global batch / (dp × micro)."""
    per_step = dp * job.micro_batch
    return max(1, math.ceil(max(job.global_batch, per_step) / per_step))


def _layouts(
    job: TrainingJob, n: int, per_node: int, pins: Pins, degrees: tuple[tuple[int, int, float], ...]
) -> list[_Option]:
    """Every layout of `n` GPUs with its relative time, in a fixed order (ties keep it)."""
    zero = pins.zero
    rcs = _RECOMPUTE_CHOICES[pins.recompute]
    micro, global_batch = job.micro_batch, job.global_batch
    zero3 = ZERO3_EFFICIENCY if n <= per_node else ZERO3_CROSS_NODE_EFFICIENCY
    layers = job.model.layers
    lora = job.task in ("lora", "qlora")
    out: list[_Option] = []
    for t, p, tp_eff in degrees:
        if n % (t * p):
            continue
        d = n // (t * p)
        if job.batch_pinned and d * micro > global_batch:
            continue  # more data-parallel ranks than sequences in a step
        m = micro_batches(job, d)
        v = virtual_stages(layers, p, m)
        eff = tp_eff * compute.pipeline_factor(p, v, m) * compute.stage_balance(layers, p, v)
        zs = (zero,) if zero is not None else ((0,) if d == 1 else (1, 2, 3))
        for rc in rcs:
            rc_share = 1.0
            if rc == "full":
                rc_share = (
                    compute.LORA_FULL_RECOMPUTE_SHARE if lora else compute.FULL_RECOMPUTE_SHARE
                )
            for z in zs:
                z_eff = zero3 if z == 3 and d > 1 else 1.0
                out.append((1.0 / (eff * z_eff * rc_share), t, p, d, z, rc, v, m))
    return out


# recomputation modes to try: the pinned one, else selective then full
_RECOMPUTE_CHOICES: dict[str | None, tuple[str, ...]] = {
    None: ("selective", "full"),
    **{rc: (rc,) for rc in RECOMPUTE_FLOPS},
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
                _, t, p, d, z, rc, _, _ = option
                m = self.terms.total(t, p, d, z, rc, self.gpus, self.terms.job.micro_batch)
                mem[i] = m
            if m <= cap:
                return option, m
        return None


_by_cost = itemgetter(0)


class _OnGpu:
    """One job on one GPU type with its pins: what every count of a walk shares."""

    __slots__ = ("cap", "gpu", "job", "layout_pins", "peak", "pins", "terms")

    def __init__(self, job: TrainingJob, gpu: GpuSpec, pins: Pins) -> None:
        self.job, self.gpu, self.pins = job, gpu, pins
        self.terms = _terms(job)
        # the layout ranking ignores the MFU and goodput pins: one ranking serves them all
        self.layout_pins = pins._replace(mfu=None, goodput=None)
        self.cap = gpu.memory_gb * GB * HEADROOM
        self.peak = gpu.peak_tflops(job.precision) * 1e12

    def best_layout(self, n: int) -> tuple[Layout, float, float, int] | None:
        """(layout, per-GPU bytes, parallelism efficiency, micro-batches per pipeline) of the
        fastest layout of `n` GPUs that fits."""
        gpn = self.gpu.gpus_per_node
        found = self.terms.ranked(n, n if n < gpn else gpn, self.layout_pins).first_fit(self.cap)
        if found is None:
            return None
        (cost, t, p, d, z, rc, v, m), mem = found
        layout = Layout(d, t, p, z, rc, self.job.micro_batch, v)  # positional: the hot path
        return layout, mem, 1.0 / cost, m

    def evaluate(
        self, n: int, floor_rate: float = math.inf, floor_from: int = 0
    ) -> Candidate | None:
        """The best fitting layout of `n` GPUs and how long the job takes on it.

        floor_rate: the smallest MFU × goodput of the smaller counts (`floor_from` GPUs);
        a default MFU is lowered to it so GPU-hours never fall as the count grows.
        """
        found = self.best_layout(n)
        if found is None:
            return None
        layout, mem, eff, m = found
        job, gpu = self.job, self.gpu
        gpn = gpu.gpus_per_node
        nodes = -(-n // gpn)
        ic = job.interconnect or natural_interconnect(gpu, nodes, n if n < gpn else gpn)
        g = compute.goodput(n) if self.pins.goodput is None else self.pins.goodput
        factors: tuple[compute.Factor, ...] = ()
        if self.pins.mfu is not None:
            value = self.pins.mfu
            floor_from = 0
        else:
            factors = tuple(
                compute.mfu_factors(
                    gpu=gpu,
                    model=job.model,
                    precision=job.precision,
                    task=job.task,
                    gpus=n,
                    nodes=nodes,
                    interconnect=ic,
                    tp=layout.tp,
                    pp=layout.pp,
                    vpp=layout.vpp,
                    micro_batches=m,
                    zero_stage=layout.zero_stage,
                    dp=layout.dp,
                    recompute=layout.recompute,
                )
            )
            value = compute.product(factors)
            if value * g > floor_rate:
                # Never more than linear (PRODUCT.md §4): a larger count that fits a cheaper
                # layout would otherwise use fewer GPU-hours than the smaller one.
                factors += (compute.Factor("scaling_floor", floor_rate / (value * g)),)
                value *= factors[-1].value
            else:
                floor_from = 0
        days = job.base_flops / (n * self.peak * value * g) / compute.SECONDS_PER_DAY
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
            goodput=g,
            factors=factors,
            micro_batches=m,
            floor_from=floor_from,
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
) -> tuple[Layout, float, float, int] | None:
    """(layout, per-GPU bytes, efficiency, micro-batches) of the fastest layout that fits."""
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
    """Best fitting layout of `n` GPUs and its time, or None when nothing fits (no floor)."""
    return _OnGpu(job, gpu, Pins(mfu=mfu, tp=tp, pp=pp, zero=zero, recompute=recompute)).evaluate(n)


def ladder(gpn: int, up_to: int) -> tuple[int, ...]:
    """The counts the walk visits: every count up to one node, then the geometric `COUNTS`
    that are whole nodes (the scaling curve's points)."""
    inside = tuple(range(1, min(gpn, up_to) + 1))
    return inside + tuple(n for n in COUNTS if gpn < n <= up_to and n % gpn == 0)


class _Walk:
    """The ladder walk of one job on one GPU with its pins, memoised lazily: each rung is
    evaluated once, with the floor of the rungs below it."""

    __slots__ = ("done", "floor", "lock", "on_gpu", "rungs")

    def __init__(self, job: TrainingJob, gpu: GpuSpec, pins: Pins) -> None:
        self.on_gpu = _OnGpu(job, gpu, pins)
        self.rungs = ladder(gpu.gpus_per_node, MAX_SEARCH_GPUS)
        self.done: list[tuple[int, Candidate | None]] = []
        self.floor: tuple[float, int] = (math.inf, 0)
        # Shared between requests (the memo): one thread at a time extends the walk.
        self.lock = threading.Lock()

    def __iter__(self) -> Iterator[tuple[int, Candidate | None]]:
        i = 0
        while True:
            if i < len(self.done):
                yield self.done[i]
                i += 1
                continue
            with self.lock:
                if i >= len(self.done):
                    if len(self.done) >= len(self.rungs):
                        return
                    n = self.rungs[len(self.done)]
                    c = self.on_gpu.evaluate(n, *self.floor)
                    if c is not None and c.mfu * c.goodput < self.floor[0]:
                        self.floor = (c.mfu * c.goodput, n)
                    self.done.append((n, c))

    def floor_below(self, n: int) -> tuple[float, int]:
        """(smallest MFU × goodput, its count) over the fitting rungs below `n`."""
        rate, at = math.inf, 0
        for m, c in self:
            if m >= n:
                break
            if c is not None and c.mfu * c.goodput < rate:
                rate, at = c.mfu * c.goodput, m
        return rate, at

    def at(self, n: int) -> Candidate | None:
        """The candidate at any count: a rung's memo, else evaluated with the rungs' floor."""
        for m, c in self:
            if m == n:
                return c
            if m > n:
                break
        return self.on_gpu.evaluate(n, *self.floor_below(n))

    def bisect(self, lo: int, hi: Candidate, ok: Callable[[Candidate | None], bool]) -> Candidate:
        """The smallest whole-node count in (lo, hi.count] whose candidate is `ok`, given that
        `lo` is not and `hi` is (one node at a time: the count one node smaller fails)."""
        gpn = self.on_gpu.gpu.gpus_per_node
        a, b, best = lo // gpn, hi.count // gpn, hi
        while b - a > 1:
            mid = (a + b) // 2
            c = self.at(mid * gpn)
            if ok(c):
                assert c is not None
                b, best = mid, c
            else:
                a = mid
        return best


@lru_cache(maxsize=512)
def _walk(job: TrainingJob, gpu: GpuSpec, pins: Pins) -> _Walk:
    return _Walk(job, gpu, pins)


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
    counts that fit). Otherwise the smallest fitting count is found, then the smallest count
    that meets the deadline (or the largest searched, which misses it).
    """
    walk = _walk(job, gpu, pins)
    if gpu_count:
        c = walk.at(gpu_count)
        return c, c
    gpn = gpu.gpus_per_node
    minimum: Candidate | None = None
    last: Candidate | None = None
    prev = 0  # the last rung that did not fit / did not meet the deadline
    for n, c in walk:
        if n > max_gpus:
            break
        if c is None:
            if minimum is None:
                prev = n
            continue
        if minimum is None:
            minimum = c if n <= gpn or prev < gpn else walk.bisect(prev, c, _fits)
            prev = minimum.count
            if _meets(minimum, deadline_days):
                return minimum, minimum
            continue
        last = c
        if _meets(c, deadline_days):
            if n > gpn and prev >= gpn:
                c = walk.bisect(prev, c, lambda x: x is not None and _meets(x, deadline_days))
            return c, minimum
        prev = n
    return last or minimum, minimum


def _fits(c: Candidate | None) -> bool:
    return c is not None


def _meets(c: Candidate, deadline_days: float | None) -> bool:
    return deadline_days is None or c.days <= deadline_days


def scaling_walk(job: TrainingJob, gpu: GpuSpec, chosen: int, pins: Pins) -> tuple[Candidate, ...]:
    """The scaling curve of a plan of `chosen` GPUs: the fitting rungs up to `curve_end`, with
    the chosen count itself among them."""
    walk = _walk(job, gpu, pins)
    end = curve_end(chosen)
    out = [c for n, c in _rungs_to(walk, end) if c is not None]
    if all(c.count != chosen for c in out):
        c = walk.at(chosen)
        if c is not None:
            out.append(c)
            out.sort(key=attrgetter("count"))
    return tuple(out)


def _rungs_to(walk: _Walk, end: int) -> Iterator[tuple[int, Candidate | None]]:
    for n, c in walk:
        if n > end:
            return
        yield n, c


def curve_end(chosen: int) -> int:
    """The scaling curve runs to `CURVE_SPAN` × the chosen count, and at least one node of 8."""
    return max(8, chosen * CURVE_SPAN)


def tier_for(count: float, nodes: int) -> str:
    """T1: one GPU (or a MIG slice) → single_gpu; one node → multi_gpu; more → multi_node."""
    if nodes > 1:
        return "multi_node"
    return "single_gpu" if count <= 1 else "multi_gpu"
