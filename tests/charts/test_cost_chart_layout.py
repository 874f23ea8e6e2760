"""The customer's cumulative-cost chart with many options: every series its own look, every
legend entry shown on a phone, no callout on another.

QA of an inference quote with public-cloud comparisons (eleven options, the share page and
the PDF, both languages): at 390 px the legend of the 480 px chart scrolled at half its
height and the last five names were cut off; RunPod's hourly rent and GCP, RunPod's monthly
rent and Azure, buying and Lambda were drawn alike (the same colour, dashed); and "Month 2.5 /
2.7 / 4.6 / 8.3" were boxed on each other, a leader line through another box.

The plan (money in NT$ a month, from month 0; buying pays NT$5,426,381 up front): 1 × H100
rented by the hour (87,600), by the month (50,000) and on a 12-month contract (40,000) from
Stratagem; by the hour and by the month from RunPod (69,846 each); a 4-GPU server bought
(93,159 a month); AWS p5.48xlarge (1,285,734), p5.4xlarge (160,717), GCP a3-highgpu-8g
(2,067,126), Azure ND96isr (2,296,755) and Lambda 8 × H100 (745,651). Buying meets each
8-GPU cloud at 5,426,381 / (cloud − 93,159) months: 2.5, 2.7, 4.6 and 8.3.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from app import charts
from app.charts import costs as cost_charts
from app.charts.theme import legend_height_px
from tests.charts import samples
from tests.charts.draw_in_chromium import run_subprocess

LAYOUT_MODULE = "tests.charts.layout_in_chromium"
BUY_UPFRONT = 5_426_381.0
# (key, kind, English label, zh-TW label, NT$ a month)
PLAN: tuple[tuple[str, str, str, str, float], ...] = (
    ("rent_hourly:tpe", "rent_hourly", "Hourly rent · 1 × NVIDIA H100 SXM5 80GB · Stratagem Taipei",
     "時租 · 1 × NVIDIA H100 SXM5 80GB · Stratagem Taipei", 87_600.0),
    ("rent_monthly:tpe", "rent_monthly",
     "Monthly rent · 1 × NVIDIA H100 SXM5 80GB · Stratagem Taipei",
     "月租 · 1 × NVIDIA H100 SXM5 80GB · Stratagem Taipei", 50_000.0),
    ("rent_term:tpe", "rent_term", "Term rent · 12-month contract · 1 × NVIDIA H100 SXM5 80GB",
     "長約租用 · 12 個月合約 · 1 × NVIDIA H100 SXM5 80GB", 40_000.0),
    ("rent_hourly:runpod", "rent_hourly", "Hourly rent · 1 × NVIDIA H100 SXM5 80GB · RunPod",
     "時租 · 1 × NVIDIA H100 SXM5 80GB · RunPod", 69_846.0),
    ("rent_monthly:runpod", "rent_monthly", "Monthly rent · 1 × NVIDIA H100 SXM5 80GB · RunPod",
     "月租 · 1 × NVIDIA H100 SXM5 80GB · RunPod", 69_846.0),
    ("buy:h100-4", "buy", "Buy · 4 × NVIDIA H100 SXM5 80GB (the plan uses 1)",
     "自購 · 4 × NVIDIA H100 SXM5 80GB（方案使用 1 張）", 93_159.0),
    ("cloud:aws-48", "cloud", "Public cloud — AWS p5.48xlarge", "公有雲 — AWS p5.48xlarge",
     1_285_734.0),
    ("cloud:aws-4", "cloud", "Public cloud — AWS p5.4xlarge", "公有雲 — AWS p5.4xlarge",
     160_717.0),
    ("cloud:gcp", "cloud", "Public cloud — GCP a3-highgpu-8g", "公有雲 — GCP a3-highgpu-8g",
     2_067_126.0),
    ("cloud:azure", "cloud", "Public cloud — Azure Standard_ND96isr_H100_v5",
     "公有雲 — Azure Standard_ND96isr_H100_v5", 2_296_755.0),
    ("cloud:lambda", "cloud", "Public cloud — Lambda 8× H100 SXM5 80GB",
     "公有雲 — Lambda 8× H100 SXM5 80GB", 745_651.0),
)  # fmt: skip
BUY = next(row for row in PLAN if row[1] == "buy")


def _options(lang: str) -> list[dict[str, Any]]:
    out = []
    for key, kind, en, zh, monthly in PLAN:
        upfront = BUY_UPFRONT if kind == "buy" else 0.0
        cumulative = [upfront + monthly * m for m in range(61)]
        out.append({"key": key, "kind": kind, "label": en if lang == "en" else zh,
                    "cumulative": cumulative})  # fmt: skip
    return out


def _break_even() -> list[dict[str, Any]]:
    return [
        {"a": key, "b": BUY[0], "month": BUY_UPFRONT / (monthly - BUY[4]), "note": ""}
        for key, kind, _, _, monthly in PLAN
        if kind == "cloud" and BUY_UPFRONT / (monthly - BUY[4]) <= 60 and monthly > BUY[4]
    ]


def _figure(lang: str) -> Any:
    t = samples.zh if lang == "zh" else (lambda m: m)
    return charts.cumulative_costs(_options(lang), _break_even(), currency="TWD", t=t)


def test_the_plan_crosses_where_qa_saw_it() -> None:
    months = sorted(round(b["month"], 1) for b in _break_even())
    assert months == [2.5, 2.7, 4.6, 8.3]


# --- every series its own look ------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_two_series_look_alike(lang: str) -> None:
    lines = [tr for tr in _figure(lang).data if tr.meta.get("key")]
    assert len(lines) == len(PLAN)
    looks = [(tr.line.color, tr.line.dash, tr.marker.symbol) for tr in lines]
    assert len(set(looks)) == len(looks), looks


def test_the_offers_stand_out_from_the_clouds() -> None:
    """What the quote sells (rent, buy) is solid where it is the first of its kind, 3 px, and
    drawn above the clouds; a cloud is a comparison: 2 px, broken, in a warm colour."""
    lines = {tr.meta["key"]: tr for tr in _figure("en").data if tr.meta.get("key")}
    clouds = [tr for key, tr in lines.items() if key.startswith("cloud:")]
    offers = [tr for key, tr in lines.items() if not key.startswith("cloud:")]
    assert {tr.line.width for tr in offers} == {3} and {tr.line.width for tr in clouds} == {2}
    assert min(tr.zorder for tr in offers) > max(tr.zorder for tr in clouds)
    assert all(tr.line.dash != "solid" for tr in clouds)
    warm = {charts.PALETTE[1], charts.PALETTE[3], charts.PALETTE[6]}
    assert {tr.line.color for tr in clouds} <= warm
    for key in ("rent_hourly:tpe", "rent_monthly:tpe", "rent_term:tpe", "buy:h100-4"):
        assert lines[key].line.dash == "solid"
        assert lines[key].line.color == charts.KIND_COLOURS[lines[key].meta["key"].split(":")[0]]
    # RunPod's rents keep their kind's colour, dashed: the same kind from another provider.
    assert lines["rent_hourly:runpod"].line.color == lines["rent_hourly:tpe"].line.color
    assert lines["rent_hourly:runpod"].line.dash == "dash"


def test_many_options_never_share_a_look() -> None:
    """Past every colour and dash a marker symbol tells the series apart."""
    kinds = ("rent_hourly", "rent_monthly", "rent_term", "buy", "cloud", "cloud_reserved", "x")
    options = [
        {"key": f"{kind}:{n}", "kind": kind, "label": f"{kind} {n}", "cumulative": [0.0, 1.0 + n],
         **({"feasible": False} if n % 5 == 4 else {})}
        for kind, n in itertools.product(kinds, range(12))
    ]  # fmt: skip
    fig = charts.cumulative_costs(options, [], currency="TWD")
    looks = [(tr.line.color, tr.line.dash, tr.marker.symbol) for tr in fig.data]
    assert len(set(looks)) == len(options)
    infeasible = [tr for o, tr in zip(options, fig.data, strict=True) if o.get("feasible") is False]
    assert {tr.line.dash for tr in infeasible} == {"dot"}


# --- the legend on a phone ------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chart_grows_by_its_legend(lang: str) -> None:
    fig = _figure(lang)
    legend = legend_height_px(str(tr.name) for tr in fig.data)
    # One row an entry on a phone: 12 entries (11 options and the break-even marker), 20
    # lines in English.
    assert fig.layout.height >= cost_charts.CUMULATIVE_CHROME_PX + legend
    assert fig.layout.height > 480
    assert fig.layout.legend.maxheight == 1  # never a scrolling legend
    few = charts.cumulative_costs(_options(lang)[:2], [], currency="TWD")
    assert few.layout.height == 480


@pytest.mark.browser
def test_every_legend_entry_is_drawn_on_a_phone_and_in_the_pdf(tmp_path: Path) -> None:
    """In Chromium at the share page's 316 px (a 390 px phone), the PDF's 900 px and a
    desktop card's 1146 px: the legend ends inside the chart, nothing scrolls, and the plot
    keeps 200 px or more. The PDF is drawn 560 px high (app/quotes/pdf.py)."""
    specs = {lang: json.loads(charts.to_json(_figure(lang))) for lang in ("en", "zh")}
    for lang in ("en", "zh"):
        pdf = json.loads(charts.to_json(_figure(lang)))
        pdf["layout"]["height"] = 560
        specs[f"{lang}.pdf"] = pdf
    for width, names in ((316, ("en", "zh")), (1146, ("en", "zh")), (900, ("en.pdf", "zh.pdf"))):
        drawn = run_subprocess(LAYOUT_MODULE, {n: specs[n] for n in names}, tmp_path, str(width))
        assert drawn["errors"] == []
        for name in names:
            got = drawn[name]
            assert not got["scrolls"], (width, name)
            assert got["legend"][1] <= got["height"] + 1, (width, name, got)
            assert got["plot_h"] >= (200 if width != 900 else 150), (width, name, got)


# --- callouts -----------------------------------------------------------------------------


def _disjoint(a: list[float], b: list[float], gap: float = 1.0) -> bool:
    return a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1]


def _crosses(leader: list[float], box: list[float]) -> bool:
    x = (leader[0] + leader[2]) / 2
    return box[0] + 0.5 < x < box[2] - 0.5 and leader[1] < box[3] - 0.5 and box[1] + 0.5 < leader[3]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_crossing_qa_saw_has_a_box_none_on_another(lang: str) -> None:
    fig = _figure(lang)
    word = "Month {}" if lang == "en" else "第 {} 個月"
    texts = sorted(a.text for a in fig.layout.annotations)
    assert texts == sorted(word.format(m) for m in ("2.5", "2.7", "4.6", "8.3"))
    y_top = max(max(tr.y) for tr in fig.data if tr.meta.get("key"))
    boxes = [a.to_plotly_json() for a in fig.layout.annotations]
    for w, h, minor in cost_charts.CALLOUT_VIEWS:
        shown = [b for b in boxes if minor or b["name"] != "break_even_minor"]
        drawn = [cost_charts.callout_rects(b, 60, y_top, (w, h)) for b in shown]
        for (rect, leader), (o_rect, _) in itertools.permutations(drawn, 2):
            assert _disjoint(list(rect), list(o_rect)), (w, h)
            x, y0, y1 = leader
            assert not _crosses([x, y0, x, y1], list(o_rect)), (w, h)


def test_crowded_crossings_keep_to_the_plot_and_to_themselves() -> None:
    """Twelve crossings in the first months of a 60-month chart: at most MAX_CALLOUTS boxes,
    the ones with no room left out (each keeps its marker), none touching another."""
    options = [{"key": "buy", "kind": "buy", "label": "Buy",
                "cumulative": [1_000_000.0 + 10_000.0 * m for m in range(61)]}]  # fmt: skip
    pairs = []
    for n in range(12):
        monthly = 10_000.0 + 1_000_000.0 / (1.0 + 0.4 * n)
        options.append({"key": f"c{n}", "kind": "cloud", "label": f"Cloud {n}",
                        "cumulative": [monthly * m for m in range(61)]})  # fmt: skip
        pairs.append({"a": f"c{n}", "b": "buy", "month": 1.0 + 0.4 * n})
    fig = charts.cumulative_costs(options, pairs, currency="TWD")
    marker = next(tr for tr in fig.data if tr.meta.get("role") == "break_even")
    assert len(marker.x) == 12
    boxes = [a.to_plotly_json() for a in fig.layout.annotations]
    assert 1 <= len(boxes) <= charts.MAX_CALLOUTS
    y_top = max(max(tr.y) for tr in fig.data if tr.meta.get("key"))
    for w, h, _ in cost_charts.CALLOUT_VIEWS[1:]:
        drawn = [cost_charts.callout_rects(b, 60, y_top, (w, h)) for b in boxes]
        for (rect, _), (o_rect, _) in itertools.combinations(drawn, 2):
            assert _disjoint(list(rect), list(o_rect)), (w, h)
        assert all(-6 <= r[0] and r[2] <= w + 20 and r[1] >= -4 for r, _ in drawn)


@pytest.mark.browser
def test_no_callout_box_is_drawn_on_another_in_chromium(tmp_path: Path) -> None:
    """What Chromium draws, not the layout's own estimate: at the PDF's 900 × 560, a desktop
    card's 1146 px, the narrowest chart that keeps every box (560 px) and a phone (316 px,
    boxes off the cheapest line dropped as static/js/charts.js does), no box touches another
    and no leader line runs through another box."""
    specs = {lang: json.loads(charts.to_json(_figure(lang))) for lang in ("en", "zh")}
    for width, narrow, height in (
        (900, "", 560),
        (1146, "", None),
        (560, "", None),
        (316, "1", None),
    ):
        sized = {n: {**s, "layout": {**s["layout"], **({"height": height} if height else {})}}
                 for n, s in specs.items()}  # fmt: skip
        drawn = run_subprocess(LAYOUT_MODULE, sized, tmp_path, str(width), *[narrow] * bool(narrow))
        assert drawn["errors"] == []
        for name in specs:
            boxes, leaders = drawn[name]["boxes"], drawn[name]["leaders"]
            assert len(boxes) == (0 if narrow else 4), (width, name)
            for a, b in itertools.combinations(boxes, 2):
                assert _disjoint(a, b), (width, name, a, b)
            for leader, box in itertools.product(leaders, boxes):
                assert not _crosses(leader, box), (width, name, leader, box)
