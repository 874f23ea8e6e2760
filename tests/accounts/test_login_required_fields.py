"""A sign-in form sent with a field left empty says "required" beside that field, in the
page's language, with the typed e-mail kept: it is no wrong password, and no sign-in is tried.

QA: `email=&password=` answered 400 "電子郵件地址或密碼不正確。"."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.accounts.models import LoginAttempt

REQUIRED = {"zh-TW": "此欄位必填。", "en": "This field is required."}


def _post_login(client: TestClient, lang: str, **fields: str) -> tuple[int, BeautifulSoup]:
    browser = TestClient(client.app, follow_redirects=False)
    browser.get("/login")
    data = {**fields, "csrf_token": str(browser.cookies["csrf"])}
    r = browser.post("/login", data=data, headers={"Accept-Language": lang})
    return r.status_code, BeautifulSoup(r.text, "html.parser")


def _attempts(client: TestClient) -> int:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        return int(s.exec(select(func.count()).select_from(LoginAttempt)).one())


def _said(page: BeautifulSoup, name: str) -> str:
    return page.select_one(f"#err-{name}").get_text()


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_both_fields_empty_are_each_required_and_no_sign_in_is_tried(
    client: TestClient, lang: str
) -> None:
    before = _attempts(client)
    status, page = _post_login(client, lang, email="", password="")
    assert status == 422
    assert _said(page, "email") == REQUIRED[lang]
    assert _said(page, "password") == REQUIRED[lang]
    assert page.select_one("#f-email")["aria-invalid"] == "true"
    assert page.select_one("#f-email")["aria-describedby"] == "err-email"
    assert page.select_one("#login-error") is None  # not "the password is not right"
    assert _attempts(client) == before


def test_an_empty_password_keeps_the_typed_e_mail(client: TestClient) -> None:
    status, page = _post_login(client, "zh-TW", email="someone@example.com", password="")
    assert status == 422
    assert page.select_one("#f-email")["value"] == "someone@example.com"
    assert _said(page, "email") == ""
    assert not page.select_one("#f-email").has_attr("aria-invalid")
    assert _said(page, "password") == REQUIRED["zh-TW"]


def test_an_e_mail_of_spaces_is_empty(client: TestClient) -> None:
    status, page = _post_login(client, "en", email="   ", password="secret")
    assert status == 422
    assert _said(page, "email") == REQUIRED["en"]


def test_wrong_credentials_still_get_the_one_message_that_says_not_which(
    client: TestClient,
) -> None:
    status, page = _post_login(client, "zh-TW", email="nobody@example.com", password="wrong")
    assert status == 400
    assert page.select_one("#login-error").get_text() == "電子郵件地址或密碼不正確。"
    assert _said(page, "email") == "" and _said(page, "password") == ""
