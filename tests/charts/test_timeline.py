"""app.charts.plan_timeline: the compare page's Time chart and a phased plan's timeline.

Expected figures come from the inputs: a 2.3-day run ends at x = 2.3 on a day axis; a phase
of months 2–3 is a bar from x = 2 to x = 3 on a month axis.
"""

from __future__ import annotations

import pytest

from app import charts

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
