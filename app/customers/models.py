"""Customer table and API models.

A customer is the company a quote is addressed to: its 統一編號 (validated with the Ministry
of Finance checksum, PRODUCT.md §6), a contact, the language and currency its documents are
written in, and whether it is an export customer (0% 營業稅 instead of 5%).
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime
from typing import Any, ClassVar, Final, Literal

from pydantic import ConfigDict, field_validator
from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from app.engine.strict_numbers import NumbersNotBooleans
from app.i18n import gettext as _
from app.ids import DB_ID_MAX
from app.text import is_email_address, plain_line, plain_text, trim

LANGUAGES: Final = ("zh-TW", "en")
CURRENCIES: Final = ("TWD", "USD")
NAME_MAX: Final = 200
TEXT_MAX: Final = 200
ADDRESS_MAX: Final = 400
EMAIL_MAX: Final = 254
# Ministry of Finance weights for the 8 digits of a 統一編號 (PRODUCT.md §6).
TAX_ID_WEIGHTS: Final = (1, 2, 1, 2, 1, 2, 4, 1)


def utcnow() -> datetime:
    return datetime.now(UTC)


def tax_id_checksum(tax_id: str) -> int:
    """Sum of the digit sums of each digit × its weight (1,2,1,2,1,2,4,1)."""
    total = 0
    for digit, weight in zip(tax_id, TAX_ID_WEIGHTS, strict=True):
        product = int(digit) * weight
        total += product // 10 + product % 10
    return total


def is_valid_tax_id(tax_id: str) -> bool:
    """True for a well-formed 統一編號: 8 digits whose checksum is divisible by 5.

    Source: Ministry of Finance rule as given in PRODUCT.md §6 — divisible by 5 since 2023
    (formerly 10); when the 7th digit is 7 (its product 28 has digit sum 10, read as 1 or 0)
    the number is also valid when checksum + 1 is divisible by 5.
    """
    if len(tax_id) != 8 or not tax_id.isascii() or not tax_id.isdigit():
        return False
    if tax_id == "00000000":
        return False  # checksum 0 passes, but no business has it: a placeholder typed in
    total = tax_id_checksum(tax_id)
    return total % 5 == 0 or (tax_id[6] == "7" and (total + 1) % 5 == 0)


class CustomerBase(NumbersNotBooleans, SQLModel):
    name: str = Field(max_length=NAME_MAX, description="Company name.")
    tax_id: str = Field(default="", max_length=8, description="統一編號 (8 digits) or empty.")
    contact: str = Field(default="", max_length=TEXT_MAX, description="Contact person.")
    email: str = Field(default="", max_length=EMAIL_MAX)
    address: str = Field(default="", max_length=ADDRESS_MAX)
    language: str = Field(default="zh-TW", max_length=8, description="zh-TW | en")
    currency: str = Field(default="TWD", max_length=3, description="TWD | USD")
    export: bool = Field(default=False, description="Export sale: 0% 營業稅 instead of 5%.")


class Customer(CustomerBase, table=True):
    __tablename__: ClassVar[Any] = "customer"
    __table_args__ = (Index("ix_customer_name", "name"), Index("ix_customer_tax_id", "tax_id"))

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    # Counts every save: a save based on an older version is refused (409), never merged.
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})


def _clean(v: Any) -> Any:
    # Strip; a 統一編號 typed as "2209 9131" or "2209-9131" is the same number.
    return trim(v) if isinstance(v, str) else v


def _name(v: str) -> str:
    if not v:
        raise ValueError(_("This field is required."))
    return v


def _separated(v: str) -> str:
    """`v` without the spaces and hyphens people type between groups ("2209-9131")."""
    return v.replace(" ", "").replace("-", "")


def _tax_id(v: str) -> str:
    if v and not (len(v) == 8 and v.isascii() and v.isdigit()):
        # A 7-digit number was told its check digit did not match (QA): say the length,
        # counted in digits, and echo what was typed ("-2209913" read as "2209913 is 7
        # characters long", a number the user never typed).
        digits = _separated(v)
        if digits.isascii() and digits.isdigit():
            raise ValueError(
                _("A 統一編號 is 8 digits (0–9): %(given)s has %(n)s digits.")
                % {"given": v, "n": len(digits)}
            )
        raise ValueError(
            _("A 統一編號 is 8 digits (0–9) and nothing else: %(given)s has other characters.")
            % {"given": v}
        )
    if v == "00000000":
        raise ValueError(
            _("00000000 is not a company's 統一編號: enter the customer's, or leave it empty.")
        )
    if v and not is_valid_tax_id(v):
        raise ValueError(_("Enter a valid 8-digit 統一編號 (the check digit does not match)."))
    return v


def typed_tax_id(v: str) -> str:
    """A 統一編號 as a person types it — full-width digits, spaces or a hyphen between groups —
    as its 8 digits, checked (`_tax_id`); "" for none. ValueError, with the message a form
    shows, for anything else. The customer form and the quote request read it the same way."""
    v = unicodedata.normalize("NFKC", trim(v))
    # Compacted only when that gives the 8 digits: otherwise the message echoes the value as
    # typed.
    digits = _separated(v)
    if len(digits) == 8 and digits.isascii() and digits.isdigit():
        v = digits
    return _tax_id(v)


def _email(v: str) -> str:
    if v and not is_email_address(v):
        raise ValueError(_("Enter an e-mail address such as name@company.com.tw."))
    return v.lower()


class _CustomerChecks(NumbersNotBooleans, SQLModel):
    """The checks a customer's fields get wherever they are written (create and update):
    trimmed text, a compact 統一編號 with its checksum, a required name, an e-mail address.
    Absent fields of an update (None) are left alone."""

    #: `export` is true or false, never "yes" or 1 (app.engine.strict_numbers).
    STRICT_BOOLEANS: ClassVar[bool] = True

    @field_validator(
        "name", "tax_id", "contact", "email", "address", mode="before", check_fields=False
    )
    @classmethod
    def _strip(cls, v: Any) -> Any:
        return _clean(v)

    @field_validator("tax_id", mode="before", check_fields=False)
    @classmethod
    def _compact(cls, v: Any) -> Any:
        # Full-width digits (２２０９９１３１, as an IME types them) are the same number, as
        # they are in a quote's quantities.
        # Told here, before the column's 8-character limit answers "Too long" to 9 digits.
        return typed_tax_id(v) if isinstance(v, str) else v

    @field_validator("name", check_fields=False)
    @classmethod
    def _required(cls, v: str | None) -> str | None:
        return None if v is None else _name(v)

    @field_validator("name", "contact", check_fields=False)
    @classmethod
    def _one_line(cls, v: str | None) -> str | None:
        # A NUL or a direction override in a company name reaches every quote and PDF.
        return None if v is None else plain_line(v)

    @field_validator("address", check_fields=False)
    @classmethod
    def _lines(cls, v: str | None) -> str | None:
        return None if v is None else plain_text(v)

    @field_validator("tax_id", check_fields=False)
    @classmethod
    def _check_tax_id(cls, v: str | None) -> str | None:
        return None if v is None else _tax_id(v)

    @field_validator("email", check_fields=False)
    @classmethod
    def _check_email(cls, v: str | None) -> str | None:
        return None if v is None else _email(v)


class CustomerCreate(CustomerBase, _CustomerChecks):
    """A new customer, validated (the API body and the page form)."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    language: Literal["zh-TW", "en"] = "zh-TW"
    currency: Literal["TWD", "USD"] = "TWD"


class CustomerUpdate(_CustomerChecks):
    """Fields to change (absent = unchanged), and the version they were read at."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    version: int | None = Field(
        default=None,
        ge=1,
        le=DB_ID_MAX,
        description=(
            "The version you last read (GET returns it). A save based on an older version is "
            "a 409 with the current one, so two people editing one customer never lose an "
            "edit silently. Absent: saved over whatever is current."
        ),
    )

    name: str | None = Field(default=None, max_length=NAME_MAX)
    tax_id: str | None = Field(default=None, max_length=8)
    contact: str | None = Field(default=None, max_length=TEXT_MAX)
    email: str | None = Field(default=None, max_length=EMAIL_MAX)
    address: str | None = Field(default=None, max_length=ADDRESS_MAX)
    language: Literal["zh-TW", "en"] | None = None
    currency: Literal["TWD", "USD"] | None = None
    export: bool | None = None


class CustomerPublic(CustomerBase):
    id: int
    version: int
    created_at: datetime
    updated_at: datetime
