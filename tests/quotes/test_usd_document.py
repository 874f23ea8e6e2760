"""A customer billed in US dollars reads one currency: every amount of its quote document
(the lines, "Ways to pay", the phases, the charts) is in US$, converted at the rate the quote
states (QA of stop 22: a US$ quote printed "NT$3,523/h × 955 h" under its US$ lines)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.plans import schedule
from app.quotes.currency import result_in_quote_currency
from tests.accounts.helpers import make_account
from tests.quotes.test_customer_document import _pdf_text
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share


@pytest.fixture(scope="module")
def usd(client: TestClient) -> dict[str, Any]:
    a = make_account(client, "sales")
    c = _customer(client, a, name="US buyer", tax_id="", currency="USD", export=True, language="en")
    p = _plan(client, a, c["id"], _quote("0"))
    return {"plan": p, "link": _share(client, a, p["id"]), "account": a}


def test_the_pdf_prints_no_nt_dollar_amount(
    client: TestClient, usd: dict[str, Any], tmp_path: Path
) -> None:
    text = _pdf_text(TestClient(client.app), f"{usd['link']}/quote.pdf", tmp_path)
    assert "NT$" not in text, [ln for ln in text.splitlines() if "NT$" in ln][:5]
    # the charts' money axes name the quote's currency
    assert "(US$)" in text
    # Ways to pay: the 4 × H100 monthly rent (seed 003 T8: NT$200,000 a month) at the
    # quote's rate, 1 USD = 32 TWD in the shipped list → US$6,250.00/month × 1 month.
    # An export customer reading English is told what its invoice is, and that it is
    # zero-rated like its totals (it read "An electronic 統一發票 is issued after the sale."),
    # in English only: the Ministry of Finance's own terms, no Chinese gloss (QA).
    flat = " ".join(text.split())
    assert "Government Uniform Invoice at the zero tax rate for export" in flat
    assert "統一" not in flat
    rate = Decimal(usd["plan"]["quote"]["fx"]["rate"])
    monthly = (Decimal(200_000) / rate).quantize(Decimal("0.01"))
    assert f"US${monthly:,.2f}/month × 1 month" in " ".join(text.split())  # wrapped in its cell


def test_the_share_page_prints_no_nt_dollar_amount(client: TestClient, usd: dict[str, Any]) -> None:
    page = TestClient(client.app).get(usd["link"])
    assert page.status_code == 200
    soup = BeautifulSoup(page.text, "html.parser")
    for script in soup.find_all("script"):
        script.decompose()  # chart JSON is checked below, on its axis labels
    assert "NT$" not in soup.get_text(), re.findall(r".{30}NT\$.{20}", soup.get_text())[:3]
    assert "US$" in soup.select_one(".upfront").get_text()
    figures = [s.get_text() for s in BeautifulSoup(page.text, "html.parser").find_all("script")]
    charts = "".join(f for f in figures if "plotly" in f.lower() or '"data"' in f)
    assert "NT$" not in charts and "US$" in charts


def test_a_phased_plan_for_a_usd_customer_prices_its_phases_in_usd(
    client: TestClient, tmp_path: Path
) -> None:
    """Seed 003 T16 with T8 prices (2 × NT$50,000 + NT$200,000 + NT$50,000 = NT$350,000),
    moved to a customer billed in US$: the phase table converts each phase at the quote's
    rate, and its total is the sum of the phases as printed."""
    a = make_account(client, "sales")
    c = _customer(
        client, a, name="US phased", tax_id="", currency="USD", export=True, language="en"
    )
    body = {
        "name": "Phased for a US buyer",
        "customer_id": c["id"],
        "phases": [dict(p) for p in schedule.T16_PHASES],
        "quote": {"lines": [{"option_key": f"phase-{n}"} for n in (1, 2, 3)]},
    }
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    plan_id = r.json()["id"]
    assert r.json()["quote"]["currency"] == "USD"
    rate = Decimal(r.json()["quote"]["fx"]["rate"])
    link = _share(client, a, plan_id)
    text = _pdf_text(TestClient(client.app), f"{link}/quote.pdf", tmp_path)
    assert "NT$" not in text, [ln for ln in text.splitlines() if "NT$" in ln][:5]
    phases = text.split("Billed as")[1].split("Line items")[0]
    for nt in (50_000, 200_000):
        assert f"US${Decimal(nt) / rate:,.2f}" in phases, nt
    page = BeautifulSoup(TestClient(client.app).get(link).text, "html.parser")
    amounts = [row.select_one(".amount").get_text() for row in page.select(".shared-phases li")]
    assert amounts == [f"US${Decimal(nt) / rate:,.2f}" for nt in (100_000, 200_000, 50_000)]


def test_conversion_is_one_rate_and_leaves_a_same_currency_plan_alone() -> None:
    """The converter by hand: at 1 USD = 32 TWD, NT$480/h is US$15/h and NT$13,440 is
    US$420; years and quantities stay; a TWD quote leaves the figures untouched."""
    result = {
        "cost": {
            "currency": "TWD",
            "options": [
                {
                    "key": "k",
                    "hourly_rate": 480.0,
                    "total": 13_440.0,
                    "upfront": 0.0,
                    "billed": {"unit": "hour", "quantity": 28.0},
                    "breakdown": {"rent": 13_440.0},
                    "cumulative": [0.0, 13_440.0],
                    "currency": "TWD",
                }
            ],
            "tco": [{"key": "k", "years": [{"year": 1.0, "rent": 3_200.0, "total": 3_200.0}]}],
            "cost_per_million_tokens": 64.0,
        }
    }
    quote = {"currency": "USD", "fx": {"base": "USD", "quote": "TWD", "rate": "32"}}
    out = result_in_quote_currency(result, quote)
    o = out["cost"]["options"][0]
    assert (o["hourly_rate"], o["total"], o["upfront"]) == (15.0, 420.0, 0.0)
    assert o["billed"] == {"unit": "hour", "quantity": 28.0}
    assert o["breakdown"] == {"rent": 420.0} and o["cumulative"] == [0.0, 420.0]
    assert out["cost"]["tco"][0]["years"] == [{"year": 1.0, "rent": 100.0, "total": 100.0}]
    assert out["cost"]["cost_per_million_tokens"] == 2.0
    assert out["cost"]["currency"] == o["currency"] == "USD"
    assert result["cost"]["options"][0]["total"] == 13_440.0  # the stored result is untouched
    assert result_in_quote_currency(result, {"currency": "TWD"}) == result
    # a USD quote without a stated rate is not converted at all (no half-converted document)
    assert result_in_quote_currency(result, {"currency": "USD"}) == result
    assert json.dumps(out)  # still JSON for the page's charts


def test_the_share_page_offers_no_currency_switch(client: TestClient, usd: dict[str, Any]) -> None:
    """The quote is in the customer's currency whatever the visitor's preference: a TWD/USD
    switch on its page did nothing (QA), so the page has none."""
    page = TestClient(client.app).get(usd["link"])
    soup = BeautifulSoup(page.text, "html.parser")
    assert not soup.select('a[href^="/set-currency"]')
    assert soup.select('a[href^="/set-language"]')  # the language switch stays


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "Public cloud — AWS p5.48xlarge · 8 × NVIDIA H100 SXM5 80GB (the plan uses 4)"),
        ("zh-TW", "公有雲 — AWS p5.48xlarge · 8 × NVIDIA H100 SXM5 80GB（方案使用 4 張）"),
    ],
)
def test_a_cloud_comparison_names_the_gpus_paid_for_and_the_price_date(
    client: TestClient, lang: str, expected: str
) -> None:
    """QA of stop 22: "Public cloud — AWS p5.48xlarge US$55.04/h" beside a 4-GPU plan did not
    say the price is for a whole 8-GPU instance, nor of when (cloud prices change: AWS cut
    the p5 in 2025). The shipped list's AWS price is of 2026-01-21."""
    a = make_account(client, "sales")
    c = _customer(client, a, name=f"Cloud buyer {lang}", language=lang)
    p = _plan(client, a, c["id"], {**_quote("0"), "include_cloud_comparison": True})
    link = _share(client, a, p["id"])
    page = BeautifulSoup(TestClient(client.app).get(link).text, "html.parser")
    labels = [" ".join(th.get_text(" ", strip=True).split()) for th in page.select("th")]
    date = {"en": "public price of Jan 21, 2026", "zh-TW": "2026年1月21日公開價格"}[lang]
    assert any(label.startswith(f"{expected} · {date}") for label in labels), [
        x for x in labels if "AWS" in x
    ]


def test_the_rate_date_reads_like_every_other_date(
    client: TestClient, usd: dict[str, Any], tmp_path: Path
) -> None:
    """QA of stop 32: "rate of 2026-11-01" beside "Valid until Dec 31, 2026". The shipped
    list's USD→TWD rate is of 2026-11-01."""
    assert usd["plan"]["quote"]["fx"]["as_of"] == "2026-11-01"
    page = BeautifulSoup(TestClient(client.app).get(usd["link"]).text, "html.parser")
    assert "(rate of Nov 1, 2026, from the price list)" in page.select_one(".fx").get_text()
    text = " ".join(_pdf_text(TestClient(client.app), f"{usd['link']}/quote.pdf", tmp_path).split())
    assert "rate of Nov 1, 2026" in text and "2026-11-01" not in text
    # What the engine sized is not said to be "included" in what the lines charge.
    assert "Infrastructure included" not in text
    assert "Infrastructure this plan is sized for" in text
