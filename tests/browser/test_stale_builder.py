"""In Chromium: saving the quote builder on top of a colleague's save shows why, in the
page's language, and keeps the typed line (HTMX swapped no 409 answer: the button did
nothing, the page looked saved, and the line was lost on the next reload)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlmodel import Session

from app.accounts.models import User
from app.db import make_engine
from app.plans import service
from app.settings import Settings
from tests.browser.test_plans_flow import sign_in
from tests.browser.test_quote_life import _user
from tests.quotes.test_quote_life import WORKLOAD

pytestmark = pytest.mark.browser


def _open_new_plan(
    browser: Browser, base_url: str, settings: Settings, lang: str, name: str
) -> tuple[BrowserContext, Page, int, int]:
    """(context, page, plan id, owner id): a new sales user's new plan, opened signed in, in
    `lang`."""
    email = _user(settings, "sales")
    with Session(make_engine(settings.database_url)) as s:
        owner = s.exec(User.__table__.select().where(User.email == email)).one()  # type: ignore[attr-defined]
        plan = service.create_plan(
            session=s,
            owner=s.get(User, owner.id),
            name=name,
            workload=WORKLOAD,  # type: ignore[arg-type]
        )
        assert plan.id is not None
        plan_id, owner_id = plan.id, owner.id
    ctx = browser.new_context(extra_http_headers={"Accept-Language": "en"})
    page = ctx.new_page()
    sign_in(page, base_url, email, f"/plans/{plan_id}")
    page.goto(f"{base_url}/set-language?lang={lang}&next=/plans/{plan_id}")
    return ctx, page, plan_id, owner_id


@pytest.mark.parametrize(
    ("lang", "save", "message"),
    [
        ("en", "Save quote", "Someone else saved this plan while you were editing"),
        ("zh-TW", "儲存報價", "您編輯期間，有其他人儲存了這個方案"),
    ],
)
def test_a_stale_quote_save_keeps_the_line_and_says_why(
    browser: Browser, base_url: str, settings: Settings, lang: str, save: str, message: str
) -> None:
    engine = make_engine(settings.database_url)
    ctx, page, plan_id, actor_id = _open_new_plan(browser, base_url, settings, lang, "Stale")
    builder = page.locator("#quote-builder")
    builder.locator("#f-line-0-description").fill("Onsite support, 3 visits")
    with Session(engine) as s:  # a colleague saves first
        assert plan_id is not None
        service.update_plan(
            session=s,
            plan_id=plan_id,
            expected_version=1,
            changes={"notes": "colleague"},
            actor=s.get(User, actor_id),  # type: ignore[arg-type]
        )
    builder.get_by_role("button", name=save).click()
    expect(builder.locator("[role=alert]", has_text=message)).to_be_visible()
    expect(builder.locator("#f-line-0-description")).to_have_value("Onsite support, 3 visits")
    expect(builder.locator("input[name=version]")).to_have_value("2")
    ctx.close()


@pytest.mark.parametrize(
    ("lang", "save", "change", "lost"),
    [
        ("en", "Save quote", "Change status", "The status was not changed"),
        ("zh-TW", "儲存報價", "變更狀態", "狀態未變更"),
    ],
)
def test_a_status_change_after_saving_the_quote_is_not_taken_for_someone_elses(
    browser: Browser,
    base_url: str,
    settings: Settings,
    lang: str,
    save: str,
    change: str,
    lost: str,
) -> None:
    """QA: the quote builder saved version 2 and swapped itself in, but the page's status
    form still said version 1: "Change status" right after was refused as a colleague's edit
    ("you had version 1, it is now at version 2") and the status was lost."""
    engine = make_engine(settings.database_url)
    ctx, page, plan_id, _ = _open_new_plan(browser, base_url, settings, lang, "Then a status")
    builder = page.locator("#quote-builder")
    builder.locator("#f-line-0-description").fill("Onsite support, 3 visits")
    builder.get_by_role("button", name=save).click()
    expect(builder.locator("input[name=version]").first).to_have_value("2")
    # the page's other forms and its heading follow the builder's save
    expect(page.locator("form.status-form input[name=version]")).to_have_value("2")
    expect(page.locator(".plan-version")).to_have_text("2")
    page.select_option("#f-status", "lost")
    page.locator("form.status-form").get_by_role("button", name=change).click()
    page.wait_for_load_state()
    expect(page.locator("[role=alert]", has_text=lost)).to_have_count(0)
    with Session(engine) as s:
        assert service.get_plan(session=s, plan_id=plan_id).status == "lost"  # type: ignore[arg-type]
    ctx.close()
