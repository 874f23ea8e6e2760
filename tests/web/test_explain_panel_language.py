"""The planner's Explain panel names every engine figure in the page's language: no engine
key ("training.goodput"), no enum value ("single_gpu") and no English unit ("days") on a
zh-TW page. Formulas and sources stay as written (they are the engine's arithmetic); the cost
figures' names are built from the price list's own words and are not translated yet."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

LORA = "/plan?model_source=preset&preset=llama-3.1-8b&task=lora"
SERVING = "/plan?model_source=preset&preset=llama-3.1-8b&task=inference&concurrency=200"


def _summaries(client: TestClient, url: str, lang: str) -> list[str]:
    soup = BeautifulSoup(client.get(url, headers={"Accept-Language": lang}).text, "html.parser")
    return [s.get_text(" ", strip=True) for s in soup.select(".explain summary")]


def _amounts(client: TestClient, url: str, lang: str) -> list[str]:
    """Each figure's value and unit as shown (the summary's number)."""
    soup = BeautifulSoup(client.get(url, headers={"Accept-Language": lang}).text, "html.parser")
    return [s.get_text(" ", strip=True) for s in soup.select(".explain summary .num")]


def test_engine_figures_have_names_and_units_in_chinese(client: TestClient) -> None:
    rows = _summaries(client, LORA, "zh-TW") + _summaries(client, SERVING, "zh-TW")
    assert rows
    engine_key = re.compile(r"\b(training|inference|memory_gb|infra|gpu|lora)\.[a-z_]+")
    assert not [r for r in rows if engine_key.search(r)]
    assert not [r for r in rows if re.search(r"single_gpu|multi_gpu|multi_node", r)]
    amounts = _amounts(client, LORA, "zh-TW") + _amounts(client, SERVING, "zh-TW")
    assert not [a for a in amounts if re.search(r"\b(days|months|GPUs|cores|params)\b", a)]
    assert "規模落點 單卡" in rows  # the tier by name, not "1 single_gpu"
    assert any(r.startswith("完成天數 ") and r.endswith(" 天") for r in rows)


def test_english_page_keeps_english_names(client: TestClient) -> None:
    rows = _summaries(client, LORA, "en")
    assert "Tier Single GPU" in rows
    assert any(r.startswith("Goodput (share of wall time spent training)") for r in rows)
    assert any(r.startswith("Days to finish ") and r.endswith(" days") for r in rows)
