"""One error path: a `DomainError` (or an engine `InputError`) becomes JSON under `/api/`
and the translated error page everywhere else.

`install(app)` registers the two handlers; nothing else in the app maps errors to responses.
The language is already active (`app.web.language`), so messages come out translated.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response

from app.engine.estimate import InputError
from app.engine.notices import Notice
from app.errors import DomainError, Invalid, LoginRequired, PageForbidden, TooManyRequests
from app.web import failures, htmx
from app.web.htmx import is_fragment
from app.web.templating import render

#: First path segment → the navigation entry an error page highlights.
_NAV: dict[str, str] = {"catalog": "catalog", "plans": "plans", "compare": "plans"}


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def as_domain_error(exc: Exception) -> DomainError:
    if isinstance(exc, DomainError):
        return exc
    if isinstance(exc, InputError):
        # A Notice is translated into the request's language; one whose parameters clash with
        # Invalid's own keywords (a "%(field)s" placeholder) is said in English, never a 500.
        if isinstance(exc.message, Notice) and not {"field", "message"} & set(exc.message.params):
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
        ctx["message"] = exc.message
    return render(request, "_error.html", ctx, status_code=exc.status)


def install(app: FastAPI) -> None:
    async def handle(request: Request, exc: Exception) -> Response:
        err = as_domain_error(exc)
        if is_api(request):
            response: Response = JSONResponse(status_code=err.status, content=err.json_body())
        else:
            response = error_page(request, err)
        if isinstance(err, TooManyRequests):
            response.headers["Retry-After"] = str(err.retry_after)
        return response

    app.add_exception_handler(DomainError, handle)
    app.add_exception_handler(InputError, handle)
    # Input the schema refuses: a 422 that never fails to serialise (app/web/failures.py).
    app.add_exception_handler(RequestValidationError, failures.validation_error)
    # Anything else: app.ops.middleware.RequestMiddleware answers a JSON 500 with the request
    # id and does not re-raise, so the keep-alive connection stays usable.
