"""An archive or a reprice sent without a version acts on the version it finds, even when
a save lands while it is written (race QA: 409 "changed by someone else since you loaded
it", to a caller that had stated no version). With a version, that save is a Conflict."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col

from app.accounts import service as accounts
from app.accounts.models import User
from app.plans import service as plans
from app.plans.models import Plan
from tests.plan_quotes import WORKLOAD
from tests.races import (
    Background,
    holding,
    race_engine,  # noqa: F401  (the `engine` fixture)
    wait_until_blocked,
)


def _plan(engine: Engine) -> tuple[int, int]:
    with Session(engine) as s:
        owner = accounts.create_user(
            session=s, email=f"{uuid.uuid4().hex[:8]}@example.com", password="x" * 12,
            role="sales", name="Sales",
        )  # fmt: skip
        plan = plans.create_plan(session=s, owner=owner, name="Plan", workload=WORKLOAD)
        assert owner.id is not None and plan.id is not None
        return owner.id, plan.id


def _act(engine: Engine, owner_id: int, plan_id: int, action: str, version: int | None) -> Any:
    with Session(engine) as s:
        user = s.get(User, owner_id)
        assert user is not None
        try:
            if action == "archive":
                return plans.archive_plan(
                    session=s, plan_id=plan_id, actor=user, expected_version=version
                ).version
            return plans.reprice_plan(
                session=s, plan_id=plan_id, actor=user, expected_version=version
            ).plan.version
        except plans.Conflict as e:
            return e


@pytest.mark.parametrize("action", ["archive", "reprice"])
@pytest.mark.parametrize("version", [None, 1])
def test_a_save_landing_meanwhile(engine: Engine, action: str, version: int | None) -> None:
    owner_id, plan_id = _plan(engine)
    calls = Background()
    hold = update(Plan).where(col(Plan.id) == plan_id).values(notes=Plan.notes)
    with holding(engine, hold) as conn:
        calls.start(lambda: _act(engine, owner_id, plan_id, action, version))
        wait_until_blocked(engine, 1)
        with Session(bind=conn) as s:
            owner = s.get(User, owner_id)
            assert owner is not None
            plans.update_plan(
                session=s,
                plan_id=plan_id,
                expected_version=1,
                changes={"notes": "saved meanwhile"},
                actor=owner,
            )
    (outcome,) = calls.results()
    with Session(engine) as s:
        stored = s.get(Plan, plan_id)
        assert stored is not None and stored.notes == "saved meanwhile"
    if version is None:
        assert outcome == 3  # acted on version 2, the save's
        assert stored.version == 3 and stored.archived == (action == "archive")
    else:
        assert isinstance(outcome, plans.Conflict) and outcome.current_version == 2
        assert stored.version == 2 and not stored.archived
