"""The shared page's context: the quote's customer-facing content plus page charts."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace
from typing import Any

from sqlmodel import Session

from app.charts import figures
from app.costs.presenters import break_even_basis
from app.i18n import gettext
from app.plans.models import Plan
from app.plans.presenters import STATUS_NAMES
from app.quotes.pdf import break_even_rows, customer_result, one_off_hours
from app.quotes.service import customer_copy, letterhead, quote_view
from app.settings import Settings
from app.sharing.models import ShareLink


def shared_context(
    *, session: Session, plan: Plan, link: ShareLink, token: str, settings: Settings
) -> dict[str, Any]:
    """quote_view of what the customer sees (the sent revision once sent; no notes, no
    owner e-mail, no catalog ids) plus chart JSON for the page, for the share `link` that
    `token` opened (`service.resolve`). Call with the page's language active."""
    live = plan
    plan = customer_copy(session=session, plan=plan)
    ctx = quote_view(session=session, plan=plan, letterhead=letterhead(settings))
    # When the link stops opening, if it was given a lifetime: the customer was never told,
    # and the quote's own validity date beside it reads as the link's (QA).
    ctx["link_expires"] = link.expires_at
    result = customer_result(plan, ctx["house_provider"])
    cost = result.get("cost") or {}
    gpu = result.get("gpu") or {}
    view = cost.get("tco_options") or cost
    currency = str(cost.get("currency") or "TWD")
    memory = result.get("memory_per_gpu_gb")
    # The PDF's rule: a job of a few hours gets no five-year views, here as in the document.
    one_off = one_off_hours(plan.result or {}, plan.quote)
    ctx["one_off_hours"] = one_off
    ctx["figures"] = {
        "memory": figures._draw(
            "memory_bar", memory, float(gpu.get("memory_gb") or 0) * float(gpu.get("fraction") or 1)
        )
        if memory and gpu.get("memory_gb")
        else None,
        "cumulative": None
        if one_off is not None
        else figures.cumulative(view.get("options") or [], view.get("break_even") or [], currency),
        "tco": None if one_off is not None else figures.tco(cost.get("tco") or [], currency),
    }
    ctx["break_even_rows"] = [] if one_off is not None else break_even_rows(result)
    ctx["break_even_basis"] = break_even_basis(ctx["break_even_rows"])
    ctx["live"] = live
    # The quote is in its own currency: the header's TWD/USD switch would change nothing.
    ctx["currency_fixed"] = True
    ctx["token"] = token
    ctx["nav_active"] = None
    ctx["status_names"] = STATUS_NAMES
    ctx["can_decide"] = live.status == "sent" and live.sent_version is not None
    customer = ctx["customer_record"]
    # the answer is to the sent revision: the customer reads its edition, not its save count
    sent_edition = ctx["editions"].of(live.sent_version) or 0
    ctx["accept_sentence"] = accept_sentence(
        sent_edition, (customer.name if customer else plan.customer) or ""
    )
    own_list = quote_price_list(ctx["quote_price_list"])
    ctx["quote_price_list_date"] = own_list.effective_date if own_list is not None else None
    if own_list is not None:
        # The footer names the prices of this quote, not today's catalog list.
        ctx["price_list"] = own_list
    return ctx


def accept_sentence(version: int, company: str) -> str:
    """'I accept this quote (version 2) on behalf of Formosa Robotics Co.' in the active
    language: a name that ends in a full stop ends the sentence too (never 'Co..'); a quote
    with no customer named says on behalf of whom without one ("本人代表 — 接受" read as
    a blank — QA)."""
    if not company.strip():
        return gettext("I accept this quote (version %(n)s) on behalf of my organisation.") % {
            "n": version
        }
    text = gettext("I accept this quote (version %(n)s) on behalf of %(company)s.") % {
        "n": version,
        "company": company,
    }
    name = company.rstrip()
    if name.endswith(".") and text.endswith(name + "."):
        text = text[:-1]
    return text


def quote_price_list(stored: Any) -> SimpleNamespace | None:
    """The price list the quote was priced from (its stored `cost.price_list`), shaped like
    the footer's (`name`, `effective_date` as a date); None when the plan stored none.

    Its `name` is said in the page's language, not the catalog's own ("2026-11 list" is
    an admin's label, English in a 中文 page and meaningless to the customer); the date
    beside it says which list it was."""
    if not isinstance(stored, dict) or not stored.get("effective_date"):
        return None
    try:
        effective = date.fromisoformat(str(stored["effective_date"]))
    except ValueError:
        return None
    return SimpleNamespace(
        name=gettext("the price list of this quote"), effective_date=effective, said=True
    )
