"""`stratagem backup` / `stratagem restore` round-trip a populated database: every table's
rows come back exactly as they were backed up, on SQLite and on PostgreSQL (issue 13)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, select, text
from sqlalchemy.engine import make_url
from sqlmodel import Session
from typer.testing import CliRunner

from app.accounts import service as accounts
from app.backup import BackupError, backup, restore
from app.bootstrap import prepare_database
from app.cli import cli
from app.db import make_engine
from app.plans import service as plans
from app.plans.bulk import insert_plans
from app.plans.models import Plan
from app.settings import Settings
from tests.postgres import postgres_url


def snapshot(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted, as plain tuples."""
    engine = make_engine(url)
    try:
        out: dict[str, list[tuple[Any, ...]]] = {}
        names = inspect(engine).get_table_names()
        from sqlalchemy import MetaData

        meta = MetaData()
        meta.reflect(engine, only=names)
        with engine.connect() as conn:
            for name, table in meta.tables.items():
                rows = conn.execute(select(table)).all()
                out[name] = sorted((tuple(r) for r in rows), key=repr)
        return out
    finally:
        engine.dispose()


def populate(url: str) -> None:
    prepare_database(Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY="b"), echo=lambda _: None)
    engine = make_engine(url)
    with Session(engine) as s:
        user = accounts.create_user(
            session=s, email="b@example.com", password="backup backup", role="sales", name="B"
        )
        assert user.id is not None
        plans.create_plan(
            session=s, owner=user, name="Backed up",
            workload={"model": {"preset": "llama-2-13b"}, "task": "lora", "seq_len": 2048},
        )  # fmt: skip
        insert_plans(session=s, owner_id=user.id, count=300)
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'live.db'}"
        return
    base = postgres_url()
    admin = create_engine(make_url(base).set(database="postgres"), isolation_level="AUTOCOMMIT")
    name = f"stratagem_backup_{uuid.uuid4().hex[:8]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_round_trip_restores_every_row(db_url: str, tmp_path: Path) -> None:
    populate(db_url)
    before = snapshot(db_url)
    assert len(before["plan"]) == 301 and before["rental_offer"] and before["app_user"]
    runner = CliRunner()
    env = {"DATABASE_URL": db_url}
    out = tmp_path / "stratagem.backup"
    r = runner.invoke(cli, ["backup", "--out", str(out)], env=env)
    assert r.exit_code == 0, r.output
    assert out.stat().st_size > 0

    # Change the live database after the backup: delete plans, add one.
    engine = make_engine(db_url)
    with engine.begin() as conn:
        conn.execute(Plan.__table__.delete().where(Plan.__table__.c.id > 10))  # type: ignore[attr-defined]
    engine.dispose()
    assert len(snapshot(db_url)["plan"]) == 10

    r = runner.invoke(cli, ["restore", str(out)], env=env)
    assert r.exit_code == 0, r.output
    after = snapshot(db_url)
    assert after.keys() == before.keys()
    for table in before:
        assert after[table] == before[table], table


def test_restore_refuses_a_file_that_is_no_backup(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 100)
    with pytest.raises(BackupError, match="not a Stratagem SQLite backup"):
        restore(f"sqlite:///{tmp_path / 'x.db'}", junk)


def test_missing_pg_tools_are_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no pg_dump on it
    with pytest.raises(BackupError, match=r"pg_dump is not installed.*postgresql-client"):
        backup("postgresql+psycopg://nobody@127.0.0.1/none", tmp_path / "x.dump")
