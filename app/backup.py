"""Backup and restore of the whole database: `stratagem backup --out FILE`, `stratagem restore FILE`.

* **SQLite**: SQLite's online backup API (`sqlite3.Connection.backup`) copies the database
  page by page while the app keeps serving; the copy is one consistent snapshot even under
  concurrent writes (WAL readers see one transaction's state). Restore runs the same API the
  other way, in one step, so the whole file is replaced at once (writers wait for the lock).
* **PostgreSQL**: `pg_dump --format=custom` writes Stratagem's tables to the file; restore
  drops those tables (only Stratagem's: a database shared with other applications keeps
  theirs) and replays the file in one transaction (`restore` says how). The client tools
  of PostgreSQL do the work (`pg_dump`, `pg_restore`, `psql`; on Debian
  `postgresql-client`); a missing tool is a clear error naming the package, not a traceback.
  The password travels in `PGPASSWORD`, never on a command line that `ps` shows.

The file keeps the Alembic revision of the database it came from; after a restore, start
the app (or `stratagem migrate`) to bring an older backup to the current schema.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy.engine import URL, make_url

from app.db import MIGRATION_LOCK_KEY
from app.settings import REPO_ROOT


class BackupError(Exception):
    """A backup or restore that cannot be done, in words for the terminal."""


def _sqlite_path(database_url: str) -> Path:
    url = make_url(database_url)
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory SQLite database cannot be backed up")
    return Path(url.database)


def _libpq(database_url: str) -> tuple[str, dict[str, str]]:
    """The URL as libpq (pg_dump, psql) reads it — no SQLAlchemy driver suffix, no password
    — and the environment that carries the password (a command line is world-readable in
    /proc and `ps`)."""
    url = make_url(database_url)
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    bare = URL.create(  # not url.set(password=None): set() skips None values
        "postgresql", url.username, None, url.host, url.port, url.database, url.query
    )
    return bare.render_as_string(hide_password=False), env


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(
            f"{name} is not installed (PostgreSQL client tools; Debian/Ubuntu: "
            f"apt-get install postgresql-client, matching the server's major version)"
        )
    return path


def _said(stderr: str, returncode: int) -> str:
    """A client tool's complaint on one line: its errors, without the notices and warnings
    a successful run prints too (psql's "NOTICE: drop cascades to …")."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    first_error = next(
        (n for n, line in enumerate(lines) if re.search(r"\b(ERROR|FATAL|error):", line)), 0
    )
    kept = [
        line for line in lines[first_error:] if not re.search(r"\b(NOTICE|WARNING|INFO):", line)
    ]
    if kept or lines:
        return " ".join(kept or lines)
    # Killed by a signal (a damaged archive has crashed pg_restore with SIGSEGV).
    return f"exit status {returncode}" if returncode >= 0 else f"killed by signal {-returncode}"


def backup(database_url: str, out: Path) -> Path:
    """Write a backup of `database_url` to `out`; returns `out`.

    The backup is written to `<out>.part` and renamed to `out` once complete, so `out` is
    either the whole new backup or what it was before (an earlier backup stays intact when
    this one fails), and a failed or interrupted backup leaves no `.part` file behind (QA:
    one did, beside the good backup it had not replaced)."""
    if not out.name or out.is_dir():  # "", ".", a folder: nothing to name the file by
        raise BackupError(f"--out {str(out) or '(empty)'}: name the file to write, not a folder")
    if database_url.startswith("sqlite"):
        src_path = _sqlite_path(database_url)
        if _same_database_file(out, src_path):
            # QA: renamed over the live file, the backup left the server writing to the
            # unlinked old file while every other process opened the new one: data was lost.
            raise BackupError(
                f"--out {out} is the database itself; write the backup to another file"
            )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BackupError(f"cannot write {out}: {e.strerror}") from e
    if database_url.startswith("sqlite"):
        if not src_path.exists():
            raise BackupError(f"no database at {src_path}")
        with _written_whole(out) as tmp:
            try:
                with sqlite3.connect(src_path) as src, sqlite3.connect(tmp) as dst:
                    src.backup(dst)  # one consistent snapshot, even while the app writes
            except (OSError, sqlite3.Error) as e:
                raise BackupError(f"cannot back up {src_path} to {out}: {e}") from e
        return out
    if database_url.startswith("postgresql"):
        pg_dump = _tool("pg_dump")
        url, env = _libpq(database_url)
        # Stratagem's tables only (with their sequences): a database it shares with other
        # applications keeps theirs out of this file, so a restore never rolls them back.
        schema = _current_schema(url, env)
        tables = [f"--table={schema}.{name}" for name in app_tables()]
        with _written_whole(out) as tmp:
            _client([pg_dump, "--format=custom", "--no-owner", "--file", str(tmp), *tables,
                     "--dbname", url], env)  # fmt: skip
        return out
    raise BackupError(
        f"backup supports SQLite and PostgreSQL, not {make_url(database_url).drivername}"
    )


def _same_database_file(path: Path, database: Path) -> bool:
    """Whether `path` is the SQLite file `database` or one of its companions (-wal, -shm,
    -journal)."""
    target = path.resolve()
    return any(
        target == database.resolve().with_name(database.name + suffix)
        for suffix in ("", "-wal", "-shm", "-journal")
    )


@contextlib.contextmanager
def _written_whole(out: Path) -> Iterator[Path]:
    """A `<out>.part` path to write; renamed to `out` when the block ends normally, removed
    when it raises (an error, Ctrl-C)."""
    tmp = out.with_name(out.name + ".part")
    try:
        tmp.unlink(missing_ok=True)  # a file left by a process killed outright
        yield tmp
        tmp.replace(out)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise BackupError(f"cannot write {out}: {e.strerror or e}") from e
        raise


def restore(database_url: str, file: Path) -> None:
    """Replace the database at `database_url` with the backup in `file`.

    Whatever Stratagem's tables held before — tables of a newer schema included — is gone
    afterwards, so an older backup comes back as it was and `stratagem migrate` takes it to
    head (a restore that left newer tables behind made the next migration fail on them).

    SQLite: the backup API copies the file over the database in one step, one transaction.

    PostgreSQL: one transaction on one connection (`psql`) takes the migration lock (so no
    replica migrates meanwhile), drops every table Stratagem has ever had (`app_tables`,
    with their sequences and indexes; other applications' tables in the same database, the
    schema itself, its owner and grants stay), then replays the file, which
    `pg_restore --single-transaction` turns into SQL ending in COMMIT. Nothing is committed
    before that last line, so a restore that fails halfway — a statement the server
    refuses, a truncated or corrupt file, the connection lost, the process killed —
    commits nothing: the server rolls the transaction back and the database is as it was.
    Apps that are serving wait at their next query while the tables are replaced (the
    drops take exclusive locks) and then see the restored data. Other schemas are left
    alone; an object the file creates that already exists outside the app's schema fails
    the restore, unchanged.
    """
    if not file.exists():
        raise BackupError(f"no backup file at {file}")
    if file.is_dir():
        raise BackupError(f"{file} is a folder, not a backup file")
    if database_url.startswith("sqlite"):
        if _same_database_file(file, _sqlite_path(database_url)):
            raise BackupError(f"{file} is the database itself, not a backup of it")
        try:
            with sqlite3.connect(f"file:{file}?mode=ro", uri=True) as src:
                src.execute("SELECT count(*) FROM alembic_version").fetchone()
                # Damage inside a page passes the query above: every page is read here, so a
                # corrupt backup never replaces a good database (QA: one did, and every
                # signed-in request was a 500 "database disk image is malformed").
                problems = [row[0] for row in src.execute("PRAGMA integrity_check(5)")]
        except sqlite3.DatabaseError as e:
            raise BackupError(f"{file} is not a Stratagem SQLite backup ({e})") from e
        if problems != ["ok"]:
            said = "; ".join(" ".join(str(p).split()) for p in problems)  # one line
            raise BackupError(
                f"{file} is damaged (SQLite integrity check: {said}); the database is unchanged"
            )
        dst_path = _sqlite_path(database_url)
        try:
            dst_path.parent.mkdir(parents=True, exist_ok=True)
            with (
                sqlite3.connect(f"file:{file}?mode=ro", uri=True) as src,
                sqlite3.connect(dst_path) as dst,
            ):
                src.backup(dst)
        except (OSError, sqlite3.Error) as e:
            raise BackupError(f"cannot restore into {dst_path}: {e}") from e
        return
    if database_url.startswith("postgresql"):
        _restore_postgres(database_url, file)
        return
    raise BackupError(
        f"restore supports SQLite and PostgreSQL, not {make_url(database_url).drivername}"
    )


#: Where the migrations live: every table any of them ever created is Stratagem's.
MIGRATIONS = REPO_ROOT / "migrations" / "versions"
_CREATED = re.compile(r"""op\.create_table\(\s*["'](\w+)["']""")


def _client(args: list[str], env: dict[str, str]) -> str:
    """Run a PostgreSQL client tool (`args[0]`); its standard output, or BackupError with
    what it said on one line."""
    proc = subprocess.run(args, capture_output=True, text=True, env=env)
    if proc.returncode:
        name = Path(args[0]).name
        raise BackupError(f"{name} failed: {_said(proc.stderr, proc.returncode)}")
    return proc.stdout


def _current_schema(url: str, env: dict[str, str]) -> str:
    """The schema the app's tables are in (its search path's first: `current_schema()`)."""
    name = _client([_tool("psql"), "--no-psqlrc", "--tuples-only", "--no-align",
                    "--dbname", url, "--command=SELECT current_schema()"], env).strip()  # fmt: skip
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", name):
        raise BackupError(f"the database's schema {name!r} is not a plain name")
    return name


def app_tables() -> list[str]:
    """Every table Stratagem has ever had: the models', each migration's `create_table`
    (a backup of any revision holds only these) and Alembic's own, sorted."""
    from sqlmodel import SQLModel

    import app.tables  # noqa: F401  (registers every model's table)

    names = set(SQLModel.metadata.tables) | {"alembic_version"}
    for path in MIGRATIONS.glob("*.py"):
        names.update(_CREATED.findall(path.read_text(encoding="utf-8")))
    return sorted(names)


def _empty_app_tables() -> str:
    """One DROP of Stratagem's tables in the schema the app uses, inside the restore's
    transaction. Only those: other tables of a shared database are not the backup's to
    replace (review), and without CASCADE an object of theirs that depends on one of ours
    (a view, a foreign key) refuses the restore, rolled back with nothing lost, instead of
    being dropped. A table's own sequences and indexes go with it; the migrations create
    no free-standing types or sequences."""
    tables = ", ".join(f'"{name}"' for name in app_tables())
    return f"DROP TABLE IF EXISTS {tables}"


def _restore_postgres(database_url: str, file: Path) -> None:
    pg_restore, psql = _tool("pg_restore"), _tool("psql")
    toc = subprocess.run([pg_restore, "--list", str(file)], capture_output=True, text=True)
    if toc.returncode:
        raise BackupError(
            f"{file} is not a pg_dump archive, or is damaged: {_said(toc.stderr, toc.returncode)}"
        )
    # A TOC line reads "214; 1259 19598 TABLE public alembic_version postgres".
    if not re.search(r"^\d+; \d+ \d+ TABLE \S+ alembic_version ", toc.stdout, re.MULTILINE):
        raise BackupError(f"{file} is not a Stratagem backup (it has no alembic_version table)")
    url, env = _libpq(database_url)
    with tempfile.TemporaryFile() as restore_err:
        # pg_restore writes SQL to the pipe; with --single-transaction its last statement
        # is the only COMMIT (large objects included). psql runs BEGIN, the lock and the
        # drops first, on the same connection, so they share that transaction.
        script = subprocess.Popen(
            [pg_restore, "--single-transaction", "--no-owner", "--file=-", str(file)],
            stdout=subprocess.PIPE,
            stderr=restore_err,
        )
        assert script.stdout is not None
        try:
            proc = subprocess.run(
                [psql, "--no-psqlrc", "--quiet", "--set=ON_ERROR_STOP=1", "--dbname", url,
                 "--command=BEGIN",
                 "--command=SET client_min_messages = warning",  # not a NOTICE per drop
                 f"--command=SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})",
                 f"--command={_empty_app_tables()}",
                 "--file=-"],
                stdin=script.stdout,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )  # fmt: skip
        finally:
            script.stdout.close()  # psql gone early: pg_restore gets EPIPE, not a full pipe
            script_rc = script.wait()
        restore_err.seek(0)
        script_said = restore_err.read().decode("utf-8", "replace")
    if proc.returncode:
        raise BackupError(
            f"restore failed, the database is unchanged: {_said(proc.stderr, proc.returncode)}"
        )
    if script_rc:
        # psql saw the script end without its COMMIT: the server rolled everything back.
        raise BackupError(
            f"pg_restore could not read all of {file}, the database is unchanged: "
            f"{_said(script_said, script_rc)}"
        )
