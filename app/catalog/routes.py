"""JSON API v1: the catalog (rental offers, cloud instances, price lists, import and export).

Reads are public; the import sits on `admin`, a router whose dependencies come from
`app.catalog.access.ADMIN_DEPENDENCIES`. Service errors become 404 / 409 / 422 answers in
FastAPI's own error shape, naming the parameter at fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, TypeVar

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import UploadFile

from app.accounts.models import User
from app.catalog import io, service
from app.catalog.access import ADMIN_DEPENDENCIES, ActorDep, ViewerDep, sees_drafts, visible
from app.catalog.compare import PriceListComparison
from app.catalog.kinds import KINDS
from app.catalog.models import (
    AuditEntryPublic,
    CloudInstancePublic,
    PriceListDetail,
    PriceListPublic,
    RentalOfferPublic,
)
from app.catalog.service import CatalogError, NotFound
from app.dates import CatalogDate
from app.deps import SessionDep
from app.i18n import N_
from app.ids import DB_OFFSET_MAX, DbId

router = APIRouter(prefix="/api/v1", tags=["catalog"])
# Included below into `router` (which adds the /api/v1 prefix).
admin = APIRouter(tags=["catalog"], dependencies=ADMIN_DEPENDENCIES)

PriceListQuery = Annotated[
    DbId | None, Query(description="Price list id; the current list when omitted")
]
SearchQuery = Annotated[str, Query(max_length=200, description="Text to search for")]
# The plans and customers lists call it `search`; a client that learnt that name gets the
# same search here (the catalog's first name, `q`, stays).
SearchNamed = Annotated[
    str, Query(max_length=200, description="Text to search for (the same as q)")
]
SortQuery = Annotated[str | None, Query(max_length=40, description="Column to sort by")]
DirQuery = Annotated[Literal["asc", "desc"], Query(description="Sort direction")]
KindName = Literal["gpus", "gpu_prices", "servers", "offers", "cloud", "energy", "buy", "fx"]


def _search(q: str, search: str) -> str:
    """The text to search for, given as `q` or as `search`; both, and different, is a 422
    on `search` (which one was meant cannot be known)."""
    if q and search and q != search:
        raise CatalogError(
            N_("is the same as q: give the text to search for once (q is %(q)s)"),
            field="search",
            q=q,
        )
    return search or q


def _sort(kind_name: str, sort: str | None) -> str | None:
    """`sort` when it is one of the kind's sortable columns, else a 422 naming it (a column
    that does not exist was ignored, listing in insertion order as if it had sorted)."""
    allowed = service.sort_columns(KINDS[kind_name])
    if sort and sort not in allowed:
        raise CatalogError(
            N_("must be one of %(allowed)s (got %(value)s)"),
            field="sort",
            allowed=", ".join(allowed),
            value=sort,
        )
    return sort or None


@router.get("/offers", response_model=list[RentalOfferPublic])
def list_offers(
    session: SessionDep,
    viewer: ViewerDep,
    price_list: PriceListQuery = None,
    q: SearchQuery = "",
    search: SearchNamed = "",
    sort: SortQuery = None,
    dir: DirQuery = "asc",
) -> list[RentalOfferPublic]:
    """Bare-metal rental offers of a price list (gpu_count is a fraction for MIG slices)."""
    pl = visible(service.resolve_price_list(session=session, price_list_id=price_list), viewer)
    assert pl.id is not None
    return service.offers_public(
        session=session, price_list_id=pl.id, q=_search(q, search), sort=_sort("offers", sort),
        descending=dir == "desc",
    )  # fmt: skip


@router.get("/cloud", response_model=list[CloudInstancePublic])
def list_cloud(
    session: SessionDep,
    viewer: ViewerDep,
    price_list: PriceListQuery = None,
    q: SearchQuery = "",
    search: SearchNamed = "",
    sort: SortQuery = None,
    dir: DirQuery = "asc",
) -> list[CloudInstancePublic]:
    """Public-cloud GPU instances of a price list, with on-demand and reserved hourly prices."""
    pl = visible(service.resolve_price_list(session=session, price_list_id=price_list), viewer)
    assert pl.id is not None
    return service.cloud_public(
        session=session, price_list_id=pl.id, q=_search(q, search), sort=_sort("cloud", sort),
        descending=dir == "desc",
    )  # fmt: skip


PublicList = TypeVar("PublicList", PriceListPublic, PriceListDetail)


def _for(viewer: User | None, pl: PublicList) -> PublicList:
    """`pl` as `viewer` may read it: who made the list (a staff e-mail) and its internal
    notes are for signed-in catalog users only; anyone may read prices (QA: an anonymous
    GET listed "created_by": "admin@qa.tw" and the notes)."""
    if sees_drafts(viewer):
        return pl
    return pl.model_copy(update={"created_by": "", "notes": ""})


@router.get("/price-lists", response_model=list[PriceListPublic])
def list_price_lists(session: SessionDep, viewer: ViewerDep) -> list[PriceListPublic]:
    """Every price list (newest first) with its status, whether it is current and row counts."""
    lists = service.price_lists_public(session=session)
    shown = lists if sees_drafts(viewer) else [p for p in lists if p.status != "draft"]
    return [_for(viewer, p) for p in shown]


@router.get("/price-lists/current", response_model=PriceListDetail)
def get_current_price_list(session: SessionDep, viewer: ViewerDep) -> PriceListDetail:
    """The price list estimates are priced with today, with all its rows."""
    return _for(viewer, service.price_list_detail(session=session, price_list_id=None))


@router.get("/price-lists/{price_list_id}", response_model=PriceListDetail)
def get_price_list(session: SessionDep, viewer: ViewerDep, price_list_id: DbId) -> PriceListDetail:
    """One price list with all its rows (GPUs, servers, offers, cloud, energy, buying, FX)."""
    _visible_in_path(session, viewer, price_list_id)
    return _for(viewer, service.price_list_detail(session=session, price_list_id=price_list_id))


def _visible_in_path(session: SessionDep, viewer: ViewerDep, price_list_id: int) -> None:
    """404 naming the path's `price_list_id` for a missing list and for a draft the viewer
    may not see alike (access.visible), not the `price_list` query other routes take."""
    try:
        visible(service.get_price_list(session=session, price_list_id=price_list_id), viewer)
    except NotFound as e:
        raise NotFound(e.message_id, field="price_list_id", where="path", **e.params) from None


@router.get(
    "/price-lists/{price_list_id}/changes",
    response_model=PriceListComparison,
    responses={409: {"description": "No `against` named, and no other published list."}},
)
def compare_price_list(
    session: SessionDep,
    viewer: ViewerDep,
    price_list_id: DbId,
    against: Annotated[
        DbId | None,
        Query(
            description="The list to compare with; by default the current list (for the "
            "current list, the one in effect before it)"
        ),
    ] = None,
) -> PriceListComparison:
    """A list's added, changed and removed rows against another; ×3 moves are marked `check`."""
    _visible_in_path(session, viewer, price_list_id)
    found = service.compare_price_lists(
        session=session, price_list_id=price_list_id, against_id=against
    )
    try:  # a draft the viewer may not see is not compared with either
        visible(service.get_price_list(session=session, price_list_id=found.against.id), viewer)
    except NotFound as e:
        raise NotFound(e.message_id, field="against", **e.params) from None
    return found


@router.get(
    "/catalog/export",
    responses={
        200: {
            "content": {"application/json": {}, "text/csv": {}},
            "description": "A JSON document (all kinds, or one `kind`), or one kind as CSV.",
        }
    },
)
def export_catalog(
    session: SessionDep,
    viewer: ViewerDep,
    format: Literal["json", "csv"] = "json",
    kind: KindName | None = None,
    price_list: PriceListQuery = None,
) -> Response:
    """Export a price list as JSON (every kind, or one) or one kind as CSV (UTF-8)."""
    pl = visible(service.resolve_price_list(session=session, price_list_id=price_list), viewer)
    assert pl.id is not None
    body, media, filename = service.export_file(
        session=session, price_list_id=pl.id, fmt=format, kind=kind
    )
    return Response(
        body,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


_IMPORT_BODY = {
    "requestBody": {
        "description": "The file: a JSON document or list, a CSV text, or a multipart upload "
        "with the field `file`.",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "text/csv": {"schema": {"type": "string"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {"file": {"type": "string", "format": "binary"}},
                    "required": ["file"],
                }
            },
        },
    }
}


@admin.post(
    "/catalog/import",
    response_model=io.ImportPreview,
    openapi_extra=_IMPORT_BODY,
    responses={
        201: {"model": io.ImportPreview, "description": "Applied"},
        422: {"model": io.ImportPreview, "description": "Rejected rows: nothing was written"},
    },
)
def import_catalog(
    session: SessionDep,
    actor: ActorDep,
    upload: Annotated[Upload, Depends(read_upload)],
    dry_run: bool = True,
    format: Literal["json", "csv"] | None = None,
    kind: Annotated[
        KindName | None,
        Query(description="A CSV file's kind; omitted: the one its file name ends with"),
    ] = None,
    price_list: Annotated[
        DbId | None,
        Query(description="A draft to import into; omitted: a new copy of the current list"),
    ] = None,
    mode: Literal["sync", "upsert"] = "sync",
    name: Annotated[str | None, Query(max_length=100, description="Name of the new draft")] = None,
    effective_date: Annotated[CatalogDate | None, Query()] = None,
) -> Response:
    """Preview (dry_run, the default) or apply a CSV/JSON import; all-or-nothing."""
    if price_list is None and name:
        # The preview refuses a name the import would: a control character, a taken name.
        name = service.check_new_draft_name(session, name) or None
    fmt = upload_format(upload, format)
    # a CSV's kind, else the one its name ends with, as exported: …-offers.csv (None: refused)
    rows_kind = kind or (io.kind_from_name(upload.filename) if fmt == "csv" else None)
    parsed = io.parse(upload.data, fmt=fmt, kind=rows_kind)
    try:
        if dry_run:
            preview = service.preview_import(
                session=session, parsed=parsed, target=price_list, mode=mode
            )
            return JSONResponse(preview.model_dump(mode="json"))
        result = service.apply_import(
            session=session,
            parsed=parsed,
            target=price_list,
            actor=actor,
            mode=mode,
            new_name=name,
            effective_date=effective_date,
        )
    except NotFound as e:
        if price_list is None or e.field != "price_list":
            raise
        # A query parameter naming no list is a wrong value (422), not a missing page: the
        # 404 is for an id in the path (QA).
        raise CatalogError(e.message_id, field="price_list", **e.params) from None
    return JSONResponse(result.model_dump(mode="json"), status_code=201 if result.applied else 422)


@dataclass(frozen=True)
class Upload:
    """The request's file as sent, read before the route runs (`read_upload`)."""

    data: bytes
    filename: str
    content_type: str
    #: A multipart request without the `file` field.
    no_file_field: bool = False


async def read_upload(request: Request) -> Upload:
    """The uploaded bytes: the multipart field `file`, else the whole body. Read here, in a
    dependency, so that the import route can be a plain `def` that waits on the database in
    the threadpool (`app.web.forms.posted_form` says why)."""
    ctype = request.headers.get("content-type", "").lower()
    if not ctype.startswith("multipart/form-data"):
        return Upload(await request.body(), "", ctype)
    upload = (await request.form()).get("file")
    if not isinstance(upload, UploadFile):
        return Upload(b"", "", ctype, no_file_field=True)
    data = await upload.read()
    return Upload(data, (upload.filename or "").lower(), (upload.content_type or "").lower())


def upload_format(upload: Upload, fmt: str | None) -> io.Format:
    """The upload's format: the `format` parameter, else its content type or file name."""
    if upload.no_file_field:
        raise CatalogError("send the file in the multipart field 'file'", field="file")
    if not upload.data:
        raise CatalogError("the request has no file", field="file")
    if fmt in ("json", "csv"):
        return fmt  # type: ignore[return-value]
    if "json" in upload.content_type or upload.filename.endswith(".json"):
        return "json"
    if "csv" in upload.content_type or upload.filename.endswith(".csv"):
        return "csv"
    raise CatalogError("say format=json or format=csv (or send a .json/.csv file)", field="format")


@admin.get("/catalog/audit", response_model=list[AuditEntryPublic])
def list_audit(
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0, le=DB_OFFSET_MAX)] = 0,
    price_list: Annotated[DbId | None, Query()] = None,
) -> list[AuditEntryPublic]:
    """The audit trail: who changed which catalog row, when, before and after (newest first)."""
    rows = service.list_audit(session=session, limit=limit, offset=offset, price_list_id=price_list)
    return [AuditEntryPublic.model_validate(r, from_attributes=True) for r in rows]


router.include_router(admin)
