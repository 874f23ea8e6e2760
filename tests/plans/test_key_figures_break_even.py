"""The plan page's break-even reads as the cost table and the chart write it (QA: "month
12.0" on the summary beside the chart's "Month 12")."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlmodel import Session

from app import i18n
from app.accounts.models import User
from app.plans import service
from app.plans.presenters import key_figures
from tests.accounts.helpers import MakeAccount
from tests.plans.test_pages import signed_in, soup


def _result(month: float, note: str = "") -> dict:
    options = [
        {"key": "rent_hourly:x", "kind": "rent_hourly", "label": "Hourly", "total": 1.0},
        {"key": "buy:x", "kind": "buy", "label": "Buy", "total": 2.0},
    ]
    return {"cost": {"currency": "TWD", "options": options, "cheapest": "rent_hourly:x",
                     "break_even": [{"a": "rent_hourly:x", "b": "buy:x", "month": month,
                                     "note": note}]}}  # fmt: skip


def test_a_whole_month_drops_its_tenth_and_a_resale_crossing_says_so() -> None:
    i18n.activate("en")
    be = key_figures(_result(12.0)).break_even
    assert be is not None and be["month_text"] == "month 12" and not be["qualifier"]
    assert key_figures(_result(19.73)).break_even["month_text"] == "month 19.7"  # type: ignore[index]
    # Crossing only through the resale (interpolated to 59.4): the month of the sale, 60.
    resale = key_figures(_result(59.4, note="resale")).break_even
    assert resale is not None and resale["month_text"] == "month 60"
    assert resale["qualifier"] == "only through the resale at book value"
    i18n.activate("zh-TW")
    try:
        assert key_figures(_result(12.0)).break_even["month_text"] == "第 12 個月"  # type: ignore[index]
    finally:
        i18n.activate("en")


def test_the_plan_pages_resale_qualifier_takes_the_pages_parentheses(
    pages: TestClient, account: MakeAccount
) -> None:
    # QA: 「第 12 個月 (僅因按帳面價值轉售)」 wrote half-width parentheses inside Chinese text;
    # the page now writes it as its other asides do (i18n.paren): 「（…）」 in 中文, " (…)" in
    # English. A 70B service on 4 H100: buying passes hourly rent only through the resale.
    user = signed_in(pages, account).user
    workload = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "concurrency": 64}
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, user.id)
        assert owner is not None
        plan = service.create_plan(session=s, owner=owner, name="70B", workload=workload)
    for lang, want, wrong in (
        ("zh-TW", "（僅因按帳面價值轉售）", "(僅因按帳面價值轉售)"),
        ("en", " (only through the resale at book value)", "（only"),
    ):
        page = soup(pages.get(f"/plans/{plan.id}?lang={lang}"))
        row = next(
            tr for tr in page.select("table.plan-facts tr")
            if tr.th is not None and tr.th.get_text(strip=True) in ("損益兩平", "Break-even")
        )  # fmt: skip
        text = row.td.get_text("", strip=False) if row.td else ""
        assert want in text and wrong not in text, text
        # The summary's month 12 is the 12-month cost table's (resold in month 12); the
        # break-even table's 21.1 is the five-year view's, the hardware kept: it says so.
        basis = page.select_one("p.break-even-basis")
        assert basis is not None and "60" in basis.get_text(), lang
