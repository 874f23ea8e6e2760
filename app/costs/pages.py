"""The cost comparison page (/tco): rent by the hour, month or term, buy, or cloud."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.catalog.current import price_book
from app.costs.views import tco_page
from app.web.templating import activate, choose_currency, is_fragment, render

router = APIRouter(include_in_schema=False)


@router.get("/tco")
def tco(request: Request) -> Response:
    """Costs: one configuration priced every way, break-even and 1–5 year TCO (HTMX: results)."""
    activate(request)
    ctx = tco_page(
        request.query_params, currency=choose_currency(request), book=price_book(request)
    )
    blocks = ["results", "field_errors"] if is_fragment(request) else None
    return render(request, "pages/tco.html", ctx, block_name=blocks)
