"""The customer numbers the quotes they receive 1, 2, 3: the n-th revision sent is version n.

QA: every save is a version of the plan's history, so the first quote a customer received
read "version 3" (created, quoted, sent) and one revision sent again "version 5"; a
procurement officer asks for versions 1, 2 and 4. The history keeps its own numbers for the
seller; the documents, the share page and the acceptance sentence use the customer's.
"""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.plans.service import Editions
from tests.accounts.helpers import sign_in
from tests.quotes.test_acting_on_what_was_seen import _resend_changed, _sent
from tests.quotes.test_document_state import _customer_pdf, _seller_pdf


def test_the_nth_revision_sent_is_edition_n_and_a_draft_the_next_one() -> None:
    # Sends at history versions 3 and 6 (created 1, quoted 2, sent 3, edited 4 and 5, sent 6).
    sent = Editions((3, 6))
    assert [sent.of(v) for v in range(1, 8)] == [1, 1, 1, 2, 2, 2, 3]
    assert sent.of(None) is None
    assert Editions(()).of(5) == 1  # never sent: the draft of the first


def test_a_quote_sent_twice_is_version_1_then_version_2_everywhere_the_customer_reads(
    client: TestClient, tmp_path: Path
) -> None:
    a, p, link = _sent(client)  # a zh-TW customer
    assert p["sent_version"] > 1  # its history number: saved and quoted before sending
    assert p["sent_edition"] == 1  # the API gives the customer's number beside it
    first = " ".join(_customer_pdf(client, link, "en", tmp_path).split())
    assert f"{p['quote_number']} (version 1)" in first

    again = _resend_changed(client, a, p)
    assert again["sent_version"] > p["sent_version"] + 1  # a revision saved in between
    assert again["sent_edition"] == 2
    for text in (
        _customer_pdf(client, link, "en", tmp_path),
        _seller_pdf(client, a, p["id"], "en", tmp_path),
    ):
        assert f"{p['quote_number']} (version 2)" in " ".join(text.split())

    anon = TestClient(client.app)
    page = BeautifulSoup(anon.get(link, params={"lang": "en"}).text, "html.parser")
    sentence = " ".join(page.select_one("form.accept-form label.check").get_text().split())
    assert sentence.startswith("I accept this quote (version 2)")

    r = anon.post(f"{link}/accept", json={"name": "Alice", "title": "CTO"})
    assert r.status_code == 200, r.text
    accepted = " ".join(_customer_pdf(client, link, "en", tmp_path).split())
    assert "Accepted by Alice (CTO) on" in accepted and ", version 2." in accepted
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert (got["decision_version"], got["decision_edition"]) == (again["sent_version"], 2)
    assert (got["sent_version"], got["sent_edition"]) == (again["sent_version"], 2)

    # The seller's builder gives both numbers: the history's and the customer's.
    seller = TestClient(client.app)  # its own cookies: the session's client keeps none
    sign_in(seller, a.user)
    builder = BeautifulSoup(seller.get(f"/plans/{p['id']}?lang=en").text, "html.parser")
    status = " ".join(builder.select_one(".quote-builder p.muted").get_text().split())
    assert (
        f"sent as the customer's version 2 (this page's version {again['sent_version']})" in status
    )
    record = " ".join(builder.select_one(".decision-record").get_text().split())
    assert ", version 2." in record and f"(history version {again['sent_version']})" in record


def test_the_plan_page_names_the_version_the_customer_accepted(client: TestClient) -> None:
    """QA: sent as version 1, changed and saved (not sent), then accepted as sent: the plan
    page said "the PDF and the share link call this quote version 2" while they print the
    accepted version 1 (`quotes.seller_copy`)."""
    from tests.quotes.test_acting_on_what_was_seen import _put_quote

    a, p, link = _sent(client)
    _put_quote(client, a, p, "5")  # saved after sending, not sent
    anon = TestClient(client.app)
    accept = BeautifulSoup(anon.get(link).text, "html.parser").select_one("form.accept-form")
    data = {i["name"]: i["value"] for i in accept.select("input[type=hidden]")}
    r = anon.post(
        f"{link}/accept", data={**data, "name": "王小明", "title": "採購經理", "agree": "on"}
    )
    assert r.status_code in (200, 303), r.text
    seller = TestClient(client.app)
    sign_in(seller, a.user)
    page = BeautifulSoup(seller.get(f"/plans/{p['id']}?lang=en").text, "html.parser")
    note = " ".join(page.select_one(".quote-actions .edition-note").get_text().split())
    assert note.startswith("The PDF and the share link call this quote version 1:")
