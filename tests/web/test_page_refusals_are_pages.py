"""A page refuses a wrong address or form value with an HTML page in its own language, never
FastAPI's JSON, whatever the client's Accept header says (app/web/errors.py).

QA: `GET /plans/20/diff?a=abc&b=1`, signed in, answered 422 application/json."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in


def _sales_pages(client: TestClient) -> TestClient:
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, make_account(client, "sales").user)
    return pages


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh-TW", "網址中的 a=abc 是這個頁面無法接受的值。請輸入數字，例如 12。"),
        ("en", "The address says a=abc, which this page cannot take. Enter a number, e.g. 12."),
    ],
)
@pytest.mark.parametrize("accept", ["*/*", "application/json", None])
def test_a_query_value_a_page_refuses_is_an_error_page_for_any_client(
    client: TestClient, lang: str, said: str, accept: str | None
) -> None:
    headers = {"Accept-Language": lang} | ({"Accept": accept} if accept else {})
    r = _sales_pages(client).get("/plans/1/diff?a=abc&b=1", headers=headers)
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("text/html")
    page = BeautifulSoup(r.text, "html.parser")
    assert page.html["lang"] == ("en" if lang == "en" else "zh-Hant-TW")
    assert page.select_one("main .error-page p").get_text() == said


def test_the_api_keeps_its_json_422_naming_the_parameter(client: TestClient) -> None:
    a = make_account(client, "sales")
    r = TestClient(client.app).get(
        "/api/v1/plans", params={"page": "abc"}, headers={**a.headers, "Accept": "text/html"}
    )
    assert r.status_code == 422 and r.headers["content-type"] == "application/json"
    assert r.json()["detail"][0]["loc"] == ["query", "page"]


def test_every_route_outside_the_api_is_a_page_hidden_from_the_schema(
    client: TestClient,
) -> None:
    """The handler tells a page from the API by its path: that holds while every route in
    the OpenAPI schema is under /api/ and every route outside it is left out of it."""
    routes = [r for r in client.app.routes if isinstance(r, APIRoute)]
    outside = [r.path for r in routes if not r.path.startswith("/api/") and r.include_in_schema]
    assert outside == []


def test_a_posted_field_the_schema_refuses_is_named_as_the_form_sends_it(
    client: TestClient,
) -> None:
    """A file sent where the send form takes its version as text: the page names the
    form's field, not "the address"."""
    from tests.catalog.helpers import csrf

    pages = _sales_pages(client)
    token = csrf(pages, "/plans")
    r = pages.post("/plans/1/send", data={"csrf_token": token},
                   files={"version": ("v.txt", b"1")}, headers={"Accept-Language": "en"})  # fmt: skip
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    said = BeautifulSoup(r.text, "html.parser").select_one("main .error-page p").get_text()
    assert said.startswith("The form's field “version” cannot be taken.")
