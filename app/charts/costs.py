"""Cost charts: cumulative cost by month with break-evens, TCO bars, utilisation sensitivity."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any, Final

import plotly.graph_objects as go

from app.charts.theme import (
    INK,
    MUTED,
    PALETTE,
    TCO_PARTS,
    TICK_FONT_SIZE,
    Translate,
    _axis,
    _columns,
    _esc,
    _figure,
    _identity,
    _layout,
    _line_and_marker,
    _money,
    _money_axis,
    _num,
    _option_key,
    _option_name,
    _option_styles,
    _unit,
    _wrap,
    currency_prefix,
    legend_height_px,
    short_money_ticks,
)

# --- Costs ------------------------------------------------------------------------------


def _at(series: Sequence[float], x: float) -> float:
    """Linear interpolation of a per-month series at fractional month `x`."""
    if x <= 0:
        return float(series[0])
    i = min(math.floor(x), len(series) - 2)
    frac = x - i
    return float(series[i]) * (1 - frac) + float(series[i + 1]) * frac


def _callouts(
    points: Sequence[tuple[float, float, str]],
    x_span: float,
    y_top: float,
    *,
    below: bool = False,
) -> list[dict[str, Any]]:
    """Boxed labels with a leader line for (x, y, text) points, placed so they do not collide.

    A "\n" in a text starts a new line in its box. Points low on the chart get their label
    above, high ones below, the rest alternate (or go below with `below`: a point on the
    lower envelope has no line under it); a label within 12 % of the x span of the previous
    one on the same side moves further out.
    """
    out: list[dict[str, Any]] = []
    last: dict[bool, tuple[float, int]] = {}
    for n, (x, y, text) in enumerate(sorted(points)):
        share = y / y_top if y_top > 0 else 0.5
        up = True if share < 0.3 else False if share > 0.8 or below else n % 2 == 0
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
                "text": "<br>".join(_esc(line) for line in text.split("\n")),
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
                # the utilisation chart's boxes (a phone keeps their first line: the pair
                # they name covered the lines at 390 px, QA; static/js/charts.js)
                "name": "break_even_at",
                # Near either end the box grows inward: "Month 57.6" of 60 was cut at 390 px.
                "xanchor": "right"
                if x > 0.85 * x_span
                else "left"
                if x < 0.15 * x_span
                else "center",
            }
        )
    return out


MAX_CALLOUTS = 6
#: The cumulative chart's height less its legend: the title (64 px), a plot of 240 px and
#: the months axis below it (about 60 px).
CUMULATIVE_CHROME_PX = 64 + 240 + 60

#: Plot areas (width, height px) the cumulative chart's callouts are laid out for, and
#: whether the crossings off the cheapest line are shown there: a phone (static/js/charts.js
#: drops those below 560 px of chart), the narrowest chart that keeps them, the PDF (900 px
#: wide), a desktop card. A box that would touch another box, or another callout's leader
#: line, at any of them is moved; one with no room left is not drawn (its marker, hover and
#: row in the break-even table stay).
CALLOUT_VIEWS: tuple[tuple[float, float, bool], ...] = (
    (230, 220, False),
    (400, 260, True),
    (740, 220, True),
    (740, 320, True),
    (990, 300, True),
    (990, 520, True),
)
_LEADER_PX = 28  # the shortest leader line
_LEVEL_PX = 30  # one step further out: a one-line box (25 px) and a gap
_CALLOUT_LEVELS = 5


def callout_box_px(text: str) -> tuple[float, float]:
    """(width, height) px of a callout box at TICK_FONT_SIZE with its 3 px pad and 1 px
    border: about 7.5 px a Latin character and 13.5 a Chinese one (Noto Sans / CJK at
    13 px, a little over), 17 px a line ("第 2.5 個月" is drawn 71 × 25 px)."""
    lines = text.split("\n")
    width = max(sum(13.5 if _columns(c) == 2 else 7.5 for c in line) for line in lines)
    return width + 10, 17 * len(lines) + 8


def callout_rects(
    box: Mapping[str, Any], x_span: float, y_top: float, view: tuple[float, float]
) -> tuple[tuple[float, float, float, float], tuple[float, float, float]]:
    """Where a callout from `_place_callouts` is drawn in a plot of `view` (width, height)
    px, y down from the plot's top: its box (x0, y0, x1, y1) and its leader (x, y0, y1)."""
    w_px, h_px = view
    px = float(box["x"]) / x_span * w_px
    py = (1 - float(box["y"]) / y_top) * h_px if y_top > 0 else h_px / 2
    w, h = callout_box_px(str(box["text"]).replace("<br>", "\n"))
    x0 = {"left": px, "right": px - w, "center": px - w / 2}[str(box["xanchor"])]
    tail = py + float(box["ay"])
    y0 = tail - h if box["ay"] < 0 else tail
    return (x0, y0, x0 + w, y0 + h), (px, min(py, tail), max(py, tail))


def _overlap(a: tuple[float, ...], b: tuple[float, ...], pad: float = 3.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def _crosses(leader: tuple[float, float, float], rect: tuple[float, ...]) -> bool:
    x, y0, y1 = leader
    return rect[0] - 1 < x < rect[2] + 1 and y0 < rect[3] and rect[1] < y1


def _clear(
    box: Mapping[str, Any], placed: Sequence[Mapping[str, Any]], x_span: float, y_top: float
) -> bool:
    """True when `box` stays inside every view it is shown in and touches no placed box or
    leader line there (nor does its leader run through one)."""
    minor = box["name"] == "break_even_minor"
    for w_px, h_px, shows_minor in CALLOUT_VIEWS:
        if minor and not shows_minor:
            continue
        rect, leader = callout_rects(box, x_span, y_top, (w_px, h_px))
        if rect[0] < -6 or rect[2] > w_px + 20 or rect[1] < -4 or rect[3] > h_px + 2:
            return False
        for other in placed:
            if other["name"] == "break_even_minor" and not shows_minor:
                continue
            o_rect, o_leader = callout_rects(other, x_span, y_top, (w_px, h_px))
            if _overlap(rect, o_rect) or _crosses(leader, o_rect) or _crosses(o_leader, rect):
                return False
    return True


def _place_callouts(
    points: Sequence[tuple[float, float, str, bool]], x_span: float, y_top: float
) -> list[dict[str, Any]]:
    """Boxed "Month N" labels with a leader line for (x, y, text, minor) points, in the
    order given (the most important first), none touching another (CALLOUT_VIEWS).

    A "\n" in a text starts a new line. A box sits beside its leader line, on the side away
    from the nearer edge of the plot, above its point (below when the point is in the top
    fifth), one step further out or on the other side where that is taken. Callouts are
    placed from the right: boxes reaching right from their leaders then stack as a
    staircase, each leader passing left of the boxes below it. QA: "Month 2.5 / 2.7 / 4.6 /
    8.3" were drawn on each other, a leader through another box. At most MAX_CALLOUTS.
    """
    majors = [p for p in points if not p[3]]
    minors = [p for p in points if p[3]]
    placed: list[dict[str, Any]] = []
    for group in (majors, minors):
        # The first that fit are placed from the right; the rest fill a place one of them
        # could not take.
        room = MAX_CALLOUTS - len(placed)
        wanted = sorted(group[:room], key=lambda p: -p[0]) + list(group[room:])
        for x, y, text, minor in wanted:
            if len(placed) >= MAX_CALLOUTS:
                break
            up_first = not (y_top > 0 and y / y_top > 0.8)
            anchors = ("right", "left") if x > 0.6 * x_span else ("left", "right")
            base = {
                "x": x,
                "y": y,
                "xref": "x",
                "yref": "y",
                "text": "<br>".join(_esc(line) for line in text.split("\n")),
                "showarrow": True,
                "arrowhead": 0,
                "arrowwidth": 1.5,
                "arrowcolor": INK,
                "ax": 0,
                "font": {"size": TICK_FONT_SIZE, "color": INK},
                "bgcolor": "rgba(255,255,255,0.9)",
                "bordercolor": INK,
                "borderwidth": 1,
                "borderpad": 3,
                "name": "break_even_minor" if minor else "break_even",
            }
            # Beside the leader on the preferred side first, however far out: a box reaching
            # the other way covers the leaders of the crossings not yet placed.
            candidates = (
                {**base, "ay": ay, "xanchor": anchor, "yanchor": "bottom" if ay < 0 else "top"}
                for anchor in (*anchors, "center")
                for level in range(_CALLOUT_LEVELS)
                for up in (up_first, not up_first)
                for ay in [(-1 if up else 1) * (_LEADER_PX + _LEVEL_PX * level)]
            )
            found = next((box for box in candidates if _clear(box, placed, x_span, y_top)), None)
            if found is not None:
                placed.append(found)
    order = {id(box): i for i, box in enumerate(placed)}
    return sorted(placed, key=lambda b: (float(b["x"]), order[id(b)]))


def _two_lines(title: str) -> str:
    """An axis title with its parenthesis on a second line: plotly does not wrap, and on a
    390 px phone "GPU utilisation (share of 730 h a month" was cut at its last character."""
    at = min((i for i in (title.find("("), title.find("（")) if i > 0), default=-1)
    return title if at < 0 else title[:at].rstrip() + "<br>" + title[at:]


def _resale(option: Mapping[str, Any]) -> tuple[int, float] | None:
    """(month, credit ≤ 0): where an option's curve drops by the resale of its bought hardware.

    The engine sells at the end of the holding period, the month a purchase is billed to
    (`billed.quantity`, app.engine.costs.ownership); `breakdown["residual"]` is the credit.
    None for an option that resells nothing inside its curve.
    """
    credit = float((option.get("breakdown") or {}).get("residual") or 0.0)
    billed = option.get("billed") or {}
    if credit >= 0 or billed.get("unit") != "month":
        return None
    month = round(float(billed.get("quantity") or 0.0))
    if not 1 <= month < len(option.get("cumulative") or []):
        return None
    return month, credit


def _two_line_callout(text: str) -> str:
    """A long callout on two lines, broken after its first comma ("Month 60," / "only …")."""
    for sep in (", ", ",", "，"):
        at = text.find(sep)
        if at > 0:
            return text[: at + len(sep)].rstrip() + "\n" + text[at + len(sep) :].lstrip()
    return text


MONTH_TICKS_UP_TO: Final = 12  # a month axis this long or shorter labels every month


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
    "Month N" callout (N to a tenth, as the pages' break-even tables write it). A crossing
    with a `note` (app.engine.costs.compare.break_evens) exists only because bought hardware
    is resold that month: it is marked on the resale month itself, "Month 60, resale only"
    (its hover says the rest), never at a month interpolated across the one-off sale. A
    purchase's resale is drawn as a drop within its month (`_resale`), so that marker sits on
    the line. Money axis: `currency` prefix, thousands separators.
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
    for option, style in zip(options, styles, strict=True):
        series = [float(v) for v in (option.get("cumulative") or [])][: horizon + 1]
        xs_line: list[float] = list(range(len(series)))
        ys_line = list(series)
        notes = [""] * len(series)
        sale = _resale(option)
        if sale is not None and sale[0] < len(series):
            # The month of the sale twice: what was spent before the resale, then after it.
            m, credit = sale
            xs_line.insert(m, m)
            ys_line.insert(m, series[m] - credit)
            notes[m] = " · " + _esc(t("after the resale at book value"))
            notes.insert(m, " · " + _esc(t("before the resale")))
        traces.append(
            go.Scatter(
                x=xs_line,
                y=ys_line,
                text=notes if sale is not None else None,
                name=_option_name(option, t),
                # The offers a quote sells are drawn over the clouds they are compared with.
                zorder=0 if style.comparison else 1,
                **_line_and_marker(style),
                hovertemplate=(
                    f"{_esc(str(option.get('label', '')))}<br>{month_at}: "
                    f"{currency_prefix(currency)}%{{y:,.0f}}"
                    + ("%{text}" if sale is not None else "")
                    + "<extra></extra>"
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
        extra = ""
        if be.get("note"):
            # Only the one-off sale makes the curves cross: mark the month of the sale, on
            # the option that stays cheaper until then (the drop of the seller passes it).
            month = float(math.ceil(month - 1e-9))
            text = t("Month %(month)s, resale only") % {"month": _num(month, 0)}
            note = t(
                "Only through the resale at book value: %(b)s sells its hardware in month "
                "%(month)s; before that, %(a)s stays cheaper."
            ) % {"a": a.get("label", ""), "b": b.get("label", ""), "month": _num(month, 0)}
            extra = "<br>" + _wrap(note, 44)
        else:
            text = t("Month %(month)s") % {"month": _num(month, 1)}
        y = _at(a["cumulative"], month)
        xs.append(month)
        ys.append(y)
        hover.append(
            t("%(label)s: %(value)s")
            % {
                "label": _esc(text),
                "value": f"{_esc(str(b.get('label', '')))} = {_esc(str(a.get('label', '')))}",
            }
            + f"<br>{_money(y, currency)}{extra}"
        )
        text = _two_line_callout(text) if be.get("note") else text
        # On the lower envelope when no third option is cheaper there: the pair's own curves
        # are left out, since a purchase's curve has already dropped by its resale in the
        # month of the sale ("Month 60, resale only" lost its callout to five cloud crossings).
        others = [
            _at(o["cumulative"], month)
            for o in options
            if len(o.get("cumulative") or []) > 1 and o is not a and o is not b
        ]
        lowest = min(others, default=y)
        labels.append((y > lowest + max(1.0, abs(lowest) * 1e-6), month, y, text))
    # Where the cheapest option changes matters most; other crossings are labelled while
    # there is room (every crossing keeps its marker and hover text).
    y_top = max((max(tr.y, default=0.0) for tr in traces), default=0.0)
    # Two options at one price (AWS p5.48xlarge and 8 × p5.4xlarge) cross a third at the same
    # point: one callout says it ("Month 9.9" was boxed twice, one over the other).
    distinct: list[tuple[bool, float, float, str]] = []
    for item in sorted(labels):
        if not any(
            text == item[3] and abs(y - item[2]) <= 0.02 * max(y_top, 1.0)
            for _, _, y, text in distinct
        ):
            distinct.append(item)
    # A crossing where the cheapest option does not change is named apart: a phone has room
    # for few boxes and keeps only the others (static/js/charts.js); its marker stays, and
    # the break-even table beside the chart names every crossing.
    annotations = _place_callouts(
        [(x, y, text, off) for off, x, y, text in distinct], float(horizon or 1), float(y_top)
    )
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
    # Every legend entry is read on a phone too, where each takes a row of its own: the
    # chart grows by the legend's height (QA: 11 options at 390 px, the legend scrolled at
    # half of 480 px and the last five names were cut off).
    legend = legend_height_px(str(tr.name) for tr in traces)
    layout = _layout(
        title or t("Cumulative cost by month"),
        height=max(480, CUMULATIVE_CHROME_PX + legend),
        legend={**_layout("")["legend"], "maxheight": 1},
        xaxis=_axis(
            t("Months from start"),
            range=[0, horizon],
            rangemode="tozero",
            # whole months: plotly's own ticks over a 4-month phased plan read 0, 0.5, 1, …
            # 3.5 (QA); past a year its automatic step is a whole number of months already
            **({"tick0": 0, "dtick": 1} if horizon <= MONTH_TICKS_UP_TO else {}),
        ),
        yaxis=short_money_ticks(
            _money_axis(
                t("Cumulative cost (%(currency)s)") % {"currency": _unit(currency)}, currency
            ),
            *_y_span(traces),
            currency,
            t,
        ),
        annotations=annotations,
    )
    return _figure(traces, layout)


def _y_span(traces: Sequence[Any]) -> tuple[float, float]:
    """The lowest and highest y of `traces` (0 when there is none)."""
    ys = [float(y) for tr in traces for y in (tr.y or ()) if y is not None]
    return min(ys, default=0.0), max(ys, default=0.0)


def tco_bars(
    tco: Sequence[Mapping[str, Any]],
    *,
    currency: str,
    t: Translate = _identity,
    years: Sequence[int] | None = None,
    title: str | None = None,
) -> go.Figure:
    """Total cost of ownership of each horizon of 1–5 years, stacked by part, per option.

    tco: [{"label", "years": [{"year": 1, "capex": …, "power": …, …}]}] (module docstring):
    year N is what was paid by the end of year N less the resale, at book value, of bought
    hardware sold then (app.engine.costs.tco), so the axis says "net" and the residual part
    "resale at year end". Parts are stacked in a fixed order (capex,
    storage_network, power, facility, operations, rent, cloud; residual, negative, to the
    left of zero). Horizontal bars, grouped by option (its label on the left, however long)
    with one bar per year, every year labelled; a diamond marks each bar's net total.
    years: the years to show (default: all given, normally 1–5).
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
    # A year's residual is a sale at that year's end, not the resale at the end of the need.
    names = {"residual": t("Resale at year end")}
    traces: list[Any] = []
    for key, label, colour in parts:
        values = [float(r.get(key) or 0.0) for r in rows]
        if not any(values):
            continue
        name = names.get(key) or t(label)
        traces.append(
            go.Bar(
                x=values,
                y=[outer, inner],
                orientation="h",
                name=_esc(name),
                marker={"color": colour, "line": {"color": "white", "width": 0.5}},
                customdata=where,
                hovertemplate=(
                    "%{customdata[0]}, %{customdata[1]}<br>"
                    + t("%(label)s: %(value)s")
                    % {"label": _esc(name), "value": f"{prefix}%{{x:,.0f}}"}
                    + "<extra></extra>"
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
                "%{customdata[0]}, %{customdata[1]}<br>"
                + t("%(label)s: %(value)s") % {"label": _esc(net), "value": f"{prefix}%{{x:,.0f}}"}
                + "<extra></extra>"
            ),
            cliponaxis=False,
            meta={"role": "total"},
        )
    )
    x_axis = _money_axis(
        _two_lines(t("Net cost by year end (%(currency)s)") % {"currency": _unit(currency)}),
        currency,
    )
    x_axis["rangemode"] = "normal"
    # 10M, not 10,000,000: a year's resale to the left of zero narrows the ticks' spacing
    # and "NT$10,000,000NT$20,000,000" ran together (the hover keeps whole amounts); in the
    # reader's own scale (10億 in Chinese, not plotly's SI "1G").
    lows = [sum(min(float(r.get(k) or 0.0), 0.0) for k, _, _ in parts) for r in rows]
    highs = [sum(max(float(r.get(k) or 0.0), 0.0) for k, _, _ in parts) for r in rows]
    short_money_ticks(x_axis, min(lows, default=0.0), max(highs, default=0.0), currency, t)
    layout = _layout(
        title or t("Total cost of ownership by year"),
        # 24 px a bar: every "Year N" label has room (at 20 px plotly showed every other one).
        height=max(380, 190 + 24 * len(rows)),
        barmode="relative",
        bargap=0.18,
        xaxis=x_axis,
        # dtick 1: a label on every bar; plotly's automatic ticks skip categories it thinks
        # crowded ("Year 2, Year 4" under one option, "Year 1, 3, 5" under the next).
        yaxis=_axis(
            "",
            type="multicategory",
            autorange="reversed",
            showgrid=False,
            tickmode="linear",
            tick0=0,
            dtick=1,
        ),
    )
    return _figure(traces, layout)


def utilization_sensitivity(
    options: Sequence[Mapping[str, Any]],
    *,
    currency: str,
    t: Translate = _identity,
    utilization: float | None = None,
    title: str | None = None,
    break_even: Sequence[Mapping[str, Any]] | None = None,
) -> go.Figure:
    """Monthly cost of each option vs GPU utilisation 0–100 %, break-even utilisations marked.

    options: cost options with "fixed_monthly" and "metered_monthly_full" (money per month
    independent of use, and the metered part at 100 % = 730 h); cost(u) = fixed + metered × u,
    as `app.engine.costs.monthly_cost_at_utilization`. Options without both are left out.
    break_even: the engine's pairs [{"a": key, "b": key, "utilization": 0–1}]
    (`cost["break_even_utilization"]`); only those where the cheapest option changes (lower
    envelope) are marked, each labelled with its utilisation and its pair ("Break-even at
    38%" / "12-month contract = Lambda …"), and the legend says which crossings those are. utilization (0–1): the plan's utilisation, a dotted vertical line.
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
    for option, style in zip(usable, styles, strict=True):
        traces.append(
            go.Scatter(
                x=[u * 100 for u in us],
                y=[cost(option, u) for u in us],
                name=_option_name(option, t),
                zorder=0 if style.comparison else 1,
                **_line_and_marker(style),
                hovertemplate=(
                    f"{_esc(str(option.get('label', '')))}<br>%{{x:.0f}}%: "
                    f"{prefix}%{{y:,.0f}}<extra></extra>"
                ),
                meta={"key": _option_key(option)},
            )
        )
    # The break-evens come from the engine (`utilization_break_evens`), the same figures the
    # /tco hint and the explanations show; the chart only places them.
    by_key = {_option_key(o): o for o in usable}
    crossings: list[tuple[float, float, str]] = []
    for pair in break_even or []:
        a, b = by_key.get(str(pair.get("a"))), by_key.get(str(pair.get("b")))
        u = pair.get("utilization")
        if a is None or b is None or u is None or not 0 < float(u) <= 1:
            continue
        u = float(u)
        y = cost(a, u)
        lowest = min(cost(o, u) for o in usable)
        if y <= lowest + max(1.0, abs(lowest) * 1e-6):
            crossings.append((u, y, f"{a.get('label', '')} = {b.get('label', '')}"))
    annotations: list[dict[str, Any]] = []
    if crossings:
        crossings.sort()
        traces.append(
            go.Scatter(
                x=[u * 100 for u, _, _ in crossings],
                y=[y for _, y, _ in crossings],
                mode="markers",
                # Only these crossings are marked; the pages' table lists every pair.
                name=_esc(t("Break-even (cheapest changes)")),
                marker={"size": 12, "color": "white", "line": {"color": INK, "width": 2.5}},
                hovertext=[
                    f"{_esc(label)}<br>{_num(u * 100, 0)}%: {_money(y, currency)}"
                    for u, y, label in crossings
                ],
                hoverinfo="text",
                cliponaxis=False,
                meta={"role": "break_even"},
            )
        )
        y_top = max((cost(o, 1.0) for o in usable), default=0.0)
        # Each box names its pair: the chart marks only where the cheapest option changes,
        # and "Break-even at 38%" alone did not say which of the table's pairs that was.
        annotations = _callouts(
            [
                (
                    u * 100,
                    y,
                    "\n".join(
                        [
                            t("Break-even at %(pct)s") % {"pct": f"{_num(u * 100, 0)}%"},
                            *textwrap.wrap(pair, 32, break_long_words=False),
                        ]
                    ),
                )
                for u, y, pair in crossings[:MAX_CALLOUTS]
            ],
            100.0,
            y_top,
            below=True,
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
            _two_lines(t("GPU utilisation (share of 730 h a month)")),
            range=[0, 100],
            ticksuffix="%",
            dtick=10,
        ),
        yaxis=short_money_ticks(
            _money_axis(
                t("Cost per month (%(currency)s)") % {"currency": _unit(currency)}, currency
            ),
            *_y_span(traces),
            currency,
            t,
        ),
        shapes=shapes,
        annotations=annotations,
    )
    return _figure(traces, layout)
