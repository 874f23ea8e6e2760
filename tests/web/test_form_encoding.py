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
        ("en", b"Caf%E9", "must be UTF-8 text: the form sent bytes that are not (E9)"),
        ("zh-TW", b"%E4%B8", "必須是 UTF-8 文字：表單送出的位元組不是（E4 B8）"),
        ("en", b"Caf\xe9", "must be UTF-8 text: the form sent bytes that are not (E9)"),
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
    assert message in BeautifulSoup(r.text, "html.parser").get_text(" ")
    assert "name" in r.text
    assert _customers(client) == before


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
