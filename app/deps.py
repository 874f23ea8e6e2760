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
    """The price list estimates are priced with (`app.catalog.current.book_in_effect`);
    None for a database not migrated yet. Cached per list revision: one small query a call."""
    from sqlalchemy.exc import OperationalError, ProgrammingError
    from sqlmodel import Session

    from app.catalog.current import book_in_effect

    try:
        with Session(request.app.state.engine) as session:
            return book_in_effect(session)
    except (OperationalError, ProgrammingError):
        # A database not migrated yet (no catalog tables): estimate without prices.
        return None


PriceBookDep = Annotated[PriceBook | None, Depends(current_prices)]
