"""An answer that must never fail itself: the 422 for invalid input.

* `validation_error` renders FastAPI's `RequestValidationError` as the usual
  `{"detail": [{"loc", "msg", "type", "input"}]}` but with the echoed `input` made safe:
  NaN and ±Infinity become strings (JSON has no such numbers and `json.dumps` refuses them),
  and any input longer than `ECHO_LIMIT` characters is cut, so a 300 MB body is never sent
  back (issue 13); lone UTF-16 surrogates (`"\\ud800"` is valid JSON, but no UTF-8 can
  carry it) become U+FFFD in every echoed string — input, loc, msg, ctx and dict keys —
  or the 422 itself would fail to encode.
* The last-resort 500 is `app.ops.middleware.RequestMiddleware`: JSON with the request id
  under `/api/` (a short text page elsewhere), and it *does not re-raise*: Starlette's
  `ServerErrorMiddleware` re-raises after answering, and uvicorn then closes the keep-alive
  connection; here the response completes normally and the client can send its next request.
"""

from __future__ import annotations

import json
import logging
import math
import re
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from app.web.api_messages import body_errors

log = logging.getLogger("stratagem.errors")

#: Most characters of a user's input a validation error echoes back.
ECHO_LIMIT = 200
#: Most validation errors listed in one 422 (a list of 100,000 bad items is one answer).
MAX_ERRORS = 20

_SURROGATE = re.compile("[\ud800-\udfff]")


def safe_text(value: object, limit: int = ECHO_LIMIT) -> str:
    """`str(value)` cut to `limit` characters (an ellipsis says so), lone surrogates as U+FFFD."""
    text = str(value)
    cut = text if len(text) <= limit else text[:limit] + "…"
    return _SURROGATE.sub("\ufffd", cut)


def safe_value(value: Any, *, depth: int = 0) -> Any:
    """`value` as JSON can carry it: non-finite floats as strings, long text and deep or
    large containers cut to `ECHO_LIMIT` characters of their JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**63 else f"{str(value)[:20]}… ({len(str(value))} digits)"
    if isinstance(value, str):
        return safe_text(value)
    if depth < 4 and isinstance(value, (list, tuple, dict)):
        try:
            text = json.dumps(jsonable_encoder(value), allow_nan=True, default=str)
        except (RecursionError, ValueError, TypeError):
            text = None
        if text is not None and len(text) <= ECHO_LIMIT:
            if isinstance(value, dict):
                return {safe_text(k): safe_value(v, depth=depth + 1) for k, v in value.items()}
            return [safe_value(v, depth=depth + 1) for v in value]
        # json.dumps escapes surrogates (ensure_ascii), so the cut text is plain ASCII.
        return (text or type(value).__name__)[:ECHO_LIMIT] + "…"
    return safe_text(value)


def safe_errors(errors: Any) -> list[dict[str, Any]]:
    """Pydantic's error list with every part JSON can carry and none longer than needed."""
    out: list[dict[str, Any]] = []
    for err in list(errors)[:MAX_ERRORS]:
        item: dict[str, Any] = {
            "type": safe_text(err.get("type", "value_error")),
            "loc": [p if isinstance(p, int) else safe_text(p) for p in err.get("loc", ())],
            "msg": safe_text(err.get("msg", ""), ECHO_LIMIT * 2),
        }
        if "input" in err:
            item["input"] = safe_value(err["input"])
        ctx = err.get("ctx")
        if isinstance(ctx, dict):
            item["ctx"] = {
                safe_text(k): safe_value(v if isinstance(v, (int, float)) else str(v))
                for k, v in ctx.items()
            }
        out.append(item)
    return out


#: What FastAPI reports when a JSON route got a body it did not parse as JSON (it reads a
#: body whose Content-Type is not JSON as bytes, which no model accepts).
_NOT_AN_OBJECT = frozenset({"model_attributes_type", "dict_type"})


def is_json_type(content_type: str) -> bool:
    """Whether a Content-Type header names JSON (application/json, or any +json type)."""
    ctype = content_type.split(";", 1)[0].strip().lower()
    return ctype == "application/json" or ctype.endswith("+json")


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """The 422 for a request FastAPI could not validate, safe to serialise whatever came in.

    A body sent without a JSON Content-Type (curl's default form type, text/plain) is a 415
    that says so, rather than "Input should be a valid dictionary" about its bytes (QA)."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    ctype = request.headers.get("content-type", "")
    if (
        len(errors) == 1
        and tuple(errors[0].get("loc", ())) == ("body",)
        and errors[0].get("type") in _NOT_AN_OBJECT
        and isinstance(errors[0].get("input"), bytes)
        and not is_json_type(ctype)
    ):
        sent = safe_text(ctype.split(";", 1)[0].strip() or "none", 80)
        detail = {
            "type": "content_type",
            "loc": ["header", "content-type"],
            "msg": f"Send the body as JSON with Content-Type: application/json (got {sent})",
            "input": sent,
        }
        return JSONResponse(status_code=415, content={"detail": [detail]})
    # In the request's language, each naming what the field allows (app.web.api_messages).
    return JSONResponse(
        status_code=422, content={"detail": safe_errors(body_errors(request, errors))}
    )
