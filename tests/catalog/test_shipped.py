"""The shipped catalog: it loads into an empty database, every row carries a source, and the
database hands the cost engine exactly the prices of the files."""

from __future__ import annotations

import dataclasses

import pytest
from sqlmodel import Session, select

from app.catalog import service
from app.catalog.kinds import KINDS
from app.catalog.models import PriceList, RentalOffer
from app.catalog.shipped import shipped_document, shipped_gpus, shipped_price_book
from app.db import make_engine
from app.engine.gpus import default_gpus


def test_shipped_price_book_is_the_yaml() -> None:
    book = shipped_price_book()
    doc = shipped_document()
    assert book.name == "2026-11 list"
    assert len(book.offers) == len(doc["offers"]) and len(book.cloud) == len(doc["cloud"])
    mig = next(o for o in book.offers if o.id == "stratagem-tpe-h100-mig-1of4")
    assert mig.gpu_count == 0.25 and mig.monthly_price == 15_000  # seed 003 T8
    assert book.convert(1, "USD", "TWD") == 32.0  # PRODUCT.md §4 planning rate


def test_every_shipped_figure_has_a_source() -> None:
    book = shipped_price_book()
    rows = [*book.offers, *book.cloud, *book.servers, *book.energy, *book.fx, book.buy]
    assert all(r.source.strip() for r in rows)
    assert all(g.source.strip() for g in shipped_gpus())


def test_shipped_gpus_are_dense_figures() -> None:
    """PRODUCT.md §4: sparsity figures are never stored as dense (FP8 dense = 2× BF16)."""
    for g in shipped_gpus():
        if g.fp8_tflops:
            assert g.fp8_tflops <= 2.5 * g.bf16_tflops, g.id
    assert {g.id for g in shipped_gpus()} == {g.id for g in default_gpus()}


def test_load_into_an_empty_database(empty_db_url: str) -> None:
    engine = make_engine(empty_db_url)
    try:
        with Session(engine) as s:
            summary = service.load_shipped_if_empty(session=s)
            assert summary is not None
            assert summary.startswith(f"{len(shipped_gpus())} GPUs, 17 offers, ")
            assert service.load_shipped_if_empty(session=s) is None  # only once
            pl = service.current_price_list(session=s)
            assert pl is not None and pl.name == "2026-11 list" and pl.status == "published"
    finally:
        engine.dispose()


def test_every_loaded_row_carries_a_source(session: Session) -> None:
    for k in KINDS.values():
        rows = session.exec(select(k.table)).all()
        assert rows, k.name
        assert all(str(r.source).strip() for r in rows), k.name


def test_database_book_equals_the_shipped_book(session: Session) -> None:
    service.clear_cache()
    assert service.current_price_book(session=session) == shipped_price_book()


def test_database_gpus_equal_the_shipped_gpus(session: Session) -> None:
    pl = service.current_price_list(session=session)
    assert pl is not None and pl.id is not None
    from_db = {g.id: g for g in service.gpus_for(session=session, price_list_id=pl.id)}
    for g in shipped_gpus():
        assert dataclasses.asdict(from_db[g.id]) == pytest.approx(dataclasses.asdict(g)), g.id


def test_reload_restores_the_shipped_rows(session: Session) -> None:
    offer = session.exec(select(RentalOffer).where(RentalOffer.id == "stratagem-tpe-h100-x1")).one()
    offer.monthly_price = 1.0
    session.add(offer)
    session.commit()
    assert "already loaded" in service.load_shipped(session=session, actor="t")
    service.load_shipped(session=session, actor="t", replace=True)
    session.expire_all()
    stmt = select(RentalOffer.monthly_price).where(RentalOffer.id == "stratagem-tpe-h100-x1")
    assert session.exec(stmt).one() == 50_000  # seed 003 T8
    assert service.current_price_book(session=session) == shipped_price_book()
    assert len(session.exec(select(PriceList)).all()) == 1
