"""A lead converts into the plan the customer's /assess card priced, in the customer's currency,
and a quote opens on the seller's own offer.

QA: an English customer reading US$ asked for a quote on "SDXL images" (card: NT$40,000 –
50,000 a month, 1 × H100) with the note "about 2,000 images/day". Converted, the plan was a
one-off batch of 1,000 images, its default quote line "Hourly rent · 1 × NVIDIA H100 ·
RunPod NT$96/h × 1 h … Total NT$101" — a marketplace's rent, with "show other providers'
prices" off, in a PDF whose ways to pay listed Stratagem at NT$120/h — and the customer
was a NT$ one.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.catalog.shipped import shipped_price_book
from app.customers.models import Customer
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest
from app.leads.models import Lead
from app.plans.models import Plan
from app.quotes import views as quote_views
from app.quotes.bom import default_option
from tests.accounts.helpers import MakeAccount, sign_in

TAIPEI = "Stratagem Taipei"


def _token(html: str) -> str:
    el = BeautifulSoup(html, "html.parser").select_one("input[name=csrf_token]")
    assert el is not None
    return str(el["value"])


def test_an_image_lead_becomes_the_monthly_service_the_card_priced(
    pages: TestClient, account: MakeAccount
) -> None:
    app = pages.app
    # The customer: anonymous, English, reading US$.
    # An address of the customer's own: quote requests are limited to 5 per address in 10
    # minutes, and the session's other tests post some from TestClient's default address.
    with TestClient(
        app, follow_redirects=False, cookies={"currency": "USD"}, client=("198.51.100.21", 50000)
    ) as customer:
        page = customer.get("/assess?task=image&size=7", headers={"Accept-Language": "en"})
        assert page.status_code == 200
        form = {"task": "image", "size": "7", "name": "Ms Chen", "company": "Pixel Foods",
                "email": "chen@pixel.example", "notes": "about 2,000 images/day",
                "csrf_token": _token(page.text)}  # fmt: skip
        r = customer.post("/assess/quote", data=form, headers={"Accept-Language": "en"})
        assert r.status_code == 303
    with Session(app.state.engine) as s:  # type: ignore[attr-defined]
        lead = s.exec(select(Lead).where(Lead.email == "chen@pixel.example")).one()
    assert lead.answers["currency"] == "USD"

    sign_in(pages, account("admin").user)
    detail = pages.get(f"/leads/{lead.id}", headers={"Accept-Language": "en"})
    # Sales see the currency the customer read before converting.
    assert "Prices read in US dollars (US$)" in BeautifulSoup(detail.text, "html.parser").get_text(
        " ", strip=True
    )
    r = pages.post(f"/leads/{lead.id}/convert", data={"csrf_token": _token(detail.text)})
    assert r.status_code == 303
    plan_id = int(r.headers["location"].rsplit("/", 1)[1])
    with Session(app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        customer_row = s.get(Customer, plan.customer_id)
        assert customer_row is not None and customer_row.currency == "USD"
        # The card's service: SDXL at the throughput it stated, whole images down.
        card = estimate(EstimateRequest(model={"preset": "sdxl"}, task="image"),
                        prices=shipped_price_book(), search_all=False)  # fmt: skip
        assert card.inference is not None and card.inference.images_per_hour
        assert plan.workload["task"] == "image"
        assert plan.workload["images_per_hour"] == float(int(card.inference.images_per_hour))
        assert plan.workload["currency"] == "USD"
        cost = plan.result["cost"]
        assert cost["pricing_mode"] == "capacity" and plan.result["gpu"]["count"] == 1
        taipei = {o["kind"]: o for o in cost["options"] if o.get("provider") == TAIPEI}
        # NT$50,000 a month (T8) at the list's 32 NT$/US$ = US$1,562.50; 12 months −20 %:
        # US$1,250 — the card's NT$40,000 – 50,000 in US$.
        assert taipei["rent_monthly"]["monthly_rate"] == pytest.approx(1_562.5)
        assert taipei["rent_term"]["monthly_rate"] == pytest.approx(1_250)
        # The quote opens on the seller's own offer.
        values = quote_views.values_of(plan, TAIPEI)
        key = values["lines"][0]["option_key"]
        chosen = next(o for o in cost["options"] if o["key"] == key)
        assert chosen["provider"] == TAIPEI
    assert pages.get(f"/plans/{plan_id}").status_code == 200


def test_a_default_quote_line_is_never_another_providers_rent() -> None:
    # A one-off batch of 1,000 SDXL images is under an hour on one H100: RunPod's US$2.99/h
    # (× 32 = NT$95.68/h) is the plan's cheapest; the seller's NT$120/h (T8) is what a quote
    # opens on, as its ways to pay (comparison off) list only the seller's offers.
    r = estimate(EstimateRequest(model={"preset": "sdxl"}, task="image"),
                 prices=shipped_price_book(), search_all=False)  # fmt: skip
    assert r.cost is not None
    cheapest = next(o for o in r.cost["options"] if o["key"] == r.cost["cheapest"])
    assert cheapest["provider"] == "RunPod"
    chosen = default_option(r.cost, TAIPEI)
    assert chosen is not None and chosen["provider"] == TAIPEI
    assert chosen["kind"] == "rent_hourly" and chosen["hourly_rate"] == pytest.approx(120)
    # With no seller known, the engine's cheapest stays the default.
    fallback = default_option(r.cost, "")
    assert fallback is not None and fallback["key"] == r.cost["cheapest"]
