"""Who is signed in to the HTML pages: the signed `session` cookie and page dependencies.

Conventions (use these in every page router)
--------------------------------------------
* ``OptionalPageUser`` — ``User | None``: pages anyone may see that show more when signed in.
* ``PageUser`` — a signed-in ``User``; anonymous visitors get ``303 /login?next=<path>``
  (an HTMX request gets ``HX-Redirect`` instead, so the whole page moves).
* ``page_role("admin")`` / ``page_role("sales", "admin")`` — a dependency that also checks
  the role; the wrong role gets a translated 403 page. Ready-made aliases: ``AdminPageUser``
  and ``SalesPageUser`` (sales or admin). Router-wide:
  ``APIRouter(dependencies=[Depends(page_role("admin"))])``.
* Templates get ``current_user`` (``User | None``) in their context; Python code may call
  :func:`current_user` (cached per request, also stored as ``request.state.user`` for the
  audit trail).
* The JSON API does not use these: it uses bearer tokens (``app.accounts.deps``).

The cookie holds ``{"u": user id, "n": user.session_nonce}``, signed and timestamped with
``settings.resolved_secret_key()`` (itsdangerous). Signing out or changing the password draws
a new nonce, so every cookie issued before stops working on every device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Final
from urllib.parse import quote, urlsplit

from fastapi import Depends, Request
from fastapi.responses import Response
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlmodel import Session

from app.accounts.models import ROLES, User
from app.errors import LoginRequired, PageForbidden

COOKIE: Final = "session"
MAX_AGE: Final = 12 * 60 * 60  # seconds: a working day, then sign in again
_SALT: Final = "stratagem.session"
_UNSET: Final = object()


def _serializer(request: Request) -> URLSafeTimedSerializer:
    return serializer(request.app.state.settings.resolved_secret_key())


def serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt=_SALT)


def session_cookie(secret: str, user: User) -> str:
    """The signed cookie value that signs `user` in (tests use it to skip the form)."""
    return str(serializer(secret).dumps({"u": user.id, "n": user.session_nonce}))


def cookie_value(request: Request, user: User) -> str:
    """The signed cookie value that signs `user` in."""
    return session_cookie(request.app.state.settings.resolved_secret_key(), user)


def set_session_cookie(request: Request, response: Response, user: User) -> None:
    """Sign `user` in on `response` (HttpOnly, SameSite=Lax, Secure over HTTPS, 12 h)."""
    response.set_cookie(
        COOKIE,
        cookie_value(request, user),
        max_age=MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=bool(request.app.state.settings.https),
    )
    request.state.user = user


def clear_session_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(
        COOKIE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=bool(request.app.state.settings.https),
    )
    request.state.user = None


def _user_from_cookie(request: Request) -> User | None:
    raw = request.cookies.get(COOKIE)
    if not raw:
        return None
    try:
        data = _serializer(request).loads(raw, max_age=MAX_AGE)
    except BadSignature:  # also SignatureExpired
        return None
    if not isinstance(data, dict):
        return None
    user_id, nonce = data.get("u"), data.get("n")
    if not isinstance(user_id, int) or not isinstance(nonce, str) or not nonce:
        return None
    with Session(request.app.state.engine) as session:
        user = session.get(User, user_id)
    if user is None or not user.is_active or user.session_nonce != nonce:
        return None
    return user


def current_user(request: Request) -> User | None:
    """The user the `session` cookie signs in (None for visitors); cached per request."""
    cached = request.scope.get("stratagem.user", _UNSET)
    if cached is _UNSET:
        cached = _user_from_cookie(request)
        request.scope["stratagem.user"] = cached
        request.state.user = cached
    return cached if isinstance(cached, User) else None


def optional_page_user(request: Request) -> User | None:
    """The signed-in user, or None."""
    return current_user(request)


def _here(request: Request) -> str:
    """The path (and query) to come back to after signing in."""
    if request.headers.get("hx-request") == "true":
        # An HTMX fragment URL is no page to come back to: use the page the user is on.
        current = urlsplit(request.headers.get("hx-current-url", ""))
        if current.path:
            return current.path + (f"?{current.query}" if current.query else "")
    url = request.url
    return url.path + (f"?{url.query}" if url.query else "")


def page_user(request: Request) -> User:
    """The signed-in user; anonymous visitors are sent to /login (see `LoginRequired`)."""
    user = current_user(request)
    if user is None:
        raise LoginRequired(_here(request))
    return user


OptionalPageUser = Annotated[User | None, Depends(optional_page_user)]
PageUser = Annotated[User, Depends(page_user)]


def page_role(*roles: str) -> Callable[..., User]:
    """A dependency: a signed-in user holding one of `roles`; others get a 403 page."""
    unknown = set(roles) - set(ROLES)
    if not roles or unknown:
        raise ValueError(f"unknown roles: {', '.join(sorted(unknown)) or '(none)'}")

    def check(user: PageUser) -> User:
        if user.role not in roles:
            raise PageForbidden(roles)
        return user

    return check


AdminPageUser = Annotated[User, Depends(page_role("admin"))]
SalesPageUser = Annotated[User, Depends(page_role("sales", "admin"))]


def login_url(next_path: str | None) -> str:
    if next_path and is_local_path(next_path) and next_path != "/":
        return "/login?next=" + quote(next_path, safe="/")
    return "/login"


def is_local_path(value: str | None) -> bool:
    """True for a path on this site ("/plans?x=1"), false for "//evil", "https://…", "/\\…"."""
    if not value or not value.startswith("/") or value.startswith(("//", "/\\")):
        return False
    if any(c in value for c in "\r\n\t\\") or any(ord(c) < 32 for c in value):
        return False
    parts = urlsplit(value)
    return not parts.scheme and not parts.netloc
