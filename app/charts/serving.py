"""Tokens/s per user against concurrency: the serving curve with both service-level targets.

Input: `EstimateResponse.inference.curve` → [{"concurrency", "tokens_per_s_per_user",
"ttft_s", ...}] (one replica, from `app.engine.inference.curve`), the targets of the request
(`slo.tokens_per_s_per_user`, `slo.ttft_s`) and the users one replica holds at them
(`inference.concurrency_per_replica`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from app.charts.theme import (
    ALERT,
    BASE_FONT_SIZE,
    INK,
    MUTED,
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


def ttft_limit(points: Sequence[Mapping[str, Any]], ttft_s: float) -> int | None:
    """The largest concurrency of the curve whose time to first token is within `ttft_s`
    (None when even one user waits longer)."""
    ok = [int(p["concurrency"]) for p in points if float(p["ttft_s"]) <= ttft_s]
    return max(ok) if ok else None


def serving_curve(
    points: Sequence[Mapping[str, Any]],
    *,
    tokens_per_s_target: float | None = None,
    ttft_target_s: float | None = None,
    chosen: int | None = None,
    t: Translate = _identity,
    title: str | None = None,
) -> go.Figure:
    """Tokens/s each user gets against users per replica (log x), both targets drawn.

    The tokens/s target is a horizontal line; the TTFT target is a vertical line at the
    largest concurrency whose first token still arrives in time (right of it users wait
    longer); `chosen` (users per replica at the targets) is marked on the curve.
    """
    pts = sorted(points, key=lambda p: int(p["concurrency"]))
    if not pts:
        raise ValueError("serving_curve needs at least one operating point")
    xs = [int(p["concurrency"]) for p in pts]
    ys = [float(p["tokens_per_s_per_user"]) for p in pts]
    users_word, rate_word = t("users"), t("tokens/s per user")
    traces: list[Any] = [
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            name=t("Tokens/s per user"),
            line={"color": PALETTE[0], "width": 3},
            marker={"size": 7, "color": PALETTE[0]},
            hovertemplate=(
                f"%{{x:,}} {_esc(users_word)}: %{{y:,.1f}} {_esc(rate_word)}<extra></extra>"
            ),
            meta={"role": "curve"},
        )
    ]
    x_lo, x_hi = xs[0] / 1.3, xs[-1] * 1.3
    if tokens_per_s_target:
        label = t("Target: %(rate)s tokens/s per user") % {"rate": _num(tokens_per_s_target, 1)}
        traces.append(
            go.Scatter(
                x=[x_lo, x_hi],
                y=[tokens_per_s_target, tokens_per_s_target],
                mode="lines",
                name=_esc(label),
                line={"color": ALERT, "width": 2.5, "dash": "dash"},
                hovertemplate=f"{_esc(label)}<extra></extra>",
                meta={"role": "rate_target"},
            )
        )
    y_hi = max(max(ys), tokens_per_s_target or 0.0) * 1.1
    if ttft_target_s:
        limit = ttft_limit(pts, ttft_target_s)
        label = t("First token ≤ %(s)s s") % {"s": _num(ttft_target_s, 2)}
        x_at = limit if limit is not None else x_lo
        traces.append(
            go.Scatter(
                x=[x_at, x_at],
                y=[min(min(ys), tokens_per_s_target or math.inf) / 1.3, y_hi],
                mode="lines",
                name=_esc(label),
                line={"color": MUTED, "width": 2.5, "dash": "dot"},
                hovertemplate=f"{_esc(label)}<extra></extra>",
                meta={"role": "ttft_target"},
            )
        )
    if chosen:
        # The curve's rate at `chosen`, interpolated in log concurrency between its points.
        rate = _at(xs, ys, chosen)
        label = t("At the targets: %(users)s users per replica") % {"users": f"{chosen:,}"}
        traces.append(
            go.Scatter(
                x=[chosen],
                y=[rate],
                mode="markers+text",
                name=_esc(label),
                text=["  " + _esc(label) + "  "],
                textposition="top right" if chosen < math.sqrt(xs[0] * xs[-1]) else "top left",
                textfont={"size": BASE_FONT_SIZE, "color": INK},
                marker={"size": 16, "color": "rgba(0,0,0,0)", "line": {"color": INK, "width": 3}},
                hovertemplate=f"{_esc(label)}<extra></extra>",
                cliponaxis=False,
                meta={"role": "chosen"},
            )
        )
    ticks = ticks_125(x_lo, x_hi)
    y_axis = _axis(t("Tokens/s per user"), rangemode="tozero", range=[0, y_hi])
    y_lo = min(min(ys), tokens_per_s_target or math.inf) / 1.3
    if y_hi / y_lo > 20:
        # Rates span decades (one user at hundreds of tokens/s, a full replica at a few): on a
        # linear axis the target line would sit on the floor.
        ticks_y = ticks_125(y_lo, y_hi)
        y_axis.update(
            type="log",
            rangemode="normal",
            range=[math.log10(y_lo), math.log10(y_hi)],
            tickvals=ticks_y,
            ticktext=[_num(v, 1) for v in ticks_y],
        )
    layout = _layout(
        title or t("Tokens/s per user vs concurrent users (one replica)"),
        height=440,
        xaxis=_axis(
            t("Concurrent users per replica (log scale)"),
            type="log",
            tickvals=ticks,
            ticktext=[f"{v:,}" for v in ticks],
            range=[math.log10(x_lo), math.log10(x_hi)],
        ),
        yaxis=y_axis,
    )
    return _figure(traces, layout)


def _at(xs: Sequence[int], ys: Sequence[float], x: float) -> float:
    """`ys` at `x`, linear in log(x) between the neighbouring points (clamped at the ends)."""
    if x <= xs[0]:
        return ys[0]
    for i in range(len(xs) - 1):
        x0, y0, x1, y1 = xs[i], ys[i], xs[i + 1], ys[i + 1]
        if x0 <= x <= x1:
            f = 0.0 if x1 == x0 else math.log(x / x0) / math.log(x1 / x0)
            return y0 + f * (y1 - y0)
    return ys[-1]
