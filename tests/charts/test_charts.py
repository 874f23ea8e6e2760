"""app.charts: each figure has the traces, marks and labels its inputs call for.

Inputs are the plain dicts of the estimate response (app/charts/__init__.py docstring); the expected
figures come from the inputs themselves (a break-even at month 7.5 is drawn at x = 7.5) or
from the engine's own formulas (break_even_utilization).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app import charts, i18n
from app.engine.costs import CostOption, break_even_utilization
from tests.charts import samples

MEMORY = {
    "weights": 6.5,
    "gradients": 6.5,
    "optimizer": 39.0,
    "activations": 14.5,
    "kv_cache": 0.0,
    "overhead": 4.8,
    "total": 71.3,
}


def option(key: str, kind: str, label: str, cumulative: list[float], **extra: Any) -> dict:
    return {
        "key": key,
        "kind": kind,
        "label": label,
        "monthly_rate": cumulative[-1] / max(1, len(cumulative) - 1),
        "total": cumulative[-1],
        "upfront": cumulative[0],
        "currency": "TWD",
        "breakdown": {},
        "cumulative": cumulative,
        **extra,
    }


# Buying: NT$1.2M upfront then NT$40,000/month; renting NT$200,000/month. They cross at
# 1,200,000 / 160,000 = 7.5 months.
RENT = option(
    "rent_monthly:x",
    "rent_monthly",
    "Monthly rent",
    [200_000.0 * m for m in range(13)],
    fixed_monthly=200_000.0,
    metered_monthly_full=0.0,
)
BUY = option(
    "buy:x",
    "buy",
    "Buy",
    [1_200_000.0 + 40_000.0 * m for m in range(13)],
    fixed_monthly=140_000.0,
    metered_monthly_full=20_000.0,
)
HOURLY = option(
    "rent_hourly:x",
    "rent_hourly",
    "Hourly rent",
    [120.0 * 730 * m for m in range(13)],
    fixed_monthly=0.0,
    metered_monthly_full=120.0 * 730,
)
BREAK_EVEN = [{"a": "rent_monthly:x", "b": "buy:x", "month": 7.5}]


def fonts(node: Any, path: str = "") -> Iterator[tuple[str, float]]:
    """Every font size set anywhere in a figure dict."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "size" and "font" in path.rsplit(".", 1)[-1] and isinstance(v, int | float):
                yield path, v
            yield from fonts(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from fonts(v, f"{path}[{i}]")


def all_sample_figures() -> dict[str, Any]:
    return samples.all_figures(samples.zh) | {
        f"{k}.en": v for k, v in samples.all_figures(lambda s: s).items()
    }


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    return all_sample_figures()


# --- memory -------------------------------------------------------------------------------


def test_memory_bar_stacks_the_nonzero_parts_to_the_total() -> None:
    fig = charts.memory_bar(MEMORY, 80)
    parts = [tr.meta["part"] for tr in fig.data]
    assert parts == ["weights", "gradients", "optimizer", "activations", "overhead"]
    assert fig.layout.barmode == "stack"
    assert sum(tr.x[0] for tr in fig.data) == pytest.approx(71.3)
    assert all(tr.orientation == "h" for tr in fig.data)
    assert fig.data[2].name == "Optimizer states 39 GB"
    assert fig.data[2].text == ("39",)


def test_memory_bar_marks_the_capacity() -> None:
    fig = charts.memory_bar(MEMORY, 80)
    (line,) = fig.layout.shapes
    assert (line.x0, line.x1, line.yref) == (80, 80, "paper")
    texts = {a.name: a.text for a in fig.layout.annotations}
    assert texts == {"capacity": "GPU memory 80 GB", "total": "Used 71.3 GB"}
    assert fig.layout.xaxis.range[1] >= 80


@pytest.mark.parametrize(
    ("memory", "capacity", "x", "side"),
    [
        # 71.3 GB of 75: the label ends at the bar's end, left of the line 3.7 GB away (it
        # used to start there and run across the line: "Used 73.9 GB" in the quote PDF).
        (MEMORY, 75, 71.3, "right"),
        # 132.3 GB of 80: it ends at the line, inside the plot (right of the bar's end it
        # ran off a 390 px screen as "Used 132").
        ({**MEMORY, "optimizer": 100.0}, 80, 80, "right"),
        # 5 GB of 80: it starts at the short bar's end, far left of the line.
        ({"weights": 4.0, "overhead": 1.0}, 80, 5, "left"),
    ],
)
def test_the_used_label_stands_clear_of_the_capacity_line(
    memory: dict[str, float], capacity: float, x: float, side: str
) -> None:
    fig = charts.memory_bar(memory, capacity)
    used = next(a for a in fig.layout.annotations if a.name == "total")
    assert used.x == pytest.approx(x) and used.xanchor == side
    # Above the bar, in the strip the y axis leaves at the top of the plot.
    assert (used.yref, used.y, used.yanchor) == ("paper", 1, "top")
    assert fig.layout.yaxis.domain[1] < 1


def test_memory_bar_over_capacity_turns_the_line_red() -> None:
    fig = charts.memory_bar({**MEMORY, "optimizer": 100.0}, 80)
    assert fig.layout.shapes[0].line.color == charts.ALERT
    assert fig.layout.xaxis.range[1] >= 132.3


def test_memory_bar_in_chinese() -> None:
    fig = charts.memory_bar(MEMORY, 80, t=samples.zh)
    assert fig.layout.title.text == "每張 GPU 的記憶體用量（GB）"
    assert fig.data[0].name == "權重 6.5 GB"
    assert fig.layout.annotations[0].text == "GPU 記憶體 80 GB"


# --- GPUs vs days -------------------------------------------------------------------------

POINTS = [(8, 5.2), (1, 40.0), (2, 20.5), (4, 10.6), (16, 2.7)]


def test_gpus_vs_days_log_x_sorted_points() -> None:
    fig = charts.gpus_vs_days(POINTS, deadline_days=7, chosen=8)
    curve = next(tr for tr in fig.data if tr.meta["role"] == "curve")
    assert curve.x == (1, 2, 4, 8, 16)
    assert curve.y == (40.0, 20.5, 10.6, 5.2, 2.7)
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.xaxis.tickvals == (1, 2, 4, 8, 16)


def test_gpus_vs_days_deadline_is_a_horizontal_line_at_the_deadline() -> None:
    fig = charts.gpus_vs_days(POINTS, deadline_days=7, chosen=8)
    deadline = next(tr for tr in fig.data if tr.meta["role"] == "deadline")
    assert deadline.y == (7, 7)
    assert deadline.x[0] < 1 and deadline.x[1] > 16
    assert deadline.name == "Deadline: 7 days"


def test_gpus_vs_days_marks_the_chosen_count() -> None:
    fig = charts.gpus_vs_days(POINTS, deadline_days=7, chosen=8, t=samples.zh)
    chosen = next(tr for tr in fig.data if tr.meta["role"] == "chosen")
    assert (chosen.x, chosen.y) == ((8,), (5.2,))
    assert chosen.name == "選定：8 張 GPU，5.2 天"
    assert "選定：8 張 GPU<br>5.2 天" in chosen.text[0]


def test_the_chosen_label_sits_on_the_side_with_room_and_groups_its_count() -> None:
    # 8 of 1–16 GPUs is at 3/4 of the log axis: its label goes left, where the plot has room
    # (right of 16,384 of 1–32,768 it ran off the plot, "Chosen: 16384 G…"); 2 goes right.
    fig = charts.gpus_vs_days(POINTS, deadline_days=7, chosen=8)
    chosen = next(tr for tr in fig.data if tr.meta["role"] == "chosen")
    assert chosen.textposition == "bottom left"
    fig = charts.gpus_vs_days(POINTS, deadline_days=7, chosen=2)
    assert next(tr for tr in fig.data if tr.meta["role"] == "chosen").textposition == "top right"
    big = [(n, 1000 / n) for n in (128, 1024, 8192, 16384, 32768)]
    label = next(
        tr for tr in charts.gpus_vs_days(big, chosen=16384).data if tr.meta["role"] == "chosen"
    )
    assert "Chosen: 16,384 GPUs<br>" in label.text[0]  # two lines on the plot
    assert label.name == "Chosen: 16,384 GPUs, 0.06 days"  # 1,000 / 16,384; one line


def test_gpus_vs_days_without_deadline_or_choice() -> None:
    fig = charts.gpus_vs_days([(1, 3.0), (2, 1.6)])
    assert [tr.meta["role"] for tr in fig.data] == ["curve"]
    assert fig.layout.yaxis.type != "log"


def test_gpus_vs_days_log_y_when_days_span_decades() -> None:
    fig = charts.gpus_vs_days([(1, 100.0), (64, 1.7), (128, 0.9)], deadline_days=7)
    assert fig.layout.yaxis.type == "log"
    assert {1, 2, 5, 10, 20, 50, 100} <= set(fig.layout.yaxis.tickvals)


def test_gpus_vs_days_needs_points() -> None:
    with pytest.raises(ValueError, match="at least one"):
        charts.gpus_vs_days([])


# --- cumulative costs ---------------------------------------------------------------------


def test_cumulative_costs_one_line_per_option_over_the_months() -> None:
    fig = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="TWD")
    lines = [tr for tr in fig.data if tr.meta.get("key")]
    assert [tr.meta["key"] for tr in lines] == ["rent_monthly:x", "buy:x"]
    assert lines[0].x == tuple(range(13))
    assert lines[1].y[0] == 1_200_000


def test_cumulative_costs_marks_break_even_at_the_month() -> None:
    fig = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="TWD")
    marker = next(tr for tr in fig.data if tr.meta.get("role") == "break_even")
    assert marker.x == (7.5,)
    assert marker.y[0] == pytest.approx(1_500_000)  # both curves: 200,000 × 7.5
    (note,) = fig.layout.annotations
    assert (note.x, note.text) == (7.5, "Month 7.5")
    assert note.y == pytest.approx(1_500_000)


def test_two_options_at_one_price_crossing_a_third_get_one_callout() -> None:
    # A twin of Buy (the same cumulative costs, as AWS p5.48xlarge and 8 × p5.4xlarge are)
    # crosses Monthly rent at the same point: both markers stay, one "Month 7.5" box.
    twin = {**BUY, "key": "buy:y", "label": "Buy again"}
    pairs = [*BREAK_EVEN, {"a": "rent_monthly:x", "b": "buy:y", "month": 7.5}]
    fig = charts.cumulative_costs([RENT, BUY, twin], pairs, currency="TWD")
    marker = next(tr for tr in fig.data if tr.meta.get("role") == "break_even")
    assert marker.x == (7.5, 7.5)
    assert [a.text for a in fig.layout.annotations] == ["Month 7.5"]


def test_a_callout_near_the_end_of_the_horizon_grows_inward() -> None:
    late = [{"a": "rent_monthly:x", "b": "buy:x", "month": 11.5}]
    (note,) = charts.cumulative_costs([RENT, BUY], late, currency="TWD").layout.annotations
    assert note.xanchor == "right"  # 11.5 of 12 months: a centred box ran off the plot
    # Elsewhere too a box sits beside its leader line, reaching away from the nearer edge
    # (app.charts.costs._place_callouts): a centred box covered its neighbours' leaders.
    (mid,) = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="TWD").layout.annotations
    assert mid.xanchor == "right"  # 7.5 of 12
    early = [{"a": "rent_monthly:x", "b": "buy:x", "month": 2.5}]
    (first,) = charts.cumulative_costs([RENT, BUY], early, currency="TWD").layout.annotations
    assert first.xanchor == "left"


def test_cumulative_costs_money_axis_has_the_currency() -> None:
    twd = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="TWD")
    usd = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="USD")
    # Ticks written short in the reader's scale, each with its currency (a phone keeps them
    # level; plotly's own "~s" wrote "20M" on a 中文 page). RENT runs to 12 × 200,000 =
    # 2,400,000: five steps of 500,000 (the first of 1, 2, 2.5, 5 × 10^k ≥ 2.4M / 5).
    assert twd.layout.yaxis.ticktext == ("NT$0", "NT$0.5M", "NT$1M", "NT$1.5M", "NT$2M", "NT$2.5M")
    assert usd.layout.yaxis.ticktext[-1] == "US$2.5M"
    assert twd.layout.yaxis.tickvals[-1] == 2_500_000
    from app import i18n

    i18n.activate("zh-TW")
    try:
        zh = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="TWD", t=i18n.gettext)
    finally:
        i18n.activate("en")
    assert zh.layout.yaxis.ticktext[-1] == "NT$250萬"
    assert twd.layout.yaxis.title.text == "Cumulative cost (NT$)"


def test_cumulative_costs_months_cuts_the_horizon_and_later_break_evens() -> None:
    fig = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="TWD", months=6)
    assert all(len(tr.x) == 7 for tr in fig.data)
    assert not fig.layout.annotations
    assert fig.layout.xaxis.range == (0, 6)


def test_cumulative_costs_in_chinese() -> None:
    fig = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="TWD", t=samples.zh)
    assert fig.layout.annotations[0].text == "第 7.5 個月"
    assert fig.layout.yaxis.title.text == "累計成本（NT$）"


def test_cumulative_costs_from_the_engine_marks_every_crossing() -> None:
    cost = samples.cost_dict(samples.comparison())
    fig = charts.cumulative_costs(cost["options"], cost["break_even"], currency="TWD")
    marker = next(tr for tr in fig.data if tr.meta.get("role") == "break_even")
    months = sorted(b["month"] for b in cost["break_even"] if b["month"] is not None)
    assert sorted(marker.x) == pytest.approx(months)
    assert len(fig.layout.annotations) == min(len(months), charts.MAX_CALLOUTS)


def test_option_colours_follow_the_kind_on_every_chart() -> None:
    cum = charts.cumulative_costs([RENT, BUY, HOURLY], [], currency="TWD")
    sens = charts.utilization_sensitivity([HOURLY, BUY, RENT], currency="TWD")
    colour = {tr.meta["key"]: tr.line.color for tr in cum.data}
    assert colour == {tr.meta["key"]: tr.line.color for tr in sens.data if tr.meta.get("key")}
    assert colour["buy:x"] == charts.KIND_COLOURS["buy"]


def test_a_repeated_kind_keeps_its_colour_in_another_dash() -> None:
    # Another provider's offer of the same kind reads as one of the family, and still apart
    # (app.charts.theme._option_styles; tests/charts/test_cost_chart_layout.py).
    other = {**RENT, "key": "rent_monthly:y", "label": "Other rent"}
    fig = charts.cumulative_costs([RENT, other], [], currency="TWD")
    assert fig.data[0].line.color == fig.data[1].line.color
    assert (fig.data[0].line.dash, fig.data[1].line.dash) == ("solid", "dash")


# --- TCO ----------------------------------------------------------------------------------


def test_tco_bars_stack_to_the_totals() -> None:
    cost = samples.cost_dict(samples.comparison())
    fig = charts.tco_bars(cost["tco"], currency="TWD")
    assert fig.layout.barmode == "relative"
    bars = [tr for tr in fig.data if tr.type == "bar"]
    total = next(tr for tr in fig.data if tr.meta.get("role") == "total")
    expected = [y["total"] for curve in cost["tco"] for y in curve["years"]]
    assert total.x == pytest.approx(expected)
    sums = [sum(tr.x[i] for tr in bars) for i in range(len(expected))]
    assert sums == pytest.approx(expected)
    # the residual (resale) is negative: it stacks below zero
    assert any(v < 0 for tr in bars if tr.meta["part"] == "residual" for v in tr.x)


def test_tco_bars_one_bar_per_option_and_year() -> None:
    tco = [
        {"label": "Buy", "years": [{"year": y, "capex": 100, "power": 10 * y} for y in (1, 2)]},
        {"label": "Rent", "years": [{"year": y, "rent": 60 * y} for y in (1, 2)]},
    ]
    fig = charts.tco_bars(tco, currency="USD", t=samples.zh)
    capex = next(tr for tr in fig.data if tr.meta.get("part") == "capex")
    assert [list(level) for level in capex.y] == [
        ["Buy", "Buy", "Rent", "Rent"],
        ["第 1 年", "第 2 年", "第 1 年", "第 2 年"],
    ]
    assert capex.name == "硬體（資本支出）"
    assert [tr.meta.get("part") for tr in fig.data if tr.type == "bar"] == [
        "capex",
        "power",
        "rent",
    ]
    # the ticks carry the currency (app.charts.theme.money_ticks); 0–120 in steps of 25
    assert fig.layout.xaxis.tickmode == "array"
    assert list(fig.layout.xaxis.ticktext)[:3] == ["US$0", "US$25", "US$50"]
    total = next(tr for tr in fig.data if tr.meta.get("role") == "total")
    assert total.x == (110, 120, 60, 120)


def test_tco_bars_year_filter_and_unknown_parts() -> None:
    tco = [
        {"label": "X", "years": [{"year": y, "rent": 1.0, "licences": 2.0} for y in range(1, 6)]}
    ]
    fig = charts.tco_bars(tco, currency="TWD", years=[1, 5])
    parts = [tr.meta.get("part") for tr in fig.data if tr.type == "bar"]
    assert parts == ["rent", "licences"]
    assert len(fig.data[0].x) == 2


# --- utilisation --------------------------------------------------------------------------


def test_utilization_sensitivity_lines_are_fixed_plus_metered() -> None:
    fig = charts.utilization_sensitivity([HOURLY, RENT], currency="TWD")
    hourly = next(tr for tr in fig.data if tr.meta.get("key") == "rent_hourly:x")
    assert hourly.x[0] == 0 and hourly.x[-1] == 100
    assert hourly.y[-1] == pytest.approx(87_600)
    assert fig.layout.xaxis.ticksuffix == "%"


def test_utilization_sensitivity_marks_the_engine_break_even() -> None:
    # seed 003 T8: NT$50,000 a month vs NT$120/h → 50,000 / 87,600 = 57 %
    monthly = {**RENT, "fixed_monthly": 50_000.0}
    u = break_even_utilization(_cost_option(HOURLY), _cost_option(monthly))
    assert u == pytest.approx(50_000 / 87_600)
    pairs = [{"a": HOURLY["key"], "b": monthly["key"], "utilization": u}]
    fig = charts.utilization_sensitivity(
        [HOURLY, monthly], currency="TWD", utilization=0.8, break_even=pairs
    )
    marker = next(tr for tr in fig.data if tr.meta.get("role") == "break_even")
    assert marker.x == pytest.approx((u * 100,))
    assert marker.y == pytest.approx((50_000,))
    texts = [a.text for a in fig.layout.annotations]
    # The box names its pair: the chart marks only where the cheapest option changes.
    assert "Break-even at 57%<br>Hourly rent = Monthly rent" in texts
    assert "This plan: 80%" in texts
    assert fig.layout.shapes[0].x0 == 80


def test_utilization_sensitivity_skips_options_without_run_rates() -> None:
    bare = {k: v for k, v in RENT.items() if k != "fixed_monthly"}
    fig = charts.utilization_sensitivity([bare, HOURLY], currency="USD", t=samples.zh)
    assert [tr.meta.get("key") for tr in fig.data] == ["rent_hourly:x"]
    assert all(text.startswith("US$") for text in fig.layout.yaxis.ticktext)
    # On two lines: plotly does not wrap, and one line was cut on a 390 px phone.
    assert fig.layout.xaxis.title.text == "GPU 使用率<br>（每月 730 小時的比例）"


def _cost_option(d: dict) -> CostOption:
    return CostOption(
        kind=d["kind"],
        label=d["label"],
        monthly_rate=d["monthly_rate"],
        total=d["total"],
        upfront=d["upfront"],
        currency=d["currency"],
        breakdown={},
        cumulative=d["cumulative"],
        lead_time_days=0,
        source_ids=[],
        explain=[],
        key=d["key"],
        fixed_monthly=d["fixed_monthly"],
        metered_monthly_full=d["metered_monthly_full"],
    )


# --- reference architectures --------------------------------------------------------------


def test_architectures_compare_three_panels_with_values() -> None:
    fig = charts.architectures_compare(samples.TEMPLATES, currency="TWD")
    bars = {tr.meta["metric"]: tr for tr in fig.data if tr.type == "bar"}
    assert list(bars) == ["monthly", "gpu_memory_gb", "power_kw"]
    assert bars["monthly"].y == (50_000, 200_000, 700_000)
    assert bars["monthly"].text == ("NT$50,000", "NT$200,000", "NT$700,000")
    # In US$ at 32 (seed T8's rents / 32), to the cent as the cards above the chart say them:
    # 50,000 / 32 = 1,562.50 (QA: the label said US$1,562, half to even, beside US$1,562.50).
    usd = [{**t, "monthly": t["monthly"] / 32} for t in samples.TEMPLATES]
    fig_usd = charts.architectures_compare(usd, currency="USD")
    (money_bars,) = [
        tr for tr in fig_usd.data if tr.type == "bar" and tr.meta["metric"] == "monthly"
    ]
    assert money_bars.text == ("US$1,562.50", "US$6,250", "US$21,875")
    assert bars["gpu_memory_gb"].text == ("80 GB", "320 GB", "1,280 GB")
    # to a tenth, as the cards and table beside the chart (QA: "1.95 kW" against "2.0 kW")
    assert bars["power_kw"].text == ("0.6 kW", "3 kW", "20.4 kW")
    # money ticks in the reader's scale, as the cost charts write them (QA: "NT$400k" on a
    # 中文 phone beside "40萬" on /tco): 0 to 700,000 × 1.18 = 826,000, steps of 200,000
    assert fig.layout.yaxis.tickvals[:5] == (0, 200_000, 400_000, 600_000, 800_000)
    assert fig.layout.yaxis.ticktext[:3] == ("NT$0", "NT$0.2M", "NT$0.4M")
    i18n.reload()
    zh = charts.architectures_compare(
        samples.TEMPLATES, currency="TWD", t=i18n.zh_translations().gettext
    )
    assert zh.layout.yaxis.ticktext[:3] == ("NT$0", "NT$20萬", "NT$40萬")
    # the same template has the same colour in every panel
    assert len({tuple(tr.marker.color) for tr in bars.values()}) == 1


def test_architectures_compare_price_range_only_where_given() -> None:
    fig = charts.architectures_compare(samples.TEMPLATES, currency="TWD", t=samples.zh)
    (band,) = [tr for tr in fig.data if tr.meta.get("role") == "price_range"]
    assert band.x == ("Training<br>16× H100",)
    assert band.error_y.arrayminus == (140_000,)
    assert band.error_y.array == (0,)
    assert [a.text for a in fig.layout.annotations][:1] == ["月租價格（NT$）"]


# --- every figure -------------------------------------------------------------------------


def test_every_figure_is_legible(figures: dict[str, Any]) -> None:
    for name, fig in figures.items():
        spec = fig.to_plotly_json()
        sizes = list(fonts(spec["layout"])) + list(fonts({"data": spec["data"]}))
        assert sizes, name
        assert all(size >= 13 for _, size in sizes), (name, [s for s in sizes if s[1] < 13])
        layout = fig.layout
        assert layout.font.family == charts.FONT_FAMILY
        assert layout.paper_bgcolor == "white" and layout.plot_bgcolor == "white"
        assert layout.title.text, name
        if layout.showlegend is not False:
            assert layout.legend.orientation == "h", name


def test_chinese_figures_carry_no_untranslated_chart_text(figures: dict[str, Any]) -> None:
    for name, fig in figures.items():
        if name.endswith(".en"):
            continue
        english = fig.to_json()
        for msgid in charts.MSGIDS:
            if "%(" not in msgid and len(msgid) > 4 and msgid != "Power":
                assert f'"{msgid}"' not in english, (name, msgid)


def test_to_json_round_trips_with_config() -> None:
    fig = charts.cumulative_costs([RENT, BUY], BREAK_EVEN, currency="TWD")
    spec = json.loads(charts.to_json(fig))
    assert set(spec) == {"data", "layout", "config"}
    assert spec["config"]["displaylogo"] is False
    assert spec["config"]["responsive"] is True
    assert "template" not in spec["layout"]
    assert spec["data"][0]["y"] == RENT["cumulative"]
    assert spec["layout"]["annotations"][0]["text"] == "Month 7.5"
    assert spec["layout"]["yaxis"]["ticktext"][1] == "NT$0.5M"


def test_to_json_is_safe_inside_a_script_element() -> None:
    evil = {**RENT, "label": "</script><script>alert(1)</script> & co"}
    text = charts.to_json(charts.cumulative_costs([evil, BUY], [], currency="TWD"))
    assert "<" not in text and ">" not in text and "&" not in text
    names = [tr["name"] for tr in json.loads(text)["data"]]
    # (a legend line holds 36 columns: the label wraps where its words part)
    shown = names[0].replace("<br>", " ")
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in shown
    assert '": ' not in text and '", "' not in text  # compact separators


def test_msgids_list_every_string_given_to_t() -> None:
    used: set[str] = set()
    package = Path(charts.__file__).parent
    nodes = (
        n for f in package.glob("*.py") for n in ast.walk(ast.parse(f.read_text(encoding="utf-8")))
    )
    for node in nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "t"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            used.add(node.args[0].value)
    used |= {label for _, label, _ in (*charts.MEMORY_PARTS, *charts.TCO_PARTS)}
    assert used == set(charts.MSGIDS)
    assert set(samples.ZH_TW) == set(charts.MSGIDS)


# --- serving curve ------------------------------------------------------------------------

# A hand-made curve: 1 user at 100 tokens/s falling to 10 tokens/s at 1,000 users; the first
# token arrives within 1 s up to 100 users (0.2 s, 0.5 s, 0.9 s, then 1.5 s and 4 s).
CURVE = [
    {"concurrency": 1, "tokens_per_s_per_user": 100.0, "ttft_s": 0.2},
    {"concurrency": 10, "tokens_per_s_per_user": 80.0, "ttft_s": 0.5},
    {"concurrency": 100, "tokens_per_s_per_user": 40.0, "ttft_s": 0.9},
    {"concurrency": 300, "tokens_per_s_per_user": 20.0, "ttft_s": 1.5},
    {"concurrency": 1000, "tokens_per_s_per_user": 10.0, "ttft_s": 4.0},
]


def _role(fig: Any, role: str) -> Any:
    return next(tr for tr in fig.data if tr.meta and tr.meta["role"] == role)


def test_serving_curve_draws_both_targets() -> None:
    fig = charts.serving_curve(CURVE, tokens_per_s_target=20, ttft_target_s=1.0, chosen=100)
    curve = _role(fig, "curve")
    assert curve.x == (1, 10, 100, 300, 1000)
    assert curve.y == (100.0, 80.0, 40.0, 20.0, 10.0)
    rate = _role(fig, "rate_target")
    assert rate.y == (20, 20)  # horizontal at the tokens/s target
    ttft = _role(fig, "ttft_target")
    assert ttft.x == (100, 100)  # 100 users is the last point with TTFT ≤ 1 s (0.9 s)
    chosen = _role(fig, "chosen")
    assert chosen.x == (100,) and chosen.y == (40.0,)
    assert fig.layout.xaxis.type == "log"
    # 100 tokens/s × 1.1 = 110 over 10 / 1.3 = 7.7: 14× < 20×, so the axis stays linear.
    assert fig.layout.yaxis.type != "log"
    assert fig.layout.yaxis.range == pytest.approx((0, 110.0))


def test_serving_curve_interpolates_the_chosen_point_in_log_users() -> None:
    # 30 users lies half-way between 10 and 100 on a log axis only approximately:
    # log(30/10)/log(100/10) = 0.477 → 80 − 0.477 × 40 = 60.9 tokens/s.
    fig = charts.serving_curve(CURVE, chosen=30)
    assert _role(fig, "chosen").y[0] == pytest.approx(80 - 40 * math.log10(3), rel=1e-9)
    assert not [tr for tr in fig.data if tr.meta["role"] in ("rate_target", "ttft_target")]


def test_serving_curve_ttft_unreachable_is_drawn_at_the_left_edge() -> None:
    assert charts.serving.ttft_limit(CURVE, 0.1) is None
    fig = charts.serving_curve(CURVE, ttft_target_s=0.1)
    assert _role(fig, "ttft_target").x[0] == pytest.approx(1 / 1.3)


def test_serving_curve_in_chinese() -> None:
    fig = charts.serving_curve(CURVE, tokens_per_s_target=20, ttft_target_s=1.0, t=samples.zh)
    assert fig.layout.title.text == "每位使用者 tokens/s 與同時使用者數（單一副本）"
    assert _role(fig, "rate_target").name == "目標：每位使用者 20 tokens/s"


def test_serving_curve_needs_points() -> None:
    with pytest.raises(ValueError):
        charts.serving_curve([])


def test_serving_curve_from_the_engine_t3() -> None:
    """Seed rule T3 through the engine: the chosen point sits on the curve at ≥ 20 tokens/s."""
    r = samples.estimate_7b_chat()
    inf = r.inference
    fig = charts.serving_curve(
        [dataclasses.asdict(p) for p in inf.curve],
        tokens_per_s_target=20,
        ttft_target_s=1.0,
        chosen=inf.concurrency_per_replica,
    )
    assert _role(fig, "chosen").y[0] >= 20 * 0.97  # interpolated between curve points


def test_serving_curve_log_rates_when_they_span_decades() -> None:
    # 400 tokens/s for one user down to 5 at 1,000: 440 / (5 / 1.3) = 114× > 20× → log y.
    steep = [
        {**p, "tokens_per_s_per_user": y} for p, y in zip(CURVE, (400, 300, 60, 20, 5), strict=True)
    ]
    fig = charts.serving_curve(steep, tokens_per_s_target=20)
    assert fig.layout.yaxis.type == "log"
    assert 20 in fig.layout.yaxis.tickvals


# --- validation ---------------------------------------------------------------------------


def test_predicted_vs_reported_has_the_identity_line_and_log_axes() -> None:
    rows = [
        {"label": "A", "predicted": 120.0, "reported": 100.0, "text": "run 1"},
        {"label": "A", "predicted": 5.0, "reported": 10.0, "text": "run 2"},
        {"label": "B", "predicted": 2e6, "reported": 1e6, "text": "run 3"},
    ]
    fig = charts.predicted_vs_reported(rows)
    roles = [tr.meta["role"] for tr in fig.data]
    assert roles == ["runs", "runs", "identity", "bound", "bound"]
    a, b, identity, up, down = fig.data
    assert a.x == (100.0, 10.0) and a.y == (120.0, 5.0)  # x = reported, y = predicted
    assert b.x == (1e6,) and b.y == (2e6,)
    # y = x from the smallest figure / 1.5 (5 / 1.5) to the largest × 1.5 (2e6 × 1.5).
    assert identity.x == identity.y
    assert identity.x[0] == pytest.approx(5 / 1.5) and identity.x[1] == pytest.approx(3e6)
    assert up.y[0] == pytest.approx(2 * up.x[0]) and down.y[1] == pytest.approx(0.5 * down.x[1])
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis.range == fig.layout.yaxis.range  # square: the diagonal is 45°
    assert "1M" in fig.layout.xaxis.ticktext


def test_predicted_vs_reported_in_chinese_and_needs_points() -> None:
    fig = charts.predicted_vs_reported(samples.validation_points(), t=samples.zh)
    assert fig.data[-3].name == "完全吻合（y = x）"
    assert fig.layout.xaxis.title.text == "來源公布值（對數刻度）"
    assert sum(len(tr.x) for tr in fig.data if tr.meta["role"] == "runs") >= 45
    with pytest.raises(ValueError):
        charts.predicted_vs_reported([{"label": "A", "predicted": 0, "reported": 1}])


def test_one_chosen_gpu_is_singular() -> None:
    fig = charts.gpus_vs_days([(1, 3.0), (2, 1.6)], chosen=1)
    assert next(tr for tr in fig.data if tr.meta["role"] == "chosen").name == (
        "Chosen: 1 GPU, 3 days"
    )


def test_a_small_share_of_memory_is_not_rounded_to_nothing() -> None:
    # Llama 3.1 405B on 16,384 GPUs with ZeRO-3: 405.85e9 × 2 B / 16,384 = 0.0495 GB of
    # weights a GPU; the legend said "Weights 0 GB".
    from app.charts.theme import _gb

    assert _gb(405.85e9 * 2 / 16_384 / 1e9) == "0.05 GB"
    assert _gb(0.0004) == "<0.001 GB" and _gb(0) == "0 GB" and _gb(21.34) == "21.3 GB"


def test_a_hover_label_is_joined_to_its_value_in_the_readers_punctuation() -> None:
    """「權重：%{x} GB」 in Chinese, "Weights: %{x} GB" in English: the label–value colon is
    translated with the words (a 中文 tooltip read 「權重: 6.7 GB」)."""
    zh = charts.memory_bar({"weights": 6.7, "activations": 15.2}, 80.0, t=samples.zh)
    en = charts.memory_bar({"weights": 6.7, "activations": 15.2}, 80.0)
    zh_hovers = [tr.hovertemplate for tr in zh.data if tr.hovertemplate]
    en_hovers = [tr.hovertemplate for tr in en.data if tr.hovertemplate]
    assert zh_hovers and all("：%{x:,.1f} GB" in h for h in zh_hovers)
    assert en_hovers and all(": %{x:,.1f} GB" in h for h in en_hovers)


def test_money_ticks_are_written_in_the_readers_scale() -> None:
    """QA: the Chinese quote's TCO axis read "NT$2G", plotly's SI prefix. English counts in
    thousands (k, M, B); Chinese in 萬 (10⁴) and 億 (10⁸). Steps of 1, 2, 2.5 or 5 × 10^k:
    (2.1e9 + 5.2e6) / 5 = 4.2e8 → 5e8."""
    from app import i18n
    from app.charts.theme import money_ticks

    ticks, en = money_ticks(-5.2e6, 2.1e9, "TWD")
    assert ticks[:4] == [-5e8, 0, 5e8, 1e9]
    assert en[:4] == ["−NT$0.5B", "NT$0", "NT$0.5B", "NT$1B"]
    i18n.activate("zh-TW")
    try:
        _, zh = money_ticks(-5.2e6, 2.1e9, "TWD", i18n.gettext)
        assert zh[:4] == ["−NT$5億", "NT$0", "NT$5億", "NT$10億"]
        _, small = money_ticks(0, 43_000, "TWD", i18n.gettext)
        assert small == ["NT$0", "NT$1萬", "NT$2萬", "NT$3萬", "NT$4萬", "NT$5萬"]
    finally:
        i18n.activate("en")
    assert money_ticks(0, 12e6, "USD")[1][:3] == ["US$0", "US$2.5M", "US$5M"]
