"""The reference architectures side by side: monthly price, GPU memory and power."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from app.charts.theme import (
    _TEMPLATE_COLOURS,
    BASE_FONT_SIZE,
    INK,
    MUTED,
    TICK_FONT_SIZE,
    Translate,
    _axis,
    _esc,
    _figure,
    _gb,
    _identity,
    _layout,
    _money,
    _num,
    _unit,
    _wrap,
    currency_prefix,
    short_money_ticks,
)
from app.engine.formatting import CURRENCY_DIGITS, money

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
            # to the currency's unit, as the cards above and the table beside say it (QA:
            # "US$1,562" here, rounded half to even, beside the card's "US$1,562.50")
            ccy = currency.upper()
            text = [
                money(v, ccy, 0 if float(v).is_integer() else CURRENCY_DIGITS.get(ccy, 2))
                for v in values
            ]
            hover = f"%{{x}}<br>{prefix}%{{y:,.0f}}<extra></extra>"
        elif key == "gpu_memory_gb":
            text = [_gb(v) for v in values]
            hover = "%{x}<br>%{y:,.0f} GB<extra></extra>"
        else:
            # to a tenth, as the cards and the table beside the chart say it (QA: "1.95 kW"
            # here, "2.0 kW" there)
            text = [f"{_num(v, 1)} kW" for v in values]
            hover = "%{x}<br>%{y:,.1f} kW<extra></extra>"
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
            # written in the reader's scale, as the cost charts are ("NT$40萬", not the
            # "NT$400k" plotly's own shortening gave a 中文 phone, QA)
            short_money_ticks(y_axis, 0.0, (top or 1.0) * 1.18, currency, t)
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
