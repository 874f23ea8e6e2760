"""/tco names its options and cost figures in the page's language, as the planner does
(tests/web/test_explain_names.py): before, a zh-TW page headed its explanations "Break-even
utilisation: 12-month contract — 8× h100-sxm-80gb NVLink … vs …" with "0.22 fraction of
730 h", and both languages listed offers as "8× H100 SXM5 80GB · NVLINK · …"."""

from __future__ import annotations

import re
from collections.abc import Callable

from bs4 import BeautifulSoup

# The default configuration: 8× H100 for 36 months at 80 %, a 12-month contract.
TCO = "/tco"
CATALOG_IDS = re.compile(r"h100-sxm-80gb|stratagem-|on demand — \d+ instance")
ENUMS = re.compile(r"\b(?:INFINIBAND|NVLINK|PCIE|ROCE)\b")
HAN = re.compile(r"[\u4e00-\u9fff]")
# What a reader sees above and beside the figures: headings, KPI cards, the option rows and
# the Explain panel's figure names and values (its formula and source stay English).
VISIBLE = (
    "#results h2, #results caption, .kpi, table.costs-table tbody th, "
    "table.compact td, #results .explain summary"
)


def _texts(soup: BeautifulSoup, selector: str) -> list[str]:
    # An option's formulas (collapsed under its name) stay English, with the offers they
    # price, as the Explain panel's formulas do.
    for formulas in soup.select("table.costs-table .option-explain ul.formula"):
        formulas.decompose()
    return [el.get_text(" ", strip=True) for el in soup.select(selector)]


def test_nothing_visible_shows_a_catalog_id_or_an_enum_value(
    get_soup: Callable[..., BeautifulSoup],
) -> None:
    texts = _texts(get_soup(TCO), VISIBLE)
    assert len(texts) > 30
    assert not [t for t in texts if CATALOG_IDS.search(t) or ENUMS.search(t)]


def test_option_rows_name_the_gpu_and_the_interconnect(
    get_soup: Callable[..., BeautifulSoup],
) -> None:
    details = _texts(get_soup(TCO), "table.costs-table tbody th > .muted.small")
    rented = [d for d in details if "Stratagem Taipei" in d]
    assert rented and all(d.startswith("8× H100 SXM5 80GB · NVLink · ") for d in rented)


def test_cost_figures_are_named_in_the_page_language(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    soup = get_soup(TCO)
    figures = {
        s.select_one(".fig").get_text(" ", strip=True): s.select_one(".num").get_text(
            " ", strip=True
        )
        for s in soup.select("#results .explain summary")
    }
    assert not soup.select("#results .explain summary .fig[lang='en']")  # every one is named
    if lang == "zh-TW":
        assert all(HAN.search(name) for name in figures)  # no English name left
        term_vs_aws = (
            "損益平衡使用率：長約租用 · 12 個月合約 · 8 × NVIDIA H100 SXM5 80GB 對比"
            "公有雲 — AWS p5.48xlarge"
        )
        assert figures[term_vs_aws] == "每月 730 小時的 22%"
        # the 12-month contract's 36 months at NT$280,000 (the /tco defaults): says its period
        assert figures["最便宜的方案"] == "NT$10,080,000，36 個月合計（未稅）"
        assert "公有雲 — AWS p5.48xlarge 對比同規格月租" in figures
        assert HAN.search(soup.select_one("#tco-explain").get_text())
    else:
        term_vs_aws = (
            "Break-even utilisation: Term rent · 12-month contract · 8 × NVIDIA H100 SXM5 80GB "
            "vs Public cloud — AWS p5.48xlarge"
        )
        assert figures[term_vs_aws] == "22% of 730 h a month"
        assert figures["Cheapest option"] == "NT$10,080,000, total for 36 months (excl. tax)"
        assert "Public cloud — AWS p5.48xlarge vs monthly rent (like for like)" in figures
    assert not [v for v in figures.values() if "fraction" in v or "×10" in v]


def test_formulas_are_in_the_page_language(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    """The cost engine's formulas are said in the page's language (app.costs.wording); one
    no pattern covers would stay English and say so with lang="en": /tco has none."""
    soup = get_soup(TCO)
    formulas = soup.select("#results .explain .formula")
    assert formulas and not [f for f in formulas if f.get("lang") == "en"]
    if lang == "zh-TW":
        assert all(HAN.search(f.get_text()) for f in formulas)
