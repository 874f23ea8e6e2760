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


def leave_quote_behind(app: Any, plan_id: int, workload: dict[str, Any]) -> None:
    """Give the plan `workload` as a save did before quotes followed their workload
    (`plans.service.save_plan`): a new revision whose result moved while its quote stayed
    as it was — the state of plans saved then, which sending and re-pricing still meet."""
    from sqlmodel import Session

    from app.accounts.models import User
    from app.plans import service

    with Session(app.state.engine) as s:
        plan = service.get_plan(session=s, plan_id=plan_id)
        owner = s.get(User, plan.owner_id)
        assert owner is not None
        dump, result = service._compute(s, workload, plan.price_list_id)
        service._save(
            s,
            plan,
            expected_version=plan.version,
            values={"workload": dump, "result": result, "tier": str(result.get("tier", ""))},
            actor=owner,
            summary="workload",
        )
