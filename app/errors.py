"""The one family of errors domain code raises, and how each reads as JSON.

Services, the engine bridge and the page dependencies raise a `DomainError` (or a subclass
with its own status); `app.web.errors` turns it into the JSON answer of an `/api/...` route
or the error page of an HTML route, with the message translated into the request's language.
Nothing here imports the web framework, so services can raise these freely.

Shapes on the wire (unchanged from before the family existed, so clients parse one format):

* an error that names a `field` — FastAPI's validation shape,
  ``{"detail": [{"loc": ["body", *field], "msg": …, "type": "value_error"}]}``;
* one that does not — ``{"detail": "message"}``;
* a subclass may add members to the body (`Conflict` adds the current version).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from app.i18n import gettext

#: DomainError's own keywords: a message parameter of one of these names cannot be passed
#: as one (it would be taken for the keyword).
RESERVED_PARAMS: Final = frozenset({"field", "message", "where"})


class DomainError(Exception):
    """A request the domain refuses: `status`, the `field` at fault, a message id and its
    parameters (``message % params`` after translation)."""

    status: ClassVar[int] = 422
    #: The error page's variant ("csrf", "forbidden", …); None for the generic page.
    kind: ClassVar[str | None] = None

    def __init__(
        self, message: str = "", *, field: str | None = None, where: str = "body", **params: Any
    ) -> None:
        super().__init__(message % params if params else message)
        self.message_id = message
        self.field = field
        # where the field was sent ("body", "query", "path"): the first part of its `loc`
        self.where = where
        self.params = params

    @property
    def message(self) -> str:
        """The message in the active language (the msgid itself where no translation exists)."""
        text = gettext(self.message_id) if self.message_id else ""
        return text % self.params if self.params else text

    def json_body(self) -> dict[str, Any]:
        if self.field is not None:
            return {"detail": [field_detail(self.field, self.message, where=self.where)]}
        return {"detail": self.message}


def field_detail(field: str, message: str, *, where: str = "body") -> dict[str, Any]:
    """One item of FastAPI's validation-error list: `field` is a dotted path."""
    # List indexes as numbers, the way FastAPI's own validation errors give them.
    parts = [int(p) if p.isdigit() else p for p in field.split(".")] if field else []
    loc = [where, *parts]
    return {"loc": loc, "msg": message, "type": "value_error"}


class Invalid(DomainError):
    """A value the domain refuses (422); `field` is its dotted path."""

    status = 422


class InvalidNested(Invalid):
    """Input a service validates itself (a plan import's `workload`), refused by pydantic:
    its `errors`, their `loc` under `prefix`, are worded by the web layer as the API words
    its own (app.web.errors): pydantic's English "Field required" reached a 中文 client (QA)."""

    def __init__(self, errors: list[dict[str, Any]], *, prefix: tuple[str, ...]) -> None:
        self.errors = [{**e, "loc": ("body", *prefix, *e.get("loc", ()))} for e in errors]
        first = self.errors[0] if self.errors else {}
        loc = ".".join(str(p) for p in first.get("loc", ())[1:])
        super().__init__(str(first.get("msg", "")), field=loc or None)


class NotFound(DomainError):
    status = 404


class Forbidden(DomainError):
    """A signed-in user may not do this (403)."""

    status = 403


class Conflict(DomainError):
    """The change contradicts the current state (409)."""

    status = 409


class LoginRequired(DomainError):
    """An anonymous visitor asked for a page that needs a signed-in user (→ /login)."""

    status = 401

    def __init__(self, next_path: str) -> None:
        super().__init__("Sign in to continue.")
        self.next_path = next_path


class PageForbidden(Forbidden):
    """A signed-in user without the role a page needs (rendered as the 403 page)."""

    kind = "forbidden"

    def __init__(self, roles: tuple[str, ...]) -> None:
        super().__init__(", ".join(roles))
        self.roles = roles


class FormExpired(Forbidden):
    """A page write without a valid CSRF token (403, the "form has expired" page)."""

    kind = "csrf"


class Unavailable(DomainError):
    """A part the request needs did not answer in time (503): trying again may work."""

    status = 503


class TooManyRequests(DomainError):
    """A rate limit (app/ratelimit): 429 with `Retry-After: retry_after` seconds."""

    status = 429

    def __init__(self, message: str = "", *, retry_after: int, **params: Any) -> None:
        super().__init__(message, **params)
        self.retry_after = retry_after
