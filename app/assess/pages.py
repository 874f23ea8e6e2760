"""The self-assessment (/assess): three questions and the task → tier; 'request a quote'."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.architectures import content
from app.assess import views as assessment
from app.catalog.current import price_book
from app.deps import SessionDep
from app.errors import TooManyRequests
from app.i18n import gettext as _
from app.leads import service as lead_service
from app.leads import views as lead_views
from app.ratelimit import deps as limits
from app.ratelimit.service import QUOTE_REQUESTS
from app.web.csrf import CsrfDep
from app.web.forms import PostedText
from app.web.templating import activate, choose_currency, is_fragment, render

router = APIRouter(include_in_schema=False)


def _context(request: Request, query: Any) -> dict[str, Any]:
    currency = choose_currency(request)
    book = price_book(request)
    a = assessment.assess(query, currency=currency, book=book)
    return {
        "nav_active": "assess",
        "a": a,
        "options": assessment,
        "tier_rows": assessment.tier_rows(content.tier_rows(request, currency)),
        "lead": {},
        "lead_errors": {},
        "errors": a.errors,
        "sent": query.get("sent") == "1",
        **assessment.result_context(a, book=book, currency=currency),
    }


@router.get("/assess")
def assess(request: Request) -> Response:
    """Self-assessment: the questions, and once answered the tier (HTMX: the result only)."""
    activate(request)
    ctx = _context(request, request.query_params)
    return render(request, "pages/assess.html", ctx, "result" if is_fragment(request) else None)


@router.post("/assess/quote")
def request_quote(
    request: Request, session: SessionDep, _csrf: CsrfDep, form: PostedText
) -> Response:
    """Store a 'request a quote' lead for sales; inline errors when the form is incomplete."""
    lang = activate(request)
    ctx = _context(request, form)
    try:
        slot = limits.reserve(request, session, QUOTE_REQUESTS)  # 429 past 5 leads / 10 min
    except TooManyRequests as e:
        # Said above the form, with every typed value kept: the bare error page lost the
        # name, company and e-mail of a visitor correcting a typo (QA).
        ctx.update(lead=form, lead_limited=e.message)
        headers = {"Retry-After": str(e.retry_after)}
        if is_fragment(request):  # HTMX swaps a 2xx only
            return render(request, "pages/assess.html", ctx, "quote", headers=headers)
        return render(request, "pages/assess.html", ctx, status_code=429, headers=headers)
    a = ctx["a"]
    if a.resp is None:
        # No tier to attach (a request posted without its answers: the answers travel as the
        # form's hidden fields). QA: a 422 with no word. The questions are named as "Show my
        # tier" names them, and an HTMX swap of the form says why above it.
        slot.release()
        named = a.errors or assessment.build_request(a.answers, choose_currency(request))[1]
        ctx.update(
            a=assessment.Assessment(a.answers, named),
            errors=named,
            lead=form,
            lead_limited=_(
                "Answer the questions above first: your request goes with the tier they give."
            ),
        )
        if is_fragment(request):
            return render(request, "pages/assess.html", ctx, "quote")
        return render(request, "pages/assess.html", ctx, status_code=422)
    tier = ctx["tier"].key if a.resp else ""  # the tier the page showed (a fleet's servers')
    # The currency the customer read the price in goes with the answers: the customer and
    # plan a lead converts into are in it (QA: a US$ reader's lead became a NT$ customer).
    answers = {**a.answers, "currency": choose_currency(request)}
    data, errors = lead_views.parse_lead(form, lang=lang, tier=tier, answers=answers)
    if data is None or a.resp is None:
        slot.release()  # an incomplete form costs nothing
        errors = errors or {"": ""}
        ctx.update(lead=form, lead_errors=errors, errors={**a.errors, **errors})
        # A full page says 422; an HTMX swap gets 200 (browsers log every 4xx as an error).
        if is_fragment(request):
            return render(request, "pages/assess.html", ctx, "quote")
        return render(request, "pages/assess.html", ctx, status_code=422)
    lead_service.create_lead(session=session, data=data)
    if is_fragment(request):
        ctx.update(sent=True)
        return render(request, "pages/assess.html", ctx, "quote")
    query = urlencode({**{k: v for k, v in a.answers.items() if v}, "sent": "1"})
    return RedirectResponse(f"/assess?{query}#quote", status_code=303)
