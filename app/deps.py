"""FastAPI dependencies as `Annotated` aliases, in one place."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session

from app.engine.price_book import PriceBook
from app.settings import Settings


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_session(request: Request) -> Iterator[Session]:
    with Session(request.app.state.engine) as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]


def current_prices(request: Request) -> PriceBook | None:
    """The price list estimates are priced with: the catalog's current list, else (an empty
    catalog, or no published list in effect yet) the shipped one, as the pages price
    (`app.catalog.current.price_book`). Cached per list revision: one small query a call."""
    from sqlalchemy.exc import OperationalError, ProgrammingError
    from sqlmodel import Session

    from app.catalog.service import current_price_book
    from app.catalog.shipped import shipped_price_book

    try:
        with Session(request.app.state.engine) as session:
            book = current_price_book(session=session)
    except (OperationalError, ProgrammingError):
        # A database not migrated yet (no catalog tables): estimate without prices.
        return None
    return book if book is not None else shipped_price_book()


PriceBookDep = Annotated[PriceBook | None, Depends(current_prices)]
