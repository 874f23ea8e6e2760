"""The customer's cumulative-cost chart says which options cross at each "Month N" it marks.

QA of a quote with public-cloud comparisons: the PDF's chart boxed "Month 2.5", "2.7", "4.6",
"8.3", "21.1" and "50.8" with no word of which of its eight lines crossed there, and the one
crossing where the cheapest option changes (the 6-month contract against buying, only through
the resale in month 60) had no box at all. The PDF and the share page now print a table under
the chart naming both options of every crossing, by the names the chart's legend gives them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app import i18n
from app.plans.models import Plan
from app.quotes.pdf import customer_result
from tests.accounts.helpers import make_account
from tests.quotes.test_customer_document import INTERNAL, _pdf_text
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share

SENTENCE = {"en": "{a} stops being cheaper than {b}", "zh-TW": "自此起，{b} 比 {a} 便宜"}
# No space between two Chinese neighbours (「比公有雲」), one beside a Latin word or a number
# (「80GB 比」): tests/web/test_chinese_spacing.py
WIDE_GAP = re.compile(
    r"(?<=[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]) (?=[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef])"
)


def _sentence(lang: str, a: str, b: str) -> str:
    text = SENTENCE[lang].format(a=a, b=b)
    return WIDE_GAP.sub("", text) if lang == "zh-TW" else text


MONTH = {"en": "month {m}", "zh-TW": "第 {m} 個月"}
HEADING = {"en": "Break-even months", "zh-TW": "損益兩平月份"}


@pytest.fixture(scope="module", params=["en", "zh-TW"])
def cloud_quote(client: TestClient, request: pytest.FixtureRequest) -> dict[str, Any]:
    lang = request.param
    a = make_account(client, "sales")
    c = _customer(client, a, name=f"Cloud comparer {lang}", language=lang)
    p = _plan(client, a, c["id"], {**_quote("0"), "include_cloud_comparison": True})
    return {"lang": lang, "plan": p, "link": _share(client, a, p["id"])}


def _crossings(plan: dict[str, Any], lang: str) -> list[tuple[str, str, float]]:
    """(a's legend name, b's legend name, month) of every crossing the chart draws, from the
    same customer view the chart is built from."""
    row = Plan.model_validate(plan)
    previous = i18n.current_language()
    i18n.activate(lang)
    try:
        view = customer_result(row)["cost"]["tco_options"]
    finally:
        i18n.activate(previous)
    names = {o["key"]: o["label"] for o in view["options"]}
    return [
        (names[b["a"]], names[b["b"]], float(b["month"]))
        for b in view["break_even"]
        if b["month"] is not None
    ]


def _month(m: float, note: bool) -> str:
    # A resale crossing is the whole month of the sale; the others are said to a tenth with
    # a trailing ".0" dropped, as the chart's callouts write them.
    text = f"{m:.0f}" if note or round(m, 1) == round(m) else f"{m:.1f}"
    return text


def test_the_share_page_names_both_options_of_every_crossing(
    client: TestClient, cloud_quote: dict[str, Any]
) -> None:
    lang = cloud_quote["lang"]
    visitor = TestClient(client.app)
    visitor.cookies.set("lang", lang)
    soup = BeautifulSoup(visitor.get(cloud_quote["link"]).text, "html.parser")
    table = soup.select_one("table.break-even-months")
    assert table is not None
    assert table.select_one("caption").get_text(strip=True) == HEADING[lang]
    rows = [
        [" ".join(td.get_text(" ", strip=True).split()) for td in tr.select("td")]
        for tr in table.select("tbody tr")
    ]
    crossings = _crossings(cloud_quote["plan"], lang)
    # Six crossings: buying against each of four clouds, hourly rent, and monthly rent
    # (through the resale only). The 6-month contract stays cheaper than buying for all 60
    # months since buying pays its servers' rated 5.1 kW of electricity and colocation (it
    # crossed at the resale when the 4-GPU server was carried at T7's typical 3 kW).
    assert len(crossings) == len(rows) == 6
    for (a, b, month), (sentence, when) in zip(
        sorted(crossings, key=lambda c: c[2]), rows, strict=True
    ):
        assert sentence.startswith(_sentence(lang, a, b)), sentence
        resale = month > 59
        assert when == MONTH[lang].format(m=_month(month, resale))
    # Every public cloud is named in full (the legend's name), not by a catalog id.
    flat = " ".join(" ".join(r) for r in rows)
    for word in ("AWS p5.48xlarge", "GCP a3-highgpu-8g", "Lambda 8× H100 SXM5 80GB"):
        assert word in flat
    assert not [w for w in INTERNAL if w in flat]


def test_the_pdf_prints_the_table_under_the_chart(
    client: TestClient, cloud_quote: dict[str, Any], tmp_path: Path
) -> None:
    lang = cloud_quote["lang"]
    text = _pdf_text(
        TestClient(client.app), f"{cloud_quote['link']}/quote.pdf", tmp_path, lang=lang
    )
    flat = " ".join(text.split())
    assert HEADING[lang] in flat
    crossings = _crossings(cloud_quote["plan"], lang)
    assert len(crossings) == 6
    # A sentence wraps in its cell and pdftotext prints the month cell inside its first
    # line: compare without spaces and without the month cells.
    cell = {"en": r"month \d+(\.\d)?", "zh-TW": r"第 \d+(\.\d)? 個月"}[lang]
    squeezed = re.sub(r"\s+", "", re.sub(cell, "", flat))
    for a, b, month in crossings:
        assert re.sub(r"\s+", "", _sentence(lang, a, b)) in squeezed, (a, b)
        assert MONTH[lang].format(m=_month(month, month > 59)) in flat
    # Each crossing's month is also a callout or a marker of the chart above it: the table
    # comes after the chart's title and before the TCO chart's.
    chart = {"en": "Cumulative cost by month", "zh-TW": "每月累計成本"}[lang]
    tco = {"en": "Total cost of ownership by year", "zh-TW": "逐年總持有成本"}[lang]
    assert flat.index(chart) < flat.index(HEADING[lang]) < flat.index(tco)


BASIS = {
    "en": "These months compare the cash paid by the end of each month over 60 months, with "
    "bought hardware kept and resold at book value only in month 60.",
    "zh-TW": "以上月份比較 60 個月間每月底累計支付的金額：自購硬體持續持有，僅於第 60 個月按帳面價值轉售。",
}


def test_the_table_says_it_keeps_the_hardware_the_ways_to_pay_resell(
    client: TestClient, cloud_quote: dict[str, Any], tmp_path: Path
) -> None:
    # QA: a 70B service's ways to pay priced buying for 12 months at NT$2,904,089 (resold at
    # book value in month 12) under hourly rent's NT$4,204,800, while the table said buying
    # is cheaper than hourly rent "from month 21.1" — the five-year view's crossing, the
    # hardware kept (5,426,381 / (350,400 − 93,159) = 21.1). Both are right; the table now
    # says which basis it counts on, on the share page and in the PDF.
    lang = cloud_quote["lang"]
    visitor = TestClient(client.app)
    visitor.cookies.set("lang", lang)
    soup = BeautifulSoup(visitor.get(cloud_quote["link"]).text, "html.parser")
    basis = soup.select_one("p.break-even-basis")
    assert basis is not None and basis.get_text(" ", strip=True).startswith(BASIS[lang])
    text = _pdf_text(visitor, f"{cloud_quote['link']}/quote.pdf", tmp_path, lang=lang)
    assert re.sub(r"\s+", "", BASIS[lang]) in re.sub(r"\s+", "", text)
