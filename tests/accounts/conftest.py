from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import MakeAccount, make_account


@pytest.fixture
def account(client: TestClient) -> MakeAccount:
    return lambda role="sales": make_account(client, role)
