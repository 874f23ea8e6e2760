"""Draw figure specs with the vendored plotly.js bundle in Chromium at a given width; print
where the legend and the callouts were drawn.

Usage: python -m tests.charts.layout_in_chromium SPECS.json WIDTH [NARROW] → JSON {name:
{"height", "legend": [top, bottom], "scrolls", "plot_h", "boxes": [[x0, y0, x1, y1]],
"leaders": [[x0, y0, x1, y1]]}, "errors": []}. With NARROW, the callouts a phone drops
(static/js/charts.js: "break_even_minor") are dropped first. A subprocess of the tests, like
draw_in_chromium.py.
"""

from __future__ import annotations

import json
import sys

from tests.charts.draw_in_chromium import evaluate_specs

LAYOUT = """async ([spec, width, narrow]) => {
    const el = document.createElement('div');
    el.style.width = width + 'px';
    document.body.appendChild(el);
    const layout = Object.assign({}, spec.layout, {width: width});
    if (narrow) {
        layout.annotations = (layout.annotations || []).filter(a => a.name !== 'break_even_minor');
    }
    await Plotly.newPlot(el, spec.data, layout, spec.config);
    const top = el.getBoundingClientRect();
    const box = (r) => [r.left - top.left, r.top - top.top, r.right - top.left, r.bottom - top.top];
    const legend = el.querySelector('.legend').getBoundingClientRect();
    const out = {
        height: top.height,
        legend: [legend.top - top.top, legend.bottom - top.top],
        scrolls: !!el.querySelector('.legend .scrollbar')
            && +el.querySelector('.legend .scrollbar').getAttribute('height') > 0,
        plot_h: el._fullLayout._size.h,
        boxes: Array.from(el.querySelectorAll('.annotation .bg'))
            .map(r => box(r.getBoundingClientRect())),
        leaders: Array.from(el.querySelectorAll('.annotation .annotation-arrow-g path'))
            .map(p => box(p.getBoundingClientRect())),
    };
    el.remove();
    return out;
}"""


def main(path: str, width: str, narrow: str = "") -> None:
    out = evaluate_specs(
        path,
        LAYOUT,
        lambda spec: [spec, int(width), bool(narrow)],
        viewport=(1400, 900),
        console_errors=False,
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
