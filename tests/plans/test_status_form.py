"""The plan page's status form refuses a status the plan cannot take beside its select.

QA: a crafted POST /plans/{id}/status with `status=bogus` (or an answer only the customer
gives, `accepted`) got the generic error page. Now the plan page comes back (422) with the
error under the status select, in the page's language, naming the statuses allowed, and the
plan is unchanged."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.plans.models import Plan
from tests.accounts.helpers import MakeAccount
from tests.plans.test_pages import make_plan, signed_in

SAID = {
    "en": "Choose one of the statuses this plan can take now: Draft, Sent, Lost.",
    "zh-TW": "請從這個方案目前可設定的狀態中選擇：草稿、已送出、未成交。",
}


def _token(pages: TestClient, path: str) -> str:
    page = BeautifulSoup(pages.get(path).text, "html.parser")
    return str(page.select_one("input[name=csrf_token]")["value"])


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
@pytest.mark.parametrize("status", ["bogus", "accepted", ""])
def test_a_status_the_plan_cannot_take_is_said_beside_the_select(
    pages: TestClient, account: MakeAccount, lang: str, status: str
) -> None:
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    r = pages.post(
        f"/plans/{plan.id}/status",
        data={"csrf_token": _token(pages, f"/plans/{plan.id}"), "version": "1", "status": status},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    error = page.select_one("form.status-form #err-status")
    assert error is not None and error.get_text(strip=True) == SAID[lang]
    assert page.select_one("#f-status")["aria-invalid"] == "true"
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        saved = s.get(Plan, plan.id)
        assert saved is not None and (saved.status, saved.version) == ("draft", 1)
