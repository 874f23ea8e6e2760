"""Plan export (JSON, re-importable) and import (a new plan from an export)."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import ConfigDict, field_validator
from sqlmodel import Field, Session, SQLModel

from app import errors
from app.accounts.models import User
from app.catalog.models import PriceList
from app.customers import service as customers
from app.engine.strict_numbers import NumbersNotBooleans
from app.i18n import N_
from app.ids import DB_ID_MAX, DbId
from app.plans import service as plans
from app.plans.models import TAGS_MAX, Name, Plan, Status, Tag, clean_tags
from app.quotes.models import QuoteIn
from app.text import PlainLine, PlainText

FORMAT: Final = "stratagem.plan/1"


class PlanExport(SQLModel):
    """A plan as a file: what it asked, what it computed, and the prices it used."""

    model_config = ConfigDict(extra="ignore")  # type: ignore[assignment]

    format: Literal["stratagem.plan/1"] = FORMAT
    quote_number: str = ""
    name: str = Field(min_length=1, max_length=200)
    customer: str = Field(default="", max_length=200)
    status: str = "draft"
    notes: str = Field(default="", max_length=20_000)
    tags: list[str] = Field(default_factory=list)
    version: int = 1
    price_list_id: int | None = None
    workload: dict[str, Any]
    result: dict[str, Any] = Field(default_factory=dict)
    quote: dict[str, Any] | None = Field(
        default=None,
        description="The plan's quote as `quote` in POST /api/v1/plans takes it, every "
        "amount explicit (lines, discounts, tax rate, validity, payment terms); null when the "
        "plan has none.",
    )
    quote_currency: str | None = Field(
        default=None, description="The currency of the quote's amounts (TWD, USD)."
    )


class PlanImport(NumbersNotBooleans, PlanExport):
    # Unknown fields are refused, as every other input does (QA: `include_qoute: false`
    # was dropped without a word, and the plan imported with the quote it was to leave out).
    model_config = ConfigDict(extra="forbid")

    # The same bounds as PlanCreate: an import is a new plan (the export itself stays as
    # lenient as what is stored, so an old plan always exports). A NUL in the name was
    # imported as is (QA); the fields an import does not copy (number, status, version: the
    # new plan is a draft with its own) must still be what an export writes, not anything.
    quote_number: PlainLine = Field(
        default="", max_length=100, description="The exported plan's number (not copied)."
    )
    name: Name = Field(max_length=200)
    customer: PlainLine = Field(default="", max_length=200)
    status: Status = Field(
        default="draft", description="The exported plan's status (not copied: a draft)."
    )
    notes: PlainText = Field(default="", max_length=20_000)
    version: int = Field(
        default=1, ge=1, le=DB_ID_MAX, description="The exported revision (not copied)."
    )
    tags: list[Tag] = Field(default_factory=list, max_length=TAGS_MAX)
    price_list_id: DbId | None = None
    reprice: bool = Field(
        default=True,
        description="Price with the current list (true) or the export's own `price_list_id`.",
    )
    include_quote: bool = Field(
        default=True, description="Import the export's quote too (false: the plan alone)."
    )
    customer_id: DbId | None = Field(
        default=None,
        description="Link the new plan to this customer; the quote is then in its currency.",
    )
    # Checked as POST /api/v1/plans checks a quote, field by field (a 422 naming
    # `quote.lines.0.quantity`): as a plain dict, a bad one reached the service unvalidated
    # and was a 500 (QA).
    quote: QuoteIn | None = Field(  # type: ignore[assignment]
        default=None,
        description="The export's quote (as `quote` in POST /api/v1/plans takes it).",
    )

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str]) -> list[str]:
        return clean_tags(v)


def export_plan(plan: Plan) -> PlanExport:
    return PlanExport(
        quote_number=plan.quote_number,
        name=plan.name,
        customer=plan.customer,
        status=plan.status,
        notes=plan.notes,
        tags=list(plan.tags),
        version=plan.version,
        price_list_id=plan.price_list_id,
        workload=dict(plan.workload),
        result=dict(plan.result),
        quote=plans.quote_input(plan.quote) if plan.quote else None,
        quote_currency=str(plan.quote.get("currency") or "") or None if plan.quote else None,
    )


def import_plan(*, session: Session, owner: User, data: PlanImport) -> Plan:
    """A new draft plan owned by `owner` from an export: re-priced with the current list, or
    (reprice=false) priced with the export's own price list, which must still exist."""
    keep = data.price_list_id
    # Checked before the plan is created: a 422 must not leave a half-imported plan behind.
    if not data.reprice and keep is not None and session.get(PriceList, keep) is None:
        raise errors.Invalid(N_("no price list %(id)s"), field="price_list_id", id=keep)
    quote = (
        data.quote.model_dump(mode="json", exclude_unset=True)
        if data.quote and data.include_quote
        else None
    )
    if quote is not None:
        _check_quote_currency(session, data)
        plans.without_expired_validity(quote)  # an export read back after its validity
    return plans.create_plan(
        session=session,
        owner=owner,
        name=data.name,
        customer=data.customer,
        customer_id=data.customer_id,
        workload=data.workload,
        notes=data.notes,
        tags=list(data.tags),
        quote=quote,
        price_list_id=keep if not data.reprice else None,
    )


def _check_quote_currency(session: Session, data: PlanImport) -> None:
    """The quote's amounts are in `quote_currency`: the new plan must quote in it too."""
    if not data.quote_currency:
        return
    if data.customer_id is not None:
        try:
            target = customers.get_customer(session=session, customer_id=data.customer_id).currency
        except customers.CustomerNotFound:
            # The body's field, refused as a plan's customer_id of nobody is (a 422)
            raise errors.Invalid(
                plans.NO_SUCH_CUSTOMER, field="customer_id", id=data.customer_id
            ) from None
    else:
        # What the plan prices in (a phased plan's workload holds its schedule): the export's
        # own result says, as `_quote_values` reads it from the new one.
        cost = data.result.get("cost") or {}
        target = str(cost.get("currency") or data.workload.get("currency") or "TWD")
    if target != data.quote_currency:
        raise errors.Invalid(
            N_(
                "the quote's amounts are in %(old)s, the new plan quotes in %(new)s: link a "
                "customer billed in %(old)s (customer_id), or import the plan without its "
                "quote (include_quote: false)"
            ),
            field="quote_currency",
            old=data.quote_currency,
            new=target,
        )
