"""The /tco page's service: a configuration form → app.costs.service.compare → costs view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pydantic import ValidationError

from app.costs import explained, wording
from app.costs import presenters as costs_view
from app.costs.service import CostRequest, compare
from app.engine.costs import priced_gpus
from app.engine.estimate import InputError
from app.engine.explain import Explanation
from app.engine.price_book import PriceBook
from app.i18n import N_
from app.i18n import gettext as _
from app.planner.views import explain_entries, gpu_choices
from app.web.forms import FieldError, parse_number, validation_messages
from app.web.notices import input_error_text

DEFAULTS: Final[dict[str, str]] = {
    "gpu": "h100-sxm-80gb",
    "gpu_count": "8",
    "months": "36",
    "utilization": "80",
    "term_months": "12",
}
#: Contract lengths offered when no price list is loaded (the shipped list's tiers).
TERMS: Final = ("1", "3", "6", "12")
#: Each form field as the form labels it: the error summary names a field by what the reader
#: sees beside it ("GPU 數量"), never by its name in the URL ("gpu_count").
FIELD_LABELS: Final = {
    "gpu": N_("GPU"),
    "gpu_count": N_("GPU count"),
    "months": N_("Months needed"),
    "utilization": N_("Utilisation"),
    "term_months": N_("Contract term"),
}
#: Fields the form shows in other units than the request: utilisation in percent (80), the
#: request as a share (0.8). A limit is said in the units typed: "at most 100", never "1".
SCALES: Final = {"utilization": 100.0}
#: Fields that must be filled in: a blank one was priced as the request's default (1 GPU,
#: 12 months, 100 % utilisation, a 36-month need at the 12-month rate) while the field
#: stayed empty.
REQUIRED: Final = ("gpu_count", "months", "utilization", "term_months")


def form_values(query: Mapping[str, str]) -> dict[str, str]:
    values = dict(DEFAULTS)
    for k in DEFAULTS:
        if k in query:
            # Whole: cut to 40 characters, "000…080" (41) was priced as 8 GPUs (QA).
            values[k] = str(query[k]).strip()
    return values


def term_tiers(book: PriceBook | None) -> list[int]:
    """The contract lengths the price list has a price for (its offers' term tiers)."""
    if book is None:
        return [int(t) for t in TERMS]
    return sorted({int(m) for o in book.offers for m in o.term_discounts if m >= 1})


def term_choices(book: PriceBook | None, asked: str) -> list[tuple[str, str]]:
    """(value, label) per contract length the price list prices; a length it does not price
    that a link asks for (term_months=7) is kept, labelled with the tier it is priced at
    ("7 months, at the 6-month rate"), so that the field shows what was priced."""
    tiers = term_tiers(book)
    choices = [(str(t), _("%(n)s months") % {"n": t} if t != 1 else _("1 month")) for t in tiers]
    try:
        wanted = int(asked)
    except ValueError:
        return choices
    if wanted >= 1 and wanted not in tiers:
        below = [t for t in tiers if t <= wanted]
        label = (
            _("%(n)s months, at the %(tier)s-month rate") % {"n": wanted, "tier": below[-1]}
            if below
            else _("%(n)s months") % {"n": wanted}
        )
        choices = sorted([*choices, (str(wanted), label)], key=lambda c: int(c[0]))
    return choices


def priced_choices(book: PriceBook | None) -> list[Any]:
    """The GPUs the price list prices (rent, a server or a cloud instance): a GPU the catalog
    knows and the list does not price (B300 in the 2026-11 list) cannot be compared."""
    choices = gpu_choices(book)
    if book is None:
        return choices
    priced = set(priced_gpus(book))
    return [c for c in choices if c.value in priced]


def tco_page(query: Mapping[str, str], *, currency: str, book: PriceBook | None) -> dict[str, Any]:
    """Everything /tco shows: the form, errors, and the costs view."""
    values = form_values(query)
    errors: dict[str, str] = {}
    choices = priced_choices(book)
    data: dict[str, Any] = {"gpu": values["gpu"] or DEFAULTS["gpu"], "currency": currency}
    if book is not None and data["gpu"] not in {c.value for c in choices}:
        errors["gpu"] = unpriced_gpu_text(data["gpu"], book)
    for name, integer in (("gpu_count", False), ("months", False), ("term_months", True)):
        try:
            v = parse_number(name, values[name], integer=integer)
        except FieldError as e:
            errors[e.field] = str(e)
            continue
        if v is not None:
            data[name] = v
        elif name in REQUIRED:
            errors[name] = _("This field is required.")
    try:
        u = parse_number("utilization", values["utilization"])
        # In percent, as typed: the request's share (0.01–1) said "at most 1" to a "150".
        if u is None:
            # A blank utilisation was priced at 100 % while the field stayed empty.
            errors["utilization"] = _("This field is required.")
        elif u > 100:
            errors["utilization"] = _("Must be at most %(limit)s.") % {"limit": "100"}
        elif u < 1:
            errors["utilization"] = _("Must be at least %(limit)s.") % {"limit": "1"}
        else:
            data["utilization"] = u / 100
    except FieldError as e:
        errors[e.field] = str(e)
    # The summary lists the fields in the form's order (utilisation above the term).
    order = list(DEFAULTS)
    errors = dict(sorted(errors.items(), key=lambda e: order.index(e[0]) if e[0] in order else 99))
    ctx: dict[str, Any] = {
        "nav_active": "tco",
        "values": values,
        "errors": errors,
        "field_labels": FIELD_LABELS,
        "gpu_choices": choices,
        "terms": term_choices(book, values["term_months"]),
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
        ctx["errors"] = validation_messages(exc, scales=SCALES)
        return ctx
    except InputError as e:
        ctx["errors"] = {e.field.split(".")[-1]: input_error_text(e)}
        return ctx
    ctx["cost"] = cost
    ctx["costs"] = costs_view.view(cost, book, currency, utilization=req.utilization)
    names = costs_view.option_names(cost.get("options") or [], book)
    ctx["notices"] = [wording.customer_notice(n, names, book) for n in cost.get("notices") or []]
    gpu_names = {c.value: c.label for c in ctx["gpu_choices"]}
    ctx["explain"] = explain_items(
        cost,
        gpu_name=gpu_names.get(req.gpu, req.gpu),
        gpu_count=req.gpu_count,
        book=book,
        currency=str(cost.get("currency") or currency),
    )
    return ctx


def explain_items(
    cost: Mapping[str, Any],
    *,
    gpu_name: str,
    gpu_count: float,
    book: PriceBook | None = None,
    currency: str = "TWD",
) -> list[dict[str, Any]]:
    """The cost block's explanations, named in the page's language as the planner names them
    (app.planner.views.explain_entries: options as the quote names them, GPU names, no catalog
    ids), each with its value as a reader says it: "22% of 730 h a month", "NT$10,080,000",
    its formula in the page's language and its source in words (app.costs.explained)."""
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
    explained.word(items, raw, cost, book)
    return items


def unpriced_gpu_text(gpu_id: str, book: PriceBook) -> str:
    """Why a GPU cannot be compared, in the page's language, naming the GPU and the choices."""
    names = {c.value: c.label for c in gpu_choices(book)}
    if gpu_id in names:
        # The list beside the message names the choices: the page does not repeat them.
        return _("%(gpu)s is not priced in the current price list; choose another GPU.") % {
            "gpu": names[gpu_id]
        }
    return _("Choose a GPU from the list.")
