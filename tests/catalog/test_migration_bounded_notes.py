"""Migration 0009_bounded_notes on SQLite and PostgreSQL: lengths applied, over-long text the
app wrote is cut, over-long notes a person wrote stop the upgrade with the plan named, and
the downgrade goes back to unbounded columns (issue 13).

The rows are written with SQL at revision 0008 (before the limits), as an old database
would hold them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from app.db import downgrade, make_engine, migrate

from .conftest import BACKENDS, PgServer

LENGTHS = {
    ("plan", "notes"): 20_000,
    ("plan_revision", "notes"): 20_000,
    ("plan_revision", "change_summary"): 2_000,
    ("audit_entry", "actor"): 254,
    ("audit_entry", "action"): 32,
    ("audit_entry", "entity"): 32,
    ("audit_entry", "entity_key"): 200,
    ("audit_entry", "summary"): 2_000,
}


def _url(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'bounded.db'}"
    pg: PgServer = request.getfixturevalue("pg_server")
    return pg.create()


def _lengths(url: str) -> dict[tuple[str, str], int | None]:
    engine = make_engine(url)
    try:
        insp = inspect(engine)
        out = {}
        for table, column in LENGTHS:
            col = next(c for c in insp.get_columns(table) if c["name"] == column)
            out[(table, column)] = getattr(col["type"], "length", None)
        return out
    finally:
        engine.dispose()


def _seed_0008(url: str, *, notes: int, summary: int) -> None:
    """One user, one plan with one revision and one audit entry, at revision 0008."""
    engine = make_engine(url)
    try:
        with engine.begin() as c:
            c.execute(
                text(
                    "INSERT INTO app_user (id, email, name, role, password_hash, is_active, "
                    "created_at, session_nonce) VALUES (1, 'a@b.tw', 'A', 'admin', 'x', true, "
                    "CURRENT_TIMESTAMP, 'n')"
                )
            )
            c.execute(
                text(
                    "INSERT INTO plan (id, quote_number, name, customer, owner_id, status, notes, "
                    "tags, archived, version, tier, workload, result, created_at, updated_at, "
                    "decision_name, decision_title, decision_ip, decline_reason) VALUES (7, "
                    "'Q-2026-000007', 'P', '', 1, 'draft', :notes, '[]', false, 1, '', '{}', "
                    "'{}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, '', '', '', '')"
                ),
                {"notes": "n" * notes},
            )
            c.execute(
                text(
                    "INSERT INTO plan_revision (id, plan_id, version, author_id, created_at, name, "
                    "customer, status, notes, tags, archived, workload, result, change_summary) "
                    "VALUES (1, 7, 1, 1, CURRENT_TIMESTAMP, 'P', '', 'draft', 'short', '[]', "
                    "false, '{}', '{}', :summary)"
                ),
                {"summary": "s" * summary},
            )
            c.execute(
                text(
                    "INSERT INTO audit_entry (at, actor, action, entity, entity_key, summary) "
                    "VALUES (CURRENT_TIMESTAMP, :actor, 'import', 'price_lists', 'k', :summary)"
                ),
                {"actor": "a" * 300, "summary": "s" * summary},
            )
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrade_bounds_and_cuts_app_text_then_downgrade_unbounds(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> None:
    url = _url(request, backend, tmp_path)
    migrate(url, "0008_rate_limits")
    _seed_0008(url, notes=20_000, summary=5_000)  # notes at the limit: kept whole
    migrate(url, "0009_bounded_notes")
    assert _lengths(url) == LENGTHS
    engine = make_engine(url)
    try:
        with engine.connect() as c:
            assert c.execute(text("SELECT length(notes) FROM plan")).scalar() == 20_000
            summary = c.execute(text("SELECT change_summary FROM plan_revision")).scalar()
            actor, audit = c.execute(text("SELECT actor, summary FROM audit_entry")).one()
        # cut to the limit, the last character "…": 1,999 s + "…"; 253 a + "…"
        assert (len(summary), summary[-2:]) == (2_000, "s…")
        assert (len(actor), actor[-1], len(audit)) == (254, "…", 2_000)
        assert "import_upload" in inspect(engine).get_table_names()
    finally:
        engine.dispose()
    downgrade(url, "0008_rate_limits")
    assert set(_lengths(url).values()) == {None}
    engine = make_engine(url)
    try:
        assert "import_upload" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrade_stops_naming_plans_whose_notes_are_too_long(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> None:
    url = _url(request, backend, tmp_path)
    migrate(url, "0008_rate_limits")
    _seed_0008(url, notes=20_001, summary=10)
    with pytest.raises(RuntimeError, match=r"plans 7 have notes longer than 20,000"):
        migrate(url, "0009_bounded_notes")
    assert set(_lengths(url).values()) == {None}  # nothing half-done
