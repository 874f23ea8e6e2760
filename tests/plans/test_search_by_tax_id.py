"""A plan is found by its customer's 統一編號, in the list and through the API.

QA: searching the plans list for a customer's 統一編號 found nothing.
"""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_quote_life import _customer, _plan, _quote


def test_the_customers_tax_id_finds_its_plans(client: TestClient) -> None:
    a = make_account(client, "sales")
    found = _plan(client, a, _customer(client, a, name="統編搜尋測試", tax_id="10458570")["id"],
                  _quote("0"))  # fmt: skip
    other = _plan(client, a, _customer(client, a, name="另一家")["id"], _quote("0"))
    r = client.get("/api/v1/plans", params={"search": "0458570"}, headers=a.headers)
    assert r.status_code == 200, r.text
    ids = [p["id"] for p in r.json()["items"]]
    assert found["id"] in ids and other["id"] not in ids
    pages = TestClient(client.app)
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get("/plans", params={"q": "10458570"}).text, "html.parser")
    links = {a_["href"] for a_ in page.select("a[href^='/plans/']")}
    assert f"/plans/{found['id']}" in links and f"/plans/{other['id']}" not in links
