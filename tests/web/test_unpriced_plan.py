"""A plan on a GPU the price list does not price says so in the reader's language.

QA of stop 32: DeepSeek-V3 served at its default precision fits one node of the B300 only
(8 × 288 GB), which the shipped list does not price. The planner's warning was the cost
engine's "gpu_id must be one of the GPUs priced in price list … (got 'b300-sxm-288gb')" on a
Chinese page, and its cost section said no price list was loaded, though one was.
"""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.catalog.shipped import shipped_price_book
from app.engine.estimate import estimate
from app.engine.schemas import EstimateRequest

DEEPSEEK = {"model": {"preset": "deepseek-v3"}, "task": "inference"}


def test_the_engine_names_the_gpu_and_the_ones_the_list_prices() -> None:
    r = estimate(EstimateRequest.model_validate(DEEPSEEK), prices=shipped_price_book())
    assert r.gpu.id == "b300-sxm-288gb" and r.cost is None
    (warning,) = [w for w in r.warnings if w.startswith("Not priced")]
    assert "NVIDIA B300 SXM 288GB" in warning and "NVIDIA H200 SXM 141GB" in warning
    assert "gpu_id" not in warning and "b300-sxm-288gb" not in warning


def test_the_planner_page_says_it_in_chinese_and_does_not_claim_there_is_no_list(
    client: TestClient,
) -> None:
    r = client.get(
        "/plan",
        params={"preset": "deepseek-v3", "task": "inference"},
        headers={"Accept-Language": "zh-TW"},
    )
    assert r.status_code == 200
    page = BeautifulSoup(r.text, "html.parser")
    warnings = [li.get_text() for li in page.select("ul.warnings li")]
    (unpriced,) = [w for w in warnings if w.startswith("無法報價")]
    assert "價目表「2026-11 list」沒有 NVIDIA B300" in unpriced and "gpu_id" not in unpriced
    text = page.get_text()
    assert "此方案無法報價：原因請見上方的警示。" in text
    assert "尚未載入價目表" not in text
