"""Database engine, sessions and migrations.

SQLite (the default) runs in WAL mode with foreign keys enforced; PostgreSQL is reached
through DATABASE_URL. The schema is owned by Alembic: `migrate()` brings any database to head.
"""

from __future__ import annotations

import contextlib
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import event, inspect, text, update
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import NullPool
from sqlmodel import create_engine

from app import filelock
from app.settings import REPO_ROOT


def pool_options(concurrent_requests: int | None) -> dict[str, int]:
    """Pool size for an app that works on at most `concurrent_requests` requests at once
    (app/web/concurrency.py): two connections each — its session and the price list's short
    one (app/deps.py current_prices) — so no request waits on a connection that another,
    itself waiting for a worker thread, holds (the FastAPI + SQLAlchemy pool deadlock: 200
    concurrent GETs froze a process for 60 s and ended in 500s). None: SQLAlchemy's
    defaults (5 + 10 overflow), for command-line tools."""
    if concurrent_requests is None:
        return {}
    return {"pool_size": concurrent_requests, "max_overflow": concurrent_requests + 2}


def make_engine(
    url: str, *, concurrent_requests: int | None = None, must_exist: bool = False
) -> Engine:
    """An engine for `url`; SQLite gets WAL, foreign keys and a busy timeout. An app passes
    its request limit so the pool is sized for it (`pool_options`).

    `must_exist` (the serving app's engine): an SQLite file is opened, never created. QA
    moved the file away under a running server: each new connection made an empty database
    at the old path and answered 500 "no such table"; now it cannot open one, which is the
    database outage (503, Retry-After) until the file is back. Migrations and the CLI make
    the file."""
    pool = pool_options(concurrent_requests)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1] if "///" in url else ""
        file_based = bool(path) and path != ":memory:" and "mode=memory" not in url
        connect_args: dict[str, Any] = {
            "check_same_thread": False,
            "timeout": SQLITE_BUSY_TIMEOUT_S,
        }
        if file_based:
            Path(path.split("?", 1)[0]).parent.mkdir(parents=True, exist_ok=True)
        else:
            pool = {}  # an in-memory database lives in one connection (SingletonThreadPool)
        if file_based and must_exist and "?" not in path:
            file_uri = Path(path).resolve().as_uri() + "?mode=rw"
            connect_args = {**connect_args, "uri": True}
            engine = create_engine(  # the URL picks the dialect and pool; `creator` connects
                url,
                creator=lambda: sqlite3.connect(file_uri, **connect_args),
                **pool,
            )
        else:
            engine = create_engine(url, connect_args=connect_args, **pool)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True, **pool)


def alembic_config(url: str) -> Config:
    cfg = Config(str(REPO_ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str, revision: str = "head") -> None:
    """Upgrade the database at `url` to `revision` (default: the latest)."""
    command.upgrade(alembic_config(url), revision)


#: How long an SQLite write waits for another writer's lock before it fails.
SQLITE_BUSY_TIMEOUT_S: Final = 30


@contextlib.contextmanager
def brief_lock_wait(conn: Any, *, ms: int = 200) -> Iterator[None]:
    """Statements on `conn` inside the block wait at most `ms` for a lock, then fail
    (OperationalError): for bookkeeping writes a request can do without. SQLite: the
    connection's busy timeout, put back afterwards (the connection returns to the pool);
    PostgreSQL: `SET LOCAL lock_timeout`, which ends with the transaction."""
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:
        conn.exec_driver_sql(f"PRAGMA busy_timeout = {int(ms)}")
    else:
        conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{int(ms)}ms'")
    try:
        yield
    finally:
        if sqlite:
            conn.exec_driver_sql(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_S * 1000}")


def hold_row(session: Any, model: Any, row_id: int, column: Any) -> Any:
    """The row `row_id` of `model` as it is now (None when there is none), held until the
    caller's transaction ends: a no-op UPDATE setting `column` to itself — a row lock on
    PostgreSQL, the database's write lock on SQLite. Another writer holding it the same way
    waits, then reads what this one committed."""
    session.execute(
        update(model)
        .where(model.id == row_id)
        .values({column: column})
        .execution_options(synchronize_session=False)
    )
    return session.get(model, row_id, populate_existing=True)


def lock_key(name: str) -> int:
    """A stable 31-bit advisory-lock key for `name` (CRC-32, so `psql` can find it)."""
    return zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF


def take_turns(session: Any, name: str) -> None:
    """Writers calling this with the same `name` take turns until their transaction ends.

    PostgreSQL: a transaction-level advisory lock (released at commit or rollback). SQLite:
    nothing to take here — its writers already take turns on the database's one write lock,
    which the caller holds from its first INSERT/UPDATE on; a check made after that write
    sees every other writer's committed rows."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": lock_key(name)})


#: The PostgreSQL advisory-lock key every process takes around migrations and the catalog
#: seed (a stable 31-bit number derived from the name, so `psql` can find it in pg_locks).
MIGRATION_LOCK_KEY: Final = zlib.crc32(b"stratagem.migrate") & 0x7FFFFFFF


@contextlib.contextmanager
def migration_lock(url: str) -> Iterator[None]:
    """Held while one process migrates or seeds: replicas starting together take turns.

    PostgreSQL: a session-level advisory lock on its own connection (released when the
    block ends, or by the server if the process dies). SQLite: an exclusive `flock` on a
    file beside the database, which serialises the processes of one machine — the only ones
    that can share an SQLite file.
    """
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if not path or path == ":memory:":
            yield
            return
        lock_path = Path(f"{path}.migrate-lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with filelock.exclusive(lock_path):
            yield
        return
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK_KEY})
                conn.commit()
    finally:
        engine.dispose()


def head_revisions() -> set[str]:
    """The revisions `migrate()` would bring a database to (read from migrations/)."""
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return set(script.get_heads())


def pending_revisions(current: set[str]) -> list[str] | None:
    """The migrations `migrate()` would apply to a database at `current`, oldest first
    (None: `current` holds a revision these migrations do not know, a newer app's)."""
    from alembic.script.revision import RevisionError

    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    try:
        newest_first = script.iterate_revisions("heads", tuple(sorted(current)) or "base")
        return [rev.revision for rev in reversed(list(newest_first))]
    except RevisionError:
        return None


def current_revisions(engine: Engine) -> set[str]:
    """The revisions the database behind `engine` is at (empty: never migrated).

    Reads Alembic's table directly rather than through a MigrationContext, which logs two
    lines each time: /readyz asks every few seconds.
    """
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return set()
        return {row[0] for row in conn.execute(text("SELECT version_num FROM alembic_version"))}


def safe_url(url: str) -> str:
    """`url` without its password, for logs and start-up lines."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1]


def downgrade(url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
