"""The look every chart shares: palette, fonts, axes, money and option labels."""

from __future__ import annotations

import html
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import plotly.graph_objects as go

from app.engine.formatting import currency_symbol, money, number

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
# No mode bar: its seven buttons per chart were Tab stops inside an element of role "img"
# (axe: nested-interactive, serious), read "Zoom", "Pan", "Download plot" in English on 中文
# pages, and offered to "share" a chart on the customer's page; hover labels stay, and every
# chart's figures are in the page's tables and the PDF.
CONFIG: dict[str, Any] = {
    "displaylogo": False,
    "responsive": True,
    "displayModeBar": False,
}


def currency_prefix(currency: str) -> str:
    """Money prefix for an ISO code: NT$ for TWD, US$ for USD, else "<CODE> "."""
    return currency_symbol(currency.upper())


def _unit(currency: str) -> str:
    """The currency as an axis unit: NT$, US$, or the ISO code."""
    return currency_prefix(currency).strip()


def _money(value: float, currency: str) -> str:
    return money(value, currency.upper(), digits=0)


def _num(value: float, digits: int = 1) -> str:
    """1,234.5 with trailing zeros dropped (7.0 → 7)."""
    return number(value, digits)


def _gb(value: float) -> str:
    """GB to a tenth, or to two significant figures under 0.1 GB: a 405B model's weights on
    16,384 GPUs (ZeRO-3) are 0.049 GB a GPU, which read "Weights 0 GB"."""
    if 0 < value < 0.1:
        return f"{value:.2g} GB" if value >= 0.001 else "<0.001 GB"
    return f"{_num(value, 1 if value < 100 else 0)} GB"


def _esc(text: str) -> str:
    """Escape catalog text for plotly's pseudo-HTML labels (a label may contain < or &)."""
    return html.escape(str(text), quote=False)


#: A token of a label: one wide (CJK, full-width) character, a run of other non-space
#: characters (a word), or a run of spaces.
_TOKENS = re.compile(
    r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+|\s+"
)


#: Closing punctuation never starts a line (it stays with the word it closes).
_NO_LINE_START = frozenset("）)」』】〉》，、。：；！？")
#: Opening brackets never end a line (they go with the word they open).
_NO_LINE_END = frozenset("（(「『【〈《")


def _columns(text: str) -> int:
    """Display width: a wide character (CJK, full-width) takes two columns, others one."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def _wrap(text: str, width: int) -> str:
    """Break a label into lines of about `width` columns (plotly breaks only at <br>).

    Columns, not characters: a Chinese character is as wide as two Latin letters, so a zh
    legend entry wrapped at 48 characters ran twice as wide as its English one and was cut
    at the chart's edge on a phone (390 px). Latin text breaks between words (a word longer
    than a line is split), Chinese between any two characters."""
    lines: list[str] = []
    line, used = "", 0
    for token in _TOKENS.findall(str(text)):
        if token.isspace():
            if line:
                line, used = line + " ", used + 1
            continue
        size = _columns(token)
        while size > width and not line:  # a word longer than a line: split it
            lines.append(token[:width])
            token = token[width:]
            size = _columns(token)
        if line and used + size > width and token[0] not in _NO_LINE_START:
            carried = ""
            if line.rstrip()[-1:] in _NO_LINE_END and line.rstrip()[:-1].strip():
                line, carried = line.rstrip()[:-1], line.rstrip()[-1]  # "（" opens the next
            lines.append(line.rstrip())
            line, used = carried, _columns(carried)
        line, used = line + token, used + size
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return "<br>".join(_esc(line) for line in lines)


def ticks_125(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks between `lo` and `hi` for a log axis (plotly's own log ticks print the
    minor digits tiny)."""
    return [
        m * 10**e
        for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
        for m in (1, 2, 5)
        if lo <= m * 10**e <= hi
    ]


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


#: How money is written short on a crowded axis, as "scale suffix" pairs: the English
#: thousands, millions, billions; a Chinese reader counts in 萬 (10⁴) and 億 (10⁸), and read
#: plotly's SI "NT$2G" as an English abbreviation in a Chinese quote (QA). The translation
#: carries the language's own scales (app/locale: "10000 萬 100000000 億").
MONEY_SHORTHAND = "1000 k 1000000 M 1000000000 B"


def _scales(t: Translate) -> list[tuple[float, str]]:
    words = t(MONEY_SHORTHAND).split()
    return sorted((float(words[i]), words[i + 1]) for i in range(0, len(words) - 1, 2))


def money_ticks(
    lo: float, hi: float, currency: str, t: Translate = _identity, n: int = 5
) -> tuple[list[float], list[str]]:
    """(tick values, labels) for a money axis from `lo` to `hi`: about `n` steps of 1, 2,
    2.5 or 5 × 10^k, written short in the reader's scale, all in one scale (the largest
    the biggest tick reaches): "NT$0, NT$5億, NT$10億" or "NT$0, NT$0.5B, NT$1B"; a
    negative amount "−NT$5M", as the tables write it."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi - lo <= 0:
        return [0.0], [f"{currency_prefix(currency)}0"]
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw - 1e-9 * raw)
    first = math.floor(lo / step + 1e-9) * step
    ticks = []
    v = first
    while v <= hi + step - 1e-9 * step:
        ticks.append(round(v, 6))
        v += step
    top = max(abs(x) for x in ticks)
    scale, suffix = 1.0, ""
    for size, word in _scales(t):
        if top >= size:
            scale, suffix = size, word
    prefix = currency_prefix(currency)
    labels = []
    for x in ticks:
        sign = "−" if x < 0 else ""
        labels.append(f"{sign}{prefix}{number(abs(x) / scale, 2)}{suffix if x else ''}")
    return ticks, labels


def short_money_ticks(
    axis: dict[str, Any], lo: float, hi: float, currency: str, t: Translate = _identity
) -> dict[str, Any]:
    """`axis` with `money_ticks` from `lo` to `hi` written in as its tick labels: the page's
    phone layout otherwise wrote plotly's SI "20M" on a 中文 page beside "1,000萬" on the
    next chart (QA); the chart's hover keeps whole amounts."""
    tickvals, ticktext = money_ticks(lo, hi, currency, t)
    axis.update(tickmode="array", tickvals=tickvals, ticktext=ticktext, tickprefix="")
    axis.pop("tickformat", None)
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


#: Kinds that are only a comparison (public clouds): the options a quote sells (rent, buy)
#: are drawn solid and wider, above them; the clouds thinner, broken and in warm colours.
COMPARISON_KINDS = frozenset({"cloud", "cloud_reserved"})
_WARM = (PALETTE[1], PALETTE[3], PALETTE[6])  # orange, red, brown
#: Dashes in the order a repeated kind takes them. "dot" is kept for an option that cannot
#: run the plan. Dash and dash-dot come first: "dash" and "longdash" look alike in a legend.
_OFFER_DASHES = ("solid", "dash", "dashdot", "longdash", "longdashdot")
_COMPARISON_DASHES = ("dash", "dashdot", "longdashdot", "longdash")
#: Marker symbols, only once every colour and dash is taken (a third channel).
_SYMBOLS = ("square", "diamond", "triangle-up", "x", "cross", "star", "triangle-down")
OFFER_WIDTH = 3
COMPARISON_WIDTH = 2


class OptionStyle(NamedTuple):
    """How one cost option is drawn: line colour, dash and width, and a marker symbol when
    colour and dash alone are taken (None: no markers)."""

    colour: str
    dash: str
    width: int
    symbol: str | None = None

    @property
    def comparison(self) -> bool:
        return self.width == COMPARISON_WIDTH

    def line(self) -> dict[str, Any]:
        return {"color": self.colour, "width": self.width, "dash": self.dash}


def _option_styles(options: Sequence[Mapping[str, Any]]) -> list[OptionStyle]:
    """One style per option, no two alike on a chart (colour, dash, symbol).

    An offer (rent, buy) is solid in its kind's colour, 3 px; another offer of the same kind
    (RunPod's hourly rent beside Stratagem's) keeps the colour in the next dash, so the kinds
    still read as families. A public cloud is a comparison: 2 px, dashed, in warm colours,
    changing colour before dash. An option that cannot run the plan is dotted. Two series
    alike (QA: RunPod's hourly rent and GCP both orange dashed) could not be told apart.
    """
    kinds = {str(o.get("kind", "")) for o in options}
    reserved = {KIND_COLOURS[k] for k in kinds if k in KIND_COLOURS}
    safe = [PALETTE[i] for i in _LINE_SAFE]
    used: set[tuple[str, str, str | None]] = set()
    out: list[OptionStyle] = []
    for option in options:
        kind = str(option.get("kind", ""))
        own = KIND_COLOURS.get(kind)
        comparison = kind in COMPARISON_KINDS
        if comparison:
            # Warm colours in every dash before a cool one, which an offer might have.
            warm = _unique([own, *_WARM])
            colours = _unique([*warm, *safe])
            candidates = [(c, d) for d in _COMPARISON_DASHES for c in warm]
            candidates += [(c, d) for d in _COMPARISON_DASHES for c in colours[len(warm) :]]
        else:
            others = [c for c in safe if c not in reserved and c not in _WARM]
            colours = _unique([own, *others, *[c for c in safe if c not in reserved], *safe])
            candidates = [(c, d) for c in colours for d in _OFFER_DASHES]
        if option.get("feasible") is False:
            candidates = [(c, "dot") for c in colours]
        width = COMPARISON_WIDTH if comparison else OFFER_WIDTH
        style = next(
            (
                OptionStyle(c, d, width, s)
                for s in (None, *_SYMBOLS)
                for c, d in candidates
                if (c, d, s) not in used
            ),
            OptionStyle(candidates[0][0], candidates[0][1], width, None),
        )
        used.add((style.colour, style.dash, style.symbol))
        out.append(style)
    return out


def _line_and_marker(style: OptionStyle) -> dict[str, Any]:
    """A scatter trace's mode, line and marker for an option's style."""
    out: dict[str, Any] = {"mode": "lines", "line": style.line()}
    if style.symbol is not None:
        # Markers every few months, not on each of 61 points.
        marker = {"symbol": style.symbol, "size": 8, "color": style.colour, "maxdisplayed": 13}
        out.update(mode="lines+markers", marker=marker)
    return out


def legend_height_px(names: Iterable[str]) -> int:
    """Pixels a horizontal legend of these entries (plotly pseudo-HTML, "<br>" between lines)
    takes where each entry has a row of its own: the narrowest chart, a 390 px phone, which
    holds one 36-column entry a row (LEGEND_COLUMNS). Measured in Chromium with the vendored
    plotly.js at TICK_FONT_SIZE: a line 17 px (13 px × 1.3), each entry 5 px more, 10 px of
    padding (tests/charts/test_cost_chart_layout.py draws it and compares)."""
    lines = [str(name).count("<br>") + 1 for name in names]
    return 10 + sum(LEGEND_LINE_PX * n + LEGEND_ENTRY_PX for n in lines)


LEGEND_LINE_PX = 17
LEGEND_ENTRY_PX = 5


def _unique(colours: Iterable[str | None]) -> list[str]:
    return list(dict.fromkeys(c for c in colours if c))


#: Columns of a legend entry's line: with its symbol, about 280 px at 12 px type, which the
#: narrowest chart (a 390 px phone, ≈330 px of plot) still holds; 48 was cut at its edge.
LEGEND_COLUMNS = 36


def _option_name(option: Mapping[str, Any], t: Translate, width: int = LEGEND_COLUMNS) -> str:
    name = _wrap(str(option.get("label") or _option_key(option)), width)
    if option.get("feasible") is False:
        name += f" ({_esc(t('not feasible'))})"
    return name
