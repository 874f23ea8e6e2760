"""Leads: 'request a quote' submissions from the self-assessment, stored for sales.

`Lead` is the table (migrations 0002_leads, 0015_lead_tax_id); `LeadCreate` validates what the
form sent (required name and company, an e-mail address, an optional 統一編號 with its check
digit, length limits); `app.leads.service` stores it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar, Final, Literal

from pydantic import field_validator
from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from app.customers.models import typed_tax_id
from app.engine.strict_numbers import NumbersNotBooleans
from app.i18n import N_
from app.i18n import gettext as _
from app.text import is_email_address, plain_line, plain_text, trim

LeadStatus = Literal["new", "contacted", "converted", "closed"]
LEAD_STATUSES: Final = ("new", "contacted", "converted", "closed")
STATUS_NAMES: Final = {
    "new": N_("New request"),
    "contacted": N_("Contacted"),
    "converted": N_("Converted"),
    "closed": N_("Closed"),
}
NAME_MAX: Final = 120
COMPANY_MAX: Final = 160
EMAIL_MAX: Final = 254
NOTES_MAX: Final = 2000


def utcnow() -> datetime:
    return datetime.now(UTC)


class LeadBase(NumbersNotBooleans, SQLModel):
    name: str = Field(max_length=NAME_MAX)
    company: str = Field(max_length=COMPANY_MAX)
    email: str = Field(max_length=EMAIL_MAX)
    notes: str = Field(default="", max_length=NOTES_MAX)
    # The company's 統一編號, optional: a converted lead's customer carries it, so its quote
    # can be sent without asking again (QA: typed into the notes as "統編 22099131", the
    # customer had none and sending was refused).
    tax_id: str = Field(default="", max_length=8, sa_column_kwargs={"server_default": ""})
    lang: str = Field(default="zh-TW", max_length=8)
    tier: str = Field(default="", max_length=20)


class Lead(LeadBase, table=True):
    """One quote request; the sales queue works through them by `status`."""

    __tablename__: ClassVar[Any] = "lead"
    __table_args__ = (Index("ix_lead_status_created", "status", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow)
    status: str = Field(default="new", max_length=12, description="new|contacted|converted|closed")
    answers: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class LeadCreate(LeadBase):
    """What the 'request a quote' form may set, validated."""

    answers: dict[str, Any] = {}

    @field_validator("name", "company", "email", "notes", mode="before")
    @classmethod
    def _strip(cls, v: Any) -> Any:
        return trim(v) if isinstance(v, str) else v

    @field_validator("tax_id", mode="before")
    @classmethod
    def _tax_id(cls, v: Any) -> Any:
        return typed_tax_id(v) if isinstance(v, str) else v

    @field_validator("name", "company")
    @classmethod
    def _required(cls, v: str) -> str:
        if not v:
            raise ValueError(_("This field is required."))
        # As a customer's name and contact refuse them: a lead holding a text-direction or
        # control character could never be converted into its customer (a 500, QA).
        return plain_line(v)

    @field_validator("notes")
    @classmethod
    def _notes(cls, v: str) -> str:
        return plain_text(v)

    @field_validator("email")
    @classmethod
    def _email(cls, v: str) -> str:
        if not v:
            raise ValueError(_("This field is required."))
        if not is_email_address(v):
            raise ValueError(_("Enter an e-mail address such as name@company.com.tw."))
        return v.lower()
