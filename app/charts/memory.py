"""Memory per GPU as a stacked bar against the GPU's capacity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from app.charts.theme import (
    ALERT,
    INK,
    MEMORY_PARTS,
    TICK_FONT_SIZE,
    Translate,
    _axis,
    _esc,
    _figure,
    _gb,
    _identity,
    _layout,
    _num,
)

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
            hovertemplate=t("%(label)s: %(value)s")
            % {"label": _esc(t(label)), "value": "%{x:,.1f} GB"}
            + "<extra></extra>",
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
        # The top of the plot is left to the "Used" label (`_total_label`).
        yaxis=_axis("", showticklabels=False, ticks="", showline=False, domain=[0, 0.72]),
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
            _total_label(total, capacity_gb, top, _esc(total_text), over),
        ],
    )
    return _figure(traces, layout)


def _total_label(
    total: float, capacity_gb: float, top: float, text: str, over: bool
) -> dict[str, Any]:
    """The "Used N GB" annotation, in the strip above the bar, never crossed by the capacity
    line.

    Beside the bar's end it ran into the dashed capacity line whenever the bar ended within a
    label's width of it (73.9 of 80 GB, in the quote PDF), and over capacity it ran off a
    390 px screen ("Used 132"). It now stands at the bar's end or the line, whichever comes
    first: to its left when that is in the right half of the axis (`top` its end), else to
    its right — away from the line either way, inside the plot.
    """
    at = min(total, capacity_gb)
    right_half = at >= top / 2
    return {
        "x": at,
        "y": 1,
        "xref": "x",
        "yref": "paper",
        "yanchor": "top",
        "xanchor": "right" if right_half else "left",
        "xshift": -4 if right_half else 4,
        "text": text,
        "showarrow": False,
        "font": {"color": ALERT if over else INK, "size": TICK_FONT_SIZE},
        "name": "total",
    }
