"""Share links: the JSON API (bearer) under /api/v1/plans/{id}/share."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from app.accounts.deps import ApiUser
from app.deps import SessionDep
from app.ids import DbId
from app.sharing import service
from app.sharing.models import ShareCreate, ShareCreated

router = APIRouter(prefix="/api/v1/plans", tags=["sharing"])


def share_url(request: Request, token: str) -> str:
    """The link a customer opens: under STRATAGEM_PUBLIC_URL where it is set, else at the
    address this request came to (behind a proxy that sends no X-Forwarded-* headers, that
    is the app's internal address, which no customer can reach)."""
    public: str = request.app.state.settings.public_url
    if public:
        return public + request.app.url_path_for("shared_plan", token=token)
    return str(request.url_for("shared_plan", token=token))


@router.post("/{plan_id}/share", status_code=status.HTTP_201_CREATED, response_model=ShareCreated)
def create_share(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    user: ApiUser,
    body: ShareCreate | None = None,
) -> ShareCreated:
    """Create a read-only link to the plan; the URL (with its secret) is shown only now."""
    days = body.expires_in_days if body else None
    link, token = service.create_link(
        session=session, plan_id=plan_id, actor=user, expires_in_days=days
    )
    assert link.id is not None
    return ShareCreated(id=link.id, url=share_url(request, token), expires_at=link.expires_at)


@router.delete("/{plan_id}/share", status_code=status.HTTP_204_NO_CONTENT)
def revoke_shares(plan_id: DbId, session: SessionDep, user: ApiUser) -> Response:
    """Revoke every active link to the plan."""
    service.revoke_links(session=session, plan_id=plan_id, actor=user)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/{plan_id}/share/{link_id}", status_code=status.HTTP_204_NO_CONTENT)
def revoke_share(plan_id: DbId, link_id: DbId, session: SessionDep, user: ApiUser) -> Response:
    """Revoke one link to the plan."""
    service.revoke_links(session=session, plan_id=plan_id, actor=user, link_id=link_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
