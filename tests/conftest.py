"""Shared fixtures: an app built with its own settings on a fresh database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.bootstrap import prepare_database
from app.main import create_app
from app.settings import Settings


@pytest.fixture(autouse=True)
def _english_outside_requests() -> None:
    """Code run outside a request (the CLI, a service called directly) speaks English, as a
    fresh process does: a test that activated zh-TW for its own checks must not leave its
    language to the next (catalog import messages are made with gettext)."""
    i18n.activate("en")


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("db") / "stratagem.db"
    return f"sqlite:///{path}"


@pytest.fixture(scope="session")
def settings(sqlite_url: str) -> Settings:
    s = Settings(DATABASE_URL=sqlite_url, STRATAGEM_SECRET_KEY="test-secret")
    prepare_database(s, echo=lambda _: None)
    return s


@pytest.fixture(scope="session")
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c
