"""A unit price typed below the option's own is a discount, and counts toward the approval
limit like one (QA: a sales engineer's line of NT$1 for the NT$180,000-a-month term was sent
with no approval, where "discount 50%" on the same line waited for an admin).

Figures by hand, seed 003 T8: the 4×H100 server's 6-month term rents at NT$180,000 a month
(tests/quotes/test_quote_life.py); the sales limit is 10%."""

from __future__ import annotations

from decimal import Decimal

from fastapi.testclient import TestClient

from app.quotes import pricing
from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import TERM, _customer
from tests.quotes.test_what_the_customer_is_sent import _plan


def _send(client: TestClient, headers: dict[str, str], plan_id: int) -> int:
    return client.post(f"/api/v1/plans/{plan_id}/send", headers=headers).status_code


def test_a_price_typed_below_the_list_waits_for_approval(client: TestClient) -> None:
    sales = make_account(client, "sales")
    c = _customer(client, sales)
    cheap = _plan(client, sales, c["id"], {"lines": [{"option_key": TERM, "unit_price": "1"}]})
    assert cheap.status_code == 201, cheap.text
    line = cheap.json()["quote"]["lines"][0]
    assert (line["unit_price"], line["list_price"]) == ("1", "180000")
    # 1 − 1 / 180,000 = 99.9994% → 100.00% at two places
    assert pricing.max_discount_pct(cheap.json()["quote"]) == Decimal("100.00")
    assert _send(client, sales.headers, cheap.json()["id"]) == 409
    # NT$171,000 is 5% off: within the limit, sent.
    fair = _plan(client, sales, c["id"], {"lines": [{"option_key": TERM, "unit_price": "171000"}]})
    assert pricing.max_discount_pct(fair.json()["quote"]) == Decimal("5.00")
    assert _send(client, sales.headers, fair.json()["id"]) == 200


def test_price_and_discount_compound_and_a_higher_price_offsets_nothing(
    client: TestClient,
) -> None:
    sales = make_account(client, "sales")
    c = _customer(client, sales)
    # NT$171,000 (5% below) with 5% off the line: 1 − 0.95 × 0.95 = 9.75%.
    both = {"lines": [{"option_key": TERM, "unit_price": "171000", "discount_pct": "5"}]}
    assert pricing.max_discount_pct(_plan(client, sales, c["id"], both).json()["quote"]) == (
        Decimal("9.75")
    )
    # NT$200,000 (above the list) with 12% off is 12% off, not 2.2%.
    dear = {"lines": [{"option_key": TERM, "unit_price": "200000", "discount_pct": "12"}]}
    assert pricing.max_discount_pct(_plan(client, sales, c["id"], dear).json()["quote"]) == (
        Decimal("12.00")
    )


def test_every_option_quoted_as_it_comes_is_no_discount(client: TestClient) -> None:
    """An untouched line keeps exactly its list price, hourly rates and purchases included:
    no phantom discount from rounding."""
    sales = make_account(client, "sales")
    c = _customer(client, sales)
    first = _plan(client, sales, c["id"], {"lines": [{"option_key": TERM}]}).json()
    keys = [o["key"] for o in first["result"]["cost"]["options"] if o.get("feasible", True)]
    assert len(keys) >= 4
    every = _plan(client, sales, c["id"], {"lines": [{"option_key": k} for k in keys]}).json()
    for line in every["quote"]["lines"]:
        assert line["unit_price"] == line["list_price"], line
    assert pricing.max_discount_pct(every["quote"]) == Decimal("0.00")


def test_a_line_of_the_sellers_own_has_no_list_price() -> None:
    own = {"lines": [{"description": "安裝", "unit_price": "1", "quantity": "1", "months": "1"}],
           "discount_pct": "0"}  # fmt: skip
    assert pricing.max_discount_pct(own) == Decimal("0.00")
