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
from app.customers import service as customers
from app.customers.models import CustomerCreate
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


@pytest.mark.parametrize("width", [390, 1440])
def test_a_name_of_200_letters_without_a_space_wraps_in_its_heading(
    browser: Browser, base_url: str, settings: Settings, width: int
) -> None:
    # QA 2026-12-07: a customer named with 200 letters and no space (the form's limit) made
    # /customers/{id} 3,657 px wide at 1440 px and 3,016 px at 390 px: a heading does not
    # break a word unless told to. Headings and notices now break anywhere rather than
    # overflow.
    # The same name twice: the page also lists the other record in a notice, a link of
    # 200 letters (it overflowed by 896 px at 1440 px).
    email = f"a-{uuid.uuid4().hex[:8]}@example.com"
    with Session(make_engine(settings.database_url)) as s:
        accounts.create_user(session=s, email=email, password=PASSWORD, role="sales")
        customers.create_customer(session=s, data=CustomerCreate(name="X" * 200))
    ctx = browser.new_context(viewport={"width": width, "height": 844})
    page = ctx.new_page()
    page.goto(f"{base_url}/login")
    page.fill("#f-email", email)
    page.fill("#f-password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(lambda url: "/login" not in url)
    page.goto(f"{base_url}/customers/new")
    page.fill("input[name=name]", "X" * 200)
    page.locator("main form button[type=submit]").last.click()
    page.wait_for_url(lambda url: "/customers/new" not in url)
    assert page.locator("h1").inner_text().replace("\n", "") == "X" * 200
    expect(page.locator("p.notice.same-name a").first).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    ctx.close()
