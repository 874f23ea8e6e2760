"""The planner's Explain panel names every engine figure in the page's language: no engine
key ("training.goodput"), no enum value ("single_gpu") and no English unit ("days") on a
zh-TW page. The sizing engine's formulas are said in Chinese with the engine's numbers
(app/planner/formula_wording.py), its citations stay as written, marked English; the cost
figures' formulas and sources are said in the page's language as /tco says them
(app.costs.explained), without catalog ids."""

from __future__ import annotations

import re

import pytest
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


def _formulas(client: TestClient, url: str, lang: str) -> dict[str, tuple[str | None, str]]:
    """Each figure's name -> (its formula's lang attribute, the formula as shown)."""
    soup = BeautifulSoup(client.get(url, headers={"Accept-Language": lang}).text, "html.parser")
    return {
        d.select_one("summary .fig").get_text(" ", strip=True): (
            d.select_one(".formula").get("lang"),
            d.select_one(".formula").get_text(" ", strip=True),
        )
        for d in soup.select(".explain details")
    }


def test_cost_formulas_are_in_the_page_language_and_engine_formulas_marked_english(
    client: TestClient,
) -> None:
    # Before: on a zh-TW page every formula was English, and the cheapest option's read
    # "Monthly rent — 8× h100-sxm-80gb … (Stratagem Taipei): NT$…" with the catalog id.
    zh = _formulas(client, LORA, "zh-TW")
    han = re.compile(r"[\u4e00-\u9fff]")
    lang, text = zh["最便宜的方案"]
    assert lang is None and han.search(text) and "（未稅）" in text
    assert not re.search(r"h100-sxm-80gb|l40s-48gb|stratagem-|rtx-\d", text)
    lang, text = zh["每月 GPU 使用時數"]
    assert lang is None and text.endswith("每月 730 小時")
    # The sizing engine's arithmetic in Chinese too (it was the engine's English, marked so).
    assert zh["完成天數"][0] is None and han.search(zh["完成天數"][1])
    assert zh["每張 GPU 的記憶體"][0] is None and han.search(zh["每張 GPU 的記憶體"][1])
    en = _formulas(client, LORA, "en")
    lang, text = en["Cheapest option"]
    assert lang is None and text.endswith("(excl. tax)")
    assert en["Days to finish"][0] is None  # English on an English page: no lang needed


def test_whole_model_memory_figures_say_they_are_not_per_gpu(client: TestClient) -> None:
    """QA (stop 29): beside the 72.5 GB-per-GPU card of a 4-GPU 13B fine-tune, the panel's
    "Weights memory 26.0 GB" and "Allocated tensor memory 239 GB" read as contradictions:
    they are one copy of the model before it is split over the GPUs (the API's memory_gb),
    and their names now say so, in both languages."""
    url = (
        "/plan?model_source=preset&preset=llama-2-13b&task=full_finetune&dataset_gb=5&epochs=2"
        "&seq_len=4096&gpu=h100-sxm-80gb&gpu_count=4"
    )
    for lang, weights, allocated, per_gpu in (
        (
            "en",
            "Weights memory, whole model",
            "Allocated tensor memory, one model copy",
            "Memory per GPU",
        ),
        (
            "zh-TW",
            "權重記憶體（整個模型）",
            "已配置的張量記憶體（單一模型副本）",
            "每張 GPU 的記憶體",
        ),
    ):
        names = {r.rsplit(" ", 2)[0] for r in _summaries(client, url, lang)}
        assert {weights, allocated, per_gpu} <= names, names


#: A 70B pre-training with a deadline: the planner adds GPUs until the deadline is met.
PRETRAIN = (
    "/plan?model_source=preset&preset=llama-3.1-70b&task=pretrain&tokens=2e12"
    "&deadline_days=60&gpu=h100-sxm-80gb"
)
NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:e[+-]\d+)?")


def test_sizing_formulas_are_said_in_chinese_with_the_engines_numbers(
    client: TestClient,
) -> None:
    """A sales engineer reads the days to finish out to a procurement committee in Chinese:
    the formula says its words in Chinese (no lang="en"), and every number is the one of the
    English page, where the formula is the engine's own, in the same order."""
    zh, en = _formulas(client, PRETRAIN, "zh-TW"), _formulas(client, PRETRAIN, "en")
    lang, days = zh["完成天數"]
    assert lang is None
    assert "張 GPU" in days and "稠密峰值" in days and "有效訓練時間比例" in days
    assert days.endswith(" 天") and "days" not in days and "goodput" not in days
    en_lang, en_days = en["Days to finish"]
    assert en_lang is None
    assert re.fullmatch(
        r"\S+ FLOP / \(\d+ × \S+ TFLOPS dense × MFU \S+ × goodput \S+\) / 86,400 s = \S+ days",
        en_days,
    )
    assert NUMBER.findall(days) == NUMBER.findall(en_days)
    # Every sizing formula of the panel, as the MFU's product of factors and the deadline's
    # count: numbers as on the English page.
    lang, count = zh["所需 GPU"]
    assert lang is None and "趕上 60 天期限的最少張數" in count
    assert NUMBER.findall(count) == NUMBER.findall(en["GPUs needed"][1])
    lang, mfu = zh["模型算力利用率（MFU）"]
    assert lang is None and "軟體效率" in mfu
    assert NUMBER.findall(mfu) == NUMBER.findall(en["Model FLOPs utilisation"][1])


def test_the_input_token_cost_explains_itself_and_both_token_costs_link_their_derivation(
    client: TestClient,
) -> None:
    """QA: the serving card's "input: NT$0.74 per 1M" had no derivation anywhere, and the
    output figure's "How?" link was missing (it looked for a key the panel does not have).
    The input figure is the same monthly cost over the prompt tokens: output cost × output
    tokens / prompt tokens (SERVING: 2,048 context − 256 answer = 1,792 prompt tokens)."""
    body = {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "concurrency": 200}
    r = client.post("/api/v1/estimate", json=body, headers={"Accept-Language": "en"}).json()
    inf = r["inference"]
    (e,) = [x for x in r["explain"] if x["figure"] == "Cost per 1M input tokens"]
    ops = {o["name"]: o["value"] for o in e["operands"]}
    assert ops["output_tokens"] == 256 and ops["prompt_tokens"] == 2048 - 256
    assert e["value"] == pytest.approx(inf["cost_per_million_tokens"] * 256 / 1792)
    assert inf["cost_per_million_input_tokens"] == pytest.approx(e["value"])
    for lang, name, words in (
        ("en", "Cost per 1M input tokens", "per 1M output tokens × 256 output tokens / 1,792"),
        ("zh-TW", "每百萬輸入 token 成本", "× 輸出 256 token / 提示 1,792 token"),
    ):
        shown_lang, formula = _formulas(client, SERVING, lang)[name]
        assert shown_lang is None and words in formula, formula
        soup = BeautifulSoup(
            client.get(SERVING, headers={"Accept-Language": lang}).text, "html.parser"
        )
        links = [a["href"] for a in soup.select(".kpi a.how")]
        assert any("Cost-per-1M-tokens" in h for h in links)
        assert any("Cost-per-1M-input-tokens" in h for h in links)
