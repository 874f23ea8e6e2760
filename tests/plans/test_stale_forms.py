"""A form saved on top of an old version keeps what was typed (QA of stop 22): the quote
builder, the phase builder and the planner's "save as a new revision" answered a bare 409
page in English, and the typed lines, phases or workload were gone. Now each re-shows its
form with the input, says in the page's language what happened, and carries the current
version, so saving again goes through (knowingly). The planner's "Save as plan" with a bad
field keeps the planner too, with the error beside the field."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import Account, make_account, sign_in
from tests.plans.test_phase_builder import form_of as phase_form
from tests.quotes.test_builder_pages import _form as quote_form
from tests.quotes.test_quote_life import TERM, _customer, _plan

MESSAGES = {
    "en": "Someone else saved this plan while you were editing: you started from version 1, "
    "it is now at version 2.",
    "zh-TW": "您編輯期間，有其他人儲存了這個方案：您從第 1 版開始編輯，目前已是第 2 版。",
}


def soup(text: str) -> BeautifulSoup:
    return BeautifulSoup(text, "html.parser")


def _setup(client: TestClient) -> tuple[Account, TestClient, dict[str, Any]]:
    sales = make_account(client, "sales")
    plan = _plan(client, sales, _customer(client, sales)["id"], {"lines": [{"option_key": TERM}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, sales.user)
    return sales, pages, plan


def _someone_else_saves(client: TestClient, who: Account, plan: dict[str, Any]) -> None:
    r = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": 1, "notes": "changed by a colleague"},
        headers=who.headers,
    )
    assert r.status_code == 200 and r.json()["version"] == 2, r.text


def _version(client: TestClient, who: Account, plan_id: int) -> int:
    return int(client.get(f"/api/v1/plans/{plan_id}", headers=who.headers).json()["version"])


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_quote_builder_keeps_the_typed_lines_on_a_stale_save(
    client: TestClient, lang: str
) -> None:
    sales, pages, plan = _setup(client)
    data = quote_form(soup(pages.get(f"/plans/{plan['id']}").text))
    assert data["version"] == "1"
    data |= {
        "lines": "2",
        "line-1-description": "Onsite support, 3 visits",
        "line-1-quantity": "3",
        "line-1-unit_price": "12000",
        "line-1-months": "",
        "line-1-discount_pct": "0",
    }
    _someone_else_saves(client, sales, plan)
    r = pages.post(f"/plans/{plan['id']}/quote", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 409
    page = soup(r.text)
    alert = page.select_one("#quote-builder [role=alert]")
    assert alert is not None and MESSAGES[lang] in alert.get_text(), alert
    # the typed line is still there, and the form now carries the current version
    assert page.select_one("input[name=line-1-description]")["value"] == "Onsite support, 3 visits"
    assert page.select_one("input[name=line-1-unit_price]")["value"] == "12000"
    form = quote_form(page)
    assert form["version"] == "2"
    assert _version(client, sales, plan["id"]) == 2  # nothing saved
    # saving the kept form again goes through, on top of the colleague's version
    again = pages.post(f"/plans/{plan['id']}/quote", data=form)
    assert again.status_code == 303
    saved = client.get(f"/api/v1/plans/{plan['id']}", headers=sales.headers).json()
    assert saved["version"] == 3 and saved["notes"] == "changed by a colleague"
    assert saved["quote"]["lines"][1]["description"] == "Onsite support, 3 visits"


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_phase_builder_keeps_the_typed_phases_on_a_stale_save(
    client: TestClient, lang: str
) -> None:
    sales, pages, plan = _setup(client)
    data = phase_form(soup(pages.get(f"/plans/{plan['id']}").text))
    added = pages.post(
        f"/plans/{plan['id']}/phases",
        data={**data, "action": "add-capacity"},
        headers={"HX-Request": "true"},
    )
    data = phase_form(soup(added.text))
    months = next(k for k in data if k.endswith("-months") and k != "phase-0-months")
    data[months] = "5"
    _someone_else_saves(client, sales, plan)
    r = pages.post(
        f"/plans/{plan['id']}/phases",
        data={**data, "action": "save"},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 409
    page = soup(r.text)
    alert = page.select_one("#phase-builder #err-phases")
    assert alert is not None and MESSAGES[lang] in alert.get_text()
    kept = phase_form(page)
    assert kept[months] == "5" and kept["version"] == "2"
    assert _version(client, sales, plan["id"]) == 2


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_planner_keeps_the_workload_on_a_stale_revision(client: TestClient, lang: str) -> None:
    sales, pages, plan = _setup(client)
    planner = pages.get(
        "/plan",
        params={
            "preset": "llama-3.1-8b",
            "task": "lora",
            "deadline_days": "9",
            "revise": plan["id"],
            "version": "1",
        },
    )
    form = soup(planner.text).select_one(f"form[action='/plans/{plan['id']}/workload']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    assert data["version"] == "1" and data["deadline_days"] == "9"
    _someone_else_saves(client, sales, plan)
    r = pages.post(f"/plans/{plan['id']}/workload", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 409
    page = soup(r.text)
    assert MESSAGES[lang] in page.select_one("#err-revise").get_text()
    again = page.select_one(f"form[action='/plans/{plan['id']}/workload']")
    kept = {i["name"]: i.get("value", "") for i in again.select("input[name]")}
    assert kept["deadline_days"] == "9" and kept["version"] == "2"
    assert page.select_one("#deadline_days, input[name=deadline_days]") is not None
    assert _version(client, sales, plan["id"]) == 2
    r = pages.post(f"/plans/{plan['id']}/workload", data=kept)
    assert r.status_code == 303 and _version(client, sales, plan["id"]) == 3


@pytest.mark.parametrize(
    ("lang", "message"), [("en", "At most 200 characters."), ("zh-TW", "最多 200 個字元")]
)
def test_save_as_plan_with_a_bad_field_keeps_the_planner(
    client: TestClient, lang: str, message: str
) -> None:
    _sales, pages, _unused = _setup(client)
    planner = pages.get("/plan", params={"preset": "llama-3.1-8b", "task": "lora"})
    form = soup(planner.text).select_one("form[action='/plans/new']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    data |= {"name": "x" * 201, "customer": "NTU AI Lab"}
    r = pages.post("/plans/new", data=data, headers={"Accept-Language": lang})
    assert r.status_code == 422
    page = soup(r.text)
    error = page.select_one("#err-plan-name")
    assert error is not None and message in error.get_text()
    assert page.select_one("#f-plan-customer")["value"] == "NTU AI Lab"
    assert page.select_one("#f-plan-name")["value"] == "x" * 201
    # the planner's own form and results are there, not an error page
    assert page.select_one("form[action='/plans/new']") is not None


def test_the_api_409_is_in_the_request_language(client: TestClient) -> None:
    sales, _pages, plan = _setup(client)
    _someone_else_saves(client, sales, plan)
    r = client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": 1, "notes": "mine"},
        headers={**sales.headers, "Accept-Language": "zh-TW"},
    )
    assert r.status_code == 409
    assert r.json()["detail"].startswith("您載入之後，這個方案已被其他人修改")
    assert r.json()["current_version"] == 2


def _planner_save_form(pages: TestClient) -> dict[str, str]:
    planner = pages.get("/plan", params={"preset": "llama-3.1-8b", "task": "lora"})
    form = soup(planner.text).select_one("form[action='/plans/new']")
    return {i["name"]: i.get("value", "") for i in form.select("input[name]")}


@pytest.mark.parametrize("field", ["name", "customer"])
def test_save_as_plan_refuses_a_control_character_as_the_edit_form_does(
    client: TestClient, field: str
) -> None:
    """QA: "a\\x00b" was saved as the plan's name; every later edit, and the plan's own
    export, was then a 422 on it."""
    sales, pages, _unused = _setup(client)
    before = client.get("/api/v1/plans", headers=sales.headers).json()["total"]
    data = _planner_save_form(pages) | {"name": "Lab", "customer": "NTU", field: "a\x00b"}
    r = pages.post("/plans/new", data=data, headers={"Accept-Language": "en"})
    assert r.status_code == 422
    error = soup(r.text).select_one(f"#err-plan-{field}")
    assert error is not None and "(found U+0000)" in error.get_text()
    assert client.get("/api/v1/plans", headers=sales.headers).json()["total"] == before


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"tokens": "0"}, "0 training tokens"),
        ({"preset": "nope"}, "nope"),
    ],
)
def test_save_as_plan_that_the_engine_refuses_keeps_the_planner(
    client: TestClient, changed: dict[str, str], said: str
) -> None:
    """QA: the engine's refusal was a bare error page ("Something went wrong … Go to the home
    page"): every typed value was gone. Now the planner as posted, with the refusal."""
    sales, pages, _unused = _setup(client)
    before = client.get("/api/v1/plans", headers=sales.headers).json()["total"]
    data = _planner_save_form(pages) | {"name": "My typed plan", "customer": "ACME", **changed}
    r = pages.post("/plans/new", data=data, headers={"Accept-Language": "en"})
    assert r.status_code == 422
    page = soup(r.text)
    assert said in page.get_text()
    assert "Go to the home page" not in page.get_text()
    # the planner's form, as posted
    form = page.select_one("form#plan-form")
    assert form is not None
    for key, value in changed.items():
        field = form.select_one(f"[name={key}]")
        assert field is not None, key
        if field.name == "input":  # typed values come back as typed
            assert field["value"] == value
    assert client.get("/api/v1/plans", headers=sales.headers).json()["total"] == before


UNKNOWN = {
    "en": "This page was made from a version this plan does not have (it is at version 1).",
    "zh-TW": "這個頁面來自此方案沒有的版本（方案目前為第 1 版）。",
}


@pytest.mark.parametrize("version", ["999", "abc", "0", "-1"])
@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_version_the_plan_never_had_is_said_above_the_kept_input(
    client: TestClient, lang: str, version: str
) -> None:
    """QA: the quote builder answered 422 with no message anywhere when its form carried
    version 999 (a page left open across a restore of an older backup), and both builders
    read "abc" as "you started from version 0". Each keeps the typed input, says what
    happened in the page's language, carries the plan's version, and saves nothing."""
    sales, pages, plan = _setup(client)
    headers = {"Accept-Language": lang}
    data = quote_form(soup(pages.get(f"/plans/{plan['id']}").text))
    data |= {"version": version, "line-0-discount_pct": "3"}
    r = pages.post(f"/plans/{plan['id']}/quote", data=data, headers=headers)
    assert r.status_code == 409
    page = soup(r.text)
    alert = page.select_one("#quote-builder [role=alert]")
    assert alert is not None and UNKNOWN[lang] in alert.get_text(), page.select("[role=alert]")
    assert page.select_one("input[name=line-0-discount_pct]")["value"] == "3"
    assert quote_form(page)["version"] == "1"

    data = phase_form(soup(pages.get(f"/plans/{plan['id']}").text))
    data |= {"version": version, "action": "save"}
    r = pages.post(f"/plans/{plan['id']}/phases", data=data, headers=headers)
    assert r.status_code == 409
    said = soup(r.text).select_one("#err-phases")
    assert said is not None and said.get_text().startswith(UNKNOWN[lang])
    assert _version(client, sales, plan["id"]) == 1  # nothing saved
