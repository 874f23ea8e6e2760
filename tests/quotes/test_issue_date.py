"""A quote is dated on Taipei's calendar, with or without quote lines.

QA: at 06:39 in Taipei on 7 December (22:39 UTC on the 6th) a plan without quote lines was
printed "2026年12月6日", valid until 5 January, while the same plan with one line added a
minute later read 7 December and 6 January: the date of a plan's revision was its UTC date.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.plans.models import Plan
from app.quotes.service import VALID_DAYS, issue_date
from tests.accounts.helpers import make_account
from tests.quotes.test_quote_fixes import _flat, _html
from tests.quotes.test_quote_life import WORKLOAD

# 22:39 UTC on 6 December is 06:39 on 7 December in Taipei (UTC+8, no daylight saving).
SAVED = datetime(2026, 12, 6, 22, 39, tzinfo=UTC)


def test_a_revision_saved_after_midnight_in_taipei_is_dated_that_day() -> None:
    assert issue_date(Plan(updated_at=SAVED)) == date(2026, 12, 7)
    # SQLite reads the stored instant back without its zone: UTC, as the tables store it
    assert issue_date(Plan(updated_at=SAVED.replace(tzinfo=None))) == date(2026, 12, 7)
    assert issue_date(Plan(updated_at=datetime(2026, 12, 6, 15, 59, tzinfo=UTC))) == date(
        2026, 12, 6
    )


def test_a_quote_without_lines_prints_taipeis_date_and_its_validity(client: TestClient) -> None:
    a = make_account(client, "sales")
    r = client.post("/api/v1/plans", json={"name": "日期", "workload": WORKLOAD}, headers=a.headers)
    assert r.status_code == 201, r.text
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, r.json()["id"])
        assert plan is not None and not (plan.quote or {}).get("lines")
        plan.updated_at = SAVED
        s.add(plan)
        s.commit()
    assert VALID_DAYS == 30  # 7 December + 30 days = 6 January
    zh = _flat(_html(client, r.json()["id"], "zh-TW"))
    assert "2026年12月7日" in zh and "2027年1月6日" in zh
    assert "2026年12月6日" not in zh
    en = _flat(_html(client, r.json()["id"], "en"))
    assert "Dec 7, 2026" in en and "Jan 6, 2027" in en
