"""Users and tokens for tests, made through the account service."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts import service
from app.accounts.models import ROLES, User

PASSWORD = "correct horse battery"


@dataclass
class Account:
    user: User
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


MakeAccount = Callable[[str], Account]


@cache
def _password_hash() -> str:
    """PASSWORD's Argon2 hash, made once a process: hashing costs 0.11 s here, and the suite
    makes hundreds of accounts (a sign-in through the form still verifies it for real)."""
    return service.hash_password(PASSWORD)


def make_account(client: TestClient, role: str = "sales") -> Account:
    """An active user of `role` whose password is PASSWORD, and an API token of theirs.
    (app.accounts.service.create_user and its checks have tests of their own.)"""
    assert role in ROLES, role
    with Session(client.app.state.engine) as session:  # type: ignore[attr-defined]
        user = User(
            email=service.normalize_email(f"{role}-{uuid.uuid4().hex[:8]}@Example.COM"),
            name=f"Test {role}",
            role=role,
            password_hash=_password_hash(),
        )
        session.add(user)
        session.commit()
        session.refresh(user)
        _, token = service.create_token(session=session, user=user, name="tests")
        session.refresh(user)
        session.expunge(user)
    return Account(user=user, token=token)


def session_cookie(client: TestClient, user: User) -> str:
    """The `session` cookie value that signs `user` in to the pages of `client`'s app."""
    from app.accounts import web

    secret = client.app.state.settings.resolved_secret_key()  # type: ignore[attr-defined]
    return web.session_cookie(secret, user)


def sign_in(client: TestClient, user: User) -> None:
    """Sign `user` in on `client` (sets the cookie directly: no form, no Argon2 cost)."""
    from app.accounts import web

    client.cookies.set(web.COOKIE, session_cookie(client, user))
