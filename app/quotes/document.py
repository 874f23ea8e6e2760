"""The customer's document (share page and PDF): only what the customer should see, in the
customer's language.

No raw enum values (`full_finetune`), no catalog ids (`stratagem-tpe-h100-x4`), no seed-rule
or PRODUCT.md references: option labels are rebuilt from the option's kind, the GPU count and
the GPU's display name; the estimate's notes and formula appendix stay in the sales
engineer's explain view. Public-cloud options appear only when the quote switches them on.
Call with the document's language active (`app.i18n.activate`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from app.i18n import N_, count_words, gettext, ngettext
from app.quotes import pricing

TASKS: Final = {
    "pretrain": N_("Pre-training"),
    "full_finetune": N_("Full fine-tuning"),
    "lora": N_("LoRA fine-tuning"),
    "qlora": N_("QLoRA fine-tuning (4-bit base)"),
    "inference": N_("Inference (serving)"),
    "image": N_("Image generation"),
}
KIND_NAMES: Final = {
    "rent_hourly": N_("Hourly rent"),
    "rent_monthly": N_("Monthly rent"),
    "rent_term": N_("Term rent"),
    "mig": N_("MIG slice rent"),
    "buy": N_("Buy"),
    "cloud": N_("Public cloud"),
    "cloud_reserved": N_("Public cloud, reserved"),
}
CLOUD_KINDS: Final = ("cloud", "cloud_reserved")
_TERM: Final = re.compile(r"(\d+)-month contract")
UNITS: Final = {"hour": N_("h"), "month": N_("months"), "item": ""}


def gpu_text(gpu: Mapping[str, Any]) -> str:
    count = gpu.get("count")
    name = gpu.get("name") or ""
    if count is None:
        return str(name)
    n = f"{int(count):,}" if float(count).is_integer() else count
    return f"{n} × {name}"


def priced_gpus_text(option: Mapping[str, Any], gpu: Mapping[str, Any]) -> str:
    """The GPUs an option pays for. A rented or bought server (or a cloud instance) comes
    whole, so it can hold more GPUs than the plan uses; the price is for all of them, and
    the label says so: '8 × NVIDIA H100 SXM5 80GB (the plan uses 5)'."""
    paid = (option.get("billed") or {}).get("gpus")
    used = gpu.get("count")
    if paid is None or used is None or float(paid) == float(used):
        return gpu_text(gpu)
    return gettext("%(paid)s (the plan uses %(used)s)") % {
        "paid": gpu_text({**gpu, "count": paid}),
        "used": f"{float(used):g}",
    }


def option_label(option: Mapping[str, Any], gpu: Mapping[str, Any], hours_per_month: float) -> str:
    """'Term rent — 6-month contract · 4 × NVIDIA H100 SXM5 80GB' in the active language."""
    kind = str(option.get("kind", ""))
    if option.get("key") == "schedule":  # app.plans.schedule's headline option
        return gettext("Phased rental")
    if str(option.get("key", "")).startswith("phase-"):  # one phase of a phased plan
        n = int(option.get("phase") or 0) + 1
        name = phase_name(option.get("phase_label"), option.get("phase_kind"), option.get("task"))
        # "Phase 2: name" / "第 2 階段：name": the separator is the language's own
        head = gettext("%(phase)s: %(name)s") % {
            "phase": gettext("Phase %(n)s") % {"n": n},
            "name": name,
        }
        return f"{head} — {billing_text(option)} · " + gpu_text(option.get("gpu") or gpu)
    name = gettext(KIND_NAMES.get(kind, N_("Option")))
    if kind in CLOUD_KINDS:
        # The provider's public product name ("AWS p5.48xlarge"), without our catalog id.
        product = str(option.get("label", "")).split(" — ")[0].replace(" on demand", "")
        return f"{name} — {product}"
    parts = [name]
    if kind == "rent_term":
        # The contract's length is in the engine's label ("6-month contract — …"); a total
        # over a longer view (the five-year TCO) must not turn it into a 60-month contract.
        found = _TERM.search(str(option.get("label", "")))
        months = (
            found.group(1)
            if found
            else f"{pricing.option_defaults(option, hours_per_month)['months'].normalize():f}"
        )
        parts.append(gettext("%(n)s-month contract") % {"n": months})
    if gpu:
        parts.append(priced_gpus_text(option, gpu))
    return " — ".join(parts[:1]) + (" · " + " · ".join(parts[1:]) if parts[1:] else "")


def phase_name(label: Any, kind: Any, task: Any) -> str:
    """A phase's name in the active language: its label, else its task or "Capacity"."""
    if label:
        return str(label)
    if kind == "workload" and task in TASKS:
        return gettext(TASKS[str(task)])
    return gettext("Capacity")


def billing_text(p: Mapping[str, Any]) -> str:
    """How a phase is billed, in customer words: 'Term rent (12-month contract)'."""
    kind = str(p.get("billing") or p.get("kind") or "")
    text = gettext(KIND_NAMES.get(kind, N_("Monthly rent")))
    if p.get("term_months"):
        text += f" ({gettext('%(n)s-month contract') % {'n': p['term_months']}})"
    return text


def phase_rows(sched: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The phases of a phased plan as the customer reads them: name, what runs (a workload's
    model), GPUs, months, how billed, the month's rent (or hours), the phase's total."""
    rows = []
    for i, p in enumerate(sched.get("phases") or []):
        kind = p.get("kind") if p.get("kind") in ("workload", "capacity") else "capacity"
        hourly = (p.get("billing") or p.get("kind")) == "rent_hourly"
        rows.append(
            {
                "n": i + 1,
                "name": phase_name(p.get("label"), kind, p.get("task")),
                "model": p.get("model_name") or "",
                "gpus": gpu_text(
                    {"count": p.get("billed_gpus", p.get("gpu_count")), "name": p.get("gpu_name")}
                ),
                "months": float(p.get("months") or 0),
                "start_month": float(p.get("start_month") or 0),
                "billing": billing_text(p),
                "hourly": hourly,
                "hours": float(p.get("hours") or 0),
                "monthly": float(p.get("monthly") or 0),
                "total": float(p.get("total") or 0),
            }
        )
    return rows


def visible_options(
    options: list[Mapping[str, Any]], *, include_cloud: bool
) -> list[Mapping[str, Any]]:
    return [o for o in options if include_cloud or o.get("kind") not in CLOUD_KINDS]


def quote_lines(
    quote: Mapping[str, Any],
    options: list[Mapping[str, Any]],
    gpu: Mapping[str, Any],
    hours_per_month: float,
) -> list[dict[str, Any]]:
    """The quote's lines as printed: description, unit price, quantity, unit, months,
    discount and the amount (each rounded once, `pricing.totals`)."""
    by_key = {o.get("key"): o for o in options}
    amounts = pricing.totals(quote).line_amounts
    out = []
    for line, amount in zip(quote.get("lines") or [], amounts, strict=True):
        option = by_key.get(line.get("option_key"))
        description = line.get("description") or (
            option_label(option, gpu, hours_per_month) if option is not None else ""
        )
        out.append(
            {
                "description": description,
                "unit": gettext(UNITS.get(str(line.get("unit")), ""))
                if UNITS.get(str(line.get("unit")))
                else "",
                "unit_kind": line.get("unit"),
                "unit_price": Decimal(line["unit_price"]),
                "quantity": Decimal(line["quantity"]),
                "months": Decimal(line["months"]),
                "discount_pct": Decimal(line.get("discount_pct") or 0),
                "amount": amount,
            }
        )
    return out


def infra_rows(infra: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Included infrastructure as (component, specification) in the active language; CPU,
    RAM, NVMe and NAS read the same in both."""
    rows: list[tuple[str, str]] = []
    if infra.get("cpu_cores"):
        rows.append(("CPU", gettext("%(n)s cores") % {"n": f"{int(infra['cpu_cores']):,}"}))
    if infra.get("ram_gb"):
        rows.append(("RAM", f"{infra['ram_gb']:,.0f} GB"))
    if infra.get("nvme_tb"):
        rows.append(("NVMe", f"{infra['nvme_tb']:,.0f} TB"))
    if infra.get("nas_tb"):
        rows.append(("NAS", f"{infra['nas_tb']:,.0f} TB"))
    net = infra.get("network") or {}
    if net.get("uplink_gbps"):
        rows.append(
            (gettext("Network"), gettext("%(n)s Gbps uplink") % {"n": f"{net['uplink_gbps']:g}"})
        )
    if infra.get("power_kw"):
        rows.append((gettext("Power"), f"{infra['power_kw']:,.1f} kW"))
    return rows


TRAINING_TASKS: Final = ("pretrain", "full_finetune", "lora", "qlora")
# What each kind of workload is described by, in the customer's words. A stored workload
# carries every request field with its default (a LoRA plan has `concurrency: 1`, an image
# plan `seq_len: 4096`), so each task shows only the fields that describe it.
_TRAINING_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("seq_len", N_("Sequence length (tokens)")),
    ("tokens", N_("Training tokens")),
    ("epochs", N_("Epochs")),
    ("dataset_gb", N_("Dataset (GB)")),
    ("deadline_days", N_("Deadline (days)")),
)
_SERVING_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("concurrency", N_("Concurrent sequences")),
    ("avg_context_tokens", N_("Average context (tokens)")),
    ("output_tokens", N_("Output tokens per request")),
)
_IMAGE_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("images_per_hour", N_("Target images per hour")),
    ("image_steps", N_("Diffusion steps per image")),
)


def _count_text(value: Any) -> str:
    """A count in the reader's words: 4,096; 2 billion / 20億; 0.5 (never "2e+09")."""
    v = float(value)
    if abs(v) >= 1e7:
        return count_words(v)
    return f"{v:,.0f}" if v.is_integer() else f"{v:,.3g}"


def assumption_rows(workload: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The workload in customer words (no enum values, no catalog ids), the fields its task
    uses only."""
    rows: list[tuple[str, str]] = []
    task = str(workload.get("task") or "")
    if task:
        rows.append((gettext("Task"), gettext(TASKS.get(task, task))))
    if task == "image":
        if not workload.get("images_per_hour") and workload.get("images"):
            rows.append((gettext("Images to generate"), _count_text(workload["images"])))
        if workload.get("image_resolution"):
            px = _count_text(workload["image_resolution"])
            rows.append((gettext("Image resolution (pixels)"), f"{px} × {px}"))
        fields = _IMAGE_FIELDS
    elif task == "inference":
        fields = _SERVING_FIELDS
        if workload.get("users"):
            # The service is sized for `users` at once (they take precedence over
            # `concurrency`, which the engine then ignores): state what was sized.
            fields = (("users", N_("Users served at once")), *_SERVING_FIELDS[1:])
    else:
        fields = _TRAINING_FIELDS
    for key, label in fields:
        value = workload.get(key)
        if value not in (None, "", 0):
            rows.append((gettext(label), _count_text(value)))
    if workload.get("precision"):
        rows.append((gettext("Precision"), str(workload["precision"]).upper()))
    return rows


def _days_text(value: float) -> str:
    """A number of days as the document prints it: 7, 7.5, 14.5 (no "7.0")."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def deadline_note(
    training: Mapping[str, Any] | None, workload: Mapping[str, Any]
) -> tuple[str, str] | None:
    """("missed" | "tight" | "met", sentence): the finish time against the customer's own
    deadline, in the active language; None without a deadline or a verdict on it.

    The verdict is the estimate's (`meets_deadline`, and `deadline_margin`: met even at the
    slow end of its error band); the document must never show a plan that misses the
    customer's deadline without saying so. A plan that does not fit in memory has no finish
    time to compare (its figures are of a layout that cannot run), so it gets no note.
    """
    deadline = workload.get("deadline_days")
    if not training or not deadline or training.get("fits") is False:
        return None
    meets = training.get("meets_deadline")
    if meets is None:
        return None
    days = float(training["days"])
    params = {"days": f"{days:,.1f}", "deadline": _days_text(float(deadline))}
    if meets is False:
        late = days - float(deadline)
        if round(late, 1) < 0.1:  # "0.0 days after" would read as on time
            text = gettext(
                "Misses your deadline: finishes in %(days)s days, just after the "
                "%(deadline)s-day deadline you gave."
            )
        else:
            text = gettext(
                "Misses your deadline: finishes in %(days)s days, %(late)s days after the "
                "%(deadline)s-day deadline you gave."
            )
            params["late"] = f"{late:,.1f}"
        return "missed", text % params
    if training.get("deadline_margin") is False:
        return "tight", gettext(
            "Within your %(deadline)s-day deadline, with no room to spare: a run as slow as "
            "the error band below allows would finish after it."
        ) % params
    return "met", gettext("Within your %(deadline)s-day deadline.") % params


def service_row(
    inference: Mapping[str, Any] | None,
    gpu: Mapping[str, Any],
    workload: Mapping[str, Any] | None = None,
) -> tuple[str, str] | None:
    """(label, sentence): what the GPUs deliver when they serve (None for training).

    An image plan: images per hour on all its GPUs and seconds per image on one, and for a
    batch (no target per hour) how long its images take; a text model: output tokens per
    second at its concurrency. The figures are the estimate's own.
    """
    if not inference:
        return None
    if inference.get("images_per_hour") is not None:
        text = gettext("%(n)s images per hour on %(gpus)s") % {
            "n": f"{float(inference['images_per_hour']):,.0f}",
            "gpus": gpu_text(gpu),
        }
        if inference.get("seconds_per_image") is not None:
            text += " · " + gettext("%(s)s s per image on one GPU") % {
                "s": f"{float(inference['seconds_per_image']):,.2f}"
            }
        w = workload or {}
        hours = inference.get("batch_hours")
        if hours is not None and w.get("images") and not w.get("images_per_hour"):
            text += " · " + gettext("%(n)s images in %(h)s h") % {
                "n": f"{float(w['images']):,.0f}",
                "h": f"{float(hours):,.1f}",
            }
        return gettext("Image generation"), text
    if inference.get("tokens_per_s") is None:
        return None
    return gettext("Inference"), gettext(
        "%(tps)s tokens/s at up to %(users)s concurrent sequences"
    ) % {
        "tps": f"{float(inference['tokens_per_s']):,.0f}",
        "users": f"{float(inference.get('max_concurrency') or 0):,.0f}",
    }


def period_text(option: Mapping[str, Any]) -> str:
    """What an option's total covers, in the reader's language: "for 132 hours", "for 12
    months" (its billed quantity and unit; "" when the option states none)."""
    billed = option.get("billed") or {}
    try:
        qty = float(billed.get("quantity") or 0)
    except (TypeError, ValueError):
        return ""
    if qty <= 0:
        return ""
    num = f"{qty:,.0f}" if qty.is_integer() else f"{qty:,.1f}"
    if billed.get("unit") == "hour":
        return ngettext("for %(num)s hour", "for %(num)s hours", int(qty) or 1) % {"num": num}
    if billed.get("unit") == "month":
        return ngettext("for %(num)s month", "for %(num)s months", int(qty) or 1) % {"num": num}
    return ""
