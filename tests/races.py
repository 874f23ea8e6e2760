"""Making a race happen in a test, on SQLite and on PostgreSQL.

A test transaction holds what the racing requests need (`holding`: an UPDATE that locks the
rows it matches on PostgreSQL, the one write lock on SQLite); the requests are started in
threads (`Background`) and left waiting on it (`wait_until_blocked`), then the transaction
commits, with or without a change of its own. On PostgreSQL the waiting is observed in
`pg_stat_activity`; SQLite has no such view, so the test gives the threads a moment to reach
their write (one that is late reads the committed state: such a test can miss a race on a
slow machine, never invent one).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, text

from tests.scratch_db import BACKENDS, scratch_databases

#: How long a SQLite test waits for its threads to reach their write (see the docstring).
SQLITE_SETTLE_S = 0.5
#: A request that has not answered by then is stuck (a deadlock detector, not a speed check).
STUCK_S = 30


@contextmanager
def holding(engine: Engine, statement: Any) -> Iterator[Connection]:
    """A transaction that has run `statement` (an UPDATE: it holds the rows it matched on
    PostgreSQL, the write lock on SQLite) until the block ends; it commits then."""
    with engine.connect() as conn:
        conn.execute(statement)
        yield conn
        conn.commit()


def wait_until_blocked(engine: Engine, waiting: int) -> None:
    """Until `waiting` other sessions wait on a lock (PostgreSQL), or a moment (SQLite)."""
    if engine.dialect.name != "postgresql":
        time.sleep(SQLITE_SETTLE_S)
        return
    query = text(
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    deadline = time.monotonic() + STUCK_S
    with engine.connect() as conn:
        while time.monotonic() < deadline:
            if conn.execute(query).scalar_one() >= waiting:
                return
            conn.rollback()
            time.sleep(0.02)
    raise AssertionError(f"{waiting} requests never waited on the lock")


class Background:
    """Calls run in threads; `results()` joins them (a stuck one fails the test)."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.out: dict[int, Any] = {}
        self.errors: list[BaseException] = []

    def start(self, call: Callable[[], Any]) -> None:
        i = len(self.threads)

        def run() -> None:
            try:
                self.out[i] = call()
            except BaseException as e:  # surfaced by results(): a thread must not fail quietly
                self.errors.append(e)

        t = threading.Thread(target=run, daemon=True)
        self.threads.append(t)
        t.start()

    def results(self) -> list[Any]:
        for t in self.threads:
            t.join(STUCK_S)
        assert not any(t.is_alive() for t in self.threads), "a request is stuck"
        assert not self.errors, self.errors
        return [self.out[i] for i in range(len(self.threads))]


@pytest.fixture(name="engine", scope="module", params=BACKENDS)
def race_engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """`engine` for a module of race tests (import it there): a database of the module's
    own (migrated, the shipped catalog loaded) on each backend, dropped afterwards."""
    from app.bootstrap import prepare_database
    from app.db import make_engine
    from app.settings import Settings

    tmp = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
    with scratch_databases(request.param, tmp) as create:
        url = create()
        prepare_database(
            Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY="test-secret"), echo=lambda _: None
        )
        engine = make_engine(url, concurrent_requests=8)
        try:
            yield engine
        finally:
            engine.dispose()
