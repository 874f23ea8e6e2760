"""Start-up work shared by `stratagem serve` and the tests: migrate, then seed the catalog."""

from __future__ import annotations

from collections.abc import Callable

from app.db import migrate
from app.settings import Settings


def prepare_database(settings: Settings, echo: Callable[[str], object] = print) -> None:
    """Bring the database to the latest migration and load shipped data into an empty one."""
    migrate(settings.database_url)
    echo("Database at the latest migration.")
    if settings.load_catalog:
        from sqlmodel import Session

        from app.catalog.service import load_shipped_if_empty
        from app.db import make_engine

        engine = make_engine(settings.database_url)
        with Session(engine) as session:
            loaded = load_shipped_if_empty(session=session)
        engine.dispose()
        if loaded:
            echo(f"Loaded the shipped catalog: {loaded}.")
