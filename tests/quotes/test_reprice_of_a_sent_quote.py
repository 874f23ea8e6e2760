"""A sent quote re-priced onto a new price list: every page says which money the customer
has and which is not sent, the comparisons name each rental's provider, and the API's
revision diff carries the money.

QA (catalog admin and sales manager): after sending a quote (NT$169,575) and re-pricing it,
the plan page said "Sent" over the new total and called the same quote "version 2" twice
for different things; the seller's PDF read "(version 2) Status Draft" with no word of the
customer's version 1; /compare listed the new total without a status; the diff page listed
"Hourly rent · 1 × NVIDIA H100 SXM5 80GB" twice, Stratagem's and RunPod's, unnamed; and
`GET /api/v1/plans/{id}/diff` held no quote totals and no option totals.

Each test runs on its own database: publishing a price list changes every later plan.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.catalog import service as catalog
from tests.accounts.helpers import Account, make_account, sign_in
from tests.catalog.helpers import change_row, publish_copy
from tests.quotes.test_document_state import _seller_pdf
from tests.quotes.test_quote_life import _customer, _share
from tests.quotes.test_reprice_follows import fresh  # noqa: F401  (a database of its own)

X1 = "stratagem-tpe-h100-x1"  # NT$50,000 a month, NT$120 an hour (app/data/catalog.yaml)
RUNPOD = "runpod-secure-h100-sxm-x1"  # RunPod's H100 SXM: rents the same GPU
WORKLOAD = {
    "model": {"preset": "llama-2-7b"},
    "task": "lora",
    "seq_len": 2048,
    "tokens": 2e8,
    "gpu_count": 1,
}


def _nt(amount: str) -> str:
    return f"NT${int(Decimal(amount)):,}"


def _words(node: Any) -> str:
    return " ".join(node.get_text().split())


def _new_list(c: TestClient) -> int:
    """A published copy of the current list: the 1-GPU server 10% cheaper (NT$45,000 a month,
    NT$108 an hour), RunPod's H100 SXM no longer offered."""

    def edit(s: Session, list_id: int) -> None:
        change_row(s, list_id, "offers", X1, monthly_price=45_000, hourly_price=108)
        catalog.delete_row(
            session=s, kind_name="offers", price_list_id=list_id, key=RUNPOD, actor="t"
        )

    return publish_copy(c, "2027-01", edit=edit)


def _sent_then_repriced(c: TestClient) -> tuple[Account, dict[str, Any], dict[str, Any], str]:
    """(seller, the plan as sent, the plan re-priced since, the share link)."""
    a = make_account(c, "sales")
    customer = _customer(c, a)
    body = {
        "name": "客服模型",
        "workload": WORKLOAD,
        "customer_id": customer["id"],
        "quote": {"lines": [{"option_key": f"rent_monthly:{X1}"}]},
    }
    r = c.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    pid = r.json()["id"]
    link = _share(c, a, pid)
    sent = c.post(f"/api/v1/plans/{pid}/send", headers=a.headers)
    assert sent.status_code == 200, sent.text
    new_list = _new_list(c)
    r = c.post(f"/api/v1/plans/{pid}/reprice", json={"price_list_id": new_list}, headers=a.headers)
    assert r.status_code == 200, r.text
    repriced = r.json()["plan"]
    assert repriced["status"] == "sent" and repriced["version"] > sent.json()["sent_version"]
    assert repriced["quote_totals"]["total"] != sent.json()["quote_totals"]["total"]
    return a, sent.json(), repriced, link


def test_the_api_diff_of_a_reprice_carries_the_quote_totals_and_the_options_that_moved(
    fresh: TestClient,  # noqa: F811
) -> None:
    a, sent, now, _link = _sent_then_repriced(fresh)
    r = fresh.get(
        f"/api/v1/plans/{now['id']}/diff",
        params={"from": sent["version"], "to": now["version"]},
        headers=a.headers,
    )
    assert r.status_code == 200, r.text
    body = r.json()
    money = ("subtotal", "tax", "total", "currency")
    assert body["quote_totals"] == {
        "before": {k: sent["quote_totals"][k] for k in money},
        "after": {k: now["quote_totals"][k] for k in money},
    }
    assert body["currency"] == "TWD"
    options = {o["key"]: o for o in body["options"]}
    monthly = options[f"rent_monthly:{X1}"]
    assert (monthly["before"], monthly["after"]) == (50_000, 45_000)
    assert monthly["label"].endswith("· Stratagem Taipei")
    gone = options[f"rent_hourly:{RUNPOD}"]
    assert gone["after"] is None and gone["label"].endswith("· RunPod")
    assert all(o["before"] != o["after"] for o in body["options"])  # only those that moved
    assert not any("stratagem-tpe" in o["label"] for o in body["options"])
    schema = fresh.get("/openapi.json").json()["components"]["schemas"]["RevisionDiff"]
    assert {"quote_totals", "options", "currency"} <= set(schema["properties"])


def test_the_diff_page_names_each_rentals_provider(fresh: TestClient) -> None:  # noqa: F811
    a, sent, now, _link = _sent_then_repriced(fresh)
    seller = TestClient(fresh.app)
    sign_in(seller, a.user)
    url = f"/plans/{now['id']}/diff?a={sent['version']}&b={now['version']}"
    for lang, providers in (
        ("en", ("Stratagem Taipei", "RunPod")),
        ("zh-TW", ("Stratagem Taipei", "RunPod")),
    ):
        page = BeautifulSoup(seller.get(url, params={"lang": lang}).text, "html.parser")
        rows = page.select("#totals tbody tr:not(.total) th")
        names = [_words(th.find(string=True, recursive=False) or th) for th in rows]
        rentals = [n for n in names if any(p in n for p in providers)]
        # Stratagem's and RunPod's hourly and monthly rent: four rows, each named apart
        assert len(rentals) == 4, names
        assert len(set(names)) == len(names), names
        assert not any("stratagem-tpe" in n or "runpod-secure" in n for n in names)


def test_the_plan_page_the_pdf_and_compare_say_the_customer_still_has_the_sent_money(
    fresh: TestClient,  # noqa: F811
    tmp_path: Path,
) -> None:
    a, sent, now, link = _sent_then_repriced(fresh)
    was, is_now = _nt(sent["quote_totals"]["total"]), _nt(now["quote_totals"]["total"])
    seller = TestClient(fresh.app)
    sign_in(seller, a.user)

    page = BeautifulSoup(seller.get(f"/plans/{now['id']}?lang=en").text, "html.parser")
    assert _words(page.select_one("#unsent-revision")) == (
        f"The customer's link shows version 1 at {was} (incl. tax); this revision, {is_now}, "
        "is not sent yet — send it to replace it. Sent, it becomes the customer's version 2."
    )
    # one vocabulary: the customer's versions named so, the page's own number said as such
    status = _words(page.select_one(".quote-builder p.muted"))
    assert f"sent as the customer's version 1 (this page's version {sent['version']})" in status
    note = _words(page.select_one(".edition-note"))
    assert note == (
        "The PDF here is a draft of the customer's version 2; the share link shows version 1 "
        "until you send this revision."
    )
    zh = BeautifulSoup(seller.get(f"/plans/{now['id']}?lang=zh-TW").text, "html.parser")
    assert _words(zh.select_one("#unsent-revision")).startswith(
        f"客戶的連結顯示第 1 版，金額 {was}（含稅）；本次修訂為 {is_now}，尚未送出"
    )

    pdf = " ".join(_seller_pdf(fresh, a, now["id"], "en", tmp_path).split())
    assert "Draft of version 2, not sent: the customer has version 1" in pdf

    compare = BeautifulSoup(seller.get(f"/compare?ids={now['id']}&lang=en").text, "html.parser")
    assert _words(compare.select_one(".quote-row .quote-status")) == (
        f"Not sent: the customer has version 1 at {was} (incl. tax)"
    )

    # The customer answers the version they have, and the answer says it as they read it.
    r = TestClient(fresh.app).post(f"{link}/accept", json={"name": "Alice", "title": "CTO"})
    assert r.status_code == 200, r.text
    assert (r.json()["revision"], r.json()["edition"]) == (sent["version"], 1)
    got = fresh.get(f"/api/v1/plans/{now['id']}", headers=a.headers).json()
    assert got["quote_totals"]["total"] == sent["quote_totals"]["total"]  # back to the sent money
    page = BeautifulSoup(seller.get(f"/plans/{now['id']}?lang=en").text, "html.parser")
    assert page.select_one("#unsent-revision") is None
