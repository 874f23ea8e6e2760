"""The sales queue (/leads): self-assessment quote requests, newest first.

Sales and admins list them (filtered by status), open one, change its status, or convert it
into a plan prefilled from the customer's answers. A lead has no plan column (its table
belongs to the self-assessment), so the link is kept in its `answers` JSON as
``plan_id`` and the plan is tagged ``lead-<id>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import func
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.accounts.web import SalesPageUser
from app.assess import views as assessment
from app.deps import SessionDep
from app.i18n import N_
from app.i18n import gettext as _
from app.leads.models import LEAD_STATUSES, Lead
from app.planner import views as planner
from app.plans import service as plans
from app.web.csrf import CsrfDep
from app.web.templating import activate, choose_currency, render

STATUS_NAMES: Final = {
    "new": N_("New request"),
    "contacted": N_("Contacted"),
    "converted": N_("Converted"),
    "closed": N_("Closed"),
}
ANSWER_NAMES: Final = {
    "task": N_("Task"),
    "size": N_("Model size (billions)"),
    "size_other": N_("Other size (billions)"),
    "data": N_("Training data (GB)"),
    "deadline": N_("Deadline (days)"),
    "users": N_("Concurrent users"),
}
PER_PAGE: Final = 50

router = APIRouter(include_in_schema=False)


class LeadNotFound(Exception):
    pass


# --------------------------------------------------------------------------------------------
# Service (the only place lead changes commit from the queue)
# --------------------------------------------------------------------------------------------


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
        raise LeadNotFound(lead_id)
    return lead


def set_lead_status(*, session: Session, lead_id: int, status: str) -> Lead:
    """Move a lead through the queue (new → contacted → converted / closed)."""
    if status not in LEAD_STATUSES:
        raise ValueError(status)
    lead = get_lead(session=session, lead_id=lead_id)
    lead.status = status
    session.add(lead)
    session.commit()
    session.refresh(lead)
    return lead


def convert_lead(*, session: Session, lead_id: int, owner: User, currency: str) -> int:
    """A plan prefilled from the lead's answers, linked to it; the lead becomes 'converted'.

    Converting twice opens the plan made the first time. Returns the plan id."""
    lead = get_lead(session=session, lead_id=lead_id)
    existing = lead.answers.get("plan_id")
    if isinstance(existing, int):
        return existing
    req, _errors = assessment.build_request({k: str(v) for k, v in lead.answers.items()}, currency)
    workload: Any = req
    if req is None:  # an answer the form no longer accepts: start from the planner default
        workload, _unused = planner.build_request(planner.DEFAULTS, currency)
    plan = plans.create_plan(
        session=session,
        owner=owner,
        name=_("Quote request from %(company)s") % {"company": lead.company},
        customer=lead.company,
        workload=workload,
        notes=_("From quote request #%(id)s: %(name)s <%(email)s>")
        % {
            "id": lead.id,
            "name": lead.name,
            "email": lead.email,
        }
        + (f"\n\n{lead.notes}" if lead.notes else ""),
        tags=[f"lead-{lead.id}"],
    )
    lead = get_lead(session=session, lead_id=lead_id)
    lead.answers = {**lead.answers, "plan_id": plan.id}
    flag_modified(lead, "answers")
    lead.status = "converted"
    session.add(lead)
    session.commit()
    assert plan.id is not None
    return plan.id


def answer_rows(lead: Lead) -> list[tuple[str, str]]:
    rows = []
    for key, label in ANSWER_NAMES.items():
        value = str(lead.answers.get(key) or "")
        if not value:
            continue
        if key == "task":
            value = _(planner.TASK_NAMES.get(value, value))
        elif value == "none":
            value = _("No deadline")
        elif value == "other":
            value = _("Other")
        rows.append((_(label), value))
    return rows


# --------------------------------------------------------------------------------------------
# Routes
# --------------------------------------------------------------------------------------------


def _not_found(request: Request) -> Response:
    return render(request, "_error.html", {"status": 404}, status_code=404)


@router.get("/leads")
def leads_list(request: Request, session: SessionDep, user: SalesPageUser) -> Response:
    """The sales queue: quote requests, newest first, filtered by status."""
    activate(request)
    status = request.query_params.get("status", "")
    status = status if status in LEAD_STATUSES else ""
    page = list_leads(session=session, status=status or None)
    ctx = {"nav_active": "plans", "page": page, "status": status, "status_names": STATUS_NAMES}
    return render(request, "leads/list.html", {**ctx, "tier_names": planner.TIER_NAMES})


@router.get("/leads/{lead_id}")
def lead_detail(
    lead_id: int, request: Request, session: SessionDep, user: SalesPageUser
) -> Response:
    """One quote request: contact, answers, status and the plan made from it."""
    activate(request)
    try:
        lead = get_lead(session=session, lead_id=lead_id)
    except LeadNotFound:
        return _not_found(request)
    ctx = {
        "nav_active": "plans",
        "lead": lead,
        "answers": answer_rows(lead),
        "status_names": STATUS_NAMES,
        "tier_names": planner.TIER_NAMES,
    }
    return render(request, "leads/detail.html", ctx)


@router.post("/leads/{lead_id}/status")
async def lead_status(
    lead_id: int, request: Request, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep
) -> Response:
    """Change a quote request's status."""
    status = str((await request.form()).get("status", ""))
    try:
        set_lead_status(session=session, lead_id=lead_id, status=status)
    except LeadNotFound:
        return _not_found(request)
    except ValueError:
        ctx = {"status": 422, "message": _("Choose a status.")}
        return render(request, "_error.html", ctx, status_code=422)
    return RedirectResponse(f"/leads/{lead_id}", status_code=303)


@router.post("/leads/{lead_id}/convert")
def lead_convert(
    lead_id: int, request: Request, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep
) -> Response:
    """Create a plan prefilled from the lead's answers, link it, and open it."""
    activate(request)
    try:
        plan_id = convert_lead(
            session=session, lead_id=lead_id, owner=user, currency=choose_currency(request)
        )
    except LeadNotFound:
        return _not_found(request)
    return RedirectResponse(f"/plans/{plan_id}", status_code=303)
