"""The one language middleware: every request runs in its visitor's language.

Order of preference: the ``lang`` cookie > ``Accept-Language`` > the configured default
(`app.i18n.choose_language`). The choice is stored in ``request.state.lang`` and activated
in a context variable, which the endpoint (and the threads sync endpoints run in) inherit,
so templates, error messages and engine notices all read the same language.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from app import i18n


class LanguageMiddleware:
    def __init__(self, app: ASGIApp, *, default: str) -> None:
        self.app = app
        self.default = default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            lang = i18n.choose_language(HTTPConnection(scope), self.default)
            scope.setdefault("state", {})["lang"] = lang
            i18n.activate(lang)
        await self.app(scope, receive, send)
