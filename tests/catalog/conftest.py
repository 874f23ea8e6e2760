"""Catalog fixtures: a fresh, migrated database per test on SQLite and on PostgreSQL.

SQLite: each test gets a copy of a template file migrated once per run (one empty, one with
the shipped catalog). PostgreSQL: one database per run, migrated once and emptied (then
reloaded) before each test. Either way tests may change the catalog freely. The PostgreSQL cases
run against TEST_POSTGRES_URL (and fail, saying how to set it, when it is unset); every database this
run creates is dropped at the end.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session

from app.catalog import service
from app.db import make_engine, migrate
from app.main import create_app
from app.settings import Settings
from tests.accounts.helpers import make_account, sign_in
from tests.postgres import postgres_url

BACKENDS = [
    "sqlite",
    pytest.param("postgres", marks=pytest.mark.postgres),
]


class PgServer:
    """Creates and drops throw-away databases on the server of TEST_POSTGRES_URL."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.admin = create_engine(
            self.url.set(database="postgres"), isolation_level="AUTOCOMMIT", pool_pre_ping=True
        )
        self.created: list[str] = []
        self.prefix = f"stratagem_cat_{uuid.uuid4().hex[:8]}"

    def create(self, template: str | None = None) -> str:
        name = f"{self.prefix}_{len(self.created)}"
        with self.admin.connect() as conn:
            tmpl = f' TEMPLATE "{template}"' if template else ""
            conn.execute(text(f'CREATE DATABASE "{name}"{tmpl}'))
        self.created.append(name)
        return self.url_for(name)

    def url_for(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def drop_all(self) -> None:
        with self.admin.connect() as conn:
            for name in reversed(self.created):
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        self.admin.dispose()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    server = PgServer(postgres_url())
    yield server
    server.drop_all()


def _prepare(url: str, *, load: bool) -> None:
    migrate(url)
    if load:
        engine = make_engine(url)
        with Session(engine) as session:
            service.load_shipped_if_empty(session=session)
        engine.dispose()


@pytest.fixture(scope="session")
def templates() -> dict[tuple[str, bool], str]:
    """(backend, loaded) → the template's URL (SQLite) or database name (PostgreSQL)."""
    return {}


@pytest.fixture(scope="session")
def template_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("catalog-templates")


@pytest.fixture(scope="session")
def pg_shared(pg_server: PgServer) -> str:
    """One PostgreSQL database for the run, migrated once; tests empty it between them."""
    url = pg_server.create()
    migrate(url)
    return url


def _reset_pg(url: str, *, loaded: bool) -> None:
    """Empty every table (no new database: no checkpoint to wait for), then reload if asked."""
    from sqlmodel import SQLModel

    import app.tables  # noqa: F401  (every table on the metadata)

    engine = make_engine(url)
    try:
        # DELETE, children first: on tables this small it beats TRUNCATE (no new files).
        with engine.begin() as conn:
            for table in reversed(SQLModel.metadata.sorted_tables):
                conn.execute(table.delete())
        if loaded:
            with Session(engine) as session:
                service.load_shipped_if_empty(session=session)
    finally:
        engine.dispose()


def fresh_url(
    request: pytest.FixtureRequest,
    backend: str,
    *,
    loaded: bool,
    templates: dict[tuple[str, bool], str],
    template_dir: Path,
    tmp_path: Path,
) -> str:
    """A database of the test's own (migrated; the shipped catalog loaded when `loaded`)."""
    if backend == "sqlite":
        key = (backend, loaded)
        if key not in templates:
            path = template_dir / f"template-{int(loaded)}.db"
            _prepare(f"sqlite:///{path}", load=loaded)
            templates[key] = str(path)
        target = tmp_path / f"catalog-{uuid.uuid4().hex[:6]}.db"
        shutil.copyfile(templates[key], target)
        return f"sqlite:///{target}"
    url: str = request.getfixturevalue("pg_shared")
    _reset_pg(url, loaded=loaded)
    return url


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(
    request: pytest.FixtureRequest,
    backend: str,
    templates: dict[tuple[str, bool], str],
    template_dir: Path,
    tmp_path: Path,
) -> str:
    """A fresh database with the shipped catalog loaded, on each backend."""
    return fresh_url(
        request,
        backend,
        loaded=True,
        templates=templates,
        template_dir=template_dir,
        tmp_path=tmp_path,
    )


@pytest.fixture
def empty_db_url(
    request: pytest.FixtureRequest,
    backend: str,
    templates: dict[tuple[str, bool], str],
    template_dir: Path,
    tmp_path: Path,
) -> str:
    """A fresh database migrated to head with nothing in it, on each backend."""
    return fresh_url(
        request,
        backend,
        loaded=False,
        templates=templates,
        template_dir=template_dir,
        tmp_path=tmp_path,
    )


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as s:
        yield s


@pytest.fixture
def catalog_client(db_url: str) -> Iterator[TestClient]:
    """An app of its own on a fresh database with the shipped catalog (tests may change it)."""
    settings = Settings(
        DATABASE_URL=db_url, STRATAGEM_SECRET_KEY="catalog-test", STRATAGEM_LANGUAGE="en"
    )
    app = create_app(settings)
    with TestClient(app) as c:
        c.headers["Accept-Language"] = "en"
        # Editing the catalog takes an admin: signed in for the pages, a token for the API.
        admin = make_account(c, "admin")
        sign_in(c, admin.user)
        c.headers.update(admin.headers)
        yield c
    app.state.engine.dispose()
