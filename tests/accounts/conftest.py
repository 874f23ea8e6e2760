from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import MakeAccount, make_account


@pytest.fixture
def account(client: TestClient) -> MakeAccount:
    return lambda role="sales": make_account(client, role)


@pytest.fixture
def db_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A SQLite file of the test's own, named by DATABASE_URL for the CLI."""
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    return url
