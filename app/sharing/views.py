"""The shared page's context: the quote's customer-facing content plus page charts."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.charts import figures
from app.plans.models import Plan
from app.plans.presenters import STATUS_NAMES
from app.quotes.pdf import customer_result
from app.quotes.service import customer_copy, letterhead, quote_view
from app.settings import Settings


def shared_context(
    *, session: Session, plan: Plan, token: str, settings: Settings
) -> dict[str, Any]:
    """quote_view of what the customer sees (the sent revision once sent; no notes, no
    owner e-mail, no catalog ids) plus chart JSON for the page. Call with the page's
    language active."""
    live = plan
    plan = customer_copy(session=session, plan=plan)
    ctx = quote_view(session=session, plan=plan, letterhead=letterhead(settings))
    result = customer_result(plan)
    cost = result.get("cost") or {}
    gpu = result.get("gpu") or {}
    view = cost.get("tco_options") or cost
    currency = str(cost.get("currency") or "TWD")
    memory = result.get("memory_per_gpu_gb")
    ctx["figures"] = {
        "memory": figures._draw(
            "memory_bar", memory, float(gpu.get("memory_gb") or 0) * float(gpu.get("fraction") or 1)
        )
        if memory and gpu.get("memory_gb")
        else None,
        "cumulative": figures.cumulative(
            view.get("options") or [], view.get("break_even") or [], currency
        ),
        "tco": figures.tco(cost.get("tco") or [], currency),
    }
    ctx["live"] = live
    ctx["token"] = token
    ctx["nav_active"] = None
    ctx["status_names"] = STATUS_NAMES
    ctx["can_decide"] = live.status == "sent" and live.sent_version is not None
    return ctx
