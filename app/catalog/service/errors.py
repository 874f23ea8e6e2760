"""Errors the catalog service raises; the routes turn them into 404 / 409 / 422 responses."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError


class CatalogError(Exception):
    """Bad input or a forbidden change; `field` names the culprit (for a 422 / inline error)."""

    status = 422

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


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
