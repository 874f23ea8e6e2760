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


def _many(client: TestClient, n: int) -> tuple[str, list[str]]:
    """`n` customers sharing a tag no other test's customers have: (tag, names by name)."""
    a = make_account(client, "sales")
    tag = f"Paging {uuid.uuid4().hex[:12]}"
    names = [f"{tag} {i:03d}" for i in range(n)]
    for name in names:
        r = client.post("/api/v1/customers", json={"name": name}, headers=a.headers)
        assert r.status_code == 201, r.text
    return tag, names


def test_the_customer_list_pages_through_every_customer(client: TestClient) -> None:
    # QA: the list stopped at 500 customers without saying so; the 501st was found only by
    # searching for it. 50 a page: 53 customers are pages of 50 and 3.
    tag, names = _many(client, 53)
    pages = TestClient(client.app)
    sign_in(pages, make_account(client, "sales").user)

    def page(**params: str) -> BeautifulSoup:
        got = pages.get("/customers", params={"q": tag, "lang": "en", **params})
        assert got.status_code == 200
        return BeautifulSoup(got.text, "html.parser")

    def names_on(p: BeautifulSoup) -> list[str]:
        return [a.get_text(strip=True) for a in p.select("tbody a[href^='/customers/']")]

    first, second = page(), page(page="2")
    assert names_on(first) + names_on(second) == names
    caption = " ".join(first.select_one("table.customers-table caption").get_text().split())
    assert caption == f"53 customers · matching “{tag}” · page 1 of 2"
    nxt = first.select_one("nav.pagination a[rel=next]")["href"]
    assert "page=2" in nxt and "q=Paging" in nxt  # the search kept
    assert first.select_one("nav.pagination a[rel=prev]") is None
    assert second.select_one("nav.pagination a[rel=prev]") is not None
    # Not a page number: the first page; past the last: the last.
    assert names_on(page(page="abc")) == names[:50]
    assert names_on(page(page="99")) == names[50:]


def test_the_customers_api_pages_and_says_how_many_match(client: TestClient) -> None:
    tag, names = _many(client, 23)
    a = make_account(client, "sales")
    got: list[str] = []
    for n in (1, 2, 3):
        r = client.get("/api/v1/customers", params={"search": tag, "per_page": 10, "page": n},
                       headers=a.headers)  # fmt: skip
        assert r.status_code == 200 and r.headers["X-Total-Count"] == "23"
        got += [c["name"] for c in r.json()]
    assert got == names  # 10 + 10 + 3, none twice, none left out
    r = client.get("/api/v1/customers", params={"per_page": 501}, headers=a.headers)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "per_page"]


def test_a_search_that_finds_no_customer_says_so(client: TestClient) -> None:
    pages = TestClient(client.app)
    sign_in(pages, make_account(client, "sales").user)
    q = f"nobody {uuid.uuid4().hex}"
    page = BeautifulSoup(pages.get("/customers", params={"q": q}).text, "html.parser")
    assert page.select_one("tbody td.muted").get_text(strip=True) == f"沒有符合「{q}」的客戶。"
