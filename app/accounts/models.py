"""Account tables: `User` and `ApiToken`.

Passwords are stored as Argon2id hashes (argon2-cffi); API tokens as the SHA-256 of the
secret plus a short prefix for display, so a leaked database does not leak usable tokens.
Datetimes are UTC.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any, ClassVar, Final

from sqlalchemy import ForeignKeyConstraint, Index, UniqueConstraint, true
from sqlmodel import Field, SQLModel

ROLES: Final = ("admin", "sales")


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_session_nonce() -> str:
    return secrets.token_urlsafe(16)


class User(SQLModel, table=True):
    # "user" is reserved in PostgreSQL; a plain name keeps raw SQL and psql sessions simple.
    __tablename__: ClassVar[Any] = "app_user"
    __table_args__ = (UniqueConstraint("email", name="uq_app_user_email"),)

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, description="Lower-case; unique.")
    name: str = Field(default="", max_length=200)
    role: str = Field(default="sales", max_length=20, description="admin | sales")
    password_hash: str = Field(max_length=255)
    is_active: bool = Field(default=True)
    created_at: datetime = Field(default_factory=utcnow)
    session_nonce: str = Field(
        default_factory=new_session_nonce,
        max_length=32,
        description="In every session cookie; a new one signs the user out everywhere.",
    )


class ApiToken(SQLModel, table=True):
    __tablename__: ClassVar[Any] = "api_token"
    __table_args__ = (
        ForeignKeyConstraint(
            ["user_id"], ["app_user.id"], ondelete="CASCADE", name="fk_api_token_user"
        ),
        UniqueConstraint("token_hash", name="uq_api_token_hash"),
        Index("ix_api_token_user_id", "user_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    name: str = Field(max_length=100)
    token_hash: str = Field(max_length=64, description="SHA-256 hex of the whole token.")
    prefix: str = Field(max_length=16, description="The first characters, for display.")
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


class LoginAttempt(SQLModel, table=True):
    """One failed sign-in, kept for the throttle (15 minutes) so it holds across workers.

    A sign-in is written here *before* its password is checked (`checked` False), so
    attempts sent together see each other; the row is deleted if the password was right and
    marked `checked` if it was wrong."""

    __tablename__: ClassVar[Any] = "login_attempt"
    __table_args__ = (
        Index("ix_login_attempt_email_at", "email", "attempted_at"),
        Index("ix_login_attempt_ip_at", "ip", "attempted_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, description="As typed, lower-case.")
    ip: str = Field(max_length=64)
    attempted_at: datetime = Field(default_factory=utcnow)
    checked: bool = Field(
        default=True,
        sa_column_kwargs={"server_default": true()},
        description="False while the password is being checked; True once it was found wrong.",
    )


class UserPublic(SQLModel):
    id: int
    email: str
    name: str
    role: str
    is_active: bool
    created_at: datetime
