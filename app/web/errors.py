"""One error path: a `DomainError` (or an engine `InputError`) becomes JSON under `/api/`
and the translated error page everywhere else.

`install(app)` registers the handlers; nothing else in the app maps errors to responses.
The language is already active (`app.web.language`), so messages come out translated.

A database that cannot be reached (`app.ops.outage.database_unavailable`) is a 503 with
`Retry-After`: JSON under `/api/`, else `templates/errors/unavailable.html`, a page that needs
nothing from the database (the usual pages read the signed-in user and the price list).
"""

from __future__ import annotations

import re
import sqlite3
from html import escape
from typing import Any, Final

import psycopg
from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.formparsers import MultiPartException

from app.engine.estimate import InputError
from app.engine.notices import Notice
from app.errors import (
    RESERVED_PARAMS,
    DomainError,
    Invalid,
    InvalidNested,
    LoginRequired,
    PageForbidden,
    TooManyRequests,
)
from app.i18n import N_, gap, gettext
from app.ops import outage
from app.ops.logs import REQUEST_ID
from app.ops.middleware import loggable_path
from app.web import failures, htmx
from app.web.api_messages import unreadable_body
from app.web.forms import as_sentence, message_for
from app.web.htmx import is_fragment
from app.web.templating import activate, page_address, render, templates

#: What a client must not keep: an outage page cached would outlive the outage.
UNAVAILABLE_HEADERS: Final = {
    "Retry-After": str(outage.RETRY_AFTER_S),
    "Cache-Control": "no-store",
}
#: The errors a database driver raises, wrapped by SQLAlchemy or not; which of them mean
#: "unreachable" is `outage.database_unavailable`'s decision, the rest stay 500s.
DATABASE_ERRORS: Final = (
    DBAPIError,
    PoolTimeout,
    psycopg.OperationalError,
    sqlite3.OperationalError,
)

#: First path segment → the navigation entry an error page highlights.
_NAV: dict[str, str] = {"catalog": "catalog", "plans": "plans", "compare": "plans"}


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def as_domain_error(exc: Exception) -> DomainError:
    if isinstance(exc, DomainError):
        return exc
    if isinstance(exc, InputError):
        # A Notice is translated into the request's language; one whose parameters clash with
        # Invalid's own keywords (a "%(field)s" or "%(where)s" placeholder) is said in
        # English, never a 500.
        if isinstance(exc.message, Notice) and not RESERVED_PARAMS & set(exc.message.params):
            return Invalid(exc.message.template, field=exc.field, **exc.message.params)
        return Invalid(str(exc), field=exc.field)
    raise TypeError(f"not a domain error: {exc!r}")


def login_url(next_path: str | None) -> str:
    from app.accounts.web import login_url as url

    return url(next_path)


def error_page(request: Request, exc: DomainError) -> Response:
    """The HTML answer: /login for a visitor who must sign in, else `_error.html`."""
    if isinstance(exc, LoginRequired):
        target = login_url(exc.next_path)
        if is_fragment(request):
            return htmx.redirect(target)
        return RedirectResponse(target, status_code=303)
    if isinstance(exc, PageForbidden):
        ctx: dict[str, Any] = {"status": 403, "kind": "forbidden", "roles": exc.roles}
        return render(request, "accounts/forbidden.html", ctx, status_code=403)
    segment = request.url.path.strip("/").split("/", 1)[0]
    ctx = {"status": exc.status, "kind": exc.kind, "nav_active": _NAV.get(segment)}
    if exc.message_id:
        # A sentence of its own: the API's clause ("no customer 9") gets its capital and
        # full stop, a sentence keeps its own (QA: "找不到方案 999。。" inside a wrapper).
        ctx["message"] = as_sentence(exc.message)
    ctx["back"] = _back_to(request)
    return render(request, "_error.html", ctx, status_code=exc.status)


#: A query value the page refuses, as the reader sees it in the address bar ("page=0"), not
#: as "page: …" (QA: an error page naming the code's parameter); then why, as a sentence.
ADDRESS_REFUSED: Final = N_("The address says %(part)s, which this page cannot take. %(why)s")
#: A posted field the route's schema refuses, named as the form sends it.
FIELD_REFUSED: Final = N_("The form's field “%(name)s” cannot be taken. %(why)s")
#: A value longer than this is echoed cut, with "…".
ADDRESS_ECHO_CHARS: Final = 40


def _address_refusal(request: Request, name: str, why: str) -> str:
    value = request.query_params.get(name, request.path_params.get(name))
    if value is None:
        part = name
    else:
        text = str(value)
        part = (
            f"{name}={text if len(text) <= ADDRESS_ECHO_CHARS else text[:ADDRESS_ECHO_CHARS] + '…'}"
        )
    return gettext(ADDRESS_REFUSED) % {"part": part, "why": as_sentence(why)}


def _back_to(request: Request) -> str | None:
    """The page a refused form was sent from (this site's, by its Referer), for a "back"
    link: the error page of a plan's form led only to the home page (QA)."""
    referer = request.headers.get("referer", "")
    here = f"{request.url.scheme}://{request.url.netloc}/"
    if not referer.startswith(here):
        return None
    path = "/" + referer[len(here) :]
    # "//host" and "/\\host" would leave the site (browsers read both as another host's).
    if path[1:2] in ("/", "\\") or path == request.url.path:
        return None
    return path


def unavailable_response(request: Request, *, busy: bool = False) -> Response:
    """The 503 for a request the database could not serve, in the visitor's language.

    `busy`: SQLite's write lock stayed held past its busy timeout by another writer (a large
    import): said as such, with a longer `Retry-After`, not as an outage (QA of stop 30: a
    customer saved during a 64 s import was told "the database is not answering")."""
    lang = activate(request)
    headers = dict(UNAVAILABLE_HEADERS)
    if busy:
        headers["Retry-After"] = str(outage.BUSY_RETRY_AFTER_S)
    if is_api(request):
        detail = (
            gettext(
                "The database is busy with another change (a large import, for example); "
                "nothing was done. Try again in about %(s)s seconds."
            )
            % {"s": outage.BUSY_RETRY_AFTER_S}
            if busy
            else gettext("The database is unavailable; try again in a few seconds.")
        )
        return JSONResponse({"detail": detail}, status_code=503, headers=headers)
    page = templates.env.get_template("errors/unavailable.html").render(
        lang=lang,
        busy=busy,
        retry_s=outage.BUSY_RETRY_AFTER_S,
        retry_url=page_address(request),
        form_sent=request.method not in ("GET", "HEAD"),
        request_id=REQUEST_ID.get(),
    )
    headers = {**headers, "Vary": "Accept-Language, Cookie"}
    return HTMLResponse(page, status_code=503, headers=headers)


async def database_error(request: Request, exc: Exception) -> Response:
    """503 when the database could not be reached; any other database error is re-raised,
    to become the logged 500 of app.ops.middleware."""
    if not outage.database_unavailable(exc):
        raise exc
    outage.report(exc, method=request.method, path=loggable_path(request.url.path))
    return unavailable_response(request, busy=outage.database_busy(exc))


class UnreadableForm(Invalid):
    """A posted form the parser could not read (422): the page says so under its own
    heading (`_error.html`)."""

    kind = "unreadable_form"


class FormTooLarge(UnreadableForm):
    """A posted form with more fields, files or bytes in one field than the parser takes."""

    status = 413


#: Starlette's form parser (starlette/formparsers.py) refuses a body with an English 400
#: ("Missing boundary in multipart.", "Too many fields. Maximum number of fields is 1000."),
#: and that 400 reached pages and the API alike as `{"detail": "..."}` (QA). By the start of
#: its message: the error it is here, its sentence (a limit it names as %(limit)s) and the
#: error type the API's 422/413 gives.
FORM_REFUSALS: Final[tuple[tuple[str, type[UnreadableForm], str, str], ...]] = (
    ("Too many fields", FormTooLarge, "too_large", N_(
        "The form sends more than %(limit)s fields; at most %(limit)s are taken.")),
    ("Too many files", FormTooLarge, "too_large", N_(
        "The form sends more than %(limit)s files; at most %(limit)s are taken.")),
    ("Field exceeded", FormTooLarge, "too_large", N_(
        "A field of the form holds more than %(limit)s KB; at most %(limit)s KB are taken.")),
    ("Part exceeded", FormTooLarge, "too_large", N_(
        "A field of the form holds more than %(limit)s KB; at most %(limit)s KB are taken.")),
    ("Missing boundary", UnreadableForm, "multipart", N_(
        "The body is sent as multipart/form-data without a boundary: the Content-Type header "
        "must name one (multipart/form-data; boundary=…), as a browser's file upload does.")),
    ("The Content-Disposition", UnreadableForm, "multipart", N_(
        "A part of the multipart body has no name: its Content-Disposition header must "
        "give one (name=\"…\").")),
)  # fmt: skip
#: Any other refusal of the parser ("Invalid multipart data.").
FORM_UNREADABLE: Final = N_(
    "The body cannot be read as multipart/form-data: its parts do not follow the boundary "
    "its Content-Type names."
)
#: What a page adds: the form was not acted on.
NOTHING_SAVED: Final = N_("Nothing was saved: go back to the form and send it again.")


def form_refusal(exc: MultiPartException) -> tuple[UnreadableForm, str]:
    """The error of a form the parser refused (a limit it names kept), and its API type."""
    said = str(exc.message)
    limit = re.search(r"\d+", said)
    params = {"limit": f"{int(limit.group()):,}"} if limit else {}
    for start, kind, api_type, message in FORM_REFUSALS:
        if said.startswith(start):
            return kind(message, field="", **params), api_type
    return UnreadableForm(FORM_UNREADABLE, field=""), "multipart"


def unreadable_form(request: Request, exc: MultiPartException) -> Response:
    """A form the parser refused: JSON naming the body under /api/ (413 past a limit, else
    422), the error page in the page's language elsewhere; an HTMX form the sentence on top
    of its own section (a 422: htmx swaps no other 4xx, `base.html`'s responseHandling)."""
    activate(request)
    err, api_type = form_refusal(exc)
    if is_api(request):
        detail = [{"loc": ["body"], "msg": err.message, "type": api_type}]
        return JSONResponse(status_code=err.status, content={"detail": detail})
    said = as_sentence(err.message) + gap() + gettext(NOTHING_SAVED)
    if is_fragment(request):
        return HTMLResponse(
            f'<p class="notice error" role="alert">{escape(said)}</p>',
            status_code=422,
            headers={"HX-Reswap": "afterbegin"},
        )
    return error_page(request, type(err)(said, field=""))


#: FastAPI's 400 for a JSON body it could not decode other than by its syntax
#: (fastapi/routing.py: any exception but JSONDecodeError while reading the body).
_UNPARSED_BODY: Final = "There was an error parsing the body"


def install(app: FastAPI) -> None:
    async def handle(request: Request, exc: Exception) -> Response:
        err = as_domain_error(exc)
        if isinstance(err, InvalidNested):
            if is_api(request):
                # Worded, located and made safe as FastAPI's own 422s (app.web.failures).
                return await failures.validation_error(request, RequestValidationError(err.errors))
            nested = err.errors[0] if err.errors else {}
            err = Invalid(message_for(nested), field=err.field)
        if is_api(request):
            response: Response = JSONResponse(status_code=err.status, content=err.json_body())
        else:
            response = error_page(request, err)
        if isinstance(err, TooManyRequests):
            response.headers["Retry-After"] = str(err.retry_after)
        return response

    async def http_error(request: Request, exc: Exception) -> Response:
        """A page address no route has (404) or a method it does not take (405): the site's
        own error page for a browser, FastAPI's JSON for the API and for other clients (a
        bare `{"detail": "Not Found"}` in a <pre> was all a visitor got, QA)."""
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 400 and isinstance(exc.__context__, MultiPartException):
            return unreadable_form(request, exc.__context__)
        if exc.status_code == 400 and exc.detail == _UNPARSED_BODY:
            activate(request)
            detail = [unreadable_body(exc.__cause__)]
            return JSONResponse(status_code=422, content={"detail": detail})
        wants_page = "text/html" in request.headers.get("accept", "")
        if exc.status_code in (404, 405) and not is_api(request) and wants_page:
            activate(request)
            segment = request.url.path.strip("/").split("/", 1)[0]
            ctx = {"status": exc.status_code, "kind": None, "nav_active": _NAV.get(segment)}
            return render(
                request, "_error.html", ctx, status_code=exc.status_code, headers=exc.headers
            )
        return await http_exception_handler(request, exc)

    async def invalid_request(request: Request, exc: Exception) -> Response:
        """A page whose query, path or form a route's schema refuses (`?page=-1`, a search
        past 200 characters, `/plans/20/diff?a=abc`): the error page in the page's language
        naming the parameter, or that sentence alone where HTMX swaps it into a table (QA:
        raw JSON in the catalog's table). Every route outside /api/ is a page (none is in
        the OpenAPI schema), so it answers HTML whatever the client's Accept header says (QA:
        a signed-in `curl` of a diff got JSON). The API keeps FastAPI's JSON 422s
        (app.web.failures)."""
        assert isinstance(exc, RequestValidationError)
        if is_api(request):
            return await failures.validation_error(request, exc)
        activate(request)
        first = exc.errors()[0] if exc.errors() else {}
        loc = first.get("loc") or ("",)
        name = str(loc[-1])
        if loc[0] in ("query", "path"):
            said = _address_refusal(request, name, message_for(first))
        else:
            said = gettext(FIELD_REFUSED) % {"name": name, "why": as_sentence(message_for(first))}
        if is_fragment(request):
            # A form's swap keeps what was typed: the sentence goes on top of its section.
            posted = request.method not in ("GET", "HEAD")
            return HTMLResponse(
                f'<p class="error" role="alert">{escape(said)}</p>',
                status_code=422,
                headers={"HX-Reswap": "afterbegin"} if posted else None,
            )
        return error_page(request, Invalid(said, field=name))

    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(DomainError, handle)
    app.add_exception_handler(InputError, handle)
    # Input the schema refuses: a 422 that never fails to serialise (app/web/failures.py).
    app.add_exception_handler(RequestValidationError, invalid_request)
    for kind in DATABASE_ERRORS:
        app.add_exception_handler(kind, database_error)
    # The request middleware answers the same 503 for a database error raised where no
    # handler runs (an error page that itself needed the database): it finds this here.
    app.state.unavailable_response = unavailable_response
    # Anything else: app.ops.middleware.RequestMiddleware answers a JSON 500 with the request
    # id and does not re-raise, so the keep-alive connection stays usable.
