"""`stratagem backup` / `stratagem restore` round-trip a populated database: every table's
rows come back exactly as they were backed up, on SQLite and on PostgreSQL (issue 13). A
restore replaces the whole database — an older backup restored over a newer database
migrates to head afterwards — and a PostgreSQL restore that fails halfway changes nothing."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, select, text
from sqlalchemy.engine import make_url
from sqlmodel import Session
from typer.testing import CliRunner

from app.accounts import service as accounts
from app.backup import BackupError, _libpq, backup, restore
from app.bootstrap import prepare_database
from app.cli import cli
from app.db import current_revisions, head_revisions, make_engine, migrate
from app.plans import service as plans
from app.plans.bulk import insert_plans
from app.plans.models import Plan
from app.settings import Settings
from tests.postgres import postgres_url
from tests.scratch_db import BACKENDS, scratch_databases


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


def test_a_damaged_sqlite_backup_changes_nothing(tmp_path: Path) -> None:
    """QA: a backup with a page overwritten (disk or copy damage) passed the check that it is
    a Stratagem backup, replaced the live database, and every signed-in request was a 500
    "database disk image is malformed". Every page is read before anything is copied."""
    url = f"sqlite:///{tmp_path / 'live.db'}"
    populate(url)
    before = snapshot(url)
    out = tmp_path / "stratagem.backup"
    backup(url, out)
    data = bytearray(out.read_bytes())
    middle = len(data) // 2 // 4096 * 4096  # a whole page in the middle, not the schema's
    data[middle : middle + 4096] = b"\xff" * 4096
    out.write_bytes(bytes(data))
    with pytest.raises(BackupError, match=r"is damaged .*the database is unchanged"):
        restore(url, out)
    assert snapshot(url) == before


def test_missing_pg_tools_are_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no pg_dump on it
    with pytest.raises(BackupError, match=r"pg_dump is not installed.*postgresql-client"):
        backup("postgresql+psycopg://nobody@127.0.0.1/none", tmp_path / "x.dump")


@pytest.fixture(params=BACKENDS)
def new_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], str]]:
    with scratch_databases(str(request.param), tmp_path) as create:
        yield create


#: The revision the QA report restored from: before 0008 added `rate_hit` (and 0009
#: `import_upload`), so a restore that leaves the newer tables behind breaks the migration.
OLD_REVISION = "0007_text_limits"

#: Accounts written straight into the 0007 schema (the models describe head, not 0007).
OLD_USERS = [
    {"id": 1, "email": "old-admin@example.com", "name": "Old admin", "role": "admin"},
    {"id": 2, "email": "old-sales@example.com", "name": "Old sales", "role": "sales"},
]


def revision_of(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return current_revisions(engine)
    finally:
        engine.dispose()


def test_an_older_backup_restored_over_a_newer_database_migrates_to_head(
    new_db: Callable[[], str], tmp_path: Path
) -> None:
    """The QA repro: backup at 0007, restore into a database at head, then `migrate`."""
    old = new_db()
    migrate(old, OLD_REVISION)
    engine = make_engine(old)
    with engine.begin() as conn:
        for user in OLD_USERS:
            conn.execute(
                text(
                    "INSERT INTO app_user (id, email, name, role, password_hash, is_active, "
                    "created_at, session_nonce) VALUES (:id, :email, :name, :role, 'x', true, "
                    "'2026-01-02 03:04:05+00:00', 'n')"
                ),
                user,
            )
    engine.dispose()
    old_rows = snapshot(old)
    runner = CliRunner()
    dump = tmp_path / "old.backup"
    r = runner.invoke(cli, ["backup", "--out", str(dump)], env={"DATABASE_URL": old})
    assert r.exit_code == 0, r.output

    live = new_db()
    populate(live)  # head, the shipped catalog, a user, 301 plans
    engine = make_engine(live)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO rate_hit (bucket, key, at) VALUES ('q', 'k', '2026-01-01')"))
    engine.dispose()
    assert revision_of(live) == head_revisions()

    env = {"DATABASE_URL": live, "STRATAGEM_LOAD_CATALOG": "false"}
    r = runner.invoke(cli, ["restore", str(dump)], env=env)
    assert r.exit_code == 0, r.output
    # Exactly the backup: its revision, its tables (no rate_hit, no plans), its rows.
    assert revision_of(live) == {OLD_REVISION}
    assert snapshot(live) == old_rows

    r = runner.invoke(cli, ["migrate"], env=env)
    assert r.exit_code == 0, r.output
    assert revision_of(live) == head_revisions()
    migrated = snapshot(live)
    assert migrated["rate_hit"] == [] and migrated["plan"] == []
    users = [(u.email, u.name, u.role) for u in _users(live)]
    assert users == [(u["email"], u["name"], u["role"]) for u in OLD_USERS]
    for table, rows in old_rows.items():  # 0008–0010 add tables and bound lengths
        if table != "alembic_version":
            assert migrated[table] == rows, table


def _users(url: str) -> list[Any]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text("SELECT email, name, role FROM app_user ORDER BY id")))
    finally:
        engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize(
    "cut",
    [
        # mid-statement, as a damaged file or a killed pg_restore leaves it: psql fails
        "head -c 30000",
        # every statement but the final COMMIT: psql succeeds, the server rolls back
        "sed '/^COMMIT;$/d'",
    ],
)
def test_a_postgres_restore_that_breaks_off_changes_nothing(
    cut: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pg_restore's SQL stream cut short, and pg_restore failing: the drops and the tables
    restored so far are rolled back with the rest."""
    with scratch_databases("postgres", tmp_path) as create:
        url = create()
        populate(url)
        dump = backup(url, tmp_path / "good.backup")
        engine = make_engine(url)
        with engine.begin() as conn:  # after the backup, so a restore would be visible
            conn.execute(text("DELETE FROM plan WHERE id > 10"))
        engine.dispose()
        before = snapshot(url)

        real = _which("pg_restore")
        broken = tmp_path / "bin" / "pg_restore"
        broken.parent.mkdir()
        broken.write_text(
            f'#!/bin/sh\n[ "$1" = --list ] && exec {real} "$@"\n{real} "$@" | {cut}\nexit 1\n'
        )
        broken.chmod(0o755)
        monkeypatch.setenv("PATH", f"{broken.parent}{os.pathsep}{os.environ['PATH']}")
        with pytest.raises(BackupError, match="the database is unchanged"):
            restore(url, dump)
        assert snapshot(url) == before


def _which(name: str) -> str:
    import shutil

    path = shutil.which(name)
    assert path is not None, f"{name} is not installed (postgresql-client)"
    return path


@pytest.mark.postgres
def test_a_postgres_restore_refuses_a_file_that_is_no_backup(tmp_path: Path) -> None:
    junk = tmp_path / "junk.dump"
    junk.write_bytes(b"not a database" * 100)
    with scratch_databases("postgres", tmp_path) as create:
        url = create()
        with pytest.raises(BackupError, match="is not a pg_dump archive"):
            restore(url, junk)


def test_the_password_travels_in_the_environment_not_on_the_command_line() -> None:
    """Command lines are world-readable (/proc/<pid>/cmdline, `ps`); the environment is not."""
    url, env = _libpq("postgresql+psycopg://stratagem:s3cret@db:5432/stratagem?sslmode=require")
    assert url == "postgresql://stratagem@db:5432/stratagem?sslmode=require"
    assert env["PGPASSWORD"] == "s3cret"


@pytest.mark.postgres
def test_a_database_shared_with_another_application_keeps_its_tables(
    tmp_path: Path,
) -> None:
    """Review: the restore dropped every table of the schema and the backup held every table
    of the database, so another application's table sharing the database was rolled back to
    the backup's day (or dropped). Now the file holds Stratagem's tables only and the restore
    replaces only those: the other table keeps the row written after the backup."""
    with scratch_databases("postgres", tmp_path) as create:
        url = create()
        populate(url)
        engine = make_engine(url)
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE other_app_orders (id int PRIMARY KEY, item text)"))
            conn.execute(text("INSERT INTO other_app_orders VALUES (1, 'before the backup')"))
        engine.dispose()
        dump = tmp_path / "shared.backup"
        backup(url, dump)
        engine = make_engine(url)
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO other_app_orders VALUES (2, 'after the backup')"))
            conn.execute(text("DELETE FROM plan"))
        engine.dispose()
        restore(url, dump)
        engine = make_engine(url)
        with engine.connect() as conn:
            items = conn.execute(text("SELECT item FROM other_app_orders ORDER BY id")).all()
            plans_back = conn.execute(text("SELECT count(*) FROM plan")).scalar_one()
        engine.dispose()
        assert [i for (i,) in items] == ["before the backup", "after the backup"]
        assert plans_back == 301  # Stratagem's own tables are the backup's


@pytest.mark.postgres
def test_a_postgres_backup_that_fails_keeps_the_earlier_backup_and_leaves_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pg_dump wrote its file and then failed (a connection lost at the end): the earlier
    backup at --out is byte for byte what it was, and no `<out>.part` is left beside it.
    Before, pg_dump wrote straight to --out, so a failed dump replaced a good backup."""
    with scratch_databases("postgres", tmp_path) as create:
        url = create()
        populate(url)
        out = tmp_path / "nightly.backup"
        backup(url, out)
        good = out.read_bytes()
        engine = make_engine(url)
        with engine.begin() as conn:  # the next dump differs from the good one
            conn.execute(text("DELETE FROM plan WHERE id > 10"))
        engine.dispose()

        real = _which("pg_dump")
        broken = tmp_path / "bin" / "pg_dump"
        broken.parent.mkdir()
        broken.write_text(f'#!/bin/sh\n{real} "$@"\necho "pg_dump: error: lost" >&2\nexit 1\n')
        broken.chmod(0o755)
        monkeypatch.setenv("PATH", f"{broken.parent}{os.pathsep}{os.environ['PATH']}")
        with pytest.raises(BackupError, match="lost"):
            backup(url, out)
        assert out.read_bytes() == good
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("nightly")) == [
            "nightly.backup"
        ]


@pytest.mark.parametrize("out", ["", ".", "folder"])
def test_a_backup_needs_a_file_name(
    out: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA: `--out ""` and `--out .` ended in a traceback; a folder was a rename error."""
    url = f"sqlite:///{tmp_path / 'live.db'}"
    populate(url)
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["backup", "--out", out], env={"DATABASE_URL": url})
    assert r.exit_code == 2, r.output
    assert r.output.strip().startswith(f"error: --out {out or '.'}: name the file to write")
    assert "Traceback" not in r.output
    assert not list(tmp_path.glob("*.part")) and not list((tmp_path / "folder").iterdir())


@pytest.mark.parametrize("suffix", ["", "-wal"])
def test_a_backup_over_the_database_itself_is_refused(suffix: str, tmp_path: Path) -> None:
    """QA: `backup --out <the live database>` renamed the copy over the file a running server
    had open; the server went on writing to the unlinked old file and other processes saw the
    new one, so what either wrote was lost. Refused, and the database is untouched."""
    live = tmp_path / "live.db"
    url = f"sqlite:///{live}"
    populate(url)
    before = snapshot(url)
    runner = CliRunner()
    r = runner.invoke(cli, ["backup", "--out", f"{live}{suffix}"], env={"DATABASE_URL": url})
    assert r.exit_code == 2, r.output
    assert (
        r.output.strip()
        == f"error: --out {live}{suffix} is the database itself; write the backup to another file"
    )
    assert snapshot(url) == before
    r = runner.invoke(cli, ["restore", str(live)], env={"DATABASE_URL": url})
    assert r.exit_code == 2 and "is the database itself, not a backup of it" in r.output
    r = runner.invoke(cli, ["restore", str(tmp_path)], env={"DATABASE_URL": url})
    assert r.exit_code == 2 and f"{tmp_path} is a folder, not a backup file" in r.output
    assert snapshot(url) == before


def test_a_backup_over_an_earlier_one_says_it_replaced_it(db_url: str, tmp_path: Path) -> None:
    # QA: `stratagem backup --out` overwrote an earlier backup without a word.
    prepare_database(Settings(DATABASE_URL=db_url, STRATAGEM_SECRET_KEY="b"), echo=lambda _: None)
    runner = CliRunner()
    env = {"DATABASE_URL": db_url}
    out = tmp_path / "nightly.backup"
    first = runner.invoke(cli, ["backup", "--out", str(out)], env=env)
    assert first.exit_code == 0 and "replaced" not in first.output
    again = runner.invoke(cli, ["backup", "--out", str(out)], env=env)
    assert again.exit_code == 0, again.output
    assert again.output.rstrip().endswith("; it replaced the backup that was there")
