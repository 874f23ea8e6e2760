"""The resale value of bought servers is one figure on the planner, the share page and both
PDFs (QA: NT$1,560,084 in the planner, NT$1,560,087 on the share page and in the PDFs; a
design studio's image plan 520,028 vs 520,029). The documents printed the resale as what
was left of "up front − resale + running costs = total" with the running costs rounded per
month, the planner the engine's own figure; the engine now rounds each part once and the
documents' running costs are the engine's (app.quotes.document.running_costs_printed)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.quotes import pdf
from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import _customer, _share

BANK = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "users": 200,
        "slo": {"ttft_s": 1, "tokens_per_s_per_user": 20}, "rent_months": 36}  # fmt: skip
PLANNER = ("/plan?preset=llama-3.1-70b&task=inference&users=200&slo_ttft_s=1"
           "&slo_tokens_per_s=20&rent_months=36")  # fmt: skip
BUY = "buy:hgx-h100-8gpu-oem"
# By hand: 16 GPUs → 2 × HGX H100 8-GPU (US$282,624 × 32 = NT$9,043,968): servers
# NT$18,087,936 + network/storage 15 % = 2,713,190.4 → NT$2,713,190 = hardware NT$20,801,126;
# held 36 of 36 months: resale 10 % × 20,801,126 = 2,080,112.6 → NT$2,080,113.
# Before: running costs NT$391,408/month × 36 = 14,090,688, so the documents printed
# 21,705,523 + 14,090,688 − 33,716,095 = NT$2,080,116.
RESALE = "NT$2,080,113"
# A 7-month LoRA job on the 4-GPU server (NT$4,521,984 + 15 % 678,298 = hardware 5,200,282):
# resale 5,200,282 × (1 − 0.9 × 7 / 36) = 4,290,232.65 → NT$4,290,233. Its power is paid for
# the job's hours (NT$638), the rest for 7 months: running costs NT$641,033, no whole
# NT$ a month (91,576.14), so the documents print their total, not 91,576 × 7 = 641,032
# (which left NT$4,290,232 as the resale).
LORA = {"model": {"preset": "llama-3.1-70b"}, "task": "lora", "tokens": 2e8, "rent_months": 7}
AMOUNT = r"NT\$[\d,]+"
CASES = [(BANK, BUY, RESALE, PLANNER), (LORA, "buy:h100-4gpu-nvlink-server", "NT$4,290,233", None)]


@pytest.fixture(autouse=True)
def _no_charts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The figures are under test, not the charts: no Chromium per render.
    monkeypatch.setattr(pdf, "chart_images", lambda plan, lang, house="": pdf.ChartImages({}))
    yield


def _pdf_text(client: TestClient, path: str, tmp_path: Path, **kw: object) -> str:
    r = client.get(path, **kw)  # type: ignore[arg-type]
    assert r.status_code == 200, r.text[:300]
    out = tmp_path / "q.pdf"
    assert r.content[:5] == b"%PDF-", (r.headers, r.content[:200])
    out.write_bytes(r.content)
    text = subprocess.run(["pdftotext", str(out), "-"], check=True, capture_output=True,
                          text=True).stdout  # fmt: skip
    return " ".join(text.split())


@pytest.mark.parametrize(("workload", "key", "resale", "planner"), CASES, ids=["bank", "lora"])
def test_the_planner_the_share_page_and_the_pdfs_print_one_resale(
    client: TestClient,
    tmp_path: Path,
    workload: dict[str, object],
    key: str,
    resale: str,
    planner: str | None,
) -> None:
    if planner is not None:
        page = BeautifulSoup(client.get(planner, headers={"Accept-Language": "en"}).text,
                             "html.parser")  # fmt: skip
        row = page.select_one('table.costs-table tr[data-kind="buy"]')
        assert row is not None
        said = next(li for li in row.select(".option-explain li") if "Resale value" in li.text)
        assert re.findall(AMOUNT, said.text)[-1] == resale

    a = make_account(client, "sales")
    c = _customer(client, a, language="en")
    body = {"name": "Bank", "workload": workload, "customer_id": c["id"],
            "quote": {"lines": [{"option_key": key}]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    plan = r.json()
    # The plan's own figure, as its page's "How this total is worked out" prints it.
    buy = next(o for o in plan["result"]["cost"]["options"] if o["key"] == key)
    formula = next(e["formula"] for e in buy["explain"] if e["figure"].startswith("Resale"))
    assert re.findall(AMOUNT, formula)[-1] == resale
    link = _share(client, a, plan["id"])
    said = "resale value at the end"
    shared = BeautifulSoup(client.get(link).text, "html.parser").select_one(".buy-breakdown")
    assert shared is not None
    assert re.findall(rf"({AMOUNT}) {said}", shared.text) == [resale]
    for path, kw in ((f"{link}/quote.pdf", {}),
                     (f"/api/v1/plans/{plan['id']}/pdf", {"headers": a.headers})):  # fmt: skip
        printed = re.findall(rf"({AMOUNT}) {said}", _pdf_text(client, path, tmp_path, **kw))
        assert printed == [resale], path
