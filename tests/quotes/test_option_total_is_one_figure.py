"""An option's total is one figure wherever it is printed: the planner and plan page (the
engine's total, rounded once), the PDF and share page's "Ways to pay", the API, and a quote
line of the option.

QA: Llama 3.1 70B QLoRA on H100 at 60% for 36 months (15,768 busy hours). The planner
priced AWS p5.48xlarge at NT$27,771,863 (NT$1,761.28/h × 15,768 h); the PDF and the share
page printed NT$27,767,448 ("NT$1,761/小時 × 15,768"), their rate rounded to the dollar
before it was multiplied. Every expected figure below is worked out by hand, in Decimal,
in the comment beside it.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from app import i18n
from app.catalog.shipped import shipped_price_book
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest
from app.quotes import document, pricing
from app.quotes.currency import result_in_quote_currency
from tests.quotes.test_quote_fixes import _resolve as quote_of

TODAY = date(2026, 3, 2)
NT = Decimal("1")
CENT = Decimal("0.01")

# AWS p5.48xlarge as the engine prices it for the QA plan: US$55.04/h × 32 TWD/USD =
# NT$1,761.28/h; 1,761.28 × 15,768 h = 27,771,863.04 → NT$27,771,863.
AWS = {"key": "cloud:aws", "kind": "cloud", "hourly_rate": 1761.28, "total": 27771863.0,
       "billed": {"unit": "hour", "quantity": 15768.0, "gpus": 8, "nodes": 1}}  # fmt: skip
# RunPod's monthly H100: US$2,182.70 × 32 = NT$69,846.40/month; × 36 = 2,514,470.40
# → NT$2,514,470.
RUNPOD_MONTH = {"key": "rent_monthly:runpod", "kind": "rent_monthly", "monthly_rate": 69846.4,
                "total": 2514470.0, "billed": {"unit": "month", "quantity": 36.0}}  # fmt: skip
# The house's own hourly rent: NT$120/h × 15,768 h = NT$1,892,160, whole dollars throughout.
HOUSE = {"key": "rent_hourly:house", "kind": "rent_hourly", "hourly_rate": 120.0,
         "total": 1892160.0, "billed": {"unit": "hour", "quantity": 15768.0}}  # fmt: skip


def _resolve(options: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """A quote of one line per option, each at its option's own figures."""
    lines = [{"option_key": o["key"]} for o in options]
    return quote_of({"lines": lines}, options, **{"today": TODAY, **kw})


@pytest.fixture(autouse=True)
def _english() -> None:
    i18n.activate("en")


def test_ways_to_pay_prints_the_engine_total_with_the_rate_in_full() -> None:
    price = document.option_price(AWS, 730.0, "TWD")
    assert price is not None
    assert price["total"] == Decimal(27_771_863)  # not 1,761 × 15,768 = 27,767,448
    assert price["rate_text"] == "NT$1,761.28/h × 15,768 h"
    # The printed figures multiply out once rounded: 1,761.28 × 15,768 = 27,771,863.04.
    product = Decimal("1761.28") * 15768
    assert product == Decimal("27771863.04")
    assert product.quantize(NT, rounding=ROUND_HALF_UP) == price["total"]


def test_a_monthly_rate_with_cents_prints_its_cents_and_the_engine_total() -> None:
    price = document.option_price(RUNPOD_MONTH, 730.0, "TWD")
    assert price is not None
    # 69,846.40 × 36 = 2,514,470.40 → NT$2,514,470 (not 69,846 × 36 = 2,514,456).
    assert price["total"] == Decimal(2_514_470)
    assert price["rate_text"] == "NT$69,846.40/month × 36 months"


def test_a_quote_line_of_an_option_with_a_rate_in_cents_is_one_item_at_its_total() -> None:
    # A TWD unit price is whole NT$: NT$1,761.28/h cannot be one, and NT$1,761/h would make
    # the line NT$27,767,448 beside the NT$27,771,863 the ways-to-pay table shows. The line
    # is one item at the option's total: NT$27,771,863 × 1 = NT$27,771,863.
    stored = _resolve([AWS, RUNPOD_MONTH])
    aws, runpod = stored["lines"]
    assert (aws["unit"], aws["unit_price"], aws["quantity"], aws["months"]) == (
        "item", "27771863", "1", "1",
    )  # fmt: skip
    assert (runpod["unit"], runpod["unit_price"], runpod["quantity"]) == ("item", "2514470", "1")
    assert pricing.totals(stored).line_amounts == (Decimal(27_771_863), Decimal(2_514_470))
    # Untouched, the line is at its list price: no discount is counted for approval.
    assert aws["list_price"] == "27771863" and runpod["list_price"] == "2514470"
    assert pricing.max_discount_pct(stored) == 0


def test_a_quote_line_of_an_option_at_a_whole_rate_stays_rate_times_hours() -> None:
    (line,) = _resolve([HOUSE])["lines"]
    # NT$120/h × 15,768 h = NT$1,892,160, the option's total: printed as rate × hours.
    assert (line["unit"], line["unit_price"], line["quantity"]) == ("hour", "120", "15768")
    assert Decimal(line["unit_price"]) * Decimal(line["quantity"]) == Decimal(1_892_160)
    price = document.option_price(HOUSE, 730.0, "TWD")
    assert price is not None and price["rate_text"] == "NT$120/h × 15,768 h"


def _usd_quote(rate: str) -> dict[str, Any]:
    return {"currency": "USD", "fx": {"base": "USD", "quote": "TWD", "rate": rate,
                                      "as_of": "2026-01-21"}}  # fmt: skip


def test_in_us_dollars_a_whole_cent_rate_is_a_line_of_hours_at_the_converted_total() -> None:
    # At 32 TWD/USD: NT$1,761.28 ÷ 32 = US$55.04/h; × 15,768 h = US$867,870.72 exactly;
    # the total NT$27,771,863 ÷ 32 = 867,870.71875 → US$867,870.72: the same cents.
    fx = pricing.Fx("USD", "TWD", Decimal(32), date(2026, 1, 21))
    (line,) = _resolve([AWS], currency="USD", fx=fx)["lines"]
    assert (line["unit"], line["unit_price"], line["quantity"]) == ("hour", "55.04", "15768")
    assert Decimal("55.04") * 15768 == Decimal("867870.72")
    converted = result_in_quote_currency({"cost": {"currency": "TWD", "options": [AWS]}},
                                         _usd_quote("32"))["cost"]["options"][0]  # fmt: skip
    price = document.option_price(converted, 730.0, "USD")
    assert price is not None
    assert (price["total"], price["rate_text"]) == (
        Decimal("867870.72"),
        "US$55.04/h × 15,768 h",
    )


def test_in_us_dollars_a_rate_past_the_cent_is_one_item_at_the_converted_total() -> None:
    # At 31.5 TWD/USD: NT$1,761.28 ÷ 31.5 = US$55.913650…/h, no cent price. The line is one
    # item at the option's total converted once: 27,771,863 ÷ 31.5 = 881,646.444… →
    # US$881,646.44 (the rate × hours would be 881,646.4457… → .45, a cent off).
    fx = pricing.Fx("USD", "TWD", Decimal("31.5"), date(2026, 1, 21))
    (line,) = _resolve([AWS], currency="USD", fx=fx)["lines"]
    assert (line["unit"], line["unit_price"], line["quantity"]) == ("item", "881646.44", "1")
    assert (Decimal(27771863) / Decimal("31.5")).quantize(CENT, ROUND_HALF_UP) == Decimal(
        "881646.44"
    )
    converted = result_in_quote_currency({"cost": {"currency": "TWD", "options": [AWS]}},
                                         _usd_quote("31.5"))["cost"]["options"][0]  # fmt: skip
    price = document.option_price(converted, 730.0, "USD")
    # A rate printed to 4 places (US$55.9137) × 15,768 h is US$881,647.22, not the total:
    # no rate is printed rather than one that does not multiply out (the total stands alone,
    # with the hours it is for).
    assert price is None


def test_the_qa_plan_prints_the_planner_s_totals_in_the_ways_to_pay_and_a_quote_line() -> None:
    workload = {"model": {"preset": "llama-3.1-70b"}, "task": "qlora", "gpu": "h100-sxm-80gb",
                "utilization": 0.6, "rent_months": 36, "pricing_mode": "capacity"}  # fmt: skip
    req = EstimateRequest.model_validate(workload)
    cost = estimate(req, prices=shipped_price_book()).model_dump(mode="json")["cost"]
    clouds = [o for o in cost["options"] if o["kind"] == "cloud"]
    assert clouds
    stored = _resolve(clouds)
    for option, line, amount in zip(
        clouds, stored["lines"], pricing.totals(stored).line_amounts, strict=True
    ):
        engine_total = Decimal(str(option["total"]))
        price = document.option_price(option, 730.0, "TWD")
        assert price is not None and price["total"] == engine_total, option["key"]
        assert amount == engine_total, option["key"]
        # What each prints multiplies out: rate in full × hours, rounded once.
        rate = Decimal(str(option["hourly_rate"]))
        hours = Decimal(str(option["billed"]["quantity"]))
        assert (rate * hours).quantize(NT, ROUND_HALF_UP) == engine_total, option["key"]
        assert Decimal(line["unit_price"]) * Decimal(line["quantity"]) == engine_total
