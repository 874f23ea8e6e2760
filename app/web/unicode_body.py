"""JSON bodies whose text no UTF-8 document can carry are refused at the door: a 422 naming
the field, before any route, validator or database sees them.

JSON may spell a lone UTF-16 surrogate (`"\\ud800"`, half of an emoji's pair); Python decodes
it into a `str` that cannot be encoded as UTF-8. Pydantic lets it through a plain `str`
field, SQLite stores it, and then every page, PDF and JSON answer that shows the text fails
to encode: QA saved a quote line described `"\\ud800"` with a 500, and the plan answered 500
on every read after that (half-saved and lost). A field that echoed the value in its own 422
(`gpu`, `preset`) failed the same way. No field of this app holds such text, so the check is
one place for all of them: `SurrogateBodyMiddleware` reads a JSON body whose bytes spell a
surrogate escape, finds the first string (value or key) still holding one after decoding (a
valid pair decodes to one character, e.g. 😀, and passes) and answers 422 with its
location, as FastAPI's own validation errors do (`app.web.failures`).
"""

from __future__ import annotations

import json
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import N_, gettext
from app.text import SURROGATE, first_surrogate
from app.web.failures import is_json_type, safe_text

# `\ud800`…`\udfff` as JSON spells it (either case), and the same code points as raw bytes
# (ED A0 80…ED BF BF): Starlette's `Request.json()` decodes bytes with 'surrogatepass', so
# those reach a route as lone surrogates too (review). A body that is not UTF-8 at all (a
# UTF-16 one, which json.loads also reads) is parsed and checked as well; any other body
# cannot decode to a surrogate and passes after the scans.
_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_RAW = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]")
# In the request's language: app.web.language, outside this middleware, has activated it.
MESSAGE = N_(
    "Text must be valid Unicode: it holds a lone UTF-16 surrogate (%(code)s), half of a pair, "
    "which no document can carry"
)


def _is_json(scope: Scope) -> bool:
    """A body FastAPI reads as JSON: a JSON content type, or none at all."""
    for name, value in scope.get("headers") or ():
        if name == b"content-type":
            return is_json_type(value.decode("latin-1"))
    return True


def _may_hold_surrogate(body: bytes) -> bool:
    if _ESCAPE.search(body) or _RAW.search(body):
        return True
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


class SurrogateBodyMiddleware:
    """422 for a JSON body holding a lone surrogate; every other request passes unchanged
    (its body replayed as received)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:  # the body limit (app.web.limits, outside) has bounded it already
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([], message, receive), send)
                return
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body"))
        body = b"".join(chunks)
        found = None
        if body and _may_hold_surrogate(body):
            try:
                found = first_surrogate(json.loads(body), ("body",))
            except (ValueError, RecursionError):
                found = None  # not JSON: FastAPI answers that itself
        if found is None:
            await self.app(scope, _replay([body], None, receive), send)
            return
        loc, text = found
        code = f"U+{ord(SURROGATE.search(text).group()):04X}"  # type: ignore[union-attr]
        detail = [
            {
                "type": "string_unicode",
                "loc": [p if isinstance(p, int) else safe_text(p) for p in loc],
                "msg": gettext(MESSAGE) % {"code": code},
                "input": safe_text(text),
            }
        ]
        payload = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 422,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def _replay(chunks: list[bytes], pending: Message | None, receive: Receive) -> Receive:
    """A `receive` that gives the buffered body once (or the message that ended it), then
    defers to the real one (a disconnect)."""
    queue: list[Message] = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]
    if pending is not None:
        queue = [pending]

    async def replay() -> Message:
        if queue:
            return queue.pop(0)
        return await receive()

    return replay
