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

After such a failure the store does not ask Redis again for `RETRY_AFTER_FAILURE_S`: the
requests meanwhile raise `RedisUnavailable` at once and count in the database, and then one
request asks Redis again (the others keep skipping it while it does); its answer closes the
breaker. Measured without it, a Redis that accepts connections but does not answer (paused,
overloaded, a half-open network path) cost each rate-limited request the 0.5 s socket
timeout, twice when a counted request was taken back — with at most N requests admitted per
process (app/web/concurrency.py), that turned a Redis stall into a stall of the app.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

import redis

from app.ratelimit.service import Limit

#: How long a request waits for Redis before the database takes over (seconds).
SOCKET_TIMEOUT_S = 0.5
#: After Redis failed to answer, how long requests count in the database without asking it
#: (seconds): long enough that a stalled Redis costs one timeout per interval, not one per
#: request; short enough that the shared counts are back within seconds of its recovery.
RETRY_AFTER_FAILURE_S = 5.0

T = TypeVar("T")


class RedisUnavailable(Exception):
    """Redis did not answer; the caller falls back to the database."""


class RedisStore:
    def __init__(
        self,
        url: str,
        *,
        prefix: str = "stratagem:rl:",
        retry_after_failure_s: float = RETRY_AFTER_FAILURE_S,
    ) -> None:
        self.prefix = prefix
        self.client = redis.Redis.from_url(
            url,
            socket_timeout=SOCKET_TIMEOUT_S,
            socket_connect_timeout=SOCKET_TIMEOUT_S,
            health_check_interval=30,
        )
        self.retry_after_failure_s = retry_after_failure_s
        self._lock = threading.Lock()
        self._failure: str | None = None  # why Redis last failed to answer; None: it answers
        self._skip_until = 0.0  # time.monotonic() before which Redis is not asked

    def problem(self) -> str | None:
        """None when Redis answers a PING, else why not (for start-up and /readyz). Asks
        Redis whatever the breaker says; an answer closes it."""
        try:
            self.client.ping()
        except redis.RedisError as e:
            return _first_line(e)
        self._answered()
        return None

    def _answered(self) -> None:
        """Redis answered: close the breaker."""
        with self._lock:
            self._failure, self._skip_until = None, 0.0

    def _ask(self, operation: Callable[[], T]) -> T:
        """Run `operation` on Redis, or raise `RedisUnavailable` without asking while the
        breaker is open (see the module's docstring)."""
        with self._lock:
            now = time.monotonic()
            if now < self._skip_until:
                raise RedisUnavailable(
                    f"not asked: it did not answer {self.retry_after_failure_s:g} s ago or "
                    f"less ({self._failure})"
                )
            if self._failure is not None:  # this request asks; the others skip meanwhile
                self._skip_until = now + self.retry_after_failure_s
        try:
            result = operation()
        except redis.RedisError as e:
            with self._lock:
                self._failure = _first_line(e)
                self._skip_until = time.monotonic() + self.retry_after_failure_s
            raise RedisUnavailable(str(e)) from e
        if self._failure is not None:
            self._answered()
        return result

    def _key(self, limit: Limit, key: str) -> str:
        return f"{self.prefix}{limit.bucket}:{key[:64]}"

    def retry_after(self, *, limit: Limit, key: str, now: datetime) -> int | None:
        """None while `key` is within `limit`, else seconds until its oldest request leaves."""
        name = self._key(limit, key)
        now_ms = _ms(now)
        window_ms = int(limit.window.total_seconds() * 1000)
        pipe = self.client.pipeline(transaction=True)
        pipe.zremrangebyscore(name, "-inf", now_ms - window_ms)
        pipe.zcard(name)
        pipe.zrange(name, 0, 0, withscores=True)
        _, count, oldest = self._ask(pipe.execute)
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
        name = self._key(limit, key)
        self._ask(lambda: self.client.zrem(name, member))

    def _add(
        self, *, limit: Limit, key: str, now: datetime
    ) -> tuple[str, int, list[tuple[bytes, float]]]:
        """Drop the key's members older than the window, add this request: (its member, the
        members now counted, the oldest with its score)."""
        name = self._key(limit, key)
        now_ms = _ms(now)
        window_ms = int(limit.window.total_seconds() * 1000)
        member = f"{now_ms}:{secrets.token_hex(4)}"  # two requests in one ms are two members
        pipe = self.client.pipeline(transaction=True)
        pipe.zremrangebyscore(name, "-inf", now_ms - window_ms)
        pipe.zadd(name, {member: now_ms})
        pipe.pexpire(name, window_ms)
        pipe.zcard(name)
        pipe.zrange(name, 0, 0, withscores=True)
        _, _, _, count, oldest = self._ask(pipe.execute)
        return member, int(count), oldest

    def close(self) -> None:
        self.client.close()


def _first_line(error: Exception) -> str:
    """Why Redis did not answer, on one line (its class name when it says nothing)."""
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)
