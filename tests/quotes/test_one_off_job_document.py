"""A one-off job shorter than a month is documented without the five-year charts.

QA: the USD quote of a 12-hour LoRA job (US$85.50) charted cumulative cost to US$350,000 over
60 months and said "Hourly rent … stops being cheaper than Buy … month 60", under a table
where buying is "not economical for this period". The five-year views picture capacity used
month after month; the document says so in one sentence instead.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.plans.models import Plan
from app.quotes.pdf import one_off_hours, quote_html
from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import _customer

SHORT = {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "tokens": 2e7}


def _pdf_text(client: TestClient, headers: dict[str, str], plan_id: int, lang: str,
              tmp_path: Path) -> str:  # fmt: skip
    r = client.get(f"/api/v1/plans/{plan_id}/pdf", params={"lang": lang}, headers=headers)
    assert r.status_code == 200, r.text[:300]
    path = tmp_path / f"{lang}.pdf"
    path.write_bytes(r.content)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


@pytest.mark.parametrize(
    ("lang", "sentence", "chart"),
    [
        ("en", "A one-off job of", "Cumulative cost"),
        ("zh-TW", "這是一次性的工作", "累計成本"),
    ],
)
def test_a_job_of_hours_has_no_five_year_charts(
    client: TestClient, lang: str, sentence: str, chart: str, tmp_path: Path
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    body = {"name": "短期 LoRA", "customer_id": c["id"], "workload": SHORT,
            "quote": {"lines": [{"description": "LoRA", "quantity": "1", "unit_price": "3000"}]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    plan = r.json()
    days = plan["result"]["training"]["days"]
    hours = one_off_hours(plan["result"])
    # The job's hours: its rented period in months × the 730-hour month.
    assert hours is not None and hours == pytest.approx(
        plan["result"]["cost"]["rent_months"] * 730.0
    )
    assert days * 24 <= hours + 1
    text = " ".join(_pdf_text(client, a.headers, plan["id"], lang, tmp_path).split())
    assert sentence in text
    assert "Break-even months" not in text and "損益兩平" not in text
    # The document's figures: the memory chart only (its alt text names each chart).
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        stored = s.get(Plan, plan["id"])
        assert stored is not None
        html = quote_html(stored, lang=lang, session=s)
    figures = BeautifulSoup(html, "html.parser").select("figure.chart img")
    assert len(figures) == 1 and chart not in figures[0]["alt"]


def test_a_service_keeps_its_five_year_views(client: TestClient) -> None:
    # Capacity pricing (a service): the five-year views are its comparison.
    r = client.post("/api/v1/estimate", json={"model": {"preset": "llama-3.1-8b"},
                                               "task": "inference"})  # fmt: skip
    assert one_off_hours(r.json()) is None
