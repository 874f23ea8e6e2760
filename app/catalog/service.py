"""The catalog service: the only code that writes catalog rows, and the only place that commits.

Functions take keyword-only arguments (`session` first) and raise `CatalogError`s (404 /
409 / 422 with the field at fault) that the routes turn into responses. Every change writes
an `AuditEntry` in the same transaction and bumps the price list's `revision`, the key of the
in-process price-book cache.

Versioning rules
----------------
* A price list is `draft` (editable), `published` (frozen: plans quote from it) or `archived`
  (frozen, no longer current). Rows of a published list never change; a change starts with
  `new_price_list_from`, which copies every row into a new draft.
* The current list is the latest published one whose effective date has come; when every
  published list starts in the future, the soonest one (a fresh install still prices).
* GPU specifications are global (not versioned); their purchase prices are per list.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any, Final, TypeVar

from pydantic import ValidationError
from pydantic_core import to_jsonable_python
from sqlalchemy import func, or_
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, col, select

from app.catalog import io
from app.catalog.kinds import GPU_REFERENCING, KINDS, ORDER, Kind, kind
from app.catalog.models import (
    AuditEntry,
    BuyParametersPublic,
    CloudInstancePublic,
    EnergyPricePublic,
    FxRatePublic,
    Gpu,
    GpuPrice,
    GpuPublic,
    PriceList,
    PriceListCreate,
    PriceListDetail,
    PriceListPublic,
    PriceListUpdate,
    RentalOfferPublic,
    ServerSkuPublic,
    utcnow,
)
from app.catalog.shipped import shipped_document
from app.engine import price_book as engine
from app.engine.hardware import GpuSpec

SYSTEM: Final = "system"
_T = TypeVar("_T")


class CatalogError(Exception):
    """Bad input or a forbidden change; `field` names the culprit (for a 422 / inline error)."""

    status = 422

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotFound(CatalogError):
    status = 404


class Conflict(CatalogError):
    """The change contradicts the catalog's state (a published list, a GPU still in use)."""

    status = 409


class InvalidRow(CatalogError):
    """A form or API row that failed validation: `errors` maps field → message."""

    def __init__(self, errors: Mapping[str, str], *, exc: ValidationError | None = None) -> None:
        first = next(iter(errors.items()), ("", "invalid"))
        super().__init__(f"{first[0]} {first[1]}".strip(), field=first[0] or None)
        self.errors = dict(errors)
        self.exc = exc  # the pydantic error, for pages that translate the messages


# --------------------------------------------------------------------------------------------
# Price lists
# --------------------------------------------------------------------------------------------


def list_price_lists(*, session: Session) -> list[PriceList]:
    """Every price list, newest effective date first."""
    stmt = select(PriceList).order_by(
        col(PriceList.effective_date).desc(), col(PriceList.id).desc()
    )
    return list(session.exec(stmt))


def get_price_list(*, session: Session, price_list_id: int) -> PriceList:
    pl = session.get(PriceList, price_list_id)
    if pl is None:
        raise NotFound(f"no price list {price_list_id}", field="price_list")
    return pl


def current_price_list(*, session: Session, today: date | None = None) -> PriceList | None:
    """The latest published list in effect `today` (else the soonest future one), or None."""
    today = today or date.today()
    published = select(PriceList).where(PriceList.status == "published")
    stmt = (
        published.where(PriceList.effective_date <= today)
        .order_by(col(PriceList.effective_date).desc(), col(PriceList.id).desc())
        .limit(1)
    )
    pl = session.exec(stmt).first()
    if pl is None:
        stmt = published.order_by(col(PriceList.effective_date), col(PriceList.id)).limit(1)
        pl = session.exec(stmt).first()
    return pl


def resolve_price_list(*, session: Session, price_list_id: int | None) -> PriceList:
    """The list `price_list_id`, or the current one when None (404 when there is none)."""
    if price_list_id is not None:
        return get_price_list(session=session, price_list_id=price_list_id)
    pl = current_price_list(session=session)
    if pl is None:
        raise NotFound("the catalog has no published price list", field="price_list")
    return pl


def counts(*, session: Session, price_list_id: int) -> dict[str, int]:
    """Rows per kind in the list (`gpus` counts every GPU spec)."""
    out: dict[str, int] = {}
    for name in ORDER:
        k = KINDS[name]
        stmt = select(func.count()).select_from(k.table)
        if k.scoped:
            stmt = stmt.where(_col(k, "price_list_id") == price_list_id)
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
    _unique_name(session, data.name)
    pl = PriceList(**data.model_dump(), status="draft", created_by=actor)
    session.add(pl)
    session.flush()
    _audit(session, actor, "create", "price_lists", pl.name, pl.id, None, _public_dict(pl))
    return _commit(session, pl)


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
            notes=notes or f"Copy of {src.name}",
            source=source or src.source,
        )
    except ValidationError as e:
        raise InvalidRow(io.field_errors(e)) from None
    _unique_name(session, head.name)
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
    _audit(
        session,
        actor,
        "copy",
        "price_lists",
        pl.name,
        pl.id,
        None,
        {**_public_dict(pl), "copied_from": src.id, "rows": copied},
        summary=f"copied {copied} rows from {src.name!r}",
    )
    return _commit(session, pl)


def update_price_list(
    *, session: Session, price_list_id: int, data: PriceListUpdate, actor: str
) -> PriceList:
    pl = _draft(session, price_list_id)
    before = _public_dict(pl)
    changes = data.model_dump(exclude_unset=True, exclude_none=True)
    if "name" in changes and changes["name"] != pl.name:
        _unique_name(session, changes["name"])
    pl.sqlmodel_update(changes)
    _touch(pl)
    _audit(session, actor, "update", "price_lists", pl.name, pl.id, before, _public_dict(pl))
    return _commit(session, pl)


def publish_price_list(*, session: Session, price_list_id: int, actor: str) -> PriceList:
    """draft → published: frozen from now on; current once its effective date comes."""
    pl = _draft(session, price_list_id)
    before = _public_dict(pl)
    pl.status = "published"
    _touch(pl)
    _audit(session, actor, "publish", "price_lists", pl.name, pl.id, before, _public_dict(pl))
    return _commit(session, pl)


def archive_price_list(*, session: Session, price_list_id: int, actor: str) -> PriceList:
    """published → archived: kept for the plans priced with it, never current again."""
    pl = get_price_list(session=session, price_list_id=price_list_id)
    if pl.status != "published":
        raise Conflict(f"only a published list can be archived ({pl.name!r} is {pl.status})")
    before = _public_dict(pl)
    pl.status = "archived"
    _touch(pl)
    _audit(session, actor, "archive", "price_lists", pl.name, pl.id, before, _public_dict(pl))
    return _commit(session, pl)


def delete_price_list(*, session: Session, price_list_id: int, actor: str) -> None:
    """Delete a draft and its rows (published lists stay: plans may quote from them)."""
    pl = _draft(session, price_list_id)
    before = _public_dict(pl)
    _audit(session, actor, "delete", "price_lists", pl.name, pl.id, before, None)
    session.delete(pl)
    session.commit()


def _draft(session: Session, price_list_id: int) -> PriceList:
    pl = get_price_list(session=session, price_list_id=price_list_id)
    if pl.status != "draft":
        raise Conflict(
            f"price list {pl.name!r} is {pl.status}: its prices are frozen for the plans quoted "
            "from it. Start a new draft from it and change that.",
            field="price_list",
        )
    return pl


def _unique_name(session: Session, name: str) -> None:
    if session.exec(select(PriceList.id).where(PriceList.name == name)).first() is not None:
        raise InvalidRow({"name": f"a price list called {name!r} already exists"})


def _touch(pl: PriceList) -> None:
    pl.revision = (pl.revision or 0) + 1
    pl.updated_at = utcnow()


# --------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------


def _col(k: Kind, name: str) -> Any:
    return getattr(k.table, name)


def list_rows(
    *,
    session: Session,
    kind_name: str,
    price_list_id: int | None,
    q: str = "",
    sort: str | None = None,
    descending: bool = False,
    columns: Sequence[str] | None = None,
) -> list[Any]:
    """Rows of one kind in a list: `q` matches the kind's text columns (case-insensitive),
    `sort` is one of its columns (JSON columns are not sortable); default insertion order.
    With `columns`: plain rows of those columns, no ORM objects (a 1,000-row table page
    reads several times faster)."""
    k = kind(kind_name)
    stmt: Any = select(k.table) if columns is None else sa_select(*(_col(k, c) for c in columns))
    if k.scoped:
        stmt = stmt.where(_col(k, "price_list_id") == price_list_id)
    q = q.strip()
    if q:
        needle = q.lower()
        stmt = stmt.where(
            or_(
                *(func.lower(_col(k, f)).contains(needle, autoescape=True) for f in k.search_fields)
            )
        )
    order: list[Any] = []
    if sort in sort_columns(k):
        column = _col(k, sort)
        order.append((column.desc() if descending else column.asc()).nulls_last())
    # Otherwise insertion order: the order of the file a list was loaded from, which
    # the cost engine may rely on (the current AWS price before the pre-cut one).
    order.append(_col(k, "row_id") if k.scoped else _col(k, "id"))
    stmt = stmt.order_by(*order)
    if columns is not None:
        return list(session.execute(stmt))
    return list(session.exec(stmt))


def sort_columns(k: Kind) -> tuple[str, ...]:
    return tuple(c for c in k.columns if c != "term_discounts")


def get_row(*, session: Session, kind_name: str, price_list_id: int | None, key: str) -> Any:
    k = kind(kind_name)
    stmt = select(k.table)
    if k.scoped:
        stmt = stmt.where(_col(k, "price_list_id") == price_list_id)
    for f, v in k.key_filter(key).items():
        stmt = stmt.where(_col(k, f) == v)
    row = session.exec(stmt).first()
    if row is None:
        raise NotFound(f"no {kind_name} row {key!r}", field="id")
    return row


def row_values(k: Kind, row: Any) -> dict[str, Any]:
    """A table row as {column: value} in CSV column order, JSON columns normalised."""
    return io.comparable(k, {c: getattr(row, c) for c in k.columns})


def validate_row(*, kind_name: str, values: Mapping[str, Any]) -> SQLModel:
    """A form/API row through the kind's Create model; InvalidRow maps field → message."""
    k = kind(kind_name)
    clean = {c: v for c, v in values.items() if c in k.columns and v not in (None, "")}
    if "term_discounts" in clean and isinstance(clean["term_discounts"], str):
        terms, err = io.parse_terms(clean["term_discounts"])
        if err:
            raise InvalidRow({"term_discounts": err})
        clean["term_discounts"] = terms
    try:
        return k.create.model_validate(clean)
    except ValidationError as e:
        raise InvalidRow(io.field_errors(e), exc=e) from None


def create_row(
    *, session: Session, kind_name: str, price_list_id: int | None, data: SQLModel, actor: str
) -> Any:
    """Add one row to a draft list (GPU specs: to the global spec table)."""
    k = kind(kind_name)
    pl = _draft(session, price_list_id) if k.scoped and price_list_id is not None else None
    if k.scoped and pl is None:
        raise CatalogError("choose a draft price list", field="price_list")
    values = data.model_dump()
    key = k.key_of(values)
    if k.single and list_rows(session=session, kind_name=k.name, price_list_id=price_list_id):
        raise Conflict(f"the list already has {k.name} parameters: edit them", field="source")
    if k.key_fields and _exists(session, k, price_list_id, key):
        raise InvalidRow({k.key_fields[-1]: f"{key!r} already exists in this list"})
    _check_gpu(session, k, values)
    row = k.table(**values, **({"price_list_id": price_list_id} if k.scoped else {}))
    session.add(row)
    if pl is not None:
        _touch(pl)
    scope = price_list_id if k.scoped else None
    _audit(session, actor, "create", k.name, key, scope, None, _jsonable(values))
    return _commit(session, row)


def update_row(
    *,
    session: Session,
    kind_name: str,
    price_list_id: int | None,
    key: str,
    data: SQLModel,
    actor: str,
) -> Any:
    """Replace the values of one row (its key cannot change)."""
    k = kind(kind_name)
    pl = _draft(session, price_list_id) if k.scoped and price_list_id is not None else None
    row = get_row(session=session, kind_name=kind_name, price_list_id=price_list_id, key=key)
    values = data.model_dump()
    if k.key_of(values) != key:
        raise InvalidRow({k.key_fields[0]: f"the key cannot change (it is {key!r})"})
    _check_gpu(session, k, values)
    before = row_values(k, row)
    for c, v in values.items():
        setattr(row, c, v)
    if pl is not None:
        _touch(pl)
    scope = price_list_id if k.scoped else None
    _audit(session, actor, "update", k.name, key, scope, _jsonable(before), _jsonable(values))
    return _commit(session, row)


def delete_row(
    *, session: Session, kind_name: str, price_list_id: int | None, key: str, actor: str
) -> None:
    k = kind(kind_name)
    pl = _draft(session, price_list_id) if k.scoped and price_list_id is not None else None
    row = get_row(session=session, kind_name=kind_name, price_list_id=price_list_id, key=key)
    if k.name == "gpus":
        used = gpu_usage(session=session, gpu_id=key)
        if used:
            where = ", ".join(f"{n} {name}" for name, n in used.items())
            raise Conflict(f"GPU {key!r} is still used ({where}); remove those rows first")
    before = row_values(k, row)
    session.delete(row)
    if pl is not None:
        _touch(pl)
    scope = price_list_id if k.scoped else None
    _audit(session, actor, "delete", k.name, key, scope, _jsonable(before), None)
    session.commit()


def gpu_usage(*, session: Session, gpu_id: str) -> dict[str, int]:
    """How many rows (in any list) reference a GPU, per kind."""
    out: dict[str, int] = {}
    for name in GPU_REFERENCING:
        k = KINDS[name]
        n = session.exec(
            select(func.count()).select_from(k.table).where(_col(k, "gpu_id") == gpu_id)
        ).one()
        if n:
            out[name] = int(n)
    return out


def _exists(session: Session, k: Kind, price_list_id: int | None, key: str) -> bool:
    try:
        get_row(session=session, kind_name=k.name, price_list_id=price_list_id, key=key)
    except NotFound:
        return False
    return True


def _check_gpu(session: Session, k: Kind, values: Mapping[str, Any]) -> None:
    if k.name in GPU_REFERENCING and session.get(Gpu, values["gpu_id"]) is None:
        raise InvalidRow({"gpu_id": f"{values['gpu_id']!r} is not a known GPU"})


def gpu_ids(*, session: Session) -> list[str]:
    return list(session.exec(select(Gpu.id).order_by(col(Gpu.id))))


def gpu_prices(*, session: Session, price_list_id: int) -> dict[str, float]:
    stmt = select(GpuPrice).where(GpuPrice.price_list_id == price_list_id)
    return {p.gpu_id: p.price_usd for p in session.exec(stmt)}


def gpus_public(*, session: Session, price_list_id: int) -> list[GpuPublic]:
    prices = gpu_prices(session=session, price_list_id=price_list_id)
    return [
        GpuPublic(**row_values(KINDS["gpus"], g), price_usd=prices.get(g.id))
        for g in list_rows(session=session, kind_name="gpus", price_list_id=None)
    ]


def gpus_for(*, session: Session, price_list_id: int) -> list[GpuSpec]:
    """The catalog's GPUs as the engine sees them, priced from list `price_list_id`."""
    prices = gpu_prices(session=session, price_list_id=price_list_id)
    out = []
    for g in list_rows(session=session, kind_name="gpus", price_list_id=None):
        v = row_values(KINDS["gpus"], g)
        v.pop("notes", None)
        out.append(GpuSpec(**v, price_usd=prices.get(g.id)))
    return out


_PublicT = TypeVar("_PublicT", RentalOfferPublic, CloudInstancePublic)


def _gpu_names(session: Session) -> dict[str, str]:
    return {g.id: g.name for g in session.exec(select(Gpu))}


def _with_gpu_names(
    *,
    session: Session,
    kind_name: str,
    public: type[_PublicT],
    price_list_id: int,
    q: str,
    sort: str | None,
    descending: bool,
) -> list[_PublicT]:
    """Rows of a GPU-referencing kind as API models that name their GPU (`gpu`, `gpu_name`)."""
    names = _gpu_names(session)
    rows = list_rows(
        session=session,
        kind_name=kind_name,
        price_list_id=price_list_id,
        q=q,
        sort=sort,
        descending=descending,
    )
    out = []
    for r in rows:
        v = row_values(KINDS[kind_name], r)
        gpu = v.pop("gpu_id")
        out.append(public(**v, gpu=gpu, gpu_name=names.get(gpu, gpu), price_list_id=price_list_id))
    return out


def offers_public(
    *,
    session: Session,
    price_list_id: int,
    q: str = "",
    sort: str | None = None,
    descending: bool = False,
) -> list[RentalOfferPublic]:
    return _with_gpu_names(
        session=session, kind_name="offers", public=RentalOfferPublic,
        price_list_id=price_list_id, q=q, sort=sort, descending=descending,
    )  # fmt: skip


def cloud_public(
    *,
    session: Session,
    price_list_id: int,
    q: str = "",
    sort: str | None = None,
    descending: bool = False,
) -> list[CloudInstancePublic]:
    return _with_gpu_names(
        session=session, kind_name="cloud", public=CloudInstancePublic,
        price_list_id=price_list_id, q=q, sort=sort, descending=descending,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Price books (what the cost engine consumes), cached per (database, list, revision)
# --------------------------------------------------------------------------------------------

_CACHE_SIZE: Final = 32
_books: OrderedDict[tuple[Any, ...], engine.PriceBook] = OrderedDict()
_books_lock = threading.Lock()


def _book_key(session: Session, pl: PriceList) -> tuple[Any, ...]:
    bind = session.get_bind()
    # GPU specs are shared by every list: their latest audit entry is part of the key, so an
    # edited or added GPU reaches the planner on the next estimate.
    gpu_stamp = session.exec(
        select(func.max(AuditEntry.id)).where(AuditEntry.entity == "gpus")
    ).one()
    return (
        str(getattr(bind, "url", id(bind))),
        pl.id,
        pl.revision,
        str(pl.updated_at),
        gpu_stamp,
    )


def price_book_for(*, session: Session, price_list_id: int) -> engine.PriceBook:
    """The list as an engine `PriceBook`; built once per revision, then served from memory."""
    pl = get_price_list(session=session, price_list_id=price_list_id)
    return _price_book(session, pl)


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
    book = build_price_book(session=session, pl=pl)
    with _books_lock:
        _books[key] = book
        while len(_books) > _CACHE_SIZE:
            _books.popitem(last=False)
    return book


def build_price_book(*, session: Session, pl: PriceList) -> engine.PriceBook:
    """Read every row of `pl` into the engine's dataclasses (no cache)."""
    assert pl.id is not None

    def rows(name: str) -> list[dict[str, Any]]:
        return [
            row_values(KINDS[name], r)
            for r in list_rows(session=session, kind_name=name, price_list_id=pl.id)
        ]

    buy = rows("buy")
    return engine.PriceBook(
        name=pl.name,
        effective_date=pl.effective_date,
        currency=pl.currency,
        offers=tuple(engine.RentalOffer(**r) for r in rows("offers")),
        cloud=tuple(engine.CloudInstance(**r) for r in rows("cloud")),
        servers=tuple(engine.ServerSku(**r) for r in rows("servers")),
        energy=tuple(engine.EnergyPrice(**r) for r in rows("energy")),
        buy=engine.BuyParameters(**buy[0]) if buy else engine.BuyParameters(),
        fx=tuple(engine.FxRate(**r) for r in rows("fx")),
        gpus=tuple(sorted(gpus_for(session=session, price_list_id=pl.id), key=lambda g: g.id)),
    )


def clear_cache() -> None:
    with _books_lock:
        _books.clear()


# --------------------------------------------------------------------------------------------
# Import / export
# --------------------------------------------------------------------------------------------


def existing_rows(
    *, session: Session, price_list_id: int | None, kinds: Iterable[str]
) -> dict[str, dict[str, dict[str, Any]]]:
    """{kind: {key: comparable row}} of a list (GPU specs: all of them)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name in kinds:
        k = KINDS[name]
        if k.scoped and price_list_id is None:
            out[name] = {}
            continue
        out[name] = {
            k.key_of(r): row_values(k, r)
            for r in list_rows(session=session, kind_name=name, price_list_id=price_list_id)
        }
    return out


def _import_target(session: Session, target: int | None) -> tuple[PriceList | None, str]:
    """The draft an import goes into (None: a new copy of the current list)."""
    if target is not None:
        pl = _draft(session, target)
        return pl, pl.name
    current = current_price_list(session=session)
    return current, f"a new draft copied from {current.name!r}" if current else "a new draft"


def preview_import(
    *, session: Session, parsed: io.Parsed, target: int | None, mode: io.Mode = "sync"
) -> io.ImportPreview:
    """Validate an upload and compare it with the target list; changes nothing."""
    return _compare(session, parsed, target, mode)[0]


def _compare(
    session: Session, parsed: io.Parsed, target: int | None, mode: io.Mode
) -> tuple[io.ImportPreview, io.Validated]:
    base, label = _import_target(session, target)
    validated = io.validate(parsed, known_gpus=gpu_ids(session=session))
    existing = existing_rows(
        session=session, price_list_id=base.id if base else None, kinds=parsed.rows
    )
    preview = io.diff(validated, existing, mode=mode)
    preview.target_price_list_id = target
    preview.target_name = label
    return preview, validated


def apply_import(
    *,
    session: Session,
    parsed: io.Parsed,
    target: int | None,
    actor: str,
    mode: io.Mode = "sync",
    new_name: str | None = None,
    effective_date: date | None = None,
) -> io.ImportPreview:
    """Apply an upload in one transaction: into draft `target`, or into a new draft copied
    from the current list. Any rejected row → nothing is written (`ok` false). GPU specs in
    the file are global: they change for every list (specs are not versioned)."""
    preview, validated = _compare(session, parsed, target, mode)
    if not preview.ok:
        return preview
    try:
        if target is None:
            pl = _new_import_draft(session, new_name, effective_date, actor)
        else:
            pl = _draft(session, target)
        assert pl.id is not None
        _write_rows(session, pl.id, validated.valid, preview, mode)
        _touch(pl)
        summary = (
            f"import ({parsed.format}): {len(preview.added)} added, {len(preview.changed)} "
            f"changed, {len(preview.removed)} removed, {preview.unchanged} unchanged"
        )
        _audit(
            session,
            actor,
            "import",
            "price_lists",
            pl.name,
            pl.id,
            None,
            {
                "added": [f"{c.kind}:{c.key}" for c in preview.added],
                "changed": [f"{c.kind}:{c.key}" for c in preview.changed],
                "removed": [f"{c.kind}:{c.key}" for c in preview.removed],
            },
            summary=summary,
        )
        session.commit()
    except CatalogError:
        session.rollback()
        raise
    except IntegrityError as e:
        session.rollback()
        raise CatalogError(f"the import conflicts with the catalog: {e.orig}") from None
    preview.applied = True
    preview.price_list_id = pl.id
    return preview


def _new_import_draft(
    session: Session, name: str | None, effective: date | None, actor: str
) -> PriceList:
    current = current_price_list(session=session)
    stamp = utcnow().strftime("%Y-%m-%d %H:%M:%S")
    name = (name or "").strip() or f"Import {stamp}"
    effective = effective or date.today()
    if current is None:
        head = PriceListCreate(name=name, effective_date=effective, notes="Imported")
        _unique_name(session, head.name)
        pl = PriceList(**head.model_dump(), status="draft", created_by=actor)
        session.add(pl)
        session.flush()
        return pl
    assert current.id is not None
    # new_price_list_from commits; here the copy must share the import's transaction.
    _unique_name(session, name)
    pl = PriceList(
        name=name,
        effective_date=effective,
        currency=current.currency,
        source=current.source,
        notes=f"Import on {stamp}, copied from {current.name}",
        status="draft",
        created_by=actor,
    )
    session.add(pl)
    session.flush()
    assert pl.id is not None
    for name_ in ORDER:
        k = KINDS[name_]
        if k.scoped:
            for row in list_rows(session=session, kind_name=name_, price_list_id=current.id):
                session.add(k.table(**{c: getattr(row, c) for c in k.columns}, price_list_id=pl.id))
    session.flush()
    return pl


def _write_rows(
    session: Session,
    price_list_id: int,
    valid: Mapping[str, list[io.ValidRow]],
    preview: io.ImportPreview,
    mode: io.Mode,
) -> None:
    """Upsert the valid rows, delete the removed ones (sync mode); kinds in FK order."""
    removed = {(c.kind, c.key) for c in preview.removed} if mode == "sync" else set()
    for name in ORDER:
        if name not in valid and not any(kname == name for kname, _ in removed):
            continue
        k = KINDS[name]
        scope = price_list_id if k.scoped else None
        current = {
            k.key_of(r): r for r in list_rows(session=session, kind_name=name, price_list_id=scope)
        }
        for key, row in current.items():
            if (name, key) in removed:
                session.delete(row)
        session.flush()
        for vr in valid.get(name, []):
            values = vr.data.model_dump()
            existing = current.get(vr.key)
            if existing is None:
                session.add(k.table(**values, **({"price_list_id": scope} if k.scoped else {})))
            else:
                for c, v in values.items():
                    setattr(existing, c, v)
        session.flush()


def export_rows(
    *, session: Session, price_list_id: int, kinds: Iterable[str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """{kind: [row values]} of a list, for the CSV/JSON writers."""
    return {
        name: [
            row_values(KINDS[name], r)
            for r in list_rows(session=session, kind_name=name, price_list_id=price_list_id)
        ]
        for name in (kinds or ORDER)
    }


def export_document(*, session: Session, price_list_id: int) -> dict[str, Any]:
    """The whole list as a JSON document (the layout `app/data/catalog.yaml` uses)."""
    pl = get_price_list(session=session, price_list_id=price_list_id)
    header = {
        "id": pl.id,
        "name": pl.name,
        "effective_date": pl.effective_date,
        "currency": pl.currency,
        "status": pl.status,
        "notes": pl.notes,
        "source": pl.source,
    }
    return io.to_document(header, export_rows(session=session, price_list_id=price_list_id))


def export_file(
    *, session: Session, price_list_id: int, fmt: str, kind: str | None
) -> tuple[str, str, str]:
    """(body, media type, file name): the list as JSON (every kind, or one) or one kind as CSV."""
    stem = f"stratagem-price-list-{price_list_id}"
    if fmt == "csv":
        if kind is None:
            raise CatalogError("choose a kind to export as CSV", field="kind")
        rows = export_rows(session=session, price_list_id=price_list_id, kinds=[kind])
        return io.to_csv(KINDS[kind], rows[kind]), "text/csv; charset=utf-8", f"{stem}-{kind}.csv"
    doc = export_document(session=session, price_list_id=price_list_id)
    payload: Any = doc.get(kind) if kind else doc
    text = json.dumps(payload, ensure_ascii=False, indent=2)
    return text, "application/json", f"{stem}{'-' + kind if kind else ''}.json"


# --------------------------------------------------------------------------------------------
# The shipped catalog
# --------------------------------------------------------------------------------------------


def load_shipped_if_empty(*, session: Session) -> str | None:
    """Load the shipped catalog into an empty database (published, current); a summary like
    '18 GPUs, 17 offers, …', or None when the catalog already has data."""
    has_lists = session.exec(select(PriceList.id).limit(1)).first() is not None
    has_gpus = session.exec(select(Gpu.id).limit(1)).first() is not None
    if has_lists or has_gpus:
        return None
    try:
        return load_shipped(session=session, actor=SYSTEM)
    except IntegrityError:
        # Another process loaded it between our check and our insert.
        session.rollback()
        return None


def load_shipped(*, session: Session, actor: str, replace: bool = False) -> str:
    """Load the shipped list and GPU specs. An existing list of the same name is left alone,
    unless `replace`: then its rows (and the GPU specs) become the shipped ones again."""
    doc = shipped_document()
    head = doc["price_list"]
    parsed = io.Parsed(format="json")
    for name in ORDER:
        items = doc.get(name)
        if items is None:
            continue
        items = [items] if isinstance(items, dict) else items
        parsed.rows[name] = [
            io.RawRow(row=n, values={k: v for k, v in item.items() if v is not None})
            for n, item in enumerate(items, start=1)
        ]
    parsed.rows["gpu_prices"] = [
        io.RawRow(
            row=n, values={"gpu_id": g["id"], "price_usd": g["price_usd"], "source": g["source"]}
        )
        for n, g in enumerate(doc["gpus"], start=1)
        if g.get("price_usd") is not None
    ]
    validated = io.validate(parsed, known_gpus=())
    if not validated.ok:
        raise CatalogError("the shipped catalog is invalid: " + "; ".join(validated.messages()))
    existing = session.exec(select(PriceList).where(PriceList.name == head["name"])).first()
    if existing is not None and not replace:
        return f"{head['name']!r} is already loaded (use --replace to reload it)"
    if existing is None:
        pl = PriceList(
            name=head["name"],
            effective_date=head["effective_date"],
            currency=head["currency"],
            source=head.get("source", ""),
            notes="The shipped catalog (app/data/catalog.yaml, app/data/gpus.yaml).",
            status="published",
            created_by=actor,
        )
        session.add(pl)
        session.flush()
    else:
        pl = existing
    assert pl.id is not None
    existing_data = existing_rows(session=session, price_list_id=pl.id, kinds=parsed.rows)
    preview = io.diff(validated, existing_data, mode="sync")
    _write_rows(session, pl.id, validated.valid, preview, "sync")
    _touch(pl)
    n = {name: len(rows) for name, rows in validated.valid.items()}
    summary = ", ".join(
        _plural(n[name], word)
        for name, word in (
            ("gpus", "GPU"),
            ("offers", "offer"),
            ("cloud", "cloud instance"),
            ("servers", "server"),
            ("energy", "energy price"),
            ("fx", "FX rate"),
        )
    )
    action = "reload" if existing is not None else "load"
    _audit(
        session,
        actor,
        action,
        "price_lists",
        pl.name,
        pl.id,
        None,
        {"rows": n},
        summary=f"shipped catalog {action}ed: {summary}",
    )
    session.commit()
    return summary


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


# --------------------------------------------------------------------------------------------
# Audit trail
# --------------------------------------------------------------------------------------------


def list_audit(
    *,
    session: Session,
    limit: int = 100,
    offset: int = 0,
    entity: str | None = None,
    price_list_id: int | None = None,
) -> list[AuditEntry]:
    stmt = select(AuditEntry).order_by(col(AuditEntry.id).desc())
    if entity:
        stmt = stmt.where(AuditEntry.entity == entity)
    if price_list_id is not None:
        stmt = stmt.where(AuditEntry.price_list_id == price_list_id)
    return list(session.exec(stmt.offset(offset).limit(limit)))


def _jsonable(values: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if values is None:
        return None
    return dict(to_jsonable_python(dict(values)))


def _public_dict(pl: PriceList) -> dict[str, Any]:
    return (
        _jsonable(
            {
                "name": pl.name,
                "effective_date": pl.effective_date,
                "currency": pl.currency,
                "status": pl.status,
                "notes": pl.notes,
            }
        )
        or {}
    )


def _audit(
    session: Session,
    actor: str,
    action: str,
    entity: str,
    key: str,
    price_list_id: int | None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    *,
    summary: str = "",
) -> None:
    session.add(
        AuditEntry(
            actor=actor or "anonymous",
            action=action,
            entity=entity,
            entity_key=key,
            price_list_id=price_list_id,
            before=before,
            after=after,
            summary=summary,
        )
    )


def _commit(session: Session, obj: _T) -> _T:
    session.commit()
    session.refresh(obj)
    return obj
