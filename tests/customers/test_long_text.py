"""Text longer than a customer's field takes is refused beside the field, never cut.

QA (silent truncation): a 5,000-character company name pasted into the new-customer form
said "已建立客戶" and 200 characters were saved — the browser's `maxlength` cut the pasted
text without a word before the server saw it. The form carries no `maxlength`; the server
answers 422 with the field's limit in the page's language, and saves nothing.
"""

from __future__ import annotations

import uuid

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in


def test_the_customer_form_lets_the_server_judge_the_length(client: TestClient) -> None:
    a = make_account(client, "sales")
    pages = TestClient(client.app)
    sign_in(pages, a.user)
    form = BeautifulSoup(pages.get("/customers/new").text, "html.parser").select_one("main form")
    # A `maxlength` cuts a paste silently; the server's 422 says what the limit is.
    assert form is not None and form.select("input[name=name], input[name=contact]")
    assert form.select("input[maxlength], textarea[maxlength]") == []


@pytest.mark.parametrize(
    ("lang", "message"),
    [("zh-TW", "太長了：最多 200 個字元。"), ("en", "Too long: at most 200 characters.")],
)
@pytest.mark.parametrize("field", ["name", "contact"])
def test_a_name_too_long_is_refused_on_the_page_not_cut(
    client: TestClient, lang: str, message: str, field: str
) -> None:
    a = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    headers = {"Accept-Language": lang}
    form = BeautifulSoup(pages.get("/customers/new", headers=headers).text, "html.parser")
    token = form.select_one("input[name=csrf_token]")["value"]
    name = f"Long {uuid.uuid4().hex} "
    data = {"csrf_token": token, "name": name, "currency": "TWD", field: name + "甲" * 5000}
    r = pages.post("/customers/new", data=data, headers=headers)
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert page.select_one(f"#err-{field}").get_text(strip=True) == message
    assert page.select_one(f"#f-{field}")["aria-invalid"] == "true"
    assert page.select_one(f"#f-{field}")["value"] == data[field]  # given back whole
    found = client.get("/api/v1/customers", params={"search": name.strip()}, headers=a.headers)
    assert found.json() == []  # nothing saved, not even cut


def test_the_api_names_the_field_and_its_limit(client: TestClient) -> None:
    a = make_account(client, "sales")
    r = client.post(
        "/api/v1/customers",
        json={"name": "甲" * 5000},
        headers={**a.headers, "Accept-Language": "en"},
    )
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "name"]
    assert "200" in detail["msg"]
