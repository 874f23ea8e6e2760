"""Alembic environment: the SQLModel metadata of every table module is the target."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import app.tables  # noqa: F401  (registers every table on SQLModel.metadata)
from app.db import make_engine

config = context.config
target_metadata = SQLModel.metadata


def _url() -> str:
    """The URL `app.db.alembic_config` sets; for the bare `alembic` command (alembic.ini
    names none), the app's own DATABASE_URL, default SQLite file included."""
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from app.settings import Settings

    return Settings().database_url


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(_url())
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            # Batch mode rebuilds a table (copy, DROP, rename) to change a column; with
            # foreign keys on, SQLite's DROP TABLE deletes the rows that reference it through
            # ON DELETE CASCADE (a plan's revisions, a price list's rows). Alembic's advice:
            # foreign keys off while migrating (only possible outside a transaction), checked
            # once at the end.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        if sqlite:
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()
            if broken:
                raise RuntimeError(f"foreign keys broken after migrating: {broken[:10]}")
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
