"""`ShareLink`: a read-only link to a plan, stored as the SHA-256 of its secret token.

The token (`secrets.token_urlsafe(24)`, 192 bits) is shown once, in the URL returned when the
link is created; the table keeps only its hash, so a leaked database opens no plan.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import ConfigDict
from sqlalchemy import ForeignKeyConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

import app.plans.models  # noqa: F401  (the plan and app_user tables the FKs point at)
from app.engine.strict_numbers import NumbersNotBooleans


def utcnow() -> datetime:
    return datetime.now(UTC)


class ShareLink(SQLModel, table=True):
    __tablename__: ClassVar[Any] = "share_link"
    __table_args__ = (
        ForeignKeyConstraint(
            ["plan_id"], ["plan.id"], ondelete="CASCADE", name="fk_share_link_plan"
        ),
        ForeignKeyConstraint(["created_by"], ["app_user.id"], name="fk_share_link_created_by"),
        UniqueConstraint("token_hash", name="uq_share_link_token_hash"),
        Index("ix_share_link_plan_id", "plan_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    plan_id: int
    token_hash: str = Field(max_length=64, description="SHA-256 hex of the token.")
    created_by: int
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime | None = None
    revoked_at: datetime | None = None


class ShareCreate(NumbersNotBooleans, SQLModel):
    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    expires_in_days: int | None = Field(
        default=None, ge=1, le=365, description="Days the link works; none: until revoked."
    )


class ShareCreated(SQLModel):
    id: int
    url: str = Field(description="The link, with its secret token: shown only this once.")
    expires_at: datetime | None
