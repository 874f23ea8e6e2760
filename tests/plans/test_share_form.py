"""The plan page's share form refuses a lifetime outside 1–365 days beside itself, in the
page's language (QA fuzz: a POST with expires_in_days 0, 366, -1, abc or 1.5 was answered
with FastAPI's raw English JSON 422 instead of a page), and creates nothing."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.sharing.models import ShareLink
from tests.accounts.helpers import MakeAccount
from tests.plans.test_pages import make_plan, signed_in

WORDS = {
    "en": "Choose how long the link lasts: 1 to 365 days.",
    "zh-TW": "請選擇連結的有效期間：1 到 365 天。",
}


def _plan_page(pages: TestClient, account: MakeAccount) -> tuple[int, str]:
    """(plan id, the page's CSRF token) of a plan a signed-in sales engineer opened."""
    a = signed_in(pages, account)
    plan = make_plan(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{plan.id}").text, "html.parser")
    assert plan.id is not None
    return plan.id, str(page.select_one("input[name=csrf_token]")["value"])


def _links(pages: TestClient) -> int:
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        return int(s.exec(select(func.count()).select_from(ShareLink)).one())


@pytest.mark.parametrize("value", ["0", "366", "-1", "abc", "1.5"])
@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_lifetime_outside_1_to_365_days_is_refused_on_the_page(
    pages: TestClient, account: MakeAccount, value: str, lang: str
) -> None:
    plan_id, token = _plan_page(pages, account)
    before = _links(pages)
    r = pages.post(
        f"/plans/{plan_id}/share",
        data={"csrf_token": token, "expires_in_days": value},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("text/html")
    soup = BeautifulSoup(r.text, "html.parser")
    assert soup.select_one("#err-expires_in_days").get_text(strip=True) == WORDS[lang]
    assert soup.select_one("#share-expires")["aria-invalid"] == "true"
    assert _links(pages) == before


def test_a_lifetime_in_range_still_creates_the_link(
    pages: TestClient, account: MakeAccount
) -> None:
    plan_id, token = _plan_page(pages, account)
    before = _links(pages)
    r = pages.post(f"/plans/{plan_id}/share", data={"csrf_token": token, "expires_in_days": "365"})
    assert r.status_code == 200 and "/s/" in r.text
    assert _links(pages) == before + 1
