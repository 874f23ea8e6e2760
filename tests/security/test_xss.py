"""Stored text comes back escaped: a lead's name and notes, catalog free text, a user's name."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.accounts.models import User
from app.catalog.models import PriceList, RentalOffer
from tests.security.conftest import XSS, Seed
from tests.security.test_route_matrix import prepare


def assert_escaped(html: str, where: str) -> None:
    assert XSS not in html, f"{where}: the payload came back unescaped"
    soup = BeautifulSoup(html, "html.parser")
    scripts = [s for s in soup.find_all("script") if "alert(1)" in s.get_text()]
    assert not scripts, f"{where}: a <script> element carries the payload"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, f"{where}: payload not shown at all"


@pytest.fixture
def poisoned(seed: Seed, make_client: Callable[[], TestClient]) -> TestClient:
    """A client whose database holds the payload in catalog free text and a user's name."""
    client = make_client()
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        draft = s.get(PriceList, seed.world.draft_price_list_id)
        assert draft is not None
        draft.notes = XSS
        draft.source = XSS
        offer = s.exec(select(RentalOffer).where(RentalOffer.price_list_id == draft.id)).first()
        assert offer is not None
        offer.source = XSS
        offer.provider = XSS
        sales = s.get(User, seed.sales_id)
        assert sales is not None
        sales.name = XSS
        s.add_all([draft, offer, sales])
        s.commit()
    return client


def test_catalog_free_text_is_escaped(poisoned: TestClient, seed: Seed) -> None:
    headers = prepare(poisoned, seed, "admin")
    pl = seed.world.draft_price_list_id
    for url in (
        f"/catalog/price-lists/{pl}/edit",
        f"/catalog/offers/{seed.world.offer_key}/edit?price_list={pl}",
    ):
        r = poisoned.get(url, headers=headers)
        assert r.status_code == 200, url
        assert_escaped(r.text, url)


def test_user_name_is_escaped_in_the_user_menu_and_account(
    poisoned: TestClient, seed: Seed
) -> None:
    headers = prepare(poisoned, seed, "sales")
    for url in ("/", "/account"):
        r = poisoned.get(url, headers=headers)
        assert r.status_code == 200
        assert_escaped(r.text, url)


def test_lead_name_and_notes_are_escaped(poisoned: TestClient, seed: Seed) -> None:
    headers = prepare(poisoned, seed, "sales")
    for url in ("/leads", f"/leads/{seed.world.extra['lead_id']}"):
        r = poisoned.get(url, headers=headers)
        assert r.status_code == 200, url
        assert_escaped(r.text, url)
