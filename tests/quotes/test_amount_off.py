"""A fixed amount off the whole quote (`discount_amount`): "NT$10,000 off" is how a sales
engineer closes a deal, and only percentages could be quoted (QA of stop 33).

Figures by hand, seed 003 T8: the 4×H100 server rents at NT$200,000 a month, −10% on a 6-month
term = NT$180,000 × 6 = NT$1,080,000 (tests/quotes/test_quote_life.py)."""

from __future__ import annotations

from decimal import Decimal

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.quotes import pricing
from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_quote_life import TERM, _customer
from tests.quotes.test_what_the_customer_is_sent import _plan


def test_an_amount_off_is_taken_after_the_percentage_and_before_tax(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    quote = {"lines": [{"option_key": TERM}], "discount_pct": "10", "discount_amount": "10000"}
    p = _plan(client, a, c["id"], quote).json()
    t = p["quote_totals"]
    # 1,080,000 − 10% (108,000) = 972,000; − 10,000 = 962,000; 5% tax 48,100; 1,010,100.
    assert (t["lines_total"], t["discount_by_pct"], t["discount_fixed"]) == (
        "1080000",
        "108000",
        "10000",
    )
    assert (t["discount"], t["subtotal"], t["tax"], t["total"]) == (
        "118000",
        "962000",
        "48100",
        "1010100",
    )
    assert p["quote"]["discount_amount"] == "10000"


def test_an_amount_off_counts_toward_the_approval_limit() -> None:
    """NT$108,000 off NT$1,080,000 of lines is 10% off each line."""
    stored = {
        "currency": "TWD",
        "lines": [{"unit_price": "180000", "quantity": "1", "months": "6", "discount_pct": "0"}],
        "discount_pct": "0",
        "discount_amount": "108000",
        "tax_rate": "0.05",
    }
    assert pricing.max_discount_pct(stored) == Decimal("10.00")
    # with a 10% quote discount first: 1 − 0.9 × (972,000 − 108,000) / 972,000 = 20%
    assert pricing.max_discount_pct({**stored, "discount_pct": "10"}) == Decimal("20.00")


def test_more_off_than_the_lines_come_to_is_refused(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    quote = {"lines": [{"option_key": TERM}], "discount_pct": "50", "discount_amount": "540001"}
    r = _plan(client, a, c["id"], quote)
    assert r.status_code == 422
    err = r.json()["detail"][0]
    assert err["loc"] == ["body", "quote", "discount_amount"]
    assert "a quote cannot be below zero" in err["msg"]
    # exactly what is left is allowed: a quote of NT$0
    ok = _plan(client, a, c["id"], {**quote, "discount_amount": "540000"}).json()
    assert ok["quote_totals"]["subtotal"] == "0" and ok["quote_totals"]["total"] == "0"


def test_an_amount_off_in_nt_dollars_is_whole(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    r = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}], "discount_amount": "99.5"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "quote", "discount_amount"]


def test_the_builder_share_page_and_pdf_show_the_amount_off(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    quote = {"lines": [{"option_key": TERM}], "discount_amount": "10000"}
    p = _plan(client, a, c["id"], quote).json()
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    builder = BeautifulSoup(
        pages.get(f"/plans/{p['id']}", headers={"Accept-Language": "en"}).text, "html.parser"
    )
    assert builder.select_one("#f-discount_amount")["value"] == "10000"
    assert builder.select_one(".quote-amount-off").get_text(strip=True) == "−NT$10,000"
    assert builder.select_one(".qb-totals .subtotal").get_text(strip=True) == "NT$1,070,000"
    url = client.post(f"/api/v1/plans/{p['id']}/share", json={}, headers=a.headers).json()["url"]
    shared = BeautifulSoup(
        TestClient(client.app).get(url[url.index("/s/") :] + "?lang=zh-TW").text, "html.parser"
    )
    assert shared.select_one(".amount-off").get_text(strip=True) == "−NT$10,000"
    assert "報價折抵金額" in shared.get_text()


def test_a_builder_amount_may_be_written_with_thousands_separators(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]}).json()
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{p['id']}").text, "html.parser")
    form = page.select_one("#quote-builder form[action$='/quote']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    for sel in form.select("select[name]"):
        chosen = sel.select_one("option[selected]") or sel.select_one("option")
        data[sel["name"]] = chosen["value"] if chosen else ""
    data |= {"discount_amount": "10,000", "action": "save"}
    r = pages.post(f"/plans/{p['id']}/quote", data=data)
    assert r.status_code == 303, r.text[:500]
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert got["quote"]["discount_amount"] == "10000"
    assert got["quote_totals"]["subtotal"] == "1070000"


def test_an_amount_off_is_asked_for_again_when_the_customer_pays_in_another_currency(
    client: TestClient,
) -> None:
    """NT$10,000 converted would be an odd US$ figure no one agreed to: asked for again."""
    a = make_account(client, "sales")
    twd = _customer(client, a)
    usd = _customer(client, a, name="US buyer", tax_id="", currency="USD", export=True)
    quote = {"lines": [{"option_key": TERM}], "discount_amount": "10000"}
    plan = _plan(client, a, twd["id"], quote).json()
    r = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"customer_id": usd["id"], "quote": quote, "version": plan["version"]},
        headers={**a.headers, "Accept-Language": "en"},
    )
    assert r.status_code == 422
    err = r.json()["detail"][0]
    assert err["loc"][-1] in ("discount_amount", "quote.discount_amount")
    assert "enter the discount in USD" in err["msg"]


def test_a_duplicate_keeps_the_amount_off(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    quote = {"lines": [{"option_key": TERM}], "discount_amount": "10000"}
    p = _plan(client, a, c["id"], quote).json()
    dup = client.post(f"/api/v1/plans/{p['id']}/duplicate", headers=a.headers)
    assert dup.status_code == 201, dup.text
    assert dup.json()["quote"]["discount_amount"] == "10000"
    assert dup.json()["quote_totals"]["subtotal"] == p["quote_totals"]["subtotal"] == "1070000"
