"""Backup + restore round-trip time for a database with 10,000 plans (issue 13).

Run: `.venv/bin/python benchmarks/backup_roundtrip.py [POSTGRES_URL]` — SQLite always, and
PostgreSQL on a throw-away database when a server URL is given. Reports, asserts nothing.
"""

from __future__ import annotations

import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import Session

from app.accounts import service as accounts
from app.backup import backup, restore
from app.bootstrap import prepare_database
from app.db import make_engine
from app.plans.bulk import insert_plans
from app.settings import Settings

PLANS = 10_000


def populate(url: str) -> None:
    prepare_database(Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY="b"), echo=lambda _: None)
    engine = make_engine(url)
    with Session(engine) as s:
        user = accounts.create_user(
            session=s, email="b@example.com", password="bench bench", role="sales", name="B"
        )
        assert user.id is not None
        insert_plans(session=s, owner_id=user.id, count=PLANS)
    engine.dispose()


def round_trip(label: str, url: str, file: Path) -> None:
    populate(url)
    t0 = time.perf_counter()
    backup(url, file)
    t1 = time.perf_counter()
    restore(url, file)
    t2 = time.perf_counter()
    print(
        f"{label}: {PLANS:,} plans, backup {t1 - t0:.2f} s ({file.stat().st_size / 1e6:.1f} MB), "
        f"restore {t2 - t1:.2f} s, round trip {t2 - t0:.2f} s"
    )


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    round_trip("SQLite", f"sqlite:///{tmp / 'live.db'}", tmp / "sqlite.backup")
    if len(sys.argv) > 1:
        base = make_url(sys.argv[1])
        admin = create_engine(base.set(database="postgres"), isolation_level="AUTOCOMMIT")
        name = f"stratagem_bench_{uuid.uuid4().hex[:8]}"
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            url = base.set(database=name).render_as_string(hide_password=False)
            round_trip("PostgreSQL", url, tmp / "pg.dump")
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()


if __name__ == "__main__":
    main()
