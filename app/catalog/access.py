"""Who may change the catalog, decided in one place.

Every route that changes the catalog (API and pages) sits on a router built with
`dependencies=ADMIN_DEPENDENCIES`; access control adds its `Depends(require_role("admin"))`
to that list and nothing else changes. Reading the catalog stays public.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request

#: Router-level dependencies of the catalog's editing routes.
ADMIN_DEPENDENCIES: list[Any] = []


def current_actor(request: Request) -> str:
    """The name the audit trail records: the signed-in user once there is one."""
    user = getattr(request.state, "user", None)
    for attr in ("email", "username", "name"):
        value = getattr(user, attr, None)
        if value:
            return str(value)
    return "anonymous"


ActorDep = Annotated[str, Depends(current_actor)]
