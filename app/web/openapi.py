"""The OpenAPI document as an integrator's client generator needs it (issue 13).

* **Short operation ids**: the route's name (`estimate`, `create_plan`), not FastAPI's
  `post_estimate_api_v1_estimate_post`; `operation_id` is passed to `FastAPI` as its
  `generate_unique_id_function`, and `install` fails loudly should two API routes share one.
* **Every status code a route can answer**, with the one error body every error has
  (`Error`: `detail` is a message or FastAPI's list of `{loc, msg, type}`). Which codes a route
  can give follows from what it depends on — see `error_codes`.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, iter_route_contexts

ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "required": ["detail"],
    "properties": {
        "detail": {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"$ref": "#/components/schemas/ValidationError"}},
            ],
            "description": "What went wrong: a message, or one item per invalid field.",
        },
        "request_id": {"type": "string", "description": "Quote it when reporting a 500."},
    },
}

DESCRIPTIONS: dict[int, str] = {
    401: "Sign-in required, or the bearer token is invalid or revoked.",
    403: "Signed in, but this role may not do this.",
    404: "No such resource (or not visible to you).",
    409: "The resource changed meanwhile, or is not in a state that allows this.",
    413: "The request body is larger than the limit (settings STRATAGEM_MAX_JSON_BYTES, "
    "STRATAGEM_MAX_CSV_BYTES), or a form sends more than 1,000 fields or files or more than "
    "1 MB in one field.",
    415: "The body's content type is not one this route reads, or the body is compressed "
    "(a Content-Encoding other than identity).",
    422: "Invalid input: a body that is not valid JSON (or CSV, or multipart form data), or a "
    "field that is missing, of the wrong type or out of range; `detail` names each field "
    "and what it allows.",
    429: "Too many requests; retry after the `Retry-After` seconds.",
    500: "An unexpected error; the body carries a request id.",
    503: "No price list is loaded.",
}


def operation_id(route: APIRoute) -> str:
    """The route's name (its function's name unless the decorator gives `name=`)."""
    return route.name


def _dependency_names(route: APIRoute) -> set[str]:
    names: set[str] = set()
    stack = list(route.dependant.dependencies)
    while stack:
        dep = stack.pop()
        names.add(getattr(dep.call, "__name__", type(dep.call).__name__))
        stack.extend(dep.dependencies)
    return names


def error_codes(route: APIRoute) -> set[int]:
    """The error statuses `route` can answer, from its parameters and dependencies."""
    deps = _dependency_names(route)
    d = route.dependant
    codes = {401, 500}  # every API route reads an optional bearer token; anything can fail
    if d.path_params or d.query_params or d.body_params or d.header_params:
        codes.add(422)
    signed_in = "api_user" in deps or "require_catalog_admin" in deps
    if signed_in:
        codes |= {403, 404}
    if d.path_params or any(p.name == "price_list" for p in d.query_params):
        codes.add(404)
    writes = bool((route.methods or set()) & {"POST", "PUT", "PATCH", "DELETE"})
    if writes:
        codes |= {413, 422}  # a body may be malformed (422, as FastAPI answers) or too large
        if signed_in:
            codes.add(409)
    if "import_catalog" == route.name or d.body_params:
        codes.add(415)  # a JSON body sent under another content type (app/web/failures.py)
    if "current_prices" in deps:
        codes.add(503)
    return codes


def install(app: FastAPI) -> None:
    """Replace `app.openapi` by one that documents every error status and the Error body."""
    api_routes: list[tuple[str, APIRoute]] = [
        (ctx.path_format, ctx.route)
        for ctx in iter_route_contexts(app.routes)
        if isinstance(ctx.route, APIRoute)
        and ctx.route.include_in_schema
        and ctx.path_format is not None
        and ctx.path_format.startswith("/api/")
    ]
    seen: dict[str, str] = {}
    for path, r in api_routes:
        for method in r.methods or ():
            key = operation_id(r)
            if key in seen and seen[key] != path + method:
                raise RuntimeError(f"two API operations are both named {key!r}: give one name=")
            seen[key] = path + method

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        spec = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=app.routes,
            tags=app.openapi_tags,
        )
        schemas = spec.setdefault("components", {}).setdefault("schemas", {})
        schemas["Error"] = ERROR_SCHEMA
        schemas.setdefault(
            "ValidationError",
            {
                "title": "ValidationError",
                "type": "object",
                "required": ["loc", "msg", "type"],
                "properties": {
                    "loc": {
                        "type": "array",
                        "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    },
                    "msg": {"type": "string"},
                    "type": {"type": "string"},
                },
            },
        )
        ref = {"$ref": "#/components/schemas/Error"}
        for path, r in api_routes:
            for method in r.methods or ():
                op = spec["paths"].get(path, {}).get(method.lower())
                if op is None:
                    continue
                responses = op.setdefault("responses", {})
                # and the error statuses a route declares itself (a GET that answers 409: QA
                # found the price-list comparison's 409 documented with no body)
                own = {int(c) for c in r.responses if str(c).isdigit() and int(c) >= 400}
                for code in sorted(error_codes(r) | own):
                    declared = r.responses.get(code) or r.responses.get(str(code))
                    if declared and "content" in responses.get(str(code), {}):
                        # The route's own body for this status (catalog import: the preview
                        # of rejected rows) or, from the shared error path, an Error.
                        body = responses[str(code)]["content"]["application/json"]
                        body["schema"] = {"anyOf": [body["schema"], ref]}
                        continue
                    responses[str(code)] = {
                        # the route's own words for it where it gives them
                        "description": (declared or {}).get("description") or DESCRIPTIONS[code],
                        "content": {"application/json": {"schema": ref}},
                    }
        schemas.pop("HTTPValidationError", None)
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]
