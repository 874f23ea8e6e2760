"""The quote's assumptions say what its money depends on: the GPUs' utilisation, the contract
term, the period compared and the exchange rate a foreign price was converted at (QA: the
PDF listed the task, epochs and deadline, none of these, while every rental and cloud total
depends on them)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_document_total import _pdf_text
from tests.quotes.test_quote_life import _customer


def test_a_service_quote_states_utilisation_term_period_and_exchange_rate(
    client: TestClient, tmp_path: Path
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)  # a 中文 customer
    workload = {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "concurrency": 16,
                "utilization": 0.6, "term_months": 12, "pricing_mode": "capacity"}  # fmt: skip
    body = {"name": "service", "workload": workload, "customer_id": c["id"],
            "quote": {"lines": [], "include_cloud_comparison": True}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    cost = r.json()["result"]["cost"]
    # 60% of 730 hours = 438 busy hours a month.
    assert cost["hours_per_month"] == 438.0
    text = _pdf_text(client, a.headers, r.json()["id"], tmp_path)
    assert "GPU 使用率 每月時數的 60%：每月使用 438 小時" in text
    assert "合約期間 12 個月" in text
    assert f"比較期間 {cost['horizon_months']} 個月" in text
    # The public clouds' US$ prices were converted at the shipped list's US$1 = NT$32
    # (PRODUCT.md §4), dated as the list's rate row.
    assert "匯率 US$1 = NT$32，2026年11月1日價目表的匯率" in text


def test_a_one_off_job_is_compared_as_the_job_and_states_each_rate_once(
    client: TestClient, tmp_path: Path
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    body = {"name": "job", "workload": {"model": {"preset": "llama-3.1-8b"}, "task": "lora"},
            "customer_id": c["id"], "quote": {"lines": []}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    assert r.json()["result"]["cost"]["pricing_mode"] == "job"
    text = _pdf_text(client, a.headers, r.json()["id"], tmp_path)
    assert "比較期間 此工作本身，從開始到完成" in text
    # The cloud comparison is off, but buying is a way to pay: the 4-GPU server is priced in
    # US$ (app/data/catalog.yaml, US$141,312), converted at the same rate, said once.
    assert text.count("匯率 US$1 = NT$32") == 1
