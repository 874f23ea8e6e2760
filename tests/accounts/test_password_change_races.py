"""Two password changes sent together from two devices: one is made, the other is told its
current password is not right (race QA: both answered "changed" in 20 of 20 rounds, while
only one of the two new passwords worked)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Engine, update
from sqlmodel import Session, col

from app.accounts import auth, service
from app.accounts.models import User
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
