"""Two kinds of JSON body are refused at the door, before any route, validator or database
sees them: text no UTF-8 document can carry, and an object that names one key twice. Each is
a 422 at the location, as FastAPI's own validation errors are (`app.web.failures`).

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

A key given twice in one object (`{"quantity": 1, "quantity": 100}`) is valid JSON that
`json.loads` reads as its last value, silently: QA sent a quote line so and the quote was
saved at the second quantity with no word said. Which one the client meant cannot be known,
so the body is refused with the key's location and both values, and nothing is saved.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import N_, gettext, listing
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
DUPLICATE_MESSAGE = N_(
    "“%(key)s” is given %(times)s times in this object (%(values)s): give each key once, "
    "since JSON would keep only the last"
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


class _Object(dict[str, Any]):
    """A decoded JSON object that remembers the keys it was given more than once, with every
    value each of them was given (in order)."""

    __slots__ = ("repeated",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.repeated: dict[str, list[Any]] = {}
        if len(self) != len(pairs):
            seen: dict[str, list[Any]] = {}
            for k, v in pairs:
                seen.setdefault(k, []).append(v)
            self.repeated = {k: vs for k, vs in seen.items() if len(vs) > 1}


def first_repeated_key(
    value: Any, loc: tuple[str | int, ...] = ()
) -> tuple[tuple[str | int, ...], list[Any]] | None:
    """(location of the key, its values) of the first key given twice in one object of a
    value decoded with `_Object` as its object hook, depth first in document order; None
    when every object names each key once."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [(loc, value)]
    while stack:
        here, v = stack.pop()
        if isinstance(v, _Object):
            if v.repeated:
                key, values = next(iter(v.repeated.items()))
                return (*here, key), values
            stack.extend(((*here, k), child) for k, child in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend(((*here, i), child) for i, child in reversed(list(enumerate(v))))
    return None


def _shown(value: Any) -> str:
    """A repeated key's value as the client wrote it (JSON), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except ValueError:  # NaN is written as NaN by json.dumps; nothing else fails here
        text = str(value)
    return safe_text(text, 40)


def _refusal(loc: tuple[str | int, ...], kind: str, msg: str, echo: str) -> bytes:
    detail = [
        {
            "type": kind,
            "loc": [p if isinstance(p, int) else safe_text(p) for p in loc],
            "msg": msg,
            "input": echo,
        }
    ]
    return json.dumps({"detail": detail}).encode()


class JsonBodyMiddleware:
    """422 for a JSON body holding a lone surrogate or a key given twice in one object; every
    other request passes unchanged (its body replayed as received)."""

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
        payload = _check(body)
        if payload is None:
            await self.app(scope, _replay([body], None, receive), send)
            return
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


def _check(body: bytes) -> bytes | None:
    """The 422 body for a JSON body this middleware refuses; None to let it through (also
    when it is not JSON at all: FastAPI answers that itself)."""
    if not body:
        return None
    repeats: list[bool] = []

    def pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            repeats.append(True)
        return d

    try:
        doc = json.loads(body, object_pairs_hook=pairs_to_dict)
    except (ValueError, RecursionError):
        return None
    if _may_hold_surrogate(body):
        found = first_surrogate(doc, ("body",))
        if found is not None:
            loc, text = found
            code = f"U+{ord(SURROGATE.search(text).group()):04X}"  # type: ignore[union-attr]
            msg = gettext(MESSAGE) % {"code": code}
            return _refusal(loc, "string_unicode", msg, safe_text(text))
    if not repeats:
        return None
    # Read again, remembering each object's repeated keys, only to say where the first is.
    repeated = first_repeated_key(json.loads(body, object_pairs_hook=_Object), ("body",))
    if repeated is None:
        return None
    loc, values = repeated
    shown = [_shown(v) for v in values]
    msg = gettext(DUPLICATE_MESSAGE) % {
        "key": safe_text(loc[-1], 80),
        "times": len(values),
        "values": listing(shown),
    }
    return _refusal(loc, "duplicate_key", msg, shown[-1])


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
