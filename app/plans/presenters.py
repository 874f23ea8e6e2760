"""Labels and key figures of saved plans: what the plan pages and the compare view show."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Final

from babel.numbers import format_decimal

from app import i18n
from app.costs import presenters as costs_view
from app.engine.architectures import get_preset
from app.engine.estimate import gpu_pool
from app.engine.price_book import PriceBook
from app.i18n import N_, babel_locale, listing, ngettext
from app.i18n import gettext as _
from app.planner import views as planner
from app.plans import schedule, service

DAYS_PER_MONTH: Final = 365 / 12
STATUS_NAMES: Final = {
    "draft": N_("Draft"),
    "sent": N_("Sent"),
    "accepted": N_("Accepted"),
    "declined": N_("Declined"),
    "expired": N_("Expired"),
    "lost": N_("Lost"),
}


FIELD_NAMES: Final = {
    "name": N_("Name"),
    "customer": N_("Customer"),
    "customer_id": N_("Customer record"),
    "quote": N_("Quote"),
    "status": N_("Status"),
    "notes": N_("Internal notes"),
    "tags": N_("Tags"),
    "archived": N_("Archived"),
    "price_list_id": N_("Price list"),
    "result.tier": N_("Tier"),
    "result.gpu": N_("GPUs"),
    "result.cheapest_total": N_("Cheapest total"),
    "result.currency": N_("Currency"),
    "quote.lines": N_("Quote lines"),
    "quote.discount_pct": N_("Quote discount (%)"),
    "quote.discount_amount": N_("Amount off the quote"),
    "quote.tax_rate": N_("Tax rate"),
    "quote.valid_until": N_("Valid until"),
    "quote.payment_terms": N_("Payment terms"),
    "quote.include_cloud_comparison": N_("Public-cloud prices in the document"),
    "quote.currency": N_("Quote currency"),
    "quote.issued": N_("Quote date"),
    "quote.fx.rate": N_("Exchange rate"),
    "quote.fx.as_of": N_("Exchange rate date"),
    "quote.fx.base": N_("Exchange rate from"),
    "quote.fx.quote": N_("Exchange rate to"),
}


#: Workload fields the planner's form has no label for (API-only settings), and the planner's
#: names where a saved workload stores them under another key.
WORKLOAD_FIELD_NAMES: Final = {
    "model": N_("Model"),
    "model.preset": N_("Model"),
    "model.params_b": N_("Parameters (billions)"),
    "model.hf_config": N_("Hugging Face config.json"),
    "slo.ttft_s": N_("Time to first token, at most (s)"),
    "slo.tokens_per_s_per_user": N_("Tokens/s per user, at least"),
    "gpu_search": N_("GPU choice"),
    "gpu_memory_utilization": N_("GPU memory the serving engine may use"),
    "lora_targets": N_("LoRA adapters on"),
    "flash_attention": N_("FlashAttention"),
    "kv_dtype": N_("KV-cache precision"),
    "goodput": N_("Goodput (share of wall time spent training)"),
}
#: Values of the workload's choice fields, as the planner's form names them.
VALUE_NAMES: Final[dict[str, dict[str, str]]] = {
    "interconnect": dict(planner.INTERCONNECTS),
    "recompute": dict(planner.RECOMPUTE),
    "optimizer": {
        "adamw": "AdamW",
        "adamw_8bit": N_("AdamW 8-bit"),
        "sgd": "SGD",
        "adafactor": "Adafactor",
    },
    "pricing_mode": {
        "job": N_("A job (by its duration)"),
        "capacity": N_("Capacity for a service (per month)"),
    },
    "lora_targets": {
        "attention": N_("Attention layers"),
        "all_linear": N_("All linear layers"),
    },
    "gpu_search": {
        "fleet": N_("The provider's GPU first"),
        "cheapest": N_("The cheapest GPU that meets the targets"),
    },
}
#: Fields stored as a fraction and shown in percent.
PERCENT_FIELDS: Final = frozenset({"utilization", "mfu", "goodput", "gpu_memory_utilization"})
TRAINING_TASKS: Final = frozenset({"pretrain", "full_finetune", "lora", "qlora"})
#: Workload fields that mean something only for some tasks (absent: every task). A compare
#: table shows a field only for the scenarios whose task uses it, so a LoRA plan does not
#: list the image size or the users a service holds.
FIELD_TASKS: Final[dict[str, frozenset[str]]] = {
    **{
        f: TRAINING_TASKS
        for f in (
            "seq_len",
            "micro_batch",
            "global_batch",
            "tokens",
            "epochs",
            "dataset_gb",
            "optimizer",
            "flash_attention",
            "zero_stage",
            "pp",
            "recompute",
            "mfu",
            "goodput",
        )
    },
    "deadline_days": TRAINING_TASKS | {"image"},
    "tp": TRAINING_TASKS | {"inference"},
    "lora_rank": frozenset({"lora", "qlora"}),
    "lora_targets": frozenset({"lora", "qlora"}),
    **{
        f: frozenset({"inference"})
        for f in (
            "users",
            "concurrency",
            "avg_context_tokens",
            "output_tokens",
            "slo.ttft_s",
            "slo.tokens_per_s_per_user",
            "gpu_search",
            "gpu_memory_utilization",
            "kv_dtype",
        )
    },
    **{
        f: frozenset({"image"})
        for f in ("images", "image_resolution", "image_steps", "images_per_hour")
    },
}


def _planner_label(key: str) -> str:
    # The planner's labels are msgids written for %-formatting ("MFU (%%)"): a template's
    # _() formats them, Python's gettext does not.
    return _(planner.FIELD_LABELS[key]).replace("%%", "%")


def workload_field_label(key: str) -> str:
    """A workload field (`seq_len`, `model.preset`, `slo.ttft_s`) named in the page's
    language, never as its key."""
    if key in WORKLOAD_FIELD_NAMES:
        return _(WORKLOAD_FIELD_NAMES[key])
    if key.startswith("model.hf_config."):
        return (
            f"{_(WORKLOAD_FIELD_NAMES['model.hf_config'])} · {key.removeprefix('model.hf_config.')}"
        )
    if key in planner.FIELD_LABELS:
        return _planner_label(key)
    return key


def field_label(field: str) -> str:
    """A readable, translated name for a dotted snapshot field (`workload.seq_len`)."""
    if field in FIELD_NAMES:
        return _(FIELD_NAMES[field])
    if field.startswith("workload."):
        rest = field.removeprefix("workload.")
        if rest.startswith("schedule.phases"):
            return _phase_field_label(rest.removeprefix("schedule.phases").strip("."))
        return workload_field_label(rest)
    return field


def model_name(model: Mapping[str, Any] | str | None) -> str:
    """A workload's model as a customer reads it: the preset's published name ('Llama 3.1
    8B'), a parameter count, or a custom model — never the preset's id."""
    if isinstance(model, str):
        model = {"preset": model}
    model = model or {}
    if model.get("preset"):
        try:
            return get_preset(str(model["preset"])).name
        except KeyError:  # a preset since removed: its id is all there is
            return str(model["preset"])
    if model.get("params_b"):
        return f"{_('Custom model')} · {float(model['params_b']):g}B"
    return _("Custom model")


def gpu_name(gpu_id: Any, book: PriceBook | None = None) -> str:
    """A GPU's display name ('NVIDIA H100 SXM5 80GB') from the price list's GPUs, else the
    shipped ones; the id only when neither knows it."""
    if not gpu_id:
        return "—"
    for g in gpu_pool(None, book):
        if g.id == gpu_id:
            return g.name
    return str(gpu_id)


def number_text(value: float | int) -> str:
    """A number with the locale's grouping ('10,000', '0.9'), at most two decimals."""
    return format_decimal(round(value, 2), format="#,##0.##", locale=babel_locale())


def workload_value(key: str, value: Any, book: PriceBook | None = None) -> str:
    """A workload field's value in the page's language: names for choices, models and GPUs,
    percentages for fractions, grouped numbers; never an enum value or a catalog id."""
    if value is None or value == "":
        return "—"
    if key in ("model", "model.preset"):
        return model_name(value if isinstance(value, Mapping) else {"preset": value})
    if key == "task":
        return _(planner.TASK_NAMES.get(str(value), str(value)))
    if key == "gpu":
        return gpu_name(value, book)
    if key in ("precision", "kv_dtype"):
        return str(value).upper()
    if key in VALUE_NAMES:
        names = VALUE_NAMES[key]
        return _(names[str(value)]) if str(value) in names else str(value)
    if isinstance(value, bool):
        return _("Yes") if value else _("No")
    if isinstance(value, (int, float)):
        if key in PERCENT_FIELDS:
            return f"{number_text(float(value) * 100)}%"
        if key == "term_months":
            return ngettext("%(num)s month", "%(num)s months", int(value)) % {
                "num": number_text(value)
            }
        return number_text(value)
    return show_value(value)


def _phase_field_label(rest: str) -> str:
    """'2.months' → 'Phase 2 · Months'; '2.workload.dataset_gb' → 'Phase 2 · Dataset (GB)'."""
    n, _sep, field = rest.partition(".")
    if not n.isdigit():
        return _("Phases")
    head = _("Phase %(n)s") % {"n": n}
    if not field:
        return head
    if field in schedule.PHASE_FIELDS:
        return f"{head} · {_(schedule.PHASE_FIELDS[field])}"
    return f"{head} · {workload_field_label(field.removeprefix('workload.'))}"


def field_value(field: str, value: Any, book: PriceBook | None = None) -> str:
    """A snapshot field's value as the diff and the conflict view show it: workload values
    by `workload_value`, a phase's GPU and billing by their names, a status by its name."""
    if value is None or value == "":
        pin = field.removeprefix("workload.")
        return _("Automatic") if pin in AUTOMATIC_FIELDS else "—"
    if field == "status" and value in STATUS_NAMES:
        return _(STATUS_NAMES[value])
    if field == "result.tier" and value in planner.TIER_NAMES:
        return _(planner.TIER_NAMES[value])
    if not field.startswith("workload."):
        return show_value(value)
    rest = field.removeprefix("workload.")
    if not rest.startswith("schedule.phases."):
        return workload_value(rest, value, book)
    _n, _sep, sub = rest.removeprefix("schedule.phases.").partition(".")
    if isinstance(value, Mapping):
        return phase_text(value, book)
    if sub == "gpu":
        return gpu_name(value, book)
    if sub == "option" and value in schedule.OPTION_NAMES:
        return _(schedule.OPTION_NAMES[value])
    if sub == "kind" and value in schedule.KIND_NAMES:
        return _(schedule.KIND_NAMES[value])
    if sub.startswith("workload."):
        return workload_value(sub.removeprefix("workload."), value, book)
    return show_value(value)


def show_value(value: Any) -> str:
    """A snapshot value as text (lists joined, None as a dash)."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("Yes") if value else _("No")
    if isinstance(value, Mapping):
        return phase_text(value)
    if isinstance(value, list):
        if value and isinstance(value[0], Mapping):
            return "; ".join(phase_text(p) for p in value)
        return ", ".join(str(v) for v in value) or "—"
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return str(value)


def phase_text(p: Mapping[str, Any], book: PriceBook | None = None) -> str:
    """One phase in a line: '<name>: 4 × NVIDIA H100 SXM5 80GB for 2 months' (a workload: its
    task and model by their names)."""
    months = float(p.get("months") or 0)
    if p.get("kind") == "workload" and isinstance(p.get("workload"), Mapping):
        w = p["workload"]
        task = _(planner.TASK_NAMES.get(str(w.get("task")), str(w.get("task") or "")))
        return ngettext(
            "%(label)s: %(task)s, %(model)s, for %(num)s month",
            "%(label)s: %(task)s, %(model)s, for %(num)s months",
            int(months) if months.is_integer() else 2,
        ) % {
            "label": p.get("label") or _("Workload"),
            "task": task,
            "model": model_name(w.get("model")),
            "num": f"{months:g}",
        }
    return ngettext(
        "%(label)s: %(n)s × %(gpu)s for %(num)s month",
        "%(label)s: %(n)s × %(gpu)s for %(num)s months",
        int(months) if months.is_integer() else 2,
    ) % {
        "label": p.get("label") or (_("Capacity") if p.get("kind") == "capacity" else _("Phase")),
        "n": f"{float(p.get('gpu_count') or 0):g}",
        "gpu": p.get("gpu_name") or gpu_name(p.get("gpu"), book),
        "num": f"{months:g}",
    }


@dataclass(frozen=True, slots=True)
class KeyFigures:
    tier: str
    gpu_count: float | None
    gpu_name: str
    days: float | None
    months: float | None
    monthly: float | None  # per month, where the option has a monthly rate
    hourly: float | None  # per hour, for options billed by the hour
    total: float | None
    currency: str
    cheapest_kind: str
    cheapest: Mapping[str, Any] | None
    break_even: Mapping[str, Any] | None
    price_list_name: str
    price_list_date: date | None
    phased: bool
    serving: bool = False  # an ongoing service: no time to finish
    cheapest_period: str = ""  # what `total` covers: "total for 36 months"


def _iso_date(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _schedule_kind(sched: Mapping[str, Any], options: list[Mapping[str, Any]]) -> str:
    """How a phased plan is paid: "Phased rental", or for a schedule of one phase that
    phase's own way (seed 003 T16's "4 × H100 from day one" is a monthly rent, not phased,
    QA)."""
    phases = [o for o in options if o.get("phase") is not None]
    if len(phases) == 1 and len(sched.get("phases") or phases) == 1:
        return costs_view.option_name(phases[0])
    return _("Phased rental")


def key_figures(result: Mapping[str, Any], book: PriceBook | None = None) -> KeyFigures:
    """The summary's figures. `book`: the plan's price list, which names the options as its
    cost table and charts do (a marketplace's provider, a cloud's instance)."""
    cost = result.get("cost") or {}
    options = cost.get("options") or []
    # Never an option that cannot run the plan (QA: "Cheapest option's total
    # NT$9,991,775,846" on a plan none of whose options can run): with none, no figure.
    cheapest = service.headline_option(cost)
    gpu = result.get("gpu") or {}
    sched = result.get("schedule")
    training = result.get("training") or {}
    days = training.get("days") if training else None
    months = cost.get("months")
    if sched:
        months = sched.get("months")
        days = float(months or 0) * DAYS_PER_MONTH
    # The first row of the plan's own break-even table, as that table says it (the crossings
    # of the options its chart draws, by their legend names, over the chart's five years).
    rows = costs_view.drawn_options(cost, book).break_even if options else []
    first = dict(rows[0]) if rows else None
    if first is not None and first.get("kept_months"):
        # Beside the cost table's totals for the quoted period, a month of the five-year view
        # says its basis, as the table's note does (`break_even_basis`).
        kept = _("buying counted with the hardware kept %(months)s months") % {
            "months": number_text(float(first["kept_months"]))
        }
        first["qualifier"] = "; ".join(q for q in (first["qualifier"], kept) if q)
    pl = cost.get("price_list") or {}
    return KeyFigures(
        tier=str(result.get("tier") or ""),
        gpu_count=gpu.get("count"),
        gpu_name=str(gpu.get("name") or ""),
        days=days,
        months=months,
        # Plans saved before cost options said `monthly_rate` stored `monthly`.
        monthly=cheapest.get("monthly_rate", cheapest.get("monthly")) if cheapest else None,
        hourly=cheapest.get("hourly_rate") if cheapest else None,
        total=cheapest.get("total") if cheapest else None,
        currency=str(cost.get("currency") or "TWD"),
        cheapest_kind=_schedule_kind(sched, options)
        if sched
        else (costs_view.option_name(cheapest) if cheapest else ""),
        cheapest=cheapest,
        break_even=first,
        price_list_name=str(pl.get("name") or ""),
        price_list_date=_iso_date(pl.get("effective_date")),
        phased=bool(sched),
        serving=not sched and days is None and _is_service(result),
        cheapest_period=_period(cheapest)[0] if cheapest and not sched else "",
    )


def _is_service(result: Mapping[str, Any]) -> bool:
    """A serving plan (or an image service sized by images per hour): it runs for as long
    as it is rented, so it has no time to finish."""
    if result.get("task") == "inference":
        return True
    return result.get("task") == "image" and bool(
        (result.get("inference") or {}).get("images_per_hour")
    )


def summary_text(summary: str) -> str:
    """A revision's change summary ('name, workload.seq_len') with translated field names."""
    if not summary:
        return ""
    if summary == "created":
        return _("Created")
    if summary in ("archived", "restored"):
        return _("Archived") if summary == "archived" else _("Restored")
    if summary.startswith("repriced"):
        return _("Repriced with the current price list")
    if summary.startswith("duplicated from "):
        return _("Duplicated from %(quote)s") % {"quote": summary.removeprefix("duplicated from ")}
    if summary == "sent":
        return _("Quote sent")
    approved = re.fullmatch(r"discount of ([\d.]+)% approved", summary)
    if approved:  # app.quotes.service.approve_discount
        return _("Discount of %(pct)s%% approved") % {"pct": approved.group(1)}
    # The customer's answer (app.quotes.service): "accepted by the customer: name, title" or
    # "declined by the customer", each maybe with "; the plan is version N again, as sent
    # (version M was saved after sending)" — a 中文 history read "變更：sent" (QA).
    answer, _sep, restored = summary.partition("; the plan is version ")
    if answer.startswith(("accepted by the customer", "declined by the customer")):
        if answer.startswith("accepted by the customer: "):
            text = _("Accepted by the customer: %(who)s") % {
                "who": answer.removeprefix("accepted by the customer: ")
            }
        elif answer.startswith("accepted"):
            text = _("Accepted by the customer")
        else:
            text = _("Declined by the customer")
        back = re.fullmatch(
            r"(\d+) again, as sent \(version (\d+) was saved after sending\)", restored
        )
        if back:
            text += _(
                "; the plan is version %(sent)s again, as sent (version %(saved)s was saved after sending)"
            ) % {"sent": back.group(1), "saved": back.group(2)}
        return text
    parts = [p.strip() for p in summary.split(",") if p.strip()]
    return _("Changed: %(fields)s") % {
        # 「報價項目、有效期限」 in Chinese (QA: joined with an ASCII ", ")
        "fields": listing(dict.fromkeys(field_label(p) for p in parts))
    }


#: Pins the planner fills in when they are left empty: an empty one reads "Automatic".
AUTOMATIC_FIELDS: Final = frozenset(
    {
        "gpu",
        "gpu_count",
        "zero_stage",
        "tp",
        "pp",
        "recompute",
        "mfu",
        "interconnect",
        "pricing_mode",
        "kv_dtype",
        "global_batch",
    }
)


def applies(key: str, task: Any) -> bool:
    """Whether a workload field means something for `task` (see FIELD_TASKS)."""
    return key not in FIELD_TASKS or str(task) in FIELD_TASKS[key]


def workload_inputs(
    workload: Mapping[str, Any], book: PriceBook | None = None
) -> dict[str, str | None]:
    """{field: value text} of the fields of a workload that its task uses (None: left to
    the planner); a phased plan's phases as `phase1`, `phase2`, … one line each.

    One "users served at once" (the API's older `concurrency` counts as it, as the engine
    reads it); the model as one field, by its name; the currency is the page's business."""
    out: dict[str, str | None] = {}
    if schedule.is_schedule(workload):
        for i, p in enumerate((workload.get("schedule") or {}).get("phases") or []):
            out[f"phase{i + 1}"] = phase_text(p, book)
        return out
    task = workload.get("task")
    flat: dict[str, Any] = {}
    for k, v in workload.items():
        if k in ("model", "currency"):
            flat[k] = v
        else:
            service._flatten(k, v, flat)
    for key, value in flat.items():
        if key == "currency" or not applies(key, task):
            continue
        if key in ("users", "concurrency"):
            if "users" in out:
                continue
            key, value = "users", workload.get("users") or workload.get("concurrency")
        if key == "dataset_gb" and not value:
            # The request's default, 0 GB, is no dataset given (the tokens say the data): QA
            # read "Training data (GB) 0" beside a plan of 2 billion tokens.
            value = None
        out[key] = None if value is None or value == "" else workload_value(key, value, book)
    return out


def _has_field(workload: Mapping[str, Any], key: str) -> bool:
    """Whether a workload of this kind has `key` at all (set or not): a phased plan has
    phases, a single workload the fields its task uses."""
    is_phase = key.startswith("phase") and key.removeprefix("phase").isdigit()
    if schedule.is_schedule(workload):
        return is_phase
    return not is_phase and applies(key, workload.get("task"))


def input_label(key: str) -> str:
    """The compare table's name of a `workload_inputs` key."""
    if key.startswith("phase") and key.removeprefix("phase").isdigit():
        return _("Phase %(n)s") % {"n": key.removeprefix("phase")}
    return workload_field_label(key)


def compare_inputs(
    workloads: Sequence[Mapping[str, Any]], books: Sequence[PriceBook | None]
) -> list[dict[str, Any]]:
    """The compare table's input rows: a field any scenario sets, named, with each scenario's
    value ("Automatic" where the planner chose it, "—" where its task has no such field) and
    whether they differ."""
    flats = [workload_inputs(w, b) for w, b in zip(workloads, books, strict=True)]
    keys = list(dict.fromkeys(k for f in flats for k, v in f.items() if v is not None))
    rows = []
    for key in keys:
        values, used = [], []
        for w, f in zip(workloads, flats, strict=True):
            v = f.get(key)
            if v is None and key in AUTOMATIC_FIELDS and key in f:
                v = _("Automatic")
            values.append(v or "—")
            if _has_field(w, key):
                used.append(v or "—")
        # A field only some tasks have (the users a service holds) differs only between the
        # scenarios that have it: a LoRA run and a service differ by their task, said above.
        rows.append({"label": input_label(key), "values": values, "differs": len(set(used)) > 1})
    return rows


# --------------------------------------------------------------------------------------------
# What a plan's quote quotes
# --------------------------------------------------------------------------------------------

#: The seller's rents buying is measured against, in the order a quoted purchase takes them:
#: monthly rent first, the rent the engine itself measures buying against (its cost of
#: delay, `app.engine.costs.compare.compare_costs`), then a term contract, then hourly rent.
_OWN_RENTS: Final = ("rent_monthly", "rent_term", "rent_hourly", "mig")


@dataclass(frozen=True, slots=True)
class Quoted:
    """The option a plan's quote quotes (`app.quotes.bom.quoted_option`: its largest option
    line) with the figures a reader needs beside the quote's total, each in the plan's
    currency, excl. tax and before the quote's discounts, as the engine priced it.

    QA (國立成功大學, buying 4 × H100): /compare and the plan's summary gave the plan's
    cheapest option — a 36-month rent, NT$5,760,000 — above a quote that asked
    NT$5,416,234 up front for buying, whose own 36 months cost NT$8,742,369: a procurement
    officer read buying as NT$570k cheaper when it costs about NT$3M more."""

    option: Mapping[str, Any]
    name: str  # "Buy", "36-month contract"
    currency: str
    #: The option's total over its period: for a purchase its cost of ownership (up front −
    #: resale + running costs, `app.quotes.pricing.running_costs`).
    total: float
    monthly: float | None  # per month, where the option has a monthly rate (not a purchase)
    hourly: float | None  # per hour, for options billed by the hour
    #: "total for 36 months" / "total for 17 hours": what `total` covers.
    period: str
    months: float | None  # the period in months (a purchase: the months it is held)
    upfront: float | None  # a purchase's up-front price (what its quote line asks)
    running_per_month: Decimal | None  # a purchase's running costs, where one figure a month
    running_total: Decimal | None  # … and over the period: not in the quote
    ownership: str  # "NT$5,426,381 up front − NT$520,028 resale value … + …", a purchase only
    is_cheapest: bool  # the plan's cheapest option is this one
    #: What the quote asks, tax included, after its discounts (`quote_totals.total`).
    quote_total: Decimal
    quote_currency: str
    quote_tax_rate: Decimal
    quote_period: str  # "up front (one-off)" / "for 36 months": what the quote's total pays for
    break_even: Mapping[str, Any] | None  # buying vs the seller's own rent (`own_break_even`)


def _period(option: Mapping[str, Any]) -> tuple[str, float | None]:
    """("total for 36 months", 36.0) or ("total for 17 hours", months) of an option's total."""
    from app.web.templating import hours_text, months_text

    billed = option.get("billed") or {}
    if billed.get("unit") == "hour":
        hours = float(billed.get("quantity") or 0)
        months = float(option.get("period_months") or 0) or None
        return _("total for %(n)s") % {"n": hours_text(hours)}, months
    months = float(billed.get("quantity") or option.get("period_months") or 0)
    if months:
        return _("total for %(n)s") % {"n": months_text(months)}, months
    return "", None


def quoted_figures(
    result: Mapping[str, Any], quote: Mapping[str, Any] | None, book: PriceBook | None = None
) -> Quoted | None:
    """What the plan's quote quotes, or None for a quote without an option line (a phased
    plan's quote, a quote of free lines only, no quote): the page then shows the plan's
    cheapest option, named so."""
    from app.quotes import bom, document, pricing
    from app.web.templating import hours_text, months_text

    cost = result.get("cost") or {}
    lines = (quote or {}).get("lines") or []
    if result.get("schedule") or not any(line.get("option_key") for line in lines):
        return None
    option = bom.quoted_option(cost, quote, book.house_provider if book else "")
    if option is None or not quote:
        return None
    ccy = str(cost.get("currency") or "TWD")
    kind = str(option.get("kind") or "")
    period, months = _period(option)
    running = pricing.running_costs(option)
    per_month = total = None
    ownership = ""
    if running is not None and running.total > 0:
        total = document.running_costs_printed(running, ccy)
        if document.per_month_multiplies(running, ccy):
            per_month = pricing.round_money(running.per_month, ccy)
        ownership = document.buy_breakdown_text(option, ccy)
        period = _("cost of owning it for %(n)s") % {"n": document.held_phrase(running.months)}
    asked = pricing.totals(quote)
    largest: Mapping[str, Any] = max(
        (line for line in lines if line.get("option_key") == option.get("key")),
        key=pricing.gross,
        default={},
    )
    if kind == "buy":
        quote_period = _("paid once, up front")
    elif largest.get("unit") == "month":
        quote_period = _("for %(n)s") % {"n": months_text(float(largest.get("months") or 0))}
    elif largest.get("unit") == "hour":
        quote_period = _("for %(n)s") % {"n": hours_text(float(largest.get("quantity") or 0))}
    else:
        quote_period = ""
    buying = kind == "buy"
    return Quoted(
        option=option,
        name=costs_view.option_name(option),
        currency=ccy,
        total=float(option.get("total") or 0),
        monthly=None if buying else option.get("monthly_rate", option.get("monthly")),
        hourly=option.get("hourly_rate"),
        period=period,
        months=months,
        upfront=float(option["upfront"]) if buying and option.get("upfront") else None,
        running_per_month=per_month,
        running_total=total,
        ownership=ownership,
        is_cheapest=option.get("key") == cost.get("cheapest"),
        quote_total=asked.total,
        quote_currency=asked.currency,
        quote_tax_rate=asked.tax_rate,
        quote_period=quote_period,
        break_even=own_break_even(cost, option, book),
    )


def own_break_even(
    cost: Mapping[str, Any], quoted: Mapping[str, Any], book: PriceBook | None = None
) -> dict[str, Any] | None:
    """Buying against the seller's own rent of the same GPUs, as the engine computed it (the
    plan's five-year view, `cost.tco_options.break_even`; a plan saved before it had that
    view: the cost table's own `break_even`), or None where the plan has no such pair.

    A quoted rent of the seller's is measured against buying; a quoted purchase against the
    seller's monthly rent (`_OWN_RENTS`). QA: a quote for buying 4 × H100 and a duplicate
    quoting their 36-month rent both said "buying is cheaper than Lambda 8× H100 from month
    15.9" — a public cloud's 8-GPU instance — when against the seller's own NT$200,000 a
    month buying pays back only in month 58.1 (NT$5,426,381 / (NT$200,000 − NT$106,556)),
    after its 36 months.

    {"text": the crossing in words, "month": the month or None, "within": whether it falls
    inside the quoted period, "verdict": what that means for the plan's period, in words}."""
    from app.quotes import bom
    from app.web.templating import money

    long = cost.get("tco_options") or {}
    pairs = (long["break_even"] if "break_even" in long else cost.get("break_even")) or []
    horizon = float(long.get("horizon_months") or cost.get("horizon_months") or 0)
    options = [o for o in cost.get("options") or [] if o.get("feasible") is not False]
    house = book.house_provider if book else ""
    if quoted.get("kind") == "buy":
        buy = quoted
        own = [o for o in options if o.get("kind") in _OWN_RENTS and bom.is_own_option(o, house)]
        rents = sorted(own, key=lambda o: (_OWN_RENTS.index(str(o["kind"])), float(o["total"])))
    elif quoted.get("kind") in _OWN_RENTS and bom.is_own_option(quoted, house):
        buys = [o for o in options if o.get("kind") == "buy"]
        buy = min(buys, key=lambda o: float(o.get("total") or 0), default={})
        rents = [quoted]
    else:
        return None

    def pair_of(rent: Mapping[str, Any]) -> Mapping[str, Any] | None:
        keys = {buy.get("key"), rent.get("key")}
        return next((p for p in pairs if {p.get("a"), p.get("b")} == keys), None)

    found = next(((r, p) for r in rents if (p := pair_of(r)) is not None), None)
    if not buy or found is None:
        return None
    rent, pair = found
    ccy = str(cost.get("currency") or "TWD")
    if rent.get("monthly_rate") is not None and rent.get("kind") != "rent_hourly":
        rate = _("%(price)s per month") % {"price": money(rent["monthly_rate"], ccy)}
    elif rent.get("hourly_rate") is not None:
        rate = _("%(price)s per hour") % {"price": money(rent["hourly_rate"], ccy, 2)}
    else:
        return None
    name = costs_view.option_name(rent)
    if name[1:2].islower():  # "monthly rent" inside a sentence; "MIG slice rent" as it is
        name = name[:1].lower() + name[1:]
    kept = int(horizon) if "break_even" in long and horizon else None
    rows = costs_view.break_even_rows([pair], {str(rent.get("key")): name}, kept)
    months = (
        float(buy.get("held_months") or (buy.get("billed") or {}).get("quantity") or 0)
        if quoted.get("kind") == "buy"
        else _period(rent)[1] or 0.0
    )
    said = {"rent": name, "rate": rate, "months": number_text(months)}
    not_within = _("Buying does not pay back within the %(months)s months.") % said
    if not rows:
        return {
            "text": _("Buying against %(rent)s (%(rate)s): no break-even within %(horizon)s months")
            % {**said, "horizon": number_text(horizon)},
            "month": None,
            "within": False,
            "verdict": not_within,
        }
    row = rows[0]
    qualifiers = [q for q in (row["qualifier"],) if q]
    if row.get("kept_months"):
        qualifiers.append(
            _("buying counted with the hardware kept %(months)s months")
            % {"months": number_text(float(row["kept_months"]))}
        )
    within = row["month"] <= months + 1e-9
    return {
        "text": _("Buying against %(rent)s (%(rate)s) pays back in %(month)s")
        % {**said, "month": row["month_text"]}
        + (i18n.paren("; ".join(qualifiers)) if qualifiers else ""),
        "month": row["month"],
        "within": within,
        "verdict": _("Buying pays back within the %(months)s months.") % said
        if within
        else not_within,
    }
