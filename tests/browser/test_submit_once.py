"""In Chromium: a POST form is sent once. A second click while the first request was on its
way created a second customer (QA of stop 22); now the page cancels the second submit, and
a form brought back from the back/forward cache can be sent again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from app.settings import Settings
from tests.browser.test_plans_flow import sign_in
from tests.browser.test_quote_life import _user

pytestmark = pytest.mark.browser

TWO_SUBMITS = """(selector) => {
  const form = document.querySelector(selector);
  const events = [1, 2].map(() => new Event("submit", {bubbles: true, cancelable: true}));
  events.forEach((e) => form.dispatchEvent(e));
  return events.map((e) => e.defaultPrevented);
}"""


def test_a_second_submit_of_a_post_form_is_cancelled(
    browser: Browser, base_url: str, settings: Settings
) -> None:
    email = _user(settings, "sales")
    ctx = browser.new_context(extra_http_headers={"Accept-Language": "en"})
    page = ctx.new_page()
    sign_in(page, base_url, email, "/customers/new")
    # The first submit goes (not prevented), the second is cancelled.
    assert page.evaluate(TWO_SUBMITS, "form.customer-form") == [False, True]
    # The back/forward cache restores a page as it was left: it can be sent again.
    page.evaluate("window.dispatchEvent(new PageTransitionEvent('pageshow'))")
    assert page.evaluate(TWO_SUBMITS, "form.customer-form") == [False, True]
    ctx.close()
