"""Quote money is what a buyer can be billed: a unit price has at most the currency's minor unit
(NT$1, US$0.01) and a discount at most 2 decimal places; more is a 422 naming the field, in
the request's language, never a silent rounding. Quantities and months stay exact as typed,
and unit price × quantity × months must come to the currency's minor unit: the document
prints them, and they must multiply out to the printed amount."""

from __future__ import annotations

from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.web.forms import message_for
from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import _customer, _plan


@pytest.mark.parametrize(
    ("quote", "loc"),
    [
        ({"lines": [{"description": "NAS", "unit_price": "8000.123456789012345678"}]},
         ["body", "quote", "lines", 0, "unit_price"]),
        ({"lines": [{"description": "NAS", "unit_price": "8000", "discount_pct": "10.125"}]},
         ["body", "quote", "lines", 0, "discount_pct"]),
        ({"lines": [{"description": "NAS", "unit_price": "8000"}], "discount_pct": "5.555"},
         ["body", "quote", "discount_pct"]),
    ],
)  # fmt: skip
def test_too_many_decimal_places_is_a_422_naming_the_field(
    client: TestClient, quote: dict, loc: list
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    body = {"name": "decimals", "workload": {"model": {"preset": "llama-3.1-8b"}, "task": "lora"},
            "customer_id": c["id"], "quote": quote}  # fmt: skip
    before = client.get("/api/v1/plans", headers=a.headers).json()["total"]
    r = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "en"})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert any(d["loc"] == loc and "decimal places" in d["msg"] for d in detail), detail
    assert client.get("/api/v1/plans", headers=a.headers).json()["total"] == before  # no save


@pytest.mark.parametrize(
    ("currency", "price", "words"),
    [("TWD", "480.5", "whole New Taiwan dollars"), ("USD", "0.0125", "cents")],
)
def test_a_price_below_the_currencys_minor_unit_is_refused_not_rounded(
    client: TestClient, currency: str, price: str, words: str
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name=f"{currency} buyer", tax_id="", currency=currency,
                  export=currency != "TWD")  # fmt: skip
    body = {"name": "minor unit", "workload": {"model": {"preset": "llama-3.1-8b"},
            "task": "lora"}, "customer_id": c["id"],
            "quote": {"lines": [{"description": "GPU-minutes", "unit_price": price}]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "en"})
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "lines", 0, "unit_price"] and words in detail["msg"]
    zh = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "zh-TW"})
    assert "此幣別" in zh.json()["detail"][0]["msg"]


def test_exact_quantities_and_minor_unit_prices_are_kept(client: TestClient) -> None:
    # Kept as typed, never rounded: US$0.13 × 12,345.5 × 0.5 = US$802.4575 does not come to
    # whole cents (M5 of the QA pass: the printed price × quantity × months must be the printed
    # amount exactly), US$0.14 × 12,345.5 × 0.5 = US$864.185 neither; US$0.20 × 12,345.5 × 0.5
    # = US$1,234.55 does.
    a = make_account(client, "sales")
    c = _customer(client, a, name="USD buyer", tax_id="", currency="USD", export=True)
    line = {"description": "GPU-minutes", "unit_price": "0.20", "quantity": "12345.5",
            "months": "0.5"}  # fmt: skip
    p = _plan(client, a, c["id"], {"lines": [line]})
    (stored,) = p["quote"]["lines"]
    assert Decimal(stored["quantity"]) == Decimal("12345.5")
    assert Decimal(stored["months"]) == Decimal("0.5")
    assert Decimal(stored["unit_price"]) == Decimal("0.20")
    assert p["quote_totals"]["subtotal"] == "1234.55"


@pytest.mark.parametrize("price", ["0.13", "0.14"])
def test_a_line_that_does_not_come_to_whole_cents_is_a_422_naming_its_quantity(
    client: TestClient, price: str
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name=f"USD buyer {price}", tax_id="", currency="USD", export=True)
    line = {"description": "GPU-minutes", "unit_price": price, "quantity": "12345.5",
            "months": "0.5"}  # fmt: skip
    body = {"name": "inexact", "workload": {"model": {"preset": "llama-3.1-8b"}, "task": "lora"},
            "customer_id": c["id"], "quote": {"lines": [line]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "en"})
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "lines", 0, "quantity"]
    assert "whole cents" in detail["msg"]
    zh = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "zh-TW"})
    assert zh.json()["detail"][0]["msg"] == "單價 × 數量 × 月數須為整數分：請調整數量或月數"


def test_the_form_message_is_in_the_page_language() -> None:
    err = {"type": "decimal_max_places", "ctx": {"decimal_places": 2}}
    i18n.activate("zh-TW")
    try:
        assert message_for(err) == "最多 2 位小數。"
    finally:
        i18n.activate("en")
    assert message_for(err) == "At most 2 decimal places."


@pytest.mark.parametrize(
    ("line", "field", "saved"),
    [
        # NT$10^12 × 10 × 1 = NT$10^13: the most a line may come to
        ({"description": "Campus", "unit_price": "1000000000000", "quantity": "10"}, None, True),
        # the fields' own caps: NT$10^12 × 10^9 × 120 months = NT$1.2 × 10^23 (QA: the PDF's
        # amount column ran off the page and its total lost the other lines)
        ({"description": "Huge", "unit_price": "1000000000000", "quantity": "1000000000",
          "months": "120"}, "quantity", False),
        ({"description": "Huge", "unit_price": "999999999999", "quantity": "11"},
         "quantity", False),
        ({"description": "Huge", "unit_price": "100000000000", "months": "101"}, "unit_price",
         False),
    ],
)  # fmt: skip
def test_a_line_may_come_to_at_most_ten_trillion(
    client: TestClient, line: dict, field: str | None, saved: bool
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    body = {"name": "ten trillion", "workload": {"model": {"preset": "llama-3.1-8b"},
            "task": "lora"}, "customer_id": c["id"], "quote": {"lines": [line]}}  # fmt: skip
    before = client.get("/api/v1/plans", headers=a.headers).json()["total"]
    r = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "en"})
    if saved:
        assert r.status_code == 201, r.text
        assert Decimal(r.json()["quote_totals"]["lines_total"]) == Decimal(10) ** 13
        return
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "lines", 0, field]
    assert "ten trillion" in detail["msg"]
    assert client.get("/api/v1/plans", headers=a.headers).json()["total"] == before  # no save
    zh = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "zh-TW"})
    assert "十兆" in zh.json()["detail"][0]["msg"]


@pytest.mark.parametrize("quantity", ["0", "0.0", "-0"])
def test_a_line_of_quantity_zero_is_refused_not_printed(client: TestClient, quantity: str) -> None:
    # QA: quantity 0 was saved, and the customer's PDF printed 「導入與模型調校服務 … 0 …
    # NT$0」. A line left out is removed; a free item keeps quantity 1 at a price of 0.
    a = make_account(client, "sales")
    c = _customer(client, a)
    line = {"description": "Onboarding", "unit_price": "150000", "quantity": quantity}
    body = {"name": "zero", "workload": {"model": {"preset": "llama-3.1-8b"}, "task": "lora"},
            "customer_id": c["id"], "quote": {"lines": [line]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "en"})
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "lines", 0, "quantity"]
    assert "remove the line" in detail["msg"]
    free = {"description": "Onboarding", "unit_price": "0", "quantity": "1"}
    r = client.post("/api/v1/plans", json={**body, "quote": {"lines": [free]}}, headers=a.headers)
    assert r.status_code == 201, r.text
