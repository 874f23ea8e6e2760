"""Plan tables: `Plan` (the current state of a quote) and `PlanRevision` (every saved state).

Concurrency is optimistic: `Plan.version` goes up by one on every save, and a save names the
version it was based on. A revision row holds the full state after that save, so any two
versions can be compared and nothing a save wrote is ever lost.

`tier` is copied out of the stored result so lists can filter on it with an index instead of
reading every result JSON.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Final, Literal, get_args

from pydantic import AfterValidator, ConfigDict, StringConstraints, field_validator
from sqlalchemy import JSON, Column, ForeignKeyConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

import app.accounts.models
import app.catalog.models  # (the price_list table the FK points at)
import app.customers.models  # noqa: F401  (the customer table the FK points at)
from app.engine.schemas import EstimateRequest
from app.engine.strict_numbers import NumbersNotBooleans
from app.i18n import gettext
from app.ids import DB_ID_MAX, DbId
from app.plans.schedule import MAX_PHASES, SCHEDULE_KEY, PhaseIn
from app.quotes.models import QuoteIn
from app.text import PlainText, plain_line, trim

PHASES_DOC: Final = (
    "A phased plan instead of one workload: phases in sequence, each a planner `workload` the "
    "engine sizes or a `capacity` line (GPU × count), rented for `months` and billed as "
    "`option` says. Give `workload` or `phases`, not both; errors name `phases.<i>.<field>`."
)

# A quote's life (issue 10): draft → sent → accepted | declined | expired; "lost" is kept
# for plans saved before quotes had a life of their own.
#: A plan's status, as a type: a list filter of another value is a 422 naming it (it was a
#: 200 with no plans, which reads as "nothing in that state").
StatusName = Literal["draft", "sent", "accepted", "declined", "expired", "lost"]
STATUSES: Final[tuple[str, ...]] = get_args(StatusName)
#: A plan's tier, as a type (app.engine: single GPU, NVLink multi-GPU, multi-node).
TierName = Literal["single_gpu", "multi_gpu", "multi_node"]
# The fields a save may change; a revision snapshots these plus the computed ones.
EDITABLE: Final = (
    "name",
    "customer",
    "customer_id",
    "status",
    "notes",
    "tags",
    "workload",
    "quote",
)
SNAPSHOT: Final = (
    "name",
    "customer",
    "customer_id",
    "quote",
    "status",
    "notes",
    "tags",
    "archived",
    "price_list_id",
    "workload",
    "result",
)


def utcnow() -> datetime:
    return datetime.now(UTC)


def _status(value: str) -> str:
    if value not in STATUSES:
        raise ValueError(
            gettext("must be one of %(allowed)s (got %(value)s)")
            % {"allowed": ", ".join(STATUSES), "value": repr(value)}
        )
    return value


def _text(value: str) -> str:
    value = trim(value)
    if not value:
        raise ValueError("must not be empty")
    return plain_line(value)


Status = Annotated[str, AfterValidator(_status)]
Name = Annotated[str, AfterValidator(_text)]
#: A free-text customer: trimmed as the plan form trims it, so " Acme " from the API is the
#: customer "Acme" (linked to that record, found by the list filter), not a second one (QA).
CustomerText = Annotated[str, AfterValidator(lambda v: plain_line(trim(v)))]


#: Longest tag (characters, after trimming) and most tags on a plan: more is a 422 naming
#: `tags` (API, import) or an inline error (edit form), never a silent cut (QA S2.6).
TAG_MAX = 50
TAGS_MAX = 50

Tag = Annotated[
    str, StringConstraints(strip_whitespace=True, max_length=TAG_MAX), AfterValidator(plain_line)
]
"""One tag: trimmed, at most `TAG_MAX` characters."""


def clean_tags(tags: list[str]) -> list[str]:
    """Tags in order without blanks or repeats (each already trimmed and bounded by `Tag`)."""
    return list(dict.fromkeys(t for t in tags if t))


#: Longest plan notes (characters): the API and the page refuse more (422 naming `notes`),
#: and the column is VARCHAR(20000) (migration 0009_bounded_notes).
NOTES_MAX = 20_000
#: Longest revision change summary: written by the service ("name, notes", "sent", "accepted
#: by the customer: <name ≤ 200>, <title ≤ 200>"), cut to this length if it were ever longer.
SUMMARY_MAX = 2_000


class Plan(SQLModel, table=True):
    __tablename__: ClassVar[Any] = "plan"
    __table_args__ = (
        UniqueConstraint("quote_number", name="uq_plan_quote_number"),
        ForeignKeyConstraint(["owner_id"], ["app_user.id"], name="fk_plan_owner"),
        ForeignKeyConstraint(
            ["price_list_id"], ["price_list.id"], ondelete="SET NULL", name="fk_plan_price_list"
        ),
        # The default list: live plans, most recently touched first.
        Index("ix_plan_archived_updated_at", "archived", "updated_at"),
        Index("ix_plan_owner_id", "owner_id", "updated_at"),
        Index("ix_plan_status", "status"),
        Index("ix_plan_tier", "tier"),
        Index("ix_plan_customer", "customer"),
        Index("ix_plan_name", "name"),
        ForeignKeyConstraint(
            ["customer_id"], ["customer.id"], ondelete="SET NULL", name="fk_plan_customer"
        ),
        ForeignKeyConstraint(
            ["discount_approved_by"], ["app_user.id"], name="fk_plan_discount_approved_by"
        ),
        Index("ix_plan_customer_id", "customer_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    quote_number: str = Field(max_length=48, description="Q-<year>-<6 digits>.")
    name: str = Field(max_length=200)
    customer: str = Field(default="", max_length=200)
    owner_id: int
    status: str = Field(default="draft", max_length=20)
    notes: str = Field(default="", max_length=NOTES_MAX)
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    archived: bool = Field(default=False)
    version: int = Field(default=1)
    price_list_id: int | None = None
    tier: str = Field(default="", max_length=20)
    workload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    result: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    # Quotes (issue 10). `customer` (free text) stays for plans saved before customers.
    customer_id: int | None = None
    quote: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    # Derived from `quote` on every save (like `tier`), so lists read them without the JSON.
    quote_totals: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    valid_until: date | None = None
    sent_version: int | None = Field(default=None, description="The revision the customer sees.")
    sent_at: datetime | None = None
    # The customer record as the quote was sent (`quotes.service.customer_snapshot`): the sent
    # revision's documents print this buyer, not the record as later edited.
    sent_customer: dict[str, Any] | None = Field(
        default=None, sa_column=Column(JSON, nullable=True)
    )
    discount_approved_by: int | None = None
    discount_approved_at: datetime | None = None
    discount_approved_pct: Decimal | None = Field(default=None, max_digits=5, decimal_places=2)
    decided_at: datetime | None = None
    decision_name: str = Field(default="", max_length=200)
    decision_title: str = Field(default="", max_length=200)
    decision_ip: str = Field(default="", max_length=64)
    decision_version: int | None = None
    decline_reason: str = Field(default="", max_length=2000)

    @property
    def phases(self) -> list[dict[str, Any]] | None:
        """A phased plan's phases as saved (None for a plan of one workload)."""
        w = self.workload
        if not isinstance(w, dict) or SCHEDULE_KEY not in w:
            return None
        return list((w[SCHEDULE_KEY] or {}).get("phases") or [])


class PlanRevision(SQLModel, table=True):
    __tablename__: ClassVar[Any] = "plan_revision"
    __table_args__ = (
        UniqueConstraint("plan_id", "version", name="uq_plan_revision_version"),
        ForeignKeyConstraint(
            ["plan_id"], ["plan.id"], ondelete="CASCADE", name="fk_plan_revision_plan"
        ),
        ForeignKeyConstraint(["author_id"], ["app_user.id"], name="fk_plan_revision_author"),
        ForeignKeyConstraint(
            ["price_list_id"],
            ["price_list.id"],
            ondelete="SET NULL",
            name="fk_plan_revision_price_list",
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    plan_id: int
    version: int
    author_id: int
    created_at: datetime = Field(default_factory=utcnow)
    name: str = Field(max_length=200)
    customer: str = Field(default="", max_length=200)
    status: str = Field(default="draft", max_length=20)
    notes: str = Field(default="", max_length=NOTES_MAX)
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    archived: bool = Field(default=False)
    price_list_id: int | None = None
    workload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    result: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    change_summary: str = Field(
        default="", max_length=SUMMARY_MAX, description="What this save changed."
    )
    customer_id: int | None = None
    quote: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


# --------------------------------------------------------------------------------------------
# API models
# --------------------------------------------------------------------------------------------


class PlanCreate(NumbersNotBooleans, SQLModel):
    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    name: Name = Field(max_length=200)
    customer: CustomerText = Field(default="", max_length=200)
    customer_id: DbId | None = None
    workload: EstimateRequest | None = Field(
        default=None, description="One workload (what /api/v1/estimate takes)."
    )
    phases: list[PhaseIn] | None = Field(
        default=None, min_length=1, max_length=MAX_PHASES, description=PHASES_DOC
    )
    quote: QuoteIn | None = None
    status: Status = "draft"
    notes: PlainText = Field(default="", max_length=NOTES_MAX)
    tags: list[Tag] = Field(default_factory=list, max_length=TAGS_MAX)

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str]) -> list[str]:
        return clean_tags(v)


class PlanUpdate(NumbersNotBooleans, SQLModel):
    """A save: the version it was based on plus the fields to change (absent = unchanged)."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    version: int = Field(ge=1, le=DB_ID_MAX, description="The version the client last read.")
    name: Name | None = Field(default=None, max_length=200)
    customer: CustomerText | None = Field(default=None, max_length=200)
    status: Status | None = None
    notes: PlainText | None = Field(default=None, max_length=NOTES_MAX)
    tags: list[Tag] | None = Field(default=None, max_length=TAGS_MAX)
    workload: EstimateRequest | None = None
    phases: list[PhaseIn] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PHASES,
        description=PHASES_DOC + " The list replaces the plan's phases (or its workload).",
    )
    customer_id: DbId | None = None
    quote: QuoteIn | None = Field(
        default=None,
        description="The quote's fields to change: a field left out keeps its saved value; "
        "`lines`, when given, replaces every line.",
    )

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str] | None) -> list[str] | None:
        return None if v is None else clean_tags(v)

    def changes(self) -> dict[str, Any]:
        out = self.model_dump(exclude_none=True, exclude={"version", "workload", "quote", "phases"})
        if self.workload is not None:
            out["workload"] = self.workload
        if self.phases is not None:
            out["phases"] = self.phases
        if self.quote is not None:
            out["quote"] = self.quote
        return out


class PlanSummary(SQLModel):
    id: int
    quote_number: str
    name: str
    customer: str
    owner_id: int
    status: str
    notes: str
    tags: list[str]
    archived: bool
    version: int
    price_list_id: int | None
    tier: str
    created_at: datetime
    updated_at: datetime
    customer_id: int | None = None
    quote_totals: dict[str, Any] | None = None
    valid_until: date | None = None


class DocumentTotal(SQLModel):
    """The total the quote's PDF and share page print, so an integrator reads the same figure.

    With quote lines it is theirs (`quote_totals`). Without any (no quote yet, or every line
    removed) the document still quotes the option a quote opens on, the seller's cheapest,
    with the customer's usual tax: the API said `quote_totals` 0 while the PDF of the same
    plan asked NT$378 (QA)."""

    basis: Literal["lines", "option"] = Field(
        description="lines: the quote's own lines; option: no lines, the option the "
        "document quotes (`option_key`)."
    )
    option_key: str | None = Field(
        default=None, description="The cost option quoted when `basis` is option."
    )
    currency: str = Field(description="TWD or USD: the document's currency.")
    subtotal: Decimal = Field(description="Total before tax (未稅), in `currency`.")
    tax_rate: Decimal = Field(description="Business tax rate: 0.05 domestic, 0 export.")
    tax: Decimal = Field(description="Tax (稅額), in `currency`.")
    total: Decimal = Field(description="Total including tax (含稅), in `currency`.")
    rate_text: str | None = Field(
        default=None,
        description='How an option\'s subtotal is billed, as printed ("NT$120/h × 3 h", '
        '"paid once, up front"); null for lines.',
    )


class PlanPublic(PlanSummary):
    workload: dict[str, Any]
    phases: list[dict[str, Any]] | None = Field(
        default=None, description="A phased plan's phases as saved (null for one workload)."
    )
    result: dict[str, Any]
    quote: dict[str, Any] | None = None
    sent_version: int | None = Field(
        default=None, description="The history version (`version`) the customer was sent."
    )
    sent_edition: int | None = Field(
        default=None,
        description="The version number the customer's documents print for it: the n-th "
        "revision sent is version n (the PDF's and the share page's quote number).",
    )
    sent_at: datetime | None = None
    discount_approved_by: int | None = None
    discount_approved_at: datetime | None = None
    discount_approved_pct: Decimal | None = None
    decided_at: datetime | None = None
    decision_name: str = ""
    decision_title: str = ""
    decision_ip: str = ""
    decision_version: int | None = Field(
        default=None, description="The history version the customer accepted or declined."
    )
    decision_edition: int | None = Field(
        default=None, description="The same as the customer's documents number it."
    )
    decline_reason: str = ""
    document_total: DocumentTotal | None = Field(
        default=None,
        description="What the quote's PDF and share page ask in total (see DocumentTotal); "
        "null when the plan has no cost option to quote.",
    )


class PlanPage(SQLModel):
    items: list[PlanSummary]
    total: int
    page: int
    per_page: int


class RevisionPublic(SQLModel):
    id: int
    version: int
    author_id: int
    created_at: datetime
    name: str
    customer: str
    status: str
    notes: str
    tags: list[str]
    archived: bool
    price_list_id: int | None
    change_summary: str
    customer_id: int | None = None


class ConflictOut(SQLModel):
    detail: str
    current_version: int
    changed_fields: list[str]


class VersionCheckIn(NumbersNotBooleans, SQLModel):
    """An archive or a restore: optionally the version the client last read (a 409 when the
    plan changed since). Anything else is a 422 naming it (QA: {"foo": 1} and a stale
    {"version": 1} were taken without a word)."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    version: int | None = Field(
        default=None, ge=1, le=DB_ID_MAX, description="Optional optimistic check."
    )


class DuplicateIn(NumbersNotBooleans, SQLModel):
    """A duplicate: optionally the copy's name (default: the source's name with "(copy)")."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    name: Name | None = Field(default=None, max_length=200)


class RepriceIn(NumbersNotBooleans, SQLModel):
    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    version: int | None = Field(
        default=None, ge=1, le=DB_ID_MAX, description="Optional optimistic check."
    )
    price_list_id: DbId | None = Field(default=None, description="Default: the current list.")


class CostDelta(SQLModel):
    key: str
    label: str
    before: float | None
    after: float | None
    delta: float | None


class RemovedLine(SQLModel):
    """A quote line a reprice or a new workload took out: its option is no longer offered."""

    line: int = Field(description="Its number in the quote before the reprice (1 = first)")
    option_key: str
    label: str
    unit_price: str = Field(description="Its unit price before, in the quote's currency")


class QuoteLineChange(SQLModel):
    """A quote option line a save moved: its option's figures changed with the workload."""

    line: int = Field(description="Its number in the quote before the save (1 = first)")
    option_key: str
    label: str
    unit_price_before: str | None
    unit_price_after: str | None
    list_price_before: str | None = Field(description="The option's own unit price before")
    list_price_after: str | None = Field(description="The option's own unit price now")
    amount_before: str = Field(description="The line's amount after its discount, excl. tax")
    amount_after: str
    typed_price: bool = Field(
        description="The unit price was typed and stays: the discount it makes is judged "
        "against `list_price_after` (over the limit, sending waits for an admin)"
    )


class PlanSaved(PlanPublic):
    """A saved plan, with what the save did to its quote on its own."""

    quote_changes: list[QuoteLineChange] = Field(
        default_factory=list,
        description="Option lines whose figures followed their option to the new workload "
        "(a typed unit price stays as typed).",
    )
    removed_lines: list[RemovedLine] = Field(
        default_factory=list,
        description="Quote lines taken out: the plan no longer has their option (the "
        "revision before keeps them).",
    )


class RepriceOut(SQLModel):
    plan: PlanPublic
    price_list_before: int | None
    price_list_after: int | None
    currency: str
    options: list[CostDelta]
    cheapest_before: float | None
    cheapest_after: float | None
    cheapest_delta: float | None
    removed_lines: list[RemovedLine] = Field(
        default_factory=list,
        description="Quote lines taken out: the new list does not offer their option (the "
        "revision before keeps them). Option lines that stay take the new list's prices "
        "unless a price was typed.",
    )
    quote_currency: str | None = Field(
        default=None, description="The quote's currency (its totals' and removed lines')"
    )
    quote_total_before: str | None = Field(
        default=None, description="The quote's total incl. tax before (Decimal string)"
    )
    quote_total_after: str | None = Field(
        default=None, description="The quote's total incl. tax after (Decimal string)"
    )


class FieldChange(SQLModel):
    field: str
    before: Any
    after: Any


class QuoteTotalsAt(SQLModel):
    """A version's quote totals, as its PDF prints them (Decimal strings)."""

    subtotal: str = Field(description="Excl. tax (未稅), after the quote's discounts")
    tax: str = Field(description="The tax (營業稅) on the subtotal")
    total: str = Field(description="Incl. tax (含稅): what the customer is asked")
    currency: str


class QuoteTotalsChange(SQLModel):
    before: QuoteTotalsAt | None = Field(
        description="The `from` version's quote totals; null where it had no quote lines"
    )
    after: QuoteTotalsAt | None = Field(
        description="The `to` version's quote totals; null where it has no quote lines"
    )


class OptionTotalChange(SQLModel):
    """A cost option whose total (for its period, excl. tax) differs between the versions."""

    key: str
    label: str = Field(description="The option as the quote document names it, provider included")
    before: float | None = Field(description="Its total in `from`; null where it had none")
    after: float | None = Field(description="Its total in `to`; null where it has none")


class RevisionDiff(SQLModel):
    from_version: int
    to_version: int
    changes: list[FieldChange]
    quote_totals: QuoteTotalsChange | None = Field(
        default=None,
        description="The quote's totals in each version, where either has quote lines: a "
        "reprice moves them although `changes` lists only the lines",
    )
    currency: str = Field(default="", description="The currency of the options' totals")
    options: list[OptionTotalChange] = Field(
        default_factory=list,
        description="The cost options whose totals changed (added and removed ones included)",
    )
