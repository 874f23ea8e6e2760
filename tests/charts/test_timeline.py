"""app.charts.plan_timeline: the compare page's Time chart and a phased plan's timeline.

Expected figures come from the inputs: a 2.3-day run ends at x = 2.3 on a day axis; a phase
of months 2–3 is a bar from x = 2 to x = 3 on a month axis.
"""

from __future__ import annotations

import pytest

from app import charts
from tests.charts import samples

DAYS_PER_MONTH = 365 / 12


def _bars(fig: object) -> list[dict]:
    return [t.to_plotly_json() for t in fig.data]  # type: ignore[attr-defined]


def test_short_runs_are_drawn_in_days_not_on_an_axis_that_shows_only_zero() -> None:
    rows = [
        ("A", [{"label": "Training run", "gpu_count": 1, "months": 2.3 / DAYS_PER_MONTH}]),
        ("B", [{"label": "Training run", "gpu_count": 24, "months": 1.6 / DAYS_PER_MONTH}]),
    ]
    fig = charts.plan_timeline(rows, t=lambda s: f"<{s}>")
    xaxis = fig.layout.xaxis
    assert xaxis.title.text == "<Days to finish>"
    assert xaxis.dtick is None  # Plotly picks ticks for 0–2.3 days
    assert [round(b["x"][0], 6) for b in _bars(fig)] == [2.3, 1.6]


def test_phases_are_drawn_in_months_with_a_tick_a_month() -> None:
    phases = [
        {"label": "LoRA fine-tuning", "gpu_count": 1, "months": 2, "start_month": 0},
        {"label": "Full fine-tuning", "gpu_count": 4, "months": 1, "start_month": 2},
    ]
    fig = charts.plan_timeline([("A", phases)], t=lambda s: s)
    assert fig.layout.xaxis.title.text == "Months" and fig.layout.xaxis.dtick == 1
    bars = _bars(fig)
    assert [(b["base"][0], b["x"][0]) for b in bars] == [(0.0, 2.0), (2.0, 1.0)]
    assert [b["text"][0] for b in bars] == ["1× · LoRA fine-tuning", "4× · Full fine-tuning"]
    # Level labels; too small to read they are hidden rather than drawn rotated.
    assert all(b["textangle"] == 0 for b in bars)
    assert fig.layout.uniformtext.mode == "hide"


@pytest.mark.parametrize("label", ["", None])
def test_a_phase_without_a_name_is_its_gpu_count_without_a_dangling_dot(label: object) -> None:
    fig = charts.plan_timeline(
        [("B", [{"label": label, "gpu_count": 4, "months": 4, "start_month": 0}])],
        t=lambda s: s,
    )
    bar = _bars(fig)[0]
    assert bar["text"] == ["4×"]
    assert "· " not in bar["text"][0] and ": " not in bar["hovertemplate"]


def test_the_legend_says_which_gpu_counts_each_colour_stands_for() -> None:
    # A one-month phase on a phone has no room for its label (it is hidden, not shrunk), so
    # the colours must explain themselves: one legend entry per colour drawn, naming the
    # counts drawn in it (2 and 3 share a colour, 1 and 16 each have their own).
    rows = [
        ("A", [{"label": "LoRA", "gpu_count": 1, "months": 2, "start_month": 0},
               {"label": "Full", "gpu_count": 2, "months": 1, "start_month": 2}]),
        ("B", [{"label": "Serve", "gpu_count": 3, "months": 1, "start_month": 0},
               {"label": "Pre-train", "gpu_count": 16, "months": 1, "start_month": 1},
               {"label": "Serve", "gpu_count": 1, "months": 1, "start_month": 2}]),
    ]  # fmt: skip
    fig = charts.plan_timeline(rows, t=lambda s: s)
    bars = _bars(fig)
    shown = [(b["name"], b["marker"]["color"]) for b in bars if b["showlegend"]]
    assert [name for name, _ in shown] == ["1 GPU", "2–3 GPUs", "16 GPUs"]
    assert len({colour for _, colour in shown}) == 3
    # Every bar is in the legend group of its colour's entry.
    entry = {b["legendgroup"]: b["name"] for b in bars if b["showlegend"]}
    assert [entry[b["legendgroup"]] for b in bars] == [
        "1 GPU", "2–3 GPUs", "2–3 GPUs", "16 GPUs", "1 GPU",
    ]  # fmt: skip
    assert fig.layout.showlegend is True


def test_the_legend_is_in_the_readers_language() -> None:
    rows = [("A", [{"label": "", "gpu_count": 4, "months": 1, "start_month": 0},
                   {"label": "", "gpu_count": 6, "months": 1, "start_month": 1},
                   {"label": "", "gpu_count": 1, "months": 1, "start_month": 2}])]  # fmt: skip
    fig = charts.plan_timeline(rows, t=samples.zh)
    assert [b["name"] for b in _bars(fig) if b["showlegend"]] == ["4–6 張 GPU", "1 張 GPU"]


def test_a_scenario_name_that_looks_like_markup_is_shown_as_text() -> None:
    fig = charts.plan_timeline(
        [("<b>R&D</b>", [{"label": "<i>x</i>", "gpu_count": 1, "months": 1, "start_month": 0}])],
        t=lambda s: s,
    )
    bar = _bars(fig)[0]
    assert bar["y"] == ["&lt;b&gt;R&amp;D&lt;/b&gt;"]
    assert "&lt;i&gt;x&lt;/i&gt;" in bar["text"][0]
    assert bar["hovertemplate"].startswith("&lt;b&gt;R&amp;D&lt;/b&gt;<br>&lt;i&gt;x&lt;/i&gt;: ")
