"""A date is YYYY-MM-DD at every door (app/dates.py): pydantic's lax `date` read "0" as the
Unix epoch, and QA's price list effective "0" was saved as 1970-01-01 without a word;
"20270101" would have been 1970-08-23."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.catalog.helpers import post_form, soup


@pytest.mark.parametrize("typed", ["0", "20270101", "2027-02-30", "1.5"])
def test_the_price_list_form_refuses_a_date_that_is_not_yyyy_mm_dd(
    catalog_client: TestClient, typed: str
) -> None:
    lists = len(catalog_client.get("/api/v1/price-lists").json())
    r = post_form(
        catalog_client,
        "/catalog/price-lists/new",
        {"name": f"dated {typed}", "effective_date": typed},
    )
    assert r.status_code == 422
    assert soup(r.text).select_one("#err-effective_date").get_text(strip=True) == (
        "Enter a date, e.g. 2027-01-31."
    )
    assert len(catalog_client.get("/api/v1/price-lists").json()) == lists


def test_the_price_list_form_still_takes_a_real_date(catalog_client: TestClient) -> None:
    r = post_form(
        catalog_client,
        "/catalog/price-lists/new",
        {"name": "dated ok", "effective_date": "2027-01-01"},
    )
    assert r.status_code == 303
    made = [p for p in catalog_client.get("/api/v1/price-lists").json() if p["name"] == "dated ok"]
    assert made and made[0]["effective_date"] == "2027-01-01"


def test_the_import_query_refuses_an_epoch_number(catalog_client: TestClient) -> None:
    doc = catalog_client.get("/api/v1/catalog/export").json()
    r = catalog_client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "name": "epoch", "effective_date": "0"},
        json=doc,
    )
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", "effective_date"]


@pytest.mark.parametrize("typed", ["1900-01-01", "1999-12-31", "2100-01-01"])
def test_a_price_list_takes_effect_between_2000_and_2099(
    catalog_client: TestClient, typed: str
) -> None:
    """QA C14: a list effective 1900-01-01 was published without a word (app/dates.py
    CATALOG_FIRST/LAST: nothing in the catalog predates GPU computing or lies a century out)."""
    lists = len(catalog_client.get("/api/v1/price-lists").json())
    r = post_form(
        catalog_client,
        "/catalog/price-lists/new",
        {"name": f"dated {typed}", "effective_date": typed},
    )
    assert r.status_code == 422
    assert soup(r.text).select_one("#err-effective_date").get_text(strip=True) == (
        f"must be a day from 2000-01-01 to 2099-12-31 (got {typed})"
    )
    doc = catalog_client.get("/api/v1/catalog/export").json()
    api = catalog_client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "name": f"api {typed}", "effective_date": typed},
        json=doc,
    )
    assert api.status_code == 422
    assert api.json()["detail"][0]["loc"] == ["query", "effective_date"]
    assert "2000-01-01" in api.json()["detail"][0]["msg"]
    assert len(catalog_client.get("/api/v1/price-lists").json()) == lists


def test_the_first_and_last_days_are_allowed(catalog_client: TestClient) -> None:
    for day in ("2000-01-01", "2099-12-31"):
        r = post_form(
            catalog_client,
            "/catalog/price-lists/new",
            {"name": f"edge {day}", "effective_date": day},
        )
        assert r.status_code == 303, r.text
        made = [
            p
            for p in catalog_client.get("/api/v1/price-lists").json()
            if p["name"] == f"edge {day}"
        ]
        assert made and made[0]["effective_date"] == day
