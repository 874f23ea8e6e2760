"""gzip for the app's own responses; /static answers with its own encodings.

`StaticAssets` (app/web/static.py) picks brotli or gzip itself, compressed once, and gives
each encoding its own ETag. Starlette's GZip middleware, wrapped around everything, would
otherwise meet those responses too: it added a second ``Vary: Accept-Encoding`` to each one
it left alone (QA: ``Vary: Accept-Encoding, Accept-Encoding`` on every uncompressed asset)
and gzipped a file /static serves as it is (a licence text) under the ETag of its
uncompressed bytes, so two different bodies shared one strong validator.
"""

from __future__ import annotations

from typing import Final

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import Receive, Scope, Send

#: Where responses carry their own Content-Encoding, ETag and Vary.
OWN_ENCODING_PREFIX: Final = "/static/"


class AppGZipMiddleware(GZipMiddleware):
    """GZipMiddleware that lets /static through untouched."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith(OWN_ENCODING_PREFIX):
            await self.app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)
