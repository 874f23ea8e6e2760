"""A plan no priced option can run quotes none: its documents, its API total, its summary
and the compare page never price an option that cannot run it.

QA: Llama 3.1 405B pre-training on RTX 4090 (no quote lines). Every option is marked "Not
runnable: this plan needs 4 GPUs in one machine; RunPod rents at most 1", yet the PDF read
"Quoted option Hourly rent · Quoted total (excl. tax) NT$9,991,775,846 … Total (incl. tax)
NT$10,491,364,638", the plan page "Cheapest option's total NT$9,991,775,846", the API's
document_total named the RunPod hourly option, and /compare "Cheapest option: Hourly rent"."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_document_total import _pdf_text
from tests.quotes.test_quote_life import _customer

WORKLOAD = {"model": {"preset": "llama-3.1-70b"}, "task": "qlora", "gpu": "rtx-4090-24gb"}


def test_nothing_runnable_is_quoted_nowhere(client: TestClient, tmp_path: Path) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    r = client.post("/api/v1/plans", headers=a.headers,
                    json={"name": "4090", "customer_id": c["id"], "workload": WORKLOAD})  # fmt: skip
    assert r.status_code == 201, r.text
    plan = r.json()
    cost = plan["result"]["cost"]
    assert cost["cheapest"] is None
    assert not any(o.get("feasible", True) for o in cost["options"])  # the premise
    assert plan["document_total"] is None

    text = _pdf_text(client, a.headers, plan["id"], tmp_path)
    assert "報價方案" not in text and "報價總額" not in text  # no quoted option, no total
    # … and says why there is no price, rather than leave the reader looking for one
    assert "價目表中沒有任何方案能以目前的配置執行此方案：須改用其他GPU或配置後才能報價。" in (
        text.replace(" ", "")  # the sentence wraps in its cell
    )
    assert "付費方式" not in text  # no ways to pay, and no note pointing at them

    pages = TestClient(client.app)
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{plan['id']}?lang=en").text, "html.parser")
    summary = " ".join(
        page.select_one("section[aria-labelledby=summary-heading]").get_text().split()
    )
    # no figure where a cheapest option would stand: a dash
    assert "Cheapest option's total — " in summary and "NT$" not in summary
    compare = BeautifulSoup(pages.get(f"/compare?ids={plan['id']}&lang=en").text, "html.parser")
    rate = " ".join(compare.select_one("tr.rate-row").get_text().split())
    assert "No priced option can run this plan." in rate and "Cheapest option" not in rate
