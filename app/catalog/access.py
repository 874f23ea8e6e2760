"""Who may change the catalog, decided in one place.

Every route that changes the catalog (API and pages) sits on a router built with
`dependencies=ADMIN_DEPENDENCIES`. The one dependency in it asks for an admin in the way the
route's audience signs in: a bearer token (`require_role("admin")`, 401/403 JSON) under
/api/, the session cookie (`page_role("admin")`: sign-in redirect, 403 page) elsewhere.
Reading catalog pages needs any signed-in user (create_app includes the page router with
`page_role("sales", "admin")`); the catalog's read API stays public.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials

from app.accounts.deps import api_user, bearer_scheme, optional_api_user, require_role
from app.accounts.models import User
from app.accounts.web import page_role, page_user
from app.catalog.models import PriceList
from app.catalog.service.errors import NotFound as CatalogNotFound
from app.deps import SessionDep
from app.i18n import N_

_api_admin = require_role("admin")
_page_admin = page_role("admin")


def require_catalog_admin(
    request: Request,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> User:
    """An admin: by bearer token on the JSON API, by session cookie on the pages."""
    if request.url.path.startswith("/api/"):
        user = _api_admin(api_user(session, credentials), request)
        request.state.user = user  # the audit trail's actor
        return user
    return _page_admin(page_user(request))


#: Router-level dependencies of the catalog's editing routes.
ADMIN_DEPENDENCIES: list[Any] = [Depends(require_catalog_admin)]


def current_actor(request: Request) -> str:
    """The name the audit trail records: the signed-in user once there is one."""
    user = getattr(request.state, "user", None)
    for attr in ("email", "username", "name"):
        value = getattr(user, attr, None)
        if value:
            return str(value)
    return "anonymous"


ActorDep = Annotated[str, Depends(current_actor)]


# ----------------------------------------------------------------------------- drafts

#: The API caller, when a bearer token came with the request (the catalog's read API is
#: public, but drafts are not).
ViewerDep = Annotated[User | None, Depends(optional_api_user)]


def sees_drafts(viewer: User | None) -> bool:
    """Unpublished (draft) price lists are for signed-in catalog users only (issue 13)."""
    return viewer is not None and viewer.role in ("sales", "admin")


def visible(pl: PriceList, viewer: User | None) -> PriceList:
    """`pl`, or 404 when it is a draft the viewer may not see (the same answer as an id
    that does not exist, so drafts cannot be enumerated)."""
    if pl.status == "draft" and not sees_drafts(viewer):
        # word for word what CatalogError's NotFound says of a missing id (service.versions),
        # where a query's `price_list` is answered
        raise CatalogNotFound(N_("no price list %(id)s"), field="price_list", id=pl.id)
    return pl
