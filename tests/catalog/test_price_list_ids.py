"""A deleted price list's id is never handed out again.

QA of stop 30: on SQLite, deleting the newest draft and creating another gave the new list
the deleted one's id (a rowid table without AUTOINCREMENT takes max(id) + 1), so the audit
trail, which is keyed by `price_list_id`, showed the deleted draft's history as the new
list's. Migration 0012 makes the table AUTOINCREMENT and starts its sequence past every id
the audit trail has seen; PostgreSQL's sequence never reused one.
"""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from app.catalog import service
from app.catalog.models import AuditEntry, PriceListCreate, RentalOffer
from app.db import make_engine, migrate

from .conftest import BACKENDS, PgServer


def _url(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'ids.db'}"
    pg: PgServer = request.getfixturevalue("pg_server")
    return pg.create()


def _draft(s: Session, name: str) -> int:
    data = PriceListCreate(name=name, effective_date=date(2026, 12, 1), currency="TWD")
    pl = service.create_price_list(session=s, data=data, actor="admin@example.com")
    assert pl.id is not None
    return pl.id


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_newest_draft_deleted_its_id_is_not_given_to_the_next_list(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> None:
    url = _url(request, backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    try:
        with Session(engine) as s:
            first = _draft(s, "Draft A")
            gone = _draft(s, "Draft B")
            service.delete_price_list(session=s, price_list_id=gone, actor="admin@example.com")
            after = _draft(s, "Draft C")
            assert after > gone > first
            # the new list's trail is its own: one 'create', nothing of the deleted draft
            trail = s.exec(select(AuditEntry).where(AuditEntry.price_list_id == after)).all()
            assert [(e.action, e.entity_key) for e in trail] == [("create", "Draft C")]
    finally:
        engine.dispose()


def test_an_existing_database_keeps_its_rows_and_skips_ids_deleted_before_the_upgrade(
    tmp_path: Path,
) -> None:
    """Upgraded from 0011 with the shipped catalog and a deleted newest draft: every row that
    references a list is still there, and the next list gets an id past the deleted one."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    migrate(url, "0011_login_attempt_checked")
    engine = make_engine(url)
    with Session(engine) as s:
        service.load_shipped(session=s, actor="setup")
        gone = _draft(s, "Deleted before the upgrade")
        service.delete_price_list(session=s, price_list_id=gone, actor="admin@example.com")
        offers = s.exec(select(func.count()).select_from(RentalOffer)).one()
    engine.dispose()
    assert offers > 0

    migrate(url)
    with sqlite3.connect(tmp_path / "old.db") as raw:
        (table_sql,) = raw.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'price_list'"
        ).fetchone()
        assert "AUTOINCREMENT" in table_sql
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
    engine = make_engine(url)
    try:
        with Session(engine) as s:
            assert s.exec(select(func.count()).select_from(RentalOffer)).one() == offers
            assert _draft(s, "After the upgrade") == gone + 1
    finally:
        engine.dispose()
