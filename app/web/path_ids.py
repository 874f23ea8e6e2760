"""Ids in a path that cannot name a row answer 404 (issue 13: "ids out of range give 404").

`/api/v1/plans/0`, `/plans/9223372036854775808` or `/plans/12abc` name nothing that exists,
exactly like an id no row has: the answer is the same 404 (JSON under /api/, the error page
elsewhere), not a 422 about the parameter. `check_path_ids` is an app-wide dependency
(`create_app`), so it runs before the route's own dependencies: an anonymous visitor gets
the 404 too rather than a sign-in prompt for a page that cannot exist (it reveals nothing:
no row has such an id).

Which parameters: every path parameter declared as an integer (`DbId`), and the `price_list`
query parameter (a record reference that pages and the API already answer 404 for when no
such list exists). Other integer query parameters (`offset`, `page`, `limit`, `version`,
`from`/`to`, `ids`, the list filters) are bounds and filters, not addresses: out of range they
stay a 422 naming the parameter, with the range in the OpenAPI schema.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.routing import APIRoute

from app.errors import NotFound
from app.i18n import N_
from app.ids import DB_ID_MAX

#: Query parameters that name one record (404 when out of range, like a missing record).
RECORD_QUERY_PARAMS = frozenset({"price_list"})


#: What a refused id is not, by parameter: the page says "“abc” is not a plan number.", not
#: the parameter's name in the code ("No record has this id (plan_id).", QA); the JSON's
#: `loc` keeps the name for a program.
_NOT_A_NUMBER: dict[str, str] = {
    "plan_id": N_("“%(value)s” is not a plan number."),
    "pid": N_("“%(value)s” is not a plan number."),
    "customer_id": N_("“%(value)s” is not a customer number."),
    "price_list": N_("“%(value)s” is not a price list number."),
    "price_list_id": N_("“%(value)s” is not a price list number."),
    "lead_id": N_("“%(value)s” is not a quote request number."),
}
_NOT_ANY_NUMBER = N_("“%(value)s” is not the number of anything this site keeps.")
#: An id longer than this is echoed cut, with "…" (no id is longer than 10 digits).
ECHO_CHARS = 40


class NoSuchId(NotFound):
    """404 for an id no row can have; the JSON names the parameter (path or query) in `loc`,
    the message says the value as the reader typed it."""

    def __init__(self, name: str, *, where: str, value: str = "") -> None:
        shown = value if len(value) <= ECHO_CHARS else value[:ECHO_CHARS] + "…"
        message = _NOT_A_NUMBER.get(name, _NOT_ANY_NUMBER)
        super().__init__(message, field=name, where=where, value=shown)


def is_db_id(text: str) -> bool:
    """Whether `text` is the decimal form of an id a row can have (1 … 2^31 − 1)."""
    return 0 < len(text) <= 10 and text.isascii() and text.isdigit() and 1 <= int(text) <= DB_ID_MAX


def _int_params(route: APIRoute) -> tuple[frozenset[str], frozenset[str]]:
    cached: tuple[frozenset[str], frozenset[str]] | None = getattr(route, "_db_id_params", None)
    if cached is None:
        d = route.dependant
        path = frozenset(p.name for p in d.path_params if p.field_info.annotation is int)
        query = frozenset(p.alias for p in d.query_params if p.name in RECORD_QUERY_PARAMS)
        cached = (path, query)
        route._db_id_params = cached  # type: ignore[attr-defined]
    return cached


def check_path_ids(request: Request) -> None:
    """Raise `NotFound` when an id in the path (or `price_list=`) cannot name a row."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    path, query = _int_params(route)
    for name in path:
        if not is_db_id(str(request.path_params.get(name, ""))):
            raise NoSuchId(name, where="path", value=str(request.path_params.get(name, "")))
    for name in query:
        value = request.query_params.get(name)
        if value is not None and value != "" and not is_db_id(value):
            raise NoSuchId(name, where="query", value=value)
