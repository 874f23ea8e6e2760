"""Authentication dependencies for the JSON API: bearer tokens and role checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app import i18n
from app.accounts import service
from app.accounts.models import ROLES, User
from app.deps import SessionDep
from app.i18n import N_

# auto_error=False: the 401 below names the problem and carries WWW-Authenticate (RFC 6750).
_bearer = HTTPBearer(auto_error=False, description="An API token: `stratagem tokens create`.")
#: The bearer scheme, for dependencies that read the token themselves.
bearer_scheme = _bearer


def _unauthorized(detail: str, error: str | None = None) -> HTTPException:
    challenge = 'Bearer realm="stratagem"'
    if error:
        challenge += f', error="{error}"'
    return HTTPException(
        status_code=status.HTTP_401_UNAUTHORIZED,
        detail=detail,
        headers={"WWW-Authenticate": challenge},
    )


def api_user(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    """The user whose token is in `Authorization: Bearer …`; 401 when missing or not valid."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise _unauthorized("authentication required: send Authorization: Bearer <token>")
    user = service.user_for_token(session=session, token=credentials.credentials)
    if user is None:
        raise _unauthorized("the token is invalid or revoked", error="invalid_token")
    return user


ApiUser = Annotated[User, Depends(api_user)]


def optional_api_user(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User | None:
    """For public API routes: None without a token, the user with a valid one, and 401 for
    a token that is invalid or revoked (a client that sends one wants to know)."""
    if credentials is None:
        return None
    return api_user(session, credentials)


OptionalApiUser = Annotated[User | None, Depends(optional_api_user)]


ROLE_REFUSAL = N_("requires role %(need)s (you are %(role)s)")


def require_role(*roles: str) -> Callable[[User, Request], User]:
    """A dependency that passes users holding one of `roles` and answers 403 otherwise."""
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise ValueError(f"unknown roles: {', '.join(sorted(unknown))}")

    def check(user: ApiUser, request: Request) -> User:
        if user.role not in roles:
            # In the request's language, as the API's other refusals are (QA: an English 403
            # beside a 中文 409 to the same client).
            # The language middleware's choice (`request.state.lang`): English for the JSON
            # API unless asked; the pages' default here made a bare 403 Chinese (QA).
            lang = getattr(request.state, "lang", None) or i18n.choose_language(request, "en")
            said = i18n.translations(lang).gettext(ROLE_REFUSAL) % {
                "need": " / ".join(roles),
                "role": user.role,
            }
            raise HTTPException(status_code=status.HTTP_403_FORBIDDEN, detail=said)
        return user

    return check


AdminUser = Annotated[User, Depends(require_role("admin"))]
