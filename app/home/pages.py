"""Home page and the language / currency switches (cookies that stick, no JavaScript needed)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.architectures import content
from app.i18n import LANG_COOKIE, normalise
from app.web.language import ONE_YEAR
from app.web.templating import CURRENCIES, CURRENCY_COOKIE, render

router = APIRouter(include_in_schema=False)


def safe_next(value: str | None) -> str:
    """Only a local path may be a redirect target (no open redirects)."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


def _preference(request: Request, name: str, value: str, next_url: str | None) -> Response:
    response = RedirectResponse(safe_next(next_url), status_code=303)
    response.set_cookie(
        name,
        value,
        max_age=ONE_YEAR,
        samesite="lax",
        secure=request.app.state.settings.https,
        httponly=True,
    )
    return response


@router.get("/")
def home(request: Request) -> Response:
    """Home: what Stratagem does, the three tiers, and the two ways in."""
    return render(request, "pages/home.html", content.home_context(request))


def without_lang(next_url: str | None) -> str | None:
    """`next_url` without its `lang` parameter: a page address's `lang` outranks the cookie
    (app.web.language), so going back to `/assess?lang=zh-TW` after choosing English showed
    中文 again (QA)."""
    if not next_url or "lang=" not in next_url:
        return next_url
    parts = urlsplit(next_url)
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k != "lang"])  # fmt: skip
    return urlunsplit(("", "", parts.path, query, parts.fragment))


@router.get("/set-language")
def set_language(
    request: Request, lang: str = Query("zh-TW"), next: str | None = Query(None)
) -> Response:
    """Switch the language (cookie `lang`) and go back to the page."""
    return _preference(request, LANG_COOKIE, normalise(lang) or "zh-TW", without_lang(next))


@router.get("/set-currency")
def set_currency(
    request: Request, currency: str = Query("TWD"), next: str | None = Query(None)
) -> Response:
    """Switch the display currency (cookie `currency`) and go back to the page."""
    code = currency.upper() if currency.upper() in CURRENCIES else "TWD"
    return _preference(request, CURRENCY_COOKIE, code, next)
