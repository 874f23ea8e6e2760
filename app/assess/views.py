"""Self-assessment (seed 003's three questions + the task) → tier, why, template, price range.

The answers map onto an `EstimateRequest` (model-size presets 7B/13B/70B or a custom size,
data size, deadline, task) and the engine decides the tier, so the page and the planner
can never disagree (a serving fleet whose copies each fit one server is in its servers'
tier there too).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlencode

from babel.numbers import format_decimal
from pydantic import ValidationError

from app.architectures import content
from app.architectures.content import fx_note, whole
from app.engine.costs.rental import machine_gpus, offer_servers
from app.engine.estimate import InputError, estimate, gpu_pool
from app.engine.formatting import gpu_name as gpu_label
from app.engine.plan_costs import DEFAULT_SERVICE_MONTHS, machines_independent, provider_selection
from app.engine.price_book import PriceBook
from app.engine.schemas import TRAINING_TASKS, EstimateRequest, EstimateResponse
from app.i18n import N_, babel_locale, gap, ngettext
from app.i18n import gettext as _
from app.planner.views import form_query
from app.web.forms import FieldError, number_text, parse_number
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
    # Each card names models shaped like the one it sizes (PRESETS): the memory a user takes
    # is set by the attention layout, and Llama 2's full key-value heads take 4–5× that of
    # Mistral's or Qwen2.5's grouped ones (QA: "13B" answered 6 GPUs; Qwen2.5 14B needs 2).
    Option("7", "7B", N_("Mistral 7B, Llama 3.1 8B; SDXL for images")),
    Option("13", "13B", N_("Llama 2 13B; FLUX for images")),
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
MIN_PARAMS_B: Final = 0.1  # the "other size" field, billions of parameters
MAX_PARAMS_B: Final = 2000.0
ANSWER_FIELDS: Final = ("task", "size", "size_other", "data", "deadline", "users")
_BILLIONS: Final = re.compile(r"\s*[BbＢｂ]\s*$")


#: With no deadline, training longer than a year is sized to finish within one instead: the
#: fewest GPUs that hold a 7B pre-training on 10 TB took 902.9 days, shown as the cheap
#: choice (QA). Past a year the GPUs are a generation old before the job ends, and the
#: hardware is amortised over three (seed 003 T9); a job of months is left as answered.
PLANNING_HORIZON_DAYS: Final = 365.0


@dataclass
class Assessment:
    answers: dict[str, str]
    errors: dict[str, str]
    req: EstimateRequest | None = None
    resp: EstimateResponse | None = None
    #: Without a deadline: the fewest-GPU estimate that ran past PLANNING_HORIZON_DAYS
    #: (`resp` is then sized for the horizon).
    unbounded: EstimateResponse | None = None

    @property
    def answered(self) -> bool:
        return self.resp is not None


#: The questions each task asks besides what to do and the model's size (the page shows
#: only these once a task is chosen): training asks for its data and deadline, serving for
#: its users at once; image generation for neither. A deadline sizes nothing a service or an
#: image model serves (the engine plans both by load), so it is not asked there.
_TRAINING_QUESTIONS: Final = ("data", "deadline")
QUESTIONS_FOR: Final = {
    **{t: _TRAINING_QUESTIONS for t in TRAINING_TASKS},
    "inference": ("users",),
    "image": (),
}


def questions_for(task: str) -> tuple[str, ...]:
    """The questions `task` asks; before a task is chosen, training's (the page's default)."""
    return QUESTIONS_FOR.get(task, _TRAINING_QUESTIONS)


def answers_from(query: Mapping[str, str]) -> dict[str, str]:
    """The answers, without those to a question the chosen task does not ask (a radio
    answered before the task changed, or an old link's): they size nothing and would be
    carried into the quote request as if they had."""
    # Whole: cut to 40 characters, a size "000…070" (41) was sized as 7B (QA).
    answers = {k: str(query.get(k, "")).strip() for k in ANSWER_FIELDS}
    asked = QUESTIONS_FOR.get(answers["task"])
    if asked is not None:
        for k in ("data", "deadline", "users"):
            if k not in asked:
                answers[k] = ""
    return answers


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
        # One message for a size that is missing, unreadable or out of range: the range and
        # an example inside it (it said "e.g. 4096", parse_number's example, QA).
        size_range = _("Enter a size from 0.1 to 2,000 billion parameters, e.g. 32.")
        value: float | int | None = None
        try:
            # The field asks for billions, so "70B" (as a model's name writes it) is 70, not
            # parse_number's 70 × 10^9.
            raw = _BILLIONS.sub("", answers.get("size_other", ""))
            number_text("size_other", raw)  # a decimal comma ("1,5") says so itself
        except FieldError as e:
            errors["size_other"] = str(e)
        else:
            try:
                value = parse_number("size_other", raw)
            except FieldError:
                value = None
            if value is None or not MIN_PARAMS_B <= value <= MAX_PARAMS_B:
                errors["size_other"] = size_range
                value = None
        params = float(value) if value is not None else None
    inference = task == "inference"
    image = task == "image"
    asked = questions_for(task)
    if "data" in asked and not _valid(answers.get("data", ""), DATA_OPTIONS):
        errors["data"] = _("Choose how much data you have.")
    if "users" in asked and not _valid(answers.get("users", ""), USERS_OPTIONS):
        errors["users"] = _("Choose how many people use it at once.")
    if "deadline" in asked and not _valid(answers.get("deadline", ""), DEADLINE_OPTIONS):
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
    if "data" in asked:
        data["dataset_gb"] = float(answers["data"]) / 2  # the middle of the band
    if inference:
        # Seed 003 T3 sizes serving with a quantised model (vLLM): 4-bit weights.
        data["concurrency"] = int(answers["users"])
        data["precision"] = "int4"
    if "deadline" in asked and answers.get("deadline") != "none":
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
        too_long = (
            req.deadline_days is None
            and resp.training is not None
            and resp.training.days > PLANNING_HORIZON_DAYS
        )
        if too_long:
            bounded = req.model_copy(update={"deadline_days": PLANNING_HORIZON_DAYS})
            return Assessment(
                answers,
                {},
                bounded,
                estimate(bounded, prices=book, search_all=False),
                unbounded=resp,
            )
    except InputError as e:
        return Assessment(answers, {"size": input_error_text(e)})
    return Assessment(answers, {}, req, resp)


def planner_request(a: Assessment) -> EstimateRequest | None:
    """The workload the answer states, as the planner and a converted lead plan it: the
    assessment's request (4-bit weights for serving, a deadline of a year where none was
    given and the job ran longer), and for images the service the card prices monthly at the
    throughput it states ("about 4,509 images an hour", whole images down, so that the same
    GPUs hold it) — the request alone is a one-off batch of 1,000 images, which a plan priced
    as an hour of rent (QA: a NT$101 quote for a lead the card priced NT$40,000–50,000 a
    month)."""
    if a.req is None or a.resp is None:
        return None
    r = a.resp
    if a.req.task == "image" and r.inference is not None and r.inference.images_per_hour:
        rate = max(1, math.floor(r.inference.images_per_hour))
        return a.req.model_copy(update={"images_per_hour": float(rate)})
    return a.req


def planner_link(a: Assessment) -> str:
    """/plan with every assumption the card states (QA: the link dropped `precision=int4`, and
    the planner showed BF16 on 32 GPUs for the card's 26 × H100)."""
    req = planner_request(a)
    if req is None:
        return "/plan"
    return "/plan?" + urlencode(form_query(req.model_dump(mode="json")))


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


#: The share of the fullest GPU's memory that activations must reach before the answer says
#: what they are: where they are most of it, the sequence length sets the memory.
ACTIVATIONS_SAID: Final = 0.4


def activations_sentence(r: EstimateResponse, seq_len: int) -> str:
    """ " Activations of 4,096-token sequences take about 20 GB on the GPU: …", where
    activations are a large share of the fullest GPU (else ""). A 7B LoRA said "about 38 GB"
    beside the "7B LoRA ≈ 20 GB" a customer has read (seed 003 T2), which holds at 2,048
    tokens with activations recomputed (QA)."""
    from app.web.templating import number

    m = r.memory_per_gpu_gb
    if not m.total or m.activations < ACTIVATIONS_SAID * m.total:
        return ""
    values = {"act": number(round(m.activations)), "seq": number(seq_len)}
    if r.gpu.count <= 1:
        said = _(
            "Activations of %(seq)s-token sequences take about %(act)s GB of it: shorter "
            "sequences, or activations recomputed in the backward pass, need less."
        )
    else:
        said = _(
            "Activations of %(seq)s-token sequences take about %(act)s GB on each GPU: "
            "shorter sequences, or activations recomputed in the backward pass, need less."
        )
    return gap() + said % values


def why(a: Assessment) -> dict[str, str]:
    """The two reasons: memory, and time (or load for serving), one sentence each."""
    assert a.resp is not None and a.req is not None
    r = a.resp
    from app.web.templating import number, percent

    memory = memory_sentence(r)
    if r.training is not None:
        memory += activations_sentence(r, a.req.seq_len)
    model = model_sentence(a)
    if r.training is not None:
        took = duration(r.training.days)
        count = number(r.gpu.count)
        n = max(1, round(r.gpu.count))
        gpus = ngettext("%(num)s GPU", "%(num)s GPUs", n) % {"num": count}
        band = r.training.uncertainty
        if a.unbounded is not None and a.unbounded.training is not None:
            few = max(1, round(a.unbounded.gpu.count))
            time = _(
                "Time: on the fewest GPUs that hold it (%(few)s), this would take %(long)s, too "
                "long to plan for. Sized to finish within %(horizon)s days instead: about "
                "%(time)s on %(gpus)s."
            ) % {
                "few": ngettext("%(num)s GPU", "%(num)s GPUs", few)
                % {"num": number(a.unbounded.gpu.count)},
                "long": duration(a.unbounded.training.days),
                "horizon": number(PLANNING_HORIZON_DAYS),
                "time": took,
                "gpus": gpus,
            }
            if not r.training.meets_deadline:
                time += " " + _(
                    "Even that misses the %(horizon)s days: a larger cluster is a project quote."
                ) % {"horizon": number(PLANNING_HORIZON_DAYS)}
        elif (
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
    return {"model": model, "memory": memory, "time": time}


def model_sentence(a: Assessment) -> str:
    """The model the answer was sized for: a size is not a model, and two models of one size
    can need GPUs in a ratio of 3 to 1 when served (the key-value cache each user holds)."""
    assert a.resp is not None and a.req is not None
    name = str((a.resp.model or {}).get("name") or "")
    serving = a.req.task == "inference"
    if a.req.model.preset is None:
        # The size as the customer typed it, to its last decimal (QA: 0.5 read back as "0B",
        # 1.5 as "2B"), grouped as the page's language writes numbers; a sentence of its
        # own, so that 中文 needs no space where a model's Latin name takes one.
        size = format_decimal(a.req.model.params_b or 0, format="#,##0.###", locale=babel_locale())
        if serving:
            return _(
                "Model: sized for a %(n)sB-parameter model of the usual shape with 4-bit "
                "weights. The memory each user takes depends on the model's attention layout, "
                "so another model of this size can need more or fewer GPUs: the planner sizes "
                "your exact model."
            ) % {"n": size}
        return _("Model: sized for a %(n)sB-parameter model of the usual shape.") % {"n": size}
    if serving:
        return _(
            "Model: sized for %(model)s with 4-bit weights. The memory each user takes depends "
            "on the model's attention layout, so another model of this size can need more or "
            "fewer GPUs: the planner sizes your exact model."
        ) % {"model": name}
    return _("Model: sized for %(model)s.") % {"model": name}


@dataclass(frozen=True, slots=True)
class Rental:
    """The provider's own rental the cost engine prices the estimate on
    (`plan_costs.provider_selection`), a month of it in the page's currency: the list price
    and the 12-month contract price (seed 003 T8: −20 %), the range the planner, /tco and
    the quote give for the same GPUs. `servers`: GPUs of each machine, largest first (a
    16-GPU InfiniBand offer is two machines of 8)."""

    servers: tuple[int, ...]
    gpus: float
    list_price: float
    best_price: float


def house_rental(
    r: EstimateResponse, task: str, book: PriceBook | None, currency: str
) -> Rental | None:
    """The house provider's rental for the estimate, as the engine selects it; None without
    a price list, off the reference GPU (quoted per project), where the provider cannot run
    it, or for a training job over several rentals (a multi-node cluster, seed 003 T1:
    quoted per project)."""
    if book is None or r.gpu.id != content.REFERENCE_GPU:
        return None
    per_node = gpus_per_node(r, book)
    fraction = r.gpu.fraction if r.gpu.fraction and r.gpu.fraction < 1 else None
    sel = provider_selection(
        book,
        provider=book.house_provider,
        task=task,
        gpu_id=r.gpu.id,
        count=max(1, r.gpu.count),
        tp=max(1, r.parallelism.tp),
        gpus_per_node=per_node,
        fraction=fraction,
    )
    if sel is None or (sel.nodes > 1 and not machines_independent(task)):
        return None

    def conv(amount: float, ccy: str) -> float:
        return book.convert(amount, ccy, currency)

    try:
        top = sel.monthly(conv)
        best = sel.term_monthly(conv, DEFAULT_SERVICE_MONTHS)
    except KeyError:
        return None
    servers = tuple(
        sorted(
            (
                round(machine_gpus(o, per_node))
                for o, k in sel.parts
                for _ in range(k * offer_servers(o, per_node))
            ),
            reverse=True,
        )
    )
    return Rental(servers, sel.gpus, top, best)


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


# ------------------------------------------------------------------- a serving fleet's tier


@dataclass(frozen=True, slots=True)
class Fleet:
    """Copies of a model served side by side on several servers (engine `inference.replicas`),
    each copy inside one server: they exchange no data, so nothing crosses servers but the
    requests from the load balancer."""

    copies: int
    span: int  # GPUs one copy takes
    per_node: int  # GPUs a server of this GPU holds
    nodes: int  # the engine's servers
    rental: Rental | None  # the provider's servers that hold it, when it rents this GPU

    @property
    def servers(self) -> tuple[int, ...]:
        """GPUs of each server: the rental's, else the engine's packing (full servers)."""
        if self.rental is not None:
            return self.rental.servers
        total = self.copies * self.span
        full, rest = divmod(total, self.per_node)
        return (self.per_node,) * full + ((rest,) if rest else ())


def gpus_per_node(r: EstimateResponse, book: PriceBook | None) -> int:
    """GPUs the engine puts in one server of the estimate's GPU (`GpuSpec.gpus_per_node`)."""
    for g in gpu_pool(None, book):
        if g.id == r.gpu.id:
            return max(1, g.gpus_per_node)
    return max(1, math.ceil(r.gpu.count / max(1, r.gpu.nodes)))


def fleet_of(r: EstimateResponse, book: PriceBook | None, rental: Rental | None) -> Fleet | None:
    """The estimate as a serving fleet over several servers, each copy inside one; None for a
    training job, one server, or copies that are themselves split across servers."""
    if r.inference is None or r.training is not None or r.gpu.nodes <= 1:
        return None
    if r.gpu.fraction and r.gpu.fraction < 1:
        return None
    _n, span, copies = layout(r)
    per_node = gpus_per_node(r, book)
    if copies <= 1 or span > per_node:
        return None
    return Fleet(copies, span, per_node, r.gpu.nodes, rental)


def tier_key(r: EstimateResponse, fleet: Fleet | None) -> str:
    """The seed-003 tier the page shows: the engine's, which puts a fleet of copies that
    each fit a server in its servers' tier (`app.engine.estimate._tier_span`)."""
    del fleet  # the engine decides; the fleet only words the reasons
    return r.tier


def servers_text(servers: tuple[int, ...]) -> str:
    """ "3 × 8-GPU servers + 1 × 2-GPU server" / "3 台 8 卡伺服器 + 1 台 2 卡伺服器"."""
    from app.web.templating import number

    counts = Counter(servers)
    return " + ".join(
        ngettext("%(n)s × %(gpus)s-GPU server", "%(n)s × %(gpus)s-GPU servers", k)
        % {"n": number(k), "gpus": number(size)}
        for size, k in sorted(counts.items(), reverse=True)
    )


def servers_count(fleet: Fleet) -> str:
    """ "4 servers" / "4 台伺服器"."""
    from app.web.templating import number

    n = len(fleet.servers)
    return ngettext("%(num)s server", "%(num)s servers", n) % {"num": number(n)}


def fleet_sentence(fleet: Fleet, tier: content.TierInfo) -> str:
    """The third reason: where the copies run, and why that is not the InfiniBand tier."""
    from app.web.templating import number

    return _(
        "Servers: the %(copies)s copies run on %(servers)s (%(layout)s) behind a load "
        "balancer. The copies exchange no data, so the servers need only Ethernet between "
        "them, not the InfiniBand of a multi-node training cluster: each server is in the "
        "%(tier)s tier."
    ) % {
        "copies": number(fleet.copies),
        "servers": servers_count(fleet),
        "layout": servers_text(fleet.servers),
        "tier": _(tier.name),
    }


def tier_line(tier: content.TierInfo, fleet: Fleet | None) -> tuple[str, str]:
    """(hardware, interconnect) of the tier card's line. The single tier's "PCIe 5.0" is the
    GPU's link to the host (a lone GPU has no peer), said so beside an SXM5 estimate (QA read
    it as the PCIe card); a fleet's are per server, with Ethernet between the servers."""
    if fleet is not None:
        return (
            _("%(hardware)s per server") % {"hardware": _(tier.hardware)},
            _("%(link)s inside each server, Ethernet between servers")
            % {"link": tier.interconnect},
        )
    if tier.key == "single_gpu":
        return _(tier.hardware), _("%(link)s to the host") % {"link": tier.interconnect}
    return _(tier.hardware), tier.interconnect


#: Seed 003 T14 (leave the single tier on two or more); content.UPGRADE_SIGNALS in order.
QUEUE, SIZE_JUMP, PEAKS = content.UPGRADE_SIGNALS


@dataclass(frozen=True, slots=True)
class Signals:
    heading: str
    intro: str
    items: tuple[str, ...]


def _params_b(a: Assessment) -> float:
    size = a.answers.get("size", "")
    if size == "other":
        return float(a.req.model.params_b or 0) if a.req is not None else 0.0
    return float(size) if size.replace(".", "", 1).isdigit() else 0.0


def signals(a: Assessment, tier: str, fleet: Fleet | None) -> Signals:
    """What moves this customer to the next tier, for their answers and tier (QA: the top
    tier said "evaluate the next stage", a 70B customer read "jumps from 13B to 70B").

    - single GPU: seed 003 T14, two or more of three; the jump to 70B left out where it cannot
      happen (a 70B model already, or images), and then both of the two.
    - multi-GPU training: what one 8-GPU server cannot do ("單節點八卡仍不夠,就得跨機器"):
      a 70B full fine-tune or pre-training (T2: terabyte-class), or a deadline it misses.
    - multi-GPU serving: more users take more copies and servers in the same tier.
    - multi-node: the top tier; more nodes, priced per project."""
    task = a.answers.get("task", "")
    big = _params_b(a) >= 70
    up = _("When to move up a tier")
    grows = _("How this grows")
    if tier == "multi_node":
        return Signals(
            grows,
            _(
                "This is the top tier: there is no tier above it. A larger model, more data "
                "or a tighter deadline takes more nodes, priced per project."
            ),
            (),
        )
    if tier == "single_gpu":
        items = [QUEUE, PEAKS] if big or task == "image" else [QUEUE, SIZE_JUMP, PEAKS]
        intro = (
            _("Plan the next tier when two or more of these show up:")
            if len(items) > 2
            else _("Plan the next tier when both of these show up:")
        )
        return Signals(up, intro, tuple(_(s) for s in items))
    if task in ("inference", "image") or fleet is not None:
        return Signals(
            grows,
            _("Serving grows by adding servers in this tier, not by moving up:"),
            (
                _(
                    "Inference peaks start to queue: add copies of the model, and servers "
                    "when the ones you have are full."
                ),
                _(
                    "Training enters the plan: a 70B full fine-tune or pre-training needs "
                    "the multi-node tier; smaller training fits one server."
                ),
            ),
        )
    items = []
    if not (big and task in ("full_finetune", "pretrain")):
        items.append(
            _(
                "You move to a full fine-tune or pre-training of a 70B model: terabyte-class "
                "memory, more than one 8-GPU server holds."
            )
        )
    items.append(_("Training on one 8-GPU server no longer meets your deadline."))
    return Signals(
        up, _("Plan the multi-node tier when one 8-GPU server is no longer enough:"), tuple(items)
    )


def result_context(a: Assessment, *, book: PriceBook | None, currency: str) -> dict[str, Any]:
    """What the result block shows. The monthly price is the provider's H100 rental that holds
    the estimate (a MIG slice where the engine sized one; a fleet's servers); an estimate on
    another GPU has no list price here and is quoted per project (it was priced as that many
    H100s). Reference prices are whole units, half up (`whole`)."""
    if a.resp is None or a.req is None:
        return {}
    r = a.resp
    rental = house_rental(r, a.req.task, book, currency)
    fleet = fleet_of(r, book, rental)
    tier = content.TIER_BY_KEY[tier_key(r, fleet)]
    architecture = content.ARCH_BY_KEY[tier.template]
    reference = r.gpu.id == content.REFERENCE_GPU
    units = r.gpu.fraction if r.gpu.fraction and r.gpu.fraction < 1 else float(r.gpu.count)
    # One rule with the planner, /tco and the quote: the engine's own selection of the
    # provider's offers (QA: 26 × H100 read "3 servers of 8 + 1 of 2" here and 32 GPUs on
    # the plan; 6 × H100 read "8 × H100" here and 4 + 2 GPUs there).
    plan_range = (rental.best_price, rental.list_price, rental.gpus) if rental else None
    tier_range = content.tier_price_range(book, tier, currency) if reference else None
    why_ = why(a)
    if fleet is not None:
        why_["servers"] = fleet_sentence(fleet, tier)
    hardware, interconnect = tier_line(tier, fleet)
    return {
        "job_hourly": job_at_hourly_rent(r, book, currency) if reference and not fleet else None,
        "tier": tier,
        "tier_hardware": hardware,
        "tier_interconnect": interconnect,
        "why": why_,
        "estimate": estimate_text(r),
        "architecture": architecture,
        "tier_range": (whole(tier_range[0]), whole(tier_range[1])) if tier_range else None,
        "plan_range": (whole(plan_range[0]), whole(plan_range[1]), plan_range[2])
        if plan_range
        else None,
        "units": units,
        "gpu_name": gpu_label(r.gpu.name),
        "fleet": fleet,
        "fleet_servers": servers_count(fleet) if fleet else "",
        "fleet_layout": servers_text(fleet.servers) if fleet else "",
        "rental": rental,
        "rental_layout": servers_text(rental.servers) if rental else "",
        "template_note": fleet_template_note(r, fleet)
        if fleet
        else template_note(r, architecture, plan_range[2] if plan_range else None),
        "gpu_note": gpu_note(r),
        "signals": signals(a, tier.key, fleet),
        "fx_note": fx_note(book, currency),
        "planner_link": planner_link(a),
    }


#: Seed 003 T8: hourly rent beats monthly below ≈400 hours a month (NT$50,000 / NT$120).
HOURLY_BEATS_MONTHLY_H: Final = 400.0


def job_at_hourly_rent(
    r: EstimateResponse, book: PriceBook | None, currency: str
) -> dict[str, Any] | None:
    """A training job far shorter than a month at the provider's hourly rent: its hours and
    total, in the page's currency — the monthly range alone read NT$40,000–50,000 for a job
    of 2.5 hours, which the plan then priced at a few hundred (QA). None for a service, a
    job of a month's hours or more, or without an hourly offer that runs it."""
    if r.training is None or not r.cost or book is None:
        return None
    hours = r.training.days * 24
    if hours >= HOURLY_BEATS_MONTHLY_H:
        return None
    option = next(
        (
            o
            for o in r.cost.get("options") or []
            if o.get("kind") == "rent_hourly"
            and o.get("provider") == book.house_provider
            and o.get("feasible", True)
        ),
        None,
    )
    if option is None or not option.get("billed"):
        return None
    try:
        total = book.convert(float(option["total"]), str(r.cost.get("currency")), currency)
    except KeyError:
        return None
    return {"hours": hours, "billed": float(option["billed"]["quantity"]), "total": whole(total)}


def fleet_template_note(r: EstimateResponse, fleet: Fleet) -> str:
    """The template is one server of the tier; the estimate is several."""
    values = {
        "estimate": estimate_text(r),
        "servers": servers_count(fleet),
    }
    if fleet.rental is not None:
        return (
            _(
                "This is the tier's reference template, one server, for comparison. Your "
                "estimate is %(estimate)s on %(servers)s of this tier, and the monthly price "
                "is for those servers."
            )
            % values
        )
    return (
        _(
            "This is the tier's reference template, one server, for comparison. Your "
            "estimate is %(estimate)s on %(servers)s, priced per project."
        )
        % values
    )


def tier_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tier table's rents in whole units, half up (`whole`), as the result shows them."""
    return [
        {**row, "price": (whole(row["price"][0]), whole(row["price"][1]))}
        if row.get("price")
        else row
        for row in rows
    ]
