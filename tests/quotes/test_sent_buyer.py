"""A sent quote prints the buyer it was sent to. The customer record is kept on the plan when
the quote is sent; editing the record afterwards changes neither the customer's copy (share
page, PDF) nor the seller's copy of the sent revision, and the builder says which details
changed and that sending again gives the customer the new ones.

QA: a customer renamed 改名後公司 with a new 統一編號 after the quote was sent reappeared in the
already-sent quote's PDF, while the plan's own `customer` text and page kept the old name.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share

SENT_NAME, SENT_TAX_ID = "台灣智慧客服股份有限公司", "22099131"  # _customer's record
NEW_NAME, NEW_TAX_ID = "改名後公司", "10458570"  # §6 check: 1+0+4+(1+0)+8+(1+0)+(2+8)+0 = 25


def _pdf_text(client: TestClient, headers: dict, plan_id: int, tmp_path: Path) -> str:
    r = client.get(f"/api/v1/plans/{plan_id}/pdf", params={"lang": "zh-TW"}, headers=headers)
    assert r.status_code == 200, r.text
    path = tmp_path / f"quote-{plan_id}.pdf"
    path.write_bytes(r.content)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


def test_editing_the_customer_after_sending_leaves_the_sent_quote_as_sent(
    client: TestClient, tmp_path: Path
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], _quote("0"))
    link = _share(client, a, p["id"])
    assert client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).status_code == 200
    r = client.put(
        f"/api/v1/customers/{c['id']}",
        json={"name": NEW_NAME, "tax_id": NEW_TAX_ID, "address": "臺北市信義區"},
        headers=a.headers,
    )
    assert r.status_code == 200, r.text

    # The customer's copy: the share page names the buyer it was sent to.
    shared = BeautifulSoup(TestClient(client.app).get(link).text, "html.parser")
    buyer = shared.select_one("dd.customer").get_text(" ", strip=True)
    assert buyer == f"{SENT_NAME} · {SENT_TAX_ID}"
    # The seller's PDF of the sent revision prints the same buyer, never the edited one.
    text = _pdf_text(client, a.headers, p["id"], tmp_path)
    assert SENT_NAME in text and SENT_TAX_ID in text
    assert NEW_NAME not in text and NEW_TAX_ID not in text

    # The builder says what changed since sending, and how to send the new details.
    pages = TestClient(client.app)  # its own cookies: the app's client is shared
    pages.headers["Accept-Language"] = "en"
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{p['id']}").text, "html.parser")
    note = page.select_one("#buyer-changed").get_text(" ", strip=True)
    assert note.startswith(f"{NEW_NAME}'s record changed after this quote was sent")
    assert "(Company name, Tax ID (統一編號), Address)" in note

    # Sending again sends a new revision to the buyer as it is now.
    again = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers)
    assert again.status_code == 200, again.text
    assert again.json()["sent_version"] == p["version"] + 2  # sent, then sent again
    shared = BeautifulSoup(TestClient(client.app).get(link).text, "html.parser")
    assert shared.select_one("dd.customer").get_text(" ", strip=True) == (
        f"{NEW_NAME} · {NEW_TAX_ID}"
    )
    page = BeautifulSoup(pages.get(f"/plans/{p['id']}").text, "html.parser")
    assert page.select_one("#buyer-changed") is None


def test_sending_again_with_nothing_changed_still_changes_nothing(client: TestClient) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    first = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).json()
    second = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).json()
    assert second["version"] == first["version"] == p["version"] + 1


def test_a_duplicate_still_named_copy_is_flagged_before_sending(client: TestClient) -> None:
    # QA: a duplicated plan carried "（副本）" into the project name the customer's quote prints.
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    dup = client.post(f"/api/v1/plans/{p['id']}/duplicate", headers=a.headers).json()
    assert dup["name"] == f"{p['name']}（副本）"  # in the customer's language (zh-TW)
    pages = TestClient(client.app)
    pages.headers["Accept-Language"] = "en"
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{dup['id']}").text, "html.parser")
    flags = [p.get_text(" ", strip=True) for p in page.select(".tax-id-missing")]
    assert any(f.endswith("rename the copy before sending.") for f in flags), flags
    original = BeautifulSoup(pages.get(f"/plans/{p['id']}").text, "html.parser")
    assert not any("rename the copy" in x.get_text() for x in original.select(".tax-id-missing"))
