"""Imports: preview and apply a CSV/JSON upload, and load the shipped catalog (the same path)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Final

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.catalog import io
from app.catalog.kinds import KINDS, ORDER
from app.catalog.models import (
    AuditEntry,
    Gpu,
    ImportUpload,
    PriceList,
    PriceListCreate,
    utcnow,
)
from app.catalog.service.audit import record
from app.catalog.service.errors import CatalogError
from app.catalog.service.rows import gpu_ids, list_rows, row_values
from app.catalog.service.versions import (
    check_new_draft_name,
    current_price_list,
    require_draft,
    touch,
    unique_name,
)
from app.catalog.shipped import shipped_document
from app.dates import business_today, in_business_tz
from app.db import hold_row
from app.i18n import N_, gettext

SYSTEM: Final = "system"
#: How long a previewed upload waits for "Apply" (then the file must be uploaded again).
IMPORT_UPLOAD_TTL: Final = timedelta(hours=1)


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
    """The draft an import goes into (None: a new copy of the current list); read only (an
    apply holds the draft before it compares: `apply_import`)."""
    if target is not None:
        pl = require_draft(session, target, hold=False)
        return pl, pl.name
    current = current_price_list(session=session)
    # In the reader's language: the JSON preview's target_name was English on a 中文 client.
    if current is None:
        return None, gettext("a new draft")
    return current, gettext("a new draft copied from “%(name)s”") % {"name": current.name}


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
    upload: str | None = None,
) -> io.ImportPreview:
    """Apply an upload in one transaction: into draft `target`, or into a new draft copied
    from the current list. Any rejected row → nothing is written (`ok` false). GPU specs in
    the file are global: they change for every list (specs are not versioned)."""
    # The draft is held before the comparison, so that it is made with what another import
    # into it wrote (race QA: the second of two applies inserted rows the first had just
    # added, and its user read a database UNIQUE error).
    held = require_draft(session, target) if target is not None else None
    preview, validated = _compare(session, parsed, target, mode)
    if not preview.ok:
        session.rollback()
        return preview
    try:
        pl = (
            held
            if held is not None
            else _new_import_draft(session, new_name, effective_date, actor)
        )
        assert pl.id is not None
        _write_rows(session, pl.id, validated.valid, preview, mode)
        touch(pl)
        summary = (
            f"import ({parsed.format}): {len(preview.added)} added, {len(preview.changed)} "
            f"changed, {len(preview.removed)} removed, {preview.unchanged} unchanged"
        )
        record(
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
                **({"upload": upload} if upload else {}),
            },
            summary=summary,
        )
        _record_gpu_changes(session, actor, preview)
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


def _gpu_keys(preview: io.ImportPreview) -> dict[str, list[str]]:
    """The GPU ids an import adds, changes and removes, by kind of change."""
    return {
        change: [c.key for c in getattr(preview, change) if c.kind == "gpus"]
        for change in ("added", "changed", "removed")
    }


def gpu_changes(preview: io.ImportPreview) -> list[str]:
    """The GPU ids an import adds, changes or removes: GPU specs are not versioned, so these
    take effect for every price list, the current one included, when the import is applied."""
    return [key for keys in _gpu_keys(preview).values() for key in keys]


def _record_gpu_changes(session: Session, actor: str, preview: io.ImportPreview) -> None:
    """An audit entry of the import's GPU spec changes, as the GPU form writes one: the price
    books are cached by the latest GPU entry (`books._book_key`), so without it an imported
    spec reached the catalog pages at once but the planner only after a restart (QA)."""
    by_change = _gpu_keys(preview)
    keys = [key for keys in by_change.values() for key in keys]
    if not keys:
        return
    record(
        session,
        actor,
        "import",
        "gpus",
        ", ".join(keys),
        None,
        None,
        by_change,
        summary=f"import: GPU specs of {', '.join(keys)} (shared by every price list)",
    )


# --------------------------------------------------------------------------------------------
# A previewed upload, kept server-side until it is applied (issue 13)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StagedImport:
    """What the preview was of: the file and the choices it was previewed with."""

    data: bytes
    format: io.Format
    kind: str | None
    target: int | None
    mode: io.Mode
    name: str


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def stage_import(
    *,
    session: Session,
    staged: StagedImport,
    actor: str,
    now: datetime | None = None,
) -> str:
    """Keep a previewed upload for `IMPORT_UPLOAD_TTL`; returns the token that applies it.

    The file is stored zlib-compressed (a 10 MB CSV of offers is ≈1 MB), the token only as
    its SHA-256. Expired uploads of anyone are deleted on the way."""
    now = now or utcnow()
    session.exec(delete(ImportUpload).where(col(ImportUpload.created_at) < now - IMPORT_UPLOAD_TTL))
    token = secrets.token_urlsafe(32)
    session.add(
        ImportUpload(
            token_hash=_token_hash(token),
            created_by=actor,
            created_at=now,
            format=staged.format,
            kind=staged.kind,
            target_price_list_id=staged.target,
            mode=staged.mode,
            name=staged.name[:200],
            content=zlib.compress(staged.data, 1),
        )
    )
    session.commit()
    return token


def _staged_row(session: Session, token: str, actor: str, now: datetime) -> ImportUpload:
    expired = CatalogError(
        "This preview has expired or is not valid (a preview is kept for an hour, for the "
        "admin who made it). Upload the file again.",
        field="token",
    )
    if not token or len(token) > 100:
        raise expired
    row = session.exec(
        select(ImportUpload).where(ImportUpload.token_hash == _token_hash(token))
    ).first()
    if row is None or not hmac.compare_digest(row.created_by, actor):
        raise expired
    created = row.created_at
    if created.tzinfo is None:
        now = now.replace(tzinfo=None)  # SQLite hands back naive UTC
    if created < now - IMPORT_UPLOAD_TTL:
        raise expired
    return row


def staged_import(
    *, session: Session, token: str, actor: str, now: datetime | None = None
) -> StagedImport:
    """The upload `token` names. A token that is unknown, altered, expired or someone
    else's is a `CatalogError` on the field `token` saying to upload again."""
    return _as_staged(_staged_row(session, token, actor, now or utcnow()))


def _as_staged(row: ImportUpload) -> StagedImport:
    fmt: io.Format = "csv" if row.format == "csv" else "json"
    mode: io.Mode = "upsert" if row.mode == "upsert" else "sync"
    return StagedImport(
        data=zlib.decompress(row.content),
        format=fmt,
        kind=row.kind,
        target=row.target_price_list_id,
        mode=mode,
        name=row.name,
    )


class AlreadyApplied(CatalogError):
    """The staged upload was applied before (a second click on Apply); `price_list_id` is
    the list it went into (None when the record of it is no longer among the latest)."""

    def __init__(self, price_list_id: int | None) -> None:
        super().__init__(
            N_("This upload has already been applied: see the price lists for its result."),
            field="token",
        )
        self.price_list_id = price_list_id


#: How many of the latest imports are searched for an upload applied before.
APPLIED_LOOKBACK: Final = 50


def _upload_mark(token: str) -> str:
    """What an import's audit entry keeps of its staged upload: enough of the token's
    SHA-256 to find it again, never the token."""
    return _token_hash(token)[:16]


def _applied_into(session: Session, token: str) -> int | None:
    """The price list the upload `token` was applied into, from the latest imports' audit."""
    if not token or len(token) > 100:
        return None
    mark = _upload_mark(token)
    entries = session.exec(
        select(AuditEntry)
        .where(AuditEntry.action == "import")
        .order_by(col(AuditEntry.id).desc())
        .limit(APPLIED_LOOKBACK)
    )
    return next((e.price_list_id for e in entries if (e.after or {}).get("upload") == mark), None)


def apply_staged_import(
    *, session: Session, token: str, actor: str, now: datetime | None = None
) -> io.ImportPreview:
    """Apply the upload `token` names, all-or-nothing (`apply_import`: validated and
    compared again, since the target may have changed since the preview). Applied, the
    stored upload is deleted in the same transaction; rejected, it stays for another try."""
    try:
        row = _staged_row(session, token, actor, now or utcnow())
    except CatalogError:
        # No upload under this token: applied already (a second click on Apply after the
        # first one finished), or expired. The first is answered with where it went.
        applied = _applied_into(session, token)
        if applied is not None:
            raise AlreadyApplied(applied) from None
        raise
    staged = _as_staged(row)
    parsed = io.parse(staged.data, fmt=staged.format, kind=staged.kind)
    # The token is claimed by deleting its row, first: committed with the import, or rolled
    # back with it. Of two applies of one token (a double click) the second finds nothing
    # to delete once the first has committed, and says so (race QA: a token was applied
    # twice in 19–20 of 20 rounds, and into a new draft the second click read "a price list
    # with this name already exists" for an import that had worked).
    claimed = session.execute(
        delete(ImportUpload)
        .where(col(ImportUpload.id) == row.id)
        .execution_options(synchronize_session=False)
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        raise AlreadyApplied(_applied_into(session, token))
    session.expunge(row)
    result = apply_import(
        session=session,
        parsed=parsed,
        target=staged.target,
        actor=actor,
        mode=staged.mode,
        new_name=staged.name or None,
        upload=_upload_mark(token),
    )
    if not result.applied:
        session.rollback()
    return result


def _free_name(session: Session, base: str) -> str:
    """`base`, or `base (2)`, `base (3)`… whichever no list has yet (race QA: two imports
    without a name in the same second got the same default name, and the second a 422)."""
    taken = set(
        session.exec(select(PriceList.name).where(col(PriceList.name).startswith(base))).all()
    )
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base} ({n})"
    return name


def _new_import_draft(
    session: Session, name: str | None, effective: date | None, actor: str
) -> PriceList:
    current = current_price_list(session=session)
    if current is not None:
        # Imports into new drafts take turns on the list they copy (a no-op write of its row:
        # its content and revision stay as they are), so that a default name is chosen
        # seeing the one the other import took.
        assert current.id is not None
        hold_row(session, PriceList, current.id, PriceList.revision)
    # On Taipei's clock, and saying so: the default name read as local time while it was UTC
    # ("Import 2026-12-06 22:30:00" for an import at 06:30 on 7 December in Taipei).
    stamp = in_business_tz(utcnow()).strftime("%Y-%m-%d %H:%M:%S") + " UTC+8"
    name = check_new_draft_name(session, name or "") or _free_name(session, f"Import {stamp}")
    effective = effective or business_today()
    if current is None:
        head = PriceListCreate(name=name, effective_date=effective, notes="Imported")
        unique_name(session, head.name)
        pl = PriceList(**head.model_dump(), status="draft", created_by=actor)
        session.add(pl)
        session.flush()
        return pl
    assert current.id is not None
    # new_price_list_from commits; here the copy must share the import's transaction.
    unique_name(session, name)
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
            # said to people on the catalog pages: no file paths (QA)
            notes="The catalog shipped with Stratagem.",
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
    touch(pl)
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
    record(
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
