"""/compare and the plan's summary describe what each plan's quote quotes, not the plan's
cheapest option (QA, 國立成功大學's AI lab, which wants to buy its GPUs).

The tester's scenario: Llama 3.1 70B QLoRA, BF16, seq 2,048, 0.5 GB × 3 epochs, a 14-day
deadline, 60% utilisation, 36 months on 4 × H100 priced as capacity. Plan A quotes buying the
4-GPU server (3% off the line, 2% off the quote); plan B, a duplicate, the 36-month rent. The
compare page said 「期間總額 NT$5,760,000 最便宜」 — the 36-month rent — for both, drew both as
the same rent curve and put buying's break-even against a public cloud's 8-GPU instance
(「第 15.9 個月」): a procurement officer read buying as NT$570k cheaper when its 36 months cost
about NT$3M more than the rent.

Every expected figure is recomputed here by hand from the plan's own stored figures (its
price list's, 2026-11); the tester's figures are written beside them.
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from tests.accounts.helpers import Account, make_account, sign_in

SCENARIO: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "task": "qlora",
    "precision": "bf16",
    "seq_len": 2048,
    "dataset_gb": 0.5,
    "epochs": 3,
    "deadline_days": 14,
    "utilization": 0.6,
    "term_months": 36,
    "gpu": "h100-sxm-80gb",
    "gpu_count": 4,
    "pricing_mode": "capacity",
}
BUY = "buy:h100-4gpu-nvlink-server"
TERM = "rent_term:stratagem-tpe-h100-x4"
MONTHLY = "rent_monthly:stratagem-tpe-h100-x4"
#: Power, colocation, maintenance and operations staff: what owning the server costs while
#: it is held (app.engine.costs.ownership); capex, storage_network and residual are not.
RUNNING_PARTS = ("power", "facility", "maintenance", "staff")


def whole(x: Decimal) -> Decimal:
    return x.quantize(Decimal(1), rounding=ROUND_HALF_UP)


def nt(x: float | Decimal) -> str:
    return f"NT${whole(Decimal(str(x))):,}"


@pytest.fixture(scope="module")
def plans(client: TestClient) -> dict[str, Any]:
    """Plan A quoting the purchase, plan B the 36-month rent, plan C nothing yet."""
    who = make_account(client, "sales")
    made = {}
    for key, quote in (
        ("A", {"lines": [{"option_key": BUY, "discount_pct": 3}], "discount_pct": 2}),
        ("B", {"lines": [{"option_key": TERM}]}),
        ("C", {"lines": []}),
    ):
        r = client.post(
            "/api/v1/plans",
            json={"name": f"成大 70B QLoRA {key}", "workload": SCENARIO, "quote": quote},
            headers=who.headers,
        )
        assert r.status_code == 201, r.text
        made[key] = r.json()
    return {"who": who, **made}


def option(plan: dict[str, Any], key: str) -> dict[str, Any]:
    return next(o for o in plan["result"]["cost"]["options"] if o["key"] == key)


def buying_by_hand(plan: dict[str, Any]) -> dict[str, Decimal]:
    """A's purchase from its stored option: up front, resale, running costs a month, and
    the 36 months' cost of ownership = up front − resale + running costs × 36."""
    buy = option(plan, BUY)
    parts = {k: Decimal(str(v)) for k, v in buy["breakdown"].items()}
    months = Decimal(str(buy["held_months"]))
    running = sum(parts[k] for k in RUNNING_PARTS)
    per_month = whole(running / months)
    upfront = Decimal(str(buy["upfront"]))
    resale = -parts["residual"]
    return {
        "months": months,
        "upfront": upfront,
        "resale": resale,
        "per_month": per_month,
        "running": per_month * months,
        "ownership": upfront - resale + per_month * months,
    }


def quote_total_by_hand(upfront: Decimal) -> Decimal:
    """The line 3% off, rounded; the quote 2% off, rounded; + 5% 營業稅, rounded."""
    line = whole(upfront * Decimal("0.97"))
    subtotal = line - whole(line * Decimal("0.02"))
    return subtotal + whole(subtotal * Decimal("0.05"))


def page_of(client: TestClient, who: Account, path: str, lang: str = "en") -> BeautifulSoup:
    pages = TestClient(client.app)
    sign_in(pages, who.user)
    r = pages.get(path, headers={"Accept-Language": lang})
    assert r.status_code == 200, r.text
    return BeautifulSoup(r.text, "html.parser")


def cells(page: BeautifulSoup, row: str) -> list[str]:
    tr = page.select_one(f"table.compare-table tr.{row}")
    assert isinstance(tr, Tag), row
    return [" ".join(td.get_text(" ", strip=True).split()) for td in tr.select("td")]


def test_the_hand_arithmetic_matches_the_testers_figures(plans: dict[str, Any]) -> None:
    a = buying_by_hand(plans["A"])
    # 5,426,381 − 520,028 + 106,556 × 36 = 8,742,369, the engine's own total for buying
    assert (a["upfront"], a["resale"], a["per_month"]) == (5_426_381, 520_028, 106_556)
    assert a["ownership"] == 8_742_369 == Decimal(str(option(plans["A"], BUY)["total"]))
    assert Decimal(plans["A"]["quote_totals"]["total"]) == quote_total_by_hand(a["upfront"])
    assert Decimal(plans["B"]["quote_totals"]["total"]) == 160_000 * 36 * Decimal("1.05")


def test_compare_columns_describe_what_each_plans_quote_quotes(
    client: TestClient, plans: dict[str, Any]
) -> None:
    a = buying_by_hand(plans["A"])
    rent = option(plans["B"], TERM)
    ids = ",".join(str(plans[k]["id"]) for k in "ABC")
    page = page_of(client, plans["who"], f"/compare?ids={ids}")

    rate = cells(page, "rate-row")
    assert rate[0].startswith(f"{nt(a['upfront'])} up front")
    assert f"running costs {nt(a['per_month'])} per month, not in the quote" in rate[0]
    assert "Quoted: Buy" in rate[0]
    assert rate[1].startswith(f"{nt(rent['monthly_rate'])} per month")  # NT$160,000
    assert "Cheapest option" in rate[2] and "nothing quoted yet" in rate[2]

    # The period total is the quoted option's: buying's 36 months, not the cheapest rent.
    total = cells(page, "total-row")
    assert total[0].startswith(nt(a["ownership"]))  # NT$8,742,369, not NT$5,760,000
    assert "cost of owning it for 36 months" in total[0]
    assert (
        f"{nt(a['upfront'])} up front − {nt(a['resale'])} resale value at the end + "
        f"{nt(a['running'])} running costs over 36 months"
    ) in total[0]
    ratio = (a["ownership"] / Decimal(str(rent["total"]))).quantize(Decimal("0.01"))
    assert f"{ratio}× the cheapest" in total[0]  # 8,742,369 / 5,760,000 = 1.52
    assert "Cheapest" not in total[0]
    assert total[1].startswith(nt(rent["total"])) and "total for 36 months" in total[1]
    assert total[1].endswith("Cheapest")

    # What the quote asks is the up-front price; the running costs are said to be outside it.
    quoted = cells(page, "quote-row")
    assert quoted[0].startswith(nt(quote_total_by_hand(a["upfront"])))  # NT$5,416,234
    assert "paid once, up front" in quoted[0]
    assert f"Running costs are not in the quote: {nt(a['running'])} over 36 months." in quoted[0]
    assert quoted[1].startswith("NT$6,048,000") and "for 36 months" in quoted[1]
    assert quoted[2] == "No quote lines yet"

    # The plan's cheapest is shown as the alternative it is, never as what is quoted.
    alternative = cells(page, "alternative-row")
    assert alternative[0].startswith(f"{nt(rent['total'])} · total for 36 months")
    assert alternative[1] == "The quoted option is the plan's cheapest."

    # Buying against the seller's own rent, from the engine's five-year break-evens:
    # A against NT$200,000 a month: 5,426,381 / (200,000 − 106,556) = 58.1 months, after its
    # 36; B against its own NT$160,000: 5,426,381 / (160,000 − 106,556) = 101.5 > 60 months.
    monthly = Decimal(str(option(plans["A"], MONTHLY)["monthly_rate"]))
    month = (a["upfront"] / (monthly - a["per_month"])).quantize(Decimal("0.1"))
    assert month == Decimal("58.1")
    assert a["upfront"] / (Decimal(str(rent["monthly_rate"])) - a["per_month"]) > 60
    be = cells(page, "break-even-row")
    assert f"against monthly rent ({nt(monthly)} per month) pays back in month {month}" in be[0]
    assert be[0].endswith("Buying does not pay back within the 36 months.")
    assert "no break-even within 60 months" in be[1] and "(NT$160,000 per month)" in be[1]
    assert be[1].endswith("Buying does not pay back within the 36 months.")
    assert not any("Lambda" in c for c in be[:2])


def test_the_compare_chart_draws_each_quoted_option(
    client: TestClient, plans: dict[str, Any]
) -> None:
    a = buying_by_hand(plans["A"])
    ids = ",".join(str(plans[k]["id"]) for k in "AB")
    page = page_of(client, plans["who"], f"/compare?ids={ids}")
    heading = page.select_one("#ccum-heading")
    assert heading is not None
    assert heading.get_text(strip=True) == "Cumulative cost of what each scenario quotes"
    island = page.select_one('script[data-target="chart-compare-cumulative"]')
    assert island is not None
    traces = {t["name"][:1]: t for t in json.loads(island.string or "{}")["data"] if t.get("name")}
    # A's line starts at the up-front price and ends, after the resale, at its 36 months'
    # cost of ownership; B's rent line rises to 160,000 × 36.
    assert traces["A"]["y"][0] == pytest.approx(float(a["upfront"]))
    assert traces["A"]["y"][-1] == pytest.approx(float(a["ownership"]))
    assert traces["B"]["y"][-1] == pytest.approx(5_760_000)


def test_the_plan_summary_describes_its_quote_not_the_cheapest_option(
    client: TestClient, plans: dict[str, Any]
) -> None:
    a = buying_by_hand(plans["A"])
    page = page_of(client, plans["who"], f"/plans/{plans['A']['id']}")
    kpis = page.select_one("#summary-heading").find_parent("section")  # type: ignore[union-attr]
    assert kpis is not None

    def kpi(cls: str) -> str:
        box = kpis.select_one(f".kpi.{cls}")
        assert box is not None, cls
        return " ".join(box.get_text(" ", strip=True).split())

    upfront = kpi("quoted-upfront")
    assert upfront.startswith(f"Up front (excl. tax) {nt(a['upfront'])}")
    assert f"the quote asks {nt(quote_total_by_hand(a['upfront']))} incl. tax" in upfront
    running = kpi("quoted-running")
    assert running.startswith(f"Running costs, not in the quote {nt(a['per_month'])} per month")
    assert f"{nt(a['running'])} over 36 months" in running
    owning = kpi("quoted-total")
    assert owning.startswith(f"Cost of ownership (excl. tax) {nt(a['ownership'])}")
    text = kpis.get_text(" ", strip=True)
    assert "Cheapest option's total" not in text and "NT$160,000" not in kpi("quoted-upfront")
    alternative = kpis.select_one("p.cheapest-alternative")
    assert alternative is not None
    assert "Cheapest alternative, not quoted" in alternative.get_text()
    assert "NT$5,760,000" in alternative.get_text()
    row = kpis.select_one("tr.own-break-even td")
    assert row is not None
    said = " ".join(row.get_text(" ", strip=True).split())
    assert "monthly rent (NT$200,000 per month) pays back in month 58.1" in said
    assert said.endswith("Buying does not pay back within the 36 months.")


def test_the_summary_in_chinese(client: TestClient, plans: dict[str, Any]) -> None:
    page = page_of(client, plans["who"], f"/plans/{plans['A']['id']}", "zh-TW")
    section = page.select_one("#summary-heading").find_parent("section")  # type: ignore[union-attr]
    assert section is not None
    text = " ".join(section.get_text(" ", strip=True).split())
    assert "持有總成本（未稅） NT$8,742,369" in text
    assert "營運費用（不含於報價） NT$106,556" in text
    assert "36 個月內自購無法回本。" in text
    assert "自購對比月租，每月 NT$200,000，於第 58.1 個月回本" in text
    assert "最便宜方案總額" not in text


def test_a_plan_quoting_rent_says_so_in_its_summary(
    client: TestClient, plans: dict[str, Any]
) -> None:
    page = page_of(client, plans["who"], f"/plans/{plans['B']['id']}")
    rate = page.select_one(".kpi.quoted-rate")
    total = page.select_one(".kpi.quoted-total")
    assert rate is not None and total is not None
    assert " ".join(rate.get_text(" ", strip=True).split()).startswith(
        # the option's list rate, said as such: a typed price is the quote's (QA)
        "List price per month (excl. tax) NT$160,000 Quoted: 36-month contract"
    )
    said = " ".join(total.get_text(" ", strip=True).split())
    assert said.startswith(
        "Quoted option's total at list price (excl. tax) NT$5,760,000 total for 36 months"
    )
    assert "the quote asks NT$6,048,000 incl. tax" in said
    assert page.select_one("p.cheapest-alternative") is None  # the quote is the cheapest
