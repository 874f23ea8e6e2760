"""Break-evens and TCO years as the planner and /tco show them, on the shipped catalog.

- A break-even made only by the resale of bought hardware is the month of the sale, said as
  such, never a month interpolated across the sale (QA H2: "month 59.4").
- One format for a month on the chart and in the table (QA L5: "Month 19" / "month 19.0").
- A TCO year is the cost of stopping then, bought hardware sold at book value: the chart's
  Buy bar of year 3 is the 36-month Buy total (QA H3).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app import i18n
from app.costs.presenters import break_even_rows

# Llama 3.1 70B served in FP8 to 1,000 users on 16 × H100: the five-year view of QA H2.
PLAN_70B = (
    "/plan?preset=llama-3.1-70b&task=inference&precision=fp8&concurrency=1000&users=1000"
    "&avg_context_tokens=2048&output_tokens=256&deadline_days="
)
# Llama 3.1 70B in BF16 to 2,000 users: 64 × H100 (8 nodes), five years (the resale case).
PLAN_70B_BF16 = (
    "/plan?preset=llama-3.1-70b&task=inference&precision=bf16&concurrency=2000&users=2000"
    "&avg_context_tokens=2048&output_tokens=256&deadline_days="
)
MONTH = {"en": "month {}", "zh-TW": "第 {} 個月"}


def _figure(soup: BeautifulSoup, key: str) -> dict[str, Any]:
    island = soup.select_one(f"script.plotly-figure[data-target='chart-{key}']")
    assert island is not None, key
    return dict(json.loads(island.string or ""))


def _row(rows: list[Any], cls: str) -> Any:
    return next(r for r in rows if cls in (r.get("class") or []))


# --- the presenter ------------------------------------------------------------------------


def test_a_break_even_made_by_the_resale_is_the_month_of_the_sale() -> None:
    i18n.activate("en")
    pairs = [
        # Engine figures of the 70B plan: monthly rent vs buying crosses "at 59.39" only
        # because the hardware is resold in month 60; Lambda vs buying at 18.99.
        {"a": "rent", "b": "buy", "month": 59.38713107026038, "note": "Crosses only because…"},
        {"a": "lambda", "b": "buy", "month": 18.986061261590102, "note": ""},
        {"a": "rent", "b": "lambda", "month": None, "note": ""},
    ]
    names = {"rent": "Monthly rent", "buy": "Buy", "lambda": "Lambda"}
    lambda_row, rent_row = break_even_rows(pairs, names)
    # 18.99 to a tenth is "19", as the chart's callout says it (the table said "month 19.0")
    assert lambda_row["month_text"] == "month 19" and not lambda_row["resale"]
    assert rent_row["month"] == 60 and rent_row["month_text"] == "month 60"
    assert rent_row["qualifier"] == "only through the resale at book value"
    assert rent_row["note"] == (
        "Only through the resale at book value: Buy sells its hardware in month 60; before "
        "that, Monthly rent stays cheaper."
    )


# --- the planner --------------------------------------------------------------------------


def test_the_planner_says_the_resale_break_even_is_month_60_through_the_resale(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # Shipped catalog, 64 × H100 for five years: monthly rent NT$2,800,000 a month is
    # NT$165,200,000 by month 59 and NT$168,000,000 by month 60; buying (8 servers, power
    # for their rating) is NT$174,769,358 by month 59 and NT$176,259,990 by month 60 before
    # the resale of NT$8,320,451 (book value), NT$167,939,539 after it. Buying is dearer in
    # every month but the one it sells in: the break-even is month 60, through the resale —
    # the page said "month 59.4" (QA H2, first found on the 16-GPU FP8 plan).
    soup = get_soup(PLAN_70B_BF16)
    rows = soup.select("table.break-even-months tbody tr")
    resale = _row(rows, "through-resale")
    month_cell = resale.select("td")[-1].get_text(" ", strip=True)
    assert month_cell == MONTH[lang].format(60)
    note = resale.select_one(".note").get_text(" ", strip=True)
    assert "60" in note and ("resale at book value" in note or "按帳面價值轉售" in note)
    assert "59.4" not in soup.select_one("#costs").find_parent().get_text(" ")
    # The chart marks the same month and says why.
    fig = _figure(soup, "cumulative")
    marker = next(tr for tr in fig["data"] if (tr.get("meta") or {}).get("role") == "break_even")
    assert 60 in marker["x"] and not any(59 < x < 60 for x in marker["x"])
    boxes = [a["text"] for a in fig["layout"]["annotations"]]
    assert {"en": "Month 60,<br>resale only", "zh-TW": "第 60 個月，<br>僅因轉售"}[lang] in boxes


def test_a_month_reads_the_same_on_the_chart_and_in_the_table(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    soup = get_soup(PLAN_70B)
    table = {
        r.select("td")[-1].get_text(" ", strip=True)
        for r in soup.select("table.break-even-months tbody tr")
    }
    boxes = [a["text"] for a in _figure(soup, "cumulative")["layout"]["annotations"]]
    pattern = {"en": r"^Month ([\d.,]+)$", "zh-TW": r"^第 ([\d.,]+) 個月$"}[lang]
    months = [m.group(1) for b in boxes if (m := re.match(pattern, b))]
    # Lambda vs buying crosses at 19.73: "Month 19.7" on the chart and in the table (a
    # whole month reads "19", never "19.0": the presenter's test above, at 18.99).
    assert "19.7" in months
    assert all(MONTH[lang].format(m) in table for m in months)


def test_the_utilisation_chart_says_which_crossing_it_marks(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    soup = get_soup(PLAN_70B)
    fig = _figure(soup, "utilization")
    marker = next(tr for tr in fig["data"] if (tr.get("meta") or {}).get("role") == "break_even")
    boxes = [a["text"] for a in fig["layout"]["annotations"] if a.get("name") == "break_even_at"]
    assert len(boxes) == len(marker["x"]) >= 1
    # Each box names its pair as the table names it ("12-month contract = Lambda …").
    pairs = [
        r.select_one("td").get_text(" ", strip=True)
        for r in soup.select("table.break-even-utilization tbody tr")
    ]
    assert len(pairs) > len(boxes)
    for box in boxes:
        pair = " ".join(box.split("<br>")[1:])
        assert pair in pairs, (box, pairs)
    assert soup.find(string=re.compile("table lists every pair|下表列出所有交叉"))


# --- TCO ----------------------------------------------------------------------------------

TCO_REQUEST = {"gpu": "h100-sxm-80gb", "gpu_count": 8, "months": 36, "utilization": 0.8}


def test_tco_year_3_of_buying_is_the_36_month_buy_total(web: TestClient) -> None:
    # /tco defaults on the shipped catalog, each figure rounded once to whole NT$. Buying:
    # NT$9,043,968 + installation 452,198 + network/storage 1,356,595 = NT$10,852,761 up
    # front, then a month of power for the server bought (10.2 kW rated × 584 busy h × PUE
    # 1.58 × NT$4.27/kWh = 40,188.15 → 40,188; seed T7: an 8-GPU server draws over 10 kW) +
    # colocation 63,631.68 → 63,632 + maintenance 69,337.09 → 69,337 + staff 25,000 =
    # 198,157 a month: 10,852,761 + 36 × 198,157 = 17,986,413 by month 36, less the
    # hardware's book value then (NT$10,400,563 × 10 % = 1,040,056.3 → 1,040,056) =
    # 16,946,357 — the Buy row's 36-month total.
    # Year 3 said 17,362,312 (no resale); the resale showed only in year 5.
    body = web.post("/api/v1/costs", json={**TCO_REQUEST, "term_months": 12}).json()
    buy = next(o for o in body["options"] if o["kind"] == "buy")
    assert buy["total"] == 16_946_357
    years = next(c for c in body["tco"] if c["kind"] == "buy")["years"]
    assert years[2]["total"] == pytest.approx(buy["total"], abs=1)
    assert years[2]["residual"] == pytest.approx(-1_040_056, abs=1)
    # Straight line to 10 % over 3 years: after one year 70 %, seven times the 10 % left.
    assert years[0]["residual"] == pytest.approx(7 * years[2]["residual"], rel=1e-6)
    # A year's parts still add up to its total.
    for y in years:
        parts = sum(v for k, v in y.items() if k not in ("year", "total"))
        assert parts == pytest.approx(y["total"])
    # Renting has nothing to sell: year 3 is 36 months of the 12-month contract.
    term = next(c for c in body["tco"] if c["kind"] == "rent_term")["years"]
    assert term[2]["total"] == pytest.approx(36 * 280_000)


def test_the_tco_chart_and_the_buy_row_show_one_3_year_cost(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    soup = get_soup("/tco")
    buy_row = soup.select_one("table.costs-table tr[data-kind='buy'] td.total strong")
    total = int(re.sub(r"\D", "", buy_row.get_text()))
    assert total == 16_946_357
    fig = _figure(soup, "tco")
    diamonds = next(tr for tr in fig["data"] if (tr.get("meta") or {}).get("role") == "total")
    options, years = diamonds["y"]
    year3 = {"en": "Year 3", "zh-TW": "第 3 年"}[lang]
    buy = {"en": "Buy", "zh-TW": "自購"}[lang]
    at = next(
        i for i, (o, y) in enumerate(zip(options, years, strict=True)) if (o, y) == (buy, year3)
    )
    assert diamonds["x"][at] == pytest.approx(total, abs=1)
    basis = soup.select_one("p.tco-basis").get_text(" ", strip=True)
    assert basis.startswith(
        {"en": "Year N is the cost of an N-year need", "zh-TW": "第 N 年"}[lang]
    )


# --- what a row shows multiplies out; how it is worked out is there -----------------------


def _amount(text: str) -> float:
    """ "NT$765.44 per hour" → 765.44; "NT$16,092,611" → 16092611."""
    found = re.search(r"NT\$([\d,]+(?:\.\d+)?)", text)
    assert found is not None, text
    return float(found.group(1).replace(",", ""))


def test_a_rows_unit_price_times_its_quantity_is_its_total(web: TestClient) -> None:
    # /tco defaults (8× H100, 36 months, 80 % = 584 h a month: 21,024 hours billed). RunPod's
    # pods are US$2.99 × 32 = NT$95.68 an hour each, NT$765.44 for 8: the row said "NT$765
    # per hour" beside NT$16,092,611 (765.44 × 21,024 = 16,092,610.56), and 765 × 21,024 is
    # 16,083,360. Each rented or cloud row's price × its billed hours or months is its total.
    soup = BeautifulSoup(web.get("/tco?lang=en").text, "html.parser")
    checked = 0
    for tr in soup.select("table.costs-table tbody tr"):
        if tr["data-kind"] == "buy":
            continue  # amortised over 3 years, resold after the period: its note says how
        billed = tr.select_one("span.billed").get_text(" ", strip=True)
        total = _amount(tr.select_one("td.total strong").get_text())
        quantity = float(
            re.search(r"Billed: ([\d,.]+) (hours|months)", billed).group(1).replace(",", "")
        )
        unit = "per-hour" if "hours" in billed else "per-month"
        price = _amount(tr.select_one(f"td.rate .{unit}").get_text())
        assert round(price * quantity) == pytest.approx(total, abs=0.5), (billed, price, total)
        checked += 1
    runpod = soup.select_one("tr[data-kind='rent_hourly'] + tr[data-kind='rent_monthly']")
    assert checked >= 8 and runpod is not None
    prices = [t.get_text() for t in soup.select("td.rate .per-hour")]
    assert "NT$765.44 per hour" in prices


def test_each_option_shows_how_its_total_is_worked_out(
    web: TestClient, get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # The API gives each option its own explanations (QA M1): the buy row's last one is its
    # total, 16,946,354 (test_tco_year_3_of_buying_is_the_36_month_buy_total), and the resale.
    body = web.post("/api/v1/costs", json={**TCO_REQUEST, "term_months": 12}).json()
    for o in body["options"]:
        assert o["explain"], o["key"]
        total = next(e for e in o["explain"] if e["figure"].endswith(": total"))
        assert total["value"] == pytest.approx(o["total"])
    buy = next(o for o in body["options"] if o["kind"] == "buy")
    resale = next(e for e in buy["explain"] if e["figure"] == "Resale at the end (residual)")
    assert resale["value"] == pytest.approx(-1_040_056, abs=1)
    # The page lists them under the option's name, collapsed, without repeating its label.
    row = get_soup("/tco").select_one("table.costs-table tr[data-kind='buy']")
    summary = row.select_one("details.option-explain summary").get_text(strip=True)
    assert summary == {"en": "How this total is worked out", "zh-TW": "此總額的計算方式"}[lang]
    # named in the page's language (app.costs.wording.FIGURE_LABELS)
    figures = [li.strong.get_text() for li in row.select("details.option-explain li")]
    resale, total = {
        "en": ("Resale value at the end", "Total for the period"),
        "zh-TW": ("期末出售價值", i18n.translations("zh-TW").gettext("Total for the period")),
    }[lang]
    assert resale in figures and total in figures


def test_the_planner_explains_money_in_the_tables_currency(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    # QA L4: the Explain panel said "2,100,000 TWD" beside a cost table in NT$, and a
    # break-even utilisation "0.27 share of 730 h" where /tco says "27% of 730 h a month".
    soup = get_soup(PLAN_70B)
    values = {
        s.select_one(".fig").get_text(" ", strip=True): s.select_one(".num").get_text(
            " ", strip=True
        )
        for s in soup.select("#explain summary")
    }
    assert not [v for v in values.values() if "TWD" in v or "share of 730" in v]
    # The cheapest: 16 H100 as Stratagem's 16-GPU offer, NT$700,000 × (1 − 0.2) = 560,000 a
    # month on the 12-month contract, × 12 months = NT$6,720,000.
    cheapest = {"en": "Cheapest option", "zh-TW": "最便宜的方案"}[lang]
    assert values[cheapest] == "NT$6,720,000"
    shares = [v for f, v in values.items() if f.startswith(("Break-even utilisation", "損益平衡"))]
    share = {"en": r"\d+% of 730 h a month", "zh-TW": r"每月 730 小時的 \d+%"}[lang]
    assert shares and all(re.fullmatch(share, v) for v in shares), shares


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "Prices effective Nov 1, 2026"), ("zh-TW", "價格自 2026年11月1日起生效")],
)
def test_tco_names_the_price_list_by_its_date_to_a_visitor(
    web: TestClient, lang: str, said: str
) -> None:
    # /tco is public: the cost table's heading says which prices by their date, in the
    # page's language, not by the catalog admin's English label "2026-11 list".
    soup = BeautifulSoup(web.get("/tco", headers={"Accept-Language": lang}).text, "html.parser")
    head = soup.select_one("#costs .card-head")
    assert head is not None and said in head.get_text(" ", strip=True)
    assert "2026-11 list" not in head.get_text()


def test_a_job_of_hours_says_what_the_five_year_view_pictures(
    get_soup: Callable[..., BeautifulSoup], lang: str
) -> None:
    """QA: a 4-day L40S job charted NT$160M over 60 months under a caption that "the cheapest
    option stays cheapest", while the table's cheapest (on demand, for the job) was not the
    chart's lowest line. The card now says what the view pictures, and the caption speaks of
    the chart's lines."""
    job = get_soup("/plan?model_source=preset&preset=llama-3.1-8b&task=lora&tokens=2e7")
    note = job.select_one("#cum-heading ~ .one-off-job")
    assert note is not None
    words = {"en": "the job itself takes", "zh-TW": "這項工作本身只需"}[lang]
    assert words in note.get_text()
    service = get_soup("/plan?model_source=preset&preset=llama-3.1-8b&task=inference")
    assert service.select_one(".one-off-job") is None


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "per month, amortised over 36 months"), ("zh-TW", "（攤提 36 個月）")],
)
def test_buyings_rate_says_the_months_it_is_amortised_over(
    web: TestClient, lang: str, said: str
) -> None:
    """QA: /tco for 12 months showed Buy at "NT$470,732.06 per month, amortised" beside a
    12-month total of NT$5,950,250, and 12 × 470,732.06 = 5,648,785: the rate spreads the
    hardware over the 3-year amortisation (seed 003 T9, the shipped buy parameters), the
    total resells it after 12 months. The rate says its months."""
    q = "gpu=h100-sxm-80gb&gpu_count=8&months=12&utilization=80&term_months=12"
    body = web.post(
        "/api/v1/costs",
        json={**TCO_REQUEST, "months": 12, "term_months": 12},
    ).json()
    buy = next(o for o in body["options"] if o["kind"] == "buy")
    assert buy["amortisation_months"] == 36 and buy["held_months"] == 12
    soup = BeautifulSoup(web.get(f"/tco?{q}&lang={lang}").text, "html.parser")
    rate = soup.select_one("table.costs-table tr[data-kind='buy'] td.rate .per-month")
    assert rate is not None and said in rate.get_text(), rate


def test_a_contract_is_billed_by_the_whole_month_as_monthly_rent_is(web: TestClient) -> None:
    """QA: for a 2.5-month need on 1 × H100 (seed 003 T8: NT$50,000 a month), monthly rent
    billed 3 whole months = NT$150,000 while the 1-month contract (its 0 % tier) billed
    "2.5 months" = NT$125,000 — a contract cannot be half a month. Both bill 3 months."""
    body = web.post(
        "/api/v1/costs",
        json={"gpu": "h100-sxm-80gb", "gpu_count": 1, "months": 2.5, "utilization": 0.3,
              "term_months": 1},
    ).json()  # fmt: skip
    by_kind = {o["kind"]: o for o in body["options"] if o["key"].endswith("stratagem-tpe-h100-x1")}
    monthly, term = by_kind["rent_monthly"], by_kind["rent_term"]
    assert monthly["billed"]["quantity"] == term["billed"]["quantity"] == 3
    assert monthly["total"] == pytest.approx(3 * 50_000)
    assert term["total"] == pytest.approx(3 * term["monthly_rate"]) == pytest.approx(150_000)
    assert (
        term["note"] == "The contract is billed by whole months: 3 for a 2.5-month rental period."
    )
