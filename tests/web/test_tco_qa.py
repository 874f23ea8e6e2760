"""What QA found on /tco in 中文 and English, each checked on the page a customer sees.

The default configuration: 8× H100 SXM5 for 36 months at 80 % (584 busy hours a month), a
12-month contract, on the shipped price list of 2026-11-01 (app/data/catalog.yaml):
Stratagem Taipei rents 8 GPUs at NT$960/h or NT$350,000/month (12-month tier 20 % off:
NT$280,000); RunPod rents single GPUs at US$2.99/h (× 32 TWD/USD = NT$95.68/h).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.catalog.shipped import shipped_price_book

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
    assert heads[1:] == ["單價(未稅)", "期初支出(未稅)", "期間總額(未稅)"]
    kpi = soup.select(".kpi")[1].get_text(" ", strip=True)
    # 12-month tier: NT$350,000 × (1 − 0.2) = NT$280,000 a month × 36 = NT$10,080,000
    assert kpi == "每月(未稅) NT$280,000 36 個月合計 NT$10,080,000(未稅)"
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
    assert first == "時租,每月 : NT$960/小時 × 每月 584 小時 = 每月 NT$560,640"
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
    soup = BeautifulSoup(
        web.get(f"{TCO}?{query}", headers={"Accept-Language": lang}).text, "html.parser"
    )
    found = {
        li.select_one("a").get_text(strip=True): li.get_text(strip=True).split(":", 1)[1].strip()
        for li in soup.select("ul.errors-summary li")
    }
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
    assert text.startswith("GPU: 目前的價目表沒有 NVIDIA B300 SXM 288GB")
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
        ("zh-TW", 36, "36 個月合約(以 12 個月方案計價)", "36 個月(以 12 個月方案計價)"),
        ("en", 36, "36-month contract at the 12-month rate", "36 months, at the 12-month rate"),
        # 7 months: the 6-month tier, 10 % off: NT$315,000 a month
        ("zh-TW", 7, "7 個月合約(以 6 個月方案計價)", "7 個月(以 6 個月方案計價)"),
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
