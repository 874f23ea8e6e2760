"""A lead's status says where it is, and a stale page cannot move it back.

Race QA of stop 30: a lead converted by one salesperson while a colleague's page still
showed "new" was set to "contacted" by the colleague's Change status, the plan still linked:
the last click won. The status form now carries the status it showed (`shown`); a lead that
moved meanwhile is not changed, and the page says to what it moved. "Converted" means a plan
was made from the lead: it cannot be picked by hand, and a converted lead is not made new.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import Engine, update
from sqlmodel import Session, col

from app.accounts import service as accounts
from app.accounts.models import User
from app.leads.models import Lead, LeadCreate
from app.leads.service import LeadStatusChanged, convert_lead, create_lead, set_lead_status
from tests.accounts.helpers import MakeAccount, sign_in
from tests.plan_quotes import WORKLOAD
from tests.plans.test_leads_pages import make_lead
from tests.races import (
    Background,
    holding,
    race_engine,  # noqa: F401  (the `engine` fixture)
    wait_until_blocked,
)

CHANGED = {
    "zh-TW": "此需求的狀態已在這段期間被改為「已轉為方案」：這次沒有變更任何內容。"
    "請先確認，若仍要變更再操作一次。",
    "en": "This request's status was changed meanwhile, to “Converted”: nothing was changed. "
    "Check it, then change it again if you still want to.",
}


def _page(pages: TestClient, lead_id: int, lang: str) -> BeautifulSoup:
    r = pages.get(f"/leads/{lead_id}", headers={"Accept-Language": lang})
    return BeautifulSoup(r.text, "html.parser")


def _form(page: BeautifulSoup) -> dict[str, str]:
    form = page.select_one("form.status-form")
    assert form is not None
    return {i["name"]: i["value"] for i in form.select("input[type=hidden]")}


def _stored(pages: TestClient, lead_id: int) -> Lead:
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        lead = s.get(Lead, lead_id)
        assert lead is not None
        return lead


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_a_page_that_showed_new_cannot_move_a_lead_converted_meanwhile(
    pages: TestClient, account: MakeAccount, lang: str
) -> None:
    sign_in(pages, account("sales").user)
    lead = make_lead(pages, f"Stale Page {lang}")
    assert lead.id is not None
    stale = _form(_page(pages, lead.id, lang))
    assert stale["shown"] == "new"
    # a colleague converts it…
    fresh = _form(_page(pages, lead.id, lang))
    r = pages.post(f"/leads/{lead.id}/convert", data={"csrf_token": fresh["csrf_token"]})
    plan_path = r.headers["location"]
    # …and the stale page's Change status arrives afterwards
    r = pages.post(
        f"/leads/{lead.id}/status",
        data={**stale, "status": "contacted"},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 409
    page = BeautifulSoup(r.text, "html.parser")
    error = page.select_one("#err-status")
    assert error is not None and error.get_text(strip=True) == CHANGED[lang]
    assert page.select_one("#f-status")["aria-describedby"] == "err-status"
    # nothing moved; the page shows where the lead is now, and its plan
    stored = _stored(pages, lead.id)
    assert stored.status == "converted" and f"/plans/{stored.answers['plan_id']}" == plan_path
    assert _form(page)["shown"] == "converted"
    assert page.select_one(f"a[href='{plan_path}']") is not None


def test_the_statuses_offered_follow_the_plan(pages: TestClient, account: MakeAccount) -> None:
    sign_in(pages, account("sales").user)
    lead = make_lead(pages, "Statuses Co")
    assert lead.id is not None
    page = _page(pages, lead.id, "en")
    offered = [o["value"] for o in page.select("#f-status option")]
    assert offered == ["new", "contacted", "closed"]
    # "converted" by hand, with no plan: refused, named, nothing saved
    r = pages.post(
        f"/leads/{lead.id}/status",
        data={**_form(page), "status": "converted"},
        headers={"Accept-Language": "en"},
    )
    assert r.status_code == 422
    assert "Convert to plan" in BeautifulSoup(r.text, "html.parser").select_one("#err-status").text
    assert _stored(pages, lead.id).status == "new"
    # a plain move, still allowed (and without `shown`, as an older page sent it)
    r = pages.post(
        f"/leads/{lead.id}/status",
        data={"csrf_token": _form(page)["csrf_token"], "status": "contacted"},
    )
    assert r.status_code == 303 and _stored(pages, lead.id).status == "contacted"
    pages.post(f"/leads/{lead.id}/convert", data={"csrf_token": _form(page)["csrf_token"]})
    page = _page(pages, lead.id, "zh-TW")
    assert [o["value"] for o in page.select("#f-status option")] == ["converted", "closed"]
    r = pages.post(f"/leads/{lead.id}/status", data={**_form(page), "status": "new"})
    assert r.status_code == 422
    assert (
        BeautifulSoup(r.text, "html.parser").select_one("#err-status").get_text(strip=True)
        == "已由此需求建立方案：狀態只能維持「已轉為方案」或改為「已結案」。"
    )
    assert _stored(pages, lead.id).status == "converted"
    # closing a converted lead (the deal was lost) is allowed
    r = pages.post(f"/leads/{lead.id}/status", data={**_form(page), "status": "closed"})
    assert r.status_code == 303 and _stored(pages, lead.id).status == "closed"


def test_a_status_change_sent_while_the_lead_converts_does_not_undo_it(engine: Engine) -> None:
    """Both start while the lead's row is held: the status change (from a page that showed
    "new") waits on the conversion's row, then finds it converted and changes nothing;
    in whichever order they run, the lead ends converted with its plan."""
    with Session(engine) as s:
        owner = accounts.create_user(
            session=s, email="status-race@example.com", password="x" * 12, role="sales"
        )
        lead = create_lead(
            session=s,
            data=LeadCreate(
                name="Ms Lin", company="Race Co", email="lin@example.com.tw", notes="",
                lang="zh-TW", tier="multi_gpu", answers={},
            ),
        )  # fmt: skip
        owner_id, lead_id = owner.id, lead.id
    assert owner_id is not None and lead_id is not None

    def convert() -> int:
        with Session(engine) as s:
            user = s.get(User, owner_id)
            assert user is not None
            return convert_lead(session=s, lead_id=lead_id, owner=user, workload=lambda _: WORKLOAD)

    def move() -> str:
        with Session(engine) as s:
            try:
                set_lead_status(session=s, lead_id=lead_id, status="contacted", shown="new")
            except LeadStatusChanged:
                return "refused"
            return "moved"

    both = Background()
    with holding(engine, update(Lead).where(col(Lead.id) == lead_id).values(notes=Lead.notes)):
        both.start(convert)
        both.start(move)
        wait_until_blocked(engine, 2)
    plan_id, moved = both.results()
    with Session(engine) as s:
        stored = s.get(Lead, lead_id)
        assert stored is not None
        assert stored.status == "converted" and stored.answers["plan_id"] == plan_id
    assert moved in {"moved", "refused"}


def test_a_damaged_shown_field_is_read_as_an_older_pages_form(
    pages: TestClient, account: MakeAccount
) -> None:
    """`shown` that is no status at all (a tampered or truncated form) is not "the lead moved
    meanwhile": the change goes ahead, as from a page without the field."""
    sign_in(pages, account("sales").user)
    lead = make_lead(pages, "Damaged Form Co")
    assert lead.id is not None
    form = _form(_page(pages, lead.id, "en"))
    r = pages.post(
        f"/leads/{lead.id}/status", data={**form, "shown": "<script>", "status": "closed"}
    )
    assert r.status_code == 303 and _stored(pages, lead.id).status == "closed"
