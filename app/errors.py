"""Errors become clear 4xx answers: the field, what is wrong, what is allowed. Never a 500."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from app.engine.estimate import InputError

log = logging.getLogger("stratagem")


def field_error(field: str, message: str, status: int = 422) -> JSONResponse:
    """The same shape FastAPI uses for validation errors, so clients parse one format."""
    loc = ["body", *field.split(".")] if field else ["body"]
    return JSONResponse(
        status_code=status,
        content={"detail": [{"loc": loc, "msg": message, "type": "value_error"}]},
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(InputError)
    async def _input_error(_: Request, exc: InputError) -> JSONResponse:
        return field_error(exc.field, str(exc))
