"""Sliding-window rate limits counted in the `rate_hit` table (works across app processes).

A route `reserve`s its request before it acts — counted and checked in one step — and
`release`s it when what it did does not count: the quote form counts the leads it stores (an
incomplete form costs nothing), the share pages the lookups of a token that does not work (a
customer opening a good link is never slowed; a token search is). A refused request is not
counted, so a client that waits as told gets through.

Counting and checking is one step under concurrency: when each request checked, then acted,
then counted, 20 quote requests sent at once all passed a check that saw 0 of 5 and stored 20
leads (QA). When each committed its row and then counted, none could pass another unseen, but
8 sent at once were refused in part by one another's rows: 3 or 4 of the 5 allowed got
through (QA). Now the requests of one client take turns (`app.db.take_turns`: the write lock
on SQLite, an advisory lock per bucket and client on PostgreSQL) from the count to the commit
of their row, so exactly the first `count` pass — as in Redis, where one MULTI/EXEC does it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from app.accounts.models import utcnow
from app.db import take_turns
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
    # at most one window: a request racing this one may have counted a moment after `now`
    window = math.ceil(limit.window.total_seconds())
    return min(window, max(1, math.ceil((oldest + limit.window - now).total_seconds())))


def record(*, session: Session, limit: Limit, key: str, now: datetime | None = None) -> int:
    """Count one request of `key` (its row id); rows older than the window are dropped on
    the way."""
    now = now or utcnow()
    since = now - limit.window
    session.exec(
        delete(RateHit).where(col(RateHit.bucket) == limit.bucket, col(RateHit.at) <= since)
    )
    hit = RateHit(bucket=limit.bucket, key=key[:64], at=now)
    session.add(hit)
    session.commit()
    assert hit.id is not None
    return hit.id


def reserve(
    *, session: Session, limit: Limit, key: str, now: datetime | None = None
) -> tuple[int | None, int | None]:
    """Count one request of `key` and check it in one step: (its row id, None) when it is
    within `limit`, else (None, the seconds to wait) with nothing counted.

    Requests of one client take turns from the count to the commit, so of those arriving
    together exactly the first `limit.count` pass."""
    now = now or utcnow()
    since = now - limit.window
    take_turns(session, f"ratelimit:{limit.bucket}:{key[:64]}")
    # The first write: on SQLite it takes the database's write lock, so the count below sees
    # every row another request of this client committed before it.
    session.exec(
        delete(RateHit).where(col(RateHit.bucket) == limit.bucket, col(RateHit.at) <= since)
    )
    wait = retry_after(session=session, limit=limit, key=key, now=now)
    if wait is not None:
        session.commit()
        return None, wait
    hit = RateHit(bucket=limit.bucket, key=key[:64], at=now)
    session.add(hit)
    session.commit()
    assert hit.id is not None
    return hit.id, None


def release(*, session: Session, hit_id: int) -> None:
    """Take back a counted request (what the route did does not count)."""
    session.exec(delete(RateHit).where(col(RateHit.id) == hit_id))
    session.commit()
