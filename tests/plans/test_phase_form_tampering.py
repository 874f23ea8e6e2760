"""The phase builder refuses what its own page could not have posted, and keeps the rest.

QA: `POST /plans/{id}/phases` with the page's own values except `phase-0-base=notjson` (the
hidden field that carries the phase's saved workload) answered 303 and saved a new version:
the deadline, users, utilization and term were dropped, 10,000 images became 1,000, 24 GPUs
became 4 and the quote NT$1,050,000 became NT$200,000. `phase-0-base=[]` was taken too.
And a monthly phase saved 800 or "abc" busy hours without a word, where an hourly phase
refuses them.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.plans import service
from tests.accounts.helpers import MakeAccount
from tests.plans.test_pages import signed_in, soup
from tests.plans.test_phase_builder import HX, form_of, t16


def _version(pages: TestClient, plan_id: int) -> int:
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        return service.get_plan(session=s, plan_id=plan_id).version


@pytest.mark.parametrize("base", ["notjson", "[]", '"a string"', "{"])
@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "this phase's saved workload (phase-0-base) could not be read"),
        ("zh-TW", "phase-0-base"),
    ],
)
def test_a_phase_whose_saved_workload_is_unreadable_is_refused_and_nothing_is_saved(
    pages: TestClient, account: MakeAccount, base: str, lang: str, said: str
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    h = {"Accept-Language": lang}
    data = form_of(soup(pages.get(f"/plans/{plan.id}", headers=h)))
    data["phase-0-base"] = base
    data["phase-1-months"] = "3"  # typed by the user
    r = pages.post(
        f"/plans/{plan.id}/phases",
        data={**data, "action": "save"},
        headers=h,
        follow_redirects=False,
    )
    assert r.status_code == 422
    page = soup(r)
    error = page.select_one("#err-phase-0")
    assert error is not None and said in error.get_text()
    assert _version(pages, plan.id) == plan.version  # nothing saved
    kept = form_of(page)
    assert kept["phase-1-months"] == "3"  # what was typed stays in the form


def test_the_page_says_the_same_in_chinese(pages: TestClient, account: MakeAccount) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    zh = {"Accept-Language": "zh-TW"}
    data = form_of(soup(pages.get(f"/plans/{plan.id}", headers=zh)))
    data["phase-0-base"] = "notjson"
    r = pages.post(
        f"/plans/{plan.id}/phases", data={**data, "action": "save"}, headers={**HX, **zh}
    )
    assert r.status_code == 422
    text = soup(r).select_one("#err-phase-0").get_text()
    assert "重新載入" in text and "phase-0-base" in text


def test_a_phase_added_on_the_page_has_no_saved_workload_and_saves(
    pages: TestClient, account: MakeAccount
) -> None:
    """The page writes an empty `base` for a phase added there: that is no tampering."""
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"})))
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "add-workload"}, headers=HX)
    assert r.status_code == 200
    added = form_of(soup(r))
    assert added["phase-3-base"] == ""
    r = pages.post(f"/plans/{plan.id}/phases", data={**added, "action": "save"}, headers=HX)
    assert r.status_code == 204, soup(r).get_text(" ", strip=True)[:300]
    assert _version(pages, plan.id) == plan.version + 1


@pytest.mark.parametrize("hours", ["800", "abc", "0"])
@pytest.mark.parametrize("option", ["monthly", "hourly"])
def test_busy_hours_are_checked_the_same_whether_the_phase_shows_them_or_not(
    pages: TestClient, account: MakeAccount, hours: str, option: str
) -> None:
    a = signed_in(pages, account)
    plan = t16(pages, a.user)
    data = form_of(soup(pages.get(f"/plans/{plan.id}", headers={"Accept-Language": "en"})))
    data["phase-1-option"] = option
    data["phase-1-hours_per_month"] = hours
    r = pages.post(f"/plans/{plan.id}/phases", data={**data, "action": "save"}, headers=HX)
    assert r.status_code == 422
    page = soup(r)
    # beside the input where the phase shows it, else at the head of the phase
    where = "#err-phase-1-hours_per_month" if option == "hourly" else "#err-phase-1"
    error = page.select_one(where)
    assert error is not None and error.get_text().startswith("Busy hours per month")
    assert _version(pages, plan.id) == plan.version
