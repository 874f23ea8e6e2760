"""A chart Chromium could not draw: tried again, and a quote without it is never kept.

The failure is injected at app.charts.to_svgs (the one call that reaches Chromium), in this
process (`worker.configure(0)`): what is under test is what the quote does with a failed
chart, which a real Chromium only shows under a machine too busy to start it in time.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app import charts
from app.plans.models import Plan
from app.quotes import pdf, worker
from tests.accounts.helpers import make_account
from tests.plan_quotes import WORKLOAD, create_plan


@pytest.fixture
def inline() -> Iterator[None]:
    size = worker.pool_size()
    worker.configure(0)
    yield
    worker.configure(size)


@pytest.fixture
def plan_id(client: TestClient) -> int:
    # Rented for 6 months: a job of hours alone is documented without the five-year charts
    # (app.quotes.pdf.one_off_hours), and these tests need all three.
    workload = {**WORKLOAD, "rent_months": 6}
    return int(create_plan(client, make_account(client, "sales"), workload=workload)["id"])


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


def test_no_second_try_once_the_first_took_the_retry_budget(
    client: TestClient, plan_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A first try that timed out (30 s to start Chromium + 30 s a chart) leaves no room for
    # a second one inside the worker's 180 s: the quote is made without the charts.
    chromium = FailingChromium(fail=1)
    monkeypatch.setattr(charts, "to_svgs", chromium)
    monkeypatch.setattr(pdf, "CHART_RETRY_WITHIN_S", 0.0)
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        images = pdf.chart_images(plan, "en")
    assert chromium.calls == 1
    assert set(images.missing) == {"memory", "cumulative", "tco"} and images.images == {}


def test_a_worker_that_does_not_answer_in_time_is_a_503_to_retry(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the TimeoutError from the pool escaped as a 500.
    assert worker.pool_size() >= 1
    who = make_account(client, "sales")
    # A pool that has rendered once (another plan), so that its worker process exists.
    first = create_plan(client, who)
    r = client.get(f"/api/v1/plans/{first['id']}/pdf?lang=en", headers=who.headers)
    assert r.status_code == 200
    plan = create_plan(client, who)
    pool = worker._pool
    assert pool is not None
    workers = list(pool._processes.values())  # type: ignore[attr-defined]
    assert workers
    monkeypatch.setattr(worker, "RENDER_TIMEOUT_S", 0.001)
    for lang, words in (("zh-TW", "PDF 產生逾時"), ("en", "The PDF took too long to render")):
        r = client.get(f"/api/v1/plans/{plan['id']}/pdf?lang={lang}",
                       headers={**who.headers, "Accept-Language": lang})  # fmt: skip
        assert r.status_code == 503, r.text
        assert words in r.json()["detail"]
    assert worker._pool is None  # the stuck pool was let go; the next quote starts a new one
    # And its worker stopped, not left rendering. The pool's own manager thread reaps the
    # killed process too: whichever thread's waitpid loses gets ECHILD and reads "alive"
    # until the winner records the exit code, so the check is repeated, not read once.
    deadline = time.monotonic() + 30
    for proc in workers:
        proc.join(timeout=10)
        while proc.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not proc.is_alive()
