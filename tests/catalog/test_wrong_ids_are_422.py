"""A price list named by a form field or a query parameter that names no list is a wrong
value: 422 naming the field, as for any other value the field does not allow. A 404 stays
for an id in the URL's path, the resource the address itself names.

QA: POST /catalog/price-lists/new with source_list=9999 answered 404 although the form
said "找不到價目表 9999" beside the field; POST /api/v1/catalog/import?price_list=99999 a 404."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.catalog.models import PriceList
from tests.accounts.helpers import Account, make_account, sign_in
from tests.catalog.helpers import csrf

NO_LIST = 999999


def _admin_pages(client: TestClient) -> tuple[TestClient, Account]:
    admin = make_account(client, "admin")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, admin.user)
    return pages, admin


def _lists(client: TestClient) -> int:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        return int(s.exec(select(func.count()).select_from(PriceList)).one())


@pytest.mark.parametrize(
    ("lang", "said"), [("zh-TW", f"找不到價目表 {NO_LIST}。"), ("en", f"No price list {NO_LIST}.")]
)
def test_a_new_list_copied_from_no_list_is_a_422_beside_start_from(
    client: TestClient, lang: str, said: str
) -> None:
    pages, _admin = _admin_pages(client)
    before = _lists(client)
    form = {"csrf_token": csrf(pages), "name": f"From nowhere {lang}",
            "effective_date": "2030-01-01", "source_list": str(NO_LIST)}  # fmt: skip
    r = pages.post("/catalog/price-lists/new", data=form, headers={"Accept-Language": lang})
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert page.select_one("#err-source_list").get_text() == said
    assert page.select_one("input[name=name]")["value"] == f"From nowhere {lang}"
    assert _lists(client) == before


def test_an_import_page_into_no_list_is_a_422_beside_import_into(client: TestClient) -> None:
    pages, _admin = _admin_pages(client)
    offers = pages.get("/api/v1/catalog/export", params={"format": "csv", "kind": "offers"})
    r = pages.post(
        "/catalog/import",
        data={"kind": "offers", "target": str(NO_LIST), "csrf_token": csrf(pages)},
        files={"file": ("offers.csv", offers.content, "text/csv")},
        headers={"Accept-Language": "en"},
    )
    assert r.status_code == 422
    said = BeautifulSoup(r.text, "html.parser").select_one("#err-target").get_text()
    assert said == f"No price list {NO_LIST}."


@pytest.mark.parametrize("dry_run", ["true", "false"])
def test_the_import_api_into_no_list_is_a_422_naming_the_query_parameter(
    client: TestClient, dry_run: str
) -> None:
    _pages, admin = _admin_pages(client)
    api = TestClient(client.app)
    r = api.post("/api/v1/catalog/import", params={"price_list": NO_LIST, "dry_run": dry_run},
                 json={"offers": []}, headers={**admin.headers, "Accept-Language": "en"})  # fmt: skip
    assert r.status_code == 422
    assert r.json()["detail"] == [
        {"loc": ["query", "price_list"], "msg": f"no price list {NO_LIST}", "type": "value_error"}
    ]


def test_a_list_named_in_the_path_that_does_not_exist_stays_a_404(client: TestClient) -> None:
    r = TestClient(client.app).get(f"/api/v1/price-lists/{NO_LIST}")
    assert r.status_code == 404
    assert r.json()["detail"][0]["loc"] == ["path", "price_list_id"]
