"""Predicted against reported for every published run: a log-log scatter with y = x.

A point on the diagonal is a run the engine predicts exactly; the dashed lines at y = 2x and
y = x/2 bound the issue's "no row off by more than 2×". Units differ between rows (GPU-hours,
tokens/s, ms) — each point is compared with itself only, so one log-log plane holds them all.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from app.charts.theme import (
    MUTED,
    PALETTE,
    Translate,
    _axis,
    _esc,
    _figure,
    _identity,
    _layout,
)

_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "star", "hexagon")


def predicted_vs_reported(
    rows: Sequence[Mapping[str, Any]],
    *,
    t: Translate = _identity,
    title: str | None = None,
) -> go.Figure:
    """One trace per `label` (a category, translated by the caller) and the y = x line.

    rows: [{"label", "predicted", "reported", "text"}] — predicted and reported > 0 in the
    row's own unit; text is the hover line (model, GPUs, metric). The axes span the points
    with a margin of ×1.5 on each side, in decades.
    """
    pts = [r for r in rows if float(r["predicted"]) > 0 and float(r["reported"]) > 0]
    if not pts:
        raise ValueError("predicted_vs_reported needs at least one row with positive figures")
    values = [float(r[k]) for r in pts for k in ("predicted", "reported")]
    lo, hi = min(values) / 1.5, max(values) * 1.5
    labels: list[str] = []
    for r in pts:
        if r["label"] not in labels:
            labels.append(str(r["label"]))
    traces: list[Any] = []
    for i, label in enumerate(labels):
        mine = [r for r in pts if r["label"] == label]
        traces.append(
            go.Scatter(
                x=[float(r["reported"]) for r in mine],
                y=[float(r["predicted"]) for r in mine],
                mode="markers",
                name=_esc(label),
                text=[_esc(str(r.get("text", ""))) for r in mine],
                marker={
                    "size": 10,
                    "color": PALETTE[i % len(PALETTE)],
                    "symbol": _SYMBOLS[i % len(_SYMBOLS)],
                    "line": {"color": "white", "width": 1},
                },
                hovertemplate="%{text}<br>"
                + _esc(t("Reported"))
                + " %{x:,.4g} · "
                + _esc(t("Predicted"))
                + " %{y:,.4g}<extra></extra>",
                meta={"role": "runs"},
            )
        )
    exact = t("Exact (y = x)")
    traces.append(
        go.Scatter(
            x=[lo, hi],
            y=[lo, hi],
            mode="lines",
            name=_esc(exact),
            line={"color": MUTED, "width": 2},
            hoverinfo="skip",
            meta={"role": "identity"},
        )
    )
    off = t("2× off")
    for factor, show in ((2.0, True), (0.5, False)):
        traces.append(
            go.Scatter(
                x=[lo, hi],
                y=[lo * factor, hi * factor],
                mode="lines",
                name=_esc(off),
                legendgroup="off",
                showlegend=show,
                line={"color": MUTED, "width": 1.5, "dash": "dash"},
                hoverinfo="skip",
                meta={"role": "bound", "factor": factor},
            )
        )
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    ticks = [10.0**e for e in decades]
    log_axis = {
        "type": "log",
        "range": [math.log10(lo), math.log10(hi)],
        "tickvals": ticks,
        "ticktext": [_tick(v) for v in ticks],
    }
    layout = _layout(
        title or t("Engine against published runs (log-log)"),
        # constrain: the square plot shrinks to fit instead of stretching the x range.
        xaxis=_axis(t("Reported by the source (log scale)"), **log_axis, constrain="domain"),
        yaxis=_axis(t("Predicted by the engine (log scale)"), **log_axis, scaleanchor="x"),
        height=640,
    )
    layout["margin"]["b"] = 110  # the legend sits below the plot, in container coordinates
    return _figure(traces, layout)


def _tick(value: float) -> str:
    """10^e as 0.01, 1, 1k, 1M: short labels that fit a phone's width."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:g}{suffix}"
    return f"{value:g}"
