"""A quote document says what state it is in, and only a sent quote can be signed (QA).

Before: the PDFs of a declined, a "lost" and a never-sent draft quote all ended with "To accept
this quote, sign below" and the signature lines, so procurement could sign and stamp an offer
that was dead or never made; the seller's PDF of an accepted quote read "version 5" on page 1
and "accepted … version 4" on the last (the customer's copy: version 4), because recording the
answer is a revision of its own; and the share page of a quote marked lost after sending showed
the pipeline's "Lost" and "This is a draft: it can be accepted once it is sent."
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import Account, make_account
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share

SIGN = {"en": "Customer: name, title, signature and company seal", "zh-TW": "客戶：姓名"}


def _text(pdf: bytes, tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(pdf)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


def _seller_pdf(client: TestClient, a: Account, plan_id: int, lang: str, tmp_path: Path) -> str:
    r = client.get(f"/api/v1/plans/{plan_id}/pdf", params={"lang": lang}, headers=a.headers)
    assert r.status_code == 200, r.text
    return _text(r.content, tmp_path, f"seller-{plan_id}-{lang}")


def _customer_pdf(client: TestClient, link: str, lang: str, tmp_path: Path) -> str:
    r = TestClient(client.app).get(f"{link}/quote.pdf", params={"lang": lang})
    assert r.status_code == 200, r.text
    return _text(r.content, tmp_path, f"customer-{link[-6:]}-{lang}")


def _sent(client: TestClient) -> tuple[Account, dict[str, Any], str]:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    link = _share(client, a, p["id"])
    r = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers)
    assert r.status_code == 200, r.text
    sent = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert sent["sent_version"] == sent["version"]
    return a, sent, link


def _put(client: TestClient, a: Account, plan_id: int, **changes: Any) -> dict[str, Any]:
    version = client.get(f"/api/v1/plans/{plan_id}", headers=a.headers).json()["version"]
    r = client.put(
        f"/api/v1/plans/{plan_id}", json={"version": version, **changes}, headers=a.headers
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_draft_says_so_and_cannot_be_signed(
    client: TestClient, tmp_path: Path, lang: str
) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    text = _seller_pdf(client, a, p["id"], lang, tmp_path)
    status, sentence = {
        "en": ("Draft", "This is a draft: it can be accepted once it is sent."),
        "zh-TW": ("草稿", "此為草稿：正式送出後才能接受。"),
    }[lang]
    page_one = text.split("\f")[0]
    assert status in page_one
    assert sentence in " ".join(text.split())
    assert SIGN[lang] not in text


def test_a_sent_quote_is_signed_on_both_copies_under_one_version(
    client: TestClient, tmp_path: Path
) -> None:
    a, p, link = _sent(client)
    seller = _seller_pdf(client, a, p["id"], "en", tmp_path)
    customer = _customer_pdf(client, link, "en", tmp_path)
    # the first revision sent is the customer's version 1, whatever its history number
    assert p["version"] > 1
    for text in (seller, customer):
        assert SIGN["en"] in text
        assert f"{p['quote_number']} (version 1)" in text


def test_an_accepted_quote_prints_the_version_accepted_on_every_copy(
    client: TestClient, tmp_path: Path
) -> None:
    a, p, link = _sent(client)
    sent_version = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()["sent_version"]
    r = TestClient(client.app).post(f"{link}/accept", json={"name": "Alice", "title": "CTO"})
    assert r.status_code == 200, r.text
    live = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert live["version"] == sent_version + 1  # the answer is a revision of its own
    for text in (
        _seller_pdf(client, a, p["id"], "en", tmp_path),
        _customer_pdf(client, link, "en", tmp_path),
    ):
        flat = " ".join(text.split())
        # the customer's version 1 (history version `sent_version`), never the answer's own
        # revision nor the save count
        assert "(version 1)" in flat
        assert (
            f"(version {sent_version})" not in flat and f"(version {live['version']})" not in flat
        )
        assert "Accepted by Alice (CTO) on" in flat and "version 1." in flat
        assert SIGN["en"] not in text


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_declined_quote_says_so_on_page_one_and_cannot_be_signed(
    client: TestClient, tmp_path: Path, lang: str
) -> None:
    a, p, link = _sent(client)
    r = TestClient(client.app).post(f"{link}/decline", json={"reason": "Budget"})
    assert r.status_code == 200, r.text
    status, sentence = {
        "en": ("Declined", "This quote was declined on"),
        "zh-TW": ("已婉拒", "此報價已於"),
    }[lang]
    for text in (
        _seller_pdf(client, a, p["id"], lang, tmp_path),
        _customer_pdf(client, link, lang, tmp_path),
    ):
        assert status in text.split("\f")[0]
        assert sentence in " ".join(text.split())
        assert SIGN[lang] not in text
    # The share page heads the answer by what it is, not "Acceptance" (QA).
    from bs4 import BeautifulSoup

    page = TestClient(client.app).get(link, params={"lang": lang})
    heading = BeautifulSoup(page.text, "html.parser").select_one("#decision h2").get_text()
    assert heading == {"en": "Status of this quote", "zh-TW": "報價狀態"}[lang]


def test_a_quote_marked_lost_after_sending_is_withdrawn_for_the_customer(
    client: TestClient, tmp_path: Path
) -> None:
    a, p, link = _sent(client)
    _put(client, a, p["id"], status="lost")
    # The share page opens in the customer's language (this customer's: 中文).
    page = TestClient(client.app).get(link)
    assert page.status_code == 200
    assert "已撤回" in page.text and "未成交" not in page.text  # not the pipeline's "Lost"
    assert "此報價已撤回，無法再接受。" in page.text
    assert "此為草稿" not in page.text
    for lang, status in (("en", "Withdrawn"), ("zh-TW", "已撤回")):
        text = _customer_pdf(client, link, lang, tmp_path)
        assert status in text.split("\f")[0] and SIGN[lang] not in text


def test_edits_saved_after_sending_print_as_a_draft_for_the_seller_only(
    client: TestClient, tmp_path: Path
) -> None:
    # The customer's copy stays the sent revision, open to sign; the seller's PDF prints the
    # unsent revision, marked a draft and numbered as the customer's version it becomes if
    # sent: version 2.
    a, p, link = _sent(client)
    _put(client, a, p["id"], name="客服模型 v2")
    seller = " ".join(_seller_pdf(client, a, p["id"], "en", tmp_path).split())
    assert "客服模型 v2" in seller and "(version 2)" in seller
    assert "This is a draft: it can be accepted once it is sent." in seller
    customer = _customer_pdf(client, link, "en", tmp_path)
    assert "客服模型 v2" not in customer and SIGN["en"] in customer
    # Notes are not printed: a sent quote with only new notes is still the sent document.
    a2, p2, _link2 = _sent(client)
    _put(client, a2, p2["id"], notes="Call back on Monday")
    again = _seller_pdf(client, a2, p2["id"], "en", tmp_path)
    assert SIGN["en"] in again and "(version 1)" in again
