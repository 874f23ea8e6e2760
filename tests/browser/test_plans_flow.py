"""End-to-end in Chromium: sign in, plan, save, revise, compare (journeys 2, 4, 5).

Share links and the PDF quote close `test_plan_quote_flow`, from the plan
page this flow leaves open (`SavedPlan.url`).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect
from sqlmodel import Session

from app.accounts import service as accounts
from app.db import make_engine
from app.settings import Settings

pytestmark = pytest.mark.browser
PASSWORD = "correct horse battery"


@dataclass
class SavedPlan:
    url: str
    quote_number: str


@pytest.fixture
def console_errors(page: Page) -> list[str]:
    errors: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            errors.append(msg.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


@pytest.fixture
def sales_email(settings: Settings) -> str:
    """A sales user made through the account service."""
    email = f"sales-{uuid.uuid4().hex[:8]}@example.com"
    with Session(make_engine(settings.database_url)) as s:
        accounts.create_user(session=s, email=email, password=PASSWORD, role="sales", name="Amy")
    return email


def sign_in(page: Page, base_url: str, email: str, next_path: str = "/plans") -> None:
    page.goto(f"{base_url}{next_path}")
    expect(page).to_have_url(re.compile(r"/login"))
    page.fill("#f-email", email)
    page.fill("#f-password", PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(re.escape(next_path.split("?")[0]) + r"$"))


def build_and_save(page: Page, base_url: str, name: str) -> SavedPlan:
    """Planner → 'Save as plan' → the plan page."""
    page.goto(f"{base_url}/plan")
    page.select_option("#f-preset", "llama-3.1-8b")
    page.select_option("#f-task", "lora")
    expect(page.locator("#results .tier-name")).to_have_text("Single GPU", timeout=5000)
    page.fill("#f-plan-name", name)
    page.fill("#f-plan-customer", "Formosa AI")
    page.get_by_role("button", name="Save as plan").click()
    expect(page).to_have_url(re.compile(r"/plans/\d+$"))
    expect(page.locator("h1")).to_have_text(name)
    quote = page.locator(".page-head .eyebrow span[translate=no]").inner_text()
    return SavedPlan(url=page.url, quote_number=quote)


def test_plan_quote_flow(
    page: Page, base_url: str, sales_email: str, console_errors: list[str]
) -> None:
    page.set_extra_http_headers({"Accept-Language": "en"})
    sign_in(page, base_url, sales_email)
    saved = build_and_save(page, base_url, "Formosa 8B LoRA")
    expect(page.locator("#tier-heading")).to_have_text("Single GPU")
    page.locator("#chart-memory svg.main-svg").first.wait_for()

    # Revise: rename and note; the history gets a second version.
    page.get_by_role("link", name="Edit", exact=True).click()
    page.fill("#f-name", "Formosa 8B LoRA (rev)")
    page.fill("#f-notes", "Customer asked for a 12-month term.")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_have_text("Formosa 8B LoRA (rev)")
    expect(page.locator("#history tbody tr")).to_have_count(2)
    page.get_by_role("button", name="Show the differences").click()
    expect(page.locator("table.diff-table")).to_contain_text("Formosa 8B LoRA (rev)")
    page.goto(saved.url)

    # The plan list finds it by search (HTMX swaps only the table).
    page.goto(f"{base_url}/plans")
    page.evaluate("window.__sameDocument = true")
    page.fill("#f-q", saved.quote_number)
    expect(page.locator("#plans-table tbody tr")).to_have_count(1, timeout=5000)
    assert page.evaluate("window.__sameDocument") is True

    # Duplicate, then compare the two side by side.
    page.goto(saved.url)
    page.get_by_role("button", name="Duplicate").click()
    expect(page.locator("h1")).to_contain_text("(copy)")
    copy_url = page.url
    ids = f"{saved.url.rsplit('/', 1)[1]},{copy_url.rsplit('/', 1)[1]}"
    page.goto(f"{base_url}/compare?ids={ids}")
    expect(page.locator("table.compare-table thead th.scenario")).to_have_count(2)
    page.locator("#chart-compare-cumulative svg.main-svg").first.wait_for()

    # T16: the worked example's two scenarios.
    page.get_by_role("button", name="Phased example").click()
    totals = page.locator("table.compare-table td.total strong")
    expect(totals).to_have_text(["NT$350,000", "NT$800,000"])
    page.locator("#chart-compare-time svg.main-svg").first.wait_for()

    # Share: create a link, then open it signed out in a fresh browser context.
    page.goto(saved.url)
    expect(page.locator(".plan-actions")).to_be_visible()
    page.get_by_role("button", name="Create share link").click()
    share_url = page.locator("#share-url").input_value()
    assert "/s/" in share_url
    visitor = page.context.browser.new_context(locale="en-US")  # type: ignore[union-attr]
    try:
        shared = visitor.new_page()
        shared.set_extra_http_headers({"Accept-Language": "en"})
        shared.goto(share_url)
        expect(shared.locator("body")).to_contain_text(saved.quote_number)
        expect(shared.locator("body")).not_to_contain_text("Customer asked for a 12-month term.")
        expect(shared.locator("a[href^='/login']")).to_have_count(1)  # signed out
    finally:
        visitor.close()

    # Download the PDF quote from the plan page.
    page.goto(saved.url)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download PDF (English)").click()
    pdf = download.value.path().read_bytes()
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    assert console_errors == []
