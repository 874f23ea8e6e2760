"""Labels and key figures of saved plans: what the plan pages and the compare view show."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Final

from app.costs import presenters as costs_view
from app.i18n import N_, ngettext
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


def field_label(field: str) -> str:
    """A readable, translated name for a dotted snapshot field (`workload.seq_len`)."""
    if field in FIELD_NAMES:
        return _(FIELD_NAMES[field])
    if field.startswith("workload."):
        rest = field.removeprefix("workload.")
        if rest.startswith("schedule.phases"):
            return _phase_field_label(rest.removeprefix("schedule.phases").strip("."))
        key = {"model.preset": "preset", "model.params_b": "params_b"}.get(rest, rest)
        if key in planner.FIELD_LABELS:
            return _(planner.FIELD_LABELS[key])
        return rest
    return field


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
    sub = field.removeprefix("workload.")
    key = {"model.preset": "preset", "model.params_b": "params_b"}.get(sub, sub)
    if key in planner.FIELD_LABELS:
        return f"{head} · {_(planner.FIELD_LABELS[key])}"
    return f"{head} · {sub}"


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


def phase_text(p: Mapping[str, Any]) -> str:
    """One phase in a line: '<name>: 4 × H100 for 2 months' (a workload: its task and model)."""
    months = float(p.get("months") or 0)
    if p.get("kind") == "workload" and isinstance(p.get("workload"), Mapping):
        w = p["workload"]
        task = _(planner.TASK_NAMES.get(str(w.get("task")), str(w.get("task") or "")))
        model = (w.get("model") or {}).get("preset") or (w.get("model") or {}).get("params_b")
        return ngettext(
            "%(label)s: %(task)s, %(model)s, for %(num)s month",
            "%(label)s: %(task)s, %(model)s, for %(num)s months",
            int(months) if months.is_integer() else 2,
        ) % {
            "label": p.get("label") or _("Workload"),
            "task": task,
            "model": model or "—",
            "num": f"{months:g}",
        }
    return ngettext(
        "%(label)s: %(n)s × %(gpu)s for %(num)s month",
        "%(label)s: %(n)s × %(gpu)s for %(num)s months",
        int(months) if months.is_integer() else 2,
    ) % {
        "label": p.get("label") or (_("Capacity") if p.get("kind") == "capacity" else _("Phase")),
        "n": f"{float(p.get('gpu_count') or 0):g}",
        "gpu": p.get("gpu_name") or p.get("gpu"),
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


def _iso_date(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def key_figures(result: Mapping[str, Any]) -> KeyFigures:
    cost = result.get("cost") or {}
    options = cost.get("options") or []
    cheapest = next((o for o in options if o.get("key") == cost.get("cheapest")), None)
    if cheapest is None and options:
        cheapest = min(options, key=lambda o: float(o.get("total") or math.inf))
    gpu = result.get("gpu") or {}
    sched = result.get("schedule")
    training = result.get("training") or {}
    days = training.get("days") if training else None
    months = cost.get("months")
    if sched:
        months = sched.get("months")
        days = float(months or 0) * DAYS_PER_MONTH
    names = {o.get("key"): costs_view.option_name(o) for o in options}
    be = next((b for b in cost.get("break_even") or [] if b.get("month") is not None), None)
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
        cheapest_kind=(
            _("Phased rental") if sched else (costs_view.option_name(cheapest) if cheapest else "")
        ),
        cheapest=cheapest,
        break_even=(
            {
                "a": names.get(be["a"], be["a"]),
                "b": names.get(be["b"], be["b"]),
                "month": be["month"],
            }
            if be
            else None
        ),
        price_list_name=str(pl.get("name") or ""),
        price_list_date=_iso_date(pl.get("effective_date")),
        phased=bool(sched),
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
    parts = [p.strip() for p in summary.split(",") if p.strip()]
    return _("Changed: %(fields)s") % {
        "fields": ", ".join(dict.fromkeys(field_label(p) for p in parts))
    }


def _flat_inputs(workload: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    if schedule.is_schedule(workload):
        for i, p in enumerate((workload.get("schedule") or {}).get("phases") or []):
            out[f"phase{i + 1}"] = phase_text(
                {**p, "gpu_name": p.get("gpu", "").replace("-sxm-80gb", "").upper()}
            )
        return out
    flat: dict[str, Any] = {}
    service._flatten("workload", dict(workload), flat)
    for k, v in flat.items():
        if v is None or k in ("workload.currency",):
            continue
        key = k.removeprefix("workload.")
        if key == "task":
            out[key] = _(planner.TASK_NAMES.get(str(v), str(v)))
        else:
            out[key] = show_value(v)
    return out


def _input_label(key: str) -> str:
    if key.startswith("phase"):
        return _("Phase %(n)s") % {"n": key.removeprefix("phase")}
    return field_label(f"workload.{key}")
