"""A phased plan as a horizontal timeline: one row per scenario, one bar per phase (months)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from app.charts.theme import Translate, _esc, _identity, _layout

# One colour per GPU count (1, 2, 4, 8, 16+), so a phase's size reads at a glance; the
# legend says which counts each colour drawn stands for.
_COUNT_COLOURS = ("#2563eb", "#0f766e", "#c2410c", "#7c3aed", "#be123c")


#: Days in a month (365/12), as the plans' schedules count them.
_DAYS_PER_MONTH = 365 / 12


def plan_timeline(
    rows: Sequence[tuple[str, Sequence[Mapping[str, Any]]]], *, t: Translate = _identity
) -> go.Figure:
    """`rows`: (scenario name, phases) where a phase has `gpu_count`, `months`, `start_month`
    and `label` (a plan's `schedule.phases`).

    When everything ends within a month (training runs of a few days) the axis counts days:
    on a month axis a 2-day run is a sliver and the axis shows only "0"."""
    ends = [
        float(p.get("start_month") or 0) + float(p.get("months") or 0)
        for _name, phases in rows
        for p in phases
    ]
    in_days = bool(ends) and max(ends) < 1
    scale = _DAYS_PER_MONTH if in_days else 1.0
    counts = [float(p.get("gpu_count") or 0) for _name, phases in rows for p in phases]
    fig = go.Figure()
    named: set[int] = set()  # colour bands already in the legend
    for name, phases in rows:
        for p in phases:
            gpus = float(p.get("gpu_count") or 0)
            count = f"{gpus:g}"
            label = str(p.get("label") or "")
            band = _band(gpus)
            fig.add_bar(
                y=[_esc(name)],  # plotly reads tick labels as pseudo-HTML too
                x=[float(p.get("months") or 0) * scale],
                base=[float(p.get("start_month") or 0) * scale],
                orientation="h",
                marker={"color": _COUNT_COLOURS[band]},
                # "4× · LoRA fine-tuning"; a phase without a name is just its GPU count.
                text=[_esc(" · ".join(x for x in (f"{count}×", label) if x))],
                textposition="inside",
                insidetextanchor="middle",
                # Level text, shrunk to fit a short phase (rotated text reads badly); too
                # small to read (a one-month phase on a phone) it is left out, see below.
                textangle=0,
                hovertemplate=(
                    f"{_esc(name)}<br>{_esc(label) + ': ' if label else ''}"
                    f"{_gpus(gpus, gpus, t)}<extra></extra>"
                ),
                # One legend entry per colour: the counts it stands for, so a phase whose
                # label is hidden still says its size.
                name=_gpus(*_span(counts, band), t),
                legendgroup=str(band),
                showlegend=band not in named,
            )
            named.add(band)
    fig.update_layout(
        barmode="overlay",
        # A label below 10 px is hidden, not drawn unreadably small: the bar's hover and
        # the page's phase table still name it.
        uniformtext={"minsize": 10, "mode": "hide"},
        height=150 + 60 * len(rows),
        margin={"l": 10, "r": 10, "t": 10, "b": 70},
        # The charts' legend (below the axis title, in container coordinates), in the order
        # of the counts.
        legend={**_layout("")["legend"], "traceorder": "grouped"},
        showlegend=True,
        xaxis=(
            {"title": {"text": t("Days to finish")}, "rangemode": "tozero"}
            if in_days
            else {"title": {"text": t("Months")}, "rangemode": "tozero", "dtick": 1}
        ),
        yaxis={"automargin": True, "autorange": "reversed"},
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        font={"family": "system-ui, 'Noto Sans TC', sans-serif", "size": 13},
    )
    return fig


def _band(gpus: float) -> int:
    """The colour of a phase of `gpus` GPUs: 1, 2–3, 4–7, 8–15, 16+ (a MIG slice is 1's)."""
    return min(int(math.log2(max(1.0, gpus))), len(_COUNT_COLOURS) - 1)


def _span(counts: Sequence[float], band: int) -> tuple[float, float]:
    """The smallest and largest of `counts` drawn in colour `band`."""
    mine = [c for c in counts if _band(c) == band]
    return min(mine), max(mine)


def _gpus(lo: float, hi: float, t: Translate) -> str:
    """ "1 GPU", "4 GPUs" or "2–3 GPUs", in the reader's language."""
    if lo != hi:
        return t("%(lo)s–%(hi)s GPUs") % {"lo": f"{lo:g}", "hi": f"{hi:g}"}
    return t("1 GPU") if lo == 1 else t("%(n)s GPUs") % {"n": f"{lo:g}"}
