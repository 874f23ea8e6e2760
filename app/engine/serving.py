"""Serving plans: a language model answering `concurrency` users at once (PRODUCT.md §5).

Steps: the smallest tensor-parallel degree whose replicas hold the load (`inference.serve`
at TP 1, 2, 4, … 64), the pinned GPU count if any, a quarter-GPU MIG slice when the whole
service fits one (T8), then the memory of one replica with its KV cache.

Units: memory in bytes (GB = 1e9 B in explanations), throughput in tokens/s. Sources: vLLM
(Kwon et al. 2023) for the KV cache, the NVIDIA MIG user guide and seed 003 T8 for slices.
"""

from __future__ import annotations

import math

from app.engine import inference, memory, planner
from app.engine.architectures import ModelSpec
from app.engine.explain import Explanation
from app.engine.hardware import GpuSpec
from app.engine.notices import Notice
from app.engine.plan import Plan
from app.engine.schemas import EstimateRequest, InferenceOut
from app.engine.units import GB, fmt

MIG_QUARTER = 0.25  # T8: "H100 MIG 1/4"
TP_DEGREES = (1, 2, 4, 8, 16, 32, 64)  # tensor-parallel degrees tried, smallest first


def plan_inference(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    warnings: list[str],
    explain: list[Explanation],
) -> Plan:
    """Size a service of `model` on `gpu` for the request's concurrency and context."""
    kv_dtype = req.kv_dtype or ("fp8" if req.precision == "fp8" else "bf16")
    pinned_tp = req.tp * (req.pp or 1) if req.tp else None
    best = _smallest_serving(req, model, gpu, kv_dtype, pinned_tp)
    if best is None:
        best = _overflowing_serving(req, model, gpu, kv_dtype, pinned_tp, warnings)
    count = _pinned_count(req, best, warnings)
    explain.extend(best.explain)
    warnings.extend(best.warnings)
    fraction = None
    mig = _mig_quarter_explained(req, gpu, best, count)
    if mig is not None:
        fraction = MIG_QUARTER
        explain.append(mig)
    layout = memory.Layout(dp=best.replicas, tp=best.tp, pp=1, zero_stage=0, recompute="none")
    per_gpu = memory.Memory(
        weights=best.weights_bytes_per_gpu,
        activations=best.activation_bytes_per_gpu,
        kv_cache=best.kv_bytes_per_gpu,
        overhead=best.overhead_bytes_per_gpu,
    )
    replica = _replica(req, model, best, kv_dtype, explain)
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
    return Plan(
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


def _smallest_serving(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    kv_dtype: str,
    pinned_tp: int | None,
) -> inference.Serving | None:
    """The serving layout with the fewest GPUs (the pinned TP only, when one is pinned)."""
    best: inference.Serving | None = None
    options = [pinned_tp] if pinned_tp else list(TP_DEGREES)
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
    return best


def _overflowing_serving(
    req: EstimateRequest,
    model: ModelSpec,
    gpu: GpuSpec,
    kv_dtype: str,
    pinned_tp: int | None,
    warnings: list[str],
) -> inference.Serving:
    """What to show when nothing fits: one sequence at the largest (or pinned) TP, flagged."""
    tp = pinned_tp or TP_DEGREES[-1]
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
    return best


def _pinned_count(req: EstimateRequest, best: inference.Serving, warnings: list[str]) -> int:
    """The GPU count: the serving layout's, or the pinned one (at least one replica's TP)."""
    count = best.gpus
    if not req.gpu_count or req.gpu_count == count:
        return count
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
    return max(req.gpu_count, best.tp)


def _mig_quarter_explained(
    req: EstimateRequest, gpu: GpuSpec, best: inference.Serving, count: int
) -> Explanation | None:
    """T8: a quarter-GPU MIG slice when the whole service fits in a quarter of the memory and
    a quarter of the bandwidth still decodes at reading speed; None when it does not."""
    need = best.weights_bytes_per_gpu + best.kv_bytes_per_gpu + best.activation_bytes_per_gpu
    need += best.overhead_bytes_per_gpu
    if not (
        gpu.mig_max
        and count == 1
        and not req.gpu_count
        and need <= gpu.memory_gb * GB * MIG_QUARTER * inference.GPU_MEMORY_UTILIZATION
        and best.tokens_per_s_per_user * MIG_QUARTER >= inference.MIN_TOKENS_PER_S_PER_USER
    ):
        return None
    return Explanation(
        "gpu.fraction",
        MIG_QUARTER,
        "GPU",
        f"needs {fmt(need / GB)} GB ≤ {fmt(gpu.memory_gb * MIG_QUARTER)} GB slice × "
        f"{inference.GPU_MEMORY_UTILIZATION}; {fmt(best.tokens_per_s_per_user * MIG_QUARTER)} "
        "tokens/s per user on a quarter of the bandwidth",
        "T8: H100 MIG 1/4 slice NT$15,000/month; NVIDIA MIG user guide (H100 2g.20gb)",
    )


def _replica(
    req: EstimateRequest,
    model: ModelSpec,
    best: inference.Serving,
    kv_dtype: str,
    explain: list[Explanation],
) -> memory.Memory:
    """One replica's memory in bytes: weights, activations, the KV cache of every user."""
    w, wx = memory.inference_weights(model, req.precision)
    explain.append(wx)
    kv, kv_ex = _kv_cache(req, model, kv_dtype)
    explain.append(kv_ex)
    return memory.Memory(
        weights=w,
        activations=best.activation_bytes_per_gpu * best.tp,
        kv_cache=kv,
        overhead=memory.CUDA_CONTEXT_GB * GB,
    )


def _kv_cache(req: EstimateRequest, model: ModelSpec, kv_dtype: str) -> tuple[float, Explanation]:
    """KV-cache bytes of `concurrency` sequences of `avg_context_tokens` each."""
    kv = memory.kv_cache_bytes(
        model, tokens=req.concurrency * req.avg_context_tokens, kv_dtype=kv_dtype
    )
    return kv, Explanation(
        "memory_gb.kv_cache",
        kv / GB,
        "GB",
        f"{req.concurrency} sequences × {req.avg_context_tokens} tokens × "
        f"{fmt(model.kv_cache_bytes_per_token(memory.KV_BYTES[kv_dtype]))} B = "
        f"{fmt(kv / GB)} GB ({kv_dtype})",
        "2 × layers × kv_heads × head_dim × bytes per token (vLLM, Kwon et al. 2023)",
    )
