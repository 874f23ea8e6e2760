"""The PDF quote: templates/quotes/quote.html rendered by WeasyPrint, charts as vector SVG.

Costs of an uncached zh-TW quote (`benchmarks/bench_pdf.py`, 2-core dev box): ≈1.1 s of CPU,
of which the three charts ≈0.35 s (one Chromium call, app.charts.to_svgs) and WeasyPrint
≈0.75 s — about half of it drawing the charts' SVG text, which WeasyPrint lays out one
letter at a time. WeasyPrint needs libharfbuzz-subset0 (≈16 s without it: fontTools subsets
the CJK font instead). Charts are rendered once per (plan content, language) and whole PDFs
are kept in a small LRU cache keyed by what they print (`plan_digest`, `_pdf_key`). Not by the
plan's id and version alone: a database restored from a backup, or a SQLite file where the
newest plan was deleted, gives a different plan the same id and version 1, and the customer
record a quote prints is read live (an edited address must reach the next PDF).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from sqlmodel import Session

from app import charts, i18n
from app.costs import presenters
from app.plans.models import Plan
from app.quotes import currency, document
from app.quotes.service import printed_customer, quote_view
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


def _figures(
    result: Mapping[str, Any], quote: Mapping[str, Any] | None = None
) -> dict[str, Callable[[], Any]]:
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
    if one_off_hours(result, quote) is not None:
        return out  # the five-year views are for capacity used continuously, not this job
    view = cost.get("tco_options") or cost
    if view.get("options"):
        out["cumulative"] = lambda: charts.cumulative_costs(
            view["options"], view.get("break_even") or [], currency=currency, t=t
        )
    if cost.get("tco"):
        # Years 1, 3 and 5 only: 5 bars per option crowd a page once there are 8 options.
        out["tco"] = lambda: charts.tco_bars(cost["tco"], currency=currency, t=t, years=TCO_YEARS)
    return out


def one_off_hours(
    result: Mapping[str, Any], quote: Mapping[str, Any] | None = None
) -> float | None:
    """`presenters.one_off_hours` of a stored result: a quote for such a job leaves out the
    five-year charts and says why."""
    return presenters.one_off_hours(result.get("cost") or {}, quote)


def _size(name: str, result: Mapping[str, Any]) -> tuple[int, int]:
    """Pixel size: the TCO chart grows with its bar count so labels never overlap."""
    width, height = CHART_SIZES[name]
    if name == "tco":
        bars = len((result.get("cost") or {}).get("tco") or []) * len(TCO_YEARS)
        height = max(height, 220 + 22 * bars)
    return width, height


def customer_result(plan: Plan, house: str = "") -> dict[str, Any]:
    """The plan's result as the customer's charts draw it: option labels rebuilt in the active
    language (no catalog ids), other providers' prices (public cloud, marketplaces other
    than `house`, the seller) only when the quote switches them on, amounts in the quote's
    currency (app.quotes.currency)."""
    result = currency.result_in_quote_currency(plan.result or {}, plan.quote or {})
    cost = dict(result.get("cost") or {})
    gpu = result.get("gpu") or {}
    hours = float(cost.get("hours_per_month") or 730.0)
    include = bool((plan.quote or {}).get("include_cloud_comparison"))

    # The TCO rows name an option by key only: what it pays for (`billed`) is the option's,
    # among the cost options or the five-year view's own (a 12-month contract for a one-day
    # job is only there: its TCO bars read "3 ×" beside the legend's "4 × (the plan uses 3)").
    view_options = (cost.get("tco_options") or {}).get("options") or []
    billed = {o.get("key"): o.get("billed") for o in [*view_options, *(cost.get("options") or [])]}

    def clean(options: Any) -> list[dict[str, Any]]:
        shown = document.visible_options(list(options or []), include_cloud=include, house=house)
        # Two offers that read the same (two providers' 1-GPU hourly rent) keep the provider
        # in their legend entry, as the quote's own table names them.
        labels = document.option_labels(
            [{"billed": billed.get(o.get("key")), **o} for o in shown], gpu, hours
        )
        return [{**o, "label": labels[str(o.get("key"))]} for o in shown]

    keys = {o.get("key") for o in clean(cost.get("options"))}
    kept = set(keys)
    if cost.get("options"):
        cost["options"] = clean(cost["options"])
    if cost.get("tco_options"):
        view = dict(cost["tco_options"])
        view["options"] = clean(view.get("options"))
        kept |= {o.get("key") for o in view["options"]}
        view["break_even"] = [
            b for b in view.get("break_even") or [] if b.get("a") in kept and b.get("b") in kept
        ]
        cost["tco_options"] = view
    if cost.get("tco"):
        # A TCO row carries no `feasible` of its own: it is its option's, by key. Kept ones
        # only are named together, as in the legends (a pod that cannot run the plan made the
        # bars name "Stratagem Taipei" where the cumulative legend named no one).
        cost["tco"] = clean([c for c in cost["tco"] if c.get("key") in kept])
    cost["break_even"] = [
        b for b in cost.get("break_even") or [] if b.get("a") in keys and b.get("b") in keys
    ]
    result["cost"] = cost
    return result


def break_even_rows(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The cumulative chart's crossings as the document's table says them, by month.

    `result`: `customer_result`'s. Each row names its two options as the chart's legend
    does, so a "Month 4.6" callout can be read: in a quote with public-cloud comparisons the
    chart boxed six months with no word of which lines crossed (QA). A crossing made only by
    the resale of bought hardware carries its sentence (app.costs.presenters.break_even_rows).
    """
    cost = result.get("cost") or {}
    view = cost.get("tco_options") or cost
    names = {str(o.get("key")): str(o.get("label") or "") for o in view.get("options") or []}
    pairs = [b for b in view.get("break_even") or [] if b.get("a") in names and b.get("b") in names]
    # The five-year view keeps bought hardware longer than the ways to pay hold it: the rows
    # say so (`presenters.break_even_basis`).
    kept = view.get("horizon_months") if view is not cost else None
    return presenters.break_even_rows(pairs, names, kept)


@dataclass(frozen=True)
class ChartImages:
    """The quote's charts as SVG data URIs, and the ones Chromium could not draw."""

    images: dict[str, str]
    missing: tuple[str, ...] = ()


#: Tries per chart: a failure restarts Chromium (app.charts.render), so one more try is
#: usually enough; a chart that fails twice is left out of this rendering only.
CHART_TRIES: Final = 2
#: No second try once this many seconds went on the first (a Chromium that timed out):
#: a quote must render well inside the worker's limit (app.quotes.worker.RENDER_TIMEOUT_S,
#: 180 s), and one try can take 30 s to start Chromium + 30 s a chart.
CHART_RETRY_WITHIN_S: Final = 40.0


def chart_images(plan: Plan, lang: str, house: str = "") -> ChartImages:
    """The plan's charts in `lang`, rendered once per (plan, version, language).

    The figures are built in `lang` and sent to Chromium in one call (app.charts.to_svgs);
    the ones that fail are tried once more. Only a complete set is cached: a chart that
    Chromium could not draw this time (it did not start within its limit on a saturated
    machine) is drawn again by the next request instead of leaving the quote without it.
    """
    key = ("charts", plan.id, plan_digest(plan), lang, house)
    cached = _charts.get(key)
    if cached is not None:
        return ChartImages(dict(cached))
    previous = i18n.current_language()
    i18n.activate(lang)
    try:
        result = customer_result(plan, house)
        figures = {name: build() for name, build in _figures(result, plan.quote).items()}
    finally:
        i18n.activate(previous)
    out: dict[str, str] = {}
    todo = list(figures)
    started = time.monotonic()
    for attempt in range(1, CHART_TRIES + 1):
        if attempt > 1 and time.monotonic() - started > CHART_RETRY_WITHIN_S:
            break
        try:
            svgs: list[str | charts.ChartRenderError] = charts.to_svgs(
                [(figures[n], *_size(n, result)) for n in todo], timeout_s=30
            )
        except charts.ChartRenderError as e:
            svgs = [e] * len(todo)
        failed = []
        for name, svg in zip(todo, svgs, strict=True):
            if isinstance(svg, charts.ChartRenderError):
                log.warning(
                    "chart %s of plan %s not drawn (try %s of %s): %s",
                    name,
                    plan.id,
                    attempt,
                    CHART_TRIES,
                    svg,
                )
                failed.append(name)
                continue
            data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
            out[name] = f"data:image/svg+xml;base64,{data}"
        todo = failed
        if not todo:
            break
    if todo:  # a quote without a chart beats no quote, but it is not kept
        log.error("charts %s of plan %s left out of this quote", ", ".join(todo), plan.id)
        return ChartImages(out, tuple(todo))
    _charts.put(key, out)
    return ChartImages(dict(out))


def _quote_html(
    plan: Plan, *, lang: str, session: Session, letterhead: Mapping[str, str] | None = None
) -> tuple[str, ChartImages]:
    lang = normalise_lang(lang)
    previous = i18n.current_language()
    i18n.activate(lang)
    try:
        ctx = quote_view(session=session, plan=plan, letterhead=letterhead)
        house = ctx["house_provider"]
        images = chart_images(plan, lang, house)
        rows = (
            break_even_rows(customer_result(plan, house)) if images.images.get("cumulative") else []
        )
        ctx.update(
            lang=lang,
            charts=images.images,
            break_even_rows=rows,
            break_even_basis=presenters.break_even_basis(rows),
            one_off_hours=one_off_hours(plan.result or {}, plan.quote),
        )
        return templates.env.get_template("quotes/quote.html").render(ctx), images
    finally:
        i18n.activate(previous)


def quote_html(
    plan: Plan, *, lang: str, session: Session, letterhead: Mapping[str, str] | None = None
) -> str:
    """The quote as print HTML (the PDF's source) in `lang`."""
    return _quote_html(plan, lang=lang, session=session, letterhead=letterhead)[0]


def render_quote_pdf(
    plan: Plan, *, lang: str, session: Session, letterhead: Mapping[str, str] | None = None
) -> bytes:
    """The PDF quote of the plan's current version in `lang` ("zh-TW" | "en"), cached.

    Rendered in a worker process (app.quotes.worker) unless the pool is off. The cache key
    holds everything the quote shows: the plan row's content (its status included: the
    customer's decision is printed on the sent revision), the database, the seller's name
    and letterhead, the revision of the plan's price list and the customer record as it is
    now (all the same in every app process).
    """
    from app.ops import metrics
    from app.quotes import worker

    lang = normalise_lang(lang)
    key = (*_pdf_key(plan, lang, session), plan.status, tuple(sorted((letterhead or {}).items())))
    cached = _pdfs.get(key)
    metrics.cache_lookup("pdf", hit=cached is not None)
    if cached is not None:
        return bytes(cached)
    start = time.perf_counter()
    rendered = worker.render(
        plan,
        lang=lang,
        session=session,
        write=render_pdf,
        forget=forget_charts,
        letterhead=dict(letterhead or {}),
    )
    where = "pool" if worker.pool_size() > 0 else "inline"
    metrics.PDF.labels(where).observe(time.perf_counter() - start)
    if not rendered.missing_charts:  # a quote missing a chart is rendered again next time
        _pdfs.put(key, rendered.data)
    return rendered.data


def plan_digest(plan: Plan) -> str:
    """A SHA-256 of every column of the plan row (its workload, result, quote, customer,
    status, timestamps): two plans that print differently never share it, whatever their
    ids and versions."""
    from app.quotes import worker

    return _digest(worker.snapshot(plan))


def _digest(columns: Mapping[str, Any]) -> str:
    text = json.dumps(columns, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _pdf_key(plan: Plan, lang: str, session: Session) -> tuple[Any, ...]:
    from app.accounts.models import User
    from app.catalog.models import PriceList
    from app.customers.models import Customer

    bind: Any = session.get_bind()
    owner = session.get(User, plan.owner_id)
    pl = session.get(PriceList, plan.price_list_id) if plan.price_list_id is not None else None
    customer: Customer | None = printed_customer(session, plan)
    return (
        "pdf",
        str(getattr(bind, "url", id(bind))),
        plan.id,
        plan_digest(plan),
        lang,
        owner.name if owner is not None else None,
        (pl.id, pl.revision) if pl is not None else None,
        # The buyer printed (name, 統一編號, address, contact): as sent on the sent revision,
        # else the customer record as it is now.
        _digest(customer.model_dump()) if customer is not None else None,
    )


def forget_charts() -> None:
    """Drop this process's chart images (a PDF worker handed another database)."""
    _charts.clear()


_fonts = threading.local()


def _font_config() -> Any:
    """This thread's WeasyPrint FontConfiguration, kept between documents.

    A new one per document (WeasyPrint's default) builds a fresh Pango font map, so every
    quote would look its fonts up and load the Noto CJK face again (≈0.15 s a quote here).
    Thread-local: WeasyPrint gives no thread-safety promise for one shared between threads.
    """
    config = getattr(_fonts, "config", None)
    if config is None:
        from weasyprint.text.fonts import FontConfiguration

        config = _fonts.config = FontConfiguration()
    return config


@dataclass(frozen=True)
class RenderedPdf:
    """PDF bytes, and the charts that could not be drawn into them (none, normally)."""

    data: bytes
    missing_charts: tuple[str, ...] = ()


def render_pdf(
    plan: Plan, *, lang: str, session: Session, letterhead: Mapping[str, str] | None = None
) -> RenderedPdf:
    """The PDF, rendered here and now (no PDF cache; chart images are cached)."""
    import weasyprint

    html, images = _quote_html(
        plan, lang=normalise_lang(lang), session=session, letterhead=letterhead
    )
    pdf = weasyprint.HTML(string=html, base_url=str(templates.env.loader.searchpath[0]))  # type: ignore[union-attr]
    data: bytes = pdf.write_pdf(font_config=_font_config())
    return RenderedPdf(data, images.missing)


def write_pdf(
    plan: Plan, *, lang: str, session: Session, letterhead: Mapping[str, str] | None = None
) -> bytes:
    """The PDF bytes, rendered here and now (no PDF cache; chart images are cached)."""
    return render_pdf(plan, lang=lang, session=session, letterhead=letterhead).data


def warm() -> None:
    """Pay a first quote's one-off costs now: import WeasyPrint, load the fonts, start Chromium."""
    import weasyprint

    charts.warm()
    page = '<html lang="zh-Hant"><body style="font-family: \'Noto Sans CJK TC\'">報價 Quote</body></html>'
    weasyprint.HTML(string=page).write_pdf(font_config=_font_config())


def filename(plan: Plan, lang: str) -> str:
    """`<quote_number>-<lang>.pdf` (Q-<year>-<6 digits>-zh-TW: header-safe). The language is
    in the name: a customer who downloads both documents gets two files, not a second
    "Q-2026-000001.pdf" over the first (QA)."""
    return f"{plan.quote_number}-{normalise_lang(lang)}.pdf"
