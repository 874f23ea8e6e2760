"""Draw figure specs with the vendored plotly.js bundle in Chromium; print each axis's labels.

Usage: python -m tests.charts.tick_labels_in_chromium SPECS.json WIDTH → JSON {name:
{"y": [tick label texts], "x": [...]}, "errors": []}. A subprocess of the tests, like
draw_in_chromium.py, so that its Playwright loop never meets pytest-playwright's.
"""

from __future__ import annotations

import json
import sys

from tests.charts.draw_in_chromium import evaluate_specs

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
    out = evaluate_specs(
        path,
        LABELS,
        lambda spec: [spec, int(width)],
        viewport=(1400, 900),
        console_errors=False,
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
