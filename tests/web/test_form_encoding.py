"""A form body is read as UTF-8 text, or refused naming the field (app/web/form_body.py).

QA: `name=Caf%E9` (a Latin-1 é) saved a customer named "Caf\\ufffd", and `name=%E4%B8` (half
of a character) saved "\\ufffd"; UTF-8 sent without escapes, as `curl --data` sends it, was
read as Latin-1 and saved as mojibake."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.customers.models import Customer
from tests.accounts.helpers import make_account, sign_in

FORM = "application/x-www-form-urlencoded"


def _pages(client: TestClient) -> tuple[TestClient, str]:
    a = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    form = BeautifulSoup(pages.get("/customers/new").text, "html.parser")
    return pages, str(form.select_one("input[name=csrf_token]")["value"])


def _customers(client: TestClient) -> int:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        return int(s.exec(select(func.count()).select_from(Customer)).one())


@pytest.mark.parametrize(
    ("lang", "name", "message"),
    [
        ("en", b"Caf%E9", "The field “name” was not sent as UTF-8 text (bytes E9), so nothing"),
        ("zh-TW", b"%E4%B8", "「name」欄位送出的內容不是 UTF-8 文字（位元組 E4 B8），因此"),
        ("en", b"Caf\xe9", "The field “name” was not sent as UTF-8 text (bytes E9), so nothing"),
    ],
)
def test_a_name_that_is_not_utf8_is_refused_and_nothing_is_saved(
    client: TestClient, lang: str, name: bytes, message: str
) -> None:
    pages, token = _pages(client)
    before = _customers(client)
    body = b"csrf_token=" + token.encode() + b"&name=" + name + b"&currency=TWD"
    r = pages.post("/customers/new", content=body,
                   headers={"content-type": FORM, "Accept-Language": lang})  # fmt: skip
    assert r.status_code == 422
    # The message names the field (QA: "must be UTF-8 text" did not say which one).
    said = BeautifulSoup(r.text, "html.parser").select_one(".error-page p")
    assert said is not None and message in said.get_text(" ")
    assert _customers(client) == before


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "The field “line-0-description” was not sent as UTF-8 text (bytes FF)"),
        ("zh-TW", "「line-0-description」欄位送出的內容不是 UTF-8 文字（位元組 FF）"),
    ],
)
def test_an_htmx_form_gets_the_sentence_on_top_of_its_own_section(
    client: TestClient, lang: str, message: str
) -> None:
    """The quote builder swaps its section: a whole error page took the form's place. The
    sentence alone goes on top of the form (HX-Reswap), which keeps what was typed."""
    pages, token = _pages(client)
    body = b"csrf_token=" + token.encode() + b"&lines=1&line-0-description=%FF"
    r = pages.post("/plans/1/quote", content=body, headers={
        "content-type": FORM, "HX-Request": "true", "Accept-Language": lang})  # fmt: skip
    assert r.status_code == 422
    assert r.headers["HX-Reswap"] == "afterbegin"
    (said,) = BeautifulSoup(r.text, "html.parser").select("p.notice.error[role=alert]")
    assert message in said.get_text()
    assert "<html" not in r.text


def test_utf8_sent_unescaped_is_read_as_typed(client: TestClient) -> None:
    pages, token = _pages(client)
    body = f"csrf_token={quote(token)}&name=測試智慧股份有限公司&currency=TWD".encode()
    r = pages.post("/customers/new", content=body, headers={"content-type": FORM})
    assert r.status_code == 303, r.text[:300]
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        names = set(s.exec(select(Customer.name)).all())
    assert "測試智慧股份有限公司" in names


def test_the_api_answers_json_naming_the_field(client: TestClient) -> None:
    r = client.post("/api/v1/estimate", content=b"model=%FF",
                    headers={"content-type": FORM})  # fmt: skip
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "model"]
    assert detail["msg"] == "must be UTF-8 text: the form sent bytes that are not (FF)"
