"""Output: a figure as JSON for a page's data island, or SVG/PNG for the PDF (kaleido).

Static images come from one headless Chromium per process, driven by kaleido 1.5 and kept
running (`_Chromium`). Two costs are avoided that kaleido's own sync server pays on every
figure (both measured on the 2-core dev box, `benchmarks/bench_pdf.py`):

* kaleido reloads its tab after each figure (`Kaleido._return_kaleido_tab` → `tab.reload()`),
  so Chromium parses plotly.js again: ≈0.3 s of CPU per chart, most of a chart's cost. Here
  the tab is reused and reloaded only every `RELOAD_EVERY` figures (and after any failure),
  which bounds whatever a long-lived page could accumulate. A figure is drawn by
  `Plotly.toImage` on a detached graph div that plotly.js purges itself, so one figure
  cannot leave state that changes the next (tests/charts/test_render.py checks this).
* the page loads the vendored plotly.js *basic* bundle (1.2 MB, the one the pages use; every
  chart here is bar or scatter) instead of the full 4.8 MB bundle.

All charts of one document go to Chromium in one call (`to_svgs`). The SVG is then made
cheap for WeasyPrint (`_compact_svg`): WeasyPrint parses every `style` attribute with its
CSS tokenizer and walks every empty group plotly.js leaves in its SVG, so the declarations
become presentation attributes (the same values WeasyPrint would have copied out of the
style) and empty groups are dropped; the drawn page is the same.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any, Final

import plotly.graph_objects as go
import plotly.io as pio

from app.charts.theme import CONFIG
from app.settings import REPO_ROOT

log = logging.getLogger("stratagem.charts")

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


#: Figures drawn in one tab before it is reloaded (a reload costs ≈0.3 s of CPU).
RELOAD_EVERY: Final = 200
#: The plotly.js bundle the pages use (bar and scatter traces: every chart here).
PLOTLY_JS: Final = REPO_ROOT / "static" / "vendor" / "plotly-basic.min.js"
#: Seconds to wait for Chromium to close when it is restarted after a failure.
CLOSE_TIMEOUT_S: Final = 10.0


_KALEIDO_CLASS: type[Any] | None = None


def _kaleido_class() -> type[Any]:
    """kaleido's browser, except that a tab goes back to its queue without a reload."""
    global _KALEIDO_CLASS
    if _KALEIDO_CLASS is None:
        import kaleido

        class ReusingKaleido(kaleido.Kaleido):
            renders = 0
            reloads = 0

            async def _return_kaleido_tab(self, tab: Any) -> None:
                # kaleido 1.5.0 reloads the tab here after every figure (kaleido/kaleido.py).
                self.renders += 1
                if self.renders % RELOAD_EVERY == 0:
                    self.reloads += 1
                    await tab.reload()
                await self.tabs_ready.put(tab)

        _KALEIDO_CLASS = ReusingKaleido
    return _KALEIDO_CLASS


class _Chromium:
    """One kaleido Chromium per process, on its own event-loop thread, started on first use.

    Callers in any thread hand it a batch of figures and wait with a timeout. Any failure
    or timeout closes the browser; the next call starts a fresh one (≈1.5–3 s).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido: Any = None
        self.starts = 0

    def _loop_running(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            # A daemon thread: a Chromium that never answers cannot block the interpreter's exit.
            threading.Thread(
                target=loop.run_forever, name="stratagem-chromium", daemon=True
            ).start()
            self._loop = loop
        return self._loop

    def _browser(self, timeout_s: float) -> tuple[asyncio.AbstractEventLoop, Any]:
        with self._lock:
            loop = self._loop_running()
            if self._kaleido is None:
                cls = _kaleido_class()

                async def start() -> Any:
                    # mathjax=False: nothing here is LaTeX, and the server may be offline.
                    k = cls(n=1, timeout=timeout_s, mathjax=False, plotlyjs=str(PLOTLY_JS))
                    await k.open()
                    return k

                fut = asyncio.run_coroutine_threadsafe(start(), loop)
                try:
                    self._kaleido = fut.result(timeout_s)
                except Exception as e:
                    fut.cancel()
                    raise ChartRenderError(f"Chromium did not start: {e!r}") from e
                self.starts += 1
            return loop, self._kaleido

    def restart(self) -> None:
        """Close the browser (after a failure); the next render starts a new one."""
        with self._lock:
            k, self._kaleido = self._kaleido, None
            if k is None or self._loop is None:
                return
            fut = asyncio.run_coroutine_threadsafe(k.close(), self._loop)
        try:
            fut.result(CLOSE_TIMEOUT_S)
        except Exception:  # a browser that will not close is abandoned, not waited for
            log.warning("kaleido's Chromium did not close cleanly", exc_info=True)

    def render(
        self, jobs: Sequence[tuple[dict[str, Any], dict[str, Any]]], timeout_s: float
    ) -> list[bytes | BaseException]:
        """kaleido `calc_fig` for each (figure dict, opts), concurrently in the one browser."""
        loop, k = self._browser(timeout_s)

        async def calc_all() -> list[Any]:
            calls = [k.calc_fig(spec, opts=opts) for spec, opts in jobs]
            return list(await asyncio.gather(*calls, return_exceptions=True))

        fut = asyncio.run_coroutine_threadsafe(calc_all(), loop)
        try:
            results = fut.result(timeout_s * max(1, len(jobs)))
        except concurrent.futures.TimeoutError:
            fut.cancel()
            self.restart()
            raise ChartRenderError(f"kaleido did not render within {timeout_s:g} s") from None
        out: list[bytes | BaseException] = []
        for r in results:
            if isinstance(r, BaseException):
                out.append(r)
            else:
                out.append(r if isinstance(r, bytes) else str(r).encode())
        if any(isinstance(r, BaseException) for r in out):
            self.restart()  # a failed render may leave the tab mid-figure: start clean
        return out


_CHROMIUM = _Chromium()


def warm(timeout_s: float = 60) -> None:
    """Start this process's Chromium and draw one small figure (what a first quote pays)."""
    to_svgs([(go.Figure(go.Bar(x=[1], y=[1])), 100, 100)], timeout_s=timeout_s)


# --- SVG for WeasyPrint -----------------------------------------------------------------

_SVG_NS: Final = "http://www.w3.org/2000/svg"
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


def _declarations(style: str) -> list[tuple[str, str]] | None:
    """`a: b; c: d` as [(a, b), (c, d)], or None where a plain split could be wrong."""
    if "!important" in style or "\\" in style or "/*" in style:
        return None
    out = []
    for part in style.split(";"):
        if not part.strip():
            continue
        name, sep, value = part.partition(":")
        if not sep or value.count("(") != value.count(")") or value.count('"') % 2:
            return None
        out.append((name.strip().lower(), value.strip()))
    return out


def _unquote_family(value: str) -> str:
    # Unquoted family names are valid in the attribute, and WeasyPrint's SVG text splits the
    # list on commas without unquoting a name that follows a space.
    return ", ".join(part.strip().strip("\"'") for part in value.split(","))


def _compact_svg(svg: str) -> str:
    """plotly.js's SVG with style declarations as attributes and empty groups dropped.

    WeasyPrint's SVG cascade copies every declaration of an element's `style` over its
    attributes (weasyprint/svg/__init__.py `Node.cascade`), so writing them as attributes
    gives it the same values without running its CSS tokenizer on ~300 styles a chart.
    `font-family` is written unquoted, on every element that names one (WeasyPrint reads
    the font from the attribute). Empty `<g>` without an id and `<path>` without `d` draw
    nothing and are removed. Input it cannot parse is returned unchanged.
    """
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return svg
    prefix = f"{{{_SVG_NS}}}"

    def visit(el: ET.Element) -> None:
        if el.tag.startswith(prefix):  # written back in the default namespace, as plotly has it
            el.tag = el.tag[len(prefix) :]
        for child in list(el):
            visit(child)
            empty_group = (
                child.tag == "g"
                and len(child) == 0
                and not (child.text or "").strip()
                and child.get("id") is None
            )
            if (empty_group or (child.tag == "path" and not child.get("d"))) and not (
                child.tail or ""
            ).strip():
                el.remove(child)
        style = el.get("style")
        if style is None:
            return
        decls = _declarations(style)
        if decls is None:
            return
        del el.attrib["style"]
        for name, value in decls:
            if name.startswith("-"):  # vendor-prefixed: WeasyPrint ignores them too
                continue
            el.set(name, _unquote_family(value) if name == "font-family" else value)

    visit(root)
    if any(el.tag.startswith("{") for el in root.iter()):  # not plain SVG: leave it as it was
        return svg
    root.set("xmlns", _SVG_NS)
    return ET.tostring(root, encoding="unicode")


# --- Public -------------------------------------------------------------------------------


def to_svgs(
    figures: Sequence[tuple[go.Figure, int, int]], *, timeout_s: float = 60
) -> list[str | ChartRenderError]:
    """Each (figure, width px, height px) as an SVG document for the PDF, in one call.

    The figures are drawn by this process's Chromium (started on first use, ≈1.5–3 s, then
    kept); each comes back compacted for WeasyPrint (`_compact_svg`), or as the
    ChartRenderError that stopped it. Raises ChartRenderError when Chromium does not start
    or the batch takes longer than `timeout_s` per figure.
    """
    out: list[str | ChartRenderError] = []
    for r in _render([(fig, "svg", w, h) for fig, w, h in figures], timeout_s):
        if isinstance(r, BaseException):
            err = ChartRenderError(f"kaleido failed: {r}")
            err.__cause__ = r
            out.append(err)
        else:
            out.append(_compact_svg(r.decode("utf-8")))
    return out


def _render(
    figures: Sequence[tuple[go.Figure, str, int, int]], timeout_s: float
) -> list[bytes | BaseException]:
    jobs = [
        (_figure_dict(fig), {"format": fmt, "width": w, "height": h, "scale": 1})
        for fig, fmt, w, h in figures
    ]
    return _CHROMIUM.render(jobs, timeout_s)


def _one(fig: go.Figure, fmt: str, width: int, height: int, timeout_s: float) -> bytes:
    (result,) = _render([(fig, fmt, width, height)], timeout_s)
    if isinstance(result, BaseException):
        raise ChartRenderError(f"kaleido failed: {result}") from result
    return result


def to_svg(fig: go.Figure, width: int = 900, height: int = 450, *, timeout_s: float = 60) -> str:
    """The figure as an SVG document (width × height px) for the PDF (see `to_svgs`).

    Every element that names a font carries it as a `font-family` attribute (WeasyPrint
    reads that). Raises ChartRenderError when Chromium fails or takes longer than
    `timeout_s` (the first call includes starting Chromium).
    """
    return _compact_svg(_one(fig, "svg", width, height, timeout_s).decode("utf-8"))


def to_png(fig: go.Figure, width: int = 900, height: int = 450, *, timeout_s: float = 60) -> bytes:
    """The figure as PNG bytes (width × height px, scale 1), rendered as `to_svg` is."""
    return _one(fig, "png", width, height, timeout_s)
