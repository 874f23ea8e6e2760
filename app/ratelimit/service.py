"""Sliding-window rate limits counted in the `rate_hit` table (works across app processes).

A route asks `retry_after` before it acts and `record`s what it counts: the quote form counts
the leads it stores (an incomplete form costs nothing), the share pages the lookups of a
token that does not work (a customer opening a good link is never slowed; a token search
is). A refused request is not counted, so a client that waits as told gets through.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from app.accounts.models import utcnow
from app.ratelimit.models import RateHit


@dataclass(frozen=True, slots=True)
class Limit:
    bucket: str
    count: int
    window: timedelta


#: Quote requests stored per address (/assess/quote): a person asks for a quote or two, not
#: 100 in 1.2 s (issue 13).
QUOTE_REQUESTS = Limit("quote", 5, timedelta(minutes=10))
#: Lookups of an unknown, revoked or expired share token per address (/s/{token}…): 300
#: guesses in 2 s was a token search; 10 a minute leaves a mistyped link room.
SHARE_LOOKUPS = Limit("share", 10, timedelta(minutes=1))


def retry_after(
    *, session: Session, limit: Limit, key: str, now: datetime | None = None
) -> int | None:
    """None while `key` is within `limit`, else the seconds until its oldest counted
    request leaves the window (the `Retry-After`)."""
    now = now or utcnow()
    since = now - limit.window
    where = (
        col(RateHit.bucket) == limit.bucket,
        col(RateHit.key) == key[:64],
        col(RateHit.at) > since,
    )
    count = session.exec(select(func.count()).select_from(RateHit).where(*where)).one()
    if count < limit.count:
        return None
    oldest = session.exec(select(func.min(RateHit.at)).where(*where)).one()
    if oldest is None:
        return 1
    if oldest.tzinfo is None:
        now = now.replace(tzinfo=None)  # SQLite hands back naive UTC
    return max(1, math.ceil((oldest + limit.window - now).total_seconds()))


def record(*, session: Session, limit: Limit, key: str, now: datetime | None = None) -> None:
    """Count one request of `key`; rows older than the window are dropped on the way."""
    now = now or utcnow()
    since = now - limit.window
    session.exec(
        delete(RateHit).where(col(RateHit.bucket) == limit.bucket, col(RateHit.at) <= since)
    )
    session.add(RateHit(bucket=limit.bucket, key=key[:64], at=now))
    session.commit()
