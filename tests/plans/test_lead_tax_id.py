"""A quote request takes the company's 統一編號, checked as the customer form checks it, and
the customer the lead converts into carries it.

QA: a company wrote "統編 22099131" into the notes because the form had no field for it; the
converted customer had none, and sending its quote was refused ("the customer has no 統一編號")
until sales typed it again from the notes.
"""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.customers.models import Customer
from app.leads.models import Lead
from app.plans.models import Plan
from tests.accounts.helpers import MakeAccount, sign_in

ANSWERS = {"task": "inference", "size": "70", "users": "200"}


def _visitor(app: object, address: str) -> TestClient:
    """A customer of their own address: quote requests are limited to 5 per address in 10
    minutes (app.ratelimit.service.QUOTE_REQUESTS), and the session's other tests post some
    from TestClient's one default address."""
    return TestClient(app, follow_redirects=False, client=(address, 50000))  # type: ignore[arg-type]


def _token(html: str) -> str:
    el = BeautifulSoup(html, "html.parser").select_one("input[name=csrf_token]")
    assert el is not None
    return str(el["value"])


def _ask(visitor: TestClient, email: str, tax_id: str, lang: str = "zh-TW") -> object:
    page = visitor.get("/assess", params=ANSWERS, headers={"Accept-Language": lang})
    form = {**ANSWERS, "name": "陳小姐", "company": "台中好物電商有限公司", "email": email,
            "tax_id": tax_id, "csrf_token": _token(page.text)}  # fmt: skip
    return visitor.post("/assess/quote", data=form, headers={"Accept-Language": lang})


def test_a_typed_tax_id_reaches_the_converted_customer(
    pages: TestClient, account: MakeAccount
) -> None:
    app = pages.app
    with _visitor(app, "198.51.100.11") as visitor:
        # As people type it: full-width digits with a space between the groups.
        r = _ask(visitor, "chen@goods.example", "５３２１ ２５３９")
        assert r.status_code == 303  # type: ignore[attr-defined]
    with Session(app.state.engine) as s:  # type: ignore[attr-defined]
        lead = s.exec(select(Lead).where(Lead.email == "chen@goods.example")).one()
    assert lead.tax_id == "53212539"

    sign_in(pages, account("admin").user)
    detail = pages.get(f"/leads/{lead.id}")
    shown = BeautifulSoup(detail.text, "html.parser").get_text(" ", strip=True)
    assert "53212539" in shown
    r = pages.post(f"/leads/{lead.id}/convert", data={"csrf_token": _token(detail.text)})
    assert r.status_code == 303
    with Session(app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, int(r.headers["location"].rsplit("/", 1)[1]))
        assert plan is not None
        customer = s.get(Customer, plan.customer_id)
        assert customer is not None and customer.tax_id == "53212539"


def test_a_tax_id_of_a_known_customer_converts_onto_that_customer(
    pages: TestClient, account: MakeAccount
) -> None:
    """The same 統一編號 is the same company, however the request spells its name: the lead
    converts onto the existing customer, and the plan names it as the customer record does
    (the conversion refused it with 「與 customer_id 8 的客戶…不同」 in a first version)."""
    app = pages.app
    admin = account("admin")
    known = pages.post("/api/v1/customers", json={"name": "好物電商股份有限公司",
                       "tax_id": "28682266"}, headers=admin.headers)  # fmt: skip
    assert known.status_code == 201, known.text
    with _visitor(app, "198.51.100.12") as visitor:
        assert _ask(visitor, "lin@goods.example", "28682266").status_code == 303  # type: ignore[attr-defined]
    with Session(app.state.engine) as s:  # type: ignore[attr-defined]
        lead = s.exec(select(Lead).where(Lead.email == "lin@goods.example")).one()
    sign_in(pages, admin.user)
    detail = pages.get(f"/leads/{lead.id}")
    r = pages.post(f"/leads/{lead.id}/convert", data={"csrf_token": _token(detail.text)})
    assert r.status_code == 303
    with Session(app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, int(r.headers["location"].rsplit("/", 1)[1]))
        assert plan is not None
        assert plan.customer_id == known.json()["id"]
        assert plan.customer == "好物電商股份有限公司"


def test_a_wrong_check_digit_is_refused_beside_the_field_and_nothing_is_stored(
    pages: TestClient,
) -> None:
    # 2+4+0+9+9+2+(4×3=12 → 1+2=3)+2 = 31 for 22099132: not divisible by 5 (PRODUCT.md §6).
    with _visitor(pages.app, "198.51.100.13") as visitor:
        r = _ask(visitor, "wrong@goods.example", "22099132")
        assert r.status_code == 422  # type: ignore[attr-defined]
        page = BeautifulSoup(r.text, "html.parser")  # type: ignore[attr-defined]
    error = page.select_one("#err-tax_id")
    assert error is not None and "統一編號" in error.get_text() and "檢查碼" in error.get_text()
    assert page.select_one("#f-tax_id")["value"] == "22099132"  # kept to correct  # type: ignore[index]
    with Session(pages.app.state.engine) as s:  # type: ignore[attr-defined]
        assert s.exec(select(Lead).where(Lead.email == "wrong@goods.example")).first() is None
