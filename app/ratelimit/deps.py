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


class Slot:
    """One request counted against a limit before the route acts, so that requests arriving
    together cannot all pass the check before any of them is counted (`service` says why).
    `release` takes it back when what the route did does not count."""

    __slots__ = ("_id", "_member", "_session", "_store", "key", "limit")

    def __init__(
        self,
        limit: service.Limit,
        key: str,
        *,
        session: Session,
        store: RedisStore | None = None,
        member: str | None = None,
        hit_id: int | None = None,
    ) -> None:
        self.limit, self.key = limit, key
        self._session, self._store, self._member, self._id = session, store, member, hit_id

    def release(self) -> None:
        """Un-count this request (a Redis that stopped answering keeps it: the client is
        at worst refused a little early, never let past the limit)."""
        if self._store is not None and self._member is not None:
            try:
                self._store.release(limit=self.limit, key=self.key, member=self._member)
            except RedisUnavailable as e:
                _warn(e)
        elif self._id is not None:
            service.release(session=self._session, hit_id=self._id)
        self._member = self._id = None


def reserve(request: Request, session: Session, limit: service.Limit) -> Slot:
    """Count this client's request against `limit`, or raise `TooManyRequests` (429 +
    Retry-After) when it is past it, with nothing counted."""
    key = client_key(request)
    store = _store(request)
    if store is not None:
        try:
            member, wait = store.reserve(limit=limit, key=key, now=utcnow())
        except RedisUnavailable as e:
            _warn(e)
        else:
            _refuse(wait)
            return Slot(limit, key, session=session, store=store, member=member)
    hit_id, wait = service.reserve(session=session, limit=limit, key=key)
    _refuse(wait)
    return Slot(limit, key, session=session, hit_id=hit_id)


def _refuse(wait: int | None) -> None:
    if wait is not None:
        raise TooManyRequests(
            "Too many requests; try again in %(seconds)s seconds.", retry_after=wait, seconds=wait
        )
