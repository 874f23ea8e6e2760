"""Draw figure specs with the vendored plotly.js bundle in Chromium; print each axis's labels.

Usage: python -m tests.charts.tick_labels_in_chromium SPECS.json WIDTH → JSON {name:
{"y": [tick label texts], "x": [...]}, "errors": []}. A subprocess of the tests, like
draw_in_chromium.py, so that its Playwright loop never meets pytest-playwright's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.charts.draw_in_chromium import CHROMIUM, VENDOR

LABELS = """async ([spec, width]) => {
    const el = document.createElement('div');
    el.style.width = width + 'px';
    document.body.appendChild(el);
    const layout = Object.assign({}, spec.layout, {width: width});
    await Plotly.newPlot(el, spec.data, layout, spec.config);
    const texts = (sel) => Array.from(el.querySelectorAll(sel)).map(t => t.textContent);
    const out = {y: texts('.yaxislayer-above text'), x: texts('.xaxislayer-above text')};
    el.remove();
    return out;
}"""


def main(path: str, width: str) -> None:
    specs = json.loads(Path(path).read_text(encoding="utf-8"))
    out: dict[str, object] = {}
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(20_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_content("<!doctype html><meta charset=utf-8><body></body>")
            page.add_script_tag(path=str(VENDOR / "plotly-basic.min.js"))
            for name, spec in specs.items():
                out[name] = page.evaluate(LABELS, [spec, int(width)])
        finally:
            browser.close()
    out["errors"] = errors
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
