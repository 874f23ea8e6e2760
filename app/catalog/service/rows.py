"""Rows of one kind in a price list (GPU specs: global): list, read, validate, create, update,
delete; the GPU look-ups and the API views that name a row's GPU."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError
from sqlalchemy import func, or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, SQLModel, col, select

from app.catalog import io
from app.catalog.kinds import GPU_REFERENCING, KINDS, Kind, kind
from app.catalog.models import CloudInstancePublic, Gpu, GpuPrice, GpuPublic, RentalOfferPublic
from app.catalog.service.audit import commit, jsonable, record
from app.catalog.service.errors import CatalogError, Conflict, InvalidRow, NotFound
from app.catalog.service.versions import require_draft, touch
from app.engine.gpus import default_gpus
from app.engine.hardware import GpuSpec
from app.i18n import N_
from app.i18n import gettext as _


def table_column(k: Kind, name: str) -> Any:
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
    stmt: Any = (
        select(k.table) if columns is None else sa_select(*(table_column(k, c) for c in columns))
    )
    if k.scoped:
        stmt = stmt.where(table_column(k, "price_list_id") == price_list_id)
    q = q.strip()
    if q:
        needle = q.lower()
        stmt = stmt.where(
            or_(
                *(
                    func.lower(table_column(k, f)).contains(needle, autoescape=True)
                    for f in k.search_fields
                )
            )
        )
    order: list[Any] = []
    if sort in sort_columns(k):
        column = table_column(k, sort)
        order.append((column.desc() if descending else column.asc()).nulls_last())
    # Otherwise insertion order: the order of the file a list was loaded from, which
    # the cost engine may rely on (the current AWS price before the pre-cut one).
    order.append(table_column(k, "row_id") if k.scoped else table_column(k, "id"))
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
        stmt = stmt.where(table_column(k, "price_list_id") == price_list_id)
    for f, v in k.key_filter(key).items():
        stmt = stmt.where(table_column(k, f) == v)
    row = session.exec(stmt).first()
    if row is None:
        raise NotFound(N_("no %(kind)s row “%(key)s”"), field="id", kind=kind_name, key=key)
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
    pl = require_draft(session, price_list_id) if k.scoped and price_list_id is not None else None
    if k.scoped and pl is None:
        raise CatalogError("choose a draft price list", field="price_list")
    values = data.model_dump()
    key = k.key_of(values)
    if k.single and list_rows(session=session, kind_name=k.name, price_list_id=price_list_id):
        raise Conflict(
            N_("the list already has %(kind)s parameters: edit them"), field="source", kind=k.name
        )
    if k.key_fields and _exists(session, k, price_list_id, key):
        raise InvalidRow(
            {k.key_fields[-1]: _("“%(key)s” already exists in this list") % {"key": key}}
        )
    _check_gpu(session, k, values)
    row = k.table(**values, **({"price_list_id": price_list_id} if k.scoped else {}))
    session.add(row)
    if pl is not None:
        touch(pl)
    scope = price_list_id if k.scoped else None
    record(session, actor, "create", k.name, key, scope, None, jsonable(values))
    return commit(session, row)


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
    pl = require_draft(session, price_list_id) if k.scoped and price_list_id is not None else None
    row = get_row(session=session, kind_name=kind_name, price_list_id=price_list_id, key=key)
    values = data.model_dump()
    if k.key_of(values) != key:
        raise InvalidRow(
            {k.key_fields[0]: _("the key cannot change (it is “%(key)s”)") % {"key": key}}
        )
    _check_gpu(session, k, values)
    before = row_values(k, row)
    for c, v in values.items():
        setattr(row, c, v)
    if pl is not None:
        touch(pl)
    scope = price_list_id if k.scoped else None
    if jsonable(before) != jsonable(values):
        # A save that changed nothing wrote an empty "Changed" entry (QA).
        record(session, actor, "update", k.name, key, scope, jsonable(before), jsonable(values))
    return commit(session, row)


def delete_row(
    *, session: Session, kind_name: str, price_list_id: int | None, key: str, actor: str
) -> None:
    k = kind(kind_name)
    pl = require_draft(session, price_list_id) if k.scoped and price_list_id is not None else None
    row = get_row(session=session, kind_name=kind_name, price_list_id=price_list_id, key=key)
    if k.name == "gpus":
        used = gpu_usage(session=session, gpu_id=key)
        if used:
            where = ", ".join(f"{n} {name}" for name, n in used.items())
            raise Conflict(
                N_("GPU “%(key)s” is still used (%(rows)s); remove those rows first"),
                key=key,
                rows=where,
            )
    before = row_values(k, row)
    session.delete(row)
    if pl is not None:
        touch(pl)
    scope = price_list_id if k.scoped else None
    record(session, actor, "delete", k.name, key, scope, jsonable(before), None)
    session.commit()


def gpu_usage(*, session: Session, gpu_id: str) -> dict[str, int]:
    """How many rows (in any list) reference a GPU, per kind."""
    out: dict[str, int] = {}
    for name in GPU_REFERENCING:
        k = KINDS[name]
        n = session.exec(
            select(func.count()).select_from(k.table).where(table_column(k, "gpu_id") == gpu_id)
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
        raise InvalidRow({"gpu_id": _("“%(gpu)s” is not a known GPU") % {"gpu": values["gpu_id"]}})


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
    # FP4 rate, NVLink domain and the measured MAMF have no catalog columns yet: the shipped
    # datasheet rows give them (a GPU the catalog adds itself has no FP4, a node-sized domain
    # and H100 SXM's GEMM shares).
    shipped = {s.id: s for s in default_gpus()}
    out = []
    for g in list_rows(session=session, kind_name="gpus", price_list_id=None):
        v = row_values(KINDS["gpus"], g)
        v.pop("notes", None)
        ref = shipped.get(g.id)
        out.append(
            GpuSpec(
                **v,
                price_usd=prices.get(g.id),
                fp4_tflops=ref.fp4_tflops if ref else None,
                nvlink_domain=ref.nvlink_domain if ref else 0,
                mamf_bf16_tflops=ref.mamf_bf16_tflops if ref else None,
                mamf_fp8_tflops=ref.mamf_fp8_tflops if ref else None,
            )
        )
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
