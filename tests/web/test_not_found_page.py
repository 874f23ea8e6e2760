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
    ("lang", "said"),
    [
        ("en", "The address says page=-1, which this page cannot take. Must be at least 1."),
        ("zh-TW", "網址中的 page=-1 是這個頁面無法接受的值。至少須為 1。"),
    ],
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
    assert swap.text == (
        '<p class="error" role="alert">The address says q=' + "x" * 40 + "…, which this page "
        "cannot take. Too long: at most 200 characters.</p>"
    )
    # the API keeps its JSON
    api = client.get(
        "/api/v1/plans", params={"page": -1}, headers={**admin.headers, "Accept": HTML}
    )
    assert api.status_code == 422 and api.headers["content-type"] == "application/json"


@pytest.mark.parametrize(
    ("path", "lang", "said"),
    [
        # QA: "找不到方案 999。。" and "There is no plan 999.." (a sentence inside a sentence),
        # and the code's parameter name "(plan_id)" for an id that is no number.
        ("/plans/999999", "zh-TW", "找不到方案 999999。"),
        ("/plans/999999", "en", "There is no plan 999999."),
        ("/plans/abc", "zh-TW", "「abc」不是方案編號。"),
        ("/plans/abc", "en", "“abc” is not a plan number."),
        ("/customers/abc", "zh-TW", "「abc」不是客戶編號。"),
        ("/customers/999999", "en", "No customer 999999."),
        ("/catalog?price_list=abc", "zh-TW", "「abc」不是價目表編號。"),
        ("/catalog?price_list=abc", "en", "“abc” is not a price list number."),
        ("/catalog?price_list=999999", "zh-TW", "找不到價目表 999999。"),
    ],
)
def test_a_404_page_says_what_is_missing_as_one_sentence(
    client: TestClient, path: str, lang: str, said: str
) -> None:
    from tests.accounts.helpers import make_account, sign_in

    pages = TestClient(client.app)
    sign_in(pages, make_account(client, "admin").user)
    r = pages.get(path, headers={"Accept": HTML, "Accept-Language": lang})
    assert r.status_code == 404
    text = BeautifulSoup(r.text, "html.parser").select_one("main .error-page p").get_text()
    assert text == said


def test_the_api_keeps_the_parameter_in_loc(client: TestClient) -> None:
    from tests.accounts.helpers import make_account

    a = make_account(client, "sales")
    r = client.get("/api/v1/plans/abc", headers={**a.headers, "Accept-Language": "en"})
    assert r.status_code == 404
    assert r.json()["detail"] == [
        {"loc": ["path", "plan_id"], "msg": "“abc” is not a plan number.", "type": "value_error"}
    ]


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "The address says page=0, which this page cannot take. Must be at least 1."),
        ("zh-TW", "網址中的 page=0 是這個頁面無法接受的值。至少須為 1。"),
    ],
)
def test_a_422_page_names_what_the_address_says_not_the_code(
    client: TestClient, lang: str, said: str
) -> None:
    # QA: the page read "page: Must be at least 1." — the parameter as the code names it.
    from tests.accounts.helpers import make_account, sign_in

    pages = TestClient(client.app)
    sign_in(pages, make_account(client, "admin").user)
    r = pages.get("/catalog/gpus?page=0", headers={"Accept": HTML, "Accept-Language": lang})
    assert r.status_code == 422
    text = BeautifulSoup(r.text, "html.parser").select_one("main .error-page p").get_text()
    assert text == said
