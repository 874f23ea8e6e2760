"""Start-up work shared by `stratagem serve` and the tests: migrate, then seed the catalog."""

from __future__ import annotations

from collections.abc import Callable

from app.db import (
    current_revisions,
    head_revisions,
    make_engine,
    migrate,
    pending_revisions,
    safe_url,
)
from app.settings import Settings


def prepare_database(settings: Settings, echo: Callable[[str], object] = print) -> None:
    """Bring the database to the latest migration and load shipped data into an empty one,
    saying which migrations it applied (an operator reads whether an upgrade changed the
    schema: "Database migrated from 0012_… to 0013_…: 1 migration applied")."""
    engine = make_engine(settings.database_url)
    try:
        before = current_revisions(engine)
    finally:
        engine.dispose()
    pending = pending_revisions(before)
    migrate(settings.database_url)
    echo(migration_summary(safe_url(settings.database_url), before, pending))
    if settings.load_catalog:
        from sqlmodel import Session

        from app.catalog.service import load_shipped_if_empty

        engine = make_engine(settings.database_url)
        with Session(engine) as session:
            loaded = load_shipped_if_empty(session=session)
        engine.dispose()
        if loaded:
            echo(f"Loaded the shipped catalog: {loaded}.")


def migration_summary(where: str, before: set[str], pending: list[str] | None) -> str:
    """One line on what `migrate` did to the database `where` (its URL, password hidden),
    which was at `before` and lacked the migrations `pending` (None: unknown, see
    `pending_revisions`)."""
    head = ", ".join(sorted(head_revisions()))
    if pending is None:
        return f"Database {where} at the latest migration ({head})."
    if not pending:
        return f"Database {where} already at the latest migration ({head}); nothing to apply."
    applied = f"{len(pending)} migration{'' if len(pending) == 1 else 's'} applied"
    if not before:
        return f"Database {where} created at the latest migration ({head}): {applied}."
    return f"Database {where} migrated from {', '.join(sorted(before))} to {head}: {applied}."
