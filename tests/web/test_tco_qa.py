"""What QA found on /tco in 中文 and English, each checked on the page a customer sees.

The default configuration: 8× H100 SXM5 for 36 months at 80 % (584 busy hours a month), a
12-month contract, on the shipped price list of 2026-11-01 (app/data/catalog.yaml):
Stratagem Taipei rents 8 GPUs at NT$960/h or NT$350,000/month (12-month tier 20 % off:
NT$280,000); RunPod rents single GPUs at US$2.99/h (× 32 TWD/USD = NT$95.68/h).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app import i18n
from app.catalog.shipped import shipped_price_book
from app.costs import wording
from app.costs.presenters import PART_NAMES
from app.web.notices import notice_text

TCO = "/tco"
HAN = re.compile(r"[\u4e00-\u9fff]")


def _results(soup: BeautifulSoup) -> str:
    return soup.select_one("#results").get_text(" ", strip=True)


# --- 1. no internal ids, enum values or rule numbers -------------------------------------


def test_no_entry_id_rule_number_or_part_key_anywhere_in_the_results(
    get_soup: Callable[..., BeautifulSoup],
) -> None:
    book = shipped_price_book()
    ids = [o.id for o in book.offers] + [s.id for s in book.servers] + [c.id for c in book.cloud]
    ids += [e.id for e in book.energy]
    text = _results(get_soup(TCO))
    assert not [i for i in ids if i in text]
    internal = re.compile(
        r"seed 003|種子文件|\bT\d{1,2}\b|PRODUCT\.md|§|storage_network|gpu_8x_|price list '"
    )
    assert not internal.findall(text)


def test_lambda_is_named_by_its_gpus(get_soup: Callable[..., BeautifulSoup]) -> None:
    """Lambda's instance type gpu_8x_h100_sxm5 is 8 H100 SXM5 80GB (catalog.yaml)."""
    soup = get_soup(TCO)
    details = [el.get_text(" ", strip=True) for el in soup.select("table.costs-table th .muted")]
    assert any(d.startswith("Lambda 8× H100 SXM5 80GB") for d in details)


# --- 2. every amount says what it is, excluding tax, whole NT$ ---------------------------


def test_chinese_page_says_excluding_tax_on_the_table_and_the_kpi(web: TestClient) -> None:
    soup = BeautifulSoup(web.get(TCO, headers={"Accept-Language": "zh-TW"}).text, "html.parser")
    heads = [th.get_text(strip=True) for th in soup.select("table.costs-table thead th")]
    assert heads[1:] == ["單價（未稅）", "期初支出（未稅）", "期間總額（未稅）"]
    kpi = soup.select(".kpi")[1].get_text(" ", strip=True)
    # 12-month tier: NT$350,000 × (1 − 0.2) = NT$280,000 a month × 36 = NT$10,080,000
    assert kpi == "每月（未稅） NT$280,000 36 個月合計 NT$10,080,000（未稅）"
    assert _results(soup).count("未稅") >= 5


def test_a_rate_keeps_its_cents_only_where_it_has_them(web: TestClient) -> None:
    """QA asked for whole NT$ ("每月 NT$447,016.96"). A rate is what multiplies out to the
    row's total, so it keeps its cents where it has them: RunPod hourly, 8 × NT$95.68 =
    NT$765.44/h × 584 h = NT$447,016.96 a month; NT$447,017 × 36 would miss the total by
    NT$1.44. A whole rate shows none (NT$560,640 = NT$960/h × 584 h)."""
    soup = BeautifulSoup(web.get(TCO, headers={"Accept-Language": "zh-TW"}).text, "html.parser")
    rates = [td.get_text(" ", strip=True) for td in soup.select("table.costs-table td.rate")]
    assert "每小時 NT$765.44 每月 NT$447,016.96" in rates
    assert "每小時 NT$960 每月 NT$560,640" in rates


# --- 3. "how this total is reached" and the Explain panel in the page's language --------


def test_option_formulas_and_explain_panel_are_in_chinese(web: TestClient) -> None:
    soup = BeautifulSoup(web.get(TCO, headers={"Accept-Language": "zh-TW"}).text, "html.parser")
    assert not soup.select("#results [lang=en]")
    first = soup.select("table.costs-table .option-explain li")[0].get_text(" ", strip=True)
    # NT$960/h × 584 h = NT$560,640 a month
    assert first == "時租，每月 ： NT$960/小時 × 每月 584 小時 = 每月 NT$560,640"
    buy = soup.select_one('table.costs-table tr[data-kind="buy"] .option-explain').get_text()
    for english in ("Installation and integration", "Servers", "per month", "residual"):
        assert english not in buy
    assert "安裝與整合" in buy
    panel = soup.select_one("#results .explain")
    busy = panel.select_one("details").get_text(" ", strip=True)
    assert "730 小時 × 0.8 = 每月 584 小時" in busy  # 730 × 0.8 = 584
    like = [d.get_text(" ", strip=True) for d in panel.select("details") if "同規格" in d.text]
    assert like and all("like for like" not in t for t in like)
    sources = [p.get_text(" ", strip=True) for p in panel.select(".source")]
    assert all(HAN.search(s) for s in sources)


def test_english_formulas_read_as_before_without_ids(web: TestClient) -> None:
    soup = BeautifulSoup(web.get(TCO, headers={"Accept-Language": "en"}).text, "html.parser")
    items = [li.get_text(" ", strip=True) for li in soup.select(".option-explain li")]
    assert "Hourly rent, per month : NT$960/h × 584 h/month = NT$560,640/month" in items
    term = next(i for i in items if i.startswith("12-month contract rent"))
    # NT$350,000 × (1 − 0.2) = NT$280,000
    assert term.endswith("NT$350,000 × (1 − 0.2) = NT$280,000/month (12-month tier, 20% off)")


# --- 4. field errors ----------------------------------------------------------------------


def _error_summary(web: TestClient, lang: str, query: str) -> tuple[BeautifulSoup, dict[str, str]]:
    """/tco?query in `lang`, and its error summary: {field as labelled: message}, in order."""
    soup = BeautifulSoup(
        web.get(f"{TCO}?{query}", headers={"Accept-Language": lang}).text, "html.parser"
    )
    found = {
        li.select_one("a").get_text(strip=True): re.split(
            "[:：]", li.get_text(strip=True), maxsplit=1
        )[1].strip()
        for li in soup.select("ul.errors-summary li")
    }
    return soup, found


@pytest.mark.parametrize(
    ("lang", "query", "expected"),
    [
        ("zh-TW", "gpu_count=0", {"GPU 數量": "至少須為 0.01。"}),
        ("zh-TW", "utilization=150", {"使用率": "最多為 100。"}),
        ("en", "utilization=150", {"Utilisation": "Must be at most 100."}),
        ("zh-TW", "gpu_count=&months=", {"GPU 數量": "此欄位必填。", "需要的月數": "此欄位必填。"}),
    ],
)
def test_error_summary_names_fields_by_their_labels(
    web: TestClient, lang: str, query: str, expected: dict[str, str]
) -> None:
    soup, found = _error_summary(web, lang, query)
    assert found == expected
    assert not soup.select("table.costs-table")  # a blank field is never priced as a default


def test_unpriced_gpu_is_not_offered_and_is_refused_by_name(web: TestClient) -> None:
    soup = BeautifulSoup(web.get(TCO, headers={"Accept-Language": "zh-TW"}).text, "html.parser")
    offered = [o["value"] for o in soup.select("#f-gpu option")]
    assert "h100-sxm-80gb" in offered and "b300-sxm-288gb" not in offered
    soup = BeautifulSoup(
        web.get(f"{TCO}?gpu=b300-sxm-288gb", headers={"Accept-Language": "zh-TW"}).text,
        "html.parser",
    )
    (item,) = soup.select("ul.errors-summary li")
    text = item.get_text(strip=True)
    assert text.startswith("GPU：目前的價目表沒有 NVIDIA B300 SXM 288GB")
    assert text.endswith("請改選其他 GPU。") and "gpu_id" not in text


def test_api_refusal_names_the_field_the_client_sent(web: TestClient) -> None:
    r = web.post("/api/v1/costs", json={"gpu": "b300-sxm-288gb"})
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "gpu"]
    assert "B300" in detail["msg"] and "gpu_id" not in detail["msg"]


# --- 5. contract lengths ------------------------------------------------------------------


def test_term_choices_are_the_price_lists_tiers(web: TestClient) -> None:
    soup = BeautifulSoup(web.get(TCO, headers={"Accept-Language": "zh-TW"}).text, "html.parser")
    assert [o["value"] for o in soup.select("#f-term_months option")] == ["1", "3", "6", "12"]


@pytest.mark.parametrize(
    ("lang", "term", "name", "choice"),
    [
        # 36 months on a list whose longest tier is 12: NT$280,000 a month (12-month rate)
        ("zh-TW", 36, "36 個月合約（以 12 個月方案計價）", "36 個月（以 12 個月方案計價）"),
        ("en", 36, "36-month contract at the 12-month rate", "36 months, at the 12-month rate"),
        # 7 months: the 6-month tier, 10 % off: NT$315,000 a month
        ("zh-TW", 7, "7 個月合約（以 6 個月方案計價）", "7 個月（以 6 個月方案計價）"),
    ],
)
def test_a_term_the_list_lacks_is_labelled_with_the_rate_it_is_priced_at(
    web: TestClient, lang: str, term: int, name: str, choice: str
) -> None:
    soup = BeautifulSoup(
        web.get(f"{TCO}?term_months={term}", headers={"Accept-Language": lang}).text,
        "html.parser",
    )
    assert soup.select_one("#f-term_months option[selected]").get_text(strip=True) == choice
    row = soup.select_one('table.costs-table tr[data-kind="rent_term"]')
    assert row.select_one("th").contents[0].strip() == name
    monthly = row.select_one(".per-month").get_text(strip=True)
    assert monthly == ("每月 NT$280,000" if term == 36 else "每月 NT$315,000") or lang == "en"


# --- 6. amounts and numbers never run together (ASCII comma after a number) --------------

PO = Path(__file__).resolve().parents[2] / "app/locale/zh_Hant_TW/LC_MESSAGES/tco.po"
#: A run of digits and commas that is no number with thousands separators: two figures read
#: as one ("NT$10,080,000,36 個月合計" is NT$10,080,000 and 36 months).
NUMBER_RUN = re.compile(r"\d[\d,]*\d")
GROUPED = re.compile(r"\d{1,3}(?:,\d{3})*|\d+")


def _run_together(text: str) -> list[str]:
    return [m for m in NUMBER_RUN.findall(text) if not GROUPED.fullmatch(m)]


def test_no_msgstr_puts_an_ascii_comma_straight_after_a_placeholder() -> None:
    """A placeholder is an amount or a count: "%(total)s," printed "NT$10,080,000,36"."""
    with PO.open("rb") as fh:
        catalog = read_po(fh, locale="zh_Hant_TW")
    bad = [
        m.string
        for m in catalog
        if m.id and isinstance(m.string, str) and re.search(r"%\(\w+\)s,(?! )", m.string)
    ]
    assert not bad


def test_cheapest_option_total_and_its_period_are_apart(web: TestClient) -> None:
    soup = BeautifulSoup(web.get(TCO, headers={"Accept-Language": "zh-TW"}).text, "html.parser")
    panel = soup.select_one("#results .explain").get_text(" ", strip=True)
    # 12-month contract: NT$280,000 × 36 months = NT$10,080,000
    assert "NT$10,080,000，36 個月合計（未稅）" in panel
    assert not _run_together(_results(soup))


# --- 7. every notice and name in customer words -------------------------------------------


@pytest.mark.parametrize(
    ("query", "zh", "en"),
    [
        # RunPod rents L4s by the hour and the month only: no term tiers at all
        (
            "gpu=l4-24gb&gpu_count=1&months=36&utilization=80&term_months=12",
            "RunPod 不提供長約方案，因此不顯示長約租金。",
            "RunPod offers no term contracts; no term rent shown.",
        ),
        # 1 month < 10 weeks' delivery (2.3 months) + 3 months
        (
            "gpu=h100-sxm-80gb&gpu_count=8&months=1",
            "此期間不划算：1 個月短於 2.3 個月的交貨期再加 3 個月，即自購列入比較的最短持有期間。",
            "Not economical for this period: 1 month is shorter than the 2.3-month delivery "
            "plus 3 months, the shortest period for which buying is compared.",
        ),
        # Lambda gpu_8x_a100 is 8 A100 SXM4 40GB; its price is dated 2025-01-01
        (
            "gpu=a100-sxm-40gb&gpu_count=8&months=36",
            "Lambda 8× A100 SXM4 40GB 的價格日期為 2025-01-01",
            "Lambda 8× A100 SXM4 40GB price is dated 2025-01-01",
        ),
        # 3 GPUs are bought as the catalog's 4-GPU server, named in the page's language
        # (QA read "4-GPU H100 NVLink server" on a 中文 buy row)
        (
            "gpu=h100-sxm-80gb&gpu_count=3&months=36",
            "4 卡 H100 NVLink 伺服器",
            "4-GPU H100 NVLink server",
        ),
    ],
)
def test_notices_and_servers_name_no_entry_rule_or_enum(
    web: TestClient, query: str, zh: str, en: str
) -> None:
    for lang, expected in (("zh-TW", zh), ("en", en)):
        soup = BeautifulSoup(
            web.get(f"{TCO}?{query}", headers={"Accept-Language": lang}).text, "html.parser"
        )
        text = _results(soup)
        assert expected in text, lang
        assert not INTERNAL.findall(text), lang
        assert not soup.select("#results [lang=en]") or lang == "en"


@pytest.mark.parametrize(
    ("name", "zh", "en"),
    [
        # The shipped 8-GPU server's note sits beside a word the customer may read.
        ("8-GPU HGX H100 server (Taiwan purchase, seed 003 T9)",
         "8 卡 HGX H100 伺服器（台灣採購）", "8-GPU HGX H100 server (Taiwan purchase)"),
        ("1-GPU H100 PCIe server (seed 003 entry template)",
         "1 卡 H100 PCIe 伺服器", "1-GPU H100 PCIe server"),
        # A product's name, and any other parenthesis, stand as written.
        ("HGX H100 8-GPU OEM server (Dell PowerEdge XE9680 class)",
         "HGX H100 8-GPU OEM server (Dell PowerEdge XE9680 class)",
         "HGX H100 8-GPU OEM server (Dell PowerEdge XE9680 class)"),
    ],
)  # fmt: skip
def test_a_server_is_named_without_seed_rules_in_the_readers_language(
    name: str, zh: str, en: str
) -> None:
    """QA: the catalog's "(Taiwan purchase, seed 003 T9)" kept its seed rule (only a
    parenthesis that began with "seed" was dropped), and a 中文 buy row read "4-GPU H100
    NVLink server"."""
    from app.costs.wording import scrub, server_name

    for lang, expected in (("zh-TW", zh), ("en", en)):
        i18n.activate(lang)
        assert server_name(name) == expected
    # A formula's own parentheses are not notes: "(NT$10,045 − NT$0)" keeps its comma.
    assert scrub("(NT$10,045 − NT$0) / (NT$10,045 − NT$0) = 1", None) == (
        "(NT$10,045 − NT$0) / (NT$10,045 − NT$0) = 1"
    )


def test_a_term_tier_list_is_said_in_months() -> None:
    """An offer with tiers, none short enough: its contracts are listed, never as "none"."""
    book = shipped_price_book()
    offer = next(o for o in book.offers if o.term_discounts)
    pair = {
        "template": "No contract tier of %(term)s months or less for %(offers)s (tiers: "
        "%(tiers)s); no term rent shown.",
        "params": {"term": "1", "offers": offer.id, "tiers": "3, 6, 12"},
    }
    i18n.activate("zh-TW")
    try:
        zh = str(notice_text(wording.customer_notice(pair, {}, book)))
    finally:
        i18n.activate("en")
    en = str(notice_text(wording.customer_notice(pair, {}, book)))
    assert (
        zh
        == f"{offer.provider} 沒有 1 個月以內的合約方案（可選合約：3、6、12 個月），因此不顯示長約租金。"
    )
    assert en == (
        f"{offer.provider} offers no contract of 1 month or less (its contracts: 3, 6, 12 "
        "months); no term rent shown."
    )


# --- 8. formulas: singular months, USD pages, no English inside a translated one ----------


@pytest.mark.parametrize(
    ("formula", "zh"),
    [
        ("NT$25,000/month (over 1 month: NT$25,000)", "每月 NT$25,000（1 個月合計 NT$25,000）"),
        (
            "1 month: the need, as no rental period was given; job mode: hourly options bill "
            "the job's hours, monthly ones whole months",
            "1 個月：未另指定租期，即所需月數；工作計價：按小時的方案計工作時數，按月的方案計整月",
        ),
        (
            "8 × US$0.52/h × 730 h (paid whether used or not) = US$3,060/month for 12 months",
            "8 × 每小時 US$0.52 × 730 小時（不論使用與否皆計費） = 每月 US$3,060，共 12 個月",
        ),
        # Two offers' hourly prices: the catch-all "{rate} = {total}/month" once took it and
        # left "h/month" in a formula marked translated.
        # One GPU: its pattern's one form says "GPUs"; English keeps the engine's "1 GPU"
        # (QA read "(1 GPUs, 1 node)").
        (
            "NT$120/h × 548 h billed = NT$65,760 (1 GPU, 1 node)",
            "NT$120/小時 × 計費 548 小時 = NT$65,760（1 張 GPU，1 個節點）",
        ),
        (
            "(NT$240/h + NT$120/h) × 36.5 h/month = NT$13,140/month",
            "(NT$240/小時 + NT$120/小時) × 每月 36.5 小時 = 每月 NT$13,140",
        ),
        (
            "1 TWD = 0.03125 USD, the price list's rate of 2026-11-01 (1 USD = 32 TWD): every "
            "TWD price here is shown in USD at it",
            "1 新台幣 = 0.03125 美元，價目表 2026-11-01 的匯率（1 美元 = 32 新台幣）："
            "本頁所有新台幣價格皆以此換算為美元",
        ),
    ],
)
def test_formulas_are_translated_in_full(formula: str, zh: str) -> None:
    book = shipped_price_book()
    i18n.activate("zh-TW")
    try:
        assert wording.formula_text(formula, book, PART_NAMES) == (zh, True)
    finally:
        i18n.activate("en")
    assert wording.formula_text(formula, book, PART_NAMES) == (formula, True)


def test_a_formula_with_words_in_a_placeholder_stays_english_and_says_so() -> None:
    i18n.activate("zh-TW")
    try:
        text, translated = wording.formula_text(
            "NT$1 per widget = NT$1/month", shipped_price_book(), PART_NAMES
        )
    finally:
        i18n.activate("en")
    assert (text, translated) == ("NT$1 per widget = NT$1/month", False)


# --- 9. a blank required field is never priced --------------------------------------------


@pytest.mark.parametrize(
    ("lang", "query", "expected"),
    [
        ("zh-TW", "utilization=", {"使用率": "此欄位必填。"}),
        ("en", "utilization=", {"Utilisation": "This field is required."}),
        (
            "zh-TW",
            "term_months=&utilization=",
            {"使用率": "此欄位必填。", "合約期間": "此欄位必填。"},
        ),
        (
            "en",
            "term_months=&gpu_count=",
            {
                "GPU count": "This field is required.",
                "Contract term": "This field is required.",
            },
        ),
    ],
)
def test_blank_utilisation_or_term_is_required(
    web: TestClient, lang: str, query: str, expected: dict[str, str]
) -> None:
    soup, found = _error_summary(web, lang, query)
    assert found == expected
    assert list(found) == list(expected)  # in the form's order
    assert not soup.select("table.costs-table")
    if "term_months=" in query:  # the field shows the blank, not its first length
        (chosen,) = soup.select("#f-term_months option[selected]")
        assert chosen["value"] == ""
    else:
        assert soup.select_one("#out-utilization").get_text(strip=True) == "—"


# --- 10. acceptance: a grid of configurations, each 中文 page checked --------------------

GRID_GPUS = (
    "l4-24gb", "l40s-48gb", "a100-sxm-40gb", "h100-sxm-80gb", "h200-sxm-141gb", "b200-sxm-180gb"
)  # fmt: skip
GRID = (
    ("gpu_count", ("0.25", "1", "3", "8", "16")),
    ("months", ("1", "6", "36")),
    ("utilization", ("10", "80", "100")),
    ("term_months", ("1", "3", "6", "12")),
)
#: Seed rules, the product spec, raw enum values, Lambda's API names, price-list ids.
INTERNAL = re.compile(
    r"seed 0|種子文件|\bT\d{1,2}\b|PRODUCT\.md|\bnone\b|gpu_\d+x_|"
    r"\b(?:runpod|stratagem|aws|azure|gcp|lambda|coreweave)-[a-z0-9-]+"
)
NUMBER = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?")


def _grid() -> list[tuple[dict[str, str], str]]:
    """64 configurations, each value of each field at least once, TWD and USD."""
    rng = random.Random(2026)
    out = []
    for i in range(64):
        q = {"gpu": GRID_GPUS[i % len(GRID_GPUS)]}
        for k, (name, values) in enumerate(GRID):
            q[name] = values[(i + k * rng.randrange(5)) % len(values)]
        out.append((q, ("TWD", "USD")[(i // len(GRID_GPUS)) % 2]))
    return out


def _formulas(soup: BeautifulSoup) -> list[tuple[str, str | None]]:
    spans = soup.select("table.costs-table .option-explain li > span, #results .explain .formula")
    return [(el.get_text(" ", strip=True), el.get("lang")) for el in spans]


def test_grid_of_configurations_on_the_chinese_page(web: TestClient) -> None:
    book = shipped_price_book()
    ids = [o.id for o in book.offers] + [s.id for s in book.servers] + [c.id for c in book.cloud]
    ids += [e.id for e in book.energy]
    grid = _grid()
    for name, values in GRID:
        assert {q[name] for q, _ in grid} == set(values), name
    assert {q["gpu"] for q, _ in grid} == set(GRID_GPUS) and {c for _, c in grid} == {"TWD", "USD"}
    priced = 0
    for query, currency in grid:
        web.cookies.set("currency", currency)
        pages = {
            lang: BeautifulSoup(
                web.get(TCO, params=query, headers={"Accept-Language": lang}).text, "html.parser"
            )
            for lang in ("zh-TW", "en")
        }
        zh, en = pages["zh-TW"], pages["en"]
        where = (query, currency)
        if not zh.select("table.costs-table"):
            continue  # refused (e.g. a count no option can rent): nothing priced to check
        priced += 1
        text = _results(zh)
        assert not zh.select("#results [lang=en]"), where
        assert not [i for i in ids if i in text], where
        assert not INTERNAL.findall(text), where
        assert not _run_together(text), where
        assert not INTERNAL.findall(_results(en)), where
        zh_formulas, en_formulas = _formulas(zh), _formulas(en)
        assert len(zh_formulas) == len(en_formulas), where
        for (said, lang), (english, _lang) in zip(zh_formulas, en_formulas, strict=True):
            if lang is None:  # translated: the same numbers, none lost, none added
                assert sorted(NUMBER.findall(said)) == sorted(NUMBER.findall(english)), (
                    where,
                    english,
                    said,
                )
    assert priced >= 60


def test_a_long_field_is_read_whole_not_cut(web: TestClient) -> None:
    # QA (silent truncation): every /tco field was cut to 40 characters, so 80 GPUs typed
    # as 41 characters ("000…080") were priced as 8, without a word.
    count = "0" * 39 + "80"
    page = BeautifulSoup(web.get("/tco", params={"gpu_count": count}).text, "html.parser")
    assert page.select_one("#f-gpu_count")["value"] == count
    cheapest = page.select_one(".kpi").get_text(" ", strip=True)
    assert "80× H100" in cheapest, cheapest


@pytest.mark.parametrize(
    ("currency", "said"),
    # The shipped list's rate: 1 USD = 32 TWD (app/data/catalog.yaml); in US$ it is
    # 1 / 32 = 0.03125 USD per TWD, which "US$0.03/TWD" rounded to the cent.
    [("TWD", "US$1 = NT$32"), ("USD", "NT$1 = US$0.03125")],
)
def test_the_exchange_rate_is_said_in_full_not_as_money(
    web: TestClient, currency: str, said: str
) -> None:
    web.cookies.set("currency", currency)
    page = BeautifulSoup(web.get(TCO, headers={"Accept-Language": "en"}).text, "html.parser")
    rows = [s for s in page.select("summary") if "Exchange rate" in s.get_text()]
    assert len(rows) == 1
    assert rows[0].select_one(".num").get_text(strip=True) == said
