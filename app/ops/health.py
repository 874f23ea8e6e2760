"""Readiness checks for the load balancer: database, migrations, fonts, Chromium.

Each check returns None when it passes or a short reason when it fails. The font and
Chromium checks only look at the machine, so a pass is remembered for the life of the
process; the database checks run on every call.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Final

from sqlalchemy import text
from sqlalchemy.engine import Engine

from app.db import current_revisions, head_revisions
from app.ops import outage

CJK_FONT: Final = "Noto Sans CJK"
BROWSERS: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

Check = Callable[[], str | None]


def database(engine: Engine) -> str | None:
    """Reachable, and for an SQLite file also writable (`sqlite_writable`)."""
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    path = engine.url.database if engine.dialect.name == "sqlite" else None
    if path and path != ":memory:" and "mode=memory" not in str(engine.url):
        return sqlite_writable(Path(path))
    return None


def sqlite_writable(path: Path) -> str | None:
    """None when the SQLite file at `path` can be written, else why not.

    QA made the file read-only under a running server: /readyz kept answering 200 while
    writes failed with "attempt to write a readonly database". `SELECT 1` reads nothing,
    and a pooled connection opened before the change still holds a writable descriptor.

    Two looks, neither of which writes:

    * the permission the kernel gives this process on the file and its `-wal` and `-shm`
      (`os.access`: modes, the immutable attribute, a read-only mount). A new connection
      cannot be trusted for this within the app's process: SQLite's unix VFS keeps the
      descriptor of a connection closed while others hold locks on the file and hands it
      to the next connection opening it with the same flags, so the probe's connection
      would be given a descriptor opened for writing before the change;
    * SQLite's own answer for everything else: a write that changes nothing
      (`PRAGMA user_version` set to its own value in a transaction rolled back).
      `BEGIN IMMEDIATE` alone would not do: since SQLite 3.34 it starts a read
      transaction on a read-only file instead of failing (sqlite/sqlite commit 1ca037f).
      It waits for no lock (busy timeout 0): a write lock held by another connection
      means the file is being written, which is the answer sought.
    """
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if file.exists() and not os.access(file, os.W_OK):
            return f"not writable: this process may not write {file}"
    uri = path.resolve().as_uri() + "?mode=rw"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=0, isolation_level=None)
    except sqlite3.Error as e:
        return f"cannot open {path}: {e}"
    try:
        conn.execute("BEGIN")
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        conn.execute(f"PRAGMA user_version = {int(version)}")
    except sqlite3.OperationalError as e:
        if str(e).lower().startswith(outage.SQLITE_BUSY):
            return None
        return f"not writable: {e} ({path})"
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        conn.close()
    return None


def migrations(engine: Engine) -> str | None:
    current, heads = current_revisions(engine), _heads()
    if current == heads:
        return None
    return f"database at {sorted(current) or 'no revision'}, code expects {sorted(heads)}"


@lru_cache(maxsize=1)
def _heads() -> set[str]:
    return head_revisions()


_passed: set[str] = set()


def fonts() -> str | None:
    """Noto Sans CJK is installed (`fc-list`): without it Chinese quotes print boxes."""
    if "fonts" in _passed:
        return None
    try:
        out = subprocess.run(
            ["fc-list", ":lang=zh", "family"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"fc-list failed: {e}"
    if CJK_FONT not in out:
        return f"{CJK_FONT} is not installed (fonts-noto-cjk)"
    _passed.add("fonts")
    return None


def chromium() -> str | None:
    """A Chromium for kaleido's chart rendering: BROWSER_PATH, else one on PATH."""
    if "chromium" in _passed:
        return None
    configured = os.environ.get("BROWSER_PATH")
    if configured:
        if not (os.path.isfile(configured) and os.access(configured, os.X_OK)):
            return f"BROWSER_PATH={configured} is not an executable file"
    elif not any(shutil.which(name) for name in BROWSERS):
        return "no Chromium on PATH (and BROWSER_PATH is not set)"
    _passed.add("chromium")
    return None


def checks(engine: Engine) -> dict[str, Check]:
    return {
        "database": lambda: database(engine),
        "migrations": lambda: migrations(engine),
        "fonts": fonts,
        "chromium": chromium,
    }
