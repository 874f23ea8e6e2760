"""Throw-away databases for tests that need several of their own (backup → restore into
another, a database left in a broken state): SQLite files under the test's tmp_path, or
databases on the TEST_POSTGRES_URL server, each dropped when the test ends."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.postgres import postgres_url

#: The backends a `scratch` test runs on (parametrize a fixture with them).
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@contextmanager
def scratch_databases(backend: str, tmp_path: Path) -> Iterator[Callable[[], str]]:
    """A factory of empty databases (their URLs, password included) on `backend`."""
    if backend == "sqlite":
        yield lambda: f"sqlite:///{tmp_path / f'scratch-{uuid.uuid4().hex[:8]}.db'}"
        return
    base = make_url(postgres_url())
    admin = create_engine(base.set(database="postgres"), isolation_level="AUTOCOMMIT")
    created: list[str] = []

    def create() -> str:
        name = f"stratagem_scratch_{uuid.uuid4().hex[:8]}"
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        created.append(name)
        return base.set(database=name).render_as_string(hide_password=False)

    try:
        yield create
    finally:
        with admin.connect() as conn:
            for name in created:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
