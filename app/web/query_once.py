"""A query parameter a route takes once, sent more than once, is a 422 naming it.

FastAPI keeps the last value of a repeated scalar query parameter without a word:
`GET /api/v1/plans/3/pdf?lang=en&lang=zh-TW` answered a Chinese quote to a client that may
have meant English (QA). Which one the client meant cannot be known, so each such request
is refused the way a repeated JSON key (app/web/json_body.py) and a repeated form field
(app/web/forms.py) are: a 422 at `["query", name]`, in the reader's language, before the
route runs.

`check_query_once` is an app-wide dependency (`create_app`) for the parameters a route
declares: the API's, and the few a page declares (a quote PDF's `lang`, the catalog's search
and sort), whose refusal is the error page in the reader's language. A declared list
parameter may repeat; an undeclared one is ignored, as FastAPI ignores it, so a page that
reads its own query string keeps its rules (/compare's `ids` ticks repeat by design).
"""

from __future__ import annotations

from collections import Counter
from types import UnionType
from typing import Any, Union, get_args, get_origin

from fastapi import Request
from fastapi.routing import APIRoute

from app.errors import Invalid
from app.web.forms import REPEATED

_SEQUENCES = (list, tuple, set, frozenset)


def _is_sequence(annotation: Any) -> bool:
    """Whether a parameter annotated so takes several values (`list[str] | None` does)."""
    origin = get_origin(annotation)
    if origin in _SEQUENCES:
        return True
    if origin is Union or origin is UnionType:
        return any(_is_sequence(a) for a in get_args(annotation))
    return False


def _scalar_params(route: APIRoute) -> frozenset[str]:
    """The query parameters (by their name in the URL) the route takes one value of."""
    cached: frozenset[str] | None = getattr(route, "_scalar_query_params", None)
    if cached is None:
        cached = frozenset(
            p.alias
            for p in route.dependant.query_params
            if not _is_sequence(p.field_info.annotation)
        )
        route._scalar_query_params = cached  # type: ignore[attr-defined]
    return cached


def check_query_once(request: Request) -> None:
    """Raise `Invalid` (422 at ["query", name]) when a route's scalar query parameter is sent
    more than once."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    query = request.query_params
    if len(query) == len(query.multi_items()):
        return  # every key once: the common case costs one comparison
    scalar = _scalar_params(route)
    counts = Counter(k for k, _v in query.multi_items())
    for name, n in counts.items():
        if n > 1 and name in scalar:
            raise Invalid(REPEATED, field=name, where="query", name=name, n=n)
