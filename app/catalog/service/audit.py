"""The audit trail: every change writes an `AuditEntry` in the transaction that commits it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic_core import to_jsonable_python
from sqlmodel import Session, col, select

from app.catalog.models import (
    AUDIT_ACTOR_MAX,
    AUDIT_SUMMARY_MAX,
    AUDIT_WORD_MAX,
    TEXT_MAX,
    AuditEntry,
    PriceList,
)

_T = TypeVar("_T")


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


def jsonable(values: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if values is None:
        return None
    return dict(to_jsonable_python(dict(values)))


def price_list_dict(pl: PriceList) -> dict[str, Any]:
    return (
        jsonable(
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


def record(
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
            actor=_cut(actor or "anonymous", AUDIT_ACTOR_MAX),
            action=_cut(action, AUDIT_WORD_MAX),
            entity=_cut(entity, AUDIT_WORD_MAX),
            entity_key=_cut(key, TEXT_MAX),
            price_list_id=price_list_id,
            before=before,
            after=after,
            summary=_cut(summary, AUDIT_SUMMARY_MAX),
        )
    )


def _cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` − 1 characters and "…" (the columns are VARCHAR(limit))."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def commit(session: Session, obj: _T) -> _T:
    session.commit()
    session.refresh(obj)
    return obj
