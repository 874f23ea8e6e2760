"""Catalog pages (server-rendered, HTMX-enhanced): browse, edit, import, export, audit.

* `/catalog` overview; `/catalog/<kind>` tables (offers, gpus, servers, cloud, energy, fx,
  buy, gpu-prices) with search (an HTMX request gets only the table) and sort links that work
  without JavaScript; `/catalog/price-lists`; `/catalog/import`; `/catalog/audit`.
* Every page shows one price list: `?price_list=<id>`, the current list when omitted. Rows of
  a draft can be created, edited and deleted; published lists are read-only (a new draft
  copies them).
* Editing routes sit on `admin` (dependencies: CSRF + `ADMIN_DEPENDENCIES`). A form that
  fails validation answers 422 with the form re-rendered, each message beside its field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response
from sqlmodel import Session

from app.catalog import io, service
from app.catalog.access import ADMIN_DEPENDENCIES, ActorDep
from app.catalog.forms import (
    form_strings,
    import_mode,
    import_target,
    price_list_create,
    price_list_update,
    read_upload,
    validated_row,
)
from app.catalog.kinds import Kind
from app.catalog.models import PriceList
from app.catalog.service import CatalogError, InvalidRow
from app.catalog.views import (
    AUDIT_ACTIONS,
    after_status_change,
    audit_changes,
    audit_kind_name,
    audit_summary,
    comparison_context,
    drafts_to_check,
    editable_list,
    form_context,
    frame,
    gpu_in_use,
    import_context,
    input_value,
    kind_for_slug,
    kind_url,
    pl_id,
    preview_context,
    price_list_form_context,
    selected_list,
    selected_list_or_404,
    table_context,
    with_default_comparison,
)
from app.dates import business_today
from app.deps import SessionDep
from app.i18n import gettext as _
from app.ids import DbId
from app.web.csrf import verify_csrf
from app.web.forms import PostedForm, as_sentence, validation_messages
from app.web.templating import is_fragment, render

public = APIRouter(include_in_schema=False)


admin = APIRouter(
    include_in_schema=False,
    dependencies=[Depends(verify_csrf), *ADMIN_DEPENDENCIES],
)


PAGE_SIZE: Final = 50


@public.get("/catalog")
def overview(
    request: Request,
    session: SessionDep,
    price_list: DbId | None = None,
    imported: int | None = None,
    gpus: Annotated[int | None, Query(ge=0, le=100_000)] = None,
) -> Response:
    """Catalog overview: the selected price list, its rows per kind, and where to go next
    (after an import, what it applied: `gpus` GPU specs changed for every list)."""
    pl = selected_list(session, price_list)
    ctx = frame(session, pl) | {
        "counts": service.counts(session=session, price_list_id=pl.id) if pl and pl.id else {},
        "imported": imported,
        "imported_gpus": gpus or 0,
    }
    return render(request, "catalog/overview.html", ctx)


@public.get("/catalog/price-lists")
def price_lists_page(request: Request, session: SessionDep) -> Response:
    """Every price list: status, effective date, whether current, and its actions; after a
    publish or an archive, which list is current now (`views.after_status_change`)."""
    lists = service.price_lists_public(session=session)
    ctx = frame(session, None) | {
        "lists": lists,
        "to_check": drafts_to_check(session, lists),
        "with_changes": with_default_comparison(lists),
        "changed": after_status_change(
            lists,
            published=request.query_params.get("published"),
            archived=request.query_params.get("archived"),
            today=business_today(),
        ),
    }
    return render(request, "catalog/price_lists.html", ctx)


@public.get("/catalog/price-lists/{price_list_id}/changes")
def price_list_changes(
    request: Request, session: SessionDep, price_list_id: DbId, against: DbId | None = None
) -> Response:
    """What a list adds, changes and removes against another (by default the current list),
    the numbers that moved ×3 or more first (`compare`)."""
    found = service.compare_price_lists(
        session=session, price_list_id=price_list_id, against_id=against
    )
    return render(request, "catalog/changes.html", comparison_context(session, found))


@public.get("/catalog/{slug}")
def kind_page(
    request: Request,
    session: SessionDep,
    slug: str,
    price_list: DbId | None = None,
    q: str = Query("", max_length=200),
    sort: str | None = Query(None, max_length=40),
    dir: str = "asc",
    page: int = Query(1, ge=1, le=100_000),
) -> Response:
    """One kind's table with search and sort, a page at a time; an HTMX request gets only
    the table."""
    ctx = table_context(
        session,
        kind_for_slug(slug),
        price_list,
        q=q,
        sort=sort,
        descending=dir == "desc",
        page=page,
    )
    block = "table" if is_fragment(request) else None
    return render(request, "catalog/rows.html", ctx, block_name=block)


@admin.get("/catalog/audit")
def audit_page(
    request: Request,
    session: SessionDep,
    price_list: DbId | None = None,
    page: int = Query(1, ge=1, le=10_000),
) -> Response:
    """The audit trail: who changed what and when, with the values before and after."""
    entries = service.list_audit(
        session=session,
        limit=PAGE_SIZE + 1,
        offset=(page - 1) * PAGE_SIZE,
        price_list_id=price_list,
    )
    ctx = frame(session, None) | {
        "entries": entries[:PAGE_SIZE],
        "page": page,
        "has_next": len(entries) > PAGE_SIZE,
        "filter_list": price_list,
        "audit_actions": AUDIT_ACTIONS,
        "audit_kind_name": audit_kind_name,
        "audit_changes": audit_changes,
        "audit_summary": audit_summary,
    }
    return render(request, "catalog/audit.html", ctx)


@admin.get("/catalog/import")
def import_page(request: Request, session: SessionDep, price_list: DbId | None = None) -> Response:
    """Upload a CSV or JSON file to preview what it would change."""
    ctx = import_context(session, {"target": str(price_list or "new")})
    return render(request, "catalog/import.html", ctx)


@admin.post("/catalog/import")
def import_preview(
    request: Request, session: SessionDep, actor: ActorDep, form: PostedForm
) -> Response:
    """Preview an upload: added, changed (old → new), removed and rejected rows; nothing is
    imported. A file that can be applied is kept on the server (`stage_import`); the page
    carries its token, not the file, and lists the first rows of each kind of change and
    every rejected row."""
    values = form_strings(form)
    try:
        data, fmt, kind = read_upload(form, values)
        target = import_target(values.get("target"))
        if target is None:
            service.check_new_draft_name(session, values.get("name", ""))
    except InvalidRow as e:
        ctx = import_context(session, values) | {"errors": e.errors}
        return render(request, "catalog/import.html", ctx, status_code=422)
    mode = import_mode(values.get("mode"))
    # The kind names a CSV file's rows; a JSON document names its own kinds (`read_upload`
    # gives none for JSON: passed, a CSV kind dropped the JSON's other kinds from the
    # preview while Apply wrote them all, QA).
    parsed = io.parse(data, fmt=fmt, kind=kind)
    try:
        preview = service.preview_import(session=session, parsed=parsed, target=target, mode=mode)
    except service.NotFound as e:  # no such list to import into: beside "Import into", 422
        ctx = import_context(session, values) | {"errors": {"target": as_sentence(e.message)}}
        return render(request, "catalog/import.html", ctx, status_code=422)
    ctx = import_context(session, values) | preview_context(preview)
    if preview.ok:
        staged = service.StagedImport(
            data=data,
            format=fmt,
            kind=kind,
            target=target,
            mode=mode,
            name=values.get("name", ""),
        )
        ctx["token"] = service.stage_import(session=session, staged=staged, actor=actor)
    return render(request, "catalog/import.html", ctx, status_code=200 if preview.ok else 422)


@admin.post("/catalog/import/apply")
def import_apply(
    request: Request, session: SessionDep, actor: ActorDep, form: PostedForm
) -> Response:
    """Apply a previewed upload (the token the preview gave) in one transaction."""
    values = form_strings(form)
    try:
        result = service.apply_staged_import(
            session=session, token=values.get("token", ""), actor=actor
        )
    except service.AlreadyApplied as e:
        if e.price_list_id is not None:  # a second click: show what the first one did
            return _redirect(f"/catalog?price_list={e.price_list_id}&imported=1")
        ctx = import_context(session, {}) | {"errors": {"file": e.message}}
        return render(request, "catalog/import.html", ctx, status_code=422)
    except CatalogError as e:
        if e.field not in ("token", "name"):
            raise
        # A name another import took between this preview and its apply: said at the field.
        field = "name" if e.field == "name" else "file"
        ctx = import_context(session, {}) | {"errors": {field: e.message}}
        return render(request, "catalog/import.html", ctx, status_code=422)
    if not result.applied:
        ctx = import_context(session, values) | preview_context(result)
        return render(request, "catalog/import.html", ctx, status_code=422)
    gpus = len(service.gpu_changes(result))
    return _redirect(
        f"/catalog?price_list={result.price_list_id}&imported=1" + (f"&gpus={gpus}" if gpus else "")
    )


@admin.get("/catalog/price-lists/new")
def new_price_list_page(
    request: Request, session: SessionDep, source: DbId | None = Query(None, alias="from")
) -> Response:
    """Start a price list: a copy of another (the current one by default) or an empty one."""
    current = service.current_price_list(session=session)
    src = source if source is not None else (current.id if current else None)
    values = {"source_list": str(src or ""), "effective_date": business_today().isoformat()}
    return render(
        request, "catalog/price_list_form.html", price_list_form_context(session, None, values)
    )


@admin.post("/catalog/price-lists/new")
def create_price_list(
    request: Request, session: SessionDep, actor: ActorDep, form: PostedForm
) -> Response:
    """Create the draft (copying the chosen list's rows); 422 shows the errors by the fields."""
    values = form_strings(form)
    try:
        data, source_id = price_list_create(values)
        if source_id is not None:
            pl = service.new_price_list_from(
                session=session,
                source_id=source_id,
                name=data.name,
                effective_date=data.effective_date,
                actor=actor,
                notes=data.notes,
                source=data.source,
            )
        else:
            pl = service.create_price_list(session=session, data=data, actor=actor)
    except InvalidRow as e:
        return _price_list_form_error(request, session, None, values, e)
    except CatalogError as e:
        # the list to copy was deleted after the form was opened: say so beside "Start from";
        # a 422, as for any wrong value of a field (QA: a 404 with the form and its message)
        session.rollback()
        ctx = price_list_form_context(
            session, None, values, {"source_list": as_sentence(e.message)}
        )
        status = 422 if isinstance(e, service.NotFound) else e.status
        return render(request, "catalog/price_list_form.html", ctx, status_code=status)
    return _redirect(f"/catalog?price_list={pl.id}")


@admin.get("/catalog/price-lists/{price_list_id}/edit")
def edit_price_list_page(request: Request, session: SessionDep, price_list_id: DbId) -> Response:
    """Rename a draft, or change its effective date and notes."""
    pl = service.get_price_list(session=session, price_list_id=price_list_id)
    values = {k: input_value(v) for k, v in pl.model_dump().items()}
    return render(
        request, "catalog/price_list_form.html", price_list_form_context(session, pl, values)
    )


@admin.post("/catalog/price-lists/{price_list_id}/edit")
def update_price_list(
    request: Request, session: SessionDep, actor: ActorDep, price_list_id: DbId, form: PostedForm
) -> Response:
    """Save a draft's name, effective date and notes; 422 shows the errors by the fields. A
    list published or deleted after the form was opened keeps the typed values on screen
    with the refusal (QA: the error page lost them)."""
    values = form_strings(form)
    pl: PriceList | None = None
    try:
        pl = service.get_price_list(session=session, price_list_id=price_list_id)
        data = price_list_update(values)
        service.update_price_list(
            session=session, price_list_id=price_list_id, data=data, actor=actor
        )
    except InvalidRow as e:
        return _price_list_form_error(request, session, pl, values, e)
    except CatalogError as e:
        session.rollback()
        refused: dict[str, object]
        try:  # as it is now (published, or deleted since it was read above)
            pl = service.get_price_list(session=session, price_list_id=price_list_id)
        except service.NotFound:
            pl = None
        if pl is None:  # deleted meanwhile: the form becomes a new list, filled in
            refused = {
                "message": _(
                    "This price list was deleted after the form was opened. Save creates a "
                    "new, empty list with these values."
                ),
                "link": None,
            }
        else:
            link = (_("New draft from this list"), f"/catalog/price-lists/new?from={pl.id}")
            refused = {"message": e.message, "link": link}
        ctx = price_list_form_context(session, pl, values) | {"refused": refused}
        return render(request, "catalog/price_list_form.html", ctx, status_code=e.status)
    return _redirect(f"/catalog?price_list={price_list_id}")


@admin.post("/catalog/price-lists/{price_list_id}/publish")
def publish_price_list(session: SessionDep, actor: ActorDep, price_list_id: DbId) -> Response:
    """Publish a draft: its prices freeze; it becomes current on its effective date."""
    service.publish_price_list(session=session, price_list_id=price_list_id, actor=actor)
    return _redirect(f"/catalog/price-lists?published={price_list_id}")


@admin.post("/catalog/price-lists/{price_list_id}/archive")
def archive_price_list(session: SessionDep, actor: ActorDep, price_list_id: DbId) -> Response:
    """Archive a published list: kept for old quotes, never current again."""
    service.archive_price_list(session=session, price_list_id=price_list_id, actor=actor)
    return _redirect(f"/catalog/price-lists?archived={price_list_id}")


@admin.post("/catalog/price-lists/{price_list_id}/delete")
def delete_price_list(session: SessionDep, actor: ActorDep, price_list_id: DbId) -> Response:
    """Delete a draft and its rows."""
    service.delete_price_list(session=session, price_list_id=price_list_id, actor=actor)
    return _redirect("/catalog/price-lists")


@admin.get("/catalog/{slug}/new")
def new_row_page(
    request: Request, session: SessionDep, slug: str, price_list: DbId | None = None
) -> Response:
    """The form for a new row in a draft list (or a new GPU)."""
    k = kind_for_slug(slug)
    pl = editable_list(session, k, price_list)
    ctx = form_context(session, k, pl, values={}, errors={}, key=None)
    return render(request, "catalog/row_form.html", ctx)


@admin.post("/catalog/{slug}/new")
def create_row(
    request: Request,
    session: SessionDep,
    actor: ActorDep,
    slug: str,
    form: PostedForm,
    price_list: DbId | None = None,
) -> Response:
    """Save a new row; 422 re-renders the form with each error beside its field."""
    k = kind_for_slug(slug)
    values = form_strings(form)
    try:
        pl = editable_list(session, k, price_list)
        data = validated_row(k, values)
        service.create_row(
            session=session, kind_name=k.name, price_list_id=pl_id(pl), data=data, actor=actor
        )
    except InvalidRow as e:
        return _row_form_error(request, session, k, pl, values, e, key=None)
    except CatalogError as e:
        return _row_refused(request, session, k, price_list, values, e, key=None)
    return _redirect(kind_url(k, pl))


@admin.get("/catalog/{slug}/{key:path}/edit")
def edit_row_page(
    request: Request, session: SessionDep, slug: str, key: str, price_list: DbId | None = None
) -> Response:
    """The form for one row, filled in; a published list's rows are shown read-only."""
    k = kind_for_slug(slug)
    pl = selected_list_or_404(session, price_list) if k.scoped else None
    row = service.get_row(session=session, kind_name=k.name, price_list_id=pl_id(pl), key=key)
    values = {c: input_value(v) for c, v in service.row_values(k, row).items()}
    ctx = form_context(session, k, pl, values=values, errors={}, key=key)
    return render(request, "catalog/row_form.html", ctx)


@admin.post("/catalog/{slug}/{key:path}/edit")
def update_row(
    request: Request,
    session: SessionDep,
    actor: ActorDep,
    slug: str,
    key: str,
    form: PostedForm,
    price_list: DbId | None = None,
) -> Response:
    """Save one row; 422 re-renders the form with each error beside its field."""
    k = kind_for_slug(slug)
    values = form_strings(form)
    for f, v in k.key_filter(key).items():
        values[f] = v  # the key is not editable: never trust a posted one
    try:
        pl = editable_list(session, k, price_list)
        data = validated_row(k, values)
        service.update_row(
            session=session,
            kind_name=k.name,
            price_list_id=pl_id(pl),
            key=key,
            data=data,
            actor=actor,
        )
    except InvalidRow as e:
        return _row_form_error(request, session, k, pl, values, e, key=key)
    except CatalogError as e:
        return _row_refused(request, session, k, price_list, values, e, key=key)
    return _redirect(kind_url(k, pl))


@admin.post("/catalog/{slug}/{key:path}/delete")
def delete_row(
    request: Request,
    session: SessionDep,
    actor: ActorDep,
    slug: str,
    key: str,
    price_list: DbId | None = None,
) -> Response:
    """Delete one row of a draft list (a GPU only when no row uses it: refused on its form,
    which says what uses it)."""
    k = kind_for_slug(slug)
    pl = editable_list(session, k, price_list)
    if k.name == "gpus" and (used := service.gpu_usage(session=session, gpu_id=key)):
        # QA: a generic "Something went wrong" page read "2 gpu_prices, 8 servers, 14 offers".
        row = service.get_row(session=session, kind_name=k.name, price_list_id=None, key=key)
        values = {c: input_value(v) for c, v in service.row_values(k, row).items()}
        ctx = form_context(session, k, pl, values=values, errors={}, key=key)
        ctx["refused"] = {
            "message": gpu_in_use(key, used),
            "link": None,
            "title": _("Not deleted."),
        }
        return render(request, "catalog/row_form.html", ctx, status_code=409)
    service.delete_row(
        session=session, kind_name=k.name, price_list_id=pl_id(pl), key=key, actor=actor
    )
    return _redirect(kind_url(k, pl))


# Admin first: its fixed paths (/catalog/import, /catalog/audit) precede /catalog/{slug}.
router = APIRouter(include_in_schema=False)
router.include_router(admin)
router.include_router(public)


def _row_form_error(
    request: Request,
    session: Session,
    k: Kind,
    pl: PriceList | None,
    values: Mapping[str, str],
    e: InvalidRow,
    *,
    key: str | None,
) -> Response:
    errors = validation_messages(e.exc) if e.exc is not None else e.errors
    ctx = form_context(session, k, pl, values=values, errors=errors, key=key)
    block = "form" if is_fragment(request) else None
    return render(request, "catalog/row_form.html", ctx, block_name=block, status_code=422)


def _row_refused(
    request: Request,
    session: Session,
    k: Kind,
    price_list: int | None,
    values: Mapping[str, str],
    e: CatalogError,
    *,
    key: str | None,
) -> Response:
    """The row form again when the save was refused because the list or the row changed
    after the form was opened (published, archived or deleted by someone else, or a row the
    list already has): the refusal, the way on, and what was typed, on screen. QA: the error
    page that answered before lost every typed value."""
    session.rollback()  # nothing of the refused save stays in the session
    try:
        pl = selected_list(session, price_list) if k.scoped or price_list is not None else None
    except service.NotFound:
        pl = None  # the list itself was deleted
    link: tuple[str, str] | None = None
    unsaved = True
    if k.scoped and pl is None:
        link = (_("Back to the price lists"), "/catalog/price-lists")
    elif k.scoped and pl is not None and pl.status != "draft":
        link = (_("New draft from this list"), f"/catalog/price-lists/new?from={pl.id}")
    elif key is not None and isinstance(e, service.NotFound):
        # The row was deleted meanwhile: the form becomes a new row, filled in, so that Save
        # adds it again.
        message = _("“%(key)s” was deleted after this form was opened. Save adds it again.")
        ctx = form_context(session, k, pl, values=values, errors={}, key=None)
        ctx["refused"] = {"message": message % {"key": key}, "link": None}
        return render(request, "catalog/row_form.html", ctx, status_code=e.status)
    else:
        link = (_("Back to the list"), kind_url(k, pl))
        unsaved = False  # the form stays editable with every value in its field
    ctx = form_context(session, k, pl, values=values, errors={}, key=key)
    ctx["refused"] = {"message": e.message, "link": link}
    if unsaved and not ctx["editable"]:
        ctx["unsaved"] = [
            (fld["label"], _option_label(fld, values.get(fld["name"], "")))
            for fld in ctx["fields"]
            if values.get(fld["name"], "").strip()
        ]
    return render(request, "catalog/row_form.html", ctx, status_code=e.status)


def _option_label(fld: Mapping[str, object], value: str) -> str:
    """A select's value as its option reads ("yes", not "true"); other fields as typed."""
    options = fld.get("options") or ()
    assert isinstance(options, (list, tuple))
    return next((label for v, label in options if v == value), value)


def _price_list_form_error(
    request: Request,
    session: Session,
    pl: PriceList | None,
    values: Mapping[str, str],
    e: InvalidRow,
) -> Response:
    errors = validation_messages(e.exc) if e.exc is not None else e.errors
    ctx = price_list_form_context(session, pl, values, errors)
    block = "form" if is_fragment(request) else None
    return render(request, "catalog/price_list_form.html", ctx, block_name=block, status_code=422)


def _redirect(url: str) -> Response:
    return RedirectResponse(url, status_code=303)
