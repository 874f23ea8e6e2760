"""Draw figure specs with the vendored plotly.js basic bundle in Chromium; print what was drawn.

Usage: python -m tests.charts.draw_in_chromium SPECS.json → JSON {name: summary, "errors": []}.
Run as a subprocess by test_render.py, so that its Playwright loop never meets the one
pytest-playwright keeps for the browser tests.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "static" / "vendor"
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


def evaluate_specs(
    path: str,
    script: str,
    arg: Callable[[Any], Any] = lambda spec: spec,
    *,
    viewport: tuple[int, int] = (1000, 800),
    console_errors: bool = True,
) -> dict[str, object]:
    """Run `script` on each figure spec of the JSON file at `path` (called with `arg(spec)`)
    in one page with the vendored plotly.js bundle; {name: result, "errors": [page errors,
    and console errors when `console_errors`]}."""
    specs = json.loads(Path(path).read_text(encoding="utf-8"))
    out: dict[str, object] = {}
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            page.set_default_timeout(20_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            if console_errors:
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.set_content("<!doctype html><meta charset=utf-8><body></body>")
            page.add_script_tag(path=str(VENDOR / "plotly-basic.min.js"))
            for name, spec in specs.items():
                out[name] = page.evaluate(script, arg(spec))
        finally:
            browser.close()
    out["errors"] = errors
    return out


def run_subprocess(module: str, specs: dict[str, Any], where: Path, *args: str) -> dict[str, Any]:
    """Write `specs` under `where` and run `python -m module specs.json *args` from the
    repository root (its own process: its Playwright loop never meets pytest-playwright's);
    its last line of output, parsed."""
    path = where / "specs.json"
    path.write_text(json.dumps(specs), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", module, str(path), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    drawn: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return drawn


def main(path: str) -> None:
    print(json.dumps(evaluate_specs(path, DRAW)))


if __name__ == "__main__":
    main(sys.argv[1])
