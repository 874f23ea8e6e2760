"""A card's headline figure stays on one line inside its card (templating.kpi_value).

QA at 390 px, English: the plan page's "Cheapest option's total" read "NT$1,920,00" with
its last "0" on a line of its own; the cards are two to a row there, and the CI font's
digits (DejaVu Sans Bold, 0.70 em) are wider than a phone's. Checked on the largest
figures the product makes: a pre-training plan whose total runs to ten digits."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Browser
from sqlmodel import Session

from app.accounts import service as accounts
from app.db import make_engine
from app.plans import service as plans
from app.settings import Settings
from tests.browser.test_plans_flow import PASSWORD

pytestmark = pytest.mark.browser

WORKLOADS = {
    "serving": {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "concurrency": 64},
    "pre-training": {"model": {"preset": "llama-3.1-405b"}, "task": "pretrain",
                     "tokens": 1.5e13, "deadline_days": 90},
}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
@pytest.mark.parametrize("width", [390, 1440])
def test_headline_figures_keep_one_line_inside_their_cards(
    browser: Browser, base_url: str, settings: Settings, lang: str, width: int
) -> None:
    email = f"k-{uuid.uuid4().hex[:8]}@example.com"
    ids = []
    with Session(make_engine(settings.database_url)) as s:
        owner = accounts.create_user(session=s, email=email, password=PASSWORD, role="admin")
        for name, workload in WORKLOADS.items():
            plan = plans.create_plan(session=s, owner=owner, name=name, workload=workload)
            ids.append(plan.id)
    ctx = browser.new_context(
        viewport={"width": width, "height": 900}, extra_http_headers={"Accept-Language": lang}
    )
    page = ctx.new_page()
    page.goto(f"{base_url}/login")
    page.fill("#f-email", email)
    page.fill("#f-password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(lambda url: "/login" not in url)
    seen = []
    for plan_id in ids:
        page.goto(f"{base_url}/plans/{plan_id}")
        seen += page.evaluate(
            """() => [...document.querySelectorAll(".kpi .v")].map(v => {
                 const r = v.getBoundingClientRect(), card = v.closest(".kpi");
                 const inner = card.getBoundingClientRect().right
                   - parseFloat(getComputedStyle(card).paddingRight);
                 return {text: v.textContent,
                         lines: Math.round(r.height / parseFloat(getComputedStyle(v).lineHeight)),
                         overflow: r.right - inner};
               })"""
        )
    ctx.close()
    assert any(len(f["text"]) >= 14 for f in seen), seen  # a ten-digit amount was among them
    assert all(f["lines"] == 1 for f in seen), seen
    assert all(f["overflow"] <= 0.5 for f in seen), seen
