"""A priced plan with a <script> in every free-text field, for the sharing and quote tests."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import Account, MakeAccount, make_account

WORKLOAD: dict[str, Any] = {
    "model": {"preset": "llama-2-13b"},
    "task": "full_finetune",
    "seq_len": 2048,
    "tokens": 2e9,
    "term_months": 6,
    # Pinned: the quote tests quote the provider's 4-GPU server by its option key (the exact
    # search alone sizes this job on 3 GPUs, which are then rented as that same machine).
    "gpu_count": 4,
}
XSS = "<script>alert(1)</script>"


@pytest.fixture
def account(client: TestClient) -> MakeAccount:
    return lambda role="sales": make_account(client, role)


def create_plan(client: TestClient, who: Account, **extra: Any) -> dict[str, Any]:
    body = {
        "name": f"{XSS} 客服模型",
        "customer": f"台大 {XSS} Lab",
        "notes": f"INTERNAL-NOTE {XSS}",
        "workload": WORKLOAD,
        **extra,
    }
    r = client.post("/api/v1/plans", json=body, headers=who.headers)
    assert r.status_code == 201, r.text
    return r.json()
