"""The sales queue's service: list, open, move and convert leads (the only place they commit).

A lead has no plan column (its table belongs to the self-assessment), so the link to the plan
made from it is kept in its `answers` JSON as ``plan_id`` and the plan is tagged ``lead-<id>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final, Literal

from sqlalchemy import func
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, col, select

from app import i18n, text
from app.accounts.models import User
from app.customers import service as customers
from app.customers.models import CustomerCreate
from app.db import hold_row, take_turns
from app.errors import Conflict, Invalid, NotFound
from app.i18n import gettext as _
from app.leads.models import LEAD_STATUSES, STATUS_NAMES, Lead, LeadCreate
from app.plans import service as plans

PER_PAGE = 50


class LeadNotFound(NotFound):
    pass


#: The same request again within this time is the first one (a double click on "Request a
#: quote", a form sent again): one lead, not two in the sales queue.
SAME_REQUEST_WITHIN: Final = timedelta(minutes=10)


def create_lead(*, session: Session, data: LeadCreate) -> Lead:
    """Store a lead (status 'new'); all of it or, on any error, nothing. The same request
    made again within `SAME_REQUEST_WITHIN` returns the lead already stored (race QA: a
    double submit stored two leads in 20 of 20 rounds)."""
    lead = Lead.model_validate(data.model_dump())
    try:
        take_turns(session, f"lead:{lead.email.lower()}")
        session.add(lead)
        session.flush()  # SQLite: the write lock is held from here (`take_turns`)
        earlier = _same_request(session, lead)
        if earlier is not None:
            session.rollback()
            return earlier
        session.commit()
    except Exception:
        session.rollback()
        raise
    session.refresh(lead)
    return lead


def _same_request(session: Session, lead: Lead) -> Lead | None:
    """An earlier lead with the same person, company, notes and answers, recent enough."""
    since = lead.created_at - SAME_REQUEST_WITHIN
    candidates = session.exec(
        select(Lead)
        .where(
            col(Lead.id) != lead.id,
            col(Lead.email) == lead.email,
            col(Lead.company) == lead.company,
            col(Lead.name) == lead.name,
            col(Lead.notes) == lead.notes,
            col(Lead.created_at) >= since,
        )
        .order_by(col(Lead.id))
    )
    return next((c for c in candidates if c.answers == lead.answers and c.lang == lead.lang), None)


@dataclass(frozen=True, slots=True)
class LeadPage:
    items: list[Lead]
    total: int
    counts: dict[str, int]


def list_leads(*, session: Session, status: str | None = None, limit: int = PER_PAGE) -> LeadPage:
    """Leads newest first, optionally of one status, with the count per status."""
    stmt = select(Lead)
    if status:
        stmt = stmt.where(col(Lead.status) == status)
    stmt = stmt.order_by(col(Lead.created_at).desc(), col(Lead.id).desc()).limit(limit)
    counts = dict(session.exec(select(Lead.status, func.count()).group_by(col(Lead.status))).all())
    total = counts.get(status, 0) if status else sum(counts.values())
    return LeadPage(items=list(session.exec(stmt)), total=total, counts=counts)


def get_lead(*, session: Session, lead_id: int) -> Lead:
    lead = session.get(Lead, lead_id)
    if lead is None:
        raise LeadNotFound("no lead %(id)s", id=lead_id)
    return lead


class LeadStatusChanged(Conflict):
    """The status form was sent from a page that showed another status than the lead has now
    (a colleague moved it, or converted it, meanwhile)."""


def plan_made(lead: Lead) -> int | None:
    """The id of the plan converted from `lead` (kept in its answers), if any."""
    plan_id = lead.answers.get("plan_id")
    return plan_id if isinstance(plan_id, int) else None


def statuses_for(lead: Lead) -> tuple[str, ...]:
    """The statuses a lead may be moved to by hand. "Converted" means a plan was made from it
    (Convert to plan sets it): a lead without a plan cannot be marked converted, and one with
    a plan is converted or closed, never new again."""
    if plan_made(lead) is not None:
        return ("converted", "closed")
    return ("new", "contacted", "closed")


def set_lead_status(
    *, session: Session, lead_id: int, status: str, shown: str | None = None
) -> Lead:
    """Move a lead through the queue (new → contacted → closed; converting sets converted).

    `shown`: the status the page showed when the form was sent. When the lead has moved
    since (a colleague's change, a conversion), nothing is changed and `LeadStatusChanged`
    says to what: the last click no longer silently wins (race QA of stop 30: a lead
    converted meanwhile was set back to "contacted" with its plan still linked). The lead's
    row is held first, so a conversion running at that moment is waited for."""
    if status not in LEAD_STATUSES:
        raise Invalid("Choose a status.", field="status")
    lead: Lead | None = hold_row(session, Lead, lead_id, Lead.status)
    if lead is None:
        raise LeadNotFound("no lead %(id)s", id=lead_id)
    if shown is not None and shown != lead.status:
        session.rollback()
        raise LeadStatusChanged(
            "This request's status was changed meanwhile, to “%(now)s”: nothing was changed. "
            "Check it, then change it again if you still want to.",
            field="status",
            now=_(STATUS_NAMES.get(lead.status, lead.status)),
        )
    if status not in statuses_for(lead):
        session.rollback()
        if status == "converted":
            raise Invalid(
                "A request becomes converted when a plan is made from it: use “Convert to plan”.",
                field="status",
            )
        raise Invalid(
            "A plan was made from this request: it stays converted, or is closed.",
            field="status",
        )
    if lead.status != status:
        lead.status = status
        session.add(lead)
    session.commit()
    session.refresh(lead)
    return lead


def _printable(value: str) -> str:
    """`value` without control or text-direction characters: a lead stored before its form
    refused them still converts (a customer's name refuses them, and the convert was a
    500, QA)."""
    return "".join(ch for ch in value if text.bad_character(ch) is None).strip()


def lead_currency(lead: Lead) -> Literal["TWD", "USD"] | None:
    """The currency the customer read the self-assessment's price in (kept with the answers
    since quote requests recorded it); None for an older lead."""
    currency = lead.answers.get("currency")
    return currency if currency in ("TWD", "USD") else None


def convert_lead(
    *, session: Session, lead_id: int, owner: User, workload: Callable[[Lead], Any]
) -> int:
    """A customer and a plan prefilled from the lead's answers, linked to it; the lead
    becomes 'converted'. The customer is found again by its 統一編號 when the request gave
    one, else by company name (`customers.find_or_create`).

    `workload(lead)` builds the plan's workload from the lead's answers (the page passes the
    self-assessment's request builder). Converting twice opens the plan made the first time.
    Returns the plan id.

    One transaction, which starts by holding the lead's row (a no-op UPDATE: a row lock on
    PostgreSQL, SQLite's write lock): a second conversion sent meanwhile (a double click)
    waits, then finds the first one's plan (race QA: two plans in 19–20 of 20 rounds)."""
    lead: Lead | None = hold_row(session, Lead, lead_id, Lead.status)
    if lead is None:
        raise LeadNotFound("no lead %(id)s", id=lead_id)
    if (existing := plan_made(lead)) is not None:
        return existing
    customer_language: Literal["zh-TW", "en"] = "en" if lead.lang == "en" else "zh-TW"
    customer = customers.find_or_create(
        session=session,
        data=CustomerCreate(
            name=_printable(lead.company) or lead.email,
            tax_id=lead.tax_id,
            contact=_printable(lead.name),
            email=lead.email,
            language=customer_language,
            currency=lead_currency(lead) or "TWD",
        ),
        commit=False,
    )
    plan = plans.create_plan(
        session=session,
        owner=owner,
        # The plan's name is on the customer's quote and share page: in the customer's
        # language, not the sales engineer's (QA: an English lead converted from the 中文
        # queue read "ACME Taiwan 的報價需求" on its English share page).
        name=i18n.translations(customer_language).gettext("Quote request from %(company)s")
        % {"company": _printable(lead.company)},
        # The customer's own name: a 統一編號 finds a customer that may be written otherwise
        # ("台中好物" for "台中好物電商有限公司"), and a plan's name must be its customer's.
        customer=customer.name,
        customer_id=customer.id,
        workload=workload(lead),
        notes=_("From quote request #%(id)s: %(name)s <%(email)s>")
        % {
            "id": lead.id,
            "name": lead.name,
            "email": lead.email,
        }
        + (f"\n\n{lead.notes}" if lead.notes else ""),
        tags=[f"lead-{lead.id}"],
        commit=False,
    )
    lead.answers = {**lead.answers, "plan_id": plan.id}
    flag_modified(lead, "answers")
    lead.status = "converted"
    session.add(lead)
    session.commit()
    assert plan.id is not None
    return plan.id
