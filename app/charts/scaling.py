"""GPUs against days to finish: the scaling curve with the deadline and the chosen count."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from app.charts.theme import (
    ALERT,
    BASE_FONT_SIZE,
    INK,
    PALETTE,
    Translate,
    _axis,
    _esc,
    _figure,
    _identity,
    _layout,
    _num,
    ticks_125,
)

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
        one = t("Chosen: %(gpus)s GPU, %(days)s days")  # "Chosen: 1 GPUs" read wrong
        label = (one if chosen == 1 else t("Chosen: %(gpus)s GPUs, %(days)s days")) % {
            "gpus": _num(chosen, 0),
            "days": _num(d, 2 if d < 10 else 1),
        }
        # Label on the side with room: below-left of a point in the right half of the (log)
        # axis, above-right in the left half — the falling curve leaves those corners empty.
        # Right of 16,384 of 1–32,768 GPUs it ran off the plot ("Chosen: 16384 G…"). On the
        # plot it takes two lines (the count, then from the days on), so that it fits a
        # 390 px phone; the legend keeps it on one.
        span = math.log(counts[-1] / counts[0]) if len(counts) > 1 else 0.0
        right_half = span > 0 and math.log(chosen / counts[0]) > span / 2
        position = "bottom left" if right_half else "top right"
        days_text = _num(d, 2 if d < 10 else 1)
        at = label.rfind(days_text)
        on_plot = (
            _esc(label[:at].rstrip(" ,，、")) + "<br>" + _esc(label[at:]) if at > 0 else _esc(label)
        )
        traces.append(
            go.Scatter(
                x=[chosen],
                y=[d],
                mode="markers+text",
                name=_esc(label),
                text=["  " + on_plot + "  "],
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
        # The deadline inside the ticked range: a 14-day line under a curve from 73 days
        # sat below the last tick (50) with nothing to read it against.
        lo = min(min(days), deadline_days or math.inf)
        hi = max(max(days), deadline_days or 0.0)
        ticks_y = ticks_125(lo / 1.5, hi * 1.5)
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
