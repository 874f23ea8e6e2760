"""A request body sent compressed (`Content-Encoding: gzip`, `br`, …) is refused with a 415
naming the encoding, before anything reads it.

No route reads a compressed body, and every body reader (JSON, forms, the catalog import)
took the compressed bytes as the body itself: QA's gzip-compressed estimate was answered
422 "the body is not UTF-8 text", which blamed the JSON, and a form or CSV whose compressed
bytes happened to decode would have been read as something it was not. `identity` (the
absence of an encoding) passes. A request without a body (a GET, `Content-Length: 0`) is
left alone: there is nothing to misread. JSON under /api/, in the shape of the other 415
(`app.web.failures`: loc ["header", …]); the error page in the page's language elsewhere.
"""

from __future__ import annotations

import json
from typing import Final

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import DomainError
from app.i18n import N_

MESSAGE: Final = N_(
    "The body is sent with Content-Encoding: %(encoding)s, which this server does not read: "
    "send it uncompressed, without a Content-Encoding header."
)


class UnsupportedEncoding(DomainError):
    status = 415


def unsupported_encoding(scope: Scope) -> str | None:
    """The Content-Encoding of a request that carries a body, when it is not `identity`."""
    headers = dict(scope.get("headers") or ())
    encoding = headers.get(b"content-encoding", b"").decode("latin-1").strip()
    codings = {c.strip().lower() for c in encoding.split(",")} - {"", "identity"}
    if not codings:
        return None
    length = headers.get(b"content-length", b"").strip()
    if length == b"0" or (not length and b"transfer-encoding" not in headers):
        return None
    return encoding[:80]


class ContentEncodingMiddleware:
    """415 for a request body sent with a Content-Encoding; other requests pass unchanged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        encoding = unsupported_encoding(scope) if scope["type"] == "http" else None
        if encoding is None:
            await self.app(scope, receive, send)
            return
        error = UnsupportedEncoding(MESSAGE, encoding=encoding)
        request = Request(scope)
        if request.url.path.startswith("/api/"):
            detail = [{"loc": ["header", "content-encoding"], "msg": error.message,
                       "type": "content_encoding", "input": encoding}]  # fmt: skip
            payload = json.dumps({"detail": detail}).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                # What the server reads (RFC 9110 §15.5.16: a 415 for an encoding says so).
                (b"accept-encoding", b"identity"),
            ]
            await send({"type": "http.response.start", "status": 415, "headers": headers})
            await send({"type": "http.response.body", "body": payload})
            return
        from app.web.errors import error_page  # the pages' error path (imports the web layer)

        response = error_page(request, error)
        response.headers["Accept-Encoding"] = "identity"
        await response(scope, receive, send)
