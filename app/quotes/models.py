"""A quote's API models: what a sales engineer sets on a saved plan (`Plan.quote`).

No tables here: the quote is stored as JSON on the plan (and on every revision), so a sent
revision keeps exactly the lines it was sent with. Money is `Decimal` end to end; on the wire
Decimals are strings ("180000") so no client float can lose a cent.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from app.dates import IsoDate
from app.engine.strict_numbers import NumbersNotBooleans
from app.i18n import N_
from app.ids import DB_ID_MAX
from app.text import PlainLine, PlainText

QUOTE_STATUSES: Final = ("draft", "sent", "accepted", "declined", "expired")
MAX_LINES: Final = 50
#: 營業稅 on domestic B2B sales; 0 for an export customer (PRODUCT.md §6).
DOMESTIC_TAX_RATE: Final = Decimal("0.05")
EXPORT_TAX_RATE: Final = Decimal("0")
#: The only rates a quote may carry: any other is a 422 naming them (PRODUCT.md §6), raised by
#: pricing.resolve (a service error, in the request's language: a pydantic validator's
#: message would reach the API untranslated, behind "Value error, ").
TAX_RATES: Final = (DOMESTIC_TAX_RATE, EXPORT_TAX_RATE)
TAX_RATE_REFUSED: Final = N_(
    "must be 0.05 (5% business tax, a domestic sale) or 0 (0%, a zero-rated export)"
)
#: 營業稅 is 5% on a domestic sale (PRODUCT.md §6): at 0% the document would tell a domestic
#: customer they are buying a zero-rated export. Refused when the quote is saved for a
#: domestic customer (app.plans.service) and when it is sent (app.quotes.service).
DOMESTIC_AT_ZERO: Final = N_(
    "is 0%% (a zero-rated export), but %(name)s is a domestic customer: set 5%%, or mark the "
    "customer as export if this is an export sale"
)
VALID_DAYS: Final = 30
#: The smallest positive quantity or months a line takes (pricing.QUANTITY_PLACES).
SMALLEST_QUANTITY: Final = Decimal("0.0001")
#: The latest validity date a quote may carry, in days from its issue date.
MAX_VALID_DAYS: Final = 365


def _unsigned_zero(value: Decimal | None) -> Decimal | None:
    """-0 (which `ge=0` lets through) as 0: a quote never stores or prints "-0"."""
    return Decimal(0) if value is not None and value == 0 else value


#: A non-negative amount, quantity or percentage: -0 is read as 0.
Unsigned = AfterValidator(_unsigned_zero)


def _no_underscores(value: Any) -> Any:
    """Python reads "1_000" as 1000 and a decimal comma "1,000" is refused: a number in a
    quote is written as a person writes it, so neither is guessed at (QA)."""
    if isinstance(value, str) and "_" in value:
        raise ValueError(N_("write the number without underscores, e.g. 1000"))
    return value


#: Digits as people write them: "1_000" refused, not read as 1000.
Plain = BeforeValidator(_no_underscores)


class QuoteLineIn(NumbersNotBooleans, BaseModel):
    """One line: a cost option of the plan (`option_key`) or a free line (`description`).

    Amount = unit_price × quantity × months × (1 − discount_pct / 100), rounded once.
    For an option line, absent `unit_price`/`quantity`/`months` come from the option."""

    model_config = ConfigDict(extra="forbid")

    option_key: str | None = Field(default=None, max_length=200)
    description: PlainLine | None = Field(default=None, max_length=300)
    # Quantity and months stay exact: an option's defaults (a purchase held 0.0548 months)
    # carry them at full precision so that the line equals the option's total, and the
    # builder posts them back. A price has at most the currency's minor unit (NT$1, US$0.01:
    # `pricing.resolve` refuses more); four places is the bound before the currency is known.
    # A discount is a percentage with two decimals.
    # Above 0, said by `_not_below_the_smallest_unit` for 0 and below alike: a bound here
    # answered −2 with "must be at least 0" and 0 with "must be more than 0" (QA).
    quantity: Annotated[Decimal | None, Unsigned, Plain] = Field(
        default=None, le=Decimal("1e9"), json_schema_extra={"exclusiveMinimum": 0}
    )
    # Checked even when absent (`_own_line_priced`): a line of one's own without a price is
    # refused on this field, beside the input left empty (QA: the message stood under the
    # description, which was filled in).
    unit_price: Annotated[Decimal | None, Unsigned, Plain] = Field(
        default=None, ge=0, le=Decimal("1e12"), decimal_places=4, validate_default=True
    )
    months: Annotated[Decimal | None, Plain] = Field(default=None, gt=0, le=120)
    discount_pct: Annotated[Decimal, Unsigned, Plain] = Field(
        default=Decimal("0"), ge=0, le=100, decimal_places=2
    )
    unit: Literal["item", "month", "hour"] | None = Field(
        default=None,
        description=(
            "A line of your own: item (one-off, the default without `months`), month (per "
            "month × `months`, the default with them) or hour (per hour × `quantity` hours). "
            "The `unit` a saved line reads back with, so a one-off line stays one-off when the "
            "quote is saved again. An option line takes its option's unit, except `item`: "
            "the option quoted as one item at its amount (how a line whose rate × quantity × "
            "months is not a whole amount is saved; `hour` and `month` are ignored there)."
        ),
    )

    # Read back with a saved line; accepted on input so a quote read with GET can be sent
    # back as it is (QA: the round trip was a 422 on every line), and never used: the
    # server works both out from the option.
    kind: str | None = Field(
        default=None, max_length=40, description="Read-only: the option's kind; ignored."
    )
    list_price: Annotated[Decimal | None, Plain] = Field(
        default=None,
        ge=0,
        le=Decimal("1e15"),
        description="Read-only: the option's own price for the line; ignored.",
    )

    @field_validator("quantity", "months")
    @classmethod
    def _not_below_the_smallest_unit(cls, v: Decimal | None) -> Decimal | None:
        # Quantities and months are kept to 0.0001 (pricing.QUANTITY_PLACES): a positive
        # one below that (QA: a quantity of 1e-30 was saved) prices a line at 0 and prints as
        # 0 × its price. A quantity of 0 printed the same on the customer's document
        # (「導入與模型調校服務 … 0 … NT$0」, QA): a line left out is removed, not zeroed.
        if v is not None and v <= 0:
            raise ValueError(N_("must be more than 0: remove the line to leave it out"))
        if v is not None and 0 < v < SMALLEST_QUANTITY:
            raise ValueError(N_("must be at least 0.0001"))
        return v

    @field_validator("unit_price")
    @classmethod
    def _own_line_priced(cls, v: Decimal | None, info: ValidationInfo) -> Decimal | None:
        # A described line without an option is the sales engineer's own: it has no price
        # to fall back on. (No description either is `_one_kind`'s refusal, on the line.)
        own = not info.data.get("option_key") and (info.data.get("description") or "").strip()
        if v is None and own:
            # msgids: the builder shows them in the page's language (views.errors_of)
            raise ValueError(N_("a line of your own needs a unit price"))
        return v

    @model_validator(mode="after")
    def _one_kind(self) -> QuoteLineIn:
        if not self.option_key and not (self.description or "").strip():
            raise ValueError(N_("a line needs a cost option or a description"))
        return self


class QuoteIn(NumbersNotBooleans, BaseModel):
    """The quote of a plan; absent fields take their defaults when it is saved."""

    model_config = ConfigDict(extra="forbid")
    #: `include_cloud_comparison` is true or false, never "yes" (app.engine.strict_numbers).
    STRICT_BOOLEANS: ClassVar[bool] = True

    lines: list[QuoteLineIn] = Field(default_factory=list, max_length=MAX_LINES)
    discount_pct: Annotated[Decimal, Unsigned, Plain] = Field(
        default=Decimal("0"), ge=0, le=100, decimal_places=2
    )
    discount_amount: Annotated[Decimal, Unsigned, Plain] = Field(
        default=Decimal("0"),
        ge=0,
        le=Decimal("1e12"),
        decimal_places=2,
        description=(
            "A fixed amount off the whole quote, before tax, in the quote's currency (whole "
            "NT$; US$ to the cent), taken after `discount_pct`: NT$10,000 off, say. At most "
            "what the lines come to after their discounts."
        ),
    )
    tax_rate: Decimal | None = Field(
        default=None,
        description=(
            "Fraction: 0.05 = 5% 營業稅 (the default for a domestic customer) or 0 (a "
            "zero-rated export, the default for an export customer); any other value is a 422."
        ),
    )
    valid_until: IsoDate | None = Field(
        default=None, description="Default: 30 days from today; at most 365 days from today."
    )
    payment_terms: PlainText | None = Field(default=None, max_length=1000)
    include_cloud_comparison: bool = Field(
        default=False,
        description=(
            "Show other providers' prices (public cloud, and GPU marketplaces: offers of "
            "providers other than the price list's own) in the customer's document."
        ),
    )
    # Read back with a saved quote (the round trip, as `QuoteLineIn.kind`).
    currency: str | None = Field(
        default=None,
        max_length=3,
        description=(
            "Read-only: the quote's currency is its customer's. Given, it must be that "
            "currency (a 422 otherwise: change the customer's currency to change it)."
        ),
    )
    issued: IsoDate | None = Field(
        default=None, description="Read-only: the date the quote was saved; ignored."
    )
    fx: dict[str, Any] | None = Field(
        default=None, description="Read-only: the exchange rate a US$ quote uses; ignored."
    )


class QuoteTotals(BaseModel):
    subtotal: str
    tax: str
    total: str
    currency: str


class QuoteActionIn(NumbersNotBooleans, BaseModel):
    """The optional body of `send` and `approve-discount`: the version the user reviewed."""

    model_config = ConfigDict(extra="forbid")

    version: int | None = Field(
        default=None,
        ge=1,
        le=DB_ID_MAX,
        description=(
            "The plan version you reviewed. Refused with 409 (and the fields changed) when "
            "the quote's content changed since; without it, the current version is acted on."
        ),
    )
