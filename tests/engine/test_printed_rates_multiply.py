"""A rental or cloud formula multiplies out as printed, to the cent.

QA, a bank's 16-GPU chat service priced in US$: "16 × US$2,183 (runpod-secure-h100-sxm-x1)
= US$34,923/month" (16 × 2,183 = 34,928) and "US$34,923/month × 36 months = US$1,257,235"
(34,923 × 36 = 1,257,228): amounts of 1,000 or more lost their cents, so the product of the
printed numbers was not the printed total. Rates are now printed in full and totals as
billed (rounded once to NT$1 / US$0.01), so a reader's calculator gives the printed figure.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

BANK = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "users": 200,
        "slo": {"ttft_s": 1, "tokens_per_s_per_user": 20}, "rent_months": 36}  # fmt: skip
LORA = {"model": {"preset": "llama-3.1-70b"}, "task": "lora", "tokens": 2e8, "rent_months": 7}
MONEY = r"(?:NT|US)\$"
# Words between the numbers of a product: units and the "h billed" of an hourly total.
UNITS = re.compile(r"/h|/month|h/month|h billed|months?|\bh\b")
# Parentheses that name something (an offer id, "= NT$1,761.28/h at 32 TWD/USD"), not "(1 − 0.2)".
NAMES = re.compile(r"\([^()]*[A-Za-z=][^()]*\)")


def _printed_product(formula: str) -> tuple[Decimal, Decimal] | None:
    """(left side multiplied as printed, right side as printed), for a formula that is one
    product of numbers (optionally a sum per offer), else None."""
    if formula.count(" = ") < 1:
        return None
    left, right = formula.split(" = ")[-2:]
    total = re.match(rf"−?{MONEY}([\d,]+(?:\.\d+)?)", right.strip())
    if total is None:
        return None
    # A converted price multiplies in the plan's currency: "US$55.04/h (= NT$1,761.28/h at …)".
    expr = re.sub(rf"{MONEY}[\d,.]+(/h)? \(= {MONEY}([\d,.]+)/h at [^)]*\)", r"\2", left)
    expr = NAMES.sub("", expr)
    expr = re.sub(MONEY, "", expr)
    expr = UNITS.sub("", expr).replace(",", "").replace("×", "*").replace("−", "-")
    if not re.fullmatch(r"[\d.\s*+()\-]+", expr):
        return None
    # Exact decimal arithmetic, as a calculator does: each printed number a Decimal.
    expr = re.sub(r"(\d+(?:\.\d+)?)", r"D('\1')", expr)
    value = eval(expr, {"__builtins__": {}, "D": Decimal}, {})  # digits * + - ( ) only
    return value, Decimal(total.group(1).replace(",", ""))


def _formulas(client: TestClient, workload: dict[str, Any], currency: str) -> list[str]:
    r = client.post("/api/v1/estimate", json={**workload, "currency": currency})
    assert r.status_code == 200, r.text
    options = r.json()["cost"]["options"]
    return [
        e["formula"]
        for o in options
        if o["kind"].startswith(("rent", "cloud", "mig"))
        for e in o["explain"]
        if e["figure"] != "Total" and "fixed +" not in e["formula"]
    ]


@pytest.mark.parametrize("currency", ["TWD", "USD"])
@pytest.mark.parametrize("workload", [BANK, LORA], ids=["bank-36-months", "lora-7-months"])
def test_every_rental_and_cloud_product_multiplies_out_as_printed(
    client: TestClient, workload: dict[str, Any], currency: str
) -> None:
    checked = 0
    places = Decimal("1") if currency == "TWD" else Decimal("0.01")
    for formula in _formulas(client, workload, currency):
        got = _printed_product(formula)
        if got is None:
            continue
        product, printed = got
        # A rate is printed in full; a total as billed, rounded once.
        assert printed in (product, product.quantize(places, rounding=ROUND_HALF_UP)), formula
        checked += 1
    # Each rental and cloud option prints at least its rate and its total.
    assert checked >= 10


def test_the_usd_runpod_month_by_hand(client: TestClient) -> None:
    # RunPod H100 US$2.99/h × 730 h = US$2,182.70 a month per GPU; 16 GPUs US$34,923.20;
    # 36 months US$1,257,235.20.
    said = [f for f in _formulas(client, BANK, "USD") if "runpod" in f and "US$2,182.70" in f]
    assert said == [
        "16 × US$2,182.70 (runpod-secure-h100-sxm-x1) = US$34,923.20/month",
    ]
    totals = [f for f in _formulas(client, BANK, "USD") if "US$34,923.20/month × 36" in f]
    assert totals == ["US$34,923.20/month × 36 months = US$1,257,235.20 (16 GPUs, 16 nodes)"]
