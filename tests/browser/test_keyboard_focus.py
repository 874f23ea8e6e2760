"""Keyboard users keep their place (QA, accessibility): the quote builder's buttons replace the
whole builder, and focus fell back to <body>; /plan's live validation showed a message beside
a field without marking the field invalid."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from app.settings import Settings
from tests.browser.test_plans_flow import build_and_save, sign_in
from tests.browser.test_quote_life import _user

pytestmark = pytest.mark.browser


def _focused_id(page) -> str:  # type: ignore[no-untyped-def]
    return str(page.evaluate("document.activeElement && document.activeElement.id || ''"))


def test_the_quote_builder_keeps_keyboard_focus(
    browser: Browser, base_url: str, settings: Settings
) -> None:
    ctx = browser.new_context(extra_http_headers={"Accept-Language": "en"})
    page = ctx.new_page()
    sign_in(page, base_url, _user(settings, "sales"), "/plans")
    build_and_save(page, base_url, "Focus plan")
    builder = page.locator("#quote-builder")
    lines = builder.locator("fieldset.line-row")
    before = lines.count()
    # Enter on "Add a line": focus goes to the new line's first field
    builder.get_by_role("button", name="Add a line").focus()
    page.keyboard.press("Enter")
    expect(lines).to_have_count(before + 1)
    expect(page.locator(f"#f-line-{before}-option_key")).to_be_focused()
    # Enter on "Remove" of that line: focus goes to "Add a line"
    builder.locator("button.remove-line").last.focus()
    page.keyboard.press("Enter")
    expect(lines).to_have_count(before)
    expect(builder.locator("button.add-line")).to_be_focused()
    # A refused save: focus goes to the field in error
    page.locator("#f-discount_pct").fill("150")
    builder.locator("button.save-quote").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#f-discount_pct")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#f-discount_pct")).to_be_focused()
    ctx.close()


def test_live_validation_marks_the_field_invalid_and_clears_it(
    browser: Browser, base_url: str
) -> None:
    ctx = browser.new_context(extra_http_headers={"Accept-Language": "en"})
    page = ctx.new_page()
    page.goto(f"{base_url}/plan?model_source=preset&preset=llama-3.1-8b&task=lora")
    field = page.locator("#f-dataset_gb")
    field.fill("-3")
    expect(page.locator("#err-dataset_gb")).to_have_text(re.compile(r"\S"))
    expect(field).to_have_attribute("aria-invalid", "true")
    field.fill("2")
    expect(page.locator("#err-dataset_gb")).to_have_text("")
    expect(field).not_to_have_attribute("aria-invalid", "true")
    ctx.close()
