"""Self-assessment (seed 003's three questions + the task) → tier, why, template, price range.

The answers map onto an `EstimateRequest` (model-size presets 7B/13B/70B or a custom size,
data size, deadline, task) and the engine decides the tier, so the page and the planner
can never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from app.architectures import content
from app.engine.estimate import InputError, estimate
from app.engine.price_book import PriceBook
from app.engine.schemas import EstimateRequest, EstimateResponse
from app.i18n import N_, ngettext
from app.i18n import gettext as _
from app.web.forms import FieldError, parse_number
from app.web.notices import input_error_text


@dataclass(frozen=True, slots=True)
class Option:
    value: str
    label: str
    example: str


TASK_OPTIONS: Final = (
    Option(
        "lora",
        N_("Adapt a model to our data"),
        N_("LoRA fine-tuning: a customer-service bot that knows our products"),
    ),
    Option(
        "full_finetune",
        N_("Retrain all of a model"),
        N_("Full fine-tuning: a domain model for law, finance or medicine"),
    ),
    Option(
        "pretrain",
        N_("Train a model from scratch"),
        N_("Pre-training on a large corpus of our own"),
    ),
    Option(
        "inference",
        N_("Serve a model to users"),
        N_("Inference: a chat assistant or an API for our apps"),
    ),
    Option("image", N_("Generate images"), N_("Product photos, marketing visuals (SDXL, FLUX)")),
)
SIZE_OPTIONS: Final = (
    Option("7", "7B", N_("Llama 2 7B, Mistral 7B, Qwen2.5 7B; SDXL for images")),
    Option("13", "13B", N_("Llama 2 13B, Qwen2.5 14B; FLUX for images")),
    Option("70", "70B", N_("Llama 3.1 70B, Qwen2.5 72B")),
    Option("other", N_("Another size"), N_("Type the size in billions of parameters")),
)
DATA_OPTIONS: Final = (
    Option("1", N_("Up to 1 GB"), N_("Thousands of documents or dialogues")),
    Option("10", N_("1–10 GB"), N_("A company's manuals, tickets and chats")),
    Option("100", N_("10–100 GB"), N_("Years of records, a large code base")),
    Option("1000", N_("100 GB–1 TB"), N_("A domain corpus")),
    Option("10000", N_("More than 1 TB"), N_("Web-scale text for pre-training")),
)
DEADLINE_OPTIONS: Final = (
    Option("7", N_("Within a week"), N_("A demo or a launch date")),
    Option("30", N_("Within a month"), N_("A project milestone")),
    Option("90", N_("Within three months"), N_("A quarter's roadmap")),
    Option("none", N_("No fixed deadline"), N_("Research: cost matters more than time")),
)
USERS_OPTIONS: Final = (
    Option("10", "10", N_("An internal pilot")),
    Option("50", "50", N_("A department")),
    Option("200", "200", N_("A company-wide assistant")),
    Option("1000", "1,000", N_("A public service")),
)
PRESETS: Final = {"7": "mistral-7b", "13": "llama-2-13b", "70": "llama-3.1-70b"}
ANSWER_FIELDS: Final = ("task", "size", "size_other", "data", "deadline", "users")
_BILLIONS: Final = re.compile(r"\s*[BbＢｂ]\s*$")


@dataclass
class Assessment:
    answers: dict[str, str]
    errors: dict[str, str]
    req: EstimateRequest | None = None
    resp: EstimateResponse | None = None

    @property
    def answered(self) -> bool:
        return self.resp is not None


def answers_from(query: Mapping[str, str]) -> dict[str, str]:
    return {k: str(query.get(k, "")).strip()[:40] for k in ANSWER_FIELDS}


def _valid(value: str, options: tuple[Option, ...]) -> bool:
    return any(o.value == value for o in options)


def build_request(
    answers: Mapping[str, str], currency: str
) -> tuple[EstimateRequest | None, dict[str, str]]:
    errors: dict[str, str] = {}
    task = answers.get("task", "")
    if not _valid(task, TASK_OPTIONS):
        errors["task"] = _("Choose what you want to do.")
    size = answers.get("size", "")
    params: float | None = None
    if not _valid(size, SIZE_OPTIONS):
        errors["size"] = _("Choose the model size.")
    elif size == "other":
        try:
            # The field asks for billions, so "70B" (as a model's name writes it) is 70, not
            # parse_number's 70 × 10^9.
            raw = _BILLIONS.sub("", answers.get("size_other", ""))
            value = parse_number("size_other", raw)
        except FieldError as e:
            errors["size_other"] = str(e)
            value = None
        if value is None and "size_other" not in errors:
            errors["size_other"] = _("Type the size in billions of parameters, e.g. 32.")
        elif value is not None and not 0.1 <= value <= 2000:
            errors["size_other"] = _("Between 0.1 and 2,000 billion parameters.")
        params = float(value) if value is not None else None
    inference = task == "inference"
    image = task == "image"
    if not inference and not image and not _valid(answers.get("data", ""), DATA_OPTIONS):
        errors["data"] = _("Choose how much data you have.")
    if inference and not _valid(answers.get("users", ""), USERS_OPTIONS):
        errors["users"] = _("Choose how many people use it at once.")
    if not _valid(answers.get("deadline", ""), DEADLINE_OPTIONS):
        errors["deadline"] = _("Choose when you need the results.")
    if errors:
        return None, errors

    model: dict[str, Any]
    if image:
        small = size == "7" or (size == "other" and (params or 0) < 10)
        model = {"preset": "sdxl" if small else "flux-1-dev"}
    elif size == "other":
        model = {"params_b": params}
    else:
        model = {"preset": PRESETS[size]}
    data: dict[str, Any] = {"model": model, "task": task, "currency": currency}
    if not inference and not image:
        data["dataset_gb"] = float(answers["data"]) / 2  # the middle of the band
    if inference:
        # Seed 003 T3 sizes serving with a quantised model (vLLM): 4-bit weights.
        data["concurrency"] = int(answers["users"])
        data["precision"] = "int4"
    if answers.get("deadline") != "none":
        data["deadline_days"] = float(answers["deadline"])
    try:
        return EstimateRequest.model_validate(data), {}
    except ValidationError:
        return None, {"size_other": _("This model size cannot be sized; try another.")}


def assess(query: Mapping[str, str], *, currency: str, book: PriceBook | None) -> Assessment:
    answers = answers_from(query)
    if not any(answers.values()):
        return Assessment(answers, {})
    req, errors = build_request(answers, currency)
    if req is None:
        return Assessment(answers, errors)
    try:
        resp = estimate(req, prices=book, search_all=False)
    except InputError as e:
        return Assessment(answers, {"size": input_error_text(e)})
    return Assessment(answers, {}, req, resp)


_QUALIFIER: Final = re.compile(r"\(([^()]*)\)\s*$")
_PER: Final = re.compile(r"\bper\b", re.I)
_SIZE: Final = re.compile(r"\d+(?:\.\d+)?\s*[GT]B\b", re.I)


def gpu_label(name: str) -> str:
    """The GPU's name as the customer reads it: the catalog's English qualifiers in brackets
    dropped ("NVIDIA GB200 NVL72 (per Blackwell GPU, 186GB)" → "NVIDIA GB200 NVL72 186GB"),
    product words kept ("(HGX/DGX, per GPU)" → "(HGX/DGX)"); a memory size the name lacks
    is moved out of the brackets. Product names are names in every language; "per GPU" is not
    (QA: English on the 中文 page)."""
    m = _QUALIFIER.search(name)
    if not m:
        return name
    base = name[: m.start()].rstrip()
    kept: list[str] = []
    for part in (p.strip() for p in m.group(1).split(",")):
        if not part or _PER.search(part):
            continue
        if _SIZE.fullmatch(part):
            if not _SIZE.search(base):
                base = f"{base} {part.replace(' ', '')}"
            continue
        kept.append(part)
    return f"{base} ({', '.join(kept)})" if kept else base  # a product name: ASCII


def duration(days: float) -> str:
    """A training time a customer can read: days from one day up (one decimal), hours under a
    day, minutes under an hour (never "0.0 days", QA)."""
    from app.web.templating import hours_text, number

    if days >= 1:
        return ngettext("%(num)s day", "%(num)s days", 2) % {"num": number(days, 1)}
    hours = days * 24
    if hours >= 1:
        return (
            hours_text(hours)
            if hours >= 10
            else (ngettext("%(num)s hour", "%(num)s hours", 2) % {"num": number(hours, 1)})
        )
    minutes = max(1, round(hours * 60))
    return ngettext("%(num)s minute", "%(num)s minutes", minutes) % {"num": number(minutes)}


def layout(r: EstimateResponse) -> tuple[int, int, int]:
    """(GPUs in all, GPUs one copy of the model spans, copies).

    Serving runs `replicas` copies, each split over TP × PP GPUs. Training is one job: the
    GPUs of its data-parallel ranks hold one copy each unless ZeRO shards the model states
    across them, and then the whole job is one copy."""
    n = max(1, r.gpu.count)
    if r.inference is not None:
        copies = max(1, r.inference.replicas)
    elif r.parallelism.zero_stage == 0:
        copies = max(1, r.parallelism.dp)
    else:
        copies = 1
    if n % copies:
        copies = 1
    return n, n // copies, copies


def memory_sentence(r: EstimateResponse) -> str:
    """Memory, with figures that multiply out: the fullest GPU's memory (the engine's
    `memory_per_gpu_gb.total`, the figure that must fit) × the GPUs a copy spans = the copy;
    × all the GPUs = the total. The replica's footprint before sharding (`memory_gb.total`) is
    not the sum of its GPUs' loads (ZeRO shards it across copies too, and pipeline stages hold
    several micro-batches' activations), so it is not shown beside them (QA: "604 GB over 16
    GPUs, 74 GB each")."""
    from app.web.templating import number

    gpu = gpu_label(r.gpu.name)
    per = round(r.memory_per_gpu_gb.total)
    if r.gpu.fraction and r.gpu.fraction < 1:
        return _(
            "Memory: the job needs about %(per)s GB of GPU memory, which fits in a %(cap)s GB "
            "slice (MIG) of one %(gpu)s."
        ) % {"per": number(per), "cap": number(r.gpu.memory_gb * r.gpu.fraction), "gpu": gpu}
    n, span, copies = layout(r)
    values = {
        "per": number(per),
        "gpu": gpu,
        "cap": number(r.gpu.memory_gb),
        "n": number(n),
        "span": number(span),
        "copies": number(copies),
        "copy": number(per * span),
        "total": number(per * n),
    }
    if n == 1:
        return (
            _(
                "Memory: the job needs about %(per)s GB of GPU memory, which fits on one "
                "%(gpu)s (%(cap)s GB)."
            )
            % values
        )
    if copies == 1:
        return (
            _(
                "Memory: the job is split over %(n)s × %(gpu)s (%(cap)s GB each): about "
                "%(per)s GB on each GPU, %(total)s GB in all."
            )
            % values
        )
    if span == 1:
        return (
            _(
                "Memory: one copy of the model needs about %(per)s GB, which fits on one "
                "%(gpu)s (%(cap)s GB); %(copies)s copies take %(n)s GPUs, %(total)s GB in all."
            )
            % values
        )
    return (
        _(
            "Memory: one copy of the model is split over %(span)s × %(gpu)s (%(cap)s GB "
            "each): about %(per)s GB on each GPU, %(copy)s GB a copy; %(copies)s copies take "
            "%(n)s GPUs, %(total)s GB in all."
        )
        % values
    )


def why(a: Assessment) -> dict[str, str]:
    """The two reasons: memory, and time (or load for serving), one sentence each."""
    assert a.resp is not None and a.req is not None
    r = a.resp
    from app.web.templating import number, percent

    memory = memory_sentence(r)
    if r.training is not None:
        took = duration(r.training.days)
        count = number(r.gpu.count)
        n = max(1, round(r.gpu.count))
        gpus = ngettext("%(num)s GPU", "%(num)s GPUs", n) % {"num": count}
        band = r.training.uncertainty
        if (
            a.req.deadline_days
            and r.training.meets_deadline
            and r.training.deadline_margin is False
            and band
        ):
            time = _(
                "Time: about %(time)s on %(gpus)s, just within your %(deadline)s-day "
                "deadline: estimates like this one are off by a median %(band)s, so allow "
                "for more time or GPUs."
            ) % {
                "time": took,
                "gpus": gpus,
                "deadline": number(a.req.deadline_days),
                "band": percent(band.median_pct, 0),
            }
        elif a.req.deadline_days and r.training.meets_deadline:
            time = _("Time: about %(time)s on %(gpus)s, within your %(deadline)s-day deadline.") % {
                "time": took,
                "gpus": gpus,
                "deadline": number(a.req.deadline_days),
            }
        elif a.req.deadline_days:
            time = _(
                "Time: about %(time)s on %(gpus)s, longer than your %(deadline)s-day "
                "deadline: a larger cluster is a project quote."
            ) % {"time": took, "gpus": gpus, "deadline": number(a.req.deadline_days)}
        else:
            time = _(
                "Time: about %(time)s on %(gpus)s; with no deadline, fewer GPUs keep the cost down."
            ) % {"time": took, "gpus": gpus}
    elif r.inference is not None and r.inference.images_per_hour:
        time = _("Throughput: about %(n)s images an hour.") % {
            "n": number(r.inference.images_per_hour)
        }
    elif r.inference is not None:
        values = {
            # Users one replica holds at the targets; the total is this × replicas.
            "max": number(
                r.inference.concurrency_per_replica
                if r.inference.concurrency_per_replica is not None
                else r.inference.max_concurrency
            ),
            "replicas": number(r.inference.replicas),
            "users": number(a.req.concurrency),
        }
        if r.inference.replicas <= 1:
            time = (
                _(
                    "Load: one copy of the model serves about %(max)s users at once, enough "
                    "for your %(users)s users."
                )
                % values
            )
        else:
            time = (
                _(
                    "Load: one copy of the model serves about %(max)s users at once; "
                    "%(replicas)s copies cover your %(users)s users."
                )
                % values
            )
    else:
        time = ""
    return {"memory": memory, "time": time}


def plan_price(
    book: PriceBook | None, gpus: float, currency: str
) -> tuple[float, float, float] | None:
    """(best term price, list price, GPUs rented) per month for the smallest of the provider's
    offers that holds `gpus` GPUs — 3 GPUs rent as the 4-GPU offer, as the cost engine
    covers them (seed 003 T8); the cheaper of two offers of one size. None without one."""
    holding = [o for o in content.house_offers(book) if o.gpu_count >= gpus - 1e-9]
    if book is None or not holding:
        return None
    offer = min(holding, key=lambda o: (o.gpu_count, o.monthly_price))
    best = max(offer.term_discounts.values(), default=0.0)
    try:
        top = book.convert(offer.monthly_price, offer.currency, currency)
    except KeyError:
        return None
    return (top * (1 - best), top, float(offer.gpu_count))


def estimate_text(r: EstimateResponse) -> str:
    """ "5 × NVIDIA H100 SXM5 80GB", or the MIG slice the engine sized."""
    from app.web.templating import number

    gpu = gpu_label(r.gpu.name)
    if r.gpu.fraction and r.gpu.fraction < 1:
        return _("a %(cap)s GB slice (MIG) of one %(gpu)s") % {
            "cap": number(r.gpu.memory_gb * r.gpu.fraction),
            "gpu": gpu,
        }
    return f"{number(r.gpu.count)} × {gpu}"


def template_note(
    r: EstimateResponse, architecture: content.Architecture, rented: float | None
) -> str:
    """Why the reference template's GPU count differs from the estimate's, in one sentence:
    the template is the tier's reference; the price is the estimate's (QA: 70B LoRA, 5 × H100
    estimated, 8 × H100 priced, "H100 ×4" shown)."""
    from app.web.templating import number

    if (
        r.gpu.id == content.REFERENCE_GPU
        and r.gpu.count == architecture.gpus
        and not (r.gpu.fraction and r.gpu.fraction < 1)
    ):
        return ""
    values = {"estimate": estimate_text(r), "rented": number(rented or 0)}
    if rented is not None and rented > r.gpu.count:
        return (
            _(
                "This is the tier's reference template, for comparison. Your estimate is "
                "%(estimate)s, priced as the %(rented)s-GPU rental, the smallest that holds it."
            )
            % values
        )
    if rented is not None:
        return (
            _(
                "This is the tier's reference template, for comparison. Your estimate is "
                "%(estimate)s, and the monthly price is for exactly that."
            )
            % values
        )
    return (
        _(
            "This is the tier's reference template, for comparison. Your estimate is "
            "%(estimate)s, priced per project."
        )
        % values
    )


def gpu_note(r: EstimateResponse) -> str:
    """Why the estimate is not on the tier's reference GPU (the H100): serving picks another
    GPU only when the H100 cannot meet the response-time targets (engine `serving.choose`)."""
    if r.gpu.id == content.REFERENCE_GPU:
        return ""
    values = {"gpu": gpu_label(r.gpu.name)}
    if r.inference is not None and r.training is None:
        return (
            _(
                "The tier's reference hardware is the H100; H100 servers cannot serve this "
                "model at the response times we plan for, so the estimate uses %(gpu)s, "
                "priced per project."
            )
            % values
        )
    return (
        _(
            "The tier's reference hardware is the H100; this estimate uses %(gpu)s, priced "
            "per project."
        )
        % values
    )


def result_context(a: Assessment, *, book: PriceBook | None, currency: str) -> dict[str, Any]:
    """What the result block shows. The monthly price is the provider's H100 rental that holds
    the estimate (a MIG slice where the engine sized one); an estimate on another GPU has no
    list price here and is quoted per project (it was priced as that many H100s)."""
    if a.resp is None:
        return {}
    r = a.resp
    tier = content.TIER_BY_KEY[r.tier]
    architecture = content.ARCH_BY_KEY[tier.template]
    reference = r.gpu.id == content.REFERENCE_GPU
    units = r.gpu.fraction if r.gpu.fraction and r.gpu.fraction < 1 else float(r.gpu.count)
    plan_range = plan_price(book, units, currency) if reference else None
    return {
        "tier": tier,
        "why": why(a),
        "estimate": estimate_text(r),
        "architecture": architecture,
        "tier_range": content.tier_price_range(book, tier, currency) if reference else None,
        "plan_range": plan_range,
        "units": units,
        "gpu_name": gpu_label(r.gpu.name),
        "template_note": template_note(r, architecture, plan_range[2] if plan_range else None),
        "gpu_note": gpu_note(r),
        "signals": content.UPGRADE_SIGNALS,
    }
