"""The price list the web pages quote from: the catalog's current one, else the shipped one."""

from __future__ import annotations

from sqlmodel import Session
from starlette.requests import Request

from app.catalog.service import current_price_book
from app.catalog.shipped import shipped_price_book
from app.engine.price_book import PriceBook


def price_book(request: Request) -> PriceBook:
    """The catalog's current price list, or the shipped one when the database has none;
    worked out once per request. Database errors are not caught."""
    cached = getattr(request.state, "price_book", None)
    if isinstance(cached, PriceBook):
        return cached
    with Session(request.app.state.engine) as session:
        book = current_price_book(session=session)
    if book is None:
        book = shipped_price_book()
    request.state.price_book = book
    return book
