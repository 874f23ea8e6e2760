"""Share links: create, list, revoke, resolve. The only place share links commit.

Who may share: whoever may change the plan (its owner or an admin, `plans.service.can_edit`).
A visitor with the token sees the plan read-only until the link expires or is revoked.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta
from typing import Final

from sqlmodel import Session, col, select

from app.accounts.models import User
from app.i18n import N_
from app.plans import service as plans
from app.plans.models import Plan
from app.sharing.models import ShareLink, utcnow

TOKEN_BYTES: Final = 24  # secrets.token_urlsafe(24): 192 bits, 32 URL-safe characters
MAX_DAYS: Final = 365


class LinkGone(Exception):
    """The link existed but was revoked or has expired (a 410 page)."""

    def __init__(self, reason: str, *, plan_id: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason  # "revoked" | "expired"
        #: The plan the link was to: its page speaks the customer's language.
        self.plan_id = plan_id


class LinkNotFound(Exception):
    """No link has this token (a 404 page)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _aware(value: datetime | None) -> datetime | None:
    # SQLite hands datetimes back naive; they were stored as UTC.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def create_link(
    *, session: Session, plan_id: int, actor: User, expires_in_days: int | None = None
) -> tuple[ShareLink, str]:
    """A new link to the plan: (row, token). The token is not stored; show it once."""
    plan = plans.get_plan(session=session, plan_id=plan_id)
    if not plans.can_edit(actor, plan):
        raise plans.Forbidden(f"only the owner or an admin can share {plan.quote_number}")
    if expires_in_days is not None and not 1 <= expires_in_days <= MAX_DAYS:
        raise plans.Invalid("expires_in_days", f"must be between 1 and {MAX_DAYS} days")
    assert actor.id is not None
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = utcnow()
    link = ShareLink(
        plan_id=plan_id,
        token_hash=hash_token(token),
        created_by=actor.id,
        created_at=now,
        expires_at=now + timedelta(days=expires_in_days) if expires_in_days else None,
    )
    session.add(link)
    session.commit()
    session.refresh(link)
    return link, token


def is_active(link: ShareLink, now: datetime | None = None) -> bool:
    now = now or utcnow()
    expires = _aware(link.expires_at)
    return link.revoked_at is None and (expires is None or expires > now)


def revoke_links(*, session: Session, plan_id: int, actor: User, link_id: int | None = None) -> int:
    """Revoke one link (`link_id`) or every active link of the plan; returns how many."""
    plan = plans.get_plan(session=session, plan_id=plan_id)
    if not plans.can_edit(actor, plan):
        raise plans.Forbidden(f"only the owner or an admin can revoke links to {plan.quote_number}")
    stmt = select(ShareLink).where(
        ShareLink.plan_id == plan_id, col(ShareLink.revoked_at).is_(None)
    )
    if link_id is not None:
        stmt = stmt.where(ShareLink.id == link_id)
    links = list(session.exec(stmt))
    if link_id is not None and not links:
        existing = session.get(ShareLink, link_id)
        if existing is None or existing.plan_id != plan_id:
            raise plans.NotFound(
                N_("plan %(plan)s has no share link %(link)s"), plan=plan_id, link=link_id
            )
    now = utcnow()
    for link in links:
        link.revoked_at = now
        session.add(link)
    session.commit()
    return len(links)


def require_open(session: Session, link_id: int) -> None:
    """LinkGone unless the link is still neither revoked nor expired, read inside the
    transaction that writes a customer's answer, after the plan's row (`plans.Guard`).

    Checked only when the page opened, an accept could land after the owner revoked the link
    (race QA: decided 7–16 ms after revoked, in 7/40 rounds on SQLite, 15/40 on PostgreSQL).
    Here the row is read FOR SHARE on PostgreSQL, so a revoke either committed first (and is
    seen: the answer rolls back) or waits for the answer to commit; on SQLite the answer's
    UPDATE already holds the database's one write lock, so no revoke can commit meanwhile."""
    link = session.exec(
        select(ShareLink)
        .where(ShareLink.id == link_id)
        .with_for_update(read=True)
        .execution_options(populate_existing=True)  # not the copy read before the write
    ).one()
    if link.revoked_at is not None:
        raise LinkGone("revoked", plan_id=link.plan_id)
    if not is_active(link):
        raise LinkGone("expired", plan_id=link.plan_id)


def link_for(*, session: Session, token: str) -> ShareLink | None:
    """The link a token names, whatever its state (None: no such link)."""
    if not token or len(token) > 128:
        return None
    return session.exec(select(ShareLink).where(ShareLink.token_hash == hash_token(token))).first()


def resolve(*, session: Session, token: str) -> tuple[ShareLink, Plan]:
    """The link and plan a token opens; LinkNotFound, or LinkGone when revoked or expired."""
    link = link_for(session=session, token=token)
    if link is None:
        raise LinkNotFound()
    if link.revoked_at is not None:
        raise LinkGone("revoked", plan_id=link.plan_id)
    if not is_active(link):
        raise LinkGone("expired", plan_id=link.plan_id)
    try:
        # get_plan marks a sent quote past its validity date expired: the share page showed
        # it as still "sent", with the accept form, until someone else opened it (QA).
        plan = plans.get_plan(session=session, plan_id=link.plan_id)
    except plans.NotFound:  # pragma: no cover - the FK cascades
        raise LinkNotFound() from None
    return link, plan
