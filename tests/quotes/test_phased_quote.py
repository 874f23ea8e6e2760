"""Regression: a phased (seed 003 T16) plan exports to PDF and shares like any other plan.

Before the fix `quote_view` read `workload["dataset_gb"]` from a phased workload (which has
only a `schedule` key) and the PDF and the share link answered 500 (issue 10).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts.models import User
from app.plans import service
from tests.accounts.helpers import make_account


@pytest.fixture(scope="module")
def t16(client: TestClient) -> dict:
    a = make_account(client, "sales")
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None
        phased, _ = service.create_t16_example(session=s, owner=owner)
        return {"id": phased.id, "quote_number": phased.quote_number, "account": a}


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_t16_plan_pdf_is_200_with_its_phases(
    client: TestClient, t16: dict, lang: str, tmp_path: Path
) -> None:
    a = t16["account"]
    r = client.get(f"/api/v1/plans/{t16['id']}/pdf", params={"lang": lang}, headers=a.headers)
    assert r.status_code == 200, r.text
    path = tmp_path / "t16.pdf"
    path.write_bytes(r.content)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    assert t16["quote_number"] in text
    # Seed 003 T16 with T8 prices: 2 × 50,000 + 200,000 + 50,000 = NT$350,000.
    assert "350,000" in text


def test_t16_share_link_opens(client: TestClient, t16: dict) -> None:
    a = t16["account"]
    r = client.post(f"/api/v1/plans/{t16['id']}/share", json={}, headers=a.headers)
    assert r.status_code == 201, r.text
    url = r.json()["url"]
    path = url[url.index("/s/") :]
    anon = TestClient(client.app)
    page = anon.get(path)
    assert page.status_code == 200, page.text[:500]
    assert t16["quote_number"] in page.text and "350,000" in page.text
    pdf = anon.get(f"{path}/quote.pdf")
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
