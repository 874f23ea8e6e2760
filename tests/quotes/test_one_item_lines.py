"""A line quoted as one item stays one item, and a quote saved before amounts had to
multiply out can still be duplicated, exported, moved and repriced.

Two faults found by re-saving real quotes:

- A cost option whose own figures do not multiply out to whole NT$ (NT$279,385 a month for
  half a month = NT$139,692.5) is saved as one item of NT$139,693. The next save — the builder,
  a duplicate, an export read back — gave the line back without its unit, so the item's price
  was read as a rate per month again: "NT$139,693/month × 0.5 months", or a 422.
- Since lines must multiply out to whole dollars (unit price × quantity × months), a quote
  saved before that rule (NT$35,001 × 2.5 = NT$87,502.5, printed as NT$87,503) could no
  longer be duplicated, exported and imported, moved to another customer or repriced: each
  answered 422 on a line nobody had just typed. Such a line is now carried as one item at
  the amount its document printed.

The plan is tests.plan_quotes.WORKLOAD: the provider's 4-GPU server at NT$200,000 a month,
NT$180,000 on its 6-month term (seed 003 T8).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlmodel import Session

from app.plans.models import Plan
from app.plans.service import quote_input
from app.quotes import pricing
from app.quotes.models import QuoteIn
from tests.accounts.helpers import Account, make_account, sign_in
from tests.quotes.test_builder_pages import _form
from tests.quotes.test_quote_life import TERM, _customer, _plan

TODAY = date(2026, 12, 3)
HALF_MONTH = {"key": "x", "kind": "rent_monthly", "total": 139692.5, "monthly_rate": 279385,
              "billed": {"unit": "month", "quantity": 0.5}}  # fmt: skip


def _resolve(quote: dict[str, Any]) -> dict[str, Any]:
    return pricing.resolve(
        QuoteIn.model_validate(quote),
        options=[HALF_MONTH],
        plan_currency="TWD",
        currency="TWD",
        hours_per_month=730.0,
        export=False,
        default_terms="terms",
        today=TODAY,
    )


def test_an_option_saved_as_one_item_reads_back_as_one_item() -> None:
    # 279,385 × 0.5 = 139,692.5 → one item of NT$139,693 (half up); saved again, the same.
    first = _resolve({"lines": [{"option_key": "x"}]})
    again = _resolve(quote_input(first))
    for stored in (first, again):
        (line,) = stored["lines"]
        assert (line["unit"], line["unit_price"], line["quantity"], line["months"]) == (
            "item", "139693", "1", "1",
        )  # fmt: skip
        assert pricing.totals(stored).line_amounts == (Decimal(139693),)


def test_an_option_line_can_be_quoted_as_one_item_through_the_api(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="One Item Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM, "unit": "item"}]})
    # NT$180,000 a month × 6 months = NT$1,080,000, as one item.
    (line,) = p["quote"]["lines"]
    assert (line["unit"], line["unit_price"], line["quantity"]) == ("item", "1080000", "1")
    assert p["quote_totals"]["line_amounts"] == ["1080000"]
    r = client.put(f"/api/v1/plans/{p['id']}", headers=a.headers,
                   json={"version": p["version"],
                         "quote": {"lines": [{"option_key": TERM, "unit": "item", "months": "3"}]}})  # fmt: skip
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"][-1] == "months" and "one-off line has no months" in detail["msg"]


def test_the_builder_saves_an_option_item_as_an_item_again(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Builder Item Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM, "unit": "item"}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    data = _form(BeautifulSoup(pages.get(f"/plans/{p['id']}").text, "html.parser"))
    assert data["line-0-unit"] == "item" and data["line-0-months"] == ""
    r = pages.post(f"/plans/{p['id']}/quote", data={**data, "discount_pct": "1", "action": "save"})
    assert r.status_code == 303, r.text
    again = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    (line,) = again["quote"]["lines"]
    assert (line["unit"], line["unit_price"], line["quantity"]) == ("item", "1080000", "1")
    # 1,080,000 − 1% = 1,069,200. (Read as a monthly rate it would be 1,080,000 × 6.)
    assert again["quote_totals"]["subtotal"] == "1069200"


def _age(client: TestClient, plan_id: int, lines: list[dict[str, str]]) -> None:
    """Store `lines` on the plan as a quote saved before the whole-dollar rule would."""
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None and plan.quote is not None
        plan.quote = {**plan.quote, "lines": lines}
        plan.quote_totals = pricing.totals(plan.quote).public()
        s.add(plan)
        s.commit()


OLD_LINES = [
    # NT$35,001 × 2.5 = 87,502.5, printed as NT$87,503 (line_amount rounds once)
    {"description": "Installation", "unit": "month", "unit_price": "35001", "quantity": "2.5",
     "months": "1", "discount_pct": "0"},
    # the term option at a typed NT$150,001 for 6 months × 0.5 = 450,003, whole: kept as is
    {"option_key": TERM, "kind": "rent_term", "unit": "month", "unit_price": "150001",
     "quantity": "0.5", "months": "6", "discount_pct": "0"},
]  # fmt: skip


@pytest.fixture
def old_quote(client: TestClient) -> tuple[Account, dict[str, Any]]:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Old Quote Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    _age(client, p["id"], OLD_LINES)
    p = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert p["quote_totals"]["line_amounts"] == ["87503", "450003"]
    return a, p


def _as_saved(p: dict[str, Any]) -> None:
    first, second = p["quote"]["lines"]
    assert (first["unit"], first["unit_price"], first["quantity"]) == ("item", "87503", "1")
    assert first["description"] == "Installation"
    assert (second["unit"], second["unit_price"], second["quantity"], second["months"]) == (
        "month", "150001", "0.5", "6",
    )  # fmt: skip
    # The amounts the old document printed, now exactly unit price × quantity × months.
    assert p["quote_totals"]["line_amounts"] == ["87503", "450003"]


def test_an_old_quote_can_be_duplicated(
    client: TestClient, old_quote: tuple[Account, dict[str, Any]]
) -> None:
    a, p = old_quote
    r = client.post(f"/api/v1/plans/{p['id']}/duplicate", headers=a.headers)
    assert r.status_code == 201, r.text
    _as_saved(r.json())


def test_an_old_quote_can_be_exported_and_imported(
    client: TestClient, old_quote: tuple[Account, dict[str, Any]]
) -> None:
    a, p = old_quote
    exported = client.get(f"/api/v1/plans/{p['id']}/export", headers=a.headers)
    assert exported.status_code == 200, exported.text
    body = {**exported.json(), "reprice": False}
    r = client.post("/api/v1/plans/import", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    _as_saved(r.json())


def test_an_old_quote_can_move_to_another_customer(
    client: TestClient, old_quote: tuple[Account, dict[str, Any]]
) -> None:
    a, p = old_quote
    other = _customer(client, a, name="Other Co", tax_id="12345675")
    r = client.put(f"/api/v1/plans/{p['id']}", headers=a.headers,
                   json={"version": p["version"], "customer_id": other["id"]})  # fmt: skip
    assert r.status_code == 200, r.text
    _as_saved(r.json())


def test_every_line_keeps_its_unit_when_duplicated_or_exported(client: TestClient) -> None:
    # QA: a free hourly line (NT$130 × 250 h) came back from a duplicate as "NT$130/month ×
    # 250": given back with its months multiplier and without its unit, it read as monthly.
    a = make_account(client, "sales")
    c = _customer(client, a, name="Units Co")
    lines = [
        {"option_key": TERM},
        {"description": "Installation", "unit_price": "35000"},  # one-off
        {"description": "NAS 20 TB", "unit_price": "8000", "months": "6"},  # per month
        {"description": "Peak GPU hours", "unit_price": "130", "quantity": "250", "unit": "hour"},
    ]
    p = _plan(client, a, c["id"], {"lines": lines})
    units = ["month", "item", "month", "hour"]
    assert [ln["unit"] for ln in p["quote"]["lines"]] == units
    copy = client.post(f"/api/v1/plans/{p['id']}/duplicate", headers=a.headers)
    assert copy.status_code == 201, copy.text
    exported = client.get(f"/api/v1/plans/{p['id']}/export", headers=a.headers).json()
    imported = client.post("/api/v1/plans/import", json={**exported, "reprice": False},
                           headers=a.headers)  # fmt: skip
    assert imported.status_code == 201, imported.text
    for again in (copy.json(), imported.json()):
        assert [ln["unit"] for ln in again["quote"]["lines"]] == units
        # 1,080,000 + 35,000 + 8,000 × 6 + 130 × 250 = 1,195,500, as before
        assert again["quote_totals"]["lines_total"] == p["quote_totals"]["lines_total"] == "1195500"


@pytest.mark.parametrize("line", [{"option_key": "x", "months": "1e-10"},
                                  {"description": "NAS", "unit_price": "8000", "months": "1e-10"}])  # fmt: skip
def test_months_that_clean_to_nothing_are_refused(line: dict[str, str]) -> None:
    # QA: 1e-10 months passed "more than 0", was cleaned of float noise to 0 and saved: a
    # billed line of NT$0. The quote's schema now refuses any positive months below 0.0001
    # (QuoteLineIn, tests/quotes/test_smallest_quantity.py) before pricing sees them.
    with pytest.raises(ValidationError) as e:
        _resolve({"lines": [line]})
    (err,) = e.value.errors()
    assert err["loc"] == ("lines", 0, "months") and "0.0001" in err["msg"]


@pytest.mark.parametrize(
    ("language", "name"), [("zh-TW", "客服模型（副本）"), ("en", "客服模型 (copy)")]
)
def test_a_duplicate_is_named_in_its_customers_language(
    client: TestClient, language: str, name: str
) -> None:
    # QA: the copy's name heads the customer's quote; a 中文 PDF read "專案 … (copy)".
    a = make_account(client, "sales")
    c = _customer(client, a, name=f"Copy Co {language}", language=language)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    for lang in ("en", "zh-TW"):  # whatever the language the sales engineer works in
        r = client.post(f"/api/v1/plans/{p['id']}/duplicate",
                        headers={**a.headers, "Accept-Language": lang})  # fmt: skip
        assert r.status_code == 201 and r.json()["name"] == name
