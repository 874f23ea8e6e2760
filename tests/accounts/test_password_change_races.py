"""Two password changes sent together from two devices: one is made, the other is told its
current password is not right (race QA: both answered "changed" in 20 of 20 rounds, while
only one of the two new passwords worked)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from app.accounts import auth, service
from app.accounts.models import LoginAttempt, User
from tests.races import (
    Background,
    holding,
    race_engine,  # noqa: F401  (the `engine` fixture)
    wait_until_blocked,
)

OLD = "correct horse battery"


def test_of_two_password_changes_at_once_one_is_made_and_the_other_refused(
    engine: Engine,
) -> None:
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    with Session(engine) as s:
        user = service.create_user(session=s, email=email, password=OLD, role="sales", name="U")
        user_id = user.id
    assert user_id is not None

    def change(new: str) -> Any:
        with Session(engine) as s:
            try:
                auth.change_password(session=s, user_id=user_id, current=OLD, new=new)
            except service.AccountError as e:
                return e
            return new

    devices = Background()
    hold = update(User).where(col(User.id) == user_id).values(name=User.name)
    with holding(engine, hold):
        devices.start(lambda: change("new password from the laptop"))
        devices.start(lambda: change("new password from the phone"))
        wait_until_blocked(engine, 2)
    outcomes = devices.results()
    made = [o for o in outcomes if isinstance(o, str)]
    refused = [o for o in outcomes if isinstance(o, service.AccountError)]
    assert len(made) == 1 and len(refused) == 1, outcomes
    assert refused[0].field == "current_password"
    with Session(engine) as s:
        assert service.authenticate(session=s, email=email, password=made[0]) is not None
        assert service.authenticate(session=s, email=email, password=OLD) is None


def _user(engine: Engine) -> tuple[int, str]:
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    with Session(engine) as s:
        user = service.create_user(session=s, email=email, password=OLD, role="sales", name="U")
        assert user.id is not None
        return user.id, email


def _change_elsewhere(engine: Engine, user_id: int, new: str) -> None:
    with Session(engine) as s:
        auth.change_password(session=s, user_id=user_id, current=OLD, new=new)


def test_a_sign_in_with_the_old_password_while_it_changes_gets_no_session(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving race QA met once in 20 rounds on PostgreSQL, made to happen: the old
    password is verified, then the change commits, then the sign-in would have gone on to
    make a session. It is now refused, and counted as a failed sign-in."""
    user_id, email = _user(engine)
    verify = service.authenticate

    def verified_then_changed(**kw: Any) -> User | None:
        user = verify(**kw)
        monkeypatch.setattr(service, "authenticate", verify)  # the change checks with it too
        _change_elsewhere(engine, user_id, "the new password, set meanwhile")
        return user

    monkeypatch.setattr(service, "authenticate", verified_then_changed)
    with Session(engine) as s:
        assert auth.sign_in(session=s, email=email, password=OLD, ip="203.0.113.5") is None
        failed = s.exec(select(LoginAttempt).where(LoginAttempt.email == email)).all()
        assert [a.checked for a in failed] == [True]
    monkeypatch.setattr(service, "authenticate", verify)
    with Session(engine) as s:
        assert auth.sign_in(session=s, email=email, password=OLD, ip="203.0.113.5") is None
        user = auth.sign_in(
            session=s, email=email, password="the new password, set meanwhile", ip="203.0.113.5"
        )
        assert user is not None and user.id == user_id


def test_a_hash_upgrade_does_not_put_back_a_password_changed_meanwhile(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sign-in whose hash needs new parameters rehashes the password it verified; if the
    password changed in between, the rehash of the old one must not overwrite the new."""
    user_id, email = _user(engine)
    make_hash = service.hash_password

    class Upgrading(PasswordHasher):
        def check_needs_rehash(self, hash: str) -> bool:
            return True

    monkeypatch.setattr(service, "_hasher", Upgrading())

    def changed_first(password: str) -> str:
        monkeypatch.setattr(service, "hash_password", make_hash)
        _change_elsewhere(engine, user_id, "the new password, set meanwhile")
        return make_hash(password)

    monkeypatch.setattr(service, "hash_password", changed_first)
    with Session(engine) as s:
        service.authenticate(session=s, email=email, password=OLD)
    monkeypatch.undo()
    with Session(engine) as s:
        assert service.authenticate(session=s, email=email, password=OLD) is None
        assert service.authenticate(
            session=s, email=email, password="the new password, set meanwhile"
        )
