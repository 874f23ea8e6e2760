"""The API gives the total the quote's documents print (`document_total`).

QA: a plan whose quote lines were all removed read `quote_totals` 0 in the API while its
PDF quoted the seller's hourly H100, "報價總額（未稅） NT$360 · NT$120/小時 × 3 小時 …
總計（含稅） NT$378"; an integrator filing the total filed 0."""

from __future__ import annotations

import re
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import _customer


def _pdf_text(client: TestClient, headers: dict[str, str], plan_id: int, tmp: Path) -> str:
    r = client.get(f"/api/v1/plans/{plan_id}/pdf", headers=headers)
    assert r.status_code == 200, r.text[:300]
    (tmp / "q.pdf").write_bytes(r.content)
    out = subprocess.run(["pdftotext", str(tmp / "q.pdf"), "-"], capture_output=True, text=True)
    return " ".join(out.stdout.split())


@pytest.mark.parametrize("quote", [None, {"lines": []}], ids=["no quote", "no lines"])
def test_without_lines_the_api_gives_the_total_the_pdf_prints(
    client: TestClient, tmp_path: Path, quote: dict | None
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)  # domestic: 5% tax
    body = {"name": "no lines", "workload": {"model": {"preset": "llama-3.1-8b"},
            "task": "lora"}, "customer_id": c["id"], **({"quote": quote} if quote else {})}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    doc = r.json()["document_total"]
    assert doc["basis"] == "option" and doc["currency"] == "TWD"
    # The subtotal and 5% tax add up, rounded to whole NT$ (PRODUCT.md §6).
    subtotal, tax, total = (Decimal(doc[k]) for k in ("subtotal", "tax", "total"))
    assert Decimal(doc["tax_rate"]) == Decimal("0.05")
    assert tax == (subtotal * Decimal("0.05")).quantize(Decimal(1)) and total == subtotal + tax
    option = next(o for o in r.json()["result"]["cost"]["options"] if o["key"] == doc["option_key"])
    assert option["provider"]  # the seller's own offer, as the document quotes
    text = _pdf_text(client, a.headers, r.json()["id"], tmp_path)
    # The customer's document is in the customer's language (中文).
    assert f"報價總額（未稅） NT${subtotal:,}" in text
    assert re.search(rf"總計（含稅） NT\${total:,}(?![\d,])", text), text[:1500]
    # GET gives the same.
    got = client.get(f"/api/v1/plans/{r.json()['id']}", headers=a.headers).json()
    assert got["document_total"] == doc


def test_with_lines_the_document_total_is_the_lines(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    body = {"name": "lines", "workload": {"model": {"preset": "llama-3.1-8b"}, "task": "lora"},
            "customer_id": c["id"],
            "quote": {"lines": [{"description": "導入服務", "unit_price": "30000"}]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    doc, totals = r.json()["document_total"], r.json()["quote_totals"]
    assert doc["basis"] == "lines" and doc["option_key"] is None
    # NT$30,000 + 5% = NT$31,500, as quote_totals.
    assert (doc["subtotal"], doc["tax"], doc["total"]) == ("30000", "1500", "31500")
    assert (totals["subtotal"], totals["tax"], totals["total"]) == ("30000", "1500", "31500")
