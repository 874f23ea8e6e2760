"""Form bodies are read as UTF-8 text or refused: a 422 naming the field, before any route.

Starlette reads an urlencoded form's raw bytes as Latin-1 and its %XX escapes as UTF-8 with
errors replaced: QA saved a customer named "Caf\\ufffd" from `name=Caf%E9` (a Latin-1 é), a
plan named "%ZZ\\ufffd", and `curl --data 'name=測試'` (UTF-8 sent unescaped, as curl does)
would be stored as "æ¸¬è©¦". `FormBodyMiddleware` escapes raw bytes (so UTF-8 sent unescaped
reads as what was typed) and answers 422 for a field whose bytes are not UTF-8: JSON under
/api/ (as FastAPI's validation errors), elsewhere the error page in the page's language
naming the field (an HTMX form: that sentence alone, on top of the form it swaps).
Multipart bodies (file uploads) and JSON bodies are left to their own readers
(`app.web.json_body` checks JSON).
"""

from __future__ import annotations

import json
import re
from html import escape
from urllib.parse import unquote_to_bytes

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import Invalid
from app.i18n import N_
from app.web.failures import safe_text

_RAW = re.compile(rb"[\x80-\xff]")
MESSAGE = N_("must be UTF-8 text: the form sent bytes that are not (%(bytes)s)")
#: The page's sentence, which names the field itself: the error page has no field to stand
#: beside (QA: it said "must be UTF-8 text" and not which field).
PAGE_MESSAGE = N_(
    "The field “%(name)s” was not sent as UTF-8 text (bytes %(bytes)s), so nothing was "
    "saved. Go back, check what was typed there and send the form again."
)


def _is_urlencoded(scope: Scope) -> bool:
    for name, value in scope.get("headers") or ():
        if name == b"content-type":
            return value.split(b";")[0].strip().lower() == b"application/x-www-form-urlencoded"
    return False


def escaped(body: bytes) -> bytes:
    """`body` with every raw byte above ASCII written as its %XX escape, which Starlette
    decodes as UTF-8 (raw, it read them as Latin-1)."""
    return _RAW.sub(lambda m: b"%%%02X" % m.group()[0], body)


def first_undecodable(body: bytes) -> tuple[str, bytes] | None:
    """(field name, its bytes) of the first name or value of an escaped urlencoded `body`
    that is not UTF-8; None when every one is."""
    for pair in body.split(b"&"):
        name, _, value = pair.partition(b"=")
        raw_name = unquote_to_bytes(name.replace(b"+", b" "))
        shown = raw_name.decode("utf-8", errors="replace")
        for part in (raw_name, unquote_to_bytes(value.replace(b"+", b" "))):
            try:
                part.decode("utf-8")
            except UnicodeDecodeError as e:
                return shown, part[e.start : e.end]
    return None


class FormBodyMiddleware:
    """422 for an urlencoded form body that is not UTF-8; other requests pass unchanged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_urlencoded(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:  # the body limit (app.web.limits, outside) has bounded it already
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay(None, message, receive), send)
                return
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body"))
        body = escaped(b"".join(chunks))
        found = first_undecodable(body)
        if found is None:
            await self.app(scope, _replay(body, None, receive), send)
            return
        field, bad = found
        shown = bad.hex(" ").upper()
        error = Invalid(MESSAGE, field=safe_text(field), bytes=shown)
        request = Request(scope)
        if request.url.path.startswith("/api/"):
            payload = json.dumps(error.json_body()).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ]
            await send({"type": "http.response.start", "status": 422, "headers": headers})
            await send({"type": "http.response.body", "body": payload})
            return
        # the pages' error path (imports the web layer)
        from app.web.errors import error_page
        from app.web.htmx import is_fragment
        from app.web.templating import activate

        page_error = Invalid(PAGE_MESSAGE, field=safe_text(field), name=safe_text(field),
                             bytes=shown)  # fmt: skip
        if is_fragment(request):
            # An HTMX form (the quote or phase builder) swaps its own section: the sentence
            # goes on top of it, and what was typed stays (a whole error page swapped in
            # took the form's place).
            activate(request)
            html = f'<p class="notice error" role="alert">{escape(page_error.message)}</p>'
            response: Response = HTMLResponse(
                html, status_code=422, headers={"HX-Reswap": "afterbegin"}
            )
        else:
            response = error_page(request, page_error)
        await response(scope, _replay(b"", None, receive), send)


def _replay(body: bytes | None, pending: Message | None, receive: Receive) -> Receive:
    """A `receive` that gives the buffered body once (or the message that ended it), then
    defers to the real one (a disconnect)."""
    queue: list[Message] = (
        [pending] if pending is not None else [{"type": "http.request", "body": body or b"",
                                                "more_body": False}]
    )  # fmt: skip

    async def replay() -> Message:
        if queue:
            return queue.pop(0)
        return await receive()

    return replay
