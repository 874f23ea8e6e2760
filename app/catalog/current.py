"""The price list the web pages quote from: the catalog's current one, else the shipped one."""

from __future__ import annotations

from sqlmodel import Session
from starlette.requests import Request

from app.catalog.service import current_price_book
from app.catalog.shipped import shipped_price_book
from app.engine.price_book import PriceBook


def book_in_effect(session: Session) -> PriceBook:
    """The price list estimates are priced with: the latest published list in effect today,
    else (an empty catalog, or no published list in effect yet) the shipped one. The one
    rule the pages (`price_book`) and the API (`app.deps.current_prices`) both follow."""
    book = current_price_book(session=session)
    return book if book is not None else shipped_price_book()


def price_book(request: Request) -> PriceBook:
    """`book_in_effect`, worked out once per request. Database errors are not caught."""
    cached = getattr(request.state, "price_book", None)
    if isinstance(cached, PriceBook):
        return cached
    with Session(request.app.state.engine) as session:
        book = book_in_effect(session)
    request.state.price_book = book
    return book
