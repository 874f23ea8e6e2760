"""The seller's record of a declined quote: the customer's reason stands in a paragraph of
its own, labelled, and the IP address on its own line (QA: "This quote was declined. budget
IP address: 127.0.0.1" ran together)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import sign_in
from tests.quotes.test_quote_life import _answered


@pytest.mark.parametrize(
    ("lang", "label", "ip"), [("en", "The customer's reason: ", "IP address: "),
                              ("zh-TW", "客戶說明的原因：", "IP 位址：")]
)  # fmt: skip
def test_the_reason_and_the_ip_address_are_apart_and_labelled(
    client: TestClient, lang: str, label: str, ip: str
) -> None:
    a, p, _link = _answered(client, "declined")  # reason "budget"
    seller = TestClient(client.app)  # its own cookies: the session's client keeps none
    sign_in(seller, a.user)
    page = BeautifulSoup(seller.get(f"/plans/{p['id']}?lang={lang}").text, "html.parser")
    record = page.select_one(".decision-record")
    reason = record.select_one("p.decline-reason").get_text()
    assert reason.startswith(label) and "budget" in reason
    where = record.select_one("p.decision-ip").get_text()
    assert where.startswith(ip) and "budget" not in where
