"""A chart Chromium could not draw: tried again, and a quote without it is never kept.

The failure is injected at app.charts.to_svgs (the one call that reaches Chromium), in this
process (`worker.configure(0)`): what is under test is what the quote does with a failed
chart, which a real Chromium only shows under a machine too busy to start it in time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app import charts
from app.plans.models import Plan
from app.quotes import pdf, worker
from tests.accounts.helpers import make_account
from tests.plan_quotes import create_plan


@pytest.fixture
def inline() -> Iterator[None]:
    size = worker.pool_size()
    worker.configure(0)
    yield
    worker.configure(size)


@pytest.fixture
def plan_id(client: TestClient) -> int:
    return int(create_plan(client, make_account(client, "sales"))["id"])


class FailingChromium:
    """app.charts.to_svgs that fails its first `fail` calls (as a Chromium that did not
    start in time fails), then draws for real."""

    def __init__(self, fail: int) -> None:
        self.fail, self.calls = fail, 0
        self.real = charts.to_svgs

    def __call__(self, figures: Any, **kw: Any) -> Any:
        self.calls += 1
        if self.calls <= self.fail:
            raise charts.ChartRenderError("Chromium did not start: TimeoutError()")
        return self.real(figures, **kw)


def test_a_chart_that_fails_once_is_drawn_on_the_second_try(
    client: TestClient, plan_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    chromium = FailingChromium(fail=1)
    monkeypatch.setattr(charts, "to_svgs", chromium)
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        images = pdf.chart_images(plan, "en")
    assert chromium.calls == 2
    assert images.missing == ()
    assert set(images.images) == {"memory", "cumulative", "tco"}
    assert all(v.startswith("data:image/svg+xml;base64,") for v in images.images.values())


def test_a_quote_missing_a_chart_is_not_kept_and_the_next_one_has_it(
    client: TestClient, plan_id: int, monkeypatch: pytest.MonkeyPatch, inline: None
) -> None:
    chromium = FailingChromium(fail=pdf.CHART_TRIES)  # every try of the first quote fails
    monkeypatch.setattr(charts, "to_svgs", chromium)
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        first = pdf.render_quote_pdf(plan, lang="zh-TW", session=s)
        assert chromium.calls == pdf.CHART_TRIES
        second = pdf.render_quote_pdf(plan, lang="zh-TW", session=s)
        assert chromium.calls == pdf.CHART_TRIES + 1  # rendered again, not served from cache
        third = pdf.render_quote_pdf(plan, lang="zh-TW", session=s)
        assert chromium.calls == pdf.CHART_TRIES + 1  # the complete quote is the cached one
    assert first.startswith(b"%PDF-") and second.startswith(b"%PDF-")
    assert len(second) > len(first)  # three vector charts more
    assert third == second
