"""A query parameter a route takes once, sent twice, is a 422 naming it (app/web/query_once.py).

FastAPI keeps the last of `?lang=en&lang=zh-TW` without a word: the PDF came back in Chinese
to a client that may have meant English (QA). Which value was meant cannot be known, so the
request is refused at ["query", name] in the reader's language, as a repeated JSON key and a
repeated form field are; the same parameter sent once still works.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import MakeAccount, make_account
from tests.plans.test_pages import make_plan, signed_in, soup
from tests.quotes.test_quote_life import WORKLOAD

MESSAGES = {
    "en": "“lang” was sent 2 times: this field takes one value.",
    "zh-TW": "「lang」送出了 2 次：這個欄位只能有一個值。",
}


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_pdf_asked_in_two_languages_is_refused_naming_lang(client: TestClient, lang: str) -> None:
    sales = make_account(client, "sales")
    r = client.post(
        "/api/v1/plans", json={"name": "Q", "workload": WORKLOAD}, headers=sales.headers
    )
    assert r.status_code == 201, r.text
    url = f"/api/v1/plans/{r.json()['id']}/pdf"
    r = client.get(f"{url}?lang=en&lang=zh-TW", headers={**sales.headers, "Accept-Language": lang})
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["query", "lang"]
    assert detail["msg"] == MESSAGES[lang]
    one = client.get(f"{url}?lang=en", headers=sales.headers)
    assert one.status_code == 200 and one.headers["content-type"] == "application/pdf"


def test_a_list_filter_sent_twice_is_refused_and_an_unknown_parameter_is_ignored(
    client: TestClient,
) -> None:
    sales = make_account(client, "sales")
    r = client.get("/api/v1/plans?status=draft&status=sent", headers=sales.headers)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", "status"]
    # a parameter the route does not take is ignored, once or twice, as FastAPI ignores it
    r = client.get("/api/v1/plans?utm=a&utm=b", headers=sales.headers)
    assert r.status_code == 200


def test_pages_keep_their_repeated_ticks(client: TestClient) -> None:
    """/compare reads its `ids` tick boxes itself (getlist): the rule does not refuse them
    (a visitor is sent to sign in, as with one id)."""
    visitor = TestClient(client.app, follow_redirects=False)  # signed out, whatever ran before
    r = visitor.get("/compare?ids=1&ids=2")
    assert r.status_code == 303


@pytest.mark.parametrize(("lang", "words"), [("en", "was sent 2 times"), ("zh-TW", "送出了 2 次")])
def test_a_quote_pdf_page_asked_in_two_languages_is_the_error_page(
    pages: TestClient, account: MakeAccount, lang: str, words: str
) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    url = f"/plans/{plan.id}/quote.pdf"
    r = pages.get(f"{url}?lang=en&lang=zh-TW", headers={"Accept-Language": lang})
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    assert words in soup(r).select_one("main").get_text()
    assert pages.get(f"{url}?lang=en").headers["content-type"] == "application/pdf"
