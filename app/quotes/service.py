"""What a quote shows, built once from a saved plan: used by the PDF and the shared page.

Everything comes from the plan's stored workload and result (and its own price list for the
rental offers), so a quote never changes when the catalog does. Call with the language
active (`app.i18n.activate`): labels and money are formatted in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any, Final

from sqlmodel import Session

from app.accounts.models import User
from app.catalog import service as catalog
from app.engine.price_book import PriceBook
from app.i18n import N_, gettext, zh_translations
from app.plans import schedule
from app.plans.models import Plan
from app.quotes.bom import Bom, build_bom

VALID_DAYS: Final = 30

TIERS: Final = {
    "single_gpu": N_("Single GPU"),
    "multi_gpu": N_("Multi-GPU"),
    "multi_node": N_("Multi-node"),
}
KINDS: Final = {
    "rent_hourly": N_("Hourly rent"),
    "rent_monthly": N_("Monthly rent"),
    "rent_term": N_("Term rent"),
    "mig": N_("MIG slice rent"),
    "buy": N_("Buy"),
    "cloud": N_("Public cloud"),
    "cloud_reserved": N_("Public cloud, reserved"),
}
# Workload fields the quote lists as assumptions (English msgid of each).
ASSUMPTIONS: Final = (
    ("task", N_("Task")),
    ("precision", N_("Precision")),
    ("seq_len", N_("Sequence length (tokens)")),
    ("micro_batch", N_("Micro-batch")),
    ("global_batch", N_("Global batch")),
    ("tokens", N_("Training tokens")),
    ("epochs", N_("Epochs")),
    ("dataset_gb", N_("Dataset (GB)")),
    ("deadline_days", N_("Deadline (days)")),
    ("concurrency", N_("Concurrent sequences")),
    ("avg_context_tokens", N_("Average context (tokens)")),
    ("gpu", N_("GPU (pinned)")),
    ("gpu_count", N_("GPU count (pinned)")),
    ("utilization", N_("Utilisation")),
    ("term_months", N_("Contract term (months)")),
)
# Seed 003 T15: the acceptance tests and the contract checklist, in both languages.
ACCEPTANCE: Final = (
    N_("nccl-tests: all-reduce bus bandwidth between every GPU meets the interconnect's spec"),
    N_("48 h burn-in at full load: GPU temperatures, clocks and throttling logged"),
    N_("Throughput of your own workload (tokens/s or images/h) measured against this plan"),
)
CHECKLIST: Final = (
    N_("Power: circuit capacity and redundancy for the peak draw"),
    N_("Cooling: heat load removed at the planned inlet temperature"),
    N_("Backup: checkpoints and data copied off-site, restore tested"),
    N_("Operations SLA: response and repair times, spare parts"),
    N_("Contract: term, price, acceptance criteria and exit terms"),
)


def both_languages(msgid: str) -> dict[str, str]:
    return {"zh": zh_translations().gettext(msgid), "en": msgid}


def _book(session: Session, plan: Plan) -> PriceBook | None:
    if plan.price_list_id is None:
        return None
    try:
        return catalog.price_book_for(session=session, price_list_id=plan.price_list_id)
    except catalog.NotFound:
        return None


def _assumptions(workload: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(label, value) rows for the quote's assumptions table.

    A phased plan's workload holds only ``{"schedule": …}`` (app.plans.schedule): its phases
    are listed in the quote's phase table, so it has no workload fields to list here. Keys
    are read with `.get`: a workload saved before a field existed must still quote."""
    if schedule.is_schedule(workload):
        return []
    return [
        (gettext(label), workload.get(key))
        for key, label in ASSUMPTIONS
        if workload.get(key) not in (None, "", 0)
        or (key == "dataset_gb" and workload.get(key) is not None)
    ]


def issue_date(plan: Plan) -> date:
    """The date of the plan's current revision."""
    return plan.updated_at.date()


def quote_view(*, session: Session, plan: Plan) -> dict[str, Any]:
    """The quote's content (see the module docstring); no internal notes, no owner e-mail."""
    result: Mapping[str, Any] = plan.result or {}
    workload: Mapping[str, Any] = plan.workload or {}
    cost: Mapping[str, Any] = result.get("cost") or {}
    owner = session.get(User, plan.owner_id)
    bom: Bom = build_bom(result, book=_book(session, plan), workload=workload)
    issued = issue_date(plan)
    labels = {o.get("key"): o.get("label", "") for o in cost.get("options") or []}
    long_view = cost.get("tco_options") or {}
    for o in long_view.get("options") or []:
        labels.setdefault(o.get("key"), o.get("label", ""))
    break_evens = [
        {"a": labels.get(b["a"], b["a"]), "b": labels.get(b["b"], b["b"]), "month": b["month"]}
        for b in (long_view.get("break_even") or cost.get("break_even") or [])
        if b.get("month") is not None
    ]
    model = workload.get("model") or {}
    model_name = (
        (result.get("model") or {}).get("name")
        or model.get("preset")
        or (f"{model.get('params_b')}B" if model.get("params_b") else "")
    )
    assumptions = _assumptions(workload)
    return {
        "plan": plan,
        "quote_number": plan.quote_number,
        "issued": issued,
        "valid_until": issued + timedelta(days=VALID_DAYS),
        "seller": (owner.name or "").strip() if owner is not None else "",
        "model_name": model_name,
        "tier": result.get("tier", ""),
        "tier_label": gettext(TIERS.get(str(result.get("tier")), str(result.get("tier", "")))),
        "gpu": result.get("gpu") or {},
        "training": result.get("training"),
        "inference": result.get("inference"),
        "infra": result.get("infra") or {},
        "phased": result.get("schedule"),
        "cost": cost,
        "currency": bom.currency,
        "options": cost.get("options") or [],
        "kinds": KINDS,
        "quoted": bom.option,
        "bom": bom,
        "break_evens": break_evens[:12],
        "quote_price_list": cost.get("price_list") or {},
        "assumptions": assumptions,
        "warnings": result.get("warnings") or [],
        "explain": result.get("explain") or [],
        "acceptance": [both_languages(m) for m in ACCEPTANCE],
        "checklist": [both_languages(m) for m in CHECKLIST],
    }


def bom_for(*, session: Session, plan: Plan) -> Bom:
    """The plan's bill of materials (app.quotes.bom), priced from its stored result."""
    return build_bom(plan.result or {}, book=_book(session, plan), workload=plan.workload or {})
