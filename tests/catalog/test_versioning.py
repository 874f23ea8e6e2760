"""Versioned price lists: a quote priced with list A keeps A's prices whatever happens next."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlmodel import Session, select

from app.catalog import service
from app.catalog.models import AuditEntry, PriceList, PriceListUpdate, RentalOffer
from app.catalog.shipped import shipped_price_book

from .helpers import catalog_counts

X1 = "stratagem-tpe-h100-x1"  # seed 003 T8: NT$50,000 per month


def _current(session: Session) -> PriceList:
    pl = service.current_price_list(session=session)
    assert pl is not None and pl.id is not None
    return pl


def _offer_price(book: object, offer_id: str = X1) -> float:
    return next(o.monthly_price for o in book.offers if o.id == offer_id)  # type: ignore[attr-defined]


def _set_price(session: Session, price_list_id: int, price: float) -> None:
    row = service.get_row(session=session, kind_name="offers", price_list_id=price_list_id, key=X1)
    values = service.row_values(service.kind("offers"), row) | {"monthly_price": price}
    data = service.validate_row(kind_name="offers", values=values)
    service.update_row(
        session=session, kind_name="offers", price_list_id=price_list_id, key=X1, data=data,
        actor="t",
    )  # fmt: skip


def test_a_new_list_starts_as_a_copy_of_the_current_one(session: Session) -> None:
    a = _current(session)
    assert a.id is not None
    b = service.new_price_list_from(
        session=session, source_id=a.id, name="2027-01", effective_date=date(2027, 1, 1),
        actor="alice",
    )  # fmt: skip
    assert b.status == "draft" and b.created_by == "alice" and b.id is not None
    assert service.counts(session=session, price_list_id=b.id) == service.counts(
        session=session, price_list_id=a.id
    )
    book_a = service.price_book_for(session=session, price_list_id=a.id)
    book_b = service.price_book_for(session=session, price_list_id=b.id)
    assert (book_b.offers, book_b.cloud, book_b.servers, book_b.energy, book_b.fx, book_b.buy) == (
        book_a.offers, book_a.cloud, book_a.servers, book_a.energy, book_a.fx, book_a.buy,
    )  # fmt: skip
    assert _current(session).id == a.id  # a draft is never current


def test_a_quote_keeps_the_prices_of_its_list(session: Session) -> None:
    """A plan stores price_list_id; it reads A's prices after B is published with new ones."""
    a = _current(session)
    assert a.id is not None
    quoted_with = a.id  # what a plan records
    before = service.price_book_for(session=session, price_list_id=quoted_with)
    b = service.new_price_list_from(
        session=session, source_id=a.id, name="B", effective_date=date.today(), actor="t"
    )
    assert b.id is not None
    _set_price(session, b.id, 55_000)
    service.publish_price_list(session=session, price_list_id=b.id, actor="t")

    assert _current(session).id == b.id
    current = service.current_price_book(session=session)
    assert current is not None and _offer_price(current) == 55_000
    service.clear_cache()  # not the cache: the database keeps A as it was
    after = service.price_book_for(session=session, price_list_id=quoted_with)
    assert after == before and _offer_price(after) == 50_000


def test_published_lists_are_frozen(session: Session) -> None:
    a = _current(session)
    assert a.id is not None
    counts = catalog_counts(session)
    with pytest.raises(service.Conflict):
        _set_price(session, a.id, 1)
    with pytest.raises(service.Conflict):
        service.delete_row(
            session=session, kind_name="offers", price_list_id=a.id, key=X1, actor="t"
        )
    with pytest.raises(service.Conflict):
        service.update_price_list(
            session=session, price_list_id=a.id, data=PriceListUpdate(name="x"), actor="t"
        )
    with pytest.raises(service.Conflict):
        service.delete_price_list(session=session, price_list_id=a.id, actor="t")
    session.rollback()
    assert catalog_counts(session) == counts
    assert _offer_price(service.price_book_for(session=session, price_list_id=a.id)) == 50_000


def test_current_is_the_latest_published_list_in_effect(session: Session) -> None:
    a = _current(session)
    assert a.id is not None
    today = date(2027, 6, 1)
    future = service.new_price_list_from(
        session=session, source_id=a.id, name="future", effective_date=today + timedelta(days=30),
        actor="t",
    )  # fmt: skip
    assert future.id is not None
    service.publish_price_list(session=session, price_list_id=future.id, actor="t")
    assert service.current_price_list(session=session, today=today).id == a.id
    in_effect = service.current_price_list(session=session, today=today + timedelta(days=30))
    assert in_effect is not None and in_effect.id == future.id
    # Before every published list's date, none is current: a list published for later is not
    # in effect before its date (the pages and the API price with the shipped catalog).
    assert service.current_price_list(session=session, today=date(2020, 1, 1)) is None
    service.archive_price_list(session=session, price_list_id=future.id, actor="t")
    later = service.current_price_list(session=session, today=today + timedelta(days=60))
    assert later is not None and later.id == a.id  # archived lists are never current


def test_the_price_book_cache_follows_revisions(session: Session) -> None:
    a = _current(session)
    assert a.id is not None
    draft = service.new_price_list_from(
        session=session, source_id=a.id, name="draft", effective_date=date(2027, 1, 1), actor="t"
    )
    assert draft.id is not None
    first = service.price_book_for(session=session, price_list_id=draft.id)
    assert service.price_book_for(session=session, price_list_id=draft.id) is first  # cached
    _set_price(session, draft.id, 42_000)
    second = service.price_book_for(session=session, price_list_id=draft.id)
    assert second is not first and _offer_price(second) == 42_000
    assert service.current_price_book(session=session) == shipped_price_book()


def test_deleting_a_draft_removes_its_rows_only(session: Session) -> None:
    a = _current(session)
    assert a.id is not None
    before = catalog_counts(session)
    draft = service.new_price_list_from(
        session=session, source_id=a.id, name="tmp", effective_date=date(2027, 1, 1), actor="t"
    )
    assert draft.id is not None
    service.delete_price_list(session=session, price_list_id=draft.id, actor="t")
    assert catalog_counts(session) == before
    rows = session.exec(select(RentalOffer).where(RentalOffer.price_list_id == draft.id)).all()
    assert rows == []


def test_every_change_is_audited(session: Session) -> None:
    a = _current(session)
    assert a.id is not None
    draft = service.new_price_list_from(
        session=session, source_id=a.id, name="audited", effective_date=date(2027, 1, 1),
        actor="bob",
    )  # fmt: skip
    assert draft.id is not None
    _set_price(session, draft.id, 51_000)
    entries = service.list_audit(session=session, price_list_id=draft.id)
    update = next(e for e in entries if e.action == "update")
    assert update.entity == "offers" and update.entity_key == X1 and update.actor == "t"
    assert update.before is not None and update.before["monthly_price"] == 50_000
    assert update.after is not None and update.after["monthly_price"] == 51_000
    copy = next(e for e in entries if e.action == "copy")
    assert copy.actor == "bob"
    assert session.exec(select(AuditEntry).where(AuditEntry.action == "load")).first()


def test_rows_validate_like_the_import(session: Session) -> None:
    a = _current(session)
    assert a.id is not None
    draft = service.new_price_list_from(
        session=session, source_id=a.id, name="v", effective_date=date(2027, 1, 1), actor="t"
    )
    values = {"id": "bad", "provider": "p", "gpu_id": "h100-sxm-80gb", "gpu_count": "1",
              "monthly_price": "-5", "currency": "EUR", "source": "s"}  # fmt: skip
    with pytest.raises(service.InvalidRow) as e:
        service.validate_row(kind_name="offers", values=values)
    assert e.value.errors["monthly_price"] == "must be ≥ 0 (got -5)"
    assert "TWD, USD" in e.value.errors["currency"]
    data = service.validate_row(
        kind_name="offers", values=values | {"monthly_price": "5", "currency": "TWD"}
    )
    service.create_row(
        session=session, kind_name="offers", price_list_id=draft.id, data=data, actor="t"
    )
    with pytest.raises(service.InvalidRow, match="already exists"):
        service.create_row(
            session=session, kind_name="offers", price_list_id=draft.id, data=data, actor="t"
        )
    unknown = service.validate_row(kind_name="offers", values=values | {
        "id": "other", "monthly_price": "5", "currency": "TWD", "gpu_id": "h900"})  # fmt: skip
    with pytest.raises(service.InvalidRow, match="not a known GPU"):
        service.create_row(
            session=session, kind_name="offers", price_list_id=draft.id, data=unknown, actor="t"
        )


def test_a_gpu_in_use_cannot_be_deleted(session: Session) -> None:
    with pytest.raises(service.Conflict, match="still used"):
        service.delete_row(
            session=session, kind_name="gpus", price_list_id=None, key="h100-sxm-80gb", actor="t"
        )


@pytest.mark.parametrize(("count", "ok"), [("2.5", False), ("1.5", False), ("8", True),
                                           ("0.25", True), ("0.5", True), ("0.143", True),
                                           ("0.3", False)])  # fmt: skip
def test_an_offer_is_whole_gpus_or_a_mig_slice(count: str, ok: bool) -> None:
    """QA saved an offer of 2.5 H100s in a draft list and the audit recorded 2.0 → 2.5: no
    machine holds half a GPU; a slice of one (MIG 1/4 = 0.25, seed 003 T8; A100's 1/7 typed
    0.143) is the exception, and 0.3 of a GPU is no slice (QA: saved, then never priced)."""
    values = {"id": "x", "provider": "p", "gpu_id": "h100-sxm-80gb", "gpu_count": count,
              "monthly_price": "5", "currency": "TWD", "source": "s"}  # fmt: skip
    if ok:
        assert service.validate_row(kind_name="offers", values=values).gpu_count == float(count)
        return
    with pytest.raises(service.InvalidRow) as e:
        service.validate_row(kind_name="offers", values=values)
    assert e.value.errors["gpu_count"] == (
        f"must be a whole number of GPUs, or a MIG slice from 1/2 to 1/8 (got {count})"
    )
