"""The planner's service: form → EstimateRequest → estimate → everything the results show.

Routes stay thin: `plan_page(...)` returns the template context. The form is a GET form (it
works without JavaScript and its URL can be shared); HTMX sends the same query to /plan and
gets only the results block back.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from markupsafe import Markup, escape
from pydantic import ValidationError

from app import i18n
from app.charts import figures
from app.costs import explained, wording
from app.costs import presenters as costs_view
from app.engine.architectures import list_presets
from app.engine.costs.context import period_in_units
from app.engine.estimate import TRAINING_ONLY_FIELDS, InputError, estimate, gpu_pool
from app.engine.explain import Explanation
from app.engine.formatting import gpu_name
from app.engine.formatting import number as plain_number
from app.engine.notices import Notice
from app.engine.price_book import PriceBook
from app.engine.schemas import TRAINING_TASKS, EstimateRequest, EstimateResponse
from app.engine.serving import targets_for, users_of
from app.i18n import N_
from app.i18n import gettext as _
from app.text import first_surrogate
from app.web.forms import FieldError, parse_number, validation_messages
from app.web.notices import input_error_text

log = logging.getLogger("stratagem.web")

TASKS: Final = (
    ("pretrain", N_("Pre-training")),
    ("full_finetune", N_("Full fine-tuning")),
    ("lora", N_("LoRA fine-tuning")),
    ("qlora", N_("QLoRA fine-tuning (4-bit base)")),
    ("inference", N_("Inference (serving)")),
    ("image", N_("Image generation")),
)
TASK_NAMES: Final = dict(TASKS)
PRECISIONS: Final = ("bf16", "fp16", "fp8", "fp32", "int8", "int4")
RECOMPUTE: Final = (
    ("none", N_("None")),
    ("selective", N_("Selective")),
    ("full", N_("Full")),
)
#: The interconnect choices, named as the cost rows name them (one table: costs_view).
INTERCONNECTS: Final = tuple(costs_view.INTERCONNECT_NAMES.items())
TIER_NAMES: Final = {
    "single_gpu": N_("Single GPU"),
    "multi_gpu": N_("Multi-GPU"),
    "multi_node": N_("Multi-node"),
}
MODEL_SOURCES: Final = (
    ("preset", N_("Preset")),
    ("custom", N_("Parameter count")),
    ("config", N_("Paste config.json")),
)

#: The example the planner opens with: a 13B customer-service model, full fine-tune, in
#: two weeks (seed 003 T16's middle phase).
DEFAULTS: Final[dict[str, str]] = {
    "model_source": "preset",
    "preset": "llama-2-13b",
    "params_b": "",
    "hf_config": "",
    "task": "full_finetune",
    "precision": "bf16",
    "seq_len": "4096",
    "micro_batch": "1",
    "global_batch": "",
    "tokens": "",
    "epochs": "2",
    "dataset_gb": "5",
    "deadline_days": "14",
    "concurrency": "64",
    "users": "",
    "slo_ttft_s": "",
    "slo_tokens_per_s": "",
    "avg_context_tokens": "2048",
    "output_tokens": "256",
    "images": "10000",
    "image_resolution": "1024",
    "image_steps": "30",
    "images_per_hour": "",
    "gpu": "",
    "gpu_count": "",
    "zero_stage": "",
    "tp": "",
    "pp": "",
    "recompute": "",
    "mfu": "",
    "interconnect": "",
    "utilization": "100",
    "term_months": "12",
    "rent_months": "",
    "pricing_mode": "",
    "optimizer": "adamw",
    "lora_rank": "16",
}
FIELDS: Final = tuple(DEFAULTS)

#: Example workloads (links that fill the form; they work without JavaScript).
EXAMPLES: Final[tuple[tuple[str, str, dict[str, str]], ...]] = (
    (
        "8b-lora",
        N_("8B LoRA, one week"),
        {"preset": "llama-3.1-8b", "task": "lora", "dataset_gb": "1", "deadline_days": "7"},
    ),
    (
        "13b-full",
        N_("13B full fine-tune, two weeks"),
        {"preset": "llama-2-13b", "task": "full_finetune", "dataset_gb": "5"},
    ),
    (
        "70b-lora",
        N_("70B LoRA"),
        {"preset": "llama-3.1-70b", "task": "lora", "dataset_gb": "10", "deadline_days": "14"},
    ),
    (
        "70b-full",
        N_("70B full fine-tune, one month"),
        {
            "preset": "llama-3.1-70b",
            "task": "full_finetune",
            "dataset_gb": "50",
            "deadline_days": "30",
        },
    ),
    (
        "7b-chat",
        N_("7B chat, 200 users"),
        {
            "preset": "qwen2.5-7b",
            "task": "inference",
            "precision": "int4",
            "concurrency": "200",
            "users": "200",
            "avg_context_tokens": "1024",
            "output_tokens": "256",
            # Seed rule T3: ≈200 chats at ≥ 20 tokens/s each, first token within 1 s.
            "slo_ttft_s": "1",
            "slo_tokens_per_s": "20",
            "deadline_days": "",
        },
    ),
    (
        "images",
        N_("Image generation"),
        {"preset": "flux-1-dev", "task": "image", "deadline_days": ""},
    ),
    (
        "image-service",
        N_("Image service, 2,000 images/h"),
        {"preset": "sdxl", "task": "image", "deadline_days": "", "images_per_hour": "2000"},
    ),
)
EXAMPLE_BY_KEY: Final = {k: v for k, _label, v in EXAMPLES}

#: Form fields with their label msgids (error summary, out-of-band error slots).
FIELD_LABELS: Final = {
    "model_source": N_("Model"),
    "preset": N_("Preset"),
    "params_b": N_("Parameters (billions)"),
    "hf_config": N_("Hugging Face config.json"),
    "task": N_("Task"),
    "precision": N_("Precision"),
    "dataset_gb": N_("Training data (GB)"),
    "epochs": N_("Epochs"),
    "tokens": N_("Training tokens"),
    "deadline_days": N_("Deadline (days)"),
    "seq_len": N_("Sequence length (tokens)"),
    "micro_batch": N_("Micro-batch per GPU"),
    "global_batch": N_("Global batch (sequences)"),
    "concurrency": N_("Concurrent users"),
    "users": N_("Users served at once"),
    "slo_ttft_s": N_("Time to first token, at most (s)"),
    "slo_tokens_per_s": N_("Tokens/s per user, at least"),
    "avg_context_tokens": N_("Context per user (tokens)"),
    "output_tokens": N_("Output tokens per request"),
    "images": N_("Images to generate"),
    "image_resolution": N_("Image size (pixels)"),
    "image_steps": N_("Diffusion steps"),
    "images_per_hour": N_("Target images per hour"),
    "gpu": N_("GPU"),
    "gpu_count": N_("GPU count"),
    "zero_stage": N_("ZeRO stage"),
    "tp": N_("Tensor parallel"),
    "pp": N_("Pipeline parallel"),
    "recompute": N_("Activation recomputation"),
    "interconnect": N_("Interconnect"),
    "mfu": N_("MFU (%%)"),
    "lora_rank": N_("LoRA rank"),
    "utilization": N_("Utilisation (%% of the month’s hours)"),
    "term_months": N_("Contract term"),
    "rent_months": N_("Rent for (months)"),
    "pricing_mode": N_("Priced as"),
    "optimizer": N_("Optimizer"),
}

#: Explain entries whose figure the results show, with a readable name. The memory_gb.*
#: figures are one copy of the model before it is split over GPUs (the per-GPU figures are
#: on the cards): their names say so (QA, stop 29: "Weights memory 26.0 GB" beside a card
#: of 6.5 GB per GPU read as a contradiction).
FIGURE_NAMES: Final = {
    "memory_gb.weights": N_("Weights memory, whole model"),
    "memory_gb.gradients": N_("Gradient memory, whole model"),
    "memory_gb.optimizer": N_("Optimizer-state memory, whole model"),
    "memory_gb.activations": N_("Activation memory, one model copy before sharding"),
    "memory_gb.kv_cache": N_("KV-cache memory"),
    "memory_gb.overhead": N_("Framework overhead, one model copy"),
    "memory_gb.per_gpu": N_("Memory per GPU"),
    "memory_gb.allocated": N_("Allocated tensor memory, one model copy"),
    "gpu.count": N_("GPUs needed"),
    "training.flops": N_("Training compute"),
    "training.mfu": N_("Model FLOPs utilisation"),
    "training.days": N_("Days to finish"),
    "training.goodput": N_("Goodput (share of wall time spent training)"),
    "training.gpu_hours": N_("GPU-hours"),
    "inference.kv_bytes_per_token": N_("KV cache per token"),
    "parallelism.efficiency": N_("Parallel efficiency"),
    "tier": N_("Tier"),
    "infra.cpu_cores": N_("CPU cores"),
    "infra.ram_gb": N_("System memory"),
    "infra.nvme_tb": N_("NVMe storage"),
    "infra.checkpoint_gb": N_("Checkpoint size"),
    "infra.nas_tb": N_("NAS storage"),
    "infra.dataset_gb": N_("Training data on disk"),
    "infra.network.uplink_gbps": N_("Uplink bandwidth"),
    "infra.power_kw": N_("Power"),
    "lora.trainable_params": N_("LoRA trainable parameters"),
    "inference.max_concurrency": N_("Concurrent sequences, all replicas"),
    "inference.tokens_per_s": N_("Output tokens per second"),
    "inference.tokens_per_s_per_replica": N_("Output tokens per second per replica"),
    "inference.cost_per_million_tokens": N_("Cost per 1M tokens"),
    "inference.concurrency_per_replica": N_("Users per replica at the targets"),
    "inference.time_to_first_token_s": N_("Time to first token"),
    "inference.tokens_per_s_per_user": N_("Tokens/s per user"),
    "inference.itl_s": N_("Inter-token latency"),
    "inference.flops_per_pass": N_("Compute per denoising pass"),
    "inference.seconds_per_image": N_("Seconds per image"),
    "inference.images_per_hour_per_gpu": N_("Images per hour per GPU"),
    "inference.images_per_hour": N_("Images per hour"),
    "inference.batch_hours": N_("Time for the batch"),
    "cost.per_image": N_("Cost per image"),
    # The cost engine names its figures in words (app.engine.costs.compare)
    "Busy GPU hours per month": N_("Busy GPU hours per month"),
    "Rental period": N_("Rental period"),
    "Cheapest option": N_("Cheapest option"),
    "Hourly vs monthly rent crossover": N_("Hourly vs monthly rent crossover"),
    "Exchange rate": N_("Exchange rate"),
    "Cost per 1M tokens": N_("Cost per 1M tokens"),
    "Cost per 1M input tokens": N_("Cost per 1M input tokens"),
}

#: Cost figures named after one or two options (app.engine.costs.compare): the options are
#: named again in the page's language, as the quote names them (no catalog ids).
_VERSUS_MONTHLY: Final = " vs monthly rent (like for like)"
_BREAK_EVEN: Final = "Break-even utilisation: "


# Units the engine writes in English, as a reader of each language says them (the rest —
# GB, FLOP, TWD, kW, s, × — read the same in both).
UNIT_NAMES: Final = {
    "days": N_("days"),
    "months": N_("months"),
    "GPUs": N_("GPUs"),
    "cores": N_("cores"),
    "params": N_("parameters"),
    "GPU-h": N_("GPU-hours"),
    "h/month": N_("h/month"),
    "h": N_("h"),
    "images/h": N_("images/h"),
    "sequences per replica": N_("sequences per replica"),
    "sequences": N_("sequences"),
    "users per replica": N_("users per replica"),
    "fraction of 730 h": N_("share of 730 h"),
}


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label: str

    @property
    def pair(self) -> tuple[str, str]:
        return (self.value, self.label)


def preset_groups() -> list[tuple[str, list[Choice]]]:
    """Model presets for the <select>, language models first, then image models."""
    llm = [Choice(m.id, m.name) for m in list_presets() if m.kind == "llm"]
    img = [Choice(m.id, m.name) for m in list_presets() if m.kind != "llm"]
    return [(N_("Language models"), llm), (N_("Image models"), img)]


def gpu_choices(book: PriceBook | None = None) -> list[Choice]:
    """The GPUs the planner can use: the catalog's (read with the price list), else shipped."""
    # As customers read them: "(HGX/DGX, per GPU)" was English on the 中文 planner (QA).
    return [Choice(g.id, gpu_name(g.name)) for g in gpu_pool(None, book)]


def form_values(query: Mapping[str, str]) -> dict[str, str]:
    """The raw form: defaults, overlaid by an example, overlaid by what was sent."""
    values = dict(DEFAULTS)
    example = EXAMPLE_BY_KEY.get(query.get("example", ""))
    if example:
        values.update(example)
        return values
    for name in FIELDS:
        if name in query:
            values[name] = str(query[name]).strip()
    if "deadline_days" in query and not query["deadline_days"].strip():
        values["deadline_days"] = ""
    # The default 5 GB × 2 epochs belongs to the opening example: a link that gives tokens
    # and no data size (the API's own habit) is sized from its tokens, not from that example.
    if query.get("tokens", "").strip() and "dataset_gb" not in query:
        values["dataset_gb"] = ""
        if "epochs" not in query:
            values["epochs"] = ""
    # Older links and saved plans carry only `concurrency`: it is the users served at once.
    if not values["users"]:
        values["users"] = values["concurrency"]
    return values


def form_query(workload: Mapping[str, Any]) -> dict[str, str]:
    """The form's values that open `workload` (an `EstimateRequest` as JSON) in the planner:
    every field the form has, empty where the workload leaves it unset — not the form's
    default, which would plan another workload (QA: the self-assessment's int4 service
    opened as BF16, 32 GPUs). The inverse of `build_request` for a preset or a custom size;
    used by a saved plan's "edit in the planner" and the self-assessment's link."""
    model = workload.get("model") or {}
    values: dict[str, str] = {}
    if model.get("preset"):
        values.update(model_source="preset", preset=str(model["preset"]))
    elif model.get("params_b"):
        values.update(model_source="custom", params_b=f"{model['params_b']:g}")
    for name in FIELDS:
        value = workload.get(name)
        if name in ("preset", "params_b", "model_source") or value in (None, ""):
            continue
        if name in ("mfu", "utilization"):  # fractions in the workload, % in the form
            value = float(value) * 100
        values[name] = f"{value:g}" if isinstance(value, float) else str(value)
    for name in FIELDS:  # absent from the workload: empty, not the form's default
        if name not in values and name not in ("model_source", "preset", "params_b", "hf_config"):
            values.setdefault(name, "")
    return values


_INT_FIELDS: Final = (
    "seq_len",
    "micro_batch",
    "global_batch",
    "concurrency",
    "users",
    "avg_context_tokens",
    "output_tokens",
    "images",
    "image_resolution",
    "image_steps",
    "gpu_count",
    "tp",
    "pp",
    "term_months",
    "lora_rank",
)
_FLOAT_FIELDS: Final = (
    "tokens",
    "epochs",
    "dataset_gb",
    "deadline_days",
    "rent_months",
    "images_per_hour",
)
_ALIASES: Final = {
    "model": "model_source",
    "model.preset": "preset",
    "model.params_b": "params_b",
    "model.hf_config": "hf_config",
    "slo.ttft_s": "slo_ttft_s",
    "slo.tokens_per_s_per_user": "slo_tokens_per_s",
}
#: Form fields in percent of a request field that is a fraction (their limits too).
_PERCENT_SCALES: Final = {"mfu": 100.0, "utilization": 100.0}
_SLO_FIELDS: Final = (("slo_ttft_s", "ttft_s"), ("slo_tokens_per_s", "tokens_per_s_per_user"))


def build_request(
    values: Mapping[str, str], currency: str
) -> tuple[EstimateRequest | None, dict[str, str]]:
    """The EstimateRequest the form describes, or None and {field: message}."""
    errors: dict[str, str] = {}
    data: dict[str, Any] = {"currency": currency}

    source = values.get("model_source") or "preset"
    if source == "custom":
        try:
            params = parse_number("params_b", values.get("params_b"))
        except FieldError as e:
            errors[e.field] = str(e)
            params = None
        if params is None and "params_b" not in errors:
            errors["params_b"] = _("Enter the model size in billions of parameters, e.g. 13.")
        data["model"] = {"params_b": params}
    elif source == "config":
        text = (values.get("hf_config") or "").strip()
        if not text:
            errors["hf_config"] = _("Paste the model's config.json here.")
        else:
            try:
                cfg = json.loads(text)
            except RecursionError:  # nested thousands deep: json.loads gives up, not a 500
                errors["hf_config"] = _("config.json is nested too deeply.")
                cfg = None
            except json.JSONDecodeError as e:
                # Where, in the page's words: the parser's own text is English ("Expecting
                # property name enclosed in double quotes…" on a Chinese page, QA).
                errors["hf_config"] = _(
                    "This is not valid JSON: look at line %(line)s, column %(column)s."
                ) % {"line": e.lineno, "column": e.colno}
                cfg = None
            except ValueError as e:  # a number too long to read (int_max_str_digits)
                errors["hf_config"] = _("This is not valid JSON: %(error)s") % {"error": e}
                cfg = None
            if cfg is not None and not isinstance(cfg, dict):
                errors["hf_config"] = _("config.json must be a JSON object.")
            elif cfg is not None and first_surrogate(cfg) is not None:  # '"\\ud800"'
                errors["hf_config"] = _(
                    "config.json holds a lone UTF-16 surrogate (half of a pair): it is not "
                    "valid Unicode text."
                )
                cfg = None
            data["model"] = {"hf_config": cfg if isinstance(cfg, dict) else {}}
    else:
        if source != "preset":  # a hand-edited link: say so, never plan the default model
            errors["model_source"] = _("Choose one of the listed options.")
        data["model"] = {"preset": values.get("preset") or DEFAULTS["preset"]}

    data["task"] = values.get("task") or DEFAULTS["task"]
    data["precision"] = values.get("precision") or "bf16"
    for name in _INT_FIELDS:
        try:
            v = parse_number(name, values.get(name), integer=True)
        except FieldError as e:
            errors[e.field] = str(e)
            continue
        if v is not None:
            data[name] = v
    # The form shows "users served at once" and carries `concurrency` only for older links
    # (form_values copies it into users): the users typed are the concurrency, so the two
    # never disagree in a saved plan (the API documents `users` as taking precedence).
    if "users" in data:
        data["concurrency"] = data["users"]
    for name in _FLOAT_FIELDS:
        try:
            v = parse_number(name, values.get(name))
        except FieldError as e:
            errors[e.field] = str(e)
            continue
        if v is not None:
            data[name] = v
    slo: dict[str, float] = {}
    for name, key in _SLO_FIELDS:
        try:
            target = parse_number(name, values.get(name))
        except FieldError as e:
            errors[e.field] = str(e)
            continue
        if target is not None:
            slo[key] = target
    if slo and data["task"] == "inference":
        data["slo"] = slo
    for name in ("gpu", "recompute", "interconnect", "optimizer", "pricing_mode"):
        if values.get(name):
            data[name] = values[name]
    if values.get("zero_stage", "") in ("0", "1", "2", "3"):
        data["zero_stage"] = int(values["zero_stage"])
    elif values.get("zero_stage", "").strip():  # a hand-edited link: say so, don't drop it
        errors["zero_stage"] = _("Choose one of the listed options.")
    for name, scale in _PERCENT_SCALES.items():
        try:
            pct = parse_number(name, values.get(name))
        except FieldError as e:
            errors[e.field] = str(e)
            continue
        if pct is not None:
            data[name] = pct / scale
    # The page hides the fields the chosen task does not read, and still posts them: what
    # was typed there for another task is not a pin of this one (the API refuses such a
    # field, app.engine.estimate.TRAINING_ONLY_FIELDS; the form only forgets it).
    if data["task"] not in TRAINING_TASKS:
        # "Training data (GB)" too, which the API also reads for a service (data to upload):
        # the page hides it, and its default 5 GB added 5 GB to the uplink's hours of a
        # service whose API twin said 0 (QA).
        for name in (*TRAINING_ONLY_FIELDS, "dataset_gb"):
            data.pop(name, None)
            errors.pop(name, None)
    if errors:
        return None, errors
    try:
        return EstimateRequest.model_validate(data), {}
    except ValidationError as exc:
        messages = validation_messages(exc, _ALIASES, _PERCENT_SCALES)
        if "users" in messages:
            # `concurrency` is the users typed, copied (above): one mistake, said once, at
            # the field the page shows (QA: "-1" was listed for both).
            messages.pop("concurrency", None)
        return None, messages


#: Engine refusals that name request values ('full_finetune', 'sdxl': the API's words), as
#: the planner says them: by the names its fields show (QA read 「精度 'int8' 不能用於訓練任務
#: 'full_finetune'」). Keyed by the engine's templates (app.engine.estimate).
_FORM_WORDING: Final = {
    "precision '%(precision)s' is not a training precision for task '%(task)s': use fp32, "
    "bf16, fp16 or fp8 (or task 'qlora' for a 4-bit base)": N_(
        "%(task)s does not train in %(precision)s: choose FP32, BF16, FP16 or FP8, or QLoRA "
        "fine-tuning to train on a 4-bit base"
    ),
    "precision 'fp4' (NVFP4/MXFP4) is an inference precision: use task 'inference'": N_(
        "FP4 (NVFP4/MXFP4) is a precision for serving: choose Inference (serving) as the task"
    ),
    "task 'image' needs an image model preset (sdxl, flux-1-dev)": N_(
        "Image generation needs an image model: choose Stable Diffusion XL or FLUX.1 [dev] "
        "as the model"
    ),
}


def run_estimate(
    req: EstimateRequest, book: PriceBook | None
) -> tuple[EstimateResponse | None, dict[str, str]]:
    """The engine's answer, or None and the field it rejected (never raises on bad input)."""
    try:
        return estimate(req, prices=book, search_all=False), {}
    except InputError as e:
        field = _ALIASES.get(e.field, e.field.split(".")[-1] or "")
        said = _FORM_WORDING.get(e.message.template) if isinstance(e.message, Notice) else None
        if said is not None:
            params = {
                "precision": str(req.precision or "").upper(),
                "task": _(TASK_NAMES.get(req.task, req.task)),
            }
            return None, {field: Markup(escape(_(said) % params))}
        return None, {field: input_error_text(e, FIELD_LABELS)}


def scaling_points(req: EstimateRequest, resp: EstimateResponse) -> list[tuple[int, float]]:
    """(GPU count, days) for the chosen GPU, from the engine's own scaling curve."""
    if resp.training is None:
        return []
    points = [(p.gpus, p.days) for p in resp.training.curve]
    if not any(n == resp.gpu.count for n, _d in points):
        points.append((resp.gpu.count, resp.training.days))
    return sorted(points)


def parallel_layout(resp: EstimateResponse, max_nodes: int = 4) -> dict[str, Any]:
    """The GPUs of the first nodes, each labelled with its TP rank, PP stage and DP replica."""
    p = resp.parallelism
    per_node = max(1, resp.infra.gpus_per_node)
    total = max(1, math.ceil(resp.gpu.count))
    nodes = []
    for node in range(min(resp.infra.nodes, max_nodes)):
        gpus = []
        for local in range(per_node):
            rank = node * per_node + local
            if rank >= total:
                break
            tp = rank % p.tp
            pp = (rank // p.tp) % p.pp
            dp = rank // (p.tp * p.pp)
            gpus.append({"rank": rank, "tp": tp, "pp": pp, "dp": dp})
        nodes.append({"index": node, "gpus": gpus})
    return {"nodes": nodes, "hidden_nodes": max(0, resp.infra.nodes - max_nodes)}


def serving_summary(req: EstimateRequest, resp: EstimateResponse) -> dict[str, Any] | None:
    """The serving figures the results show: the targets, whether they are met, the service at
    the requested users (None for training and image plans)."""
    inf = resp.inference
    if inf is None or inf.images_per_hour or req.task != "inference":
        return None
    targets = targets_for(req)
    users = users_of(req)
    cost = resp.cost or {}
    return {
        "users": users,
        "ttft_target": targets.ttft_s,
        "rate_target": targets.tokens_per_s_per_user,
        "stated": targets.stated,
        "meets": inf.meets_slo,
        "fits": inf.fits,
        "replicas": inf.replicas,
        "per_replica": inf.concurrency_per_replica,
        "tokens_per_s": inf.tokens_per_s,
        "per_user": inf.tokens_per_s_per_user,
        "ttft_s": inf.time_to_first_token_s,
        "itl_ms": inf.itl_s * 1000 if inf.itl_s is not None else None,
        "offline": inf.offline_tokens_per_s,
        "per_m_output": inf.cost_per_million_tokens,
        "per_m_input": inf.cost_per_million_input_tokens,
        "currency": cost.get("currency", req.currency),
        # the share of the month's hours the unit costs assume (1: around the clock)
        "utilization": req.utilization if req.utilization is not None else 1.0,
    }


def image_summary(req: EstimateRequest, resp: EstimateResponse) -> dict[str, Any] | None:
    """The image-generation figures the results show (None for other tasks)."""
    inf = resp.inference
    if inf is None or req.task != "image" or inf.images_per_hour is None:
        return None
    cost = resp.cost or {}
    return {
        "images": req.images,
        "resolution": req.image_resolution,
        "steps": req.image_steps,
        "target": req.images_per_hour,
        "meets": inf.meets_images_per_hour,
        "fits": inf.fits,
        "gpus": resp.gpu.count,
        "slice": resp.gpu.fraction is not None,
        "per_gpu": inf.images_per_hour_per_gpu,
        "total": inf.images_per_hour,
        "seconds": inf.seconds_per_image,
        "batch_hours": inf.batch_hours,
        "per_image": cost.get("cost_per_image"),
        "of_images": cost.get("cost_of_images"),
        "currency": cost.get("currency", req.currency),
        "service": req.images_per_hour is not None,
        # what a service's cost per image assumes: the target rate (at most the capacity)
        "per_image_rate": min(req.images_per_hour, inf.images_per_hour)
        if req.images_per_hour
        else inf.images_per_hour,
        "utilization": req.utilization if req.utilization is not None else 1.0,
        "band": inf.uncertainty,
    }


def _cost_figure_namer(
    cost: Mapping[str, Any] | None, gpu_name: str, gpu_count: float
) -> Callable[[str], str | None]:
    """A function naming this response's cost figures in the active language:
    'Break-even utilisation: Monthly rent — 32× h100-sxm-80gb … vs AWS p5.48xlarge …' reads
    'Break-even utilisation: Monthly rent · 32 × NVIDIA H100 SXM5 80GB vs Public cloud —
    AWS p5.48xlarge'. It answers None for a figure naming an option the response does not
    list (the engine's words are shown then)."""
    from app.quotes.document import option_label

    cost = cost or {}
    tco = cost.get("tco_options") or {}
    by_label = {
        str(o.get("label")): o for o in [*(cost.get("options") or []), *(tco.get("options") or [])]
    }
    gpu = {"name": gpu_name, "count": gpu_count}
    hours = float(cost.get("hours_per_month") or 730.0)
    # Two providers' rent reads alike ("Monthly rent · 32 × NVIDIA H100 SXM5 80GB" from
    # Stratagem Taipei and from RunPod): such names say whose it is.
    names = {label: option_label(o, gpu, hours) for label, o in by_label.items()}
    shared = {n for n in names.values() if list(names.values()).count(n) > 1}
    for label, n in names.items():
        provider = str(by_label[label].get("provider") or "")
        if n in shared and provider:
            names[label] = n + i18n.paren(provider)

    def named(label: str) -> str | None:
        return names.get(label)

    def name(figure: str) -> str | None:
        if figure.endswith(_VERSUS_MONTHLY):
            a = named(figure.removesuffix(_VERSUS_MONTHLY))
            return _("%(option)s vs monthly rent (like for like)") % {"option": a} if a else None
        if figure.startswith(_BREAK_EVEN):
            pair = figure.removeprefix(_BREAK_EVEN)
            # Split where both halves are option labels (a label may itself hold " vs ").
            at = pair.find(" vs ")
            while at >= 0:
                a, b = named(pair[:at]), named(pair[at + 4 :])
                if a and b:
                    return _("Break-even utilisation: %(a)s vs %(b)s") % {"a": a, "b": b}
                at = pair.find(" vs ", at + 1)
        return None

    return name


def explain_items(resp: EstimateResponse, book: PriceBook | None = None) -> list[dict[str, Any]]:
    """The response's explanations as the Explain panel shows them: the cost figures in the
    page's language as /tco says them (`app.costs.explained`), priced from `book`."""
    items = explain_entries(resp.explain, resp.cost, resp.gpu.name, resp.gpu.count)
    explained.word(items, resp.explain, resp.cost or {}, book)
    return items


def _short_period(value: float, unit: str) -> str | None:
    """A period under a month said in days, or under a day in hours ("1.1 days", not
    "0.04 months"), as the cost notes say it (app.engine.costs.context.period_notice)."""
    if unit != "months" or not 0 < value < 1:
        return None
    said, amount = period_in_units(value)
    return f"{amount} {_('days') if said == 'days' else _('h')}"


def _short_seconds(value: float, unit: str) -> str | None:
    """Under a second in milliseconds, as the serving card says it: an inter-token latency of
    0.0182 s read "0.02 s" in the panel beside "18.2 ms" on the card (QA)."""
    if unit != "s" or not 0 < value < 1:
        return None
    return f"{plain_number(value * 1000, 1)} ms"


def explain_entries(
    explain: Sequence[Explanation],
    cost: Mapping[str, Any] | None,
    gpu_name: str,
    gpu_count: float,
) -> list[dict[str, Any]]:
    """Explanations named in the page's language: the planner's figures by FIGURE_NAMES, the
    cost figures by the options they compare (as the quote names them, `gpu_count` ×
    `gpu_name`). /tco, which has a cost block and no estimate, uses it too."""
    out = []
    cost_name = _cost_figure_namer(cost, gpu_name, gpu_count)
    for i, e in enumerate(explain):
        name = FIGURE_NAMES.get(e.figure)
        out.append(
            {
                "id": "x-" + "".join(ch if ch.isalnum() else "-" for ch in e.figure)[:60] + f"-{i}",
                "figure": e.figure,
                # FIGURE_NAMES are msgids (the template translates them); a cost figure's
                # name is built translated.
                "name": name,
                "translated_name": None if name else cost_name(e.figure),
                "value": e.value,
                "unit": _(UNIT_NAMES[e.unit]) if e.unit in UNIT_NAMES else e.unit,
                # The tier's value is its number (1–3) and its unit the tier's key: say its name;
                # money as the cost table writes it ("NT$2,100,000", not "2,100,000 TWD"),
                # a break-even utilisation as /tco does ("27% of 730 h a month").
                "label": _(TIER_NAMES[e.unit])
                if e.figure == "tier" and e.unit in TIER_NAMES
                else costs_view.money_text(e.value, e.unit)
                or (
                    costs_view.figure_text(e.value, e.unit)
                    if e.unit == "fraction of 730 h"
                    else None
                )
                or _short_period(e.value, e.unit)
                or _short_seconds(e.value, e.unit),
                "formula": e.formula,
                "source": e.source,
            }
        )
    return out


def page_notices(resp: EstimateResponse, book: PriceBook | None) -> list[Any]:
    """The plan's warnings as the page says them: a cost notice names an option as the cost
    table does and a provider's offer by its provider, not by its catalog id ("No contract
    tier of 12 months or less for runpod-secure-rtx-4090-x1 (tiers: none)" — QA), and
    without the seed rule it cites (`wording.customer_notice`); the rest as the engine
    wrote them."""
    names = costs_view.option_names((resp.cost or {}).get("options") or [], book)
    return [
        wording.customer_notice({"template": n.template, "params": n.params}, names, book)
        for n in resp.notices
    ]


def plan_page(
    query: Mapping[str, str], *, currency: str, book: PriceBook | None, lang: str
) -> dict[str, Any]:
    """Everything /plan shows for `query` (the form's values)."""
    values = form_values(query)
    req, errors = build_request(values, currency)
    # "Edit in planner" from a saved plan: saving makes a new revision of that plan.
    revise = (
        {"id": query["revise"], "version": query.get("version", "")}
        if str(query.get("revise", "")).isdigit() and str(query.get("version", "")).isdigit()
        else None
    )
    resp: EstimateResponse | None = None
    if req is not None:
        resp, errors = run_estimate(req, book)
    ctx: dict[str, Any] = {
        "nav_active": "plan",
        "values": values,
        "revise": revise,
        "errors": errors,
        "req": req,
        "resp": resp,
        "tasks": TASKS,
        "task_names": TASK_NAMES,
        "tier_names": TIER_NAMES,
        "precisions": PRECISIONS,
        "recompute_choices": RECOMPUTE,
        "interconnects": INTERCONNECTS,
        "model_sources": MODEL_SOURCES,
        "preset_groups": preset_groups(),
        "gpu_choices": gpu_choices(book),
        "examples": EXAMPLES,
        "precision_choices": [(p, p.upper()) for p in PRECISIONS],
        "field_labels": FIELD_LABELS,
    }
    if resp is None or req is None:
        return ctx
    explain = explain_items(resp, book)
    ctx.update(
        explain=explain,
        explain_by_figure={e["figure"]: e for e in explain},
        notices=page_notices(resp, book),
        layout=parallel_layout(resp),
        charts={
            "memory": figures.memory(resp),
            "scaling": figures.scaling(
                scaling_points(req, resp), req.deadline_days, resp.gpu.count
            ),
            "serving": figures.serving(resp, req),
        },
        serving=serving_summary(req, resp),
        image=image_summary(req, resp),
        costs=costs_view.view(resp.cost, book, currency, utilization=req.utilization),
        # With a list loaded, no costs means this plan could not be priced (its warning
        # says why), not that there is no list (QA: a B300 plan said there was none).
        price_list_loaded=book is not None,
    )
    return ctx
