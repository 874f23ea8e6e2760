"""The validation page (/validation): the engine against every published run it is checked on."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.validation.views import validation_page
from app.web.templating import activate, is_fragment, render

router = APIRouter(include_in_schema=False)


@router.get("/validation")
def validation(request: Request) -> Response:
    """Validation: published runs, predicted vs reported; an HTMX filter gets the runs block."""
    activate(request)
    ctx = validation_page(request.query_params)
    blocks = ["runs"] if is_fragment(request) else None
    return render(request, "validation/index.html", ctx, block_name=blocks)
