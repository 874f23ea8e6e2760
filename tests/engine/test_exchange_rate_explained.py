"""A converted amount is defended by its exchange rate: the comparison states the price
list's rate and its date wherever it shows a price in another currency than its own.

The shipped list (app/data/catalog.yaml `fx`) holds 32 NT$ per US$ (PRODUCT.md §4), dated
with the list; AWS, GCP, Azure, Lambda and RunPod are priced in US$.
"""

from __future__ import annotations

import pytest

from app.catalog.shipped import shipped_price_book
from app.costs.service import CostRequest, compare


def _rate(currency: str) -> dict:
    book = shipped_price_book()
    cost = compare(CostRequest(gpu_count=8, months=36, currency=currency), prices=book)
    (rate,) = [e for e in cost["explain"] if e["figure"] == "Exchange rate"]
    return rate


def test_usd_prices_shown_in_nt_dollars_state_the_rate_and_its_date() -> None:
    rate = _rate("TWD")
    fx = shipped_price_book().fx[0]
    assert (fx.base, fx.quote, fx.rate) == ("USD", "TWD", 32.0)
    assert rate["value"] == pytest.approx(32.0)
    assert rate["unit"] == "TWD/USD"
    assert f"1 USD = 32 TWD, the price list's rate of {fx.as_of.isoformat()}" in rate["formula"]


def test_nt_dollar_prices_shown_in_us_dollars_state_the_inverse() -> None:
    rate = _rate("USD")
    assert rate["value"] == pytest.approx(1 / 32)  # 0.03125 US$ per NT$
    assert "1 TWD = 0.03125 USD" in rate["formula"] and "(1 USD = 32 TWD)" in rate["formula"]
