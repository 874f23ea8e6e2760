"""HEAD is answered for every GET route: the GET's status and headers, no body (RFC 9110
§9.3.2). FastAPI registers a GET route for GET only, so `curl -I`, an uptime monitor's HEAD
probe or a load balancer's HEAD health check got 405 from every page, /healthz included
(QA). The route runs as for GET (GET routes are safe), and the body is dropped on the way
out; Content-Length stays the GET's, as the RFC asks.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGetMiddleware:
    """Run a HEAD request as its GET and send the answer without its body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # a streamed body's chunks: none is sent
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, without_body)
