"""Record lists read on a phone (QA at 390 px): the plans list wrapped its name and customer
one character a line in a table twice the screen's width, and /account's revoke and the
price lists' actions sat outside the visible part of their tables. Each is now a block of
"label value" lines; the plans list keeps its sort links as a row above."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import Session

from app.accounts import service as accounts
from app.db import make_engine
from app.plans import service as plans
from app.settings import Settings
from tests.browser.test_plans_flow import PASSWORD

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_record_tables_fit_a_phone(
    browser: Browser, base_url: str, settings: Settings, lang: str
) -> None:
    email = f"a-{uuid.uuid4().hex[:8]}@example.com"
    with Session(make_engine(settings.database_url)) as s:
        owner = accounts.create_user(session=s, email=email, password=PASSWORD, role="admin")
        plans.create_plan(session=s, owner=owner, name="台灣智慧客服股份有限公司 LoRA 微調",
                          customer="國立臺灣大學 AI 實驗室",
                          workload={"model": {"preset": "llama-3.1-8b"}, "task": "lora"})  # fmt: skip
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, extra_http_headers={"Accept-Language": lang}
    )
    page = ctx.new_page()
    page.goto(f"{base_url}/login")  # in the page's language: not tests' sign_in ("Sign in")
    page.fill("#f-email", email)
    page.fill("#f-password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(lambda url: "/login" not in url)
    for path, table in (("/plans", "table.plans-table"), ("/account", "table.tokens"),
                        ("/catalog/price-lists", "#price-lists")):  # fmt: skip
        page.goto(f"{base_url}{path}")
        if path == "/account":  # a token to list
            page.fill("#f-name", "crm")
            page.locator("form[action='/account/tokens'] button[type=submit]").click()
            page.goto(f"{base_url}{path}")
        widths = page.evaluate(
            "sel => { const t = document.querySelector(sel);"
            " return [t.scrollWidth, t.parentElement.clientWidth]; }",
            table,
        )
        assert widths[0] <= widths[1], (path, widths)
        # every action of a row is on screen
        for button in page.locator(f"{table} tbody button, {table} tbody a").all():
            box = button.bounding_box()
            assert box is not None and box["x"] + box["width"] <= 390, (path, box)
    page.goto(f"{base_url}/plans")
    expect(page.locator("table.plans-table thead a.sort")).to_have_count(5)
    ctx.close()
