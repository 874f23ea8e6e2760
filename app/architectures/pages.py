"""The reference architectures page (/architectures): seed 003's three templates, priced live."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.architectures.views import architectures_context
from app.web.templating import activate, render

router = APIRouter(include_in_schema=False)


@router.get("/architectures")
def architectures(request: Request) -> Response:
    """Reference architectures: entry, growth and training templates with prices and power."""
    activate(request)
    return render(request, "pages/architectures.html", architectures_context(request))
