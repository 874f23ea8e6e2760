"""An address no route has is the site's own "page not found" in the visitor's language
(QA, axe: it was FastAPI's `{"detail": "Not Found"}` in a bare <pre>, with no title, no
lang, no way back); the API and non-browser clients keep the JSON."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"  # a browser's


@pytest.mark.parametrize(
    ("lang", "title", "heading"),
    [("en", "Page not found", "Page not found"), ("zh-TW", "找不到頁面", "找不到頁面")],
)
def test_an_unknown_address_is_the_sites_404_page(
    client: TestClient, lang: str, title: str, heading: str
) -> None:
    r = client.get("/no-such-page", headers={"Accept": HTML, "Accept-Language": lang})
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    soup = BeautifulSoup(r.text, "html.parser")
    assert soup.html["lang"] == ("en" if lang == "en" else "zh-Hant-TW")
    assert soup.title.get_text().startswith(title)
    assert soup.select_one("main h1").get_text(strip=True) == heading
    assert soup.select_one("main a.btn")["href"] == "/"


def test_a_missing_plan_page_is_titled_as_it_reads(client: TestClient) -> None:
    # QA: the heading said "找不到頁面" under the title "發生錯誤" (something went wrong)
    from tests.accounts.helpers import make_account, sign_in

    sign_in(client, make_account(client, "sales").user)
    r = client.get("/plans/9999", headers={"Accept": HTML, "Accept-Language": "zh-TW"})
    assert r.status_code == 404
    assert BeautifulSoup(r.text, "html.parser").title.get_text().startswith("找不到頁面")


@pytest.mark.parametrize(
    ("path", "accept"), [("/api/v1/no-such", HTML), ("/no-such-page", "application/json")]
)
def test_the_api_and_other_clients_keep_the_json(
    client: TestClient, path: str, accept: str
) -> None:
    r = client.get(path, headers={"Accept": accept})
    assert r.status_code == 404
    assert r.json()["detail"] == "Not Found"


def test_a_form_sent_to_a_page_that_only_shows_is_a_405_page(client: TestClient) -> None:
    r = client.post("/validation", headers={"Accept": HTML, "Accept-Language": "en"})
    assert r.status_code == 405
    assert BeautifulSoup(r.text, "html.parser").select_one("main h1").get_text(strip=True) == (
        "This address does not take that request"
    )


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "page: Must be at least 1."), ("zh-TW", "page：")]
)
def test_a_page_address_its_schema_refuses_is_the_error_page_naming_the_parameter(
    client: TestClient, lang: str, said: str
) -> None:
    """QA: /catalog/audit?page=-1 answered raw JSON to a browser; the search box of the
    catalog (200 characters at most) got JSON swapped into its table."""
    from tests.accounts.helpers import make_account, sign_in

    admin = make_account(client, "admin")
    sign_in(client, admin.user)
    r = client.get("/catalog/audit", params={"page": -1},
                   headers={"Accept": HTML, "Accept-Language": lang})  # fmt: skip
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    assert said in BeautifulSoup(r.text, "html.parser").select_one("main").get_text(" ")
    swap = client.get("/catalog/offers", params={"q": "x" * 201},
                      headers={"HX-Request": "true", "Accept-Language": "en"})  # fmt: skip
    assert swap.status_code == 422
    assert swap.text == '<p class="error" role="alert">q: Too long: at most 200 characters.</p>'
    # the API keeps its JSON
    api = client.get(
        "/api/v1/plans", params={"page": -1}, headers={**admin.headers, "Accept": HTML}
    )
    assert api.status_code == 422 and api.headers["content-type"] == "application/json"
