"""A phased plan as a horizontal timeline: one row per scenario, one bar per phase (months)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from app.charts.theme import Translate, _identity

# One colour per GPU count (1, 2, 4, 8, 16+), so a phase's size reads at a glance.
_COUNT_COLOURS = ("#2563eb", "#0f766e", "#c2410c", "#7c3aed", "#be123c")


def plan_timeline(
    rows: Sequence[tuple[str, Sequence[Mapping[str, Any]]]], *, t: Translate = _identity
) -> go.Figure:
    """`rows`: (scenario name, phases) where a phase has `gpu_count`, `months`, `start_month`
    and `label` (a plan's `schedule.phases`)."""
    fig = go.Figure()
    for name, phases in rows:
        for p in phases:
            count = f"{float(p.get('gpu_count') or 0):g}"
            fig.add_bar(
                y=[name],
                x=[float(p.get("months") or 0)],
                base=[float(p.get("start_month") or 0)],
                orientation="h",
                marker={"color": _COUNT_COLOURS[min(int(math.log2(max(1.0, float(count)))), 4)]},
                text=[f"{count}× · {p.get('label') or ''}"],
                textposition="inside",
                insidetextanchor="middle",
                hovertemplate=f"{name}<br>{p.get('label') or ''}: {count} GPU<extra></extra>",
                showlegend=False,
            )
    fig.update_layout(
        barmode="overlay",
        height=120 + 60 * len(rows),
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        xaxis={"title": {"text": t("Months")}, "rangemode": "tozero", "dtick": 1},
        yaxis={"automargin": True, "autorange": "reversed"},
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        font={"family": "system-ui, 'Noto Sans TC', sans-serif", "size": 13},
    )
    return fig
