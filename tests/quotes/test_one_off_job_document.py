"""A one-off job shorter than a month is documented without the five-year charts.

QA: the USD quote of a 12-hour LoRA job (US$85.50) charted cumulative cost to US$350,000 over
60 months and said "Hourly rent … stops being cheaper than Buy … month 60", under a table
where buying is "not economical for this period". The five-year views picture capacity used
month after month; the document says so in one sentence instead.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

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


def _quoted(client: TestClient, a: Any, lines: list[dict[str, Any]]) -> dict[str, Any]:
    c = _customer(client, a)
    body = {"name": "短期 LoRA", "customer_id": c["id"], "workload": SHORT,
            "quote": {"lines": lines}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    return dict(r.json())


def _shared_page(client: TestClient, a: Any, plan_id: int, lang: str) -> BeautifulSoup:
    r = client.post(f"/api/v1/plans/{plan_id}/share", headers=a.headers)
    assert r.status_code == 201, r.text
    page = TestClient(client.app).get(r.json()["url"].replace("http://testserver", ""),
                                      params={"lang": lang})  # fmt: skip
    assert page.status_code == 200
    return BeautifulSoup(page.text, "html.parser")


@pytest.mark.parametrize(("lang", "sentence"), [("en", "A one-off job of"), ("zh-TW", "一次性")])
def test_the_share_page_leaves_out_what_the_pdf_leaves_out(
    client: TestClient, lang: str, sentence: str
) -> None:
    """QA: the PDF of an 18.5-hour job said the five-year views were left out, while its share
    page drew them, with break-even "in month 21.1" and "month 50.8"."""
    a = make_account(client, "sales")
    plan = _quoted(client, a, [{"description": "LoRA", "quantity": "1", "unit_price": "3000"}])
    page = _shared_page(client, a, plan["id"], lang)
    drawn = [el["data-chart"] for el in page.select("[data-chart]")]
    assert drawn == ["memory"]
    assert page.select_one(".break-even-months") is None
    assert sentence in page.select_one(".one-off-job").get_text()


def test_the_share_page_states_the_pdfs_summary_figures(client: TestClient) -> None:
    """The share page said "a run as slow as the error band below allows" and showed no band;
    it states the PDF's GPU-hours, error bands and memory in use, in the PDF's words."""
    a = make_account(client, "sales")
    plan = _quoted(client, a, [{"description": "LoRA", "quantity": "1", "unit_price": "3000"}])
    training = plan["result"]["training"]
    page = _shared_page(client, a, plan["id"], "en")
    time = page.select_one(".time-to-finish").get_text(" ", strip=True)
    assert f"{training['gpu_hours']:,.1f} GPU-hours" in time or (
        f"{round(training['gpu_hours']):,} GPU-hours" in time
    )
    band = training["uncertainty"]
    pct, runs = f"{band['median_pct']:.0%}", band["runs"]
    assert f"Error band ±{pct}: the estimate's median error on {runs} published runs" in time
    memory = page.select_one(".memory-in-use").get_text(" ", strip=True)
    total = plan["result"]["memory_per_gpu_gb"]["total"]
    assert memory.startswith(f"{total:.1f} GB in use")


def test_a_job_under_a_day_is_said_in_hours(client: TestClient) -> None:
    """'0.1 days' beside a job the same document calls 2.5 hours read as two answers (QA)."""
    a = make_account(client, "sales")
    plan = _quoted(client, a, [{"description": "LoRA", "quantity": "1", "unit_price": "3000"}])
    days = plan["result"]["training"]["days"]
    assert days < 1
    page = _shared_page(client, a, plan["id"], "en")
    time = page.select_one(".time-to-finish").get_text(" ", strip=True)
    assert time.startswith(f"{days * 24:.1f} hours")


def test_a_line_of_services_by_the_month_rents_no_capacity(client: TestClient) -> None:
    """A 2.5-hour job quoted with "Support, per month" × 3 months still drew the five-year
    views (QA): only an option that rents GPUs by the month buys capacity."""
    a = make_account(client, "sales")
    support = {"description": "Support", "quantity": "1", "unit_price": "1235", "months": "3"}
    plan = _quoted(client, a, [support])
    assert plan["quote"]["lines"][0]["unit"] == "month"
    assert one_off_hours(plan["result"], plan["quote"]) is not None
    monthly = next(
        o["key"] for o in plan["result"]["cost"]["options"]
        if o["kind"] == "rent_monthly" and o.get("feasible", True)
    )  # fmt: skip
    rented = _quoted(client, a, [{"option_key": monthly}])
    assert one_off_hours(rented["result"], rented["quote"]) is None
