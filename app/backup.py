"""Backup and restore of the whole database: `stratagem backup --out FILE`, `stratagem restore FILE`.

* **SQLite**: SQLite's online backup API (`sqlite3.Connection.backup`) copies the database
  page by page while the app keeps serving; the copy is one consistent snapshot even under
  concurrent writes (WAL readers see one transaction's state). Restore runs the same API the
  other way, so it also works on a live database (writers wait for the lock).
* **PostgreSQL**: `pg_dump --format=custom` and `pg_restore --clean --if-exists
  --single-transaction` (the client tools of PostgreSQL; on Debian `postgresql-client`).
  A missing tool is a clear error naming the package, not a traceback.

The file keeps the Alembic revision of the database it came from; after a restore, start
the app (or `alembic upgrade head`) to bring an older backup to the current schema.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url


class BackupError(Exception):
    """A backup or restore that cannot be done, in words for the terminal."""


def _sqlite_path(database_url: str) -> Path:
    url = make_url(database_url)
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory SQLite database cannot be backed up")
    return Path(url.database)


def _libpq_url(database_url: str) -> str:
    """The URL as libpq (pg_dump) reads it: no SQLAlchemy driver suffix."""
    url = make_url(database_url).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(
            f"{name} is not installed (PostgreSQL client tools; Debian/Ubuntu: "
            f"apt-get install postgresql-client, matching the server's major version)"
        )
    return path


def backup(database_url: str, out: Path) -> Path:
    """Write a backup of `database_url` to `out`; returns `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if database_url.startswith("sqlite"):
        src_path = _sqlite_path(database_url)
        if not src_path.exists():
            raise BackupError(f"no database at {src_path}")
        tmp = out.with_name(out.name + ".part")
        tmp.unlink(missing_ok=True)
        with sqlite3.connect(src_path) as src, sqlite3.connect(tmp) as dst:
            src.backup(dst)  # one consistent snapshot, even while the app writes
        tmp.replace(out)
        return out
    if database_url.startswith("postgresql"):
        proc = subprocess.run(
            [_tool("pg_dump"), "--format=custom", "--no-owner", "--file", str(out),
             "--dbname", _libpq_url(database_url)],
            capture_output=True,
            text=True,
        )  # fmt: skip
        if proc.returncode:
            raise BackupError(f"pg_dump failed: {proc.stderr.strip()}")
        return out
    raise BackupError(
        f"backup supports SQLite and PostgreSQL, not {make_url(database_url).drivername}"
    )


def restore(database_url: str, file: Path) -> None:
    """Replace the database at `database_url` with the backup in `file`."""
    if not file.exists():
        raise BackupError(f"no backup file at {file}")
    if database_url.startswith("sqlite"):
        try:
            with sqlite3.connect(f"file:{file}?mode=ro", uri=True) as src:
                src.execute("SELECT count(*) FROM alembic_version").fetchone()
        except sqlite3.DatabaseError as e:
            raise BackupError(f"{file} is not a Stratagem SQLite backup ({e})") from e
        dst_path = _sqlite_path(database_url)
        dst_path.parent.mkdir(parents=True, exist_ok=True)
        with (
            sqlite3.connect(f"file:{file}?mode=ro", uri=True) as src,
            sqlite3.connect(dst_path) as dst,
        ):
            src.backup(dst)
        return
    if database_url.startswith("postgresql"):
        proc = subprocess.run(
            [_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction",
             "--dbname", _libpq_url(database_url), str(file)],
            capture_output=True,
            text=True,
        )  # fmt: skip
        if proc.returncode:
            raise BackupError(f"pg_restore failed: {proc.stderr.strip()}")
        return
    raise BackupError(
        f"restore supports SQLite and PostgreSQL, not {make_url(database_url).drivername}"
    )
