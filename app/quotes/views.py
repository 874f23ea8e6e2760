"""The quote builder on /plans/{id}: form values ⇄ `QuoteIn`, and the builder's context.

Lines are posted as ``line-<i>-<field>`` inputs; "add line" and "remove line i" re-render
the builder with the typed values (nothing is saved until "Save quote"). Errors are keyed by
the input they belong to (``line-0-quantity``, ``discount_pct``) for the inline messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from pydantic import ValidationError
from sqlmodel import Session

from app.accounts.models import User
from app.customers import service as customers
from app.i18n import gettext as _
from app.plans import service as plans
from app.plans.models import Plan
from app.plans.presenters import STATUS_NAMES
from app.quotes import document
from app.quotes import service as quotes
from app.quotes.models import MAX_LINES, QuoteIn
from app.web.forms import message_for, parse_id

LINE_FIELDS: Final = (
    "option_key",
    "description",
    "quantity",
    "unit_price",
    "months",
    "discount_pct",
)
TAX_CHOICES: Final = (("0.05", "5%"), ("0", "0%"))


def values_of(plan: Plan) -> dict[str, Any]:
    """The builder's values from the saved quote (or an empty quote with one option line)."""
    q: Mapping[str, Any] = plan.quote or {}
    cost = plan.result.get("cost") or {}
    options = cost.get("options") or []
    # The first line is the plan's cheapest way to pay for what it runs (the engine's
    # `cheapest`, lowest total among the feasible options over the plan's period): a 7-day job
    # must not open as a 12-month contract at 20× the hourly total.
    first = next(
        (o for o in options if o.get("key") == cost.get("cheapest")),
        next((o for o in options if o.get("kind") == "rent_term"), options[0] if options else {}),
    )
    # A phased plan is quoted a line per phase (app.plans.schedule's `phase-<n>` options).
    phase_keys = [str(o["key"]) for o in options if str(o.get("key", "")).startswith("phase-")]
    default = [{"option_key": k, "discount_pct": "0"} for k in phase_keys] or [
        {"option_key": str(first.get("key", "")), "discount_pct": "0"}
    ]
    lines = [
        {f: str(line.get(f, "") or "") for f in LINE_FIELDS} for line in q.get("lines") or []
    ] or default
    return {
        "lines": lines,
        "discount_pct": str(q.get("discount_pct", "0")),
        "tax_rate": str(q.get("tax_rate", "")),
        "valid_until": str(q.get("valid_until", "")),
        "payment_terms": str(q.get("payment_terms", "")),
        "include_cloud_comparison": bool(q.get("include_cloud_comparison")),
        "customer_id": str(plan.customer_id or ""),
    }


def values_from_form(form: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The builder's values from the posted form, and an error on `lines` when the line count
    is not a count or the lines are past MAX_LINES. Every posted line is kept for the
    re-render (a form holds no more lines than it has fields), never cut to the limit."""
    count = parse_id(form.get("lines"), minimum=0)
    errs: dict[str, str] = {}
    if count is None:
        errs["lines"] = _("The line count is missing or not a number: check the lines, then save.")
        indices = [i for i in range(len(form)) if any(f"line-{i}-{f}" in form for f in LINE_FIELDS)]
    else:
        indices = list(range(min(count, len(form))))
    lines = [{f: form.get(f"line-{i}-{f}", "").strip() for f in LINE_FIELDS} for i in indices]
    values = {
        "lines": lines,
        "discount_pct": form.get("discount_pct", "0").strip(),
        "tax_rate": form.get("tax_rate", "").strip(),
        "valid_until": form.get("valid_until", "").strip(),
        "payment_terms": form.get("payment_terms", "").strip(),
        "include_cloud_comparison": form.get("include_cloud_comparison") in ("on", "true"),
        "customer_id": form.get("customer_id", "").strip(),
    }
    return values, {**errs, **lines_over_limit(values)}


def lines_over_limit(values: Mapping[str, Any]) -> dict[str, str]:
    """{"lines": message} past MAX_LINES lines (the API's limit), else {}."""
    extra = len(values["lines"]) - MAX_LINES
    if extra <= 0:
        return {}
    return {"lines": _("At most %(n)s lines: remove %(extra)s.") % {"n": MAX_LINES, "extra": extra}}


def apply_action(values: dict[str, Any], action: str) -> dict[str, Any]:
    """'add' appends an empty free line; 'remove-<i>' drops line i."""
    lines = list(values["lines"])
    if action == "add" and len(lines) < MAX_LINES:
        lines.append(
            {
                "option_key": "",
                "description": "",
                "quantity": "1",
                "months": "1",
                "discount_pct": "0",
                "unit_price": "",
            }
        )
    elif action.startswith("remove-") and (i := parse_id(action[7:], minimum=0)) is not None:
        lines = [line for j, line in enumerate(lines) if j != i]
    return {**values, "lines": lines}


def quote_in(values: Mapping[str, Any]) -> QuoteIn:
    """Validate the form's values as a quote (ValidationError with `lines.<i>.<field>`)."""
    body: dict[str, Any] = {
        "lines": [
            {k: v for k, v in line.items() if v not in ("", None)} for line in values["lines"]
        ],
        "discount_pct": values["discount_pct"] or "0",
        "include_cloud_comparison": values["include_cloud_comparison"],
    }
    for key in ("tax_rate", "valid_until", "payment_terms"):
        if values[key]:
            body[key] = values[key]
    return QuoteIn.model_validate(body)


def errors_of(e: ValidationError) -> dict[str, str]:
    """The builder's inline messages, keyed by input, in the page's language."""
    out: dict[str, str] = {}
    for err in e.errors():
        loc = [str(p) for p in err.get("loc", ())]
        if loc[:1] == ["lines"] and len(loc) >= 2:
            key = f"line-{loc[1]}-{loc[2]}" if len(loc) >= 3 else f"line-{loc[1]}-description"
        else:
            key = loc[0] if loc else ""
        out.setdefault(key, _message(err))
    return out


def _message(err: Mapping[str, Any]) -> str:
    """One pydantic error of `QuoteIn` in the page's language."""
    kind = str(err.get("type", ""))
    if kind == "value_error":
        # QuoteLineIn's validators raise msgids (marked N_): translated here, when shown.
        return _(message_for(err))
    if kind.startswith("date_"):
        return _("Enter a date, e.g. %(example)s.") % {"example": "2026-12-31"}
    ctx = err.get("ctx") or {}
    # A Decimal bound (unit_price ≤ Decimal("1e12")) prints as "1E+12" in the shared message
    # (app.web.forms._fmt groups ints and floats only): a whole one is passed as an int, so
    # it reads "1,000,000,000,000" like every other limit.
    whole = {
        k: int(v) if isinstance(v, Decimal) and v == v.to_integral_value() else v
        for k, v in ctx.items()
    }
    return message_for({**err, "ctx": whole} if ctx else err)


def field_key(field: str | None) -> str:
    """A service error's dotted field (`quote.lines.0.option_key`) as the builder's input."""
    parts = (field or "").split(".")
    if parts[:1] == ["quote"]:
        parts = parts[1:]
    if parts[:1] == ["lines"] and len(parts) >= 3:
        return f"line-{parts[1]}-{parts[2]}"
    return parts[0] if parts else ""


def builder_context(
    *,
    session: Session,
    plan: Plan,
    user: User,
    limit_pct: Decimal,
    values: Mapping[str, Any] | None = None,
    errors: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Everything the builder section shows (the plan page includes it)."""
    cost = plan.result.get("cost") or {}
    gpu = plan.result.get("gpu") or {}
    hours = float(cost.get("hours_per_month") or 730.0)
    options = [
        (str(o.get("key")), document.option_label(o, gpu, hours))
        for o in cost.get("options") or []
        if o.get("kind") not in document.CLOUD_KINDS
    ]
    owner = session.get(User, plan.owner_id)
    return {
        "qb": values if values is not None else values_of(plan),
        "qb_errors": dict(errors or {}),
        "qb_options": options,
        "qb_customers": [(str(c.id), c.name) for c in customers.list_customers(session=session)],
        "qb_tax_choices": TAX_CHOICES,
        "qb_totals": quotes.pricing.totals(plan.quote)
        if plan.quote and plan.quote.get("lines")
        else None,
        "qb_discount": quotes.discount_state(session=session, plan=plan, limit_pct=limit_pct),
        "qb_is_admin": user.role == "admin",
        "qb_can_edit": plans.can_edit(user, plan),
        "qb_owner_name": (owner.name or owner.email) if owner is not None else "",
        # The HTMX fragment renders without the plan page's context.
        "status_names": STATUS_NAMES,
    }
