"""The customer list searches the text typed, all of it (QA: silent truncation)."""

from __future__ import annotations

import uuid

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in


def test_a_long_search_on_the_customer_list_is_the_whole_text(client: TestClient) -> None:
    # QA (silent truncation): the list cut its search to 100 characters, so the whole name
    # of one customer also found every customer whose name began the same way.
    a = make_account(client, "sales")
    stem = f"Long {uuid.uuid4().hex} ".ljust(120, "x")
    for suffix in (" A", " B"):
        r = client.post("/api/v1/customers", json={"name": stem + suffix}, headers=a.headers)
        assert r.status_code == 201, r.text
    pages = TestClient(client.app)
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get("/customers", params={"q": stem + " A"}).text, "html.parser")
    rows = page.select("table.customers-table tbody tr")
    assert [r.select_one("a[href^='/customers/']").get_text(strip=True) for r in rows] == [
        stem + " A"
    ]
    assert page.select_one("input[name=q]")["value"] == stem + " A"
