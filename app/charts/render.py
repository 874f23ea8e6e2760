"""Output: a figure as JSON for a page's data island, or SVG/PNG for the PDF (kaleido)."""

from __future__ import annotations

import html
import queue
import re
import threading
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from app.charts.theme import (
    CONFIG,
)

# --- Output -----------------------------------------------------------------------------

# JSON inside <script type="application/json">: "</script>" or "<!--" in a catalog label must
# not end the element, so the HTML-significant characters are written as JSON escapes.
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028"}
_JSON_ESCAPES["\u2029"] = "\\u2029"
_JSON_ESCAPE_RE = re.compile("[<>&\u2028\u2029]")


def _figure_dict(fig: go.Figure) -> dict[str, Any]:
    spec = fig.to_plotly_json()
    # No Python-side template: our look is set explicitly in each layout, and plotly.py's
    # default template would add ≈8 KB to every figure.
    spec.get("layout", {}).pop("template", None)
    return {"data": spec.get("data", []), "layout": spec.get("layout", {})}


def to_json(fig: go.Figure) -> str:
    """Compact JSON {"data", "layout", "config"} for a data island, safe inside <script>.

    Draw it with `Plotly.newPlot(el, spec.data, spec.layout, spec.config)`.
    """
    spec = _figure_dict(fig)
    spec["config"] = CONFIG
    text = pio.to_json(spec, validate=False, pretty=False, remove_uids=True)
    return _JSON_ESCAPE_RE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


class ChartRenderError(RuntimeError):
    """The static renderer (kaleido/Chromium) failed or did not answer in time."""


_RENDER_LOCK = threading.Lock()
_SERVER_STARTED = False
_STUCK: threading.Thread | None = None
_FONT_STYLE_RE = re.compile(r"<text\b([^>]*?)style=\"([^\"]*)\"")


def _start_server(timeout_s: float) -> None:
    """Start kaleido's Chromium once per process (≈0.1 s per figure after, ≈2.5 s without)."""
    global _SERVER_STARTED
    if _SERVER_STARTED:
        return
    import kaleido

    # mathjax=False: no MathJax from a CDN (nothing here is LaTeX, and the server may be
    # offline); kaleido's own per-figure timeout stops a render that hangs in Chromium.
    kaleido.start_sync_server(timeout=timeout_s, mathjax=False, silence_warnings=True)
    _SERVER_STARTED = True


def _font_attributes(svg: str) -> str:
    """Copy each <text>'s CSS font-family into a font-family attribute (WeasyPrint reads that)."""

    def add(m: re.Match[str]) -> str:
        attrs, style = m.group(1), m.group(2)
        if "font-family=" in attrs:
            return m.group(0)
        family = re.search(r"font-family:\s*([^;]+)", style)
        if family is None:
            return m.group(0)
        # Unquoted family names are valid in the attribute and need no escaping.
        value = re.sub(r"[\"']", "", html.unescape(family.group(1))).strip()
        return f'<text{attrs}font-family="{html.escape(value)}" style="{style}"'

    return _FONT_STYLE_RE.sub(add, svg)


def _render(fig: go.Figure, fmt: str, width: int, height: int, timeout_s: float) -> bytes:
    """One static image from kaleido's shared Chromium, one at a time, within `timeout_s`."""
    global _STUCK
    import kaleido

    if not _RENDER_LOCK.acquire(timeout=timeout_s):
        raise ChartRenderError(f"another chart has been rendering for over {timeout_s:g} s")
    try:
        # kaleido's server answers requests in order through one queue: a render that never
        # came back would hand its answer to the next caller, so refuse until it is gone.
        if _STUCK is not None and _STUCK.is_alive():
            raise ChartRenderError("an earlier chart render is still stuck in Chromium")
        _STUCK = None
        _start_server(timeout_s)
        spec = _figure_dict(fig)
        opts = {"format": fmt, "width": width, "height": height, "scale": 1}
        result: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)

        def render() -> None:
            try:
                result.put((True, kaleido.calc_fig_sync(spec, opts=opts)))
            except BaseException as e:  # handed to the caller's thread below
                result.put((False, e))

        # A daemon thread, so that a Chromium that never answers cannot block the caller
        # (the server's own queue has no timeout) nor the interpreter's exit.
        worker = threading.Thread(target=render, name="stratagem-chart-render", daemon=True)
        worker.start()
        try:
            ok, value = result.get(timeout=timeout_s)
        except queue.Empty:
            _STUCK = worker
            raise ChartRenderError(
                f"kaleido did not render the chart within {timeout_s:g} s"
            ) from None
        if not ok:
            raise ChartRenderError(f"kaleido failed: {value}") from value
        return value if isinstance(value, bytes) else str(value).encode()
    finally:
        _RENDER_LOCK.release()


def to_svg(fig: go.Figure, width: int = 900, height: int = 450, *, timeout_s: float = 60) -> str:
    """The figure as an SVG document (width × height px) for the PDF, rendered by kaleido.

    Starts kaleido's sync server (one headless Chromium) on first use and reuses it; renders
    one figure at a time. Every <text> carries a font-family attribute (WeasyPrint ignores
    the CSS one). Raises ChartRenderError when Chromium fails or takes longer than
    `timeout_s` (the first call includes starting Chromium, ≈2–3 s).
    """
    return _font_attributes(_render(fig, "svg", width, height, timeout_s).decode("utf-8"))


def to_png(fig: go.Figure, width: int = 900, height: int = 450, *, timeout_s: float = 60) -> bytes:
    """The figure as PNG bytes (width × height px, scale 1), rendered as `to_svg` is."""
    return _render(fig, "png", width, height, timeout_s)
