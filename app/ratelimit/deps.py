"""Rate limits as routes use them: by the client address (proxy-aware: create_app's
ProxyHeadersMiddleware believes X-Forwarded-For only from STRATAGEM_TRUSTED_PROXIES).

Where the counts live: the database by default (`service`, table `rate_hit`), or Redis when
`REDIS_URL` is set (`redis_store`; `create_app` puts the store on `app.state.rate_limits`).

**When Redis does not answer, the request is counted in the database instead**, with a
warning in the log (once a minute at most). Neither alternative fits these limits:

* failing closed (429 for everyone) would turn a Redis outage into an outage of the
  customer's share links and of the quote form, which is worse than what the limits prevent;
* failing open (no limit) would let exactly the abuse the limits exist for — 100 leads in
  1.2 s, a token search — through for as long as Redis is down.

The database is there anyway (every request uses it), so the limit still holds: per database
rather than per Redis, which for one deployment is the same set of processes. Counts made in
Redis before the outage are not carried over, so a client may get up to one extra window's
worth of requests at the switch.
"""

from __future__ import annotations

import logging
import time

from fastapi import Request
from sqlmodel import Session

from app.accounts.models import utcnow
from app.errors import TooManyRequests
from app.ratelimit import service
from app.ratelimit.redis_store import RedisStore, RedisUnavailable

log = logging.getLogger("stratagem.ratelimit")
_WARN_EVERY_S = 60.0
_last_warning = 0.0


def client_key(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _store(request: Request) -> RedisStore | None:
    store = getattr(request.app.state, "rate_limits", None)
    return store if isinstance(store, RedisStore) else None


def _warn(error: RedisUnavailable) -> None:
    global _last_warning
    now = time.monotonic()
    if now - _last_warning >= _WARN_EVERY_S:
        _last_warning = now
        log.warning("Redis unavailable for rate limits (%s); counting in the database", error)


def enforce(request: Request, session: Session, limit: service.Limit) -> None:
    """Raise `TooManyRequests` (429 + Retry-After) when the client is past `limit`."""
    key = client_key(request)
    store = _store(request)
    wait: int | None
    if store is None:
        wait = service.retry_after(session=session, limit=limit, key=key)
    else:
        try:
            wait = store.retry_after(limit=limit, key=key, now=utcnow())
        except RedisUnavailable as e:
            _warn(e)
            wait = service.retry_after(session=session, limit=limit, key=key)
    if wait is not None:
        raise TooManyRequests(
            "Too many requests; try again in %(seconds)s seconds.", retry_after=wait, seconds=wait
        )


def count(request: Request, session: Session, limit: service.Limit) -> None:
    """Count one request of this client against `limit`."""
    key = client_key(request)
    store = _store(request)
    if store is not None:
        try:
            store.record(limit=limit, key=key, now=utcnow())
            return
        except RedisUnavailable as e:
            _warn(e)
    service.record(session=session, limit=limit, key=key)
