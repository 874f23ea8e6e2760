from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.accounts.helpers import MakeAccount, make_account


@pytest.fixture
def account(client: TestClient) -> MakeAccount:
    return lambda role="sales": make_account(client, role)


@pytest.fixture(scope="session")
def pages_app(settings: Settings) -> FastAPI:
    return create_app(settings)


@pytest.fixture
def pages(pages_app: FastAPI) -> Iterator[TestClient]:
    """A fresh in-process client per test (its own cookies), for the HTML pages."""
    with TestClient(pages_app, follow_redirects=False) as c:
        yield c
