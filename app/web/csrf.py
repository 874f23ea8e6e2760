"""Double-submit CSRF protection for the HTML forms.

Conventions
-----------
* :class:`CSRFMiddleware` gives every page visitor a random token, signed with
  ``settings.resolved_secret_key()`` (itsdangerous), in the cookie ``csrf``; the same value is
  available to templates as ``csrf_token``.
* Templates put it in ``<meta name="csrf-token">`` (base.html does), in a hidden
  ``<input type="hidden" name="csrf_token" value="{{ csrf_token }}">`` in EVERY POST form
  (use the ``{{ csrf_field() }}`` global), and htmx sends it as the ``X-CSRF-Token`` header
  (``hx-headers`` on ``<body>``).
* State-changing HTML routes depend on :func:`verify_csrf` (``dependencies=[CsrfDep]`` or a
  parameter). A missing or wrong token is a 403 page that says what happened.
* The JSON API (``/api/``), ``/static/``, the API docs and the probes (``/healthz``,
  ``/readyz``, ``/metrics``) are exempt: no cookie is set on them. None has a form, and a
  probe's client keeps no cookies, so each poll drew a fresh token and a ``Set-Cookie``.
"""

from __future__ import annotations

import hmac
import secrets
from http.cookies import SimpleCookie
from typing import Annotated, Final

from fastapi import Depends, Request
from itsdangerous import BadSignature, Signer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import FormExpired

COOKIE: Final = "csrf"
HEADER: Final = "x-csrf-token"
FIELD: Final = "csrf_token"
EXEMPT_PREFIXES: Final = (
    "/api/",
    "/static/",
    "/docs",
    "/openapi.json",
    "/redoc",
    "/healthz",
    "/readyz",
    "/metrics",
)
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


CSRFError = FormExpired  # a state-changing request without a valid CSRF token (403 page)


def _signer(secret: str) -> Signer:
    return Signer(secret, salt="stratagem.csrf")


def new_token(secret: str) -> str:
    return _signer(secret).sign(secrets.token_urlsafe(24)).decode()


def is_valid(token: str | None, secret: str) -> bool:
    if not token:
        return False
    try:
        _signer(secret).unsign(token)
    except BadSignature:
        return False
    return True


class CSRFMiddleware:
    """Makes sure each HTML visitor holds a signed token in the `csrf` cookie."""

    def __init__(self, app: ASGIApp, *, secret: str, secure: bool = False) -> None:
        self.app = app
        self.secret = secret
        self.secure = secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(EXEMPT_PREFIXES):
            await self.app(scope, receive, send)
            return
        token = _cookie_from_headers(scope.get("headers", []))
        fresh = not is_valid(token, self.secret)
        if fresh:
            token = new_token(self.secret)
        scope.setdefault("state", {})["csrf_token"] = token

        if not fresh:
            await self.app(scope, receive, send)
            return

        cookie = f"{COOKIE}={token}; Path=/; SameSite=Lax; HttpOnly"
        if self.secure:
            cookie += "; Secure"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"set-cookie", cookie.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _cookie_from_headers(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:
                return None
            if COOKIE in jar:
                return jar[COOKIE].value
    return None


def token_for(request: Request) -> str:
    """The token of this visitor (set by the middleware)."""
    return str(getattr(request.state, "csrf_token", "") or "")


async def verify_csrf(request: Request) -> None:
    """Reject a state-changing request whose token is missing, forged or not the cookie's."""
    if request.method in SAFE_METHODS:
        return
    secret = request.app.state.settings.resolved_secret_key()
    cookie = request.cookies.get(COOKIE)
    sent = request.headers.get(HEADER)
    if not sent:
        form = await request.form()
        value = form.get(FIELD)
        sent = value if isinstance(value, str) else None
    if not (cookie and sent and hmac.compare_digest(cookie, sent) and is_valid(sent, secret)):
        raise CSRFError()


CsrfDep = Annotated[None, Depends(verify_csrf)]
