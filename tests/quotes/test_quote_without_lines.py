"""A quote without lines shows its tax and its total including tax, as every quote does.

PRODUCT.md §6: a quote shows 未稅 (subtotal), 稅額 and 含稅 (total). A plan saved without quote
lines printed a 報價單 — a number, a validity date — whose summary gave the quoted option's
total excluding tax only (QA). The quoted total is the option priced as a line of it would
be: tests.plan_quotes' workload (Llama 2 13B full fine-tune on 4 × H100) is billed 28 hours
at NT$480/h (4 × NT$120, seed 003 T8) = NT$13,440; 5% 營業稅 = NT$672; NT$14,112 in all. An
export customer is charged 0%: NT$13,440 in all.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.plan_quotes import WORKLOAD
from tests.quotes.test_quote_fixes import _flat, _html
from tests.quotes.test_quote_life import _customer


def _plan(client: TestClient, **customer: object) -> int:
    a = make_account(client, "sales")
    c = _customer(client, a, **customer)
    body = {"name": "No lines yet", "workload": WORKLOAD, "customer_id": c["id"]}
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    assert not (r.json()["quote"] or {}).get("lines")
    return int(r.json()["id"])


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "en",
            ["Quoted total (excl. tax) NT$13,440", "Tax 5% NT$672", "Total (incl. tax) NT$14,112"],
        ),
        (
            "zh-TW",
            ["報價總額（未稅） NT$13,440", "稅額（營業稅 5%） NT$672", "總計（含稅） NT$14,112"],
        ),
    ],
)
def test_a_domestic_customers_quote_without_lines_adds_5_percent(
    client: TestClient, lang: str, words: list[str]
) -> None:
    text = _flat(_html(client, _plan(client), lang))
    for w in words:
        assert w in text, (w, text[:600])


def test_an_export_customers_quote_without_lines_is_zero_rated(client: TestClient) -> None:
    text = _flat(_html(client, _plan(client, name="Export Co", tax_id="", export=True), "en"))
    assert "Tax 0% (zero-rated export) NT$0" in text
    assert "Total (incl. tax) NT$13,440" in text
