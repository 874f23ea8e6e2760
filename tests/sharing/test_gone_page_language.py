"""A share link that no longer opens says so in the customer's document language.

QA: a revoked link of a customer whose documents are in 中文 answered its 410 page in
English, following the browser's Accept-Language, while the same link's working page is in
the customer's language (app.sharing.pages._customer_language). The revoked and expired pages
of a known token follow the customer too; ?lang= still wins, and an unknown token (no
customer to follow) keeps the browser's language.
"""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.sharing import service
from app.sharing.models import ShareLink
from tests.accounts.helpers import Account, make_account
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share

HEADINGS = {
    ("revoked", "zh-TW"): "此連結已被撤銷",
    ("revoked", "en"): "This link has been revoked",
    ("expired", "zh-TW"): "此連結已過期",
    ("expired", "en"): "This link has expired",
}


def _gone_link(client: TestClient, a: Account, language: str, reason: str) -> str:
    """The path of a link, revoked or expired, to a quote for a customer writing `language`."""
    p = _plan(client, a, _customer(client, a, language=language)["id"], _quote("0"))
    path = _share(client, a, p["id"])
    if reason == "revoked":
        assert client.delete(f"/api/v1/plans/{p['id']}/share", headers=a.headers).status_code == 204
    else:
        with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
            link = s.exec(select(ShareLink).where(ShareLink.plan_id == p["id"])).one()
            link.expires_at = service.utcnow() - timedelta(minutes=1)
            s.add(link)
            s.commit()
    return path


#: A refused lookup counts against its address (10 a minute, then 429 for every share link):
#: each visitor here has an address of its own, so the other tests' "testclient" keeps its.
_ADDRESSES = (f"198.51.100.{n}" for n in itertools.count(1))


def _visitor(client: TestClient) -> TestClient:
    return TestClient(client.app, client=(next(_ADDRESSES), 50000))


def _heading(r: object) -> str:
    return BeautifulSoup(r.text, "html.parser").select_one("main h1").get_text(strip=True)  # type: ignore[attr-defined]


@pytest.mark.parametrize("reason", ["revoked", "expired"])
@pytest.mark.parametrize(("customer", "browser"), [("zh-TW", "en"), ("en", "zh-TW")])
def test_a_gone_link_speaks_the_customers_language(
    client: TestClient, reason: str, customer: str, browser: str
) -> None:
    a = make_account(client, "sales")
    path = _gone_link(client, a, customer, reason)
    anon = _visitor(client)
    for suffix in ("", "/quote.pdf"):
        r = anon.get(path + suffix, headers={"Accept-Language": browser})
        assert r.status_code == 410
        assert _heading(r) == HEADINGS[reason, customer]
        assert BeautifulSoup(r.text, "html.parser").html["lang"] == (
            "zh-Hant-TW" if customer == "zh-TW" else "en"
        )


def test_lang_in_the_link_still_wins(client: TestClient) -> None:
    a = make_account(client, "sales")
    path = _gone_link(client, a, "zh-TW", "revoked")
    r = _visitor(client).get(path, params={"lang": "en"}, headers={"Accept-Language": "zh"})
    assert r.status_code == 410 and _heading(r) == HEADINGS["revoked", "en"]


def test_an_unknown_token_keeps_the_browsers_language(client: TestClient) -> None:
    r = _visitor(client).get("/s/no-such-token-here", headers={"Accept-Language": "en"})
    assert r.status_code == 404 and _heading(r) == "Link not found"
