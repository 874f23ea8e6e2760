"""What every command that touches the database shares: the settings read with one error
line per bad setting, a database problem said in one `error:` line (never a traceback or the
URL's password), and a session on a database migrated to head under the migration lock.

Its own module so that the subcommands (app/catalog/cli.py, app/accounts/cli.py) use it
without importing app.cli, which imports them to register their commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer
from pydantic import ValidationError

if TYPE_CHECKING:
    from sqlmodel import Session


def fail(lines: list[str]) -> None:
    """End the command: one `error:` line each, exit status 2."""
    for line in lines:
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(2)


def load_settings() -> Any:
    """The environment's `Settings`, or one `error:` line per bad setting naming it (not a
    traceback): "error: STRATAGEM_WORKERS: Input should be a valid integer (got 'abc')"."""
    from app.settings import Settings

    try:
        settings = Settings()
    except ValidationError as e:
        lines = []
        for err in e.errors():
            name = ".".join(str(p) for p in err["loc"]) or "settings"
            msg = str(err["msg"]).removeprefix("Value error, ")
            lines.append(f"{name}: {msg} (got {err.get('input')!r})")
        fail(lines)
    if (line := sqlite_path_problem(settings.database_url)) is not None:
        fail([line])
    return settings


def sqlite_path_problem(url: str) -> str | None:
    """Why an SQLite DATABASE_URL cannot hold the app's data: in memory, or in a folder that does
    not exist (None: it can, or it is not SQLite).

    A new SQLite database is made only in a folder that exists, so a mistyped path is an
    error rather than a new, empty database the app then serves as if the data were gone
    (measured: `stratagem migrate` with `DATABASE_URL=sqlite:////tmp/mgx/sub/app.db` made
    both folders and an empty database with the shipped catalog, exit 0). The default file
    under var/ is the exception: its folder is the app's own and is made on first start.
    """
    from pathlib import Path

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    from app.db import safe_url
    from app.settings import DEFAULT_SQLITE

    try:
        parsed = make_url(url)
    except ArgumentError:  # not a URL: `database_problem` says so where it is opened
        return None
    if parsed.get_backend_name() != "sqlite":
        return None
    path = parsed.database or ""
    if not path or path == ":memory:" or parsed.query.get("mode") == "memory":
        # Every connection would open a new, empty database (QA: `migrate` said "created …
        # 13 migrations applied", then failed on "no such table").
        return (
            f"DATABASE_URL ({safe_url(url)}): an in-memory SQLite database lasts one "
            "connection; name a file (sqlite:///path/to/stratagem.db)"
        )
    folder = Path(path).parent
    if folder.is_dir() or Path(path).resolve() == DEFAULT_SQLITE.resolve():
        return None
    return (
        f"DATABASE_URL ({safe_url(url)}): the folder {folder} does not exist; create it "
        f"(mkdir -p {folder}) or correct the path — a new SQLite database is only made in a "
        "folder that exists, so that a mistyped path never starts an empty one"
    )


def database_problem(exc: BaseException, url: str) -> str | None:
    """One line naming DATABASE_URL and the cause, or None when `exc` is not about the
    database (a bug: let its traceback show). The URL's password is never in it."""
    from alembic.util.exc import CommandError
    from sqlalchemy.exc import (
        ArgumentError,
        DatabaseError,
        InterfaceError,
        OperationalError,
        ProgrammingError,
    )

    from app.db import safe_url

    where = f"DATABASE_URL ({safe_url(url)})"
    if isinstance(exc, ArgumentError):
        return f"{where}: not a database URL (sqlite:///path or postgresql+psycopg://…)"
    if isinstance(exc, ModuleNotFoundError):
        return (
            f"{where}: no driver for this database ({exc.name} is not installed); "
            "use sqlite:///path or postgresql+psycopg://…"
        )
    if isinstance(exc, OperationalError | InterfaceError) and exc.statement is None:
        return f"{where}: cannot open or reach the database: {_cause(exc, url)}"
    if isinstance(exc, OperationalError | ProgrammingError):
        # With a statement: typically a migration meeting a table its alembic_version does
        # not account for (PostgreSQL's DuplicateTable, SQLite's OperationalError), or a role
        # without the rights to change the schema.
        line = f"{where}: the database refused a statement: {_cause(exc, url)}"
        if "already exists" in line:
            line += (
                "; the tables do not match the migration alembic_version records (an older "
                "backup restored over a newer database without emptying it? `stratagem "
                "restore` replaces every table)"
            )
        return line
    if isinstance(exc, DatabaseError):
        # SQLite's "file is not a database", "database disk image is malformed" (QA: a text
        # file at the path ended `migrate` and `serve` in a traceback).
        return f"{where}: not a usable SQLite database: {_cause(exc, url)}"
    if isinstance(exc, CommandError):
        line = f"{where}: cannot migrate: {_without_password(str(exc), url)}"
        if "Can't locate revision" in line:
            line += " (the database is newer than this Stratagem: upgrade Stratagem first)"
        return line
    if isinstance(exc, OSError) and exc.filename:
        return f"{where}: cannot write {exc.filename}: {exc.strerror}"
    if isinstance(exc, ValueError) and "url" in "".join(map(str, exc.args)).lower():
        return f"{where}: {_without_password(str(exc), url)}"
    if isinstance(exc, ValueError) and "invalid literal for int()" in str(exc):
        return f"{where}: the port is not a number"
    return None


def _cause(exc: Any, url: str) -> str:
    """The driver's message, first line (libpq adds a hint on a second one)."""
    text = str(exc.orig) if getattr(exc, "orig", None) is not None else str(exc)
    lines = text.strip().splitlines() or [type(exc).__name__]
    return _without_password(lines[0], url)


def _without_password(text: str, url: str) -> str:
    """`text` with the URL's password masked: drivers may echo the connection string."""
    from sqlalchemy.engine import make_url

    try:
        password = make_url(url).password
    except Exception:
        return text
    return text.replace(str(password), "***") if password else text


@contextmanager
def database_errors(url: str) -> Iterator[None]:
    """Inside this block, an exception about the database (`database_problem`) ends the
    command with one `error:` line and exit 2; any other exception is a bug and keeps its
    traceback."""
    try:
        yield
    except Exception as e:
        line = database_problem(e, url)
        if line is None:
            raise
        fail([line])


def prepare_or_fail(settings: Any) -> None:
    """Migrate and seed under the migration lock; a database that cannot be used is one
    `error:` line naming DATABASE_URL, exit 2."""
    from app.bootstrap import prepare_database
    from app.db import migration_lock

    with database_errors(settings.database_url), migration_lock(settings.database_url):
        prepare_database(settings, echo=typer.echo)


@contextmanager
def database_session() -> Iterator[Session]:
    """A session on DATABASE_URL, migrated to head first (under the migration lock, like
    `serve`), for the commands that read or write the catalog and accounts. A bad setting,
    a database that cannot be used, or a connection lost during the command is one `error:`
    line, exit 2; any other error of the command's own queries is a bug and keeps its
    traceback (a refused statement there is not the database's fault — review)."""
    from sqlalchemy.exc import InterfaceError, OperationalError
    from sqlmodel import Session

    from app.db import make_engine, migrate, migration_lock

    url = load_settings().database_url
    with database_errors(url):
        with migration_lock(url):
            migrate(url)
        engine = make_engine(url)
    try:
        with Session(engine) as session:
            try:
                yield session
            except (OperationalError, InterfaceError) as e:
                lost = e.statement is None or e.connection_invalidated
                line = database_problem(e, url) if lost else None
                if line is None:
                    raise
                fail([line])
    finally:
        engine.dispose()
