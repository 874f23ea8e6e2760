"""JSON API v1: who am I (the bearer token's user)."""

from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser
from app.accounts.models import User, UserPublic

router = APIRouter(prefix="/api/v1", tags=["accounts"])


@router.get("/me", response_model=UserPublic)
def get_me(user: ApiUser) -> User:
    """The user the bearer token belongs to."""
    return user
