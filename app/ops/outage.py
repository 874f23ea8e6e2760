"""A database that cannot be reached: recognised, answered 503, logged without a flood.

While PostgreSQL is down (or an SQLite file cannot be opened, or stays locked) every request
that needs the database fails the same way. Each is answered 503 with `Retry-After`
(app/web/errors.py renders it; the request middleware does for the few that fail outside a
route, such as an error page that itself needed the database) and logged as ONE line; the
full traceback is logged at most once every `TRACEBACK_INTERVAL_S` per process. Without this,
every request of an outage logged a 12.8 KB traceback and answered a bare 500: the log was
flooded exactly when someone needed to read it, and clients were told the fault was ours for
good rather than "try again shortly".

Only failures *to reach* the database count (a pool with no free connection within its
timeout included: from outside, the same "not now"). An SQL error the database did answer ("no such
table", a constraint, a syntax error) is a bug or a refusal and stays a 500 with its
traceback every time.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Final

import psycopg
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

#: Seconds a client is asked to wait before trying again (the load balancer's readiness
#: probe takes an unready process out of rotation in about that time).
RETRY_AFTER_S: Final = 5
#: At most one full traceback per process in this many seconds; every request still logs its
#: one line, so the log shows how long the outage lasted and what it hit.
TRACEBACK_INTERVAL_S: Final = 60.0
#: Longest driver message kept in a log line (psycopg's run to several lines of hints).
MESSAGE_LIMIT: Final = 300

#: SQLite's messages for a file that cannot be opened, written or waited for: the outage of
#: an embedded database. Its other OperationalErrors ("no such table", "no such column")
#: are bugs in a query or a missing migration and stay 500s.
SQLITE_UNAVAILABLE: Final = (
    "database is locked",
    "database table is locked",
    "unable to open database file",
    "disk i/o error",
    "database or disk is full",
    "attempt to write a readonly database",
)
#: Of those, the ones that mean another writer held SQLite's one write lock for longer than
#: the busy timeout (a large price-list import, say): the database is there but busy.
SQLITE_BUSY: Final = ("database is locked", "database table is locked")
#: What a client is asked to wait after that: the busy timeout has already been waited.
BUSY_RETRY_AFTER_S: Final = 30
#: PostgreSQL SQLSTATEs that say the server is not there for us, besides class 08
#: (connection exception): shut down by an administrator, crashed, starting up, and no
#: connection slot left.
PG_UNAVAILABLE_STATES: Final = frozenset({"57P01", "57P02", "57P03", "53300"})

log = logging.getLogger("stratagem.errors")


def database_unavailable(exc: BaseException) -> bool:
    """Whether `exc` (or what it was raised from) says the database could not be reached.

    SQLAlchemy wraps the driver's error (`DBAPIError.orig`, also its `__cause__`); a
    connection it found dead mid-request is marked `connection_invalidated`. Only explicit
    causes are followed, not `__context__`: a bug raised while handling a database error
    is still a bug.
    """
    for err in _causes(exc):
        if isinstance(err, PoolTimeout):
            return True  # every pooled connection busy past pool_timeout: as full as 53300
        if isinstance(err, DBAPIError):
            if err.connection_invalidated:
                return True
        elif _driver_unavailable(err):
            return True
    return False


def database_busy(exc: BaseException) -> bool:
    """Whether `exc` says SQLite's write lock stayed held by another writer past the busy
    timeout: not an outage, a long write elsewhere (the answer says so, and asks for a retry
    in `BUSY_RETRY_AFTER_S` rather than `RETRY_AFTER_S`)."""
    return any(
        isinstance(err, sqlite3.OperationalError)
        and str(err).strip().lower().startswith(SQLITE_BUSY)
        for err in _causes(exc)
    )


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and what it was raised from: SQLAlchemy's `DBAPIError.orig` and each explicit
    `__cause__` (not `__context__`), each once."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        err = pending.pop()
        if err is None or id(err) in seen:
            continue
        seen.add(id(err))
        yield err
        if isinstance(err, DBAPIError):
            pending.append(err.orig)
        pending.append(err.__cause__)


def _driver_unavailable(err: BaseException) -> bool:
    if isinstance(err, sqlite3.OperationalError):
        return str(err).strip().lower().startswith(SQLITE_UNAVAILABLE)
    if isinstance(err, psycopg.OperationalError):
        # No SQLSTATE: the client library failed (refused, timed out, connection closed)
        # before any server answered.
        state = err.sqlstate
        return state is None or state.startswith("08") or state in PG_UNAVAILABLE_STATES
    return False


def describe(exc: BaseException) -> str:
    """'psycopg.OperationalError: connection failed: … Connection refused': the driver's
    error and the first line of its message, for a log line."""
    err: BaseException = exc
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        err = exc.orig
    kind = type(err)
    module = kind.__module__.split(".")[0]
    name = kind.__name__ if module == "builtins" else f"{module}.{kind.__name__}"
    first = next((line.strip() for line in str(err).splitlines() if line.strip()), "")
    if len(first) > MESSAGE_LIMIT:
        first = first[:MESSAGE_LIMIT] + "…"
    return f"{name}: {first}" if first else name


class OutageLog:
    """One log line per failed request; its traceback only when none was logged lately."""

    def __init__(
        self,
        interval_s: float = TRACEBACK_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval_s = interval_s
        self.clock = clock
        self._lock = threading.Lock()
        self._last_traceback: float | None = None
        self._since = 0  # requests logged without a traceback since the last one

    def report(self, exc: BaseException, *, method: str, path: str) -> None:
        """Log that `method path` was answered 503 because of `exc`."""
        now = self.clock()
        with self._lock:
            due = self._last_traceback is None or now - self._last_traceback >= self.interval_s
            skipped = self._since
            if due:
                self._last_traceback, self._since = now, 0
            else:
                self._since += 1
        what = describe(exc)
        extra = {"event": "database_unavailable", "error": what, "method": method, "path": path}
        if not due:
            log.warning(
                "database unavailable: %s %s answered 503 (%s)", method, path, what, extra=extra
            )
            return
        since = f"; {skipped} more since the last one" if skipped else ""
        log.error(
            "database unavailable: %s %s answered 503 (%s); traceback below, the next not "
            "before %g s%s",
            method,
            path,
            what,
            self.interval_s,
            since,
            exc_info=(type(exc), exc, exc.__traceback__),
            extra=extra,
        )


#: The process's log of unavailable-database requests (tests replace it to start afresh).
REPORTER = OutageLog()


def report(exc: BaseException, *, method: str, path: str) -> None:
    """Log a request answered 503 because the database could not be reached."""
    REPORTER.report(exc, method=method, path=path)
