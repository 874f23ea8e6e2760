"""The quote builder on /plans/{id}: form values ⇄ `QuoteIn`, and the builder's context.

Lines are posted as ``line-<i>-<field>`` inputs; "add line" and "remove line i" re-render
the builder with the typed values (nothing is saved until "Save quote"). Errors are keyed by
the input they belong to (``line-0-quantity``, ``discount_pct``) for the inline messages.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any, Final

from pydantic import ValidationError
from sqlmodel import Session

from app.accounts.models import User
from app.customers import service as customers
from app.customers import views as customer_views
from app.customers.models import Customer
from app.i18n import N_, listing
from app.i18n import gettext as _
from app.plans import schedule
from app.plans import service as plans
from app.plans.models import Plan
from app.plans.presenters import STATUS_NAMES
from app.quotes import document
from app.quotes import service as quotes
from app.quotes.bom import default_option
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


def values_of(plan: Plan, house: str = "") -> dict[str, Any]:
    """The builder's values from the saved quote (or an empty quote with one option line).

    `house`: the seller (`quotes.house_provider`), whose own option the first line is."""
    q: Mapping[str, Any] = plan.quote or {}
    cost = plan.result.get("cost") or {}
    options = cost.get("options") or []
    # The first line is the seller's cheapest way to pay for what the plan runs
    # (`bom.default_option`: the engine's `cheapest` when it is the seller's, lowest total
    # over the plan's period): a 7-day job must not open as a 12-month contract at 20× the
    # hourly total, nor on a marketplace's rent the document lists nowhere (QA).
    first = default_option(cost, house) or {}
    # A phased plan is quoted a line per phase (app.plans.schedule's `phase-<n>` options).
    phase_keys = [str(o["key"]) for o in options if str(o.get("key", "")).startswith("phase-")]
    default = [{"option_key": k, "discount_pct": "0"} for k in phase_keys] or [
        {"option_key": str(first.get("key", "")), "discount_pct": "0"}
    ]
    lines = [_line_values(line) for line in q.get("lines") or []] or [
        {**line, "shown": line["option_key"]} for line in default
    ]
    return {
        "lines": lines,
        "discount_pct": str(q.get("discount_pct", "0")),
        "discount_amount": str(q.get("discount_amount", "0")),
        "tax_rate": str(q.get("tax_rate", "")),
        "valid_until": str(q.get("valid_until", "")),
        # The default sentence shows as empty ("Empty: the default payment terms"): shown in
        # the language it was saved in, an English page held the Chinese one, and an edit to
        # it made it the customer's own text, printed as is (QA).
        "payment_terms": ""
        if plans.is_default_terms(q.get("payment_terms"))
        else str(q.get("payment_terms", "")),
        "include_cloud_comparison": bool(q.get("include_cloud_comparison")),
        "customer_id": str(plan.customer_id or ""),
    }


def _line_values(line: Mapping[str, Any]) -> dict[str, str]:
    """A stored line as the builder's inputs. A one-off line (unit "item", stored with the
    months multiplier 1) shows its Months empty, as it was typed: showing "1" made the next
    save — of any other field — turn it into "per month × 1 month" (visual QA)."""
    values = {f: str(line.get(f, "") or "") for f in LINE_FIELDS}
    for f in ("quantity", "months"):
        if values[f]:
            # a quote saved before quantities were cleaned: 12.000000000000004 months
            values[f] = format(quotes.pricing.denoised(Decimal(values[f])), "f")
    if line.get("unit") in ("item", "hour") and values["months"] in ("", "1"):
        values["months"] = ""  # no period (a months multiplier other than 1 is kept)
    if not line.get("option_key") and line.get("unit") == "hour":
        # A free hourly line (API `unit: hour`) says so on its next save: its empty months
        # would otherwise make it one-off. (A free line is one-off without months, per
        # month with them; an option line takes its option's unit.)
        values["unit"] = "hour"
    if line.get("option_key") and line.get("unit") == "item":
        # A cost option quoted as one item (its own figures do not multiply out) stays one:
        # read back without it, the item's price would be taken as a rate per month again.
        values["unit"] = "item"
    values["shown"] = values["option_key"]
    return values


#: A line's fields that hold numbers (the others are a key and a description).
NUMBER_FIELDS: Final = ("quantity", "unit_price", "months", "discount_pct")


def _grouped(text: str) -> str:
    """ "180,000" without its thousands separators; anything else as typed."""
    if re.fullmatch(r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?", text):
        return text.replace(",", "")
    return text


def _posted_line(form: Mapping[str, str], i: int) -> dict[str, str]:
    """Line `i` of the posted form. Its quantity, unit price and months belong to the option
    they were shown for (`line-<i>-shown`, with the values shown in `line-<i>-shown-<field>`):
    a line switched to another cost option — or from a free line to an option — takes the
    new option's own values instead of carrying the old ones (the hourly option quoted at
    1 h, a purchase at one month's run-rate), except a value typed along with the switch."""
    line = {f: form.get(f"line-{i}-{f}", "").strip() for f in LINE_FIELDS}
    for f in NUMBER_FIELDS:
        # "180,000" is how a price is written: the thousands separators go (the form said
        # "Enter a number, e.g. 4096" to "1,000" — QA); anything else is checked as typed.
        line[f] = _grouped(line[f])
    shown = form.get(f"line-{i}-shown")
    switched = shown is not None and shown.strip() != line["option_key"]
    if line["option_key"] and switched:
        # Only the values left as they were shown: one typed with the switch is kept (a
        # monthly rent switched to with "3" months and NT$90,000 typed was saved at the
        # option's 1 month and NT$100,000, without a word — QA).
        for f in ("quantity", "unit_price", "months"):
            was = form.get(f"line-{i}-shown-{f}")
            if was is None or line[f] == was.strip():
                line[f] = ""
    line["shown"] = line["option_key"]
    unit = form.get(f"line-{i}-unit")
    if not line["option_key"] and unit == "hour":
        line["unit"] = "hour"
    elif line["option_key"] and unit == "item" and not switched:
        line["unit"] = "item"  # the option quoted as one item (another option: its own unit)
    return line


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
    lines = [_posted_line(form, i) for i in indices]
    values = {
        "lines": lines,
        "discount_pct": form.get("discount_pct", "0").strip(),
        # "10,000" is how an amount is written (as a line's price, above)
        "discount_amount": _grouped(form.get("discount_amount", "0").strip()),
        "tax_rate": form.get("tax_rate", "").strip(),
        "valid_until": form.get("valid_until", "").strip(),
        "payment_terms": form.get("payment_terms", "").strip(),
        "include_cloud_comparison": form.get("include_cloud_comparison") in ("on", "true"),
        "customer_id": form.get("customer_id", "").strip(),
    }
    return values, {**errs, **lines_over_limit(values)}


def customer_choices(records: Sequence[Customer]) -> list[tuple[str, str]]:
    """(id, label) for the builder's customer list: the name and 統一編號, and where two
    still read the same, the contact or e-mail (QA: two "Acme Corp" could not be told
    apart)."""

    def label(c: Customer, more: bool) -> str:
        parts = [c.name, c.tax_id]
        if more:
            parts.append(c.contact or c.email)
        return " · ".join(p for p in parts if p)

    base = [label(c, False) for c in records]
    seen = Counter(base)
    return [
        (str(c.id), label(c, True) if seen[b] > 1 else b)
        for c, b in zip(records, base, strict=True)
    ]


def lines_over_limit(values: Mapping[str, Any]) -> dict[str, str]:
    """{"lines": message} past MAX_LINES lines (the API's limit), else {}."""
    extra = len(values["lines"]) - MAX_LINES
    if extra <= 0:
        return {}
    return {"lines": _("At most %(n)s lines: remove %(extra)s.") % {"n": MAX_LINES, "extra": extra}}


def apply_action(values: dict[str, Any], action: str) -> dict[str, Any]:
    """'add' appends an empty line; 'remove-<i>' drops line i.

    The new line's quantity and months are empty, not "1": as a free line that is one of
    quantity 1, once (not per month); given a cost option, the option's own quantity and
    months (8,760 h of hourly rent for a 12-month plan, not 1 h)."""
    lines = list(values["lines"])
    if action == "add" and len(lines) < MAX_LINES:
        lines.append(
            {
                "option_key": "",
                "description": "",
                "quantity": "",
                "months": "",
                "discount_pct": "0",
                "unit_price": "",
                "shown": "",
            }
        )
    elif action.startswith("remove-") and (i := parse_id(action[7:], minimum=0)) is not None:
        lines = [line for j, line in enumerate(lines) if j != i]
    return {**values, "lines": lines}


def quote_in(values: Mapping[str, Any]) -> QuoteIn:
    """Validate the form's values as a quote (ValidationError with `lines.<i>.<field>`)."""
    body: dict[str, Any] = {
        "lines": [
            {k: v for k, v in line.items() if k in (*LINE_FIELDS, "unit") and v not in ("", None)}
            for line in values["lines"]
        ],
        "discount_pct": values["discount_pct"] or "0",
        "discount_amount": values.get("discount_amount") or "0",
        "include_cloud_comparison": values["include_cloud_comparison"],
    }
    for key in ("tax_rate", "valid_until", "payment_terms"):
        if values[key]:
            body[key] = values[key]
    return QuoteIn.model_validate(body)


def validity_errors(values: Mapping[str, Any], today: date) -> dict[str, str]:
    """{"valid_until": message} for a validity date the save would refuse (the rules of
    `pricing.validity_problem`), checked beside the form's other errors; {} otherwise, or
    when the date cannot be read (the form's own check names that)."""
    try:
        valid_until = date.fromisoformat(str(values.get("valid_until") or ""))
    except ValueError:
        return {}
    problem = quotes.pricing.validity_problem(valid_until, today)
    return {"valid_until": _(problem)} if problem else {}


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
    # (app.web.forms.limit_text groups ints and floats only): a whole one is passed as an int, so
    # it reads "1,000,000,000,000" like every other limit.
    whole = {
        k: int(v) if isinstance(v, Decimal) and v == v.to_integral_value() else v
        for k, v in ctx.items()
    }
    if kind in _NOT_A_NUMBER:
        # The shared example is a sequence length ("e.g. 4096"): a price, a discount or a
        # quantity gets one of its own (QA read "e.g. 4096" beside a discount).
        field = str((err.get("loc") or ("",))[-1])
        return _("Enter a number, e.g. %(example)s.") % {"example": _EXAMPLES.get(field, "2")}
    return message_for({**err, "ctx": whole} if ctx else err)


#: Pydantic's kinds for input that is not a number (app.web.forms.message_for's).
_NOT_A_NUMBER: Final = frozenset(
    {"int_parsing", "int_from_float", "float_parsing", "int_type", "float_type",
     "finite_number", "decimal_parsing", "decimal_type", "number_type"}
)  # fmt: skip
#: An example of each of the builder's number inputs, as its field is written.
_EXAMPLES: Final = {
    "unit_price": "180,000",
    "discount_pct": "5",
    "discount_amount": "10,000",
    "quantity": "2",
    "months": "6",
}


def field_key(field: str | None) -> str:
    """A service error's dotted field (`quote.lines.0.option_key`) as the builder's input."""
    parts = (field or "").split(".")
    if parts[:1] == ["quote"]:
        parts = parts[1:]
    if parts[:1] == ["lines"] and len(parts) >= 3:
        return f"line-{parts[1]}-{parts[2]}"
    return parts[0] if parts else ""


def placeholders(
    lines: list[Mapping[str, Any]],
    options: list[Mapping[str, Any]],
    cost: Mapping[str, Any],
    currency: str,
) -> list[dict[str, str]]:
    """Per line, what its empty quantity, unit price and months inputs stand for (shown in
    them: an option line's own values, a free line's quantity 1 and "one-off"), and the
    labels and hint that say what its quantity and price are counted in: an hourly line's
    quantity is "Hours", its default stated with where it comes from (never a silent 1 h,
    M3 of the QA pass); its price is per hour, a monthly line's per month. `currency`: the
    quote's; an option's price is shown only in the plan's own currency (a converted one
    is known once saved)."""
    by_key = {str(o.get("key")): o for o in options}
    hours_per_month = float(cost.get("hours_per_month") or 730.0)
    same_currency = currency == str(cost.get("currency") or "TWD")
    out = []
    for line in lines:
        option = by_key.get(str(line.get("option_key") or ""))
        if option is None and line.get("unit") == "hour":
            # a free hourly line (API `unit: hour`): its quantity is its hours, no months
            out.append(
                {
                    "quantity": "",
                    "unit_price": "",
                    "months": "—",
                    "months_hint": "",
                    "quantity_label": _("Hours"),
                    "price_label": _("Price per hour"),
                    "quantity_hint": "",
                }
            )
            continue
        if option is None:
            out.append(
                {
                    "quantity": "1",
                    "unit_price": "",
                    "months": _("one-off"),
                    "months_hint": _("Empty: one-off"),
                    "quantity_label": _("Quantity"),
                    "price_label": _("Unit price"),
                    "quantity_hint": "",
                }
            )
            continue
        own = quotes.pricing.option_defaults(option, hours_per_month)
        # What an empty line of the option is saved as (pricing.default_figures): its rate
        # per hour or month, or one item at the option's total (a rate with cents in NT$).
        unit, price, quantity, months = quotes.pricing.default_figures(own, currency)
        if line.get("unit") == "item":
            unit, price = "item", quotes.pricing.round_money(own["amount"], currency)
            quantity = months = Decimal(1)
        d: dict[str, Any] = {"unit": unit, "quantity": quantity, "months": months}
        shown = price if same_currency else None
        out.append(
            {
                "quantity": _plain(d["quantity"]),
                "unit_price": _plain(shown) if shown is not None else "",
                # the whole phased rental as one item covers its months (as the document
                # says it, document.schedule_period), not "one-off"
                "months": document.schedule_period({"unit": d["unit"]}, option)
                or {"item": _("one-off"), "hour": "—"}.get(str(d["unit"]), _plain(d["months"])),
                "months_hint": "",
                "quantity_label": _("Hours") if d["unit"] == "hour" else _("Quantity"),
                "price_label": {"hour": _("Price per hour"), "month": _("Price per month")}.get(
                    str(d["unit"]), _("Unit price")
                ),
                "quantity_hint": _hours_hint(d["quantity"], cost, option)
                if d["unit"] == "hour"
                else "",
            }
        )
    return out


def _quote_currency(session: Session, plan: Plan) -> str:
    """The currency the plan's quote is (or will be) in: the saved quote's, else its
    customer's, else the plan's own."""
    saved = (plan.quote or {}).get("currency")
    if saved:
        return str(saved)
    customer = session.get(Customer, plan.customer_id) if plan.customer_id is not None else None
    if customer is not None:
        return customer.currency
    return str((plan.result.get("cost") or {}).get("currency") or "TWD")


def _hours_hint(hours: Decimal, cost: Mapping[str, Any], option: Mapping[str, Any]) -> str:
    """Where an hourly line's default hours come from, in the page's language: a service
    runs its hours a month for the plan's months, a phase of a phased plan its hours a month
    for the phase's months; a job runs until it is done."""
    n = document.quantity_text(hours)
    per_month = float(cost.get("hours_per_month") or 0)
    phase_months = float(option.get("period_months") or 0) if "phase" in option else 0.0
    months = 0.0
    if phase_months > 0:
        # QA: an hourly phase of 2 months said "1,460 h, the hours the job runs" beside a
        # job the phase builder says takes 3.5 days; a phase is billed for its months
        months, per_month = phase_months, float(hours) / phase_months
    elif cost.get("pricing_mode") == "capacity" and per_month > 0:
        months = float(hours) / per_month
    if months > 0 and hours > 0:
        return _("Empty: %(n)s h, %(per)s h a month for %(months)s months.") % {
            "n": n,
            "per": f"{per_month:,.0f}",
            "months": f"{months:,.2f}".rstrip("0").rstrip("."),
        }
    return _("Empty: %(n)s h, the hours the job runs.") % {"n": n}


def _plain(value: Decimal) -> str:
    """A number as the inputs take it back: no grouping, no exponent, at most 2 decimals."""
    return format(value.quantize(Decimal("0.01")).normalize(), "f")


def share_until(plan: Plan) -> tuple[int, date] | None:
    """(days, date): a share link made today that lasts through the quote's validity date,
    within a link's 1–365 days; None without a validity date in that span."""
    if plan.valid_until is None:
        return None
    days = (plan.valid_until - plans.today()).days + 1
    return (days, plan.valid_until) if 1 <= days <= 365 else None


#: A buyer field's name as the customer form labels it (`buyer_changed`); export without the
#: form's rate.
BUYER_FIELD_LABELS: Final = {**customer_views.LABELS, "export": N_("Export customer")}


def buyer_changed(*, session: Session, plan: Plan) -> str | None:
    """On a quote that is out with the customer: which of its customer's details were edited
    after it was sent, in the page's language (the customer's copy prints them as sent:
    `quotes.printed_customer`), and how to send the new ones; None when nothing changed."""
    if plan.status != "sent" or plan.sent_customer is None:
        return None
    now = quotes.customer_snapshot(session, plan)
    if now is None:
        return None
    changed = [f for f in quotes.BUYER_FIELDS if now.get(f) != plan.sent_customer.get(f)]
    if not changed:
        return None
    return _(
        "%(name)s's record changed after this quote was sent (%(fields)s): the customer's copy "
        "still prints the details it was sent with. Send again to give them the new ones."
    ) % {
        "name": now["name"],
        "fields": listing([_(BUYER_FIELD_LABELS[f]) for f in changed]),
    }


def tax_id_warnings(
    *, session: Session, plan: Plan, values: Mapping[str, Any], seller_tax_id: str
) -> list[str]:
    """Before sending: the 統一編號 a Taiwanese quote must carry for both parties (PRODUCT.md
    §6) that this one lacks, each sentence saying where to set it, in the page's language.
    The seller's comes from the STRATAGEM_COMPANY_TAX_ID setting; the customer's from its
    record (an export customer has none to give)."""
    out = []
    if not seller_tax_id.strip():
        out.append(
            _(
                "Your company's 統一編號 is missing from every quote: a quote sent now goes "
                "out without it, though a Taiwanese quote carries both parties'. Set "
                "STRATAGEM_COMPANY_TAX_ID (with STRATAGEM_COMPANY_NAME and "
                "STRATAGEM_COMPANY_ADDRESS) in the server's settings and restart it."
            )
        )
    if plan.name.endswith((" (copy)", "（副本）")):
        # The plan's name heads the customer's quote as its project (QA: a duplicate was sent
        # as "… （副本）").
        out.append(
            _(
                "This plan's name, “%(name)s”, is the project name the customer's quote "
                "prints: rename the copy before sending."
            )
            % {"name": plan.name}
        )
    customer_id = parse_id(str(values.get("customer_id") or plan.customer_id or ""))
    customer = session.get(Customer, customer_id) if customer_id is not None else None
    if customer is not None and not customer.export and not (customer.tax_id or "").strip():
        out.append(
            _(
                "The customer %(name)s has no 統一編號: add it on the customer's page "
                "before sending."
            )
            % {"name": customer.name}
        )
    # 營業稅 follows the sale (PRODUCT.md §6): 5% domestic, 0% a zero-rated export. The API
    # lets a quote set either (a bonded-zone buyer, a service used in Taiwan); the builder
    # says so when the saved rate is not the customer's usual one.
    rate = (plan.quote or {}).get("tax_rate")
    if customer is not None and rate not in (None, ""):
        if not customer.export and Decimal(str(rate)) == 0:
            out.append(
                _(
                    "This quote charges 0%% 營業稅, but %(name)s is a domestic customer "
                    "(5%%): it cannot be sent so. Set 5%%, or mark the customer as export."
                )
                % {"name": customer.name}
            )
        elif customer.export and Decimal(str(rate)) > 0:
            out.append(
                _(
                    "This quote charges 5%% 營業稅, but %(name)s is an export customer "
                    "(0%%, zero-rated): check the business tax."
                )
                % {"name": customer.name}
            )
    return out


def _typed_lines(values: Mapping[str, Any], option_names: Mapping[str, str]) -> list[str]:
    """Each typed line as one phrase: what it is, then its price × quantity × months and
    discount as typed ("GPU 伺服器 · 180000 × 1 × 6 · 5%")."""
    out = []
    for line in values.get("lines") or []:
        key = str(line.get("option_key") or "")
        what = str(line.get("description") or "").strip() or option_names.get(key, "")
        figures = " × ".join(
            str(line.get(k)).strip()
            for k in ("unit_price", "quantity", "months")
            if str(line.get(k) or "").strip()
        )
        pct = str(line.get("discount_pct") or "").strip()
        parts = [p for p in (what, figures, f"{pct}%" if pct and pct != "0" else "") if p]
        if parts:
            out.append(" · ".join(parts))
    return out


def builder_context(
    *,
    session: Session,
    plan: Plan,
    user: User,
    limit_pct: Decimal,
    values: Mapping[str, Any] | None = None,
    errors: Mapping[str, str] | None = None,
    seller_tax_id: str | None = None,
) -> dict[str, Any]:
    """Everything the builder section shows (the plan page includes it).

    `seller_tax_id`: the STRATAGEM_COMPANY_TAX_ID setting; None where the caller does not
    pass it (then the template reads the app's settings itself)."""
    cost = plan.result.get("cost") or {}
    gpu = plan.result.get("gpu") or {}
    hours = float(cost.get("hours_per_month") or 730.0)
    owner = session.get(User, plan.owner_id)
    qb = (
        values
        if values is not None
        else values_of(plan, quotes.house_provider(session=session, plan=plan))
    )
    # Offers whose machines cannot hold the plan's NVLink group are not offered as lines;
    # one a saved line already names stays listed, so re-saving never loses it. A public
    # cloud is not offered either, but one a line quotes (through the API) stays listed: it
    # read "Free line" with no description, and the quote could not be saved again (QA).
    used = {str(line.get("option_key") or "") for line in qb.get("lines") or []}
    quotable = [
        o
        for o in cost.get("options") or []
        if o.get("kind") not in document.CLOUD_KINDS or str(o.get("key")) in used
    ]
    labels = document.option_labels(quotable, gpu, hours)
    options = [
        (str(o.get("key")), labels[str(o.get("key"))])
        for o in quotable
        if o.get("feasible", True) or str(o.get("key")) in used
    ]
    # A saved line whose option a revision took away keeps it selected, named as gone, with
    # the reason beside it: shown as a free line it lost its name and was sent (QA).
    offered = quotes.option_keys(plan.result)
    listed = {key for key, _ in options} | offered
    stale = _("No longer in this plan")
    errors = dict(errors or {})
    for i, line in enumerate(qb.get("lines") or []):
        key = str(line.get("option_key") or "")
        if not key or key in offered:
            continue
        if key not in listed:
            options.append((key, f"— {stale} —"))
            listed.add(key)
        errors.setdefault(
            f"line-{i}-option_key",
            _(
                "A revision of the plan took this cost option away: choose one of its "
                "options, or a free line with a description, before sending."
            ),
        )
    if values is None and plan.status not in ("accepted", "declined"):
        # A term contract's price for fewer months than the contract: said beside the months
        # when the quote is saved, not only by "Send" (QA saved 1.5 months of a 12-month
        # contract and read the builder's total as a price it could send).
        for n, term, months in quotes.short_contract_lines(plan):
            errors.setdefault(
                f"line-{n - 1}-months",
                _(
                    "This is a %(term)s-month contract's price for %(months)s months: quote at "
                    "least %(term)s months, or choose monthly rent for a shorter period, "
                    "before sending."
                )
                % {"term": term, "months": months},
            )
    numbered = plans.editions(session=session, plan_id=plan.id)
    return {
        "qb": qb,
        # The customer's numbers beside the history's (`plans.Editions`): what was sent and
        # signed, as the customer's document calls it.
        "qb_sent_edition": numbered.of(plan.sent_version),
        # The number the PDF and the share link print (a draft: the edition it becomes when
        # sent), beside the page's save counter (QA read "Version 7" on the page and "version
        # 1" on the draft PDF): of the revision they print (`quotes.seller_copy`), which is the
        # one the customer answered once they did (QA: "version 2" beside an accepted PDF of
        # version 1, a revision saved after sending being the plan's latest).
        "qb_current_edition": numbered.of(quotes.seller_copy(session=session, plan=plan).version),
        # A sent quote saved since (a reprice, an edit): what the customer's link still asks
        # beside what this revision asks, said plainly (QA: "Sent" over the new total).
        "qb_unsent": quotes.unsent_revision(session=session, plan=plan),
        # A share link's lifetime that runs to the quote's validity date (its last day
        # included), offered first: a 30-day link on a quote valid for 60 closed before the
        # quote did, and the customer could no longer accept it (QA).
        "qb_share_until": share_until(plan),
        "qb_decision_edition": numbered.of(plan.decision_version),
        # A phased plan's document lists its phases, not ways to pay: it has no cloud
        # comparison to switch on (QA: ticked, it printed none and said nothing).
        "qb_phased": schedule.is_schedule(plan.workload or {}),
        # Lines typed into a builder saved after the customer answered: not saved, and kept
        # on screen to copy into a duplicate (QA: the answer's 409 dropped them).
        "qb_unsaved": _typed_lines(qb, dict(options))
        if values is not None and plan.status in ("accepted", "declined")
        else [],
        "qb_placeholders": placeholders(
            qb["lines"], quotable, cost, _quote_currency(session, plan)
        ),
        # Called by the template with the seller's number: `qb_seller_tax_id`, else (the
        # plan page, whose route passes no settings) the app's own settings.
        "qb_seller_tax_id": seller_tax_id,
        "qb_tax_id_warnings": lambda seller: tax_id_warnings(
            session=session, plan=plan, values=qb, seller_tax_id=str(seller or "")
        ),
        "qb_buyer_changed": buyer_changed(session=session, plan=plan),
        "qb_server_shortfalls": quotes.server_shortfalls(session=session, plan=plan),
        "qb_errors": dict(errors or {}),
        "qb_pct": document.percent_text,
        "qb_tax_label": document.tax_label,
        "qb_options": options,
        "qb_customers": customer_choices(customers.list_customers(session=session)),
        "qb_tax_choices": TAX_CHOICES,
        "qb_totals": quotes.pricing.totals(plan.quote)
        if plan.quote and plan.quote.get("lines")
        else None,
        # Each saved line's arithmetic as the share page states it, under its amount.
        "qb_lines": document.quote_lines(
            plan.quote,
            list(cost.get("options") or []),
            gpu,
            hours,
            str(cost.get("currency") or "TWD"),
        )
        if plan.quote and plan.quote.get("lines")
        else [],
        "qb_discount": quotes.discount_state(session=session, plan=plan, limit_pct=limit_pct),
        "qb_is_admin": user.role == "admin",
        "qb_can_edit": plans.can_edit(user, plan),
        "qb_owner_name": (owner.name or owner.email) if owner is not None else "",
        # The HTMX fragment renders without the plan page's context.
        "status_names": STATUS_NAMES,
    }
