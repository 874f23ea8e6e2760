"""Running the app as a service: request ids and JSON logs, Prometheus metrics, health checks.

`install(app)` is the one call `create_app` makes: the request middleware (request id,
access log, metrics, request id in JSON error bodies) and the /healthz, /readyz and /metrics
routes. `outage` tells a database that cannot be reached from other errors (a 503, logged
without a traceback per request).
"""

from __future__ import annotations

from fastapi import FastAPI

from app.ops import routes
from app.ops.middleware import RequestMiddleware


def install(app: FastAPI) -> None:
    """Add the request middleware and the operations routes to `app`."""
    app.include_router(routes.router)
    app.add_middleware(RequestMiddleware)
