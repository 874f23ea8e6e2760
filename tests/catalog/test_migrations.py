"""Migrations: an empty database goes to head and back to base; the models match head."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, func, select

import app.tables  # noqa: F401  (every table on SQLModel.metadata)
from app.catalog.models import Gpu, PriceList, RentalOffer
from app.db import alembic_config, downgrade, make_engine, migrate

from .conftest import BACKENDS, PgServer

CATALOG_TABLES = {
    "price_list",
    "gpu",
    "gpu_price",
    "server_sku",
    "rental_offer",
    "cloud_instance",
    "energy_price",
    "buy_parameters",
    "fx_rate",
    "audit_entry",
}


def _new_empty(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.db'}"
    pg: PgServer = request.getfixturevalue("pg_server")
    return pg.create()


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrade_to_head_and_down_to_base(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> None:
    url = _new_empty(request, backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    try:
        tables = set(inspect(engine).get_table_names())
        assert CATALOG_TABLES <= tables
        downgrade(url, "base")
        engine.dispose()
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        migrate(url)  # and up again: downgrade left nothing behind that blocks it
        assert CATALOG_TABLES <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_models_have_no_pending_autogenerate_diff(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> None:
    url = _new_empty(request, backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(
                conn, opts={"compare_type": True, "render_as_batch": True}
            )
            diff = compare_metadata(ctx, SQLModel.metadata)
        assert diff == [], f"models differ from the migrations: {diff}"
    finally:
        engine.dispose()


def test_first_revision_is_the_catalog() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    base = script.get_revision("0001_catalog")
    assert base is not None and base.down_revision is None


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fk.db'}"
    migrate(url)
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_price_rows_need_their_list_and_go_with_it(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> None:
    """FKs are enforced: no row without its list (or GPU); deleting a list cascades."""
    url = _new_empty(request, backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    offer = {
        "id": "x", "provider": "p", "gpu_id": "nope", "gpu_count": 1, "monthly_price": 1,
        "currency": "TWD", "source": "test",
    }  # fmt: skip
    try:
        with Session(engine) as s:
            s.add(RentalOffer(**offer, price_list_id=999))
            with pytest.raises(IntegrityError):
                s.commit()
            s.rollback()
            pl = PriceList(name="fk", effective_date=date(2026, 1, 1))
            s.add(pl)
            s.commit()
            s.add(RentalOffer(**offer, price_list_id=pl.id))
            with pytest.raises(IntegrityError):  # unknown GPU
                s.commit()
            s.rollback()
        with Session(engine) as s:
            s.add(
                Gpu(
                    id="nope", name="n", vendor="v", generation="g", memory_gb=1,
                    bandwidth_gbs=1, bf16_tflops=1, fp32_tflops=1, tdp_w=1, form_factor="pcie",
                    nvlink_gbs=0, pcie_gbs=64, gpus_per_node=1, launch_year=2024, source="t",
                )
            )  # fmt: skip
            pl = s.exec(select(PriceList)).one()
            s.add(RentalOffer(**offer, price_list_id=pl.id))
            s.commit()
            s.delete(pl)
            s.commit()
            assert s.exec(select(func.count()).select_from(RentalOffer)).one() == 0
    finally:
        engine.dispose()
