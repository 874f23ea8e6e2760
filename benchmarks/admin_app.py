"""The app in-process on a fresh SQLite database with the shipped catalog, an admin signed in:
what the catalog benchmarks time their requests through."""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.bootstrap import prepare_database
from app.main import create_app
from app.settings import Settings
from tests.accounts.helpers import Account, make_account, sign_in


@contextlib.contextmanager
def admin_client() -> Iterator[tuple[TestClient, Account]]:
    """(a client signed in as an admin, in English, the account: its `headers` carry its API
    token), the database and the app gone when the block ends."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            DATABASE_URL=f"sqlite:///{tmp}/bench.db",
            STRATAGEM_SECRET_KEY="bench",
            STRATAGEM_LANGUAGE="en",
        )
        prepare_database(settings, echo=lambda _: None)
        app = create_app(settings)
        with TestClient(app) as c:
            c.headers["Accept-Language"] = "en"
            admin = make_account(c, "admin")
            sign_in(c, admin.user)
            yield c, admin
        app.state.engine.dispose()
