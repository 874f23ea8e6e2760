"""Jinja2 templates for every HTML page: one environment, translated per request.

Conventions (follow them in every page)
---------------------------------------
* Pages call :func:`render` — ``render(request, "pages/plan.html", {...})`` — never
  ``templates.TemplateResponse`` directly: ``render`` activates the request's language and
  adds the shared context below. An HTMX request gets one block only:
  ``render(request, "pages/plan.html", ctx, block_name="results")`` (jinja2-fragments);
  such a block must not depend on variables set outside it.
* Every page extends ``base.html`` and fills the blocks ``title``, ``head`` (extra <link>s),
  ``content`` and ``scripts`` (extra <script src> tags — never inline scripts, never
  ``on*=`` handlers: a CSP without 'unsafe-inline' is coming). Plotly figures travel as
  JSON in ``<script type="application/json" class="plotly-figure">`` data islands and
  static/js/charts.js draws them.
* Shared partials are ``templates/_*.html``; pages live in ``templates/pages/`` or
  ``templates/<area>/``.
* Text: ALL visible strings go through gettext, msgids in English —
  ``{{ _("Planner") }}``, ``{% trans %}…{% endtrans %}``, ``{{ _("%(n)s GPUs", n=4) }}``
  (newstyle gettext: keyword placeholders, auto-escaped; in Chinese the space beside a
  placeholder goes where its value meets Chinese with Chinese, ``i18n.close_wide_gaps``).
  Python strings use ``app.i18n.gettext``/``N_``. Translations go into a ``.po`` file in
  ``app/locale/zh_Hant_TW/LC_MESSAGES/`` (each area may keep its own ``<area>.po``).
* Context every template gets: ``request``, ``lang`` ("zh-TW"|"en"), ``currency``
  ("TWD"|"USD"), ``csrf_token``, ``price_list`` (the PriceBook or None), ``nav_active``
  (set it in your context to highlight a nav entry: "home", "assess", "plan", "tco",
  "architectures", "catalog", "plans"), ``current_user`` (the signed-in ``User`` or None;
  see app/accounts/web.py).
* Globals/filters: ``_``/``gettext``/``ngettext``; ``money(value, currency)`` →
  "NT$1,234,567" / "US$1,234.56"; ``number(value, digits=0)`` → locale digits;
  ``value|data`` (data such as a price list's name, marked translate="no");
  ``pairs|translate_pairs`` ((value, msgid) → (value, label));
  ``percent(value, digits=0)`` (0.25 → "25%"); ``value|date`` (locale date); ``static_url("css/app.css")`` →
  "/static/css/app.css?v=<content hash>"; ``csrf_field()`` → the hidden input for POST forms.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import unicodedata
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, Final
from urllib.parse import urlsplit

import jinja2
from babel.dates import format_date
from babel.numbers import format_decimal
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import Response

from app import i18n
from app.dates import in_business_tz
from app.engine.formatting import CURRENCY_DIGITS, CURRENCY_SYMBOLS, currency_symbol

#: Re-exported: the catalog pages read the currency table, every page router is_fragment.
__all__ = ["CURRENCY_DIGITS", "CURRENCY_SYMBOLS", "is_fragment"]
from app.settings import REPO_ROOT
from app.web.csrf import FIELD as CSRF_FIELD
from app.web.csrf import token_for
from app.web.htmx import is_fragment
from app.web.static import VERSION_CHARS

TEMPLATE_DIR: Final = REPO_ROOT / "templates"
STATIC_DIR: Final = REPO_ROOT / "static"
CURRENCY_COOKIE: Final = "currency"
CURRENCIES: Final = ("TWD", "USD")


def money(
    value: Decimal | float | int | str | None,
    currency: str | None = None,
    digits: int | None = None,
) -> str:
    """'NT$1,234,567' / 'US$1,234.56' in the request's locale; '—' for None.

    A quote's money is a Decimal, or its string as stored (`quote_totals`, a line's amount):
    written exactly, never through a float, which keeps 15–17 significant digits (QA: a
    NT$126,000,000,000,000,004,415,040 total printed as NT$126,000,000,000,000,000,000,000).
    A missing field (Jinja's Undefined, e.g. a saved cost option of another shape: the old
    `monthly` became `monthly_rate`/`total`) also shows '—' instead of failing the page.
    """
    if value is None or isinstance(value, jinja2.Undefined):
        return "—"
    # a float as its shortest repr, as Babel itself reads one
    amount = value if isinstance(value, Decimal) else Decimal(str(value))
    if not amount.is_finite():
        return "—"
    ccy = (currency or "TWD").upper()
    places = CURRENCY_DIGITS.get(ccy, 2) if digits is None else digits
    pattern = "#,##0" + ("." + "0" * places if places > 0 else "")
    body = format_decimal(abs(amount), format=pattern, locale=i18n.babel_locale())
    # U+2212, as the engine, the charts and the quote's discount lines write a minus (QA: a
    # difference read "-NT$302,400" beside "−NT$10,000")
    sign = "−" if amount < 0 and body.strip("0.,") else ""
    return f"{sign}{currency_symbol(ccy)}{body}"


def paren(text: object) -> Markup:
    """`text` in parentheses after what precedes it, in the page's language: "（第 1 版）" in
    Chinese (full width, no space before), " (version 1)" in English. Escaped unless Markup."""
    return Markup(i18n.paren(escape(text)))


def paren_kept(text: str) -> str:
    """`text` whose closing parenthetical wraps whole: its spaces become no-break spaces.
    For labels that are not markup (a stacked table's `data-label`, drawn by CSS): on a
    phone "Total for the period (excl. / tax)" split inside it (QA). 「（未稅）」 has no
    space to keep. Where markup is allowed the quote PDF's `closing_paren_kept` macro wraps
    the parenthetical in a no-wrap span instead, which also keeps a Chinese one whole."""
    at = max(text.rfind(" ("), text.rfind("（"))
    if at <= 0:
        return text
    return text[: at + 1] + text[at + 1 :].replace(" ", "\u00a0")


def kpi_value(text: str) -> Markup:
    """A card's headline figure, sized by its length so it stays on one line: a 150 px card
    holds 9 characters at the full size ('49,503,08' then '9' on its own line, seen at
    1440 px), 12 at `long`, 14 at `longer` (static/css/app.css).

    Narrower cards shrink it further: its `fit-N` class (N its length rounded up to one of
    KPI_FIT_CHARS, a wide CJK character counting as KPI_WIDE_CHAR) lets the stylesheet cap
    the size at what fits the card's width, so a figure never breaks inside itself
    ("NT$1,920,00" then "0" on a 390 px phone, QA). A class, not a style attribute: pages
    carry no inline styles (tests/web/test_pages.py)."""
    size = len(text)
    fit = " longer" if size > 12 else " long" if size > 9 else ""
    chars = sum(KPI_WIDE_CHAR if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    bound = next((n for n in KPI_FIT_CHARS if chars <= n), KPI_FIT_CHARS[-1])
    return Markup('<div class="v%s fit-%s">%s</div>') % (fit, bound, text)


#: A wide (CJK) character's width in `kpi_value`'s count: 1 em, against the 0.72 em the
#: stylesheet allows each character of a figure (static/css/app.css, `.kpi .v[class*=fit-]`).
KPI_WIDE_CHAR: Final = 1.4
#: The lengths `kpi_value` rounds up to, each a `fit-N` class in static/css/app.css.
KPI_FIT_CHARS: Final = (6, 8, 10, 11, 12, 13, 14, 16, 18, 20, 24, 32)


def number(value: float | int | None, digits: int = 0) -> str:
    """A number with the locale's grouping and exactly `digits` decimals; '—' for None."""
    if value is None:
        return "—"
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return format_decimal(value, format=pattern, locale=i18n.babel_locale())


@jinja2.pass_context
def grouped_ngettext(
    context: jinja2.runtime.Context, singular: str, plural: str, num: Any, **variables: Any
) -> str:
    """Jinja's newstyle ngettext, with a whole-number `num` grouped as the locale writes it:
    "2,048 nodes", where the stock one printed "2048 nodes" beside "16,384 GPUs"."""
    if "num" not in variables:
        whole = isinstance(num, int) or (isinstance(num, float) and num.is_integer())
        variables["num"] = number(num) if whole else num
    text = i18n.close_wide_gaps(str(context.call(i18n.ngettext, singular, plural, num)), variables)
    if context.eval_ctx.autoescape:
        return Markup(text) % variables  # escapes the variables, keeps the result safe
    return text % variables


@jinja2.pass_context
def spaced_gettext(context: jinja2.runtime.Context, message: str, **variables: Any) -> str:
    """Jinja's newstyle gettext (`_`, `{% trans %}`), without the space between two Chinese
    neighbours where a placeholder's value is Chinese (`i18n.close_wide_gaps`)."""
    text = i18n.close_wide_gaps(str(context.call(i18n.gettext, message)), variables)
    if context.eval_ctx.autoescape:
        return Markup(text) % variables  # escapes the variables, keeps the result safe
    return text % variables


def count_number(value: float, digits: int = 1) -> str:
    """A count as a person says it: '4' for 4.0 ('4.0 months' read as a measurement, QA),
    '2.5' with `digits` decimals otherwise."""
    return number(value, 0 if float(value) == round(float(value)) else digits)


def months_text(value: float, digits: int | None = None) -> str:
    """'1 month', '6 months', '0.4 months' ('1 個月' …): whole numbers without decimals,
    others with `digits` (default 1)."""
    whole = float(value) == round(float(value))
    text = count_number(value, 1 if digits is None else digits)
    count = 1 if whole and round(float(value)) == 1 else 2
    return i18n.ngettext("%(num)s month", "%(num)s months", count) % {"num": text}


def hours_text(value: float, digits: int = 0) -> str:
    """'1 hour', '132 hours' ('132 小時'), rounded to whole hours (or to `digits`: '16.4
    hours' for a job whose whole hours billed, 17, would otherwise read as 16)."""
    shown = round(float(value), digits)
    count = 1 if shown == 1 else 2
    text = number(value, digits if shown != round(shown) else 0)
    return i18n.ngettext("%(num)s hour", "%(num)s hours", count) % {"num": text}


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def figure(value: float | int | None) -> str:
    """Any magnitude readably: 0.52 → '0.52', 1,234 → '1,234', 3.4e18 → '3.43×10¹⁸' (the
    exponent raised, as printed: "10^18" read as a programmer's caret, QA)."""
    if value is None:
        return "—"
    v = float(value)
    if not math.isfinite(v):
        # Nothing to print: f"{inf:.2e}" has no exponent to split, and the page answered 500
        # (QA: a catalog rate of 1e-320 divided into infinity).
        return "—"
    if v.is_integer() and abs(v) < 1e7:
        return number(v, 0)
    if v != 0 and (abs(v) >= 1e7 or abs(v) < 0.01):
        mantissa, exp = f"{v:.2e}".split("e")
        return f"{mantissa}×10{str(int(exp)).translate(_SUPERSCRIPT)}"
    return number(v, 2 if abs(v) < 10 else 1 if abs(v) < 100 else 0)


def date(value: Any, fmt: str = "medium") -> str:
    """A date in the locale's format ('2025年6月1日' / 'Jun 1, 2025'); '' for None. An ISO
    string (a date stored in a result's JSON) is read as that date; an instant (when a quote
    was accepted) is dated on Taipei's calendar, as quotes are (app.dates.BUSINESS_TZ)."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = datetime.date.fromisoformat(value)
    elif isinstance(value, datetime.datetime):
        value = in_business_tz(value).date()
    return format_date(value, format=fmt, locale=i18n.babel_locale())


def clock(value: datetime.datetime | None) -> str:
    """'07:30 UTC+8': an instant's time of day on Taipei's clock, saying which clock."""
    if value is None:
        return ""
    return in_business_tz(value).strftime("%H:%M") + " UTC+8"


def percent(value: float | None, digits: int = 0) -> str:
    """0.25 → '25%'; '—' for None."""
    if value is None:
        return "—"
    return number(value * 100, digits) + "%"


_static_hashes: dict[str, tuple[float, str]] = {}


def static_url(path: str) -> str:
    """The versioned URL of a file under static/ (content hash, so caches never go stale)."""
    clean = path.lstrip("/")
    file = STATIC_DIR / clean
    try:
        mtime = file.stat().st_mtime
    except OSError:
        return f"/static/{clean}"
    cached = _static_hashes.get(clean)
    if cached and cached[0] == mtime:
        return f"/static/{clean}?v={cached[1]}"
    digest = hashlib.sha256(file.read_bytes()).hexdigest()[:VERSION_CHARS]
    _static_hashes[clean] = (mtime, digest)
    return f"/static/{clean}?v={digest}"


def data(value: Any) -> Markup:
    """Data shown as entered (a price list's name): marked translate="no" for the browser."""
    return Markup('<span translate="no">%s</span>') % value


def translate_pairs(pairs: Any) -> list[tuple[str, str]]:
    """(value, msgid) pairs → (value, translated label), for <select> options."""
    return [(str(v), i18n.gettext(str(label))) for v, label in pairs]


def choose_currency(request: Request) -> str:
    """The `currency` cookie, else the configured default."""
    value = (request.cookies.get(CURRENCY_COOKIE) or "").upper()
    if value in CURRENCIES:
        return value
    default = str(request.app.state.settings.default_currency).upper()
    return default if default in CURRENCIES else "TWD"


def _no_nul(value: Any) -> Any:
    """Every printed value without a NUL: a form shown again with what was typed wrote a
    typed NUL into the page (QA), which HTML does not allow; it shows as U+FFFD, the mark
    for a character that cannot be shown, beside the error that names it."""
    return value.replace("\x00", "\ufffd") if isinstance(value, str) and "\x00" in value else value


def _make_templates() -> Jinja2Blocks:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_no_nul,
        # Templates are read once per process, as the code is: a deployment that replaces
        # files under a running server kept its old code but read the new templates, and a
        # template calling a helper the old code lacked was a 500 on every page (QA). A
        # restart takes both; it also spares a stat() of each template per render.
        auto_reload=False,
    )
    # The callables read the request's language from a context variable (set by `render`),
    # so one shared environment serves both languages safely, imported macros included.
    env.install_gettext_callables(  # type: ignore[attr-defined]
        i18n.gettext, i18n.ngettext, newstyle=True, pgettext=i18n.pgettext
    )
    env.globals.update(
        gettext=spaced_gettext,
        _=spaced_gettext,
        ngettext=grouped_ngettext,
        money=money,
        number=number,
        count_number=count_number,
        percent=percent,
        figure=figure,
        months_text=months_text,
        hours_text=hours_text,
        kpi_value=kpi_value,
        static_url=static_url,
        colon=i18n.colon,
        comma=i18n.comma,
        gap=i18n.gap,
        paren=paren,
        languages=i18n.LANGUAGE_NAMES,
        currencies=CURRENCIES,
    )
    env.filters.update(
        money=money,
        number=number,
        percent=percent,
        date=date,
        clock=clock,
        translate_pairs=translate_pairs,
        data=data,
        paren_kept=paren_kept,
    )
    return Jinja2Blocks(env=env)


templates: Final = _make_templates()


def base_context(request: Request) -> dict[str, Any]:
    """What every template may use (see the module docstring)."""
    from app.accounts.web import current_user
    from app.catalog.current import price_book

    token = token_for(request)
    return {
        "request": request,
        "lang": i18n.current_language(),
        "currency": choose_currency(request),
        "csrf_token": token,
        "csrf_field": lambda: Markup(
            f'<input type="hidden" name="{CSRF_FIELD}" value="{escape(token)}">'
        ),
        "price_list": price_book(request),
        "nav_active": None,
        "is_htmx": is_fragment(request),
        "current_user": current_user(request),
        "page_address": page_address(request),
    }


def page_address(request: Request) -> str:
    """Where the language and currency switches come back to: this page's own path and query
    for a GET; for a page rendered in answer to a form post (an error beside a field), the
    page the form was posted from (a same-site Referer), else "/". QA: switching language
    after a refused accept went to GET /s/<token>/accept, a 405."""
    if request.method in ("GET", "HEAD"):
        query = request.url.query
        return request.url.path + (f"?{query}" if query else "")
    ref = urlsplit(request.headers.get("referer", ""))
    same_site = not ref.netloc or ref.netloc == request.url.netloc
    if same_site and ref.path.startswith("/") and not ref.path.startswith("//"):
        return ref.path + (f"?{ref.query}" if ref.query else "")
    return "/"


def activate(request: Request) -> str:
    """Choose and activate the request's language; returns it."""
    lang = getattr(request.state, "lang", None)
    if lang is None:
        default = str(request.app.state.settings.default_language)
        lang = i18n.choose_language(request, default)
        request.state.lang = lang
    i18n.activate(lang)
    return lang


def render(
    request: Request,
    name: str,
    context: Mapping[str, Any] | None = None,
    block_name: str | Sequence[str] | None = None,
    *,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """Render a page (or only `block_name` of it — a name or a list — for HTMX)."""
    activate(request)
    ctx = base_context(request)
    if context:
        ctx.update(context)
    all_headers = {"Vary": "Accept-Language, Cookie, HX-Request"}
    if headers:
        all_headers.update(headers)
    if isinstance(block_name, str):
        return templates.TemplateResponse(
            request, name, ctx, status_code, all_headers, block_name=block_name
        )
    if block_name:
        return templates.TemplateResponse(
            request, name, ctx, status_code, all_headers, block_names=list(block_name)
        )
    return templates.TemplateResponse(
        request, name, ctx, status_code=status_code, headers=all_headers
    )
