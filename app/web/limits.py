"""Request body limits, answered 413 before the body is read into memory (issue 13).

`BodyLimitMiddleware` is pure ASGI: a `Content-Length` over the limit is refused before the
app runs (nothing of the body is read); a body without one (chunked) is counted as it
streams in and refused at the first chunk past the limit — the app never holds more than
the limit. Catalog imports (paths ending in `/import`: CSV or JSON files) get
`max_upload_bytes`; everything else `max_json_bytes`. Both are settings
(`STRATAGEM_MAX_JSON_BYTES`, `STRATAGEM_MAX_CSV_BYTES`).

Before this a 300 MB JSON body to the anonymous estimate took the server from 120 MB to
1.29 GB, and the 422 echoed all of it back.
"""

from __future__ import annotations

import json
from html import escape
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import N_, current_language, gettext

# In the request's language: app.web.language, outside this middleware, has activated it.
MESSAGE = N_("The request body is larger than the limit of %(limit)s bytes.")


class BodyTooLarge(BaseException):
    """Raised from `receive` when a streamed body passes the limit (caught by the middleware).

    A BaseException on purpose: FastAPI turns any `Exception` raised while it reads a body
    into a 400 "error parsing the body", which would hide the 413."""


def limit_for(path: str, *, max_json_bytes: int, max_upload_bytes: int) -> int:
    """The body limit of a request to `path`, bytes."""
    return max_upload_bytes if path.rstrip("/").endswith("/import") else max_json_bytes


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, *, max_json_bytes: int, max_upload_bytes: int) -> None:
        self.app = app
        self.max_json_bytes = max_json_bytes
        self.max_upload_bytes = max_upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        limit = limit_for(
            path, max_json_bytes=self.max_json_bytes, max_upload_bytes=self.max_upload_bytes
        )
        for name, value in scope.get("headers") or ():
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > limit:
                    await self._refuse(path, limit, send, _back(scope))
                    return
                break

        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(path, limit, send, _back(scope))

    @staticmethod
    async def _refuse(path: str, limit: int, send: Send, back: str = "/") -> None:
        message = gettext(MESSAGE) % {"limit": f"{limit:,}"}
        if path.startswith("/api/"):
            # One shape for every 4xx: FastAPI's list of {loc, msg, type} (QA: the 413 alone
            # was a string, which an integrator had to handle apart).
            detail = [{"loc": ["body"], "msg": message, "type": "too_large"}]
            body = json.dumps({"detail": detail}).encode()
            ctype = b"application/json"
        else:
            body = _page(back, message).encode()
            ctype = b"text/html; charset=utf-8"
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                # Close: the rest of the body is still on the wire, unread.
                "headers": [
                    (b"content-type", ctype),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _back(scope: Scope) -> str:
    """Where the form was: the Referer's path when it is this site's, else the home page (a
    form's POST path may have no page of its own)."""
    headers = dict(scope.get("headers") or ())
    ref = urlsplit(headers.get(b"referer", b"").decode("latin-1"))
    host = headers.get(b"host", b"").decode("latin-1")
    if ref.path.startswith("/") and not ref.path.startswith("//") and ref.netloc == host:
        return ref.path + (f"?{ref.query}" if ref.query else "")
    return "/"


def _page(path: str, message: str) -> str:
    """A page for a form sent too large: the message and a way back to the form, in the
    reader's language, styled as the app's pages (QA: a 12 MB upload got a bare text line
    with no way back). Self-contained: the app, which renders templates, never ran."""
    lang = current_language()
    title = gettext("Too large to send")
    back = gettext("Back to the form")
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · Stratagem</title>"
        f'<link rel="stylesheet" href="/static/css/app.css"></head>'
        f'<body><main class="wrap" id="main"><div class="page-head"><h1>{escape(title)}</h1>'
        f'<p class="notice error" role="alert">{escape(message)}</p>'
        f'<p><a class="btn" href="{escape(path)}">{escape(back)}</a></p></div></main></body></html>'
    )
