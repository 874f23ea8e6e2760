"""The planner page (/plan): the workload form and its live results."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.catalog.current import price_book
from app.planner import views as planner
from app.web.templating import activate, choose_currency, is_fragment, render

router = APIRouter(include_in_schema=False)


@router.get("/plan")
def plan(request: Request) -> Response:
    """Planner: the full workload form; an HTMX request gets only the results block."""
    lang = activate(request)
    ctx = planner.plan_page(
        request.query_params, currency=choose_currency(request), book=price_book(request), lang=lang
    )
    blocks = ["results", "field_errors"] if is_fragment(request) else None
    return render(request, "pages/plan.html", ctx, block_name=blocks)
