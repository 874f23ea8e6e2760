"""Rate limits as routes use them: by the client address (proxy-aware: create_app's
ProxyHeadersMiddleware believes X-Forwarded-For only from STRATAGEM_TRUSTED_PROXIES)."""

from __future__ import annotations

from fastapi import Request
from sqlmodel import Session

from app.errors import TooManyRequests
from app.ratelimit import service


def client_key(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def enforce(request: Request, session: Session, limit: service.Limit) -> None:
    """Raise `TooManyRequests` (429 + Retry-After) when the client is past `limit`."""
    wait = service.retry_after(session=session, limit=limit, key=client_key(request))
    if wait is not None:
        raise TooManyRequests(
            "Too many requests; try again in %(seconds)s seconds.", retry_after=wait, seconds=wait
        )


def count(request: Request, session: Session, limit: service.Limit) -> None:
    """Count one request of this client against `limit`."""
    service.record(session=session, limit=limit, key=client_key(request))
