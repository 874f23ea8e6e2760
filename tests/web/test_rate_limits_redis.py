"""Rate limits counted in Redis when REDIS_URL is set (issue 13), against the real Redis on
127.0.0.1:6379 (database 13; every test uses a key prefix of its own and deletes its keys).

Shown: two app instances on two different databases — and a second OS process — share one
limit through Redis (nothing reaches the `rate_hit` table); each check and count is one
MULTI/EXEC transaction, so 8 threads counting at once lose nothing; the window slides as the
database backend's does; and with Redis down the limits still hold, counted in the database,
with a warning in the log (app/ratelimit/deps.py says why it fails over rather than open or
closed).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from app.accounts.models import utcnow
from app.bootstrap import prepare_database
from app.main import create_app
from app.ratelimit import service
from app.ratelimit.models import RateHit
from app.ratelimit.redis_store import RedisStore, RedisUnavailable
from app.settings import REPO_ROOT, Settings

REDIS_URL = "redis://127.0.0.1:6379/13"
DOWN_URL = "redis://127.0.0.1:1/13"  # nothing listens on port 1


@pytest.fixture
def prefix() -> Iterator[str]:
    """A key prefix of this test's own; its keys are deleted afterwards."""
    p = f"stratagem-test:{uuid.uuid4().hex[:12]}:"
    yield p
    r = redis.Redis.from_url(REDIS_URL)
    keys = list(r.scan_iter(f"{p}*"))
    if keys:
        r.delete(*keys)
    r.close()


@pytest.fixture(scope="module")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated database with the catalog, copied for each app (migrating takes seconds)."""
    path = tmp_path_factory.mktemp("redis-limits") / "template.db"
    prepare_database(
        Settings(DATABASE_URL=f"sqlite:///{path}", STRATAGEM_SECRET_KEY="redis-tests"),
        echo=lambda _: None,
    )
    return path


def _settings(template: Path, name: str, *, redis_url: str, prefix: str) -> Settings:
    target = template.parent / f"{uuid.uuid4().hex[:8]}-{name}"
    shutil.copyfile(template, target)
    return Settings(
        DATABASE_URL=f"sqlite:///{target}",
        STRATAGEM_SECRET_KEY="redis-tests",
        STRATAGEM_LOAD_CATALOG="false",
        REDIS_URL=redis_url,
        STRATAGEM_REDIS_PREFIX=prefix,
    )


def _rate_hits(settings: Settings) -> int:
    app = create_app(settings)
    with Session(app.state.engine) as s:
        n = int(s.exec(select(func.count()).select_from(RateHit)).one())
    app.state.engine.dispose()
    return n


def test_two_app_instances_on_two_databases_share_one_limit(template_db: Path, prefix: str) -> None:
    a_settings = _settings(template_db, "a.db", redis_url=REDIS_URL, prefix=prefix)
    b_settings = _settings(template_db, "b.db", redis_url=REDIS_URL, prefix=prefix)
    with TestClient(create_app(a_settings)) as a, TestClient(create_app(b_settings)) as b:
        half = service.SHARE_LOOKUPS.count // 2
        for i in range(half):
            assert a.get(f"/s/guess-a{i}").status_code == 404
        for i in range(service.SHARE_LOOKUPS.count - half):
            assert b.get(f"/s/guess-b{i}").status_code == 404
        # Ten bad tokens in all, five through each app: the 11th is refused by both.
        for c in (a, b):
            r = c.get("/s/guess-next")
            assert r.status_code == 429
            assert 1 <= int(r.headers["Retry-After"]) <= 60
    # The counts are in Redis only: the databases could not have shared them.
    assert _rate_hits(a_settings) == _rate_hits(b_settings) == 0


CHILD = textwrap.dedent(
    """
    import sys
    from fastapi.testclient import TestClient
    from app.main import create_app
    from app.settings import Settings
    s = Settings(DATABASE_URL=sys.argv[1], STRATAGEM_SECRET_KEY="redis-tests",
                 REDIS_URL=sys.argv[2], STRATAGEM_REDIS_PREFIX=sys.argv[3])
    with TestClient(create_app(s)) as c:
        print(",".join(str(c.get(f"/s/child-{i}").status_code) for i in range(int(sys.argv[4]))))
    """
)


def test_another_process_counts_against_the_same_limit(template_db: Path, prefix: str) -> None:
    child = _settings(template_db, "child.db", redis_url=REDIS_URL, prefix=prefix)
    n = service.SHARE_LOOKUPS.count - 3
    out = subprocess.run(
        [sys.executable, "-c", CHILD, child.database_url, REDIS_URL, prefix, str(n)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.strip()
    assert out.splitlines()[-1] == ",".join(["404"] * n)
    parent = _settings(template_db, "parent.db", redis_url=REDIS_URL, prefix=prefix)
    with TestClient(create_app(parent)) as c:
        assert [c.get(f"/s/parent-{i}").status_code for i in range(4)] == [404, 404, 404, 429]


def test_counting_is_atomic_under_threads(prefix: str) -> None:
    store = RedisStore(REDIS_URL, prefix=prefix)
    limit = service.Limit("atomic", 1_000, timedelta(minutes=1))
    now = utcnow()

    def hits() -> None:
        for _ in range(25):
            store.record(limit=limit, key="k", now=now)

    threads = [threading.Thread(target=hits) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.client.zcard(f"{prefix}atomic:k") == 8 * 25
    ttl_ms = store.client.pttl(f"{prefix}atomic:k")
    assert 0 < ttl_ms <= 60_000  # the key expires after one window
    store.close()


def test_the_window_slides_as_in_the_database(prefix: str) -> None:
    """The database backend's case (tests/web/test_rate_limits.py): 2 per minute, hits at
    t0 and t0 + 30 s → at t0 + 31 s wait 29 s; at t0 + 61 s the first has left the window."""
    store = RedisStore(REDIS_URL, prefix=prefix)
    limit = service.Limit("slide", 2, timedelta(minutes=1))
    t0 = utcnow()
    store.record(limit=limit, key="k", now=t0)
    store.record(limit=limit, key="k", now=t0 + timedelta(seconds=30))
    assert store.retry_after(limit=limit, key="k", now=t0 + timedelta(seconds=31)) == 29
    assert store.retry_after(limit=limit, key="k", now=t0 + timedelta(seconds=61)) is None
    store.close()


def test_redis_down_limits_still_hold_in_the_database(
    template_db: Path, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    settings = _settings(template_db, "down.db", redis_url=DOWN_URL, prefix=prefix)
    caplog.set_level(logging.WARNING, logger="stratagem.ratelimit")
    import app.ratelimit.deps as deps

    deps._last_warning = 0.0  # the warning is logged at most once a minute
    with TestClient(create_app(settings)) as c:
        for i in range(service.SHARE_LOOKUPS.count):
            assert c.get(f"/s/down-{i}").status_code == 404
        assert c.get("/s/down-next").status_code == 429
    assert _rate_hits(settings) == service.SHARE_LOOKUPS.count
    warnings = [r for r in caplog.records if r.name == "stratagem.ratelimit"]
    assert warnings and "counting in the database" in warnings[0].getMessage()


def test_readiness_reports_redis_without_depending_on_it(
    template_db: Path, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis is optional (the database counts without it): /readyz lists it under
    `optional`, and a Redis that does not answer is logged at start and never makes the
    process unready."""
    caplog.set_level(logging.WARNING, logger="stratagem.ratelimit")
    up = _settings(template_db, "up.db", redis_url=REDIS_URL, prefix=prefix)
    with TestClient(create_app(up)) as c:
        r = c.get("/readyz")
        assert r.status_code == 200 and r.json()["optional"]["redis"]["ok"] is True
    assert not [x for x in caplog.records if x.name == "stratagem.ratelimit"]
    down = _settings(template_db, "down2.db", redis_url=DOWN_URL, prefix=prefix)
    with TestClient(create_app(down)) as c:
        r = c.get("/readyz")
        assert r.status_code == 200 and r.json()["status"] == "ready"
        assert r.json()["optional"]["redis"]["ok"] is False
        assert "redis" not in r.json()["failing"]
    (start,) = [x for x in caplog.records if x.name == "stratagem.ratelimit"]
    assert "does not answer at start" in start.getMessage()


class _StallableRedis:
    """A TCP proxy to the real Redis that can stall: while `stalled`, it accepts connections
    and never answers (a paused or overloaded Redis, a half-open network path); otherwise it
    relays both ways. `connections` counts the connections the store opened."""

    def __init__(self) -> None:
        self.stalled = True
        self.connections = 0
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self._server.getsockname()[1]}/13"
        self._held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            self.connections += 1
            if self.stalled:
                self._held.append(client)  # open, never read, never answered
                continue
            upstream = socket.create_connection(("127.0.0.1", 6379))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self._server.close()
        for s in self._held:
            s.close()


def test_a_stalled_redis_is_asked_once_per_interval_not_once_per_request(prefix: str) -> None:
    """QA: a Redis that accepts connections but does not answer cost every rate-limited
    request the 0.5 s socket timeout (twice when a count was taken back), and with N requests
    admitted per process that stalled the app. After one timeout the store skips Redis for
    its interval — those requests count in the database — then one request asks again, and
    Redis's answer brings the shared counts back."""
    proxy = _StallableRedis()
    store = RedisStore(proxy.url, prefix=prefix, retry_after_failure_s=1.0)
    limit = service.Limit("stall", 5, timedelta(minutes=1))
    try:
        with pytest.raises(RedisUnavailable, match="Timeout"):
            store.reserve(limit=limit, key="c", now=utcnow())
        asked = proxy.connections
        assert asked >= 1
        for _ in range(20):  # the requests of the next second: not asked, told why
            with pytest.raises(RedisUnavailable, match=r"not asked: .*Timeout"):
                store.reserve(limit=limit, key="c", now=utcnow())
        assert proxy.connections == asked  # no new connection, so no timeout paid

        proxy.stalled = False  # Redis answers again
        with pytest.raises(RedisUnavailable, match="not asked"):  # still inside the interval
            store.retry_after(limit=limit, key="c", now=utcnow())
        time.sleep(1.1)  # the interval passes: the next request asks, and is answered
        member, wait = store.reserve(limit=limit, key="c", now=utcnow())
        assert member is not None and wait is None
        assert store.retry_after(limit=limit, key="c", now=utcnow()) is None  # closed again
        assert redis.Redis.from_url(REDIS_URL).zcard(f"{prefix}stall:c") == 1
    finally:
        store.close()
        proxy.close()
