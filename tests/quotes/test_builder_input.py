"""The quote builder form refuses what it cannot read instead of saving less (QA S1.3, S2.8,
S2.9): a line count that is not one, more lines than the API takes, ids and versions that
are not ids. Nothing is saved, the user's lines stay on screen, and no answer is a 500."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.quotes.models import MAX_LINES
from tests.accounts.helpers import Account, make_account, sign_in
from tests.quotes.test_builder_pages import _form
from tests.quotes.test_quote_life import TERM, _customer, _plan

HUGE = "9" * 25  # past 2^63: overflowed SQLite
LONG = "9" * 5000  # past int()'s 4,300-digit limit


def _builder(client: TestClient) -> tuple[Account, TestClient, dict[str, Any], dict[str, str]]:
    """A plan with one quote line, a signed-in page client and the builder's form data."""
    sales = make_account(client, "sales")
    plan = _plan(client, sales, _customer(client, sales)["id"], {"lines": [{"option_key": TERM}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, sales.user)
    page = BeautifulSoup(pages.get(f"/plans/{plan['id']}").text, "html.parser")
    return sales, pages, plan, _form(page)


def _saved(client: TestClient, who: Account, plan_id: int) -> tuple[int, int]:
    """(version, number of quote lines) as stored."""
    got = client.get(f"/api/v1/plans/{plan_id}", headers=who.headers).json()
    return got["version"], len(got["quote"]["lines"])


def _free_lines(n: int) -> dict[str, str]:
    out = {"lines": str(n)}
    for i in range(n):
        out |= {
            f"line-{i}-description": f"Item {i}",
            f"line-{i}-quantity": "1",
            f"line-{i}-unit_price": "100",
            f"line-{i}-months": "1",
            f"line-{i}-discount_pct": "0",
        }
    return out


@pytest.mark.parametrize(
    ("lang", "message"),
    [("en", "At most 50 lines: remove 10."), ("zh-TW", "最多 50 列：請移除 10 列。")],
)
def test_more_lines_than_the_api_takes_is_an_error_not_the_first_fifty(
    client: TestClient, lang: str, message: str
) -> None:
    sales, pages, plan, data = _builder(client)
    data = {k: v for k, v in data.items() if not k.startswith("line-")}
    data |= _free_lines(MAX_LINES + 10)
    r = pages.post(f"/plans/{plan['id']}/quote", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert page.select_one("#err-lines").get_text() == message
    assert len(page.select("#quote-builder fieldset.line-row")) == MAX_LINES + 10, "all kept"
    assert _saved(client, sales, plan["id"]) == (1, 1)
    # Removing lines from the re-rendered form works and says so while still over.
    r = pages.post(
        f"/plans/{plan['id']}/quote",
        data={**_form(page), "action": "remove-0"},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert len(page.select("#quote-builder fieldset.line-row")) == MAX_LINES + 9
    assert "9" in page.select_one("#err-lines").get_text()


def test_fifty_lines_save(client: TestClient) -> None:
    sales, pages, plan, data = _builder(client)
    data = {k: v for k, v in data.items() if not k.startswith("line-")} | _free_lines(MAX_LINES)
    assert pages.post(f"/plans/{plan['id']}/quote", data=data).status_code == 303
    assert _saved(client, sales, plan["id"]) == (2, MAX_LINES)


@pytest.mark.parametrize("lines", ["²", "abc", "-1", "1.0", "", None, LONG])
def test_a_line_count_that_is_not_a_count_saves_nothing(
    client: TestClient, lines: str | None
) -> None:
    """It used to save the quote with zero lines, wiping the saved ones."""
    sales, pages, plan, data = _builder(client)
    data.pop("lines")
    if lines is not None:
        data["lines"] = lines
    r = pages.post(f"/plans/{plan['id']}/quote", data=data, headers={"Accept-Language": "zh-TW"})
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert (
        page.select_one("#err-lines").get_text() == "報價列數遺失或不是數字：請檢查各列後再儲存。"
    )
    rows = page.select("#quote-builder fieldset.line-row")
    assert len(rows) == 1, "the posted line is still on screen"
    assert page.select_one("[name=lines]")["value"] == "1", "saving again sends a real count"
    assert _saved(client, sales, plan["id"]) == (1, 1)


@pytest.mark.parametrize("version", ["abc", "²", "0", HUGE, LONG])
def test_a_version_that_is_not_one_is_stale_like_any_other(
    client: TestClient, version: str
) -> None:
    sales, pages, plan, data = _builder(client)
    r = pages.post(f"/plans/{plan['id']}/quote", data={**data, "version": version})
    assert r.status_code == 409
    assert _saved(client, sales, plan["id"]) == (1, 1)


@pytest.mark.parametrize("customer_id", ["²", "abc", "0", HUGE, LONG])
def test_a_customer_that_is_not_an_id_is_an_error_beside_the_field(
    client: TestClient, customer_id: str
) -> None:
    sales, pages, plan, data = _builder(client)
    data["discount_pct"] = "3"
    r = pages.post(
        f"/plans/{plan['id']}/quote",
        data={**data, "customer_id": customer_id},
        headers={"Accept-Language": "en"},
    )
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert page.select_one("#err-customer_id").get_text() == "Choose one of the listed options."
    assert page.select_one("[name=discount_pct]")["value"] == "3", "the input is kept"
    assert _saved(client, sales, plan["id"]) == (1, 1)


@pytest.mark.parametrize("action", ["remove-²", "remove-", "remove--1", f"remove-{LONG}"])
def test_removing_a_line_that_is_not_one_removes_nothing(client: TestClient, action: str) -> None:
    _sales, pages, plan, data = _builder(client)
    r = pages.post(f"/plans/{plan['id']}/quote", data={**data, "action": action})
    assert r.status_code == 200
    page = BeautifulSoup(r.text, "html.parser")
    assert len(page.select("#quote-builder fieldset.line-row")) == 1


def test_a_customer_deleted_meanwhile_is_said_in_the_pages_words(client: TestClient) -> None:
    """QA: the builder said "choose one from GET /api/v1/customers" beside its select."""
    sales, pages, plan, data = _builder(client)
    r = pages.post(f"/plans/{plan['id']}/quote", data={**data, "customer_id": "987654"},
                   headers={"Accept-Language": "zh-TW"})  # fmt: skip
    assert r.status_code == 422
    said = BeautifulSoup(r.text, "html.parser").select_one("#err-customer_id").get_text()
    assert said == "客戶 987654 已不存在：請從清單中選擇"
    assert _saved(client, sales, plan["id"]) == (1, 1)
