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

Speed (a search over every GPU type, cold, is benchmarked in benchmarks/bench_engine.py):
what a job shares across counts and GPU types is computed once (`_JobTerms`); a count's
layouts are visited lazily, cheapest first, and a memory lower bound rejects counts no layout
fits (`_Ranked`); the walk decides by light (days, rate) points and builds full candidates
only for the counts a response shows; the bisection skips counts a peak-FLOPs bound rules out
(`_Walk.days_floor`). tests/engine/test_planner_search.py holds the result equal to a
brute-force scan of every allowed count, except where days rise with the count below the
chosen one (past the batch limit more GPUs force more model parallelism): a count under a rung
that misses can then meet unseen, 31 of 3,360 requests of its grid.
"""

from __future__ import annotations

import heapq
import math
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from typing import Any, Final, NamedTuple

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
# ZeRO-3 holds whole, per GPU, the parameters of the unit computing and of the next one,
# prefetched (PyTorch FSDP `limit_all_gathers`: "GPU memory usage from only *two* consecutive
# FSDP instances (the current instance running computation and the next instance whose
# all-gather is prefetched)"), and in the backward pass the running unit's unsharded
# gradients until they are reduce-scattered (the FSDP tutorial: "local unsharded gradients
# are reduce-scattered into sharded gradients").
ZERO3_GATHERED_UNITS: Final = 2
ZERO3_GRADIENT_UNITS: Final = 1
TP_EFFICIENCY = compute.TP_EFFICIENCY
ZERO3_EFFICIENCY = compute.ZERO3_EFFICIENCY
ZERO3_CROSS_NODE_EFFICIENCY = compute.ZERO3_CROSS_NODE_EFFICIENCY
# Hardware FLOPs per model FLOP: full recomputation runs one more forward (Narayanan eq. 3).
RECOMPUTE_FLOPS = {"none": 1.0, "selective": 1.0, "full": 4.0 / 3.0}
# Recomputation modes as the small numbers of a layout's memo key (`_pair_key`).
_RC_CODE: Final = {rc: i for i, rc in enumerate(RECOMPUTE_FLOPS)}


def _pair_key(t: int, p: int, d: int) -> int:
    """A layout's memo key (t ≤ 64, p ≤ 512, any d) without its class, whose part is
    `z << 2 | _RC_CODE[recompute]` (ZeRO z ≤ 3): one int, not a tuple, because the ranking
    looks up thousands a search and each tuple built would be one more object for the
    garbage collector to visit."""
    return ((d << 10 | p) << 7 | t) << 4


#: Held around a whole training search (`estimate`) and by each entry point below that plans:
#: the memo is shared by threads, and its rankings and walks grow as they are asked, so one
#: lock guards all of it rather than one a ranking (a lock is one more object to collect).
MEMO_LOCK: Final = threading.RLock()


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
    # Sequences a step may run before a layout counts as growing the batch too far: the
    # pinned batch, or an unpinned pre-training batch's compute-optimal ceiling
    # (training.batch_limit); 0 = no limit. Layouts within it are preferred to any beyond it.
    batch_limit: int = 0
    # The planner's memo tables are keyed by the job: hash its fields once, not per lookup.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.batch_pinned and not self.batch_limit:  # a pinned batch is its own limit
            object.__setattr__(self, "batch_limit", self.global_batch)
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


class _TpEfficiency(dict[int, float]):
    """Tensor degree t -> TP efficiency step ** log2(t) at one `step` per doubling, each
    computed when first asked for."""

    def __init__(self, step: float) -> None:
        super().__init__()
        self.step = step

    def __missing__(self, t: int) -> float:
        got = self[t] = self.step ** math.log2(t)
        return got


class _JobTerms:
    """A job's memory terms that do not depend on the GPU count, computed once per job.

    Per layout only the ZeRO division by dp and the NCCL buffers change with the count, so
    the planner's walk over counts and GPU types reuses the model-parallel share of each
    pipeline degree and the activations of each (tp, recomputation) pair.
    """

    __slots__ = (
        "_act", "_act_micro", "_counts", "_degrees", "_experts", "_share", "_totals", "_tp", "_unit",
        "classes", "job", "pipes",
    )  # fmt: skip

    def __init__(self, job: TrainingJob) -> None:
        self.job = job
        self.classes: dict[
            tuple[int | None, str | None, bool], tuple[tuple[_Class, ...], tuple[_Class, ...]]
        ] = {}
        # (pp, micro-batches) -> (virtual stages, bubble × stage balance): the same for every
        # count and tensor degree that gives that many micro-batches
        self.pipes: dict[tuple[int, int], tuple[int, float]] = {}
        self._share: dict[int, float] = {}
        # routed experts' share of the parameters (0 for dense models): states() splits it by ep
        self._experts = job.model.routed_expert_params / job.model.params
        # the largest unit ZeRO-3 gathers whole: (one embedding matrix, a layer's non-expert
        # parameters, a layer's routed experts), params
        self._unit = zero3_unit_params(job.model)
        self._act: dict[tuple[int, str, int], float] = {}
        # the same at the job's micro-batch, keyed `tp << 2 | _RC_CODE[recompute]` (`_extend`)
        self._act_micro: dict[int, float] = {}
        self._degrees: dict[tuple[int, Pins], tuple[tuple[int, int], ...]] = {}
        # a count's layouts (the same for every GPU type) and their rankings
        self._counts: dict[tuple[int, int, Pins, bool], _CountLayouts] = {}
        self._tp: dict[float, _TpEfficiency] = {}
        # a layout's bytes by its key (`_pair_key` | its class's part) -> bytes
        self._totals: dict[int, float] = {}

    def layouts(self, n: int, per_node: int, pins: Pins, over: bool = False) -> _CountLayouts:
        """The layouts of `n` GPUs (`per_node` to a node) under `pins` whose step stays within
        the job's batch limit, or (`over`) those that exceed it, with their memory floor: the
        same for every GPU type, whatever its TP efficiency."""
        key = (n, per_node, pins, over)
        got = self._counts.get(key)
        if got is None:
            degrees = self._degrees.get((per_node, pins))
            if degrees is None:
                degrees = self._degrees[(per_node, pins)] = _degrees(self.job, per_node, pins)
            got = self._counts[key] = _layouts(self, n, per_node, pins, degrees, over)
        return got

    def first_fit(
        self, n: int, per_node: int, pins: Pins, cap: float, step: float = TP_EFFICIENCY
    ) -> tuple[_Option, float] | None:
        """The cheapest layout of `n` GPUs that fits `cap` bytes at `step`, the TP efficiency
        per doubling (`compute.tp_step`), preferring one that keeps the batch within its
        limit: an unpinned batch grows past it only when no layout that keeps it fits (a
        pinned batch never does)."""
        found = self.layouts(n, per_node, pins).first_fit(self, cap, step)
        job = self.job
        if found is None and job.batch_limit and not job.batch_pinned:
            found = self.layouts(n, per_node, pins, over=True).first_fit(self, cap, step)
        return found

    def tp_efficiency(self, step: float) -> _TpEfficiency:
        """Tensor degree -> TP efficiency at `step` per doubling (one table per step)."""
        got = self._tp.get(step)
        if got is None:
            got = self._tp[step] = _TpEfficiency(step)
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
        pipeline stage, then ZeRO stage z partitions over the d data-parallel ranks.

        An MoE's routed experts are also split over `expert_parallel(d)` ranks: a term ZeRO
        does not partition over d is divided by ep for the experts' share of it (a term it
        does partition already is divided by d ≥ ep). With full training every term holds
        the experts' share; LoRA/QLoRA train adapters, so only the frozen weights split.
        """
        job = self.job
        mp = (self._share.get(p) or self.share(p)) / t  # the memo read inline: the hot path
        ep = expert_parallel(job.model, d) if self._experts else 1
        if ep == 1:
            return (
                job.weights * mp / (d if z >= 3 else 1),
                job.gradients * mp / (d if z >= 2 else 1),
                job.optimizer * mp / (d if z >= 1 else 1),
            )
        e = self._experts / p / t  # routed experts' part of `mp` (experts even over stages)
        full = job.task not in ("lora", "qlora")
        w = job.weights * ((mp - e) / (d if z >= 3 else 1) + e / (d if z >= 3 else ep))
        g = job.gradients * (
            (mp - e) / (d if z >= 2 else 1) + e / (d if z >= 2 else ep if full else 1)
        )
        o = job.optimizer * (
            (mp - e) / (d if z >= 1 else 1) + e / (d if z >= 1 else ep if full else 1)
        )
        return w, g, o

    def gathered(self, t: int, d: int, z: int) -> tuple[float, float]:
        """(parameters, gradients) bytes ZeRO-3 holds unsharded on one GPU, 0 below stage 3
        or without data parallelism: `ZERO3_GATHERED_UNITS` units' gathered parameters and
        `ZERO3_GRADIENT_UNITS` unit's gradients before its reduce-scatter, at the replica's
        bytes per parameter. A unit is the largest of one embedding matrix and one layer (its
        routed experts over the ep ranks that hold them), split by t."""
        if z < 3 or d <= 1:
            return 0.0, 0.0
        job = self.job
        emb, layer, experts = self._unit
        ep = expert_parallel(job.model, d)
        unit = max(emb, layer + experts / ep) / t / job.model.params
        return (
            ZERO3_GATHERED_UNITS * unit * job.weights,
            ZERO3_GRADIENT_UNITS * unit * job.gradients,
        )

    def memory(
        self, t: int, p: int, d: int, z: int, recompute: str, gpus: int, micro: int
    ) -> Memory:
        """Every term on the most-loaded GPU of layout (t, p, d, ZeRO z, recompute), bytes;
        ZeRO-3's gathered units are in the weights and gradients."""
        m = Memory()
        m.weights, m.gradients, m.optimizer = self.states(t, p, d, z)
        gw, gg = self.gathered(t, d, z)
        m.weights += gw
        m.gradients += gg
        m.activations = self.activations(t, recompute, micro)
        m.overhead = self._overhead(m.weights + m.gradients + m.optimizer + m.activations, gpus)
        return m

    def total(self, t: int, p: int, d: int, z: int, recompute: str) -> float:
        """`memory(..., gpus=t·p·d, micro=the job's micro-batch).total` without building the
        terms: what `_Ranked._extend` memoises in `_totals` for an MoE layout (it sums a dense
        model's terms itself, in this order: no expert split, a dense ZeRO-3 unit)."""
        job = self.job
        act = self.activations(t, recompute, job.micro_batch)
        w, g, o = self.states(t, p, d, z)
        gw, gg = self.gathered(t, d, z)
        live = w + g + o + gw + gg + act
        return live + self._overhead(live, t * p * d)

    def floor_bytes(self, n: int, t_max: int, classes: tuple[_Class, ...]) -> float:
        """A lower bound on the most-loaded GPU's bytes over every layout of `n` GPUs whose
        largest tensor degree is `t_max`.

        Each state term is at least its replica bytes / n (t · p · d = n, and a pipeline
        stage holds at least 1/p of the parameters), activations shrink with the tensor
        degree, and the overhead grows with what is live: so when this bound exceeds a GPU's
        memory no layout fits, and the count is rejected without sizing any layout.
        """
        job = self.job
        rcs = {c[1] for c in classes}
        act = min(self.activations(t_max, rc, job.micro_batch) for rc in rcs)
        live = (job.weights + job.gradients + job.optimizer) / n + act
        return live + self._overhead(live, n)

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


def zero3_gathered(job: TrainingJob, layout: Layout) -> tuple[float, float]:
    """(parameters, gradients) bytes ZeRO-3 holds unsharded on the most-loaded GPU of
    `layout` (`_JobTerms.gathered`); both 0 below stage 3 or on one data-parallel rank."""
    return _terms(job).gathered(layout.tp, layout.dp, layout.zero_stage)


def zero3_unit_params(model: ModelSpec) -> tuple[float, float, float]:
    """(one embedding matrix, one layer without its routed experts, one MoE layer's routed
    experts) in parameters: the units ZeRO-3 gathers whole before it computes with them.

    FSDP wraps each decoder layer as a unit and gathers the embedding and the LM head whole
    (PyTorch FSDP, Zhao et al. 2023 §3.2; torchtitan and Hugging Face Accelerate wrap the
    decoder layer class); DeepSpeed ZeRO-3 gathers a module's parameters before its forward.
    The layer is the average over layers of what is not embedding or routed expert (an MoE's
    first dense layers are folded in); the experts are split evenly over the MoE layers.
    """
    emb = float(model.vocab * model.hidden)
    routed = model.routed_expert_params
    moe_layers = model.layers - model.dense_layers if model.is_moe else 0
    layer = (model.params - embedding_params(model) - routed) / model.layers
    return emb, layer, routed / moe_layers if moe_layers else 0.0


def expert_parallel(model: ModelSpec, dp: int) -> int:
    """Expert-parallel degree of `dp` data-parallel ranks: the routed experts are spread over
    the largest group that divides both dp and the expert count, so each rank holds whole
    experts (expert parallelism inside the data-parallel group: DeepSpeed-MoE, Rajbhandari et
    al. 2022; DeepSeek-V3 report §3.2: "16-way Pipeline Parallelism (PP), 64-way Expert
    Parallelism (EP) spanning 8 nodes, and ZeRO-1 Data Parallelism (DP)"). 1 for dense models.

    The MFU's MoE all-to-all factor (compute.MOE_ALL_TO_ALL_*) is this EP's token exchange.
    """
    return math.gcd(dp, model.experts) if model.experts > 1 else 1


_TP_DEGREES = (1, 2, 4, 8)
_PP_DEGREES = (1, 2, 4, 8, 16, 32, 64, 128)


def _degrees(job: TrainingJob, per_node: int, pins: Pins) -> tuple[tuple[int, int], ...]:
    """(tensor degree t, pipeline degree p) of every pair the pins allow on nodes of
    `per_node` GPUs, in search order: TP within a node and dividing the heads, PP up to the
    layer count (Narayanan et al. 2021 §3)."""
    return _model_degrees(job.model, per_node, pins)


def _model_degrees(model: ModelSpec, per_node: int, pins: Pins) -> tuple[tuple[int, int], ...]:
    """`_degrees` of a model (its heads and layers are all the pairs depend on)."""
    heads, layers = model.heads, model.layers
    tps = (pins.tp,) if pins.tp else [x for x in _TP_DEGREES if x <= per_node and heads % x == 0]
    pps = (pins.pp,) if pins.pp else _PP_DEGREES
    return tuple((t, p) for t in tps for p in pps if p <= layers)


def fewest_data_ranks(model: ModelSpec, gpu: GpuSpec, count: int, pins: Pins) -> tuple[int, int]:
    """(data-parallel ranks, tp × pp) of the (tp, pp) pair the pins allow on `count` GPUs of
    `gpu` that leaves the fewest data-parallel ranks; (count, 1) when no pair divides it.

    A pinned global batch must give each of these ranks at least one micro-batch
    (`estimate._check_training_pins`): the planner's layouts never run more sequences a step
    than a pinned batch (`_layouts`), so with fewer sequences no layout is left."""
    per_node = count if count < gpu.gpus_per_node else gpu.gpus_per_node
    groups = [t * p for t, p in _model_degrees(model, per_node, pins) if count % (t * p) == 0]
    group = max(groups, default=1)
    return count // group, group


def virtual_stages(layers: int, pp: int, micro_batches: int) -> int:
    """Interleaved virtual stages per GPU (1 = plain 1F1B): the v of `_VPP_DEGREES` with the
    best bubble × stage balance. Any number of micro-batches: Llama 3 §3.3.2 lifts the
    depth-first schedule's "divisible by the number of pipeline stages" constraint ("we
    modify our pipeline schedule ... which allows setting N flexibly ... which can run an
    arbitrary number of micro-batches in each batch"), with the bubble (PP − 1)/N of the
    interleaved schedule. Layers need not split evenly (the same section trims the first and
    last stages); the busiest chunk then sets the pace (`compute.stage_balance`)."""
    if pp <= 1:
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


def micro_batches(job: TrainingJob, dp: int, pp: int = 1) -> int:
    """Micro-batches each pipeline runs per optimizer step: global batch / (dp × micro).

    A pipeline (pp > 1) of an unpinned pre-training batch fills up to the batch limit (the
    compute-optimal batch, `training.batch_limit`): its bubble (pp − 1)/(v · m) shrinks with
    every micro-batch, and a batch within the optimum costs no extra tokens, while at the
    default 4M tokens 16 stages of 128 replicas ran m = 4 and idled half the time. Llama 3
    405B ran PP 16 at 16M tokens a step (Llama 3 §3.3.2, Table 4)."""
    per_step = dp * job.micro_batch
    m = max(1, math.ceil(max(job.global_batch, per_step) / per_step))
    if pp > 1 and job.batch_limit and not job.batch_pinned:
        m = max(m, job.batch_limit // per_step)
    return m


# A count's (tp, pp) pairs, the same for every GPU type: each pair's pipeline efficiency, and
# its `PAIR` integers (generation index, tp, pp, dp, virtual stages, micro-batches per
# pipeline, `_pair_key`) laid end to end. `_Ranked` ranks the pairs at one GPU's TP
# efficiency; a layout is a pair with one of the count's `_Class`es. Two flat tuples of
# numbers, not a tuple a pair: a search builds about 1,200 pairs that the memo keeps, and the
# garbage collector stops visiting a tuple of numbers after its first pass, while a tuple a
# pair, or a list, would be one more object it visits in every collection (collections took
# 8–21 % of a 1-day search's time, measured with the collector off and on).
_Pairs = tuple[Sequence[float], Sequence[int]]
PAIR: Final = 7
# One class's walk over a count's pairs at one TP efficiency, `STREAM` items of a ranking's
# flat `streams` list: ZeRO, recomputation, ZeRO efficiency, recomputation share, each pair's
# efficiency TP × pipeline, the pairs' indices most efficient first, the pairs' integers, the
# class's part of the memo key, the number of pairs. Laid end to end in one list rather than a
# tuple a stream (a tuple holding the tuples of pairs stays one more object to visit).
STREAM: Final = 9
# (ZeRO stage, recomputation, ZeRO efficiency, recomputation share, the class's part of the
# memo key `z << 2 | _RC_CODE[recomputation]`) of a layout
_Class = tuple[int, str, float, float, int]


class _CountLayouts:
    """The layouts of one count, the same for every GPU type: its (tp, pp) pairs in generation
    order with data parallelism (dp > 1) and without, the (ZeRO, recomputation) classes each
    combines with, a lower bound on the most-loaded GPU's bytes over all of them
    (`_JobTerms.floor_bytes`), and their ranking at each TP efficiency per doubling
    (`compute.tp_step`: NVLink GPUs share one, PCIe GPUs each have their own)."""

    __slots__ = ("_ranked", "gpus", "lower", "many", "multi", "one", "single")

    def __init__(
        self,
        n: int,
        pairs: tuple[_Pairs, _Pairs],
        classes: tuple[tuple[_Class, ...], tuple[_Class, ...]],
        lower: float,
    ) -> None:
        self.gpus, self.lower = n, lower
        self.multi, self.single = pairs
        self.many, self.one = classes
        self._ranked: dict[float, _Ranked] = {}

    def first_fit(self, terms: _JobTerms, cap: float, step: float) -> tuple[_Option, float] | None:
        """The cheapest layout at `step` whose most-loaded GPU needs at most `cap` bytes, with
        them; None when none does. The memory floor refuses most such counts before their
        layouts are ranked."""
        if self.lower > cap:
            return None
        ranked = self._ranked.get(step)
        if ranked is None:
            ranked = self._ranked[step] = _Ranked(self, terms.tp_efficiency(step))
        return ranked.first_fit(terms, cap)


def _layouts(
    terms: _JobTerms,
    n: int,
    per_node: int,
    pins: Pins,
    degrees: tuple[tuple[int, int], ...],
    over: bool = False,
) -> _CountLayouts:
    """The (tp, pp) pairs of `n` GPUs with their pipeline efficiency, in generation order
    (with dp > 1, with dp = 1), and the (ZeRO, recomputation) classes they combine with.

    Only pairs whose data-parallel ranks run at most the job's batch limit in one step, or
    with `over` only those that run more (`_JobTerms.first_fit` asks for these).
    """
    job = terms.job
    micro, global_batch, limit = job.micro_batch, job.global_batch, job.batch_limit
    fill = bool(limit) and not job.batch_pinned  # a pipeline fills up to the limit
    layers = job.model.layers
    pipes = terms.pipes
    multi: tuple[list[float], list[int]] = ([], [])
    single: tuple[list[float], list[int]] = ([], [])
    i = t_max = 0
    for t, p in degrees:
        if n % (t * p):
            continue
        d = n // (t * p)
        per_step = d * micro
        if limit and (per_step > limit) != over:
            continue  # more data-parallel ranks than sequences a step may run (or, over: fewer)
        m = -(-global_batch // per_step) if global_batch > per_step else 1  # micro_batches()
        if p > 1 and fill:
            m = max(m, limit // per_step)
        got = pipes.get((p, m))
        if got is None:
            v = virtual_stages(layers, p, m)
            got = pipes[(p, m)] = (
                v,
                compute.pipeline_factor(p, v, m) * compute.stage_balance(layers, p, v),
            )
        pipe, ints = multi if d > 1 else single
        pipe.append(got[1])
        ints += (i, t, p, d, got[0], m, _pair_key(t, p, d))
        if t > t_max:
            t_max = t
        i += 1
    if not i:
        return _CountLayouts(n, (multi, single), ((), ()), math.inf)
    key = (pins.zero, pins.recompute, n <= per_node)
    classes = terms.classes.get(key)
    if classes is None:
        classes = terms.classes[key] = _classes(job, pins, n <= per_node)
    lower = terms.floor_bytes(n, t_max, classes[0] + classes[1])
    frozen = ((tuple(multi[0]), tuple(multi[1])), (tuple(single[0]), tuple(single[1])))
    return _CountLayouts(n, frozen, classes, lower)


def _classes(
    job: TrainingJob, pins: Pins, one_node: bool
) -> tuple[tuple[_Class, ...], tuple[_Class, ...]]:
    """The (ZeRO, recomputation) classes a pair combines with: (with dp > 1, with dp = 1),
    in generation order (recomputation, then ZeRO stage)."""
    zero = pins.zero
    zero3 = ZERO3_EFFICIENCY if one_node else ZERO3_CROSS_NODE_EFFICIENCY
    lora = job.task in ("lora", "qlora")
    full = compute.LORA_FULL_RECOMPUTE_SHARE if lora else compute.FULL_RECOMPUTE_SHARE
    shares = [(rc, full if rc == "full" else 1.0) for rc in _RECOMPUTE_CHOICES[pins.recompute]]
    many = tuple(
        (z, rc, zero3 if z == 3 else 1.0, share, z << 2 | _RC_CODE[rc])
        for rc, share in shares
        for z in ((zero,) if zero is not None else (1, 2, 3))
    )
    one = tuple(
        (z, rc, 1.0, share, z << 2 | _RC_CODE[rc])
        for rc, share in shares
        for z in ((zero,) if zero is not None else (0,))
    )
    return many, one


# recomputation modes to try: the pinned one, else selective then full
_RECOMPUTE_CHOICES: dict[str | None, tuple[str, ...]] = {
    None: ("selective", "full"),
    **{rc: (rc,) for rc in RECOMPUTE_FLOPS},
}


class _Ranked:
    """The layouts of one count cheapest first at one TP efficiency per doubling, each one's
    per-GPU bytes computed on demand (`_JobTerms.total`, shared by every TP efficiency).

    The order is that of a stable sort of every (pair, class) layout by relative time
    1 / (pair efficiency × ZeRO efficiency × recomputation share), the pair's efficiency being
    TP × pipeline, ties in generation order (pair, then class). It is walked lazily, as a
    merge of one stream per class (pairs most efficient first), and only the layouts that
    need less memory than every cheaper one are kept (`records`, memory strictly falling):
    the first layout that fits a cap is the first record that does, so each GPU type finds
    its layout by bisecting the records, and the walk goes on only when none fits yet.

    Shared between requests (the job memo): walked only under `MEMO_LOCK`. It holds no
    reference back to the job's terms (they are passed in), so a job the memo drops is freed
    at once by reference counting rather than left as a cycle for a full collection.
    """

    __slots__ = ("heap", "options", "records", "streams")

    def __init__(self, count: _CountLayouts, eff: _TpEfficiency) -> None:
        # `STREAM` items a class (see `STREAM`): numbers, strings and tuples, hence Any
        streams: list[Any] = []
        for classes, (pipe, ints) in ((count.many, count.multi), (count.one, count.single)):
            if not pipe:
                continue
            # each pair's efficiency at this TP step, and the pairs most efficient first by
            # index (a stable sort, also reversed: ties keep their generation order); tuples
            # of numbers, which the garbage collector stops visiting after its first pass
            effs = tuple([eff[t] * e for t, e in zip(ints[1::PAIR], pipe, strict=True)])
            order = tuple(sorted(range(len(effs)), key=effs.__getitem__, reverse=True))
            size = len(order)
            for z, rc, z_eff, share, zr in classes:
                streams += (z, rc, z_eff, share, effs, order, ints, zr, size)
        self.streams = streams
        # (relative time, generation index, stream, position) of each stream's next layout:
        # ties fall in generation order, pair then class (a pair is in one group of streams,
        # whose classes are in order)
        self.heap: list[tuple[float, int, int, int]] | None = None
        # the records: their bytes negated (rising, for `bisect`), and their layouts as
        # stream and pair index (`_option`); flat lists of numbers rather than a (bytes,
        # layout) tuple each, for the garbage collector's sake
        self.records: list[float] = []
        self.options: list[int] = []

    def first_fit(self, terms: _JobTerms, cap: float) -> tuple[_Option, float] | None:
        """The cheapest layout whose most-loaded GPU needs at most `cap` bytes, with them."""
        found = self._record_within(cap)
        if found is not None or self.heap == []:  # found, or every layout already walked
            return found
        return self._extend(terms, cap)

    def _record_within(self, cap: float) -> tuple[_Option, float] | None:
        records = self.records
        i = bisect_left(records, -cap)  # the first record needing at most `cap` bytes
        if i < len(records):
            return self._option(self.options[i]), -records[i]
        return None

    def _option(self, code: int) -> _Option:
        """The layout of a record's code `stream << 16 | pair index`, its relative time the
        same expression the walk ranked it by."""
        s = code >> 16
        z, rc, z_eff, share, effs, _, ints, _, _ = self.streams[s : s + STREAM]
        i = code & 0xFFFF
        _, t, p, d, v, m, _ = ints[i * PAIR : i * PAIR + PAIR]
        return 1.0 / (effs[i] * z_eff * share), t, p, d, z, rc, v, m

    def _extend(self, terms: _JobTerms, cap: float) -> tuple[_Option, float] | None:
        """Walk on in cost order until a layout fits `cap`, keeping the new records."""
        streams, records, options = self.streams, self.records, self.options
        totals, total = terms._totals, terms.total
        # `terms.total` of a dense layout summed here, term by term in the same order (the
        # walk sizes thousands of layouts a search, and a call costs as much as the sum):
        # no routed experts to split over ep ranks, ZeRO-3's unit the larger of an embedding
        # matrix and a layer (`_JobTerms.gathered`)
        dense = not terms._experts
        job = terms.job
        weights, gradients, optimizer, micro = (
            job.weights, job.gradients, job.optimizer, job.micro_batch,
        )  # fmt: skip
        shares, acts = terms._share, terms._act_micro
        fixed_one, fixed_many = CUDA_CONTEXT_GB * GB, (CUDA_CONTEXT_GB + NCCL_BUFFERS_GB) * GB
        emb, layer, _ = terms._unit
        unit_params, params = max(emb, layer + 0.0), job.model.params
        heapreplace, heappop = heapq.heapreplace, heapq.heappop
        heap = self.heap
        if heap is None:
            heap = self.heap = []
            for s in range(0, len(streams), STREAM):
                _, _, z_eff, share, effs, order, ints, _, _ = streams[s : s + STREAM]
                first = order[0]
                heap.append((1.0 / (effs[first] * z_eff * share), ints[first * PAIR], s, 0))
            heapq.heapify(heap)
        low = -records[-1] if records else math.inf
        while heap:
            cost, _, s, k = heap[0]
            z, rc, z_eff, share, effs, order, ints, zr, size = streams[s : s + STREAM]
            i = order[k]
            _, t, p, d, v, m, key = ints[i * PAIR : i * PAIR + PAIR]
            k += 1
            if k < size:
                nxt = order[k]
                heapreplace(heap, (1.0 / (effs[nxt] * z_eff * share), ints[nxt * PAIR], s, k))
            else:
                heappop(heap)
            key |= zr
            got = totals.get(key)
            if got is None:
                if not dense:
                    got = totals[key] = total(t, p, d, z, rc)
                else:
                    act = acts.get(ak := t << 2 | (zr & 3))  # an int key: no tuple to collect
                    if act is None:
                        act = acts[ak] = terms.activations(t, rc, micro)
                    mp = (shares.get(p) or terms.share(p)) / t
                    if z < 3:
                        live = (
                            weights * mp
                            + gradients * mp / (d if z >= 2 else 1)
                            + optimizer * mp / (d if z >= 1 else 1)
                            + act
                        )
                    else:
                        unit = unit_params / t / params if d > 1 else 0.0
                        live = (
                            weights * mp / d
                            + gradients * mp / d
                            + optimizer * mp / d
                            + ZERO3_GATHERED_UNITS * unit * weights
                            + ZERO3_GRADIENT_UNITS * unit * gradients
                            + act
                        )
                    fixed = fixed_many if t * p * d > 1 else fixed_one
                    got = totals[key] = live + (fixed + FRAGMENTATION * live)
            if got < low:
                records.append(-got)
                options.append(s << 16 | i)  # a count has far fewer than 2**16 pairs
                low = got
                if got <= cap:
                    return (cost, t, p, d, z, rc, v, m), got
        return None


# (relative time, tp, pp, dp, ZeRO stage, recomputation, virtual stages, micro-batches per
# pipeline) of the layout `_Ranked.first_fit` chooses
_Option = tuple[float, int, int, int, int, str, int, int]
# (GPUs a node, nodes, interconnect, TP efficiency per doubling) of one count on one GPU type
_Links = tuple[int, int, str, float]


class _OnGpu:
    """One job on one GPU type with its pins: what every count of a walk shares."""

    __slots__ = (
        "base", "base_value", "cap", "gpu", "job", "layout_pins", "links", "peak", "pins", "terms",
    )  # fmt: skip

    def __init__(self, job: TrainingJob, gpu: GpuSpec, pins: Pins) -> None:
        self.job, self.gpu, self.pins = job, gpu, pins
        # the MFU factors no count or layout changes, and their product (in order)
        self.base = tuple(
            compute.base_factors(
                gpu=gpu,
                model=job.model,
                precision=job.precision,
                task=job.task,
                micro_tokens=job.seq_len * job.micro_batch,
            )
        )
        self.base_value = compute.product(self.base)
        self.terms = _terms(job)
        # the layout ranking ignores the MFU and goodput pins: one ranking serves them all
        self.layout_pins = pins._replace(mfu=None, goodput=None)
        self.cap = gpu.memory_gb * GB * HEADROOM
        self.peak = gpu.peak_tflops(job.precision) * 1e12
        self.links: dict[int, _Links] = {}

    def link(self, n: int) -> _Links:
        """(GPUs a node, nodes, interconnect, TP efficiency per doubling) of `n` GPUs of this
        type, computed once per count: the walk asks for each count's twice or more."""
        got = self.links.get(n)
        if got is None:
            gpn = self.gpu.gpus_per_node
            per_node = n if n < gpn else gpn
            nodes = -(-n // gpn)
            ic = self.job.interconnect or natural_interconnect(self.gpu, nodes, per_node)
            got = self.links[n] = (per_node, nodes, ic, compute.tp_step(self.gpu, ic))
        return got

    def best_layout(self, n: int) -> tuple[Layout, float, float, int] | None:
        """(layout, per-GPU bytes, parallelism efficiency, micro-batches per pipeline) of the
        fastest layout of `n` GPUs that fits."""
        per_node, _, _, step = self.link(n)
        found = self.terms.first_fit(n, per_node, self.layout_pins, self.cap, step)
        if found is None:
            return None
        (cost, t, p, d, z, rc, v, m), mem = found
        layout = Layout(d, t, p, z, rc, self.job.micro_batch, v)  # positional: the hot path
        return layout, mem, 1.0 / cost, m

    def point(self, n: int, floor_rate: float = math.inf, floor_from: int = 0) -> _Point | None:
        """(days, MFU × goodput, floor rate, floor count) of `n` GPUs: `evaluate`'s figures,
        multiplied in the same order (`compute.layout_value`), without building the layout,
        its named factors or the candidate (the walk's hot path)."""
        per_node, nodes, ic, step = self.link(n)
        found = self.terms.first_fit(n, per_node, self.layout_pins, self.cap, step)
        if found is None:
            return None
        (_, t, p, d, z, rc, v, m), _ = found
        job = self.job
        g = compute.goodput(n) if self.pins.goodput is None else self.pins.goodput
        if self.pins.mfu is not None:
            value = self.pins.mfu
        else:
            value = compute.layout_value(
                self.base_value, model=job.model, task=job.task, gpus=n, nodes=nodes,
                interconnect=ic, tp=t, pp=p, vpp=v, micro_batches=m, zero_stage=z, dp=d,
                recompute=rc, nvlink=self.gpu.has_nvlink, tp_step=step,
            )  # fmt: skip
            if value * g > floor_rate:
                value *= floor_rate / (value * g)
        days = job.base_flops / (n * self.peak * value * g) / compute.SECONDS_PER_DAY
        return days, value * g, floor_rate, floor_from

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
        _, nodes, ic, step = self.link(n)
        g = compute.goodput(n) if self.pins.goodput is None else self.pins.goodput
        factors: tuple[compute.Factor, ...] = ()
        if self.pins.mfu is not None:
            value = self.pins.mfu
            floor_from = 0
        else:
            rest = compute.layout_factors(
                model=job.model,
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
                nvlink=gpu.has_nvlink,
                tp_step=step,
            )
            # the same multiplication as compute.product(base + rest), in the same order
            value = self.base_value
            for f in rest:
                value *= f.value
            factors = self.base + tuple(rest)
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
    with MEMO_LOCK:
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
    pins = Pins(mfu=mfu, tp=tp, pp=pp, zero=zero, recompute=recompute)
    with MEMO_LOCK:
        return _OnGpu(job, gpu, pins).evaluate(n)


def count_step(gpn: int, pins: Pins) -> int:
    """The step between counts past one node: whole nodes that are also whole replicas of a
    pinned tp × pp (TP 8 × PP 5 on nodes of 8 GPUs: 40 GPUs, five nodes, at a time)."""
    return math.lcm(gpn, (pins.tp or 1) * (pins.pp or 1))


def ladder(gpn: int, up_to: int, step: int = 0) -> tuple[int, ...]:
    """The counts the walk visits: every count up to one node, then the geometric `COUNTS`
    past one node, each rounded up to a multiple of `step` (`count_step`; whole nodes by
    default) — the scaling curve's points."""
    step = step or gpn
    inside = tuple(range(1, min(gpn, up_to) + 1))
    across = sorted({-(-n // step) * step for n in COUNTS if n > gpn})
    return inside + tuple(n for n in across if gpn < n <= up_to)


# A count's plan as the walk keeps it: (days, MFU × goodput, floor rate, floor count) — what
# the search decides by; `_Walk.candidate` builds the full Candidate (layout, factors) from
# the same floor only for the counts a response shows.
_Point = tuple[float, float, float, int]


class _Walk:
    """The ladder walk of one job on one GPU with its pins, memoised lazily: each rung is
    evaluated once, with the floor of the rungs below it (`floors[i]`: the smallest
    MFU × goodput over the fitting rungs up to rung i, and its count)."""

    __slots__ = ("cands", "done", "floors", "on_gpu", "rungs", "step")

    def __init__(self, job: TrainingJob, gpu: GpuSpec, pins: Pins) -> None:
        self.on_gpu = _OnGpu(job, gpu, pins)
        self.step = count_step(gpu.gpus_per_node, pins)
        self.rungs = ladder(gpu.gpus_per_node, MAX_SEARCH_GPUS, self.step)
        self.done: list[tuple[int, _Point | None]] = []
        self.floors: list[tuple[float, int]] = []
        self.cands: dict[int, Candidate | None] = {}

    def _reach(self, i: int) -> bool:
        """Evaluate the rungs up to index `i`; False when the ladder is shorter."""
        if i < len(self.done):
            return True
        done, floors, rungs = self.done, self.floors, self.rungs
        while len(done) <= i:
            if len(done) >= len(rungs):
                return False
            n = rungs[len(done)]
            floor = floors[-1] if floors else (math.inf, 0)
            pt = self.on_gpu.point(n, *floor)
            if pt is not None and pt[1] < floor[0]:
                floor = (pt[1], n)
            floors.append(floor)
            done.append((n, pt))
        return True

    def points(self) -> Iterator[tuple[int, _Point | None]]:
        """(count, point) of every rung in order, None where nothing fits."""
        i = 0
        while self._reach(i):
            yield self.done[i]
            i += 1

    def __iter__(self) -> Iterator[tuple[int, Candidate | None]]:
        for n, pt in self.points():
            yield n, self.candidate(n, pt)

    def candidate(self, n: int, pt: _Point | None) -> Candidate | None:
        """The full candidate of count `n` whose point is `pt` (built once per count)."""
        if pt is None:
            return None
        got = self.cands.get(n)
        if got is None:
            got = self.cands[n] = self.on_gpu.evaluate(n, pt[2], pt[3])
        return got

    def floor_below(self, n: int) -> tuple[float, int]:
        """(smallest MFU × goodput, its count) over the fitting rungs below `n`."""
        k = bisect_left(self.rungs, n)  # rungs[:k] are below n
        if k == 0:
            return math.inf, 0
        self._reach(k - 1)
        return self.floors[min(k, len(self.floors)) - 1]

    def point_at(self, n: int) -> _Point | None:
        """The point at any count: a rung's memo, else evaluated with the rungs' floor."""
        k = bisect_left(self.rungs, n)
        if k < len(self.rungs) and self.rungs[k] == n and self._reach(k):
            return self.done[k][1]
        return self.on_gpu.point(n, *self.floor_below(n))

    def at(self, n: int) -> Candidate | None:
        """The candidate at any count (see `point_at`)."""
        return self.candidate(n, self.point_at(n))

    def days_floor(self, n: int) -> float:
        """A lower bound on the days of `n` GPUs, from peak FLOPs and what no layout changes.

        A layout's MFU is the base factors times the count's MoE, link and scale factors
        times its layout factors (recomputation, TP, bubble, stage balance, ZeRO-3), each at
        most 1; and the scaling floor caps MFU × goodput at the smaller rungs' smallest. So
        days ≥ FLOPs / (n × peak × min(base × count factors × goodput, floor)), with no
        layout ranked or sized. The bound is shaved by a part in 10⁹ so that rounding can
        never reject a count whose exact days meet the deadline.
        """
        on = self.on_gpu
        job, gpu, pins = on.job, on.gpu, on.pins
        g = compute.goodput(n) if pins.goodput is None else pins.goodput
        if pins.mfu is not None:
            rate = pins.mfu * g
        else:
            _, nodes, ic, _ = on.link(n)
            bound = compute.layout_value(
                on.base_value, model=job.model, task=job.task, gpus=n, nodes=nodes,
                interconnect=ic, nvlink=gpu.has_nvlink,
            )  # fmt: skip
            rate = min(bound * g, self.floor_below(n)[0])
        days = job.base_flops / (n * on.peak * rate) / compute.SECONDS_PER_DAY
        return days * (1.0 - 1e-9)

    def bisect(
        self,
        lo: int,
        hi: tuple[int, _Point],
        ok: Callable[[_Point | None], bool],
        cannot: Callable[[int], bool] | None = None,
    ) -> tuple[int, _Point]:
        """The smallest count in (lo, hi] of whole nodes (whole `step`s) whose point is
        `ok`, with its point, given that `lo` is not and `hi` is (one step at a time: the
        count one step smaller fails).

        `cannot(n)` is True only for counts that cannot be `ok` (an analytic bound): those
        are decided without planning them."""
        step = self.step
        a, b, best = lo // step, hi[0] // step, hi
        while b - a > 1:
            mid = (a + b) // 2
            if cannot is not None and cannot(mid * step):
                a = mid
                continue
            pt = self.point_at(mid * step)
            if ok(pt):
                assert pt is not None
                b, best = mid, (mid * step, pt)
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
    with MEMO_LOCK:
        walk = _walk(job, gpu, pins)
        if gpu_count:
            c = walk.at(gpu_count)
            return c, c
        found = search(walk, deadline_days, max_gpus)
        if found is None:
            return None, None
        (n, pt), (mn, mpt) = found
        return walk.candidate(n, pt), walk.candidate(mn, mpt)


def search(
    walk: _Walk, deadline_days: float | None, max_gpus: int = MAX_SEARCH_GPUS
) -> tuple[tuple[int, _Point], tuple[int, _Point]] | None:
    """((chosen count, point), (minimum count, point)), or None when nothing fits.

    The rungs are walked in order; between the last rung that misses and the first that
    works, whole nodes are bisected (days fall as nodes are added), counts that the
    peak-FLOPs bound (`_Walk.days_floor`) rules out decided without being planned.
    """
    gpn = walk.on_gpu.gpu.gpus_per_node
    minimum: tuple[int, _Point] | None = None
    last: tuple[int, _Point] | None = None
    prev = 0  # the last rung that did not fit / did not meet the deadline
    for n, pt in walk.points():
        if n > max_gpus:
            break
        if pt is None:
            if minimum is None:
                prev = n
            continue
        if minimum is None:
            minimum = (n, pt) if n <= gpn or prev < gpn else walk.bisect(prev, (n, pt), _fits)
            prev = minimum[0]
            if _meets(minimum[1], deadline_days):
                return minimum, minimum
            continue
        last = (n, pt)
        if _meets(pt, deadline_days):
            chosen = (n, pt)
            if n > gpn and prev >= gpn:
                assert deadline_days is not None
                chosen = walk.bisect(
                    prev,
                    chosen,
                    lambda x: x is not None and _meets(x, deadline_days),
                    lambda m: walk.days_floor(m) > deadline_days,
                )
            return chosen, minimum
        prev = n
    if minimum is None:
        return None
    return last or minimum, minimum


def _fits(pt: _Point | None) -> bool:
    return pt is not None


def _meets(pt: _Point, deadline_days: float | None) -> bool:
    return deadline_days is None or pt[0] <= deadline_days


def scaling_points(
    job: TrainingJob, gpu: GpuSpec, chosen: int, pins: Pins
) -> tuple[tuple[int, float], ...]:
    """(count, days) of each point of the scaling curve of a plan of `chosen` GPUs: the
    fitting rungs up to `curve_end`, with the chosen count itself among them. Read from the
    walk's points, whose days are the candidates' (`_OnGpu.point` multiplies as
    `_OnGpu.evaluate` does), without building a candidate for each rung."""
    end = curve_end(chosen)
    out: list[tuple[int, float]] = []
    with MEMO_LOCK:
        walk = _walk(job, gpu, pins)
        for n, pt in walk.points():
            if n > end:
                break
            if pt is not None:
                out.append((n, pt[0]))
        if all(n != chosen for n, _ in out):
            pt = walk.point_at(chosen)
            if pt is not None:
                out.append((chosen, pt[0]))
    return tuple(sorted(out))


def curve_end(chosen: int) -> int:
    """The scaling curve runs to `CURVE_SPAN` × the chosen count, and at least one node of 8."""
    return max(8, chosen * CURVE_SPAN)


def tier_for(count: float, nodes: int) -> str:
    """T1: one GPU (or a MIG slice) → single_gpu; one node → multi_gpu; more → multi_node."""
    if nodes > 1:
        return "multi_node"
    return "single_gpu" if count <= 1 else "multi_gpu"
