"""Draw figure specs with the vendored plotly.js basic bundle in Chromium; print what was drawn.

Usage: python -m tests.charts.draw_in_chromium SPECS.json → JSON {name: summary, "errors": []}.
Run as a subprocess by test_render.py, so that its Playwright loop never meets the one
pytest-playwright keeps for the browser tests.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

VENDOR = Path(__file__).resolve().parents[2] / "static" / "vendor"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

DRAW = """async (spec) => {
    const el = document.createElement('div');
    document.body.appendChild(el);
    await Plotly.newPlot(el, spec.data, spec.layout, spec.config);
    return {
        traces: el._fullData.map(t => t.type),
        visible: el._fullData.filter(t => t.visible === true).length,
        bars: el.querySelectorAll('.bars .point').length,
        lines: el.querySelectorAll('.scatterlayer .js-line').length,
        errorbars: el.querySelectorAll('.errorbar').length,
        logo: !!el.querySelector('.modebar-btn--logo'),
    };
}"""


def main(path: str) -> None:
    specs = json.loads(Path(path).read_text(encoding="utf-8"))
    out: dict[str, object] = {}
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            page.set_default_timeout(20_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.set_content("<!doctype html><meta charset=utf-8><body></body>")
            page.add_script_tag(path=str(VENDOR / "plotly-basic.min.js"))
            for name, spec in specs.items():
                out[name] = page.evaluate(DRAW, spec)
        finally:
            browser.close()
    out["errors"] = errors
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
