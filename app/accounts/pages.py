"""Sign-in pages: /login, /logout and /account (profile, password, API tokens).

Every POST carries the CSRF token. Wrong credentials get one message that never says which
part was wrong; repeated failures get 429 with Retry-After (see `app.accounts.auth`).
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from app import text
from app.accounts import auth, service
from app.accounts.models import User
from app.accounts.web import (
    OptionalPageUser,
    PageUser,
    clear_session_cookie,
    is_local_path,
    set_session_cookie,
)
from app.deps import SessionDep
from app.i18n import N_
from app.i18n import gettext as _
from app.ids import DbId
from app.web.csrf import verify_csrf
from app.web.forms import PostedText
from app.web.templating import activate, render

router = APIRouter(include_in_schema=False)
CSRF: Final = [Depends(verify_csrf)]
#: Pages that show a secret or personal data must not be kept by caches or the back button.
NO_STORE: Final = {"Cache-Control": "no-store"}
NOTICES: Final = {
    "password": N_("Your password has been changed. Other devices have been signed out."),
    "revoked": N_("The token has been revoked."),
}
#: Query `done` values that report a refusal (shown as a warning, not a success).
WARNINGS: Final = {
    "no-token": N_("There is no such token among yours: nothing was revoked."),
}


def _next(value: str | None) -> str:
    return value if value and is_local_path(value) and not value.startswith("/login") else ""


def _login_page(
    request: Request,
    *,
    email: str = "",
    next_path: str = "",
    error: str = "",
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    """The sign-in form: `error` for the whole form (never which part was wrong), `errors`
    beside each field left empty."""
    ctx = {"email": email, "next": next_path, "error": error, "errors": errors or {}}
    return render(request, "accounts/login.html", ctx, status_code=status, headers=NO_STORE)


@router.get("/login")
def login_page(request: Request, user: OptionalPageUser, next: str | None = None) -> Response:
    """The sign-in form (a signed-in user goes straight on to `next`)."""
    target = _next(next)
    if user is not None:
        return RedirectResponse(target or "/", status_code=303)
    return _login_page(request, next_path=target)


@router.post("/login", dependencies=CSRF)
def login(request: Request, session: SessionDep, form: PostedText) -> Response:
    """Check the e-mail and password; on success set the session cookie and go on to `next`.

    A plain `def`: the password hash (Argon2, tens of milliseconds of CPU) and the database
    run in the threadpool, not on the event loop every other request needs."""
    activate(request)  # messages below are translated before `render`
    email, password, target = (
        form.get("email", ""),
        form.get("password", ""),
        _next(form.get("next")),
    )
    # A field left empty is said beside it (QA: "the e-mail address or password is not
    # right" for an empty form); no sign-in is tried, so nothing counts against the account.
    empty = {
        name: _("This field is required.")
        for name, value in (("email", email.strip()), ("password", password))
        if not value
    }
    if empty:
        return _login_page(request, email=email, next_path=target, errors=empty, status=422)
    ip = request.client.host if request.client else "unknown"
    try:
        user = auth.sign_in(session=session, email=email, password=password, ip=ip)
    except auth.Throttled as exc:
        if exc.busy:
            error = _(
                "Other sign-ins to this account are being checked at this moment. "
                "Try again in a few seconds."
            )
        else:
            minutes = max(1, -(-exc.retry_after // 60))
            error = _("Too many failed sign-ins. Try again in %(n)s minutes.") % {"n": minutes}
        response = _login_page(request, email=email, next_path=target, error=error, status=429)
        response.headers["Retry-After"] = str(exc.retry_after)
        return response
    if user is None:
        error = _("The e-mail address or password is not right.")
        return _login_page(request, email=email, next_path=target, error=error, status=400)
    response = RedirectResponse(target or "/", status_code=303)
    set_session_cookie(request, response, user)
    return response


@router.post("/logout", dependencies=CSRF)
def logout(request: Request, session: SessionDep, user: OptionalPageUser) -> Response:
    """Sign out: this browser's cookie goes, and every other session of the user ends."""
    if user is not None and user.id is not None:
        auth.end_sessions(session=session, user_id=user.id)
    response = RedirectResponse("/", status_code=303)
    clear_session_cookie(request, response)
    return response


def _account_page(
    request: Request,
    session: SessionDep,
    user: User,
    *,
    status: int = 200,
    **extra: Any,
) -> Response:
    activate(request)
    tokens = sorted(
        service.list_tokens(session=session, user=user),
        key=lambda t: (t.revoked_at is not None, -(t.id or 0)),
    )
    done = request.query_params.get("done", "")
    notice = NOTICES.get(done)
    warning = WARNINGS.get(done)
    ctx: dict[str, Any] = {
        "user": user,
        "tokens": tokens,
        "errors": {},
        "notice": _(notice) if notice else "",
        "warning": _(warning) if warning else "",
        "min_password": service.MIN_PASSWORD,
        **extra,
    }
    return render(request, "accounts/account.html", ctx, status_code=status, headers=NO_STORE)


@router.get("/account")
def account(request: Request, session: SessionDep, user: PageUser) -> Response:
    """Your account: name, e-mail, role, password and API tokens."""
    return _account_page(request, session, user)


@router.post("/account/tokens", dependencies=CSRF)
def create_token(
    request: Request, session: SessionDep, user: PageUser, form: PostedText
) -> Response:
    """Issue an API token; the page shows it this once."""
    activate(request)
    name = form.get("name", "").strip()
    if not name or len(name) > 100:
        errors = {"name": _("Give the token a name of up to 100 characters, e.g. “crm”.")}
        return _account_page(request, session, user, status=422, errors=errors, token_name=name)
    if bad := text.problem(name):
        errors = {"name": bad}
        return _account_page(request, session, user, status=422, errors=errors, token_name=name)
    live = {
        t.name.casefold()
        for t in service.list_tokens(session=session, user=user)
        if t.revoked_at is None
    }
    if name.casefold() in live:
        # A reload re-sent the form and made a second live token of the same name, its secret
        # never shown (QA): a name is one live token.
        errors = {
            "name": _(
                "You already have a token named “%(name)s”: revoke it or choose another name."
            )
            % {"name": name}
        }
        return _account_page(request, session, user, status=422, errors=errors, token_name=name)
    token, plaintext = service.create_token(session=session, user=user, name=name)
    return _account_page(request, session, user, new_token=plaintext, new_token_row=token)


@router.post("/account/tokens/{token_id}/revoke", dependencies=CSRF)
def revoke_token(token_id: DbId, session: SessionDep, user: PageUser) -> Response:
    """Revoke one of your API tokens; requests with it get 401 from now on."""
    if not auth.revoke_own_token(session=session, user=user, token_id=token_id):
        # someone else's, already gone or never made: said, not a silent reload (QA)
        return RedirectResponse("/account?done=no-token", status_code=303)
    return RedirectResponse("/account?done=revoked", status_code=303)


@router.post("/account/password", dependencies=CSRF)
def change_password(
    request: Request, session: SessionDep, user: PageUser, form: PostedText
) -> Response:
    """Change your password (the current one is asked for); other devices are signed out."""
    activate(request)
    new, repeat = form.get("new_password", ""), form.get("repeat_password", "")
    current = form.get("current_password", "")
    errors: dict[str, str] = {}
    if not current:
        # Said beside its own field (QA: an empty current password was told only that the new
        # one was too short).
        errors["current_password"] = _("Enter your current password.")
    if len(new) < service.MIN_PASSWORD:
        errors["new_password"] = _("Use at least %(n)s characters.") % {"n": service.MIN_PASSWORD}
    elif len(new) > service.MAX_PASSWORD:
        errors["new_password"] = _("Use at most %(n)s characters.") % {
            "n": f"{service.MAX_PASSWORD:,}"
        }
    elif (bad := service.password_problem(new)) is not None:
        errors["new_password"] = _(bad)
    elif new != repeat:
        errors["repeat_password"] = _("The two new passwords are not the same.")
    elif new == current:
        # A change that changes nothing was answered "Your password has changed" (QA).
        errors["new_password"] = _("The new password is the same as the current one.")
    if not errors:
        assert user.id is not None
        try:
            updated = auth.change_password(
                session=session, user_id=user.id, current=current, new=new
            )
        except service.AccountError:
            errors["current_password"] = _("The current password is not right.")
        else:
            response = RedirectResponse("/account?done=password", status_code=303)
            set_session_cookie(request, response, updated)  # the new nonce keeps this device in
            return response
    return _account_page(request, session, user, status=422, errors=errors)
