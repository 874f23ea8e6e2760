"""At most N requests at a time per app process; the rest wait their turn on the event loop.

Why: routes, their dependencies and the session teardown are sync, so they run on anyio's
worker threads (40 per process), and each holds a database connection from the time its
first query runs until its session closes — which itself needs a worker thread. With more
requests than the pool has connections, every thread ended up blocked in `pool.connect()`
while the requests holding the connections waited for a thread: 200 concurrent GETs froze a
process for 60 s and ended in 500s (QueuePool limit … timed out). Admitting only N requests
at once, with a pool of 2·N connections (`app.db.pool_options`) and N below the thread
count, makes that wait impossible: load turns into queueing latency instead.

A request that waits longer than the queue timeout gets a 503 with `Retry-After`; the
health, readiness and metrics routes and static files never wait (a load balancer must see
a busy process as alive).
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Final

from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

#: Paths that never queue: probes and files that touch no database.
UNLIMITED_PREFIXES: Final = ("/healthz", "/readyz", "/metrics", "/static/")
RETRY_AFTER_S: Final = 5


class ConcurrencyLimitMiddleware:
    """Pure ASGI: the slot is held until the app has answered and closed its session."""

    def __init__(self, app: ASGIApp, *, limit: int, queue_timeout_s: float) -> None:
        self.app = app
        self.limit = limit
        self.queue_timeout_s = queue_timeout_s
        self._slots: asyncio.Semaphore | None = None  # made on the serving loop

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or path.startswith(UNLIMITED_PREFIXES):
            await self.app(scope, receive, send)
            return
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
        try:
            await asyncio.wait_for(self._slots.acquire(), timeout=self.queue_timeout_s)
        except TimeoutError:
            name_route(scope)
            await self._busy(path, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self._slots.release()

    async def _busy(self, path: str, send: Send) -> None:
        """503: every slot stayed taken for the whole queue timeout."""
        waited = math.ceil(self.queue_timeout_s)
        message = f"The server is busy (waited {waited} s for a turn): try again shortly."
        if path.startswith("/api/"):
            body = json.dumps({"detail": message}).encode()
            ctype = b"application/json"
        else:
            body = message.encode()
            ctype = b"text/plain; charset=utf-8"
        await send(
            {
                "type": "http.response.start",
                "status": 503,
                "headers": [
                    (b"content-type", ctype),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", str(RETRY_AFTER_S).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def name_route(scope: Scope) -> None:
    """Put the route `scope` would have reached in `scope["route"]`, as the router does, for a
    request turned away before it got there: the request middleware then counts and logs the
    503 by its route template (`/api/v1/plans/{plan_id}`), not as "<unmatched>" beside the
    404s of a scan (QA: the requests shed under load were invisible per route)."""
    router = getattr(scope.get("app"), "router", None)
    partial = None
    for route in getattr(router, "routes", ()):
        match, _child = route.matches(scope)
        if match is Match.FULL:
            scope["route"] = route
            return
        if match is Match.PARTIAL and partial is None:
            partial = route  # the path matches, the method does not (a 405 once admitted)
    if partial is not None:
        scope["route"] = partial
