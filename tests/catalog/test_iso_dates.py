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
