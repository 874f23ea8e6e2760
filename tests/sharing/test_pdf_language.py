"""A shared quote's PDF link reads its language as the share page does.

QA: `/s/<token>/quote.pdf?lang=zh-tw` (typed or forwarded in lower case), `?lang=en-US`,
`?lang=zh-Hant` or an empty `lang` answered the customer with a 422 — raw JSON to a client
that does not ask for HTML — where the share page beside it opened. The link now takes what
app.i18n.normalise takes and anything else as no choice: the customer's language. The API's
PDF (`/api/v1/plans/{id}/pdf`) keeps its strict list for API clients.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import TERM, _customer, _plan, _share

# (asked, printed): "" and "fr" choose nothing, so the customer's language (English) prints
ASKED = (("zh-tw", "zh-TW"), ("zh-Hant", "zh-TW"), ("en-US", "en"), ("EN", "en"), ("", "en"),
         ("fr", "en"))  # fmt: skip


def test_the_share_links_pdf_reads_its_language_like_the_page(client: TestClient) -> None:
    a = make_account(client, "sales")
    customer = _customer(client, a, language="en")
    plan = _plan(client, a, customer["id"], {"lines": [{"option_key": TERM}]})
    url = _share(client, a, plan["id"])
    visitor = TestClient(client.app)  # the customer's browser, not the shared test client
    for asked, printed in ASKED:  # one plan: each language is rendered once, then cached
        r = visitor.get(f"{url}/quote.pdf", params={"lang": asked})
        assert r.status_code == 200, (asked, r.text[:200])
        assert r.headers["content-type"] == "application/pdf"
        assert r.headers["content-disposition"].endswith(f'-{printed}.pdf"'), asked


def test_the_api_pdf_keeps_its_strict_list(client: TestClient) -> None:
    a = make_account(client, "sales")
    plan = _plan(client, a, _customer(client, a)["id"], {"lines": [{"option_key": TERM}]})
    r = client.get(f"/api/v1/plans/{plan['id']}/pdf?lang=zh-tw", headers=a.headers)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["query", "lang"]
