"""The catalog's refusals read in the page's language (QA fuzz: "a price list called 'QA PL'
already exists" stood in English beside the 中文 banner 「請修正下方標示的欄位。」)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.catalog.helpers import OFFER_FORM, draft_copy, post_form, soup

WORDS = {
    "en": ("a price list called “2026-11 list” already exists",
           "“stratagem-tpe-h100-x1” already exists in this list"),
    "zh-TW": ("已有名為「2026-11 list」的價目表", "此價目表已有「stratagem-tpe-h100-x1」"),
}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_duplicate_price_list_name_is_refused_in_the_page_language(
    catalog_client: TestClient, lang: str
) -> None:
    r = post_form(
        catalog_client, "/catalog/price-lists/new",
        {"name": "2026-11 list", "effective_date": "2027-01-01"},
        headers={"Accept-Language": lang},
    )  # fmt: skip
    assert r.status_code == 422
    assert soup(r.text).select_one("#err-name").get_text(strip=True) == WORDS[lang][0]


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_duplicate_row_is_refused_in_the_page_language(
    catalog_client: TestClient, lang: str
) -> None:
    draft = draft_copy(catalog_client, f"dupe rows {lang}")
    # the id of an offer the copied list already has
    data = {**OFFER_FORM, "id": "stratagem-tpe-h100-x1", "gpu_count": "1", "monthly_price": "50000"}
    r = post_form(
        catalog_client, f"/catalog/offers/new?price_list={draft}", data,
        headers={"Accept-Language": lang},
    )  # fmt: skip
    assert r.status_code == 422
    assert soup(r.text).select_one("#err-id").get_text(strip=True) == WORDS[lang][1]
