"""Price lists: their API views, and create / copy / update / publish / archive / delete."""

from __future__ import annotations

from datetime import date
from typing import Final

from pydantic import ValidationError
from sqlalchemy import func
from sqlmodel import Session, select

from app.catalog import io
from app.catalog.kinds import KINDS, ORDER
from app.catalog.models import (
    BuyParametersPublic,
    EnergyPricePublic,
    FxRatePublic,
    PriceList,
    PriceListCreate,
    PriceListDetail,
    PriceListPublic,
    PriceListUpdate,
    ServerSkuPublic,
)
from app.catalog.service.audit import commit, price_list_dict, record
from app.catalog.service.errors import Conflict, InvalidRow
from app.catalog.service.rows import (
    cloud_public,
    gpus_public,
    list_rows,
    offers_public,
    table_column,
)
from app.catalog.service.versions import (
    current_price_list,
    get_price_list,
    hold_price_list,
    list_price_lists,
    require_draft,
    resolve_price_list,
    touch,
    unique_name,
)
from app.i18n import N_
from app.i18n import gettext as _


def counts(*, session: Session, price_list_id: int) -> dict[str, int]:
    """Rows per kind in the list (`gpus` counts every GPU spec)."""
    out: dict[str, int] = {}
    for name in ORDER:
        k = KINDS[name]
        stmt = select(func.count()).select_from(k.table)
        if k.scoped:
            stmt = stmt.where(table_column(k, "price_list_id") == price_list_id)
        out[name] = int(session.exec(stmt).one())
    return out


def price_list_public(
    *, session: Session, pl: PriceList, current_id: int | None, with_counts: bool = True
) -> PriceListPublic:
    assert pl.id is not None
    data = pl.model_dump()
    data["is_current"] = pl.id == current_id
    data["counts"] = counts(session=session, price_list_id=pl.id) if with_counts else {}
    return PriceListPublic.model_validate(data)


def price_lists_public(*, session: Session) -> list[PriceListPublic]:
    current = current_price_list(session=session)
    cid = current.id if current else None
    return [
        price_list_public(session=session, pl=pl, current_id=cid)
        for pl in list_price_lists(session=session)
    ]


def price_list_detail(*, session: Session, price_list_id: int | None) -> PriceListDetail:
    """A list with every row (the API's GET /price-lists/{id})."""
    pl = resolve_price_list(session=session, price_list_id=price_list_id)
    current = current_price_list(session=session)
    head = price_list_public(session=session, pl=pl, current_id=current.id if current else None)
    assert pl.id is not None
    buy = list_rows(session=session, kind_name="buy", price_list_id=pl.id)
    return PriceListDetail(
        **head.model_dump(),
        gpus=gpus_public(session=session, price_list_id=pl.id),
        servers=[
            ServerSkuPublic.model_validate(r, from_attributes=True)
            for r in list_rows(session=session, kind_name="servers", price_list_id=pl.id)
        ],
        offers=offers_public(session=session, price_list_id=pl.id),
        cloud=cloud_public(session=session, price_list_id=pl.id),
        energy=[
            EnergyPricePublic.model_validate(r, from_attributes=True)
            for r in list_rows(session=session, kind_name="energy", price_list_id=pl.id)
        ],
        buy=BuyParametersPublic.model_validate(buy[0], from_attributes=True) if buy else None,
        fx=[
            FxRatePublic.model_validate(r, from_attributes=True)
            for r in list_rows(session=session, kind_name="fx", price_list_id=pl.id)
        ],
    )


def create_price_list(*, session: Session, data: PriceListCreate, actor: str) -> PriceList:
    """An empty draft."""
    unique_name(session, data.name)
    pl = PriceList(**data.model_dump(), status="draft", created_by=actor)
    session.add(pl)
    session.flush()
    record(session, actor, "create", "price_lists", pl.name, pl.id, None, price_list_dict(pl))
    return commit(session, pl)


def new_price_list_from(
    *,
    session: Session,
    source_id: int,
    name: str,
    effective_date: date,
    actor: str,
    notes: str = "",
    source: str = "",
) -> PriceList:
    """A new draft holding a copy of every row of list `source_id`."""
    src = get_price_list(session=session, price_list_id=source_id)
    try:
        head = PriceListCreate(
            name=name,
            effective_date=effective_date,
            currency=src.currency,
            # in the language of the admin who copied it (QA: English from the 中文 page)
            notes=notes or _("Copy of %(name)s") % {"name": src.name},
            source=source or src.source,
        )
    except ValidationError as e:
        raise InvalidRow(io.field_errors(e)) from None
    unique_name(session, head.name)
    pl = PriceList(**head.model_dump(), status="draft", created_by=actor)
    session.add(pl)
    session.flush()
    assert pl.id is not None and src.id is not None
    copied = 0
    for name_ in ORDER:
        k = KINDS[name_]
        if not k.scoped:
            continue
        for row in list_rows(session=session, kind_name=name_, price_list_id=src.id):
            values = {c: getattr(row, c) for c in k.columns}
            session.add(k.table(**values, price_list_id=pl.id))
            copied += 1
    record(
        session,
        actor,
        "copy",
        "price_lists",
        pl.name,
        pl.id,
        None,
        {**price_list_dict(pl), "copied_from": src.id, "rows": copied},
        summary=f"copied {copied} rows from {src.name!r}",
    )
    return commit(session, pl)


def update_price_list(
    *, session: Session, price_list_id: int, data: PriceListUpdate, actor: str
) -> PriceList:
    pl = require_draft(session, price_list_id)
    before = price_list_dict(pl)
    changes = data.model_dump(exclude_unset=True, exclude_none=True)
    if "name" in changes and changes["name"] != pl.name:
        unique_name(session, changes["name"])
    pl.sqlmodel_update(changes)
    touch(pl)
    record(session, actor, "update", "price_lists", pl.name, pl.id, before, price_list_dict(pl))
    return commit(session, pl)


#: What a list sells: a published list holds at least one of these.
PRICED_KINDS: Final = ("offers", "cloud", "servers")
EMPTY_LIST: Final = N_(
    "“%(name)s” has no rental offers, cloud instances or servers: published, it would price "
    "nothing. Add rows, or copy a list, before publishing it."
)


def publish_price_list(*, session: Session, price_list_id: int, actor: str) -> PriceList:
    """draft → published: frozen from now on; current once its effective date comes.
    Publishing a list already published changes nothing (a double click)."""
    pl = hold_price_list(session, price_list_id)
    if pl.status == "published":
        session.rollback()
        return pl
    pl = require_draft(session, price_list_id, hold=False)  # held above
    assert pl.id is not None
    n = counts(session=session, price_list_id=pl.id)
    if not any(n.get(kind, 0) for kind in PRICED_KINDS):
        # Published and current, an empty list priced nothing: every page fell back to
        # "quoted per project" and NT$0 bars (QA). A list must price something to be sold from.
        session.rollback()
        raise Conflict(EMPTY_LIST, field="price_list_id", where="path", name=pl.name)
    before = price_list_dict(pl)
    pl.status = "published"
    touch(pl)
    record(session, actor, "publish", "price_lists", pl.name, pl.id, before, price_list_dict(pl))
    return commit(session, pl)


def archive_price_list(*, session: Session, price_list_id: int, actor: str) -> PriceList:
    """published → archived: kept for the plans priced with it, never current again."""
    pl = hold_price_list(session, price_list_id)
    if pl.status == "archived":  # archived already (a double click): nothing to do
        session.rollback()
        return pl
    if pl.status != "published":
        raise Conflict(f"only a published list can be archived ({pl.name!r} is {pl.status})")
    before = price_list_dict(pl)
    pl.status = "archived"
    touch(pl)
    record(session, actor, "archive", "price_lists", pl.name, pl.id, before, price_list_dict(pl))
    return commit(session, pl)


def delete_price_list(*, session: Session, price_list_id: int, actor: str) -> None:
    """Delete a draft and its rows (published lists stay: plans may quote from them)."""
    pl = require_draft(session, price_list_id)
    before = price_list_dict(pl)
    record(session, actor, "delete", "price_lists", pl.name, pl.id, before, None)
    session.delete(pl)
    session.commit()
