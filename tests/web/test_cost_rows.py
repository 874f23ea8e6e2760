"""The cost table's "Billed" line says what each option pays for, in the reader's numbers:
grouped counts, instances for a cloud, and no whole-month count beside a purchase's exact
holding period."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

# Llama 3.1 405B on 16,384 H100: 2,048 nodes of 8; AWS p5.4xlarge has 1 H100 an instance.
PLAN_405B = (
    "/plan?model_source=preset&preset=llama-3.1-405b&task=pretrain&tokens=15.6e12"
    "&seq_len=8192&gpu=h100-sxm-80gb&gpu_count=16384&lang=en"
)


def _billed(web: TestClient, url: str) -> dict[str, list[str]]:
    soup = BeautifulSoup(web.get(url).text, "html.parser")
    rows: dict[str, list[str]] = {}
    for tr in soup.select("table.costs-table tbody tr"):
        billed = tr.select_one("span.billed")
        if billed is not None:
            rows.setdefault(tr["data-kind"], []).append(billed.get_text(" ", strip=True))
    return rows


def test_large_counts_are_grouped_and_a_cloud_bills_instances(web: TestClient) -> None:
    rows = _billed(web, PLAN_405B)
    every = [line for lines in rows.values() for line in lines]
    assert not [line for line in every if re.search(r"\d{4,} (nodes|instances|GPUs)", line)]
    assert "16,384 GPUs · 2,048 nodes" in rows["rent_monthly"][0]
    assert any(line.endswith("16,384 instances") for line in rows["cloud"])  # p5.4xlarge
    assert any(line.endswith("2,048 instances") for line in rows["cloud"])  # p5.48xlarge


def test_a_purchase_shows_its_holding_period_once(web: TestClient) -> None:
    # The note says "Held 4.1 months"; the billed line said "held 5 months" (whole months).
    (buy,) = _billed(web, PLAN_405B)["buy"]
    assert "month" not in buy and buy.startswith("Billed: 16,384 GPUs")


def test_one_gpu_is_singular(web: TestClient) -> None:
    rows = _billed(web, "/plan?preset=llama-3.1-8b&task=lora&gpu_count=1&lang=en")
    assert any("· 1 GPU · 1 node" in line for lines in rows.values() for line in lines)


def test_an_option_names_its_gpus_and_nodes_grouped(web: TestClient) -> None:
    soup = BeautifulSoup(web.get(PLAN_405B).text, "html.parser")
    row = soup.select_one('table.costs-table tbody tr[data-kind="rent_monthly"]')
    assert row is not None
    detail = row.select_one("span.muted.small").get_text(" ", strip=True)
    assert detail.startswith("16,384× H100 SXM5 80GB · 2,048 nodes · InfiniBand")
