"""The audit trail's one-line summaries in the page's language (QA: "copied 61 rows from
'2026-11 list'" and "shipped catalog loaded: 20 GPUs, …" in English on the 中文 page). The
service stores them in English as written; the page reads back the shapes it writes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.catalog.views import audit_summary

from .helpers import soup

SHIPPED = (
    "shipped catalog loaded: 20 GPUs, 17 offers, 22 cloud instances, 8 servers, 3 energy prices, "
    "1 FX rate"
)


@pytest.fixture
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n.activate(request.param)
    yield request.param
    i18n.activate("en")


@pytest.mark.parametrize(
    ("lang", "stored", "said"),
    [
        ("en", "copied 61 rows from '2026-11 list'", "Copied 61 rows from “2026-11 list”"),
        ("zh-TW", "copied 61 rows from '2026-11 list'", "自「2026-11 list」複製 61 列"),
        ("en", 'copied 1 rows from "Bob\'s list"', "Copied 1 row from “Bob's list”"),
        # stored with repr(): its escapes are read back (QA: one backslash shown as two)
        ("en", "copied 2 rows from \"Back\\\\slash 'q'\"", "Copied 2 rows from “Back\\slash 'q'”"),
        (
            "en",
            "import (csv): 1 added, 2 changed, 0 removed, 1500 unchanged",
            "Imported from CSV: 1 added, 2 changed, 0 removed, 1,500 unchanged",
        ),
        (
            "zh-TW",
            "import (json): 1 added, 2 changed, 0 removed, 14 unchanged",
            "自 JSON 匯入：新增 1、修改 2、移除 0、未變更 14",
        ),
        (
            "en",
            SHIPPED,
            "Shipped catalog loaded: 20 GPU models, 17 rental offers, 22 cloud instances, "
            "8 server models, 3 energy prices, 1 FX rate",
        ),
        (
            "zh-TW",
            SHIPPED.replace("loaded", "reloaded"),
            "已重新載入內建目錄：20 款 GPU、17 個租賃方案、22 種雲端執行個體、8 款伺服器、"
            "3 筆電價、1 筆匯率",
        ),
    ],
    indirect=["lang"],
)
def test_the_shapes_the_service_writes_are_said_in_the_pages_language(
    lang: str, stored: str, said: str
) -> None:
    assert audit_summary(stored) == (said, True)


@pytest.mark.parametrize("lang", ["zh-TW"], indirect=True)
@pytest.mark.parametrize(
    "stored",
    [
        "shipped catalog loaded: 20 GPUs, 17 offers, 22 cloud ins",  # cut at its length
        "something an older version wrote",
    ],
)
def test_anything_else_is_shown_as_stored(lang: str, stored: str) -> None:
    assert audit_summary(stored) == (stored, False)


def test_the_trail_speaks_chinese_and_marks_only_what_it_cannot_say(
    catalog_client: TestClient,
) -> None:
    current = catalog_client.get("/api/v1/price-lists/current").json()
    r = catalog_client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "name": "Copy"},
        json=catalog_client.get(f"/api/v1/catalog/export?price_list={current['id']}").json(),
    )
    assert r.status_code == 201, r.text
    page = soup(catalog_client.get("/catalog/audit", headers={"Accept-Language": "zh-TW"}).text)
    summaries = [p.get_text(strip=True) for p in page.select("#audit > tbody > tr td p.small")]
    assert any(s.startswith("已載入內建目錄：") for s in summaries), summaries
    assert any(s.startswith("自 JSON 匯入：") for s in summaries), summaries
    assert not page.select("#audit p.small[lang=en]")
