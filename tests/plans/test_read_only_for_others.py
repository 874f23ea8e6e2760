"""A plan someone else owns is read-only to a sales user: no form they cannot use, a
sentence saying who can change it and that they may duplicate it, and every change refused
before anything they posted is checked.

QA: as another sales user, GET /plans/{id}/edit answered 200 with a Save button; posting it
answered 403 on a generic page that kept none of the input (and a bad field was refused
with 422 first: validation ran before the permission check). The plan page also offered
share and revoke forms that answered 403.
"""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import Account, make_account, sign_in
from tests.quotes.test_quote_life import TERM, _customer, _plan

SENTENCE = {
    "en": "who owns this plan, or an admin can change it. To work on it yourself, duplicate it",
    "zh-TW": "或管理員可以修改。若要自行修改，請複製一份",
}


@pytest.fixture(scope="module")
def others(client: TestClient) -> dict[str, Any]:
    owner = make_account(client, "sales")
    plan = _plan(client, owner, _customer(client, owner)["id"], {"lines": [{"option_key": TERM}]})
    other = make_account(client, "sales")
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, other.user)
    return {"owner": owner, "plan": plan, "pages": pages}


def _soup(r: Any) -> BeautifulSoup:
    return BeautifulSoup(r.text, "html.parser")


def _version(client: TestClient, owner: Account, plan_id: int) -> int:
    return int(client.get(f"/api/v1/plans/{plan_id}", headers=owner.headers).json()["version"])


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_plan_page_offers_no_form_they_cannot_use(others: dict[str, Any], lang: str) -> None:
    pages, plan = others["pages"], others["plan"]
    r = pages.get(f"/plans/{plan['id']}", headers={"Accept-Language": lang})
    assert r.status_code == 200
    page = _soup(r)
    actions = {f["action"] for f in page.select("form[method=post]") if f["action"] != "/logout"}
    assert actions == {f"/plans/{plan['id']}/duplicate"}, actions
    assert not page.select(f"a[href='/plans/{plan['id']}/edit']")
    said = page.select_one(".who-can-edit").get_text()
    owner = others["owner"].user
    assert SENTENCE[lang] in said and (owner.name or owner.email) in said


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_edit_page_says_who_can_edit_before_they_type(
    others: dict[str, Any], lang: str
) -> None:
    pages, plan = others["pages"], others["plan"]
    r = pages.get(f"/plans/{plan['id']}/edit", headers={"Accept-Language": lang})
    assert r.status_code == 403
    page = _soup(r)
    assert not page.select("input[name=name], textarea[name=notes]")
    said = page.select_one(".who-can-edit").get_text()
    owner = others["owner"].user
    assert SENTENCE[lang] in said and (owner.name or owner.email) in said
    # the way to a copy of their own
    duplicate = page.select_one(f"form[action='/plans/{plan['id']}/duplicate']")
    assert duplicate is not None and duplicate.select_one("input[name=csrf_token]")


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        # each with a field its form would refuse (422) from the owner
        ("edit", {"version": "1", "name": "", "status": "nonsense"}),
        ("status", {"version": "1", "status": "nonsense"}),
        ("phases", {"version": "1", "phases": "x", "action": "save"}),
        ("workload", {"version": "1", "preset": "no-such-model", "task": "lora"}),
        ("quote", {"version": "1", "lines": "x", "action": "save"}),
        ("share", {"expires_in_days": "9999"}),
    ],
)
def test_every_change_is_refused_before_its_input_is_checked(
    client: TestClient, others: dict[str, Any], path: str, fields: dict[str, str]
) -> None:
    pages, plan, owner = others["pages"], others["plan"], others["owner"]
    plan_page = _soup(pages.get(f"/plans/{plan['id']}"))
    token = plan_page.select_one("input[name=csrf_token]")["value"]
    before = _version(client, owner, plan["id"])
    r = pages.post(f"/plans/{plan['id']}/{path}", data={**fields, "csrf_token": token})
    assert r.status_code == 403, (path, r.status_code)
    assert _version(client, owner, plan["id"]) == before


def test_the_owner_still_gets_the_forms(client: TestClient, others: dict[str, Any]) -> None:
    owner, plan = others["owner"], others["plan"]
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, owner.user)
    page = _soup(pages.get(f"/plans/{plan['id']}"))
    actions = {f["action"] for f in page.select("form[method=post]")}
    assert {f"/plans/{plan['id']}/share", f"/plans/{plan['id']}/share/revoke"} <= actions
    assert page.select_one(".who-can-edit") is None
    edit = pages.get(f"/plans/{plan['id']}/edit")
    assert edit.status_code == 200 and _soup(edit).select_one("input[name=name]") is not None


def test_a_non_owner_reads_each_quote_line_by_name(others: dict[str, Any]) -> None:
    """QA: without the builder's form the lines read "Line 1 NT$250,000/month × …" with
    nothing saying what they are, under the heading "Quote builder"."""
    page = _soup(others["pages"].get(f"/plans/{others['plan']['id']}?lang=en"))
    assert page.select_one("#qb-title").get_text(strip=True) == "Quote"
    names = [n.get_text(strip=True) for n in page.select(".qb-totals .line-name")]
    # the TERM line: the provider's 4-GPU server on its 6-month contract
    assert len(names) == 1 and "6-month contract" in names[0], names
