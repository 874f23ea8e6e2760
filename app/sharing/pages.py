"""Share-link pages: create/revoke forms from the plan page, and the public view /s/{token}."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.web import PageUser
from app.deps import SessionDep
from app.ids import DbId
from app.plans import service as plans
from app.quotes.pdf import render_quote_pdf
from app.quotes.routes import pdf_response
from app.ratelimit import deps as limits
from app.ratelimit.service import SHARE_LOOKUPS
from app.sharing import service
from app.sharing.routes import share_url
from app.sharing.views import shared_context
from app.web.csrf import CsrfDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)
# A shared page must not leak its secret URL to other sites, nor be indexed.
SHARED_HEADERS = {"Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex, nofollow"}
Lang = Annotated[Literal["zh-TW", "en"], Query()]


def _refused(request: Request, exc: Exception) -> Response:
    gone = isinstance(exc, service.LinkGone)
    ctx = {"reason": exc.reason if isinstance(exc, service.LinkGone) else "unknown"}
    return render(
        request, "sharing/gone.html", ctx, status_code=410 if gone else 404, headers=SHARED_HEADERS
    )


@router.post("/plans/{plan_id}/share")
def create_share(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    user: PageUser,
    _csrf: CsrfDep,
    expires_in_days: Annotated[int | None, Form(ge=1, le=365)] = None,
) -> Response:
    """Create a share link from the plan page and show its URL once."""
    link, token = service.create_link(
        session=session, plan_id=plan_id, actor=user, expires_in_days=expires_in_days
    )
    plan = plans.get_plan(session=session, plan_id=plan_id)
    ctx = {"plan": plan, "link": link, "url": share_url(request, token), "nav_active": "plans"}
    return render(request, "sharing/created.html", ctx, headers={"Cache-Control": "no-store"})


@router.post("/plans/{plan_id}/share/revoke")
def revoke_shares(plan_id: DbId, session: SessionDep, user: PageUser, _csrf: CsrfDep) -> Response:
    """Revoke every active share link of the plan, then go back to the plan."""
    service.revoke_links(session=session, plan_id=plan_id, actor=user)
    return RedirectResponse(f"/plans/{plan_id}", status_code=303)


@router.get("/s/{token}", name="shared_plan")
def shared_plan(token: str, request: Request, session: SessionDep) -> Response:
    """The read-only, customer-facing view of a shared plan."""
    limits.enforce(request, session, SHARE_LOOKUPS)  # 429 after 10 bad tokens a minute
    try:
        _, plan = service.resolve(session=session, token=token)
    except (service.LinkGone, service.LinkNotFound) as exc:
        limits.count(request, session, SHARE_LOOKUPS)
        return _refused(request, exc)
    ctx = shared_context(session=session, plan=plan, token=token)
    return render(request, "sharing/shared.html", ctx, headers=SHARED_HEADERS)


@router.get("/s/{token}/quote.pdf")
def shared_pdf(token: str, request: Request, session: SessionDep, lang: Lang = "zh-TW") -> Response:
    """The PDF quote of a shared plan."""
    limits.enforce(request, session, SHARE_LOOKUPS)  # 429 after 10 bad tokens a minute
    try:
        _, plan = service.resolve(session=session, token=token)
    except (service.LinkGone, service.LinkNotFound) as exc:
        limits.count(request, session, SHARE_LOOKUPS)
        return _refused(request, exc)
    response = pdf_response(plan, render_quote_pdf(plan, lang=lang, session=session))
    response.headers.update(SHARED_HEADERS)
    return response


@router.get("/plans/{plan_id}/quote.pdf")
def plan_pdf(plan_id: DbId, session: SessionDep, _: PageUser, lang: Lang = "zh-TW") -> Response:
    """The plan's PDF quote, for signed-in users."""
    plan = plans.get_plan(session=session, plan_id=plan_id)
    return pdf_response(plan, render_quote_pdf(plan, lang=lang, session=session))
