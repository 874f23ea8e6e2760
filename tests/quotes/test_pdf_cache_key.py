"""A cached PDF is served only to the plan and customer it printed.

Before: the cache key was (database, plan id, plan version, ...). A database restored from a
backup, or a SQLite file whose newest plan was deleted, gives the next plan the same id and
version 1, and the first customer's quote was served under the second customer's plan; an
edited customer record (name, address) never reached a PDF already cached.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import delete
from sqlmodel import Session

from app.plans.models import Plan, PlanRevision
from tests.accounts.helpers import make_account
from tests.plan_quotes import WORKLOAD


def _pdf_text(client: TestClient, plan_id: int, headers: dict[str, str], tmp_path: Path) -> str:
    r = client.get(f"/api/v1/plans/{plan_id}/pdf", params={"lang": "en"}, headers=headers)
    assert r.status_code == 200, r.text
    path = tmp_path / "quote.pdf"
    path.write_bytes(r.content)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


def _plan(client: TestClient, headers: dict[str, str], customer: str, **extra: object) -> dict:
    body = {"name": "Cache key", "customer": customer, "workload": WORKLOAD, **extra}
    r = client.post("/api/v1/plans", json=body, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()


def test_a_new_plan_that_reuses_a_deleted_plans_id_gets_its_own_pdf(
    client: TestClient, tmp_path: Path
) -> None:
    who = make_account(client, "sales")
    first = _plan(client, who.headers, "Alpha Semiconductor Ltd")
    assert "Alpha Semiconductor Ltd" in _pdf_text(client, first["id"], who.headers, tmp_path)
    # What a restore does to the plan table: the row is gone, and SQLite hands its id (the
    # highest) to the next plan, which starts again at version 1.
    engine = client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as s:
        s.exec(delete(PlanRevision).where(PlanRevision.plan_id == first["id"]))  # type: ignore[call-overload,arg-type]
        s.exec(delete(Plan).where(Plan.id == first["id"]))  # type: ignore[call-overload,arg-type]
        s.commit()
    second = _plan(client, who.headers, "Beta Foods Co")
    assert (second["id"], second["version"]) == (first["id"], first["version"])
    text = _pdf_text(client, second["id"], who.headers, tmp_path)
    assert "Beta Foods Co" in text
    assert "Alpha Semiconductor" not in text


def test_an_edited_customer_record_reaches_the_next_pdf(client: TestClient, tmp_path: Path) -> None:
    who = make_account(client, "sales")
    r = client.post(
        "/api/v1/customers",
        json={"name": "Gamma Robotics", "address": "No. 1, Section 1, Taipei"},
        headers=who.headers,
    )
    assert r.status_code == 201, r.text
    customer = r.json()
    plan = _plan(client, who.headers, "Gamma Robotics", customer_id=customer["id"])
    before = _pdf_text(client, plan["id"], who.headers, tmp_path)
    assert "No. 1, Section 1, Taipei" in before
    r = client.put(
        f"/api/v1/customers/{customer['id']}",
        json={"address": "No. 99, Xinyi Road, Taipei"},
        headers=who.headers,
    )
    assert r.status_code == 200, r.text
    after = _pdf_text(client, plan["id"], who.headers, tmp_path)
    assert "No. 99, Xinyi Road, Taipei" in after
    assert "No. 1, Section 1" not in after
