"""A quote request sent twice (a double click on "Request a quote", a form sent again) is
one lead in the sales queue (race QA: two leads in 20 of 20 rounds on SQLite and
PostgreSQL); a different request from the same person is a lead of its own."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Engine, func, text, update
from sqlmodel import Session, select

from app.db import lock_key
from app.leads.models import Lead, LeadCreate
from app.leads.service import create_lead
from tests.races import (
    Background,
    holding,
    race_engine,  # noqa: F401  (the `engine` fixture)
    wait_until_blocked,
)


def _request(email: str, **extra: Any) -> LeadCreate:
    fields: dict[str, Any] = {
        "name": "Ms Lin", "company": "ACME Taiwan", "email": email, "notes": "By March",
        "lang": "zh-TW", "tier": "multi_gpu", "answers": {"model": "llama-3.1-8b"},
    }  # fmt: skip
    return LeadCreate(**(fields | extra))


def _count(engine: Engine, email: str) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Lead).where(Lead.email == email)).one()


def test_the_same_request_sent_twice_at_once_is_one_lead(engine: Engine) -> None:
    email = f"{uuid.uuid4().hex[:8]}@example.com.tw"

    def submit() -> Any:
        with Session(engine) as s:
            return create_lead(session=s, data=_request(email)).id

    # What the two submits wait on: the lock they take turns on (PostgreSQL), the write
    # lock (SQLite).
    postgres = engine.dialect.name == "postgresql"
    hold = (
        text("SELECT pg_advisory_xact_lock(:k)").bindparams(k=lock_key(f"lead:{email}"))
        if postgres
        else update(Lead).values(notes=Lead.notes)
    )
    clicks = Background()
    with holding(engine, hold):
        clicks.start(submit)
        clicks.start(submit)
        wait_until_blocked(engine, 2)
    first, second = clicks.results()
    assert first == second
    assert _count(engine, email) == 1


def test_a_different_request_from_the_same_person_is_a_new_lead(engine: Engine) -> None:
    email = f"{uuid.uuid4().hex[:8]}@example.com.tw"
    with Session(engine) as s:
        a = create_lead(session=s, data=_request(email))
        again = create_lead(session=s, data=_request(email))
        other = create_lead(session=s, data=_request(email, answers={"model": "llama-3.1-70b"}))
        assert again.id == a.id and other.id != a.id
    assert _count(engine, email) == 2
