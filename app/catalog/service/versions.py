"""Which price list is which: look-ups, the current list, and the versioning rules every
change obeys (only a draft changes; a change bumps its `revision`)."""

from __future__ import annotations

from datetime import date

from sqlmodel import Session, col, select

from app import text
from app.catalog.models import PriceList, utcnow
from app.catalog.service.errors import Conflict, InvalidRow, NotFound
from app.dates import business_today
from app.db import hold_row
from app.i18n import N_
from app.i18n import gettext as _


def list_price_lists(*, session: Session) -> list[PriceList]:
    """Every price list, newest effective date first."""
    stmt = select(PriceList).order_by(
        col(PriceList.effective_date).desc(), col(PriceList.id).desc()
    )
    return list(session.exec(stmt))


def get_price_list(*, session: Session, price_list_id: int) -> PriceList:
    pl = session.get(PriceList, price_list_id)
    if pl is None:
        raise NotFound(N_("no price list %(id)s"), field="price_list", id=price_list_id)
    return pl


def current_price_list(*, session: Session, today: date | None = None) -> PriceList | None:
    """The latest published list in effect `today`, or None when none is yet.

    A list published with a later effective date is not current before that date (QA: with
    the current list archived, a list published for June 2027 priced quotes in December 2026,
    while its publish dialog said "becomes current on Jun 1, 2027" and the archive notice
    said pages would price with the shipped catalog, as they now do)."""
    today = today or business_today()
    stmt = (
        select(PriceList)
        .where(PriceList.status == "published", PriceList.effective_date <= today)
        .order_by(col(PriceList.effective_date).desc(), col(PriceList.id).desc())
        .limit(1)
    )
    return session.exec(stmt).first()


def resolve_price_list(*, session: Session, price_list_id: int | None) -> PriceList:
    """The list `price_list_id`, or the current one when None (404 when there is none)."""
    if price_list_id is not None:
        return get_price_list(session=session, price_list_id=price_list_id)
    pl = current_price_list(session=session)
    if pl is None:
        raise NotFound("no published price list is in effect today", field="price_list")
    return pl


def hold_price_list(session: Session, price_list_id: int) -> PriceList:
    """The list `price_list_id` as it is now, held until the caller's transaction ends (a
    no-op UPDATE of its row: a row lock on PostgreSQL, SQLite's write lock); NotFound."""
    pl: PriceList | None = hold_row(session, PriceList, price_list_id, PriceList.revision)
    if pl is None:
        raise NotFound(N_("no price list %(id)s"), field="price_list", id=price_list_id)
    return pl


def require_draft(session: Session, price_list_id: int, *, hold: bool = True) -> PriceList:
    """The draft `price_list_id`; NotFound, or a Conflict when it is published or archived.

    `hold` (every change; a preview passes False): the check starts with a conditional
    UPDATE of the list's row ("still a draft"), the first write of the caller's transaction,
    so the list stays held until that transaction ends — a row lock on PostgreSQL, the write
    lock on SQLite. A publish, delete, edit or import of the same list sent meanwhile waits,
    then finds what this one left: a list published or deleted in between is a 409 or 404
    here, never a change to frozen prices nor a 500. Race QA, before: an edit committed
    after a publish in 6–18 of 20 rounds, a delete committed after a publish, and a delete
    racing an edit ended in StaleDataError, a foreign-key IntegrityError or, on PostgreSQL,
    a deadlock."""
    pl = (
        hold_price_list(session, price_list_id)
        if hold
        else get_price_list(session=session, price_list_id=price_list_id)
    )
    if pl.status != "draft":
        raise Conflict(
            N_(
                "price list “%(name)s” is %(status)s: its prices are frozen for the plans "
                "quoted from it. Start a new draft from it and change that."
            ),
            field="price_list",
            name=pl.name,
            status=_(pl.status),
        )
    return pl


#: The longest price-list name (the `price_list.name` column).
NAME_MAX = 100


def check_new_draft_name(session: Session, name: str) -> str:
    """The name asked for a new draft, stripped ('' for none: the import picks one), or
    `InvalidRow` naming `name`: a control or text-direction character (QA: an import named
    "\u202eabc" was saved, and every price-list page and listing answered 500 from then on),
    more than `NAME_MAX` characters, or a name another list has."""
    name = name.strip()
    if not name:
        return ""
    bad = text.problem(name)
    if bad:
        raise InvalidRow({"name": bad})
    if len(name) > NAME_MAX:
        raise InvalidRow({"name": _("at most %(n)s characters") % {"n": NAME_MAX}})
    unique_name(session, name)
    return name


def unique_name(session: Session, name: str) -> None:
    if session.exec(select(PriceList.id).where(PriceList.name == name)).first() is not None:
        raise InvalidRow(
            {"name": _("a price list called “%(name)s” already exists") % {"name": name}}
        )


def touch(pl: PriceList) -> None:
    pl.revision = (pl.revision or 0) + 1
    pl.updated_at = utcnow()
