"""The PDF quote: templates/quotes/quote.html rendered by WeasyPrint, charts as vector SVG.

Costs, measured on the dev machine: WeasyPrint ≈0.3–0.6 s per quote with
libharfbuzz-subset0 (≈16 s without it: fontTools subsets the CJK font instead); kaleido
≈0.15–0.5 s per chart once its Chromium runs. So charts are rendered once per
(plan, version, language) and whole PDFs are kept in a small LRU cache under the same key —
a plan's version changes on every save, so a cached quote is never stale.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Final

from sqlmodel import Session

from app import charts, i18n
from app.plans.models import Plan
from app.quotes.service import quote_view
from app.web.templating import templates

log = logging.getLogger("stratagem.quotes")

LANGS: Final = ("zh-TW", "en")
PDF_CACHE_SIZE: Final = 32
CHART_CACHE_SIZE: Final = 64
# Pixel size kaleido draws each chart at; the PDF scales it to the text width (vector).
CHART_SIZES: Final = {"memory": (900, 300), "cumulative": (900, 560), "tco": (900, 620)}
TCO_YEARS: Final = (1, 3, 5)


class _Lru:
    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> Any:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        return None

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.data.clear()


_pdfs = _Lru(PDF_CACHE_SIZE)
_charts = _Lru(CHART_CACHE_SIZE)


def normalise_lang(lang: str | None) -> str:
    return i18n.normalise(lang) or "zh-TW"


def _figures(result: Mapping[str, Any]) -> dict[str, Callable[[], Any]]:
    """Figure builders for the charts this result can draw (memory, cumulative, TCO)."""
    t = i18n.gettext
    out: dict[str, Callable[[], Any]] = {}
    gpu = result.get("gpu") or {}
    memory = result.get("memory_per_gpu_gb")
    if memory and gpu.get("memory_gb"):
        capacity = float(gpu["memory_gb"]) * float(gpu.get("fraction") or 1.0)
        out["memory"] = lambda: charts.memory_bar(memory, capacity, t=t)
    cost = result.get("cost") or {}
    currency = str(cost.get("currency") or "TWD")
    view = cost.get("tco_options") or cost
    if view.get("options"):
        out["cumulative"] = lambda: charts.cumulative_costs(
            view["options"], view.get("break_even") or [], currency=currency, t=t
        )
    if cost.get("tco"):
        # Years 1, 3 and 5 only: 5 bars per option crowd a page once there are 8 options.
        out["tco"] = lambda: charts.tco_bars(cost["tco"], currency=currency, t=t, years=TCO_YEARS)
    return out


def _size(name: str, result: Mapping[str, Any]) -> tuple[int, int]:
    """Pixel size: the TCO chart grows with its bar count so labels never overlap."""
    width, height = CHART_SIZES[name]
    if name == "tco":
        bars = len((result.get("cost") or {}).get("tco") or []) * len(TCO_YEARS)
        height = max(height, 260 + 30 * bars)
    return width, height


def chart_images(plan: Plan, lang: str) -> dict[str, str]:
    """{chart: SVG data URI}, rendered once per (plan, version, language)."""
    key = ("charts", plan.id, plan.version, lang)
    cached = _charts.get(key)
    if cached is not None:
        return dict(cached)
    out: dict[str, str] = {}
    for name, build in _figures(plan.result or {}).items():
        width, height = _size(name, plan.result or {})
        try:
            svg = charts.to_svg(build(), width, height, timeout_s=30)
        except Exception:  # a quote without one chart beats no quote
            log.exception("chart %s of plan %s could not be drawn", name, plan.id)
            continue
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        out[name] = f"data:image/svg+xml;base64,{data}"
    _charts.put(key, out)
    return dict(out)


def quote_html(plan: Plan, *, lang: str, session: Session) -> str:
    """The quote as print HTML (the PDF's source) in `lang`."""
    lang = normalise_lang(lang)
    previous = i18n.current_language()
    i18n.activate(lang)
    try:
        ctx = quote_view(session=session, plan=plan)
        ctx.update(lang=lang, charts=chart_images(plan, lang))
        return templates.env.get_template("quotes/quote.html").render(ctx)
    finally:
        i18n.activate(previous)


def render_quote_pdf(plan: Plan, *, lang: str, session: Session) -> bytes:
    """The PDF quote of the plan's current version in `lang` ("zh-TW" | "en"), cached."""
    import weasyprint

    lang = normalise_lang(lang)
    # The status is in the key: the customer's decision is printed on the sent revision.
    key = ("pdf", plan.id, plan.version, plan.status, lang)
    cached = _pdfs.get(key)
    if cached is not None:
        return bytes(cached)
    html = quote_html(plan, lang=lang, session=session)
    pdf = weasyprint.HTML(string=html, base_url=str(templates.env.loader.searchpath[0]))  # type: ignore[union-attr]
    data: bytes = pdf.write_pdf()
    _pdfs.put(key, data)
    return data


def filename(plan: Plan) -> str:
    """`<quote_number>.pdf` (the quote number is Q-<year>-<6 digits>: header-safe)."""
    return f"{plan.quote_number}.pdf"
