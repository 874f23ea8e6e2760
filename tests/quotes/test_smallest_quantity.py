"""A positive quantity or months below 0.0001 (pricing.QUANTITY_PLACES, the precision lines
keep) is refused naming the field (QA fuzz: a quantity of 1e-30 was a 201, a line priced at
NT$0 that printed as "0 × NT$1,000"). A quantity of 0 is refused too: the customer's PDF
printed the line at 0 × its price (QA, 2026-12-07); a line left out is removed
(tests/quotes/test_quote_decimals.py)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import WORKLOAD


@pytest.mark.parametrize(
    ("field", "value", "ok"),
    [("quantity", "1e-30", False), ("quantity", "0.00005", False), ("months", "1e-9", False),
     # a line's amount must still be whole NT$: 10,000 × 0.0001 × 1 = 1; 2,500 × 2 × 0.0548
     # = 274
     ("quantity", "0.0001", True), ("months", "0.0548", True)],
)  # fmt: skip
def test_a_quantity_below_the_smallest_unit_is_refused(
    client: TestClient, field: str, value: str, ok: bool
) -> None:
    a = make_account(client, "sales")
    price = "10000" if (field, value) == ("quantity", "0.0001") else "2500"
    line = {"description": "NAS", "unit_price": price, "quantity": "2", "months": "1"}
    line[field] = value
    r = client.post(
        "/api/v1/plans",
        json={"name": f"q {field} {value}", "workload": WORKLOAD, "quote": {"lines": [line]}},
        headers={**a.headers, "Accept-Language": "zh-TW"},
    )
    if ok:
        assert r.status_code == 201, r.text
        return
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "quote", "lines", 0, field]
    assert "0.0001" in err["msg"]
