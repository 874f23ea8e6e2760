"""The /tco page's service: a configuration form → app.costs.service.compare → costs view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pydantic import ValidationError

from app.costs import presenters as costs_view
from app.engine.estimate import InputError
from app.engine.explain import Explanation
from app.engine.price_book import PriceBook
from app.i18n import N_
from app.i18n import gettext as _
from app.planner.views import explain_entries, gpu_choices
from app.web.forms import FieldError, parse_number, validation_messages
from app.web.notices import input_error_text
from app.web.templating import figure

DEFAULTS: Final[dict[str, str]] = {
    "gpu": "h100-sxm-80gb",
    "gpu_count": "8",
    "months": "36",
    "utilization": "80",
    "term_months": "12",
}
TERMS: Final = ("1", "3", "6", "12", "24", "36")
#: Cost figures /tco can show that the planner's FIGURE_NAMES do not name.
EXTRA_FIGURE_NAMES: Final = {
    "Storage + network share of the budget": N_("Storage + network share of the budget"),
}


def form_values(query: Mapping[str, str]) -> dict[str, str]:
    values = dict(DEFAULTS)
    for k in DEFAULTS:
        if k in query:
            values[k] = str(query[k]).strip()[:40]
    return values


def tco_page(query: Mapping[str, str], *, currency: str, book: PriceBook | None) -> dict[str, Any]:
    """Everything /tco shows: the form, errors, and the costs view."""
    from app.costs.service import CostRequest, compare

    values = form_values(query)
    errors: dict[str, str] = {}
    data: dict[str, Any] = {"gpu": values["gpu"] or DEFAULTS["gpu"], "currency": currency}
    for name, integer in (("gpu_count", False), ("months", False), ("term_months", True)):
        try:
            v = parse_number(name, values[name], integer=integer)
        except FieldError as e:
            errors[e.field] = str(e)
            continue
        if v is not None:
            data[name] = v
    try:
        u = parse_number("utilization", values["utilization"])
        if u is not None:
            data["utilization"] = u / 100
    except FieldError as e:
        errors[e.field] = str(e)
    ctx: dict[str, Any] = {
        "nav_active": "tco",
        "values": values,
        "errors": errors,
        "gpu_choices": gpu_choices(book),
        "terms": TERMS,
        "costs": None,
        "cost": None,
    }
    if errors:
        return ctx
    if book is None:
        ctx["errors"] = {"": _("No price list is loaded, so costs cannot be compared.")}
        return ctx
    try:
        req = CostRequest.model_validate(data)
        cost = compare(req, prices=book)
    except ValidationError as exc:
        ctx["errors"] = validation_messages(exc)
        return ctx
    except InputError as e:
        ctx["errors"] = {e.field.split(".")[-1]: input_error_text(e)}
        return ctx
    ctx["cost"] = cost
    ctx["costs"] = costs_view.view(cost, book, currency, utilization=req.utilization)
    gpu_names = {c.value: c.label for c in ctx["gpu_choices"]}
    ctx["explain"] = explain_items(
        cost, gpu_name=gpu_names.get(req.gpu, req.gpu), gpu_count=req.gpu_count
    )
    return ctx


def explain_items(
    cost: Mapping[str, Any], *, gpu_name: str, gpu_count: float
) -> list[dict[str, Any]]:
    """The cost block's explanations, named in the page's language as the planner names them
    (app.planner.views.explain_entries: options as the quote names them, GPU names, no catalog
    ids), each with its value as a reader says it: "22% of 730 h a month", "NT$10,080,000".
    The formula and source stay English (the template marks them lang="en")."""
    raw = [
        Explanation(
            figure=str(e["figure"]),
            value=float(e["value"]),
            unit=str(e["unit"]),
            formula=str(e["formula"]),
            source=str(e["source"]),
        )
        for e in cost.get("explain") or []
    ]
    items = explain_entries(raw, cost, gpu_name, gpu_count)
    for item, e in zip(items, raw, strict=True):
        if not item["name"] and not item["translated_name"] and e.figure in EXTRA_FIGURE_NAMES:
            item["name"] = EXTRA_FIGURE_NAMES[e.figure]
        item["text"] = value_text(e.value, e.unit, item["unit"])
    return items


def value_text(value: float, unit: str, unit_name: str) -> str:
    """A cost figure's value in words (`presenters.figure_text`), else the number and its
    unit."""
    return costs_view.figure_text(value, unit) or f"{figure(value)} {unit_name}".strip()
