"""Catalog input the forms and the import cannot read (QA S1.3, S1.4): a price-list choice
that is not an id, and JSON nested past the parser's depth. Each is an error naming what is
wrong, nothing changes, and no answer is a 500."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from .helpers import post_form, soup

NOT_IDS = ["²", "abc", "0", "-1", "9" * 25, "9" * 5000]
DEEP = "[" * 50_000 + "]" * 50_000


def _lists(client: TestClient) -> list[dict[str, object]]:
    return client.get("/api/v1/price-lists").json()


@pytest.mark.parametrize("source", NOT_IDS)
def test_a_source_list_that_is_not_an_id_is_an_error_beside_it(
    catalog_client: TestClient, source: str
) -> None:
    """It used to raise in int() ('²', 5,000 digits) or overflow SQLite (2^63)."""
    before = _lists(catalog_client)
    r = post_form(
        catalog_client,
        "/catalog/price-lists/new",
        {"name": "Copy", "effective_date": "2027-01-01", "source_list": source},
        headers={"Accept-Language": "zh-TW"},
    )
    assert r.status_code == 422
    page = soup(r.text)
    assert page.select_one("#err-source_list").get_text() == "請從列出的選項中選擇。"
    assert page.select_one("[name=name]")["value"] == "Copy", "the input is kept"
    assert _lists(catalog_client) == before


@pytest.mark.parametrize("target", NOT_IDS)
def test_an_import_target_that_is_not_an_id_is_an_error_beside_it(
    catalog_client: TestClient, target: str
) -> None:
    """Not a silent import into a new draft either."""
    before = _lists(catalog_client)
    r = post_form(
        catalog_client,
        "/catalog/import",
        {"kind": "offers", "format": "csv", "target": target, "text": "id\nx"},
        headers={"Accept-Language": "en"},
    )
    assert r.status_code == 422
    assert soup(r.text).select_one("#err-target").get_text() == "Choose one of the listed options."
    assert soup(r.text).select_one("#apply-form") is None
    assert _lists(catalog_client) == before


def test_json_nested_too_deeply_is_an_import_error_in_the_api(catalog_client: TestClient) -> None:
    """json.loads gives up past its recursion limit: a RecursionError, once a 500."""
    r = catalog_client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "true", "kind": "offers", "format": "json"},
        content=DEEP.encode(),
        headers={"content-type": "application/json"},
    )
    # A file that cannot be imported is a preview with ok: false (the API's contract).
    assert r.status_code == 200, r.text
    answer = r.json()
    assert (answer["ok"], answer["errors"]) == (False, ["row 1: the JSON is nested too deeply"])


def test_json_nested_too_deeply_is_an_import_error_on_the_page(
    catalog_client: TestClient,
) -> None:
    before = _lists(catalog_client)
    r = post_form(
        catalog_client,
        "/catalog/import",
        {"kind": "offers", "format": "json", "target": "new", "text": DEEP},
    )
    assert r.status_code == 422
    page = soup(r.text)
    errors = [li.get_text(strip=True) for li in page.select("#import-errors li")]
    assert errors == ["row 1: the JSON is nested too deeply"]
    assert page.select_one("#apply-form") is None
    assert _lists(catalog_client) == before


def test_a_price_list_name_with_a_direction_override_is_refused(
    catalog_client: TestClient,
) -> None:
    before = catalog_client.get("/api/v1/price-lists").json()
    r = post_form(
        catalog_client,
        "/catalog/price-lists/new",
        {"name": "2027 \u202elist", "effective_date": "2027-01-01"},
        headers={"Accept-Language": "en"},
    )
    assert r.status_code == 422
    assert "U+202E" in soup(r.text).select_one("#err-name").get_text()
    assert catalog_client.get("/api/v1/price-lists").json() == before


def test_a_catalog_form_speaks_the_pages_language_for_every_error(
    catalog_client: TestClient,
) -> None:
    """QA of stop 22: a 中文 catalog form showed English for its own checks ("must not be
    empty", "must be one of …", a bad id) and for pydantic's ("Input should be a valid
    date"): every message beside a field is now in the page's language."""
    from tests.catalog.test_pages import _draft

    draft = _draft(catalog_client, "Draft zh")
    data = {
        "id": "Bad Id!", "provider": "Stratagem Taipei", "gpu_id": "h100-sxm-80gb",
        "gpu_count": "3", "monthly_price": "100", "currency": "TWD", "interconnect": "nvlink",
        "includes_power": "true", "lead_time_hours": "2", "source": "   ",
    }  # fmt: skip
    r = post_form(
        catalog_client,
        f"/catalog/offers/new?price_list={draft}",
        data,
        headers={"Accept-Language": "zh-TW"},
    )
    assert r.status_code == 422
    page = soup(r.text)
    assert page.select_one("#err-id").get_text(strip=True).startswith("必須為 1–80 個小寫英文字母")
    assert page.select_one("#err-source").get_text(strip=True) in ("不可空白", "此欄位為必填。")
    r = post_form(
        catalog_client,
        "/catalog/price-lists/new",
        {"name": "Dated", "effective_date": "31/01/2027"},
        headers={"Accept-Language": "zh-TW"},
    )
    assert r.status_code == 422
    date_error = soup(r.text).select_one("#err-effective_date").get_text(strip=True)
    assert "2027-01-31" in date_error and "Input should" not in date_error
