"""Charts rendered by real Chromium: kaleido's SVG for the PDF, the vendored bundle for pages.

Marked `browser` (they start Chromium). Each is bounded: to_svg has its own timeout, the
Playwright page has one per action.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from app import charts
from app.charts import render
from tests.charts import samples
from tests.charts.draw_in_chromium import run_subprocess

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def test_to_svg_renders_the_chinese_title() -> None:
    fig = charts.memory_bar(asdict(samples.estimate_13b().memory_per_gpu_gb), 80, t=samples.zh)
    svg = charts.to_svg(fig, 800, 300, timeout_s=90)
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert 'viewBox="0 0 800 300"' in svg
    assert "每張 GPU 的記憶體用量（GB）" in svg
    assert "權重 6.5 GB" in svg
    # WeasyPrint reads the font from an attribute, not from the style (TOOLCHAIN.md)
    texts = re.findall(r"<text\b[^>]*>", svg)
    assert texts and all(
        'font-family="Noto Sans CJK TC, Noto Sans, sans-serif"' in t for t in texts
    )


def test_vendored_plotly_basic_draws_every_chart(tmp_path: Path) -> None:
    """The partial bundle has every trace type and component the figures use."""
    # make test installs Debian's Chromium (scripts/system-deps.sh): its absence is a failure.
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: run scripts/system-deps.sh"
    specs: dict[str, Any] = {
        name: json.loads(charts.to_json(fig))
        for name, fig in samples.all_figures(samples.zh).items()
    }
    drawn = run_subprocess("tests.charts.draw_in_chromium", specs, tmp_path)
    assert drawn.pop("errors") == []
    for name, spec in specs.items():
        got = drawn[name]
        wanted = [tr.get("type", "scatter") for tr in spec["data"]]
        assert got["traces"] == wanted, name
        assert got["visible"] == len(wanted), name
        assert not got["logo"], name
        if "bar" in wanted:
            assert got["bars"] > 0, name
        if name in ("cumulative_costs", "gpus_vs_days", "utilization_sensitivity"):
            assert got["lines"] > 0, name
    assert drawn["architectures_compare"]["errorbars"] > 0


def _titled(title: str, values: list[float]) -> Any:
    import plotly.graph_objects as go

    return go.Figure(go.Bar(x=["a", "b"], y=values), layout={"title": {"text": title}})


def test_figures_share_one_tab_without_a_reload_and_leave_nothing_behind() -> None:
    """The tab kaleido would reload after each figure is reused: the next figure must not
    show anything of the one before (plotly.js draws each on a detached, purged div)."""
    chromium = render._CHROMIUM
    charts.to_svg(_titled("warm-up", [1, 1]), 300, 200, timeout_s=90)
    starts, k = chromium.starts, chromium._kaleido
    before = k.renders
    first = charts.to_svg(_titled("Alpha title", [1, 2]), 300, 200, timeout_s=90)
    second = charts.to_svg(_titled("Beta title", [3, 4]), 300, 200, timeout_s=90)
    assert "Alpha title" in first and "Beta title" not in first
    assert "Beta title" in second and "Alpha title" not in second
    assert chromium.starts == starts and chromium._kaleido is k  # the same browser
    assert k.renders == before + 2
    assert k.reloads == (before + 2) // render.RELOAD_EVERY  # no reload per figure


def test_a_batch_comes_back_in_order_one_svg_per_figure() -> None:
    titles = ["First chart", "Second chart", "Third chart"]
    svgs = charts.to_svgs([(_titled(t, [1, 2]), 300, 200) for t in titles], timeout_s=90)
    assert len(svgs) == 3
    for title, svg in zip(titles, svgs, strict=True):
        assert isinstance(svg, str) and svg.startswith("<svg")
        assert title in svg and all(t not in svg for t in titles if t != title)


def test_a_failed_figure_is_reported_and_the_next_one_gets_a_fresh_browser() -> None:
    chromium = render._CHROMIUM
    charts.to_svg(_titled("warm-up", [1, 1]), 300, 200, timeout_s=90)
    starts = chromium.starts
    spec = render._figure_dict(_titled("x", [1, 2]))
    (failed,) = chromium.render([(spec, {"format": "bmp", "width": 10, "height": 10})], 90)
    assert isinstance(failed, BaseException)  # kaleido refuses the format
    assert chromium._kaleido is None  # closed: a failure never leaves a half-used tab
    svg = charts.to_svg(_titled("After the failure", [1, 2]), 300, 200, timeout_s=90)
    assert "After the failure" in svg and chromium.starts == starts + 1
