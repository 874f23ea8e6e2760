"""Rate-limit counters in Redis (`REDIS_URL` set): the same sliding windows as the database
backend (`app.ratelimit.service`), shared by every process and replica that uses the Redis.

One sorted set per (limit, client): members are the counted requests, scored by their time
in milliseconds. Each operation is one MULTI/EXEC transaction (redis-py's pipeline with
`transaction=True`), so concurrent processes never interleave inside it:

* `retry_after` — drop members older than the window, count, read the oldest;
* `record` — drop old members, add this request, set the key to expire after one window
  (an idle client's key disappears by itself);
* `reserve` — `record` and count in the same transaction: a request past the limit is
  taken back (`release`, one ZREM) and told how long to wait.

A Redis that does not answer (down, unreachable, timing out after `SOCKET_TIMEOUT_S`) raises
`RedisUnavailable`; `app.ratelimit.deps` then counts in the database for that request and logs
a warning (see there for why it fails over rather than open or closed).
"""

from __future__ import annotations

import math
import secrets
from datetime import datetime

import redis

from app.ratelimit.service import Limit

#: How long a request waits for Redis before the database takes over (seconds).
SOCKET_TIMEOUT_S = 0.5


class RedisUnavailable(Exception):
    """Redis did not answer; the caller falls back to the database."""


class RedisStore:
    def __init__(self, url: str, *, prefix: str = "stratagem:rl:") -> None:
        self.prefix = prefix
        self.client = redis.Redis.from_url(
            url,
            socket_timeout=SOCKET_TIMEOUT_S,
            socket_connect_timeout=SOCKET_TIMEOUT_S,
            health_check_interval=30,
        )

    def problem(self) -> str | None:
        """None when Redis answers a PING, else why not (for start-up and /readyz)."""
        try:
            self.client.ping()
        except redis.RedisError as e:
            return str(e).splitlines()[0] if str(e) else type(e).__name__
        return None

    def _key(self, limit: Limit, key: str) -> str:
        return f"{self.prefix}{limit.bucket}:{key[:64]}"

    def retry_after(self, *, limit: Limit, key: str, now: datetime) -> int | None:
        """None while `key` is within `limit`, else seconds until its oldest request leaves."""
        name = self._key(limit, key)
        now_ms = _ms(now)
        window_ms = int(limit.window.total_seconds() * 1000)
        try:
            pipe = self.client.pipeline(transaction=True)
            pipe.zremrangebyscore(name, "-inf", now_ms - window_ms)
            pipe.zcard(name)
            pipe.zrange(name, 0, 0, withscores=True)
            _, count, oldest = pipe.execute()
        except redis.RedisError as e:
            raise RedisUnavailable(str(e)) from e
        if int(count) < limit.count:
            return None
        if not oldest:
            return 1
        oldest_ms = float(oldest[0][1])
        return max(1, math.ceil((oldest_ms + window_ms - now_ms) / 1000))

    def record(self, *, limit: Limit, key: str, now: datetime) -> None:
        """Count one request of `key`."""
        self._add(limit=limit, key=key, now=now)

    def reserve(self, *, limit: Limit, key: str, now: datetime) -> tuple[str | None, int | None]:
        """Count one request of `key` and check it in one transaction: (its member, None)
        within `limit`, else (None, seconds until its oldest request leaves) with nothing
        counted."""
        member, count, oldest = self._add(limit=limit, key=key, now=now)
        if count <= limit.count:
            return member, None
        self.release(limit=limit, key=key, member=member)
        window_ms = int(limit.window.total_seconds() * 1000)
        if not oldest:
            return None, 1
        wait_ms = float(oldest[0][1]) + window_ms - _ms(now)
        # at most one window: a request racing this one may have counted a moment after `now`
        return None, min(math.ceil(window_ms / 1000), max(1, math.ceil(wait_ms / 1000)))

    def release(self, *, limit: Limit, key: str, member: str) -> None:
        """Take back a counted request."""
        try:
            self.client.zrem(self._key(limit, key), member)
        except redis.RedisError as e:
            raise RedisUnavailable(str(e)) from e

    def _add(
        self, *, limit: Limit, key: str, now: datetime
    ) -> tuple[str, int, list[tuple[bytes, float]]]:
        """Drop the key's members older than the window, add this request: (its member, the
        members now counted, the oldest with its score)."""
        name = self._key(limit, key)
        now_ms = _ms(now)
        window_ms = int(limit.window.total_seconds() * 1000)
        member = f"{now_ms}:{secrets.token_hex(4)}"  # two requests in one ms are two members
        try:
            pipe = self.client.pipeline(transaction=True)
            pipe.zremrangebyscore(name, "-inf", now_ms - window_ms)
            pipe.zadd(name, {member: now_ms})
            pipe.pexpire(name, window_ms)
            pipe.zcard(name)
            pipe.zrange(name, 0, 0, withscores=True)
            _, _, _, count, oldest = pipe.execute()
        except redis.RedisError as e:
            raise RedisUnavailable(str(e)) from e
        return member, int(count), oldest

    def close(self) -> None:
        self.client.close()


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)
