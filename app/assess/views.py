"""Self-assessment (seed 003's three questions + the task) → tier, why, template, price range.

The answers map onto an `EstimateRequest` (model-size presets 7B/13B/70B or a custom size,
data size, deadline, task) and the engine decides the tier, so the page and the planner
can never disagree.
"""

from __future__ import annotations

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
            value = parse_number("size_other", answers.get("size_other"))
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


def why(a: Assessment) -> dict[str, str]:
    """The two reasons: memory, and time (or load for serving), one sentence each."""
    assert a.resp is not None and a.req is not None
    r = a.resp
    from app.web.templating import number, percent

    cap = r.gpu.memory_gb * (r.gpu.fraction or 1.0)
    count = number(r.gpu.count, 0 if r.gpu.count >= 1 else 2)
    memory = _(
        "Memory: the job needs about %(total)s GB of GPU memory; spread over %(n)s × %(gpu)s "
        "(%(cap)s GB each) that is %(per)s GB per GPU."
    ) % {
        "total": number(r.memory_gb.total, 0),
        "n": count,
        "gpu": r.gpu.name,
        "cap": number(cap, 0),
        "per": number(r.memory_per_gpu_gb.total, 0),
    }
    if r.training is not None:
        days = number(r.training.days, 1)
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
                "Time: about %(days)s days on %(gpus)s, just within your %(deadline)s-day "
                "deadline: estimates like this one are off by a median %(band)s, so allow "
                "for more time or GPUs."
            ) % {
                "days": days,
                "gpus": gpus,
                "deadline": number(a.req.deadline_days),
                "band": percent(band.median_pct, 0),
            }
        elif a.req.deadline_days and r.training.meets_deadline:
            time = _(
                "Time: about %(days)s days on %(gpus)s, within your %(deadline)s-day deadline."
            ) % {"days": days, "gpus": gpus, "deadline": number(a.req.deadline_days)}
        elif a.req.deadline_days:
            time = _(
                "Time: about %(days)s days on %(gpus)s, longer than your %(deadline)s-day "
                "deadline: a larger cluster is a project quote."
            ) % {"days": days, "gpus": gpus, "deadline": number(a.req.deadline_days)}
        else:
            time = _(
                "Time: about %(days)s days on %(gpus)s; with no deadline, fewer GPUs keep "
                "the cost down."
            ) % {"days": days, "gpus": gpus}
    elif r.inference is not None and r.inference.images_per_hour:
        time = _("Throughput: about %(n)s images an hour.") % {
            "n": number(r.inference.images_per_hour)
        }
    elif r.inference is not None:
        time = _(
            "Load: one copy of the model serves about %(max)s users at once; %(replicas)s "
            "cover your %(users)s users."
        ) % {
            # Users one replica holds at the targets; the total is this × replicas.
            "max": number(
                r.inference.concurrency_per_replica
                if r.inference.concurrency_per_replica is not None
                else r.inference.max_concurrency
            ),
            "replicas": number(r.inference.replicas),
            "users": number(a.req.concurrency),
        }
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


def result_context(a: Assessment, *, book: PriceBook | None, currency: str) -> dict[str, Any]:
    """What the result block shows."""
    if a.resp is None:
        return {}
    tier = content.TIER_BY_KEY[a.resp.tier]
    return {
        "tier": tier,
        "why": why(a),
        "architecture": content.ARCH_BY_KEY[tier.template],
        "tier_range": content.tier_price_range(book, tier, currency),
        "plan_range": plan_price(book, a.resp.gpu.count, currency),
        "signals": content.UPGRADE_SIGNALS,
    }
