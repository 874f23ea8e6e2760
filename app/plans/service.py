"""Plan service: create, list, save (optimistically), duplicate, archive, reprice, compare.

The only place plan rows commit. Every function takes keyword-only arguments.

Permissions (enforced here, so the API and later the pages share them):
* any signed-in user (admin or sales) can read every plan and its revisions, and duplicate
  any plan into a new one they own;
* sales can save, archive, restore and reprice only plans they own;
* admin can do everything to every plan.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Final, TypeVar, cast

from babel.dates import format_date
from pydantic import ValidationError
from sqlalchemy import func, or_, update
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from app import errors
from app.accounts.models import User
from app.catalog import service as catalog
from app.catalog.models import PriceList
from app.customers import service as customers
from app.customers.models import Customer
from app.dates import business_today, in_business_tz
from app.engine.estimate import InputError, estimate
from app.engine.price_book import PriceBook
from app.engine.schemas import EstimateRequest
from app.i18n import N_, babel_locale, current_language, translations
from app.i18n import gettext as _
from app.plans import schedule
from app.plans.models import (
    EDITABLE,
    SNAPSHOT,
    STATUSES,
    SUMMARY_MAX,
    Plan,
    PlanPublic,
    PlanRevision,
    utcnow,
)
from app.quotes import pricing
from app.quotes.models import DOMESTIC_AT_ZERO, DOMESTIC_TAX_RATE, EXPORT_TAX_RATE, QuoteIn
from app.settings import Settings

SORTS: Final = ("updated_at", "created_at", "name", "customer", "quote_number", "status")
#: Statuses only the quote's life sets (send, the customer's accept/decline, expiry).
LIFE_STATUSES: Final = ("sent", "accepted", "declined", "expired")
#: Of those, the ones no save may ever set, quote or not: they record the customer's answer
#: or the passing of the validity date (a bare "sent" on a plan without a quote stays the
#: old pipeline marker).
ANSWER_STATUSES: Final = ("accepted", "declined", "expired")
#: A plan saved with a quote and status "sent" at once: sending checks the quote first.
SENT_BY_SENDING: Final = N_(
    "a quote is sent with POST /api/v1/plans/{id}/send, which checks it first (discount "
    "approval, tax rate)"
)
LIFE_STATUS_MESSAGE: Final = N_(
    "This status is set by sending the quote and by the customer's answer, not by hand."
)
#: A check run inside a plan write's transaction (`_save`), after its row is written.
Guard = Callable[[Session], None]
#: A quote the customer answered. What they signed (or refused) is a record a procurement
#: department relies on: the content is frozen, and a new offer is a duplicate of the plan.
DECIDED_STATUSES: Final = ("accepted", "declined")
#: What a save may still change on a decided quote. Internal notes and tags are never shown
#: to the customer (not on the share page, not in the PDF) and the team keeps working with
#: them after the answer (purchase order number, delivery, follow-up); archive/restore is
#: housekeeping and goes through `archive_plan`. Everything else is what the answer covers —
#: name, customer, status, workload and phases, the quote (lines, discounts, tax, validity,
#: terms) and the price list (`reprice_plan`) — and is refused with `Decided`.
AFTER_DECISION: Final = frozenset({"notes", "tags"})
_DECIDED_MESSAGES: Final = {
    ("accepted", True): N_("the quote was accepted on %(date)s; duplicate the plan to revise it"),
    ("declined", True): N_("the quote was declined on %(date)s; duplicate the plan to revise it"),
    # plans marked accepted/declined by hand before quotes had a life have no decision date
    ("accepted", False): N_("the quote was accepted; duplicate the plan to revise it"),
    ("declined", False): N_("the quote was declined; duplicate the plan to revise it"),
}


def settable_statuses(plan: Plan) -> list[str]:
    """The statuses a save may give `plan` now (its own first), in `STATUSES` order: never
    an answer (accepted, declined, expired: the customer and the validity date set them),
    nor "sent" once the plan has a quote (sending it does). QA: the plan page offered
    已接受 and 已逾期 and answered both with an error page."""
    has_quote = plan.quote is not None
    return [
        s
        for s in STATUSES
        if s == plan.status or not (s in ANSWER_STATUSES or (s in LIFE_STATUSES and has_quote))
    ]


# The English sentence names no Chinese term: an English document is English throughout
# (QA: "invoice (統一發票)" on a US customer's quote). The Chinese one says 統一發票.
DEFAULT_PAYMENT_TERMS: Final = N_("Payment by bank transfer within 30 days of the invoice date.")
#: The standard sentence as quotes saved before that change hold it: still the default, so
#: their documents print today's sentence in the document's language.
FORMER_DEFAULT_TERMS: Final = (
    "Payment by bank transfer within 30 days of the invoice (統一發票) date.",
)
DEFAULT_SALES_DISCOUNT_LIMIT: Final = Decimal(10)


def is_default_terms(text: object) -> bool:
    """True when `text` is the standard payment-terms sentence in any language: a document
    then prints it in its own language (stored, it is in the language of the customer the
    quote was first saved for)."""
    if not isinstance(text, str) or not text:
        return False
    zh = translations("zh-TW").gettext(DEFAULT_PAYMENT_TERMS)
    return text.strip() in (DEFAULT_PAYMENT_TERMS, zh, *FORMER_DEFAULT_TERMS)


MAX_PER_PAGE: Final = 100
# Lists never need the workload and result JSON (tens of kilobytes a row): leave them unread.
_HEAVY_PLAN: Final = (defer(cast(Any, Plan.workload)), defer(cast(Any, Plan.result)))
_HEAVY_REVISION: Final = (
    defer(cast(Any, PlanRevision.workload)),
    defer(cast(Any, PlanRevision.result)),
)


class PlanError(errors.DomainError):
    """Base of the errors the plan service raises (app/errors.py maps each to its status)."""


class NotFound(PlanError, errors.NotFound):
    pass


class Forbidden(PlanError, errors.Forbidden):
    pass


class Invalid(PlanError, errors.Invalid):
    """A value the service refuses; `field` is its dotted path (a 422)."""

    def __init__(self, field: str, message: str, *, where: str = "body", **params: Any) -> None:
        super().__init__(message, field=field, where=where, **params)


class Conflict(PlanError, errors.Conflict):
    """The save was based on an old version; `changed_fields` changed since then."""

    def __init__(self, *, current_version: int, changed_fields: list[str]) -> None:
        super().__init__(
            N_(
                "the plan was changed by someone else since you loaded it: reload and "
                "reapply your changes (now at version %(version)s)"
            ),
            version=current_version,
        )
        self.current_version = current_version
        self.changed_fields = changed_fields

    def form_message(self, based_on: int) -> str:
        """What a form saved on `based_on` says above its kept input (STALE_FORM), in the
        active language."""
        return _(STALE_FORM) % {"old": based_on, "new": self.current_version}

    def json_body(self) -> dict[str, Any]:
        return {
            "detail": self.message,
            "current_version": self.current_version,
            "changed_fields": self.changed_fields,
        }


#: What a form says when the version it carries is none this plan has had (not a whole
#: number from 1, or ahead of the plan: a page kept open across a restore of an older
#: backup, or a hand-edited form; `app.web.forms.posted_version` finds it). QA: the quote
#: builder answered 422 with no message at all, and "version abc" was read as "you started
#: from version 0".
UNKNOWN_FORM_VERSION: Final = N_(
    "This page was made from a version this plan does not have (it is at version "
    "%(new)s). Your changes are still below and were not saved; check them against the "
    "plan, then save again."
)


#: What a form says when its save was based on an old version: the user's input is kept
#: in the form, which now carries the current version (saving again overwrites, knowingly).
STALE_FORM: Final = N_(
    "Someone else saved this plan while you were editing: you started from version "
    "%(old)s, it is now at version %(new)s. Your changes are still below and were not "
    "saved; check them against the plan, then save again."
)


class Decided(PlanError, errors.Conflict):
    """The customer answered the quote: its content is frozen (409 naming `status.<state>`).

    The date is written in the request's language, like the decision record on the page."""

    def __init__(self, plan: Plan) -> None:
        when = plan.decided_at
        # On Taipei's calendar, as the plan page and the share page date it (QA: accepted at
        # 04:30 on 7 December in Taipei, the refusal said "accepted on Dec 6", UTC's date).
        params = (
            {"date": format_date(in_business_tz(when).date(), "medium", locale=babel_locale())}
            if when
            else {}
        )
        message = _DECIDED_MESSAGES[(plan.status, when is not None)]
        super().__init__(message, field=f"status.{plan.status}", **params)


def require_undecided(plan: Plan, changes: Mapping[str, Any] | None = None) -> None:
    """`Decided` when the plan's quote was accepted or declined and `changes` (None: any
    change of content) touches more than `AFTER_DECISION`. A value equal to the current one
    is no change, so a form that sends every field can still save the notes."""
    if plan.status not in DECIDED_STATUSES:
        return
    if changes is None:
        raise Decided(plan)
    for key, value in changes.items():
        if key in AFTER_DECISION:
            continue
        if key in ("name", "customer", "customer_id", "status") and value == getattr(plan, key):
            continue
        raise Decided(plan)


# --------------------------------------------------------------------------------------------
# Permissions
# --------------------------------------------------------------------------------------------


def can_edit(user: User, plan: Plan) -> bool:
    return user.role == "admin" or plan.owner_id == user.id


def require_edit(user: User, plan: Plan) -> None:
    """Forbidden unless `user` may change `plan`: the first check of every change, before
    its input is read (QA: a non-owner's edit was validated, then refused, typed input lost)."""
    if not can_edit(user, plan):
        raise Forbidden("Only the plan's owner or an admin can change it.")


_require_edit = require_edit


# --------------------------------------------------------------------------------------------
# Pricing
# --------------------------------------------------------------------------------------------


def _book(session: Session, price_list_id: int | None) -> PriceBook | None:
    if price_list_id is None:
        return None
    try:
        return catalog.price_book_for(session=session, price_list_id=price_list_id)
    except catalog.NotFound as e:
        raise Invalid("price_list_id", e.message) from e  # in the reader's language


def _current_list_id(session: Session) -> int | None:
    pl = catalog.current_price_list(session=session)
    return pl.id if pl is not None else None


def _refuse_draft(session: Session, price_list_id: int) -> None:
    """A 422 when `price_list_id` is a draft: its prices (and exchange rate) are not
    approved. A quote priced from one printed "Price list of Dec 3, 2026" at a rate nobody
    had published (QA, re-pricing); a plan imported with `reprice: false` and a draft's id
    was priced from it and could be sent (QA, import)."""
    chosen = session.get(PriceList, price_list_id)
    if chosen is not None and chosen.status == "draft":
        raise errors.Invalid(
            N_("price list %(id)s is a draft: publish it before pricing a plan with it"),
            field="price_list_id",
            id=price_list_id,
        )


def _compute(
    session: Session, workload: EstimateRequest | Mapping[str, Any], price_list_id: int | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload dump, result dump) for `workload` priced with `price_list_id`.

    A phased workload (``{"schedule": …}``) is priced by `app.plans.schedule`."""
    if schedule.is_schedule(workload):
        assert isinstance(workload, Mapping)
        try:
            return schedule.compute(workload, _book(session, price_list_id))
        except schedule.ScheduleError as e:
            if errors.RESERVED_PARAMS & set(e.params):  # said in English, never a 500
                raise errors.Invalid(e.message % e.params, field=e.field) from e
            raise errors.Invalid(e.message, field=e.field, **e.params) from e
    try:
        req = (
            workload
            if isinstance(workload, EstimateRequest)
            else EstimateRequest.model_validate(workload)
        )
    except ValidationError as e:
        # Worded by the web layer in the reader's language, as the API's own 422s are.
        raise errors.InvalidNested([dict(err) for err in e.errors()], prefix=("workload",)) from e
    try:
        res = estimate(req, prices=_book(session, price_list_id))
    except InputError as e:
        # The engine names the field inside the workload; the API body nests it.
        raise InputError(f"workload.{e.field}", e.message) from e
    return req.model_dump(mode="json"), res.model_dump(mode="json")


def _phase_currency(phases: Sequence[schedule.PhaseIn | Mapping[str, Any]]) -> str:
    """A phased plan's currency: its first workload phase's, else TWD."""
    for p in phases:
        w = p.workload if isinstance(p, schedule.PhaseIn) else p.get("workload")
        ccy = w.get("currency") if isinstance(w, Mapping) else getattr(w, "currency", None)
        if ccy in ("TWD", "USD"):
            return str(ccy)
    return "TWD"


def plan_currency(plan: Plan) -> str:
    """The currency the plan is priced in: its workload's (a phased plan's schedule's), as
    saved. A page's display currency never changes it (QA: saving from the planner with the
    US$ display switch on moved a NT$ customer's plan to US$)."""
    workload = plan.workload or {}
    sched = workload.get(schedule.SCHEDULE_KEY) or {}
    return str(
        sched.get("currency")
        or workload.get("currency")
        or (plan.result.get("cost") or {}).get("currency")
        or "TWD"
    )


def _workload_or_phases(
    workload: EstimateRequest | Mapping[str, Any] | None,
    phases: Sequence[schedule.PhaseIn | Mapping[str, Any]] | None,
    currency: str | None = None,
) -> EstimateRequest | Mapping[str, Any]:
    """The workload to store: the one given, or the phases as a phased workload."""
    if phases is not None and workload is not None:
        raise Invalid("phases", N_("give either a workload or phases, not both"))
    if phases is not None:
        return schedule.schedule_workload(phases, currency or _phase_currency(phases))
    if workload is None:
        raise Invalid("workload", N_("a plan needs a workload or phases"))
    return workload


@dataclass(frozen=True, slots=True)
class QuoteDefaults:
    """Settings a quote takes its defaults from (app.settings: payment terms, discount limit).

    `payment_terms` empty: the standard sentence, translated into the customer's language."""

    payment_terms: str = ""
    sales_discount_limit_pct: Decimal = DEFAULT_SALES_DISCOUNT_LIMIT

    @classmethod
    def from_settings(cls, settings: Settings) -> QuoteDefaults:
        return cls(settings.payment_terms, settings.sales_discount_limit_pct)


def today() -> date:
    """The date quotes are issued, valid and expire by: Taipei's (app.dates.business_today)."""
    return business_today()


def _fx(book: PriceBook | None, currency: str) -> pricing.Fx | None:
    if book is None:
        return None
    for r in book.fx:
        if currency in (r.base, r.quote) and book.currency in (r.base, r.quote):
            return pricing.Fx(r.base, r.quote, Decimal(str(r.rate)), r.as_of)
    return None


#: A plan naming a customer that does not exist: its own field is wrong (422), not the URL.
NO_SUCH_CUSTOMER: Final = N_("no customer %(id)s: choose one from GET /api/v1/customers")


def _linked_customer(session: Session, customer_id: int) -> Customer:
    """The customer a plan's `customer_id` names; a 422 naming the field when there is none."""
    try:
        return customers.get_customer(session=session, customer_id=customer_id)
    except customers.CustomerNotFound:
        raise errors.Invalid(NO_SUCH_CUSTOMER, field="customer_id", id=customer_id) from None


OTHER_CUSTOMER: Final = N_(
    "names another customer than customer_id %(id)s, %(name)s: leave it out or give that name"
)


def _same_customer(text: str | None, linked: Customer) -> None:
    """A plan given both a customer's name and a customer record must name that record (QA:
    "Acme" with the id of Beta Corp was saved, listed as Acme and quoted to Beta)."""
    if text and text.strip().casefold() != linked.name.strip().casefold():
        raise errors.Invalid(OTHER_CUSTOMER, field="customer", id=linked.id, name=linked.name)


def _customer(session: Session, customer_id: int | None) -> Customer | None:
    return _linked_customer(session, customer_id) if customer_id is not None else None


def _quote_values(
    session: Session,
    *,
    quote: QuoteIn | Mapping[str, Any],
    result: Mapping[str, Any],
    price_list_id: int | None,
    customer_id: int | None,
    defaults: QuoteDefaults,
    currency: str | None = None,
) -> dict[str, Any]:
    """The plan columns a quote sets: the stored quote, its totals and its validity date.

    Prices are in `currency`, else the customer's billing currency, else the plan's."""
    q = quote if isinstance(quote, QuoteIn) else QuoteIn.model_validate(quote)
    customer = _customer(session, customer_id)
    cost = result.get("cost") or {}
    plan_currency = str(cost.get("currency") or "TWD")
    if currency is None:
        currency = customer.currency if customer is not None else plan_currency
    lang = customer.language if customer is not None else "zh-TW"
    terms = defaults.payment_terms or translations(lang).gettext(DEFAULT_PAYMENT_TERMS)
    book = _book(session, price_list_id) if currency != plan_currency or currency == "USD" else None
    try:
        stored = pricing.resolve(
            q,
            options=list(cost.get("options") or []),
            plan_currency=plan_currency,
            currency=currency,
            hours_per_month=float(cost.get("hours_per_month") or 730.0),
            export=bool(customer.export) if customer is not None else False,
            default_terms=terms,
            today=today(),
            fx=_fx(book, "USD" if "USD" in (currency, plan_currency) else currency),
        )
    except pricing.QuoteInputError as e:
        raise Invalid(e.field, e.message_id, **e.params) from e
    if customer is not None and pricing.domestic_at_zero(
        export=customer.export, tax_rate=stored["tax_rate"]
    ):
        # Refused when saved, not only when sent: a draft can be shared and downloaded, and
        # it told a domestic customer "營業稅 0%，外銷零稅率" (QA).
        raise errors.Invalid(DOMESTIC_AT_ZERO, field="quote.tax_rate", name=customer.name)
    return {
        "quote": stored,
        "quote_totals": pricing.totals(stored).public(),
        "valid_until": date.fromisoformat(stored["valid_until"]),
    }


def _phase_lines_follow(quote: Mapping[str, Any], result: Mapping[str, Any]) -> QuoteIn:
    """A saved quote after its plan's phases changed: every line quoting a cost option is
    quoted again from the new phases at the new prices, keeping its discount and
    description (a removed phase's line goes; when the quote had a line per phase, a new
    phase gets one); free lines (NAS, installation …) stay as they were."""
    keys = [str(o["key"]) for o in (result.get("cost") or {}).get("options") or []]
    phase_keys = [k for k in keys if k.startswith("phase-")]
    given = quote_input(quote)  # free lines as saved, terms kept, an expired validity dropped
    lines: list[dict[str, Any]] = []
    seen: set[str] = set()
    for line in given["lines"]:
        key = str(line.get("option_key") or "")
        if not key:
            lines.append(line)
        elif key in keys:
            seen.add(key)
            kept = {k: line[k] for k in ("description", "discount_pct") if line.get(k)}
            lines.append({"option_key": key, **kept})
    had_phases = any(
        str(line.get("option_key", "")).startswith("phase-") for line in given["lines"]
    )
    # A plan turned into phases: its one workload's option lines have no option left, and
    # the quote is quoted a line per phase, as a new phased quote is (QA: its lines all went,
    # and the quote's NT$1,000 off was "more than the lines come to" on every phase save).
    lost_all = any(line.get("option_key") for line in given["lines"]) and not any(
        line.get("option_key") for line in lines
    )
    if had_phases or lost_all:
        # A plain plan's one quoted option was its workload, now phase 1: that line's
        # discount stays with it (QA: "Save phases" on a quote with 10% off its contract
        # line dropped the 10%); with several option lines it is not known whose it was.
        quoted = [ln for ln in given["lines"] if ln.get("option_key")]
        carried = (
            {"discount_pct": quoted[0]["discount_pct"]}
            if lost_all and len(quoted) == 1 and quoted[0].get("discount_pct")
            else {}
        )
        lines += [
            {"option_key": k, **(carried if k == schedule.phase_key(0) else {})}
            for k in phase_keys
            if k not in seen
        ]
    return QuoteIn.model_validate({**given, "lines": lines})


def quote_input(stored: Mapping[str, Any], *, option_items: bool = True) -> dict[str, Any]:
    """A stored quote as the `quote` a new plan takes, every amount explicit, so that its
    lines, discounts and tax add up to the same totals (export, duplicate). An expired
    validity is left out: the new draft is valid for the default period again.

    A line whose unit price × quantity × months is not whole (saved before that rule) is
    given as one item at its printed amount (`_as_one_item`); `option_items=False` leaves
    option lines as stored, for a reprice to tell their option's values first."""
    currency = str(stored.get("currency") or "TWD")
    lines = []
    for line in stored.get("lines") or []:
        out: dict[str, Any] = {k: line[k] for k in ("option_key", "description") if line.get(k)}
        for k in ("quantity", "unit_price", "months", "discount_pct"):
            if line.get(k) is not None:
                out[k] = str(line[k])
        unit = line.get("unit")
        if unit in ("item", "hour"):
            # A one-off or hourly line: stored with months 1, given without, and with its
            # unit (a free line given months reads as monthly; an option quoted as one item
            # stays one; an option's hourly unit is its option's own).
            out.pop("months", None)
            if unit == "item" or not line.get("option_key"):
                out["unit"] = unit
        if (option_items or not line.get("option_key")) and not pricing.multiplies_out(
            line, currency
        ):
            _as_one_item(out, line, currency)
        lines.append(out)
    quote: dict[str, Any] = {"lines": lines}
    for k in ("discount_pct", "discount_amount", "tax_rate", "valid_until", "payment_terms"):
        if stored.get(k) is not None:
            quote[k] = str(stored[k])
    quote["include_cloud_comparison"] = bool(stored.get("include_cloud_comparison"))
    return without_expired_validity(quote)


def _as_one_item(out: dict[str, Any], line: Mapping[str, Any], currency: str) -> None:
    """`out` (line `line` as input) as one item at the amount its document printed. For a
    line saved before amounts had to multiply out (NT$35,001 × 2.5): a duplicate, export or
    reprice is then a quote that can be saved, not a 422 on a line nobody just typed."""
    out.update(
        unit="item",
        unit_price=str(pricing.round_money(pricing.gross(line), currency)),
        quantity="1",
    )
    out.pop("months", None)


def without_expired_validity(quote: dict[str, Any]) -> dict[str, Any]:
    """`quote` without a `valid_until` in the past: a new draft is valid for the default
    period again (pricing.resolve refuses a past date)."""
    if quote.get("valid_until") and date.fromisoformat(str(quote["valid_until"])) < today():
        quote.pop("valid_until")
    return quote


def _carry_to_customer(
    session: Session, plan: Plan, quote: Mapping[str, Any], customer_id: int | None
) -> dict[str, Any]:
    """A quote moved to another customer: what came from the old customer is derived again
    for the new one — its default tax rate, the standard terms in its language, and option
    prices in its currency — and what someone set stays. A free line priced in the old
    currency cannot be converted without guessing: it is refused, naming the line."""
    stored = plan.quote or {}
    q = dict(quote)
    old = _customer(session, plan.customer_id)
    old_default = EXPORT_TAX_RATE if old is not None and old.export else DOMESTIC_TAX_RATE
    stored_tax = stored.get("tax_rate")
    if (
        q.get("tax_rate") is not None
        and stored_tax is not None
        and pricing.dec(q["tax_rate"]) == pricing.dec(stored_tax) == old_default
    ):
        q.pop("tax_rate")  # the old customer's default: the new one's applies
    if is_default_terms(q.get("payment_terms")):
        q.pop("payment_terms")
    new = _customer(session, customer_id)
    plan_currency = str((plan.result.get("cost") or {}).get("currency") or "TWD")
    old_currency = str(stored.get("currency") or plan_currency)
    new_currency = new.currency if new is not None else plan_currency
    if str(q.get("currency") or "").upper() == old_currency:
        q.pop("currency")  # read back before the move: the new customer's currency applies
    if new_currency == old_currency:
        return q
    was = {
        (str(ln.get("option_key") or ""), str(ln.get("description") or "")): ln.get("unit_price")
        for ln in stored.get("lines") or []
    }
    lines = []
    for i, given in enumerate(q.get("lines") or []):
        line = dict(given)
        key = (str(line.get("option_key") or ""), str(line.get("description") or ""))
        price = line.get("unit_price")
        carried = (
            price is not None
            and was.get(key) is not None
            and pricing.dec(price) == pricing.dec(was[key])
        )
        if carried and line.get("option_key"):
            line.pop("unit_price")  # the option's own price again, in the new currency
        elif carried:
            raise errors.Invalid(
                "is in %(old)s and the customer is billed in %(new)s: enter this line's price "
                "in %(new)s",
                field=f"quote.lines.{i}.unit_price",
                old=old_currency,
                new=new_currency,
            )
        lines.append(line)
    q["lines"] = lines
    off = q.get("discount_amount")
    if (
        off not in (None, "")
        and pricing.dec(off) > 0
        and pricing.dec(off) == pricing.dec(stored.get("discount_amount") or 0)
    ):
        # A fixed amount off in the old currency: converted it would be an odd figure no
        # one agreed to, so it is asked for again, as a free line's price is.
        raise errors.Invalid(
            "is in %(old)s and the customer is billed in %(new)s: enter the discount in %(new)s",
            field="quote.discount_amount",
            old=old_currency,
            new=new_currency,
        )
    return q


def _billed_anew(session: Session, plan: Plan) -> bool:
    """The quote's customer is billed in another currency than the quote is in (its record
    changed since): a save converts the quote as a move to that customer would, rather than
    print the same numbers under the new currency."""
    customer = _customer(session, plan.customer_id)
    stored = str((plan.quote or {}).get("currency") or "")
    return customer is not None and bool(stored) and customer.currency != stored


def needs_discount_approval(plan: Plan, *, owner: User, limit_pct: Decimal) -> bool:
    """True when the quote's deepest discount is over the owner's limit and not yet approved
    at least that deep (admins have no limit)."""
    if plan.quote is None or owner.role == "admin":
        return False
    deepest = pricing.max_discount_pct(plan.quote)
    if deepest <= limit_pct:
        return False
    approved = plan.discount_approved_pct
    return approved is None or Decimal(approved) < deepest


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def get_plan(*, session: Session, plan_id: int) -> Plan:
    """The plan; a sent quote past its validity date is marked expired on the way."""
    plan = session.get(Plan, plan_id)
    if plan is None:
        # As an id no row can have answers (app/web/path_ids.py): at the path's plan_id,
        # in the request's language
        raise NotFound(N_("There is no plan %(id)s."), field="plan_id", where="path", id=plan_id)
    if plan.status == "sent" and plan.valid_until is not None and plan.valid_until < today():
        expire_due(session=session)
        session.refresh(plan)
    return plan


def expire_due(*, session: Session) -> int:
    """Mark every sent quote past its validity date as expired; returns how many.

    Expiry is the passing of time, not anybody's save: the version does not change (a save
    based on the current version still applies), and the next revision records the status."""
    stmt = (
        update(Plan)
        .where(
            col(Plan.status) == "sent",
            col(Plan.valid_until).is_not(None),
            col(Plan.valid_until) < today(),
        )
        .values(status="expired")
        .execution_options(synchronize_session=False)
    )
    n = int(session.execute(stmt).rowcount or 0)  # type: ignore[attr-defined]
    if n:
        session.commit()
    return n


@dataclass(frozen=True, slots=True)
class Page:
    items: list[Plan]
    total: int
    page: int
    per_page: int


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def list_plans(
    *,
    session: Session,
    search: str | None = None,
    status: str | None = None,
    owner_id: int | None = None,
    tier: str | None = None,
    customer: str | None = None,
    customer_id: int | None = None,
    archived: bool = False,
    sort: str = "-updated_at",
    page: int = 1,
    per_page: int = 25,
) -> Page:
    """One page of plans (without workload and result); `sort` is a field, '-' for descending.

    `search` matches name, customer, quote number or the customer's 統一編號 anywhere,
    case-insensitively; the other
    filters are exact. Archived plans are listed only with `archived=True`.
    """
    expire_due(session=session)
    field = sort.removeprefix("-")
    if field not in SORTS:
        raise Invalid(
            "sort",
            _("must be one of %(allowed)s, '-' before one for descending")
            % {"allowed": ", ".join(SORTS)},
            where="query",
        )
    page = max(page, 1)
    per_page = min(max(per_page, 1), MAX_PER_PAGE)
    conds: list[Any] = [col(Plan.archived) == archived]
    if search and search.strip():
        pattern = _like(search.strip())
        # A customer's 統一編號 finds its plans too (QA searched by it and found none).
        by_tax_id = select(Customer.id).where(col(Customer.tax_id).ilike(pattern, escape="\\"))
        conds.append(
            or_(
                col(Plan.name).ilike(pattern, escape="\\"),
                col(Plan.customer).ilike(pattern, escape="\\"),
                col(Plan.quote_number).ilike(pattern, escape="\\"),
                col(Plan.customer_id).in_(by_tax_id),
            )
        )
    if status:
        conds.append(col(Plan.status) == status)
    if owner_id is not None:
        conds.append(col(Plan.owner_id) == owner_id)
    if tier:
        conds.append(col(Plan.tier) == tier)
    if customer:
        conds.append(col(Plan.customer) == customer)
    if customer_id is not None:
        conds.append(col(Plan.customer_id) == customer_id)
    order = col(getattr(Plan, field))
    tiebreak = col(Plan.id)
    ordering = (order.desc(), tiebreak.desc()) if sort.startswith("-") else (order, tiebreak)
    total = session.exec(select(func.count()).select_from(Plan).where(*conds)).one()
    stmt = (
        select(Plan)
        .where(*conds)
        .options(*_HEAVY_PLAN)
        .order_by(*ordering)
        .offset((page - 1) * per_page)
        .limit(per_page)
    )
    return Page(items=list(session.exec(stmt)), total=total, page=page, per_page=per_page)


def ids_for_quote_numbers(*, session: Session, text: str) -> str:
    """'Q-2026-000012, 3' → '12,3': quote numbers replaced by their plan's id (others kept,
    so a typo still gets the comparison's own error message)."""
    parts = [p.strip() for p in text.replace(" ", ",").split(",") if p.strip()]
    numbers = [p.upper() for p in parts if p.upper().startswith("Q-")]
    found: dict[str, int] = {}
    if numbers:
        stmt = select(Plan.quote_number, Plan.id).where(col(Plan.quote_number).in_(numbers))
        found = {q: i for q, i in session.exec(stmt) if i is not None}
    return ",".join(str(found.get(p.upper(), p)) for p in parts)


def list_revisions(*, session: Session, plan_id: int) -> list[PlanRevision]:
    get_plan(session=session, plan_id=plan_id)
    stmt = (
        select(PlanRevision)
        .where(PlanRevision.plan_id == plan_id)
        .options(*_HEAVY_REVISION)
        .order_by(col(PlanRevision.version))
    )
    return list(session.exec(stmt))


def get_revision(*, session: Session, plan_id: int, version: int) -> PlanRevision:
    stmt = select(PlanRevision).where(
        PlanRevision.plan_id == plan_id, PlanRevision.version == version
    )
    rev = session.exec(stmt).first()
    if rev is None:
        raise NotFound(
            N_("plan %(plan)s has no version %(version)s"), plan=plan_id, version=version
        )
    return rev


#: The history summary of a save that sends the quote (app.quotes.service.send_quote).
SENT_SUMMARY: Final = "sent"


@dataclass(frozen=True)
class Editions:
    """The customer's numbering of a plan's quote: its sends, in order.

    Every save is a version (optimistic concurrency, the history), so the first quote a
    customer received could read "version 3" (created, quoted, sent) and one revision sent
    again "version 5": a procurement officer asks for the missing ones (QA). What the
    customer reads is the edition: the n-th revision sent is edition n, and a revision not
    sent (a draft) is the edition it becomes if it is sent next.
    """

    sends: tuple[int, ...]  # the versions whose save sent the quote, ascending

    def of(self, version: int | None) -> int | None:
        """The edition of revision `version` (None for None)."""
        if version is None:
            return None
        sent = sum(1 for v in self.sends if v <= version)
        return sent if version in self.sends else sent + 1


def editions(*, session: Session, plan_id: int | None) -> Editions:
    """The plan's sends, read from its history (one indexed query)."""
    if plan_id is None:
        return Editions(())
    stmt = (
        select(PlanRevision.version)
        .where(PlanRevision.plan_id == plan_id, PlanRevision.change_summary == SENT_SUMMARY)
        .order_by(col(PlanRevision.version))
    )
    return Editions(tuple(session.exec(stmt).all()))


def public(*, session: Session, plan: Plan) -> PlanPublic:
    """The API's view of `plan`, with the customer's numbers of its sent and decided
    revisions beside the history's (`Editions`): an integrator filing the PDF reads the
    version it prints, not the save counter."""
    out = PlanPublic.model_validate(plan, from_attributes=True)
    if plan.sent_version is not None or plan.decision_version is not None:
        numbered = editions(session=session, plan_id=plan.id)
        out.sent_edition = numbered.of(plan.sent_version)
        out.decision_edition = numbered.of(plan.decision_version)
    return out


# --------------------------------------------------------------------------------------------
# Comparing
# --------------------------------------------------------------------------------------------


def result_summary(result: Mapping[str, Any]) -> dict[str, Any]:
    """The figures of a result worth naming in a diff (the whole result is kilobytes)."""
    gpu = result.get("gpu") or {}
    cost = result.get("cost") or {}
    return {
        "tier": result.get("tier"),
        "gpu": f"{gpu.get('count')} × {gpu.get('name')}" if gpu else None,
        "cheapest_total": headline_total(result),
        "currency": cost.get("currency"),
    }


def headline_option(cost: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The option a plan is known by: its `cost.cheapest` (a phased plan's is the whole
    schedule, not its cheapest phase), else the runnable option with the lowest total;
    never one that cannot run the plan (None when none can)."""
    options = cost.get("options") or []
    named = next((o for o in options if o.get("key") == cost.get("cheapest")), None)
    if named is not None:
        return named
    runnable = [o for o in options if o.get("feasible", True)]
    return min(
        runnable,
        key=lambda o: math.inf if o.get("total") is None else float(o["total"]),
        default=None,
    )


def headline_total(result: Mapping[str, Any]) -> float | None:
    """The total a plan is known by (`headline_option`'s)."""
    option = headline_option(result.get("cost") or {})
    return float(option["total"]) if option and option.get("total") is not None else None


def _flatten_phases(
    prefix: str, a: Any, b: Any, out_a: dict[str, Any], out_b: dict[str, Any]
) -> None:
    """Phases side by side, numbered from 1: a phase of the same kind on both sides is
    compared field by field (`workload.schedule.phases.2.months`); one added, removed or
    of another kind is one entry (`workload.schedule.phases.3`)."""
    la = list(a) if isinstance(a, list) else []
    lb = list(b) if isinstance(b, list) else []
    for i in range(max(len(la), len(lb))):
        pa = la[i] if i < len(la) else None
        pb = lb[i] if i < len(lb) else None
        key = f"{prefix}.{i + 1}"
        if isinstance(pa, Mapping) and isinstance(pb, Mapping) and pa.get("kind") == pb.get("kind"):
            _flatten(key, pa, out_a)
            _flatten(key, pb, out_b)
        else:
            out_a[key] = pa
            out_b[key] = pb


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping) and value:
        for k, v in value.items():
            _flatten(f"{prefix}.{k}", v, out)
    else:
        out[prefix] = value


def snapshot(obj: Plan | PlanRevision) -> dict[str, Any]:
    return {f: getattr(obj, f) for f in SNAPSHOT}


def diff_snapshots(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, before, after) for every field that differs; workload fields are dotted
    (`workload.seq_len`) and a result is compared by its summary (`result.tier`)."""
    flat_a: dict[str, Any] = {}
    flat_b: dict[str, Any] = {}
    for f in SNAPSHOT:
        if f == "result":
            _flatten("result", result_summary(a.get(f) or {}), flat_a)
            _flatten("result", result_summary(b.get(f) or {}), flat_b)
        elif f == "workload" and (schedule.is_schedule(a.get(f)) or schedule.is_schedule(b.get(f))):
            wa, wb = dict(a.get(f) or {}), dict(b.get(f) or {})
            sa = dict(wa.pop(schedule.SCHEDULE_KEY, None) or {})
            sb = dict(wb.pop(schedule.SCHEDULE_KEY, None) or {})
            _flatten_phases(
                "workload.schedule.phases",
                sa.pop("phases", None),
                sb.pop("phases", None),
                flat_a,
                flat_b,
            )
            _flatten("workload.schedule", sa, flat_a)
            _flatten("workload.schedule", sb, flat_b)
            _flatten("workload", wa, flat_a)
            _flatten("workload", wb, flat_b)
        else:
            _flatten(f, a.get(f), flat_a)
            _flatten(f, b.get(f), flat_b)
    keys = list(dict.fromkeys([*flat_a, *flat_b]))
    return [(k, flat_a.get(k), flat_b.get(k)) for k in keys if flat_a.get(k) != flat_b.get(k)]


def diff_revisions(a: PlanRevision, b: PlanRevision) -> list[tuple[str, Any, Any]]:
    """What changed from revision `a` to revision `b` (see `diff_snapshots`)."""
    return diff_snapshots(snapshot(a), snapshot(b))


def _changed_since(session: Session, plan: Plan, version: int) -> list[str]:
    assert plan.id is not None
    try:
        then = get_revision(session=session, plan_id=plan.id, version=version)
    except NotFound:
        return []
    return [field for field, _, _ in diff_snapshots(snapshot(then), snapshot(plan))]


def content_changed_since(session: Session, plan: Plan, version: int | None) -> list[str]:
    """The fields of what a user sees (everything in a revision but its status) that changed
    since `version` ([] for None or the current version).

    An action taken on a page loaded at `version` (send, approve a discount) still means what
    the user saw when only the status moved or a revision changed nothing of the content (a
    discount approval): a double-clicked Send, or a Send after the admin approved."""
    if version is None or version == plan.version:
        return []
    return [f for f in _changed_since(session, plan, version) if f != "status"]


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _revision(plan: Plan, *, author: User, summary: str) -> PlanRevision:
    assert plan.id is not None and author.id is not None
    return PlanRevision(
        plan_id=plan.id,
        version=plan.version,
        author_id=author.id,
        change_summary=summary[:SUMMARY_MAX],
        **snapshot(plan),
    )


def create_plan(
    *,
    session: Session,
    owner: User,
    name: str,
    workload: EstimateRequest | Mapping[str, Any] | None = None,
    phases: Sequence[schedule.PhaseIn | Mapping[str, Any]] | None = None,
    currency: str | None = None,
    customer: str = "",
    status: str = "draft",
    notes: str = "",
    tags: list[str] | None = None,
    customer_id: int | None = None,
    quote: QuoteIn | Mapping[str, Any] | None = None,
    quote_defaults: QuoteDefaults | None = None,
    price_list_id: int | None = None,
    commit: bool = True,
) -> Plan:
    """Validate and price the workload (or the phases of a phased plan) with `price_list_id`
    (default: the current price list), save version 1 (`commit=False`: flushed, for a
    caller's transaction)."""
    assert owner.id is not None
    if status in ANSWER_STATUSES:
        raise Invalid("status", LIFE_STATUS_MESSAGE)
    workload = _workload_or_phases(workload, phases, currency)
    if status in LIFE_STATUSES and quote is not None:
        raise Invalid("status", SENT_BY_SENDING)
    if price_list_id is None:
        price_list_id = _current_list_id(session)
    else:
        _refuse_draft(session, price_list_id)
    workload_dump, result = _compute(session, workload, price_list_id)
    if customer_id is not None:
        linked = _linked_customer(session, customer_id)
        _same_customer(customer, linked)
        customer = linked.name
    quoted = (
        _quote_values(
            session,
            quote=quote,
            result=result,
            price_list_id=price_list_id,
            customer_id=customer_id,
            defaults=quote_defaults or QuoteDefaults(),
        )
        if quote is not None
        else {}
    )
    plan = Plan(
        customer_id=customer_id,
        **quoted,
        # A placeholder until the id exists: the quote number is derived from it.
        quote_number=f"pending-{uuid.uuid4().hex}",
        name=name,
        customer=customer,
        owner_id=owner.id,
        status=status,
        notes=notes,
        tags=list(tags or []),
        price_list_id=price_list_id,
        tier=str(result.get("tier", "")),
        workload=workload_dump,
        result=result,
    )
    session.add(plan)
    session.flush()
    plan.quote_number = f"Q-{plan.created_at.year}-{plan.id:06d}"
    session.add(_revision(plan, author=owner, summary="created"))
    if not commit:
        session.flush()
        return plan
    session.commit()
    session.refresh(plan)
    return plan


def _save(
    session: Session,
    plan: Plan,
    *,
    expected_version: int,
    values: dict[str, Any],
    actor: User,
    summary: str,
    guard: Guard | None = None,
) -> Plan:
    """Write `values` if the plan is still at `expected_version`, plus the new revision, in
    one transaction. The UPDATE's WHERE clause is the arbiter: of two writers that read the
    same version only one matches a row; the other gets a Conflict (nothing is lost).

    `guard` runs inside that transaction once the plan's row is written (so no other writer
    of the plan can commit before this one does); whatever it raises rolls the write back."""
    assert plan.id is not None
    plan_id = plan.id
    now = utcnow()
    stmt = (
        update(Plan)
        .where(col(Plan.id) == plan_id, col(Plan.version) == expected_version)
        .values(**values, version=expected_version + 1, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    if session.execute(stmt).rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        current = get_plan(session=session, plan_id=plan_id)
        session.refresh(current)
        raise Conflict(
            current_version=current.version,
            changed_fields=_changed_since(session, current, expected_version),
        )
    if guard is not None:
        try:
            guard(session)
        except BaseException:
            session.rollback()
            raise
    session.expire(plan)
    plan = get_plan(session=session, plan_id=plan_id)
    session.add(_revision(plan, author=actor, summary=summary))
    session.commit()
    session.refresh(plan)
    return plan


#: What a customer's answer brings back from the revision they were sent: its content (the
#: internal notes and tags, never shown to them, stay as they are now).
AS_SENT: Final = ("name", "customer", "customer_id", "quote", "price_list_id", "workload", "result")


def as_sent(session: Session, plan: Plan) -> dict[str, Any]:
    """The plan columns of its sent revision, when it has been changed since it was sent
    ({} when not): an answer is to the revision the customer saw, so the plan becomes that
    revision again — a reprice or edit saved after sending stays in the history only.
    Before, a plan repriced after sending read "accepted version 3" over version 4's total."""
    if plan.sent_version is None or plan.sent_version == plan.version:
        return {}
    sent = session.exec(
        select(PlanRevision).where(
            PlanRevision.plan_id == plan.id, PlanRevision.version == plan.sent_version
        )
    ).first()
    if sent is None:
        return {}
    values = {f: getattr(sent, f) for f in AS_SENT}
    quote = values.get("quote")
    values["quote_totals"] = pricing.totals(quote).public() if quote else None
    values["valid_until"] = date.fromisoformat(quote["valid_until"]) if quote else None
    values["tier"] = str((values.get("result") or {}).get("tier", ""))
    return values


def record_change(
    *,
    session: Session,
    plan: Plan,
    values: dict[str, Any],
    actor: User,
    summary: str,
    guard: Guard | None = None,
) -> Plan:
    """Write `values` on top of the plan's current version as a new revision (the quote's
    life: sent, accepted, declined). Conflict if someone saved in between; `guard` as in
    `_save`."""
    return _save(
        session,
        plan,
        expected_version=plan.version,
        values=values,
        actor=actor,
        summary=summary,
        guard=guard,
    )


@dataclass(frozen=True, slots=True)
class Saved:
    """A save and what it did to the quote on its own (a new workload moves its lines)."""

    plan: Plan
    #: Option lines whose figures moved with their option: {line (1-based, as before),
    #: option_key, label, unit_price/list_price/amount _before and _after, typed_price}.
    quote_lines: list[dict[str, Any]]
    #: Lines taken out: their option is gone (as `Reprice.removed_lines`).
    removed_lines: list[dict[str, Any]]


def update_plan(
    *,
    session: Session,
    plan_id: int,
    expected_version: int,
    changes: Mapping[str, Any],
    actor: User,
    quote_defaults: QuoteDefaults | None = None,
) -> Plan:
    """Save `changes` made on top of `expected_version` (see `save_plan`)."""
    return save_plan(
        session=session,
        plan_id=plan_id,
        expected_version=expected_version,
        changes=changes,
        actor=actor,
        quote_defaults=quote_defaults,
    ).plan


def save_plan(
    *,
    session: Session,
    plan_id: int,
    expected_version: int,
    changes: Mapping[str, Any],
    actor: User,
    quote_defaults: QuoteDefaults | None = None,
) -> Saved:
    """Save `changes` made on top of `expected_version`.

    Conflict when the plan has moved on since (with the fields changed since then). A new
    workload is priced with the plan's own price list (a saved quote keeps the prices of its
    day; `reprice` moves it to another list), and a saved quote follows it: its option lines
    take their option's new figures wherever they held the option's own, as a reprice does
    (`_quote_follows_prices`); a typed price stays, judged against the new list price; a line
    whose option is gone is taken out and reported. A save that changes nothing writes
    nothing.
    """
    plan = get_plan(session=session, plan_id=plan_id)
    _require_edit(actor, plan)
    # Before the version check: reloading would not help, the answer is final.
    require_undecided(plan, changes)
    if expected_version > plan.version:
        # No one saved version 99 of a plan at version 3: not a conflict to reload (QA read
        # "changed by someone else" with nothing changed).
        raise Invalid(
            "version",
            _("is ahead of the plan, which is at version %(n)s: send the version you read")
            % {"n": plan.version},
        )
    if plan.version != expected_version:
        raise Conflict(
            current_version=plan.version,
            changed_fields=_changed_since(session, plan, expected_version),
        )
    values = dict(changes)
    removed: list[dict[str, Any]] = []
    if "phases" in values:
        phases = values.pop("phases")
        current = (plan.workload or {}).get(schedule.SCHEDULE_KEY) or {}
        currency = current.get("currency") or (plan.result.get("cost") or {}).get("currency")
        values["workload"] = _workload_or_phases(values.get("workload"), phases, currency)
    unknown = set(values) - set(EDITABLE)
    if unknown:
        raise Invalid(sorted(unknown)[0], "cannot be changed by a save")
    has_quote = plan.quote is not None or values.get("quote") is not None
    status = values.get("status", plan.status)
    if status != plan.status and (
        status in ANSWER_STATUSES or (status in LIFE_STATUSES and has_quote)
    ):
        # Only sending, the customer's answer and the validity date move a quote on.
        raise Invalid("status", LIFE_STATUS_MESSAGE)
    if status == "sent" and plan.quote is None and values.get("quote") is not None:
        # A plan marked sent by hand (the old pipeline marker) gets its first quote: that
        # quote has not been sent, and only sending runs its checks (an unapproved discount,
        # the tax rate). QA: a 50 % discount sat on a plan listed as sent, the share page
        # and the PDF saying draft. Asked for in the same save, it is refused as at creation.
        if "status" in values:
            raise Invalid("status", SENT_BY_SENDING)
        values["status"] = status = "draft"
    if "customer_id" in values:
        linked = _linked_customer(session, values["customer_id"])
        _same_customer(values.get("customer"), linked)
        values["customer"] = linked.name
    elif "customer" in values and plan.customer_id is not None:
        # A linked plan is named by its record: a name alone may not contradict it (QA: the
        # edit form saved "Someone else" on a plan whose quote and PDF went to its record).
        linked = _linked_customer(session, plan.customer_id)
        _same_customer(values["customer"], linked)
        values["customer"] = linked.name
    if "workload" in values:
        values["workload"], values["result"] = _compute(
            session, values["workload"], plan.price_list_id
        )
        values["tier"] = str(values["result"].get("tier", ""))
        if values.get("quote") is None and plan.quote and schedule.is_schedule(values["workload"]):
            values["quote"] = _phase_lines_follow(plan.quote, values["result"])
        elif values.get("quote") is None and plan.quote:
            # QA: 16 → 88 GPUs left the line at the 16-GPU price, list price included, so
            # an 82% discount went out without approval.
            values["quote"], removed = _quote_follows_prices(
                session, plan, values["result"], new_workload=True
            )
    moved = "customer_id" in values and values["customer_id"] != plan.customer_id
    if plan.quote and (moved or (values.get("quote") is not None and _billed_anew(session, plan))):
        given = values.get("quote")
        base = (
            given.model_dump(mode="json", exclude_none=True)
            if isinstance(given, QuoteIn)
            else dict(given)
            if given is not None
            else quote_input(plan.quote)
        )
        values["quote"] = _carry_to_customer(
            session, plan, base, values.get("customer_id", plan.customer_id)
        )
    if values.get("quote") is not None:
        values.update(
            _quote_values(
                session,
                quote=values["quote"],
                result=values.get("result") or plan.result,
                price_list_id=plan.price_list_id,
                customer_id=values.get("customer_id", plan.customer_id),
                defaults=quote_defaults or QuoteDefaults(),
            )
        )
    before = snapshot(plan)
    after = {**before, **{k: v for k, v in values.items() if k in SNAPSHOT}}
    changed = [f for f, _, _ in diff_snapshots(before, after)]
    if not changed:
        return Saved(plan, [], [])
    quote_before = dict(plan.quote or {})
    plan = _save(
        session,
        plan,
        expected_version=expected_version,
        values=values,
        actor=actor,
        summary=", ".join(changed),
    )
    if not removed and "workload" not in values:
        return Saved(plan, [], [])
    labels = {
        str(o.get("key")): str(o.get("label") or "")
        for o in (plan.result.get("cost") or {}).get("options") or []
    }
    return Saved(plan, followed_lines(quote_before, plan.quote or {}, removed, labels), removed)


def followed_lines(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    removed: Sequence[Mapping[str, Any]],
    labels: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The option lines of quote `before` whose unit price, list price or amount differ in
    quote `after`, the same quote once its lines followed their options (`removed`: the
    lines taken out on the way, by their number in `before`)."""
    gone = {int(r["line"]) for r in removed}
    kept = [(i, line) for i, line in enumerate(before.get("lines") or [], start=1) if i not in gone]
    ccy_before = str(before.get("currency") or "TWD")
    ccy_after = str(after.get("currency") or ccy_before)
    out: list[dict[str, Any]] = []
    for (i, was), now in zip(kept, after.get("lines") or [], strict=False):
        if not was.get("option_key"):
            continue
        figures = {
            "unit_price": (was.get("unit_price"), now.get("unit_price")),
            "list_price": (was.get("list_price"), now.get("list_price")),
            "amount": (_net(was, ccy_before), _net(now, ccy_after)),
        }
        if all(_same(a, b) for a, b in figures.values()):
            continue
        row: dict[str, Any] = {
            "line": i,
            "option_key": str(was.get("option_key")),
            "label": str(
                now.get("description")
                or (labels or {}).get(str(was.get("option_key")))
                or was.get("option_key")
            ),
            # A price someone typed stays as typed while its option's list price moved.
            "typed_price": _same(*figures["unit_price"]) and not _same(*figures["list_price"]),
        }
        for name, (a, b) in figures.items():
            row[f"{name}_before"] = None if a is None else str(a)
            row[f"{name}_after"] = None if b is None else str(b)
        out.append(row)
    return out


def _net(line: Mapping[str, Any], currency: str) -> Decimal:
    """A stored line's amount after its own discount, as its document prints it."""
    return pricing.line_amount(
        unit_price=pricing.dec(line.get("unit_price") or 0),
        quantity=pricing.dec(line.get("quantity") or 1),
        months=pricing.dec(line.get("months") or 1),
        discount_pct=pricing.dec(line.get("discount_pct") or 0),
        currency=currency,
    )


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return pricing.dec(a) == pricing.dec(b)


def _copy_name(session: Session, src: Plan) -> str:
    """The duplicate's name: the source's with "(copy)" in the language its documents are
    in (the customer's, else the request's). The name heads the customer's quote: a zh-TW
    PDF read "專案 70B 推論服務 12 個月 (copy)" (QA)."""
    customer = _customer(session, src.customer_id)
    lang = customer.language if customer is not None else current_language()
    return (translations(lang).gettext("%(name)s (copy)") % {"name": src.name})[:200]


def duplicate_plan(*, session: Session, plan_id: int, actor: User, name: str | None = None) -> Plan:
    """A new draft owned by `actor` with the same workload, result, price list, customer and
    quote (its lines and terms again as of today: a draft, not the answer the source got),
    named `name` or the source's name with "(copy)"."""
    src = get_plan(session=session, plan_id=plan_id)
    assert actor.id is not None
    quoted = (
        _quote_values(
            session,
            quote=quote_input(src.quote),
            result=src.result,
            price_list_id=src.price_list_id,
            customer_id=src.customer_id,
            defaults=QuoteDefaults(),
        )
        if src.quote
        else {}
    )
    plan = Plan(
        customer_id=src.customer_id,
        **quoted,
        quote_number=f"pending-{uuid.uuid4().hex}",
        name=name or _copy_name(session, src),
        customer=src.customer,
        owner_id=actor.id,
        status="draft",
        notes=src.notes,
        tags=list(src.tags),
        price_list_id=src.price_list_id,
        tier=src.tier,
        workload=dict(src.workload),
        result=dict(src.result),
    )
    session.add(plan)
    session.flush()
    plan.quote_number = f"Q-{plan.created_at.year}-{plan.id:06d}"
    session.add(_revision(plan, author=actor, summary=f"duplicated from {src.quote_number}"))
    session.commit()
    session.refresh(plan)
    return plan


_T = TypeVar("_T")
#: How many times an action sent without a version is tried (`_unversioned`).
UNVERSIONED_ATTEMPTS: Final = 3


def _unversioned(call: Callable[[], _T], expected_version: int | None) -> _T:
    """`call()`, again when it lost a race its caller did not ask about: an action sent
    without a version acts on whatever version it finds, so a save landing between its read
    and its write is no conflict of the caller's (race QA: an archive or a reprice racing a
    PUT answered 409 "changed by someone else since you loaded it" to a caller that had
    stated no version). With a version, the Conflict is the answer."""
    for _attempt in range(UNVERSIONED_ATTEMPTS - 1):
        try:
            return call()
        except Conflict:
            if expected_version is not None:
                raise
    return call()


def _set_archived(
    session: Session, plan_id: int, actor: User, archived: bool, expected_version: int | None
) -> Plan:
    return _unversioned(
        lambda: _set_archived_once(session, plan_id, actor, archived, expected_version),
        expected_version,
    )


def _set_archived_once(
    session: Session, plan_id: int, actor: User, archived: bool, expected_version: int | None
) -> Plan:
    plan = get_plan(session=session, plan_id=plan_id)
    _require_edit(actor, plan)
    version = plan.version if expected_version is None else expected_version
    if plan.archived == archived and plan.version == version:
        return plan
    return _save(
        session,
        plan,
        expected_version=version,
        values={"archived": archived},
        actor=actor,
        summary="archived" if archived else "restored",
    )


def archive_plan(
    *, session: Session, plan_id: int, actor: User, expected_version: int | None = None
) -> Plan:
    """Hide the plan from the default list (kept, with its history)."""
    return _set_archived(session, plan_id, actor, True, expected_version)


def restore_plan(
    *, session: Session, plan_id: int, actor: User, expected_version: int | None = None
) -> Plan:
    """Bring an archived plan back to the list."""
    return _set_archived(session, plan_id, actor, False, expected_version)


@dataclass(frozen=True, slots=True)
class Reprice:
    plan: Plan
    price_list_before: int | None
    price_list_after: int | None
    currency: str
    options: list[dict[str, Any]]
    cheapest_before: float | None
    cheapest_after: float | None
    cheapest_delta: float | None
    #: Quote lines taken out because the new list does not offer their option (see
    #: `_quote_follows_prices`): {line (1-based, as printed), option_key, label, unit_price}.
    removed_lines: list[dict[str, Any]]
    quote_total_before: str | None  # the quote's total incl. tax, in its currency
    quote_total_after: str | None
    quote_currency: str | None = None


def _quote_follows_prices(
    session: Session, plan: Plan, result: Mapping[str, Any], *, new_workload: bool = False
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The plan's quote for the repriced (or, `new_workload`, recomputed) `result`: (quote
    input, lines taken out).

    A line quoting a cost option takes the new price list's unit price, quantity and months
    wherever it carried its option's own value — derived again, in the quote's currency,
    from the plan's current result and from the revision the quote was last saved with
    (a workload edit or an earlier reprice since leaves the quote's values behind the
    result) — so the quote says what the new list charges; a value someone typed stays, like
    the discounts, free lines, tax rate and terms. A line the new list cannot price is taken
    out and returned, for the reprice to report (the revision before keeps it): its option
    is gone (a GPU server or a term the list no longer offers), or it now bills another
    number of GPUs (a phase's server changed) while the line holds a typed price, which was
    agreed for the old server.

    After a workload change (`new_workload`) the number of GPUs an option bills is what
    changed: a typed price stays on its line, and the discount it now makes against the
    option's new list price is what the approval limit judges (`needs_discount_approval`).
    """
    stored = plan.quote or {}
    # An old option line that does not multiply out is made one item only once it is known
    # which of its values were its option's (those follow the new list instead).
    given = quote_input(stored, option_items=False)
    currency = str(stored.get("currency") or "") or None
    quote_currency = currency or "TWD"
    contexts = [(dict(plan.result), plan.price_list_id)]
    saved = _quote_saved_with(session, plan)
    if saved != contexts[0]:  # derived once when the quote was saved with this result
        contexts.append(saved)
    own = [
        d
        for source_result, list_id in contexts
        if (d := _derived_lines(session, given, source_result, list_id, plan, currency)) is not None
    ]
    new_options = {str(o.get("key")): o for o in (result.get("cost") or {}).get("options") or []}
    old_options = {
        str(o.get("key")): o for o in (plan.result.get("cost") or {}).get("options") or []
    }
    lines: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    for i, (line, was) in enumerate(zip(given["lines"], stored.get("lines") or [], strict=True)):
        key = str(line.get("option_key") or "")
        if not key:
            lines.append(line)
            continue
        derived = {
            f
            for f in ("unit_price", "quantity", "months")
            # An hourly or one-off line has no months (`pricing._no_months`): absent on
            # either side is not the option's own value (QA: KeyError 'months', a 500).
            # Compared in the same unit only: the option quoted as one item has quantity 1,
            # and a typed 1 hour of the same option was taken for it (and followed the
            # option's hours on a reprice).
            if line.get(f) is not None
            and any(
                d[i].get(f) is not None
                and d[i].get("unit") == was.get("unit")
                and pricing.dec(line[f]) == pricing.dec(d[i][f])
                for d in own
            )
        }
        gone = key not in new_options
        if gone and new_workload:
            # A new workload can change which server or offer an option is for ("buy:" an
            # 8-GPU server → a 4-GPU one): the line follows the option of the same kind from
            # the same provider (QA: a quoted purchase was taken out of the quote without a
            # word when 600 users chose another server than 200).
            successor = _successor(old_options.get(key) or {}, new_options.values())
            if successor is not None:
                line["option_key"] = key = successor
                gone = False
        if not gone and "unit_price" not in derived and not new_workload:
            before = (old_options.get(key) or {}).get("billed") or {}
            after = new_options[key].get("billed") or {}
            gone = before.get("gpus") is not None and before.get("gpus") != after.get("gpus")
        if gone:
            label = (old_options.get(key) or {}).get("label") or key
            removed.append(
                {
                    "line": i + 1,
                    "option_key": key,
                    "label": str(was.get("description") or label),
                    "unit_price": str(was.get("unit_price")),
                }
            )
            continue
        for f in derived:
            line.pop(f)  # the option's own value: the new option's instead
        if "unit_price" in derived:
            line.pop("unit", None)  # one item only because the old figures did not multiply
        elif not derived and not pricing.multiplies_out(was, quote_currency):
            _as_one_item(line, was, quote_currency)
        lines.append(line)
    return {**given, "lines": lines}, removed


def _successor(was: Mapping[str, Any], options: Iterable[Mapping[str, Any]]) -> str | None:
    """The key of the option that takes over from `was` after a workload change: the one of
    its kind (and, for a rental or a cloud, its provider) with the lowest total; None when
    the new result has none."""
    same = [
        o
        for o in options
        if o.get("kind") == was.get("kind")
        and (was.get("kind") == "buy" or o.get("provider") == was.get("provider"))
        and o.get("total") is not None
    ]
    best = min(same, key=lambda o: float(o["total"]), default=None)
    return str(best["key"]) if best is not None else None


def _quote_saved_with(session: Session, plan: Plan) -> tuple[dict[str, Any], int | None]:
    """(result, price list) of the oldest revision that holds the plan's quote as it is now:
    the prices the quote was last resolved with."""
    revisions = session.exec(
        select(PlanRevision)
        .where(PlanRevision.plan_id == plan.id)
        .order_by(col(PlanRevision.version).desc())
    ).all()
    found: PlanRevision | None = None
    for rev in revisions:
        if rev.quote != plan.quote:
            break
        found = rev
    if found is None:
        return dict(plan.result), plan.price_list_id
    return dict(found.result), found.price_list_id


def _derived_lines(
    session: Session,
    given: Mapping[str, Any],
    result: Mapping[str, Any],
    price_list_id: int | None,
    plan: Plan,
    currency: str | None,
) -> list[dict[str, Any]] | None:
    """The quote's lines as `price_list_id` derives them for `result` in `currency`, every
    option line without the values a user can type; None when they cannot be derived
    (an option that result does not have): then no value counts as the option's."""
    bare = [
        {k: v for k, v in ln.items() if k not in ("unit_price", "quantity", "months", "unit")}
        if ln.get("option_key")
        else ln
        for ln in given["lines"]
    ]
    try:
        values = _quote_values(
            session,
            quote={**given, "lines": bare},
            result=result,
            price_list_id=price_list_id,
            customer_id=plan.customer_id,
            defaults=QuoteDefaults(),
            currency=currency,
        )
    except (errors.DomainError, ValidationError):
        return None
    return list(values["quote"]["lines"])


def _totals(result: Mapping[str, Any]) -> dict[str, tuple[str, float]]:
    cost = result.get("cost") or {}
    return {
        o["key"]: (str(o.get("label", o["key"])), float(o["total"]))
        for o in cost.get("options", [])
        if o.get("total") is not None
    }


def _headline(result: Mapping[str, Any], totals: Mapping[str, tuple[str, float]]) -> float | None:
    cheapest = (result.get("cost") or {}).get("cheapest")
    if isinstance(cheapest, str) and cheapest in totals:
        return totals[cheapest][1]
    return min((t for _, t in totals.values()), default=None)


def reprice_plan(
    *,
    session: Session,
    plan_id: int,
    actor: User,
    price_list_id: int | None = None,
    expected_version: int | None = None,
    quote_defaults: QuoteDefaults | None = None,
) -> Reprice:
    """Recompute the plan with `price_list_id` (default: the current list) as a new revision,
    its quote priced with that list too (`_quote_follows_prices`), and report the cost
    totals before and after, option by option, and the quote lines the list cannot price.
    Without `expected_version`, a save landing meanwhile is repriced too (`_unversioned`)."""
    return _unversioned(
        lambda: _reprice_once(
            session=session,
            plan_id=plan_id,
            actor=actor,
            price_list_id=price_list_id,
            expected_version=expected_version,
            quote_defaults=quote_defaults,
        ),
        expected_version,
    )


def _reprice_once(
    *,
    session: Session,
    plan_id: int,
    actor: User,
    price_list_id: int | None,
    expected_version: int | None,
    quote_defaults: QuoteDefaults | None,
) -> Reprice:
    plan = get_plan(session=session, plan_id=plan_id)
    _require_edit(actor, plan)
    require_undecided(plan)  # the answered quote keeps the prices it was answered at
    version = plan.version if expected_version is None else expected_version
    target = price_list_id if price_list_id is not None else _current_list_id(session)
    if target is None:
        raise Invalid("price_list_id", "no published price list is in effect today to price with")
    _refuse_draft(session, target)
    before_list, before_result = plan.price_list_id, dict(plan.result)
    before_total = (plan.quote_totals or {}).get("total") if plan.quote else None
    _, result = _compute(session, plan.workload, target)
    values: dict[str, Any] = {
        "price_list_id": target,
        "result": result,
        "tier": str(result.get("tier", "")),
    }
    removed: list[dict[str, Any]] = []
    if plan.quote:
        quote, removed = _quote_follows_prices(session, plan, result)
        values.update(
            _quote_values(
                session,
                quote=quote,
                result=result,
                price_list_id=target,
                customer_id=plan.customer_id,
                defaults=quote_defaults or QuoteDefaults(),
                # The quote stays in the currency it was written in: a customer record
                # whose currency changed since moves it when the quote's customer is saved.
                currency=str(plan.quote.get("currency") or "") or None,
            )
        )
    plan = _save(
        session,
        plan,
        expected_version=version,
        values=values,
        actor=actor,
        summary=f"repriced: price list {before_list} → {target}",
    )
    old, new = _totals(before_result), _totals(result)
    options = []
    for key in dict.fromkeys([*old, *new]):
        b = old.get(key, (None, None))[1]
        a = new.get(key, (None, None))[1]
        label = (new.get(key) or old.get(key) or (key, 0.0))[0]
        delta = a - b if a is not None and b is not None else None
        options.append({"key": key, "label": label, "before": b, "after": a, "delta": delta})
    cb = _headline(before_result, old)
    ca = _headline(result, new)
    return Reprice(
        plan=plan,
        price_list_before=before_list,
        price_list_after=target,
        currency=str((result.get("cost") or {}).get("currency", "")),
        options=options,
        cheapest_before=cb,
        cheapest_after=ca,
        cheapest_delta=ca - cb if ca is not None and cb is not None else None,
        removed_lines=removed,
        quote_total_before=before_total,
        quote_total_after=(plan.quote_totals or {}).get("total") if plan.quote else None,
        quote_currency=str(plan.quote.get("currency")) if plan.quote else None,
    )


# --------------------------------------------------------------------------------------------
# Pages (lists of names for filters, revision comparisons)
# --------------------------------------------------------------------------------------------


def users_by_id(*, session: Session, ids: list[int] | None = None) -> dict[int, User]:
    """Users by id (all staff when `ids` is None): owners and revision authors by name."""
    stmt = select(User)
    if ids is not None:
        if not ids:
            return {}
        stmt = stmt.where(col(User.id).in_(set(ids)))
    return {u.id: u for u in session.exec(stmt) if u.id is not None}


def customer_named(*, session: Session, name: str) -> Customer | None:
    """The customer record whose name is `name` (trimmed, case-insensitive), or None when
    none is, or when several are (two companies of one name: the user picks, we don't guess).
    Customers belong to the company, not to one sales engineer (app.customers.service), so
    every record counts. Only a whole name matches: "Formosa" never links "Formosa Robotics"."""
    wanted = name.strip()
    if not wanted:
        return None
    # lower() on both sides in SQL (SQLite folds ASCII only), then the exact check in Python.
    stmt = (
        select(Customer)
        .where(func.lower(func.trim(col(Customer.name))) == func.lower(wanted))
        .order_by(col(Customer.id))
        .limit(10)
    )
    found = [c for c in session.exec(stmt) if c.name.strip().casefold() == wanted.casefold()]
    return found[0] if len(found) == 1 else None


def list_customers(*, session: Session, limit: int = 300) -> list[str]:
    """Distinct non-empty customer names of live plans (the customer filter's choices)."""
    stmt = (
        select(Plan.customer)
        .where(col(Plan.archived).is_(False), col(Plan.customer) != "")
        .distinct()
        .order_by(col(Plan.customer))
        .limit(limit)
    )
    return list(session.exec(stmt))


@dataclass(frozen=True, slots=True)
class RevisionComparison:
    plan: Plan
    a: PlanRevision
    b: PlanRevision
    changes: list[tuple[str, Any, Any]]
    currency: str
    options: list[dict[str, Any]]
    cheapest_before: float | None
    cheapest_after: float | None


def compare_revisions(
    *, session: Session, plan_id: int, from_version: int, to_version: int
) -> RevisionComparison:
    """What changed between two versions of a plan, with cost totals option by option."""
    plan = get_plan(session=session, plan_id=plan_id)
    a = get_revision(session=session, plan_id=plan_id, version=from_version)
    b = get_revision(session=session, plan_id=plan_id, version=to_version)
    old, new = _totals(a.result), _totals(b.result)
    options = []
    for key in dict.fromkeys([*old, *new]):
        before = old.get(key, (None, None))[1]
        after = new.get(key, (None, None))[1]
        label = (new.get(key) or old.get(key) or (key, 0.0))[0]
        delta = after - before if after is not None and before is not None else None
        options.append(
            {"key": key, "label": label, "before": before, "after": after, "delta": delta}
        )
    return RevisionComparison(
        plan=plan,
        a=a,
        b=b,
        changes=diff_revisions(a, b),
        currency=str((b.result.get("cost") or {}).get("currency", "")),
        options=options,
        cheapest_before=_headline(a.result, old),
        cheapest_after=_headline(b.result, new),
    )


# --------------------------------------------------------------------------------------------
# Phased schedules (seed 003 T16)
# --------------------------------------------------------------------------------------------


def create_t16_example(*, session: Session, owner: User, currency: str = "TWD") -> list[Plan]:
    """Seed 003 T16's two scenarios as plans owned by `owner`, built from phases like any
    phased plan (`schedule.T16_PHASES`: LoRA, full fine-tune and inference workloads the
    engine sizes; and 4×H100 from day one as one capacity phase).

    Names are written in the request's language (they are plan data); phase labels are
    left empty so every document names the phases in its own language."""
    # Named in the customer's words: the plan's name is the quote's title.
    customer = _("Example customer")
    scenarios = (
        (
            _("Phased: 1×H100 LoRA → 4×H100 full fine-tune → 1×H100 serving"),
            schedule.T16_PHASES,
        ),
        (_("4×H100 from day one"), schedule.T16_DAY_ONE),
    )
    return [
        create_plan(
            session=session,
            owner=owner,
            name=name,
            phases=phases,
            currency=currency,
            customer=customer,
            tags=[_("Example")],
        )
        for name, phases in scenarios
    ]
