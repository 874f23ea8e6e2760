"""Price books (what the cost engine consumes) of stored lists, cached per (database, list,
revision, GPU-spec change)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Final

from sqlalchemy import func
from sqlmodel import Session, select

from app.catalog.kinds import KINDS
from app.catalog.models import AuditEntry, PriceList
from app.catalog.price_book import BOOK_KINDS, build_price_book
from app.catalog.service.errors import NotFound
from app.catalog.service.rows import gpus_for, list_rows, row_values
from app.catalog.service.versions import current_price_list, get_price_list
from app.engine import price_book as engine

_CACHE_SIZE: Final = 32
_books: OrderedDict[tuple[Any, ...], engine.PriceBook] = OrderedDict()
_books_lock = threading.Lock()


def database_key(session: Session) -> str:
    """The database a session reads (its URL): the part of an in-process cache's key that
    keeps two databases' lists of the same id and revision apart."""
    bind = session.get_bind()
    return str(getattr(bind, "url", id(bind)))


def _book_key(session: Session, pl: PriceList) -> tuple[Any, ...]:
    # GPU specs are shared by every list: their latest audit entry is part of the key, so an
    # edited or added GPU reaches the planner on the next estimate.
    gpu_stamp = session.exec(
        select(func.max(AuditEntry.id)).where(AuditEntry.entity == "gpus")
    ).one()
    return (
        database_key(session),
        pl.id,
        pl.revision,
        str(pl.updated_at),
        gpu_stamp,
    )


def price_book_for(*, session: Session, price_list_id: int) -> engine.PriceBook:
    """The list as an engine `PriceBook`; built once per revision, then served from memory."""
    pl = get_price_list(session=session, price_list_id=price_list_id)
    return _price_book(session, pl)


def price_book_if_any(*, session: Session, price_list_id: int | None) -> engine.PriceBook | None:
    """`price_book_for`, or None when there is no id or the list is gone (a plan whose price
    list was deleted still quotes, without list prices)."""
    if price_list_id is None:
        return None
    try:
        return price_book_for(session=session, price_list_id=price_list_id)
    except NotFound:
        return None


def current_price_book(*, session: Session) -> engine.PriceBook | None:
    """The current list's `PriceBook` (one small query per call), or None for an empty catalog."""
    pl = current_price_list(session=session)
    return _price_book(session, pl) if pl is not None else None


def _price_book(session: Session, pl: PriceList) -> engine.PriceBook:
    key = _book_key(session, pl)
    with _books_lock:
        book = _books.get(key)
        if book is not None:
            _books.move_to_end(key)
            return book
    book = stored_price_book(session=session, pl=pl)
    with _books_lock:
        _books[key] = book
        while len(_books) > _CACHE_SIZE:
            _books.popitem(last=False)
    return book


def stored_price_book(*, session: Session, pl: PriceList) -> engine.PriceBook:
    """Read every row of `pl` into the engine's dataclasses (no cache)."""
    assert pl.id is not None
    rows = {
        name: [
            row_values(KINDS[name], r)
            for r in list_rows(session=session, kind_name=name, price_list_id=pl.id)
        ]
        for name in BOOK_KINDS
    }
    return build_price_book(
        name=pl.name,
        effective_date=pl.effective_date,
        currency=pl.currency,
        rows=rows,
        gpus=gpus_for(session=session, price_list_id=pl.id),
    )


def clear_cache() -> None:
    """Forget every cached price book (`service.clear_cache` forgets the comparisons too)."""
    with _books_lock:
        _books.clear()
