"""One counted request: which limit (`bucket`), for whom (`key`, the client address), when."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from app.accounts.models import utcnow


class RateHit(SQLModel, table=True):
    """Kept for one window of its limit; older rows are deleted as new ones come in."""

    __tablename__: ClassVar[Any] = "rate_hit"
    __table_args__ = (Index("ix_rate_hit_bucket_key_at", "bucket", "key", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    bucket: str = Field(max_length=32)
    key: str = Field(max_length=64)
    at: datetime = Field(default_factory=utcnow)
