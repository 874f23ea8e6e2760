"""The one language middleware: every request runs in its visitor's language.

Order of preference: a ``lang`` query parameter > the ``lang`` cookie > ``Accept-Language``
> the configured default (`app.i18n.choose_language`). The choice is stored in
``request.state.lang`` and activated in a context variable, which the endpoint (and the
threads sync endpoints run in) inherit, so templates, error messages and engine notices all
read the same language.

A ``lang`` query parameter that differs from the cookie also sets the cookie on an HTML
answer or a redirect, as the language switch does: a link sent as ``/plan?…&lang=en`` opens in English,
and the page's own HTMX requests (which do not repeat the parameter) stay in English. A
download in a language (``/quotes/…/pdf?lang=en``) leaves the cookie alone.
"""

from __future__ import annotations

from http.cookies import SimpleCookie

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n

ONE_YEAR = 365 * 24 * 3600


class LanguageMiddleware:
    def __init__(self, app: ASGIApp, *, default: str, secure: bool = False) -> None:
        self.app = app
        self.default = default
        self.secure = secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        # The JSON API answers in English unless asked otherwise: FastAPI's own validation
        # messages are English, and a client that sends no Accept-Language got the engine's
        # refusals in the pages' default (Chinese) beside them, one response in two languages.
        default = "en" if scope.get("path", "").startswith("/api/") else self.default
        lang = i18n.choose_language(conn, default)
        scope.setdefault("state", {})["lang"] = lang
        i18n.activate(lang)
        asked = i18n.normalise(conn.query_params.get(i18n.LANG_COOKIE))
        if asked is None or asked == i18n.normalise(conn.cookies.get(i18n.LANG_COOKIE)):
            await self.app(scope, receive, send)
            return

        async def remember(message: Message) -> None:
            # Only a page remembers it: a document asked for in a language (a quote's PDF
            # or CSV with ?lang=) must not switch the reader's pages.
            # A redirect remembers it too: /plans/1?lang=zh-TW sends a signed-out visitor to
            # /login, which opened in English (QA).
            if message["type"] == "http.response.start" and (
                _is_html(message) or 300 <= int(message.get("status", 200)) < 400
            ):
                cookie = SimpleCookie()
                cookie[i18n.LANG_COOKIE] = asked
                morsel = cookie[i18n.LANG_COOKIE]
                morsel["path"] = "/"
                morsel["max-age"] = ONE_YEAR
                morsel["samesite"] = "lax"
                morsel["httponly"] = True
                if self.secure:
                    morsel["secure"] = True
                headers = list(message.get("headers", []))
                headers.append((b"set-cookie", morsel.OutputString().encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, remember)


def _is_html(start: Message) -> bool:
    for name, value in start.get("headers", []):
        if name.lower() == b"content-type":
            return bool(value.startswith(b"text/html"))
    return False
