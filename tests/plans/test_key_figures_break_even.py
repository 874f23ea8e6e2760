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


def test_the_summary_states_the_break_even_tables_first_row_with_its_basis(
    pages: TestClient, account: MakeAccount
) -> None:
    # QA: the summary said "Public cloud, on demand stops being cheaper than Buy · month 1
    # (only through the resale at book value)" — the cost table's own period, a generic
    # name — above a break-even table whose first row was "Lambda 8× H100 SXM5 80GB stops
    # being cheaper than Buy · month 19.6"; for a service it gave month 4.6 beside a chart
    # that said no lines cross. The summary now states the table's first row, by the same
    # names, and says that buying is counted with the hardware kept the five years the table
    # counts. Asides take the page's parentheses: 「（…）」 in 中文, " (…)" in English.
    user = signed_in(pages, account).user
    workload = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "concurrency": 64}
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, user.id)
        assert owner is not None
        plan = service.create_plan(session=s, owner=owner, name="70B", workload=workload)
    for lang, kept, wrong in (
        ("zh-TW", "（自購以硬體保留 60 個月計）", "(自購"),
        ("en", " (buying counted with the hardware kept 60 months)", "（buying"),
    ):
        page = soup(pages.get(f"/plans/{plan.id}?lang={lang}"))
        row = next(
            tr for tr in page.select("table.plan-facts tr")
            if tr.th is not None and tr.th.get_text(strip=True) in ("損益兩平", "Break-even")
        )  # fmt: skip
        text = " ".join((row.td.get_text(" ", strip=False) if row.td else "").split())
        table = page.select_one("table.break-even-months tbody tr")
        assert table is not None
        first, when = (td.get_text(" ", strip=True) for td in table.select("td")[:2])
        # the table's sentence (its note, if any, follows in the table only) and its month
        sentence = first.split(" Only through")[0].split(" 僅因")[0]
        squeezed = text.replace(" ", "")
        assert sentence.replace(" ", "") in squeezed, (sentence, text)
        assert squeezed.endswith((when + kept).replace(" ", "")) and wrong not in text, text
        basis = page.select_one("p.break-even-basis")
        assert basis is not None and "60" in basis.get_text(), lang


def test_a_plan_whose_chart_has_no_crossing_has_no_break_even_in_its_summary() -> None:
    """The summary's crossing is one the chart draws: none drawn, none said (QA: month 4.6
    on the summary beside "the lines do not cross in the months shown")."""
    i18n.activate("en")
    result = _result(4.6)
    result["cost"]["tco_options"] = {
        "options": result["cost"]["options"], "break_even": [], "horizon_months": 60,
    }  # fmt: skip
    # the five-year view's crossings are the chart's: an empty list there is no crossing,
    # whatever the cost table's own period found
    assert key_figures(result).break_even is None
