"""A PUT's `quote` changes the fields it gives; the others keep their saved values, as the
plan's own fields do (PlanUpdate: "absent = unchanged"). QA: `{"quote": {"tax_rate":
"0.05"}}` on a quote of three lines, 5 % off and its own payment terms answered 200 with no
lines, the default terms and a total of NT$0."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import TERM, _customer, _plan

QUOTE = {
    "lines": [
        {"option_key": TERM},
        {"description": "NAS 20 TB", "quantity": "1", "unit_price": "8000", "months": "6"},
        {"description": "Setup", "unit": "item", "unit_price": "10000"},
    ],
    "discount_pct": "5",
    "payment_terms": "月結 30 天",
}


def test_a_quote_field_left_out_keeps_its_saved_value(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], QUOTE)
    before = p["quote"]
    assert len(before["lines"]) == 3 and before["payment_terms"] == "月結 30 天"
    r = client.put(
        f"/api/v1/plans/{p['id']}",
        json={"version": p["version"], "quote": {"discount_pct": "10"}},
        headers=a.headers,
    )
    assert r.status_code == 200, r.text
    after = r.json()["quote"]
    assert after["discount_pct"] == "10"
    assert after["lines"] == before["lines"] and after["payment_terms"] == "月結 30 天"
    assert after["valid_until"] == before["valid_until"]
    # 6 months × NT$180,000 (the 6-month term, WORKLOAD) + 48,000 + 10,000 = 1,138,000;
    # 10 % off = 1,024,200; + 5 % 營業稅 = 1,075,410
    assert r.json()["quote_totals"]["subtotal"] == "1024200"
    assert r.json()["quote_totals"]["total"] == "1075410"
    # Lines given replace every line; the terms and discount stay.
    r = client.put(
        f"/api/v1/plans/{p['id']}",
        json={"version": r.json()["version"], "quote": {"lines": [{"option_key": TERM}]}},
        headers=a.headers,
    )
    assert r.status_code == 200, r.text
    q = r.json()["quote"]
    assert len(q["lines"]) == 1 and q["discount_pct"] == "10"
    assert q["payment_terms"] == "月結 30 天"
