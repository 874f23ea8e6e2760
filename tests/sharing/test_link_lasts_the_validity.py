"""A share link lasts through the quote's validity by default, and a shorter one says it
closes first.

QA: a 7-day link on a quote valid to the end of the month closed a fortnight before the quote
did, without a word, and the customer could no longer accept a quote still valid.
"""

from __future__ import annotations

from datetime import date

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.plans.service import today
from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_quote_life import _customer, _plan, _quote


def test_the_share_form_offers_the_quotes_validity_first_and_warns_of_a_shorter_link(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    valid = date.fromisoformat(p["quote"]["valid_until"])
    days = (valid - today()).days + 1  # through its last day
    assert days > 7  # the default validity is longer than the shortest link
    pages = TestClient(client.app)  # its own cookies: the app's client is shared
    pages.headers["Accept-Language"] = "en"
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{p['id']}").text, "html.parser")
    first = page.select_one("#share-expires option")
    assert first["value"] == str(days) and first.has_attr("selected")
    assert first.get_text(strip=True).startswith(f"The quote's validity ({days} days, all of ")
    token = str(page.select_one("input[name=csrf_token]")["value"])

    week = pages.post(f"/plans/{p['id']}/share",
                       data={"csrf_token": token, "expires_in_days": "7"})  # fmt: skip
    assert week.status_code == 200
    warning = BeautifulSoup(week.text, "html.parser").select_one("#link-before-validity")
    assert warning is not None and "can neither read nor accept it" in warning.get_text()

    whole = pages.post(f"/plans/{p['id']}/share",
                        data={"csrf_token": token, "expires_in_days": str(days)})  # fmt: skip
    assert whole.status_code == 200
    assert BeautifulSoup(whole.text, "html.parser").select_one("#link-before-validity") is None
