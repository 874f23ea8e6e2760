"""What reaches the customer is true (QA of stop 33): no line that cannot run, no "zero-rated
export" told to a domestic buyer, no quote shown as open past its validity date, and dates on
Taiwan's calendar."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.dates import business_today
from app.plans.models import Plan
from app.plans.service import today
from app.web.templating import clock
from tests.accounts.helpers import Account, make_account
from tests.plan_quotes import WORKLOAD
from tests.quotes.test_quote_life import TERM, _customer


def _plan(client: TestClient, a: Account, customer_id: int, quote: dict[str, Any]) -> Any:
    """The API's answer to saving WORKLOAD with `quote` (a refusal is the test's to read;
    test_quote_life's `_plan` asserts a 201)."""
    body = {"name": "客服模型", "workload": WORKLOAD, "customer_id": customer_id, "quote": quote}
    return client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "en"})


def _not_runnable_key(client: TestClient, a: Account, customer_id: int) -> str:
    """An option the engine marks not runnable for WORKLOAD (4 GPUs on NVLink in one machine:
    a provider renting single-GPU machines cannot hold it)."""
    p = _plan(client, a, customer_id, {"lines": [{"option_key": TERM}]}).json()
    keys = [o["key"] for o in p["result"]["cost"]["options"] if o["feasible"] is False]
    assert keys, "WORKLOAD should have an option that cannot hold its 4-GPU NVLink group"
    return str(keys[0])


def test_an_option_that_cannot_run_the_plan_is_not_a_quote_line(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    key = _not_runnable_key(client, a, c["id"])
    quote = {"lines": [{"option_key": TERM}, {"option_key": key, "quantity": "4"}]}
    r = _plan(client, a, c["id"], quote)
    assert r.status_code == 422
    err = r.json()["detail"][0]
    assert err["loc"] == ["body", "quote", "lines", 1, "option_key"]
    assert "cannot run this plan" in err["msg"]


def test_the_refusal_is_in_the_readers_language(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    key = _not_runnable_key(client, a, c["id"])
    body = {"name": "x", "workload": WORKLOAD, "customer_id": c["id"],
            "quote": {"lines": [{"option_key": key}]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers={**a.headers, "Accept-Language": "zh-TW"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["msg"].startswith("無法執行此方案")


@pytest.mark.parametrize(("lang", "words"), [("en", "is a domestic customer"), ("zh-TW", "國內")])
def test_a_domestic_customers_quote_at_zero_tax_is_refused_when_saved(
    client: TestClient, lang: str, words: str
) -> None:
    """PRODUCT.md §6: 5% on a domestic sale, 0% on an export. At 0% the document printed
    「外銷零稅率」 to a domestic buyer with a 統一編號; sending refused it, but a draft can be
    shared and downloaded, so it is refused when saved (QA), naming the field, in the
    reader's language, with nothing saved."""
    a = make_account(client, "sales")
    c = _customer(client, a)
    body = {"name": "客服模型", "workload": WORKLOAD, "customer_id": c["id"],
            "quote": {"lines": [{"option_key": TERM}], "tax_rate": "0"}}  # fmt: skip
    headers = {**a.headers, "Accept-Language": lang}
    before = client.get("/api/v1/plans", headers=a.headers).json()["total"]
    r = client.post("/api/v1/plans", json=body, headers=headers)
    assert r.status_code == 422, r.text
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "quote", "tax_rate"]
    assert c["name"] in err["msg"] and words in err["msg"]
    assert client.get("/api/v1/plans", headers=a.headers).json()["total"] == before  # none saved
    # A plan at 5% cannot be moved to 0% either; an export customer at 0% is quoted and sent.
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]}).json()
    r = client.put(
        f"/api/v1/plans/{p['id']}",
        json={"quote": {"lines": [{"option_key": TERM}], "tax_rate": "0"}, "version": 1},
        headers=headers,
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "quote", "tax_rate"]
    export = _customer(client, a, name="Export Co", tax_id="", export=True, language="en")
    e = _plan(client, a, export["id"], {"lines": [{"option_key": TERM}], "tax_rate": "0"}).json()
    assert client.post(f"/api/v1/plans/{e['id']}/send", headers=a.headers).status_code == 200


def test_the_share_page_shows_a_quote_past_its_date_as_expired(client: TestClient) -> None:
    """The share page showed "sent" and the accept form until something else expired it."""
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]}).json()
    url = client.post(f"/api/v1/plans/{p['id']}/share", json={}, headers=a.headers).json()["url"]
    link = url[url.index("/s/") :]
    assert client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).status_code == 200
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        row = s.get(Plan, p["id"])
        assert row is not None
        row.valid_until = today() - timedelta(days=1)
        s.add(row)
        s.commit()
    page = TestClient(client.app).get(link, headers={"Accept-Language": "en"})
    assert page.status_code == 200
    assert "accept-form" not in page.text and 'action="' + link + '/accept"' not in page.text
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert got["status"] == "expired"


def test_quotes_are_dated_on_taipeis_calendar() -> None:
    """Taipei is UTC+8 all year: 2026-12-05 23:30 UTC is already the 6th there, 15:59 UTC
    still the 5th."""
    assert business_today(datetime(2026, 12, 5, 23, 30, tzinfo=UTC)).isoformat() == "2026-12-06"
    assert business_today(datetime(2026, 12, 5, 15, 59, tzinfo=UTC)).isoformat() == "2026-12-05"
    assert business_today(datetime(2026, 12, 5, 16, 0, tzinfo=UTC)).isoformat() == "2026-12-06"
    assert today() == business_today()


def test_an_instants_time_of_day_says_its_clock() -> None:
    # naive values are UTC, as the tables store them
    assert clock(datetime(2026, 12, 5, 23, 30)) == "07:30 UTC+8"
    assert clock(datetime(2026, 12, 5, 1, 5, tzinfo=UTC)) == "09:05 UTC+8"
    assert clock(None) == ""


def test_a_pdf_asked_for_without_a_language_is_in_the_customers(client: TestClient) -> None:
    """QA: GET /api/v1/plans/{id}/pdf gave an English-speaking customer's quote in 中文."""
    a = make_account(client, "sales")
    c = _customer(client, a, name="Acme", tax_id="", language="en", export=True)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]}).json()
    r = client.get(f"/api/v1/plans/{p['id']}/pdf", headers=a.headers)
    assert r.status_code == 200 and r.content.startswith(b"%PDF")
    assert r.headers["content-disposition"].endswith(f'{p["quote_number"]}-en.pdf"')
    asked = client.get(f"/api/v1/plans/{p['id']}/pdf", params={"lang": "zh-TW"}, headers=a.headers)
    assert asked.headers["content-disposition"].endswith(f'{p["quote_number"]}-zh-TW.pdf"')


def test_a_contracts_price_is_not_sent_for_fewer_months_than_the_contract(
    client: TestClient,
) -> None:
    """QA: a 12-month contract's price (NT$40,000 against NT$50,000 monthly) was quoted for
    7 months, a discount no approval saw. WORKLOAD asks for a 6-month term."""
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM, "months": "4"}]}).json()
    (term,) = [o for o in p["result"]["cost"]["options"] if o["key"] == TERM]
    assert term["contract_months"] == 6
    r = client.post(f"/api/v1/plans/{p['id']}/send", headers={**a.headers, "Accept-Language": "en"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["msg"] == (
        "line 1 quotes a 6-month contract's price for 4 months: quote at least 6 months, or "
        "choose monthly rent for a shorter period"
    )
    ok = _plan(client, a, c["id"], {"lines": [{"option_key": TERM, "months": "6"}]}).json()
    assert client.post(f"/api/v1/plans/{ok['id']}/send", headers=a.headers).status_code == 200


def test_a_number_with_underscores_is_refused_not_read(client: TestClient) -> None:
    """QA: "1_000" was read as 1000 (Python's literal syntax) while "1,000" was refused."""
    a = make_account(client, "sales")
    c = _customer(client, a)
    line = {"description": "NAS", "unit_price": "1_000", "quantity": "1"}
    r = _plan(client, a, c["id"], {"lines": [line]})
    assert r.status_code == 422
    err = r.json()["detail"][0]
    assert err["loc"] == ["body", "quote", "lines", 0, "unit_price"]
    assert "without underscores" in err["msg"]
