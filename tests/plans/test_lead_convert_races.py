"""A quote request converted twice at once (a double click) makes one plan (race QA: two
plans, and sometimes two customers, in 19–20 of 20 rounds on SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Engine, func, update
from sqlmodel import Session, col, select

from app.accounts import service as accounts
from app.accounts.models import User
from app.customers.models import Customer
from app.leads.models import Lead, LeadCreate
from app.leads.service import convert_lead, create_lead
from app.plans.models import Plan
from tests.plan_quotes import WORKLOAD
from tests.races import (
    Background,
    holding,
    race_engine,  # noqa: F401  (the `engine` fixture)
    wait_until_blocked,
)


def test_a_double_clicked_convert_makes_one_plan_and_one_customer(engine: Engine) -> None:
    company = f"ACME {uuid.uuid4().hex[:6]}"
    with Session(engine) as s:
        owner = accounts.create_user(
            session=s, email=f"{uuid.uuid4().hex[:8]}@example.com", password="x" * 12,
            role="sales", name="Sales",
        )  # fmt: skip
        lead = create_lead(
            session=s,
            data=LeadCreate(
                name="Ms Lin",
                company=company,
                email="lin@example.com.tw",
                notes="",
                lang="zh-TW",
                tier="multi_gpu",
                answers={},
            ),
        )
        owner_id, lead_id = owner.id, lead.id
    assert owner_id is not None and lead_id is not None

    def convert() -> Any:
        with Session(engine) as s:
            user = s.get(User, owner_id)
            assert user is not None
            return convert_lead(session=s, lead_id=lead_id, owner=user, workload=lambda _: WORKLOAD)

    clicks = Background()
    with holding(engine, update(Lead).where(col(Lead.id) == lead_id).values(notes=Lead.notes)):
        clicks.start(convert)
        clicks.start(convert)
        wait_until_blocked(engine, 2)
    first, second = clicks.results()
    assert first == second  # the second click opens the first click's plan
    with Session(engine) as s:
        plans = s.exec(select(func.count()).select_from(Plan).where(Plan.customer == company))
        customers = s.exec(
            select(func.count()).select_from(Customer).where(Customer.name == company)
        )
        assert (plans.one(), customers.one()) == (1, 1)
        stored = s.get(Lead, lead_id)
        assert stored is not None and stored.status == "converted"
        assert stored.answers["plan_id"] == first
