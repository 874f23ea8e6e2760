"""Exports: a list's rows as CSV or JSON."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sqlmodel import Session

from app.catalog import io
from app.catalog.kinds import KINDS, ORDER
from app.catalog.service.errors import CatalogError
from app.catalog.service.rows import list_rows, row_values
from app.catalog.service.versions import get_price_list


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
