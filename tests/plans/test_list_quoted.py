"""The plan list shows what each quote asks, tax included, and which plans sit on an older
price list (QA: a sales manager reviewing quotes, or looking for the plans to re-price after
a new list was published, had to open every plan)."""

from __future__ import annotations

import uuid

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.catalog.helpers import publish_copy
from tests.quotes.test_reprice_follows import fresh  # noqa: F401  (its own database)

WORKLOAD = {"model": {"preset": "llama-3.1-8b"}, "task": "lora"}


def _row_cells(pages: TestClient, q: str, lang: str = "en") -> dict[str, str]:
    page = BeautifulSoup(pages.get("/plans", params={"q": q, "lang": lang}).text, "html.parser")
    out = {}
    for row in page.select("table.plans-table tbody tr"):
        name = row.select("td")[1].get_text(" ", strip=True)
        out[name] = " ".join(row.select_one("td.quoted-total").get_text(" ").split())
    return out


def test_each_row_says_what_its_quote_asks_incl_tax(client: TestClient) -> None:
    a = make_account(client, "sales")
    tag = uuid.uuid4().hex[:10]
    quoted = {"lines": [{"description": "導入服務", "unit_price": "30000"}]}
    for name, quote in ((f"{tag} quoted", quoted), (f"{tag} bare", None)):
        body = {"name": name, "workload": WORKLOAD, **({"quote": quote} if quote else {})}
        assert client.post("/api/v1/plans", json=body, headers=a.headers).status_code == 201
    pages = TestClient(client.app)
    sign_in(pages, a.user)
    cells = _row_cells(pages, tag)
    # NT$30,000 + 5% 營業稅 = NT$31,500 (PRODUCT.md §6).
    assert cells[f"{tag} quoted"] == "NT$31,500"
    assert cells[f"{tag} bare"] == "no lines yet"
    assert _row_cells(pages, tag, "zh-TW")[f"{tag} bare"] == "尚無報價項目"


def test_a_plan_on_an_older_price_list_says_so(fresh: TestClient) -> None:  # noqa: F811
    a = make_account(fresh, "sales")
    body = {"name": "before the new list", "workload": WORKLOAD}
    assert fresh.post("/api/v1/plans", json=body, headers=a.headers).status_code == 201
    pages = TestClient(fresh.app)
    sign_in(pages, a.user)
    assert "older price list" not in _row_cells(pages, "before")["before the new list"]
    publish_copy(fresh, "2027-04")
    assert "older price list" in _row_cells(pages, "before")["before the new list"]
    assert "舊價目表" in _row_cells(pages, "before", "zh-TW")["before the new list"]
