"""What the cost charts mark: a break-even made only by the resale of bought hardware, every
year of the TCO bars, and which utilisation crossing is marked.

Hand-made options (money in NT$): renting costs 100,000 a month; buying 1,000,000 up front
plus 50,000 a month, and the hardware is resold for 500,000 at the end of month 12.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app import charts
from app.engine.costs.formulas import crossing
from tests.charts import samples
from tests.charts.draw_in_chromium import run_subprocess

RENT_CUM = [100_000.0 * m for m in range(13)]
# 1,000,000 + 50,000 m, and at month 12: 1,600,000 − 500,000 resale = 1,100,000
BUY_CUM = [1_000_000.0 + 50_000.0 * m for m in range(12)] + [1_100_000.0]
RENT = {"key": "rent_monthly:x", "kind": "rent_monthly", "label": "Monthly rent"}
RENT |= {"cumulative": RENT_CUM, "breakdown": {"rent": RENT_CUM[-1]}}
BUY = {"key": "buy:x", "kind": "buy", "label": "Buy", "cumulative": BUY_CUM}
BUY |= {"breakdown": {"capex": 1_000_000.0, "power": 600_000.0, "residual": -500_000.0}}
BUY |= {"billed": {"unit": "month", "quantity": 12, "gpus": 8, "nodes": 1}}
NOTE = (
    "Crosses only because the bought hardware is resold at book value in month 12; before "
    "that the first option stays cheaper."
)


def _resale_break_even() -> dict[str, Any]:
    # The engine interpolates across the sale: rent − buy is −450,000 at month 11 and
    # +100,000 at month 12, so 11 + 450,000 / 550,000 = 11.82 ("Month 11.8" before).
    first, month = crossing(RENT_CUM, BUY_CUM)
    assert first == 0 and month == pytest.approx(11 + 450_000 / 550_000)
    # Without the resale buying would cost 1,600,000 > 1,200,000 at month 12: the note.
    return {"a": "rent_monthly:x", "b": "buy:x", "month": month, "note": NOTE}


def test_a_break_even_made_by_the_resale_is_marked_on_the_month_of_the_sale() -> None:
    fig = charts.cumulative_costs([RENT, BUY], [_resale_break_even()], currency="TWD")
    marker = next(tr for tr in fig.data if tr.meta.get("role") == "break_even")
    # On month 12 itself, at renting's 1,200,000 — never at month 11.8.
    assert marker.x == (12,)
    assert marker.y == pytest.approx((1_200_000,))
    (note,) = fig.layout.annotations
    assert note.text == "Month 12,<br>resale only"
    assert "Only through the resale at book value: Buy sells its hardware in month 12" in (
        marker.hovertext[0].replace("<br>", " ")
    )


def test_the_resale_is_drawn_as_a_drop_within_its_month() -> None:
    fig = charts.cumulative_costs([RENT, BUY], [_resale_break_even()], currency="TWD")
    buy = next(tr for tr in fig.data if tr.meta.get("key") == "buy:x")
    # Month 12 twice: 1,600,000 spent before the sale, 1,100,000 after it; the marker at
    # 1,200,000 lies on that drop.
    assert buy.x[-3:] == (11, 12, 12)
    assert buy.y[-3:] == pytest.approx((1_550_000, 1_600_000, 1_100_000))
    assert buy.text[-2:] == (" · before the resale", " · after the resale at book value")
    rent = next(tr for tr in fig.data if tr.meta.get("key") == "rent_monthly:x")
    assert rent.x == tuple(range(13)) and rent.text is None


def test_the_resale_mark_in_chinese() -> None:
    fig = charts.cumulative_costs([RENT, BUY], [_resale_break_even()], currency="TWD", t=samples.zh)
    (note,) = fig.layout.annotations
    assert note.text == "第 12 個月，<br>僅因轉售"


def test_a_break_even_without_a_note_keeps_its_month_to_a_tenth() -> None:
    # A crossing of running costs (no note) is said to a tenth of a month, as before.
    late = {**_resale_break_even(), "note": "", "month": 7.5}
    (note,) = charts.cumulative_costs([RENT, BUY], [late], currency="TWD").layout.annotations
    assert note.text == "Month 7.5"


def test_the_resale_break_even_keeps_its_callout_beside_dearer_crossings() -> None:
    """Rent stays cheapest until buying's resale in month 12, so that is where the cheapest
    option changes; six dearer clouds (c a month from month 0) cross buying earlier, at
    1,000,000 / (c − 50,000) months, above renting. Only six callouts fit: the resale one
    was judged off the cheapest line (buying's curve has already dropped by its sale there)
    and lost its box to the clouds (QA of a quote with public-cloud comparisons)."""
    clouds, pairs = [], [_resale_break_even()]
    for c in (250_000, 300_000, 350_000, 450_000, 550_000, 1_050_000):
        key = f"cloud:{c}"
        clouds.append({"key": key, "kind": "cloud", "label": f"Cloud {c}",
                       "cumulative": [float(c * m) for m in range(13)]})  # fmt: skip
        pairs.append({"a": key, "b": "buy:x", "month": 1_000_000 / (c - 50_000), "note": ""})
    fig = charts.cumulative_costs([RENT, BUY, *clouds], pairs, currency="TWD")
    boxes = {a.text: a.name for a in fig.layout.annotations}
    assert len(boxes) == charts.MAX_CALLOUTS
    assert boxes["Month 12,<br>resale only"] == "break_even"
    # The clouds' crossings (months 1, 2, 2.5, 3.3, 4; 5 has no room) are named apart: a
    # phone keeps only the crossings where the cheapest option changes (static/js/charts.js).
    assert {t: n for t, n in boxes.items() if n == "break_even_minor"} == {
        f"Month {m}": "break_even_minor" for m in ("1", "2", "2.5", "3.3", "4")
    }
    marker = next(tr for tr in fig.data if tr.meta.get("role") == "break_even")
    assert len(marker.x) == 7  # every crossing keeps its marker


# --- TCO ----------------------------------------------------------------------------------

FOUR = ("Monthly rent", "12-month contract", "Buy", "Lambda gpu_8x_h100_sxm5")


def _tco() -> list[dict[str, Any]]:
    """Four options × five years as the 16-GPU planner showed them (money to NT$90M, every
    part stacked, a year-1 resale of NT$14.6M left of zero): the chart that lost half its
    year labels."""
    rent = {"Monthly rent": 8_400_000.0, "12-month contract": 6_720_000.0}
    out = []
    for name in FOUR:
        years: list[dict[str, float]] = []
        for y in range(1, 6):
            if name == "Buy":
                years.append(
                    {
                        "year": y,
                        "capex": 19_000_000.0,
                        "storage_network": 2_800_000.0,
                        "power": 700_000.0 * y,
                        "facility": 1_600_000.0 * y,
                        "operations": 2_000_000.0 * y,
                        "residual": -14_560_788.0 if y == 1 else -2_000_000.0,
                    }
                )
            elif name in rent:
                years.append({"year": y, "rent": rent[name] * y})
            else:
                years.append({"year": y, "cloud": 17_900_000.0 * y})
        out.append({"label": name, "years": years})
    return out


def test_tco_bars_ask_for_a_label_on_every_year() -> None:
    layout = charts.tco_bars(_tco(), currency="TWD").layout
    # plotly's automatic ticks showed "Year 2, Year 4" under one option and "Year 1, 3, 5"
    # under the next; one tick per category, and 24 px a bar: 190 + 24 × 20 = 670 px.
    assert (layout.yaxis.tickmode, layout.yaxis.tick0, layout.yaxis.dtick) == ("linear", 0, 1)
    assert layout.height == 190 + 24 * 20


def test_tco_bars_say_the_cost_is_net_of_a_resale_at_the_year_end() -> None:
    fig = charts.tco_bars(_tco(), currency="TWD")
    assert fig.layout.xaxis.title.text == "Net cost by year end<br>(NT$)"
    resale = next(tr for tr in fig.data if tr.meta.get("part") == "residual")
    assert resale.name == "Resale at year end"
    zh = charts.tco_bars(_tco(), currency="TWD", t=samples.zh)
    assert zh.layout.xaxis.title.text == "年底淨成本<br>（NT$）"


@pytest.mark.browser
def test_every_year_label_is_drawn(tmp_path: Path) -> None:
    """In Chromium, at the planner card's 770 px, with the page's own changes (no title,
    36 px less top margin: static/js/charts.js): 20 bars, 20 "Year N" labels (10 before)."""
    spec = json.loads(charts.to_json(charts.tco_bars(_tco(), currency="TWD")))
    spec["layout"]["title"] = {"text": ""}
    spec["layout"]["margin"]["t"] -= 36
    drawn = run_subprocess("tests.charts.tick_labels_in_chromium", {"tco": spec}, tmp_path, "770")
    assert drawn["errors"] == []
    years = [t for t in drawn["tco"]["y"] if t.startswith("Year ")]
    assert sorted(years) == sorted(f"Year {y}" for y in range(1, 6) for _ in FOUR)


# --- utilisation --------------------------------------------------------------------------


def test_the_utilisation_callout_names_the_pair_it_marks() -> None:
    # Hourly rent NT$120/h × 730 h = 87,600 a month at 100 %; a NT$50,000 monthly rent and a
    # NT$70,000 one: hourly meets the cheaper at 50,000 / 87,600 = 57 % (marked, the
    # cheapest changes there) and the dearer at 70,000 / 87,600 = 80 % (above the cheapest
    # line: listed in the table, not marked).
    hourly = {"key": "h", "kind": "rent_hourly", "label": "Hourly rent"}
    hourly |= {"fixed_monthly": 0.0, "metered_monthly_full": 87_600.0}
    cheap = {"key": "m", "kind": "rent_monthly", "label": "Monthly rent"}
    cheap |= {"fixed_monthly": 50_000.0, "metered_monthly_full": 0.0}
    dear = {"key": "t", "kind": "rent_term", "label": "Other rent"}
    dear |= {"fixed_monthly": 70_000.0, "metered_monthly_full": 0.0}
    pairs = [
        {"a": "h", "b": "m", "utilization": 50_000 / 87_600},
        {"a": "h", "b": "t", "utilization": 70_000 / 87_600},
    ]
    fig = charts.utilization_sensitivity([hourly, cheap, dear], currency="TWD", break_even=pairs)
    marker = next(tr for tr in fig.data if tr.meta.get("role") == "break_even")
    assert marker.x == pytest.approx((100 * 50_000 / 87_600,))
    assert marker.name == "Break-even (cheapest changes)"
    (box,) = [a for a in fig.layout.annotations if a.name == "break_even_at"]
    assert box.text == "Break-even at 57%<br>Hourly rent = Monthly rent"


# --- the month axis -------------------------------------------------------------------------


def _months(n: int) -> list[dict[str, Any]]:
    cum = [50_000.0 * m for m in range(n + 1)]
    return [{"key": "rent_monthly:x", "kind": "rent_monthly", "label": "Monthly rent",
             "cumulative": cum, "breakdown": {"rent": cum[-1]}}]  # fmt: skip


@pytest.mark.parametrize("months", [4, 12])
def test_a_short_month_axis_labels_every_whole_month(months: int) -> None:
    """QA: a 4-month phased plan's cumulative chart, in the PDF, labelled 0, 0.5, 1 … 3.5
    months; a month is what is billed, so each tick is a whole month, one per month."""
    axis = charts.cumulative_costs(_months(months), [], currency="TWD").layout.xaxis
    assert (axis.tick0, axis.dtick, tuple(axis.range)) == (0, 1, (0, months))


def test_a_long_month_axis_keeps_plotlys_own_step() -> None:
    """Past a year, one tick a month would crowd a phone's 390 px: plotly picks the step."""
    axis = charts.cumulative_costs(_months(60), [], currency="TWD").layout.xaxis
    assert axis.dtick is None and tuple(axis.range) == (0, 60)
