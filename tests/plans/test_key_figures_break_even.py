"""The plan page's break-even reads as the cost table and the chart write it (QA: "month
12.0" on the summary beside the chart's "Month 12")."""

from __future__ import annotations

from app import i18n
from app.plans.presenters import key_figures


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
