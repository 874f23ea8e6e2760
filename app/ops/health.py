"""Readiness checks for the load balancer: database, migrations, fonts, Chromium.

Each check returns None when it passes or a short reason when it fails. The font and
Chromium checks only look at the machine, so a pass is remembered for the life of the
process; the database checks run on every call.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from functools import lru_cache
from typing import Final

from sqlalchemy import text
from sqlalchemy.engine import Engine

from app.db import current_revisions, head_revisions

CJK_FONT: Final = "Noto Sans CJK"
BROWSERS: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

Check = Callable[[], str | None]


def database(engine: Engine) -> str | None:
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
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
