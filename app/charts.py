"""Every chart of Stratagem, built in Python as Plotly figures (STYLE.md: the browser only draws).

Pages embed `to_json(fig)` in a data island and draw it with the vendored plotly.js basic
bundle (bar and scatter traces only — nothing here needs more); the PDF embeds
`to_svg(fig, width, height)`, rendered by kaleido ≥ 1 through Chromium.

Inputs are plain dicts and lists (the JSON of `EstimateResponse`, PRODUCT.md §5), so the web
layer and the PDF call the same functions with the same data:

- memory: `EstimateResponse.memory_per_gpu_gb` → {"weights", "gradients", "optimizer",
  "activations", "kv_cache", "overhead": GB, optional "total"}.
- cost options: `cost["options"]` → [{"key", "kind", "label", "monthly", "total", "upfront",
  "currency", "breakdown": {part: money}, "cumulative": [money at the end of month 0..H],
  "fixed_monthly", "metered_monthly_full", optional "feasible"}]; money in the currency
  passed as `currency`.
- break-evens: `cost["break_even"]` → [{"a": key, "b": key, "month": float | None}]; `a` is
  cheaper first and stops being cheaper at `month`.
- TCO: `cost["tco"]` → [{"label", optional "key"/"kind", "years": [{"year": 1, "capex",
  "storage_network", "power", "facility", "operations", "rent", "cloud", "residual", ...}]}]:
  cumulative money at the end of each year, split into stacked parts (any numeric key other
  than "year" and "total" is a part).
- reference architectures: [{"label", "monthly", "gpu_memory_gb", "power_kw", optional
  "monthly_min" and "monthly_max" for a price range}].

Text: every label goes through `t`, a gettext-style callable (English msgid in, translated
text out; identity by default). The web layer passes its `Translations.gettext` so the zh-TW
text lives in the gettext catalog; `MSGIDS` lists every msgid used here. Placeholders are
%-style named fields (`"Month %(month)s"`), filled after translation.
"""

from __future__ import annotations

import html
import math
import queue
import re
import textwrap
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

__all__ = [
    "CONFIG",
    "FONT_FAMILY",
    "MSGIDS",
    "PALETTE",
    "ChartRenderError",
    "architectures_compare",
    "cumulative_costs",
    "currency_prefix",
    "gpus_vs_days",
    "memory_bar",
    "tco_bars",
    "to_json",
    "to_png",
    "to_svg",
    "utilization_sensitivity",
]

Translate = Callable[[str], str]


def _identity(msgid: str) -> str:
    return msgid


# --- Look: one palette, one font, one set of axis defaults ------------------------------

FONT_FAMILY = "Noto Sans CJK TC, Noto Sans, sans-serif"
INK = "#1f2933"  # text and axis lines
MUTED = "#52606d"  # secondary text, reference lines
GRID = "#e4e7eb"
ALERT = "#c0392b"  # deadline, over capacity

# Tableau 10, reordered and with a darker teal: colour-blind-safe pairs, legible in print.
PALETTE: tuple[str, ...] = (
    "#4e79a7",  # 0 blue
    "#f28e2b",  # 1 orange
    "#59a14f",  # 2 green
    "#e15759",  # 3 red
    "#b07aa1",  # 4 purple
    "#3d8c8c",  # 5 teal
    "#9c755f",  # 6 brown
    "#edc948",  # 7 gold (areas and bars only: too light for a line)
    "#bab0ac",  # 8 warm grey
    "#76b7b2",  # 9 light teal
)

# A cost option keeps its colour on every chart: rent blues/teals, buying green, cloud warm.
KIND_COLOURS = {
    "rent_monthly": PALETTE[0],
    "rent_term": PALETTE[5],
    "rent_hourly": PALETTE[4],
    "mig": PALETTE[6],
    "buy": PALETTE[2],
    "cloud": PALETTE[1],
    "cloud_reserved": PALETTE[3],
}
_LINE_SAFE = (0, 1, 2, 3, 4, 5, 6)  # palette entries dark enough for a line

# Stacked parts: the same part has the same colour wherever it appears.
MEMORY_PARTS: tuple[tuple[str, str, str], ...] = (
    ("weights", "Weights", PALETTE[0]),
    ("gradients", "Gradients", PALETTE[1]),
    ("optimizer", "Optimizer states", PALETTE[2]),
    ("activations", "Activations", PALETTE[3]),
    ("kv_cache", "KV cache", PALETTE[4]),
    ("overhead", "Overhead", PALETTE[8]),
)
TCO_PARTS: tuple[tuple[str, str, str], ...] = (
    ("capex", "Hardware (capex)", PALETTE[2]),
    ("storage_network", "Storage and network", PALETTE[9]),
    ("power", "Power", PALETTE[7]),
    ("facility", "Facility (colocation)", PALETTE[6]),
    ("operations", "Operations", PALETTE[4]),
    ("rent", "Rent", PALETTE[0]),
    ("cloud", "Cloud", PALETTE[1]),
    ("residual", "Resale value", PALETTE[8]),
)
_TEMPLATE_COLOURS = (PALETTE[0], PALETTE[5], PALETTE[2], PALETTE[4], PALETTE[6])

BASE_FONT_SIZE = 14
TICK_FONT_SIZE = 13
TITLE_FONT_SIZE = 18

# plotly.js `config` for every chart (the data island carries it; charts.js passes it on).
CONFIG: dict[str, Any] = {
    "displaylogo": False,
    "responsive": True,
    "displayModeBar": "hover",
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d", "toggleSpikelines"],
    "toImageButtonOptions": {"format": "svg"},
}

_CURRENCY_PREFIX = {"TWD": "NT$", "USD": "US$"}


def currency_prefix(currency: str) -> str:
    """Money prefix for an ISO code: NT$ for TWD, US$ for USD, else "<CODE> "."""
    code = currency.upper()
    return _CURRENCY_PREFIX.get(code, f"{code} ")


def _unit(currency: str) -> str:
    """The currency as an axis unit: NT$, US$, or the ISO code."""
    return currency_prefix(currency).strip()


def _money(value: float, currency: str) -> str:
    sign = "−" if value < 0 else ""
    return f"{sign}{currency_prefix(currency)}{abs(value):,.0f}"


def _num(value: float, digits: int = 1) -> str:
    """1,234.5 with trailing zeros dropped (7.0 → 7)."""
    text = f"{value:,.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _gb(value: float) -> str:
    return f"{_num(value, 1 if value < 100 else 0)} GB"


def _esc(text: str) -> str:
    """Escape catalog text for plotly's pseudo-HTML labels (a label may contain < or &)."""
    return html.escape(str(text), quote=False)


def _wrap(text: str, width: int) -> str:
    """Break a label into lines of about `width` characters (plotly breaks only at <br>)."""
    lines = textwrap.wrap(str(text), width=width, break_long_words=True) or [""]
    return "<br>".join(_esc(line) for line in lines)


def _axis(title: str, **extra: Any) -> dict[str, Any]:
    axis: dict[str, Any] = {
        "title": {"text": title, "font": {"size": BASE_FONT_SIZE}, "standoff": 10},
        "tickfont": {"size": TICK_FONT_SIZE},
        "automargin": True,
        "showline": True,
        "linecolor": MUTED,
        "ticks": "outside",
        "tickcolor": MUTED,
        "gridcolor": GRID,
        "zeroline": False,
    }
    axis.update(extra)
    return axis


def _money_axis(title: str, currency: str, **extra: Any) -> dict[str, Any]:
    return _axis(
        title,
        tickprefix=currency_prefix(currency),
        tickformat=",.0f",
        separatethousands=True,
        rangemode="tozero",
        **extra,
    )


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "title": {
            "text": title,
            # From the figure's left edge: long category labels must not push the title.
            "x": 0.01,
            "xanchor": "left",
            "xref": "container",
            "font": {"size": TITLE_FONT_SIZE},
        },
        "font": {"family": FONT_FAMILY, "size": BASE_FONT_SIZE, "color": INK},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "separators": ".,",
        "autosize": True,
        "margin": {"l": 16, "r": 24, "t": 64, "b": 16, "autoexpand": True},
        # Below the plot, in container coordinates: never on top of the axis title.
        "legend": {
            "orientation": "h",
            "x": 0,
            "xanchor": "left",
            "y": 0,
            "yanchor": "bottom",
            "yref": "container",
            "font": {"size": TICK_FONT_SIZE},
            "bgcolor": "rgba(255,255,255,0)",
        },
        "hoverlabel": {"font": {"family": FONT_FAMILY, "size": TICK_FONT_SIZE}},
        "hovermode": "closest",
        "uniformtext": {"minsize": 12, "mode": "hide"},
    }
    layout.update(extra)
    return layout


def _figure(data: Iterable[Any], layout: dict[str, Any]) -> go.Figure:
    return go.Figure(data=list(data), layout=layout)


def _option_key(option: Mapping[str, Any]) -> str:
    return str(option.get("key") or option.get("kind") or option.get("label", ""))


def _option_styles(options: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(colour, dash) per option: its kind's colour, the next free one for a repeated kind."""
    used: set[str] = set()
    out: list[tuple[str, str]] = []
    for option in options:
        colour = KIND_COLOURS.get(str(option.get("kind", "")))
        dash = "solid"
        if colour is None or colour in used:
            free = [PALETTE[i] for i in _LINE_SAFE if PALETTE[i] not in used]
            if colour is not None:
                dash = "dash"
            colour = free[0] if free else PALETTE[_LINE_SAFE[len(out) % len(_LINE_SAFE)]]
        if option.get("feasible") is False:
            dash = "dot"
        used.add(colour)
        out.append((colour, dash))
    return out


def _option_name(option: Mapping[str, Any], t: Translate, width: int = 48) -> str:
    name = _wrap(str(option.get("label") or _option_key(option)), width)
    if option.get("feasible") is False:
        name += f" ({_esc(t('not feasible'))})"
    return name


# --- Memory -----------------------------------------------------------------------------


def memory_bar(
    memory_per_gpu: Mapping[str, float],
    capacity_gb: float,
    *,
    t: Translate = _identity,
    title: str | None = None,
) -> go.Figure:
    """Stacked horizontal bar of one GPU's memory by part, with the GPU's capacity marked.

    memory_per_gpu: GB (10^9 B) per part — weights, gradients, optimizer, activations,
    kv_cache, overhead (`EstimateResponse.memory_per_gpu_gb`; "total" and unknown keys are
    ignored, parts at 0 are left out). capacity_gb: memory of one GPU (or MIG slice), GB,
    drawn as a vertical line. Each segment is labelled in GB where it fits; the legend names
    every part with its value.
    """
    parts = [
        (key, label, colour, float(memory_per_gpu.get(key) or 0.0))
        for key, label, colour in MEMORY_PARTS
    ]
    parts = [p for p in parts if p[3] > 0]
    total = sum(p[3] for p in parts)
    row = t("Per GPU")
    traces = [
        go.Bar(
            x=[value],
            y=[row],
            orientation="h",
            name=f"{t(label)} {_gb(value)}",
            marker={"color": colour, "line": {"color": "white", "width": 1}},
            text=[_num(value, 1)],
            textposition="inside",
            insidetextanchor="middle",
            textfont={"size": TICK_FONT_SIZE},
            hovertemplate=f"{_esc(t(label))}: %{{x:,.1f}} GB<extra></extra>",
            meta={"part": key},
        )
        for key, label, colour, value in parts
    ]
    over = total > capacity_gb
    top = max(total, capacity_gb) * 1.12
    capacity_text = t("GPU memory %(gb)s") % {"gb": _gb(capacity_gb)}
    total_text = t("Used %(gb)s") % {"gb": _gb(total)}
    layout = _layout(
        title or t("Memory per GPU (GB)"),
        barmode="stack",
        height=300,
        legend={**_layout("")["legend"], "traceorder": "normal"},
        bargap=0.35,
        xaxis=_axis(t("Memory (GB)"), range=[0, top], ticksuffix=" GB"),
        yaxis=_axis("", showticklabels=False, ticks="", showline=False),
        shapes=[
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": capacity_gb,
                "x1": capacity_gb,
                "y0": 0,
                "y1": 1,
                "line": {"color": ALERT if over else INK, "width": 2.5, "dash": "dash"},
                "name": "capacity",
            }
        ],
        annotations=[
            {
                "x": capacity_gb,
                "y": 1,
                "xref": "x",
                "yref": "paper",
                "yanchor": "bottom",
                "xanchor": "right" if capacity_gb >= total else "left",
                "text": _esc(capacity_text),
                "showarrow": False,
                "font": {"color": ALERT if over else INK, "size": TICK_FONT_SIZE},
                "name": "capacity",
            },
            {
                "x": total,
                "y": row,
                "xref": "x",
                "yref": "y",
                "xanchor": "left",
                "xshift": 6,
                "text": _esc(total_text),
                "showarrow": False,
                "font": {"color": ALERT if over else INK, "size": TICK_FONT_SIZE},
                "name": "total",
            },
        ],
    )
    return _figure(traces, layout)


# --- GPUs vs time -----------------------------------------------------------------------


def gpus_vs_days(
    points: Sequence[tuple[int, float]],
    *,
    deadline_days: float | None = None,
    chosen: int | None = None,
    t: Translate = _identity,
    title: str | None = None,
) -> go.Figure:
    """Days to finish vs GPU count (log x), the deadline as a line, the chosen count marked.

    points: (GPU count, days to finish) for each count that fits, e.g. from
    `app.engine.planner.evaluate` over 1, 2, 4, 8, 16, 32, …; sorted here. deadline_days:
    drawn as a horizontal line when given. chosen: the GPU count of the plan (must be one of
    the points to be marked). The y axis turns logarithmic when days span over 30×.
    """
    pts = sorted((int(n), float(d)) for n, d in points)
    if not pts:
        raise ValueError("gpus_vs_days needs at least one (gpus, days) point")
    counts = [n for n, _ in pts]
    days = [d for _, d in pts]
    gpus_word = t("GPUs")
    days_word = t("days")
    traces: list[Any] = [
        go.Scatter(
            x=counts,
            y=days,
            mode="lines+markers",
            name=t("Days to finish"),
            line={"color": PALETTE[0], "width": 3},
            marker={"size": 9, "color": PALETTE[0]},
            hovertemplate=f"%{{x}} {_esc(gpus_word)}: %{{y:,.2f}} {_esc(days_word)}<extra></extra>",
            meta={"role": "curve"},
        )
    ]
    spread = max(days) / min(days) if min(days) > 0 else 1.0
    log_y = spread > 30
    if deadline_days is not None:
        label = t("Deadline: %(days)s days") % {"days": _num(deadline_days, 1)}
        x_lo, x_hi = counts[0] / 1.3, counts[-1] * 1.3
        traces.append(
            go.Scatter(
                x=[x_lo, x_hi],
                y=[deadline_days, deadline_days],
                mode="lines",
                name=_esc(label),
                line={"color": ALERT, "width": 2.5, "dash": "dash"},
                hovertemplate=f"{_esc(label)}<extra></extra>",
                meta={"role": "deadline"},
            )
        )
    if chosen is not None and chosen in counts:
        d = days[counts.index(chosen)]
        label = t("Chosen: %(gpus)s GPUs, %(days)s days") % {
            "gpus": chosen,
            "days": _num(d, 2 if d < 10 else 1),
        }
        # Label on the side with room: right of the point unless it is the last count.
        position = "middle left" if chosen == counts[-1] and len(counts) > 1 else "middle right"
        traces.append(
            go.Scatter(
                x=[chosen],
                y=[d],
                mode="markers+text",
                name=_esc(label),
                text=["  " + _esc(label) + "  "],
                textposition=position,
                textfont={"size": BASE_FONT_SIZE, "color": INK},
                marker={
                    "size": 18,
                    "color": "rgba(0,0,0,0)",
                    "line": {"color": INK, "width": 3},
                    "symbol": "circle",
                },
                hovertemplate=f"{_esc(label)}<extra></extra>",
                cliponaxis=False,
                meta={"role": "chosen"},
            )
        )
    ticks = counts if len(counts) <= 12 else counts[:: math.ceil(len(counts) / 12)]
    y_axis = _axis(t("Days to finish (days)"), rangemode="tozero")
    if log_y:
        # 1-2-5 ticks at full size: plotly's own log ticks print the minor digits tiny.
        lo, hi = min(days), max(max(days), deadline_days or 0.0)
        ticks_y = [
            m * 10**e
            for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
            for m in (1, 2, 5)
            if lo / 1.5 <= m * 10**e <= hi * 1.5
        ]
        y_axis.update(
            type="log",
            rangemode="normal",
            tickvals=ticks_y,
            ticktext=[_num(v, 3) for v in ticks_y],
        )
    layout = _layout(
        title or t("Time to finish vs number of GPUs"),
        height=440,
        xaxis=_axis(
            t("Number of GPUs (log scale)"),
            type="log",
            tickvals=ticks,
            ticktext=[f"{n:,}" for n in ticks],
            range=[math.log10(counts[0] / 1.3), math.log10(counts[-1] * 1.3)],
        ),
        yaxis=y_axis,
    )
    return _figure(traces, layout)


# --- Costs ------------------------------------------------------------------------------


def _at(series: Sequence[float], x: float) -> float:
    """Linear interpolation of a per-month series at fractional month `x`."""
    if x <= 0:
        return float(series[0])
    i = min(math.floor(x), len(series) - 2)
    frac = x - i
    return float(series[i]) * (1 - frac) + float(series[i + 1]) * frac


def _callouts(
    points: Sequence[tuple[float, float, str]], x_span: float, y_top: float
) -> list[dict[str, Any]]:
    """Boxed labels with a leader line for (x, y, text) points, placed so they do not collide.

    Points low on the chart get their label above, high ones below, the rest alternate;
    a label within 12 % of the x span of the previous one on the same side moves further out.
    """
    out: list[dict[str, Any]] = []
    last: dict[bool, tuple[float, int]] = {}
    for n, (x, y, text) in enumerate(sorted(points)):
        share = y / y_top if y_top > 0 else 0.5
        up = True if share < 0.3 else False if share > 0.8 else n % 2 == 0
        level = 0
        if up in last and x - last[up][0] < 0.12 * x_span:
            level = last[up][1] + 1
        last[up] = (x, level)
        out.append(
            {
                "x": x,
                "y": y,
                "xref": "x",
                "yref": "y",
                "text": _esc(text),
                "showarrow": True,
                "arrowhead": 0,
                "arrowwidth": 1.5,
                "arrowcolor": INK,
                "ax": 0,
                "ay": (-1 if up else 1) * (40 + 30 * level),
                "font": {"size": TICK_FONT_SIZE, "color": INK},
                "bgcolor": "rgba(255,255,255,0.9)",
                "bordercolor": INK,
                "borderwidth": 1,
                "borderpad": 3,
                "name": "break_even",
            }
        )
    return out


MAX_CALLOUTS = 6


def cumulative_costs(
    options: Sequence[Mapping[str, Any]],
    break_even: Sequence[Mapping[str, Any]],
    *,
    currency: str,
    t: Translate = _identity,
    months: int | None = None,
    title: str | None = None,
) -> go.Figure:
    """Cumulative cost per option by month, with the months where the curves cross marked.

    options: cost options (module docstring); `cumulative[i]` is the money spent by the end of
    month i (index 0 = upfront). break_even: [{"a", "b", "month"}] with `a`/`b` matching an
    option's "key" (or "kind", or "label"); `month` None or beyond the horizon is skipped.
    months: months to show (default: the longest series). Every crossing gets a marker; the
    crossings where the cheapest option changes (on the lower envelope) also get a
    "Month N" callout. Money axis: `currency` prefix, thousands separators.
    """
    horizon = max((len(o.get("cumulative") or []) - 1 for o in options), default=0)
    if months is not None:
        horizon = min(horizon, int(months))
    styles = _option_styles(options)
    by_key: dict[str, Mapping[str, Any]] = {}
    for o in options:
        for ref in (o.get("key"), o.get("kind"), o.get("label")):
            if ref:
                by_key.setdefault(str(ref), o)
    # plotly fills %{x}: the translated "Month %(month)s" keeps its own word order.
    month_at = _esc(t("Month %(month)s") % {"month": "%{x}"})
    traces: list[Any] = []
    for option, (colour, dash) in zip(options, styles, strict=True):
        series = [float(v) for v in (option.get("cumulative") or [])][: horizon + 1]
        traces.append(
            go.Scatter(
                x=list(range(len(series))),
                y=series,
                mode="lines",
                name=_option_name(option, t),
                line={"color": colour, "width": 3, "dash": dash},
                hovertemplate=(
                    f"{_esc(str(option.get('label', '')))}<br>{month_at}: "
                    f"{currency_prefix(currency)}%{{y:,.0f}}<extra></extra>"
                ),
                meta={"key": _option_key(option)},
            )
        )
    xs: list[float] = []
    ys: list[float] = []
    hover: list[str] = []
    labels: list[tuple[bool, float, float, str]] = []  # (off the envelope, x, y, text)
    for be in break_even:
        month = be.get("month")
        a, b = by_key.get(str(be.get("a"))), by_key.get(str(be.get("b")))
        if month is None or a is None or b is None or not 0 < float(month) <= horizon:
            continue
        month = float(month)
        y = _at(a["cumulative"], month)
        text = t("Month %(month)s") % {"month": _num(month, 1)}
        xs.append(month)
        ys.append(y)
        hover.append(
            f"{_esc(text)}: {_esc(str(b.get('label', '')))} = {_esc(str(a.get('label', '')))}"
            f"<br>{_money(y, currency)}"
        )
        lowest = min(
            _at(o["cumulative"], month) for o in options if len(o.get("cumulative") or []) > 1
        )
        labels.append((y > lowest + max(1.0, abs(lowest) * 1e-6), month, y, text))
    # Where the cheapest option changes matters most; other crossings are labelled while
    # there is room (every crossing keeps its marker and hover text).
    chosen = [(x, y, text) for _, x, y, text in sorted(labels)[:MAX_CALLOUTS]]
    y_top = max((max(tr.y, default=0.0) for tr in traces), default=0.0)
    annotations = _callouts(chosen, float(horizon or 1), float(y_top))
    if xs:
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                name=_esc(t("Break-even")),
                marker={
                    "size": 12,
                    "color": "white",
                    "line": {"color": INK, "width": 2.5},
                    "symbol": "circle",
                },
                hovertext=hover,
                hoverinfo="text",
                cliponaxis=False,
                meta={"role": "break_even"},
            )
        )
    layout = _layout(
        title or t("Cumulative cost by month"),
        height=480,
        xaxis=_axis(t("Months from start"), range=[0, horizon], rangemode="tozero"),
        yaxis=_money_axis(
            t("Cumulative cost (%(currency)s)") % {"currency": _unit(currency)}, currency
        ),
        annotations=annotations,
    )
    return _figure(traces, layout)


def tco_bars(
    tco: Sequence[Mapping[str, Any]],
    *,
    currency: str,
    t: Translate = _identity,
    years: Sequence[int] | None = None,
    title: str | None = None,
) -> go.Figure:
    """Cumulative total cost of ownership at the end of each year, stacked by part, per option.

    tco: [{"label", "years": [{"year": 1, "capex": …, "power": …, …}]}] (module docstring);
    parts are stacked in a fixed order (capex, storage_network, power, facility, operations,
    rent, cloud; residual, negative, to the left of zero). Horizontal bars, grouped by option
    (its label on the left, however long) with one bar per year; a diamond marks each bar's
    net total. years: the years to show (default: all given, normally 1–5).
    """
    known = [key for key, _, _ in TCO_PARTS]
    extra: list[str] = []
    for curve in tco:
        for year in curve.get("years") or []:
            for k, v in year.items():
                if k not in ("year", "total", *known, *extra) and isinstance(v, int | float):
                    extra.append(k)
    spare = [c for c in PALETTE if c not in {c for _, _, c in TCO_PARTS}] or [MUTED]
    parts = list(TCO_PARTS) + [
        (k, k.replace("_", " ").capitalize(), spare[i % len(spare)]) for i, k in enumerate(extra)
    ]
    wanted = set(years) if years is not None else None
    outer: list[str] = []
    inner: list[str] = []
    rows: list[Mapping[str, Any]] = []
    for curve in tco:
        name = _wrap(str(curve.get("label", "")), 30)
        for year in sorted(curve.get("years") or [], key=lambda y: int(y["year"])):
            if wanted is not None and int(year["year"]) not in wanted:
                continue
            outer.append(name)
            inner.append(_esc(t("Year %(year)s") % {"year": int(year["year"])}))
            rows.append(year)
    prefix = currency_prefix(currency)
    where = [[o.replace("<br>", " "), i] for o, i in zip(outer, inner, strict=True)]
    traces: list[Any] = []
    for key, label, colour in parts:
        values = [float(r.get(key) or 0.0) for r in rows]
        if not any(values):
            continue
        traces.append(
            go.Bar(
                x=values,
                y=[outer, inner],
                orientation="h",
                name=_esc(t(label)),
                marker={"color": colour, "line": {"color": "white", "width": 0.5}},
                customdata=where,
                hovertemplate=(
                    f"%{{customdata[0]}}, %{{customdata[1]}}<br>"
                    f"{_esc(t(label))}: {prefix}%{{x:,.0f}}<extra></extra>"
                ),
                meta={"part": key},
            )
        )
    totals = [
        float(r["total"])
        if r.get("total") is not None
        else sum(float(r.get(k) or 0.0) for k, _, _ in parts)
        for r in rows
    ]
    net = t("Net total")
    traces.append(
        go.Scatter(
            x=totals,
            y=[outer, inner],
            mode="markers",
            name=_esc(net),
            marker={"symbol": "diamond", "size": 10, "color": INK, "line": {"color": "white"}},
            customdata=where,
            hovertemplate=(
                f"%{{customdata[0]}}, %{{customdata[1]}}<br>"
                f"{_esc(net)}: {prefix}%{{x:,.0f}}<extra></extra>"
            ),
            cliponaxis=False,
            meta={"role": "total"},
        )
    )
    x_axis = _money_axis(
        t("Cumulative cost (%(currency)s)") % {"currency": _unit(currency)}, currency
    )
    x_axis["rangemode"] = "normal"
    layout = _layout(
        title or t("Total cost of ownership by year"),
        height=max(380, 190 + 20 * len(rows)),
        barmode="relative",
        bargap=0.18,
        xaxis=x_axis,
        yaxis=_axis("", type="multicategory", autorange="reversed", showgrid=False),
    )
    return _figure(traces, layout)


def utilization_sensitivity(
    options: Sequence[Mapping[str, Any]],
    *,
    currency: str,
    t: Translate = _identity,
    utilization: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """Monthly cost of each option vs GPU utilisation 0–100 %, break-even utilisations marked.

    options: cost options with "fixed_monthly" and "metered_monthly_full" (money per month
    independent of use, and the metered part at 100 % = 730 h); cost(u) = fixed + metered × u,
    as `app.engine.costs.monthly_cost_at_utilization`. Options without both are left out.
    Where two lines cross and the cheaper option changes (lower envelope), the utilisation is
    marked and labelled. utilization (0–1): the plan's utilisation, a dotted vertical line.
    """
    usable = [
        o
        for o in options
        if o.get("fixed_monthly") is not None and o.get("metered_monthly_full") is not None
    ]
    styles = _option_styles(usable)
    us = [i / 100 for i in range(0, 101, 5)]
    prefix = currency_prefix(currency)

    def cost(o: Mapping[str, Any], u: float) -> float:
        return float(o["fixed_monthly"]) + float(o["metered_monthly_full"]) * u

    traces: list[Any] = []
    for option, (colour, dash) in zip(usable, styles, strict=True):
        traces.append(
            go.Scatter(
                x=[u * 100 for u in us],
                y=[cost(option, u) for u in us],
                mode="lines",
                name=_option_name(option, t),
                line={"color": colour, "width": 3, "dash": dash},
                hovertemplate=(
                    f"{_esc(str(option.get('label', '')))}<br>%{{x:.0f}}%: "
                    f"{prefix}%{{y:,.0f}}<extra></extra>"
                ),
                meta={"key": _option_key(option)},
            )
        )
    crossings: list[tuple[float, float, str]] = []
    for i, a in enumerate(usable):
        for b in usable[i + 1 :]:
            slope = float(a["metered_monthly_full"]) - float(b["metered_monthly_full"])
            if abs(slope) < 1e-9:
                continue
            u = (float(b["fixed_monthly"]) - float(a["fixed_monthly"])) / slope
            if not 0 < u <= 1:
                continue
            y = cost(a, u)
            lowest = min(cost(o, u) for o in usable)
            if y <= lowest + max(1.0, abs(lowest) * 1e-6):
                label = f"{_esc(str(a.get('label', '')))} = {_esc(str(b.get('label', '')))}"
                crossings.append((u, y, label))
    annotations: list[dict[str, Any]] = []
    if crossings:
        crossings.sort()
        traces.append(
            go.Scatter(
                x=[u * 100 for u, _, _ in crossings],
                y=[y for _, y, _ in crossings],
                mode="markers",
                name=_esc(t("Break-even")),
                marker={"size": 12, "color": "white", "line": {"color": INK, "width": 2.5}},
                hovertext=[
                    f"{label}<br>{_num(u * 100, 0)}%: {_money(y, currency)}"
                    for u, y, label in crossings
                ],
                hoverinfo="text",
                cliponaxis=False,
                meta={"role": "break_even"},
            )
        )
        y_top = max((cost(o, 1.0) for o in usable), default=0.0)
        annotations = _callouts(
            [
                (u * 100, y, t("Break-even at %(pct)s") % {"pct": f"{_num(u * 100, 0)}%"})
                for u, y, _ in crossings[:MAX_CALLOUTS]
            ],
            100.0,
            y_top,
        )
    shapes: list[dict[str, Any]] = []
    if utilization is not None:
        x = max(0.0, min(1.0, float(utilization))) * 100
        shapes.append(
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": x,
                "x1": x,
                "y0": 0,
                "y1": 1,
                "line": {"color": MUTED, "width": 2, "dash": "dot"},
                "name": "utilization",
            }
        )
        annotations.append(
            {
                "x": x,
                "y": 1,
                "xref": "x",
                "yref": "paper",
                "yanchor": "bottom",
                "xanchor": "right" if x > 50 else "left",
                "text": _esc(t("This plan: %(pct)s") % {"pct": f"{_num(x, 0)}%"}),
                "showarrow": False,
                "font": {"size": TICK_FONT_SIZE, "color": MUTED},
                "name": "utilization",
            }
        )
    layout = _layout(
        title or t("Monthly cost vs GPU utilisation"),
        height=480,
        xaxis=_axis(
            t("GPU utilisation (share of 730 h a month)"),
            range=[0, 100],
            ticksuffix="%",
            dtick=10,
        ),
        yaxis=_money_axis(
            t("Cost per month (%(currency)s)") % {"currency": _unit(currency)}, currency
        ),
        shapes=shapes,
        annotations=annotations,
    )
    return _figure(traces, layout)


# --- Reference architectures ------------------------------------------------------------


def architectures_compare(
    templates: Sequence[Mapping[str, Any]],
    *,
    currency: str,
    t: Translate = _identity,
    title: str | None = None,
) -> go.Figure:
    """The reference templates side by side: monthly price, total GPU memory, power.

    templates: [{"label", "monthly", "gpu_memory_gb", "power_kw", optional "monthly_min",
    "monthly_max"}] (seed 003: entry, growth, training). Three panels with their own units,
    one bar per template in the same colour on each, every bar labelled with its value; a
    price range, when given, is drawn as an error bar on that template only.
    """
    metrics = (
        ("monthly", t("Price per month (%(currency)s)") % {"currency": _unit(currency)}),
        ("gpu_memory_gb", t("Total GPU memory (GB)")),
        ("power_kw", t("Power (kW)")),
    )
    # Three panels side by side, laid out by hand (make_subplots costs ≈40 ms a figure).
    gap = 0.1
    panel = (1 - 2 * gap) / 3
    domains = [[i * (panel + gap), i * (panel + gap) + panel] for i in range(3)]
    traces: list[Any] = []
    axes: dict[str, Any] = {}
    titles: list[dict[str, Any]] = []
    names = [_wrap(str(tpl.get("label", "")), 10) for tpl in templates]
    colours = [_TEMPLATE_COLOURS[i % len(_TEMPLATE_COLOURS)] for i in range(len(templates))]
    prefix = currency_prefix(currency)
    for col, (key, label) in enumerate(metrics, start=1):
        suffix = "" if col == 1 else str(col)
        xref, yref = f"x{suffix}", f"y{suffix}"
        values = [float(tpl.get(key) or 0.0) for tpl in templates]
        top = max(values, default=0.0)
        if key == "monthly":
            text = [_money(v, currency) for v in values]
            hover = f"%{{x}}<br>{prefix}%{{y:,.0f}}<extra></extra>"
        elif key == "gpu_memory_gb":
            text = [_gb(v) for v in values]
            hover = "%{x}<br>%{y:,.0f} GB<extra></extra>"
        else:
            text = [f"{_num(v, 2 if v < 10 else 1)} kW" for v in values]
            hover = "%{x}<br>%{y:,.2f} kW<extra></extra>"
        traces.append(
            go.Bar(
                x=names,
                xaxis=xref,
                yaxis=yref,
                y=values,
                marker={"color": colours},
                text=text,
                textposition="outside",
                constraintext="none",
                textfont={"size": TICK_FONT_SIZE},
                cliponaxis=False,
                hovertemplate=hover,
                showlegend=False,
                name=_esc(label),
                meta={"metric": key},
            )
        )
        ranged = [
            (name, tpl, v)
            for name, tpl, v in zip(names, templates, values, strict=True)
            if key == "monthly" and (tpl.get("monthly_min") is not None or tpl.get("monthly_max"))
        ]
        if ranged:
            lows = [float(tpl.get("monthly_min") or v) for _, tpl, v in ranged]
            highs = [float(tpl.get("monthly_max") or v) for _, tpl, v in ranged]
            top = max(top, *highs)
            traces.append(
                go.Scatter(
                    x=[name for name, _, _ in ranged],
                    xaxis=xref,
                    yaxis=yref,
                    y=[v for _, _, v in ranged],
                    mode="markers",
                    marker={"size": 1, "color": MUTED, "opacity": 0},
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": [
                            max(0.0, h - v) for h, (_, _, v) in zip(highs, ranged, strict=True)
                        ],
                        "arrayminus": [
                            max(0.0, v - lo) for lo, (_, _, v) in zip(lows, ranged, strict=True)
                        ],
                        "color": INK,
                        "thickness": 1.5,
                        "width": 8,
                    },
                    customdata=[
                        [_money(lo, currency), _money(h, currency)]
                        for lo, h in zip(lows, highs, strict=True)
                    ],
                    hovertemplate="%{x}<br>%{customdata[0]} – %{customdata[1]}<extra></extra>",
                    showlegend=False,
                    name=_esc(t("Price range")),
                    meta={"role": "price_range"},
                )
            )
        y_axis = _axis("", range=[0, (top or 1.0) * 1.18], showgrid=True)
        y_axis.update(tickformat=",.0f" if key != "power_kw" else ",~r")
        if key == "monthly":
            y_axis.update(tickprefix=prefix)
        axes[f"xaxis{suffix}"] = _axis(
            "", showgrid=False, tickangle=0, domain=domains[col - 1], anchor=yref
        )
        axes[f"yaxis{suffix}"] = {**y_axis, "anchor": xref}
        titles.append(
            {
                "text": _esc(label),
                "x": sum(domains[col - 1]) / 2,
                "y": 1,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "yshift": 8,
                "showarrow": False,
                "font": {"size": BASE_FONT_SIZE, "color": INK},
                "name": f"panel_{key}",
            }
        )
    layout = _layout(
        title or t("Reference architectures compared"),
        height=460,
        bargap=0.3,
        showlegend=False,
        annotations=titles,
        **axes,
    )
    layout["margin"] = {**layout["margin"], "t": 100}
    return _figure(traces, layout)


# --- Output -----------------------------------------------------------------------------

# JSON inside <script type="application/json">: "</script>" or "<!--" in a catalog label must
# not end the element, so the HTML-significant characters are written as JSON escapes.
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028"}
_JSON_ESCAPES["\u2029"] = "\\u2029"
_JSON_ESCAPE_RE = re.compile("[<>&\u2028\u2029]")


def _figure_dict(fig: go.Figure) -> dict[str, Any]:
    spec = fig.to_plotly_json()
    # No Python-side template: our look is set explicitly in each layout, and plotly.py's
    # default template would add ≈8 KB to every figure.
    spec.get("layout", {}).pop("template", None)
    return {"data": spec.get("data", []), "layout": spec.get("layout", {})}


def to_json(fig: go.Figure) -> str:
    """Compact JSON {"data", "layout", "config"} for a data island, safe inside <script>.

    Draw it with `Plotly.newPlot(el, spec.data, spec.layout, spec.config)`.
    """
    spec = _figure_dict(fig)
    spec["config"] = CONFIG
    text = pio.to_json(spec, validate=False, pretty=False, remove_uids=True)
    return _JSON_ESCAPE_RE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


class ChartRenderError(RuntimeError):
    """The static renderer (kaleido/Chromium) failed or did not answer in time."""


_RENDER_LOCK = threading.Lock()
_SERVER_STARTED = False
_STUCK: threading.Thread | None = None
_FONT_STYLE_RE = re.compile(r"<text\b([^>]*?)style=\"([^\"]*)\"")


def _start_server(timeout_s: float) -> None:
    """Start kaleido's Chromium once per process (≈0.1 s per figure after, ≈2.5 s without)."""
    global _SERVER_STARTED
    if _SERVER_STARTED:
        return
    import kaleido

    # mathjax=False: no MathJax from a CDN (nothing here is LaTeX, and the server may be
    # offline); kaleido's own per-figure timeout stops a render that hangs in Chromium.
    kaleido.start_sync_server(timeout=timeout_s, mathjax=False, silence_warnings=True)
    _SERVER_STARTED = True


def _font_attributes(svg: str) -> str:
    """Copy each <text>'s CSS font-family into a font-family attribute (WeasyPrint reads that)."""

    def add(m: re.Match[str]) -> str:
        attrs, style = m.group(1), m.group(2)
        if "font-family=" in attrs:
            return m.group(0)
        family = re.search(r"font-family:\s*([^;]+)", style)
        if family is None:
            return m.group(0)
        # Unquoted family names are valid in the attribute and need no escaping.
        value = re.sub(r"[\"']", "", html.unescape(family.group(1))).strip()
        return f'<text{attrs}font-family="{html.escape(value)}" style="{style}"'

    return _FONT_STYLE_RE.sub(add, svg)


def _render(fig: go.Figure, fmt: str, width: int, height: int, timeout_s: float) -> bytes:
    """One static image from kaleido's shared Chromium, one at a time, within `timeout_s`."""
    global _STUCK
    import kaleido

    if not _RENDER_LOCK.acquire(timeout=timeout_s):
        raise ChartRenderError(f"another chart has been rendering for over {timeout_s:g} s")
    try:
        # kaleido's server answers requests in order through one queue: a render that never
        # came back would hand its answer to the next caller, so refuse until it is gone.
        if _STUCK is not None and _STUCK.is_alive():
            raise ChartRenderError("an earlier chart render is still stuck in Chromium")
        _STUCK = None
        _start_server(timeout_s)
        spec = _figure_dict(fig)
        opts = {"format": fmt, "width": width, "height": height, "scale": 1}
        result: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)

        def render() -> None:
            try:
                result.put((True, kaleido.calc_fig_sync(spec, opts=opts)))
            except BaseException as e:  # handed to the caller's thread below
                result.put((False, e))

        # A daemon thread, so that a Chromium that never answers cannot block the caller
        # (the server's own queue has no timeout) nor the interpreter's exit.
        worker = threading.Thread(target=render, name="stratagem-chart-render", daemon=True)
        worker.start()
        try:
            ok, value = result.get(timeout=timeout_s)
        except queue.Empty:
            _STUCK = worker
            raise ChartRenderError(
                f"kaleido did not render the chart within {timeout_s:g} s"
            ) from None
        if not ok:
            raise ChartRenderError(f"kaleido failed: {value}") from value
        return value if isinstance(value, bytes) else str(value).encode()
    finally:
        _RENDER_LOCK.release()


def to_svg(fig: go.Figure, width: int = 900, height: int = 450, *, timeout_s: float = 60) -> str:
    """The figure as an SVG document (width × height px) for the PDF, rendered by kaleido.

    Starts kaleido's sync server (one headless Chromium) on first use and reuses it; renders
    one figure at a time. Every <text> carries a font-family attribute (WeasyPrint ignores
    the CSS one). Raises ChartRenderError when Chromium fails or takes longer than
    `timeout_s` (the first call includes starting Chromium, ≈2–3 s).
    """
    return _font_attributes(_render(fig, "svg", width, height, timeout_s).decode("utf-8"))


def to_png(fig: go.Figure, width: int = 900, height: int = 450, *, timeout_s: float = 60) -> bytes:
    """The figure as PNG bytes (width × height px, scale 1), rendered as `to_svg` is."""
    return _render(fig, "png", width, height, timeout_s)


# Every msgid passed to `t` in this module (the web layer's catalog must translate them).
MSGIDS: tuple[str, ...] = (
    "Activations",
    "Break-even",
    "Break-even at %(pct)s",
    "Chosen: %(gpus)s GPUs, %(days)s days",
    "Cloud",
    "Cost per month (%(currency)s)",
    "Cumulative cost (%(currency)s)",
    "Cumulative cost by month",
    "Days to finish",
    "Days to finish (days)",
    "Deadline: %(days)s days",
    "Facility (colocation)",
    "GPU memory %(gb)s",
    "GPU utilisation (share of 730 h a month)",
    "GPUs",
    "Gradients",
    "Hardware (capex)",
    "KV cache",
    "Memory (GB)",
    "Memory per GPU (GB)",
    "Month %(month)s",
    "Monthly cost vs GPU utilisation",
    "Months from start",
    "Net total",
    "Number of GPUs (log scale)",
    "Operations",
    "Optimizer states",
    "Overhead",
    "Per GPU",
    "Power",
    "Power (kW)",
    "Price per month (%(currency)s)",
    "Price range",
    "Reference architectures compared",
    "Rent",
    "Resale value",
    "Storage and network",
    "This plan: %(pct)s",
    "Time to finish vs number of GPUs",
    "Total GPU memory (GB)",
    "Total cost of ownership by year",
    "Used %(gb)s",
    "Weights",
    "Year %(year)s",
    "days",
    "not feasible",
)
