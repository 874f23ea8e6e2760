"""The line `stratagem serve` prints while no admin exists: how to create the first one."""

from __future__ import annotations

from sqlmodel import Session, select

from app.accounts.models import User
from app.db import make_engine
from app.settings import Settings

HINT = (
    "No admin yet. First admin: .venv/bin/stratagem users create --email you@example.com "
    "--role admin (it asks for the password)"
)


def first_admin_hint(settings: Settings) -> str | None:
    """The hint when the (migrated) database has no active admin, else None."""
    engine = make_engine(settings.database_url)
    try:
        with Session(engine) as session:
            admin = session.exec(
                select(User.id).where(User.role == "admin", User.is_active == True)  # noqa: E712
            ).first()
    finally:
        engine.dispose()
    return None if admin is not None else HINT
