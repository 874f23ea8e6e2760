"""One estimate: a workload in, a plan out (PRODUCT.md §5).

This module only orchestrates: it checks the request, hands it to the task's planner
(`training`, `serving`, `image`), then sizes the servers around the plan (`infra`), adds the
seed warnings (`seed_warnings`), prices it when a price list is given (`plan_costs`) and
assembles the response. Every figure it returns carries an `Explanation`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from app.engine import planner, serving
from app.engine.architectures import ModelSpec, from_hf_config, from_param_count, get_preset
from app.engine.explain import Explanation, operands
from app.engine.formatting import gpus as fmt_gpus
from app.engine.formatting import money, number, plural
from app.engine.gpus import DEFAULT_GPU, default_gpus, find_gpu
from app.engine.hardware import GpuSpec
from app.engine.image import plan_image
from app.engine.infra import BTU_H_PER_KW, Infra, size_infra
from app.engine.notices import FIELD_SUFFIX, Notice, template_and_params
from app.engine.plan import Plan
from app.engine.price_book import PriceBook
from app.engine.schemas import (
    TRAINING_TASKS,
    CandidateOut,
    EstimateRequest,
    EstimateResponse,
    GpuOut,
    InfraOut,
    MemoryGB,
    MemoryTerms,
    NetworkOut,
    NoticeOut,
    ParallelismOut,
)
from app.engine.seed_warnings import seed_warnings
from app.engine.serving import plan_inference
from app.engine.training import BYTES_PER_TOKEN, plan_training
from app.engine.units import fmt

__all__ = ["InputError", "default_gpu_id", "estimate", "gpu_pool", "resolve_model"]


class InputError(ValueError):
    """A request value the engine cannot use; `field` is its dotted path for a 422.

    `message` is a `Notice` where the engine wrote it (a page translates it with
    `app.web.notices.input_error_text`), else the text another module raised."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message  # the Notice itself, where it is one (str(e) is its English)


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
    _check_coherent(req, model)
    gpu = _chosen_gpu(req, pool)
    task = _task(req, model)
    req = _default_context_for(req, model, task)
    _check_task_fields(req, model, gpu, task)
    if task in TRAINING_TASKS:
        _check_training_pins(req, model, gpu)
    warnings = _inferred_model_warnings(model)
    explain: list[Explanation] = []
    candidates: list[CandidateOut] = []
    if task in TRAINING_TASKS:
        # One training search at a time per process: the planner's memo (rankings, walks) is
        # shared by every request, and a concurrent test saw answers differ under load. The
        # search is pure Python, so the GIL already ran these one at a time; little is lost.
        with planner.MEMO_LOCK:
            plan = plan_training(
                req, model, gpu, pool if search_all else [gpu], warnings, explain, candidates
            )
    elif task == "image":
        plan = plan_image(
            req, model, gpu, warnings, explain, slice_rented=_slice_rented(req, gpu, prices)
        )
    elif req.gpu is None and req.gpu_count is None:
        # The SLO search over every GPU of the pool (issue 12): the provider's GPU unless it
        # cannot meet the targets, or the cheapest configuration when the request asks.
        gpu, choices = serving.choose(req, model, pool, gpu, prices)
        if search_all or req.gpu_search == "cheapest":
            candidates.extend(
                serving.choice_candidates(choices, req.currency, req.precision, req.interconnect)
            )
        plan = plan_inference(
            req, model, gpu, warnings, explain, slice_rented=_slice_rented(req, gpu, prices)
        )
    else:
        plan = plan_inference(
            req,
            model,
            gpu,
            warnings,
            explain,
            pool if search_all else [gpu],
            candidates,
            slice_rented=_slice_rented(req, gpu, prices),
        )
    nodes = math.ceil(plan.count / gpu.gpus_per_node)
    tier = planner.tier_for(*_tier_span(plan, nodes))
    explain.append(_tier_explained(plan, nodes, tier))
    dataset_gb = _dataset_on_disk(req, plan, explain)
    infra = size_infra(
        gpu=gpu,
        gpus=plan.count,
        gpus_per_node=gpu.gpus_per_node,
        model=model,
        task=task,
        dataset_gb=dataset_gb,
        trainable=plan.trainable,
        interconnect=plan.interconnect,
    )
    explain.extend(infra.explain)
    warnings.extend(infra.warnings)
    warnings.extend(seed_warnings(req, model, plan))
    # A plan that overflows memory is not priced: a quote for hardware that cannot hold the
    # job or the model would be worse than none (its warning says what would fit instead).
    runnable = (plan.training is None or plan.training.fits) and (
        plan.inference is None or plan.inference.fits
    )
    cost = (
        None
        if prices is None or not runnable
        else _price(req, plan, infra, prices, warnings, explain)
    )
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
        parallelism=_parallelism_out(plan, model, training=plan.training is not None),
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
        if m.layers and m.hidden:
            # The query and output projections alone hold 2·h² weights per layer (h × h each,
            # Vaswani et al. 2017 §3.2.2), whatever the MLP, KV heads or experts add.
            floor = 2.0 * m.layers * m.hidden**2
            if floor > 1.5 * m.params_b * 1e9:
                raise InputError(
                    "model",
                    Notice(
                        "%(layers)s layers of width %(hidden)s hold at least %(floor)sB "
                        "parameters (2 × layers × hidden², the attention projections alone), "
                        "not %(params)sB: give matching numbers, or leave layers and hidden out "
                        "to have them inferred",
                        layers=f"{m.layers:,}", hidden=f"{m.hidden:,}",
                        floor=fmt(floor / 1e9), params=fmt(m.params_b),
                    ),
                )  # fmt: skip
        return from_param_count(m.params_b, **overrides)  # type: ignore[arg-type]
    except KeyError as e:
        raise InputError("model.preset", e.args[0]) from e
    except ValueError as e:
        where = "model.hf_config" if m.hf_config is not None else "model"
        # A Notice keeps its template, so a page can say it in its own language.
        said = e.args[0] if e.args and isinstance(e.args[0], Notice) else str(e)
        raise InputError(where, said) from e


def _slice_rented(req: EstimateRequest, gpu: GpuSpec, prices: PriceBook | None) -> bool:
    """Whether a MIG 1/4 slice of `gpu` can be sized: the price list rents it as one (T8's
    H100 slice), or no list prices the plan."""
    return (
        prices is None
        or serving.monthly_rent(prices, gpu.id, req.currency, serving.MIG_QUARTER) is not None
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


def _chosen_gpu(req: EstimateRequest, pool: list[GpuSpec]) -> GpuSpec:
    """The GPU to plan on: the request's, else the pool's default; its TP pin checked."""
    try:
        gpu = find_gpu(req.gpu or default_gpu_id(pool), pool)
    except KeyError as e:
        raise InputError("gpu", e.args[0]) from e
    # TP stays inside one NVLink domain: a node, or a whole GB200 NVL72 rack.
    domain = max(gpu.gpus_per_node, gpu.scale_up_domain)
    if req.gpu_count and req.tp and req.tp > domain:
        raise InputError(
            "tp",
            Notice(
                "%(tp_field)s %(tp)s exceeds the %(domain)s GPUs of one %(gpu)s NVLink domain",
                tp=req.tp, domain=domain, gpu=gpu.name, **fields("tp"),
            ),
        )  # fmt: skip
    if req.precision == "fp4" and not gpu.supports_fp4:
        raise InputError(
            "precision",
            Notice(
                "precision 'fp4' (NVFP4/MXFP4) needs FP4 tensor cores; %(gpu)s has none "
                "(Blackwell B200/B300/GB200 and AMD MI355X do): choose fp8, int8 or int4",
                gpu=gpu.name,
            ),
        )
    return gpu


def _check_coherent(req: EstimateRequest, model: ModelSpec) -> None:
    """Refuse, naming the field, values that contradict each other: a precision the task
    cannot train or serve in, a pinned gpu_count that tp (× pp) does not divide, a global
    batch smaller than one micro-batch, and (serving) an answer longer than its context."""
    if req.precision == "fp4" and req.task != "inference":
        raise InputError(
            "precision",
            Notice("precision 'fp4' (NVFP4/MXFP4) is an inference precision: use task 'inference'"),
        )
    quantised = req.precision in ("int8", "int4")
    lora_int8 = req.task == "lora" and req.precision == "int8"
    if quantised and req.task in ("pretrain", "full_finetune", "lora") and not lora_int8:
        raise InputError(
            "precision",
            Notice(
                "precision '%(precision)s' is not a training precision for task '%(task)s': "
                "use fp32, bf16, fp16 or fp8 (or task 'qlora' for a 4-bit base)",
                precision=req.precision, task=req.task,
            ),
        )  # fmt: skip
    group = (req.tp or 1) * (req.pp or 1)
    # (pp alone: `_check_training_pins` says "a multiple of pp", naming pp)
    if req.gpu_count and req.tp and req.gpu_count % group:
        raise InputError(
            "gpu_count",
            Notice(
                "%(count_field)s %(count)s must be a multiple of %(tp_field)s × %(pp_field)s = "
                "%(group)s",
                count=req.gpu_count, group=group, **fields("count", "tp", "pp"),
            ),
        )  # fmt: skip
    if req.global_batch and req.global_batch < req.micro_batch:
        raise InputError(
            "global_batch",
            Notice(
                "%(batch_field)s %(batch)s must be at least %(micro_field)s %(micro)s",
                batch=req.global_batch, micro=req.micro_batch, **fields("batch", "micro"),
            ),
        )  # fmt: skip
    serving_text = req.task == "inference" and model.kind != "image"
    if serving_text and req.output_tokens >= req.avg_context_tokens:
        # The context holds the prompt and the answer (`serving.config_for`: prompt =
        # context − answer): 5,000 answer tokens in a 100-token context was planned with a
        # 1-token prompt (QA).
        raise InputError(
            "output_tokens",
            Notice(
                "%(out_field)s %(out)s must be less than %(context_field)s %(context)s: the "
                "context holds the prompt and the answer",
                out=f"{req.output_tokens:,}", context=f"{req.avg_context_tokens:,}", **fields("out", "context"),
            ),
        )  # fmt: skip


def _check_training_pins(req: EstimateRequest, model: ModelSpec, gpu: GpuSpec) -> None:
    """Refuse a training request no framework could run, naming the field: a TP degree that
    does not split the attention heads (Megatron-LM shards whole heads and whole KV groups,
    or replicates KV heads when tp is a multiple of them), more pipeline stages than layers,
    and FP8 compute on a GPU without FP8 tensor cores (or in QLoRA, whose NF4 base is
    dequantised to bf16/fp16 for every matmul, Dettmers et al. 2023 §3)."""
    tp, pp = req.tp, req.pp
    _check_tp_splits_heads(tp, model, most=64)
    if pp and pp > model.layers:
        raise InputError(
            "pp",
            Notice(
                "%(pp_field)s %(pp)s exceeds the %(layers)s layers of %(model)s: every "
                "pipeline stage needs at least one layer (1–%(layers)s)",
                pp=pp, layers=model.layers, model=model.name, **fields("pp"),
            ),
        )  # fmt: skip
    if req.gpu_count and pp and not tp and req.gpu_count % pp:
        raise InputError(
            "pp",
            Notice(
                "%(count_field)s %(count)s must be a multiple of %(pp_field)s %(pp)s",
                count=req.gpu_count, pp=pp, **fields("count", "pp"),
            ),
        )  # fmt: skip
    if req.gpu_count and req.global_batch:
        _check_batch_splits(req, model, gpu)
    if req.precision == "fp8" and req.task == "qlora":
        raise InputError(
            "precision",
            Notice(
                "QLoRA dequantises its 4-bit base to bf16 or fp16 for every matmul; it has no "
                "FP8 path: choose bf16, fp16 or fp32"
            ),
        )
    if req.precision == "fp8" and not gpu.fp8_tflops:
        raise InputError(
            "precision",
            Notice(
                "training in fp8 needs FP8 tensor cores; %(gpu)s has none (Hopper, Ada, "
                "Blackwell and AMD MI300 do): choose bf16 or fp16",
                gpu=gpu.name,
            ),
        )
    if req.tokens is not None and req.tokens <= 0:
        # 0 is not "not given" (which assumes a budget and says so): it trains on nothing.
        raise InputError(
            "tokens",
            Notice(
                "0 training tokens trains on nothing: give the tokens to train on, or leave "
                "the field empty to have them assumed"
            ),
        )
    if req.tokens is not None and req.tokens < 1:
        raise InputError(
            "tokens",
            Notice(
                "%(tokens)s training tokens is less than one token: give at least 1",
                tokens=f"{req.tokens:g}",
            ),
        )
    if req.tokens is None and 0 < req.dataset_gb * 1e9 / BYTES_PER_TOKEN * (req.epochs or 1.0) < 1:
        # A dataset smaller than one token (a few bytes) would train on a fraction of a token.
        raise InputError(
            "dataset_gb",
            Notice(
                "%(gb)s GB × %(epochs)s epochs is less than one token (%(bytes)s bytes per "
                "token): give at least %(min)s GB",
                gb=f"{req.dataset_gb:g}",
                epochs=f"{req.epochs or 1.0:g}",
                bytes=f"{BYTES_PER_TOKEN:g}",
                min=f"{BYTES_PER_TOKEN / 1e9 / (req.epochs or 1.0):g}",
            ),
        )


#: The request fields a refusal names, by short name: passed as `FIELD_SUFFIX` parameters
#: (`fields`), which the API writes as the field names and a page as its labels
#: (`app.web.notices.input_error_text`).
FIELDS: Final = {
    "count": "gpu_count", "tp": "tp", "pp": "pp", "batch": "global_batch",
    "micro": "micro_batch", "dataset": "dataset_gb", "tokens": "tokens",
    "out": "output_tokens", "context": "avg_context_tokens",
}  # fmt: skip


def fields(*shorts: str) -> dict[str, str]:
    """The `FIELDS` parameters a refusal names, by their short names ("count", "tp")."""
    return {f"{short}{FIELD_SUFFIX}": FIELDS[short] for short in shorts}


def _check_batch_splits(req: EstimateRequest, model: ModelSpec, gpu: GpuSpec) -> None:
    """Refuse a pinned global batch smaller than one micro-batch on each data-parallel rank
    of the pinned GPU count (at the fewest ranks any tp × pp the pins allow leaves): no
    framework can run it (Megatron-LM and DeepSpeed require global batch = dp × micro-batch ×
    accumulation steps), and the planner, which never runs more sequences a step than a pinned
    batch, had no layout left and called the plan "does not fit in memory" beside figures
    that fitted (QA: 10 sequences, micro-batch 3, 8 GPUs at TP 1, PP 1)."""
    assert req.gpu_count and req.global_batch
    pins = planner.Pins(tp=req.tp, pp=req.pp)
    dp, group = planner.fewest_data_ranks(model, gpu, req.gpu_count, pins)
    least = dp * req.micro_batch
    if least <= req.global_batch:
        return
    params: dict[str, object] = {
        "batch": f"{req.global_batch:,}",
        "micro": f"{req.micro_batch:,}",
        "dp": f"{dp:,}",
        "count": f"{req.gpu_count:,}",
        "group": f"{group:,}",
        "least": f"{least:,}",
        # the most GPUs that leave a rank per micro-batch: batch ÷ micro ranks of tp × pp each
        "most": f"{req.global_batch // req.micro_batch * group:,}",
        "fit": f"{req.global_batch // dp:,}",
        **fields("batch", "micro", "count", "tp", "pp"),
    }
    if req.global_batch >= dp:
        text = (
            "%(batch_field)s %(batch)s is less than one micro-batch of %(micro)s on each of "
            "the %(dp)s data-parallel ranks that %(count_field)s %(count)s leaves at "
            "%(tp_field)s × %(pp_field)s = %(group)s (the fewest the pins allow): a step "
            "runs at least %(dp)s × %(micro)s = %(least)s sequences. Give %(batch_field)s "
            "%(least)s or a multiple of it, %(micro_field)s at most %(fit)s, or "
            "%(count_field)s at most %(most)s"
        )
    else:
        text = (
            "%(batch_field)s %(batch)s is less than one micro-batch of %(micro)s on each of "
            "the %(dp)s data-parallel ranks that %(count_field)s %(count)s leaves at "
            "%(tp_field)s × %(pp_field)s = %(group)s (the fewest the pins allow): a step "
            "runs at least %(dp)s × %(micro)s = %(least)s sequences. Give %(batch_field)s "
            "%(least)s or a multiple of it, or %(count_field)s at most %(most)s"
        )
    raise InputError("global_batch", Notice(text, **params))


#: Fields only a training plan reads (app.engine.training, app.engine.planner): on serving or
#: image generation they would be dropped without a word, so a value other than the field's
#: default is refused. `epochs`, `dataset_gb` and `deadline_days` are not here: the serving and
#: image plans read the data size (storage, uplink) and an image batch its deadline, and the
#: planner form sends epochs 2 for every task (the plans it saved carry that 2).
TRAINING_ONLY_FIELDS: tuple[str, ...] = (
    "seq_len", "micro_batch", "global_batch", "tokens", "zero_stage", "recompute", "mfu",
    "goodput", "optimizer", "lora_rank", "lora_targets",
)  # fmt: skip
#: Fields only serving a language model reads (app.engine.serving). `concurrency`, `users`,
#: `avg_context_tokens` and `output_tokens` are not here: the planner form sends them for every
#: task (hidden inputs), and the plans it saved carry them.
SERVING_ONLY_FIELDS: tuple[str, ...] = ("slo", "kv_dtype", "gpu_search", "gpu_memory_utilization")


def _given(req: EstimateRequest, name: str) -> bool:
    """Whether the request sets `name` to anything but its default (a saved plan stores every
    default, and the CLI sends some for every task: those pin nothing)."""
    return getattr(req, name) != EstimateRequest.model_fields[name].default


def _splits_heads(model: ModelSpec, tp: int) -> bool:
    """Whether `tp` shards whole attention heads and whole KV groups (or replicates KV heads
    when tp is a multiple of them), as Megatron-LM and vLLM require."""
    return model.heads % tp == 0 and (model.kv_heads % tp == 0 or tp % model.kv_heads == 0)


def _tp_splitting_heads(model: ModelSpec, most: int) -> list[int]:
    """The power-of-two TP degrees up to `most` that split the heads (`_splits_heads`)."""
    return [t for t in (1, 2, 4, 8, 16, 32, 64) if t <= most and _splits_heads(model, t)]


def _check_tp_splits_heads(tp: int | None, model: ModelSpec, *, most: int) -> None:
    """Refuse a pinned `tp` that does not shard whole attention heads and KV groups, naming
    the degrees up to `most` that do."""
    if tp and not _splits_heads(model, tp):
        raise InputError(
            "tp",
            Notice(
                "%(tp_field)s %(tp)s does not split the %(heads)s attention heads "
                "(%(kv_heads)s KV heads) of %(model)s: choose one of %(allowed)s",
                tp=tp, **fields("tp"), heads=model.heads, kv_heads=model.kv_heads, model=model.name,
                allowed=", ".join(map(str, _tp_splitting_heads(model, most))),
            ),
        )  # fmt: skip


def _check_task_fields(req: EstimateRequest, model: ModelSpec, gpu: GpuSpec, task: str) -> None:
    """Refuse, naming the field, a value the chosen task's planner would change or ignore
    (pins are pins): training-only fields on serving and image generation, serving-only fields
    elsewhere, pipeline stages where serving has none (a replica is `tp` GPUs, vLLM's default
    layout), model parallelism where an image model runs one copy per GPU, NVLink on a GPU
    without it, and a context longer than the model's positions (config.json
    `max_position_embeddings`; unknown for a model given by size alone)."""
    training = task in TRAINING_TASKS
    for name in () if training else TRAINING_ONLY_FIELDS:
        if _given(req, name):
            raise InputError(
                name,
                Notice(
                    "applies to training tasks only (pretrain, full_finetune, lora, qlora), "
                    "not to task %(task)s: leave it out",
                    task=req.task,
                ),
            )
    for name in () if task == "inference" else SERVING_ONLY_FIELDS:
        if _given(req, name):
            raise InputError(
                name,
                Notice(
                    "applies to serving a language model (task inference) only, not to task "
                    "%(task)s: leave it out",
                    task=req.task,
                ),
            )
    if task == "image" and req.tp and req.tp > 1:
        raise InputError(
            "tp",
            Notice(
                "image generation runs one model copy per GPU: tensor parallelism is not "
                "modelled; leave tp empty or 1, and pin gpu_count for more copies"
            ),
        )
    if task == "image" and req.pp and req.pp > 1:
        raise InputError(
            "pp",
            Notice(
                "image generation runs one model copy per GPU: pipeline parallelism is not "
                "modelled; leave pp empty or 1, and pin gpu_count for more copies"
            ),
        )
    domain = max(gpu.gpus_per_node, gpu.scale_up_domain)
    if task == "inference":
        # vLLM shards whole heads too: tp 3 on 32 heads was kept and sized (QA).
        _check_tp_splits_heads(req.tp, model, most=domain)
    if task == "inference" and req.pp and req.pp > 1:
        raise InputError(
            "pp",
            Notice(
                "pipeline parallelism is not modelled for serving (pp %(pp)s): pin tp instead, "
                "one of %(allowed)s for the %(heads)s attention heads (%(kv_heads)s KV heads) "
                "of %(model)s on %(gpu)s",
                pp=req.pp, heads=model.heads, kv_heads=model.kv_heads, model=model.name,
                allowed=", ".join(map(str, _tp_splitting_heads(model, domain))), gpu=gpu.name,
            ),
        )  # fmt: skip
    if req.interconnect == "nvlink" and not gpu.has_nvlink:
        raise InputError(
            "interconnect",
            Notice(
                "%(gpu)s has no NVLink: choose pcie within a node, or infiniband, roce or "
                "ethernet between nodes",
                gpu=gpu.name,
            ),
        )
    # A size-only model's context is assumed (Llama 3.1's), not a limit of the model.
    if model.max_context and req.model.params_b is None:
        context = (
            ("seq_len", req.seq_len, 16)
            if training
            else ("avg_context_tokens", req.avg_context_tokens, 1)
            if task == "inference"
            else None
        )
        if context and context[1] > model.max_context:
            name, value, least = context
            raise InputError(
                name,
                Notice(
                    "%(name)s %(value)s exceeds the %(max)s-token context of %(model)s: give "
                    "%(least)s–%(max)s",
                    name=name, value=f"{value:,}", max=f"{model.max_context:,}",
                    model=model.name, least=least,
                ),
            )  # fmt: skip


def _default_context_for(req: EstimateRequest, model: ModelSpec, task: str) -> EstimateRequest:
    """A training request that leaves `seq_len` at its default trains at the model's own
    context when that is shorter (GPT-3 175B: 2,048 positions, not the default 4,096); a
    `seq_len` given is a pin, checked against the context in `_check_task_fields`."""
    if (
        task in TRAINING_TASKS
        and not _given(req, "seq_len")
        and req.model.params_b is None
        and 0 < model.max_context < req.seq_len
    ):
        return req.model_copy(update={"seq_len": model.max_context})
    return req


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
        raise InputError(
            "task", Notice("task 'image' needs an image model preset (sdxl, flux-1-dev)")
        )
    if task == "inference" and model.kind == "image":
        task = "image"
    if task in TRAINING_TASKS and model.kind == "image":
        raise InputError(
            "task",
            Notice(
                "training %(model)s is not sized by this engine (diffusion training "
                "activations are not transformer activations); choose task 'image' to size "
                "generation, or a language model",
                model=model.name,
            ),
        )
    return task


# ----------------------------------------------------------------------------- the response


def _dataset_on_disk(req: EstimateRequest, plan: Plan, explain: list[Explanation]) -> float:
    """GB of training data the storage and the uplink must hold and carry.

    `dataset_gb` as given; when a training request gives tokens instead, the text those tokens
    come from (4 bytes a token, the same rate that turns a dataset into tokens) over the epochs
    it is read. Without this, a 15.6T-token pre-training run sized its storage and its uplink
    for the weights alone (a 1 Gbps uplink for 2,048 nodes).
    """
    if req.dataset_gb > 0 or plan.training is None:
        return req.dataset_gb
    epochs = req.epochs or 1.0
    gb = plan.training.tokens * BYTES_PER_TOKEN / 1e9 / epochs
    explain.append(
        Explanation(
            "infra.dataset_gb",
            gb,
            "GB",
            f"{fmt(plan.training.tokens)} tokens × {BYTES_PER_TOKEN:g} B/token / "
            f"{plural(f'{epochs:g}', 'epoch')} = {fmt(gb)} GB (no dataset size given)",
            "≈4 characters of English text per BPE token (OpenAI tokenizer guide); the same "
            "rate turns a dataset size into tokens",
            operands(
                tokens=(plan.training.tokens, "tokens"),
                bytes_per_token=(BYTES_PER_TOKEN, "B/token"),
                epochs=(epochs, "passes over the data"),
            ),
            "tokens * bytes_per_token / 1e9 / epochs",
        )
    )
    return gb


#: Seed T1's tiers: their number and the words a formula uses for them.
_TIERS: Final = {
    "single_gpu": (1, "single GPU"),
    "multi_gpu": (2, "multi-GPU, NVLink"),
    "multi_node": (3, "multi-node, InfiniBand"),
}


def _tier_span(plan: Plan, nodes: int) -> tuple[float, int]:
    """(GPUs, nodes) that decide the tier: the whole job's for training; for a service of
    copies that each fit in one node, one node's (its GPUs, 1 node). Independent copies on
    several servers share no collective: they are servers of the multi-GPU tier behind a
    load balancer, with Ethernet between them (`infra` sizes no InfiniBand for them), not
    seed 003's multi-node InfiniBand tier, which it describes as the entry to distributed
    training (QA: a 70B service of 26 one-GPU copies was put in the training tier)."""
    gpus = plan.fraction or plan.count
    if plan.inference is None or nodes <= 1:
        return gpus, nodes
    per_copy = plan.layout.tp * plan.layout.pp
    if per_copy > plan.gpu.gpus_per_node:
        return gpus, nodes  # one copy spans servers: the fabric is the tier's
    return float(min(plan.count, plan.gpu.gpus_per_node)), 1


def _tier_explained(plan: Plan, nodes: int, tier: str) -> Explanation:
    """T1: one GPU, one node of several GPUs, or several nodes (of one job or one copy)."""
    gpus, span = _tier_span(plan, nodes)
    number, words = _TIERS[tier]
    if tier == "multi_gpu" and not plan.gpu.has_nvlink:
        # An L4, L40S or RTX 4090 box talks over PCIe (QA: "tier 2, multi-GPU, NVLink" for
        # 8 × L4, which have no NVLink).
        words = "multi-GPU, PCIe"
    total = plan.fraction or plan.count
    where = f"{fmt_gpus(f'{total:g}')} on {plural(str(nodes), 'node')}"
    if span != nodes:
        per_copy = plan.layout.tp * plan.layout.pp
        where += (
            f", copies of {fmt_gpus(str(per_copy))} each within a node: "
            f"{fmt_gpus(f'{gpus:g}')} in 1 node"
        )
    # Words, not enum values: a sales engineer reads this formula out to procurement.
    return Explanation(
        "tier",
        number,
        tier,
        f"{where} → tier {number}, {words} "
        "(1 single GPU · 2 several GPUs in one node · 3 several nodes)",
        "T1: single GPU (7B–13B fine-tune, inference, image) · multi-GPU NVLink (13B full, "
        "70B LoRA; 2–8 GPUs) · multi-node InfiniBand (70B full, pre-training; 16+)",
        operands(gpus=(gpus, "GPUs"), nodes=(span, "nodes")),
        "3 if nodes > 1 else (1 if gpus <= 1 else 2)",
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
        # The layout's tensor-parallel group must sit in one machine: rentals and cloud
        # instances that cannot hold it are shown but not runnable (QA M5).
        tp=plan.layout.tp,
    )
    warnings.extend(cost_warnings)
    explain.extend(cost_explain)
    if plan.inference and cost and cost.get("cost_per_million_tokens") is not None:
        plan.inference.cost_per_million_tokens = cost["cost_per_million_tokens"]
        # The same monthly cost over the prompt tokens the service reads (input : output =
        # prompt : answer length), as API price lists quote input tokens separately.
        prompt = max(1, req.avg_context_tokens - req.output_tokens)
        per_output, ccy = float(cost["cost_per_million_tokens"]), str(cost["currency"])
        per_input = per_output * req.output_tokens / prompt
        plan.inference.cost_per_million_input_tokens = per_input
        # Said with its arithmetic, as the output figure is (QA found no derivation of it).
        explain.append(
            Explanation(
                "Cost per 1M input tokens",
                per_input,
                f"{ccy}/1M tokens",
                f"{money(per_output, ccy, 2)} per 1M output tokens × "
                f"{number(req.output_tokens, 0)} output tokens / {number(prompt, 0)} prompt "
                f"tokens = {money(per_input, ccy, 2)}",
                "the same monthly cost over the prompt tokens the service reads (input : "
                "output = prompt : answer length), as API price lists quote input tokens "
                "separately",
                operands(
                    cost_per_million_output=(per_output, f"{ccy}/1M tokens"),
                    output_tokens=(req.output_tokens, "tokens"),
                    prompt_tokens=(prompt, "tokens"),
                ),
                "cost_per_million_output * output_tokens / prompt_tokens",
            )
        )
    if plan.inference and cost and cost.get("cost_per_image") is not None:
        plan.inference.cost_per_image = cost["cost_per_image"]
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


def _parallelism_out(plan: Plan, model: ModelSpec, *, training: bool) -> ParallelismOut:
    lay = plan.layout
    return ParallelismOut(
        dp=lay.dp,
        tp=lay.tp,
        pp=lay.pp,
        ep=planner.expert_parallel(model, lay.dp) if training else 1,
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
        cooling_btu_h=infra.power_kw * BTU_H_PER_KW,
        storage_tiers=infra.storage_tiers,
    )
