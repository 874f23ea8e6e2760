"""HTMX conventions: which requests want a fragment, and how to move the whole page.

A page route renders its full template for a normal request and only the named block for
an HTMX swap (`templating.render(..., block_name=...)`); links and forms keep an `href` /
`action` that works without JavaScript.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response


def is_fragment(request: Request) -> bool:
    """An HTMX request for part of a page (not a history restore, which needs the page)."""
    h = request.headers
    return h.get("hx-request") == "true" and h.get("hx-history-restore-request") != "true"


def redirect(url: str) -> Response:
    """Tell HTMX to load `url` as a whole page (a 303 would be swapped into the fragment)."""
    return Response(status_code=204, headers={"HX-Redirect": url})
