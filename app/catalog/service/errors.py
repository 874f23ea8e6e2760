"""Errors the catalog service raises: `DomainError`s (app/errors.py), so the one handler in
app/web/errors.py answers 404 / 409 / 422 — JSON naming the parameter under /api/, the error
page elsewhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from app import errors

#: Parameters sent in the request body (multipart); every other catalog parameter is a query.
BODY_FIELDS = frozenset({"file"})


class CatalogError(errors.DomainError):
    """Bad input or a forbidden change; `field` names the culprit (for a 422 / inline error)."""

    status = 422

    def __init__(
        self, message: str, *, field: str | None = None, where: str | None = None, **params: Any
    ) -> None:
        # where: None reads a field as the catalog's routes take it (`BODY_FIELDS` in the
        # body, the rest in the query); "path" for an id in the URL's path
        super().__init__(message, field=field, where=where or "", **params)

    def field_messages(self) -> dict[str, str]:
        return {self.field or "": self.message}

    def json_body(self) -> dict[str, Any]:
        """FastAPI's validation-error shape, so clients parse one format for every 4xx."""
        return {
            "detail": [
                errors.field_detail(
                    f, msg, where=self.where or ("body" if f in BODY_FIELDS else "query")
                )
                for f, msg in self.field_messages().items()
            ]
        }


class NotFound(CatalogError):
    status = 404


class Conflict(CatalogError):
    """The change contradicts the catalog's state (a published list, a GPU still in use)."""

    status = 409


class InvalidRow(CatalogError):
    """A form or API row that failed validation: `errors` maps field → message."""

    def __init__(self, errors: Mapping[str, str], *, exc: ValidationError | None = None) -> None:
        first = next(iter(errors.items()), ("", "invalid"))
        super().__init__(f"{first[0]} {first[1]}".strip(), field=first[0] or None)
        self.errors = dict(errors)
        self.exc = exc  # the pydantic error, for pages that translate the messages

    def field_messages(self) -> dict[str, str]:
        return self.errors
