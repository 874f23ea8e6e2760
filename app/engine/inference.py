"""Inference serving: one engine step of continuous batching, from both phases.

A serving engine (vLLM, TensorRT-LLM, SGLang) runs steps. In each step every running sequence
decodes one token and the prompts of newly admitted requests are prefilled, chunked into the
same batch (Agrawal et al. 2024, "Sarathi-Serve", §4; vLLM chunked prefill). One step costs

    t_step = max(weight read, GEMM FLOPs) + max(KV read, attention FLOPs)
             + t_allreduce + t_overhead

(the linear layers and attention are separate kernels, each its own roofline)
- reads: bytes ÷ (bandwidth × hbm share): the weights once per step — for a
  mixture-of-experts the experts the batch actually touches — plus the KV cache of every
  sequence at its current context (Pope et al. 2022, "Efficiently Scaling Transformer
  Inference", §2–3; the roofline of Williams et al. 2009).
- FLOPs ÷ (dense peak × compute share): 2 × active parameters per token for every
  decoded and every prefilled token, plus attention 4 × layers × context × heads × head_dim.
- t_allreduce: two tensor-parallel all-reduces per layer (Megatron-LM, Shoeybi et al. 2019
  §3) over NVLink, Infinity Fabric or PCIe: latency + 2(tp−1)/tp × message ÷ link bandwidth.
- t_overhead: the engine's fixed cost per step.

In steady state at concurrency B with prompts of P tokens and answers of O tokens, B/O
requests finish per step, so B·P/O prompt tokens are prefilled per step and the mean context
is P + O/2. Aggregate output tokens/s = B / t_step, each user's rate = 1 / t_step (the
inter-token latency). KV capacity follows vLLM's paged cache: after weights, activations and
runtime overhead the rest of `gpu_memory_utilization` (default 0.9) holds KV blocks (Kwon et
al. 2023, §4). Users beyond the capacity wait for a slot: by Little's law a closed loop of N
users over C slots waits (N/C − 1) × the request time before its prefill starts.

The shares of peak come from `serving_stack` (per vendor and link, with sources).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation, Operand, operands
from app.engine.formatting import plural
from app.engine.hardware import GpuSpec
from app.engine.memory import (
    CUDA_CONTEXT_GB,
    KV_BYTES,
    NCCL_BUFFERS_GB,
    weight_split,
)
from app.engine.serving_stack import NVIDIA_PCIE, StackEfficiency, stack_for
from app.engine.units import GB, fmt

GPU_MEMORY_UTILIZATION = 0.90  # vLLM default gpu_memory_utilization
ACTIVATION_RESERVE_TOKENS = 8_192  # vLLM max_num_batched_tokens profile for chunked prefill
PREFILL_CHUNK_TOKENS = 8_192  # tokens prefilled per step at most (TensorRT-LLM max_num_tokens)
# Sequences an engine schedules per step at most: TensorRT-LLM's build default max_batch_size
# is 2048; vLLM V1 defaults max_num_seqs to 1024 on large GPUs. The smaller is used.
MAX_NUM_SEQS = 1_024
MIN_TOKENS_PER_S_PER_USER = 10.0  # below human reading speed the chat feels stalled
MIG_QUARTER = 0.25  # T8: "H100 MIG 1/4"
# NVIDIA MIG user guide, H100 80GB profiles: 2g.20gb = 2 of 7 compute slices, 2 of 8 memory
# slices (a quarter of the memory and of its bandwidth).
MIG_QUARTER_COMPUTE = 2 / 7
MIG_QUARTER_MEMORY = 2 / 8
# Weight-only int8/int4 kernels (Marlin, AWQ) decode at the memory roofline but run their
# GEMMs in 16-bit after dequantising: compute at the bf16 peak.
ACTIVATION_PRECISION = {"int8": "bf16", "int4": "bf16"}


@dataclass(frozen=True, slots=True, kw_only=True)
class ServingConfig:
    """One replica's setup: the model on `tp` GPUs, its precisions and the workload."""

    model: ModelSpec
    gpu: GpuSpec
    precision: str
    kv_dtype: str
    tp: int
    input_tokens: int
    output_tokens: int
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION
    interconnect: str = "nvlink"  # "nvlink" (or Infinity Fabric) | "pcie" between TP ranks
    max_num_seqs: int = MAX_NUM_SEQS

    @property
    def stack(self) -> StackEfficiency:
        return stack_for(self.gpu)

    @property
    def mean_context(self) -> float:
        """Mean tokens a running sequence holds in steady state: its prompt + half its answer."""
        return self.input_tokens + self.output_tokens / 2


@dataclass(frozen=True, slots=True)
class Step:
    """One engine step at a batch: its parts and total in seconds."""

    batch: int
    prefill_tokens: float
    memory_s: float
    compute_s: float
    allreduce_s: float
    overhead_s: float

    @property
    def seconds(self) -> float:
        return self.memory_s + self.compute_s + self.allreduce_s + self.overhead_s

    @property
    def bound(self) -> str:
        return "memory" if self.memory_s >= self.compute_s else "compute"


@dataclass(frozen=True, slots=True)
class OperatingPoint:
    """The service at one concurrency: what each user and the whole replica see."""

    concurrency: int  # users with a request open
    batch: int  # sequences decoding together (≤ KV capacity)
    step: Step
    tokens_per_s: float  # aggregate output tokens/s of the replica
    tokens_per_s_per_user: float  # each decoding user's rate = 1 / ITL
    itl_s: float  # inter-token latency
    ttft_s: float  # time to first token, waiting for a slot included
    queue_s: float  # the part of TTFT spent waiting for a slot


def weight_bytes(model: ModelSpec, precision: str) -> float:
    """Bytes of every resident weight at `precision` (memory.WEIGHT_BYTES per parameter;
    routed experts in their published format where the checkpoint fixes one, weight_split)."""
    dense, b, experts, eb = weight_split(model, precision)
    return dense * b + experts * eb


def active_weight_bytes(model: ModelSpec, precision: str, batch: float) -> float:
    """Weight bytes one decode step reads. MoE: dense part + the experts the batch touches.

    With B tokens × k experts per token the expected distinct experts touched of E is
    E·(1 − (1 − k/E)^B) (uniform routing); a large batch touches them all.
    """
    dense, b, experts, eb = weight_split(model, precision)
    if not model.is_moe:
        return model.params * b
    touched = 1 - (1 - model.experts_per_token / model.experts) ** batch
    return dense * b + experts * touched * eb


def kv_bytes_per_token_per_gpu(cfg: ServingConfig) -> float:
    """KV bytes one token occupies on one TP rank: KV heads split across ranks (replicated
    when there are fewer KV heads than ranks); MLA's latent is replicated on every rank."""
    m = cfg.model
    per_token = m.kv_cache_bytes_per_token(KV_BYTES[cfg.kv_dtype])
    split = min(cfg.tp, max(m.kv_heads, 1)) if m.attention == "gqa" else 1
    return per_token / split


def activation_bytes_per_gpu(cfg: ServingConfig) -> float:
    """The activation reserve vLLM profiles: ~12 live hidden vectors per batched token."""
    return ACTIVATION_RESERVE_TOKENS * cfg.model.hidden * 2.0 * 12 / cfg.tp


def overhead_bytes_per_gpu(cfg: ServingConfig) -> float:
    return (CUDA_CONTEXT_GB + (NCCL_BUFFERS_GB if cfg.tp > 1 else 0.0)) * GB


def free_kv_bytes_per_gpu(cfg: ServingConfig) -> float:
    """Memory left for KV blocks on one rank under `gpu_memory_utilization`."""
    budget = cfg.gpu.memory_gb * GB * cfg.gpu_memory_utilization
    return (
        budget
        - weight_bytes(cfg.model, cfg.precision) / cfg.tp
        - activation_bytes_per_gpu(cfg)
        - overhead_bytes_per_gpu(cfg)
    )


def kv_capacity(cfg: ServingConfig) -> int:
    """Sequences one replica holds, each with room for its whole prompt + answer (0 when the
    weights do not fit). Reserving the whole request is TensorRT-LLM's default scheduler
    policy (GUARANTEED_NO_EVICT) and what keeps vLLM from preempting sequences."""
    free = free_kv_bytes_per_gpu(cfg)
    if free <= 0:
        return 0
    per_seq = kv_bytes_per_token_per_gpu(cfg) * (cfg.input_tokens + cfg.output_tokens)
    return min(int(free // per_seq), cfg.max_num_seqs) if per_seq > 0 else cfg.max_num_seqs


def _compute_precision(cfg: ServingConfig) -> str:
    return ACTIVATION_PRECISION.get(cfg.precision, cfg.precision)


def _link_gbs(cfg: ServingConfig) -> float:
    """One-way GB/s between TP ranks (the datasheet figures are bidirectional)."""
    g = cfg.gpu
    if cfg.interconnect == "nvlink" and g.has_nvlink:
        return g.nvlink_gbs / 2
    return g.pcie_gbs / 2


def allreduce_seconds(cfg: ServingConfig, tokens: float) -> float:
    """Two all-reduces per layer of `tokens` hidden vectors (2 B each), ring algorithm."""
    if cfg.tp == 1:
        return 0.0
    st = cfg.stack
    over_link = cfg.interconnect == "nvlink" and cfg.gpu.has_nvlink
    # An NVLink part pinned to PCIe all-reduces at the PCIe row's latency.
    latency = (
        st.allreduce_latency_s
        if over_link or not cfg.gpu.has_nvlink
        else (NVIDIA_PCIE.allreduce_latency_s)
    )
    msg = tokens * cfg.model.hidden * 2.0
    wire = 2 * (cfg.tp - 1) / cfg.tp * msg / (_link_gbs(cfg) * 1e9 * st.link_share)
    return 2 * cfg.model.layers * (latency + wire)


def step(cfg: ServingConfig, batch: int) -> Step:
    """One steady-state engine step with `batch` sequences decoding (see the module doc).

    The linear layers (weights) and attention (KV cache) are separate kernels that run one
    after the other, so each is its own roofline: max(weight read, GEMM FLOPs) +
    max(KV read, attention FLOPs). `memory_s`/`compute_s` report the bound part of each.
    """
    m, g, st = cfg.model, cfg.gpu, cfg.stack
    ctx = cfg.mean_context
    prefill = batch * cfg.input_tokens / cfg.output_tokens
    bw = g.bandwidth_gbs * 1e9 * st.hbm
    peak = g.peak_tflops(_compute_precision(cfg)) * 1e12 * st.compute * cfg.tp
    w_s = active_weight_bytes(m, cfg.precision, batch + prefill) / cfg.tp / bw
    gemm_s = (batch + prefill) * 2.0 * m.active_params / peak
    kv_s = batch * ctx * kv_bytes_per_token_per_gpu(cfg) / bw
    attn = 4.0 * m.layers * m.heads * m.head_dim
    attn_s = (batch * attn * ctx + prefill * attn * cfg.input_tokens / 2) / peak
    mem = (w_s if w_s >= gemm_s else 0.0) + (kv_s if kv_s >= attn_s else 0.0)
    comp = (gemm_s if gemm_s > w_s else 0.0) + (attn_s if attn_s > kv_s else 0.0)
    return Step(
        batch=batch,
        prefill_tokens=prefill,
        memory_s=mem,
        compute_s=comp,
        allreduce_s=allreduce_seconds(cfg, batch + prefill),
        overhead_s=st.step_overhead_s,
    )


@dataclass(frozen=True, slots=True)
class Prefill:
    """One prompt's prefill, by term (seconds): the larger of compute and the weights' reads,
    plus the all-reduces and step overheads of its chunks."""

    flops: float
    compute_s: float
    memory_s: float
    allreduce_s: float
    overhead_s: float

    @property
    def seconds(self) -> float:
        return max(self.compute_s, self.memory_s) + self.allreduce_s + self.overhead_s


def prefill_parts(cfg: ServingConfig, tokens: int) -> Prefill:
    """One prompt of `tokens` alone, in chunks of PREFILL_CHUNK_TOKENS: each chunk reads the
    weights once and computes 2·N + causal attention per token."""
    m, g, st = cfg.model, cfg.gpu, cfg.stack
    chunks = max(1, math.ceil(tokens / PREFILL_CHUNK_TOKENS))
    attn = 4.0 * m.layers * m.heads * m.head_dim
    flops = tokens * (2.0 * m.active_params + attn * tokens / 2)
    compute_s = flops / cfg.tp / (g.peak_tflops(_compute_precision(cfg)) * 1e12 * st.compute)
    w = active_weight_bytes(m, cfg.precision, min(tokens, PREFILL_CHUNK_TOKENS)) / cfg.tp
    memory_s = chunks * w / (g.bandwidth_gbs * 1e9 * st.hbm)
    return Prefill(
        flops=flops,
        compute_s=compute_s,
        memory_s=memory_s,
        allreduce_s=allreduce_seconds(cfg, min(tokens, PREFILL_CHUNK_TOKENS)) * chunks,
        overhead_s=st.step_overhead_s * chunks,
    )


def prefill_seconds(cfg: ServingConfig, tokens: int) -> float:
    """`prefill_parts` in seconds."""
    return prefill_parts(cfg, tokens).seconds


def operating_point(
    cfg: ServingConfig, concurrency: int, capacity: int | None = None
) -> OperatingPoint:
    """The replica with `concurrency` users in a closed loop (each sends its next request
    when the last one ends): batch = min(users, KV capacity); the rest wait for a slot."""
    cap = kv_capacity(cfg) if capacity is None else capacity
    batch = max(1, min(concurrency, cap)) if cap else 1
    s = step(cfg, batch)
    itl = s.seconds
    own_prefill = prefill_seconds(cfg, cfg.input_tokens)
    # Under load the prompt shares its steps with the running batch (chunked prefill): it
    # takes its own prefill time plus one step of everyone else's decoding.
    ttft = own_prefill + (itl if batch > 1 else 0.0)
    queue = 0.0
    if concurrency > batch:
        request_s = ttft + cfg.output_tokens * itl
        queue = (concurrency / batch - 1) * request_s
    return OperatingPoint(
        concurrency=concurrency,
        batch=batch,
        step=s,
        tokens_per_s=batch / itl,
        tokens_per_s_per_user=1 / itl,
        itl_s=itl,
        ttft_s=ttft + queue,
        queue_s=queue,
    )


def max_load(cfg: ServingConfig) -> OperatingPoint:
    """Offline / max-load throughput (MLPerf Inference Offline): every slot busy."""
    cap = kv_capacity(cfg)
    return operating_point(cfg, max(cap, 1), cap)


def max_concurrency_at(
    cfg: ServingConfig, *, ttft_s: float | None, tokens_per_s_per_user: float | None
) -> int:
    """Most users one replica holds with every user at or above the targets (0: not even one).

    Per-user rate falls and TTFT rises with the batch, so the answer is found by bisection
    over 1 … KV capacity; beyond the capacity users queue and TTFT grows without bound.
    """
    cap = kv_capacity(cfg)
    if cap == 0:
        return 0

    def ok(n: int) -> bool:
        p = operating_point(cfg, n, cap)
        if tokens_per_s_per_user is not None and p.tokens_per_s_per_user < tokens_per_s_per_user:
            return False
        return ttft_s is None or p.ttft_s <= ttft_s

    if not ok(1):
        return 0
    lo, hi = 1, cap
    if ok(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def curve(cfg: ServingConfig, points: int = 24) -> list[OperatingPoint]:
    """Operating points from 1 user to twice the KV capacity, geometric (for the chart)."""
    cap = max(kv_capacity(cfg), 1)
    top = max(2, 2 * cap)
    ns = sorted({max(1, round(top ** (i / (points - 1)))) for i in range(points)})
    return [operating_point(cfg, n, cap) for n in ns]


def _scaled(tflops: float | None, share: float) -> float | None:
    return tflops * share if tflops else None


def mig_quarter(gpu: GpuSpec) -> GpuSpec:
    """A quarter-GPU MIG slice as a GPU: a quarter of the memory and bandwidth, 2/7 of the
    compute (NVIDIA MIG user guide, H100 2g.20gb), no peer links."""
    return replace(
        gpu,
        id=f"{gpu.id}-mig-1-4",
        name=f"{gpu.name} MIG 1/4",
        memory_gb=gpu.memory_gb * MIG_QUARTER_MEMORY,
        bandwidth_gbs=gpu.bandwidth_gbs * MIG_QUARTER_MEMORY,
        bf16_tflops=gpu.bf16_tflops * MIG_QUARTER_COMPUTE,
        fp8_tflops=gpu.fp8_tflops * MIG_QUARTER_COMPUTE if gpu.fp8_tflops else None,
        fp4_tflops=gpu.fp4_tflops * MIG_QUARTER_COMPUTE if gpu.fp4_tflops else None,
        mamf_bf16_tflops=_scaled(gpu.mamf_bf16_tflops, MIG_QUARTER_COMPUTE),
        mamf_fp8_tflops=_scaled(gpu.mamf_fp8_tflops, MIG_QUARTER_COMPUTE),
        nvlink_gbs=0.0,
        gpus_per_node=1,
        mig_max=0,
    )


def explain_point(
    cfg: ServingConfig, p: OperatingPoint, cap: int, replicas: int = 1
) -> list[Explanation]:
    """The figures of one operating point, each with its formula and source.

    cap: the sequences one replica's KV cache holds; replicas: the copies of the model served
    (`inference.max_concurrency` is the whole deployment's, cap × replicas)."""
    m, g, st = cfg.model, cfg.gpu, cfg.stack
    kv_tok = m.kv_cache_bytes_per_token(KV_BYTES[cfg.kv_dtype])
    kv_formula = (
        f"2 × {m.layers} layers × {m.kv_heads} KV heads × {m.head_dim} × "
        f"{fmt(KV_BYTES[cfg.kv_dtype])} B = {fmt(kv_tok)} B/token"
        if m.attention == "gqa"
        else f"MLA latent ({m.kv_lora_rank} + {m.qk_rope_head_dim}) × {m.layers} layers × "
        f"{fmt(KV_BYTES[cfg.kv_dtype])} B = {fmt(kv_tok)} B/token"
    )
    s = p.step
    kv_b = KV_BYTES[cfg.kv_dtype]
    kv_ops, kv_expr = (
        (
            operands(
                layers=(m.layers, "layers"),
                kv_heads=(m.kv_heads, "KV heads"),
                head_dim=(m.head_dim, ""),
                kv_bytes=(kv_b, "B"),
            ),
            "2 * layers * kv_heads * head_dim * kv_bytes",
        )
        if m.attention == "gqa"
        else (
            operands(
                kv_lora_rank=(m.kv_lora_rank, ""),
                rope_dim=(m.qk_rope_head_dim, ""),
                layers=(m.layers, "layers"),
                kv_bytes=(kv_b, "B"),
            ),
            "(kv_lora_rank + rope_dim) * layers * kv_bytes",
        )
    )
    if m.kind == "image":
        kv_ops, kv_expr = [], "0"
    step_ops: list[Operand] = operands(
        memory_s=(s.memory_s, "s"),
        compute_s=(s.compute_s, "s"),
        allreduce_s=(s.allreduce_s, "s"),
        overhead_s=(s.overhead_s, "s"),
    )
    step_expr = "memory_s + compute_s + allreduce_s + overhead_s"
    # One GPU (TP 1) all-reduces nothing: the formula reads no "+ all-reduce 0.00 ms" (the
    # operand, 0 s, stays in the expression).
    allreduce = f"all-reduce {s.allreduce_s * 1e3:.2f} ms + " if s.allreduce_s else ""
    pre = prefill_parts(cfg, cfg.input_tokens)
    own_prefill = pre.seconds
    ttft0 = "(own_prefill_s + (itl_s if batch > 1 else 0))"
    # The prompt's own prefill with its arithmetic (QA: "prefill 1792 tokens 79.1 ms" gave no
    # FLOPs, peak or share to check it by), then what the load adds: one step of the running
    # batch it is chunked into, and a wait for a KV slot.
    peak = g.peak_tflops(_compute_precision(cfg))
    ttft_text = (
        f"prefill {cfg.input_tokens} tokens: max({fmt(pre.flops)} FLOP / ({cfg.tp} × "
        f"{fmt(peak)} TFLOPS × {st.compute:.0%}) = {pre.compute_s * 1e3:.1f} ms, weights read "
        f"{pre.memory_s * 1e3:.1f} ms)"
        + (f" + all-reduce {pre.allreduce_s * 1e3:.2f} ms" if pre.allreduce_s else "")
        + f" + step overhead {pre.overhead_s * 1e3:.2f} ms = {own_prefill * 1e3:.1f} ms"
        + (f" + one step of the running batch {p.itl_s * 1e3:.2f} ms" if p.batch > 1 else "")
        + (f" + waiting for a slot {p.queue_s:.1f} s" if p.queue_s else "")
        + f" = {p.ttft_s:.3f} s"
    )
    return [
        Explanation(
            "inference.kv_bytes_per_token",
            kv_tok,
            "B",
            kv_formula,
            "vLLM (Kwon et al. 2023) §3; GQA (Ainslie et al. 2023); MLA (DeepSeek-V2 §2.1)",
            kv_ops,
            kv_expr,
        ),
        Explanation(
            "inference.max_concurrency",
            cap * replicas,
            "sequences",
            f"({fmt(g.memory_gb)} GB × {cfg.gpu_memory_utilization} − weights "
            f"{fmt(weight_bytes(m, cfg.precision) / cfg.tp / GB)} − activations "
            f"{fmt(activation_bytes_per_gpu(cfg) / GB)} − overhead "
            f"{fmt(overhead_bytes_per_gpu(cfg) / GB)}) GB / "
            f"({fmt(kv_bytes_per_token_per_gpu(cfg) / 1e6, 3)} MB × "
            f"{cfg.input_tokens + cfg.output_tokens} tokens of prompt + answer) = {cap} "
            f"per replica (at most {cfg.max_num_seqs}) × {plural(str(replicas), 'replica')} = "
            f"{cap * replicas}",
            "vLLM paged KV cache, gpu_memory_utilization (vLLM docs); TensorRT-LLM "
            "max_batch_size; T3: one H100 serving a quantised 7B holds ≈200 chats",
            operands(
                gpu_bytes=(g.memory_gb * GB, "B"),
                memory_utilization=(cfg.gpu_memory_utilization, ""),
                weights=(weight_bytes(m, cfg.precision) / cfg.tp, "B per GPU"),
                activations=(activation_bytes_per_gpu(cfg), "B per GPU"),
                overhead=(overhead_bytes_per_gpu(cfg), "B per GPU"),
                kv_per_token=(kv_bytes_per_token_per_gpu(cfg), "B per GPU"),
                tokens=(cfg.input_tokens + cfg.output_tokens, "tokens per sequence"),
                max_seqs=(cfg.max_num_seqs, "sequences"),
                replicas=(replicas, "replicas"),
            ),
            "max(0, min(floor((gpu_bytes * memory_utilization - weights - activations - "
            "overhead) / (kv_per_token * tokens)), max_seqs)) * replicas",
        ),
        Explanation(
            "inference.itl_s",
            p.itl_s,
            "s",
            f"memory-bound kernels {s.memory_s * 1e3:.2f} ms + compute-bound kernels "
            f"{s.compute_s * 1e3:.2f} ms + {allreduce}step overhead {s.overhead_s * 1e3:.2f} ms "
            f"at batch {s.batch} with {fmt(s.prefill_tokens)} prompt tokens chunked in = "
            f"{p.itl_s * 1e3:.2f} ms ({st.label}: {st.hbm:.0%} of HBM, {st.compute:.0%} of peak)",
            f"continuous batching with chunked prefill (Sarathi-Serve, Agrawal et al. 2024); "
            f"roofline (Pope et al. 2022 §2); shares of peak: {st.source}",
            step_ops,
            step_expr,
        ),
        Explanation(
            "inference.tokens_per_s_per_user",
            p.tokens_per_s_per_user,
            "tokens/s",
            f"1 / {p.itl_s * 1e3:.2f} ms = {fmt(p.tokens_per_s_per_user)} tokens/s",
            "each decoding sequence gets one token per engine step",
            step_ops,
            f"1 / ({step_expr})",
        ),
        Explanation(
            "inference.tokens_per_s_per_replica",
            p.tokens_per_s,
            "tokens/s",
            f"{plural(str(p.batch), 'sequence')} / {p.itl_s * 1e3:.2f} ms = "
            f"{fmt(p.tokens_per_s)} tokens/s "
            "per replica",
            "one replica's output tokens at its share of the requested concurrency: each "
            "decoding sequence gets one token per engine step",
            [Operand("batch", p.batch, "sequences"), *step_ops],
            f"batch / ({step_expr})",
        ),
        Explanation(
            "inference.time_to_first_token_s",
            p.ttft_s,
            "s",
            ttft_text,
            "compute-bound prefill (Pope et al. 2022 §3); queueing by Little's law for a "
            "closed loop of users over the KV slots",
            operands(
                own_prefill_s=(own_prefill, "s"),
                itl_s=(p.itl_s, "s"),
                batch=(p.batch, "sequences"),
                concurrency=(p.concurrency, "users"),
                output_tokens=(cfg.output_tokens, "tokens"),
            ),
            f"{ttft0} + ((concurrency / batch - 1) * ({ttft0} + output_tokens * itl_s) "
            "if concurrency > batch else 0)",
        ),
    ]


@dataclass(slots=True)
class Serving:
    """One replica's serving figures and the replicas needed for the asked concurrency."""

    tp: int
    replicas: int
    max_concurrency_per_replica: int
    weights_bytes_per_gpu: float
    kv_bytes_per_gpu: float
    activation_bytes_per_gpu: float
    overhead_bytes_per_gpu: float
    tokens_per_s: float
    tokens_per_s_per_user: float
    ttft_s: float
    explain: list[Explanation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def gpus(self) -> int:
        return self.tp * self.replicas

    @property
    def max_concurrency(self) -> int:
        return self.max_concurrency_per_replica * self.replicas
