"""The sales queue (/leads): self-assessment quote requests, newest first.

Sales and admins list them (filtered by status), open one, change its status, or convert it
into a plan prefilled from the customer's answers. A lead has no plan column (its table
belongs to the self-assessment), so the link is kept in its `answers` JSON as
``plan_id`` and the plan is tagged ``lead-<id>``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.web import SalesPageUser
from app.assess import views as assessment
from app.catalog.current import price_book
from app.deps import SessionDep
from app.errors import Conflict, Invalid
from app.i18n import gettext as _
from app.i18n import listing
from app.ids import DbId
from app.leads import service, views
from app.leads.models import LEAD_STATUSES, STATUS_NAMES, Lead
from app.planner import views as planner
from app.web.csrf import CsrfDep
from app.web.forms import PostedText
from app.web.templating import activate, choose_currency, render

router = APIRouter(include_in_schema=False)


@router.get("/leads")
def leads_list(request: Request, session: SessionDep, user: SalesPageUser) -> Response:
    """The sales queue: quote requests, newest first, filtered by status."""
    activate(request)
    asked = request.query_params.get("status", "")
    status = asked if asked in LEAD_STATUSES else ""
    page = service.list_leads(session=session, status=status or None)
    # a status the queue does not have is named, not quietly shown as "All" (QA)
    refused = (
        _("Status “%(value)s” is not a request status (%(allowed)s): every request is shown.")
        # by the names the page's filter shows (QA read "new、contacted、converted、closed")
        % {"value": asked[:60], "allowed": listing([_(STATUS_NAMES[s]) for s in LEAD_STATUSES])}
        if asked and not status
        else ""
    )
    ctx = {
        "nav_active": "leads",
        "page": page,
        "status": status,
        "status_refused": refused,
        "status_names": STATUS_NAMES,
    }
    return render(request, "leads/list.html", {**ctx, "tier_names": planner.TIER_NAMES})


def _detail(
    request: Request, session: SessionDep, lead: Lead, *, error: str = "", status: int = 200
) -> Response:
    ctx = {
        "nav_active": "leads",
        "lead": lead,
        "answers": views.answer_rows(lead),
        "status_names": STATUS_NAMES,
        "statuses": service.statuses_for(lead),
        "tier_names": planner.TIER_NAMES,
        "status_error": error,
    }
    return render(request, "leads/detail.html", ctx, status_code=status)


@router.get("/leads/{lead_id}")
def lead_detail(
    lead_id: DbId, request: Request, session: SessionDep, user: SalesPageUser
) -> Response:
    """One quote request: contact, answers, status and the plan made from it."""
    activate(request)
    return _detail(request, session, service.get_lead(session=session, lead_id=lead_id))


@router.post("/leads/{lead_id}/status")
def lead_status(
    lead_id: DbId,
    request: Request,
    session: SessionDep,
    user: SalesPageUser,
    _csrf: CsrfDep,
    form: PostedText,
) -> Response:
    """Change a quote request's status, if it still has the one the page showed (`shown`);
    otherwise the page again, saying what it is now."""
    activate(request)
    try:
        service.set_lead_status(
            session=session,
            lead_id=lead_id,
            status=form.get("status", ""),
            # a damaged hidden field is an older page's form, not a status it showed
            shown=shown if (shown := form.get("shown", "")) in LEAD_STATUSES else None,
        )
    except (Invalid, Conflict) as refused:
        lead = service.get_lead(session=session, lead_id=lead_id)
        return _detail(request, session, lead, error=refused.message, status=refused.status)
    return RedirectResponse(f"/leads/{lead_id}", status_code=303)


@router.post("/leads/{lead_id}/convert")
def lead_convert(
    lead_id: DbId, request: Request, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep
) -> Response:
    """Create a plan prefilled from the lead's answers, link it, and open it."""
    activate(request)
    book = price_book(request)

    def workload(lead: Lead) -> Any:
        # The workload the customer's card stated (`assessment.planner_request`: an image
        # lead is the monthly service it priced, not a one-off batch), in the currency the
        # customer read it in (a lead stored before leads kept it: this page's).
        currency = service.lead_currency(lead) or choose_currency(request)
        answers = {k: str(v) for k, v in lead.answers.items()}
        req = assessment.planner_request(assessment.assess(answers, currency=currency, book=book))
        if req is None:  # an answer the form no longer accepts: start from the planner default
            req, _unused = planner.build_request(planner.DEFAULTS, currency)
        return req

    plan_id = service.convert_lead(session=session, lead_id=lead_id, owner=user, workload=workload)
    return RedirectResponse(f"/plans/{plan_id}", status_code=303)
