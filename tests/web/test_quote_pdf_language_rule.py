"""One rule for the language of a quote's PDF, said by the page link and the API alike:

* a page link (`/plans/{id}/quote.pdf`, `/s/{token}/quote.pdf`) is clicked, typed or
  forwarded by people: it reads `lang` as the pages do (`zh-tw`, `en-US`, …) and takes any
  other value as no choice, so the document opens in the customer's language rather than as
  an error (tests/sharing/test_pdf_language.py covers the share link);
* the API (`/api/v1/plans/{id}/pdf`) is called by programs: `lang` is `zh-TW` or `en`, and
  anything else is a 422 that names `lang` and the values it takes.

QA: `/plans/20/quote.pdf?lang=xx` answered 200 in a fallback language where
`/api/v1/plans/18/pdf?lang=fr` answered 422, with neither rule written down."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_quote_life import TERM, _customer, _plan

# (asked, printed) for a customer whose language is English
ASKED = (("xx", "en"), ("", "en"), ("zh-tw", "zh-TW"), ("en-US", "en"))


def test_the_plan_pages_pdf_link_falls_back_to_the_customers_language(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    plan = _plan(
        client, a, _customer(client, a, language="en")["id"], {"lines": [{"option_key": TERM}]}
    )
    pages = TestClient(client.app)
    sign_in(pages, a.user)
    for asked, printed in ASKED:  # one plan: each language is rendered once, then cached
        r = pages.get(f"/plans/{plan['id']}/quote.pdf", params={"lang": asked})
        assert r.status_code == 200, (asked, r.text[:200])
        assert r.headers["content-type"] == "application/pdf"
        assert r.headers["content-disposition"].endswith(f'-{printed}.pdf"'), asked


@pytest.mark.parametrize(
    ("lang", "msg"),
    [("en", "Must be one of 'zh-TW' or 'en'."), ("zh-TW", "須為下列之一：'zh-TW' 或 'en'。")],
)
@pytest.mark.parametrize("asked", ["fr", "xx"])
def test_the_api_refuses_any_other_lang_naming_it_and_the_values_it_takes(
    client: TestClient, lang: str, msg: str, asked: str
) -> None:
    a = make_account(client, "sales")
    r = TestClient(client.app).get(
        "/api/v1/plans/1/pdf",
        params={"lang": asked},
        headers={**a.headers, "Accept-Language": lang},
    )
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["query", "lang"]
    assert detail["msg"] == msg


def test_the_api_takes_only_the_exact_codes(client: TestClient) -> None:
    """`zh-tw` is a page link's spelling, not the API's (`?lang=` also sets the language the
    answer is written in, app.web.language: a 中文 refusal here)."""
    a = make_account(client, "sales")
    r = TestClient(client.app).get("/api/v1/plans/1/pdf?lang=zh-tw", headers=a.headers)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", "lang"]
