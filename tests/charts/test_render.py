"""Charts rendered by real Chromium: kaleido's SVG for the PDF, the vendored bundle for pages.

Marked `browser` (they start Chromium). Each is bounded: to_svg has its own timeout, the
Playwright page has one per action.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from app import charts
from tests.charts import samples

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]


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
    path = tmp_path / "specs.json"
    path.write_text(json.dumps(specs), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "tests.charts.draw_in_chromium", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    drawn = json.loads(run.stdout.strip().splitlines()[-1])
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
