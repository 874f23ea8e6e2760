"""A search on the plans list is the text typed, all of it (QA: silent truncation).

The list cut its search to 100 characters and its customer filter to 200 without a word:
a search for one plan's whole name (plan names take 200 characters) also listed every plan
whose name began with the same 100 characters, under a caption that claimed to match the
whole text. The JSON API searches the whole text; so does the page.
"""

from __future__ import annotations

import uuid

from fastapi.testclient import TestClient

from tests.accounts.helpers import MakeAccount
from tests.plans.test_pages import make_plan, signed_in, soup


def _names(pages: TestClient, **params: str) -> set[str]:
    page = soup(pages.get("/plans", params=params))
    return {r.select("td")[1].a.get_text() for r in page.select("#plans-table tbody tr") if r.a}


def test_a_long_search_matches_the_whole_text(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    stem = f"Long {uuid.uuid4().hex} ".ljust(120, "x")  # the first 100 characters alike
    make_plan(pages, a.user, name=stem + " A")
    make_plan(pages, a.user, name=stem + " B")
    assert _names(pages, q=stem + " A") == {stem + " A"}
    page = soup(pages.get("/plans", params={"q": stem + " A"}))
    assert page.select_one("#f-q")["value"] == stem + " A"


def test_a_long_customer_filter_is_the_whole_name(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    customer = f"Cust {uuid.uuid4().hex} ".ljust(200, "y")
    make_plan(pages, a.user, name="Exact", customer=customer)
    # 200 characters are one customer's name; 201 are no customer's, so no plan is theirs.
    assert _names(pages, customer=customer) == {"Exact"}
    assert _names(pages, customer=customer + "z") == set()
