"""End-to-end in Chromium: a quote's life (issue 10).

lead → customer → plan → quote builder (term line, NAS line, 10% discount) → approval needed
at 15% → admin approves → send → the link opened signed out → accept → status accepted.
Also: at 390 px the self-assessment result and the share page scroll no sideways.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from app.accounts import service as accounts
from app.db import make_engine
from app.leads.models import LeadCreate
from app.leads.service import create_lead
from app.settings import Settings
from tests.browser.test_plans_flow import PASSWORD, sign_in

pytestmark = pytest.mark.browser
SCREENS = Path("/work/research/screens/quotes")


def _user(settings: Settings, role: str) -> str:
    email = f"{role}-{uuid.uuid4().hex[:8]}@example.com"
    with Session(make_engine(settings.database_url)) as s:
        accounts.create_user(
            session=s, email=email, password=PASSWORD, role=role, name=role.title()
        )
    return email


def _shot(page: Page, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True)


def _no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"page is {width[0]} px wide at {width[1]} px"


def test_quote_life_lead_to_accepted(browser: Browser, base_url: str, settings: Settings) -> None:
    sales_email, admin_email = _user(settings, "sales"), _user(settings, "admin")
    with Session(make_engine(settings.database_url)) as s:
        lead = create_lead(
            session=s,
            data=LeadCreate(
                name="王小明",
                company="台灣智慧客服",
                email="buyer@example.com.tw",
                answers={"task": "lora", "size": "13", "data": "10", "deadline": "30"},
            ),
        )
    sales = browser.new_context(
        extra_http_headers={"Accept-Language": "en"}, viewport={"width": 1440, "height": 900}
    )
    page = sales.new_page()
    sign_in(page, base_url, sales_email, f"/leads/{lead.id}")
    page.get_by_role("button", name="Convert to plan").click()
    expect(page).to_have_url(re.compile(r"/plans/\d+$"))
    plan_url = page.url
    builder = page.locator("#quote-builder")
    expect(builder).to_be_visible()
    # The lead became a customer, chosen in the builder.
    expect(builder.locator("#f-customer_id option[selected]")).to_have_text("台灣智慧客服")
    # Term line (the default first line) + a NAS line, 10% off.
    builder.get_by_role("button", name="Add a line").click()
    expect(builder.locator("fieldset.line-row")).to_have_count(2)
    builder.locator("#f-line-1-description").fill("NAS 20 TB")
    builder.locator("#f-line-1-unit_price").fill("8000")
    builder.locator("#f-line-1-months").fill("6")
    builder.locator("#f-discount_pct").fill("10")
    builder.get_by_role("button", name="Save quote").click()
    expect(builder.locator(".qb-totals .total")).to_be_visible()
    expect(builder.locator(".approval-needed")).to_have_count(0)
    # Enter in a field saves the quote; it pressed line 1's "Remove" (the form's first
    # submit button) and the line went with what was typed in it (QA).
    builder.locator("#f-line-1-months").fill("7")
    builder.locator("#f-line-1-months").press("Enter")
    expect(builder.locator("#f-line-1-months")).to_have_value("7")
    expect(builder.locator("fieldset.line-row")).to_have_count(2)
    expect(builder.locator(".qb-totals")).to_contain_text("NT$56,000")  # 8,000 × 7 months
    builder.locator("#f-line-1-months").fill("6")
    # 15% needs an admin's approval: Send is disabled.
    builder.locator("#f-discount_pct").fill("15")
    builder.get_by_role("button", name="Save quote").click()
    expect(builder.locator(".approval-needed")).to_be_visible()
    expect(builder.locator("button.send-quote")).to_be_disabled()
    _shot(page, "builder-approval-1440-en")

    boss = browser.new_context(extra_http_headers={"Accept-Language": "en"})
    bpage = boss.new_page()
    sign_in(bpage, base_url, admin_email, plan_url.replace(base_url, ""))
    bpage.get_by_role("button", name="Approve the discount").click()
    expect(bpage.locator(".approval-record")).to_be_visible()
    boss.close()

    page.reload()
    expect(builder.locator(".approval-record")).to_contain_text("Admin")
    page.get_by_role("button", name="Send the quote").click()
    expect(builder.locator(".qb-status")).to_have_text("Sent")
    page.get_by_role("button", name="Create share link").click()
    link = page.locator("#share-url").input_value()

    # The customer, signed out, on a phone, in the customer's language (中文).
    customer = browser.new_context(viewport={"width": 390, "height": 844})
    cpage = customer.new_page()
    cpage.goto(link)
    expect(cpage.locator("html")).to_have_attribute("lang", "zh-Hant-TW")
    _no_sideways_scroll(cpage)
    _shot(cpage, "share-390-zh")
    cpage.locator("#f-name").fill("王小明")
    cpage.locator("#f-title").fill("採購經理")
    cpage.get_by_role("button", name="接受報價").click()
    expect(cpage.locator("#err-agree")).not_to_be_empty()  # the tick box is required
    cpage.locator("#f-agree").check()
    cpage.get_by_role("button", name="接受報價").click()
    expect(cpage.locator(".decision .accepted")).to_contain_text("王小明")
    expect(cpage.locator(".quote-status")).to_have_text("已接受")
    _no_sideways_scroll(cpage)
    customer.close()

    page.goto(plan_url)
    expect(builder.locator(".qb-status")).to_have_text("Accepted")
    expect(builder.locator(".decision-record")).to_contain_text("王小明")
    expect(builder.locator(".decision-record")).to_contain_text("127.0.0.1")
    _shot(page, "plan-accepted-1440-en")
    sales.close()


def test_assess_result_has_no_sideways_scroll_at_390(browser: Browser, base_url: str) -> None:
    for lang in ("zh-TW", "en"):
        ctx = browser.new_context(
            viewport={"width": 390, "height": 844}, extra_http_headers={"Accept-Language": lang}
        )
        page = ctx.new_page()
        page.goto(f"{base_url}/assess?task=lora&size=13&data=10&deadline=30")
        expect(page.locator("section#result")).to_be_visible()
        _no_sideways_scroll(page)
        _shot(page, f"assess-390-{lang}")
        ctx.close()
