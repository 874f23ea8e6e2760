"""A form field sent more than once is refused naming it, never read as its last value.

QA: `name=a&name=b` on the customer or the plan form saved "b" without a word. No POST form
of the pages sends a field twice (the quote and phase builders number their lines), so each
takes every field once (app.web.forms.read_once): the customer, plan edit and status forms
say it beside the input (422, in the page's language), every other form on the error page
naming the field; nothing is saved. /compare's `ids` tick boxes, a GET form, still repeat.
"""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.customers.models import Customer
from app.plans.models import Plan
from tests.accounts.helpers import Account, make_account, sign_in
from tests.plan_quotes import create_plan

FORM = {"content-type": "application/x-www-form-urlencoded"}
SAID = {
    "en": "“name” was sent 2 times: this field takes one value.",
    "zh-TW": "「name」送出了 2 次：這個欄位只能有一個值。",
}


def _pages(client: TestClient) -> tuple[Account, TestClient]:
    a = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    return a, pages


def _token(pages: TestClient, path: str) -> str:
    page = BeautifulSoup(pages.get(path).text, "html.parser")
    return str(page.select_one("input[name=csrf_token]")["value"])


def _post(pages: TestClient, path: str, body: str, lang: str = "en") -> Any:
    return pages.post(path, content=body.encode(), headers={**FORM, "Accept-Language": lang})


def _count(client: TestClient) -> int:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        return int(s.exec(select(func.count()).select_from(Customer)).one())


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_new_customer_named_twice_is_refused_beside_the_name(
    client: TestClient, lang: str
) -> None:
    _, pages = _pages(client)
    before = _count(client)
    token = _token(pages, "/customers/new")
    r = _post(pages, "/customers/new", f"csrf_token={token}&name=a&name=b", lang)
    assert r.status_code == 422
    error = BeautifulSoup(r.text, "html.parser").select_one("#err-name")
    assert error is not None and error.get_text(strip=True) == SAID[lang]
    assert _count(client) == before


def test_a_customer_edit_with_a_repeated_field_saves_nothing(client: TestClient) -> None:
    a, pages = _pages(client)
    c = client.post("/api/v1/customers", json={"name": "Once Co"}, headers=a.headers).json()
    token = _token(pages, f"/customers/{c['id']}")
    body = f"csrf_token={token}&version=1&name=Once+Co&contact=x&contact=y"
    r = _post(pages, f"/customers/{c['id']}", body)
    assert r.status_code == 422
    error = BeautifulSoup(r.text, "html.parser").select_one("#err-contact")
    assert error is not None and "“contact” was sent 2 times" in error.get_text()
    # a hidden field has no input to stand beside: said above the form
    r = _post(pages, f"/customers/{c['id']}", f"csrf_token={token}&version=1&version=1&name=N")
    assert r.status_code == 422
    assert (
        "“version” was sent 2 times"
        in BeautifulSoup(r.text, "html.parser").select_one("#err-form").get_text()
    )
    got = client.get(f"/api/v1/customers/{c['id']}", headers=a.headers).json()
    assert (got["version"], got["name"], got["contact"]) == (1, "Once Co", "")


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_plan_edit_form_says_a_repeated_name_beside_it(client: TestClient, lang: str) -> None:
    a, pages = _pages(client)
    plan = create_plan(client, a)
    token = _token(pages, f"/plans/{plan['id']}/edit")
    body = f"csrf_token={token}&version=1&status=draft&name=a&name=b"
    r = _post(pages, f"/plans/{plan['id']}/edit", body, lang)
    assert r.status_code == 422
    error = BeautifulSoup(r.text, "html.parser").select_one("#err-name")
    assert error is not None and error.get_text(strip=True) == SAID[lang]
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = s.get(Plan, plan["id"])
        assert saved is not None and (saved.version, saved.name) == (1, plan["name"])


def test_the_status_form_says_a_repeated_status_beside_its_select(client: TestClient) -> None:
    a, pages = _pages(client)
    plan = create_plan(client, a)
    token = _token(pages, f"/plans/{plan['id']}")
    body = f"csrf_token={token}&version=1&status=lost&status=draft"
    r = _post(pages, f"/plans/{plan['id']}/status", body)
    assert r.status_code == 422
    error = BeautifulSoup(r.text, "html.parser").select_one("#err-status")
    assert error is not None and "“status” was sent 2 times" in error.get_text()
    got = client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()
    assert (got["version"], got["status"]) == (1, "draft")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/plans/{id}/quote", "lines=0&valid_until=2099-01-01&valid_until=2099-02-01"),
        ("/plans/new", "preset=llama-3.1-8b&task=lora&name=a&name=b"),
        ("/account/password", "current=a&new=b&new=c"),
    ],
)
def test_every_other_form_names_the_field_on_the_error_page(
    client: TestClient, path: str, body: str
) -> None:
    a, pages = _pages(client)
    plan = create_plan(client, a)
    url = path.format(id=plan["id"])
    before = client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()["version"]
    token = _token(pages, f"/plans/{plan['id']}")
    r = _post(pages, url, f"csrf_token={token}&{body}")
    assert r.status_code == 422, r.text[:300]
    said = BeautifulSoup(r.text, "html.parser").select_one(".error-page p").get_text()
    assert "was sent 2 times: this field takes one value." in said
    assert client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()["version"] == before


def test_the_compare_tick_boxes_still_repeat(client: TestClient) -> None:
    a, pages = _pages(client)
    one, two = create_plan(client, a), create_plan(client, a)
    r = pages.get(f"/compare?ids={one['id']}&ids={two['id']}")
    assert r.status_code == 200
