"""JSON API v1: a plan's PDF quote, its bill of materials (CSV), export and import."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, status
from fastapi.responses import Response

from app.accounts.deps import AdminUser, ApiUser
from app.deps import SessionDep, SettingsDep
from app.ids import DbId
from app.plans import service as plans
from app.plans.models import Plan, PlanPublic
from app.quotes import export, service
from app.quotes.bom import bom_csv
from app.quotes.models import QuoteActionIn
from app.quotes.pdf import filename, render_quote_pdf
from app.quotes.service import bom_for

router = APIRouter(prefix="/api/v1/plans", tags=["quotes"])
Lang = Annotated[Literal["zh-TW", "en"], Query(description="Language of the quote.")]


def pdf_response(plan: Plan, pdf: bytes, *, lang: str, inline: bool = False) -> Response:
    """application/pdf named `<quote_number>-<lang>.pdf`."""
    disposition = "inline" if inline else "attachment"
    return Response(
        pdf,
        media_type="application/pdf",
        headers={"Content-Disposition": f'{disposition}; filename="{filename(plan, lang)}"'},
    )


@router.post("/import", status_code=status.HTTP_201_CREATED, response_model=PlanPublic)
def import_plan(body: export.PlanImport, session: SessionDep, user: ApiUser) -> PlanPublic:
    """Create a new plan (owned by you) from an export, re-priced or with its price list."""
    plan = export.import_plan(session=session, owner=user, data=body)
    return service.public(session=session, plan=plan)


@router.get("/{plan_id}/pdf", response_class=Response)
def quote_pdf(
    plan_id: DbId,
    session: SessionDep,
    _: ApiUser,
    settings: SettingsDep,
    lang: Lang | None = None,
) -> Response:
    """The plan's PDF quote in 中文 or English; by default in its customer's language (a
    plan without a customer record: 中文)."""
    plan = plans.get_plan(session=session, plan_id=plan_id)
    language = lang or service.document_language(session=session, plan=plan)
    printed = service.seller_copy(session=session, plan=plan)
    pdf = render_quote_pdf(
        printed, lang=language, session=session, letterhead=service.letterhead(settings)
    )
    return pdf_response(plan, pdf, lang=language)


@router.get("/{plan_id}/export", response_model=export.PlanExport)
def export_plan(plan_id: DbId, session: SessionDep, _: ApiUser) -> export.PlanExport:
    """The plan as JSON that `POST /api/v1/plans/import` accepts."""
    return export.export_plan(plans.get_plan(session=session, plan_id=plan_id))


@router.get("/{plan_id}/bom.csv", response_class=Response)
def bom(plan_id: DbId, session: SessionDep, _: ApiUser) -> Response:
    """The bill of materials as CSV (UTF-8 with BOM, for Excel)."""
    plan = plans.get_plan(session=session, plan_id=plan_id)
    body = bom_csv(bom_for(session=session, plan=plan), quote_number=plan.quote_number)
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{plan.quote_number}-bom.csv"'},
    )


@router.post(
    "/{plan_id}/send",
    response_model=PlanPublic,
    responses={409: {"description": "Decided, waiting for a discount approval, or changed."}},
)
def send_quote(
    plan_id: DbId,
    session: SessionDep,
    user: ApiUser,
    settings: SettingsDep,
    body: QuoteActionIn | None = None,
) -> PlanPublic:
    """Send the quote: freeze this revision for the customer's link (409 if approval is due,
    or if the quote changed since `version`). Sending what was already sent is a no-op.
    `sent_edition` is the version number the customer's documents print."""
    plan = service.send_quote(
        session=session,
        plan_id=plan_id,
        actor=user,
        limit_pct=settings.sales_discount_limit_pct,
        version=body.version if body else None,
    )
    return service.public(session=session, plan=plan)


@router.post(
    "/{plan_id}/approve-discount",
    response_model=PlanPublic,
    responses={409: {"description": "Decided, or changed since `version`."}},
)
def approve_discount(
    plan_id: DbId, session: SessionDep, user: AdminUser, body: QuoteActionIn | None = None
) -> PlanPublic:
    """Approve the quote's discount (admin); who, when and how deep are recorded, with a
    revision in the plan's history. 409 if the quote changed since `version`."""
    plan = service.approve_discount(
        session=session, plan_id=plan_id, actor=user, version=body.version if body else None
    )
    return service.public(session=session, plan=plan)
